"""The write path: pymem.upsert_memory / pymem.upsert_memories.

Decisions (duplicate / superseded / inserted) at their threshold boundaries,
isolation, the lexical gate, canonical statements, topics, what a duplicate
and a supersede do to the stored row, history, consolidated fragments and
batches. Everything runs against the real database in a rolled-back
transaction (fixtures ``conn`` / ``store``).

Texts in the threshold tests carry no numbers or negations, are not
near-identical and swap no content term ("likes green tea" / "likes tea"), so
only the cosine decides; a related-band neighbour without evidence of the
same slot is inserted and queued for review (on_related = review).

In this order: decisions and what they do to the rows; concurrent writers; bad input;
edge rules found in review.
"""

from __future__ import annotations

import json
import math
import random
import threading
from pathlib import Path

import numpy as np
import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from pymem import MemoryItem, MemoryStore
from pymem.errors import (
    ContentTooLong,
    DimensionMismatch,
    EmbedderMismatch,
    InvalidBatch,
    InvalidContent,
    InvalidEmbedding,
    InvalidParameter,
    InvalidSource,
    InvalidThresholds,
    InvalidUserId,
    UnknownKind,
    UnsupportedIsolation,
)
from pymem.migrate import migrate
from tests.conftest import at_cosine, unit
from tests.helpers import THREADS, count, memory, refused, run_together

USER = "alice"
OLD = "likes green tea"
NEW = "likes tea"

MARGIN = 0.002
DEDUP = 0.92  # settings defaults of a fresh test database
SUPERSEDE = 0.75
TOPIC_SUPERSEDE = 0.5


# --- helpers ------------------------------------------------------------------------------


def versions(conn: psycopg.Connection, memory_id) -> list[dict]:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            "SELECT * FROM pymem.memory_versions WHERE memory_id = %s ORDER BY version",
            (memory_id,),
        )
        return cur.fetchall()


def raw_upsert(conn: psycopg.Connection, query: str, params=()) -> dict:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, params)
        rows = cur.fetchall()
    assert len(rows) == 1
    return rows[0]


# --- 1. decisions and threshold boundaries ------------------------------------------------


def test_first_upsert_inserts(store, conn):
    r = store.upsert(USER, OLD, unit(0))
    assert r.action == "inserted"
    assert r.similarity is None
    assert r.matched_id is None
    row = memory(conn, r.memory_id)
    assert row["user_id"] == USER
    assert row["content"] == OLD
    assert row["kind"] == "fact"
    assert row["version"] == 1
    assert row["mention_count"] == 1
    assert count(conn) == 1


def reviews(conn: psycopg.Connection) -> list[tuple]:
    return conn.execute(
        "SELECT cause, memory_id, matched_id, round(similarity::numeric, 3)::float"
        " FROM pymem.reviews WHERE resolved_at IS NULL ORDER BY created_at"
    ).fetchall()


@pytest.mark.parametrize(
    ("cosine", "on_related", "expected"),
    [
        (DEDUP + MARGIN, None, "duplicate"),
        (DEDUP - MARGIN, None, "related"),
        (SUPERSEDE + MARGIN, None, "related"),
        (SUPERSEDE + MARGIN, "supersede", "superseded"),
        (SUPERSEDE + MARGIN, "insert", "related"),
        (SUPERSEDE - MARGIN, None, "inserted"),
        (SUPERSEDE - MARGIN, "supersede", "inserted"),
    ],
)
def test_threshold_boundaries(store, conn, cosine, on_related, expected):
    first = store.upsert(USER, OLD, unit(0))
    r = store.upsert(USER, NEW, at_cosine(cosine), on_related=on_related)
    if expected in ("inserted", "related"):
        assert r.action == "inserted"
        assert r.memory_id != first.memory_id
        assert count(conn) == 2
    else:
        assert r.action == expected
        assert r.memory_id == first.memory_id
        assert count(conn) == 1
    if expected == "inserted":
        assert (r.similarity, r.matched_id) == (None, None)
        assert r.rule == "no close memory"
    else:
        assert r.matched_id == first.memory_id
        assert r.similarity == pytest.approx(cosine, abs=1e-4)
    queued = expected == "related" and on_related is None
    assert bool(reviews(conn)) == queued
    if queued:
        assert reviews(conn) == [("related", r.memory_id, first.memory_id, round(cosine, 3))]
    expected_content = NEW if expected == "superseded" else OLD
    assert memory(conn, first.memory_id)["content"] == expected_content


@pytest.mark.parametrize(
    ("cosine", "dedup", "supersede", "expected"),
    [
        (0.60, 0.50, 0.40, "duplicate"),  # by default: inserted
        (0.95, 0.97, 0.90, "related"),  # by default: duplicate
        (0.80, 0.99, 0.85, "inserted"),  # by default: related
        (0.80, None, 0.85, "inserted"),  # only supersede overridden
        (0.80, 0.80, None, "duplicate"),  # only dedup overridden
    ],
)
def test_per_call_threshold_overrides(store, conn, cosine, dedup, supersede, expected):
    first = store.upsert(USER, OLD, unit(0))
    r = store.upsert(
        USER, NEW, at_cosine(cosine), dedup_threshold=dedup, supersede_threshold=supersede
    )
    assert r.action == ("duplicate" if expected == "duplicate" else "inserted")
    assert (r.memory_id == first.memory_id) == (expected == "duplicate")
    assert (r.matched_id == first.memory_id) == (expected != "inserted")


def test_thresholds_are_read_from_settings(store, conn):
    conn.execute("UPDATE pymem.settings SET dedup_threshold = 0.6, supersede_threshold = 0.4")
    first = store.upsert(USER, OLD, unit(0))
    dup = store.upsert(USER, NEW, at_cosine(0.6 + MARGIN))
    assert (dup.action, dup.memory_id) == ("duplicate", first.memory_id)
    related = store.upsert(USER, "likes tea a lot", at_cosine(0.4 + MARGIN, other=2))
    assert (related.action, related.matched_id) == ("inserted", first.memory_id)
    conn.execute("UPDATE pymem.settings SET on_related = 'supersede'")
    sup = store.upsert(USER, "prefers sencha", at_cosine(0.4 + MARGIN, other=3))
    assert (sup.action, sup.memory_id) == ("superseded", first.memory_id)
    ins = store.upsert(USER, "collects stamps", at_cosine(0.4 - MARGIN, other=4))
    assert (ins.action, ins.matched_id) == ("inserted", None)


def test_raw_sql_named_arguments_and_columns(sql):
    with sql.cursor(row_factory=dict_row) as cur:
        cur.execute(
            "SELECT * FROM pymem.upsert_memory('u', 'likes green tea', %s::vector, 'fact',"
            " importance => 0.9, source => 'confirmed', pinned => true,"
            ' details => \'{"drink": "tea"}\'::jsonb)',
            (unit(0),),
        )
        assert [c.name for c in cur.description] == [
            "memory_id",
            "action",
            "similarity",
            "matched_id",
            "rule",
        ]
        (first,) = cur.fetchall()
    assert first["action"] == "inserted"
    assert first["similarity"] is None and first["matched_id"] is None
    row = memory(sql, first["memory_id"])
    assert row["importance"] == pytest.approx(0.9)
    assert row["source"] == "confirmed"
    assert row["pinned"] is True
    assert row["details"] == {"drink": "tea"}

    dup = raw_upsert(
        sql,
        "SELECT * FROM pymem.upsert_memory('u', 'likes tea', %s::vector,"
        " dedup_threshold => 0.5, supersede_threshold => 0.3)",
        (at_cosine(0.6),),
    )
    assert dup["action"] == "duplicate"
    assert dup["memory_id"] == first["memory_id"] == dup["matched_id"]
    assert dup["similarity"] == pytest.approx(0.6, abs=1e-4)


def test_raw_sql_supersede_and_insert(sql):
    first = raw_upsert(
        sql, "SELECT * FROM pymem.upsert_memory('u', 'likes green tea', %s)", (unit(0),)
    )
    sup = raw_upsert(
        sql,
        "SELECT * FROM pymem.upsert_memory(user_id => 'u', content => 'enjoys oolong',"
        " embedding => %s, kind => 'fact', on_related => 'supersede')",
        (at_cosine(0.8),),
    )
    assert sup["action"] == "superseded"
    assert sup["memory_id"] == first["memory_id"] == sup["matched_id"]
    assert sup["similarity"] == pytest.approx(0.8, abs=1e-4)
    ins = raw_upsert(
        sql,
        "SELECT * FROM pymem.upsert_memory('u', 'collects stamps', %s, 'fact',"
        " supersede_threshold => 0.9, dedup_threshold => 0.95)",
        (at_cosine(0.85, other=2),),
    )
    assert ins["action"] == "inserted"
    assert ins["similarity"] is None and ins["matched_id"] is None
    assert count(sql, "u") == 2


# --- 2. isolation by user and kind --------------------------------------------------------


def test_other_user_is_isolated(store, conn):
    mine = store.upsert(USER, OLD, unit(0))
    theirs = store.upsert("bob", OLD, unit(0))
    assert theirs.action == "inserted"
    assert theirs.memory_id != mine.memory_id
    assert memory(conn, mine.memory_id)["mention_count"] == 1
    again = store.upsert("bob", OLD, unit(0))
    assert (again.action, again.memory_id) == ("duplicate", theirs.memory_id)
    assert memory(conn, mine.memory_id)["mention_count"] == 1
    assert count(conn, USER) == 1 and count(conn, "bob") == 1


def test_other_kind_is_isolated(store, conn):
    fact = store.upsert(USER, OLD, unit(0), "fact")
    pref = store.upsert(USER, OLD, unit(0), "preference")
    assert pref.action == "inserted"
    assert pref.memory_id != fact.memory_id
    assert memory(conn, pref.memory_id)["kind"] == "preference"
    # a supersede-range match of another kind does not supersede either
    near = store.upsert(USER, NEW, at_cosine(0.8), "habit")
    assert near.action == "inserted"
    assert memory(conn, fact.memory_id)["content"] == OLD
    assert count(conn, USER) == 3


# --- 3. the normalization gate ------------------------------------------------------------


def test_chinese_intensifier_is_duplicate_whatever_the_vectors(store, conn):
    first = store.upsert(USER, "用户喜欢喝美式", unit(0))
    r = store.upsert(USER, "用户非常喜欢喝美式", unit(1))
    assert r.action == "duplicate"
    assert r.memory_id == first.memory_id == r.matched_id
    assert count(conn) == 1
    assert memory(conn, first.memory_id)["content"] == "用户喜欢喝美式"


def test_english_case_punctuation_intensifier_is_duplicate(store, conn):
    first = store.upsert(USER, "I REALLY like hiking!!", unit(0))
    r = store.upsert(USER, "i like hiking", unit(1))
    assert (r.action, r.memory_id) == ("duplicate", first.memory_id)
    assert count(conn) == 1


def test_near_identical_text_by_trigram_is_duplicate(store, conn):
    first = store.upsert(USER, "User likes to go hiking in the Alps", unit(0))
    # unrelated memories, fewer than 8, so the first stays among the nearest
    for i, text in enumerate(["collects stamps", "owns a red bicycle", "reads poetry"]):
        store.upsert(USER, text, unit(10 + i))
    cosine = 0.55  # below supersede, above settings.trigram_min_similarity
    r = store.upsert(USER, "User likes to go hiking in the Alp", at_cosine(cosine))
    assert r.action == "duplicate"
    assert r.memory_id == first.memory_id == r.matched_id
    assert count(conn) == 4


VALUE_PAIRS = [
    ("Meeting at 3pm", "Meeting at 4pm"),
    ("Flight on 2024-05-03", "Flight on 2024-05-04"),
    ("My A1C is 7.2%", "my A1C is 6.8 %"),
    ("每周跑步三次", "每周跑步五次"),
]

NEGATION_PAIRS = [
    ("likes cats", "does not like cats"),
    ("does not like cats", "likes cats"),
    ("喜欢猫", "不喜欢猫"),
    ("不喜欢猫", "喜欢猫"),
]


MARKER_PAIRS = VALUE_PAIRS + NEGATION_PAIRS


@pytest.mark.parametrize(("old", "new"), NEGATION_PAIRS)
def test_negation_is_never_merged(store, conn, old, new):
    first = store.upsert(USER, old, unit(0))
    r = store.upsert(USER, new, at_cosine(0.99))
    assert r.action == "inserted"
    assert r.memory_id != first.memory_id
    assert memory(conn, first.memory_id)["content"] == old
    assert count(conn) == 2


@pytest.mark.parametrize(("old", "new"), VALUE_PAIRS)
def test_same_statement_with_a_new_value_supersedes(store, conn, old, new):
    first = store.upsert(USER, old, unit(0))
    r = store.upsert(USER, new, at_cosine(SUPERSEDE + MARGIN))
    assert (r.action, r.memory_id, r.rule) == (
        "superseded",
        first.memory_id,
        "same statement, new value",
    )
    assert memory(conn, first.memory_id)["content"] == new
    (old_version,) = versions(conn, first.memory_id)
    assert old_version["content"] == old
    assert old_version["reason"].startswith("superseded: same statement, new value")


