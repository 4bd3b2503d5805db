"""Bad input to the write path: every refusal carries its documented SQLSTATE,
maps to its pymem.errors class, and writes nothing.

A failed statement aborts the surrounding transaction, so each refused call
runs inside ``conn.transaction()`` (a savepoint) and the rows are counted
before and after in the same test transaction.
"""

from __future__ import annotations

import math

import numpy as np
import psycopg
import pytest
from psycopg.types.json import Jsonb

from pymem import MemoryItem
from pymem.errors import (
    ContentTooLong,
    DimensionMismatch,
    InvalidBatch,
    InvalidContent,
    InvalidEmbedding,
    InvalidParameter,
    InvalidSource,
    InvalidThresholds,
    InvalidUserId,
    UnknownKind,
)
from tests.conftest import unit
from tests.helpers import count, refused

USER = "alice"
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


@pytest.mark.parametrize("content", ["", "  \t\n", "\u3000", " \u3000 \r\n", None])
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


@pytest.mark.parametrize("source", ["guessed", "Confirmed", ""])
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
