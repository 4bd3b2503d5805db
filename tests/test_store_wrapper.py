"""The Python wrapper's plumbing: pools as the README sets them up, a Ctrl-C between a
call's steps, the arguments it passes through to the server unchanged."""

from __future__ import annotations

import asyncio
import sys
import threading

import numpy as np
import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from pymem import AsyncMemoryStore, MemoryStore, configure_connection, configure_connection_async
from pymem.errors import (
    ConnectionLost,
    ContactNotFound,
    InvalidContactAttributes,
    InvalidEmbedding,
    InvalidParameter,
    MemoryNotFound,
    PymemError,
)
from tests.conftest import unit
from tests.helpers import interrupting


def _contents(dsn: str, user: str) -> set[str]:
    with psycopg.connect(dsn) as other:
        rows = other.execute(
            "SELECT content FROM pymem.memories WHERE user_id = %s", (user,)
        ).fetchall()
    return {row[0] for row in rows}


def test_the_readme_pool_setup_works_as_written(fresh_dsn):
    # README: ConnectionPool(configure=pymem.configure_connection), the pool's default
    # (not autocommit) connections: configure left each one in a transaction, the pool
    # discarded it, and every call ended in PoolExhausted
    with ConnectionPool(
        fresh_dsn, min_size=1, max_size=2, timeout=2, configure=configure_connection
    ) as pool:
        store = MemoryStore(pool)
        assert store.upsert("ann", "Ann plays chess", unit(0)).action == "inserted"
        assert store.upsert("ann", "Ann plays chess.", unit(0)).action == "duplicate"
    assert _contents(fresh_dsn, "ann") == {"Ann plays chess"}


def test_the_readme_async_pool_setup_works_as_written(fresh_dsn):
    async def main():
        async with AsyncConnectionPool(
            fresh_dsn, min_size=1, max_size=2, timeout=2, configure=configure_connection_async
        ) as pool:
            store = AsyncMemoryStore(pool)
            return (await store.upsert("bob", "Bob plays go", unit(1))).action

    assert asyncio.run(main()) == "inserted"
    assert _contents(fresh_dsn, "bob") == {"Bob plays go"}


# -- a Ctrl-C anywhere in the wrapper's Python -------------------------------------------


def _within_seconds(seconds: float, call):
    """``call()``'s result or exception, or a failure when it does not return in time (a
    lock that an interrupted call kept makes the next call wait forever)."""
    box = []

    def run():
        try:
            box.append(call())
        except Exception as exc:
            box.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert box, f"the next call did not return in {seconds} s"
    return box[0]


def _sweep(store: MemoryStore, dsn: str, user: str, *, driver_only: bool = False) -> int:
    with psycopg.connect(dsn, autocommit=True) as other:
        return _swept(store, other, user, driver_only)


def _swept(store: MemoryStore, other: psycopg.Connection, user: str, driver_only: bool) -> int:
    """One upsert interrupted at each line the wrapper runs in turn; after each, the
    store's next call returns, sees what was committed and no more, and later writes
    commit. The number of lines."""
    hit = 0
    while True:
        hit += 1
        trace = interrupting(hit, driver_only=driver_only)
        sys.settrace(trace)
        try:
            store.upsert(user, f"{user}'s locker is number {hit}", unit(hit))
            interrupted = False
        except KeyboardInterrupt:
            interrupted = True
        finally:
            sys.settrace(None)
        seen = _within_seconds(3, lambda: {h.content for h in store.recall(user, unit(0), 500)})
        committed = other.execute(
            "SELECT content FROM pymem.memories WHERE user_id = %s", (user,)
        ).fetchall()
        assert seen == {row[0] for row in committed}, (hit, seen)
        if not interrupted:
            break
    # writes after all those interruptions commit
    assert store.upsert(user, "a later write", unit(0)).action == "inserted"
    assert other.execute(
        "SELECT count(*) FROM pymem.memories WHERE content = 'a later write'"
    ).fetchone() == (1,)
    return hit


def test_a_ctrl_c_between_steps_on_the_callers_autocommit_connection_loses_no_later_write(
    fresh_dsn,
):
    # landing in the step driver inside the call's own transaction, it left the
    # connection in it: later calls took it for the caller's, joined it, said "inserted"
    # and nothing ever committed
    conn = psycopg.connect(fresh_dsn, autocommit=True)
    try:  # not `with`: its exit would wait for a call that hung
        assert _sweep(MemoryStore(conn), fresh_dsn, "dee", driver_only=True) > 20
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    finally:
        conn.close()


def test_a_ctrl_c_anywhere_on_the_callers_autocommit_connection_loses_no_later_write(
    fresh_dsn,
):
    # landing between two steps of the call's own transaction, it left the connection in
    # it: later calls took it for the caller's, joined it, said "inserted" and nothing
    # ever committed; in the lock's bookkeeping, it left the lock held (the next call
    # waited forever); elsewhere the next call raised OutOfOrderTransactionNesting
    conn = psycopg.connect(fresh_dsn, autocommit=True)
    try:
        assert _sweep(MemoryStore(conn), fresh_dsn, "ann") > 50
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    finally:
        conn.close()


