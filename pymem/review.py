"""Reviewers: the consumer of the review queue that pymem ships (docs/review-worker.md).

The write path queues every pair it cannot decide (``pending_reviews``, cause
``related``). A :class:`ReviewWorker` (or :class:`AsyncReviewWorker`) claims them
(``claim_reviews``: two workers never hold one review, and a crashed worker's claim
runs out), asks a judge, and applies the answer with ``resolve_review`` (a
``conflict`` answer flags the pair in the same call), the judge's reason recorded
on the review and in the history. A failed judgement (a malformed answer, an error,
a timeout) is given back with its error (``release_review``): retried later, and
parked after ``settings.review_max_attempts`` failures, never decided by default.

A judge is any callable taking a :class:`~pymem.records.ClaimedReview` and returning a
:class:`Verdict`, a ``(decision, reason)`` pair or a mapping with both keys (the async
worker also takes an ``async def``); :class:`pymem.judge.OpenAIJudge` asks an
OpenAI-compatible chat completions endpoint.

Both workers run one core of pure logic (:class:`_Reviewer`): generators that yield
each step they need (a store call, the judge, a wait for a notification) as a
callable; ReviewWorker calls them, AsyncReviewWorker awaits what they return.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import math
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar
from uuid import UUID

from pymem.chat import MalformedAnswer, ModelError, printable
from pymem.errors import (
    ConnectionLost,
    Deadlock,
    InvalidContent,
    LockTimeout,
    PymemError,
    QueryCanceled,
    ReviewClaimed,
    ReviewStale,
    SerializationFailure,
)
from pymem.records import ClaimedReview
from pymem.steps import _awaited, _performed
from pymem.store import AsyncMemoryStore, MemoryStore
from pymem.wording import counted

DECISIONS = ("duplicate", "supersede", "keep_both", "past", "conflict")
# the longest reason kept (also at most settings.max_content_chars)
REASON_CHARS = 1000
CHANNEL = "pymem_events"
# the store's passing trouble, not the review's: run_forever waits it out and goes on
# (a lost connection; a lock or statement timeout, a deadlock or serialization failure:
# another transaction held what the call needed)
TRANSIENT = (ConnectionLost, LockTimeout, QueryCanceled, Deadlock, SerializationFailure)

# claim_reviews' largest k (PM006 beyond; tests/test_review_worker.py checks the two agree)
CLAIM_MAX = 1000
# the most reviews one judge call may be asked (a prompt of fifty pairs is ~10,000 tokens)
REVIEWS_PER_CALL_MAX = 50
# batches in a row whose every review changed while judged, before a drain ends
STALE_ROUNDS = 3


# release_review's bound on a retry's wait (sql/27_review_claims.sql)
RETRY_AFTER_MAX = 86400.0


def _check_options(
    batch: int,
    lease: float,
    poll_interval: float,
    retry_after: float,
    max_retry_after: float,
    reviews_per_call: int = 1,
) -> None:
    """A worker's options, refused when it starts: a poll of 0 claimed in a busy loop, and
    a wait the store refuses surfaced only at the first failed judgement, out of the loop."""

    def number(value: float) -> bool:
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        )

    if not (isinstance(batch, int) and not isinstance(batch, bool) and 1 <= batch <= CLAIM_MAX):
        raise ValueError(f"batch must be an integer from 1 to {CLAIM_MAX}, got {batch!r}")
    if not (
        isinstance(reviews_per_call, int)
        and not isinstance(reviews_per_call, bool)
        and 1 <= reviews_per_call <= REVIEWS_PER_CALL_MAX
    ):
        raise ValueError(
            f"reviews_per_call must be an integer from 1 to {REVIEWS_PER_CALL_MAX}, "
            f"got {reviews_per_call!r}"
        )
    for name, value in (("lease", lease), ("poll_interval", poll_interval)):
        if not (number(value) and value > 0):
            raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    for name, value in (("retry_after", retry_after), ("max_retry_after", max_retry_after)):
        if not (number(value) and 0 <= value <= RETRY_AFTER_MAX):
            raise ValueError(f"{name} must be from 0 to {RETRY_AFTER_MAX:g} seconds, got {value!r}")


_log = logging.getLogger(__name__)
_T = TypeVar("_T")
_Steps = Generator[Callable[[], Any], Any, _T]


class JudgeError(ModelError):
    """The judge gave no usable answer (an HTTP error, a timeout, a refused request); the
    review is given back with this message as its error."""


class MalformedVerdict(JudgeError, MalformedAnswer):
    """The judge answered, but not with a verdict: not a JSON object, an unknown decision,
    a missing or empty field."""


@dataclass(frozen=True)
class Verdict:
    """A judge's answer: one of :data:`DECISIONS` and why."""

    decision: str
    reason: str


