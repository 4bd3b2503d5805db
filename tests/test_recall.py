"""The read path: pymem.recall.

Ranking (similarity weighted by decay, with the floor), the shape callers in
other languages rely on, exactness against a numpy brute force over thousands
of memories (with and without query text, so the lexical pruning is checked to
change nothing), the lexical boost for Chinese and English, the filters and
their errors, and temporary states with the real embedder.

Everything runs against the real database in a rolled-back transaction
(fixtures ``conn`` / ``store``); ``now()`` is frozen for the whole test, so a
fresh memory has age 0 at the default ``at``.
"""

from __future__ import annotations

import math
import re
from datetime import timedelta

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg.rows import dict_row

from pymem import MemoryStore
from pymem.errors import (
    DimensionMismatch,
    InvalidParameter,
    InvalidUserId,
    UnknownKind,
)
from tests.conftest import DIM, add, age, at_cosine, unit
from tests.helpers import refused

NAN = float("nan")
USER = "alice"
OTHER = "bob"
Q = unit(0)  # the query vector of the hand-built tests

FLOOR = 0.5  # settings defaults of a fresh test database
LEXICAL_WEIGHT = 0.3
STATE_BOOST = 0.1
KIND_RATES = {
    "fact": 0.01,
    "preference": 0.02,
    "habit": 0.01,
    "state": 0.08,
    "inference": 0.03,
    "goal": 0.01,
    "profile": 0.005,
    "event": 0.02,
}


# --- helpers ------------------------------------------------------------------------------


def ids(hits) -> list:
    return [h.memory_id for h in hits]


def multiplier(decay: float) -> float:
    return FLOOR + (1 - FLOOR) * decay


# --- 2. shape and ranking ------------------------------------------------------------------


def test_settings_are_the_documented_defaults(store):
    s = store.get_settings()
    assert (s.recall_decay_floor, s.recall_lexical_weight, s.recall_state_boost) == (
        FLOOR,
        LEXICAL_WEIGHT,
        STATE_BOOST,
    )


def test_recall_rows_carry_the_documented_columns_by_name(store, sql):
    mid = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    with sql.cursor(row_factory=dict_row) as cur:
        cur.execute("SELECT * FROM pymem.recall(%s, %s, 5)", (USER, Q))
        names = [d.name for d in cur.description]
        rows = cur.fetchall()
    for name in ("memory_id", "content", "kind", "similarity", "decay_score", "score"):
        assert name in names, names
    (row,) = rows
    assert row["memory_id"] == mid
    assert row["content"] == "likes green tea"
    assert row["kind"] == "fact"
    assert row["similarity"] == pytest.approx(0.9, abs=1e-6)
    assert row["decay_score"] == pytest.approx(0.5, abs=1e-12)  # fresh: the importance
    assert row["score"] == pytest.approx(0.9 * multiplier(0.5), abs=1e-6)


def test_recall_ranks_by_similarity(store, sql):
    sims = {"likes green tea": 0.3, "lives in Berlin": 0.9, "plays chess": 0.6, "owns a cat": 0.75}
    made = {
        text: add(store, sql, text, at_cosine(c, 0, 1 + i))
        for i, (text, c) in enumerate(sims.items())
    }
    hits = store.recall(USER, Q, 10)
    assert [h.content for h in hits] == sorted(sims, key=sims.get, reverse=True)
    for h in hits:
        assert h.memory_id == made[h.content]
        assert h.similarity == pytest.approx(sims[h.content], abs=1e-6)
        assert h.decay_score == pytest.approx(0.5, abs=1e-12)
        assert h.score == pytest.approx(sims[h.content] * multiplier(0.5), abs=1e-6)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_old_untouched_memory_ranks_below_fresh_one_of_same_similarity(store, sql):
    old = add(store, sql, "likes green tea", at_cosine(0.8, 0, 1), age_days=90)
    fresh = add(store, sql, "plays chess on sundays", at_cosine(0.8, 0, 2))
    hits = store.recall(USER, Q, 5)
    assert ids(hits) == [fresh, old]
    assert hits[0].similarity == pytest.approx(hits[1].similarity, abs=1e-6)
    assert hits[1].decay_score == pytest.approx(0.5 * math.exp(-0.01 * 90), rel=1e-9)
    assert hits[1].score == pytest.approx(0.8 * multiplier(0.5 * math.exp(-0.9)), abs=1e-6)


def test_higher_importance_ranks_higher_at_equal_similarity_and_age(store, sql):
    low = add(store, sql, "likes green tea", at_cosine(0.8, 0, 1), importance=0.3, age_days=10)
    high = add(store, sql, "plays chess on sundays", at_cosine(0.8, 0, 2), importance=0.9)
    age(sql, high, 10)
    hits = store.recall(USER, Q, 5)
    assert ids(hits) == [high, low]
    assert hits[0].decay_score == pytest.approx(0.9 * math.exp(-0.1), rel=1e-9)
    assert hits[1].decay_score == pytest.approx(0.3 * math.exp(-0.1), rel=1e-9)


def test_floor_keeps_a_highly_similar_old_memory_above_an_unrelated_fresh_one(store, sql):
    old = add(
        store,
        sql,
        "was born in Lisbon",
        at_cosine(0.95, 0, 1),
        importance=1.0,
        decay_rate=0.03,
        age_days=242,
    )
    fresh = add(store, sql, "bought a new umbrella", at_cosine(0.1, 0, 2), importance=1.0)
    decay = math.exp(-0.03 * 242)
    assert decay == pytest.approx(0.0007, abs=5e-5)
    # decay alone would bury it: 0.95 * 0.0007 < 0.1 * 1.0
    assert 0.95 * decay < 0.1

    hits = store.recall(USER, Q, 5)
    assert ids(hits) == [old, fresh]
    assert hits[0].decay_score == pytest.approx(decay, rel=1e-9)
    assert hits[0].score == pytest.approx(0.95 * multiplier(decay), abs=1e-6)
    assert hits[1].score == pytest.approx(0.1 * multiplier(1.0), abs=1e-6)


def test_recall_at_a_later_time_decays_scores(store, sql):
    mid = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    later = sql.execute("SELECT now() + interval '50 days'").fetchone()[0]
    (hit,) = store.recall(USER, Q, 5, at=later)
    assert hit.memory_id == mid
    assert hit.decay_score == pytest.approx(0.5 * math.exp(-0.5), rel=1e-9)


def test_recall_sees_only_its_own_users_memories(store, sql):
    mine = add(store, sql, "likes green tea", at_cosine(0.5, 0, 1))
    add(store, sql, "likes green tea", at_cosine(0.99, 0, 2), user=OTHER)
    assert ids(store.recall(USER, Q, 10)) == [mine]