@pytest.mark.parametrize(("old", "new"), VALUE_PAIRS)
def test_new_value_needs_a_close_embedding(store, conn, old, new):
    store.upsert(USER, old, unit(0))
    r = store.upsert(USER, new, at_cosine(SUPERSEDE - MARGIN))
    assert (r.action, r.matched_id) == ("inserted", None)
    assert count(conn) == 2


@pytest.mark.parametrize(("old", "new"), MARKER_PAIRS)
def test_number_or_negation_with_same_topic_supersedes(store, conn, old, new):
    first = store.upsert(USER, old, unit(0), topic="t:subject")
    r = store.upsert(USER, new, at_cosine(0.99), topic="t:subject")
    assert r.action == "superseded"
    assert r.memory_id == first.memory_id
    assert memory(conn, first.memory_id)["content"] == new
    assert count(conn) == 1


# --- 4. canonical statements --------------------------------------------------------------


def test_equal_canonical_is_duplicate(store, conn):
    first = store.upsert(USER, "User drinks americano", unit(0), canonical="user drinks americano")
    r = store.upsert(
        USER, "Black coffee is what they order", unit(1), canonical="User drinks Americano."
    )
    assert r.action == "duplicate"
    assert r.memory_id == first.memory_id == r.matched_id
    assert count(conn) == 1


def test_different_canonical_is_not_duplicate(store, conn):
    store.upsert(USER, "User drinks americano", unit(0), canonical="user drinks americano")
    r = store.upsert(USER, "Black coffee is what they order", unit(1), canonical="user drinks tea")
    assert r.action == "inserted"
    assert count(conn) == 2


def test_canonical_via_raw_sql(sql):
    first = raw_upsert(
        sql,
        "SELECT * FROM pymem.upsert_memory('u', 'likes green tea', %s,"
        " canonical => 'user likes green tea')",
        (unit(0),),
    )
    r = raw_upsert(
        sql,
        "SELECT * FROM pymem.upsert_memory('u', 'a fan of matcha', %s,"
        " canonical => 'User likes GREEN tea!')",
        (unit(1),),
    )
    assert (r["action"], r["memory_id"]) == ("duplicate", first["memory_id"])


# --- 5. topics ----------------------------------------------------------------------------


def test_different_topics_are_different_subjects(store, conn):
    first = store.upsert(USER, OLD, unit(0), topic="drink:tea")
    r = store.upsert(USER, NEW, at_cosine(0.99), topic="drink:coffee")
    assert r.action == "inserted"
    assert r.memory_id != first.memory_id
    assert count(conn) == 2


def test_different_topics_do_not_supersede(store, conn):
    first = store.upsert(USER, OLD, unit(0), topic="drink:tea")
    r = store.upsert(USER, NEW, at_cosine(0.8), topic="drink:coffee")
    assert r.action == "inserted"
    assert memory(conn, first.memory_id)["content"] == OLD


@pytest.mark.parametrize(
    ("cosine", "on_related", "values", "expected"),
    [
        (SUPERSEDE + MARGIN, None, (None, None), "superseded"),
        # below the related band a shared topic is a related pair: a topic is often a
        # shelf of several facts ("food": the favourite drink beside the favourite dish)
        (0.6, None, (None, None), "related"),
        (0.6, None, ("learning", None), "related"),
        (0.6, None, (None, "proficient"), "related"),
        (TOPIC_SUPERSEDE + MARGIN, "insert", (None, None), "related"),
        # unless both writes state their value: two values of one slot
        (TOPIC_SUPERSEDE + MARGIN, None, ("learning", "proficient"), "superseded"),
        (TOPIC_SUPERSEDE - MARGIN, None, ("learning", "proficient"), "inserted"),
        # the seeds' plain band: a shared topic supersedes from its own threshold
        (TOPIC_SUPERSEDE + MARGIN, "supersede", (None, None), "superseded"),
        (TOPIC_SUPERSEDE - MARGIN, "supersede", (None, None), "inserted"),
    ],
)
def test_a_shared_topic_supersedes_from_the_supersede_threshold(
    store, conn, cosine, on_related, values, expected
):
    old, new = values
    first = store.upsert(USER, "is learning React", unit(0), topic="skill:react", canonical=old)
    r = store.upsert(
        USER, "proficient in React", at_cosine(cosine), topic="skill:react", canonical=new,
        on_related=on_related,
    )  # fmt: skip
    if expected == "superseded":
        assert r.action == "superseded"
        assert r.memory_id == first.memory_id == r.matched_id
        assert r.similarity == pytest.approx(cosine, abs=1e-4)
        assert memory(conn, first.memory_id)["content"] == "proficient in React"
        assert memory(conn, first.memory_id)["topic"] == "skill:react"
    elif expected == "related":
        assert (r.action, r.matched_id) == ("inserted", first.memory_id)
        assert r.rule == "same topic, below the related band"
        assert memory(conn, first.memory_id)["content"] == "is learning React"
        queued = [(q.memory_id, q.matched_id) for q in store.pending_reviews(USER)]
        assert queued == ([(r.memory_id, first.memory_id)] if on_related is None else [])
    else:
        assert r.action == "inserted" and r.rule != "same topic, below the related band"
        assert count(conn) == 2


@pytest.mark.parametrize("topic_side", ["old", "new"])
@pytest.mark.parametrize(
    ("cosine", "expected"),
    [(0.6, "inserted"), (0.8, "related"), (0.99, "duplicate")],
)
def test_topic_on_one_side_uses_normal_thresholds(store, conn, topic_side, cosine, expected):
    first = store.upsert(USER, OLD, unit(0), topic="drink:tea" if topic_side == "old" else None)
    r = store.upsert(
        USER, NEW, at_cosine(cosine), topic="drink:tea" if topic_side == "new" else None
    )
    assert r.action == ("duplicate" if expected == "duplicate" else "inserted")
    assert (r.memory_id == first.memory_id) == (expected == "duplicate")
    assert (r.matched_id == first.memory_id) == (expected != "inserted")


# --- 6. what a duplicate does -------------------------------------------------------------


def test_duplicate_touches_and_revives(store, conn):
    first = store.upsert(USER, OLD, unit(0))
    conn.execute(
        "UPDATE pymem.memories SET last_access_at = now() - interval '10 days', tier = 'cold'"
        " WHERE id = %s",
        (first.memory_id,),
    )
    before = memory(conn, first.memory_id)
    r = store.upsert(USER, NEW, at_cosine(0.95))
    assert r.action == "duplicate"
    after = memory(conn, first.memory_id)
    assert after["mention_count"] == before["mention_count"] + 1
    assert after["last_access_at"] > before["last_access_at"]
    now = conn.execute("SELECT now()").fetchone()[0]
    assert after["last_access_at"] >= now
    assert after["tier"] == "hot"
    store.upsert(USER, OLD, unit(0))
    assert memory(conn, first.memory_id)["mention_count"] == before["mention_count"] + 2


def test_duplicate_stores_nothing_new(store, conn):
    first = store.upsert(USER, OLD, unit(0))
    before = memory(conn, first.memory_id)
    store.upsert(USER, NEW, at_cosine(0.95))
    after = memory(conn, first.memory_id)
    assert count(conn) == 1
    assert after["content"] == OLD
    assert np.allclose(after["embedding"].to_numpy(), unit(0))
    assert after["version"] == before["version"] == 1
    assert versions(conn, first.memory_id) == []


def test_duplicate_importance_is_max(store, conn):
    first = store.upsert(USER, OLD, unit(0), importance=0.8)
    store.upsert(USER, OLD, unit(0), importance=0.3)
    assert memory(conn, first.memory_id)["importance"] == pytest.approx(0.8)
    store.upsert(USER, NEW, at_cosine(0.95), importance=0.95)
    assert memory(conn, first.memory_id)["importance"] == pytest.approx(0.95)
    store.upsert(USER, OLD, unit(0), importance=0.0)
    assert memory(conn, first.memory_id)["importance"] == pytest.approx(0.95)


@pytest.mark.parametrize(
    ("first_source", "second_source", "expected"),
    [
        ("inferred", "stated", "stated"),
        ("stated", "confirmed", "confirmed"),
        ("inferred", "confirmed", "confirmed"),
        ("confirmed", "inferred", "confirmed"),
        ("confirmed", "stated", "confirmed"),
        ("stated", "inferred", "stated"),
        ("inferred", "inferred", "inferred"),
    ],
)
def test_duplicate_source_upgrades_never_downgrades(
    store, conn, first_source, second_source, expected
):
    first = store.upsert(USER, OLD, unit(0), source=first_source)
    r = store.upsert(USER, OLD, unit(0), source=second_source)
    assert r.action == "duplicate"
    assert memory(conn, first.memory_id)["source"] == expected


def test_duplicate_source_chain(store, conn):
    first = store.upsert(USER, OLD, unit(0), source="inferred")
    for source, expected in [
        ("stated", "stated"),
        ("confirmed", "confirmed"),
        ("inferred", "confirmed"),
        ("stated", "confirmed"),
    ]:
        store.upsert(USER, NEW, at_cosine(0.95), source=source)
        assert memory(conn, first.memory_id)["source"] == expected


def test_duplicate_pinned_stays(store, conn):
    pinned = store.upsert(USER, OLD, unit(0), pinned=True)
    store.upsert(USER, OLD, unit(0), pinned=False)
    assert memory(conn, pinned.memory_id)["pinned"] is True
    unpinned = store.upsert(USER, "collects stamps", unit(1), pinned=False)
    store.upsert(USER, "collects stamps", unit(1), pinned=True)
    assert memory(conn, unpinned.memory_id)["pinned"] is True


def test_duplicate_merges_details_and_metadata_keeping_existing(store, conn):
    first = store.upsert(
        USER, OLD, unit(0), details={"drink": "tea", "sugar": False}, metadata={"chat": "c1"}
    )
    r = store.upsert(
        USER,
        NEW,
        at_cosine(0.95),
        details={"drink": "oolong", "temperature": "hot"},
        metadata={"chat": "c2", "turn": 7},
    )
    assert r.action == "duplicate"
    row = memory(conn, first.memory_id)
    assert row["details"] == {"drink": "tea", "sugar": False, "temperature": "hot"}
    assert row["metadata"] == {"chat": "c1", "turn": 7}


def test_duplicate_via_raw_sql_keeps_max_importance(sql):
    first = raw_upsert(
        sql,
        "SELECT * FROM pymem.upsert_memory('u', 'likes green tea', %s::vector, 'fact',"
        " importance => 0.9)",
        (unit(0),),
    )
    r = raw_upsert(
        sql,
        "SELECT * FROM pymem.upsert_memory('u', 'likes green tea', %s::vector, 'fact',"
        " importance => 0.2, source => 'inferred', pinned => false)",
        (unit(0),),
    )
    assert (r["action"], r["memory_id"]) == ("duplicate", first["memory_id"])
    row = memory(sql, first["memory_id"])
    assert row["importance"] == pytest.approx(0.9)
    assert row["source"] == "stated"
    assert row["mention_count"] == 2


# --- 7. what a supersede does, and history for every writer -------------------------------

TOPIC = "drink:tea"  # the slot evidence that makes these writes supersede


def test_a_hand_written_version_is_the_triggers_to_set(store, conn):
    """An UPDATE of version alone fired no trigger: version 1 again made the next
    change's history row collide with the first one's (23505), and the memory could
    never change again."""
    first = store.upsert("ann", "Ann pays 2000 yuan rent", unit(0))
    assert store.upsert("ann", "Ann pays 2400 yuan rent", unit(0)).action == "superseded"
    conn.execute("UPDATE pymem.memories SET version = 1 WHERE id = %s", (first.memory_id,))
    assert memory(conn, first.memory_id)["version"] == 3
    assert store.upsert("ann", "Ann pays 2600 yuan rent", unit(0)).action == "superseded"
    versions = conn.execute(
        "SELECT version FROM pymem.memory_versions WHERE memory_id = %s ORDER BY version",
        (first.memory_id,),
    ).fetchall()
    assert versions == [(1,), (2,), (3,)]


def test_supersede_updates_in_place_and_keeps_history(store, conn):
    first = store.upsert(
        USER,
        OLD,
        unit(0),
        topic=TOPIC,
        source="confirmed",
        pinned=True,
        importance=0.7,
        details={"drink": "tea"},
    )
    r = store.upsert(
        USER,
        NEW,
        at_cosine(0.8),
        topic=TOPIC,
        source="inferred",
        pinned=False,
        importance=0.2,
        details={"variety": "oolong"},
    )
    assert r.action == "superseded"
    assert r.memory_id == first.memory_id == r.matched_id
    assert r.similarity == pytest.approx(0.8, abs=1e-4)
    assert count(conn) == 1

    row = memory(conn, first.memory_id)
    assert row["content"] == NEW
    assert np.allclose(row["embedding"].to_numpy(), at_cosine(0.8), atol=1e-6)
    assert row["version"] == 2
    assert row["source"] == "confirmed"
    assert row["pinned"] is True
    assert row["importance"] == pytest.approx(0.7)
    assert row["details"] == {"drink": "tea", "variety": "oolong"}

    (old,) = versions(conn, first.memory_id)
    assert old["content"] == OLD
    assert old["version"] == 1
    assert old["reason"].startswith("superseded")
    assert np.allclose(old["embedding"].to_numpy(), unit(0))


