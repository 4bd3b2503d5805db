#!/usr/bin/env python3
"""The hop's cost and a rebalance: pymem through a Citus coordinator (docs/scaling.md).

On the cluster scripts/citus_cluster.py started (``--dir``), one generated store (users'
rows interleaved in arrival order, random unit vectors) is loaded by COPY twice: into a
plain store on the coordinator's own server (a database without Citus), and into a store
made by ``pymem migrate --citus`` (every call of a user runs on the user's worker). Then,
call by call and alternating which store goes first, through ``MemoryStore`` on an
autocommit connection as an app calls it:

- ``recall(user, q, 10)`` for a random user (both must return the same contents);
- ``upsert_memory`` of a new fact for a random user, in a transaction rolled back after
  the call, so both stores keep the same rows (both must decide alike);
- ``get_fact`` of a key no one has: the least a delegated call costs (the hop's floor).

Then a user is moved to the other worker (``citus_move_shard_placement``, logical
replication, so writes go on) while a writer adds that user's facts one call at a time:
every write that returned is stored once, none that failed is, and the user's calls run
on the new worker afterwards.

    python scripts/citus_cluster.py start --tarball ../shared/vendor/citus-14.0.1.tar.gz
    python scripts/bench_citus.py [--users 100 --memories 200 --calls 300]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from pathlib import Path

import numpy as np
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import Timing, machine_lines, unit_vectors
from bench.partitions import PartitionSizes, load
from pymem import MemoryStore
from pymem.migrate import migrate

PLAIN, DISTRIBUTED = "pymem_bench_citus_plain", "pymem_bench_citus"
DIM = 512


def _cluster(directory: Path):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import citus_cluster

    state = json.loads((directory / "cluster.json").read_text())
    return citus_cluster, state


def _load(dsn: str, users: int, memories: int) -> int:
    """The rows of ``pymem bench partitions`` (the same generator and seed), by COPY."""
    sizes = PartitionSizes(users=users, memories=memories, partitions=0, rounds=0, decay_runs=0)
    with psycopg.connect(dsn, autocommit=True) as conn:
        loaded = load(conn, sizes, DIM)
        conn.execute("VACUUM ANALYZE pymem.memories")
    return loaded


def _timed(fn, *args) -> tuple[float, object]:
    t0 = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - t0, result


def measure_calls(plain_dsn: str, citus_dsn: str, users: int, calls: int) -> dict[str, tuple]:
    rng = np.random.default_rng(5)
    pick = random.Random(5)
    timings: dict[str, tuple[list[float], list[float]]] = {
        k: ([], []) for k in ("recall", "upsert", "floor")
    }
    mismatches = 0
    with (
        psycopg.connect(plain_dsn, autocommit=True) as pc,
        psycopg.connect(citus_dsn, autocommit=True) as cc,
    ):
        stores = (MemoryStore(pc), MemoryStore(cc))
        for store in stores:  # each backend compiles the functions once, outside the timing
            store.recall("user-0", unit_vectors(rng, 1, DIM)[0], 10)
            store.get_fact("user-0", "nothing")
        for i in range(calls):
            user = f"user-{pick.randrange(users)}"
            q = unit_vectors(rng, 1, DIM)[0]
            fact = unit_vectors(rng, 1, DIM)[0]
            order = (0, 1) if i % 2 == 0 else (1, 0)
            answers: dict[int, object] = {}
            for s in order:
                store, conn = stores[s], (pc, cc)[s]
                dt, hits = _timed(store.recall, user, q, 10)
                timings["recall"][s].append(dt)
                answers[s] = [h.content for h in hits]
                with conn.transaction(force_rollback=True):
                    dt, r = _timed(store.upsert, user, f"{user} bench fact {i}", fact)
                timings["upsert"][s].append(dt)
                answers[(s, "u")] = r.action
                dt, _ = _timed(store.get_fact, user, "nothing")
                timings["floor"][s].append(dt)
            if answers[0] != answers[1] or answers[(0, "u")] != answers[(1, "u")]:
                mismatches += 1
    out = {k: (Timing(v[0]), Timing(v[1])) for k, v in timings.items()}
    out["mismatches"] = mismatches
    return out


def rebalance(citus_dsn: str, seconds: float = 2.0) -> dict[str, object]:
    user = "user-1"
    done: list[tuple[str, float]] = []
    failed: list[str] = []
    errors: set[str] = set()
    stop = threading.Event()

    run = f"{time.time_ns():x}"  # this run's facts, apart from an earlier run's

    def write() -> None:
        rng = np.random.default_rng(9)
        with MemoryStore(citus_dsn) as store:
            i = 0
            while not stop.is_set():
                text = f"{user} moving fact {run}-{i}"
                t0 = time.perf_counter()
                try:
                    if store.upsert(user, text, unit_vectors(rng, 1, DIM)[0]).action == "inserted":
                        done.append((text, time.perf_counter() - t0))
                except Exception as exc:  # cut by the move: it must have written nothing
                    failed.append(text)
                    errors.add(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
                i += 1

    with psycopg.connect(citus_dsn, autocommit=True) as conn:
        before = conn.execute(
            "SELECT count(*) FROM pymem.memories WHERE user_id = %s", (user,)
        ).fetchone()[0]
        shard, source = conn.execute(
            "SELECT shardid, nodeport FROM citus_shards WHERE table_name = 'pymem.memories'"
            "::regclass AND shardid = get_shard_id_for_distribution_column("
            "'pymem.memories', %s::text)",
            (user,),
        ).fetchone()
        target = conn.execute(
            "SELECT nodeport FROM pg_dist_node WHERE groupid <> 0 AND nodeport <> %s LIMIT 1",
            (source,),
        ).fetchone()[0]
        rows_moved = conn.execute(
            "SELECT count(*) FROM pymem.memories WHERE get_shard_id_for_distribution_column("
            "'pymem.memories', user_id) = %s",
            (shard,),
        ).fetchone()[0]
        thread = threading.Thread(target=write)
        thread.start()
        time.sleep(seconds)
        writes_before_move = len(done)
        move_s, _ = _timed(
            conn.execute,
            "SELECT citus_move_shard_placement(%s, '127.0.0.1', %s, '127.0.0.1', %s,"
            " shard_transfer_mode => 'force_logical')",
            (shard, source, target),
        )
        writes_during_move = len(done) - writes_before_move
        time.sleep(seconds)
        stop.set()
        thread.join(60)
        stored = [
            r[0]
            for r in conn.execute(
                "SELECT content FROM pymem.memories WHERE user_id = %s AND content LIKE %s",
                (user, f"{user} moving fact {run}-%"),
            )
        ]
        after = conn.execute(
            "SELECT count(*) FROM pymem.memories WHERE user_id = %s", (user,)
        ).fetchone()[0]
        now_on = conn.execute(
            "SELECT nodeport FROM citus_shards WHERE table_name = 'pymem.memories'::regclass"
            " AND shardid = %s",
            (shard,),
        ).fetchone()[0]
    written = [t for t, _ in done]
    return {
        "user": user,
        "shard rows moved (all co-located tables: more)": rows_moved,
        "move seconds": move_s,
        "writes returned": len(written),
        "writes during the move": writes_during_move,
        "writes failed": len(failed),
        "their errors": sorted(errors),
        "slowest write ms": max(dt for _, dt in done) * 1000 if done else float("nan"),
        "p50 write ms": float(np.median([dt for _, dt in done])) * 1000,
        "lost": len(set(written) - set(stored)),
        "doubled": len(stored) - len(set(stored)),
        "failed but stored": len(set(failed) & set(stored)),
        "rows before/after": (before, after),
        "moved to the other worker": now_on == target,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/pymem-citus"))
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--memories", type=int, default=200, help="per user")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--shards", type=int, default=None, help="default: Citus's 32")
    args = parser.parse_args(argv)
    citus_cluster, state = _cluster(args.dir.resolve())
    coordinator = state["ports"][0]
    admin = f"postgresql://postgres@127.0.0.1:{coordinator}/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {PLAIN} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {PLAIN}")
    citus_cluster.drop_database(state, DISTRIBUTED)
    citus_cluster.prepare_database(state, DISTRIBUTED)
    plain_dsn = f"postgresql://postgres@127.0.0.1:{coordinator}/{PLAIN}"
    citus_dsn = f"postgresql://postgres@127.0.0.1:{coordinator}/{DISTRIBUTED}"
    migrate(plain_dsn)
    t0 = time.perf_counter()
    result = migrate(citus_dsn, citus=True, shard_count=args.shards)
    migrate_s = time.perf_counter() - t0
    loaded = [_load(dsn, args.users, args.memories) for dsn in (plain_dsn, citus_dsn)]
    with psycopg.connect(citus_dsn) as conn:
        for line in machine_lines(conn):
            print(line)
        shards = conn.execute("SELECT pymem.store_shards()").fetchone()[0]
    print(
        f"stores: {loaded[0]} memories of {args.users} users, {DIM}-d, plain and Citus"
        f" ({len(state['ports']) - 1} workers, {shards} shards); pymem migrate --citus of the"
        f" empty store {migrate_s:.1f} s ({len(result.distributed)} objects distributed)"
    )
    calls = measure_calls(plain_dsn, citus_dsn, args.users, args.calls)
    print(f"| call, p50 of {args.calls} | plain | through the coordinator | ratio | + ms |")
    print("| --- | --- | --- | --- | --- |")
    for name in ("recall", "upsert", "floor"):
        plain, citus = calls[name]
        ratio = citus.median_ms / plain.median_ms
        extra = citus.median_ms - plain.median_ms
        print(
            f"| {name} | {plain.median_ms:.2f} ms | {citus.median_ms:.2f} ms |"
            f" {ratio:.2f}x | {extra:+.2f} |"
        )
    print(f"answers that differed between the stores: {calls['mismatches']}")
    moved = rebalance(citus_dsn)
    for key, value in moved.items():
        print(f"rebalance: {key}: {value:.2f}" if isinstance(value, float) else
              f"rebalance: {key}: {value}")  # fmt: skip
    ok = calls["mismatches"] == 0 and moved["lost"] == moved["doubled"] == 0
    ok = ok and moved["failed but stored"] == 0 and moved["moved to the other worker"]
    print("verdict:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
