"""`pymem bench` (no name): every benchmark in one run, side by side.

Runs the write path (plain INSERT vs client-side SELECT + write vs
``upsert_memory``, and 8 concurrent writers of the same facts), bulk import
(``pymem import`` vs plain one-row INSERTs), the read path and decay,
consolidation candidates vs the all-pairs scan, and a plain store against the
same store hash-partitioned by user_id, each in fresh databases, then prints
one table of what each measured next to its baseline, and each target that
README.md states (``bench.targets``, the one definition) MET or MISSED:
a ratio against the floor measured beside it where the README states a ratio.
``--json`` prints that table as one object; ``--out DIR`` writes
``bench.json`` and, with matplotlib installed (``pip install 'pymem[plot]'``),
``bench.png``. Each benchmark's own log goes to stderr.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

from bench import common, consolidate, importing, partitions, recall, targets, upsert

FLOOR = "floor (bare SQL)"


def _ms(value: float) -> float:
    return round(float(value), 3)


def _row(
    bench: str,
    case: str,
    unit: str,
    values: dict[str, float],
    pymem: list[str],
    *,
    ratio: str = "",
    size: int | None = None,
    judged: tuple[tuple[str, str, str], ...] = (),
) -> dict[str, Any]:
    """A row of the table. ``pymem`` names which of ``values`` are pymem's (the others are
    baselines: plain SQL, the client-side way, or the floor); ``judged`` holds (figure of
    bench.targets, its case or "" for any, the series it judges), at ``size``
    memories where the figure depends on it."""
    assert set(pymem) <= set(values) and all(j[2] in pymem for j in judged)
    return {
        "bench": bench,
        "case": case,
        "unit": unit,
        "values": values,
        "pymem": pymem,
        "ratio": ratio,
        "size": size,
        "judged": [{"figure": f, "case": c, "series": name} for f, c, name in judged],
    }


def summarize(
    up: dict[str, Any],
    rc: dict[str, Any],
    co: dict[str, Any],
    im: dict[str, Any],
    pa: dict[str, Any],
) -> dict[str, Any]:
    """The side-by-side rows of the benchmarks' results and their verdicts (JSON-ready)."""
    rows: list[dict[str, Any]] = []
    for res in up["scenarios"]:
        t = res.timings
        rows.append(
            _row(
                "write",
                f"{res.scenario.per_user:,} memories/user, median per call",
                "ms",
                {
                    "plain INSERT": _ms(t["a"].median_ms),
                    "client SELECT + write": _ms(t["b"].median_ms),
                    "pymem upsert_memory": _ms(t["c"].median_ms),
                },
                ["pymem upsert_memory"],
                ratio=f"{res.latency_ratio:.1f}x INSERT",
            )
        )
    race = up["race"]
    rows.append(
        _row(
            "concurrent writers",
            f"8 connections, the same {2 * up['batch_size']} facts: rows stored",
            "rows",
            {"client SELECT + write": race["b"], "pymem upsert_memory": race["c"]},
            ["pymem upsert_memory"],
            ratio=f"{race['b'] / race['c']:.2f}x rows" if race["c"] else "",
        )
    )
    batch = up["batch"]
    typed = "pymem upsert_memories, typed"
    rows.append(
        _row(
            "batch",
            f"{up['batch_size']} facts in one call, a user with"
            f" {up['batch_user_memories']:,} memories",
            "ms",
            {
                f"{FLOOR}: nearest-8 scans + INSERTs, one call": _ms(batch["bare"].median_ms),
                typed: _ms(batch["typed"].median_ms),
                "pymem upsert_memories, JSON": _ms(batch["batch"].median_ms),
                "pymem upsert_memory x N": _ms(batch["single"].median_ms),
            },
            [typed, "pymem upsert_memories, JSON", "pymem upsert_memory x N"],
            ratio=f"typed {batch['typed'].median_ms / batch['bare'].median_ms:.2f}x floor",
            judged=(("batch_over_floor", "", typed),),
        )
    )
    rows.append(
        _row(
            "import",
            f"{im['lines']:,} JSONL lines a turn (a, b, c, c, b, a), {im['restated']} restated",
            "rows/s",
            {
                "plain one-row INSERT": round(im["plain_rows_per_s"]),
                "pymem import": round(im["import_lines_per_s"]),
                "pymem import --jobs 1": round(im["import_one_writer_lines_per_s"]),
            },
            ["pymem import"],
            ratio=f"{im['ratio']:.2f}x INSERT",
            judged=(("import_over_insert", "", "pymem import"),),
        )
    )
    for n in rc["sizes"]:
        user = recall.user_ids(n)[0]
        p50, bare = rc["timings"][(user, False)].median_ms, rc["bare"][user].median_ms
        narrow = rc["narrow"][user].median_ms
        rows.append(
            _row(
                "recall",
                f"top 10 of {n:,} memories, p50",
                "ms",
                {
                    f"{FLOOR}: exact top 10": _ms(bare),
                    f"{FLOOR}: exact top 10, narrow table": _ms(narrow),
                    "pymem recall": _ms(p50),
                    "pymem recall, alone (cached)": _ms(rc["alone"][user].median_ms),
                    "pymem recall with query_text": _ms(rc["timings"][(user, True)].median_ms),
                },
                ["pymem recall", "pymem recall, alone (cached)", "pymem recall with query_text"],
                ratio=f"{p50 / bare:.2f}x floor, {p50 / narrow:.2f}x narrow",
                size=n,
                judged=(
                    ("recall_over_bare", "", "pymem recall"),
                    ("recall_over_narrow", "", "pymem recall"),
                    ("recall_p50_ms", "", "pymem recall"),
                ),
            )
        )
    decay = rc["decay"]
    rows.append(
        _row(
            "decay",
            f"{rc['table_rows']:,} rows, seconds per 1M rows",
            "s",
            {
                "pymem apply_decay": round(decay["apply_decay"]["per_million"], 2),
                "pymem run_decay": round(decay["run_decay"]["per_million"], 2),
            },
            ["pymem apply_decay", "pymem run_decay"],
            judged=(("decay_per_million_s", "", "pymem apply_decay"),),
        )
    )
    for r in co["results"]:
        rows.append(
            _row(
                "consolidation",
                f"{r['n']:,} memories, groups at cosine >= {consolidate.THRESHOLD}",
                "s",
                {
                    "all-pairs self-join (SQL)": round(r["allpairs_s"], 3),
                    "pymem consolidation_candidates": round(r["candidates_s"], 3),
                },
                ["pymem consolidation_candidates"],
                ratio=f"{r['ratio']:.1f}x faster, {r['pair_share']:.1%} of pairs",
                size=r["n"],
                judged=(
                    ("consolidation_speedup", "", "pymem consolidation_candidates"),
                    ("consolidation_pair_share", "", "pymem consolidation_candidates"),
                ),
            )
        )
    for op, label in (("recall", "recall"), ("upsert", "upsert_memory, new fact")):
        values, pymem, judged = {}, [], []
        for store, key in (("plain", "plain"), ("hash-partitioned", "partitioned")):
            values[f"{FLOOR}, {store}"] = _ms(1000 * pa[f"{op}_floor"][f"{key}_p50_s"])
            values[f"pymem, {store}"] = _ms(1000 * pa[op][f"{key}_p50_s"])
            pymem.append(f"pymem, {store}")
            judged.append((f"partitions_{op}_over_floor", f"{key} store", f"pymem, {store}"))
        rows.append(
            _row(
                "partitions",
                f"{label}, p50, {pa['rows']:,} rows, {pa['partitions']} leaves",
                "ms",
                values,
                pymem,
                ratio=f"partitioned {pa[op]['ratio']:.2f}x plain",
                judged=tuple(judged),
            )
        )
    verdicts = targets.judge([m for res in (up, im, rc, co, pa) for m in res["measured"]])
    exact = bool(up["exact"] and rc["all_exact"] and im["exact"] and pa["exact"])
    return {"rows": rows, "targets": verdicts, "exact": exact}


