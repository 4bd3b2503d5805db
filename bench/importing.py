"""``pymem bench import``: bulk import through dedup against plain one-row INSERTs.

The same generated JSONL (users interleaved as real arrival produces, about 10% of the lines
restating an earlier line of the same user) goes, in one run:

(a) row by row into ``pymem.memories`` with plain one-row INSERTs, autocommit (the rate of a
    naive loader, with no dedup at all; it reads and parses the file too);
(b) through ``pymem import`` (``pymem.importer.import_file``: per-user typed batches of
    ``upsert_memories``, each committed), with its default two writers (connections, a user
    each at a time);
(c) the same with one writer (``--jobs 1``), shown beside (b).

Each starts from an empty store of its own users. (a) stores every line; (b) and (c) store
each fact once: their duplicate counts must equal the restated lines. The loaders run in the
order a, b, c, c, b, a, each time on a file of its own users (the same shape, another seed),
so a change of the machine's load during the run falls on all alike; the rates are over both
of each's runs. The target is judged on (b), what ``pymem import`` does.
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

from bench.common import (
    Out,
    bench_database,
    connect,
    machine_lines,
    recreate_database,
    unit_vectors,
)
from bench.targets import Measured, judge, report

DATABASE = "pymem_bench_import"


@dataclass(frozen=True)
class ImportSizes:
    users: int
    lines: int
    restated: float


FULL = ImportSizes(users=40, lines=20_000, restated=0.1)
# the loaders' turns: each runs twice, mirrored, so a change of the machine's load during
# the run falls on all three alike
TURNS = "abccba"
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

    # rows (lines) and seconds of each loader over its turns; c: pymem import with one
    # writer (--jobs 1), shown beside the default's two
    rows = dict.fromkeys("abc", 0)
    seconds = dict.fromkeys("abc", 0.0)
    restated = 0
    actions: Counter = Counter()
    exact = True
    with connect(dsn) as conn, MemoryStore(dsn) as store:
        for line in machine_lines(conn):
            out(line)
        dim = conn.execute("SELECT embedding_dimensions FROM pymem.settings").fetchone()[0]
        with tempfile.TemporaryDirectory() as tmp:
            for turn, loader in enumerate(TURNS):
                path = Path(tmp) / f"memories-{turn}.jsonl"
                # every turn its own users: each loader starts from an empty store of them
                restated_here = write_jsonl(path, sizes, dim, seed=7 + turn, prefix=f"t{turn}-user")
                if loader == "a":
                    n, took = _plain_load(conn, path)
                else:
                    # the whole call, as (a) is timed with its read and parse: the
                    # importer's own clock (result.seconds) is not what is measured
                    t0 = time.perf_counter()
                    result = import_file(store, path, progress=None, jobs=2 if loader == "b" else 1)
                    took = time.perf_counter() - t0
                    n = result.lines
                    exact &= result.actions["duplicate"] == restated_here
                    if loader == "b":
                        actions.update(result.actions)
                        restated += restated_here
                rows[loader] += n
                seconds[loader] += took
    rate = {loader: rows[loader] / seconds[loader] for loader in rows}
    ratio = rate["b"] / rate["a"]
    out(
        f"-- import of {sizes.lines:,} lines a turn (~{sizes.restated:.0%} restated),"
        f" {sizes.users} users interleaved, {dim}-d; turns {', '.join(TURNS)}"
    )
    out(f"   (a) plain one-row INSERTs, autocommit: {rate['a']:,.0f} rows/s")
    out(
        f"   (b) pymem import (typed batches of upsert_memories, 2 writers, the default):"
        f" {rate['b']:,.0f} lines/s ({dict(actions)})"
    )
    out(f"   (c) pymem import --jobs 1 (one writer): {rate['c']:,.0f} lines/s")
    exact &= rows["b"] == rows["c"] == 2 * sizes.lines
    out(
        f"   (b)/(a) = {ratio:.2f}; (c)/(a) = {rate['c'] / rate['a']:.2f};"
        f" duplicates = restated lines: {exact}"
    )
    figures = [
        Measured("import_over_insert", ratio, case=f"{sizes.lines:,} lines a turn", base=rate["a"])
    ]
    targets = judge(figures)
    report(targets, out)
    return {
        "measured": figures,
        "targets": targets,
        "plain_rows_per_s": rate["a"],
        "import_lines_per_s": rate["b"],
        "import_one_writer_lines_per_s": rate["c"],
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
