"""Edge rules of upsert found in review: each once lost or mis-merged a fact."""

from __future__ import annotations

import psycopg
import pytest

from pymem import MemoryStore
from pymem.errors import (
    EmbedderMismatch,
    InvalidThresholds,
    UnsupportedIsolation,
)
from pymem.migrate import migrate
from tests.conftest import at_cosine, unit


def _count(conn, user="u"):
    return conn.execute(
        "SELECT count(*) FROM pymem.memories WHERE user_id = %s", (user,)
    ).fetchone()[0]


def test_same_normalized_text_with_other_numbers_is_not_a_duplicate(store, conn):
    # normalizing drops the point: "3.5" and "35" normalize alike
    first = store.upsert("u", "weight 3.5 kg", unit(0))
    second = store.upsert("u", "weight 35 kg", unit(1))
    assert second.action == "inserted"
    assert second.memory_id != first.memory_id
    assert _count(conn) == 2


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
    assert _count(conn) == 0


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
