"""Goal dedup: the same metric with enough word overlap is one goal."""

from __future__ import annotations

import psycopg
import pytest

from tests.conftest import unit
from tests.helpers import refused

USER = "gina"


def _versions(conn, memory_id):
    return conn.execute(
        "SELECT content, reason FROM pymem.memory_versions WHERE memory_id = %s ORDER BY version",
        (memory_id,),
    ).fetchall()


def test_same_metric_goal_is_updated_in_place(store, conn):
    # orthogonal embeddings: the metric decides, not the vectors
    first = store.upsert(USER, "Lower my A1C to 7%", unit(0), "goal")
    second = store.upsert(USER, "Lower my A1C to 6.5% by June", unit(1), "goal")
    assert (first.action, first.rule) == ("inserted", "no live goal with the same metrics")
    assert (second.action, second.memory_id) == ("superseded", first.memory_id)
    assert second.rule == "same goal (a1c)"
    assert _versions(conn, first.memory_id) == [
        ("Lower my A1C to 7%", "superseded: same goal (a1c), similarity 0.0000 to the new content")
    ]


def test_chinese_goals_share_a_metric(store):
    first = store.upsert(USER, "把糖化血红蛋白降到7以下", unit(0), "goal")
    second = store.upsert(USER, "把糖化血红蛋白降到6.5以下", unit(1), "goal")
    assert (second.action, second.memory_id) == ("superseded", first.memory_id)
    # the same metric, but monitoring it is another goal
    check = store.upsert(USER, "每三个月查一次糖化血红蛋白", unit(2), "goal")
    assert check.action == "inserted"


def test_other_metrics_and_low_overlap_stay_separate(store):
    a1c = store.upsert(USER, "Lower my A1C to 7%", unit(0), "goal")
    chol = store.upsert(USER, "Lower cholesterol below 200", unit(0), "goal")
    assert chol.action == "inserted" and chol.memory_id != a1c.memory_id
    # same metric, but no other word in common: the overlap decides
    weight = store.upsert(USER, "Lose 10 pounds by summer", unit(2), "goal")
    other = store.upsert(USER, "Weigh myself every Monday morning", unit(3), "goal")
    assert other.action == "inserted" and other.memory_id != weight.memory_id


def test_the_same_metric_with_another_purpose_is_another_goal(store):
    lower = store.upsert(USER, "Lower my A1C to 7%", unit(0), "goal")
    check = store.upsert(USER, "Check my A1C every three months", unit(1), "goal")
    assert check.action == "inserted" and check.memory_id != lower.memory_id


def test_a_shared_goal_verb_alone_is_no_overlap(store, conn):
    """ "Get my A1C below 7%" and "Get my A1C checked every three months" shared only
    "get", half of the smaller goal's words: the target goal was superseded."""
    target = store.upsert(USER, "Get my A1C below 7%", unit(0), "goal")
    check = store.upsert(USER, "Get my A1C checked every three months", unit(1), "goal")
    assert check.action == "inserted" and check.memory_id != target.memory_id
    stripped = conn.execute("SELECT pymem._strip_goal_metrics('Keep my A1C under 7')")
    assert stripped.fetchone()[0].split() == ["my", "under", "7"]
    # the words that say what the goal is still decide: the same target again
    again = store.upsert(USER, "Keep my A1C below 6.5%", unit(2), "goal")
    assert (again.action, again.memory_id) == ("superseded", target.memory_id)


def test_a_metric_inside_a_longer_metrics_name_is_not_named(store, conn):
    """体重指数 (BMI) holds 体重 (weight): a BMI goal named both metrics, and replaced
    the user's weight goal."""
    metrics = conn.execute(
        "SELECT pymem._goal_metrics('体重指数降到24'::text),"
        " pymem._goal_metrics('体重降到60公斤'::text),"
        " pymem._goal_metrics('把体重和体重指数都降下来'::text)"
    ).fetchone()
    assert metrics == (["bmi"], ["weight"], ["bmi", "weight"])
    # whichever comes first: the first match's length decided, and missed BMI here
    for goal in ("Lose 5 kilograms and get my 体重指数 under 25", "体重指数 under 25, lose 5 kg"):
        assert conn.execute("SELECT pymem._goal_metrics(%s::text)", (goal,)).fetchone() == (
            ["bmi", "weight"],
        ), goal
    weight = store.upsert(USER, "体重降到60公斤", unit(0), "goal")
    bmi = store.upsert(USER, "体重指数降到24", unit(1), "goal")
    assert bmi.action == "inserted" and bmi.memory_id != weight.memory_id


