"""MCP tools in vero agents: ``vero.tools.mcp`` against real servers.

The Python servers are real: ``mcp_servers/notes_server.py`` runs on the official SDK (the
``mcp`` package of the dev extra) over stdio and over Streamable HTTP, and
``mcp_servers/raw_server.py`` is written by hand for the faults an SDK server would not make.
The Node reference server (``@modelcontextprotocol/server-filesystem``) runs when Node and the
package are there (``.ci/run`` fetches it into ``.ci-npm``; ``VERO_MCP_NPM_PREFIX`` points
elsewhere), and its tests skip otherwise.
"""

from __future__ import annotations

import base64
import contextlib
import http.server
import importlib.metadata
import json
import logging
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_cli import ROOT, vero

from vero.agents import ReActAgent, ToolCallingAgent
from vero.core.result import Status, ToolError
from vero.testing import ScriptedLLM
from vero.tools import ToolRegistry
from vero.tools.mcp import (
    MAX_SKIPPED_WARNINGS,
    MCPError,
    MCPServer,
    MCPTool,
    _HTTPTransport,
    _StdioTransport,
    result_text,
    server_from_command,
    servers_from_config,
)

SERVERS = Path(__file__).resolve().parent / "mcp_servers"
NOTES = str(SERVERS / "notes_server.py")
RAW = str(SERVERS / "raw_server.py")


def notes_server(**limits) -> MCPServer:
    pytest.importorskip("mcp", reason='the notes server runs on the official MCP SDK: pip install -e ".[dev]"')
    return MCPServer.stdio(sys.executable, [NOTES], name="notes", **limits)


def raw_server(mode: str, name: str = "", **limits) -> MCPServer:
    return MCPServer.stdio(sys.executable, [RAW, mode], name=name or f"raw-{mode}", **limits)


@pytest.fixture(scope="module")
def notes():
    """One stdio notes server for the tests that do not change its tools or end it; its read-only marks
    are trusted (``trust=True``), as the user may do for a server they know."""
    with notes_server(trust=True) as server:
        yield server


def calls(*pairs):
    return {"content": None, "tool_calls": [{"name": n, "arguments": a} for n, a in pairs]}


