"""`pymem demo`: a scripted multi-session memory stream, end to end.

Runs on the embedded server (a fresh ``pymem_demo`` database) unless a DSN is
given, feeds English and Chinese facts through ``upsert_memories`` as an
assistant's extractor would, and prints what pymem decided at each step.
"""

from __future__ import annotations

import functools
import uuid
from datetime import datetime, timedelta, timezone

import psycopg

from pymem import server
from pymem.embedder import default_embedder
from pymem.migrate import migrate
from pymem.store import MemoryStore

SESSIONS: list[tuple[str, list[dict]]] = [
    (
        "Session 1 - Monday: getting to know the user",
        [
            {"content": "User drinks americano, no sugar", "kind": "preference"},
            {"content": "用户喜欢喝美式", "kind": "preference"},
            {"content": "User is learning React", "topic": "skill:react"},
            {"content": "Uses React for web apps", "topic": "project:web"},
            {"content": "用户每周跑步三次", "kind": "habit", "topic": "habit:running"},
            {
                "content": "User usually goes to bed at ten",
                "kind": "habit",
                "topic": "sleep:bedtime",
            },
            {
                "content": "User's favourite band is Coldplay",
                "kind": "preference",
                "importance": 0.2,
            },
            {"content": "Lower my A1C to 7%", "kind": "goal"},
            {"content": "My A1C is 7.2%", "kind": "fact"},
            {
                "content": "用户的女儿叫小美",
                "kind": "profile",
                "importance": 0.9,
                "pinned": True,
                "source": "confirmed",
            },
        ],
    ),
    (
        "Session 2 - three weeks later: the same things, said differently, and news",
        [
            {"content": "User drinks americano without sugar", "kind": "preference"},
            {"content": "用户非常喜欢喝美式", "kind": "preference"},
            {"content": "User is proficient in React", "topic": "skill:react"},
            {"content": "Uses React Native for mobile apps", "topic": "project:mobile"},
            {"content": "用户每周跑步五次", "kind": "habit", "topic": "habit:running"},
            {"content": "Lower my A1C to 6.5% by June", "kind": "goal"},
            {"content": "My A1C is 6.8%", "kind": "fact"},
            {"content": "User likes Coldplay's live albums", "kind": "preference"},
            {"content": "Meeting with Li Wei at 3pm on Friday", "kind": "event"},
            {"content": "Meeting with Li Wei at 4pm on Friday", "kind": "event"},
        ],
    ),
    (
        "Session 3 - this morning: a temporary state",
        [
            {"content": "User worked until 3 a.m. last night", "kind": "state"},
        ],
    ),
]


def _normalized(sql: psycopg.Connection, texts: list[str]) -> list[str]:
    """The texts as the write path compares them: pymem._normalize, the rule itself."""
    rows = sql.execute(
        "SELECT pymem._normalize(t) FROM unnest(%s::text[]) WITH ORDINALITY AS u (t, i) ORDER BY i",
        (texts,),
    ).fetchall()
    return [row[0] for row in rows]


def _print_actions(
    items: list[dict], results, sql: psycopg.Connection, stored: dict[uuid.UUID, str]
) -> None:
    """Each decision with its rule. ``stored``: the content of each memory written so far
    (by id, kept up to date here), for the memory a duplicate matched."""
    pad = " " * 26
    for item, r in zip(items, results, strict=True):
        sim = "" if r.similarity is None else f"sim {r.similarity:.2f}"
        tags = ", ".join(
            f"{k} {item[k]}" for k in ("kind", "topic", "importance") if item.get(k) is not None
        )
        print(f"  {r.ordinal:>2}. {r.action:<10} {sim:<9} {item['content']}")
        print(f"{pad}why: {r.rule}" + (f"  [{tags}]" if tags else ""))
        if r.action == "inserted" and r.matched_id is not None:
            print(f"{pad}queued for the app's review with a related memory")
        if r.rule == "same normalized text" and r.matched_id in stored:
            texts = [item["content"], stored[r.matched_id]]
            print(
                f"{pad}normalized: lower case, no intensifiers (very, 非常, ...),"
                " no spaces or punctuation"
            )
            for text, form, label in zip(
                texts, _normalized(sql, texts), ("", " (the stored memory)"), strict=True
            ):
                print(f"{pad}  {text!r} -> {form!r}{label}")
        if r.action in ("inserted", "superseded"):
            stored[r.memory_id] = item["content"]


