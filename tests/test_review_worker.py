"""The review loop, shipped: ReviewWorker, AsyncReviewWorker, OpenAIJudge and `pymem review`
against a real local OpenAI-compatible server with scripted answers (tests/chat_server.py)
and a real database: two workers at once, a worker killed mid-batch, malformed, failing and
slow answers, LISTEN and polling, --dry-run and --once."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import psycopg
import pytest

from pymem import AsyncMemoryStore, MemoryStore
from pymem.cli import main
from pymem.judge import AsyncOpenAIJudge, OpenAIJudge, parse_chat_response
from pymem.review import (
    AsyncReviewWorker,
    JudgeError,
    MalformedVerdict,
    ReviewWorker,
    Verdict,
)
from tests.chat_server import ChatServer, Reply, content, status, verdict
from tests.conftest import at_cosine, unit

BAND = 0.8  # between the test database's supersede (0.75) and dedup (0.92) thresholds
SCRIPT = ("duplicate", "supersede", "keep_both", "conflict")
_LETTERS = "bcdfghjklmnprstvz"


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_LETTERS) + rng.choice("aeiou") for _ in range(4))


def queue_pairs(dsn: str, users: list[str], per_user: int, seed: int = 7) -> dict[str, tuple]:
    """``per_user`` related pairs for each user, each queued for review; the newer memory's
    text -> (user, index, newer id, older id). No two texts share a word."""
    rng = random.Random(seed)
    pairs: dict[str, tuple] = {}
    with MemoryStore(dsn) as store:
        for user in users:
            olds = [f"{_word(rng)} {_word(rng)} {_word(rng)}" for _ in range(per_user)]
            news = [f"{_word(rng)} {_word(rng)} {_word(rng)}" for _ in range(per_user)]
            old_rows = store.upsert_many(
                user, [{"content": t, "embedding": unit(i)} for i, t in enumerate(olds)]
            )
            new_rows = store.upsert_many(
                user,
                [
                    {"content": t, "embedding": at_cosine(BAND, base=i, other=256 + i)}
                    for i, t in enumerate(news)
                ],
            )
            for text, old, new in zip(news, old_rows, new_rows, strict=True):
                assert (new.action, new.matched_id) == ("inserted", old.memory_id), new
                pairs[text] = (user, len(pairs), new.memory_id, old.memory_id)
    return pairs


def scripted(pairs: dict[str, tuple]):
    """The judge's answers: decision by the pair's index, a reason naming the pair."""

    def script(request) -> Reply:
        user, index, _, _ = pairs[request.newer]
        return verdict(SCRIPT[index % 4], f"pair {index} of {user}")

    return script


def reviews(dsn: str) -> list[tuple]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT memory_id, decision, reason, decided_by, claimed_by, attempts, last_error,"
            " parked_at, resolved_at FROM pymem.reviews WHERE cause = 'related'"
        ).fetchall()


def test_two_workers_drain_200_reviews_and_none_is_decided_twice(fresh_dsn):
    pairs = queue_pairs(fresh_dsn, ["ann", "bo", "cy", "di"], 50)
    by_memory = {new: (user, index) for user, index, new, _ in pairs.values()}
    with ChatServer(scripted(pairs)) as server:
        start = threading.Barrier(2)
        workers = []

        def run(name: str) -> None:
            with MemoryStore(fresh_dsn) as store, OpenAIJudge(server.url, "judge-1") as judge:
                worker = ReviewWorker(store, judge, worker=name)
                workers.append(worker)
                start.wait()
                worker.drain()

        threads = [threading.Thread(target=run, args=(f"w{n}",)) for n in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    # the server heard each pair once: no review was judged twice
    asked = Counter(r.newer for r in server.requests)
    assert len(asked) == 200 and set(asked.values()) == {1}
    rows = reviews(fresh_dsn)
    assert len(rows) == 200
    decided_by = Counter()
    for memory_id, decision, reason, by, claimed, attempts, _, parked, resolved in rows:
        user, index = by_memory[memory_id]
        assert (decision, reason) == (SCRIPT[index % 4], f"pair {index} of {user}")
        assert resolved is not None and parked is None and claimed is None and attempts == 0
        decided_by[by] += 1
    # each worker's counts are the decisions the database holds in its name
    totals = {w.worker: w.totals for w in workers}
    assert set(decided_by) == {"w1", "w2"}
    for name, counts in totals.items():
        assert counts.decided_total == counts.judge_calls == counts.claimed == decided_by[name]
        assert counts.failed == counts.taken == 0
    assert sum(c.judge_calls for c in totals.values()) == len(server.requests) == 200
    with psycopg.connect(fresh_dsn) as conn:
        # the history holds the judge's reason of every decision that changed a memory
        history = conn.execute(
            "SELECT reason FROM pymem.memory_versions WHERE reason LIKE 'review:%'"
        ).fetchall()
        # supersede: the older memory's text and the newer row's retirement; duplicate:
        # the retirement (its reinforcement changes no content)
        assert len(history) == 50 * 2 + 50
        assert all("; reason: pair " in r for (r,) in history)
        # a conflict answer flagged the pair, the reason as its note
        conflicts = conn.execute(
            "SELECT memory_id, note FROM pymem.reviews WHERE cause = 'conflict'"
            " AND resolved_at IS NULL"
        ).fetchall()
    assert sorted(note for _, note in conflicts) == sorted(
        f"pair {i} of {u}" for u, i, _, _ in pairs.values() if SCRIPT[i % 4] == "conflict"
    )


def _cli(dsn: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "pymem.cli", "--dsn", dsn, "review", *args]


def test_a_worker_killed_mid_batch_leaves_claims_that_run_out_and_another_finishes(fresh_dsn):
    pairs = queue_pairs(fresh_dsn, ["ann"], 12)
    held = threading.Event()
    first = threading.Event()

    def script(request) -> Reply:
        if not first.is_set():  # the first worker's first call: held until it is killed
            first.set()
            return Reply(hold=held)
        return scripted(pairs)(request)

    with ChatServer(script) as server:
        args = ["--once", "--base-url", server.url, "--model", "m", "--batch", "5"]
        child = subprocess.Popen(
            _cli(fresh_dsn, *args, "--lease", "4"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            assert first.wait(30), "the worker never asked the judge"
            child.send_signal(signal.SIGKILL)
            assert child.wait(10) == -signal.SIGKILL
        finally:
            held.set()
        with psycopg.connect(fresh_dsn) as conn:
            (dead,) = conn.execute(
                "SELECT DISTINCT claimed_by FROM pymem.reviews WHERE claimed_by IS NOT NULL"
            ).fetchone()
            assert conn.execute(
                "SELECT count(*) FROM pymem.reviews WHERE claimed_by IS NOT NULL"
            ).fetchone() == (5,)
        with MemoryStore(fresh_dsn) as store, OpenAIJudge(server.url, "m") as judge:
            worker = ReviewWorker(store, judge, worker="second")
            # the dead worker's 5 are held until their claim runs out: the others first
            # (a lease of 4 s: on a loaded machine 1.5 s ran out before this drain began)
            assert worker.drain().decided_total == 7
            with psycopg.connect(fresh_dsn) as conn:
                (left,) = conn.execute(
                    "SELECT extract(epoch FROM max(claimed_until) - clock_timestamp())"
                    " FROM pymem.reviews WHERE claimed_by IS NOT NULL"
                ).fetchone()
            time.sleep(max(float(left), 0) + 0.1)
            again = worker.drain()
    assert again.decided_total == 5 and again.failed == 0
    rows = reviews(fresh_dsn)
    assert all(r[8] is not None and r[3] == "second" for r in rows)
    ran_out = [r for r in rows if r[5] == 1]
    assert len(ran_out) == 5
    assert all(r[6].startswith(f"the claim of reviewer {dead} ran out at ") for r in ran_out)


@pytest.mark.parametrize("b_decides", [True, False])
def test_an_answer_after_the_claim_ran_out_is_left_to_the_reviewer_that_took_it(
    fresh_dsn, b_decides
):
    """A's judge is slower than its lease: B claims the review meanwhile and holds it
    (A's decision is refused, PM017) or decides it first (A's finds none, PM015)."""
    queue_pairs(fresh_dsn, ["ann"], 1)
    taken, answered = threading.Event(), threading.Event()

    def slow(review):
        assert taken.wait(10)
        return ("duplicate", "late")

    with MemoryStore(fresh_dsn) as a_store:
        a = ReviewWorker(a_store, slow, worker="A", lease=0.3)
        thread = threading.Thread(target=lambda: (a.run_once(), answered.set()))
        thread.start()
        try:
            with MemoryStore(fresh_dsn) as b_store:
                time.sleep(0.4)  # A's claim runs out while its judge thinks
                (held,) = b_store.claim_reviews("ann", "B")
                assert held.attempts == 1  # A's run-out claim counts as a failed attempt
                if b_decides:
                    b_store.resolve_review(
                        "ann", held.memory_id, "keep_both", reason="B's", claimed_by="B"
                    )
                taken.set()
                assert answered.wait(10)
                if not b_decides:
                    assert b_store.release_review("ann", held.review_id, "B") == "released"
        finally:
            taken.set()
            thread.join(10)
    assert (a.totals.taken, a.totals.decided_total, a.totals.failed) == (1, 0, 0)
    ((_, decision, reason, by, claimed, attempts, _, _, resolved),) = reviews(fresh_dsn)
    if b_decides:
        assert (decision, reason, by, resolved is not None) == ("keep_both", "B's", "B", True)
    else:  # B gave it back: open, unclaimed, A's answer not applied
        assert (decision, claimed, resolved) == (None, None, None)
    assert attempts == 1


def test_malformed_failing_and_slow_answers_stay_queued_then_park(fresh_dsn):
    pairs = queue_pairs(fresh_dsn, ["ann"], 4)
    texts = sorted(pairs, key=lambda t: pairs[t][1])
    answers = {
        texts[0]: content("I think they are the same."),
        texts[1]: content('{"decision": "merge", "reason": "same"}'),
        texts[2]: status(500, '{"error": "overloaded"}'),
        texts[3]: verdict("keep_both", "late", delay=1.0),
    }
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("UPDATE pymem.settings SET review_max_attempts = 2")
    with (
        ChatServer(lambda r: answers[r.newer]) as server,
        MemoryStore(fresh_dsn) as store,
        OpenAIJudge(server.url, "m", timeout=0.3) as judge,
    ):
        # a failed review waits for its retry: a second drain asks nothing
        waiting = ReviewWorker(store, judge, worker="a", retry_after=60)
        first = waiting.drain()
        assert (first.claimed, first.failed, first.parked, first.judge_calls) == (4, 4, 0, 4)
        assert waiting.drain().judge_calls == 0
        queued = {r.memory_id: r for r in store.pending_reviews("ann")}
        assert len(queued) == 4  # nothing decided, nothing lost
        error = {r[0]: r[6] for r in reviews(fresh_dsn)}
        malformed, unknown, failing, slow = (error[pairs[t][2]] for t in texts)
        assert malformed.startswith("judge: the answer is not JSON: 'I think")
        assert unknown.startswith(
            "judge: decision must be one of duplicate, supersede, keep_both, past, conflict,"
            " got 'merge'"
        )
        url = f"{server.url}/chat/completions"
        assert failing == f'judge: HTTP 500 from {url}: {{"error": "overloaded"}}'
        assert slow == f"judge: no answer from {url} within 0.3 s"
        assert all(r[5] == 1 and r[7] is None for r in reviews(fresh_dsn))
        # retried now: the second failure reaches the limit and parks each
        with psycopg.connect(fresh_dsn, autocommit=True) as conn:
            conn.execute("UPDATE pymem.reviews SET retry_at = now()")
        second = ReviewWorker(store, judge, worker="b", retry_after=0).drain()
        assert (second.claimed, second.failed, second.parked, second.judge_calls) == (4, 4, 4, 4)
        assert all(r[5] == 2 and r[7] is not None and r[8] is None for r in reviews(fresh_dsn))
        assert len(store.pending_reviews("ann")) == 4  # parked: still queued, never decided
        assert ReviewWorker(store, judge, retry_after=0).drain().claimed == 0
        # once the judge is fixed, unpark puts them back
        answers.update({t: verdict("keep_both", "distinct") for t in texts})
        back = store.unpark_reviews("ann")
        assert sorted(b.attempts for b in back) == [2, 2, 2, 2]
        assert ReviewWorker(store, judge).drain().decided == {"keep_both": 4}
    assert all(r[1] == "keep_both" and r[8] is not None for r in reviews(fresh_dsn))


def test_dry_run_prints_decisions_and_applies_nothing(fresh_dsn, capsys):
    pairs = queue_pairs(fresh_dsn, ["ann"], 4)
    with ChatServer(scripted(pairs)) as server:
        args = ["--dsn", fresh_dsn, "review", "--user", "ann", "--dry-run"]
        assert main([*args, "--base-url", server.url, "--model", "m"]) == 0
    out = capsys.readouterr().out.splitlines()
    would = sorted(line.split()[1] for line in out[:-1])
    assert would == sorted(SCRIPT) and all(line.startswith("would ") for line in out[:-1])
    assert out[-1] == (
        "judged (dry run, nothing applied) 4: 4 decided (1 duplicate, 1 supersede, 1 keep_both,"
        " 1 conflict), 0 failed, 0 parked; 4 judge calls"
    )
    # nothing applied, nothing counted, and the claims went back
    assert all(r[8] is None and r[4] is None and r[5] == 0 for r in reviews(fresh_dsn))
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM pymem.memory_versions").fetchone() == (0,)


def test_once_drains_and_exits_with_its_summary_once_and_the_judge_calls(fresh_dsn, capsys):
    pairs = queue_pairs(fresh_dsn, ["ann", "bo"], 3)
    with ChatServer(scripted(pairs)) as server:
        args = ["--dsn", fresh_dsn, "review", "--once", "--base-url", server.url, "--model", "m"]
        assert main([*args, "--batch", "2"]) == 0
        captured = capsys.readouterr()
        # every user's reviews, each line naming the user
        decided = captured.out.splitlines()[:-1]
        assert len(decided) == 6 and all(" vs " in line for line in decided)
        assert {line.split(" (", 1)[1].split(")")[0] for line in decided} == {"ann", "bo"}
        assert captured.out.splitlines()[-1] == (
            "reviewed 6: 6 decided (2 duplicate, 2 supersede, 1 keep_both, 1 conflict),"
            " 0 failed, 0 parked; 6 judge calls"
        )
        # stderr is no terminal here: no progress lines repeating the summary (issue 39)
        assert captured.err == ""
        assert main(args) == 0  # drained: nothing left, no judge call
        assert capsys.readouterr().out.endswith(
            "reviewed 0: 0 decided, 0 failed, 0 parked; 0 judge calls\n"
        )


def test_the_key_goes_in_the_header_and_never_into_an_error(fresh_dsn, capsys, monkeypatch):
    queue_pairs(fresh_dsn, ["ann"], 1)
    key = "sk-test-0123456789abcdef"
    monkeypatch.setenv("MY_JUDGE_KEY", key)
    monkeypatch.setenv("OPENAI_API_KEY", "not this one")

    def script(request) -> Reply:  # a server that echoes the key it refuses
        return status(401, f"invalid key {request.headers['Authorization']}")

    with ChatServer(script) as server:
        args = ["--dsn", fresh_dsn, "review", "--once", "--base-url", server.url]
        code = main([*args, "--model", "m", "--api-key-env", "MY_JUDGE_KEY"])
    assert server.requests[0].headers["Authorization"] == f"Bearer {key}"
    captured = capsys.readouterr()
    assert code == 1  # a judgement failed: the review stays queued
    assert key not in captured.out + captured.err
    assert "HTTP 401" in captured.err and "invalid key Bearer ***" in captured.err
    # --once exits: the review waits in the queue, it is not retried by this run
    assert "failed (attempt 1, back in the queue, due again in 5 s)" in captured.err


def test_review_needs_a_server_and_a_model(fresh_dsn, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("PYMEM_JUDGE_MODEL", raising=False)
    assert main(["--dsn", fresh_dsn, "review", "--once", "--model", "m"]) == 2
    assert "--base-url and --model are required" in capsys.readouterr().err
    assert (
        main(["--dsn", fresh_dsn, "review", "--user", " ", "--base-url", "x", "--model", "m"]) == 2
    )
    assert "--user must name a user" in capsys.readouterr().err
    assert (
        main(["--dsn", fresh_dsn, "review", "--once", "--base-url", "ftp://x", "--model", "m"]) == 2
    )
    assert "base_url must be an http(s) URL" in capsys.readouterr().err
    base = ["--dsn", fresh_dsn, "review", "--base-url", "http://127.0.0.1:9", "--model", "m"]
    assert main([*base, "--poll", "0"]) == 2
    assert "poll_interval must be a positive number of seconds" in capsys.readouterr().err


def _until(condition, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def _open_related(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT count(*) FROM pymem.reviews WHERE cause = 'related' AND resolved_at IS NULL"
        ).fetchone()[0]


def _forever(dsn: str, server: ChatServer, **options):
    """A worker in run_forever on a thread of its own, once it has drained the queue."""
    drained = threading.Event()
    store = MemoryStore(dsn)
    judge = OpenAIJudge(server.url, "m")
    worker = ReviewWorker(
        store, judge, user_id="ann", on_batch=lambda c: c.claimed or drained.set(), **options
    )
    thread = threading.Thread(target=worker.run_forever)
    thread.start()
    assert drained.wait(10)

    def stop() -> None:
        worker.stop()
        thread.join(10)
        assert not thread.is_alive()
        judge.close()
        store.close()

    return worker, stop


def test_a_review_due_wakes_a_waiting_worker(fresh_dsn):
    with ChatServer(lambda r: verdict("keep_both", "distinct")) as server:
        worker, stop = _forever(fresh_dsn, server, poll_interval=60)
        try:
            queue_pairs(fresh_dsn, ["bo"], 1)  # another user's: heard, not woken for
            queue_pairs(fresh_dsn, ["ann"], 1, seed=8)
            # decided long before the next poll, by the notification alone
            assert _until(lambda: _open_related(fresh_dsn) == 1, 5)
        finally:
            stop()
    assert worker.totals.decided == {"keep_both": 1}
    assert [r.newer for r in server.requests] != []


def test_a_worker_outlives_its_listeners_lost_connection(fresh_dsn):
    """The listener's backend is terminated (as a server restart does): the worker does
    not die, it polls, listens again, and a later review_due still wakes it."""
    with ChatServer(lambda r: verdict("keep_both", "distinct")) as server:
        worker, stop = _forever(fresh_dsn, server, poll_interval=0.3)
        try:
            with psycopg.connect(fresh_dsn, autocommit=True) as conn:
                killed = conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND query ILIKE 'LISTEN%%'"
                ).fetchall()
            assert killed == [(True,)]
            queue_pairs(fresh_dsn, ["ann"], 1, seed=8)
            assert _until(lambda: _open_related(fresh_dsn) == 0, 5)
            # listening again: a new connection LISTENs
            assert _until(lambda: _listeners(fresh_dsn) == 1, 5)
        finally:
            stop()
    assert worker.totals.decided == {"keep_both": 1}


def _listeners(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND query ILIKE 'LISTEN%%'"
        ).fetchone()[0]


def test_polling_finds_a_review_whose_notification_was_lost(fresh_dsn):
    with ChatServer(lambda r: verdict("keep_both", "distinct")) as server:
        worker, stop = _forever(fresh_dsn, server, poll_interval=0.3)
        try:
            with psycopg.connect(fresh_dsn) as conn:
                store = MemoryStore(conn)
                old = store.upsert("ann", "likes green tea", unit(0)).memory_id
                new = store.upsert("ann", "enjoys oolong", at_cosine(BAND), on_related="insert")
                # triggers off (as the owner): queued, and announced to nobody
                conn.execute("SET session_replication_role = replica")
                conn.execute(
                    "INSERT INTO pymem.reviews (user_id, cause, memory_id, matched_id, similarity)"
                    " VALUES ('ann', 'related', %s, %s, 0.8)",
                    (new.memory_id, old),
                )
            assert _until(lambda: _open_related(fresh_dsn) == 0, 5)
        finally:
            stop()
    assert worker.totals.decided == {"keep_both": 1}


def test_the_async_worker_with_an_async_judge_and_a_plain_one(fresh_dsn):
    pairs = queue_pairs(fresh_dsn, ["ann"], 6)
    with ChatServer(scripted(pairs)) as server:

        async def run():
            async with AsyncMemoryStore(fresh_dsn) as store:
                async with AsyncOpenAIJudge(server.url, "m") as judge:
                    first = await AsyncReviewWorker(store, judge, batch=2).run_once()
                seen = []

                def plain(review):  # runs in a thread, not on the event loop
                    seen.append(threading.current_thread() is threading.main_thread())
                    return Verdict("keep_both", "plain")

                async def coroutine(review):
                    return ("keep_both", "async def")

                second = await AsyncReviewWorker(store, plain, batch=2).run_once()
                rest = await AsyncReviewWorker(store, coroutine).drain()
                return first, second, rest, seen

        first, second, rest, seen = asyncio.run(run())
    assert (first.decided_total, second.decided_total, rest.decided_total) == (2, 2, 2)
    assert seen == [False, False]
    assert len(server.requests) == 2
    reasons = Counter(r[2] for r in reviews(fresh_dsn))
    assert reasons["plain"] == reasons["async def"] == 2


def test_workers_refuse_the_other_kind_of_store_or_judge(fresh_dsn):
    async def judge(review):
        return ("keep_both", "x")

    with MemoryStore(fresh_dsn) as store:
        with pytest.raises(TypeError, match="plain callable"):
            ReviewWorker(store, judge)
        with pytest.raises(TypeError, match="AsyncMemoryStore"):
            AsyncReviewWorker(store, judge)
        with pytest.raises(ValueError, match="user_id"):
            ReviewWorker(store, lambda r: None, user_id="")
        with pytest.raises(ValueError, match="dry run"):
            ReviewWorker(store, lambda r: None, dry_run=True).run_forever()


def test_the_request_holds_both_memories_with_kind_topic_and_dates(fresh_dsn):
    with MemoryStore(fresh_dsn) as store:
        store.upsert("ann", "Ann's dog is called Rex", unit(0), topic="pet:dog")
        store.upsert("ann", "Ann walks her spaniel daily", at_cosine(BAND))
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute(
            "UPDATE pymem.memories SET updated_at = created_at + interval '1 day'"
            " WHERE topic = 'pet:dog'"
        )
    with (
        ChatServer(lambda r: verdict("keep_both", "two facts")) as server,
        MemoryStore(fresh_dsn) as store,
        OpenAIJudge(server.url, "m", api_key="") as judge,
    ):
        assert ReviewWorker(store, judge).drain().decided == {"keep_both": 1}
    (request,) = server.requests
    body = request.body
    assert body["model"] == "m" and body["temperature"] == 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert (
        '{"decision": "duplicate" | "supersede" | "keep_both" | "past" | "conflict"'
        in (body["messages"][0]["content"])
    )
    prompt = request.prompt
    assert prompt.startswith("Older memory (kind fact, topic pet:dog, written 20")
    assert "\nAnn's dog is called Rex\n\nNewer memory (kind fact, topic none, written " in prompt
    assert "last changed" in prompt  # the kind was changed after it was written
    assert prompt.endswith(
        "Ann walks her spaniel daily\n\nSimilarity of their embeddings: 0.80 (1 is identical)."
    )
    assert "Authorization" not in request.headers  # no key: none sent


def _response(text) -> dict:
    return {"choices": [{"message": {"role": "assistant", "content": text}}]}


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"decision": "supersede", "reason": "moved"}', Verdict("supersede", "moved")),
        ('```json\n{"decision": "conflict", "reason": " both "}\n```', Verdict("conflict", "both")),
        ('{"decision": "keep_both", "reason": "x", "confidence": 0.9}', Verdict("keep_both", "x")),
    ],
)
def test_the_answer_is_the_contracts_json_object(answer, expected):
    assert parse_chat_response(_response(answer)) == expected


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (_response("duplicate"), "not JSON"),
        (_response('["duplicate", "same"]'), "not a JSON object"),
        (_response('{"decision": "duplicate"}'), "has no reason"),
        (_response('{"reason": "same"}'), "has no decision"),
        (_response('{"decision": "Duplicate", "reason": "same"}'), "decision must be one of"),
        (_response('{"decision": "duplicate", "reason": ""}'), "reason must be a non-empty"),
        (_response('{"decision": "duplicate", "reason": 3}'), "reason must be a non-empty"),
        (_response(None), "not text"),
        ({"choices": []}, "no choices[0].message.content"),
        ({"error": "x"}, "no choices[0].message.content"),
    ],
)
def test_anything_else_is_malformed(body, message):
    with pytest.raises(MalformedVerdict, match=message.replace("[", r"\[").replace(".", r"\.")):
        parse_chat_response(body)


def test_the_endpoint_keeps_the_bases_query_and_azures_header(monkeypatch):
    monkeypatch.setenv("AZ_KEY", "k1")
    judge = OpenAIJudge(
        "https://res.openai.azure.com/openai/deployments/gpt/?api-version=2024-10-21",
        "gpt",
        api_key_env="AZ_KEY",
        auth_header="api-key",
    )
    assert judge.url == (
        "https://res.openai.azure.com/openai/deployments/gpt/chat/completions"
        "?api-version=2024-10-21"
    )
    assert judge._headers["api-key"] == "k1" and "k1" not in repr(judge)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("PYMEM_JUDGE_MODEL", "llama")
    assert (OpenAIJudge().url, OpenAIJudge().model) == (
        "http://127.0.0.1:1/v1/chat/completions",
        "llama",
    )


def test_a_pair_changed_while_the_judge_read_it_is_judged_again(fresh_dsn):
    """A write that supersedes the older memory while the judge thinks: the judge's
    'supersede' of the old text is not applied to the new one (the current fact would
    leave the live store); the review goes back and is judged on what is there now."""
    from pymem import MemoryStore
    from pymem.review import ReviewWorker
    from tests.conftest import at_cosine, unit

    with MemoryStore(fresh_dsn) as store:
        store.upsert("ann", "Ann lives in Paris", unit(0), topic="city")
        store.upsert("ann", "Ann enjoys the cafes of the old town", at_cosine(0.8))
        seen: list[str] = []

        def judge(review):
            seen.append(review.matched_content)
            if len(seen) == 1:  # the user moves while the judge reads the first version
                moved = store.upsert("ann", "Ann lives in Berlin", unit(0), topic="city")
                assert moved.action == "superseded"
                return {"decision": "supersede", "reason": "the cafes replace Paris"}
            return {"decision": "keep_both", "reason": "a city and a pastime"}

        outcomes = []
        totals = ReviewWorker(store, judge, user_id="ann", on_outcome=outcomes.append).drain()
        assert seen == ["Ann lives in Paris", "Ann lives in Berlin"]
        assert [o.state for o in outcomes] == ["stale", "decided"]
        assert totals.decided == {"keep_both": 1} and totals.failed == 0
        live = sorted(m.content for m in store.get_memories("ann"))
        assert live == ["Ann enjoys the cafes of the old town", "Ann lives in Berlin"]


def test_a_dry_run_longer_than_its_lease_judges_each_review_once_and_parks_none(fresh_dsn):
    """A dry run holds its claims to its end; when they run out, its next claims get them
    back: kept, not judged again, and no failed attempt counted for its own claim."""
    import time

    queue_pairs(fresh_dsn, ["ann"], 4)
    judged = []

    def slow(review):
        judged.append(review.review_id)
        time.sleep(0.35)
        return {"decision": "keep_both", "reason": "distinct"}

    with MemoryStore(fresh_dsn) as store:
        totals = ReviewWorker(store, slow, dry_run=True, batch=1, lease=0.5).drain()
    assert sorted(judged) == sorted(set(judged)) and len(judged) == 4
    assert totals.decided == {"keep_both": 4} and totals.failed == 0 and totals.parked == 0
    with psycopg.connect(fresh_dsn) as conn:
        rows = conn.execute(
            "SELECT attempts, parked_at, claimed_by, resolved_at FROM pymem.reviews"
            " WHERE cause = 'related'"
        ).fetchall()
    assert rows == [(0, None, None, None)] * 4


def test_a_dry_run_whose_judge_fails_counts_no_attempt_and_parks_nothing(fresh_dsn):
    """--dry-run applies nothing, failures included: a judge that fails (a wrong model, a
    server down) leaves every review as it was, even with no wait between retries and one
    attempt allowed; the run ends after one try of each."""
    queue_pairs(fresh_dsn, ["ann"], 3)

    def broken(review):
        raise RuntimeError("404 model not found")

    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("UPDATE pymem.settings SET review_max_attempts = 1")
    outcomes = []
    with MemoryStore(fresh_dsn) as store:
        worker = ReviewWorker(
            store, broken, dry_run=True, retry_after=0, on_outcome=outcomes.append
        )
        totals = worker.drain()
    assert [o.state for o in outcomes] == ["failed"] * 3
    assert all("404 model not found" in o.error for o in outcomes)
    assert totals.failed == 3 and totals.parked == 0 and totals.judge_calls == 3
    with psycopg.connect(fresh_dsn) as conn:
        rows = conn.execute(
            "SELECT attempts, last_error, parked_at, claimed_by, resolved_at FROM pymem.reviews"
            " WHERE cause = 'related'"
        ).fetchall()
    assert rows == [(0, None, None, None, None)] * 3


def test_a_dry_run_against_a_server_that_errs_says_so_and_records_nothing(fresh_dsn, capsys):
    """`pymem review --dry-run` with a wrong model (the server answers 404): each review is
    asked once, the error printed, the queue left as it was, and the exit code 1."""
    queue_pairs(fresh_dsn, ["ann"], 2)
    with ChatServer(
        lambda request: status(404, '{"error": {"message": "model not found"}}')
    ) as server:
        args = ["--dsn", fresh_dsn, "review", "--user", "ann", "--dry-run", "--retry-after", "0"]
        assert main([*args, "--base-url", server.url, "--model", "nope"]) == 1
        assert len(server.requests) == 2
    err = capsys.readouterr().err
    assert err.count("the judge failed, nothing recorded (dry run)") == 2, err
    assert "model not found" in err
    assert all(r[5] == 0 for r in reviews(fresh_dsn))


# -- the audit of the review loop: each test names what it guards ----------------------


@pytest.mark.parametrize("retired", ["older", "newer"])
def test_a_pair_moved_while_the_judge_read_it_is_given_back_unjudged(fresh_dsn, retired):
    """While the judge reads (A, X), another decision retires one of them into S (written
    in one batch with X: the same updated_at) and moves the review to S: the judge's answer
    is about a memory it never read. Not applied, no attempt counted, judged again."""
    with MemoryStore(fresh_dsn) as store, MemoryStore(fresh_dsn) as other:
        s, x = store.upsert_many(
            "ann",
            [
                {"content": "Ann lives in Hangzhou", "embedding": unit(0)},
                {"content": "Ann's dog is called Rex", "embedding": unit(1)},
            ],
        )
        a = store.upsert("ann", "Ann's dog is called Max now", at_cosine(BAND, 1, 256))
        assert a.matched_id == x.memory_id
        seen = []

        def judge(review):
            seen.append((review.memory_id, review.matched_id))
            if len(seen) == 1:
                gone = x.memory_id if retired == "older" else a.memory_id
                flagged = other.flag_conflict("ann", gone, s.memory_id, "by hand")
                other.resolve_review("ann", gone, "duplicate", review_id=flagged)
                return Verdict("supersede", "the dog's name changed from Rex to Max")
            return Verdict("keep_both", "a city and a dog")

        outcomes = []
        totals = ReviewWorker(store, judge, user_id="ann", on_outcome=outcomes.append).drain()
        assert [o.state for o in outcomes] == ["stale", "decided"]
        assert (totals.stale, totals.failed, totals.decided, totals.reviewed) == (
            1, 0, {"keep_both": 1}, 1
        )  # fmt: skip
        assert s.memory_id in seen[1]  # judged again: the pair as it is now
        live = {m.memory_id: m.content for m in store.get_memories("ann")}
        assert live[s.memory_id] == "Ann lives in Hangzhou"  # not overwritten
    ((_, decision, reason, _, _, attempts, error, _, _),) = reviews(fresh_dsn)
    assert (decision, reason, attempts, error) == ("keep_both", "a city and a dog", 0, None)


@pytest.mark.parametrize("source", ["exception", "http"])
def test_a_judge_error_with_control_characters_is_recorded_and_counted(fresh_dsn, source):
    """A NUL byte in a judge's error (an exception's text, an HTTP error body) cannot go into
    a text column: it is recorded escaped, the attempt counted, and the review parks at the
    limit instead of failing every run before anything is recorded."""
    queue_pairs(fresh_dsn, ["ann"], 1)
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("UPDATE pymem.settings SET review_max_attempts = 1")

    def broken(review):
        raise RuntimeError("oops\x00\x01 \ud800")

    with (
        ChatServer(lambda r: status(500, "oops\x00\x01")) as server,
        MemoryStore(fresh_dsn) as store,
        OpenAIJudge(server.url, "m") as http,
    ):
        totals = ReviewWorker(store, broken if source == "exception" else http).drain()
    assert (totals.failed, totals.parked) == (1, 1)
    ((_, _, _, _, claimed, attempts, error, parked, _),) = reviews(fresh_dsn)
    assert (claimed, attempts, parked is not None) == (None, 1, True)
    assert error.endswith(
        "RuntimeError: oops\\x00\\x01 \\ud800" if source == "exception" else ": oops\\x00\\x01"
    )


def test_an_error_the_store_refuses_still_counts_an_attempt(fresh_dsn):
    """The backstop: should an error text still be one the store refuses, the failure is
    recorded in ASCII escapes all the same, never left uncounted."""
    from pymem.review import ReviewCounts, _run

    queue_pairs(fresh_dsn, ["ann"], 1)
    with MemoryStore(fresh_dsn) as store:
        worker = ReviewWorker(store, lambda r: None, worker="w")
        (claim,) = store.claim_reviews("ann", "w")
        counts = ReviewCounts()
        _run(worker._failed(claim, counts, "judge: oops\x00"))
    assert (counts.failed, counts.taken) == (1, 0)
    ((_, _, _, _, claimed, attempts, error, _, _),) = reviews(fresh_dsn)
    assert (claimed, attempts) == (None, 1)
    assert error.startswith("an error the store could not record (")
    assert error.endswith("'judge: oops\\x00'")


class RawServer:
    """HTTP on 127.0.0.1 that answers every POST with ``status`` and ``body`` as they are
    (what ChatServer never sends: a body that is no chat response), ``trickle`` bytes
    every ``pause`` seconds when given."""

    def __init__(self, status: int, body: bytes, trickle: int = 0, pause: float = 0.0):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    step = trickle or len(body)
                    for i in range(0, len(body), step):
                        self.wfile.write(body[i : i + step])
                        self.wfile.flush()
                        time.sleep(pause)
                except OSError:
                    pass  # the client gave up

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        # shutdown() waits for serve_forever's next poll: 0.5 s a test by default
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


KEY = "sk-SECRET-0123456789"


@pytest.mark.parametrize(
    ("code", "body"),
    [
        # a gateway answering 200 with an error that quotes the key
        (200, json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}"}})),
        (200, f"<html>bad key {KEY}</html>"),  # not JSON
        (200, json.dumps({"choices": [{"message": {"content": f"key {KEY} refused"}}]})),
        (200, json.dumps({"choices": [{"message": {"content": {"key": KEY}}}]})),
        # the key across the cut of a quoted body: redacted before it is cut
        (401, "x" * 290 + KEY),
    ],
    ids=["error-object", "not-json", "content-not-json", "content-not-text", "cut-body"],
)
def test_the_key_never_gets_into_an_error_whatever_the_answer(code, body):
    with (
        RawServer(code, body.encode()) as server,
        OpenAIJudge(server.url, "m", api_key=KEY) as judge,
        pytest.raises(JudgeError) as caught,
    ):
        judge(_claimed())
    assert "SECRET" not in str(caught.value) and "***" in str(caught.value)


def _claimed():
    """A review as claim_reviews returns it, for a judge called on its own."""
    from datetime import datetime, timezone
    from uuid import uuid4

    from pymem.records import ClaimedReview

    now = datetime.now(timezone.utc)
    return ClaimedReview(
        **{
            **dict.fromkeys(ClaimedReview.__dataclass_fields__),
            **dict(review_id=uuid4(), user_id="ann", cause="related", memory_id=uuid4(),
                   matched_id=uuid4(), similarity=0.8, created_at=now, attempts=0,
                   claimed_until=now, content="a", kind="fact", matched_content="b",
                   matched_kind="fact", updated_at=now, matched_updated_at=now,
                   matched_created_at=now),
        }
    )  # fmt: skip


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_the_timeout_bounds_the_whole_request(flavour):
    """A server that trickles its answer (8 bytes every 0.1 s, about 1.5 s in all) keeps
    every read within httpx's timeout; the judge's timeout is for the whole call."""
    answer = json.dumps({"decision": "keep_both", "reason": "slowly"})
    body = json.dumps({"choices": [{"message": {"content": answer}}]}).encode()
    with RawServer(200, body, trickle=8, pause=0.1) as server:
        started = time.monotonic()
        with pytest.raises(JudgeError, match=r"no answer from .* within 0\.4 s"):
            if flavour == "sync":
                with OpenAIJudge(server.url, "m", timeout=0.4) as judge:
                    judge(_claimed())
            else:

                async def ask():
                    async with AsyncOpenAIJudge(server.url, "m", timeout=0.4) as judge:
                        await judge(_claimed())

                asyncio.run(ask())
        assert time.monotonic() - started < 0.8


def test_a_dry_run_of_one_batch_gives_its_claims_back(fresh_dsn):
    queue_pairs(fresh_dsn, ["ann"], 2)
    with MemoryStore(fresh_dsn) as store:
        dry = ReviewWorker(store, lambda r: ("keep_both", "x"), dry_run=True, worker="dry")
        assert dry.run_once().decided == {"keep_both": 2}
    # nothing held, so no claim runs out to count as the next reviewer's failed attempt
    assert all(r[4] is None and r[5] == 0 and r[8] is None for r in reviews(fresh_dsn))


def test_a_dry_run_asks_claim_reviews_for_no_more_than_it_takes(fresh_dsn):
    """A dry run asks for its batch and what it holds; claim_reviews takes at most
    CLAIM_MAX (the two agree), so --batch 1000 works."""
    from pymem.errors import InvalidParameter
    from pymem.review import CLAIM_MAX

    queue_pairs(fresh_dsn, ["ann"], 1)
    with MemoryStore(fresh_dsn) as store:
        assert store.claim_reviews("ann", "probe", CLAIM_MAX, lease=0.001) != []
        with pytest.raises(InvalidParameter, match="k must be between 1 and 1000"):
            store.claim_reviews("ann", "probe", CLAIM_MAX + 1)
        time.sleep(0.01)
        dry = ReviewWorker(store, lambda r: ("keep_both", "x"), dry_run=True, batch=CLAIM_MAX)
        assert dry.drain().decided == {"keep_both": 1}


def test_a_reason_the_store_counts_as_blank_is_malformed(fresh_dsn):
    """Zero-width spaces and a byte order mark: str.strip() keeps them, the store does not
    (pymem._blank_characters): applied, the decision would record no reason at all."""
    queue_pairs(fresh_dsn, ["ann"], 1)
    with MemoryStore(fresh_dsn) as store:
        totals = ReviewWorker(store, lambda r: ("duplicate", "\u200b\ufeff\u2060")).drain()
    assert (totals.failed, totals.decided) == (1, {})
    ((_, decision, _, _, _, attempts, error, _, resolved),) = reviews(fresh_dsn)
    assert (decision, attempts, resolved) == (None, 1, None)
    assert error == (
        "judge: reason must be a non-empty string, got '\\u200b\\ufeff\\u2060' (blank to the store)"
    )


def test_the_sync_worker_refuses_an_object_whose_call_is_async(fresh_dsn):
    judge = AsyncOpenAIJudge("http://127.0.0.1:1/v1", "m")
    with MemoryStore(fresh_dsn) as store, pytest.raises(TypeError, match="AsyncReviewWorker"):
        ReviewWorker(store, judge)


def test_the_cli_says_a_stale_review_is_judged_again_and_counts_it_once(fresh_dsn, capsys):
    pairs = queue_pairs(fresh_dsn, ["ann"], 1)
    ((_, _, _, old),) = pairs.values()
    calls = []

    def script(request) -> Reply:
        calls.append(request)
        if len(calls) == 1:  # the older memory is rewritten while the judge thinks
            with psycopg.connect(fresh_dsn) as conn:
                conn.execute(
                    "UPDATE pymem.memories SET content = content || ' (edited)' WHERE id = %s",
                    (old,),
                )
        return verdict("keep_both", "two facts")

    with ChatServer(script) as server:
        args = ["--dsn", fresh_dsn, "review", "--user", "ann", "--once"]
        assert main([*args, "--base-url", server.url, "--model", "m"]) == 0
    captured = capsys.readouterr()
    assert "the pair changed while the judge read it; given back" in captured.err
    assert "failed (attempt" not in captured.err
    assert captured.out.splitlines()[-1] == (
        "reviewed 1: 1 decided (1 keep_both), 0 failed, 0 parked, 1 changed while judged"
        " (judged again); 2 judge calls"
    )


def test_run_forever_waits_out_a_lock_timeout_and_says_so(fresh_dsn):
    """An app transaction holds the user's write lock longer than the reviewer's
    lock_timeout: resolve_review fails with 55P03, the store's trouble, not the review's.
    The service reports it, backs off and goes on, as for a lost connection."""
    from psycopg.conninfo import make_conninfo

    from pymem.errors import LockTimeout

    queue_pairs(fresh_dsn, ["ann"], 1)
    errors, crashed = [], []
    with psycopg.connect(fresh_dsn) as app:

        def judge(review):
            if not errors:  # the app writes for the same user while the judge answers
                app.execute("SELECT pymem._lock_user('ann')")
                threading.Timer(0.4, app.commit).start()
            return Verdict("keep_both", "two facts")

        slow = make_conninfo(fresh_dsn, options="-c lock_timeout=50")
        with MemoryStore(slow) as store:
            worker = ReviewWorker(
                store,
                judge,
                user_id="ann",
                poll_interval=0.1,
                on_error=lambda error, wait: errors.append((error, wait)),
            )

            def run() -> None:
                try:
                    worker.run_forever()
                except Exception as exc:
                    crashed.append(exc)

            thread = threading.Thread(target=run)
            thread.start()
            try:
                assert _until(lambda: _open_related(fresh_dsn) == 0 or crashed, 10)
            finally:
                worker.stop()
                thread.join(10)
    assert crashed == []
    assert errors and all(isinstance(e, LockTimeout) for e, _ in errors)
    assert [w for _, w in errors][:2] == [0.1, 0.2][: len(errors)]  # doubling
    ((_, decision, _, _, _, attempts, _, _, _),) = reviews(fresh_dsn)
    assert (decision, attempts) == ("keep_both", 0)


@pytest.mark.parametrize(
    "options",
    [
        {"poll_interval": 0},
        {"poll_interval": -1},
        {"lease": float("nan")},
        {"batch": 0},
        {"batch": 1001},
        {"retry_after": -1},
        {"max_retry_after": 86401},
        {"retry_after": True},
    ],
)
def test_a_worker_refuses_options_that_would_loop_or_fail_later(store, options):
    """A poll of 0 claimed in a busy loop; a wait the store refuses surfaced only at the
    first failed judgement, out of run_forever: refused when the worker is made."""
    with pytest.raises(ValueError, match=next(iter(options))):
        ReviewWorker(store, lambda r: ("keep_both", "x"), **options)


def test_the_worker_and_the_store_agree_on_the_longest_retry(fresh_dsn):
    from pymem.errors import InvalidParameter
    from pymem.review import RETRY_AFTER_MAX

    queue_pairs(fresh_dsn, ["ann"], 1)
    with MemoryStore(fresh_dsn) as store:
        (claim,) = store.claim_reviews("ann", "probe", 1)
        with pytest.raises(InvalidParameter, match="retry_after"):
            store.release_review(
                "ann", claim.review_id, "probe", "x", retry_after=RETRY_AFTER_MAX + 1
            )
        store.release_review("ann", claim.review_id, "probe", "x", retry_after=RETRY_AFTER_MAX)


def test_a_pair_rewritten_on_every_judgement_ends_the_drain(fresh_dsn):
    """Each judgement of a pair rewritten meanwhile is stale: given back, no attempt counted,
    and claimed again at once. A drain ends after STALE_ROUNDS such batches in a row instead
    of calling the judge for as long as the writes go on."""
    from pymem.review import STALE_ROUNDS

    queue_pairs(fresh_dsn, ["ann"], 1)
    with MemoryStore(fresh_dsn) as store, psycopg.connect(fresh_dsn, autocommit=True) as app:

        def judge(review):
            app.execute(
                "UPDATE pymem.memories SET content = content || '!' WHERE id = %s",
                (review.memory_id,),
            )
            return ("keep_both", "looks fine")

        totals = ReviewWorker(store, judge).drain()
    assert (totals.judge_calls, totals.stale, totals.decided) == (STALE_ROUNDS, STALE_ROUNDS, {})
    ((_, decision, _, _, _, attempts, *_),) = reviews(fresh_dsn)
    assert (decision, attempts) == (None, 0)


def test_an_unparked_review_is_announced_as_due(fresh_dsn):
    """unpark_reviews put a review back without a word: a waiting worker found it only at its
    next poll. It is announced as a new review is (review_due), after the commit."""
    queue_pairs(fresh_dsn, ["ann"], 1)
    with MemoryStore(fresh_dsn) as store:
        with psycopg.connect(fresh_dsn, autocommit=True) as owner:
            owner.execute("UPDATE pymem.settings SET review_max_attempts = 1")
        (claim,) = store.claim_reviews("ann", "w", 1)
        assert store.release_review("ann", claim.review_id, "w", "broken") == "parked"
        with psycopg.connect(fresh_dsn, autocommit=True) as listener:
            listener.execute("LISTEN pymem_events")
            assert [r.review_id for r in store.unpark_reviews("ann")] == [claim.review_id]
            heard = [json.loads(n.payload) for n in listener.notifies(timeout=5, stop_after=1)]
    assert [(e["event"], e["review_id"]) for e in heard] == [("review_due", str(claim.review_id))]
