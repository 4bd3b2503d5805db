"""A store distributed with Citus (docs/scaling.md).

The tests marked ``citus`` need a Citus coordinator: ``PYMEM_TEST_CITUS_DSN`` (``.ci/run``
starts a cluster with scripts/citus_cluster.py and runs the Citus pass,
tests/citus_backend.py); without it they are skipped, saying so. The others run on
the plain suite's server.
"""

from __future__ import annotations

import time
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from pymem import MemoryStore
from pymem.cli import main as cli
from pymem.errors import (
    CitusUnavailable,
    CitusUnsupported,
    InvalidParameter,
    MemoryNotFound,
)
from pymem.migrate import migrate
from tests import citus_backend
from tests.conftest import at_cosine, unit

citus = pytest.mark.skipif(
    not citus_backend.DSN,
    reason="needs a Citus coordinator: PYMEM_TEST_CITUS_DSN=$(python scripts/citus_cluster.py"
    " start --tarball ../shared/vendor/citus-14.0.1.tar.gz) python -m pytest tests/test_citus.py",
)
plain = pytest.mark.skipif(bool(citus_backend.DSN), reason="runs on a server without Citus")
BAND = 0.8  # between the supersede (0.75) and dedup (0.92) thresholds: a related pair


def test_no_sql_standard_body_reads_a_table(conn):
    """Citus 14 fails to run a function with an SQL-standard body (RETURN ...) that
    reads a distributed or reference table ('syntax error at or near RETURN')."""
    rows = conn.execute(
        "SELECT DISTINCT p.oid::regprocedure::text FROM pg_proc AS p"
        " JOIN pg_depend AS d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid"
        " JOIN pg_class AS c ON d.refclassid = 'pg_class'::regclass AND c.oid = d.refobjid"
        " WHERE p.pronamespace = 'pymem'::regnamespace AND p.prosqlbody IS NOT NULL"
        " AND c.relnamespace = 'pymem'::regnamespace"
    ).fetchall()
    assert rows == []


@plain
def test_a_store_without_citus_is_not_distributed_and_refuses_to_be(conn, empty_dsn, capsys):
    store = MemoryStore(conn)
    assert store.store_shards() is None
    assert store.relay_events() == 0  # events are NOTIFYs already
    assert conn.execute("SELECT pymem._set_user('ann'), current_setting('pymem.user_id')"
                        ).fetchone() == ("ann", "ann")  # fmt: skip
    with pytest.raises(CitusUnavailable, match="citus extension is not installed"):
        store.distribute_by_user()
    conn.rollback()
    with pytest.raises(CitusUnavailable):
        migrate(empty_dsn, citus=True)
    with psycopg.connect(empty_dsn) as fresh:  # refused before anything was made
        assert fresh.execute("SELECT to_regnamespace('pymem')").fetchone() == (None,)
    assert cli(["--dsn", empty_dsn, "migrate", "--citus"]) == 2
    assert "citus extension is not installed" in capsys.readouterr().err
    with pytest.raises(InvalidParameter, match="exclude each other"):
        migrate(empty_dsn, citus=True, partitions=2)
    with pytest.raises(InvalidParameter, match="needs citus"):
        migrate(empty_dsn, shard_count=4)


def test_a_call_cut_by_a_shard_move_is_a_serialization_failure(conn):
    """What Citus raises on the old worker of a user whose shard moved during the call
    (nothing written): mapped to ShardMoved, which the store retries like any
    serialization failure. Raised here by hand, with Citus's code and message."""
    from pymem.errors import SerializationFailure, ShardMoved, from_database_error

    with pytest.raises(psycopg.Error) as raised, conn.transaction():
        conn.execute(
            "DO $$ BEGIN RAISE EXCEPTION 'cannot execute a distributed query from a query on"
            " a shard' USING ERRCODE = 'XX000'; END $$"
        )
    mapped = from_database_error(raised.value)
    assert isinstance(mapped, ShardMoved) and isinstance(mapped, SerializationFailure)
    assert mapped.sqlstate == "XX000"


# -- on a Citus cluster ------------------------------------------------------------------


def _worker_dsns(dsn: str) -> list[str]:
    """DSNs of the cluster's workers, in the database ``dsn`` names."""
    database = conninfo_to_dict(dsn)["dbname"]
    return [make_conninfo(n, dbname=database) for n in citus_backend._nodes(citus_backend.DSN)[1:]]


