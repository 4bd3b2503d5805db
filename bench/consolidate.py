"""``pymem bench consolidate``: candidate groups without an all-pairs scan.

One user with 1k and one with 10k memories (``--quick``: 1k and 3k) of
synthetic clustered vectors: groups of 2 to 12 memories around random
centres at pairwise cosines of about 0.65 to 0.9, the rest unrelated. For
each user, in the same run: ``pymem.consolidation_candidates`` against the
all-pairs self-join an all-pairs consolidator runs (every pair of the user's
live memories at cosine >= the threshold, then connected components).
Printed: seconds of each, the ratio, the share of the all-pairs pairs whose
two memories land in one candidate group, and the share of the all-pairs
groups (of at least 3) found exactly. When the all-pairs join would take
longer than ``allpairs_limit_s`` (estimated from the smaller user), it is
timed on a sample of memories against all others and scaled, and the output
says so; the pairs it would find are then computed exactly with numpy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np

from bench.common import (
    MemoryRows,
    Out,
    bench_database,
    connect,
    copy_memories,
    machine_lines,
    recreate_database,
    timestamps_us,
    vacuum_analyze,
)
from bench.targets import Measured, judge, report

DATABASE = "pymem_bench_consolidate"
THRESHOLD = 0.7
ALLPAIRS = (
    "SELECT a.id, b.id FROM pymem.memories AS a"
    " JOIN pymem.memories AS b ON b.user_id = a.user_id AND a.id < b.id"
    " WHERE a.user_id = %(u)s AND a.consolidated_into IS NULL AND a.deleted_at IS NULL"
    " AND NOT a.pinned AND b.consolidated_into IS NULL AND b.deleted_at IS NULL AND NOT b.pinned"
    " AND 1 - (a.embedding <=> b.embedding) >= %(t)s"
)
# the same join for a sample of left-hand memories against every other one
ALLPAIRS_SAMPLE = (
    "SELECT a.id, b.id FROM pymem.memories AS a"
    " JOIN pymem.memories AS b ON b.user_id = a.user_id AND a.id <> b.id"
    " WHERE a.user_id = %(u)s AND a.id = ANY(%(ids)s)"
    " AND a.consolidated_into IS NULL AND a.deleted_at IS NULL AND NOT a.pinned"
    " AND b.consolidated_into IS NULL AND b.deleted_at IS NULL AND NOT b.pinned"
    " AND 1 - (a.embedding <=> b.embedding) >= %(t)s"
)
CANDIDATES = "SELECT member_ids FROM pymem.consolidation_candidates(%s, min_similarity => %s)"


@dataclass(frozen=True)
class ConsolidateSizes:
    users: tuple[int, ...]
    allpairs_limit_s: float = 240.0
    sample: int = 1000
    seed: int = 20_261_201


FULL = ConsolidateSizes(users=(1_000, 10_000))
QUICK = ConsolidateSizes(users=(1_000, 3_000))


def user_id(n: int) -> str:
    return f"consolidate_{n}"


def clustered(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """n unit vectors: about 60% in groups of 2-12 around random centres, the rest alone."""
    out = []
    grouped = int(n * 0.6)
    while len(out) < grouped:
        size = min(int(rng.integers(2, 13)), grouped - len(out))
        centre = rng.standard_normal(dim)
        centre /= np.linalg.norm(centre)
        # noise per coordinate: pairwise cosines of about 0.65 (0.028) to 0.9 (0.015)
        noise = float(rng.uniform(0.015, 0.028))
        for _ in range(size):
            v = centre + noise * rng.standard_normal(dim)
            out.append(v / np.linalg.norm(v))
    rest = rng.standard_normal((n - len(out), dim))
    out.extend(rest / np.linalg.norm(rest, axis=1, keepdims=True))
    vectors = np.asarray(out, dtype=np.float32)
    return vectors[rng.permutation(n)]


def load(dsn: str, sizes: ConsolidateSizes, out: Out) -> dict[int, np.ndarray]:
    rng = np.random.default_rng(sizes.seed)
    now = datetime.now(timezone.utc)
    with connect(dsn) as conn:
        dim = conn.execute("SELECT embedding_dimensions FROM pymem.settings").fetchone()[0]
        conn.execute("TRUNCATE pymem.memories, pymem.memory_versions CASCADE")
        vectors = {n: clustered(rng, n, dim) for n in sizes.users}

        def chunks():
            for n, v in vectors.items():
                zeros = np.zeros(n)
                yield MemoryRows(
                    user_id=[user_id(n)] * n,
                    kind=["fact"] * n,
                    content=[f"memory {i} of {user_id(n)}" for i in range(n)],
                    embedding=v,
                    importance=np.full(n, 0.5),
                    decay_rate=np.full(n, np.nan),
                    last_access_us=timestamps_us(now, zeros),
                    created_us=timestamps_us(now, zeros),
                )

        t0 = time.perf_counter()
        loaded = copy_memories(conn, chunks())
        out(f"setup: {loaded:,} memories loaded by COPY in {time.perf_counter() - t0:.1f} s")
        vacuum_analyze(conn, out)
    return vectors


def components(pairs: list[tuple], min_size: int = 3) -> set[frozenset]:
    parent: dict = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict = {}
    for x in list(parent):
        groups.setdefault(find(x), set()).add(x)
    return {frozenset(g) for g in groups.values() if len(g) >= min_size}


def numpy_pairs(ids: list, vectors: np.ndarray, threshold: float) -> list[tuple]:
    """Every pair at cosine >= threshold, in blocks (exact, float32)."""
    pairs = []
    block = 1024
    for start in range(0, len(ids), block):
        sims = vectors[start : start + block] @ vectors.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            a = start + r
            if a < c:
                pairs.append((ids[a], ids[c]) if ids[a] < ids[c] else (ids[c], ids[a]))
    return pairs


def measure_user(dsn: str, n: int, sizes: ConsolidateSizes, per_pair_s: float | None, out: Out):
    user = user_id(n)
    with connect(dsn) as conn:
        conn.execute("SELECT count(*) FROM pymem.consolidation_candidates(%s)", (user,))  # warm
        t0 = time.perf_counter()
        groups = [set(r[0]) for r in conn.execute(CANDIDATES, (user, THRESHOLD)).fetchall()]
        cand_s = time.perf_counter() - t0

        full_pairs = n * (n - 1) / 2
        estimate = per_pair_s * full_pairs if per_pair_s is not None else 0.0
        if per_pair_s is None or estimate <= sizes.allpairs_limit_s:
            t0 = time.perf_counter()
            pairs = [tuple(r) for r in conn.execute(ALLPAIRS, {"u": user, "t": THRESHOLD})]
            all_s = time.perf_counter() - t0
            how = "measured"
            truth_from = "the all-pairs join"
        else:
            rows = conn.execute(
                "SELECT id, embedding FROM pymem.memories WHERE user_id = %s ORDER BY id", (user,)
            ).fetchall()
            ids = [r[0] for r in rows]
            rng = np.random.default_rng(sizes.seed + n)
            sample = [ids[i] for i in rng.choice(len(ids), sizes.sample, replace=False)]
            t0 = time.perf_counter()
            sampled = conn.execute(
                ALLPAIRS_SAMPLE, {"u": user, "ids": sample, "t": THRESHOLD}
            ).fetchall()
            sample_s = time.perf_counter() - t0
            all_s = sample_s * full_pairs / (sizes.sample * (n - 1))
            vectors = np.asarray([r[1].to_numpy() for r in rows], dtype=np.float32)
            pairs = numpy_pairs(ids, vectors, THRESHOLD)
            in_sample = set(sample)
            sql_sample = {tuple(sorted(p)) for p in sampled}
            np_sample = {p for p in pairs if p[0] in in_sample or p[1] in in_sample}
            how = (
                f"ESTIMATED: {sizes.sample:,} memories x all others took {sample_s:.1f} s, "
                f"scaled to {full_pairs:,.0f} pairs"
            )
            truth_from = (
                f"numpy (same pairs as the SQL join on the sample: {sql_sample == np_sample})"
            )
    member = {}
    for gi, g in enumerate(groups):
        for m in g:
            member[m] = gi
    truth_groups = components(pairs)
    in_big = {m for g in truth_groups for m in g}
    counted = [(a, b) for a, b in pairs if a in in_big]
    found = sum(1 for a, b in counted if a in member and member.get(a) == member.get(b))
    pair_share = found / len(counted) if counted else 1.0
    group_share = (
        len(truth_groups & {frozenset(g) for g in groups}) / len(truth_groups)
        if truth_groups
        else 1.0
    )
    pair_time = all_s / full_pairs if full_pairs else 0.0
    return {
        "n": n,
        "candidates_s": cand_s,
        "allpairs_s": all_s,
        "allpairs_how": how,
        "truth_from": truth_from,
        "ratio": all_s / cand_s if cand_s else float("inf"),
        "pairs": len(counted),
        "pair_share": pair_share,
        "groups": len(truth_groups),
        "candidate_groups": len(groups),
        "group_share": group_share,
        "per_pair_s": pair_time,
    }


def run(dsn: str, sizes: ConsolidateSizes = FULL, out: Out = print) -> dict:
    started = time.perf_counter()
    with connect(dsn) as conn:
        for line in machine_lines(conn):
            out(line)
    load(dsn, sizes, out)
    results = []
    per_pair = None
    for n in sorted(sizes.users):
        r = measure_user(dsn, n, sizes, per_pair, out)
        per_pair = per_pair or r["per_pair_s"]
        results.append(r)
    out("")
    out(
        f"-- consolidation_candidates vs the all-pairs self-join, cosine >= {THRESHOLD}, "
        "one user each"
    )
    out(
        f"   {'memories':>9}{'candidates s':>14}{'all-pairs s':>13}{'ratio':>8}"
        f"{'pairs found':>13}{'groups found':>14}"
    )
    for r in results:
        out(
            f"   {r['n']:>9,}{r['candidates_s']:>14.2f}{r['allpairs_s']:>13.2f}"
            f"{r['ratio']:>7.1f}x{r['pair_share']:>12.1%}{r['group_share']:>13.1%}"
        )
        out(
            f"      all-pairs {r['allpairs_how']}; {r['pairs']:,} pairs in {r['groups']:,} groups "
            f"of >= 3 (truth from {r['truth_from']}); {r['candidate_groups']:,} candidate groups"
        )
    figures = target_figures(results)
    targets = judge(figures)
    out("")
    report(targets, out)
    out(f"total time {time.perf_counter() - started:.1f} s")
    return {"results": results, "measured": figures, "targets": targets}


def target_figures(results: list[dict[str, Any]]) -> list[Measured]:
    """The figures of this run that README.md states a target for (bench.targets)."""
    figures = []
    for r in results:
        case = f"{r['n']:,} memories"
        figures.append(Measured("consolidation_speedup", r["ratio"], r["n"], case, r["allpairs_s"]))
        figures.append(Measured("consolidation_pair_share", r["pair_share"], r["n"], case))
    return figures


def main(dsn: str | None = None, quick: bool = False) -> int:
    """``pymem bench consolidate [--quick]``: in its own database, recreated each run."""
    from pymem.migrate import migrate

    name = DATABASE + ("_quick" if quick else "")
    admin, bench = bench_database(dsn, name)
    print(f"pymem bench consolidate{' --quick' if quick else ''}: database {name} (recreated)")
    recreate_database(admin, name)
    migrate(bench)
    result = run(bench, QUICK if quick else FULL)
    return 0 if all(v["ok"] is not False for v in result["targets"]) else 1
