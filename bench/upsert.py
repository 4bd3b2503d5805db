"""``pymem bench upsert``: the write path against its limit, a plain INSERT.

On the same generated data, in one run, interleaved in rounds:

(a) a plain INSERT of the row into pymem.memories (same table, same indexes);
(b) the client-side way: SELECT the nearest live memory of the user, then
    INSERT or UPDATE from Python (two round trips, no lock; it decides by
    cosine alone, without pymem's fingerprint and trigram rules);
(c) ``pymem.upsert_memory`` (one call, autocommit, a transaction each).

Each method writes to its own copy of the same users (identical memories), so
the three see the same data and the same operations. About 70% of the
operations are new facts, 30% near-duplicates of a user's memory (a stored
vector plus noise, the same text restated or one word edited). Texts carry no
digits, negations or topics: only cosine, trigram and fingerprint decide.

Every decision of (c) is checked against a brute-force replay: the users' rows
read by a sequential scan before the run, the effect of each earlier operation
applied, the 8 nearest neighbours found by sorting all of them and judged by
the write path's own decision step (pymem._decision), so the check follows the rules
as they change. The replay's final state must equal the table's.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np
import psycopg

from bench.common import (
    MemoryRows,
    Out,
    TextGen,
    Timing,
    at_cosine,
    bench_database,
    connect,
    copy_memories,
    drop_database,
    elapsed,
    explain_analyze,
    machine_lines,
    recreate_database,
    rotated,
    seqscan_only,
    timestamps_us,
    unit_vectors,
    vacuum_analyze,
)
from bench.targets import Measured, judge, report

DATABASE = "pymem_bench_upsert"
METHODS = ("a", "b", "c")
METHOD_NAMES = {
    "a": "(a) plain INSERT (the limit)",
    "b": "(b) client-side SELECT + write",
    "c": "(c) pymem.upsert_memory",
}
NEW_SHARE = 0.70  # the rest are near-duplicates
RESTATED_SHARE = 0.40  # of the near-duplicates: same text, other case and punctuation


@dataclass(frozen=True)
class Scenario:
    per_user: int  # memories of each user before the run
    users: int  # users per method (each copied once per method)
    rounds: int
    ops_per_round: int  # per method and round


@dataclass(frozen=True)
class UpsertSizes:
    table_rows: int
    scenarios: tuple[Scenario, ...]
    lookup_probes: int
    batch_user_memories: int
    batch_size: int
    batch_reps: int
    seed: int = 20_240_601


FULL = UpsertSizes(
    table_rows=100_000,
    scenarios=(
        Scenario(per_user=100, users=100, rounds=5, ops_per_round=200),
        Scenario(per_user=1_000, users=10, rounds=5, ops_per_round=200),
        Scenario(per_user=10_000, users=1, rounds=5, ops_per_round=100),
    ),
    lookup_probes=30,
    batch_user_memories=1_000,
    batch_size=100,
    batch_reps=9,
)
QUICK = UpsertSizes(
    table_rows=20_000,
    scenarios=(
        Scenario(per_user=100, users=10, rounds=3, ops_per_round=40),
        Scenario(per_user=1_000, users=2, rounds=3, ops_per_round=40),
        Scenario(per_user=2_000, users=1, rounds=3, ops_per_round=20),
    ),
    lookup_probes=6,
    batch_user_memories=1_000,
    batch_size=100,
    batch_reps=3,
)

INSERT = (
    "INSERT INTO pymem.memories (user_id, kind, content, embedding) VALUES (%s, 'fact', %s, %b)"
)
NEAREST = (
    "SELECT id, 1 - (embedding <=> %(v)b) FROM pymem.memories"
    " WHERE user_id = %(u)s AND kind = 'fact' AND consolidated_into IS NULL"
    " AND deleted_at IS NULL ORDER BY embedding <=> %(v)b LIMIT 1"
)
REINFORCE = (
    "UPDATE pymem.memories SET mention_count = mention_count + 1, last_access_at = now(),"
    " tier = 'hot' WHERE user_id = %s AND id = %s"
)
REPLACE = (
    "UPDATE pymem.memories SET content = %s, embedding = %b, mention_count = mention_count + 1,"
    " last_access_at = now(), tier = 'hot' WHERE user_id = %s AND id = %s"
)
UPSERT = "SELECT memory_id, action, similarity, matched_id FROM pymem.upsert_memory(%s, %s, %b)"
UPSERT_BATCH = (
    "SELECT ordinal, memory_id, action, similarity, matched_id"
    " FROM pymem.upsert_memories(%s, %s::jsonb)"
)
UPSERT_BATCH_TYPED = (
    "SELECT ordinal, memory_id, action, similarity, matched_id"
    " FROM pymem.upsert_memories(%s, %s::text[], %b::vector[])"
)
# The batch's floor, in one call as the batch is: for each item the exact
# nearest-8 scan of the user's live rows that the match step runs, then a
# plain INSERT of the row (no checks, no decision, no lock).
BARE_BATCH_FUNCTION = """
CREATE OR REPLACE FUNCTION pg_temp.bare_batch(uid text, contents text[], vectors vector[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    n integer := 0;
    r record;
BEGIN
    FOR i IN 1..cardinality(contents) LOOP
        FOR r IN
            SELECT m.id FROM pymem.memories AS m
            WHERE m.user_id = uid AND m.kind = 'fact'
                AND m.consolidated_into IS NULL AND m.deleted_at IS NULL
            ORDER BY m.embedding <=> vectors[i]
            LIMIT 8
        LOOP
            n := n + 1;
        END LOOP;
        INSERT INTO pymem.memories (user_id, kind, content, embedding)
        VALUES (uid, 'fact', contents[i], vectors[i]);
    END LOOP;
    RETURN n;
END
$$
"""
# The candidate query of pymem._match (sql/20_match.sql, step 2).
LOOKUP = (
    "SELECT m.id, m.content, m.topic, 1 - (m.embedding <=> %(v)b) AS sim"
    " FROM pymem.memories AS m"
    " WHERE m.user_id = %(u)s AND m.kind = 'fact' AND m.consolidated_into IS NULL"
    " AND m.deleted_at IS NULL ORDER BY m.embedding <=> %(v)b LIMIT 8"
)


@dataclass
class BaseUser:
    texts: list[str]
    vectors: np.ndarray


@dataclass
class Op:
    base: int
    content: str
    embedding: np.ndarray
    shape: str  # new, restated, edited


@dataclass
class Thresholds:
    dedup: float
    supersede: float
    trigram: float
    topic_supersede: float
    term_change: float
    trigram_min_similarity: float


@dataclass
class ScenarioResult:
    scenario: Scenario
    timings: dict[str, Timing]
    actions: dict[str, Counter]
    exact: dict[str, Any] = field(default_factory=dict)

    @property
    def latency_ratio(self) -> float:
        """(c)/(a) median latency."""
        return self.timings["c"].median_ms / self.timings["a"].median_ms

    @property
    def throughput_ratio(self) -> float:
        """(c)/(b) rows per second."""
        return self.timings["c"].per_s / self.timings["b"].per_s


def user_id(per_user: int, base: int, method: str) -> str:
    return f"s{per_user}-{base}-{method}"


def make_ops(rng: np.random.Generator, texts: TextGen, users: list[BaseUser], n: int) -> list[Op]:
    """``n`` operations on random users: new facts and near-duplicates of their memories."""
    ops = []
    dim = users[0].vectors.shape[1]
    for _ in range(n):
        base = int(rng.integers(0, len(users)))
        if rng.random() < NEW_SHARE:
            ops.append(Op(base, texts.facts(1)[0], unit_vectors(rng, 1, dim)[0], "new"))
            continue
        user = users[base]
        src = int(rng.integers(0, len(user.texts)))
        if rng.random() < RESTATED_SHARE:
            cosine = rng.uniform(0.93, 0.995)
            content, shape = texts.restated(user.texts[src]), "restated"
        else:
            cosine = rng.uniform(0.70, 0.99)
            content, shape = texts.edited(user.texts[src]), "edited"
        ops.append(Op(base, content, at_cosine(rng, user.vectors[src], cosine), shape))
    return ops


# -- the three methods -------------------------------------------------------------------------


def plain_insert(cur: psycopg.Cursor, user: str, op: Op, t: Thresholds) -> tuple:
    cur.execute(INSERT, (user, op.content, op.embedding))
    return (None, "inserted", None, None)


def client_side(cur: psycopg.Cursor, user: str, op: Op, t: Thresholds) -> tuple:
    cur.execute(NEAREST, {"u": user, "v": op.embedding})
    row = cur.fetchone()
    if row is not None and row[1] >= t.dedup:
        cur.execute(REINFORCE, (user, row[0]))
        return (row[0], "duplicate", row[1], row[0])
    if row is not None and row[1] >= t.supersede:
        cur.execute(REPLACE, (op.content, op.embedding, user, row[0]))
        return (row[0], "superseded", row[1], row[0])
    cur.execute(INSERT, (user, op.content, op.embedding))
    return (None, "inserted", None, None)


def upsert_memory(cur: psycopg.Cursor, user: str, op: Op, t: Thresholds) -> tuple:
    cur.execute(UPSERT, (user, op.content, op.embedding))
    return cur.fetchone()


RUNNERS = {"a": plain_insert, "b": client_side, "c": upsert_memory}


# -- the data ------------------------------------------------------------------------------------


@dataclass
class Layout:
    """Who owns which rows of the table, and the data of the users that are measured."""

    scenario_users: dict[int, list[BaseUser]]
    batch_user: BaseUser
    rows_user: list[str] = field(default_factory=list)
    rows_pool: list[int] = field(default_factory=list)
    pool_texts: list[str] = field(default_factory=list)
    pool_vectors: list[np.ndarray] = field(default_factory=list)

    def add(self, owner: str, user: BaseUser, offset: int) -> None:
        self.rows_user.extend([owner] * len(user.texts))
        self.rows_pool.extend(range(offset, offset + len(user.texts)))

    def pool(self, user: BaseUser) -> int:
        offset = len(self.pool_texts)
        self.pool_texts.extend(user.texts)
        self.pool_vectors.append(user.vectors)
        return offset


def build_layout(sizes: UpsertSizes, rng: np.random.Generator, texts: TextGen, dim: int) -> Layout:
    def base_user(n: int) -> BaseUser:
        return BaseUser(texts.facts(n), unit_vectors(rng, n, dim))

    layout = Layout(
        scenario_users={
            sc.per_user: [base_user(sc.per_user) for _ in range(sc.users)] for sc in sizes.scenarios
        },
        batch_user=base_user(sizes.batch_user_memories),
    )
    for sc in sizes.scenarios:
        for b, user in enumerate(layout.scenario_users[sc.per_user]):
            offset = layout.pool(user)
            for method in METHODS:
                layout.add(user_id(sc.per_user, b, method), user, offset)
    offset = layout.pool(layout.batch_user)
    for owner in ("batch-call", "batch-typed", "batch-single", "batch-bare", "batch-bare-single"):
        layout.add(owner, layout.batch_user, offset)
    filler = max(0, sizes.table_rows - len(layout.rows_user))
    k = 0
    while filler > 0:
        n = min(100, filler)
        user = BaseUser(texts.facts(n, unique=False), unit_vectors(rng, n, dim))
        layout.add(f"filler-{k}", user, layout.pool(user))
        filler -= n
        k += 1
    return layout


def load(conn: psycopg.Connection, layout: Layout, rng: np.random.Generator) -> int:
    """All rows in random order (users' memories interleaved as they would arrive)."""
    vectors = np.concatenate(layout.pool_vectors)
    order = rng.permutation(len(layout.rows_user))
    pool_idx = np.asarray(layout.rows_pool)
    now = datetime.now(timezone.utc)

    def chunks():
        for start in range(0, len(order), 10_000):
            part = order[start : start + 10_000]
            n = len(part)
            idx = pool_idx[part]
            last_days = rng.uniform(0, 365, n)
            yield MemoryRows(
                user_id=[layout.rows_user[i] for i in part],
                kind=["fact"] * n,
                content=[layout.pool_texts[i] for i in idx],
                embedding=vectors[idx],
                importance=np.full(n, 0.5),
                decay_rate=np.full(n, np.nan),
                last_access_us=timestamps_us(now, last_days),
                created_us=timestamps_us(now, last_days + rng.uniform(0, 30, n)),
            )

    return copy_memories(conn, chunks())


# -- exactness ------------------------------------------------------------------------------------

VISIBLE = (
    "s.user_id = o.user_id AND s.from_op < o.op_no AND (s.to_op IS NULL OR s.to_op >= o.op_no)"
)
SNAPSHOT = (
    "INSERT INTO bench_snap SELECT user_id, id, content, fingerprint, embedding, created_at,"
    " deleted_at, consolidated_into FROM pymem.memories WHERE user_id = ANY(%s) AND kind = 'fact'"
)
SPANS = """
INSERT INTO bench_spans
SELECT
    v.user_id, v.id, v.content, v.fingerprint, v.embedding, v.deleted_at, v.consolidated_into,
    v.from_op,
    lead(v.from_op) OVER (PARTITION BY v.id ORDER BY v.from_op) AS to_op,
    min(v.born) OVER (PARTITION BY v.id) AS born,
    max(v.created_at) OVER (PARTITION BY v.id) AS created_at
FROM (
    SELECT s.user_id, s.id, s.content, s.fingerprint, s.embedding, s.deleted_at,
        s.consolidated_into, 0 AS from_op, 0 AS born, s.created_at
    FROM bench_snap AS s
    UNION ALL
    SELECT o.user_id, o.memory_id, o.content, o.fingerprint, o.embedding,
        NULL, NULL, o.op_no, CASE WHEN o.action = 'inserted' THEN o.op_no END, NULL
    FROM bench_ops AS o
    WHERE o.action IN ('inserted', 'superseded')
) AS v
"""
# For each operation, in the state just before it: the first live-or-not
# memory with the same fingerprint (the lookup of step 1 of the match), and the
# write path's own decision step (pymem._decision of pymem._evidence, with the
# store's settings) on it and on each of the 8 nearest live memories found by a
# full sort of the user's rows; which of those the write acts on is the store's
# own choice (pymem._preferred_candidate), so the bench holds no copy of it.
EXPECTED = f"""
SELECT
    o.op_no, o.action, o.similarity, o.matched_id,
    CASE WHEN fpd.action = 'duplicate' THEN 'duplicate'
        ELSE coalesce(nullif(c.actions[c.pick], 'related'), 'inserted') END,
    CASE WHEN fpd.action = 'duplicate' THEN fp.id ELSE c.ids[c.pick] END,
    CASE WHEN fpd.action = 'duplicate' THEN fp.sim ELSE c.sims[c.pick] END,
    c.ids[1]
FROM bench_ops AS o
CROSS JOIN pymem.settings AS st
LEFT JOIN LATERAL (
    SELECT s.id, s.content, 1 - (s.embedding <=> o.embedding) AS sim
    FROM bench_spans AS s
    WHERE {VISIBLE} AND s.deleted_at IS NULL AND s.fingerprint = o.fingerprint
    ORDER BY s.consolidated_into IS NULL DESC, s.born, s.created_at, s.id
    LIMIT 1
) AS fp ON true
LEFT JOIN LATERAL pymem._decision(pymem._evidence(fp.content, o.content, fp.sim, st), st)
    AS fpd ON fp.id IS NOT NULL
CROSS JOIN LATERAL (
    SELECT
        array_agg(n.id ORDER BY n.rank) AS ids,
        array_agg(n.sim ORDER BY n.rank) AS sims,
        array_agg(d.action ORDER BY n.rank) AS actions,
        pymem._preferred_candidate(array_agg(d.action ORDER BY n.rank)) AS pick
    FROM (
        SELECT s.id, s.content, 1 - (s.embedding <=> o.embedding) AS sim,
            row_number() OVER () AS rank
        FROM (
            SELECT s.* FROM bench_spans AS s
            WHERE {VISIBLE} AND s.deleted_at IS NULL AND s.consolidated_into IS NULL
            ORDER BY s.embedding <=> o.embedding, s.id
            LIMIT 8
        ) AS s
    ) AS n
    CROSS JOIN LATERAL pymem._decision(pymem._evidence(n.content, o.content, n.sim, st), st)
        AS d
) AS c
ORDER BY o.op_no
"""


FINAL_MISMATCHES = """
SELECT count(*)
FROM (SELECT id, content, embedding FROM bench_spans WHERE to_op IS NULL) AS f
FULL JOIN bench_final AS a ON a.id = f.id
WHERE f.id IS NULL OR a.id IS NULL OR f.content <> a.content OR f.embedding <> a.embedding
"""


def _seqscan_create(
    conn: psycopg.Connection, name: str, columns: str, query: str, params: tuple
) -> bool:
    """Temp table ``name`` filled by a query that may not use an index; True if it did not.

    Its vectors are stored inline like pymem's, not TOASTed.
    """
    conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.execute(f"CREATE TEMP TABLE {name} ({columns})")
    conn.execute(f"ALTER TABLE {name} ALTER COLUMN embedding SET STORAGE PLAIN")
    with seqscan_only(conn):
        plan = "\n".join(
            r[0] for r in conn.execute(f"EXPLAIN (COSTS OFF) {query}", params).fetchall()
        )
        conn.execute(query, params)
    return "Seq Scan" in plan and "Index" not in plan


def snapshot(conn: psycopg.Connection, users: list[str]) -> bool:
    return _seqscan_create(
        conn,
        "bench_snap",
        "user_id text, id uuid, content text, fingerprint uuid, embedding vector,"
        " created_at timestamptz, deleted_at timestamptz, consolidated_into uuid",
        SNAPSHOT,
        (users,),
    )


def verify(
    conn: psycopg.Connection, users: list[str], records: list[tuple], t: Thresholds
) -> dict[str, Any]:
    """Replay (c)'s operations over the snapshot and compare each decision."""
    conn.execute("DROP TABLE IF EXISTS bench_ops")
    conn.execute("DROP TABLE IF EXISTS bench_spans")
    conn.execute(
        "CREATE TEMP TABLE bench_ops (op_no integer, user_id text, content text,"
        " embedding vector STORAGE PLAIN, action text, memory_id uuid,"
        " similarity double precision, matched_id uuid, fingerprint uuid)"
    )
    copy_ops = (
        "COPY bench_ops (op_no, user_id, content, embedding, action, memory_id, similarity,"
        " matched_id) FROM STDIN (FORMAT BINARY)"
    )
    with conn.cursor() as cur, cur.copy(copy_ops) as copy:
        copy.set_types(["int4", "text", "text", "vector", "text", "uuid", "float8", "uuid"])
        for rec in records:
            copy.write_row(rec)
    conn.execute("UPDATE bench_ops SET fingerprint = pymem._fingerprint(content)")
    conn.execute(
        "CREATE TEMP TABLE bench_spans (user_id text, id uuid, content text, fingerprint uuid,"
        " embedding vector STORAGE PLAIN, deleted_at timestamptz, consolidated_into uuid,"
        " from_op integer, to_op integer, born integer, created_at timestamptz)"
    )
    conn.execute(SPANS)
    conn.execute("CREATE INDEX ON bench_spans (user_id)")
    conn.execute("ANALYZE bench_spans")
    conn.execute("ANALYZE bench_ops")
    matched = nearest = matched_total = inserted_ok = inserted_total = decisions = 0
    max_diff = 0.0
    mismatches = []
    for row in conn.execute(EXPECTED):
        op_no, action, sim, matched_id, *expected, nearest_id = row
        decisions += 1
        ok = action == expected[0] and matched_id == expected[1]
        if ok and expected[2] is not None:
            diff = abs(sim - expected[2])
            max_diff = max(max_diff, diff)
            ok = diff <= 1e-12
        if action in ("duplicate", "superseded"):
            matched_total += 1
            nearest += nearest_id is not None and matched_id == nearest_id
        else:
            inserted_total += 1
            inserted_ok += ok
        matched += ok
        if not ok and len(mismatches) < 5:
            mismatches.append((op_no, action, matched_id, sim, tuple(expected)))
    final_seq = _seqscan_create(
        conn,
        "bench_final",
        "id uuid, content text, embedding vector",
        "INSERT INTO bench_final SELECT id, content, embedding"
        " FROM pymem.memories WHERE user_id = ANY(%s)",
        (users,),
    )
    final_bad = conn.execute(FINAL_MISMATCHES).fetchone()[0]
    return {
        "ok": matched == decisions and final_bad == 0 and final_seq,
        "decisions": decisions,
        "matched": matched,
        "nearest": nearest,
        "matched_total": matched_total,
        "inserted_ok": inserted_ok,
        "inserted_total": inserted_total,
        "max_sim_diff": max_diff,
        "final_mismatches": final_bad,
        "seq_scan": final_seq,
        "examples": mismatches,
    }


# -- the measured parts ----------------------------------------------------------------------------


def run_scenario(
    dsn: str,
    sc: Scenario,
    users: list[BaseUser],
    ops: list[Op],
    t: Thresholds,
    vconn: psycopg.Connection,
) -> ScenarioResult:
    c_users = [user_id(sc.per_user, b, "c") for b in range(sc.users)]
    snap_seq = snapshot(vconn, c_users)
    conns = {m: connect(dsn) for m in METHODS}
    timings = {m: Timing([]) for m in METHODS}
    actions: dict[str, Counter] = {m: Counter() for m in METHODS}
    records: list[tuple] = []
    try:
        curs = {m: conns[m].cursor() for m in METHODS}
        n = sc.ops_per_round
        for r in range(sc.rounds):
            for method in rotated(METHODS, r):
                run, cur, times = RUNNERS[method], curs[method], timings[method].seconds
                for j in range(r * n, (r + 1) * n):
                    op = ops[j]
                    user = user_id(sc.per_user, op.base, method)
                    t0 = time.perf_counter()
                    result = run(cur, user, op, t)
                    times.append(time.perf_counter() - t0)
                    actions[method][result[1]] += 1
                    if method == "c":
                        memory_id, action, similarity, matched_id = result
                        records.append(
                            (
                                j + 1,
                                user,
                                op.content,
                                op.embedding,
                                action,
                                memory_id,
                                similarity,
                                matched_id,
                            )
                        )
    finally:
        for conn in conns.values():
            conn.close()
    t0 = time.perf_counter()
    exact = verify(vconn, c_users, records, t)
    exact["seconds"] = time.perf_counter() - t0
    exact["ok"] = exact["ok"] and snap_seq
    exact["snapshot_seq_scan"] = snap_seq
    return ScenarioResult(sc, timings, actions, exact)


def lookup_comparison(
    dsn: str, user: str, base: BaseUser, probes: int, rng: np.random.Generator
) -> dict[str, Any]:
    """The dedup candidate query for a big user: per-user index vs a whole-table seq scan."""
    queries = [
        at_cosine(rng, base.vectors[int(rng.integers(0, len(base.texts)))], rng.uniform(0.8, 0.95))
        for _ in range(probes)
    ]
    with connect(dsn) as idx_conn, connect(dsn) as seq_conn, seqscan_only(seq_conn):
        conns = {"index": idx_conn, "seq": seq_conn}
        timings = {"index": Timing([]), "seq": Timing([])}
        for conn in conns.values():  # warm up, and past psycopg's prepare threshold
            for q in queries[:2] * 3:
                conn.execute(LOOKUP, {"u": user, "v": q}).fetchall()
        same = True
        for i, q in enumerate(queries):
            results = {}
            for name in rotated(list(conns), i):
                t0 = time.perf_counter()
                rows = conns[name].execute(LOOKUP, {"u": user, "v": q}).fetchall()
                timings[name].seconds.append(time.perf_counter() - t0)
                results[name] = [(r[0], r[3]) for r in rows]
            same = same and results["index"] == results["seq"]
        plans = {
            name: explain_analyze(conn, LOOKUP, {"u": user, "v": queries[0]})
            for name, conn in conns.items()
        }
    return {"timings": timings, "same": same, "plans": plans, "user": user}


# The floor users of the batch comparison and the pymem user whose live rows they follow.
FLOOR_USERS = ("batch-bare", "batch-bare-single")
FOLLOWED_USER = "batch-typed"


def _floor_rows_as_pymems(conn, since) -> None:
    """Untimed, after a rep: the floor users' rows of the rep are replaced by copies of the
    rows pymem stored for it. The floor INSERTs every item, duplicates too: its users grew
    faster than pymem's (1,900 rows against 1,752 after nine reps), and its later scans
    read more rows than pymem's did."""
    conn.execute(
        "DELETE FROM pymem.memories WHERE user_id = ANY(%s) AND created_at >= %s",
        (list(FLOOR_USERS), since),
    )
    conn.execute(
        "INSERT INTO pymem.memories (user_id, kind, content, embedding)"
        " SELECT u, m.kind, m.content, m.embedding"
        " FROM pymem.memories AS m, unnest(%s::text[]) AS u"
        " WHERE m.user_id = %s AND m.created_at >= %s"
        " AND m.consolidated_into IS NULL AND m.deleted_at IS NULL",
        (list(FLOOR_USERS), FOLLOWED_USER, since),
    )
    # the deleted rows are dead tuples the floor's next scans would step over
    conn.execute("VACUUM pymem.memories")


def batch_comparison(
    dsn: str, sizes: UpsertSizes, base: BaseUser, texts: TextGen, rng: np.random.Generator
) -> dict[str, Any]:
    """upsert_memories with a batch vs as many upsert_memory calls, on copies of a user; and
    each single call of a new fact against its floor, the same bare scan + INSERT in a call
    of its own (one round trip and one commit each, as the upsert_memory call), the two
    calls of each op one right after the other (which goes first alternates), so that both
    see the same disk and load: a commit's fsync here moves a call's time by milliseconds
    from one minute to the next."""
    batch_t, typed_t, single_t, bare_t, encode_t = (Timing([]) for _ in range(5))
    new_fact_t, new_fact_floor_t = Timing([]), Timing([])
    same = True
    actions: Counter = Counter()
    with connect(dsn) as conn:
        conn.execute(BARE_BATCH_FUNCTION)
        cur = conn.cursor()
        for rep in range(sizes.batch_reps):
            ops = make_ops(rng, texts, [base], sizes.batch_size)
            rep_started = conn.execute("SELECT clock_timestamp()").fetchone()[0]
            t0 = time.perf_counter()
            payload = json.dumps(
                [
                    {"content": op.content, "embedding": op.embedding.astype(np.float64).tolist()}
                    for op in ops
                ]
            )
            encode_t.seconds.append(time.perf_counter() - t0)
            contents = [op.content for op in ops]
            vectors = [op.embedding.astype(np.float32) for op in ops]
            decisions = {}
            for way in rotated(["batch", "typed", "single", "bare"], rep):
                t0 = time.perf_counter()
                if way == "batch":
                    rows = cur.execute(UPSERT_BATCH, ("batch-call", payload)).fetchall()
                    batch_t.seconds.append(time.perf_counter() - t0)
                    decisions["batch"] = [(r[2], r[3]) for r in rows]
                elif way == "typed":
                    rows = cur.execute(
                        UPSERT_BATCH_TYPED, ("batch-typed", contents, vectors)
                    ).fetchall()
                    typed_t.seconds.append(time.perf_counter() - t0)
                    decisions["typed"] = [(r[2], r[3]) for r in rows]
                elif way == "bare":
                    cur.execute(
                        "SELECT pg_temp.bare_batch(%s, %s::text[], %b::vector[])",
                        ("batch-bare", contents, vectors),
                    ).fetchone()
                    bare_t.seconds.append(time.perf_counter() - t0)
                else:
                    total, got = 0.0, []
                    for k, (op, vector) in enumerate(zip(ops, vectors, strict=True)):
                        for call in rotated(["upsert", "floor"], k):
                            t0 = time.perf_counter()
                            if call == "upsert":
                                row = upsert_memory(cur, "batch-single", op, None)
                                took = time.perf_counter() - t0
                                total += took
                                got.append((row[1], row[2]))
                                if op.shape == "new":
                                    new_fact_t.seconds.append(took)
                            else:
                                cur.execute(
                                    "SELECT pg_temp.bare_batch(%s, %s::text[], %b::vector[])",
                                    ("batch-bare-single", [op.content], [vector]),
                                ).fetchone()
                                if op.shape == "new":
                                    new_fact_floor_t.seconds.append(time.perf_counter() - t0)
                    single_t.seconds.append(total)
                    decisions["single"] = got
            same = same and decisions["batch"] == decisions["single"] == decisions["typed"]
            actions.update(a for a, _ in decisions["batch"])
            _floor_rows_as_pymems(conn, rep_started)
    return {
        "batch": batch_t,
        "typed": typed_t,
        "single": single_t,
        "bare": bare_t,
        "new_fact": new_fact_t,
        "new_fact_floor": new_fact_floor_t,
        "encode": encode_t,
        "same": same,
        "actions": actions,
    }


# -- reporting ---------------------------------------------------------------------------------


def _actions(counter: Counter) -> str:
    order = ("inserted", "duplicate", "superseded")
    return ", ".join(f"{k} {counter[k]}" for k in order if counter[k])


def report_scenario(res: ScenarioResult, ops: list[Op], table_rows: int, out: Out) -> None:
    sc = res.scenario
    shapes = Counter(op.shape for op in ops)
    out("")
    out(
        f"-- {sc.per_user:,} memories per user: {sc.users} user(s) per method, table "
        f"{table_rows:,} rows; {sc.rounds} rounds x {sc.ops_per_round} ops per method, "
        "methods interleaved"
    )
    out(
        f"   ops: {shapes['new']} new facts, {shapes['restated'] + shapes['edited']} "
        f"near-duplicates ({shapes['restated']} restated, {shapes['edited']} edited)"
    )
    out(f"   {'method':<34}{'median ms':>10}{'p95 ms':>9}{'rows/s':>9}   outcome")
    for m in METHODS:
        tm = res.timings[m]
        out(
            f"   {METHOD_NAMES[m]:<34}{tm.median_ms:>10.3f}{tm.p95_ms:>9.3f}"
            f"{tm.per_s:>9,.0f}   {_actions(res.actions[m])}"
        )
    lat, thr = res.latency_ratio, res.throughput_ratio
    out(f"   (c)/(a) median latency: {lat:.2f}x")
    out(f"   (b)/(c) throughput: {1 / thr:.2f}, i.e. (c) = {thr:.2f}x (b)")
    e = res.exact
    out(
        f"   exact: every decision of (c) matched a brute-force scan: {e['ok']} "
        f"({e['matched']}/{e['decisions']} decisions; matched_id = nearest neighbour for "
        f"{e['nearest']}/{e['matched_total']} duplicate/superseded; the replayed rule agrees"
        f" on {e['inserted_ok']}/{e['inserted_total']} inserted; max |similarity diff| "
        f"{e['max_sim_diff']:.1e}; replayed final rows = table: {e['final_mismatches'] == 0};"
        f" checked in {e['seconds']:.1f} s)"
    )
    for example in e["examples"]:
        out(f"   MISMATCH op {example[0]}: got {example[1:4]}, expected {example[4]}")


def concurrent_writers(
    dsn: str,
    t: Thresholds,
    rng: np.random.Generator,
    texts: TextGen,
    dim: int,
    writers: int = 8,
    facts: int = 200,
) -> dict[str, int]:
    """Rows stored when ``writers`` connections write the same ``facts`` at once.

    Each writer sends every fact (same text and vector), in its own shuffled
    order. The right answer is ``facts`` rows: (b) checks then writes with no
    lock, so writers that check at the same moment all insert.
    """
    contents = texts.facts(facts)
    vectors = unit_vectors(rng, facts, dim)
    orders = [rng.permutation(facts) for _ in range(writers)]
    stored = {}
    for method in ("b", "c"):
        user = f"race-{method}"
        barrier = threading.Barrier(writers)
        errors: list[BaseException] = []

        def write(
            order: np.ndarray,
            user: str = user,
            method: str = method,
            barrier: threading.Barrier = barrier,
            errors: list = errors,
        ) -> None:
            try:
                with connect(dsn) as conn, conn.cursor() as cur:
                    barrier.wait()
                    for i in order:
                        op = Op(0, contents[i], vectors[i], "new")
                        RUNNERS[method](cur, user, op, t)
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(o,)) for o in orders]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        if errors:
            raise errors[0]
        with connect(dsn) as conn:
            stored[method] = conn.execute(
                "SELECT count(*) FROM pymem.memories WHERE user_id = %s", (user,)
            ).fetchone()[0]
    return stored


def target_figures(results: dict[str, Any], sizes: UpsertSizes) -> list[Measured]:
    """The figures of this run that README.md states a target for (bench.targets)."""
    bt = results["batch"]
    return [
        Measured(
            "batch_over_floor",
            bt["typed"].median_ms / bt["bare"].median_ms,
            case=f"{sizes.batch_size} facts, a user with {sizes.batch_user_memories:,} memories",
            base=bt["bare"].median_ms,
        ),
        Measured(
            "new_fact_over_floor",
            bt["new_fact"].median_ms - bt["new_fact_floor"].median_ms,
            sizes.batch_user_memories,
            f"a user with {sizes.batch_user_memories:,} memories",
            bt["new_fact_floor"].median_ms,
        ),
    ]


def run(dsn: str, sizes: UpsertSizes = FULL, out: Out = print) -> dict[str, Any]:
    """The benchmark on the migrated database ``dsn`` (emptied first); returns the results."""
    started = time.perf_counter()
    rng = np.random.default_rng(sizes.seed)
    with connect(dsn) as conn:
        for line in machine_lines(conn):
            out(line)
        s = conn.execute(
            "SELECT embedding_dimensions, dedup_threshold, supersede_threshold,"
            " trigram_threshold, topic_supersede_threshold, dedup_term_change,"
            " trigram_min_similarity FROM pymem.settings"
        ).fetchone()
        dim, t = s[0], Thresholds(*s[1:])
        out(
            f"thresholds: dedup {t.dedup}, supersede {t.supersede}, trigram {t.trigram}; "
            f"{dim}-d vectors"
        )
        conn.execute("TRUNCATE pymem.memories, pymem.memory_versions CASCADE")
        texts = TextGen(rng)
        layout = build_layout(sizes, rng, texts, dim)
        t0 = time.perf_counter()
        loaded = load(conn, layout, rng)
        out("")
        out(f"setup: loaded {loaded:,} rows by COPY in random user order: {elapsed(t0)}")
        vacuum_analyze(conn, out)
        table_rows = conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0]

    results: dict[str, Any] = {"scenarios": [], "table_rows": table_rows}
    with connect(dsn) as vconn:
        vconn.execute("SET temp_buffers = '256MB'")
        for sc in sizes.scenarios:
            users = layout.scenario_users[sc.per_user]
            ops = make_ops(rng, texts, users, sc.rounds * sc.ops_per_round)
            res = run_scenario(dsn, sc, users, ops, t, vconn)
            report_scenario(res, ops, table_rows, out)
            results["scenarios"].append(res)

    big = max(sizes.scenarios, key=lambda sc: sc.per_user)
    lk = lookup_comparison(
        dsn,
        user_id(big.per_user, 0, "c"),
        layout.scenario_users[big.per_user][0],
        sizes.lookup_probes,
        rng,
    )
    speedup = lk["timings"]["seq"].median_ms / lk["timings"]["index"].median_ms
    lk["speedup"] = speedup
    results["lookup"] = lk
    out("")
    out(
        f"-- dedup lookup for a user with {big.per_user:,}+ memories ({lk['user']}), "
        f"{sizes.lookup_probes} probes, the candidate query of pymem._match "
        "(ORDER BY embedding <=> q LIMIT 8)"
    )
    out(
        f"   seq scan + sort (index scans off): median {lk['timings']['seq'].median_ms:.2f} ms, "
        f"p95 {lk['timings']['seq'].p95_ms:.2f} ms"
    )
    out(
        f"   pymem per-user lookup (index on):  median {lk['timings']['index'].median_ms:.2f} ms, "
        f"p95 {lk['timings']['index'].p95_ms:.2f} ms"
    )
    out(f"   speedup {speedup:.1f}x; same rows and similarities: {lk['same']}")
    for name, title in (("index", "per-user lookup"), ("seq", "seq scan + sort")):
        out(f"   EXPLAIN ANALYZE, {title}:")
        for line in lk["plans"][name]:
            out(f"     {line}")

    bt = batch_comparison(dsn, sizes, layout.batch_user, texts, rng)
    results["batch"] = bt
    out("")
    out(
        f"-- upsert_memories: {sizes.batch_reps} batches of {sizes.batch_size} facts for a user "
        f"with {sizes.batch_user_memories:,} memories vs as many upsert_memory calls "
        "(a copy of the same user), interleaved"
    )
    out(
        f"   one upsert_memories call: median {bt['batch'].median_ms:.1f} ms per batch "
        f"(p95 {bt['batch'].p95_ms:.1f}); JSON prepared beforehand, encoding it in Python "
        f"took {bt['encode'].median_ms:.1f} ms more"
    )
    out(
        f"   {sizes.batch_size} upsert_memory calls: median {bt['single'].median_ms:.1f} ms "
        f"per {sizes.batch_size}; batch/single = "
        f"{bt['batch'].median_ms / bt['single'].median_ms:.2f}"
    )
    ratio = bt["typed"].median_ms / bt["bare"].median_ms
    out(
        f"   typed form (contents text[], binary vector[]): median {bt['typed'].median_ms:.1f} ms"
        f"; the floor, {sizes.batch_size} bare exact nearest-8 scans + plain INSERTs in one"
        f" call: {bt['bare'].median_ms:.1f} ms; typed/bare = {ratio:.2f}"
    )
    out(
        f"   outcome: {_actions(bt['actions'])}; batch decisions = typed = single-call "
        f"decisions (action, similarity): {bt['same']}"
    )
    nf, floor = bt["new_fact"].median_ms, bt["new_fact_floor"].median_ms
    out(
        f"   a single upsert_memory call of a new fact: median {nf:.2f} ms "
        f"({len(bt['new_fact'].seconds)} calls); its floor, the bare exact nearest-8 scan + "
        f"plain INSERT in a call of its own: {floor:.2f} ms; +{nf - floor:.2f} ms"
    )

    writers, facts = 8, 2 * sizes.batch_size
    race = concurrent_writers(dsn, t, rng, texts, dim, writers, facts)
    results["race"] = race
    out("")
    out(
        f"-- {writers} connections writing the same {facts} facts at once "
        "(same text and vector, each in its own order)"
    )
    out(f"   (b) client-side SELECT + write: {race['b']:,} rows stored (right answer {facts})")
    out(f"   (c) pymem.upsert_memory:        {race['c']:,} rows stored (right answer {facts})")

    results["measured"] = target_figures(results, sizes)
    results["targets"] = judge(results["measured"])
    exact = (
        all(res.exact["ok"] for res in results["scenarios"])
        and lk["same"]
        and bt["same"]
        and race["c"] == facts
    )
    results["exact"] = exact
    out("")
    report(results["targets"], out)
    out(f"exactness checks all True: {exact}")
    out(f"total time {elapsed(started)}")
    return results


def main(dsn: str | None = None, quick: bool = False, dimensions: int | None = None) -> int:
    """``pymem bench upsert [--quick]``: in a fresh database ``pymem_bench_upsert``."""
    from pymem.migrate import migrate

    name = DATABASE + ("_quick" if quick else "")
    if dimensions is not None and dimensions != 512:
        name += f"_{dimensions}d"
    admin, bench = bench_database(dsn, name)
    print(f"pymem bench upsert{' --quick' if quick else ''}: database {name} (re-created)")
    recreate_database(admin, name)
    migrate(bench, dimensions=dimensions)
    try:
        results = run(bench, QUICK if quick else FULL)
    finally:
        drop_database(admin, name)
    return 0 if results["exact"] else 1
