"""What both benchmarks share: their database, the machine, generated data, timing.

The benchmarks never write into a database that may hold real memories: with
a DSN they create their own database (``pymem_bench_*``) on that server, with
none on the embedded server.
"""

from __future__ import annotations

import os
import platform
import queue
import re
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.conninfo import make_conninfo

from pymem.server import (
    drop_scratch_database,
    recreate_scratch_database,
    reusable_scratch_database,
)

Out = Callable[[str], None]

PG_EPOCH = datetime(2000, 1, 1, tzinfo=timezone.utc)
DAY_US = 86_400 * 1_000_000

_VECTOR_LITERAL = re.compile(r"'\[[^\]]*\]'::vector")

# Planner settings under which a query can only read the table sequentially.
SEQSCAN_ONLY = ("enable_indexscan", "enable_bitmapscan", "enable_indexonlyscan")


# -- the database ---------------------------------------------------------------------------


def bench_database(dsn: str | None, name: str) -> tuple[str, str]:
    """(admin DSN, DSN of database ``name``) on the server of ``dsn`` (or ``PYMEM_DSN``),
    else the embedded one."""
    from pymem.server import named_dsn, start_embedded

    dsn = named_dsn(dsn) or start_embedded(database="postgres")
    return dsn, make_conninfo(dsn, dbname=name)


def database_kept(admin_dsn: str, name: str) -> bool:
    """Whether a benchmark's database from an earlier run is there to reuse; a database of
    that name that no benchmark made is refused (``pymem.server``'s scratch rule)."""
    return reusable_scratch_database(admin_dsn, name, owner="pymem bench")


def drop_database(admin_dsn: str, name: str) -> None:
    """Drop a benchmark's database: only one a benchmark made (``pymem.server``'s scratch
    rule: a store of somebody's by the same name is refused, never dropped)."""
    drop_scratch_database(admin_dsn, name, owner="pymem bench")


def recreate_database(admin_dsn: str, name: str, template: str | None = None) -> None:
    """Drop and create ``name`` (a clone of ``template``, if given) under the same rule;
    the caller migrates it."""
    recreate_scratch_database(admin_dsn, name, owner="pymem bench", template=template)


def connect(dsn: str) -> psycopg.Connection:
    """An autocommit connection with the vector types registered."""
    conn = psycopg.connect(dsn, autocommit=True)
    register_vector(conn)
    return conn


@contextmanager
def seqscan_only(conn: psycopg.Connection) -> Iterator[None]:
    """Index scans off: what runs inside reads whole tables."""
    for name in SEQSCAN_ONLY:
        conn.execute(sql.SQL("SET {} = off").format(sql.Identifier(name)))
    try:
        yield
    finally:
        for name in SEQSCAN_ONLY:
            conn.execute(sql.SQL("RESET {}").format(sql.Identifier(name)))


def explain_analyze(conn: psycopg.Connection, query: str, params: Sequence | dict) -> list[str]:
    """EXPLAIN ANALYZE lines, vector literals shortened to ``'[...]'::vector``."""
    rows = conn.execute(f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) {query}", params).fetchall()
    return [_VECTOR_LITERAL.sub("'[...]'::vector", r[0]) for r in rows]


def vacuum_analyze(conn: psycopg.Connection, out: Out) -> None:
    t0 = time.perf_counter()
    conn.execute("VACUUM ANALYZE pymem.memories")
    out(f"  VACUUM ANALYZE pymem.memories after the load: {time.perf_counter() - t0:.1f} s")


# -- the machine ------------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> str:
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        return f"{pages / 2**30:.0f} GiB RAM"
    except (ValueError, OSError, AttributeError):
        return "RAM unknown"


def machine_lines(conn: psycopg.Connection) -> list[str]:
    """The machine and server a result belongs to."""

    def show(name: str) -> str:
        return conn.execute(sql.SQL("SHOW {}").format(sql.Identifier(name))).fetchone()[0]

    vector = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    try:
        load = "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except OSError:
        load = "load average unknown"
    return [
        f"machine: {os.cpu_count()} CPUs ({_cpu_model()}), {_memory_gib()}, "
        f"{platform.platform()}, Python {platform.python_version()}",
        f"server: PostgreSQL {show('server_version')}, pgvector "
        f"{vector[0] if vector else 'missing'}; shared_buffers {show('shared_buffers')}, "
        f"synchronous_commit {show('synchronous_commit')}, fsync {show('fsync')}, "
        f"work_mem {show('work_mem')}, jit {show('jit')}, "
        f"max_parallel_workers_per_gather {show('max_parallel_workers_per_gather')}",
        f"{load} at start",
    ]


