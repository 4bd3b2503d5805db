"""The SQL API and the Python wrapper stay one to one, and hold with no search_path."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import psycopg
import pytest

from pymem import MemoryItem, MemoryStore, errors
from pymem.errors import SchemaMismatch
from pymem.records import BatchResult, UpsertResult
from tests.conftest import unit

# Python method names that differ from their SQL function's name.
# upsert_many sends a plain batch as upsert_memory_arrays, any other as upsert_memories.
RENAMED = {
    "upsert_memory": "upsert",
    "upsert_memories": "upsert_many",
    "upsert_memory_arrays": "upsert_many",
}
ROOT = Path(__file__).resolve().parent.parent


def _public_routines(conn: psycopg.Connection) -> set[str]:
    rows = conn.execute(
        "SELECT proname FROM pg_proc WHERE pronamespace = 'pymem'::regnamespace"
        " AND proname NOT LIKE '\\_%'"
    ).fetchall()
    return {r[0] for r in rows}


def test_every_public_function_has_one_wrapper_method(conn):
    functions = _public_routines(conn)
    methods = {
        name
        for name in dir(MemoryStore)
        if not name.startswith("_") and callable(getattr(MemoryStore, name))
    } - {"open", "close", "remember"}  # remember runs a model job (pymem.extract)
    assert {RENAMED.get(f, f) for f in functions} == methods


def test_memory_item_mirrors_the_sql_item_type(conn):
    """An item is defined once, as pymem.memory_item; the dataclass follows it."""
    attributes = [
        r[0]
        for r in conn.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = 'pymem.memory_item'::regclass"
            " AND attnum > 0 AND NOT attisdropped ORDER BY attnum"
        )
    ]
    fields = [f.name for f in dataclasses.fields(MemoryItem) if f.name != "extra"]
    assert fields == attributes
    # every item key is also an option of upsert_memory, by the same name
    (args,) = conn.execute(
        "SELECT proargnames FROM pg_proc WHERE oid = 'pymem.upsert_memory'::regproc"
    ).fetchone()
    assert set(attributes) <= set(args)


def _attributes(conn, type_name: str) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass"
            " AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            (type_name,),
        )
    ]


def test_the_write_results_mirror_the_sql_result_type(conn):
    """One result type for every write: pymem.write_result; upsert_memory returns its
    columns but the ordinal. The Python results follow, field by field."""
    columns = _attributes(conn, "pymem.write_result")
    assert [f.name for f in dataclasses.fields(BatchResult)] == columns
    (out,) = conn.execute(
        "SELECT array_agg(n ORDER BY o) FROM pg_proc AS p,"
        " unnest(p.proargnames, p.proargmodes) WITH ORDINALITY AS a (n, m, o)"
        " WHERE p.oid = 'pymem.upsert_memory'::regproc AND a.m = 't'"
    ).fetchone()
    assert [f.name for f in dataclasses.fields(UpsertResult)] == out == columns[1:]
    batch_functions = conn.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc AS p"
        " WHERE p.pronamespace = 'pymem'::regnamespace AND p.proname NOT LIKE '\\_%%'"
        " AND p.prorettype = 'pymem.write_result'::regtype"
    ).fetchall()
    names = {f.split("(")[0] for (f,) in batch_functions}
    assert names == {
        "pymem.upsert_memories",
        "pymem.upsert_memory_arrays",
        "pymem.import_memories",
    }


def test_upsert_takes_the_item_fields_by_name_with_the_servers_defaults(conn):
    """store.upsert's options are pymem.memory_item's fields, in upsert_memory's order;
    every default is None in Python and NULL in SQL: the store's defaults live in one place
    (pymem._prepare_item), never copied into a signature."""
    item = _attributes(conn, "pymem.memory_item")
    ((names, defaults, n_defaults),) = conn.execute(
        "SELECT p.proargnames[1:p.pronargs], pg_get_expr(p.proargdefaults, 0), p.pronargdefaults"
        " FROM pg_proc AS p WHERE p.oid = 'pymem.upsert_memory'::regproc"
    ).fetchall()
    assert names[0] == "user_id" and set(names[1:]) == set(item)
    assert n_defaults == len(names) - 3  # user_id, content, embedding are required
    assert defaults == ", ".join(["NULL::text", "NULL::double precision", "NULL::text",
                                  "NULL::boolean", "NULL::jsonb", "NULL::jsonb", "NULL::text",
                                  "NULL::text", "NULL::timestamp with time zone",
                                  "NULL::double precision", "NULL::double precision",
                                  "NULL::double precision", "NULL::text",
                                  "NULL::text[]", "NULL::double precision"])  # fmt: skip
    parameters = list(inspect.signature(MemoryStore.upsert).parameters.values())[1:]
    assert [p.name for p in parameters] == names
    for p in parameters[3:]:
        assert p.default is None, f"upsert's {p.name} defaults to {p.default!r}, not the store's"
    assert all(
        f.default is None
        for f in dataclasses.fields(MemoryItem)
        if f.name not in ("content", "embedding", "extra")
    )


def test_api_works_with_an_empty_search_path(conn):
    conn.execute("SET search_path = ''")
    row = conn.execute(
        "SELECT * FROM pymem.upsert_memory('u', 'likes tea', %s::public.vector)",
        (str(unit(0).tolist()),),
    ).fetchone()
    assert row[1] == "inserted"
    hits = conn.execute(
        "SELECT memory_id FROM pymem.recall('u', %s::public.vector, 3, query_text => 'tea',"
        " touch => true)",
        (str(unit(0).tolist()),),
    ).fetchall()
    assert [h[0] for h in hits] == [row[0]]
    assert conn.execute("SELECT pymem.touch('u', ARRAY[%s]::uuid[])", (row[0],)).fetchone()[0] == 1
    assert conn.execute("SELECT cooled FROM pymem.apply_decay()").fetchone()[0] == 0
    batch = conn.execute(
        "SELECT action FROM pymem.upsert_memories('u', %s::jsonb)",
        ('[{"content": "likes tea", "embedding": ' + str(unit(0).tolist()) + "}]",),
    ).fetchall()
    assert batch == [("duplicate",)]


def test_store_refuses_a_database_without_the_schema(empty_dsn):
    with (
        MemoryStore(empty_dsn) as store,
        pytest.raises(SchemaMismatch, match=r"no pymem schema yet.*run `pymem --dsn '.*' migrate`"),
    ):
        store.upsert("u", "x", unit(0))


def test_every_sqlstate_has_an_exception_and_is_documented():
    sql_text = "\n".join(p.read_text() for p in sorted((ROOT / "sql").glob("*.sql")))
    raised = set(re.findall(r"ERRCODE = '(PM\d{3})'", sql_text))
    mapped = set(errors.BY_SQLSTATE)
    assert raised <= mapped
    doc = (ROOT / "docs" / "sql-api.md").read_text()
    for code in mapped:
        assert code in doc, f"{code} is not documented in docs/sql-api.md"
