"""Decay: pymem.decay_score, touch, apply_decay, run_decay.

decay_score against hand-computed values (leap days, DST, the future, very old
memories) and its use in indexes; touch and its shared code path with a
duplicate upsert; apply_decay's tiers, counts, scopes and batches; run_decay
committing per batch; and apply_decay running alongside writers.

Most tests run in a rolled-back transaction (fixtures ``conn`` / ``store``)
where ``now()`` is frozen; run_decay and the concurrency test commit, so they
take ``fresh_dsn``, a database of their own.
"""

from __future__ import annotations

import math
import random
import threading
import time
from datetime import datetime, timedelta, timezone

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg.conninfo import make_conninfo

from pymem import MemoryStore
from pymem.errors import InvalidParameter, MemoryNotFound
from tests.conftest import DIM, add, at_cosine, unit
from tests.helpers import a_backend_waits_on_a_lock, refused

USER = "alice"
OTHER = "bob"
Q = unit(0)


# --- helpers ------------------------------------------------------------------------------


def row(conn, memory_id) -> dict:
    r = conn.execute(
        "SELECT tier, access_count, mention_count, last_access_at, now()"
        " FROM pymem.memories WHERE id = %s",
        (memory_id,),
    ).fetchone()
    assert r is not None
    return dict(
        zip(("tier", "access_count", "mention_count", "last_access_at", "now"), r, strict=True)
    )


def tiers(conn, user=None) -> dict:
    rows = conn.execute(
        "SELECT id, tier FROM pymem.memories WHERE %(u)s::text IS NULL OR user_id = %(u)s",
        {"u": user},
    ).fetchall()
    return dict(rows)


def decay_sql(conn, importance, rate, last, at) -> float:
    return conn.execute(
        "SELECT pymem.decay_score(%s, %s, %s::timestamptz, %s::timestamptz)",
        (importance, rate, last, at),
    ).fetchone()[0]


def fill(conn, n: int, users=(USER,)) -> None:
    """n memories over many heap pages: ages 0..499 days, importances 0..0.99,
    every kind, some pinned, some with their own decay rate, some states
    expired, some still valid."""
    conn.execute(
        """
        INSERT INTO pymem.memories
            (user_id, kind, content, embedding, importance, decay_rate, pinned,
             last_access_at, valid_until)
        SELECT
            (%(users)s::text[])[1 + g %% cardinality(%(users)s::text[])],
            (ARRAY['fact', 'preference', 'habit', 'state', 'inference', 'goal', 'profile',
                   'event'])[1 + g %% 8],
            'filler memory ' || g,
            (SELECT array_agg(sin(g * 7919 + d)) FROM generate_series(1, 512) AS d)::vector,
            ((g * 37) %% 100) / 100.0,
            CASE WHEN g %% 11 = 0 THEN 0.001 * (g %% 97) END,
            g %% 50 = 0,
            now() - make_interval(days => (g * 13) %% 500),
            CASE WHEN g %% 8 = 3 THEN now() + make_interval(days => (g %% 7) - 3) END
        FROM generate_series(1, %(n)s) AS g
        """,
        {"users": list(users), "n": n},
    )


def expected_cold(conn, at: datetime, cold_below: float = 0.05, user=None) -> set:
    """The hot memories due to go cold at ``at``, computed here in Python."""
    rows = conn.execute(
        "SELECT m.id, m.importance, coalesce(m.decay_rate, k.decay_rate), m.pinned,"
        " extract(epoch FROM m.last_access_at)::float8,"
        " extract(epoch FROM m.valid_until)::float8, extract(epoch FROM %(at)s)::float8"
        " FROM pymem.memories AS m JOIN pymem.kinds AS k ON k.kind = m.kind"
        " WHERE m.tier = 'hot' AND (%(u)s::text IS NULL OR m.user_id = %(u)s)",
        {"at": at, "u": user},
    ).fetchall()
    due = set()
    for mid, importance, rate, pinned, last, valid_until, at_epoch in rows:
        if pinned:
            continue
        score = importance * math.exp(-rate * max(at_epoch - last, 0.0) / 86400.0)
        if (valid_until is not None and valid_until <= at_epoch) or score < cold_below:
            due.add(mid)
    return due


def cold_ids(conn, user=None) -> set:
    return {mid for mid, tier in tiers(conn, user).items() if tier == "cold"}


