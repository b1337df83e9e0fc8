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
import difflib
import hashlib
import http.client
import itertools
import json
import logging
import math
import os
import re
import select
import shlex
import signal
import socket
import subprocess
import threading
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vero._version import __version__
from vero.core.files import read_regular
from vero.core.secrets import hide_secrets, url_credentials
from vero.core.text import clip, redact_url
from vero.tools.base import Tool, ToolArgumentError
from vero.tools.registry import ToolRegistry
from vero.tools.schema import check, inline_refs

logger = logging.getLogger("vero.mcp")

PROTOCOL_VERSION = "2025-11-25"  # the revision vero asks for
SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # what a server may answer with
HANDSHAKE_TIMEOUT = 60.0  # seconds to start and answer ``initialize`` (npx may first fetch the package)
CALL_TIMEOUT = 60.0  # seconds for one tool call (the tool's ``timeout``)
MAX_MESSAGE_BYTES = 8 * 1024 * 1024  # one message from the server; a bigger one is refused
MAX_TOOLS = 128  # tools taken from one server
MAX_DESCRIPTION_CHARS = 4_000  # one tool's description; a longer one is clipped, with a note saying so
MAX_SCHEMA_BYTES = 64 * 1024  # one tool's input schema, as JSON; a tool with a bigger one is left out
MAX_TOOLS_BYTES = 256 * 1024  # all of a server's descriptions and schemas; the tools past it are left out
MAX_JSON_DEPTH = 100  # how deeply a message from the server may nest; a deeper one is refused
SHUTDOWN_GRACE = 2.0  # seconds a server gets to exit after its stdin closes, then after SIGTERM
_NOTICE_SECONDS = 5.0  # over HTTP, for a notification or a reply to be taken (a cancel after Ctrl-C waits this)
_REFRESH_WAIT = 2.0  # seconds a call's answer waits for the tool list the server said changed (then: background)
_STDERR_LINES_KEPT = 20  # the last lines of a server's stderr, for the error when it fails to start
_STDERR_LINE_CHARS = 2_000  # of each stderr line, what is logged and kept (20 lines: at most ~40 KB)
_LOGGED_CHARS = 2_000  # of a server's log message, what goes to vero's log
_CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "mcp-session-id"})
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


class _RPCError(MCPError):
    """The server answered a request with a JSON-RPC error (``code``: -32601 for a method it does not have)."""

    def __init__(self, message: str, code: Any = None) -> None:
        super().__init__(message)
        self.code = code


class _TooDeep(Exception):
    """A message from the server nests deeper than ``MAX_JSON_DEPTH``."""


