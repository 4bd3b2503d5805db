"""Conversations in: the model job ``pymem_extract`` and :func:`remember`, which runs it.

A conversation is read in chunks of messages, one chat completions request a chunk
(:class:`~pymem.chat.ChatClient`); the model answers ``{"memories": [item, ...]}`` with
pymem items (content, kind, topic, canonical, contacts, valid_until, importance,
source). The prompt (pymem/prompts/extract.md, versioned by its first line) carries the
chunk's messages with their dates and the user's live topics with their current text
(``pymem.live_topics``), so that a new value of a known thing reuses its key and
supersedes the old one. The items are embedded and written with one
``upsert_memories`` call a chunk; the store decides each one as it decides any write,
and an item it refuses is reported while the rest are written.

Nothing here decides what is a duplicate or an update: that is the SQL's. What is
checked here is the answer's shape (the job's JSON schema).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pymem.chat import MalformedAnswer, job_request, json_object, message_content, usage_of
from pymem.errors import PymemError
from pymem.steps import _sync_and_async

JOB = "pymem_extract"
PROMPT_FILE = Path(__file__).with_name("prompts") / "extract.md"
# messages a request reads at most: extraction costs one call per this many messages
CHUNK = 10
ROLES = ("user", "assistant")
_NULLABLE_TEXT = {"type": ["string", "null"]}

# The answer's JSON schema, strict in OpenAI's sense (every key required, nothing else
# allowed, null where a value may be missing)
ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "content": {"type": "string"},
        "kind": {"type": "string"},
        "topic": _NULLABLE_TEXT,
        "canonical": _NULLABLE_TEXT,
        "contacts": {"type": "array", "items": {"type": "string"}},
        "valid_until": _NULLABLE_TEXT,
        "importance": {"type": ["number", "null"]},
        "source": {"type": ["string", "null"], "enum": ["stated", "inferred", None]},
    },
    "additionalProperties": False,
}
ITEM_SCHEMA["required"] = list(ITEM_SCHEMA["properties"])
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"memories": {"type": "array", "items": ITEM_SCHEMA}},
    "required": ["memories"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Message:
    """One message of a conversation: who wrote it (``user`` or ``assistant``), its text
    and when."""

    role: str
    content: str
    at: datetime | None = None

    @classmethod
    def of(cls, message: Message | Mapping[str, Any]) -> Message:
        if isinstance(message, Message):
            return message
        role, content, at = message.get("role"), message.get("content"), message.get("at")
        if role not in ROLES:
            raise ValueError(f"a message's role must be user or assistant, got {role!r}")
        if not isinstance(content, str) or not content.strip():
            raise ValueError("a message needs its text in content")
        if isinstance(at, str):
            at = datetime.fromisoformat(at.replace("Z", "+00:00"))
        if at is not None and not isinstance(at, datetime):
            raise ValueError(f"a message's at must be an ISO time, got {at!r}")
        return cls(role, content, at)


@dataclass(frozen=True)
class Extracted:
    """One memory the model extracted and what the store decided of it: the write's
    ``action``, ``memory_id`` and ``rule``, or, for an item the store refused, the
    ``error`` and its SQLSTATE (``action`` is then ``refused``)."""

    item: dict[str, Any]
    action: str
    memory_id: Any = None
    rule: str | None = None
    error: str | None = None
    sqlstate: str | None = None


@dataclass
class Remembered:
    """What :func:`remember` did: every extracted memory with the store's decision, and
    what it cost (requests, and tokens as the server's ``usage`` counted them)."""

    messages: int = 0
    memories: list[Extracted] = field(default_factory=list)
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def refused(self) -> list[Extracted]:
        return [m for m in self.memories if m.action == "refused"]

    def per_100_messages(self) -> tuple[float, float]:
        """(calls, tokens) per 100 messages."""
        if not self.messages:
            return 0.0, 0.0
        scale = 100 / self.messages
        return self.calls * scale, (self.prompt_tokens + self.completion_tokens) * scale


def system_prompt() -> str:
    return PROMPT_FILE.read_text(encoding="utf-8").strip()


def _when(at: datetime | None) -> str:
    return at.isoformat(timespec="minutes") if at is not None else "date unknown"


def user_prompt(messages: Sequence[Message], topics: Iterable[tuple[str, str, str]]) -> str:
    """The chunk's messages with their dates, and the known topics (topic, kind, text)."""
    known = [f"- {topic} ({kind}): {content}" for topic, kind, content in topics]
    lines = ["Known topics and their current text:", *(known or ["(none yet)"]), ""]
    lines.append("Conversation:")
    lines += [f"[{_when(m.at)}] {m.role}: {m.content}" for m in messages]
    return "\n".join(lines)


def request(
    model: str,
    messages: Sequence[Message],
    topics: Iterable[tuple[str, str, str]],
    *,
    structured: bool = True,
) -> dict[str, Any]:
    """The chat completions body of one chunk (:func:`pymem.chat.job_request`)."""
    return job_request(JOB, model, system_prompt(), user_prompt(messages, topics), SCHEMA,
                       structured=structured)  # fmt: skip


def parse(body: Any) -> list[dict[str, Any]]:
    """The items of an answer, checked against the job's schema: each a dict with a
    non-empty text content and the other keys of the right type, none unknown.
    :class:`~pymem.chat.MalformedAnswer` otherwise, naming the item."""
    answer = json_object(message_content(body), in_prose=True)
    memories = answer.get("memories")
    if not isinstance(memories, list):
        raise MalformedAnswer('the answer has no "memories" list')
    items = []
    for i, item in enumerate(memories, 1):
        if not isinstance(item, dict):
            raise MalformedAnswer(f"memory {i} is not an object")
        unknown = set(item) - set(ITEM_SCHEMA["properties"])
        if unknown:
            raise MalformedAnswer(f"memory {i} has unknown keys {sorted(unknown)}")
        if not isinstance(item.get("content"), str) or not item["content"].strip():
            raise MalformedAnswer(f"memory {i} has no content")
        for key in ("kind", "topic", "canonical", "valid_until", "source"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise MalformedAnswer(f"memory {i}: {key} must be text or null")
        contacts = item.get("contacts") or []
        if not isinstance(contacts, list) or not all(isinstance(c, str) for c in contacts):
            raise MalformedAnswer(f"memory {i}: contacts must be a list of names")
        importance = item.get("importance")
        if importance is not None and (
            isinstance(importance, bool) or not isinstance(importance, (int, float))
        ):
            raise MalformedAnswer(f"memory {i}: importance must be a number or null")
        items.append({k: v for k, v in item.items() if v is not None and v != []})
    return items


def chunks(messages: Sequence[Message], size: int = CHUNK) -> list[Sequence[Message]]:
    if size < 1:
        raise ValueError(f"a chunk holds at least one message, got {size}")
    return [messages[i : i + size] for i in range(0, len(messages), size)]


# a refusal of one item (its content, kind, value, ...), as opposed to a store that
# cannot be written (connection, permissions): the batch is then written item by item
def _refuses_an_item(exc: Exception) -> bool:
    return isinstance(exc, PymemError) and (exc.sqlstate or "")[:2] in ("PM", "22")


def _written(item: dict[str, Any], row: Any) -> Extracted:
    return Extracted(item, row.action, row.memory_id, row.rule)


def _write_steps(
    user_id: str, items: list[dict[str, Any]], vectors: Any, upsert_many: Callable
) -> Any:
    """The chunk's writes as steps:
    one batch, or, when the store refuses an item of it, each item on its own."""
    batch = [{**item, "embedding": vector} for item, vector in zip(items, vectors, strict=True)]
    try:
        rows = yield functools.partial(upsert_many, user_id, batch)
        return [_written(item, row) for item, row in zip(items, rows, strict=True)]
    except Exception as exc:
        if not _refuses_an_item(exc):
            raise
    out = []
    for item, one in zip(items, batch, strict=True):
        try:
            (row,) = yield functools.partial(upsert_many, user_id, [one])
            out.append(_written(item, row))
        except Exception as exc:
            if not _refuses_an_item(exc):
                raise
            out.append(Extracted(item, "refused", error=str(exc), sqlstate=exc.sqlstate))
    return out


def _steps(
    store: Any,
    user_id: str,
    messages: Iterable[Message | Mapping[str, Any]],
    chat: Any,
    embed: Callable[[list[str]], Any],
    *,
    chunk: int = CHUNK,
    max_topics: int = 50,
    structured: bool = True,
) -> Any:
    """Extract the memories of a conversation with ``chat`` (a
    :class:`~pymem.chat.ChatClient`) and write them to ``store`` for ``user_id``,
    embedded by ``embed``; see the module's doc. A malformed answer raises
    :class:`~pymem.chat.MalformedAnswer` with the chunks before it written.
    ``aremember``: the same on an AsyncMemoryStore and an AsyncChatClient."""
    conversation = [Message.of(m) for m in messages]
    done = Remembered(messages=len(conversation))
    for part in chunks(conversation, chunk):
        topics = yield functools.partial(store.live_topics, user_id, max_topics)
        body = request(chat.model, part, [(t.topic, t.kind, t.content) for t in topics],
                       structured=structured)  # fmt: skip
        answer = yield functools.partial(chat.post, body)
        done.calls += 1
        prompt, completion = usage_of(answer)
        done.prompt_tokens += prompt
        done.completion_tokens += completion
        items = yield from _embeddable(store, parse(answer), done)
        if items:
            vectors = embed([item["content"] for item in items])
            done.memories += yield from _write_steps(user_id, items, vectors, store.upsert_many)
    return done


def _embeddable(store: Any, items: list[dict[str, Any]], done: Remembered) -> Any:
    """The items whose text the store takes (``check_contents``, before anything is
    embedded); the others are reported refused."""
    if not items:
        return items
    try:
        yield functools.partial(store.check_contents, [item["content"] for item in items])
        return items
    except Exception as exc:
        if not _refuses_an_item(exc):
            raise
    kept = []
    for item in items:
        try:
            yield functools.partial(store.check_contents, [item["content"]], ["content"])
            kept.append(item)
        except Exception as exc:
            if not _refuses_an_item(exc):
                raise
            done.memories.append(Extracted(item, "refused", error=str(exc), sqlstate=exc.sqlstate))
    return kept


remember, aremember = _sync_and_async(_steps, "remember")
