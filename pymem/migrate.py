"""Migrations: yoyo for versioned DDL in migrations/, then every file in sql/.

``migrate()`` is what ``pymem migrate`` runs. It holds a session advisory lock
for its whole run, so two migrations started at once run one after the other
instead of racing on CREATE EXTENSION, yoyo's bookkeeping tables or
CREATE OR REPLACE FUNCTION.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

import psycopg
from psycopg.conninfo import conninfo_to_dict

from pymem.errors import wrap_errors

_MIGRATE_LOCK_KEY = "pymem.migrate"


def _resource_dir(name: str) -> Path:
    """sql/ or migrations/: in the source tree, or packaged as pymem/_<name>."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / name, here / f"_{name}"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"pymem's {name}/ directory is missing from the installation")


def sql_dir() -> Path:
    return _resource_dir("sql")


def migrations_dir() -> Path:
    return _resource_dir("migrations")


def shipped_schema_version() -> int:
    """The number of the newest migration in migrations/ (0004.review-queue.sql -> 4)."""
    return max(int(p.name.split(".", 1)[0]) for p in migrations_dir().glob("[0-9]*.sql"))


def function_files() -> list[Path]:
    return sorted(sql_dir().glob("*.sql"))


def yoyo_uri(dsn: str) -> str:
    """A yoyo database URI (psycopg 3 backend) for a libpq DSN or URI."""
    params = {k: str(v) for k, v in conninfo_to_dict(dsn).items() if v is not None}
    user = quote(params.pop("user", ""), safe="")
    password = params.pop("password", "")
    host = params.pop("host", "")
    port = params.pop("port", "")
    dbname = quote(params.pop("dbname", ""), safe="")
    auth = f"{user}:{quote(password, safe='')}@" if password else (f"{user}@" if user else "")
    if host.startswith("/"):
        params["host"] = host  # a Unix socket directory goes in the query
        host = ""
    netloc = f"{auth}{host}{':' + port if port and host else ''}"
    if port and not host:
        params["port"] = port
    query = f"?{urlencode(params)}" if params else ""
    return f"postgresql+psycopg://{netloc}/{dbname}{query}"


@dataclass
class MigrationState:
    id: str
    applied: bool


@dataclass
class MigrateResult:
    applied: list[str]
    rolled_back: list[str]
    functions_loaded: int
    dimensions: int | None


def _yoyo():
    from yoyo import get_backend, read_migrations

    return get_backend, read_migrations


def apply_functions(conn: psycopg.Connection) -> int:
    """(Re)create every function, trigger and grant in sql/, in one transaction."""
    files = function_files()
    with conn.transaction():
        for path in files:
            conn.execute(path.read_text(encoding="utf-8").encode())
    return len(files)


def _locked_connection(dsn: str) -> psycopg.Connection:
    conn = psycopg.connect(dsn, autocommit=True)
    conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (_MIGRATE_LOCK_KEY,))
    return conn


def migrate(dsn: str, dimensions: int | None = None, rollback: bool = False) -> MigrateResult:
    """Apply (or with ``rollback`` remove) pymem's schema; idempotent."""
    get_backend, read_migrations = _yoyo()
    with _locked_connection(dsn) as conn:
        backend = get_backend(yoyo_uri(dsn))
        try:
            migrations = read_migrations(str(migrations_dir()))
            with backend.lock():
                if rollback:
                    todo = backend.to_rollback(migrations)
                    backend.rollback_migrations(todo)
                    return MigrateResult([], [m.id for m in todo], 0, None)
                todo = backend.to_apply(migrations)
                # Post-apply hooks are for plain `yoyo apply`; functions load below.
                backend.apply_migrations_only(todo)
        finally:
            backend.connection.close()
        loaded = apply_functions(conn)
        dims = None
        if dimensions is not None:
            with wrap_errors(), conn.transaction():
                dims = conn.execute("SELECT pymem._set_dimensions(%s)", (dimensions,)).fetchone()[0]
        return MigrateResult([m.id for m in todo], [], loaded, dims)


def migration_states(dsn: str) -> list[MigrationState]:
    """Each migration and whether it is applied."""
    get_backend, read_migrations = _yoyo()
    backend = get_backend(yoyo_uri(dsn))
    try:
        migrations = read_migrations(str(migrations_dir()))
        applied = {m.id for m in backend.to_rollback(migrations)}
        return [MigrationState(m.id, m.id in applied) for m in migrations]
    finally:
        backend.connection.close()
