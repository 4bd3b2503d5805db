"""Tenant isolation: pymem_app acting for one user never reads or changes
another user's rows, through any function, table or view; history reasons
come only from pymem's functions; the wrapper sets pymem.user_id per call."""

from __future__ import annotations

import json

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from pymem import MemoryStore, configure_connection
from pymem.errors import (
    ContactNotFound,
    InvalidConsolidation,
    InvalidPlan,
    MemoryNotFound,
    NoPendingReview,
    NotConsolidated,
    NothingToUndo,
    PymemError,
)
from tests.conftest import at_cosine, unit

A, B = "ann", "bob"


def _rls_tables(conn) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT c.oid::regclass::text FROM pg_class AS c"
            " WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind IN ('r', 'p')"
            " AND NOT c.relispartition AND c.relrowsecurity ORDER BY 1"
        )
    ]


def _populate(store: MemoryStore, conn, user: str, base: int) -> dict:
    """Rows of every kind for ``user``: memories with history and a wording, a review, facts
    with history, an import's progress, contacts with an alias, links and attribute history, a
    consolidation, an announced topic and its claim, a reflection."""
    first = store.upsert(user, f"{user} is learning React", unit(base), topic="skill:react")
    store.upsert(user, f"{user} is proficient in React", at_cosine(0.8, base, base + 1),
                 topic="skill:react")  # fmt: skip
    tea = store.upsert(user, f"{user} drinks green tea every morning", unit(base + 2))
    # the same fact in other words, kept as a wording of tea (sql/21_wordings.sql)
    conn.execute(
        "SELECT pymem._add_wording(%s, %s, %s, %s)",
        (user, tea.memory_id, f"{user} has green tea each morning", unit(base + 2)),
    )
    coffee = store.upsert(user, f"{user} never drinks coffee", unit(base + 3))
    store.flag_conflict(user, tea.memory_id, coffee.memory_id, "tea or coffee")
    store.set_fact(user, "city", "Paris")
    store.set_fact(user, "city", "Rome")
    imported = {"content": f"{user} imported a fact", "embedding": unit(base + 9)}
    store.import_memories(user, "memories.jsonl", [1], [imported])
    contact = store.sync_contact(user, f"{user}'s sister Mia", [tea.memory_id], aliases=["Mimi"],
                                 attributes={"job": "nurse"})  # fmt: skip
    store.sync_contact(user, f"{user}'s sister Mia", attributes={"job": "doctor"})
    for i in range(3):  # fragments of one topic, written directly: announced as due
        conn.execute(
            "INSERT INTO pymem.memories (user_id, kind, content, embedding, topic)"
            " VALUES (%s, 'event', %s, %s, 'trip:japan')",
            (user, f"{user} trip day {i}", unit(base + 5 + i)),
        )
    other = store.sync_contact(user, f"{user}'s friend Leo", [coffee.memory_id])
    store.claim_jobs(user, "worker")  # the announced topic, claimed by a worker
    conn.execute("INSERT INTO pymem.reflections VALUES (%s, now())", (user,))
    record = store.consolidate(
        user,
        [tea.memory_id, coffee.memory_id],
        f"{user}'s drinks: green tea every morning, never coffee",
        unit(base + 4),
    )
    return {
        "memory": first.memory_id,
        "tea": tea.memory_id,
        "coffee": coffee.memory_id,
        "contact": contact,
        "other_contact": other,
        "record": record,
    }


def _rows_of(conn, user: str) -> dict[str, list]:
    """Every row of ``user`` in every table with RLS, as text (owner's view)."""
    return {
        t: [
            r[0]
            for r in conn.execute(
                f"SELECT to_jsonb(x)::text FROM {t} AS x WHERE user_id = %s ORDER BY 1", (user,)
            )
        ]
        for t in _rls_tables(conn)
    }


@pytest.fixture
def tenants(conn):
    """ann's and bob's rows (written as the owner), then the connection acting
    as pymem_app for ann. Returns bob's ids and bob's rows before."""
    store = MemoryStore(conn)
    _populate(store, conn, A, 0)
    bob = _populate(store, conn, B, 20)
    before = _rows_of(conn, B)
    assert all(before.values()), "every table holds some of bob's rows"
    conn.execute("SET LOCAL ROLE pymem_app")
    conn.execute("SELECT set_config('pymem.user_id', %s, true)", (A,))
    return bob, before


