"""Faults a seventeenth outside probe found in reading MCP configs: a header's token printed whole in an error
(a value read from a file with its line break), a server name given twice in one layout dropped silently, and
config values no process can carry (an ``env`` name with ``=``, a NUL, a lone surrogate, a file that is not
UTF-8, VS Code's ``${workspaceFolder}``) reported as raw Python errors under the wrong option."""

from __future__ import annotations

import http.server
import json
import os
import threading

import pytest
from test_cli import vero

from vero.tools.mcp import MCPError, MCPServer, servers_from_config

TOKEN = "tok-INVENTED-0042"  # an invented token: what no message may show


def write_config(tmp_path, text: str | bytes) -> str:
    path = tmp_path / "mcp.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


# -- 1: a header's value is never shown -----------------------------------------------------------------------------
def test_a_header_value_with_a_line_break_is_refused_naming_the_header_and_its_variable_never_the_value(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("CAL_TOKEN", TOKEN + "\r")  # as `$(cat token.txt)` reads a file written on Windows
    config = {
        "mcpServers": {
            "cal": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${env:CAL_TOKEN}"}}
        }
    }
    with pytest.raises(MCPError) as raised:
        servers_from_config(write_config(tmp_path, json.dumps(config)))
    message = str(raised.value)
    assert "server 'cal'" in message and "the header 'Authorization'" in message and "CAL_TOKEN" in message
    assert "control character" in message and TOKEN not in message


def test_vero_run_refuses_that_header_at_once_exit_2_without_the_token(tmp_path):
    config = {
        "mcpServers": {"cal": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${CAL_TOKEN}"}}}
    }
    write_config(tmp_path, json.dumps(config))
    done = vero(
        "run", "--debug", "--tools", "none", "--mcp-config", "mcp.json", "hi", cwd=tmp_path,
        OPENAI_API_KEY="sk-invented-key-0001", CAL_TOKEN=TOKEN + "\n",
    )  # fmt: skip
    assert done.returncode == 2 and "the header 'Authorization'" in done.stderr
    assert TOKEN not in done.stdout + done.stderr


def test_mcp_server_http_checks_its_headers_when_it_starts_and_shows_no_value():
    server = MCPServer.http("http://127.0.0.1:9/mcp", headers={"Authorization": f"Bearer {TOKEN}\n"}, name="cal")
    with pytest.raises(MCPError) as raised:
        server.start()
    assert "the header 'Authorization'" in str(raised.value) and TOKEN not in str(raised.value)


class EchoingServer(http.server.BaseHTTPRequestHandler):
    """An MCP endpoint whose error quotes the request's Authorization header: in its HTTP reason phrase, or in
    a JSON-RPC error."""

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        echoed = f"your header was {self.headers.get('Authorization')}"
        if self.path == "/reason":
            self.send_response(500, echoed)
            body = b""
        else:
            self.send_response(200)
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": echoed}}).encode()
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def echoing_url():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EchoingServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("path", ["/reason", "/rpc"])
def test_an_error_that_echoes_a_header_value_shows_it_masked(echoing_url, path):
    server = MCPServer.http(echoing_url + path, headers={"Authorization": f"Bearer {TOKEN}"}, name="cal")
    with pytest.raises(MCPError) as raised:
        server.start()
    message = str(raised.value)
    assert "your header was" in message and "***" in message and TOKEN not in message


# -- 2: a server name given twice in one layout -------------------------------------------------------------------
def test_a_server_name_given_twice_in_one_layout_is_an_error_naming_it_and_the_file(tmp_path):
    path = write_config(
        tmp_path,
        """{"mcpServers": {
          // comments and trailing commas are still read
          "notes": {"command": "python3", "args": ["notes_server.py"]},
          "notes": {"command": "/bin/true", "disabled": true},
        }}""",
    )
    with pytest.raises(MCPError) as raised:
        servers_from_config(path)
    assert str(raised.value) == (
        f"the MCP config {path} names the server 'notes' twice in \"mcpServers\" (JSON keeps only the last): "
        "give each server a name of its own"
    )


def test_a_field_given_twice_in_one_server_entry_is_an_error_naming_it(tmp_path):
    path = write_config(tmp_path, '{"servers": {"files": {"command": "python3", "args": ["a.py"], "args": ["b.py"]}}}')
    with pytest.raises(MCPError, match=r"server 'files': \"args\" is given twice"):
        servers_from_config(path)


def test_vero_run_says_a_duplicate_name_is_a_usage_error(tmp_path):
    write_config(tmp_path, '{"mcpServers": {"notes": {"command": "true"}, "notes": {"command": "false"}}}')
    done = vero(
        "run", "--tools", "none", "--mcp-config", "mcp.json", "hi", cwd=tmp_path, OPENAI_API_KEY="sk-invented-1"
    )
    assert done.returncode == 2 and "names the server 'notes' twice" in done.stderr and "mcp.json" in done.stderr


# -- 3: config values no process can carry, named by file, server and field ------------------------------------------
@pytest.mark.parametrize(
    "entry, says",
    [
        ({"command": "python3", "env": {"A=B": "1"}}, "env has the variable name 'A=B'"),
        ({"command": "python3", "args": ["ok", "a\u0000b"]}, "args[1] holds a NUL character"),
        ({"command": "python3", "args": ["\ud800"]}, "args[0] holds text that is not valid Unicode"),
        ({"command": "python3", "env": {"TOKEN": "a\u0000b"}}, "env TOKEN holds a NUL character"),
    ],
)
def test_a_value_no_process_can_carry_is_an_error_naming_the_file_the_server_and_the_field(tmp_path, entry, says):
    path = write_config(tmp_path, json.dumps({"mcpServers": {"files": entry}}))
    with pytest.raises(MCPError) as raised:
        servers_from_config(path)
    assert str(raised.value).startswith(f"the MCP config {path}, server 'files': {says}")


def test_vero_run_names_the_config_file_not_the_mcp_option(tmp_path):
    write_config(tmp_path, '{"mcpServers": {"files": {"command": "python3", "env": {"A=B": "1"}}}}')
    done = vero(
        "run", "--tools", "none", "--mcp-config", "mcp.json", "hi", cwd=tmp_path, OPENAI_API_KEY="sk-invented-1"
    )
    assert done.returncode == 2 and not done.stderr.startswith("vero: --mcp:")
    assert done.stderr.startswith("vero: the MCP config mcp.json, server 'files': env has the variable name 'A=B'")


def test_a_process_that_cannot_be_given_its_arguments_is_an_mcp_error_naming_the_server():
    with pytest.raises(MCPError, match=r"cannot start the MCP server 'files' .*null byte"):
        MCPServer.stdio("python3", ["a\0b"], name="files").start()


def test_a_config_file_that_is_not_utf8_says_so_with_the_byte(tmp_path):
    data = b'{"mcpServers": {"files": {"command": "caf\xe9"}}}'  # Latin-1, as an old editor saves it
    path = write_config(tmp_path, data)
    with pytest.raises(MCPError) as raised:
        servers_from_config(path)
    assert str(raised.value) == f"the MCP config {path} is not UTF-8 text (byte {data.index(0xE9)})"


@pytest.mark.parametrize("variable", ["workspaceFolder", "workspaceFolder:web", "userHome"])
def test_an_editor_variable_is_named_as_one_with_what_to_write_instead(tmp_path, monkeypatch, variable):
    monkeypatch.delenv(variable, raising=False)
    entry = {"type": "stdio", "command": "npx", "args": ["-y", "server-filesystem", "${" + variable + "}"]}
    path = write_config(tmp_path, json.dumps({"servers": {"files": entry}}))
    with pytest.raises(MCPError) as raised:
        servers_from_config(path)
    message = str(raised.value)
    assert f"server 'files': args[2] has ${{{variable}}}, a variable an editor" in message
    assert "absolute path" in message and os.getcwd() in message and "not set" not in message
