"""pymem as an MCP server (``pymem mcp``; docs/mcp.md): the tools an assistant that speaks
the Model Context Protocol (Claude Desktop, Cursor, an agent framework) needs to keep its
user's memory, on the official MCP Python SDK (``pip install 'pymem[mcp]'``).

Each tool is one call of the store (:class:`~pymem.MemoryStore`, whose SQL decides
everything): ``remember`` (embedded with the store's embedder, then ``upsert_memory``),
``recall`` (with the filters of ``pymem.recall``), ``forget`` (a soft delete, undoable),
``undo``, ``get_fact``, ``set_fact``, ``contact_card`` and ``pending_reviews``. The user
is the server's (``--user``), or, over HTTP, the one a request names in the header the
operator chose (``--user-header``); no tool takes a user, so none reads or writes another
user's memories. A refusal of the store comes back as an MCP tool error whose text starts
with its SQLSTATE (``PM002: content must not be blank``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from pymem.errors import PymemError

INSTRUCTIONS = (
    "Long-term memory of the user. Call remember with each fact, preference, habit or "
    "temporary state worth keeping, in the third person; the store merges restatements and "
    "keeps updates as history. Call recall with the question before answering from memory."
)


def _plain(value: Any) -> Any:
    """A row's value as JSON takes it: ids and times as text."""
    if isinstance(value, datetime):
        return value.isoformat()
    if value is None or isinstance(value, (bool, int, float, str, list, dict)):
        return value
    return str(value)


def build_server(
    store: Any,
    embed: Callable[[list[str]], Any],
    *,
    user: str | None = None,
    user_header: str | None = None,
) -> Any:
    """The MCP server of ``store`` for ``user``, or, without one, for the user each HTTP
    request names in ``user_header``."""
    if (user is None) == (user_header is None):
        raise ValueError("name the user (--user) or the header that names it (--user-header)")
    server = MCPServer("pymem", instructions=INSTRUCTIONS)

    def whose(ctx: Context) -> str:
        if user is not None:
            return user
        named = (ctx.headers or {}).get(user_header.lower()) or (ctx.headers or {}).get(user_header)
        if not named:
            raise ToolError(f"PM001: the request names no user in its {user_header} header")
        return named

    def call(fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except PymemError as exc:
            raise ToolError(f"{exc.sqlstate}: {exc.one_line()}") from None

    @server.tool(
        description="Store a memory of the user (one statement, third person). Returns what "
        "the store decided: inserted, duplicate (said before: merged), superseded (a new "
        "value of something known: the old one kept as history), with the rule that decided."
    )
    def remember(
        text: str,
        ctx: Context,
        kind: str | None = None,
        topic: str | None = None,
        contacts: list[str] | None = None,
        valid_until: datetime | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        who = whose(ctx)
        # refused before it is embedded: a blank or too long text costs no model call
        call(lambda: store.check_contents([text]))
        vector = embed([text])[0]
        r = call(lambda: store.upsert(who, text, vector, kind, topic=topic, contacts=contacts,
                                      valid_until=valid_until, metadata=metadata))  # fmt: skip
        return {
            "action": r.action,
            "memory_id": str(r.memory_id),
            "rule": r.rule,
            "matched_id": _plain(r.matched_id),
            "similarity": r.similarity,
        }

    @server.tool(
        description="The user's memories that answer a question, best first, with their "
        "scores. filter keeps those whose metadata contains the object; created_after and "
        "created_before bound when they were written; sources keeps inferred, stated or "
        "confirmed ones. include_history also returns what was true before (an old value "
        "replaced by a newer one, with superseded_at), below the current value: for a "
        "question about the past."
    )
    def recall(
        query: str,
        ctx: Context,
        k: int = 5,
        kinds: list[str] | None = None,
        filter: dict[str, Any] | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        sources: list[str] | None = None,
        include_history: bool = False,
    ) -> dict[str, Any]:
        who = whose(ctx)
        vector = embed([query])[0]
        hits = call(lambda: store.recall(
            who, vector, k, query_text=query, kinds=kinds, filter=filter,
            created_after=created_after, created_before=created_before, sources=sources,
            include_history=include_history,
        ))  # fmt: skip
        return {
            "memories": [
                {
                    "memory_id": str(h.memory_id),
                    "content": h.content,
                    "kind": h.kind,
                    "score": h.score,
                    "topic": h.topic,
                    "valid_until": _plain(h.valid_until),
                    "superseded_at": _plain(h.superseded_at),
                }
                for h in hits
            ]
        }

    @server.tool(description="Forget a memory (a soft delete, kept in history: undo restores it).")
    def forget(memory_id: str, ctx: Context) -> dict[str, Any]:
        who = whose(ctx)
        (row,) = call(lambda: store.apply_maintenance(who, [{"op": "delete", "id": memory_id}]))
        return {"memory_id": str(row.memory_id), "result": row.result}

    @server.tool(description="Undo the last change of a memory (a merge, an update, a forget).")
    def undo(memory_id: str, ctx: Context) -> dict[str, Any]:
        who = whose(ctx)
        return {"version": call(lambda: store.undo(who, memory_id))}

    @server.tool(description="The user's current value of a structured fact (null: none).")
    def get_fact(key: str, ctx: Context) -> dict[str, Any]:
        who = whose(ctx)
        return {"key": key, "value": call(lambda: store.get_fact(who, key))}

    @server.tool(
        description="Set a structured fact of the user (scope habit, or state for a temporary "
        "value that shadows the habit until valid_until). Returns set, unchanged, replaced, "
        "conflict or rejected."
    )
    def set_fact(
        key: str,
        value: Any,
        ctx: Context,
        scope: str = "habit",
        valid_until: datetime | None = None,
    ) -> dict[str, Any]:
        who = whose(ctx)
        outcome = call(lambda: store.set_fact(who, key, value, scope=scope,
                                              valid_until=valid_until))  # fmt: skip
        return {"key": key, "result": outcome}

    @server.tool(description="What the memory holds about a person the user knows, as text.")
    def contact_card(name: str, ctx: Context) -> dict[str, Any]:
        who = whose(ctx)
        return {"card": call(lambda: store.contact_card(who, name))}

    @server.tool(
        description="Pairs of the user's memories waiting for a decision (a possible "
        "restatement or update the store could not settle, or a contradiction)."
    )
    def pending_reviews(ctx: Context) -> dict[str, Any]:
        who = whose(ctx)
        reviews = call(lambda: store.pending_reviews(who))
        return {
            "reviews": [{k: _plain(v) for k, v in vars(r).items()} for r in reviews],
        }

    return server


def serve(
    store: Any,
    embed: Callable[[list[str]], Any],
    *,
    user: str | None = None,
    user_header: str | None = None,
    port: int | None = None,
    host: str = "127.0.0.1",
) -> None:
    """Run the server over stdio, or over streamable HTTP on ``host:port`` (``/mcp``)."""
    server = build_server(store, embed, user=user, user_header=user_header)
    if port is None:
        server.run()
    else:
        server.run("streamable-http", host=host, port=port)