def _node_of(conn, user: str) -> int:
    """The port of the worker that holds ``user``'s shard of pymem.memories."""
    return conn.execute(
        "SELECT nodeport FROM citus_shards WHERE table_name = 'pymem.memories'::regclass"
        " AND shardid = get_shard_id_for_distribution_column('pymem.memories', %s::text)",
        (user,),
    ).fetchone()[0]


def _users_on_each_worker(conn, count: int = 2) -> list[str]:
    """``count`` user ids on each worker, alternating."""
    ports = sorted(
        r[0] for r in conn.execute("SELECT nodeport FROM pg_dist_node WHERE groupid <> 0")
    )
    found: dict[int, list[str]] = {p: [] for p in ports}
    i = 0
    while any(len(v) < count for v in found.values()):
        user = f"u{i}"
        port = _node_of(conn, user)
        if len(found[port]) < count:
            found[port].append(user)
        i += 1
    return [u for pair in zip(*found.values(), strict=True) for u in pair]


@citus
def test_every_users_table_is_distributed_by_user_id_and_co_located(conn):
    tables = conn.execute(
        "SELECT c.relname, p.partmethod, p.repmodel,"
        " column_to_column_name(p.logicalrelid, p.partkey), p.colocationid"
        " FROM pg_class AS c JOIN pg_dist_partition AS p ON p.logicalrelid = c.oid"
        " WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind = 'r'"
    ).fetchall()
    local = conn.execute(
        "SELECT relname FROM pg_class WHERE relnamespace = 'pymem'::regnamespace"
        " AND relkind = 'r' AND oid NOT IN (SELECT logicalrelid FROM pg_dist_partition)"
    ).fetchall()
    assert local == []
    colocation = {t[4] for t in tables if t[0] == "memories"}
    users = {t[0]: t for t in tables if t[1] == "h"}
    assert set(users) >= {
        "memories", "memory_versions", "reviews", "facts", "fact_history", "contacts",
        "contact_aliases", "contact_links", "contact_history", "consolidations",
        "consolidation_announcements", "import_progress", "event_outbox",
    }  # fmt: skip
    assert {(t[3], t[4]) for t in users.values()} == {("user_id", *colocation)}
    shared = {t[0] for t in tables if t[1] == "n" and t[2] == "t"}
    assert shared == set(citus_backend.SHARED_TABLES)
    assert MemoryStore(conn).store_shards() == citus_backend.SHARDS


@citus
def test_the_public_functions_of_a_user_run_on_the_users_worker(conn):
    """Each public function that takes a user first is a wrapper whose body was moved to
    pymem_citus, distributed by that argument and co-located with pymem.memories."""
    public = {
        r[0]
        for r in conn.execute(
            "SELECT p.proname FROM pg_proc AS p WHERE p.pronamespace = 'pymem'::regnamespace"
            " AND p.proname !~ '^_' AND p.proargnames[1] = 'user_id'"
            " AND p.pronargdefaults < p.pronargs"
        )
    }
    assert {"upsert_memory", "recall", "set_fact", "sync_contact", "consolidate",
            "resolve_review", "claim_reviews", "apply_maintenance"} <= public  # fmt: skip
    delegated = conn.execute(
        "SELECT p.proname, o.distribution_argument_index, o.force_delegation,"
        " o.colocationid = (SELECT colocationid FROM pg_dist_partition"
        "   WHERE logicalrelid = 'pymem.memories'::regclass)"
        " FROM pg_proc AS p JOIN pg_dist_object AS o"
        "   ON o.classid = 'pg_proc'::regclass AND o.objid = p.oid"
        " WHERE p.pronamespace = 'pymem_citus'::regnamespace"
    ).fetchall()
    assert {d[0] for d in delegated} == public
    assert {d[1:] for d in delegated} == {(0, True, True)}
    # the wrappers and every other function are on every node too
    assert conn.execute(
        "SELECT count(*) FROM pg_proc AS p WHERE p.pronamespace = 'pymem'::regnamespace"
        " AND NOT EXISTS (SELECT FROM pg_dist_object AS o"
        "   WHERE o.classid = 'pg_proc'::regclass AND o.objid = p.oid)"
    ).fetchone() == (0,)
    # quality_report and contradiction_rate read every user: on the coordinator
    assert {"quality_report", "contradiction_rate"}.isdisjoint(public)


