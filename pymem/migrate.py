"""Migrations: yoyo for versioned DDL in migrations/, then every file in sql/.

``migrate()`` is what ``pymem migrate`` runs. It holds a session advisory lock
for its whole run, so two migrations started at once run one after the other
instead of racing on CREATE EXTENSION, yoyo's bookkeeping tables or
CREATE OR REPLACE FUNCTION.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from dataclasses import dataclass, field
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


def yoyo_uri(
    dsn: str,
    schemas: dict[str, str] | None = None,
    lock_timeout: str | None = None,
    settings: dict[str, str] | None = None,
) -> str:
    """A yoyo database URI (psycopg 3 backend) for a libpq DSN or URI; with the
    extensions' ``schemas``, its sessions also search those; with ``lock_timeout``,
    a migration's DDL gives up waiting for a table lock after that long; ``settings``
    are set for its sessions (a Citus store's, :func:`citus_settings`)."""
    params = {k: str(v) for k, v in conninfo_to_dict(dsn).items() if v is not None}
    extra = [s for s in dict.fromkeys((schemas or {}).values()) if s != "public"]
    if extra:
        path = ",".join(['"$user"', "public", *(_ident(s) for s in extra)])
        params["options"] = (params.get("options", "") + f" -csearch_path={path}").strip()
    if lock_timeout:
        params["options"] = (params.get("options", "") + f" -clock_timeout={lock_timeout}").strip()
    for name, value in (settings or {}).items():
        params["options"] = (params.get("options", "") + f" -c{name}={value}").strip()
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
    # tables hash-partitioned by this run: (table, leaves, rows moved)
    partitioned: list[tuple[str, int, int]] = field(default_factory=list)
    # Citus (docs/scaling.md): (object, type, distribution) made distributed by this run
    distributed: list[tuple[str, str, str]] = field(default_factory=list)
    # functions no sql/ file or migration defines any more, dropped
    dropped: list[str] = field(default_factory=list)
    # such functions kept because something depends on them
    kept: list[str] = field(default_factory=list)


def _yoyo():
    return _get_backend, _read_migrations


def _get_backend(uri: str):
    """yoyo's ``get_backend``, its backend class found once per process: yoyo looks it
    up among the installed packages' entry points on every call (about 18 ms)."""
    from yoyo.connections import default_migration_table, parse_uri

    parsed = parse_uri(uri)
    backend = _backend_class(parsed.scheme.lower())(parsed, default_migration_table)
    backend.init_database()
    return backend


@functools.cache
def _backend_class(scheme: str):
    from yoyo.backends.base import get_backend_class

    return get_backend_class(scheme)


# (directory, each file's name, size and mtime) -> the migrations read from it, loaded
_READ: dict[tuple, object] = {}


def _one_connection(backend) -> None:
    """Run every migration on ``backend``'s own connection, one transaction each, as
    before. yoyo opens a new connection for each (``DatabaseBackend.copy``), and a new
    backend on a database whose catalog the last migration changed builds its relation
    cache again: about 8 ms of the server's time a migration, a third of a migrate of a
    new store. No migration changes its session (no SET outside a function)."""
    backend.copy = lambda: contextlib.nullcontext(backend)


def _read_migrations(directory: str):
    """yoyo's ``read_migrations``, parsed once per process while the files stay as they
    were: yoyo splits every file and its rollback into statements with sqlparse on each
    read, 40% of a migrate of a new store (0.2 s), and the steps it makes hold no state
    of a run."""
    from yoyo import read_migrations

    with os.scandir(directory) as entries:
        files = sorted((e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in entries)
    key = (os.path.realpath(directory), tuple(files))
    migrations = _READ.get(key)
    if migrations is None:
        migrations = read_migrations(directory)
        for m in migrations:
            m.load()  # now, while the ids it depends on name this read's migrations
        if len(_READ) >= 4:  # a test's own copies of the directory come and go
            _READ.clear()
        _READ[key] = migrations
    return migrations


# Every function in sql/ pins this search_path; at load time `public` is
# replaced by the schemas of the extensions pymem uses (extension_schemas).
DEFAULT_FUNCTION_PATH = "SET search_path = pg_catalog, pymem, public, pg_temp"
_EXTENSIONS = ("vector", "pg_trgm")


def _fetch(cur, query: str, params=None) -> list:
    cur.execute(query, params)
    return cur.fetchall()


def extension_schemas(conn) -> dict[str, str]:
    """The schema of each extension pymem uses ('public' for one not installed yet).
    ``conn`` is a connection or a DB-API cursor."""
    cur = conn.cursor() if hasattr(conn, "cursor") else conn
    found = dict(
        _fetch(
            cur,
            "SELECT e.extname, n.nspname FROM pg_extension AS e"
            " JOIN pg_namespace AS n ON n.oid = e.extnamespace WHERE e.extname = ANY(%s)",
            (list(_EXTENSIONS),),
        )
    )
    return {name: found.get(name, "public") for name in _EXTENSIONS}


def _ident(name: str) -> str:
    return name if re.fullmatch(r"[a-z_][a-z0-9_]*", name) else '"' + name.replace('"', '""') + '"'


def function_search_path(schemas: dict[str, str]) -> str:
    """pg_catalog, pymem, then the extensions' schemas (never public unless one lives
    there), then pg_temp: named last, or PostgreSQL searches it first for relations and
    types, and a function running as the owner (called from a SECURITY DEFINER one)
    would take the caller's temporary ``text`` domain for its own ``text``."""
    names = list(dict.fromkeys(schemas[e] for e in _EXTENSIONS))
    return ", ".join(["pg_catalog", "pymem", *(_ident(n) for n in names), "pg_temp"])


def _extension_members(cur, schemas: dict[str, str]) -> dict[str, str]:
    """Function and type names of the extensions, with their schema."""
    rows = _fetch(
        cur,
        "SELECT e.extname, coalesce(p.proname, t.typname) FROM pg_depend AS d"
        " JOIN pg_extension AS e ON e.oid = d.refobjid"
        " LEFT JOIN pg_proc AS p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid"
        " LEFT JOIN pg_type AS t ON d.classid = 'pg_type'::regclass AND t.oid = d.objid"
        " WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'"
        " AND e.extname = ANY(%s) AND coalesce(p.proname, t.typname) IS NOT NULL",
        (list(_EXTENSIONS),),
    )
    return {name: schemas[ext] for ext, name in rows}


def sql_text(text: str, schemas: dict[str, str], members: dict[str, str] | None = None) -> str:
    """A sql/ file as loaded: its pinned search_path and the names it qualifies
    with ``public.`` point at the schemas the extensions live in."""
    if all(schemas[e] == "public" for e in _EXTENSIONS):
        return text
    text = text.replace(DEFAULT_FUNCTION_PATH, f"SET search_path = {function_search_path(schemas)}")
    members = members or {}

    def qualify(match: re.Match) -> str:
        schema = members.get(match.group(1))
        return f"{_ident(schema)}.{match.group(1)}" if schema else match.group(0)

    return re.sub(r"\bpublic\.([a-z_][a-z0-9_]*)", qualify, text)


def migration_function_names(directory: Path | None = None) -> set[str]:
    """Names of the functions the migrations create (text rules, name tokenizer), in
    ``directory`` (this release's migrations/ by default)."""
    pattern = re.compile(
        r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE)\s+pymem\.(\w+)", re.IGNORECASE
    )
    names: set[str] = set()
    for path in (directory or migrations_dir()).glob("[0-9]*.sql"):
        names.update(pattern.findall(path.read_text(encoding="utf-8")))
    return names


def _drop_stale_functions(cur) -> tuple[list[str], list[str]]:
    """Drop the pymem functions this load did not (re)create and no migration
    defines. A row of pg_proc written by this transaction carries its xid as
    xmin; pymem.schema_version() (sql/90_admin.sql) is always re-created, so its
    xmin is this load's. Runs before the grants file, which rewrites every
    function's ACL. A function something still depends on is kept and reported."""
    stale = _fetch(
        cur,
        "SELECT format('pymem.%%I(%%s)', p.proname, oidvectortypes(p.proargtypes)), p.prokind"
        " FROM pg_proc AS p"
        " WHERE p.pronamespace = 'pymem'::regnamespace"
        " AND p.xmin <> (SELECT q.xmin FROM pg_proc AS q"
        "                WHERE q.oid = 'pymem.schema_version()'::regprocedure)"
        " AND NOT p.proname = ANY(%s) ORDER BY 1",
        (sorted(migration_function_names()),),
    )
    dropped, kept = [], []
    for signature, kind in stale:
        what = "PROCEDURE" if kind == "p" else "FUNCTION"
        cur.execute("SAVEPOINT pymem_drop_stale")
        try:
            cur.execute(f"DROP {what} {signature}")
        except Exception as exc:  # psycopg 2 or 3: compare the SQLSTATE
            code = getattr(exc, "sqlstate", None) or getattr(exc, "pgcode", None)
            if code != "2BP01":  # dependent_objects_still_exist
                raise
            cur.execute("ROLLBACK TO SAVEPOINT pymem_drop_stale")
            kept.append(signature)
        else:
            dropped.append(signature)
        cur.execute("RELEASE SAVEPOINT pymem_drop_stale")
    return dropped, kept


def load_sql(
    cur, directory: Path | None = None, distributed: list | None = None
) -> tuple[int, list[str], list[str]]:
    """Run every file of sql/ on a DB-API cursor inside the caller's transaction:
    search_path and ``public.`` names point at the extensions' schemas, and the
    pymem functions sql/ and migrations/ no longer define are dropped before the
    grants (the last file). On a store distributed with Citus the functions are
    distributed again in the same transaction (``pymem.distribute_by_user()``: the
    rows it changed are appended to ``distributed``). Returns (files, dropped, kept)."""
    files = sorted((directory or sql_dir()).glob("*.sql"))
    schemas = extension_schemas(cur)
    members = _extension_members(cur, schemas)
    state = citus_state(cur)
    for name, value in citus_settings(state).items():
        cur.execute(f"SET LOCAL {name} = {value}")
    # on a distributed store Citus repeats this on the workers, which check the
    # bodies of the functions it sends them with it (citus.propagate_set_commands)
    cur.execute(f"SET LOCAL search_path = {function_search_path(schemas)}")
    dropped: list[str] = []
    kept: list[str] = []
    for i, file in enumerate(files):
        if i == len(files) - 1:
            dropped, kept = _drop_stale_functions(cur)
        cur.execute(sql_text(file.read_text(encoding="utf-8"), schemas, members).encode())
    if state == "distributed":
        rows = _fetch(cur, _DISTRIBUTE, (None,))
        if distributed is not None:
            distributed.extend(rows)
    return len(files), dropped, kept


# Citus (docs/scaling.md): what a migration's session needs on a Citus node.
# A store not yet distributed is built on the coordinator alone: Citus would
# otherwise send each object to the workers as it is made, and an object made
# while that could not follow (a function of a local table's row type) breaks the
# next statement that names it there. A distributed store: its DDL reaches the
# shards (triggers on them are pymem's own, sql/97_citus.sql), one connection per
# worker for the transaction (DDL on shards and reference tables in one
# transaction needs it).
_CITUS_LOCAL = {"citus.enable_ddl_propagation": "off"}
_CITUS_DISTRIBUTED = {
    "citus.multi_shard_modify_mode": "sequential",
    "citus.enable_unsafe_triggers": "on",
    "citus.propagate_set_commands": "local",
}
_DISTRIBUTE = (
    "SELECT object_name, object_type, distribution FROM pymem.distribute_by_user(%s)"
    " WHERE converted"
)


def citus_state(conn) -> str | None:
    """``None`` without the citus extension; ``'distributed'`` when pymem.memories is
    a Citus distributed table; else ``'local'`` (Citus, a plain store or none yet).
    ``conn`` is a connection or a DB-API cursor."""
    cur = conn.cursor() if hasattr(conn, "cursor") else conn
    if not _fetch(cur, "SELECT FROM pg_extension WHERE extname = 'citus'"):
        return None
    (distributed,) = _fetch(
        cur,
        "SELECT EXISTS (SELECT FROM pg_dist_partition"
        " WHERE logicalrelid = to_regclass('pymem.memories') AND partmethod = 'h')",
    )[0]
    return "distributed" if distributed else "local"


def citus_settings(state: str | None) -> dict[str, str]:
    """The session settings a migration needs in Citus ``state`` (:func:`citus_state`)."""
    if state == "distributed":
        return dict(_CITUS_DISTRIBUTED)
    return dict(_CITUS_LOCAL) if state == "local" else {}


def _check_citus_cluster(conn: psycopg.Connection) -> None:
    """Before anything is changed: ``--citus`` needs a Citus coordinator with workers."""
    from pymem.errors import CitusUnavailable

    problem = None
    if citus_state(conn) is None:
        problem = "the citus extension is not installed in this database"
        hint = (
            "Load citus (shared_preload_libraries), CREATE EXTENSION citus on every node, "
            "and add the workers on the coordinator (citus_add_node); scripts/citus_cluster.py "
            "starts a test cluster."
        )
    elif not conn.execute("SELECT citus_is_coordinator()").fetchone()[0]:
        problem, hint = "this node is not the Citus coordinator", "Migrate on the coordinator."
    elif not conn.execute(
        "SELECT count(*) FROM pg_dist_node WHERE isactive AND noderole = 'primary' AND groupid <> 0"
    ).fetchone()[0]:
        problem = "the Citus cluster has no worker nodes"
        hint = "Add them on the coordinator: SELECT citus_add_node(host, port)."
    if problem:
        raise CitusUnavailable(f"pymem migrate --citus: {problem}", hint=hint)


def apply_functions(
    conn: psycopg.Connection, result: MigrateResult | None = None, lock_timeout: str | None = None
) -> int:
    """(Re)create every function, trigger and grant in sql/, in one transaction. With
    ``lock_timeout``, a table lock it needs (the history trigger, a policy made again)
    is waited for at most that long."""
    distributed: list = []
    with conn.transaction(), conn.cursor() as cur:
        if lock_timeout:
            cur.execute("SELECT set_config('lock_timeout', %s, true)", (lock_timeout,))
        loaded, dropped, kept = load_sql(cur, distributed=distributed)
    if result is not None:
        result.dropped, result.kept = dropped, kept
        result.distributed.extend(distributed)
    return loaded


def _locked_connection(dsn: str) -> psycopg.Connection:
    conn = psycopg.connect(dsn, autocommit=True)
    conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (_MIGRATE_LOCK_KEY,))
    return conn


