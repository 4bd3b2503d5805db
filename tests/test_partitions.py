"""A store hash-partitioned by user_id (docs/scaling.md).

The whole suite also runs on a partitioned store (``PYMEM_TEST_PARTITIONS=4``,
in ``.ci/run``). Here: every key includes user_id, and a populated plain store
converted by ``pymem migrate --partitions 4`` keeps every row and every rule.
"""

from __future__ import annotations

import psycopg
import pytest

from pymem import MemoryStore
from pymem.cli import main as cli
from pymem.errors import AlreadyConsolidated, InvalidParameter, StoreConflict
from pymem.migrate import migrate
from tests.conftest import at_cosine, unit

A, B = "ann", "bob"
# configuration shared by every user: the only tables without user_id
GLOBAL_TABLES = {"settings", "kinds", "goal_metrics", "schema_info", "fact_policies", "history_key"}


def test_every_key_of_users_tables_includes_user_id(conn):
    """What hash partitions and Citus co-location both need."""
    tables = dict(
        conn.execute(
            "SELECT c.relname, EXISTS (SELECT FROM pg_attribute AS a WHERE a.attrelid = c.oid"
            " AND a.attname = 'user_id' AND NOT a.attisdropped)"
            " FROM pg_class AS c WHERE c.relnamespace = 'pymem'::regnamespace"
            " AND c.relkind IN ('r', 'p') AND NOT c.relispartition"
        ).fetchall()
    )
    assert {t for t, has in tables.items() if not has} == GLOBAL_TABLES
    keys = conn.execute(
        "SELECT c.conrelid::regclass::text, c.conname, c.contype,"
        " 'user_id' = ANY(ARRAY(SELECT a.attname FROM pg_attribute AS a"
        "   WHERE a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey))),"
        " c.contype <> 'f' OR 'user_id' = ANY(ARRAY(SELECT a.attname FROM pg_attribute AS a"
        "   WHERE a.attrelid = c.confrelid AND a.attnum = ANY(c.confkey)))"
        " FROM pg_constraint AS c JOIN pg_class AS t ON t.oid = c.conrelid"
        " WHERE c.connamespace = 'pymem'::regnamespace AND c.contype IN ('p', 'u', 'f')"
        " AND NOT t.relispartition AND c.conparentid = 0"
        " AND t.relname <> ALL(%s)",
        (sorted(GLOBAL_TABLES),),
    ).fetchall()
    assert len(keys) >= 20
    # a foreign key to a shared table (a kind) cannot: such tables are what
    # Citus calls reference tables, copied to every node
    assert [k for k in keys if not (k[3] and k[4]) and k[1] != "memories_kind_fkey"] == []
    unique_indexes = conn.execute(
        "SELECT i.indexrelid::regclass::text,"
        " 'user_id' = ANY(ARRAY(SELECT a.attname FROM pg_attribute AS a"
        "   WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)))"
        " FROM pg_index AS i JOIN pg_class AS t ON t.oid = i.indrelid"
        " WHERE t.relnamespace = 'pymem'::regnamespace AND i.indisunique"
        " AND NOT t.relispartition AND t.relname <> ALL(%s)",
        (sorted(GLOBAL_TABLES),),
    ).fetchall()
    assert [name for name, has in unique_indexes if not has] == []


def _state(conn) -> dict[str, list[str]]:
    """Every row of every pymem table (parents, not leaves), as text."""
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT oid::regclass::text FROM pg_class WHERE relnamespace = 'pymem'::regnamespace"
            " AND relkind IN ('r', 'p') AND NOT relispartition ORDER BY 1"
        )
    ]
    return {
        t: [r[0] for r in conn.execute(f"SELECT to_jsonb(x)::text FROM {t} AS x ORDER BY 1")]
        for t in tables
    }


def _populate(store: MemoryStore) -> dict:
    ids = {}
    for user, base in ((A, 0), (B, 20)):
        ids[user, "tea"] = store.upsert(user, f"{user} drinks green tea", unit(base)).memory_id
        store.upsert(user, f"{user} drinks green tea", unit(base))  # duplicate: a mention
        store.upsert(user, f"{user}'s A1C is 7.2%", unit(base + 1), topic="health:a1c")
        store.upsert(user, f"{user}'s A1C is 6.8%", unit(base + 1), topic="health:a1c")
        store.upsert(user, f"{user} works with Xiaohong", unit(base + 2), contacts=["Xiaohong"])
        store.set_fact(user, "home_city", "Berlin")
        store.set_fact(user, "home_city", "Lisbon", confidence="high")
        fragments = [
            store.upsert(user, f"{user} {text}", at_cosine(0.9, base + 3, base + 4 + i))
            for i, text in enumerate(("likes coffee", "drinks americano", "takes no sugar"))
        ]
        ids[user, "coffee"] = store.consolidate(
            user, [f.memory_id for f in fragments], f"{user}'s coffee", unit(base + 3)
        )
    return ids