def test_supersede_upgrades_source(store, conn):
    first = store.upsert(USER, OLD, unit(0), source="inferred", topic=TOPIC)
    store.upsert(USER, NEW, at_cosine(0.8), source="stated", pinned=True, topic=TOPIC)
    row = memory(conn, first.memory_id)
    assert row["source"] == "stated"
    assert row["pinned"] is True


def test_two_supersedes_keep_every_version(store, conn):
    first = store.upsert(USER, OLD, unit(0), topic=TOPIC)
    second = at_cosine(0.8)
    store.upsert(USER, NEW, second, topic=TOPIC)
    third = (0.8 * second + 0.6 * unit(2)).astype(np.float32)  # cosine 0.8 with second
    r = store.upsert(USER, "prefers sencha", third, topic=TOPIC)
    assert (r.action, r.memory_id) == ("superseded", first.memory_id)
    row = memory(conn, first.memory_id)
    hist = versions(conn, first.memory_id)
    assert [h["content"] for h in hist] == [OLD, NEW]
    assert [h["version"] for h in hist] == [1, 2]
    assert all(h["reason"].startswith("superseded") for h in hist)
    assert row["content"] == "prefers sencha"
    assert row["version"] == 3


def test_hand_update_of_content_is_recorded(store, conn):
    first = store.upsert(USER, OLD, unit(0))
    conn.execute(
        "UPDATE pymem.memories SET content = 'likes jasmine tea' WHERE id = %s",
        (first.memory_id,),
    )
    row = memory(conn, first.memory_id)
    assert row["version"] == 2
    assert row["content"] == "likes jasmine tea"
    (old,) = versions(conn, first.memory_id)
    assert old["content"] == OLD
    assert old["reason"] == "update"
    assert old["version"] == 1


def test_hand_update_after_a_supersede_is_recorded_as_update(store, conn):
    first = store.upsert(USER, OLD, unit(0), topic=TOPIC)
    store.upsert(USER, NEW, at_cosine(0.8), topic=TOPIC)
    conn.execute(
        "UPDATE pymem.memories SET content = 'likes jasmine tea' WHERE id = %s",
        (first.memory_id,),
    )
    hist = versions(conn, first.memory_id)
    assert [h["content"] for h in hist] == [OLD, NEW]
    assert hist[0]["reason"].startswith("superseded")
    assert hist[1]["reason"] == "update"
    assert memory(conn, first.memory_id)["version"] == 3


def test_hand_delete_is_recorded(store, conn):
    first = store.upsert(USER, OLD, unit(0))
    conn.execute("DELETE FROM pymem.memories WHERE id = %s", (first.memory_id,))
    assert count(conn) == 0
    (old,) = versions(conn, first.memory_id)
    assert old["content"] == OLD
    assert old["reason"] == "delete"
    assert old["user_id"] == USER


def test_touch_only_update_records_nothing(store, conn):
    first = store.upsert(USER, OLD, unit(0))
    before = memory(conn, first.memory_id)
    conn.execute(
        "UPDATE pymem.memories SET last_access_at = now() WHERE id = %s", (first.memory_id,)
    )
    conn.execute(
        "UPDATE pymem.memories SET tier = 'cold', access_count = access_count + 1 WHERE id = %s",
        (first.memory_id,),
    )
    after = memory(conn, first.memory_id)
    assert versions(conn, first.memory_id) == []
    assert after["version"] == before["version"] == 1
    assert after["updated_at"] == before["updated_at"]


# --- 8. consolidated fragments ------------------------------------------------------------


def test_consolidated_fragment_is_not_stored_again(store, conn):
    a = store.upsert(USER, OLD, unit(0))
    b = store.upsert(USER, "collects stamps", unit(1))
    conn.execute(
        "UPDATE pymem.memories SET consolidated_into = %s WHERE id = %s",
        (b.memory_id, a.memory_id),
    )
    before = count(conn)
    r = store.upsert(USER, OLD, unit(0))
    assert r.action == "duplicate"
    assert r.memory_id == b.memory_id
    assert r.matched_id == a.memory_id
    assert count(conn) == before == 2


def test_consolidation_chain_is_followed(store, conn):
    a = store.upsert(USER, OLD, unit(0))
    b = store.upsert(USER, "collects stamps", unit(1))
    c = store.upsert(USER, "reads poetry", unit(2))
    conn.execute(
        "UPDATE pymem.memories SET consolidated_into = %s WHERE id = %s",
        (b.memory_id, a.memory_id),
    )
    conn.execute(
        "UPDATE pymem.memories SET consolidated_into = %s WHERE id = %s",
        (c.memory_id, b.memory_id),
    )
    r = store.upsert(USER, OLD, unit(0))
    assert (r.action, r.memory_id, r.matched_id) == ("duplicate", c.memory_id, a.memory_id)
    assert count(conn) == 3


# --- 9. batches ---------------------------------------------------------------------------


def test_batch_mix_of_actions_in_input_order(store, conn):
    existing = store.upsert(USER, OLD, unit(0), topic="t")
    results = store.upsert_many(
        USER,
        [
            {"content": NEW, "embedding": unit(1)},  # new
            {"content": OLD, "embedding": unit(0)},  # duplicate of the store
            {"content": NEW, "embedding": unit(1)},  # duplicate of item 1
            # a new value of the same slot (its topic)
            {"content": "prefers sencha", "embedding": at_cosine(0.8, other=2), "topic": "t"},
            {"content": "reads poetry", "embedding": unit(3)},  # new
        ],
    )
    assert [r.ordinal for r in results] == [1, 2, 3, 4, 5]
    assert [r.action for r in results] == [
        "inserted",
        "duplicate",
        "duplicate",
        "superseded",
        "inserted",
    ]
    assert results[0].similarity is None and results[0].matched_id is None
    assert results[1].memory_id == existing.memory_id == results[1].matched_id
    assert results[2].memory_id == results[0].memory_id
    assert results[3].memory_id == existing.memory_id
    assert results[3].similarity == pytest.approx(0.8, abs=1e-4)
    assert len({results[0].memory_id, results[4].memory_id, existing.memory_id}) == 3
    assert count(conn) == 3
    assert memory(conn, existing.memory_id)["content"] == "prefers sencha"
    assert memory(conn, results[0].memory_id)["mention_count"] == 2


def test_batch_first_item_wins(store, conn):
    results = store.upsert_many(
        USER,
        [
            {"content": OLD, "embedding": unit(0), "importance": 0.4},
            {"content": NEW, "embedding": at_cosine(0.95), "importance": 0.9},
            {"content": "用户喜欢喝美式", "embedding": unit(5)},
            {"content": "用户非常喜欢喝美式", "embedding": unit(6)},
        ],
    )
    assert [r.action for r in results] == ["inserted", "duplicate", "inserted", "duplicate"]
    assert results[1].memory_id == results[0].memory_id == results[1].matched_id
    assert results[3].memory_id == results[2].memory_id
    row = memory(conn, results[0].memory_id)
    assert row["content"] == OLD
    assert row["importance"] == pytest.approx(0.9)
    assert memory(conn, results[2].memory_id)["content"] == "用户喜欢喝美式"
    assert count(conn) == 2


def test_batch_empty(store, conn):
    assert store.upsert_many(USER, []) == []
    rows = conn.execute("SELECT * FROM pymem.upsert_memories('u', '[]'::jsonb)").fetchall()
    assert rows == []
    assert count(conn) == 0


def test_batch_items_as_memoryitem_and_dict_numpy_and_list(store, conn):
    results = store.upsert_many(
        USER,
        [
            MemoryItem(OLD, unit(0), kind="preference", importance=0.9, topic="drink:tea"),
            {"content": "collects stamps", "embedding": unit(1).tolist(), "source": "confirmed"},
            MemoryItem(
                "reads poetry", [float(x) for x in unit(2)], pinned=True, details={"genre": "haiku"}
            ),
            {
                "content": "owns a red bicycle",
                "embedding": unit(3),
                "kind": "fact",
                "metadata": {"chat": "c9"},
            },
            MemoryItem("collects stamps", tuple(unit(1).tolist())),
        ],
    )
    assert [r.ordinal for r in results] == [1, 2, 3, 4, 5]
    assert [r.action for r in results] == [
        "inserted",
        "inserted",
        "inserted",
        "inserted",
        "duplicate",
    ]
    assert results[4].memory_id == results[1].memory_id
    rows = [memory(conn, r.memory_id) for r in results[:4]]
    assert rows[0]["kind"] == "preference"
    assert rows[0]["importance"] == pytest.approx(0.9)
    assert rows[0]["topic"] == "drink:tea"
    assert rows[1]["source"] == "confirmed" and rows[1]["kind"] == "fact"
    assert rows[2]["pinned"] is True and rows[2]["details"] == {"genre": "haiku"}
    assert rows[3]["metadata"] == {"chat": "c9"}
    for i, row in enumerate(rows):
        assert np.allclose(row["embedding"].to_numpy(), unit(i))
    assert count(conn) == 4


def test_batch_defaults_match_single_upsert(store, conn):
    (r,) = store.upsert_many(USER, [MemoryItem(OLD, unit(0))])
    row = memory(conn, r.memory_id)
    assert row["kind"] == "fact"
    assert row["importance"] == pytest.approx(0.5)
    assert row["source"] == "stated"
    assert row["pinned"] is False


def test_batch_threshold_overrides(store, conn):
    first = store.upsert(USER, OLD, unit(0))
    results = store.upsert_many(
        USER,
        [{"content": NEW, "embedding": at_cosine(0.6)}],
        dedup_threshold=0.5,
        supersede_threshold=0.4,
    )
    assert [(r.action, r.memory_id) for r in results] == [("duplicate", first.memory_id)]
    results = store.upsert_many(
        USER,
        [{"content": "prefers sencha", "embedding": at_cosine(0.95, other=2)}],
        dedup_threshold=0.99,
        supersede_threshold=0.9,
        on_related="supersede",
    )
    assert [(r.action, r.memory_id) for r in results] == [("superseded", first.memory_id)]


def test_batch_items_carry_their_own_thresholds_and_on_related(store, conn):
    first = store.upsert(USER, OLD, unit(0))
    results = store.upsert_many(
        USER,
        [
            # the item's own thresholds win over the call's
            {"content": NEW, "embedding": at_cosine(0.6), "dedup_threshold": 0.5,
             "supersede_threshold": 0.4},
            {"content": "prefers sencha", "embedding": at_cosine(0.8, other=2),
             "on_related": "insert"},
            {"content": "enjoys oolong", "embedding": at_cosine(0.8, other=3)},
        ],
        on_related="supersede",
    )  # fmt: skip
    assert [(r.action, r.memory_id == first.memory_id) for r in results] == [
        ("duplicate", True),
        ("inserted", False),
        ("superseded", True),
    ]
    assert results[1].matched_id == first.memory_id
    assert reviews(conn) == []


def test_batch_via_raw_sql(sql):
    items = [
        {"content": OLD, "embedding": unit(0).tolist(), "importance": 0.7},
        {"content": NEW, "embedding": at_cosine(0.6).tolist(), "topic": "drink"},
        {"content": "i REALLY like green tea", "embedding": unit(4).tolist(), "kind": "preference"},
    ]
    with sql.cursor(row_factory=dict_row) as cur:
        cur.execute(
            "SELECT * FROM pymem.upsert_memories('u', %s, dedup_threshold => 0.55,"
            " supersede_threshold => 0.5)",
            (Jsonb(items),),
        )
        assert [c.name for c in cur.description] == [
            "ordinal",
            "memory_id",
            "action",
            "similarity",
            "matched_id",
            "rule",
        ]
        rows = cur.fetchall()
    assert [r["ordinal"] for r in rows] == [1, 2, 3]
    assert [r["action"] for r in rows] == ["inserted", "duplicate", "inserted"]
    assert rows[1]["memory_id"] == rows[0]["memory_id"]
    assert memory(sql, rows[0]["memory_id"])["importance"] == pytest.approx(0.7)
    assert memory(sql, rows[2]["memory_id"])["kind"] == "preference"

    # a literal jsonb document, as another language would send it
    doc = json.dumps([{"content": "reads poetry", "embedding": unit(7).tolist()}])
    rows = sql.execute(
        "SELECT ordinal, action FROM pymem.upsert_memories(user_id => 'u', items => %s::jsonb)",
        (doc,),
    ).fetchall()
    assert rows == [(1, "inserted")]


# --- 12. the real embedder ----------------------------------------------------------------


@pytest.mark.embed
def test_real_embedder_paraphrase_is_duplicate(store, conn, embedder):
    a, b = "User drinks americano, no sugar", "User drinks americano without sugar"
    ea, eb = embedder([a, b])
    first = store.upsert(USER, a, ea)
    r = store.upsert(USER, b, eb)
    assert r.action == "duplicate"
    assert r.memory_id == first.memory_id
    assert count(conn) == 1


