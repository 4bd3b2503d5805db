"""The SQL API from drivers that are not psycopg, with their default binding.

node-pg sends every parameter untyped (OID 0) as text; pgx prepares first and
encodes each value by the type the server inferred (a float64 cannot be sent
as ``text``). So every documented call must resolve with bare ``$n`` and no
cast, to the parameter types a reader expects: numbers for numbers.

- ``tests/drivers/documented_calls.mjs`` runs the calls of docs/sql-api.md and
  README.md from node-pg, one process and one connection, and reports each;
- the types the server infers for those calls, and for a call of every API
  function with its leading arguments and each option by name, are read as
  pgx reads them: Parse with no parameter types, then Describe.

``.ci/run`` installs node-pg (``npm ci --prefix tests/drivers``); without node or
the package this module is skipped, saying which is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import psycopg
import pytest
from psycopg import pq
from psycopg.conninfo import conninfo_to_dict

from pymem.migrate import migrate

DRIVERS = Path(__file__).resolve().parent / "drivers"
SCRIPT = DRIVERS / "documented_calls.mjs"
# The typed batch's former name: an overload of upsert_memories kept for callers that
# cast ($2::text[], $3::vector[]). Untyped, its three leading arguments cannot be told
# from the JSON form's (42725), which is why the typed batch has a name of its own.
CAST_ONLY = {
    "pymem.upsert_memories(text,text[],vector[],jsonb,double precision,double precision,text)"
}
PROBE = b"pymem_driver_probe"


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the node-pg tests need Node.js 18 or later")
    if not (DRIVERS / "node_modules" / "pg" / "package.json").is_file():
        pytest.skip("node-pg is not installed: run `npm ci --prefix tests/drivers`")
    return node


def _pg_environment(dsn: str) -> dict[str, str]:
    """The libpq environment variables node-pg reads, for ``dsn``."""
    names = {"host": "PGHOST", "port": "PGPORT", "user": "PGUSER", "password": "PGPASSWORD"}
    params = conninfo_to_dict(dsn)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env.update({names[k]: str(v) for k, v in params.items() if k in names and v is not None})
    env["PGDATABASE"] = str(params["dbname"])
    return env


def _inferred_types(conn: psycopg.Connection, sql: str) -> list[str] | str:
    """The types the server infers for the parameters of ``sql`` sent untyped, as
    pgx learns them (Parse without types, then Describe), or the SQLSTATE refusing it.
    ``conn`` is in autocommit: a refused Parse leaves no transaction aborted."""
    pgconn = conn.pgconn
    parsed = pgconn.prepare(PROBE, sql.encode())
    if parsed.status != pq.ExecStatus.COMMAND_OK:
        return (parsed.error_field(pq.DiagnosticField.SQLSTATE) or b"?").decode()
    try:
        described = pgconn.describe_prepared(PROBE)
        oids = [described.param_type(i) for i in range(described.nparams)]
    finally:
        pgconn.exec_(b"DEALLOCATE " + PROBE)
    return [conn.execute("SELECT format_type(%s, NULL)", (oid,)).fetchone()[0] for oid in oids]


def test_documented_calls_from_node_pg_with_untyped_parameters(fresh_dsn):
    node = _node()
    run = subprocess.run(
        [node, str(SCRIPT)],
        env=_pg_environment(fresh_dsn),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    steps = json.loads(run.stdout)["steps"]
    failed = [
        (s["name"], s.get("sqlstate"), s.get("message"))
        for s in steps
        if (s["ok"] if s["expect"] else not s["ok"])
        or (s["expect"] and s["sqlstate"] != s["expect"])
    ]
    assert failed == []
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        inferred = {s["name"]: _inferred_types(conn, s["sql"]) for s in steps}
        facts = dict(conn.execute("SELECT key, confidence FROM pymem.facts WHERE user_id = 'ann'"))
    assert inferred == {s["name"]: s["types"] for s in steps}
    # the JS number 0.9 became confidence 0.9, the level 'high' 0.9 ('low' was rejected)
    assert (facts["user_city"], facts["likes_os"], facts["mood"]) == (0.9, 1.0, 0.8)
    by_name = {s["name"]: s["rows"] for s in steps if s["ok"]}
    assert by_name["set_fact, confidence_level by name"] == [{"set_fact": "rejected"}]
    actions = [r["action"] for r in by_name["upsert_memory_arrays"]]
    assert len(actions) == 3 and actions[0] == "inserted"
    assert by_name["import_lines_done"] == [{"import_lines_done": 3}]
    # what docs/sql-api.md tells a node-pg user to read when a JSON value is refused
    (plain,) = [s for s in steps if s["name"] == "set_fact, a plain JS string as the value"]
    assert plain["message"] == "invalid input syntax for type json"
    assert "unnamed portal parameter $3" in plain["where"]


def _api_calls(conn: psycopg.Connection) -> list[tuple[str, str, list[str]]]:
    """(function, call, declared types of its parameters) for every public function:
    its arguments without a default by position, then each option by name and all of
    them by name (procedures: every argument by name, CALL takes no OUT positions)."""
    rows = conn.execute(
        """
        SELECT p.oid::regprocedure::text, p.oid::regproc::text, p.prokind, p.pronargdefaults,
            coalesce(array_agg(a.name ORDER BY a.ord) FILTER (WHERE a.ord IS NOT NULL), '{}'),
            coalesce(array_agg(format_type(a.type, NULL) ORDER BY a.ord)
                FILTER (WHERE a.ord IS NOT NULL), '{}')
        FROM pg_proc AS p
        LEFT JOIN LATERAL unnest(
            coalesce(p.proallargtypes, p.proargtypes::oid[]),
            coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[p.pronargs])),
            p.proargnames
        ) WITH ORDINALITY AS a (type, mode, name, ord) ON a.mode IN ('i', 'b', 'v')
        WHERE p.pronamespace = 'pymem'::regnamespace AND p.proname NOT LIKE '\\_%'
        GROUP BY p.oid ORDER BY 1
        """
    ).fetchall()
    calls = []
    for signature, name, kind, defaults, names, types in rows:
        if signature in CAST_ONLY:
            continue
        required = 0 if kind == "p" else len(names) - defaults
        options = list(range(required, len(names)))
        for named in dict.fromkeys([(), *((i,) for i in options), tuple(options)]):
            args = [f"${i + 1}" for i in range(required)]
            args += [f"{names[i]} => ${required + k + 1}" for k, i in enumerate(named)]
            verb = "CALL" if kind == "p" else "SELECT * FROM"
            call = f"{verb} {name}({', '.join(args)})"
            calls.append((signature, call, [types[i] for i in [*range(required), *named]]))
    return calls


def test_every_api_function_resolves_untyped_to_its_declared_types(fresh_dsn):
    """What pgx needs: each call resolves with untyped parameters, and the types the
    server infers are the parameters' own (a number for confidence, not text)."""
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        calls = _api_calls(conn)
        wrong = [
            (call, inferred, types)
            for _, call, types in calls
            if (inferred := _inferred_types(conn, call)) != types
        ]
        overloaded = conn.execute(
            "SELECT proname FROM pg_proc WHERE pronamespace = 'pymem'::regnamespace"
            " AND proname NOT LIKE '\\_%' GROUP BY proname HAVING count(*) > 1"
        ).fetchall()
    assert len({f for f, _, _ in calls}) > 30
    assert wrong == []
    # one signature a name, so that a name and the arguments' positions decide alone
    assert overloaded == [("upsert_memories",)]