def _reviews_demo(store: MemoryStore, user: str) -> None:
    """Related pairs the write path would not merge on cosine alone, settled by the app."""
    print("\n== The review queue: related pairs the app's LLM decides on")
    reviews = store.pending_reviews(user)
    for r in reviews:
        print(f"  {r.cause}: {r.content!r} ~ {r.matched_content!r} (sim {r.similarity:.2f})")
    if not reviews:
        print("  (empty)")
        return
    first = reviews[0]
    survivor = store.resolve_review(user, first.memory_id, "keep_both")
    print(f"  the app's LLM reads both: different facts -> keep_both ({survivor})")
    print(f"  still pending: {len(store.pending_reviews(user))}")


def _days(at: datetime | None, since: datetime) -> float:
    """Days from ``since`` to ``at`` (None: now), as decay counts them (never below 0)."""
    return max(0.0, ((at or datetime.now(timezone.utc)) - since).total_seconds() / 86400.0)


def _print_recall(title: str, hits, at: datetime | None = None) -> None:
    """Each hit with its strength's factors: its importance, days since its last mention."""
    print(f"\n  recall: {title}")
    if not hits:
        print("    (nothing)")
    for h in hits:
        print(
            f"    score {h.score:5.2f}  sim {h.similarity:5.2f}  strength {h.decay_score:5.3f}"
            f" (importance {h.importance:.2f}, {_days(at, h.last_access_at):3.0f} days)"
            f"  {h.tier:<4} {h.kind:<10} {h.content}"
        )


def _facts_demo(store: MemoryStore, user: str, sql: psycopg.Connection) -> None:
    """Structured facts: a replaced value with its history, a conflict asked and answered.
    The policy it needs is the store's (every user's) for the demo's run only: a store of
    yours (--dsn) keeps its own afterwards (it was overwritten with ``confirm``)."""
    previous = sql.execute(
        "SELECT policy FROM pymem.fact_policies WHERE key_pattern = 'likes_*'"
    ).fetchone()
    try:
        _facts_demo_steps(store, user)
    finally:
        store.set_fact_policy("likes_*", previous[0] if previous else None)


def _facts_demo_steps(store: MemoryStore, user: str) -> None:
    print("\n== Facts: the user moved, and two confident sources disagree")
    for city in ("Hangzhou", "Shanghai"):
        print(f"  set_fact user_city = {city!r}: {store.set_fact(user, 'user_city', city)}")
    for h in store.fact_history(user, "user_city"):
        print(f"    history: {h.value!r:<12} {h.reason}")
    store.set_fact_policy("likes_*", "confirm")
    for os_name in ("Windows", "Mac"):
        action = store.set_fact(user, "likes_os", os_name, confidence="high")
        print(f"  set_fact likes_os = {os_name!r} (high): {action}")
    for c in store.pending_conflicts(user):
        print(f"  pending: {c.fact_key} {c.value!r} vs {c.candidate_value!r} - ask the user")
    facts = store.current_facts(user)
    waiting = [f.key for f in facts if f.conflict_pending]
    print(
        f"  contradiction rate: {store.contradiction_rate(user):.0%} (the share of the user's facts"
        f" whose sources disagree\n  and wait for an answer: {len(waiting)} of {len(facts)},"
        f" {', '.join(waiting)})"
    )
    print(f"  the user says Mac: {store.resolve_conflict(user, 'likes_os', 'Mac')}")
    print(
        f"  get_fact likes_os = {store.get_fact(user, 'likes_os')!r}, "
        f"contradiction rate {store.contradiction_rate(user):.0%}"
    )