@pytest.mark.embed
def test_real_embedder_new_time_supersedes_and_keeps_the_old(store, conn, embedder):
    a, b = "Meeting with Bob at 3pm", "Meeting with Bob at 4pm"
    ea, eb = embedder([a, b])
    first = store.upsert(USER, a, ea)
    r = store.upsert(USER, b, eb)
    assert (r.action, r.memory_id, r.rule) == (
        "superseded",
        first.memory_id,
        "same statement, new value",
    )
    assert [v["content"] for v in versions(conn, first.memory_id)] == [a]
    assert memory(conn, first.memory_id)["content"] == b


# --- 13. the typed batch form ---------------------------------------------------------------


def test_typed_batch_decides_like_the_json_batch(sql):
    contents = [OLD, "reads poetry", OLD + "!"]
    vectors = [unit(0), unit(1), at_cosine(0.99)]
    typed = sql.execute(
        "SELECT ordinal, action, rule FROM pymem.upsert_memory_arrays('t', %s::text[],"
        " %b::vector[], %s::jsonb)",
        (contents, vectors, Jsonb([{"kind": "preference"}, {}, {"kind": "preference"}])),
    ).fetchall()
    as_json = [
        {"content": c, "embedding": v.tolist(), **({"kind": "preference"} if i != 1 else {})}
        for i, (c, v) in enumerate(zip(contents, vectors, strict=True))
    ]
    rows = sql.execute(
        "SELECT ordinal, action, rule FROM pymem.upsert_memories('j', %s::jsonb)",
        (Jsonb(as_json),),
    ).fetchall()
    assert (
        typed
        == rows
        == [
            (1, "inserted", "no close memory"),
            (2, "inserted", "no close memory"),
            (3, "duplicate", "same normalized text"),
        ]
    )
    kinds = sql.execute(
        "SELECT kind FROM pymem.memories WHERE user_id = 't' ORDER BY created_at, content"
    ).fetchall()
    assert sorted(k for (k,) in kinds) == ["fact", "preference"]


def test_the_typed_batch_under_its_former_name_with_casts(sql):
    """upsert_memories(text, text[], vector[], ...) stays for callers that cast."""
    rows = sql.execute(
        "SELECT ordinal, action FROM pymem.upsert_memories('t', %s::text[], %b::vector[],"
        " %s::jsonb, dedup_threshold => 0.95, supersede_threshold => 0.7, on_related => 'insert')",
        (["reads poetry", "reads poetry!"], [unit(0), unit(0)], Jsonb([{"kind": "habit"}] * 2)),
    ).fetchall()
    assert rows == [(1, "inserted"), (2, "duplicate")]
    assert sql.execute("SELECT kind FROM pymem.memories").fetchall() == [("habit",)]


@pytest.mark.parametrize(
    ("contents", "n_vectors", "options", "message"),
    [
        (["a", "b"], 1, None, "one length"),
        (["a"], 1, [{}, {}], "one length"),
        (["a"], 1, [{"content": "x"}], "own arrays"),
        (["a"], 1, [{"color": "red"}], "unknown key color"),
    ],
)
def test_typed_batch_refuses_mismatched_arrays(sql, contents, n_vectors, options, message):
    with pytest.raises(psycopg.Error, match=message) as err:
        sql.execute(
            "SELECT * FROM pymem.upsert_memory_arrays('t', %s::text[], %b::vector[], %s::jsonb)",
            (
                contents,
                [unit(i) for i in range(n_vectors)],
                None if options is None else Jsonb(options),
            ),
        )
    assert err.value.sqlstate == "PM010"
    sql.rollback()
    assert count(sql) == 0


# --- 14. the decision table: each rule and its guard, in both languages -----------------------

RELATED = "related band, no evidence of the same slot"


def kept_apart(guards: str) -> str:
    """The rule of a pair in the related band that a guard kept from being one statement:
    the guards that fired, in pymem._duplicate_guards's order (sql/18_guards.sql)."""
    return f"{RELATED}; not a duplicate: {guards}"


# The cases are data (tests/data/decision_cases.jsonl, a JSON object a line): old, new,
# their cosine, the expected action, and either the rule that decides or, for a pair in
# the related band, the guards that keep it apart (kept_apart_by); why says what a group
# of cases shows. tests/test_explain.py reads the same table.
DECISION_CASES = Path(__file__).with_name("data") / "decision_cases.jsonl"


def _decisions() -> list[tuple[str, str, float, str, str]]:
    cases = [json.loads(line) for line in DECISION_CASES.read_text(encoding="utf-8").splitlines()]
    return [
        (c["old"], c["new"], c["cosine"], c["action"],
         kept_apart(c["kept_apart_by"]) if "kept_apart_by" in c else c["rule"])
        for c in cases
    ]  # fmt: skip


DECISIONS = _decisions()


# one topic, close vectors, one term changed: the topic's new value, not a duplicate
TOPIC_PAIR = ("Ann lives in a flat in Leith", "Ann's flat is in Leith", 0.95, "home")


def test_every_guard_alone_keeps_some_pair_from_being_a_duplicate(store):
    """Each guard of pymem._duplicate_guards earns its place: a pair of the table (or
    the topic pair) that it alone keeps apart, which would merge without it."""
    old, new, cosine, topic = TOPIC_PAIR
    steps = store.explain(old, new, unit(0), at_cosine(cosine), old_topic=topic, new_topic=topic)
    guards = {s.step.removeprefix("guard: ") for s in steps if s.step.startswith("guard: ")}
    fired = [s.step.removeprefix("guard: ") for s in steps
             if s.step.startswith("guard: ") and s.finding.startswith("fired")]  # fmt: skip
    assert fired == ["same topic"] and steps[-1].finding == "superseded: same topic"
    alone = {rule.split("not a duplicate: ")[1] for *_, rule in DECISIONS
             if "not a duplicate: " in rule}  # fmt: skip
    assert len(guards) == 6 and guards - alone == {"same topic"}


@pytest.mark.parametrize(("old", "new", "cosine", "action", "rule"), DECISIONS)
def test_decision_table(store, conn, old, new, cosine, action, rule):
    first = store.upsert(USER, old, unit(0))
    r = store.upsert(USER, new, at_cosine(cosine))
    assert (r.action, r.rule) == (action, rule)
    assert (r.memory_id == first.memory_id) == (action != "inserted")
    # the pure decision step used by calibration and the benchmark says the same, for
    # every rule family (exact text included: it is one of the step's rules)
    decided, decided_rule = _step(
        conn, old, new, cosine, dedup_threshold=0.92, supersede_threshold=0.75,
        topic_supersede_threshold=0.5, trigram_threshold=0.8, dedup_term_change=0.34,
        on_related="review", trigram_min_similarity=0.5,
    )  # fmt: skip
    if action == "inserted":
        assert decided in (None, "related")
        assert decided_rule == (None if rule == "no close memory" else rule)
    else:
        assert (decided, decided_rule) == (action, rule)


# Which other order is a role swap: pymem._moved_block's limits, each on its own, in
# statements of more than six terms (in shorter English ones only pymem._exchanged_roles
# reads a swap), then pymem._exchanged_roles's
ROLE_SWAPS = [
    # one block moved, nothing exchanged: a restatement
    ("Ivo works for a company in Lima", "Ivo works for a Lima company", False),
    # a term exchanged as well as moved (PAWS: "how small the hurricane was ... a wide eye")
    ("How small the tropical storm was near the coast, showing a wide eye",
     "How wide the tropical storm was near the coast, showing a little eye", True),
    # a block that moves past more than three terms
    ("alpha bravo charlie delta echo golf hotel", "alpha echo bravo charlie delta golf hotel",
     True),
    ("alpha bravo charlie delta golf", "alpha delta bravo charlie golf", False),
    # a short statement moved and reworded at once: a restatement ...
    ("Rosa drinks her tea with honey", "Rosa puts honey in her tea", False),
    ("alpha bravo charlie delta echo golf", "alpha echo bravo charlie delta golf", False),
    # ... and names that trade places while the same person owns the same relation
    ("Nina's brother Paul lives in Lyon", "Paul, Nina's brother, is based in Lyon", False),
    # ... but not two names that trade places otherwise, two terms around a term that
    # stays between them, a comparison, a term said twice, or a question
    ("Rosa taught Omar to drive", "Omar gave Rosa driving lessons", True),
    ("The cat chased the dog", "The dog chased the cat", True),
    ("Cats chase dogs", "Dogs chase cats", True),
    ("Ines prefers tea to coffee", "Ines likes coffee more than tea", True),
    # (a comparison before the moved block too: "older brother" moves as a block)
    ("Tariq is older than his brother", "Tariq's brother is older than Tariq", True),
    # ... a word that only looks like one is none ("over the weekend", 比赛)
    ("Over the weekend Ana painted the fence", "Ana painted the fence over the weekend", False),
    ("周末唐宁去看足球比赛", "唐宁周末去看足球比赛", False),
    # ... and who owns what, said differently, is a swap
    ("A small press published Yuki's novel", "Yuki's small press published a novel", True),
    ("Ivo grows tomatoes and sells tomatoes", "Ivo sells tomatoes he grows", True),
    ("为什么奥特曼不打小怪兽", "为什么奥特曼打不赢小怪兽", True),
    # a short Chinese statement turned round is a restatement, as in English
    ("韩雪会说流利的日语", "韩雪日语说得很流利", False),
    ("刘强开车上班", "刘强上班开车去", False),
    # the same order, a word of direction leading another term (pymem._other_direction) ...
    ("Mia moved from Oslo to Berlin", "Mia moved to Oslo from Berlin", True),
    ("郑洁的老板向她汇报", "郑洁向她的老板汇报", True),
    ("Ana sends money to her mother", "Ana's mother sends money to her", True),
    # ... not the same one said where the other text does not say it, or moved, or said
    # twice in another sense
    ("Omar adds cardamom to his coffee", "Omar takes his coffee with cardamom", False),
    ("User wants to learn to cook", "User wants to learn cooking", False),
    ("Every morning Ana goes to the gym", "Ana goes to the gym every morning", False),
    # the little words that linked the parties kept
    ("Trains run from Lima to Cusco", "Trains run from Cusco to Lima", True),
    # the same order, a relation of another owner (pymem._other_owner) ...
    ("Ivo's boss is Kim", "Ivo is the boss of Kim", True),
    # ... and of the same owner, said the other way
    ("Kim is Ivo's boss", "Kim is the boss of Ivo", False),
    # values that trade places, however each is spelled
    ("Ana runs 3 km on Monday and 5 km on Friday",
     "Ana runs five km on Monday and three km on Friday", True),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "swap"), ROLE_SWAPS)
def test_which_other_order_is_a_role_swap(sql, old, new, swap):
    (found,) = sql.execute(
        "SELECT role_swap FROM pymem._term_difference(%s, %s)", (old, new)
    ).fetchone()
    assert found is swap


# pymem._term_difference's added_detail: one text says all the other says and more
ADDED_DETAIL = [
    ("唐宁在乐队弹贝斯", "唐宁在一个乐队里弹贝斯", True),
    # not a word that places the fact in the past, cancels it or takes a stance on it
    ("我住在上海", "我以前住在上海", False),
    ("我计划去日本", "我取消了去日本的计划", False),
    ("张伟的老婆做晚饭", "张伟的老婆讨厌做晚饭", False),
    # not a question, nor a text with no content term
    ("唐宁在哪个乐队弹贝斯", "唐宁在哪个乐队里弹电贝斯", False),
    ("👍", "唐宁在乐队弹贝斯", False),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "added"), ADDED_DETAIL)
def test_which_pair_adds_a_detail(sql, old, new, added):
    (found,) = sql.execute(
        "SELECT added_detail FROM pymem._term_difference(%s, %s)", (old, new)
    ).fetchone()
    assert found is added


OWNERS = [
    # a relation said with a possessive, then with "of": its owner changed
    ("Ivo's boss is Kim", "Ivo is the boss of Kim", True),
    ("Ivo's boss is Kim", "Kim is the boss of Ivo", False),
    # the owner of the first relation owns it in the second too
    ("Ivo's boss is Kim", "Kim is the boss of Ivo and the boss of Ada", False),
    # another owner said the same way is another person, which same_people reads
    ("Ivo's boss is Kim", "Ada's boss is Kim", False),
    # an owner is a name or a word for a person; a time owns nothing
    ("A woman's risk of cancer rose", "The risk of cancer rose for a woman", False),
    ("Today's paper quotes Kim", "Kim is quoted in the paper of Kim", False),
    ("The user's sister lives in Lima", "The user lives with the sister of Ada", True),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "other"), OWNERS)
def test_a_relation_changes_hands_when_its_owner_does(sql, old, new, other):
    """pymem._other_owner: "Kenji's boss is Daniel" / "Kenji is the boss of Daniel" keep
    the names in order and swap their roles."""
    (found,) = sql.execute("SELECT pymem._other_owner(%s, %s)", (old, new)).fetchone()
    assert found is other


def _step(conn, old: str, new: str, cosine: float, **settings) -> tuple:
    """pymem._decision of the pair's pymem._evidence, with the store's settings row
    changed as given."""
    return conn.execute(
        "SELECT d.action, d.rule FROM pymem.settings AS base,"
        " LATERAL (SELECT jsonb_populate_record(base, %s::jsonb) AS s) AS o,"
        " LATERAL pymem._decision(pymem._evidence(%s, %s, %s, o.s), o.s) AS d",
        (json.dumps(settings), old, new, cosine),
    ).fetchone()


