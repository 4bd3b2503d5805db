"""``pymem bench import``: bulk import through dedup against plain one-row INSERTs.

The same generated JSONL (users interleaved as real arrival produces, about 10% of the lines
restating an earlier line of the same user) goes, in one run:

(a) row by row into ``pymem.memories`` with plain one-row INSERTs, autocommit (the rate of a
    naive loader, with no dedup at all; it reads and parses the file too);
(b) through ``pymem import`` (``pymem.importer.import_file``: per-user typed batches of
    ``upsert_memories``, each committed).

Both start from an empty store of their own users. (a) stores every line; (b) stores each
fact once: its duplicate count must equal the restated lines. The two loaders run in the order
a, b, b, a, each time on a file of its own users (the same shape, another seed), so a change of
the machine's load during the run falls on both alike; the rates are over both of each's runs.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
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
)
from pymem.bench.targets import Measured, judge, report

DATABASE = "pymem_bench_import"


@dataclass(frozen=True)
class ImportSizes:
    users: int
    lines: int
    restated: float


FULL = ImportSizes(users=40, lines=20_000, restated=0.1)
QUICK = ImportSizes(users=5, lines=600, restated=0.1)


def write_jsonl(
    path: Path, sizes: ImportSizes, dim: int, seed: int = 7, prefix: str = "import-user"
) -> int:
    """The file; returns how many lines restate an earlier line of the same user."""
    rng = np.random.default_rng(seed)
    vectors = unit_vectors(rng, sizes.lines, dim)
    words = [f"w{i}" for i in range(300)]
    seen: dict[str, list[tuple[str, np.ndarray]]] = {}
    restated = 0
    with path.open("w", encoding="utf-8") as f:
        for i in range(sizes.lines):
            user = f"{prefix}-{rng.integers(sizes.users)}"
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


def _plain_load(conn, path: Path) -> tuple[int, float]:
    """(a): parse the file and INSERT it row by row, autocommit; (rows, seconds)."""
    cur = conn.cursor()
    t0 = time.perf_counter()
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        cur.execute(
            "INSERT INTO pymem.memories (user_id, kind, content, embedding)"
            " VALUES (%s, 'fact', %s, %s)",
            (row["user"], row["content"], np.asarray(row["embedding"])),
        )
    return len(rows), time.perf_counter() - t0


def run(dsn: str, sizes: ImportSizes = FULL, out: Out = print) -> dict[str, Any]:
    from pymem.importer import import_file
    from pymem.store import MemoryStore

    plain_rows = plain_s = import_lines = 0
    import_s = 0.0
    restated = 0
    actions: Counter = Counter()
    with connect(dsn) as conn, MemoryStore(dsn) as store:
        for line in machine_lines(conn):
            out(line)
        dim = conn.execute("SELECT embedding_dimensions FROM pymem.settings").fetchone()[0]
        with tempfile.TemporaryDirectory() as tmp:
            for turn, loader in enumerate("abba"):
                path = Path(tmp) / f"memories-{turn}.jsonl"
                # every turn its own users: each loader starts from an empty store of them
                restated_here = write_jsonl(path, sizes, dim, seed=7 + turn, prefix=f"t{turn}-user")
                if loader == "a":
                    rows, seconds = _plain_load(conn, path)
                    plain_rows += rows
                    plain_s += seconds
                else:
                    # the whole call, as (a) is timed with its read and parse: the
                    # importer's own clock (result.seconds) is not what is measured
                    t0 = time.perf_counter()
                    result = import_file(store, path, progress=None)
                    import_s += time.perf_counter() - t0
                    import_lines += result.lines
                    actions.update(result.actions)
                    restated += restated_here
    plain_rate = plain_rows / plain_s
    import_rate = import_lines / import_s
    ratio = import_rate / plain_rate
    out(
        f"-- import of {sizes.lines:,} lines a turn (~{sizes.restated:.0%} restated),"
        f" {sizes.users} users interleaved, {dim}-d; turns a, b, b, a"
    )
    out(f"   (a) plain one-row INSERTs, autocommit: {plain_rate:,.0f} rows/s")
    out(
        f"   (b) pymem import (typed batches of upsert_memories): {import_rate:,.0f} lines/s "
        f"({dict(actions)})"
    )
    exact = actions["duplicate"] == restated and import_lines == 2 * sizes.lines
    out(f"   (b)/(a) = {ratio:.2f}; duplicates = restated lines: {exact}")
    figures = [
        Measured("import_over_insert", ratio, case=f"{sizes.lines:,} lines a turn", base=plain_rate)
    ]
    targets = judge(figures)
    report(targets, out)
    return {
        "measured": figures,
        "targets": targets,
        "plain_rows_per_s": plain_rate,
        "import_lines_per_s": import_rate,
        "ratio": ratio,
        "actions": dict(actions),
        "restated": restated,
        "exact": exact,
    }


def main(dsn: str | None = None, quick: bool = False, dimensions: int | None = None) -> int:
    """``pymem bench import [--quick]``: in its own database, recreated each run."""
    from pymem.migrate import migrate

    name = DATABASE + ("_quick" if quick else "")
    if dimensions is not None and dimensions != 512:
        name += f"_{dimensions}d"
    admin, bench = bench_database(dsn, name)
    print(f"pymem bench import{' --quick' if quick else ''}: database {name} (recreated)")
    recreate_database(admin, name)
    migrate(bench, dimensions=dimensions)
    result = run(bench, QUICK if quick else FULL)
    return 0 if result["exact"] else 1
