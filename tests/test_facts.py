"""Facts and contradictions: versioned facts, conflict policies, flagged
free-text conflicts, undo (docs/sql-api.md "Facts and contradictions")."""

from __future__ import annotations

import itertools
import json
import threading
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from pymem import MemoryStore, errors
from pymem.cli import main
from tests.conftest import unit
from tests.helpers import THREADS, run_together

USER = "ann"
# the timeline of the as-of tests: well in the past, one day apart
T = [datetime.now(UTC).replace(microsecond=0) - timedelta(days=30 - i) for i in range(10)]


def set_at(conn, key, value, at, *, confidence=0.6, scope="habit", source="stated",
           valid_until=None, user=USER):  # fmt: skip
    """set_fact as if stated at ``at`` (the private core the public forms call)."""
    return conn.execute(
        "SELECT pymem._set_fact(%s, %s, %s::jsonb, %s, %s, %s, %s, %s)",
        (user, key, json.dumps(value), confidence, scope, source, valid_until, at),
    ).fetchone()[0]


def fact_row(conn, key, scope="habit", user=USER) -> dict:
    with conn.cursor(row_factory=psycopg.rows.dict_row) as cur:
        return cur.execute(
            "SELECT * FROM pymem.facts WHERE user_id = %s AND key = %s AND scope = %s",
            (user, key, scope),
        ).fetchone()


def history(store, key, user=USER) -> list[tuple]:
    return [(h.scope, h.value, h.reason) for h in store.fact_history(user, key)]


def open_reviews(conn, cause, user=USER) -> list[dict]:
    with conn.cursor(row_factory=psycopg.rows.dict_row) as cur:
        return cur.execute(
            "SELECT * FROM pymem.reviews WHERE user_id = %s AND cause = %s AND resolved_at IS NULL",
            (user, cause),
        ).fetchall()


# --- actions ---------------------------------------------------------------------------


def test_city_moves_from_hangzhou_to_shanghai_with_history(store):
    assert store.set_fact(USER, "user_city", "Hangzhou") == "set"
    assert store.set_fact(USER, "user_city", "Hangzhou") == "unchanged"
    assert store.set_fact(USER, "user_city", "Shanghai") == "replaced"
    assert store.get_fact(USER, "user_city") == "Shanghai"
    assert history(store, "user_city") == [
        ("habit", "Hangzhou", "replaced"),
        ("habit", "Shanghai", "current"),
    ]
    old, cur = store.fact_history(USER, "user_city")
    assert old.replaced_at == cur.set_at and cur.replaced_at is None
    assert store.get_fact(USER, "unknown_key") is None


def test_history_lists_values_in_the_order_they_arrived(store, conn):
    """A candidate rejected while A was current is archived before A is: the history still
    lists A first (it was set first), then the rejected one, the current value last."""
    assert set_at(conn, "city", "A", T[0], confidence=0.6) == "set"
    assert set_at(conn, "city", "B", T[1], confidence=0.3) == "rejected"
    assert set_at(conn, "city", "C", T[2], confidence=0.6) == "replaced"
    assert history(store, "city") == [
        ("habit", "A", "replaced"),
        ("habit", "B", "rejected"),
        ("habit", "C", "current"),
    ]


def test_an_exact_key_policy_wins_over_a_pattern_of_the_same_length(store):
    """'*likes_os' and 'likes_os' have the same literal part: the exact key is the more
    specific policy ('*' sorted first and the pattern won)."""
    store.set_fact_policy("likes_os", "latest_wins")
    store.set_fact_policy("*likes_os", "confirm")
    assert store.set_fact(USER, "likes_os", "Windows") == "set"
    assert store.set_fact(USER, "likes_os", "Mac") == "replaced"
    assert store.set_fact(USER, "my_likes_os", "Windows") == "set"
    assert store.set_fact(USER, "my_likes_os", "Mac") == "conflict"


def test_a_newer_candidate_renames_the_pair_the_review_asks_about(store, conn):
    """Under confirm a further candidate replaces the pending one; the open review's note
    named the first candidate, so a reviewer was asked about a pair no longer waiting."""
    store.set_fact_policy("likes_os", "confirm")
    store.set_fact(USER, "likes_os", "Windows")
    assert store.set_fact(USER, "likes_os", "Mac") == "conflict"
    assert store.set_fact(USER, "likes_os", "Linux") == "conflict"
    (pending,) = store.pending_conflicts(USER)
    assert pending.candidate_value == "Linux"
    assert '"Linux"' in pending.note and '"Mac"' not in pending.note
    (review,) = store.pending_reviews(USER)
    assert review.note == pending.note