def _rollback_stopped(backend, migrations, todo, exc: psycopg.Error) -> Exception:
    """A rollback runs one migration a transaction (yoyo's way): one that fails leaves the
    ones before it rolled back. The error says which, so that nobody takes the store for
    whole."""
    from pymem.errors import PymemError

    first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    try:
        left = {m.id for m in backend.to_rollback(migrations)}
    except Exception:  # the connection went with the failure: say what is known
        return PymemError(
            f"rollback stopped: {first_line}; what it rolled back before is unknown",
            sqlstate=exc.sqlstate,
            hint="`pymem migrate --list` shows the migrations still applied.",
        )
    done = [m.id for m in todo if m.id not in left]
    stopped = next((m.id for m in todo if m.id in left), "?")
    return PymemError(
        f"rollback stopped at {stopped}: {first_line}; already rolled back: "
        f"{', '.join(done) or 'nothing'}",
        sqlstate=exc.sqlstate,
        hint="The store is between two versions: run the rollback again once nothing holds "
        "its tables, or `pymem migrate` to apply the rolled-back migrations again.",
    )


def migrate(
    dsn: str,
    dimensions: int | None = None,
    rollback: bool = False,
    lock_timeout: str | None = "5s",
    partitions: int | None = None,
    citus: bool = False,
    shard_count: int | None = None,
) -> MigrateResult:
    """Apply (or with ``rollback`` remove) pymem's schema; idempotent.

    ``partitions`` hash-partitions every table of users' rows by user_id
    (``pymem.partition_by_user``, docs/scaling.md). A store already partitioned
    stays so: a table a newer migration adds is partitioned like the others.

    ``citus`` distributes the store by user_id over the Citus cluster whose
    coordinator ``dsn`` names (``pymem.distribute_by_user``, in ``shard_count``
    shards; docs/scaling.md): a new store, or a plain one converted. A store
    distributed stays so: every later migrate distributes what it adds.

    A migration's DDL needs a brief exclusive lock on the table it changes. Queued
    behind a long reader it would block every reader after it, so it waits at most
    ``lock_timeout``, then fails (``LockTimeout``) and rolls back whole: run it again.
    """
    from pymem.errors import CitusUnsupported, InvalidParameter

    get_backend, read_migrations = _yoyo()
    with _locked_connection(dsn) as conn:
        state = citus_state(conn)
        if citus and partitions is not None:
            raise InvalidParameter(
                "--citus and --partitions exclude each other: Citus shards by user_id itself",
                sqlstate=InvalidParameter.sqlstate,
            )
        if shard_count is not None and not citus:
            raise InvalidParameter(
                "shard_count (--shards) needs citus (--citus)", sqlstate=InvalidParameter.sqlstate
            )
        installed = _extension_level(conn)
        if installed is not None:
            return _on_extension(conn, installed, dimensions, rollback, partitions, citus)
        if citus and not rollback:
            _check_citus_cluster(conn)
        if rollback and state == "distributed":
            raise CitusUnsupported(
                "pymem migrate --rollback is not supported on a store distributed with Citus",
                hint="Drop schemas pymem and pymem_citus (CASCADE) yourself to remove it.",
            )
        # the migrations name pgvector's types unqualified: they resolve
        # through the extensions' schemas wherever those are
        backend = get_backend(
            yoyo_uri(dsn, extension_schemas(conn), lock_timeout, citus_settings(state))
        )
        _one_connection(backend)
        try:
            migrations = read_migrations(str(migrations_dir()))
            with backend.lock():
                if rollback:
                    todo = backend.to_rollback(migrations)
                    try:
                        backend.rollback_migrations(todo)
                    except psycopg.Error as exc:
                        raise _rollback_stopped(backend, migrations, todo, exc) from exc
                    return MigrateResult([], [m.id for m in todo], 0, None)
                todo = backend.to_apply(migrations)
                # Post-apply hooks are for plain `yoyo apply`; functions load below.
                with wrap_errors():
                    backend.apply_migrations_only(todo)
        finally:
            backend.connection.close()
        result = MigrateResult([m.id for m in todo], [], 0, None)
        with wrap_errors():
            result.functions_loaded = apply_functions(conn, result, lock_timeout)
        if dimensions is not None:
            with wrap_errors(), conn.transaction():
                result.dimensions = conn.execute(
                    "SELECT pymem._set_dimensions(%s)", (dimensions,)
                ).fetchone()[0]
        if citus:
            with wrap_errors(), conn.transaction():
                if lock_timeout:  # distributing a table locks it, as partitioning does
                    conn.execute("SELECT set_config('lock_timeout', %s, true)", (lock_timeout,))
                result.distributed.extend(conn.execute(_DISTRIBUTE, (shard_count,)).fetchall())
            return result
        with wrap_errors(), conn.transaction():
            if lock_timeout:  # partitioning a table locks it whole, as a migration's DDL does
                conn.execute("SELECT set_config('lock_timeout', %s, true)", (lock_timeout,))
            leaves = (
                partitions  # 0 or 1 included: partition_by_user refuses them (PM006)
                if partitions is not None
                else conn.execute("SELECT pymem.store_partitions()").fetchone()[0]
            )
            if leaves is not None:
                result.partitioned = conn.execute(
                    "SELECT table_name, partition_count, rows_moved"
                    " FROM pymem.partition_by_user(%s) WHERE converted",
                    (leaves,),
                ).fetchall()
        return result


