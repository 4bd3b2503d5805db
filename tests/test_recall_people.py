"""A question that names a person lifts what is known about that person (issue 34,
migration 0027): the memories linked to a contact whose name or alias the question
holds (pymem._contacts_named_in, mentioned_contacts' rules) gain
pymem._named_person_lift() in their relevance. "What does Nacho do for work?" is
answered by "Ximena's cousin Nacho is a welder", not by a memory of someone else's
work that is closer by vector."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import at_cosine, unit

USER = "ximena"
QUESTION = unit(0)


@pytest.fixture
def lift(sql) -> float:
    return sql.execute("SELECT pymem._named_person_lift()").fetchone()[0]


def between(base: int, a: int, rest: int, cos_q: float, cos_a: float) -> np.ndarray:
    """A unit vector with cosine cos_q to the question (unit(base)) and component cos_a on
    unit(a), the rest of its length on unit(rest)."""
    v = np.zeros_like(unit(0), dtype=np.float64)
    v[base], v[a] = cos_q, cos_a
    v[rest] = np.sqrt(1 - cos_q**2 - cos_a**2)
    return v.astype(np.float32)


def cousin_and_colleague(store):
    """A colleague's job closer to the question by vector than the cousin's, who is a
    contact known by a name and an alias."""
    colleague = store.upsert(USER, "Ximena's colleague forecasts storms", at_cosine(0.62, 0, 1))
    cousin = store.upsert(
        USER,
        "Her cousin is a welder who fixes trailers in the South Valley",
        at_cosine(0.55, 0, 2),
        contacts=["Ignacio"],
    )
    store.sync_contact(USER, "Ignacio", aliases=["Nacho"])
    return colleague.memory_id, cousin.memory_id


def top(store, text: str, k: int = 2) -> list:
    return [h.memory_id for h in store.recall(USER, QUESTION, k, query_text=text)]


def test_a_question_naming_a_person_by_an_alias_ranks_what_is_known_of_them_first(store):
    colleague, cousin = cousin_and_colleague(store)
    assert top(store, "what do they do for work?") == [colleague, cousin]
    assert top(store, "What does Nacho do for work?") == [cousin, colleague]
    assert top(store, "what does ignacio do for work") == [cousin, colleague]


def test_the_lift_is_the_documented_constant_in_the_relevance(store, sql, lift):
    _, cousin = cousin_and_colleague(store)
    plain, named = (
        {h.memory_id: h for h in store.recall(USER, QUESTION, 2, query_text=text)}[cousin]
        for text in ("what does he do for work?", "what does Nacho do for work?")
    )
    # relevance * factor: the factor is the score over the relevance of the plain recall
    factor = plain.score / (plain.similarity + 0.3 * plain.lexical)
    assert sql.execute("SELECT recall_lexical_weight FROM pymem.settings").fetchone() == (0.3,)
    assert named.score - plain.score == pytest.approx(
        (lift + 0.3 * (named.lexical - plain.lexical)) * factor, abs=1e-9
    )
    assert lift > 0


def test_a_name_inside_another_word_or_a_person_not_linked_lifts_nothing(store):
    colleague, cousin = cousin_and_colleague(store)
    store.sync_contact(USER, "Nach")  # a contact of no memory
    for text in ("what does Nachos do for work?", "what does Nach do for work?"):
        assert top(store, text) == [colleague, cousin], text


def test_a_chinese_name_inside_a_question_lifts_that_persons_memories(store):
    shop = store.upsert(
        "wentao", "他在博山经营一家琉璃店", at_cosine(0.55, 0, 3), contacts=["磊子"]
    )
    closer = store.upsert("wentao", "聂文涛在琉璃店当学徒", at_cosine(0.6, 0, 4))
    hits = [h.memory_id for h in store.recall("wentao", QUESTION, 2, query_text="磊子是干什么的？")]
    assert hits == [shop.memory_id, closer.memory_id]
    hits = [h.memory_id for h in store.recall("wentao", QUESTION, 2, query_text="他是干什么的？")]
    assert hits == [closer.memory_id, shop.memory_id]


def test_recall_reads_the_people_and_never_stamps_them(store, sql):
    cousin_and_colleague(store)
    sql.execute("UPDATE pymem.contacts SET last_mentioned_at = NULL")
    store.recall(USER, QUESTION, 2, query_text="What does Nacho do for work?")
    assert sql.execute("SELECT last_mentioned_at FROM pymem.contacts").fetchall() == [(None,)]
    # mentioned_contacts, which finds people by the same rules, does stamp them
    (found,) = store.mentioned_contacts(USER, "Nacho called")
    assert found.name == "Ignacio" and found.matched == "Nacho"
    assert sql.execute("SELECT last_mentioned_at IS NOT NULL FROM pymem.contacts").fetchone() == (
        True,
    )


def test_a_question_without_words_to_match_lifts_the_person_it_names(store, sql):
    """ "Who is Al?" gives the lexical share no token (a word of two letters): the scan's
    arm without words lifts Al's memory too."""
    colleague, _ = cousin_and_colleague(store)
    al = store.upsert(
        USER, "Her neighbour drives a school bus", at_cosine(0.58, 0, 5), contacts=["Al"]
    )
    assert sql.execute("SELECT pymem._query_tokens('Who is Al?')").fetchone() == ([],)
    assert top(store, "Who is he?") == [colleague, al.memory_id]
    assert top(store, "Who is Al?") == [al.memory_id, colleague]