@pytest.mark.parametrize("answer", ["calm", "tired", "happy"])
def test_an_answer_to_a_conflict_whose_values_expired_is_believed(store, conn, answer):
    """A state conflict left unanswered until both values expired: it no longer waits (not
    listed, not a contradiction), and an answer given anyway is believed from now on for a
    state's lifetime (it was stored with the old, past end: get_fact said nothing)."""
    store.set_fact_policy("mood", "confirm")
    hour = timedelta(hours=1)
    assert set_at(conn, "mood", "tired", T[0], scope="state", valid_until=T[0] + hour) == "set"
    later = T[0] + timedelta(minutes=10)
    assert set_at(conn, "mood", "happy", later, scope="state", valid_until=later + hour) == (
        "conflict"
    )
    assert store.pending_conflicts(USER) == []
    assert [r.cause for r in store.pending_reviews(USER)] == []
    assert store.contradiction_rate(USER) == 0.0
    assert store.resolve_conflict(USER, "mood", answer) in ("kept", "replaced")
    assert store.get_fact(USER, "mood") == answer
    (fact,) = store.current_facts(USER)
    (ends,) = conn.execute(
        "SELECT now() + default_lifetime FROM pymem.kinds WHERE kind = 'state'"
    ).fetchone()  # the answer's instant: the test's transaction is the store's
    assert fact.valid_until == ends


def test_unchanged_only_raises_confidence_and_source(store, conn):
    store.set_fact(USER, "diet", "vegetarian", confidence="high", source="confirmed")
    assert store.set_fact(USER, "diet", "vegetarian", confidence="low", source="inferred") == (
        "unchanged"
    )
    row = fact_row(conn, "diet")
    assert (row["confidence"], row["source"]) == (0.9, "confirmed")
    store.set_fact(USER, "pet", "cat", confidence="low", source="inferred")
    store.set_fact(USER, "pet", "cat", confidence=0.95, source="stated")
    row = fact_row(conn, "pet")
    assert (row["confidence"], row["source"]) == (0.95, "stated")
    assert history(store, "pet") == [("habit", "cat", "current")]


@pytest.mark.parametrize("policy", ["latest_wins", "confirm"])
def test_lower_confidence_never_overrides(store, conn, policy):
    store.set_fact_policy("user_city", policy)
    store.set_fact(USER, "user_city", "Shanghai", confidence="high")
    assert store.set_fact(USER, "user_city", "Beijing", confidence="low") == "rejected"
    assert store.set_fact(USER, "user_city", "Beijing", confidence=0.89) == "rejected"
    assert store.get_fact(USER, "user_city") == "Shanghai"
    assert history(store, "user_city") == [
        ("habit", "Beijing", "rejected"),
        ("habit", "Beijing", "rejected"),
        ("habit", "Shanghai", "current"),
    ]
    assert fact_row(conn, "user_city")["conflict_pending"] is False
    assert open_reviews(conn, "fact") == []


def test_equal_or_higher_confidence_replaces_under_latest_wins(store):
    store.set_fact(USER, "job", "teacher", confidence="low")
    assert store.set_fact(USER, "job", "engineer", confidence="low") == "replaced"
    assert store.set_fact(USER, "job", "doctor", confidence="high") == "replaced"
    assert store.get_fact(USER, "job") == "doctor"
    assert [h.reason for h in store.fact_history(USER, "job")] == [
        "replaced",
        "replaced",
        "current",
    ]


# --- confirm policy and conflicts ----------------------------------------------------------


def test_windows_vs_mac_under_confirm_waits_for_the_user(store, conn):
    assert store.set_fact_policy("likes_*", "confirm") == "confirm"
    assert store.set_fact(USER, "likes_os", "Windows", confidence="high") == "set"
    assert store.set_fact(USER, "likes_os", "Mac", confidence="high") == "conflict"
    # the value held before the conflict is still the answer
    assert store.get_fact(USER, "likes_os") == "Windows"
    row = fact_row(conn, "likes_os")
    assert row["conflict_pending"] is True
    assert (row["pending_value"], row["pending_confidence"]) == ("Mac", 0.9)
    (review,) = open_reviews(conn, "fact")
    assert review["fact_key"] == "likes_os"
    (pending,) = store.pending_conflicts(USER)
    assert (pending.cause, pending.fact_key, pending.value, pending.candidate_value) == (
        "fact",
        "likes_os",
        "Windows",
        "Mac",
    )
    assert pending.review_id == review["id"]
    assert store.contradiction_rate(USER) == 1.0

    # the same candidate again, and a third value: still one open review
    assert store.set_fact(USER, "likes_os", "Mac", confidence="high") == "conflict"
    assert store.set_fact(USER, "likes_os", "Linux", confidence=0.95) == "conflict"
    assert len(open_reviews(conn, "fact")) == 1
    assert fact_row(conn, "likes_os")["pending_value"] == "Linux"

    assert store.resolve_conflict(USER, "likes_os", "Mac") == "replaced"
    assert store.get_fact(USER, "likes_os") == "Mac"
    row = fact_row(conn, "likes_os")
    assert (row["conflict_pending"], row["source"], row["confidence"]) == (False, "confirmed", 1.0)
    assert row["pending_value"] is None
    assert open_reviews(conn, "fact") == []
    decision = conn.execute(
        "SELECT decision FROM pymem.reviews WHERE user_id = %s AND fact_key = 'likes_os'",
        (USER,),
    ).fetchone()
    assert decision == ("confirmed",)
    assert history(store, "likes_os") == [
        ("habit", "Mac", "conflict"),
        ("habit", "Linux", "conflict"),
        ("habit", "Windows", "resolved"),
        ("habit", "Mac", "current"),
    ]
    assert store.pending_conflicts(USER) == []
    assert store.contradiction_rate(USER) == 0.0