# --- 3. exactness against a brute force ----------------------------------------------------

N_USER = 3000
N_OTHER = 2000
EX_USER = "exact-user"
VOCAB = [
    "coffee", "tea", "running", "python", "tokyo", "guitar", "berlin", "chess",
    "dentist", "sister", "birthday", "salad", "cycling", "piano", "garden",
    "小红", "腾讯", "咖啡", "跑步", "北京", "猫咪", "吉他", "生日", "医生", "妹妹",
]  # fmt: skip
COLUMNS = (
    "user_id, kind, content, embedding, importance, decay_rate, last_access_at,"
    " tier, valid_until, deleted_at"
)


@pytest.fixture
def population(sql):
    """~3000 memories of one user and ~2000 of others, random in every respect
    recall looks at; returns the user's rows as numpy arrays, read back from
    the database (so the brute force sees exactly what is stored)."""
    rng = np.random.default_rng(20240229)
    n = N_USER + N_OTHER
    centers = rng.normal(size=(40, DIM))
    vecs = centers[rng.integers(0, 40, n)] + rng.normal(scale=0.9, size=(n, DIM))
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    now = sql.execute("SELECT now()").fetchone()[0]
    kinds = list(KIND_RATES)
    with (
        sql.cursor() as cur,
        cur.copy(f"COPY pymem.memories ({COLUMNS}) FROM STDIN WITH (FORMAT BINARY)") as copy,
    ):
        copy.set_types(
            ["text", "text", "text", "vector", "float8", "float8", "timestamptz", "text",
             "timestamptz", "timestamptz"]
        )  # fmt: skip
        for i in range(n):
            user = EX_USER if i < N_USER else f"other-{i % 7}"
            kind = "state" if rng.random() < 0.12 else kinds[rng.integers(0, len(kinds))]
            words = rng.choice(VOCAB, size=rng.integers(1, 4), replace=False)
            content = f"{' '.join(words)} note {i}"
            rate = float(rng.uniform(0, 0.1)) if rng.random() < 0.2 else None
            if rng.random() < 0.03:
                last = now + timedelta(days=float(rng.uniform(0, 5)))  # in the future
            else:
                last = now - timedelta(days=float(rng.uniform(0, 400)))
            tier = "cold" if rng.random() < 0.05 else "hot"
            valid_until = None
            if kind == "state" or rng.random() < 0.03:
                valid_until = now + timedelta(days=float(rng.uniform(-3, 20)))
            deleted = now if rng.random() < 0.02 else None
            copy.write_row(
                (user, kind, content, vecs[i], float(rng.uniform(0, 1)), rate, last, tier,
                 valid_until, deleted)
            )  # fmt: skip
    # some consolidated fragments of the user
    sql.execute(
        "WITH target AS (SELECT id FROM pymem.memories WHERE user_id = %(u)s"
        "  ORDER BY id LIMIT 1),"
        " frags AS (SELECT id FROM pymem.memories WHERE user_id = %(u)s"
        "  ORDER BY id OFFSET 1 LIMIT 40)"
        " UPDATE pymem.memories AS m SET consolidated_into = (SELECT id FROM target)"
        " FROM frags WHERE m.user_id = %(u)s AND m.id = frags.id",
        {"u": EX_USER},
    )
    with sql.cursor(binary=True) as cur:
        cur.execute(
            "SELECT m.id, m.embedding, m.importance, coalesce(m.decay_rate, k.decay_rate),"
            " extract(epoch FROM m.last_access_at)::float8,"
            " coalesce(extract(epoch FROM m.valid_until)::float8, 'infinity'),"
            " m.kind = 'state', m.tier = 'hot' AND m.deleted_at IS NULL"
            "   AND m.consolidated_into IS NULL"
            " FROM pymem.memories AS m JOIN pymem.kinds AS k ON k.kind = m.kind"
            " WHERE m.user_id = %s ORDER BY m.id",
            (EX_USER,),
        )
        rows = cur.fetchall()
    assert len(rows) == N_USER
    emb = np.stack([np.asarray(r[1].to_numpy(), dtype=np.float64) for r in rows])
    return {
        "ids": [r[0] for r in rows],
        "index": {r[0]: i for i, r in enumerate(rows)},
        "emb": emb / np.linalg.norm(emb, axis=1, keepdims=True),
        "importance": np.array([r[2] for r in rows]),
        "rate": np.array([r[3] for r in rows]),
        "last": np.array([r[4] for r in rows]),
        "valid_until": np.array([r[5] for r in rows]),
        "state": np.array([r[6] for r in rows]),
        "live": np.array([r[7] for r in rows]),
        "vecs": vecs,
        "now": now,
    }


def brute_force(pop, query, at_epoch, lexical=None, weight=0.0, state_boost=STATE_BOOST) -> dict:
    """Score of every recallable memory by the documented formula, in float64."""
    q = np.asarray(query, dtype=np.float32).astype(np.float64)
    sim = pop["emb"] @ (q / np.linalg.norm(q))
    age_days = np.maximum(at_epoch - pop["last"], 0.0) / 86400.0
    decay = pop["importance"] * np.exp(-pop["rate"] * age_days)
    lex = np.zeros(len(sim)) if lexical is None else lexical
    boost = np.where(pop["state"], state_boost, 0.0)
    score = (sim + weight * lex + boost) * (FLOOR + (1 - FLOOR) * decay)
    ok = pop["live"] & (pop["valid_until"] > at_epoch)
    return {pop["ids"][i]: float(score[i]) for i in np.flatnonzero(ok)}


def assert_same_top(hits, expected: dict, k: int, tol: float = 1e-6) -> None:
    """The top-k of ``expected``; ids may differ only between equal scores."""
    best = sorted(expected.items(), key=lambda kv: -kv[1])[:k]
    assert len(hits) == len(best)
    got_scores = [h.score for h in hits]
    assert got_scores == sorted(got_scores, reverse=True), "not ordered by score"
    for h in hits:
        assert h.memory_id in expected, f"{h.memory_id} must not be recalled"
        assert h.score == pytest.approx(expected[h.memory_id], abs=tol), h
    for h, (_, score) in zip(hits, best, strict=True):
        assert h.score == pytest.approx(score, abs=tol)
    kth = best[-1][1]
    got = {h.memory_id for h in hits}
    for mid, score in best:
        if mid not in got:
            assert abs(score - kth) <= tol, f"missed {mid} with score {score}, k-th {kth}"


