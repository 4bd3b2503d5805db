"""Why a pair is decided as it is (sql/18_guards.sql, sql/23_explain.sql): every pair the
guards keep apart says which guard, in the write's rule, on its review and in
pymem.explain; a duplicate's rule is in the history."""

from __future__ import annotations

import pytest

from pymem import MemoryStore
from pymem.errors import InvalidParameter, PymemError
from tests.conftest import at_cosine, unit
from tests.test_upsert import DECISIONS, RELATED, USER


def steps(rows) -> dict[str, str]:
    return {r.step: r.finding for r in rows}


@pytest.mark.parametrize(
    ("old", "new", "cosine", "action", "rule"),
    [d for d in DECISIONS if d[4].startswith(RELATED + ";")],
)
def test_explain_names_the_guard_of_every_pair_kept_apart(store, old, new, cosine, action, rule):
    """The decision table's pairs in the related band that a guard kept from being one
    statement: pymem.explain shows each guard the rule names as fired, and the rule."""
    found = steps(store.explain(old, new, unit(0), at_cosine(cosine)))
    fired = rule.split("; not a duplicate: ", 1)[1].split(", ")
    for guard in fired:
        assert found[f"guard: {guard}"].startswith("fired"), (guard, found)
    for step, finding in found.items():
        if step.startswith("guard: ") and step[7:] not in fired:
            assert finding.startswith("clear"), (step, finding)
    assert found["decision"] == f"inserted, matched for review: {rule}"


def test_explain_shows_the_words_each_rule_read(store):
    found = steps(store.explain("Ada mentors Kim", "Kim mentors Ada", unit(0), at_cosine(0.99)))
    assert found["content terms"] == "{ada,mentor,kim} / {kim,mentor,ada}"
    assert found["guard: roles exchanged"] == (
        "fired (the shared terms in another order: ada mentor kim / kim mentor ada)"
    )
    found = steps(store.explain("My A1C is 7.2%", "My A1C is 6.8%", unit(0), at_cosine(0.85)))
    assert found["values (numbers, dates, negation)"] == "different: {1,7.2} / {1,6.8}"
    assert found["decision"] == "superseded: same statement, new value"
    found = steps(store.explain("Ivo likes tea", "Ivo likes tea.", unit(0), unit(0)))
    assert found["same normalized text"] == "yes"
    assert found["decision"] == "duplicate: same normalized text"
    # far apart: the words are not read, as the write path does not read them
    found = steps(store.explain("Ivo collects stamps", "Ivo owns a bicycle", unit(0), unit(1)))
    assert found["words"].startswith("not read")
    assert found["decision"] == "inserted: no rule applies (unrelated)"
    # a call's thresholds, as a write would pass them
    found = steps(store.explain("Ann likes cats", "Ann loves cats", unit(0), at_cosine(0.9),
                                dedup_threshold=0.85))  # fmt: skip
    assert found["decision"] == "duplicate: close embedding, same terms"


def test_explain_agrees_with_the_write_on_every_pair_of_the_table(store, conn):
    for old, new, cosine, _, rule in DECISIONS:
        conn.execute("SAVEPOINT pair")
        first = store.upsert(USER, old, unit(0))
        written = store.upsert(USER, new, at_cosine(cosine))
        if written.action == "inserted":
            assert written.memory_id != first.memory_id
            found = steps(store.explain_memories(USER, first.memory_id, written.memory_id))
            if rule != "no close memory":
                assert found["decision"] == f"inserted, matched for review: {rule}", old
        conn.execute("ROLLBACK TO SAVEPOINT pair")


def test_a_review_notes_why_the_pair_waits(store):
    old = store.upsert("ann", "Trains run from Lima to Cusco", unit(0))
    new = store.upsert("ann", "Trains run from Cusco to Lima", at_cosine(0.99))
    (review,) = store.pending_reviews("ann")
    assert review.note == new.rule == f"{RELATED}; not a duplicate: roles exchanged"
    assert (review.memory_id, review.matched_id) == (new.memory_id, old.memory_id)


