"""A judge for the review loop on an OpenAI-compatible chat completions endpoint
(OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp's server, ...): ``pip install pymem[llm]``.

The wire contract (docs/review-worker.md), fixed so that any server and pymem's checks
speak it: one review per request, ``POST {base_url}/chat/completions`` with
``{"model", "messages": [system, user], "temperature": 0}``; the user message holds both
memories' texts with their kind, topic and dates. The assistant's message content is one
JSON object ``{"decision": "duplicate" | "supersede" | "keep_both" | "past" | "conflict",
"reason": "..."}`` (a markdown code fence around it is tolerated); anything else is
malformed, and the review stays queued with that error.
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
# the system message: the prompt file, whose first line names the job (docs/llm.md)
SYSTEM_PROMPT = (PROMPTS / "review.md").read_text(encoding="utf-8").strip()
REVIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": list(DECISIONS)},
        "reason": {"type": "string"},
    },
    "required": ["decision", "reason"],
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


def chat_request(model: str, review: ClaimedReview, *, structured: bool = True) -> dict[str, Any]:
    """The body of the chat completions request for one review: the job ``pymem_review``
    named in ``response_format`` with its schema, or (``structured`` False, for a server
    without structured output) the schema at the end of the system message."""
    return job_request(REVIEW, model, SYSTEM_PROMPT, review_prompt(review), REVIEW_SCHEMA,
                       structured=structured)  # fmt: skip


def parse_chat_response(body: Any) -> Verdict:
    """The verdict in a chat completions response: ``choices[0].message.content`` as the
    JSON object of the contract; :class:`~pymem.review.MalformedVerdict` otherwise."""
    try:
        return verdict(json_object(message_content(body)))
    except MalformedAnswer as exc:
        raise MalformedVerdict(str(exc)) from None


def judged(chat: Any, review: ClaimedReview, structured: bool = True) -> Verdict:
    """The verdict of the model behind ``chat`` (anything with ``model`` and ``post``, as a
    ChatClient) on one review; :class:`~pymem.review.JudgeError` when there is none."""
    try:
        body = chat_request(chat.model, review, structured=structured)
        return parse_chat_response(chat.post(body))
    except MalformedAnswer as exc:
        raise MalformedVerdict(str(exc)) from None
    except ModelError as exc:
        raise JudgeError(str(exc)) from None


async def ajudged(chat: Any, review: ClaimedReview, structured: bool = True) -> Verdict:
    """:func:`judged` with an async ``post``."""
    body = chat_request(chat.model, review, structured=structured)
    try:
        return parse_chat_response(await chat.post(body))
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

    def __call__(self, review: ClaimedReview) -> Verdict:
        return judged(self, review, self.structured)


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

    async def __call__(self, review: ClaimedReview) -> Verdict:
        return await ajudged(self, review, self.structured)


__all__ = [
    "DECISIONS",
    "REVIEW",
    "REVIEW_SCHEMA",
    "SYSTEM_PROMPT",
    "AsyncOpenAIJudge",
    "OpenAIJudge",
    "ajudged",
    "chat_request",
    "judged",
    "parse_chat_response",
    "review_prompt",
]
