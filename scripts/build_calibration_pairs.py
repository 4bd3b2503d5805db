#!/usr/bin/env python3
"""Build labelled paraphrase / duplicate-question pair files (JSONL) for dedup calibration.

Reads raw files straight out of git snapshots (bare git dirs) at pinned commits with
`git show <commit>:<path>`, converts them to one JSON object per line:

    {"a": "...", "b": "...", "label": 1|0, "lang": "en"|"zh", "source": "<name>"}

label 1 = same meaning (paraphrase / duplicate), 0 = different.
Graded similarity sets (STS-B, Chinese STS-B, SICK): score >= 4.0 -> 1, any score below 4.0
-> 0. A pair scored 3 ("roughly equivalent, but some important information differs") is
exactly what a memory store must not merge; dropping the middle (as this script did before,
keeping only scores <= 2 as distinct) left the distinct pairs too easy: thresholds fitted to 2%
false merges on those files merged 10-12% of unseen STS-B pairs scored below 4.
Each output file is capped at CAP pairs: if a split has more, a random sample is drawn
with random.Random(0).sample (file order otherwise kept).

Usage:  python3 build_pairs.py [--mirror /work/.mirror] [--out /work/data/pairs]

HELD-OUT: the TEST splits of MRPC, STS-B, LCQMC and Chinese STS-B are reserved for an
independent check. They are never read by this script (see FORBIDDEN below, enforced).
"""

import argparse
import csv
import io
import json
import os
import random
import subprocess
import sys

CAP = 20000
SEED = 0

# Files that must never be read (test splits reserved for independent evaluation).
FORBIDDEN = {
    ("brmson/dataset-sts", "data/para/msr/msr-para-test.tsv"),  # MRPC test (orig. MSRP test)
    ("aivilmo/textual-similarity", "stsbenchmark/sts-test.csv"),  # STS-B test
    ("mbrull153/EDA-nlp-tfm", "stsbenchmark/sts-test.csv"),  # STS-B test
    ("zejunwang1/CSTS", "LCQMC/test.txt"),  # LCQMC test
    ("IceFlameWorm/NLP_Datasets", "LCQMC/test.txt"),  # LCQMC test
    ("zejunwang1/CSTS", "Chinese-STS-B/sts-b-test.txt"),  # Chinese STS-B test
    ("hoangdzung/simmat", "data/msr_paraphrase_test.txt"),  # MRPC test
    ("hoangdzung/simmat", "data/msr_paraphrase.txt"),  # whole MSRP incl. test
}
# Any path containing one of these substrings is also refused (belt and braces).
FORBIDDEN_SUBSTR = (
    "msr-para-test",
    "msr_paraphrase_test",
    "msr_paraphrase.txt",
    "sts-test",
    "sts-b-test",
    "LCQMC/test",
    "lcqmc/test",
)
# The whole SemEval STS 2012-2016 collection is excluded too: STS-B's test split is drawn
# from it, so using it would leak STS-B test pairs.
FORBIDDEN_SUBSTR += ("semeval-sts/",)


# ---------------------------------------------------------------- parsers
def _lab01(x):
    x = x.strip()
    if x in ("0", "1"):
        return int(x)
    raise ValueError(f"bad label {x!r}")


def p_tsv3(text):
    """a \t b \t label (0/1); tolerates empty fields from doubled tabs."""
    for line in text.splitlines():
        cols = [c for c in line.split("\t")]
        cols = [c for c in cols if c.strip() != ""]
        if len(cols) != 3:
            continue
        yield cols[0], cols[1], _lab01(cols[2])


def p_tsv3_score(text):
    """a \t b \t score (0-5 graded)."""
    for line in text.splitlines():
        cols = [c for c in line.split("\t") if c.strip() != ""]
        if len(cols) != 3:
            continue
        yield cols[0], cols[1], float(cols[2])


def p_pawsx(text):
    """id \t sentence1 \t sentence2 \t label, with header."""
    for i, line in enumerate(text.splitlines()):
        cols = line.split("\t")
        if i == 0 and cols[0] == "id":
            continue
        if len(cols) != 4 or cols[3].strip() not in ("0", "1"):
            continue
        yield cols[1], cols[2], int(cols[3])


def p_atec(text):
    """ATEC: id \t s1 \t s2 \t label (UTF-8 BOMs may appear inside fields)."""
    for line in text.splitlines():
        cols = [c.replace("\ufeff", "") for c in line.split("\t")]
        if len(cols) != 4:
            continue
        yield cols[1], cols[2], _lab01(cols[3])


