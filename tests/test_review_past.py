"""resolve_review's `past`: the newer memory of a related pair speaks of a value the
older one has replaced ("back when she sold at the market" beside "sells on a livestream
now"). The newer row retires into the history; the older stays the current value, as it
was: not reinforced, no wording of it, its people its own."""

from __future__ import annotations

import pytest

from pymem.errors import InvalidDecision
from pymem.review import verdict
from tests.conftest import at_cosine, unit

USER = "chen"
NOW = "Xiaoyan sells her tea on a livestream every evening"
BEFORE = "Back when Xiaoyan had a stall at the market, she stood there all day"


def pair(store):
    current = store.upsert(USER, NOW, unit(0)).memory_id
    past = store.upsert(USER, BEFORE, at_cosine(0.8), contacts=["Xiaoyan"])
    assert (past.action, past.matched_id) == ("inserted", current)
    return current, past.memory_id


def row(conn, memory_id):
    return conn.execute(
        "SELECT content, deleted_at IS NULL, mention_count, importance, updated_at"
        " FROM pymem.memories WHERE id = %s",
        (memory_id,),
    ).fetchone()


def test_past_retires_the_newer_and_leaves_the_current_value_as_it_was(store, conn):
    current, past = pair(store)
    before = row(conn, current)
    assert store.resolve_review(USER, past, "past", reason="it speaks of before") == current
    assert row(conn, current) == before
    assert row(conn, past)[:2] == (BEFORE, False)
    assert conn.execute(
        "SELECT count(*) FROM pymem.memory_wordings WHERE memory_id = %s", (current,)
    ).fetchone() == (0,)
    (reason,) = conn.execute(
        "SELECT reason FROM pymem.memory_versions WHERE memory_id = %s", (past,)
    ).fetchone()
    assert reason == f"review: past, an earlier value of {current}; reason: it speaks of before"
    # the person the past statement named stays linked to it, not to the current value
    links = conn.execute("SELECT memory_id FROM pymem.contact_links WHERE user_id = %s", (USER,))
    assert [r[0] for r in links] == [past]
    assert [h.memory_id for h in store.recall(USER, at_cosine(0.8), k=5)] == [current]
    assert store.pending_reviews(USER) == []
    # and undone, the past statement is back
    store.undo(USER, past)
    assert row(conn, past)[:2] == (BEFORE, True)


def test_past_is_for_a_related_pair_only(store, conn):
    current, past = pair(store)
    store.resolve_review(USER, past, "conflict")
    with pytest.raises(InvalidDecision, match="not past"), conn.transaction():
        store.resolve_review(USER, past, "past")
    assert {m.memory_id for m in store.get_memories(USER)} == {current, past}


def test_a_judge_may_answer_past():
    assert verdict({"decision": "past", "reason": "about before"}).decision == "past"


def test_the_review_worker_applies_a_judges_past(fresh_dsn):
    from pymem import MemoryStore
    from pymem.review import ReviewWorker

    with MemoryStore(fresh_dsn) as store:
        current, past = pair(store)
        assert {m.memory_id for m in store.get_memories(USER)} == {current, past}
        worker = ReviewWorker(store, lambda review: ("past", "it speaks of before"), batch=4)
        counts = worker.drain()
        assert counts.decided == {"past": 1}
        assert [m.memory_id for m in store.get_memories(USER)] == [current]
        assert store.pending_reviews(USER) == []