def verdict(answer: Any) -> Verdict:
    """A judge's answer as a :class:`Verdict`: a Verdict, a ``(decision, reason)`` pair or a
    mapping holding both; anything else, an unknown decision or an empty reason is
    :class:`MalformedVerdict`."""
    if isinstance(answer, Verdict):
        decision, reason = answer.decision, answer.reason
    elif isinstance(answer, Mapping):
        missing = [key for key in ("decision", "reason") if key not in answer]
        if missing:
            raise MalformedVerdict(f"the answer has no {' and no '.join(missing)}: {answer!r:.200}")
        decision, reason = answer["decision"], answer["reason"]
    elif isinstance(answer, tuple | list) and len(answer) == 2:
        decision, reason = answer
    else:
        raise MalformedVerdict(
            f"a judge returns a Verdict, a (decision, reason) pair or a mapping, got "
            f"{type(answer).__name__}: {answer!r:.200}"
        )
    if decision not in DECISIONS:
        raise MalformedVerdict(
            f"decision must be one of {', '.join(DECISIONS)}, got {decision!r:.100}"
        )
    if not isinstance(reason, str) or not reason.strip():
        raise MalformedVerdict(f"reason must be a non-empty string, got {reason!r:.100}")
    return Verdict(decision, reason.strip())


@dataclass
class ReviewCounts:
    """What a run did: reviews claimed, decided (by decision; in a dry run, what would have
    been decided), failed (given back with an error) and parked among them, taken (another
    reviewer held the review by the time the decision came: applied by nobody here), stale
    (the pair changed while the judge read it: given back unjudged, claimed and judged again
    later, so counted again in ``claimed``), the judge's calls, and the reviews they asked
    (more than the calls with ``reviews_per_call`` above 1)."""

    claimed: int = 0
    decided: dict[str, int] = field(default_factory=dict)
    failed: int = 0
    parked: int = 0
    taken: int = 0
    judge_calls: int = 0
    stale: int = 0
    judged: int = 0

    def __iadd__(self, other: ReviewCounts) -> ReviewCounts:
        self.claimed += other.claimed
        for decision, n in other.decided.items():
            self.decided[decision] = self.decided.get(decision, 0) + n
        self.failed += other.failed
        self.parked += other.parked
        self.taken += other.taken
        self.judge_calls += other.judge_calls
        self.stale += other.stale
        self.judged += other.judged
        return self

    @property
    def decided_total(self) -> int:
        return sum(self.decided.values())

    @property
    def reviewed(self) -> int:
        """The reviews whose claim ended in this run with an outcome: the claims but the
        stale ones (given back to be judged again: such a review is claimed twice)."""
        return self.claimed - self.stale

    def line(self) -> str:
        """One line of counts, as ``pymem review`` prints them."""
        decided = ", ".join(f"{n} {d}" for d in DECISIONS if (n := self.decided.get(d)))
        taken = f", {self.taken} taken by another reviewer" if self.taken else ""
        stale = f", {self.stale} changed while judged (judged again)" if self.stale else ""
        return (
            f"{self.decided_total} decided" + (f" ({decided})" if decided else "")
            + f", {self.failed} failed, {self.parked} parked{taken}{stale}; "
            f"{counted(self.judge_calls, 'judge call')}"
        )  # fmt: skip


