"""A bounded stress run: threads on their own connections (and two on a pool,
as pymem_app under row-level security) mix every writer and reader on
overlapping users; afterwards the store's invariants hold and nothing
acknowledged is lost."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import psycopg
from psycopg_pool import ConnectionPool

from pymem import MemoryStore, configure_connection
from pymem.errors import (
    AlreadyConsolidated,
    InvalidConsolidation,
    MemoryNotFound,
    NoPendingReview,
    NotConsolidated,
)
from tests.conftest import at_cosine, unit

THREADS = 6
SECONDS = 2.0
USERS = ["u0", "u1", "u2"]
ITEMS = ["green tea", "black coffee", "oat milk", "chess", "go", "tennis", "React", "Rust"]
PEOPLE = ["Lily", "Tom", "小红"]
# outcomes another thread's work can legitimately cause
EXPECTED = (AlreadyConsolidated, InvalidConsolidation, MemoryNotFound, NoPendingReview,
            NotConsolidated)  # fmt: skip


def _content(rng: random.Random, user: str) -> tuple[str, object, str | None]:
    n = rng.randrange(len(ITEMS))
    style = rng.randrange(4)
    item = ITEMS[n]
    text = [f"{user} likes {item}", f"{user} really likes {item}!",
            f"{user} likes {item} a lot", f"{user} no longer likes {item}"][style]  # fmt: skip
    vector = unit(n) if style < 2 else at_cosine(0.9, n, 20 + style)
    return text, vector, (f"likes:{n}" if style == 3 else None)


def _worker(store: MemoryStore, seed: int, stop: float, ops: Counter, acked: list, errors: list):
    rng = random.Random(seed)
    while time.monotonic() < stop:
        user = rng.choice(USERS)
        op = rng.choice(["upsert", "upsert", "batch", "recall", "decay", "review", "fact",
                         "contact", "consolidate"])  # fmt: skip
        try:
            if op == "upsert":
                text, vector, topic = _content(rng, user)
                people = [rng.choice(PEOPLE)] if rng.random() < 0.3 else None
                r = store.upsert(user, text, vector, "preference", topic=topic, contacts=people)
                acked.append((user, r.memory_id))
            elif op == "batch":
                items = []
                for _ in range(3):
                    text, vector, topic = _content(rng, user)
                    items.append({"content": text, "embedding": vector, "kind": "preference",
                                  "topic": topic})  # fmt: skip
                acked.extend((user, r.memory_id) for r in store.upsert_many(user, items))
            elif op == "recall":
                store.recall(user, unit(rng.randrange(len(ITEMS))), 5, query_text="likes")
            elif op == "decay":
                store.apply_decay(user_id=user, cold_below=0.01)
            elif op == "review":
                for review in store.pending_reviews(user)[:1]:
                    if review.memory_id is not None and review.cause == "related":
                        decision = rng.choice(["keep_both", "supersede", "duplicate"])
                        store.resolve_review(user, review.memory_id, decision)
            elif op == "fact":
                store.set_fact(user, rng.choice(["city", "diet"]), rng.choice(["a", "b", "c"]),
                               confidence=rng.choice(["high", "medium", "low"]))  # fmt: skip
            elif op == "contact":
                name = rng.choice(PEOPLE)
                store.sync_contact(user, name, relationship="friend")
                store.mentioned_contacts(user, f"met {name} today")
            elif op == "consolidate":
                groups = store.consolidation_candidates(user, min_similarity=0.85, min_group=2)
                if groups:
                    ids = groups[0].member_ids[:3]
                    # the record's text is the app's (its LLM's): one per source set here,
                    # keeping every source's text (a record that drops a value is refused)
                    texts = [m.content for m in store.get_memories(user, ids)]
                    summary = f"{user} summary of " + " ".join(str(i)[:8] for i in sorted(ids))
                    summary += ": " + "; ".join(texts)
                    record = store.consolidate(user, ids, summary, unit(30))
                    if rng.random() < 0.3:
                        store.unconsolidate(user, record)
            ops[op] += 1
        except EXPECTED:
            ops[f"{op} (refused: changed by another thread)"] += 1
        except BaseException as exc:  # asserted by the test
            errors.append((op, repr(exc)))
            return


def test_stress_then_invariants(fresh_dsn):
    ops: Counter = Counter()
    acked: list = []
    errors: list = []
    stop = time.monotonic() + SECONDS
    started = time.monotonic()

    def as_app(conn):  # the pool's threads run as pymem_app, under RLS
        configure_connection(conn)
        conn.execute("SET ROLE pymem_app")

    with ConnectionPool(fresh_dsn, min_size=2, max_size=2, configure=as_app,
                        kwargs={"autocommit": True}, open=True) as pool:  # fmt: skip
        stores = [MemoryStore(fresh_dsn) for _ in range(THREADS - 2)]
        stores += [MemoryStore(pool), MemoryStore(pool)]
        threads = [
            threading.Thread(target=_worker, args=(s, i, stop, ops, acked, errors))
            for i, s in enumerate(stores)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        elapsed = time.monotonic() - started
        for s in stores:
            s.close()
    assert errors == []
    total = sum(ops.values())
    assert total > 100, ops
    print(f"\nstress: {total} operations, {THREADS} threads on {THREADS - 2} connections"
          f" + a pool of 2 as pymem_app, {elapsed:.1f} s, {len(acked)} memory writes"
          f" acknowledged: {dict(sorted(ops.items()))}")  # fmt: skip

    with psycopg.connect(fresh_dsn) as conn:

        def none(query: str) -> None:
            rows = conn.execute(query).fetchall()
            assert rows == [], rows[:5]

        # no duplicate pair by normalized text (and markers) within a user and kind
        none(
            "SELECT user_id, kind, fingerprint, pymem._fact_markers(content) FROM pymem.memories"
            " WHERE deleted_at IS NULL AND consolidated_into IS NULL"
            " GROUP BY 1, 2, 3, 4 HAVING count(*) > 1"
        )
        # one contact per normalized name
        none(
            "SELECT user_id, normalized_name FROM pymem.contacts GROUP BY 1, 2 HAVING count(*) > 1"
        )
        # every link to a live or consolidated memory of the same user
        none(
            "SELECT l.found_by, l.linked_at, m.deleted_at, m.version, (SELECT string_agg("
            " v.version || ': ' || v.reason, ' | ' ORDER BY v.version)"
            " FROM pymem.memory_versions AS v WHERE v.memory_id = m.id)"
            " FROM pymem.contact_links AS l LEFT JOIN pymem.memories AS m"
            " ON m.user_id = l.user_id AND m.id = l.memory_id"
            " WHERE m.id IS NULL OR m.deleted_at IS NOT NULL"
        )
        # one current value per fact key and scope
        none("SELECT user_id, key, scope FROM pymem.facts GROUP BY 1, 2, 3 HAVING count(*) > 1")
        # history complete: versions 1 .. version-1 of every memory
        none(
            "SELECT m.id, m.version, count(v.version) FROM pymem.memories AS m"
            " LEFT JOIN pymem.memory_versions AS v ON v.user_id = m.user_id AND v.memory_id = m.id"
            " GROUP BY m.id, m.version"
            " HAVING count(v.version) <> m.version - 1"
            " OR coalesce(max(v.version), 0) <> m.version - 1"
        )
        # nothing acknowledged is lost: every id a write returned is a row of its user
        stored = set(conn.execute("SELECT user_id, id FROM pymem.memories").fetchall())
        assert set(acked) <= stored
        assert len(acked) > 50
