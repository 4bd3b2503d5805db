"""`pymem bench` (no name): every benchmark in one run, side by side.

Runs the write path (plain INSERT vs client-side SELECT + write vs
``upsert_memory``, and 8 concurrent writers of the same facts), bulk import
(``pymem import`` vs plain one-row INSERTs), the read path and decay,
consolidation candidates vs the all-pairs scan, and a plain store against the
same store hash-partitioned by user_id, each in fresh databases, then prints
one table of what each measured next to its baseline. ``--json`` prints that
table as one object; ``--out DIR`` writes ``bench.json`` and, with matplotlib
installed (``pip install 'pymem[plot]'``), ``bench.png``. Each benchmark's
own log goes to stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pymem.bench import common, consolidate, importing, partitions, recall, upsert


def _ms(value: float) -> float:
    return round(float(value), 3)


def summarize(
    up: dict[str, Any],
    rc: dict[str, Any],
    co: dict[str, Any],
    im: dict[str, Any],
    pa: dict[str, Any],
) -> dict[str, Any]:
    """The side-by-side rows of the three benchmarks' results (JSON-ready)."""
    rows: list[dict[str, Any]] = []
    for res in up["scenarios"]:
        t = res.timings
        rows.append(
            {
                "bench": "write",
                "case": f"{res.scenario.per_user:,} memories/user, median per call",
                "unit": "ms",
                "values": {
                    "plain INSERT": _ms(t["a"].median_ms),
                    "client SELECT + write": _ms(t["b"].median_ms),
                    "pymem upsert_memory": _ms(t["c"].median_ms),
                },
                "ratio": f"{res.latency_ratio:.1f}x INSERT",
            }
        )
    race = up["race"]
    rows.append(
        {
            "bench": "concurrent writers",
            "case": "8 connections, the same facts: rows stored",
            "unit": "rows",
            "values": {"client SELECT + write": race["b"], "pymem upsert_memory": race["c"]},
            "ratio": f"{race['b'] / race['c']:.2f}x rows" if race["c"] else "",
        }
    )
    batch = up["batch"]
    rows.append(
        {
            "bench": "batch",
            "case": f"{up['batch_size']} facts in one call vs one call each",
            "unit": "ms",
            "values": {
                "upsert_memory x N": _ms(batch["single"].median_ms),
                "pymem upsert_memories": _ms(batch["batch"].median_ms),
            },
            "ratio": f"{batch['single'].median_ms / batch['batch'].median_ms:.2f}x faster",
        }
    )
    rows.append(
        {
            "bench": "import",
            "case": f"{im['lines']:,} JSONL lines a turn (a, b, b, a), {im['restated']} restated",
            "unit": "rows/s",
            "values": {
                "plain one-row INSERT": round(im["plain_rows_per_s"]),
                "pymem import": round(im["import_lines_per_s"]),
            },
            "ratio": f"{im['ratio']:.2f}x INSERT",
        }
    )
    for n in rc["sizes"]:
        user = recall.user_ids(n)[0]
        rows.append(
            {
                "bench": "recall",
                "case": f"top 10 of {n:,} memories, p50",
                "unit": "ms",
                "values": {
                    "bare exact top 10, interleaved": _ms(rc["bare"][user].median_ms),
                    "alone (cached)": _ms(rc["alone"][user].median_ms),
                    "interleaved": _ms(rc["timings"][(user, False)].median_ms),
                    "with query_text": _ms(rc["timings"][(user, True)].median_ms),
                },
                "ratio": (
                    f"{rc['timings'][(user, False)].median_ms / rc['bare'][user].median_ms:.2f}x"
                    " bare"
                ),
            }
        )
    decay = rc["decay"]
    rows.append(
        {
            "bench": "decay",
            "case": f"{rc['table_rows']:,} rows, seconds per 1M rows",
            "unit": "s",
            "values": {
                "apply_decay": round(decay["apply_decay"]["per_million"], 2),
                "run_decay": round(decay["run_decay"]["per_million"], 2),
            },
            "ratio": "",
        }
    )
    for r in co["results"]:
        rows.append(
            {
                "bench": "consolidation",
                "case": f"{r['n']:,} memories, groups at cosine >= {consolidate.THRESHOLD}",
                "unit": "s",
                "values": {
                    "all-pairs self-join": round(r["allpairs_s"], 3),
                    "consolidation_candidates": round(r["candidates_s"], 3),
                },
                "ratio": f"{r['ratio']:.1f}x, {r['pair_share']:.1%} of pairs",
            }
        )
    labels = {"recall": "recall, p50", "upsert": "upsert_memory, new fact, p50"}
    for op, label in labels.items():
        rows.append(
            {
                "bench": "partitions",
                "case": f"{label}, {pa['rows']:,} rows, {pa['partitions']} leaves",
                "unit": "ms",
                "values": {
                    "plain": _ms(1000 * pa[op]["plain_p50_s"]),
                    "hash-partitioned": _ms(1000 * pa[op]["partitioned_p50_s"]),
                    "plain, its floor (bare SQL)": _ms(1000 * pa[f"{op}_floor"]["plain_p50_s"]),
                },
                "ratio": f"{pa[op]['ratio']:.2f}x plain",
            }
        )
    ratio = im["ratio"]
    im_targets = [("pymem import >= plain one-row INSERTs", ratio >= 1.0, f"{ratio:.2f}x")]
    over = pa["plain_upsert_minus_floor_ms"]
    pa_targets = [("upsert_memory within its floor + 0.2 ms", over <= 0.2, f"{over:+.2f} ms")]
    targets = [
        {"bench": name, "target": t, "ok": bool(ok), "measured": value}
        for name, res_targets in (
            ("write", up["targets"]),
            ("import", im_targets),
            ("recall", rc["targets"]),
            ("consolidation", co["targets"]),
            ("partitions", pa_targets),
        )
        for t, ok, value in res_targets
    ]
    exact = bool(up["exact"] and rc["all_exact"] and im["exact"] and pa["exact"])
    return {"rows": rows, "targets": targets, "exact": exact}


