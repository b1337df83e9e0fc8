"""Built-in tools: calculator safety, python_exec isolation, web_search against a
local fake server (no network), current_time, and the deprecated ``buildin`` aliases."""

from __future__ import annotations

import json
import os
import re
import socket
import sys
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

import vero.config
from vero.tools import Tool, ToolRegistry
from vero.tools.builtin import BUILTIN_TOOLS, calculator, current_time, python_exec, web_search
from vero.tools.builtin import search as search_module


@pytest.fixture(scope="module")
def tools() -> ToolRegistry:
    return ToolRegistry([calculator, python_exec, web_search, current_time])


# --------------------------------------------------------------------------- calculator


@pytest.mark.parametrize(
    "expression, result",
    [
        ("2 + 3", "5"),
        ("2 + 3 * 4", "14"),
        ("(2 + 3) * 4", "20"),
        ("-3 ** 2", "-9"),
        ("2 ** 3 ** 2", "512"),
        ("7 / 2", "3.5"),
        ("1 / 2", "0.5"),
        ("7 // 2", "3"),
        ("-7 % 3", "2"),
        ("+4 - -1", "5"),
        ("sqrt(16)", "4.0"),
        ("factorial(10)", "3628800"),
        ("log(e)", "1.0"),
        ("log(8, 2)", "3.0"),
        ("atan2(1, 1) * 4", "3.141592653589793"),
        ("round(2.567, 2)", "2.57"),
        ("max(1, 5, 3) + min(4, 2)", "7"),
        ("gcd(12, 18)", "6"),
        ("hypot(3, 4)", "5.0"),
        ("pow(2, 10)", "1024"),
        ("abs(-2.5)", "2.5"),
        ("floor(2.7) + ceil(2.1)", "5"),
        ("degrees(pi)", "180.0"),
        ("2 ** 100", str(2**100)),
    ],
)
def test_calculator_evaluates_arithmetic(tools, expression, result):
    out = tools.run("calculator", {"expression": expression})
    assert (out.output, out.ok) == (result, True)


def test_calculator_still_callable_directly():
    assert calculator("sin(0) + cos(0)") == "1.0"


HOSTILE = [
    "__import__('os').system('echo hacked')",
    "().__class__",
    "().__class__.__bases__[0].__subclasses__()",
    "open('f')",
    "[x for x in ()]",
    "lambda: 1",
    "a",
    "'str'",
    "9**9**9",
    "factorial(10**6)",
    "10**10**10",
    "2<<10**9",
    "exec('1')",
    "eval('1+1')",
    "sqrt(x=4)",
    "sqrt(*[4])",
    "math.sqrt(4)",
    "globals()",
    "__builtins__",
    "import os",
    "x = 1",
    "1; 2",
    "(1).real",
    "{'a': 1}",
    "f'{1}'",
    "True + 1",
    "1 if 1 else 0",
    "2 ** 20000",
    "factorial(1000) * factorial(1000)",
    "round(5, -10**9)",
    "pow(10, 10**10)",
    "1 < 2",
    "not 1",
    "1 & 3",
    "(" * 300 + "1" + ")" * 300,
    "1+" * 600 + "1",
    "abs",
    "",
]


@pytest.mark.parametrize("expression", HOSTILE)
def test_calculator_refuses_hostile_input_quickly(tools, expression):
    start = time.perf_counter()
    out = tools.run("calculator", {"expression": expression})
    assert time.perf_counter() - start < 2.0
    assert not out.ok and out.error == "exception"
    assert out.output.startswith("Error: tool 'calculator' raised ValueError: ")


def test_calculator_error_messages_say_what_was_wrong(tools):
    def message(expression: str) -> str:
        return tools.run("calculator", {"expression": expression}).output

    assert "unknown name 'a'" in message("a")
    assert "function '__import__' is not allowed" in message("__import__('os')")
    assert "attribute access (.sqrt)" in message("math.sqrt(4)")
    assert "too large" in message("9**9**9")
    assert "factorial argument too large" in message("factorial(10**6)")
    assert "too long" in message("1+" * 600 + "1")
    assert "use ** for powers" in message("2^3")
    assert "division by zero" in message("1/0")