def test_a_wording_the_persons_memory_absorbed_is_lifted_with_it(store):
    """The memory is found by a wording it absorbed (its best match), and lifted as its
    own text would be."""
    colleague = store.upsert(USER, "Ximena's colleague forecasts storms", at_cosine(0.62, 0, 1))
    bus = store.upsert(USER, "Al drives the school bus", at_cosine(0.4, 0, 6), contacts=["Al"])
    again = store.upsert(USER, "Al drives the school bus every day", between(0, 6, 7, 0.55, 0.818))
    assert (again.action, again.memory_id) == ("duplicate", bus.memory_id)
    for text, order in (
        ("who is he", [colleague.memory_id, bus.memory_id]),
        ("who is Al", [bus.memory_id, colleague.memory_id]),
    ):
        hits = store.recall(USER, QUESTION, 2, query_text=text)
        assert [h.memory_id for h in hits] == order, text
        # scored by the wording: 0.55 to the question, the memory's own text 0.4
        assert abs({h.memory_id: h for h in hits}[bus.memory_id].similarity - 0.55) < 1e-6


def test_an_earlier_value_of_the_persons_memory_is_lifted_too(store):
    """Asked about the past, the earlier value of the person's memory is still about them;
    asked about before, it ranks above its current value (pymem._asks_about_before)."""
    colleague = store.upsert(USER, "Ximena's colleague forecasts storms", at_cosine(0.62, 0, 1))
    job = store.upsert(
        USER, "Her cousin bakes bread", at_cosine(0.55, 0, 2), topic="cousin:job",
        contacts=["Ignacio"],
    )  # fmt: skip
    # 0.33 to the question, 0.72 to the bread (a supersede by the topic)
    now = store.upsert(
        USER, "Her cousin welds trailers now", between(0, 2, 3, 0.33, (0.72 - 0.55 * 0.33) / 0.835),
        topic="cousin:job", on_related="supersede",
    )  # fmt: skip
    assert (now.action, now.memory_id) == ("superseded", job.memory_id)
    store.sync_contact(USER, "Ignacio", aliases=["Nacho"])

    def asked(text):
        return [
            (h.memory_id, h.superseded_at is not None)
            for h in store.recall(USER, QUESTION, 3, query_text=text, include_history=True)
        ]

    before = (job.memory_id, True), (job.memory_id, False)
    assert asked("what did they do for work before") == [(colleague.memory_id, False), *before]
    assert asked("what did Nacho do for work before") == [*before, (colleague.memory_id, False)]


def test_a_person_linked_to_more_memories_than_the_limit_lifts_none(store, sql):
    """Past pymem._named_person_limit() memories, the person says little about which one
    answers, and comparing each row with all of them cost rows x links."""
    colleague, cousin = cousin_and_colleague(store)
    (limit,) = sql.execute("SELECT pymem._named_person_limit()").fetchone()
    ids = [
        r[0]
        for r in sql.execute(
            "INSERT INTO pymem.memories (user_id, kind, content, embedding)"
            " SELECT %s, 'fact', 'a day out ' || i, %s FROM generate_series(1, %s) AS i"
            " RETURNING id",
            (USER, unit(9), limit),
        ).fetchall()
    ]
    store.sync_contact(USER, "Ignacio", ids[: limit - 1])  # with the cousin's: the limit
    assert top(store, "What does Nacho do for work?") == [cousin, colleague]
    store.sync_contact(USER, "Ignacio", ids)  # one more
    assert top(store, "What does Nacho do for work?") == [colleague, cousin]
