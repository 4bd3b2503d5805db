"""Reading memories through the API: get_memories and memory_history (what the CLI, the
eval and the README show, without reading pymem's tables)."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from pymem import MemoryStore
from pymem.errors import InvalidUserId, MemoryNotFound
from tests.conftest import at_cosine, unit


@pytest.fixture
def store(fresh_dsn):
    """Each call a transaction of its own: rows get the times they were written at."""
    with MemoryStore(fresh_dsn) as s:
        yield s


def test_get_memories_lists_the_live_ones_oldest_first(store, fresh_dsn):
    tea = store.upsert("ann", "Ann drinks green tea", unit(0), "preference", importance=0.8)
    chess = store.upsert("ann", "Ann plays chess", unit(1), topic="hobby")
    gone = store.upsert("ann", "Ann owns a red bicycle", unit(2))
    store.upsert("bob", "Bob plays chess", unit(1))
    with psycopg.connect(fresh_dsn) as conn:
        conn.execute(
            "UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (gone.memory_id,)
        )
    rows = store.get_memories("ann")
    assert [r.memory_id for r in rows] == [tea.memory_id, chess.memory_id]
    first = rows[0]
    assert (first.kind, first.content, first.importance, first.source, first.tier) == (
        "preference", "Ann drinks green tea", 0.8, "stated", "hot",
    )  # fmt: skip
    assert rows[1].topic == "hobby" and rows[1].mention_count == 1
    assert [r.content for r in store.get_memories("ann", [chess.memory_id])] == ["Ann plays chess"]


def test_get_memories_of_ids_that_are_not_live_is_pm011(store):
    mine = store.upsert("ann", "Ann drinks green tea", unit(0))
    bobs = store.upsert("bob", "Bob plays chess", unit(1))
    with pytest.raises(MemoryNotFound, match=str(bobs.memory_id)):
        store.get_memories("ann", [mine.memory_id, bobs.memory_id])
    with pytest.raises(InvalidUserId):
        store.get_memories(" ")


def test_memory_history_keeps_what_supersede_replaced(store):
    old = store.upsert("ann", "My A1C is 7.2%", unit(0))
    new = store.upsert("ann", "My A1C is 6.8%", at_cosine(0.99))
    assert new.action == "superseded" and new.memory_id == old.memory_id
    store.upsert("ann", "Ann is learning React", unit(3), topic="skill:react")
    store.upsert("ann", "Ann is proficient in React", at_cosine(0.8, 3, 4), topic="skill:react")
    (a1c,) = store.memory_history("ann", old.memory_id)
    assert (a1c.version, a1c.content) == (1, "My A1C is 7.2%")
    assert a1c.reason.startswith("superseded: same statement, new value")
    assert [v.content for v in store.memory_history("ann")] == [
        "My A1C is 7.2%",
        "Ann is learning React",
    ]
    assert store.memory_history("bob") == []
    with pytest.raises(MemoryNotFound):
        store.memory_history("bob", old.memory_id)
    with pytest.raises(MemoryNotFound):
        store.memory_history("ann", uuid.uuid4())


def test_memory_history_keeps_a_memorys_versions_in_their_order(store, fresh_dsn):
    """A version's time is its writer's transaction start: a writer that began before
    another one committed wrote the later version with the earlier time, and the
    history listed version 2 before version 1."""
    first = store.upsert("bo", "Bo pays 2000 yuan rent", unit(0))
    with psycopg.connect(fresh_dsn) as late:
        late.execute("SELECT now()")  # its transaction (and its now()) starts here
        assert store.upsert("bo", "Bo pays 2400 yuan rent", unit(0)).action == "superseded"
        assert MemoryStore(late).upsert("bo", "Bo pays 2600 yuan rent", unit(0)).action == (
            "superseded"
        )
        late.commit()
    store.upsert("bo", "Bo plays go", unit(1))
    for history in (store.memory_history("bo", first.memory_id), store.memory_history("bo")):
        assert [(v.version, v.content) for v in history] == [
            (1, "Bo pays 2000 yuan rent"),
            (2, "Bo pays 2400 yuan rent"),
        ]