def queries(pop, rng, n=20):
    """Near one of the user's memories: odd ones very close, even ones loosely."""
    out = []
    for j in range(n):
        base = pop["vecs"][rng.integers(0, N_USER)].astype(np.float64)
        scale = 0.3 if j % 2 else 1.5
        v = base + scale * rng.normal(size=DIM) / math.sqrt(DIM)
        out.append((v / np.linalg.norm(v)).astype(np.float32))
    return out


def at_for(sql, pop, j):
    """Every other query looks ahead up to a month, so states expire and decay grows."""
    at = pop["now"] + timedelta(days=0 if j % 2 == 0 else 1.5 * j)
    epoch = sql.execute("SELECT extract(epoch FROM %s::timestamptz)::float8", (at,)).fetchone()[0]
    return at, epoch


def shown(hits) -> list[tuple]:
    return [(h.memory_id, h.score, h.similarity, h.decay_score, h.content, h.valid_until)
            for h in hits]  # fmt: skip


def test_recall_top10_equals_brute_force(store, sql, population):
    """And the plain question's statement (sql/30_recall_plain.sql) returns what
    recall's own returns: asked with include_history, a user with no earlier values
    takes recall's own statement, and gets the same rows at the same scores in the
    same order, whatever k and the filters."""
    rng = np.random.default_rng(7)
    for j, q in enumerate(queries(population, rng)):
        at, at_epoch = at_for(sql, population, j)
        hits = store.recall(EX_USER, q, 10, at=at)
        expected = brute_force(population, q, at_epoch)
        assert_same_top(hits, expected, 10)
        assert shown(hits) == shown(store.recall(EX_USER, q, 10, at=at, include_history=True))
        if j % 4 == 0:
            for k, options in (
                (1, {}),
                (50, {}),
                (10, {"kinds": ["state", "fact"]}),
                (10, {"include_cold": True}),
                (10, {"min_similarity": 0.2}),
                (10, {"sources": ["stated"]}),
                (10, {"filter": {"a": 1}}),
                (10, {"created_before": at + timedelta(days=1)}),
            ):
                plain = shown(store.recall(EX_USER, q, k, at=at, **options))
                assert plain == shown(
                    store.recall(EX_USER, q, k, at=at, include_history=True, **options)
                ), (k, options)
        for h in hits:
            assert h.lexical == 0
            assert h.similarity == pytest.approx(
                float(population["emb"][population["index"][h.memory_id]]
                      @ (q.astype(np.float64) / np.linalg.norm(q.astype(np.float64)))),
                abs=1e-6,
            )  # fmt: skip
    # a question whose words are not looked for (none left, or at a lexical weight of 0)
    # still lifts the states it asks about now and what was written in the span it names
    sql.execute("UPDATE pymem.settings SET recall_lexical_weight = 0")
    for j, q in enumerate(queries(population, np.random.default_rng(8), n=4)):
        at, _ = at_for(sql, population, j)
        for text in (
            "what about the user?",
            "What is the user doing now?",
            f"What did the user write on {population['now']:%d %B %Y}?",
        ):
            plain = shown(store.recall(EX_USER, q, 10, at=at, query_text=text))
            assert plain == shown(
                store.recall(EX_USER, q, 10, at=at, query_text=text, include_history=True)
            ), text


def lexical_of_every_row(sql, text: str) -> np.ndarray:
    """The weighted share of the query's tokens in each of the user's rows, computed
    here: each token weighs BM25's inverse document frequency over the live hot rows
    recall scores, ln(1 + (N - df + 0.5) / (df + 0.5)), matched by substring."""
    tokens = sql.execute("SELECT pymem._query_tokens(%s)", (text,)).fetchone()[0]
    rows = sql.execute(
        "SELECT lower(content), tier = 'hot' AND deleted_at IS NULL"
        " AND consolidated_into IS NULL FROM pymem.memories WHERE user_id = %s ORDER BY id",
        (EX_USER,),
    ).fetchall()
    if not tokens:
        return np.zeros(len(rows))
    hits = np.array([[t in content for t in tokens] for content, _ in rows], dtype=float)
    scored = np.array([live for _, live in rows])
    df = hits[scored].sum(axis=0)
    n = scored.sum()
    weights = np.log(1 + (n - df + 0.5) / (df + 0.5))
    return hits @ weights / weights.sum()


def test_recall_with_query_text_equals_brute_force(store, sql, population):
    rng = np.random.default_rng(11)
    stop_only = "what about the user?"
    assert sql.execute("SELECT pymem._query_tokens(%s)", (stop_only,)).fetchone()[0] == []
    for j, q in enumerate(queries(population, rng)):
        at, at_epoch = at_for(sql, population, j)
        if j == 19:
            text = stop_only
        elif j in (5, 12):
            # more words than recall tests one by one inline (pymem._token_slots): the
            # rest go through the sub-select, in the ranking and in the weights
            text = "the user " + " ".join(rng.permutation(VOCAB)[:20])
        else:
            words = rng.choice(VOCAB, size=rng.integers(1, 4), replace=False)
            text = "where does the user " + " ".join(words)
        tokens = sql.execute("SELECT pymem._query_tokens(%s)", (text,)).fetchone()[0]
        if j in (5, 12):
            (slots,) = sql.execute("SELECT pymem._token_slots()").fetchone()
            assert len(tokens) > slots
        weight = LEXICAL_WEIGHT if tokens else 0.0
        lexical = lexical_of_every_row(sql, text)
        # states are lifted only for a question about the present (none of these is)
        (now,) = sql.execute("SELECT pymem._asks_about_now(%s, %s)", (text, at)).fetchone()
        assert not now
        expected = brute_force(population, q, at_epoch, lexical, weight, state_boost=0.0)
        for k in (10,) if j % 4 else (10, 1, 50):
            hits = store.recall(EX_USER, q, k, query_text=text, at=at)
            assert_same_top(hits, expected, k)
            for h in hits:
                assert h.lexical == pytest.approx(
                    lexical[population["index"][h.memory_id]] if weight else 0.0, abs=1e-9
                )


def test_lexical_ignores_case_in_every_script(store, sql):
    """The content is lowercased for the match; the query's non-ASCII tokens were
    not: "МОСКВА" found nothing in "Ann moved to Москва", "CAFÉ" half of "café"."""
    add(store, sql, "Ann moved to Москва last spring", unit(0))
    add(store, sql, "Ann runs a café in Lyon", unit(1))
    for upper, lower in (("МОСКВА", "москва"), ("CAFÉ", "café"), ("Ἀθῆναι", "ἀθῆναι")):
        assert sql.execute("SELECT pymem._query_tokens(%s) = pymem._query_tokens(%s)",
                           (upper, lower)).fetchone() == (True,), upper  # fmt: skip
    hits = {h.content: h.lexical for h in store.recall("alice", unit(0), 2, query_text="МОСКВА")}
    assert hits["Ann moved to Москва last spring"] == 1.0
    hits = {h.content: h.lexical for h in store.recall("alice", unit(1), 2, query_text="CAFÉ")}
    assert hits["Ann runs a café in Lyon"] == 1.0


