"""An OpenAI-compatible HTTP server that serves scripted replies, for tests.

``MockOpenAIServer`` listens on 127.0.0.1 and speaks just enough of the
OpenAI Chat Completions API for the real ``openai`` client (or any HTTP
client) to talk to it over real HTTP::

    from openai import OpenAI
    from vero.testing import MockOpenAIServer, HTTPFault, Fault

    with MockOpenAIServer([
        "Hello!",                                                   # plain text
        {"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 2}}]},
        HTTPFault(429, headers={"retry-after-ms": "1"}),            # an HTTP error
        Fault.disconnect(),                                         # a dropped socket
    ]) as srv:
        client = OpenAI(api_key="test", base_url=srv.base_url)
        client.chat.completions.create(model="m", messages=[...])
        assert srv.requests[0]["messages"] == [...]

Replies are consumed in order, one per ``POST /v1/chat/completions``.  When the
script runs out, ``responder(request_body)`` is called if given, otherwise the
server answers HTTP 500 (with ``x-should-retry: false``, so the client does not
retry a test bug).

A reply is one of:

* ``str``: an assistant message with that content.
* ``dict`` with the key ``json``: an assistant message whose content is that
  value as JSON text (a reply to a request with a ``response_format`` schema).
* ``dict`` with any of the keys ``content``, ``tool_calls`` (a list of
  ``{"name", "arguments", "id"?}``; ``arguments`` may be a dict or a raw
  string), ``reasoning_content``, ``usage``, ``finish_reason``, ``choices``
  (used verbatim, e.g. ``[]``) or ``raw`` (the whole response sent verbatim:
  a dict or list, or JSON text as a str, e.g. with escapes such as
  ``"\\ud83d"`` that a dict cannot carry; for a streamed request a list of
  chunks, each a dict or a raw ``data:`` string).
* ``HTTPFault(status, ...)``: an HTTP error with an OpenAI-style error body.
* one of the ``Fault.*`` transport faults (disconnect, sleep, broken stream).
* a callable ``fn(request_body) -> reply``, resolved when the request arrives.

Requests with ``"stream": true`` are answered with server-sent events in
OpenAI's chunk format, over ``Transfer-Encoding: chunked`` so that connections
are kept alive (and so that a stream cut short is an error for the client).

Other HTTP APIs can be faked on the same server with :meth:`add_route`.

The server is built for speed (benchmarks use it to measure framework
overhead): HTTP/1.1 keep-alive, ``TCP_NODELAY``, one ``send`` per response and
no logging.
"""

from __future__ import annotations

import http.server
import itertools
import json
import re
import socket
import socketserver
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from vero._estimate import estimated_usage  # the same made-up token counts as ScriptedLLM

__all__ = [
    "MockOpenAIServer",
    "RecordedRequest",
    "HTTPFault",
    "Fault",
    "DisconnectFault",
    "MidStreamDisconnectFault",
    "SleepFault",
    "MalformedChunkFault",
    "EndlessFault",
    "Reply",
    "RouteHandler",
]


