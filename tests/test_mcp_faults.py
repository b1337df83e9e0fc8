"""Fault-matrix rows for MCP servers that misbehave, on purpose: a server that marks a changing tool
read-only, one that never finishes an HTTP answer, one that nests its JSON 5,000 deep, floods its
stderr, leaves processes behind, redirects vero's credentials elsewhere, or sends megabytes of tool
schemas.

The pattern is the one of tests/test_faults.py: ``FAULTS`` holds ``FaultRow`` rows, each
``check(kind)`` returns a short description of what happened or raises ``AssertionError``, and
``test_fault`` runs them.  Every row is ``direct`` (it drives the MCP client itself) and uses real
servers: ``mcp_servers/raw_server.py`` over stdio, ``mcp_servers/http_faults.py`` over HTTP on
127.0.0.1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

from mcp_servers import http_faults
from test_cli import vero
from test_faults import FaultRow, fault_test, row_registry
from test_mcp import RAW, pid_gone

from vero.core.result import ToolError
from vero.tools import ToolRegistry
from vero.tools.mcp import MAX_DESCRIPTION_CHARS, MCPError, MCPServer, servers_from_cli, servers_from_config

FAULTS: list[FaultRow] = []
fault = row_registry(FAULTS)
DIRECT = ("direct",)


def raw(mode: str, *extra: str, **limits) -> MCPServer:
    return MCPServer.stdio(sys.executable, [RAW, mode, *extra], name=f"raw-{mode}", **limits)


def timed(action, limit: float):
    """``action()`` on a thread: (its result or the exception it raised, seconds taken); an
    ``AssertionError`` if it is still running after ``limit`` seconds (it is left on its daemon thread)."""
    done: list = []

    def run():
        try:
            done.append(action())
        except Exception as exc:  # noqa: BLE001 - the exception is the outcome being checked
            done.append(exc)

    started = time.monotonic()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(limit)
    assert done, f"still running after {limit} s"
    return done[0], time.monotonic() - started


@contextlib.contextmanager
def logged(name: str = "vero.mcp"):
    """The records logged to ``name`` while the block runs."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append
    log = logging.getLogger(name)
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


@contextlib.contextmanager
def http_server():
    """``mcp_servers/http_faults.py`` on 127.0.0.1, and its base URL."""
    httpd, url = http_faults.serve()
    try:
        yield url
    finally:
        httpd.shutdown()
        httpd.server_close()


# =========================================================================== trust (issue 44, item 5)


@fault(
    "mcp/untrusted-read-only-hint",
    DIRECT,
    "a server's readOnlyHint is taken only for a server the user trusts (trust=True, "
    '"trust": true in --mcp-config, --mcp-trust NAME); otherwise every tool may change things '
    "(read_only false), whatever its annotations say; an unknown --mcp-trust name is a usage error",
)
def untrusted_read_only_hint(kind):
    with raw("plain") as server:  # its "echo" says readOnlyHint: true
        assert not any(t.read_only for t in server.tools())
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "mcp.json"
        entry = {"command": sys.executable, "args": [RAW, "plain"]}
        config.write_text(json.dumps({"mcpServers": {"lying": entry, "known": {**entry, "trust": True}}}))
        assert [(s.name, s.trust) for s in servers_from_config(str(config))] == [("lying", False), ("known", True)]
        with contextlib.ExitStack() as stack:
            args = argparse.Namespace(mcp=[f"{sys.executable} {RAW} plain"], mcp_config=None, mcp_trust=["raw_server"])
            assert [t.name for t in servers_from_cli(args, [], stack) if t.read_only] == ["echo"]
        args = argparse.Namespace(mcp=[], mcp_config=str(config), mcp_trust=["nobody"])
        try:
            servers_from_cli(args, [], contextlib.ExitStack())
        except MCPError as exc:  # the command reports it as a usage error (exit 2)
            assert "--mcp-trust nobody: no MCP server has that name; the servers are: lying, known" in str(exc)
        else:
            raise AssertionError("an unknown --mcp-trust name was accepted")
    return "untrusted: no read-only tool; trusted by config, flag or keyword: the hint is taken"


