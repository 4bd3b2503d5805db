"""What a store's schema is, from its catalog, and how it differs from this release's.

``schema_snapshot(conn)`` describes the store ``conn`` is connected to, one
sorted line per object of schema pymem: every table with its columns (type,
nullability, default, generation, storage), constraints, indexes, RLS and
policies, triggers, composite types, whether the role pymem_app exists and
its privileges, every function's signature, result, language, volatility,
security, pinned settings and a hash of its body, the schema version, and
the shipped migrations yoyo records as applied. It describes the logical
schema: a store hash-partitioned by user_id (``pymem migrate --partitions``)
has the same snapshot as a plain one (a parent stands for its leaves, whose
storage options it shows; tests/test_partitions.py checks the leaves), and
a store whose extensions live in another schema the same as one where they
are in public.

``pymem/data/schema_snapshot.txt`` is the snapshot of a fresh install of this
release; ``drift(conn)`` compares a store with it (``pymem check``). Every
definition is compared as PostgreSQL prints it, and the shipped schema is
written so that a dump's round trip prints it the same (migration 0021,
tests/test_backup.py): a restored store shows no drift.

Regenerate the shipped snapshot after a migration or a change in sql/::

    python -m pymem.snapshot --fresh --write pymem/data/schema_snapshot.txt

(migrates a new database on the embedded server, or on ``--dsn``'s server,
and drops it afterwards). Without ``--fresh`` it describes the store at
``--dsn`` (or the embedded server's default store).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import uuid
from pathlib import Path

import psycopg
from psycopg.conninfo import make_conninfo

_QUERIES: dict[str, str] = {
    "table": """
        SELECT format('%s kind=%s rls=%s force=%s options=%s', c.relname,
                      translate(c.relkind::text, 'p', 'r'), c.relrowsecurity,
                      c.relforcerowsecurity, coalesce(c.reloptions, (
                          SELECT l.reloptions FROM pg_inherits AS i
                          JOIN pg_class AS l ON l.oid = i.inhrelid
                          WHERE i.inhparent = c.oid ORDER BY l.relname LIMIT 1
                      ), '{}'))
        FROM pg_class AS c
        WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
            AND NOT c.relispartition
    """,
    "column": """
        SELECT format('%s.%s %s%s%s%s%s storage=%s', c.relname, a.attname,
                      format_type(a.atttypid, a.atttypmod),
                      CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
                      CASE WHEN a.attgenerated = 's'
                           THEN ' generated ' || pg_get_expr(d.adbin, d.adrelid)
                           WHEN d.adbin IS NOT NULL
                           THEN ' default ' || pg_get_expr(d.adbin, d.adrelid) ELSE '' END,
                      CASE a.attidentity WHEN 'a' THEN ' identity always'
                           WHEN 'd' THEN ' identity by default' ELSE '' END,
                      CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation
                           THEN ' collate ' || a.attcollation::regcollation ELSE '' END,
                      a.attstorage)
        FROM pg_attribute AS a
        JOIN pg_class AS c ON c.oid = a.attrelid
        JOIN pg_type AS t ON t.oid = a.atttypid
        LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'c')
            AND NOT c.relispartition AND a.attnum > 0 AND NOT a.attisdropped
    """,
    "constraint": """
        -- NOT VALID is a state, not the schema: partitioning copies every row
        -- through the check, and a DBA may VALIDATE it any time
        SELECT format('%s %s %s', c.conrelid::regclass, c.conname,
                      replace(pg_get_constraintdef(c.oid), ' NOT VALID', ''))
        FROM pg_constraint AS c
        JOIN pg_class AS t ON t.oid = c.conrelid
        WHERE c.connamespace = 'pymem'::regnamespace AND c.conrelid <> 0
            AND c.contype <> 'n'  -- NOT NULL: a column property (a constraint since PG 18)
            AND NOT t.relispartition AND c.conparentid = 0
    """,
    "index": """
        SELECT replace(pg_get_indexdef(i.indexrelid), ' ON ONLY ', ' ON ')
        FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
        JOIN pg_class AS t ON t.oid = i.indrelid
        WHERE c.relnamespace = 'pymem'::regnamespace AND NOT t.relispartition
    """,
    "policy": """
        SELECT format('%s %s cmd=%s roles=%s using=%s check=%s', p.tablename, p.policyname,
                      p.cmd, p.roles, p.qual, p.with_check)
        FROM pg_policies AS p
        JOIN pg_class AS c ON c.relname = p.tablename AND c.relnamespace = 'pymem'::regnamespace
        WHERE p.schemaname = 'pymem' AND NOT c.relispartition
    """,
    "trigger": """
        SELECT pg_get_triggerdef(t.oid)
        FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
        WHERE c.relnamespace = 'pymem'::regnamespace AND NOT t.tgisinternal
            AND t.tgparentid = 0
    """,
    "type": """
        SELECT format('%s kind=%s', t.typname, t.typtype)
        FROM pg_type AS t
        LEFT JOIN pg_class AS c ON c.oid = t.typrelid
        WHERE t.typnamespace = 'pymem'::regnamespace AND t.typelem = 0
            AND (c.relkind IS NULL OR c.relkind = 'c')
    """,
    # a role that may bypass row security sees every user's rows
    "role": """
        SELECT format('%s superuser=%s bypassrls=%s', rolname, rolsuper, rolbypassrls)
        FROM pg_roles WHERE rolname = 'pymem_app'
    """,
    "grant": """
        SELECT format('%s %s', c.relname, array_to_string(ARRAY(
                   SELECT p FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) AS p
                   WHERE has_table_privilege(r.app, c.oid, p)), ','))
        FROM pg_class AS c
            CROSS JOIN (SELECT (SELECT oid FROM pg_roles WHERE rolname = 'pymem_app') AS app) AS r
        WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind IN ('r', 'p', 'v')
            AND NOT c.relispartition
    """,
    "function": """
        SELECT format('%s returns %s %s %s%s%s kind=%s config=%s app=%s public=%s',
                      p.oid::regprocedure, pg_get_function_result(p.oid), l.lanname,
                      CASE p.provolatile WHEN 'i' THEN 'immutable' WHEN 's' THEN 'stable'
                           ELSE 'volatile' END,
                      CASE WHEN p.prosecdef THEN ' security definer' ELSE '' END,
                      CASE WHEN p.proisstrict THEN ' strict' ELSE '' END,
                      p.prokind, coalesce(p.proconfig, '{}'),
                      coalesce(has_function_privilege(r.app, p.oid, 'EXECUTE'), false),
                      has_function_privilege('public', p.oid, 'EXECUTE')),
               -- a SQL-standard body (RETURN ...) is kept parsed, its prosrc empty
               coalesce(pg_get_function_sqlbody(p.oid), p.prosrc)
        FROM pg_proc AS p JOIN pg_language AS l ON l.oid = p.prolang
            CROSS JOIN (SELECT (SELECT oid FROM pg_roles WHERE rolname = 'pymem_app') AS app) AS r
        WHERE p.pronamespace = 'pymem'::regnamespace
    """,
    "version": "SELECT version::text FROM pymem.schema_info",
}


def schema_snapshot(conn: psycopg.Connection) -> str:
    """The catalog's description of schema pymem, one sorted line per object.

    Names resolve through the extensions' schemas and the functions' pinned
    path is written with ``<extensions>``, so a store whose pgvector lives in
    schema ``extensions`` has the same snapshot as one where it is in public."""
    from pymem.migrate import extension_schemas, function_search_path

    schemas = extension_schemas(conn)
    lines: list[str] = []
    with conn.transaction():
        conn.execute(f"SET LOCAL search_path = {function_search_path(schemas)}")
        for section, query in _QUERIES.items():
            rows = sorted(_line(row, schemas) for row in conn.execute(query))
            lines += [f"{section}: {row}" for row in rows]
        lines += [f"migration: {m} applied" for m in applied_migrations(conn)]
        dimensions = conn.execute(
            "SELECT embedding_dimensions FROM pymem.settings"
        ).fetchone()  # fmt: skip
    text = "\n".join(lines) + "\n"
    if dimensions:  # a store of 384-d vectors is as much this release's as one of 512
        text = text.replace(f"vector({dimensions[0]})", "vector(<dimensions>)")
    return text.replace(function_search_path(schemas), "pg_catalog, pymem, <extensions>")


def _line(row: tuple, schemas: dict[str, str]) -> str:
    """A catalog row as a snapshot line; a function's body is a hash of its text as
    sql/ wrote it (with ``public.`` where the loader wrote an extension's schema)."""
    if len(row) == 1:
        return row[0]
    line, body = row
    for schema in set(schemas.values()) - {"public"}:
        body = re.sub(rf"(?<![\w.]){re.escape(_quoted(schema))}\.(?=\w)", "public.", body)
    return f"{line} body={hashlib.md5(body.encode()).hexdigest()[:12]}"


def _quoted(name: str) -> str:
    from pymem.migrate import _ident

    return _ident(name)


def applied_migrations(conn: psycopg.Connection) -> list[str]:
    """The shipped migrations yoyo records as applied to this store, in order (those up
    to its level, for a store installed with CREATE EXTENSION pymem). yoyo's
    table lives where its first session created it (public, usually); another app's
    migrations in it are not pymem's and are left out."""
    from pymem.migrate import migrations_dir

    shipped = sorted(p.name.removesuffix(".sql") for p in migrations_dir().glob("[0-9]*.sql")
                     if not p.name.endswith(".rollback.sql"))  # fmt: skip
    installed = conn.execute(
        "SELECT extversion FROM pg_extension WHERE extname = 'pymem'"
    ).fetchone()
    if installed is not None:  # CREATE EXTENSION pymem: its version is its level
        from pymem.extension import level_of

        return [m for m in shipped if int(m.split(".", 1)[0]) <= level_of(installed[0])]
    tables = conn.execute(
        "SELECT c.oid::regclass::text FROM pg_class AS c"
        " WHERE c.relname = '_yoyo_migration' AND c.relkind IN ('r', 'p')"
    ).fetchall()
    applied: set[str] = set()
    for (table,) in tables:
        applied.update(r[0] for r in conn.execute(f"SELECT migration_id FROM {table}"))
    return [m for m in shipped if m in applied]


def migration_checksums() -> list[str]:
    """A line per shipped migration file with its hash. An install that applied
    a migration never runs it again, so a shipped migration must not change
    (a schema change goes in a new one): tests/test_schema.py holds them."""
    from pymem.migrate import migrations_dir

    return [
        f"migration: {p.name} sha256={hashlib.sha256(p.read_bytes()).hexdigest()[:16]}"
        for p in sorted(migrations_dir().glob("[0-9]*.sql"))
    ]


SHIPPED = Path(__file__).resolve().parent / "data" / "schema_snapshot.txt"


def shipped_snapshot() -> str:
    """The snapshot of a fresh install of this release."""
    return SHIPPED.read_text(encoding="utf-8")


def drift(conn: psycopg.Connection) -> list[str]:
    """How the store differs from a fresh install of this release: one line per
    object, ``missing <line>`` for what the release installs and the store lacks,
    ``unexpected <line>`` for what the store has and the release does not (a
    changed definition is both). Empty when they match."""
    expected = shipped_snapshot().splitlines()
    actual = schema_snapshot(conn).splitlines() if _has_schema(conn) else []
    gone = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    return [f"missing    {line}" for line in gone] + [f"unexpected {line}" for line in extra]


def _has_schema(conn: psycopg.Connection) -> bool:
    return conn.execute("SELECT to_regnamespace('pymem') IS NOT NULL").fetchone()[0]


def _fresh_snapshot(admin_dsn: str) -> str:
    from pymem.migrate import migrate

    name = f"pymem_snapshot_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        dsn = make_conninfo(admin_dsn, dbname=name)
        migrate(dsn)
        with psycopg.connect(dsn) as conn:
            return schema_snapshot(conn)
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pymem.snapshot", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--dsn", help="the store to describe (with --fresh: its server)")
    parser.add_argument(
        "--fresh", action="store_true",
        help="describe a fresh install in a new database of the server instead "
        "(this role must be allowed to create databases)",
    )  # fmt: skip
    parser.add_argument("--write", type=Path, help="write the snapshot here instead of stdout")
    args = parser.parse_args(argv)
    from pymem.server import start_embedded

    if args.fresh:
        text = _fresh_snapshot(args.dsn or start_embedded(database="postgres"))
    else:
        with psycopg.connect(args.dsn or start_embedded()) as conn:
            text = schema_snapshot(conn)
    if args.write:
        args.write.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
