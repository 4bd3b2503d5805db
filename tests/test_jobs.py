"""The model jobs that tidy the store (pymem.jobs): a real local server speaks the chat
completions protocol with scripted answers; the database and the embedder are real."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from pymem import MemoryStore
from pymem.chat import ChatClient, MalformedAnswer
from pymem.errors import DetailsDropped, InvalidPlan, PymemError
from pymem.jobs import CONSOLIDATE, PROFILE, REFLECT, consolidate_group, reflect, write_profile
from tests.chat_server import ChatServer, content

pytest.importorskip("httpx")

USER = "ann"


@pytest.fixture
def own(fresh_dsn, embedder):
    with MemoryStore(fresh_dsn) as store:
        args, kwargs = embedder._settings()
        store.configure_embedder(*args, **kwargs, overwrite=True)
        yield store


def write(store, embedder, text: str, **keys) -> str:
    return str(store.upsert(USER, text, embedder([text])[0], **keys).memory_id)


def live(store) -> set[str]:
    return {m.content for m in store.get_memories(USER)}


def test_a_group_of_fragments_becomes_one_record(own, embedder):
    ids = [
        write(own, embedder, "Ann drinks oolong tea", kind="preference", topic="tea"),
        write(own, embedder, "Ann brews her tea at 90 degrees", kind="habit", topic="tea"),
        write(own, embedder, "Ann buys her tea from a shop in Fujian", topic="tea"),
    ]
    record = "Ann drinks oolong tea from a shop in Fujian, brewed at 90 degrees"
    reply = json.dumps({"content": record, "details": {"drink": "oolong"}})
    with ChatServer(lambda r: content(reply, {"prompt_tokens": 120, "completion_tokens": 30})
                    ) as server, ChatClient(server.url, "m") as chat:  # fmt: skip
        done = consolidate_group(own, USER, ids, chat, embedder)
    (request,) = server.requests
    assert request.body["response_format"]["json_schema"]["name"] == CONSOLIDATE
    assert request.body["messages"][0]["content"].startswith(CONSOLIDATE)
    assert all(f"[{i}]" in request.prompt for i in ids)
    assert (done.calls, done.prompt_tokens, done.completion_tokens) == (1, 120, 30)
    assert live(own) == {record}
    (kept,) = own.get_memories(USER)
    assert kept.memory_id == done.record and kept.details["drink"] == "oolong"


def test_a_record_that_drops_a_detail_is_refused_and_nothing_is_folded(own, embedder):
    ids = [
        write(own, embedder, "Ann's car is a Ford Fiesta", details={"model": "Fiesta"}),
        write(own, embedder, "Ann parks in the garage on Elm Street", details={"garage": "Elm"}),
    ]
    reply = json.dumps({"content": "Ann drives a red car", "details": {"model": None}})
    with (  # a null value is no detail (the schema's)
        ChatServer(lambda r: content(reply)) as server,
        ChatClient(server.url, "m") as chat,
        pytest.raises(MalformedAnswer, match="text and number values"),
    ):
        consolidate_group(own, USER, ids, chat, embedder)
    reply = json.dumps({"content": "Ann drives a red car", "details": {"model": "Yaris"}})
    before = live(own)
    with (
        ChatServer(lambda r: content(reply)) as server,
        ChatClient(server.url, "m") as chat,
        pytest.raises(DetailsDropped, match="model"),
    ):
        consolidate_group(own, USER, ids, chat, embedder)
    assert live(own) == before


def test_a_persons_profile_is_written_and_their_fragments_folded(own, embedder):
    write(own, embedder, "Ana is Ann's sister", contacts=["Ana"])
    write(own, embedder, "Ana works as a nurse in Braga", contacts=["Ana"])
    reply = json.dumps({
        "description": "Ann's sister, a nurse in Braga",
        "relationship": "sister",
        "attributes": {"city": "Braga", "job": "nurse"},
    })  # fmt: skip
    with ChatServer(lambda r: content(reply)) as server, ChatClient(server.url, "m") as chat:
        done = write_profile(own, USER, "Ana", chat)
    (request,) = server.requests
    assert request.body["response_format"]["json_schema"]["name"] == PROFILE
    assert "Ana works as a nurse in Braga" in request.prompt
    card = own.contact_card(USER, "Ana")
    assert "sister" in card and "Braga" in card
    (profile,) = own.get_memories(USER)
    assert profile.memory_id == done.record and profile.kind == "profile"


def reflect_server(plan: list[dict], seen: list[str] | None = None):
    def script(request):
        if seen is not None:
            seen.append(request.prompt)
        return content(json.dumps({"ops": plan}))

    return ChatServer(script)


def op(kind: str, *, id=None, ids=None, text=None) -> dict:
    return {"op": kind, "id": id, "ids": ids, "content": text}


def test_a_reflection_plan_is_applied_as_one(own, embedder):
    tea = write(own, embedder, "Ann likes tea")
    green = write(own, embedder, "Ann likes green tea, sencha mostly")
    rome = write(own, embedder, "Ann lives in Rome")
    plan = [
        op("merge", ids=[tea, green], text="Ann likes green tea, sencha mostly"),
        op("delete", id=rome),
    ]
    prompts: list[str] = []
    with reflect_server(plan, prompts) as server, ChatClient(server.url, "m") as chat:
        done = reflect(own, USER, chat, embedder)
    assert server.requests[0].body["response_format"]["json_schema"]["name"] == REFLECT
    assert all(f"[{i}]" in prompts[0] for i in (tea, green, rome))
    assert [r.op for r in done.applied] == ["merge", "delete"]
    assert done.refused is None and done.calls == 1
    assert live(own) == {"Ann likes green tea, sencha mostly"}


def test_a_plan_that_names_an_unshown_memory_is_refused_whole(own, embedder):
    old = write(own, embedder, "Ann plays chess on Sundays")
    (cut,) = [m.updated_at for m in own.get_memories(USER)]
    new = write(own, embedder, "Ann plays the violin")
    # only what changed after `cut` is recent; chess is no neighbour of violin here
    plan = [op("delete", id=new), op("delete", id="00000000-0000-0000-0000-000000000001")]
    with reflect_server(plan) as server, ChatClient(server.url, "m") as chat:
        done = reflect(own, USER, chat, embedder, since=cut, neighbours=0)
    assert done.calls == 1 and done.applied == []
    assert "not shown" in done.refused and "00000000-0000-0000-0000-000000000001" in done.refused
    assert live(own) == {"Ann plays chess on Sundays", "Ann plays the violin"}
    assert old  # still there


def test_a_user_with_nothing_new_costs_no_call(own, embedder):
    write(own, embedder, "Ann plays chess")
    (cut,) = [m.updated_at for m in own.get_memories(USER)]
    with reflect_server([]) as server, ChatClient(server.url, "m") as chat:
        done = reflect(own, USER, chat, embedder, since=cut)
    assert server.requests == [] and done.calls == 0


def test_an_op_the_store_refuses_applies_nothing(own, embedder):
    a = write(own, embedder, "Ann runs on Mondays")
    b = write(own, embedder, "Ann swims on Fridays")
    # a merge of one memory: the SQL's plan check refuses it, and the delete with it
    plan = [op("delete", id=b), op("merge", ids=[a], text="Ann runs on Mondays")]
    with (
        reflect_server(plan) as server,
        ChatClient(server.url, "m") as chat,
        pytest.raises((InvalidPlan, PymemError)),
    ):
        reflect(own, USER, chat, embedder)
    assert live(own) == {"Ann runs on Mondays", "Ann swims on Fridays"}


def test_a_malformed_plan_changes_nothing(own, embedder):
    write(own, embedder, "Ann runs on Mondays")
    for answer in ('{"ops": [{"op": "rewrite", "id": "x"}]}', "no plan today", '{"plan": []}'):
        with (
            ChatServer(lambda r, a=answer: content(a)) as server,
            ChatClient(server.url, "m") as chat,
            pytest.raises(MalformedAnswer),
        ):
            reflect(own, USER, chat, embedder)
    assert live(own) == {"Ann runs on Mondays"}


def test_the_async_twins(fresh_dsn, embedder):
    import asyncio

    from pymem import AsyncMemoryStore
    from pymem.chat import AsyncChatClient
    from pymem.jobs import aconsolidate_group, areflect

    async def run(url: str):
        async with AsyncMemoryStore(fresh_dsn) as store, AsyncChatClient(url, "m") as chat:
            ids = []
            for text in ("Ann bakes sourdough", "Ann bakes rye bread on Saturdays"):
                r = await store.upsert(USER, text, embedder([text])[0])
                ids.append(str(r.memory_id))
            folded = await aconsolidate_group(store, USER, ids, chat, embedder)
            # nothing changed after tomorrow: no call
            tomorrow = datetime.now(timezone.utc) + timedelta(days=1)
            nothing_new = await areflect(store, USER, chat, embedder, since=tomorrow)
            return folded, nothing_new, {m.content for m in await store.get_memories(USER)}

    record = "Ann bakes sourdough, and rye bread on Saturdays"
    reply = json.dumps({"content": record, "details": {}})
    with ChatServer(lambda r: content(reply)) as server:
        folded, nothing_new, contents = asyncio.run(run(server.url))
    assert folded.record is not None and contents == {record}
    assert nothing_new.calls == 0 and len(server.requests) == 1


def job_of(request) -> str:
    return request.body["messages"][0]["content"].split(" ", 1)[0]


def extracted(text: str, kind: str = "fact", **keys) -> dict:
    item = {"content": text, "kind": kind, "topic": None, "canonical": None, "contacts": [],
            "valid_until": None, "importance": None, "source": "stated"}  # fmt: skip
    return {**item, **keys}


def scripted_model(request):
    """Answers each job as a model would, in the shape of the wire contract."""
    job = job_of(request)
    if job == "pymem_extract":
        memories = [
            extracted("Lu lives in Porto", topic="home", canonical="Porto"),
            extracted("Lu's sister Ana teaches maths in Braga", contacts=["Ana"], importance=0.7),
            extracted("Lu drinks green tea every morning", "habit"),
            extracted("Lu drinks green tea every morning at 7am", "habit"),
            extracted("Lu drinks green tea every morning from a 300 ml cup", "habit"),
        ]
        usage = {"prompt_tokens": 400, "completion_tokens": 120}
        return content(json.dumps({"memories": memories}), usage)
    if job == "pymem_consolidate":
        record = "Lu drinks green tea every morning at 7am from a 300 ml cup"
        return content(json.dumps({"content": record, "details": {}}))
    if job == "pymem_profile":
        profile = {"description": "Lu's sister, a maths teacher in Braga",
                   "relationship": "sister", "attributes": {"city": "Braga"}}  # fmt: skip
        return content(json.dumps(profile))
    return content(json.dumps({"ops": []}))


def test_the_llm_demo_runs_the_whole_loop_against_a_server(fresh_dsn, capsys):
    from pymem.cli import main

    with ChatServer(scripted_model) as server:
        code = main(["--dsn", fresh_dsn, "demo", "--llm", server.url, "--model", "m"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert [job_of(r) for r in server.requests] == [
        "pymem_extract", "pymem_consolidate", "pymem_profile", "pymem_reflect",
    ]  # fmt: skip
    assert "inserted   Lu lives in Porto" in out
    assert "1 calls, 520 tokens" in out, out
    assert "the record of 3 related memories:" in out and "the profile of Ana:" in out
    assert "habit      Lu drinks green tea every morning at 7am from a 300 ml cup" in out


def test_a_slow_answer_or_a_server_error_writes_nothing(own, embedder):
    """The model's failure is the job's: ModelError, and the store as it was."""
    from pymem.chat import ModelError
    from tests.chat_server import Reply, status

    write(own, embedder, "Ann runs on Mondays")
    slow = Reply(text=json.dumps({"ops": []}), delay=1.0)
    for reply, client in ((slow, {"timeout": 0.3}), (status(500), {})):
        with (
            ChatServer(lambda r, reply=reply: reply) as server,
            ChatClient(server.url, "m", **client) as chat,
            pytest.raises(ModelError),
        ):
            reflect(own, USER, chat, embedder)
        with (
            ChatServer(lambda r, reply=reply: reply) as server,
            ChatClient(server.url, "m", **client) as chat,
            pytest.raises(ModelError),
        ):
            own.remember(USER, [{"role": "user", "content": "I swim too"}], chat, embedder)
    assert live(own) == {"Ann runs on Mondays"}


def test_two_callers_consolidating_one_group_at_once_make_one_record(fresh_dsn, own, embedder):
    """Two workers that heard the same consolidation_due each ask the model and fold: the
    per-user lock orders them, the second finds the group folded into the first's
    record (the same record, or AlreadyConsolidated), never two records."""
    import threading

    from pymem.errors import AlreadyConsolidated

    ids = [
        write(own, embedder, "Ann bakes sourdough"),
        write(own, embedder, "Ann bakes rye bread on Saturdays"),
    ]
    record = "Ann bakes sourdough, and rye bread on Saturdays"
    reply = json.dumps({"content": record, "details": {}})
    start = threading.Barrier(2)
    results: list = []

    def worker() -> None:
        with MemoryStore(fresh_dsn) as store, ChatClient(server.url, "m") as chat:
            start.wait()
            try:
                results.append(consolidate_group(store, USER, ids, chat, embedder).record)
            except Exception as exc:  # the test reads what each worker met
                results.append(exc)

    with ChatServer(lambda r: content(reply)) as server:
        threads = [threading.Thread(target=worker) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    records = {r for r in results if not isinstance(r, Exception)}
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(results) == 2 and len(records) == 1, results
    assert all(isinstance(r, AlreadyConsolidated) for r in refused), refused
    assert live(own) == {record}


def test_a_record_whose_text_drops_a_value_is_refused(own, embedder):
    ids = [
        write(own, embedder, "Ann runs 5 km every Tuesday", kind="habit", topic="run"),
        write(own, embedder, "Ann's running shoes are size 39", topic="run"),
    ]
    before = live(own)
    for text in ("Ann runs every Tuesday in size 39 shoes",  # 5 km left out
                 "Ann runs 5 km in size 39 shoes"):  # Tuesday left out  # fmt: skip
        reply = json.dumps({"content": text, "details": {}})
        with (
            ChatServer(lambda r, a=reply: content(a)) as server,
            ChatClient(server.url, "m") as chat,
            pytest.raises(DetailsDropped, match="text would drop") as caught,
        ):
            consolidate_group(own, USER, ids, chat, embedder)
        assert caught.value.sqlstate == "PM042"
    assert live(own) == before
    kept = "Ann runs 5 km every Tuesday, in size 39 shoes"
    reply = json.dumps({"content": kept, "details": {}})
    with ChatServer(lambda r: content(reply)) as server, ChatClient(server.url, "m") as chat:
        consolidate_group(own, USER, ids, chat, embedder)
    assert live(own) == {kept}


def test_a_reflection_merge_that_drops_a_value_applies_nothing(own, embedder):
    a = write(own, embedder, "Ann's flat has 3 rooms")
    b = write(own, embedder, "Ann's flat is on the 4th floor")
    plan = [op("merge", ids=[a, b], text="Ann's flat has 3 rooms")]
    with (
        reflect_server(plan) as server,
        ChatClient(server.url, "m") as chat,
        pytest.raises(DetailsDropped, match="drop 4"),
    ):
        reflect(own, USER, chat, embedder)
    assert live(own) == {"Ann's flat has 3 rooms", "Ann's flat is on the 4th floor"}


def test_a_plans_reasons_are_kept_in_the_history(own, embedder):
    rome = write(own, embedder, "Ann lives in Rome")
    plan = [op("delete", id=rome) | {"reason": "Ann said she moved to Turin"}]
    with reflect_server(plan) as server, ChatClient(server.url, "m") as chat:
        reflect(own, USER, chat, embedder)
    assert live(own) == set()
    (version,) = own.memory_history(USER, rome)
    assert version.reason == "maintenance: delete: Ann said she moved to Turin"
