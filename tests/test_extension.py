"""CREATE EXTENSION pymem: files generated from migrations/ and sql/ (pymem.extension),
a store equal to a migrated one, updates from an earlier level, a dump and restore
that keeps every row, and each installation refusing the other's tool."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tarfile
import uuid
from io import BytesIO
from pathlib import Path

import psycopg
import pytest
import sqlparse
from psycopg.conninfo import make_conninfo

from pymem import MemoryStore, extension
from pymem.errors import OtherInstallation
from pymem.migrate import migrate, shipped_schema_version
from pymem.server import create_database
from pymem.snapshot import drift
from tests import backup, citus_backend
from tests.conftest import _drop, unit
from tests.extension_install import files_dir, install, options

pytestmark = pytest.mark.skipif(
    bool(citus_backend.DSN), reason="CREATE EXTENSION pymem does not distribute: Citus is refused"
)

REPO = Path(__file__).resolve().parent.parent
EARLIER = 18  # the level the update test starts from


@pytest.fixture
def new_database(admin_dsn):
    made = []

    def make() -> str:
        name = f"pymem_ext_{uuid.uuid4().hex[:12]}"
        create_database(admin_dsn, name)
        made.append(name)
        return make_conninfo(admin_dsn, dbname=name)

    yield make
    for name in made:
        _drop(admin_dsn, name)


def _configuration(dsn: str) -> list[tuple]:
    """The configuration rows a new store starts with (the history key is random)."""
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT 'settings', s::text FROM pymem.settings AS s"
            " UNION ALL SELECT 'kind', k::text FROM pymem.kinds AS k"
            " UNION ALL SELECT 'metric', g::text FROM pymem.goal_metrics AS g"
            " UNION ALL SELECT 'history key', count(*)::text FROM pymem.history_key"
            " ORDER BY 1, 2"
        ).fetchall()


def _rows(dsn: str) -> dict[str, tuple[int, str]]:
    """Every table's row count and a digest of its rows, by name."""
    with psycopg.connect(dsn) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT c.relname FROM pg_class AS c WHERE c.relnamespace = 'pymem'::regnamespace"
            " AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1"
        )]  # fmt: skip
        return {
            t: conn.execute(
                f"SELECT count(*), coalesce(md5(string_agg(r::text, '|' ORDER BY r::text)), '')"
                f" FROM pymem.{t} AS r"
            ).fetchone()
            for t in tables
        }


@functools.cache
def _files() -> dict[str, str]:
    """``extension.files()`` once for the module (each call parses every migration and sql/
    file with sqlparse: ~0.3 s)."""
    return extension.files()


def test_the_files_are_generated_and_leave_out_what_an_extension_cannot_hold():
    files = _files()
    newest = extension.version(shipped_schema_version())
    assert files == extension.files()  # the same sources, the same bytes
    assert f"default_version = '{newest}'" in files["pymem.control"]
    assert "requires = 'vector, pg_trgm'" in files["pymem.control"]
    install_script = files[f"pymem--{newest}.sql"]
    top_level = [" ".join(s.split()).upper()[:40] for s in sqlparse.split(install_script)]
    for refused in ("CREATE POLICY", "CREATE ROLE", "CREATE EXTENSION", "CREATE SCHEMA", "GRANT "):
        assert not [s for s in top_level if s.startswith(refused)], refused
    # an update path from every earlier level
    for level in range(2, shipped_schema_version() + 1):
        name = f"pymem--{extension.version(level - 1)}--{extension.version(level)}.sql"
        assert name in files
    assert extension.level_of(newest) == shipped_schema_version()
    with pytest.raises(ValueError):
        extension.level_of("1.0")


def test_create_extension_makes_the_store_pymem_migrate_makes(new_database):
    installed, migrated = new_database(), new_database()
    install(installed)
    migrate(migrated)
    with psycopg.connect(installed) as conn:
        assert drift(conn) == []
        assert conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'pymem'"
        ).fetchone() == (extension.version(shipped_schema_version()),)
    assert _configuration(installed) == _configuration(migrated)
    # the write and read path, as the app role sees it
    with MemoryStore(installed) as store:
        written = store.upsert("ann", "Ann drinks green tea", unit(0), "preference")
        assert written.action == "inserted"
        again = store.upsert("ann", "Ann drinks green tea", unit(0), "preference")
        assert again.action == "duplicate"
        assert [r.content for r in store.recall("ann", unit(0), k=1)] == ["Ann drinks green tea"]


