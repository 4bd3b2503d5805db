"""A judge for the review loop on an OpenAI-compatible chat completions endpoint
(OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp's server, ...): ``pip install pymem[llm]``.

The wire contract (docs/review-worker.md), fixed so that any server and pymem's checks
speak it: one review per request, ``POST {base_url}/chat/completions`` with
``{"model", "messages": [system, user], "temperature": 0}``; the user message holds both
memories' texts with their kind, topic and dates. The assistant's message content is one
JSON object ``{"decision": "duplicate" | "supersede" | "keep_both" | "conflict",
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
    json_object,
    message_content,
)
from pymem.review import DECISIONS, JudgeError, MalformedVerdict, Verdict, verdict
from pymem.store import ClaimedReview

SYSTEM_PROMPT = """\
You review pairs of memories that an assistant keeps about its user. The newer memory \
was written while the older one was already stored, and the two are similar. Decide \
what the newer memory is:
- "duplicate": the same fact as the older memory, said again; the newer copy is dropped.
- "supersede": a new value of the same fact (an update or a correction); the older \
memory takes the newer text.
- "keep_both": two different facts; both stay.
- "conflict": they contradict each other and only the user can say which is true; both \
stay, and the user is asked.
Memories of two kinds (an event against a preference, a habit or a fact) are one fact \
only when they say the same thing: an event that goes against a standing fact ("had fish \
tacos" against "is vegetarian") is a "conflict", not a "supersede".
When unsure, answer "keep_both": nothing is lost. Answer with one JSON object and \
nothing else: {"decision": "duplicate" | "supersede" | "keep_both" | "conflict", \
"reason": "<one short sentence>"}"""


def _when(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M %Z").strip()


def _memory(label: str, content: str, kind: str, topic: str | None, created, updated) -> str:
    dates = f"written {_when(created)}"
    if updated != created:
        dates += f", last changed {_when(updated)}"
    return f"{label} (kind {kind}, topic {topic or 'none'}, {dates}):\n{content}"


def review_prompt(review: ClaimedReview) -> str:
    """The user message for one review: both memories, older first, and their similarity."""
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
    return "\n\n".join(parts)


def chat_request(model: str, review: ClaimedReview) -> dict[str, Any]:
    """The body of the chat completions request for one review."""
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": review_prompt(review)},
        ],
        "temperature": 0,
    }


def parse_chat_response(body: Any) -> Verdict:
    """The verdict in a chat completions response: ``choices[0].message.content`` as the
    JSON object of the contract; :class:`~pymem.review.MalformedVerdict` otherwise."""
    try:
        return verdict(json_object(message_content(body)))
    except MalformedAnswer as exc:
        raise MalformedVerdict(str(exc)) from None


class OpenAIJudge(ChatClient):
    """Asks an OpenAI-compatible chat completions endpoint to decide each review
    (:class:`~pymem.chat.ChatClient`: ``base_url``, ``api_key``, ``timeout``,
    ``auth_header``); ``model`` defaults to ``PYMEM_JUDGE_MODEL``."""

    def __init__(self, *args: Any, model_env: str = "PYMEM_JUDGE_MODEL", **kwargs: Any):
        super().__init__(*args, model_env=model_env, **kwargs)

    def __call__(self, review: ClaimedReview) -> Verdict:
        try:
            return parse_chat_response(self.post(chat_request(self.model, review)))
        except MalformedAnswer as exc:
            raise MalformedVerdict(str(exc)) from None
        except ModelError as exc:
            raise JudgeError(str(exc)) from None


class AsyncOpenAIJudge(AsyncChatClient):
    """:class:`OpenAIJudge` for :class:`~pymem.review.AsyncReviewWorker`: the same request
    and answer, on ``httpx.AsyncClient``."""

    def __init__(self, *args: Any, model_env: str = "PYMEM_JUDGE_MODEL", **kwargs: Any):
        super().__init__(*args, model_env=model_env, **kwargs)

    async def __call__(self, review: ClaimedReview) -> Verdict:
        try:
            return parse_chat_response(await self.post(chat_request(self.model, review)))
        except MalformedAnswer as exc:
            raise MalformedVerdict(str(exc)) from None
        except ModelError as exc:
            raise JudgeError(str(exc)) from None


__all__ = [
    "DECISIONS",
    "SYSTEM_PROMPT",
    "AsyncOpenAIJudge",
    "OpenAIJudge",
    "chat_request",
    "parse_chat_response",
    "review_prompt",
]
