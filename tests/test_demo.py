"""`pymem demo` says what its numbers mean: where the cold memories went after the 200
days, why a re-mentioned memory shows the strength it does, what normalization did to a
duplicate, what the contradiction rate counts; and its contact card prints the same lines
in the same order on every run."""

from __future__ import annotations

import contextlib
import io
import re
import uuid
from collections.abc import Iterator

import pytest

from pymem.demo import MUSIC, _facts_demo, _print_actions
from tests.conftest import _clone, _drop, unit


@pytest.fixture(scope="module")
def demo(admin_dsn, template_dsn, embedder) -> Iterator[str]:
    """The demo's whole output, on a database of its own: one run for the tests that read
    it (tests/conftest.py keeps this module on one worker)."""
    from pymem.demo import run_demo

    name = f"pymem_test_demo_{uuid.uuid4().hex[:12]}"
    dsn = _clone(admin_dsn, name)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run_demo(dsn) == 0
    yield out.getvalue()
    _drop(admin_dsn, name)


def _section(out: str, title: str) -> str:
    """From the ``== title`` line to the next ``== `` line."""
    start = out.index(f"\n== {title}")
    end = out.find("\n== ", start + 1)
    return out[start : None if end < 0 else end]


def _recall(section: str, title: str) -> list[dict]:
    """The hits a ``recall: title`` block of the section printed."""
    block = section[section.index(f"  recall: {title}\n") :].split("\n\n")[0]
    line = re.compile(
        r"score +([\d.]+) +sim +([-\d.]+) +strength ([\d.]+) \(importance ([\d.]+), +(\d+) days\)"
        r"  (hot |cold) (\S+) +(.*)"
    )
    hits = []
    for text in block.splitlines()[1:]:
        m = line.search(text)
        if m:
            keys = ("score", "sim", "strength", "importance", "days")
            hit = {k: float(v) for k, v in zip(keys, m.groups()[:5], strict=True)}
            hits.append(dict(hit, tier=m.group(6).strip(), kind=m.group(7), content=m.group(8)))
    return hits


@pytest.mark.embed
def test_the_demo_explains_its_cold_memories_and_the_restarted_clock(demo):
    decayed = _section(demo, "200 days pass")
    hot = _recall(decayed, MUSIC)
    assert hot and {h["tier"] for h in hot} == {"hot"}
    assert all(h["days"] == 200 for h in hot)
    assert not [h for h in hot if "Coldplay" in h["content"]]  # why nothing about music...
    # ... says the demo, from a recall with include_cold=True
    said = re.search(
        r"(\d+) memories of the cold tier match better than these"
        r" \(similarity ([\d.]+)-([\d.]+), here at most ([\d.]+)\):\n"
        r" +recall leaves the cold tier out unless include_cold=True;"
        r" a re-mention brings a memory back",
        decayed,
    )
    assert said, decayed
    count, low, high, best = int(said[1]), float(said[2]), float(said[3]), float(said[4])
    assert best == max(h["sim"] for h in hot) < low <= high
    everywhere = _recall(decayed, f"{MUSIC} (include_cold=True)")
    cold = [h for h in everywhere if h["tier"] == "cold" and h["sim"] > best]
    assert cold and len(cold) <= count and all(low <= h["sim"] <= high for h in cold)
    assert {"User's favourite band is Coldplay", "User likes Coldplay's live albums"} <= {
        h["content"] for h in cold
    }

    again = _section(demo, "The user mentions Coldplay again")
    (band,) = [
        h for h in _recall(again, MUSIC) if h["content"] == "User's favourite band is Coldplay"
    ]
    # the clock restarted: 0 days, so the strength is the importance (0.2, as first rated)
    assert band["tier"] == "hot" and band["days"] == 0
    assert band["strength"] == band["importance"] == 0.2
    assert "duplicate (same normalized text): the memory is hot again" in again
    assert "0 days since it, so its strength is its importance, 0.200 (0.20:" in again
    # and every other memory of that recall is at the same real time: strength = importance
    assert all(h["days"] == 0 and h["strength"] == h["importance"] for h in _recall(again, MUSIC))
    # where the 0.2 came from is printed with the first mention
    assert re.search(r"User's favourite band is Coldplay\n.*importance 0\.2\]", demo)


@pytest.mark.embed
def test_the_demo_card_lists_facts_of_one_moment_in_text_order(demo):
    card = _section(demo, "People").split("her card:\n")[1]
    facts = [line.strip()[2:] for line in card.splitlines() if line.strip().startswith("- ")]
    assert len(facts) == 5 and facts == sorted(facts)  # written in one batch: tied


def test_a_normalized_duplicate_shows_both_normalized_forms(store, conn, capsys):
    items = [
        {"content": "Ann drinks green tea", "embedding": unit(0)},
        {"content": "Ann REALLY drinks green tea!", "embedding": unit(0) * 0.9 + unit(1) * 0.1},
    ]
    results = store.upsert_many("ann", items)
    assert [r.rule for r in results] == ["no close memory", "same normalized text"]
    stored: dict = {}
    _print_actions(items, results, conn, stored)
    out = capsys.readouterr().out
    assert "why: same normalized text\n" in out
    assert (
        "normalized: lower case, no intensifiers (very, 非常, ...), no spaces or punctuation" in out
    )
    assert "'Ann REALLY drinks green tea!' -> 'anndrinksgreentea'\n" in out
    assert "'Ann drinks green tea' -> 'anndrinksgreentea' (the stored memory)\n" in out
    assert stored == {results[0].memory_id: "Ann drinks green tea"}


def test_the_contradiction_rate_says_what_it_counts(store, conn, capsys):
    _facts_demo(store, "ann", conn)
    out = capsys.readouterr().out
    assert (
        "contradiction rate: 50% (the share of the user's facts whose sources disagree\n"
        "  and wait for an answer: 1 of 2, likes_os)\n"
    ) in out
    assert "contradiction rate 0%" in out  # once the user answered


def test_the_demo_ages_only_its_own_user(fresh_dsn, capsys, embedder):
    """`pymem --dsn <a store> demo` writes its own user there; its 200 days of decay are
    its user's alone: another user's memory that those days would cool stays hot."""
    import psycopg

    from pymem import MemoryStore
    from pymem.demo import run_demo

    with MemoryStore(fresh_dsn) as store:
        bob = store.upsert("bob", "Bob once mentioned a band he liked", unit(0), "preference")
        store.set_fact_policy("likes_*", "latest_wins")
    assert run_demo(fresh_dsn) == 0
    capsys.readouterr()
    # the store's policy, which the demo's conflict needs as confirm, is the store's again
    with MemoryStore(fresh_dsn) as store, psycopg.connect(fresh_dsn) as conn:
        assert conn.execute(
            "SELECT policy FROM pymem.fact_policies WHERE key_pattern = 'likes_*'"
        ).fetchone() == ("latest_wins",)
    with psycopg.connect(fresh_dsn) as conn:
        demo_tiers = conn.execute(
            "SELECT DISTINCT tier FROM pymem.memories WHERE user_id LIKE 'demo-%'"
        ).fetchall()
        assert ("cold",) in demo_tiers  # the decay did run, on the demo's user
        assert conn.execute(
            "SELECT tier FROM pymem.memories WHERE id = %s", (bob.memory_id,)
        ).fetchone() == ("hot",)
