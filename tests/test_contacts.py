"""Contacts: people as entities, found by name, with the memories about them."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timedelta, timezone
from uuid import UUID

import numpy as np
import psycopg
import pytest

from pymem import MemoryStore
from pymem.cli import main
from pymem.errors import (
    ConsolidationMembership,
    ContactNotFound,
    InvalidContactMerge,
    InvalidContactName,
    InvalidParameter,
    MemoryNotFound,
    NotConsolidated,
)
from tests.conftest import unit
from tests.helpers import THREADS, a_backend_waits_on_a_lock, run_together

FAMILY = "👩\u200d👩\u200d👧"  # woman ZWJ woman ZWJ girl: one grapheme, five code points


def remember(store, texts, user="alice", start=0):
    """Store each text as a new memory (orthogonal vectors: no dedup)."""
    ids = []
    for i, text in enumerate(texts):
        result = store.upsert(user, text, unit(start + i))
        assert result.action == "inserted", (text, result)
        ids.append(result.memory_id)
    return ids


def link(conn, memory_id, names, user="alice"):
    conn.execute("SELECT pymem._link_memory_contacts(%s, %s, %s::text[])", (user, memory_id, names))


def contact_count(conn, user="alice"):
    return conn.execute(
        "SELECT count(*) FROM pymem.contacts WHERE user_id = %s", (user,)
    ).fetchone()[0]


# -- the seed scenario -----------------------------------------------------------

SCENARIOS = [
    pytest.param(
        "小红",
        [
            "小红在腾讯工作",
            "小红养了一只猫",
            "小红下个月来北京",
            "小红喜欢吃火锅",
            "小红的生日是五月三日",
        ],
        "小红最近怎么样？",
        id="chinese",
    ),
    pytest.param(
        "Sarah",
        [
            "Sarah works at Google",
            "Sarah has a cat named Milo",
            "Sarah is coming to Berlin next month",
            "Sarah loves spicy hot pot",
            "Sarah's birthday is on May 3",
        ],
        "how is sarah doing these days?",
        id="english",
    ),
]


@pytest.mark.parametrize(("name", "facts", "question"), SCENARIOS)
def test_a_question_naming_her_gets_her_card_and_all_five_facts(store, conn, name, facts, question):
    ids = remember(store, facts)
    for memory_id in ids:
        link(conn, memory_id, [name])
    assert contact_count(conn) == 1

    (mentioned,) = store.mentioned_contacts("alice", question)
    assert mentioned.name == name
    card = store.contact_card("alice", mentioned.contact_id, max_chars=1000)
    assert card.splitlines()[0] == name
    for fact in facts:
        assert f"- {fact}" in card
    found = store.contact_memories("alice", name)
    assert {m.memory_id for m in found} == set(ids)
    assert {m.found_by for m in found} == {"link"}
    links = conn.execute("SELECT DISTINCT found_by FROM pymem.contact_links").fetchall()
    assert links == [("write",)]
    assert store.recent_contacts("alice")[0].name == name


# -- sync_contact ------------------------------------------------------------------


def test_sync_creates_once_links_idempotently_and_keeps_changed_attributes(store, conn):
    ids = remember(store, ["Xiaohong works at Tencent", "Xiaohong has a cat"])
    first = store.sync_contact(
        "alice", "Xiaohong", ids[:1], relationship="friend", attributes={"city": "Beijing"}
    )
    again = store.sync_contact(
        "alice",
        "  XIAOHONG ",
        ids,
        attributes={"city": "Shenzhen", "company": "Tencent", "pet": None},
        aliases=["Hong", "hong", None, "", "   "],
        description="college friend",
    )
    assert again == first
    assert store.sync_contact("alice", "Hong", ids) == first  # an alias finds her too
    row = conn.execute(
        "SELECT name, relationship, description, attributes FROM pymem.contacts"
    ).fetchone()
    assert row == (
        "Xiaohong",
        "friend",
        "college friend",
        {"city": "Shenzhen", "company": "Tencent"},
    )
    links = conn.execute("SELECT memory_id, found_by FROM pymem.contact_links").fetchall()
    assert sorted(links) == sorted((i, "sync") for i in ids)
    assert conn.execute("SELECT alias FROM pymem.contact_aliases").fetchall() == [("Hong",)]
    history = conn.execute(
        "SELECT field, key, old_value, new_value, reason FROM pymem.contact_history"
    ).fetchall()
    assert history == [("attributes", "city", "Beijing", "Shenzhen", "sync")]

    store.sync_contact("alice", "Xiaohong", relationship="best friend")
    assert conn.execute(
        "SELECT old_value, new_value FROM pymem.contact_history WHERE field = 'relationship'"
    ).fetchall() == [("friend", "best friend")]


def test_empty_and_null_arrays_are_safe(store, conn):
    cid = store.sync_contact("alice", "Ann", [], aliases=[])
    assert store.sync_contact("alice", "Ann", None, aliases=None) == cid
    conn.execute("SELECT pymem.sync_contact('alice', 'Ann', '{}'::uuid[], aliases => '{}'::text[])")
    conn.execute("SELECT pymem.sync_contact('alice', 'Ann', ARRAY[NULL]::uuid[])")
    (memory_id,) = remember(store, ["Ann plays chess"])
    link(conn, memory_id, [])
    link(conn, memory_id, None)
    link(conn, memory_id, [None, "", " "])
    assert contact_count(conn) == 1
    assert conn.execute("SELECT count(*) FROM pymem.contact_links").fetchone()[0] == 0
    assert store.mentioned_contacts("alice", "") == []
    assert store.mentioned_contacts("alice", "!!! 😀") == []
    assert conn.execute("SELECT * FROM pymem.mentioned_contacts('alice', NULL)").fetchall() == []
    assert store.contact_card("alice", "Ann") == "Ann"
    # the fallback finds the unlinked memory that names her
    assert [m.found_by for m in store.contact_memories("alice", "ann")] == ["text"]


def test_eight_concurrent_first_syncs_make_one_contact(fresh_dsn):
    with MemoryStore(fresh_dsn) as setup:
        ids = remember(setup, [f"Xiaohong fact {i}" for i in range(THREADS)])
    returned: list[UUID] = []

    def work(store, index):
        returned.append(
            store.sync_contact(
                "alice", "小红", [ids[index]], attributes={f"k{index}": index}, aliases=["红红"]
            )
        )

    run_together(fresh_dsn, work)
    assert len(set(returned)) == 1 and len(returned) == THREADS
    with psycopg.connect(fresh_dsn) as conn:
        assert contact_count(conn) == 1
        attributes = conn.execute("SELECT attributes FROM pymem.contacts").fetchone()[0]
        assert attributes == {f"k{i}": i for i in range(THREADS)}
        assert conn.execute("SELECT count(*) FROM pymem.contact_links").fetchone()[0] == THREADS
        assert conn.execute("SELECT count(*) FROM pymem.contact_aliases").fetchone()[0] == 1


# -- resolve and merge -------------------------------------------------------------


def test_resolve_exact_then_alias_then_fuzzy_and_never_merges(store, conn):
    john = store.sync_contact("alice", "John Smith", aliases=["Johnny"])
    hong = store.sync_contact("alice", "小红")
    store.sync_contact("alice", "张伟")

    exact = store.resolve_contact("alice", "john smith")
    assert [(m.contact_id, m.match, m.score) for m in exact] == [(john, "exact", 1.0)]
    assert [(m.contact_id, m.match) for m in store.resolve_contact("alice", "JOHNNY")] == [
        (john, "alias")
    ]
    (fuzzy,) = store.resolve_contact("alice", "Jon Smith")
    assert (fuzzy.contact_id, fuzzy.match) == (john, "fuzzy")
    assert 0.5 <= fuzzy.score < 1.0
    # trigrams see nothing in two-character Chinese names: shared characters do
    assert conn.execute("SELECT similarity('小红', '红红')").fetchone()[0] == 0
    (fuzzy,) = store.resolve_contact("alice", "红红")
    assert (fuzzy.contact_id, fuzzy.name, fuzzy.match, fuzzy.score) == (hong, "小红", "fuzzy", 1.0)
    assert store.resolve_contact("alice", "张三") == []  # a shared surname is not enough
    assert store.resolve_contact("alice", "Mary Jones") == []
    # a name of both scripts: its Chinese characters meet Chinese ones, its words trigrams
    # (Latin letters counted as characters gave "Ava" a score of 1.0 against "David 王")
    david = store.sync_contact("alice", "David 王")
    for other in ["Ava", "Vida", "Di"]:
        assert store.resolve_contact("alice", other) == [], other
    assert [m.contact_id for m in store.resolve_contact("alice", "王")] == [david]
    assert [m.contact_id for m in store.resolve_contact("alice", "Davide")] == [david]
    assert contact_count(conn) == 4  # resolving created and merged nothing


def test_merge_moves_everything_and_keeps_the_merged_name(store, conn):
    ids = remember(store, ["小红在腾讯工作", "红红养了一只猫", "小红和红红是一个人"])
    keep = store.sync_contact(
        "alice",
        "小红",
        [ids[0], ids[2]],
        relationship="朋友",
        attributes={"公司": "腾讯", "城市": "北京"},
    )
    merge = store.sync_contact(
        "alice",
        "红红",
        [ids[1], ids[2]],
        relationship="同学",
        attributes={"城市": "上海", "爱好": "猫"},
        aliases=["阿红"],
    )
    store.sync_contact("alice", "红红", attributes={"城市": "广州"})  # history of merge
    assert store.merge_contacts("alice", "小红", str(merge)) == keep

    assert contact_count(conn) == 1
    row = conn.execute("SELECT name, relationship, attributes FROM pymem.contacts").fetchone()
    assert row == ("小红", "朋友", {"公司": "腾讯", "城市": "北京", "爱好": "猫"})
    aliases = conn.execute("SELECT alias FROM pymem.contact_aliases ORDER BY alias").fetchall()
    assert aliases == [("红红",), ("阿红",)]
    links = dict(conn.execute("SELECT memory_id, found_by FROM pymem.contact_links").fetchall())
    assert links == {ids[0]: "sync", ids[1]: "moved", ids[2]: "sync"}
    history = conn.execute(
        "SELECT contact_id, field, key, old_value, new_value, reason FROM pymem.contact_history"
        " ORDER BY changed_at, reason DESC"
    ).fetchall()
    assert history == [
        (keep, "attributes", "城市", "上海", "广州", "sync"),
        (keep, "attributes", "城市", "广州", "北京", "merge"),
        (keep, "relationship", None, "同学", "朋友", "merge"),
    ]
    assert [(m.contact_id, m.match) for m in store.resolve_contact("alice", "红红")] == [
        (keep, "alias")
    ]
    assert {m.memory_id for m in store.contact_memories("alice", "阿红")} == set(ids)

    with pytest.raises(InvalidContactMerge), conn.transaction():
        store.merge_contacts("alice", "小红", "阿红")
    with pytest.raises(ContactNotFound), conn.transaction():
        store.merge_contacts("alice", "小红", "小明")


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda s, m: s.merge_contacts("alice", "Bob", "Rob"), InvalidContactMerge),
        (lambda s, m: s.merge_contacts("alice", "Rob", "Bob"), InvalidContactMerge),
        (lambda s, m: s.sync_contact("alice", "Rob", [m], aliases=["Robbie"]), "keep"),
        (lambda s, m: [r.memory_id for r in s.contact_memories("alice", "Rob")], "memory"),
    ],
    ids=["merge-again", "merge-back", "sync", "contact-memories"],
)
def test_a_call_that_waited_for_a_merge_sees_its_result(fresh_dsn, call, expected):
    """The merged contact is gone when the waiting call goes on: it must find the survivor
    by the alias the merge left, not write links to a deleted row (raw 23503/23502)."""
    with MemoryStore(fresh_dsn) as setup:
        (memory,) = remember(setup, ["Rob likes tea"])
        keep = setup.sync_contact("alice", "Bob", attributes={"a": 1})
        setup.sync_contact("alice", "Rob", attributes={"b": 2})
    outcome: list = []

    def second():
        with MemoryStore(fresh_dsn) as store:
            try:
                outcome.append(call(store, memory))
            except Exception as exc:  # checked by the main thread
                outcome.append(exc)

    with (
        psycopg.connect(fresh_dsn) as first,
        psycopg.connect(fresh_dsn, autocommit=True) as watcher,
    ):
        first.execute("SELECT pymem.merge_contacts('alice', 'Bob', 'Rob')")
        waiter = threading.Thread(target=second)
        waiter.start()
        waiting = a_backend_waits_on_a_lock(watcher)
        first.commit()
    waiter.join(timeout=30)
    assert waiting, "the second call never waited for the merge"
    (result,) = outcome
    if expected == "keep":
        assert result == keep
    elif expected == "memory":
        assert result == [memory]
    else:
        assert isinstance(result, expected), result
    with psycopg.connect(fresh_dsn) as conn:
        assert conn.execute("SELECT id, attributes FROM pymem.contacts").fetchall() == [
            (keep, {"a": 1, "b": 2})
        ]


# -- mentions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "message", "found"),
    [
        (
            ["Ann Lee", "Lee Mary", "Mary Jones"],
            "Ann Lee Mary Jones came",
            ["Ann Lee", "Mary Jones"],
        ),
        (["小红", "红花园", "园林路口"], "小红花园林路口见", ["小红", "园林路口"]),
    ],
)
def test_a_match_that_overlaps_only_a_dropped_one_is_kept(store, names, message, found):
    """Overlaps are settled longest first, then earliest: the middle match overlaps both
    others and goes, so the two it separated are both mentions (the window rule dropped a
    match for overlapping one that was itself dropped)."""
    for name in names:
        store.sync_contact("alice", name)
    assert [m.name for m in store.mentioned_contacts("alice", message)] == found


def test_mentions_longest_match_word_boundaries_and_case(store, conn):
    for name in ["小红", "红", "Ann", "Anna", "Ann Lee", "Bob"]:
        store.sync_contact("alice", name)

    def names(text):
        return [m.name for m in store.mentioned_contacts("alice", text)]

    assert names("我昨天和小红吃饭了") == ["小红"]  # not also 红
    assert names("红说小红要来") == ["红", "小红"]
    assert names("Anna met ANN at the café") == ["Anna", "Ann"]
    assert names("annabelle and bobby") == []  # word boundaries
    assert names("Ann Lee called; ann lee again") == ["Ann Lee"]  # not also Ann
    assert names("我和Anna在北京，Bob也在") == ["Anna", "Bob"]  # Latin inside Chinese
    found = store.mentioned_contacts("alice", "Ｂｏｂ's car")  # full-width, possessive
    assert [(m.name, m.matched) for m in found] == [("Bob", "Bob")]
    assert store.recent_contacts("alice", 1)[0].name == "Bob"  # mentioned last
    never = {c.name for c in store.recent_contacts("alice") if c.last_mentioned_at is None}
    assert never == set()  # every one was mentioned above


def test_mentions_among_five_hundred_contacts(store, conn):
    conn.execute(
        "INSERT INTO pymem.contacts (user_id, name)"
        " SELECT 'alice', 'Person' || i FROM generate_series(1, 490) AS i"
    )
    for name in ["王小红", "小红", "李雷", "韩梅梅", "Jon Smith", "Jo", "Mary-Jane", "O'Brien"]:
        store.sync_contact("alice", name)
    store.sync_contact("alice", "韩梅梅", aliases=["梅梅"])
    text = "王小红说李雷和梅梅周末去找Mary Jane，jo和Person77也在, o'brien没来" * 3
    start = time.perf_counter()
    found = store.mentioned_contacts("alice", text)
    elapsed = time.perf_counter() - start
    assert [(m.name, m.matched) for m in found] == [
        ("王小红", "王小红"),
        ("李雷", "李雷"),
        ("韩梅梅", "梅梅"),
        ("Mary-Jane", "Mary-Jane"),
        ("Jo", "Jo"),
        ("Person77", "Person77"),
        ("O'Brien", "O'Brien"),
    ]
    assert elapsed < 2.0, elapsed  # about 10 ms here; a loose bound against a loop of regexes


def test_a_long_message_naming_people_thousands_of_times(store):
    """Linear in the message: 12,000 mentions (100 KB) with overlapping names. The first
    version compared every match with every other (47 s for 10,000 mentions)."""
    for name in ["Bob", "Carol", "Mary Jane", "Jane", "Mary"]:
        store.sync_contact("alice", name)
    text = "Bob and Carol met Mary Jane; " * 4000 + "then Jane alone"
    start = time.perf_counter()
    found = store.mentioned_contacts("alice", text)
    elapsed = time.perf_counter() - start
    # "Jane" inside "Mary Jane" and "Mary" are dropped until the last, lone "Jane"
    assert [(m.name, m.matched) for m in found] == [
        ("Bob", "Bob"),
        ("Carol", "Carol"),
        ("Mary Jane", "Mary Jane"),
        ("Jane", "Jane"),
    ]
    assert elapsed < 5.0, elapsed  # about 0.1 s here; the quadratic version took minutes


# -- contact_memories fallback ------------------------------------------------------


def test_text_fallback_links_what_it_finds(store, conn):
    ids = remember(
        store,
        [
            "Bob Chen moved to Shenzhen",  # linked below
            "Had lunch with bob chen today",  # found by text
            "Bobby says hi",  # an alias
            "Bob Chenko is someone else",  # no word boundary
            "Chen Bob reversed",  # not the name
        ],
    )
    store.sync_contact("alice", "Bob Chen", ids[:1], aliases=["Bobby"])
    deleted = remember(store, ["Bob Chen's old address"], start=10)[0]
    conn.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (deleted,))
    found = store.contact_memories("alice", "Bob Chen")
    assert [(m.memory_id, m.found_by) for m in found][:1] == [(ids[0], "link")]
    assert {m.memory_id: m.found_by for m in found} == {
        ids[0]: "link",
        ids[1]: "text",
        ids[2]: "text",
    }
    links = dict(conn.execute("SELECT memory_id, found_by FROM pymem.contact_links").fetchall())
    assert links == {ids[0]: "sync", ids[1]: "text", ids[2]: "text"}
    again = store.contact_memories("alice", "bobby", k=2)
    assert len(again) == 2 and {m.found_by for m in again} == {"link"}
    with pytest.raises(InvalidParameter), conn.transaction():
        store.contact_memories("alice", "Bob Chen", k=0)
    with pytest.raises(ContactNotFound), conn.transaction():
        store.contact_memories("alice", "Alice")


# -- the card ---------------------------------------------------------------------------


def test_card_orders_facts_by_decay_and_cuts_on_graphemes(store, conn):
    ids = remember(store, ["Mia is a nurse", f"Mia's family {FAMILY} visits", "Mia likes jazz"])
    conn.execute("UPDATE pymem.memories SET importance = 0.9 WHERE id = %s", (ids[2],))
    conn.execute(
        "UPDATE pymem.memories SET last_access_at = now() - interval '300 days' WHERE id = %s",
        (ids[0],),
    )
    store.sync_contact(
        "alice",
        "Mia",
        ids,
        relationship="sister",
        attributes={"age": 31, "city": "Lyon"},
        description="Café owner",
    )
    card = store.contact_card("alice", "Mia")
    assert card == (
        "Mia (sister)\nCafé owner\nage: 31; city: Lyon\n- Mia likes jazz\n"
        f"- Mia's family {FAMILY} visits\n- Mia is a nurse"
    )
    for max_chars in range(1, len(card) + 1):
        cut = store.contact_card("alice", "Mia", max_chars=max_chars)
        assert len(cut) <= max_chars
        body = cut.removesuffix("…")
        assert card.startswith(body)
        # never inside the family emoji
        assert not (card.index(FAMILY) < len(body) < card.index(FAMILY) + len(FAMILY))
    family_start = card.index(FAMILY)
    assert store.contact_card("alice", "Mia", max_chars=family_start + 3).endswith("family…")
    with pytest.raises(InvalidParameter), conn.transaction():
        store.contact_card("alice", "Mia", max_chars=0)


def test_card_order_is_total_so_two_stores_built_alike_give_the_same_card(store, conn):
    """Facts written in one transaction share its clock: the same strength and created_at.
    The order was left to their ids (random), so the same store built twice printed the
    card's lines in another order. Ties now go newest first, then by text (code points)."""
    facts = ["Mia runs", "Mia is a nurse", "Mia lives in Lyon", "Mia has a cat", "Mia likes jazz"]
    cards = []
    for user in ("alice", "bob"):  # two users' stores, built alike (their ids differ)
        ids = remember(store, facts, user=user)
        store.sync_contact(user, "Mia", ids)
        cards.append(store.contact_card(user, "Mia"))
    assert cards[0] == cards[1]
    assert cards[0].splitlines() == ["Mia"] + [f"- {f}" for f in sorted(facts)]

    # the whole rule with ties on purpose: strength first, then newest, then text
    ids = dict(zip(facts, remember(store, facts, user="carol"), strict=True))
    conn.execute(
        "UPDATE pymem.memories SET importance = 0.9 WHERE id = ANY(%s)",
        ([ids["Mia runs"], ids["Mia likes jazz"]],),  # strongest, tied with each other
    )
    conn.execute(  # the same strength as the rest, created earlier
        "UPDATE pymem.memories SET created_at = created_at - interval '1 day' WHERE id = %s",
        (ids["Mia has a cat"],),
    )
    store.sync_contact("carol", "Mia", list(ids.values()))
    assert store.contact_card("carol", "Mia").splitlines() == [
        "Mia",
        "- Mia likes jazz",
        "- Mia runs",
        "- Mia is a nurse",
        "- Mia lives in Lyon",
        "- Mia has a cat",
    ]


