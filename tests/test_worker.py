"""The worker for every event (pymem.worker, pymem worker): a real local server speaks the
chat completions protocol with scripted answers per job; the database and the embedder
are real."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from pymem import MemoryStore
from pymem.chat import ChatClient
from pymem.worker import MemoryWorker
from tests.chat_server import ChatServer, Reply, content

pytest.importorskip("httpx")

USER = "ann"
USAGE = {"prompt_tokens": 100, "completion_tokens": 20}


def job_of(request) -> str:
    """The job a request names: ``response_format``'s schema name, else the system
    message's first word (the contract, docs/llm.md)."""
    fmt = request.body.get("response_format")
    if fmt:
        return fmt["json_schema"]["name"]
    return request.body["messages"][0]["content"].split()[0]


def scripted(answers: dict[str, object]):
    """A script: the answer of each job (an object as JSON, a Reply, or a callable of the
    request)."""

    def script(request):
        answer = answers[job_of(request)]
        if callable(answer):
            answer = answer(request)
        if isinstance(answer, Reply):
            return answer
        return content(json.dumps(answer), USAGE)

    return script


@pytest.fixture
def own(fresh_dsn, embedder):
    with MemoryStore(fresh_dsn) as store:
        args, kwargs = embedder._settings()
        store.configure_embedder(*args, **kwargs, overwrite=True)
        with psycopg.connect(fresh_dsn, autocommit=True) as conn:
            conn.execute("UPDATE pymem.settings SET reflect_every = 1000")
        yield store


def write(store, embedder, text: str, **keys) -> str:
    return str(store.upsert(USER, text, embedder([text])[0], **keys).memory_id)


def live(store) -> set[str]:
    return {m.content for m in store.get_memories(USER)}


def tea(store, embedder) -> list[str]:
    return [
        write(store, embedder, "Ann drinks oolong tea", kind="preference", topic="tea"),
        write(store, embedder, "Ann brews her tea at 90 degrees", kind="habit", topic="tea"),
        write(store, embedder, "Ann buys her tea from a shop in Fujian", topic="tea"),
    ]


RECORD = {"content": "Ann drinks oolong tea from a shop in Fujian, brewed at 90 degrees",
          "details": {}}  # fmt: skip


def worker(store, chat, embedder, **options) -> MemoryWorker:
    return MemoryWorker(store, chat, embedder, poll_interval=0.1, retry_after=0, **options)


def test_a_drain_consolidates_and_counts_what_it_cost(own, embedder):
    tea(own, embedder)
    with (
        ChatServer(scripted({"pymem_consolidate": RECORD})) as server,
        ChatClient(server.url, "m") as chat,
    ):
        w = worker(own, chat, embedder)
        w.drain()
        assert [job_of(r) for r in server.requests] == ["pymem_consolidate"]
        assert live(own) == {RECORD["content"]}
        assert w.counts.done == {"consolidate": 1}
        cost = w.counts.costs["consolidate"]
        assert (cost.calls, cost.prompt_tokens, cost.completion_tokens) == (1, 100, 20)
        assert "consolidate 1 done" in w.counts.line()
        # an idle worker makes no call
        w.drain()
        assert len(server.requests) == 1


def test_a_profile_and_a_review_in_one_drain(own, embedder):
    for i, said in enumerate(["is Ann's sister", "works as a nurse", "lives in Braga",
                              "has two cats", "runs marathons"]):  # fmt: skip
        write(own, embedder, f"Ana {said}", contacts=["Ana"], importance=0.5 + i / 100)
    profile = {"description": "Ann's sister, a nurse in Braga who runs marathons",
               "relationship": "sister", "attributes": {"city": "Braga"}}  # fmt: skip
    own.upsert(USER, "Ann's sister Ana lives in Braga now", embedder(["Ana lives in Braga"])[0])
    answers = {"pymem_profile": profile,
               "pymem_review": {"decision": "keep_both", "reason": "two facts"}}  # fmt: skip
    with ChatServer(scripted(answers)) as server, ChatClient(server.url, "m") as chat:
        w = worker(own, chat, embedder)
        w.drain()
    jobs = [job_of(r) for r in server.requests]
    assert "pymem_profile" in jobs and jobs.count("pymem_profile") == 1
    assert "sister" in own.contact_card(USER, "Ana")
    assert w.counts.done == {"profile": 1}
    assert w.counts.reviews.decided_total == jobs.count("pymem_review")