# --------------------------------------------------------------------------
# Public data types
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request as the server received it.

    ``headers`` has lower-cased names.  ``body`` is the parsed JSON body, or
    ``None`` if the body was empty or not JSON; ``content`` holds the raw bytes.
    """

    method: str
    path: str  # as sent, including any query string
    headers: dict[str, str]
    body: Any
    raw_bytes: int
    content: bytes = field(default=b"", repr=False)

    @property
    def url_path(self) -> str:
        """The path without the query string."""
        return urlsplit(self.path).path

    @property
    def query(self) -> dict[str, str]:
        """The query string parameters (the first value of each)."""
        return {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}


@dataclass(frozen=True)
class HTTPFault:
    """Answer with an HTTP error status and an OpenAI-style error body.

    ``body`` (a dict, str or bytes) replaces the default body
    ``{"error": {"message", "type", "code"}}``.  ``headers`` are added to the
    response, e.g. ``{"retry-after-ms": "1"}``.
    """

    status: int
    message: str = "MockOpenAIServer: injected HTTP error"
    headers: dict[str, str] | None = None
    body: Any = None
    code: str | None = None


@dataclass(frozen=True)
class DisconnectFault:
    """Close the connection without sending any response."""


@dataclass(frozen=True)
class MidStreamDisconnectFault:
    """Send the first ``after_chunks`` SSE chunks of ``content``, then close
    the connection abruptly (no ``[DONE]``, no end of the chunked body).

    For a request that is not streamed, half of the JSON body is sent.
    """

    after_chunks: int = 2
    content: str = "This reply is cut off before it ends."


@dataclass(frozen=True)
class SleepFault:
    """Sleep ``seconds`` (e.g. to trigger a client read timeout), then send
    the reply ``then``.  The sleep ends early when the server stops."""

    seconds: float
    then: Any = "OK"


@dataclass(frozen=True)
class MalformedChunkFault:
    """A streamed reply of ``content`` with one ``data:`` line in the middle
    that is not valid JSON.  For a request that is not streamed, the response
    body is not valid JSON."""

    content: str = "Hello from a broken stream."


@dataclass(frozen=True)
class EndlessFault:
    """A reply that never ends: ``text`` sent again and again, one piece every ``every``
    seconds (0: as fast as the client reads), until the client hangs up or the server
    stops.  Streamed, each piece is one SSE content chunk; otherwise the JSON body is
    sent up to the open ``content`` string and never closed."""

    text: str = "and so on "
    every: float = 0.0


class Fault:
    """Factories for transport-level faults, e.g. ``Fault.disconnect()``."""

    @staticmethod
    def disconnect() -> DisconnectFault:
        return DisconnectFault()

    @staticmethod
    def disconnect_mid_stream(
        after_chunks: int = 2, content: str = MidStreamDisconnectFault.content
    ) -> MidStreamDisconnectFault:
        return MidStreamDisconnectFault(after_chunks, content)

    @staticmethod
    def sleep(seconds: float, then: Any = "OK") -> SleepFault:
        return SleepFault(seconds, then)

    @staticmethod
    def malformed_chunk(content: str = MalformedChunkFault.content) -> MalformedChunkFault:
        return MalformedChunkFault(content)

    @staticmethod
    def endless(text: str = EndlessFault.text, every: float = 0.0) -> EndlessFault:
        return EndlessFault(text, every)


_FAULTS = (HTTPFault, DisconnectFault, MidStreamDisconnectFault, SleepFault, MalformedChunkFault, EndlessFault)

Reply = (
    str
    | dict
    | HTTPFault
    | DisconnectFault
    | MidStreamDisconnectFault
    | SleepFault
    | MalformedChunkFault
    | EndlessFault
    | Callable[[dict], Any]
)
"""What a scripted reply may be (see the module docstring)."""

RouteHandler = Callable[[RecordedRequest], "tuple[int, dict[str, str], bytes | str | dict]"]
"""``handler(request) -> (status, headers, body)`` for :meth:`MockOpenAIServer.add_route`."""

REJECTED_RESPONSE_FORMAT = "Unrecognized request argument supplied: response_format"

_REPLY_KEYS = {"content", "json", "tool_calls", "reasoning_content", "usage", "finish_reason", "choices", "raw"}


def _check_reply(reply: Any) -> None:
    """Reject malformed scripted replies early, when they are enqueued."""
    if isinstance(reply, str) or isinstance(reply, _FAULTS) or callable(reply):
        if isinstance(reply, SleepFault):
            _check_reply(reply.then)
        return
    if not isinstance(reply, dict):
        raise TypeError(f"MockOpenAIServer: unsupported reply type {type(reply).__name__}: {reply!r}")
    unknown = set(reply) - _REPLY_KEYS
    if unknown:
        raise ValueError(f"MockOpenAIServer: unknown reply keys {sorted(unknown)}; allowed: {sorted(_REPLY_KEYS)}")
    if "json" in reply and "content" in reply:
        raise ValueError("MockOpenAIServer: a reply has 'content' or 'json', not both")
    for call in reply.get("tool_calls") or []:
        if not isinstance(call, dict) or "name" not in call:
            raise ValueError(f"MockOpenAIServer: a tool call needs a 'name': {call!r}")


# --------------------------------------------------------------------------
# Building response bodies (pure functions)
# --------------------------------------------------------------------------

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_WORDS = re.compile(r"\S+\s*|\s+")
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
}


def _refusal(name: str, body: dict) -> HTTPFault:
    """The 400 OpenAI answers for a parameter the model does not take (its reasoning models' wording)."""
    if name == "temperature":
        message = (
            f"Unsupported value: 'temperature' does not support {body[name]} with this model. "
            "Only the default (1) value is supported."
        )
        code = "unsupported_value"
    else:
        instead = " Use 'max_completion_tokens' instead." if name == "max_tokens" else ""
        message = f"Unsupported parameter: '{name}' is not supported with this model.{instead}"
        code = "unsupported_parameter"
    error = {"message": message, "type": "invalid_request_error", "param": name, "code": code}
    return HTTPFault(400, message, body={"error": error})  # a 400: the SDK does not retry it


def _error_body(status: int, message: str, code: str | None = None) -> dict:
    kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "api_error")
    return {"error": {"message": message, "type": kind, "code": code}}


