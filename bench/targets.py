"""The performance targets that README.md (and the docs it points to) states, each once.

``TARGETS`` is the only definition: every benchmark's "targets:" lines, the
run of all's table, its ``--json`` and the target marks of ``bench.png`` are
derived from it, and ``tests/test_bench_all.py`` checks every printed target
against it. A benchmark reports what it measured as ``Measured`` figures;
``judge`` pairs them with the targets stated for that figure (and size).

Where the README states a ratio, the figure is a ratio against the floor
measured side by side in the same run (bare SQL on the same rows, or plain
INSERTs of the same lines), never an absolute time from another machine.
A figure without a stated target (the write path against a plain INSERT, the
dedup lookup, ``run_decay``) is printed in the table without a verdict.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Target:
    figure: str  # the name benchmarks report the measured value under
    bench: str  # the group of rows it judges in ``pymem bench``'s table
    measure: str  # what is compared, as printed
    op: str  # "<=" or ">="
    limit: float
    # "ratio": pymem / base; "speedup": base / pymem; "over": pymem - base (ms);
    # "ms", "s": absolute; "share": a fraction
    kind: str
    at: int | None  # the memories per user it is stated for; None: every size measured
    # where the detail states it (README.md has the headline): "FILE, SECTION, ... (WORDS)",
    # several joined by "; "; WORDS stand in that section of FILE (tests/test_bench_all.py)
    source: str

    @property
    def text(self) -> str:
        at = f" at {self.at:,} memories" if self.at is not None else ""
        return f"{self.measure} {self.op} {format_value(self.kind, self.limit)}{at}"

    def met(self, value: float) -> bool:
        return value <= self.limit if self.op == "<=" else value >= self.limit

    def line(self, base: float | None) -> float | None:
        """Where the target lies in the row's own unit (the plot's mark), if it has one."""
        if self.kind in ("ms", "s"):
            return self.limit
        if base is None or self.kind == "share":
            return None
        if self.kind == "ratio":
            return base * self.limit
        if self.kind == "speedup":
            return base / self.limit
        return base + self.limit  # "over"


_READ_TARGETS = "docs/benchmarks.md, Targets"
TARGETS: tuple[Target, ...] = (
    Target(
        "batch_over_floor",
        "batch",
        "typed upsert_memories / its floor (as many bare nearest-8 scans + INSERTs, one call)",
        "<=",
        1.3,
        "ratio",
        None,
        "docs/benchmarks.md, Targets (target 1.3x); docs/sql-api.md,"
        " upsert_memory_arrays (within 1.3x of its floor)",
    ),
    Target(
        "new_fact_over_floor",
        "batch",
        "upsert_memory of a new fact - its floor (bare nearest-8 scan + plain INSERT, one call)",
        "<=",
        0.3,
        "over",
        1_000,
        "docs/benchmarks.md, Targets (target: its floor + 0.3 ms)",
    ),
    Target(
        "import_over_insert",
        "import",
        "pymem import / plain one-row INSERTs of the same lines",
        ">=",
        1.0,
        "ratio",
        None,
        "docs/benchmarks.md, Targets (target >= 1x)",
    ),
    Target(
        "recall_over_bare",
        "recall",
        "recall / bare exact top 10 of the same rows, interleaved",
        "<=",
        1.3,
        "ratio",
        None,
        _READ_TARGETS + " (recall within 1.3x of the bare top 10)",
    ),
    Target(
        "recall_over_narrow",
        "recall",
        "recall / bare exact top 10 of a narrow table of the same vectors, interleaved",
        "<=",
        1.3,
        "ratio",
        None,
        _READ_TARGETS + " (within 1.3x of the bare exact top 10 of a narrow table)",
    ),
    Target(
        "recall_p50_ms",
        "recall",
        "recall p50",
        "<=",
        1.0,
        "ms",
        1_000,
        _READ_TARGETS + " (recall <= 1 ms at 1,000)",
    ),
    Target(
        "recall_p50_ms",
        "recall",
        "recall p50",
        "<=",
        5.0,
        "ms",
        10_000,
        _READ_TARGETS + " (<= 5 ms at 10,000)",
    ),
    Target(
        "decay_per_million_s",
        "decay",
        "apply_decay per 1M rows",
        "<=",
        30.0,
        "s",
        None,
        _READ_TARGETS + " (apply_decay under 30 s)",
    ),
    Target(
        "consolidation_speedup",
        "consolidation",
        "consolidation_candidates speed-up on the all-pairs self-join",
        ">=",
        20.0,
        "speedup",
        10_000,
        "docs/benchmarks.md, Targets (Target >= 20x at 10k)",
    ),
    Target(
        "consolidation_pair_share",
        "consolidation",
        "share of the all-pairs pairs found",
        ">=",
        0.95,
        "share",
        10_000,
        "docs/benchmarks.md, Targets (with >= 95% of the pairs)",
    ),
    Target(
        "partitions_recall_over_floor",
        "partitions",
        "recall / its floor (bare exact top 10)",
        "<=",
        1.3,
        "ratio",
        None,
        "docs/scaling.md, Hash partitions on one server (missing the 1.3x target)",
    ),
    Target(
        "partitions_upsert_over_floor",
        "partitions",
        "upsert_memory of a new fact - its floor (bare nearest-8 scan + INSERT)",
        "<=",
        0.2,
        "over",
        None,
        "docs/scaling.md, Hash partitions on one server (against a target of + 0.2 ms)",
    ),
)
FIGURES = frozenset(t.figure for t in TARGETS)


def format_value(kind: str, value: float) -> str:
    if kind in ("ratio", "speedup"):
        return f"{value:.2f}x" if value != round(value, 1) else f"{value:g}x"
    if kind == "over":
        return f"{value:+.2f} ms" if value != round(value, 1) else f"{value:+g} ms"
    if kind == "ms":
        return f"{value:.2f} ms" if value != round(value) else f"{value:g} ms"
    if kind == "s":
        return f"{value:.1f} s" if value != round(value) else f"{value:g} s"
    return f"{value:.1%}" if value != round(value, 2) else f"{value:.0%}"  # share


@dataclass(frozen=True)
class Measured:
    """One figure as a benchmark measured it; ``base`` is its floor in the row's unit."""

    figure: str
    value: float
    size: int | None = None  # memories per user, where the figure depends on it
    case: str = ""  # which one, as printed: "1,000 memories", "plain store"
    base: float | None = None

    def __post_init__(self) -> None:
        if self.figure not in FIGURES:
            raise ValueError(f"no target is stated for figure {self.figure!r}")