# --- 1. decay_score -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("importance", "rate", "last", "at", "days"),
    [
        (0.8, 0.05, "2025-01-01 00:00+00", "2025-01-11 00:00+00", 10),
        (0.6, 0.02, "2025-01-01 00:00+00", "2025-01-02 12:00+00", 1.5),
        (1.0, 0.01, "2025-06-01 08:00+00", "2025-06-01 14:00+00", 0.25),
        (0.3, 0.08, "2020-01-01 00:00+00", "2025-01-01 00:00+00", 1827),
        (0.5, 0.0, "2000-01-01 00:00+00", "2025-01-01 00:00+00", 9132),
        # the same instant written in two zones
        (0.9, 0.1, "2025-01-01 00:00+00", "2025-01-01 09:00+09", 0),
    ],
)
def test_decay_score_hand_computed(sql, importance, rate, last, at, days):
    expected = importance * math.exp(-rate * days)
    assert decay_sql(sql, importance, rate, last, at) == pytest.approx(expected, rel=1e-12)


def test_decay_score_from_python_datetimes(store):
    last = datetime(2025, 3, 1, 12, tzinfo=timezone.utc)
    got = store.decay_score(0.7, 0.03, last, last + timedelta(days=20, hours=6))
    assert got == pytest.approx(0.7 * math.exp(-0.03 * 20.25), rel=1e-12)


def test_decay_score_at_last_access_is_the_importance(sql):
    assert decay_sql(sql, 0.42, 0.08, "2025-01-01 10:00+00", "2025-01-01 10:00+00") == 0.42


def test_decay_score_default_at_is_now(sql):
    got = sql.execute("SELECT pymem.decay_score(0.5, 0.01, now() - interval '10 days')").fetchone()
    assert got[0] == pytest.approx(0.5 * math.exp(-0.1), rel=1e-12)


def test_decay_score_of_a_future_last_access_is_the_importance(sql):
    # at before last_access_at: age clamped at 0, never negative
    assert decay_sql(sql, 0.42, 0.08, "2025-01-10 00:00+00", "2025-01-01 00:00+00") == 0.42
    assert decay_sql(sql, 1.0, 0.5, "2100-01-01 00:00+00", "2025-01-01 00:00+00") == 1.0


def test_decay_score_never_exceeds_importance_nor_goes_negative(sql):
    bad = sql.execute(
        """
        SELECT count(*) FROM (
            SELECT random() AS i, random() * 0.2 AS r,
                timestamptz '2025-01-01' + random() * interval '800 days' AS l,
                timestamptz '2025-01-01' + random() * interval '800 days' AS a
            FROM generate_series(1, 5000)
        ) AS s
        WHERE NOT (pymem.decay_score(i, r, l, a) BETWEEN 0 AND i)
            OR (l >= a AND pymem.decay_score(i, r, l, a) <> i)
        """
    ).fetchone()[0]
    assert bad == 0


def test_decay_score_across_a_leap_day_counts_two_days(sql):
    got = decay_sql(sql, 0.9, 0.05, "2024-02-28 12:00+00", "2024-03-01 12:00+00")
    assert got == pytest.approx(0.9 * math.exp(-0.05 * 2), rel=1e-12)


@pytest.mark.parametrize(
    ("last", "at", "hours"),
    [
        ("2024-03-09 12:00 America/New_York", "2024-03-10 12:00 America/New_York", 23),
        ("2024-11-02 12:00 America/New_York", "2024-11-03 12:00 America/New_York", 25),
    ],
)
def test_decay_score_across_dst_counts_real_hours(sql, last, at, hours):
    expected = 0.9 * math.exp(-0.05 * hours / 24)
    assert decay_sql(sql, 0.9, 0.05, last, at) == pytest.approx(expected, rel=1e-12)
    # the session's time zone changes nothing
    sql.execute("SET LOCAL TimeZone = 'America/New_York'")
    local = sql.execute(
        "SELECT pymem.decay_score(0.9, 0.05, %s::timestamptz, %s::timestamptz)",
        (last.removesuffix(" America/New_York"), at.removesuffix(" America/New_York")),
    ).fetchone()[0]
    assert local == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("rate", [0.01, 0.08, 1000.0])
def test_decay_score_of_a_very_old_memory_is_small_and_positive(sql, rate):
    got = sql.execute(
        "SELECT pymem.decay_score(0.5, %s, timestamptz '2025-01-01' - interval '100000 days',"
        " timestamptz '2025-01-01')",
        (rate,),
    ).fetchone()[0]
    assert 0 < got < 1e-300
    assert math.isfinite(got)