def _as_owner(conn):
    conn.execute("RESET ROLE")


def test_every_user_table_has_rls_with_both_sides(conn):
    """Catalog: each pymem table with user_id has RLS and a policy whose USING
    and WITH CHECK both compare user_id with pymem.user_id."""
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT c.oid::regclass::text FROM pg_class AS c JOIN pg_attribute AS a"
            " ON a.attrelid = c.oid AND a.attname = 'user_id'"
            " WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind IN ('r', 'p')"
            " AND NOT c.relispartition"
        )
    ]
    assert len(tables) >= 11
    assert sorted(tables) == _rls_tables(conn)
    for table in tables:
        policies = conn.execute(
            "SELECT qual, with_check, roles::text[] FROM pg_policies"
            " WHERE schemaname || '.' || tablename = %s",
            (table,),
        ).fetchall()
        assert len(policies) == 1, table
        ((qual, check, roles),) = policies
        expected = "(user_id = current_setting('pymem.user_id'::text, true))"
        assert (qual, check, roles) == (expected, expected, ["pymem_app"]), table


def test_tables_show_only_the_current_user(tenants, conn):
    for table in _rls_tables(conn):
        mine, others = conn.execute(
            f"SELECT count(*) FILTER (WHERE user_id = %s), count(*) FILTER (WHERE user_id <> %s)"
            f" FROM {table}",
            (A, A),
        ).fetchone()
        assert others == 0, table
        assert mine > 0, table
    # no pymem.user_id at all: nothing
    conn.execute("SELECT set_config('pymem.user_id', '', true)")
    for table in _rls_tables(conn):
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table


def _write_attempts(conn, table: str) -> dict[str, str]:
    """Direct writes of another user's rows on ``table``; each outcome by name."""
    outcome: dict[str, str] = {}
    columns = [
        r[0]
        for r in conn.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0"
            " AND NOT attisdropped AND attgenerated = '' AND attidentity <> 'a' ORDER BY attnum",
            (table,),
        )
    ]
    listed = ", ".join(columns)
    copied = ", ".join(f"%s AS {c}" if c == "user_id" else c for c in columns)
    privileged = {
        op: conn.execute("SELECT has_table_privilege(%s, %s)", (table, op)).fetchone()[0]
        for op in ("INSERT", "UPDATE", "DELETE")
    }
    attempts = {
        # a copy of one of ann's rows, claimed for bob: the WITH CHECK side
        "INSERT": (f"INSERT INTO {table} ({listed}) SELECT {copied} FROM {table} LIMIT 1", (B,)),
        # one of ann's rows handed to bob: WITH CHECK again
        "UPDATE": (
            f"UPDATE {table} SET user_id = %s WHERE ctid = (SELECT ctid FROM {table} LIMIT 1)",
            (B,),
        ),
        # bob's rows by name: USING hides them
        "UPDATE B": (f"UPDATE {table} SET user_id = user_id WHERE user_id = %s", (B,)),
        "DELETE B": (f"DELETE FROM {table} WHERE user_id = %s", (B,)),
    }
    for name, (statement, params) in attempts.items():
        try:
            with conn.transaction():
                cur = conn.execute(statement, params)
                outcome[name] = f"{cur.rowcount} rows"
        except psycopg.errors.InsufficientPrivilege as exc:
            if "row-level security" in str(exc):
                outcome[name] = "refused by RLS"
            else:
                assert not privileged[name.split()[0]], (table, name, exc)
                outcome[name] = "no privilege"
        except psycopg.errors.IntegrityError:
            outcome[name] = "past RLS"  # a constraint caught what the policy let through
    return outcome