# --------------------------------------------------------------------------- python_exec


def run_code(tools: ToolRegistry, code: str, **extra) -> str:
    out = tools.run("python_exec", {"code": code, **extra})
    assert out.ok, out.output
    return out.output


def test_python_exec_returns_stdout_and_exit_status(tools):
    assert run_code(tools, "print(6 * 7)") == "stdout:\n42\nexit status: 0"


def test_python_exec_captures_stderr_and_nonzero_exit(tools):
    out = run_code(tools, "import sys\nprint('oops', file=sys.stderr)\nsys.exit(3)")
    assert out == "stderr:\noops\nexit status: 3"
    traceback = run_code(tools, "1/0")
    assert "ZeroDivisionError" in traceback and traceback.endswith("exit status: 1")


def test_python_exec_cannot_see_the_parents_secrets(tools, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-parent-secret")
    monkeypatch.setenv("MY_SECRET", "hunter2")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-token")
    out = run_code(tools, "import json, os\nprint(json.dumps(dict(os.environ)))")
    assert "sk-parent-secret" not in out and "hunter2" not in out and "ghp-token" not in out
    child_env = json.loads(out.splitlines()[1])
    assert set(child_env) <= {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP"}
    assert child_env.get("PATH") == os.environ.get("PATH")


def test_python_exec_runs_in_an_empty_temporary_directory(tools):
    out = run_code(tools, "import os\nprint(os.getcwd())\nprint(os.listdir('.'))")
    cwd, listing = out.splitlines()[1:3]
    assert cwd != os.getcwd() and "vero-python-" in cwd
    assert listing == "[]"
    assert not os.path.exists(cwd)  # removed afterwards


def test_python_exec_times_out(tools):
    start = time.perf_counter()
    out = run_code(tools, "while True: pass", timeout=1)
    assert time.perf_counter() - start < 5
    assert out.endswith("timed out after 1 s")


def _alive_with(marker: str) -> list[int]:
    """Host pids of live processes whose command line contains ``marker``.

    The code runs in its own pid namespace, so a pid it prints means nothing
    out here; a unique marker in the command line finds the process anyway.
    """
    pids = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().split(")")[-1].split()[0]
        except (FileNotFoundError, ProcessLookupError, NotADirectoryError, PermissionError):
            continue
        if marker.encode() in cmdline and state != "Z":  # a zombie is dead
            pids.append(int(entry))
    return pids


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc to check the grandchild")
def test_python_exec_timeout_kills_children_too(tools):
    marker = f"vero-grandchild-{os.getpid()}-{time.monotonic_ns()}"
    code = (
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}])\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    out = run_code(tools, code, timeout=1)
    assert "timed out after 1 s" in out
    deadline = time.monotonic() + 2
    while _alive_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive_with(marker)


def test_python_exec_truncates_long_output_with_a_marker(tools):
    out = run_code(tools, "print('a' * 20000 + 'END')")
    assert "[10,004 characters cut]" in out  # 20,004 characters printed, 10,000 kept
    assert out.startswith("stdout:\naaaa") and "END\nexit status: 0" in out
    assert len(out) < 10_100


def test_python_exec_has_no_stdin(tools):
    assert "EOFError" in run_code(tools, "input()")


def test_python_exec_registry_timeout_exceeds_its_own():
    assert python_exec.timeout > 60


# --------------------------------------------------------------------------- web_search

DDG_HTML = """
<html><body>
<div class="result results_links">
  <h2 class="result__title">
    <a rel="nofollow" class="result__a"
       href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.python.org%2F&amp;rut=abc">Welcome to <b>Python</b>.org</a>
  </h2>
  <a class="result__snippet" href="#">The official home of the <b>Python</b> Programming Language.</a>
</div>
<div class="result results_links">
  <a class="result__a" href="https://docs.python.org/3/">Python 3 docs</a>
  <div class="result__snippet">Documentation   for
     Python 3.</div>
</div>
<div class="result result--ad">
  <a class="result__a" href="https://duckduckgo.com/y.js?ad_provider=x">Sponsored</a>
</div>
</body></html>
"""