@citus
def test_calls_are_delegated_and_each_users_rows_live_on_one_worker(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        users = _users_on_each_worker(conn)
        store = MemoryStore(conn)
        heard: list[str] = []
        conn.add_notice_handler(lambda d: heard.append(d.message_primary or ""))
        conn.execute("SET client_min_messages = debug1")
        for i, user in enumerate(users):
            first = store.upsert(user, f"{user} drinks green tea", unit(i))
            later = store.upsert(user, f"{user} drinks oolong now", at_cosine(BAND, i, 100 + i))
            store.set_fact(user, "city", "Lisbon")
            store.sync_contact(user, "Xiaohong", [first.memory_id])
            # the later write waits for review beside the first: the newer value ranks first
            hits = store.recall(user, unit(i), 2)
            assert [h.memory_id for h in hits] == [later.memory_id, first.memory_id]
        conn.execute("SET client_min_messages = notice")
        assert sum("pushing down the function call" in m for m in heard) >= 5 * len(users)
        placed = {u: _node_of(conn, u) for u in users}
        assert len(set(placed.values())) == 2
    # on each worker: the user's rows of every co-located table, or none of them
    tables = ("memories", "memory_versions", "reviews", "facts", "contacts", "contact_links")
    for worker in _worker_dsns(fresh_dsn):
        port = int(conninfo_to_dict(worker)["port"])
        with psycopg.connect(worker, autocommit=True) as conn:
            conn.execute("SET citus.show_shards_for_app_name_prefixes = '*'")
            for table in tables:
                shards = [
                    r[0]
                    for r in conn.execute(
                        "SELECT c.oid::regclass::text FROM pg_class AS c"
                        " WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind = 'r'"
                        " AND c.relname ~ ('^' || %s || '_[0-9]+$')",
                        (table,),
                    )
                ]
                here = {
                    u
                    for shard in shards
                    for (u,) in conn.execute(f"SELECT DISTINCT user_id FROM {shard}")
                }
                mine = {u for u, p in placed.items() if p == port}
                assert here <= mine, (port, table)  # never another worker's user
                if table != "memory_versions":  # nothing was superseded
                    assert here == mine, (port, table)


@citus
def test_a_plain_store_converted_keeps_every_row_and_rule(empty_dsn, capsys):
    from tests.test_partitions import A, _populate, _state

    migrate(empty_dsn)  # a plain store on the coordinator, as before Citus was used
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        store = MemoryStore(conn)
        assert store.store_shards() is None
        ids = _populate(store)
        before = _state(conn)
        recall_before = [h.memory_id for h in store.recall(A, unit(0), 5)]

        assert cli(["--dsn", empty_dsn, "migrate", "--citus", "--shards", "4"]) == 0
        printed = capsys.readouterr().out
        assert "citus: pymem.memories distributed by user_id" in printed
        assert "citus: pymem.settings reference" in printed
        assert store.store_shards() == 4
        after = _state(conn)
        assert after.pop("pymem.event_outbox") == []
        assert after == before
        assert [h.memory_id for h in store.recall(A, unit(0), 5)] == recall_before
        again = store.upsert(A, "ann drinks green tea", unit(0))
        assert (again.action, again.memory_id) == ("duplicate", ids[A, "tea"])
        changed = store.upsert(A, "ann's A1C is 6.5%", unit(1), topic="health:a1c")
        assert changed.action == "superseded"
        assert store.undo(A, changed.memory_id) >= 1
        store.set_fact(A, "home_city", "Porto", confidence="high", source="confirmed")
        assert conn.execute(
            "SELECT count(DISTINCT id) = count(*) FROM pymem.fact_history"
        ).fetchone() == (True,)
        # a second migrate changes nothing, and keeps it distributed
        assert migrate(empty_dsn).distributed == []
        assert store.store_shards() == 4
        with pytest.raises(Exception, match="distributed in 4 shards"):
            migrate(empty_dsn, citus=True, shard_count=8)


@citus
def test_two_distributions_at_once_make_one_and_dimensions_come_with_the_store(empty_dsn):
    """Two distribute_by_user calls on one plain store: the second waits, then finds
    the store distributed (both made the event outbox: 23505). The dimensions of a
    distributed store cannot change (Citus refuses the column's ALTER): PM060, with
    the way to set them."""
    import threading

    migrate(empty_dsn)
    barrier = threading.Barrier(2, timeout=30)
    outcomes: list[object] = []

    def distribute() -> None:
        with psycopg.connect(empty_dsn, autocommit=True) as conn:
            barrier.wait()
            try:
                outcomes.append(conn.execute("SELECT count(*) FROM pymem.distribute_by_user(4)"
                                             ).fetchone()[0])  # fmt: skip
            except psycopg.Error as exc:
                outcomes.append(exc)

    threads = [threading.Thread(target=distribute) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert all(isinstance(o, int) for o in outcomes) and len(outcomes) == 2, outcomes
    with MemoryStore(empty_dsn) as store:
        assert store.store_shards() == 4
    with pytest.raises(CitusUnsupported, match="embedding dimensions") as raised:
        migrate(empty_dsn, dimensions=8)
    assert "migrate --citus" in raised.value.hint


@citus
def test_a_later_migrations_tables_are_distributed_like_the_others(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE pymem.notes (user_id text NOT NULL, id bigint GENERATED ALWAYS AS"
            " IDENTITY, body text, PRIMARY KEY (user_id, id))"
        )
        conn.execute("CREATE TABLE pymem.note_kinds (kind text PRIMARY KEY)")
        conn.execute("INSERT INTO pymem.notes (user_id, body) VALUES ('ann', 'a'), ('bob', 'b')")
        try:
            result = migrate(fresh_dsn)
            assert ("pymem.notes", "table", "distributed by user_id") in result.distributed
            assert ("pymem.note_kinds", "table", "reference") in result.distributed
            assert conn.execute("SELECT count(*) FROM pymem.notes").fetchone() == (2,)
            assert (
                conn.execute(
                    "SELECT colocationid FROM pg_dist_partition"
                    " WHERE logicalrelid = 'pymem.notes'::regclass"
                ).fetchone()
                == conn.execute(
                    "SELECT colocationid FROM pg_dist_partition"
                    " WHERE logicalrelid = 'pymem.memories'::regclass"
                ).fetchone()
            )
        finally:
            conn.execute("DROP TABLE IF EXISTS pymem.notes, pymem.note_kinds")


@citus
def test_the_latest_migrations_apply_to_a_store_already_distributed(fresh_dsn):
    """A store distributed at an earlier release takes the migrations written since
    (0016 to 0035: columns with CHECKs on the reference table pymem.settings, attributes
    of a type, a column of pymem.kinds, an index of the distributed memories, a marker, a
    CHECK of pymem.settings written again, tables of users' rows, a composite type, the
    storage of vectors, which Citus refuses to change on a distributed table: left as it
    was; a marker, whose sql/ changes recall's signature; nine markers);
    Citus refuses a column added with its constraint in one command, so a migration adds
    them apart. Rolled back here with yoyo, then applied by
    `pymem migrate` on the distributed store."""
    from yoyo import get_backend, read_migrations

    from pymem.migrate import citus_settings, extension_schemas, migrations_dir, yoyo_uri

    with psycopg.connect(fresh_dsn) as conn:
        backend = get_backend(
            yoyo_uri(fresh_dsn, extension_schemas(conn), "5s", citus_settings("distributed"))
        )
    try:
        latest = read_migrations(str(migrations_dir())).filter(
            lambda m: m.id.split(".", 1)[0] in {f"00{n}" for n in range(16, 36)}
        )
        with backend.lock():
            backend.rollback_migrations(backend.to_rollback(latest))
    finally:
        backend.connection.close()
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT version FROM pymem.schema_info").fetchone() == (15,)
    assert [m.split(".", 1)[0] for m in migrate(fresh_dsn).applied] == [
        "0016",
        "0017",
        "0018",
        "0019",
        "0020",
        "0021",
        "0022",
        "0023",
        "0024",
        "0025",
        "0026",
        "0027",
        "0028",
        "0029",
        "0030",
        "0031",
        "0032",
        "0033",
        "0034",
        "0035",
    ]
    for node in [fresh_dsn, *_worker_dsns(fresh_dsn)]:
        with psycopg.connect(node) as conn:
            assert conn.execute(
                "SELECT review_floor, cross_kind_review_floor FROM pymem.settings"
            ).fetchone() == (None, 0.4)
            assert conn.execute(
                "SELECT review_against FROM pymem.kinds WHERE kind = 'event'"
            ).fetchone() == (["fact", "preference", "habit", "profile"],)
            assert conn.execute("SELECT reflect_every FROM pymem.settings").fetchone() == (50,)
    # 0019's index is on every shard of memories the workers hold
    for node in _worker_dsns(fresh_dsn):
        with psycopg.connect(node) as conn:
            # Citus hides shards from the catalog unless asked
            conn.execute("SET citus.show_shards_for_app_name_prefixes = '*'")
            shards, indexed = conn.execute(
                "SELECT count(*), count(*) FILTER (WHERE EXISTS ("
                " SELECT FROM pg_index AS i JOIN pg_class AS x ON x.oid = i.indexrelid"
                " WHERE i.indrelid = c.oid AND x.relname LIKE 'memories_user_live_idx%%'))"
                " FROM pg_class AS c WHERE c.relnamespace = 'pymem'::regnamespace"
                " AND c.relkind = 'r' AND c.relname ~ '^memories_[0-9]+$'"
            ).fetchone()
            assert shards > 0 and indexed == shards
    with psycopg.connect(fresh_dsn) as conn, pytest.raises(psycopg.errors.CheckViolation):
        conn.execute("UPDATE pymem.settings SET cross_kind_review_floor = 2")
    with MemoryStore(fresh_dsn) as store:
        veg = store.upsert("ann", "Ann is vegetarian", unit(0), "preference")
        steak = store.upsert("ann", "Ann had a steak", at_cosine(0.5), "event", review_floor=0.6)
    assert steak.matched_id == veg.memory_id


@citus
def test_recall_keeps_the_plan_caches_choice_on_citus(fresh_dsn):
    """A store that is not distributed plans recall's ranking statements once, generic
    (sql/30_recall.sql, sql/30_recall_plain.sql, _fit_recall_plans); Citus cannot make a
    distributed plan of them with their parameters unresolved. `pymem migrate --citus`
    loads sql/ (the generic setting) before it distributes: no node's recall, nor its
    copy run on the workers, nor the plain question's pass keeps the setting, and recall
    answers on the distributed store, the plain question and one with words alike."""
    for node in [fresh_dsn, *_worker_dsns(fresh_dsn)]:
        with psycopg.connect(node) as conn:
            settings = conn.execute(
                "SELECT p.pronamespace::regnamespace::text || '.' || p.proname, p.proconfig"
                " FROM pg_proc AS p WHERE p.proname IN ('recall', '_plain_recall_pass')"
                " AND p.pronamespace IN ('pymem'::regnamespace, 'pymem_citus'::regnamespace)"
                " ORDER BY 1"
            ).fetchall()
            assert [s[0] for s in settings] == [
                "pymem._plain_recall_pass", "pymem.recall", "pymem_citus.recall"
            ], settings  # fmt: skip
            assert not [s for s in settings if "plan_cache_mode" in str(s[1])], settings
    with MemoryStore(fresh_dsn) as store:
        tea = store.upsert("ann", "Ann drinks green tea", unit(0))
        for _ in range(7):
            assert [h.memory_id for h in store.recall("ann", unit(0), 3)] == [tea.memory_id]
            hits = store.recall("ann", unit(0), 3, query_text="green tea")
            assert [h.memory_id for h in hits] == [tea.memory_id]


OLD_PENDING_REVIEWS = (
    "RETURNS TABLE (review_id uuid, cause text, memory_id uuid, matched_id uuid,"
    " fact_key text, similarity double precision, note text, created_at timestamptz,"
    " content text, matched_content text) LANGUAGE sql"
    " AS 'SELECT NULL::uuid, NULL, NULL::uuid, NULL::uuid, NULL, NULL::float8, NULL,"
    " NULL::timestamptz, NULL, NULL'"
)


@citus
def test_a_delegated_function_whose_columns_changed_is_made_again_on_every_node(fresh_dsn):
    """A later pymem whose function gains columns (pending_reviews: attempts, last_error,
    parked_at) on a distributed store: the wrapper and its pymem_citus copy, both with the
    columns of before, are made again, and the copy is delegated by user_id as before."""
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("DROP FUNCTION pymem.pending_reviews(text)")
        conn.execute("DROP FUNCTION pymem_citus.pending_reviews(text)")
        conn.execute(f"CREATE FUNCTION pymem.pending_reviews(user_id text) {OLD_PENDING_REVIEWS}")
        conn.execute(
            f"CREATE FUNCTION pymem_citus.pending_reviews(user_id text) {OLD_PENDING_REVIEWS}"
        )
        conn.execute(
            "SELECT create_distributed_function('pymem_citus.pending_reviews(text)', '$1',"
            " colocate_with => 'pymem.memories', force_delegation => true)"
        )
    migrate(fresh_dsn)
    with MemoryStore(fresh_dsn) as store:
        first = store.upsert("ann", "Ann is allergic to peanuts", unit(0))
        second = store.upsert("ann", "Ann avoids peanuts", at_cosine(BAND))
        (review,) = store.pending_reviews("ann")
    assert (review.memory_id, review.matched_id) == (second.memory_id, first.memory_id)
    assert (review.attempts, review.last_error, review.parked_at) == (0, None, None)
    with psycopg.connect(fresh_dsn) as conn:
        (delegated,) = conn.execute(
            "SELECT o.distribution_argument_index = 0 AND o.force_delegation"
            " FROM pg_dist_object AS o"
            " WHERE o.objid = 'pymem_citus.pending_reviews(text)'::regprocedure"
        ).fetchone()
        assert delegated
        for worker in _worker_dsns(fresh_dsn):
            with psycopg.connect(worker) as on_worker:
                (columns,) = on_worker.execute(
                    "SELECT pg_get_function_result('pymem_citus.pending_reviews(text)'"
                    "::regprocedure)"
                ).fetchone()
                assert columns.endswith("parked_at timestamp with time zone)")


@citus
def test_what_citus_cannot_do_is_refused_naming_it(conn, fresh_dsn):
    store = MemoryStore(conn)
    with pytest.raises(CitusUnsupported, match="partition_by_user"), conn.transaction():
        store.partition_by_user(4)
    memory = store.upsert("ann", "ann keeps bees", unit(0)).memory_id
    # a private writing helper called on the coordinator would lock where nothing waits
    with (
        pytest.raises(psycopg.Error, match="did not hand the call") as raised,
        conn.transaction(),
    ):
        conn.execute("SELECT pymem._link_memory_contacts('ann', %s, ARRAY['Bo'])", (memory,))
    assert raised.value.sqlstate == CitusUnsupported.sqlstate
    # the public functions, called any way SQL allows, run on the user's worker
    rows = conn.execute(
        "SELECT count(*) FROM pymem.upsert_memory('ann', 'ann keeps two hives',"
        " %s::vector) AS r WHERE r.action = 'inserted'",
        (unit(1),),
    ).fetchone()
    assert rows == (1,)
    with pytest.raises(CitusUnsupported, match="rollback"):
        migrate(fresh_dsn, rollback=True)
    with MemoryStore(fresh_dsn) as other:
        assert other.store_shards() == citus_backend.SHARDS
    # a NULL user is the usual PM001 (Citus 14.0.1 would crash the coordinator's backend
    # on a NULL distribution argument: the wrapper checks it first)
    from pymem.errors import InvalidUserId

    for call in (
        "SELECT * FROM pymem.recall(NULL, %s::vector)",
        "SELECT * FROM pymem.upsert_memory(NULL, 'x', %s::vector)",
    ):
        with pytest.raises(psycopg.Error) as raised, conn.transaction():
            conn.execute(call, (unit(0),))
        assert raised.value.sqlstate == InvalidUserId.sqlstate
    with pytest.raises(MemoryNotFound):
        store.touch("ann", ["00000000-0000-0000-0000-000000000000"])


@citus
def test_row_level_security_as_pymem_app_through_the_coordinator(fresh_dsn):
    """pymem.user_id reaches the workers as a SET LOCAL, which Citus repeats there
    (pymem._set_user); the app's role logs in on the workers, not on the coordinator."""
    with MemoryStore(fresh_dsn) as owner:
        ann = owner.upsert("ann", "ann keeps bees", unit(0)).memory_id
        owner.upsert("bob", "bob keeps goats", unit(1))
        owner.set_fact("bob", "city", "Oslo")
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("SET ROLE pymem_app")
        app = MemoryStore(conn)
        assert [h.memory_id for h in app.recall("ann", unit(0), 5)] == [ann]
        assert app.get_fact("bob", "city") == "Oslo"
        with conn.transaction(force_rollback=True):
            conn.execute("SELECT pymem._set_user('ann')")
            assert conn.execute("SELECT count(*), min(user_id) FROM pymem.memories"
                                ).fetchone() == (1, "ann")  # fmt: skip
            # another user's rows through the API: nothing, and no write
            assert conn.execute(
                "SELECT count(*) FROM pymem.recall('bob', %s::vector)", (unit(1),)
            ).fetchone() == (0,)
            assert conn.execute("SELECT pymem.get_fact('bob', 'city')").fetchone() == (None,)
            with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
                conn.execute(
                    "SELECT * FROM pymem.upsert_memory('bob', 'bob sells cheese', %s::vector)",
                    (unit(2),),
                )
        with conn.transaction(force_rollback=True):
            # set_config() stays on the coordinator: the workers' policies see no user,
            # so nothing, never another user's rows
            conn.execute("SELECT set_config('pymem.user_id', 'ann', true)")
            assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone() == (0,)
    for worker in _worker_dsns(fresh_dsn):
        with psycopg.connect(worker) as conn:
            assert conn.execute(
                "SELECT rolcanlogin, has_function_privilege('pymem_app',"
                " 'pymem.distribute_by_user(integer)', 'EXECUTE'),"
                " has_function_privilege('pymem_app', 'pymem.recall(text, vector, integer,"
                " text, text[], boolean, double precision, boolean, timestamptz, jsonb,"
                " timestamptz, timestamptz, text[], boolean)', 'EXECUTE')"
                " FROM pg_roles WHERE rolname = 'pymem_app'"
            ).fetchone() == (True, False, True)


@citus
def test_events_wait_in_the_outbox_until_relayed_to_the_coordinator(fresh_dsn):
    with (
        psycopg.connect(fresh_dsn, autocommit=True) as listener,
        psycopg.connect(fresh_dsn, autocommit=True) as conn,
    ):
        listener.execute("LISTEN pymem_events")
        store = MemoryStore(conn)
        users = _users_on_each_worker(conn, 1)
        # one transaction writing two workers commits (a NOTIFY there could not)
        with conn.transaction():
            for i, user in enumerate(users):
                store.upsert(user, "likes green tea", unit(i))
                store.upsert(user, "enjoys oolong", at_cosine(BAND, i, 100 + i))
        with conn.transaction(force_rollback=True):  # rolled back: never announced
            store.upsert("ghost", "likes green tea", unit(0))
            store.upsert("ghost", "enjoys oolong", at_cosine(BAND))
        assert list(listener.notifies(timeout=0.3, stop_after=1)) == []
        assert conn.execute("SELECT count(*) FROM pymem.event_outbox").fetchone() == (2,)
        assert store.relay_events() == 2
        import json

        heard = [json.loads(n.payload) for n in listener.notifies(timeout=2, stop_after=2)]
        assert sorted((h["event"], h["user_id"]) for h in heard) == sorted(
            ("review_due", u) for u in users
        )
        assert store.relay_events() == 0
        assert conn.execute("SELECT count(*) FROM pymem.event_outbox").fetchone() == (0,)


@citus
def test_the_review_worker_decides_every_users_reviews(fresh_dsn):
    from pymem.review import ReviewWorker
    from tests.test_review_worker import queue_pairs

    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        users = _users_on_each_worker(conn)
    pairs = queue_pairs(fresh_dsn, users, 3)
    with MemoryStore(fresh_dsn) as store:
        worker = ReviewWorker(store, lambda review: ("keep_both", "both stay"), batch=4)
        counts = worker.drain()  # claim_reviews(NULL): each user's claim on its worker
        assert counts.decided_total == len(pairs) == 3 * len(users)
        assert all(store.pending_reviews(u) == [] for u in users)
        assert store.relay_events() == len(pairs)  # their review_due events, relayed once


@citus
def test_decay_sweeps_every_shard_batch_by_batch_without_waiting_for_writers(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        store = MemoryStore(conn)
        users = _users_on_each_worker(conn, 3)
        for i in range(120):
            store.upsert(users[i % len(users)], f"fact number {i}", unit(i),
                         importance=0.05 + (i % 7) / 10)  # fmt: skip
        at = conn.execute("SELECT now() + interval '100 days'").fetchone()[0]
        due = conn.execute(
            "SELECT count(*) FROM pymem.memories AS m JOIN pymem.kinds AS k USING (kind)"
            " WHERE pymem.decay_score(m.importance, coalesce(m.decay_rate, k.decay_rate),"
            " m.last_access_at, %s) < 0.05",
            (at,),
        ).fetchone()[0]
        assert 0 < due < 120
        with conn.transaction(force_rollback=True):
            small = store.apply_decay(at=at, batch_blocks=1)
        with conn.transaction(force_rollback=True):
            whole = store.apply_decay(at=at)
        assert (small.scanned, small.cooled) == (whole.scanned, whole.cooled) == (120, due)
        # a row a writer holds is skipped, not waited for
        held = conn.execute(
            "SELECT user_id, id FROM pymem.memories AS m JOIN pymem.kinds AS k USING (kind)"
            " WHERE pymem.decay_score(m.importance, coalesce(m.decay_rate, k.decay_rate),"
            " m.last_access_at, %s) < 0.05 LIMIT 1",
            (at,),
        ).fetchone()
        with psycopg.connect(fresh_dsn) as writer:
            writer.execute(
                "UPDATE pymem.memories SET mention_count = mention_count + 1"
                " WHERE user_id = %s AND id = %s",
                held,
            )
            conn.execute("SET statement_timeout = '20s'")
            started = time.monotonic()
            with conn.transaction(force_rollback=True):
                assert store.apply_decay(at=at).cooled == due - 1
            assert time.monotonic() - started < 15
            writer.rollback()
        conn.execute("CALL pymem.run_decay(at => %s, batch_blocks => 1)", (at,))
        assert conn.execute(
            "SELECT count(*) FROM pymem.memories WHERE tier = 'cold'"
        ).fetchone() == (due,)


@citus
def test_a_write_of_a_distributed_store_returns_once_its_wal_is_written(fresh_dsn):
    """A logical shard move counts its target caught up at the source's WAL write position;
    with synchronous_commit = off a commit not yet written there was lost in the old
    placement (1 move in 5 to 25 under writes lost up to 20 of them). pymem._lock_user, which
    every write takes on the user's worker, makes the write's commit wait for its WAL
    there (synchronous_commit = local for the transaction) and leaves stronger settings."""
    with psycopg.connect(fresh_dsn) as conn:
        user = _users_on_each_worker(conn, 1)[0]
        port = _node_of(conn, user)
    worker = next(d for d in _worker_dsns(fresh_dsn) if conninfo_to_dict(d)["port"] == str(port))
    with psycopg.connect(worker, autocommit=True) as conn:
        for before, after in [("off", "local"), ("on", "on"), ("remote_apply", "remote_apply")]:
            conn.execute(f"SET synchronous_commit = {before}")
            with conn.transaction():
                conn.execute("SELECT pymem._lock_user(%s)", (user,))
                assert conn.execute("SHOW synchronous_commit").fetchone() == (after,)
            # for the transaction only
            assert conn.execute("SHOW synchronous_commit").fetchone() == (before,)


@citus
def test_a_user_moved_to_another_worker_while_writes_go_on_loses_and_doubles_nothing(
    fresh_dsn,
):
    """scripts/bench_citus.py's scenario: the user's shard group moves (logical
    replication) while a writer adds the user's facts one call at a time."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "scripts" / "bench_citus.py"
    spec = importlib.util.spec_from_file_location("bench_citus", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    with MemoryStore(fresh_dsn) as store:
        store.upsert("user-1", "first note", unit(0))
    moved = bench.rebalance(fresh_dsn, seconds=0.5)
    assert moved["moved to the other worker"]
    assert moved["writes during the move"] > 0  # writes went on
    # nothing lost, nothing twice; the call that reached the old worker at the switch
    # failed there (ShardMoved) with nothing written, and the store ran it again
    assert (moved["lost"], moved["doubled"], moved["writes failed"]) == (0, 0, 0), moved[
        "their errors"
    ]
    assert moved["rows before/after"] == (1, 1 + moved["writes returned"])
    with MemoryStore(fresh_dsn) as store:  # the user's calls run on the new worker
        assert store.upsert("user-1", "after the move", unit(3)).action == "inserted"