def test_a_populated_store_partitioned_keeps_every_row_and_rule(empty_dsn, capsys):
    migrate(empty_dsn)
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        store = MemoryStore(conn)
        ids = _populate(store)
        before = _state(conn)
        recall_before = [h.memory_id for h in store.recall(A, unit(0), 5)]
        assert store.store_partitions() is None

        # a view on a table would be dropped with it: refused, nothing changed
        conn.execute("CREATE VIEW public.ann_tea AS SELECT content FROM pymem.memories")
        with pytest.raises(StoreConflict, match="ann_tea"):
            store.partition_by_user(4)
        assert store.store_partitions() is None
        conn.execute("DROP VIEW public.ann_tea")

        assert cli(["--dsn", empty_dsn, "migrate", "--partitions", "4"]) == 0
        printed = capsys.readouterr().out
        assert "partitioned pymem.memories: 4 leaves by user_id" in printed
        assert store.store_partitions() == 4
        assert _state(conn) == before
        leaves = conn.execute(
            "SELECT count(*) FROM pg_partition_tree('pymem.memories') WHERE isleaf"
        ).fetchone()
        assert leaves == (4,)
        # fillfactor and the inline vector went to the leaves
        assert conn.execute(
            "SELECT reloptions, (SELECT attstorage FROM pg_attribute WHERE attrelid = c.oid"
            " AND attname = 'embedding') FROM pg_class AS c"
            " WHERE oid = 'pymem.memories_p0'::regclass"
        ).fetchone() == (["fillfactor=70"], "p")

        # again: nothing to do; another count: refused; a bad count: refused
        assert {t.converted for t in store.partition_by_user(4)} == {False}
        with pytest.raises(StoreConflict, match="partitioned in 4 leaves"):
            store.partition_by_user(8)
        with pytest.raises(InvalidParameter):
            store.partition_by_user(1)

        # every rule works on the leaves
        assert [h.memory_id for h in store.recall(A, unit(0), 5)] == recall_before
        again = store.upsert(A, "ann drinks green tea", unit(0))
        assert (again.action, again.memory_id) == ("duplicate", ids[A, "tea"])
        changed = store.upsert(A, "ann's A1C is 6.5%", unit(1), topic="health:a1c")
        assert changed.action == "superseded"
        store.undo(A, changed.memory_id)
        assert conn.execute(
            "SELECT content FROM pymem.memories WHERE id = %s", (changed.memory_id,)
        ).fetchone() == ("ann's A1C is 6.8%",)
        with pytest.raises(AlreadyConsolidated):  # the guard: a fragment twice
            sources = conn.execute(
                "SELECT source_ids FROM pymem.consolidations WHERE id = %s", (ids[A, "coffee"],)
            ).fetchone()[0]
            store.consolidate(A, sources[:2], "ann's coffee, again", unit(3))
        entries = len(store.fact_history(A, "home_city"))
        store.set_fact(A, "home_city", "Porto", confidence="high", source="confirmed")
        assert len(store.fact_history(A, "home_city")) == entries + 1
        # the identity went on after the copied ids
        assert conn.execute(
            "SELECT count(DISTINCT id) = count(*) FROM pymem.fact_history"
        ).fetchone() == (True,)
        (xiaohong,) = store.resolve_contact(A, "Xiaohong")
        assert "Xiaohong" in store.contact_card(A, xiaohong.contact_id)

        # one user's decay, run by the owner (no RLS), cools that user's rows only:
        # a ctid names a row only within one leaf
        with conn.transaction(force_rollback=True):
            for i in range(8):  # users in the other leaves, rows at the same ctids
                store.upsert(f"user-{i}", f"user {i} keeps bees", unit(40 + i))
            assert conn.execute(
                "SELECT count(DISTINCT tableoid) > 1 FROM pymem.memories"
            ).fetchone() == (True,)
            far = conn.execute("SELECT now() + interval '5 years'").fetchone()[0]
            assert store.apply_decay(at=far, user_id=A).cooled > 0
            assert conn.execute(
                "SELECT count(*) FROM pymem.memories WHERE tier = 'cold' AND user_id <> %s", (A,)
            ).fetchone() == (0,)

        # decay sweeps every leaf, batch by batch, each live row once
        live = "deleted_at IS NULL AND consolidated_into IS NULL"
        hot = conn.execute(
            f"SELECT count(*) FROM pymem.memories WHERE tier = 'hot' AND {live}"
        ).fetchone()[0]
        far = conn.execute("SELECT now() + interval '5 years'").fetchone()[0]
        with conn.transaction(force_rollback=True):
            swept = store.apply_decay(at=far, batch_blocks=1)
            assert swept.scanned == hot
            assert (
                swept.cooled
                == conn.execute(
                    f"SELECT count(*) FROM pymem.memories WHERE tier = 'cold' AND {live}"
                ).fetchone()[0]
                == swept.cold_total
            )

        # a leaf read directly shows the app no more than its parent does
        conn.execute("SET ROLE pymem_app")
        conn.execute("SELECT set_config('pymem.user_id', %s, false)", (A,))
        seen = sum(
            conn.execute(f"SELECT count(*) FROM pymem.memories_p{i}").fetchone()[0]
            for i in range(4)
        )
        assert seen == conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] > 0
        assert conn.execute(
            "SELECT count(*) FROM pymem.memories WHERE user_id <> %s", (A,)
        ).fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM pymem.memories_p0")
        conn.execute("RESET ROLE")


