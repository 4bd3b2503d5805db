"""``pymem bench partitions``: a plain store against the same store hash-partitioned.

One generated store (users' rows interleaved in arrival order, random unit
vectors) is loaded by COPY into ``pymem_bench_part_plain``, cloned as a
template into ``pymem_bench_part_hash`` and partitioned there by
``pymem migrate --partitions P`` (timed: the maintenance window a conversion
costs). Then, call by call and alternating which store goes first:

- ``recall(user, q, 10)`` for a random user;
- ``upsert_memory`` of a new fact for a random user (each in a transaction
  rolled back after the call, so both stores keep the same rows);
- ``apply_decay`` over every user (rolled back the same way).

Beside each call, its floor on the same rows: recall against the bare exact
top 10 (``ORDER BY embedding <=> q LIMIT 10`` over the user's live hot
rows), upsert against the bare exact nearest-8 scan plus a plain INSERT of
the row (what any dedup must at least do), so the cost of the functions
themselves shows, judged against the targets docs/scaling.md states
(``bench.targets``).

Checked: both stores hold the same ids (the conversion copies them), so every
recall must return the same ids in the same order, every upsert the same
decision, every decay the same counts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np
import psycopg

from bench.common import (
    MemoryRows,
    Out,
    TextGen,
    bench_database,
    connect,
    copy_memories,
    drop_database,
    machine_lines,
    recreate_database,
    timestamps_us,
    unit_vectors,
    vacuum_analyze,
    verdict,
)
from bench.targets import Measured, judge, report

PLAIN = "pymem_bench_part_plain"
PARTITIONED = "pymem_bench_part_hash"
KINDS = ("fact", "preference", "habit", "event")


@dataclass(frozen=True)
class PartitionSizes:
    users: int
    memories: int  # per user
    partitions: int
    rounds: int
    decay_runs: int


FULL = PartitionSizes(users=200, memories=1_000, partitions=16, rounds=300, decay_runs=4)
QUICK = PartitionSizes(users=20, memories=300, partitions=4, rounds=40, decay_runs=2)


def load(conn: psycopg.Connection, sizes: PartitionSizes, dim: int, seed: int = 11) -> int:
    """Every user's memories, interleaved in random arrival order, by COPY."""
    rng = np.random.default_rng(seed)
    texts = TextGen(rng)
    owners = rng.permutation(np.repeat(np.arange(sizes.users), sizes.memories))
    now = datetime.now(timezone.utc)
    chunk = 20_000

    def chunks():
        for start in range(0, len(owners), chunk):
            part = owners[start : start + chunk]
            n = len(part)
            last = rng.uniform(0, 365, n)
            yield MemoryRows(
                user_id=[f"user-{u}" for u in part.tolist()],
                kind=[KINDS[i] for i in rng.integers(0, len(KINDS), n)],
                content=texts.facts(n),
                embedding=unit_vectors(rng, n, dim),
                importance=rng.uniform(0.2, 1.0, n),
                decay_rate=np.where(rng.random(n) < 0.5, np.nan, 0.001),
                last_access_us=timestamps_us(now, last),
                created_us=timestamps_us(now, last + rng.uniform(0, 30, n)),
            )

    return copy_memories(conn, chunks())


def _timed(conn: psycopg.Connection, query: str, params: tuple) -> tuple[float, list]:
    """One call inside a transaction rolled back afterwards; the call's seconds."""
    with conn.transaction(force_rollback=True):
        t0 = time.perf_counter()
        rows = conn.execute(query, params).fetchall()
        seconds = time.perf_counter() - t0
    return seconds, rows