def test_lexical_can_lift_a_weak_match_past_the_pruning_head(store, sql):
    """30 memories are more similar than the one that matches every query
    token, so it is far outside the head the pruning bound is taken from; it
    must still be found, and a weak match with no tokens must still be cut."""
    fillers = [
        add(store, sql, f"reminder number {i}", at_cosine(0.5 + 0.002 * i, 0, 1 + i))
        for i in range(30)
    ]
    target = add(store, sql, "Zanzibar marathon training plan", at_cosine(0.3, 0, 100))
    add(store, sql, "owns a red bicycle", at_cosine(0.29, 0, 101))
    plain = store.recall(USER, Q, 3)
    assert ids(plain) == fillers[::-1][:3]
    for k in (1, 3, 5):
        hits = store.recall(USER, Q, k, query_text="zanzibar marathon")
        assert ids(hits) == [target, *fillers[::-1][: k - 1]], k
        assert hits[0].lexical == 1.0
        assert hits[0].score == pytest.approx((0.3 + LEXICAL_WEIGHT) * multiplier(0.5), abs=1e-6)


def _bulk(sql, n: int, cosine: float, importance: float, other: int, label: str) -> None:
    """``n`` memories of USER at ``cosine`` from Q, inserted by plain SQL (no dedup)."""
    sql.execute(
        "INSERT INTO pymem.memories (user_id, kind, content, embedding, importance)"
        " SELECT %s, 'fact', %s || ' ' || i, %s, %s FROM generate_series(1, %s) AS i",
        (USER, label, at_cosine(cosine, 0, other), importance, n),
    )


def _ranked_by_formula(sql, k: int, tiers=("hot",)) -> list:
    """Every live row of USER in ``tiers`` scored by the documented formula, by a plain
    query."""
    rows = sql.execute(
        "SELECT m.id FROM pymem.memories AS m JOIN pymem.kinds AS kd ON kd.kind = m.kind"
        " WHERE m.user_id = %s AND m.tier = ANY(%s) ORDER BY (1 - (m.embedding <=> %s))"
        " * (0.5 + 0.5 * pymem.decay_score(m.importance,"
        " coalesce(m.decay_rate, kd.decay_rate), m.last_access_at)) DESC, m.id LIMIT %s",
        (USER, list(tiers), Q, k),
    ).fetchall()
    return [r[0] for r in rows]


@pytest.mark.parametrize(
    ("head", "answer"),
    [
        # 200 closer memories with no strength fill the first pool (8k + 64 rows): its
        # k-th score cannot beat the bound of the rows left out, so the pool grows
        ((200, 0.9, 0.0), (20, 0.8, 1.0)),
        # negative relevance: the bound is relevance times the floor
        ((200, -0.3, 1.0), (20, -0.35, 0.0)),
        # all equal: a tie at the pool's edge is never decided by the pool
        ((300, 0.6, 0.5), (0, 0.6, 0.5)),
    ],
)
def test_recall_beyond_the_first_pool_equals_the_formula(store, sql, head, answer):
    _bulk(sql, *head, other=1, label="head")
    if answer[0]:
        _bulk(sql, *answer, other=2, label="answer")
    for k in (1, 10, 25):
        hits = store.recall(USER, Q, k)
        assert ids(hits) == _ranked_by_formula(sql, k), k
        if answer[0]:
            assert all(h.content.startswith("answer") for h in hits[: min(k, answer[0])])


def test_a_pool_of_negative_relevance_is_proven_with_the_floor(store, sql):
    """A row of negative relevance and no importance scores its relevance times the floor:
    the closest row (cosine -0.3, full strength: score -0.3) is beaten by one at cosine -0.4
    of importance 0 (-0.4 * 0.5 = -0.2). The scan's key (relevance times the factor at the
    importance, -0.2) puts it in the first pool; a key of the relevance alone (-0.4) left it
    out, and the test below holds the bound for a row that is left out."""
    _bulk(sql, 1, -0.3, 1.0, other=1, label="head")
    _bulk(sql, 100, -0.32, 1.0, other=2, label="fill")
    _bulk(sql, 5, -0.4, 0.0, other=3, label="answer")
    hits = store.recall(USER, Q, 1)
    assert ids(hits) == _ranked_by_formula(sql, 1)
    assert hits[0].content.startswith("answer")
    assert hits[0].score == pytest.approx(-0.2, abs=1e-6)


def test_a_decayed_row_of_negative_relevance_left_out_of_the_pool_is_found(store, sql):
    """The scan sorts by relevance times (floor + (1 - floor) * importance); a row of
    full importance whose decay is spent sorts by its relevance (cosine -0.4: last, out of
    the first pool) but scores its relevance times the floor (-0.2), above the pool's best
    (-0.3). The bound of the rows left out is the pool's lowest key times the floor when
    that key is negative (-0.16), so the pool is not taken as the answer; its lowest key
    alone (-0.32) would have proven it."""
    _bulk(sql, 1, -0.3, 1.0, other=1, label="head")
    _bulk(sql, 100, -0.32, 1.0, other=2, label="fill")
    _bulk(sql, 5, -0.4, 1.0, other=3, label="answer")
    sql.execute(
        "UPDATE pymem.memories SET last_access_at = now() - interval '10000 days'"
        " WHERE user_id = %s AND content LIKE 'answer%%'",
        (USER,),
    )
    hits = store.recall(USER, Q, 1)
    assert ids(hits) == _ranked_by_formula(sql, 1)
    assert hits[0].content.startswith("answer")
    assert hits[0].score == pytest.approx(-0.2, abs=1e-6)


def test_a_floor_of_zero_ranks_a_memory_of_no_importance_at_zero(store, sql):
    """With the floor at 0 a memory of importance 0 scores 0 whatever its similarity (the
    pool keeps relevance times the factor, here 0, and the relevance is not recovered from
    it); the others by similarity times their decay score."""
    sql.execute("UPDATE pymem.settings SET recall_decay_floor = 0")
    add(store, sql, "none", at_cosine(0.9, 0, 1), importance=0.0)
    add(store, sql, "half", at_cosine(0.6, 0, 2), importance=0.5)
    hits = store.recall(USER, Q, 5)
    assert [h.content for h in hits] == ["half", "none"]
    assert hits[0].score == pytest.approx(0.3, abs=1e-6)
    assert hits[1].score == 0
    assert hits[1].similarity == pytest.approx(0.9, abs=1e-6)


