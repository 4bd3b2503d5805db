"""``pymem bench import``: bulk import through dedup against plain one-row INSERTs.

The same generated JSONL (users interleaved as real arrival produces, about 10% of the lines
restating an earlier line of the same user) goes, in one run:

(a) row by row into ``pymem.memories`` with plain one-row INSERTs, autocommit (the rate of a
    naive loader, with no dedup at all; it reads and parses the file too);
(b) through ``pymem import`` (``pymem.importer.import_file``: per-user typed batches of
    ``upsert_memories``, each committed).

Both start from an empty store of their own users. (a) stores every line; (b) stores each
fact once: its duplicate count must equal the restated lines.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pymem.bench.common import (
    Out,
    bench_database,
    connect,
    machine_lines,
    recreate_database,
    unit_vectors,
    verdict,
)

DATABASE = "pymem_bench_import"


@dataclass(frozen=True)
class ImportSizes:
    users: int
    lines: int
    restated: float


FULL = ImportSizes(users=40, lines=20_000, restated=0.1)
QUICK = ImportSizes(users=5, lines=600, restated=0.1)


def write_jsonl(path: Path, sizes: ImportSizes, dim: int, seed: int = 7) -> int:
    """The file; returns how many lines restate an earlier line of the same user."""
    rng = np.random.default_rng(seed)
    vectors = unit_vectors(rng, sizes.lines, dim)
    words = [f"w{i}" for i in range(300)]
    seen: dict[str, list[tuple[str, np.ndarray]]] = {}
    restated = 0
    with path.open("w", encoding="utf-8") as f:
        for i in range(sizes.lines):
            user = f"import-user-{rng.integers(sizes.users)}"
            earlier = seen.setdefault(user, [])
            if earlier and rng.random() < sizes.restated:
                content, vector = earlier[int(rng.integers(len(earlier)))]
                restated += 1
            else:
                content = f"fact {i}: " + " ".join(rng.choice(words, 6))
                vector = vectors[i]
                earlier.append((content, vector))
            line = {"user": user, "content": content, "embedding": vector.tolist()}
            f.write(json.dumps(line) + "\n")
    return restated


def run(dsn: str, sizes: ImportSizes = FULL, out: Out = print) -> dict[str, Any]:
    from pymem.importer import import_file
    from pymem.store import MemoryStore

    with connect(dsn) as conn:
        for line in machine_lines(conn):
            out(line)
        dim = conn.execute("SELECT embedding_dimensions FROM pymem.settings").fetchone()[0]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "memories.jsonl"
            restated = write_jsonl(path, sizes, dim)
            cur = conn.cursor()
            # both loaders read and parse the same file inside their timing
            t0 = time.perf_counter()
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            for row in rows:
                cur.execute(
                    "INSERT INTO pymem.memories (user_id, kind, content, embedding)"
                    " VALUES (%s, 'fact', %s, %s)",
                    ("plain-" + row["user"], row["content"], np.asarray(row["embedding"])),
                )
            plain_s = time.perf_counter() - t0
            with MemoryStore(dsn) as store:
                result = import_file(store, path, progress=None)
    plain_rate = len(rows) / plain_s
    ratio = result.rate / plain_rate
    out(
        f"-- import of {sizes.lines:,} lines ({restated:,} restated), {sizes.users} users "
        f"interleaved, {dim}-d"
    )
    out(f"   (a) plain one-row INSERTs, autocommit: {plain_rate:,.0f} rows/s")
    out(
        f"   (b) pymem import (typed batches of upsert_memories): {result.rate:,.0f} lines/s "
        f"({dict(result.actions)})"
    )
    exact = result.actions["duplicate"] == restated and result.lines == len(rows)
    out(
        f"   (b)/(a) = {ratio:.2f}   target >= 1.0   {verdict(ratio >= 1.0)};"
        f" duplicates = restated lines: {exact}"
    )
    return {
        "plain_rows_per_s": plain_rate,
        "import_lines_per_s": result.rate,
        "ratio": ratio,
        "actions": dict(result.actions),
        "restated": restated,
        "exact": exact,
    }


def main(dsn: str | None = None, quick: bool = False) -> int:
    """``pymem bench import [--quick]``: in its own database, recreated each run."""
    from pymem.migrate import migrate

    name = DATABASE + ("_quick" if quick else "")
    admin, bench = bench_database(dsn, name)
    print(f"pymem bench import{' --quick' if quick else ''}: database {name} (recreated)")
    recreate_database(admin, name)
    migrate(bench)
    result = run(bench, QUICK if quick else FULL)
    return 0 if result["exact"] else 1
