"""Exceptions for pymem's SQLSTATEs.

Every error the SQL API raises carries a documented SQLSTATE (docs/sql-api.md).
psycopg 3 delivers custom codes as a generic error, so :func:`wrap_errors`
dispatches on ``sqlstate`` to one class per code, keeping the server's message.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg


class PymemError(Exception):
    """Base class of every pymem error. ``sqlstate`` is the server's code; ``detail``
    and ``hint`` are the server's DETAIL and HINT, when it gave them."""

    sqlstate: str | None = None

    def __init__(
        self,
        message: str,
        *,
        sqlstate: str | None = None,
        hint: str | None = None,
        detail: str | None = None,
    ):
        super().__init__(message)
        if sqlstate is not None:
            self.sqlstate = sqlstate
        self.hint = hint
        self.detail = detail

    def one_line(self) -> str:
        """The message, its code, DETAIL and HINT on one line (what the CLI prints)."""
        text = _clause(str(self))
        if self.sqlstate:
            text += f" [{self.sqlstate}]"
        if self.detail:
            text += f"; {_clause(self.detail)}"
        if self.hint:
            text += f"; hint: {self.hint}"
        return " ".join(text.split())


def _clause(sentence: str) -> str:
    """A sentence as a clause of a line joined with ";" (no "state.; hint")."""
    return sentence[:-1] if sentence.endswith(".") and not sentence.endswith("..") else sentence


class InvalidUserId(PymemError):
    sqlstate = "PM001"


class InvalidContent(PymemError):
    sqlstate = "PM002"


class ContentTooLong(PymemError):
    sqlstate = "PM003"


class DimensionMismatch(PymemError):
    sqlstate = "PM004"


class InvalidEmbedding(PymemError):
    sqlstate = "PM005"


class InvalidParameter(PymemError):
    sqlstate = "PM006"


class InvalidThresholds(PymemError):
    sqlstate = "PM007"


class UnknownKind(PymemError):
    sqlstate = "PM008"


class InvalidSource(PymemError):
    sqlstate = "PM009"


class InvalidBatch(PymemError):
    sqlstate = "PM010"


class MemoryNotFound(PymemError):
    sqlstate = "PM011"


class EmbedderMismatch(PymemError):
    sqlstate = "PM012"


class StoreConflict(PymemError):
    sqlstate = "PM013"


class UnsupportedIsolation(PymemError):
    sqlstate = "PM014"


class NoPendingReview(PymemError):
    """resolve_review: the memory has no open review."""

    sqlstate = "PM015"


class InvalidDecision(PymemError):
    """resolve_review: the decision is not keep_both, supersede, duplicate or (for a
    related pair) past or conflict."""

    sqlstate = "PM016"


class ReviewClaimed(PymemError):
    """resolve_review: another reviewer holds the review (``claim_reviews``) and its claim
    has not run out."""

    sqlstate = "PM017"


class ReviewStale(PymemError):
    """resolve_review with ``as_seen``: the pair is no longer the one the judge read (either
    memory rewritten, the review moved to another memory, or the claim given back or taken);
    nothing was decided. Judge the pair again."""

    sqlstate = "PM018"


class InvalidFactKey(PymemError):
    sqlstate = "PM020"


class InvalidFactValue(PymemError):
    sqlstate = "PM021"


class InvalidScope(PymemError):
    sqlstate = "PM022"


class InvalidConfidence(PymemError):
    sqlstate = "PM023"


class InvalidPolicy(PymemError):
    sqlstate = "PM024"


class NoPendingConflict(PymemError):
    sqlstate = "PM025"


class NothingToUndo(PymemError):
    sqlstate = "PM026"


# -- contacts (PM030-PM039) --


class ContactNotFound(PymemError):
    sqlstate = "PM030"


class InvalidContactName(PymemError):
    sqlstate = "PM031"


class InvalidContactAttributes(PymemError):
    sqlstate = "PM032"


class InvalidContactMerge(PymemError):
    sqlstate = "PM033"


# -- consolidation (PM040-PM049) --


class InvalidConsolidation(PymemError):
    sqlstate = "PM040"


class AlreadyConsolidated(PymemError):
    sqlstate = "PM041"