def judge(measured: Iterable[Measured]) -> list[dict[str, Any]]:
    """A verdict for each target stated for a measured figure, in ``TARGETS`` order.

    A target stated at a size this run did not measure (the quick run's 5,000
    memories against a target at 10,000) gets ``ok`` None: named, not judged."""
    measured = list(measured)
    verdicts = []
    for index, target in enumerate(TARGETS):
        of_figure = [m for m in measured if m.figure == target.figure]
        if not of_figure:
            continue
        hits = [m for m in of_figure if target.at is None or m.size == target.at]
        common = {
            "index": index,
            "figure": target.figure,
            "bench": target.bench,
            "target": target.text,
            "kind": target.kind,
            "limit": f"{target.op} {format_value(target.kind, target.limit)}",
            "source": target.source,
        }
        for m in hits:
            verdicts.append(
                common
                | {
                    "case": "" if target.at is not None else m.case,
                    "size": m.size,
                    "value": m.value,
                    "measured": format_value(target.kind, m.value),
                    "ok": bool(target.met(m.value)),
                    "line": target.line(m.base),
                }
            )
        if not hits:
            sizes = ", ".join(f"{m.size:,}" for m in of_figure if m.size is not None)
            verdicts.append(
                common
                | {
                    "case": f"this run measured {sizes} memories",
                    "size": None,
                    "value": None,
                    "measured": "",
                    "ok": None,
                    "line": None,
                }
            )
    return verdicts


def verdict_word(ok: bool | None) -> str:
    return "n/a" if ok is None else ("MET" if ok else "MISSED")


def format_line(v: dict[str, Any]) -> str:
    """One printed target line; the test parses these back to ``TARGETS``."""
    case = f" [{v['case']}]" if v["case"] else ""
    return f"{verdict_word(v['ok']):<6} {v['measured']:>10}  {v['bench']}: {v['target']}{case}"


HEADER = "targets (as README.md states them; ratios against the floor measured in this run):"


def report(verdicts: list[dict[str, Any]], out) -> None:
    out(HEADER)
    for v in verdicts:
        out("  " + format_line(v))
