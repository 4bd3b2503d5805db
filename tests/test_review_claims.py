"""Claims on the review queue (sql/27_review_claims.sql) and resolve_review's reason, claim,
review and conflict: what a reviewer relies on, called as SQL through the store."""

from __future__ import annotations

from datetime import datetime, timezone

import psycopg
import pytest

from pymem import MemoryStore
from pymem.errors import (
    ContentTooLong,
    InvalidDecision,
    InvalidParameter,
    InvalidUserId,
    NoPendingReview,
    ReviewClaimed,
    ReviewStale,
)
from tests.conftest import at_cosine, unit

NOW = datetime.now(timezone.utc)

USER = "ann"
BAND = 0.8


@pytest.fixture
def store(conn) -> MemoryStore:
    store = MemoryStore(conn)
    store._test_conn = conn
    return store


def pairs(store: MemoryStore, n: int, user: str = USER) -> list[tuple]:
    """n related pairs queued for review: (newer, older) ids, oldest review first (in one
    transaction now() does not move: each review is dated by the clock)."""
    out = []
    for i in range(n):
        old = store.upsert(user, f"older fact {'abcdefghij'[i]}x", unit(2 * i)).memory_id
        new = store.upsert(user, f"newer{i} note", at_cosine(BAND, 2 * i, 2 * i + 1))
        assert new.matched_id == old
        store._test_conn.execute(
            "UPDATE pymem.reviews SET created_at = clock_timestamp() WHERE memory_id = %s",
            (new.memory_id,),
        )
        out.append((new.memory_id, old))
    return out


def state(conn, memory_id) -> tuple:
    return conn.execute(
        "SELECT claimed_by, attempts, last_error, parked_at IS NOT NULL, retry_at > now(),"
        " resolved_at IS NOT NULL FROM pymem.reviews WHERE memory_id = %s AND cause = 'related'",
        (memory_id,),
    ).fetchone()


def expire(conn) -> None:
    conn.execute(
        "UPDATE pymem.reviews SET claimed_until = now() - interval '1 s'"
        " WHERE claimed_until IS NOT NULL"
    )


def test_a_claim_holds_reviews_for_one_reviewer_oldest_first(store, conn):
    queued = pairs(store, 3)
    a = store.claim_reviews(USER, "a", 2)
    assert [(r.memory_id, r.matched_id) for r in a] == queued[:2]
    b = store.claim_reviews(USER, "b", 5)
    assert [r.memory_id for r in b] == [queued[2][0]]
    assert store.claim_reviews(USER, "c", 5) == []
    r = a[0]
    assert (r.user_id, r.cause, r.attempts, r.content, r.kind, r.topic) == (
        USER, "related", 0, "newer0 note", "fact", None
    )  # fmt: skip
    assert (r.matched_content, r.matched_kind) == ("older fact ax", "fact")
    assert r.similarity == pytest.approx(BAND, abs=1e-4)
    assert r.created_at <= r.updated_at and r.matched_created_at <= r.created_at
    # another user's store-wide claim is the same queue; a user's own sees only theirs
    assert store.claim_reviews("bob", "a") == []


def test_two_connections_claiming_at_once_get_different_reviews(fresh_dsn):
    with psycopg.connect(fresh_dsn) as first, MemoryStore(fresh_dsn) as store:
        store._test_conn = first
        queued = pairs(store, 3)
        first.commit()
        # the first claim's transaction is still open: its rows are locked, not yet claimed
        held = MemoryStore(first).claim_reviews(None, "a", 2)
        other = store.claim_reviews(None, "b", 5)
        assert {r.memory_id for r in held} | {r.memory_id for r in other} == {n for n, _ in queued}
        assert not {r.review_id for r in held} & {r.review_id for r in other}
        first.commit()


def test_a_decision_on_a_review_another_reviewer_holds_is_refused(store, conn):
    ((new, _),) = pairs(store, 1)
    store.claim_reviews(USER, "a")
    for claimed_by in ("b", None):
        refused = pytest.raises(ReviewClaimed, match="claimed by reviewer 'a' until")
        with refused as caught, conn.transaction():
            store.resolve_review(USER, new, "keep_both", claimed_by=claimed_by)
        assert caught.value.hint.startswith("A reviewer is deciding it")
    assert store.resolve_review(USER, new, "keep_both", reason="two facts", claimed_by="a") == new
    row = conn.execute(
        "SELECT decision, reason, decided_by, claimed_by FROM pymem.reviews WHERE memory_id = %s",
        (new,),
    ).fetchone()
    assert row == ("keep_both", "two facts", "a", None)


