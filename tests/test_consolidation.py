"""Consolidation: candidates, consolidate and its guards, maintenance plans,
unconsolidate, the consolidation_due event, the Python methods and the CLI.

Most memories are written straight into pymem.memories (setup, not the API):
the write path would merge related fragments as supersedes, and these tests
are about what happens to fragments that exist.
"""

from __future__ import annotations

import json
import threading
import uuid

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector

from pymem import MemoryStore
from pymem.cli import main
from pymem.errors import (
    AlreadyConsolidated,
    ConsolidationMembership,
    DetailsDropped,
    DimensionMismatch,
    InvalidConsolidation,
    InvalidEmbedding,
    InvalidParameter,
    InvalidPlan,
    MemoryNotFound,
    NotConsolidated,
    PlanTooLarge,
    UnknownKind,
)
from tests.conftest import DIM, at_cosine, unit
from tests.helpers import memory, refused

USER = "alice"
OTHER = "bob"
UNKNOWN = "00000000-0000-4000-8000-000000000000"


def mem(conn, content, embedding, *, user=USER, kind="fact", importance=0.5, **cols):
    """A memory row, inserted directly; returns its id."""
    names = ["user_id", "kind", "content", "embedding", "importance", *cols]
    values = [user, kind, content, np.asarray(embedding, dtype=np.float32), importance]
    values += [json.dumps(v) if isinstance(v, dict) else v for v in cols.values()]
    return conn.execute(
        f"INSERT INTO pymem.memories ({', '.join(names)})"
        f" VALUES ({', '.join(['%s'] * len(names))}) RETURNING id",
        values,
    ).fetchone()[0]


def near(base: int, other: int, cosine: float = 0.95) -> np.ndarray:
    return at_cosine(cosine, base, other)


def spelled(n: int) -> str:
    """A number in letters that state no value ("bd" for 13): the fragments' texts are
    told apart without a number a record would have to keep."""
    return "".join("abcdefghij"[int(d)] for d in str(n))


def fragments(conn, base=0, n=3, *, user=USER, **cols):
    """n memories pairwise at cosine 0.9025 around unit(base)."""
    return [
        mem(
            conn,
            f"fragment {spelled(base)}-{spelled(i)}",
            near(base, base + 1 + i),
            user=user,
            **cols,
        )
        for i in range(n)
    ]


def snapshot(conn, user=USER) -> list:
    return conn.execute(
        "SELECT id, content, importance, consolidated_into, deleted_at, details, version"
        " FROM pymem.memories WHERE user_id = %s ORDER BY id",
        (user,),
    ).fetchall()


# -- candidates ---------------------------------------------------------------------------


def test_candidates_group_neighbours_and_topics_in_a_fixed_order(store, sql):
    big = fragments(sql, 0, 4)
    small = fragments(sql, 10, 3)
    fragments(sql, 20, 2)  # below the group size
    for i in range(30, 36):
        mem(sql, f"unrelated {i}", unit(i))
    topic = [mem(sql, f"coffee {i}", unit(40 + i), topic="coffee") for i in range(3)]

    groups = store.consolidation_candidates(USER)
    assert [g.group_no for g in groups] == [1, 2, 3]
    assert [sorted(g.member_ids) for g in groups] == [
        sorted(big),
        *sorted([sorted(small), sorted(topic)], key=lambda ids: ids[0]),
    ]
    by_members = {tuple(sorted(g.member_ids)): g for g in groups}
    g = by_members[tuple(sorted(big))]
    assert g.size == 4 and g.edges == 6 and g.topic is None
    assert g.mean_similarity == pytest.approx(0.9025, abs=1e-6)
    t = by_members[tuple(sorted(topic))]
    assert t.topic == "coffee" and t.edges == 0 and t.mean_similarity is None
    assert all(g.member_ids == sorted(g.member_ids) for g in groups)
    # the same data, the same answer
    assert store.consolidation_candidates(USER) == groups
    # options
    assert [g.size for g in store.consolidation_candidates(USER, min_group=2)] == [4, 3, 3, 2]
    (only,) = store.consolidation_candidates(USER, min_similarity=0.95)
    assert (only.group_no, only.member_ids, only.topic) == (1, t.member_ids, "coffee")


def test_candidates_leave_out_pinned_deleted_consolidated_other_users_and_kinds(store, sql):
    ids = fragments(sql, 0, 3)
    fragments(sql, 0, 3, user=OTHER)
    sql.execute("UPDATE pymem.memories SET pinned = true WHERE id = %s", (ids[0],))
    assert store.consolidation_candidates(USER) == []
    assert [g.member_ids for g in store.consolidation_candidates(USER, include_pinned=True)] == [
        sorted(ids)
    ]
    assert store.consolidation_candidates(USER, include_pinned=True, kinds=["habit"]) == []
    assert len(store.consolidation_candidates(USER, include_pinned=True, kinds=["fact"])) == 1

    more = fragments(sql, 5, 4)
    sql.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (more[0],))
    assert [g.member_ids for g in store.consolidation_candidates(USER)] == [sorted(more[1:])]
    record = store.consolidate(USER, more[1:], "one record", unit(5))
    extra = mem(sql, "one more", near(5, 60))
    # the record is live and a candidate again with new fragments; its sources never are
    groups = store.consolidation_candidates(USER, min_group=2)
    assert sorted(sorted(g.member_ids) for g in groups) == sorted(
        [sorted([record, extra]), sorted(ids[1:])]
    )
    for g in store.consolidation_candidates(USER, min_group=2, include_pinned=True):
        assert not set(g.member_ids) & set(more)


