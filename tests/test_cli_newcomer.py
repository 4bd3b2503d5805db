"""A newcomer's first hour with the CLI: psql, a guarded rollback, one-line errors with
DETAIL and HINT, stdin, help for every option, a hint when only cold memories match."""

from __future__ import annotations

import argparse
import io
import shlex

import psycopg
import pytest

from pymem import MemoryStore, server
from pymem.cli import build_parser, main
from tests.conftest import unit


class _Terminal(io.StringIO):
    """stdin as a person at a terminal typing ``text``."""

    def isatty(self) -> bool:
        return True


def _schema_exists(dsn: str) -> bool:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT to_regnamespace('pymem') IS NOT NULL").fetchone()[0]


def test_db_psql_runs_the_bundled_psql_on_the_store(fresh_dsn, capfd):
    assert main(["--dsn", fresh_dsn, "db", "psql", "-Atc", "SELECT pymem.schema_version()"]) == 0
    from pymem.store import SCHEMA_VERSION

    assert capfd.readouterr().out.strip() == str(SCHEMA_VERSION)
    # --database: another database of the server, before psql's own arguments
    name = psycopg.conninfo.conninfo_to_dict(fresh_dsn)["dbname"]
    other = psycopg.conninfo.make_conninfo(fresh_dsn, dbname="postgres")
    args = ["--dsn", other, "db", "psql", "--database", name, "-Atc", "SELECT current_database()"]
    assert main(args) == 0
    assert capfd.readouterr().out.strip() == name
    # psql's own failure is its exit code
    assert main(["--dsn", fresh_dsn, "db", "psql", "-c", "SELECT nope", "-v", "ON_ERROR_STOP=1"])
    assert "nope" in capfd.readouterr().err


def test_db_url_and_start_with_dsn_name_that_server_not_the_embedded_one(fresh_dsn, capsys):
    """`pymem --dsn X db url --database Y` printed the embedded server's DSN (starting it),
    not X's database Y, though --database's help says "with --dsn, another database on
    that server"; `db start` with --dsn started the embedded server it was not asked for."""
    name = psycopg.conninfo.conninfo_to_dict(fresh_dsn)["dbname"]
    other = psycopg.conninfo.make_conninfo(fresh_dsn, dbname="postgres")
    assert main(["--dsn", other, "db", "url", "--database", name]) == 0
    printed = capsys.readouterr().out.strip()
    assert psycopg.conninfo.conninfo_to_dict(printed) == psycopg.conninfo.conninfo_to_dict(
        fresh_dsn
    )
    # stop and status too: under --dsn, stop stopped the embedded server (others' too)
    for action in ("start", "stop", "status"):
        assert main(["--dsn", fresh_dsn, "db", action]) == 2
        assert "names another" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["a%20b", "my db", "a?b", "pymem"])
def test_the_embedded_servers_uri_names_the_database_it_was_given(name):
    uri = server.database_uri("postgresql://postgres:@/postgres?host=/tmp/pg", name)
    parts = psycopg.conninfo.conninfo_to_dict(uri)
    assert (parts["dbname"], parts["host"], parts["user"]) == (name, "/tmp/pg", "postgres")


def test_rollback_of_a_store_with_memories_needs_yes(fresh_dsn, capsys):
    with MemoryStore(fresh_dsn) as store:
        store.upsert("ann", "Ann plays chess", unit(0))
    # not interactive (pytest's stdin): refused, nothing changed
    assert main(["--dsn", fresh_dsn, "migrate", "--rollback"]) == 2
    err = capsys.readouterr().err
    assert "holds 1 memory of 1 user" in err and "--yes" in err
    assert _schema_exists(fresh_dsn)
    assert main(["--dsn", fresh_dsn, "migrate", "--rollback", "--yes"]) == 0
    assert "rolled back: " in capsys.readouterr().out
    assert not _schema_exists(fresh_dsn)
    # an empty store (here: none at all) rolls back without asking
    assert main(["--dsn", fresh_dsn, "migrate", "--rollback"]) == 0


def test_rollback_of_a_store_with_facts_and_no_memories_needs_yes(fresh_dsn, capsys):
    """Every table with users' rows counts, not only memories."""
    with MemoryStore(fresh_dsn) as store:
        store.set_fact("ann", "home_city", "Lyon")
        store.set_fact("bob", "home_city", "Oslo")
    assert main(["--dsn", fresh_dsn, "migrate", "--rollback"]) == 2
    err = capsys.readouterr().err
    assert "rows of 2 users (" in err and "2 facts" in err and "--yes" in err, err
    # the same with pymem on the search_path (a role's SET search_path, say)
    on_path = psycopg.conninfo.make_conninfo(fresh_dsn, options="-csearch_path=pymem,public")
    assert main(["--dsn", on_path, "migrate", "--rollback"]) == 2
    assert "2 facts" in capsys.readouterr().err
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM pymem.facts").fetchone()[0] == 2


