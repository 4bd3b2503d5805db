"""Serialization failures are retried when the wrapper owns the transaction.

Under SERIALIZABLE, a writer whose snapshot predates another writer's commit (it waited for
the same user's lock) fails with 40001; its call wrote nothing, so the wrapper runs it again
and the second run sees the first writer's row.
"""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg.conninfo import make_conninfo

from pymem import MemoryStore
from pymem.errors import SerializationFailure
from tests.conftest import unit


def _serializable(dsn: str) -> str:
    return make_conninfo(dsn, options="-c default_transaction_isolation=serializable")


def _race(dsn: str, retries: int):
    """A holds the user's lock with the fact written but not committed; the store's call
    starts (its snapshot taken) and waits for the lock; A commits."""
    result: dict = {}
    with psycopg.connect(_serializable(dsn)) as a:
        register_vector(a)
        a.execute("SELECT * FROM pymem.upsert_memory('u', 'likes green tea', %s)", (unit(0),))
        store = MemoryStore(_serializable(dsn), retries=retries)

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


def test_the_callers_transaction_is_not_retried(fresh_dsn):
    with psycopg.connect(_serializable(fresh_dsn)) as conn:
        store = MemoryStore(conn, retries=3)
        assert not store._owns_transactions()


@pytest.mark.parametrize("retries", [0, 3])
def test_retries_is_an_option_of_both_stores(retries):
    from pymem import AsyncMemoryStore

    assert AsyncMemoryStore("dbname=x", retries=retries)._retries == retries