def test_candidates_refuse_bad_options(store, sql):
    for call, exc, code in [
        (
            lambda: store.consolidation_candidates(USER, min_similarity=1.5),
            InvalidParameter,
            "PM006",
        ),
        (lambda: store.consolidation_candidates(USER, min_group=1), InvalidParameter, "PM006"),
        (lambda: store.consolidation_candidates(USER, kinds=["mood"]), UnknownKind, "PM008"),
        (lambda: store.consolidation_candidates(""), Exception, "PM001"),
    ]:
        refused(sql, exc, code, call)


def _clustered(rng, n_clusters, per_cluster, singles, dim=DIM):
    centres = rng.standard_normal((n_clusters, dim))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    rows = []
    for c in centres:
        for _ in range(per_cluster):
            v = c + 0.02 * rng.standard_normal(dim)
            rows.append(v / np.linalg.norm(v))
    noise = rng.standard_normal((singles, dim))
    rows.extend(noise / np.linalg.norm(noise, axis=1, keepdims=True))
    return np.asarray(rows, dtype=np.float32)


def _components(vectors: np.ndarray, threshold: float) -> set[frozenset[int]]:
    sims = vectors @ vectors.T
    parent = list(range(len(vectors)))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in zip(*np.nonzero(np.triu(sims >= threshold, 1)), strict=True):
        parent[find(int(a))] = find(int(b))
    groups: dict[int, set[int]] = {}
    for i in range(len(vectors)):
        groups.setdefault(find(i), set()).add(i)
    return {frozenset(g) for g in groups.values() if len(g) >= 3}


def test_candidates_above_the_exact_size_use_buckets_and_find_the_all_pairs_groups(store, sql):
    vectors = _clustered(np.random.default_rng(5), 60, 8, 300)  # 780 memories: bucketed
    with sql.cursor() as cur:
        cur.executemany(
            "INSERT INTO pymem.memories (user_id, kind, content, embedding)"
            " VALUES (%s, 'fact', %s, %s) RETURNING id",
            [(USER, f"m{i}", v) for i, v in enumerate(vectors)],
            returning=True,
        )
        ids = []
        while True:
            ids.append(cur.fetchone()[0])
            if not cur.nextset():
                break
    index = {mid: i for i, mid in enumerate(ids)}
    truth = _components(vectors, 0.7)
    assert len(truth) == 60
    groups = store.consolidation_candidates(USER)
    found = {frozenset(index[m] for m in g.member_ids) for g in groups}
    # the buckets depend on the (random) ids: a member may be missed, a wrong one never added
    assert all(any(g <= t for t in truth) for g in found)
    pairs = [(a, b) for t in truth for a in t for b in t if a < b]
    together = sum(1 for a, b in pairs if any(a in g and b in g for g in found))
    assert together / len(pairs) >= 0.95
    assert len(found & truth) >= 0.9 * len(truth)


# -- consolidate ---------------------------------------------------------------------------


def test_consolidate_keeps_sources_and_inherits_the_strongest(store, sql):
    a = mem(sql, "likes coffee", near(0, 1), importance=0.4, source="inferred", topic="coffee")
    b = mem(sql, "drinks americano", near(0, 2), importance=0.8, kind="habit", topic="coffee")
    c = mem(sql, "no sugar", near(0, 3), importance=0.3, source="confirmed", kind="habit")
    sql.execute("UPDATE pymem.memories SET pinned = true WHERE id = %s", (c,))
    rid = store.consolidate(USER, [a, b, c], "Drinks americano, no sugar", unit(0))

    r = memory(sql, rid)
    assert r["content"] == "Drinks americano, no sugar"
    assert r["kind"] == "habit" and r["topic"] == "coffee"
    assert r["importance"] == 0.8 and r["source"] == "confirmed" and r["pinned"] is True
    assert r["consolidated_into"] is None and r["deleted_at"] is None
    assert r["mention_count"] == 3
    assert np.allclose(r["embedding"].to_numpy(), unit(0))
    for sid in (a, b, c):
        s = memory(sql, sid)
        assert s["consolidated_into"] == rid and s["importance"] == 0.05
        assert s["deleted_at"] is None and s["content"]
    reasons = sql.execute(
        "SELECT DISTINCT reason FROM pymem.memory_versions WHERE memory_id = ANY(%s)",
        ([a, b, c],),
    ).fetchall()
    assert reasons == [(f"consolidated into {rid}",)]
    prev = sql.execute(
        "SELECT source_ids, previous_importance FROM pymem.consolidations WHERE id = %s", (rid,)
    ).fetchone()
    assert prev[0] == sorted([a, b, c])
    assert prev[1] == {str(a): 0.4, str(b): 0.8, str(c): 0.3}


