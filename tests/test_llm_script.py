"""The model half end to end: a scripted conversation of two users (200 messages, English
and Chinese) through ``pymem remember --conversation`` and ``pymem worker --once``
against a local server speaking the chat completions protocol, whose scripted model
answers each job as the conversation implies. The store it leaves is checked whole.

The scripted model reads what pymem sends it as a model would: an update reuses the
topic only when the prompt offered it among the known topics; a plan names the ids the
prompt showed (and, for one user, an id it was not shown, which must be refused)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

import psycopg
import pytest

from pymem import MemoryStore
from pymem.cli import main
from tests.chat_server import ChatServer, content

pytest.importorskip("httpx")

# two days ago: the states the conversation reports still hold
START = (datetime.now(timezone.utc) - timedelta(days=2)).replace(second=0, microsecond=0)
# "this week" and "this month" as the scripted model resolves them against the dates
THIS_WEEK = START + timedelta(days=5)
THIS_MONTH = START + timedelta(days=20)
USAGE = {"prompt_tokens": 300, "completion_tokens": 60}
STRANGER = "00000000-0000-0000-0000-00000000beef"


def item(text, kind="fact", *, topic=None, canonical=None, contacts=(), valid_until=None,
         importance=0.6):  # fmt: skip
    return {"content": text, "kind": kind, "topic": topic, "canonical": canonical,
            "contacts": list(contacts), "valid_until": valid_until,
            "importance": importance, "source": "stated"}  # fmt: skip


# what each user says that is worth remembering, with what the model extracts of it; an
# entry whose topic is a callable takes it from the prompt's known topics
MEI = {
    "I live in Marchmont, near the Meadows.":
        item("Mei lives in Marchmont, Edinburgh", topic="home", importance=0.7),
    "I drink oolong tea every morning.":
        item("Mei drinks oolong tea every morning", "habit", topic="tea"),
    "My favourite tea is Tieguanyin.":
        item("Mei's favourite tea is Tieguanyin", "preference", topic="tea"),
    "I buy my tea at Pekoe on Leith Walk.":
        item("Mei buys her tea at Pekoe on Leith Walk", topic="tea"),
    "Priya is my sister, you know.": item("Priya is Mei's sister", contacts=["Priya"]),
    "Priya works as a vet in Glasgow.":
        item("Priya works as a vet in Glasgow", contacts=["Priya"]),
    "Priya has a greyhound called Biscuit.":
        item("Priya has a greyhound called Biscuit", contacts=["Priya"]),
    "Priya is running the Edinburgh marathon in May.":
        item("Priya is running the Edinburgh marathon in May", "goal", contacts=["Priya"]),
    "Priya is allergic to penicillin.":
        item("Priya is allergic to penicillin", contacts=["Priya"], importance=0.9),
    "I'm working from home this week because Mochi had surgery.":
        item("Mei is working from home this week because her cat Mochi had surgery", "state",
             valid_until=THIS_WEEK.isoformat()),
    "I want to learn to sail this summer.": item("Mei wants to learn to sail this summer", "goal"),
    "We moved! I live in Leith now.":
        item("Mei lives in Leith, Edinburgh", topic=lambda known: known.get("lives in"),
             importance=0.7),
}  # fmt: skip
WANG = {
    "我住在杭州西湖区。": item("王强住在杭州西湖区", topic="住址", canonical="杭州西湖区",
                           importance=0.7),
    "我这个月在戒酒。": item("王强这个月在戒酒", "state", valid_until=THIS_MONTH.isoformat()),
    "我喜欢喝龙井茶。": item("王强喜欢喝龙井茶", "preference"),
    "今天午饭吃了饺子。": item("王强今天午饭吃了饺子", "event", importance=0.2),
    "我同事小李下个月结婚。": item("王强的同事小李下个月结婚", "event", contacts=["小李"]),
    "我在学吉他，每周练三次。": item("王强在学吉他，每周练三次", "habit"),
    "Next week I fly to Singapore for work.": item("王强下周去新加坡出差", "event"),
    "我搬到上海了，住在徐汇区。":
        item("王强住在上海徐汇区", topic=lambda known: known.get("住在"), canonical="上海徐汇区",
             importance=0.7),
}  # fmt: skip
SAID = {"mei": MEI, "wang": WANG}


def conversation(user: str) -> list[dict]:
    """100 messages: 50 turns of the user and the assistant, a fact in some turns (in
    the order above, spread out so that the update comes chunks after the old value)."""
    facts = list(SAID[user])
    at_turn = {2 + 4 * i: text for i, text in enumerate(facts[:-1])}
    at_turn[46] = facts[-1]
    messages = []
    for turn in range(50):
        at = START + timedelta(minutes=10 * turn)
        if user == "mei":
            said = at_turn.get(turn, f"Nothing much today, just reading (turn {turn}).")
            reply = "Thanks for telling me." if turn in at_turn else "Sounds restful."
        else:
            said = at_turn.get(turn, f"今天没什么事，看看书（第{turn}轮）。")
            reply = "好的，记下了。" if turn in at_turn else "听起来很放松。"
        messages.append({"user": user, "role": "user", "content": said, "at": at.isoformat()})
        messages.append({"user": user, "role": "assistant", "content": reply,
                         "at": (at + timedelta(minutes=1)).isoformat()})  # fmt: skip
    return messages


def job_of(request) -> str:
    return request.body["response_format"]["json_schema"]["name"]


def known_topics(prompt: str) -> dict[str, str]:
    """The known topics the prompt offered, by a phrase of their text: {phrase: topic}."""
    offered = re.findall(r"^- (\S+) \((\w+)\): (.*)$", prompt, re.M)
    out = {}
    for topic, _, text in offered:
        for phrase in ("lives in", "住在"):
            if phrase in text:
                out[phrase] = topic
    return out


def extract(request) -> dict:
    prompt = request.prompt
    known = known_topics(prompt)
    memories = []
    for line in prompt.split("Conversation:\n", 1)[1].splitlines():
        said = line.split("] user: ", 1)[1] if "] user: " in line else None
        for user in SAID:
            if said in SAID[user]:
                found = dict(SAID[user][said])
                if callable(found["topic"]):
                    found["topic"] = found["topic"](known)
                memories.append(found)
    return {"memories": memories}


def shown(prompt: str) -> dict[str, str]:
    """The memories a reflection prompt showed: {text: id}."""
    out = {}
    for memory_id, text in re.findall(r"\[([0-9a-f-]{36})\] \([^)]*\) (.*)$", prompt, re.M):
        out[text] = memory_id
    return out


def reflect(request) -> dict:
    ids = shown(request.prompt)
    if "王强今天午饭吃了饺子" in ids:
        return {"ops": [{"op": "delete", "id": ids["王强今天午饭吃了饺子"], "ids": None,
                         "content": None}]}  # fmt: skip
    # Mei's plan: a memory it saw, and one it was never shown: refused whole
    seen = ids["Mei wants to learn to sail this summer"]
    return {"ops": [{"op": "delete", "id": seen, "ids": None, "content": None},
                    {"op": "delete", "id": STRANGER, "ids": None, "content": None}]}  # fmt: skip


def consolidate(request) -> dict:
    texts = [line.split(") ", 1)[1] for line in request.prompt.splitlines()[1:]]
    assert sorted(texts) == sorted(t["content"] for t in list(MEI.values())[1:4])
    return {"content": "Mei drinks oolong tea every morning, her favourite is Tieguanyin, "
                       "and she buys it at Pekoe on Leith Walk", "details": {}}  # fmt: skip


def profile(request) -> dict:
    assert "Priya works as a vet in Glasgow" in request.prompt
    return {"description": "Mei's sister, a vet in Glasgow with a greyhound called Biscuit; "
                           "runs the Edinburgh marathon in May; allergic to penicillin",
            "relationship": "sister", "attributes": {"city": "Glasgow", "job": "vet"}}  # fmt: skip


ANSWERS = {
    "pymem_extract": extract,
    "pymem_reflect": reflect,
    "pymem_consolidate": consolidate,
    "pymem_profile": profile,
    "pymem_review": lambda request: {"decision": "keep_both", "reason": "two facts"},
}


def script(request):
    return content(json.dumps(ANSWERS[job_of(request)](request), ensure_ascii=False), USAGE)


def test_two_conversations_through_remember_and_the_worker(fresh_dsn, tmp_path, capsys):
    with psycopg.connect(fresh_dsn, autocommit=True) as conn:
        conn.execute("UPDATE pymem.settings SET reflect_every = 6")
    path = tmp_path / "talk.jsonl"
    lines = conversation("mei") + conversation("wang")
    path.write_text("\n".join(json.dumps(m, ensure_ascii=False) for m in lines) + "\n")
    assert len(lines) == 200
    with ChatServer(script) as server:
        model = ["--base-url", server.url, "--model", "m"]
        assert main(["--dsn", fresh_dsn, "remember", "--conversation", str(path), *model]) == 0
        said = capsys.readouterr().out
        extracted = len(server.requests)
        assert main(["--dsn", fresh_dsn, "worker", "--once", *model]) == 0
        worked = capsys.readouterr().out
        jobs = [job_of(r) for r in server.requests[extracted:]]
        before_idle = len(server.requests)
        assert main(["--dsn", fresh_dsn, "worker", "--once", *model]) == 0
        idle = capsys.readouterr().out
        assert len(server.requests) == before_idle, "an idle worker makes no call"
    # extraction: one call per 10 messages
    assert extracted == 20 and "200 messages of 2 users: 20 model calls" in said
    assert "superseded mei: Mei lives in Leith, Edinburgh" in said
    assert "superseded wang: 王强住在上海徐汇区" in said
    # the worker: a record, a profile, two reflections (one refused), reviews if any
    model_jobs = [j for j in jobs if j != "pymem_review"]
    assert sorted(model_jobs) == sorted(
        ["pymem_consolidate", "pymem_profile", "pymem_reflect", "pymem_reflect"]
    )
    assert "refused   reflect (mei)" in worked and STRANGER in worked
    assert "consolidate 1 done" in worked and "profile 1 done" in worked
    assert "reflect 2 done, 0 failed, 1 refused" in worked
    assert "no model jobs" in idle

    with MemoryStore(fresh_dsn) as store:
        mei = {m.content: m for m in store.get_memories("mei")}
        wang = {m.content: m for m in store.get_memories("wang")}
        assert set(mei) == {
            "Mei lives in Leith, Edinburgh",
            "Mei drinks oolong tea every morning, her favourite is Tieguanyin, and she buys it "
            "at Pekoe on Leith Walk",
            "Mei is working from home this week because her cat Mochi had surgery",
            "Mei wants to learn to sail this summer",  # the refused plan deleted nothing
            mei_profile(store),
        }
        home = mei["Mei lives in Leith, Edinburgh"]
        assert home.topic == "home"
        history = store.memory_history("mei", home.memory_id)
        assert "Mei lives in Marchmont, Edinburgh" in [v.content for v in history]
        state = mei["Mei is working from home this week because her cat Mochi had surgery"]
        assert state.kind == "state"
        assert state.valid_until == THIS_WEEK
        card = store.contact_card("mei", "Priya")
        assert "sister" in card and "vet in Glasgow" in card
        assert set(wang) == {"王强住在上海徐汇区", "王强这个月在戒酒", "王强喜欢喝龙井茶",
                             "王强的同事小李下个月结婚", "王强在学吉他，每周练三次",
                             "王强下周去新加坡出差"}  # fmt: skip
        assert wang["王强住在上海徐汇区"].topic == "住址"
        assert wang["王强这个月在戒酒"].valid_until == THIS_MONTH
        assert wang["王强的同事小李下个月结婚"].kind == "event"
        assert [c.name for c in store.recent_contacts("wang")] == ["小李"]


def mei_profile(store) -> str:
    (m,) = [m for m in store.get_memories("mei") if m.kind == "profile"]
    return m.content
