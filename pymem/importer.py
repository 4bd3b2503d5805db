"""``pymem import FILE``: a JSONL file of memories through the same dedup as any write.

One JSON object per line: ``user`` (or ``user_id``), ``content``, ``embedding`` (a list of
numbers) or none (then the text is embedded with the bundled embedder), and any item key of
``pymem.memory_item`` (``kind``, ``importance``, ``topic``, ``canonical``, ``contacts``, ...).
Lines are sent per user in batches of the typed ``upsert_memories`` (one lock and one call a
batch, in file order within a user), so a line restating an earlier one is a duplicate of it,
exactly as if the two had been written one after the other. Each batch commits on its own: an
interrupted import can be run again, and what was imported comes back as duplicates.
"""

from __future__ import annotations

import io
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from pymem.errors import InvalidBatch
from pymem.store import MemoryStore

Embed = Callable[[list[str]], Any]
# the default progress stream: sys.stderr looked up at call time, not bound at import
_STDERR = object()


@dataclass
class ImportResult:
    lines: int = 0
    actions: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.lines / self.seconds if self.seconds else 0.0


def _lines(path: Path) -> Iterator[str]:
    """The file's lines; ``-``: standard input's, read as UTF-8 like a file."""
    if str(path) == "-":
        # lines as a file splits them: a JSON string may hold U+2028, splitlines() would cut
        yield from io.StringIO(sys.stdin.buffer.read().decode("utf-8"), newline=None)
        return
    with path.open(encoding="utf-8") as f:
        yield from f


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for lineno, line in enumerate(_lines(path), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise InvalidBatch(f"line {lineno}: not JSON: {exc}", sqlstate="PM010") from exc
        if not isinstance(row, dict):
            raise InvalidBatch(f"line {lineno}: not a JSON object", sqlstate="PM010")
        yield lineno, row


def _progress(done: int, total: int, started: float, out: TextIO) -> None:
    width = 30
    filled = width * done // max(total, 1)
    rate = done / max(time.perf_counter() - started, 1e-9)
    bar = "#" * filled + "." * (width - filled)
    out.write(f"\r[{bar}] {done:,}/{total:,} lines, {rate:,.0f}/s")
    out.flush()


def import_file(
    store: MemoryStore,
    path: str | Path,
    *,
    embed: Embed | None = None,
    batch_size: int = 500,
    progress: TextIO | object | None = _STDERR,
) -> ImportResult:
    """Import ``path`` (``-``: standard input) into ``store``; returns the counts of each
    action. The progress bar goes to ``progress`` (sys.stderr as it is at call time;
    None: no bar)."""
    if progress is _STDERR:
        progress = sys.stderr
    path = Path(path)
    records = list(_records(path))
    pending: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    result = ImportResult()
    started = time.perf_counter()

    def flush(user: str) -> None:
        batch = pending.pop(user, [])
        if not batch:
            return
        missing = [item for _, item in batch if item.get("embedding") is None]
        if missing:
            if embed is None:
                raise InvalidBatch(
                    f"line {batch[0][0]}: no embedding, and no embedder to compute one",
                    sqlstate="PM010",
                    hint="pip install 'pymem[embed]', or give each line an embedding.",
                )
            for item, vector in zip(missing, embed([i["content"] for i in missing]), strict=True):
                item["embedding"] = vector
        rows = store.upsert_many(user, [item for _, item in batch])
        result.actions.update(r.action for r in rows)
        result.lines += len(rows)
        if progress is not None:
            _progress(result.lines, len(records), started, progress)

    for lineno, row in records:
        user = row.pop("user", None) or row.pop("user_id", None)
        if not isinstance(user, str) or not user.strip():
            raise InvalidBatch(
                f"line {lineno}: `user` must be a non-empty string", sqlstate="PM010"
            )
        if not isinstance(row.get("content"), str):
            raise InvalidBatch(f"line {lineno}: `content` must be a string", sqlstate="PM010")
        pending.setdefault(user, []).append((lineno, row))
        if len(pending[user]) >= batch_size:
            flush(user)
    for user in list(pending):
        flush(user)
    result.seconds = time.perf_counter() - started
    if progress is not None:
        progress.write("\n")
    return result