def test_the_same_sources_again_return_the_same_record(store, sql):
    ids = fragments(sql)
    first = store.consolidate(USER, ids, "one record", unit(0))
    again = store.consolidate(USER, [ids[2], ids[0], ids[1], ids[0]], "reworded", unit(7))
    assert again == first
    assert memory(sql, first)["content"] == "one record"
    assert sql.execute("SELECT count(*) FROM pymem.consolidations").fetchone()[0] == 1


def test_the_sources_open_reviews_move_to_the_record(store, sql):
    """A conflict flagged between two sources has nothing left to decide once they are one
    record; one between a source and another memory now concerns the record. They stayed
    on the hidden fragments, where resolve_review could only keep both (PM015 otherwise)."""
    ids = fragments(sql)
    other = mem(sql, "works on a Mac", unit(30))
    inside = store.flag_conflict(USER, ids[0], ids[1], "which one?")
    outside = store.flag_conflict(USER, ids[2], other, "Windows or Mac?")
    repeat = store.flag_conflict(USER, other, ids[1], "the same question")
    record = store.consolidate(USER, ids, "one record", unit(0))
    rows = {
        r[0]: r[1:]
        for r in sql.execute(
            "SELECT id, decision, resolved_id, memory_id, matched_id FROM pymem.reviews"
        ).fetchall()
    }
    assert rows[inside][:2] == ("obsolete", record)
    # (other, ids[1]) and (ids[2], other) are both (record, other) now, a conflict having
    # no direction: one stays open (the older; in one transaction, by id), one is obsolete
    kept, gone = sorted([outside, repeat], key=lambda r: rows[r][0] is not None)
    assert rows[kept][:2] == (None, None) and {*rows[kept][2:]} == {record, other}
    assert rows[gone][:2] == ("obsolete", record)
    assert [{c.memory_id, c.other_id} for c in store.pending_conflicts(USER)] == [{record, other}]
    assert store.resolve_review(USER, rows[kept][2], "keep_both", review_id=kept) == rows[kept][2]


def test_the_same_sources_of_a_deleted_record_are_refused_not_answered_with_it(store, sql):
    """The record was deleted since: answering it as 'existing' left every source hidden
    under a deleted record (no live memory) and unconsolidate refused it (PM011)."""
    ids = fragments(sql)
    record = store.consolidate(USER, ids, "one record", unit(0))
    store.apply_maintenance(USER, [{"op": "delete", "id": str(record)}])
    refused(
        sql,
        AlreadyConsolidated,
        "PM041",
        lambda: store.consolidate(USER, ids, "again", unit(0)),
        f"consolidated into {record}, which is deleted",
    )


def test_an_overlapping_set_is_refused_naming_the_consolidated_ids(store, sql):
    ids = fragments(sql)
    rid = store.consolidate(USER, ids[:2], "both of them", unit(0))
    before = snapshot(sql)
    err = refused(
        sql,
        AlreadyConsolidated,
        "PM041",
        lambda: store.consolidate(USER, ids, "all three", unit(0)),
    )
    assert f"{min(ids[:2])} (into {rid})" in str(err) and str(ids[2]) not in str(err)
    assert snapshot(sql) == before
    # the record itself with the new fragment is fine
    assert store.consolidate(USER, [rid, ids[2]], "all three", unit(0)) != rid


def _absorb(sql, record, sources):
    """pymem._consolidate with record_id, as consolidate_contact calls it."""
    return sql.execute(
        "SELECT * FROM pymem._consolidate(%s, %s::uuid[], 'grown', %s, '{}', pymem._settings(),"
        " record_id => %s, min_sources => 1)",
        (USER, sources, np.asarray(unit(0), dtype=np.float32), record),
    ).fetchone()


def _absorb_refused(sql, record, sources, code):
    with pytest.raises(psycopg.Error) as info, sql.transaction():
        _absorb(sql, record, sources)
    assert info.value.sqlstate == code, info.value
    return info.value


def test_a_record_absorbs_more_sources_keeping_its_id_and_its_guards(store, sql):
    ids = fragments(sql, n=4)
    rid = store.consolidate(USER, ids[:2], "both of them", unit(0))
    assert _absorb(sql, rid, [ids[2]]) == (rid, "consolidated")
    assert memory(sql, ids[2])["consolidated_into"] == rid
    assert memory(sql, rid)["content"] == "grown"
    row = sql.execute("SELECT source_ids FROM pymem.consolidations WHERE id = %s", (rid,))
    assert row.fetchall() == [(sorted(ids[:3]),)]
    _absorb_refused(sql, rid, [rid], "PM040")  # a record is not its own source
    _absorb_refused(sql, rid, [], "PM040")
    _absorb_refused(sql, rid, [ids[0]], "PM041")
    _absorb_refused(sql, rid, [UNKNOWN], "PM011")
    _absorb_refused(sql, UNKNOWN, [ids[3]], "PM011")
    outer = store.consolidate(USER, [rid, ids[3]], "outer", unit(0))
    err = _absorb_refused(sql, rid, [mem(sql, "one more", unit(9))], "PM041")
    assert f"{rid} (into {outer})" in str(err)  # a record consolidated again absorbs nothing
    assert store.unconsolidate(USER, outer) == 2
    assert store.unconsolidate(USER, rid) == 3
    assert [(memory(sql, i)["consolidated_into"], memory(sql, i)["importance"]) for i in ids] == [
        (None, 0.5)
    ] * 4


