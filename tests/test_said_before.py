"""A write close to what a live memory said before (issue 34, migration 0025).

An old value said again after it changed ("back when Mei lived in Leeds") is far from the
current text and close to the earlier one, which memory_versions keeps; a restatement of a
wording a duplicate left (memory_wordings) is close to that wording. With a reviewer such a
write is queued with the live memory, and the note names the earlier text: a judge tells
the past said again from a return to it (sql/20_match.sql, pymem._nearest_said_before).
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from pymem.judge import review_prompt
from tests.conftest import at_cosine, unit

USER = "mei"


def between(a: int, b: int, cos_a: float, cos_b: float, rest: int = 511) -> np.ndarray:
    """A unit vector with cosine ``cos_a`` to unit(a) and ``cos_b`` to unit(b), the rest
    of its length on unit(rest)."""
    v = np.zeros_like(unit(0), dtype=np.float64)
    v[a], v[b] = cos_a, cos_b
    v[rest] = np.sqrt(1 - cos_a**2 - cos_b**2)
    return v.astype(np.float32)


def moved(store):
    """Mei's home, Leeds then London (a supersede by topic): the live memory says London
    (unit(1)); its earlier value, Leeds (unit(0)), is in its history."""
    home = store.upsert(USER, "Mei lives in a flat in Leeds", unit(0), topic="home")
    # a supersede by the topic alone, far apart by vector: the seeds' plain band
    now = store.upsert(
        USER, "Mei lives in Camden, London", at_cosine(0.6, 0, 1), topic="home",
        on_related="supersede",
    )  # fmt: skip
    assert (now.action, now.memory_id) == ("superseded", home.memory_id)
    return home.memory_id


def test_an_old_value_said_again_is_queued_with_the_current_one(store):
    home = moved(store)
    # 0.9 to Leeds, 0.3 to the current London vector: below every floor
    again = store.upsert(USER, "Back when Mei lived in Leeds she cycled to work",
                         between(0, 2, 0.9, 0.1), review_floor=0.6)  # fmt: skip
    assert (again.action, again.matched_id) == ("inserted", home)
    assert again.rule == (
        "close to an earlier value of a memory, queued for review:"
        " 'Mei lives in a flat in Leeds' (0.90)"
    )
    # the pair's own cosine, not the earlier text's
    assert abs(again.similarity - 0.54) < 0.01
    (review,) = store.pending_reviews(USER)
    assert (review.memory_id, review.matched_id, review.note) == (
        again.memory_id, home, again.rule,
    )  # fmt: skip


def test_the_note_reaches_the_judges_claim_and_prompt(store):
    home = moved(store)
    store.upsert(USER, "Mei used to live in Leeds", between(0, 2, 0.85, 0.1), review_floor=0.6)
    (claim,) = store.claim_reviews(USER, "w1")
    assert claim.matched_id == home
    assert claim.note.startswith("close to an earlier value of a memory")
    prompt = review_prompt(claim)
    assert "Why the pair was queued: close to an earlier value of a memory" in prompt
    assert "'Mei lives in a flat in Leeds' (0.85)" in prompt


def test_without_a_reviewer_nothing_is_queued(store, conn):
    moved(store)
    conn.execute("UPDATE pymem.settings SET on_related = 'insert'")
    again = store.upsert(USER, "Mei used to live in Leeds", between(0, 2, 0.95, 0.1))
    assert (again.action, again.matched_id, again.rule) == ("inserted", None, "no close memory")
    assert store.pending_reviews(USER) == []


def test_only_with_the_below_band_queue(store):
    """The pass over every earlier text costs about what the live scan does: it runs
    with a review floor only, and from the floor or the related band, whichever is lower."""
    home = moved(store)
    without = store.upsert(USER, "Mei used to live in Leeds", between(0, 2, 0.95, 0.1))
    assert (without.matched_id, without.rule) == (None, "no close memory")
    below = store.upsert(USER, "Mei had a garden in Leeds", between(0, 3, 0.7, 0.1, 510),
                         review_floor=0.72)  # fmt: skip
    assert below.matched_id is None  # 0.7 < the floor
    again = store.upsert(USER, "Mei lived in Leeds for years", between(0, 4, 0.8, 0.1, 509),
                         review_floor=0.9)  # fmt: skip
    assert again.matched_id == home  # 0.8 >= the related band, below that floor


def test_a_closer_live_neighbour_stays_the_one_queued(store):
    moved(store)
    # a live memory at 0.85 to the write; the earlier value at 0.7
    near = store.upsert(USER, "Mei swims at the Leeds lido on Sundays", unit(5), "fact")
    write = np.zeros(512, dtype=np.float32)
    write[5], write[0] = 0.85, 0.7 * np.sqrt(1 - 0.85**2)
    write[511] = np.sqrt(1 - write[5] ** 2 - write[0] ** 2)
    again = store.upsert(USER, "Mei swam at the Leeds lido when she lived there", write,
                         review_floor=0.3)  # fmt: skip
    assert again.matched_id == near.memory_id


def test_an_earlier_value_closer_than_the_live_neighbour_is_the_one_queued(store):
    home = moved(store)
    store.upsert(USER, "Mei swims at the lido on Sundays", unit(5), "fact")
    # 0.4 to the live swim, 0.9 to Leeds
    again = store.upsert(USER, "Mei lived in Leeds before London", between(0, 5, 0.9, 0.4),
                         review_floor=0.3)  # fmt: skip
    assert again.matched_id == home


def test_the_same_text_with_an_old_vector_is_no_earlier_value(store, conn):
    """A version that only changed the vector (re-embedded) says what the memory says now:
    it is the memory itself, found (or not) by its current vector."""
    first = store.upsert(USER, "Mei lives in a flat in Leeds", unit(0))
    conn.execute(
        "UPDATE pymem.memories SET embedding = %s WHERE id = %s", (unit(1), first.memory_id)
    )
    again = store.upsert(USER, "Mei's flat is in Leeds", between(0, 2, 0.9, 0.1),
                         review_floor=0.6)  # fmt: skip
    assert (again.matched_id, again.rule) == (None, "no close memory")


def test_a_wording_it_absorbed_is_said_before(store):
    tea = store.upsert(USER, "Mei likes green tea", unit(0), canonical="mei likes green tea")
    dup = store.upsert(USER, "Mei is fond of sencha", unit(1), canonical="mei likes green tea")
    assert (dup.action, dup.memory_id) == ("duplicate", tea.memory_id)
    again = store.upsert(USER, "Mei drinks sencha most days", at_cosine(0.9, 1, 2),
                         review_floor=0.6)  # fmt: skip
    assert again.matched_id == tea.memory_id
    assert again.rule == (
        "close to a wording a memory absorbed, queued for review: 'Mei is fond of sencha' (0.90)"
    )
    # another user's write near Mei's wording
    ann = store.upsert("ann", "Ann drinks sencha most days", at_cosine(0.9, 1, 2),
                       review_floor=0.6)  # fmt: skip
    assert ann.matched_id is None


def test_only_live_memories_of_the_same_kind_and_user(store, conn):
    home = moved(store)
    # another kind: the earlier value is a fact's
    other_kind = store.upsert(USER, "Mei used to live in Leeds", between(0, 2, 0.9, 0.1),
                              "habit", review_floor=0.6)  # fmt: skip
    assert other_kind.matched_id is None
    # another user
    other_user = store.upsert("ann", "Mei used to live in Leeds", between(0, 2, 0.9, 0.1),
                              review_floor=0.6)  # fmt: skip
    assert other_user.matched_id is None
    # a deleted memory's history
    conn.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (home,))
    gone = store.upsert(USER, "Mei lived in Leeds", between(0, 2, 0.9, 0.1), review_floor=0.6)
    assert gone.matched_id is None


def test_the_prompt_shows_no_other_note(store):
    """Other notes name the guards that kept a pair apart: not the judge's to be told."""
    store.upsert(USER, "Mei's dog is called Rex", unit(0))
    store.upsert(USER, "Mei walks her spaniel daily", at_cosine(0.8))
    (claim,) = store.claim_reviews(USER, "w1")
    assert claim.note is None
    assert "Why the pair was queued" not in review_prompt(claim)
    (review,) = store.pending_reviews(USER)
    assert review.note.startswith("related band")


