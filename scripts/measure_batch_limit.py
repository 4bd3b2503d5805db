"""What a batch at the maximum costs (docs/sql-api.md, "Limits").

Writes three batches of pymem._max_batch_items() distinct 512-d memories, each
for a user of its own, and while each runs, a single write of the same user
sent 0.4 s in: prints how long the batch took and how long that write waited
for the user's lock, beside a single write alone.

    python scripts/measure_batch_limit.py "postgresql://.../store"
"""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import psycopg

from pymem import MemoryStore


def main(dsn: str) -> None:
    rng = np.random.default_rng(7)

    def vector() -> np.ndarray:
        return rng.normal(size=512).astype(np.float32)

    with psycopg.connect(dsn) as conn:
        (limit,) = conn.execute("SELECT pymem._max_batch_items()").fetchone()
    with MemoryStore(dsn) as store:
        for rep in range(3):
            user = f"batch-{rep}-{time.time_ns()}"
            store.upsert(user, "warm up", vector())
            batch = [
                {"content": f"r{rep} fact number {i} about topic {i * 7919 % 1000}",
                 "embedding": vector()}
                for i in range(limit)
            ]  # fmt: skip
            waited: dict[str, float] = {}

            def single_write(user: str = user, waited: dict[str, float] = waited) -> None:
                time.sleep(0.4)
                with MemoryStore(dsn) as other:
                    started = time.perf_counter()
                    other.upsert(user, "a single write while the batch runs", vector())
                    waited["s"] = time.perf_counter() - started

            thread = threading.Thread(target=single_write)
            thread.start()
            started = time.perf_counter()
            store.upsert_many(user, batch)
            took = time.perf_counter() - started
            thread.join()
            alone = []
            for i in range(20):
                started = time.perf_counter()
                store.upsert(user, f"single {rep} {i}", vector())
                alone.append(time.perf_counter() - started)
            print(
                f"batch of {limit}: {took:.2f} s; a write of the same user sent 0.4 s in "
                f"waited {waited['s']:.2f} s; one write alone {1000 * np.median(alone):.2f} ms"
            )


if __name__ == "__main__":
    main(sys.argv[1])
