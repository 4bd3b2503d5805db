"""``pymem export`` and the restore of an export by ``pymem import`` (docs/operations.md,
"Export and restore").

An export is JSONL: a header line ``{"type": "pymem-export", "version": 1, ...}``, then a
line per row of ``pymem.export_rows`` (``{"type": "row", "table": ..., "row": {...}}``),
table by table in restore order. It is streamed from a server-side cursor and written a
line at a time, and a restore reads it a line at a time and writes batches of one table
with ``pymem.import_rows``: memory stays bounded whatever the store's size. Without
embeddings (``--no-embeddings``) the rows carry none, and the restore embeds each text
again with the store's embedder.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

FORMAT = "pymem-export"
VERSION = 1
# the tables whose rows carry the vector of their text
EMBEDDED = ("memories", "memory_versions", "memory_wordings")
BATCH = 500


def write_export(
    store: Any, out: TextIO, user_id: str | None = None, *, embeddings: bool = True
) -> Counter[str]:
    """Every row of ``user_id`` (None: of every user the store's role sees) to ``out``;
    the rows written by table."""
    written: Counter[str] = Counter()
    header = {"type": FORMAT, "version": VERSION, "schema": store.schema_version(),
              "user": user_id, "embeddings": embeddings}  # fmt: skip
    out.write(json.dumps(header) + "\n")
    with (
        store._connection(user_id) as conn,
        conn.transaction(),
        conn.cursor(name="pymem_export") as cur,
    ):
        cur.itersize = BATCH
        cur.execute("SELECT table_name, row_data FROM pymem.export_rows(%s)", (user_id,))
        for table, row in cur:
            if not embeddings:
                row.pop("embedding", None)
            line = {"type": "row", "table": table, "row": row}
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            written[table] += 1
    return written


def is_export(path: str) -> bool:
    """Whether the file at ``path`` starts with an export's header."""
    if path == "-":
        return False
    try:
        with Path(path).open(encoding="utf-8") as f:
            first = json.loads(f.readline() or "null")
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return isinstance(first, dict) and first.get("type") == FORMAT


def _rows(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    with Path(path).open(encoding="utf-8") as f:
        header = json.loads(f.readline())
        if header.get("version") != VERSION:
            raise ValueError(f"{path}: an export of version {header.get('version')!r}, "
                             f"this pymem reads version {VERSION}")  # fmt: skip
        for number, line in enumerate(f, 2):
            if not line.strip():
                continue
            record = json.loads(line)
            if not isinstance(record, dict) or record.get("type") != "row":
                raise ValueError(f"{path} line {number}: not a row of an export")
            yield number, record


def restore(
    store: Any,
    path: str,
    *,
    user_id: str | None = None,
    embed: Callable[[list[str]], Any] | None = None,
) -> Counter[str]:
    """The rows of the export at ``path`` into ``store``, each for its own user or for
    ``user_id`` (a user moved); a row without its embedding is embedded again with
    ``embed``. Returns the rows inserted by table."""
    inserted: Counter[str] = Counter()
    batch: list[dict[str, Any]] = []
    key: tuple[str, str] | None = None

    def flush() -> None:
        if not batch or key is None:
            return
        user, table = key
        if table in EMBEDDED:
            bare = [r for r in batch if "embedding" not in r]
            if bare:
                if embed is None:
                    raise ValueError("the export has no embeddings: give an embedder")
                vectors = embed([r["content"] for r in bare])
                for r, v in zip(bare, vectors, strict=True):
                    r["embedding"] = "[" + ",".join(f"{float(x):.9g}" for x in v) + "]"
        inserted[table] += store.import_rows(user, table, batch)
        batch.clear()

    for _, record in _rows(path):
        row = record["row"]
        target = (user_id or row["user_id"], record["table"])
        if target != key or len(batch) >= BATCH:
            flush()
            key = target
        batch.append(row)
    flush()
    return inserted
