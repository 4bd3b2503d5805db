"""The plumbing of the sync and the async store, written once as steps: a generator
yields each database operation, and a driver runs it on a connection or awaits it
on an async one. The store, the worker and the model jobs share it."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import types
from collections.abc import Callable, Generator, Sequence
from typing import Any, TypeVar

import psycopg
from pgvector.psycopg.bit import register_bit_info
from pgvector.psycopg.halfvec import register_halfvec_info
from pgvector.psycopg.sparsevec import register_sparsevec_info
from pgvector.psycopg.vector import register_vector_info
from psycopg.rows import class_row
from psycopg.types import TypeInfo


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
# pgvector's schema and the types a connection registers, in one round trip: what
# pgvector.psycopg.register_vector fetches with four (TypeInfo.fetch's columns), which cost
# a new connection ~5.6 ms, most of it the catalog reads of a fresh backend
_VECTOR_TYPES = (
    "SELECT quote_ident(n.nspname), t.typname, t.oid, t.typarray, t.oid::regtype::text,"
    " t.typdelim"
    " FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace"
    " LEFT JOIN pg_type AS t ON t.typnamespace = n.oid"
    " AND t.typname IN ('vector', 'halfvec', 'sparsevec')"
    " WHERE e.extname = 'vector' ORDER BY t.oid"
)
_REGISTER_INFO = {
    "vector": register_vector_info,
    "halfvec": register_halfvec_info,
    "sparsevec": register_sparsevec_info,
}


def _register_vector(conn: Any) -> _Steps[str]:
    """Register pgvector's types wherever the extension lives (and ``bit``'s loader where
    it lives in public, as pgvector.psycopg.register_vector does); returns the type's name
    as SQL can spell it from any search_path."""
    cursor = yield functools.partial(conn.execute, _VECTOR_TYPES)
    rows = yield cursor.fetchall
    if not rows or not any(name == "vector" for _, name, *_ in rows):
        register_vector_info(conn, None)  # its error: the type is not in the database
    schema = rows[0][0]
    for _, name, oid, array_oid, regtype, delimiter in rows:
        if name in _REGISTER_INFO:
            info = TypeInfo(name, oid, array_oid, regtype=regtype, delimiter=delimiter)
            _REGISTER_INFO[name](conn, info)
    if schema == "public":
        register_bit_info(conn, psycopg.postgres.types["bit"])
        return "vector"
    return f"{schema}.vector"


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
    """A store's lock taken for one call, let go only by the call that took it: an
    interrupted call lets go of a lock it took, once, and never of one another thread
    (task) holds. Letting go twice is letting go once: the session's finally and the
    call's outermost one both do (a Ctrl-C may land in the first)."""

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
        # A real Ctrl-C lands between bytecodes, not lines: right after a call returns.
        if isinstance(self._lock, asyncio.Lock):
            if self._held:
                # release is Python code, where a Ctrl-C may land before it lets go: the
                # flag stays set for the second call. Landing after, the second call finds
                # the lock free (no other task ran in between: nothing was awaited)
                with contextlib.suppress(RuntimeError):
                    self._lock.release()
                self._held = False
            return
        # The flag cleared, then the lock let go, on one line: threading.Lock.release is
        # C, so no Ctrl-C lands between the two, and one landing after finds the flag
        # clear. (Let go first and cleared after, a Ctrl-C landing between them made the
        # second call let go again: "release unlocked lock", caught interrupting eval.)
        if self._held:
            self._held = False; self._lock.release()  # noqa: E702  # fmt: skip