def test_decay_score_is_immutable(sql):
    volatility = sql.execute(
        "SELECT provolatile FROM pg_proc WHERE oid = to_regprocedure("
        "'pymem.decay_score(double precision, double precision, timestamptz, timestamptz)')"
    ).fetchone()
    assert volatility == ("i",)


def test_decay_score_in_an_expression_index_and_order_by(store, sql):
    expr = "pymem.decay_score(importance, 0.01, last_access_at, '2026-01-01'::timestamptz)"
    sql.execute("CREATE TEMP TABLE faded (id int, importance float8, last_access_at timestamptz)")
    sql.execute(f"CREATE INDEX faded_decay_idx ON faded ({expr})")
    sql.execute(
        "INSERT INTO faded SELECT g, (g %% 10) / 10.0,"
        " timestamptz '2025-01-01' + make_interval(days => g %% 365)"
        " FROM generate_series(1, %s) AS g",
        (2000,),
    )
    sql.execute("ANALYZE faded")
    query = f"SELECT id FROM faded ORDER BY {expr} DESC, id LIMIT 5"
    with sql.transaction(force_rollback=True):
        sql.execute("SET LOCAL enable_seqscan = off")
        plan = sql.execute(f"EXPLAIN SELECT id FROM faded ORDER BY {expr} DESC LIMIT 5")
        plan = " | ".join(r[0] for r in plan.fetchall())
        assert "faded_decay_idx" in plan, plan
    top = [r[0] for r in sql.execute(query).fetchall()]
    rows = sql.execute("SELECT id, importance, last_access_at FROM faded").fetchall()
    end = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def score(r):
        return r[1] * math.exp(-0.01 * (end - r[2]).total_seconds() / 86400)

    assert top == [r[0] for r in sorted(rows, key=lambda r: (-score(r), r[0]))[:5]]

    # and on the memories table itself
    add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    sql.execute(f"CREATE INDEX memories_decay_test_idx ON pymem.memories ({expr})")
    top = sql.execute(
        f"SELECT content FROM pymem.memories WHERE user_id = %s ORDER BY {expr}", (USER,)
    )
    assert top.fetchall() == [("likes green tea",)]


# --- 6. touch ------------------------------------------------------------------------------


def test_touch_resets_the_clock_counts_and_revives(store, sql):
    mid = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1), age_days=300)
    sql.execute("UPDATE pymem.memories SET tier = 'cold' WHERE id = %s", (mid,))
    before = row(sql, mid)
    assert before["last_access_at"] < before["now"] - timedelta(days=299)

    assert store.touch(USER, [mid]) == 1
    after = row(sql, mid)
    assert after["last_access_at"] == after["now"]
    assert after["access_count"] == before["access_count"] + 1
    assert after["mention_count"] == before["mention_count"]
    assert after["tier"] == "hot"

    assert store.touch(USER, [mid, mid]) == 1
    assert row(sql, mid)["access_count"] == before["access_count"] + 2


def test_touch_of_nothing_returns_zero(store, sql):
    add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    assert store.touch(USER, []) == 0
    assert sql.execute("SELECT pymem.touch(%s, NULL)", (USER,)).fetchone()[0] == 0


def test_touch_of_another_users_or_unknown_memory_is_refused_and_touches_nothing(store, sql):
    mine = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1), age_days=30)
    theirs = add(store, sql, "plays chess", at_cosine(0.9, 0, 2), user=OTHER, age_days=30)
    unknown = "00000000-0000-4000-8000-000000000000"
    before = {m: row(sql, m) for m in (mine, theirs)}
    for ids in ([mine, theirs], [theirs], [mine, unknown], [unknown]):
        err = refused(sql, MemoryNotFound, "PM011", lambda ids=ids: store.touch(USER, ids))
        assert isinstance(err, MemoryNotFound)
        assert {m: row(sql, m) for m in (mine, theirs)} == before


def test_touch_of_a_two_dimensional_array_is_refused(store, sql):
    """A 2-D array of ids is refused (PM006), not an internal 0A000 from inside."""
    mid = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    refused(
        sql,
        psycopg.Error,
        "PM006",
        lambda: sql.execute("SELECT pymem.touch(%s, ARRAY[[%s::uuid]])", (USER, mid)),
        "one-dimensional",
    )


def test_touch_of_a_deleted_memory_is_refused(store, sql):
    mid = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    sql.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (mid,))
    refused(sql, MemoryNotFound, "PM011", lambda: store.touch(USER, [mid]))


