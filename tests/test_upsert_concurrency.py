"""Concurrent writers: the per-user advisory lock makes dedup race-free.

Each thread has its own autocommit connection to a private database
(``fresh_dsn``); a barrier starts them together. Eight writers upserting the
same facts must leave exactly one row per fact, mentioned once per writer.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import psycopg

from pymem import MemoryItem, MemoryStore
from tests.conftest import at_cosine, unit

THREADS = 8
FACTS = 50
USER = "alice"


def _words(n: int, seed: int = 7) -> list[str]:
    """n lexically unrelated texts (random letters: no shared trigrams to speak of)."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [
        " ".join("".join(rng.choice(letters) for _ in range(6)) for _ in range(3)) for _ in range(n)
    ]


TEXTS = _words(FACTS)


def run_together(dsn: str, work: Callable[[Any, int], None], *, raw_sql: bool = False) -> None:
    """Run ``work(client, thread_index)`` in THREADS threads started by a barrier; the
    client is a MemoryStore, or with ``raw_sql`` a plain autocommit connection."""
    barrier = threading.Barrier(THREADS, timeout=30)
    errors: list[BaseException] = []

    def target(index: int) -> None:
        try:
            client = psycopg.connect(dsn, autocommit=True) if raw_sql else MemoryStore(dsn)
            with client:
                if not raw_sql:
                    client.get_settings()  # connect and check the schema before the start
                barrier.wait()
                work(client, index)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=target, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "writers did not finish"
    assert errors == []


def rows(dsn: str, user_id: str = USER) -> list[tuple]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT content, mention_count FROM pymem.memories WHERE user_id = %s ORDER BY content",
            (user_id,),
        ).fetchall()


def test_concurrent_single_upserts_store_each_fact_once(fresh_dsn):
    actions: list[str] = []
    lock = threading.Lock()

    def work(store: MemoryStore, index: int) -> None:
        order = list(range(FACTS))
        random.Random(index).shuffle(order)
        for i in order:
            r = store.upsert(USER, TEXTS[i], unit(i))
            with lock:
                actions.append(r.action)

    run_together(fresh_dsn, work)
    stored = rows(fresh_dsn)
    assert len(stored) == FACTS
    assert sorted(c for c, _ in stored) == sorted(TEXTS)
    assert all(m == THREADS for _, m in stored), stored
    assert actions.count("inserted") == FACTS
    assert actions.count("duplicate") == FACTS * (THREADS - 1)


def test_concurrent_paraphrases_store_each_fact_once(fresh_dsn):
    """Not the fingerprint: each writer words and embeds each fact its own way
    (pairwise cosine 0.97**2 > 0.92), so only the locked cosine check dedups.
    Each wording swaps its own words, which the store is told to tolerate."""

    wordings = _words(THREADS, seed=99)
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("UPDATE pymem.settings SET dedup_term_change = 1")

    def work(store: MemoryStore, index: int) -> None:
        order = list(range(FACTS))
        random.Random(100 + index).shuffle(order)
        for i in order:
            text = f"{TEXTS[i]} {wordings[index]}"
            r = store.upsert(USER, text, at_cosine(0.97, base=i, other=FACTS + index))
            assert r.action in ("inserted", "duplicate")

    run_together(fresh_dsn, work)
    stored = rows(fresh_dsn)
    assert len(stored) == FACTS
    assert all(m == THREADS for _, m in stored), stored


def test_concurrent_batches_store_each_fact_once(fresh_dsn):
    batch = [
        MemoryItem(TEXTS[i], unit(i)) if i % 2 else {"content": TEXTS[i], "embedding": unit(i)}
        for i in range(FACTS)
    ]
    results: list[list] = []
    lock = threading.Lock()

    def work(store: MemoryStore, index: int) -> None:
        out = store.upsert_many(USER, batch)
        with lock:
            results.append(out)

    run_together(fresh_dsn, work)
    stored = rows(fresh_dsn)
    assert len(stored) == FACTS
    assert all(m == THREADS for _, m in stored), stored
    # every writer got the same ids, in input order
    ids = [[r.memory_id for r in out] for out in results]
    assert all(x == ids[0] for x in ids)
    assert all([r.ordinal for r in out] == list(range(1, FACTS + 1)) for out in results)
    inserted = sum(r.action == "inserted" for out in results for r in out)
    assert inserted == FACTS


def test_concurrent_shuffled_batches_of_two_users(fresh_dsn):
    users = ["alice", "bob"]

    def work(store: MemoryStore, index: int) -> None:
        items = [{"content": TEXTS[i], "embedding": np.asarray(unit(i))} for i in range(FACTS)]
        random.Random(index).shuffle(items)
        for start in range(0, FACTS, 10):
            store.upsert_many(users[index % 2], items[start : start + 10])

    run_together(fresh_dsn, work)
    for user in users:
        stored = rows(fresh_dsn, user)
        assert len(stored) == FACTS
        assert all(m == THREADS // 2 for _, m in stored), stored


def test_concurrent_raw_sql_upserts(fresh_dsn):
    """Another language's client: plain SQL over its own connection, no MemoryStore."""

    def work(conn: psycopg.Connection, index: int) -> None:
        order = list(range(FACTS))
        random.Random(200 + index).shuffle(order)
        for i in order:
            literal = "[" + ",".join(str(float(x)) for x in unit(i)) + "]"
            conn.execute(
                "SELECT * FROM pymem.upsert_memory(%s, %s, %s::vector, importance => %s)",
                (USER, TEXTS[i], literal, 0.5),
            )

    run_together(fresh_dsn, work, raw_sql=True)
    stored = rows(fresh_dsn)
    assert len(stored) == FACTS
    assert all(m == THREADS for _, m in stored), stored