def test_cold_rows_that_fill_the_first_pool_are_passed_over(store, sql):
    """200 cold memories closer than every hot one, more than the first pool holds (8k + 64
    rows): the answer is the hot rows as the formula ranks them, and with include_cold the
    cold ones first. Written for a scan that leaves the tier to the pool's rows (probed,
    docs/scaling.md): there the first pool keeps no row at all for k = 1, and its proof
    must still be read."""
    _bulk(sql, 200, 0.9, 1.0, other=1, label="cold")
    sql.execute(
        "UPDATE pymem.memories SET tier = 'cold' WHERE user_id = %s AND content LIKE 'cold%%'",
        (USER,),
    )
    _bulk(sql, 30, 0.8, 1.0, other=2, label="hot")
    for k in (1, 10, 25):
        hits = store.recall(USER, Q, k)
        assert ids(hits) == _ranked_by_formula(sql, k), k
        assert {h.tier for h in hits} == {"hot"}
        both = store.recall(USER, Q, k, include_cold=True)
        assert ids(both) == _ranked_by_formula(sql, k, tiers=("hot", "cold")), k
        assert {h.tier for h in both} == {"cold"}


def test_expired_rows_that_fill_the_first_pool_are_passed_over(store, sql):
    """200 expired memories closer than every valid one, more than the first pool holds:
    the scan leaves the end of validity to the pool's rows (it lies past the vector), so
    the first pool holds expired rows only; they are left out of the answer, not of the
    proof, and the answer is the valid rows as the formula ranks them, with or without
    query text and cold rows."""
    _bulk(sql, 200, 0.9, 1.0, other=1, label="expired")
    sql.execute(
        "UPDATE pymem.memories SET valid_until = now() - interval '1 second'"
        " WHERE user_id = %s AND content LIKE 'expired%%'",
        (USER,),
    )
    _bulk(sql, 30, 0.8, 1.0, other=2, label="valid")
    valid = sql.execute(
        "SELECT m.id FROM pymem.memories AS m WHERE m.user_id = %s AND m.content LIKE 'valid%%'",
        (USER,),
    ).fetchall()
    for k in (1, 10, 25):
        expected = [i for i in _ranked_by_formula(sql, 230) if (i,) in valid][:k]
        for kwargs in ({}, {"include_cold": True}, {"query_text": "valid"}):
            hits = store.recall(USER, Q, k, **kwargs)
            assert ids(hits) == expected, (k, kwargs)
            assert all(h.content.startswith("valid") for h in hits)


def _recall_plans(conn, *args, **kwargs) -> str:
    """The plans of the statements one recall call runs (auto_explain, nested)."""
    notices: list[str] = []

    def keep(diagnostic) -> None:
        notices.append(diagnostic.message_primary or "")

    conn.execute("LOAD 'auto_explain'")
    for name, value in (
        ("log_min_duration", "0"),
        ("log_nested_statements", "on"),
        ("log_level", "notice"),
    ):
        conn.execute("SELECT set_config(%s, %s, false)", (f"auto_explain.{name}", value))
    conn.add_notice_handler(keep)
    try:
        MemoryStore(conn).recall(*args, **kwargs)
    finally:
        conn.remove_notice_handler(keep)
        conn.execute("SELECT set_config('auto_explain.log_min_duration', '-1', false)")
    return "\n".join(notices)


@pytest.mark.parametrize(
    ("options", "topic", "plain"),
    [
        ({}, None, True),
        ({"query_text": "green tea"}, None, False),
        ({"include_history": True}, None, False),
        ({}, "drink", False),
    ],
    ids=["plain", "words", "history", "a-topic"],
)
def test_only_the_plain_question_takes_the_plain_statement(store, sql, options, topic, plain):
    """No words, no wordings, no values of a topic or open reviews, no history: the
    plain statement (sql/30_recall_plain.sql); anything else needs recall's own."""
    add(store, sql, "likes green tea", unit(0), user="plain-q")
    if topic:
        store.upsert("plain-q", "drinks oolong", unit(1), topic=topic)
    plans = _recall_plans(sql, "plain-q", Q, 5, **options)
    assert ("_plain_recall_pass" in plans) == plain, plans


def test_the_ranking_statement_is_planned_once_per_session(fresh_dsn):
    """The first call of a session already runs recall's generic plan: its index
    condition reads the user as a parameter ($1), not as the literal of a custom plan.
    Left to the plan cache, a partitioned store's custom plans were made again for every
    call (1.67 ms against 1.12 ms for a user with 300 memories, docs/scaling.md); Citus,
    which cannot plan the statement with its parameters unresolved, keeps them
    (test_citus.py)."""
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        register_vector(conn)
        conn.execute(
            "INSERT INTO pymem.memories (user_id, kind, content, embedding)"
            " SELECT 'u' || (i %% 4), 'fact', 'row ' || i, %s FROM generate_series(1, 40) AS i",
            (at_cosine(0.5, 0, 1),),
        )
        plans = _recall_plans(conn, "u1", Q, 5)
    ranking = plans[plans.index("WITH pool") :]
    assert re.search(r"Index Cond: \(user_id = \$\d+\)", ranking), ranking
    assert "user_id = 'u1'" not in ranking, ranking


@pytest.mark.parametrize("history", [False, True], ids=["plain", "recalls-own"])
def test_the_scan_reads_the_users_rows_in_heap_order_and_no_end_of_validity(fresh_dsn, history):
    """Recall's scan reads the user's live rows through memories_user_live_idx (or a
    leaf's copy of it), one key whose entries are in heap order, and filters a row on its
    tier alone: the end of validity, further past the vector, is read for the pool's rows
    only (each column past the vector cost about 0.2 us a row, docs/scaling.md). Checked
    on the plan of a session's eighth call (the plan cache has chosen between custom and
    generic plans by then), in a store of 20 users with statistics. The pool's rows are
    read again by TID lookups, not by a second scan of the user's rows."""
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        register_vector(conn)
        conn.execute(
            "INSERT INTO pymem.memories (user_id, kind, content, embedding, tier)"
            " SELECT 'u' || (i %% 20), 'fact', 'row ' || i, %s,"
            " CASE WHEN i %% 5 = 0 THEN 'cold' ELSE 'hot' END"
            " FROM generate_series(1, 4000) AS i",
            (at_cosine(0.5, 0, 1),),
        )
        conn.execute("ANALYZE pymem.memories")
        for user in range(7):
            MemoryStore(conn).recall(f"u{user}", Q, 5, include_history=history)
        plans = _recall_plans(conn, "u1", Q, 5, include_history=history)
    lines = plans.splitlines()
    # (the line of the node that reads the heap, the index it reads through)
    scans = []
    for i, line in enumerate(lines):
        found = re.search(r"Index Scan using (\S+) on memories", line)
        if found:
            scans.append((i, found.group(1)))
        found = re.search(r"Bitmap Index Scan on (\S+)", line)
        if found:
            heap = max(j for j in range(i) if "Bitmap Heap Scan on" in lines[j])
            if "Bitmap Heap Scan on memories" in lines[heap]:
                scans.append((heap, found.group(1)))
    with psycopg.connect(fresh_dsn) as conn:
        used = {
            name
            for _, name in scans
            if conn.execute(
                "SELECT to_regclass(%s) = 'pymem.memories_user_live_idx'::regclass OR EXISTS ("
                " SELECT FROM pg_inherits WHERE inhrelid = to_regclass(%s)"
                " AND inhparent = 'pymem.memories_user_live_idx'::regclass)",
                (f"pymem.{name}", f"pymem.{name}"),
            ).fetchone()[0]
        }
    assert used, plans
    for i, name in scans:
        if name in used:
            detail = []
            for line in lines[i + 1 :]:
                if "->" in line:
                    break
                detail.append(line)
            assert not [d for d in detail if "Filter" in d and "valid_until" in d]
    # the pool's rows are read again one TID lookup each, never by a second scan of the
    # user's rows hashed against the pool (what a partitioned store's planner chose)
    assert "Tid Scan on memories" in plans, plans
    assert "Hash Join" not in plans and "Merge Join" not in plans, plans


