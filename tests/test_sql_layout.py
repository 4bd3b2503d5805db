"""How sql/ is laid out: files by job, none too long to read, loaded in name order
with every function defined before a file whose loading needs it."""

from __future__ import annotations

import re
from pathlib import Path

from pymem.migrate import sql_dir

MAX_LINES = 600
DEFINITION = re.compile(r"CREATE (?:OR REPLACE )?(?:FUNCTION|PROCEDURE) pymem\.(\w+)\s*\(")
CALL = re.compile(r"pymem\.(\w+)\s*\(")


def sql_files() -> list[Path]:
    return sorted(sql_dir().glob("*.sql"))


def code_of(text: str) -> str:
    """The text without comments and string literals (a hint that names a function
    calls nothing)."""
    text = re.sub(r"--[^\n]*", "", text)
    return re.sub(r"'(?:[^']|'')*'", "''", text)


def test_no_sql_file_is_longer_than_a_reader_takes_in():
    long = {f.name: n for f in sql_files() if (n := len(f.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_a_call_to_a_later_file_is_made_only_from_a_plpgsql_body(conn):
    """Files load in name order. PostgreSQL checks an SQL function's body when it is
    created, so such a body, a view or a statement run at load calls only what earlier
    files (or its own) define; a PL/pgSQL body is resolved at its first call, so it may
    call a function of a later file, and the load cannot depend on their order."""
    files = sql_files()
    defined_in: dict[str, int] = {}
    for i, path in enumerate(files):
        for name in DEFINITION.findall(path.read_text()):
            defined_in.setdefault(name, i)
    languages = dict(
        conn.execute(
            "SELECT p.proname, l.lanname FROM pg_proc AS p"
            " JOIN pg_language AS l ON l.oid = p.prolang"
            " WHERE p.pronamespace = 'pymem'::regnamespace"
        ).fetchall()
    )
    wrong = []
    calls = 0
    for i, path in enumerate(files):
        code = code_of(path.read_text())
        starts = [(m.start(), m.group(1)) for m in DEFINITION.finditer(code)]
        for call in CALL.finditer(code):
            callee = call.group(1)
            calls += callee in defined_in
            if defined_in.get(callee, -1) <= i:
                continue
            # the function whose definition the call is in (none: a statement at load)
            caller = next((n for s, n in reversed(starts) if s < call.start()), None)
            if caller is None or languages.get(caller) != "plpgsql":
                wrong.append(
                    f"{path.name}: {caller} calls {callee} of {files[defined_in[callee]].name}"
                )
    assert wrong == []
    assert calls > 500  # the check reads the calls at all


# a list: 4 or more words in a quoted alternation (a|b|c|d), a '{...}' literal or an
# ARRAY['...', ...]; two lists that share 5 words spell one list out twice
ALTERNATION = re.compile(r"\(\??:?([^()]*\|[^()]*)\)")
ARRAY_LITERAL = re.compile(r"ARRAY\s*\[((?:\s*'[^']*'\s*,?)+)\]")
JSON_KEYS = re.compile(r'"([^"]+)":')


def word_lists() -> list[tuple[str, frozenset[str]]]:
    lists = []
    for path in sql_files():
        text = re.sub(r"--[^\n]*", "", path.read_text())
        for literal in re.finditer(r"'((?:[^']|'')*)'", text):
            body = literal.group(1)
            where = f"{path.name}:{text[: literal.start()].count(chr(10)) + 1}"
            for alternation in ALTERNATION.finditer(body):
                words = [w for w in alternation.group(1).split("|") if w]
                if len(words) >= 4:
                    lists.append((where, frozenset(words)))
            if body.startswith("{") and body.count(",") >= 3:
                keys = JSON_KEYS.findall(body) or body[1:-1].split(",")
                lists.append((where, frozenset(k.strip() for k in keys)))
        for array in ARRAY_LITERAL.finditer(text):
            words = re.findall(r"'([^']*)'", array.group(1))
            if len(words) >= 4:
                where = f"{path.name}:{text[: array.start()].count(chr(10)) + 1}"
                lists.append((where, frozenset(words)))
    return lists


def test_every_word_list_is_spelled_out_once():
    """sql/00_lexicon.sql holds the lists by purpose; a rule that needs one builds its
    pattern from it. A copy drifts: the function words and the pronoun pattern, the
    negation words, the passive's auxiliaries and the people's possessives were each
    written twice, the Chinese relation words three times."""
    lists = word_lists()
    assert len(lists) > 20  # the check reads the lists at all
    twice = [
        f"{a} and {b}: {sorted(wa & wb)[:6]}"
        for i, (a, wa) in enumerate(lists)
        for b, wb in lists[i + 1 :]
        if len(wa & wb) >= 5
    ]
    assert twice == []


def test_a_character_range_is_written_once():
    """The ranges of a script are sql/00_lexicon.sql's functions; a range written out
    elsewhere is a copy that drifts (the Chinese range stood in nine places)."""
    ranges = {
        r"\u3400-\u9fff": "pymem._han_characters()",
        r"\u3041-\u3096": "pymem._hiragana()",
        r"\u30a1-\u30fa": "pymem._katakana()",
    }
    copies = [
        f"{path.name}: {written} (use {name})"
        for path in sql_files()
        if path.name != "00_lexicon.sql"
        for written, name in ranges.items()
        if written in path.read_text()
    ]
    assert copies == []


def test_every_rule_constant_named_in_sql_exists_and_is_used(conn):
    """The rules' fixed numbers are pymem._rule_constants(); a name pymem._rule reads
    that the table lacks would fail only when its rule first runs, and a constant no
    rule reads is a number nobody uses."""
    named = {
        name
        for path in sql_files()
        for name in re.findall(r"pymem\._rule\('(\w+)'\)", code_of_names(path.read_text()))
    }
    defined = {r[0] for r in conn.execute("SELECT name FROM pymem._rule_constants()")}
    assert named == defined


def code_of_names(text: str) -> str:
    """The text without comments (the names are string literals, kept)."""
    return re.sub(r"--[^\n]*", "", text)
