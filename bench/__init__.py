"""pymem's benchmarks: ``pymem bench`` runs them all; ``pymem bench NAME`` one of them.

Each prints the machine it ran on, absolute numbers, ratios measured side by
side in the same run, the targets that README.md states (one table,
``bench.targets``) marked MET or MISSED, and exactness checks against a
brute-force scan. Timing is never asserted by the test suite;
``tests/test_bench_all.py`` runs every benchmark of the run of all once on tiny
sizes and checks its structure, its targets and its exactness.
"""