def test_touches_and_decay_are_still_hot_updates(fresh_dsn):
    """No index names the tier or the columns a touch changes: a touch (recall with
    touch, a re-mention) and decay cooling a memory are HOT updates, which write no index
    entry. In a store of its own: on the shared store, whose pages fill with the other
    tests' rows as a session goes on, decay's update once found no room left on its page
    (HOT needs it) in CI."""
    with psycopg.connect(fresh_dsn) as sql:
        register_vector(sql)
        store = MemoryStore(sql)
        mid = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
        hot_updates = (
            "SELECT sum(pg_stat_get_xact_tuples_hot_updated(r.relid))::integer FROM ("
            " SELECT 'pymem.memories'::regclass AS relid UNION"
            " SELECT t.relid FROM pg_partition_tree('pymem.memories') AS t WHERE t.isleaf) AS r"
        )
        before = sql.execute(hot_updates).fetchone()[0]
        assert store.touch(USER, [mid]) == 1
        assert sql.execute(hot_updates).fetchone()[0] == before + 1
        cooled = sql.execute(
            "SELECT cooled FROM pymem.apply_decay(now() + interval '100 years', user_id => %s)",
            (USER,),
        ).fetchone()[0]
        assert cooled == 1
        assert sql.execute(hot_updates).fetchone()[0] == before + 2


# --- 4. lexical boost, Chinese and English -------------------------------------------------


def test_chinese_query_text_lifts_the_memory_that_names_the_person(store, sql):
    xiaohong = add(store, sql, "用户的朋友小红在腾讯工作", at_cosine(0.8, 0, 1))
    other = add(store, sql, "用户的同事小明在阿里巴巴上班", at_cosine(0.8, 0, 2))
    plain = store.recall(USER, Q, 5)
    assert {h.memory_id for h in plain} == {xiaohong, other}
    assert plain[0].similarity == pytest.approx(plain[1].similarity, abs=1e-6)

    hits = store.recall(USER, Q, 5, query_text="小红在哪里工作")
    assert ids(hits) == [xiaohong, other]
    assert hits[0].lexical > 0
    assert hits[0].lexical > hits[1].lexical
    assert hits[0].score > hits[1].score


def test_chinese_query_text_beats_a_slightly_closer_vector(store, sql):
    xiaohong = add(store, sql, "用户的朋友小红在腾讯工作", at_cosine(0.78, 0, 1))
    other = add(store, sql, "用户的同事小明在阿里巴巴上班", at_cosine(0.82, 0, 2))
    assert ids(store.recall(USER, Q, 5)) == [other, xiaohong]
    assert ids(store.recall(USER, Q, 5, query_text="小红在哪里工作")) == [xiaohong, other]


def test_english_query_text_lifts_the_memory_that_names_the_person(store, sql):
    xiaohong = add(store, sql, "User's friend Xiaohong works at Tencent", at_cosine(0.8, 0, 1))
    other = add(store, sql, "User's colleague Ming is employed by Alibaba", at_cosine(0.8, 0, 2))
    hits = store.recall(USER, Q, 5, query_text="Where does Xiaohong work?")
    assert ids(hits) == [xiaohong, other]
    assert hits[0].lexical > 0
    assert hits[0].lexical > hits[1].lexical


# --- 5. filters and errors -----------------------------------------------------------------


def test_kinds_filter_returns_only_those_kinds(store, sql):
    habit = add(store, sql, "goes running every morning", at_cosine(0.5, 0, 1), "habit")
    add(store, sql, "likes green tea", at_cosine(0.9, 0, 2), "preference")
    add(store, sql, "lives in Berlin", at_cosine(0.8, 0, 3), "fact")
    hits = store.recall(USER, Q, 10, kinds=["habit"])
    assert ids(hits) == [habit]
    assert {h.kind for h in hits} == {"habit"}
    assert {h.kind for h in store.recall(USER, Q, 10, kinds=["habit", "fact"])} == {
        "habit",
        "fact",
    }


def test_unknown_kind_is_refused(store, sql):
    add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    err = refused(sql, UnknownKind, "PM008", lambda: store.recall(USER, Q, 5, kinds=["habbit"]))
    assert "habbit" in str(err)


def test_min_similarity_excludes_low_similarities(store, sql):
    close = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    mid = add(store, sql, "lives in Berlin", at_cosine(0.6, 0, 2))
    add(store, sql, "plays chess", at_cosine(0.2, 0, 3))
    assert ids(store.recall(USER, Q, 10, min_similarity=0.5)) == [close, mid]
    assert ids(store.recall(USER, Q, 10, min_similarity=0.95)) == []


@pytest.mark.parametrize("at", ["infinity", "-infinity"])
def test_an_infinite_at_is_refused(store, sql, at):
    """At infinity every score is NaN (rate times an infinite age): refused like NULL."""
    store.upsert(USER, "lives in Berlin", Q)
    refused(
        sql,
        Exception,
        "PM006",
        lambda: sql.execute(
            "SELECT * FROM pymem.recall(%s, %s, 5, at => %s::timestamptz)", (USER, Q, at)
        ),
        "finite",
    )


@pytest.mark.parametrize("k", [0, -1, 1001])
def test_k_out_of_range_is_refused(store, sql, k):
    refused(sql, InvalidParameter, "PM006", lambda: store.recall(USER, Q, k))


