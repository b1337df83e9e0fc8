"""A Streamable HTTP MCP server written by hand (standard library only), for the faults of HTTP.

``python tests/mcp_servers/http_faults.py PORT`` serves it on 127.0.0.1; the tests start it in a
thread with ``serve()``.  What it does depends on the path of the request:

- ``/mcp``: a well-behaved server (JSON answers; one tool, ``ping_me``, answered ``pong``);
- ``/comments``: answers every request with an event stream that sends only SSE comments
  (``: keep-alive``), one every 0.2 s;
- ``/events``: answers ``tools/call`` with an event stream of log notifications, one every 0.1 s,
  and never the answer (the rest as ``/mcp``);
- ``/drip``: sends the status line, then one byte of a header every 0.2 s;
- ``/deep``: answers ``initialize`` with JSON nested 5,000 levels deep (10 KB);
- ``/away?to=URL&code=307``: redirects every request to URL (another origin, in the tests);
- ``/here?code=307``: redirects every request to ``/mcp`` on this server.

The endless answers stop after ``ENDLESS`` seconds, so that a client that never gives up is not
served forever.  Every request is recorded in ``SEEN`` as (method, path, headers with lower-case names).
"""

from __future__ import annotations

import http.server
import json
import sys
import threading
import time
import urllib.parse

ENDLESS = 10.0  # seconds an endless answer goes on
SEEN: list = []
RESULTS = {
    "initialize": {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "faults"}},
    "tools/list": {"tools": [{"name": "ping_me", "inputSchema": {"type": "object"}}]},
    "tools/call": {"content": [{"type": "text", "text": "pong"}]},
}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 - the name http.server calls
        self.record("GET")
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self):  # noqa: N802
        self.record("DELETE")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):  # noqa: N802
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        self.record("POST", message.get("method"))
        path, query = self.path.split("?", 1) if "?" in self.path else (self.path, "")
        options = dict(urllib.parse.parse_qsl(query))
        if path in ("/away", "/here"):
            self.send_response(int(options.get("code", 307)))
            self.send_header("Location", options["to"] if path == "/away" else "/mcp")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/comments":
            self.endless_stream(lambda: b": keep-alive\n\n", every=0.2)
        elif path == "/drip":
            self.drip()
        elif path == "/deep" and message.get("method") == "initialize":
            nested = "[" * 5000 + "]" * 5000
            self.send_json(f'{{"jsonrpc": "2.0", "id": {message["id"]}, "result": {nested}}}'.encode())
        elif path == "/events" and message.get("method") == "tools/call":
            news = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "tick"}}
            self.endless_stream(lambda: b"data: " + json.dumps(news).encode() + b"\n\n", every=0.1)
        else:
            self.answer(message)

    def answer(self, message: dict) -> None:
        if "id" not in message:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        result = RESULTS.get(message.get("method"), {})
        self.send_json(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode())

    def send_json(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def endless_stream(self, event, every: float) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        ends = time.monotonic() + ENDLESS
        try:
            while time.monotonic() < ends:
                self.wfile.write(event())
                self.wfile.flush()
                time.sleep(every)
        except OSError:
            pass  # the client has gone

    def drip(self) -> None:
        self.close_connection = True
        self.wfile.write(b"HTTP/1.1 200 OK\r\n")
        self.wfile.flush()
        ends = time.monotonic() + ENDLESS
        try:
            while time.monotonic() < ends:
                self.wfile.write(b"X")
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            pass

    def record(self, method: str, rpc: str | None = None) -> None:
        SEEN.append((method, self.path, rpc, {k.lower(): v for k, v in self.headers.items()}))

    def log_message(self, *args):
        pass


def serve(port: int = 0) -> tuple[http.server.ThreadingHTTPServer, str]:
    """The server on 127.0.0.1 (``port`` 0: any free one), serving on a daemon thread; and its base URL."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


if __name__ == "__main__":
    server, url = serve(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(url, flush=True)
    threading.Event().wait()