def test_touch_of_a_consolidated_fragment_reinforces_its_record(store, sql):
    """A fragment lives on in its record: touching its id reinforced the hidden fragment
    and left the live record to decay. It reinforces the record, as a duplicate does."""
    a = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    b = add(store, sql, "likes tea without sugar", at_cosine(0.9, 0, 2))
    record = store.consolidate(USER, [a, b], "likes green tea, no sugar", unit(0))
    before = {m: row(sql, m)["access_count"] for m in (a, b, record)}
    assert store.touch(USER, [a]) == 1
    after = {m: row(sql, m)["access_count"] for m in (a, b, record)}
    assert after == {a: before[a], b: before[b], record: before[record] + 1}


def test_touch_of_a_fragment_of_a_deleted_record_is_refused(store, sql):
    """A fragment is touched through its record; with the record deleted it is no live
    memory, and touch answered 0 without a word."""
    a = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1))
    b = add(store, sql, "likes tea without sugar", at_cosine(0.9, 0, 2))
    record = store.consolidate(USER, [a, b], "likes green tea, no sugar", unit(0))
    sql.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (record,))
    refused(sql, MemoryNotFound, "PM011", lambda: store.touch(USER, [a]), str(a))


@pytest.mark.parametrize("through", ["touch", "recall"])
def test_a_touch_beside_a_writer_of_the_same_rows_does_not_deadlock(fresh_dsn, through):
    """A writer's transaction reinforces a, a touch of [a, b] (or a recall with touch)
    waits, the writer then reinforces b: without the user's lock the touch held b and
    waited on a, and one of the two was the victim of a deadlock (40P01)."""
    with psycopg.connect(fresh_dsn, autocommit=True) as setup:
        register_vector(setup)
        ids = [
            setup.execute(
                "SELECT memory_id FROM pymem.upsert_memory(%s, %s, %s)", (USER, text, vector)
            ).fetchone()[0]
            for text, vector in (("Bob likes tea", unit(1)), ("Ann likes coffee", unit(0)))
        ]
    outcome: list = []

    def toucher():
        with psycopg.connect(fresh_dsn, autocommit=True) as conn:
            register_vector(conn)
            try:
                if through == "touch":
                    conn.execute("SELECT pymem.touch(%s, %s::uuid[])", (USER, ids[::-1]))
                else:
                    q = (unit(0) + unit(1)) / math.sqrt(2)
                    conn.execute(
                        "SELECT count(*) FROM pymem.recall(%s, %s, 2, touch => true)", (USER, q)
                    )
                outcome.append("ok")
            except psycopg.Error as exc:
                outcome.append(exc)

    with (
        psycopg.connect(fresh_dsn) as writer,
        psycopg.connect(fresh_dsn, autocommit=True) as watcher,
    ):
        register_vector(writer)
        writer.execute("SELECT * FROM pymem.upsert_memory(%s, 'Ann likes coffee', %s)",
                       (USER, unit(0)))  # fmt: skip
        thread = threading.Thread(target=toucher)
        thread.start()
        waiting = a_backend_waits_on_a_lock(watcher)
        assert waiting, "the touch never waited"
        writer.execute("SELECT * FROM pymem.upsert_memory(%s, 'Bob likes tea', %s)",
                       (USER, unit(1)))  # fmt: skip
        writer.commit()
    thread.join(timeout=30)
    assert outcome == ["ok"]


def test_recall_with_touch_touches_exactly_the_returned_rows(store, sql):
    made = [
        add(store, sql, text, at_cosine(c, 0, 1 + i), age_days=20)
        for i, (text, c) in enumerate(
            [("lives in Berlin", 0.9), ("likes green tea", 0.7), ("plays chess", 0.5),
             ("owns a cat", 0.3), ("cycles to work", 0.1)]
        )
    ]  # fmt: skip
    before = {m: row(sql, m) for m in made}
    hits = store.recall(USER, Q, 2, touch=True)
    assert [h.memory_id for h in hits] == made[:2]
    for m in made[:2]:
        after = row(sql, m)
        assert after["access_count"] == before[m]["access_count"] + 1
        assert after["last_access_at"] == after["now"]
    for m in made[2:]:
        assert row(sql, m) == before[m]
    # recall without touch changes nothing
    store.recall(USER, Q, 5)
    assert row(sql, made[4]) == before[made[4]]