@pytest.mark.parametrize(
    ("text", "max_chars", "expected"),
    [
        (f"{FAMILY} 家庭", 3, ""),
        (f"{FAMILY} 家庭", 5, FAMILY),
        (f"{FAMILY} 家庭", 7, f"{FAMILY} 家"),
        ("小红很好", 2, "小红"),
        ("e\u0301e\u0301", 3, "e\u0301"),  # combining acute accent
        ("❤\ufe0f!", 1, ""),  # variation selector
        ("👍🏽ok", 1, ""),  # skin tone
        ("🇨🇳🇺🇸", 3, "🇨🇳"),  # a flag is two regional indicators
        ("कि", 1, ""),  # Devanagari vowel sign
        ("ab", 5, "ab"),
    ],
)
def test_truncate_graphemes(conn, text, max_chars, expected):
    got = conn.execute("SELECT pymem._truncate_graphemes(%s, %s)", (text, max_chars)).fetchone()
    assert got[0] == expected


# -- consolidation and events --------------------------------------------------------


def test_a_profile_of_fragments_that_cancel_out_takes_the_newest_direction(store, conn):
    """Two fragments with opposite vectors have a zero mean: the profile's embedding, which
    pymem chooses, was refused as the zero vector (PM005) for an argument nobody passed."""
    first = store.upsert("alice", "Ann loves hiking", unit(0)).memory_id
    newest = store.upsert("alice", "Ann hates crowds", -unit(0)).memory_id
    # one transaction gives both the same created_at: the first is made a day older
    conn.execute(
        "UPDATE pymem.memories SET created_at = %s WHERE id = %s",
        (datetime.now(timezone.utc) - timedelta(days=1), first),
    )
    link(conn, first, ["Ann"])
    link(conn, newest, ["Ann"])
    profile = store.consolidate_contact("alice", "Ann", "Outdoorsy, avoids crowds.")
    embeddings = dict(
        conn.execute(
            "SELECT id, embedding::text FROM pymem.memories WHERE id = ANY(%s)",
            ([profile, newest],),
        ).fetchall()
    )
    assert embeddings[profile] == embeddings[newest]