def _json_of(data: bytes | str) -> Any:
    """``data`` read as JSON: ``ValueError`` if it is not JSON, ``_TooDeep`` if it nests deeper than
    ``MAX_JSON_DEPTH`` (reading it, or any later walk through it, would overflow Python's stack)."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise _TooDeep from None
    if _nests_deeper(value, MAX_JSON_DEPTH):
        raise _TooDeep
    return value


def _top_level(data: bytes | str) -> dict[str, Any]:
    """The top level of a JSON object vero will not read whole (nested too deep, or too big and so cut
    short), each nested value read as null: enough to see a message's ``id`` and ``method``.  Of a message
    cut short, the members before the cut.  Only its first 1 MiB is looked at; empty if nothing can be read."""
    text = data[: 1 << 20] if isinstance(data, str) else data[: 1 << 20].decode("utf-8", errors="replace")
    kept, start, depth, in_string, escaped, whole = [], 0, 0, False, False, 0
    for at, char in enumerate(text):
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth == 2:
                kept.append(text[start:at])
        elif char in "]}":
            if depth == 2:
                kept.append("null")
                start = at + 1
            depth -= 1
        elif char == "," and depth == 1:  # the members before it are whole
            kept.append(text[start:at])
            start, whole = at, len(kept)
    for attempt in ("".join(kept) + text[start:], "".join(kept[:whole]) + "}"):
        with contextlib.suppress(ValueError, RecursionError):
            head = json.loads(attempt)
            return head if isinstance(head, dict) else {}
    return {}


def _nests_deeper(value: Any, limit: int) -> bool:
    """True if ``value`` has lists or objects nested more than ``limit`` levels (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


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
    """The name a model calls an MCP tool by: ASCII letters, digits, ``_`` and ``-``, at most 64 (what the OpenAI
    API takes).  A name in another script keeps what has an ASCII form (``café``: ``cafe``) and gets a short hash
    of the server's name for it, so that two such tools (``查询天气``, ``获取时间``) keep two names."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", f"{prefix}{_ascii(remote)}")
    if remote.isascii():
        return name[:64] or "tool"
    readable = re.sub(r"__+", "_", name).strip("_") or "tool"
    return f"{readable[:57]}_{hashlib.sha256(remote.encode('utf-8', 'surrogatepass')).hexdigest()[:6]}"


def _ascii(text: str) -> str:
    """``text`` with each letter that has an ASCII form written so (accents dropped), the others left as they are."""
    return "".join(
        c if c.isascii() else unicodedata.normalize("NFKD", c).encode("ascii", "ignore").decode() or c for c in text
    )


def _description(spec: Mapping[str, Any], limit: int) -> str:
    """A tool's description (or title), clipped to ``limit`` characters with a note saying so."""
    annotations = _object(spec.get("annotations"))
    text = str(spec.get("description") or spec.get("title") or annotations.get("title") or "")
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … [clipped by vero: {len(text) - limit:,} more characters]"


def _request_number(value: Any) -> int | None:
    """The request an answer's ``id`` names: ``7``, or ``"7"`` or ``7.0`` as some servers echo it; else None."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_ROOT_CHOICES = ("anyOf", "oneOf", "allOf")  # at a schema's top, refused by OpenAI's and Anthropic's APIs


def _parameters(input_schema: Any) -> dict[str, Any]:
    """The server's ``inputSchema`` as a vero ``parameters`` schema (always an object with properties), its
    ``$ref``s written out (``inline_refs``: a referenced object is checked as any other, and no server is sent
    a ``$schema`` key, which some OpenAI-compatible servers refuse).  A choice among objects at its top
    (``anyOf``, ``oneOf``, ``allOf``), which hosted APIs refuse, is sent as one object of the branches'
    properties, required only where every branch requires them (``allOf``: any); ``root_choices`` keeps it to check."""
    schema = inline_refs(dict(input_schema)) if isinstance(input_schema, dict) else {}
    for key, branches in root_choices(schema).items():
        del schema[key]
        objects = [branch for branch in branches if isinstance(branch.get("properties"), dict)]
        given = schema.get("properties")
        merged: dict[str, Any] = dict(given) if isinstance(given, dict) else {}
        schema["properties"] = merged
        for name, each in ((name, each) for branch in objects for name, each in branch["properties"].items()):
            earlier = merged.setdefault(name, each)  # allOf: the first says (the choice itself is checked whole)
            options = earlier.get("anyOf", [earlier]) if key != "allOf" and earlier != each else []
            merged[name] = {"anyOf": [*options, each]} if options and each not in options else earlier
        needed = [set(_texts_in(branch.get("required"))) for branch in objects] or [set()]
        both = set.union(*needed) if key == "allOf" else set.intersection(*needed)
        schema["required"] = list(dict.fromkeys([*_texts_in(schema.get("required")), *sorted(both)]))
    schema["type"] = "object"
    properties = schema.get("properties")
    schema["properties"] = (
        {k: v for k, v in properties.items() if isinstance(v, dict)} if isinstance(properties, dict) else {}
    )
    schema["required"] = _texts_in(schema.get("required"))
    unknown = [name for name in schema["required"] if name not in schema["properties"]]
    if unknown and schema.get("additionalProperties") is False:  # the call could give neither it nor go without it
        logger.warning("an MCP tool's schema requires %s, which it has no property of: not required", unknown)
        schema["required"] = [name for name in schema["required"] if name not in unknown]
    return schema


def root_choices(schema: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """A schema's choices at its top (``anyOf``, ``oneOf``, ``allOf``), by keyword: each branch that is a schema."""
    choices = {key: schema[key] for key in _ROOT_CHOICES if isinstance(schema.get(key), list)}
    return {key: [branch for branch in branches if isinstance(branch, dict)] for key, branches in choices.items()}


def _texts_in(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


class MCPTool(Tool):
    """One tool of an MCP server: its schema is the server's ``inputSchema``, a call is a ``tools/call``.

    Arguments are checked as vero checks any tool's (required names, the types of
    the properties, coerced where they can be); the rest of the schema is the
    server's to check.  ``read_only`` follows the server's ``readOnlyHint`` only for
    a server the user trusts (``trust=True``); every other tool is taken to change things.
    """

    def __init__(self, server: MCPServer, spec: Mapping[str, Any], prefix: str = ""):
        self.server = server
        self.remote_name = str(spec["name"])
        annotations = _object(spec.get("annotations"))
        read_only = bool(
            server.trust and annotations.get("readOnlyHint") is True and annotations.get("destructiveHint") is not True
        )

        def call_remote(**arguments: Any) -> str:
            return self.server.call(self.remote_name, arguments, timeout=self._wait())

        description = _description(spec, server.max_description_chars)
        super().__init__(
            call_remote,
            name=tool_name(self.remote_name, prefix),
            description=description or None,
            timeout=server.call_timeout,
            read_only=read_only,
        )
        self.__doc__ = description or None
        self.spec = dict(spec)
        self.parameters = _parameters(spec.get("inputSchema"))
        raw = spec.get("inputSchema")
        self._choices = root_choices(inline_refs(dict(raw))) if isinstance(raw, dict) else {}  # checked whole
        self._positional = []
        self._required = self.parameters["required"]
        extra = self.parameters.get("additionalProperties", True)
        self._extra = extra if isinstance(extra, dict) else None  # each other argument checked against its schema
        self._accepts_extra = extra is not False
        props = list(self.parameters["properties"])
        self.sole_parameter = props[0] if len(props) == 1 else None
        if self.sole_parameter is None and len(self._required) == 1:
            self.sole_parameter = self._required[0]

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        """``Tool.validate``, and for a schema whose top is a choice (``root_choices``), the arguments as a whole
        against it: a call that fits none of its forms is named, not sent."""
        kwargs = super().validate(args)
        problems: list[tuple[str, str]] = []
        for key, branches in self._choices.items():
            check(kwargs, {key: branches}, "", problems)
        if problems:
            misfits = "; ".join(message for _, message in problems)
            raise ToolArgumentError(
                f"got arguments of no form it takes: {misfits}. Expected: {self.expected_arguments()}."
            )
        return kwargs

    def _wait(self) -> float:
        """How long the call waits for the server: the tool's timeout and a second more, so that the
        registry's "timed out" observation comes first; the server is then told to cancel."""
        timeout = self.timeout if self.timeout is not None else self.server.call_timeout
        return timeout + 1.0  # math.inf: no limit

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
        self.shown: str | None = None
        self.secrets = [value for name, value in (env or {}).items() if _SECRET_NAME.search(name)]  # a config adds more
        self.env = {**{k: v for k, v in os.environ.items() if k in _SAFE_ENV}, **(env or {})}
        self.mark = f"{os.getpid()}-{id(self):x}-{time.monotonic_ns()}"  # passed on to all the server starts
        self.env[_MARK] = self.mark
        self.cwd = cwd
        self.process: subprocess.Popen[bytes] | None = None
        self.exit_code: int | None = None
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES_KEPT)
        self.garbage: list[str] = []  # lines on stdout that are not JSON-RPC (the first few)
        self.skipped = 0  # how many such lines
        self._write_lock = threading.Lock()
        self._readers: list[threading.Thread] = []  # of stdout, then stderr

    def describe(self) -> str:
        """The command line, as the user wrote it (``shown``: with ``${VAR}`` unexpanded, a secret unshown)."""
        return self.shown or shlex.join(self.argv)

    def hidden(self, text: str) -> str:
        """``text`` with the secrets the server was given masked (it may echo its token: "auth failed for ...")."""
        return hide_secrets(text, self.secrets) if self.secrets else text

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
        except (OSError, ValueError) as exc:  # ValueError: a NUL in a word, a name with "=" in the environment
            missing = f": {path!r}" if (path := getattr(exc, "filename", None)) else ""  # the command, or its cwd
            raise MCPError(
                f"cannot start the MCP server {self.server.name!r} ({self.describe()}): "
                f"{getattr(exc, 'strerror', None) or exc}{missing}"
            ) from None
        self._readers = [
            threading.Thread(target=read, args=(self.process,), name=f"mcp-{self.server.name}-{what}", daemon=True)
            for read, what in ((self._read_stdout, "out"), (self._read_stderr, "err"), (self._watch_exit, "exit"))
        ]
        for reader in self._readers:
            reader.start()

    def send(self, message: dict[str, Any], timeout: float | None = None) -> None:
        """Write one message, within ``timeout`` seconds: a server that stops reading its stdin fills the pipe,
        and is then taken as hung (its input stream is cut in the middle of a line: it cannot go on)."""
        line = _encoded(message, self.server.name, separators=(",", ":")) + b"\n"
        process = self.process
        if process is None or process.stdin is None:
            raise MCPError(f"the MCP server {self.server.name!r} is not running")
        ends = None if timeout is None else time.monotonic() + timeout
        try:
            if not self._write_lock.acquire(timeout=-1 if timeout is None else timeout):
                raise TimeoutError
            try:
                _write_within(process.stdin, line, ends)
            finally:
                self._write_lock.release()
        except TimeoutError:
            reason = f"the MCP server {self.server.name!r} did not read its input for {timeout} s"
            self.server._transport_closed(reason)
            raise MCPError(reason) from None
        except (OSError, ValueError):  # a closed pipe: the server has exited
            raise MCPError(self.exit_reason()) from None

    def exit_reason(self) -> str:
        code = self.exit_code if self.exit_code is not None else self.process.poll() if self.process else None
        ended = f"exited (exit code {code})" if code is not None else "closed its output"
        return f"the MCP server {self.server.name!r} {ended}"

    def _read_stdout(self, process: subprocess.Popen[bytes]) -> None:
        """Each message from the server, until the server's stdout ends (or a restart has replaced this transport)."""
        assert process.stdout is not None
        stream, cap = process.stdout, self.server.max_message_bytes
        while True:
            line = stream.readline(cap + 1)
            if not line or self.server.transport is not self:
                break
            if len(line) > cap and not line.endswith(b"\n"):
                head, rest = line[: 1 << 20], line  # its head: a notification, or the answer to which call
                while rest and not rest.endswith(b"\n"):  # skip the rest of the message
                    rest = stream.readline(1 << 20)
                self.server._message_too_big(head)
                continue
            try:
                self._take_line(line)
            except Exception:  # a bug in reading one message must not leave every later call waiting
                logger.exception("[%s] a message from the server could not be read; skipped", self.server.name)
        with contextlib.suppress(subprocess.TimeoutExpired):  # a server that closed its stdout may run on
            self.exit_code = process.wait(timeout=self.server.shutdown_grace)
        self._ended()

    def _watch_exit(self, process: subprocess.Popen[bytes]) -> None:
        """A server that exited while a process it started holds its stdout: the reader sees no end of it, so
        this says so, once the answers still in the pipe have had a moment to be read."""
        code = process.wait()
        self._readers[0].join(timeout=1.0)
        if self._readers[0].is_alive():
            self.exit_code = code
            self._ended()

    def _ended(self) -> None:
        """The server can answer no more (unless a restart has replaced this transport: then it is old news)."""
        if self.server.transport is self:
            self.server._transport_closed(self.exit_reason())

    def _take_line(self, line: bytes) -> None:
        text = line.decode("utf-8", errors="replace").strip()
        if not text:
            return
        try:
            message = _json_of(text)
        except ValueError:
            message = None
        except _TooDeep:
            self.server._message_too_deep(text)
            return
        if isinstance(message, dict):
            self.server._receive(message)
        elif isinstance(message, list):  # a batch (protocol 2025-03-26)
            for item in message:
                if isinstance(item, dict):
                    self.server._receive(item)
        else:
            self.skipped, text = self.skipped + 1, self.hidden(text)
            if len(self.garbage) < 3:
                self.garbage.append(text[:120])
            if self.skipped <= MAX_SKIPPED_WARNINGS:  # a server flooding stdout must not flood the terminal
                more = "; further such lines are skipped silently" if self.skipped == MAX_SKIPPED_WARNINGS else ""
                logger.warning("[%s] not a JSON-RPC message on stdout, skipped: %.200s%s", self.server.name, text, more)

    def _read_stderr(self, process: subprocess.Popen[bytes]) -> None:
        """Each line to the log and the tail, its start only: a server that writes megabytes with no
        newline must not grow vero's memory (the rest of such a line is read and dropped)."""
        assert process.stderr is not None
        stream, most = process.stderr, _STDERR_LINE_CHARS * 4  # bytes: up to 4 per character in UTF-8
        while raw := stream.readline(most):
            size = len(raw.rstrip(b"\n"))
            while not raw.endswith(b"\n") and (more := stream.readline(1 << 16)):
                size += len(more.rstrip(b"\n"))
                if more.endswith(b"\n"):
                    break
            text = self.hidden(raw.decode("utf-8", errors="replace").rstrip())
            line = text[:_STDERR_LINE_CHARS]
            if size > len(raw.rstrip(b"\n")) or len(text) > len(line):
                line += f" … ({size:,} bytes)"
            self.stderr_tail.append(line)
            logger.info("[%s] %s", self.server.name, line)

    def startup_details(self) -> str:
        """What helps the user see why the server did not start: its garbage and its last stderr lines."""
        if self.exit_code is not None and self._readers:
            self._readers[1].join(timeout=2.0)  # it exited: its last words are on their way
        notes = []
        if self.garbage:
            notes.append("it wrote text that is not JSON-RPC to stdout: " + " | ".join(self.garbage))
        if self.stderr_tail:
            last = [line if len(line) <= 300 else line[:300] + " …" for line in list(self.stderr_tail)[-5:]]
            notes.append("its stderr ended with: " + " | ".join(last))  # an error message, not a log
        return ("; " + "; ".join(notes)) if notes else ""

    def close(self) -> None:
        """Stop the server and all it started, and reap it: its stdin is closed (MCP servers exit then),
        then SIGTERM and, for what is left after ``shutdown_grace``, SIGKILL go to its process group and to
        every process it started (found before it exits and orphans them, even one that called
        ``setsid()``).  Its pipes then close, so the reader threads end."""
        process, self.process = self.process, None
        if process is None:
            return
        grace = self.server.shutdown_grace
        family = _started_by(process.pid, self.mark)
        with contextlib.suppress(OSError, ValueError):
            if process.stdin:
                process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
        for sig in (signal.SIGTERM, getattr(signal, "SIGKILL", signal.SIGTERM)):
            family.update(_started_by(process.pid, self.mark))  # those it started since, or orphaned
            self._signal(process, sig)
            _signal_all(family, sig)
            if _ended(process, family, within=grace):
                break
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
        ends = time.monotonic() + grace  # a process out of reach may still hold the pipes: not forever
        for reader in self._readers:
            reader.join(timeout=max(0.0, ends - time.monotonic()))

    @staticmethod
    def _signal(process: subprocess.Popen[bytes], sig: int) -> None:
        with contextlib.suppress(OSError):
            if hasattr(os, "killpg"):
                os.killpg(process.pid, sig)  # the server leads its own process group
            elif process.poll() is None:
                process.send_signal(sig)


def _encoded(message: dict[str, Any], server: str, **options: Any) -> bytes:
    """A message as UTF-8 JSON, or ``MCPError`` before anything is sent: text with a lone surrogate (``"\\ud800"``,
    which a JSON escape can carry into Python) has no UTF-8 form, and the server could not read it."""
    try:
        return json.dumps(message, ensure_ascii=False, **options).encode()
    except UnicodeEncodeError as exc:
        reason = f"it holds {exc.object[exc.start : exc.end]!r}, half of a UTF-16 pair, which is not text"
    except (TypeError, ValueError) as exc:
        reason = f"it cannot be written as JSON ({clip(str(exc), 200, ' …')})"
    raise MCPError(f"{message.get('method') or 'an answer'} was not sent to the MCP server {server!r}: {reason}")


def _write_within(stream: Any, data: bytes, ends: float | None) -> None:
    """Write ``data`` to a pipe by ``ends`` (a ``time.monotonic()``; None: no limit), or ``TimeoutError``.
    Where pipes cannot be polled (Windows), a plain write."""
    if not hasattr(select, "poll"):
        stream.write(data)
        stream.flush()
        return
    fd = stream.fileno()
    os.set_blocking(fd, False)
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    view = memoryview(data)
    while view:
        left = None if ends is None else ends - time.monotonic()
        if left is not None and left <= 0:
            raise TimeoutError
        if poller.poll(None if left is None else max(1, int(left * 1000))):
            with contextlib.suppress(BlockingIOError):
                view = view[os.write(fd, view) :]


# The processes a server started (Linux: /proc; elsewhere none are found, and its process group is what
# is stopped).  Each is known by its pid and start time, so that a pid used again is never signalled.

_MARK = "VERO_MCP_SERVER"  # in a server's environment, and so in that of every process it starts


def _started_by(pid: int, mark: str) -> dict[int, str]:
    """The processes that ``pid`` started, at any depth, those of its process group and session, and those
    whose environment holds ``VERO_MCP_SERVER=mark`` (a daemon that forked twice and left its parent and
    session keeps it): pid -> start time."""
    table = _processes()
    children: dict[int, list[int]] = collections.defaultdict(list)
    for child, (_state, parent, _group, _session, _start) in table.items():
        children[parent].append(child)
    found = {other for other, (_state, _parent, group, session, _start) in table.items() if pid in (group, session)}
    found |= {other for other in table if other != os.getpid() and _marked(other, f"{_MARK}={mark}".encode())}
    stack = [pid, *found]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    found.discard(pid)
    return {other: table[other][4] for other in found}


def _marked(pid: int, entry: bytes) -> bool:
    """True if the environment of process ``pid`` holds ``entry`` (only one's own processes can be read)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            return entry in file.read().split(b"\0")
    except OSError:
        return False


def _processes() -> dict[int, tuple[str, int, int, int, str]]:
    """Every process: pid -> (state, parent, process group, session, start time); none without /proc."""
    table = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
                table[int(entry.name)] = stat
    return table


def _stat(pid: int) -> tuple[str, int, int, int, str] | None:
    """What ``/proc/PID/stat`` says of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().decode("latin-1").rsplit(")", 1)[1].split()  # after "pid (name)"
        return fields[0], int(fields[1]), int(fields[2]), int(fields[3]), fields[19]
    except (OSError, IndexError, ValueError):
        return None


def _living(family: Mapping[int, str]) -> list[int]:
    """The processes of ``family`` still running (a zombie has ended; its parent or init reaps it)."""
    living = []
    for pid, start in family.items():
        stat = _stat(pid)
        if stat is not None and stat[4] == start and stat[0] not in "ZX":
            living.append(pid)
    return living


def _signal_all(family: Mapping[int, str], sig: int) -> None:
    for pid in _living(family):
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def _ended(process: subprocess.Popen[bytes], family: Mapping[int, str], within: float) -> bool:
    """Wait up to ``within`` seconds for the server and ``family`` to end; True if they did."""
    deadline = time.monotonic() + within
    while process.poll() is None or _living(family):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


# HTTP exchanges with a wall-clock limit.  A socket timeout bounds each wait, not the whole: a server
# that drips its headers, or sends an SSE comment every second, would hold a call forever.  So each
# exchange's sockets are watched, and shut down when its time is up; a blocked read then returns at once.


class _Cutoff:
    """The sockets of one HTTP exchange, shut down after ``seconds`` (never, for None) or by ``cut()``."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.passed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self.cut) if seconds is not None else None
        if self._timer is not None:
            self._timer.daemon = True
            self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if not self.passed:
                return
        _shut(sock)

    def cut(self) -> None:
        with self._lock:
            self.passed = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def __enter__(self) -> _Cutoff:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._timer is not None:
            self._timer.cancel()


def _shut(sock: socket.socket) -> None:
    """Shut a socket down under a read blocked in another thread (for TLS too: the plain socket's call)."""
    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


def _watch_connections(connection: http.client.HTTPConnection, cutoff: _Cutoff) -> None:
    """``cutoff`` watches each socket ``connection`` opens from the moment it exists: before a TLS
    handshake or a proxy's tunnel, which a server could drip too."""
    create: Callable[..., socket.socket] = getattr(connection, "_create_connection")  # noqa: B009 - not in typeshed

    def watched(*args: Any, **kwargs: Any) -> socket.socket:
        sock = create(*args, **kwargs)
        cutoff.watch(sock)
        return sock

    setattr(connection, "_create_connection", watched)  # noqa: B010 - not in typeshed


class _WatchedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, *args: Any, cutoff: _Cutoff, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _watch_connections(self, cutoff)


class _WatchedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, *args: Any, cutoff: _Cutoff, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _watch_connections(self, cutoff)


class _WatchedHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, cutoff: _Cutoff) -> None:
        super().__init__()
        self.cutoff = cutoff

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_WatchedHTTPConnection, req, cutoff=self.cutoff)  # type: ignore[arg-type]