def test_a_goal_on_two_metrics_is_not_replaced_by_one_on_either(store):
    both = store.upsert(USER, "Lower my weight and blood pressure", unit(0), "goal")
    bp = store.upsert(USER, "Lower my blood pressure to 120/80", unit(1), "goal")
    assert bp.action == "inserted" and bp.memory_id != both.memory_id


def test_goals_under_different_topics_stay_apart(store):
    target = store.upsert(USER, "Lower my A1C to 7%", unit(0), "goal", topic="goal:a1c-target")
    other = store.upsert(USER, "Lower my A1C to 6.5%", unit(1), "goal", topic="goal:a1c-diet")
    assert other.action == "inserted" and other.memory_id != target.memory_id
    same = store.upsert(USER, "Lower my A1C to 6%", unit(2), "goal", topic="goal:a1c-target")
    assert (same.action, same.memory_id) == ("superseded", target.memory_id)


def test_overlap_threshold_is_a_setting(store, conn):
    # words around the metric: {lower, hold} and {lower, soon}: overlap 0.5
    first = store.upsert(USER, "Lower and hold my A1C at 7%", unit(0), "goal")
    conn.execute("UPDATE pymem.settings SET goal_overlap_threshold = 0.6")
    strict = store.upsert(USER, "Lower my A1C to 6.5% soon", unit(1), "goal")
    assert strict.action == "inserted" and strict.memory_id != first.memory_id
    conn.execute("UPDATE pymem.settings SET goal_overlap_threshold = 0.5")
    loose = store.upsert(USER, "Lower my A1C to 6% soon", unit(2), "goal")
    assert loose.action == "superseded"


def test_goals_without_a_metric_dedup_only_on_exact_text(store):
    first = store.upsert(USER, "Run a marathon next year", unit(0), "goal")
    # near-identical vector, no known metric: a separate goal
    near = store.upsert(USER, "Finish a marathon within a year", unit(0), "goal")
    assert near.action == "inserted"
    # ... kept, and queued for the app's review like any related pair
    assert (near.matched_id, near.rule) == (first.memory_id, "related band, no shared goal metric")
    assert [(r.memory_id, r.matched_id) for r in store.pending_reviews(USER)] == [
        (near.memory_id, first.memory_id)
    ]
    # a goal far from every live goal is not queued
    far = store.upsert(USER, "Learn to play the cello", unit(7), "goal")
    assert far.matched_id is None and len(store.pending_reviews(USER)) == 1
    again = store.upsert(USER, "Run a marathon next year!", unit(5), "goal")
    assert (again.action, again.memory_id) == ("duplicate", first.memory_id)


def test_a_goal_never_merges_with_a_fact(store):
    fact = store.upsert(USER, "User's A1C was 7.2 in March", unit(0), "fact")
    goal = store.upsert(USER, "Get my A1C under 6.5", unit(0), "goal")
    assert goal.action == "inserted" and goal.memory_id != fact.memory_id


def test_goal_metrics_are_a_table_to_extend(store, conn):
    conn.execute("INSERT INTO pymem.goal_metrics VALUES ('reading', '\\mbooks?\\M|读书')")
    first = store.upsert(USER, "Read 20 books this year", unit(0), "goal")
    second = store.upsert(USER, "Read 30 books this year", unit(1), "goal")
    assert (second.action, second.memory_id) == ("superseded", first.memory_id)


@pytest.mark.parametrize(
    ("metric", "pattern", "needle"),
    [
        ("sleep", "\\m(sleep", "not a regular expression"),
        ("pace", "(?i)pace", "embedded option"),
        ("pace", "\\m(p)\\1ace\\M", "back reference"),
        ("sleep", "(sleep)?", "matches every text"),
        (" ", "\\msleep\\M", "needs a name"),
    ],
)
def test_a_goal_metric_row_is_checked_as_it_is_written(store, conn, metric, pattern, needle):
    """A pattern that is no regular expression made every goal write fail with 2201B;
    one that matches the empty string names its metric in every goal."""
    refused(
        conn, psycopg.Error, "PM006",
        lambda: conn.execute("INSERT INTO pymem.goal_metrics VALUES (%s, %s)", (metric, pattern)),
        needle,
    )  # fmt: skip
    assert store.upsert(USER, "Lower my A1C to 7%", unit(0), "goal").action == "inserted"