def test_a_claim_that_ran_out_protects_nothing(store, conn):
    ((new, _),) = pairs(store, 1)
    store.claim_reviews(USER, "a")
    expire(conn)
    # anyone may decide it now, and the reviewer that lost it may still
    assert store.resolve_review(USER, new, "keep_both", claimed_by="b") == new


def test_a_claim_that_ran_out_is_a_failed_attempt_and_parks_at_the_limit(store, conn):
    conn.execute("UPDATE pymem.settings SET review_max_attempts = 2")
    ((new, _), (other, _)) = pairs(store, 2)
    store.claim_reviews(USER, "dead", 1)
    expire(conn)
    (again,) = store.claim_reviews(USER, "b", 1)
    assert (again.memory_id, again.attempts) == (new, 1)
    claimed_by, attempts, error, parked, _, _ = state(conn, new)
    assert (claimed_by, attempts, parked) == ("b", 1, False)
    assert error.startswith("the claim of reviewer dead ran out at ")
    expire(conn)
    # the second run-out reaches the limit: parked, and the next review claimed instead
    (instead,) = store.claim_reviews(USER, "c", 1)
    assert instead.memory_id == other
    assert state(conn, new)[:4] == (None, 2, "the claim of reviewer b ran out at " +
                                    error.split(" ran out at ")[1], True)  # fmt: skip
    assert len(store.pending_reviews(USER)) == 2  # parked is still pending


def test_release_gives_back_counts_failures_waits_and_parks(store, conn):
    conn.execute("UPDATE pymem.settings SET review_max_attempts = 2")
    ((new, _),) = pairs(store, 1)
    (r,) = store.claim_reviews(USER, "a")
    assert store.release_review(USER, r.review_id, "b", "not mine") == "not held"
    assert store.release_review(USER, r.review_id, "a") == "released"
    assert state(conn, new) == (None, 0, None, False, None, False)
    (r,) = store.claim_reviews(USER, "a")
    assert store.release_review(USER, r.review_id, "a", "bad JSON", retry_after=60) == "retry"
    assert state(conn, new) == (None, 1, "bad JSON", False, True, False)
    assert store.claim_reviews(USER, "a") == []  # waiting for its retry
    conn.execute("UPDATE pymem.reviews SET retry_at = now()")
    (r,) = store.claim_reviews(USER, "a")
    assert r.attempts == 1
    assert store.release_review(USER, r.review_id, "a", "x" * 3000) == "parked"
    _, attempts, error, parked, _, _ = state(conn, new)
    assert (attempts, len(error), parked) == (2, 2000, True)
    # the app sees it among the pending ones, with its failures
    (pending,) = store.pending_reviews(USER)
    assert (pending.attempts, pending.last_error, pending.parked_at is not None) == (
        2,
        "x" * 2000,
        True,
    )
    assert store.claim_reviews(USER, "a") == []
    assert store.release_review(USER, r.review_id, "a", "again") == "not held"
    # a person may still decide a parked review
    (back,) = store.unpark_reviews(USER)
    assert (back.memory_id, back.attempts, back.last_error) == (new, 2, "x" * 2000)
    assert state(conn, new)[1:4] == (0, "x" * 2000, False)
    assert store.unpark_reviews(USER) == []
    assert [c.memory_id for c in store.claim_reviews(USER, "a")] == [new]


def test_unpark_takes_ids(store, conn):
    queued = pairs(store, 2)
    conn.execute("UPDATE pymem.reviews SET parked_at = now(), attempts = 5")
    ids = [r.review_id for r in store.pending_reviews(USER)]
    assert [b.review_id for b in store.unpark_reviews(USER, ids[1:])] == ids[1:]
    assert [c.memory_id for c in store.claim_reviews(USER, "a")] == [queued[1][0]]


def test_the_reason_goes_into_the_history(store, conn):
    ((new, old), (dup, kept)) = pairs(store, 2)
    store.resolve_review(USER, new, "supersede", reason=" same slot, new value ")
    store.resolve_review(USER, dup, "duplicate", reason="restated")
    history = {
        (h.id, h.reason) for h in store.memory_history(USER) if h.reason.startswith("review")
    }
    assert history == {
        (old, f"review: superseded by {new}; reason: same slot, new value"),
        (new, f"review: supersede, merged into {old}; reason: same slot, new value"),
        (dup, f"review: duplicate, merged into {kept}; reason: restated"),
    }
    reasons = conn.execute("SELECT reason, decided_by FROM pymem.reviews ORDER BY created_at")
    assert reasons.fetchall() == [("same slot, new value", None), ("restated", None)]


