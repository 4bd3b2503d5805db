"""What a new user tripped over in the CLI (issue 39), each fixed and held by a test."""

from __future__ import annotations

import signal
import sys
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from pymem.cli import main
from tests.conftest import _drop
from tests.helpers import interruptible


def test_ctrl_c_in_eval_says_interrupted_without_a_traceback(admin_dsn):
    """Ctrl-C in a command with nothing of its own to say (eval, demo): one line, exit
    130, where it printed a 60-line traceback."""
    database = f"pymem_eval_{uuid.uuid4().hex[:10]}"
    command = [sys.executable, "-m", "pymem.cli", "--dsn", admin_dsn, "eval", "--database",
               database]  # fmt: skip
    child = interruptible(command)
    try:
        deadline = time.monotonic() + 60
        target = make_conninfo(admin_dsn, dbname=database)
        while time.monotonic() < deadline and child.poll() is None:
            try:  # once the run writes memories, it is well inside its work
                with psycopg.connect(target, connect_timeout=2) as conn:
                    if conn.execute(
                        "SELECT to_regclass('pymem.memories') IS NOT NULL"
                        " AND EXISTS (SELECT 1 FROM pymem.memories)"
                    ).fetchone()[0]:
                        break
            except psycopg.Error:
                pass
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
        _drop(admin_dsn, database)
    assert child.returncode == 130, (out, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1] == "pymem eval: interrupted", err


def _embedded_test_server(admin_dsn, monkeypatch) -> Path:
    """PYMEM_DATA_DIR pointing at the session's running embedded server (its data
    directory holds the socket), so `pymem db` acts on it and starts nothing."""
    running = Path(conninfo_to_dict(admin_dsn).get("host") or "")
    if not (running / "postmaster.pid").exists():
        pytest.skip("SKIPPED, not passed: this check needs the embedded test server")
    monkeypatch.delenv("PYMEM_DSN", raising=False)
    monkeypatch.setenv("PYMEM_DATA_DIR", str(running))
    return running


def _databases(admin_dsn) -> set[str]:
    with psycopg.connect(admin_dsn) as conn:
        return {r[0] for r in conn.execute("SELECT datname FROM pg_database")}


