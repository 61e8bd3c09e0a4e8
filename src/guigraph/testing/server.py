"""A loopback model server speaking the OpenAI chat-completions protocol, for tests.

``FakeModelServer`` is a real HTTP server on 127.0.0.1 (standard library, one thread per
connection) so that tests drive the real client — the SDK, HTTP, retries, timeouts — and not a
mock. It answers from a script the test gives: a list of ``Reply`` values served in order
(then ``default``), or a function from the request body to a ``Reply``. Replies can be text,
HTTP errors (429 with ``Retry-After``, 500, 404), bodies that are not JSON, slow answers and
dropped connections; streaming requests get server-sent events. It counts requests in flight
and the usage it reported, so tests can check the client against the server's own numbers.

It can also behave like real servers that are not vLLM: ``vision=False`` answers any request
carrying an image with the HTTP 500 llama.cpp's Python server gives for a text-only chat
template, and ``response_formats=("json_object",)`` rejects other ``response_format`` types
with the 500 that server gives for ``json_schema``.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: Tokens the fake server charges per image, per message, and per word of text.
IMAGE_TOKENS = 256
MESSAGE_TOKENS = 4
#: What llama-cpp-python's server answers (HTTP 500) when a text-only model gets an image part.
NO_VISION_MESSAGE = 'can only concatenate str (not "list") to str'


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted answer. Build with the class methods."""

    kind: str = "text"  # text | status | garbage | drop
    text: str = ""
    status: int = 200
    delay_s: float = 0.0
    headers: Mapping[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"
    completion_tokens: int | None = None
    #: Seconds between bytes of the body (between events of a stream): a server trickling.
    trickle_s: float = 0.0

    @classmethod
    def of(cls, text: str, *, delay_s: float = 0.0, finish_reason: str = "stop") -> Reply:
        return cls("text", text=text, delay_s=delay_s, finish_reason=finish_reason)

    @classmethod
    def error(cls, status: int, message: str = "", *, retry_after: float | None = None) -> Reply:
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        return cls(
            "status", text=message or f"scripted HTTP {status}", status=status, headers=headers
        )

    @classmethod
    def slow(cls, seconds: float, text: str = "late") -> Reply:
        return cls("text", text=text, delay_s=seconds)

    @classmethod
    def trickle(cls, text: str, seconds_per_byte: float) -> Reply:
        """A valid reply sent one byte (one stream event) at a time, ``seconds_per_byte`` apart:
        each byte comes well within any read timeout, the whole reply never does."""
        return cls("text", text=text, trickle_s=seconds_per_byte)

    @classmethod
    def garbage(cls, body: str = '{"choices": [ {"mess') -> Reply:
        """HTTP 200 with a body that is not valid JSON (a broken proxy, a crashed worker)."""
        return cls("garbage", text=body)

    @classmethod
    def drop(cls) -> Reply:
        """Close the connection without answering."""
        return cls("drop")


DEFAULT_REPLY = Reply.of("ok")

Script = Iterable[Reply] | Callable[[dict[str, Any]], Reply]


def prompt_tokens(body: Mapping[str, Any]) -> int:
    """The fake server's token count: words of text, plus fixed costs per message and image."""
    total = 0
    for message in body.get("messages", []):
        total += MESSAGE_TOKENS
        content = message.get("content", "")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for part in parts:
            if part.get("type") == "text":
                total += len(str(part.get("text", "")).split())
            else:
                total += IMAGE_TOKENS
    return total


def completion_tokens(text: str) -> int:
    return max(1, len(text.split()))


class FakeModelServer:
    """Start with ``with FakeModelServer(script) as server:``; ``server.base_url`` ends in /v1."""

    def __init__(
        self,
        script: Script = (),
        *,
        default: Reply | Callable[[dict[str, Any]], Reply] = DEFAULT_REPLY,
        models: Iterable[str] | None = ("test-model",),
        latency_s: float = 0.0,
        vision: bool = True,
        response_formats: Iterable[str] | None = None,
    ):
        self._script_fn = script if callable(script) else None
        self._queue: deque[Reply] = deque() if callable(script) else deque(script)
        self.default = default
        self.models = None if models is None else tuple(models)
        self.latency_s = latency_s
        self.vision = vision
        self.response_formats = None if response_formats is None else tuple(response_formats)
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str] = []
        self.reported_usage: list[tuple[int, int]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = weakref.proxy(self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        # Stops by itself when the test drops it without closing.
        self._finalizer = weakref.finalize(self, _stop, self._httpd)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    def close(self) -> None:
        self._finalizer()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeModelServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Called from handler threads.
    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self._script_fn is not None:
                chooser: Reply | Callable[[dict[str, Any]], Reply] = self._script_fn
            elif self._queue:
                return self._queue.popleft()
            else:
                chooser = self.default
        return chooser(body) if callable(chooser) else chooser

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


def _stop(httpd: ThreadingHTTPServer) -> None:
    httpd.shutdown()
    httpd.server_close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    owner: Any


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
    # Headers and body go out in two writes; with Nagle on, the body waits for the client's
    # delayed ACK (~40 ms), which would dominate every timing measured against this server.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read the counters, not stderr."""

    def do_GET(self) -> None:
        owner = self.server.owner
        if self.path.rstrip("/").endswith("/models"):
            models = owner.models or ()
            data = [{"id": m, "object": "model", "owned_by": "guigraph"} for m in models]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, _error_body(f"no route {self.path}", "NotFoundError", 404))

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length", 0))
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, _error_body(f"no route {self.path}", "NotFoundError", 404))
            return
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._send_json(400, _error_body("request body is not JSON", "BadRequestError", 400))
            return
        owner.authorizations.append(self.headers.get("Authorization", ""))
        owner._enter()
        self._counted = True
        try:
            self._answer(owner, body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout); nothing to answer
        except ReferenceError:
            return  # the test dropped the server while this (slow) reply slept
        self._leave()

    def _leave(self) -> None:
        """Count the request as finished, once, and *before* its last bytes go out: a client
        that has read the reply may send its next request at once, and counting the two
        together would report a concurrency the client never had."""
        if getattr(self, "_counted", False):
            self._counted = False
            with contextlib.suppress(ReferenceError):
                self.server.owner._leave()

    def _answer(self, owner: FakeModelServer, body: dict[str, Any]) -> None:
        model = str(body.get("model", ""))
        if owner.models is not None and model not in owner.models:
            owner.requests.append(body)
            message = f"The model `{model}` does not exist."
            self._send_json(404, _error_body(message, "NotFoundError", 404))
            return
        refusal = _refusal(owner, body)
        if refusal is not None:
            with owner._lock:
                owner.requests.append(body)
            self._send_json(500, _error_body(refusal, "internal_server_error", 500))
            return
        reply = owner._next_reply(body)
        time.sleep(owner.latency_s + reply.delay_s)
        if reply.kind == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif reply.kind == "status":
            kind = "RateLimitError" if reply.status == 429 else "ServerError"
            self._send_json(
                reply.status, _error_body(reply.text, kind, reply.status), reply.headers
            )
        elif reply.kind == "garbage":
            self._send_bytes(200, reply.text.encode(), "application/json")
        else:
            self._send_completion(owner, body, model, reply)

    def _send_completion(
        self, owner: FakeModelServer, body: dict[str, Any], model: str, reply: Reply
    ) -> None:
        usage = (prompt_tokens(body), reply.completion_tokens or completion_tokens(reply.text))
        with owner._lock:
            owner.reported_usage.append(usage)
        usage_body = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
        }
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self._send_stream(model, reply, usage_body if include_usage else None)
            return
        self._send_json(
            200,
            {
                "id": f"chatcmpl-{len(owner.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.text},
                        "finish_reason": reply.finish_reason,
                    }
                ],
                "usage": usage_body,
            },
            trickle_s=reply.trickle_s,
        )

    def _send_stream(self, model: str, reply: Reply, usage: dict[str, int] | None) -> None:
        # No Content-Length: the stream ends when the connection closes.
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        base = {
            "id": "chatcmpl-stream",
            "object": "chat.completion.chunk",
            "model": model,
            "created": int(time.time()),
        }
        pieces = [reply.text[i : i + 8] for i in range(0, len(reply.text), 8)] or [""]
        for number, piece in enumerate(pieces):
            delta = {"content": piece, **({"role": "assistant"} if number == 0 else {})}
            last = number == len(pieces) - 1
            choice = {
                "index": 0,
                "delta": delta,
                "finish_reason": reply.finish_reason if last else None,
            }
            self._event({**base, "choices": [choice]})
            time.sleep(reply.trickle_s)
        if usage is not None:
            self._event({**base, "choices": [], "usage": usage})
        self._leave()
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _event(self, data: dict[str, Any]) -> None:
        self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
        self.wfile.flush()

    def _send_json(
        self,
        status: int,
        data: dict[str, Any],
        headers: Mapping[str, str] | None = None,
        trickle_s: float = 0.0,
    ) -> None:
        payload = json.dumps(data).encode()
        self._send_bytes(status, payload, "application/json", headers, trickle_s)

    def _send_bytes(
        self,
        status: int,
        payload: bytes,
        content_type: str,
        headers: Mapping[str, str] | None = None,
        trickle_s: float = 0.0,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self._leave()
        self.end_headers()
        if trickle_s <= 0:
            self.wfile.write(payload)
            return
        for byte in range(len(payload)):
            self.wfile.write(payload[byte : byte + 1])
            self.wfile.flush()
            time.sleep(trickle_s)


def has_image(body: Mapping[str, Any]) -> bool:
    for message in body.get("messages", []):
        content = message.get("content", "")
        if not isinstance(content, str) and any(p.get("type") != "text" for p in content):
            return True
    return False


def _refusal(owner: FakeModelServer, body: dict[str, Any]) -> str | None:
    """The message of a request the server cannot take as a real server would refuse it."""
    if not owner.vision and has_image(body):
        return NO_VISION_MESSAGE
    kind = (body.get("response_format") or {}).get("type")
    accepted = owner.response_formats
    if kind not in (None, "text") and accepted is not None and kind not in accepted:
        allowed = " or ".join(repr(k) for k in ("text", *accepted))
        return (
            "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format',"
            f" 'type'), 'msg': \"Input should be {allowed}\", 'input': '{kind}'}}"
        )
    return None


def _error_body(message: str, kind: str, code: int) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
