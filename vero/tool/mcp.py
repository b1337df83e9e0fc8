"""MCP: the tools of any Model Context Protocol server, as vero tools.

    with MCPServer.stdio("npx", ["-y", "@modelcontextprotocol/server-filesystem", "/some/dir"]) as server:
        agent = ToolCallingAgent("files", llm, tools=server.tools())

A client written on the standard library alone (vero's run-time dependencies stay
three), for both transports of the protocol: **stdio** (the server is a subprocess;
one JSON-RPC message per line on its stdin and stdout, its stderr goes to the log
``vero.mcp``) and **Streamable HTTP** (each message is a POST; the answer comes as
JSON or as a stream of server-sent events).

What the model sees of a server is only its tools' results: text content as it is,
images and resources as one line saying what they are and how big.  A failed call
(``isError``, a protocol error, a server that died, a call that ran out of time)
raises ``MCPError`` inside the tool, which the tool registry turns into an
observation the model can react to; it never leaves ``agent.run()``.
"""

from __future__ import annotations

import atexit
import base64
import collections
import contextlib
import itertools
import json
import logging
import math
import os
import re
import shlex
import signal
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vero.core.text import redact_url
from vero.tool.base import Tool
from vero.tool.registry import ToolRegistry

logger = logging.getLogger("vero.mcp")

PROTOCOL_VERSION = "2025-11-25"  # the revision vero asks for
SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # what a server may answer with
HANDSHAKE_TIMEOUT = 60.0  # seconds to start and answer ``initialize`` (npx may first fetch the package)
CALL_TIMEOUT = 60.0  # seconds for one tool call (the tool's ``timeout``)
MAX_MESSAGE_BYTES = 8 * 1024 * 1024  # one message from the server; a bigger one is refused
MAX_TOOLS = 128  # tools taken from one server
SHUTDOWN_GRACE = 2.0  # seconds a server gets to exit after its stdin closes, then after SIGTERM
_STDERR_LINES_KEPT = 20  # the last lines of a server's stderr, for the error when it fails to start
_SAFE_ENV = (
    "HOME",
    "LOGNAME",
    "PATH",
    "SHELL",
    "TERM",
    "USER",
    "LANG",
    "LC_ALL",
    "TMPDIR",  # POSIX
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",  # npx, uvx fetch
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATHEXT",
    "PROCESSOR_ARCHITECTURE",  # Windows
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
)


class MCPError(Exception):
    """An MCP server failed: it did not start, broke the protocol, died, or reported an error."""


class _SessionExpired(MCPError):
    """An HTTP server no longer knows our session (HTTP 404): the protocol says to start a new one."""


# --------------------------------------------------------------------------- results as text


def result_text(result: Mapping[str, Any]) -> str:
    """A ``tools/call`` result as the observation text.

    Text content is kept whole; an image, audio or resource is described in one
    line (a model cannot read base64, and a prompt has no room for it).  A result
    with only ``structuredContent`` is given as its JSON.
    """
    content = result.get("content")
    parts = [_content_text(item) for item in content if isinstance(item, dict)] if isinstance(content, list) else []
    if not parts and "structuredContent" in result:
        return json.dumps(result["structuredContent"], ensure_ascii=False)
    return "\n".join(parts) if parts else "(no output)"


def _content_text(item: Mapping[str, Any]) -> str:
    kind = item.get("type")
    if kind == "text":
        return str(item.get("text", ""))
    if kind in ("image", "audio"):
        return f"[{kind}: {item.get('mimeType', 'unknown type')}, {_size(_decoded_length(item.get('data')))}]"
    if kind == "resource_link":
        return f"[resource link: {item.get('uri', '?')}{_resource_details(item)}]"
    if kind == "resource" and isinstance(item.get("resource"), dict):
        resource = item["resource"]
        if "text" in resource:
            size = f"{len(str(resource['text'])):,} characters"
        else:
            size = _size(_decoded_length(resource.get("blob")))
        return f"[resource: {resource.get('uri', '?')}, {resource.get('mimeType', 'unknown type')}, {size}]"
    return f"[{kind or 'unknown'} content]"


def _resource_details(item: Mapping[str, Any]) -> str:
    details = [str(item[key]) for key in ("name", "mimeType") if item.get(key)]
    if isinstance(item.get("size"), int):
        details.append(_size(item["size"]))
    return f" ({', '.join(details)})" if details else ""