def test_a_conflict_flags_the_pair_and_closes_the_related_review(store, conn):
    ((new, old),) = pairs(store, 1)
    assert store.resolve_review(USER, new, "conflict", reason="Windows or Mac?") == new
    (left,) = store.pending_reviews(USER)
    assert (left.cause, left.memory_id, left.matched_id, left.note) == (
        "conflict", new, old, "Windows or Mac?"
    )  # fmt: skip
    closed = conn.execute(
        "SELECT decision, resolved_id FROM pymem.reviews WHERE cause = 'related'"
    ).fetchone()
    assert closed == ("conflict", new)
    # a flagged conflict is settled by keeping one or both, not by another conflict
    with pytest.raises(InvalidDecision, match="a conflict review is settled"), conn.transaction():
        store.resolve_review(USER, new, "conflict")
    assert {m.memory_id for m in store.get_memories(USER)} == {old, new}


def test_a_conflict_that_cannot_be_flagged_writes_nothing(store, conn):
    ((new, _),) = pairs(store, 1)
    conn.execute("UPDATE pymem.settings SET max_content_chars = 20")
    with pytest.raises(ContentTooLong, match="reason is 30 characters"), conn.transaction():
        store.resolve_review(USER, new, "conflict", reason="r" * 30)
    (still,) = store.pending_reviews(USER)
    assert still.cause == "related"


def test_review_id_picks_one_of_a_memorys_reviews_and_a_moved_one_is_refused(store, conn):
    ((new, old), (other, _)) = pairs(store, 2)
    flagged = store.flag_conflict(USER, new, other, "also")
    # new has two open reviews: the related one (oldest) and the flagged conflict
    assert store.resolve_review(USER, new, "keep_both", review_id=flagged) == new
    assert [(r.cause, r.memory_id) for r in store.pending_reviews(USER)] == [
        ("related", new),
        ("related", other),
    ]
    with pytest.raises(NoPendingReview, match="has no open review"), conn.transaction():
        store.resolve_review(USER, new, "keep_both", review_id=flagged)
    # retired by another decision, its reviews move to the survivor: the claim's pair changed
    third = store.upsert(USER, "third thing", unit(20)).memory_id
    moved = store.flag_conflict(USER, new, third, "moved")
    (related,) = [
        r for r in store.pending_reviews(USER) if r.memory_id == new and r.cause == "related"
    ]
    store.resolve_review(USER, new, "duplicate", review_id=related.review_id)
    changed = pytest.raises(NoPendingReview, match=f"review {moved} concerns memory {old} now")
    with changed, conn.transaction():
        store.resolve_review(USER, new, "keep_both", review_id=moved)


def _retire_into(store, retired, survivor) -> None:
    """Another decision retires ``retired`` into ``survivor`` (a flagged pair settled as
    duplicate); the open reviews of ``retired`` move to ``survivor``."""
    flagged = store.flag_conflict(USER, retired, survivor, "by hand")
    store.resolve_review(USER, retired, "duplicate", review_id=flagged)


def _judged(store, claim, decision="supersede"):
    """The reviewer's decision on what it read."""
    return store.resolve_review(
        USER, claim.memory_id, decision, reason="as read", claimed_by="w",
        review_id=claim.review_id, as_seen=(claim.updated_at, claim.matched_updated_at),
    )  # fmt: skip


@pytest.mark.parametrize("moved", ["older", "newer"])
def test_a_pair_moved_to_another_memory_since_the_claim_is_stale(store, conn, moved):
    """Another decision retires one of a claimed pair into a third memory, and the review
    moves to it: the judge never read that one. In one transaction every memory carries
    the same updated_at (as two written by one batch do), so only the move tells."""
    ((new, old),) = pairs(store, 1)
    third = store.upsert(USER, "a third thing", unit(30)).memory_id
    (claim,) = store.claim_reviews(USER, "w")
    _retire_into(store, old if moved == "older" else new, third)
    (review,) = [r for r in store.pending_reviews(USER) if r.cause == "related"]
    assert third in (review.memory_id, review.matched_id)
    # PM018, not PM015 for the moved newer one: the worker gives it back, no attempt
    with pytest.raises(ReviewStale, match="judge read"), conn.transaction():
        _judged(store, claim)
    assert conn.execute(
        "SELECT content FROM pymem.memories WHERE id = %s", (third,)
    ).fetchone() == ("a third thing",)
    # the move ended the claim: open, claimable by anyone, nothing counted
    assert state(conn, review.memory_id)[:3] == (None, 0, None)
    assert store.release_review(USER, claim.review_id, "w") == "not held"
    assert [r.review_id for r in store.claim_reviews(USER, "v")] == [claim.review_id]


