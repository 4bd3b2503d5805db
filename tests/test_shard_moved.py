"""A call cut by a shard move (Citus: XX000 'cannot execute a distributed query from a
query on a shard', nothing written) is run again for pymem.store.SHARD_MOVE_WAIT, beyond
the RETRIES of other serialization failures: a move's switch can block the shard's writes
for seconds. Here a real trigger raises Citus's error for a call's first attempts (a
sequence counts them: a rolled-back attempt does not roll it back)."""

from __future__ import annotations

import psycopg
import pytest

from pymem import MemoryStore
from pymem.errors import ShardMoved
from pymem.store import RETRIES
from tests.conftest import unit


def _cut_first(dsn: str, attempts: int) -> None:
    """Every insert into pymem.memories fails as a moving shard's until ``attempts``
    attempts have failed."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE SEQUENCE public.cut_attempts")
        conn.execute(
            "CREATE FUNCTION public.cut_by_a_move() RETURNS trigger LANGUAGE plpgsql AS $$"
            f" BEGIN IF nextval('public.cut_attempts') <= {attempts} THEN"
            " RAISE EXCEPTION 'cannot execute a distributed query from a query on a shard'"
            " USING ERRCODE = 'XX000'; END IF; RETURN NEW; END $$"
        )
        conn.execute(
            "CREATE TRIGGER cut_by_a_move BEFORE INSERT ON pymem.memories"
            " FOR EACH ROW EXECUTE FUNCTION public.cut_by_a_move()"
        )


def test_a_write_cut_by_a_shard_move_lands_once_the_move_is_over(fresh_dsn):
    _cut_first(fresh_dsn, RETRIES + 4)  # more attempts than other failures get
    with MemoryStore(fresh_dsn) as store:
        assert store.upsert("ann", "Ann moved to Lisbon", unit(0)).action == "inserted"
        assert len(store.get_memories("ann")) == 1


def test_a_move_that_does_not_end_is_raised_with_nothing_written(fresh_dsn):
    _cut_first(fresh_dsn, 10**6)
    with MemoryStore(fresh_dsn) as store:
        store._shard_move_wait = 0.3
        with pytest.raises(ShardMoved):
            store.upsert("ann", "Ann moved to Lisbon", unit(0))
        assert store.get_memories("ann") == []