class _WatchedHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, cutoff: _Cutoff) -> None:
        super().__init__()
        self.cutoff = cutoff

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_WatchedHTTPSConnection, req, cutoff=self.cutoff)  # type: ignore[arg-type]


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    """Follows a redirect, a POST too for 307 and 308 (body and method kept, as browsers do).  To another
    origin (scheme, host or port), without the credentials: ``Authorization``, cookies, the session id and
    every header the user gave (an ``X-Api-Key`` is a credential too)."""

    def __init__(self, secret_headers: Sequence[str]) -> None:
        super().__init__()
        self.secret_headers = _CREDENTIAL_HEADERS | {name.lower() for name in secret_headers}

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        if urllib.parse.urlsplit(newurl).scheme.lower() not in ("http", "https"):
            raise urllib.error.HTTPError(req.full_url, code, f"a redirect to {newurl.split(':')[0]}:", headers, fp)
        if code in (307, 308) and req.get_method() == "POST":
            moved: urllib.request.Request | None = urllib.request.Request(
                newurl.replace(" ", "%20"), data=req.data, headers=dict(req.headers), method="POST"
            )
        else:
            moved = super().redirect_request(req, fp, code, msg, headers, newurl)
        if moved is not None and _origin(moved.full_url) != _origin(req.full_url):
            for name in [n for n in moved.headers if n.lower() in self.secret_headers]:
                moved.remove_header(name)
        return moved


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    try:
        port = parts.port or default
    except ValueError:
        port = None
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