def _decoded_length(data: Any) -> int:
    if not isinstance(data, str):
        return 0
    try:
        return len(base64.b64decode(data, validate=False))
    except ValueError:
        return len(data)


def _size(count: int) -> str:
    return f"{count:,} bytes" if count < 10_000 else f"{count / 1024:,.0f} KB"


# --------------------------------------------------------------------------- the tools


def tool_name(remote: str, prefix: str = "") -> str:
    """The name a model calls an MCP tool by: letters, digits, ``_`` and ``-``, at most 64."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"{prefix}{remote}")[:64] or "tool"


def _parameters(input_schema: Any) -> dict[str, Any]:
    """The server's ``inputSchema`` as a vero ``parameters`` schema (always an object with properties)."""
    schema = dict(input_schema) if isinstance(input_schema, dict) else {}
    schema.pop("$schema", None)  # some OpenAI-compatible servers refuse the meta-schema key
    schema["type"] = "object"
    properties = schema.get("properties")
    schema["properties"] = (
        {k: v for k, v in properties.items() if isinstance(v, dict)} if isinstance(properties, dict) else {}
    )
    required = schema.get("required")
    schema["required"] = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
    return schema


class MCPTool(Tool):
    """One tool of an MCP server: its schema is the server's ``inputSchema``, a call is a ``tools/call``.

    Arguments are checked as vero checks any tool's (required names, the types of
    the properties, coerced where they can be); the rest of the schema is the
    server's to check.  ``read_only`` follows the server's ``readOnlyHint``: with
    no such annotation the tool is taken to change things.
    """

    def __init__(self, server: MCPServer, spec: Mapping[str, Any], prefix: str = ""):
        self.server = server
        self.remote_name = str(spec["name"])
        annotations = _object(spec.get("annotations"))
        read_only = (
            server.trust_annotations
            and annotations.get("readOnlyHint") is True
            and annotations.get("destructiveHint") is not True
        )

        def call_remote(**arguments: Any) -> str:
            return self.server.call(self.remote_name, arguments, timeout=self._wait())

        description = str(spec.get("description") or spec.get("title") or annotations.get("title") or "")
        super().__init__(
            call_remote,
            name=tool_name(self.remote_name, prefix),
            description=description or None,
            timeout=server.call_timeout,
            auto_correct=read_only,
            read_only=read_only,
        )
        self.__doc__ = description or None
        self.spec = dict(spec)
        self.parameters = _parameters(spec.get("inputSchema"))
        self._positional = []
        self._required = self.parameters["required"]
        self._accepts_extra = self.parameters.get("additionalProperties") is not False
        props = list(self.parameters["properties"])
        self.sole_parameter = props[0] if len(props) == 1 else None
        if self.sole_parameter is None and len(self._required) == 1:
            self.sole_parameter = self._required[0]

    def _wait(self) -> float | None:
        """How long the call waits for the server: the tool's timeout and a second more, so that the
        registry's "timed out" observation comes first; the server is then told to cancel."""
        timeout = self.timeout if self.timeout is not None else self.server.call_timeout
        return None if math.isinf(timeout) else timeout + 1.0

    def __repr__(self) -> str:
        return f"MCPTool({self.name}({self.signature()}) from {self.server.name!r})"


# --------------------------------------------------------------------------- transports


