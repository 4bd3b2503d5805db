"""Row-level security: pymem_app sees and changes only its current user's rows."""

from __future__ import annotations

import psycopg
import pytest

from pymem import MemoryStore
from tests.conftest import unit


@pytest.fixture
def app_conn(conn):
    """The test connection acting as pymem_app for user 'ann'."""
    store = MemoryStore(conn)
    store.upsert("ann", "Ann drinks green tea", unit(0))
    store.upsert("bob", "Bob drinks coffee", unit(0))
    conn.execute("SET LOCAL ROLE pymem_app")
    conn.execute("SELECT set_config('pymem.user_id', 'ann', true)")
    return conn


def test_app_role_sees_only_current_user(app_conn):
    store = MemoryStore(app_conn)
    assert [h.content for h in store.recall("ann", unit(0), 5)] == ["Ann drinks green tea"]
    assert store.recall("bob", unit(0), 5) == []
    assert app_conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] == 1
    result = store.upsert("ann", "Ann drinks green tea!", unit(0))
    assert result.action == "duplicate"


def test_app_role_cannot_write_for_another_user(app_conn):
    store = MemoryStore(app_conn)
    with pytest.raises(psycopg.errors.InsufficientPrivilege), app_conn.transaction():
        store.upsert("bob", "Bob plays chess", unit(1))


def test_app_role_cannot_administer(app_conn):
    with pytest.raises(psycopg.errors.InsufficientPrivilege), app_conn.transaction():
        app_conn.execute("SELECT pymem.configure_embedder('other', 0.9, 0.8)")
    with pytest.raises(psycopg.errors.InsufficientPrivilege), app_conn.transaction():
        app_conn.execute("DELETE FROM pymem.memories")


def test_app_role_history_and_decay_stay_in_its_user(app_conn):
    store = MemoryStore(app_conn)
    store.upsert("ann", "Ann is learning React", unit(2), topic="skill:react")
    result = store.upsert(
        "ann", "Ann is proficient in React", unit(2) * 0.8 + unit(3) * 0.6, topic="skill:react"
    )
    assert result.action == "superseded"
    assert app_conn.execute("SELECT count(*) FROM pymem.memory_versions").fetchone()[0] == 1
    decay = store.apply_decay(cold_below=1.0)
    assert decay.cooled == 2  # ann's two memories; bob's stay out of reach


def test_app_role_cannot_forge_history(app_conn):
    with pytest.raises(psycopg.errors.InsufficientPrivilege), app_conn.transaction():
        app_conn.execute(
            "INSERT INTO pymem.memory_versions (user_id, memory_id, version, content, previous,"
            " reason) VALUES ('ann', gen_random_uuid(), 1, 'forged', '{}', 'forged')"
        )


def test_history_trigger_ignores_functions_planted_in_public(conn):
    """The SECURITY DEFINER trigger must not resolve names through public,
    where (before PostgreSQL 15, by default) any role may create functions."""
    store = MemoryStore(conn)
    memory = store.upsert("ann", "Ann drinks green tea", unit(0))
    conn.execute("GRANT CREATE ON SCHEMA public TO pymem_app")
    conn.execute("SET LOCAL ROLE pymem_app")
    conn.execute("SELECT set_config('pymem.user_id', 'ann', true)")
    conn.execute(
        "CREATE FUNCTION public.to_jsonb(m pymem.memories) RETURNS jsonb LANGUAGE plpgsql"
        " AS $$ BEGIN RAISE EXCEPTION 'planted function ran as %', current_user; END $$"
    )
    conn.execute(
        "UPDATE pymem.memories SET content = 'Ann drinks oolong' WHERE id = %s",
        (memory.memory_id,),
    )
    reason = conn.execute(
        "SELECT reason FROM pymem.memory_versions WHERE memory_id = %s", (memory.memory_id,)
    ).fetchone()
    assert reason == ("update",)


def test_app_role_uses_goal_dedup(app_conn):
    store = MemoryStore(app_conn)
    first = store.upsert("ann", "Lower my A1C to 7%", unit(0), "goal")
    second = store.upsert("ann", "Lower my A1C to 6.5% by June", unit(1), "goal")
    assert (second.action, second.memory_id) == ("superseded", first.memory_id)
