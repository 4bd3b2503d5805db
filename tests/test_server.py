"""The embedded server: concurrent first starts, tuning, stop and status."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pymem import server

START = (
    "import sys, pathlib, psycopg, warnings; warnings.simplefilter('ignore');"
    "from pymem import server;"
    "dsn = server.start_embedded(pathlib.Path(sys.argv[1]));"
    "print(psycopg.connect(dsn).execute('SHOW shared_buffers').fetchone()[0])"
)


def test_three_processes_start_one_fresh_server():
    # a mkdtemp directory, like conftest's: under root the server runs as its own
    # OS user, which must reach it; pytest's tmp_path root is 0700 and another
    # pytest session on the machine may reset it to 0700 at any time
    root = Path(tempfile.mkdtemp(prefix="pymem-server-test-"))
    pgdata = root / "pg"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", START, str(pgdata)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    try:
        outputs = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0], [err for _, err in outputs]
        assert [out.strip() for out, _ in outputs] == ["512MB"] * 3
        status = server.embedded_status(pgdata)
        assert status["running"] and status["dsn"]
    finally:
        server.stop_embedded(pgdata)
    assert not server.embedded_status(pgdata)["running"]
    assert server.stop_embedded(pgdata) is False
    shutil.rmtree(root, ignore_errors=True)