# set_fact as the release before one form had it: two overloads, confidence number or text
OLD_SET_FACT = """
DROP FUNCTION pymem.set_fact(text, text, jsonb, double precision, text, text, timestamptz, text);
CREATE FUNCTION pymem.set_fact(user_id text, key text, value jsonb,
    confidence double precision DEFAULT 0.6, scope text DEFAULT 'habit',
    source text DEFAULT 'stated', valid_until timestamptz DEFAULT NULL)
RETURNS text LANGUAGE sql RETURN 'set';
CREATE FUNCTION pymem.set_fact(user_id text, key text, value jsonb, confidence text,
    scope text DEFAULT 'habit', source text DEFAULT 'stated',
    valid_until timestamptz DEFAULT NULL)
RETURNS text LANGUAGE sql RETURN 'set';
"""


def test_an_upgraded_store_keeps_one_set_fact(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute(OLD_SET_FACT)
        assert _inferred_types(conn, "SELECT pymem.set_fact($1, $2, $3, confidence => $4)") == [
            "text", "text", "jsonb", "text"]  # fmt: skip
    result = migrate(fresh_dsn)
    assert sorted(result.dropped) == [
        "pymem.set_fact(text, text, jsonb, double precision, text, text, timestamp with time zone)",
        "pymem.set_fact(text, text, jsonb, text, text, text, timestamp with time zone)",
    ]
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        assert _inferred_types(conn, "SELECT pymem.set_fact($1, $2, $3, confidence => $4)") == [
            "text", "text", "jsonb", "double precision"]  # fmt: skip
        assert conn.execute(
            "SELECT pymem.set_fact('ann', 'k', '1', confidence_level => 'high')"
        ).fetchone() == ("set",)
