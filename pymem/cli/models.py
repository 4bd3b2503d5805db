"""`pymem review`, `worker` and `mcp`: the commands that talk to a model or to an MCP client."""

from __future__ import annotations

import argparse
import sys

from pymem.cli.common import _model_client, _model_options, _store

# -- the review loop ------------------------------------------------------------


def cmd_review(args: argparse.Namespace) -> int:
    from pymem.review import ReviewCounts, ReviewOutcome, ReviewWorker

    if args.user is not None and not args.user.strip():
        print("pymem review: --user must name a user (without it: every user)", file=sys.stderr)
        return 2
    if args.unpark:
        if args.user is None:
            print("pymem review: --unpark needs --user", file=sys.stderr)
            return 2
        with _store(args) as store:
            back = store.unpark_reviews(args.user)
        for r in back:
            print(f"unparked {r.review_id} ({r.attempts} attempts): {r.last_error or ''}")
        print(f"{len(back)} parked reviews back in the queue")
        return 0
    from pymem.judge import OpenAIJudge

    judge = _model_client(args, OpenAIJudge, "PYMEM_JUDGE_MODEL", "review")
    if judge is None:
        return 2
    judge.structured = not args.schema_in_prompt
    live = sys.stderr.isatty()
    seen = ReviewCounts()

    def outcome(o: ReviewOutcome) -> None:
        r = o.review
        where = f"{r.memory_id} vs {r.matched_id}" + ("" if args.user else f" ({r.user_id})")
        if o.state in ("decided", "judged"):
            verb = "would " if o.state == "judged" else ""
            print(f"{verb}{o.verdict.decision:<9} {where}: {o.verdict.reason}", flush=True)
            return
        if live:
            sys.stderr.write("\n")
        what = {
            "taken": ": settled elsewhere, nothing applied here (the claim ran out and another"
            f" reviewer took it, or another decision made it obsolete): {o.error}",
            "stale": ": the pair changed while the judge read it; given back to be judged"
            f" again, nothing counted ({o.error})",
            "failed": f": the judge failed, nothing recorded (dry run): {o.error}",
            "parked": f" parked after {o.attempts} failed attempts (pymem review --user"
            f" {r.user_id} --unpark puts it back): {o.error}",
        }.get(o.state)
        if what is None:  # a retry
            again = (
                f"back in the queue, due again in {o.retry_after:g} s"
                if args.once or args.dry_run
                else f"retried in {o.retry_after:g} s"
            )
            what = f" failed (attempt {o.attempts}, {again}): {o.error}"
        print(f"pymem review: review {r.review_id}{what}", file=sys.stderr)

    def store_error(error, wait: float) -> None:
        if live:
            sys.stderr.write("\n")
        print(f"pymem: {error.one_line()}; trying again in {wait:g} s", file=sys.stderr)

    def progress(counts: ReviewCounts) -> None:
        nonlocal seen
        seen += counts
        if counts.claimed and live:
            # on a terminal one line, rewritten; a log has a line a review (outcome) and
            # the summary at the end, which these counts would only repeat
            sys.stderr.write(f"\r{seen.claimed} claimed: {seen.line()}")
            sys.stderr.flush()

    with _store(args) as store:
        try:
            worker = ReviewWorker(
                store,
                judge,
                user_id=args.user,
                batch=args.batch,
                reviews_per_call=args.reviews_per_call,
                lease=args.lease,
                poll_interval=args.poll,
                retry_after=args.retry_after,
                dry_run=args.dry_run,
                on_outcome=outcome,
                on_batch=progress,
                on_error=store_error,
            )
        except ValueError as exc:  # --poll 0, --batch 0, a negative --retry-after
            judge.close()
            print(f"pymem review: {exc}", file=sys.stderr)
            return 2
        try:
            if args.once or args.dry_run:
                worker.drain()
            else:
                worker.run_forever()
        except KeyboardInterrupt:
            # the claims in hand went back to the queue as they were
            print("\npymem review: interrupted", file=sys.stderr)
            return 130
        finally:
            judge.close()
            if live and seen.claimed:
                sys.stderr.write("\n")
    totals = worker.totals
    done = "judged (dry run, nothing applied)" if args.dry_run else "reviewed"
    print(f"{done} {totals.reviewed}: {totals.line()}")
    return 1 if totals.failed else 0


# -- the worker for every event ------------------------------------------------