def test_resolve_with_the_current_value_keeps_it_confirmed(store, conn):
    store.set_fact_policy("likes_os", "confirm")
    store.set_fact(USER, "likes_os", "Windows", confidence="high")
    store.set_fact(USER, "likes_os", "Mac", confidence="high")
    assert store.resolve_conflict(USER, "likes_os", "Windows") == "kept"
    row = fact_row(conn, "likes_os")
    assert (row["value"], row["source"], row["conflict_pending"]) == ("Windows", "confirmed", False)
    assert history(store, "likes_os") == [
        ("habit", "Mac", "conflict"),
        ("habit", "Windows", "current"),
    ]
    # a confirmed value now wins over nothing less than a new conflict
    assert store.set_fact(USER, "likes_os", "Mac", confidence=1.0) == "conflict"


def test_a_confirmed_answer_replaces_without_asking(store):
    store.set_fact_policy("likes_os", "confirm")
    store.set_fact(USER, "likes_os", "Windows", confidence="high")
    store.set_fact(USER, "likes_os", "Mac", confidence="high")
    assert store.set_fact(USER, "likes_os", "Mac", confidence="high", source="confirmed") == (
        "replaced"
    )
    assert store.pending_conflicts(USER) == []
    assert store.get_fact(USER, "likes_os") == "Mac"


def test_resolve_without_a_pending_conflict_is_refused(store, conn):
    store.set_fact(USER, "user_city", "Shanghai")
    with (
        pytest.raises(errors.NoPendingConflict, match="no pending conflict on fact 'user_city'"),
        conn.transaction(),
    ):
        store.resolve_conflict(USER, "user_city", "Beijing")
    assert store.get_fact(USER, "user_city") == "Shanghai"


def test_fact_conflict_is_announced_once(fresh_dsn):
    with (
        psycopg.connect(fresh_dsn, autocommit=True) as listener,
        MemoryStore(fresh_dsn) as store,
    ):
        listener.execute("LISTEN pymem_events")
        store.set_fact_policy("likes_os", "confirm")
        store.set_fact(USER, "likes_os", "Windows", confidence="high")
        store.set_fact(USER, "likes_os", "Mac", confidence="high")
        store.set_fact(USER, "likes_os", "Linux", confidence="high")
        events = [json.loads(n.payload) for n in listener.notifies(timeout=0.5)]
    assert [(e["event"], e["cause"]) for e in events] == [("conflict_flagged", "fact")]
    # ids, never content: any role may LISTEN (docs/sql-api.md)
    assert "likes_os" not in json.dumps(events)


# --- policies --------------------------------------------------------------------------


def test_policy_patterns_most_specific_wins(store, conn):
    store.set_fact_policy("*", "confirm")
    store.set_fact_policy("likes_*", "latest_wins")
    store.set_fact_policy("likes_os", "confirm")

    def policy(key):
        return conn.execute("SELECT pymem._fact_policy(%s)", (key,)).fetchone()[0]

    assert [policy(k) for k in ("likes_os", "likes_tea", "user_city")] == [
        "confirm",
        "latest_wins",
        "confirm",
    ]
    # '_' and '%' are literal characters in a pattern
    store.set_fact_policy("*", None)
    store.set_fact_policy("a_b", "confirm")
    assert (policy("a_b"), policy("axb"), policy("user_city")) == (
        "confirm",
        "latest_wins",
        "latest_wins",
    )
    assert store.set_fact_policy("likes_os", "latest_wins") == "latest_wins"
    assert policy("likes_os") == "latest_wins"


@pytest.mark.parametrize(("pattern", "policy"), [("likes_*", "ask"), ("", "confirm")])
def test_bad_policy_is_refused(store, conn, pattern, policy):
    with pytest.raises(errors.InvalidPolicy), conn.transaction():
        store.set_fact_policy(pattern, policy)
    assert conn.execute("SELECT count(*) FROM pymem.fact_policies").fetchone()[0] == 0


