"""MemoryStore: one Python method per function of pymem's SQL API.

No decisions are made here: each method converts its arguments, calls one SQL
function and returns its rows as small dataclasses. Pass your own psycopg
connection to join your transaction, a ``psycopg_pool.ConnectionPool``, or a
DSN (the store then owns an autocommit connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import itertools
import json
import math
import random
import threading
import time
import types
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID

import numpy as np
import psycopg
from pgvector.psycopg import register_vector, register_vector_async
from pgvector.psycopg.halfvec import register_halfvec_info
from pgvector.psycopg.vector import register_vector_info
from psycopg.conninfo import make_conninfo
from psycopg.rows import class_row
from psycopg.types import TypeInfo
from psycopg.types.json import Jsonb

from pymem.errors import (
    Deadlock,
    InvalidBatch,
    InvalidEmbedding,
    InvalidFactValue,
    SchemaMismatch,
    SerializationFailure,
    WrongArgumentType,
    wrap_errors,
)
from pymem.migrate import shipped_schema_version

# the newest migration this package ships; each migration records its
# number in pymem.schema_info, so the two cannot drift apart
SCHEMA_VERSION = shipped_schema_version()

Embedding = Sequence[float] | np.ndarray


@dataclass(frozen=True)
class UpsertResult:
    memory_id: UUID
    action: str
    similarity: float | None
    matched_id: UUID | None
    rule: str


@dataclass(frozen=True)
class BatchResult:
    ordinal: int
    memory_id: UUID
    action: str
    similarity: float | None
    matched_id: UUID | None
    rule: str


@dataclass
class MemoryItem:
    """One item of :meth:`MemoryStore.upsert_many`; plain dicts work too.

    Its fields are the attributes of the SQL type ``pymem.memory_item`` (a test
    holds the two equal); None means the store's default.
    """

    content: str
    embedding: Embedding
    kind: str | None = None
    importance: float | None = None
    source: str | None = None
    pinned: bool | None = None
    metadata: dict[str, Any] | None = None
    details: dict[str, Any] | None = None
    topic: str | None = None
    canonical: str | None = None
    valid_until: datetime | str | None = None
    decay_rate: float | None = None
    contacts: Sequence[str] | None = None
    dedup_threshold: float | None = None
    supersede_threshold: float | None = None
    on_related: str | None = None
    review_floor: float | None = None
    # keys sent as they are (the server names any it does not know)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Review:
    review_id: UUID
    cause: str
    memory_id: UUID | None
    matched_id: UUID | None
    fact_key: str | None
    similarity: float | None
    note: str | None
    created_at: datetime
    content: str | None
    matched_content: str | None
    # a reviewer's failed judgements of the pair so far, the last one's error, and when it
    # was parked (a person's to look at: ``unpark_reviews``)
    attempts: int = 0
    last_error: str | None = None
    parked_at: datetime | None = None


@dataclass(frozen=True)
class ClaimedReview:
    """A row of ``pymem.claim_reviews`` (the type ``pymem.claimed_review``): a related pair a
    reviewer holds until ``claimed_until``, with what a judge's prompt needs of both
    memories: ``content`` is the newer one (the memory the write returned), ``matched_*``
    its older neighbour."""

    review_id: UUID
    user_id: str
    cause: str
    memory_id: UUID
    matched_id: UUID
    similarity: float | None
    queued_at: datetime
    attempts: int
    claimed_until: datetime
    content: str
    kind: str
    topic: str | None
    created_at: datetime
    updated_at: datetime
    matched_content: str
    matched_kind: str
    matched_topic: str | None
    matched_created_at: datetime
    matched_updated_at: datetime


@dataclass(frozen=True)
class UnparkedReview:
    """A row of ``pymem.unpark_reviews``: a parked review put back, as it was."""

    review_id: UUID
    memory_id: UUID | None
    matched_id: UUID | None
    attempts: int
    last_error: str | None
    parked_at: datetime


@dataclass(frozen=True)
class ClaimedJob:
    """A row of ``pymem.claim_jobs`` (the type ``pymem.claimed_job``): a model job a worker
    holds until ``claimed_until``. ``job`` is consolidate (``key`` the topic,
    ``member_ids`` its live fragments), profile (``key`` and ``contact_id`` the person,
    ``member_ids`` their fragments) or reflect (``key`` '', ``since`` the last
    reflection, None for none)."""

    user_id: str
    job: str
    key: str
    member_ids: list[UUID] | None
    contact_id: UUID | None
    since: datetime | None
    attempts: int
    claimed_until: datetime


@dataclass(frozen=True)
class UnparkedJob:
    """A row of ``pymem.unpark_jobs``: a parked job put back, as it was."""

    job: str
    key: str
    attempts: int
    last_error: str | None
    parked_at: datetime


@dataclass(frozen=True)
class ExportRow:
    """A row of ``pymem.export_rows``: a row of one of the user's tables, as JSON."""

    table_name: str
    row_data: dict[str, Any]


@dataclass(frozen=True)
class StoredMemory:
    """A row of ``pymem.get_memories``: a live memory as it is."""

    memory_id: UUID
    kind: str
    content: str
    topic: str | None
    importance: float
    source: str
    pinned: bool
    tier: str
    mention_count: int
    details: dict[str, Any]
    metadata: dict[str, Any]
    valid_until: datetime | None
    last_access_at: datetime
    created_at: datetime
    updated_at: datetime
    version: int


@dataclass(frozen=True)
class LiveTopic:
    """A row of ``pymem.live_topics``: a topic and its most recently changed live memory."""

    topic: str
    kind: str
    content: str
    updated_at: datetime


@dataclass(frozen=True)
class MemoryVersion:
    """A row of ``pymem.memory_history``: an earlier content of the memory ``id`` and why it
    went."""

    id: UUID
    version: int
    content: str
    reason: str
    changed_at: datetime


@dataclass(frozen=True)
class ExplainStep:
    """A row of ``pymem.explain``: what one rule read about a pair, in the order the
    decision reads them; the last row is the decision."""

    step: str
    finding: str


@dataclass(frozen=True)
class RecallHit:
    memory_id: UUID
    content: str
    kind: str
    similarity: float
    decay_score: float
    score: float
    lexical: float
    importance: float
    tier: str
    pinned: bool
    topic: str | None
    details: dict[str, Any]
    last_access_at: datetime
    valid_until: datetime | None


@dataclass(frozen=True)
class DecayResult:
    scanned: int
    cooled: int
    cold_total: int


@dataclass(frozen=True)
class ImportSource:
    source: str
    lines_done: int
    digest: str | None


@dataclass(frozen=True)
class Settings:
    singleton: bool
    embedding_dimensions: int
    embedding_model: str | None
    dedup_threshold: float
    supersede_threshold: float
    topic_supersede_threshold: float
    trigram_threshold: float
    max_content_chars: int
    recall_decay_floor: float
    recall_lexical_weight: float
    recall_state_boost: float
    goal_overlap_threshold: float
    on_related: str
    dedup_term_change: float
    trigram_min_similarity: float
    contact_fuzzy_threshold: float
    contact_cjk_fuzzy_threshold: float
    contact_profile_due_count: int
    consolidation_group_size: int
    consolidation_similarity: float
    review_max_attempts: int
    cjk_dedup_threshold: float
    cjk_dedup_term_change: float
    review_floor: float | None
    cross_kind_review_floor: float
    reflect_every: int


# -- facts ----------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    key: str
    scope: str
    value: Any
    confidence: float
    source: str
    valid_until: datetime | None
    set_at: datetime
    conflict_pending: bool


@dataclass(frozen=True)
class FactHistoryEntry:
    scope: str
    value: Any
    confidence: float
    source: str
    valid_until: datetime | None
    set_at: datetime
    replaced_at: datetime | None
    reason: str


@dataclass(frozen=True)
class PendingConflict:
    review_id: UUID | None
    cause: str
    fact_key: str | None
    scope: str | None
    value: Any
    confidence: float | None
    source: str | None
    candidate_value: Any
    candidate_confidence: float | None
    candidate_source: str | None
    memory_id: UUID | None
    other_id: UUID | None
    note: str | None
    created_at: datetime


def _json_dumps(value: Any) -> str:
    try:
        return json.dumps(value)
    except TypeError as exc:
        # psycopg would let the TypeError through, from inside the call
        raise WrongArgumentType(
            f"a value the store sends as JSON is not JSON-serializable: {exc}",
            sqlstate=WrongArgumentType.sqlstate,
        ) from exc


def _text(value: Any) -> str | None:
    """An id or a name the SQL takes as text or uuid; None goes through as NULL, which
    the server refuses with its own code (str(None) acted on a contact named "None")."""
    return None if value is None else str(value)


def _object_json(value: Any) -> Jsonb | None:
    """metadata, details, attributes: sent as they are (a mapping as its object), so that
    the server refuses what is not a JSON object with its own code; None is NULL."""
    if value is None:
        return None
    return _jsonb(dict(value) if isinstance(value, Mapping) else value)


def _jsonb(value: Any) -> Jsonb:
    """A jsonb parameter; a value JSON cannot hold (a datetime, a set) is
    WrongArgumentType, as a value the driver cannot send."""
    return Jsonb(value, dumps=_json_dumps)


def _fact_json(value: Any) -> str | None:
    """A fact value as JSON text; None goes through for the server's PM021."""
    if value is None:
        return None
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidFactValue(
            f"fact value must be JSON-serializable, got {type(value).__name__}: {exc}",
            sqlstate=InvalidFactValue.sqlstate,
        ) from exc


# -- contacts: rows ----------------------------------------------------------


@dataclass(frozen=True)
class ContactMatch:
    contact_id: UUID
    name: str
    match: str
    score: float


@dataclass(frozen=True)
class MentionedContact:
    contact_id: UUID
    name: str
    relationship: str | None
    matched: str


