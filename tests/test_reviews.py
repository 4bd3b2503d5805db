"""The review queue of the write path: related pairs queued, listed, resolved, undone,
announced once; people named on write linked in the same call."""

from __future__ import annotations

import json

import psycopg
import pytest

from pymem import MemoryStore
from pymem.errors import InvalidBatch, InvalidDecision, InvalidParameter, NoPendingReview
from tests.conftest import at_cosine, unit

USER = "ann"
OLD, NEW = "likes green tea", "enjoys oolong"  # swap every content term: never a duplicate
BAND = 0.8  # between the test database's supersede (0.75) and dedup (0.92) thresholds
# what the write says, and the review's note keeps: the rule and the guards that fired
WHY = (
    "related band, no evidence of the same slot;"
    " not a duplicate: terms changed, below the duplicate threshold"
)


def related_pair(store: MemoryStore):
    old = store.upsert(USER, OLD, unit(0))
    new = store.upsert(USER, NEW, at_cosine(BAND))
    assert (new.action, new.matched_id, new.rule) == (
        "inserted",
        old.memory_id,
        WHY,
    )
    return old.memory_id, new.memory_id


def live(conn, memory_id) -> tuple[str, bool]:
    return conn.execute(
        "SELECT content, deleted_at IS NULL FROM pymem.memories WHERE id = %s", (memory_id,)
    ).fetchone()


def test_related_pair_is_listed(store, conn):
    old, new = related_pair(store)
    (review,) = store.pending_reviews(USER)
    assert (review.cause, review.memory_id, review.matched_id) == ("related", new, old)
    assert review.similarity == pytest.approx(BAND, abs=1e-4)
    assert (review.content, review.matched_content) == (NEW, OLD)
    assert review.note == WHY
    assert store.pending_reviews("someone else") == []


def test_keep_both(store, conn):
    old, new = related_pair(store)
    assert store.resolve_review(USER, new, "keep_both") == new
    assert live(conn, old) == (OLD, True)
    assert live(conn, new) == (NEW, True)
    assert store.pending_reviews(USER) == []
    with pytest.raises(NoPendingReview), conn.transaction():
        store.resolve_review(USER, new, "keep_both")


def test_supersede_moves_the_new_text_into_the_old_memory_and_undo_restores(store, conn):
    old, new = related_pair(store)
    assert store.resolve_review(USER, new, "supersede") == old
    assert live(conn, old) == (NEW, True)
    assert live(conn, new) == (NEW, False)
    reasons = {
        memory_id: reason
        for memory_id, reason in conn.execute(
            "SELECT memory_id, reason FROM pymem.memory_versions WHERE memory_id = ANY(%s)",
            ([old, new],),
        )
    }
    assert reasons == {
        old: f"review: superseded by {new}",
        new: f"review: supersede, merged into {old}",
    }
    # every decision can be undone: the old text back, the retired row back
    store.undo(USER, old)
    store.undo(USER, new)
    assert live(conn, old) == (OLD, True)
    assert live(conn, new) == (NEW, True)


def test_duplicate_retires_the_new_row_and_reinforces_the_old(store, conn):
    old = store.upsert(USER, OLD, unit(0), importance=0.3).memory_id
    new = store.upsert(USER, NEW, at_cosine(BAND), importance=0.9, source="confirmed")
    assert store.resolve_review(USER, new.memory_id, "duplicate") == old
    row = conn.execute(
        "SELECT content, importance, source, mention_count FROM pymem.memories WHERE id = %s",
        (old,),
    ).fetchone()
    assert row == (OLD, 0.9, "confirmed", 2)
    assert live(conn, new.memory_id) == (NEW, False)
    # a retired memory is not found by recall any more
    hits = store.recall(USER, at_cosine(BAND), k=5)
    assert [h.memory_id for h in hits] == [old]


