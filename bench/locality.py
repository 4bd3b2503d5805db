"""``pymem bench locality``: storage layouts for per-user exact search, side by side.

Runs on the database of ``pymem bench recall`` (1M rows, users interleaved as
arrival produces them; loaded by that benchmark if missing), adds each layout in
turn and removes it again afterwards:

(a) the heap through ``memories_live_idx`` (what pymem ships);
(b) a covering btree ``(user_id, kind) INCLUDE (...)`` read by index-only scan,
    wide (every column recall's score needs) or narrow (``id, embedding``),
    after VACUUM and after a burst of touches that clears visibility-map bits;
(c) ``halfvec(512)`` in a narrow side table with a covering btree (half the
    bytes; the distance is not the same as fp32's: checked against it);
(d) the user's rows contiguous (the ``*-contiguous`` copies: as after CLUSTER).

Two query shapes: ``bare``, the exact top 10 by distance (``ORDER BY embedding
<=> q LIMIT 10``), and ``rank``, recall's ranking without query text (distance,
state boost, decay with the floor) over the same rows, one pass. Within a phase
every variant runs on the same query, in rotation, so the ratios are side by
side; each phase also times the heap variant again as its own baseline.

Write cost, per phase: ``upsert_memory`` of a new fact for a user with 1,000
memories (committed, after 10 warm-up calls), alternating with its floor (the
bare exact top-8 scan and a plain INSERT in one transaction); and a touch
(``last_access_at``, in the wide index) alternating with a counter update (in
no index), one row each.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg

from bench import recall as rb
from bench.common import (
    Out,
    bench_database,
    connect,
    database_kept,
    elapsed,
    machine_lines,
    recreate_database,
    rotated,
    unit_vectors,
)

LIVE = "m.user_id = %(u)s AND m.consolidated_into IS NULL AND m.deleted_at IS NULL"
RECALLABLE = f"{LIVE} AND m.tier = 'hot' AND (m.valid_until IS NULL OR m.valid_until > now())"
TOP10 = " ORDER BY m.embedding <=> %(q)b LIMIT 10"
BARE = f"SELECT m.id FROM pymem.memories AS m WHERE {RECALLABLE}{TOP10}"
# the narrow covering index holds neither tier nor valid_until: the live rows only
BARE_LIVE = f"SELECT m.id FROM pymem.memories AS m WHERE {LIVE}{TOP10}"
RANK = f"""
SELECT m.id FROM pymem.memories AS m
INNER JOIN pymem.kinds AS kd ON kd.kind = m.kind
CROSS JOIN pymem.settings AS st
WHERE {RECALLABLE}
ORDER BY
    (1 - (m.embedding <=> %(q)b) + CASE WHEN m.kind = 'state' THEN st.recall_state_boost ELSE 0 END)
    * (st.recall_decay_floor + (1 - st.recall_decay_floor) * pymem.decay_score(
        m.importance, coalesce(m.decay_rate, kd.decay_rate), m.last_access_at, now()
    )) DESC,
    m.id