class FakeSearchHandler(BaseHTTPRequestHandler):
    """Fakes Tavily (/tavily), Bocha (/bocha), DuckDuckGo (/ddg) and a failure (/fail)."""

    requests: list[dict] = []

    def log_message(self, *args):  # keep test output quiet
        pass

    def _reply(self, status: int, body: str, content_type: str = "application/json"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        if self.path == "/tavily":
            self._reply(
                200,
                json.dumps(
                    {
                        "results": [
                            {"title": "Tavily One", "url": "https://one.example", "content": "first snippet"},
                            {"title": "Tavily Two", "url": "https://two.example", "content": "second\nsnippet"},
                        ]
                    }
                ),
            )
        elif self.path == "/bocha":
            self._reply(
                200,
                json.dumps(
                    {
                        "code": 200,
                        "data": {
                            "webPages": {
                                "value": [
                                    {
                                        "name": "博查结果",
                                        "url": "https://bocha.example",
                                        "snippet": "short",
                                        "summary": "中文摘要",
                                    },
                                ]
                            }
                        },
                    }
                ),
            )
        else:
            self._reply(500, '{"error": "internal"}')

    def do_GET(self):
        query = parse_qs(urlparse(self.path).query)
        self.requests.append({"path": urlparse(self.path).path, "query": query, "agent": self.headers["User-Agent"]})
        if self.path.startswith("/ddg"):
            self._reply(200, DDG_HTML, "text/html; charset=utf-8")
        else:
            self._reply(500, "boom")


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeSearchHandler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def fake_search(server, monkeypatch):
    """Point every provider at the local server, with no keys configured."""
    monkeypatch.setenv("VERO_TAVILY_URL", f"{server}/tavily")
    monkeypatch.setenv("VERO_BOCHA_URL", f"{server}/bocha")
    monkeypatch.setenv("VERO_DDG_URL", f"{server}/ddg")
    FakeSearchHandler.requests.clear()

    def set_keys(tavily: str = "", bocha: str = "") -> None:
        # "" counts as unset and also stops a .env file from filling the variable in.
        monkeypatch.setenv("TAVILY_API_KEY", tavily)
        monkeypatch.setenv("BOCHA_API_KEY", bocha)
        vero.config.reload_settings()

    set_keys()
    yield set_keys
    monkeypatch.undo()
    vero.config.reload_settings()


def test_web_search_uses_tavily_when_its_key_is_set(tools, fake_search):
    fake_search(tavily="tvly-SECRET-123", bocha="bocha-SECRET")
    out = tools.run("web_search", {"query": "python", "max_results": 2}).output
    assert out == (
        "1. Tavily One — https://one.example\n   first snippet\n2. Tavily Two — https://two.example\n   second snippet"
    )
    [request] = FakeSearchHandler.requests
    assert request["path"] == "/tavily"
    assert request["body"]["api_key"] == "tvly-SECRET-123" and request["body"]["query"] == "python"
    assert request["body"]["max_results"] == 2
    assert "SECRET" not in out


def test_web_search_uses_bocha_when_only_its_key_is_set(tools, fake_search):
    fake_search(bocha="bocha-SECRET-456")
    out = tools.run("web_search", "量子计算").output  # a bare string goes to `query`
    assert out == "1. 博查结果 — https://bocha.example\n   中文摘要"
    [request] = FakeSearchHandler.requests
    assert request["path"] == "/bocha" and request["body"]["query"] == "量子计算"
    assert request["auth"] == "Bearer bocha-SECRET-456"
    assert "SECRET" not in out


def test_web_search_falls_back_to_duckduckgo_without_keys(tools, fake_search):
    out = tools.run("web_search", {"query": "python docs"}).output
    assert out == (
        "1. Welcome to Python.org — https://www.python.org/\n"
        "   The official home of the Python Programming Language.\n"
        "2. Python 3 docs — https://docs.python.org/3/\n"
        "   Documentation for Python 3."
    )
    [request] = FakeSearchHandler.requests
    assert request["path"] == "/ddg" and request["query"] == {"q": ["python docs"]}
    assert "Python-urllib" not in request["agent"]


def test_web_search_respects_max_results(tools, fake_search):
    out = tools.run("web_search", {"query": "python", "max_results": 1}).output
    assert out.startswith("1. Welcome") and "2." not in out


def test_web_search_http_error_becomes_an_observation_without_the_key(tools, fake_search, server, monkeypatch):
    monkeypatch.setenv("VERO_TAVILY_URL", f"{server}/fail")
    fake_search(tavily="tvly-SECRET-789")
    out = tools.run("web_search", {"query": "x"})
    assert out.ok  # a failed search is an answer the model can read, not a tool crash
    assert out.output.startswith("Search failed: tavily: HTTP 500")
    assert "SECRET" not in out.output


def test_web_search_connection_refused_becomes_an_observation(tools, fake_search, monkeypatch):
    with socket.socket() as s:  # find a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("VERO_BOCHA_URL", f"http://127.0.0.1:{port}/bocha")
    fake_search(bocha="bocha-SECRET")
    out = tools.run("web_search", {"query": "x"}).output
    assert out.startswith("Search failed: bocha: could not connect")
    assert "SECRET" not in out


def test_web_search_key_is_scrubbed_even_if_an_error_contains_it(fake_search, monkeypatch):
    def leaky_provider(query, max_results, api_key):
        raise RuntimeError(f"bad key {api_key}")

    monkeypatch.setattr(search_module, "tavily", leaky_provider)
    fake_search(tavily="tvly-SECRET-000")
    assert web_search("x") == "Search failed: tavily: RuntimeError: bad key ***"


@pytest.mark.filterwarnings("ignore:vero.tools.buildin is deprecated:DeprecationWarning")  # tested in test_imports
def test_alias_search_without_its_key_says_what_to_set(fake_search):
    from vero.tools.buildin import bocha_search, google_search

    assert google_search("x") == "Search failed: TAVILY_API_KEY is not set."
    assert bocha_search("x") == "Search failed: BOCHA_API_KEY is not set."


# --------------------------------------------------------------------------- current_time and packages


def test_current_time_is_iso_with_timezone(tools):
    out = tools.run("current_time", None).output
    stamp = out.split(" ")[0]
    parsed = datetime.fromisoformat(stamp)
    assert parsed.tzinfo is not None
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", stamp)
    assert abs((datetime.now(parsed.tzinfo) - parsed).total_seconds()) < 5


def test_builtin_package_exports():
    assert BUILTIN_TOOLS == {
        "calculator": calculator,
        "python": python_exec,
        "search": web_search,
        "time": current_time,
    }
    assert all(isinstance(t, Tool) for t in BUILTIN_TOOLS.values())
    assert [t.name for t in BUILTIN_TOOLS.values()] == ["calculator", "python_exec", "web_search", "current_time"]


@pytest.mark.filterwarnings("ignore:vero.tools.buildin is deprecated:DeprecationWarning")  # tested in test_imports
def test_buildin_alias_package_provides_the_original_names():
    namespace: dict = {}
    exec("from vero.tools.buildin import *", namespace)
    for name in ("math_calculator", "google_search", "bocha_search", "duckduckgo_search"):
        assert isinstance(namespace[name], Tool) and namespace[name].name == name
    for name in ("calculator", "python_exec", "web_search", "current_time"):
        assert (
            namespace[name]
            is BUILTIN_TOOLS[{"python_exec": "python", "web_search": "search", "current_time": "time"}.get(name, name)]
        )
    assert namespace["math_calculator"]("2 * 21") == "42"
    registry = ToolRegistry([namespace["math_calculator"], namespace["duckduckgo_search"]])
    assert registry.names() == ["math_calculator", "duckduckgo_search"]
    assert registry.run("math_calculator", "sqrt(81)").output == "9.0"
