"""The client of an OpenAI-compatible chat completions endpoint (OpenAI, Azure OpenAI,
vLLM, Ollama, llama.cpp's server, ...) that pymem's model jobs share: the review judge
(pymem.judge) and extraction (pymem.extract). ``pip install pymem[llm]``.

One request is one ``POST {base_url}/chat/completions`` with a JSON body; the answer is
the response's JSON object, and what the assistant wrote is its
``choices[0].message.content``. A job's answer is one JSON object in that content
(:func:`json_object`); ``usage`` counts the tokens (:func:`usage_of`).
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import threading
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

# what a text column cannot take or a log should not show: control characters (NUL is
# refused by the driver) and lone surrogates (not UTF-8); whitespace is collapsed first
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


@functools.cache
def _tls_context() -> Any:
    """httpx's default TLS context (certifi's CAs, or SSL_CERT_FILE / SSL_CERT_DIR as the
    process started), built once a process: reading the CA store costs 20-40 ms of CPU,
    which every new client paid again, for an endpoint over plain HTTP too."""
    import httpx

    return httpx.create_ssl_context()


class ModelError(Exception):
    """The model gave no usable answer: an HTTP error, a timeout, a refused request."""


class MalformedAnswer(ModelError):
    """The model answered, but not with what the job asked for."""


def printable(text: str) -> str:
    """``text`` on one line that any store and terminal takes: whitespace runs as one
    space, other control characters and lone surrogates as their escapes (``\\x00``)."""
    return _UNPRINTABLE.sub(lambda m: ascii(m.group())[1:-1], " ".join(text.split()))


def message_content(body: Any) -> str:
    """``choices[0].message.content`` of a chat completions response, as text."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise MalformedAnswer(
            f"no choices[0].message.content in the response: {json.dumps(body)[:200]}"
        ) from None
    if not isinstance(content, str):
        raise MalformedAnswer(f"the message content is not text: {content!r:.200}")
    return content


_FENCED = re.compile(r"\A```[a-zA-Z]*\s*\n(.*?)\n?```\Z", re.S)


def json_object(content: str, *, in_prose: bool = False) -> dict[str, Any]:
    """The JSON object a model wrote: the whole text, or inside a markdown code fence;
    with ``in_prose``, also the outermost ``{...}`` of a text that says more around it
    ("Here are the memories: {...} Hope this helps"). Anything else is
    :class:`MalformedAnswer`."""
    text = content.strip()
    fenced = _FENCED.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        answer = json.loads(text)
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        if not in_prose or start < 0 or end < start:
            raise MalformedAnswer(f"the answer is not JSON: {content!r:.200}") from None
        try:
            answer = json.loads(text[start : end + 1])
        except ValueError:
            raise MalformedAnswer(f"the answer is not JSON: {content!r:.200}") from None
    if not isinstance(answer, dict):
        raise MalformedAnswer(f"the answer is not a JSON object: {content!r:.200}")
    return answer


def usage_of(body: Any) -> tuple[int, int]:
    """(prompt tokens, completion tokens) of a response's ``usage``; 0 for a count the
    server did not give."""
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return 0, 0

    def count(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) and value >= 0 else 0

    return count("prompt_tokens"), count("completion_tokens")


def job_request(
    job: str, model: str, system: str, user: str, schema: dict[str, Any], *, structured: bool
) -> dict[str, Any]:
    """The chat completions body of one of pymem's model jobs (docs/llm.md). With
    ``structured``, ``response_format`` names the job and carries its JSON schema; without
    (a server that lacks structured output) the schema goes at the end of the system
    message. The system message's first line names the job either way (the prompt
    files begin with it)."""
    body: dict[str, Any] = {"model": model, "temperature": 0}
    if structured:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": job, "schema": schema, "strict": True},
        }
    else:
        system += "\n\nThe answer's JSON schema:\n" + json.dumps(schema)
    body["messages"] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    return body


