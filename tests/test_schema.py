"""Migration safety: a fresh install, an install upgraded one migration at a
time and one rolled back to nothing and re-applied all match the committed
schema snapshot; functions dropped from sql/ leave the database; pymem runs
with its extensions in a schema of their own."""

from __future__ import annotations

import difflib
from pathlib import Path

import psycopg
import pytest

from pymem import MemoryStore
from pymem.migrate import apply_functions, migrate, migrations_dir, yoyo_uri
from pymem.snapshot import SHIPPED, migration_checksums, schema_snapshot
from tests.conftest import at_cosine, unit

REGENERATE = "python -m pymem.snapshot --fresh --write pymem/data/schema_snapshot.txt"
CHECKSUMS = Path(__file__).resolve().parent / "migration_checksums.txt"


def _assert_snapshot(dsn_or_conn, label: str) -> None:
    if isinstance(dsn_or_conn, str):
        with psycopg.connect(dsn_or_conn) as conn:
            actual = schema_snapshot(conn)
    else:
        actual = schema_snapshot(dsn_or_conn)
    expected = SHIPPED.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), actual.splitlines(True), "committed", label, n=0
            )
        )
        pytest.fail(f"{label} differs from pymem/data/schema_snapshot.txt ({REGENERATE}):\n{diff}")


def _version(dsn: str) -> int | None:
    with psycopg.connect(dsn) as conn:
        if conn.execute("SELECT to_regclass('pymem.schema_info')").fetchone()[0] is None:
            return None
        return conn.execute("SELECT version FROM pymem.schema_info").fetchone()[0]


def test_fresh_install_matches_the_snapshot(conn):
    _assert_snapshot(conn, "fresh install")


def test_shipped_migrations_never_change():
    """A store that applied a migration never runs it again: a schema change goes
    in a new migration, and the hash of every shipped one stays as committed (a
    new migration adds its line to tests/migration_checksums.txt)."""
    committed = CHECKSUMS.read_text(encoding="utf-8").splitlines()
    current = migration_checksums()
    changed = [line for line in committed if line not in current]
    assert not changed, f"shipped migrations changed: {changed}"
    assert current[: len(committed)] == committed


def test_upgrade_step_by_step_rollback_to_nothing_and_reapply(empty_dsn):
    from yoyo import get_backend, read_migrations

    migrations = read_migrations(str(migrations_dir()))
    numbers = [int(m.id.split(".", 1)[0]) for m in migrations]
    assert numbers == list(range(1, len(numbers) + 1))
    backend = get_backend(yoyo_uri(empty_dsn))
    try:
        # up, one migration at a time; each records its own number (from 0004)
        for migration, number in zip(migrations, numbers, strict=True):
            with backend.lock():
                backend.apply_migrations_only(backend.to_apply(migrations.filter(
                    lambda m, wanted=migration.id: m.id == wanted)))  # fmt: skip
            assert _version(empty_dsn) == (number if number >= 4 else None), migration.id
        with psycopg.connect(empty_dsn, autocommit=True) as conn:
            apply_functions(conn)
        _assert_snapshot(empty_dsn, "upgraded one migration at a time")
        # down, one at a time, to nothing
        for migration, number in reversed(list(zip(migrations, numbers, strict=True))):
            with backend.lock():
                backend.rollback_migrations(backend.to_rollback(migrations.filter(
                    lambda m, wanted=migration.id: m.id == wanted)))  # fmt: skip
            assert _version(empty_dsn) == (number - 1 if number >= 5 else None), migration.id
    finally:
        backend.connection.close()
    with psycopg.connect(empty_dsn) as conn:
        assert conn.execute("SELECT to_regnamespace('pymem')").fetchone() == (None,)
    assert len(migrate(empty_dsn).applied) == len(migrations)
    _assert_snapshot(empty_dsn, "rolled back and re-applied")


