"""Serialization failures are retried when the wrapper owns the transaction.

Under SERIALIZABLE, a writer whose snapshot predates another writer's commit (it waited for
the same user's lock) fails with 40001; its call wrote nothing, so the wrapper runs it again
and the second run sees the first writer's row. In the caller's transaction it is raised.
"""

from __future__ import annotations

import asyncio
import threading
import time

import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg.conninfo import make_conninfo

from pymem import AsyncMemoryStore, MemoryStore
from pymem.errors import SerializationFailure
from tests.conftest import unit


def _serializable(dsn: str) -> str:
    return make_conninfo(dsn, options="-c default_transaction_isolation=serializable")


class _AsyncStoreInAThread:
    """The async store, for _race's writer thread: each upsert runs on a loop of its own."""

    def __init__(self, dsn: str, retries: int):
        self.dsn, self.retries = dsn, retries

    def upsert(self, *args):
        async def main():
            async with AsyncMemoryStore(self.dsn, retries=self.retries) as store:
                return await store.upsert(*args)

        return asyncio.run(main())

    def close(self) -> None:
        pass  # closed by its loop


def _race(dsn: str, retries: int, store_type=MemoryStore):
    """A holds the user's lock with the fact written but not committed; the store's call
    starts (its snapshot taken) and waits for the lock; A commits."""
    result: dict = {}
    with psycopg.connect(_serializable(dsn)) as a:
        register_vector(a)
        a.execute("SELECT * FROM pymem.upsert_memory('u', 'likes green tea', %s)", (unit(0),))
        store = store_type(_serializable(dsn), retries=retries)

        def write():
            try:
                result["row"] = store.upsert("u", "likes green tea", unit(0))
            except Exception as exc:  # asserted below
                result["error"] = exc

        thread = threading.Thread(target=write)
        thread.start()
        for _ in range(200):  # until the store's call waits for the lock
            waiting = a.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            ).fetchone()[0]
            if waiting:
                break
            time.sleep(0.01)
        a.commit()
        thread.join(timeout=30)
        store.close()
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0]
    return result, rows


def test_without_retries_the_stale_snapshot_fails(fresh_dsn):
    result, rows = _race(fresh_dsn, retries=0)
    assert isinstance(result.get("error"), SerializationFailure), result
    assert rows == 1


def test_the_wrapper_retries_and_finds_the_duplicate(fresh_dsn):
    result, rows = _race(fresh_dsn, retries=3)
    assert "error" not in result, result
    assert result["row"].action == "duplicate"
    assert rows == 1


def _commit_a_policy(dsn: str) -> None:
    """Another writer commits a row that the caller's snapshot, taken before, does not see."""
    with psycopg.connect(dsn, autocommit=True) as other:
        other.execute("SELECT pymem.set_fact_policy('diet_*', 'confirm')")


def _memories(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0]


def test_the_callers_transaction_is_not_retried(fresh_dsn):
    # the caller's transaction is aborted by the failure: the call is not run again in it
    # (a retry there fails with InFailedSqlTransaction), the caller gets the failure itself,
    # and its rollback undoes its earlier work too
    with psycopg.connect(_serializable(fresh_dsn)) as conn:
        store = MemoryStore(conn, retries=3)
        store.upsert("v", "likes black coffee", unit(1))  # the snapshot is taken here
        _commit_a_policy(fresh_dsn)
        with pytest.raises(SerializationFailure):
            store.set_fact_policy("diet_*", "latest_wins")
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
        conn.rollback()
    assert _memories(fresh_dsn) == 0


def test_a_callers_transaction_block_on_an_autocommit_connection_is_not_retried(fresh_dsn):
    # an autocommit connection inside the caller's `with conn.transaction()` is the
    # caller's transaction too: both stores retried there (they asked whether the
    # connection was autocommit), and the caller got InFailedSqlTransaction from the
    # retry in its aborted block instead of the serialization failure
    with psycopg.connect(_serializable(fresh_dsn), autocommit=True) as conn:
        store = MemoryStore(conn, retries=3)
        with pytest.raises(SerializationFailure), conn.transaction():
            store.upsert("v", "likes black coffee", unit(1))
            _commit_a_policy(fresh_dsn)
            store.set_fact_policy("diet_*", "latest_wins")
    assert _memories(fresh_dsn) == 0

    async def main():
        connecting = psycopg.AsyncConnection.connect(_serializable(fresh_dsn), autocommit=True)
        async with await connecting as conn:
            store = AsyncMemoryStore(conn, retries=3)
            with pytest.raises(SerializationFailure):
                async with conn.transaction():
                    await store.upsert("v", "likes black coffee", unit(1))
                    _commit_a_policy(fresh_dsn)
                    await store.set_fact_policy("diet_*", "latest_wins")

    asyncio.run(main())
    assert _memories(fresh_dsn) == 0


@pytest.mark.parametrize("retries", [0, 3])
def test_retries_is_an_option_of_both_stores(fresh_dsn, retries):
    # the async store's call in the same race: raised without retries, retried with them
    result, rows = _race(fresh_dsn, retries, _AsyncStoreInAThread)
    if retries:
        assert "error" not in result, result
        assert result["row"].action == "duplicate"
    else:
        assert isinstance(result.get("error"), SerializationFailure), result
    assert rows == 1
