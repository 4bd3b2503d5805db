"""What each guard of the duplicate rule decides on labelled pairs: the pairs it alone
keeps from merging (pymem.explain: the only guard that fired, and the pair would be a
duplicate without it), split into same-fact pairs (a restatement it kept apart) and
distinct pairs (a false merge it prevented). The embedding threshold itself ("below the
duplicate threshold") is left out: it is the rule, not a guard.

    python scripts/guard_effects.py DSN FILE.jsonl [FILE.jsonl ...] [--sample 1500]

Each file holds pairs {"a", "b", "label"} (label 1 / "duplicate": the same fact); the
public ones are rebuilt by scripts/build_calibration_pairs.py (docs/calibration.md). The
store at DSN records the bundled embedder's thresholds first (a scratch database).
"""

from __future__ import annotations

import argparse
import collections
import json
import random

from pymem import MemoryStore
from pymem.embedder import default_embedder

SAME = (1, "1", "duplicate", True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dsn")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--sample", type=int, default=1500, help="pairs a file (seed 1)")
    args = parser.parse_args()
    embed = default_embedder()
    with MemoryStore(args.dsn) as store:
        embed.configure(store)
        total: collections.Counter = collections.Counter()
        for path in args.files:
            with open(path, encoding="utf-8") as f:
                rows = [json.loads(line) for line in f if line.strip()]
            random.Random(1).shuffle(rows)
            rows = rows[: args.sample]
            alone: collections.Counter = collections.Counter()
            for row, va, vb in zip(
                rows, embed([r["a"] for r in rows]), embed([r["b"] for r in rows]), strict=True
            ):
                steps = store.explain(row["a"], row["b"], va, vb)
                guards = [s for s in steps if s.step.startswith("guard: ")]
                fired = [
                    s.step.removeprefix("guard: ") for s in guards if s.finding.startswith("fired")
                ]
                merged = steps[-1].finding.startswith("duplicate")
                if len(fired) == 1 and not merged and fired[0] != "below the duplicate threshold":
                    same = "same fact" if row["label"] in SAME else "distinct"
                    alone[(fired[0], same)] += 1
            total.update(alone)
            print(f"{path}: {len(rows)} pairs", dict(sorted(alone.items())), flush=True)
        print("every file:")
        for guard in sorted({g for g, _ in total}):
            print(f"  {guard}: kept {total[(guard, 'same fact')]} restatements apart, "
                  f"prevented {total[(guard, 'distinct')]} false merges")  # fmt: skip


if __name__ == "__main__":
    main()
