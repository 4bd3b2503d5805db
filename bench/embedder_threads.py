"""The bundled encoder on one BLAS thread beside two, side by side in one run: single
texts (a write, a question) and one batch, wall and CPU time of each, alternating rounds.

    python -m bench.embedder_threads

Needs pymem[embed] (threadpoolctl applies the limit). docs/benchmarks.md has a run.
"""

from __future__ import annotations

import statistics
import sys
import time

SINGLE = [f"Maya drinks her coffee with oat milk, note {i}" for i in range(50)]
BATCH = [f"Text {i} about what Maya likes to do on weekends in Lisbon" for i in range(300)]


def _timed(embed, texts_per_call: list[list[str]]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    for texts in texts_per_call:
        embed(texts)
    return time.perf_counter() - wall, time.process_time() - cpu


def main(rounds: int = 5) -> int:
    from pymem.embedder import UseEmbedder

    embedders = {threads: UseEmbedder(threads=threads) for threads in (1, 2)}
    for embed in embedders.values():
        embed(["warm up"])
    work = {"50 single texts": [[t] for t in SINGLE], "a batch of 300": [BATCH]}
    for name, calls in work.items():
        times = {threads: [] for threads in embedders}
        for _ in range(rounds):
            for threads, embed in embedders.items():
                times[threads].append(_timed(embed, calls))
        wall = {t: statistics.median(w for w, _ in v) for t, v in times.items()}
        cpu = {t: statistics.median(c for _, c in v) for t, v in times.items()}
        print(
            f"{name}: 1 thread {wall[1] * 1000:.0f} ms (CPU {cpu[1] * 1000:.0f} ms),"
            f" 2 threads {wall[2] * 1000:.0f} ms (CPU {cpu[2] * 1000:.0f} ms):"
            f" 2 threads take {wall[2] / wall[1]:.2f}x the time, {cpu[2] / cpu[1]:.2f}x the CPU"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
