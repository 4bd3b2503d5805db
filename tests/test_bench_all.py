"""`pymem bench` (all): every benchmark side by side on tiny sizes, run once; what each
prints and returns, and that every exactness check holds. Never timing: speed is for
``pymem bench``, not for tests."""

from __future__ import annotations

import json
import math

from pymem.bench import all as bench_all
from pymem.bench import consolidate, importing, partitions, recall, upsert
from pymem.bench.upsert import Scenario
from pymem.cli import main

TINY = (
    upsert.UpsertSizes(
        table_rows=600,
        scenarios=(
            Scenario(per_user=20, users=2, rounds=1, ops_per_round=6),
            Scenario(per_user=200, users=1, rounds=1, ops_per_round=4),
        ),
        lookup_probes=1,
        batch_user_memories=40,
        batch_size=4,
        batch_reps=1,
    ),
    importing.ImportSizes(users=2, lines=40, restated=0.2),
    recall.RecallSizes(
        table_rows=600, users=(30, 120), queries=2, warmup=1, exact_queries=2, filler_memories=5
    ),
    # 300 memories are compared exactly, 800 go through the buckets
    consolidate.ConsolidateSizes(users=(300, 800), allpairs_limit_s=600.0),
    partitions.PartitionSizes(users=3, memories=30, partitions=2, rounds=4, decay_runs=2),
)


def _printed(lines: list[str], *parts: str) -> None:
    text = "\n".join(lines)
    for part in parts:
        assert part in text, f"{part!r} not printed"


def test_all_benchmarks_side_by_side(admin_dsn, tmp_path, capsys, monkeypatch):
    log: list[str] = []
    raw: dict = {}
    summary = bench_all.run_all(admin_dsn, TINY, log.append, suffix="_test", raw=raw)
    benches = [row["bench"] for row in summary["rows"]]
    assert list(dict.fromkeys(benches)) == [
        "write",
        "concurrent writers",
        "batch",
        "import",
        "recall",
        "decay",
        "consolidation",
        "partitions",
    ]
    # a row per write scenario, per recall size, per consolidation size
    assert benches.count("write") == len(TINY[0].scenarios)
    assert benches.count("recall") == len(TINY[2].users)
    assert benches.count("consolidation") == len(TINY[3].users)
    write = summary["rows"][0]
    assert set(write["values"]) == {"plain INSERT", "client SELECT + write", "pymem upsert_memory"}
    assert all(v > 0 for v in write["values"].values())
    (race,) = [row for row in summary["rows"] if row["bench"] == "concurrent writers"]
    assert race["values"]["pymem upsert_memory"] == 2 * TINY[0].batch_size
    assert summary["exact"] is True
    assert summary["targets"] and all(isinstance(t["ok"], bool) for t in summary["targets"])
    assert any(line.startswith("machine:") for line in summary["machine"])
    _printed(log, "== pymem bench consolidate", "machine:", "server: PostgreSQL")
    _printed(log, "synchronous_commit on", "targets:", "exactness checks all True: True")
    _check_upsert(raw["upsert"], log)
    _check_import(raw["import"], log)
    _check_recall(raw["recall"], log)
    _check_consolidate(raw["consolidate"], log)
    _check_partitions(raw["partitions"], log)

    # the CLI: the table, --json, --out with bench.json and bench.png (pymem[plot])
    monkeypatch.setattr(bench_all, "run_all", lambda dsn, sizes: dict(summary))
    assert main(["bench", "--quick", "--json", "--out", str(tmp_path)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["rows"] == summary["rows"] and printed["quick"] is True
    assert json.loads((tmp_path / "bench.json").read_text())["rows"] == summary["rows"]
    assert (tmp_path / "bench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["bench"]) == 0
    out = capsys.readouterr().out
    assert "pymem upsert_memory" in out and "targets:" in out
    assert main(["bench", "upsert", "--json"]) == 2


def _check_upsert(res, lines) -> None:
    sizes = TINY[0]
    _printed(lines, *upsert.METHOD_NAMES.values(), "(c)/(a) median latency", "EXPLAIN ANALYZE")
    assert res["table_rows"] >= sizes.table_rows
    assert len(res["scenarios"]) == len(sizes.scenarios)
    for sc, r in zip(sizes.scenarios, res["scenarios"], strict=True):
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
    # concurrent writers of the same facts: pymem stores each exactly once
    assert res["race"]["c"] == 2 * sizes.batch_size
    assert res["race"]["b"] >= res["race"]["c"]
    _printed(lines, "connections writing the same")
    assert res["batch"]["batch"].n == sizes.batch_reps
    assert sum(res["batch"]["actions"].values()) == sizes.batch_reps * sizes.batch_size
    assert len(res["targets"]) == 2 * len(sizes.scenarios) + 2
    assert all(isinstance(ok, bool) for _, ok, _ in res["targets"])
    assert res["exact"] is True


def _check_import(res, lines) -> None:
    _printed(lines, "(a) plain one-row INSERTs", "(b) pymem import")
    assert res["exact"] is True
    assert res["actions"]["duplicate"] == res["restated"] > 0
    assert res["plain_rows_per_s"] > 0 and res["import_lines_per_s"] > 0


def _check_recall(res, lines) -> None:
    sizes = TINY[2]
    _printed(lines, "apply_decay:", "run_decay:", "query_text")
    _printed(lines, "bare p50", "where recall's time goes", "ranking statement(s)")
    assert res["table_rows"] == recall.expected_rows(sizes)
    users = [u for n in sizes.users for u in recall.user_ids(n)]
    assert set(res["timings"]) == {(u, text) for u in users for text in (False, True)}
    assert all(t.n == sizes.queries for t in res["timings"].values())
    assert set(res["bare"]) == set(res["bare_alone"]) == set(users)
    assert all(t.n == sizes.queries for t in res["bare"].values())
    exact = res["exact"]
    assert exact["ok"], exact
    assert exact["checked"] == len(users) * sizes.exact_queries * 2
    decay = res["decay"]
    assert 0 < decay["due"] < decay["hot"] == res["table_rows"]
    for name in ("apply_decay", "run_decay"):
        assert decay[name]["exact"], decay[name]
        assert decay[name]["scanned"] == res["table_rows"]
        assert decay[name]["cooled"] == decay["due"]
    assert [ok for _, ok, _ in res["targets"]] and res["all_exact"] is True


def _check_consolidate(res, lines) -> None:
    _printed(lines, "all-pairs measured")
    assert [r["n"] for r in res["results"]] == [300, 800]
    for r in res["results"]:
        assert r["groups"] > 0 and r["pairs"] > 0
        assert r["candidates_s"] > 0 and r["allpairs_s"] > 0
        assert r["pair_share"] >= (1.0 if r["n"] == 300 else 0.9)
    assert res["results"][0]["group_share"] == 1.0
    assert all(isinstance(ok, bool) for _, ok, _ in res["targets"])


def _check_partitions(res, lines) -> None:
    """The same store plain and hash-partitioned: the same ids, so the same answers."""
    sizes = TINY[4]
    _printed(lines, "pymem migrate --partitions 2", "recall(user, q, 10)")
    assert res["rows"] == sizes.users * sizes.memories and res["exact"]
    for op in ("recall", "upsert", "apply_decay"):
        assert res[op]["mismatches"] == 0
        assert math.isfinite(res[op]["ratio"])
