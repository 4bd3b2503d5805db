"""``pymem bench peers``: pymem next to mem0, the library users compare it with.

mem0's open-source ``Memory`` (``pip install 'pymem[peers]'``) runs with its
pgvector store on the same PostgreSQL server as pymem, in a database of its
own, with the same precomputed vectors: a stub embedder hands mem0 the vector
generated for each text, ``add`` runs with ``infer=False`` (no LLM: the LLM
object is replaced by one that raises if called), telemetry is off and every
Python-level network connection is refused while the bench runs.

On the same generated data, call by call (who goes first alternates):

- writes: each fact once through ``MemoryStore.upsert`` (``pymem.upsert_memory``,
  a transaction each) and ``Memory.add(text, user_id=..., infer=False)``; about
  10% of the writes repeat an earlier fact of the same user (same text, same
  vector): per-call latency, load rate, and what each store kept;
- recall: ``MemoryStore.recall(user, vector, 10)`` and
  ``Memory.search(text, top_k=10, filters={"user_id": user}, threshold=0)``:
  latency, and recall@10 against the exact top 10 by cosine over the rows each
  store holds for that user (numpy over the stored vectors; a row tied with the
  10th counts).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import socket
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from psycopg import sql

from bench.common import (
    Out,
    TextGen,
    Timing,
    at_cosine,
    bench_database,
    connect,
    elapsed,
    explain_analyze,
    machine_lines,
    recreate_database,
    unit_vectors,
)

DATABASE = "pymem_bench_peers"
MEM0_DATABASE = "pymem_bench_peers_mem0"
DIMENSIONS = 384
COLLECTION = "memories"
INSTALL_HINT = "pymem bench peers needs mem0: pip install 'pymem[peers]'"
MEASURED_WITH = "2.2.1"  # the mem0ai of the README's table, pinned by pymem[peers]

# mem0's pgvector search, as mem0 2.2.1 sends it (mem0/vector_stores/pgvector.py),
# for EXPLAIN: a filter on the payload's user_id, ORDER BY distance, LIMIT.
MEM0_SEARCH = (
    "SELECT id, vector <=> %s::vector AS distance, payload FROM memories"
    " WHERE payload->>%s = %s ORDER BY distance LIMIT %s"
)


@dataclass(frozen=True)
class PeersSizes:
    users: int
    per_user: int  # distinct facts of each user
    repeat: float  # repeated writes per distinct fact (same text, same vector)
    queries: int  # recall queries per user
    seed: int = 20_261_201


FULL = PeersSizes(users=10, per_user=1_000, repeat=0.1, queries=30)
QUICK = PeersSizes(users=4, per_user=200, repeat=0.1, queries=10)


# -- mem0, offline ------------------------------------------------------------------------


def mem0_version() -> str | None:
    """The installed mem0ai's version; None when mem0 cannot be imported."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        import_mem0()
        return version("mem0ai")
    except (ImportError, PackageNotFoundError):
        return None


def import_mem0() -> Any:
    """mem0's ``Memory`` class, imported with telemetry off and its state in a temp dir."""
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("MEM0_DIR", str(Path(tempfile.gettempdir()) / "pymem-bench-mem0"))
    from mem0 import Memory
    from mem0.memory import telemetry

    if telemetry.MEM0_TELEMETRY:
        raise RuntimeError("mem0 was imported with telemetry on before the bench turned it off")
    return Memory


class StubEmbedder:
    """mem0's embedder interface over the precomputed vectors: no model, no network."""

    def __init__(self, vectors: dict[str, np.ndarray]):
        self.vectors = vectors
        self.calls = 0

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        self.calls += 1
        return self.vectors[text].tolist()

    def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:
        return [self.embed(t, memory_action) for t in texts]


class NoLLM:
    """Stands in for mem0's LLM: with ``infer=False`` it must never be called."""

    def generate_response(self, *args: Any, **kwargs: Any) -> str:
        raise AssertionError("mem0 called its LLM although infer=False")


class NetworkRefused(OSError):
    pass