def test_duplicate_upsert_revives_a_cold_memory(store, sql):
    mid = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1), age_days=400)
    assert store.apply_decay(user_id=USER).cooled == 1
    assert row(sql, mid)["tier"] == "cold"
    again = store.upsert(USER, "likes green tea", at_cosine(0.9, 0, 1))
    assert (again.action, again.memory_id) == ("duplicate", mid)
    after = row(sql, mid)
    assert after["tier"] == "hot"
    assert after["last_access_at"] == after["now"]
    assert after["mention_count"] == 2
    assert [h.memory_id for h in store.recall(USER, Q, 5)] == [mid]


# --- 7. apply_decay ------------------------------------------------------------------------


def test_apply_decay_moves_faded_memories_to_cold(store, sql):
    # 0.5 * exp(-0.01 * d) crosses 0.05 at d = 230.26 days
    fresh = add(store, sql, "lives in Berlin", at_cosine(0.9, 0, 1))
    above = add(store, sql, "likes green tea", at_cosine(0.8, 0, 2), age_days=229)
    below = add(store, sql, "plays chess", at_cosine(0.7, 0, 3), age_days=232)
    strong = add(store, sql, "was born in Lisbon", at_cosine(0.6, 0, 4), importance=1.0,
                 age_days=200)  # fmt: skip
    own_rate = add(store, sql, "owns a cat", at_cosine(0.5, 0, 5), decay_rate=0.5, age_days=10)
    pinned = add(store, sql, "is allergic to nuts", at_cosine(0.4, 0, 6), importance=0.01,
                 pinned=True, age_days=3650)  # fmt: skip
    expired = add(store, sql, "is tired today", at_cosine(0.3, 0, 7), "state", importance=1.0)
    sql.execute(
        "UPDATE pymem.memories SET valid_until = now() - interval '1 minute' WHERE id = %s",
        (expired,),
    )
    valid_state = add(store, sql, "is on holiday", at_cosine(0.2, 0, 8), "state", importance=1.0)
    count_before = sql.execute("SELECT count(*) FROM pymem.memories").fetchone()[0]

    result = store.apply_decay(user_id=USER)
    assert (result.scanned, result.cooled, result.cold_total) == (8, 3, 3)
    assert tiers(sql, USER) == {
        fresh: "hot", above: "hot", below: "cold", strong: "hot", own_rate: "cold",
        pinned: "hot", expired: "cold", valid_state: "hot",
    }  # fmt: skip
    # cold memories are kept
    assert sql.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] == count_before

    # again: only the hot ones are scanned, nothing more to do
    again = store.apply_decay(user_id=USER)
    assert (again.scanned, again.cooled, again.cold_total) == (5, 0, 3)


def test_apply_decay_at_a_later_time_and_another_threshold(store, sql):
    a = add(store, sql, "lives in Berlin", at_cosine(0.9, 0, 1), age_days=40)  # 0.335
    b = add(store, sql, "likes green tea", at_cosine(0.8, 0, 2), age_days=60)  # 0.274
    result = store.apply_decay(cold_below=0.3, user_id=USER)
    assert (result.cooled, tiers(sql, USER)) == (1, {a: "hot", b: "cold"})

    # a fresh memory fades by then: 0.5 * exp(-0.01 * 300) = 0.025
    c = add(store, sql, "plays chess", at_cosine(0.7, 0, 3))
    later = sql.execute("SELECT now() + interval '300 days'").fetchone()[0]
    result = store.apply_decay(at=later, user_id=USER)
    assert result.cooled == 2
    assert tiers(sql, USER) == {a: "cold", b: "cold", c: "cold"}


def test_pinned_memory_never_goes_cold(store, sql):
    mid = add(store, sql, "is allergic to nuts", at_cosine(0.9, 0, 1), importance=0.01,
              pinned=True, age_days=3650)  # fmt: skip
    far = sql.execute("SELECT now() + interval '100 years'").fetchone()[0]
    for at in (None, far):
        assert store.apply_decay(at=at, cold_below=1.0, user_id=USER).cooled == 0
        store.apply_decay(at=at, cold_below=1.0)
        assert row(sql, mid)["tier"] == "hot"


