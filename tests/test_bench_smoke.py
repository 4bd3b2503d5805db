"""The benchmarks' cores on tiny sizes: what they print and return, and that every
exactness check holds. Never timing: speed is for ``pymem bench``, not for tests."""

from __future__ import annotations

import math

from pymem.bench import consolidate, importing, locality, partitions, recall, upsert
from pymem.bench.upsert import Scenario

TINY_UPSERT = upsert.UpsertSizes(
    table_rows=1_500,
    scenarios=(
        Scenario(per_user=20, users=3, rounds=2, ops_per_round=8),
        Scenario(per_user=100, users=2, rounds=2, ops_per_round=8),
        Scenario(per_user=300, users=1, rounds=2, ops_per_round=6),
    ),
    lookup_probes=2,
    batch_user_memories=100,
    batch_size=10,
    batch_reps=2,
)
TINY_RECALL = recall.RecallSizes(
    table_rows=2_000,
    users=(50, 200),
    queries=4,
    warmup=1,
    exact_queries=3,
    filler_memories=20,
)


def _printed(lines: list[str], *parts: str) -> None:
    text = "\n".join(lines)
    for part in parts:
        assert part in text, f"{part!r} not printed"


def test_upsert_bench(fresh_dsn):
    lines: list[str] = []
    res = upsert.run(fresh_dsn, TINY_UPSERT, out=lines.append)

    _printed(lines, "machine:", "server: PostgreSQL", "synchronous_commit on", "targets:")
    _printed(lines, *upsert.METHOD_NAMES.values(), "(c)/(a) median latency", "EXPLAIN ANALYZE")
    assert res["table_rows"] >= TINY_UPSERT.table_rows
    assert len(res["scenarios"]) == len(TINY_UPSERT.scenarios)
    for sc, r in zip(TINY_UPSERT.scenarios, res["scenarios"], strict=True):
        ops = sc.rounds * sc.ops_per_round
        assert set(r.timings) == set(upsert.METHODS)
        assert all(t.n == ops for t in r.timings.values())
        assert all(sum(r.actions[m].values()) == ops for m in upsert.METHODS)
        assert r.actions["a"] == {"inserted": ops}
        assert r.exact["ok"], r.exact
        assert r.exact["decisions"] == ops
        assert r.exact["final_mismatches"] == 0
        assert r.exact["snapshot_seq_scan"] and r.exact["seq_scan"]
        assert math.isfinite(r.latency_ratio) and math.isfinite(r.throughput_ratio)
    assert res["lookup"]["same"]
    assert res["lookup"]["speedup"] > 0
    assert any("Seq Scan" in line for line in res["lookup"]["plans"]["seq"])
    assert res["batch"]["same"]
    # 8 concurrent writers of the same facts: pymem stores each exactly once
    assert res["race"]["c"] == 2 * TINY_UPSERT.batch_size
    assert res["race"]["b"] >= res["race"]["c"]
    _printed(lines, "connections writing the same")
    assert res["batch"]["batch"].n == TINY_UPSERT.batch_reps
    assert sum(res["batch"]["actions"].values()) == TINY_UPSERT.batch_reps * 10
    assert len(res["targets"]) == 2 * len(TINY_UPSERT.scenarios) + 2
    assert all(isinstance(ok, bool) for _, ok, _ in res["targets"])
    assert res["exact"] is True
    _printed(lines, "exactness checks all True: True")


