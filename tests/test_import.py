"""``pymem import``: a JSONL file through the same dedup as any write."""

from __future__ import annotations

import io
import json

import numpy as np
import psycopg
import pytest

from pymem import MemoryStore
from pymem.bench.importing import QUICK, write_jsonl
from pymem.cli import main
from pymem.errors import InvalidBatch
from pymem.importer import import_file
from tests.conftest import at_cosine, unit


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
        # every batch committed: importing again finds everything already there (the
        # 3pm -> 4pm update replays: each value supersedes the other once more)
        again = import_file(store, path, progress=None)
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
            import_file(store, path, progress=None)
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