# --- scopes, expiry, as-of -------------------------------------------------------------


def test_sleep_habit_and_last_nights_state_do_not_conflict(store, conn):
    store.set_fact_policy("bedtime", "confirm")
    assert set_at(conn, "bedtime", "22:00", T[0], confidence=0.9) == "set"
    # "slept at 3 a.m. last night": a state, valid for the day
    until = T[1] + timedelta(hours=12)
    action = set_at(conn, "bedtime", "03:00", T[1], scope="state", valid_until=until)
    assert action == "set"  # confidence 0.6 < 0.9: no matter, scopes are not compared
    assert store.pending_conflicts(USER) == []
    assert store.get_fact(USER, "bedtime", T[1] + timedelta(hours=1)) == "03:00"
    # the expired state stops shadowing the habit
    assert store.get_fact(USER, "bedtime", T[1] + timedelta(hours=13)) == "22:00"
    assert store.get_fact(USER, "bedtime") == "22:00"
    assert [(f.scope, f.value) for f in store.current_facts(USER)] == [("habit", "22:00")]
    # a new state after the old one expired is a first value again, not a conflict
    assert set_at(conn, "bedtime", "01:00", T[3], confidence=0.9, scope="state") == "set"
    assert store.get_fact(USER, "bedtime", T[3] + timedelta(hours=1)) == "01:00"
    assert store.get_fact(USER, "bedtime", T[2]) == "22:00"
    assert store.get_fact(USER, "bedtime", T[1] + timedelta(hours=2)) == "03:00"
    assert history(store, "bedtime") == [
        ("habit", "22:00", "current"),
        ("state", "03:00", "expired"),
        ("state", "01:00", "current"),
    ]


def test_a_state_gets_the_state_kind_lifetime(store, conn):
    store.set_fact(USER, "mood", "tired", scope="state")
    row = fact_row(conn, "mood", "state")
    assert row["valid_until"] - row["set_at"] == timedelta(days=3)  # the kind's lifetime (0024)
    assert store.get_fact(USER, "mood") == "tired"
    assert store.get_fact(USER, "mood", datetime.now(UTC) + timedelta(days=4)) is None


def test_as_of_reads_between_changes(store, conn):
    assert set_at(conn, "user_city", "Hangzhou", T[1]) == "set"
    assert set_at(conn, "user_city", "Shanghai", T[3]) == "replaced"
    assert set_at(conn, "user_city", "Beijing", T[5], confidence=0.3) == "rejected"
    assert set_at(conn, "user_city", "Shenzhen", T[6]) == "replaced"
    expected = {
        T[0]: None,
        T[1]: "Hangzhou",
        T[2]: "Hangzhou",
        T[3] - timedelta(microseconds=1): "Hangzhou",
        T[3]: "Shanghai",
        T[5]: "Shanghai",  # the rejected value was never believed
        T[6] - timedelta(seconds=1): "Shanghai",
        T[6]: "Shenzhen",
        T[9]: "Shenzhen",
    }
    assert {t: store.get_fact(USER, "user_city", t) for t in expected} == expected
    assert store.get_fact(USER, "user_city") == "Shenzhen"


def test_as_of_after_a_resolved_conflict(store, conn):
    store.set_fact_policy("likes_os", "confirm")
    set_at(conn, "likes_os", "Windows", T[1], confidence=0.9)
    set_at(conn, "likes_os", "Mac", T[2], confidence=0.9)
    store.resolve_conflict(USER, "likes_os", "Mac")
    assert store.get_fact(USER, "likes_os", T[3]) == "Windows"  # still believed then
    assert store.get_fact(USER, "likes_os") == "Mac"


# --- bad input -------------------------------------------------------------------------


