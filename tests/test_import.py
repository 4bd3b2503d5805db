"""``pymem import``: a JSONL file through the same dedup as any write."""

from __future__ import annotations

import io
import json

import numpy as np
import psycopg
import pytest

from bench.importing import QUICK, write_jsonl
from pymem import MemoryStore
from pymem.cli import main
from pymem.errors import (
    ContentTooLong,
    InvalidBatch,
    InvalidContent,
    InvalidEmbedding,
    InvalidParameter,
    UnknownKind,
)
from pymem.importer import import_file
from pymem.wording import counted
from tests.conftest import at_cosine, unit
from tests.helpers import interruptible


def _write(path, rows) -> None:
    path.write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8"
    )


def _line(user, content, vector, **keys):
    return {"user": user, "content": content, "embedding": np.asarray(vector).tolist(), **keys}


def test_import_dedups_within_the_file_and_against_the_store(fresh_dsn, tmp_path):
    path = tmp_path / "memories.jsonl"
    _write(
        path,
        [
            _line("ann", "Ann drinks green tea", unit(0), kind="preference"),
            _line("bob", "Bob plays chess", unit(1)),
            _line("ann", "Ann really drinks green tea!", at_cosine(0.99), kind="preference"),
            _line("bob", "Bob's meeting is at 3pm", unit(2), contacts=["Carol"]),
            {"user_id": "bob", "content": "Bob's meeting is at 4pm", "embedding": unit(2).tolist()},
        ],
    )
    progress = io.StringIO()
    with MemoryStore(fresh_dsn) as store:
        result = import_file(store, path, progress=progress, batch_size=2)
        assert result.lines == 5
        assert result.actions == {"inserted": 3, "duplicate": 1, "superseded": 1}
        assert "5/5 lines" in progress.getvalue()
        # every batch committed: importing it again under another source name finds
        # everything already there (the 3pm -> 4pm update replays: each value supersedes
        # the other once more)
        again = import_file(store, path, progress=None, source="a second import")
        assert again.actions == {"duplicate": 3, "superseded": 2}
        assert [p.name for p in store.recent_contacts("bob", k=5)] == ["Carol"]
    with psycopg.connect(fresh_dsn) as conn:
        rows = conn.execute(
            "SELECT user_id, content FROM pymem.memories WHERE deleted_at IS NULL ORDER BY 1, 2"
        ).fetchall()
    assert rows == [
        ("ann", "Ann drinks green tea"),
        ("bob", "Bob plays chess"),
        ("bob", "Bob's meeting is at 4pm"),
    ]


def test_import_embeds_lines_without_a_vector(fresh_dsn, tmp_path):
    path = tmp_path / "texts.jsonl"
    _write(path, [{"user": "ann", "content": "Ann has a cat"}])
    seen = []

    def embed(texts):
        seen.extend(texts)
        return [unit(5) for _ in texts]

    with MemoryStore(fresh_dsn) as store:
        assert import_file(store, path, embed=embed, progress=None).actions == {"inserted": 1}
        with pytest.raises(InvalidBatch, match="no embedder"):
            import_file(store, path, progress=None, source="again")
    assert seen == ["Ann has a cat"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2: not JSON"),
        ("[1, 2]", "line 2: not a JSON object"),
        ('{"content": "x", "embedding": [1]}', "line 2: `user`"),
        ('{"user": "ann", "content": 7}', "line 2: `content`"),
    ],
)
def test_bad_lines_are_refused_before_anything_is_written(fresh_dsn, tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    good = json.dumps(_line("ann", "Ann drinks tea", unit(0)))
    path.write_text(f"{good}\n{line}\n", encoding="utf-8")
    with MemoryStore(fresh_dsn) as store, pytest.raises(InvalidBatch, match=message):
        import_file(store, path, progress=None)
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] == 0


@pytest.mark.parametrize("kind", ["missing", "directory", "not utf-8"])
def test_cli_names_a_file_it_cannot_read_in_one_line(fresh_dsn, tmp_path, capsys, kind):
    path = {"missing": tmp_path / "none.jsonl", "directory": tmp_path}.get(kind)
    if path is None:
        path = tmp_path / "latin1.jsonl"
        good = json.dumps(_line("ann", "Ann drinks tea", unit(0)))
        path.write_bytes(good.encode() + b"\n" + "café".encode("latin-1") + b"\n")
    assert main(["--dsn", fresh_dsn, "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pymem: cannot read {path}: ") and "Traceback" not in err
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] == 0


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return False


