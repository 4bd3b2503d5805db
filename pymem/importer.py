"""``pymem import FILE``: a JSONL file of memories through the same dedup as any write.

One JSON object per line: ``user`` (or ``user_id``), ``content``, ``embedding`` (a list of
numbers) or none (then the text is embedded with the bundled embedder), and any item key of
``pymem.memory_item`` (``kind``, ``importance``, ``topic``, ``canonical``, ``contacts``, ...).
Lines are sent per user in batches of ``pymem.import_memories`` (upsert_memories' typed batch:
one lock and one call a batch, in file order within a user), so a line restating an earlier
one is a duplicate of it, exactly as if the two had been written one after the other.

Each batch commits together with how far the file got for its user (``source``: the SHA-256
of the file's bytes unless named), so an interrupted import run again goes on from the first
line not committed: a restart is not a re-mention, and the counts end as a clean run's.
Every text is checked against the store's limits before anything is embedded or written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import psycopg

from pymem.errors import InvalidBatch, InvalidContent, InvalidParameter, PymemError
from pymem.progress import ProgressBar
from pymem.store import MemoryStore

Embed = Callable[[list[str]], Any]
# the default progress stream: sys.stderr looked up at call time, not bound at import
_STDERR = object()


@dataclass
class ImportResult:
    """What an import did; filled in as it goes, so a caller that passed one in still has
    the counts of what was committed when the import stops early."""

    lines: int = 0
    actions: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    # lines an earlier run of the same source committed, skipped by this one
    skipped: int = 0
    users: set[str] = field(default_factory=set)
    source: str = ""

    @property
    def rate(self) -> float:
        return self.lines / self.seconds if self.seconds else 0.0


def _read(path: Path) -> bytes:
    """The file's bytes; ``-``: standard input's."""
    if str(path) == "-":
        return sys.stdin.buffer.read()
    return path.read_bytes()


def _lines(data: bytes) -> list[str]:
    """The file's lines, without their ends, as a file opened in text mode splits them:
    at \\n, \\r\\n and \\r only (a JSON string may hold U+2028, which str.splitlines()
    would cut). A leading byte-order mark (an editor's UTF-8 "with BOM") is no part of line
    1, as pymem eval reads its datasets. Two replaces and a split: iterating a StringIO
    over a 1,536-d file's 30 KB lines cost 0.15 ms a line, a tenth of the import's."""
    text = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # after the end of the last line (or of an empty file): no line
    return lines


def _records(data: bytes) -> Iterator[tuple[int, dict[str, Any], str]]:
    for lineno, line in enumerate(_lines(data), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise InvalidBatch(f"line {lineno}: not JSON: {exc}", sqlstate="PM010") from exc
        if not isinstance(row, dict):
            raise InvalidBatch(f"line {lineno}: not a JSON object", sqlstate="PM010")
        # NUL and lone surrogates reach a line only as JSON escapes: the scan is for
        # lines that hold one (a NUL, or a surrogate, paired or not)
        unsendable = _unsendable(row) if _ESCAPED_UNSENDABLE.search(line) else None
        if unsendable is not None:
            # no text PostgreSQL can hold: the driver refuses it, before the store could
            # name the line (the error said "text must not contain NUL" for a batch)
            key, what = unsendable
            raise InvalidContent(
                f"line {lineno}: {key}: text must not contain {what}", sqlstate="PM002"
            )
        yield lineno, row, line


_ESCAPED_UNSENDABLE = re.compile(r"\\u(0000|[dD][89a-fA-F])")


def _unsendable(value: Any, key: str = "") -> tuple[str, str] | None:
    """The first string in ``value`` (a line's object) no PostgreSQL text can hold: the
    key it is under and what it holds (a NUL character, a lone surrogate). The embedding's
    numbers are not read."""
    if isinstance(value, str):
        if "\x00" in value:
            return key, "NUL (0x00) characters"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return key, "lone surrogates (no UTF-8 character)"
        return None
    if isinstance(value, dict):
        items = ((k, v) for k, v in value.items() if key or k != "embedding")
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for k, v in items:
        found = (_unsendable(k, key) if isinstance(k, str) else None) or _unsendable(
            v, f"{key}.{k}" if key else str(k)
        )
        if found is not None:
            return found
    return None


def _digests(lines: list[tuple[int, str]]) -> dict[int, str]:
    """Line number -> the SHA-256 of the user's lines through it (in file order): what an
    import records with each batch and a re-run compares before it goes on."""
    running = hashlib.sha256()
    out: dict[int, str] = {}
    for lineno, text in lines:
        running.update(text.encode("utf-8") + b"\n")
        out[lineno] = running.hexdigest()
    return out


def _digest_through(digests: dict[int, str], done: int) -> str:
    """The digest of the user's lines up to line ``done`` ('' for none)."""
    before = [n for n in digests if n <= done]
    return digests[max(before)] if before else ""


def _refuse_a_grown_file(
    store: MemoryStore, user: str, digests: dict[int, str], result: ImportResult
) -> None:
    """A first run under the file's digest whose user's first lines another import already
    committed (a file that grew after a kill, or after a whole run: another digest, so
    another source) would store them again: refused, naming that import."""
    for earlier in store.import_sources(user):
        if earlier.digest and earlier.digest == _digest_through(digests, earlier.lines_done):
            result.source = ""  # nothing written: nothing to go on with
            raise InvalidParameter(
                f"the lines of user {user!r} through line {earlier.lines_done} were committed "
                f"by import {earlier.source!r} (this file, before it grew?); nothing was written",
                sqlstate=InvalidParameter.sqlstate,
                hint=f"Run again with --source {earlier.source} to go on from line "
                f"{earlier.lines_done + 1}, or name a --source of its own to import them again.",
            )


def _progress(bar: ProgressBar, done: int, started: float) -> None:
    rate = done / max(time.perf_counter() - started, 1e-9)
    bar.show(done, f"{done:,}/{bar.total:,} lines, {rate:,.0f}/s")


_ITEM = re.compile(r"^item (\d+): ")


def _at_line(exc: PymemError, batch: list[tuple[int, dict[str, Any]]], user: str) -> PymemError:
    """The store's error for a batch, naming the line and the user instead of the item."""
    message = str(exc)
    found = _ITEM.match(message)
    where = f"user {user!r}"
    if found and 1 <= int(found.group(1)) <= len(batch):
        where = f"line {batch[int(found.group(1)) - 1][0]} ({where})"
        message = message[found.end() :]
    else:
        where = f"lines {batch[0][0]}-{batch[-1][0]} ({where})"
    return type(exc)(f"{where}: {message}", sqlstate=exc.sqlstate, hint=exc.hint, detail=exc.detail)


def _writers(store: MemoryStore, jobs: int, opened: list[MemoryStore]) -> list[MemoryStore]:
    """The stores an import writes through, one a job: a store of a DSN opens more
    connections (each appended to ``opened``, for the caller to close), a pool's lends
    them; a store of one connection (the caller's transaction) is the only one. A
    connection the server refuses (its limit, a role's CONNECTION LIMIT) means fewer
    writers, not a failed import."""
    if store._pool is not None:
        # no more writers than the pool has connections (0: no limit): a writer waiting
        # for one would give up after the pool's timeout while the other's batch runs
        size = getattr(store._pool, "max_size", 0) or jobs
        return [store] * max(1, min(jobs, size))
    if store._dsn is None:
        return [store]
    for _ in range(jobs - 1):
        try:
            opened.append(MemoryStore(store._dsn, retries=store._retries))
        except PymemError:
            break
    return [store, *opened]


def _cancel(writers: list[MemoryStore]) -> None:
    """Ctrl-C: cancel the statement each writer of its own connection has in flight, as
    psycopg does for the one statement of a single-threaded call (a batch rolls back as a
    whole); a pool's writers end their batch."""
    for writer in writers:
        conn = writer._owned
        if conn is not None and not conn.closed:
            # cancel_safe: psycopg 3.2 and later; cancel before it
            cancel = getattr(conn, "cancel_safe", None) or conn.cancel
            with contextlib.suppress(psycopg.Error):  # gone already: nothing in flight
                cancel()


Write = Callable[[MemoryStore, str, list[tuple[int, dict[str, Any]]]], None]


def _write_users(
    writers: list[MemoryStore],
    todo: dict[str, list[tuple[int, dict[str, Any]]]],
    batch_size: int,
    write: Write,
) -> None:
    """Each user's lines in batches, in file order, through one writer; the users dealt
    out to the writers as each finishes one (different users never wait for each other:
    each has its own lock). The first error stops the other writers after their batch and
    is raised once they stopped; a Ctrl-C, which reaches this (the main) thread, cancels
    the batches in flight too."""
    users = iter([user for user, rows in todo.items() if rows])
    dealing = threading.Lock()
    stop = threading.Event()

    def run(writer: MemoryStore) -> None:
        while not stop.is_set():
            with dealing:
                user = next(users, None)
            if user is None:
                return
            rows = todo[user]
            for start in range(0, len(rows), batch_size):
                if stop.is_set():
                    return
                write(writer, user, rows[start : start + batch_size])

    if len(writers) == 1:
        run(writers[0])  # in this thread: a Ctrl-C cancels its statement as psycopg does
        return
    errors: list[BaseException] = []

    def run_and_keep_error(writer: MemoryStore) -> None:
        try:
            run(writer)
        except BaseException as exc:
            errors.append(exc)
            stop.set()

    # daemon threads: the interpreter does not wait for them at exit (after a second
    # Ctrl-C); a batch in flight then rolls back when its connection closes
    threads = [
        threading.Thread(
            target=run_and_keep_error, args=(w,), name=f"pymem-import-{n}", daemon=True
        )
        for n, w in enumerate(writers, 1)
    ]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    except BaseException:
        # Ctrl-C: no writer starts another batch, and the statements in flight are
        # cancelled (a batch commits or rolls back as a whole); what committed is
        # recounted from the store once the writers stopped
        stop.set()
        _cancel(writers)
        for thread in threads:
            thread.join()
        raise
    if errors:
        raise errors[0]


def _recount(
    store: MemoryStore, todo: dict[str, list[tuple[int, dict[str, Any]]]], result: ImportResult
) -> None:
    """After a stop, the lines committed since the run began as the store has them: a batch
    may have committed just before Ctrl-C reached Python, which then never saw its rows."""
    try:
        done = {user: store.import_lines_done(user, result.source) for user in todo}
    except (PymemError, OSError, psycopg.Error):
        # the store is gone too, or the caller's transaction the error aborted
        # (InFailedSqlTransaction): what this run saw commit is what it can say, and the
        # error that stopped it is the one raised
        return
    committed = {user: sum(n <= done[user] for n, _ in rows) for user, rows in todo.items()}
    result.lines = sum(committed.values())
    result.users = {user for user, n in committed.items() if n}


def import_file(
    store: MemoryStore,
    path: str | Path,
    *,
    embed: Embed | None = None,
    batch_size: int = 500,
    jobs: int = 2,
    progress: TextIO | object | None = _STDERR,
    source: str | None = None,
    result: ImportResult | None = None,
) -> ImportResult:
    """Import ``path`` (``-``: standard input) into ``store``; returns the counts of each
    action. ``source`` names the import for resuming (default: the file's SHA-256); a line
    an earlier run of the same source committed is skipped. The progress bar goes to
    ``progress`` (sys.stderr as it is at call time; None: no bar). ``result`` is filled in
    as batches commit (pass one to keep the counts when the import raises). ``jobs``:
    connections writing at once, each a user at a time (a store of a DSN opens the others,
    a pool lends them; a store of one connection writes through it alone). Two writers
    took a 1,536-d import's writing from 0.76 to 0.45 ms a line on 2 cores."""
    if source is not None and not (isinstance(source, str) and source.strip()):
        # '' (an unset shell variable) fell back to the file's digest, silently
        raise InvalidParameter(
            f"source must name the import, got {source!r}", sqlstate=InvalidParameter.sqlstate
        )
    # a batch_size of 0 or less sent one line a call, silently
    for name, value in (("batch_size", batch_size), ("jobs", jobs)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidParameter(
                f"{name} must be a positive integer, got {value!r}",
                sqlstate=InvalidParameter.sqlstate,
            )
    if progress is _STDERR:
        progress = sys.stderr
    path = Path(path)
    # the import's time is all of it: reading, parsing and hashing the file too (a rate
    # from after them was 8% faster than the work)
    started = time.perf_counter()
    data = _read(path)
    records = list(_records(data))
    result = result if result is not None else ImportResult()
    result.source = source or hashlib.sha256(data).hexdigest()
    users: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    texts: dict[str, list[tuple[int, str]]] = {}
    for lineno, row, text in records:
        user = row.pop("user", None) or row.pop("user_id", None)
        if not isinstance(user, str) or not user.strip():
            raise InvalidBatch(
                f"line {lineno}: `user` must be a non-empty string", sqlstate="PM010"
            )
        if not isinstance(row.get("content"), str):
            raise InvalidBatch(f"line {lineno}: `content` must be a string", sqlstate="PM010")
        users.setdefault(user, []).append((lineno, row))
        texts.setdefault(user, []).append((lineno, text))
    digests = {user: _digests(lines) for user, lines in texts.items()}
    # what the store would refuse in a text, before a line is embedded or written
    store.check_contents(
        [row["content"] for rows in users.values() for _, row in rows],
        [f"line {n} (user {user!r}): content" for user, rows in users.items() for n, _ in rows],
    )
    todo: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for user, rows in users.items():
        done = store.import_lines_done(user, result.source)
        recorded = store.import_digest(user, result.source) if done else None
        if recorded is not None and recorded != _digest_through(digests[user], done):
            taken, result.source = result.source, ""  # nothing written: nothing to go on with
            raise InvalidParameter(
                f"source {taken!r} was committed for user {user!r} from another file: "
                f"its lines through line {done} differ from this file's; nothing was written",
                sqlstate=InvalidParameter.sqlstate,
                hint="Name this import with a --source of its own (or leave --source out: "
                "the file's SHA-256 names it).",
            )
        if not done and source is None:
            _refuse_a_grown_file(store, user, digests[user], result)
        todo[user] = [(lineno, row) for lineno, row in rows if lineno > done]
        result.skipped += len(rows) - len(todo[user])
    total = sum(map(len, todo.values()))
    bar = ProgressBar(total, progress) if progress is not None else None
    # one lock for what the writers share: the counts and the progress bar (lines to
    # embed go through one writer, below)
    shared = threading.Lock()

    def write(writer: MemoryStore, user: str, batch: list[tuple[int, dict[str, Any]]]) -> None:
        missing = [item for _, item in batch if item.get("embedding") is None]
        if missing:
            if embed is None:
                raise InvalidBatch(
                    f"line {batch[0][0]}: no embedding, and no embedder to compute one",
                    sqlstate="PM010",
                    hint="pip install 'pymem[embed]', or give each line an embedding.",
                )
            for item, vector in zip(missing, embed([i["content"] for i in missing]), strict=True):
                item["embedding"] = vector
        lines = [lineno for lineno, _ in batch]
        items = [item for _, item in batch]
        try:
            rows = writer.import_memories(
                user, result.source, lines, items, digest=digests[user][lines[-1]]
            )
        except PymemError as exc:
            raise _at_line(exc, batch, user) from exc
        with shared:
            result.actions.update(r.action for r in rows)
            result.lines += len(rows)
            result.skipped += len(batch) - len(rows)  # committed meanwhile by another run
            result.users.add(user)
            if bar is not None:
                _progress(bar, result.lines, started)

    # one writer a user at most; one in all when lines are embedded here: the embedder
    # records its model and thresholds on first use, which must not land between
    # another writer's batches
    to_embed = embed is not None and any(
        row.get("embedding") is None for rows in todo.values() for _, row in rows
    )
    jobs = 1 if to_embed else min(jobs, max(sum(1 for rows in todo.values() if rows), 1))
    opened: list[MemoryStore] = []
    try:
        writers = _writers(store, jobs, opened)
        _write_users(writers, todo, batch_size, write)
    except BaseException:
        if bar is not None:
            bar.end_line()  # the error, or the interruption, goes on a line of its own
        _recount(store, todo, result)
        raise
    finally:
        for writer in opened:
            writer.close()
        result.seconds = time.perf_counter() - started
    if bar is not None:
        bar.end_line()  # lines another run committed meanwhile never showed
    return result