def migrate_if_drifted(dsn: str) -> MigrateResult | None:
    """:func:`migrate` unless the store is already what this release installs (no
    :func:`pymem.snapshot.drift`: every table, trigger, policy and function body as a
    fresh install has them); None when it was. A migrate reloads every function, which
    costs 0.2 s on a current store and makes every other session of the store compile
    them again; the check reads the catalogs (about 50 ms). A store that drifted in any
    way (an older release, a restore that lost a trigger) is migrated, which repairs it."""
    from pymem.snapshot import drift

    with wrap_errors(), psycopg.connect(dsn, autocommit=True) as conn:
        if not drift(conn):
            return None
    return migrate(dsn)


def _extension_level(conn: psycopg.Connection) -> int | None:
    """The schema level of a store installed with CREATE EXTENSION pymem; None for one
    made by migrate, or none yet."""
    from pymem.extension import level_of

    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'pymem'").fetchone()
    return None if row is None else level_of(row[0])


def _on_extension(conn, level: int, dimensions, rollback: bool, partitions, citus: bool):
    """``migrate`` on a store the extension installed: its objects belong to the
    extension, and only ALTER EXTENSION changes them. A current one needs nothing
    (``dimensions`` still set for an empty store); anything else is refused, never
    done twice."""
    from pymem.errors import OtherInstallation
    from pymem.extension import version

    shipped = shipped_schema_version()
    name = f"the extension pymem {version(level)}"
    if rollback:
        raise OtherInstallation(
            f"this store is {name}: pymem migrate --rollback does not remove it",
            hint="DROP EXTENSION pymem removes it (and every row in it).",
        )
    if partitions is not None or citus:
        raise OtherInstallation(
            f"this store is {name}: --partitions and --citus need a store made by pymem migrate",
            hint="Tables rebuilt after the install would leave the extension (docs/operations.md).",
        )
    if level != shipped:
        raise OtherInstallation(
            f"this store is {name}; this release ships level {shipped:04d}",
            hint=f"Install this release's extension files (pymem extension files) and run "
            f"ALTER EXTENSION pymem UPDATE TO '{version(shipped)}'."
            if level < shipped
            else "This release is older than the store: use the release that installed it.",
        )
    result = MigrateResult([], [], 0, None)
    if dimensions is not None:
        with wrap_errors(), conn.transaction():
            result.dimensions = conn.execute(
                "SELECT pymem._set_dimensions(%s)", (dimensions,)
            ).fetchone()[0]
    return result


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