def test_a_duplicate_that_changes_its_memory_says_which_rule_in_the_history(store):
    first = store.upsert("ann", "Ann drinks americano, no sugar", unit(0))
    again = store.upsert("ann", "Ann drinks americano without sugar", at_cosine(0.95),
                         details={"size": "large"})  # fmt: skip
    assert (again.action, again.memory_id) == ("duplicate", first.memory_id)
    (version,) = store.memory_history("ann", first.memory_id)
    assert version.reason == (
        "duplicate: close embedding, same terms, similarity 0.9500; details merged"
    )


def test_explain_refuses_what_it_cannot_read(store, conn):
    with pytest.raises(InvalidParameter), conn.transaction():
        store.explain(None, "Ann likes tea", unit(0), unit(0))
    with pytest.raises(PymemError) as err, conn.transaction():
        store.explain("Ann likes tea", "Ann likes cats", unit(0), [1.0, 0.0])
    assert err.value.sqlstate == "PM004"  # a vector of another dimension
    first = store.upsert("ann", "Ann likes tea", unit(0))
    with pytest.raises(PymemError) as err, conn.transaction():
        store.explain_memories("bob", first.memory_id, first.memory_id)
    assert err.value.sqlstate == "PM011"


def test_the_command_explains_two_texts_and_two_stored_memories(fresh_dsn, capsys, embedder):
    from pymem.cli import main

    older, newer = "Trains run from Lima to Cusco", "Trains run from Cusco to Lima"
    assert main(["--dsn", fresh_dsn, "explain", older, newer]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].split(None, 1) == [
        "decision",
        f"inserted, matched for review: {RELATED}; not a duplicate: roles exchanged",
    ]
    assert any(line.startswith("guard: roles exchanged") and "fired" in line for line in out)
    store = MemoryStore(fresh_dsn)
    with store:
        a, b = embedder([older, newer])
        first = store.upsert("ann", older, a)
        second = store.upsert("ann", newer, b)
    assert main(["--dsn", fresh_dsn, "explain", "--user", "ann",
                 str(first.memory_id), str(second.memory_id)]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines()[-1].endswith("roles exchanged")
    # an empty text is refused before the embedder runs, as a write refuses it
    assert main(["--dsn", fresh_dsn, "explain", older, " "]) == 2
    assert "PM002" in capsys.readouterr().err


# -- the seeds' own mode: on_related => 'supersede' --------------------------------------


def test_the_seeds_mode_takes_a_close_pair_as_one_statement_whatever_its_words(store, conn):
    """Seed 002's example: at or above the duplicate threshold the pair is a duplicate
    (the term-change guard superseded it), and the first text stays."""
    first = store.upsert("vi", "Prefers TypeScript", unit(0), on_related="supersede")
    again = store.upsert("vi", "Uses TypeScript", unit(0), on_related="supersede")
    assert (again.action, again.memory_id, again.rule) == (
        "duplicate", first.memory_id, "close embedding (on_related = supersede)"
    )  # fmt: skip
    assert [m.content for m in store.get_memories("vi")] == ["Prefers TypeScript"]
    # the default mode keeps its guards: another term, another statement
    other = store.upsert("wu", "Prefers TypeScript", unit(0))
    kept = store.upsert("wu", "Uses TypeScript", unit(0))
    assert kept.action == "inserted" and kept.matched_id == other.memory_id


def test_the_seeds_mode_keeps_values_and_negation_apart(store):
    store.upsert("vi", "Has 2 cats", unit(0), on_related="supersede")
    value = store.upsert("vi", "Has 3 cats", unit(0), on_related="supersede")
    assert (value.action, value.rule) == ("superseded", "same statement, new value")
    store.upsert("vi", "Likes jazz", unit(1), on_related="supersede")
    negated = store.upsert("vi", "Does not like jazz", unit(1), on_related="supersede")
    assert negated.action != "duplicate"


def test_in_the_seeds_mode_the_first_fact_of_a_batch_wins(store):
    results = store.upsert_many(
        "vi",
        [
            {"content": "Prefers TypeScript", "embedding": unit(0)},
            {"content": "Uses TypeScript", "embedding": unit(0)},
        ],
        on_related="supersede",
    )
    assert [r.action for r in results] == ["inserted", "duplicate"]
    assert results[1].memory_id == results[0].memory_id
    assert [m.content for m in store.get_memories("vi")] == ["Prefers TypeScript"]