# =========================================================================== HTTP time limits (item 6)


def late_handshake(path: str) -> str:
    with http_server() as url:
        outcome, took = timed(lambda: MCPServer.http(url + path, handshake_timeout=1).start(), limit=4)
    assert isinstance(outcome, MCPError), outcome
    assert "did not answer initialize within 1 s" in str(outcome), outcome
    assert took < 2.5, f"took {took:.1f} s"
    return f"MCPError after {took:.1f} s: {outcome}"


@fault(
    "mcp/http-sse-comments-forever",
    DIRECT,
    "a server that answers initialize with an event stream of SSE comments, one every 0.2 s: with "
    "handshake_timeout=1 the start fails within 2.5 s, MCPError `did not answer initialize within 1 s`",
)
def http_sse_comments_forever(kind):
    return late_handshake("/comments")


@fault(
    "mcp/http-dripped-headers",
    DIRECT,
    "a server that sends its status line, then one byte of a header every 0.2 s: with handshake_timeout=1 "
    "the start fails within 2.5 s, MCPError `did not answer initialize within 1 s`",
)
def http_dripped_headers(kind):
    return late_handshake("/drip")


@fault(
    "mcp/http-endless-event-stream",
    DIRECT,
    "a tool call answered by an endless stream of log notifications (one every 0.1 s), never the answer: "
    "the call fails after its timeout (1 s), within 2.5 s, with `did not answer tools/call within 1 s`; "
    "through an agent's registry it is a `timeout` observation; the next call works",
)
def http_endless_event_stream(kind):
    with http_server() as url, MCPServer.http(url + "/events", call_timeout=0.5) as server:
        outcome, took = timed(lambda: server.call("ping_me", timeout=1), limit=4)
        assert isinstance(outcome, MCPError) and "did not answer tools/call within 1 s" in str(outcome), outcome
        assert took < 2.5, f"took {took:.1f} s"
        registry = ToolRegistry(server.tools())
        observation, took_too = timed(lambda: registry.run("ping_me", {}), limit=4)
        assert not observation.ok and observation.error == ToolError.TIMEOUT, observation
    with http_server() as url, MCPServer.http(url + "/mcp") as server:
        assert server.call("ping_me") == "pong"
    return f"MCPError after {took:.1f} s; a timeout observation after {took_too:.1f} s"


@fault(
    "mcp/stdio-server-stops-reading",
    DIRECT,
    "a stdio server stops reading its stdin, and a call's arguments (1 MB) fill the pipe: the call fails at "
    "its timeout (1 s), within 2.5 s, `did not read its input for 1 s`, and so does every later call, at once",
)
def stdio_server_stops_reading(kind):
    with raw("deaf", shutdown_grace=0.3) as server:
        outcome, took = timed(lambda: server.call("echo", {"text": "x" * 1_000_000}, timeout=1), limit=4)
        assert isinstance(outcome, MCPError) and "did not read its input for 1 s" in str(outcome), outcome
        assert took < 2.5, f"took {took:.1f} s"
        later, took_later = timed(lambda: server.call("echo", {"text": "y"}, timeout=1), limit=4)
        assert isinstance(later, MCPError) and "did not read its input" in str(later) and took_later < 0.5
    return f"MCPError after {took:.1f} s; the next call at once"


# =========================================================================== deep JSON (item 7)


