"""Installing pymem with CREATE EXTENSION on the test server, from files generated
into a directory of the test's own (PostgreSQL 18's ``extension_control_path``), so
the server's install is never written to. tests/test_extension.py uses it, and
``PYMEM_TEST_INSTALL=extension`` makes the suite's template such a store
(tests/conftest.py, .ci/run)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import psycopg

from pymem import extension

_DIRS: dict[tuple, Path] = {}


def files_dir(
    sources: extension.Sources | None = None, extra: dict[str, str] | None = None
) -> Path:
    """A directory holding ``extension/`` with the files of ``sources`` (this release by
    default) and ``extra`` files beside them; made once per process and argument."""
    key = (sources, tuple(sorted((extra or {}).items())))
    found = _DIRS.get(key)
    if found is None:
        found = Path(tempfile.mkdtemp(prefix="pymem-extension-"))
        found.chmod(0o755)  # the server runs as an OS user of its own
        extension.write_files(found / "extension", sources)
        for name, text in (extra or {}).items():
            (found / "extension" / name).write_text(text, encoding="utf-8")
        _DIRS[key] = found
    return found


def control_path(directory: Path) -> str:
    """The setting that lets the server find the files of ``directory`` (superuser)."""
    return f"$system:{directory}"


def options(directory: Path) -> str:
    """libpq ``options`` (or PGOPTIONS) for a session that installs from ``directory``."""
    return f"-c extension_control_path={control_path(directory)}"


def install(dsn: str, dimensions: int | None = None, directory: Path | None = None) -> None:
    """CREATE EXTENSION pymem CASCADE, then pymem.setup(): the documented two steps."""
    directory = directory or files_dir()
    with psycopg.connect(dsn, autocommit=True, options=options(directory)) as conn:
        conn.execute("CREATE EXTENSION pymem CASCADE")
        conn.execute("SELECT * FROM pymem.setup(%s)", (dimensions,))