def test_a_store_from_before_the_edit_of_0004_is_repaired(fresh_dsn):
    """0004 gained settings.trigram_min_similarity after it shipped: a store
    that applied the earlier 0004 (here: 0008 rolled back, the column
    dropped) gets the column from 0008 and then equals a fresh install."""
    from yoyo import get_backend, read_migrations

    migrations = read_migrations(str(migrations_dir()))
    backend = get_backend(yoyo_uri(fresh_dsn))
    try:
        with backend.lock():
            backend.rollback_migrations(backend.to_rollback(migrations.filter(
                lambda m: m.id >= "0008.security")))  # fmt: skip
    finally:
        backend.connection.close()
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("ALTER TABLE pymem.settings DROP COLUMN trigram_min_similarity")
    later = [m.id for m in migrations if m.id >= "0008.security"]
    assert migrate(fresh_dsn).applied == later
    _assert_snapshot(fresh_dsn, "repaired by 0008")
    with MemoryStore(fresh_dsn) as store:
        assert store.upsert("ann", "Ann plays go", unit(0)).action == "inserted"


def test_a_store_of_the_first_0004_upgrades_and_keeps_its_memories(fresh_dsn):
    """The first 0004 (the facts release shipped it) had no pymem.memory_item and
    no settings.dedup_term_change / trigram_min_similarity; later edits of 0004
    added them, so `pymem migrate` of such a store committed 0005-0009, then
    failed loading sql/ ("type pymem.memory_item does not exist") on every run.
    Here: a store at 0005 with 0004's later additions removed, holding a memory."""
    from yoyo import get_backend, read_migrations

    with MemoryStore(fresh_dsn) as store:
        kept = store.upsert("ann", "Ann plays go", unit(0)).memory_id
    migrations = read_migrations(str(migrations_dir()))
    backend = get_backend(yoyo_uri(fresh_dsn))
    try:
        with backend.lock():
            backend.rollback_migrations(backend.to_rollback(migrations.filter(
                lambda m: m.id > "0005.facts")))  # fmt: skip
    finally:
        backend.connection.close()
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("DROP TYPE pymem.memory_item CASCADE")
        conn.execute(
            "ALTER TABLE pymem.settings DROP COLUMN dedup_term_change,"
            " DROP COLUMN trigram_min_similarity"
        )
    later = [m.id for m in migrations if m.id > "0005.facts"]
    assert migrate(fresh_dsn).applied == later
    _assert_snapshot(fresh_dsn, "a store of the first 0004, upgraded")
    with MemoryStore(fresh_dsn) as store:
        assert store.upsert("ann", "Ann plays go.", unit(0)).memory_id == kept
        assert store.upsert("ann", "Ann has a cat", unit(1)).action == "inserted"