def test_bad_decisions_and_ids(store, conn):
    old, new = related_pair(store)
    for bad in ["merge", "", None]:
        with pytest.raises(InvalidDecision), conn.transaction():
            store.resolve_review(USER, new, bad)
    # the older memory has no review of its own; another user sees nothing to resolve
    with pytest.raises(NoPendingReview), conn.transaction():
        store.resolve_review(USER, old, "keep_both")
    with pytest.raises(NoPendingReview), conn.transaction():
        store.resolve_review("bob", new, "supersede")
    assert live(conn, old) == (OLD, True)
    assert len(store.pending_reviews(USER)) == 1


def test_on_related_insert_and_supersede_queue_nothing(store, conn):
    store.upsert(USER, OLD, unit(0))
    ins = store.upsert(USER, NEW, at_cosine(BAND), on_related="insert")
    assert ins.action == "inserted" and ins.matched_id is not None
    sup = store.upsert(USER, "prefers sencha", at_cosine(BAND, other=2), on_related="supersede")
    assert sup.action == "superseded"
    assert store.pending_reviews(USER) == []
    with pytest.raises(InvalidParameter, match="on_related"), conn.transaction():
        store.upsert(USER, "reads poetry", unit(3), on_related="ask")


def test_other_reviews_of_a_retired_memory_move_to_the_survivor(store, conn):
    old = store.upsert(USER, OLD, unit(0)).memory_id
    new = store.upsert(USER, NEW, at_cosine(BAND)).memory_id
    other = store.upsert(USER, "collects stamps", unit(7)).memory_id
    for a, b, note in [(new, old, "also flagged"), (new, other, "contradicts the stamps")]:
        conn.execute(
            "INSERT INTO pymem.reviews (user_id, cause, memory_id, matched_id, note)"
            " VALUES (%s, 'conflict', %s, %s, %s)",
            (USER, a, b, note),
        )
    store.resolve_review(USER, new, "duplicate")
    # the pair (new, old) has nothing left to decide; (new, other) is now (old, other)
    (left,) = store.pending_reviews(USER)
    assert (left.cause, left.memory_id, left.matched_id, left.note) == (
        "conflict",
        old,
        other,
        "contradicts the stamps",
    )
    decisions = sorted(str(r[0]) for r in conn.execute("SELECT decision FROM pymem.reviews"))
    assert decisions == ["None", "duplicate", "obsolete"]


def test_a_moved_conflict_review_meets_the_same_pair_in_the_other_order(store, conn):
    """A conflict has no direction: (other, old) after the move is the open (old, other)."""
    old = store.upsert(USER, OLD, unit(0)).memory_id
    new = store.upsert(USER, NEW, at_cosine(BAND)).memory_id
    other = store.upsert(USER, "collects stamps", unit(7)).memory_id
    store.flag_conflict(USER, other, new, "the stamps again")
    first = store.flag_conflict(USER, old, other, "contradicts the stamps")
    store.resolve_review(USER, new, "duplicate")
    conflicts = [r for r in store.pending_reviews(USER) if r.cause == "conflict"]
    assert [(r.review_id, r.note) for r in conflicts] == [(first, "contradicts the stamps")]
    assert store.flag_conflict(USER, other, old) == first