def pid_gone(pid: int, within: float = 20.0) -> bool:
    """True once process ``pid`` has ended.  A zombie whose parent is not this process counts as ended:
    its parent died, and reaping it is the job of the system's reaper (init), not vero's."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with contextlib.suppress(OSError, IndexError, ValueError):
            state, parent = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()[:2]
            if state == "Z" and int(parent) != os.getpid():
                return True
        time.sleep(0.05)
    return False


# --------------------------------------------------------------------------- tools from a real server


def test_the_tools_of_a_stdio_server_are_vero_tools_with_the_servers_schemas(notes):
    tools = {t.name: t for t in notes.tools()}
    assert {"read_note", "add", "write_note", "delete_note", "snapshot"} <= set(tools)
    assert all(isinstance(t, MCPTool) for t in tools.values())
    assert notes.protocol_version == "2025-11-25" and notes.server_info["name"] == "notes"
    add = tools["add"]
    assert add.parameters["properties"]["a"]["type"] == "integer" and add.parameters["required"] == ["a", "b"]
    assert add.schema["function"] == {
        "name": "add",
        "description": "Add two whole numbers.",
        "parameters": add.parameters,
    }
    assert add.signature() == "a: integer, b: integer"


def test_a_trusted_servers_read_only_marks_are_taken_and_unmarked_tools_may_change_things(notes):
    tools = {t.name: t for t in notes.tools()}
    assert tools["read_note"].read_only and tools["add"].read_only  # readOnlyHint: true
    assert not tools["write_note"].read_only  # no annotation
    assert not tools["delete_note"].read_only  # destructiveHint: true


def test_a_server_is_not_trusted_by_default_so_it_has_no_read_only_tools():
    with raw_server("plain") as server:
        assert [t.read_only for t in server.tools()] == [False] * len(server.tools())  # echo's hint is ignored
    with raw_server("plain", trust=True) as server:
        assert [t.name for t in server.tools() if t.read_only] == ["echo"]  # its readOnlyHint


def test_a_tool_call_goes_to_the_server_and_the_arguments_are_coerced_first(notes):
    registry = ToolRegistry(notes.tools())
    outcome = registry.run("add", {"a": "2", "b": 3})
    assert outcome.ok and outcome.output == "5"
    bad = registry.run("add", {"a": 2})
    assert not bad.ok and bad.error == ToolError.BAD_ARGUMENTS and "missing required argument(s): b" in bad.output


def test_an_agent_answers_with_an_mcp_tool(notes):
    llm = ScriptedLLM([calls(("add", {"a": 20, "b": 22})), "20 + 22 = 42"])
    agent = ToolCallingAgent("mcp", llm, tools=notes.tools(), verbose=False)
    assert agent.run("What is 20 + 22?") == "20 + 22 = 42" and agent.last_result.status == Status.OK
    assert [m["content"] for m in llm.requests[1].messages if m["role"] == "tool"] == ["42"]
    assert "add" in [t["function"]["name"] for t in llm.requests[0].tools]


def test_a_react_agent_lists_mcp_tools_in_its_prompt_and_calls_them(notes):
    llm = ScriptedLLM(['Action: read_note\nAction Input: {"title": "welcome"}', "Final Answer: kept by the server"])
    agent = ReActAgent("mcp", llm, tools=notes.tools(), verbose=False)
    assert agent.run("What does the welcome note say?") == "kept by the server"
    assert "- read_note(title: string): Read the note with this title." in llm.requests[0].messages[0]["content"]
    observation = agent.last_result.steps_of("observation")[0]
    assert observation.content == "Notes kept by the test server."


def test_an_is_error_result_is_an_observation_with_the_servers_text(notes):
    llm = ScriptedLLM(
        [calls(("read_note", {"title": "nothing"})), "There is no such note."], default="There is no such note."
    )
    agent = ToolCallingAgent("mcp", llm, tools=notes.tools(), verbose=False)
    assert agent.run("Read the note 'nothing'.") == "There is no such note."
    observation = agent.last_result.steps_of("observation")[0]
    assert observation.data["ok"] is False and observation.data["error"] == ToolError.EXCEPTION
    assert "no note titled 'nothing'; the titles are:" in observation.content


def test_an_image_is_described_in_one_line_not_dumped(notes):
    assert ToolRegistry(notes.tools()).run("snapshot", {}).output == "[image: image/png, 100 bytes]"


def test_the_servers_stderr_goes_to_the_log_not_to_the_model(notes, caplog):
    with caplog.at_level(logging.INFO, logger="vero.mcp"):
        outcome = ToolRegistry(notes.tools()).run("shout", {"text": "quiet please"})
        deadline = time.monotonic() + 10
        while "stderr says: quiet please" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.02)
    assert outcome.output == "QUIET PLEASE"
    assert any(r.name == "vero.mcp" and r.getMessage() == "[notes] stderr says: quiet please" for r in caplog.records)


def test_a_call_past_the_tools_timeout_is_an_observation_and_the_server_goes_on(notes):
    registry = ToolRegistry(notes.tools())
    registry.get("nap").timeout = 0.5
    outcome = registry.run("nap", {"seconds": 3})
    assert not outcome.ok and outcome.error == ToolError.TIMEOUT
    assert registry.run("add", {"a": 1, "b": 1}).output == "2"  # the late answer to the nap is dropped


def test_a_result_over_the_message_cap_is_an_observation_and_the_server_goes_on(notes):
    registry = ToolRegistry(notes.tools())
    outcome = registry.run("huge", {"megabytes": 20})  # a 20 MB message; the cap is 8 MiB
    assert not outcome.ok and outcome.error == ToolError.EXCEPTION
    assert "sent a message of more than 8,388,608 bytes (max_message_bytes)" in outcome.output
    assert registry.run("add", {"a": 2, "b": 2}).output == "4"


def test_a_tool_list_that_changes_mid_run_reaches_the_agent():
    with notes_server() as server:
        llm = ScriptedLLM([calls(("unlock", {})), calls(("secret", {})), "The secret is 42."])
        agent = ToolCallingAgent("mcp", llm, tools=server.tools(), verbose=False)
        server.sync(agent.tools)
        assert agent.run("Unlock the secret and tell me.") == "The secret is 42."
        names = [[t["function"]["name"] for t in request.tools] for request in llm.requests]
        assert "secret" not in names[0] and "secret" in names[1]
        assert "delete_note" in names[0] and "delete_note" not in names[1]  # the server removed it
        assert [s.content for s in agent.last_result.steps_of("observation")] == ["unlocked", "the secret is 42"]


@pytest.mark.parametrize(
    "make, tool", [(notes_server, "crash"), (lambda: raw_server("plain", name="notes"), "quit")], ids=["sdk", "raw"]
)
def test_a_server_that_exits_during_a_call_is_an_observation_not_an_exception(make, tool):
    with make() as server:
        llm = ScriptedLLM([calls((tool, {})), "The server is gone."], default="The server is gone.")
        agent = ToolCallingAgent("mcp", llm, tools=server.tools(), verbose=False)
        assert agent.run("Crash it.") == "The server is gone." and agent.last_result.status == Status.OK
        observation = agent.last_result.steps_of("observation")[0]
        assert observation.data["ok"] is False
        assert "the MCP server 'notes' exited (exit code 3)" in observation.content
        later = ToolRegistry(server.tools()).run(tool, {})
        assert not later.ok and "exited (exit code 3)" in later.output


def test_the_subprocess_gets_a_small_environment_without_the_api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-of-the-user")
    with raw_server("plain", env={"NOTES_DIR": "/tmp/notes"}) as server:
        registry = ToolRegistry(server.tools())
        assert registry.run("record", {"name": "OPENAI_API_KEY"}).output == "(not set)"
        assert registry.run("record", {"name": "NOTES_DIR"}).output == "/tmp/notes"
        assert registry.run("record", {"name": "PATH"}).output == os.environ["PATH"]


def test_a_registry_can_lose_a_tool():
    def greet() -> str:
        """Say hi."""
        return "hi"

    registry = ToolRegistry()
    added = registry.register(greet)
    assert registry.remove(added.name) is added and added.name not in registry and registry.schemas() == []
    assert registry.remove("never-there") is None


# --------------------------------------------------------------------------- faults of hand-written servers


def test_stray_lines_on_stdout_are_skipped_and_logged(caplog):
    with caplog.at_level(logging.WARNING, logger="vero.mcp"), raw_server("garbage") as server:
        assert ToolRegistry(server.tools()).run("echo", {"text": "hi"}).output == '{"text": "hi"}'
    assert "not a JSON-RPC message on stdout, skipped: a stray print() of the server" in caplog.text


def test_a_server_flooding_stdout_is_warned_about_a_bounded_number_of_times(caplog):
    with caplog.at_level(logging.WARNING, logger="vero.mcp"), raw_server("flood") as server:
        assert ToolRegistry(server.tools()).run("echo", {"text": "hi"}).output == '{"text": "hi"}'
    warnings = [record for record in caplog.records if "not a JSON-RPC message" in record.getMessage()]
    assert len(warnings) == MAX_SKIPPED_WARNINGS and "skipped silently" in warnings[-1].getMessage()


def test_a_server_that_never_answers_initialize_fails_the_handshake_and_is_stopped():
    server = raw_server("silent", handshake_timeout=0.5)
    with pytest.raises(MCPError, match=r"'raw-silent' .* did not start: .* did not answer initialize within 0.5 s"):
        server.start()
    assert server.transport.process is None  # closed: stopped and reaped


def test_a_server_that_only_writes_garbage_says_so_in_the_handshake_error():
    with pytest.raises(MCPError, match="it wrote text that is not JSON-RPC to stdout: Server listening on port 8080"):
        raw_server("only-garbage").start()


def test_a_command_that_does_not_exist_is_a_clear_error():
    with pytest.raises(MCPError, match=r"cannot start the MCP server 'no-such-mcp-server' \(no-such-mcp-server --flag"):
        MCPServer.stdio("no-such-mcp-server", ["--flag"]).start()


def test_a_server_that_exits_at_once_says_so_with_its_stderr():
    server = MCPServer.stdio(sys.executable, ["-c", "import sys; sys.exit('cannot open the database')"])
    with pytest.raises(MCPError, match=r"exited \(exit code 1\); its stderr ended with: cannot open the database"):
        server.start()


def test_an_unknown_protocol_version_is_refused():
    with pytest.raises(MCPError, match="speaks protocol version '1999-01-01'; vero speaks 2025-11-25"):
        raw_server("old-version").start()


def test_tools_list_pages_are_followed_and_names_are_made_callable():
    with raw_server("pages") as server:
        tools = server.tools()
        assert [t.name for t in tools] == ["echo", "files_read", "record", "quit", "hang", "heard"]
        assert tools[1].remote_name == "files.read"
        assert tools[1].parameters == {"type": "object", "properties": {}, "required": []}
        assert ToolRegistry(tools).run("files_read", {"path": "a"}).output == '{"path": "a"}'  # extras pass on


def test_more_tools_than_max_tools_is_a_clear_error():
    with pytest.raises(MCPError, match="offers more than 5 tools; pass max_tools= to take more"):
        raw_server("endless", max_tools=5).start()


def test_requests_from_the_server_are_answered(notes):
    with raw_server("asks") as server:
        replies = json.loads(ToolRegistry(server.tools()).run("echo", {"text": "x"}).output)
    assert replies[0] == {"id": "p1", "result": {}}
    assert replies[1]["id"] == "s1" and replies[1]["error"]["code"] == -32601


def test_a_call_that_times_out_is_cancelled_on_the_server():
    with raw_server("plain") as server:
        registry = ToolRegistry(server.tools())
        registry.get("hang").timeout = 0.2
        outcome = registry.run("hang", {})
        assert not outcome.ok and outcome.error == ToolError.TIMEOUT
        deadline = time.monotonic() + 30  # the call gives up a second after the tool's timeout, then cancels
        while time.monotonic() < deadline:
            heard = json.loads(registry.run("heard", {}).output)
            if len(heard) > 1:
                break
            time.sleep(0.1)
        heard = json.loads(registry.run("heard", {}).output)  # and nothing more: the call is cancelled once
    assert [h["method"] for h in heard] == ["notifications/initialized", "notifications/cancelled"]
    assert heard[1]["method"] == "notifications/cancelled" and heard[1]["params"]["reason"] == "timed out"
    assert isinstance(heard[1]["params"]["requestId"], int)


def test_a_server_that_echoes_ids_as_text_is_understood():
    with raw_server("text-ids", handshake_timeout=10) as server:
        assert [tool.name for tool in server.tools()]


def test_an_error_of_no_request_s_fails_the_handshake_at_once():
    started = time.monotonic()
    with pytest.raises(MCPError, match=r"parse error"):
        raw_server("null-id-error", handshake_timeout=30).start()
    assert time.monotonic() - started < 10  # not the whole handshake_timeout


def test_a_json_rpc_error_is_an_observation():
    with raw_server("rpc-error") as server:
        outcome = ToolRegistry(server.tools()).run("echo", {"text": "x"})
    assert not outcome.ok and "Unknown tool: nope (JSON-RPC error -32602)" in outcome.output


def test_result_text_describes_resources_and_keeps_text():
    result = {
        "content": [
            {"type": "text", "text": "two items"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "x" * 1500}},
            {"type": "resource_link", "uri": "file:///b.pdf", "name": "b.pdf", "mimeType": "application/pdf"},
            {"type": "audio", "mimeType": "audio/wav", "data": "AAAA"},
        ]
    }
    assert result_text(result).splitlines() == [
        "two items",
        "[resource: file:///a.txt, text/plain, 1,500 characters]",
        "[resource link: file:///b.pdf (b.pdf, application/pdf)]",
        "[audio: audio/wav, 3 bytes]",
    ]
    assert result_text({"content": [], "structuredContent": {"n": 1}}) == '{"n": 1}'
    assert result_text({}) == "(no output)"


# --------------------------------------------------------------------------- lifetime: no zombie, no orphan


def test_leaving_the_with_block_ends_and_reaps_the_server():
    with raw_server("plain") as server:
        process = server.transport.process
        assert os.getpgid(process.pid) == process.pid  # its own group: a Ctrl-C in the terminal is vero's alone
    assert process.poll() is not None and pid_gone(process.pid)


def test_ctrl_c_inside_the_with_block_ends_the_server():
    with pytest.raises(KeyboardInterrupt), raw_server("plain") as server:
        process = server.transport.process
        raise KeyboardInterrupt
    assert process.poll() is not None


OPENER = """
import sys, time
sys.path.insert(0, {root!r})
from vero.tools.mcp import MCPServer
server = MCPServer.stdio(sys.executable, {server!r}).start()
print(server.transport.process.pid, flush=True)
if sys.argv[1] == "exit":
    sys.exit(0)  # without closing the server