def test_rollback_names_what_outside_pymem_it_would_drop(fresh_dsn, capsys):
    """DROP SCHEMA pymem CASCADE takes a view over pymem's tables and a key into them: an
    empty store with such objects asks first too, and names them."""
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute(
            "CREATE VIEW public.city_report AS SELECT user_id, count(*) FROM pymem.memories"
            " GROUP BY user_id"
        )
        conn.execute(
            "CREATE TABLE public.orders (u text, m uuid,"
            " FOREIGN KEY (u, m) REFERENCES pymem.memories (user_id, id))"
        )
    assert main(["--dsn", fresh_dsn, "migrate", "--rollback"]) == 2
    err = capsys.readouterr().err
    assert "2 objects outside pymem that depend on it" in err, err
    assert "view city_report" in err and "constraint orders_u_m_fkey on table orders" in err
    assert _schema_exists(fresh_dsn)
    assert main(["--dsn", fresh_dsn, "migrate", "--rollback", "--yes"]) == 0
    assert not _schema_exists(fresh_dsn)


@pytest.mark.parametrize(("typed", "code", "kept"), [("no\n", 2, True), ("yes\n", 0, False)])
def test_rollback_asks_at_a_terminal(fresh_dsn, capsys, monkeypatch, typed, code, kept):
    with MemoryStore(fresh_dsn) as store:
        store.upsert("ann", "Ann plays chess", unit(0))
    monkeypatch.setattr("sys.stdin", _Terminal(typed))
    assert main(["--dsn", fresh_dsn, "migrate", "--rollback"]) == code
    assert "drop 1 memory of 1 user" in capsys.readouterr().out
    assert _schema_exists(fresh_dsn) is kept


@pytest.mark.embed
def test_an_error_is_one_line_with_its_detail_and_hint(fresh_dsn, capsys, embedder):
    assert main(["--dsn", fresh_dsn, "remember", "--user", "ann", "--kind", "banana", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("pymem: unknown kind 'banana' [PM008]; Known kinds: event, fact,")
    assert "; hint: Add a row to pymem.kinds" in err


def test_a_connection_failure_is_one_line(capsys):
    dsn = "host=127.0.0.1 port=1 dbname=nothing connect_timeout=3"
    assert main(["--dsn", dsn, "report"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("pymem: cannot connect to PostgreSQL:") and "port 1" in err


def test_a_database_without_pymem_is_one_line(empty_dsn, capsys):
    assert main(["--dsn", empty_dsn, "report"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run `pymem --dsn " in err
    # the command it names migrates this database (a bare `pymem migrate` would migrate
    # the embedded default store instead)
    command = shlex.split(err.split("run `", 1)[1].split("`", 1)[0])
    assert command[0] == "pymem" and command[-1] == "migrate"
    assert main(command[1:]) == 0
    assert main(["--dsn", empty_dsn, "report"]) == 0


@pytest.mark.embed
def test_remember_dash_reads_stdin(fresh_dsn, capsys, monkeypatch, embedder):
    monkeypatch.setattr("sys.stdin", io.StringIO("Ann listens to jazz on Sundays\n"))
    assert main(["--dsn", fresh_dsn, "remember", "--user", "ann", "-"]) == 0
    assert capsys.readouterr().out.startswith("inserted: ")
    with MemoryStore(fresh_dsn) as store:
        assert [h.content for h in store.recall("ann", unit(0), 5, min_similarity=-1)] == [
            "Ann listens to jazz on Sundays"
        ]


@pytest.mark.embed
def test_recall_hints_at_cold_memories(fresh_dsn, capsys, embedder):
    assert main(["--dsn", fresh_dsn, "remember", "--user", "ann", "Ann likes jazz"]) == 0
    assert main(["--dsn", fresh_dsn, "decay", "--user", "ann", "--cold-below", "1"]) == 0
    capsys.readouterr()
    assert main(["--dsn", fresh_dsn, "recall", "--user", "ann", "what music?"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no memories\nhint: 1 cold (faded) memories match; add --include-cold")
    assert main(["--dsn", fresh_dsn, "recall", "--user", "bob", "what music?"]) == 0
    assert capsys.readouterr().out == "no memories\n"


def _actions(parser: argparse.ArgumentParser, path: str = "pymem"):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction):
            yield path, action


def test_every_option_and_argument_has_help():
    missing = [
        f"{path} {action.option_strings or action.dest}"
        for path, action in _actions(build_parser())
        if not action.help
    ]
    assert missing == []


def test_every_pymem_command_in_the_readme_parses():
    """The README's shell lines are commands the CLI accepts (options and choices)."""
    import re
    import shlex
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", readme, re.S):
        for line in block.splitlines():
            line = re.sub(r'"\$\(pymem [^)]*\)"', "DSN", line).split("  #")[0]
            line = line.split("&&")[-1].strip()
            if line.startswith("pymem "):
                commands.append(line)
    assert any("db psql --database toy" in c for c in commands)
    assert len(commands) >= 10
    parser = build_parser()
    for command in commands:
        try:
            parser.parse_args(shlex.split(command)[1:])
        except SystemExit as exc:  # argparse refuses
            raise AssertionError(f"README command does not parse: {command}") from exc


@pytest.mark.embed
def test_the_bundled_embedder_refuses_a_store_of_another_dimension(empty_dsn, capsys, embedder):
    """A toy 3-d store is not silently given the 512-d model (issue 12, README in order)."""
    assert main(["--dsn", empty_dsn, "migrate", "--dimensions", "3"]) == 0
    capsys.readouterr()
    assert main(["--dsn", empty_dsn, "remember", "--user", "ann", "Ann plays chess"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "this store holds 3-d embeddings" in err and "[PM004]" in err and "hint:" in err
    with MemoryStore(empty_dsn) as store:
        assert store.get_settings().embedding_model is None
