"""Faults: a lost connection, timeouts and a backend killed mid-call surface as
pymem errors, leave the store exactly as before the call, and the store
recovers on its next call."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from pymem import MemoryStore
from pymem.errors import ConnectionLost, LockTimeout, QueryCanceled
from tests.conftest import unit
from tests.helpers import the_only_backend


def _tables(conn) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT oid::regclass::text FROM pg_class WHERE relnamespace = 'pymem'::regnamespace"
            " AND relkind = 'r' ORDER BY 1"
        )
    ]


def _state(dsn: str) -> dict[str, list[str]]:
    """Every row of every pymem table, as text."""
    with psycopg.connect(dsn) as conn:
        return {
            t: [r[0] for r in conn.execute(f"SELECT to_jsonb(x)::text FROM {t} AS x ORDER BY 1")]
            for t in _tables(conn)
        }


def _terminate(dsn: str, pid: int) -> None:
    with psycopg.connect(dsn, autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)


def test_a_store_reconnects_after_its_connection_is_killed(fresh_dsn):
    with MemoryStore(fresh_dsn) as store:
        first = store.upsert("ann", "Ann plays chess", unit(0))
        _terminate(fresh_dsn, the_only_backend(fresh_dsn))  # what a server restart does
        with pytest.raises(ConnectionLost, match="connection to the database lost"):
            store.recall("ann", unit(0), 1)
        # the next call runs on a new connection
        assert [h.memory_id for h in store.recall("ann", unit(0), 1)] == [first.memory_id]
        # and a new store in the same process works too
        with MemoryStore(fresh_dsn) as other:
            assert other.upsert("ann", "Ann plays chess.", unit(0)).action == "duplicate"


def test_statement_timeout_is_a_pymem_error_and_writes_nothing(conn):
    store = MemoryStore(conn)
    store.upsert("ann", "Ann plays go", unit(0))
    conn.execute(
        "CREATE FUNCTION pg_temp.slow() RETURNS trigger LANGUAGE plpgsql"
        " AS $$ BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$"
    )
    conn.execute(
        "CREATE TRIGGER slow BEFORE INSERT ON pymem.memories FOR EACH ROW"
        " EXECUTE FUNCTION pg_temp.slow()"
    )
    conn.execute("SET LOCAL statement_timeout = '100ms'")
    with pytest.raises(QueryCanceled, match="statement timeout") as raised, conn.transaction():
        store.upsert("ann", "Ann plays chess", unit(1))
    assert raised.value.sqlstate == "57014"
    assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone() == (1,)


def test_lock_timeout_is_a_pymem_error(fresh_dsn):
    with psycopg.connect(fresh_dsn) as holder, psycopg.connect(fresh_dsn) as waiter:
        MemoryStore(holder).upsert("ann", "Ann plays go", unit(0))  # holds ann's lock, open
        waiter.execute("SET lock_timeout = '100ms'")
        with pytest.raises(LockTimeout) as raised:
            MemoryStore(waiter).upsert("ann", "Ann plays chess", unit(1))
        assert raised.value.sqlstate == "55P03"
        waiter.rollback()
        holder.rollback()
        # bob is not ann: no wait
        assert MemoryStore(waiter).upsert("bob", "Bob plays chess", unit(1)).action == "inserted"


def _kill_mid_call(dsn: str, call) -> BaseException | None:
    """Run ``call(store)`` in a thread; terminate its backend while it sleeps in
    the slow trigger; return what the call raised."""
    store = MemoryStore(dsn)
    store.schema_version()  # connected, schema checked
    pid = the_only_backend(dsn)
    raised: list[BaseException] = []

    def run():
        try:
            call(store)
        except BaseException as exc:  # asserted by the caller
            raised.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    with psycopg.connect(dsn, autocommit=True) as watcher:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            calls = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = %s AND wait_event = 'PgSleep'",
                (pid,),
            ).fetchone()[0]
            if calls:
                break
            time.sleep(0.01)
        time.sleep(0.1)  # a few rows into the call
        watcher.execute("SELECT pg_terminate_backend(%s)", (pid,))
    thread.join(10)
    store.close()
    return raised[0] if raised else None


def test_a_backend_killed_mid_call_leaves_the_store_as_before(fresh_dsn):
    with MemoryStore(fresh_dsn) as store:
        ids = [store.upsert("ann", f"Ann fact number {i}", unit(i)).memory_id for i in range(6)]
    with psycopg.connect(fresh_dsn, autocommit=True) as owner:
        owner.execute(
            "CREATE FUNCTION public.slow() RETURNS trigger LANGUAGE plpgsql"
            " AS $$ BEGIN PERFORM pg_sleep(0.04); RETURN NEW; END $$"
        )
        owner.execute(
            "CREATE TRIGGER slow BEFORE INSERT OR UPDATE ON pymem.memories FOR EACH ROW"
            " EXECUTE FUNCTION public.slow()"
        )
    batch = [{"content": f"Ann batch fact {i}", "embedding": unit(20 + i)} for i in range(30)]
    plan = [
        {"op": "update", "id": str(i), "content": f"Ann fact {n} v2", "embedding": unit(40 + n)}
        for n, i in enumerate(ids)
    ]
    calls = {
        "a batch": lambda s: s.upsert_many("ann", batch),
        "a maintenance plan": lambda s: s.apply_maintenance("ann", plan),
        "a decay run": lambda s: s.apply_decay(cold_below=1.0),
        # (the record keeps every source's number: pymem._consolidate refuses one that drops it)
        "a consolidation": lambda s: s.consolidate(
            "ann", ids, "Ann's facts number 0, 1, 2, 3, 4 and 5", unit(60)
        ),
    }
    for name, call in calls.items():
        before = _state(fresh_dsn)
        raised = _kill_mid_call(fresh_dsn, call)
        assert isinstance(raised, ConnectionLost), (name, raised)
        assert _state(fresh_dsn) == before, name
    # nothing was half done: the same batch goes through whole afterwards
    with MemoryStore(fresh_dsn) as store:
        results = store.upsert_many("ann", batch[:3])
        assert [r.action for r in results] == ["inserted"] * 3
