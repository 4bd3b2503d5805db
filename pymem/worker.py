"""One worker for every event the store announces (docs/llm.md#the-worker).

A :class:`MemoryWorker` (or :class:`AsyncMemoryWorker`) is a reviewer
(:mod:`pymem.review`) that also runs the model jobs of :mod:`pymem.jobs`:

- ``review``: the review queue, as ``pymem review`` does;
- ``consolidate``: a topic ``consolidation_due`` announced: the model writes the record
  of its fragments, ``pymem.consolidate`` folds them (its guards refuse a record that
  drops a detail);
- ``profile``: a person ``contact_profile_due`` announced: ``pymem.consolidate_contact``;
- ``reflect``: a user with ``settings.reflect_every`` writes since the last reflection
  (or, with ``reflect_after``, any write since one that old): the model reads the recent
  memories and their nearest older ones and answers a plan for ``apply_maintenance``.

The jobs are claimed in SQL (``pymem.claim_jobs``) with the reviews' rules: a lease, a
failure counted and retried later, parking after ``settings.review_max_attempts``.
Every call of the model is counted with its tokens, per job (:attr:`totals`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pymem.chat import ModelError, usage_of
from pymem.errors import PymemError
from pymem.jobs import JobResult, _consolidate_steps, _profile_steps, _reflect_steps
from pymem.judge import ajudged, judged
from pymem.records import ClaimedJob
from pymem.review import (
    AsyncReviewWorker,
    ReviewCounts,
    ReviewWorker,
    _describe,
    _Reviewer,
    _Steps,
)
from pymem.store import AsyncMemoryStore, MemoryStore

MODEL_JOBS = ("consolidate", "profile", "reflect")
JOBS = ("review", *MODEL_JOBS)
# the events that say a job is due; a reflection is due by count, found by polling
EVENTS = {"review_due": "review", "consolidation_due": "consolidate",
          "contact_profile_due": "profile"}  # fmt: skip


@dataclass
class Cost:
    """What the model was asked: calls (those that failed too) and the tokens its
    ``usage`` reported."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass
class WorkerCounts:
    """What a worker did: the reviews (:class:`~pymem.review.ReviewCounts`), and per model
    job the runs ``done`` (``refused``: a reflection whose plan named a memory it was not
    shown, applied nothing), ``failed`` (given back with an error; ``parked`` among them)
    and ``taken`` (the claim ran out and another worker held the job); ``costs``: the
    model's calls and tokens per job, reviews included."""

    reviews: ReviewCounts = field(default_factory=ReviewCounts)
    done: dict[str, int] = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)
    parked: dict[str, int] = field(default_factory=dict)
    taken: int = 0
    costs: dict[str, Cost] = field(default_factory=dict)

    def count(self, what: dict[str, int], job: str) -> None:
        what[job] = what.get(job, 0) + 1

    @property
    def calls(self) -> int:
        return sum(c.calls for c in self.costs.values())

    def line(self) -> str:
        """What ``pymem worker`` prints at its end."""
        parts = []
        for job in MODEL_JOBS:
            done, failed = self.done.get(job, 0), self.failed.get(job, 0)
            refused, parked = self.refused.get(job, 0), self.parked.get(job, 0)
            if done or failed:
                extra = f", {refused} refused" if refused else ""
                extra += f", {parked} parked" if parked else ""
                parts.append(f"{job} {done} done, {failed} failed{extra}")
        costs = ", ".join(
            f"{job} {c.calls} ({c.tokens} tokens)" for job in JOBS if (c := self.costs.get(job))
        )
        return "; ".join(parts or ["no model jobs"]) + f"; model calls: {costs or 'none'}"


@dataclass(frozen=True)
class JobOutcome:
    """What became of one claimed job, for a worker's ``on_job`` callback. ``state``:
    ``done`` (``result`` says what the job did and cost; ``result.refused`` when a plan was
    refused), ``retry`` or ``parked`` (failed: ``error`` says why), ``taken`` (this
    worker's claim ran out and another worker holds the job: nothing recorded here)."""

    job: ClaimedJob
    state: str
    result: JobResult | None = None
    error: str | None = None


