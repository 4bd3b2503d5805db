"""pymem: long-term memory for AI assistants, built into PostgreSQL."""

from pymem.errors import PymemError
from pymem.review import AsyncReviewWorker, ReviewWorker, Verdict
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
    "AsyncReviewWorker",
    "BatchResult",
    "MemoryItem",
    "MemoryStore",
    "PymemError",
    "QualityReport",
    "Review",
    "ReviewWorker",
    "Settings",
    "UpsertResult",
    "Verdict",
    "configure_connection",
    "configure_connection_async",
]