def test_below_the_band_a_reviewer_still_sees_the_nearest_neighbour(store, conn):
    """settings.review_floor (and the option of the same name): with on_related = 'review',
    an insert whose nearest neighbour is below the related band but at or above the floor
    queues that pair too; without the floor it is an unrelated insert, as with 'insert'."""
    first = store.upsert(USER, "Ivo is allergic to peanuts", unit(0))
    plain = store.upsert(USER, "Ivo cannot eat peanuts, they make him ill", at_cosine(0.6))
    assert (plain.action, plain.matched_id, plain.rule) == ("inserted", None, "no close memory")
    queued = store.upsert(USER, "Peanuts are off the menu for Ivo", at_cosine(0.6, 0, 2),
                          review_floor=0.5)  # fmt: skip
    assert (queued.action, queued.matched_id) == ("inserted", first.memory_id)
    assert queued.rule == "below the related band, queued for review"
    assert [r.memory_id for r in store.pending_reviews(USER)] == [queued.memory_id]
    # the floor is below the cosine of no neighbour, or the call inserts without review
    far = store.upsert(USER, "Ivo dislikes peanut butter", at_cosine(0.4, 0, 3), review_floor=0.5)
    assert far.matched_id is None
    quiet = store.upsert(USER, "Ivo avoids peanuts", at_cosine(0.6, 0, 4), review_floor=0.5,
                         on_related="insert")  # fmt: skip
    assert quiet.matched_id is None
    # the store's setting is the default of every write; an option above the band turns it off
    conn.execute("UPDATE pymem.settings SET review_floor = 0.5")
    by_setting = store.upsert(USER, "No peanuts for Ivo", at_cosine(0.6, 0, 5))
    assert by_setting.rule == "below the related band, queued for review"
    off = store.upsert(USER, "Ivo has a nut allergy", at_cosine(0.6, 0, 6), review_floor=1.0)
    assert off.matched_id is None
    assert len(store.pending_reviews(USER)) == 2
    with pytest.raises(psycopg.errors.CheckViolation), conn.transaction():
        conn.execute("UPDATE pymem.settings SET review_floor = 1.5")


def test_below_the_band_the_next_related_neighbour_is_queued_too(store):
    """With the below-band queue, an insert is queued with its nearest related neighbour
    (matched_id) and with the next one of its kind from the floor up: a restatement is
    often the second nearest, behind another fact of the same person. Without the floor,
    one pair a write, as before; the second one's decision moves with the first's."""
    bees = store.upsert(USER, "Nuno keeps bees on the roof", unit(0))
    honey = store.upsert(USER, "Nuno sells honey at the Saturday market", unit(1))
    store.upsert(USER, "Nuno's van is a white Berlingo", unit(2))
    near_both = 0.7 * unit(0) + 0.6 * unit(1) + math.sqrt(0.15) * unit(3)
    hives = store.upsert(USER, "Nuno's rooftop hives give him honey to sell", near_both,
                         review_floor=0.5)  # fmt: skip
    assert (hives.action, hives.matched_id) == ("inserted", bees.memory_id)
    queued = {r.matched_id: r for r in store.pending_reviews(USER)}
    assert set(queued) == {bees.memory_id, honey.memory_id}
    assert {r.memory_id for r in queued.values()} == {hives.memory_id}
    assert queued[honey.memory_id].similarity == pytest.approx(0.6)
    assert queued[honey.memory_id].note == "below the related band, queued for review"
    # without the floor the pair in the band, alone (a second neighbour below it is not one)
    other = "bob"
    first = store.upsert(other, "Nuno keeps bees on the roof", unit(0))
    store.upsert(other, "Nuno sells honey at the Saturday market", unit(1))
    related = 0.8 * unit(0) + 0.55 * unit(1) + math.sqrt(1 - 0.64 - 0.3025) * unit(3)
    one = store.upsert(other, "Nuno's rooftop hives give him honey to sell", related)
    assert one.matched_id == first.memory_id
    assert [r.matched_id for r in store.pending_reviews(other)] == [first.memory_id]
    # the pair with the nearest settled as a duplicate, the second review moves to it
    store.resolve_review(USER, hives.memory_id, "duplicate", reason="the same hives",
                         review_id=queued[bees.memory_id].review_id)  # fmt: skip
    ((moved_review),) = store.pending_reviews(USER)
    assert (moved_review.memory_id, moved_review.matched_id) == (bees.memory_id, honey.memory_id)


def test_with_a_reviewer_an_event_is_checked_against_the_standing_memory_nearest_it(store, conn):
    """pymem.kinds.review_against (migration 0017): with a reviewer and its below-band queue
    (review_floor), an event is queued with its nearest live memory of the kinds it is
    reviewed against (fact, preference, habit, profile) from settings.cross_kind_review_floor
    up, where a contradiction scores ("Ivo is vegetarian" / "Ivo had a steak"); never
    merged across kinds, and never without the floor."""
    veg = store.upsert(USER, "Ivo is vegetarian", unit(0), "preference")
    # a state is not what an event is checked against, however close (cosine 0.97)
    tired = np.zeros_like(unit(0))
    tired[0], tired[1] = 0.2, math.sqrt(1 - 0.04)
    store.upsert(USER, "Ivo felt tired on Monday", tired, "state")
    steak = store.upsert(USER, "Ivo had a steak yesterday", at_cosine(0.45, 0, 1), "event",
                         review_floor=0.6)  # fmt: skip
    assert (steak.action, steak.matched_id) == ("inserted", veg.memory_id)
    assert steak.rule == "nearest memory of another kind, queued for review"
    assert [(r.memory_id, r.matched_id) for r in store.pending_reviews(USER)] == [
        (steak.memory_id, veg.memory_id)
    ]
    # without the below-band queue the event is a plain insert, as before
    plain = store.upsert(USER, "Ivo ate a burger on Friday", at_cosine(0.45, 0, 2), "event")
    assert (plain.matched_id, plain.rule) == (None, "no close memory")
    # below cross_kind_review_floor (0.4 by default), nothing is queued
    far = store.upsert(USER, "Ivo went to a barbecue", at_cosine(0.35, 0, 3), "event",
                       review_floor=0.6)  # fmt: skip
    assert far.matched_id is None
    # a preference is not reviewed against events: kinds say which way a check goes
    prefers = store.upsert(USER, "Ivo prefers tofu", at_cosine(0.45, 1, 4), "preference",
                           review_floor=0.6)  # fmt: skip
    assert prefers.matched_id is None
    conn.execute("UPDATE pymem.settings SET cross_kind_review_floor = 0.3")
    near = store.upsert(USER, "Ivo grilled sausages", at_cosine(0.35, 0, 5), "event",
                        review_floor=0.6)  # fmt: skip
    assert near.matched_id == veg.memory_id
    with pytest.raises(psycopg.errors.CheckViolation), conn.transaction():
        conn.execute("UPDATE pymem.settings SET cross_kind_review_floor = -0.1")
    # a reviewer who supersedes such a pair gives the survivor the newer one's kind
    survivor = store.resolve_review(USER, steak.memory_id, "supersede", reason="ate meat")
    assert survivor == veg.memory_id
    assert conn.execute(
        "SELECT content, kind FROM pymem.memories WHERE id = %s", (survivor,)
    ).fetchone() == ("Ivo had a steak yesterday", "event")


def test_a_kind_reviewed_against_itself_is_not_another_kind(store, conn):
    """A kind listed in its own review_against is no other kind: its neighbours are the
    write's own below-band ones, with review_floor, not the cross-kind floor."""
    conn.execute("UPDATE pymem.kinds SET review_against = '{event,fact}' WHERE kind = 'event'")
    store.upsert(USER, "Ivo went to Lisbon", unit(0), "event")
    near = store.upsert(USER, "Ivo flew to Porto", at_cosine(0.45), "event", review_floor=0.6)
    assert (near.matched_id, near.rule) == (None, "no close memory")


def test_an_events_own_kind_in_the_band_stays_the_pair_reviewed(store):
    """The memory of another kind is queued only when it is closer than the neighbour of
    the event's own kind below the band; a neighbour of its own kind in the related band
    (the likelier restatement) stays the one queued, even when the other is closer."""
    veg = store.upsert(USER, "Ivo is vegetarian", unit(0), "preference")
    lunch = store.upsert(USER, "Ivo had lunch with Ana", at_cosine(0.5), "event")
    # cosine 0.35 to the lunch (below the band, above the floor), 0.7 to the preference
    steak = store.upsert(USER, "Ivo had a steak at the diner", at_cosine(0.7, 0, 2), "event",
                         review_floor=0.3)  # fmt: skip
    assert steak.matched_id == veg.memory_id
    # cosine 0.83 to the lunch (the related band), 0.9 to the preference
    near = np.zeros_like(unit(0))
    near[0], near[1] = 0.9, math.sqrt(1 - 0.81)
    again = store.upsert(USER, "Ivo met Ana for a long lunch in Porto", near, "event",
                         review_floor=0.3)  # fmt: skip
    assert (again.action, again.matched_id) == ("inserted", lunch.memory_id)
    assert again.rule == kept_apart("another person, terms changed, below the duplicate threshold")
    # cosine 0.7 to the lunch (below the band), 0.4 to the preference: its own kind is closer
    below = np.zeros_like(unit(0))
    below[0], below[1] = 0.4, 0.5 / math.sqrt(0.75)
    below[3] = math.sqrt(1 - below[0] ** 2 - below[1] ** 2)
    later = store.upsert(USER, "Ivo and Ana tried the new Thai place", below, "event",
                         review_floor=0.3)  # fmt: skip
    assert (later.matched_id, later.rule) == (
        lunch.memory_id,
        "below the related band, queued for review",
    )


def test_a_goal_below_the_band_reaches_the_reviewer_too(store):
    """Goals keep their own rule (no merge by vectors), and with review_floor the nearest
    live goal below the related band is queued, as any other kind's neighbour is."""
    trip = store.upsert(USER, "Ivo plans a trip to Chengdu in October", unit(0), "goal",
                        topic="plan:trip")  # fmt: skip
    changed = store.upsert(USER, "Ivo now wants to go to Xi'an instead", at_cosine(0.6), "goal",
                           topic="plan:trip", review_floor=0.5)  # fmt: skip
    assert (changed.action, changed.matched_id) == ("inserted", trip.memory_id)
    assert changed.rule == "below the related band, queued for review"
    quiet = store.upsert(USER, "Ivo wants to visit Lhasa some day", at_cosine(0.6, 0, 2), "goal",
                         topic="plan:trip")  # fmt: skip
    assert quiet.matched_id is None


def test_the_step_needs_the_cosine_floor_for_near_identical_text(conn):
    """_decision (the rule calibration and the benchmark sweep) agrees with the match loop,
    which computes no trigram below settings.trigram_min_similarity."""
    e = {"trigram": 0.95, "same_markers": True, "masked_equal": False, "changed_terms": 0,
         "total_terms": 5, "reordered": False}  # fmt: skip
    settings = {"dedup_threshold": 0.92, "supersede_threshold": 0.75,
                "topic_supersede_threshold": 0.5, "trigram_threshold": 0.8,
                "dedup_term_change": 0.2, "on_related": "review",
                "trigram_min_similarity": 0.5}  # fmt: skip
    rows = {
        cosine: conn.execute(
            "SELECT d.action FROM pymem.settings AS base,"
            " LATERAL pymem._decision("
            "  jsonb_populate_record(NULL::pymem.pair_evidence, %s::jsonb),"
            "  jsonb_populate_record(base, %s::jsonb)) AS d",
            (json.dumps({**e, "similarity": cosine}), json.dumps(settings)),
        ).fetchone()[0]
        for cosine in (0.45, 0.55)
    }
    assert rows == {0.45: None, 0.55: "duplicate"}


# --- 15. concurrent writers -----------------------------------------------------------
# The per-user advisory lock makes dedup race-free.
# Each thread has its own autocommit connection to a private database
# (``fresh_dsn``); a barrier starts them together. Eight writers upserting the
# same facts must leave exactly one row per fact, mentioned once per writer.


FACTS = 50