class _Pending:
    """A request waiting for its response."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.response: dict[str, Any] | None = None
        self.error: str | None = None  # the transport failed: the server died, a message was too big...

    def fail(self, reason: str) -> None:
        self.error = reason
        self.done.set()


class _StdioTransport:
    """The server as a subprocess: one JSON-RPC message per line on its stdin and stdout."""

    def __init__(
        self, server: MCPServer, command: str, args: Sequence[str], env: Mapping[str, str] | None, cwd: str | None
    ) -> None:
        self.server = server
        self.argv = [command, *args]
        self.env = {**{k: v for k, v in os.environ.items() if k in _SAFE_ENV}, **(env or {})}
        self.cwd = cwd
        self.process: subprocess.Popen[bytes] | None = None
        self.exit_code: int | None = None
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES_KEPT)
        self.garbage: list[str] = []  # lines on stdout that are not JSON-RPC (the first few)
        self._write_lock = threading.Lock()
        self._stderr_reader: threading.Thread | None = None

    def describe(self) -> str:
        return shlex.join(self.argv)

    def open(self) -> None:
        try:
            # Its own session: the user's Ctrl-C interrupts vero's turn, not the server, which vero stops itself.
            self.process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.env,
                cwd=self.cwd,
                start_new_session=hasattr(os, "setsid"),
            )
        except OSError as exc:
            raise MCPError(
                f"cannot start the MCP server {self.server.name!r} ({self.describe()}): {exc.strerror or exc}"
            ) from None
        threading.Thread(
            target=self._read_stdout, args=(self.process,), name=f"mcp-{self.server.name}-out", daemon=True
        ).start()
        self._stderr_reader = threading.Thread(
            target=self._read_stderr, args=(self.process,), name=f"mcp-{self.server.name}-err", daemon=True
        )
        self._stderr_reader.start()

    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        process = self.process
        if process is None or process.stdin is None:
            raise MCPError(f"the MCP server {self.server.name!r} is not running")
        try:
            with self._write_lock:
                process.stdin.write(line)
                process.stdin.flush()
        except (OSError, ValueError):  # a closed pipe: the server has exited
            raise MCPError(self.exit_reason()) from None

    def exit_reason(self) -> str:
        code = self.exit_code if self.exit_code is not None else self.process.poll() if self.process else None
        ended = f"exited (exit code {code})" if code is not None else "closed its output"
        return f"the MCP server {self.server.name!r} {ended}"

    def _read_stdout(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        stream, cap = process.stdout, self.server.max_message_bytes
        while True:
            line = stream.readline(cap + 1)
            if not line:
                break
            if len(line) > cap and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the message
                    line = stream.readline(1 << 20)
                self.server._message_too_big()
                continue
            self._take_line(line)
        self.exit_code = process.wait()
        self.server._transport_closed(self.exit_reason())

    def _take_line(self, line: bytes) -> None:
        text = line.decode("utf-8", errors="replace").strip()
        if not text:
            return
        try:
            message = json.loads(text)
        except ValueError:
            message = None
        if isinstance(message, dict):
            self.server._receive(message)
        elif isinstance(message, list):  # a batch (protocol 2025-03-26)
            for item in message:
                if isinstance(item, dict):
                    self.server._receive(item)
        else:
            if len(self.garbage) < 3:
                self.garbage.append(text[:120])
            logger.warning("[%s] not a JSON-RPC message on stdout, skipped: %.200s", self.server.name, text)

    def _read_stderr(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stderr is not None
        for raw in process.stderr:
            line = raw.decode("utf-8", errors="replace").rstrip()
            self.stderr_tail.append(line)
            logger.info("[%s] %s", self.server.name, line)

    def startup_details(self) -> str:
        """What helps the user see why the server did not start: its garbage and its last stderr lines."""
        if self.exit_code is not None and self._stderr_reader is not None:
            self._stderr_reader.join(timeout=2.0)  # it exited: its last words are on their way
        notes = []
        if self.garbage:
            notes.append("it wrote text that is not JSON-RPC to stdout: " + " | ".join(self.garbage))
        if self.stderr_tail:
            notes.append("its stderr ended with: " + " | ".join(list(self.stderr_tail)[-5:]))
        return ("; " + "; ".join(notes)) if notes else ""

    def close(self) -> None:
        """Close stdin, then SIGTERM, then SIGKILL, to the server and what it started; reap it."""
        process, self.process = self.process, None
        if process is None:
            return
        with contextlib.suppress(OSError, ValueError):
            if process.stdin:
                process.stdin.close()
        for sig in (None, signal.SIGTERM, getattr(signal, "SIGKILL", signal.SIGTERM)):
            if sig is not None:
                self._signal(process, sig)
            try:
                process.wait(timeout=SHUTDOWN_GRACE)
                break
            except subprocess.TimeoutExpired:
                continue
        self._signal(process, signal.SIGTERM)  # what the server started and left behind (npx starts node)

    @staticmethod
    def _signal(process: subprocess.Popen[bytes], sig: int) -> None:
        with contextlib.suppress(OSError):
            if hasattr(os, "killpg"):
                os.killpg(process.pid, sig)  # the server leads its own process group
            elif process.poll() is None:
                process.send_signal(sig)


class _HTTPTransport:
    """Streamable HTTP: each message is a POST; the answer is JSON or a stream of server-sent events."""

    def __init__(self, server: MCPServer, url: str, headers: Mapping[str, str] | None) -> None:
        self.server = server
        self.url = url
        self._headers = dict(headers or {})  # secrets (an Authorization token): never printed or logged
        self.session_id: str | None = None
        self.protocol_version: str | None = None

    def describe(self) -> str:
        """The URL as vero shows any: a password or a query value (``?api_key=...``) masked."""
        return redact_url(self.url)

    def header_names(self) -> list[str]:
        return list(self._headers)

    def open(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise MCPError(f"not an http(s) URL: {self.url!r}")

    def _request_headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **self._headers}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    def send(self, message: dict[str, Any], timeout: float | None = None) -> None:
        body = json.dumps(message, ensure_ascii=False).encode()
        request = urllib.request.Request(self.url, data=body, headers=self._request_headers(), method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout or HANDSHAKE_TIMEOUT) as response:
                if message.get("method") == "initialize":
                    self.session_id = response.headers.get("Mcp-Session-Id") or None
                if response.status == 202 or "id" not in message or "method" not in message:
                    return  # a notification or a response: nothing comes back
                kind = response.headers.get_content_type()
                if kind == "text/event-stream":
                    self._read_events(response)
                else:
                    self._read_json(response)
        except urllib.error.HTTPError as exc:
            failed = f"the MCP server {self.server.name!r} answered HTTP {exc.code} {exc.reason}"
            if exc.code == 404 and self.session_id:
                raise _SessionExpired(f"{failed} (its session has ended)") from None
            raise MCPError(failed) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise MCPError(f"cannot reach the MCP server {self.server.name!r} at {self.describe()}: {reason}") from None

    def listen(self) -> None:
        """Open the stream on which the server sends news that answers no request (a changed tool list),
        on a daemon thread; a server that offers no such stream (HTTP 405) is fine."""
        if self.session_id:
            threading.Thread(target=self._listen, name=f"mcp-{self.server.name}-events", daemon=True).start()

    def _listen(self) -> None:
        headers = {k: v for k, v in self._request_headers().items() if k != "Content-Type"}
        request = urllib.request.Request(self.url, headers={**headers, "Accept": "text/event-stream"}, method="GET")
        try:
            with urllib.request.urlopen(request, timeout=None) as response:
                if response.headers.get_content_type() == "text/event-stream":
                    self._read_events(response, answers=False)
        except (urllib.error.URLError, OSError, ValueError) as exc:  # 405: no stream; or the session ended
            logger.debug("[%s] the event stream ended: %s", self.server.name, exc)

    def _read_json(self, response: Any) -> None:
        body = response.read(self.server.max_message_bytes + 1)
        if len(body) > self.server.max_message_bytes:
            self.server._message_too_big()
            return
        try:
            message = json.loads(body)
        except ValueError:
            raise MCPError(f"the MCP server {self.server.name!r} answered with something that is not JSON") from None
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict):
                self.server._receive(item)

    def _read_events(self, response: Any, answers: bool = True) -> None:
        """Server-sent events: ``data:`` lines up to a blank line make one message.  The stream of a
        request ends when its answer has come; ``answers=False``: the stream of news, which answers nothing."""
        cap = self.server.max_message_bytes
        data: list[bytes] = []
        size = 0
        for line in iter(lambda: response.readline(cap + 8), b""):
            if line.startswith(b"data:"):
                chunk = line[5:].removeprefix(b" ").rstrip(b"\r\n")
                size += len(chunk)
                if size > cap or not line.endswith(b"\n"):  # a line longer than the cap: the message is too
                    if answers:
                        self.server._message_too_big()
                    else:
                        logger.warning("[%s] a message over max_message_bytes was dropped", self.server.name)
                    return
                data.append(chunk)
            elif not line.strip() and data:
                text, data, size = b"\n".join(data), [], 0
                with contextlib.suppress(ValueError):
                    message = json.loads(text)
                    if isinstance(message, dict) and self.server._receive(message) and answers:
                        return  # our answer: the stream has nothing more for us

    def close(self) -> None:
        if not self.session_id:
            return
        request = urllib.request.Request(self.url, headers=self._request_headers(), method="DELETE")
        with contextlib.suppress(urllib.error.URLError, OSError):
            urllib.request.urlopen(request, timeout=SHUTDOWN_GRACE).close()
        self.session_id = None


# --------------------------------------------------------------------------- the server


_open_servers: set[MCPServer] = set()  # started and not closed: held here until they are


@atexit.register
def _close_all() -> None:
    """No server outlives the Python process that started it."""
    for server in list(_open_servers):
        server.close()


class MCPServer:
    """A connection to one MCP server, and its tools as vero tools.

    Make one with ``MCPServer.stdio(command, args)`` or ``MCPServer.http(url)``;
    ``with`` starts it (the handshake, then the tool list) and stops it.  The
    limits: ``handshake_timeout`` (seconds to start and answer), ``call_timeout``
    (each tool's ``timeout``), ``max_message_bytes`` (a bigger message from the
    server is refused) and ``max_tools`` (a server that offers more is refused).
    ``prefix`` is put before each tool's name (``"files_"``) when two servers'
    names would clash.  ``trust_annotations=False`` ignores the server's ``readOnlyHint``:
    every tool is then taken to change things (the hints are the server's word, and vero
    lets a recovery rule call a read-only tool for the model).
    """

    def __init__(
        self,
        transport: Callable[[MCPServer], _StdioTransport | _HTTPTransport],
        *,
        name: str,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        call_timeout: float = CALL_TIMEOUT,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
        max_tools: int = MAX_TOOLS,
        prefix: str = "",
        trust_annotations: bool = True,
    ):
        self.name = name
        self.trust_annotations = trust_annotations
        self.handshake_timeout = handshake_timeout
        self.call_timeout = call_timeout
        self.max_message_bytes = max_message_bytes
        self.max_tools = max_tools
        self.prefix = prefix
        self.transport = transport(self)
        self.protocol_version: str | None = None
        self.server_info: dict[str, Any] = {}
        self.instructions: str | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._lock = threading.Lock()
        self._tools: dict[str, MCPTool] = {}
        self._tools_changed = False
        self._refresh_lock = threading.Lock()
        self._registries: list[ToolRegistry] = []
        self._closed_reason: str | None = None
        self._started = False

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        name: str | None = None,
        **limits: Any,
    ) -> MCPServer:
        """A server that vero starts as a subprocess.  It gets a small environment (``PATH``, ``HOME``...,
        not your API keys) plus ``env``."""
        args = list(args)
        return cls(
            lambda server: _StdioTransport(server, command, args, env, cwd),
            name=name or _name_of([command, *args]),
            **limits,
        )

    @classmethod
    def http(
        cls, url: str, *, headers: Mapping[str, str] | None = None, name: str | None = None, **limits: Any
    ) -> MCPServer:
        """A server at a Streamable HTTP endpoint.  ``headers`` (an ``Authorization`` token) are sent with
        every request and never printed, logged or traced."""
        return cls(
            lambda server: _HTTPTransport(server, url, headers),
            name=name or (urllib.parse.urlsplit(url).hostname or "mcp"),
            **limits,
        )

    def __repr__(self) -> str:
        where = self.transport.describe()
        if isinstance(self.transport, _HTTPTransport) and self.transport.header_names():
            where += ", headers: " + ", ".join(f"{key}=***" for key in self.transport.header_names())
        return f"MCPServer({self.name!r}, {where})"

    # ------------------------------------------------------------------ lifetime

    def __enter__(self) -> MCPServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start(self) -> MCPServer:
        """Start the server, run the handshake and take its tools; ``MCPError`` (and the server stopped) if any
        of that fails."""
        if self._started:
            return self
        self._started = True
        _open_servers.add(self)
        try:
            self.transport.open()
            self._initialize()
            self._load_tools()
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        """Stop the server (its subprocess is ended and reaped); calls still waiting fail."""
        _open_servers.discard(self)
        self._fail_pending(self._closed_reason or f"the MCP server {self.name!r} was closed")
        self._closed_reason = self._closed_reason or f"the MCP server {self.name!r} was closed"
        self.transport.close()

    def _initialize(self) -> None:
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "vero", "version": _vero_version()},
        }
        try:
            result = self.request("initialize", params, timeout=self.handshake_timeout)
        except MCPError as exc:
            details = self.transport.startup_details() if isinstance(self.transport, _StdioTransport) else ""
            raise MCPError(
                f"the MCP server {self.name!r} ({self.transport.describe()}) did not start: {exc}{details}"
            ) from None
        version = result.get("protocolVersion")
        if version not in SUPPORTED_VERSIONS:
            raise MCPError(
                f"the MCP server {self.name!r} speaks protocol version {version!r}; "
                f"vero speaks {', '.join(SUPPORTED_VERSIONS)}"
            )
        self.protocol_version = version
        if isinstance(self.transport, _HTTPTransport):
            self.transport.protocol_version = version
        self.server_info = _object(result.get("serverInfo"))
        self.instructions = result.get("instructions") if isinstance(result.get("instructions"), str) else None
        self.notify("notifications/initialized")
        if isinstance(self.transport, _HTTPTransport):
            self.transport.listen()

    # ------------------------------------------------------------------ tools

    def tools(self) -> list[MCPTool]:
        """The server's tools, as vero tools (the list is fetched again if the server said it changed)."""
        self._refresh_if_changed()
        return list(self._tools.values())

    def sync(self, registry: ToolRegistry) -> ToolRegistry:
        """Put the server's tools in ``registry`` and keep them there in step with the server: when it
        says its list changed, new tools are added and gone ones removed (after the call that brought the
        news, before the model's next turn).  Returns the registry: ``server.sync(agent.tools)``."""
        self._registries.append(registry)
        for found in self.tools():
            if found.name not in registry:
                registry.register(found)
        return registry

    def _load_tools(self) -> None:
        specs: list[dict[str, Any]] = []
        cursor = None
        for _page in range(self.max_tools + 1):  # a server that gives empty pages forever is stopped too
            result = self.request("tools/list", {"cursor": cursor} if cursor else {}, timeout=self.handshake_timeout)
            page = result.get("tools")
            specs += (
                [s for s in page if isinstance(s, dict) and isinstance(s.get("name"), str)]
                if isinstance(page, list)
                else []
            )
            if len(specs) > self.max_tools:
                raise MCPError(
                    f"the MCP server {self.name!r} offers more than {self.max_tools} tools; "
                    "pass max_tools= to take more"
                )
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                break
        else:
            raise MCPError(f"the MCP server {self.name!r} gave more than {self.max_tools} pages of tools")
        old = self._tools
        self._tools = {}
        for spec in specs:
            made = MCPTool(self, spec, self.prefix)
            if made.name in self._tools:
                logger.warning(
                    "[%s] two tools are both called %r for the model; the second is left out", self.name, made.name
                )
                continue
            self._tools[made.name] = made
        for registry in self._registries:
            for name in old.keys() - self._tools.keys():
                if registry.get(name) is old[name]:
                    registry.remove(name)
            for name, made in self._tools.items():
                if name not in registry or registry.get(name) is old.get(name):
                    registry.remove(name)
                    registry.register(made)

    def _refresh_if_changed(self) -> None:
        with self._refresh_lock:  # one refresh at a time, even if tools run in parallel
            if not self._tools_changed or self._closed_reason is not None:
                return
            self._tools_changed = False
            try:
                self._load_tools()
            except MCPError as exc:
                logger.warning("[%s] the tool list changed but could not be read again: %s", self.name, exc)

    def call(self, name: str, arguments: Mapping[str, Any] | None = None, timeout: float | None = None) -> str:
        """Call tool ``name`` (the server's name for it) and return the result's text; ``MCPError`` if the
        call failed.  ``timeout`` defaults to ``call_timeout``."""
        self._refresh_if_changed()
        try:
            result = self.request(
                "tools/call",
                {"name": name, "arguments": dict(arguments or {})},
                timeout=self.call_timeout if timeout is None else timeout,
            )
        finally:
            self._refresh_if_changed()
        text = result_text(result)
        if result.get("isError") is True:
            raise MCPError(text)
        return text

    # ------------------------------------------------------------------ JSON-RPC

    def request(
        self, method: str, params: Mapping[str, Any] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        """Send a request and wait for its result; ``MCPError`` for an error response, a timeout, a
        server that died or a message too big."""
        if self._closed_reason:
            raise MCPError(self._closed_reason)
        request_id = next(self._ids)
        pending = _Pending()
        with self._lock:
            self._pending[request_id] = pending
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        timed_out = False
        try:
            if isinstance(self.transport, _HTTPTransport):
                self._post(message, timeout)
                if not pending.done.is_set():
                    raise MCPError(f"the MCP server {self.name!r} sent no answer to {method}")
            else:
                self.transport.send(message)
            if not pending.done.wait(timeout):
                timed_out = True
                raise MCPError(f"the MCP server {self.name!r} did not answer {method} within {timeout} s")
        except BaseException as exc:  # a timeout, or the user's Ctrl-C: the server is told to stop working on it
            if not pending.done.is_set() and (timed_out or not isinstance(exc, MCPError)):
                self._cancel(request_id, "timed out" if timed_out else "interrupted")
            raise
        finally:
            with self._lock:
                self._pending.pop(request_id, None)
        if pending.error is not None:
            raise MCPError(pending.error)
        response = pending.response or {}
        if "error" in response:
            error = response["error"] if isinstance(response["error"], dict) else {}
            raise MCPError(f"{error.get('message', 'error')} (JSON-RPC error {error.get('code', '?')})")
        result = response.get("result")
        return result if isinstance(result, dict) else {}

    def _post(self, message: dict[str, Any], timeout: float | None) -> None:
        """Send a request over HTTP (its answer is read before this returns).  A server that forgot our
        session gets a new one, and the request once more."""
        assert isinstance(self.transport, _HTTPTransport)
        try:
            self.transport.send(message, timeout=timeout)
        except _SessionExpired:
            if message.get("method") == "initialize":
                raise
            logger.info("[%s] the server ended our session; starting a new one", self.name)
            self.transport.session_id = self.transport.protocol_version = None
            self._initialize()
            self._tools_changed = True  # the new session may offer other tools
            self.transport.send(message, timeout=timeout)

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.transport.send(message)

    def _cancel(self, request_id: int, reason: str) -> None:
        if request_id == 1:  # ``initialize`` is never cancelled (the protocol says so)
            return
        with contextlib.suppress(MCPError):
            self.notify("notifications/cancelled", {"requestId": request_id, "reason": reason})

    def _receive(self, message: dict[str, Any]) -> bool:
        """Handle one message from the server; True if it answered a request of ours."""
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                self._answer(message["id"], method)
            elif method == "notifications/tools/list_changed":
                self._tools_changed = True
            elif method == "notifications/message":
                params = _object(message.get("params"))
                logger.info("[%s] %s: %s", self.name, params.get("level", "info"), params.get("data"))
            return False
        request_id = message.get("id")
        with self._lock:
            pending = self._pending.get(request_id) if isinstance(request_id, int) else None
        if pending is None:
            return False  # an answer nobody waits for any more (a call that timed out)
        pending.response = message
        pending.done.set()
        return True

    def _answer(self, request_id: Any, method: str) -> None:
        """Answer a request from the server: ``ping``; anything else (sampling, roots...) vero does not offer."""
        if method == "ping":
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "result": {}}
        else:
            reply = {
                "jsonrpc": "2.0",
                "id": request_id,
                "error": {"code": -32601, "message": f"vero does not offer {method}"},
            }
        with contextlib.suppress(MCPError):
            self.transport.send(reply)

    def _message_too_big(self) -> None:
        self._fail_pending(
            f"the MCP server {self.name!r} sent a message of more than "
            f"{self.max_message_bytes:,} bytes (max_message_bytes); it was dropped"
        )

    def _transport_closed(self, reason: str) -> None:
        if self._closed_reason is None:
            logger.info("[%s] %s", self.name, reason)
            self._closed_reason = reason
        self._fail_pending(reason)

    def _fail_pending(self, reason: str) -> None:
        with self._lock:
            waiting = list(self._pending.values())
        for pending in waiting:
            if not pending.done.is_set():
                pending.fail(reason)