def test_recall_keeps_the_current_value_above_the_old_one_said_again(store, conn):
    """A newer memory a pending review pairs with an older one ranks above it (two values
    of one thing), unless it was queued for being close to what the older said before:
    then it is likelier the past said again, and the current value stays first."""
    home = moved(store)
    again = store.upsert(USER, "Mei used to live in Leeds", between(0, 2, 0.85, 0.1),
                         review_floor=0.6)  # fmt: skip
    assert again.matched_id == home
    # written a day after the current value (one transaction has one now()); the time
    # computed here: Citus refuses a stable function of a column in an UPDATE
    (changed,) = conn.execute(
        "SELECT updated_at FROM pymem.memories WHERE user_id = %s AND id = %s", (USER, home)
    ).fetchone()
    conn.execute(
        "UPDATE pymem.memories SET updated_at = %s WHERE user_id = %s AND id = %s",
        (changed - timedelta(days=1), USER, home),
    )
    # a question close to the current value (London) only: the old one said again is not
    # brought in from below the best (k=1), nor lifted above it when among them (k=2)
    for k in (1, 2):
        assert store.recall(USER, unit(1), k=k)[0].memory_id == home


# --- the live memory of the write's topic (pymem._nearest_same_topic) -------------------


def test_a_write_of_a_topic_is_queued_with_the_memory_of_that_topic(store):
    """Two values of one thing the embedder scores far apart: found by their topic."""
    home = store.upsert(USER, "Mei rents a basement suite in Kitsilano", unit(0),
                        topic="home:area")  # fmt: skip
    moved = store.upsert(USER, "Mei moved into a condo in Mount Pleasant with Ana",
                         at_cosine(0.3), topic="home:area")  # fmt: skip
    assert (moved.action, moved.matched_id, moved.rule) == (
        "inserted", home.memory_id, "same topic as a memory, queued for review"
    )  # fmt: skip
    assert abs(moved.similarity - 0.3) < 1e-6
    (review,) = store.pending_reviews(USER)
    assert (review.memory_id, review.matched_id) == (moved.memory_id, home.memory_id)