def test_decay_counts_and_cools_live_memories_only(store, sql):
    """A deleted memory and a hidden fragment are in no tier anyone reads: decay
    scanned, cooled and counted them (3 cold where get_memories and quality_report
    saw 1)."""
    kept = add(store, sql, "likes green tea", unit(0))
    gone = add(store, sql, "likes oolong", unit(1))
    a = add(store, sql, "plays chess on sundays", unit(2))
    b = add(store, sql, "plays chess in the park", unit(3))
    record = store.consolidate(USER, [a, b], "plays chess on sundays in the park", unit(2))
    sql.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (gone,))
    far = sql.execute("SELECT now() + interval '20 years'").fetchone()[0]
    result = store.apply_decay(at=far, user_id=USER)
    assert (result.scanned, result.cooled, result.cold_total) == (2, 2, 2)
    tiers = dict(sql.execute("SELECT id, tier FROM pymem.memories WHERE user_id = %s", (USER,)))
    assert tiers == {kept: "cold", record: "cold", gone: "hot", a: "hot", b: "hot"}
    assert store.quality_report(USER).cold_memories == result.cold_total


def test_apply_decay_with_user_id_only_touches_that_user(store, sql):
    mine = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1), age_days=400)
    theirs = add(store, sql, "likes green tea", at_cosine(0.9, 0, 1), user=OTHER, age_days=400)
    result = store.apply_decay(user_id=USER)
    assert (result.scanned, result.cooled, result.cold_total) == (1, 1, 1)
    assert tiers(sql, USER) == {mine: "cold"}
    assert tiers(sql, OTHER) == {theirs: "hot"}


def test_apply_decay_over_the_whole_table(store, sql):
    fill(sql, 200, users=(USER, OTHER, "carol"))
    at = sql.execute("SELECT now() + interval '3 days'").fetchone()[0]
    hot_before = sql.execute("SELECT count(*) FROM pymem.memories WHERE tier = 'hot'").fetchone()[0]
    cold_before = cold_ids(sql)
    due = expected_cold(sql, at)
    assert 20 < len(due) < 180  # a real mix
    result = store.apply_decay(at=at)
    assert result.scanned == hot_before
    assert result.cooled == len(due)
    assert cold_ids(sql) == cold_before | due
    assert result.cold_total == len(cold_before | due)


@pytest.mark.parametrize("cold_below", [-0.01, 1.01, float("nan")])
def test_cold_below_outside_zero_one_is_refused(store, sql, cold_below):
    refused(sql, InvalidParameter, "PM006", lambda: store.apply_decay(cold_below=cold_below))


def test_a_null_cold_below_is_refused_as_null(sql):
    """It said "got NaN", a value nobody passed."""
    refused(
        sql, psycopg.Error, "PM006",
        lambda: sql.execute("SELECT * FROM pymem.apply_decay(cold_below => NULL)"),
        "got NULL",
    )  # fmt: skip


@pytest.mark.parametrize("at", ["infinity", "-infinity"])
def test_an_infinite_at_is_refused_not_the_whole_store_cooled(store, sql, at):
    """At infinity every memory has decayed: one call would move every user's memories to
    the cold tier. Refused like NULL (PM006), nothing changed."""
    fill(sql, 20, users=(USER, OTHER))
    refused(
        sql,
        psycopg.Error,
        "PM006",
        lambda: sql.execute("SELECT * FROM pymem.apply_decay(at => %s::timestamptz)", (at,)),
        "finite",
    )
    assert sql.execute("SELECT count(*) FROM pymem.memories WHERE tier = 'cold'").fetchone() == (0,)


def test_a_huge_finite_decay_rate_does_not_stop_decay_for_everyone(store, sql):
    """Any finite rate >= 0 is accepted; 1e308 times an age in seconds overflowed float8,
    and that one row made apply_decay, run_decay and its user's recall fail (22003) for
    every user. The rate is clamped inside decay_score: the memory just decays at once."""
    fast = store.upsert(USER, "burns fast", unit(20), decay_rate=1e308).memory_id
    slow = add(store, sql, "lives in Berlin", at_cosine(0.3, 0, 2))
    later = sql.execute("SELECT now() + interval '1 day'").fetchone()[0]
    result = store.apply_decay(at=later)
    assert result.cooled == 1
    assert tiers(sql, USER) == {fast: "cold", slow: "hot"}
    hits = store.recall(USER, unit(20), 5, at=later, include_cold=True)
    assert {h.memory_id: h.decay_score for h in hits}[fast] < 1e-300  # exp(-700), the floor


def test_batch_blocks_below_one_is_refused(store, sql):
    refused(sql, InvalidParameter, "PM006", lambda: store.apply_decay(batch_blocks=0))


