"""The model jobs that tidy what the store holds (docs/llm.md), each run once by a call:

- ``pymem_consolidate`` (:func:`consolidate_group`): the model writes one record of a
  group of fragments (what ``consolidation_due`` announces); ``pymem.consolidate``
  folds them, and its guards refuse a record that drops a fragment's detail.
- ``pymem_profile`` (:func:`write_profile`): the model writes the profile of a person
  the user knows (what ``contact_profile_due`` announces); ``pymem.consolidate_contact``
  stores it and folds the person's fragments.
- ``pymem_reflect`` (:func:`reflect`): the model rereads the user's recent memories with
  their nearest older ones and answers a maintenance plan; a plan that names a memory
  it was not shown is refused whole, and ``pymem.apply_maintenance`` applies the rest
  as one transaction (one bad op applies nothing).

Nothing the model says is applied unchecked: the answer is checked against the job's
JSON schema, the ids against what the prompt showed, the texts by the SQL. An app's
worker calls these on the events it hears; each returns what it cost.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

from pymem.chat import (
    MalformedAnswer,
    job_request,
    json_object,
    message_content,
    printable,
    usage_of,
)
from pymem.steps import _sync_and_async

CONSOLIDATE = "pymem_consolidate"
PROFILE = "pymem_profile"
REFLECT = "pymem_reflect"
PROMPTS = Path(__file__).with_name("prompts")

_DETAILS = {"type": "object", "additionalProperties": {"type": ["string", "number"]}}
CONSOLIDATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "content": {"type": "string"},
        "details": _DETAILS,
    },
    "required": ["content", "details"],
    "additionalProperties": False,
}
PROFILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {"type": "string"},
        "relationship": {"type": ["string", "null"]},
        "attributes": _DETAILS,
    },
    "required": ["description", "relationship", "attributes"],
    "additionalProperties": False,
}
OPS = ("merge", "update", "delete", "no-change")
REFLECT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ops": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": list(OPS)},
                    "id": {"type": ["string", "null"]},
                    "ids": {"type": ["array", "null"], "items": {"type": "string"}},
                    "content": {"type": ["string", "null"]},
                    # why: kept in the memory's history (apply_maintenance)
                    "reason": {"type": ["string", "null"]},
                },
                "required": ["op", "id", "ids", "content", "reason"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["ops"],
    "additionalProperties": False,
}


class UnshownMemory(MalformedAnswer):
    """A plan names a memory the model was not shown: refused whole, nothing applied."""


@dataclass
class JobResult:
    """What a job did: ``record`` (consolidate: the record's id), ``applied`` (reflect:
    ``apply_maintenance``'s rows), ``refused`` (why a plan was refused, nothing applied),
    and what it cost."""

    job: str
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    record: UUID | None = None
    applied: list[Any] = field(default_factory=list)
    refused: str | None = None


def _prompt(name: str) -> str:
    return (PROMPTS / f"{name}.md").read_text(encoding="utf-8").strip()


def _when(at: datetime) -> str:
    return at.isoformat(timespec="minutes")


def _shown(m: Any) -> str:
    return f"[{m.memory_id}] ({m.kind}, {_when(m.updated_at)}) {m.content}"


def _check_flat(value: Any, name: str) -> None:
    """A flat object of text and number values, as the schemas' details and attributes."""
    if not isinstance(value, dict) or not all(
        isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value.values()
    ):
        raise MalformedAnswer(f"{name} must be an object of text and number values")


def _known_keys(answer: dict[str, Any], schema: dict[str, Any]) -> None:
    unknown = set(answer) - set(schema["properties"])
    if unknown:
        raise MalformedAnswer(f"unknown keys {sorted(unknown)}")


def _asked(result: JobResult, body: dict[str, Any], chat: Any) -> Any:
    """Steps: one request; its cost counted, its answer returned."""
    answer = yield functools.partial(chat.post, body)
    result.calls += 1
    prompt, completion = usage_of(answer)
    result.prompt_tokens += prompt
    result.completion_tokens += completion
    return json_object(message_content(answer), in_prose=True)


def _consolidate_steps(
    store: Any,
    user_id: str,
    member_ids: Sequence[UUID | str],
    chat: Any,
    embed: Callable[[list[str]], Any],
    *,
    structured: bool = True,
) -> Any:
    """One record of the fragments ``member_ids`` (live memories of the user), written by
    the model and folded by ``pymem.consolidate`` (``DetailsDropped`` when it leaves out
    a fragment's detail: nothing is folded). ``aconsolidate_group``: the same on an
    AsyncMemoryStore and an AsyncChatClient."""
    result = JobResult(CONSOLIDATE)
    members = yield functools.partial(store.get_memories, user_id, list(member_ids))
    user = "Fragments:\n" + "\n".join(_shown(m) for m in members)
    body = job_request(CONSOLIDATE, chat.model, _prompt("consolidate"), user,
                       CONSOLIDATE_SCHEMA, structured=structured)  # fmt: skip
    answer = yield from _asked(result, body, chat)
    _known_keys(answer, CONSOLIDATE_SCHEMA)
    content, details = answer.get("content"), answer.get("details", {})
    if not isinstance(content, str) or not content.strip():
        raise MalformedAnswer("the record has no content")
    _check_flat(details, "details")
    yield functools.partial(store.check_contents, [content], ["record"])
    (vector,) = embed([content])
    result.record = yield functools.partial(
        store.consolidate, user_id, [m.memory_id for m in members], content, vector, details
    )
    return result


def _profile_steps(
    store: Any, user_id: str, contact: str, chat: Any, *, structured: bool = True
) -> Any:
    """The profile of a person the user knows (what ``contact_profile_due`` announces):
    the model reads the person's card and the memories that mention them and answers a
    description, a relationship and attributes; ``pymem.consolidate_contact`` stores
    them and folds the person's fragments into the profile memory (``record``).
    ``awrite_profile``: the same on an AsyncMemoryStore and an AsyncChatClient."""
    result = JobResult(PROFILE)
    card = yield functools.partial(store.contact_card, user_id, contact)
    mentions = yield functools.partial(store.contact_memories, user_id, contact)
    user = f"Card:\n{card}\n\nMemories:\n" + "\n".join(f"- {m.content}" for m in mentions)
    body = job_request(PROFILE, chat.model, _prompt("profile"), user, PROFILE_SCHEMA,
                       structured=structured)  # fmt: skip
    answer = yield from _asked(result, body, chat)
    _known_keys(answer, PROFILE_SCHEMA)
    description, relationship = answer.get("description"), answer.get("relationship")
    attributes = answer.get("attributes", {})
    if not isinstance(description, str) or not description.strip():
        raise MalformedAnswer("the profile has no description")
    if relationship is not None and not isinstance(relationship, str):
        raise MalformedAnswer("relationship must be text or null")
    _check_flat(attributes, "attributes")
    result.record = yield functools.partial(
        store.consolidate_contact, user_id, contact, description, attributes, relationship
    )
    return result


def _plan(answer: dict[str, Any], shown: set[str]) -> list[dict[str, Any]]:
    """The ops of a reflect answer, checked: known ops with their fields, and only the
    ids shown (:class:`UnshownMemory` otherwise)."""
    ops = answer.get("ops")
    if not isinstance(ops, list):
        raise MalformedAnswer('the answer has no "ops" list')
    plan = []
    for i, op in enumerate(ops, 1):
        if not isinstance(op, dict) or op.get("op") not in OPS:
            raise MalformedAnswer(f"op {i} is not one of {', '.join(OPS)}")
        kind = op["op"]
        ids = op.get("ids") if kind == "merge" else [op.get("id")]
        if not isinstance(ids, list) or not ids or not all(isinstance(x, str) for x in ids):
            raise MalformedAnswer(f"op {i} ({kind}) names no memory")
        unshown = [x for x in ids if x not in shown]
        if unshown:
            raise UnshownMemory(f"op {i} ({kind}) names memories it was not shown: {unshown}")
        step: dict[str, Any] = {"op": kind}
        if kind == "merge":
            step["ids"] = ids
        else:
            step["id"] = ids[0]
        if kind in ("merge", "update"):
            if not isinstance(op.get("content"), str) or not op["content"].strip():
                raise MalformedAnswer(f"op {i} ({kind}) has no content")
            step["content"] = op["content"]
        reason = op.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise MalformedAnswer(f"op {i} ({kind}): reason must be text or null")
        if reason and reason.strip():
            step["reason"] = printable(reason)
        plan.append(step)
    return plan


def _reflect_steps(
    store: Any,
    user_id: str,
    chat: Any,
    embed: Callable[[list[str]], Any],
    *,
    since: datetime | None = None,
    recent: int = 20,
    neighbours: int = 3,
    structured: bool = True,
) -> Any:
    """The model rereads the user's ``recent`` latest memories changed after ``since``,
    each with its ``neighbours`` nearest, and answers a plan that ``apply_maintenance``
    applies; a user with nothing changed since costs no call. A plan naming a memory
    the prompt did not show is refused (``refused``), nothing applied. ``areflect``: the
    same on an AsyncMemoryStore and an AsyncChatClient."""
    result = JobResult(REFLECT)
    live = yield functools.partial(store.get_memories, user_id)
    fresh = [m for m in live if since is None or m.updated_at > since]
    fresh = sorted(fresh, key=lambda m: m.updated_at)[-recent:]
    if not fresh:
        return result  # nothing new: no call
    vectors = embed([m.content for m in fresh])
    lines, shown = [], {str(m.memory_id) for m in fresh}
    for m, vector in zip(fresh, vectors, strict=True):
        lines.append(_shown(m))
        near = yield functools.partial(store.recall, user_id, vector, neighbours + 1)
        for hit in near:
            if hit.memory_id != m.memory_id:
                lines.append(f"    near: [{hit.memory_id}] ({hit.kind}) {hit.content}")
                shown.add(str(hit.memory_id))
    body = job_request(REFLECT, chat.model, _prompt("reflect"), "Memories:\n" + "\n".join(lines),
                       REFLECT_SCHEMA, structured=structured)  # fmt: skip
    answer = yield from _asked(result, body, chat)
    try:
        plan = _plan(answer, shown)
    except UnshownMemory as exc:
        result.refused = str(exc)
        return result
    texts = [op["content"] for op in plan if "content" in op]
    if texts:
        yield functools.partial(store.check_contents, texts)
        for op, vector in zip([op for op in plan if "content" in op], embed(texts), strict=True):
            op["embedding"] = vector
    if plan:
        result.applied = yield functools.partial(store.apply_maintenance, user_id, plan)
    return result


consolidate_group, aconsolidate_group = _sync_and_async(_consolidate_steps, "consolidate_group")
write_profile, awrite_profile = _sync_and_async(_profile_steps, "write_profile")
reflect, areflect = _sync_and_async(_reflect_steps, "reflect")
