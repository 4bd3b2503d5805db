"""docs/sql-api.md is true: its parameter tables are the catalog's, its examples print what
it shows.

- **Parameter tables.** Each public function of schema pymem (a function or procedure whose
  name does not start with ``_``) has one table in the doc, after a line
  ``Parameters of `pymem.name`...:`` (or the line ``Parameters of `pymem.name`: none.`` when
  it takes none). The table's rows are the function's parameters in order, each with the
  type ``format_type`` names and the default ``pg_get_function_arg_default`` reads from
  ``proargdefaults`` (its cast to the parameter's own type left out: ``NULL``, not
  ``NULL::text``); an overload has a table of its own.
- **Examples.** Every ```` ```sql ```` block that is not a signature (a block starting
  ``pymem.``) is an example; they run in document order, as one psql session (psql -X, the
  embedded server's) on a fresh store migrated with 3-dimensional embeddings, as the
  README's psql session is. The ``--`` lines after a statement are its output (the format
  of tests/sql_session.py, the README's): rows, values, errors with their DETAIL and HINT
  must match; padding, rule widths and ``(N rows)`` need not. A statement shown without
  output must print none (a command tag at most). Every public function is called by at
  least one example.
"""

from __future__ import annotations

import os
import re
import subprocess
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from pymem.cli import psql_path
from pymem.migrate import migrate
from pymem.server import create_database
from tests.sql_session import blocks, normalized, statements

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "sql-api.md"

# each public function's parameters, in order: (name, type, mode, default)
CATALOG = """
SELECT p.proname, p.oid::regprocedure::text, p.prokind,
       coalesce(array_agg(a.name ORDER BY a.n) FILTER (WHERE a.n IS NOT NULL), '{}'),
       coalesce(array_agg(format_type(a.type, NULL) ORDER BY a.n)
                FILTER (WHERE a.n IS NOT NULL), '{}'),
       coalesce(array_agg(coalesce(a.mode, 'i') ORDER BY a.n)
                FILTER (WHERE a.n IS NOT NULL), '{}'),
       coalesce(array_agg(pg_get_function_arg_default(p.oid, a.n::integer) ORDER BY a.n)
                FILTER (WHERE a.n IS NOT NULL), '{}')
FROM pg_proc p
JOIN pg_namespace ns ON ns.oid = p.pronamespace
LEFT JOIN LATERAL unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]), p.proargnames,
                         p.proargmodes::text[]) WITH ORDINALITY AS a(type, name, mode, n)
       ON a.mode IS NULL OR a.mode IN ('i', 'b', 'v')
WHERE ns.nspname = 'pymem' AND p.proname !~ '^_' AND p.prokind IN ('f', 'p')
GROUP BY p.oid
ORDER BY 1, 2
"""

MODES = {"i": "", "b": " (INOUT)", "v": " (VARIADIC)"}
MARKER = re.compile(r"^Parameters of `pymem\.(\w+)`([^\n]*):( none\.)?$")
CELL = re.compile(r"(?<!\\)\|")


def _catalog(conn) -> list[tuple[str, str, list[tuple[str, str, str | None]]]]:
    """(name, signature, [(parameter, type, default)]) of each public function."""
    found = []
    for name, signature, _kind, names, types, modes, defaults in conn.execute(CATALOG):
        params = []
        for param, type_, mode, default in zip(names, types, modes, defaults, strict=True):
            if default is not None:  # the cast to the parameter's own type says nothing
                default = re.sub(rf"::{re.escape(type_)}$", "", default)
            params.append((param, type_ + MODES[mode], default))
        found.append((name, signature, params))
    return found


def _tables(text: str) -> list[tuple[int, str, list[tuple[str, str, str | None]]]]:
    """(line, function, [(parameter, type, default)]) of each parameter table of the doc."""
    lines = text.splitlines()
    tables = []
    for i, line in enumerate(lines):
        marker = MARKER.match(line)
        if not marker:
            continue
        name, none = marker.group(1), marker.group(3)
        if none:
            tables.append((i + 1, name, []))
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        header = [c.strip() for c in CELL.split(lines[j].strip())[1:-1]]
        assert header == ["parameter", "type", "default", "meaning"], (
            f"docs/sql-api.md line {j + 1}: the table of {name} starts {lines[j]!r}"
        )
        rows = []
        for row in lines[j + 2 :]:
            if not row.startswith("|"):
                break
            cells = [c.strip() for c in CELL.split(row.strip())[1:-1]]
            assert len(cells) == 4 and cells[3], f"docs/sql-api.md: a row of {name}: {row!r}"
            param = re.fullmatch(r"`(\w+)`", cells[0])
            type_ = re.fullmatch(r"`([^`]+)`( \((?:INOUT|VARIADIC)\))?", cells[1])
            default = re.fullmatch(r"`([^`]+)`|—?", cells[2])
            assert param and type_ and default, f"docs/sql-api.md: a row of {name}: {row!r}"
            rows.append((param.group(1), type_.group(1) + (type_.group(2) or ""), default.group(1)))
        tables.append((i + 1, name, rows))
    return tables