def _object(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: a server's fields are checked, not trusted."""
    return value if isinstance(value, dict) else {}


def _name_of(argv: Sequence[str]) -> str:
    """A short name for a server started by ``argv``: the package or script, not the launcher."""
    launchers = {"npx", "uvx", "python", "python3", "node", "uv", "pipx", "deno", "bun", "docker", "run", "-m"}
    words = [os.path.basename(w) for w in argv if not w.startswith("-") and os.path.basename(w) not in launchers]
    name = words[0] if words else os.path.basename(argv[0]) if argv else "mcp"
    name = name.rsplit("/", 1)[-1].removesuffix(".py").removesuffix(".js")
    return re.sub(r"@[^@]*$", "", name) or name  # "server-filesystem@1.2" -> "server-filesystem"


def _vero_version() -> str:
    from vero import __version__

    return __version__


# --------------------------------------------------------------------------- the command line


def servers_from_config(path: str, **limits: Any) -> list[MCPServer]:
    """The servers of an ``{"mcpServers": {name: {command, args, env, cwd} | {url, headers}}}`` file."""
    try:
        with open(path, encoding="utf-8") as file:
            config = json.load(file)
    except OSError as exc:
        raise MCPError(f"cannot read the MCP config {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise MCPError(f"the MCP config {path} is not valid JSON: {exc}") from None
    entries = config.get("mcpServers") if isinstance(config, dict) else None
    if not isinstance(entries, dict):
        raise MCPError(f'the MCP config {path} has no "mcpServers" object')
    return [_server_from_entry(name, entry, path, limits) for name, entry in entries.items()]


def _server_from_entry(name: str, entry: Any, path: str, limits: dict[str, Any]) -> MCPServer:
    where = f"the MCP config {path}, server {name!r}"
    if not isinstance(entry, dict):
        raise MCPError(f'{where}: expected an object with "command" or "url"')
    if entry.get("type") == "sse":
        raise MCPError(f"{where}: the old SSE transport is not supported; use the server's Streamable HTTP URL")
    if isinstance(entry.get("url"), str):
        headers = entry.get("headers") or {}
        if not (isinstance(headers, dict) and all(isinstance(v, str) for v in headers.values())):
            raise MCPError(f'{where}: "headers" must be an object of strings')
        return MCPServer.http(entry["url"], headers=headers, name=name, **limits)
    command, args, env = entry.get("command"), entry.get("args", []), entry.get("env") or {}
    if not isinstance(command, str) or not command:
        raise MCPError(f'{where}: expected "command" (a string) or "url"')
    if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
        raise MCPError(f'{where}: "args" must be a list of strings')
    if not (isinstance(env, dict) and all(isinstance(v, str) for v in env.values())):
        raise MCPError(f'{where}: "env" must be an object of strings')
    return MCPServer.stdio(command, args, env=env, cwd=entry.get("cwd"), name=name, **limits)


def server_from_command(text: str, **limits: Any) -> MCPServer:
    """``--mcp "npx -y @modelcontextprotocol/server-filesystem /dir"`` (or an http(s) URL) -> a server."""
    if text.strip().startswith(("http://", "https://")):
        return MCPServer.http(text.strip(), **limits)
    try:
        argv = shlex.split(text, posix=os.name != "nt")
    except ValueError as exc:
        raise MCPError(f"cannot read --mcp {text!r}: {exc}") from None
    if not argv:
        raise MCPError('--mcp needs a command, e.g. --mcp "npx -y @modelcontextprotocol/server-filesystem ."')
    return MCPServer.stdio(argv[0], argv[1:])


def servers_from_cli(args: Any, tools: list[Tool], stack: contextlib.ExitStack) -> list[Tool] | ToolRegistry:
    """``vero chat`` / ``vero run``: start the ``--mcp`` and ``--mcp-config`` servers (``stack`` stops them
    when the command ends) and return ``tools`` with theirs added.  Without those options, ``tools`` as it is."""
    commands, config = getattr(args, "mcp", None) or [], getattr(args, "mcp_config", None)
    if not commands and not config:
        return tools
    from vero._console import CliError  # here: the console helpers import the agents

    try:
        servers = [server_from_command(text) for text in commands]
        servers += servers_from_config(config) if config else []
        registry = ToolRegistry(tools)
        for server in servers:
            stack.enter_context(server)
            clashes = [t.name for t in server.tools() if t.name in registry]
            if clashes:
                logger.warning(
                    "[%s] tools named like ones already given are left out: %s", server.name, ", ".join(clashes)
                )
            server.sync(registry)
    except MCPError as exc:
        raise CliError(str(exc)) from None
    return registry


__all__ = [
    "MCPError",
    "MCPServer",
    "MCPTool",
    "result_text",
    "server_from_command",
    "servers_from_cli",
    "servers_from_config",
]
