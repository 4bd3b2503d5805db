"""A memory stays findable by every wording it absorbed (sql/21_wordings.sql,
migration 0022): a duplicate's text and vector are kept as a wording of the
survivor, recall scores a memory by its best wording and returns it once, a
supersede leaves the old value's wordings behind and an undo brings them back."""

from __future__ import annotations

import numpy as np
import psycopg
import pytest

from pymem import MemoryStore
from tests.conftest import at_cosine, unit

USER = "wordings"


def _wordings(conn, memory_id) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT content FROM pymem.memory_wordings WHERE memory_id = %s ORDER BY id",
            (memory_id,),
        )
    ]


def _add(conn, memory_id, content, embedding) -> None:
    conn.execute("SELECT pymem._add_wording(%s, %s, %s, %s)", (USER, memory_id, content, embedding))


def test_a_duplicate_write_keeps_its_words_and_the_same_text_adds_none(store, conn):
    first = store.upsert(USER, "Maya drinks her coffee with oat milk", unit(0))
    same = store.upsert(USER, "Maya drinks her coffee with OAT milk!", unit(0))
    assert (same.action, same.rule) == ("duplicate", "same normalized text")
    assert _wordings(conn, first.memory_id) == []
    other = store.upsert(USER, "Maya takes oat milk in her coffee", at_cosine(0.97, 0, 1))
    assert (other.action, other.memory_id) == ("duplicate", first.memory_id)
    assert _wordings(conn, first.memory_id) == ["Maya takes oat milk in her coffee"]
    # said again: kept once
    store.upsert(USER, "Maya takes oat milk in her coffee", at_cosine(0.97, 0, 1))
    assert _wordings(conn, first.memory_id) == ["Maya takes oat milk in her coffee"]


def test_recall_scores_a_memory_by_its_best_wording_and_returns_it_once(store, conn):
    car = store.upsert(USER, "Nadia replaced her Fiesta with a Toyota Yaris", unit(0))
    other = store.upsert(USER, "Nadia works nights at the ICU", unit(2))
    _add(conn, car.memory_id, "Nadia's car these days is a Yaris hybrid", unit(1))
    _add(conn, car.memory_id, "Nadia drives a Yaris now", at_cosine(0.9, 1, 3))
    hits = store.recall(USER, at_cosine(0.95, 1, 2), k=5, query_text="What is Nadia driving?")
    assert [h.memory_id for h in hits] == [car.memory_id, other.memory_id]
    best = hits[0]
    # the shown similarity is the best wording's: the score is computed from it
    assert best.similarity == pytest.approx(0.95, abs=1e-6)
    assert best.content == "Nadia replaced her Fiesta with a Toyota Yaris"


def test_a_supersede_leaves_the_old_values_wordings_behind_and_undo_brings_them_back(store, conn):
    a1c = store.upsert(USER, "My A1C is 7.2%", unit(0))
    _add(conn, a1c.memory_id, "my blood sugar test came back at seven point two", unit(5))
    assert store.recall(USER, unit(5), k=1)[0].similarity == pytest.approx(1.0)
    new = store.upsert(USER, "My A1C is 6.8%", unit(0))
    assert (new.action, new.memory_id) == ("superseded", a1c.memory_id)
    (hit,) = store.recall(USER, unit(5), k=1)
    assert hit.similarity == pytest.approx(0.0, abs=1e-6)  # its own vector only
    store.undo(USER, a1c.memory_id)
    (hit,) = store.recall(USER, unit(5), k=1)
    assert (hit.content, hit.similarity) == ("My A1C is 7.2%", pytest.approx(1.0))


def test_a_reviews_duplicate_leaves_the_retired_text_to_the_survivor(store, conn):
    older = store.upsert(USER, "Ravi left Paylane and joined Flipkart", unit(0))
    newer = store.upsert(USER, "Ravi is a senior software engineer at Flipkart",
                         at_cosine(0.8, 0, 1))  # fmt: skip
    assert newer.action == "inserted"
    _add(conn, newer.memory_id, "Ravi codes for Flipkart", unit(4))
    (review,) = store.pending_reviews(USER)
    store.resolve_review(USER, review.memory_id, "duplicate")
    assert _wordings(conn, older.memory_id) == [
        "Ravi is a senior software engineer at Flipkart",
        "Ravi codes for Flipkart",
    ]
    (hit,) = store.recall(USER, unit(4), k=1, query_text="Where does Ravi work?")
    assert (hit.memory_id, hit.similarity) == (older.memory_id, pytest.approx(1.0))


def test_a_memory_keeps_at_most_sixteen_wordings_for_one_content(store, conn):
    kept = store.upsert(USER, "Lena studies in the library", unit(0))
    for i in range(20):
        _add(conn, kept.memory_id, f"Lena studies at the library number {i}", unit(i + 1))
    assert len(_wordings(conn, kept.memory_id)) == 16


def test_wordings_follow_row_security(fresh_dsn):
    with MemoryStore(fresh_dsn) as store:
        mine = store.upsert("ann", "Ann plays go", unit(0))
        store.upsert("bob", "Bob plays chess", unit(0))
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute(
            "SELECT pymem._add_wording('ann', %s, 'Ann is a go player', %s::vector)",
            (mine.memory_id, str(unit(1).tolist())),
        )
    # as the wrapper does: the role and the user for one transaction (pymem._set_user:
    # on Citus, a SET LOCAL the workers' policies see too)
    for user, seen in (("bob", 0), ("ann", 1)):
        with psycopg.connect(fresh_dsn) as conn:
            conn.execute("SET LOCAL ROLE pymem_app")
            conn.execute("SELECT pymem._set_user(%s)", (user,))
            assert conn.execute("SELECT count(*) FROM pymem.memory_wordings").fetchone() == (seen,)


def test_recall_with_wordings_is_the_exact_best_wording_top_k(store, conn):
    """300 memories, 150 wordings, random 512-d vectors: the top 10 is the brute-force
    top 10 of each memory's best cosine (one kind, one age: the decay is the same)."""
    rng = np.random.default_rng(5)
    dim = 512
    own = rng.normal(size=(300, dim)).astype(np.float32)
    by_index = {
        i: conn.execute(
            "INSERT INTO pymem.memories (user_id, kind, content, embedding)"
            " VALUES (%s, 'fact', %s, %s) RETURNING id",
            (USER, f"fact number {i}", v),
        ).fetchone()[0]
        for i, v in enumerate(own)
    }
    best = {i: [v] for i, v in enumerate(own)}
    for j in range(150):
        i = int(rng.integers(0, 300))
        w = rng.normal(size=dim).astype(np.float32)
        _add(conn, by_index[i], f"wording {j} of fact {i}", w)
        best[i].append(w)
    for _ in range(5):
        q = rng.normal(size=dim).astype(np.float32)
        qn = q / np.linalg.norm(q)
        sims = {
            by_index[i]: max(float(v @ qn / np.linalg.norm(v)) for v in vs)
            for i, vs in best.items()
        }
        expected = sorted(sims.items(), key=lambda kv: -kv[1])[:10]
        hits = store.recall(USER, q, k=10)
        assert [h.memory_id for h in hits] == [mid for mid, _ in expected]
        for h, (_, sim) in zip(hits, expected, strict=True):
            assert h.similarity == pytest.approx(sim, abs=1e-5)