def test_migrate_partitions_a_table_a_later_migration_adds(empty_dsn):
    """A partitioned store stays so: a new table of users' rows is partitioned too,
    with its owner, grants (and grant options, column grants), a disabled trigger
    still disabled, an identity going on from where it stood and a serial column."""
    migrate(empty_dsn, partitions=2)
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        conn.execute("DROP ROLE IF EXISTS pymem_test_owner")
        conn.execute("DROP ROLE IF EXISTS pymem_test_reader")
        conn.execute("CREATE ROLE pymem_test_owner")
        conn.execute("CREATE ROLE pymem_test_reader")
        conn.execute(
            "CREATE TABLE pymem.notes (user_id text NOT NULL, id bigint GENERATED ALWAYS AS"
            " IDENTITY, n serial, body text, PRIMARY KEY (user_id, id))"
        )
        conn.execute(
            "INSERT INTO pymem.notes (user_id, body) VALUES ('ann', 'a'), ('bob', 'b'), ('cy', 'c')"
        )
        conn.execute("DELETE FROM pymem.notes WHERE id = 3")  # the identity stands at 3
        conn.execute("ALTER TABLE pymem.notes OWNER TO pymem_test_owner")
        conn.execute("GRANT SELECT ON pymem.notes TO pymem_test_reader WITH GRANT OPTION")
        conn.execute("GRANT UPDATE (body) ON pymem.notes TO pymem_test_reader")
        conn.execute(
            "CREATE TRIGGER notes_touch BEFORE UPDATE ON pymem.notes FOR EACH ROW"
            " EXECUTE FUNCTION suppress_redundant_updates_trigger()"
        )
        conn.execute("ALTER TABLE pymem.notes DISABLE TRIGGER notes_touch")

        result = migrate(empty_dsn)
        assert result.partitioned == [("notes", 2, 2)]
        assert conn.execute(
            "SELECT relkind, relowner::regrole::text FROM pg_class"
            " WHERE oid = 'pymem.notes'::regclass"
        ).fetchone() == ("p", "pymem_test_owner")
        assert conn.execute(
            "SELECT relowner::regrole::text FROM pg_class WHERE oid = 'pymem.notes_p1'::regclass"
        ).fetchone() == ("pymem_test_owner",)
        assert conn.execute(
            "SELECT has_table_privilege('pymem_test_reader', 'pymem.notes',"
            " 'SELECT WITH GRANT OPTION'), has_column_privilege('pymem_test_reader',"
            " 'pymem.notes', 'body', 'UPDATE'), has_column_privilege('pymem_test_reader',"
            " 'pymem.notes', 'user_id', 'UPDATE')"
        ).fetchone() == (True, True, False)
        assert conn.execute(
            "SELECT tgenabled FROM pg_trigger WHERE tgrelid = 'pymem.notes'::regclass"
            " AND tgname = 'notes_touch'"
        ).fetchone() == ("D",)
        conn.execute("INSERT INTO pymem.notes (user_id, body) VALUES ('ann', 'd')")
        assert conn.execute("SELECT id, n FROM pymem.notes WHERE body = 'd'").fetchone() == (4, 4)
        conn.execute("DROP TABLE pymem.notes")
        conn.execute("DROP ROLE pymem_test_owner")
        conn.execute("DROP ROLE pymem_test_reader")


@pytest.mark.parametrize("count", [0, 1, -3])
def test_migrate_refuses_a_partition_count_below_two(empty_dsn, count):
    """0 was taken for "not given" and the store stayed plain without a word."""
    with pytest.raises(InvalidParameter):
        migrate(empty_dsn, partitions=count)
    assert cli(["--dsn", empty_dsn, "migrate", "--partitions", str(count)]) == 2