# -- generated data ----------------------------------------------------------------------------

# Words that would make pymem see a number, a negation or an intensifier;
# the generated texts have none, so only cosine and fingerprint decide.
_BANNED = {
    "not",
    "no",
    "never",
    "none",
    "nothing",
    "nobody",
    "without",
    "cannot",
    "very",
    "really",
    "truly",
    "quite",
    "extremely",
    "absolutely",
    "totally",
    "super",
    "so",
    "pretty",
    "highly",
}
_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"


class TextGen:
    """Short fact-like sentences of made-up words: no digits, negations or topics."""

    def __init__(self, rng: np.random.Generator, vocabulary: int = 6000, words: int = 7):
        syllables = [c + v for c in _CONSONANTS for v in _VOWELS]
        pool: set[str] = set()
        while len(pool) < vocabulary:
            n = int(rng.integers(2, 4))
            word = "".join(syllables[i] for i in rng.integers(0, len(syllables), n))
            if word not in _BANNED:
                pool.add(word)
        self.vocabulary = sorted(pool)
        self.rng = rng
        self.words = words
        self._seen: set[str] = set()

    def facts(self, n: int, *, unique: bool = True) -> list[str]:
        """``n`` sentences; with ``unique``, none repeats one made before."""
        vocab = self.vocabulary
        out: list[str] = []
        while len(out) < n:
            idx = self.rng.integers(0, len(vocab), (n - len(out), self.words)).tolist()
            for row in idx:
                text = "user " + " ".join(vocab[i] for i in row)
                if unique:
                    if text in self._seen:
                        continue
                    self._seen.add(text)
                out.append(text)
        return out

    def edited(self, text: str) -> str:
        """The same sentence with one word replaced: a lightly edited restatement."""
        words = text.split(" ")
        i = int(self.rng.integers(1, len(words)))
        words[i] = self.vocabulary[int(self.rng.integers(0, len(self.vocabulary)))]
        return " ".join(words)

    @staticmethod
    def restated(text: str) -> str:
        """Different case and punctuation, the same normalized text (the same fingerprint)."""
        return text[:1].upper() + text[1:] + "."


