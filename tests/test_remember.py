"""Conversations in (pymem.extract, MemoryStore.remember, `pymem remember --conversation`):
a real local server speaks the chat completions protocol with scripted answers, the
database and the bundled embedder are real."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import datetime, timedelta, timezone

import pytest

from pymem import AsyncMemoryStore, MemoryStore
from pymem.chat import AsyncChatClient, ChatClient, MalformedAnswer
from pymem.extract import JOB, SCHEMA
from tests.chat_server import ChatServer, Request, content

pytest.importorskip("httpx")

USER = "lu"


# the conversation's days: yesterday and today (a state it names must still hold)
TODAY = datetime.now(timezone.utc).replace(hour=9, minute=0, second=0, microsecond=0)
YESTERDAY = TODAY - timedelta(days=1)
# the Monday after TODAY: still ahead on a Monday (the Monday after a Sunday YESTERDAY was
# today's midnight, already past, and the store refused the state all Monday)
WEEK_END = (TODAY + timedelta(days=7 - TODAY.weekday())).replace(hour=0)


def said(day: datetime, role: str, text: str) -> dict:
    return {"role": role, "content": text, "at": day.isoformat()}


# twelve messages: two requests of ten at most
CONVERSATION = [
    said(YESTERDAY, "user", "Hi! I'm Lu, I live in Porto."),
    said(YESTERDAY, "assistant", "Nice to meet you, Lu."),
    said(YESTERDAY, "user", "This week I work from home, my cat just had surgery."),
    said(YESTERDAY, "assistant", "I hope she gets better soon."),
    said(YESTERDAY, "user", "My sister Ana is a nurse in Braga."),
    said(YESTERDAY, "assistant", "That is a demanding job."),
    said(YESTERDAY, "user", "I also love hiking on weekends."),
    said(YESTERDAY, "assistant", "Where do you hike?"),
    said(YESTERDAY, "user", "Mostly in Peneda-Gerês."),
    said(YESTERDAY, "assistant", "Beautiful park."),
    said(TODAY, "user", "Big news: I moved to Lisbon last week!"),
    said(TODAY, "assistant", "Congratulations on the move."),
]


def memory(text: str, kind: str = "fact", **keys) -> dict:
    item = {"content": text, "kind": kind, "topic": None, "canonical": None, "contacts": [],
            "valid_until": None, "importance": None, "source": "stated"}  # fmt: skip
    item.update(keys)
    return item


def answer(*items: dict, prose: str = "") -> str:
    text = json.dumps({"memories": list(items)})
    return f"{prose}{text}{' Hope this helps.' if prose else ''}"


FIRST = [
    memory("Lu lives in Porto", topic="home:city", canonical="Porto"),
    memory(
        "Lu works from home this week because her cat had surgery",
        "state",
        valid_until=WEEK_END.isoformat(),
    ),
    memory("Lu's sister Ana is a nurse in Braga", contacts=["Ana"], importance=0.7),
    memory("Lu loves hiking in Peneda-Gerês on weekends", "preference", topic="hobby:hiking"),
]
MOVED = memory("Lu moved to Lisbon", topic="home:city", canonical="Lisbon")


def script(request: Request):
    """The first chunk's memories; the second chunk's move, which reuses the topic the
    prompt offered (as a model would only when the prompt shows it)."""
    prompt = request.prompt
    usage = {"prompt_tokens": len(prompt) // 4, "completion_tokens": 50}
    if "moved to Lisbon" in prompt:
        assert "- home:city (fact): Lu lives in Porto" in prompt
        return content(answer(MOVED), usage)
    return content(answer(*FIRST), usage)


@pytest.fixture
def use_store(fresh_dsn, embedder):
    """A store of its own on a DSN (each call its own transaction: an item refused in a
    batch does not abort the writes of the others) with the bundled embedder's
    thresholds."""
    with MemoryStore(fresh_dsn) as store:
        args, kwargs = embedder._settings()
        store.configure_embedder(*args, **kwargs, overwrite=True)
        yield store


def test_a_conversation_leaves_the_memories_it_implies(use_store, embedder):
    store = use_store
    with ChatServer(script) as server, ChatClient(server.url, "m") as chat:
        done = store.remember(USER, CONVERSATION, chat, embedder)
    # one request a chunk of ten messages at most, each naming its job and schema
    assert done.calls == 2 and len(server.requests) == 2
    for request in server.requests:
        fmt = request.body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == JOB
        assert fmt["json_schema"]["schema"] == SCHEMA
        assert request.body["messages"][0]["content"].splitlines()[0].startswith(JOB)
    assert (
        f"[{YESTERDAY.isoformat(timespec='minutes')}] user: Hi! I'm Lu" in server.requests[0].prompt
    )
    assert done.messages == 12
    assert done.prompt_tokens == sum(len(r.prompt) // 4 for r in server.requests)
    assert done.completion_tokens == 100
    calls, tokens = done.per_100_messages()
    assert calls == pytest.approx(200 / 12)
    assert tokens == pytest.approx((done.prompt_tokens + 100) * 100 / 12)
    # what the store decided of each extracted memory
    assert done.refused == []
    assert [(m.item["content"], m.action) for m in done.memories] == [
        *[(m["content"], "inserted") for m in FIRST],
        ("Lu moved to Lisbon", "superseded"),
    ]
    assert done.refused == []
    live = {m.content: m for m in store.get_memories(USER)}
    assert set(live) == {"Lu moved to Lisbon", *(m["content"] for m in FIRST[1:])}
    state = live[FIRST[1]["content"]]
    assert state.kind == "state" and state.valid_until == WEEK_END
    assert live[FIRST[2]["content"]].importance == 0.7
    assert live["Lu moved to Lisbon"].topic == "home:city"
    moved = done.memories[-1].memory_id
    assert [v.content for v in store.memory_history(USER, moved)] == ["Lu lives in Porto"]
    # the contact the memory names, made and linked
    assert FIRST[2]["content"] in store.contact_card(USER, "Ana")


def test_an_item_the_store_refuses_is_reported_and_the_rest_written(use_store, embedder):
    items = [
        memory("Lu drinks oat milk", "preference"),
        memory("Lu gossips about the neighbours", "gossip"),  # no such kind
        memory("Lu plays the cello", "habit"),
    ]
    with (
        ChatServer(lambda r: content(answer(*items))) as server,
        ChatClient(server.url, "m") as chat,
    ):
        done = use_store.remember(USER, CONVERSATION[:4], chat, embedder)
    assert [(m.item["content"], m.action) for m in done.memories] == [
        ("Lu drinks oat milk", "inserted"),
        ("Lu gossips about the neighbours", "refused"),
        ("Lu plays the cello", "inserted"),
    ]
    (refused,) = done.refused
    assert refused.sqlstate == "PM008" and "gossip" in refused.error
    assert {m.content for m in use_store.get_memories(USER)} == {
        "Lu drinks oat milk",
        "Lu plays the cello",
    }


def test_prose_around_the_json_is_read_and_a_malformed_answer_writes_nothing(use_store, embedder):
    replies = iter([
        content(answer(memory("Lu collects stamps", "habit"), prose="Sure! Here you go: ")),
        content('{"memories": [{"content": "Lu has a boat", "colour": "red"}]}'),
        content("I could not find anything worth keeping, sorry."),
    ])  # fmt: skip
    with ChatServer(lambda r: next(replies)) as server, ChatClient(server.url, "m") as chat:
        done = use_store.remember(USER, CONVERSATION[:2], chat, embedder)
        assert [m.action for m in done.memories] == ["inserted"]
        with pytest.raises(MalformedAnswer, match=r"memory 1 has unknown keys \['colour'\]"):
            use_store.remember(USER, CONVERSATION[:2], chat, embedder)
        with pytest.raises(MalformedAnswer, match="not JSON"):
            use_store.remember(USER, CONVERSATION[:2], chat, embedder)
    assert [m.content for m in use_store.get_memories(USER)] == ["Lu collects stamps"]


def test_without_structured_output_the_schema_goes_in_the_prompt(use_store, embedder):
    with ChatServer(lambda r: content(answer())) as server, ChatClient(server.url, "m") as chat:
        done = use_store.remember(USER, CONVERSATION[:3], chat, embedder, structured=False)
    (request,) = server.requests
    assert "response_format" not in request.body
    system = request.body["messages"][0]["content"]
    assert system.splitlines()[0].startswith(JOB)
    assert json.dumps(SCHEMA) in system
    assert done.memories == [] and done.calls == 1


def test_the_chunk_size_bounds_the_messages_a_request_reads(use_store, embedder):
    with ChatServer(lambda r: content(answer())) as server, ChatClient(server.url, "m") as chat:
        done = use_store.remember(USER, CONVERSATION, chat, embedder, chunk=5)
    assert done.calls == 3
    assert [r.prompt.count("] user: ") + r.prompt.count("] assistant: ")
            for r in server.requests] == [5, 5, 2]  # fmt: skip


def test_async_remember(fresh_dsn, embedder):
    async def run():
        async with (
            AsyncMemoryStore(fresh_dsn) as store,
            AsyncChatClient(server.url, "m") as chat,
        ):
            args, kwargs = embedder._settings()
            await store.configure_embedder(*args, **kwargs, overwrite=True)
            done = await store.remember(USER, CONVERSATION, chat, embedder)
            return done, await store.get_memories(USER)

    with ChatServer(script) as server:
        done, live = asyncio.run(run())
    assert done.calls == 2 and done.memories[-1].action == "superseded"
    assert "Lu moved to Lisbon" in {m.content for m in live}
    assert "Lu lives in Porto" not in {m.content for m in live}


def test_a_bad_message_is_refused_before_any_request(store, embedder):
    with (
        ChatServer(lambda r: content(answer())) as server,
        ChatClient(server.url, "m") as chat,
        pytest.raises(ValueError, match="role must be user or assistant"),
    ):
        store.remember(USER, [{"role": "system", "content": "x"}], chat, embedder)
    assert server.requests == []
    assert isinstance(store, MemoryStore)


def test_the_command_reads_a_conversation_of_two_users(fresh_dsn, tmp_path, capsys):
    from pymem.cli import main

    lines = [{**m, "user": "lu"} for m in CONVERSATION]
    lines.insert(3, {"user": "mei", "role": "user", "content": "我在杭州工作。",
                     "at": YESTERDAY.isoformat()})  # fmt: skip
    path = tmp_path / "talk.jsonl"
    path.write_text("\n".join(json.dumps(m, ensure_ascii=False) for m in lines) + "\n")

    def by_speaker(request: Request):
        if "我在杭州工作" in request.prompt:
            return content(answer(memory("Mei 在杭州工作", topic="job:city")))
        return script(request)

    with ChatServer(by_speaker) as server:
        args = ["--dsn", fresh_dsn, "remember", "--conversation", str(path)]
        assert main([*args, "--base-url", server.url, "--model", "m"]) == 0
    out = capsys.readouterr().out
    assert "superseded lu: Lu moved to Lisbon" in out
    assert "inserted   mei: Mei 在杭州工作" in out
    summary = out.rstrip().splitlines()[-1]
    assert re.fullmatch(r"13 messages of 2 users: 3 model calls, \d+ tokens "
                        r"\(23\.1 calls and \d+ tokens per 100 messages\)", summary)  # fmt: skip
    # a line without a user and no --user: refused before any call
    path.write_text(json.dumps(CONVERSATION[0]) + "\n")
    assert main(["--dsn", fresh_dsn, "remember", "--conversation", str(path)]) == 2
    assert "no user (give --user" in capsys.readouterr().err


def test_the_command_needs_a_text_and_a_user_or_a_conversation(capsys):
    from pymem.cli import main

    assert main(["remember", "--user", "lu"]) == 2
    assert main(["remember", "Lu likes tea"]) == 2
    assert capsys.readouterr().err.count("TEXT and --user are required") == 2
    assert main(["remember", "--conversation", "talk.jsonl", "Lu likes tea"]) == 2
    assert "not both" in capsys.readouterr().err
