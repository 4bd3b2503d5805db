"""Migrations: apply, re-apply, list, rollback, dimensions, concurrency, plain yoyo."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import psycopg
import pytest

from pymem import MemoryStore
from pymem.cli import main
from pymem.errors import DimensionMismatch, PymemError, StoreConflict
from pymem.migrate import migrate, migrate_if_drifted, migrations_dir, yoyo_uri
from tests.conftest import unit


def _schema_exists(dsn: str) -> bool:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = 'pymem')"
        ).fetchone()[0]


def _function_count(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT count(*) FROM pg_proc WHERE pronamespace = 'pymem'::regnamespace"
        ).fetchone()[0]


def _migration_ids() -> list[str]:
    return sorted(p.name[: -len(".sql")] for p in migrations_dir().glob("[0-9]*[!k].sql"))


def test_apply_reapply_rollback_reapply(empty_dsn, capsys):
    ids = _migration_ids()
    assert ids[:3] == ["0001.initial-schema", "0002.row-level-security", "0003.goal-metrics"]
    assert main(["--dsn", empty_dsn, "migrate"]) == 0
    assert f"applied: {', '.join(ids)}" in capsys.readouterr().out
    functions = _function_count(empty_dsn)
    assert functions > 10

    # idempotent: nothing new, same functions, exit 0
    assert main(["--dsn", empty_dsn, "migrate"]) == 0
    assert "applied: nothing new" in capsys.readouterr().out
    assert _function_count(empty_dsn) == functions

    assert main(["--dsn", empty_dsn, "migrate", "--list"]) == 0
    listing = capsys.readouterr().out
    for migration_id in ids:
        assert f"applied  {migration_id}" in listing
    # listing changes nothing: an option that would is refused, not ignored
    assert main(["--dsn", empty_dsn, "migrate", "--list", "--rollback", "--yes"]) == 2
    assert "leave out --rollback, --yes" in capsys.readouterr().err
    assert _schema_exists(empty_dsn)

    assert main(["--dsn", empty_dsn, "migrate", "--rollback"]) == 0
    assert f"rolled back: {', '.join(reversed(ids))}" in capsys.readouterr().out
    assert not _schema_exists(empty_dsn)
    assert main(["--dsn", empty_dsn, "migrate", "--list"]) == 0
    assert "pending  0001.initial-schema" in capsys.readouterr().out

    assert main(["--dsn", empty_dsn, "migrate"]) == 0
    assert _function_count(empty_dsn) == functions
    with MemoryStore(empty_dsn) as store:
        assert store.upsert("u", "works after re-apply", unit(0)).action == "inserted"


def test_a_rollback_that_stops_says_what_it_already_rolled_back(empty_dsn):
    """yoyo rolls back one migration a transaction: a reader holding pymem.facts stops the
    rollback at the migration that drops it, after the later ones went. The error names
    them and the code of the cause; `pymem migrate` makes the store whole again."""
    migrate(empty_dsn)
    ids = _migration_ids()
    with psycopg.connect(empty_dsn) as reader:
        reader.execute("SELECT count(*) FROM pymem.facts")  # held until the rollback below
        with pytest.raises(PymemError) as stopped:
            migrate(empty_dsn, rollback=True, lock_timeout="300ms")
        reader.rollback()
    message = str(stopped.value)
    assert stopped.value.sqlstate == "55P03", message
    assert f"already rolled back: {ids[-1]}" in message
    at = message.split("rollback stopped at ")[1].split(":")[0]
    assert at in ids and at != ids[-1]
    assert "pymem migrate" in stopped.value.hint
    with psycopg.connect(empty_dsn) as conn:
        version = conn.execute("SELECT version FROM pymem.schema_info").fetchone()[0]
    assert version == int(at.split(".")[0])
    assert migrate(empty_dsn).applied == ids[ids.index(at) + 1 :]


def test_rollback_removes_data_and_schema(empty_dsn):
    migrate(empty_dsn)
    with MemoryStore(empty_dsn) as store:
        store.upsert("u", "a fact", unit(0))
    migrate(empty_dsn, rollback=True)
    assert not _schema_exists(empty_dsn)


def test_concurrent_migrations_do_not_corrupt(empty_dsn):
    errors: list[BaseException] = []
    barrier = threading.Barrier(3)

    def run():
        try:
            barrier.wait()
            migrate(empty_dsn)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with psycopg.connect(empty_dsn) as conn:
        applied = conn.execute(
            "SELECT count(*) FROM _yoyo_migration WHERE migration_id = '0001.initial-schema'"
        ).fetchone()[0]
        assert applied == 1
        assert conn.execute("SELECT count(*) FROM pymem.settings").fetchone()[0] == 1
        assert conn.execute("SELECT count(*) FROM pymem.kinds").fetchone()[0] >= 7


def test_dimensions_fixed_at_creation(empty_dsn):
    result = migrate(empty_dsn, dimensions=3)
    assert result.dimensions == 3
    with MemoryStore(empty_dsn) as store:
        assert store.get_settings().embedding_dimensions == 3
        assert store.upsert("u", "three dims", [1.0, 0.0, 0.0]).action == "inserted"
        with pytest.raises(DimensionMismatch, match=r"512.*3"):
            store.upsert("u", "wrong dims", unit(0))
    # same dimension again: fine; another one once data exists: refused
    assert migrate(empty_dsn, dimensions=3).dimensions == 3
    with pytest.raises(StoreConflict, match="3 dimensional"):
        migrate(empty_dsn, dimensions=4)


def test_a_new_dimension_keeps_the_vector_inline_while_it_fits(empty_dsn):
    """ALTER COLUMN TYPE resets a column's storage to the type's default (EXTERNAL:
    toasted past ~2 kB, detoasted by every scan); up to 1600 dimensions the vector
    stays PLAIN, wider ones cannot (a row must fit in a page) and still work."""
    migrate(empty_dsn)
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        storage = "SELECT attstorage FROM pg_attribute WHERE attrelid = 'pymem.memories'::regclass"
        storage += " AND attname = 'embedding'"
        for dimensions, expected in ((384, "p"), (1536, "p"), (3072, "e")):
            conn.execute("SELECT pymem._set_dimensions(%s)", (dimensions,))
            assert conn.execute(storage).fetchone() == (expected,), dimensions
        store = MemoryStore(conn)
        wide = np.zeros(3072, dtype=np.float32)
        wide[0] = 1.0
        assert store.upsert("u", "a wide vector", wide).action == "inserted"


def test_cli_reports_store_conflict(empty_dsn, capsys):
    migrate(empty_dsn, dimensions=3)
    with MemoryStore(empty_dsn) as store:
        store.upsert("u", "x", [0.0, 1.0, 0.0])
    assert main(["--dsn", empty_dsn, "migrate", "--dimensions", "8"]) == 2
    assert "PM013" in capsys.readouterr().err


def test_plain_yoyo_apply_loads_functions(empty_dsn):
    cmd = [
        sys.executable,
        "-m",
        "yoyo",
        "apply",
        "--batch",
        "--no-config-file",
        "--database",
        yoyo_uri(empty_dsn),
        str(migrations_dir()),
    ]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    # the post-apply hook created the API
    with MemoryStore(empty_dsn) as store:
        assert store.upsert("u", "via yoyo", unit(0)).action == "inserted"
    # and pymem migrate agrees nothing is pending
    assert migrate(empty_dsn).applied == []


def test_migrate_waits_for_no_reader(fresh_dsn):
    """Re-applying sql/ (every `pymem migrate`) takes no lock that a reader's open
    transaction holds up: a dashboard's long SELECT never stalls a deploy."""
    with psycopg.connect(fresh_dsn) as reader:
        reader.execute("SELECT count(*) FROM pymem.memories").fetchone()
        reader.execute("SELECT count(*) FROM pymem.reviews").fetchone()
        done = threading.Event()
        failure: list = []

        def run() -> None:
            try:
                migrate(fresh_dsn)
            except Exception as exc:  # asserted below
                failure.append(exc)
            done.set()

        thread = threading.Thread(target=run)
        thread.start()
        finished = done.wait(timeout=60)
        reader.rollback()
        thread.join()
    assert finished and not failure, failure


