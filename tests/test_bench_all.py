"""`pymem bench` (all): every benchmark side by side on tiny sizes, run once; what each
prints and returns, and that every exactness check holds. Never timing: speed is for
``pymem bench``, not for tests."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from bench import all as bench_all
from bench import consolidate, importing, partitions, recall, targets, upsert
from bench.upsert import Scenario
from pymem.cli import main

TINY = (
    upsert.UpsertSizes(
        table_rows=100,
        scenarios=(
            Scenario(per_user=10, users=2, rounds=1, ops_per_round=6),
            Scenario(per_user=60, users=1, rounds=1, ops_per_round=4),
        ),
        lookup_probes=1,
        batch_user_memories=20,
        batch_size=4,
        batch_reps=1,
    ),
    importing.ImportSizes(users=2, lines=20, restated=0.2),
    recall.RecallSizes(
        table_rows=200, users=(20, 60), queries=2, warmup=1, exact_queries=2, filler_memories=5
    ),
    # 300 memories are compared exactly, 520 (past the 512 of the exact path) go through
    # the buckets
    consolidate.ConsolidateSizes(users=(300, 520), allpairs_limit_s=600.0),
    partitions.PartitionSizes(users=3, memories=20, partitions=2, rounds=2, decay_runs=2),
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
    assert any(line.startswith("machine:") for line in summary["machine"])
    _printed(log, "== pymem bench consolidate", "machine:", "server: PostgreSQL")
    _printed(log, "synchronous_commit on", targets.HEADER, "exactness checks all True: True")
    _check_upsert(raw["upsert"], log)
    _check_import(raw["import"], log)
    _check_recall(raw["recall"], log)
    _check_consolidate(raw["consolidate"], log)
    _check_partitions(raw["partitions"], log)
    _check_verdicts(summary, raw)
    _check_plot(summary)

    # the CLI: the table, --json, --out with bench.json and bench.png (pymem[plot])
    monkeypatch.setattr(bench_all, "run_all", lambda dsn, sizes: dict(summary))
    assert main(["bench", "--quick", "--json", "--out", str(tmp_path)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["rows"] == summary["rows"] and printed["quick"] is True
    assert json.loads((tmp_path / "bench.json").read_text())["rows"] == summary["rows"]
    assert (tmp_path / "bench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["bench"]) == 0
    out = capsys.readouterr().out
    assert "pymem upsert_memory" in out
    _check_printed_targets(out.splitlines(), summary)
    # each benchmark's own log prints its targets from the same table, and no other
    _check_no_other_target(log)
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
    assert [v["figure"] for v in res["targets"]] == ["batch_over_floor", "new_fact_over_floor"]
    # the single calls of new facts and their floor, one call each, side by side
    assert res["batch"]["new_fact"].n == res["batch"]["new_fact_floor"].n > 0
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
    assert set(res["bare"]) == set(res["bare_alone"]) == set(res["narrow_alone"]) == set(users)
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
    assert res["all_exact"] is True


def _check_consolidate(res, lines) -> None:
    _printed(lines, "all-pairs measured")
    assert [r["n"] for r in res["results"]] == [300, 520]
    for r in res["results"]:
        assert r["groups"] > 0 and r["pairs"] > 0
        assert r["candidates_s"] > 0 and r["allpairs_s"] > 0
        assert r["pair_share"] >= (1.0 if r["n"] == 300 else 0.9)
    assert res["results"][0]["group_share"] == 1.0


def _check_partitions(res, lines) -> None:
    """The same store plain and hash-partitioned: the same ids, so the same answers."""
    sizes = TINY[4]
    _printed(lines, "pymem migrate --partitions 2", "recall(user, q, 10)")
    assert res["rows"] == sizes.users * sizes.memories and res["exact"]
    for op in ("recall", "upsert", "apply_decay"):
        assert res[op]["mismatches"] == 0
        assert math.isfinite(res[op]["ratio"])


# -- targets: one definition (bench.targets.TARGETS), printed and plotted from it ----


def _expected_figures(raw) -> dict[tuple[str, str], float]:
    """Each figure with a stated target, recomputed from the benchmarks' raw results: what
    the verdicts must hold, by (figure, case)."""
    up, im, rc, pa = (raw[k] for k in ("upsert", "import", "recall", "partitions"))
    b = up["batch"]
    sizes = TINY[0]
    case = f"{sizes.batch_size} facts, a user with {sizes.batch_user_memories:,} memories"
    expected = {("batch_over_floor", case): b["typed"].median_ms / b["bare"].median_ms}
    expected[("import_over_insert", f"{TINY[1].lines:,} lines a turn")] = (
        im["import_lines_per_s"] / im["plain_rows_per_s"]
    )
    for n in TINY[2].users:
        user = recall.user_ids(n)[0]
        p50 = rc["timings"][(user, False)].median_ms
        expected[("recall_over_bare", f"{n:,} memories")] = p50 / rc["bare"][user].median_ms
        expected[("recall_over_narrow", f"{n:,} memories")] = p50 / rc["narrow"][user].median_ms
    rows = rc["decay"]["apply_decay"]["scanned"]
    expected[("decay_per_million_s", f"{rows:,} rows, scaled to 1M")] = rc["decay"]["apply_decay"][
        "per_million"
    ]
    for store in ("plain", "partitioned"):
        expected[("partitions_recall_over_floor", f"{store} store")] = (
            pa["recall"][f"{store}_p50_s"] / pa["recall_floor"][f"{store}_p50_s"]
        )
        expected[("partitions_upsert_over_floor", f"{store} store")] = 1000 * (
            pa["upsert"][f"{store}_p50_s"] - pa["upsert_floor"][f"{store}_p50_s"]
        )
    assert all(n < 10_000 for n in (*TINY[2].users, *TINY[3].users))
    return expected


def _check_verdicts(summary, raw) -> None:
    verdicts = summary["targets"]
    # every target of the table is reported, in its order, and nothing else
    assert sorted({v["index"] for v in verdicts}) == list(range(len(targets.TARGETS)))
    assert [v["index"] for v in verdicts] == sorted(v["index"] for v in verdicts)
    expected = _expected_figures(raw)
    judged = {}
    for v in verdicts:
        t = targets.TARGETS[v["index"]]
        assert (v["figure"], v["bench"], v["target"]) == (t.figure, t.bench, t.text)
        if t.at is not None:
            # stated at a size this tiny run does not have: named, not judged
            assert v["ok"] is None and v["value"] is None, v
            continue
        judged[(v["figure"], v["case"])] = v["value"]
        assert v["ok"] is t.met(v["value"]), v
        assert v["measured"] == targets.format_value(t.kind, v["value"])
    assert judged.keys() == expected.keys()
    for key, value in expected.items():
        assert judged[key] == pytest.approx(value), key
    # each verdict is judged on a row of the table, on a bar of pymem's
    on_rows = [
        (v["index"], v["case"])
        for row in summary["rows"]
        for v, _ in bench_all.row_verdicts(summary, row)
    ]
    assert sorted(on_rows) == sorted(
        (v["index"], v["case"]) for v in verdicts if v["ok"] is not None
    )
    for row in summary["rows"]:
        assert all(series in row["pymem"] for _, series in bench_all.row_verdicts(summary, row))


_VERDICT = re.compile(r"^  (MET|MISSED|n/a) +(.*?)  ([a-z ]+): (.+?)(?: \[(.*)\])?$")


def _check_printed_targets(lines: list[str], summary) -> None:
    """The printed targets are the verdicts, each line the target of TARGETS it names."""
    start = lines.index(targets.HEADER)
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("exactness checks"))
    printed = lines[start + 1 : end]
    assert len(printed) == len(summary["targets"])
    texts = {(t.bench, t.text): t for t in targets.TARGETS}
    for line, v in zip(printed, summary["targets"], strict=True):
        m = _VERDICT.match(line)
        assert m, line
        word, measured, bench, text, case = m.groups()
        t = texts[(bench, text)]  # a KeyError: a target the table does not define
        assert t is targets.TARGETS[v["index"]]
        assert measured == v["measured"] and (case or "") == v["case"]
        assert word == ("n/a" if v["ok"] is None else "MET" if t.met(v["value"]) else "MISSED")
    _check_no_other_target(lines)


def _check_no_other_target(lines: list[str]) -> None:
    """No line speaks of a target, or prints a verdict, that TARGETS does not define."""
    texts = [f"{t.bench}: {t.text}" for t in targets.TARGETS]
    for line in lines:
        if line == targets.HEADER:
            continue
        if re.search(r"target|\bMET\b|MISSED|\bMISS\b", line, re.IGNORECASE):
            assert any(text in line for text in texts), f"a target not in TARGETS: {line!r}"


def test_targets_judged_only_at_the_size_stated():
    at_10k = targets.Measured("consolidation_speedup", 25.0, 10_000, "10,000 memories", 50.0)
    at_3k = targets.Measured("consolidation_speedup", 7.0, 3_000, "3,000 memories", 1.6)
    (v,) = targets.judge([at_10k, at_3k])
    assert v["ok"] is True and v["value"] == 25.0 and v["line"] == pytest.approx(2.5)
    (v,) = targets.judge([at_3k])
    assert v["ok"] is None and v["case"] == "this run measured 3,000 memories"
    (v,) = targets.judge([targets.Measured("batch_over_floor", 1.31, case="", base=100.0)])
    assert v["ok"] is False and v["line"] == pytest.approx(130.0)
    with pytest.raises(ValueError, match="no target is stated"):
        targets.Measured("upsert_median_ms", 0.7)
    # each target once: no two state a limit for the same figure at the same size
    assert len({(t.figure, t.at) for t in targets.TARGETS}) == len(targets.TARGETS)


def _section(path: Path, title: str) -> str:
    """The text under the heading ``title`` of a Markdown file, up to the next heading of
    its level or above (backticks in the heading do not count)."""
    text = path.read_text(encoding="utf-8")
    headings = list(re.finditer(r"^(#+) (.*)$", text, re.M))
    for i, h in enumerate(headings):
        if h.group(2).replace("`", "") == title:
            level = len(h.group(1))
            ends = [n.start() for n in headings[i + 1 :] if len(n.group(1)) <= level]
            return text[h.end() : ends[0] if ends else len(text)]
    raise AssertionError(f"{path.name} has no heading {title!r}")


def test_every_target_cites_the_words_that_state_it():
    """A target's source names the file, the section and the words that state it there:
    moving the text (the README's benchmarks went to docs/benchmarks.md) moves the
    citation."""
    root = Path(__file__).resolve().parent.parent
    for t in targets.TARGETS:
        for citation in t.source.split("; "):
            path, section = citation.split(", ")[:2]
            section = section.split(" (")[0]
            words = re.search(r"\(([^()]*)\)$", citation).group(1)
            body = " ".join(_section(root / path, section).split())
            assert words in body, f"{t.figure}: {citation!r}: the words are not there"


def _check_plot(summary) -> None:
    """bench.png reads: no text outside the picture, no legend over bars or over another
    panel, labels of a panel apart, and the recall panel names pymem's bars and the floor."""
    from matplotlib.patches import Rectangle

    fig = bench_all.figure(summary)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox

    def inside(ext) -> bool:
        return (
            ext.x0 >= box.x0 - 1 and ext.y0 >= box.y0 - 1 and ext.x1 <= box.x1 + 1
            and ext.y1 <= box.y1 + 1
        )  # fmt: skip

    # an Axes' tight box holds what it draws: tick labels in view, labels, title, the
    # numbers on the bars, its legend
    for ax in fig.axes:
        ext = ax.get_tightbbox(renderer)
        assert inside(ext), f"cut: panel {ax.get_title(loc='left')!r} at {ext} outside {box}"
    for text in fig.texts:
        assert inside(text.get_window_extent(renderer)), f"cut: {text.get_text()!r}"
    axes = fig.axes
    bars = [
        p.get_window_extent(renderer) for ax in axes for p in ax.patches if isinstance(p, Rectangle)
    ]
    legends = [ax.get_legend() for ax in axes]
    assert all(legends) and bars
    for i, legend in enumerate(legends):
        ext = legend.get_window_extent(renderer)
        assert not any(ext.overlaps(bar) for bar in bars), f"legend {i} over a bar"
        assert not any(ext.overlaps(ax.bbox) for ax in axes), f"legend {i} over a panel"
        assert not any(ext.overlaps(o.get_window_extent(renderer)) for o in legends[i + 1 :])
    for ax in axes:
        labels = [t.get_window_extent(renderer) for t in ax.get_yticklabels() if t.get_text()]
        for j, a in enumerate(labels):
            assert not any(a.overlaps(b) for b in labels[j + 1 :]), ax.get_title(loc="left")
    (rc,) = [ax for ax in axes if ax.get_title(loc="left").startswith("recall")]
    handles, names = rc.get_legend_handles_labels()
    names = [n.replace("\n", " ") for n in names]
    assert "pymem recall" in names and "floor (bare SQL): exact top 10" in names
    assert all(n.startswith(("pymem ", "floor (bare SQL)", "target (README.md)")) for n in names)
    for handle, name in zip(handles, names, strict=True):
        if name.startswith(("pymem ", "floor")):  # pymem's bars plain, the floor's hatched
            assert all(bool(p.get_hatch()) == name.startswith("floor") for p in handle.patches)
    # each judged row's label says its verdict
    for ax in axes:
        text = "\n".join(t.get_text() for t in ax.get_yticklabels())
        rows = [r for r in summary["rows"] if r["bench"] == ax.get_title(loc="left").split(".")[0]]
        for r in rows:
            for v, _ in bench_all.row_verdicts(summary, r):
                assert f"target {v['limit']}: {targets.verdict_word(v['ok'])}" in text