@fault(
    "mcp/deeply-nested-message-stdio",
    DIRECT,
    "a stdio server answers a call with JSON nested 5,000 levels deep (10 KB): the call is at once an "
    "observation `sent a message nested more than 100 levels deep; it was dropped`, logged as an error; "
    "the reader goes on; a notification nested as deep is dropped and logged, and the call it came with works",
)
def deeply_nested_message_stdio(kind):
    with logged() as records, raw("deep", call_timeout=20) as server:
        registry = ToolRegistry(server.tools())
        observation, took = timed(lambda: registry.run("echo", {"text": "a"}), limit=10)
        assert not observation.ok and observation.error == ToolError.EXCEPTION, observation
        assert "sent a message nested more than 100 levels deep; it was dropped" in observation.output
        assert took < 5, f"took {took:.1f} s: it waited for its time limit"
        assert registry.run("echo", {"text": "b"}).output == '{"text": "b"}'  # after a deep notification
        assert registry.run("echo", {"text": "c"}).output == '{"text": "c"}'
    errors = [r.getMessage() for r in records if r.levelno == logging.ERROR]
    assert any("sent a message nested more than 100 levels deep; it was dropped" in e for e in errors), errors
    assert any("(notifications/message); it was dropped" in e for e in errors), errors
    return f"observation after {took:.2f} s; the next call ok"


@fault(
    "mcp/deeply-nested-message-http",
    DIRECT,
    "an HTTP server answers initialize with JSON nested 5,000 levels deep: `vero run --mcp URL` exits 2 with "
    "one line `vero: the MCP server … did not start: … nested more than 100 levels deep`, no traceback; "
    "in Python, MCPError",
)
def deeply_nested_message_http(kind):
    with http_server() as url, tempfile.TemporaryDirectory() as folder:
        try:
            MCPServer.http(url + "/deep", handshake_timeout=5).start()
        except MCPError as exc:
            assert "sent a message nested more than 100 levels deep" in str(exc)
        else:
            raise AssertionError("a server nesting 5,000 deep started")
        done = vero("run", "hi", "--tools", "none", "--mcp", url + "/deep", "--base-url", url + "/v1", cwd=folder)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("vero: the MCP server '127.0.0.1'"), done.stderr
    assert "did not start: " in lines[0] and "nested more than 100 levels deep" in lines[0]
    return f"exit 2: {lines[0][:90]}…"


# =========================================================================== stderr (item 8)


@fault(
    "mcp/stderr-without-newline",
    DIRECT,
    "a server writes 32 MB to stderr with no newline before it answers: vero's memory grows by less than "
    "4 MB; the line is logged and kept clipped to 2,000 characters with its size; the next line, "
    "and the server's tools, are as usual",
)
def stderr_without_newline(kind):
    tracemalloc.start()
    try:
        with raw("stderr-flood", "32") as server:
            peak = tracemalloc.get_traced_memory()[1]
            assert ToolRegistry(server.tools()).run("echo", {"text": "hi"}).output == '{"text": "hi"}'
            deadline = time.monotonic() + 5
            while "the last words" not in server.transport.stderr_tail and time.monotonic() < deadline:
                time.sleep(0.02)
            tail = list(server.transport.stderr_tail)
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, f"peak {peak:,} bytes"
    assert tail[-1] == "the last words", tail[-1:]
    assert tail[-2].startswith("x" * 2000 + " … (") and tail[-2].endswith(" bytes)") and len(tail[-2]) < 2100
    return f"peak {peak / 1024:.0f} KB traced; the long line kept as {tail[-2][-30:]!r}"


# =========================================================================== close (item 9)


@fault(
    "mcp/close-leaves-nothing-running",
    DIRECT,
    "a server that started three processes ignoring SIGTERM: one in its group, one in its own session "
    "(setsid), one daemon (double fork, its parent gone): close() ends all three (SIGTERM, then SIGKILL after "
    "shutdown_grace), reaps the server, and its reader threads end",
)
def close_leaves_nothing_running(kind):
    server = raw("family", shutdown_grace=0.3)
    children: list[int] = []
    try:
        server.start()
        children = json.loads(server.call("echo", {"text": "pids"}))
        transport, process = server.transport, server.transport.process
        assert os.getsid(children[1]) == children[1] != os.getsid(process.pid)  # it left the server's session
        assert os.getsid(children[2]) not in (os.getsid(process.pid), children[2])  # a daemon, its parent gone
        started = time.monotonic()
        server.close()
        took = time.monotonic() - started
        assert process.poll() is not None
        assert all(pid_gone(pid, within=2) for pid in children), f"left running: {children}"
        assert not any(reader.is_alive() for reader in transport._readers)
    finally:
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        server.close()
    return f"server and its three processes ended in {took:.1f} s; readers ended"