def test_a_migration_behind_a_long_reader_gives_up_instead_of_blocking(fresh_dsn):
    """The DDL of a pending migration needs a brief exclusive lock: behind a reader's
    open transaction it would queue and block every reader after it. It waits at most
    lock_timeout, rolls back whole, and the next run applies it."""
    from yoyo import get_backend, read_migrations

    from pymem.errors import LockTimeout

    backend = get_backend(yoyo_uri(fresh_dsn))
    try:
        migrations = read_migrations(str(migrations_dir()))
        # from the newest migration whose DDL locks a table the reader below holds
        start = max(
            i
            for i, m in enumerate(migrations)
            if "ALTER TABLE pymem.settings" in Path(m.path).read_text(encoding="utf-8")
        )
        newest = migrations[start:]
        with backend.lock():
            backend.rollback_migrations(newest)
    finally:
        backend.connection.close()
    with psycopg.connect(fresh_dsn) as reader:
        reader.execute("SELECT * FROM pymem.settings").fetchone()  # a long report, say
        with pytest.raises(LockTimeout):
            migrate(fresh_dsn, lock_timeout="300ms")
        # a reader that comes after the failed migration is not blocked
        with psycopg.connect(fresh_dsn, autocommit=True) as other:
            other.execute("SET lock_timeout = '2s'")
            assert other.execute("SELECT count(*) FROM pymem.settings").fetchone() == (1,)
        reader.rollback()
    assert migrate(fresh_dsn).applied == [m.id for m in newest]