def unit_vectors(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.standard_normal((n, dim), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


def at_cosine(rng: np.random.Generator, v: np.ndarray, cosine: float) -> np.ndarray:
    """A unit vector whose cosine with the unit vector ``v`` is ``cosine``."""
    base = v.astype(np.float64)
    w = rng.standard_normal(base.shape[0])
    w -= w.dot(base) * base
    w /= np.linalg.norm(w)
    u = cosine * base + np.sqrt(max(0.0, 1.0 - cosine * cosine)) * w
    return (u / np.linalg.norm(u)).astype(np.float32)


def timestamps_us(at: datetime, days_ago: np.ndarray) -> np.ndarray:
    """PostgreSQL binary timestamptz values (µs since 2000-01-01) ``days_ago`` before ``at``."""
    now_us = int((at - PG_EPOCH).total_seconds() * 1_000_000)
    return now_us - (days_ago * DAY_US).astype(np.int64)


@dataclass
class MemoryRows:
    """Rows for pymem.memories, loaded by binary COPY (setup, not the API)."""

    user_id: list[str]
    kind: list[str]
    content: list[str]
    embedding: np.ndarray  # (n, dim) float32
    importance: np.ndarray  # float64
    decay_rate: np.ndarray  # float64, NaN for NULL (the kind's rate)
    last_access_us: np.ndarray  # int64, see timestamps_us
    created_us: np.ndarray
    pinned: np.ndarray | None = None  # bool; None: none pinned

    def __len__(self) -> int:
        return len(self.user_id)


COPY_MEMORIES = (
    "COPY pymem.memories (user_id, kind, content, decay_rate, embedding, importance,"
    " last_access_at, created_at, pinned) FROM STDIN WITH (FORMAT BINARY)"
)
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_COPY_TRAILER = b"\xff\xff"
_NULL = struct.pack(">i", -1)


def _text_field(value: str) -> bytes:
    data = value.encode()
    return struct.pack(">i", len(data)) + data


def encode_copy(rows: MemoryRows) -> bytes:
    """One binary COPY stream of ``rows``; the fixed-width columns packed by numpy."""
    n, dim = rows.embedding.shape
    fixed = np.empty(
        n,
        dtype=np.dtype(
            [
                ("vlen", ">i4"),
                ("dim", ">u2"),
                ("unused", ">u2"),
                ("vec", ">f4", (dim,)),
                ("ilen", ">i4"),
                ("imp", ">f8"),
                ("llen", ">i4"),
                ("last", ">i8"),
                ("clen", ">i4"),
                ("created", ">i8"),
                ("plen", ">i4"),
                ("pinned", "u1"),
            ]
        ),
    )
    fixed["vlen"] = 4 + 4 * dim
    fixed["dim"] = dim
    fixed["unused"] = 0
    fixed["vec"] = rows.embedding
    fixed["ilen"] = 8
    fixed["imp"] = rows.importance
    fixed["llen"] = 8
    fixed["last"] = rows.last_access_us
    fixed["clen"] = 8
    fixed["created"] = rows.created_us
    fixed["plen"] = 1
    fixed["pinned"] = 0 if rows.pinned is None else rows.pinned
    block = fixed.tobytes()
    size = fixed.dtype.itemsize
    nfields = struct.pack(">h", 9)
    rates = {}
    parts = [_COPY_HEADER]
    for i in range(n):
        rate = float(rows.decay_rate[i])
        rate_field = rates.get(rate)
        if rate_field is None:
            rate_field = rates[rate] = (
                _NULL if np.isnan(rate) else struct.pack(">i", 8) + struct.pack(">d", rate)
            )
        parts.append(nfields)
        parts.append(_text_field(rows.user_id[i]))
        parts.append(_text_field(rows.kind[i]))
        parts.append(_text_field(rows.content[i]))
        parts.append(rate_field)
        parts.append(block[i * size : (i + 1) * size])
    parts.append(_COPY_TRAILER)
    return b"".join(parts)


def copy_memories(conn: psycopg.Connection, chunks: Iterable[MemoryRows]) -> int:
    """COPY every chunk; chunks are generated and encoded in a thread meanwhile."""
    todo: queue.Queue = queue.Queue(maxsize=2)

    def produce() -> None:
        try:
            for chunk in chunks:
                todo.put((len(chunk), encode_copy(chunk)))
        except BaseException as exc:  # handed to the consumer
            todo.put(exc)
            return
        todo.put(None)

    worker = threading.Thread(target=produce, daemon=True)
    worker.start()
    total = 0
    while (item := todo.get()) is not None:
        if isinstance(item, BaseException):
            raise item
        n, data = item
        with conn.cursor() as cur, cur.copy(COPY_MEMORIES) as copy:
            copy.write(data)
        total += n
    worker.join()
    return total


# -- timing and reporting ------------------------------------------------------------------------


@dataclass
class Timing:
    """Per-operation wall-clock seconds, client side."""

    seconds: list[float]

    @property
    def n(self) -> int:
        return len(self.seconds)

    @property
    def median_ms(self) -> float:
        return float(np.median(self.seconds)) * 1000 if self.seconds else float("nan")

    @property
    def p95_ms(self) -> float:
        return float(np.percentile(self.seconds, 95)) * 1000 if self.seconds else float("nan")

    @property
    def total_s(self) -> float:
        return float(sum(self.seconds))

    @property
    def per_s(self) -> float:
        """Operations per second over the measured time."""
        return self.n / self.total_s if self.seconds else float("nan")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def rotated(items: Sequence, k: int) -> list:
    """``items`` starting at position ``k``: interleaved rounds change who goes first."""
    k %= len(items)
    return [*items[k:], *items[:k]]


def elapsed(t0: float) -> str:
    return f"{time.perf_counter() - t0:.1f} s"