@dataclass(frozen=True)
class ContactMemory:
    memory_id: UUID
    content: str
    kind: str
    found_by: str
    importance: float
    decay_score: float
    created_at: datetime


@dataclass(frozen=True)
class RecentContact:
    contact_id: UUID
    name: str
    relationship: str | None
    last_mentioned_at: datetime | None


# -- consolidation rows ---------------------------------------------------------


@dataclass(frozen=True)
class ConsolidationGroup:
    group_no: int
    size: int
    member_ids: list[UUID]
    topic: str | None
    mean_similarity: float | None
    edges: int


@dataclass(frozen=True)
class MaintenanceResult:
    op_index: int
    op: str
    memory_id: UUID
    result: str


# -- quality rows -------------------------------------------------------------


@dataclass(frozen=True)
class SetupStep:
    """A row of ``pymem.setup``: a step it took and what it did."""

    step: str
    detail: str


@dataclass(frozen=True)
class PartitionedTable:
    table_name: str
    partition_count: int
    rows_moved: int
    # False: the table was partitioned before this call
    converted: bool


@dataclass(frozen=True)
class DistributedObject:
    """A row of ``pymem.distribute_by_user`` (docs/scaling.md)."""

    object_name: str
    # table or function
    object_type: str
    # 'distributed by user_id', 'reference' or 'delegated by user_id'
    distribution: str
    # False: it was distributed before this call
    converted: bool


@dataclass(frozen=True)
class QualityReport:
    users: int
    live_memories: int
    duplicate_pairs: int
    duplicate_memories: int
    duplicate_rate: float
    pending_reviews: int
    pending_conflicts: int
    contradiction_rate: float
    cold_memories: int
    cold_share: float
    consolidated_memories: int
    consolidated_share: float


def _plan_json(ops: Sequence[Mapping[str, Any]]) -> Any:
    if not isinstance(ops, list | tuple):
        # one op, or no list at all: the server says the plan must be an array (iterated,
        # a mapping gave its keys, and "op 1: must be a JSON object, got string")
        return ops
    plan: list[Any] = []
    for op in ops:
        if not isinstance(op, Mapping):
            plan.append(op)  # the server names the op that is not an object
            continue
        data = dict(op)
        embedding = data.get("embedding")
        if isinstance(embedding, np.ndarray):
            embedding = embedding.tolist()
        if isinstance(embedding, list | tuple):
            data["embedding"] = [_json_number(x) for x in embedding]
        if isinstance(data.get("ids"), list | tuple):
            data["ids"] = [str(i) for i in data["ids"]]
        if isinstance(data.get("id"), UUID):
            data["id"] = str(data["id"])
        plan.append(data)
    return plan


def configure_connection(conn: psycopg.Connection) -> None:
    """Register the vector types; pass as ``ConnectionPool(configure=...)``. A connection
    that is not autocommit is left idle, as the pool wants it (its queries opened a
    transaction, which ends here)."""
    _wait(_configured(conn))


def _configured(conn: Any) -> _Steps[None]:
    """:func:`_register_vector` for a pool's ``configure``: the transaction its queries
    opened on an idle connection that is not autocommit is rolled back (it only read), else
    the pool discards the connection ("connection left in status INTRANS")."""
    opens = not conn.autocommit and _idle(conn)
    try:
        yield from _register_vector(conn)
    except GeneratorExit:
        raise  # closed by the driver: no step can be performed now
    except BaseException:
        if opens and not _idle(conn) and not conn.closed:
            yield conn.rollback
        raise
    if opens and not _idle(conn):
        yield conn.rollback


# -- the plumbing of both stores, written once as steps -----------------------------------
#
# As psycopg's sync and async connections share BaseConnection's generators, a store's
# plumbing (which connection, what its first use checks, the user a call runs as, the
# errors it raises, when it runs again) is written once, as generators that yield each
# I/O step they need: a callable whose result they go on with. One driver runs them
# (_performed); MemoryStore runs it to its end (_wait), AsyncMemoryStore awaits it
# (_awaited). A step's exception is thrown back in at its yield, so try/finally, `with`
# blocks and wrap_errors() in the generators work as anywhere.

_T = TypeVar("_T")
# steps that end with a _T
_Steps = Generator[Any, Any, _T]


def _performed(steps: _Steps[_T]) -> _Steps[_T]:
    """Runs ``steps``: calls each step and sends its result back, or throws its exception
    back in. A result that is awaitable (an async connection's, cursor's, pool's or
    lock's coroutine) is awaited first: this generator is then awaited itself, as
    generator-based coroutines were before ``async def``. A connection yielded in place
    of a step (:func:`_lend`) is yielded on, to :meth:`MemoryStore._connection`'s
    with-block, whose exception comes back the same way."""
    try:
        return (yield from _driven(steps))
    finally:
        if inspect.getgeneratorstate(steps) != inspect.GEN_CLOSED:
            # left by an exception that landed in the driver itself: closed here, so that
            # the steps' finally clauses let go of the lock now, not when (if ever) the
            # traceback is dropped; what their transaction did, the next call rolls back
            steps.close()


def _driven(steps: _Steps[_T]) -> _Steps[_T]:
    """:func:`_performed`'s loop."""
    send, value = steps.send, None
    while True:
        try:
            step = send(value)
            if isinstance(step, psycopg.Connection):
                value = yield step
            else:
                value = step()
                if inspect.isawaitable(value):
                    value = yield from value.__await__()
            send = steps.send
        except BaseException as exc:
            if inspect.getgeneratorstate(steps) == inspect.GEN_CLOSED:
                if isinstance(exc, StopIteration):
                    return exc.value
                raise  # the steps' own, out of their handlers
            # a step's exception, or a Ctrl-C that landed here between two steps (after
            # a step was performed, before its result went in): thrown back in, so that
            # the steps' own handlers roll back and let go, as for any other error
            send, value = steps.throw, exc


def _wait(steps: _Steps[_T]) -> _T:
    """``steps`` run to their end, as MemoryStore runs them."""
    try:
        next(_performed(steps))
    except StopIteration as done:
        return done.value
    raise AssertionError("only MemoryStore._connection lends its connection")


@types.coroutine
def _awaited(steps: _Steps[_T]) -> _Steps[_T]:
    """``steps`` run to their end, awaited, as AsyncMemoryStore runs them."""
    return (yield from _performed(steps))