def p_csv_header3(text):
    """CSV with header sentence1,sentence2,label (BQ corpus)."""
    text = text.lstrip("\ufeff")
    r = csv.reader(io.StringIO(text))
    header = next(r)
    assert header[:3] == ["sentence1", "sentence2", "label"], header
    for row in r:
        if len(row) != 3:
            continue
        yield row[0], row[1], _lab01(row[2])


def p_msrp(text):
    """MSRP: Quality \t #1 ID \t #2 ID \t #1 String \t #2 String, with header."""
    for i, line in enumerate(text.lstrip("\ufeff").splitlines()):
        cols = line.split("\t")
        if i == 0:
            assert cols[0] == "Quality", cols
            continue
        if len(cols) != 5:
            continue
        yield cols[3], cols[4], _lab01(cols[0])


def p_stsb(text):
    """STS benchmark csv: genre \t file \t year \t id \t score \t s1 \t s2 [\t extra...]."""
    for line in text.splitlines():
        cols = line.split("\t")
        if len(cols) < 7:
            continue
        yield cols[5], cols[6], float(cols[4])


def p_sick(text):
    """SICK: pair_ID \t sentence_A \t sentence_B \t relatedness_score(1-5) \t entailment, header."""
    for i, line in enumerate(text.splitlines()):
        cols = line.split("\t")
        if i == 0:
            assert cols[0] == "pair_ID", cols
            continue
        if len(cols) != 5:
            continue
        yield cols[1], cols[2], float(cols[3])


def graded(rows, hi=4.0):
    """Same meaning at ``hi`` and above; every pair below it is distinct."""
    for a, b, s in rows:
        yield a, b, int(s >= hi)


# ---------------------------------------------------------------- sources
# (output name, lang, repo, commit, path, parser, is_graded)
SPECS = [
    # ---- English
    (
        "mrpc-train",
        "en",
        "brmson/dataset-sts",
        "e1d3375f5b3bc24f21aa4e46f96eb379e9fc1081",
        "data/para/msr/msr-para-train.tsv",
        p_msrp,
        False,
    ),
    (
        "mrpc-val",
        "en",
        "brmson/dataset-sts",
        "e1d3375f5b3bc24f21aa4e46f96eb379e9fc1081",
        "data/para/msr/msr-para-val.tsv",
        p_msrp,
        False,
    ),
    (
        "stsb-train",
        "en",
        "aivilmo/textual-similarity",
        "3fe0911a2e267b1cd7b2602c095c402ebadf4271",
        "stsbenchmark/sts-train.csv",
        p_stsb,
        True,
    ),
    (
        "stsb-dev",
        "en",
        "aivilmo/textual-similarity",
        "3fe0911a2e267b1cd7b2602c095c402ebadf4271",
        "stsbenchmark/sts-dev.csv",
        p_stsb,
        True,
    ),
    (
        "paws-wiki-dev",
        "en",
        "hoangdzung/simmat",
        "7e55b810e8c462041e8de83cdfddfd429dff6996",
        "data/final/dev.tsv",
        p_pawsx,
        False,
    ),
    (
        "paws-wiki-test",
        "en",
        "hoangdzung/simmat",
        "7e55b810e8c462041e8de83cdfddfd429dff6996",
        "data/final/test.tsv",
        p_pawsx,
        False,
    ),
    (
        "sick-train",
        "en",
        "brmson/dataset-sts",
        "e1d3375f5b3bc24f21aa4e46f96eb379e9fc1081",
        "data/sts/sick2014/SICK_train.txt",
        p_sick,
        True,
    ),
    (
        "sick-trial",
        "en",
        "brmson/dataset-sts",
        "e1d3375f5b3bc24f21aa4e46f96eb379e9fc1081",
        "data/sts/sick2014/SICK_trial.txt",
        p_sick,
        True,
    ),
    # ---- Chinese
    (
        "lcqmc-dev",
        "zh",
        "zejunwang1/CSTS",
        "2e7eeedf505c78bf39d34f836773081cfc98af0c",
        "LCQMC/dev.txt",
        p_tsv3,
        False,
    ),
    (
        "afqmc-train",
        "zh",
        "zejunwang1/CSTS",
        "2e7eeedf505c78bf39d34f836773081cfc98af0c",
        "AFQMC/train.txt",
        p_tsv3,
        False,
    ),
    (
        "afqmc-dev",
        "zh",
        "zejunwang1/CSTS",
        "2e7eeedf505c78bf39d34f836773081cfc98af0c",
        "AFQMC/dev.txt",
        p_tsv3,
        False,
    ),
    (
        "oppo-xiaobu-dev",
        "zh",
        "zejunwang1/CSTS",
        "2e7eeedf505c78bf39d34f836773081cfc98af0c",
        "OPPO-xiaobu/dev.txt",
        p_tsv3,
        False,
    ),
    (
        "pawsx-zh-dev",
        "zh",
        "zejunwang1/CSTS",
        "2e7eeedf505c78bf39d34f836773081cfc98af0c",
        "PAWS-X/dev_2k.tsv",
        p_pawsx,
        False,
    ),
    (
        "pawsx-zh-test",
        "zh",
        "zejunwang1/CSTS",
        "2e7eeedf505c78bf39d34f836773081cfc98af0c",
        "PAWS-X/test_2k.tsv",
        p_pawsx,
        False,
    ),
    (
        "cstsb-train",
        "zh",
        "zejunwang1/CSTS",
        "2e7eeedf505c78bf39d34f836773081cfc98af0c",
        "Chinese-STS-B/sts-b-train.txt",
        p_tsv3_score,
        True,
    ),
    (
        "cstsb-dev",
        "zh",
        "zejunwang1/CSTS",
        "2e7eeedf505c78bf39d34f836773081cfc98af0c",
        "Chinese-STS-B/sts-b-dev.txt",
        p_tsv3_score,
        True,
    ),
    (
        "atec-train",
        "zh",
        "IceFlameWorm/NLP_Datasets",
        "a2203a7361b6386dd8d8b64f5d600aa1ec730d0d",
        "ATEC/atec_nlp_sim_train.csv",
        p_atec,
        False,
    ),
    (
        "bq-dev",
        "zh",
        "IceFlameWorm/NLP_Datasets",
        "a2203a7361b6386dd8d8b64f5d600aa1ec730d0d",
        "BQ_corpus/dev.csv",
        p_csv_header3,
        False,
    ),
    (
        "bq-test",
        "zh",
        "IceFlameWorm/NLP_Datasets",
        "a2203a7361b6386dd8d8b64f5d600aa1ec730d0d",
        "BQ_corpus/test.csv",
        p_csv_header3,
        False,
    ),
]


