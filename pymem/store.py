"""MemoryStore: one Python method per function of pymem's SQL API.

No decisions are made here: each method converts its arguments, calls one SQL
function and returns its rows as small dataclasses. Pass your own psycopg
connection to join your transaction, a ``psycopg_pool.ConnectionPool``, or a
DSN (the store then owns an autocommit connection).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import itertools
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import psycopg
from psycopg.conninfo import make_conninfo

from pymem.api_memories import MemoryCalls
from pymem.api_people import PeopleCalls
from pymem.api_store import StoreCalls
from pymem.calls import _HAS_SCHEMA, _SCHEMA_VERSION, _Call, _sql_methods
from pymem.conversions import _spelled
from pymem.errors import (
    Deadlock,
    SchemaMismatch,
    SerializationFailure,
    ShardMoved,
    wrap_errors,
)
from pymem.migrate import shipped_schema_version
from pymem.steps import (
    _T,
    _VECTOR_SCHEMA,
    _as_user,
    _awaited,
    _configured,
    _Context,
    _fetchall,
    _fetchone,
    _Hold,
    _idle,
    _in_open_transaction,
    _lend,
    _performed,
    _register_vector,
    _Steps,
    _wait,
    _within,
)

# the newest migration this package ships; each migration records its
# number in pymem.schema_info, so the two cannot drift apart
SCHEMA_VERSION = shipped_schema_version()


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
# a call cut by a shard move (ShardMoved) is run again for this long, beyond RETRIES:
# a move's switch blocks the shard's writes for seconds on a busy cluster (CI saw a
# 12.6 s move whose writer failed after its four attempts in ~0.1 s), and a write
# during a rebalance is expected to land, not to fail
SHARD_MOVE_WAIT = 10.0
# the longest wait between two attempts
MAX_BACKOFF = 0.5


def _backoff(attempt: int) -> float:
    return min(random.uniform(0.005, 0.02) * 2 ** min(attempt, 10), MAX_BACKOFF)


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
        self._shard_move_wait = SHARD_MOVE_WAIT
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
        started = time.monotonic()
        for attempt in itertools.count():
            run = _Attempt()
            try:
                with wrap_errors():
                    result = yield from self._session(call.user_id, body, hold, run)
            except (SerializationFailure, Deadlock) as exc:
                moving = isinstance(exc, ShardMoved) and (
                    time.monotonic() - started < self._shard_move_wait
                )
                if not run.alone or (attempt >= self._retries and not moving):
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


class MemoryStore(MemoryCalls, PeopleCalls, StoreCalls, _StoreCore):
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
