"""What recall makes of the question's words (sql/29_term_weights.sql,
sql/30_recall.sql, sql/08_stated_time.sql):
a word weighs by how rare it is among the user's memories, and a question that names
a day lifts the memories written then."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

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


# -- two live values of one thing: the newer first ---------------------------------------


def written_earlier(conn, memory_id, days: int = 1) -> None:
    """A test's writes share one transaction, and so one now(): the earlier is moved back
    (by values: Citus refuses a STABLE function of a column in an UPDATE)."""
    created, updated = conn.execute(
        "SELECT created_at, updated_at FROM pymem.memories WHERE id = %s", (memory_id,)
    ).fetchone()
    back = timedelta(days=days)
    conn.execute(
        "UPDATE pymem.memories SET created_at = %s, updated_at = %s WHERE id = %s",
        (created - back, updated - back, memory_id),
    )


def test_the_newer_of_two_values_of_a_topic_ranks_above_the_older(store, conn):
    """Asked "where does Mei live now?": the old home is the closer wording, the new one is
    far down; the new value takes the old one's score and stands just above it, and
    the memories below move down a place (nothing is hidden: both values show)."""
    old = add(store, conn, "Mei lives in a shared flat in Marchmont", at_cosine(0.9, 0, 1),
              topic="home")  # fmt: skip
    others = [add(store, conn, f"Mei note {i}", at_cosine(0.7 - 0.01 * i, 0, 3 + i))
              for i in range(4)]  # fmt: skip
    new = add(store, conn, "Mei's studio is in Leith", at_cosine(0.2, 0, 2), topic="home")
    written_earlier(conn, old)
    hits = store.recall("alice", unit(0), 3)
    assert [h.memory_id for h in hits] == [new, old, others[0]]
    # the old value's score: similarity 0.9, importance 0.5 fresh (0.5 + 0.5 * 0.5)
    assert hits[0].score == hits[1].score == pytest.approx(0.9 * 0.75, abs=1e-6)
    assert hits[0].similarity == pytest.approx(0.2, abs=1e-6)
    # at k = 1 the newer value alone; the older never takes the newer's score
    assert [h.memory_id for h in store.recall("alice", unit(0), 1)] == [new]
    near_new = store.recall("alice", at_cosine(0.2, 0, 2), 6)
    assert near_new[0].memory_id == new
    assert near_new[0].score > max(h.score for h in near_new if h.memory_id == old)
    # a value that is gone (forgotten, expired, another kind asked) lends nothing
    assert [h.memory_id for h in store.recall("alice", unit(0), 1, kinds=["preference"])] == []
    conn.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (new,))
    assert [h.memory_id for h in store.recall("alice", unit(0), 1)] == [old]


def test_a_write_waiting_for_review_beside_an_earlier_memory_ranks_above_it(store, conn):
    old = store.upsert("ann", "likes green tea", unit(0))
    new = store.upsert("ann", "enjoys oolong", at_cosine(0.8))
    assert new.action == "inserted" and new.matched_id == old.memory_id
    written_earlier(conn, old.memory_id)
    hits = store.recall("ann", unit(0), 2)
    assert [h.memory_id for h in hits] == [new.memory_id, old.memory_id]
    assert hits[0].score == hits[1].score
    # settled as two things: each ranks by its own score again
    store.resolve_review("ann", new.memory_id, "keep_both")
    hits = store.recall("ann", unit(0), 2)
    assert [h.memory_id for h in hits] == [old.memory_id, new.memory_id]
    assert hits[0].score > hits[1].score


def test_the_topics_words_count_as_the_memorys(store, conn):
    """A question asked in the words of a memory's topic ("work" of work:job) finds it
    above an equally close memory without them (pymem._searchable)."""
    job = add(store, conn, "Yiwen plays cello in a chamber orchestra", at_cosine(0.5, 0, 1),
              topic="work:job")  # fmt: skip
    other = add(store, conn, "Yiwen rents a flat in Tiong Bahru", at_cosine(0.5, 0, 2))
    hits = store.recall("alice", unit(0), 2, query_text="What does Yiwen do for work?")
    assert [h.memory_id for h in hits] == [job, other]
    assert hits[0].lexical > hits[1].lexical  # both hold "Yiwen"; one holds "work"


def test_a_question_about_now_lifts_live_states_more(store, conn):
    """A live state a little further from the question than a fact ranks above it when the
    question asks about the present: the lift is pymem._now_state_lift() times
    settings.recall_state_boost (0.1), so a gap of 0.12 is crossed, not a gap of 0.2."""
    fact = add(store, conn, "Mei works at the lab on Tuesdays", at_cosine(0.6, 0, 1), "habit")
    near = add(store, conn, "Mei is working from home", at_cosine(0.48, 0, 2), "state")
    far = add(store, conn, "Mei has a sore throat", at_cosine(0.40, 0, 3), "state")
    (lift,) = conn.execute("SELECT pymem._now_state_lift()").fetchone()
    assert lift == 1.5

    def order(question):
        return [h.memory_id for h in store.recall("alice", unit(0), 3, query_text=question)]

    assert order("Is Mei in the office right now?") == [near, fact, far]
    assert order("Is Mei in the office on Tuesdays?") == [fact, near, far]


def test_a_question_asking_for_a_value_now_lifts_states_less(store, conn):
    """Asked for a value about the present ("where is Mei right now?"), live states get
    pymem._value_question_state_lift() (half) of the lift a yes-or-no question about the
    present gives them: the state 0.12 further than the habit no longer passes it, one
    0.03 further still does."""
    fact = add(store, conn, "Mei works at the lab on Tuesdays", at_cosine(0.6, 0, 1), "habit")
    near = add(store, conn, "Mei is working from home", at_cosine(0.48, 0, 2), "state")
    close = add(store, conn, "Mei is at her sister's in Ipoh", at_cosine(0.57, 0, 3), "state")
    (part,) = conn.execute("SELECT pymem._value_question_state_lift()").fetchone()
    assert part == 0.5

    def order(question):
        return [h.memory_id for h in store.recall("alice", unit(0), 3, query_text=question)]

    assert order("Is Mei in the office right now?") == [close, near, fact]
    assert order("Where is Mei right now?") == [close, fact, near]
    assert order("Mei 现在在哪儿？") == [close, fact, near]
    assert order("Mei 现在在实验室吗？") == [close, near, fact]


@pytest.mark.parametrize(
    ("question", "for_a_value"),
    [
        ("Where is Marco staying at the moment?", True),
        ("What does Ravi do now?", True),
        ("who's feeding the cat right now?", True),
        ("How is Lena getting to school this week?", True),
        ("Is Ravi back at work yet?", False),
        ("Does Maricel still eat rice?", False),
        ("Is Mei going into the office this week, and where?", False),
        ("老周现在在哪儿？", True),
        ("这段时间谁在帮 Mei 喂斑马鱼？", True),
        ("陈晓燕这几天在做什么？", True),
        ("豆豆这几天去上学了吗？", False),
        ("这几天能约周建国喝酒吗", False),
        ("王强还在戒酒吗？", False),
        ("老周現在在哪裡？", True),
        ("王強還在戒酒嗎？", False),
        ("", False),
    ],
)
def test_a_question_asks_for_a_value_by_its_question_words(conn, question, for_a_value):
    """An English question word first, a Chinese one anywhere (这几天's 几 is none), and
    no 吗 at the end."""
    assert conn.execute("SELECT pymem._asks_for_a_value(%s)", (question,)).fetchone() == (
        for_a_value,
    )


@pytest.mark.parametrize(
    ("question", "before"),
    [
        ("Where did Kang live before he moved to KL?", True),
        ("What job did Ximena have previously?", True),
        ("What did Nadia use to drive?", False),
        ("What car did Nadia used to drive?", True),
        ("缪玉梅调走之前是做什么的？", True),
        ("温浩以前住在哪个区？", True),
        ("溫浩從前住在哪個區？", True),
        ("溫浩過去是做什麼的？", True),
        ("Does Marcus buy old records?", False),
        ("Where does Kang live?", False),
        ("甘雪琴在哪儿上班？", False),
    ],
)
def test_a_question_asks_about_before_when_it_says_so(conn, question, before):
    assert conn.execute("SELECT pymem._asks_about_before(%s)", (question,)).fetchone() == (before,)