def gitdir(mirror, repo):
    base = os.path.join(mirror, repo.replace("/", "+"), "repo")
    return os.path.join(base, ".git") if os.path.isdir(os.path.join(base, ".git")) else base


def read_blob(mirror, repo, commit, path):
    if (repo, path) in FORBIDDEN or any(s in path for s in FORBIDDEN_SUBSTR):
        sys.exit(f"refusing to read held-out test file {repo}:{path}")
    out = subprocess.run(
        ["git", "--git-dir", gitdir(mirror, repo), "show", f"{commit}:{path}"],
        check=True,
        stdout=subprocess.PIPE,
    ).stdout
    return out.decode("utf-8-sig")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--only", nargs="*", help="build only these output names")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    summary = []
    for name, lang, repo, commit, path, parser, is_graded in SPECS:
        if args.only and name not in args.only:
            continue
        text = read_blob(args.mirror, repo, commit, path)
        rows = parser(text)
        if is_graded:
            rows = graded(rows)
        clean = []
        for a, b, lab in rows:
            a, b = a.strip(), b.strip()
            if not a or not b:
                continue
            clean.append((a, b, lab))
        n_raw = len(clean)
        if len(clean) > CAP:
            clean = random.Random(SEED).sample(clean, CAP)
        fn = os.path.join(args.out, name + ".jsonl")
        with open(fn, "w", encoding="utf-8") as f:
            for a, b, lab in clean:
                f.write(
                    json.dumps(
                        {"a": a, "b": b, "label": lab, "lang": lang, "source": name},
                        ensure_ascii=False,
                    )
                    + "\n"
                )
        pos = sum(1 for r in clean if r[2] == 1)
        summary.append((name, len(clean), pos, len(clean) - pos, n_raw))
        print(
            f"{name:<18} {len(clean):6d} pairs  (1: {pos:5d}  0: {len(clean) - pos:5d})"
            f"  usable before cap: {n_raw}"
        )
    return summary


if __name__ == "__main__":
    main()