def _split_text(text: str, size: int | None) -> list[str]:
    """Split text into stream deltas: ``size`` chars each, or word by word
    (keeping whitespace) by default.  The pieces join back to ``text``."""
    if not text:
        return []
    if size:
        return [text[i : i + size] for i in range(0, len(text), size)]
    return _WORDS.findall(text)


def _split_arguments(arguments: str) -> list[str]:
    """Split a tool call's arguments into 2-3 pieces, as a real stream would."""
    if len(arguments) < 2:
        return [arguments]
    step = -(-len(arguments) // 3)  # ceil(len / 3)
    return [arguments[i : i + step] for i in range(0, len(arguments), step)]


@dataclass
class _Answer:
    """A dict reply, normalized: everything needed to render a response."""

    id: str
    model: str
    created: int
    content: str | None
    reasoning: str | None
    tool_calls: list[dict]  # OpenAI form: {"id", "type", "function": {"name", "arguments"}}
    finish_reason: str
    usage: dict
    choices: list | None  # verbatim choices, if the reply gave them

    def message(self) -> dict:
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = self.tool_calls
        if self.reasoning is not None:
            message["reasoning_content"] = self.reasoning
        return message

    def completion(self) -> dict:
        choices = self.choices
        if choices is None:
            choices = [{"index": 0, "message": self.message(), "finish_reason": self.finish_reason}]
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": choices,
            "usage": self.usage,
        }

    def chunks(self, chunk_chars: int | None, include_usage: bool) -> list[dict]:
        """The stream of ``chat.completion.chunk`` objects, without ``[DONE]``."""
        base = {"id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": self.model}

        def chunk(delta: dict, finish_reason: str | None = None) -> dict:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

        if self.choices is not None:
            events = [{**base, "choices": self.choices}]
        else:
            events = [chunk({"role": "assistant"})]
            events += [chunk({"reasoning_content": p}) for p in _split_text(self.reasoning or "", chunk_chars)]
            events += [chunk({"content": p}) for p in _split_text(self.content or "", chunk_chars)]
            for index, call in enumerate(self.tool_calls):
                function = call["function"]
                events.append(
                    chunk(
                        {
                            "tool_calls": [
                                {
                                    "index": index,
                                    "id": call["id"],
                                    "type": "function",
                                    "function": {"name": function["name"], "arguments": ""},
                                }
                            ]
                        }
                    )
                )
                for piece in _split_arguments(function["arguments"]):
                    events.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
            events.append(chunk({}, self.finish_reason))
        if include_usage:
            events.append({**base, "choices": [], "usage": self.usage})
        return events


# --------------------------------------------------------------------------
# HTTP plumbing
# --------------------------------------------------------------------------