LIMIT 10
"""
HALF_BARE = (
    "SELECT h.id FROM bench_half AS h WHERE h.user_id = %(u)s"
    " ORDER BY h.embedding <=> %(q)b::vector::halfvec LIMIT 10"
)
WIDE = (
    "CREATE INDEX bench_cover_wide ON pymem.memories (user_id, kind)"
    " INCLUDE (id, embedding, importance, decay_rate, last_access_at, tier, valid_until)"
    " WHERE consolidated_into IS NULL AND deleted_at IS NULL"
)
NARROW = (
    "CREATE INDEX bench_cover_narrow ON pymem.memories (user_id, kind) INCLUDE (id, embedding)"
    " WHERE consolidated_into IS NULL AND deleted_at IS NULL"
)
HEAP_ONLY = ("SET LOCAL enable_indexonlyscan = off", "SET LOCAL enable_indexscan = off")
WRITER = "w-writer"  # the user whose upserts are timed: a copy of the 1k user's memories
BURST_SHARE = 0.02  # rows touched by the write burst


@dataclass(frozen=True)
class Variant:
    name: str
    sql: str
    settings: tuple[str, ...] = ()
    user_suffix: str = "arrival"


def _time(conn: psycopg.Connection, v: Variant, params: dict) -> tuple[float, list]:
    with conn.transaction():
        for s in v.settings:
            conn.execute(s)
        t0 = time.perf_counter()
        rows = conn.execute(v.sql, params).fetchall()
        return time.perf_counter() - t0, rows


def _plan(conn: psycopg.Connection, v: Variant, params: dict) -> str:
    with conn.transaction():
        for s in v.settings:
            conn.execute(s)
        lines = [
            r[0] for r in conn.execute(f"EXPLAIN (ANALYZE, COSTS OFF) {v.sql}", params).fetchall()
        ]
    scan = next((ln.strip().split(" (")[0] for ln in lines if "Scan" in ln), "?")
    fetches = next((ln.strip() for ln in lines if "Heap Fetches" in ln), "")
    return f"{scan.lstrip('-> ')}{'; ' + fetches if fetches else ''}"


def measure(
    conn: psycopg.Connection,
    variants: list[Variant],
    queries: dict[int, list[np.ndarray]],
    n_queries: int,
    warmup: int,
    out: Out,
    label: str,
) -> dict[tuple[str, int], float]:
    """p50 ms of every variant for the 1k and 10k user, in rotation on the same queries."""
    sizes = sorted(queries)
    cells = [(v, n) for n in sizes for v in variants]
    times: dict[tuple[str, int], list[float]] = {(v.name, n): [] for v, n in cells}
    answers: dict[tuple[str, int], list[list]] = {(v.name, n): [] for v, n in cells}
    for i in range(warmup + n_queries):
        for v, n in rotated(cells, i):
            user = f"r{n}-{v.user_suffix}"
            seconds, rows = _time(conn, v, {"u": user, "q": queries[n][i]})
            if i >= warmup:
                times[(v.name, n)].append(seconds)
                answers[(v.name, n)].append(rows)
    p50 = {key: float(np.median(t)) * 1000 for key, t in times.items()}
    out(f"-- {label}: p50 ms of {n_queries} queries each (after {warmup} warm-up), in rotation")
    base = variants[0].name
    for n in sizes:
        for v in variants:
            plan = _plan(conn, v, {"u": f"r{n}-{v.user_suffix}", "q": queries[n][0]})
            ratio = p50[(v.name, n)] / p50[(base, n)]
            out(f"   {n:>6,} {v.name:<34}{p50[(v.name, n)]:>9.2f} ms {ratio:>6.2f}x   {plan}")
    p50.update({("answers", 0): answers})  # type: ignore[dict-item]
    return p50


def write_cost(conn: psycopg.Connection, rng: np.random.Generator, n: int) -> dict[str, float]:
    """p50 ms: upsert_memory (new fact) vs bare top-8 + INSERT; touch vs counter update."""
    dim = conn.execute("SELECT embedding_dimensions FROM pymem.settings").fetchone()[0]
    ids = [r[0] for r in conn.execute(
        "SELECT id FROM pymem.memories WHERE user_id = %s", (WRITER,)
    ).fetchall()]  # fmt: skip
    times: dict[str, list[float]] = {"upsert": [], "floor": [], "touch": [], "counter": []}
    warmup = 10
    for i in range(warmup + n):
        v = unit_vectors(rng, 2, dim)
        text = f"benchmark fact {i} {rng.integers(0, 1 << 40)}"
        for which in ("upsert", "floor") if i % 2 else ("floor", "upsert"):
            t0 = time.perf_counter()
            if which == "upsert":
                conn.execute(
                    "SELECT action FROM pymem.upsert_memory(%s, %s, %b)", (WRITER, text, v[0])
                ).fetchall()
            else:
                with conn.transaction():
                    conn.execute(
                        "SELECT m.id FROM pymem.memories AS m WHERE m.user_id = %s"
                        " AND m.kind = 'fact' AND m.consolidated_into IS NULL"
                        " AND m.deleted_at IS NULL ORDER BY m.embedding <=> %b LIMIT 8",
                        (WRITER, v[1]),
                    ).fetchall()
                    conn.execute(
                        "INSERT INTO pymem.memories (user_id, kind, content, embedding)"
                        " VALUES (%s, 'fact', %s, %b)",
                        (WRITER, text + " floor", v[1]),
                    )
            if i >= warmup:
                times[which].append(time.perf_counter() - t0)
        target = ids[int(rng.integers(0, len(ids)))]
        for which in ("touch", "counter") if i % 2 else ("counter", "touch"):
            sql = (
                "UPDATE pymem.memories SET last_access_at = now() WHERE user_id = %s AND id = %s"
                if which == "touch"
                else "UPDATE pymem.memories SET access_count = access_count + 1"
                " WHERE user_id = %s AND id = %s"
            )
            t0 = time.perf_counter()
            conn.execute(sql, (WRITER, target))
            if i >= warmup:
                times[which].append(time.perf_counter() - t0)
    conn.execute(
        "DELETE FROM pymem.memories WHERE user_id = %s AND content LIKE 'benchmark fact %%'",
        (WRITER,),
    )
    return {k: float(np.median(t)) * 1000 for k, t in times.items()}


def _report_writes(out: Out, label: str, w: dict[str, float]) -> None:
    up, floor = w["upsert"], w["floor"]
    out(
        f"   writes ({label}): upsert_memory new fact {up:.2f} ms vs bare top-8 + INSERT "
        f"{floor:.2f} ms ({up / floor:.2f}x, +{up - floor:.2f} ms);"
        f" touch (last_access_at) {w['touch']:.2f} ms vs counter update {w['counter']:.2f} ms"
    )


def _burst(conn: psycopg.Connection, out: Out) -> None:
    t0 = time.perf_counter()
    n = conn.execute(
        "UPDATE pymem.memories SET last_access_at = last_access_at + interval '1 second'"
        " WHERE NOT pinned AND random() < %s",
        (BURST_SHARE / 0.99,),
    ).rowcount
    out(f"   write burst: {n:,} touches of other users' rows, no VACUUM after: {elapsed(t0)}")
    # the measured users' own latest rows: new writers leave their pages not all-visible
    conn.execute(
        "UPDATE pymem.memories SET access_count = access_count WHERE user_id LIKE 'r%%-arrival'"
        " AND random() < %s",
        (BURST_SHARE,),
    )


def _vm(conn: psycopg.Connection, users: list[str]) -> str:
    """Share of the users' heap pages marked all-visible."""
    if not conn.execute("SELECT to_regproc('pg_visibility_map')").fetchone()[0]:
        return "visibility map not inspected: no pg_visibility"
    row = conn.execute(
        "SELECT count(*) FILTER (WHERE v.all_visible), count(*) FROM ("
        " SELECT DISTINCT (ctid::text::point)[0]::bigint AS blk FROM pymem.memories"
        " WHERE user_id = ANY(%s)) AS b"
        " CROSS JOIN LATERAL pg_visibility_map('pymem.memories'::regclass, b.blk) AS v",
        (users,),
    ).fetchone()
    return f"{row[0]:,} of {row[1]:,} of the measured users' heap pages all-visible"