@pytest.mark.parametrize("action", ["start", "url", "stop", "status", "psql"])
def test_db_actions_take_help_after_them(action, capsys):
    """`pymem db start --help` was refused (exit 2) and `db psql --help` showed psql's."""
    assert main(["db", action, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: pymem db") and "pymem db psql -?" in out


def test_db_psql_opens_only_a_database_that_exists(admin_dsn, monkeypatch, capsys):
    _embedded_test_server(admin_dsn, monkeypatch)
    name = f"typo_{uuid.uuid4().hex[:8]}"
    assert main(["db", "psql", "--database", name, "-c", "SELECT 1"]) == 2
    assert f"no database '{name}'" in capsys.readouterr().err
    assert name not in _databases(admin_dsn)


def test_db_url_refuses_a_name_it_would_not_make(admin_dsn, monkeypatch, capsys):
    _embedded_test_server(admin_dsn, monkeypatch)
    before = _databases(admin_dsn)
    assert main(["db", "url", "--database", "bad name; drop"]) == 2
    assert "is not a database name pymem makes" in capsys.readouterr().err
    assert _databases(admin_dsn) == before


def test_progress_on_a_log_is_plain_lines_and_on_a_terminal_one_redrawn_line():
    """Progress written to a log (not a terminal) left carriage-return frames in it."""
    import io

    from pymem.progress import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    log, terminal = io.StringIO(), Terminal()
    for stream in (log, terminal):
        bar = ProgressBar(20, stream, width=4)
        for done in range(1, 21):
            bar.show(done, f"{done}/20")
    assert "\r" not in log.getvalue()
    assert log.getvalue().splitlines() == [
        f"[{'#' * (4 * n // 20)}{'-' * (4 - 4 * n // 20)}] {n}/20" for n in range(2, 21, 2)
    ]
    assert terminal.getvalue().count("\r") == 20 and terminal.getvalue().endswith("20/20\n")


def test_eval_and_import_write_no_carriage_return_into_a_log(fresh_dsn, tmp_path, capsys):
    import json

    path = tmp_path / "m.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {"user": "ann", "content": f"Ann note {i}", "embedding": [1.0] + [0.0] * 511}
            )
            + "\n"
            for i in range(30)
        )
    )
    assert main(["--dsn", fresh_dsn, "import", str(path), "--batch-size", "1"]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "30/30 lines" in err, err


def test_the_eval_prints_the_targets_the_readme_states():
    """pymem eval printed "false merges <= 5%" where the README says 2%."""
    import re

    from pymem.eval import TARGETS

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    rows = {
        "duplicate rate": "duplicate_rate",
        "recall@5": "recall_at_5",
        "false merges": "false_merge_rate",
    }
    found = 0
    for label, key in rows.items():
        for line in readme.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            targets = [c for c in cells[1:] if re.match(r"[<>]=", c)]
            if cells and cells[0].startswith(label) and targets:
                assert targets[0].startswith(TARGETS[key]), (label, targets[0], TARGETS[key])
                found += 1
    assert found == len(rows)


def test_counts_are_said_in_the_singular_for_one():
    """ "imported 1 lines", "1 judge calls", "5 memories of 1 users"."""
    from pymem.review import ReviewCounts
    from pymem.wording import counted

    assert [counted(n, "line") for n in (0, 1, 2, 1500)] == ["0 lines", "1 line", "2 lines",
                                                             "1,500 lines"]  # fmt: skip
    assert counted(1, "memory", "memories") == "1 memory"
    counts = ReviewCounts()
    counts.judge_calls = 1
    assert counts.line().endswith("; 1 judge call")


def test_an_error_line_joins_its_sentences_without_a_stray_period():
    """ "... the state.; hint: ..." became "... the state; hint: ..."."""
    from pymem.errors import InvalidParameter

    error = InvalidParameter("bad input.", sqlstate="PM006", detail="Not the state.", hint="Do X.")
    assert error.one_line() == "bad input [PM006]; Not the state; hint: Do X."


def test_an_import_of_one_line_says_one_line(fresh_dsn, tmp_path, capsys):
    import json

    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"user": "ann", "content": "Ann is here",
                                "embedding": [1.0] + [0.0] * 511}) + "\n")  # fmt: skip
    assert main(["--dsn", fresh_dsn, "import", str(path)]) == 0
    assert capsys.readouterr().out.startswith("imported 1 line in ")