def _without_login(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its ``user:password@``, and the ``Authorization`` header that carries them, as HTTP clients
    send a URL's login (``http.client`` would take it for part of the host name)."""
    with contextlib.suppress(ValueError):
        parts = urllib.parse.urlsplit(url)
        if parts.username is not None:
            login = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
            host = parts.netloc.rpartition("@")[2]
            return parts._replace(netloc=host).geturl(), {
                "Authorization": "Basic " + base64.b64encode(login.encode()).decode()
            }
    return url, {}


class _HTTPTransport:
    """Streamable HTTP: each message is a POST; the answer is JSON or a stream of server-sent events."""

    def __init__(self, server: MCPServer, url: str, headers: Mapping[str, str] | None) -> None:
        self.server = server
        self.url, login = _without_login(url)  # user:password@ in the URL: sent as HTTP's basic authentication
        self._headers = {**login, **(headers or {})}  # secrets (an Authorization token): never printed or logged
        self._login = url_credentials(url)  # the password itself too, which a server's error may echo
        self.shown: str | None = None
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self._stream = _Cutoff(None)  # the stream of news: no time limit, cut when the server is closed

    def describe(self) -> str:
        """The URL as vero shows any: a password or a query value (``?api_key=...``) masked; ``shown``: as
        the user wrote it, ``${VAR}`` unexpanded."""
        return redact_url(self.shown or self.url)

    def header_names(self) -> list[str]:
        return list(self._headers)

    def hidden(self, text: str) -> str:
        """``text`` with the headers' values masked, whole and word by word (``Bearer TOKEN``: the token too):
        they are secrets, and an error may quote one (``Invalid header value b'Bearer ...'``), a server echo it."""
        values = [part for value in self._headers.values() for part in (value, value.strip(), *value.split())]
        values += self._login
        return hide_secrets(text, values) if values else text

    def open(self) -> None:
        if not _http_url(self.url):  # in any case of the scheme, as the config check takes it
            raise MCPError(f"not an http(s) URL: {self.describe()!r}")
        for name, value in self._headers.items():
            problem = _header_problem(name, value)
            if problem:  # the header named, its value never shown
                raise MCPError(f"the MCP server {self.server.name!r}: the header {name!r} {problem}")

    def _request_headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **self._headers}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    def _open(self, request: urllib.request.Request, cutoff: _Cutoff, idle: float | None) -> Any:
        """``urlopen`` with the exchange's sockets watched by ``cutoff``, credentials kept from other origins,
        and ``idle`` the longest wait for a byte."""
        opener = urllib.request.build_opener(
            _WatchedHTTPHandler(cutoff), _WatchedHTTPSHandler(cutoff), _RedirectHandler(self.header_names())
        )
        return opener.open(request, timeout=idle)

    def send(self, message: dict[str, Any], timeout: float | None = None) -> None:
        """POST one message and read its answer, all within ``timeout`` seconds (wall-clock)."""
        body = _encoded(message, self.server.name)
        request = urllib.request.Request(self.url, data=body, headers=self._request_headers(), method="POST")
        with _Cutoff(timeout) as cutoff:
            try:
                self._exchange(request, message, cutoff)
            except (MCPError, urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
                if cutoff.passed:  # whatever the cut socket made of the answer
                    raise self._late(message, timeout) from None
                raise self._failure(exc) from None
            if cutoff.passed:
                raise self._late(message, timeout)

    def _failure(self, exc: Exception) -> MCPError:
        """What went wrong with a POST, as an ``MCPError`` that says it."""
        if isinstance(exc, MCPError):
            return exc
        if isinstance(exc, urllib.error.HTTPError):
            reason = clip(self.hidden(str(exc.reason)), 200, " …")
            failed = f"the MCP server {self.server.name!r} answered HTTP {exc.code} {reason}"
            if exc.code == 404 and self.session_id:
                return _SessionExpired(f"{failed} (its session has ended)")
            if exc.code == 405:  # a POST refused: an endpoint of the old SSE transport, most often
                failed += " (a URL of the old SSE transport? vero speaks Streamable HTTP: give the server's URL of it)"
            return MCPError(failed)
        reason = clip(self.hidden(str(getattr(exc, "reason", None) or exc)), 300, " …")
        return MCPError(f"cannot reach the MCP server {self.server.name!r} at {self.describe()}: {reason}")

    def _exchange(self, request: urllib.request.Request, message: dict[str, Any], cutoff: _Cutoff) -> None:
        with self._open(request, cutoff, idle=cutoff.seconds or HANDSHAKE_TIMEOUT) as response:
            if message.get("method") == "initialize":
                self.session_id = response.headers.get("Mcp-Session-Id") or None
            if response.status == 202 or "id" not in message or "method" not in message:
                return  # a notification or a response: nothing comes back
            kind = response.headers.get_content_type()
            if kind == "text/event-stream":
                self._read_events(response, message["id"])
            else:
                self._read_json(response, message["id"])

    def _late(self, message: dict[str, Any], timeout: float | None) -> MCPError:
        what = message.get("method") or "a message"
        return MCPError(f"the MCP server {self.server.name!r} did not answer {what} within {timeout} s")

    def listen(self) -> None:
        """Open the stream on which the server sends news that answers no request (a changed tool list),
        on a daemon thread; a server that offers no such stream (HTTP 405) is fine.  ``close()`` ends it."""
        if self.session_id:
            threading.Thread(target=self._listen, name=f"mcp-{self.server.name}-events", daemon=True).start()

    def _listen(self) -> None:
        headers = {k: v for k, v in self._request_headers().items() if k != "Content-Type"}
        request = urllib.request.Request(self.url, headers={**headers, "Accept": "text/event-stream"}, method="GET")
        try:
            with self._open(request, self._stream, idle=None) as response:
                if response.headers.get_content_type() == "text/event-stream":
                    self._read_events(response)
        except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
            logger.debug("[%s] the event stream ended: %s", self.server.name, self.hidden(str(exc)))  # 405, or closed

    def _read_json(self, response: Any, asked: int) -> None:
        """The answer to request ``asked`` as one JSON body (one that vero will not read fails that request)."""
        body = response.read(self.server.max_message_bytes + 1)
        if len(body) > self.server.max_message_bytes:
            self.server._message_too_big(body, logged=False, otherwise=[asked])
            return
        try:
            message = _json_of(body)
        except ValueError:
            raise MCPError(f"the MCP server {self.server.name!r} answered with something that is not JSON") from None
        except _TooDeep:
            self.server._message_too_deep(body, logged=False, otherwise=[asked])
            return
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict):
                self.server._receive(item)

    def _read_events(self, response: Any, asked: int | None = None) -> None:
        """Server-sent events: ``data:`` lines up to a blank line make one message.  The stream of request
        ``asked`` ends when its answer has come; None: the stream of news, which answers nothing.  Of an event
        over ``max_message_bytes`` the rest is skipped, its head kept: a notification is dropped, and the
        stream goes on."""
        cap = self.server.max_message_bytes
        data: list[bytes] = []
        size = 0
        for line in iter(lambda: response.readline(cap + 8), b""):
            if not line.strip():
                if data and self._take_event(b"\n".join(data), size > cap, asked):
                    return  # our answer, or its failure: the stream has nothing more for us
                data, size = [], 0
            elif line.startswith(b"data:") and size <= cap:  # (a line longer than the cap is read in parts)
                chunk = line[5:].removeprefix(b" ").rstrip(b"\r\n")
                size += len(chunk)
                data.append(chunk)

    def _take_event(self, text: bytes, too_big: bool, asked: int | None) -> bool:
        """One event's message; True if it answered (or, refused, failed) request ``asked``."""
        otherwise = [] if asked is None else [asked]
        try:
            if too_big:
                return self.server._message_too_big(text, asked is None, otherwise) and asked is not None
            message = _json_of(text)
        except ValueError:
            return False
        except _TooDeep:
            return self.server._message_too_deep(text, asked is None, otherwise) and asked is not None
        return isinstance(message, dict) and self.server._receive(message) and asked is not None

    def close(self) -> None:
        """End the stream of news and the session (a ``DELETE``, within ``shutdown_grace``)."""
        self._stream.cut()
        if not self.session_id:
            return
        request = urllib.request.Request(self.url, headers=self._request_headers(), method="DELETE")
        with contextlib.suppress(urllib.error.URLError, OSError, http.client.HTTPException, ValueError):
            with _Cutoff(self.server.shutdown_grace) as cutoff:
                self._open(request, cutoff, idle=self.server.shutdown_grace).close()
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
    ``with`` starts it (the handshake, then the tool list) and stops it; a later
    ``with`` starts it again.  The limits: ``handshake_timeout`` (seconds to start
    and answer), ``call_timeout`` (each tool's ``timeout``), both wall-clock whatever
    the server sends (``math.inf`` or None: no limit);
    ``max_message_bytes`` (a bigger message from the server is refused),
    ``max_tools`` (a server that offers more is refused), ``max_description_chars``,
    ``max_schema_bytes`` and ``max_tools_bytes`` (what the tools' descriptions and
    schemas may add to every request) and ``shutdown_grace`` (seconds to exit after
    stdin closes, then after SIGTERM).  ``prefix`` is put before each tool's name
    (``"files_"``) when two servers' names would clash.  ``allowed_tools`` (only these)
    and ``blocked_tools`` (never these) pick tools by the server's names for them.

    ``trust=True`` takes the server's word for which tools only read (``readOnlyHint``).
    By default every tool is taken to change things, whatever its annotations say:
    a server could mark a deleting tool read-only, and a read-only tool is one vero
    lets run with less care (arguments repaired, a recovery rule calling it).
    """

    def __init__(
        self,
        transport: Callable[[MCPServer], _StdioTransport | _HTTPTransport],
        *,
        name: str,
        trust: bool = False,
        handshake_timeout: float | None = HANDSHAKE_TIMEOUT,
        call_timeout: float | None = CALL_TIMEOUT,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
        max_tools: int = MAX_TOOLS,
        max_description_chars: int = MAX_DESCRIPTION_CHARS,
        max_schema_bytes: int = MAX_SCHEMA_BYTES,
        max_tools_bytes: int = MAX_TOOLS_BYTES,
        shutdown_grace: float = SHUTDOWN_GRACE,
        prefix: str = "",
        allowed_tools: Sequence[str] | None = None,
        blocked_tools: Sequence[str] = (),
    ):
        if not isinstance(trust, bool):  # "no" or "false" would be taken as trust
            raise TypeError(f"trust must be True or False, got {trust!r}")
        self.name = name
        self.allowed_tools = None if allowed_tools is None else _names("allowed_tools", allowed_tools)
        self.blocked_tools = _names("blocked_tools", blocked_tools or ())
        self.trust = trust
        self.handshake_timeout = _seconds("handshake_timeout", handshake_timeout)
        self.call_timeout = _seconds("call_timeout", call_timeout)
        self.max_message_bytes = max_message_bytes
        self.max_tools = max_tools
        self.max_description_chars = max_description_chars
        self.max_schema_bytes = max_schema_bytes
        self.max_tools_bytes = max_tools_bytes
        self.shutdown_grace = shutdown_grace
        self.prefix = prefix
        self._make_transport = transport
        self.transport = transport(self)
        self.capabilities: dict[str, Any] = {}
        self.protocol_version: str | None = None
        self.server_info: dict[str, Any] = {}
        self.instructions: str | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._lock = threading.Lock()
        self._tools: dict[str, MCPTool] = {}
        self._tools_changed = False
        self._refresh_lock = threading.Lock()
        self._refresher: threading.Thread | None = None
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
        if self._closed_reason is not None:  # closed before: started again, as a new process (or session)
            self._renew()
        self._started = True
        _open_servers.add(self)
        try:
            ends = time.monotonic() + self.handshake_timeout  # for the whole handshake
            self.transport.open()
            self._initialize()
            self._take_tools(ends)
        except BaseException:
            self.close()
            raise
        return self

    def _renew(self) -> None:
        """Ready to start again after ``close()``: a transport made as the first was.  Request ids go on
        counting, so that a late answer from the old process can answer nothing of the new one's."""
        shown, secrets = self.transport.shown, getattr(self.transport, "secrets", None)
        self.transport = self._make_transport(self)
        self.transport.shown = shown
        if secrets is not None:  # what a config read from the environment: the new transport did not read it
            self.transport.secrets = secrets  # type: ignore[union-attr]
        self._closed_reason = None
        self._tools_changed = False

    def close(self) -> None:
        """Stop the server (its subprocess is ended and reaped); calls still waiting fail."""
        _open_servers.discard(self)
        self._started = False
        self._fail_pending(self._closed_reason or f"the MCP server {self.name!r} was closed")
        self._closed_reason = self._closed_reason or f"the MCP server {self.name!r} was closed"
        self.transport.close()

    def _initialize(self, timeout: float | None = None) -> None:
        """The handshake: ``initialize`` (within ``timeout``, or ``handshake_timeout``), then ``initialized``."""
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "vero", "version": __version__},
        }
        try:
            result = self.request("initialize", params, timeout=timeout or self.handshake_timeout)
        except MCPError as exc:
            details = self.transport.startup_details() if isinstance(self.transport, _StdioTransport) else ""
            failed = f"the MCP server {self.name!r} ({self.transport.describe()}) did not start: {exc}{details}"
            raise MCPError(self._hidden(failed)) from None
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
        self.capabilities = _object(result.get("capabilities"))
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

    def _load_tools(self, ends: float | None = None) -> None:
        """Read the tool list (every page, all within ``handshake_timeout`` or until ``ends``) and make its tools."""
        ends = ends if ends is not None else time.monotonic() + self.handshake_timeout
        specs: list[dict[str, Any]] = []
        cursor = None
        for _page in range(self.max_tools + 1):  # a server that gives empty pages forever is stopped too
            left = ends - time.monotonic()
            if left <= 0:
                raise MCPError(f"the MCP server {self.name!r} did not list its tools within {self.handshake_timeout} s")
            try:
                result = self.request("tools/list", {"cursor": cursor} if cursor else {}, timeout=left)
            except _RPCError as exc:
                raise _RPCError(f"the MCP server {self.name!r} did not list its tools: {exc}", exc.code) from None
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
        self._make_tools(specs)

    def _make_tools(self, specs: list[dict[str, Any]]) -> None:
        """The tools of ``specs`` (within the size limits, one per name), in place of the old ones here and in
        each registry kept in step (``sync``)."""
        unknown = (self.blocked_tools | (self.allowed_tools or frozenset())) - {spec["name"] for spec in specs}
        if unknown:  # a name misspelt, or given with a prefix: the tool it meant would be offered, or not
            logger.warning("[%s] no tool of the server is called %s", self.name, ", ".join(sorted(unknown)))
        old = self._tools
        self._tools = {}
        for spec in self._within_size_limits(specs):
            if spec["name"] in self.blocked_tools or not (
                self.allowed_tools is None or spec["name"] in self.allowed_tools
            ):
                continue  # picked out by the user (a config's "disabledTools", ...; an empty allowed list: none)
            made = MCPTool(self, spec, self.prefix)
            renamed = made.name != self.prefix + made.remote_name  # files.read: files_read, unless a tool has that name
            if clash := renamed and any(made.name == self.prefix + other["name"] for other in specs):
                digest = hashlib.sha256(made.remote_name.encode("utf-8", "surrogatepass")).hexdigest()
                made.name = f"{made.name[:57]}_{digest[:6]}"
            if clash or not made.remote_name.isascii():
                logger.warning(
                    "[%s] the tool %r is called %r for the model (the OpenAI API takes ASCII letters, digits, _ and -)",
                    *(self.name, made.remote_name, made.name),
                )
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

    def _take_tools(self, ends: float) -> None:
        """The tool list, if the server has tools.  One whose capabilities name others but not ``tools`` (only
        resources or prompts) is not asked: it has none, said in a warning.  One that names no capability at all
        is asked anyway (some servers leave them out), and "method not found" from it means none too."""
        if self.capabilities and "tools" not in self.capabilities:
            offers = ", ".join(map(str, self.capabilities))
            logger.warning("[%s] the MCP server %r offers no tools (only: %s)", self.name, self.name, offers)
            return
        try:
            self._load_tools(ends)
        except _RPCError as exc:
            if self.capabilities or exc.code != -32601:
                raise
            logger.warning("[%s] the MCP server %r offers no tools (%s)", self.name, self.name, exc)

    def _within_size_limits(self, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The tools whose schemas fit ``max_schema_bytes``, while all descriptions and schemas together fit
        ``max_tools_bytes``; each tool left out is named in a warning.  (They are sent with every request.)"""
        kept: list[dict[str, Any]] = []
        total = 0
        for index, spec in enumerate(specs):
            name = tool_name(spec["name"], self.prefix)
            schema = len(json.dumps(spec.get("inputSchema"), ensure_ascii=False).encode())
            if schema > self.max_schema_bytes:
                logger.warning(
                    "[%s] the tool %r is left out: its input schema is %s bytes, more than max_schema_bytes (%s)",
                    *(self.name, name, f"{schema:,}", f"{self.max_schema_bytes:,}"),
                )
                continue
            total += schema + len(_description(spec, self.max_description_chars).encode())
            if total > self.max_tools_bytes:
                left_out = ", ".join(tool_name(s["name"], self.prefix) for s in specs[index:])
                logger.warning(
                    "[%s] tools left out, as their descriptions and schemas pass max_tools_bytes (%s) in all: %s",
                    *(self.name, f"{self.max_tools_bytes:,}", left_out),
                )
                break
            kept.append(spec)
        return kept

    def _refresh_if_changed(self) -> None:
        with self._refresh_lock:  # one refresh at a time, even if tools run in parallel
            if not self._tools_changed or self._closed_reason is not None:
                return
            self._tools_changed = False
            try:
                self._load_tools()
            except MCPError as exc:
                if self._closed_reason is None:  # (closed meanwhile: nothing worth a warning)
                    logger.warning("[%s] the tool list changed but could not be read again: %s", self.name, exc)

    def _refresh_in_background(self) -> threading.Thread | None:
        """The thread that reads the tool list again, started if the server said it changed and none runs; None
        when there is nothing to read.  A call waits for it only within its own time: a server slow to list its
        tools must not turn an answered call into a timeout, nor hold up the next call."""
        with self._lock:
            running = self._refresher
            if running is None or not running.is_alive():
                if not self._tools_changed or self._closed_reason is not None:
                    return None
                running = threading.Thread(target=self._refresh_if_changed, name=f"mcp-{self.name}-tools", daemon=True)
                running.start()
                self._refresher = running
            return running

    def call(self, name: str, arguments: Mapping[str, Any] | None = None, timeout: float | None = None) -> str:
        """Call tool ``name`` (the server's name for it) and return the result's text; ``MCPError`` if the
        call failed.  ``timeout`` defaults to ``call_timeout``.  A tool list that changed is read again once the
        answer is in (so that the model's next turn sees it): waited for up to ``_REFRESH_WAIT`` seconds, and half
        of what is left of the tool's time limit, then left to finish in the background."""
        limit = self.call_timeout if timeout is None else timeout
        ends = time.monotonic() + limit - 1.0  # the tool's own limit: ``MCPTool._wait`` gives the call a second more
        slow = self._refresher  # still running from an earlier call: waited for once, not again
        self._refresh_in_background()  # news that came between calls (over HTTP, on the stream of news)
        try:
            result = self.request("tools/call", {"name": name, "arguments": dict(arguments or {})}, timeout=limit)
        finally:
            refresher = self._refresh_in_background()
        if refresher is not None and refresher is not slow:
            refresher.join(min(_REFRESH_WAIT, max(0.0, (ends - time.monotonic()) / 2)))
        text = result_text(result)
        if result.get("isError") is True:
            raise MCPError(self._hidden(text))
        return text

    # ------------------------------------------------------------------ JSON-RPC

    def request(
        self, method: str, params: Mapping[str, Any] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        """Send a request and wait for its result; ``MCPError`` for an error response, a timeout, a
        server that died or a message too big."""
        if self._closed_reason:
            raise MCPError(self._closed_reason)
        timeout = None if timeout is None or math.isinf(timeout) else timeout  # no limit: math.inf or None
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
                self.transport.send(message, timeout=timeout)
            if not pending.done.wait(timeout):
                timed_out = True
                raise MCPError(f"the MCP server {self.name!r} did not answer {method} within {timeout} s")
        except BaseException as exc:  # a timeout, or the user's Ctrl-C: the server is told to stop working on it
            if not pending.done.is_set() and (timed_out or not isinstance(exc, MCPError)):
                self._cancel(request_id, method, "timed out" if timed_out else "interrupted")
            raise
        finally:
            with self._lock:
                self._pending.pop(request_id, None)
        if pending.error is not None:
            raise MCPError(self._hidden(pending.error))
        response = pending.response or {}
        if "error" in response:
            error = response["error"] if isinstance(response["error"], dict) else {}
            text, code = clip(str(error.get("message", "error")), 2000, " …"), str(error.get("code", "?"))[:20]
            raise _RPCError(self._hidden(f"{text} (JSON-RPC error {code})"), error.get("code"))
        result = response.get("result")
        return result if isinstance(result, dict) else {}

    def _post(self, message: dict[str, Any], timeout: float | None) -> None:
        """Send a request over HTTP (its answer is read before this returns).  A server that forgot our
        session gets a new one, and the request once more."""
        assert isinstance(self.transport, _HTTPTransport)
        ends = None if timeout is None else time.monotonic() + timeout  # the retry too stays within it
        try:
            self.transport.send(message, timeout=timeout)
        except _SessionExpired:
            if message.get("method") == "initialize":
                raise
            logger.info("[%s] the server ended our session; starting a new one", self.name)
            self.transport.session_id = self.transport.protocol_version = None
            self._initialize(self._time_left(ends, message, timeout))
            self._tools_changed = True  # the new session may offer other tools
            self.transport.send(message, timeout=self._time_left(ends, message, timeout))

    def _time_left(self, ends: float | None, message: dict[str, Any], timeout: float | None) -> float | None:
        """Seconds until ``ends`` (None: no limit); ``MCPError`` if it has passed."""
        if ends is None:
            return None
        left = ends - time.monotonic()
        if left <= 0:
            raise MCPError(f"the MCP server {self.name!r} did not answer {message.get('method')} within {timeout} s")
        return left

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send a notification; over HTTP, ``MCPError`` if the server has not taken it within a few seconds."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.transport.send(message, timeout=_NOTICE_SECONDS)

    def _cancel(self, request_id: int, method: str, reason: str) -> None:
        if method == "initialize":  # never cancelled (the protocol says so)
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
                data = self._hidden(str(params.get("data"))[:_LOGGED_CHARS])
                logger.info("[%s] %s: %s", self.name, str(params.get("level", "info"))[:20], data)
            return False
        request_id = _request_number(message.get("id"))
        with self._lock:
            if request_id is None and "error" in message:  # an error of no request's (it could not read one): each
                waiting = list(self._pending.values())  # waiting call hears it, rather than wait out its time
            else:
                waiting = [self._pending[request_id]] if request_id in self._pending else []
        for pending in waiting:  # none: an answer nobody waits for any more (a call that timed out)
            pending.response = message
            pending.done.set()
        return bool(waiting)

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
            self.transport.send(reply, timeout=_NOTICE_SECONDS)

    def _message_too_big(self, head: bytes | str, logged: bool = True, otherwise: Sequence[int] | None = None) -> bool:
        """A message over ``max_message_bytes``; ``head``: its start, as far as it was read (see ``_refuse``)."""
        what = f"a message of more than {self.max_message_bytes:,} bytes (max_message_bytes)"
        return self._refuse(what, head, logged, otherwise)

    def _message_too_deep(self, text: bytes | str, logged: bool = True, otherwise: Sequence[int] | None = None) -> bool:
        """A message nested deeper than ``MAX_JSON_DEPTH`` (see ``_refuse``)."""
        return self._refuse(f"a message nested more than {MAX_JSON_DEPTH} levels deep", text, logged, otherwise)

    def _refuse(self, what: str, text: bytes | str, logged: bool, otherwise: Sequence[int] | None) -> bool:
        """A message vero will not read, told apart by its top level.  A notification or a request of the
        server's is dropped, with an error in the log, and the server goes on.  An answer fails the call it
        answers at once (True), rather than let it wait out its time limit: the one its ``id`` names, else
        those of ``otherwise`` (over HTTP: the request whose answer it is), else (None) every call waiting.
        ``logged``: the log says so too (over HTTP the error reaches the request that read it)."""
        head = _top_level(text)
        if isinstance(head.get("method"), str):
            logger.error("[%s] the MCP server sent %s (%.80s); it was dropped", self.name, what, head["method"])
            return False
        reason = f"the MCP server {self.name!r} sent {what}; it was dropped"
        request_id = _request_number(head.get("id"))
        with self._lock:
            ids = [request_id] if request_id is not None else list(self._pending) if otherwise is None else otherwise
            waiting = [self._pending[i] for i in ids if i in self._pending and not self._pending[i].done.is_set()]
        if logged or not waiting:
            logger.error("[%s] %s", self.name, reason)
        for pending in waiting:
            pending.fail(reason)
        return bool(waiting)

    def _hidden(self, text: str) -> str:
        """``text`` (an error about this server, a line of its log) with the secrets it was given masked."""
        return self.transport.hidden(text)

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


def _seconds(name: str, value: float | None) -> float:
    """A time limit as given: seconds above 0; ``math.inf`` or None is no limit (``math.inf``).  Checked when the
    server is made, not at its first call."""
    if value is None:
        return math.inf
    if type(value) not in (int, float) or not value > 0:  # not nan, 0, "5", True
        raise ValueError(f"{name} must be seconds above 0 (math.inf or None: no limit), got {value!r}")
    return value


def _object(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: a server's fields are checked, not trusted."""
    return value if isinstance(value, dict) else {}


# Launchers a server is started by, and their options that take a value (``-e VAR``): a server is named
# after what they launch, not after an option's value.  ``-m`` (``python -m module``) is left out: the module
# that follows it is the server.
_LAUNCHER_OPTIONS = {
    "docker": "-e --env --env-file -v --volume --mount -p --publish -w --workdir -u --user --name --network --net "
    "--entrypoint --platform -l --label --label-file -h --hostname --add-host --cap-add --cap-drop --device --dns "
    "--gpus --ipc --pid --pull --restart --runtime --security-opt --shm-size --tmpfs --ulimit --memory --cpus",
    "uv": "--directory --project --with --with-editable --with-requirements --from --python -p --index --index-url "
    "--extra-index-url --default-index --find-links -f --env-file --extra --group --only-group --package --cache-dir "
    "--config-file --resolution --prerelease --exclude-newer --color",
    "npx": "--registry --package -p --cache --userconfig --prefix -c --call -w --workspace --node-options --loglevel",
    "python": "-X -W -c",
    "node": "-r --require --import --loader --experimental-loader --env-file --conditions -C --input-type --title",
    "deno": "--config -c --import-map --lock --location --cert --env-file",
    "bun": "-p --package --cwd --env-file --config -c -r --preload",
}
_LAUNCHER_ALIASES = {"podman": "docker", "uvx": "uv", "pipx": "uv", "bunx": "bun", "python3": "python", "py": "python"}
_LAUNCHER_WORDS = {"run", "exec", "x", "tool", "-m"}  # after a launcher: ``docker run``, ``uv tool run``, ``bun x``


def _launcher(word: str) -> str | None:
    """The launcher ``word`` runs (``/usr/bin/python3.12``: python), or None."""
    base = os.path.basename(word).lower().removesuffix(".exe").removesuffix(".cmd")
    base = _LAUNCHER_ALIASES.get(base, re.sub(r"^python[\d.]*$", "python", base))
    return base if base in _LAUNCHER_OPTIONS else None


def _launched(argv: Sequence[str]) -> str | None:
    """The word of ``argv`` that names the server: the first that is neither a launcher, nor one of its words
    or options, nor an option's value."""
    launcher, skip = None, False
    for word in argv:
        if skip:
            skip = False
        elif (found := _launcher(word)) is not None:
            launcher = found
        elif word.startswith("-") and word not in _LAUNCHER_WORDS:
            skip = launcher is not None and "=" not in word and word in _LAUNCHER_OPTIONS[launcher].split()
        elif not (launcher and word in _LAUNCHER_WORDS):
            return word
    return None


def _name_of(argv: Sequence[str]) -> str:
    """A short name for a server started by ``argv``: its package, image or script, not the launcher, nor a
    launcher option's value (``docker run -e TOKEN image``: the image; ``uv run --directory DIR x.py``: x)."""
    word = _launched(argv) or (os.path.basename(argv[0]) if argv else "mcp")
    name = word.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    name = re.sub(r"\.(py|js|mjs|cjs|ts)$", "", name)
    name = re.sub(r":[^:@]*$", "", name) or name  # an image's tag: "fetch:latest"
    return re.sub(r"@[^@]*$", "", name) or name  # "server-filesystem@1.2" -> "server-filesystem"


# --------------------------------------------------------------------------- the command line


# What an editor's JSON allows beyond JSON (VS Code's and Zed's files are "JSON with comments"): a
# string is kept as it is, a comment goes (a block comment leaves its line breaks), then a trailing comma.
_JSON_STRING = r'"(?:\\.|[^"\\\n])*"'  # matched first, so that "//" or "," inside a string stays
_JSONC_COMMENT = re.compile(rf"{_JSON_STRING}|//[^\n]*|/\*.*?\*/", re.S)
_JSONC_COMMA = re.compile(rf"{_JSON_STRING}|,(?=\s*[}}\]])")
LAYOUTS = {"mcpServers": "Claude Desktop, Cursor, Windsurf", "servers": "VS Code", "context_servers": "Zed"}


def _without_comments(text: str) -> str:
    kept = _JSONC_COMMENT.sub(lambda m: m.group() if m.group()[0] == '"' else "\n" * m.group().count("\n"), text)
    return _JSONC_COMMA.sub(lambda m: m.group() if m.group()[0] == '"' else "", kept)


MAX_SKIPPED_WARNINGS = 20  # lines on a server's stdout that are not JSON-RPC, warned about one by one
MAX_CONFIG_BYTES = 16 << 20  # an MCP config file larger than this is refused, not read


def servers_from_config(path: str, **limits: Any) -> list[MCPServer]:
    """The servers of an MCP config file, in the layout of Claude Desktop, Cursor and Windsurf
    (``{"mcpServers": {name: entry}}``), of VS Code (``{"servers": {name: entry}}``) or of Zed
    (``{"context_servers": ...}``), comments and trailing commas allowed; an entry is
    ``{command, args, env, cwd}`` or ``{url, headers}``, with ``"disabled": true`` to leave it out and
    ``"trust": true`` to take its read-only marks.  ``${VAR}``, ``${env:VAR}`` and ``${VAR:-default}`` in
    the strings are read from the environment."""
    entries = _named_entries(path, _read_config(path))
    servers = []
    for name, entry in entries.items():
        where = f"the MCP config {path}, server {name!r}"
        if not name.strip():  # --mcp-trust and the log lines name a server: one without a name cannot be named
            raise MCPError(f"{where}: a server needs a name")
        if not isinstance(entry, dict):
            raise MCPError(f'{where}: expected an object with "command" or "url"')
        if isinstance(entry, _JSONObject) and entry.twice:
            raise MCPError(f'{where}: "{entry.twice[0]}" is given twice (JSON keeps only the last); give it once')
        if _flag(entry, "disabled", where) or not _flag({"enabled": True, **entry}, "enabled", where):  # Zed's
            logger.info("[%s] disabled in %s: not started", name, path)
            continue
        if entry.get("source") == "extension":  # Zed: a server an editor extension provides, nothing to start here
            logger.warning("[%s] in %s comes from a Zed extension, which vero cannot start: skipped", name, path)
            continue
        servers.append(_server_from_entry(name, entry, where, limits))
    if not servers:
        logger.warning("the MCP config %s has no server to start (%d named, none enabled)", path, len(entries))
    return servers


class _JSONObject(dict[str, Any]):
    """An object of a config file that remembers the names it held more than once: JSON keeps the last of
    them silently, and a second server of the same name would never start."""

    twice: tuple[str, ...] = ()


def _json_object(pairs: list[tuple[str, Any]]) -> _JSONObject:
    """``json.loads``'s ``object_pairs_hook``: the object, with the names it held twice (``twice``)."""
    found = _JSONObject(pairs)
    if len(found) < len(pairs):
        names = [name for name, _ in pairs]
        found.twice = tuple(dict.fromkeys(name for name in names if names.count(name) > 1))
    return found


def _read_config(path: str) -> Any:
    """The config file read as JSON with comments: a usage error for a file that cannot be read, is not UTF-8
    text, or is not JSON."""
    try:  # a regular file only: a FIFO would wait forever, /dev/zero never end
        data = read_regular(path, MAX_CONFIG_BYTES)
    except OSError as exc:
        raise MCPError(f"cannot read the MCP config {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")  # a byte order mark too
    except UnicodeDecodeError as exc:
        utf16 = " (it is UTF-16: save it as UTF-8)" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise MCPError(f"the MCP config {path} is not UTF-8 text (byte {exc.start}){utf16}") from None
    try:
        return json.loads(_without_comments(text), object_pairs_hook=_json_object)
    except (ValueError, RecursionError) as exc:
        raise MCPError(f"the MCP config {path} is not valid JSON: {str(exc)[:200]}") from None


def _named_entries(path: str, config: Any) -> dict[str, Any]:
    """The servers' entries by name, from whichever layouts the file has; a name given twice is an error."""
    layouts = {key: config.get(key) for key in LAYOUTS} if isinstance(config, dict) else {}
    found = {key: entries for key, entries in layouts.items() if isinstance(entries, dict)}
    inner = config.get("mcp") if isinstance(config, dict) else None
    if not found and isinstance(inner, dict) and any(key in inner for key in LAYOUTS):
        return _named_entries(path, inner)  # VS Code's settings.json: {"mcp": {"servers": {...}}}
    misplaced = next((key for key, entries in layouts.items() if entries is not None), None)
    if not found and misplaced:  # Continue's list of servers, say
        held = layouts[misplaced]
        shown = "a list" if isinstance(held, list) else clip(json.dumps(held), 60, "…")
        raise MCPError(
            f'the MCP config {path}: "{misplaced}" holds {shown}, not an object of servers by name '
            '({"name": {"command": ...}})'
        )
    if not found:
        names = "; ".join(f'"{key}" ({editors})' for key, editors in LAYOUTS.items())
        raise MCPError(f"the MCP config {path} has none of the objects that hold servers: {names}")
    for key, entries in found.items():
        if isinstance(entries, _JSONObject) and entries.twice:  # the first would be dropped silently
            raise MCPError(
                f'the MCP config {path} names the server {entries.twice[0]!r} twice in "{key}" '
                "(JSON keeps only the last): give each server a name of its own"
            )
    named = [(name, entry) for entries in found.values() for name, entry in entries.items()]
    entries = dict(named)
    if len(entries) < len(named):  # one name under two of the layouts: which server is meant is unknown
        twice = next(name for name in entries if sum(other == name for other, _ in named) > 1)
        raise MCPError(f"the MCP config {path} names the server {twice!r} twice (under two layouts)")
    return entries


TRANSPORTS = {"stdio": False, "http": True, "streamable-http": True, "streamablehttp": True}  # kind: takes a URL


def _check_transport(entry: dict[str, Any], url_key: str | None, where: str) -> None:
    """An entry says one way to reach its server: a ``command`` to start or a URL, and a ``type`` (if any)
    that agrees; an entry that says both would start one of them by a guess.  A ``type`` vero does not
    know is left to the entry's ``command`` or URL, with a warning."""
    if url_key is not None and "command" in entry:
        raise MCPError(f'{where}: give "command" (a server to start) or "{url_key}" (one to reach), not both')
    kind = entry.get("type", entry.get("transportType"))  # Cline's key for it
    if kind is not None and not isinstance(kind, str):
        raise MCPError(f'{where}: "type" must be a string, such as "stdio" or "http"')
    takes_url = TRANSPORTS.get(str(kind).lower().replace("_", "-"))
    if kind is not None and takes_url is None:
        logger.warning('%s: unknown "type" %r: reached by its %s', where, kind, url_key or "command")
    elif kind is not None and takes_url != (url_key is not None):
        raise MCPError(f'{where}: "type" {kind!r} needs ' + ('"url"' if takes_url else '"command"'))


def _http_url(url: str) -> bool:
    """An http(s) URL with a host (any case of the scheme); one ``urlsplit`` cannot read is none."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:  # an unclosed [ of an IPv6 address
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def _names(setting: str, names: Any) -> frozenset[str]:
    """Tool names given as a list: a lone string would be read as its letters."""
    if isinstance(names, str) or not all(isinstance(name, str) for name in names):
        raise TypeError(f"{setting} must be a list of tool names, got {names!r}")
    return frozenset(names)


# Other clients' keys for the tools a server may not offer, and for the only ones it may
_BLOCKED_KEYS = ("disabledTools", "excludeTools")  # Roo Code's and Cline's; Gemini CLI's
_ALLOWED_KEYS = ("includeTools",)  # Gemini CLI's


def _tool_picks(entry: dict[str, Any], where: str) -> dict[str, Any]:
    """The entry's lists of tools to leave out and to keep, as ``MCPServer``'s settings."""
    blocked = [name for key in _BLOCKED_KEYS for name in _strings(entry, key, where, list)]
    given = [key for key in _ALLOWED_KEYS if entry.get(key) is not None]  # (null: not given; []: none of them)
    allowed = [name for key in given for name in _strings(entry, key, where, list)]
    return {"blocked_tools": blocked, "allowed_tools": allowed if given else None}


# The keys of a server's entry vero reads (other clients' keys it does not read are left alone)
ENTRY_KEYS = "command args env cwd url serverUrl httpUrl headers type transport transportType disabled enabled".split()
ENTRY_KEYS += ["trust"]
ENTRY_KEYS += ["timeout", "disabledTools", "excludeTools", "includeTools"]


def _warn_of_misspelt_keys(entry: dict[str, Any], where: str) -> None:
    """A warning for a key that is one vero reads, misspelt (``arg``, ``comand``): its server would start without it,
    and fail later in a way that points nowhere near the typo."""
    for key in entry:
        close = difflib.get_close_matches(key, ENTRY_KEYS, n=1, cutoff=0.8) if key not in ENTRY_KEYS else []
        if close:
            logger.warning('%s: the key "%s" is not read; did you mean "%s"?', where, key, close[0])


def _server_from_entry(name: str, entry: dict[str, Any], where: str, limits: dict[str, Any]) -> MCPServer:
    if any(str(entry.get(key)).lower() == "sse" for key in ("type", "transport", "transportType")):  # any case
        raise MCPError(f"{where}: the old SSE transport is not supported; use the server's Streamable HTTP URL")
    if "envFile" in entry:
        raise MCPError(f'{where}: "envFile" is not supported; put the variables in "env" (${{VAR}} reads one)')
    _warn_of_misspelt_keys(entry, where)
    limits = {**limits, "trust": _flag(entry, "trust", where), **_tool_picks(entry, where)}
    if "timeout" in entry:
        limits["call_timeout"] = _timeout(entry["timeout"], where)
    if isinstance(entry.get("command"), dict):  # Zed's {"command": {"path", "args", "env"}}
        entry = {**entry, **entry["command"], "command": entry["command"].get("path")}
    url_key = next((key for key in ("url", "serverUrl", "httpUrl") if key in entry), None)  # Windsurf's, Gemini's
    _check_transport(entry, url_key, where)
    if url_key is not None:
        return _http_server(name, entry, url_key, where, limits)
    if not isinstance(entry.get("command"), str) or not entry["command"]:
        raise MCPError(f'{where}: expected "command" (a string) or "url"')
    written_argv = [entry["command"], *_strings(entry, "args", where, list)]
    fields = ["command", *(f"args[{i}]" for i in range(len(written_argv) - 1))]
    command, *args = [_expanded(word, where, field) for word, field in zip(written_argv, fields)]
    env = {_env_name(k, where): _expanded(v, where, f"env {k}") for k, v in _strings(entry, "env", where, dict).items()}
    cwd = _expanded(_strings(entry, "cwd", where, str), where, "cwd") or None
    server = MCPServer.stdio(command, args, env=env, cwd=cwd, name=name, **limits)
    server.transport.shown = shlex.join(written_argv)
    written = [*written_argv, *_strings(entry, "env", where, dict).values(), _strings(entry, "cwd", where, str)]
    assert isinstance(server.transport, _StdioTransport)  # what a variable holds may be a secret too
    named = [name for text in written for name in _variables_in(text) if _SECRET_NAME.search(name)]  # not ${HOME}
    server.transport.secrets += [os.environ[name] for name in named if name in os.environ]
    return server


SECONDS_AT_MOST = 3600  # Cline and Roo Code take a timeout of 1 s to an hour; Gemini CLI writes milliseconds


def _timeout(timeout: Any, where: str) -> float:
    """A server's ``"timeout"`` in seconds: as Cline and Roo Code write it, or, past an hour, in milliseconds
    (Gemini CLI's ``600000``), said in a warning."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < math.inf:
        raise MCPError(f'{where}: "timeout" must be seconds above 0, got {timeout!r}')
    if 1000 <= timeout <= SECONDS_AT_MOST:
        logger.warning(
            '%s: "timeout" %s is read as seconds (as Cline writes it; Gemini CLI writes milliseconds)', where, timeout
        )
    if timeout <= SECONDS_AT_MOST:
        return timeout
    logger.warning(
        '%s: "timeout" %s is read as milliseconds (%s s), as Gemini CLI writes it', where, timeout, timeout / 1000
    )
    return timeout / 1000


def _http_server(name: str, entry: dict[str, Any], url_key: str, where: str, limits: dict[str, Any]) -> MCPServer:
    """The entry's server at a URL, with its headers: each checked here, as none of their values may be shown."""
    written = _strings(entry, url_key, where, str)
    headers = {}
    for header, value in _strings(entry, "headers", where, dict).items():
        headers[header] = _expanded(value, where, "headers")
        problem = _header_problem(header, headers[header])
        if problem:  # named, never shown: the value is a secret, and one read from a file often ends in a newline
            read = ", ".join(_variables_in(value))
            hint = f" (check what {read} holds: a value copied from a file often ends in a line break)" if read else ""
            raise MCPError(f"{where}: the header {header!r} {problem}{hint}")
    url = _expanded(written, where, "url")
    if not _http_url(url) or _has_control(url):  # shown as written: a variable's value may be a key
        raise MCPError(f"{where}: {url_key} {written!r} is not an http(s) URL")
    server = MCPServer.http(url, headers=headers, name=name, **limits)
    server.transport.shown = written  # a variable's value may be a secret: errors show the ${VAR}
    return server


_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # a token, as HTTP defines a field name


def _header_problem(name: str, value: str) -> str | None:
    """Why the header ``name: value`` cannot be sent (said without the value, a secret); None if it can."""
    if not _HEADER_NAME.fullmatch(name):
        return "is no header name (letters, digits and -, no spaces or colons)"
    if _has_control(value.replace("\t", "")):
        return "has a value with a control character (a line break, a carriage return, a NUL...), which cannot be sent"
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        return "has a value with a character a header cannot carry (outside Latin-1)"
    return None


def _has_control(text: str) -> bool:
    """True if ``text`` holds a control character (C0, DEL or C1): ``\\r``, ``\\n``, NUL, ESC..."""
    return any(unicodedata.category(char) == "Cc" for char in text)


def _variables_in(text: str) -> list[str]:
    """The names of the variables ``text`` reads (``${env:TOKEN}``: ``TOKEN``)."""
    braced = [parsed.group(1) for parsed in map(_VARIABLE_NAME.fullmatch, _VARIABLE.findall(text)) if parsed]
    return braced + [name for name in _BARE_VARIABLE.findall(text) if name in os.environ]


def _env_name(name: str, where: str) -> str:
    """``name`` as the name of a server's environment variable; one that an environment cannot hold is an error."""
    if not name or "=" in name or "\0" in name:
        raise MCPError(f'{where}: env has the variable name {name!r}; a name cannot be empty or hold "=" or a NUL')
    return name


def _flag(entry: Mapping[str, Any], key: str, where: str) -> bool:
    value = entry.get(key, False)
    if not isinstance(value, bool):
        raise MCPError(f'{where}: "{key}" must be true or false')
    return value


def _strings(entry: Mapping[str, Any], key: str, where: str, kind: type) -> Any:
    """``entry[key]``: a string, a list of strings or an object of strings (empty when missing)."""
    value = entry.get(key)
    if value is None:
        return kind()
    values = value if kind is list else value.values() if isinstance(value, dict) else [value]
    if not isinstance(value, kind) or not all(isinstance(v, str) for v in values):
        kinds: dict[type, str] = {str: "a string", list: "a list of strings", dict: "an object of strings"}
        what = kinds[kind]
        raise MCPError(f'{where}: "{key}" must be {what}')
    return value


_SECRET_NAME = re.compile(  # GITHUB_TOKEN, API_KEY, MY_PAT... (not KEYBOARD_LAYOUT nor AUTHOR_NAME)
    r"(?:^|_)(?:TOKEN|KEY|SECRET|PASSW\w*|AUTH|CREDENTIALS?|PAT)(?:_|$)|(?:TOKEN|KEY|SECRET)$", re.IGNORECASE
)
_VARIABLE = re.compile(r"\$\{([^{}]*)\}")
_VARIABLE_NAME = re.compile(r"(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?", re.S)
_BARE_VARIABLE = re.compile(r"(?<![\w$])\$([A-Za-z_][A-Za-z0-9_]*)")  # $NAME, not ${NAME} nor $$
# each variable read once, left to right: a value holding "$HOME" (a password) is not read again
_ANY_VARIABLE = re.compile(f"{_VARIABLE.pattern}|{_BARE_VARIABLE.pattern}")


# What VS Code (and Cursor, which copies it) fills in itself in its config files: vero has no editor to ask.
_EDITOR_VARIABLES = frozenset(
    "workspaceFolder workspaceFolderBasename workspaceRoot userHome cwd file fileWorkspaceFolder relativeFile "
    "relativeFileDirname fileBasename fileBasenameNoExtension fileExtname fileDirname fileDirnameBasename "
    "lineNumber columnNumber selectedText execPath defaultBuildTask pathSeparator / config command".split()
)


def _expanded(text: str, where: str, field: str) -> str:
    """``text`` with ``${VAR}``, ``${env:VAR}`` (as VS Code writes it) and ``${VAR:-default}`` read from the
    environment; a variable that is not set, another kind of ``${...}``, or a result that no command line,
    environment or request can carry (a NUL, a lone surrogate) is an ``MCPError`` naming it, never its value."""

    def value(match: re.Match[str]) -> str:
        if match[1] is None:  # $NAME, as Gemini CLI reads it: as written when the environment has none (a shell's $1)
            return os.environ.get(match[2], match[0])
        inside = match.group(1)
        parsed = _VARIABLE_NAME.fullmatch(inside)
        if parsed is None or (parsed.group(1) not in os.environ and parsed.group(2) is None):
            raise _variable_error(inside, parsed, f"{where}: {field}")
        name, default = parsed.groups()
        return os.environ[name] if default is None else os.environ.get(name) or default  # :- as a shell reads it

    expanded = _ANY_VARIABLE.sub(value, text)
    if "\0" in expanded:
        raise MCPError(f"{where}: {field} holds a NUL character, which no command line, environment or request carries")
    try:
        expanded.encode("utf-8", "surrogateescape")  # what os.fsencode does, on POSIX
    except UnicodeEncodeError:
        raise MCPError(f"{where}: {field} holds text that is not valid Unicode (a lone surrogate, \\ud800)") from None
    return expanded


def _variable_error(inside: str, parsed: re.Match[str] | None, where: str) -> MCPError:
    """Why ``${inside}`` cannot be read: an editor's variable, an input prompt, or an environment variable not set."""
    kind = inside.partition(":")[0]
    if kind in _EDITOR_VARIABLES and not inside.startswith("env:"):
        return MCPError(
            f"{where} has ${{{inside}}}, a variable an editor (VS Code, Cursor) fills in, which vero does not: "
            f"write what it stands for instead, an absolute path such as {os.getcwd()} (the folder vero runs in)"
        )
    if parsed is None:
        return MCPError(
            f"{where} has ${{{inside}}}; vero reads only environment variables: "
            "${NAME}, ${env:NAME} or ${NAME:-default}" + (" (put the value in one)" if kind == "input" else "")
        )
    return MCPError(f"{where} uses the environment variable {parsed.group(1)}, which is not set")


def server_from_command(text: str, **limits: Any) -> MCPServer:
    """``--mcp "npx -y @modelcontextprotocol/server-filesystem /dir"`` (or an http(s) URL) -> a server."""
    if re.match(r"https?://", text.strip(), re.IGNORECASE):  # HTTPS://... too
        return MCPServer.http(text.strip(), **limits)
    try:
        argv = shlex.split(text, posix=os.name != "nt")
    except ValueError as exc:
        raise MCPError(f"cannot read --mcp {text!r}: {exc}") from None
    if not argv:
        raise MCPError('--mcp needs a command, e.g. --mcp "npx -y @modelcontextprotocol/server-filesystem ."')
    return MCPServer.stdio(argv[0], argv[1:], **limits)


def servers_from_cli(args: Any, tools: list[Tool], stack: contextlib.ExitStack) -> list[Tool] | ToolRegistry:
    """``vero chat`` / ``vero run``: start the ``--mcp`` and ``--mcp-config`` servers (``stack`` stops them
    when the command ends) and return ``tools`` with theirs added.  Without those options, ``tools`` as it is.
    A server or option that does not work raises ``MCPError``, which the command reports as a usage error."""
    commands, config = getattr(args, "mcp", None) or [], getattr(args, "mcp_config", None)
    trusted = getattr(args, "mcp_trust", None) or []
    if not commands and not config and not trusted:
        return tools
    servers = [server_from_command(text) for text in commands]
    servers += servers_from_config(config) if config else []
    _trust(servers, trusted)
    registry = ToolRegistry(tools)
    for server in servers:
        stack.enter_context(server)
        clashes = [t.name for t in server.tools() if t.name in registry]
        if clashes:
            logger.warning("[%s] tools named like ones already given are left out: %s", server.name, ", ".join(clashes))
        server.sync(registry)
    return registry


def _trust(servers: Sequence[MCPServer], names: Sequence[str]) -> None:
    """``--mcp-trust NAME``: take that server's read-only marks; a name no server has is an error."""
    known = [server.name for server in servers]
    for name in names:
        if name not in known:
            raise MCPError(
                f"--mcp-trust {name}: no MCP server has that name; the servers are: {', '.join(known) or 'none'}"
            )
    for server in servers:
        server.trust = server.trust or server.name in names


__all__ = [
    "MCPError",
    "MCPServer",
    "MCPTool",
    "result_text",
    "server_from_command",
    "servers_from_cli",
    "servers_from_config",
]