def test_k_limits_are_accepted(store, sql):
    add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    assert len(store.recall(USER, Q, 1)) == 1
    assert len(store.recall(USER, Q, 1000)) == 1


def test_wrong_dimension_is_refused(store, sql):
    refused(sql, DimensionMismatch, "PM004", lambda: store.recall(USER, unit(0, 511), 5))


@pytest.mark.parametrize("user_id", [None, "", "\t", "u" * 257])
def test_a_bad_user_is_refused_as_by_writes(store, sql, user_id):
    refused(sql, InvalidUserId, "PM001", lambda: store.recall(user_id, Q, 5))


def test_a_nan_min_similarity_is_refused_not_an_empty_answer(store, sql):
    add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    refused(sql, InvalidParameter, "PM006", lambda: store.recall(USER, Q, 5, min_similarity=NAN))


def test_superseded_history_is_never_returned(store, sql):
    old_vec = at_cosine(0.95, 0, 1)
    new_vec = at_cosine(0.8, 0, 2)  # cosine with old_vec: 0.76 -> supersede
    first = store.upsert(USER, "likes green tea", old_vec, topic="drink")
    second = store.upsert(USER, "enjoys oolong", new_vec, topic="drink")
    assert second.action == "superseded", second
    assert second.memory_id == first.memory_id
    history = sql.execute(
        "SELECT content FROM pymem.memory_versions WHERE memory_id = %s", (first.memory_id,)
    ).fetchall()
    assert ("likes green tea",) in history

    for kwargs in ({}, {"query_text": "green tea"}, {"include_cold": True}):
        hits = store.recall(USER, old_vec, 10, **kwargs)
        assert [h.content for h in hits] == ["enjoys oolong"], kwargs


def test_consolidated_fragments_and_deleted_rows_are_never_returned(store, sql):
    # pairwise cosines stay below the supersede threshold: five separate memories
    frag1 = add(store, sql, "sister lives in Lyon", at_cosine(0.8, 0, 1))
    frag2 = add(store, sql, "sister is a nurse", at_cosine(0.75, 0, 2))
    merged = add(store, sql, "sister: nurse in Lyon", at_cosine(0.7, 0, 3))
    gone = add(store, sql, "owns a red bicycle", at_cosine(0.85, 0, 4))
    keep = add(store, sql, "plays chess", at_cosine(0.3, 0, 5))
    sql.execute(
        "UPDATE pymem.memories SET consolidated_into = %s WHERE id = ANY(%s)",
        (merged, [frag1, frag2]),
    )
    sql.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (gone,))
    for kwargs in ({}, {"include_cold": True}, {"query_text": "sister bicycle"}):
        assert ids(store.recall(USER, Q, 10, **kwargs)) == [merged, keep], kwargs


def test_expired_states_are_never_returned(store, sql):
    state = add(store, sql, "is tired", at_cosine(0.9, 0, 1), "state")
    habit = add(store, sql, "sleeps eight hours", at_cosine(0.5, 0, 2), "habit")
    valid_until, now = sql.execute(
        "SELECT valid_until, now() FROM pymem.memories WHERE id = %s", (state,)
    ).fetchone()
    assert valid_until == now + timedelta(days=3)  # the kind's default lifetime

    assert ids(store.recall(USER, Q, 10)) == [state, habit]
    assert ids(store.recall(USER, Q, 10, at=now + timedelta(days=2, hours=23))) == [state, habit]
    for at in (valid_until, now + timedelta(days=4)):
        assert ids(store.recall(USER, Q, 10, at=at)) == [habit]
        assert ids(store.recall(USER, Q, 10, at=at, include_cold=True)) == [habit]

    # a state whose end is already past
    sql.execute(
        "UPDATE pymem.memories SET valid_until = now() - interval '1 hour' WHERE id = %s",
        (state,),
    )
    assert ids(store.recall(USER, Q, 10)) == [habit]
    assert ids(store.recall(USER, Q, 10, kinds=["state"], include_cold=True)) == []


def test_cold_memories_only_with_include_cold(store, sql):
    cold = add(store, sql, "once visited Oslo", at_cosine(0.9, 0, 1), age_days=400)
    hot = add(store, sql, "lives in Berlin", at_cosine(0.5, 0, 2))
    result = store.apply_decay(user_id=USER)
    assert result.cooled == 1
    assert ids(store.recall(USER, Q, 10)) == [hot]
    hits = store.recall(USER, Q, 10, include_cold=True)
    assert set(ids(hits)) == {cold, hot}
    assert {h.memory_id: h.tier for h in hits} == {cold: "cold", hot: "hot"}


# --- 10. temporary states with the real embedder -------------------------------------------

HABIT = "User usually goes to bed at ten"
STATE = "User worked until 3 a.m. last night"
QUESTION = "How did the user sleep last night?"


@pytest.mark.embed
def test_state_overrides_habit_while_valid_then_expires(store, sql, embedder):
    habit_vec, state_vec, question_vec = np.asarray(
        embedder([HABIT, STATE, QUESTION]), dtype=np.float32
    )
    habit = store.upsert(USER, HABIT, habit_vec, "habit")
    state = store.upsert(USER, STATE, state_vec, "state")
    # different kinds: the state never dedups or supersedes the habit
    assert (habit.action, state.action) == ("inserted", "inserted")
    assert habit.memory_id != state.memory_id
    rows = sql.execute(
        "SELECT kind, content FROM pymem.memories WHERE user_id = %s ORDER BY kind", (USER,)
    ).fetchall()
    assert rows == [("habit", HABIT), ("state", STATE)]

    hits = store.recall(USER, question_vec, 5, query_text=QUESTION)
    assert [h.content for h in hits] == [STATE, HABIT]
    assert hits[0].valid_until is not None

    # past the state's lifetime (its text states no end: the kind's)
    later = sql.execute(
        "SELECT now() + default_lifetime + interval '1 hour' FROM pymem.kinds WHERE kind = 'state'"
    ).fetchone()[0]
    hits = store.recall(USER, question_vec, 5, query_text=QUESTION, at=later)
    assert [h.content for h in hits] == [HABIT]

    # the habit is untouched by the state
    assert sql.execute(
        "SELECT content, version, valid_until FROM pymem.memories WHERE id = %s",
        (habit.memory_id,),
    ).fetchone() == (HABIT, 1, None)