def format_table(summary: dict[str, Any], out=print) -> None:
    width = max(len(row["case"]) for row in summary["rows"])
    out(f"{'bench':<19} {'case':<{width}} measured")
    for row in summary["rows"]:
        values = ", ".join(f"{k} {v:g} {row['unit']}" for k, v in row["values"].items())
        ratio = f"  [{row['ratio']}]" if row["ratio"] else ""
        out(f"{row['bench']:<19} {row['case']:<{width}} {values}{ratio}")
    out("")
    targets.report(summary["targets"], out)
    out(f"exactness checks all True: {summary['exact']}")


def row_verdicts(summary: dict[str, Any], row: dict[str, Any]) -> list[tuple[dict, str]]:
    """The verdicts of ``summary`` judged on ``row``, each with the series it judges."""
    return [
        (v, j["series"])
        for j in row["judged"]
        for v in summary["targets"]
        if v["figure"] == j["figure"]
        and v["ok"] is not None
        and (not j["case"] or v["case"] == j["case"])
        and (row["size"] is None or v["size"] == row["size"])
    ]


_BASELINE_COLOURS = ("0.45", "0.75", "0.3", "0.88")
_PYMEM_COLOURS = ("tab:blue", "tab:green", "tab:purple", "tab:cyan")
_UNITS = {
    "ms": "ms (shorter is faster)",
    "s": "s (shorter is faster)",
    "rows/s": "rows/s (longer is faster)",
    "rows": "rows stored (one per fact is right)",
}
_MARKS = {  # how a target's mark is drawn: relative to a grey bar of the same run, or absolute
    "relative": ("crimson", "--", "target (README.md), from the grey bar measured beside it"),
    "absolute": ("darkorange", ":", "target (README.md), absolute"),
}
_BAR_IN = 0.22  # inches of panel height per bar
_LINE_IN = 0.16  # inches per line of a row's label
_PAD_IN = 0.15  # between rows