class _HTTPServer(http.server.ThreadingHTTPServer):
    """Threading server that counts connections, sets TCP_NODELAY and stays quiet."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], mock: MockOpenAIServer) -> None:
        self.mock = mock
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a possibly slow DNS lookup.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]  # type: ignore[assignment]  # AF_INET: a str host

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, address = super().get_request()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.mock._connection_opened(sock)
        return sock, address

    def shutdown_request(self, request: Any) -> None:
        self.mock._connection_closed(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]  # never None: socketserver calls this while handling an exception
        if error is not None and not isinstance(error, OSError):  # a dropped client is normal; anything else is a bug
            self.mock.errors.append(error)
            traceback.print_exc()


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: connections are reused by the client
    server_version = "vero-mock/1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _dispatch(self) -> None:
        self.server.mock._handle(self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _dispatch

    def read_body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if length:
            return self.rfile.read(int(length))
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while size := int(self.rfile.readline().split(b";")[0], 16):
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
                pass
            return b"".join(parts)
        return b""

    def _head(self, status: int, headers: dict[str, str]) -> bytes:
        reason = self.responses.get(status, ("",))[0]
        lines = [f"HTTP/1.1 {status} {reason}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if self.close_connection:
            lines.append("connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def send(self, status: int, body: bytes | str | dict | list, headers: dict[str, str] | None = None) -> None:
        """Send a whole response in one write.  Dicts and lists are sent as JSON."""
        if isinstance(body, (dict, list)):
            body, content_type = _dumps(body).encode(), "application/json"
        elif isinstance(body, str):
            body, content_type = body.encode(), "text/plain; charset=utf-8"
        else:
            content_type = "application/octet-stream"
        merged = {"content-type": content_type}
        merged.update({k.lower(): str(v) for k, v in (headers or {}).items()})
        merged["content-length"] = str(len(body))
        self.wfile.write(self._head(status, merged) + body)

    def send_truncated(self, status: int, body: bytes) -> None:
        """Announce the whole body but send only half of it, then drop the connection."""
        self.close_connection = True
        head = self._head(status, {"content-type": "application/json", "content-length": str(len(body))})
        self.wfile.write(head + body[: len(body) // 2])

    def send_events(self, events: Sequence[dict | str], cut_after: int | None = None) -> None:
        """Stream events as SSE over chunked encoding, ending with ``[DONE]``.

        With ``cut_after``, send only that many events and drop the connection.
        """
        write = self.wfile.write
        write(
            self._head(
                200, {"content-type": "text/event-stream", "cache-control": "no-cache", "transfer-encoding": "chunked"}
            )
        )
        if cut_after is not None:
            events = events[:cut_after]
        else:
            events = [*events, "[DONE]"]
        for event in events:
            data = b"data: " + (event if isinstance(event, str) else _dumps(event)).encode() + b"\n\n"
            frame = b"%x\r\n%s\r\n" % (len(data), data)
            if event == "[DONE]":
                # End the body in the same write, so the client sees the end of the
                # response together with [DONE] and keeps the connection alive.
                frame += b"0\r\n\r\n"
            write(frame)
        if cut_after is not None:
            self.close_connection = True

    def send_endless(self, fault: EndlessFault, stream: bool, stopping: threading.Event) -> None:
        """Send ``fault.text`` forever (see ``EndlessFault``), until the client hangs up or ``stopping``."""
        self.close_connection = True
        if stream:
            chunk = {
                "id": "chatcmpl-endless",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "endless",
                "choices": [{"index": 0, "delta": {"content": fault.text}, "finish_reason": None}],
            }
            start, piece = b"", b"data: " + _dumps(chunk).encode() + b"\n\n"
        else:
            start = (
                b'{"id": "chatcmpl-endless", "object": "chat.completion", "created": 0, "model": "endless", '
                b'"choices": [{"index": 0, "finish_reason": null, "message": {"role": "assistant", "content": "'
            )
            piece = json.dumps(fault.text)[1:-1].encode()
        content_type = "text/event-stream" if stream else "application/json"
        frame = lambda data: b"%x\r\n%s\r\n" % (len(data), data)  # noqa: E731 - one chunk of the chunked body
        try:
            self.wfile.write(
                self._head(200, {"content-type": content_type, "transfer-encoding": "chunked"})
                + (frame(start) if start else b"")
            )
            while not stopping.is_set():
                self.wfile.write(frame(piece))
                if fault.every:
                    stopping.wait(fault.every)
        except OSError:  # the client hung up: what a client with a limit does
            pass


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


class MockOpenAIServer:
    """A scripted, OpenAI-compatible HTTP server on a background thread.

    Args:
        replies: scripted replies, consumed one per chat completion request.
        responder: ``fn(request_body) -> reply``, used once the script is empty.
        latency: seconds to sleep before answering each chat completion (ends early when the server stops).
        host, port: where to listen; port 0 picks a free port.
        model: the model name reported when a request does not name one, and
            listed by ``GET /v1/models``.
        stream_chunk_chars: size of streamed text deltas; by default text is
            streamed word by word.
        reject_response_format: answer every chat completion that has a
            ``response_format`` with HTTP 400 and this message (``True``: a
            stock message), as a server without structured outputs does; no
            scripted reply is used up.
        refuse_params: request parameters to answer with HTTP 400 as OpenAI does
            for a model that does not take them, naming the first one present
            in the error's ``param`` (``("temperature", "stop", "max_tokens")``:
            as OpenAI's reasoning models; a temperature of 1, their default, is
            taken); no scripted reply is used up.

    Attributes (read them after the requests you care about):
        requests: the JSON bodies of the chat completion requests, in order
            (retries included).
        request_log: a :class:`RecordedRequest` for every HTTP request.
        handler_seconds: wall time spent handling each request (including
            ``latency`` and fault sleeps), in order of completion.
        sleep_seconds: total seconds of that time spent sleeping (``latency``
            and ``Fault.sleep``).
        connections_accepted: how many TCP connections were accepted.
        errors: exceptions raised by reply functions, responders or routes.
    """

    def __init__(
        self,
        replies: Any = None,
        *,
        responder: Callable[[dict], Any] | None = None,
        latency: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = "mock-model",
        stream_chunk_chars: int | None = None,
        reject_response_format: bool | str = False,
        refuse_params: Sequence[str] = (),
    ) -> None:
        self.responder = responder
        self.reject_response_format = reject_response_format
        self.refuse_params = tuple(refuse_params)
        self.latency = latency
        self.host = host
        self.port = port
        self.model = model
        self.stream_chunk_chars = stream_chunk_chars

        self.requests: list[dict] = []
        self.request_log: list[RecordedRequest] = []
        self.handler_seconds: list[float] = []
        self.sleep_seconds = 0.0
        self.connections_accepted = 0
        self.errors: list[BaseException] = []

        self._replies: deque[Any] = deque()
        self._routes: dict[tuple[str, str], RouteHandler] = {}
        self._lock = threading.Lock()
        self._handling: set[int] = set()  # threads handling a request: stop() waits for them (stats complete)
        self._handled = threading.Condition(self._lock)
        self._completions = 0
        self._call_ids = itertools.count(1)
        self._open_sockets: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

        if replies is not None:
            self.enqueue(*(replies if isinstance(replies, (list, tuple)) else [replies]))

    # -- lifecycle -------------------------------------------------------

    def start(self) -> MockOpenAIServer:
        """Start serving in a background thread (idempotent)."""
        if self._httpd is None:
            self._stopping.clear()
            self._httpd = _HTTPServer((self.host, self.port), self)
            self.port = self._httpd.server_address[1]
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"MockOpenAIServer:{self.port}",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and drop open connections (idempotent)."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        with self._lock:
            sockets = list(self._open_sockets)
        for sock in sockets:  # wake handler threads blocked on keep-alive reads
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)
        me = threading.get_ident()  # (a route that stops the server must not wait for itself)
        with self._handled:  # a handler may still be recording a request whose reply the client already has
            self._handled.wait_for(lambda: not self._handling - {me}, timeout=5)

    def __enter__(self) -> MockOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The server root, e.g. ``http://127.0.0.1:PORT``."""
        if self._httpd is None:
            raise RuntimeError("MockOpenAIServer is not running; call start() or use it as a context manager")
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, ``http://127.0.0.1:PORT/v1``."""
        return self.url + "/v1"

    # -- scripting -------------------------------------------------------

    def enqueue(self, *replies: Any) -> None:
        """Append scripted replies."""
        for reply in replies:
            _check_reply(reply)
        with self._lock:
            self._replies.extend(replies)

    @property
    def remaining(self) -> int:
        """How many scripted replies are left."""
        return len(self._replies)

    def add_route(self, method: str, path: str, handler: RouteHandler) -> None:
        """Serve ``method path`` (query string ignored) with
        ``handler(request) -> (status, headers, body)``; ``body`` may be bytes,
        str or a dict (sent as JSON).  Routes take precedence over the built-in
        endpoints."""
        self._routes[(method.upper(), path)] = handler

    @property
    def server_time_s(self) -> float:
        """Total seconds spent in request handlers."""
        return sum(self.handler_seconds)

    # -- connection bookkeeping (called by _HTTPServer) -------------------

    def _connection_opened(self, sock: socket.socket) -> None:
        with self._lock:
            self.connections_accepted += 1
            self._open_sockets.add(sock)

    def _add_sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleep_seconds += seconds

    def _connection_closed(self, sock: socket.socket) -> None:
        with self._lock:
            self._open_sockets.discard(sock)

    # -- request handling ------------------------------------------------

    def _handle(self, handler: _Handler) -> None:
        started = time.perf_counter()
        with self._handled:
            self._handling.add(threading.get_ident())
        try:
            content = handler.read_body()
            body = None
            if content:
                try:
                    body = json.loads(content)
                except ValueError:
                    pass
            request = RecordedRequest(
                handler.command,
                handler.path,
                {k.lower(): v for k, v in handler.headers.items()},
                body,
                len(content),
                content,
            )
            self.request_log.append(request)
            self._route(handler, request)
        finally:
            self.handler_seconds.append(time.perf_counter() - started)
            with self._handled:
                self._handling.discard(threading.get_ident())
                self._handled.notify_all()

    def _route(self, handler: _Handler, request: RecordedRequest) -> None:
        path = request.url_path.rstrip("/") or "/"
        route = self._routes.get((request.method, path))
        if route is not None:
            try:
                status, headers, body = route(request)
            except Exception as error:
                self.errors.append(error)
                message = f"MockOpenAIServer: route {request.method} {path} raised {error!r}"
                handler.send(500, _error_body(500, message))
                return
            handler.send(status, body, headers)
        elif request.method == "POST" and path in ("/v1/chat/completions", "/chat/completions"):
            self._chat_completion(handler, request.body if isinstance(request.body, dict) else {})
        elif request.method == "GET" and path in ("/v1/models", "/models"):
            handler.send(
                200,
                {
                    "object": "list",
                    "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "vero-mock"}],
                },
            )
        else:
            message = f"MockOpenAIServer: no route for {request.method} {request.path}"
            handler.send(404, _error_body(404, message, "not_found"))

    def _chat_completion(self, handler: _Handler, body: dict) -> None:
        with self._lock:
            self.requests.append(body)
            number = self._completions = self._completions + 1
            refused = self._refused(body)
            if self.reject_response_format and "response_format" in body:
                message = self.reject_response_format
                message = message if isinstance(message, str) else REJECTED_RESPONSE_FORMAT
                reply: Any = HTTPFault(400, message, code="unsupported_parameter")
            elif refused is not None:
                reply = _refusal(refused, body)
            else:
                reply = self._replies.popleft() if self._replies else self.responder
        if self.latency:
            started = time.perf_counter()
            self._stopping.wait(self.latency)  # ends early when the server stops
            self._add_sleep(time.perf_counter() - started)
        if reply is None:
            message = f"MockOpenAIServer: no scripted reply left ({number - 1} requests served)"
            handler.send(500, _error_body(500, message, "mock_script_exhausted"), {"x-should-retry": "false"})
            return
        self._send_reply(handler, reply, body, number)

    def _refused(self, body: dict) -> str | None:
        """The first parameter of ``refuse_params`` in the request (a temperature of 1 is taken)."""
        for name in self.refuse_params:
            if name in body and not (name == "temperature" and body[name] == 1):
                return name
        return None

    def _send_reply(self, handler: _Handler, reply: Any, body: dict, number: int) -> None:
        try:
            while callable(reply):
                reply = reply(body)
            _check_reply(reply)
        except Exception as error:
            self.errors.append(error)
            message = f"MockOpenAIServer: could not build a reply: {error!r}"
            handler.send(500, _error_body(500, message), {"x-should-retry": "false"})
            return

        stream = bool(body.get("stream"))
        if isinstance(reply, str):
            reply = {"content": reply}

        if isinstance(reply, dict):
            self._send_answer(handler, reply, body, number, stream)
        elif isinstance(reply, HTTPFault):
            error_body = reply.body if reply.body is not None else _error_body(reply.status, reply.message, reply.code)
            handler.send(reply.status, error_body, reply.headers)
        elif isinstance(reply, DisconnectFault):
            handler.close_connection = True  # respond with nothing; the socket is closed
        elif isinstance(reply, SleepFault):
            started = time.perf_counter()
            self._stopping.wait(reply.seconds)
            self._add_sleep(time.perf_counter() - started)
            self._send_reply(handler, reply.then, body, number)
        elif isinstance(reply, MidStreamDisconnectFault):
            answer = self._answer({"content": reply.content}, body, number)
            if stream:
                handler.send_events(answer.chunks(self.stream_chunk_chars, False), cut_after=reply.after_chunks)
            else:
                handler.send_truncated(200, _dumps(answer.completion()).encode())
        elif isinstance(reply, EndlessFault):
            handler.send_endless(reply, stream, self._stopping)
        elif isinstance(reply, MalformedChunkFault):
            answer = self._answer({"content": reply.content}, body, number)
            if stream:
                events: list[dict | str] = list(answer.chunks(self.stream_chunk_chars, False))
                events.insert(len(events) // 2, '{"id": "broken", "choices": [')
                handler.send_events(events)
            else:
                handler.send(200, b'{"id": "broken", "choices": [', {"content-type": "application/json"})

    def _send_answer(self, handler: _Handler, reply: dict, body: dict, number: int, stream: bool) -> None:
        """A reply given as a dict: its ``raw`` body as it is, else a completion (or its chunks) built from it."""
        if "raw" in reply:
            raw = reply["raw"]
            if stream:
                handler.send_events(raw if isinstance(raw, list) else [raw])
            elif isinstance(raw, (str, bytes)):  # JSON text, sent as is
                handler.send(200, raw, {"content-type": "application/json"})
            else:
                handler.send(200, raw)
            return
        answer = self._answer(reply, body, number)
        if stream:
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            handler.send_events(answer.chunks(self.stream_chunk_chars, include_usage))
        else:
            handler.send(200, answer.completion())

    def _answer(self, reply: dict, body: dict, number: int) -> _Answer:
        content = _dumps(reply["json"]) if "json" in reply else reply.get("content")
        tool_calls = []
        for call in reply.get("tool_calls") or ():
            arguments = call.get("arguments", {})
            if not isinstance(arguments, str):
                arguments = _dumps(arguments)
            call_id = call.get("id") or f"call_{next(self._call_ids)}"
            tool_calls.append(
                {"id": call_id, "type": "function", "function": {"name": call["name"], "arguments": arguments}}
            )
        return _Answer(
            id=f"chatcmpl-mock-{number}",
            model=body.get("model") or self.model,
            created=int(time.time()),
            content=content,
            reasoning=reply.get("reasoning_content"),
            tool_calls=tool_calls,
            finish_reason=reply.get("finish_reason") or ("tool_calls" if tool_calls else "stop"),
            usage=reply.get("usage") or estimated_usage(body.get("messages"), content),
            choices=reply.get("choices"),
        )
