"""`pymem db`, `migrate`, `check` and `extension`: the server, the schema and how it
is installed."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from pymem import server
from pymem.cli.common import _dsn
from pymem.wording import counted

_DATABASE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,62}")


def _db_help(args: argparse.Namespace) -> bool:
    """``pymem db ACTION --help``: the help of ``pymem db`` (psql's own: ``db psql -?``)."""
    first = args.psql_args[:1]
    if first == ["--help"] or (first == ["-h"] and args.action != "psql"):
        from pymem.cli import _parser

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
        replaced = extension.files_replaced(Path(args.out))
        if replaced and not args.yes:
            names = ", ".join(p.name for p in replaced)
            print(
                f"pymem extension files: {len(replaced)} files in {args.out} hold other text "
                f"({names}); add --yes to overwrite them (nothing was written)",
                file=sys.stderr,
            )
            return 2
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


def add_parsers(sub) -> None:
    """This group's commands, on the `pymem` parser's subcommands."""
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
    f.add_argument("--yes", action="store_true", help="overwrite files there that differ")
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