BAD_SQL = [
    ("SELECT pymem.set_fact(NULL, 'k', '1')", "PM001"),
    ("SELECT pymem.set_fact('ann', NULL, '1')", "PM020"),
    ("SELECT pymem.set_fact('ann', '  ', '1')", "PM020"),
    ("SELECT pymem.set_fact('ann', E'\\t', '1')", "PM020"),
    ("SELECT pymem.set_fact_policy(repeat('k', 201), 'confirm')", "PM024"),
    ("SELECT pymem.set_fact('ann', 'k', NULL)", "PM021"),
    ("SELECT pymem.set_fact('ann', 'k', 'null')", "PM021"),
    ("SELECT pymem.set_fact('ann', 'k', 'not json')", "22P02"),
    ("SELECT pymem.set_fact('ann', 'k', '1', scope => 'forever')", "PM022"),
    ("SELECT pymem.set_fact('ann', 'k', '1', scope => NULL)", "PM022"),
    ("SELECT pymem.set_fact('ann', 'k', '1', confidence_level => 'very')", "PM023"),
    ("SELECT pymem.set_fact('ann', 'k', '1', confidence_level => '1.5')", "PM023"),
    ("SELECT pymem.set_fact('ann', 'k', '1', confidence_level => '1e400')", "PM023"),
    ("SELECT pymem.set_fact('ann', 'k', '1', confidence_level => '1e-400')", "PM023"),
    ("SELECT pymem.set_fact('ann', 'k', '1', confidence_level => '')", "PM023"),
    ("SELECT pymem.set_fact('ann', 'k', '1', confidence => '1.5')", "PM023"),
    # a word is no number: confidence is double precision, the words are confidence_level
    ("SELECT pymem.set_fact('ann', 'k', '1', confidence => 'high')", "22P02"),
    (
        "SELECT pymem.set_fact('ann', 'k', '1', confidence => 0.9, confidence_level => 'high')",
        "PM023",
    ),
    (
        "SELECT pymem.set_fact('ann', 'k', '1', confidence => NULL, confidence_level => 'low')",
        "PM023",
    ),
    ("SELECT pymem.set_fact('ann', 'k', '1', confidence => 1.5)", "PM023"),
    ("SELECT pymem.set_fact('ann', 'k', '1', confidence => 'NaN'::float8)", "PM023"),
    ("SELECT pymem.set_fact('ann', 'k', '1', confidence => NULL)", "PM023"),
    ("SELECT pymem.set_fact('ann', 'k', '1', source => 'rumour')", "PM009"),
    ("SELECT pymem.set_fact('ann', 'k', '1', valid_until => now() - interval '1 hour')", "PM006"),
    ("SELECT pymem.get_fact('ann', NULL)", "PM020"),
    ("SELECT pymem.get_fact('ann', 'k', NULL)", "PM006"),
    ("SELECT * FROM pymem.fact_history('', 'k')", "PM001"),
    ("SELECT pymem.resolve_conflict('ann', 'k', '1', scope => 'x')", "PM022"),
]


@pytest.mark.parametrize(("sql", "sqlstate"), BAD_SQL)
def test_bad_input_sqlstate_and_nothing_written(conn, sql, sqlstate):
    with pytest.raises(psycopg.Error) as info, conn.transaction():
        conn.execute(sql)
    assert info.value.sqlstate == sqlstate
    assert conn.execute("SELECT count(*) FROM pymem.facts").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM pymem.fact_history").fetchone()[0] == 0


@pytest.mark.parametrize(
    ("kwargs", "exc"),
    [
        ({"key": None}, errors.InvalidFactKey),
        ({"value": object()}, errors.InvalidFactValue),
        ({"value": {1, 2}}, errors.InvalidFactValue),
        ({"value": float("nan")}, errors.InvalidFactValue),
        ({"value": None}, errors.InvalidFactValue),
        ({"scope": "someday"}, errors.InvalidScope),
        ({"confidence": "sure"}, errors.InvalidConfidence),
        ({"confidence": -0.1}, errors.InvalidConfidence),
        ({"confidence": float("nan")}, errors.InvalidConfidence),
    ],
)
def test_bad_input_from_python(store, conn, kwargs, exc):
    args = {"key": "k", "value": "v"} | kwargs
    key, value = args.pop("key"), args.pop("value")
    with pytest.raises(exc) as info, conn.transaction():
        store.set_fact(USER, key, value, **args)
    assert info.value.sqlstate == exc.sqlstate
    assert conn.execute("SELECT count(*) FROM pymem.facts").fetchone()[0] == 0


@pytest.mark.parametrize(
    ("confidence", "stored"),
    [
        ("confidence_level => 'high'", 0.9),
        ("confidence_level => 'medium'", 0.6),
        ("confidence_level => ' LOW '", 0.3),
        ("confidence_level => '0.75'", 0.75),
        ("confidence => '0.75'", 0.75),
        ("confidence => 0.95", 0.95),
        ("confidence => 0.2::float8", 0.2),
        ("confidence => 1", 1.0),
        ("confidence => 0.6, confidence_level => 'high'", 0.9),  # 0.6 is the default
        ("DEFAULT", 0.6),
    ],
)
def test_confidence_as_word_or_number(conn, confidence, stored):
    arg = "" if confidence == "DEFAULT" else f", {confidence}"
    conn.execute(f"SELECT pymem.set_fact('ann', 'k', '\"v\"'{arg})")
    assert fact_row(conn, "k")["confidence"] == stored


def test_confidence_from_a_driver_parameter(conn):
    conn.execute("SELECT pymem.set_fact('ann', 'a', '1', confidence => %s)", (0.8,))
    conn.execute("SELECT pymem.set_fact('ann', 'b', '1', confidence_level => %s)", ("high",))
    assert (fact_row(conn, "a")["confidence"], fact_row(conn, "b")["confidence"]) == (0.8, 0.9)


