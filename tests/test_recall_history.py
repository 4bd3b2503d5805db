"""recall's include_history: the earlier values of live memories (issue 34, migration
0026, sql/32_earlier_values.sql).

A supersede keeps the old value in history, not as a way to find the current one. A
store that settled its reviews has retired the old values, and a question about the past
("where did Mei live before she moved?") found nothing there that a store keeping
everything still answered. Asked with include_history, recall ranks the earlier values of
the user's live memories too, each a row of its own with superseded_at, never above its
memory's current value, and not for a question about the present (where it only lifts its
current value).
"""

from __future__ import annotations

from tests.conftest import at_cosine, unit
from tests.test_text_ranking import written_earlier

USER = "mei"
LEEDS = "Mei lives in a flat in Leeds"
LONDON = "Mei lives in Camden, London"


def moved(store):
    """Mei's home, Leeds (unit(0)) then London (0.6 to it): a supersede by the topic
    alone, far apart by vector (the seeds' plain band)."""
    home = store.upsert(USER, LEEDS, unit(0), topic="home")
    now = store.upsert(USER, LONDON, at_cosine(0.6, 0, 1), topic="home", on_related="supersede")
    assert (now.action, now.memory_id) == ("superseded", home.memory_id)
    return home.memory_id


def shown(hits):
    return [(h.content, h.superseded_at is not None) for h in hits]


def test_an_earlier_value_is_returned_below_its_current_value(store):
    home = moved(store)
    assert shown(store.recall(USER, unit(0))) == [(LONDON, False)]
    current, earlier = store.recall(USER, unit(0), include_history=True)
    assert shown([current, earlier]) == [(LONDON, False), (LEEDS, True)]
    assert current.memory_id == earlier.memory_id == home
    assert abs(earlier.similarity - 1.0) < 1e-6 and abs(current.similarity - 0.6) < 1e-6
    # the current value takes its earlier one's score and wins the tie
    assert current.score == earlier.score
    (version,) = [v for v in store.memory_history(USER, home) if v.content == LEEDS]
    assert earlier.superseded_at == version.changed_at


def test_the_current_value_comes_from_outside_the_best_with_its_earlier_one(store):
    """k=2: tea (0.8 to the question) outranks London (0.6); Leeds (1.0) brings London
    above itself, and tea goes."""
    moved(store)
    store.upsert(USER, "Mei drinks green tea every morning", at_cosine(0.8, 0, 3))
    plain = store.recall(USER, unit(0), 2)
    assert [h.content for h in plain] == ["Mei drinks green tea every morning", LONDON]
    assert shown(store.recall(USER, unit(0), 2, include_history=True)) == [
        (LONDON, False), (LEEDS, True),
    ]  # fmt: skip
    # k=1: the current value alone (its earlier one ties just below it)
    assert shown(store.recall(USER, unit(0), 1, include_history=True)) == [(LONDON, False)]


def test_a_question_about_the_present_gets_no_earlier_values(store):
    moved(store)
    now = store.recall(USER, unit(0), query_text="Where does Mei live now?", include_history=True)
    assert shown(now) == [(LONDON, False)]
    before = store.recall(
        USER, unit(0), query_text="Where did Mei live before?", include_history=True
    )
    # asked about before, the earlier value takes its current one's place (below)
    assert shown(before) == [(LEEDS, True), (LONDON, False)]


def test_asked_about_before_an_earlier_value_ranks_above_its_current_one(store):
    """pymem._asks_about_before: the earlier value takes its current value's score and
    wins the tie, even when the question's vector is the current value's."""
    moved(store)
    london = at_cosine(0.6, 0, 1)
    asked = "Where did Mei live before she moved to London?"
    hits = store.recall(USER, london, 2, query_text=asked, include_history=True)
    assert shown(hits) == [(LEEDS, True), (LONDON, False)]
    assert hits[0].score == hits[1].score
    plain = store.recall(USER, london, 2, query_text="Where does Mei live?", include_history=True)
    assert shown(plain) == [(LONDON, False), (LEEDS, True)]


def test_asked_about_before_the_older_of_two_live_values_ranks_first(store, conn):
    """Two live values of one thing (the same topic, their review pending): the newer
    ranks above the older; asked about before, the older takes the newer's score and wins
    the tie, from outside the k as the newer does the other way."""
    old = store.upsert(USER, LEEDS, unit(0), topic="home")
    new = store.upsert(USER, LONDON, at_cosine(0.6, 0, 1), topic="home")
    assert new.action == "inserted"  # both live
    written_earlier(conn, old.memory_id)
    tea = "Mei drinks green tea every morning"
    store.upsert(USER, tea, at_cosine(0.5, 1, 3))
    asked = unit(1)  # London's direction: 0.8 to London, 0 to Leeds, 0.5 to tea

    def contents(question, k):
        return [h.content for h in store.recall(USER, asked, k, query_text=question)]

    assert contents("Where does Mei live?", 3) == [LONDON, tea, LEEDS]
    assert contents("Where did Mei live before?", 2) == [LEEDS, LONDON]
    assert contents("Mei 以前住在哪里？", 1) == [LEEDS]


