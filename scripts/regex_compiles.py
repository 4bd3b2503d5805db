"""How many regular expressions one session of pymem compiles, and which.

A PostgreSQL session keeps 32 compiled regular expressions (the least recently used
goes first). pymem's text rules are patterns, and a session whose writes and recalls
use more than 32 compiles them again and again: 600 writes of the development
streams' memories with a recall every five compiled 2,625 patterns before 0035 and
365 after, and took 0.8-0.86x the time. Nothing else checks the count: run this after
adding a pattern to the write or read path.

    python scripts/regex_compiles.py --dsn postgresql://postgres:@/DB?host=...

The database must hold a store migrated at 512 dimensions (its rows are left there,
under users ``regex-<n>``). The script writes the memories of bench/data's
development streams through ``pymem.upsert_memory`` on one connection, a
``pymem.recall`` with words every ``--recall-every`` writes, with gdb attached to
that connection's server process and a breakpoint on ``pg_regcomp`` that reads each
pattern from its arguments (x86-64: ``rsi`` and ``rdx``). It needs gdb and leave to
trace the server (root, or the server's own OS user). It prints the compiles, the
distinct patterns, and the patterns compiled most often.
"""

from __future__ import annotations

import argparse
import glob
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

ROOT = Path(__file__).resolve().parent.parent

_GDB_SCRIPT = """
import collections, gdb, json
counts = collections.Counter()

class Compile(gdb.Breakpoint):
    def stop(self):
        frame = gdb.selected_frame()
        start, length = int(frame.read_register("rsi")), int(frame.read_register("rdx"))
        raw = bytes(gdb.selected_inferior().read_memory(start, 4 * min(length, 20000)))
        counts["".join(chr(int.from_bytes(raw[i:i + 4], "little"))
                       for i in range(0, len(raw), 4))] += 1
        return False

Compile("pg_regcomp")

def done(event):
    with open(OUT, "w") as f:
        json.dump(counts, f)

gdb.events.exited.connect(done)
gdb.execute("continue")
"""


def _stream_rows() -> tuple[list[tuple[str, str]], list[str]]:
    memories, questions = [], []
    for path in sorted(glob.glob(str(ROOT / "bench/data/memory_dev_stream_[b-n].jsonl"))):
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("type") == "memory":
                memories.append((row["content"], row.get("kind") or "fact"))
            elif row.get("type") == "question":
                questions.append(row["text"])
    return memories, questions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--writes", type=int, default=600)
    parser.add_argument("--recall-every", type=int, default=5, help="0: writes only")
    args = parser.parse_args(argv)

    memories, questions = _stream_rows()
    memories = memories[: args.writes]
    vectors = np.random.default_rng(0).standard_normal((len(memories), 512)).astype("float32")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "counts.json"
        script = Path(tmp) / "count.py"
        script.write_text(f"OUT = {str(out)!r}\n" + _GDB_SCRIPT, encoding="utf-8")
        conn = psycopg.connect(args.dsn, autocommit=True)
        register_vector(conn)
        gdb = subprocess.Popen(
            ["gdb", "-p", str(conn.info.backend_pid), "-batch", "-ex", "set pagination off",
             "-x", str(script)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(3)  # attached and continued
        user = f"regex-{int(time.time())}-"
        for i, (content, kind) in enumerate(memories):
            conn.execute(
                "SELECT * FROM pymem.upsert_memory(%s, %s, %s, %s)",
                (f"{user}{i % 20}", content, vectors[i], kind),
            ).fetchall()
            if args.recall_every and i % args.recall_every == args.recall_every - 1:
                conn.execute(
                    "SELECT * FROM pymem.recall(%s, %s, 5, query_text => %s)",
                    (f"{user}{i % 20}", vectors[i - 1], questions[i % len(questions)]),
                ).fetchall()
        conn.close()
        gdb.wait(timeout=60)
        if not out.exists():
            print("gdb counted nothing: is it installed, and may it trace the server?")
            return 1
        counts = json.loads(out.read_text(encoding="utf-8"))
    every = f"a recall with words every {args.recall_every}" if args.recall_every else "no recall"
    print(f"{sum(counts.values())} compiles of {len(counts)} distinct patterns "
          f"({len(memories)} writes, {every})")  # fmt: skip
    for pattern, n in sorted(counts.items(), key=lambda kv: -kv[1])[:15]:
        print(f"{n:6d}  {pattern[:100]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