def test_no_topic_another_topic_another_kind_or_no_reviewer_queue_nothing(store, conn):
    store.upsert(USER, "Mei rents a basement suite in Kitsilano", unit(0), topic="home:area")
    writes = [
        ("Mei moved into a condo", {}),  # no topic
        ("Mei works at a bakery", {"topic": "work:job"}),
        ("Mei prefers houses with a garden", {"topic": "home:area", "kind": "preference"}),
    ]
    for n, (text, options) in enumerate(writes):
        kind = options.pop("kind", "fact")
        r = store.upsert(USER, text, at_cosine(0.3, 0, 1 + n), kind, **options)
        assert (r.matched_id, r.rule) == (None, "no close memory"), text
    conn.execute("UPDATE pymem.settings SET on_related = 'insert'")
    r = store.upsert(USER, "Mei lives in Mount Pleasant now", at_cosine(0.3, 0, 9),
                     topic="home:area")  # fmt: skip
    assert (r.matched_id, r.rule) == (None, "no close memory")


def test_a_closer_neighbour_queued_stays_the_one_queued(store):
    store.upsert(USER, "Mei rents a basement suite in Kitsilano", unit(0), topic="home:area")
    near = store.upsert(USER, "Mei cycles to the Granville Island market", unit(5))
    write = np.zeros(512, dtype=np.float32)
    write[5], write[0] = 0.7, 0.3
    write[511] = np.sqrt(1 - 0.49 - 0.09)
    r = store.upsert(USER, "Mei moved to a condo near the market", write, topic="home:area",
                     review_floor=0.6)  # fmt: skip
    assert (r.matched_id, r.rule) == (near.memory_id, "below the related band, queued for review")


def test_an_apps_conflict_note_is_never_read_as_the_rule(store, conn):
    """Only the write path's reviews (cause related) carry its rule as their note: a
    conflict an app flags with words of its own that happen to begin the same way is a
    pending pair like any other, and its newer memory ranks above the older."""
    older = store.upsert(USER, "Mei lives in a flat in Leeds", unit(0), on_related="insert")
    newer = store.upsert(USER, "Mei lives by the lake", unit(2), on_related="insert")
    (changed,) = conn.execute(
        "SELECT updated_at FROM pymem.memories WHERE user_id = %s AND id = %s",
        (USER, older.memory_id),
    ).fetchone()
    conn.execute(
        "UPDATE pymem.memories SET updated_at = %s WHERE user_id = %s AND id = %s",
        (changed - timedelta(days=1), USER, older.memory_id),
    )
    store.flag_conflict(USER, newer.memory_id, older.memory_id, note="close to what she said")
    assert store.recall(USER, unit(0), k=1)[0].memory_id == newer.memory_id
