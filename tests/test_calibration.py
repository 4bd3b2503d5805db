"""Calibration: fit on one set, report on another, through pymem's own SQL rules.

The public paraphrase sets used for the shipped thresholds live outside the repository
(docs/calibration.md says how to rebuild them); here the fitting logic runs on small
synthetic pairs, and the shipped thresholds are checked on the bundled hand-written pairs,
which they were not fitted on.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import psycopg
import pytest

from pymem.calibration import (
    DISTINCT,
    SAME,
    UPDATE,
    Calibration,
    Pair,
    calibrate,
    choose,
    choose_by_language,
    evaluate,
    format_report,
    load_pairs,
)

DIM = 512


def test_bundled_pairs_load_with_three_labels():
    pairs = load_pairs()
    assert len(pairs) == 577
    assert {p.label for p in pairs} == {SAME, UPDATE, DISTINCT}
    assert {p.lang for p in pairs} == {"en", "zh"}


def test_public_pair_files_load(tmp_path):
    path = tmp_path / "lcqmc-dev.jsonl"
    rows = [
        {"a": "花呗怎么还款", "b": "借呗怎么还款", "label": 0, "lang": "zh"},
        {"a": "How old are you?", "b": "What is your age?", "label": 1, "lang": "en"},
    ]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    pairs = load_pairs([path])
    assert [(p.label, p.source) for p in pairs] == [(DISTINCT, "lcqmc-dev"), (SAME, "lcqmc-dev")]
    path.write_text(json.dumps({"a": "x", "b": "y", "label": 7, "lang": "en"}) + "\n")
    with pytest.raises(ValueError, match="unknown label"):
        load_pairs([path])


def _cell(distinct: tuple[int, int], same: tuple[int, int]) -> dict[str, list[int]]:
    return {DISTINCT: list(distinct), SAME: list(same)}


def test_choose_takes_the_best_recall_within_the_false_merge_bound_of_every_source():
    sweep = {
        # the best recall, but one source merges 10% of its distinct pairs
        (0.80, 0.5): {
            ("en", "easy"): _cell((100, 0), (100, 80)),
            ("en", "hard"): _cell((100, 10), (100, 60)),
        },
        # pooled it would pass (2.5%); per source it does not
        (0.84, 0.5): {
            ("en", "easy"): _cell((300, 0), (100, 70)),
            ("en", "hard"): _cell((100, 10), (100, 50)),
        },
        (0.88, 0.4): {
            ("en", "easy"): _cell((100, 1), (100, 40)),
            ("en", "hard"): _cell((100, 2), (100, 30)),
        },
        (0.92, 0.4): {
            ("en", "easy"): _cell((100, 0), (100, 20)),
            ("en", "hard"): _cell((100, 0), (100, 10)),
        },
    }
    assert choose(sweep, 0.03) == (0.88, 0.4)
    assert choose(sweep, 0.0) == (0.92, 0.4)
    # nothing fits: merge nothing by embedding
    assert choose({(0.9, 0.1): {("zh", "x"): _cell((10, 5), (10, 9))}}, 0.01) == (1.0, 0.0)


def test_each_language_gets_its_own_point():
    """Chinese text is decided by the cjk_ thresholds: each language is fitted on its own
    sources, so a hard Chinese source does not hold the English point back."""
    sweep = {
        (0.86, 0.7): {
            ("en", "a"): _cell((100, 2), (100, 60)),
            ("zh", "b"): _cell((100, 9), (100, 70)),
        },
        (0.92, 0.2): {
            ("en", "a"): _cell((100, 0), (100, 20)),
            ("zh", "b"): _cell((100, 2), (100, 30)),
        },
    }
    assert choose(sweep, 0.03) == (0.92, 0.2)
    assert choose_by_language(sweep, 0.03) == {"en": (0.86, 0.7), "zh": (0.92, 0.2)}


def _hash_embed(texts: list[str]) -> np.ndarray:
    """Deterministic vectors: texts sharing their first word point the same way."""
    out = []
    for text in texts:
        head = text.split()[0]
        seed = int(hashlib.md5(head.encode()).hexdigest()[:8], 16)
        base = np.random.default_rng(seed).normal(size=DIM)
        noise = np.random.default_rng(len(text)).normal(size=DIM) * 0.15
        out.append(base + noise)
    return np.asarray(out, dtype=np.float32)


def test_calibrate_fits_reports_and_leaves_the_store_untouched(fresh_dsn):
    same = [
        Pair("en", SAME, f"topic{i} alpha beta", f"topic{i} alpha beta gamma delta", "syn")
        for i in range(20)
    ]
    distinct = [
        Pair("en", DISTINCT, f"topic{i} red blue", f"topic{i} green yellow", "syn")
        for i in range(20, 40)
    ]
    held_out = [
        Pair("en", DISTINCT, f"subject{i} one two", f"subject{i} three four", "held")
        for i in range(10)
    ]
    cal = calibrate(fresh_dsn, _hash_embed, same + distinct, {"held-out": held_out})
    assert cal.report["dev"]["en"]["false_merge_rate"] <= 0.03
    assert cal.report["dev"]["en"]["merge_recall"] == 1.0
    assert cal.report["held-out"]["en"]["false_merge_rate"] == 0.0
    # only the share of changed terms separates these pairs (2 of 5 vs 4 of 5)
    assert 0.4 <= cal.dedup_term_change < 0.8
    assert cal.supersede_threshold <= cal.dedup_threshold
    text = format_report(cal)
    assert "held-out" in text and "dedup_term_change" in text
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM pymem.memories").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM pymem.reviews").fetchone()[0] == 0
        assert conn.execute("SELECT dedup_threshold FROM pymem.settings").fetchone()[0] == 0.92


class _Remembered:
    """The bundled embedder, whose answer to a call is kept: the same texts again, in the
    same order, get the same vectors without the model (it gives the very same array for
    the same batch). The two tests below embed the bundled pairs, ~1,100 texts (3 s);
    tests/conftest.py keeps this module on one worker, so that happens once."""

    def __init__(self, model):
        self.model = model
        self.answers: dict[tuple[str, ...], np.ndarray] = {}

    def __getattr__(self, name: str):
        return getattr(self.model, name)

    def __call__(self, texts: list[str]) -> np.ndarray:
        key = tuple(texts)
        if key not in self.answers:
            self.answers[key] = self.model(texts)
        return self.answers[key]


@pytest.fixture(scope="module")
def remembered(embedder) -> _Remembered:
    return _Remembered(embedder)


@pytest.mark.embed
def test_shipped_thresholds_hold_on_the_bundled_hand_written_pairs(fresh_dsn, remembered):
    """The bundled pairs were written for this project and never used for fitting."""
    from pymem.embedder import USE_THRESHOLDS as t

    cal = Calibration(
        t.dedup, t.term_change, t.supersede, t.topic_supersede, t.cjk_dedup, t.cjk_term_change
    )
    report = evaluate(fresh_dsn, remembered, cal, {"hand-written": load_pairs()})["hand-written"]
    for lang in ("en", "zh"):
        assert report[lang]["false_merge_rate"] <= 0.05, (lang, report[lang])
        # every duplicate the rules leave apart and most updates reach the review queue
        assert report[lang]["merged_same"] + report[lang]["reviewed_same"] >= 0.6


@pytest.mark.embed
def test_apply_without_dev_records_the_shipped_thresholds(
    fresh_dsn, remembered, capsys, monkeypatch
):
    """docs/calibration.md: an older store keeps its thresholds until `pymem calibrate
    --apply` records the new ones; without --dev that printed the report and recorded
    nothing."""
    from pymem.cli import main
    from pymem.embedder import USE_THRESHOLDS as t

    # the command's embedder is the bundled one, its vectors of the pairs kept from the test
    # above when that ran first
    monkeypatch.setattr("pymem.embedder.default_embedder", lambda: remembered)

    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("UPDATE pymem.settings SET dedup_threshold = 0.99")
    assert main(["--dsn", fresh_dsn, "calibrate", "--apply"]) == 0
    assert "recorded for" in capsys.readouterr().out
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT dedup_threshold FROM pymem.settings").fetchone()[0] == t.dedup


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (None, "cannot read"),
        (['{"a": 1}'], ":1: not a pair (no 'label' key)"),
        (['{"a": "x", "b": "y", "lang": "en", "label": "duplicate"}', "[1, 2]"], ":2: not a pair"),
        (['{"a": "x", "b": "y", "lang": "en", "label": "maybe"}'], "unknown label"),
    ],
)
def test_a_pairs_file_it_cannot_read_is_one_line_and_exit_2(fresh_dsn, tmp_path, capsys,
                                                           lines, message):  # fmt: skip
    from pymem.cli import main

    path = tmp_path / "pairs.jsonl"
    if lines is not None:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for option in ("--dev", "--eval"):
        assert main(["--dsn", fresh_dsn, "calibrate", option, str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("pymem calibrate: ") and message in err, err
        assert len(err.strip().splitlines()) == 1
