"""Several reviews judged in one call (the worker's ``reviews_per_call``, ``pymem review
--reviews-per-call``): one request to a real local OpenAI-compatible server (tests/
chat_server.py) holds numbered pairs, its answer a verdict a pair; a pair the answer leaves
out or garbles stays queued with its error while the others are decided."""

from __future__ import annotations

import asyncio
import json
import math
import random

import numpy as np
import psycopg
import pytest

from pymem import AsyncMemoryStore, MemoryStore
from pymem.cli import main
from pymem.judge import (
    BATCH_SYSTEM_PROMPT,
    SYSTEM_PROMPT,
    AsyncOpenAIJudge,
    OpenAIJudge,
)
from pymem.review import DECISIONS, AsyncReviewWorker, ReviewWorker
from tests.chat_server import ChatServer, Reply, content
from tests.conftest import unit
from tests.test_review_worker import SCRIPT, queue_pairs, reviews


def _pairs_in(prompt: str) -> list[tuple[int, str]]:
    """(number, newer memory's text) of each pair of a batch's user message."""
    out = []
    for part in prompt.split("Pair ")[1:]:
        number, rest = part.split(":", 1)
        newer = rest.split("Newer memory", 1)[1].split("\n", 1)[1].split("\n\n", 1)[0]
        out.append((int(number), newer))
    return out


def batch_script(pairs: dict[str, tuple], *, leave_out=(), twice=()):
    """Verdicts by the pair's index, in shuffled order (matched by number, not position);
    the newer texts in ``leave_out`` get none, those in ``twice`` two."""

    def script(request) -> Reply:
        verdicts = []
        for number, newer in _pairs_in(request.prompt):
            _, index, _, _ = pairs[newer]
            if newer in leave_out:
                continue
            one = {"pair": number, "decision": SCRIPT[index % 4], "reason": f"pair {index}"}
            verdicts += [one, one] if newer in twice else [one]
        random.Random(len(verdicts)).shuffle(verdicts)
        return content(json.dumps({"verdicts": verdicts}))

    return script


def test_pymem_review_asks_several_reviews_a_request(fresh_dsn, capsys):
    pairs = queue_pairs(fresh_dsn, ["ann", "bo"], 3)
    with ChatServer(batch_script(pairs)) as server:
        args = ["--dsn", fresh_dsn, "review", "--once", "--base-url", server.url, "--model", "m"]
        assert main([*args, "--batch", "5", "--reviews-per-call", "4"]) == 0
        out = capsys.readouterr().out.splitlines()
    # claims of 5 and 1: requests of 4, 1 and 1 pairs
    assert [len(_pairs_in(r.prompt)) for r in server.requests] == [4, 1, 1]
    assert out[-1] == (
        "reviewed 6: 6 decided (2 duplicate, 2 supersede, 1 keep_both, 1 conflict),"
        " 0 failed, 0 parked; 3 judge calls"
    )
    body = server.requests[0].body
    assert body["messages"][0]["content"] == BATCH_SYSTEM_PROMPT
    assert body["response_format"]["json_schema"]["name"] == "pymem_review_batch"
    # each pair got the verdict of its own number
    decided = {r[0]: (r[1], r[2]) for r in reviews(fresh_dsn)}
    for _, (_, index, newer_id, _) in pairs.items():
        assert decided[newer_id] == (SCRIPT[index % 4], f"pair {index}")


def test_a_pair_the_answer_leaves_out_or_repeats_stays_queued(fresh_dsn):
    pairs = queue_pairs(fresh_dsn, ["ann"], 4)
    texts = sorted(pairs, key=lambda t: pairs[t][1])
    script = batch_script(pairs, leave_out={texts[1]}, twice={texts[2]})
    with (
        ChatServer(script) as server,
        MemoryStore(fresh_dsn) as store,
        OpenAIJudge(server.url, "m") as judge,
    ):
        done = ReviewWorker(store, judge, batch=4, reviews_per_call=4, retry_after=60).drain()
    assert (done.judge_calls, done.judged, done.decided_total, done.failed) == (1, 4, 2, 2)
    number = {newer: n for n, newer in _pairs_in(server.requests[0].prompt)}
    row = {r[0]: r for r in reviews(fresh_dsn)}
    left_out, repeated = row[pairs[texts[1]][2]], row[pairs[texts[2]][2]]
    assert left_out[1] is None and left_out[5] == 1
    assert left_out[6] == f"judge: the answer has 0 verdicts for pair {number[texts[1]]}"
    assert repeated[6] == f"judge: the answer has 2 verdicts for pair {number[texts[2]]}"
    assert [row[pairs[t][2]][1] for t in (texts[0], texts[3])] == [SCRIPT[0], SCRIPT[3]]