def test_json_values_of_every_type(store):
    for i, value in enumerate(["text", 42, 2.5, True, [1, "a"], {"city": "上海", "since": 2024}]):
        store.set_fact(USER, f"k{i}", value)
        assert store.get_fact(USER, f"k{i}") == value


# --- concurrency -----------------------------------------------------------------------


@pytest.mark.parametrize("known", [False, True], ids=["new-key", "known-key"])
def test_eight_concurrent_writers_of_one_key(fresh_dsn, known):
    """Without the per-user lock, the new key fails on its primary key and the
    known key loses replaced values from the history (both seen)."""
    actions: list[str] = []
    lock = threading.Lock()
    values = [f"city {i}" for i in range(THREADS)]
    if known:
        with MemoryStore(fresh_dsn) as store:
            store.set_fact(USER, "user_city", "home town")
        values.append("home town")

    def work(store: MemoryStore, index: int) -> None:
        action = store.set_fact(USER, "user_city", f"city {index}")
        with lock:
            actions.append(action)

    run_together(fresh_dsn, work)
    first = [] if known else ["set"]
    assert sorted(actions) == ["replaced"] * (THREADS - len(first)) + first
    with MemoryStore(fresh_dsn) as store:
        rows = store.fact_history(USER, "user_city")
        current = store.get_fact(USER, "user_city")
    # every write is there once: the replaced values and the current one
    assert sorted(r.value for r in rows) == sorted(values)
    assert [r.reason for r in rows] == ["replaced"] * (len(values) - 1) + ["current"]
    assert rows[-1].value == current
    # one consistent timeline: each value was believed until the next was set
    for earlier, later in itertools.pairwise(rows):
        assert earlier.replaced_at == later.set_at
        assert earlier.set_at <= earlier.replaced_at


# --- flagged free-text conflicts -------------------------------------------------------


def test_flag_conflict_is_listed_once_and_resolved(store, conn):
    win = store.upsert(USER, "Ann likes Windows", unit(0)).memory_id
    mac = store.upsert(USER, "Ann likes Mac", unit(1)).memory_id
    review = store.flag_conflict(USER, win, mac, "both cannot be her favourite")
    assert store.flag_conflict(USER, win, mac) == review
    assert store.flag_conflict(USER, mac, win) == review  # either order
    (pending,) = store.pending_conflicts(USER)
    assert (pending.review_id, pending.cause, pending.memory_id, pending.other_id) == (
        review,
        "conflict",
        win,
        mac,
    )
    assert pending.note == "both cannot be her favourite"
    # both memories stay
    live = conn.execute(
        "SELECT count(*) FROM pymem.memories WHERE user_id = %s AND deleted_at IS NULL", (USER,)
    ).fetchone()[0]
    assert live == 2
    # the app settles it (pymem.resolve_review marks the review decided)
    conn.execute(
        "UPDATE pymem.reviews SET resolved_at = now(), decision = 'keep_both' WHERE id = %s",
        (review,),
    )
    assert store.pending_conflicts(USER) == []
    assert store.flag_conflict(USER, win, mac) != review  # a new contradiction, a new review


def test_flag_conflict_announces_conflict_flagged(fresh_dsn):
    with (
        psycopg.connect(fresh_dsn, autocommit=True) as listener,
        MemoryStore(fresh_dsn) as store,
    ):
        listener.execute("LISTEN pymem_events")
        a = store.upsert(USER, "Ann likes Windows", unit(0)).memory_id
        b = store.upsert(USER, "Ann likes Mac", unit(1)).memory_id
        review = store.flag_conflict(USER, a, b)
        store.flag_conflict(USER, b, a)
        events = [json.loads(n.payload) for n in listener.notifies(timeout=0.5)]
    assert [(e["event"], e["review_id"], sorted(e["ids"])) for e in events] == [
        ("conflict_flagged", str(review), sorted([str(a), str(b)]))
    ]


def test_flag_conflict_refuses_memories_that_are_not_live_and_the_users(store, conn):
    a = store.upsert(USER, "Ann likes Windows", unit(0)).memory_id
    b = store.upsert(USER, "Ann likes Mac", unit(1)).memory_id
    bob = store.upsert("bob", "Bob likes Linux", unit(2)).memory_id
    conn.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (b,))
    for other, exc in [
        (bob, errors.MemoryNotFound),
        (b, errors.MemoryNotFound),
        (None, errors.MemoryNotFound),
        (a, errors.InvalidParameter),
    ]:
        with pytest.raises(exc), conn.transaction():
            store.flag_conflict(USER, a, other)
    assert open_reviews(conn, "conflict") == []


# --- undo ------------------------------------------------------------------------------