def test_cold_revive_cycle(store, sql):
    mid = add(store, sql, "once visited Oslo", at_cosine(0.9, 0, 1), age_days=400)
    other = add(store, sql, "lives in Berlin", at_cosine(0.3, 0, 2))
    now = row(sql, mid)["now"]

    assert store.apply_decay(at=now, user_id=USER).cooled == 1
    assert row(sql, mid)["tier"] == "cold"
    assert [h.memory_id for h in store.recall(USER, Q, 5)] == [other]
    assert [h.memory_id for h in store.recall(USER, Q, 5, include_cold=True)] == [mid, other]

    assert store.touch(USER, [mid]) == 1
    assert [h.memory_id for h in store.recall(USER, Q, 5)] == [mid, other]

    # touch reset the clock to now(): the same decay run leaves it hot
    result = store.apply_decay(at=now, user_id=USER)
    assert (result.cooled, result.cold_total) == (0, 0)
    assert row(sql, mid)["tier"] == "hot"


@pytest.mark.parametrize("batch_blocks", [1, 7])
def test_small_batches_give_the_same_result_as_the_default(fresh_dsn, batch_blocks):
    """Batches cover the whole table exactly once. A database of its own keeps
    the table small (the shared one carries the dead rows of other tests)."""
    with psycopg.connect(fresh_dsn) as sql:
        store = MemoryStore(sql)
        fill(sql, 300)
        # the table's heap, or the sum of its leaves' on a partitioned store
        pages = sql.execute(
            "SELECT coalesce(sum(pg_relation_size(t.relid)) FILTER (WHERE t.isleaf),"
            " pg_relation_size('pymem.memories')) / current_setting('block_size')::bigint"
            " FROM pg_partition_tree('pymem.memories') AS t"
        ).fetchone()[0]
        assert pages > 3 * batch_blocks  # several batches
        at = sql.execute("SELECT now() + interval '1 day'").fetchone()[0]
        due = expected_cold(sql, at)
        hot_before = sql.execute(
            "SELECT count(*) FROM pymem.memories WHERE tier = 'hot'"
        ).fetchone()[0]

        with sql.transaction(force_rollback=True):
            small = store.apply_decay(at=at, batch_blocks=batch_blocks)
            small_cold = cold_ids(sql)
        default = store.apply_decay(at=at)
        assert small == default
        assert small_cold == cold_ids(sql)
        # every row scanned exactly once
        assert default.scanned == hot_before == 300
        assert default.cooled == len(due) > 0
        sql.rollback()


# --- 8. run_decay --------------------------------------------------------------------------


def test_run_decay_commits_per_batch_with_apply_decays_counts(fresh_dsn):
    with psycopg.connect(fresh_dsn) as c:
        register_vector(c)
        fill(c, 300, users=(USER, OTHER))
        c.commit()
        at = c.execute("SELECT now() + interval '2 days'").fetchone()[0]
        due = expected_cold(c, at)
        c.rollback()
        expected = MemoryStore(c).apply_decay(at=at)
        expected_set = cold_ids(c)
        c.rollback()
    assert expected.cooled == len(due) > 0
    assert expected_set == due

    with MemoryStore(fresh_dsn) as store:
        got = store.run_decay(at=at, batch_blocks=2)
        assert got == expected
        again = store.run_decay(at=at)
        assert (again.scanned, again.cooled, again.cold_total) == (
            expected.scanned - expected.cooled,
            0,
            expected.cold_total,
        )
    with psycopg.connect(fresh_dsn) as c:
        assert cold_ids(c) == expected_set


# --- 9. apply_decay alongside writers ------------------------------------------------------

CONCURRENT_USERS = [f"user-{i}" for i in range(4)]
WRITERS = 4


def _old_batch(conn, batch: int, size: int) -> list[tuple[str, object]]:
    """Commit ``size`` hot memories last accessed 400 days ago (due to go cold)."""
    return conn.execute(
        """
        INSERT INTO pymem.memories (user_id, kind, content, embedding, last_access_at)
        SELECT (%(users)s::text[])[1 + g %% 4], 'fact', 'old memory ' || %(b)s || '-' || g,
            (SELECT array_agg(sin(g * 104729 + %(b)s * 7 + d))
             FROM generate_series(1, 512) AS d)::vector,
            now() - interval '400 days'
        FROM generate_series(1, %(n)s) AS g
        RETURNING user_id, id
        """,
        {"users": CONCURRENT_USERS, "b": batch, "n": size},
    ).fetchall()


