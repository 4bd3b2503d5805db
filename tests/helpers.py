"""What many test modules need, defined once: refusals that write nothing, a memory's row,
row counts. Fixtures live in conftest.py (``sql``, ``conn``, ``store``, ...)."""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from pymem import MemoryStore
from pymem.errors import PymemError

# writers of the concurrency tests, started together
THREADS = 8


def count(conn: psycopg.Connection, user_id: str | None = None) -> int:
    """Rows of pymem.memories (of one user)."""
    if user_id is None:
        return conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0]
    return conn.execute(
        "SELECT count(*) FROM pymem.memories WHERE user_id = %s", (user_id,)
    ).fetchone()[0]


def version_count(conn: psycopg.Connection) -> int:
    return conn.execute("SELECT count(*) FROM pymem.memory_versions").fetchone()[0]


def refused(
    conn: psycopg.Connection,
    exc_class: type[BaseException],
    code: str,
    call: Callable[[], object],
    *needles: str,
    match: str | None = None,
) -> BaseException:
    """``call()`` raises ``exc_class`` with SQLSTATE ``code`` (each needle in its message,
    ``match`` a regex of it) and leaves the memories and their history as they were. The
    call runs in a savepoint, so the test's transaction goes on after it."""
    before = (count(conn), version_count(conn))
    with pytest.raises(exc_class, match=match) as info, conn.transaction():
        call()
    err = info.value
    assert err.sqlstate == code, f"{type(err).__name__}: {err}"
    if isinstance(err, PymemError):
        assert isinstance(err, exc_class)
    for needle in needles:
        assert needle in str(err), f"{needle!r} not in {str(err)!r}"
    assert (count(conn), version_count(conn)) == before
    return err


def memory(conn: psycopg.Connection, memory_id) -> dict:
    """A memory's whole row, as a dict."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute("SELECT * FROM pymem.memories WHERE id = %s", (memory_id,))
        row = cur.fetchone()
    assert row is not None, f"memory {memory_id} not found"
    return row


def run_together(dsn: str, work: Callable[[Any, int], None], *, raw_sql: bool = False) -> None:
    """Run ``work(client, thread_index)`` in THREADS threads started by a barrier; the
    client is a MemoryStore, or with ``raw_sql`` a plain autocommit connection."""
    barrier = threading.Barrier(THREADS, timeout=30)
    errors: list[BaseException] = []

    def target(index: int) -> None:
        try:
            client = psycopg.connect(dsn, autocommit=True) if raw_sql else MemoryStore(dsn)
            with client:
                if not raw_sql:
                    client.get_settings()  # connect and check the schema before the start
                barrier.wait()
                work(client, index)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=target, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "writers did not finish"
    assert errors == []


def client_backends(dsn: str) -> dict[int, str]:
    """The other client connections to ``dsn``'s database, as the server sees them: pid
    and state ('idle', 'idle in transaction', ...). A store's own connection is found
    here, from outside, without reading the store's attributes. A backend that is closing
    may still be listed for a moment: ``gone`` waits for it."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid, state FROM pg_stat_activity WHERE datname = current_database()"
            " AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
        ).fetchall()
    return dict(rows)


def the_only_backend(dsn: str, seconds: float = 5.0) -> int:
    """The pid of the one other client connection to ``dsn``'s database (a store's),
    once the connections the test closed just before have ended (a backend that is
    closing is still listed for a moment: a store that connects fast saw two)."""
    import time

    deadline = time.monotonic() + seconds
    while len(backends := client_backends(dsn)) > 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    (pid,) = backends
    return pid


def gone(dsn: str, seconds: float = 5.0) -> bool:
    """Whether every other client connection to ``dsn``'s database has ended."""
    import time

    deadline = time.monotonic() + seconds
    while client_backends(dsn):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def a_backend_waits_on_a_lock(watcher: psycopg.Connection, seconds: float = 10.0) -> bool:
    """Whether some backend of ``watcher``'s database comes to wait on a lock within
    ``seconds``. ``watcher`` is an autocommit connection of its own: inside the waited-on
    transaction, pg_stat_activity is a snapshot taken once and never shows the waiter."""
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        (waiting,) = watcher.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchone()
        if waiting:
            return True
        time.sleep(0.01)
    return False


def interrupting(hit: int | None, *, driver_only: bool = False):
    """A trace function raising KeyboardInterrupt at the ``hit``-th line the wrapper
    (pymem/store.py and the modules it is made of, pymem/errors.py) runs: where a real
    Ctrl-C may land, in any of its frames, or the step driver's only (between two steps
    of a call). None: never."""
    from pymem import api_memories, api_people, api_store, calls, conversions, errors, steps, store

    modules = (store, steps, calls, conversions, api_memories, api_people, api_store, errors)
    files = {m.__file__ for m in modules}
    driver = {steps._performed.__code__, steps._driven.__code__}

    def trace(frame, event, arg):
        if frame.f_code.co_filename not in files:
            return None
        if driver_only and frame.f_code not in driver:
            return None
        if event == "line":
            trace.lines += 1
            if trace.lines == hit:
                raise KeyboardInterrupt
        return trace

    trace.lines = 0
    return trace


def interruptible(command: list[str]) -> subprocess.Popen:
    """``command`` started with SIGINT heard, as a terminal starts it, for a test that sends
    it Ctrl-C. A shell without job control starts a background job (pytest run as
    ``cmd &`` in a script) with SIGINT ignored, its children inherit that, and Python then
    never installs its KeyboardInterrupt handler: the child ran on and exited 0. A handler
    of our own is reset to the default by exec, an ignored signal is not."""
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
