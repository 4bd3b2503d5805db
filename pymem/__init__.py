"""pymem: long-term memory for AI assistants, built into PostgreSQL."""

from pymem.errors import PymemError
from pymem.records import BatchResult, MemoryItem, QualityReport, Review, Settings, UpsertResult
from pymem.review import AsyncReviewWorker, ReviewWorker, Verdict
from pymem.steps import configure_connection
from pymem.store import AsyncMemoryStore, MemoryStore, configure_connection_async

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