def _sync_and_async(
    steps: Callable[..., Any], name: str
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """A generator of steps (pymem.extract, pymem.jobs: calls of a store and a model
    client) as a function that runs them and its async twin, which awaits what an
    AsyncMemoryStore or an async client returns; both keep the steps' signature and
    doc."""

    @functools.wraps(steps)
    def run(*args: Any, **kwargs: Any) -> Any:
        return _wait(steps(*args, **kwargs))

    @functools.wraps(steps)
    async def arun(*args: Any, **kwargs: Any) -> Any:
        return await _awaited(steps(*args, **kwargs))

    run.__name__, arun.__name__ = name, "a" + name
    run.__qualname__, arun.__qualname__ = name, "a" + name
    return run, arun


def _lend(conn: psycopg.Connection) -> _Steps[None]:
    """The body of a session whose work is a with-block (:meth:`MemoryStore._connection`)."""
    yield conn


class _Context:
    """A context manager of either kind (a pool's connection, a transaction) entered and
    left as steps of :func:`_within`. Each step records what it did in the line that does
    it, so an exception thrown in at a step's yield (a Ctrl-C that landed in the driver
    before or after the step was performed) leaves the context exactly when it was
    entered, and never twice."""

    def __init__(self, cm: Any) -> None:
        self._cm = cm
        self._is_async = hasattr(cm, "__aenter__")
        self.entered = False
        self.value: Any = None

    def enter(self) -> Any:
        if self._is_async:
            return self._entered_after()
        self.value, self.entered = self._cm.__enter__(), True
        return None

    async def _entered_after(self) -> None:
        self.value, self.entered = await self._cm.__aenter__(), True

    def leave(self, exc: BaseException | None) -> Any:
        info = (None, None, None) if exc is None else (type(exc), exc, exc.__traceback__)
        if self._is_async:
            return self._left_after(info)
        # marked left as the exit starts, in the same line: it never runs twice
        return setattr(self, "entered", False) or self._cm.__exit__(*info)

    async def _left_after(self, info: tuple[Any, Any, Any]) -> Any:
        return setattr(self, "entered", False) or await self._cm.__aexit__(*info)

    def abandon(self) -> None:
        """Closed by the driver (:func:`_performed`), where no step can be performed: a
        sync context still entered is left now (an async one's exit must be awaited: the
        store's next call rolls back what it left, :meth:`_StoreCore._rolled_back`)."""
        if self.entered and not self._is_async:
            with contextlib.suppress(Exception):  # left as it can be, on the way out
                self.leave(GeneratorExit())


def _within(cm: Any, body: Callable[[Any], _Steps[_T]]) -> _Steps[_T | None]:
    """``with cm as value: return body(value)``, its enter and exit steps of their own,
    for a context manager of either kind (a pool's connection, a transaction)."""
    context = cm if isinstance(cm, _Context) else _Context(cm)
    try:
        yield context.enter
        result = yield from body(context.value)
    except GeneratorExit:
        context.abandon()
        raise
    except BaseException as exc:
        if not context.entered:
            raise  # entering failed, or was not performed
        if not (yield from _left(context, exc)):
            raise
        return None
    yield from _left(context, None)
    return result


def _left(context: _Context, exc: BaseException | None) -> _Steps[Any]:
    """``context``'s exit step (with ``exc``, None: none), until it was performed: an
    exception thrown in before it was (a Ctrl-C) is the one it leaves with, then raised."""
    try:
        return (yield functools.partial(context.leave, exc))
    except GeneratorExit:
        context.abandon()
        raise
    except BaseException as again:
        if not context.entered:
            raise  # the exit's own error, or one after it
        if not (yield from _left(context, again)):
            raise
        return True


def _fetchone(conn: Any, query: str, params: Sequence[Any] = ()) -> _Steps[Any]:
    """``conn.execute(query, params).fetchone()``."""
    cursor = yield functools.partial(conn.execute, query, params)
    return (yield cursor.fetchone)


def _fetchall(conn: Any, query: str, params: Sequence[Any], row_type: type) -> _Steps[list[Any]]:
    """The rows of ``query`` as ``row_type``."""
    cursor = conn.cursor(row_factory=class_row(row_type))
    try:
        yield functools.partial(cursor.execute, query, params)
        result = yield cursor.fetchall
    except GeneratorExit:
        raise  # closed by the driver: the cursor goes with its connection
    except BaseException:
        yield cursor.close
        raise
    yield cursor.close
    return result


# pgvector's schema (the extension may live in a schema of its own)
_VECTOR_SCHEMA = (
    "SELECT quote_ident(n.nspname) FROM pg_extension AS e"
    " JOIN pg_namespace AS n ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
)
_VECTOR_TYPES = (("vector", register_vector_info), ("halfvec", register_halfvec_info))


def _register_vector(conn: Any) -> _Steps[str]:
    """Register pgvector's types wherever the extension lives; returns the
    type's name as SQL can spell it from any search_path."""
    found = yield from _fetchone(conn, _VECTOR_SCHEMA)
    if found is None or found[0] == "public":
        is_async = isinstance(conn, psycopg.AsyncConnection)
        yield functools.partial(register_vector_async if is_async else register_vector, conn)
        return "vector"
    for name, register in _VECTOR_TYPES:
        info = yield functools.partial(TypeInfo.fetch, conn, f"{found[0]}.{name}")
        if info is not None:
            register(conn, info)
    return f"{found[0]}.vector"


# pymem._set_user: set_config(), or on Citus a SET LOCAL that Citus repeats on the
# workers the call runs on (docs/scaling.md)
_SET_USER = "SELECT pymem._set_user(%s)"
# the target list runs left to right: the previous value, then the new one
_SWAP_USER = "SELECT current_setting('pymem.user_id', true), pymem._set_user(%s)"


def _as_user(
    conn: Any,
    user_id: str | None,
    body: Callable[[], _Steps[_T]],
    opening: Callable[[_Context], None] = lambda _: None,
) -> _Steps[_T]:
    """Run one call with ``pymem.user_id`` set to its user, transaction-locally
    (row-level security for pymem_app): in a transaction of its own on an idle
    autocommit (DSN or pooled) connection, else in the caller's transaction,
    whose previous setting is restored after the call (in a savepoint of the
    call's own when the caller's block is ``with conn.transaction()`` on an
    autocommit connection, as psycopg nests it). ``opening`` is given the transaction
    of the call's own (a :class:`_Context`) before it is entered."""
    if not isinstance(user_id, str):
        # no user (decay, settings), or a wrong type the server refuses
        return (yield from body())
    if not conn.autocommit:
        return (yield from _swapped_user(conn, user_id, body))
    if _in_open_transaction(conn):
        savepoint = conn.transaction()
        return (yield from _within(savepoint, lambda _: _swapped_user(conn, user_id, body)))
    transaction = _Context(conn.transaction())
    opening(transaction)
    return (yield from _within(transaction, lambda _: _set_user(conn, user_id, body)))


def _set_user(conn: Any, user_id: str, body: Callable[[], _Steps[_T]]) -> _Steps[_T]:
    yield functools.partial(conn.execute, _SET_USER, (user_id,))
    return (yield from body())


def _swapped_user(conn: Any, user_id: str, body: Callable[[], _Steps[_T]]) -> _Steps[_T]:
    previous, _ = yield from _fetchone(conn, _SWAP_USER, (user_id,))
    try:
        result = yield from body()
    except GeneratorExit:
        raise  # closed by the driver: no step can be performed now
    except BaseException:
        yield from _restored_user(conn, user_id, previous)
        raise
    yield from _restored_user(conn, user_id, previous)
    return result


def _restored_user(conn: Any, user_id: str, previous: str | None) -> _Steps[None]:
    # also when the call failed before reaching the server (a value psycopg
    # cannot send): the transaction goes on, as the caller's user; after a
    # server error it is aborted and its rollback restores the setting
    if previous != user_id and _in_open_transaction(conn):
        yield functools.partial(conn.execute, _SET_USER, (previous or "",))


def _in_open_transaction(conn: psycopg.Connection | psycopg.AsyncConnection) -> bool:
    return conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS


def _idle(conn: psycopg.Connection | psycopg.AsyncConnection) -> bool:
    return conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


class _Hold:
    """A store's lock taken for one call, let go only by the call that took it: the
    lock is taken and recorded held in one line, and let go and recorded free in one,
    so an interrupted call lets go of a lock it took, once, and never of one another
    thread (task) holds. Letting go twice is letting go once: the session's finally and
    the call's outermost one both do (a Ctrl-C may land in the first)."""

    def __init__(self, lock: Any) -> None:
        self._lock, self._held = lock, False

    def take(self) -> Any:
        if isinstance(self._lock, asyncio.Lock):
            return self._taken_after()
        self._held = self._lock.acquire()
        return None

    async def _taken_after(self) -> None:
        self._held = await self._lock.acquire()

    def let_go(self) -> None:
        if self._held:
            self._held = self._lock.release() or False


def _spelled(query: str, vector_type: str | None) -> str:
    """A call's SQL with pgvector's type named by its schema when it is not public."""
    if vector_type is None or vector_type == "vector":
        return query
    return query.replace("::vector", f"::{vector_type}")


def _embedding_fault(embedding: Any) -> str | None:
    """What an embedding holds that numpy would take for numbers and no embedding is:
    booleans (numpy's 1 and 0) or complex numbers (whose imaginary part numpy drops);
    None when neither. The one check of every call that sends an embedding (upsert,
    recall, consolidate, upsert_many, import_memories)."""
    if isinstance(embedding, np.ndarray):
        kinds = {embedding.dtype.kind}
        if "O" in kinds:  # objects: look at them as in a list
            kinds = {np.asarray(x).dtype.kind for x in embedding.ravel()}
    elif isinstance(embedding, str | bytes | Iterator) or not isinstance(embedding, Iterable):
        return None  # refused as they are (an iterator is not read here)
    else:
        # the types are read in C (a generator over 512 elements cost a third of a
        # millisecond per item)
        kinds = {np.dtype(t).kind for t in set(map(type, embedding)) if _numpy_scalar(t)}
    if "b" in kinds:
        return "booleans"
    if "c" in kinds:
        return "complex numbers"
    return None


def _numpy_scalar(t: type) -> bool:
    return issubclass(t, bool | complex | np.bool_ | np.complexfloating)


def _refused_embedding(fault: str, item: int | None = None) -> InvalidEmbedding:
    where = "" if item is None else f"item {item}: "
    return InvalidEmbedding(
        f"{where}embedding must be an array of real numbers, got {fault}", sqlstate="PM005"
    )


def _vector(embedding: Embedding | None) -> np.ndarray | None:
    # None goes through so that the server refuses it with its SQLSTATE.
    if embedding is None:
        return None
    if isinstance(embedding, str | bytes):
        raise InvalidEmbedding(
            "embedding must be a sequence of numbers, got a string", sqlstate="PM005"
        )
    fault = _embedding_fault(embedding)
    if fault is not None:
        raise _refused_embedding(fault)
    try:
        vector = np.asarray(embedding, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidEmbedding(
            f"embedding must be a sequence of numbers: {exc}", sqlstate="PM005"
        ) from exc
    if vector.ndim != 1:
        raise InvalidEmbedding(
            f"embedding must be one-dimensional, got shape {vector.shape}", sqlstate="PM005"
        )
    return vector


def _texts(values: Sequence[str] | None, name: str) -> list[str] | None:
    """A list parameter (contacts, aliases, kinds) as a list; a lone string would be
    iterated into its characters (kinds="fact" filtered on 'f', 'a', 'c', 't')."""
    if values is None:
        return None
    if isinstance(values, str | bytes):
        raise WrongArgumentType(
            f"{name} must be a list of strings, got a single string {values!r}",
            sqlstate=WrongArgumentType.sqlstate,
        )
    return list(values)


def _ids(values: Sequence[UUID | str] | None, name: str) -> list[str] | None:
    """A list of memory ids as strings; a lone id is refused like a lone string."""
    if values is None:
        return None
    if isinstance(values, str | bytes | UUID):
        raise WrongArgumentType(
            f"{name} must be a list of ids, got a single {type(values).__name__}",
            sqlstate=WrongArgumentType.sqlstate,
        )
    return [_text(i) for i in values]


def _json_number(x: Any) -> Any:
    # JSON has no NaN or infinity: send them as strings, which the server
    # refuses as "not a number" (PM005) naming the item.
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


def _item_json(item: MemoryItem | Mapping[str, Any]) -> dict[str, Any]:
    data = _item_json_raw(item)
    embedding = data.get("embedding")
    if isinstance(embedding, np.ndarray):
        embedding = embedding.tolist()
    if isinstance(embedding, list | tuple):
        data["embedding"] = [_json_number(x) for x in embedding]
    if isinstance(data.get("valid_until"), datetime):
        data["valid_until"] = data["valid_until"].isoformat()
    return data


def _batch(items: Any) -> Any:
    """A batch given as an iterator (a generator) as a list, read once: the typed form
    and the JSON one (or the item at fault) read it each."""
    return list(items) if isinstance(items, Iterator) else items


def _typed_batch(
    items: Sequence[MemoryItem | Mapping[str, Any]],
) -> tuple[list[Any], list[np.ndarray], list[dict[str, Any]] | None] | None:
    """Contents, float32 vectors and the other keys of a batch, for its typed form,
    upsert_memory_arrays (binary vector[], no JSON to parse); None when an item is not plain
    (a missing or non-numeric embedding, NaN): the JSON form then names its fault."""
    contents: list[Any] = []
    vectors: list[np.ndarray] = []
    options: list[dict[str, Any]] = []
    for n, item in enumerate(items, 1):
        data = _item_json_raw(item)
        embedding = data.pop("embedding", None)
        content = data.pop("content", None)
        fault = _embedding_fault(embedding)
        if fault is not None:
            raise _refused_embedding(fault, n)  # as upsert and recall refuse it
        if not isinstance(content, str) or embedding is None:
            return None
        try:
            vector = np.asarray(embedding, dtype=np.float32)
        except (TypeError, ValueError):
            return None
        if vector.ndim != 1 or vector.size == 0 or not np.isfinite(vector).all():
            return None
        contents.append(content)
        vectors.append(vector)
        options.append(_item_json(data))
    return contents, vectors, (options if any(options) else None)


def _item_json_raw(item: MemoryItem | Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(item, MemoryItem | Mapping):
        raise InvalidBatch(
            f"a batch item must be a MemoryItem or a mapping, got {type(item).__name__}",
            sqlstate="PM010",
        )
    if isinstance(item, MemoryItem):
        data = {k: v for k, v in asdict(item).items() if v is not None and k != "extra"}
        data.update(item.extra)
        return data
    return dict(item)


@dataclass(frozen=True)
class _Call:
    """One SQL statement a store method sends, and how its result comes back.

    Every public method of :class:`MemoryStore` builds one ``_Call`` (the SQL lives
    there, once); ``_StoreCore._call`` is its way, which ``MemoryStore._run`` runs
    on a connection and ``AsyncMemoryStore._run`` awaits on an async one.
    """

    query: str
    params: Sequence[Any] = ()
    # rows as this dataclass; None: the first column of the first row
    row_type: type | None = None
    # exactly one row of row_type instead of a list
    one: bool = False
    # whose data the call reads or writes (None: the store's settings or all users)
    user_id: str | None = None


def _sql(builder: Callable[..., _Call]) -> Callable[..., Any]:
    """A store method whose body builds the :class:`_Call` it sends; the method runs it."""

    @functools.wraps(builder)
    def method(self: MemoryStore, *args: Any, **kwargs: Any) -> Any:
        return self._run(builder(self, *args, **kwargs))

    method.__pymem_call__ = builder  # type: ignore[attr-defined]
    return method


def _sql_methods(cls: type) -> dict[str, Callable[..., _Call]]:
    """The builders of ``cls``'s SQL methods, by method name."""
    return {
        name: attr.__pymem_call__
        for name, attr in vars(cls).items()
        if hasattr(attr, "__pymem_call__")
    }


# Whether the schema exists, then its version: the first call of a store checks both.
_HAS_SCHEMA = "SELECT CASE WHEN to_regproc('pymem.schema_version') IS NOT NULL THEN 0 END"
_SCHEMA_VERSION = "SELECT pymem.schema_version()"


def _check_version(version: int | None, conn: psycopg.Connection | psycopg.AsyncConnection) -> None:
    if version is None:
        raise SchemaMismatch(
            f"this database has no pymem schema yet (this package needs version "
            f"{SCHEMA_VERSION}): run `{_migrate_command(conn)}`"
        )
    if version != SCHEMA_VERSION:
        raise SchemaMismatch(
            f"database schema pymem is at version {version}, this package needs "
            f"{SCHEMA_VERSION}: run `{_migrate_command(conn)}`"
        )


def _migrate_command(conn: psycopg.Connection | psycopg.AsyncConnection) -> str:
    """The command that migrates the database ``conn`` is on (a bare `pymem migrate`
    migrates the default store, not this one); no password in it."""
    import shlex

    info = conn.info
    target = make_conninfo(host=info.host, port=info.port, dbname=info.dbname, user=info.user)
    return f"pymem --dsn {shlex.quote(target)} migrate"


# a serialization failure or deadlock is retried this many times, after a
# short random wait that doubles each time
RETRIES = 3


def _backoff(attempt: int) -> float:
    return random.uniform(0.005, 0.02) * 2**attempt


def _kind_of(db: Any, connection_class: type) -> str | None:
    """What a store of ``connection_class``'s kind (sync or async) was given: "dsn",
    "connection" or "pool"; None for anything else, a connection or a pool of the
    other kind too (an AsyncConnectionPool's getconn is a coroutine function)."""
    if isinstance(db, str):
        return "dsn"
    if isinstance(db, connection_class):
        return "connection"
    other_connection = isinstance(db, psycopg.Connection | psycopg.AsyncConnection)
    if other_connection or not hasattr(db, "connection"):
        return None
    getconn = getattr(db, "getconn", None)
    wants_async = connection_class is psycopg.AsyncConnection
    if getconn is not None and inspect.iscoroutinefunction(getconn) != wants_async:
        return None
    return "pool"


@dataclass
class _Attempt:
    """One run of a call: whether it had a transaction of its own (:meth:`_StoreCore._alone`),
    known once its connection is ready."""

    alone: bool = False


_Store = TypeVar("_Store", bound="_StoreCore")


class _StoreCore:
    """What MemoryStore and AsyncMemoryStore share: what the store was given, its state,
    and every call's way as steps (:meth:`_call`), which each store only runs."""

    # each store's own: its connections, the error for anything else, whether a DSN's
    # connection opens with the store (else on first use), its lock and its sleep
    _connection_class: type
    _refusal: str
    _connects_at_once: bool
    _new_lock: Callable[[], Any]
    _sleep: Callable[[float], Any]

    def __init__(
        self,
        db: str | psycopg.Connection | psycopg.AsyncConnection | Any,
        *,
        check_schema: bool = True,
        retries: int = RETRIES,
    ):
        kind = _kind_of(db, self._connection_class)
        if kind is None:
            raise TypeError(self._refusal)
        self._dsn: str | None = db if kind == "dsn" else None
        self._conn: Any = db if kind == "connection" else None  # a DSN's once opened
        self._pool: Any = db if kind == "pool" else None
        self._owned: Any = None  # the connection opened from the DSN
        self._closed = False
        self._check_schema = check_schema
        self._vector_type: str | None = None  # pgvector's type, as SQL spells it
        self._retries = retries
        self._lock = self._new_lock()
        # the transaction the store's last call opened on the caller's autocommit
        # connection (:meth:`_rolled_back`)
        self._opened: Any = None
        if self._dsn is not None and self._connects_at_once:
            with wrap_errors():  # ConnectionLost, as the async store's first call says
                _wait(self._own_connection())

    @classmethod
    def open(cls: type[_Store], dsn: str | None = None) -> _Store:
        """A store on ``dsn``, ``PYMEM_DSN`` or the embedded server."""
        from pymem.server import resolve_dsn

        return cls(resolve_dsn(dsn))

    def _close(self) -> _Steps[None]:
        """Refuse calls from now on, and close the connection opened from the DSN."""
        self._closed = True
        owned, self._owned = self._owned, None
        if owned is not None:
            self._conn = None
            yield owned.close

    def _call(self, call: _Call, hold: _Hold) -> _Steps[Any]:
        """Every SQL call of the store. A serialization failure or a deadlock is retried
        when the call ran in a transaction of its own (:meth:`_alone`): nothing of it was
        kept, so running it again is safe. In the caller's transaction it is raised: the
        caller's work is lost too. ``hold`` is the store's lock, as the call holds it
        (:meth:`_session`)."""
        body = functools.partial(self._execute, call)
        for attempt in itertools.count():
            run = _Attempt()
            try:
                with wrap_errors():
                    result = yield from self._session(call.user_id, body, hold, run)
            except (SerializationFailure, Deadlock):
                if attempt >= self._retries or not run.alone:
                    raise
            else:
                if call.one and call.row_type is not None:
                    (result,) = result
                return result
            yield functools.partial(self._sleep, _backoff(attempt))
        raise AssertionError("unreachable")

    def _execute(self, call: _Call, conn: Any) -> _Steps[Any]:
        query = _spelled(call.query, self._vector_type)
        if call.row_type is None:
            return (yield from _fetchone(conn, query, call.params))[0]
        return (yield from _fetchall(conn, query, call.params, call.row_type))

    def _session(
        self,
        user_id: str | None,
        body: Callable[[Any], _Steps[_T]],
        hold: _Hold,
        attempt: _Attempt | None = None,
    ) -> _Steps[_T]:
        """``body(conn)`` on a ready connection for one call about ``user_id``'s data
        (None: no one user), with ``pymem.user_id`` that user for the call
        (:func:`_as_user`); a DSN's connection that broke is replaced on the next call.
        ``hold``: the store's lock for the call, which the caller lets go of too, in its
        outermost finally (:meth:`MemoryStore._run`)."""
        if self._pool is not None:
            ready = functools.partial(self._ready, user_id, body, attempt)
            return (yield from _within(self._pool.connection(), ready))
        # one connection, one call at a time: psycopg serializes statements, not the
        # per-call transaction, so two threads' (tasks') calls would nest in one transaction
        try:
            yield hold.take
            conn = yield from self._own_connection()
            try:
                return (yield from self._ready(user_id, body, attempt, conn))
            except psycopg.OperationalError:
                if conn is self._owned and conn.broken:
                    yield conn.close  # the next call reconnects
                raise
        finally:
            hold.let_go()

    def _own_connection(self) -> _Steps[Any]:
        """The store's connection; one opened from a DSN is replaced once it broke
        (server restart, terminated backend): the call that failed raised
        ConnectionLost, the next one runs on a new connection."""
        if self._closed:
            raise psycopg.OperationalError("the store is closed")
        if self._owned is not None and not self._owned.closed and not _idle(self._owned):
            # between two calls the store's own connection is idle, unless a Ctrl-C
            # interrupted the last one where no handler could end its transaction: a
            # new call must not join (and see) that call's uncommitted work
            yield self._owned.close
        if self._dsn is not None and (self._owned is None or self._owned.closed):
            connect = self._connection_class.connect
            self._owned = self._conn = yield functools.partial(connect, self._dsn, autocommit=True)
        return self._conn

    def _ready(
        self,
        user_id: str | None,
        body: Callable[[Any], _Steps[_T]],
        attempt: _Attempt | None,
        conn: Any,
    ) -> _Steps[_T]:
        """The call's part on its connection: checked (:meth:`_prepare`), as its user."""
        yield from self._rolled_back(conn)
        if attempt is not None:
            attempt.alone = self._alone(conn)
        yield from self._prepare(conn)

        def opening(transaction: _Context) -> None:
            if self._pool is None:  # a pool's connection is left with its transaction
                self._opened = (conn, transaction)

        return (yield from _as_user(conn, user_id, lambda: body(conn), opening))

    def _rolled_back(self, conn: Any) -> _Steps[None]:
        """The transaction a call of the store opened on ``conn`` (an autocommit one:
        the caller's, a pool's) is still open only when a Ctrl-C interrupted that call
        where no handler could end it: it is rolled back, else this call would take it
        for the caller's transaction, join it, and nothing would commit either (the
        store's own connection is replaced instead, :meth:`_own_connection`)."""
        if self._opened is None:
            return
        opened_on, transaction = self._opened
        if opened_on is conn and transaction.entered:
            # left with a Rollback, which its transaction swallows
            yield functools.partial(transaction.leave, psycopg.Rollback())
        self._opened = None

    def _alone(self, conn: Any) -> bool:
        """Whether a call that starts on ``conn`` has a transaction of its own: on a
        pool's connection, or on an autocommit one with no transaction open (a DSN
        store's always; the caller's outside its ``with conn.transaction()`` blocks)."""
        return self._pool is not None or (conn.autocommit and not _in_open_transaction(conn))

    def _prepare(self, conn: Any) -> _Steps[None]:
        """What a store checks on a connection before its call: the schema's version
        (once), pgvector's types (registered on each new connection)."""
        if self._check_schema:
            found = yield from _fetchone(conn, _HAS_SCHEMA)
            version = None
            if found and found[0] is not None:
                version = (yield from _fetchone(conn, _SCHEMA_VERSION))[0]
            _check_version(version, conn)
            self._check_schema = False
        if conn.adapters.types.get("vector") is None:
            self._vector_type = yield from _register_vector(conn)
        elif self._vector_type is None:  # registered by the pool's configure
            found = yield from _fetchone(conn, _VECTOR_SCHEMA)
            self._vector_type = f"{found[0]}.vector" if found and found[0] != "public" else "vector"


class MemoryStore(_StoreCore):
    """The SQL API of one pymem store, from Python.

    Each public method builds the one SQL call it makes (a :class:`_Call`) and
    ``_run`` sends it: :class:`AsyncMemoryStore` is derived from these methods.
    """

    _connection_class = psycopg.Connection
    _refusal = "MemoryStore needs a DSN, a psycopg Connection or a ConnectionPool"
    _connects_at_once = True
    _new_lock = staticmethod(threading.Lock)
    _sleep = staticmethod(time.sleep)

    def close(self) -> None:
        _wait(self._close())

    def __enter__(self) -> MemoryStore:
        return self

    def remember(self, user_id: str, messages: Any, chat: Any, embed: Any, **options: Any) -> Any:
        """Extract the memories of a conversation with a model and write them
        (:func:`pymem.extract.remember`; ``chat`` a :class:`~pymem.chat.ChatClient`, of
        an AsyncMemoryStore an :class:`~pymem.chat.AsyncChatClient`; ``embed`` the
        store's embedder; ``chunk``, ``max_topics``, ``structured``)."""
        from pymem.extract import remember

        return remember(self, user_id, messages, chat, embed, **options)

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _connection(self, user_id: str | None = None) -> Iterator[psycopg.Connection]:
        """A ready connection for pymem's own SQL (the CLI's, eval's): the with-block
        runs where a call would (:meth:`_session`), errors unmapped."""
        hold = _Hold(self._lock)
        try:
            yield from _performed(self._session(user_id, _lend, hold))
        finally:
            hold.let_go()

    def _run(self, call: _Call) -> Any:
        """Every SQL call of the store goes through here (:meth:`_call`)."""
        hold = _Hold(self._lock)
        try:
            return _wait(self._call(call, hold))
        finally:
            hold.let_go()  # when a Ctrl-C landed in the session's own finally

    # -- write path --------------------------------------------------------

    @_sql
    def upsert(
        self,
        user_id: str,
        content: str,
        embedding: Embedding,
        kind: str | None = None,
        *,
        importance: float | None = None,
        source: str | None = None,
        pinned: bool | None = None,
        metadata: Mapping[str, Any] | None = None,
        details: Mapping[str, Any] | None = None,
        topic: str | None = None,
        canonical: str | None = None,
        valid_until: datetime | None = None,
        decay_rate: float | None = None,
        dedup_threshold: float | None = None,
        supersede_threshold: float | None = None,
        on_related: str | None = None,
        contacts: Sequence[str] | None = None,
        review_floor: float | None = None,
    ) -> UpsertResult:
        """``pymem.upsert_memory``: insert, or recognise a duplicate or an update.

        The options are the fields of ``pymem.memory_item`` (and of :class:`MemoryItem`),
        by the same names; None is the store's default (kind ``fact``, importance 0.5,
        source ``stated``, ...), which the server alone sets."""
        return _Call(
            "SELECT * FROM pymem.upsert_memory(%s, %s, %s, %s,"
            " importance => %s, source => %s, pinned => %s, metadata => %s,"
            " details => %s, topic => %s, canonical => %s, valid_until => %s,"
            " decay_rate => %s, dedup_threshold => %s, supersede_threshold => %s,"
            " on_related => %s, contacts => %s, review_floor => %s)",
            (
                user_id,
                content,
                _vector(embedding),
                kind,
                importance,
                source,
                pinned,
                _object_json(metadata),
                _object_json(details),
                topic,
                canonical,
                valid_until,
                decay_rate,
                dedup_threshold,
                supersede_threshold,
                on_related,
                _texts(contacts, "contacts"),
                review_floor,
            ),
            UpsertResult,
            one=True,
            user_id=user_id,
        )

    @_sql
    def upsert_many(
        self,
        user_id: str,
        items: Sequence[MemoryItem | Mapping[str, Any]],
        *,
        dedup_threshold: float | None = None,
        supersede_threshold: float | None = None,
        on_related: str | None = None,
    ) -> list[BatchResult]:
        """``pymem.upsert_memories``: a batch in one call, one row per item.

        Sent in the typed form, ``pymem.upsert_memory_arrays`` (contents, binary vectors,
        other keys as JSON), when every item is plain, else as one JSON array; the server
        decides the same either way."""
        items = _batch(items)
        typed = _typed_batch(items)
        if typed is not None:
            contents, vectors, options = typed
            return _Call(
                "SELECT * FROM pymem.upsert_memory_arrays(%s, %s::text[], %b::vector[], %s,"
                " dedup_threshold => %s, supersede_threshold => %s, on_related => %s)",
                (
                    user_id,
                    contents,
                    vectors,
                    None if options is None else _jsonb(options),
                    dedup_threshold,
                    supersede_threshold,
                    on_related,
                ),
                BatchResult,
                user_id=user_id,
            )
        return _Call(
            "SELECT * FROM pymem.upsert_memories(%s, %s::jsonb,"
            " dedup_threshold => %s, supersede_threshold => %s, on_related => %s)",
            (
                user_id,
                _jsonb([_item_json(i) for i in items]),
                dedup_threshold,
                supersede_threshold,
                on_related,
            ),
            BatchResult,
            user_id=user_id,
        )

    # -- review claims (reviewers: pymem.review, docs/review-worker.md) ---------

    @_sql
    def claim_reviews(
        self, user_id: str | None, worker: str, k: int = 10, *, lease: float = 600.0
    ) -> list[ClaimedReview]:
        """``pymem.claim_reviews``: up to ``k`` open related reviews of the user (None: of
        every user the store's role sees) held by ``worker`` for ``lease`` seconds; no
        other reviewer gets them meanwhile."""
        return _Call(
            "SELECT * FROM pymem.claim_reviews(%s, %s, %s, lease => %s)",
            (user_id, worker, k, lease),
            ClaimedReview,
            user_id=user_id,
        )

    @_sql
    def release_review(
        self,
        user_id: str,
        review_id: UUID | str,
        worker: str,
        error: str | None = None,
        *,
        retry_after: float = 0.0,
    ) -> str:
        """``pymem.release_review``: give back a claimed review; with an ``error``, one more
        failed attempt (claimable after ``retry_after`` seconds, or parked at the limit).
        Returns released, retry, parked or not held."""
        return _Call(
            "SELECT pymem.release_review(%s, %s::uuid, %s, %s, retry_after => %s)",
            (user_id, _text(review_id), worker, error, retry_after),
            user_id=user_id,
        )

    @_sql
    def unpark_reviews(
        self, user_id: str, review_ids: Sequence[UUID | str] | None = None
    ) -> list[UnparkedReview]:
        """``pymem.unpark_reviews``: parked reviews (of ``review_ids``, or all) back in the
        queue with no attempts; each as it was."""
        return _Call(
            "SELECT * FROM pymem.unpark_reviews(%s, %s::uuid[])",
            (user_id, _ids(review_ids, "review_ids")),
            UnparkedReview,
            user_id=user_id,
        )

    # -- job claims (the worker: pymem.worker, docs/llm.md) ---------------------

    @_sql
    def claim_jobs(
        self,
        user_id: str | None,
        worker: str,
        k: int = 10,
        *,
        lease: float = 600.0,
        reflect_after: float | None = None,
        jobs: Sequence[str] | None = None,
    ) -> list[ClaimedJob]:
        """``pymem.claim_jobs``: up to ``k`` due model jobs (consolidate, profile, reflect)
        of the user (None: of every user the store's role sees) held by ``worker`` for
        ``lease`` seconds; ``reflect_after`` seconds also make a reflection due for a user
        who wrote anything since one that old; ``jobs``: only these kinds (None: all)."""
        return _Call(
            "SELECT * FROM pymem.claim_jobs(%s, %s, %s, lease => %s, reflect_after => %s,"
            " jobs => %s::text[])",
            (user_id, worker, k, lease, reflect_after, None if jobs is None else list(jobs)),
            ClaimedJob,
            user_id=user_id,
        )

    @_sql
    def finish_job(self, user_id: str, job: str, key: str, worker: str) -> str:
        """``pymem.finish_job``: the claimed job is done (a reflection is recorded); done or
        not held."""
        return _Call(
            "SELECT pymem.finish_job(%s, %s, %s, %s)", (user_id, job, key, worker),
            user_id=user_id,
        )  # fmt: skip

    @_sql
    def release_job(
        self,
        user_id: str,
        job: str,
        key: str,
        worker: str,
        error: str | None = None,
        *,
        retry_after: float = 0.0,
    ) -> str:
        """``pymem.release_job``: give back a claimed job; with an ``error``, one more failed
        attempt (claimable after ``retry_after`` seconds, or parked at the limit). Returns
        released, retry, parked or not held."""
        return _Call(
            "SELECT pymem.release_job(%s, %s, %s, %s, %s, retry_after => %s)",
            (user_id, job, key, worker, error, retry_after),
            user_id=user_id,
        )

    @_sql
    def unpark_jobs(self, user_id: str, jobs: Sequence[str] | None = None) -> list[UnparkedJob]:
        """``pymem.unpark_jobs``: parked jobs (of the kinds in ``jobs``, or all) back with no
        attempts; each as it was."""
        return _Call(
            "SELECT * FROM pymem.unpark_jobs(%s, %s::text[])",
            (user_id, None if jobs is None else list(jobs)),
            UnparkedJob,
            user_id=user_id,
        )

    # -- bulk import ---------------------------------------------------------

    @_sql
    def export_rows(self, user_id: str | None = None) -> list[ExportRow]:
        """``pymem.export_rows``: every row of the user (None: of every user the store's role
        sees) in every exported table, in restore order. ``pymem export`` streams the same
        query (pymem.export); this reads it whole."""
        return _Call("SELECT * FROM pymem.export_rows(%s)", (user_id,), ExportRow, user_id=user_id)

    @_sql
    def import_rows(
        self, user_id: str, table_name: str, rows_data: Sequence[Mapping[str, Any]]
    ) -> int:
        """``pymem.import_rows``: insert exported rows of one table for the user; the rows
        inserted (one already there is left as it is)."""
        return _Call(
            "SELECT pymem.import_rows(%s, %s, %s)",
            (user_id, table_name, _jsonb([dict(r) for r in rows_data])),
            user_id=user_id,
        )

    @_sql
    def import_lines_done(self, user_id: str, source: str) -> int:
        """``pymem.import_lines_done``: the last line of ``source`` committed for the user."""
        return _Call("SELECT pymem.import_lines_done(%s, %s)", (user_id, source), user_id=user_id)

    @_sql
    def import_digest(self, user_id: str, source: str) -> str | None:
        """``pymem.import_digest``: what ``source`` recorded of the user's committed lines."""
        return _Call("SELECT pymem.import_digest(%s, %s)", (user_id, source), user_id=user_id)

    @_sql
    def import_sources(self, user_id: str) -> list[ImportSource]:
        """``pymem.import_sources``: every import of the user, how far it got, its digest."""
        return _Call(
            "SELECT * FROM pymem.import_sources(%s)", (user_id,), ImportSource, user_id=user_id
        )

    @_sql
    def import_memories(
        self,
        user_id: str,
        source: str,
        lines: Sequence[int],
        items: Sequence[MemoryItem | Mapping[str, Any]],
        *,
        digest: str | None = None,
    ) -> list[BatchResult]:
        """``pymem.import_memories``: ``upsert_many`` of the items of ``lines`` of a file,
        committed with how far ``source`` got; lines an earlier run committed are skipped.
        Each result's ``ordinal`` is its line. Every item needs its embedding. ``digest``
        (recorded with the batch): the caller's digest of the user's lines through the
        batch's last one, what a re-run compares (:meth:`import_digest`)."""
        items = _batch(items)
        typed = _typed_batch(items)
        if typed is None:
            # name the item at fault as the server does ("item 3: ..."): an importer maps
            # it to its line
            n = next(n for n, item in enumerate(items, 1) if _typed_batch([item]) is None)
            raise InvalidEmbedding(
                f"item {n}: import_memories needs the content and a non-empty "
                "one-dimensional array of finite numbers as the embedding",
                sqlstate=InvalidEmbedding.sqlstate,
            )
        contents, vectors, options = typed
        return _Call(
            "SELECT * FROM pymem.import_memories(%s, %s, %s::integer[], %s::text[],"
            " %b::vector[], %s, digest => %s)",
            (
                user_id,
                source,
                list(lines),
                contents,
                vectors,
                None if options is None else _jsonb(options),
                digest,
            ),
            BatchResult,
            user_id=user_id,
        )

    # -- the review queue ----------------------------------------------------

    @_sql
    def pending_reviews(self, user_id: str) -> list[Review]:
        """``pymem.pending_reviews``: related pairs and conflicts waiting for the app."""
        return _Call("SELECT * FROM pymem.pending_reviews(%s)", (user_id,), Review, user_id=user_id)

    @_sql
    def resolve_review(
        self,
        user_id: str,
        memory_id: UUID | str,
        decision: str,
        *,
        reason: str | None = None,
        claimed_by: str | None = None,
        review_id: UUID | str | None = None,
        as_seen: Sequence[datetime] | None = None,
    ) -> UUID:
        """``pymem.resolve_review``: keep_both, supersede, duplicate or conflict (a related
        pair flagged as a contradiction); the survivor's id. ``reason`` goes into the review
        and the history; ``claimed_by`` is the reviewer deciding (PM017 when another holds
        the review); ``review_id`` picks one of the memory's open reviews; ``as_seen``: the
        pair's ``updated_at`` as the judge read them (PM018 when either changed since)."""
        return _Call(
            "SELECT pymem.resolve_review(%s, %s::uuid, %s, reason => %s, claimed_by => %s,"
            " review_id => %s::uuid, as_seen => %s::timestamptz[])",
            (
                user_id,
                _text(memory_id),
                decision,
                reason,
                claimed_by,
                None if review_id is None else str(review_id),
                None if as_seen is None else list(as_seen),
            ),
            user_id=user_id,
        )

    # -- read path and decay ---------------------------------------------------

    @_sql
    def recall(
        self,
        user_id: str,
        query_embedding: Embedding,
        k: int = 5,
        *,
        query_text: str | None = None,
        kinds: Sequence[str] | None = None,
        include_cold: bool = False,
        min_similarity: float | None = None,
        touch: bool = False,
        at: datetime | None = None,
        filter: Mapping[str, Any] | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        sources: Sequence[str] | None = None,
    ) -> list[RecallHit]:
        """``pymem.recall``: the user's live memories ranked by relevance and decay; only
        those whose metadata contains ``filter``, written in [``created_after``,
        ``created_before``) and of one of ``sources``, when given."""
        return _Call(
            "SELECT * FROM pymem.recall(%s, %s, %s, query_text => %s, kinds => %s,"
            " include_cold => %s, min_similarity => %s, touch => %s,"
            " at => coalesce(%s, now()), filter => %s, created_after => %s,"
            " created_before => %s, sources => %s)",
            (
                user_id,
                _vector(query_embedding),
                k,
                query_text,
                _texts(kinds, "kinds"),
                include_cold,
                min_similarity,
                touch,
                at,
                _object_json(filter),
                created_after,
                created_before,
                _texts(sources, "sources"),
            ),
            RecallHit,
            user_id=user_id,
        )

    @_sql
    def check_contents(
        self,
        contents: Sequence[str],
        labels: Sequence[str] | None = None,
        *,
        user_id: str | None = None,
        kind: str | None = None,
    ) -> None:
        """``pymem.check_contents``: refuse, as a write would (``InvalidContent``,
        ``ContentTooLong``; ``InvalidUserId`` and ``UnknownKind`` for a ``user_id`` or
        ``kind`` given), what the store cannot take, before the texts are embedded.
        ``labels`` name each text in the error (default ``item N: content``)."""
        return _Call(
            "SELECT pymem.check_contents(%s::text[], %s::text[], %s, %s)",
            (_texts(contents, "contents"), _texts(labels, "labels"), user_id, kind),
        )

    @_sql
    def get_memories(
        self, user_id: str, memory_ids: Sequence[UUID | str] | None = None
    ) -> list[StoredMemory]:
        """``pymem.get_memories``: the user's live memories, oldest first (those of
        ``memory_ids`` when given)."""
        return _Call(
            "SELECT * FROM pymem.get_memories(%s, %s::uuid[])",
            (user_id, _ids(memory_ids, "memory_ids")),
            StoredMemory,
            user_id=user_id,
        )

    @_sql
    def live_topics(self, user_id: str, max_topics: int = 50) -> list[LiveTopic]:
        """``pymem.live_topics``: the topics of the user's live memories with their
        current text, the most recently changed first (at most ``max_topics``)."""
        return _Call(
            "SELECT * FROM pymem.live_topics(%s, %s)",
            (user_id, max_topics),
            LiveTopic,
            user_id=user_id,
        )

    @_sql
    def memory_history(
        self, user_id: str, memory_id: UUID | str | None = None
    ) -> list[MemoryVersion]:
        """``pymem.memory_history``: earlier contents of a memory (of all the user's
        memories when None), oldest first, with the reason of each change."""
        return _Call(
            "SELECT * FROM pymem.memory_history(%s, %s::uuid)",
            (user_id, None if memory_id is None else str(memory_id)),
            MemoryVersion,
            user_id=user_id,
        )

    @_sql
    def explain(
        self,
        old_content: str,
        new_content: str,
        old_embedding: Embedding,
        new_embedding: Embedding,
        *,
        old_topic: str | None = None,
        new_topic: str | None = None,
        old_canonical: str | None = None,
        new_canonical: str | None = None,
        dedup_threshold: float | None = None,
        supersede_threshold: float | None = None,
        on_related: str | None = None,
    ) -> list[ExplainStep]:
        """``pymem.explain``: why a write of ``new_content`` beside ``old_content`` is
        decided as it is: the evidence, each guard with whether it fired, the rule."""
        return _Call(
            "SELECT * FROM pymem.explain(%s, %s, %s, %s, old_topic => %s, new_topic => %s,"
            " old_canonical => %s, new_canonical => %s, dedup_threshold => %s,"
            " supersede_threshold => %s, on_related => %s)",
            (
                old_content,
                new_content,
                _vector(old_embedding),
                _vector(new_embedding),
                old_topic,
                new_topic,
                old_canonical,
                new_canonical,
                dedup_threshold,
                supersede_threshold,
                on_related,
            ),
            ExplainStep,
        )

    @_sql
    def explain_memories(
        self, user_id: str, old_id: UUID | str, new_id: UUID | str
    ) -> list[ExplainStep]:
        """``pymem.explain_memories``: :meth:`explain` for two memories of the user."""
        return _Call(
            "SELECT * FROM pymem.explain_memories(%s, %s::uuid, %s::uuid)",
            (user_id, str(old_id), str(new_id)),
            ExplainStep,
            user_id=user_id,
        )

    @_sql
    def touch(self, user_id: str, memory_ids: Sequence[UUID | str]) -> int:
        """``pymem.touch``: re-mention memories; returns how many were touched."""
        return _Call(
            "SELECT pymem.touch(%s, %s::uuid[])",
            (user_id, _ids(memory_ids, "memory_ids")),
            user_id=user_id,
        )

    @_sql
    def apply_decay(
        self,
        at: datetime | None = None,
        cold_below: float = 0.05,
        *,
        user_id: str | None = None,
        batch_blocks: int = 4096,
    ) -> DecayResult:
        """``pymem.apply_decay``: move faded memories to the cold tier, in this transaction."""
        return _Call(
            "SELECT * FROM pymem.apply_decay(coalesce(%s, now()), %s, user_id => %s,"
            " batch_blocks => %s)",
            (at, cold_below, user_id, batch_blocks),
            DecayResult,
            one=True,
            user_id=user_id,
        )

    @_sql
    def run_decay(
        self, at: datetime | None = None, cold_below: float = 0.05, *, batch_blocks: int = 4096
    ) -> DecayResult:
        """``CALL pymem.run_decay``: apply_decay committing after each batch (autocommit only)."""
        return _Call(
            "CALL pymem.run_decay(at => coalesce(%s, now()), cold_below => %s, batch_blocks => %s)",
            (at, cold_below, batch_blocks),
            DecayResult,
            one=True,
        )

    @_sql
    def decay_score(
        self,
        importance: float,
        decay_rate: float,
        last_access_at: datetime,
        at: datetime | None = None,
    ) -> float:
        """``pymem.decay_score``: importance * exp(-decay_rate * age in days)."""
        return _Call(
            "SELECT pymem.decay_score(%s, %s, %s, coalesce(%s, now()))",
            (importance, decay_rate, last_access_at, at),
        )

    # -- administration ------------------------------------------------------

    @_sql
    def configure_embedder(
        self,
        model: str,
        dedup_threshold: float,
        supersede_threshold: float,
        topic_supersede_threshold: float | None = None,
        *,
        overwrite: bool = False,
        dedup_term_change: float | None = None,
        cjk_dedup_threshold: float | None = None,
        cjk_dedup_term_change: float | None = None,
    ) -> Settings:
        """``pymem.configure_embedder``: record the model and its thresholds (those for
        Chinese text default to the others)."""
        return _Call(
            "SELECT * FROM pymem.configure_embedder(%s, %s, %s, %s, overwrite => %s,"
            " dedup_term_change => %s, cjk_dedup_threshold => %s, cjk_dedup_term_change => %s)",
            (
                model,
                dedup_threshold,
                supersede_threshold,
                topic_supersede_threshold,
                overwrite,
                dedup_term_change,
                cjk_dedup_threshold,
                cjk_dedup_term_change,
            ),
            Settings,
            one=True,
        )

    @_sql
    def get_settings(self) -> Settings:
        """``pymem.get_settings``: thresholds, dimension and model of the store."""
        return _Call("SELECT * FROM pymem.get_settings()", (), Settings, one=True)

    @_sql
    def schema_version(self) -> int:
        """``pymem.schema_version``."""
        return _Call(_SCHEMA_VERSION)

    # -- facts ------------------------------------------------------------------

    @_sql
    def set_fact(
        self,
        user_id: str,
        key: str,
        value: Any,
        *,
        confidence: float | str = "medium",
        scope: str = "habit",
        source: str = "stated",
        valid_until: datetime | None = None,
    ) -> str:
        """``pymem.set_fact``: set|unchanged|replaced|conflict|rejected.

        ``value`` is any JSON-serializable value; ``confidence`` is ``high``,
        ``medium``, ``low`` or a number in [0, 1].
        """
        # a word (or a number as text) goes in confidence_level, a number in confidence
        text = isinstance(confidence, str)
        named = "confidence_level => %s::text" if text else "confidence => %s::double precision"
        return _Call(
            f"SELECT pymem.set_fact(%s, %s, %s::jsonb, {named},"
            " scope => %s, source => %s, valid_until => %s)",
            (user_id, key, _fact_json(value), confidence, scope, source, valid_until),
            user_id=user_id,
        )

    @_sql
    def get_fact(self, user_id: str, key: str, as_of: datetime | None = None) -> Any:
        """``pymem.get_fact``: the value believed at ``as_of`` (default now), or None."""
        return _Call(
            "SELECT pymem.get_fact(%s, %s, coalesce(%s::timestamptz, now()))",
            (user_id, key, as_of),
            user_id=user_id,
        )

    @_sql
    def current_facts(self, user_id: str) -> list[Fact]:
        """``pymem.current_facts``: the user's facts as believed now."""
        return _Call("SELECT * FROM pymem.current_facts(%s)", (user_id,), Fact, user_id=user_id)

    @_sql
    def fact_history(self, user_id: str, key: str) -> list[FactHistoryEntry]:
        """``pymem.fact_history``: every value of a key, the current one last."""
        return _Call(
            "SELECT * FROM pymem.fact_history(%s, %s)",
            (user_id, key),
            FactHistoryEntry,
            user_id=user_id,
        )

    @_sql
    def pending_conflicts(self, user_id: str) -> list[PendingConflict]:
        """``pymem.pending_conflicts``: fact conflicts and flagged memory pairs."""
        return _Call(
            "SELECT * FROM pymem.pending_conflicts(%s)",
            (user_id,),
            PendingConflict,
            user_id=user_id,
        )

    @_sql
    def resolve_conflict(
        self, user_id: str, key: str, value: Any, *, scope: str | None = None
    ) -> str:
        """``pymem.resolve_conflict``: the user's answer; returns kept|replaced."""
        return _Call(
            "SELECT pymem.resolve_conflict(%s, %s, %s::jsonb, scope => %s)",
            (user_id, key, _fact_json(value), scope),
            user_id=user_id,
        )

    @_sql
    def set_fact_policy(self, key_pattern: str, policy: str | None) -> str | None:
        """``pymem.set_fact_policy``: latest_wins or confirm for keys matching a pattern."""
        return _Call("SELECT pymem.set_fact_policy(%s, %s)", (key_pattern, policy))

    @_sql
    def flag_conflict(
        self,
        user_id: str,
        memory_id: UUID | str,
        other_id: UUID | str,
        note: str | None = None,
    ) -> UUID:
        """``pymem.flag_conflict``: queue two contradicting memories; returns the review id."""
        return _Call(
            "SELECT pymem.flag_conflict(%s, %s::uuid, %s::uuid, %s)",
            (user_id, memory_id, other_id, note),
            user_id=user_id,
        )

    @_sql
    def undo(self, user_id: str, memory_id: UUID | str, *, to_version: int | None = None) -> int:
        """``pymem.undo``: restore a memory's previous version; returns that version."""
        return _Call(
            "SELECT pymem.undo(%s, %s::uuid, to_version => %s::integer)",
            (user_id, memory_id, to_version),
            user_id=user_id,
        )

    @_sql
    def contradiction_rate(self, user_id: str | None = None) -> float:
        """``pymem.contradiction_rate``: pending fact conflicts per fact."""
        return _Call("SELECT pymem.contradiction_rate(%s)", (user_id,), user_id=user_id)

    # -- contacts ------------------------------------------------------------

    @_sql
    def sync_contact(
        self,
        user_id: str,
        name: str,
        memory_ids: Sequence[UUID | str] | None = None,
        *,
        relationship: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        aliases: Sequence[str] | None = None,
        description: str | None = None,
    ) -> UUID:
        """``pymem.sync_contact``: create or update a person, link memories; returns its id."""
        return _Call(
            "SELECT pymem.sync_contact(%s, %s, %s::uuid[], relationship => %s,"
            " attributes => %s, aliases => %s::text[], description => %s)",
            (
                user_id,
                name,
                _ids(memory_ids, "memory_ids"),
                relationship,
                _object_json(attributes),
                _texts(aliases, "aliases"),
                description,
            ),
            user_id=user_id,
        )

    @_sql
    def resolve_contact(self, user_id: str, name: str) -> list[ContactMatch]:
        """``pymem.resolve_contact``: exact name, else alias, else fuzzy candidates."""
        return _Call(
            "SELECT * FROM pymem.resolve_contact(%s, %s)",
            (user_id, name),
            ContactMatch,
            user_id=user_id,
        )

    @_sql
    def merge_contacts(self, user_id: str, keep: UUID | str, merge: UUID | str) -> UUID:
        """``pymem.merge_contacts``: join ``merge`` into ``keep``; returns keep's id."""
        return _Call(
            "SELECT pymem.merge_contacts(%s, %s, %s)",
            (user_id, _text(keep), _text(merge)),
            user_id=user_id,
        )

    @_sql
    def mentioned_contacts(self, user_id: str, message: str) -> list[MentionedContact]:
        """``pymem.mentioned_contacts``: the people a message names (marks them mentioned)."""
        return _Call(
            "SELECT * FROM pymem.mentioned_contacts(%s, %s)",
            (user_id, message),
            MentionedContact,
            user_id=user_id,
        )

    @_sql
    def contact_memories(
        self, user_id: str, contact: UUID | str, k: int = 20
    ) -> list[ContactMemory]:
        """``pymem.contact_memories``: linked memories, then text matches (linked now)."""
        return _Call(
            "SELECT * FROM pymem.contact_memories(%s, %s, %s)",
            (user_id, _text(contact), k),
            ContactMemory,
            user_id=user_id,
        )

    @_sql
    def contact_card(self, user_id: str, contact: UUID | str, max_chars: int = 600) -> str:
        """``pymem.contact_card``: a prompt-ready block about a person."""
        return _Call(
            "SELECT pymem.contact_card(%s, %s, %s)",
            (user_id, _text(contact), max_chars),
            user_id=user_id,
        )

    @_sql
    def consolidate_contact(
        self,
        user_id: str,
        contact: UUID | str,
        description: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        relationship: str | None = None,
    ) -> UUID | None:
        """``pymem.consolidate_contact``: store a profile; returns the profile memory's id."""
        return _Call(
            "SELECT pymem.consolidate_contact(%s, %s, %s, %s, %s)",
            (
                user_id,
                _text(contact),
                description,
                _object_json(attributes),
                relationship,
            ),
            user_id=user_id,
        )

    @_sql
    def recent_contacts(self, user_id: str, k: int = 10) -> list[RecentContact]:
        """``pymem.recent_contacts``: people by last mention, most recent first."""
        return _Call(
            "SELECT * FROM pymem.recent_contacts(%s, %s)",
            (user_id, k),
            RecentContact,
            user_id=user_id,
        )

    # -- consolidation ---------------------------------------------------------

    @_sql
    def consolidation_candidates(
        self,
        user_id: str,
        *,
        min_similarity: float | None = None,
        min_group: int | None = None,
        include_pinned: bool = False,
        kinds: Sequence[str] | None = None,
    ) -> list[ConsolidationGroup]:
        """``pymem.consolidation_candidates``: groups of related unconsolidated memories."""
        return _Call(
            "SELECT * FROM pymem.consolidation_candidates(%s, min_similarity => %s,"
            " min_group => %s, include_pinned => %s, kinds => %s)",
            (
                user_id,
                min_similarity,
                min_group,
                include_pinned,
                _texts(kinds, "kinds"),
            ),
            ConsolidationGroup,
            user_id=user_id,
        )

    @_sql
    def consolidate(
        self,
        user_id: str,
        source_ids: Sequence[UUID | str],
        content: str,
        embedding: Embedding,
        details: Mapping[str, Any] | None = None,
    ) -> UUID:
        """``pymem.consolidate``: one record from fragments; the same set returns it again."""
        return _Call(
            "SELECT pymem.consolidate(%s, %s::uuid[], %s, %s, %s)",
            (
                user_id,
                _ids(source_ids, "source_ids"),
                content,
                _vector(embedding),
                _jsonb({}) if details is None else _object_json(details),
            ),
            user_id=user_id,
        )

    @_sql
    def apply_maintenance(
        self, user_id: str, ops: Sequence[Mapping[str, Any]]
    ) -> list[MaintenanceResult]:
        """``pymem.apply_maintenance``: a reviewer's plan, all or nothing, a row per op."""
        return _Call(
            "SELECT * FROM pymem.apply_maintenance(%s, %s)",
            (user_id, _jsonb(_plan_json(ops))),
            MaintenanceResult,
            user_id=user_id,
        )

    @_sql
    def unconsolidate(self, user_id: str, consolidated_id: UUID | str) -> int:
        """``pymem.unconsolidate``: restore the sources; returns how many were restored."""
        return _Call(
            "SELECT pymem.unconsolidate(%s, %s::uuid)",
            (user_id, _text(consolidated_id)),
            user_id=user_id,
        )

    # -- quality ---------------------------------------------------------------

    @_sql
    def quality_report(self, user_id: str | None = None) -> QualityReport:
        """``pymem.quality_report``: live memories, duplicates, reviews, cold and consolidated."""
        return _Call(
            "SELECT * FROM pymem.quality_report(%s)",
            (user_id,),
            QualityReport,
            one=True,
            user_id=user_id,
        )

    # -- partitions ---------------------------------------------------------------------

    @_sql
    def partition_by_user(self, partitions: int) -> list[PartitionedTable]:
        """``pymem.partition_by_user``: hash-partition every table of users' rows by
        user_id, rows kept (the store's owner only; ``pymem migrate --partitions N``)."""
        return _Call("SELECT * FROM pymem.partition_by_user(%s)", (partitions,), PartitionedTable)

    @_sql
    def setup(self, dimensions: int | None = None, *, seed: bool = True) -> list[SetupStep]:
        """``pymem.setup``: after ``CREATE EXTENSION pymem``, the configuration rows, the
        dimension of an empty store, the role pymem_app, its row-level security and
        grants (the store's owner only; docs/operations.md, "Install")."""
        return _Call("SELECT * FROM pymem.setup(%s, %s)", (dimensions, seed), SetupStep)

    @_sql
    def store_partitions(self) -> int | None:
        """``pymem.store_partitions``: leaves of pymem.memories, None when not partitioned."""
        return _Call("SELECT pymem.store_partitions()")

    # -- Citus ---------------------------------------------------------------------------

    @_sql
    def distribute_by_user(self, shard_count: int | None = None) -> list[DistributedObject]:
        """``pymem.distribute_by_user``: distribute the store by user_id over the Citus
        cluster this connection's node coordinates (the store's owner only; ``pymem
        migrate --citus``; docs/scaling.md)."""
        return _Call(
            "SELECT * FROM pymem.distribute_by_user(%s::integer)", (shard_count,), DistributedObject
        )

    @_sql
    def store_shards(self) -> int | None:
        """``pymem.store_shards``: shards of pymem.memories, None when not distributed."""
        return _Call("SELECT pymem.store_shards()")

    @_sql
    def relay_events(self) -> int:
        """``pymem.relay_events``: on a store distributed with Citus, send the events
        waiting in its outbox as NOTIFY on ``pymem_events`` of the coordinator (0 on any
        other store, whose events are NOTIFYs already); the number sent."""
        return _Call("SELECT pymem.relay_events()")


# -- asyncio ------------------------------------------------------------------------


class AsyncMemoryStore(_StoreCore):
    """The asyncio twin of :class:`MemoryStore`: the same methods, awaited.

    Takes a DSN (the store opens an autocommit ``psycopg.AsyncConnection`` on
    first use), your ``AsyncConnection`` (calls join your transaction) or a
    ``psycopg_pool.AsyncConnectionPool`` (use
    ``configure=pymem.configure_connection_async``). Its methods are derived at
    import time from MemoryStore's: each builds the same :class:`_Call` and
    ``_run`` awaits it, so no SQL and no signature is written twice; its plumbing
    is MemoryStore's too (:class:`_StoreCore`), its steps awaited.
    """

    _connection_class = psycopg.AsyncConnection
    _refusal = "AsyncMemoryStore needs a DSN, a psycopg AsyncConnection or an AsyncConnectionPool"
    _connects_at_once = False
    _new_lock = staticmethod(asyncio.Lock)
    _sleep = staticmethod(asyncio.sleep)

    async def close(self) -> None:
        await _awaited(self._close())

    async def __aenter__(self) -> AsyncMemoryStore:
        return self

    async def remember(
        self, user_id: str, messages: Any, chat: Any, embed: Any, **options: Any
    ) -> Any:
        """Extract the memories of a conversation with a model and write them
        (:func:`pymem.extract.remember`; ``chat`` a :class:`~pymem.chat.ChatClient`, of
        an AsyncMemoryStore an :class:`~pymem.chat.AsyncChatClient`; ``embed`` the
        store's embedder; ``chunk``, ``max_topics``, ``structured``)."""
        from pymem.extract import aremember

        return await aremember(self, user_id, messages, chat, embed, **options)

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _run(self, call: _Call) -> Any:
        """Every SQL call of the store goes through here (:meth:`_call`)."""
        hold = _Hold(self._lock)
        try:
            return await _awaited(self._call(call, hold))
        finally:
            hold.let_go()


def _async_method(builder: Callable[..., _Call]) -> Callable[..., Any]:
    @functools.wraps(builder)
    async def method(self: AsyncMemoryStore, *args: Any, **kwargs: Any) -> Any:
        return await self._run(builder(self, *args, **kwargs))

    method.__pymem_call__ = builder  # type: ignore[attr-defined]
    return method


for _name, _builder in _sql_methods(MemoryStore).items():
    setattr(AsyncMemoryStore, _name, _async_method(_builder))
del _name, _builder


async def configure_connection_async(conn: psycopg.AsyncConnection) -> None:
    """Register the vector types; pass as ``AsyncConnectionPool(configure=...)``; a
    connection that is not autocommit is left idle (:func:`configure_connection`)."""
    await _awaited(_configured(conn))