def test_a_ctrl_c_anywhere_on_a_pool_store_leaks_no_connection(fresh_dsn):
    # landing between the pool's enter step and the next, it lost the connection: with
    # max_size=1 every later call raised PoolExhausted
    with ConnectionPool(
        fresh_dsn, min_size=1, max_size=1, timeout=1, kwargs={"autocommit": True}
    ) as pool:
        assert _sweep(MemoryStore(pool), fresh_dsn, "bob") > 50


def test_a_ctrl_c_anywhere_on_a_dsn_store_never_leaves_its_lock_held(fresh_dsn):
    with MemoryStore(fresh_dsn) as store:
        assert _sweep(store, fresh_dsn, "cy") > 50


# -- what the wrapper sends ---------------------------------------------------------------


def test_an_unreachable_dsn_is_connection_lost_for_both_stores(fresh_dsn):
    # the sync store's constructor raised a raw psycopg.OperationalError
    bad = make_conninfo(fresh_dsn, dbname="pymem_no_such_database")
    with pytest.raises(ConnectionLost, match="cannot connect to PostgreSQL"):
        MemoryStore(bad)

    async def first_call():
        with pytest.raises(ConnectionLost, match="cannot connect to PostgreSQL"):
            await AsyncMemoryStore(bad).get_settings()

    asyncio.run(first_call())


def test_none_for_a_contact_or_an_id_is_null_not_the_text_none(fresh_dsn):
    # str(None) was sent: a contact named "None" was acted on, and a uuid parameter
    # failed to parse '"None"' (22P02) instead of the server's answer to NULL
    with MemoryStore(fresh_dsn) as store:
        memory = store.upsert("ann", "Ann's cat is called None", unit(0)).memory_id
        named_none = store.sync_contact("ann", "None", [memory], relationship="cat")
        with pytest.raises(ContactNotFound):
            store.contact_card("ann", None)
        with pytest.raises(ContactNotFound):
            store.contact_memories("ann", None)
        with pytest.raises(ContactNotFound):
            store.consolidate_contact("ann", None, "a cat")
        with pytest.raises(ContactNotFound):
            store.merge_contacts("ann", named_none, None)
        for call in (
            lambda: store.resolve_review("ann", None, "keep_both"),
            lambda: store.unconsolidate("ann", None),
        ):
            with pytest.raises(PymemError) as info:
                call()
            assert info.value.sqlstate.startswith("PM"), info.value
        assert store.release_review("ann", None, "worker") == "not held"
        # inside an id list too: NULL, which the server names, not the text 'None'
        with pytest.raises(MemoryNotFound, match="no memory NULL"):
            store.get_memories("ann", [memory, None])


def test_metadata_details_and_attributes_go_to_the_server_as_they_are(fresh_dsn):
    # dict() in the wrapper raised a raw TypeError/ValueError for what is not an object,
    # and made a list of pairs an object the server (and upsert_many) refuses
    with MemoryStore(fresh_dsn) as store:
        with pytest.raises(InvalidParameter):
            store.upsert("ann", "Ann runs", unit(0), metadata=[1, 2])
        with pytest.raises(InvalidParameter):
            store.upsert("ann", "Ann runs", unit(0), details=[("k", "v")])
        with pytest.raises(InvalidContactAttributes):
            store.sync_contact("ann", "Joe", attributes=[1])
        one = store.upsert("ann", "Ann runs", unit(0), details={"k": "v"}).memory_id
        two = store.upsert("ann", "Ann swims", unit(1)).memory_id
        with pytest.raises(InvalidParameter):
            store.consolidate("ann", [one, two], "Ann runs and swims", unit(0), details=[1])
        assert [m.details for m in store.get_memories("ann", [one])] == [{"k": "v"}]


def test_a_batch_given_as_a_generator_is_read_once(fresh_dsn):
    # upsert_many's typed form consumed it: a batch that was not all plain then went as
    # JSON with no items left, returned [] and wrote nothing; import_memories raised
    # StopIteration looking for the item at fault
    bools = [True] + [False] * 511
    items = [
        {"content": "Ann plays chess", "embedding": unit(0)},
        {"content": "Ann plays go", "embedding": bools},
    ]
    with MemoryStore(fresh_dsn) as store:
        with pytest.raises(InvalidEmbedding, match="item 2"):
            store.upsert_many("ann", (item for item in items))
        with pytest.raises(InvalidEmbedding, match="item 2"):
            store.import_memories("ann", "file", [1, 2], (item for item in items))
        plain = ({"content": f"Ann's note {i}", "embedding": unit(i)} for i in range(2))
        assert [r.action for r in store.upsert_many("ann", plain)] == ["inserted"] * 2


@pytest.mark.parametrize(
    "embedding",
    [[True] + [False] * 511, np.array([1j] + [0j] * 511), [1.0 + 1j] + [0.0] * 511],
    ids=["booleans", "complex array", "complex list"],
)
def test_booleans_and_complex_numbers_are_refused_by_every_call_alike(conn, embedding):
    # upsert and recall took booleans for 1 and 0 where upsert_many and import refused
    # them; complex numbers lost their imaginary part
    store = MemoryStore(conn)
    item = {"content": "Ann plays chess", "embedding": embedding}
    calls = [
        lambda: store.upsert("ann", "Ann plays chess", embedding),
        lambda: store.recall("ann", embedding),
        lambda: store.upsert_many("ann", [item]),
        lambda: store.import_memories("ann", "file", [1], [item]),
    ]
    for call in calls:
        with pytest.raises(InvalidEmbedding, match=r"booleans|complex"):
            call()
