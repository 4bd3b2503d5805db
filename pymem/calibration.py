"""Calibrate the write path for an embedder: fit on one set of pairs, report on another.

A labelled pair (text a, text b) is "the same fact" (label 1, or ``duplicate``), "distinct"
(label 0, or ``related`` / ``unrelated``) or, in pymem's hand-written set, an ``update`` of the
same slot. The rules that decide are pymem's own SQL (``pymem._decision`` for the sweep,
``pymem.upsert_memory`` for the reported numbers): nothing of the rule is repeated here.

* fit: on the *development* pairs, for each language, the grid point (``dedup_threshold``,
  ``dedup_term_change`` for English, ``cjk_dedup_threshold``, ``cjk_dedup_term_change`` for
  Chinese) that merges the most true paraphrases of that language while merging at most
  ``max_false_merge - margin`` of the distinct pairs of *every* source of that language;
* report: the false-merge rate (distinct pairs that end ``duplicate`` or ``superseded``) and the
  merge recall of each language, on the development pairs and on evaluation pairs that the fit
  never saw, through the real upsert path: store a, then upsert b.

The pairs go to temporary tables; every write is made in transactions that are rolled back
(500 pairs at a time: each pair is its own user, and each user's lock lives until the end of
its transaction), so the store is left as it was.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

DEFAULT_PAIRS_PATH = Path(__file__).resolve().parent / "data" / "calibration_pairs.jsonl"
SAME, UPDATE, DISTINCT = "same", "update", "distinct"
_LABELS = {
    "1": SAME,
    "duplicate": SAME,
    "0": DISTINCT,
    "related": DISTINCT,
    "unrelated": DISTINCT,
    "update": UPDATE,
}
DEDUP_GRID = tuple(round(0.70 + 0.01 * i, 2) for i in range(29))  # 0.70 .. 0.98
# 1.0: no limit on the share of changed terms (the other guards still hold)
TERM_CHANGE_GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 1.0)
# the language whose pairs the cjk_ thresholds decide (pymem._evidence: text with CJK characters)
CJK_LANG = "zh"
# The related band starts where the review queue still sees this share of the true
# paraphrases that dedup leaves apart.
REVIEW_RECALL = 0.8

Embed = Callable[[list[str]], Any]


@dataclass(frozen=True)
class Pair:
    lang: str
    label: str  # SAME, UPDATE or DISTINCT
    a: str
    b: str
    source: str = ""


@dataclass
class Calibration:
    dedup_threshold: float
    dedup_term_change: float
    supersede_threshold: float
    topic_supersede_threshold: float
    # Chinese text's own thresholds (None: the ones above)
    cjk_dedup_threshold: float | None = None
    cjk_dedup_term_change: float | None = None
    # report[set name][lang] -> counts and rates
    report: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def load_pairs(paths: Iterable[str | Path] | None = None, sample: int | None = None) -> list[Pair]:
    """Pairs from JSONL files (``a``, ``b``, ``label``, ``lang``); the bundled set by default.
    With ``sample``, at most that many pairs of each file, drawn with a fixed seed."""
    pairs: list[Pair] = []
    for path in paths or [DEFAULT_PAIRS_PATH]:
        pairs += _sampled(_read_pairs(Path(path)), sample)
    return pairs


def _sampled(pairs: list[Pair], sample: int | None) -> list[Pair]:
    if sample is None or len(pairs) <= sample:
        return pairs
    return random.Random(1).sample(pairs, sample)


def _read_pairs(p: Path) -> list[Pair]:
    """The pairs of a JSONL file; a file that cannot be read, or a line that is not a
    pair, is a ValueError naming the file and the line."""
    pairs: list[Pair] = []
    try:
        with p.open(encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    label = _LABELS.get(str(row["label"]))
                    pair = Pair(row["lang"], label, row["a"], row["b"], row.get("source") or p.stem)
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    reason = f"no {exc} key" if isinstance(exc, KeyError) else exc
                    raise ValueError(f"{p}:{lineno}: not a pair ({reason})") from None
                if label is None:
                    raise ValueError(f"{p}:{lineno}: unknown label {row['label']!r}")
                pairs.append(pair)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {p}: {exc}") from None
    return pairs


def _load_table(conn: psycopg.Connection, table: str, embed: Embed, pairs: Sequence[Pair]) -> None:
    """A temp table of the pairs with their embeddings and cosine."""
    texts = sorted({t for p in pairs for t in (p.a, p.b)})
    index = {t: i for i, t in enumerate(texts)}
    vecs = np.asarray(embed(texts), dtype=np.float32)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs / np.where(norms == 0.0, 1.0, norms)
    conn.execute(
        f"CREATE TEMP TABLE {table} (i int, lang text, label text, source text, a text, b text,"
        " ea vector, eb vector, sim float8 GENERATED ALWAYS AS (1 - (ea <=> eb)) STORED)"
    )
    with conn.transaction(), conn.cursor() as cur:
        cur.executemany(
            f"INSERT INTO {table} (i, lang, label, source, a, b, ea, eb)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            [
                (i, p.lang, p.label, p.source, p.a, p.b, vecs[index[p.a]], vecs[index[p.b]])
                for i, p in enumerate(pairs)
            ],
        )


def _sweep(
    conn: psycopg.Connection,
    table: str,
    topic_supersede: float,
    trigram: float,
    trigram_min_similarity: float,
):
    """Per grid point and language: pairs of each label merged by the write path's rules:
    pymem._evidence of each pair once (all of it: supersede_threshold 0 lets nothing be
    skipped), then pymem._decision at each grid point of the store's settings (the point's
    thresholds for both scripts: a pair is decided by the ones of its own)."""
    conn.execute(
        f"CREATE TEMP TABLE {table}_evidence AS"
        " SELECT p.lang, p.source, p.label,"
        "  pymem._evidence(p.a, p.b, p.sim,"
        "   jsonb_populate_record(s, jsonb_build_object('supersede_threshold', 0,"
        "    'topic_supersede_threshold', 0, 'trigram_min_similarity', %s::float8))) AS e"
        f" FROM {table} AS p, pymem._settings() AS s",
        (trigram_min_similarity,),
    )
    rows = conn.execute(
        f"""
        SELECT t, r, p.lang, p.source, p.label, count(*),
            count(*) FILTER (WHERE j.action IN ('duplicate', 'superseded'))
        FROM {table}_evidence AS p,
            pymem._settings() AS s,
            unnest(%s::float8[]) AS t,
            unnest(%s::float8[]) AS r,
            LATERAL pymem._decision(
                p.e,
                jsonb_populate_record(s, jsonb_build_object(
                    'dedup_threshold', t, 'supersede_threshold', least(t, 0.7),
                    'cjk_dedup_threshold', t, 'cjk_dedup_term_change', r,
                    'topic_supersede_threshold', %s::float8, 'trigram_threshold', %s::float8,
                    'dedup_term_change', r, 'on_related', 'insert', 'review_floor', NULL,
                    'trigram_min_similarity', %s::float8
                ))
            ) AS j
        GROUP BY 1, 2, 3, 4, 5
        """,
        (
            list(DEDUP_GRID),
            list(TERM_CHANGE_GRID),
            topic_supersede,
            trigram,
            trigram_min_similarity,
        ),
    ).fetchall()
    out: dict[tuple[float, float], dict[tuple[str, str], dict[str, list[int]]]] = {}
    for t, r, lang, source, label, n, merged in rows:
        cell = out.setdefault((round(t, 2), round(r, 2)), {}).setdefault((lang, source), {})
        cell[label] = [n, merged]
    return out


def _rates(cell: dict[str, list[int]]) -> tuple[float, float]:
    n_d, m_d = cell.get(DISTINCT, [0, 0])
    n_s, m_s = cell.get(SAME, [0, 0])
    return (m_d / n_d if n_d else 0.0, m_s / n_s if n_s else float("nan"))


def choose(
    sweep: dict[tuple[float, float], dict[tuple[str, str], dict[str, list[int]]]],
    max_false_merge: float,
) -> tuple[float, float]:
    """The grid point with the best merge recall (mean over languages) whose false-merge
    rate is at most ``max_false_merge`` in every language *and every source*: a pooled
    rate would let an easy data set hide a hard one. Ties go to the stricter point."""
    best: tuple[float, float, float] | None = None
    for (t, r), by_source in sorted(sweep.items(), key=lambda kv: (-kv[0][0], kv[0][1])):
        if any(_rates(cell)[0] > max_false_merge for cell in by_source.values()):
            continue
        by_lang: dict[str, dict[str, list[int]]] = {}
        for (lang, _), cell in by_source.items():
            for label, (n, merged) in cell.items():
                total = by_lang.setdefault(lang, {}).setdefault(label, [0, 0])
                total[0] += n
                total[1] += merged
        rates = [_rates(cell) for cell in by_lang.values()]
        if any(fmr > max_false_merge for fmr, _ in rates):
            continue
        recall = float(np.nanmean([rec for _, rec in rates]))
        if best is None or recall > best[0] + 1e-12:
            best = (recall, t, r)
    if best is None:
        return 1.0, 0.0
    return best[1], best[2]


def choose_by_language(
    sweep: dict[tuple[float, float], dict[tuple[str, str], dict[str, list[int]]]],
    max_false_merge: float,
) -> dict[str, tuple[float, float]]:
    """:func:`choose` for each language on its own sources: a language's pairs are decided
    by thresholds of their own (English by dedup_*, Chinese by cjk_dedup_*)."""
    langs = sorted({lang for cells in sweep.values() for lang, _ in cells})
    return {
        lang: choose(
            {
                point: {k: v for k, v in cells.items() if k[0] == lang}
                for point, cells in sweep.items()
            },
            max_false_merge,
        )
        for lang in langs
    }


def _review_band(conn: psycopg.Connection, table: str, dedup: float, cjk_dedup: float) -> float:
    """Cosine above which REVIEW_RECALL of the same-fact pairs left apart still land."""
    (value,) = conn.execute(
        f"SELECT percentile_disc(%s) WITHIN GROUP (ORDER BY sim) FROM {table}"
        " WHERE label = %s AND sim < CASE WHEN lang = %s THEN %s ELSE %s END",
        (1 - REVIEW_RECALL, SAME, CJK_LANG, cjk_dedup, dedup),
    ).fetchone()
    lowest = min(dedup, cjk_dedup)
    return lowest if value is None else min(lowest, math.floor(value * 100) / 100)


CHUNK = 500


def upsert_report(
    conn: psycopg.Connection, table: str, cal: Calibration
) -> dict[str, dict[str, Any]]:
    """Store a, upsert b (one user per pair) through pymem.upsert_memory; rates per language."""
    (count,) = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
    user = f"'pymem-calibrate:{table}:' || p.i"
    totals: dict[tuple[str, str], list[int]] = {}
    for start in range(0, count, CHUNK):
        try:
            with conn.transaction():
                conn.execute(
                    "UPDATE pymem.settings SET dedup_threshold = %s, supersede_threshold = %s,"
                    " topic_supersede_threshold = %s, dedup_term_change = %s,"
                    " cjk_dedup_threshold = %s, cjk_dedup_term_change = %s,"
                    " on_related = 'review', review_floor = NULL",
                    (
                        cal.dedup_threshold,
                        cal.supersede_threshold,
                        cal.topic_supersede_threshold,
                        cal.dedup_term_change,
                        _or(cal.cjk_dedup_threshold, cal.dedup_threshold),
                        _or(cal.cjk_dedup_term_change, cal.dedup_term_change),
                    ),
                )
                chunk = f"p.i >= {start} AND p.i < {start + CHUNK}"
                conn.execute(
                    f"SELECT u.action FROM {table} AS p,"
                    f" LATERAL pymem.upsert_memory({user}, p.a, p.ea) AS u WHERE {chunk}"
                )
                for lang, label, n, merged, queued in conn.execute(
                    f"""
                    SELECT p.lang, p.label, count(*),
                        count(*) FILTER (WHERE u.action IN ('duplicate', 'superseded')),
                        count(*) FILTER (WHERE u.action = 'inserted' AND u.matched_id IS NOT NULL)
                    FROM {table} AS p, LATERAL pymem.upsert_memory({user}, p.b, p.eb) AS u
                    WHERE {chunk}
                    GROUP BY 1, 2
                    """
                ):
                    t = totals.setdefault((lang, label), [0, 0, 0])
                    t[0] += n
                    t[1] += merged
                    t[2] += queued
                raise _Rollback
        except _Rollback:
            pass
    report: dict[str, dict[str, Any]] = {}
    for (lang, label), (n, merged, queued) in totals.items():
        r = report.setdefault(lang, {})
        r[f"n_{label}"] = n
        r[f"merged_{label}"] = merged / n
        r[f"reviewed_{label}"] = queued / n
    for r in report.values():
        r["false_merge_rate"] = r.get(f"merged_{DISTINCT}", 0.0)
        r["merge_recall"] = r.get(f"merged_{SAME}", float("nan"))
    return report


def calibrate(
    dsn: str,
    embed: Embed,
    dev: Sequence[Pair],
    evaluation: dict[str, Sequence[Pair]],
    *,
    max_false_merge: float = 0.05,
    margin: float = 0.01,
) -> Calibration:
    """Fit on ``dev`` with at most ``max_false_merge - margin`` distinct pairs merged in every
    source of each language; report on ``dev`` and on each evaluation set. ``dsn``: a migrated
    store of the embedder's dimension; nothing is left in it."""
    from pgvector.psycopg import register_vector

    with psycopg.connect(dsn, autocommit=True) as conn:
        register_vector(conn)
        topic_supersede, trigram, trigram_min_similarity = conn.execute(
            "SELECT topic_supersede_threshold, trigram_threshold, trigram_min_similarity"
            " FROM pymem.settings"
        ).fetchone()
        _load_table(conn, "calibration_dev", embed, dev)
        fitted = choose_by_language(
            _sweep(conn, "calibration_dev", topic_supersede, trigram, trigram_min_similarity),
            max_false_merge - margin,
        )
        # a language without development pairs takes the other's point
        other = next(iter(fitted.values()), (1.0, 0.0))
        dedup, term_change = next(
            (point for lang, point in fitted.items() if lang != CJK_LANG), other
        )
        cjk_dedup, cjk_term_change = fitted.get(CJK_LANG, (dedup, term_change))
        cal = Calibration(
            dedup_threshold=dedup,
            dedup_term_change=term_change,
            supersede_threshold=_review_band(conn, "calibration_dev", dedup, cjk_dedup),
            topic_supersede_threshold=min(topic_supersede, dedup, cjk_dedup),
            cjk_dedup_threshold=cjk_dedup,
            cjk_dedup_term_change=cjk_term_change,
        )
        cal.report["dev"] = upsert_report(conn, "calibration_dev", cal)
        for n, (name, pairs) in enumerate(evaluation.items()):
            table = f"calibration_eval_{n}"
            _load_table(conn, table, embed, pairs)
            cal.report[name] = upsert_report(conn, table, cal)
    return cal