def _words(n: int, seed: int = 7) -> list[str]:
    """n lexically unrelated texts (random letters: no shared trigrams to speak of)."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [
        " ".join("".join(rng.choice(letters) for _ in range(6)) for _ in range(3)) for _ in range(n)
    ]


TEXTS = _words(FACTS)


def rows(dsn: str, user_id: str = USER) -> list[tuple]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT content, mention_count FROM pymem.memories WHERE user_id = %s ORDER BY content",
            (user_id,),
        ).fetchall()


def test_concurrent_single_upserts_store_each_fact_once(fresh_dsn):
    actions: list[str] = []
    lock = threading.Lock()

    def work(store: MemoryStore, index: int) -> None:
        order = list(range(FACTS))
        random.Random(index).shuffle(order)
        for i in order:
            r = store.upsert(USER, TEXTS[i], unit(i))
            with lock:
                actions.append(r.action)

    run_together(fresh_dsn, work)
    stored = rows(fresh_dsn)
    assert len(stored) == FACTS
    assert sorted(c for c, _ in stored) == sorted(TEXTS)
    assert all(m == THREADS for _, m in stored), stored
    assert actions.count("inserted") == FACTS
    assert actions.count("duplicate") == FACTS * (THREADS - 1)


def test_concurrent_paraphrases_store_each_fact_once(fresh_dsn):
    """Not the fingerprint: each writer words and embeds each fact its own way
    (pairwise cosine 0.97**2 > 0.92), so only the locked cosine check dedups.
    Each wording swaps its own words, which the store is told to tolerate."""

    wordings = _words(THREADS, seed=99)
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("UPDATE pymem.settings SET dedup_term_change = 1")

    def work(store: MemoryStore, index: int) -> None:
        order = list(range(FACTS))
        random.Random(100 + index).shuffle(order)
        for i in order:
            text = f"{TEXTS[i]} {wordings[index]}"
            r = store.upsert(USER, text, at_cosine(0.97, base=i, other=FACTS + index))
            assert r.action in ("inserted", "duplicate")

    run_together(fresh_dsn, work)
    stored = rows(fresh_dsn)
    assert len(stored) == FACTS
    assert all(m == THREADS for _, m in stored), stored


def test_concurrent_batches_store_each_fact_once(fresh_dsn):
    batch = [
        MemoryItem(TEXTS[i], unit(i)) if i % 2 else {"content": TEXTS[i], "embedding": unit(i)}
        for i in range(FACTS)
    ]
    results: list[list] = []
    lock = threading.Lock()

    def work(store: MemoryStore, index: int) -> None:
        out = store.upsert_many(USER, batch)
        with lock:
            results.append(out)

    run_together(fresh_dsn, work)
    stored = rows(fresh_dsn)
    assert len(stored) == FACTS
    assert all(m == THREADS for _, m in stored), stored
    # every writer got the same ids, in input order
    ids = [[r.memory_id for r in out] for out in results]
    assert all(x == ids[0] for x in ids)
    assert all([r.ordinal for r in out] == list(range(1, FACTS + 1)) for out in results)
    inserted = sum(r.action == "inserted" for out in results for r in out)
    assert inserted == FACTS


def test_concurrent_shuffled_batches_of_two_users(fresh_dsn):
    users = ["alice", "bob"]

    def work(store: MemoryStore, index: int) -> None:
        items = [{"content": TEXTS[i], "embedding": np.asarray(unit(i))} for i in range(FACTS)]
        random.Random(index).shuffle(items)
        for start in range(0, FACTS, 10):
            store.upsert_many(users[index % 2], items[start : start + 10])

    run_together(fresh_dsn, work)
    for user in users:
        stored = rows(fresh_dsn, user)
        assert len(stored) == FACTS
        assert all(m == THREADS // 2 for _, m in stored), stored


def test_concurrent_raw_sql_upserts(fresh_dsn):
    """Another language's client: plain SQL over its own connection, no MemoryStore."""

    def work(conn: psycopg.Connection, index: int) -> None:
        order = list(range(FACTS))
        random.Random(200 + index).shuffle(order)
        for i in order:
            literal = "[" + ",".join(str(float(x)) for x in unit(i)) + "]"
            conn.execute(
                "SELECT * FROM pymem.upsert_memory(%s, %s, %s::vector, importance => %s)",
                (USER, TEXTS[i], literal, 0.5),
            )

    run_together(fresh_dsn, work, raw_sql=True)
    stored = rows(fresh_dsn)
    assert len(stored) == FACTS
    assert all(m == THREADS for _, m in stored), stored


# --- 16. bad input --------------------------------------------------------------------
# Every refusal carries its documented SQLSTATE, maps to its
# pymem.errors class, and writes nothing. A failed statement aborts the surrounding
# transaction, so each refused call runs inside ``conn.transaction()`` (a savepoint)
# and the rows are counted before and after in the same test transaction.


TEXT = "likes green tea"


@pytest.fixture
def seeded(store, conn):
    """One existing memory, so that 'nothing written' also means 'nothing touched'."""
    r = store.upsert(USER, TEXT, unit(0), importance=0.5)
    return r.memory_id


def snapshot(conn, memory_id):
    return conn.execute(
        "SELECT content, importance, source, pinned, mention_count, version, details, metadata"
        " FROM pymem.memories WHERE id = %s",
        (memory_id,),
    ).fetchone()


# --- PM001: user id -----------------------------------------------------------------------


@pytest.mark.parametrize("user_id", [None, "", "   ", "\t", " \r\n", "\u3000", "u" * 257])
def test_bad_user_id(store, conn, user_id):
    refused(conn, InvalidUserId, "PM001", lambda: store.upsert(user_id, TEXT, unit(0)))


@pytest.mark.parametrize("user_id", [None, ""])
def test_bad_user_id_batch(store, conn, user_id):
    refused(
        conn,
        InvalidUserId,
        "PM001",
        lambda: store.upsert_many(user_id, [{"content": TEXT, "embedding": unit(0)}]),
    )


# --- PM002: content -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    # the spaces of other scripts and the invisible characters count as blank too
    ["", "  \t\n", "\u3000", " \u3000 \r\n", None, "\u200b", "\u2003\u00a0", "\ufeff \u2060\u200d"],
)
def test_empty_content(store, conn, content):
    refused(conn, InvalidContent, "PM002", lambda: store.upsert(USER, content, unit(0)))


def test_empty_content_in_batch_names_the_item(store, conn):
    refused(
        conn,
        InvalidContent,
        "PM002",
        lambda: store.upsert_many(
            USER,
            [
                {"content": TEXT, "embedding": unit(0)},
                {"content": "\u3000", "embedding": unit(1)},
            ],
        ),
        "item 2",
    )


def test_missing_content_in_batch(store, conn):
    refused(
        conn,
        InvalidContent,
        "PM002",
        lambda: store.upsert_many(USER, [{"embedding": unit(0)}]),
        "item 1",
    )


def test_nul_byte_in_content(store, conn):
    refused(conn, InvalidContent, "PM002", lambda: store.upsert(USER, "likes\x00tea", unit(0)))


def test_nul_byte_in_batch_content(store, conn):
    refused(
        conn,
        InvalidContent,
        "PM002",
        lambda: store.upsert_many(USER, [{"content": "likes\x00tea", "embedding": unit(0)}]),
    )


# --- PM003: content too long --------------------------------------------------------------


def test_content_longer_than_setting(store, conn):
    conn.execute("UPDATE pymem.settings SET max_content_chars = 10")
    err = refused(
        conn, ContentTooLong, "PM003", lambda: store.upsert(USER, "x" * 11, unit(0)), "11", "10"
    )
    assert "10" in str(err)
    # exactly the maximum is fine, counted in characters, not bytes
    assert store.upsert(USER, "y" * 10, unit(1)).action == "inserted"
    assert store.upsert(USER, "用户喜欢喝美式咖啡啊", unit(2)).action == "inserted"


def test_content_too_long_in_batch(store, conn):
    conn.execute("UPDATE pymem.settings SET max_content_chars = 10")
    refused(
        conn,
        ContentTooLong,
        "PM003",
        lambda: store.upsert_many(USER, [{"content": "z" * 11, "embedding": unit(0)}]),
        "item 1",
    )


def test_canonical_too_long(store, conn):
    conn.execute("UPDATE pymem.settings SET max_content_chars = 10")
    refused(
        conn,
        ContentTooLong,
        "PM003",
        lambda: store.upsert(USER, "likes tea", unit(0), canonical="c" * 11),
    )


# --- PM004 / PM005: embeddings ------------------------------------------------------------


@pytest.mark.parametrize("dim", [3, 511, 513])
def test_wrong_dimension(store, conn, dim):
    refused(
        conn,
        DimensionMismatch,
        "PM004",
        lambda: store.upsert(USER, TEXT, unit(0, dim=dim)),
        str(dim),
        "512",
    )


def test_wrong_dimension_in_batch(store, conn):
    refused(
        conn,
        DimensionMismatch,
        "PM004",
        lambda: store.upsert_many(USER, [{"content": TEXT, "embedding": [0.1, 0.2, 0.3]}]),
        "item 1",
        "3",
        "512",
    )


def test_zero_vector(store, conn):
    refused(conn, InvalidEmbedding, "PM005", lambda: store.upsert(USER, TEXT, np.zeros(512)))


def test_zero_vector_in_batch(store, conn):
    refused(
        conn,
        InvalidEmbedding,
        "PM005",
        lambda: store.upsert_many(USER, [{"content": TEXT, "embedding": [0.0] * 512}]),
    )


@pytest.mark.parametrize("scale", [1e-30, 1e38])
def test_a_vector_too_short_or_too_long_for_single_precision_is_refused(store, conn, scale):
    """Not zero, no NaN, yet pgvector's cosine of it is NaN (its length under- or overflows
    float4), and NaN compares above every threshold: such a write superseded an unrelated
    memory. Refused on writes and as recall's query (PM005)."""
    store.upsert(USER, "Ann works at a bakery", unit(4))
    v = (unit(9) + unit(10)) * scale
    refused(conn, InvalidEmbedding, "PM005", lambda: store.upsert(USER, TEXT, v), "length")
    refused(
        conn,
        InvalidEmbedding,
        "PM005",
        lambda: store.upsert_many(USER, [{"content": TEXT, "embedding": v}]),
    )
    refused(conn, InvalidEmbedding, "PM005", lambda: store.recall(USER, v, 5), "length")


@pytest.mark.parametrize(
    "texts", [("👍", "👎"), ("!!!", "???"), ("Cz is a nurse", "Cz owns a boat")]
)
def test_text_that_normalizes_to_nothing_matches_no_text(store, sql, texts):
    """Punctuation, symbols or emoji only normalize to the empty string, which all such
    texts share: neither as content nor as canonical does it make two memories one."""
    first, second = texts
    close = at_cosine(0.95, 60, 61)  # as close as a restatement: only the text can say
    if first[0].isalpha():  # the canonical is what normalizes to nothing
        a = store.upsert(USER, first, unit(60), canonical="-")
        b = store.upsert(USER, second, unit(61), canonical="?")
    else:
        a = store.upsert(USER, first, unit(60))
        b = store.upsert(USER, second, close)
    assert (a.action, b.action) == ("inserted", "inserted"), b
    # the very same string again is still its own duplicate
    again = store.upsert(USER, second, close if not first[0].isalpha() else unit(61))
    assert again.action == "duplicate" and again.memory_id == b.memory_id


@pytest.mark.parametrize("ended", ["-infinity", "2000-01-01", "now"])
def test_a_memory_that_has_already_ended_is_refused(store, conn, ended):
    """As set_fact: a write whose valid_until is not after now superseded the live memory of
    its topic and hid both from recall. Refused (PM006), the live memory untouched."""
    live = store.upsert(USER, "Vu lives in Hangzhou", unit(40), "profile", topic="city")
    refused(
        conn,
        psycopg.Error,
        "PM006",
        lambda: conn.execute(
            "SELECT * FROM pymem.upsert_memory(%s, 'Vu lives in Paris', %s, 'profile',"
            " topic => 'city', valid_until => %s::timestamptz)",
            (USER, unit(40), ended),
        ),
        "valid_until",
    )
    assert [h.memory_id for h in store.recall(USER, unit(40), 5)] == [live.memory_id]


def test_nan_in_numpy_embedding(store, conn):
    v = unit(0).copy()
    v[7] = np.nan
    refused(conn, InvalidEmbedding, "PM005", lambda: store.upsert(USER, TEXT, v), "NaN")


def test_nan_in_batch_embedding(store, conn):
    v = unit(0).copy()
    v[7] = np.nan
    refused(
        conn,
        InvalidEmbedding,
        "PM005",
        lambda: store.upsert_many(USER, [{"content": TEXT, "embedding": v}]),
    )


def test_embedding_with_string_element_in_batch(sql):
    emb = unit(0).tolist()
    emb[3] = "0.5"
    items = [
        {"content": "reads poetry", "embedding": unit(1).tolist()},
        {"content": TEXT, "embedding": emb},
    ]
    with pytest.raises(psycopg.Error) as info, sql.transaction():
        sql.execute("SELECT * FROM pymem.upsert_memories('u', %s)", (Jsonb(items),))
    assert info.value.sqlstate == "PM005"
    assert "item 2" in info.value.diag.message_primary
    assert count(sql) == 0


def test_embedding_with_string_element_in_batch_via_python(store, conn):
    emb = unit(0).tolist()
    emb[3] = "abc"
    refused(
        conn,
        InvalidEmbedding,
        "PM005",
        lambda: store.upsert_many(USER, [{"content": TEXT, "embedding": emb}]),
    )


def test_missing_embedding_in_batch(store, conn):
    refused(
        conn,
        InvalidEmbedding,
        "PM005",
        lambda: store.upsert_many(USER, [{"content": TEXT}]),
        "item 1",
    )


# --- PM006: numeric parameters ------------------------------------------------------------


@pytest.mark.parametrize("importance", [-0.1, 1.1, math.nan, math.inf])
def test_importance_out_of_range(store, conn, importance):
    refused(
        conn,
        InvalidParameter,
        "PM006",
        lambda: store.upsert(USER, TEXT, unit(0), importance=importance),
        "importance",
    )


