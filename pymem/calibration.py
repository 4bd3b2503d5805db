"""Calibrate the dedup / supersede similarity thresholds for an embedder.

Pure measurement: no database. A hand-labelled set of fact pairs is embedded, and thresholds
are chosen so that merging two facts that are actually distinct (which destroys a true fact)
stays rare in every language.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

LABELS = ("duplicate", "update", "related", "unrelated")
DISTINCT = ("related", "unrelated")
NON_DUPLICATE = ("update", "related", "unrelated")
MIN_TOPIC_SUPERSEDE = 0.3
DEFAULT_PAIRS_PATH = Path(__file__).resolve().parent / "data" / "calibration_pairs.jsonl"

# Slack for float noise when comparing counts and grid points: a cosine of 0.7 may come back
# as 0.69999999 from float32 maths and must not push a threshold one step too far.
_EPS = 1e-9
_STEP = 1000  # thresholds live on a 0.001 grid

Embed = Callable[[list[str]], Any]


@dataclass(frozen=True)
class Pair:
    lang: str
    label: str
    a: str
    b: str


@dataclass
class Calibration:
    dedup_threshold: float
    supersede_threshold: float
    topic_supersede_threshold: float
    report: dict[str, dict[str, Any]]
    notes: list[str] = field(default_factory=list)


def load_pairs(path: str | Path | None = None) -> list[Pair]:
    p = Path(path) if path is not None else DEFAULT_PAIRS_PATH
    pairs: list[Pair] = []
    with p.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if row["label"] not in LABELS:
                raise ValueError(f"{p}:{lineno}: unknown label {row['label']!r}")
            pairs.append(Pair(row["lang"], row["label"], row["a"], row["b"]))
    return pairs


def pair_similarities(embed: Embed, pairs: Sequence[Pair]) -> np.ndarray:
    texts = sorted({t for p in pairs for t in (p.a, p.b)})
    index = {t: i for i, t in enumerate(texts)}
    vecs = np.asarray(embed(texts), dtype=np.float64)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs / np.where(norms == 0.0, 1.0, norms)
    a = vecs[[index[p.a] for p in pairs]]
    b = vecs[[index[p.b] for p in pairs]]
    return np.einsum("ij,ij->i", a, b)


def _ceil3(x: float) -> float:
    return min(1.0, math.ceil(x * _STEP - _EPS) / _STEP)


def _floor3(x: float) -> float:
    return math.floor(x * _STEP + _EPS) / _STEP


def _false_merge_threshold(neg: np.ndarray, max_rate: float) -> float:
    """Smallest 0.001-grid value t with mean(neg >= t) <= max_rate (capped at 1.0)."""
    if neg.size == 0:
        return 0.0
    allowed = math.floor(max_rate * neg.size + _EPS)
    if allowed >= neg.size:
        return 0.0
    # t must sit strictly above the (allowed+1)-th highest score, so that one stays out.
    kth = float(np.sort(neg)[::-1][allowed])
    t = _ceil3(kth)
    while t < 1.0 and np.count_nonzero(neg >= t) > allowed:
        t = min(1.0, round(t + 1 / _STEP, 3))
    return t


def _recall_threshold(pos: np.ndarray, recall: float) -> float:
    """Largest 0.001-grid value t with mean(pos >= t) >= recall."""
    if pos.size == 0:
        return 1.0
    needed = max(1, math.ceil(recall * pos.size - _EPS))
    t = _floor3(float(np.sort(pos)[::-1][needed - 1]))
    while t > 0.0 and np.count_nonzero(pos >= t) < needed:
        t = round(t - 1 / _STEP, 3)
    return t


def _auc(pos: np.ndarray, neg: np.ndarray) -> float:
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    diff = pos[:, None] - neg[None, :]
    return float(((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size)


def _rate(mask: np.ndarray) -> float:
    return float(mask.mean()) if mask.size else float("nan")


def fit_thresholds(
    pairs: Sequence[Pair],
    sims: Sequence[float] | np.ndarray,
    max_false_merge: float = 0.05,
    topic_recall: float = 0.90,
) -> Calibration:
    sims = np.asarray(sims, dtype=np.float64)
    if sims.shape != (len(pairs),):
        raise ValueError(f"expected {len(pairs)} similarities, got shape {sims.shape}")
    labels = np.array([p.label for p in pairs])
    langs_arr = np.array([p.lang for p in pairs])
    langs = sorted(set(langs_arr.tolist()))

    def sel(lang: str, wanted: Sequence[str]) -> np.ndarray:
        return sims[(langs_arr == lang) & np.isin(labels, list(wanted))]

    # Each language gets its own bound; the shared threshold is the strictest of them, since
    # a merge that is safe in English can still destroy facts in Chinese.
    own: dict[str, dict[str, float]] = {}
    for lang in langs:
        topic = min(
            _recall_threshold(sel(lang, ["update"]), topic_recall),
            _recall_threshold(sel(lang, ["duplicate"]), topic_recall),
        )
        own[lang] = {
            "dedup": _false_merge_threshold(sel(lang, NON_DUPLICATE), max_false_merge),
            "supersede": _false_merge_threshold(sel(lang, DISTINCT), max_false_merge),
            "topic": topic,
        }

    notes: list[str] = []
    dedup = max((o["dedup"] for o in own.values()), default=1.0)
    supersede = max((o["supersede"] for o in own.values()), default=1.0)
    if supersede > dedup:
        notes.append(
            f"supersede bound {supersede:.3f} exceeds dedup {dedup:.3f}: supersede set to dedup,"
            " so no pair is ever treated as an update without a topic match"
        )
        supersede = dedup
    topic = min((o["topic"] for o in own.values()), default=supersede)
    if topic < MIN_TOPIC_SUPERSEDE:
        notes.append(
            f"topic recall bound {topic:.3f} is below the floor; using {MIN_TOPIC_SUPERSEDE}"
        )
        topic = MIN_TOPIC_SUPERSEDE
    if topic > supersede:
        # A shared topic key is extra evidence, so it must never make superseding harder.
        notes.append(f"topic bound {topic:.3f} exceeds supersede; clamped to {supersede:.3f}")
        topic = supersede

    report: dict[str, dict[str, Any]] = {}
    for lang in langs:
        dup = sel(lang, ["duplicate"])
        upd = sel(lang, ["update"])
        dist = sel(lang, DISTINCT)
        nondup = sel(lang, NON_DUPLICATE)
        report[lang] = {
            "n": {
                lab: int(np.count_nonzero((langs_arr == lang) & (labels == lab))) for lab in LABELS
            },
            "own_dedup_threshold": own[lang]["dedup"],
            "own_supersede_threshold": own[lang]["supersede"],
            "own_topic_supersede_threshold": own[lang]["topic"],
            "false_merge_distinct": _rate(dist >= supersede),
            "false_merge_nonduplicate": _rate(nondup >= dedup),
            "duplicate_recall": _rate(dup >= dedup),
            "update_recall": _rate((upd >= supersede) & (upd < dedup)),
            "topic_recall_update": _rate(upd >= topic),
            "topic_recall_duplicate": _rate(dup >= topic),
            "auc_duplicate_vs_distinct": _auc(dup, dist),
        }
    return Calibration(dedup, supersede, topic, report, notes)


def format_report(cal: Calibration) -> str:
    langs = list(cal.report)
    rows: list[tuple[str, list[str]]] = []

    def add(name: str, key: str, fmt: Callable[[Any], str]) -> None:
        rows.append((name, [fmt(cal.report[lang][key]) for lang in langs]))

    def pct(x: float) -> str:
        return "n/a" if math.isnan(x) else f"{100 * x:.1f}%"

    for lab in LABELS:
        rows.append((f"pairs: {lab}", [str(cal.report[lang]["n"][lab]) for lang in langs]))
    add("false merge, distinct >= supersede", "false_merge_distinct", pct)
    add("false merge, non-dup >= dedup", "false_merge_nonduplicate", pct)
    add("duplicate recall (>= dedup)", "duplicate_recall", pct)
    add("update recall [supersede, dedup)", "update_recall", pct)
    add("same-topic recall, update", "topic_recall_update", pct)
    add("same-topic recall, duplicate", "topic_recall_duplicate", pct)
    add("ROC AUC duplicate vs distinct", "auc_duplicate_vs_distinct", lambda x: f"{x:.3f}")
    add("this language alone: dedup", "own_dedup_threshold", lambda x: f"{x:.3f}")
    add("this language alone: supersede", "own_supersede_threshold", lambda x: f"{x:.3f}")
    add("this language alone: topic", "own_topic_supersede_threshold", lambda x: f"{x:.3f}")

    width = max(len(name) for name, _ in rows)
    lines = [
        f"dedup_threshold            = {cal.dedup_threshold:.3f}",
        f"supersede_threshold        = {cal.supersede_threshold:.3f}",
        f"topic_supersede_threshold  = {cal.topic_supersede_threshold:.3f}",
        "",
        f"{'':<{width}}  " + "  ".join(f"{lang:>8}" for lang in langs),
    ]
    lines += [f"{name:<{width}}  " + "  ".join(f"{v:>8}" for v in vals) for name, vals in rows]
    lines += [f"note: {n}" for n in cal.notes]
    return "\n".join(lines)


def calibrate(embed: Embed | None = None) -> Calibration:
    """Fit thresholds on the packaged pairs; the bundled embedder by default."""
    if embed is None:
        from pymem.embedder import default_embedder

        embed = default_embedder()
    pairs = load_pairs()
    return fit_thresholds(pairs, pair_similarities(embed, pairs))