def test_sources_must_be_live_memories_of_the_user(store, sql):
    ids = fragments(sql)
    theirs = fragments(sql, 10, user=OTHER)
    gone = mem(sql, "deleted", unit(30))
    sql.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (gone,))
    before = snapshot(sql)
    for bad in (theirs[0], UNKNOWN, gone):
        err = refused(
            sql,
            MemoryNotFound,
            "PM011",
            lambda b=bad: store.consolidate(USER, [*ids, b], "x", unit(0)),
        )
        assert str(bad) in str(err)
    for sources in ([ids[0]], [ids[0], ids[0]], []):
        refused(
            sql,
            InvalidConsolidation,
            "PM040",
            lambda s=sources: store.consolidate(USER, s, "x", unit(0)),
        )
    refused(
        sql,
        psycopg.Error,
        "PM040",
        lambda: sql.execute("SELECT pymem.consolidate('alice', ARRAY[NULL]::uuid[], 'x', NULL)"),
    )
    refused(  # two-dimensional: PM040, not a raw 0A000 from array_position
        sql,
        psycopg.Error,
        "PM040",
        lambda: sql.execute(
            "SELECT pymem.consolidate('alice', ARRAY[[%s], [%s]]::uuid[], 'x', %s)",
            (ids[0], ids[1], unit(0)),
        ),
    )
    refused(sql, DimensionMismatch, "PM004", lambda: store.consolidate(USER, ids, "x", [1.0, 0.0]))
    refused(
        sql, InvalidEmbedding, "PM005", lambda: store.consolidate(USER, ids, "x", np.zeros(DIM))
    )
    assert snapshot(sql) == before


def test_details_only_grow(store, sql):
    a = mem(sql, "drinks tea", near(0, 1), details={"drink": "tea", "size": "large"})
    b = mem(sql, "drinks coffee", near(0, 2), details={"drink": "coffee"})
    c = mem(sql, "no sugar", near(0, 3), details={"sugar": False})
    later(sql, b, 1)
    # omitted keys are kept; a conflict between sources keeps the newer value
    # and the older one as an alternative; the caller's new keys are added
    rid = store.consolidate(USER, [a, b, c], "coffee, large, no sugar", unit(0), {"milk": "oat"})
    assert memory(sql, rid)["details"] == {
        "drink": "coffee",
        "size": "large",
        "sugar": False,
        "milk": "oat",
        "alternatives": {"drink": ["tea"]},
    }

    d = mem(sql, "d", near(5, 6), details={"city": "Paris"})
    e = mem(sql, "e", near(5, 7), details={"pet": "cat"})
    before = snapshot(sql)
    err = refused(
        sql,
        DetailsDropped,
        "PM042",
        lambda: store.consolidate(USER, [d, e], "moved", unit(5), {"city": "Rome"}),
    )
    assert 'city = "Paris"' in str(err) and str(d) in str(err)
    assert "alternatives" in (err.hint or "")
    assert snapshot(sql) == before
    rid = store.consolidate(
        USER, [d, e], "moved", unit(5), {"city": "Rome", "alternatives": {"city": ["Paris"]}}
    )
    assert memory(sql, rid)["details"] == {
        "city": "Rome",
        "pet": "cat",
        "alternatives": {"city": ["Paris"]},
    }
    f = mem(sql, "f", near(9, 10))
    g = mem(sql, "g", near(9, 11))
    for details in ({"alternatives": ["x"]}, {"alternatives": {"k": "v"}}):
        refused(
            sql,
            InvalidParameter,
            "PM006",
            lambda dt=details: store.consolidate(USER, [f, g], "x", unit(9), dt),
        )


def later(conn, memory_id, seconds: int) -> None:
    conn.execute(
        "UPDATE pymem.memories SET created_at = created_at + make_interval(secs => %s)"
        " WHERE id = %s",
        (seconds, memory_id),
    )


def test_a_record_consolidated_again_keeps_its_alternatives(store, sql):
    a = mem(sql, "a", near(0, 1), details={"drink": "tea"})
    b = mem(sql, "b", near(0, 2), details={"drink": "coffee"})
    later(sql, b, 1)
    r1 = store.consolidate(USER, [a, b], "coffee now", unit(0))
    later(sql, r1, 2)
    c = mem(sql, "c", near(0, 3), details={"drink": "water"})
    later(sql, c, 3)
    r2 = store.consolidate(USER, [r1, c], "water now", unit(0))
    assert memory(sql, r2)["details"] == {
        "drink": "water",
        "alternatives": {"drink": ["tea", "coffee"]},
    }


