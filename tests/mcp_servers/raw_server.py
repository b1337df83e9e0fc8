"""An MCP server written by hand (no SDK), for the faults an SDK server would not make.

``python tests/mcp_servers/raw_server.py MODE``; the modes:

- ``garbage``: prints a line that is not JSON-RPC before each answer (a stray ``print``);
- ``only-garbage``: answers ``initialize`` with text that is not JSON-RPC, and exits;
- ``silent``: reads everything and never answers (not even ``initialize``);
- ``old-version``: answers ``initialize`` with a protocol version nobody speaks;
- ``pages``: gives its three tools one per page of ``tools/list``;
- ``endless``: gives a new page of ``tools/list`` forever;
- ``asks``: during a call, sends the client a ``ping`` and a ``sampling/createMessage`` request,
  and answers with what the client replied;
- ``rpc-error``: answers every ``tools/call`` with a JSON-RPC error;
- ``deep``: answers the first ``tools/call`` with a message nested 5,000 levels deep (10 KB), and
  sends such a notification before its answer to the second;
- ``stderr-flood``: before answering ``initialize``, writes ``MB`` megabytes (the next argument,
  default 32) to stderr with no newline, then ``the last words`` on a line of their own;
- ``family``: starts three processes that ignore SIGTERM: one in its process group, one in its own
  session (``setsid()``), and a daemon (a double fork: its parent has exited, it is in a session of
  its own); answers every call with their pids, as JSON;
- ``deaf``: once it has listed its tools, stops reading its stdin (it sleeps);
- ``bloated``: offers tools with a 15,000-character description, a 100 KB input schema, and ten
  of 40 KB each.
- ``text-ids``: echoes every request's id as text (``"1"`` for ``1``), as some servers do;
- ``null-id-error``: answers ``initialize`` with a JSON-RPC error whose id is null (one it could not read).
- ``choices``: offers as well a tool whose schema is a choice at its top (``anyOf`` of two objects, as zod's
  unions write it) and a tool called ``files_read``, the name ``files.read`` becomes for the model.

Every call is answered with its arguments as text; ``record`` answers with the server's environment
variable named by ``name``; ``quit`` ends the server (exit code 3) in the middle of the call; ``hang`` is
never answered; ``heard`` answers with the notifications the server got, as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else ""
BY_ID = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
BY_NAME = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "exact": {"type": "boolean"}},
    "required": ["name"],
}
CHOICES = [
    {"name": "find_item", "description": "Find an item by id or by name.", "inputSchema": {"anyOf": [BY_ID, BY_NAME]}},
    {"name": "files_read", "description": "A name with an underscore.", "inputSchema": {"type": "object"}},
]
TOOLS = [
    {
        "name": "echo",
        "description": "Echo the arguments.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "annotations": {"readOnlyHint": True},
    },
    {"name": "files.read", "description": "A name with a dot.", "inputSchema": {"type": "object"}},
    {
        "name": "record",
        "description": "An environment variable of the server.",
        "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
    },
    {"name": "quit", "description": "The server exits during the call.", "inputSchema": {"type": "object"}},
    {"name": "hang", "description": "Never answers.", "inputSchema": {"type": "object"}},
    {"name": "heard", "description": "The notifications heard so far.", "inputSchema": {"type": "object"}},
]
HEARD: list = []
STUBBORN = (
    "import os, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print(os.getpid(), flush=True); time.sleep(120)"
)
DAEMON = "import os; os.fork() and os._exit(0); os.setsid(); os.fork() and os._exit(0); " + STUBBORN


def stubborn_children() -> list[int]:
    """Three processes that ignore SIGTERM (their stderr is the server's): one in the server's process
    group, one that left it with ``setsid()``, one daemon; their pids, once all are ready."""
    children = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, start_new_session=alone)
        for code, alone in ((STUBBORN, False), (STUBBORN, True), (DAEMON, False))
    ]
    pids = [int(child.stdout.readline()) for child in children]
    children[2].wait()  # the daemon's first parent has exited
    return pids


def bloated_tools() -> list:
    def schema(size: int) -> dict:
        return {
            "type": "object",
            "properties": {f"p{i}": {"type": "string", "description": "x" * 90} for i in range(size // 100)},
        }

    wordy = {"name": "wordy", "description": "word " * 3000, "inputSchema": {"type": "object"}}
    big = {"name": "big_schema", "description": "A big schema.", "inputSchema": schema(100_000)}
    bulk = [{"name": f"bulk{i}", "description": "Bulk.", "inputSchema": schema(40_000)} for i in range(10)]
    return [TOOLS[0], wordy, big, *bulk]


def deep_message(rid) -> str:
    """A tools/call answer (or, for no ``rid``, a log notification) with 5,000 nested lists in it: 10 KB."""
    nested = "[" * 5000 + "]" * 5000
    if rid is None:
        return f'{{"jsonrpc": "2.0", "method": "notifications/message", "params": {{"data": {nested}}}}}'
    return f'{{"jsonrpc": "2.0", "id": {json.dumps(rid)}, "result": {{"content": [], "nested": {nested}}}}}'


CHILDREN = stubborn_children() if MODE == "family" else []
DEEP_SENT = []


def send(message: dict) -> None:
    if MODE == "text-ids" and message.get("id") is not None:
        message = {**message, "id": str(message["id"])}
    if MODE == "garbage":
        print("a stray print() of the server", flush=True)
    if MODE == "flood":  # a hundred stray lines before each message
        print("noise\n" * 100, end="", flush=True)
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive() -> dict | None:
    line = sys.stdin.readline()
    return json.loads(line) if line else None


def answer(request: dict) -> None:
    method, params, rid = request.get("method"), request.get("params") or {}, request.get("id")
    if method == "initialize" and MODE == "null-id-error":
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
        return
    if method == "initialize":
        if MODE == "stderr-flood":
            megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 32
            for _ in range(megabytes):
                sys.stderr.buffer.write(b"x" * (1024 * 1024))
            sys.stderr.buffer.write(b"\nthe last words\n")
            sys.stderr.flush()
        if MODE == "only-garbage":
            print("Server listening on port 8080", flush=True)
            sys.exit(1)
        version = "1999-01-01" if MODE == "old-version" else params["protocolVersion"]
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": True}},
                    "serverInfo": {"name": "raw", "version": "1"},
                },
            }
        )
    elif method == "tools/list":
        if MODE == "pages":
            page = int(params.get("cursor") or 0)
            result = {"tools": TOOLS[page : page + 1]}
            if page + 1 < len(TOOLS):
                result["nextCursor"] = str(page + 1)
        elif MODE == "endless":
            page = int(params.get("cursor") or 0)
            result = {
                "tools": [{"name": f"tool{page}", "inputSchema": {"type": "object"}}],
                "nextCursor": str(page + 1),
            }
        else:
            result = {"tools": bloated_tools() if MODE == "bloated" else TOOLS + (CHOICES if MODE == "choices" else [])}
        send({"jsonrpc": "2.0", "id": rid, "result": result})
        if MODE == "deaf":
            time.sleep(120)
    elif method == "tools/call":
        if MODE == "deep" and len(DEEP_SENT) < 2:
            DEEP_SENT.append(rid)
            sys.stdout.write(deep_message(rid if len(DEEP_SENT) == 1 else None) + "\n")
            sys.stdout.flush()
            if len(DEEP_SENT) == 1:
                return
        if MODE == "rpc-error":
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "Unknown tool: nope"}})
            return
        if params["name"] == "quit":
            sys.exit(3)
        if params["name"] == "hang":
            return
        arguments = params.get("arguments") or {}
        text = json.dumps(arguments, sort_keys=True)
        if params["name"] == "heard":
            text = json.dumps(HEARD)
        if params["name"] == "record":
            text = str(os.environ.get(arguments.get("name", ""), "(not set)"))
        if MODE == "family":
            text = json.dumps(CHILDREN)
        if MODE == "asks":
            send({"jsonrpc": "2.0", "id": "p1", "method": "ping"})
            send({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": {}})
            replies = [receive(), receive()]
            text = json.dumps([{k: r[k] for k in ("id", "result", "error") if k in r} for r in replies if r])
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}})


while True:
    message = receive()
    if message is None:
        break
    if "method" in message and "id" not in message:
        HEARD.append(message)
    if MODE != "silent" and "method" in message:
        answer(message)
