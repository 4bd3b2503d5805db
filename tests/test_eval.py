"""`pymem eval`: the bundled stream, its loader, and a run on a slice of it."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import psycopg
import pytest

from pymem.cli import main
from pymem.eval import (
    DEFAULT_DATASET,
    METRICS,
    InvalidDataset,
    evaluate,
    figures_only,
    format_report,
    load_dataset,
)
from tests.conftest import unit

ROOT = Path(__file__).resolve().parent.parent


class _ToyEmbedder:
    """One axis a distinct text; the store's settings stay the defaults."""

    def __init__(self) -> None:
        self.axes: dict[str, int] = {}

    def __call__(self, texts):
        return [unit(self.axes.setdefault(t, len(self.axes))) for t in texts]

    def configure(self, store) -> None:
        return None


def test_the_bundled_stream_has_what_the_issue_asks_for():
    data = load_dataset()
    users = {m.user for m in data.memories}
    assert len(users) >= 5
    labels = {m.label for m in data.memories}
    assert {"new", "paraphrase", "update", "contradiction", "state"} <= labels
    assert len(data.questions) >= 50
    chinese = [m for m in data.memories if re.search(r"[\u4e00-\u9fff]", m.content)]
    assert 0.2 < len(chinese) / len(data.memories) < 0.8
    assert any(m.contacts for m in data.memories)
    assert {m.kind for m in data.memories} >= {"state", "habit", "profile", "goal", "event"}
    # people mentioned in more than one session
    sessions: dict[tuple[str, str], set[int]] = {}
    for line in DEFAULT_DATASET.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        for person in r.get("contacts", []):
            sessions.setdefault((r["user"], person), set()).add(r["session"])
    assert sum(len(s) > 1 for s in sessions.values()) >= 5


def test_the_bundled_stream_is_rebuilt_byte_for_byte():
    # --check compares without writing: other workers read the file meanwhile
    builder = ROOT / "scripts" / "build_eval_stream.py"
    subprocess.run([sys.executable, str(builder), "--check"], check=True, capture_output=True)


@pytest.mark.parametrize(
    "stream",
    [
        "",
        "_b",
        "_c",
        "_d",
        "_e",
        "_f",
        "_g",
        "_h",
        "_i",
        "_j",
        "_k",
        "_l",
        "_m",
        "_n",
        "_o",
        "_p",
        "_q",
    ],
)
def test_the_development_streams_load_and_are_rebuilt_byte_for_byte(stream):
    """bench/data/memory_dev_stream*.jsonl (docs/eval.md: the streams the rules were
    developed on, and the measures never read) are valid streams apart from the bundled
    one: other people, contradictions, both languages; each is what its builder writes."""
    path = ROOT / "bench" / "data" / f"memory_dev_stream{stream}.jsonl"
    dev = load_dataset(path)
    assert {m.label for m in dev.memories} >= {"paraphrase", "update", "contradiction"}
    bundled = {m.content for m in load_dataset().memories}
    assert not bundled & {m.content for m in dev.memories}
    assert any(re.search(r"[\u4e00-\u9fff]", m.content) for m in dev.memories)
    builder = ROOT / "scripts" / f"build_memory_dev_stream{stream}.py"
    subprocess.run([sys.executable, str(builder), "--check"], check=True, capture_output=True)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not JSON"),
        ("[1]", "not a JSON object"),
        ('{"type": "memory", "user": "u", "content": "x"}', "'id' must be"),
        ('{"type": "memory", "id": "a", "user": "u", "content": " "}', "'content' must be"),
        ('{"type": "question", "id": "q", "user": "u", "text": "?", "answers": []}', "answers"),
        ('{"type": "question", "id": "q", "user": "u", "text": "?", "answers": ["z"]}', "unknown"),
        ('{"type": "other"}', "type must be"),
        # these went through, to a traceback or to wrong data (contacts "Tom": T, o, m)
        ('{"id": "b", "user": "u", "content": "y", "day": "tomorrow"}', "'day' must be"),
        ('{"id": "b", "user": "u", "content": "y", "day": NaN}', "'day' must be"),
        ('{"id": "b", "user": "u", "content": "y", "day": -1}', "'day' must be"),
        ('{"id": "b", "user": "u", "content": "y", "fact": 5}', "'fact' must be a string"),
        ('{"id": "b", "user": "u", "content": "y", "contacts": "Tom"}', "'contacts' must be"),
        ('{"type": "question", "id": "q", "user": "u", "text": "?", "answers": [[1]]}', "answers"),
        (
            '{"type": "question", "id": "q", "user": "u", "text": "?", "answers": ["a"]}\n'
            '{"type": "question", "id": "q", "user": "v", "text": "?", "answers": ["a"]}',
            "question ids are not unique",
        ),
    ],
)
def test_a_malformed_dataset_line_is_named(tmp_path, line, message):
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "a", "user": "u", "content": "x"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(InvalidDataset, match=message):
        load_dataset(path)


