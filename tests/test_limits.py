"""The documented maximums (docs/sql-api.md, "Limits"), each at the limit and one
past it, and the one rule for enumerated words: case and surrounding spaces do not
matter, the word is kept in lowercase."""

from __future__ import annotations

import psycopg
import pytest

from pymem.errors import InvalidBatch, InvalidFactValue, InvalidParameter
from tests.conftest import at_cosine, unit

USER = "limits"


def _max(conn: psycopg.Connection, name: str) -> int:
    return conn.execute(f"SELECT pymem.{name}()").fetchone()[0]


def _object_of_size(conn: psycopg.Connection, size: int) -> dict:
    """A JSON object whose JSON text (as PostgreSQL prints it) takes exactly ``size`` bytes."""
    overhead = conn.execute(
        "SELECT octet_length(jsonb_build_object('x', '')::text)"
    ).fetchone()[0]  # fmt: skip
    value = {"x": "a" * (size - overhead)}
    text = conn.execute("SELECT octet_length(%s::jsonb::text)", (psycopg.types.json.Jsonb(value),))
    assert text.fetchone()[0] == size
    return value


@pytest.mark.parametrize("field", ["metadata", "details"])
def test_a_memorys_json_at_and_past_the_limit(store, conn, field):
    limit = _max(conn, "_max_json_bytes")
    assert limit == 65536
    kept = store.upsert(USER, "Ann keeps notes", unit(0), **{field: _object_of_size(conn, limit)})
    assert kept.action == "inserted"
    with pytest.raises(InvalidParameter, match=f"{field} takes 65537 bytes, the maximum is 65536"):
        too_big = _object_of_size(conn, limit + 1)
        store.upsert(USER, "Ann keeps other notes", unit(1), **{field: too_big})


def test_a_fact_value_at_and_past_the_limit(store, conn):
    limit = _max(conn, "_max_json_bytes")
    assert store.set_fact(USER, "notes", _object_of_size(conn, limit)) == "set"
    with pytest.raises(InvalidFactValue, match="fact value takes 65537 bytes") as refused:
        store.set_fact(USER, "notes", _object_of_size(conn, limit + 1))
    assert refused.value.sqlstate == "PM021"


def test_query_text_at_and_past_the_limit(store, conn):
    limit = _max(conn, "_max_query_chars")
    assert limit == 10_000
    store.upsert(USER, "Ann drinks tea", unit(0))
    assert store.recall(USER, unit(0), query_text="t" * limit)
    with pytest.raises(InvalidParameter, match="query_text is 10001 characters long") as refused:
        store.recall(USER, unit(0), query_text="t" * (limit + 1))
    assert refused.value.sqlstate == "PM006"


def test_the_contacts_of_one_write_at_and_past_the_limit(store, conn):
    people = [f"Person {i}" for i in range(51)]
    kept = store.upsert(USER, "Ann met the whole team", unit(0), contacts=people[:50])
    assert conn.execute(
        "SELECT count(*) FROM pymem.contact_links WHERE memory_id = %s", (kept.memory_id,)
    ).fetchone() == (50,)
    with pytest.raises(InvalidParameter, match="contacts names 51 people, the maximum is 50"):
        store.upsert(USER, "Ann met everyone", unit(1), contacts=people)


def test_a_batch_at_and_past_the_limit(store, conn):
    limit = _max(conn, "_max_batch_items")
    assert limit == 1000
    items = [{"content": f"fact number {i}", "embedding": unit(i % 500)} for i in range(limit + 1)]
    with pytest.raises(InvalidBatch, match="a batch holds at most 1000 items, got 1001"):
        store.upsert_many(USER, items)
    conn.rollback()
    assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone() == (0,)
    assert len(store.upsert_many(USER, items[:limit])) == limit


def test_the_typed_batch_and_the_import_are_held_to_the_same_limit(conn):
    contents = [f"fact number {i}" for i in range(1001)]
    vectors = [str(unit(i % 500).tolist()) for i in range(1001)]
    with pytest.raises(psycopg.Error, match="at most 1000 items, got 1001") as refused:
        conn.execute(
            "SELECT count(*) FROM pymem.upsert_memory_arrays(%s, %s, %s::vector[])",
            (USER, contents, vectors),
        )
    assert refused.value.sqlstate == "PM010"


