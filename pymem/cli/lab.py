"""`pymem demo`, `bench`, `calibrate`, `report` and `eval`: showing and measuring the store."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pymem import server
from pymem.cli.common import _dsn, _model_client, _model_options, _store


def cmd_demo(args: argparse.Namespace) -> int:
    from pymem.demo import run_demo

    if args.base_url is None:
        return run_demo(args.dsn)
    from pymem.chat import ChatClient
    from pymem.demo import run_llm_demo

    chat = _model_client(args, ChatClient, "PYMEM_MODEL", "demo")
    if chat is None:
        return 2
    with chat:
        return run_llm_demo(args.dsn, chat)


def _checkout_bench() -> bool:
    """The benchmarks live in the repository's bench/, beside pymem/, not in the
    installed package: importable from a checkout (an editable install), else said."""
    import pymem

    root = Path(pymem.__file__).resolve().parent.parent
    if not (root / "bench" / "__init__.py").is_file():
        print(
            "pymem bench: the benchmarks are not installed with the package; run them from a "
            "checkout of pymem's repository (pip install -e . there)",
            file=sys.stderr,
        )
        return False
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return True


def cmd_bench(args: argparse.Namespace) -> int:
    if not _checkout_bench():
        return 2
    if args.which in (None, "all"):
        from bench.all import main as all_main

        return all_main(args.dsn, quick=args.quick, as_json=args.json, out_dir=args.out)
    if args.which == "peers" and not args.out:
        # against mem0 (the optional extra pymem[peers]); not part of the run of all
        from bench.peers import main as peers_main

        return peers_main(args.dsn, quick=args.quick, as_json=args.json)
    if args.json or args.out:
        print(
            "pymem bench: --json is for the run of all and peers, --out for the run of all",
            file=sys.stderr,
        )
        return 2
    if args.which == "upsert":
        from bench.upsert import main as bench_main
    elif args.which == "consolidate":
        from bench.consolidate import main as bench_main
    elif args.which == "import":
        from bench.importing import main as bench_main
    elif args.which == "partitions":
        from bench.partitions import main as bench_main
    elif args.which == "locality":
        from bench.locality import main as bench_main
    else:
        from bench.recall import main as bench_main
    if args.dimensions is not None:
        if args.which not in ("recall", "upsert", "import"):
            print("pymem bench: --dimensions is for recall, upsert and import", file=sys.stderr)
            return 2
        if not 1 <= args.dimensions <= 16000:
            print("pymem bench: --dimensions must be between 1 and 16000", file=sys.stderr)
            return 2
        return bench_main(args.dsn, quick=args.quick, dimensions=args.dimensions)
    return bench_main(args.dsn, quick=args.quick)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from pymem.calibration import Calibration, calibrate, format_report, load_pairs
    from pymem.calibration import evaluate as evaluate_thresholds
    from pymem.embedder import default_embedder

    try:
        evaluation = {"hand-written (bundled)": load_pairs()}
        for path in args.eval or []:
            evaluation[Path(path).stem] = load_pairs([path], sample=args.sample)
        dev = load_pairs(args.dev, sample=args.sample) if args.dev else None
    except ValueError as exc:  # a file that cannot be read, a line that is not a pair
        print(f"pymem calibrate: {exc}", file=sys.stderr)
        return 2
    embed = default_embedder()
    dsn = _dsn(args)
    if server.uses_embedded(args.dsn):
        from pymem.migrate import migrate

        migrate(dsn)
    if dev is None:
        # no fit: how the thresholds shipped for the bundled embedder do on held-out pairs
        # (with --apply, recorded: an older store keeps its own until then)
        t = embed.thresholds
        cal = Calibration(
            t.dedup, t.term_change, t.supersede, t.topic_supersede, t.cjk_dedup, t.cjk_term_change
        )
        cal.report = evaluate_thresholds(dsn, embed, cal, evaluation)
    else:
        cal = calibrate(dsn, embed, dev, evaluation)
    print(format_report(cal))
    if args.apply:
        store = _store(args)
        with store:
            store.configure_embedder(
                embed.name,
                cal.dedup_threshold,
                cal.supersede_threshold,
                cal.topic_supersede_threshold,
                overwrite=True,
                dedup_term_change=cal.dedup_term_change,
                cjk_dedup_threshold=cal.cjk_dedup_threshold,
                cjk_dedup_term_change=cal.cjk_dedup_term_change,
            )
        print(f"recorded for {embed.name}")
    return 0


# -- quality report ----------------------------------------------------------------


def cmd_report(args: argparse.Namespace) -> int:
    import dataclasses
    import json

    store = _store(args)
    with store:
        report = store.quality_report(args.user)
    if args.json:
        print(json.dumps(dataclasses.asdict(report)))
        return 0
    r = report
    print(f"quality of {'user ' + args.user if args.user else 'the whole store'}")
    rows = [
        ("users", f"{r.users}"),
        ("live memories", f"{r.live_memories}"),
        ("duplicate pairs", f"{r.duplicate_pairs}"),
        ("duplicate rate", f"{r.duplicate_rate:.1%} ({r.duplicate_memories} memories)"),
        ("pending reviews", f"{r.pending_reviews}"),
        ("pending conflicts", f"{r.pending_conflicts}"),
        ("contradiction rate", f"{r.contradiction_rate:.1%}"),
        ("cold share", f"{r.cold_share:.1%} ({r.cold_memories} memories)"),
        ("consolidated share", f"{r.consolidated_share:.1%} ({r.consolidated_memories} memories)"),
    ]
    for name, value in rows:
        print(f"  {name:<20} {value}")
    return 0


def _add_report_parser(sub) -> None:
    p = sub.add_parser("report", help="quality of the store: duplicates, reviews, cold share")
    p.add_argument("--user", help="one user's memories (default: the whole store)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_report)


# -- eval -------------------------------------------------------------------------


def cmd_eval(args: argparse.Namespace) -> int:
    import json

    from pymem.eval import evaluate, figures_only, format_report

    result = evaluate(args.dsn, args.dataset, database=args.database, yes=args.yes)
    if args.figures_only:
        result = figures_only(result)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        format_report(result)
    return 0


def _add_eval_parser(sub) -> None:
    p = sub.add_parser(
        "eval", help="a labelled memory stream through a naive store and through pymem"
    )
    p.add_argument(
        "--dataset",
        metavar="PATH",
        help="a JSONL stream of memories and questions (docs/eval.md); default: the bundled one",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--figures-only",
        action="store_true",
        help="leave out the questions missed and the false merges (a stream kept unread)",
    )
    p.add_argument(
        "--database",
        default="pymem_eval",
        help="the database the run makes and re-makes, on the --dsn server or the embedded "
        "one; one it did not make is never dropped (a pymem store, a server's own database), "
        "one holding other tables only with --yes",
    )
    p.add_argument(
        "--yes", action="store_true", help="drop a --database that holds tables (not a store)"
    )
    p.set_defaults(func=cmd_eval)


def add_parsers(sub) -> None:
    """This group's commands, on the `pymem` parser's subcommands."""
    _add_report_parser(sub)
    _add_eval_parser(sub)
    p = sub.add_parser(
        "demo",
        help="a scripted memory stream on the embedded server",
        description="A scripted stream of English and Chinese memories through pymem, each "
        "decision printed with its rule: duplicates, updates, a review, recall, decay to the "
        "cold tier and back, facts and a conflict, consolidation and a contact's card. It "
        "runs in a database of its own (pymem_demo on the embedded server, or --dsn's).",
    )
    _model_options(
        p,
        "PYMEM_MODEL",
        "--llm",
        "instead, a conversation through a model at this OpenAI-compatible API root: "
        "extraction, a record, a profile, a reflection (docs/llm.md)",
    )
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("bench", help="benchmarks that print side-by-side ratios")
    p.add_argument(
        "which",
        nargs="?",
        choices=[
            "all",
            "upsert",
            "recall",
            "consolidate",
            "import",
            "partitions",
            "peers",
            "locality",
        ],
        help="one benchmark with its full log; default all of them, one table side by side",
    )
    p.add_argument("--quick", action="store_true", help="smaller data, for a smoke run")
    p.add_argument(
        "--dimensions",
        type=int,
        metavar="N",
        help="recall, upsert, import: a store of N-d vectors (default 512) in a database of its "
        "own; recall's table holds as many vector bytes as at 512-d (fewer rows)",
    )
    p.add_argument(
        "--json", action="store_true", help="all, peers: print the result as one JSON object"
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        help="all: write bench.json and bench.png (the plot needs pymem[plot]) to DIR",
    )
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "calibrate",
        help="fit the bundled embedder's thresholds on --dev pairs, report on held-out pairs",
    )
    p.add_argument(
        "--dev", nargs="+", metavar="JSONL", help="pairs to fit on (docs/calibration.md)"
    )
    p.add_argument(
        "--eval",
        nargs="+",
        metavar="JSONL",
        help="held-out pairs to report on, beside the bundled hand-written ones",
    )
    p.add_argument(
        "--sample", type=int, metavar="N", help="at most N pairs of each file (fixed seed)"
    )
    p.add_argument(
        "--apply",
        action="store_true",
        help="record the thresholds: the fitted ones with --dev, else the shipped ones",
    )
    p.set_defaults(func=cmd_calibrate)