def test_review_due_is_announced_once_after_commit(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as listener:
        listener.execute("LISTEN pymem_events")
        with psycopg.connect(fresh_dsn, autocommit=True) as conn:
            store = MemoryStore(conn)
            old = store.upsert(USER, OLD, unit(0)).memory_id
            with conn.transaction():
                new = store.upsert(USER, NEW, at_cosine(BAND)).memory_id
                # nothing is heard before the commit
                assert list(listener.notifies(timeout=0.2, stop_after=1)) == []
            # the same pair again: a duplicate of the new row, no second review
            again = store.upsert(USER, NEW, at_cosine(BAND))
            assert again.action == "duplicate"
        events = [json.loads(n.payload) for n in listener.notifies(timeout=0.5, stop_after=5)]
    assert [(e["event"], e["user_id"], e["ids"]) for e in events] == [
        ("review_due", USER, [str(new), str(old)])
    ]


def test_rolled_back_write_announces_nothing(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as listener:
        listener.execute("LISTEN pymem_events")
        with psycopg.connect(fresh_dsn) as conn:
            store = MemoryStore(conn)
            store.upsert(USER, OLD, unit(0))
            store.upsert(USER, NEW, at_cosine(BAND))
            conn.rollback()
        assert list(listener.notifies(timeout=0.3, stop_after=1)) == []


# --- people named on write ------------------------------------------------------------------


def test_contacts_on_write_link_the_memory_in_the_same_call(store, conn):
    r = store.upsert(USER, "Xiaohong works at Tencent", unit(0), contacts=["小红", " "])
    (person,) = store.recent_contacts(USER, k=5)
    assert person.name == "小红"
    memories = store.contact_memories(USER, "小红")
    assert [(m.memory_id, m.found_by) for m in memories] == [(r.memory_id, "link")]


def test_contacts_on_batch_items_map_by_ordinal(store, conn):
    results = store.upsert_many(
        USER,
        [
            {"content": "Xiaohong has a cat", "embedding": unit(1), "contacts": ["小红"]},
            {"content": "Bob plays chess", "embedding": unit(2), "contacts": ["Bob", "Alice"]},
            {"content": "Xiaohong has a cat", "embedding": unit(1), "contacts": ["Alice"]},
        ],
    )
    assert [r.action for r in results] == ["inserted", "inserted", "duplicate"]
    cat, chess = results[0].memory_id, results[1].memory_id
    links = {
        (name, memory_id)
        for name, memory_id in conn.execute(
            "SELECT c.name, l.memory_id FROM pymem.contact_links AS l"
            " JOIN pymem.contacts AS c ON (c.user_id, c.id) = (l.user_id, l.contact_id)"
        )
    }
    # a duplicate links the existing memory to the people it names
    assert links == {("小红", cat), ("Bob", chess), ("Alice", chess), ("Alice", cat)}


def test_contacts_key_of_the_wrong_type_fails_the_whole_batch(store, conn):
    with pytest.raises(InvalidBatch, match="item 2: contacts must be a JSON array"):
        store.upsert_many(
            USER,
            [
                {"content": "Bob plays chess", "embedding": unit(2), "contacts": ["Bob"]},
                {"content": "Ann sings", "embedding": unit(3), "contacts": "Ann"},
            ],
        )
    conn.rollback()
    assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM pymem.contacts").fetchone()[0] == 0


def test_links_of_a_retired_memory_move_to_the_survivor(store, conn):
    old = store.upsert(USER, OLD, unit(0), contacts=["Bob"]).memory_id
    new = store.upsert(USER, NEW, at_cosine(BAND), contacts=["Carol"]).memory_id
    assert store.resolve_review(USER, new, "supersede") == old
    links = {
        (name, memory_id)
        for name, memory_id in conn.execute(
            "SELECT c.name, l.memory_id FROM pymem.contact_links AS l"
            " JOIN pymem.contacts AS c ON (c.user_id, c.id) = (l.user_id, l.contact_id)"
        )
    }
    assert links == {("Bob", old), ("Carol", old)}


def test_a_consolidated_memory_is_not_resolved_away(store, conn):
    """The review of a memory then consolidated concerns its record: the fragment has no
    review left to resolve it away, and the record's is decided like any other."""
    old, new = related_pair(store)
    other = store.upsert(USER, "collects stamps", unit(7)).memory_id
    record = store.consolidate(USER, [new, other], "enjoys oolong and collects stamps", unit(8))
    with pytest.raises(NoPendingReview, match="no open review"), conn.transaction():
        store.resolve_review(USER, new, "supersede")
    (review,) = store.pending_reviews(USER)
    assert (review.memory_id, review.matched_id) == (record, old)
    assert store.resolve_review(USER, record, "keep_both") == record
    assert live(conn, new) == (NEW, True)