# -- one rule for words --


def test_words_ignore_case_and_spaces_and_are_kept_in_lowercase(store, conn):
    written = store.upsert(
        USER, "Ann is on leave this week", unit(0), "STATE", source=" Confirmed "
    )  # fmt: skip
    assert conn.execute(
        "SELECT kind, source FROM pymem.memories WHERE id = %s", (written.memory_id,)
    ).fetchone() == ("state", "confirmed")
    assert [m.content for m in store.recall(USER, unit(0), kinds=["State"])] == [
        "Ann is on leave this week"
    ]
    assert store.set_fact(USER, "mood", "calm", scope="State", source="INFERRED",
                          confidence="HIGH") == "set"  # fmt: skip
    assert conn.execute(
        "SELECT scope, source, confidence FROM pymem.facts WHERE key = 'mood'"
    ).fetchone() == ("state", "inferred", 0.9)
    assert store.set_fact_policy("diet_*", "Confirm") == "confirm"


def test_on_related_and_decisions_follow_the_same_rule(store, conn):
    store.upsert(USER, "Ann checks her A1C", unit(0))
    near = conn.execute(
        "SELECT action FROM pymem.upsert_memory(%s, 'Ann takes metformin', %s::vector,"
        " on_related => 'Review')", (USER, str((unit(0) * 0.8 + unit(1) * 0.6).tolist())),
    ).fetchone()  # fmt: skip
    assert near == ("inserted",)
    (review,) = store.pending_reviews(USER)
    store.resolve_review(USER, review.memory_id, "KEEP_BOTH")
    assert store.pending_reviews(USER) == []


def test_a_bad_on_related_is_an_invalid_parameter_on_a_single_call(store):
    with pytest.raises(InvalidParameter, match="on_related must be review, supersede or insert"):
        store.upsert(USER, "Ann runs", unit(0), on_related="bogus")


def test_keys_merged_into_a_memory_count_against_its_limit(store, conn):
    """A re-mention adds the keys it brings: the merged details are held to the limit."""
    half = _max(conn, "_max_json_bytes") // 2 + 10
    first = store.upsert(USER, "Ann keeps notes", unit(0), details={"a": "x" * half})
    assert first.action == "inserted"
    with pytest.raises(InvalidParameter, match="details merged into the memory takes"):
        store.upsert(USER, "Ann keeps notes", unit(0), details={"b": "y" * half})
    conn.rollback()


def test_a_compressible_value_is_measured_as_its_text(conn):
    """A megabyte of one repeated letter is stored in a few kilobytes; the limit reads the
    JSON text, so it is refused all the same."""
    with pytest.raises(psycopg.Error, match="fact value takes 1048585 bytes") as refused:
        conn.execute(
            "SELECT pymem.set_fact(%s, 'notes', jsonb_build_object('x', repeat('a', 1048576)))",
            (USER,),
        )
    assert refused.value.sqlstate == "PM021"


def test_a_supersede_and_a_consolidation_are_held_to_the_limit_of_what_they_merge(store, conn):
    half = _max(conn, "_max_json_bytes") // 2 + 10
    store.upsert(USER, "Ann is learning React", unit(0), topic="skill:react",
                 details={"a": "x" * half})  # fmt: skip
    with pytest.raises(InvalidParameter, match="details merged into the memory takes"):
        store.upsert(USER, "Ann is proficient in React", at_cosine(0.8, 0, 1),
                     topic="skill:react", details={"b": "y" * half})  # fmt: skip
    conn.rollback()
    one = store.upsert(USER, "Ann ran 5 km on Monday", unit(2), details={"a": "x" * half})
    two = store.upsert(USER, "Ann ran 6 km on Tuesday", unit(3), details={"b": "y" * half})
    with pytest.raises(InvalidParameter, match="details of the record takes"):
        store.consolidate(USER, [one.memory_id, two.memory_id], "Ann runs", unit(4))
    conn.rollback()