def test_a_function_whose_result_type_changed_is_made_again_in_the_load(fresh_dsn):
    """CREATE OR REPLACE cannot change a result type: sql/ drops such a function and makes it
    again inside its one transaction (a migration that dropped it left every writer
    without it until sql/ was loaded: 42883 for concurrent writes during an upgrade)."""
    signature = (
        "pymem.upsert_memory_arrays(text, text[], vector[], jsonb, double precision,"
        " double precision, text)"
    )
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        # the shape it had before pymem.write_result (migration 0013)
        conn.execute(f"DROP FUNCTION {signature}")
        conn.execute(
            "CREATE FUNCTION pymem.upsert_memory_arrays(user_id text, contents text[],"
            " embeddings vector[], options jsonb DEFAULT NULL,"
            " dedup_threshold double precision DEFAULT NULL,"
            " supersede_threshold double precision DEFAULT NULL, on_related text DEFAULT NULL)"
            " RETURNS TABLE (ordinal integer, memory_id uuid, action text,"
            " similarity double precision, matched_id uuid, rule text)"
            " LANGUAGE sql"
            " AS 'SELECT NULL::integer, NULL::uuid, NULL, NULL::float8, NULL::uuid, NULL'"
        )
    assert migrate(fresh_dsn).applied == []
    with psycopg.connect(fresh_dsn) as conn:
        (result,) = conn.execute(
            "SELECT prorettype::regtype::text FROM pg_proc WHERE oid = %s::regprocedure",
            (signature,),
        ).fetchone()
    assert result == "pymem.write_result"