def test_recall_bench(fresh_dsn):
    lines: list[str] = []
    res = recall.run(fresh_dsn, TINY_RECALL, out=lines.append)

    _printed(lines, "machine:", "server: PostgreSQL", "NOTE: a table of 2,000 rows", "targets:")
    _printed(lines, "apply_decay:", "run_decay:", "query_text")
    assert res["table_rows"] == recall.expected_rows(TINY_RECALL)
    users = [u for n in TINY_RECALL.users for u in recall.user_ids(n)]
    assert set(res["timings"]) == {(u, text) for u in users for text in (False, True)}
    assert all(t.n == TINY_RECALL.queries for t in res["timings"].values())
    assert set(res["bare"]) == set(res["bare_alone"]) == set(users)
    assert all(t.n == TINY_RECALL.queries for t in res["bare"].values())
    _printed(lines, "bare p50", "where recall's time goes", "ranking statement(s)")
    exact = res["exact"]
    assert exact["ok"], exact
    assert exact["checked"] == len(users) * TINY_RECALL.exact_queries * 2
    decay = res["decay"]
    assert 0 < decay["due"] < decay["hot"] == res["table_rows"]
    for name in ("apply_decay", "run_decay"):
        assert decay[name]["exact"], decay[name]
        assert decay[name]["scanned"] == res["table_rows"]
        assert decay[name]["cooled"] == decay["due"]
    assert [ok for _, ok, _ in res["targets"]] and res["all_exact"] is True
    _printed(lines, "exactness checks all True: True")


def test_locality_bench(fresh_dsn):
    lines: list[str] = []
    res = locality.run(fresh_dsn, lines.append, n_queries=3, warmup=1, sizes=TINY_RECALL)

    _printed(lines, "machine:", "(a) heap, bare", "(d) contiguous heap, rank", "total time")
    _printed(lines, "bench_cover_wide", "bench_cover_narrow", "after the write burst")
    _printed(lines, "(c) halfvec index-only, bare", "halfvec top 10 = fp32 top 10 in")
    _printed(lines, "upsert_memory new fact", "touch (last_access_at)")
    assert set(res) == {"a", "wide", "wide_burst", "narrow", "narrow_burst", "half"}
    for phase in res.values():
        for n in TINY_RECALL.users:
            assert phase[("(a) heap, bare", n)] > 0
    # the layouts are dropped again, and the writer's rows
    with recall.connect(fresh_dsn) as conn:
        assert conn.execute(
            "SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'bench_cover%'"
        ).fetchone() == (0,)
        assert conn.execute("SELECT to_regclass('bench_half')").fetchone() == (None,)
        assert conn.execute(
            "SELECT count(*) FROM pymem.memories WHERE user_id = %s", (locality.WRITER,)
        ).fetchone() == (0,)


TINY_CONSOLIDATE = consolidate.ConsolidateSizes(users=(300, 800), allpairs_limit_s=600.0)


def test_consolidate_bench(fresh_dsn):
    lines: list[str] = []
    res = consolidate.run(fresh_dsn, TINY_CONSOLIDATE, out=lines.append)

    _printed(lines, "machine:", "server: PostgreSQL", "targets:", "all-pairs measured")
    assert [r["n"] for r in res["results"]] == [300, 800]
    for r in res["results"]:
        assert r["groups"] > 0 and r["pairs"] > 0
        assert r["candidates_s"] > 0 and r["allpairs_s"] > 0
        # 300 memories are compared exactly; 800 go through the buckets
        assert r["pair_share"] >= (1.0 if r["n"] == 300 else 0.9)
    assert res["results"][0]["group_share"] == 1.0
    assert all(isinstance(ok, bool) for _, ok, _ in res["targets"])


def test_import_bench(fresh_dsn):
    lines: list[str] = []
    res = importing.run(
        fresh_dsn, importing.ImportSizes(users=3, lines=120, restated=0.2), lines.append
    )
    _printed(lines, "machine:", "(a) plain one-row INSERTs", "(b) pymem import")
    assert res["exact"] is True
    assert res["actions"]["duplicate"] == res["restated"] > 0
    assert res["plain_rows_per_s"] > 0 and res["import_lines_per_s"] > 0


def test_partitions_bench(admin_dsn):
    """The same store plain and hash-partitioned: the same ids, so the same answers."""
    lines: list[str] = []
    sizes = partitions.PartitionSizes(users=4, memories=40, partitions=2, rounds=6, decay_runs=2)
    res = partitions.run(admin_dsn, sizes, out=lines.append)
    _printed(lines, "machine:", "pymem migrate --partitions 2", "recall(user, q, 10)")
    assert res["rows"] == 160 and res["exact"]
    for op in ("recall", "upsert", "apply_decay"):
        assert res[op]["mismatches"] == 0
        assert math.isfinite(res[op]["ratio"])