def memory(conn, memory_id) -> dict:
    with conn.cursor(row_factory=psycopg.rows.dict_row) as cur:
        return cur.execute(
            "SELECT content, topic, version, deleted_at, embedding::text AS embedding"
            " FROM pymem.memories WHERE id = %s",
            (memory_id,),
        ).fetchone()


def test_undo_of_a_supersede_and_undo_of_undo(store, conn):
    first = store.upsert(USER, "Ann is learning React", unit(2), topic="skill:react")
    before = memory(conn, first.memory_id)
    sup = store.upsert(
        USER, "Ann is proficient in React", unit(2) * 0.8 + unit(3) * 0.6, topic="skill:react"
    )
    assert (sup.action, sup.memory_id) == ("superseded", first.memory_id)
    after = memory(conn, first.memory_id)

    assert store.undo(USER, first.memory_id) == 1
    undone = memory(conn, first.memory_id)
    assert (undone["content"], undone["embedding"], undone["version"]) == (
        before["content"],
        before["embedding"],
        3,
    )
    reason = conn.execute(
        "SELECT reason FROM pymem.memory_versions WHERE memory_id = %s AND version = 2",
        (first.memory_id,),
    ).fetchone()[0]
    assert reason.startswith("undo: restored version 1 (superseded")

    # undo of the undo restores the supersede
    assert store.undo(USER, first.memory_id) == 2
    redone = memory(conn, first.memory_id)
    assert (redone["content"], redone["embedding"], redone["version"]) == (
        after["content"],
        after["embedding"],
        4,
    )
    # an explicit earlier version
    assert store.undo(USER, first.memory_id, to_version=1) == 1
    assert memory(conn, first.memory_id)["content"] == "Ann is learning React"
    assert [h.content for h in store.recall(USER, unit(2), 5)] == ["Ann is learning React"]


def test_undo_of_a_delete(store, conn):
    mem = store.upsert(USER, "Ann has a cat", unit(4)).memory_id
    conn.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (mem,))
    assert store.recall(USER, unit(4), 5) == []
    assert store.undo(USER, mem) == 1
    assert memory(conn, mem)["deleted_at"] is None
    assert [h.memory_id for h in store.recall(USER, unit(4), 5)] == [mem]


def test_undo_errors(store, conn):
    mem = store.upsert(USER, "Ann has a cat", unit(4)).memory_id
    bob = store.upsert("bob", "Bob has a dog", unit(5)).memory_id
    with pytest.raises(errors.NothingToUndo, match="no version 0"), conn.transaction():
        store.undo(USER, mem)
    with pytest.raises(errors.NothingToUndo), conn.transaction():
        store.undo(USER, mem, to_version=1)
    with pytest.raises(errors.MemoryNotFound), conn.transaction():
        store.undo(USER, bob)
    with pytest.raises(errors.MemoryNotFound), conn.transaction():
        store.undo(USER, "00000000-0000-0000-0000-000000000000")
    assert memory(conn, mem)["version"] == 1


# --- security, metric, CLI -------------------------------------------------------------


def test_app_role_sees_only_its_users_facts(conn):
    store = MemoryStore(conn)
    store.set_fact_policy("likes_os", "confirm")
    store.set_fact("ann", "user_city", "Shanghai")
    store.set_fact("bob", "user_city", "Paris")
    store.set_fact("bob", "likes_os", "Windows", confidence="high")
    store.set_fact("bob", "likes_os", "Mac", confidence="high")
    conn.execute("SET LOCAL ROLE pymem_app")
    conn.execute("SELECT set_config('pymem.user_id', 'ann', true)")
    assert store.get_fact("ann", "user_city") == "Shanghai"
    # the wrapper acts for the user each call names; SQL naming another user
    # under ann's setting sees nothing and writes nothing
    assert conn.execute("SELECT pymem.get_fact('bob', 'user_city')").fetchone() == (None,)
    for query in ("fact_history('bob', 'user_city')", "pending_conflicts('bob')",
                  "current_facts('bob')"):  # fmt: skip
        assert conn.execute(f"SELECT * FROM pymem.{query}").fetchall() == []
    assert conn.execute("SELECT count(*) FROM pymem.facts").fetchone()[0] == 1
    assert store.contradiction_rate() == 0.0  # bob's conflict is out of sight
    assert store.set_fact("ann", "user_city", "Hangzhou") == "replaced"
    with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
        conn.execute("""SELECT pymem.set_fact('bob', 'user_city', '"Rome"')""")
    with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
        store.set_fact_policy("user_city", "confirm")