def _endpoint(base_url: str) -> str:
    """``{base_url}/chat/completions``, the base's query (Azure's ``api-version``) kept."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
    path = parts.path.rstrip("/") + "/chat/completions"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


class ChatClient:
    """Posts chat completions requests to an OpenAI-compatible endpoint.

    ``base_url`` (default ``OPENAI_BASE_URL``): the API root, e.g.
    ``https://api.openai.com/v1``, ``http://localhost:11434/v1`` (Ollama),
    ``http://localhost:8000/v1`` (vLLM), ``http://localhost:8080/v1`` (llama.cpp),
    ``https://RESOURCE.openai.azure.com/openai/v1`` (Azure, with
    ``auth_header="api-key"``). ``model`` (default: the variable ``model_env`` names):
    the model or Azure deployment. The key is ``api_key``, else the environment variable
    named by ``api_key_env``; none is sent when there is none (local servers).
    ``timeout``: seconds for the whole request. The key never appears in an error.
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
        model_env: str = "PYMEM_MODEL",
    ):
        try:
            import httpx  # noqa: F401
        except ImportError as exc:  # pragma: no cover - the extra is part of dev
            raise ImportError(
                f"{type(self).__name__} needs httpx: pip install 'pymem[llm]'"
            ) from exc
        base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        model = model or os.environ.get(model_env)
        if not base_url:
            raise ValueError(f"{type(self).__name__} needs base_url (or OPENAI_BASE_URL)")
        if not model:
            raise ValueError(f"{type(self).__name__} needs model (or {model_env})")
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

    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """The response's JSON object for one request; :class:`ModelError` when there is
        none (an HTTP error, a timeout, a body that is not JSON)."""
        import httpx

        if self._client is None:
            self._client = httpx.Client(timeout=self.timeout, verify=_tls_context())
        client, deadline = self._client, time.monotonic() + self.timeout
        # httpx's timeout bounds each read, not the request: a server that trickles its
        # answer would hold the call for ever. The request runs in a thread that is waited
        # for until the deadline; one left behind stops at its next read.
        done: list[Any] = []

        def ask() -> None:
            try:
                request = client.stream("POST", self.url, json=body, headers=self._headers)
                with request as response:
                    received = bytearray()
                    for chunk in response.iter_bytes():
                        if time.monotonic() > deadline:
                            raise httpx.ReadTimeout("past the deadline")
                        received += chunk
                    done.append((response.status_code, self._text(response, received)))
            except Exception as exc:
                done.append(exc)

        thread = threading.Thread(target=ask, name="pymem-chat", daemon=True)
        thread.start()
        thread.join(max(0.0, deadline - time.monotonic()))
        if not done:
            raise self._late()
        return self._response(done[0])

    def close(self) -> None:
        """Close the HTTP connections (the client opens new ones if called again)."""
        client, self._client = self._client, None
        if client is not None:
            client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _late(self) -> ModelError:
        return ModelError(f"no answer from {self.url} within {self.timeout:g} s")

    @staticmethod
    def _text(response: Any, body: bytes) -> str:
        return body.decode(response.encoding or "utf-8", errors="replace")

    def _response(self, done: tuple[int, str] | Exception) -> dict[str, Any]:
        """The JSON body of a response (status, text), or the error of the request; the
        key is taken out of all the server's text before any of it is quoted (a cut
        could split the key), and out of the error once more (an escape in JSON spells
        it otherwise)."""
        import httpx

        try:
            if isinstance(done, httpx.TimeoutException):
                raise self._late()
            if isinstance(done, httpx.HTTPError):
                raise ModelError(printable(f"request to {self.url} failed: {done}"))
            if isinstance(done, Exception):
                raise done
            status, text = done[0], self._redacted(done[1])
            if not 200 <= status < 300:
                raise ModelError(printable(f"HTTP {status} from {self.url}: {text[:300]}"))
            try:
                body = json.loads(text)
            except ValueError:
                raise MalformedAnswer(f"the response is not JSON: {text[:200]!r}") from None
            if not isinstance(body, dict):
                raise MalformedAnswer(f"the response is not a JSON object: {text[:200]!r}")
            return body
        except ModelError as exc:
            raise type(exc)(self._redacted(str(exc))) from None

    def _redacted(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key else text


class AsyncChatClient(ChatClient):
    """:class:`ChatClient` on ``httpx.AsyncClient``: the same request and answer."""

    async def post(self, body: dict[str, Any]) -> dict[str, Any]:  # type: ignore[override]
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout, verify=_tls_context())
        client = self._client

        async def ask() -> tuple[int, str]:
            request = client.stream("POST", self.url, json=body, headers=self._headers)
            async with request as response:
                return response.status_code, self._text(response, await response.aread())

        try:
            # the whole request: httpx's timeout bounds each read only
            done: tuple[int, str] | Exception = await asyncio.wait_for(ask(), self.timeout)
        except asyncio.TimeoutError:
            raise self._late() from None
        except httpx.HTTPError as exc:
            done = exc
        return self._response(done)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
