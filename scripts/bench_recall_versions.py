"""recall of this tree beside the recall of an earlier commit, on the same rows.

Loads the earlier commit's pymem.recall as pymem.recall_prev (planned as recall is),
writes a user of 1,000 and one of 10,000 random 512-d memories, and times both
functions alternating, with and without query_text; prints the medians and the ratio.
With --open-reviews, a user of 1,500 memories (a third of them of 300 topics) and
59,000 open reviews between them, as a store whose reviews nobody settles gathers:
the rows recall lifts as newer values of its best ones.

    python scripts/bench_recall_versions.py "postgresql://.../scratch" --before 9181830
    python scripts/bench_recall_versions.py "postgresql://.../scratch" --before 18bf56d \
        --open-reviews

Use a scratch database migrated by this tree: it writes users bench1000 and bench10000
(bench_reviews with --open-reviews).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

ROOT = Path(__file__).resolve().parent.parent


def earlier_recall(commit: str) -> str:
    """The earlier recall as recall_prev, and the helper of its own it calls: the share
    of query tokens, pymem._lexical_match(text[], text), which later code replaced by a
    three-argument one (an overload: the two do not collide)."""
    old = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:sql/30_recall.sql"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    start = old.index("CREATE OR REPLACE FUNCTION pymem.recall(")
    end = old.index("$$;", old.index("AS $$", start)) + 3
    helper = old.find("CREATE OR REPLACE FUNCTION pymem._lexical_match(tokens text[], content")
    return (
        (old[helper : old.index("\n\n", helper)] if helper >= 0 else "")
        + "\n"
        + (
            old[start:end]
            .replace("FUNCTION pymem.recall(", "FUNCTION pymem.recall_prev(", 1)
            .replace("recall.", "recall_prev.")
        )
    )


def open_reviews(conn, user: str, rng) -> None:
    """59,000 open reviews, each of a later memory against an earlier one."""
    ids = [r[0] for r in conn.execute(
        "SELECT id FROM pymem.memories WHERE user_id = %s ORDER BY updated_at, id", (user,)
    ).fetchall()]  # fmt: skip
    pairs = set()
    while len(pairs) < 59_000:
        a, b = rng.choice(len(ids), 2, replace=False)
        pairs.add((ids[max(a, b)], ids[min(a, b)]))
    with conn.cursor().copy(
        "COPY pymem.reviews (user_id, cause, memory_id, matched_id, similarity) FROM STDIN"
    ) as copy:
        for memory_id, matched_id in pairs:
            copy.write_row((user, "related", memory_id, matched_id, 0.8))
    conn.execute("ANALYZE pymem.reviews")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dsn")
    parser.add_argument("--before", required=True, help="the commit whose recall to compare")
    parser.add_argument(
        "--open-reviews", action="store_true", help="the user with 59k open reviews"
    )
    args = parser.parse_args()
    rng = np.random.default_rng(3)
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        register_vector(conn)
        # an earlier run's recall_prev (of another commit: maybe other parameters) goes
        for (signature,) in conn.execute(
            "SELECT oid::regprocedure::text FROM pg_proc WHERE proname = 'recall_prev'"
            " AND pronamespace = 'pymem'::regnamespace"
        ).fetchall():
            conn.execute(f"DROP FUNCTION {signature}")
        conn.execute(earlier_recall(args.before))
        # by name: the earlier recall's parameters are those of its commit
        conn.execute("ALTER FUNCTION pymem.recall_prev SET plan_cache_mode = force_generic_plan")
        users = [(f"bench{n}", n) for n in (1000, 10000)]
        for user, n in [("bench_reviews", 1500)] if args.open_reviews else users:
            conn.execute("DELETE FROM pymem.memories WHERE user_id = %s", (user,))
            # an earlier run's rows, dead: every scan of the user would step over them
            conn.execute("VACUUM pymem.memories, pymem.reviews")
            with conn.cursor().copy(
                "COPY pymem.memories (user_id, kind, content, embedding, topic, updated_at)"
                " FROM STDIN"
            ) as copy:
                for i in range(n):
                    v = rng.normal(size=512).astype(np.float32)
                    copy.write_row((
                        user, "fact", f"memory {i} about topic {i % 97} and place {i % 31}",
                        "[" + ",".join(f"{x:.5f}" for x in v) + "]",
                        # the reviews' user: values of a topic, written an hour apart
                        f"topic {i % 300}" if args.open_reviews and i % 3 == 0 else None,
                        f"2026-01-{1 + i // 24 % 28:02d}T{i % 24:02d}:00:00Z",
                    ))  # fmt: skip
            if args.open_reviews:
                open_reviews(conn, user, rng)
            conn.execute("ANALYZE pymem.memories")
            for text in (None, "where is the place 7 topic"):
                now, before = [], []
                for j in range(60):
                    q = rng.normal(size=512).astype(np.float32)
                    pair = [("recall", now), ("recall_prev", before)]
                    for name, times in pair if j % 2 else reversed(pair):
                        started = time.perf_counter()
                        conn.execute(
                            f"SELECT count(*) FROM pymem.{name}(%s, %s, 10, query_text => %s)",
                            (user, q, text),
                        ).fetchone()
                        times.append(time.perf_counter() - started)
                a, b = statistics.median(now[10:]), statistics.median(before[10:])
                print(
                    f"{n} memories, query_text {'yes' if text else 'no '}: this tree "
                    f"{a * 1000:.2f} ms, {args.before} {b * 1000:.2f} ms, {a / b:.2f}x"
                )


if __name__ == "__main__":
    main()
