"""A judge for the review loop on an OpenAI-compatible chat completions endpoint
(OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp's server, ...): ``pip install pymem[llm]``.

The wire contract (docs/review-worker.md), fixed so that any server and pymem's checks
speak it: one review per request by default, ``POST {base_url}/chat/completions`` with
``{"model", "messages": [system, user], "temperature": 0}``; the user message holds both
memories' texts with their kind, topic and dates. The assistant's message content is one
JSON object ``{"decision": "duplicate" | "supersede" | "keep_both" | "past" | "conflict",
"reason": "..."}`` (a markdown code fence around it is tolerated); anything else is
malformed, and the review stays queued with that error. Asked several reviews at once
(the worker's ``reviews_per_call``), one request holds them all as numbered pairs and the
answer is ``{"verdicts": [{"pair": 1, "decision", "reason"}, ...]}``: a pair without a
verdict stays queued with that error, the others are decided.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pymem.chat import (
    AsyncChatClient,
    ChatClient,
    MalformedAnswer,
    ModelError,
    job_request,
    json_object,
    message_content,
)
from pymem.jobs import PROMPTS
from pymem.records import ClaimedReview
from pymem.review import DECISIONS, JudgeError, MalformedVerdict, Verdict, verdict

REVIEW = "pymem_review"
REVIEW_BATCH = "pymem_review_batch"
# the system message: the prompt file, whose first line names the job (docs/llm.md)
SYSTEM_PROMPT = (PROMPTS / "review.md").read_text(encoding="utf-8").strip()


def _batch_prompt() -> str:
    """The system message of several reviews a request: review.md's rules (its job line
    and its closing paragraph, the one answer's format, left out) between
    review_batch.md's job line and its answer's format; the rules are written once."""
    batch = (PROMPTS / "review_batch.md").read_text(encoding="utf-8").strip()
    job, _, answer = batch.partition("\n")
    rules = SYSTEM_PROMPT.partition("\n")[2].strip().rpartition("\n\n")[0]
    return f"{job}\n\n{rules}\n\n{answer.strip()}"


BATCH_SYSTEM_PROMPT = _batch_prompt()
REVIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": list(DECISIONS)},
        "reason": {"type": "string"},
    },
    "required": ["decision", "reason"],
    "additionalProperties": False,
}
BATCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"pair": {"type": "integer"}, **REVIEW_SCHEMA["properties"]},
                "required": ["pair", "decision", "reason"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["verdicts"],
    "additionalProperties": False,
}


def _when(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M %Z").strip()


def _memory(label: str, content: str, kind: str, topic: str | None, created, updated) -> str:
    dates = f"written {_when(created)}"
    if updated != created:
        dates += f", last changed {_when(updated)}"
    return f"{label} (kind {kind}, topic {topic or 'none'}, {dates}):\n{content}"


def review_prompt(review: ClaimedReview) -> str:
    """The user message for one review: both memories, older first, their similarity, and,
    for a newer memory queued for being close to what the older one said before, that
    earlier text (the review's note)."""
    parts = [
        _memory(
            "Older memory",
            review.matched_content,
            review.matched_kind,
            review.matched_topic,
            review.matched_created_at,
            review.matched_updated_at,
        ),
        _memory(
            "Newer memory",
            review.content,
            review.kind,
            review.topic,
            review.created_at,
            review.updated_at,
        ),
    ]
    if review.similarity is not None:
        parts.append(f"Similarity of their embeddings: {review.similarity:.2f} (1 is identical).")
    if review.note:
        parts.append(f"Why the pair was queued: {review.note}")
    return "\n\n".join(parts)


def batch_prompt(reviews: list[ClaimedReview]) -> str:
    """The user message for several reviews: each as :func:`review_prompt` words it, under
    its number ("Pair 1", ...)."""
    return "\n\n".join(
        f"Pair {n}:\n\n{review_prompt(review)}" for n, review in enumerate(reviews, 1)
    )


def chat_request(model: str, review: ClaimedReview, *, structured: bool = True) -> dict[str, Any]:
    """The body of the chat completions request for one review: the job ``pymem_review``
    named in ``response_format`` with its schema, or (``structured`` False, for a server
    without structured output) the schema at the end of the system message."""
    return job_request(REVIEW, model, SYSTEM_PROMPT, review_prompt(review), REVIEW_SCHEMA,
                       structured=structured)  # fmt: skip


def batch_request(
    model: str, reviews: list[ClaimedReview], *, structured: bool = True
) -> dict[str, Any]:
    """The body of one chat completions request for several reviews (``pymem_review_batch``)."""
    return job_request(REVIEW_BATCH, model, BATCH_SYSTEM_PROMPT, batch_prompt(reviews),
                       BATCH_SCHEMA, structured=structured)  # fmt: skip


def parse_batch_response(body: Any, pairs: int) -> list[Verdict | MalformedVerdict]:
    """The verdict of each of ``pairs`` pairs in a batch's response, in their order; a pair
    the answer gives no usable verdict (none, two, a malformed one) gets the
    :class:`~pymem.review.MalformedVerdict` saying why. An answer that is no JSON object
    with a list ``verdicts``, or that numbers a pair outside 1..pairs, raises it."""
    try:
        answer = json_object(message_content(body))
    except MalformedAnswer as exc:
        raise MalformedVerdict(str(exc)) from None
    items = answer.get("verdicts")
    if not isinstance(items, list):
        raise MalformedVerdict(f"the answer has no list 'verdicts': {answer!r:.200}")
    found: dict[int, list[Any]] = {}
    for item in items:
        number = item.get("pair") if isinstance(item, dict) else None
        if isinstance(number, int) and not isinstance(number, bool):
            found.setdefault(number, []).append(item)
    # a pair number outside 1..pairs means the model numbered them some other way
    # (from 0, say): every verdict might then sit one pair off, so none is taken
    strays = sorted(n for n in found if not 1 <= n <= pairs)
    if strays:
        raise MalformedVerdict(f"the answer numbers pairs {strays}, asked pairs 1 to {pairs}")
    out: list[Verdict | MalformedVerdict] = []
    for n in range(1, pairs + 1):
        given = found.get(n, [])
        if len(given) != 1:
            out.append(MalformedVerdict(f"the answer has {len(given)} verdicts for pair {n}"))
            continue
        try:
            out.append(verdict(given[0]))
        except MalformedVerdict as exc:
            out.append(exc)
    return out


def parse_chat_response(body: Any) -> Verdict:
    """The verdict in a chat completions response: ``choices[0].message.content`` as the
    JSON object of the contract; :class:`~pymem.review.MalformedVerdict` otherwise."""
    try:
        return verdict(json_object(message_content(body)))
    except MalformedAnswer as exc:
        raise MalformedVerdict(str(exc)) from None


def _request(chat: Any, asked: Any, structured: bool) -> dict[str, Any]:
    if isinstance(asked, list):
        return batch_request(chat.model, asked, structured=structured)
    return chat_request(chat.model, asked, structured=structured)


def _parsed(body: Any, asked: Any) -> Any:
    if isinstance(asked, list):
        return parse_batch_response(body, len(asked))
    return parse_chat_response(body)


def judged(chat: Any, asked: Any, structured: bool = True) -> Any:
    """The verdict of the model behind ``chat`` (anything with ``model`` and ``post``, as a
    ChatClient) on one review, or on each of a list of reviews in one request (a verdict
    or the MalformedVerdict of each); :class:`~pymem.review.JudgeError` when there is
    none."""
    try:
        return _parsed(chat.post(_request(chat, asked, structured)), asked)
    except MalformedAnswer as exc:
        raise MalformedVerdict(str(exc)) from None
    except ModelError as exc:
        raise JudgeError(str(exc)) from None


async def ajudged(chat: Any, asked: Any, structured: bool = True) -> Any:
    """:func:`judged` with an async ``post``."""
    body = _request(chat, asked, structured)
    try:
        return _parsed(await chat.post(body), asked)
    except MalformedAnswer as exc:
        raise MalformedVerdict(str(exc)) from None
    except ModelError as exc:
        raise JudgeError(str(exc)) from None


class OpenAIJudge(ChatClient):
    """Asks an OpenAI-compatible chat completions endpoint to decide each review
    (:class:`~pymem.chat.ChatClient`: ``base_url``, ``api_key``, ``timeout``,
    ``auth_header``); ``model`` defaults to ``PYMEM_JUDGE_MODEL``."""

    def __init__(
        self,
        *args: Any,
        model_env: str = "PYMEM_JUDGE_MODEL",
        structured: bool = True,
        **kwargs: Any,
    ):
        super().__init__(*args, model_env=model_env, **kwargs)
        self.structured = structured

    def __call__(self, asked: ClaimedReview | list[ClaimedReview]) -> Any:
        return judged(self, asked, self.structured)


class AsyncOpenAIJudge(AsyncChatClient):
    """:class:`OpenAIJudge` for :class:`~pymem.review.AsyncReviewWorker`: the same request
    and answer, on ``httpx.AsyncClient``."""

    def __init__(
        self,
        *args: Any,
        model_env: str = "PYMEM_JUDGE_MODEL",
        structured: bool = True,
        **kwargs: Any,
    ):
        super().__init__(*args, model_env=model_env, **kwargs)
        self.structured = structured

    async def __call__(self, asked: ClaimedReview | list[ClaimedReview]) -> Any:
        return await ajudged(self, asked, self.structured)


__all__ = [
    "BATCH_SCHEMA",
    "BATCH_SYSTEM_PROMPT",
    "DECISIONS",
    "REVIEW",
    "REVIEW_BATCH",
    "REVIEW_SCHEMA",
    "SYSTEM_PROMPT",
    "AsyncOpenAIJudge",
    "OpenAIJudge",
    "ajudged",
    "batch_prompt",
    "batch_request",
    "chat_request",
    "judged",
    "parse_batch_response",
    "parse_chat_response",
    "review_prompt",
]