def test_asked_about_the_present_an_earlier_value_still_lifts_its_current_value(store):
    """Not shown, the earlier value still ranks its current one as a store that kept both
    values would (the older lifts the newer): tea (0.95 to the question) stays below
    London (0.6), whose earlier value, Leeds, is the question's own vector."""
    moved(store)
    tea = "Mei drinks green tea every morning"
    store.upsert(USER, tea, at_cosine(0.95, 0, 3))
    asked = "Where does Mei live now?"
    assert [h.content for h in store.recall(USER, unit(0), 1, query_text=asked)] == [tea]
    lifted = store.recall(USER, unit(0), 2, query_text=asked, include_history=True)
    assert shown(lifted) == [(LONDON, False), (tea, False)]


def test_what_is_not_an_earlier_value_is_not_returned(store, conn):
    """A version that kept the text (a topic changed) is no earlier value; the history of
    a deleted memory is gone with it."""
    home = moved(store)
    conn.execute(
        "UPDATE pymem.memories SET topic = 'residence' WHERE user_id = %s AND id = %s",
        (USER, home),
    )
    assert shown(store.recall(USER, unit(0), include_history=True)) == [
        (LONDON, False), (LEEDS, True),
    ]  # fmt: skip
    conn.execute(
        "UPDATE pymem.memories SET deleted_at = now() WHERE user_id = %s AND id = %s",
        (USER, home),
    )
    assert store.recall(USER, unit(0), include_history=True) == []


def test_the_memorys_filters_hold_for_its_earlier_values(store):
    moved(store)
    assert store.recall(USER, unit(0), kinds=["preference"], include_history=True) == []
    assert store.recall(USER, unit(0), filter={"source": "x"}, include_history=True) == []
    # min_similarity is the earlier text's own: Leeds passes; London (0.6) would not
    # alone, and comes above its earlier value
    hits = store.recall(USER, unit(0), min_similarity=0.9, include_history=True)
    assert shown(hits) == [(LONDON, False), (LEEDS, True)]
    assert shown(store.recall(USER, unit(0), min_similarity=0.9)) == []


def test_touch_reinforces_the_memory_once(store, conn):
    home = moved(store)
    before = conn.execute(
        "SELECT access_count FROM pymem.memories WHERE user_id = %s AND id = %s", (USER, home)
    ).fetchone()[0]
    assert len(store.recall(USER, unit(0), touch=True, include_history=True)) == 2
    after = conn.execute(
        "SELECT access_count FROM pymem.memories WHERE user_id = %s AND id = %s", (USER, home)
    ).fetchone()[0]
    assert after == before + 1


def test_from_sql_by_name(store, conn):
    moved(store)
    rows = conn.execute(
        "SELECT content, superseded_at IS NOT NULL FROM pymem.recall(%s, %s::vector, 5,"
        " include_history => true)",
        (USER, str(unit(0).tolist())),
    ).fetchall()
    assert rows == [(LONDON, False), (LEEDS, True)]


def test_a_value_newer_than_the_current_one_stays_above_both(store, conn):
    """Paris replaced London (history); Berlin, of the same topic, came after Paris and
    waits beside it. London's score lifts Paris, and Paris's lifted score lifts Berlin:
    the newest value first, whichever of them the question is close to."""
    moved(store)  # Leeds (unit(0)) -> London
    berlin = store.upsert(USER, "Mei lives in Berlin", at_cosine(0.4, 0, 2), topic="home")
    assert berlin.action == "inserted"
    # written later than Paris (the test's writes share one transaction, and its time)
    conn.execute(
        "UPDATE pymem.memories SET updated_at = now() + interval '1 minute' WHERE id = %s",
        (berlin.memory_id,),
    )
    newest = ["Mei lives in Berlin", LONDON, LEEDS]
    assert [h.content for h in store.recall(USER, unit(0), 3, include_history=True)] == newest
    assert [h.content for h in store.recall(USER, unit(0), 1, include_history=True)] == newest[:1]
    # London from outside the best (tea is closer than it), brought by Leeds
    store.upsert(USER, "Mei drinks green tea every morning", at_cosine(0.8, 0, 3))
    assert [h.content for h in store.recall(USER, unit(0), 1, include_history=True)] == newest[:1]
    assert [h.content for h in store.recall(USER, unit(0), 4, include_history=True)] == [
        *newest, "Mei drinks green tea every morning",
    ]  # fmt: skip