class _Metered:
    """A chat client whose calls and tokens are counted into ``cost``; a call that fails
    is counted too (it was made)."""

    def __init__(self, chat: Any, cost: Cost):
        self._chat, self.cost, self.model = chat, cost, chat.model

    def post(self, body: dict[str, Any]) -> Any:
        self.cost.calls += 1
        answer = self._chat.post(body)
        if inspect.isawaitable(answer):
            return self._later(answer)
        return self._counted(answer)

    async def _later(self, answer: Any) -> Any:
        return self._counted(await answer)

    def _counted(self, answer: Any) -> Any:
        prompt, completion = usage_of(answer)
        self.cost.prompt_tokens += prompt
        self.cost.completion_tokens += completion
        return answer


def _check_jobs(jobs: Sequence[str]) -> tuple[str, ...]:
    if isinstance(jobs, str) or not jobs or not set(jobs) <= set(JOBS):
        raise ValueError(f"jobs must name some of {', '.join(JOBS)}, got {jobs!r}")
    return tuple(j for j in JOBS if j in jobs)


class _Worker(_Reviewer):
    """The jobs' logic both workers share, as steps (pymem.review's module docstring)."""

    def __init__(
        self,
        store: MemoryStore | AsyncMemoryStore,
        chat: Any,
        embed: Callable[[list[str]], Any],
        *,
        judge: Callable[..., Any] | None = None,
        jobs: Sequence[str] = JOBS,
        structured: bool = True,
        reflect_after: float | None = None,
        on_job: Callable[[JobOutcome], None] | None = None,
        **options: Any,
    ):
        if "dry_run" in options:
            raise ValueError("a worker has no dry run: pymem review --dry-run judges reviews")
        self.jobs = _check_jobs(jobs)
        if reflect_after is not None and not (
            isinstance(reflect_after, int | float) and 0 <= reflect_after <= 31536000
        ):
            raise ValueError(f"reflect_after must be 0 to 31536000 seconds, got {reflect_after!r}")
        self.chat = chat
        self.embed = embed
        self.structured = structured
        self.reflect_after = reflect_after
        self.on_job = on_job
        self.counts = WorkerCounts()
        if judge is None:
            judge = self._chat_judge(_Metered(chat, self._cost("review")))
        super().__init__(store, judge, **options)
        self.counts.reviews = self.totals

    def _cost(self, job: str) -> Cost:
        return self.counts.costs.setdefault(job, Cost())

    def _chat_judge(self, chat: _Metered) -> Callable[..., Any]:
        return functools.partial(judged, chat, structured=self.structured)

    # -- the steps -------------------------------------------------------------------

    def _drain(self) -> _Steps[ReviewCounts]:
        """The reviews, then the model jobs, until nothing is due now."""
        reviews = ReviewCounts()
        if "review" in self.jobs:
            reviews = yield from super()._drain()
        if set(self.jobs) & set(MODEL_JOBS):
            yield from self._drain_jobs()
        return reviews

    def _drain_jobs(self) -> _Steps[None]:
        """Batches of jobs until none is due. A job runs once a drain: one due again at
        once (a reflection whose own plan made it due) waits for the next drain."""
        ran: set[tuple[str, str, str]] = set()
        wanted = [j for j in self.jobs if j in MODEL_JOBS]
        while not self._stop.is_set():
            claims = yield functools.partial(
                self.store.claim_jobs, self.user_id, self.worker, self.batch,
                lease=self.lease, reflect_after=self.reflect_after, jobs=wanted,
            )  # fmt: skip
            todo = [c for c in claims if (c.user_id, c.job, c.key) not in ran]
            again = [c for c in claims if (c.user_id, c.job, c.key) in ran]
            for claim in again:
                yield from self._released(claim)
            if not todo:
                return
            try:
                while todo and not self._stop.is_set():
                    ran.add((todo[0].user_id, todo[0].job, todo[0].key))
                    yield from self._job(todo[0])
                    todo.pop(0)
            finally:
                for claim in todo:  # stopped: the rest go back as they were
                    yield from self._released(claim)

    def _released(self, claim: Any) -> _Steps[None]:
        if isinstance(claim, ClaimedJob):
            yield functools.partial(
                self.store.release_job, claim.user_id, claim.job, claim.key, self.worker
            )
        else:
            yield from super()._released(claim)

    def _job(self, claim: ClaimedJob) -> _Steps[None]:
        chat = _Metered(self.chat, self._cost(claim.job))
        user, shared = claim.user_id, {"structured": self.structured}
        try:
            if claim.job == "consolidate":
                result = yield from _consolidate_steps(
                    self.store, user, claim.member_ids or [], chat, self.embed, **shared
                )
            elif claim.job == "profile":
                result = yield from _profile_steps(
                    self.store, user, claim.contact_id, chat, **shared
                )
            else:
                result = yield from _reflect_steps(
                    self.store, user, chat, self.embed, since=claim.since, **shared
                )
        except ModelError as exc:
            yield from self._job_failed(claim, f"model: {_describe(exc)}")
            return
        except PymemError as exc:
            if not (exc.sqlstate or "").startswith("PM"):
                raise  # the store's trouble (a lost connection), not the job's
            yield from self._job_failed(claim, exc.one_line())
            return
        state = yield functools.partial(
            self.store.finish_job, user, claim.job, claim.key, self.worker
        )
        if state == "not held":
            self.counts.taken += 1
            self._job_outcome(JobOutcome(claim, "taken", result))
            return
        self.counts.count(self.counts.done, claim.job)
        if result.refused:
            self.counts.count(self.counts.refused, claim.job)
        self._job_outcome(JobOutcome(claim, "done", result))

    def _job_failed(self, claim: ClaimedJob, error: str) -> _Steps[None]:
        delay = min(self.retry_after * 2**claim.attempts, self.max_retry_after)
        state = yield functools.partial(
            self.store.release_job, claim.user_id, claim.job, claim.key, self.worker,
            error[:2000], retry_after=delay,
        )  # fmt: skip
        if state == "not held":
            self.counts.taken += 1
            self._job_outcome(JobOutcome(claim, "taken", error=error))
            return
        self.counts.count(self.counts.failed, claim.job)
        if state == "parked":
            self.counts.count(self.counts.parked, claim.job)
        self._job_outcome(JobOutcome(claim, state, error=error))

    def _job_outcome(self, outcome: JobOutcome) -> None:
        if self.on_job is not None:
            self.on_job(outcome)

    def _wakes_on(self, event: Any) -> bool:
        return EVENTS.get(event) in self.jobs


