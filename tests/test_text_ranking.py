"""What recall makes of the question's words (sql/30_recall.sql, sql/08_stated_time.sql):
a word weighs by how rare it is among the user's memories, and a question that names
a day lifts the memories written then."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest

from tests.conftest import add, at_cosine, unit

# Wednesday 2026-12-09, 15:00 UTC (the tests set the session's TimeZone to UTC)
AT = datetime(2026, 12, 9, 15, 0, tzinfo=timezone.utc)


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=timezone.utc)


# (question, the span it asks about as [lower, upper)); a named day is taken with a day
# either side
ASKED = [
    ("What did Maria share on 16 June, 2023?", (day(2023, 6, 15), day(2023, 6, 18))),
    ("What happened on June 16th 2023?", (day(2023, 6, 15), day(2023, 6, 18))),
    ("what did we talk about on the 16th of june 2023", (day(2023, 6, 15), day(2023, 6, 18))),
    ("Any news from 2023-06-16?", (day(2023, 6, 15), day(2023, 6, 18))),
    ("2023年6月16日我说了什么？", (day(2023, 6, 15), day(2023, 6, 18))),
    # no year: the latest such day not after the question
    ("What did I say on 16 June?", (day(2026, 6, 15), day(2026, 6, 18))),
    ("What did I say on Dec 16?", (day(2025, 12, 15), day(2025, 12, 18))),
    ("6月16号那天我说了什么", (day(2026, 6, 15), day(2026, 6, 18))),
    ("What did John volunteer for in August 2023?", (day(2023, 8, 1), day(2023, 9, 1))),
    ("2023年8月发生了什么", (day(2023, 8, 1), day(2023, 9, 1))),
    # a day that does not exist: its month
    ("What happened on 31 June 2023?", (day(2023, 6, 1), day(2023, 7, 1))),
    ("What did I tell you yesterday?", (day(2026, 12, 8), day(2026, 12, 9))),
    ("昨天我说了什么", (day(2026, 12, 8), day(2026, 12, 9))),
    ("and the day before yesterday?", (day(2026, 12, 7), day(2026, 12, 8))),
    ("前天呢", (day(2026, 12, 7), day(2026, 12, 8))),
    ("What did Mia do last weekend?", (day(2026, 12, 5), day(2026, 12, 7))),
    ("What did we plan last week?", (day(2026, 11, 30), day(2026, 12, 7))),
    ("上周我们定了什么", (day(2026, 11, 30), day(2026, 12, 7))),
    ("上个月去哪儿玩了", (day(2026, 11, 1), day(2026, 12, 1))),
    ("Where did we travel last year?", (day(2025, 1, 1), day(2026, 1, 1))),
    # no day named
    ("Where does Mei live now?", None),
    ("Who did I meet last?", None),
    ("May I ask where Ravi works?", None),
    ("How old are the 3 kids?", None),
    ("", None),
    (None, None),
]


@pytest.fixture
def utc(conn):
    conn.execute("SET LOCAL TimeZone = 'UTC'")
    return conn


@pytest.mark.parametrize(("question", "span"), ASKED, ids=[str(q) for q, _ in ASKED])
def test_the_days_a_question_asks_about(utc, question, span):
    got = utc.execute(
        "SELECT lower(w), upper(w) FROM pymem._asked_window(%s, %s) AS w", (question, AT)
    ).fetchone()
    assert got == ((None, None) if span is None else span)


def idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def test_a_word_weighs_by_how_rare_it_is_among_the_users_live_memories(store, conn):
    add(store, conn, "Caroline went hiking with Mel", unit(0))
    add(store, conn, "Caroline adopted a dog", unit(1))
    pottery = add(store, conn, "Caroline took a pottery class", unit(2))
    gone = add(store, conn, "Caroline paints sunsets", unit(3))
    store.upsert("bob", "Caroline pottery caroline", unit(0))  # another user's rows
    conn.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (gone,))
    weights = conn.execute(
        "SELECT pymem._term_weights('alice', ARRAY['caroline', 'pottery', 'zebra'])"
    ).fetchone()[0]
    assert weights == pytest.approx([idf(3, 3), idf(3, 1), idf(3, 0)])
    assert 0 < weights[0] < weights[1] < weights[2]
    # a cold memory counts when recall reads the cold tier too
    conn.execute("UPDATE pymem.memories SET tier = 'cold' WHERE id = %s", (pottery,))
    hot, every = conn.execute(
        "SELECT pymem._term_weights('alice', ARRAY['pottery']),"
        " pymem._term_weights('alice', ARRAY['pottery'], with_cold => TRUE)"
    ).fetchone()
    assert hot == pytest.approx([idf(2, 0)]) and every == pytest.approx([idf(3, 1)])
    assert conn.execute("SELECT pymem._term_weights('alice', '{}')").fetchone()[0] == []


def test_a_rare_word_found_outranks_a_common_one(store, conn):
    """Each memory holds one of the question's two words and both are as similar to
    it: the one with the word that tells memories apart comes first (an unweighted
    share scored them the same)."""
    common = add(store, conn, "Caroline went hiking", at_cosine(0.5, 0, 1))
    rare = add(store, conn, "Mel signed up for pottery", at_cosine(0.5, 0, 2))
    add(store, conn, "Caroline adopted a dog", at_cosine(0.1, 0, 3))
    add(store, conn, "Caroline paints sunsets", at_cosine(0.1, 0, 4))
    hits = store.recall("alice", unit(0), 2, query_text="Caroline pottery")
    assert [h.memory_id for h in hits] == [rare, common]
    weights = [idf(4, 3), idf(4, 1)]
    assert hits[0].lexical == pytest.approx(weights[1] / sum(weights))
    assert hits[1].lexical == pytest.approx(weights[0] / sum(weights))


def test_a_question_that_names_a_day_lifts_what_was_written_then(store, conn, utc):
    closer = add(store, conn, "Maria says she has some exciting news", at_cosine(0.6, 0, 1))
    that_day = add(store, conn, "Maria joined a gym near her flat", at_cosine(0.5, 0, 2))
    utc.execute(
        "UPDATE pymem.memories SET created_at = %s WHERE id = %s",
        (datetime(2023, 6, 16, 18, tzinfo=timezone.utc), that_day),
    )
    asked = "What exciting news did Maria share on 16 June, 2023?"
    hits = store.recall("alice", unit(0), 2, query_text=asked, at=AT)
    assert [h.memory_id for h in hits] == [that_day, closer]
    # the same words without the day: the closer wording first
    hits = store.recall("alice", unit(0), 2, query_text="What exciting news did Maria share?",
                        at=AT)  # fmt: skip
    assert [h.memory_id for h in hits] == [closer, that_day]
    # the lift is the documented constant, inside the relevance the decay multiplies
    hit = store.recall("alice", unit(0), 1, query_text=asked, at=AT)[0]
    boost = utc.execute("SELECT pymem._asked_time_boost()").fetchone()[0]
    assert boost > 0
    assert hit.score == pytest.approx(
        (hit.similarity + 0.3 * hit.lexical + boost) * (0.5 + 0.5 * hit.decay_score), abs=1e-9
    )
