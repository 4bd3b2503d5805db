"""pymem's benchmarks: ``pymem bench upsert`` and ``pymem bench recall``.

Each prints the machine it ran on, absolute numbers, ratios measured side by
side in the same run, the targets of DESIGN.md ("Performance") marked PASS or
MISS, and exactness checks against a brute-force scan. Timing is never asserted
by the test suite; ``tests/test_bench_smoke.py`` runs each benchmark's core on
tiny sizes and checks its structure and exactness.
"""