def test_a_fragment_written_again_reinforces_the_record(store, sql):
    ids = [
        store.upsert(USER, text, unit(i), "preference").memory_id
        for i, text in enumerate(["likes coffee", "drinks americano", "takes no sugar"])
    ]
    rid = store.consolidate(USER, ids, "Drinks americano without sugar", unit(5))
    before = memory(sql, rid)["mention_count"]
    again = store.upsert(USER, "Likes coffee!", unit(0), "preference", importance=0.9)
    assert (again.action, again.memory_id, again.matched_id) == ("duplicate", rid, ids[0])
    r = memory(sql, rid)
    assert r["mention_count"] == before + 1 and r["importance"] == 0.9
    assert memory(sql, ids[0])["importance"] == 0.05


def test_two_consolidators_racing_make_one_record(fresh_dsn):
    with psycopg.connect(fresh_dsn, autocommit=True) as setup:
        register_vector(setup)
        ids = fragments(setup)
    barrier = threading.Barrier(4, timeout=30)
    results: list = []
    errors: list = []

    def work(i: int) -> None:
        try:
            with MemoryStore(fresh_dsn) as s:
                s.get_settings()
                barrier.wait()
                results.append(s.consolidate(USER, ids[::-1] if i % 2 else ids, f"r{i}", unit(0)))
        except BaseException as exc:
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert len(set(results)) == 1
    with psycopg.connect(fresh_dsn) as check:
        assert check.execute("SELECT count(*) FROM pymem.consolidations").fetchone()[0] == 1
        assert (
            check.execute(
                "SELECT count(*) FROM pymem.memories WHERE consolidated_into IS NULL"
            ).fetchone()[0]
            == 1
        )


# -- contact links -------------------------------------------------------------------------

# Until migration 0006 (contacts) is on this branch, the test builds the
# shape the conventions fix for pymem.contact_links inside its rolled-back
# transaction; once it is, the real tables are used.
_STAND_IN = """
CREATE TABLE pymem.contacts (
    user_id text NOT NULL, id uuid NOT NULL DEFAULT gen_random_uuid(), name text NOT NULL,
    PRIMARY KEY (user_id, id));
CREATE TABLE pymem.contact_links (
    user_id text NOT NULL, contact_id uuid NOT NULL, memory_id uuid NOT NULL,
    found_by text NOT NULL CHECK (found_by IN ('write', 'sync', 'text', 'moved')),
    linked_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, contact_id, memory_id),
    FOREIGN KEY (user_id, contact_id) REFERENCES pymem.contacts (user_id, id) ON DELETE CASCADE,
    FOREIGN KEY (user_id, memory_id) REFERENCES pymem.memories (user_id, id) ON DELETE CASCADE)
"""


def _contact(conn, name: str) -> uuid.UUID:
    return conn.execute(
        "INSERT INTO pymem.contacts (user_id, name) VALUES (%s, %s) RETURNING id", (USER, name)
    ).fetchone()[0]


def _links(conn) -> set:
    return set(
        conn.execute(
            "SELECT contact_id, memory_id, found_by FROM pymem.contact_links WHERE user_id = %s",
            (USER,),
        ).fetchall()
    )


def test_contact_links_move_to_the_record_and_back(store, sql):
    if sql.execute("SELECT to_regclass('pymem.contact_links')").fetchone()[0] is None:
        sql.execute(_STAND_IN)
    ids = fragments(sql)
    ann, ben = _contact(sql, "Ann"), _contact(sql, "Ben")
    sql.execute(
        "INSERT INTO pymem.contact_links (user_id, contact_id, memory_id, found_by)"
        " VALUES (%s, %s, %s, 'write'), (%s, %s, %s, 'sync'), (%s, %s, %s, 'text')",
        (USER, ann, ids[0], USER, ann, ids[1], USER, ben, ids[2]),
    )
    before = _links(sql)
    rid = store.consolidate(USER, ids, "one record", unit(0))
    assert _links(sql) == {(ann, rid, "moved"), (ben, rid, "moved")}
    assert store.unconsolidate(USER, rid) == 3
    assert _links(sql) == before


def test_a_merge_of_two_people_while_consolidated_keeps_their_links_on_unconsolidate(store, sql):
    """Bobby's fragment and Robert's are consolidated, then Bobby is merged into Robert: the
    record keeps the links it moved under the survivor's id, so unconsolidate gives both
    fragments back to Robert (Bobby's was dropped with the deleted contact)."""
    ids = fragments(sql, n=2)
    robert = store.sync_contact(USER, "Robert", [ids[1]])
    store.sync_contact(USER, "Bobby", [ids[0]])
    rid = store.consolidate(USER, ids, "one record", unit(0))
    assert store.merge_contacts(USER, "Robert", "Bobby") == robert
    assert store.unconsolidate(USER, rid) == 2
    assert {(c, m) for c, m, _ in _links(sql)} == {(robert, ids[0]), (robert, ids[1])}


def test_unconsolidate_gives_a_deleted_fragments_links_to_the_restored_ones(store, sql):
    ids = fragments(sql)
    ann = _contact(sql, "Ann")
    sql.execute(
        "INSERT INTO pymem.contact_links (user_id, contact_id, memory_id, found_by)"
        " VALUES (%s, %s, %s, 'write')",
        (USER, ann, ids[0]),
    )
    rid = store.consolidate(USER, ids, "one record", unit(0))
    # a hand-written delete of a fragment while it is consolidated
    sql.execute("UPDATE pymem.memories SET deleted_at = now() WHERE id = %s", (ids[0],))
    assert store.unconsolidate(USER, rid) == 2
    assert _links(sql) == {(ann, ids[1], "moved"), (ann, ids[2], "moved")}


