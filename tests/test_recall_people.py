"""A question that names a person lifts what is known about that person (issue 34,
migration 0027): the memories linked to a contact whose name or alias the question
holds (pymem._contacts_named_in, mentioned_contacts' rules) gain
pymem._named_person_lift() in their relevance. "What does Nacho do for work?" is
answered by "Ximena's cousin Nacho is a welder", not by a memory of someone else's
work that is closer by vector."""

from __future__ import annotations

import pytest

from tests.conftest import at_cosine, unit

USER = "ximena"
QUESTION = unit(0)


@pytest.fixture
def lift(sql) -> float:
    return sql.execute("SELECT pymem._named_person_lift()").fetchone()[0]


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


def test_another_users_contact_of_the_same_name_lifts_nothing(store):
    colleague, cousin = cousin_and_colleague(store)
    other = store.upsert("ann", "Nacho sells tamales", unit(0), contacts=["Nacho"])
    assert top(store, "What does Nacho do for work?") == [cousin, colleague]
    hits = store.recall("ann", QUESTION, 5, query_text="What does Nacho do for work?")
    assert [h.memory_id for h in hits] == [other.memory_id]