class DetailsDropped(PymemError):
    sqlstate = "PM042"


class InvalidPlan(PymemError):
    sqlstate = "PM043"


class PlanTooLarge(PymemError):
    sqlstate = "PM044"


class NotConsolidated(PymemError):
    sqlstate = "PM045"


class ConsolidationMembership(PymemError):
    """undo: the restored version would take a fragment out of (or put it back into) a
    consolidation, or revive the record of an undone one; ``unconsolidate`` is the undo
    of a consolidation, ``consolidate`` makes a new one."""

    sqlstate = "PM046"


# -- security and faults (PM050-PM059, and the server's own codes) --


class InternalFunction(PymemError):
    """A private helper that only pymem's own functions may call was called directly."""

    sqlstate = "PM050"


class NotAScratchDatabase(PymemError):
    """A command that drops and re-creates a database of its own (``pymem eval``,
    ``pymem demo``, ``pymem bench``) was given one it did not create: one that holds a
    pymem store, a server's own database, or (without ``--yes``) one that holds tables.
    Nothing was dropped."""

    sqlstate = "PM051"


class AppRoleMissing(PymemError):
    """``pymem migrate`` found no role ``pymem_app`` (a store restored into a new
    cluster) and the migrating role may not create it. Nothing was changed."""

    sqlstate = "PM052"


class OtherInstallation(PymemError):
    """The store was installed the other way: ``pymem migrate`` on a store that
    ``CREATE EXTENSION pymem`` made (at another level, or asked to roll back,
    partition or distribute it), or ``CREATE EXTENSION pymem`` where ``pymem migrate``
    made a store. Nothing was changed."""

    sqlstate = "PM053"


# -- distribution with Citus (PM060-PM069; docs/scaling.md) --


class CitusUnsupported(PymemError):
    """Something a store distributed with Citus cannot do correctly, refused and named
    rather than done wrong: a write Citus did not hand to the user's worker (inside another
    query, ``INSERT ... SELECT``, a function of the app's), hash partitions, a rollback."""

    sqlstate = "PM060"


class CitusUnavailable(PymemError):
    """``pymem migrate --citus`` (``pymem.distribute_by_user``) without Citus to distribute
    over: the extension is not installed, the node is not the coordinator, or the cluster
    has no workers. Nothing was changed."""

    sqlstate = "PM061"


class QueryCanceled(PymemError):
    """57014: statement_timeout expired (or the query was cancelled); nothing was written."""

    sqlstate = "57014"


class LockTimeout(PymemError):
    """55P03: lock_timeout expired waiting for a lock; nothing was written."""

    sqlstate = "55P03"


class Deadlock(PymemError):
    """40P01: the server broke a deadlock by aborting this call; safe to retry."""

    sqlstate = "40P01"


class SerializationFailure(PymemError):
    """40001: a SERIALIZABLE transaction lost a conflict; safe to retry the transaction."""

    sqlstate = "40001"


class ShardMoved(SerializationFailure):
    """Citus (``XX000``, 'cannot execute a distributed query from a query on a shard'):
    the user's shard moved to another worker while the call ran there (a rebalance).
    Nothing was written; a serialization failure of its own kind, so the store runs a
    call that had a transaction of its own again, and a caller retries its
    transaction as for any other (docs/scaling.md)."""

    sqlstate = "XX000"


class ConnectionLost(PymemError):
    """The connection broke during the call (server restart, terminated backend).

    The call's transaction did not commit. A store opened from a DSN opens a
    new connection on its next call; a pool replaces the connection.
    """


class PoolExhausted(ConnectionLost):
    """No connection of the store's pool came free within the pool's timeout
    (``psycopg_pool.PoolTimeout``): every connection is busy. Nothing was sent;
    retry later, or give the pool more connections. A ``ConnectionLost``, so a
    handler of lost connections keeps catching it."""


class InvalidInput(PymemError):
    """A value PostgreSQL cannot read as its type: a malformed uuid or timestamp, a number out
    of range, text that is not UTF-8, JSON nested too deep. ``sqlstate`` is PostgreSQL's own
    code (22P02, 22007, 22008, 22003, 22021, 54001)."""

    sqlstate = "22P02"