_LOOPBACK = {"localhost", "127.0.0.1", "::1", "", None}


@contextmanager
def no_network(refused: list[str]) -> Iterator[None]:
    """Refuse (and record) every Python-level connection or lookup beyond loopback."""

    def local(address: Any) -> bool:
        if isinstance(address, (str, bytes)):  # a unix socket path
            return True
        return address[0] in _LOOPBACK

    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> None:
        if not local(address):
            refused.append(f"connect {address!r}")
            raise NetworkRefused(f"pymem bench peers runs offline: connect {address!r}")
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if not local(address):
            refused.append(f"connect {address!r}")
            raise NetworkRefused(f"pymem bench peers runs offline: connect {address!r}")
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in _LOOPBACK:
            refused.append(f"getaddrinfo {host!r}")
            raise NetworkRefused(f"pymem bench peers runs offline: lookup {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
    try:
        yield
    finally:
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = real_getaddrinfo  # type: ignore[assignment]


@contextmanager
def quiet_mem0() -> Iterator[None]:
    """mem0's warnings off while it runs (one per process says spaCy is missing)."""
    logger = logging.getLogger("mem0")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def make_mem0(mem0_dsn: str, dim: int, vectors: dict[str, np.ndarray], history: Path) -> Any:
    """mem0's ``Memory`` on its pgvector store at ``mem0_dsn``, with the stub embedder.

    The config names OpenAI for the embedder and the LLM (mem0 accepts only known
    providers; building their clients makes no request); both objects are replaced
    before the first call."""
    memory_class = import_mem0()
    memory = memory_class.from_config(
        {
            "vector_store": {
                "provider": "pgvector",
                "config": {
                    "connection_string": mem0_dsn,
                    "collection_name": COLLECTION,
                    "embedding_model_dims": dim,
                },
            },
            "embedder": {
                "provider": "openai",
                "config": {"api_key": "unused-offline", "embedding_dims": dim},
            },
            "llm": {"provider": "openai", "config": {"api_key": "unused-offline"}},
            "history_db_path": str(history),
        }
    )
    memory.embedding_model = StubEmbedder(vectors)
    memory.llm = NoLLM()
    return memory


# -- the data -------------------------------------------------------------------------------


@dataclass
class Write:
    user: str
    text: str
    repeat: bool  # an earlier write of this user, again


@dataclass
class Query:
    user: str
    text: str
    vector: np.ndarray


def user_ids(sizes: PeersSizes) -> list[str]:
    return [f"peers-user-{u}" for u in range(sizes.users)]


def make_data(
    sizes: PeersSizes, dim: int
) -> tuple[list[Write], list[Query], dict[str, np.ndarray]]:
    """The writes in arrival order (users interleaved), the queries, every text's vector."""
    rng = np.random.default_rng(sizes.seed)
    texts = TextGen(rng)
    vectors: dict[str, np.ndarray] = {}
    per_user: dict[str, list[Write]] = {}
    facts: dict[str, list[str]] = {}
    repeats = round(sizes.per_user * sizes.repeat)
    for user in user_ids(sizes):
        mine = texts.facts(sizes.per_user)
        vectors.update(zip(mine, unit_vectors(rng, len(mine), dim), strict=True))
        facts[user] = mine
        stream = [Write(user, t, False) for t in mine]
        # each repeat goes after its original, at a random later position
        for _ in range(repeats):
            text = mine[int(rng.integers(0, len(mine)))]
            first = next(p for p, w in enumerate(stream) if w.text == text)
            stream.insert(int(rng.integers(first + 1, len(stream) + 1)), Write(user, text, True))
        per_user[user] = stream
    writes: list[Write] = []
    cursors = dict.fromkeys(per_user, 0)
    while cursors:
        for user in list(cursors):
            i = cursors[user]
            writes.append(per_user[user][i])
            if i + 1 == len(per_user[user]):
                del cursors[user]
            else:
                cursors[user] = i + 1
    queries: list[Query] = []
    for user in user_ids(sizes):
        for i in range(sizes.queries):
            # a question about something remembered: near one of the user's facts
            base = vectors[facts[user][int(rng.integers(0, sizes.per_user))]]
            vector = at_cosine(rng, base, float(rng.uniform(0.5, 0.9)))
            text = f"query-{user}-{i}"  # shares no word with any fact: no keyword match
            vectors[text] = vector
            queries.append(Query(user, text, vector))
    return writes, queries, vectors


# -- measuring ------------------------------------------------------------------------------


def clock(obj: Any, name: str, seconds: list[float]) -> None:
    """Time each call of ``obj.name`` into ``seconds`` (the call itself unchanged)."""
    real = getattr(obj, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            seconds.append(time.perf_counter() - t0)

    setattr(obj, name, timed)


def _timed(call: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    result = call()
    return time.perf_counter() - t0, result


def _matrix(rows: list[tuple]) -> np.ndarray:
    """The vectors of ``(id, vector)`` rows as one float matrix."""
    return np.stack([r[1].to_numpy() for r in rows]).astype(np.float64)


def stored_rows(pymem_dsn: str, mem0_dsn: str, users: list[str]) -> dict[str, dict[str, Any]]:
    """Each store's live rows by user: ids and vectors (for the exact top 10)."""
    out: dict[str, dict[str, Any]] = {"pymem": {}, "mem0": {}}
    with connect(pymem_dsn) as conn:
        for user in users:
            rows = conn.execute(
                "SELECT id::text, embedding FROM pymem.memories WHERE user_id = %s"
                " AND deleted_at IS NULL AND consolidated_into IS NULL ORDER BY id",
                (user,),
            ).fetchall()
            out["pymem"][user] = ([r[0] for r in rows], _matrix(rows))
    with connect(mem0_dsn) as conn:
        for user in users:
            rows = conn.execute(
                "SELECT id::text, vector FROM memories WHERE payload->>'user_id' = %s ORDER BY id",
                (user,),
            ).fetchall()
            out["mem0"][user] = ([r[0] for r in rows], _matrix(rows))
    return out


def recall_at_10(ids: list[str], vectors: np.ndarray, query: np.ndarray, got: list[str]) -> float:
    """Share of the exact top 10 (by cosine over ``vectors``) found in ``got``; a row
    tied with the 10th counts (a repeated fact stored twice has two equal rows)."""
    sims = vectors @ query.astype(np.float64) / np.linalg.norm(vectors, axis=1)
    k = min(10, len(ids))
    kth = np.sort(sims)[::-1][k - 1]
    index = {row: i for i, row in enumerate(ids)}
    hits = sum(1 for row in got if sims[index[row]] >= kth - 1e-6)
    return min(hits, k) / k


def run(
    dsn: str,
    mem0_dsn: str,
    sizes: PeersSizes = FULL,
    out: Out = print,
) -> dict[str, Any]:
    """The benchmark: pymem on the migrated database ``dsn``, mem0 on the empty ``mem0_dsn``."""
    from pymem.store import MemoryStore

    version = mem0_version()
    if version is None:
        raise RuntimeError(INSTALL_HINT)
    started = time.perf_counter()
    with connect(dsn) as conn:
        machine = machine_lines(conn)
        dim = conn.execute("SELECT embedding_dimensions FROM pymem.settings").fetchone()[0]
    spacy = importlib.util.find_spec("spacy") is not None
    for line in machine:
        out(line)
    if version != MEASURED_WITH:
        out(f"NOTE: mem0ai {version}; the README's table was measured with {MEASURED_WITH}")
    writes, queries, vectors = make_data(sizes, dim)
    users = user_ids(sizes)
    repeats = sum(w.repeat for w in writes)
    out(
        f"-- pymem vs mem0ai {version}: {sizes.users} users x {sizes.per_user:,} facts, "
        f"{dim}-d, {repeats:,} repeated writes (same text and vector), "
        f"{len(queries):,} recall queries"
    )
    if not spacy:
        out(
            "   mem0 runs without spaCy (its [nlp] extra): its keyword search reads the raw "
            "text and no entity boosts; the query texts share no word with any fact"
        )
    warm = [f"peers-warmup {w}" for w in ("one", "two", "three")]
    for i, text in enumerate(warm):
        vectors[text] = unit_vectors(np.random.default_rng(i), 1, dim)[0]
    refused: list[str] = []
    timings = {name: Timing([]) for name in ("pymem_write", "mem0_write", "pymem_recall")}
    timings.update(mem0_recall=Timing([]), mem0_insert=Timing([]), mem0_history=Timing([]))
    actions: Counter[str] = Counter()
    mem0_events: Counter[str] = Counter()
    recall: dict[str, list[float]] = {"pymem": [], "mem0": []}
    returned: dict[str, list[int]] = {"pymem": [], "mem0": []}
    foreign = {"pymem": 0, "mem0": 0}
    with (
        tempfile.TemporaryDirectory() as tmp,
        no_network(refused),
        quiet_mem0(),
        MemoryStore(dsn) as store,
    ):
        memory = make_mem0(mem0_dsn, dim, vectors, Path(tmp) / "history.db")
        try:
            # warm-up, not measured: first connections, schema check, mem0 creates its table
            for text in warm:
                store.upsert("peers-warmup", text, vectors[text])
                memory.add(text, user_id="peers-warmup", infer=False)
            # where mem0's write time goes: its pgvector INSERT, its SQLite history row
            clock(memory.vector_store, "insert", timings["mem0_insert"].seconds)
            clock(memory.db, "add_history", timings["mem0_history"].seconds)
            t0 = time.perf_counter()
            for n, w in enumerate(writes):
                vector = vectors[w.text]

                def pymem_write(w: Write = w, vector: np.ndarray = vector) -> Any:
                    return store.upsert(w.user, w.text, vector)

                def mem0_write(w: Write = w) -> Any:
                    return memory.add(w.text, user_id=w.user, infer=False)

                order = [("pymem", pymem_write), ("mem0", mem0_write)]
                for name, call in order if n % 2 == 0 else order[::-1]:
                    seconds, result = _timed(call)
                    timings[f"{name}_write"].seconds.append(seconds)
                    if name == "pymem":
                        actions[("repeat " if w.repeat else "new ") + result.action] += 1
                    else:
                        for r in result["results"]:
                            mem0_events[("repeat " if w.repeat else "new ") + r["event"]] += 1
            out(f"   {len(writes):,} writes each, interleaved call by call: {elapsed(t0)}")
            for text in warm:
                store.recall("peers-warmup", vectors[text], 10)
                memory.search(text, top_k=10, filters={"user_id": "peers-warmup"}, threshold=0.0)
            rows = stored_rows(dsn, mem0_dsn, users)
            held_ids = {name: {u: set(r[0]) for u, r in rows[name].items()} for name in rows}
            t0 = time.perf_counter()
            for n, q in enumerate(queries):

                def pymem_recall(q: Query = q) -> list[str]:
                    return [str(h.memory_id) for h in store.recall(q.user, q.vector, 10)]

                def mem0_recall(q: Query = q) -> list[str]:
                    found = memory.search(
                        q.text, top_k=10, filters={"user_id": q.user}, threshold=0.0
                    )
                    return [r["id"] for r in found["results"]]

                order = [("pymem", pymem_recall), ("mem0", mem0_recall)]
                for name, call in order if n % 2 == 0 else order[::-1]:
                    seconds, got = _timed(call)
                    timings[f"{name}_recall"].seconds.append(seconds)
                    ids, held = rows[name][q.user]
                    known = held_ids[name][q.user]
                    mine = [g for g in got if g in known]
                    foreign[name] += len(got) - len(mine)
                    returned[name].append(len(got))
                    recall[name].append(recall_at_10(ids, held, q.vector, mine))
            out(f"   {len(queries):,} recalls each, interleaved call by call: {elapsed(t0)}")
        finally:
            memory.vector_store.connection_pool.close()
            memory.db.connection.close()
    if refused:
        raise RuntimeError(f"a network call was attempted: {refused[:3]}")

    stored = {name: {u: len(rows[name][u][0]) for u in users} for name in ("pymem", "mem0")}
    plans = mem0_plans(mem0_dsn, users[0], queries[0].vector)
    result = {
        "mem0_version": version,
        "spacy": spacy,
        "machine": machine,
        "dimensions": dim,
        "users": sizes.users,
        "per_user": sizes.per_user,
        "writes": len(writes),
        "repeats": repeats,
        "queries": len(queries),
        "hnsw_ef_search": plans.pop("ef_search"),
        "timings": timings,
        "actions": dict(actions),
        "mem0_events": dict(mem0_events),
        "stored": {name: sum(v.values()) for name, v in stored.items()},
        "recall_at_10": {name: float(np.mean(v)) for name, v in recall.items()},
        "recall_min": {name: float(np.min(v)) for name, v in recall.items()},
        "returned": {name: float(np.mean(v)) for name, v in returned.items()},
        "short_results": {name: sum(n < 10 for n in v) for name, v in returned.items()},
        "foreign_rows": foreign,
        "refused_network": refused,
        "mem0_plans": plans,
        "embed_calls": memory.embedding_model.calls,
        "seconds": time.perf_counter() - started,
    }
    for line in format_result(result):
        out(line)
    return result


def mem0_plans(mem0_dsn: str, user: str, vector: np.ndarray) -> dict[str, Any]:
    """EXPLAIN ANALYZE of mem0's search query (its over-fetch of 60 rows): custom and generic."""
    params = (vector, "user_id", user, 60)
    plans: dict[str, list[str]] = {}
    with connect(mem0_dsn) as conn:
        plans["custom"] = explain_analyze(conn, MEM0_SEARCH, params)
        # pgvector's setting exists once its library is loaded (the scan above loads it)
        ef = conn.execute("SELECT current_setting('hnsw.ef_search', true)").fetchone()[0]
        plans["ef_search"] = ef or "40 (pgvector's default)"
        conn.execute("SET plan_cache_mode = force_generic_plan")
        conn.execute(
            "PREPARE mem0_search(vector, text, text, bigint) AS"
            " SELECT id, vector <=> $1 AS distance, payload FROM memories"
            " WHERE payload->>$2 = $3 ORDER BY distance LIMIT $4"
        )
        literal = "[" + ",".join(f"{x:.8g}" for x in vector.tolist()) + "]"
        execute = sql.SQL("EXECUTE mem0_search({}, 'user_id', {}, 60)").format(
            sql.Literal(literal), sql.Literal(user)
        )
        plans["generic"] = explain_analyze(conn, execute.as_string(conn), ())
    return plans


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def summary_rows(res: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(measure, pymem, mem0, mem0/pymem) lines of the table."""
    t = res["timings"]
    pw, mw, pr, mr = t["pymem_write"], t["mem0_write"], t["pymem_recall"], t["mem0_recall"]
    distinct = res["users"] * res["per_user"]
    return [
        (
            "write p50 (ms)",
            f"{pw.median_ms:.2f}",
            f"{mw.median_ms:.2f}",
            _ratio(mw.median_ms, pw.median_ms),
        ),
        ("write p95 (ms)", f"{pw.p95_ms:.2f}", f"{mw.p95_ms:.2f}", _ratio(mw.p95_ms, pw.p95_ms)),
        (
            "  mem0's write: its pgvector INSERT p50 (ms)",
            "",
            f"{t['mem0_insert'].median_ms:.2f}",
            "",
        ),
        (
            "  mem0's write: its SQLite history row p50 (ms)",
            "",
            f"{t['mem0_history'].median_ms:.2f}",
            "",
        ),
        (
            "load rate (writes/s)",
            f"{pw.per_s:,.0f}",
            f"{mw.per_s:,.0f}",
            _ratio(pw.per_s, mw.per_s) + " faster (pymem)",
        ),
        (
            f"rows stored ({distinct:,} facts + {res['repeats']:,} repeats)",
            f"{res['stored']['pymem']:,}",
            f"{res['stored']['mem0']:,}",
            "",
        ),
        (
            "recall p50 (ms)",
            f"{pr.median_ms:.2f}",
            f"{mr.median_ms:.2f}",
            _ratio(mr.median_ms, pr.median_ms),
        ),
        ("recall p95 (ms)", f"{pr.p95_ms:.2f}", f"{mr.p95_ms:.2f}", _ratio(mr.p95_ms, pr.p95_ms)),
        (
            "rows returned of 10 (mean)",
            f"{res['returned']['pymem']:.1f}",
            f"{res['returned']['mem0']:.1f}",
            "",
        ),
        (
            f"searches returning < 10 rows (of {res['queries']:,})",
            f"{res['short_results']['pymem']:,}",
            f"{res['short_results']['mem0']:,}",
            "",
        ),
        (
            "recall@10 vs exact top 10 (mean)",
            f"{res['recall_at_10']['pymem']:.3f}",
            f"{res['recall_at_10']['mem0']:.3f}",
            "",
        ),
    ]


def format_result(res: dict[str, Any]) -> list[str]:
    """The side-by-side table and what each store did with a repeated fact."""
    lines = [f"   {'':<44} {'pymem':>10} {'mem0':>10}  mem0/pymem"]
    for name, a, b, ratio in summary_rows(res):
        lines.append(f"   {name:<44} {a:>10} {b:>10}  {ratio}")
    repeats = res["repeats"]
    dup = res["actions"].get("repeat duplicate", 0)
    lines.append(
        f"   a repeated fact: pymem {dup:,} of {repeats:,} decided 'duplicate' "
        f"(no new row; {dict(res['actions'])}); mem0 stored "
        f"{res['mem0_events'].get('repeat ADD', 0):,} of {repeats:,} again "
        f"({dict(res['mem0_events'])})"
    )
    lines.append(
        f"   rows returned that the store does not hold for that user: {res['foreign_rows']}; "
        f"network calls refused: {len(res['refused_network'])}; "
        f"hnsw.ef_search {res['hnsw_ef_search']}"
    )
    for kind in ("custom", "generic"):
        lines.append(f"   mem0's search query (LIMIT 60), {kind} plan:")
        lines.extend(f"      {line}" for line in res["mem0_plans"][kind])
    return lines


def to_json(res: dict[str, Any]) -> dict[str, Any]:
    """The result without Timing objects: p50, p95, rate per measure."""
    out = {k: v for k, v in res.items() if k != "timings"}
    out["timings"] = {
        name: {
            "n": t.n,
            "p50_ms": round(t.median_ms, 3),
            "p95_ms": round(t.p95_ms, 3),
            "per_s": round(t.per_s, 1),
        }
        for name, t in res["timings"].items()
    }
    out["table"] = [
        {"measure": m, "pymem": a, "mem0": b, "ratio": r} for m, a, b, r in summary_rows(res)
    ]
    return out


def main(dsn: str | None = None, quick: bool = False, as_json: bool = False) -> int:
    """``pymem bench peers [--quick] [--json]``: two databases, recreated each run."""
    from pymem.migrate import migrate

    if mem0_version() is None:
        print(INSTALL_HINT, file=sys.stderr)
        return 2
    suffix = "_quick" if quick else ""
    name, mem0_name = DATABASE + suffix, MEM0_DATABASE + suffix
    admin, bench = bench_database(dsn, name)
    _, mem0_bench = bench_database(admin, mem0_name)
    log = (lambda line: print(line, file=sys.stderr)) if as_json else print
    log(
        f"pymem bench peers{' --quick' if quick else ''}: databases {name} and {mem0_name} "
        "(recreated)"
    )
    recreate_database(admin, name)
    recreate_database(admin, mem0_name)
    migrate(bench, dimensions=DIMENSIONS)
    result = run(bench, mem0_bench, QUICK if quick else FULL, out=log)
    if as_json:
        print(json.dumps(to_json(result)))
    return 0