def test_consolidate_makes_one_profile_memory_and_never_twice(store, conn):
    ids = remember(store, ["Lea is a pilot", "Lea lives in Oslo", "Lea and Tom are married"])
    pinned = store.upsert("alice", "Lea's number is secret", unit(20), pinned=True).memory_id
    for memory_id in [*ids[:2], pinned]:
        link(conn, memory_id, ["Lea"])
    link(conn, ids[2], ["Lea", "Tom"])  # about two people: stays live
    conn.execute(
        "UPDATE pymem.memories SET details = %s WHERE id = %s",
        (json.dumps({"job": "pilot"}), ids[0]),
    )

    profile = store.consolidate_contact("alice", "Lea", "A pilot living in Oslo.", {"job": "pilot"})
    row = conn.execute(
        "SELECT kind, content, details, embedding FROM pymem.memories WHERE id = %s", (profile,)
    ).fetchone()
    assert row[0] == "profile"
    assert row[1] == "Lea\nA pilot living in Oslo.\njob: pilot"
    assert row[2] == {"job": "pilot"}
    expected = (unit(0) + unit(1)) / np.sqrt(2)
    assert np.allclose(np.asarray(row[3].to_list()), expected, atol=1e-6)
    absorbed = conn.execute(
        "SELECT id, importance FROM pymem.memories WHERE consolidated_into = %s ORDER BY id",
        (profile,),
    ).fetchall()
    assert absorbed == sorted((i, 0.05) for i in ids[:2])
    assert {m.memory_id for m in store.contact_memories("alice", "Lea")} == {
        profile,
        pinned,
        ids[2],
    }

    # nothing new: the same profile, nothing consolidated again
    assert store.consolidate_contact("alice", "Lea", attributes={"city": "Oslo"}) == profile
    assert (
        conn.execute(
            "SELECT count(*) FROM pymem.memory_versions WHERE memory_id = ANY(%s)"
            " AND reason = 'consolidate_contact'",
            (ids[:2],),
        ).fetchone()[0]
        == 2
    )
    new = remember(store, ["Lea bought a boat"], start=5)
    link(conn, new[0], ["Lea"])
    assert store.consolidate_contact("alice", "Lea", "A pilot in Oslo with a boat.") == profile
    row = conn.execute(
        "SELECT content, embedding, version FROM pymem.memories WHERE id = %s", (profile,)
    ).fetchone()
    assert row[0] == "Lea\nA pilot in Oslo with a boat.\ncity: Oslo; job: pilot"
    expected = (unit(0) + unit(1) + unit(5)) / np.sqrt(3)
    assert np.allclose(np.asarray(row[1].to_list()), expected, atol=1e-6)
    assert conn.execute(
        "SELECT reason FROM pymem.memory_versions WHERE memory_id = %s", (new[0],)
    ).fetchall() == [("consolidate_contact",)]
    attributes = conn.execute("SELECT attributes FROM pymem.contacts WHERE name = 'Lea'")
    assert attributes.fetchone()[0] == {"job": "pilot", "city": "Oslo"}  # only grew

    assert store.consolidate_contact("alice", "Tom", "Lea's husband") is None  # no fragments
    with pytest.raises(psycopg.Error) as exc, conn.transaction():
        conn.execute("SELECT pymem.consolidate_contact('alice', 'Lea', attributes => '3')")
    assert exc.value.sqlstate == "PM032"