@pytest.mark.parametrize(
    "answer, error",
    [
        (lambda asked: [("keep_both", "one")], "judge: asked 3 reviews, the judge answered 1"),
        (lambda asked: ("keep_both", "one"), "judge: a judge of several reviews a call returns"),
        (lambda asked: 1 / 0, "judge: ZeroDivisionError: division by zero"),
        # not an Exception: malformed, never raised out of the worker
        (lambda asked: [KeyboardInterrupt()] * 3, "judge: a judge returns a Verdict"),
    ],
)
def test_an_answer_that_is_no_list_of_one_verdict_a_review_fails_them_all(fresh_dsn, answer, error):
    pairs = queue_pairs(fresh_dsn, ["ann"], 3)
    with MemoryStore(fresh_dsn) as store:
        done = ReviewWorker(store, answer, reviews_per_call=3, retry_after=60).drain()
    assert (done.judge_calls, done.failed, done.decided_total) == (1, 3, 0)
    rows = reviews(fresh_dsn)
    assert len(rows) == len(pairs)
    assert all(r[1] is None and r[5] == 1 and r[6].startswith(error) for r in rows)


def test_a_server_answer_without_a_list_of_verdicts_fails_each_pair(fresh_dsn):
    queue_pairs(fresh_dsn, ["ann"], 2)
    with (
        ChatServer(lambda r: content('{"decision": "keep_both", "reason": "all"}')) as server,
        MemoryStore(fresh_dsn) as store,
        OpenAIJudge(server.url, "m") as judge,
    ):
        done = ReviewWorker(store, judge, reviews_per_call=2, retry_after=60).drain()
    assert (done.judge_calls, done.failed) == (1, 2)
    errors = {r[6] for r in reviews(fresh_dsn)}
    assert len(errors) == 1 and errors.pop().startswith("judge: the answer has no list 'verdicts'")


def test_an_answer_numbering_pairs_from_0_decides_none(fresh_dsn):
    """Numbered 0 to N-1, every verdict might sit one pair off: the call fails whole."""
    queue_pairs(fresh_dsn, ["ann"], 3)

    def from_zero(request) -> Reply:
        verdicts = [
            {"pair": n - 1, "decision": "keep_both", "reason": "distinct"}
            for n, _ in _pairs_in(request.prompt)
        ]
        return content(json.dumps({"verdicts": verdicts}))

    with (
        ChatServer(from_zero) as server,
        MemoryStore(fresh_dsn) as store,
        OpenAIJudge(server.url, "m") as judge,
    ):
        done = ReviewWorker(store, judge, reviews_per_call=3, retry_after=60).drain()
    assert (done.judge_calls, done.failed, done.decided_total) == (1, 3, 0)
    assert {r[6] for r in reviews(fresh_dsn)} == {
        "judge: the answer numbers pairs [0], asked pairs 1 to 3"
    }


def test_a_pair_moved_by_a_decision_of_the_same_call_is_judged_again(fresh_dsn):
    """A write queued with its two neighbours (the below-band queue): both reviews go in
    one call; the first decision retires the new memory and moves the second review onto
    the survivor, a pair the judge never read: given back stale, judged again next."""
    with MemoryStore(fresh_dsn) as store:
        bees = store.upsert("ann", "Nuno keeps bees on the roof", unit(0))
        honey = store.upsert("ann", "Nuno sells honey at the Saturday market", unit(1))
        both = 0.7 * unit(0) + 0.6 * unit(1) + math.sqrt(0.15) * unit(3)
        hives = store.upsert("ann", "Nuno's rooftop hives give him honey", both, review_floor=0.5)
        assert len(store.pending_reviews("ann")) == 2
        with psycopg.connect(fresh_dsn, autocommit=True) as conn:  # (hives, bees) first
            conn.execute(
                "UPDATE pymem.reviews SET created_at = created_at + interval '1 second'"
                " WHERE memory_id = %s AND matched_id = %s",
                (hives.memory_id, honey.memory_id),
            )
        read = []

        def judge(asked):
            read.append([(r.memory_id, r.matched_id) for r in asked])
            return [("duplicate" if r.matched_id == bees.memory_id else "keep_both", "x")
                    for r in asked]  # fmt: skip

        done = ReviewWorker(store, judge, reviews_per_call=2).drain()
        assert store.pending_reviews("ann") == []
    assert read[0] == [(hives.memory_id, bees.memory_id), (hives.memory_id, honey.memory_id)]
    assert read[1] == [(bees.memory_id, honey.memory_id)]
    assert (done.judge_calls, done.stale, done.decided) == (2, 1, {"duplicate": 1, "keep_both": 1})