def test_a_function_whose_columns_changed_is_made_again_and_no_other_is(fresh_dsn):
    """pymem._drop_if_columns_differ: a RETURNS TABLE function's result type is always
    record, so its columns are compared; a store whose pending_reviews has the columns of
    before its reviewer's failures (attempts, last_error, parked_at) gets the new ones, and
    a store already current keeps the very function (no drop on every migrate)."""
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("DROP FUNCTION pymem.pending_reviews(text)")
        conn.execute(
            "CREATE FUNCTION pymem.pending_reviews(user_id text)"
            " RETURNS TABLE (review_id uuid, cause text, memory_id uuid, matched_id uuid,"
            " fact_key text, similarity double precision, note text, created_at timestamptz,"
            " content text, matched_content text) LANGUAGE sql"
            " AS 'SELECT NULL::uuid, NULL, NULL::uuid, NULL::uuid, NULL, NULL::float8, NULL,"
            " NULL::timestamptz, NULL, NULL'"
        )
    assert migrate(fresh_dsn).applied == []
    current = "SELECT oid, pg_get_function_result(oid) FROM pg_proc WHERE oid = %s::regprocedure"
    with psycopg.connect(fresh_dsn) as conn:
        oid, columns = conn.execute(current, ("pymem.pending_reviews(text)",)).fetchone()
    assert columns.endswith(
        "attempts integer, last_error text, parked_at timestamp with time zone)"
    )
    migrate(fresh_dsn)
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute(current, ("pymem.pending_reviews(text)",)).fetchone()[0] == oid


def test_recalls_index_built_beforehand_without_blocking_writes_is_kept(fresh_dsn):
    """A DBA builds migration 0019's index with CREATE INDEX CONCURRENTLY (writes go on)
    before upgrading a large store; the migration then finds it and builds nothing
    (docs/operations.md). Simulated on a store at version 18; on a hash-partitioned store,
    whose parent refuses CONCURRENTLY, the index is built plainly beforehand."""
    definition = (
        "ON pymem.memories (user_id) WHERE consolidated_into IS NULL AND deleted_at IS NULL"
    )
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("DROP INDEX pymem.memories_user_live_idx")
        conn.execute(
            "DELETE FROM _yoyo_migration"
            " WHERE migration_id IN ('0019.user-live-index', '0020.recall-plans')"
        )
        conn.execute("UPDATE pymem.schema_info SET version = 18")
        # a partitioned parent refuses CONCURRENTLY: there it is built in the window
        partitioned = conn.execute(
            "SELECT relkind = 'p' FROM pg_class WHERE oid = 'pymem.memories'::regclass"
        ).fetchone()[0]
        how = "" if partitioned else "CONCURRENTLY"
        conn.execute(f"CREATE INDEX {how} memories_user_live_idx {definition}")
        oid = conn.execute("SELECT 'pymem.memories_user_live_idx'::regclass::oid").fetchone()[0]
    assert migrate(fresh_dsn).applied == ["0019.user-live-index", "0020.recall-plans"]
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT pymem.schema_version()").fetchone()[0] == 20
        assert (
            conn.execute("SELECT 'pymem.memories_user_live_idx'::regclass::oid").fetchone()[0]
            == oid
        )


def test_migrate_if_drifted_leaves_a_current_store_and_repairs_one_that_drifted(fresh_dsn):
    """What the CLI runs before a command on the embedded server: a store that is what
    this release installs is left alone (no function reloaded: each reload makes every
    other session compile them again); one that drifted is migrated, which repairs it."""
    loaded = "SELECT xmin::text FROM pg_proc WHERE oid = 'pymem.schema_version()'::regprocedure"
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        before = conn.execute(loaded).fetchone()
        assert migrate_if_drifted(fresh_dsn) is None
        assert conn.execute(loaded).fetchone() == before
        conn.execute("DROP TRIGGER memories_version_on_change ON pymem.memories")
        assert migrate_if_drifted(fresh_dsn) is not None
        assert conn.execute(loaded).fetchone() != before
        assert conn.execute(
            "SELECT count(*) FROM pg_trigger WHERE tgname = 'memories_version_on_change'"
            " AND tgrelid = 'pymem.memories'::regclass"  # not its partitions' clones
        ).fetchone() == (1,)
        assert migrate_if_drifted(fresh_dsn) is None
