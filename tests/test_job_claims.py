"""Claims on the worker's model jobs (sql/28_job_claims.sql): what is due, leases, failures,
parking, and two workers at once on their own connections; called as SQL through the
store."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from pymem import MemoryStore
from pymem.errors import InvalidParameter
from tests.conftest import unit

USER = "ann"


@pytest.fixture
def store(conn) -> MemoryStore:
    conn.execute("UPDATE pymem.settings SET reflect_every = 4, review_max_attempts = 2")
    return MemoryStore(conn)


def fragments(store: MemoryStore, topic: str, n: int = 3, user: str = USER, base: int = 0):
    return [
        store.upsert(user, f"{topic} fragment {i} says {'abcdefgh'[i]}", unit(base + i),
                     topic=topic).memory_id
        for i in range(n)
    ]  # fmt: skip


def claims(store, worker="w1", user=USER, **kwargs) -> dict[tuple[str, str], object]:
    return {(c.job, c.key): c for c in store.claim_jobs(user, worker, 10, **kwargs)}


def test_nothing_is_due_in_an_empty_store(store):
    assert store.claim_jobs(USER, "w1") == []
    assert store.claim_jobs(None, "w1") == []


def test_a_full_topic_is_a_consolidation_with_its_live_fragments(store):
    ids = fragments(store, "tea")
    got = claims(store)
    assert set(got) == {("consolidate", "tea")}
    job = got["consolidate", "tea"]
    # (in one transaction the fragments share a time: their order is their ids')
    assert set(job.member_ids) == set(ids) and job.attempts == 0 and job.user_id == USER
    # held: a second worker gets nothing, the same worker nothing new
    assert store.claim_jobs(USER, "w2") == []


def test_writes_make_a_reflection_due_and_finishing_records_it(fresh_dsn):
    # committed writes: each has its own time, as in a store in use
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("UPDATE pymem.settings SET reflect_every = 4")
        store = MemoryStore(conn)
        for i in range(3):
            store.upsert(USER, f"plain note {'abc'[i]} of the day", unit(10 + i))
        assert claims(store) == {}  # 3 writes of 4
        store.upsert(USER, "plain note d of the day", unit(14))
        job = claims(store)["reflect", ""]
        assert job.since is None
        assert store.finish_job(USER, "reflect", "", "w1") == "done"
        (reflected,) = conn.execute("SELECT reflected_at FROM pymem.reflections").fetchone()
        assert claims(store) == {}  # nothing written since
        store.upsert(USER, "plain note e of the day", unit(15))
        assert claims(store) == {}  # 1 write of 4
        # on a schedule: any write since a reflection that old
        job = claims(store, reflect_after=0)["reflect", ""]
        assert job.since == reflected
        assert store.finish_job(USER, "reflect", "", "w2") == "not held"
        assert claims(store, reflect_after=3600) == {}  # a reflection that recent


def test_a_person_with_enough_fragments_is_a_profile_job(store):
    for i in range(5):
        store.upsert(USER, f"Bea said thing {'abcde'[i]}", unit(20 + i), contacts=["Bea"])
    (job,) = [c for c in store.claim_jobs(USER, "w1") if c.job == "profile"]
    assert job.key == str(job.contact_id) and len(job.member_ids) == 5


def test_a_failure_is_retried_later_then_parked_then_unparked(store, conn):
    fragments(store, "tea")
    claims(store)
    assert store.release_job(USER, "consolidate", "tea", "w1", "model: HTTP 500",
                             retry_after=3600) == "retry"  # fmt: skip
    assert claims(store) == {}  # waiting for its retry
    conn.execute("UPDATE pymem.job_claims SET retry_at = now() - interval '1 second'")
    job = claims(store)["consolidate", "tea"]
    assert job.attempts == 1
    assert store.release_job(USER, "consolidate", "tea", "w1", "still failing") == "parked"
    assert claims(store) == {}
    (back,) = store.unpark_jobs(USER)
    assert (back.job, back.key, back.attempts, back.last_error) == (
        "consolidate",
        "tea",
        2,
        "still failing",
    )
    assert claims(store)["consolidate", "tea"].attempts == 0


def test_a_lapsed_claim_is_a_failed_attempt(store, conn):
    fragments(store, "tea")
    claims(store, "dead")
    conn.execute("UPDATE pymem.job_claims SET claimed_until = now() - interval '1 second'")
    job = claims(store, "w2")["consolidate", "tea"]
    assert job.attempts == 1
    assert conn.execute("SELECT last_error FROM pymem.job_claims").fetchone() == (
        "the claim of worker dead ran out",
    )
    # the dead worker's late answer is not applied
    assert store.finish_job(USER, "consolidate", "tea", "dead") == "not held"
    assert store.release_job(USER, "consolidate", "tea", "w2") == "released"
    assert claims(store, "w3")["consolidate", "tea"].attempts == 1


def test_every_user_is_claimed_store_wide_and_k_bounds_it(store):
    fragments(store, "tea", user="ann")
    fragments(store, "jam", user="bob", base=5)
    fragments(store, "oat", user="bob", base=10)
    first = store.claim_jobs(None, "w1", 2)
    assert len(first) == 2
    rest = store.claim_jobs(None, "w2", 10)
    assert {(c.user_id, c.key) for c in first + rest} == {
        ("ann", "tea"),
        ("bob", "jam"),
        ("bob", "oat"),
        ("bob", ""),  # bob wrote 6 of 4
    }


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.claim_jobs(USER, "", 1), "worker"),
        (lambda s: s.claim_jobs(USER, "w", 0), "k must be"),
        (lambda s: s.claim_jobs(USER, "w", 1, lease=0), "lease"),
        (lambda s: s.claim_jobs(USER, "w", 1, reflect_after=-1), "reflect_after"),
        (lambda s: s.finish_job(USER, "dance", "", "w"), "job must be"),
        (lambda s: s.release_job(USER, "reflect", "", "w", retry_after=-1), "retry_after"),
    ],
)
def test_bad_arguments_are_pm006(store, call, message):
    with pytest.raises(InvalidParameter, match=message) as caught:
        call(store)
    assert caught.value.sqlstate == "PM006"


def test_two_workers_at_once_never_hold_one_job(fresh_dsn):
    with MemoryStore(fresh_dsn) as setup:
        for i in range(6):
            fragments(setup, f"topic{i}", base=10 * i)

    def claim(worker: str) -> list[str]:
        with psycopg.connect(fresh_dsn, autocommit=True) as conn:
            return [c.key for c in MemoryStore(conn).claim_jobs(USER, worker, 4)]

    with ThreadPoolExecutor(2) as pool:
        a, b = pool.map(claim, ["w1", "w2"])
    assert len(a) + len(b) == 6 and not set(a) & set(b)


def test_a_worker_claims_only_the_kinds_it_runs(store):
    fragments(store, "tea")
    store.upsert(USER, "one more plain note", unit(30))
    assert set(claims(store, jobs=["reflect"])) == {("reflect", "")}  # 4 writes of 4
    assert set(claims(store, "w2", jobs=["consolidate"])) == {("consolidate", "tea")}