def format_table(summary: dict[str, Any], out=print) -> None:
    out(f"{'bench':<19} {'case':<48} measured")
    for row in summary["rows"]:
        values = ", ".join(f"{k} {v:g} {row['unit']}" for k, v in row["values"].items())
        ratio = f"  [{row['ratio']}]" if row["ratio"] else ""
        out(f"{row['bench']:<19} {row['case']:<48} {values}{ratio}")
    out("")
    out("targets:")
    for t in summary["targets"]:
        verdict = "met   " if t["ok"] else "MISSED"
        out(f"  {verdict} {t['measured']:>10}  {t['bench']}: {t['target']}")
    out(f"exactness checks all True: {summary['exact']}")


def plot(summary: dict[str, Any], path: Path) -> bool:
    """bench.png: one panel per benchmark; False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in summary["rows"]:
        groups.setdefault(row["bench"], []).append(row)
    fig, axes = plt.subplots(len(groups), 1, figsize=(9, 2.6 * len(groups)), squeeze=False)
    for ax, (bench, rows) in zip(axes[:, 0], groups.items(), strict=True):
        names = list(dict.fromkeys(k for r in rows for k in r["values"]))
        width = 0.8 / len(names)
        for i, name in enumerate(names):
            xs = [j + i * width for j in range(len(rows))]
            ys = [r["values"].get(name, 0) for r in rows]
            ax.barh(xs, ys, height=width, label=name)
        ax.set_yticks([j + width * (len(names) - 1) / 2 for j in range(len(rows))])
        ax.set_yticklabels([r["case"] for r in rows], fontsize=7)
        ax.set_xlabel(rows[0]["unit"])
        ax.set_title(bench, fontsize=9, loc="left")
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
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
    from pymem.server import create_database

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
            common.drop_database(admin, database)
            create_database(admin, database, template=template)
            try:
                log(f"== pymem bench {name} (database {database})")
                results[name] = module.run(target, bench_sizes, out=log)
                if name == "upsert":
                    results[name]["batch_size"] = bench_sizes.batch_size
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