def test_every_public_function_has_the_catalogs_parameter_table(conn):
    catalog = _catalog(conn)
    assert len(catalog) >= 50, catalog
    tables = _tables(DOC.read_text(encoding="utf-8"))
    unmatched = list(tables)
    wrong = []
    for name, signature, params in catalog:
        # a function's table is the one whose names are its parameters (an overload's own)
        names = [p[0] for p in params]
        mine = [t for t in unmatched if t[1] == name and [r[0] for r in t[2]] == names]
        if len(mine) != 1:
            shown = [(t[0], [r[0] for r in t[2]]) for t in tables if t[1] == name]
            wrong.append(f"{signature}: {len(mine)} tables of the parameters {names}: {shown}")
            continue
        line, _, rows = mine[0]
        unmatched.remove(mine[0])
        for param, row in zip(params, rows, strict=True):
            if row != param:
                wrong.append(f"line {line}, {signature}: the doc says {row}, the catalog {param}")
    assert not wrong, "docs/sql-api.md:\n" + "\n".join(wrong)
    assert not unmatched, f"tables of no public function: {unmatched}"


def _examples(text: str) -> list[tuple[int, str, str, list[str]]]:
    """(line, heading, statement, expected output) of every example statement, in order."""
    examples = []
    for heading, line, language, body in blocks(text):
        assert "=# " not in body, f"docs/sql-api.md line {line}: a psql prompt; write a session"
        if language != "sql" or body.startswith("pymem."):
            continue  # prose, a formula, a signature
        lines, at = body.splitlines(), 0
        for statement, expected in statements(body):
            at = lines.index(statement.splitlines()[0], at)
            examples.append((line + at, heading, statement, expected))
            at += 1
    return examples


MARK = "@@ pymem docs statement"


def _session(dsn: str, stmts: list[str]) -> list[list[str]]:
    """What psql prints for each statement, run in order as one session (errors included,
    where they happen: psql flushes its output before it writes one)."""
    script = "".join(f"\\echo '{MARK} {i}'\n{s}\n" for i, s in enumerate(stmts))
    script += f"\\echo '{MARK} end'\n"
    env = {**os.environ, "PSQLRC": os.devnull, "PGCLIENTENCODING": "UTF8", "PAGER": ""}
    done = subprocess.run(
        [psql_path(), "-X", "-d", dsn, "-f", "-"],
        input=script,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    outputs: list[list[str]] = []
    for line in done.stdout.splitlines():
        if line.startswith(MARK):
            outputs.append([])
        else:
            assert outputs, f"psql printed before the first statement: {line}"
            outputs[-1].append(line)
    assert len(outputs) == len(stmts) + 1 and not outputs[-1], done.stdout[-3000:]
    return outputs[:-1]


def _printed_nothing(output: list[str]) -> bool:
    """No rows, no message: a command tag (SET, CALL, ...) at most."""
    return all(re.fullmatch(r"[A-Z]+( [A-Z]+)*( \d+)*", line) for line in normalized(output))


@pytest.fixture
def toy_dsn(admin_dsn) -> str:
    """A fresh store with 3-dimensional embeddings, as `pymem migrate --dimensions 3` makes."""
    name = f"pymem_docs_{uuid.uuid4().hex[:12]}"
    create_database(admin_dsn, name)
    dsn = make_conninfo(admin_dsn, dbname=name)
    migrate(dsn, dimensions=3)
    yield dsn
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_every_example_prints_what_the_doc_shows(toy_dsn):
    examples = _examples(DOC.read_text(encoding="utf-8"))
    outputs = _session(toy_dsn, [statement for _, _, statement, _ in examples])
    wrong = []
    for (line, heading, statement, expected), output in zip(examples, outputs, strict=True):
        if expected and normalized(output) == normalized(expected):
            continue
        if not expected and _printed_nothing(output):
            continue
        wrong.append(
            f"docs/sql-api.md line {line} ({heading}):\n{statement}\n"
            f"-- the doc shows:\n{chr(10).join(expected)}\n-- psql printed:\n{chr(10).join(output)}"
        )
    assert not wrong, f"{len(wrong)} of {len(examples)} examples differ:\n\n" + "\n\n".join(wrong)
    with psycopg.connect(toy_dsn) as conn:
        public = {name for name, _, _ in _catalog(conn)}
    called = {
        name
        for _, _, statement, _ in examples
        for name in re.findall(r"\bpymem\.(\w+)\s*\(", statement)
    }
    assert public <= called, f"public functions no example calls: {sorted(public - called)}"
