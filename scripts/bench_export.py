"""pymem export and its restore on a user of 10,000 and one of 100,000 memories: time and
the peak memory of each command (its process's maximum resident set), side by side, to
show that both stream (docs/operations.md, "Export and restore").

    python scripts/bench_export.py "postgresql://.../scratch_a" "postgresql://.../scratch_b"

Two scratch databases migrated by this tree: the first gets the users, the second the
restores (its users are replaced).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

SIZES = (10_000, 100_000)


def fill(dsn: str, user: str, n: int) -> None:
    rng = np.random.default_rng(n)
    with psycopg.connect(dsn) as conn:
        register_vector(conn)
        dim = conn.execute("SELECT embedding_dimensions FROM pymem.settings").fetchone()[0]
        conn.execute("DELETE FROM pymem.memories WHERE user_id = %s", (user,))
        with (
            conn.cursor() as cur,
            cur.copy(
                "COPY pymem.memories (user_id, kind, content, embedding, metadata)"
                " FROM STDIN WITH (FORMAT BINARY)"
            ) as copy,
        ):
            copy.set_types(["text", "text", "text", "vector", "jsonb"])
            for i in range(n):
                v = rng.normal(size=dim).astype(np.float32)
                copy.write_row((user, "fact", f"{user} remembers thing number {i}",
                                v / np.linalg.norm(v), '{"batch": 1}'))  # fmt: skip


# the command in a process of its own, which prints its own peak resident set (KB) last
_MEASURED = (
    "import resource, sys\n"
    "from pymem.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run(command: list[str]) -> tuple[float, float]:
    """Seconds and the peak resident set (MB) of one pymem command in a process of its own."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _MEASURED, *command], check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    seconds = time.perf_counter() - started
    return seconds, int(done.stderr.strip().splitlines()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("target")
    args = parser.parse_args()
    print(f"{'memories':>9} {'export s':>9} {'export MB':>10} {'file MB':>8} "
          f"{'import s':>9} {'import MB':>10}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for n in SIZES:
            user = f"export{n}"
            fill(args.source, user, n)
            path = os.path.join(tmp, f"{user}.jsonl")
            with psycopg.connect(args.target, autocommit=True) as conn:
                conn.execute("DELETE FROM pymem.memories WHERE user_id = %s", (user,))
            e_s, e_mb = run(["--dsn", args.source, "export", "--user", user, path])
            i_s, i_mb = run(["--dsn", args.target, "import", path])
            size = os.path.getsize(path) / 2**20
            print(f"{n:>9,} {e_s:>9.1f} {e_mb:>10.0f} {size:>8.0f} {i_s:>9.1f} {i_mb:>10.0f}")
    print("MB: each command's peak resident set, the Python process's own")


if __name__ == "__main__":
    main()
