"""recall's filters (metadata containment, a time range, sources): exactly the rows the plain
SQL query with the same conditions ranks first, over the whole ranking, with and without
query_text; bad filters are refused with their codes."""

from __future__ import annotations

import json
from datetime import timedelta

import numpy as np
import psycopg
import pytest

from pymem.errors import InvalidParameter, InvalidSource
from tests.conftest import DIM

USER = "filtered"
N = 700
PROJECTS = ("apollo", "gemini", "mercury")
WORDS = ("launch", "review", "budget", "crew", "orbit", "telemetry", "fuel", "schedule")

# recall's full ranking (k = 1000 > N), once a question
RANKING = "SELECT memory_id FROM pymem.recall(%s, %s, 1000, query_text => %s)"
# the rows that pass the filters, by plain SQL
PASSING = """
SELECT m.id FROM pymem.memories AS m
WHERE m.user_id = %(u)s
    AND (%(f)s::jsonb IS NULL OR m.metadata @> %(f)s::jsonb)
    AND (%(a)s::timestamptz IS NULL OR m.created_at >= %(a)s::timestamptz)
    AND (%(b)s::timestamptz IS NULL OR m.created_at < %(b)s::timestamptz)
    AND (%(s)s::text[] IS NULL OR m.source = ANY(%(s)s::text[]))
"""


@pytest.fixture
def rows(sql):
    rng = np.random.default_rng(37)
    vecs = rng.normal(size=(N, DIM))
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    now = sql.execute("SELECT now()").fetchone()[0]
    values = []
    for i in range(N):
        words = " ".join(rng.choice(WORDS, size=2, replace=False))
        metadata = {"project": PROJECTS[i % 3], "shift": int(rng.integers(0, 3))}
        if i % 5 == 0:
            metadata["tags"] = ["urgent"]
        values.append((
            USER, f"{words} note {i}", vecs[i], float(rng.uniform(0.1, 1)),
            ("inferred", "stated", "confirmed")[int(rng.integers(0, 3))], json.dumps(metadata),
            now - timedelta(days=float(rng.uniform(0, 60))),
            now - timedelta(days=float(rng.uniform(0, 30))),
        ))  # fmt: skip
    with sql.cursor() as cur:
        cur.executemany(
            "INSERT INTO pymem.memories (user_id, kind, content, embedding, importance,"
            " source, metadata, created_at, last_access_at)"
            " VALUES (%s, 'fact', %s, %s, %s, %s, %s, %s, %s)",
            values,
        )
    return rng, now


FILTERS = [
    {},
    {"f": '{"project": "apollo"}'},
    {"f": '{"project": "gemini", "shift": 2}'},
    {"f": '{"tags": ["urgent"]}'},
    {"f": '{"project": "nowhere"}'},
    {"a": 10, "b": 30},
    {"s": ["confirmed"]},
    {"f": '{"project": "mercury"}', "a": 20, "s": ["stated", "inferred"]},
]


def test_filtered_recall_is_the_plain_sql_ranking_restricted(store, sql, rows):
    """For each question, recall's whole ranking once; then, for each filter, the filtered
    recall's top 10 is that ranking's first 10 rows among those plain SQL lets through."""
    rng, now = rows
    for i in range(6):
        q = rng.normal(size=DIM).astype(np.float32)
        q /= np.linalg.norm(q)
        text = f"{WORDS[i]} {WORDS[i + 1]}" if i % 2 else None
        ranking = [r[0] for r in sql.execute(RANKING, (USER, q, text)).fetchall()]
        for wanted in FILTERS:
            after = now - timedelta(days=wanted["b"]) if "b" in wanted else None
            before = now - timedelta(days=wanted["a"]) if "a" in wanted else None
            passing = {
                r[0]
                for r in sql.execute(
                    PASSING,
                    {"u": USER, "f": wanted.get("f"), "a": after, "b": before,
                     "s": wanted.get("s")},
                )
            }  # fmt: skip
            expected = [m for m in ranking if m in passing][:10]
            filt = json.loads(wanted["f"]) if "f" in wanted else None
            hits = store.recall(USER, q, 10, query_text=text, filter=filt, created_after=after,
                                created_before=before, sources=wanted.get("s"))  # fmt: skip
            assert [h.memory_id for h in hits] == expected, (wanted, text)
            if wanted.get("f") == '{"project": "nowhere"}':
                assert hits == []


@pytest.mark.parametrize(
    ("options", "error", "code"),
    [
        ({"filter": ["apollo"]}, InvalidParameter, "PM006"),
        ({"sources": ["rumour"]}, InvalidSource, "PM009"),
    ],
)
def test_bad_filters_are_refused(store, options, error, code):
    with pytest.raises(error) as caught:
        store.recall(USER, np.eye(DIM, dtype=np.float32)[0], 5, **options)
    assert caught.value.sqlstate == code


def test_an_infinite_time_is_refused(sql):
    with pytest.raises(psycopg.Error, match="finite") as caught:
        sql.execute(
            "SELECT * FROM pymem.recall(%s, %s, 5, created_after => '-infinity')",
            (USER, np.eye(DIM, dtype=np.float32)[0]),
        )
    assert caught.value.sqlstate == "PM006"