time.sleep(120)
"""


@pytest.mark.processes
@pytest.mark.parametrize("how", ["exit", "kill", "ctrl-c"])
def test_no_server_outlives_the_process_that_started_it(how, tmp_path, sigint_default):
    script = tmp_path / "opener.py"
    # The SDK server when the opener is killed (its own reaction to the closed stdin counts);
    # the quick hand-written one when vero's own clean-up is what is tested.
    server = [NOTES] if how == "kill" else [RAW, "plain"]
    if how == "kill":
        pytest.importorskip("mcp", reason="the notes server runs on the official MCP SDK")
    script.write_text(OPENER.format(root=str(ROOT), server=server))
    opener = subprocess.Popen([sys.executable, str(script), how], stdout=subprocess.PIPE, text=True)
    try:
        server_pid = int(opener.stdout.readline())
        if how == "kill":
            opener.kill()  # SIGKILL: no Python code runs; the server sees its stdin close and exits
        elif how == "ctrl-c":
            opener.send_signal(signal.SIGINT)
        opener.wait(timeout=30)
        assert pid_gone(server_pid), f"the server {server_pid} outlived its parent ({how})"
    finally:
        if opener.poll() is None:
            opener.kill()
            opener.wait()


# --------------------------------------------------------------------------- Streamable HTTP


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def http_notes():
    """The notes server over Streamable HTTP on 127.0.0.1 (SSE answers), started and stopped here."""
    pytest.importorskip("mcp", reason='the notes server runs on the official MCP SDK: pip install -e ".[dev]"')
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, NOTES, "--http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert process.poll() is None and time.monotonic() < deadline, "the HTTP test server did not start"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_streamable_http_server_gives_tools_that_an_agent_calls(http_notes):
    with MCPServer.http(http_notes) as server:
        assert server.transport.session_id  # the SDK server keeps a session
        llm = ScriptedLLM([calls(("add", {"a": 4, "b": 5})), "9"])
        agent = ToolCallingAgent("mcp", llm, tools=server.tools(), verbose=False)
        assert agent.run("4 + 5?") == "9"
        assert [m["content"] for m in llm.requests[1].messages if m["role"] == "tool"] == ["9"]
        failed = ToolRegistry(server.tools()).run("read_note", {"title": "nothing"})
        assert not failed.ok and "no note titled 'nothing'" in failed.output


def test_a_tool_list_change_over_http_is_followed(http_notes):
    with MCPServer.http(http_notes) as server:
        registry = server.sync(ToolRegistry())
        assert registry.run("unlock", {}).output == "unlocked"
        deadline = time.monotonic() + 30  # the news comes on the server's event stream, a moment later
        while "secret" not in [t.name for t in server.tools()] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert registry.run("secret", {}).output == "the secret is 42"
        assert "delete_note" not in registry


class _RecordingHandler(http.server.BaseHTTPRequestHandler):
    """A JSON-answering MCP endpoint (no SSE) that records what the client sent."""

    seen: list = []
    sessions = ["session-7"]  # the session ids to give, in turn
    forget_at_call = False  # answer the next tools/call with 404, as a server that restarted

    def do_POST(self):  # noqa: N802 - the name http.server calls
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append((message.get("method"), {k.lower(): v for k, v in self.headers.items()}))
        if message.get("method") == "tools/call" and _RecordingHandler.forget_at_call:
            _RecordingHandler.forget_at_call = False
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if "id" not in message:
            self.send_response(202)
            self.end_headers()
            return
        results = {
            "initialize": {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "r"}},
            "tools/list": {"tools": [{"name": "ping_me", "inputSchema": {"type": "object"}}]},
            "tools/call": {"content": [{"type": "text", "text": "pong"}]},
        }
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": results[message["method"]]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if message["method"] == "initialize":
            self.send_header("Mcp-Session-Id", _RecordingHandler.sessions.pop(0))
        self.end_headers()
        self.wfile.write(body)

    def do_DELETE(self):  # noqa: N802
        self.seen.append(("DELETE", {k.lower(): v for k, v in self.headers.items()}))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def recording_endpoint():
    _RecordingHandler.seen, _RecordingHandler.sessions, _RecordingHandler.forget_at_call = [], ["session-7"], False
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _RecordingHandler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()  # stops at once
    yield f"http://127.0.0.1:{httpd.server_address[1]}/mcp", _RecordingHandler.seen
    httpd.shutdown()
    httpd.server_close()


def test_a_url_s_login_is_sent_as_basic_authentication_and_never_shown(recording_endpoint, caplog):
    url, seen = recording_endpoint
    with_login = url.replace("http://", "http://ada:pass%2Fw0rd-r29@")
    with caplog.at_level(logging.DEBUG), MCPServer.http(with_login) as server:
        assert ToolRegistry(server.tools()).run("ping_me", {}).output == "pong"
        assert "w0rd-r29" not in repr(server)
    basic = "Basic " + base64.b64encode(b"ada:pass/w0rd-r29").decode()
    assert seen and all(headers["authorization"] == basic for _, headers in seen)
    assert "w0rd-r29" not in caplog.text


def test_http_sends_the_headers_the_session_and_the_version_and_ends_the_session(recording_endpoint, caplog):
    url, seen = recording_endpoint
    with caplog.at_level(logging.DEBUG), MCPServer.http(url, headers={"Authorization": "Bearer tok-123"}) as server:
        assert ToolRegistry(server.tools()).run("ping_me", {}).output == "pong"
        assert "tok-123" not in repr(server) and "Authorization=***" in repr(server)
    methods = [m for m, _ in seen]
    assert methods == ["initialize", "notifications/initialized", "tools/list", "tools/call", "DELETE"]
    assert all(h["authorization"] == "Bearer tok-123" for _, h in seen)  # header names are case-insensitive
    assert "mcp-session-id" not in seen[0][1] and all(h["mcp-session-id"] == "session-7" for _, h in seen[1:])
    assert all(h["mcp-protocol-version"] == "2025-06-18" for _, h in seen[1:])
    assert "tok-123" not in caplog.text


def test_a_session_the_http_server_forgot_is_started_again(recording_endpoint):
    url, seen = recording_endpoint
    _RecordingHandler.sessions.append("session-8")
    with MCPServer.http(url) as server:
        _RecordingHandler.forget_at_call = True
        assert ToolRegistry(server.tools()).run("ping_me", {}).output == "pong"
        assert server.transport.session_id == "session-8"
    methods = [m for m, _ in seen]
    assert methods[3:] == [
        "tools/call",
        "initialize",
        "notifications/initialized",
        "tools/call",
        "tools/list",
        "DELETE",
    ]
    assert "mcp-session-id" not in seen[4][1] and seen[6][1]["mcp-session-id"] == "session-8"


def test_an_unreachable_http_server_is_a_clear_error():
    with pytest.raises(MCPError, match=r"did not start: cannot reach the MCP server .* at http://127.0.0.1:"):
        MCPServer.http(f"http://127.0.0.1:{free_port()}/mcp", handshake_timeout=5).start()


# --------------------------------------------------------------------------- the command line


@pytest.fixture
def srv(shared_mock_server):
    """An empty, running MockOpenAIServer (reused between tests, reset for each)."""
    return shared_mock_server


def test_vero_run_takes_an_mcp_server(srv, tmp_path):
    srv.enqueue(calls(("echo", {"text": "hello"})), "The server said hello.")
    done = vero(
        "run",
        "Say hello through the server.",
        "--agent",
        "chat",
        "--tools",
        "none",
        "--mcp",
        f"{sys.executable} {RAW} plain",
        "--mcp-trust",
        "raw_server",  # trusted: its echo is marked read-only, so it runs without asking
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "The server said hello." in done.stdout
    assert [t["function"]["name"] for t in srv.requests[0]["tools"]][:3] == ["echo", "files_read", "record"]
    assert [m["content"] for m in srv.requests[1]["messages"] if m["role"] == "tool"] == ['{"text": "hello"}']


def test_vero_run_takes_an_mcp_config_with_the_builtin_tools(srv, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "raw": {"command": sys.executable, "args": [RAW, "plain"], "env": {"NOTES_DIR": "/srv/notes"}}
                }
            }
        )
    )
    srv.enqueue(calls(("record", {"name": "NOTES_DIR"})), "/srv/notes")
    done = vero(
        "run",
        "Where are the notes?",
        "--agent",
        "chat",
        "--tools",
        "calculator",
        "--mcp-config",
        str(config),
        "--yes",  # record may change things, as far as vero knows
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    names = [t["function"]["name"] for t in srv.requests[0]["tools"]]
    assert names[:4] == ["calculator", "echo", "files_read", "record"]
    assert [m["content"] for m in srv.requests[1]["messages"] if m["role"] == "tool"] == ["/srv/notes"]


def test_vero_chat_lists_mcp_tools(srv, tmp_path):
    done = vero(
        "chat",
        "--tools",
        "none",
        "--mcp",
        f"{sys.executable} {RAW} plain",
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
        input="/tools\nbye\n",
    )
    assert done.returncode == 0, done.stderr
    assert "echo" in done.stdout and "Echo the arguments." in done.stdout and "files_read" in done.stdout


@pytest.mark.parametrize(
    "config, message",
    [
        ("not json", "is not valid JSON"),
        (
            '{"tools": {}}',
            'has none of the objects that hold servers: "mcpServers" (Claude Desktop, Cursor, Windsurf); '
            '"servers" (VS Code); "context_servers" (Zed)',
        ),
        ('{"servers": {"a": {"command": "x"}}} /* a comment never closed', "is not valid JSON"),
        ('{"mcpServers": {"a": {"args": []}}}', 'server \'a\': expected "command" (a string) or "url"'),
        ('{"mcpServers": {"a": {"command": "x", "args": "-v"}}}', '"args" must be a list of strings'),
        ('{"mcpServers": {"a": {"url": "http://h/mcp", "type": "sse"}}}', "the old SSE transport is not supported"),
        ('{"mcpServers": {"a": {"url": "http://h/sse", "type": "SSE"}}}', "the old SSE transport is not supported"),
        (
            '{"mcpServers": {"a": {"url": "http://h/sse", "transport": "sse"}}}',
            "the old SSE transport is not supported",
        ),
        (
            '{"mcpServers": {"a": {"command": "${VERO_TEST_UNSET}"}}}',
            "command uses the environment variable VERO_TEST_",
        ),
        ('{"servers": {"a": {"command": "x", "disabled": "yes"}}}', '"disabled" must be true or false'),
        ('{"servers": {"a": {"command": "x", "trust": 1}}}', '"trust" must be true or false'),
        ('{"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}}', 'give "command" (a server to start) or'),
        ('{"servers": {"a": {"type": "http", "command": "x"}}}', '"type" \'http\' needs "url"'),
        ('{"servers": {"a": {"type": "stdio", "url": "http://h/mcp"}}}', '"type" \'stdio\' needs "command"'),
        ('{"servers": {"a": {"type": ["http"], "url": "http://h/mcp"}}}', '"type" must be a string'),
        ('{"servers": {"a": {"url": "wss://h/mcp"}}}', "server 'a': url 'wss://h/mcp' is not an http(s) URL"),
        ('{"servers": {"a": {"url": "http:/mcp"}}}', "server 'a': url 'http:/mcp' is not an http(s) URL"),  # no host
        ('{"servers": {"a": {"url": "http://[::1/mcp"}}}', "server 'a': url 'http://[::1/mcp' is not an http(s) URL"),
    ],
)
def test_a_bad_mcp_config_is_a_usage_error(config, message, tmp_path, srv):
    (tmp_path / "mcp.json").write_text(config)
    done = vero("run", "hi", "--mcp-config", "mcp.json", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_mcp_trust_naming_no_server_is_a_usage_error(srv, tmp_path):
    done = vero("run", "hi", "--mcp-trust", "files", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 2
    assert "vero: --mcp-trust files: no MCP server has that name; the servers are: none" in done.stderr
    done = vero(
        "run",
        "hi",
        "--mcp",
        f"{sys.executable} {RAW} plain",
        "--mcp-trust",
        "raw",
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "the servers are: raw_server" in done.stderr


def test_an_mcp_server_that_does_not_start_is_a_usage_error(srv, tmp_path):
    done = vero("run", "hi", "--mcp", "no-such-mcp-server --stdio", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 2
    assert "vero: cannot start the MCP server 'no-such-mcp-server' (no-such-mcp-server --stdio): " in done.stderr


@pytest.mark.parametrize(
    "command, name",
    [
        ("npx -y @modelcontextprotocol/server-filesystem /home/me", "server-filesystem"),
        ("npx -y @example/calendar-mcp@1.2.0", "calendar-mcp"),
        ("uvx mcp-server-time --local-timezone UTC", "mcp-server-time"),
        ("python tests/mcp_servers/notes_server.py", "notes_server"),
        ("docker run -i --rm mcp/fetch", "fetch"),
    ],
)
def test_a_server_from_the_command_line_is_named_after_its_package_or_script(command, name):
    server = server_from_command(command)
    assert server.name == name and isinstance(server.transport, _StdioTransport)


def test_an_mcp_url_on_the_command_line_is_a_streamable_http_server():
    server = server_from_command(" https://mcp.example.com/mcp ")
    assert isinstance(server.transport, _HTTPTransport) and server.name == "mcp.example.com"


def test_the_config_headers_are_kept_for_the_server_and_masked(tmp_path):
    (tmp_path / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer tok-9"}}
                }
            }
        )
    )
    [server] = servers_from_config(str(tmp_path / "mcp.json"))
    assert repr(server) == "MCPServer('remote', https://mcp.example.com/mcp, headers: Authorization=***)"


def write_config(folder: Path, config: dict) -> str:
    path = folder / "mcp.json"
    path.write_text(json.dumps(config))
    return str(path)


def test_an_mcp_config_in_vs_codes_layout_is_read(tmp_path):
    config = {
        "inputs": [],
        "servers": {
            "raw": {"type": "stdio", "command": sys.executable, "args": [RAW, "plain"]},
            "remote": {"type": "http", "url": "https://mcp.example.com/mcp"},
        },
    }
    local, remote = servers_from_config(write_config(tmp_path, config))
    assert (local.name, remote.name) == ("raw", "remote")
    assert isinstance(local.transport, _StdioTransport) and isinstance(remote.transport, _HTTPTransport)
    with local:
        assert ToolRegistry(local.tools()).run("echo", {"text": "vs"}).output == '{"text": "vs"}'


def test_the_files_editors_write_are_read_comments_trailing_commas_and_their_own_keys(tmp_path):
    vs_code = f"""{{
      // .vscode/mcp.json is JSON with comments
      "servers": {{
        "raw": {{"type": "stdio", "command": {json.dumps(sys.executable)}, "args": [{json.dumps(RAW)}, "plain"],}},
        /* a block comment
           over two lines */
        "remote": {{"type": "http", "url": "https://mcp.example.com/mcp?a=//b"}},
      }},
    }}"""
    (tmp_path / "mcp.json").write_text(vs_code)
    local, remote = servers_from_config(str(tmp_path / "mcp.json"))
    assert local.transport.shown == shlex.join([sys.executable, RAW, "plain"])
    assert remote.transport.shown == "https://mcp.example.com/mcp?a=//b"  # "//" inside a string is no comment
    windsurf = {"mcpServers": {"remote": {"serverUrl": "https://mcp.example.com/mcp"}}}
    [remote] = servers_from_config(write_config(tmp_path, windsurf))
    assert isinstance(remote.transport, _HTTPTransport)
    zed = {
        "theme": "One Dark",
        "context_servers": {
            "old": {"command": {"path": sys.executable, "args": [RAW, "plain"], "env": {"A": "1"}}, "settings": {}},
            "new": {"source": "custom", "command": sys.executable, "args": [RAW, "plain"]},
        },
    }
    old, new = servers_from_config(write_config(tmp_path, zed))
    assert old.transport.shown == new.transport.shown == shlex.join([sys.executable, RAW, "plain"])
    with old:
        assert ToolRegistry(old.tools()).run("echo", {"text": "zed"}).output == '{"text": "zed"}'


def test_zed_servers_switched_off_or_provided_by_an_extension_are_left_out(tmp_path):
    zed = {
        "context_servers": {
            "off": {"source": "custom", "command": "no-such-mcp-server", "enabled": False},
            "from-an-extension": {"source": "extension", "enabled": True, "settings": {}},
            "on": {"source": "custom", "command": sys.executable, "args": [RAW, "plain"]},
        }
    }
    servers = servers_from_config(write_config(tmp_path, zed))
    assert [server.name for server in servers] == ["on"]


def test_a_config_an_editor_wrote_with_a_byte_order_mark_is_read(tmp_path):
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": {"raw": {"command": "x"}}}), encoding="utf-8-sig")
    assert [server.name for server in servers_from_config(str(tmp_path / "mcp.json"))] == ["raw"]


def test_a_transport_type_in_another_spelling_is_read_and_an_unknown_one_warned_about(tmp_path, caplog):
    servers = {
        "a": {"type": "streamable_http", "url": "HTTPS://mcp.example.com/mcp"},
        "b": {"type": "HTTP", "url": "https://mcp.example.com/mcp"},
        "c": {"type": "websocket", "url": "https://mcp.example.com/mcp"},
    }
    assert [s.name for s in servers_from_config(write_config(tmp_path, {"servers": servers}))] == ["a", "b", "c"]
    assert "server 'c': unknown \"type\" 'websocket': reached by its url" in caplog.text


def test_a_config_with_no_server_to_start_says_so(tmp_path, caplog):
    assert (
        servers_from_config(write_config(tmp_path, {"mcpServers": {"off": {"command": "x", "disabled": True}}})) == []
    )
    assert "has no server to start (1 named, none enabled)" in caplog.text


def test_a_server_named_under_two_layouts_of_one_config_is_an_error(tmp_path):
    entry = {"command": sys.executable, "args": [RAW, "plain"]}
    with pytest.raises(MCPError, match="names the server 'raw' twice"):
        servers_from_config(write_config(tmp_path, {"mcpServers": {"raw": entry}, "servers": {"raw": entry}}))


def test_an_mcp_config_that_is_no_regular_file_is_refused_at_once(tmp_path):
    fifo = tmp_path / "mcp.json"
    os.mkfifo(fifo)
    with pytest.raises(MCPError, match="not a regular file"):
        servers_from_config(str(fifo))  # not waiting for a writer
    with pytest.raises(MCPError, match="not a regular file"):
        servers_from_config("/dev/zero")  # not reading without end


def test_a_disabled_server_in_the_config_is_not_started(srv, tmp_path):
    config = {
        "mcpServers": {
            "broken": {"command": "no-such-mcp-server", "disabled": True},
            "raw": {"command": sys.executable, "args": [RAW, "plain"], "disabled": False},
        }
    }
    srv.enqueue(calls(("echo", {"text": "on"})), "It is on.")
    path = write_config(tmp_path, config)
    done = vero(
        "run",
        "Echo on.",
        "--agent",
        "chat",
        "--tools",
        "none",
        "--mcp-config",
        path,
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "no-such-mcp-server" not in done.stderr and "It is on." in done.stdout


def test_variables_in_the_config_are_read_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("VERO_TEST_PYTHON", sys.executable)
    monkeypatch.setenv("VERO_TEST_SCRIPT", RAW)
    monkeypatch.setenv("VERO_TEST_HOST", "mcp.example.com")
    monkeypatch.setenv("VERO_TEST_TOKEN", "tok-5")
    monkeypatch.delenv("VERO_TEST_NOTES", raising=False)
    config = {
        "mcpServers": {
            "raw": {
                "command": "${VERO_TEST_PYTHON}",
                "args": ["${env:VERO_TEST_SCRIPT}", "plain"],
                "env": {"NOTES_DIR": "${VERO_TEST_NOTES:-/srv/notes}", "TOKEN": "${VERO_TEST_TOKEN}"},
                "cwd": "${VERO_TEST_CWD:-" + str(tmp_path) + "}",
            },
            "remote": {
                "url": "https://${VERO_TEST_HOST}/mcp",
                "headers": {"Authorization": "Bearer ${env:VERO_TEST_TOKEN}"},
            },
        }
    }
    local, remote = servers_from_config(write_config(tmp_path, config))
    assert local.transport.argv == [sys.executable, RAW, "plain"] and local.transport.cwd == str(tmp_path)
    assert remote.transport.url == "https://mcp.example.com/mcp"
    assert remote.transport._headers == {"Authorization": "Bearer tok-5"}
    with local:
        registry = ToolRegistry(local.tools())
        assert registry.run("record", {"name": "NOTES_DIR"}).output == "/srv/notes"
        assert registry.run("record", {"name": "TOKEN"}).output == "tok-5"


def test_a_secret_read_from_a_variable_is_not_in_the_servers_errors(srv, tmp_path, monkeypatch):
    monkeypatch.setenv("VERO_TEST_SECRET", "sk-secret-42")
    config = {
        "mcpServers": {
            "local": {"command": "no-such-mcp-server", "args": ["--key", "${VERO_TEST_SECRET}"]},
            "remote": {"url": f"http://127.0.0.1:{free_port()}/${{VERO_TEST_SECRET}}/mcp"},
        }
    }
    path = write_config(tmp_path, config)
    local, remote = servers_from_config(path)
    assert "sk-secret-42" in local.transport.argv and "sk-secret-42" in remote.transport.url  # what is used
    assert "sk-secret-42" not in repr(local) + repr(remote)
    for server in (local, remote):
        with pytest.raises(MCPError) as failed:
            server.start()
        assert "${VERO_TEST_SECRET}" in str(failed.value) and "sk-secret-42" not in str(failed.value)
    done = vero(
        "run", "hi", "--mcp-config", path, "--base-url", srv.base_url, cwd=tmp_path, VERO_TEST_SECRET="sk-secret-42"
    )
    assert done.returncode == 2 and "--key '${VERO_TEST_SECRET}'" in done.stderr and "sk-secret-42" not in done.stderr


@pytest.mark.parametrize(
    "header, message",
    [
        ("Bearer ${VERO_TEST_UNSET}", "headers uses the environment variable VERO_TEST_UNSET, which is not set"),
        ("Bearer ${input:token}", "headers has ${input:token}; vero reads only environment variables"),
    ],
)
def test_a_config_variable_that_cannot_be_read_is_an_error_naming_it(header, message, tmp_path, monkeypatch):
    monkeypatch.delenv("VERO_TEST_UNSET", raising=False)
    config = {"servers": {"remote": {"url": "https://h/mcp", "headers": {"Authorization": header}}}}
    with pytest.raises(MCPError, match="server 'remote': ") as raised:
        servers_from_config(write_config(tmp_path, config))
    assert message in str(raised.value)


# --------------------------------------------------------------------------- packaging


def test_installing_vero_brings_only_its_three_run_time_dependencies():
    requirements = importlib.metadata.requires("vero") or []
    run_time = sorted(r.split(">")[0].split(";")[0].strip() for r in requirements if "extra ==" not in r)
    assert run_time == ["json-repair", "openai", "python-dotenv", "typing_extensions"]
    assert any(r.startswith("mcp") and 'extra == "dev"' in r for r in requirements)


# --------------------------------------------------------------------------- the Node reference server


def node_filesystem_server() -> Path | None:
    """The cached ``@modelcontextprotocol/server-filesystem`` entry point, or None."""
    prefix = Path(os.environ.get("VERO_MCP_NPM_PREFIX") or ROOT / ".ci-npm")
    entry = prefix / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
    return entry if entry.is_file() else None


@pytest.fixture
def filesystem_server(tmp_path):
    if shutil.which("node") is None:
        pytest.skip("Node is not installed: the Node reference MCP server cannot run")
    entry = node_filesystem_server()
    if entry is None:
        pytest.skip(
            "@modelcontextprotocol/server-filesystem is not cached: run "
            "`npm install --prefix .ci-npm @modelcontextprotocol/server-filesystem` (as .ci/run does)"
        )
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "todo.txt").write_text("buy lamp oil\n")
    with MCPServer.stdio("node", [str(entry), str(folder)], name="files", trust=True) as server:
        yield server, folder


def test_the_node_filesystem_server_gives_tools_that_an_agent_uses(filesystem_server):
    server, folder = filesystem_server
    tools = {t.name: t for t in server.tools()}
    assert "read_text_file" in tools or "read_file" in tools
    read = "read_text_file" if "read_text_file" in tools else "read_file"
    assert tools[read].read_only and not tools["write_file"].read_only
    path = str(folder / "todo.txt")
    llm = ScriptedLLM([calls((read, {"path": path})), "Buy lamp oil."])
    agent = ToolCallingAgent("files", llm, tools=server.tools(), verbose=False)
    assert agent.run("What is on my to-do list?") == "Buy lamp oil."
    assert agent.last_result.steps_of("observation")[0].content.strip() == "buy lamp oil"


def test_the_node_filesystem_server_refuses_a_path_outside_its_folder(filesystem_server):
    server, _folder = filesystem_server
    tools = {t.name: t for t in server.tools()}
    read = "read_text_file" if "read_text_file" in tools else "read_file"
    outcome = ToolRegistry(server.tools()).run(read, {"path": "/etc/passwd"})
    assert not outcome.ok and "root:" not in outcome.output


def test_the_example_answers_with_the_filesystem_servers_tools(filesystem_server, monkeypatch, capsys):
    import importlib.util

    server, folder = filesystem_server
    spec = importlib.util.spec_from_file_location("example_mcp_filesystem", ROOT / "examples" / "mcp_filesystem.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    entry = node_filesystem_server()
    monkeypatch.setattr(
        example, "filesystem_server", lambda where: MCPServer.stdio("node", [str(entry), where], name="files")
    )
    path = str(folder / "todo.txt")
    monkeypatch.setattr(
        example,
        "ChatOpenAI",
        lambda: ScriptedLLM([calls(("read_text_file", {"path": path})), "The list says: buy lamp oil."]),
    )
    monkeypatch.setattr(example.shutil, "which", lambda name: "/usr/bin/npx")  # node runs it here, not npx
    assert example.main(["--folder", str(folder), "What is on my list?"]) == 0
    out = capsys.readouterr().out
    assert "files: " in out and "read_text_file" in out and "The list says: buy lamp oil." in out


def test_a_result_over_the_message_cap_over_http_is_an_observation(http_notes):
    with MCPServer.http(http_notes, max_message_bytes=1_000_000) as server:
        registry = ToolRegistry(server.tools())
        outcome = registry.run("huge", {"megabytes": 3})
        assert not outcome.ok and "sent a message of more than 1,000,000 bytes" in outcome.output
        assert registry.run("add", {"a": 2, "b": 2}).output == "4"


def test_a_key_in_the_url_is_not_shown():
    server = MCPServer.http("https://bob:pw-1@mcp.example.com/mcp?api_key=sk-123", name="remote")
    shown = "MCPServer('remote', https://mcp.example.com/mcp?api_key=***, headers: Authorization=***)"
    assert repr(server) == shown  # the login is sent as a header


ECHOING = "import os, sys; print('token=' + os.environ['GITHUB_TOKEN']); sys.exit('auth failed for ' + sys.argv[1])"


def test_a_server_that_echoes_the_token_it_was_given_shows_it_masked(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("VERO_TEST_PAT", "ghp_test_TOKEN_r29_2468013579")
    entry = {
        "command": sys.executable,
        "args": ["-c", ECHOING, "${VERO_TEST_PAT}"],
        "env": {"GITHUB_TOKEN": "${VERO_TEST_PAT}"},
    }
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"github": entry}}), encoding="utf-8")
    (server,) = servers_from_config(str(path))
    with caplog.at_level(logging.INFO), pytest.raises(MCPError) as failed:
        server.start()
    shown = str(failed.value) + caplog.text
    assert "token=***" in shown and "auth failed for ***" in shown and "TOKEN_r29" not in shown


def test_a_stdio_server_s_env_value_under_a_secret_s_name_is_masked_in_its_errors():
    server = MCPServer.stdio(
        sys.executable, ["-c", ECHOING, "x"], env={"GITHUB_TOKEN": "ghp_test_TOKEN_r29_1357924680"}
    )
    with pytest.raises(MCPError) as failed:
        server.start()
    assert "token=***" in str(failed.value) and "TOKEN_r29" not in str(failed.value)


@pytest.mark.parametrize(("timeout", "taken"), [(5, 5), (0.5, 0.5), ("5", None), (0, None), (True, None)])
def test_a_server_s_timeout_in_a_config_file_is_its_call_timeout(tmp_path, timeout, taken):
    path = tmp_path / "mcp.json"
    entry = {"command": sys.executable, "args": [NOTES], "timeout": timeout}
    path.write_text(json.dumps({"mcpServers": {"notes": entry}}), encoding="utf-8")
    if taken is None:
        with pytest.raises(MCPError, match='"timeout" must be seconds above 0'):
            servers_from_config(str(path))
    else:
        assert servers_from_config(str(path))[0].call_timeout == taken
