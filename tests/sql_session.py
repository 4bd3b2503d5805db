"""Reading the SQL sessions that the docs show: fenced blocks, statements and psql's output.

Shared by tests/test_readme_walkthrough.py (README.md) and tests/test_sql_api_docs.py
(docs/sql-api.md). A session is written as a psql user types it, each statement followed by
the ``--`` comment lines that hold what psql printed:

    SELECT action FROM pymem.upsert_memory('ann', 'Ann drinks tea', '[1, 0, 0]');
    --   action
    -- ----------
    --  inserted

A blank line ends a statement's output: comment lines after it are prose. A statement ends
with ``;`` at the end of a line (a ``-- comment`` may follow it), or with a psql
meta-command (``\\gset``) there; a line that starts with a backslash (``\\pset null
'(null)'``) is a statement of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator


def blocks(text: str) -> Iterator[tuple[str, int, str, str]]:
    """(section heading, line number, language, body) of each fenced block, in order."""
    heading = ""
    pattern = re.compile(r"^(#+ [^\n]*)$|^```(\w*)\n(.*?)^```$", re.M | re.S)
    for match in pattern.finditer(text):
        if match.group(1):
            heading = match.group(1)
        else:
            line = text.count("\n", 0, match.start()) + 2  # the body's first line
            yield heading, line, match.group(2), match.group(3)


def _ends(line: str) -> bool:
    """Whether ``line`` ends a statement: ``;``, or a meta-command such as ``\\gset``."""
    line = re.sub(r"\s+--\s.*$", "", line.rstrip())  # a comment after the statement
    return line.endswith(";") or re.search(r"\\g\w*$", line) is not None


def statements(block: str) -> list[tuple[str, list[str]]]:
    """(statement, expected output) pairs. The expected output is the run of comment lines
    right after a statement; a blank line ends it, so comments after a blank line are prose."""
    pairs: list[tuple[str, list[str]]] = []
    statement: list[str] = []
    collecting = False
    for line in block.splitlines():
        if not line.strip():
            collecting = False
        elif line.startswith("--"):
            if collecting:
                pairs[-1][1].append(line[3:] if line.startswith("-- ") else line[2:])
        else:
            statement.append(line)
            if _ends(line) or (line.startswith("\\") and len(statement) == 1):
                pairs.append(("\n".join(statement), []))
                statement = []
                collecting = True
    assert not statement, f"a statement without its semicolon: {statement}"
    return pairs


def normalized(lines: list[str]) -> list[str]:
    """Rows and values must match; column padding and rule widths need not."""
    out = []
    for line in lines:
        line = re.sub(r"^psql:<stdin>:\d+: ", "", line.strip())
        if not line or re.fullmatch(r"\(\d+ rows?\)", line):
            continue
        line = re.sub(r"-{2,}", "-", line)
        out.append(re.sub(r"\s+", " ", line))
    return out