def cmd_worker(args: argparse.Namespace) -> int:
    from pymem.chat import ChatClient
    from pymem.embedder import default_embedder
    from pymem.review import ReviewCounts, ReviewOutcome
    from pymem.worker import JOBS, JobOutcome, MemoryWorker

    if args.user is not None and not args.user.strip():
        print("pymem worker: --user must name a user (without it: every user)", file=sys.stderr)
        return 2
    jobs = [j.strip() for j in args.jobs.split(",") if j.strip()]
    if not jobs or not set(jobs) <= set(JOBS):
        print(f"pymem worker: --jobs takes some of {','.join(JOBS)}, got {args.jobs!r}",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.unpark:
        if args.user is None:
            print("pymem worker: --unpark needs --user", file=sys.stderr)
            return 2
        with _store(args) as store:
            jobs_back = store.unpark_jobs(args.user)
            reviews_back = store.unpark_reviews(args.user)
        for j in jobs_back:
            print(f"unparked {j.job} {j.key!r} ({j.attempts} attempts): {j.last_error or ''}")
        for r in reviews_back:
            print(f"unparked review {r.review_id} ({r.attempts} attempts): {r.last_error or ''}")
        print(f"{len(jobs_back)} parked jobs and {len(reviews_back)} parked reviews back")
        return 0
    chat = _model_client(args, ChatClient, "PYMEM_MODEL", "worker")
    if chat is None:
        return 2

    def job_done(o: JobOutcome) -> None:
        j = o.job
        what = f"{j.job} {j.key!r}" if j.key else j.job
        where = "" if args.user else f" ({j.user_id})"
        if o.state == "done":
            if o.result is not None and o.result.refused:
                print(f"refused   {what}{where}: {o.result.refused}", flush=True)
            else:
                print(f"done      {what}{where}", flush=True)
        else:
            print(f"pymem worker: {what}{where}: {o.state}: {o.error}", file=sys.stderr)

    def reviewed(o: ReviewOutcome) -> None:
        r = o.review
        if o.state == "decided":
            print(f"{o.verdict.decision:<9} {r.memory_id} vs {r.matched_id}: {o.verdict.reason}")
        else:
            print(f"pymem worker: review {r.review_id}: {o.state}: {o.error}", file=sys.stderr)

    def store_error(error, wait: float) -> None:
        print(f"pymem: {error.one_line()}; trying again in {wait:g} s", file=sys.stderr)

    with chat, _store(args) as store:
        embed = default_embedder()
        embed.configure(store)
        try:
            worker = MemoryWorker(
                store,
                chat,
                embed,
                jobs=jobs,
                structured=not args.schema_in_prompt,
                reflect_after=args.reflect_after,
                user_id=args.user,
                batch=args.batch,
                reviews_per_call=args.reviews_per_call,
                lease=args.lease,
                poll_interval=args.poll,
                retry_after=args.retry_after,
                on_job=job_done,
                on_outcome=reviewed,
                on_error=store_error,
            )
        except ValueError as exc:
            print(f"pymem worker: {exc}", file=sys.stderr)
            return 2
        try:
            if args.once:
                worker.drain()
            else:
                worker.run_forever()
        except KeyboardInterrupt:
            print("\npymem worker: interrupted", file=sys.stderr)
            return 130
    counts = worker.counts
    reviews: ReviewCounts = counts.reviews
    print(f"reviewed {reviews.reviewed}: {reviews.line()}")
    print(counts.line())
    return 1 if reviews.failed or any(counts.failed.values()) else 0


def _add_worker_parser(sub) -> None:
    p = sub.add_parser(
        "worker",
        help="run every model job the store announces: reviews, consolidation, profiles, "
        "reflection",
        description="Claim and run the store's model jobs with a model on an "
        "OpenAI-compatible endpoint: the review queue (as pymem review), topics due for "
        "consolidation, people due for a profile, and a reflection per user every "
        "settings.reflect_every writes. LISTEN on pymem_events and poll until Ctrl-C, or "
        "drain what is due with --once. Prints what each job did and the model's calls and "
        "tokens per job. Exit 0; 1 when a job failed; 2 on an error (docs/llm.md).",
    )
    p.add_argument("--user", help="one user's jobs (default: every user of the store)")
    p.add_argument("--once", action="store_true", help="run everything due, then exit")
    p.add_argument(
        "--unpark", action="store_true", help="put --user's parked jobs and reviews back"
    )
    p.add_argument(
        "--jobs",
        default="review,consolidate,profile,reflect",
        help="the jobs to run, comma-separated (default: all four)",
    )
    p.add_argument(
        "--reflect-after",
        type=float,
        metavar="SECONDS",
        help="also reflect for a user who wrote anything since a reflection this old",
    )
    _model_options(p, "PYMEM_MODEL")
    _claim_options(p, "jobs", "model calls")
    p.set_defaults(func=cmd_worker)


# -- an MCP server -------------------------------------------------------------


def cmd_mcp(args: argparse.Namespace) -> int:
    try:
        import mcp  # noqa: F401

        from pymem.mcp_server import serve
    except ImportError:
        print("pymem mcp: needs the MCP SDK: pip install 'pymem[mcp]'", file=sys.stderr)
        return 2
    from pymem.embedder import default_embedder

    if (args.user is None) == (args.user_header is None):
        print("pymem mcp: give --user, or --user-header with --http", file=sys.stderr)
        return 2
    if args.user_header is not None and args.http is None:
        print("pymem mcp: --user-header names the user of an HTTP request: add --http PORT",
              file=sys.stderr)  # fmt: skip
        return 2
    with _store(args) as store:
        embed = default_embedder()
        embed.configure(store)
        serve(store, embed, user=args.user, user_header=args.user_header, port=args.http,
              host=args.host)  # fmt: skip
    return 0


def _add_mcp_parser(sub) -> None:
    p = sub.add_parser(
        "mcp",
        help="serve the store to an MCP client (Claude Desktop, Cursor, agents): stdio or HTTP",
        description="An MCP server on the store (docs/mcp.md): tools remember, recall (with "
        "filters), forget, undo, get_fact, set_fact, contact_card, pending_reviews, for one "
        "user: --user, or over HTTP the user each request names in --user-header. Over stdio "
        "by default; --http PORT serves streamable HTTP at http://HOST:PORT/mcp. Needs "
        "pymem[mcp] and pymem[embed].",
    )
    p.add_argument("--user", help="the user every tool reads and writes")
    p.add_argument(
        "--user-header",
        metavar="NAME",
        help="over HTTP: the request header that names the user (instead of --user)",
    )
    p.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on this port")
    p.add_argument("--host", default="127.0.0.1", help="the HTTP address (default 127.0.0.1)")
    p.set_defaults(func=cmd_mcp)


def _add_review_parser(sub) -> None:
    p = sub.add_parser(
        "review",
        help="decide queued pairs with an LLM on an OpenAI-compatible endpoint",
        description="Consume the review queue: claim related pairs (two reviewers never "
        "decide one), ask the judge at --base-url, apply its decision with its reason; "
        "LISTEN on pymem_events and poll, until Ctrl-C, or drain once with --once. A "
        "failed answer leaves the review queued with its error, parked after "
        "settings.review_max_attempts. Exit 0; 1 when a judgement failed; 2 on an error "
        "(docs/review-worker.md).",
    )
    p.add_argument("--user", help="one user's reviews (default: every user of the store)")
    p.add_argument("--once", action="store_true", help="drain the queue, then exit")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the judge's decisions, apply nothing (drains once; the claims go back)",
    )
    p.add_argument(
        "--unpark", action="store_true", help="put --user's parked reviews back in the queue"
    )
    _model_options(p, "PYMEM_JUDGE_MODEL")
    _claim_options(p, "reviews", "judge calls")
    p.set_defaults(func=cmd_review)


def _claim_options(p: argparse.ArgumentParser, what: str, calls: str) -> None:
    """The claim options of a worker (pymem review, pymem worker)."""
    p.add_argument("--batch", type=int, default=5, help=f"{what} claimed at a time (5)")
    p.add_argument(
        "--lease",
        type=float,
        default=600.0,
        help=f"seconds a claim lasts (600: must cover a batch's {calls})",
    )
    p.add_argument("--poll", type=float, default=5.0, help="seconds between polls (5)")
    p.add_argument(
        "--retry-after",
        type=float,
        default=5.0,
        help=f"seconds before a failed one of the {what} is tried again, doubling per attempt (5)",
    )
    p.add_argument(
        "--reviews-per-call",
        type=int,
        default=1,
        metavar="N",
        help="reviews judged in one request to the model, as numbered pairs (1; at most 50)",
    )


def add_parsers(sub) -> None:
    """This group's commands, on the `pymem` parser's subcommands."""
    _add_review_parser(sub)
    _add_worker_parser(sub)
    _add_mcp_parser(sub)