def test_contradiction_rate_over_users(store, conn):
    assert store.contradiction_rate() == 0.0
    store.set_fact_policy("likes_os", "confirm")
    for user in ("ann", "bob"):
        store.set_fact(user, "user_city", "Shanghai")
        store.set_fact(user, "likes_os", "Windows", confidence="high")
    store.set_fact("ann", "likes_os", "Mac", confidence="high")
    assert store.contradiction_rate("ann") == 0.5
    assert store.contradiction_rate("bob") == 0.0
    assert store.contradiction_rate() == 0.25
    # a blank id is no user with no facts: refused, as by quality_report
    for blank in ("", " "):
        with pytest.raises(errors.InvalidUserId), conn.transaction():
            store.contradiction_rate(blank)


def test_cli_facts(fresh_dsn, capsys):
    dsn = ["--dsn", fresh_dsn]
    with MemoryStore(fresh_dsn) as store:
        store.set_fact_policy("likes_os", "confirm")
    assert main([*dsn, "facts", "set", "--user", "ann", "user_city", "Hangzhou"]) == 0
    assert capsys.readouterr().out.strip() == 'set: user_city (habit) = "Hangzhou"'
    assert main([*dsn, "facts", "set", "--user", "ann", "user_city", "Shanghai"]) == 0
    assert capsys.readouterr().out.startswith("replaced: ")
    for value in ("Windows", "Mac"):
        args = ["facts", "set", "--user", "ann", "--confidence", "high", "likes_os", value]
        assert main([*dsn, *args]) == 0
    assert "conflict: " in capsys.readouterr().out
    assert main([*dsn, "facts", "--user", "ann"]) == 0
    out = capsys.readouterr().out
    assert 'user_city (habit) = "Shanghai"' in out
    assert "[conflict pending]" in out
    assert 'likes_os (habit): "Windows" (0.90, stated) vs "Mac" (0.90, stated)' in out
    assert main([*dsn, "facts", "history", "--user", "ann", "user_city"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[:3] for line in lines] == [
        ["habit", "replaced", '"Hangzhou"'],
        ["habit", "current", '"Shanghai"'],
    ]
    assert main([*dsn, "facts", "set", "--user", "ann", "--confidence", "2", "k", "1"]) == 2
    assert "PM023" in capsys.readouterr().err


def test_demo_shows_a_replaced_fact_and_a_resolved_conflict(store, conn, capsys):
    from pymem.demo import _facts_demo

    _facts_demo(store, USER, conn)
    out = capsys.readouterr().out
    assert "set_fact user_city = 'Shanghai': replaced" in out
    assert "history: 'Hangzhou'   replaced" in out
    assert "set_fact likes_os = 'Mac' (high): conflict" in out
    assert "pending: likes_os 'Windows' vs 'Mac'" in out
    assert "the user says Mac: replaced" in out
    assert "get_fact likes_os = 'Mac', contradiction rate 0%" in out


def test_facts_api_with_an_empty_search_path(conn):
    conn.execute("SET search_path = ''")
    conn.execute("SELECT pymem.set_fact_policy('likes_os', 'confirm')")
    actions = [
        conn.execute(sql).fetchone()[0]
        for sql in (
            "SELECT pymem.set_fact('ann', 'likes_os', '\"Windows\"', confidence_level => 'high')",
            "SELECT pymem.set_fact('ann', 'likes_os', '\"Mac\"', confidence => 0.9)",
            "SELECT pymem.resolve_conflict('ann', 'likes_os', '\"Mac\"')",
            "SELECT pymem.get_fact('ann', 'likes_os')",
            "SELECT count(*) FROM pymem.fact_history('ann', 'likes_os')",
            "SELECT count(*) FROM pymem.pending_conflicts('ann')",
            "SELECT count(*) FROM pymem.current_facts('ann')",
            "SELECT pymem.contradiction_rate('ann')",
        )
    ]
    assert actions == ["set", "conflict", "replaced", "Mac", 3, 0, 1, 0.0]


def test_app_role_cannot_undo_or_flag_another_users_memory(conn):
    store = MemoryStore(conn)
    ann = store.upsert("ann", "Ann is learning React", unit(2), topic="skill:react").memory_id
    store.upsert("ann", "Ann is proficient in React", unit(2) * 0.8 + unit(3) * 0.6,
                 topic="skill:react")  # fmt: skip
    bob = store.upsert("bob", "Bob is learning Go", unit(4), topic="skill:go").memory_id
    store.upsert("bob", "Bob is fluent in Go", unit(4) * 0.8 + unit(5) * 0.6, topic="skill:go")
    conn.execute("SET LOCAL ROLE pymem_app")
    conn.execute("SELECT set_config('pymem.user_id', 'ann', true)")
    with pytest.raises(errors.MemoryNotFound), conn.transaction():
        store.undo("ann", bob)
    with pytest.raises(errors.MemoryNotFound), conn.transaction():
        store.flag_conflict("ann", ann, bob)
    assert store.undo("ann", ann) == 1  # the app undoes its own user's supersede