def test_a_dataset_with_a_bom_crlf_and_u2028_loads(tmp_path):
    lines = [
        {"id": "a", "user": "u", "content": "Ann wrote\u2028a poem"},
        {"type": "question", "id": "q", "user": "u", "text": "What?", "answers": ["a"]},
    ]
    text = "\r\n".join(json.dumps(r, ensure_ascii=False) for r in lines) + "\r\n"
    path = tmp_path / "d.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    data = load_dataset(path)
    assert [m.content for m in data.memories] == ["Ann wrote\u2028a poem"]
    assert [q.answers for q in data.questions] == [["a"]]


def test_a_dataset_line_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"id": "a", "user": "u", "content": "x"}\n{"id": "b", "user": "u", '
                     b'"content": "K\xe4se"}\n')  # fmt: skip
    with pytest.raises(InvalidDataset, match="line 2: not UTF-8"):
        load_dataset(path)


def test_eval_cli_refuses_a_bad_dataset_in_one_line(tmp_path, capsys):
    path = tmp_path / "d.jsonl"
    path.write_text("nope\n", encoding="utf-8")
    assert main(["eval", "--dataset", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pymem: d.jsonl line 1: not JSON") and err.count("\n") == 1


@pytest.mark.embed
def test_eval_json_on_a_slice(admin_dsn, tmp_path, capsys, embedder):
    lines = DEFAULT_DATASET.read_text(encoding="utf-8").splitlines()
    part = [line for line in lines if json.loads(line)["user"] == "sam"]
    path = tmp_path / "slice.jsonl"
    path.write_text("\n".join(part) + "\n", encoding="utf-8")
    memories = sum(json.loads(line)["type"] == "memory" for line in part)
    database = f"pymem_eval_{uuid.uuid4().hex[:8]}"
    try:
        code = main(
            ["--dsn", admin_dsn, "eval", "--json", "--dataset", str(path), "--database", database]
        )
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
    assert code == 0
    captured = capsys.readouterr()
    assert "] " in captured.err and f"/{4 * memories + 4 * (len(part) - memories)}" in captured.err
    result = json.loads(captured.out)
    naive, ours = result["naive"], result["pymem"]
    below = result["pymem_reviewed_below_band"]
    for side in (naive, ours, result["pymem_reviewed"], below):
        assert set(METRICS) <= set(side)
        for name in METRICS:
            if name == "state_recall_at_5" and side[name] is None:
                continue  # the slice asks about no state
            if name.endswith(("_rate", "_at_5")):
                assert 0.0 <= side[name] <= 1.0, name
        assert side["write_latency_ms"] > 0
    # the naive store keeps every write: its duplicates are the paraphrases, every
    # updated slot and contradicting pair stays live and unflagged
    assert naive["store_size"] == memories
    assert naive["duplicate_rate"] > 0.1 and naive["contradiction_rate"] == 1.0
    assert naive["false_merge_rate"] == 0.0
    assert ours["store_size"] <= naive["store_size"]
    assert ours["unreviewed_duplicate_rate"] < naive["duplicate_rate"]
    assert ours["contradiction_rate"] < 1.0
    assert ours["recall_at_5"] >= 0.8
    # the reviewed pass ran pymem's review worker: its judge was called, pymem alone asked none
    assert naive["judge_calls_per_100_writes"] is None is ours["judge_calls_per_100_writes"]
    assert result["pymem_reviewed"]["judge_calls_per_100_writes"] > 0
    assert sum(result["review_decisions"].values()) > 0
    # the below-band queue shows the reviewer more pairs, never fewer
    calls = result["pymem_reviewed"]["judge_calls_per_100_writes"]
    assert below["judge_calls_per_100_writes"] >= calls


def test_a_stream_without_questions_or_conflicts_reports_na(admin_dsn, tmp_path, capsys):
    """Nothing to measure recall or contradictions on: n/a (JSON null), not 0%."""
    path = tmp_path / "tiny.jsonl"
    path.write_text(
        '{"type": "memory", "id": "m1", "user": "u", "fact": "tea", "content": "likes tea"}\n'
        '{"type": "memory", "id": "m2", "user": "u", "fact": "tea", "content": "likes tea",'
        ' "label": "paraphrase", "day": 1}\n',
        encoding="utf-8",
    )
    database = f"pymem_eval_{uuid.uuid4().hex[:8]}"
    embed = _ToyEmbedder()
    try:
        result = evaluate(
            admin_dsn, path, database=database, embed=embed, progress_stream=io.StringIO()
        )
        lines: list[str] = []
        format_report(result, lines.append)
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
    for side in ("naive", "pymem", "pymem_reviewed"):
        assert result[side]["recall_at_5"] is None
        assert result[side]["contradiction_rate"] is None
    assert result["naive"]["duplicate_rate"] == 0.5
    # the same text is the same fact: stored once
    assert result["pymem"]["store_size"] == 1 and result["pymem"]["duplicate_rate"] == 0.0
    table = "\n".join(lines)
    assert "recall_at_5" in table and "n/a" in table


class _FixedEmbedder(_ToyEmbedder):
    """Each text at the vector given for it."""

    def __init__(self, vectors) -> None:
        super().__init__()
        self.vectors = vectors

    def __call__(self, texts):
        return [self.vectors[t] for t in texts]


def _evaluate(admin_dsn, tmp_path, records, embed):
    path = tmp_path / "stream.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    database = f"pymem_eval_{uuid.uuid4().hex[:8]}"
    try:
        return evaluate(admin_dsn, path, database=database, embed=embed,
                        progress_stream=io.StringIO())  # fmt: skip
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


def test_a_write_merging_into_what_the_reviewer_superseded_is_no_false_merge(admin_dsn, tmp_path):
    """The reviewer supersedes tea by oolong (the older row survives with oolong's text);
    oolong said again the next day is a duplicate of that row: right, not a false merge."""
    from tests.conftest import at_cosine

    tea, oolong = "likes green tea", "enjoys oolong"  # no shared term: a review, not a merge
    records = [
        {"id": "m1", "user": "u", "fact": "drink/tea", "content": tea},
        {"id": "m2", "user": "u", "fact": "drink/oolong", "content": oolong, "label": "update"},
        {"id": "m3", "user": "u", "fact": "drink/oolong", "content": oolong, "day": 1,
         "label": "paraphrase"},
    ]  # fmt: skip
    result = _evaluate(
        admin_dsn, tmp_path, records, _FixedEmbedder({tea: unit(0), oolong: at_cosine(0.8)})
    )
    assert result["pymem_decisions_by_label"]["update"] == {"inserted + review": 1}
    assert result["review_decisions"] == {"supersede": 1}
    assert result["pymem_reviewed"]["store_size"] == 1
    assert result["pymem_reviewed"]["false_merge_rate"] == 0.0


def test_a_dataset_user_named_like_a_reviewed_user_stays_apart(admin_dsn, tmp_path):
    """A user named like the reviewed pass's users ("reviewed:0") must not meet them, and a
    user id at pymem's 256-character limit still fits the reviewed pass."""
    long_user = "u" * 256
    records = [
        {"id": "m1", "user": "ann", "fact": "tea", "content": "likes tea"},
        {"id": "m2", "user": "reviewed:0", "fact": "coffee", "content": "likes coffee"},
        {"id": "m3", "user": "reviewed:1", "fact": "cocoa", "content": "likes cocoa"},
        {"id": "m5", "user": "below:0", "fact": "juice", "content": "likes juice"},
        {"id": "m4", "user": long_user, "fact": "milk", "content": "likes milk"},
        {"type": "question", "id": "q1", "user": "ann", "text": "drinks?", "answers": ["m1"]},
        {"type": "question", "id": "q2", "user": long_user, "text": "milk?", "answers": ["m4"]},
    ]
    result = _evaluate(admin_dsn, tmp_path, records, _ToyEmbedder())
    for side in ("naive", "pymem", "pymem_reviewed", "pymem_reviewed_below_band"):
        assert result[side]["store_size"] == 5, side
        assert result[side]["recall_at_5"] == 1.0, side


def test_an_oversized_memory_is_refused_before_it_is_embedded(admin_dsn, tmp_path):
    from pymem.errors import ContentTooLong

    records = [{"type": "memory", "id": "m1", "user": "u", "fact": "f", "content": "x" * 5000}]

    def embed(texts):
        raise AssertionError(f"embedded {len(texts)} texts")

    with pytest.raises(ContentTooLong, match="memory m1: content is 5000 characters long"):
        _evaluate(admin_dsn, tmp_path, records, embed)


def test_the_label_judge_never_lets_an_earlier_value_replace_the_current_one():
    """A careful reader models time: a later value of a slot supersedes; a write that
    restates an earlier value beside the current one never does: labelled a paraphrase it
    speaks of the past (retired into the history), labelled otherwise (an update back to
    the old value, the labels cannot tell) it is put to the user, both kept."""
    from types import SimpleNamespace

    from pymem.eval import Dataset, Memory, _label_judge

    data = Dataset(
        memories=[
            Memory("n1", "nadia", "car/fiesta", "car", "fact", "Nadia drives a Fiesta"),
            Memory("n2", "nadia", "car/yaris", "car", "fact", "Nadia now drives a Yaris"),
            Memory(
                "n3",
                "nadia",
                "car/fiesta",
                "car",
                "fact",
                "The Fiesta she used to drive",
                label="paraphrase",
            ),
            Memory(
                "n4",
                "nadia",
                "car/fiesta",
                "car",
                "fact",
                "Nadia is back in the Fiesta",
                label="update",
            ),
        ]
    )
    judge = _label_judge(data, "nadia")

    def decide(newer: str, older: str) -> str:
        return judge(SimpleNamespace(content=newer, matched_content=older))["decision"]

    assert decide("Nadia now drives a Yaris", "Nadia drives a Fiesta") == "supersede"
    assert decide("The Fiesta she used to drive", "Nadia now drives a Yaris") == "past"
    assert decide("Nadia is back in the Fiesta", "Nadia now drives a Yaris") == "conflict"
    assert decide("The Fiesta she used to drive", "Nadia drives a Fiesta") == "duplicate"


def test_state_recall_counts_the_questions_a_state_answers(admin_dsn, tmp_path):
    """state_recall_at_5: recall@5 over the questions whose answers are memories labelled
    `state`; the other questions do not count in it, and a stream without one has none."""
    facts = [f"Ivo collects stamp set {n}" for n in range(5)]
    sick, rome = "Ivo is off sick this week", "Ivo is in Rome until Friday"
    vectors = {sick: unit(0), rome: unit(1)} | {t: unit(2 + n) for n, t in enumerate(facts)}
    spread = np.zeros_like(unit(0))
    spread[2:7] = 1 / np.sqrt(5)  # closer to each of the five facts than to either state
    vectors |= {"is Ivo at work?": unit(0), "where is Ivo?": spread, "stamps?": unit(2)}
    records = [
        {"id": "m1", "user": "u", "fact": "sick", "content": sick, "kind": "state",
         "label": "state"},
        {"id": "m2", "user": "u", "fact": "rome", "content": rome, "kind": "state",
         "label": "state"},
        *({"id": f"f{n}", "user": "u", "fact": f"stamps/{n}", "content": t}
          for n, t in enumerate(facts)),
        {"type": "question", "id": "q1", "user": "u", "text": "is Ivo at work?",
         "answers": ["m1"]},
        {"type": "question", "id": "q2", "user": "u", "text": "where is Ivo?", "answers": ["m2"]},
        {"type": "question", "id": "q3", "user": "u", "text": "stamps?", "answers": ["f0"]},
    ]  # fmt: skip
    result = _evaluate(admin_dsn, tmp_path, records, _FixedEmbedder(vectors))
    assert result["naive"]["recall_at_5"] == pytest.approx(2 / 3)
    assert result["naive"]["state_recall_at_5"] == 0.5
    assert result["pymem"]["state_recall_at_5"] == 0.5
    # --figures-only: the measures without the questions missed (a stream kept unread)
    full, figures = [], []
    format_report(result, full.append)
    format_report(figures_only(result), figures.append)
    assert any(line.startswith("missed: where is Ivo?") for line in full)
    assert not any("where is Ivo" in line for line in figures)
    assert "where is Ivo" not in json.dumps(figures_only(result))
    assert figures_only(result)["pymem"] == result["pymem"]
    without = [r for r in records if r["id"] not in ("q1", "q2")]
    assert (
        _evaluate(admin_dsn, tmp_path, without, _FixedEmbedder(vectors))["pymem"][
            "state_recall_at_5"
        ]
        is None
    )


def test_a_users_questions_come_a_day_after_that_users_last_session(admin_dsn, tmp_path):
    """Each user's days count from that user's first session: a state said in Ivo's last
    session (day 2, the kind's default lifetime of three days) still holds when Ivo is
    asked, a day later, though another user's last session is day 40."""
    away = "Ivo's cat is staying with his sister while he is away"
    vectors = {
        away: unit(0), "Ada likes tea": unit(1), "who has Ivo's cat?": unit(0),
    }  # fmt: skip
    records = [
        {"id": "m1", "user": "ivo", "day": 2, "fact": "cat", "content": away, "kind": "state",
         "label": "state"},
        {"id": "m2", "user": "ada", "day": 40, "fact": "tea", "content": "Ada likes tea"},
        {"type": "question", "id": "q1", "user": "ivo", "text": "who has Ivo's cat?",
         "answers": ["m1"]},
    ]  # fmt: skip
    result = _evaluate(admin_dsn, tmp_path, records, _FixedEmbedder(vectors))
    assert result["pymem"]["state_recall_at_5"] == 1.0