@pytest.mark.parametrize("importance", [0.0, 1.0])
def test_importance_bounds_accepted(store, conn, importance):
    r = store.upsert(USER, TEXT, unit(0), importance=importance)
    assert r.action == "inserted"


@pytest.mark.parametrize("decay_rate", [-0.01, math.inf, math.nan])
def test_bad_decay_rate(store, conn, decay_rate):
    refused(
        conn,
        InvalidParameter,
        "PM006",
        lambda: store.upsert(USER, TEXT, unit(0), decay_rate=decay_rate),
        "decay_rate",
    )


def test_bad_importance_on_a_duplicate_touches_nothing(store, conn, seeded):
    before = snapshot(conn, seeded)
    refused(
        conn,
        InvalidParameter,
        "PM006",
        lambda: store.upsert(USER, TEXT, unit(0), importance=1.1, source="confirmed"),
    )
    assert snapshot(conn, seeded) == before


# --- PM007: thresholds --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dedup", "supersede"),
    [(0.8, 0.9), (1.5, None), (None, 1.5), (None, -0.1), (None, 0.95), (math.nan, None)],
)
def test_bad_thresholds(store, conn, dedup, supersede):
    refused(
        conn,
        InvalidThresholds,
        "PM007",
        lambda: store.upsert(
            USER, TEXT, unit(0), dedup_threshold=dedup, supersede_threshold=supersede
        ),
    )


def test_bad_thresholds_batch(store, conn):
    refused(
        conn,
        InvalidThresholds,
        "PM007",
        lambda: store.upsert_many(
            USER,
            [{"content": TEXT, "embedding": unit(0)}],
            dedup_threshold=0.8,
            supersede_threshold=0.9,
        ),
    )


def test_bad_thresholds_on_a_duplicate_touch_nothing(store, conn, seeded):
    before = snapshot(conn, seeded)
    refused(
        conn,
        InvalidThresholds,
        "PM007",
        lambda: store.upsert(USER, TEXT, unit(0), supersede_threshold=0.9, dedup_threshold=0.8),
    )
    assert snapshot(conn, seeded) == before


# --- PM008 / PM009: kind and source -------------------------------------------------------


def test_unknown_kind(store, conn):
    refused(
        conn, UnknownKind, "PM008", lambda: store.upsert(USER, TEXT, unit(0), "feeling"), "feeling"
    )


def test_unknown_kind_in_batch(store, conn):
    refused(
        conn,
        UnknownKind,
        "PM008",
        lambda: store.upsert_many(
            USER, [{"content": TEXT, "embedding": unit(0), "kind": "feeling"}]
        ),
        "item 1",
        "feeling",
    )


@pytest.mark.parametrize("source", ["guessed", "confirmd", ""])
def test_bad_source(store, conn, source):
    refused(
        conn,
        InvalidSource,
        "PM009",
        lambda: store.upsert(USER, TEXT, unit(0), source=source),
        "source",
    )


def test_bad_source_on_a_duplicate_touches_nothing(store, conn, seeded):
    before = snapshot(conn, seeded)
    refused(
        conn,
        InvalidSource,
        "PM009",
        lambda: store.upsert(USER, TEXT, unit(0), source="guessed", pinned=True),
        "guessed",
    )
    assert snapshot(conn, seeded) == before


# --- PM010: batch shape -------------------------------------------------------------------


def test_batch_unknown_key(store, conn):
    refused(
        conn,
        InvalidBatch,
        "PM010",
        lambda: store.upsert_many(
            USER, [{"content": TEXT, "embedding": unit(0), "importnce": 0.9}]
        ),
        "item 1",
        "importnce",
    )


def test_batch_unknown_key_via_memoryitem_extra(store, conn):
    refused(
        conn,
        InvalidBatch,
        "PM010",
        lambda: store.upsert_many(
            USER,
            [
                MemoryItem(TEXT, unit(0)),
                MemoryItem("reads poetry", unit(1), extra={"importnce": 0.9}),
            ],
        ),
        "item 2",
        "importnce",
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("importance", "high"),
        ("pinned", "yes"),
        ("content", 42),
        ("details", ["a"]),
        ("metadata", "m"),
        ("kind", 1),
        ("decay_rate", "fast"),
        # an array of names holds strings: a number or a boolean is not cast to one, a
        # nested array not flattened
        ("contacts", ["Dan", 1]),
        ("contacts", ["Dan", True]),
        ("contacts", [["Dan"]]),
    ],
)
def test_batch_wrong_type(store, conn, key, value):
    item = {"content": TEXT, "embedding": unit(1), key: value}
    refused(
        conn,
        InvalidBatch,
        "PM010",
        lambda: store.upsert_many(USER, [{"content": "reads poetry", "embedding": unit(0)}, item]),
        "item 2",
        key,
    )


def test_batch_bad_parameter_names_the_item(store, conn):
    refused(
        conn,
        InvalidParameter,
        "PM006",
        lambda: store.upsert_many(
            USER,
            [
                {"content": TEXT, "embedding": unit(0)},
                {"content": "reads poetry", "embedding": unit(1), "importance": 1.1},
            ],
        ),
        "item 2",
        "importance",
    )


@pytest.mark.parametrize(
    ("bad", "exc_class", "code"),
    [
        (
            {"content": "owns a red bicycle", "embedding": unit(2), "importance": 1.1},
            InvalidParameter,
            "PM006",
        ),
        (
            {"content": "owns a red bicycle", "embedding": unit(2), "importnce": 0.1},
            InvalidBatch,
            "PM010",
        ),
        (
            {"content": "owns a red bicycle", "embedding": unit(2), "kind": "feeling"},
            UnknownKind,
            "PM008",
        ),
        (
            {"content": "owns a red bicycle", "embedding": unit(2), "source": "guessed"},
            InvalidSource,
            "PM009",
        ),
        ({"content": "   ", "embedding": unit(2)}, InvalidContent, "PM002"),
        (
            {"content": "owns a red bicycle", "embedding": [1.0, 2.0, 3.0]},
            DimensionMismatch,
            "PM004",
        ),
        ({"content": "owns a red bicycle", "embedding": [0.0] * 512}, InvalidEmbedding, "PM005"),
    ],
)
def test_bad_third_item_writes_nothing_of_the_batch(store, conn, seeded, bad, exc_class, code):
    before = snapshot(conn, seeded)
    refused(
        conn,
        exc_class,
        code,
        lambda: store.upsert_many(
            USER,
            [
                {"content": "reads poetry", "embedding": unit(1)},  # would be inserted
                {"content": TEXT, "embedding": unit(0)},  # would touch the seeded memory
                bad,
            ],
        ),
        "item 3",
    )
    assert snapshot(conn, seeded) == before
    assert (
        conn.execute(
            "SELECT count(*) FROM pymem.memories WHERE content = 'reads poetry'"
        ).fetchone()[0]
        == 0
    )


def test_refusal_leaves_the_transaction_usable(store, conn):
    with pytest.raises(InvalidContent), conn.transaction():
        store.upsert(USER, "  ", unit(0))
    assert store.upsert(USER, TEXT, unit(0)).action == "inserted"
    assert count(conn) == 1


# --- raw SQL: the SQLSTATE itself ---------------------------------------------------------

V = "%s::vector"

RAW_CASES = [
    ("PM001", f"SELECT * FROM pymem.upsert_memory(NULL, 'likes tea', {V})"),
    ("PM001", f"SELECT * FROM pymem.upsert_memory('', 'likes tea', {V})"),
    ("PM002", f"SELECT * FROM pymem.upsert_memory('u', '', {V})"),
    ("PM002", f"SELECT * FROM pymem.upsert_memory('u', E'  \\t\\n', {V})"),
    ("PM002", f"SELECT * FROM pymem.upsert_memory('u', U&'\\3000', {V})"),
    ("PM002", f"SELECT * FROM pymem.upsert_memory('u', NULL, {V})"),
    ("PM005", "SELECT * FROM pymem.upsert_memory('u', 'likes tea', NULL::vector)"),
    ("PM006", f"SELECT * FROM pymem.upsert_memory('u', 'likes tea', {V}, importance => -0.1)"),
    ("PM006", f"SELECT * FROM pymem.upsert_memory('u', 'likes tea', {V}, importance => 1.1)"),
    ("PM006", f"SELECT * FROM pymem.upsert_memory('u', 'likes tea', {V}, importance => 'NaN')"),
    ("PM006", f"SELECT * FROM pymem.upsert_memory('u', 'likes tea', {V}, decay_rate => -1)"),
    (
        "PM007",
        f"SELECT * FROM pymem.upsert_memory('u', 'likes tea', {V},"
        " dedup_threshold => 0.8, supersede_threshold => 0.9)",
    ),
    ("PM007", f"SELECT * FROM pymem.upsert_memory('u', 'likes tea', {V}, dedup_threshold => 1.5)"),
    ("PM008", f"SELECT * FROM pymem.upsert_memory('u', 'likes tea', {V}, 'feeling')"),
    ("PM009", f"SELECT * FROM pymem.upsert_memory('u', 'likes tea', {V}, source => 'guessed')"),
    ("PM010", "SELECT * FROM pymem.upsert_memories('u', '{\"content\": \"x\"}'::jsonb)"),
    ("PM010", "SELECT * FROM pymem.upsert_memories('u', NULL::jsonb)"),
    ("PM010", "SELECT * FROM pymem.upsert_memories('u', '[42]'::jsonb)"),
    ("PM001", "SELECT * FROM pymem.upsert_memories(NULL, '[]'::jsonb)"),
    # the typed batch reads contents[1..n]: another shape read as NULL content (PM002)
    (
        "PM010",
        f"SELECT * FROM pymem.upsert_memory_arrays('u', ARRAY[['a'], ['b']], ARRAY[{V}, {V}])",
    ),
    (
        "PM010",
        f"SELECT * FROM pymem.upsert_memory_arrays('u', '[0:1]={{a,b}}'::text[], ARRAY[{V}, {V}])",
    ),
    # every index starts with user_id; an entry too long for a btree page was a raw 54000
    ("PM001", f"SELECT * FROM pymem.upsert_memory(repeat('u', 257), 'likes tea', {V})"),
    ("PM001", "SELECT pymem.set_fact(md5('x') || repeat('é', 3200), 'k', '1')"),
    ("PM006", f"SELECT * FROM pymem.upsert_memory('u', 'x', {V}, topic => repeat('t', 201))"),
    (
        "PM006",
        "SELECT * FROM pymem.upsert_memories('u', jsonb_build_array(jsonb_build_object("
        "'content', 'x', 'embedding', to_jsonb(%s::vector::real[]), 'topic', repeat('t', 3000))))",
    ),
]


@pytest.mark.parametrize(("code", "query"), RAW_CASES)
def test_raw_sql_sqlstate(sql, code, query):
    params = (unit(0),) * query.count("%s")
    before = count(sql)
    with pytest.raises(psycopg.Error) as info, sql.transaction():
        sql.execute(query, params)
    assert info.value.sqlstate == code, str(info.value)
    assert info.value.diag.message_primary
    assert count(sql) == before


def test_raw_sql_wrong_dimension_names_both_numbers(sql):
    with pytest.raises(psycopg.Error) as info, sql.transaction():
        sql.execute("SELECT * FROM pymem.upsert_memory('u', 'likes tea', '[1,2,3]'::vector)")
    assert info.value.sqlstate == "PM004"
    message = info.value.diag.message_primary
    assert "3" in message and "512" in message


def test_raw_sql_zero_vector(sql):
    with pytest.raises(psycopg.Error) as info, sql.transaction():
        sql.execute(
            "SELECT * FROM pymem.upsert_memory('u', 'likes tea', %s)",
            (np.zeros(512, dtype=np.float32),),
        )
    assert info.value.sqlstate == "PM005"


def test_raw_sql_batch_item_not_an_object_writes_nothing(sql):
    items = [{"content": "reads poetry", "embedding": unit(1).tolist()}, "likes tea"]
    with pytest.raises(psycopg.Error) as info, sql.transaction():
        sql.execute("SELECT * FROM pymem.upsert_memories('u', %s)", (Jsonb(items),))
    assert info.value.sqlstate == "PM010"
    assert "item 2" in info.value.diag.message_primary
    assert count(sql) == 0


def test_raw_sql_batch_unknown_key(sql):
    items = [{"content": "reads poetry", "embedding": unit(1).tolist(), "importnce": 0.9}]
    with pytest.raises(psycopg.Error) as info, sql.transaction():
        sql.execute("SELECT * FROM pymem.upsert_memories('u', %s)", (Jsonb(items),))
    assert info.value.sqlstate == "PM010"
    assert "item 1" in info.value.diag.message_primary
    assert "importnce" in info.value.diag.message_primary


def test_raw_sql_content_too_long(sql):
    sql.execute("UPDATE pymem.settings SET max_content_chars = 10")
    with pytest.raises(psycopg.Error) as info, sql.transaction():
        sql.execute("SELECT * FROM pymem.upsert_memory('u', 'abcdefghijk', %s)", (unit(0),))
    assert info.value.sqlstate == "PM003"
    assert count(sql) == 0


