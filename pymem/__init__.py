"""pymem: long-term memory for AI assistants, built into PostgreSQL."""

from pymem.errors import PymemError
from pymem.store import (
    AsyncMemoryStore,
    BatchResult,
    MemoryItem,
    MemoryStore,
    QualityReport,
    Review,
    Settings,
    UpsertResult,
    configure_connection,
    configure_connection_async,
)

__all__ = [
    "AsyncMemoryStore",
    "BatchResult",
    "MemoryItem",
    "MemoryStore",
    "PymemError",
    "QualityReport",
    "Review",
    "Settings",
    "UpsertResult",
    "configure_connection",
    "configure_connection_async",
]