def test_a_profile_is_a_consolidation_that_unconsolidate_reverses(store, conn):
    ids = remember(store, ["Lea lived in Bergen", "Lea lives in Oslo", "Lea is a pilot"])
    for memory_id, city in zip(ids[:2], ["Bergen", "Oslo"], strict=True):
        conn.execute(
            "UPDATE pymem.memories SET details = %s WHERE id = %s",
            (json.dumps({"city": city}), memory_id),
        )
    conn.execute(
        "UPDATE pymem.memories SET importance = 0.3, created_at = created_at - interval '1 day'"
        " WHERE id = %s",
        (ids[2],),
    )
    conn.execute(  # Bergen before Oslo
        "UPDATE pymem.memories SET created_at = created_at - interval '2 days' WHERE id = %s",
        (ids[0],),
    )
    for memory_id in ids[:2]:
        link(conn, memory_id, ["Lea"])
    profile = store.consolidate_contact("alice", "Lea", "A pilot.")
    # details only grow, as in consolidate: the older city is kept as an alternative
    details = conn.execute("SELECT details FROM pymem.memories WHERE id = %s", (profile,))
    assert details.fetchone()[0] == {"city": "Oslo", "alternatives": {"city": ["Bergen"]}}
    link(conn, ids[2], ["Lea"])
    assert store.consolidate_contact("alice", "Lea", "A pilot in Oslo.") == profile
    recorded = conn.execute(
        "SELECT source_ids, previous_importance FROM pymem.consolidations WHERE id = %s",
        (profile,),
    ).fetchone()
    assert recorded == (sorted(ids), {str(ids[0]): 0.5, str(ids[1]): 0.5, str(ids[2]): 0.3})

    # a fragment's membership is undone with its consolidation, which now exists
    with pytest.raises(ConsolidationMembership), conn.transaction():
        store.undo("alice", ids[0])
    assert store.unconsolidate("alice", profile) == 3
    rows = conn.execute(
        "SELECT id, consolidated_into, importance FROM pymem.memories WHERE id = ANY(%s)"
        " ORDER BY id",
        (ids,),
    ).fetchall()
    assert rows == sorted([(ids[0], None, 0.5), (ids[1], None, 0.5), (ids[2], None, 0.3)])
    assert {m.memory_id: m.found_by for m in store.contact_memories("alice", "Lea")} == {
        i: "link" for i in ids
    }
    gone = conn.execute(
        "SELECT m.deleted_at IS NOT NULL, c.consolidated_into FROM pymem.memories AS m,"
        " pymem.contacts AS c WHERE m.id = %s AND c.name = 'Lea'",
        (profile,),
    )
    assert gone.fetchone() == (True, None)  # the person has no profile now
    again = store.consolidate_contact("alice", "Lea")
    assert again is not None and again != profile
    assert store.unconsolidate("alice", again) == 3