def _number(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"


def _row_label(summary: dict[str, Any], row: dict[str, Any]) -> str:
    """A row's label: its case, then each target judged on it with the verdict."""
    lines = textwrap.wrap(row["case"], 40)
    verdicts = row_verdicts(summary, row)
    for v, _ in verdicts:
        # the store of a partitions row; a size or a single case is said by the row already
        case = f"{v['case']}: " if sum(w["figure"] == v["figure"] for w, _ in verdicts) > 1 else ""
        verdict = targets.verdict_word(v["ok"])
        lines.append(f"{case}{v['measured']}, target {v['limit']}: {verdict}")
    return "\n".join(lines)


def _panel_title(summary: dict[str, Any], bench: str) -> str:
    """The panel's name, and the targets stated for it at a size this run did not measure."""
    unjudged = [v for v in summary["targets"] if v["bench"] == bench and v["ok"] is None]
    if not unjudged:
        return bench
    named = "; ".join(v["target"] for v in unjudged)
    return textwrap.fill(f"{bench}. Not judged in this run ({unjudged[0]['case']}): {named}", 120)


def figure(summary: dict[str, Any]):
    """bench.png's figure (matplotlib's Agg canvas, no pyplot), None without matplotlib.

    One panel per benchmark; pymem's bars in colour, the baselines and bare-SQL floors
    grey and hatched, each legend beside its panel (outside the bars); each target of
    bench.targets judged on a row is a mark across the bar it judges and a line of
    the row's label with the measured value and the verdict."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in summary["rows"]:
        groups.setdefault(row["bench"], []).append(row)
    panels = []
    for bench, rows in groups.items():
        labels = [_row_label(summary, r) for r in rows]
        heights = [
            max(len(r["values"]) * _BAR_IN, (label.count("\n") + 1) * _LINE_IN) + _PAD_IN
            for r, label in zip(rows, labels, strict=True)
        ]
        panels.append((bench, rows, labels, heights))
    panel_in = [sum(p[3]) for p in panels]
    fig = Figure(figsize=(12, sum(panel_in) + 1.0 * len(panels) + 0.4), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(panels), 1, squeeze=False, height_ratios=panel_in)[:, 0]
    for ax, (bench, rows, labels, heights) in zip(axes, panels, strict=True):
        names = list(dict.fromkeys(k for r in rows for k in r["values"]))
        pymem = {k for r in rows for k in r["pymem"]}
        shade, tone = iter(_BASELINE_COLOURS), iter(_PYMEM_COLOURS)
        colours = {k: next(tone) if k in pymem else next(shade) for k in names}
        tops = [sum(heights[:j]) for j in range(len(rows))]

        def bar_y(j: int, name: str, tops=tops, rows=rows) -> float:
            return tops[j] + _PAD_IN / 2 + (list(rows[j]["values"]).index(name) + 0.5) * _BAR_IN

        marks: dict[tuple[int, str], list[float]] = {}
        right = max(v for r in rows for v in r["values"].values())
        drawn = set()
        for j, row in enumerate(rows):
            for v, series in row_verdicts(summary, row):
                if v["line"] is None:
                    continue
                how = "absolute" if v["kind"] in ("ms", "s") else "relative"
                colour, style, legend = _MARKS[how]
                y = bar_y(j, series)
                ax.vlines(
                    v["line"], y - _BAR_IN * 0.6, y + _BAR_IN * 0.6, colors=colour,
                    linestyles=style, linewidth=1.6,
                    label=None if how in drawn else textwrap.fill(legend, 36),
                )  # fmt: skip
                drawn.add(how)
                marks.setdefault((j, series), []).append(v["line"])
                right = max(right, v["line"])
        right = right * 1.12 or 1
        for name in names:
            at = [j for j, r in enumerate(rows) if name in r["values"]]
            xs = [rows[j]["values"][name] for j in at]
            ax.barh(
                [bar_y(j, name) for j in at],
                xs,
                height=_BAR_IN * 0.85,
                color=colours[name],
                hatch=None if name in pymem else "///",
                edgecolor="white" if name in pymem else "0.2",
                linewidth=0.4,
                label=textwrap.fill(name, 36),
            )
            for j, x in zip(at, xs, strict=True):
                # the number at the bar's end, or past a mark that would cross it
                near = [m for m in marks.get((j, name), []) if x <= m <= x + 0.08 * right]
                ax.annotate(
                    _number(x), (max([x, *near]), bar_y(j, name)), xytext=(3, 0),
                    textcoords="offset points", va="center", fontsize=7,
                )  # fmt: skip
        ax.set_ylim(sum(heights), 0)
        ax.set_xlim(0, right)
        ax.set_yticks([tops[j] + heights[j] / 2 for j in range(len(rows))])
        ax.set_yticklabels(labels, fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
        ax.set_xlabel(_UNITS.get(rows[0]["unit"], rows[0]["unit"]), fontsize=8)
        ax.set_title(_panel_title(summary, bench), fontsize=9, loc="left")
        handles, names = ax.get_legend_handles_labels()
        order = sorted(range(len(names)), key=lambda k: names[k].startswith("target"))
        ax.legend(
            [handles[k] for k in order], [names[k] for k in order], fontsize=8,
            loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, borderaxespad=0.0,
        )  # fmt: skip
    fig.suptitle(
        "pymem bench" + (" --quick" if summary.get("quick") else "")
        + ": pymem's bars in colour; baselines and bare-SQL floors grey, hatched;"
        " each target as README.md states it, marked on the bar it judges",
        fontsize=10,
    )  # fmt: skip
    return fig


def plot(summary: dict[str, Any], path: Path) -> bool:
    """bench.png; False when matplotlib is not installed."""
    fig = figure(summary)
    if fig is None:
        return False
    fig.savefig(path, dpi=110)
    return True


def run_all(
    dsn: str | None,
    sizes: tuple[
        upsert.UpsertSizes,
        importing.ImportSizes,
        recall.RecallSizes,
        consolidate.ConsolidateSizes,
        partitions.PartitionSizes,
    ],
    log=None,
    *,
    suffix: str = "",
    raw: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every benchmark, each in a fresh database of its own; the summary and the machine.
    ``raw``, when given, receives each benchmark's own result by name (not JSON)."""
    from pymem.migrate import migrate

    log = log or (lambda line: print(line, file=sys.stderr))
    up_sizes, im_sizes, rc_sizes, co_sizes, pa_sizes = sizes
    results = raw if raw is not None else {}
    # migrated once, cloned for each benchmark
    template = f"pymem_bench_all_template{suffix}"
    admin, template_dsn = common.bench_database(dsn, template)
    common.recreate_database(admin, template)
    migrate(template_dsn)
    try:
        for name, module, bench_sizes in (
            ("upsert", upsert, up_sizes),
            ("import", importing, im_sizes),
            ("recall", recall, rc_sizes),
            ("consolidate", consolidate, co_sizes),
        ):
            database = f"pymem_bench_all_{name}{suffix}"
            admin, target = common.bench_database(dsn, database)
            common.recreate_database(admin, database, template=template)
            try:
                log(f"== pymem bench {name} (database {database})")
                results[name] = module.run(target, bench_sizes, out=log)
                if name == "upsert":
                    results[name]["batch_size"] = bench_sizes.batch_size
                    results[name]["batch_user_memories"] = bench_sizes.batch_user_memories
                if name == "recall":
                    results[name]["sizes"] = list(bench_sizes.users)
                if name == "import":
                    results[name]["lines"] = bench_sizes.lines
                if name == "upsert":
                    with common.connect(target) as conn:
                        machine = common.machine_lines(conn)
            finally:
                common.drop_database(admin, database)
        log("== pymem bench partitions (databases of its own, dropped after)")
        results["partitions"] = partitions.run(admin, pa_sizes, out=log, template=template)
    finally:
        common.drop_database(admin, template)
    summary = summarize(
        results["upsert"],
        results["recall"],
        results["consolidate"],
        results["import"],
        results["partitions"],
    )
    summary["machine"] = machine
    return summary


def main(
    dsn: str | None = None, quick: bool = False, as_json: bool = False, out_dir: str | None = None
) -> int:
    sizes = (
        (upsert.QUICK, importing.QUICK, recall.QUICK, consolidate.QUICK, partitions.QUICK)
        if quick
        else (upsert.FULL, importing.FULL, recall.FULL, consolidate.FULL, partitions.FULL)
    )
    summary = run_all(dsn, sizes)
    summary["quick"] = quick
    if out_dir:
        target = Path(out_dir)
        target.mkdir(parents=True, exist_ok=True)
        (target / "bench.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        if plot(summary, target / "bench.png"):
            print(f"wrote {target / 'bench.json'} and {target / 'bench.png'}", file=sys.stderr)
        else:
            print(
                f"wrote {target / 'bench.json'}; no plot: pip install 'pymem[plot]' (matplotlib)",
                file=sys.stderr,
            )
    if as_json:
        print(json.dumps(summary))
    else:
        for line in summary["machine"]:
            print(line)
        format_table(summary)
    return 0 if summary["exact"] else 1
