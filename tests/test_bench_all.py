"""`pymem bench` (all): the three benchmarks side by side, on tiny sizes. Never timing."""

from __future__ import annotations

import json

from pymem.bench import all as bench_all
from pymem.bench import consolidate, importing, partitions, recall, upsert
from pymem.bench.upsert import Scenario
from pymem.cli import main

TINY = (
    upsert.UpsertSizes(
        table_rows=300,
        scenarios=(Scenario(per_user=10, users=1, rounds=1, ops_per_round=4),),
        lookup_probes=1,
        batch_user_memories=20,
        batch_size=4,
        batch_reps=1,
    ),
    importing.ImportSizes(users=2, lines=30, restated=0.1),
    recall.RecallSizes(
        table_rows=300, users=(30,), queries=2, warmup=1, exact_queries=1, filler_memories=5
    ),
    consolidate.ConsolidateSizes(users=(60,), allpairs_limit_s=600.0),
    partitions.PartitionSizes(users=3, memories=30, partitions=2, rounds=4, decay_runs=2),
)


def test_all_benchmarks_side_by_side(admin_dsn, tmp_path, capsys, monkeypatch):
    log: list[str] = []
    summary = bench_all.run_all(admin_dsn, TINY, log.append, suffix="_test")
    benches = [row["bench"] for row in summary["rows"]]
    assert benches == [
        "write",
        "concurrent writers",
        "batch",
        "import",
        "recall",
        "decay",
        "consolidation",
        "partitions",
        "partitions",
    ]
    write = summary["rows"][0]
    assert set(write["values"]) == {"plain INSERT", "client SELECT + write", "pymem upsert_memory"}
    assert all(v > 0 for v in write["values"].values())
    assert summary["rows"][1]["values"]["pymem upsert_memory"] == 2 * TINY[0].batch_size
    assert summary["exact"] is True
    assert summary["targets"] and all(isinstance(t["ok"], bool) for t in summary["targets"])
    assert any(line.startswith("machine:") for line in summary["machine"])
    assert any(line.startswith("== pymem bench consolidate") for line in log)

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
