"""A populated store, dumped and restored the ways a DBA does it.

``populate`` writes what a store holds after some use: memories with history
(supersedes, a hand-written UPDATE), facts with history, contacts with aliases
and links, an open review and a consolidation. ``dump`` and ``restore`` run the
embedded server's own pg_dump, pg_restore and psql in each usual form
(``FORMATS``): custom and plain SQL, each one statement at a time and in a
single transaction. tests/test_backup.py restores into the same and into a new
cluster; ``PYMEM_TEST_RESTORE=<form>`` makes the suite's template database such a
restored copy, so every test runs against one (tests/conftest.py, .ci/run).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import psycopg
from psycopg.conninfo import conninfo_to_dict

from pymem import MemoryStore

FORMATS = ("custom", "custom-single", "plain", "plain-single")
USER = "restored-ann"
DIM = 512


def _bin(name: str) -> str:
    from pymem.cli import psql_path

    return str(Path(psql_path()).with_name(name))


def _vector(*weights: float) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[: len(weights)] = weights
    return v / np.linalg.norm(v)


def populate(dsn: str) -> dict[str, str]:
    """A user's store after some use; returns the ids the checks read back."""
    with MemoryStore(dsn) as store:
        first = store.upsert(USER, "My A1C is 7.2%", _vector(1, 0, 0))
        store.upsert(USER, "My A1C is 6.8%", _vector(1, 0, 0))  # superseded in place
        tea = store.upsert(USER, "Ann drinks green tea", _vector(0, 1, 0), "preference")
        # related, not the same slot: a review left open
        store.upsert(USER, "Ann checks her A1C every month", _vector(0.8, 0, 0.6))
        fragments = [
            store.upsert(USER, text, _vector(0, 0, 0, 1, i / 10)).memory_id
            for i, text in enumerate(["Ann runs on Mondays", "Ann runs 5 km", "Ann runs at 7am"])
        ]
        record = store.consolidate(
            USER, fragments, "Ann runs 5 km at 7am on Mondays", _vector(0, 0, 0, 1, 0.1)
        )
        store.set_fact(USER, "lab_5", 6.5)
        store.set_fact(USER, "lab_5", 5.9)
        store.set_fact(USER, "city", "Lisbon")
        maria = store.sync_contact(
            USER, "Maria Silva", [tea.memory_id], relationship="sister", aliases=["Mia"]
        )
    with psycopg.connect(dsn, autocommit=True) as conn:
        # a hand-written UPDATE is history too
        conn.execute(
            "UPDATE pymem.memories SET content = 'Ann drinks green tea daily' WHERE id = %s",
            (tea.memory_id,),
        )
    return {
        "a1c": str(first.memory_id),
        "tea": str(tea.memory_id),
        "record": str(record),
        "maria": str(maria),
    }


def dump(dsn: str, directory: Path) -> dict[str, Path]:
    """The database in both of pg_dump's usual formats."""
    custom, plain = directory / "store.dump", directory / "store.sql"
    subprocess.run([_bin("pg_dump"), "-Fc", "-f", str(custom), "-d", dsn], check=True)
    subprocess.run([_bin("pg_dump"), "-f", str(plain), "-d", dsn], check=True)
    return {"custom": custom, "plain": plain}


def restore(form: str, dumps: dict[str, Path], dsn: str) -> subprocess.CompletedProcess:
    """Restore into the (empty, existing) database at ``dsn`` as a DBA would: errors
    stop a plain restore (ON_ERROR_STOP); pg_restore goes on past one and says so."""
    single = ["--single-transaction"] if form.endswith("-single") else []
    if form.startswith("custom"):
        command = [_bin("pg_restore"), *single, "-d", dsn, str(dumps["custom"])]
    else:
        command = [_bin("psql"), "-q", "-X", "-v", "ON_ERROR_STOP=1", *single, "-d", dsn,
                   "-f", str(dumps["plain"])]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True)


def roles_only(admin_dsn: str) -> str:
    """The cluster's roles as SQL (``pg_dumpall --roles-only``), to run on a new cluster
    before the restore."""
    params = conninfo_to_dict(admin_dsn)
    args = [_bin("pg_dumpall"), "--roles-only", "-h", str(params.get("host") or "")]
    if params.get("port"):
        args += ["-p", str(params["port"])]
    if params.get("user"):
        args += ["-U", str(params["user"])]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout
