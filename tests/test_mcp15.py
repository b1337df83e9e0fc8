"""MCP client fixes of the fifteenth probe: messages over the cap, no time limit, a slow tool list after
``list_changed``, a server that died or closed its output while its stdout stays open, a server used in a
second ``with`` block, names of ``--mcp`` servers and of tools in other scripts, servers without tools,
``HTTP://`` in capitals, and arguments that cannot be sent.

The servers are real processes: ``mcp_servers/raw_server.py`` where one of its modes fits, else a small
server written here (``script_server``), each a few lines over a shared head.
"""

from __future__ import annotations

import http.server
import json
import logging
import math
import sys
import textwrap
import threading
import time

import pytest
from test_mcp import RAW, raw_server
from test_mcp_faults import http_server, logged, timed

from vero.core.result import ToolError
from vero.tools import ToolRegistry
from vero.tools.mcp import (
    MCPError,
    MCPServer,
    _HTTPTransport,
    _StdioTransport,
    server_from_command,
    servers_from_config,
)

HEAD = r"""
import json, os, sys, time
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
CAPABILITIES = {"tools": {"listChanged": True}}
TOOLS = [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]
def answer(msg, text):
    send({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": text}]}})
def handshake(msg):
    '''Answer initialize or tools/list; True if it was one of them.'''
    if msg.get("method") == "initialize":
        info = {"name": "t", "version": "0"}
        result = {"protocolVersion": "2025-06-18", "capabilities": CAPABILITIES, "serverInfo": info}
        send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    elif msg.get("method") == "tools/list":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": TOOLS}})
    return msg.get("method") in ("initialize", "tools/list")
"""


def script_server(tmp_path, body: str, name: str = "script", **limits) -> MCPServer:
    """A stdio server: ``HEAD`` and then ``body`` (which reads stdin), named ``name``."""
    path = tmp_path / f"{name}.py"
    path.write_text(HEAD + textwrap.dedent(body))
    return MCPServer.stdio(sys.executable, [str(path)], name=name, **limits)


# =========================================================================== 1. messages over max_message_bytes


def test_a_notification_over_the_message_cap_is_dropped_and_the_call_goes_on(tmp_path):
    body = """
    for line in sys.stdin:
        msg = json.loads(line)
        if not handshake(msg) and msg.get("method") == "tools/call":
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x" * 2000}})
            time.sleep(0.2)
            answer(msg, "the answer")
    """
    with logged() as records, script_server(tmp_path, body, max_message_bytes=1000) as server:
        assert server.call("echo", {"text": "hi"}) == "the answer"
        assert server.call("echo", {"text": "again"}) == "the answer"
    errors = [r.getMessage() for r in records if r.levelno == logging.ERROR]
    assert any("more than 1,000 bytes (max_message_bytes) (notifications/message); it was dropped" in e for e in errors)


def test_an_answer_over_the_message_cap_fails_only_its_own_call(tmp_path):
    body = """
    import threading
    def later(msg):
        big = msg["params"]["arguments"].get("text") == "big"
        time.sleep(0 if big else 0.5)
        answer(msg, "y" * 5000 if big else "small answer")
    for line in sys.stdin:
        msg = json.loads(line)
        if not handshake(msg) and msg.get("method") == "tools/call":
            threading.Thread(target=later, args=(msg,)).start()
    """
    outcomes: dict = {}
    with script_server(tmp_path, body, max_message_bytes=1000) as server:
        registry = ToolRegistry(server.tools())

        def run(text):
            outcomes[text] = registry.run("echo", {"text": text})

        threads = [threading.Thread(target=run, args=(text,)) for text in ("small", "big")]
        for thread in threads:
            thread.start()
            time.sleep(0.1)
        for thread in threads:
            thread.join(10)
    assert outcomes["small"].ok and outcomes["small"].output == "small answer"
    big = outcomes["big"]
    assert not big.ok and "more than 1,000 bytes (max_message_bytes); it was dropped" in big.output


class _BigNewsHandler(http.server.BaseHTTPRequestHandler):
    """An HTTP server whose answer to a call is an event stream: a log notification over the cap, then the answer."""

    def do_POST(self):  # noqa: N802 - the name http.server calls
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if "id" not in message:
            self.send_response(202)
            self.end_headers()
            return
        if message["method"] == "tools/call":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x" * 2000}}
            done = {"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": "pong"}]}}
            self.wfile.write(f"data: {json.dumps(note)}\n\ndata: {json.dumps(done)}\n\n".encode())
            return
        results = {
            "initialize": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "b"}},
            "tools/list": {"tools": [{"name": "ping_me", "inputSchema": {"type": "object"}}]},
        }
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": results[message["method"]]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802
        self.send_response(405)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_a_notification_over_the_message_cap_on_an_http_event_stream_is_dropped():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _BigNewsHandler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        with MCPServer.http(f"http://127.0.0.1:{httpd.server_address[1]}/mcp", max_message_bytes=1000) as server:
            assert server.call("ping_me", {}) == "pong"
    finally:
        httpd.shutdown()
        httpd.server_close()