def _demo_dsn(dsn: str | None) -> str:
    if not server.uses_embedded(dsn):
        return server.resolve_dsn(dsn)
    admin = server.start_embedded(database="postgres")
    server.recreate_scratch_database(admin, "pymem_demo", owner="pymem demo")
    return server.start_embedded(database="pymem_demo")


def run_demo(dsn: str | None = None) -> int:
    dsn = _demo_dsn(dsn)
    migrate(dsn)
    embed = default_embedder()
    user = f"demo-{uuid.uuid4().hex[:8]}"
    with MemoryStore(dsn) as store, psycopg.connect(dsn, autocommit=True) as sql:
        settings = embed.configure(store)
        print(f"pymem demo - user {user}, embedder {settings.embedding_model}")
        print(
            f"thresholds: duplicate >= {settings.dedup_threshold} with at most "
            f"{settings.dedup_term_change:.0%} of the terms changed; related (review) >= "
            f"{settings.supersede_threshold}; same topic supersedes from there, or >= "
            f"{settings.topic_supersede_threshold} when both state their value (canonical)"
        )

        stored: dict[uuid.UUID, str] = {}
        for title, items in SESSIONS:
            print(f"\n== {title}")
            vectors = embed([i["content"] for i in items])
            batch = [dict(i, embedding=v) for i, v in zip(items, vectors, strict=True)]
            _print_actions(items, store.upsert_many(user, batch), sql, stored)

        _reviews_demo(store, user)

        def recall(query: str, k: int = 3, **options):
            return store.recall(user, embed([query])[0], k=k, query_text=query, **options)

        print("\n== Recall")
        print(
            "  strength = importance x exp(-decay rate x days since the last mention):"
            " a new memory starts at its importance"
        )
        _print_recall("How did the user sleep?", recall("How did the user sleep?"))
        _print_recall("用户喜欢喝什么？", recall("用户喜欢喝什么？"))
        _print_recall("What is the user's React level?", recall("What is the user's React level?"))

        _decay_demo(store, embed, user, later=datetime.now(timezone.utc) + timedelta(days=200))

        _facts_demo(store, user, sql)

        print("\n== The store")
        hits = store.recall(user, embed(["everything about the user"])[0], k=50, include_cold=True)
        for h in sorted(hits, key=lambda h: (h.kind, h.content)):
            flag = " pinned" if h.pinned else ""
            print(f"  {h.tier:<4} {h.kind:<10} {h.content}{flag}")
        print(
            f"\n{len(hits)} memories from "
            f"{sum(len(items) for _, items in SESSIONS) + 1} statements."
        )

        _demo_contacts(store, embed, user)
        _demo_consolidation(store, embed, user)
    return 0


# -- decay and a re-mention ------------------------------------------------------

MUSIC = "What music does the user like?"