@pytest.mark.parametrize(
    ("question", "about_now"),
    [
        ("Is Ravi back at work yet?", True),
        ("Where is Marco staying at the moment?", True),
        ("Is Mei going into the office this week?", True),
        ("What does Ravi do now?", True),
        ("这个月聚餐要不要给王强倒酒？", True),
        ("老周现在在哪儿？", True),
        ("豆豆还在发烧吗？", True),
        # traditional characters read as the simplified ones (pymem._simplified_han)
        ("溫若筠現在人在台灣嗎？", True),
        ("阿明這個禮拜會來嗎？", True),
        ("豆豆還在發燒嗎？", True),
        ("Where does Ravi work?", False),
        ("What kind of deadlines does Kai refuse?", False),
        ("Mei 的研究方向是什么？", False),
    ],
)
def test_a_valid_state_is_lifted_only_for_a_question_about_the_present(
    store, sql, question, about_now
):
    """The job is a little closer to the question than the state; the state's lift
    puts it first when the question asks what holds now, and nowhere else."""
    user = "lift"
    job = store.upsert(user, "Ravi is a senior engineer at Flipkart", unit(0), "fact")
    state = store.upsert(user, "Ravi is on leave until the end of the month", unit(1), "state")
    query = 0.72 * unit(0) + 0.69 * unit(1)
    assert sql.execute("SELECT pymem._asks_about_now(%s, now())", (question,)).fetchone() == (
        about_now,
    )
    hits = store.recall(user, query, k=2, query_text=question)
    first = state if about_now else job
    assert hits[0].memory_id == first.memory_id


def table_scans(sql, table: str) -> tuple[int, int]:
    """The rows sequential scans read of pymem.<table> in this transaction, and its index
    scans, its partitions' included (a store partitioned by user reads a leaf, and may
    rightly read a leaf with nothing in it by a sequential scan)."""
    return sql.execute(
        "SELECT coalesce(sum(s.seq_tup_read), 0)::int, coalesce(sum(s.idx_scan), 0)::int"
        " FROM (SELECT %s::regclass AS relid UNION SELECT relid FROM pg_partition_tree(%s))"
        " AS t JOIN pg_stat_xact_user_tables AS s ON s.relid = t.relid",
        (f"pymem.{table}", f"pymem.{table}"),
    ).fetchone()


def a_user_holding_every_row(sql) -> None:
    """'holder': 60 memories (each of a topic of its own), an open review between every two
    of them, 50 wordings each: every row of those tables, for the statistics' sake."""
    sql.execute(
        "INSERT INTO pymem.memories (user_id, kind, content, embedding, topic)"
        " SELECT 'holder', 'fact', 'note ' || i, array_fill(0.1, ARRAY[%s])::vector, 't' || i"
        " FROM generate_series(1, 60) AS i",
        (DIM,),
    )
    sql.execute(
        "INSERT INTO pymem.reviews (user_id, cause, memory_id, matched_id, similarity)"
        " SELECT 'holder', 'related', a.id, b.id, 0.8 FROM pymem.memories AS a"
        " JOIN pymem.memories AS b ON b.user_id = a.user_id AND b.id <> a.id"
        " WHERE a.user_id = 'holder'"
    )
    sql.execute(
        "INSERT INTO pymem.memory_wordings (user_id, memory_id, content, embedding, content_md5)"
        " SELECT m.user_id, m.id, 'said ' || w, m.embedding, md5(m.content)"
        " FROM pymem.memories AS m, generate_series(1, 50) AS w WHERE m.user_id = 'holder'"
    )


@pytest.mark.parametrize("table", ["reviews", "memory_wordings"])
def test_one_users_many_rows_never_make_another_users_recall_read_the_whole_table(sql, table):
    """recall asks first whether the user has wordings, open reviews or values of a topic,
    planned once for every user. With one user holding every row of such a table (its
    statistics then say any user has them all), an EXISTS read the whole table for any
    other user: 4 ms a question beside 59k open reviews of someone else. Each probe reads
    the first entry of its index, and the weights of a question's words read the user's
    wordings only when there are some; the scans of the table in this transaction say so.
    (The memories themselves are read by a scan a small table may rightly take.)"""
    a_user_holding_every_row(sql)
    sql.execute(f"ANALYZE pymem.{table}")
    add(MemoryStore(sql), sql, "Mei lives in Leeds", unit(0), user="mei")

    for question in (None, "where does Mei live"):
        (read, idx) = table_scans(sql, table)
        sql.execute("SELECT * FROM pymem.recall('mei', %s, 5, %s)", (unit(0), question))
        # one look at the first entry of an index, and no row of the table read in order
        assert table_scans(sql, table) == (read, idx + 1), question


def test_a_user_with_one_wording_reads_only_their_own(sql):
    """The weights of a question's words count the user's wordings too, read from the
    user's memories, a lookup each. (Beside 60,000 wordings of another user, a join from
    the wordings read them all, 34 ms a question: docs/history/benchmarks.md; at this
    test's 3,000 rows no plan reads the table whole, so the scans only say it stays so.)"""
    a_user_holding_every_row(sql)
    sql.execute("ANALYZE pymem.memory_wordings")
    mei = add(MemoryStore(sql), sql, "Mei lives in Leeds", unit(0), user="mei")
    sql.execute(
        "INSERT INTO pymem.memory_wordings (user_id, memory_id, content, embedding, content_md5)"
        " SELECT user_id, id, 'Mei has a flat in Leeds', embedding, md5(content)"
        " FROM pymem.memories WHERE id = %s",
        (mei,),
    )

    (read, _) = table_scans(sql, "memory_wordings")
    (found,) = sql.execute(
        "SELECT lexical FROM pymem.recall('mei', %s, 5, 'where is the flat')", (unit(0),)
    ).fetchall()
    assert found[0] > 0  # "flat", found in the wording
    # none of the other user's 3,000 read in order (a partitioned store may read her own
    # leaf, one row, by each statement that asks)
    assert table_scans(sql, "memory_wordings")[0] - read < 100


def test_at_a_lexical_weight_of_0_a_question_with_words_ranks_by_vector(sql):
    """The words count for nothing at recall_lexical_weight 0 (a weight the settings
    allow): every score was NULL, shown as 0, the order arbitrary."""
    store = MemoryStore(sql)
    add(store, sql, "Mei lives in Leeds", unit(0), user="mei")
    add(store, sql, "Mei drinks green tea", at_cosine(0.5, 0, 1), user="mei")
    sql.execute("UPDATE pymem.settings SET recall_lexical_weight = 0")
    rows = sql.execute(
        "SELECT content, score, lexical FROM pymem.recall('mei', %s, 5, %s)",
        (unit(0), "where does Mei drink tea"),
    ).fetchall()
    assert [r[0] for r in rows] == ["Mei lives in Leeds", "Mei drinks green tea"]
    assert rows[0][1] > rows[1][1] > 0 and all(r[2] == 0 for r in rows)
