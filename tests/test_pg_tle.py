"""The pg_tle install (``pymem extension tle``) on a server with pg_tle, the way a
managed service installs an extension written in SQL. ``PYMEM_TEST_PGTLE_DSN`` names
such a server (scripts/pg_tle_server.py builds one from ../shared/vendor/; .ci/run
does); without it these tests are reported as skipped, not passed."""

from __future__ import annotations

import os
import uuid

import numpy as np
import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from pymem import MemoryStore, extension
from pymem.migrate import shipped_schema_version
from pymem.snapshot import drift

DSN = os.environ.get("PYMEM_TEST_PGTLE_DSN")
pytestmark = pytest.mark.skipif(
    not DSN, reason="needs a server with pg_tle: PYMEM_TEST_PGTLE_DSN (scripts/pg_tle_server.py)"
)


@pytest.fixture
def tle_database():
    name = f"pymem_tle_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(DSN, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    yield make_conninfo(DSN, dbname=name)
    with psycopg.connect(DSN, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


def _unit(i: int) -> np.ndarray:
    v = np.zeros(512, dtype=np.float32)
    v[i] = 1
    return v


def test_the_pg_tle_install_makes_a_store_that_writes_and_reads(tle_database):
    with psycopg.connect(tle_database, autocommit=True) as conn:
        conn.execute(extension.tle_script())
        conn.execute("CREATE EXTENSION pymem CASCADE")
        conn.execute("SELECT * FROM pymem.setup()")
        assert conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'pymem'"
        ).fetchone() == (extension.version(shipped_schema_version()),)
        assert drift(conn) == []
    with MemoryStore(tle_database) as store:
        assert store.upsert("ann", "Ann drinks green tea", _unit(0), "preference").action == (
            "inserted"
        )
        again = store.upsert("ann", "Ann drinks green tea.", _unit(0), "preference")
        assert again.action == "duplicate"
        store.upsert("ann", "Ann walks to work", _unit(1))
        assert [r.content for r in store.recall("ann", _unit(1), k=1)] == ["Ann walks to work"]