# =========================================================================== 2. no time limit

SLOW = """
for line in sys.stdin:
    msg = json.loads(line)
    if not handshake(msg) and msg.get("method") == "tools/call":
        time.sleep(1.5)
        answer(msg, "done")
"""


def test_math_inf_or_none_is_no_time_limit_for_the_server_and_for_one_tool(tmp_path):
    with script_server(tmp_path, SLOW, call_timeout=math.inf, handshake_timeout=math.inf) as server:
        assert ToolRegistry(server.tools()).run("echo", {"text": "x"}).output == "done"
    with script_server(tmp_path, SLOW, call_timeout=None) as server:
        assert server.call_timeout == math.inf and server.tools()[0].timeout == math.inf
        assert server.call("echo", {"text": "x"}) == "done"
    with script_server(tmp_path, SLOW, call_timeout=0.5) as server:
        [tool] = server.tools()
        tool.timeout = math.inf  # the tool's own "no limit" wins over the server's call_timeout
        assert ToolRegistry([tool]).run("echo", {"text": "x"}).output == "done"


@pytest.mark.parametrize("bad", [0, -1, float("nan"), "5", True])
def test_a_time_limit_that_is_no_number_of_seconds_is_refused_when_the_server_is_made(bad):
    with pytest.raises(ValueError, match=r"call_timeout must be seconds above 0 \(math.inf or None: no limit\)"):
        MCPServer.stdio(sys.executable, [RAW, "plain"], call_timeout=bad)
    with pytest.raises(ValueError, match="handshake_timeout must be seconds above 0"):
        MCPServer.http("http://127.0.0.1:9/mcp", handshake_timeout=bad)


# =========================================================================== 3. the tool list after list_changed


def test_a_changed_tool_list_slow_to_come_never_turns_an_answered_call_into_a_timeout(tmp_path):
    body = """
    lists = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("method") == "tools/list":
            lists += 1
            if lists > 1:
                continue  # the list is never given again
        if not handshake(msg) and msg.get("method") == "tools/call":
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            answer(msg, "answered at once")
    """
    with script_server(tmp_path, body, call_timeout=3, handshake_timeout=30) as server:
        registry = ToolRegistry(server.tools())
        first, took_first = timed(lambda: registry.run("echo", {"text": "a"}), limit=10)
        second, took_second = timed(lambda: registry.run("echo", {"text": "b"}), limit=10)
    assert first.ok and first.output == "answered at once" and took_first < 2.5, (first, took_first)
    assert second.ok and second.output == "answered at once" and took_second < 1.0, (second, took_second)


# =========================================================================== 4. gone, while its stdout stays open


def test_a_server_that_exits_while_a_helper_holds_its_stdout_is_reported_at_once(tmp_path):
    body = """
    import subprocess
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # inherits the server's stdout
    for line in sys.stdin:
        msg = json.loads(line)
        if not handshake(msg) and msg.get("method") == "tools/call":
            os._exit(1)
    """
    with script_server(tmp_path, body, name="helped", call_timeout=20) as server:
        outcome, took = timed(lambda: ToolRegistry(server.tools()).run("echo", {"text": "x"}), limit=30)
        later = ToolRegistry(server.tools()).run("echo", {"text": "y"})
    assert not outcome.ok and "the MCP server 'helped' exited (exit code 1)" in outcome.output, outcome
    assert took < 6, f"took {took:.1f} s: it waited for its time limit"
    assert not later.ok and "exited (exit code 1)" in later.output


def test_a_server_that_closes_its_stdout_and_runs_on_is_reported_at_once(tmp_path):
    body = """
    for line in sys.stdin:
        msg = json.loads(line)
        if not handshake(msg) and msg.get("method") == "tools/call":
            os.close(1)
            time.sleep(60)
    """
    with script_server(tmp_path, body, name="mute", call_timeout=20) as server:
        outcome, took = timed(lambda: ToolRegistry(server.tools()).run("echo", {"text": "x"}), limit=30)
    assert not outcome.ok and "the MCP server 'mute' closed its output" in outcome.output, outcome
    assert took < 6, f"took {took:.1f} s: it waited for its time limit"


# =========================================================================== 5. a second with block


def test_a_server_closed_at_the_end_of_a_with_block_starts_again_in_the_next():
    server = raw_server("plain")
    with server:
        assert server.call("echo", {"text": "a"}) == '{"text": "a"}'
        first = server.transport.process.pid
    with server:
        assert server.transport.process.pid != first
        assert ToolRegistry(server.tools()).run("echo", {"text": "b"}).output == '{"text": "b"}'
    with pytest.raises(MCPError, match="was closed"):
        server.call("echo", {"text": "c"})


# =========================================================================== 6. names of --mcp servers