def test_a_later_table_referencing_a_partitioned_one_is_partitioned_with_its_key(empty_dsn):
    """A foreign key to a partitioned table has a child constraint per leaf; only the
    key itself is dropped and made again (dropping a child failed: 'does not exist')."""
    migrate(empty_dsn, partitions=2)
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        memory = MemoryStore(conn).upsert(A, "ann drinks green tea", unit(0)).memory_id
        conn.execute(
            "CREATE TABLE pymem.memory_notes (user_id text NOT NULL, memory_id uuid NOT NULL,"
            " body text, PRIMARY KEY (user_id, memory_id), FOREIGN KEY (user_id, memory_id)"
            " REFERENCES pymem.memories (user_id, id) ON DELETE CASCADE)"
        )
        conn.execute(
            "INSERT INTO pymem.memory_notes VALUES (%s, %s, 'first met at a tea house')",
            (A, memory),
        )
        assert migrate(empty_dsn).partitioned == [("memory_notes", 2, 1)]
        keys = conn.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE conrelid = 'pymem.memory_notes'::regclass AND contype = 'f'"
            " AND conparentid = 0"
        ).fetchall()
        assert len(keys) == 1 and "REFERENCES pymem.memories(user_id, id)" in keys[0][1]
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute("INSERT INTO pymem.memory_notes VALUES (%s, gen_random_uuid(), 'x')", (A,))
        conn.execute("DELETE FROM pymem.memories WHERE id = %s", (memory,))
        assert conn.execute("SELECT count(*) FROM pymem.memory_notes").fetchone() == (0,)


def test_what_would_be_lost_makes_partitioning_fail_whole(empty_dsn):
    """A policy of another table, or a column of another table typed by a table's
    rows, would go with the old table: the conversion fails, nothing changed."""
    migrate(empty_dsn)
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        store = MemoryStore(conn)
        store.upsert(A, "ann drinks green tea", unit(0))
        conn.execute(
            "CREATE POLICY reviews_of_live_memories ON pymem.reviews AS RESTRICTIVE"
            " USING (EXISTS (SELECT FROM pymem.memories AS m WHERE m.user_id = reviews.user_id"
            " AND m.id = reviews.memory_id))"
        )
        with pytest.raises(StoreConflict, match="other objects depend on it"):
            store.partition_by_user(2)
        conn.execute("DROP POLICY reviews_of_live_memories ON pymem.reviews")
        conn.execute("CREATE TABLE public.archive (snapshot pymem.memories[])")
        with pytest.raises(StoreConflict):
            store.partition_by_user(2)
        assert store.store_partitions() is None
        assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone() == (1,)
        conn.execute("DROP TABLE public.archive")
        assert len(store.partition_by_user(2)) >= 11


def test_partitioning_a_new_table_waits_at_most_lock_timeout(empty_dsn):
    """Behind a reader of the new table the conversion's lock would queue and block every
    reader after it: it gives up after lock_timeout, changes nothing, and the next run does it."""
    import time

    from pymem.errors import LockTimeout

    migrate(empty_dsn, partitions=2)
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE pymem.notes (user_id text NOT NULL, body text)")
    with psycopg.connect(empty_dsn) as reader:
        reader.execute("SELECT count(*) FROM pymem.notes").fetchone()  # an open transaction
        started = time.monotonic()
        with pytest.raises(LockTimeout):
            migrate(empty_dsn, lock_timeout="300ms")
        assert time.monotonic() - started < 10
        reader.rollback()
    assert migrate(empty_dsn).partitioned == [("notes", 2, 0)]
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE pymem.notes")


@pytest.mark.parametrize("second", [8, 4])
def test_a_second_conversion_waits_for_the_first_and_reads_the_store_after_it(empty_dsn,
                                                                             second):  # fmt: skip
    """Two partition_by_user calls at once: the second waited on the first's locks holding
    the ids of the tables the first dropped, and failed with a raw syntax error (42601).
    It reads the store once it has the lock: another count is PM013, the same a no-op."""
    import threading

    migrate(empty_dsn)
    with MemoryStore(empty_dsn) as store:
        store.upsert("u", "Ann plays chess", unit(0))
    outcome: list = []
    with psycopg.connect(empty_dsn) as first, psycopg.connect(empty_dsn) as other:
        first.execute("SELECT * FROM pymem.partition_by_user(4)").fetchall()  # not committed

        def run():
            try:
                outcome.append(
                    other.execute("SELECT * FROM pymem.partition_by_user(%s)", (second,)).fetchall()
                )
            except psycopg.Error as exc:
                outcome.append(exc)

        thread = threading.Thread(target=run)
        thread.start()
        thread.join(timeout=0.5)  # it waits on the first's lock
        first.commit()
        thread.join(timeout=30)
    (result,) = outcome
    if second == 8:
        assert isinstance(result, psycopg.Error) and result.sqlstate == "PM013", result
    else:
        assert not isinstance(result, Exception), result
        assert result and not any(converted for *_, converted in result)
    with psycopg.connect(empty_dsn) as conn:
        assert conn.execute("SELECT pymem.store_partitions()").fetchone() == (4,)
        assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone() == (1,)