def test_cli_imports_from_stdin(fresh_dsn, monkeypatch, capsys):
    """``pymem import -`` reads standard input like a file: UTF-8, lines split on newlines
    only (a JSON string may hold U+2028)."""
    rows = [
        _line("ann", "Ann drinks tea\u2028every morning", unit(0)),
        _line("ann", "Ann drinks tea\u2028every morning", unit(0)),
        _line("bob", "鲍勃下棋", unit(1)),
    ]
    data = "\r\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode("utf-8")
    monkeypatch.setattr("sys.stdin", _Stdin(data))
    assert main(["--dsn", fresh_dsn, "import", "-"]) == 0
    assert "imported 3 lines" in capsys.readouterr().out
    with psycopg.connect(fresh_dsn) as conn:
        stored = conn.execute("SELECT content FROM pymem.memories ORDER BY content").fetchall()
    assert stored == [("Ann drinks tea\u2028every morning",), ("鲍勃下棋",)]
    monkeypatch.setattr("sys.stdin", _Stdin("café".encode("latin-1")))
    assert main(["--dsn", fresh_dsn, "import", "-"]) == 2
    assert capsys.readouterr().err.startswith("pymem: cannot read -: not UTF-8")


def test_bench_file_restates_what_it_says(tmp_path):
    restated = write_jsonl(tmp_path / "x.jsonl", QUICK, dim=8)
    lines = [json.loads(x) for x in (tmp_path / "x.jsonl").read_text().splitlines()]
    assert len(lines) == QUICK.lines
    seen, again = set(), 0
    for row in lines:
        key = (row["user"], row["content"])
        again += key in seen
        seen.add(key)
    assert again == restated > 0


def _memory_counts(dsn: str) -> list[tuple]:
    """Every live row with its mention count: what a clean import and a resumed one must
    agree on."""
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT user_id, content, mention_count FROM pymem.memories"
            " WHERE deleted_at IS NULL ORDER BY 1, 2"
        ).fetchall()


def _stream(users: int, per_user: int) -> list[dict]:
    """Lines of several users, interleaved, each user restating some earlier lines."""
    rows = []
    for i in range(per_user):
        for u in range(users):
            axis = (u * per_user + i) % 400 if i % 4 else (u * per_user + i - 4) % 400
            rows.append(_line(f"user{u}", f"fact {axis} of user{u}", unit(axis)))
    return rows


