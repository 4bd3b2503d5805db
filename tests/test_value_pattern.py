"""The values of a text (sql/00_values.sql) are looked for with the parts of the value
pattern the text's scripts can match (pymem._value_pattern_for): the same values, the
same masked text and the same words taken for values as with the whole pattern, on
every text the project's data holds and on texts made to sit on the parts' edges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

EDGES = [
    "Meeting at 3pm, then 4 p.m. on Friday; -200 or 10-12 or covid-19",
    "Nadia runs twice a week and swims three times",
    "Juan tiene dos gatos y tres perros; once en total, mil gracias",
    "У Ивана две кошки и три собаки, тысяча рублей",
    "ИВАН: ДВЕ КОШКИ",  # upper-case Cyrillic: the gate reads the whole block
    "لدى أحمد قطتان وثلاث قطط وألف كتاب",
    "لدى أحمد ثلاث قطط",  # an Arabic value in a text of no other script
    "王强星期三下午三点到，两千块，明天再说",
    "Ravi 周五 at 5pm 买了十二个苹果 and двух котов",
    "零一二 一百零八 二十 早上 凌晨",
    "nothing here at all",
    "",
    "español: diez, doce; русский: десять; عربي: عشرة; 中文: 十",
]


def _texts() -> list[str]:
    texts = set(EDGES)
    files = sorted((ROOT / "bench" / "data").glob("*.jsonl"))
    files.append(ROOT / "pymem" / "datasets" / "eval_stream.jsonl")
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for key in ("content", "text", "a", "b"):
                if isinstance(record.get(key), str):
                    texts.add(record[key])
    return sorted(texts)


def test_the_parts_a_text_can_match_find_what_the_whole_pattern_finds(conn):
    texts = _texts()
    assert len(texts) > 3000
    differ = conn.execute(
        """
        SELECT t, kind
        FROM unnest(%s::text[]) AS t
        CROSS JOIN LATERAL (
            SELECT 'values' AS kind
            WHERE ARRAY(SELECT m FROM regexp_matches(t, pymem._value_pattern(), 'g') AS m)
                IS DISTINCT FROM
                ARRAY(SELECT m FROM regexp_matches(t, pymem._value_pattern_for(t), 'g') AS m)
            UNION ALL
            SELECT 'masked'
            WHERE regexp_replace(t, pymem._value_pattern(), '0', 'g')
                IS DISTINCT FROM regexp_replace(t, pymem._value_pattern_for(t), '0', 'g')
            UNION ALL
            SELECT 'word ' || w
            FROM regexp_split_to_table(lower(t), '\\s+') AS w
            WHERE (w ~ ('^(' || pymem._value_pattern() || ')$'))
                IS DISTINCT FROM (w ~ ('^(' || pymem._value_pattern_for(w) || ')$'))
        ) AS d
        """,
        (texts,),
    ).fetchall()
    assert differ == []


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("Meeting at 3pm", 1),
        ("王强星期三到", 2),
        ("У Ивана две кошки", 2),
        ("لدى أحمد قطتان", 2),
        ("Ravi 周五 买了 двух котов", 3),
    ],
)
def test_a_text_gets_the_parts_its_scripts_can_match(conn, text, parts):
    pattern = conn.execute("SELECT pymem._value_pattern_for(%s)", (text,)).fetchone()[0]
    latin, chinese, other = conn.execute(
        "SELECT pymem._value_pattern_latin(), pymem._value_pattern_chinese(),"
        " pymem._value_pattern_cyrillic_arabic()"
    ).fetchone()
    assert pattern.startswith(latin)
    assert 1 + (chinese in pattern) + (other in pattern) == parts
