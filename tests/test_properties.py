"""Property tests (hypothesis) of the write path's decision rules, each example
in a rolled-back transaction: random upsert sequences never leave two live
memories with the same fingerprint and markers, superseded content is always
in history, and undo restores the exact prior row."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pymem import MemoryStore
from tests.conftest import at_cosine, unit

TEXTS = [
    "Ann likes green tea",
    "Ann really likes green tea!",
    "Ann likes green tea.",
    "Ann does not like green tea",
    "Ann likes black coffee",
    "Ann is learning React",
    "Ann is proficient in React",
    "Ann lives in Paris",
    "Ann lives in Rome",
]
VECTORS = [unit(0), at_cosine(0.97, 0, 1), at_cosine(0.85, 0, 2), at_cosine(0.6, 0, 3), unit(4)]

write = st.tuples(
    st.sampled_from(TEXTS),
    st.sampled_from(range(len(VECTORS))),
    st.sampled_from(["fact", "preference"]),
    st.sampled_from([None, "drink", "city"]),
)
SETTINGS = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize=True,
)
ROW = "content, embedding::text, kind, topic, canonical, details, importance, source, deleted_at"


def _run(conn, writes) -> dict:
    """Apply the writes; check history as it goes; returns every memory's
    contents as seen after each write."""
    store = MemoryStore(conn)
    seen: dict = {}
    for text, v, kind, topic in writes:
        result = store.upsert("ann", text, VECTORS[v], kind, topic=topic)
        current = conn.execute(
            "SELECT content FROM pymem.memories WHERE id = %s", (result.memory_id,)
        ).fetchone()[0]
        before = seen.get(result.memory_id)
        if before is not None and before != current:
            # the content it replaced is in history
            kept = conn.execute(
                "SELECT count(*) FROM pymem.memory_versions WHERE memory_id = %s AND content = %s",
                (result.memory_id, before),
            ).fetchone()[0]
            assert kept >= 1, (result, before, current)
        seen[result.memory_id] = current
    return seen


@SETTINGS
@given(writes=st.lists(write, min_size=1, max_size=6))
def test_no_two_live_memories_share_fingerprint_and_markers(conn, writes):
    with conn.transaction(force_rollback=True):
        _run(conn, writes)
        twins = conn.execute(
            "SELECT kind, fingerprint, pymem._fact_markers(content), array_agg(content)"
            " FROM pymem.memories WHERE user_id = 'ann' AND deleted_at IS NULL"
            " AND consolidated_into IS NULL GROUP BY 1, 2, 3 HAVING count(*) > 1"
        ).fetchall()
        assert twins == []
        # every version of every memory is in history, numbered 1 .. version-1
        gaps = conn.execute(
            "SELECT m.id FROM pymem.memories AS m LEFT JOIN pymem.memory_versions AS v"
            " ON v.user_id = m.user_id AND v.memory_id = m.id GROUP BY m.id, m.version"
            " HAVING count(v.version) <> m.version - 1"
        ).fetchall()
        assert gaps == []


# a same-topic pair first: at least one memory has history to undo
MOVE = [("Ann lives in Paris", 0, "fact", "city"), ("Ann lives in Rome", 1, "fact", "city")]


@SETTINGS
@given(writes=st.lists(write, min_size=0, max_size=5), pick=st.integers(0, 100))
def test_undo_restores_the_exact_prior_row(conn, writes, pick):
    with conn.transaction(force_rollback=True):
        _run(conn, MOVE + writes)
        changed = conn.execute(
            "SELECT id FROM pymem.memories WHERE version > 1 ORDER BY created_at, id"
        ).fetchall()
        assert changed
        (memory_id,) = changed[pick % len(changed)]
        version, previous, embedding = conn.execute(
            "SELECT version, previous, embedding::text FROM pymem.memory_versions"
            " WHERE memory_id = %s ORDER BY version DESC LIMIT 1",
            (memory_id,),
        ).fetchone()
        assert MemoryStore(conn).undo("ann", memory_id) == version
        restored = conn.execute(
            f"SELECT {ROW} FROM pymem.memories WHERE id = %s", (memory_id,)
        ).fetchone()
        expected = (
            previous["content"],
            embedding,
            previous["kind"],
            previous["topic"],
            previous["canonical"],
            previous["details"],
            previous["importance"],
            previous["source"],
            previous["deleted_at"],
        )
        assert restored[:6] == expected[:6]
        assert np.isclose(restored[6], expected[6])
        assert restored[7] == expected[7]
        assert (restored[8] is None) == (expected[8] is None)
        assert json.dumps(restored[5], sort_keys=True) == json.dumps(expected[5], sort_keys=True)
