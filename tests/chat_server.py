"""A real OpenAI-compatible chat completions server on 127.0.0.1, with scripted answers,
for the review loop's tests (the database is always real too).

``ChatServer(script)`` serves ``POST /v1/chat/completions`` in a thread; ``script(body)``
gets each request's JSON body and returns a :class:`Reply`: a verdict (:func:`verdict`),
raw message content (:func:`content`), an HTTP error (:func:`status`), any of them after a
delay, or held until an event is set. Every request is kept (``requests``: bodies and
headers), in the order they came.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    # the assistant message's content (status 200), or the raw body of an error
    text: str = ""
    delay: float = 0.0
    # held until this is set (a worker killed while it waits for its answer)
    hold: threading.Event | None = None
    # the response's token counts (prompt_tokens, completion_tokens), when given
    usage: dict[str, int] | None = None


def verdict(decision: str, reason: str, *, delay: float = 0.0) -> Reply:
    return Reply(text=json.dumps({"decision": decision, "reason": reason}), delay=delay)


def content(text: str, usage: dict[str, int] | None = None) -> Reply:
    return Reply(text=text, usage=usage)


def status(code: int, body: str = "") -> Reply:
    return Reply(status=code, text=body or json.dumps({"error": {"message": f"HTTP {code}"}}))


@dataclass
class Request:
    body: dict[str, Any]
    headers: dict[str, str]
    at: float = field(default_factory=time.monotonic)

    @property
    def prompt(self) -> str:
        return self.body["messages"][-1]["content"]

    @property
    def newer(self) -> str:
        """The newer memory's text in the prompt."""
        return self.prompt.split("Newer memory", 1)[1].split("\n", 1)[1].split("\n\n", 1)[0]


class ChatServer:
    def __init__(self, script: Callable[[Request], Reply]):
        self.script = script
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out as two writes: without this, the body waits for
            # the client's delayed ACK of the headers (40 ms a call)
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.split("?")[0] != "/v1/chat/completions":
                    self._send(404, b'{"error": "not found"}')
                    return
                request = Request(json.loads(raw), dict(self.headers.items()))
                with outer._lock:
                    outer.requests.append(request)
                reply = outer.script(request)
                if reply.hold is not None:
                    reply.hold.wait(30)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    self._send(reply.status, reply.text.encode())
                    return
                body = {
                    "id": f"chatcmpl-{len(outer.requests)}",
                    "object": "chat.completion",
                    "model": request.body.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply.text},
                            "finish_reason": "stop",
                        }
                    ],
                }
                if reply.usage is not None:
                    body["usage"] = reply.usage
                self._send(200, json.dumps(body).encode())

            def _send(self, code: int, data: bytes) -> None:
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (a timeout, a killed worker)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._server.handle_error = lambda *args: None  # type: ignore[method-assign]
        # shutdown() waits for serve_forever's next poll: 0.5 s a test by default
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
