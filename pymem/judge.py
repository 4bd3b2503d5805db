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

import asyncio
import json
import os
import re
import threading
import time
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pymem.review import DECISIONS, JudgeError, MalformedVerdict, Verdict, printable, verdict
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


_FENCED = re.compile(r"\A```[a-zA-Z]*\s*\n(.*?)\n?```\Z", re.S)


def parse_chat_response(body: Any) -> Verdict:
    """The verdict in a chat completions response: ``choices[0].message.content`` as the
    JSON object of the contract; :class:`~pymem.review.MalformedVerdict` otherwise."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise MalformedVerdict(
            f"no choices[0].message.content in the response: {json.dumps(body)[:200]}"
        ) from None
    if not isinstance(content, str):
        raise MalformedVerdict(f"the message content is not text: {content!r:.200}")
    text = content.strip()
    fenced = _FENCED.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        answer = json.loads(text)
    except ValueError:
        raise MalformedVerdict(f"the answer is not JSON: {content!r:.200}") from None
    if not isinstance(answer, dict):
        raise MalformedVerdict(f"the answer is not a JSON object: {content!r:.200}")
    return verdict(answer)


def _endpoint(base_url: str) -> str:
    """``{base_url}/chat/completions``, the base's query (Azure's ``api-version``) kept."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
    path = parts.path.rstrip("/") + "/chat/completions"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


class OpenAIJudge:
    """Asks an OpenAI-compatible chat completions endpoint to decide each review.

    ``base_url`` (default ``OPENAI_BASE_URL``): the API root, e.g.
    ``https://api.openai.com/v1``, ``http://localhost:11434/v1`` (Ollama),
    ``http://localhost:8000/v1`` (vLLM), ``http://localhost:8080/v1`` (llama.cpp),
    ``https://RESOURCE.openai.azure.com/openai/v1`` (Azure, with
    ``auth_header="api-key"``). ``model`` (default ``PYMEM_JUDGE_MODEL``): the model or
    Azure deployment. The key is ``api_key``, else the environment variable named by
    ``api_key_env``; none is sent when there is none (local servers). ``timeout``: seconds
    for the whole request. The key never appears in an error.
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        auth_header: str = "Authorization",
    ):
        try:
            import httpx  # noqa: F401
        except ImportError as exc:  # pragma: no cover - the extra is part of dev
            raise ImportError("OpenAIJudge needs httpx: pip install 'pymem[llm]'") from exc
        base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        model = model or os.environ.get("PYMEM_JUDGE_MODEL")
        if not base_url:
            raise ValueError("OpenAIJudge needs base_url (or OPENAI_BASE_URL)")
        if not model:
            raise ValueError("OpenAIJudge needs model (or PYMEM_JUDGE_MODEL)")
        self.url = _endpoint(base_url)
        self.model = model
        self.timeout = timeout
        self._key = api_key if api_key is not None else os.environ.get(api_key_env) or None
        self._headers = {"Content-Type": "application/json"}
        if self._key:
            bearer = auth_header.lower() == "authorization"
            self._headers[auth_header] = f"Bearer {self._key}" if bearer else self._key
        self._client: Any = None

    def __repr__(self) -> str:  # never the key
        return f"{type(self).__name__}(url={self.url!r}, model={self.model!r})"

    def __call__(self, review: ClaimedReview) -> Verdict:
        import httpx

        if self._client is None:
            self._client = httpx.Client(timeout=self.timeout)
        client, deadline = self._client, time.monotonic() + self.timeout
        # httpx's timeout bounds each read, not the request: a server that trickles its
        # answer would hold the call for ever. The request runs in a thread that is waited
        # for until the deadline; one left behind stops at its next read.
        done: list[Any] = []

        def ask() -> None:
            try:
                request = client.stream(
                    "POST", self.url, json=chat_request(self.model, review), headers=self._headers
                )
                with request as response:
                    body = bytearray()
                    for chunk in response.iter_bytes():
                        if time.monotonic() > deadline:
                            raise httpx.ReadTimeout("past the deadline")
                        body += chunk
                    done.append((response.status_code, self._text(response, body)))
            except Exception as exc:
                done.append(exc)

        thread = threading.Thread(target=ask, name="pymem-judge", daemon=True)
        thread.start()
        thread.join(max(0.0, deadline - time.monotonic()))
        if not done:
            raise self._late()
        return self._answer(done[0])

    def close(self) -> None:
        """Close the HTTP connections (the judge opens new ones if called again)."""
        client, self._client = self._client, None
        if client is not None:
            client.close()

    def __enter__(self) -> OpenAIJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _late(self) -> JudgeError:
        return JudgeError(f"no answer from {self.url} within {self.timeout:g} s")

    @staticmethod
    def _text(response: Any, body: bytes) -> str:
        return body.decode(response.encoding or "utf-8", errors="replace")

    def _answer(self, done: tuple[int, str] | Exception) -> Verdict:
        """The verdict in a response (status, text), or the error of the request; the
        key is taken out of all the server's text before any of it is quoted (a cut
        could split the key), and out of the error once more (an escape in JSON spells
        it otherwise)."""
        import httpx

        try:
            if isinstance(done, httpx.TimeoutException):
                raise self._late()
            if isinstance(done, httpx.HTTPError):
                raise JudgeError(printable(f"request to {self.url} failed: {done}"))
            if isinstance(done, Exception):
                raise done
            status, text = done[0], self._redacted(done[1])
            if not 200 <= status < 300:
                raise JudgeError(printable(f"HTTP {status} from {self.url}: {text[:300]}"))
            try:
                body = json.loads(text)
            except ValueError:
                raise MalformedVerdict(f"the response is not JSON: {text[:200]!r}") from None
            return parse_chat_response(body)
        except JudgeError as exc:
            raise type(exc)(self._redacted(str(exc))) from None

    def _redacted(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key else text


class AsyncOpenAIJudge(OpenAIJudge):
    """:class:`OpenAIJudge` for :class:`~pymem.review.AsyncReviewWorker`: the same request
    and answer, on ``httpx.AsyncClient``."""

    async def __call__(self, review: ClaimedReview) -> Verdict:  # type: ignore[override]
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout)
        client = self._client

        async def ask() -> tuple[int, str]:
            request = client.stream(
                "POST", self.url, json=chat_request(self.model, review), headers=self._headers
            )
            async with request as response:
                return response.status_code, self._text(response, await response.aread())

        try:
            # the whole request: httpx's timeout bounds each read only
            done: tuple[int, str] | Exception = await asyncio.wait_for(ask(), self.timeout)
        except asyncio.TimeoutError:
            raise self._late() from None
        except httpx.HTTPError as exc:
            done = exc
        return self._answer(done)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def __aenter__(self) -> AsyncOpenAIJudge:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


__all__ = [
    "DECISIONS",
    "SYSTEM_PROMPT",
    "AsyncOpenAIJudge",
    "OpenAIJudge",
    "chat_request",
    "parse_chat_response",
    "review_prompt",
]