def test_each_installation_refuses_the_other_tool(new_database):
    installed, migrated = new_database(), new_database()
    install(installed)
    migrate(installed)  # current: nothing to do
    for kwargs in ({"rollback": True}, {"partitions": 2}):
        with pytest.raises(OtherInstallation) as refused:
            migrate(installed, **kwargs)
        assert refused.value.sqlstate == "PM053"
    migrate(migrated)
    with psycopg.connect(migrated, autocommit=True, options=options(files_dir())) as conn:
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("CREATE EXTENSION pymem CASCADE")
        assert refused.value.sqlstate == "PM053"
        assert "pymem migrate" in str(refused.value)
        assert conn.execute(
            "SELECT count(*) FROM pg_extension WHERE extname = 'pymem'"
        ).fetchone() == (0,)
    with psycopg.connect(installed) as conn:
        assert drift(conn) == []


def _sources_at_level(level: int, into: Path) -> extension.Sources:
    """migrations/ and sql/ of the last commit whose newest migration was ``level``."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs the repository's git history (a clone), not an installed package")
    added = subprocess.run(
        ["git", "-C", str(REPO), "log", "--diff-filter=A", "--format=%H", "--",
         f"migrations/{level + 1:04d}.*"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    if not added:
        pytest.skip(
            f"the history holds no commit adding migration {level + 1:04d} (a shallow clone)"
        )
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", f"{added[-1]}^", "migrations", "sql"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    sources = extension.Sources(into / "migrations", into / "sql")
    assert sources.level() == level
    return sources


def test_alter_extension_update_from_an_earlier_level_equals_a_fresh_install(
    new_database, tmp_path
):
    earlier = _sources_at_level(EARLIER, tmp_path)
    old = extension.version(EARLIER)
    directory = files_dir(extra={f"pymem--{old}.sql": extension.install_script(earlier)})
    dsn = new_database()
    with psycopg.connect(dsn, autocommit=True, options=options(directory)) as conn:
        conn.execute(f"CREATE EXTENSION pymem VERSION '{old}' CASCADE")
        conn.execute("INSERT INTO pymem.settings DEFAULT VALUES")
        conn.execute(
            "INSERT INTO pymem.kinds (kind, decay_rate, description) VALUES ('fact', 0.01, 'x')"
        )
    with pytest.raises(OtherInstallation, match=re.escape("0.1.0+0018")) as refused:
        migrate(dsn)  # an older level: refused, nothing done
    assert "ALTER EXTENSION pymem UPDATE" in refused.value.hint
    with psycopg.connect(dsn, autocommit=True, options=options(directory)) as conn:
        conn.execute(
            "INSERT INTO pymem.memories (user_id, kind, content, embedding)"
            " VALUES ('ann', 'fact', 'Ann drinks green tea', %s::vector)",
            (str(unit(0).tolist()),),
        )
        conn.execute("ALTER EXTENSION pymem UPDATE")
        conn.execute("SELECT * FROM pymem.setup()")
        assert drift(conn) == []
        assert conn.execute("SELECT content FROM pymem.memories").fetchall() == [
            ("Ann drinks green tea",)
        ]


def test_a_dump_and_restore_of_an_extension_store_keeps_every_row(
    new_database, tmp_path, monkeypatch
):
    source, target = new_database(), new_database()
    install(source)
    ids = backup.populate(source)
    with psycopg.connect(source, autocommit=True) as conn:
        conn.execute("SELECT pymem.configure_embedder('test-model', 0.9, 0.7, 0.5)")
    before = _rows(source)
    dumps = backup.dump(source, tmp_path)
    monkeypatch.setenv("PGOPTIONS", options(files_dir()))
    done = backup.restore("custom", dumps, target)
    assert (done.returncode, done.stderr) == (0, "")
    after = _rows(target)
    assert after == before
    assert after["history_key"][0] == 1 and after["memories"][0] > 0
    with psycopg.connect(target, autocommit=True) as conn:
        # pg_dump keeps no policy of an extension's table: until pymem.setup() runs
        # again, row-level security shows pymem_app no row at all
        assert {line.split()[0] + " " + line.split()[1] for line in drift(conn)} == {
            "missing policy:"
        }
        conn.execute("SELECT * FROM pymem.setup()")
        assert drift(conn) == []
    assert _rows(target) == before
    with MemoryStore(target) as store:
        # the history key came back as it was (the digest above): a reason signed
        # now is recorded; and the identity sequences go on from where they were
        store.set_fact(backup.USER, "lab_5", 5.5)
        assert 5.5 in [v.value for v in store.fact_history(backup.USER, "lab_5")]
        store.undo(backup.USER, ids["tea"], to_version=1)
        reasons = [v.reason for v in store.memory_history(backup.USER, ids["tea"])]
        assert any(r and r.startswith("undo") for r in reasons), reasons


def test_the_cli_writes_the_files_and_prints_the_pg_tle_install(tmp_path, capsys):
    from pymem.cli import main

    out = tmp_path / "ext"
    assert main(["extension", "files", "--out", str(out)]) == 0  # in process: 0.5 s less
    assert sorted(p.name for p in out.iterdir()) == sorted(_files())
    assert str(out / "pymem.control") in capsys.readouterr().out
    tle = extension.tle_script()
    assert tle.count("pgtle.install_update_path(") == shipped_schema_version() - 1
    assert "pgtle.install_extension('pymem'" in tle


def test_the_shipped_extension_files_are_those_the_sources_make():
    """extension/ (what `make install` copies) is generated, never edited: after a change
    in migrations/ or sql/, run `python -m pymem.extension --out extension`."""
    shipped = {p.name: p.read_text(encoding="utf-8") for p in (REPO / "extension").iterdir()}
    stale = sorted(n for n, text in _files().items() if shipped.get(n) != text)
    assert not stale, f"regenerate extension/ (python -m pymem.extension --out extension): {stale}"
    assert sorted(shipped) == sorted(_files())


def test_a_store_of_another_dimension_restores_into_a_prepared_database(
    new_database, tmp_path, monkeypatch
):
    """The documented way for a dimension other than the install's 512: the target is
    installed and set up without configuration rows first, then the rows restored."""
    source, target = new_database(), new_database()
    install(source, dimensions=3)
    with MemoryStore(source) as store:
        store.upsert("ann", "Ann drinks green tea", [1.0, 0.0, 0.0])
        store.upsert("ann", "Ann walks to work", [0.0, 1.0, 0.0])
    dumps = backup.dump(source, tmp_path)
    with psycopg.connect(target, autocommit=True, options=options(files_dir())) as conn:
        conn.execute("CREATE EXTENSION pymem CASCADE")
        conn.execute("SELECT * FROM pymem.setup(dimensions => 3, seed => false)")
    monkeypatch.setenv("PGOPTIONS", options(files_dir()))
    done = subprocess.run(
        [backup._bin("pg_restore"), "--data-only", "-d", target, str(dumps["custom"])],
        capture_output=True, text=True,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    with psycopg.connect(target, autocommit=True) as conn:
        conn.execute("SELECT * FROM pymem.setup()")
        assert drift(conn) == []
    assert _rows(target) == _rows(source)
    with MemoryStore(target) as store:
        assert [r.content for r in store.recall("ann", [0.0, 1.0, 0.0], k=1)] == [
            "Ann walks to work"
        ]


def test_setup_through_the_python_store_reports_its_steps(new_database):
    dsn = new_database()
    with psycopg.connect(dsn, autocommit=True, options=options(files_dir())) as conn:
        conn.execute("CREATE EXTENSION pymem CASCADE")
    with MemoryStore(dsn) as store:
        steps = store.setup(dimensions=3)
        assert [(s.step, s.detail) for s in steps[:5]] == [
            ("configuration", "settings: the defaults"),
            ("configuration", "kinds: 8"),
            ("configuration", "goal metrics: 8"),
            ("configuration", "history key: new"),
            ("dimensions", "3"),
        ]
        assert steps[-1].step == "grants"
        assert [s.step for s in store.setup()] == ["grants"]  # again: nothing left to make
        assert store.get_settings().embedding_dimensions == 3


def test_the_cli_overwrites_files_that_differ_only_with_yes(tmp_path, capsys):
    from pymem.cli import main

    out = tmp_path / "ext"
    assert main(["extension", "files", "--out", str(out)]) == 0
    control = out / "pymem.control"
    control.write_text("# edited by hand\n")
    capsys.readouterr()
    assert main(["extension", "files", "--out", str(out)]) == 2
    assert "pymem.control" in capsys.readouterr().err
    assert control.read_text() == "# edited by hand\n"  # nothing was written
    assert main(["extension", "files", "--out", str(out), "--yes"]) == 0
    assert control.read_text() == extension.control_file()