def test_functions_gone_from_sql_are_dropped_on_migrate(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("CREATE FUNCTION pymem.obsolete() RETURNS int LANGUAGE sql RETURN 1")
        conn.execute("CREATE FUNCTION pymem._old_helper(x int) RETURNS int LANGUAGE sql RETURN x")
        # an overload of a name sql/ still defines, with a signature it no longer has
        conn.execute("CREATE FUNCTION pymem.get_settings(x int) RETURNS int LANGUAGE sql RETURN x")
        conn.execute("CREATE PROCEDURE pymem.old_job() LANGUAGE sql AS 'SELECT 1'")
        # something depends on this one: kept, and reported
        conn.execute("CREATE FUNCTION pymem._still_used() RETURNS int LANGUAGE sql RETURN 7")
        conn.execute("CREATE TABLE pymem.extra (n int DEFAULT pymem._still_used())")
    result = migrate(fresh_dsn)
    assert result.applied == []
    assert sorted(result.dropped) == [
        "pymem._old_helper(integer)",
        "pymem.get_settings(integer)",
        "pymem.obsolete()",
        "pymem.old_job()",
    ]
    assert result.kept == ["pymem._still_used()"]
    with psycopg.connect(fresh_dsn) as conn:
        names = {r[0] for r in conn.execute(
            "SELECT proname FROM pg_proc WHERE pronamespace = 'pymem'::regnamespace")}  # fmt: skip
        conn.execute("DROP TABLE pymem.extra")
        conn.execute("DROP FUNCTION pymem._still_used()")
        conn.commit()
    # the migrations' own functions (stored fingerprints depend on them) stay
    assert {"_normalize", "_fingerprint", "_normalize_name", "get_settings"} <= names
    assert "obsolete" not in names
    _assert_snapshot(fresh_dsn, "after dropping stale functions")


def test_extensions_in_their_own_schema(empty_dsn):
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA extensions")
        conn.execute("CREATE EXTENSION vector SCHEMA extensions")
        conn.execute("CREATE EXTENSION pg_trgm SCHEMA extensions")
    migrate(empty_dsn)
    with psycopg.connect(empty_dsn) as conn:
        paths = conn.execute(
            "SELECT DISTINCT array_to_string(proconfig, ';') FROM pg_proc"
            " WHERE pronamespace = 'pymem'::regnamespace AND proconfig IS NOT NULL"
        ).fetchall()
        assert sorted({p.split(";")[0] for (p,) in paths}) == [
            "search_path=pg_catalog, pg_temp",
            "search_path=pg_catalog, pymem, extensions, pg_temp",
        ]
        assert conn.execute("SELECT count(*) FROM pg_extension WHERE extnamespace ="
                            " 'public'::regnamespace").fetchone() == (0,)  # fmt: skip
    _assert_snapshot(empty_dsn, "extensions in schema extensions")
    # the core API, from a session whose search_path does not name extensions
    with MemoryStore(empty_dsn) as store:
        first = store.upsert("ann", "Ann drinks green tea every morning", unit(0))
        assert store.upsert("ann", "Ann drinks green tea every morning!", unit(0)).action == (
            "duplicate"
        )
        store.upsert("ann", "Ann is learning React", unit(1), topic="skill:react")
        newer = store.upsert("ann", "Ann is proficient in React", at_cosine(0.8, 1, 2),
                             topic="skill:react")  # fmt: skip
        assert newer.action == "superseded"
        hits = store.recall("ann", unit(0), 3, query_text="green tea")
        assert hits[0].memory_id == first.memory_id and hits[0].lexical > 0
        assert store.apply_decay(cold_below=1.0).cooled == 2
        assert store.set_fact("ann", "city", "Paris") == "set"
        assert store.get_fact("ann", "city") == "Paris"
        lily = store.sync_contact("ann", "Lily", [first.memory_id], aliases=["Lil"])
        assert [m.contact_id for m in store.resolve_contact("ann", "Lilly")] == [lily]
        assert [m.contact_id for m in store.mentioned_contacts("ann", "Lil said hi")] == [lily]
        assert store.undo("ann", newer.memory_id) == 1
        # a batch, in the typed form (binary vector[])
        typed = store.upsert_many("ann", [{"content": "Ann plays chess", "embedding": unit(5)}])
        assert [r.action for r in typed] == ["inserted"]


@pytest.mark.parametrize("value", ["NaN", "Infinity"])
def test_rates_and_weights_are_finite(conn, value):
    """PostgreSQL orders NaN above every number, so `>= 0` alone let NaN and
    Infinity in; a non-finite decay rate makes recall's scores NaN (0009)."""
    for statement in (
        "INSERT INTO pymem.kinds (kind, decay_rate, description) VALUES ('odd', %s, 'x')",
        "UPDATE pymem.settings SET recall_lexical_weight = %s",
        "UPDATE pymem.settings SET recall_state_boost = %s",
        "INSERT INTO pymem.memories (user_id, kind, content, embedding, decay_rate)"
        " SELECT 'u', 'fact', 'x', embedding, %s FROM (SELECT array_fill(0.1, ARRAY[512])"
        "::real[]::public.vector AS embedding) AS v",
    ):
        with pytest.raises(psycopg.errors.CheckViolation), conn.transaction():
            conn.execute(statement, (float(value),))
