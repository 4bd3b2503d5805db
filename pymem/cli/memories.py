"""`pymem remember`, `recall`, `explain`, `decay`, `consolidate`, `import`, `export`
and `reviews`: a user's memories."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pymem.cli.common import _embedded_store, _model_client, _model_options, _store
from pymem.errors import PymemError
from pymem.review import DECISIONS as REVIEW_DECISIONS
from pymem.wording import counted


def cmd_remember(args: argparse.Namespace) -> int:
    if args.conversation is not None:
        if args.text is not None:
            print("pymem remember: give a TEXT or --conversation, not both", file=sys.stderr)
            return 2
        return _remember_conversation(args)
    if args.user is None or args.text is None:
        print("pymem remember: TEXT and --user are required (or --conversation FILE)",
              file=sys.stderr)  # fmt: skip
        return 2
    if any(not name.strip() for name in args.contact or ()):
        # the store drops a blank name from a list (an extractor's); typed, it is a mistake
        print("pymem remember: --contact needs a name, got an empty one", file=sys.stderr)
        return 2
    text = sys.stdin.read().strip() if args.text == "-" else args.text
    store, embed = _embedded_store(args, text, "content", args.user, args.kind)
    with store:
        result = store.upsert(
            args.user,
            text,
            embed([text])[0],
            args.kind,
            importance=args.importance,
            topic=args.topic,
            source=args.source,
            contacts=args.contact,
        )
    sim = "" if result.similarity is None else f", similarity {result.similarity:.3f}"
    print(f"{result.action}: {result.memory_id} ({result.rule}{sim})")
    if result.action == "inserted" and result.matched_id is not None:
        print(f"queued for review with {result.matched_id}: pymem reviews --user {args.user}")
    return 0


def _conversation(path: str, user: str | None) -> dict[str, list[dict]] | str:
    """The messages of a JSONL conversation by user, in order, or why it cannot be read."""
    import json

    by_user: dict[str, list[dict]] = {}
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror}"
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            return f"{path} line {number}: not JSON"
        if not isinstance(message, dict):
            return f"{path} line {number}: not a JSON object"
        who = message.get("user") or user
        if not isinstance(who, str):
            return f"{path} line {number}: no user (give --user for a file without one)"
        by_user.setdefault(who, []).append(message)
    return by_user


def _remember_conversation(args: argparse.Namespace) -> int:
    from pymem.chat import ChatClient, ModelError
    from pymem.embedder import default_embedder
    from pymem.extract import Message

    by_user = _conversation(args.conversation, args.user)
    if isinstance(by_user, str):
        print(f"pymem remember: {by_user}", file=sys.stderr)
        return 2
    try:
        messages = {u: [Message.of(m) for m in ms] for u, ms in by_user.items()}
    except ValueError as exc:
        print(f"pymem remember: {args.conversation}: {exc}", file=sys.stderr)
        return 2
    chat = _model_client(args, ChatClient, "PYMEM_MODEL", "remember")
    if chat is None:
        return 2
    with chat, _store(args) as store:
        embed = default_embedder()
        embed.configure(store)
        total = calls = tokens = 0
        for user, conversation in messages.items():
            try:
                done = store.remember(user, conversation, chat, embed, chunk=args.chunk,
                                      structured=not args.schema_in_prompt)  # fmt: skip
            except ModelError as exc:
                print(f"pymem remember: {user}: {exc}", file=sys.stderr)
                return 1
            for m in done.memories:
                said = m.item["content"]
                if m.action == "refused":
                    print(f"refused    {user}: {said}: {m.error} [{m.sqlstate}]")
                else:
                    print(f"{m.action:<10} {user}: {said} ({m.rule}, {m.memory_id})")
            total += done.messages
            calls += done.calls
            tokens += done.prompt_tokens + done.completion_tokens
    per = 100 / total if total else 0.0
    print(
        f"{total} messages of {len(messages)} users: {calls} model calls, {tokens} tokens "
        f"({calls * per:.1f} calls and {tokens * per:.0f} tokens per 100 messages)"
    )
    return 0


def _filter_pairs(pairs: Sequence[str] | None) -> dict[str, Any] | str | None:
    """``--filter key=value`` options as the metadata object recall matches (a value that
    reads as JSON is taken as JSON: 3, true, "3"), or why one cannot be read."""
    import json

    if not pairs:
        return None
    found: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            return f"--filter takes key=value, got {pair!r}"
        try:
            found[key.strip()] = json.loads(value)
        except ValueError:
            found[key.strip()] = value
    return found


def cmd_recall(args: argparse.Namespace) -> int:
    wanted = _filter_pairs(args.filter)
    if isinstance(wanted, str):
        print(f"pymem recall: {wanted}", file=sys.stderr)
        return 2
    store, embed = _embedded_store(args, args.query, "query", args.user)
    vector = embed([args.query])[0]
    options = {
        "query_text": args.query,
        "filter": wanted,
        "sources": args.source,
        "include_history": args.history,
    }
    with store:
        hits = store.recall(args.user, vector, k=args.k, include_cold=args.include_cold, **options)
        cold = []
        if not hits and not args.include_cold:
            cold = store.recall(args.user, vector, k=args.k, include_cold=True, **options)
    if not hits:
        print("no memories")
        if cold:
            print(f"hint: {len(cold)} cold (faded) memories match; add --include-cold to see them")
        return 0
    print(f"{'score':>6} {'sim':>6} {'strength':>8}  {'kind':<10} content")
    for h in hits:
        # an earlier value says so: it is not what holds now
        was = f" (until {h.superseded_at:%Y-%m-%d})" if h.superseded_at else ""
        row = f"{h.score:6.3f} {h.similarity:6.3f} {h.decay_score:8.3f}  {h.kind:<10}"
        print(f"{row} {h.content}{was}")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    if args.user is not None:
        store = _store(args)
        with store:
            rows = store.explain_memories(args.user, args.older, args.newer)
    else:
        store, embed = _embedded_store(args, args.older, "older")
        with store:
            store.check_contents([args.newer], ["newer"])
            old, new = embed([args.older, args.newer])
            rows = store.explain(
                args.older, args.newer, old, new,
                old_topic=args.older_topic, new_topic=args.newer_topic,
            )  # fmt: skip
    width = max(len(r.step) for r in rows)
    for r in rows:
        print(f"{r.step:<{width}}  {r.finding}")
    return 0


def cmd_decay(args: argparse.Namespace) -> int:
    store = _store(args)
    with store:
        # `--user ''` (an unset shell variable) is PM001, never the whole store
        if args.user is not None:
            result = store.apply_decay(cold_below=args.cold_below, user_id=args.user)
        else:
            # commits after each batch: no lock outlives a batch on a big table
            result = store.run_decay(cold_below=args.cold_below)
    print(
        f"scanned {result.scanned}, moved to cold {result.cooled}, "
        f"already cold {result.cold_total - result.cooled}"
    )
    return 0


# -- consolidate ----------------------------------------------------------------------


def cmd_consolidate(args: argparse.Namespace) -> int:
    import json

    store = _store(args)
    with store:
        if args.plan:
            try:
                with open(args.plan, encoding="utf-8") as f:
                    ops = json.load(f)
            except (OSError, ValueError) as exc:
                print(f"pymem: cannot read the plan {args.plan}: {exc}", file=sys.stderr)
                return 2
            if isinstance(ops, list) and any(
                isinstance(op, dict) and "content" in op and "embedding" not in op for op in ops
            ):
                # a plan from an LLM names contents only: embed them here, once the store
                # has taken their texts (an oversized one never reaches the embedder)
                from pymem.embedder import default_embedder

                # a content that is no text is left to apply_maintenance to refuse (PM043)
                todo = [
                    (n, op)
                    for n, op in enumerate(ops, 1)
                    if isinstance(op, dict)
                    and isinstance(op.get("content"), str)
                    and "embedding" not in op
                ]
                store.check_contents(
                    [op["content"] for _, op in todo], [f"op {n}: content" for n, _ in todo]
                )
                if todo:
                    embed = default_embedder()
                    embed.configure(store)
                    vectors = embed([op["content"] for _, op in todo])
                    for (_, op), vector in zip(todo, vectors, strict=True):
                        op["embedding"] = [float(x) for x in vector]
            for row in store.apply_maintenance(args.user, ops):
                print(f"op {row.op_index} {row.op} {row.memory_id}: {row.result}")
            return 0
        groups = store.consolidation_candidates(
            args.user,
            min_similarity=args.min_similarity,
            min_group=args.min_group,
            include_pinned=args.include_pinned,
        )
        if not groups:
            print("no candidate groups")
            return 0
        ids = [i for g in groups for i in g.member_ids]
        contents = {m.memory_id: m.content for m in store.get_memories(args.user, ids)}
        for g in groups:
            sim = "" if g.mean_similarity is None else f", mean similarity {g.mean_similarity:.3f}"
            topic = "" if g.topic is None else f", topic {g.topic}"
            print(f"group {g.group_no}: {g.size} memories{topic}{sim}")
            for mid in g.member_ids:
                print(f"  {mid}  {contents.get(mid, '')}")
    return 0


# -- bulk import --------------------------------------------------------------


class _LazyEmbedder:
    """The bundled embedder, loaded and configured on ``store`` at its first call: an
    import whose lines carry their vectors never loads it."""

    def __init__(self) -> None:
        self.store: Any = None
        self._embed: Any = None

    def __call__(self, texts: list[str]) -> Any:
        if self._embed is None:
            from pymem.embedder import default_embedder

            self._embed = default_embedder()
            self._embed.configure(self.store)
        return self._embed(texts)


def cmd_export(args: argparse.Namespace) -> int:
    from pymem.export import write_export

    if args.file not in (None, "-") and Path(args.file).exists() and not args.yes:
        print(f"pymem export: {args.file} exists and would be overwritten: add --yes",
              file=sys.stderr)  # fmt: skip
        return 2
    with _store(args) as store:
        if args.file in (None, "-"):
            written = write_export(store, sys.stdout, args.user, embeddings=args.embeddings)
        else:
            with Path(args.file).open("w", encoding="utf-8") as out:
                written = write_export(store, out, args.user, embeddings=args.embeddings)
    rows = ", ".join(f"{n} {table}" for table, n in written.items()) or "no rows"
    print(f"exported {rows}", file=sys.stderr)
    return 0


def _restore(args: argparse.Namespace) -> int:
    from pymem.export import restore

    embed = _LazyEmbedder()
    with _store(args) as store:
        embed.store = store
        try:
            inserted = restore(store, args.file, user_id=args.user, embed=embed)
        except ValueError as exc:
            print(f"pymem import: {exc}", file=sys.stderr)
            return 2
        except PymemError as exc:
            print(f"pymem import: {exc.one_line()}", file=sys.stderr)
            return 2
    rows = ", ".join(f"{n} {table}" for table, n in inserted.items()) or "no rows"
    print(f"restored {rows}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from pymem.export import is_export
    from pymem.importer import ImportResult, import_file

    if is_export(args.file):
        return _restore(args)
    if args.user is not None:
        print("pymem import: --user is for an export's rows (pymem export)", file=sys.stderr)
        return 2

    embed = _LazyEmbedder()
    store = embed.store = _store(args)
    result = ImportResult()
    with store:
        # the whole file is read, and its JSON, users and texts checked, before the first
        # write; what only the store checks (kind, dimensions) stops the import at its
        # batch, and a later run goes on from there
        try:
            import_file(
                store,
                args.file,
                embed=embed,
                batch_size=args.batch_size,
                jobs=args.jobs,
                source=args.source,
                result=result,
            )
        except UnicodeDecodeError as exc:
            print(f"pymem: cannot read {args.file}: not UTF-8 ({exc})", file=sys.stderr)
            return 2
        except OSError as exc:
            if exc.filename != args.file:
                raise
            print(f"pymem: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
            return 2
        except PymemError as exc:
            print(f"pymem: {exc.one_line()}", file=sys.stderr)
            _import_stopped(args, result, "after fixing it, ")
            return 2
        except KeyboardInterrupt:
            print("\npymem import: interrupted", file=sys.stderr)
            _import_stopped(args, result, "")
            return 130
    counts = ", ".join(f"{n} {action}" for action, n in sorted(result.actions.items()))
    skipped = (
        f"; {counted(result.skipped, 'line')} skipped, committed by an earlier run of this file"
        if result.skipped
        else ""
    )
    print(
        f"imported {counted(result.lines, 'line')} in {result.seconds:.1f} s "
        f"({result.rate:,.0f}/s)" + (f": {counts}" if counts else "") + skipped
    )
    return 0


def _import_stopped(args: argparse.Namespace, result, then: str) -> None:
    """How much an import that stopped committed, and how to go on from there."""
    if not result.source:
        return  # stopped before reading the whole file: nothing was written
    if not (result.lines or result.skipped):
        # naming the old file's digest would tie the fixed file to it: a later run
        # without --source would take its lines for re-mentions
        print(f"pymem import: nothing was written; {then}run it again", file=sys.stderr)
        return
    again = f"pymem import {args.file} --source {result.source}"
    print(
        f"pymem import: {counted(result.lines, 'line')} of {counted(len(result.users), 'user')} "
        "committed before "
        f"it stopped ({result.skipped} committed by earlier runs); {then}`{again}` goes on "
        "from the first line not committed",
        file=sys.stderr,
    )


# -- the review queue ---------------------------------------------------------


def cmd_reviews(args: argparse.Namespace) -> int:
    store = _store(args)
    with store:
        if args.resolve:
            memory_id, decision = args.resolve
            survivor = store.resolve_review(args.user, memory_id, decision)
            print(f"{decision}: {survivor} survives")
            return 0
        reviews = store.pending_reviews(args.user)
    if not reviews:
        print("no pending reviews")
    for r in reviews:
        if r.cause == "fact":
            print(f"fact      {r.fact_key}: sources disagree (pymem facts --user {args.user})")
            continue
        sim = "" if r.similarity is None else f" {r.similarity:.2f}"
        print(f"{r.cause:<9} {r.memory_id}  {r.content}")
        print(f"{'':<9} {r.matched_id}  {r.matched_content}{sim}")
        # the id `pymem review` names when a judgement of it fails
        state = f", {counted(r.attempts, 'failed judgement')}" if r.attempts else ""
        state += ", parked (pymem review --unpark)" if r.parked_at else ""
        state += f": {r.last_error}" if r.attempts and r.last_error else ""
        print(f"{'':<9} review {r.review_id}{state}")
    return 0


def add_parsers(sub) -> None:
    """This group's commands, on the `pymem` parser's subcommands."""
    p = sub.add_parser(
        "remember",
        help="store a memory, or a conversation's memories a model extracts (needs "
        "pymem[embed]; a conversation pymem[llm])",
    )
    p.add_argument("--user", help="whose memory (of a conversation: of lines without a user)")
    p.add_argument(
        "--conversation",
        metavar="FILE",
        help='JSONL, a message a line: {"user": ..., "role": "user" | "assistant", '
        '"content": ..., "at": ISO time}; a model at --base-url extracts the memories',
    )
    p.add_argument("--chunk", type=int, default=10,
                   help="messages a model call reads at most (10)")  # fmt: skip
    _model_options(p, "PYMEM_MODEL")
    p.add_argument(
        "--kind", default="fact", help="fact, preference, habit, state, goal, event, ..."
    )
    p.add_argument("--topic", help="the extractor's topic key, e.g. skill:react")
    p.add_argument(
        "--source", default="stated", help="inferred, stated or confirmed (default stated)"
    )
    p.add_argument("--importance", type=float, default=0.5, help="0..1 (default 0.5)")
    p.add_argument(
        "--contact",
        action="append",
        metavar="NAME",
        help="a person the memory is about (a contact's name or alias; made if new); repeat "
        "for several",
    )
    p.add_argument("text", nargs="?", help="the memory's text, or - to read it from stdin")
    p.set_defaults(func=cmd_remember)

    p = sub.add_parser(
        "recall",
        help="ranked memories for a query (needs pymem[embed])",
        description="Ranked memories for a query. Columns: score, the rank; sim, the cosine "
        "to the query; strength, importance faded by the days since the last mention. A score "
        "above its similarity: the query's words also match the text (lexical share) or a "
        "current state is lifted; strength then scales it, down to "
        "settings.recall_decay_floor (docs/sql-api.md, recall).",
    )
    p.add_argument("--user", required=True, help="whose memories")
    p.add_argument("-k", type=int, default=5, help="at most this many memories (default 5)")
    p.add_argument("--include-cold", action="store_true", help="also search the cold (faded) tier")
    p.add_argument(
        "--history",
        action="store_true",
        help="also earlier values (an old value a newer one replaced, shown with the day it "
        "was replaced), each below its current value; none for a question about the present",
    )
    p.add_argument(
        "--filter",
        action="append",
        metavar="KEY=VALUE",
        help="only memories whose metadata holds KEY=VALUE (repeat for several; a value that "
        "reads as JSON is JSON: 3, true)",
    )
    p.add_argument(
        "--source",
        action="append",
        choices=("inferred", "stated", "confirmed"),
        help="only memories of this source (repeat for several)",
    )
    p.add_argument("query", help="what to recall, in words")
    p.set_defaults(func=cmd_recall)

    p = sub.add_parser(
        "explain",
        help="why a write of NEWER beside OLDER is decided as it is (needs pymem[embed])",
        description="The evidence, each guard between the two and a duplicate (fired or "
        "clear, and on what), and the decision, as pymem.explain gives them. Two texts "
        "are embedded with the bundled embedder; with --user, OLDER and NEWER are the ids "
        "of two of the user's memories.",
    )
    p.add_argument("older", help="the statement stored first (a memory id with --user)")
    p.add_argument("newer", help="the statement written after it (a memory id with --user)")
    p.add_argument("--user", help="explain two stored memories of this user, by id")
    p.add_argument("--older-topic", help="the first statement's topic")
    p.add_argument("--newer-topic", help="the second statement's topic")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("decay", help="move faded memories to the cold tier (cron-friendly)")
    p.add_argument(
        "--cold-below",
        type=float,
        default=0.05,
        help="move memories whose decay score is below this (default 0.05)",
    )
    p.add_argument("--user", help="only this user's memories")
    p.set_defaults(func=cmd_decay)

    p = sub.add_parser("consolidate", help="list candidate groups, or apply a maintenance plan")
    p.add_argument("--user", required=True, help="whose memories")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--dry-run", action="store_true", help="list candidate groups only")
    mode.add_argument("--plan", help="a JSON file of maintenance ops to apply (all or nothing)")
    p.add_argument(
        "--min-similarity", type=float, help="pairs at least this similar (default: settings)"
    )
    p.add_argument("--min-group", type=int, help="groups of at least this many memories")
    p.add_argument("--include-pinned", action="store_true", help="consider pinned memories too")
    p.set_defaults(func=cmd_consolidate)

    p = sub.add_parser("import", help="load a JSONL file of memories through the same dedup")
    p.add_argument(
        "file", help="one JSON object a line: user, content, embedding (or none); - for stdin"
    )
    p.add_argument(
        "--batch-size", type=int, default=500, help="lines per upsert_memories call (per user)"
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=2,
        help="connections writing at once, a user each at a time; a user's lines stay in file "
        "order (default 2)",
    )
    p.add_argument(
        "--source",
        help="the name an interrupted import goes on under (default: the SHA-256 of the file's "
        "bytes, so a re-run of the same file skips the lines it committed)",
    )
    p.add_argument(
        "--user",
        help="an export (pymem export): restore its rows as this user (default: their own)",
    )
    p.set_defaults(func=cmd_import)

    p = sub.add_parser(
        "export",
        help="write users' rows as JSONL that pymem import restores",
        description="Every row of --user (default: every user) in every table of users' rows "
        "(memories with their history and wordings, reviews, facts with history, contacts "
        "with aliases, links and history, consolidations, reflections) as JSONL, streamed; "
        "pymem import FILE restores it into a store (docs/operations.md).",
    )
    p.add_argument("--user", help="whose rows (default: every user of the store)")
    p.add_argument(
        "--no-embeddings",
        dest="embeddings",
        action="store_false",
        help="leave the vectors out (a restore embeds the texts again)",
    )
    p.add_argument("file", nargs="?", help="the file to write (default: standard output)")
    p.add_argument("--yes", action="store_true", help="overwrite FILE when it exists")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("reviews", help="pairs waiting for the app's decision")
    p.add_argument("--user", required=True, help="whose review queue")
    p.add_argument(
        "--resolve",
        nargs=2,
        metavar=("MEMORY_ID", "DECISION"),
        help="settle a review: "
        + ", ".join(REVIEW_DECISIONS)
        + " (conflict settles a review flagged as a conflict)",
    )
    p.set_defaults(func=cmd_reviews)