def test_direct_writes_of_another_users_rows_are_refused_on_every_table(tenants, conn):
    _, before = tenants
    for table in _rls_tables(conn):
        outcome = _write_attempts(conn, table)
        assert outcome["INSERT"] in ("refused by RLS", "no privilege"), (table, outcome)
        assert outcome["UPDATE"] in ("refused by RLS", "no privilege"), (table, outcome)
        assert outcome["UPDATE B"] in ("0 rows", "no privilege"), (table, outcome)
        assert outcome["DELETE B"] in ("0 rows", "no privilege"), (table, outcome)
    _as_owner(conn)
    assert _rows_of(conn, B) == before


def test_the_write_check_catches_a_policy_without_with_check(tenants, conn):
    """The test above fails when a policy's WITH CHECK is TRUE (the breakage
    the suite once missed)."""
    _as_owner(conn)
    conn.execute("ALTER POLICY memories_of_current_user ON pymem.memories WITH CHECK (true)")
    conn.execute("SET LOCAL ROLE pymem_app")
    outcome = _write_attempts(conn, "pymem.memories")
    assert outcome["INSERT"] in ("1 rows", "past RLS"), outcome


def test_api_with_another_users_ids_changes_nothing(tenants, conn):
    """ann's requests carrying bob's ids (guessed or leaked): refused or empty."""
    bob, before = tenants
    store = MemoryStore(conn)
    refused = [
        (NoPendingReview, lambda: store.resolve_review(A, bob["tea"], "keep_both")),
        ((NothingToUndo, MemoryNotFound), lambda: store.undo(A, bob["memory"])),
        (MemoryNotFound, lambda: store.flag_conflict(A, bob["tea"], bob["coffee"])),
        (MemoryNotFound, lambda: store.sync_contact(A, "Zoe", [bob["tea"]])),
        (ContactNotFound, lambda: store.merge_contacts(A, bob["contact"], bob["other_contact"])),
        (ContactNotFound, lambda: store.contact_memories(A, bob["contact"])),
        (ContactNotFound, lambda: store.contact_card(A, bob["contact"])),
        (ContactNotFound, lambda: store.consolidate_contact(A, bob["contact"], "x")),
        (
            (MemoryNotFound, InvalidConsolidation),
            lambda: store.consolidate(A, [bob["tea"], bob["coffee"]], "x", unit(5)),
        ),
        ((NotConsolidated, MemoryNotFound), lambda: store.unconsolidate(A, bob["record"])),
        (
            (MemoryNotFound, InvalidPlan),
            lambda: store.apply_maintenance(A, [{"op": "delete", "id": str(bob["memory"])}]),
        ),
    ]
    for error, call in refused:
        with pytest.raises(error), conn.transaction():
            call()
    with pytest.raises(MemoryNotFound), conn.transaction():
        store.touch(A, [bob["memory"], bob["tea"]])
    assert store.get_fact(A, "city") == "Rome"  # ann's own
    assert [h.memory_id for h in store.recall(A, unit(0), 20)] != []
    assert not {h.memory_id for h in store.recall(A, unit(20), 50)} & set(bob.values())
    assert all(r.memory_id not in bob.values() for r in store.pending_reviews(A))
    _as_owner(conn)
    assert _rows_of(conn, B) == before


def test_every_memory_not_found_reads_alike_and_names_the_ids(tenants, conn):
    """PM011 from every call that takes memory ids: one wording (pymem._check_live_memories),
    naming each id ann cannot see, after the op's label in a plan."""
    bob, _ = tenants
    store = MemoryStore(conn)
    tea, coffee, first = bob["tea"], bob["coffee"], bob["memory"]
    calls = [
        ([tea], lambda: store.touch(A, [tea])),
        ([tea, coffee], lambda: store.flag_conflict(A, tea, coffee)),
        ([tea], lambda: store.sync_contact(A, "Zoe", [tea])),
        (
            [tea],
            lambda: conn.execute("SELECT pymem._link_memory_contacts(%s, %s, '{Zoe}')", (A, tea)),
        ),
        ([first], lambda: store.undo(A, first)),
        ([bob["record"]], lambda: store.unconsolidate(A, bob["record"])),
        (sorted([tea, coffee]), lambda: store.consolidate(A, [coffee, tea], "x", unit(5))),
        ([first], lambda: store.apply_maintenance(A, [{"op": "delete", "id": str(first)}])),
    ]
    for ids, call in calls:
        with pytest.raises((PymemError, psycopg.Error)) as info, conn.transaction():
            call()
        assert info.value.sqlstate == "PM011", info.value
        assert f"no memory {', '.join(map(str, ids))} for user 'ann'" in str(info.value)
    with pytest.raises(MemoryNotFound, match="op 1: no memory"), conn.transaction():
        store.apply_maintenance(A, [{"op": "no-change", "id": str(first)}])