def test_apply_decay_alongside_writers(fresh_dsn):
    """Batches of old memories keep arriving; apply_decay runs in a loop while
    four writers upsert new memories and touch old ones of the same users,
    mostly the newest batch, which decay is scanning at that very moment.
    Decay must skip what a writer holds and re-check what a writer revived:
    no error, no deadlock, every touched memory ends hot."""
    dsn = make_conninfo(fresh_dsn, options="-c statement_timeout=20000")
    stop = threading.Event()
    lock = threading.Lock()
    errors: list[BaseException] = []
    # batches[b][writer][user] -> ids that writer may touch; odd rows are never touched
    batches: list[list[dict]] = []
    created: list = []
    touched: list[set] = [set() for _ in range(WRITERS)]
    inserted = [0] * WRITERS
    decay_runs = [0]

    def publish(rows) -> None:
        share = [{u: [] for u in CONCURRENT_USERS} for _ in range(WRITERS)]
        for n, (user_id, mid) in enumerate(rows):
            if n % 2 == 0:
                share[(n // 8) % WRITERS][user_id].append(mid)
        with lock:
            created.extend(mid for _, mid in rows)
            batches.append(share)

    def decay() -> None:
        try:
            with MemoryStore(dsn) as store:
                while not stop.is_set():
                    store.apply_decay()
                    decay_runs[0] += 1
        except BaseException as exc:
            errors.append(exc)

    def writer(i: int) -> None:
        rng = random.Random(i)
        vec_rng = np.random.default_rng(i)
        try:
            with MemoryStore(dsn) as store:
                n = 0
                while not stop.is_set():
                    user = rng.choice(CONCURRENT_USERS)
                    if rng.random() < 0.2:
                        v = vec_rng.normal(size=DIM).astype(np.float32)
                        result = store.upsert(user, f"writer {i} item {n}", v)
                        assert result.action == "inserted", result
                        inserted[i] += 1
                    else:
                        with lock:
                            b = (
                                len(batches) - 1
                                if rng.random() < 0.8
                                else rng.randrange(len(batches))
                            )
                            pool = batches[b][i][user]
                        ids = rng.sample(pool, min(len(pool), rng.randint(1, 3)))
                        assert store.touch(user, ids) == len(ids)
                        touched[i].update(ids)
                    n += 1
        except BaseException as exc:
            errors.append(exc)

    with psycopg.connect(dsn, autocommit=True) as feeder:
        publish(_old_batch(feeder, 0, 800))
        threads = [threading.Thread(target=writer, args=(i,)) for i in range(WRITERS)]
        threads.append(threading.Thread(target=decay))
        for t in threads:
            t.start()
        for b in range(1, 4):
            time.sleep(0.2)
            publish(_old_batch(feeder, b, 800))
        # run until enough work was done, however loaded the machine is (each
        # writer touches only its own share, so the sets are disjoint), and a
        # decay run has started and ended after the last batch arrived
        runs_before_last = decay_runs[0]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (
            sum(len(t) for t in touched) <= 300 or decay_runs[0] < max(4, runs_before_last + 2)
        ):
            time.sleep(0.1)
        stop.set()
        for t in threads:
            t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "a thread hangs: deadlock?"
    assert errors == []
    assert decay_runs[0] >= 4

    all_touched = set().union(*touched)
    assert len(all_touched) > 300
    with psycopg.connect(fresh_dsn) as c:
        state = tiers(c)
        total = c.execute("SELECT count(*) FROM pymem.memories").fetchone()[0]
    assert total == len(created) + sum(inserted)
    assert sorted(str(m) for m in all_touched if state[m] != "hot") == []
    # decay did its work on what nobody touched
    untouched = set(created) - all_touched
    assert len(untouched) >= len(created) // 2
    assert all(state[m] == "cold" for m in untouched)


def test_apply_decay_skips_a_row_a_writer_holds(fresh_dsn):
    """A writer's open transaction has touched a due memory: apply_decay does
    not wait for it and does not cool it; once the writer commits it is hot."""
    dsn = make_conninfo(fresh_dsn, options="-c lock_timeout=2000")
    with psycopg.connect(dsn, autocommit=True) as setup:
        (user, held), (_, free) = _old_batch(setup, 0, 2)
    with psycopg.connect(dsn) as writer, MemoryStore(dsn) as decayer:
        assert MemoryStore(writer).touch(user, [held]) == 1  # not committed yet
        started = time.monotonic()
        result = decayer.apply_decay()
        assert time.monotonic() - started < 1.5
        assert result.cooled == 1
        writer.commit()
    with psycopg.connect(fresh_dsn) as c:
        assert tiers(c) == {held: "hot", free: "cold"}
