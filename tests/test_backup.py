"""Backups and drift: a dumped store restores, in every usual form, into the same
or a new cluster, with every trigger, policy, grant and function, and records
history from the first write; `pymem check` tells whether a store is what this
release installs, and `pymem migrate` repairs what sql/ defines."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from pymem import MemoryStore
from pymem.cli import main
from pymem.migrate import migrate
from pymem.server import create_database, start_embedded, stop_embedded
from pymem.snapshot import drift, schema_snapshot
from tests import backup, citus_backend
from tests.conftest import _memory_backed_dir

pytestmark = [
    pytest.mark.skipif(
        citus_backend.DSN is not None, reason="Citus: a distributed store is backed up per node"
    ),
]


def _pymem(*args: str) -> subprocess.CompletedProcess:
    """The pymem command, run in this process (a new interpreter costs ~1 s a call)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def source(admin_dsn: str, template_dsn: str, tmp_path_factory) -> Iterator[dict]:
    """A populated store, its ids, its snapshot and its dumps."""
    name = f"pymem_backup_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE pymem_test_template")
    dsn = make_conninfo(admin_dsn, dbname=name)
    ids = backup.populate(dsn)
    with psycopg.connect(dsn) as conn:
        snapshot = schema_snapshot(conn)
        counts = _counts(conn)
    dumps = backup.dump(dsn, tmp_path_factory.mktemp("dumps"))
    yield {"dsn": dsn, "ids": ids, "snapshot": snapshot, "counts": counts, "dumps": dumps}
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="module")
def new_cluster() -> Iterator[str]:
    """Another embedded server: a cluster that has never heard of pymem_app."""
    tmp = Path(tempfile.mkdtemp(prefix="pymem-restore-", dir=_memory_backed_dir()))
    admin = start_embedded(tmp / "pg", database="postgres")
    yield admin
    stop_embedded(tmp / "pg")
    shutil.rmtree(tmp, ignore_errors=True)


def _empty_database(admin_dsn: str) -> str:
    name = f"pymem_restored_{uuid.uuid4().hex[:8]}"
    create_database(admin_dsn, name)
    return make_conninfo(admin_dsn, dbname=name)


_TABLES = (
    "memories", "memory_versions", "facts", "fact_history", "contacts", "contact_aliases",
    "contact_links", "reviews", "consolidations",
)  # fmt: skip


def _counts(conn: psycopg.Connection) -> dict[str, int]:
    return {t: conn.execute(f"SELECT count(*) FROM pymem.{t}").fetchone()[0] for t in _TABLES}


def _assert_works(dsn: str, source: dict) -> None:
    """The restored store holds what was dumped, matches this release, and keeps
    every guarantee from its first write: history, undo, row security, grants."""
    with psycopg.connect(dsn) as conn:
        assert _counts(conn) == source["counts"]
        assert schema_snapshot(conn) == source["snapshot"], "a round trip changed the schema"
        assert drift(conn) == []
    ids = source["ids"]
    with MemoryStore(dsn) as store:
        before = {h.version for h in store.memory_history(backup.USER, ids["a1c"])}
        result = store.upsert(backup.USER, "My A1C is 6.1%", backup._vector(1, 0, 0))
        assert (result.action, str(result.memory_id)) == ("superseded", ids["a1c"])
        history = store.memory_history(backup.USER, ids["a1c"])
        assert {h.version for h in history} - before, "the first supersede wrote no history"
        assert store.undo(backup.USER, ids["a1c"]) > max(before)
        (a1c,) = store.get_memories(backup.USER, memory_ids=[ids["a1c"]])
        assert a1c.content == "My A1C is 6.8%"
        assert store.get_fact(backup.USER, "lab_5") == 5.9
        assert [e.value for e in store.fact_history(backup.USER, "lab_5")][:2] == [6.5, 5.9]
        assert [m.name for m in store.resolve_contact(backup.USER, "Mia")] == ["Maria Silva"]
        assert "Maria Silva" in store.contact_card(backup.USER, ids["maria"])
        assert store.pending_reviews(backup.USER)
    with psycopg.connect(dsn, autocommit=True) as conn:
        # a hand-written UPDATE is recorded: the trigger came back
        version = conn.execute(
            "UPDATE pymem.memories SET content = 'Ann drinks white tea' WHERE id = %s"
            " RETURNING version", (ids["tea"],),
        ).fetchone()[0]  # fmt: skip
        assert (
            conn.execute(
                "SELECT count(*) FROM pymem.memory_versions WHERE memory_id = %s AND version = %s",
                (ids["tea"], version - 1),
            ).fetchone()[0]
            == 1
        )
    # the app role sees its own user's rows only, and may write them
    with psycopg.connect(dsn) as conn:
        conn.execute("SET ROLE pymem_app")
        conn.execute("SELECT set_config('pymem.user_id', %s, false)", (backup.USER,))
        assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] > 0
        conn.execute(
            "SELECT pymem.upsert_memory(%s, 'Ann likes sencha', %s::vector)",
            (backup.USER, str(backup._vector(0, 0, 1).tolist())),
        )
        conn.execute("SELECT set_config('pymem.user_id', 'someone-else', false)")
        assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] == 0
        conn.commit()
    assert _pymem("--dsn", dsn, "check").returncode == 0