def test_sql_for_another_user_is_refused_or_empty(tenants, conn):
    """Raw SQL naming bob while pymem.user_id is ann (the wrapper sets it per
    call; an app writing its own SQL sets it once per request)."""
    _, before = tenants
    vector = str(unit(22).tolist())
    empty = [
        ("SELECT * FROM pymem.recall(%s, %s::vector, 10)", (B, vector)),
        ("SELECT * FROM pymem.current_facts(%s)", (B,)),
        ("SELECT * FROM pymem.fact_history(%s, 'city')", (B,)),
        ("SELECT * FROM pymem.pending_reviews(%s)", (B,)),
        ("SELECT * FROM pymem.pending_conflicts(%s)", (B,)),
        ("SELECT * FROM pymem.recent_contacts(%s)", (B,)),
        ("SELECT * FROM pymem.resolve_contact(%s, 'Mimi')", (B,)),
        ("SELECT * FROM pymem.consolidation_candidates(%s)", (B,)),
        ("SELECT * FROM pymem.mentioned_contacts(%s, 'Mimi and Leo')", (B,)),
    ]
    for statement, params in empty:
        assert conn.execute(statement, params).fetchall() == [], statement
    assert conn.execute("SELECT pymem.get_fact(%s, 'city')", (B,)).fetchone() == (None,)
    assert conn.execute("SELECT cooled FROM pymem.apply_decay(cold_below => 1.0)").fetchone()[0] > 0
    refused = [
        ("SELECT * FROM pymem.upsert_memory(%s, 'bob plays chess', %s::vector)", (B, vector)),
        ("SELECT pymem.set_fact(%s, 'city', '\"Oslo\"')", (B,)),
        ("SELECT pymem.sync_contact(%s, 'Zed')", (B,)),
        # refused before the user's lock: a refusal after it left the lock held
        # (bob's writers stalled) until this transaction ended
        ("SELECT pymem.touch(%s, ARRAY[gen_random_uuid()])", (B,)),
    ]
    for statement, params in refused:
        with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
            conn.execute(statement, params)
    with (
        pytest.raises(psycopg.errors.InsufficientPrivilege, match="acts for user 'ann', not 'bob'"),
        conn.transaction(),
    ):
        conn.execute("SELECT * FROM pymem.touch(%s, '{}'::uuid[] || gen_random_uuid())", (B,))
    _as_owner(conn)
    after = _rows_of(conn, B)
    # decay ran as ann: bob's tiers are untouched, like everything else of bob's
    assert after == before


@pytest.mark.parametrize(
    "call",
    [
        "SELECT count(*) FROM pymem.upsert_memories(%s, '[]'::jsonb)",
        "SELECT count(*) FROM pymem.apply_maintenance(%s, '[]'::jsonb)",
        "SELECT action FROM pymem.upsert_memory(%s, 'bob plays go', %s::vector)",
        "SELECT pymem.set_fact(%s, 'city', '\"Oslo\"')",
    ],
)
def test_an_app_session_never_takes_another_users_lock(shared_dsn, call):
    """A call of an app session for bob is refused before bob's lock is taken. An
    empty batch or plan for bob succeeded (nothing to refuse) and held bob's lock to
    the end of the transaction: every writer of bob's waited for it."""
    vector = str(unit(23).tolist())
    with psycopg.connect(shared_dsn) as app, psycopg.connect(shared_dsn) as owner:
        app.execute("SET ROLE pymem_app")
        app.execute("SELECT pymem._set_user(%s)", (A,))  # a Citus store's workers too
        try:
            app.execute(call, (B, vector)[: call.count("%s")])
            refused = None
        except psycopg.Error as exc:
            refused = exc
        owner.execute("SET lock_timeout = '2s'")
        write = "SELECT action FROM pymem.upsert_memory(%s, 'bob plays go', %s::vector)"
        assert owner.execute(write, (B, vector)).fetchone() == ("inserted",)
        owner.rollback()
        app.rollback()
    assert isinstance(refused, psycopg.errors.InsufficientPrivilege), refused
    assert "acts for user 'ann', not 'bob'" in str(refused)