def test_a_review_a_decision_of_the_same_call_made_obsolete_is_taken(fresh_dsn):
    """The second review of a new memory moves, when the first retires it, onto a pair
    that is already open: closed as obsolete; its verdict is applied by nobody ("taken",
    said as settled elsewhere), and the open pair stays queued."""
    with MemoryStore(fresh_dsn) as store:
        boat = store.upsert("ann", "Nuno restores an old wooden boat", unit(1))
        a = 0.6 * unit(1) + 0.8 * unit(0)
        hives = store.upsert("ann", "Nuno keeps bees on the roof", a, review_floor=0.5)
        assert hives.matched_id == boat.memory_id  # the open pair (hives, boat)
        new = 0.85 * a + 0.3 * unit(1) + 0.2 * unit(3)
        new = new / np.linalg.norm(new)
        assert float(new @ a) > float(new @ unit(1)) >= 0.5
        honey = store.upsert("ann", "Nuno's rooftop hives", new, review_floor=0.5)
        assert {
            r.matched_id for r in store.pending_reviews("ann") if r.memory_id == honey.memory_id
        } == {hives.memory_id, boat.memory_id}
        with psycopg.connect(fresh_dsn, autocommit=True) as conn:  # (honey, hives) first
            conn.execute(
                "UPDATE pymem.reviews SET created_at = created_at + interval '1 second'"
                " WHERE memory_id = %s AND matched_id = %s",
                (honey.memory_id, boat.memory_id),
            )
        outcomes = []

        def judge(asked):
            return [("duplicate" if r.matched_id == hives.memory_id else "keep_both", "x")
                    for r in asked]  # fmt: skip

        claimed = store.claim_reviews("ann", "other", 1)  # the open pair waits elsewhere
        assert [(r.memory_id, r.matched_id) for r in claimed] == [(hives.memory_id, boat.memory_id)]
        done = ReviewWorker(store, judge, reviews_per_call=2, on_outcome=outcomes.append).drain()
        states = sorted(o.state for o in outcomes)
        assert states == ["decided", "taken"] and done.taken == 1
        ((left),) = store.pending_reviews("ann")
        assert (left.memory_id, left.matched_id) == (hives.memory_id, boat.memory_id)


def test_the_async_worker_asks_several_reviews_a_request(fresh_dsn):
    pairs = queue_pairs(fresh_dsn, ["ann"], 5)
    with ChatServer(batch_script(pairs)) as server:

        async def run():
            async with (
                AsyncMemoryStore(fresh_dsn) as store,
                AsyncOpenAIJudge(server.url, "m") as judge,
            ):
                return await AsyncReviewWorker(store, judge, reviews_per_call=5).drain()

        done = asyncio.run(run())
    assert (done.judge_calls, done.judged, done.decided_total) == (1, 5, 5)
    assert len(server.requests) == 1


@pytest.mark.parametrize("value", [0, 51, True, 2.0])
def test_reviews_per_call_is_an_integer_from_1_to_50(store, value):
    with pytest.raises(ValueError, match="reviews_per_call must be an integer from 1 to 50"):
        ReviewWorker(store, lambda r: ("keep_both", "x"), reviews_per_call=value)


def test_the_batch_prompt_holds_the_rules_once_and_its_own_answer():
    """review.md's rules, written once, under the batch's job line and with the batch's
    answer format instead of the single answer's."""
    rules = SYSTEM_PROMPT.split("\n", 1)[1].strip().rsplit("\n\n", 1)[0]
    assert rules in BATCH_SYSTEM_PROMPT
    assert BATCH_SYSTEM_PROMPT.startswith("pymem_review_batch (prompt version 1)\n")
    assert '{"decision": "duplicate"' not in BATCH_SYSTEM_PROMPT
    assert '{"verdicts": [{"pair": 1,' in BATCH_SYSTEM_PROMPT
    assert all(f'"{d}"' in BATCH_SYSTEM_PROMPT for d in DECISIONS)


def test_the_memory_worker_asks_several_reviews_a_request(fresh_dsn, embedder):
    """`pymem worker`'s MemoryWorker takes reviews_per_call as the review worker does: its
    own judge (the same model, metered) sends the pairs in one request."""
    from pymem.chat import ChatClient
    from pymem.worker import MemoryWorker

    pairs = queue_pairs(fresh_dsn, ["ann"], 3)
    with (
        ChatServer(batch_script(pairs)) as server,
        ChatClient(server.url, "m") as chat,
        MemoryStore(fresh_dsn) as store,
    ):
        w = MemoryWorker(store, chat, embedder, jobs=["review"], reviews_per_call=3)
        w.drain()
    assert [len(_pairs_in(r.prompt)) for r in server.requests] == [3]
    assert server.requests[0].body["response_format"]["json_schema"]["name"] == "pymem_review_batch"
    assert w.counts.reviews.decided_total == 3