class WrongArgumentType(PymemError):
    """A Python value of a type no parameter of the SQL function takes (an int user id, a
    set): 42883 from the server, or refused by the driver before it is sent."""

    sqlstate = "42883"


class SchemaMismatch(PymemError):
    """The database's pymem schema is missing or of another version."""


class EmbedderMissing(PymemError):
    """The optional embedder is not installed (``pip install pymem[embed]``)."""


BY_SQLSTATE: dict[str, type[PymemError]] = {
    cls.sqlstate: cls for cls in PymemError.__subclasses__() if cls.sqlstate is not None
}


_BAD_INPUT = frozenset({"22007", "22008", "22003", "22021", "54001"})


def from_database_error(exc: psycopg.Error) -> PymemError | None:
    """The pymem exception for a driver error, or None if it is not one of ours."""
    sqlstate = getattr(exc, "sqlstate", None)
    diag = getattr(exc, "diag", None)
    message = (diag.message_primary if diag is not None else None) or str(exc)
    hint = diag.message_hint if diag is not None else None
    detail = diag.message_detail if diag is not None else None
    cls = BY_SQLSTATE.get(sqlstate or "")
    if cls is None and sqlstate in _BAD_INPUT:
        # PostgreSQL's own codes for input it cannot read: kept as they are
        return InvalidInput(message, sqlstate=sqlstate, hint=hint, detail=detail)
    if cls is None and sqlstate is None and "cannot adapt" in str(exc):
        cls = WrongArgumentType
    if cls is None and sqlstate == "42846":
        # a value the wrapper casts that is of no castable type (a bool as a number)
        cls = WrongArgumentType
    if cls is None and sqlstate is None and "NUL (0x00)" in str(exc):
        # psycopg refuses NUL bytes before they reach the server.
        cls, message = InvalidContent, "text must not contain NUL (0x00) bytes"
    if cls is None and sqlstate == "22P05" and "\\u0000" in str(exc):
        # PostgreSQL's JSON parser refuses NUL escapes in a batch.
        cls, message = InvalidContent, "text must not contain NUL (0x00) bytes"
    if cls is None and sqlstate == "22000" and ("NaN" in message or "infinite" in message):
        # pgvector refuses NaN and infinity while parsing the vector, before pymem runs.
        cls, message = InvalidEmbedding, f"embedding is not finite: {message}"
    if cls is None and sqlstate == "22000" and "at least 1 dimension" in message:
        cls, message = DimensionMismatch, f"embedding has no dimensions: {message}"
    if cls is None and sqlstate == "XX000" and "from a query on a shard" in message:
        cls = ShardMoved
    if cls is None and type(exc).__name__ == "PoolTimeout":
        # psycopg_pool's (an optional dependency): the pool had no free connection
        cls = PoolExhausted
        message = f"no free connection in the pool: {message}"
    if (
        cls is None
        and isinstance(exc, psycopg.OperationalError)
        and (
            sqlstate is None or sqlstate.startswith("08") or sqlstate in ("57P01", "57P02", "57P03")
        )
    ):
        cls = ConnectionLost
        if message.startswith("connection failed: "):
            # psycopg's connect(): no connection was made (a store's DSN, or its
            # reconnection after a break)
            message = f"cannot connect to PostgreSQL: {message.removeprefix('connection failed: ')}"
        else:
            message = f"connection to the database lost: {message}"
    if cls is None:
        return None
    return cls(message, sqlstate=cls.sqlstate or sqlstate, hint=hint, detail=detail)


@contextmanager
def wrap_errors() -> Iterator[None]:
    """Re-raise pymem's SQLSTATEs as :class:`PymemError` subclasses."""
    try:
        yield
    except psycopg.Error as exc:
        mapped = from_database_error(exc)
        if mapped is None:
            raise
        raise mapped from exc
    except UnicodeEncodeError as exc:
        # a str holding a lone surrogate cannot be sent as UTF-8
        raise InvalidContent(
            f"text is not valid UTF-8: {exc.reason} at position {exc.start}",
            sqlstate=InvalidContent.sqlstate,
        ) from exc