def test_a_decision_on_a_claim_given_back_or_taken_since_is_stale(store, conn):
    ((new, _),) = pairs(store, 1)
    (claim,) = store.claim_reviews(USER, "w")
    assert store.release_review(USER, claim.review_id, "w") == "released"
    with pytest.raises(ReviewStale, match="no longer held by reviewer 'w'"), conn.transaction():
        _judged(store, claim)
    store.claim_reviews(USER, "v")
    expire(conn)  # v's claim ran out too: still not the claim w's judge read
    with pytest.raises(ReviewStale), conn.transaction():
        _judged(store, claim)
    # without as_seen (a person deciding), a claim that ran out protects nothing
    assert store.resolve_review(USER, new, "keep_both", claimed_by="w") == new


def test_a_reinforcement_while_the_judge_reads_is_not_a_change(store, conn):
    """The same text said again reinforces the older memory (mentions, importance): what
    the judge read is still there, so the decision applies (PM018 is for a rewrite)."""
    ((_, old),) = pairs(store, 1)
    (claim,) = store.claim_reviews(USER, "w")
    again = store.upsert(USER, claim.matched_content, unit(0), importance=0.9)
    assert (again.action, again.memory_id) == ("duplicate", old)
    assert _judged(store, claim, "duplicate") == old


def test_claims_skip_reviews_whose_memories_are_gone(store, conn):
    ((new, _), (other, _)) = pairs(store, 2)
    store.apply_maintenance(USER, [{"op": "delete", "id": str(new)}])
    assert [r.memory_id for r in store.claim_reviews(USER, "a")] == [other]


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda s: s.claim_reviews(USER, " "), InvalidParameter),
        (lambda s: s.claim_reviews(USER, "w" * 201), InvalidParameter),
        (lambda s: s.claim_reviews(USER, None), InvalidParameter),
        (lambda s: s.claim_reviews(USER, "a", 0), InvalidParameter),
        (lambda s: s.claim_reviews(USER, "a", 1001), InvalidParameter),
        (lambda s: s.claim_reviews(USER, "a", lease=0), InvalidParameter),
        (lambda s: s.claim_reviews(USER, "a", lease=float("nan")), InvalidParameter),
        (lambda s: s.claim_reviews("", "a"), InvalidUserId),
        (lambda s: s.release_review(USER, s._id, "a", retry_after=-1), InvalidParameter),
        (lambda s: s.release_review(USER, s._id, "", "x"), InvalidParameter),
        (lambda s: s.resolve_review(USER, s._id, "keep_both", claimed_by=""), InvalidParameter),
        # not the two instants the judge read: refused, not taken for a change (PM018)
        (lambda s: s.resolve_review(USER, s._id, "keep_both", as_seen=[]), InvalidParameter),
        (lambda s: s.resolve_review(USER, s._id, "keep_both", as_seen=[NOW]), InvalidParameter),
        (
            lambda s: s.resolve_review(USER, s._id, "keep_both", as_seen=[NOW, NOW, NOW]),
            InvalidParameter,
        ),
        (lambda s: s.unpark_reviews(None), InvalidUserId),
    ],
)
def test_bad_arguments(store, conn, call, error):
    ((new, _),) = pairs(store, 1)
    store._id = new
    with pytest.raises(error), conn.transaction():
        call(store)


def test_the_attempts_limit_is_a_checked_setting(store, conn):
    assert store.get_settings().review_max_attempts == 5
    for bad in (0, 101):
        with pytest.raises(psycopg.errors.CheckViolation), conn.transaction():
            conn.execute("UPDATE pymem.settings SET review_max_attempts = %s", (bad,))


def test_as_the_app_role_a_store_wide_claim_sees_only_the_current_user(store, conn):
    mine = pairs(store, 1)
    pairs(store, 1, user="bob")
    conn.execute("SET ROLE pymem_app")
    # no user set: nothing visible
    assert store.claim_reviews(None, "a") == []
    conn.execute("SELECT set_config('pymem.user_id', %s, true)", (USER,))
    assert [r.memory_id for r in store.claim_reviews(None, "a")] == [mine[0][0]]