def run(
    admin: str,
    sizes: PartitionSizes = FULL,
    out: Out = print,
    *,
    keep: bool = False,
    template: str | None = None,
) -> dict[str, Any]:
    """``template``: a migrated database to clone the plain store from, instead of
    migrating a new one."""
    from pymem.migrate import migrate

    plain_dsn = bench_database(admin, PLAIN)[1]
    hash_dsn = bench_database(admin, PARTITIONED)[1]
    if template is None:
        recreate_database(admin, PLAIN)
        migrate(plain_dsn)
    else:
        recreate_database(admin, PLAIN, template=template)
    with connect(plain_dsn) as conn:
        for line in machine_lines(conn):
            out(line)
        dim = conn.execute("SELECT embedding_dimensions FROM pymem.settings").fetchone()[0]
        t0 = time.perf_counter()
        rows = load(conn, sizes, dim)
        out(f"-- loaded {rows:,} rows ({sizes.users} users x {sizes.memories:,}, interleaved,"
            f" {dim}-d) by COPY in {time.perf_counter() - t0:.1f} s")  # fmt: skip
        vacuum_analyze(conn, out)
    recreate_database(admin, PARTITIONED, template=PLAIN)
    t0 = time.perf_counter()
    migrate(hash_dsn, partitions=sizes.partitions)
    convert_s = time.perf_counter() - t0
    out(f"-- pymem migrate --partitions {sizes.partitions}: {convert_s:.1f} s for {rows:,} rows"
        f" ({rows / convert_s:,.0f} rows/s, every users' table)")  # fmt: skip
    with connect(hash_dsn) as conn:
        vacuum_analyze(conn, out)

    rng = np.random.default_rng(5)
    ops = ("recall", "recall_floor", "upsert", "upsert_floor", "apply_decay")
    timings: dict[str, dict[str, list[float]]] = {
        op: {"plain": [], "partitioned": []} for op in ops
    }
    mismatches = {op: 0 for op in timings}
    texts = TextGen(np.random.default_rng(99))
    with connect(plain_dsn) as plain, connect(hash_dsn) as hashed:
        stores = {"plain": plain, "partitioned": hashed}
        # warm both caches alike before timing
        for conn in stores.values():
            conn.execute("SELECT count(*) FROM pymem.memories").fetchone()
        calls = {
            "recall": "SELECT memory_id FROM pymem.recall(%s, %s, 10)",
            "recall_floor": (
                "SELECT m.id FROM pymem.memories AS m WHERE m.user_id = %s"
                " AND m.consolidated_into IS NULL AND m.deleted_at IS NULL AND m.tier = 'hot'"
                " ORDER BY m.embedding <=> %s LIMIT 10"
            ),
            "upsert": "SELECT action, rule FROM pymem.upsert_memory(%s, %s, %s)",
            "upsert_floor": (
                "WITH nearest AS (SELECT m.id FROM pymem.memories AS m WHERE m.user_id = %s"
                " AND m.kind = 'fact' AND m.consolidated_into IS NULL AND m.deleted_at IS NULL"
                " ORDER BY m.embedding <=> %s LIMIT 8)"
                " INSERT INTO pymem.memories (user_id, kind, content, embedding)"
                " SELECT %s, 'fact', %s, %s WHERE (SELECT count(*) FROM nearest) >= 0"
                " RETURNING 'inserted'"
            ),
        }
        for i in range(sizes.rounds):
            user = f"user-{int(rng.integers(sizes.users))}"
            vector = unit_vectors(rng, 1, dim)[0]
            (fact,) = texts.facts(1)
            order = ("plain", "partitioned") if i % 2 == 0 else ("partitioned", "plain")
            pairs = [
                (("recall", (user, vector)), ("recall_floor", (user, vector))),
                (
                    ("upsert", (user, fact, vector)),
                    ("upsert_floor", (user, vector, user, fact, vector)),
                ),
            ]
            # a call and its floor read the same user's pages: whichever runs first
            # reads them from disk, so each goes first in every other round
            calls_in_turn = [c for pair in pairs for c in (pair if i % 4 < 2 else pair[::-1])]
            for op, params in calls_in_turn:
                results = {}
                for name in order:
                    seconds, result = _timed(stores[name], calls[op], params)
                    timings[op][name].append(seconds)
                    results[name] = result
                # the floors return what they return; only the API's answers must agree
                mismatches[op] += results["plain"] != results["partitioned"]
        at = datetime.now(timezone.utc).replace(microsecond=0)
        for i in range(sizes.decay_runs):
            order = ("plain", "partitioned") if i % 2 == 0 else ("partitioned", "plain")
            results = {}
            for name in order:
                seconds, result = _timed(
                    stores[name],
                    "SELECT scanned, cooled FROM pymem.apply_decay(%s::timestamptz"
                    " + interval '300 days')",
                    (at,),
                )
                timings["apply_decay"][name].append(seconds)
                results[name] = result
            mismatches["apply_decay"] += results["plain"] != results["partitioned"]

    summary: dict[str, Any] = {
        "rows": rows,
        "users": sizes.users,
        "partitions": sizes.partitions,
        "convert_s": convert_s,
    }
    out(f"-- {sizes.rounds} rounds, call by call, each store first in turn (p50, client side)")
    out(f"   {'operation':<38} {'plain':>10} {'partitioned':>12} {'ratio':>7}  same results")
    labels = {
        "recall": f"recall(user, q, 10), {sizes.memories:,}-memory user",
        "recall_floor": "  its floor: bare exact top 10",
        "upsert": "upsert_memory, new fact",
        "upsert_floor": "  its floor: bare top-8 scan + INSERT",
        "apply_decay": f"apply_decay, all {rows:,} rows",
    }
    for op, per in timings.items():
        plain_p50, part_p50 = float(np.median(per["plain"])), float(np.median(per["partitioned"]))
        ratio = part_p50 / plain_p50
        unit = 1 if op == "apply_decay" else 1000
        suffix = "s" if op == "apply_decay" else "ms"
        out(f"   {labels[op]:<38} {plain_p50 * unit:>8.2f}{suffix:<2} "
            f"{part_p50 * unit:>10.2f}{suffix:<2} {ratio:>6.2f}x  "
            f"{verdict(mismatches[op] == 0)} ({mismatches[op]} differ)")  # fmt: skip
        summary[op] = {
            "plain_p50_s": plain_p50,
            "partitioned_p50_s": part_p50,
            "ratio": ratio,
            "mismatches": mismatches[op],
        }
    out("-- the functions against their floor on the same rows (p50)")
    figures = []
    for name in ("plain", "partitioned"):
        recall_floor_ms = 1000 * summary["recall_floor"][f"{name}_p50_s"]
        upsert_floor_ms = 1000 * summary["upsert_floor"][f"{name}_p50_s"]
        recall_x = 1000 * summary["recall"][f"{name}_p50_s"] / recall_floor_ms
        upsert_ms = 1000 * summary["upsert"][f"{name}_p50_s"] - upsert_floor_ms
        out(f"   {name:<12} recall / floor {recall_x:.2f}x; upsert - floor {upsert_ms:+.2f} ms")
        summary[f"{name}_recall_over_floor"] = recall_x
        summary[f"{name}_upsert_minus_floor_ms"] = upsert_ms
        case = f"{name} store"
        figures.append(
            Measured("partitions_recall_over_floor", recall_x, case=case, base=recall_floor_ms)
        )
        figures.append(
            Measured("partitions_upsert_over_floor", upsert_ms, case=case, base=upsert_floor_ms)
        )
    summary["measured"] = figures
    summary["targets"] = judge(figures)
    report(summary["targets"], out)
    summary["exact"] = not any(mismatches[op] for op in ("recall", "upsert", "apply_decay"))
    if not keep:
        drop_database(admin, PARTITIONED)
        drop_database(admin, PLAIN)
    return summary


def main(dsn: str | None = None, quick: bool = False) -> int:
    """``pymem bench partitions [--quick]``: two databases, recreated each run."""
    admin, _ = bench_database(dsn, "postgres")
    print(
        f"pymem bench partitions{' --quick' if quick else ''}: databases {PLAIN} and"
        f" {PARTITIONED} (recreated, dropped after)"
    )
    result = run(admin, QUICK if quick else FULL)
    return 0 if result["exact"] else 1
