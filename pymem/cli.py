"""The `pymem` command: long-term memory for AI assistants, in PostgreSQL."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pymem import server
from pymem.errors import PymemError
from pymem.review import DECISIONS as REVIEW_DECISIONS
from pymem.wording import counted


def _dsn(args: argparse.Namespace) -> str:
    return server.resolve_dsn(args.dsn)


def _store(args: argparse.Namespace):
    """A store ready for use; the embedded server is migrated on first use."""
    from pymem.migrate import migrate
    from pymem.store import MemoryStore

    dsn = _dsn(args)
    if server.uses_embedded(args.dsn):
        migrate(dsn)  # a person trying pymem should not need a second command
    return MemoryStore(dsn)


def _embedded_store(
    args: argparse.Namespace, text: str, what: str, user_id: str | None = None, kind=None
):
    """A store and the bundled embedder, once the store has taken ``text`` as it would
    take a memory's content, and the user and kind when given (an empty or oversized
    text, an empty user or an unknown kind is refused before the embedder loads)."""
    from pymem.embedder import default_embedder

    store = _store(args)
    try:
        store.check_contents([text], [what], user_id=user_id, kind=kind)
        embed = default_embedder()
        embed.configure(store)
    except BaseException:
        store.close()
        raise
    return store, embed


# the names `pymem db` makes a database under: a typo or a pasted fragment of SQL is
# refused, not made into a database
_DATABASE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,62}")


def _db_help(args: argparse.Namespace) -> bool:
    """``pymem db ACTION --help``: the help of ``pymem db`` (psql's own: ``db psql -?``)."""
    first = args.psql_args[:1]
    if first == ["--help"] or (first == ["-h"] and args.action != "psql"):
        _parser()._subparsers._group_actions[0].choices["db"].print_help()
        return True
    return False


def cmd_db(args: argparse.Namespace) -> int:
    if _db_help(args):
        return 0
    if args.action == "psql":
        return _psql(args)
    if args.psql_args:
        # options after the action ("pymem db url --database toy"): only --database
        after = argparse.ArgumentParser(prog=f"pymem db {args.action}", add_help=False)
        after.add_argument("--database")
        after.add_argument("--dsn")
        parsed, unknown = after.parse_known_args(args.psql_args)
        if unknown:
            print(f"pymem db {args.action}: unexpected arguments {unknown}", file=sys.stderr)
            return 2
        args.database = parsed.database or args.database
        args.dsn = parsed.dsn or args.dsn
    if (
        args.database is not None
        and args.action in ("start", "url")
        and server.named_dsn(args.dsn) is None
        and not _DATABASE_NAME.fullmatch(args.database)
    ):
        print(
            f"pymem db {args.action}: {args.database!r} is not a database name pymem makes "
            "(a letter or _, then letters, digits, _ or -; at most 63)",
            file=sys.stderr,
        )
        return 2
    # a store named by --dsn (or PYMEM_DSN), as `pymem db psql` reads it: its server is
    # not the embedded one, which url must not start nor name
    named = server.named_dsn(args.dsn) is not None
    if named and args.action == "url":
        from psycopg.conninfo import make_conninfo

        dsn = server.resolve_dsn(args.dsn)
        print(make_conninfo(dsn, dbname=args.database) if args.database else dsn)
        return 0
    if named and args.action in ("start", "stop", "status"):
        # stop under --dsn stopped the embedded server (which other sessions may use)
        print(
            f"pymem db {args.action}: acts on the embedded server, and --dsn (or PYMEM_DSN)"
            f" names another; leave it out to {args.action} the embedded one",
            file=sys.stderr,
        )
        return 2
    if args.action == "start":
        print(server.start_embedded(database=args.database or server.DATABASE))
    elif args.action == "stop":
        print("stopped" if server.stop_embedded() else "not running")
    elif args.action == "status":
        status = server.embedded_status()
        for key, value in status.items():
            print(f"{key}: {value}")
        return 0 if status["running"] else 3
    elif args.action == "url":
        print(server.start_embedded(database=args.database or server.DATABASE))
    return 0


def psql_path() -> str:
    """The psql that ships with the embedded server."""
    embedded = server._embedded()
    return str(embedded._commands.POSTGRES_BIN_PATH / "psql")


def _psql(args: argparse.Namespace) -> int:
    """psql on the store: --dsn, PYMEM_DSN, or the embedded server's --database."""
    import subprocess

    extra = list(args.psql_args)
    database = args.database
    # `pymem db psql --database NAME ...`: psql's arguments follow ours
    while extra[:1] and extra[0].startswith("--database"):
        option = extra.pop(0)
        if "=" in option:
            database = option.split("=", 1)[1]
        elif extra:
            database = extra.pop(0)
    if extra[:1] == ["--"]:
        extra = extra[1:]
    if server.named_dsn(args.dsn) is not None:
        dsn = server.resolve_dsn(args.dsn)
        if database:
            from psycopg.conninfo import make_conninfo

            dsn = make_conninfo(dsn, dbname=database)
    else:
        dsn = server.start_embedded()
        if database and database != server.DATABASE:
            import psycopg

            dsn = server.database_uri(dsn, database)
            with psycopg.connect(server.database_uri(dsn, "postgres")) as conn:
                found = conn.execute(
                    "SELECT 1 FROM pg_database WHERE datname = %s", (database,)
                ).fetchone()
            if found is None:  # psql does not make databases, nor does this
                print(
                    f"pymem db psql: the embedded server has no database {database!r}; "
                    f"`pymem db start --database {database}` makes one",
                    file=sys.stderr,
                )
                return 2
    return subprocess.run([psql_path(), "-d", dsn, *extra], check=False).returncode


def cmd_migrate(args: argparse.Namespace) -> int:
    from pymem.migrate import migrate, migration_states

    if args.list:
        # listing changes nothing: an option that would is refused, not ignored
        given = [
            f"--{name}"
            for name in ("rollback", "dimensions", "partitions", "citus", "shards", "yes")
            if getattr(args, name) not in (None, False)
        ]
        if given:
            print(f"pymem migrate: --list changes nothing; leave out {', '.join(given)}",
                  file=sys.stderr)  # fmt: skip
            return 2
    dsn = _dsn(args)
    if args.list:
        for state in migration_states(dsn):
            print(f"{'applied' if state.applied else 'pending'}  {state.id}")
        return 0
    if args.rollback and not _rollback_confirmed(dsn, args.yes):
        return 2
    result = migrate(
        dsn,
        dimensions=args.dimensions,
        rollback=args.rollback,
        partitions=args.partitions,
        citus=args.citus,
        shard_count=args.shards,
    )
    if args.rollback:
        print(f"rolled back: {', '.join(result.rolled_back) or 'nothing to roll back'}")
    else:
        print(
            f"applied: {', '.join(result.applied) or 'nothing new'}; "
            f"functions loaded from {result.functions_loaded} files"
            + (f"; embedding dimensions {result.dimensions}" if result.dimensions else "")
        )
        for table, leaves, rows in result.partitioned:
            print(f"partitioned pymem.{table}: {leaves} leaves by user_id, {rows} rows moved")
        tables = [(name, how) for name, kind, how in result.distributed if kind == "table"]
        for name, how in tables:
            print(f"citus: {name} {how}")
        functions = sum(kind == "function" for _, kind, _ in result.distributed)
        if functions:
            print(f"citus: {functions} functions delegated by user_id to the user's worker")
        _report_unrepaired(dsn)
    return 0


# What `pymem migrate` leaves for `pymem check` to find, and why. sql/ (functions,
# triggers, grants, the role and its policies) is loaded again by every migrate, so a
# difference there left after one means this installation's sql/ and its shipped
# snapshot disagree; what only a migration makes is never made twice.
_LOADED_FROM_SQL = ("function", "trigger", "grant", "policy", "role")
_WHY_NOT_REPAIRED = {
    ("missing", False): "a migration made it and migrations run once: re-create it as the "
    "owner (an index or constraint: its definition is on this line), or restore it from a "
    "backup",
    ("unexpected", False): "pymem did not make it and leaves it alone: drop or change it "
    "yourself if it should not be there",
    ("missing", True): "this installation's sql/ does not make it: reinstall pymem",
    ("unexpected", True): "not in this release: a function of yours in schema pymem is "
    "dropped by migrate unless something depends on it; otherwise reinstall pymem",
}
# where the reason depends on what kind of object it is
_WHY_NOT_REPAIRED_BY_SECTION = {
    ("unexpected", "grant"): "a privilege beyond this release's: migrate grants what is "
    "missing and takes nothing away, so REVOKE it yourself if it should not be there",
    ("unexpected", "policy"): "a policy pymem did not make, on a table of users' rows: a "
    "permissive one widens what pymem_app sees; drop it yourself if it should not be there",
    ("unexpected", "role"): "migrate does not change the role's attributes: ALTER ROLE "
    "pymem_app NOSUPERUSER NOBYPASSRLS, or row security does not hold for it",
    ("missing", "role"): "migrate does not change the role's attributes: ALTER ROLE "
    "pymem_app NOSUPERUSER NOBYPASSRLS, or row security does not hold for it",
}


def _report_unrepaired(dsn: str) -> None:
    """After a migrate, every difference from this release that is still there, with why."""
    import psycopg

    from pymem.migrate import citus_state
    from pymem.snapshot import drift

    with psycopg.connect(dsn) as conn:
        if citus_state(conn) == "distributed":
            return  # a distributed store adds Citus's own objects: docs/operations.md
        differences = drift(conn)
    for line in differences:
        how, rest = line.split(maxsplit=1)
        section = rest.split(":", 1)[0]
        why = _WHY_NOT_REPAIRED_BY_SECTION.get(
            (how, section), _WHY_NOT_REPAIRED[how, section in _LOADED_FROM_SQL]
        )
        print(f"not repaired: {line}; {why}", file=sys.stderr)


def cmd_extension(args: argparse.Namespace) -> int:
    from pymem import extension

    if args.extension_action == "files":
        for path in extension.write_files(Path(args.out)):
            print(path)
        return 0
    sys.stdout.write(extension.tle_script())
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """0: the store is what this release installs; 1: it differs (each difference
    printed); 2: no connection (main's handler), or a store distributed with Citus."""
    import psycopg

    from pymem.migrate import citus_state, shipped_schema_version
    from pymem.snapshot import _has_schema, drift

    with psycopg.connect(_dsn(args)) as conn:
        if not _has_schema(conn):
            print("no pymem store in this database: `pymem migrate` creates one")
            return 1
        if citus_state(conn) == "distributed":
            print(
                "pymem check: a store distributed with Citus is not compared (Citus adds "
                "objects of its own; docs/operations.md)",
                file=sys.stderr,
            )
            return 2
        differences = drift(conn)
    for line in differences:
        print(line)
    if differences:
        print(
            f"{len(differences)} differences from pymem's schema version "
            f"{shipped_schema_version()}; `pymem migrate` repairs what sql/ defines "
            "(functions, triggers, grants, policies) and names what it cannot",
            file=sys.stderr,
        )
        return 1
    print(f"the store matches this release (schema version {shipped_schema_version()})")
    return 0


# The users' rows in pymem's tables (every table with a user_id, partitions counted by
# their parent), and the objects outside pymem's schemas that depend on pymem's tables,
# types or functions: DROP SCHEMA ... CASCADE would take them too.
_ROLLBACK_LOSSES = """
WITH pymem AS (
    SELECT oid FROM pg_namespace WHERE nspname IN ('pymem', 'pymem_citus')
),
theirs AS (
    SELECT 'pg_class'::regclass AS cls, oid FROM pg_class
    WHERE relnamespace = 'pymem'::regnamespace
    UNION ALL
    SELECT 'pg_type'::regclass, oid FROM pg_type WHERE typnamespace = 'pymem'::regnamespace
    UNION ALL
    SELECT 'pg_proc'::regclass, oid FROM pg_proc WHERE pronamespace = 'pymem'::regnamespace
)
SELECT
    -- names, not regclass text: that drops the schema when pymem is on the search_path
    array(
        SELECT c.relname::text FROM pg_class AS c
        JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attname = 'user_id'
            AND NOT a.attisdropped
        WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind IN ('r', 'p')
            AND NOT c.relispartition
        ORDER BY 1
    ),
    array(
        SELECT DISTINCT w.label FROM pg_depend AS d
        JOIN theirs AS t ON d.refclassid = t.cls AND d.refobjid = t.oid
        -- a rule, policy, trigger, default or key belongs to its relation
        LEFT JOIN LATERAL (
            SELECT o.refobjid AS relid FROM pg_depend AS o
            WHERE o.classid = d.classid AND o.objid = d.objid
                AND o.refclassid = 'pg_class'::regclass AND o.deptype IN ('a', 'i')
            LIMIT 1
        ) AS owner ON TRUE
        CROSS JOIN LATERAL (
            SELECT
                coalesce(
                    (SELECT c.relnamespace FROM pg_class AS c WHERE c.oid = owner.relid),
                    (SELECT n.oid FROM pg_namespace AS n
                     WHERE n.nspname = (pg_identify_object(d.classid, d.objid, 0)).schema)
                ) AS nsp,
                -- a view is named, not its rule
                CASE WHEN d.classid = 'pg_rewrite'::regclass
                    THEN pg_describe_object('pg_class'::regclass, owner.relid, 0)
                    ELSE pg_describe_object(d.classid, d.objid, 0)
                END AS label
        ) AS w
        WHERE d.deptype = 'n' AND w.nsp IS DISTINCT FROM NULL
            AND w.nsp NOT IN (SELECT oid FROM pymem)
            -- a key into a partitioned table is one key, not one per partition
            AND NOT EXISTS (
                SELECT FROM pg_constraint AS k
                WHERE d.classid = 'pg_constraint'::regclass AND k.oid = d.objid
                    AND k.conparentid <> 0
            )
        ORDER BY 1
    )
"""


def _rollback_confirmed(dsn: str, yes: bool) -> bool:
    """A rollback drops pymem's schema with every row in it, and whatever outside it
    depends on it: ask first (or need --yes) when there are users' rows or such objects."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(dsn, autocommit=True) as conn:
        if conn.execute("SELECT to_regnamespace('pymem') IS NULL").fetchone()[0]:
            return True
        tables, dependents = conn.execute(_ROLLBACK_LOSSES).fetchone()
        rows = {}
        for name in tables:
            count = conn.execute(
                sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier("pymem", name))
            ).fetchone()[0]
            if count:
                rows[name] = count
        users = 0
        if rows:
            users = conn.execute(
                sql.SQL("SELECT count(DISTINCT user_id) FROM ({}) AS u").format(
                    sql.SQL(" UNION ALL ").join(
                        sql.SQL("SELECT user_id FROM {}").format(sql.Identifier("pymem", name))
                        for name in rows
                    )
                )
            ).fetchone()[0]
    if yes or not (rows or dependents):
        return True
    lost = []
    if rows:
        memories = rows.get("memories", 0)
        others = ", ".join(f"{n} {name}" for name, n in rows.items() if name != "memories")
        lost.append(
            f"{counted(memories, 'memory', 'memories')} of {counted(users, 'user')}"
            + (f" and {others} rows" if others else "")
            if memories
            else f"rows of {counted(users, 'user')} ({others})"
        )
    if dependents:
        lost.append(
            f"{len(dependents)} objects outside pymem that depend on it ({', '.join(dependents)})"
        )
    what = "; ".join(lost)
    if not sys.stdin.isatty():
        print(
            f"pymem migrate --rollback: the store holds {what}; "
            "add --yes to drop them (nothing was changed)",
            file=sys.stderr,
        )
        return False
    answer = input(f"Roll back pymem and drop {what}? Type 'yes' to confirm: ")
    if answer.strip().lower() != "yes":
        print("rollback cancelled", file=sys.stderr)
        return False
    return True


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
    options = {"query_text": args.query, "filter": wanted, "sources": args.source}
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
        print(f"{h.score:6.3f} {h.similarity:6.3f} {h.decay_score:8.3f}  {h.kind:<10} {h.content}")
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


def cmd_bench(args: argparse.Namespace) -> int:
    if args.which in (None, "all"):
        from pymem.bench.all import main as all_main

        return all_main(args.dsn, quick=args.quick, as_json=args.json, out_dir=args.out)
    if args.which == "peers" and not args.out:
        # against mem0 (the optional extra pymem[peers]); not part of the run of all
        from pymem.bench.peers import main as peers_main

        return peers_main(args.dsn, quick=args.quick, as_json=args.json)
    if args.json or args.out:
        print(
            "pymem bench: --json is for the run of all and peers, --out for the run of all",
            file=sys.stderr,
        )
        return 2
    if args.which == "upsert":
        from pymem.bench.upsert import main as bench_main
    elif args.which == "consolidate":
        from pymem.bench.consolidate import main as bench_main
    elif args.which == "import":
        from pymem.bench.importing import main as bench_main
    elif args.which == "partitions":
        from pymem.bench.partitions import main as bench_main
    elif args.which == "locality":
        from pymem.bench.locality import main as bench_main
    else:
        from pymem.bench.recall import main as bench_main
    if args.dimensions is not None:
        if args.which not in ("recall", "upsert", "import"):
            print("pymem bench: --dimensions is for recall, upsert and import", file=sys.stderr)
            return 2
        if not 1 <= args.dimensions <= 16000:
            print("pymem bench: --dimensions must be between 1 and 16000", file=sys.stderr)
            return 2
        return bench_main(args.dsn, quick=args.quick, dimensions=args.dimensions)
    return bench_main(args.dsn, quick=args.quick)


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
        if o.state == "taken":
            print(
                f"pymem review: review {r.review_id}: the claim ran out and another reviewer "
                f"took it ({o.error})",
                file=sys.stderr,
            )
        elif o.state == "stale":
            print(
                f"pymem review: review {r.review_id}: the pair changed while the judge read "
                f"it; given back to be judged again, nothing counted ({o.error})",
                file=sys.stderr,
            )
        elif o.state == "failed":
            print(
                f"pymem review: review {r.review_id}: the judge failed, nothing recorded "
                f"(dry run): {o.error}",
                file=sys.stderr,
            )
        elif o.state == "parked":
            print(
                f"pymem review: review {r.review_id} parked after {o.attempts} failed attempts "
                f"(pymem review --user {r.user_id} --unpark puts it back): {o.error}",
                file=sys.stderr,
            )
        else:  # retry
            again = (
                f"back in the queue, due again in {o.retry_after:g} s"
                if args.once or args.dry_run
                else f"retried in {o.retry_after:g} s"
            )
            print(
                f"pymem review: review {r.review_id} failed (attempt {o.attempts}, {again}): "
                f"{o.error}",
                file=sys.stderr,
            )

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


# -- facts ----------------------------------------------------------------


def _fact_value(text: str):
    """VALUE on the command line: JSON when it parses (42, true, {"a": 1}), else a string."""
    import json

    try:
        return json.loads(text)
    except ValueError:
        return text


# JSON leaves DEL and the C1 controls raw, which the terminal escaping would then write as
# \xNN, not JSON: written as \u escapes here, the value prints as valid JSON
_JSON_CONTROLS = {c: f"\\u{c:04x}" for c in (0x7F, *range(0x80, 0xA0))}


def _show(value) -> str:
    import json

    return json.dumps(value, ensure_ascii=False).translate(_JSON_CONTROLS)


def cmd_facts(args: argparse.Namespace) -> int:
    if args.facts_action == "policy":  # the store's, not a user's: no --user
        with _store(args) as store:
            stored = store.set_fact_policy(
                args.key_pattern, None if args.policy == "none" else args.policy
            )
        print(f"{args.key_pattern}: {stored or 'no policy (latest_wins)'}")
        return 0
    if not _needs_user(args):
        return 2
    store = _store(args)
    with store:
        if args.facts_action == "set":
            action = store.set_fact(
                args.user,
                args.key,
                _fact_value(args.value),
                confidence=args.confidence,
                scope=args.scope,
                source=args.source,
            )
            now = _show(store.get_fact(args.user, args.key))
            print(f"{action}: {args.key} ({args.scope}) = {now}")
            return 0
        if args.facts_action == "history":
            rows = store.fact_history(args.user, args.key)
            if not rows:
                print(f"no fact {args.key}")
            for h in rows:
                until = f" -> {h.replaced_at:%Y-%m-%d %H:%M:%S}" if h.replaced_at else " -> now"
                print(
                    f"{h.scope:<6} {h.reason:<9} {_show(h.value)}  (confidence {h.confidence:.2f},"
                    f" {h.source}, {h.set_at:%Y-%m-%d %H:%M:%S}{until})"
                )
            return 0
        facts = store.current_facts(args.user)
        conflicts = store.pending_conflicts(args.user)
    if not facts:
        print("no facts")
    for f in facts:
        flag = "  [conflict pending]" if f.conflict_pending else ""
        print(f"{f.key} ({f.scope}) = {_show(f.value)}  {f.confidence:.2f} {f.source}{flag}")
    if conflicts:
        print("pending conflicts:")
    for c in conflicts:
        if c.cause == "fact":
            print(
                f"  {c.fact_key} ({c.scope}): {_show(c.value)} ({c.confidence:.2f}, {c.source})"
                f" vs {_show(c.candidate_value)} ({c.candidate_confidence:.2f},"
                f" {c.candidate_source})"
            )
        else:
            print(f"  memories {c.memory_id} vs {c.other_id}: {c.note or ''}")
    return 0


def _user_option(command: argparse.ArgumentParser, verbs: list[argparse.ArgumentParser]) -> None:
    """``--user`` before or after a command's verb (``contacts --user mei card X`` and
    ``contacts card --user mei X``): one convention for every command with verbs."""
    command.add_argument("--user", help="whose data (required)")
    for verb in verbs:
        # SUPPRESS: not given after the verb, the value before it stays
        verb.add_argument("--user", default=argparse.SUPPRESS, help="whose data (required)")


def _needs_user(args: argparse.Namespace) -> bool:
    if args.user and args.user.strip():
        return True
    print(f"pymem {args.command}: --user is required", file=sys.stderr)
    return False


def _add_facts_parser(sub) -> None:
    p = sub.add_parser(
        "facts", help="structured facts: list, set, history, policy", description=_FACTS_DESCRIPTION
    )
    p.set_defaults(func=cmd_facts, facts_action="list")
    actions = p.add_subparsers(dest="facts_action")
    s = actions.add_parser("set", help="set a fact; VALUE is JSON when it parses, else a string")
    s.add_argument("--confidence", default="medium", help="high, medium, low or 0..1")
    s.add_argument(
        "--scope",
        default="habit",
        choices=["habit", "state"],
        help="habit (lasting) or state (temporary)",
    )
    s.add_argument("--source", default="stated", help="inferred, stated or confirmed")
    s.add_argument("key", help="the fact's key, e.g. user_city")
    s.add_argument("value", help="JSON when it parses (42, true, {...}), else a string")
    h = actions.add_parser("history", help="every value a fact has had")
    h.add_argument("key", help="the fact's key")
    _user_option(p, [s, h])
    policy = actions.add_parser(
        "policy",
        help="how a disagreeing value of the keys matching a pattern is settled, for every "
        "user (the store's owner only)",
    )
    policy.add_argument("key_pattern", help="a key, or a pattern where * matches (likes_*)")
    policy.add_argument(
        "policy",
        choices=["latest_wins", "confirm", "none"],
        help="latest_wins: the newer value replaces; confirm: it waits as a conflict for the "
        "user; none: remove the pattern",
    )


_FACTS_DESCRIPTION = (
    'A user\'s structured facts (user_city = "Shanghai"): list them with their pending '
    "conflicts, set one, or show every value one has had; `facts policy` sets how the store "
    "settles a disagreeing value of some keys (confirm: it waits as a conflict)."
)


# -- contacts ------------------------------------------------------------------


def cmd_contacts(args: argparse.Namespace) -> int:
    if not _needs_user(args):
        return 2
    user = args.user
    store = _store(args)
    with store:
        if args.action == "card":
            print(store.contact_card(user, args.name, max_chars=args.max_chars))
            return 0
        people = store.recent_contacts(user, k=args.limit)
    if not people:
        print("no contacts")
        return 0
    for person in people:
        when = person.last_mentioned_at
        seen = when.strftime("%Y-%m-%d %H:%M") if when else "never"
        relationship = f" ({person.relationship})" if person.relationship else ""
        print(f"{seen:<16}  {person.name}{relationship}")
    return 0


def _add_contacts_parser(sub) -> None:
    p = sub.add_parser(
        "contacts",
        help="people in a user's life: list them, or `card NAME`",
        description="The people in a user's life, most recently mentioned first, or one "
        "person's card (what the assistant knows of them, for a prompt).",
    )
    p.add_argument("--limit", type=int, default=100, help="at most this many people")
    p.set_defaults(func=cmd_contacts, action="list")
    actions = p.add_subparsers(dest="action")
    card = actions.add_parser("card", help="print a person's card")
    card.add_argument("--max-chars", type=int, default=600, help="card length in characters")
    card.add_argument("name", help="the person: name, alias or id")
    _user_option(p, [card])


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

    from pymem.eval import evaluate, format_report

    result = evaluate(args.dsn, args.dataset, database=args.database, yes=args.yes)
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


def _model_options(
    p: argparse.ArgumentParser, model_env: str, url_flag: str = "--base-url", url_help: str = ""
) -> None:
    """The options of a command that asks a model (an OpenAI-compatible endpoint)."""
    default_help = "the API root, e.g. http://localhost:11434/v1 (default: OPENAI_BASE_URL)"
    p.add_argument(url_flag, dest="base_url", metavar="URL", help=url_help or default_help)
    p.add_argument("--model", help=f"the model (or Azure deployment; default: {model_env})")
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        metavar="NAME",
        help="the environment variable holding the key (default OPENAI_API_KEY; unset: no key)",
    )
    p.add_argument(
        "--auth-header",
        default="Authorization",
        help="the key's header: Authorization (Bearer, default) or api-key (Azure)",
    )
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per model call (60)")
    p.add_argument(
        "--schema-in-prompt",
        action="store_true",
        help="for a server without structured output: the answer's schema in the prompt",
    )


def _model_client(args: argparse.Namespace, cls: type, model_env: str, command: str) -> Any:
    """The client of the model the options name, or None once the refusal is printed."""
    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL")
    model = args.model or os.environ.get(model_env)
    if not base_url or not model:
        print(
            f"pymem {command}: --base-url and --model are required (or OPENAI_BASE_URL and "
            f"{model_env})",
            file=sys.stderr,
        )
        return None
    try:
        return cls(
            base_url,
            model,
            api_key_env=args.api_key_env,
            timeout=args.timeout,
            auth_header=args.auth_header,
        )
    except (ValueError, ImportError) as exc:  # a bad URL; no httpx (pymem[llm])
        print(f"pymem {command}: {exc}", file=sys.stderr)
        return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pymem", description=__doc__)
    parser.add_argument("--dsn", help="PostgreSQL DSN (default: PYMEM_DSN, else embedded)")
    sub = parser.add_subparsers(dest="command", required=True)

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

    p = sub.add_parser(
        "db",
        help="the embedded PostgreSQL server: start, stop, status, url, psql",
        description="The embedded PostgreSQL server. `pymem db psql` opens psql on the store "
        "(--dsn, PYMEM_DSN or the embedded server); arguments after it go to psql (its own "
        "help: pymem db psql -?). start and url make the --database they name; psql only "
        "opens one that exists.",
    )
    p.add_argument(
        "action",
        choices=["start", "stop", "status", "url", "psql"],
        help="start or stop the server, show its status, print a DSN, or open psql",
    )
    p.add_argument(
        "--database",
        help=f"database for url, start and psql (default {server.DATABASE} on the embedded "
        "server; with --dsn, another database on that server)",
    )
    p.add_argument(
        "psql_args", nargs=argparse.REMAINDER, help="psql only: arguments passed to psql"
    )
    p.set_defaults(func=cmd_db)

    p = sub.add_parser("migrate", help="apply, list or roll back the schema")
    p.add_argument("--dimensions", type=int, help="embedding dimension of a new store")
    p.add_argument("--list", action="store_true", help="show applied and pending migrations")
    p.add_argument(
        "--partitions",
        type=int,
        metavar="N",
        help="hash-partition users' tables by user_id into N leaves (copies every row under "
        "an exclusive lock: for a new store or a maintenance window; docs/scaling.md)",
    )
    p.add_argument(
        "--citus",
        action="store_true",
        help="distribute the store by user_id over the Citus cluster the DSN's coordinator "
        "runs: a new store, or a plain one converted (docs/scaling.md)",
    )
    p.add_argument(
        "--shards",
        type=int,
        metavar="N",
        help="with --citus: the number of shards (default: Citus's citus.shard_count, 32)",
    )
    p.add_argument(
        "--rollback",
        action="store_true",
        help="remove everything pymem created, memories included (asks first, see --yes)",
    )
    p.add_argument(
        "--yes", action="store_true", help="with --rollback: drop a store that holds memories"
    )
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser(
        "extension",
        help="pymem as a PostgreSQL extension: write its files (CREATE EXTENSION pymem), "
        "or print its pg_tle install for managed services (docs/operations.md)",
    )
    actions = p.add_subparsers(dest="extension_action", required=True)
    f = actions.add_parser(
        "files",
        help="write the control file, META.json and the install and update scripts into "
        "DIR (then copy them into $(pg_config --sharedir)/extension, or run make install)",
    )
    f.add_argument("--out", required=True, metavar="DIR", help="directory to write into")
    actions.add_parser(
        "tle",
        help="print the pg_tle calls that install this release where only SQL reaches "
        "(Amazon RDS and Aurora, Supabase): run them with psql",
    )
    p.set_defaults(func=cmd_extension)

    p = sub.add_parser(
        "check",
        help="compare the store with what this release installs (exit 1 on drift)",
        description="Compares the store's catalog with a fresh install of this release: "
        "tables, columns, constraints, indexes, triggers, the app role, its policies and "
        "grants, functions (bodies included) and the recorded migrations. Prints each "
        "difference on its own line (missing: the release has it, the store does not; "
        "unexpected: the other way). Exit 0 when they match, 1 on drift, 2 when it cannot "
        "connect. Reads the catalog only.",
    )
    p.set_defaults(func=cmd_check)

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

    _add_review_parser(sub)
    _add_worker_parser(sub)
    _add_mcp_parser(sub)

    _add_facts_parser(sub)

    _add_contacts_parser(sub)

    _add_report_parser(sub)

    _add_eval_parser(sub)
    for choice in sub._choices_actions:
        # `pymem X --help` says what X is for, as `pymem --help` does
        command = sub.choices[choice.dest]
        command.description = command.description or f"{choice.help[0].upper()}{choice.help[1:]}."
    _dsn_anywhere(sub)
    return parser


def _dsn_anywhere(sub: argparse._SubParsersAction) -> None:
    """``--dsn`` after the command too (``pymem recall --user ann "x" --dsn ...``), as
    ``--user`` goes anywhere: given there, it wins over one before the command."""
    for command in sub.choices.values():
        if "--dsn" not in command._option_string_actions:
            command.add_argument(
                "--dsn", default=argparse.SUPPRESS, help="PostgreSQL DSN, as before the command"
            )
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                _dsn_anywhere(action)


def _database_error(exc: Exception) -> str:
    """A driver error as one line: its first line, code, DETAIL and HINT."""
    import psycopg

    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    if isinstance(exc, psycopg.OperationalError) and getattr(exc, "sqlstate", None) is None:
        # no server answered: the first line names the host and what failed
        return (
            f"cannot connect to PostgreSQL: {text.removeprefix('connection failed: ')}"
            "; check --dsn or PYMEM_DSN (without either, pymem starts its embedded server)"
        )
    diag = getattr(exc, "diag", None)
    if getattr(exc, "sqlstate", None):
        text += f" [{exc.sqlstate}]"
    if diag is not None and diag.message_detail:
        text += f"; {diag.message_detail}"
    if diag is not None and diag.message_hint:
        text += f"; hint: {diag.message_hint}"
    return " ".join(text.split())


# Control characters a stored text may hold (BEL, ESC[31m, a carriage return that
# overwrites the line) are printed as escapes, never sent to the terminal raw; stderr
# keeps \r for the progress bar, which pymem writes itself.
_ESCAPED = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
for _kept in ("\n", "\t"):
    del _ESCAPED[ord(_kept)]
_ESCAPED_ON_STDERR = {c: e for c, e in _ESCAPED.items() if c != ord("\r")}


class _Escaping:
    """A text stream that writes control characters as ``\\xNN``."""

    def __init__(self, stream, table: dict[int, str]) -> None:
        self._stream, self._table = stream, table

    def write(self, text: str) -> int:
        return self._stream.write(text.translate(self._table))

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _connection_lost(args: argparse.Namespace) -> str:
    """What to do when the connection broke: the embedded server may have been stopped."""
    if not server.uses_embedded(args.dsn) or server.embedded_status()["running"]:
        return ""
    return "; the embedded server is not running (pymem db stop?): `pymem db start` starts it"


_PARSER: argparse.ArgumentParser | None = None


def _parser() -> argparse.ArgumentParser:
    """build_parser(), once a process: adding its commands and options takes 10 ms, and a
    process may run many commands (the tests and the README's walkthrough run them in
    process, 230 a run of the suite)."""
    global _PARSER
    if _PARSER is None:
        _PARSER = build_parser()
    return _PARSER


def main(argv: Sequence[str] | None = None) -> int:
    import psycopg

    from pymem.errors import ConnectionLost

    args = _parser().parse_args(argv)
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Escaping(stdout, _ESCAPED), _Escaping(stderr, _ESCAPED_ON_STDERR)
    try:
        return args.func(args)
    except ConnectionLost as exc:
        print(f"pymem: {exc.one_line()}{_connection_lost(args)}", file=sys.stderr)
        return 2
    except PymemError as exc:
        print(f"pymem: {exc.one_line()}", file=sys.stderr)
        return 2
    except psycopg.Error as exc:
        print(f"pymem: {_database_error(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # what a command did before Ctrl-C was committed or rolled back by its own
        # transactions; a command with more to say (import, review) catches it itself
        print(f"\npymem {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        sys.stdout, sys.stderr = stdout, stderr


if __name__ == "__main__":
    sys.exit(main())