def run(
    dsn: str,
    out: Out = print,
    n_queries: int = 60,
    warmup: int = 5,
    sizes: rb.RecallSizes = rb.FULL,
) -> dict[str, Any]:
    """Every layout in turn on the recall benchmark's table (loaded if missing)."""
    started = time.perf_counter()
    with connect(dsn) as conn:
        for line in machine_lines(conn):
            out(line)
    rb.prepare(dsn, sizes, out, reuse=True)
    rng = np.random.default_rng(sizes.seed + 7)
    results: dict[str, Any] = {}
    with connect(dsn) as conn:
        try:
            with conn.transaction():
                conn.execute("CREATE EXTENSION IF NOT EXISTS pg_visibility")
        except psycopg.Error:
            pass  # _vm says so
        # one process per query, as inside recall (a PL/pgSQL loop never runs in parallel)
        conn.execute("SET max_parallel_workers_per_gather = 0")
        queries = {}
        for n in sizes.users:
            embs = [
                r[0].to_numpy()
                for r in conn.execute(
                    "SELECT embedding FROM pymem.memories WHERE user_id = %s", (f"r{n}-arrival",)
                )
            ]
            qs = []
            for i in range(warmup + n_queries):
                v = unit_vectors(rng, 1, len(embs[0]))[0]
                if i % 2:  # half near one of the user's memories
                    e = embs[int(rng.integers(0, len(embs)))]
                    c = rng.uniform(0.5, 0.9)
                    v = c * e + np.sqrt(1 - c * c) * v
                    v = (v / np.linalg.norm(v)).astype(np.float32)
                qs.append(v)
            queries[n] = qs
        users = [f"r{n}-arrival" for n in sizes.users]
        conn.execute("DELETE FROM pymem.memories WHERE user_id = %s", (WRITER,))
        conn.execute(
            "INSERT INTO pymem.memories (user_id, kind, content, embedding, importance)"
            " SELECT %s, kind, content, embedding, importance FROM pymem.memories"
            " WHERE user_id = %s",
            (WRITER, users[0]),
        )
        conn.execute("VACUUM ANALYZE pymem.memories")
        heap_bare = Variant("(a) heap, bare", BARE, HEAP_ONLY)
        heap_rank = Variant("(a) heap, rank", RANK, HEAP_ONLY)
        contiguous = [
            Variant("(d) contiguous heap, bare", BARE, HEAP_ONLY, "contiguous"),
            Variant("(d) contiguous heap, rank", RANK, HEAP_ONLY, "contiguous"),
        ]
        out("")
        _report_writes(out, "(a) heap + btree, as shipped", write_cost(conn, rng, n_queries))
        results["a"] = measure(
            conn, [heap_bare, heap_rank, *contiguous], queries, n_queries, warmup, out,
            "(a) heap + btree as shipped, (d) contiguous",
        )  # fmt: skip

        for name, ddl in (("wide", WIDE), ("narrow", NARROW)):
            out("")
            t0 = time.perf_counter()
            conn.execute("SET maintenance_work_mem = '1GB'")
            conn.execute(ddl)
            conn.execute("VACUUM ANALYZE pymem.memories")
            size = conn.execute(
                "SELECT pg_size_pretty(pg_relation_size(%s::regclass))",
                (f"pymem.bench_cover_{name}",),
            ).fetchone()[0]
            out(f"(b) covering btree, {name}: {ddl}")
            out(f"   built + VACUUM in {elapsed(t0)}, {size} ({_vm(conn, users)})")
            _report_writes(out, f"(b) {name} index present", write_cost(conn, rng, n_queries))
            conn.execute("VACUUM pymem.memories")
            if name == "wide":
                cover = [
                    Variant("(b) wide index-only, bare", BARE),
                    Variant("(b) wide index-only, rank", RANK),
                ]
            else:
                cover = [Variant("(b) narrow index-only, bare (live)", BARE_LIVE)]
            results[name] = measure(
                conn, [heap_bare, heap_rank, *cover], queries, n_queries, warmup, out,
                f"(b) {name} covering index after VACUUM",
            )  # fmt: skip
            _burst(conn, out)
            out(f"   after the burst: {_vm(conn, users)}")
            results[name + "_burst"] = measure(
                conn, [heap_bare, heap_rank, *cover], queries, n_queries, warmup, out,
                f"(b) {name} covering index after the write burst",
            )  # fmt: skip
            conn.execute(f"DROP INDEX pymem.bench_cover_{name}")
            conn.execute("VACUUM pymem.memories")

        out("")
        t0 = time.perf_counter()
        conn.execute("DROP TABLE IF EXISTS bench_half")
        conn.execute(
            "CREATE TABLE bench_half AS SELECT user_id, kind, id, embedding::halfvec AS embedding"
            " FROM pymem.memories WHERE consolidated_into IS NULL AND deleted_at IS NULL"
            " ORDER BY ctid"
        )
        conn.execute("CREATE INDEX ON bench_half (user_id) INCLUDE (id, embedding)")
        conn.execute("VACUUM ANALYZE bench_half")
        size = conn.execute(
            "SELECT pg_size_pretty(pg_table_size('bench_half')),"
            " pg_size_pretty(pg_indexes_size('bench_half'))"
        ).fetchone()
        out(
            f"(c) halfvec side table in arrival order, covering btree (user_id) INCLUDE (id, "
            f"embedding): {elapsed(t0)}; table {size[0]}, index {size[1]}"
        )
        half = Variant("(c) halfvec index-only, bare", HALF_BARE)
        res = measure(
            conn, [heap_bare, half], queries, n_queries, warmup, out,
            "(c) halfvec covering index vs the fp32 heap",
        )  # fmt: skip
        answers = res.pop(("answers", 0))  # type: ignore[arg-type]
        for n in sizes.users:
            same = sum(
                [r[0] for r in a] == [r[0] for r in b]
                for a, b in zip(answers[(heap_bare.name, n)], answers[(half.name, n)], strict=True)
            )
            out(f"   {n:>6,}: halfvec top 10 = fp32 top 10 in {same} of {n_queries} queries")
        results["half"] = res
        conn.execute("DROP TABLE bench_half")
        conn.execute("DELETE FROM pymem.memories WHERE user_id = %s", (WRITER,))
        t0 = time.perf_counter()
        conn.execute("VACUUM ANALYZE pymem.memories")
        out(f"cleanup: layouts dropped, {WRITER} deleted, VACUUM ANALYZE {elapsed(t0)}")
    out(f"total time {elapsed(started)}")
    return results


def main(dsn: str | None = None, quick: bool = False) -> int:
    """``pymem bench locality``: on ``pymem_bench_recall`` (loaded first if missing)."""
    from pymem.migrate import migrate

    if quick:
        print("pymem bench locality: measured on the 1M-row table only (no --quick)")
        return 2
    admin, bench = bench_database(dsn, rb.DATABASE)
    if not database_kept(admin, rb.DATABASE):
        recreate_database(admin, rb.DATABASE)
    migrate(bench)
    print(f"pymem bench locality: database {rb.DATABASE}")
    run(bench)
    return 0