# --- 17. edge rules found in review ---------------------------------------------------
# Each once lost or mis-merged a fact.


def test_same_normalized_text_with_other_numbers_is_not_a_duplicate(store, conn):
    # normalizing drops the point: "3.5" and "35" normalize alike
    first = store.upsert("u", "weight 3.5 kg", unit(0))
    second = store.upsert("u", "weight 35 kg", unit(1))
    assert second.action == "inserted"
    assert second.memory_id != first.memory_id
    assert count(conn, "u") == 2


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("Maya runs three times a week", "Maya runs 3 times a week", True),
        ("Omar swims twice a week", "Omar goes swimming two times a week", True),
        ("Priya gets up at 6 a.m.", "Priya gets up at 6am", True),
        ("赵敏每周六去游泳", "赵敏每个星期六都去游泳", True),
        ("王磊礼拜天休息", "王磊星期日休息", True),
        ("刘洋每晚跑五公里", "刘洋每晚跑5公里", True),
        ("车费一共二十五元", "车费一共25元", True),
        ("两万三千步", "23000步", True),
        ("十一月去北京", "11月去北京", True),
        ("月薪两千五", "月薪2500", True),
        ("一万五的预算", "15000的预算", True),
        ("刘洋早晨去跑步", "刘洋早上去跑步", True),
        # a value written otherwise is still another value
        ("Maya runs three times a week", "Maya runs 4 times a week", False),
        ("Omar swims twice a week", "Omar swims three times a week", False),
        ("赵敏每周六去游泳", "赵敏每周日去游泳", False),
        ("刘洋跑了十五公里", "刘洋跑了十六公里", False),
        ("Priya gets up at 6am", "Priya gets up at 6pm", False),
        # the part of the day is a value in Chinese as "morning" / "evening" are in English
        ("张伟的航班早上八点起飞", "张伟的航班晚上八点起飞", False),
        # a 一 after the first character is part of the numeral
        ("十点开会", "十一点开会", False),
        ("10月去北京", "十一月去北京", False),
        ("二十天", "二十一天", False),
        # the spoken short form is not the one with 零
        ("月薪两千五", "月薪两千零五", False),
    ],
)
def test_markers_compare_values_not_their_spelling(conn, a, b, same):
    """pymem._marker_value: number words and Chinese numerals as digits, one name for a
    Chinese weekday, a time without spaces and dots, so that a restatement's value is the
    same marker and another value never is."""
    (equal,) = conn.execute(
        "SELECT pymem._fact_markers(%s) = pymem._fact_markers(%s)", (a, b)
    ).fetchone()
    assert equal is same


def test_a_numeral_of_any_length_is_a_value_not_an_error(conn):
    """pymem._chinese_number counts in numeric: a run of 万 is written, not an overflow."""
    (markers,) = conn.execute("SELECT pymem._fact_markers('一万万万万万万万万元')").fetchone()
    assert markers == [str(10**32)]


def test_other_topics_do_not_hide_a_same_topic_match(store):
    target = store.upsert(
        "u", "User is learning React", at_cosine(0.9, other=20), topic="skill:react"
    )
    # eight memories closer to the query, all under other topics
    for i in range(8):
        store.upsert(
            "u",
            f"unrelated subject {chr(97 + i)}",
            at_cosine(0.99, other=2 + i),
            topic=f"other:{i}",
        )
    result = store.upsert("u", "User is proficient in React", unit(0), topic="skill:react")
    assert result.action == "superseded"
    assert result.memory_id == target.memory_id


def test_supersede_replaces_the_canonical_statement(store, conn):
    old = store.upsert(
        "u", "User is learning React", unit(0), topic="skill:react", canonical="user learns react"
    )
    new = store.upsert(
        "u",
        "User is proficient in React",
        at_cosine(0.8),
        topic="skill:react",
        canonical="user is proficient in react",
    )
    assert new.action == "superseded"
    canonical = conn.execute(
        "SELECT canonical FROM pymem.memories WHERE id = %s", (old.memory_id,)
    ).fetchone()[0]
    assert canonical == "user is proficient in react"
    # restating the old value is no longer a duplicate of the new memory by canonical
    again = store.upsert("u", "User learns React basics", unit(5), canonical="user learns react")
    assert again.action == "inserted"


def test_fragment_of_a_deleted_record_is_stored_again(store, conn):
    fragment = store.upsert("u", "User has a cat named Mochi", unit(0))
    record = store.upsert("u", "User's pets: a cat named Mochi", unit(1))
    conn.execute(
        "UPDATE pymem.memories SET consolidated_into = %s WHERE id = %s",
        (record.memory_id, fragment.memory_id),
    )
    conn.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (record.memory_id,))
    again = store.upsert("u", "User has a cat named Mochi", unit(0))
    assert again.action == "inserted"
    assert again.memory_id not in (fragment.memory_id, record.memory_id)


def test_consolidation_chain_is_followed_to_the_live_record(store, conn):
    a = store.upsert("u", "User likes green tea", unit(0))
    b = store.upsert("u", "User's drinks: green tea", unit(1))
    c = store.upsert("u", "User's tastes: green tea and jazz", unit(2))
    conn.execute(
        "UPDATE pymem.memories SET consolidated_into = %s WHERE id = %s", (b.memory_id, a.memory_id)
    )
    conn.execute(
        "UPDATE pymem.memories SET consolidated_into = %s WHERE id = %s", (c.memory_id, b.memory_id)
    )
    again = store.upsert("u", "User likes green tea!", unit(0))
    assert (again.action, again.memory_id, again.matched_id) == (
        "duplicate",
        c.memory_id,
        a.memory_id,
    )


def test_repeatable_read_is_refused(fresh_dsn):
    with psycopg.connect(fresh_dsn) as conn:
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        store = MemoryStore(conn)
        with pytest.raises(UnsupportedIsolation, match="REPEATABLE READ"):
            store.upsert("u", "likes jazz", unit(0))
        conn.rollback()
        conn.isolation_level = psycopg.IsolationLevel.SERIALIZABLE
        assert store.upsert("u", "likes jazz", unit(0)).action == "inserted"
        conn.commit()


def test_null_option_means_its_default_and_non_object_details_are_refused(store, conn):
    # NULL is "not given", as a missing batch key: the documented default applies
    store.upsert("u", "x", unit(0), importance=None, source=None)
    assert conn.execute("SELECT importance, source FROM pymem.memories").fetchone() == (
        0.5,
        "stated",
    )
    conn.execute("DELETE FROM pymem.memories")
    with pytest.raises(psycopg.Error, match="JSON objects") as err, conn.transaction():
        conn.execute("SELECT pymem.upsert_memory('u', 'x', %s, details => '[1, 2]')", (unit(0),))
    assert err.value.sqlstate == "PM006"
    assert count(conn, "u") == 0


def test_configure_embedder_records_keeps_and_guards(store, conn):
    first = store.configure_embedder("model-a", 0.9, 0.8, 0.5)
    assert (first.embedding_model, first.dedup_threshold, first.supersede_threshold) == (
        "model-a",
        0.9,
        0.8,
    )
    # the same model again keeps what is recorded (a DBA may have tuned it)
    kept = store.configure_embedder("model-a", 0.7, 0.6)
    assert (kept.dedup_threshold, kept.supersede_threshold) == (0.9, 0.8)
    tuned = store.configure_embedder("model-a", 0.7, 0.6, overwrite=True)
    assert (tuned.dedup_threshold, tuned.supersede_threshold) == (0.7, 0.6)
    with pytest.raises(InvalidThresholds), conn.transaction():
        store.configure_embedder("model-a", 0.6, 0.7, overwrite=True)
    # a NULL threshold is refused as one out of range, not by the table's NOT NULL (23502)
    for nulls in (("model-a", None, 0.7), ("model-a", 0.9, None)):
        refused(
            conn,
            psycopg.Error,
            "PM007",
            lambda nulls=nulls: conn.execute(
                "SELECT pymem.configure_embedder(%s, %s, %s, overwrite => true)", nulls
            ),
            "between 0 and 1",
        )
    # an empty store may switch models; one holding memories may not
    assert store.configure_embedder("model-b", 0.9, 0.8).embedding_model == "model-b"
    store.upsert("u", "a fact", unit(0))
    with pytest.raises(EmbedderMismatch, match="model-b"), conn.transaction():
        store.configure_embedder("model-c", 0.9, 0.8)
    assert store.get_settings().embedding_model == "model-b"


def test_configure_embedder_records_thresholds_for_chinese_text(store, conn):
    """Chinese text has thresholds of its own (migration 0016); left out, they are the
    others, and they may not start below the related band."""
    both = store.configure_embedder("model-a", 0.9, 0.7, 0.5, dedup_term_change=0.6)
    assert (both.cjk_dedup_threshold, both.cjk_dedup_term_change) == (0.9, 0.6)
    own = store.configure_embedder(
        "model-a", 0.9, 0.7, overwrite=True, cjk_dedup_threshold=0.95, cjk_dedup_term_change=0.2
    )
    assert (own.dedup_threshold, own.cjk_dedup_threshold, own.cjk_dedup_term_change) == (
        0.9,
        0.95,
        0.2,
    )
    with pytest.raises(InvalidThresholds), conn.transaction():
        store.configure_embedder("model-a", 0.9, 0.7, overwrite=True, cjk_dedup_threshold=0.6)


def test_dimension_change_keeps_history_recorded(empty_dsn):
    migrate(empty_dsn, dimensions=4)
    with psycopg.connect(empty_dsn) as conn:
        triggers = conn.execute(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = 'pymem.memories'::regclass"
            " AND NOT tgisinternal AND tgname LIKE 'memories\\_version\\_%' ORDER BY tgname"
        ).fetchall()
    assert [t[0] for t in triggers] == ["memories_version_on_change", "memories_version_on_delete"]
    with MemoryStore(empty_dsn) as store:
        store.upsert("u", "User is learning React", [1, 0, 0, 0], topic="skill:react")
        result = store.upsert(
            "u", "User is proficient in React", [0.8, 0.6, 0, 0], topic="skill:react"
        )
        assert result.action == "superseded"
    with psycopg.connect(empty_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM pymem.memory_versions").fetchone()[0] == 1


def test_a_fact_said_again_after_its_end_holds_again(store, sql):
    """A duplicate of a memory whose valid_until had passed kept the past end: the write
    said 'duplicate' and recall still found nothing. Said again, it holds again, to the new
    statement's end (none for a fact); a touch does not lift an end."""
    first = store.upsert(USER, "Alice works at Acme", unit(0), valid_until="2999-01-01")
    # its end passes (set by hand: the test's transaction cannot wait)
    sql.execute(
        "UPDATE pymem.memories SET valid_until = now() - interval '1 hour' WHERE id = %s",
        (first.memory_id,),
    )
    assert store.recall(USER, unit(0), 5) == []
    store.touch(USER, [first.memory_id])
    assert store.recall(USER, unit(0), 5) == []
    again = store.upsert(USER, "Alice works at Acme", unit(0))
    assert (again.action, again.memory_id) == ("duplicate", first.memory_id)
    assert memory(sql, first.memory_id)["valid_until"] is None
    assert [h.memory_id for h in store.recall(USER, unit(0), 5)] == [first.memory_id]


@pytest.mark.parametrize("topic", ["", "   ", "\u200b"])
def test_a_blank_topic_is_no_topic(store, sql, topic):
    """'' as the topic made every memory sent with it one subject: an unrelated fact at
    cosine 0.55 superseded the first ("same topic"). Blank is none, as NULL is."""
    first = store.upsert(USER, "Ann is allergic to peanuts", unit(0), topic=topic)
    second = store.upsert(USER, "Ann bought a red bicycle", at_cosine(0.55), topic=topic)
    assert (first.action, second.action) == ("inserted", "inserted")
    assert memory(sql, first.memory_id)["topic"] is None
    assert store.upsert(USER, "Ann lives in Lyon", unit(7), topic=" city ").action == "inserted"
    assert sql.execute(
        "SELECT topic FROM pymem.memories WHERE content = 'Ann lives in Lyon'"
    ).fetchone() == ("city",)


def test_a_restatement_gives_the_memory_the_slot_it_names(store, sql):
    """A duplicate kept none of the restatement's topic, canonical or decay_rate: a later
    value of the slot then found no memory of that topic to supersede."""
    first = store.upsert(USER, "Bob lives in Lyon", unit(0))
    again = store.upsert(
        USER, "Bob lives in Lyon", unit(0), topic="city", canonical="Bob's city: Lyon",
        decay_rate=0.001,
    )  # fmt: skip
    assert (again.action, again.memory_id) == ("duplicate", first.memory_id)
    row = memory(sql, first.memory_id)
    assert (row["topic"], row["canonical"], row["decay_rate"]) == (
        "city", "Bob's city: Lyon", 0.001
    )  # fmt: skip
    moved = store.upsert(USER, "Bob moved to Paris", at_cosine(0.8), topic="city")
    assert (moved.action, moved.memory_id) == ("superseded", first.memory_id)
    # a touch changes none of them
    store.touch(USER, [first.memory_id])
    assert memory(sql, first.memory_id)["topic"] == "city"
