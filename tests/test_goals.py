"""Goal dedup: the same metric with enough word overlap is one goal."""

from __future__ import annotations

from tests.conftest import unit

USER = "gina"


def _versions(conn, memory_id):
    return conn.execute(
        "SELECT content, reason FROM pymem.memory_versions WHERE memory_id = %s ORDER BY version",
        (memory_id,),
    ).fetchall()


def test_same_metric_goal_is_updated_in_place(store, conn):
    # orthogonal embeddings: the metric decides, not the vectors
    first = store.upsert(USER, "Lower my A1C to 7%", unit(0), "goal")
    second = store.upsert(USER, "Get my A1C under 6.5 by June", unit(1), "goal")
    assert first.action == "inserted"
    assert (second.action, second.memory_id) == ("superseded", first.memory_id)
    assert _versions(conn, first.memory_id) == [
        ("Lower my A1C to 7%", "superseded: the same goal (a1c)")
    ]


def test_chinese_goals_share_a_metric(store):
    first = store.upsert(USER, "把糖化血红蛋白降到7以下", unit(0), "goal")
    second = store.upsert(USER, "糖化血红蛋白控制在6.5以内", unit(1), "goal")
    assert (second.action, second.memory_id) == ("superseded", first.memory_id)


def test_other_metrics_and_low_overlap_stay_separate(store):
    a1c = store.upsert(USER, "Lower my A1C to 7%", unit(0), "goal")
    chol = store.upsert(USER, "Lower cholesterol below 200", unit(0), "goal")
    assert chol.action == "inserted" and chol.memory_id != a1c.memory_id
    # same metric, but no other word in common: the overlap decides
    weight = store.upsert(USER, "Lose 10 pounds by summer", unit(2), "goal")
    other = store.upsert(USER, "Weigh myself every Monday morning", unit(3), "goal")
    assert other.action == "inserted" and other.memory_id != weight.memory_id


def test_goals_without_a_metric_dedup_only_on_exact_text(store):
    first = store.upsert(USER, "Run a marathon next year", unit(0), "goal")
    # near-identical vector, no known metric: a separate goal
    near = store.upsert(USER, "Finish a marathon within a year", unit(0), "goal")
    assert near.action == "inserted"
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