class MemoryWorker(_Worker, ReviewWorker):
    """Runs every job of the store (:data:`JOBS`, or those ``jobs`` names) with a
    :class:`~pymem.MemoryStore`, a :class:`~pymem.chat.ChatClient` and an embedder.

    ``judge`` decides reviews (default: the same model, job ``pymem_review``);
    ``structured`` False sends each job's schema in the prompt (a server without
    structured output); ``reflect_after`` seconds also make a reflection due for a user
    who wrote anything since one that old; ``on_job`` hears each model job's
    :class:`JobOutcome`. The rest are :class:`~pymem.review.ReviewWorker`'s options
    (``user_id``, ``worker``, ``batch``, ``lease``, ``poll_interval``, ``retry_after``,
    ``max_retry_after``, ``listen_dsn``, ``on_outcome``, ``on_batch``, ``on_error``), with
    the same meaning for jobs. :meth:`drain` runs what is due now; :meth:`run_forever`
    also waits for the events (LISTEN) and polls; ``counts`` adds up what it did."""


class AsyncMemoryWorker(_Worker, AsyncReviewWorker):
    """:class:`MemoryWorker` for asyncio, on an :class:`~pymem.AsyncMemoryStore` and an
    :class:`~pymem.chat.AsyncChatClient`; the embedder is called as the async jobs of
    :mod:`pymem.jobs` call it."""

    def _chat_judge(self, chat: _Metered) -> Callable[..., Any]:
        structured = self.structured

        async def judge(review: Any) -> Any:
            return await ajudged(chat, review, structured)

        return judge