@pytest.mark.parametrize(
    "command, name",
    [
        ("docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN ghcr.io/github/github-mcp-server", "github-mcp-server"),
        ("docker run -i --rm -v /data:/data --env=A=1 mcp/fetch:latest", "fetch"),
        ("uv run --directory /home/me/weather-server weather.py", "weather"),
        ("uv --directory /srv run server.py", "server"),
        ("uvx --from git+https://github.com/org/mcp-tools mcp-tools-server", "mcp-tools-server"),
        ("npx -y --registry https://npm.example.com @acme/mcp-server-tickets", "mcp-server-tickets"),
        ("python -X utf8 notes_server.py", "notes_server"),
        ("python3.12 -m mcp_server_git --repository .", "mcp_server_git"),
        ("node --env-file .env build/index.js", "index"),
        ("deno run -A --config deno.json main.ts", "main"),
        ("bunx --package @x/tools-mcp tools-mcp", "tools-mcp"),
    ],
)
def test_launcher_options_and_their_values_do_not_name_a_server(command, name):
    assert server_from_command(command).name == name


# =========================================================================== 7. a server without tools

NO_TOOLS = """
for line in sys.stdin:
    msg = json.loads(line)
    with open(sys.argv[0] + ".asked", "a") as seen:
        seen.write(msg.get("method", "?") + "\\n")
    if msg.get("method") == "initialize":
        handshake(msg)
    elif "id" in msg:
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}})
"""


@pytest.mark.parametrize("capabilities", [{"resources": {}}, {}], ids=["resources-only", "none-said"])
def test_a_server_without_tools_starts_with_none_and_a_warning_naming_it(tmp_path, capabilities):
    body = f"CAPABILITIES = {capabilities!r}\n" + NO_TOOLS
    with logged() as records, script_server(tmp_path, body, name="docs-resources") as server:
        assert server.tools() == []
    warnings = [r.getMessage() for r in records if r.levelno == logging.WARNING]
    assert any("the MCP server 'docs-resources' offers no tools" in w for w in warnings), warnings
    asked = (tmp_path / "docs-resources.py.asked").read_text().split()
    assert ("tools/list" in asked) == (not capabilities), asked  # one that says what it offers is not asked


def test_a_server_that_says_it_has_tools_and_cannot_list_them_is_an_error_naming_it(tmp_path):
    with pytest.raises(MCPError, match=r"^the MCP server 'lister' did not list its tools: Method not found"):
        script_server(tmp_path, NO_TOOLS, name="lister").start()


# =========================================================================== 8. tool names in other scripts


def test_tool_names_in_other_scripts_become_unique_ascii_names_and_the_server_gets_its_own(tmp_path):
    body = """
    TOOLS = [{"name": n, "inputSchema": {"type": "object"}} for n in ("查询天气", "获取时间", "搜索文档", "café")]
    for line in sys.stdin:
        msg = json.loads(line)
        if not handshake(msg) and msg.get("method") == "tools/call":
            answer(msg, "called " + msg["params"]["name"])
    """
    with logged() as records, script_server(tmp_path, body) as server:
        tools = server.tools()
        names = [t.name for t in tools]
        outputs = [ToolRegistry(tools).run(name, {}).output for name in names]
    assert len(set(names)) == 4 and all(n.isascii() and len(n) <= 64 for n in names), names
    assert names[3].startswith("cafe_") and names[0].startswith("tool_"), names
    assert outputs == ["called 查询天气", "called 获取时间", "called 搜索文档", "called café"]
    warnings = [r.getMessage() for r in records if r.levelno == logging.WARNING]
    assert f"[script] the tool '查询天气' is called {names[0]!r} for the model" in warnings[0], warnings


# =========================================================================== 9. HTTP:// in capitals


def test_an_http_url_in_capitals_is_taken_in_the_config_and_on_the_command_line(tmp_path):
    with http_server() as url:
        shouting = url.replace("http://", "HTTP://") + "/mcp"
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"remote": {"url": shouting}}}))
        [from_config] = servers_from_config(str(config))
        from_command = server_from_command(shouting)
        assert isinstance(from_command.transport, _HTTPTransport) and from_command.name == "127.0.0.1"
        for server in (from_config, from_command):
            with server:
                assert server.call("ping_me", {}) == "pong"
    assert isinstance(server_from_command("https-proxy --port 3").transport, _StdioTransport)


# =========================================================================== 10. an argument that cannot be sent


def test_a_lone_surrogate_in_an_argument_is_a_failed_call_and_nothing_is_sent():
    with raw_server("plain") as server:
        registry = ToolRegistry(server.tools())
        outcome = registry.run("echo", {"text": "half \ud800 a pair"})
        heard = json.loads(registry.run("heard", {}).output)
    assert not outcome.ok and outcome.error == ToolError.EXCEPTION
    assert "tools/call was not sent to the MCP server 'raw-plain': it holds '\\ud800'" in outcome.output
    assert [m["method"] for m in heard] == ["notifications/initialized"]  # no notifications/cancelled


@pytest.mark.parametrize("name", ["", "  "])
def test_a_config_server_without_a_name_is_refused(tmp_path, name):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {name: {"command": "true"}}}))
    with pytest.raises(MCPError, match="a server needs a name"):
        servers_from_config(str(config))
