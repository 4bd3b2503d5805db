"""Commands that make a database of their own (eval, demo, bench) never drop anyone else's."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from pymem import MemoryStore
from pymem.cli import main
from pymem.errors import NotAScratchDatabase
from pymem.migrate import migrate
from pymem.server import SCRATCH_MARK, create_database, recreate_scratch_database
from tests.conftest import unit


@pytest.fixture
def database(admin_dsn):
    name = f"pymem_user_{uuid.uuid4().hex[:10]}"
    create_database(admin_dsn, name)
    yield name
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _memories(admin_dsn: str, name: str) -> int:
    with psycopg.connect(make_conninfo(admin_dsn, dbname=name)) as conn:
        return conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0]


def _a_store_with_memories(admin_dsn: str, name: str) -> None:
    dsn = make_conninfo(admin_dsn, dbname=name)
    migrate(dsn)
    with MemoryStore(dsn) as store:
        for i in range(3):
            store.upsert("bob", f"bob's fact number {i}", unit(i))


def test_eval_refuses_a_users_store_even_with_yes(admin_dsn, database, tmp_path, capsys):
    _a_store_with_memories(admin_dsn, database)
    for extra in ([], ["--yes"]):
        argv = ["--dsn", admin_dsn, "eval", "--database", database, *extra]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "[PM051]" in err and "holds a pymem store" in err, err
        assert err.count("\n") == 1
    assert _memories(admin_dsn, database) == 3


@pytest.mark.parametrize("name", ["postgres", "template1", "pymem"])
def test_a_servers_own_database_and_the_default_store_are_never_scratch(admin_dsn, name):
    with pytest.raises(NotAScratchDatabase, match="server's own database or the default store"):
        recreate_scratch_database(admin_dsn, name, owner="pymem eval", yes=True)


def test_a_database_with_tables_needs_yes(admin_dsn, database):
    with psycopg.connect(make_conninfo(admin_dsn, dbname=database), autocommit=True) as conn:
        conn.execute("CREATE TABLE orders (id int)")
    with pytest.raises(NotAScratchDatabase, match="holds 1 objects") as refused:
        recreate_scratch_database(admin_dsn, database, owner="pymem eval", yes=False)
    assert "--yes" in refused.value.hint
    # a command with no --yes (demo, bench) offers none: it names what to do instead
    with pytest.raises(NotAScratchDatabase, match="holds 1 objects") as refused:
        recreate_scratch_database(admin_dsn, database, owner="pymem demo")
    assert "--yes" not in refused.value.hint
    assert f"DROP DATABASE {database}" in refused.value.hint
    with psycopg.connect(make_conninfo(admin_dsn, dbname=database)) as conn:
        assert conn.execute("SELECT to_regclass('orders') IS NOT NULL").fetchone()[0]
    recreate_scratch_database(admin_dsn, database, owner="pymem eval", yes=True)
    with psycopg.connect(make_conninfo(admin_dsn, dbname=database)) as conn:
        assert conn.execute("SELECT to_regclass('orders')").fetchone()[0] is None


def test_a_scratch_database_is_marked_and_made_again(admin_dsn, database):
    """The command's own database (marked when it made it) is re-made, store and all."""
    recreate_scratch_database(admin_dsn, database, owner="pymem eval")
    _a_store_with_memories(admin_dsn, database)
    with psycopg.connect(admin_dsn) as conn:
        mark = conn.execute(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s",
            (database,),
        ).fetchone()[0]
    assert mark == f"{SCRATCH_MARK} of pymem eval"
    recreate_scratch_database(admin_dsn, database, owner="pymem eval")
    with psycopg.connect(make_conninfo(admin_dsn, dbname=database)) as conn:
        assert conn.execute("SELECT to_regclass('pymem.memories')").fetchone()[0] is None


def test_a_fixed_scratch_name_holding_a_store_is_refused(admin_dsn):
    """The demo's and the bench's fixed names could be somebody's: the rule of eval."""
    name = f"pymem_demo_{uuid.uuid4().hex[:8]}"
    create_database(admin_dsn, name)
    try:
        _a_store_with_memories(admin_dsn, name)
        with pytest.raises(NotAScratchDatabase, match="pymem demo: will not drop"):
            recreate_scratch_database(admin_dsn, name, owner="pymem demo")
        assert _memories(admin_dsn, name) == 3
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.mark.parametrize(
    "ddl",
    [
        "CREATE FUNCTION public.billing_rule() RETURNS int LANGUAGE sql RETURN 1",
        "CREATE SEQUENCE public.invoice_no",
        "CREATE SCHEMA app",
        "CREATE TYPE public.mood AS ENUM ('ok')",
    ],
)
def test_a_database_with_only_code_or_schemas_needs_yes_too(admin_dsn, database, ddl):
    """Not only tables: a database of functions, sequences, types or schemas is somebody's."""
    with psycopg.connect(make_conninfo(admin_dsn, dbname=database), autocommit=True) as conn:
        conn.execute(ddl)
    with pytest.raises(NotAScratchDatabase, match="holds 1 objects"):
        recreate_scratch_database(admin_dsn, database, owner="pymem eval")


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["bench", "recall", "--quick"], "pymem_bench_recall_quick"),
        (["bench", "locality"], "pymem_bench_recall"),
    ],
)
def test_a_bench_does_not_reuse_a_database_it_did_not_make(admin_dsn, capsys, argv, name):
    """`pymem bench recall` and `locality` keep their loaded table for the next run, and
    empty what they add to it: a database of their name that no benchmark made is refused,
    its store left as it was."""
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            pytest.fail(f"{name} exists on the test server: the test would not be honest")
    create_database(admin_dsn, name)
    try:
        _a_store_with_memories(admin_dsn, name)
        assert main(["--dsn", admin_dsn, *argv]) == 2
        err = capsys.readouterr().err
        assert "[PM051]" in err and f"will not use database '{name}'" in err, err
        assert _memories(admin_dsn, name) == 3
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_eval_and_bench_databases_go_to_the_server_of_pymem_dsn(admin_dsn, monkeypatch):
    """Every command reads PYMEM_DSN; eval and bench started an embedded server instead."""
    from bench.common import bench_database
    from pymem.eval import eval_database

    monkeypatch.setenv("PYMEM_DSN", admin_dsn)
    assert bench_database(None, "pymem_bench_x") == (
        admin_dsn,
        make_conninfo(admin_dsn, dbname="pymem_bench_x"),
    )
    name = f"pymem_eval_{uuid.uuid4().hex[:8]}"
    made = eval_database(None, name)
    try:
        with psycopg.connect(made) as conn:
            assert conn.execute("SELECT current_database()").fetchone() == (name,)
        assert psycopg.conninfo.conninfo_to_dict(made)["host"] == (
            psycopg.conninfo.conninfo_to_dict(admin_dsn).get("host")
        )
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
