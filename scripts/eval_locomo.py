"""Evidence recall on LoCoMo: what pymem.recall returns for questions about long chats.

LoCoMo (Maharana et al., ACL 2024; https://github.com/snap-research/locomo) is ten long
conversations between two people, each annotated with observations (one sentence about a
speaker, citing the dialog turn it came from, e.g. ``D1:3``) and questions whose evidence
names the dialog turns that answer them. Its data is not in this repository (licence:
CC BY-NC 4.0, see the project's page); re-create it with::

    git clone https://github.com/snap-research/locomo /tmp/locomo-repo
    python scripts/eval_locomo.py /tmp/locomo-repo/data/locomo10.zip

The protocol, fixed before any result was read:

* one user per conversation; every observation is written, in session order, through
  ``upsert_memories`` with the bundled embedder (the store may merge two observations:
  an observation then counts as found when the memory that holds it is returned);
* the questions of categories 1-4 (category 5 is adversarial: no answer exists) whose
  evidence cites at least one turn an observation cites: 1,311 questions;
* each observation is dated to its session (the memory's ``created_at``, and an
  absorbed wording's ``added_at``, are set to it after the write), and the questions
  are asked a day after the last session;
* a question is answered at k when an observation citing one of its evidence turns
  (of those some observation cites) is among the top k; evidence recall@k is the share
  of questions answered (the figure issue 34 quotes); the share of each question's
  evidence turns found is printed beside it;
* recall runs three ways on the same rows: by vector alone, with ``query_text`` (pymem's
  ranking), and, for reference, plain BM25 (k1 1.2, b 0.75) over the observations,
  computed here in Python on lowercased word tokens.

The run writes users ``locomo:<n>`` into the database it is given (the embedded server's
``pymem_locomo`` database by default) and replaces them on every run.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
import zipfile
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

TURN = re.compile(r"D\d+:\d+")
WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]")


def conversations(path: Path) -> list[dict]:
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            names = sorted(n for n in archive.namelist() if n.endswith(".json"))
            return [json.loads(archive.read(n)) for n in names]
    return [json.loads(p.read_text()) for p in sorted(path.glob("*.json"))]


def turns(value) -> set[str]:
    # evidence is written several ways ("D8:6; D9:17", lists, "D:11:26" once)
    return set(TURN.findall(json.dumps(value).replace("D:", "D")))


MONTHS = "january february march april may june july august september october november december"


def session_dates(conv: dict) -> dict[int, datetime]:
    """'1:56 pm on 8 May, 2023' for each session, as an instant (UTC)."""
    out = {}
    for key, value in conv.items():
        if key.endswith("_date_time"):
            hm, ampm, day, month, year = re.match(
                r"(\d+:\d+) (am|pm) on (\d+) (\w+),? (\d{4})", value
            ).groups()
            hour, minute = map(int, hm.split(":"))
            hour = hour % 12 + (12 if ampm == "pm" else 0)
            out[int(key.split("_")[1])] = datetime(
                int(year), MONTHS.split().index(month.lower()) + 1, int(day), hour, minute,
                tzinfo=timezone.utc,
            )  # fmt: skip
    return out


def observations(conv: dict) -> list[tuple[str, set[str]]]:
    sessions = sorted(
        (int(k.split("_")[1]), v) for k, v in conv.items() if k.endswith("_observation")
    )
    out = []
    for _, by_speaker in sessions:
        for said in by_speaker.values():
            for text, cited in said:
                out.append((text, turns(cited)))
    return out


def questions(conv: dict, observed: set[str]) -> list[tuple[str, set[str]]]:
    out = []
    for qa in conv["qa"]:
        evidence = turns(qa.get("evidence") or []) & observed
        if qa.get("category") != 5 and evidence:
            out.append((qa["question"], evidence))
    return out


def bm25(docs: list[str], k1: float = 1.2, b: float = 0.75):
    tokens = [WORD.findall(d.lower()) for d in docs]
    avg = sum(map(len, tokens)) / len(tokens)
    df = Counter(t for ts in tokens for t in set(ts))
    n = len(docs)
    tfs = [Counter(ts) for ts in tokens]

    def rank(query: str) -> list[int]:
        q = set(WORD.findall(query.lower()))
        scores = []
        for i, tf in enumerate(tfs):
            s = 0.0
            for t in q & tf.keys():
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * tf[t] * (k1 + 1) / (tf[t] + k1 * (1 - b + b * len(tokens[i]) / avg))
            scores.append(s)
        return sorted(range(n), key=lambda i: -scores[i])

    return rank


def session_of(cited: set[str]) -> int:
    return min(int(t[1:].split(":")[0]) for t in cited)


def sessions_written(obs: list[tuple[str, set[str]]]) -> set[int]:
    return {session_of(c) for _, c in obs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="locomo10.zip or a folder of its JSON files")
    parser.add_argument("--dsn", help="a migrated database (default: the embedded server)")
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--misses", type=Path, help="write the questions missed to this file")
    args = parser.parse_args()

    from pymem.embedder import UseEmbedder
    from pymem.eval import eval_database
    from pymem.migrate import migrate
    from pymem.store import MemoryStore

    dsn = args.dsn
    if dsn is None:
        dsn = eval_database(None, "pymem_locomo", yes=True)
        migrate(dsn)
    embed = UseEmbedder()
    convs = conversations(args.data)
    ways = ("vector", "query_text", "bm25")
    found = {w: [] for w in ways}  # per question: some evidence turn found (the headline)
    share = {w: [] for w in ways}  # per question: the share of its evidence turns found
    misses = []
    started = time.perf_counter()
    with MemoryStore(dsn) as store:
        embed.configure(store)
        for n, conv in enumerate(convs):
            user = f"locomo:{n}"
            dates = session_dates(conv)
            obs = observations(conv)
            vectors = embed([t for t, _ in obs])
            holder: dict[str, set[str]] = {}  # memory id -> turns its observations cite
            written: dict[str, datetime] = {}  # memory id -> when its first observation came
            said: list[tuple[str, str, datetime]] = []  # wordings absorbed, and when
            with store._connection() as conn:
                conn.execute("DELETE FROM pymem.memories WHERE user_id = %s", (user,))
                conn.execute("DELETE FROM pymem.memory_wordings WHERE user_id = %s", (user,))
            for start in range(0, len(obs), 500):
                chunk = list(range(start, min(start + 500, len(obs))))
                results = store.upsert_many(
                    user, [{"content": obs[i][0], "embedding": vectors[i]} for i in chunk]
                )
                for i, r in zip(chunk, results, strict=True):
                    memory = str(r.memory_id)
                    holder.setdefault(memory, set()).update(obs[i][1])
                    when = dates[session_of(obs[i][1])]
                    written.setdefault(memory, when)
                    if r.action == "duplicate":
                        said.append((memory, obs[i][0], when))
            # as if each observation had been written on its session's day
            with store._connection() as conn:
                conn.execute(
                    "UPDATE pymem.memories AS m SET created_at = w.at"
                    " FROM unnest(%s::uuid[], %s::timestamptz[]) AS w (id, at)"
                    " WHERE m.user_id = %s AND m.id = w.id",
                    (list(written), list(written.values()), user),
                )
                for memory, text, when in said:
                    conn.execute(
                        "UPDATE pymem.memory_wordings SET added_at = %s"
                        " WHERE user_id = %s AND memory_id = %s AND content = %s",
                        (when, user, memory, text),
                    )
            asked = max(dates[s] for s in sessions_written(obs)) + timedelta(days=1)
            observed = set().union(*(c for _, c in obs))
            qs = questions(conv, observed)
            qvectors = embed([q for q, _ in qs])
            rank = bm25([t for t, _ in obs])
            for (q, evidence), qv in zip(qs, qvectors, strict=True):
                returned = {
                    "vector": [
                        holder[str(h.memory_id)] for h in store.recall(user, qv, k=args.k, at=asked)
                    ],
                    "query_text": [
                        holder[str(h.memory_id)]
                        for h in store.recall(user, qv, k=args.k, query_text=q, at=asked)
                    ],
                    "bm25": [obs[i][1] for i in rank(q)[: args.k]],
                }
                for way, cited in returned.items():
                    got = set().union(*cited) & evidence
                    found[way].append(bool(got))
                    share[way].append(len(got) / len(evidence))
                if not found["query_text"][-1]:
                    misses.append({"conversation": n, "question": q, "evidence": sorted(evidence)})
            print(
                f"conversation {n}: {len(obs)} observations, {len(qs)} questions",
                file=sys.stderr,
            )
    figures = {w: round(sum(v) / len(v), 4) for w, v in found.items()}
    figures.update({f"{w} share": round(sum(v) / len(v), 4) for w, v in share.items()})
    figures["questions"] = len(found["vector"])
    figures["seconds"] = round(time.perf_counter() - started, 1)
    if args.misses:
        args.misses.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in misses))
    if args.json:
        print(json.dumps(figures))
    else:
        for way in ways:
            print(
                f"evidence recall@{args.k} {way:>10}: {figures[way]:.3f}"
                f" (share of the evidence found: {figures[way + ' share']:.3f})"
            )
        print(f"{figures['questions']} questions, {figures['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