# -- unconsolidate -------------------------------------------------------------------------


def test_unconsolidate_restores_the_sources(store, sql):
    ids = fragments(sql)
    sql.execute(
        "UPDATE pymem.memories SET importance = 0.1 * (1 + (id = %s)::int) WHERE id = ANY(%s)",
        (ids[0], ids),
    )
    before = {i: memory(sql, i)["importance"] for i in ids}
    groups = store.consolidation_candidates(USER)
    rid = store.consolidate(USER, ids, "one record", unit(0))
    assert store.consolidation_candidates(USER) == []
    assert store.unconsolidate(USER, rid) == 3
    for i in ids:
        m = memory(sql, i)
        assert m["consolidated_into"] is None and m["importance"] == before[i]
    assert memory(sql, rid)["deleted_at"] is not None
    assert store.consolidation_candidates(USER) == groups
    # undone: the record is gone, and the set may be consolidated anew
    refused(sql, MemoryNotFound, "PM011", lambda: store.unconsolidate(USER, rid))
    assert store.consolidate(USER, ids, "again", unit(0)) != rid


def test_unconsolidate_refuses_what_it_cannot_undo(store, sql):
    ids = fragments(sql)
    rid = store.consolidate(USER, ids, "one record", unit(0))
    refused(sql, NotConsolidated, "PM045", lambda: store.unconsolidate(USER, ids[0]))
    refused(sql, MemoryNotFound, "PM011", lambda: store.unconsolidate(OTHER, rid))
    refused(sql, MemoryNotFound, "PM011", lambda: store.unconsolidate(USER, UNKNOWN))
    other = mem(sql, "more", near(0, 9))
    outer = store.consolidate(USER, [rid, other], "bigger record", unit(0))
    err = refused(sql, NotConsolidated, "PM045", lambda: store.unconsolidate(USER, rid))
    assert str(outer) in str(err)
    assert store.unconsolidate(USER, outer) == 2
    assert store.unconsolidate(USER, rid) == 3


def test_undo_leaves_consolidation_membership_to_unconsolidate(store, sql):
    """undo of a fragment would free it while pymem.consolidations still lists it
    (and its importance and links stayed with the record): refused, with the way out."""
    ids = fragments(sql)
    rid = store.consolidate(USER, ids, "one record", unit(0))
    err = refused(sql, ConsolidationMembership, "PM046", lambda: store.undo(USER, ids[0]))
    assert "take it out of" in str(err) and str(rid) in str(err)
    assert store.unconsolidate(USER, rid) == 3
    # nor back in: the fragment's previous version was inside the record
    err = refused(sql, ConsolidationMembership, "PM046", lambda: store.undo(USER, ids[0]))
    assert "put it back into" in str(err)
    assert memory(sql, ids[0])["consolidated_into"] is None
    # nor the record back to life beside its restored fragments
    err = refused(sql, ConsolidationMembership, "PM046", lambda: store.undo(USER, rid))
    assert "unconsolidate undid" in str(err)
    assert memory(sql, rid)["deleted_at"] is not None


# -- maintenance plans ---------------------------------------------------------------------


def _vec(i: int) -> list[float]:
    return unit(i).tolist()


def test_a_plan_applies_every_op_in_one_call(store, sql):
    ids = fragments(sql)
    upd = mem(sql, "lives in Paris", unit(20))
    gone = mem(sql, "obsolete", unit(21))
    same = mem(sql, "fine as is", unit(22))
    rows = store.apply_maintenance(
        USER,
        [
            {
                "op": "merge",
                "ids": [str(i) for i in ids],
                "content": "one",
                "embedding": _vec(0),
                "details": {"k": "v"},
            },
            {"op": "update", "id": str(upd), "content": "lives in Rome", "embedding": _vec(23)},
            {"op": "delete", "id": str(gone)},
            {"op": "no-change", "id": str(same)},
            {"op": "merge", "ids": [str(i) for i in ids], "content": "one", "embedding": _vec(0)},
        ],
    )
    rid = rows[0].memory_id
    assert [(r.op_index, r.op, r.memory_id, r.result) for r in rows] == [
        (1, "merge", rid, "merged"),
        (2, "update", upd, "updated"),
        (3, "delete", gone, "deleted"),
        (4, "no-change", same, "unchanged"),
        (5, "merge", rid, "already merged"),
    ]
    assert memory(sql, rid)["details"] == {"k": "v"}
    u = memory(sql, upd)
    assert u["content"] == "lives in Rome" and u["version"] == 2
    assert sql.execute(
        "SELECT content, reason FROM pymem.memory_versions WHERE memory_id = %s", (upd,)
    ).fetchall() == [("lives in Paris", "maintenance: update")]
    g = memory(sql, gone)
    assert g["deleted_at"] is not None and g["content"] == "obsolete"  # kept, restorable
    assert memory(sql, same)["version"] == 1
    store.undo(USER, gone)
    assert memory(sql, gone)["deleted_at"] is None