def test_one_fragment_is_enough_for_a_profile(store, conn):
    (only,) = remember(store, ["Ivy sings in a choir"])
    link(conn, only, ["Ivy"])
    profile = store.consolidate_contact("alice", "Ivy", "A singer.")
    row = conn.execute("SELECT consolidated_into FROM pymem.memories WHERE id = %s", (only,))
    assert row.fetchone()[0] == profile is not None
    assert store.unconsolidate("alice", profile) == 1


def test_a_profile_written_before_it_was_recorded_is_recorded_when_it_grows(store, conn):
    ids = remember(store, ["Kai plays chess", "Kai lives in Riga"])
    for memory_id in ids:
        link(conn, memory_id, ["Kai"])
    conn.execute("UPDATE pymem.memories SET importance = 0.7 WHERE id = %s", (ids[0],))
    profile = store.consolidate_contact("alice", "Kai", "A chess player.")
    # as consolidate_contact left a profile before it recorded one: no row, and
    # the fragments still linked
    conn.execute("DELETE FROM pymem.consolidations WHERE id = %s", (profile,))
    for memory_id in ids:
        link(conn, memory_id, ["Kai"])
    with pytest.raises(NotConsolidated), conn.transaction():
        store.unconsolidate("alice", profile)

    (new,) = remember(store, ["Kai moved to Tallinn"], start=5)
    link(conn, new, ["Kai"])
    assert store.consolidate_contact("alice", "Kai", "A chess player in Tallinn.") == profile
    recorded = conn.execute(
        "SELECT source_ids, previous_importance FROM pymem.consolidations WHERE id = %s",
        (profile,),
    ).fetchone()
    # the earlier fragments with the importance their history kept
    assert recorded == (sorted([*ids, new]), {str(ids[0]): 0.7, str(ids[1]): 0.5, str(new): 0.5})
    assert store.unconsolidate("alice", profile) == 3
    restored = conn.execute(
        "SELECT importance FROM pymem.memories WHERE id = ANY(%s) AND consolidated_into IS NULL"
        " ORDER BY importance DESC",
        ([*ids, new],),
    )
    assert restored.fetchall() == [(0.7,), (0.5,), (0.5,)]