def test_reviews_resolve_help_names_every_decision_the_store_takes(capsys):
    """--resolve's help listed 3 decisions where its error lists 4."""
    from pymem.review import DECISIONS

    with pytest.raises(SystemExit):
        main(["reviews", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert all(d in help_text.split("--resolve", 1)[1] for d in DECISIONS), help_text


def test_an_empty_query_is_told_it_is_a_query(fresh_dsn, capsys):
    """An empty recall query's hint spoke of memories."""
    assert main(["--dsn", fresh_dsn, "recall", "--user", "ann", " "]) == 2
    err = capsys.readouterr().err
    assert "query must contain text" in err and "Give the query some words" in err, err
    assert "memories" not in err, err


def test_remember_refuses_an_empty_contact_name(fresh_dsn, capsys):
    """`--contact ""` was silently ignored; now refused before anything is embedded."""
    argv = ["--dsn", fresh_dsn, "remember", "--user", "mei", "--contact", "", "Mei likes tea"]
    assert main(argv) == 2
    assert "--contact needs a name" in capsys.readouterr().err
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone() == (0,)


@pytest.mark.parametrize(
    ("argv", "code"),
    [(["remember", "--user", "", "Ann likes tea"], "PM001"),
     (["remember", "--user", "ann", "--kind", "habbit", "Ann likes tea"], "PM008"),
     (["recall", "--user", "", "tea"], "PM001")],
)  # fmt: skip
def test_a_bad_user_or_kind_is_refused_before_the_embedder_loads(
    fresh_dsn, capsys, monkeypatch, argv, code
):
    """An empty --user or an unknown --kind took 2.8-4.6 s to refuse: the embedder
    loaded first. The store refuses them now before any embedder is made."""
    import pymem.embedder

    monkeypatch.setattr(pymem.embedder, "_DEFAULT", None)  # none loaded in this process
    assert main(["--dsn", fresh_dsn, *argv]) == 2
    assert f"[{code}]" in capsys.readouterr().err
    assert pymem.embedder._DEFAULT is None


def test_dsn_goes_after_the_command_as_user_does(fresh_dsn, capsys):
    """`pymem recall --user ann "x" --dsn ...` was refused while --user went anywhere."""
    from pymem.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["recall", "--user", "ann", "x", "--dsn", "D"]).dsn == "D"
    assert parser.parse_args(["--dsn", "A", "recall", "--user", "ann", "x"]).dsn == "A"
    assert (
        parser.parse_args(["--dsn", "A", "recall", "--user", "ann", "x", "--dsn", "B"]).dsn == "B"
    )
    assert parser.parse_args(["facts", "history", "--user", "u", "k", "--dsn", "D"]).dsn == "D"
    assert main(["reviews", "--user", "ann", "--dsn", fresh_dsn]) == 0
    assert capsys.readouterr().out == "no pending reviews\n"
    assert main(["db", "url", "--dsn", fresh_dsn]) == 0
    assert capsys.readouterr().out.strip() == fresh_dsn


def test_facts_policy_makes_the_demos_conflict_from_the_command_line(fresh_dsn, capsys):
    """`pymem facts set` could not reproduce the demo's conflict: no way to set a key's
    policy from the CLI."""
    dsn = ["--dsn", fresh_dsn]
    assert main([*dsn, "facts", "policy", "likes_*", "confirm"]) == 0
    assert capsys.readouterr().out == "likes_*: confirm\n"
    for value in ("Windows", "Mac"):
        argv = [*dsn, "facts", "set", "--user", "ann", "--confidence", "high", "likes_os", value]
        assert main(argv) == 0
    capsys.readouterr()
    assert main([*dsn, "facts", "--user", "ann"]) == 0
    out = capsys.readouterr().out
    assert "[conflict pending]" in out and '"Windows" (0.90, stated) vs "Mac"' in out.replace(
        "likes_os (habit): ", ""
    ), out
    assert main([*dsn, "facts", "policy", "likes_*", "none"]) == 0
    assert capsys.readouterr().out == "likes_*: no policy (latest_wins)\n"


def test_reviews_shows_the_review_ids_that_review_names(fresh_dsn, capsys):
    """`pymem review` named review ids that `pymem reviews` never showed."""
    from pymem import MemoryStore
    from tests.conftest import at_cosine, unit

    with MemoryStore(fresh_dsn) as store:
        store.upsert("ann", "Ann drinks green tea", unit(0))
        store.upsert("ann", "Ann drinks tea with lemon", at_cosine(0.8))
        (review,) = store.pending_reviews("ann")
    assert main(["--dsn", fresh_dsn, "reviews", "--user", "ann"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].split() == ["review", str(review.review_id)]


def test_a_ctrl_c_right_after_the_stores_lock_is_let_go_does_not_let_it_go_twice():
    """CI interrupting `pymem eval` once ended in "RuntimeError: release unlocked lock":
    a Ctrl-C that landed right after the lock's release returned, before the hold
    recorded it, made the call's outer finally release it again. A lock whose release
    is followed at once by a Ctrl-C stands for that moment."""
    import threading

    from pymem.steps import _Hold

    class InterruptedRightAfterRelease:
        def __init__(self) -> None:
            self.inner = threading.Lock()

        def acquire(self) -> bool:
            return self.inner.acquire()

        def release(self) -> None:
            self.inner.release()
            raise KeyboardInterrupt

    lock = InterruptedRightAfterRelease()
    hold = _Hold(lock)
    hold.take()
    with pytest.raises(KeyboardInterrupt):
        hold.let_go()
    hold.let_go()  # the outer finally's: nothing left to let go
    assert not lock.inner.locked()
