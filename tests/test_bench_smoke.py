"""`pymem bench locality` on tiny sizes: what it prints, and that it leaves nothing
behind. The benchmarks of `pymem bench` (all) are checked in test_bench_all.py, on one
run of each. Never timing: speed is for ``pymem bench``, not for tests."""

from __future__ import annotations

from bench import locality, recall

TINY_RECALL = recall.RecallSizes(
    table_rows=300,
    users=(20, 60),
    queries=4,
    warmup=1,
    exact_queries=3,
    filler_memories=5,
)


def _printed(lines: list[str], *parts: str) -> None:
    text = "\n".join(lines)
    for part in parts:
        assert part in text, f"{part!r} not printed"


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


def test_bench_dimensions_is_for_the_benchmarks_that_take_it(capsys):
    """``pymem bench --dimensions N`` (1,536-d of common hosted embedders) runs recall,
    upsert and import on a store of its own; anything else is refused before a database is
    touched."""
    from pymem.cli import main

    assert main(["bench", "consolidate", "--dimensions", "1536"]) == 2
    assert "--dimensions is for recall, upsert and import" in capsys.readouterr().err
    assert main(["bench", "recall", "--dimensions", "0"]) == 2
    assert "between 1 and 16000" in capsys.readouterr().err