def test_profile_due_is_announced_once(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as listener:
        listener.execute("LISTEN pymem_events")
        with psycopg.connect(fresh_dsn, autocommit=True) as conn:
            store = MemoryStore(conn)
            ids = remember(store, [f"Nora fact number {i}" for i in range(7)])
            for memory_id in ids:
                link(conn, memory_id, ["Nora"])  # each in its own transaction
            events = _events(listener)
            assert [e["event"] for e in events] == ["contact_profile_due"]
            assert events[0]["ids"] == [str(i) for i in ids[:5]]
            # ids, never content: any role may LISTEN (docs/sql-api.md)
            assert set(events[0]) == {"user_id", "event", "ids", "count", "contact_id"}

            store.consolidate_contact("alice", "Nora", "Nora, seven facts")
            more = remember(store, [f"Nora news {i}" for i in range(5)], start=10)
            for memory_id in more:
                link(conn, memory_id, ["nora"])
            events = _events(listener)
            assert [(e["event"], e["count"]) for e in events] == [("contact_profile_due", 5)]


def _events(listener):
    out = [json.loads(n.payload) for n in listener.notifies(timeout=0.5, stop_after=10)]
    return [e for e in out if e["event"] == "contact_profile_due"]


# -- errors and security ---------------------------------------------------------------


def test_bad_input_is_refused_with_its_code(store, conn):
    for bad in [None, "", "   ", "!!!", "😀", "x" * 201]:
        with pytest.raises(InvalidContactName), conn.transaction():
            store.sync_contact("alice", bad)
    with pytest.raises(InvalidContactName), conn.transaction():
        store.sync_contact("alice", "Ann", aliases=["y" * 201])
    with pytest.raises(psycopg.Error, match="must be a JSON object") as exc, conn.transaction():
        conn.execute("SELECT pymem.sync_contact('alice', 'Ann', attributes => '[1, 2]')")
    assert exc.value.sqlstate == "PM032"
    with pytest.raises(InvalidContactName), conn.transaction():
        store.resolve_contact("alice", " ")
    with pytest.raises(ContactNotFound), conn.transaction():
        store.contact_card("alice", "Nobody")
    with pytest.raises(InvalidParameter), conn.transaction():
        store.recent_contacts("alice", 0)
    assert contact_count(conn) == 0


def test_another_users_memories_are_refused_and_nothing_is_written(store, conn):
    (bobs,) = remember(store, ["Bob's secret"], user="bob")
    (mine,) = remember(store, ["Alice's note about Xiaoming"], start=3)
    with pytest.raises(MemoryNotFound, match=str(bobs)), conn.transaction():
        store.sync_contact("alice", "Xiaoming", [mine, bobs], attributes={"a": 1})
    with pytest.raises(psycopg.Error) as exc, conn.transaction():
        link(conn, bobs, ["Xiaoming"])
    assert exc.value.sqlstate == "PM011"
    assert contact_count(conn) == 0
    assert conn.execute("SELECT count(*) FROM pymem.contact_links").fetchone()[0] == 0


def test_app_role_never_sees_another_users_contacts(store, conn):
    (bobs,) = remember(store, ["Bob's sister Lily lives in Paris"], user="bob")
    store.sync_contact("bob", "Lily", [bobs], aliases=["Lil"])
    (anns,) = remember(store, ["Lily from yoga called"], user="ann", start=1)
    conn.execute("SET LOCAL ROLE pymem_app")
    conn.execute("SELECT set_config('pymem.user_id', 'ann', true)")
    app = MemoryStore(conn)

    assert app.mentioned_contacts("ann", "Lily and Lil said hi") == []
    assert app.resolve_contact("ann", "Lily") == []
    assert app.recent_contacts("ann") == []
    assert conn.execute("SELECT count(*) FROM pymem.contacts").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM pymem.contact_links").fetchone()[0] == 0
    with pytest.raises(ContactNotFound), conn.transaction():
        app.contact_card("ann", "Lily")
    with pytest.raises(MemoryNotFound), conn.transaction():
        app.sync_contact("ann", "Lily", [bobs])
    # the wrapper acts for the user each call names; SQL naming another user
    # under ann's setting is refused
    with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
        conn.execute("SELECT pymem.sync_contact('bob', 'Mallory')")

    # ann's own Lily is a different person, found only in ann's memories
    lily = app.sync_contact("ann", "Lily")
    assert [m.memory_id for m in app.contact_memories("ann", "Lily")] == [anns]
    assert [m.contact_id for m in app.mentioned_contacts("ann", "lily?")] == [lily]


# -- CLI ---------------------------------------------------------------------------------


def test_cli_lists_people_and_prints_a_card(fresh_dsn, capsys):
    with MemoryStore(fresh_dsn) as store:
        ids = remember(store, ["小红在腾讯工作"], user="u")
        store.sync_contact("u", "小红", ids, relationship="朋友")
        store.sync_contact("u", "Tom")
    assert main(["--dsn", fresh_dsn, "contacts", "--user", "u"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("Tom") and lines[1].endswith("小红 (朋友)")
    assert main(["--dsn", fresh_dsn, "contacts", "card", "--user", "u", "小红"]) == 0
    assert capsys.readouterr().out == "小红 (朋友)\n- 小红在腾讯工作\n"
    assert main(["--dsn", fresh_dsn, "contacts", "card", "--user", "u", "小明"]) == 2
    assert "PM030" in capsys.readouterr().err
    assert main(["--dsn", fresh_dsn, "contacts", "--user", "nobody"]) == 0
    assert capsys.readouterr().out == "no contacts\n"


def test_contacts_work_with_an_empty_search_path(store, conn):
    (memory_id,) = remember(store, ["Jon Smith plays the cello"])
    conn.execute("SET search_path = ''")
    conn.execute("SELECT pymem.sync_contact('alice', 'Jon Smith', ARRAY[%s]::uuid[])", (memory_id,))
    link(conn, memory_id, ["Jon Smith", "Kim"])
    fuzzy = conn.execute("SELECT match FROM pymem.resolve_contact('alice', 'John Smith')")
    assert fuzzy.fetchall() == [("fuzzy",)]
    mentioned = conn.execute("SELECT name FROM pymem.mentioned_contacts('alice', 'jon smith?')")
    assert mentioned.fetchall() == [("Jon Smith",)]
    card = conn.execute("SELECT pymem.contact_card('alice', 'Jon Smith')").fetchone()[0]
    assert card == "Jon Smith\n- Jon Smith plays the cello"
    assert conn.execute("SELECT pymem.consolidate_contact('alice', 'Kim')").fetchone()[0] is None


def test_a_transaction_that_found_mentions_then_writes_does_not_deadlock_a_merge(fresh_dsn):
    """mentioned_contacts sets last_mentioned_at: it takes the user's lock first, as every
    writer does. Without it, it held the contacts' rows, a merge took the user's lock and
    waited on them, and the transaction's next write (here set_fact) deadlocked (40P01)."""
    with MemoryStore(fresh_dsn) as setup:
        setup.sync_contact("alice", "Ann")
        setup.sync_contact("alice", "Bob")
    merged: list = []

    def merge():
        # raw SQL: the wrapper would retry a deadlock victim and hide the deadlock
        with psycopg.connect(fresh_dsn, autocommit=True) as conn:
            try:
                merged.append(
                    conn.execute("SELECT pymem.merge_contacts('alice', 'Ann', 'Bob')").fetchone()[0]
                )
            except psycopg.Error as exc:  # checked by the main thread
                merged.append(exc)

    with (
        psycopg.connect(fresh_dsn) as first,
        psycopg.connect(fresh_dsn, autocommit=True) as watcher,
    ):
        found = first.execute(
            "SELECT name FROM pymem.mentioned_contacts('alice', 'Ann met Bob')"
        ).fetchall()
        assert sorted(found) == [("Ann",), ("Bob",)]
        merger = threading.Thread(target=merge)
        merger.start()
        waiting = a_backend_waits_on_a_lock(watcher)
        assert waiting, "the merge never waited"
        first.execute("SELECT pymem.set_fact('alice', 'met_bob', 'true')")
        first.commit()
    merger.join(timeout=30)
    (result,) = merged
    assert isinstance(result, UUID), result