def _bad_ops(sql, ids, theirs):
    fine = {"op": "no-change", "id": str(ids[0])}
    return [
        ({"op": "update", "id": UNKNOWN, "content": "x", "embedding": _vec(1)}, MemoryNotFound,
         "PM011"),
        ({"op": "delete", "id": str(theirs)}, MemoryNotFound, "PM011"),
        ({"op": "merge", "ids": [str(ids[1]), str(theirs)], "content": "x", "embedding": _vec(1)},
         MemoryNotFound, "PM011"),
        ({"op": "update", "id": str(ids[1]), "content": "x"}, InvalidPlan, "PM043"),
        ({"op": "rename", "id": str(ids[1])}, InvalidPlan, "PM043"),
        ({"id": str(ids[1])}, InvalidPlan, "PM043"),
        ({"op": "delete", "id": 7}, InvalidPlan, "PM043"),
        ({"op": "delete", "id": "not-a-uuid"}, InvalidPlan, "PM043"),
        # an empty id passed the check and failed its cast with a raw 22P02
        ({"op": "delete", "id": ""}, InvalidPlan, "PM043"),
        ({"op": "merge", "ids": [str(ids[1]), ""], "content": "x", "embedding": _vec(1)},
         InvalidPlan, "PM043"),
        ({"op": "merge", "ids": str(ids[1]), "content": "x", "embedding": _vec(1)}, InvalidPlan,
         "PM043"),
        ({"op": "delete", "id": str(ids[1]), "force": True}, InvalidPlan, "PM043"),
        ({"op": "update", "id": str(ids[1]), "content": "x", "embedding": [1, "a"]},
         InvalidEmbedding, "PM005"),
        ({"op": "update", "id": str(ids[1]), "content": "x", "embedding": [1.0]},
         DimensionMismatch, "PM004"),
        ("delete", InvalidPlan, "PM043"),
    ], fine  # fmt: skip


def test_a_bad_op_anywhere_applies_nothing_and_names_its_index(store, sql):
    ids = fragments(sql, 0, 4)
    theirs = mem(sql, "theirs", unit(40), user=OTHER)
    bad_ops, fine = _bad_ops(sql, ids, theirs)
    good = [
        {"op": "merge", "ids": [str(i) for i in ids[2:]], "content": "m", "embedding": _vec(0)},
        {"op": "update", "id": str(ids[1]), "content": "changed", "embedding": _vec(3)},
        {"op": "delete", "id": str(ids[0])},
    ]
    before = snapshot(sql), snapshot(sql, OTHER)
    for bad, exc, code in bad_ops:
        for position in (0, 2, 4):
            plan = [*good[:2], fine, good[2]]
            plan.insert(position, bad)
            err = refused(sql, exc, code, lambda p=plan: store.apply_maintenance(USER, p))
            assert str(err).startswith(f"op {position + 1}: "), (bad, str(err))
            assert (snapshot(sql), snapshot(sql, OTHER)) == before
    # a guard of consolidate in a merge, and an op on a fragment of a record
    plan = [good[0], {**good[0], "ids": [str(i) for i in ids[1:]]}]
    err = refused(sql, AlreadyConsolidated, "PM041", lambda: store.apply_maintenance(USER, plan))
    assert str(err).startswith("op 2: ")
    plan = [good[0], {"op": "delete", "id": str(ids[3])}]
    err = refused(sql, AlreadyConsolidated, "PM041", lambda: store.apply_maintenance(USER, plan))
    assert str(err).startswith("op 2: ")
    assert (snapshot(sql), snapshot(sql, OTHER)) == before


def test_plan_size_and_shape(store, sql):
    mid = mem(sql, "x", unit(0))
    assert len(store.apply_maintenance(USER, [{"op": "no-change", "id": str(mid)}] * 100)) == 100
    err = refused(
        sql,
        PlanTooLarge,
        "PM044",
        lambda: store.apply_maintenance(USER, [{"op": "no-change", "id": str(mid)}] * 101),
    )
    assert "at most 100" in str(err)
    refused(
        sql,
        psycopg.Error,
        "PM043",
        lambda: sql.execute("SELECT * FROM pymem.apply_maintenance('alice', '{}')"),
    )
    assert store.apply_maintenance(USER, []) == []
    # one op given as the plan: the plan must be an array (its keys were read as ops)
    refused(
        sql,
        InvalidPlan,
        "PM043",
        lambda: store.apply_maintenance(USER, {"op": "no-change", "id": str(mid)}),
        "ops must be a JSON array of objects, got object",
    )


# -- events --------------------------------------------------------------------------------


def _events(listener: psycopg.Connection, sender: psycopg.Connection) -> list[dict]:
    """The events so far: everything before a marker the sender commits now."""
    sender.execute("NOTIFY pymem_events, 'marker'")
    events = []
    for n in listener.notifies(timeout=10):
        if n.payload == "marker":
            return events
        events.append(json.loads(n.payload))
    raise AssertionError("the marker did not arrive")


