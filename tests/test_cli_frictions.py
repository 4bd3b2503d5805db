"""What a new user tripped over in the CLI (issue 39), each fixed and held by a test."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid

import psycopg
from psycopg.conninfo import make_conninfo

from tests.conftest import _drop


def test_ctrl_c_in_eval_says_interrupted_without_a_traceback(admin_dsn):
    """Ctrl-C in a command with nothing of its own to say (eval, demo): one line, exit
    130, where it printed a 60-line traceback."""
    database = f"pymem_eval_{uuid.uuid4().hex[:10]}"
    command = [sys.executable, "-m", "pymem.cli", "--dsn", admin_dsn, "eval", "--database",
               database]  # fmt: skip
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
