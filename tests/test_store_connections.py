"""MemoryStore over a pool, and inside the caller's own transaction."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from pymem import MemoryStore, configure_connection
from pymem.errors import ConnectionLost, InvalidContent, PoolExhausted
from tests.conftest import unit
from tests.helpers import client_backends, interrupting


def test_store_over_a_connection_pool(fresh_dsn):
    with ConnectionPool(
        fresh_dsn,
        min_size=1,
        max_size=2,
        configure=configure_connection,
        kwargs={"autocommit": True},
        open=True,
    ) as pool:
        store = MemoryStore(pool)
        first = store.upsert("ann", "Ann plays chess", unit(0))
        again = store.upsert("ann", "Ann plays chess.", unit(0))
        assert (first.action, again.action) == ("inserted", "duplicate")
        assert [h.memory_id for h in store.recall("ann", unit(0), 1)] == [first.memory_id]


def test_an_exhausted_pool_says_so(fresh_dsn):
    """PoolTimeout was reported as 'connection to the database lost'."""
    with ConnectionPool(
        fresh_dsn, min_size=1, max_size=1, timeout=0.2, kwargs={"autocommit": True}, open=True
    ) as pool:
        store = MemoryStore(pool)
        with (
            pool.connection(),  # the only connection is busy
            pytest.raises(PoolExhausted, match="no free connection in the pool") as info,
        ):
            store.upsert("ann", "Ann plays chess", unit(0))
        assert isinstance(info.value, ConnectionLost)
        assert store.upsert("ann", "Ann plays chess", unit(0)).action == "inserted"


def test_store_joins_the_callers_transaction(fresh_dsn):
    with psycopg.connect(fresh_dsn) as conn:
        store = MemoryStore(conn)
        store.upsert("ann", "Ann plays go", unit(1))
        conn.rollback()  # the app's transaction decides
        assert store.recall("ann", unit(1), 5) == []
        store.upsert("ann", "Ann plays go", unit(1))
        conn.commit()
    with MemoryStore(fresh_dsn) as other:
        assert [h.content for h in other.recall("ann", unit(1), 5)] == ["Ann plays go"]


def test_threads_sharing_one_dsn_store_each_commit(fresh_dsn):
    # one connection for all threads: each call runs alone in its own transaction
    with MemoryStore(fresh_dsn) as store, ThreadPoolExecutor(4) as pool:
        results = list(
            pool.map(lambda i: store.upsert(f"user{i}", f"user {i} drinks tea", unit(i)), range(8))
        )
        # the store's connection, seen by the server: no call left a transaction open
        assert set(client_backends(fresh_dsn).values()) == {"idle"}
    assert [r.action for r in results] == ["inserted"] * 8
    with psycopg.connect(fresh_dsn) as other:
        (count,) = other.execute("SELECT count(*) FROM pymem.memories").fetchone()
    assert count == 8


def test_a_call_refused_before_the_server_restores_the_callers_user(conn):
    # NUL bytes and lone surrogates are refused by the driver after the store set
    # pymem.user_id for the call: the caller's transaction goes on, as its own user
    store = MemoryStore(conn)
    conn.execute("SELECT set_config('pymem.user_id', 'bob', true)")
    for content in ("Ann\x00", "Ann \ud800"):
        with pytest.raises(InvalidContent):
            store.upsert("ann", content, unit(0))
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        assert conn.execute("SELECT current_setting('pymem.user_id')").fetchone() == ("bob",)


def test_a_callers_transaction_block_on_an_autocommit_connection_keeps_its_user(conn):
    # `with conn.transaction()` on an autocommit connection: the call ran in a savepoint
    # and its user outlived it, so the caller's transaction went on as "ann"
    conn.autocommit = True
    store = MemoryStore(conn)
    with conn.transaction() as tx:
        conn.execute("SELECT set_config('pymem.user_id', 'bob', true)")
        store.upsert("ann", "Ann plays go", unit(0))
        assert conn.execute("SELECT current_setting('pymem.user_id')").fetchone() == ("bob",)
        with pytest.raises(InvalidContent):  # a refused call leaves the block usable
            store.upsert("ann", " ", unit(1))
        assert conn.execute("SELECT current_setting('pymem.user_id')").fetchone() == ("bob",)
        assert [h.content for h in store.recall("ann", unit(0), 5)] == ["Ann plays go"]
        raise psycopg.Rollback(tx)


def _tracing_performed(hit: int | None):
    """A trace function counting the lines the store's step driver runs; on the
    ``hit``-th it raises KeyboardInterrupt: where a Ctrl-C lands between two steps of a
    call, outside the steps that would roll back."""
    return interrupting(hit, driver_only=True)


def _upsert_traced(store: MemoryStore, hit: int | None) -> tuple[int, set[str], bool]:
    """One upsert under the trace; the lines the driver ran, what the store's next call
    sees afterwards, and whether the upsert was interrupted."""
    import sys

    trace = _tracing_performed(hit)
    interrupted = False
    sys.settrace(trace)
    try:
        store.upsert("ann", f"Ann's locker is number {hit}", unit((hit or 0) % 500))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        sys.settrace(None)
    seen = _within_seconds(10, lambda: {h.content for h in store.recall("ann", unit(0), 500)})
    return trace.lines, seen, interrupted


def _within_seconds(seconds: float, call):
    """``call()``'s result, or a failure when it does not return in time (a lock that
    an interrupted call kept makes the next call wait forever)."""
    import threading

    box = []
    worker = threading.Thread(target=lambda: box.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert box, f"the next call did not return in {seconds} s"
    return box[0]


def test_a_ctrl_c_between_a_calls_steps_leaves_nothing_open_for_the_next_call(fresh_dsn):
    """A Ctrl-C that landed in the driver between two steps left the DSN store's
    connection inside the call's transaction (the next call joined it: `pymem import`
    counted a batch as committed that was then rolled back, seen once in a full run) or
    its lock taken (the next call waited forever). Interrupted at each of its lines, the
    store's next call sees what was committed, no more."""
    with MemoryStore(fresh_dsn) as store, psycopg.connect(fresh_dsn, autocommit=True) as other:
        lines, _, _ = _upsert_traced(store, None)
        for hit in range(1, lines + 2):
            _, seen, interrupted = _upsert_traced(store, hit)
            committed = {
                row[0]
                for row in other.execute(
                    "SELECT content FROM pymem.memories WHERE user_id = 'ann'"
                ).fetchall()
            }
            assert seen == committed, hit
            if not interrupted:  # past the call's last line
                break
        assert hit > 20 and not interrupted