def _decay_demo(store: MemoryStore, embed, user: str, later: datetime) -> None:
    """Trivia fades to the cold tier, the demo says where it went, a re-mention revives it."""
    vector = embed([MUSIC])[0]

    def recall(k: int = 3, **options):
        return store.recall(user, vector, k=k, query_text=MUSIC, **options)

    print("\n== 200 days pass without a word about music")
    print("  (apply_decay and recall are given the demo's clock: at = now + 200 days)")
    decay = store.apply_decay(user_id=user, at=later)
    print(f"  apply_decay: scanned {decay.scanned}, moved to cold {decay.cooled}")
    hot = recall(at=later)
    _print_recall(MUSIC, hot, later)
    best = max((h.similarity for h in hot), default=-1.0)
    cold = [h for h in recall(k=10, at=later, include_cold=True) if h.tier == "cold"]
    better = sorted(h.similarity for h in cold if h.similarity > best)
    if better:
        print(
            f"    {len(better)} memories of the cold tier match better than these"
            f" (similarity {better[0]:.2f}-{better[-1]:.2f}, here at most {best:.2f}):\n"
            "    recall leaves the cold tier out unless include_cold=True;"
            " a re-mention brings a memory back"
        )
    _print_recall(f"{MUSIC} (include_cold=True)", recall(at=later, include_cold=True), later)

    print("\n== The user mentions Coldplay again")
    again = "User's favourite band is Coldplay"
    r = store.upsert(user, again, embed([again])[0], "preference", importance=0.2)
    hits = recall()  # at the real time: the mention was stamped with it
    (back,) = [h for h in hits if h.memory_id == r.memory_id]
    print(
        f"  {r.action} ({r.rule}): the memory is {back.tier} again, its clock restarted by the"
        f" mention:\n  {_days(None, back.last_access_at):.0f} days since it, so its strength is"
        f" its importance, {back.decay_score:.3f} ({back.importance:.2f}: the band was rated"
        " trivia).\n  The mention is stamped with the database's real time (only apply_decay and"
        " recall took the\n  demo's clock), so this recall is at the real time: no memory has"
        " aged, each strength = importance"
    )
    _print_recall(MUSIC, hits)


# -- contacts ------------------------------------------------------------------

FRIEND_FACTS = [
    "小红在腾讯工作",
    "小红养了一只猫，叫团子",
    "小红下个月来北京出差",
    "Xiaohong is learning to surf",
    "小红不吃香菜",
]


def _demo_contacts(store: MemoryStore, embed, user: str) -> None:
    print("\n== People: five facts about 小红 (Xiaohong), linked to her as they are written")
    store.sync_contact(user, "小红", relationship="friend", aliases=["Xiaohong"])
    vectors = embed(FRIEND_FACTS)
    store.upsert_many(
        user,
        [
            {"content": text, "embedding": vector, "contacts": ["小红"]}
            for text, vector in zip(FRIEND_FACTS, vectors, strict=True)
        ],
    )
    message = "小红最近怎么样？"
    print(f"  message: {message}")
    for person in store.mentioned_contacts(user, message):
        print(f"  mentions {person.name}; her card:")
        for line in store.contact_card(user, person.contact_id).splitlines():
            print(f"    {line}")


# -- consolidation ---------------------------------------------------------------

COFFEE_FRAGMENTS = [
    ("User has a coffee every morning", {"when": "morning"}),
    ("User takes oat milk in coffee", {"milk": "oat"}),
    ("User wants the large cup", {"size": "large"}),
]


def _demo_consolidation(store: MemoryStore, embed, user: str) -> None:
    from pymem.errors import AlreadyConsolidated

    print("\n== Consolidation: three fragments about coffee become one record")
    texts = [text for text, _ in COFFEE_FRAGMENTS]
    ids = []
    for (text, details), vector in zip(COFFEE_FRAGMENTS, embed(texts), strict=True):
        r = store.upsert(user, text, vector, "preference", details=details)
        print(f"  {r.action:<10} {text}")
        if r.memory_id not in ids:
            ids.append(r.memory_id)
    summary = "User has a large coffee with oat milk every morning"
    record = store.consolidate(user, ids, summary, embed([summary])[0])
    print(f"  consolidated {len(ids)} fragments into {record}: {summary}")
    again = store.consolidate(user, list(reversed(ids)), summary, embed([summary])[0])
    print(f"  the same fragments again: the same record ({again == record})")
    other = store.upsert(user, "User drinks tea at night", embed(["tea at night"])[0], "habit")
    try:
        store.consolidate(user, [ids[0], other.memory_id], "coffee and tea", embed(["x"])[0])
    except AlreadyConsolidated as exc:
        print(f"  refused [{exc.sqlstate}]: {exc}")
    hit = store.recall(user, embed(["How does the user take coffee?"])[0], k=1)[0]
    print(f"  recall 'How does the user take coffee?': {hit.content} {hit.details}")


