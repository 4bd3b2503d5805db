"""quality_report: live memories, exact duplicate pairs, reviews, cold and consolidated shares."""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from pymem import MemoryStore
from pymem.cli import main
from pymem.errors import InvalidUserId
from tests.conftest import at_cosine, unit

_START = datetime(2026, 1, 1, tzinfo=timezone.utc)
_clock = (_START + timedelta(seconds=i) for i in itertools.count())


def mem(conn, user, content, embedding, kind="fact", **cols):
    """A memory row inserted directly (the write path would merge duplicates), each one
    created a second after the one before (now() is the transaction's start)."""
    cols.setdefault("created_at", next(_clock))
    names = ["user_id", "kind", "content", "embedding", *cols]
    values = [user, kind, content, np.asarray(embedding, dtype=np.float32), *cols.values()]
    return conn.execute(
        f"INSERT INTO pymem.memories ({', '.join(names)})"
        f" VALUES ({', '.join(['%s'] * len(names))}) RETURNING id",
        values,
    ).fetchone()[0]


def test_an_empty_store_reports_zeros(store):
    r = store.quality_report("nobody")
    assert (r.users, r.live_memories, r.duplicate_pairs, r.duplicate_rate) == (0, 0, 0, 0.0)
    assert (r.cold_share, r.consolidated_share, r.contradiction_rate) == (0.0, 0.0, 0.0)


def test_duplicate_pairs_by_fingerprint_or_cosine_within_one_user_and_kind(store, sql):
    threshold = store.get_settings().dedup_threshold
    user = "q-ann"
    mem(sql, user, "Ann drinks green tea", unit(0))
    # the same normalized text, a distant vector: a pair by fingerprint
    mem(sql, user, "Ann REALLY drinks green tea!", unit(5))
    # cosine just above the threshold: a pair; just below: none
    mem(sql, user, "Ann likes green tea", at_cosine(threshold + 0.01, 0, 1))
    mem(sql, user, "Ann likes black tea", at_cosine(threshold - 0.05, 0, 2))
    # the same text and vector under another kind, another user, or deleted: no pair
    mem(sql, user, "Ann drinks green tea", unit(0), kind="preference")
    mem(sql, "q-bob", "Ann drinks green tea", unit(0))
    mem(sql, user, "Ann drinks green tea", unit(0), deleted_at="2026-01-01")

    r = store.quality_report(user)
    assert r.users == 1 and r.live_memories == 5
    # pairs: tea/REALLY (fingerprint), tea/likes green (cosine), likes green/black? no:
    # at_cosine(t+0.01, 0, 1) . at_cosine(t-0.05, 0, 2) = (t+0.01)(t-0.05) < t
    assert r.duplicate_pairs == 2
    assert r.duplicate_memories == 2
    assert r.duplicate_rate == pytest.approx(2 / 5)

    everyone = store.quality_report()
    assert everyone.users == 2 and everyone.live_memories == 6
    assert everyone.duplicate_pairs == 2


@pytest.mark.parametrize(
    ("first", "second", "pair"),
    [
        ("👍", "👎", False),  # both normalize to nothing
        ("👍", "👍", True),  # the very same string
        ("Ann codes in C++", "Ann codes in C#", False),  # another symbol word
        ("Ann weighs 3.5 kg", "Ann weighs 35 kg", False),  # another value
        ("Ann codes in C#.", "ann codes in C#", True),
    ],
)
def test_a_pair_by_text_is_the_same_text_as_the_write_path_reads_it(
    store, sql, first, second, pair
):
    """Normalizing drops punctuation, symbols and emoji: texts whose fingerprints agree
    are one text only when the write path would merge them by text."""
    user = "q-dan"
    mem(sql, user, first, unit(0))
    mem(sql, user, second, unit(5))
    assert store.quality_report(user).duplicate_pairs == int(pair)


def test_a_memory_with_two_earlier_duplicates_is_one_duplicate_memory(store, sql):
    user = "q-cat"
    for _ in range(3):
        mem(sql, user, "Cat has a dog", unit(3))
    r = store.quality_report(user)
    assert (r.duplicate_pairs, r.duplicate_memories, r.live_memories) == (3, 2, 3)


def test_reviews_conflicts_cold_and_consolidated_shares(store, sql):
    user = "q-dan"
    a = mem(sql, user, "Dan lives in Paris", unit(0))
    b = mem(sql, user, "Dan lives in Rome", unit(1))
    c = mem(sql, user, "Dan checks the weather", unit(2), tier="cold")
    record = mem(sql, user, "Dan's coffee", unit(3))
    for i in range(3):
        mem(sql, user, f"coffee fragment {i}", unit(10 + i), consolidated_into=record)
    store.flag_conflict(user, a, b, "two cities")
    sql.execute(
        "INSERT INTO pymem.reviews (user_id, cause, memory_id, matched_id, similarity)"
        " VALUES (%s, 'related', %s, %s, 0.8)",
        (user, c, a),
    )
    store.set_fact_policy("home_*", "confirm")
    store.set_fact(user, "home_city", "Paris", confidence="high")
    store.set_fact(user, "home_city", "Rome", confidence="high")
    store.set_fact(user, "pet", "cat")

    r = store.quality_report(user)
    assert r.live_memories == 4
    assert r.pending_reviews == 1
    assert r.pending_conflicts == 2  # the flagged pair and the fact
    assert r.contradiction_rate == pytest.approx(store.contradiction_rate(user)) == 0.5
    assert (r.cold_memories, r.cold_share) == (1, 0.25)
    assert (r.consolidated_memories, r.consolidated_share) == (3, pytest.approx(3 / 7))


def test_an_empty_user_id_is_refused(store):
    with pytest.raises(InvalidUserId) as info:
        store.quality_report("  ")
    assert info.value.sqlstate == "PM001"


def test_the_app_role_sees_only_its_user(store, sql):
    mem(sql, "q-ann", "Ann drinks tea", unit(0))
    mem(sql, "q-bob", "Bob drinks tea", unit(0))
    sql.execute("SET LOCAL ROLE pymem_app")
    sql.execute("SELECT set_config('pymem.user_id', 'q-ann', true)")
    r = MemoryStore(sql).quality_report()
    assert (r.users, r.live_memories) == (1, 1)


def test_report_cli(fresh_dsn, capsys):
    with MemoryStore(fresh_dsn) as store:
        store.upsert("ann", "Ann drinks green tea", unit(0))
        store.upsert("ann", "Ann plays chess", unit(1))
    assert main(["--dsn", fresh_dsn, "report", "--user", "ann"]) == 0
    out = capsys.readouterr().out
    assert "live memories" in out and "duplicate" in out and " 2" in out
    assert main(["--dsn", fresh_dsn, "report", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["live_memories"] == 2 and data["duplicate_rate"] == 0.0
