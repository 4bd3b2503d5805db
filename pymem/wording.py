"""How the CLI and the reports say a count: "1 line", "2 lines"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, singular for exactly one."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"