def test_every_pinned_search_path_names_pg_temp_last(conn):
    """PostgreSQL searches pg_temp first for relations and types when a path does not
    name it: a function running as the owner would take a caller's temporary objects
    for its own."""
    unpinned_temp = conn.execute(
        "SELECT p.oid::regprocedure::text, c FROM pg_proc AS p, unnest(p.proconfig) AS c"
        " WHERE p.pronamespace = 'pymem'::regnamespace AND c LIKE 'search_path=%'"
        " AND c NOT LIKE '%, pg_temp'"
    ).fetchall()
    assert unpinned_temp == []


def test_a_callers_temporary_type_never_runs_as_the_owner(fresh_dsn):
    """An app session plants a domain pg_temp.text whose CHECK is its own function,
    then undoes one of its memories. _pymem_stack, which the SECURITY DEFINER
    _set_change_reason calls (so it runs as the owner), declared its variables as
    text with pg_temp searched first: the app's function ran with the owner's rights
    (and could make pymem_app a superuser)."""
    with MemoryStore(fresh_dsn) as owner:
        memory = owner.upsert(A, "Ann is learning React", unit(0), topic="skill:react")
        owner.upsert(A, "Ann is proficient in React", at_cosine(0.8, 0, 1), topic="skill:react")
    # a new backend: none of pymem's functions compiled yet
    with psycopg.connect(fresh_dsn) as app:
        app.execute("SET ROLE pymem_app")
        app.execute("SELECT pymem._set_user(%s)", (A,))  # a Citus store's workers too
        app.execute(
            "CREATE FUNCTION pg_temp.planted(v pg_catalog.text) RETURNS boolean"
            " LANGUAGE plpgsql AS $$ BEGIN"
            " IF current_user <> 'pymem_app' THEN"
            "  RAISE EXCEPTION 'planted code ran as %', current_user; END IF;"
            " RETURN true; END $$"
        )
        app.execute("CREATE DOMAIN pg_temp.text AS pg_catalog.text CHECK (pg_temp.planted(VALUE))")
        restored = app.execute("SELECT pymem.undo(%s, %s)", (A, memory.memory_id)).fetchone()
        assert restored == (1,)
        app.rollback()


