"""Hostile and malformed input through the Python wrapper: each value is stored as the
literal text it is, or refused with a documented SQLSTATE as a pymem exception (never a
driver error), and nothing is half written."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import psycopg
import pytest

from pymem import MemoryItem
from pymem.errors import (
    InvalidBatch,
    InvalidContent,
    InvalidEmbedding,
    InvalidInput,
    InvalidParameter,
    PymemError,
    WrongArgumentType,
)
from tests.conftest import unit
from tests.helpers import refused

INJECTIONS = [
    "x'); DROP TABLE pymem.memories; --",
    '" OR 1=1 --',
    "$$; SELECT pg_sleep(10); $$",
    "%s %(x)s {0} \\N \\\\",
    "Robert'); DELETE FROM pymem.reviews;--",
    "👩‍👩‍👧 家庭 e\u0301 \u200b\u202e",
]


def _tables_intact(conn) -> None:
    for table in ("memories", "memory_versions", "reviews", "facts", "contacts"):
        conn.execute(f"SELECT count(*) FROM pymem.{table}").fetchone()


@pytest.mark.parametrize("text", INJECTIONS)
def test_text_in_every_argument_is_stored_as_it_is(store, conn, text):
    r = store.upsert(text, text, unit(0), topic=text, canonical=text,
                     details={text: text}, metadata={text: [text]}, contacts=[text])  # fmt: skip
    row = conn.execute(
        "SELECT user_id, content, topic, canonical, details, metadata FROM pymem.memories"
        " WHERE id = %s",
        (r.memory_id,),
    ).fetchone()
    assert row == (text, text, text, text, {text: text}, {text: [text]})
    assert [h.content for h in store.recall(text, unit(0), query_text=text)] == [text]
    assert store.set_fact(text, text, text) == "set"
    assert store.get_fact(text, text) == text
    (person,) = store.recent_contacts(text, k=3)
    assert person.name == text.strip()
    assert person.name in store.contact_card(text, text)
    _tables_intact(conn)


def test_injection_in_a_kind_is_an_unknown_kind(store, conn):
    with pytest.raises(PymemError, match="unknown kind") as err, conn.transaction():
        store.upsert("u", "likes tea", unit(0), INJECTIONS[0])
    assert err.value.sqlstate == "PM008"
    _tables_intact(conn)


@pytest.mark.parametrize(
    ("call", "error", "sqlstate"),
    [
        (lambda s: s.upsert("u", "bad \udcff text", unit(0)), InvalidContent, "PM002"),
        (lambda s: s.upsert("u", "nul\x00byte", unit(0)), InvalidContent, "PM002"),
        (lambda s: s.upsert(42, "likes tea", unit(0)), WrongArgumentType, "42883"),
        (lambda s: s.upsert("u", "likes tea", "[1, 2, 3]"), InvalidEmbedding, "PM005"),
        (lambda s: s.upsert("u", "likes tea", np.zeros((2, 256))), InvalidEmbedding, "PM005"),
        (lambda s: s.upsert("u", "likes tea", [[1.0], [2.0, 3.0]]), InvalidEmbedding, "PM005"),
        (lambda s: s.upsert("u", "likes tea", np.full(512, np.nan)), InvalidEmbedding, "PM005"),
        (lambda s: s.upsert("u", "likes tea", np.full(512, np.inf)), InvalidEmbedding, "PM005"),
        (lambda s: s.upsert("u", "tea", unit(0), importance=float("inf")), InvalidParameter,
         "PM006"),
        (lambda s: s.upsert("u", "tea", unit(0), importance=-0.5), InvalidParameter, "PM006"),
        (lambda s: s.upsert("u", "tea", unit(0), decay_rate=float("nan")), InvalidParameter,
         "PM006"),
        (lambda s: s.upsert_many("u", [None]), InvalidBatch, "PM010"),
        (lambda s: s.upsert_many("u", [MemoryItem("a", unit(0)), 7]), InvalidBatch, "PM010"),
        (lambda s: s.touch("u", ["not-a-uuid"]), InvalidInput, "22P02"),
        (lambda s: s.resolve_review("u", "zzz", "keep_both"), InvalidInput, "22P02"),
        (lambda s: s.sync_contact("u", "Ann", ["not-a-uuid"]), InvalidInput, "22P02"),
        (lambda s: s.recall("u", unit(0), k=0), InvalidParameter, "PM006"),
        (lambda s: s.recall("u", unit(0), k=10**6), InvalidParameter, "PM006"),
        (lambda s: s.set_fact("u", "k", {1, 2}), PymemError, "PM021"),
        # a bool is no number: the cast refuses it (42846), a type no parameter takes
        (lambda s: s.set_fact("u", "k", "v", confidence=True), WrongArgumentType, "42883"),
        (lambda s: s.upsert("u", "tea", unit(0), importance=True), WrongArgumentType, "42883"),
    ],
)  # fmt: skip
def test_malformed_values_are_refused_with_their_code(store, conn, call, error, sqlstate):
    with pytest.raises(error) as err, conn.transaction():
        call(store)
    assert err.value.sqlstate == sqlstate
    assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM pymem.contacts").fetchone()[0] == 0


def test_nulls_and_empty_arrays_are_safe(store, conn):
    assert store.upsert_many("u", []) == []
    assert store.touch("u", []) == 0
    r = store.upsert("u", "likes tea", unit(0), contacts=[], metadata=None, details=None)
    assert r.action == "inserted"
    assert store.sync_contact("u", "Ann", []) is not None
    assert store.sync_contact("u", "Ann", None, aliases=[]) is not None
    assert store.pending_reviews("u") == []
    assert store.recall("nobody", unit(0)) == []


def test_deep_json_is_stored_or_refused_whole(store, conn):
    deep: dict = {"leaf": 1}
    for _ in range(200):
        deep = {"a": deep}
    r = store.upsert("u", "likes deep things", unit(0), details=deep)
    stored = conn.execute(
        "SELECT details FROM pymem.memories WHERE id = %s", (r.memory_id,)
    ).fetchone()[0]
    assert stored == deep


def test_a_batch_of_the_most_items_with_one_bad_item_writes_nothing(store, conn):
    items = [{"content": f"fact number {i}", "embedding": unit(i % 500)} for i in range(1_000)]
    items[-1]["importance"] = 2.0
    with pytest.raises(InvalidParameter, match="item 1000: importance") as err:
        store.upsert_many("u", items)
    assert err.value.sqlstate == "PM006"
    conn.rollback()
    assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] == 0


def test_a_batch_restating_one_fact_a_thousand_times(store, conn):
    # (10,000 restatements in one batch take ~19 s here: every duplicate updates the same
    # row, and each update walks a longer chain of its versions in the one transaction)
    items = [{"content": "likes green tea", "embedding": unit(0)} for _ in range(1_000)]
    results = store.upsert_many("u", items)
    assert [r.ordinal for r in results] == list(range(1, 1_001))
    assert results[0].action == "inserted"
    assert {r.action for r in results[1:]} == {"duplicate"}
    assert conn.execute("SELECT count(*), max(mention_count) FROM pymem.memories").fetchone() == (
        1,
        1_000,
    )


def test_a_lone_string_for_a_list_parameter_is_refused_not_split_into_characters(store, conn):
    # contacts="Tom" linked three people, T, o and m; kinds="fact" recalled nothing
    kept = store.upsert("ann", "Ann met Tom", unit(0), contacts=["Tom"]).memory_id
    calls = [
        lambda: store.upsert("ann", "Ann met Tom again", unit(1), contacts="Tom"),
        lambda: store.recall("ann", unit(0), 5, kinds="fact"),
        lambda: store.sync_contact("ann", "Tom", aliases="Tommy"),
        lambda: store.sync_contact("ann", "Tom", memory_ids=str(kept)),
        lambda: store.touch("ann", kept),
        lambda: store.consolidation_candidates("ann", kinds="fact"),
    ]
    for call in calls:
        with pytest.raises(WrongArgumentType, match="must be a list") as info:
            call()
        assert info.value.sqlstate == "42883"
    names = conn.execute("SELECT name FROM pymem.contacts WHERE user_id = 'ann'").fetchall()
    assert names == [("Tom",)]
    assert [h.memory_id for h in store.recall("ann", unit(0), 5, kinds=["fact"])] == [kept]


def test_a_value_json_cannot_hold_is_wrong_argument_type(store):
    # a datetime in metadata, a set in details: a bare TypeError from inside the driver
    when = datetime(2026, 1, 1, tzinfo=UTC)
    calls = [
        lambda: store.upsert("ann", "Ann x", unit(0), metadata={"at": when}),
        lambda: store.upsert_many("ann", [{"content": "y", "embedding": unit(1), "details": {1j}}]),
        lambda: store.sync_contact("ann", "Tom", attributes={"born": when.date()}),
    ]
    for call in calls:
        with pytest.raises(WrongArgumentType, match="not JSON-serializable") as info:
            call()
        assert info.value.sqlstate == "42883"
    assert store.upsert("ann", "Ann x", unit(0), metadata={"at": when.isoformat()}).action == (
        "inserted"
    )


TWO_DIMENSIONAL = [
    # (call, its arguments' names: one of them an array of arrays)
    ("SELECT * FROM pymem.upsert_memory('u2d', 'Dan likes tea', %(v)s,"
     " contacts => '{{Dan},{Eve}}'::text[])", "contacts"),
    ("SELECT pymem.sync_contact('u2d', 'Dan', aliases => '{{Danny},{D}}'::text[])", "aliases"),
    ("SELECT pymem.sync_contact('u2d', 'Dan', ARRAY[[gen_random_uuid()]])", "memory_ids"),
    ("SELECT * FROM pymem.recall('u2d', %(v)s, kinds => '{{fact}}'::text[])", "kinds"),
    ("SELECT * FROM pymem.consolidation_candidates('u2d', kinds => '{{fact}}'::text[])",
     "kinds"),
    ("SELECT pymem.check_contents('{{tea,\"\"},{milk,honey}}'::text[])", "contents"),
    ("SELECT pymem.check_contents('{tea}', '{{a}}'::text[])", "labels"),
    ("SELECT * FROM pymem.get_memories('u2d', ARRAY[[gen_random_uuid()]])", "memory_ids"),
    ("SELECT * FROM pymem.unpark_reviews('u2d', ARRAY[[gen_random_uuid()]])", "review_ids"),
    ("SELECT pymem.touch('u2d', ARRAY[[gen_random_uuid()]])", "memory_ids"),
]  # fmt: skip


@pytest.mark.parametrize(("query", "argument"), TWO_DIMENSIONAL)
def test_an_array_of_arrays_is_refused_by_name(sql, query, argument):
    """Some functions read an array of arrays flattened ("Dan" and "Eve" became contacts),
    others by position (check_contents named the wrong item): every list argument is
    one-dimensional or refused with PM006, nothing written."""
    before = sql.execute("SELECT count(*) FROM pymem.contacts").fetchone()
    refused(
        sql,
        psycopg.Error,
        "PM006",
        lambda: sql.execute(query, {"v": unit(0)}),
        f"{argument} must be a one-dimensional array",
    )
    assert sql.execute("SELECT count(*) FROM pymem.contacts").fetchone() == before
