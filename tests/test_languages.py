"""Languages beyond English and Chinese (sql/00_values.sql, sql/02_terms.sql): words of
any script that writes words between spaces count as terms, kanji and katakana a character
at a time,
so that a restatement merges by embedding and a new value or a negation stays apart.
With the bundled embedder and the thresholds shipped for it."""

from __future__ import annotations

import pytest

# (language, first, second, what the second is to the first)
PAIRS = [
    ("ru", "Мария живёт в Берлине", "Мария живет в Берлине", "duplicate"),
    ("ru", "Мария живёт в Берлине с мужем", "Мария с мужем живёт в Берлине", "duplicate"),
    ("ru", "У Ивана две кошки", "У Ивана три кошки", "value"),
    ("ru", "Иван пьёт кофе по утрам", "Иван не пьёт кофе по утрам", "negation"),
    ("es", "A Juan le encanta el café", "A Juan le gusta mucho el café", "duplicate"),
    ("es", "Juan tiene dos gatos", "Juan tiene tres gatos", "value"),
    ("es", "Juan bebe café por la mañana", "Juan no bebe café por la mañana", "negation"),
    ("ja", "マリアはベルリンに住んでいます", "マリアはベルリンに住んでいる", "duplicate"),
    ("ja", "健太は毎朝コーヒーを飲みます", "健太は毎朝コーヒーを飲む", "duplicate"),
    ("ja", "健太は猫を二匹飼っています", "健太は猫を三匹飼っています", "value"),
    ("ja", "健太はコーヒーを飲みます", "健太はコーヒーを飲みません", "negation"),
    ("ar", "ماريا تعيش في برلين مع زوجها", "ماريا تعيش مع زوجها في برلين", "duplicate"),
    ("ar", "أحمد يحب القهوة كثيرا", "أحمد يحب القهوة جدا", "duplicate"),
    ("ar", "لدى أحمد قطتان", "لدى أحمد ثلاث قطط", "value"),
    ("ar", "أحمد يشرب القهوة في الصباح", "أحمد لا يشرب القهوة في الصباح", "negation"),
]


@pytest.fixture
def use_store(store, embedder):
    """The test store with the bundled embedder's thresholds (rolled back after)."""
    from pymem.embedder import default_embedder

    args, kwargs = default_embedder()._settings()
    store.configure_embedder(*args, **kwargs, overwrite=True)
    return store


@pytest.mark.parametrize(("language", "first", "second", "relation"), PAIRS,
                         ids=[f"{p[0]}-{p[3]}-{i}" for i, p in enumerate(PAIRS)])  # fmt: skip
def test_a_restatement_merges_and_a_new_value_or_a_negation_stays_apart(
    use_store, conn, embedder, language, first, second, relation
):
    a, b = embedder([first, second])
    kept = use_store.upsert(language, first, a)
    written = use_store.upsert(language, second, b)
    if relation == "duplicate":
        assert (written.action, written.memory_id) == ("duplicate", kept.memory_id), written
    else:
        # never merged: a new value supersedes or stands beside it, a negation stands
        assert written.action != "duplicate", written
        if relation == "negation":
            assert written.action == "inserted", written


@pytest.mark.parametrize(
    ("content", "terms"),
    [
        # ё read as е; a one-letter word ("в") is no term
        ("Мария живёт в Берлине", ["мария", "живет", "берлине"]),
        # the English stemmer folds a final e; Spanish function words count
        ("Juan bebe café por la mañana", ["juan", "beb", "café", "por", "la", "mañana"]),
        # kanji and katakana, a character at a time; hiragana is grammar
        ("健太は毎朝コーヒーを飲みます", ["健", "太", "毎", "朝", "コ", "ヒ", "飲"]),
        ("أحمد يشرب القهوة", ["أحمد", "يشرب", "القهوة"]),
        # a script that needs a dictionary to cut into words counts no terms
        ("ฉันชอบกาแฟ", []),
    ],
)
def test_the_terms_of_each_script(conn, content, terms):
    got = conn.execute("SELECT pymem._content_terms(%s)", (content,)).fetchone()[0]
    assert got == terms


@pytest.mark.parametrize(
    ("content", "negated"),
    [
        ("Иван не пьёт кофе", True),
        ("Иван пьёт кофе", False),
        ("Нет, он никогда не курил", True),
        ("Juan nunca bebe café", True),
        ("Juan bebe café", False),
        ("健太はコーヒーを飲みません", True),
        ("健太はコーヒーを飲みます", False),
        ("أحمد لا يشرب القهوة", True),
        ("أحمد يشرب القهوة", False),
        # a word that holds the letters of a negation is no negation
        ("Иван любит кино", False),
    ],
)
def test_negation_in_other_languages(conn, content, negated):
    assert conn.execute("SELECT pymem._negated(%s)", (content,)).fetchone()[0] is negated