@pytest.mark.parametrize("form", backup.FORMATS)
def test_a_dump_restores_into_a_new_database_of_the_same_cluster(admin_dsn, source, form):
    target = _empty_database(admin_dsn)
    done = backup.restore(form, source["dumps"], target)
    assert (done.returncode, done.stderr) == (0, "")
    _assert_works(target, source)


@pytest.mark.parametrize("form", backup.FORMATS)
def test_a_dump_restores_into_a_new_cluster_after_its_roles(new_cluster, source, form):
    """The documented order: the roles (pg_dumpall --roles-only), then the dump."""
    subprocess.run(
        [backup._bin("psql"), "-q", "-X", "-d", new_cluster],
        input=backup.roles_only(source["dsn"]), capture_output=True, text=True, check=True,
    )  # fmt: skip
    target = _empty_database(new_cluster)
    done = backup.restore(form, source["dumps"], target)
    assert (done.returncode, done.stderr) == (0, "")
    _assert_works(target, source)


@pytest.mark.parametrize(
    ("dump_args", "restore_args"),
    [
        (["-Fd", "-j", "2"], ["-j", "2"]),  # directory format, parallel dump and restore
        (["-Ft"], []),  # tar format
        (["-Fc"], ["--no-owner"]),
        (["-Fc"], ["--no-acl"]),  # no grants or revokes: migrate puts them back
    ],
    ids=["directory-parallel", "tar", "no-owner", "no-acl"],
)
def test_other_forms_restore_to_a_store_that_checks_clean(
    admin_dsn, source, tmp_path, dump_args, restore_args
):
    dumped = tmp_path / "store"
    subprocess.run(
        [backup._bin("pg_dump"), *dump_args, "-f", str(dumped), "-d", source["dsn"]], check=True
    )
    target = _empty_database(admin_dsn)
    done = subprocess.run(
        [backup._bin("pg_restore"), *restore_args, "-d", target, str(dumped)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    if "--no-acl" in restore_args:
        checked = _pymem("--dsn", target, "check")
        assert checked.returncode == 1
        # what a dump without privileges loses shows: here, a private helper open to all
        assert any(
            line.startswith("unexpected function: _reason_mac(text)") and "public=t" in line
            for line in checked.stdout.splitlines()
        )
        assert _pymem("--dsn", target, "migrate").returncode == 0
    _assert_works(target, source)


@pytest.fixture
def cluster_without_the_role(new_cluster) -> str:
    with psycopg.connect(new_cluster, autocommit=True) as conn:
        taken = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'pymem_%'")
        for (name,) in taken.fetchall():
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")
        conn.execute("DROP ROLE IF EXISTS pymem_app")
    return new_cluster


@pytest.mark.parametrize("form", ["custom-single", "plain", "plain-single"])
def test_a_restore_that_stops_says_the_role_is_missing(cluster_without_the_role, source, form):
    target = _empty_database(cluster_without_the_role)
    done = backup.restore(form, source["dumps"], target)
    assert done.returncode != 0
    assert 'role "pymem_app" does not exist' in done.stderr
    if form.endswith("-single"):
        with psycopg.connect(target) as conn:  # nothing restored, nothing half written
            assert conn.execute("SELECT to_regnamespace('pymem')").fetchone() == (None,)


def test_a_restore_without_the_role_is_repaired_by_migrate(cluster_without_the_role, source):
    target = _empty_database(cluster_without_the_role)
    done = backup.restore("custom", source["dumps"], target)
    assert 'role "pymem_app" does not exist' in done.stderr  # pg_restore goes on past it
    checked = _pymem("--dsn", target, "check")
    assert checked.returncode == 1
    assert "missing    role: pymem_app" in checked.stdout
    assert "missing    policy: memories memories_of_current_user" in checked.stdout
    migrated = _pymem("--dsn", target, "migrate")
    assert migrated.returncode == 0, migrated.stderr
    assert "not repaired" not in migrated.stderr
    _assert_works(target, source)


def test_a_migrating_role_that_may_not_create_the_role_is_told_what_to_run(
    cluster_without_the_role,
):
    """sql/ makes the role first (98_app_role.sql); a role without CREATEROLE gets PM052."""
    from pymem.errors import AppRoleMissing, wrap_errors
    from pymem.migrate import sql_dir

    text = (sql_dir() / "98_app_role.sql").read_text(encoding="utf-8")
    make_role = text[: text.index("SELECT pymem._create_app_role();")]
    assert "CREATE ROLE pymem_app" in make_role
    target = _empty_database(cluster_without_the_role)
    with psycopg.connect(target, autocommit=True) as conn:
        conn.execute("DROP ROLE IF EXISTS pymem_owner_without_createrole")
        conn.execute("CREATE ROLE pymem_owner_without_createrole NOCREATEROLE")
        conn.execute("CREATE SCHEMA pymem AUTHORIZATION pymem_owner_without_createrole")
        conn.execute("SET ROLE pymem_owner_without_createrole")
        conn.execute(make_role)
        with pytest.raises(AppRoleMissing) as refused, wrap_errors():
            conn.execute("SELECT pymem._create_app_role()")
        assert refused.value.hint.startswith("As a superuser: CREATE ROLE pymem_app NOLOGIN")
        conn.execute("RESET ROLE")
        assert conn.execute("SELECT FROM pg_roles WHERE rolname = 'pymem_app'").fetchall() == []


# -- pymem check and the repairs of pymem migrate --


def test_check_passes_on_a_fresh_store(fresh_dsn):
    done = _pymem("--dsn", fresh_dsn, "check")
    assert (done.returncode, done.stdout) == (
        0, f"the store matches this release (schema version {_shipped()})\n",
    )  # fmt: skip


def _shipped() -> int:
    from pymem.migrate import shipped_schema_version

    return shipped_schema_version()


def test_check_passes_on_an_upgraded_store(empty_dsn):
    """Upgraded from the first release's schema one migration a run."""
    from yoyo import get_backend, read_migrations

    from pymem.migrate import apply_functions, migrations_dir, yoyo_uri

    migrations = read_migrations(str(migrations_dir()))
    backend = get_backend(yoyo_uri(empty_dsn))
    try:
        for migration in migrations:
            with backend.lock():
                backend.apply_migrations_only(backend.to_apply(migrations.filter(
                    lambda m, wanted=migration.id: m.id == wanted)))  # fmt: skip
    finally:
        backend.connection.close()
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        apply_functions(conn)
    assert _pymem("--dsn", empty_dsn, "check").returncode == 0


_DROPS = {
    "trigger": (
        "DROP TRIGGER memories_version_on_change ON pymem.memories",
        "missing    trigger: CREATE TRIGGER memories_version_on_change",
    ),
    "policy": (
        "DROP POLICY facts_of_current_user ON pymem.facts",
        "missing    policy: facts facts_of_current_user",
    ),
    "grant": (
        "REVOKE INSERT ON pymem.memories FROM pymem_app",
        "missing    grant: memories SELECT,INSERT,UPDATE",
    ),
    "function": (
        "DROP FUNCTION pymem.contact_card(text, text, integer)",
        "missing    function: contact_card(text,text,integer)",
    ),
    "row security": (
        "ALTER TABLE pymem.reviews DISABLE ROW LEVEL SECURITY",
        "missing    table: reviews kind=r rls=t",
    ),
}


@pytest.mark.parametrize("what", list(_DROPS))
def test_check_names_what_was_dropped_and_migrate_puts_it_back(fresh_dsn, what):
    statement, named = _DROPS[what]
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute(statement)
    checked = _pymem("--dsn", fresh_dsn, "check")
    assert checked.returncode == 1
    assert any(line.startswith(named) for line in checked.stdout.splitlines()), checked.stdout
    migrated = _pymem("--dsn", fresh_dsn, "migrate")
    assert (migrated.returncode, migrated.stderr) == (0, "")
    assert _pymem("--dsn", fresh_dsn, "check").returncode == 0


def test_migrate_restores_every_policy_and_row_security(fresh_dsn):
    """Every table with row security in a fresh install gets it back, with its policy."""
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        tables = conn.execute(
            "SELECT c.oid::regclass::text, p.polname FROM pg_class AS c"
            " JOIN pg_policy AS p ON p.polrelid = c.oid"
            " WHERE c.relnamespace = 'pymem'::regnamespace AND c.relrowsecurity"
            " AND NOT c.relispartition"
        ).fetchall()
        assert len(tables) >= 12
        for table, policy in tables:
            conn.execute(f"DROP POLICY {policy} ON {table}")
            conn.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
    assert _pymem("--dsn", fresh_dsn, "check").returncode == 1
    migrated = _pymem("--dsn", fresh_dsn, "migrate")
    assert (migrated.returncode, migrated.stderr) == (0, "")
    assert _pymem("--dsn", fresh_dsn, "check").returncode == 0


def test_check_passes_on_a_store_of_other_dimensions(empty_dsn):
    """The embedding columns take the store's dimension: a 3-d store is this release's too."""
    migrate(empty_dsn, dimensions=3)
    done = _pymem("--dsn", empty_dsn, "check")
    assert done.returncode == 0, done.stdout
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        conn.execute("ALTER TABLE pymem.memory_versions ALTER COLUMN embedding TYPE vector(4)")
    done = _pymem("--dsn", empty_dsn, "check")
    assert "unexpected column: memory_versions.embedding vector(4)" in done.stdout


def test_a_policy_changed_by_hand_is_named_and_made_again(fresh_dsn):
    """USING (true) would show every user's rows to pymem_app."""
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("ALTER POLICY memories_of_current_user ON pymem.memories USING (true)")
    checked = _pymem("--dsn", fresh_dsn, "check")
    assert any(
        line.startswith("unexpected policy: memories memories_of_current_user")
        and "using=true" in line
        for line in checked.stdout.splitlines()
    ), checked.stdout
    migrated = _pymem("--dsn", fresh_dsn, "migrate")
    assert (migrated.returncode, migrated.stderr) == (0, "")
    assert _pymem("--dsn", fresh_dsn, "check").returncode == 0


def test_a_role_that_bypasses_row_security_is_named(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("ALTER ROLE pymem_app BYPASSRLS")
        try:
            checked = _pymem("--dsn", fresh_dsn, "check")
            migrated = _pymem("--dsn", fresh_dsn, "migrate")
        finally:
            conn.execute("ALTER ROLE pymem_app NOBYPASSRLS")
    assert "unexpected role: pymem_app superuser=f bypassrls=t" in checked.stdout
    assert "ALTER ROLE pymem_app NOSUPERUSER NOBYPASSRLS" in migrated.stderr


def test_an_extra_grant_is_named_and_left_to_the_dba(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("GRANT DELETE ON pymem.memories TO pymem_app")
    migrated = _pymem("--dsn", fresh_dsn, "migrate")
    assert "unexpected grant: memories SELECT,INSERT,UPDATE,DELETE" in migrated.stderr
    assert "REVOKE it yourself" in migrated.stderr


def test_migrate_names_what_it_cannot_repair(fresh_dsn):
    """An index is a migration's: migrate says it is missing, with its definition."""
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("DROP INDEX pymem.memories_user_live_idx")
    migrated = _pymem("--dsn", fresh_dsn, "migrate")
    assert migrated.returncode == 0
    (line,) = migrated.stderr.splitlines()
    assert line.startswith(
        "not repaired: missing    index: CREATE INDEX memories_user_live_idx ON pymem.memories"
    )
    assert "a migration made it and migrations run once" in line


def test_check_on_a_database_without_a_store_and_on_no_server(empty_dsn):
    done = _pymem("--dsn", empty_dsn, "check")
    assert (done.returncode, done.stdout) == (
        1, "no pymem store in this database: `pymem migrate` creates one\n",
    )  # fmt: skip
    done = _pymem("--dsn", "host=/nonexistent-pymem-socket dbname=x connect_timeout=2", "check")
    assert done.returncode == 2
    assert "cannot connect to PostgreSQL" in done.stderr


def test_the_snapshot_command_describes_the_store_it_is_given(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("DROP TRIGGER memories_version_on_delete ON pymem.memories")
    done = subprocess.run(
        [sys.executable, "-m", "pymem.snapshot", "--dsn", fresh_dsn],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "memories_version_on_change" in done.stdout
    assert "memories_version_on_delete" not in done.stdout


def test_migrate_after_a_restore_changes_nothing(admin_dsn, source):
    target = _empty_database(admin_dsn)
    assert backup.restore("custom", source["dumps"], target).returncode == 0
    result = migrate(target)
    assert result.applied == []
    with psycopg.connect(target) as conn:
        assert schema_snapshot(conn) == source["snapshot"]
