"""Which of a write's nearest candidates it acts on (pymem._preferred_candidate): a
duplicate anywhere among them beats a closer supersede, a supersede beats a closer
related neighbour. The write benchmark verifies its replayed decisions with the same
function (bench/upsert.py), so this is where the preference itself is tested."""

from __future__ import annotations

import pytest

from tests.conftest import at_cosine, unit

USER = "alice"
# kept apart when stored, so each stays a candidate of its own
APART = {"dedup_threshold": 0.999, "supersede_threshold": 0.999}
NEW = "Ana's team meeting is at 4pm on Fridays"


def decision(store, old: str, old_embedding) -> str:
    """What the write decides about ``old`` alone (pymem.explain's last step)."""
    steps = store.explain(old, NEW, old_embedding, unit(0))
    return next(s.finding for s in steps if s.step == "decision")


@pytest.mark.parametrize(
    ("actions", "pick"),
    [
        (["superseded", "related", "duplicate"], 3),
        (["related", "superseded"], 2),
        (["related", None, "related"], 1),
        ([None, None], None),
        ([], None),
    ],
)
def test_the_preference_reads_the_decisions_in_order_of_distance(sql, actions, pick):
    got = sql.execute("SELECT pymem._preferred_candidate(%s::text[])", (actions,)).fetchone()[0]
    assert got == pick


def test_a_farther_duplicate_beats_a_closer_supersede(store):
    closer = ("Ana's team meeting is at 3pm on Fridays", at_cosine(0.97))
    farther = ("Ana has the team meeting at 4pm on Fridays", at_cosine(0.95, other=2))
    assert decision(store, *closer).startswith("superseded")
    assert decision(store, *farther).startswith("duplicate")
    store.upsert(USER, *closer, **APART)
    farther_id = store.upsert(USER, *farther, **APART).memory_id
    result = store.upsert(USER, NEW, unit(0))
    assert (result.action, result.memory_id) == ("duplicate", farther_id)


def test_a_farther_supersede_beats_a_closer_related_neighbour(store):
    closer = ("Ana likes hiking in the Alps", at_cosine(0.85))
    farther = ("Ana's team meeting is at 3pm on Fridays", at_cosine(0.80, other=2))
    assert decision(store, *closer).startswith("inserted, matched for review")
    assert decision(store, *farther).startswith("superseded")
    store.upsert(USER, *closer, **APART)
    farther_id = store.upsert(USER, *farther, **APART).memory_id
    result = store.upsert(USER, NEW, unit(0))
    assert (result.action, result.memory_id) == ("superseded", farther_id)