# =========================================================================== redirects (item 11)


@fault(
    "mcp/redirect-to-other-origin",
    DIRECT,
    "an HTTP server redirects (302 or 307) to another origin: the request there carries no Authorization, "
    "X-Api-Key (a header the user gave), cookie or session id; a 307 POST is sent again with its body and "
    "works; a redirect to the same origin keeps the headers",
)
def redirect_to_other_origin(kind):
    secrets = {"Authorization": "Bearer tok-1", "X-Api-Key": "key-2", "Cookie": "sid=3"}
    with http_server() as here, http_server() as there:
        http_faults.SEEN.clear()
        with MCPServer.http(f"{here}/away?code=307&to={there}/mcp", headers=secrets, handshake_timeout=5) as server:
            assert server.call("ping_me") == "pong"
        try:
            MCPServer.http(f"{here}/away?code=302&to={there}/mcp", headers=secrets, handshake_timeout=5).start()
        except MCPError as exc:
            assert "HTTP 405" in str(exc)  # a 302 makes the POST a GET, which this server refuses
        with MCPServer.http(f"{here}/here?code=307", headers=secrets, handshake_timeout=5) as server:
            assert server.call("ping_me") == "pong"
        seen = list(http_faults.SEEN)
    elsewhere = [h for _m, _p, _r, h in seen if h["host"] == there.removeprefix("http://")]
    at_home = [h for _m, path, _r, h in seen if h["host"] == here.removeprefix("http://") and path == "/mcp"]
    assert len(elsewhere) >= 4 and any(m == "GET" for m, _p, _r, h in seen if h in elsewhere)
    leaked = [
        name for h in elsewhere for name in ("authorization", "x-api-key", "cookie", "mcp-session-id") if name in h
    ]
    assert leaked == [], leaked
    assert at_home and all(h["authorization"] == "Bearer tok-1" and h["x-api-key"] == "key-2" for h in at_home)
    return f"{len(elsewhere)} requests to the other origin, none with credentials; same origin: kept"


# =========================================================================== size caps (item 19)


@fault(
    "mcp/oversized-tool-specs",
    DIRECT,
    "a server offers a tool with a 15,000-character description (clipped to 4,000 with a note), one with a "
    "100 KB input schema (left out, a warning names it) and ten of 40 KB (those past 256 KiB in all are left "
    "out, a warning names them); the rest work",
)
def oversized_tool_specs(kind):
    with logged() as records, raw("bloated") as server:
        tools = {t.name: t for t in server.tools()}
        assert ToolRegistry(server.tools()).run("echo", {"text": "ok"}).output == '{"text": "ok"}'
    warnings = [r.getMessage() for r in records if r.levelno == logging.WARNING]
    wordy = tools["wordy"].description
    assert wordy.startswith("word word") and wordy.endswith("[clipped by vero: 11,000 more characters]")
    assert len(wordy) < MAX_DESCRIPTION_CHARS + 60
    assert "big_schema" not in tools and any("'big_schema' is left out" in w for w in warnings), warnings
    bulk_kept = [n for n in tools if n.startswith("bulk")]
    bulk_left = [f"bulk{i}" for i in range(10) if f"bulk{i}" not in tools]
    assert bulk_kept and bulk_left, tools.keys()
    assert any(w.endswith(", ".join(bulk_left)) and "max_tools_bytes" in w for w in warnings), warnings
    size = sum(len(json.dumps(t.schema)) for t in tools.values())
    assert size < 256 * 1024 + 10_000, size
    return f"kept {len(tools)} tools ({size:,} bytes of schemas); left out big_schema and {', '.join(bulk_left)}"


test_fault = fault_test(FAULTS)
