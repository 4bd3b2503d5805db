"""The pymem schema as text, from the catalog: what a migration must not drift.

``schema_snapshot(conn)`` lists, sorted, every table of schema pymem with its
columns (type, nullability, default, generation, storage), constraints,
indexes, RLS and policies, triggers, composite types, the privileges of
pymem_app, and every function's signature, result, language, volatility,
security and pinned settings (not bodies: sql/ is re-created on every
migrate), and a hash of each shipped migration file (one that was applied
is never run again, so it must not change). It describes the logical
schema: a store hash-partitioned by user_id (``pymem migrate --partitions``)
has the same snapshot as a plain one (a parent stands for its leaves, whose
storage options it shows); tests/test_partitions.py checks the leaves. The suite compares a fresh
install, an install upgraded one migration at a time and a rolled back and
re-applied one with the committed ``tests/schema_snapshot.txt``.

Regenerate it after a migration or a change of a function's signature::

    python -m pymem.snapshot --write tests/schema_snapshot.txt

(migrates a new database on the embedded server, or on ``--dsn``'s server,
and drops it afterwards).
"""

from __future__ import annotations

import argparse
import hashlib
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
    "grant": """
        SELECT format('%s %s', c.relname, array_to_string(ARRAY(
                   SELECT p FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) AS p
                   WHERE has_table_privilege('pymem_app', c.oid, p)), ','))
        FROM pg_class AS c
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
                      has_function_privilege('pymem_app', p.oid, 'EXECUTE'),
                      has_function_privilege('public', p.oid, 'EXECUTE'))
        FROM pg_proc AS p JOIN pg_language AS l ON l.oid = p.prolang
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
            rows = sorted(r[0] for r in conn.execute(query))
            lines += [f"{section}: {row}" for row in rows]
    lines += migration_checksums()
    text = "\n".join(lines) + "\n"
    return text.replace(function_search_path(schemas), "pg_catalog, pymem, <extensions>")


def migration_checksums() -> list[str]:
    """A line per shipped migration file with its hash. An install that applied
    a migration never runs it again, so a shipped migration must not change
    (a schema change goes in a new one): editing one shows in the snapshot."""
    from pymem.migrate import migrations_dir

    return [
        f"migration: {p.name} sha256={hashlib.sha256(p.read_bytes()).hexdigest()[:16]}"
        for p in sorted(migrations_dir().glob("[0-9]*.sql"))
    ]


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
    parser = argparse.ArgumentParser(prog="python -m pymem.snapshot", description=__doc__)
    parser.add_argument("--dsn", help="a server where this role may create databases")
    parser.add_argument("--write", type=Path, help="write the snapshot here instead of stdout")
    args = parser.parse_args(argv)
    if args.dsn:
        admin = args.dsn
    else:
        from pymem.server import start_embedded

        admin = start_embedded(database="postgres")
    text = _fresh_snapshot(admin)
    if args.write:
        args.write.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
