"""pymem: long-term memory for AI assistants, built into PostgreSQL."""

from pymem.errors import PymemError
from pymem.store import (
    BatchResult,
    MemoryItem,
    MemoryStore,
    Review,
    Settings,
    UpsertResult,
    configure_connection,
)

__all__ = [
    "BatchResult",
    "MemoryItem",
    "MemoryStore",
    "PymemError",
    "Review",
    "Settings",
    "UpsertResult",
    "configure_connection",
]