def test_consolidation_due_is_announced_once_per_topic(fresh_dsn):
    with (
        psycopg.connect(fresh_dsn, autocommit=True) as listener,
        MemoryStore(fresh_dsn) as store,
        psycopg.connect(fresh_dsn, autocommit=True) as raw,
    ):
        register_vector(raw)
        # fragments of one topic are also queued for review with each other (review_due,
        # sql/20_match.sql's same topic): not the announcement watched here
        raw.execute("UPDATE pymem.settings SET on_related = 'insert'")
        listener.execute("LISTEN pymem_events")
        ids = [store.upsert(USER, f"coffee fact {w}", unit(i), topic="coffee").memory_id
               for i, w in enumerate(["alpha", "beta"])]  # fmt: skip
        store.upsert(USER, "tea fact", unit(9), topic="tea")
        store.upsert(OTHER, "coffee fact gamma", unit(2), topic="coffee")
        assert _events(listener, raw) == []
        # a rolled-back third fragment announces nothing
        with pytest.raises(RuntimeError), raw.transaction():
            mem(raw, "coffee fact rolled back", unit(3), topic="coffee")
            raise RuntimeError
        assert _events(listener, raw) == []
        ids.append(store.upsert(USER, "coffee fact gamma", unit(2), topic="coffee").memory_id)
        (event,) = _events(listener, raw)
        assert event == {
            "user_id": USER,
            "event": "consolidation_due",
            "ids": [str(i) for i in ids],
            "count": 3,
            "size": 3,
        }
        store.upsert(USER, "coffee fact delta", unit(4), topic="coffee")
        assert _events(listener, raw) == []  # once per group
        rid = store.consolidate(USER, ids, "coffee record", unit(0))
        assert _events(listener, raw) == []  # the record is no new fragment
        # the topic refills: the record and two new fragments
        store.upsert(USER, "coffee fact epsilon", unit(5), topic="coffee")
        (event,) = _events(listener, raw)
        assert event["size"] == 3 and str(rid) in event["ids"]


# -- the application role -------------------------------------------------------------------


def test_the_app_role_consolidates_its_own_user_only(store, sql):
    ids = fragments(sql)
    theirs = fragments(sql, 10, user=OTHER)
    sql.execute("SET LOCAL ROLE pymem_app")
    sql.execute("SELECT set_config('pymem.user_id', %s, true)", (USER,))
    assert [g.member_ids for g in store.consolidation_candidates(USER)] == [sorted(ids)]
    # the wrapper acts for the user each call names; SQL naming another user
    # under this user's setting sees nothing
    theirs_seen = sql.execute("SELECT * FROM pymem.consolidation_candidates(%s)", (OTHER,))
    assert theirs_seen.fetchall() == []
    rid = store.consolidate(USER, ids, "one record", unit(0))
    refused(sql, MemoryNotFound, "PM011", lambda: store.consolidate(USER, theirs, "x", unit(0)))
    plan = [{"op": "no-change", "id": str(rid)}, {"op": "delete", "id": str(theirs[0])}]
    refused(sql, MemoryNotFound, "PM011", lambda: store.apply_maintenance(USER, plan))
    assert store.unconsolidate(USER, rid) == 3
    mem(sql, "coffee a", unit(50), topic="coffee")
    mem(sql, "coffee b", unit(51), topic="coffee")
    mem(sql, "coffee c", unit(52), topic="coffee")
    assert sql.execute("SELECT count(*) FROM pymem.consolidation_announcements").fetchone() == (1,)


# -- CLI -----------------------------------------------------------------------------------


def test_cli_dry_run_and_plan(fresh_dsn, tmp_path, capsys):
    with psycopg.connect(fresh_dsn, autocommit=True) as setup:
        register_vector(setup)
        ids = fragments(setup)
    assert main(["--dsn", fresh_dsn, "consolidate", "--user", USER, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "group 1: 3 memories" in out and "fragment a-a" in out

    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps([
        {"op": "merge", "ids": [str(i) for i in ids], "content": "one", "embedding": _vec(0)},
    ]))  # fmt: skip
    assert main(["--dsn", fresh_dsn, "consolidate", "--user", USER, "--plan", str(plan)]) == 0
    out = capsys.readouterr().out
    assert "op 1 merge" in out and ": merged" in out
    assert main(["--dsn", fresh_dsn, "consolidate", "--user", USER, "--dry-run"]) == 0
    assert "no candidate groups" in capsys.readouterr().out

    plan.write_text(json.dumps([{"op": "delete", "id": UNKNOWN}]))
    assert main(["--dsn", fresh_dsn, "consolidate", "--user", USER, "--plan", str(plan)]) == 2
    err = capsys.readouterr().err
    assert "op 1: no memory" in err and "PM011" in err
    plan.write_text("[{not json")
    assert main(["--dsn", fresh_dsn, "consolidate", "--user", USER, "--plan", str(plan)]) == 2
    assert "cannot read the plan" in capsys.readouterr().err
    # a content that is no text is the store's to refuse (it crashed the embedder)
    for content in (42, None):
        plan.write_text(json.dumps([{"op": "update", "id": str(ids[0]), "content": content}]))
        assert main(["--dsn", fresh_dsn, "consolidate", "--user", USER, "--plan", str(plan)]) == 2
        err = capsys.readouterr().err
        assert "PM043" in err and "Traceback" not in err, err