def evaluate(
    dsn: str, embed: Embed, cal: Calibration, sets: dict[str, Sequence[Pair]]
) -> dict[str, dict[str, dict[str, Any]]]:
    """How the thresholds of ``cal`` do on each set, through the real upsert path."""
    from pgvector.psycopg import register_vector

    report = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        register_vector(conn)
        for n, (name, pairs) in enumerate(sets.items()):
            table = f"calibration_check_{n}"
            _load_table(conn, table, embed, pairs)
            report[name] = upsert_report(conn, table, cal)
    return report


class _Rollback(Exception):
    pass


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def format_report(cal: Calibration) -> str:
    lines = [
        f"dedup_threshold            = {cal.dedup_threshold:.2f}",
        f"dedup_term_change          = {cal.dedup_term_change:.2f}",
        f"supersede_threshold        = {cal.supersede_threshold:.2f}  (start of the review band)",
        f"topic_supersede_threshold  = {cal.topic_supersede_threshold:.3f}",
        f"cjk_dedup_threshold        = {_or(cal.cjk_dedup_threshold, cal.dedup_threshold):.2f}"
        "  (Chinese text)",
        f"cjk_dedup_term_change      = {_or(cal.cjk_dedup_term_change, cal.dedup_term_change):.2f}",
        "",
        f"{'set':<22} {'lang':<4} {'distinct':>8} {'false merges':>12} {'same':>6}"
        f" {'merged':>7} {'queued':>7}",
    ]

    def pct(x: float) -> str:
        return "n/a" if x is None or math.isnan(x) else f"{100 * x:.1f}%"

    for name, by_lang in cal.report.items():
        for lang, r in sorted(by_lang.items()):
            lines.append(
                f"{name:<22} {lang:<4} {r.get(f'n_{DISTINCT}', 0):>8}"
                f" {pct(r['false_merge_rate']):>12} {r.get(f'n_{SAME}', 0):>6}"
                f" {pct(r['merge_recall']):>7} {pct(r.get(f'reviewed_{SAME}', float('nan'))):>7}"
            )
    lines += [f"note: {n}" for n in cal.notes]
    return "\n".join(lines)