@dataclass(frozen=True)
class ReviewOutcome:
    """What became of one claimed review, for a worker's ``on_outcome`` callback.

    ``state``: ``decided`` (``survivor`` is the memory that stayed), ``judged`` (a dry
    run: nothing applied), ``retry`` or ``parked`` (failed, ``error`` says why;
    ``attempts`` counts the failures so far), ``failed`` (a dry run's judge failed: nothing
    recorded, no attempt counted), ``stale`` (the pair is no longer the one the judge
    read: a write rewrote either memory, another decision moved the review to another
    memory, the claim was given back; given back unjudged, no attempt counted, judged
    again on the next claim), ``taken`` (this reviewer's claim ran out and another
    reviewer holds or decided the review, or another decision closed it as obsolete: a
    review moved onto a pair already open, which several reviews a call make common:
    nothing applied here, nothing counted)."""

    review: ClaimedReview
    state: str
    verdict: Verdict | None = None
    survivor: UUID | None = None
    error: str | None = None
    attempts: int = 0
    retry_after: float = 0.0


def default_worker_name() -> str:
    """``host:pid:random``: what claims and decisions record of this reviewer."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def _describe(exc: BaseException) -> str:
    text = str(exc) if isinstance(exc, JudgeError) else f"{type(exc).__name__}: {exc}"
    return printable(text) or type(exc).__name__


def is_async_judge(judge: Any) -> bool:
    """An ``async def``, or an object whose ``__call__`` is one (AsyncOpenAIJudge)."""
    return inspect.iscoroutinefunction(judge) or inspect.iscoroutinefunction(type(judge).__call__)


class _Reviewer:
    """The logic both workers share, as steps (module docstring); no I/O of its own.

    Each worker supplies ``_judged(review)`` (the judge's answer, or an awaitable of it),
    ``_listen()``, ``_notifications(timeout)`` (payloads heard within ``timeout`` seconds,
    or a sleep when nothing listens) and ``_unlisten()``."""

    def __init__(
        self,
        store: MemoryStore | AsyncMemoryStore,
        judge: Callable[[ClaimedReview], Any],
        *,
        user_id: str | None = None,
        worker: str | None = None,
        batch: int = 5,
        reviews_per_call: int = 1,
        lease: float = 600.0,
        poll_interval: float = 5.0,
        retry_after: float = 5.0,
        max_retry_after: float = 300.0,
        dry_run: bool = False,
        listen_dsn: str | None = None,
        on_outcome: Callable[[ReviewOutcome], None] | None = None,
        on_batch: Callable[[ReviewCounts], None] | None = None,
        on_error: Callable[[PymemError, float], None] | None = None,
    ):
        if user_id is not None and not (isinstance(user_id, str) and user_id.strip()):
            # '' (an unset shell variable) is never "every user"
            raise ValueError("user_id must be a non-empty string, or None for every user")
        _check_options(batch, lease, poll_interval, retry_after, max_retry_after, reviews_per_call)
        self.store = store
        self.judge = judge
        self.user_id = user_id
        self.worker = worker or default_worker_name()
        self.batch = batch
        self.reviews_per_call = reviews_per_call
        self.lease = lease
        self.poll_interval = poll_interval
        self.retry_after = retry_after
        self.max_retry_after = max_retry_after
        self.dry_run = dry_run
        # LISTEN needs a connection of its own: from listen_dsn, or the DSN the store was
        # opened from; a store on a connection or a pool without listen_dsn only polls
        self.listen_dsn = listen_dsn or getattr(store, "_dsn", None)
        self.on_outcome = on_outcome
        self.on_batch = on_batch
        self.on_error = on_error
        self.totals = ReviewCounts()
        self._stop = threading.Event()
        self._reason_chars: int | None = None
        self._held: dict[UUID, ClaimedReview] = {}  # claims a dry run keeps to its end
        self._listen_again_at = 0.0  # when a lost listener is tried again

    def stop(self) -> None:
        """Ask ``run_forever`` (or a drain) to end after the judge call in hand (its reviews
        applied); thread-safe."""
        self._stop.set()

    # -- the steps -------------------------------------------------------------------

    def _run_once(self) -> _Steps[ReviewCounts]:
        """One batch; a dry run gives its claims back at its end (it changes nothing)."""
        try:
            return (yield from self._batch())
        finally:
            yield from self._give_back_held()

    def _drain(self) -> _Steps[ReviewCounts]:
        """Batches until nothing is left to claim; a dry run gives its claims back last.
        Pairs rewritten faster than the judge reads them come back stale each time, with no
        attempt counted: after STALE_ROUNDS batches of only stale ones the drain ends (the
        next drain, a poll later, judges them again), not a judge call loop."""
        counts = ReviewCounts()
        stale_rounds = 0
        try:
            while not self._stop.is_set():
                done = yield from self._batch()
                counts += done
                if not done.claimed:
                    break
                stale_rounds = stale_rounds + 1 if done.stale == done.claimed else 0
                if stale_rounds >= STALE_ROUNDS:
                    break
        finally:
            yield from self._give_back_held()
        return counts

    def _batch(self) -> _Steps[ReviewCounts]:
        """Claim up to ``batch`` reviews, judge them ``reviews_per_call`` to a call, and
        apply each verdict."""
        counts = ReviewCounts()
        if self._reason_chars is None:
            settings = yield self.store.get_settings
            self._reason_chars = min(REASON_CHARS, settings.max_content_chars)
        claims = yield from self._claims()
        counts.claimed = len(claims)
        todo = list(claims)
        try:
            while todo and not self._stop.is_set():
                call = todo[: self.reviews_per_call]
                counts.judge_calls += 1
                counts.judged += len(call)
                judged = yield from self._judgements(call)
                for review, (found, error) in zip(call, judged, strict=True):
                    yield from self._review(review, found, error, counts)
                    todo.pop(0)
        finally:
            # stopped (stop(), Ctrl-C, a lost connection): the rest go back as they were
            for review in todo:
                yield from self._released(review)
        self.totals += counts
        if self.on_batch is not None:
            self.on_batch(counts)
        return counts

    def _claims(self) -> _Steps[list[ClaimedReview]]:
        """The next reviews to judge. A dry run holds what it judged to its end; a held
        claim that ran out comes back (oldest first) with the next claim: asked for beside
        the batch (claim_reviews takes at most CLAIM_MAX), kept, not judged again. A claim
        that brings back only held ones renews them, so asking again brings new ones."""
        if not self.dry_run:
            return (
                yield functools.partial(
                    self.store.claim_reviews, self.user_id, self.worker, self.batch,
                    lease=self.lease,
                )
            )  # fmt: skip
        for _ in range(len(self._held) // CLAIM_MAX + 2):
            k = min(CLAIM_MAX, self.batch + len(self._held))
            claims = yield functools.partial(
                self.store.claim_reviews, self.user_id, self.worker, k, lease=self.lease
            )
            fresh = []
            for review in claims:
                if review.review_id in self._held:
                    self._held[review.review_id] = review
                else:
                    fresh.append(review)
            if fresh or len(claims) < k:
                return fresh
        return []

    def _give_back_held(self) -> _Steps[None]:
        while self._held:
            _, review = self._held.popitem()
            yield from self._released(review)

    def _judgements(
        self, call: list[ClaimedReview]
    ) -> _Steps[list[tuple[Verdict | None, str | None]]]:
        """The judge's verdict on each review of one call, its reason as it will be
        recorded; or why there is none. With ``reviews_per_call`` 1 the judge gets the
        review, else the list, and answers a list in its order: an answer of another
        length fails the whole call, an exception in the list fails its review."""
        try:
            if self.reviews_per_call == 1:
                answers = [(yield functools.partial(self._judged, call[0]))]
            else:
                answers = yield functools.partial(self._judged, list(call))
                if not isinstance(answers, list):
                    raise MalformedVerdict(
                        f"a judge of several reviews a call returns a list, "
                        f"got {type(answers).__name__}: {answers!r:.200}"
                    )
                if len(answers) != len(call):
                    raise MalformedVerdict(
                        f"asked {len(call)} reviews, the judge answered {len(answers)}"
                    )
        except Exception as exc:  # any failure of the judge is each review's error
            return [(None, f"judge: {_describe(exc)}")] * len(call)
        out = []
        for answer in answers:
            out.append((yield from self._judgement(answer)))
        return out

    def _judgement(self, answer: Any) -> _Steps[tuple[Verdict | None, str | None]]:
        """One answer as a verdict with its reason as it will be recorded; or why not."""
        try:
            if isinstance(answer, Exception):
                raise answer
            found = verdict(answer)
        except Exception as exc:  # any failure of the judge is the review's error
            return None, f"judge: {_describe(exc)}"
        found = Verdict(found.decision, printable(found.reason)[: self._reason_chars])
        # a reason of what the store counts as blank (more than str.strip does: zero-width
        # spaces, the byte order mark) would be recorded as none: asked of the store, whose
        # rule (pymem._blank_characters) is not copied here
        try:
            yield functools.partial(self.store.check_contents, [found.reason], ["reason"])
        except InvalidContent:
            return None, (
                f"judge: reason must be a non-empty string, got {found.reason!r:.100} "
                "(blank to the store)"
            )
        return found, None

    def _review(
        self,
        review: ClaimedReview,
        found: Verdict | None,
        error: str | None,
        counts: ReviewCounts,
    ) -> _Steps[None]:
        """Apply the judge's verdict on ``review`` (or record why there is none)."""
        if found is None:
            if self.dry_run:
                # a dry run changes nothing: no attempt counted, nothing parked; the
                # claim is held to the run's end, so the drain does not ask again
                counts.failed += 1
                self._held[review.review_id] = review
                self._outcome(ReviewOutcome(review, "failed", error=error))
                return
            yield from self._failed(review, counts, error)
            return
        if self.dry_run:
            counts.decided[found.decision] = counts.decided.get(found.decision, 0) + 1
            self._held[review.review_id] = review
            self._outcome(ReviewOutcome(review, "judged", found))
            return
        try:
            survivor = yield functools.partial(
                self.store.resolve_review,
                review.user_id,
                review.memory_id,
                found.decision,
                reason=found.reason,
                claimed_by=self.worker,
                review_id=review.review_id,
                as_seen=(review.updated_at, review.matched_updated_at),
            )
        except ReviewStale as exc:
            # the pair is not the one the judge read (a write changed either memory,
            # another decision moved the review to another memory, the claim was given
            # back): give it back, unjudged, so that the next claim judges what is there
            counts.stale += 1
            yield from self._released(review)
            self._outcome(ReviewOutcome(review, "stale", found, error=exc.one_line()))
            return
        except ReviewClaimed as exc:
            # our claim ran out and another reviewer holds the review: it decides
            counts.taken += 1
            self._outcome(ReviewOutcome(review, "taken", found, error=exc.one_line()))
            return
        except PymemError as exc:
            if not (exc.sqlstate or "").startswith("PM"):
                raise  # the store's trouble (a lost connection), not the review's
            yield from self._failed(review, counts, f"{found.decision}: {exc.one_line()}")
            return
        counts.decided[found.decision] = counts.decided.get(found.decision, 0) + 1
        self._outcome(ReviewOutcome(review, "decided", found, survivor=survivor))

    def _failed(self, review: ClaimedReview, counts: ReviewCounts, error: str) -> _Steps[None]:
        delay = min(self.retry_after * 2**review.attempts, self.max_retry_after)
        release = functools.partial(
            self.store.release_review,
            review.user_id,
            review.review_id,
            self.worker,
            retry_after=delay,
        )
        try:
            state = yield functools.partial(release, error)
        except PymemError as exc:
            if not (exc.sqlstate or "").startswith("PM"):
                raise
            # the store refused the error's text: the attempt is counted all the same
            # (else the review is judged, fails and jams the queue forever), with the
            # text in ASCII escapes
            error = f"an error the store could not record ({exc.one_line()}): {error!a:.500}"
            state = yield functools.partial(release, error)
        if state == "not held":
            # our claim ran out and another reviewer took the review (or decided it,
            # which is why this decision found none): its outcome is theirs
            counts.taken += 1
            self._outcome(ReviewOutcome(review, "taken", error=error))
            return
        counts.failed += 1
        counts.parked += state == "parked"
        self._outcome(
            ReviewOutcome(
                review, state, error=error, attempts=review.attempts + 1, retry_after=delay
            )
        )

    def _released(self, review: ClaimedReview) -> _Steps[None]:
        yield functools.partial(
            self.store.release_review, review.user_id, review.review_id, self.worker
        )

    def _forever(self) -> _Steps[None]:
        """Drain, then wait for a ``review_due`` (LISTEN) or the poll interval, until
        :meth:`stop`. The store's passing trouble (:data:`TRANSIENT`: a lost connection,
        which the store reconnects from; a lock or statement timeout, a deadlock) is
        reported to ``on_error`` (else logged) and waited out: the poll interval, doubling
        while it lasts, at most ``max_retry_after``."""
        if self.dry_run:
            raise ValueError("a dry run judges the queue once: use drain(), not run_forever()")
        failures = 0
        try:
            while not self._stop.is_set():
                yield from self._listening()
                try:
                    yield from self._drain()
                    failures = 0
                    wait = self.poll_interval
                except TRANSIENT as exc:
                    if self._stop.is_set():
                        raise
                    failures += 1
                    wait = min(self.poll_interval * 2 ** (failures - 1), self.max_retry_after)
                    if self.on_error is not None:
                        self.on_error(exc, wait)
                    else:
                        _log.warning("%s; trying again in %g s", exc.one_line(), wait)
                yield from self._idle(wait)
        finally:
            yield self._unlisten

    def _listening(self) -> _Steps[None]:
        """LISTEN on a connection of its own, if there is none yet; when the server is
        away, the worker polls and tries again after the poll interval."""
        import psycopg

        if (
            self.listen_dsn is None
            or getattr(self, "_listener", None) is not None
            or time.monotonic() < self._listen_again_at
        ):
            return
        try:
            yield self._listen
        except psycopg.OperationalError:
            yield self._unlisten
            self._listen_again_at = time.monotonic() + self.poll_interval

    def _idle(self, seconds: float) -> _Steps[None]:
        """Until a ``review_due`` of our users is heard, ``seconds`` pass, or stop.
        A listener whose connection broke (a server restart, a terminated backend) is
        closed: the worker polls until it listens again."""
        import psycopg

        deadline = time.monotonic() + seconds
        while not self._stop.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            # short slices: stop() is seen within a quarter of a second
            try:
                heard = yield functools.partial(self._notifications, min(left, 0.25))
            except psycopg.OperationalError:
                yield self._unlisten
                self._listen_again_at = time.monotonic() + self.poll_interval
                heard = []
            if any(self._due(payload) for payload in heard):
                return

    def _due(self, payload: str) -> bool:
        try:
            event = json.loads(payload)
        except ValueError:
            return False  # anyone may NOTIFY on the channel: events are hints
        return (
            isinstance(event, dict)
            and self._wakes_on(event.get("event"))
            and (self.user_id is None or event.get("user_id") == self.user_id)
        )

    def _wakes_on(self, event: Any) -> bool:
        """Whether an event of this name is work of this worker's."""
        return event == "review_due"

    def _outcome(self, outcome: ReviewOutcome) -> None:
        if self.on_outcome is not None:
            self.on_outcome(outcome)


def _run(steps: _Steps[_T]) -> _T:
    """``steps`` run to their end, as ReviewWorker runs them."""
    try:
        next(_performed(steps))
    except StopIteration as done:
        return done.value
    raise TypeError("ReviewWorker got an awaitable: use AsyncReviewWorker with an async store")


class ReviewWorker(_Reviewer):
    """Consumes the review queue with a :class:`~pymem.MemoryStore` and a judge.

    ``user_id``: one user's reviews; None: every user the store's role sees (as the
    owner, the whole store; as ``pymem_app``, the user in ``pymem.user_id`` only).
    ``batch`` reviews are claimed at a time for ``lease`` seconds (the lease must cover
    the batch's judge calls); a failure is retried after ``retry_after`` seconds,
    doubling per attempt up to ``max_retry_after``. ``dry_run``: judge, apply nothing.
    ``on_outcome`` hears each review's :class:`ReviewOutcome`, ``on_batch`` each batch's
    counts, ``on_error`` (in ``run_forever``) each passing error of the store it waits out,
    with the seconds it waits; ``totals`` adds up every run of the worker.
    """

    def __init__(self, store: MemoryStore, judge: Callable[[ClaimedReview], Any], **options):
        if not isinstance(store, MemoryStore) or is_async_judge(judge):
            raise TypeError(
                "ReviewWorker takes a MemoryStore and a plain callable; "
                "AsyncReviewWorker takes an AsyncMemoryStore and an async judge"
            )
        super().__init__(store, judge, **options)

    def run_once(self) -> ReviewCounts:
        """One batch: claim, judge, apply; the counts."""
        return _run(self._run_once())

    def drain(self) -> ReviewCounts:
        """Batches until no review is left to claim now (failed ones waiting for their
        retry and parked ones stay queued); the counts."""
        return _run(self._drain())

    def run_forever(self) -> None:
        """Drain; then wait for ``review_due`` on ``pymem_events`` (LISTEN, on a connection
        of its own) or ``poll_interval`` seconds, whichever comes first; until
        :meth:`stop` (from another thread or a signal handler)."""
        _run(self._forever())

    def _judged(self, review: ClaimedReview) -> Any:
        return self.judge(review)

    _listener: Any = None

    def _listen(self) -> None:
        if self.listen_dsn is None:
            return
        import psycopg

        self._listener = psycopg.connect(self.listen_dsn, autocommit=True)
        self._listener.execute(f"LISTEN {CHANNEL}")

    def _notifications(self, timeout: float) -> list[str]:
        if self._listener is None:
            self._stop.wait(timeout)
            return []
        return [n.payload for n in self._listener.notifies(timeout=timeout, stop_after=1)]

    def _unlisten(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()  # closing a broken connection raises nothing


class AsyncReviewWorker(_Reviewer):
    """:class:`ReviewWorker` for asyncio, on an :class:`~pymem.AsyncMemoryStore`: the same
    options and counts. The judge may be an ``async def``; a plain callable runs in a
    thread (``asyncio.to_thread``), so it never blocks the event loop."""

    def __init__(self, store: AsyncMemoryStore, judge: Callable[[ClaimedReview], Any], **options):
        if not isinstance(store, AsyncMemoryStore):
            raise TypeError("AsyncReviewWorker takes an AsyncMemoryStore")
        super().__init__(store, judge, **options)

    async def run_once(self) -> ReviewCounts:
        return await _awaited(self._run_once())

    async def drain(self) -> ReviewCounts:
        return await _awaited(self._drain())

    async def run_forever(self) -> None:
        await _awaited(self._forever())

    async def _judged(self, review: ClaimedReview) -> Any:
        call = self.judge
        if is_async_judge(call):
            answer = call(review)
        else:
            answer = await asyncio.to_thread(call, review)
        return await answer if inspect.isawaitable(answer) else answer

    _listener: Any = None

    async def _listen(self) -> None:
        if self.listen_dsn is None:
            return
        import psycopg

        self._listener = await psycopg.AsyncConnection.connect(self.listen_dsn, autocommit=True)
        await self._listener.execute(f"LISTEN {CHANNEL}")

    async def _notifications(self, timeout: float) -> list[str]:
        if self._listener is None:
            await asyncio.sleep(timeout)
            return []
        return [n.payload async for n in self._listener.notifies(timeout=timeout, stop_after=1)]

    async def _unlisten(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.close()