def test_only_a_value_a_newer_one_replaced_is_an_earlier_value(store):
    """A review's supersede leaves an earlier value as a write's does; an undo does not
    (the text it took back is no value of the past), nor an app's own edit."""
    home = store.upsert(USER, LEEDS, unit(0), topic="home")
    again = store.upsert(USER, LONDON, at_cosine(0.6, 0, 1), topic="home")
    assert (again.action, again.matched_id) == ("inserted", home.memory_id)
    store.resolve_review(USER, again.memory_id, "supersede")
    assert shown(store.recall(USER, unit(0), include_history=True)) == [
        (LONDON, False), (LEEDS, True),
    ]  # fmt: skip
    store.undo(USER, home.memory_id)
    assert shown(store.recall(USER, unit(1), include_history=True)) == [(LEEDS, False)]
    tea = store.upsert("ann", "Ann likes tea", unit(5)).memory_id
    store.apply_maintenance("ann", [{
        "op": "update", "id": str(tea), "content": "Ann likes green tea",
        "embedding": unit(5).tolist(),
    }])  # fmt: skip
    assert shown(store.recall("ann", unit(5), include_history=True)) == [
        ("Ann likes green tea", False)
    ]


def test_of_many_values_newer_than_a_best_one_the_k_that_rank_first_are_shown(store, conn):
    """Six later values of Mei's home (none close to the question) each take Leeds's score:
    recall keeps only the k of them that can be shown, and they are the newest, above Leeds;
    asked about before, the six are earlier than Leeds and the oldest come first."""
    leeds = store.upsert(USER, LEEDS, unit(0), topic="home")
    homes = []
    for i, town in enumerate(["York", "Hull", "Bath", "Ely", "Wells", "Ripon"]):
        w = store.upsert(USER, f"Mei lives in {town}", unit(2 + i), topic="home")
        assert w.action == "inserted"
        homes.append((w.memory_id, f"Mei lives in {town}"))
    # close to Leeds, so each waits in a review with it: written before it, neither is a
    # newer value of it
    tea = store.upsert(USER, "Mei drinks green tea every morning", at_cosine(0.9, 0, 9))
    cat = store.upsert(USER, "Mei has a cat called Miso", at_cosine(0.8, 0, 10))

    def dated(days_by_id):
        for memory_id, days in days_by_id.items():
            conn.execute(
                "UPDATE pymem.memories SET updated_at = now() + make_interval(days => %s)"
                " WHERE id = %s",
                (days, memory_id),
            )

    def contents(k, question=None):
        return [h.content for h in store.recall(USER, unit(0), k, query_text=question)]

    # Leeds first, then York ... Ripon, a day apart
    dated({tea.memory_id: -1, cat.memory_id: -1, leeds.memory_id: 0})
    dated({m: 1 + i for i, (m, _) in enumerate(homes)})
    newest = [text for _, text in reversed(homes)]
    assert contents(3) == newest[:3]
    assert contents(8) == [*newest, LEEDS, "Mei drinks green tea every morning"]
    # York ... Ripon first, Leeds last: asked about before, the oldest values first
    dated({leeds.memory_id: 10})
    oldest = [text for _, text in homes]
    assert contents(3, "Where did Mei live before?") == oldest[:3]


def test_a_newer_value_of_two_best_ones_is_cut_at_the_higher_of_their_scores(store, conn):
    """Bath (0.5 to the question) and Leeds (1.0) are both among the best; York, Hull and
    Ely came after both, Otley after Leeds only. Each later value stands at the best
    score of the values it is newer than (Leeds's), so the newest three are shown; a cut
    at the lower score (Bath's) kept Otley in place of York, and Bath came third."""
    leeds = store.upsert(USER, LEEDS, unit(0), topic="home")
    tea = store.upsert(USER, "Mei drinks green tea every morning", at_cosine(0.9, 0, 9))
    otley = store.upsert(USER, "Mei lives in Otley", unit(2), topic="home")
    bath = store.upsert(USER, "Mei lives in Bath", at_cosine(0.5, 0, 3), topic="home")
    later = [
        store.upsert(USER, f"Mei lives in {town}", unit(4 + i), topic="home")
        for i, town in enumerate(["York", "Hull", "Ely"])
    ]
    assert {w.action for w in [otley, bath, *later]} == {"inserted"}
    hours = {
        tea: -24,
        leeds: 0,
        otley: 12,
        bath: 24,
        **{w: 48 + 24 * i for i, w in enumerate(later)},
    }
    for w, h in hours.items():
        conn.execute(
            "UPDATE pymem.memories SET updated_at = now() + make_interval(hours => %s)"
            " WHERE id = %s",
            (h, w.memory_id),
        )
    shown = [h.content for h in store.recall(USER, unit(0), 3)]
    assert shown == ["Mei lives in Ely", "Mei lives in Hull", "Mei lives in York"]