# -- the model half: `pymem demo --llm URL --model NAME` -------------------------

CONVERSATION = [
    {"role": "user", "content": "Hi, I'm Lu. I live in Porto and work as a nurse."},
    {"role": "assistant", "content": "Nice to meet you, Lu."},
    {"role": "user", "content": "My sister Ana lives in Braga, she teaches maths."},
    {"role": "assistant", "content": "Does she like it?"},
    {"role": "user", "content": "She loves it. I drink green tea every morning, sencha."},
    {"role": "user", "content": "我这周在家办公，猫刚做完手术。"},
    {"role": "assistant", "content": "希望它早日康复。"},
    {"role": "user", "content": "I brew the sencha at 70 degrees, never hotter."},
    {"role": "user", "content": "Ana is moving to Lisbon next month for a new school."},
    {"role": "user", "content": "Actually, I just moved to Lisbon too!"},
]


def run_llm_demo(dsn: str | None, chat) -> int:
    """A conversation through a model: extraction (``remember``), then the jobs that
    tidy the store (a topic's record, a person's profile, a reflection), each decision
    and refusal printed with what it cost. Against a real model the answers are the
    model's; nothing here checks their quality."""
    from pymem.chat import ModelError
    from pymem.jobs import consolidate_group, reflect, write_profile

    dsn = _demo_dsn(dsn)
    migrate(dsn)
    embed = default_embedder()
    user = f"demo-{uuid.uuid4().hex[:8]}"
    start = datetime.now(timezone.utc) - timedelta(minutes=len(CONVERSATION))
    messages = [
        dict(m, at=(start + timedelta(minutes=i)).isoformat()) for i, m in enumerate(CONVERSATION)
    ]
    with MemoryStore(dsn) as store:
        embed.configure(store)
        print(f"pymem demo --llm - user {user}, model {chat.model} at {chat.url}")
        print(f"\n== A conversation of {len(messages)} messages, extracted by the model")
        try:
            done = store.remember(user, messages, chat, embed)
        except ModelError as exc:
            print(f"  the model's answer was refused: {exc}")
            return 1
        for m in done.memories:
            said = m.item["content"]
            why = f"{m.error} [{m.sqlstate}]" if m.action == "refused" else m.rule
            print(f"  {m.action:<10} {said} ({why})")
        calls, tokens = done.per_100_messages()
        print(f"  {done.calls} calls, {done.prompt_tokens + done.completion_tokens} tokens "
              f"({calls:.0f} calls and {tokens:.0f} tokens per 100 messages)")  # fmt: skip
        jobs = []
        # the groups pymem.consolidation_candidates finds (what consolidation_due
        # announces for a topic that fills up)
        for group in store.consolidation_candidates(user):
            job = functools.partial(consolidate_group, store, user, group.member_ids, chat, embed)
            jobs.append((f"the record of {group.size} related memories", job))
        for person in store.recent_contacts(user):
            job = functools.partial(write_profile, store, user, person.name, chat)
            jobs.append((f"the profile of {person.name}", job))
        jobs.append(("a reflection", functools.partial(reflect, store, user, chat, embed)))
        print("\n== The model tidies the store")
        for title, job in jobs:
            try:
                result = job()
            except Exception as exc:  # the store's or the model's refusal, printed
                code = getattr(exc, "sqlstate", None)
                print(f"  {title}: refused{f' [{code}]' if code else ''}: {exc}")
                continue
            if result.refused:
                outcome = f"refused: {result.refused}"
            elif result.record is not None:
                outcome = f"written, memory {result.record}"
            else:
                outcome = f"{len(result.applied)} ops applied"
            print(f"  {title}: {outcome} ({result.calls} call)")
        print("\n== The store")
        for memory in store.get_memories(user):
            print(f"  {memory.kind:<10} {memory.content}")
    return 0
