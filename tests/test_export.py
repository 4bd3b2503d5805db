"""pymem export and its restore by pymem import: a round trip into an empty store gives
every row back (memories with history and wordings, reviews, facts with history,
contacts with aliases, links and history, consolidations), for one user or moved to
another; without embeddings the texts are embedded again."""

from __future__ import annotations

import json
import uuid

import psycopg
import pytest

from pymem import MemoryStore
from pymem.cli import main
from tests.conftest import _clone, _drop
from tests.test_security import _populate

# identity columns are numbered by the store that writes them
RENUMBERED = {"fact_history": "id", "memory_wordings": "id"}
TABLES = (
    "memories", "memory_versions", "memory_wordings", "reviews", "facts", "fact_history",
    "contacts", "contact_aliases", "contact_links", "contact_history", "consolidations",
    "consolidation_announcements", "reflections",
)  # fmt: skip


def rows_of(dsn: str, user: str) -> dict[str, list[str]]:
    with psycopg.connect(dsn) as conn:
        out = {}
        for table in TABLES:
            drop = RENUMBERED.get(table, "-")
            out[table] = sorted(
                json.dumps(r[0], sort_keys=True)
                for r in conn.execute(
                    f"SELECT to_jsonb(t) - %s - 'user_id' FROM pymem.{table} AS t"
                    " WHERE user_id = %s",
                    (drop, user),
                )
            )
        return out


@pytest.fixture
def second_store(admin_dsn, template_dsn):
    name = f"pymem_test_{uuid.uuid4().hex[:12]}"
    yield _clone(admin_dsn, name)
    _drop(admin_dsn, name)


@pytest.fixture
def source(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        store = MemoryStore(conn)
        _populate(store, conn, "ann", 0)
        _populate(store, conn, "bob", 20)
    return fresh_dsn


def test_a_round_trip_gives_every_row_back(source, second_store, tmp_path, capsys):
    before = rows_of(source, "ann")
    assert all(before[t] for t in TABLES if t != "reflections"), "every kind of row is there"
    path = tmp_path / "ann.jsonl"
    assert main(["--dsn", source, "export", "--user", "ann", str(path)]) == 0
    assert "exported" in capsys.readouterr().err
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["type"] == "pymem-export"
    assert {json.loads(line)["row"]["user_id"] for line in lines[1:]} == {"ann"}
    assert main(["--dsn", second_store, "import", str(path)]) == 0
    assert "restored" in capsys.readouterr().out
    assert rows_of(second_store, "ann") == before
    assert rows_of(second_store, "bob") == {t: [] for t in TABLES}
    # a second restore of the same export changes nothing
    assert main(["--dsn", second_store, "import", str(path)]) == 0
    assert rows_of(second_store, "ann") == before


def test_a_user_moves_and_a_store_without_embeddings_is_embedded_again(
    source, second_store, tmp_path
):
    path = tmp_path / "all.jsonl"
    assert main(["--dsn", source, "export", "--no-embeddings", str(path)]) == 0
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    assert {r["row"]["user_id"] for r in rows} == {"ann", "bob"}
    assert not any("embedding" in r["row"] for r in rows)
    bob = tmp_path / "bob.jsonl"
    assert main(["--dsn", source, "export", "--user", "bob", str(bob)]) == 0
    assert main(["--dsn", second_store, "import", "--user", "cy", str(bob)]) == 0
    moved, was = rows_of(second_store, "cy"), rows_of(source, "bob")
    assert moved == was
    with MemoryStore(second_store) as store:
        got = store.export_rows("cy")
    assert {r.table_name for r in got} >= {"memories", "facts", "contacts"}


def test_restore_refuses_what_is_not_an_export_row(second_store, tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type": "pymem-export", "version": 1}\n{"type": "memory"}\n')
    assert main(["--dsn", second_store, "import", str(path)]) == 2
    assert "not a row of an export" in capsys.readouterr().err
    with MemoryStore(second_store) as store, pytest.raises(Exception, match="table_name"):
        store.import_rows("ann", "settings", [{}])


def test_export_does_not_overwrite_a_file_without_yes(source, tmp_path, capsys):
    path = tmp_path / "kept.jsonl"
    path.write_text("what was there\n")
    assert main(["--dsn", source, "export", "--user", "ann", str(path)]) == 2
    assert "--yes" in capsys.readouterr().err
    assert path.read_text() == "what was there\n"
    assert main(["--dsn", source, "export", "--user", "ann", "--yes", str(path)]) == 0
    assert path.read_text().startswith('{"type": "pymem-export"')
