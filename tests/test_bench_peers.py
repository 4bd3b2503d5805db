"""``pymem bench peers`` on tiny sizes: pymem and mem0 (the extra pymem[peers]) side by side
on the session's server. What each store kept and returned, never timing."""

from __future__ import annotations

import sys
import uuid

import pytest

from bench import peers
from pymem.cli import main as cli_main
from pymem.server import create_database
from tests.conftest import _drop, _with_dbname

TINY = peers.PeersSizes(users=2, per_user=40, repeat=0.1, queries=4)


@pytest.fixture
def mem0_dsn(admin_dsn: str):
    """An empty database of its own for mem0's pgvector store."""
    name = f"pymem_test_mem0_{uuid.uuid4().hex[:12]}"
    create_database(admin_dsn, name)
    yield _with_dbname(admin_dsn, name)
    _drop(admin_dsn, name)


def test_peers_bench(fresh_dsn, mem0_dsn):
    lines: list[str] = []
    res = peers.run(fresh_dsn, mem0_dsn, TINY, out=lines.append)

    text = "\n".join(lines)
    for part in ("machine:", "server: PostgreSQL", "recall@10", "a repeated fact:", "generic plan"):
        assert part in text, f"{part!r} not printed"
    facts = TINY.users * TINY.per_user
    repeats = TINY.users * round(TINY.per_user * TINY.repeat)
    assert (res["writes"], res["repeats"]) == (facts + repeats, repeats)
    # pymem keeps each fact once: every repeat is a duplicate of its first write
    assert res["actions"] == {"new inserted": facts, "repeat duplicate": repeats}
    assert res["stored"]["pymem"] == facts
    # mem0 with infer=False stores every repeat again
    assert res["mem0_events"] == {"new ADD": facts, "repeat ADD": repeats}
    assert res["stored"]["mem0"] == facts + repeats
    # every vector came from the stub: each add and each search embedded once (3 warm-ups each)
    assert res["embed_calls"] == res["writes"] + res["queries"] + 6
    assert res["refused_network"] == []
    # results are rows the store holds for that user
    assert res["foreign_rows"] == {"pymem": 0, "mem0": 0}
    assert res["returned"]["pymem"] == 10
    assert 0 < res["returned"]["mem0"] <= 10
    assert res["short_results"]["pymem"] == 0
    assert 0 <= res["short_results"]["mem0"] <= res["queries"]
    for name in ("pymem", "mem0"):
        assert 0.0 <= res["recall_min"][name] <= res["recall_at_10"][name] <= 1.0
    # pymem's recall is an exact scan of the user's rows
    assert res["recall_at_10"]["pymem"] == 1.0
    assert all(t.n == res["writes"] for k, t in res["timings"].items() if k.endswith("write"))
    assert all(t.n == res["queries"] for k, t in res["timings"].items() if k.endswith("recall"))
    assert any("Limit" in line for line in res["mem0_plans"]["generic"])
    measures = [row["measure"] for row in peers.to_json(res)["table"]]
    for measure in ("write p50 (ms)", "load rate (writes/s)", "recall@10 vs exact top 10 (mean)"):
        assert measure in measures


def test_peers_without_mem0(monkeypatch, capsys):
    # mem0 not importable: one line naming the extra, no database touched
    monkeypatch.setitem(sys.modules, "mem0", None)
    assert cli_main(["--dsn", "postgresql://nowhere.invalid/x", "bench", "peers"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [peers.INSTALL_HINT]