def test_a_record_that_drops_a_detail_is_refused_retried_then_parked(own, embedder, fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("UPDATE pymem.settings SET review_max_attempts = 2")
    write(own, embedder, "Ann's car is a Ford Fiesta", topic="car", details={"model": "Fiesta"})
    write(own, embedder, "Ann parks on Elm Street", topic="car", details={"garage": "Elm"},
          kind="habit")  # fmt: skip
    write(own, embedder, "Ann likes her car red", topic="car", kind="preference")
    before = live(own)
    bad = {"content": "Ann drives a red car", "details": {"model": "Yaris"}}
    seen = []
    with (
        ChatServer(scripted({"pymem_consolidate": bad})) as server,
        ChatClient(server.url, "m") as chat,
    ):
        w = worker(own, chat, embedder, on_job=seen.append)
        w.drain()  # fails once: waits for its retry (0 s), claimed by the next drain
        w.drain()
    assert [o.state for o in seen] == ["retry", "parked"]
    assert "garage" in seen[0].error or "model" in seen[0].error
    assert live(own) == before
    assert w.counts.failed == {"consolidate": 2} and w.counts.parked == {"consolidate": 1}
    (back,) = own.unpark_jobs(USER)
    assert back.attempts == 2


def test_malformed_json_fails_and_prose_around_json_is_read(own, embedder):
    tea(own, embedder)
    prose = f"Here is the record: {json.dumps(RECORD)} Hope it helps"
    answers = iter([content("I cannot do that"), content(prose)])
    seen = []
    with ChatServer(lambda r: next(answers)) as server, ChatClient(server.url, "m") as chat:
        w = worker(own, chat, embedder, on_job=seen.append)
        w.drain()
        w.drain()
    assert [o.state for o in seen] == ["retry", "done"]
    assert "not JSON" in seen[0].error
    assert live(own) == {RECORD["content"]}


def test_a_500_and_a_slow_answer_fail_and_write_nothing(own, embedder):
    tea(own, embedder)
    before = live(own)
    replies = iter([Reply(status=500, text='{"error": "boom"}'), Reply(text="{}", delay=2)])
    seen = []
    with (
        ChatServer(lambda r: next(replies)) as server,
        ChatClient(server.url, "m", timeout=0.5) as chat,
    ):
        w = worker(own, chat, embedder, on_job=seen.append)
        w.drain()
        w.drain()
    assert [o.state for o in seen] == ["retry", "retry"]
    assert "HTTP 500" in seen[0].error and "within 0.5 s" in seen[1].error
    assert live(own) == before
    assert w.counts.costs["consolidate"].calls == 2


def test_a_reflection_plan_naming_an_unshown_memory_is_refused(own, embedder, fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("UPDATE pymem.settings SET reflect_every = 2")
    a = write(own, embedder, "Ann plays chess on Sundays")
    write(own, embedder, "Ann plays the violin")
    stranger = "00000000-0000-0000-0000-000000000001"
    plan = {"ops": [{"op": "delete", "id": a, "ids": None, "content": None},
                    {"op": "delete", "id": stranger, "ids": None, "content": None}]}  # fmt: skip
    seen = []
    with (
        ChatServer(scripted({"pymem_reflect": plan})) as server,
        ChatClient(server.url, "m") as chat,
    ):
        w = worker(own, chat, embedder, jobs=["reflect"], on_job=seen.append)
        w.drain()
        w.drain()  # reflected: nothing is due
    assert len(server.requests) == 1
    (outcome,) = seen
    assert outcome.state == "done" and stranger in outcome.result.refused
    assert w.counts.refused == {"reflect": 1}
    assert live(own) == {"Ann plays chess on Sundays", "Ann plays the violin"}


def test_two_workers_at_once_run_each_job_once(own, embedder, fresh_dsn):
    for topic in ("tea", "jam", "oats", "rye bread"):
        # three kinds: a fragment of another kind never supersedes one of the topic
        for kind, said in (("habit", f"Ann buys {topic} at the Saturday market"),
                           ("preference", f"Ann likes {topic} from Riga best"),
                           ("fact", f"Ann keeps {topic} in a tin")):  # fmt: skip
            write(own, embedder, said, topic=topic, kind=kind)
    assert len(live(own)) == 12

    def record(request):
        fragments = [line.split(") ", 1)[1] for line in request.prompt.splitlines()[1:]]
        return {"content": "; ".join(fragments), "details": {}}

    with ChatServer(scripted({"pymem_consolidate": record})) as server:

        def run(name: str) -> dict:
            with MemoryStore(fresh_dsn) as store, ChatClient(server.url, "m") as chat:
                w = worker(store, chat, embedder, worker=name, batch=1)
                w.drain()
                return w.counts.done

        with ThreadPoolExecutor(2) as pool:
            done = list(pool.map(run, ["w1", "w2"]))
    assert sum(d.get("consolidate", 0) for d in done) == 4
    assert len(server.requests) == 4
    assert len(live(own)) == 4


def test_a_worker_killed_in_the_middle_of_a_plan_leaves_it_to_the_next(own, embedder, fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("UPDATE pymem.settings SET reflect_every = 2")
    a = write(own, embedder, "Ann plays chess on Sundays")
    write(own, embedder, "Ann plays the violin")
    plan = {"ops": [{"op": "delete", "id": a, "ids": None, "content": None}]}
    held, asked = threading.Event(), threading.Event()

    def first(request):
        asked.set()
        return Reply(text=json.dumps(plan), hold=held)

    with ChatServer(first) as server:
        env = dict(os.environ, OPENAI_BASE_URL=server.url, PYMEM_MODEL="m")
        proc = subprocess.Popen(
            [sys.executable, "-m", "pymem.cli", "--dsn", fresh_dsn, "worker", "--once",
             "--lease", "1", "--jobs", "reflect"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            called = asked.wait(60)
            os.kill(proc.pid, signal.SIGKILL)
            _, stderr = proc.communicate(timeout=10)
        finally:
            held.set()
        assert called, stderr
    assert live(own) == {"Ann plays chess on Sundays", "Ann plays the violin"}
    time.sleep(1.1)  # the dead worker's lease runs out
    seen = []
    with (
        ChatServer(scripted({"pymem_reflect": plan})) as server,
        ChatClient(server.url, "m") as chat,
    ):
        worker(own, chat, embedder, jobs=["reflect"], on_job=seen.append).drain()
    (outcome,) = seen
    assert outcome.state == "done" and outcome.job.attempts == 1
    assert live(own) == {"Ann plays the violin"}


def test_the_async_worker(fresh_dsn, embedder, own):
    import asyncio

    from pymem import AsyncMemoryStore
    from pymem.chat import AsyncChatClient
    from pymem.worker import AsyncMemoryWorker

    tea(own, embedder)

    async def run(url: str):
        async with AsyncMemoryStore(fresh_dsn) as store, AsyncChatClient(url, "m") as chat:
            w = AsyncMemoryWorker(store, chat, embedder, retry_after=0)
            await w.drain()
            return w.counts

    with ChatServer(scripted({"pymem_consolidate": RECORD})) as server:
        counts = asyncio.run(run(server.url))
    assert counts.done == {"consolidate": 1} and counts.costs["consolidate"].calls == 1
    assert live(own) == {RECORD["content"]}


def test_bad_options_are_refused(own, embedder):
    with ChatClient("http://127.0.0.1:9/v1", "m") as chat:
        for bad in ({"jobs": ["dance"]}, {"jobs": "review"}, {"reflect_after": -1},
                    {"dry_run": True}):  # fmt: skip
            with pytest.raises(ValueError):
                MemoryWorker(own, chat, embedder, **bad)


def test_run_forever_wakes_on_consolidation_due_not_the_poll(own, embedder, fresh_dsn):
    with (
        ChatServer(scripted({"pymem_consolidate": RECORD})) as server,
        MemoryStore(fresh_dsn) as store,
        ChatClient(server.url, "m") as chat,
    ):
        w = MemoryWorker(store, chat, embedder, poll_interval=60, jobs=["consolidate"])
        thread = threading.Thread(target=w.run_forever, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 10
            while w._listener is None and time.monotonic() < deadline:
                time.sleep(0.05)  # listening: the first drain found nothing
            assert w._listener is not None
            tea(own, embedder)  # the third fragment announces the topic
            while not w.counts.done and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            w.stop()
            thread.join(10)
    assert w.counts.done == {"consolidate": 1}, "heard consolidation_due within 10 s"
    assert live(own) == {RECORD["content"]}