def test_a_rerun_of_the_same_file_skips_what_it_committed(fresh_dsn, tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    _write(path, _stream(3, 12))
    assert main(["--dsn", fresh_dsn, "import", str(path), "--batch-size", "5"]) == 0
    first = _memory_counts(fresh_dsn)
    capsys.readouterr()
    assert main(["--dsn", fresh_dsn, "import", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("imported 0 lines") and "36 lines skipped" in out, out
    assert _memory_counts(fresh_dsn) == first


def test_a_file_saved_with_a_byte_order_mark_imports(fresh_dsn, tmp_path, capsys):
    """An editor's UTF-8 "with BOM": line 1 was "not JSON" (pymem eval reads such files)."""
    path = tmp_path / "m.jsonl"
    _write(path, _stream(1, 3))
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert main(["--dsn", fresh_dsn, "import", str(path)]) == 0
    assert capsys.readouterr().out.startswith("imported 3 lines")


def test_a_file_that_grew_after_a_run_is_refused_naming_that_run(fresh_dsn, tmp_path, capsys):
    """A file imported (or killed mid-way), then appended to: its digest, the default
    source, changed, and the rerun stored its committed lines again (3,501 mentions where
    a clean run of the grown file made 3,001)."""
    path = tmp_path / "m.jsonl"
    rows = _stream(2, 6)
    _write(path, rows[:8])
    first = __import__("hashlib").sha256(path.read_bytes()).hexdigest()
    assert main(["--dsn", fresh_dsn, "import", str(path)]) == 0
    before = _memory_counts(fresh_dsn)
    _write(path, rows)  # grew by four lines
    capsys.readouterr()
    assert main(["--dsn", fresh_dsn, "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"committed by import '{first}'" in err and f"--source {first}" in err, err
    assert _memory_counts(fresh_dsn) == before  # nothing written
    # as the hint says: the first run's source goes on from the first line not committed
    assert main(["--dsn", fresh_dsn, "import", str(path), "--source", first]) == 0
    assert "8 lines skipped" in capsys.readouterr().out
    assert sum(c for *_, c in _memory_counts(fresh_dsn)) == len(rows)


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('{"user": "bob", "content": "a\\u0000b"}', "line 2: content: text must not contain NUL"),
        ('{"user": "bob", "content": "x", "metadata": {"k": "\\ud800"}}',
         "line 2: metadata.k: text must not contain lone surrogates"),
        ('{"user": "b\\u0000b", "content": "x"}', "line 2: user: text must not contain NUL"),
    ],
)  # fmt: skip
def test_a_text_postgresql_cannot_hold_is_named_by_its_line(fresh_dsn, tmp_path, line, needle):
    """The driver refuses a NUL or a lone surrogate before the store can name the line:
    the error said "text must not contain NUL (0x00) bytes" for a whole batch, or for
    no line at all."""
    path = tmp_path / "m.jsonl"
    path.write_text('{"user": "bob", "content": "fine"}\n' + line + "\n", encoding="utf-8")
    with MemoryStore(fresh_dsn) as store, pytest.raises(InvalidContent, match=needle):
        import_file(store, path, embed=lambda texts: [unit(0)] * len(texts), progress=None)
    assert _memory_counts(fresh_dsn) == []


def test_a_killed_import_run_again_ends_as_a_clean_one(admin_dsn, fresh_dsn, tmp_path, capsys):
    """kill -9 in the middle, then the same command: the same rows and the same counts as
    one clean run (the restart is not a re-mention)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from psycopg.conninfo import make_conninfo

    from tests.conftest import _clone, _drop

    path = tmp_path / "m.jsonl"
    _write(path, _stream(4, 150))
    command = [sys.executable, "-m", "pymem.cli", "--dsn", fresh_dsn, "import", str(path),
               "--batch-size", "10"]  # fmt: skip
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        while time.monotonic() < deadline and child.poll() is None:
            done = conn.execute(
                "SELECT coalesce(sum(lines_done), 0) FROM pymem.import_progress"
            ).fetchone()[0]
            if done > 0:
                break
            time.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    child.communicate()
    with psycopg.connect(fresh_dsn) as conn:
        committed = conn.execute("SELECT count(*) FROM pymem.import_progress").fetchone()[0]
        total = conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0]
    assert committed > 0 and total > 0, "the kill came before or after every batch"
    # the same command again, in this process (a new interpreter costs ~0.5 s)
    assert main(command[3:]) == 0
    again = capsys.readouterr().out
    assert "lines skipped, committed by an earlier run" in again, again
    clean_name = f"pymem_test_clean_{os.getpid()}_{time.monotonic_ns() % 10**6}"
    clean = _clone(admin_dsn, clean_name)
    try:
        with MemoryStore(clean) as store:
            import_file(store, path, progress=None, batch_size=10)
        assert _memory_counts(fresh_dsn) == _memory_counts(clean)
        assert make_conninfo(clean) != make_conninfo(fresh_dsn)
    finally:
        _drop(admin_dsn, clean_name)


def test_ctrl_c_says_what_was_committed_without_a_traceback(fresh_dsn, tmp_path):
    import os
    import signal
    import sys
    import time

    path = tmp_path / "m.jsonl"
    _write(path, _stream(4, 150))
    # a batch a line: 600 commits, so the first one is seen and the signal lands long
    # before the last (with 5 a batch, a fast run once ended before the signal)
    command = [sys.executable, "-m", "pymem.cli", "--dsn", fresh_dsn, "import", str(path),
               "--batch-size", "1"]  # fmt: skip
    child = interruptible(command)
    deadline = time.monotonic() + 60
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        while time.monotonic() < deadline and child.poll() is None:
            if conn.execute("SELECT count(*) FROM pymem.import_progress").fetchone()[0]:
                break
            time.sleep(0.01)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130, (out, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = err.split("\n")
    assert "pymem import: interrupted" in lines, err
    (count,) = [line for line in lines if "committed before it stopped" in line]
    with psycopg.connect(fresh_dsn) as conn:
        mentions = conn.execute("SELECT sum(mention_count) FROM pymem.memories").fetchone()[0]
    assert count.startswith(f"pymem import: {counted(mentions, 'line')} of "), (count, mentions)
    assert os.path.basename(str(path)) in count and "goes on from the first line" in count


def test_an_error_mid_file_names_line_user_and_what_was_committed(fresh_dsn, tmp_path, capsys):
    rows = _stream(3, 10)
    rows[20] = {**rows[20], "embedding": [1.0, 0.0, 0.0]}  # line 21, user2: 3 dimensions
    path = tmp_path / "m.jsonl"
    _write(path, rows)
    assert main(["--dsn", fresh_dsn, "import", str(path), "--batch-size", "4"]) == 2
    text = capsys.readouterr().err
    # the progress bar ends its line first: the error is a line of its own
    assert "\npymem: line 21 (user 'user2'): embedding has 3 dimensions" in text, text
    err = text.split("\n")[-3:-1]
    assert "[PM004]" in err[0]
    source = __import__("hashlib").sha256(path.read_bytes()).hexdigest()
    assert err[1].startswith("pymem import: ") and "committed before it stopped" in err[1]
    assert f"--source {source}" in err[1]
    committed = int(err[1].split()[2])
    assert committed == len(_memory_counts(fresh_dsn)) + sum(
        c - 1 for *_, c in _memory_counts(fresh_dsn)
    )
    # fixed, then run again under the first run's source: it goes on from there
    rows[20] = _stream(3, 10)[20]
    _write(path, rows)
    assert main(["--dsn", fresh_dsn, "import", str(path), "--source", source]) == 0
    assert f"{committed} lines skipped" in capsys.readouterr().out
    clean = tmp_path / "clean.jsonl"
    _write(clean, rows)
    with MemoryStore(fresh_dsn) as store:
        # the same lines as a clean import (mentions in the store: one per line)
        assert sum(c for *_, c in _memory_counts(fresh_dsn)) == len(rows)
        # the same lines in another file (another digest): refused, naming the import that
        # committed them, unless a --source of its own asks for them again
        with pytest.raises(InvalidParameter, match=f"committed by import '{source}'"):
            import_file(store, clean, progress=None)
        assert import_file(store, clean, progress=None, source="clean").skipped == 0


def test_an_oversized_text_is_refused_before_anything_is_embedded(fresh_dsn, tmp_path):
    path = tmp_path / "big.jsonl"
    big = "word " * 200_000
    _write(path, [{"user": "bob", "content": "a short fact"}, {"user": "bob", "content": big}])
    embedded = []
    with (
        MemoryStore(fresh_dsn) as store,
        pytest.raises(
            ContentTooLong, match=r"line 2 \(user 'bob'\): content is 1000000 characters long"
        ),
    ):
        import_file(store, path, embed=embedded.extend, progress=None)
    assert embedded == [] and _memory_counts(fresh_dsn) == []


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (
            ["remember", "--user", "bob", "-"],
            "content is 999999 characters long, the maximum is 4000 [PM003]",
        ),
        (["remember", "--user", "bob", " "], "content must contain text"),
        (["recall", "--user", "bob", ""], "query must contain text"),
    ],
)
def test_the_cli_refuses_a_text_before_loading_the_embedder(
    fresh_dsn, monkeypatch, capsys, argv, error
):
    def no_embedder():
        raise AssertionError("the embedder was asked for")

    monkeypatch.setattr("pymem.embedder.default_embedder", no_embedder)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"word " * 200_000)))
    assert main(["--dsn", fresh_dsn, *argv]) == 2
    assert error in capsys.readouterr().err


def test_a_nan_embedding_mid_batch_is_named_by_its_line(fresh_dsn, tmp_path):
    rows = _stream(1, 6)
    rows[4] = {**rows[4], "embedding": [float("nan")] * 512}
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows).replace("NaN", "NaN"))
    with MemoryStore(fresh_dsn) as store, pytest.raises(InvalidEmbedding) as err:
        import_file(store, path, progress=None)
    assert str(err.value).startswith("line 5 (user 'user0'): import_memories needs"), err.value


def test_a_source_reused_for_another_file_is_refused_not_skipped(fresh_dsn, tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write(a, _stream(1, 5))
    _write(b, [_line("user0", f"another fact {i}", unit(100 + i)) for i in range(5)])
    assert main(["--dsn", fresh_dsn, "import", str(a), "--source", "nightly"]) == 0
    capsys.readouterr()
    assert main(["--dsn", fresh_dsn, "import", str(b), "--source", "nightly"]) == 2
    err = capsys.readouterr().err
    assert "source 'nightly' was committed for user 'user0' from another file" in err, err
    assert "[PM006]" in err and "goes on" not in err
    with psycopg.connect(fresh_dsn) as conn:
        contents = {r[0] for r in conn.execute("SELECT content FROM pymem.memories")}
    assert not any(c.startswith("another fact") for c in contents)
    # the same file again under its name still goes on (nothing left to import)
    assert main(["--dsn", fresh_dsn, "import", str(a), "--source", "nightly"]) == 0
    assert "5 lines skipped" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("option", "value"),
    [("--batch-size", "0"), ("--batch-size", "-5"), ("--jobs", "0"), ("--jobs", "-2")],
)
def test_a_batch_size_or_jobs_below_one_is_refused(fresh_dsn, tmp_path, capsys, option, value):
    """--batch-size 0 was taken as 1, silently."""
    path = tmp_path / "m.jsonl"
    _write(path, _stream(2, 3))
    assert main(["--dsn", fresh_dsn, "import", str(path), option, value]) == 2
    name = option.removeprefix("--").replace("-", "_")
    assert f"{name} must be a positive integer" in capsys.readouterr().err
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone() == (0,)


@pytest.mark.parametrize("source", ["", "  "])
def test_a_blank_source_is_refused(fresh_dsn, tmp_path, capsys, source):
    """--source '' (an unset shell variable) fell back to the file's digest, silently."""
    path = tmp_path / "m.jsonl"
    _write(path, _stream(1, 3))
    assert main(["--dsn", fresh_dsn, "import", str(path), "--source", source]) == 2
    assert "source must name the import" in capsys.readouterr().err


def test_a_first_line_refused_says_nothing_was_written(fresh_dsn, tmp_path, capsys):
    """The resume hint named the file's digest as --source though nothing was written: the
    fixed file, a new digest, then had to carry the old one's name, and a run without it
    took its lines for re-mentions."""
    rows = _stream(1, 3)
    rows[0] = {**rows[0], "importance": 7}
    path = tmp_path / "m.jsonl"
    _write(path, rows)
    assert main(["--dsn", fresh_dsn, "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert "nothing was written; after fixing it, run it again" in err, err
    assert "--source" not in err


def test_a_bad_line_in_the_callers_transaction_raises_its_own_error(conn, tmp_path):
    # the recount after the error ran in the transaction the error had aborted: the
    # caller saw a raw InFailedSqlTransaction, the UnknownKind only in its __context__
    path = tmp_path / "memories.jsonl"
    rows = [_line("ann", f"Ann's fact number {i}", unit(i)) for i in range(4)]
    _write(path, [*rows, _line("ann", "Ann eats figs", unit(9), kind="banana")])
    with pytest.raises(UnknownKind, match="line 5"):
        import_file(MemoryStore(conn), path, batch_size=2, progress=None)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        "a",
        "a\n",
        "a\nb",
        "a\r\nb\r\n",
        "a\rb\r",
        "a\r\r\nb\n\n",
        "\ufeffa\nb",
        "tea\u2028every\u2029morning\x85\x0b\x0c\x1cend\r\n",
        "\r\n\r\n",
    ],
)
def test_lines_split_as_a_file_in_text_mode_splits_them(text):
    """The importer's line splitter (two replaces and a split, for speed) gives the lines a
    file opened in text mode gives, without their ends: only \\n, \\r\\n and \\r end one."""
    from pymem.importer import _lines

    data = text.encode("utf-8")
    expected = [line.rstrip("\n") for line in io.StringIO(data.decode("utf-8-sig"), newline=None)]
    assert _lines(data) == expected


_CLIENTS = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
    " AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
)


class _Watch:
    """A progress stream that counts, at each batch, the store's client connections."""

    def __init__(self, dsn: str) -> None:
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.most = 0

    def write(self, text: str) -> None:
        self.most = max(self.most, self.conn.execute(_CLIENTS).fetchone()[0])

    def flush(self) -> None:
        pass


def _clients_settle_at(dsn: str, count: int) -> bool:
    """Whether the database's other client connections come down to ``count`` (a closed
    connection's backend leaves pg_stat_activity a moment after)."""
    import time

    with psycopg.connect(dsn, autocommit=True) as conn:
        deadline = time.monotonic() + 5
        while conn.execute(_CLIENTS).fetchone()[0] != count:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
    return True


def test_two_writers_end_as_one_does(admin_dsn, fresh_dsn, tmp_path):
    """jobs=2 (the default) deals the users out to two connections, each user's lines in
    file order through one of them: the store ends as a one-writer import's, row for row
    and mention for mention. Both connections write while it runs; the second closes
    with the import. A pool lends its own, never more than it has."""
    import os
    import time

    from psycopg_pool import ConnectionPool, NullConnectionPool

    from pymem.importer import _writers
    from tests.conftest import _clone, _drop

    path = tmp_path / "m.jsonl"
    rows = _stream(5, 40)
    _write(path, rows + rows[:5])  # each user's first line again, at the end
    names = [f"pymem_test_jobs_{os.getpid()}_{time.monotonic_ns() % 10**6}_{n}" for n in (1, 2)]
    alone, pooled = (_clone(admin_dsn, name) for name in names)
    try:
        single, double = _Watch(alone), _Watch(fresh_dsn)
        with MemoryStore(alone) as store:
            one = import_file(store, path, progress=single, batch_size=7, jobs=1)
        with MemoryStore(fresh_dsn) as store:
            two = import_file(store, path, progress=double, batch_size=7)
            assert _clients_settle_at(fresh_dsn, 2)  # the store's own and the watch's
        assert (single.most, double.most) == (1, 2)
        with ConnectionPool(pooled, min_size=2, max_size=2) as pool, MemoryStore(pool) as store:
            lent = import_file(store, path, progress=None, batch_size=7, jobs=2)
        # no more writers than the pool lends connections (a NullConnectionPool's 0: no
        # limit): a writer waiting for one gives up after the pool's timeout
        for size, writers in ((1, 1), (2, 2), (0, 4)):
            kind = NullConnectionPool if size == 0 else ConnectionPool
            with kind(pooled, min_size=min(size, 1), max_size=size) as pool:
                assert len(_writers(MemoryStore(pool), 4, [])) == writers
        assert one.lines == two.lines == lent.lines == 205
        assert one.actions == two.actions == lent.actions
        assert one.actions["duplicate"] == 5
        assert _memory_counts(alone) == _memory_counts(fresh_dsn) == _memory_counts(pooled)
    finally:
        for watch in (single, double):
            watch.conn.close()
        for name in names:
            _drop(admin_dsn, name)


def test_a_second_connection_refused_leaves_one_writer(fresh_dsn, tmp_path):
    """A role with CONNECTION LIMIT 1 (or a full server) refuses the second writer's
    connection: the import goes on with one, and ends as it would have."""
    import uuid

    from psycopg.conninfo import make_conninfo

    role = f"pymem_test_one_{uuid.uuid4().hex[:8]}"
    path = tmp_path / "m.jsonl"
    _write(path, _stream(3, 6))
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 1")
        conn.execute(f"GRANT pymem_app TO {role}")
    try:
        watch = _Watch(fresh_dsn)
        with MemoryStore(make_conninfo(fresh_dsn, user=role)) as store:
            result = import_file(store, path, progress=watch, batch_size=4, jobs=2)
        watch.conn.close()
        assert result.lines == 18 and watch.most == 1
        assert len(_memory_counts(fresh_dsn)) == 18
    finally:
        with psycopg.connect(fresh_dsn, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")