def test_history_reasons_come_only_from_pymem_functions(conn):
    store = MemoryStore(conn)
    first = store.upsert(A, "Ann is learning React", unit(0), topic="skill:react")
    conn.execute("SET LOCAL ROLE pymem_app")
    store.upsert(A, "Ann is proficient in React", at_cosine(0.8, 0, 1), topic="skill:react")
    store.undo(A, first.memory_id)
    conn.execute("SELECT set_config('pymem.user_id', %s, true)", (A,))
    # forged: the setting by hand, a direct call, a DO block
    conn.execute("SELECT set_config('pymem.change_reason', 'forged by hand', true)")
    conn.execute("UPDATE pymem.memories SET content = 'Ann likes Vue' WHERE user_id = %s", (A,))
    with pytest.raises(psycopg.Error, match="internal") as raised, conn.transaction():
        conn.execute("SELECT pymem._set_change_reason('forged by call')")
    assert raised.value.sqlstate == "PM050"
    conn.execute(
        "DO $$ BEGIN PERFORM pymem._set_change_reason('forged in DO');"
        " UPDATE pymem.memories SET content = 'Ann likes Svelte' WHERE user_id = 'ann'; END $$"
    )
    for forbidden in ("SELECT pymem._reason_mac('x')", "SELECT key FROM pymem.history_key"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
            conn.execute(forbidden)
    reasons = [
        r[0]
        for r in conn.execute(
            "SELECT reason FROM pymem.memory_versions WHERE memory_id = %s ORDER BY version",
            (first.memory_id,),
        )
    ]
    assert reasons[0].startswith("superseded: same topic")
    assert reasons[1].startswith("undo: restored version 1")
    assert reasons[2:] == ["update", "update"]


def test_helpers_no_invoker_path_needs_are_not_executable(conn):
    rows = conn.execute(
        "SELECT p.oid::regprocedure::text, p.proname, p.prorettype = 'trigger'::regtype,"
        " has_function_privilege('pymem_app', p.oid, 'EXECUTE'),"
        " has_function_privilege('public', p.oid, 'EXECUTE')"
        " FROM pg_proc AS p WHERE p.pronamespace = 'pymem'::regnamespace"
    ).fetchall()
    closed = {"_reason_mac", "_pymem_stack", "_create_history_triggers", "_set_dimensions",
              "configure_embedder", "set_fact_policy", "partition_by_user",
              "_sync_partition_security", "_table_dependents", "distribute_by_user",
              "_citus_create_outbox", "_citus_distribute_tables", "_citus_distribute_types",
              "_citus_distribute_functions", "_citus_regrant", "_fit_recall_plans",
              "_secure_user_tables", "_create_app_role", "_grant_app_role",
              "_seed_configuration", "setup"}  # fmt: skip
    for signature, name, is_trigger, app, public in rows:
        if is_trigger or name in closed:
            assert not app and not public, signature
        else:
            assert app, signature


def test_wrapper_sets_the_user_per_call_and_restores_the_callers(conn):
    store = MemoryStore(conn)
    store.upsert(A, "Ann drinks green tea", unit(0))
    store.upsert(B, "Bob drinks coffee", unit(0))
    conn.execute("SET LOCAL ROLE pymem_app")
    # the caller's transaction is joined: each call acts for its own user
    assert [h.content for h in store.recall(B, unit(0), 5)] == ["Bob drinks coffee"]
    assert [h.content for h in store.recall(A, unit(0), 5)] == ["Ann drinks green tea"]
    assert conn.execute("SELECT current_setting('pymem.user_id', true)").fetchone()[0] in ("", None)
    conn.execute("SELECT set_config('pymem.user_id', %s, true)", (A,))
    store.recall(B, unit(0), 5)
    assert conn.execute("SELECT current_setting('pymem.user_id')").fetchone() == (A,)


def _app_pool(dsn: str, **kwargs) -> ConnectionPool:
    def configure(conn):
        configure_connection(conn)
        conn.execute("SET ROLE pymem_app")

    return ConnectionPool(
        dsn, min_size=1, configure=configure, kwargs={"autocommit": True}, open=True, **kwargs
    )


def test_a_pooled_connection_reused_for_another_user_sees_only_that_user(fresh_dsn):
    with _app_pool(fresh_dsn, max_size=1) as pool:
        store = MemoryStore(pool)
        store.upsert(A, "Ann drinks green tea", unit(0))
        store.set_fact(A, "city", "Paris")
        store.upsert(B, "Bob drinks coffee", unit(0))
        assert [h.content for h in store.recall(B, unit(0), 5)] == ["Bob drinks coffee"]
        assert [f.value for f in store.current_facts(B)] == []
        assert [h.content for h in store.recall(A, unit(0), 5)] == ["Ann drinks green tea"]
        # nothing stays on the connection between calls
        with pool.connection() as conn:
            assert conn.execute("SELECT current_user").fetchone() == ("pymem_app",)
            assert conn.execute("SELECT current_setting('pymem.user_id', true)").fetchone()[0] in (
                "",
                None,
            )
            assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone() == (0,)
        # a failed call leaves nothing either
        with pytest.raises(PymemError):
            store.upsert(B, "", unit(1))
        assert [h.content for h in store.recall(A, unit(0), 5)] == ["Ann drinks green tea"]
    with psycopg.connect(fresh_dsn) as owner:
        users = owner.execute("SELECT user_id, count(*) FROM pymem.memories GROUP BY 1 ORDER BY 1")
        assert users.fetchall() == [(A, 1), (B, 1)]


def test_history_trigger_ignores_functions_planted_in_public(conn):
    """The SECURITY DEFINER trigger must not resolve names through public,
    where (before PostgreSQL 15, by default) any role may create functions."""
    store = MemoryStore(conn)
    memory = store.upsert(A, "Ann drinks green tea", unit(0))
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


def test_a_look_alike_function_cannot_vouch_for_a_reason(conn):
    """A function named and typed like a pymem function, in another schema,
    makes the stack untrusted: the reason is dropped, never forged."""
    store = MemoryStore(conn)
    first = store.upsert(A, "Ann is learning React", unit(0), topic="skill:react")
    conn.execute("GRANT CREATE ON SCHEMA public TO pymem_app")
    conn.execute("SET LOCAL ROLE pymem_app")
    conn.execute(
        "CREATE FUNCTION public.undo(user_id text, memory_id uuid, to_version integer)"
        " RETURNS integer LANGUAGE plpgsql AS $$ BEGIN"
        " PERFORM pymem._set_change_reason('forged by a look-alike');"
        " UPDATE pymem.memories SET content = 'forged' WHERE id = memory_id; RETURN 0; END $$"
    )
    conn.execute("SELECT set_config('pymem.user_id', 'ann', true)")
    conn.execute("SELECT public.undo('ann', %s, NULL)", (first.memory_id,))
    reason = conn.execute(
        "SELECT reason FROM pymem.memory_versions WHERE memory_id = %s", (first.memory_id,)
    ).fetchone()
    assert reason == ("update",)
    assert json.loads(json.dumps(reason))  # plain text


def test_no_sql_language_function_of_pymem_calls_a_writer(conn):
    """A SQL function's frame never vouches for a history reason (_pymem_stack): one that
    wrote through a pymem writer recorded its supersedes as a bare "update" (the typed
    upsert_memories overload did)."""
    import re

    volatile = {
        name
        for (name,) in conn.execute(
            "SELECT proname FROM pg_proc WHERE pronamespace = 'pymem'::regnamespace"
            " AND provolatile = 'v' AND prokind = 'f'"
        )
    }
    callers = []
    for name, body in conn.execute(
        "SELECT p.oid::regprocedure::text, p.prosrc FROM pg_proc AS p"
        " JOIN pg_language AS l ON l.oid = p.prolang"
        " WHERE p.pronamespace = 'pymem'::regnamespace AND l.lanname = 'sql'"
    ):
        called = set(re.findall(r"pymem\.(\w+)\s*\(", body or ""))
        if called & volatile:
            callers.append((name, sorted(called & volatile)))
    assert callers == []


def test_the_typed_upsert_memories_overload_records_why(conn):
    store = MemoryStore(conn)
    first = store.upsert(A, "Ann's A1C is 7.2%", unit(0))
    vector = str(at_cosine(0.99).tolist())
    (action,) = conn.execute(
        "SELECT action FROM pymem.upsert_memories(%s, ARRAY[%s]::text[], ARRAY[%s]::vector[])",
        (A, "Ann's A1C is 6.8%", vector),
    ).fetchone()
    assert action == "superseded"
    (reason,) = conn.execute(
        "SELECT reason FROM pymem.memory_versions WHERE memory_id = %s", (first.memory_id,)
    ).fetchone()
    assert reason.startswith("superseded: same statement, new value"), reason


def test_a_reason_cannot_be_forged_through_a_helper_or_a_sql_function(conn):
    """Two ways the app vouched for a reason of its own: a private helper that takes
    a reason, called directly (two pymem frames, the stack's whole rule then), and
    a SQL function named 'undo" x', whose unquoted frame read as pymem's undo."""
    store = MemoryStore(conn)
    tea = store.upsert(A, "Ann drinks green tea", unit(0))
    coffee = store.upsert(A, "Ann drinks coffee", unit(1))
    milk = store.upsert(A, "Ann drinks milk", unit(2))
    conn.execute("SET LOCAL ROLE pymem_app")
    conn.execute("SELECT set_config('pymem.user_id', 'ann', true)")
    forged = "undo: restored version 1 (forged)"
    conn.execute(
        "SELECT * FROM pymem._consolidate(%s, %s, 'Ann drinks tea and coffee', %s::vector,"
        " '{}', (SELECT s FROM pymem.settings AS s), reason => %s)",
        (A, [tea.memory_id, coffee.memory_id], str(unit(3).tolist()), forged),
    )
    conn.execute(
        """CREATE FUNCTION pg_temp."undo"" x"(reason text) RETURNS void LANGUAGE sql"""
        " SET search_path = pg_catalog AS $$ SELECT pymem._set_change_reason(reason) $$"
    )
    conn.execute("""SELECT pg_temp."undo"" x"(%s)""", (forged,))
    conn.execute("UPDATE pymem.memories SET content = 'Ann drinks oat milk' WHERE id = %s",
                 (milk.memory_id,))  # fmt: skip
    reasons = conn.execute(
        "SELECT memory_id, reason FROM pymem.memory_versions WHERE memory_id = ANY(%s)",
        ([tea.memory_id, coffee.memory_id, milk.memory_id],),
    ).fetchall()
    assert len(reasons) == 3
    assert {reason for _, reason in reasons} == {"update"}, reasons


def test_writer_helpers_called_directly_take_the_user_lock(conn):
    """A private writer called by the app itself (it keeps EXECUTE: the API
    calls it as the app) still serializes with the user's other writers."""
    memory = conn.execute(  # written directly: no lock taken yet
        "INSERT INTO pymem.memories (user_id, kind, content, embedding)"
        " VALUES (%s, 'event', 'Bob met Lily', %s::vector) RETURNING id",
        (B, str(unit(0).tolist())),
    ).fetchone()[0]
    conn.execute("SET LOCAL ROLE pymem_app")
    held = (
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
        " AND granted"
    )
    calls = [
        (A, "SELECT pymem._set_fact(%s, 'city', '\"Rome\"', 0.6, 'habit', 'stated', NULL, now())",
         (A,)),
        (B, "SELECT pymem._link_memory_contacts(%s, %s, ARRAY['Lily'])", (B, memory)),
        ("c", "SELECT pymem._reinforce('c', ARRAY[gen_random_uuid()], false)", ()),
    ]  # fmt: skip
    assert conn.execute(held).fetchone() == (0,)
    for locks, (user, statement, params) in enumerate(calls, start=1):
        conn.execute("SELECT set_config('pymem.user_id', %s, true)", (user,))
        conn.execute(statement, params)
        assert conn.execute(held).fetchone() == (locks,), statement  # one lock per user


def test_the_async_store_sets_the_user_per_call_too(fresh_dsn):
    """AsyncMemoryStore over a pool as pymem_app: a connection reused for another
    user sees only that user, a killed connection is replaced."""
    import asyncio

    from psycopg_pool import AsyncConnectionPool

    from pymem import AsyncMemoryStore, configure_connection_async
    from pymem.errors import ConnectionLost

    async def as_app(conn):
        await configure_connection_async(conn)
        await conn.execute("SET ROLE pymem_app")

    async def main():
        async with AsyncConnectionPool(
            fresh_dsn, min_size=1, max_size=1, configure=as_app,
            kwargs={"autocommit": True}, open=False,
        ) as pool:  # fmt: skip
            store = AsyncMemoryStore(pool)
            await store.upsert(A, "Ann drinks green tea", unit(0))
            await store.upsert(B, "Bob drinks coffee", unit(0))
            seen = [[h.content for h in await store.recall(user, unit(0), 5)] for user in (B, A)]
            async with pool.connection() as conn:
                left = await (await conn.execute("SELECT count(*) FROM pymem.memories")).fetchone()
        own = AsyncMemoryStore(fresh_dsn)
        await own.recall(A, unit(0), 1)
        async with await psycopg.AsyncConnection.connect(fresh_dsn, autocommit=True) as admin:
            await admin.execute("SELECT pg_terminate_backend(%s)", (own._owned.info.backend_pid,))
        try:
            await own.recall(A, unit(0), 1)
            lost = False
        except ConnectionLost:
            lost = True
        again = [h.content for h in await own.recall(A, unit(0), 1)]
        await own.close()
        return seen, left, lost, again

    seen, left, lost, again = asyncio.run(main())
    assert seen == [["Bob drinks coffee"], ["Ann drinks green tea"]]
    assert left == (0,)  # no user stays on the pooled connection
    assert lost and again == ["Ann drinks green tea"]
