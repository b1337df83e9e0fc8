"""A newcomer's first hour with vero, item by item: each test pins one fix.

The CLI is run as ``python -m vero`` would run (in this process, see test_cli.py's
``vero``) against a ``MockOpenAIServer`` in this process, with nothing configured, in an
empty folder; ``python -m vero.testing serve`` and the examples run as real subprocesses.
"""

from __future__ import annotations

import importlib.util
import io
import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from test_cli import ROOT, cli_env  # the shared helpers
from test_cli import vero as vero_cli

import vero
from vero.testing import Fault, HTTPFault, MockOpenAIServer, ScriptedLLM


@pytest.fixture
def srv(shared_mock_server):
    """An empty, running MockOpenAIServer (reused between tests, reset for each: see mock_pool.py)."""
    return shared_mock_server


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --------------------------------------------------------------------------- 4. a silent, slow server


def test_a_server_that_never_answers_is_reported_while_waiting_and_on_each_retry(tmp_path, quick_sdk_backoff):
    with MockOpenAIServer(responder=lambda body: Fault.sleep(30, "too late")) as server:
        url = server.base_url
        started = time.monotonic()
        done = vero_cli("run", "hi", "--base-url", url, cwd=tmp_path, TIMEOUT="0.6", MAX_RETRIES="1")
        took = time.monotonic() - started
    assert done.returncode == 1
    err = done.stderr
    assert f"⏳ waiting for gpt-4o-mini at {url}: no reply after 0.2 s (attempt 1/2" in err
    assert f"🔁 retrying (2/2) {url}: no reply within 0.6 s (timed out)" in err
    final = [line for line in err.splitlines() if line.startswith("❌")]
    assert len(final) == 1 and "APITimeoutError" in final[0]
    assert "TIMEOUT=0.6" in final[0] and "MAX_RETRIES=1" in final[0] and url in final[0]
    assert "no model call succeeded" in done.stdout
    assert took < 20


def test_retries_are_events_of_the_model_client_that_any_printer_can_show(quick_sdk_backoff):
    from vero.core.chat_openai import ChatOpenAI
    from vero.core.events import ConsolePrinter
    from vero.core.message import Message

    fast_retry = {"retry-after-ms": "1"}
    with MockOpenAIServer([HTTPFault(503, headers=fast_retry), Fault.disconnect(), "Hello."]) as server:
        llm = ChatOpenAI(model_name="m", base_url=server.base_url, api_key="k", max_retries=2)
        events, printed = [], io.StringIO()
        llm.callbacks += [events.append, ConsolePrinter(stream=printed)]
        assert llm.generate([Message.user("hi")]).text == "Hello."
        url = server.base_url
    retries = [e.data for e in events if e.type == "llm_retry"]
    assert [(r["attempt"], r["max_attempts"]) for r in retries] == [(2, 3), (3, 3)]
    assert retries[0]["reason"] == "HTTP 503" and retries[0]["url"] == url
    assert [e.type for e in events].count("llm_request") == 3
    assert printed.getvalue().splitlines()[0] == f"🔁 retrying (2/3) {url}: HTTP 503"


def test_no_listener_means_no_attempt_events():
    from vero.core import chat_openai

    with MockOpenAIServer(["Hi."]) as server:
        llm = chat_openai.ChatOpenAI(model_name="m", base_url=server.base_url, api_key="k")
        seen = []
        original = chat_openai.Event
        chat_openai.Event = lambda *a: seen.append(a) or original(*a)  # type: ignore[misc]
        try:
            llm.generate([{"role": "user", "content": "hi"}])
        finally:
            chat_openai.Event = original  # type: ignore[misc]
    assert seen == []


# --------------------------------------------------------------------------- 5. connection refused


def test_connection_refused_names_the_url_and_how_to_start_a_server(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    done = vero_cli("run", "hi", "--base-url", url, cwd=tmp_path, MAX_RETRIES="0")
    assert done.returncode == 1
    error = [line for line in done.stderr.splitlines() if line.startswith("❌")]
    assert len(error) == 1
    assert f"cannot connect to {url}: is the server running?" in error[0]
    assert "ollama serve" in error[0] and "llama-server" in error[0]
    assert "no model call succeeded" in done.stdout and "0 model calls" not in done.stdout


def test_chat_checks_the_endpoint_at_start_and_warns_at_once(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    done = vero_cli("chat", "--base-url", url, cwd=tmp_path, input="bye\n")
    assert done.returncode == 0  # a warning, not an exit
    assert f"cannot connect to {url}: is the server running?" in done.stderr
    assert done.stdout.rstrip().endswith("Bye.")


def test_chat_warns_about_a_model_the_server_does_not_list(srv, tmp_path):
    done = vero_cli("chat", "--base-url", srv.base_url, cwd=tmp_path, input="bye\n")
    assert "does not list the model 'gpt-4o-mini' (it lists: mock-model)" in done.stderr
    assert "MODEL_NAME" in done.stderr and "--model" in done.stderr
    quiet = vero_cli("chat", "--base-url", srv.base_url, "--model", "mock-model", cwd=tmp_path, input="bye\n")
    assert quiet.stderr == ""
    assert [r.url_path for r in srv.request_log] == ["/v1/models", "/v1/models"]  # GET only, no chat request


def test_chat_says_nothing_when_the_server_has_no_models_endpoint(srv, tmp_path):
    srv.add_route("GET", "/v1/models", lambda request: (404, {}, {"error": {"message": "no such route"}}))
    done = vero_cli("chat", "--base-url", srv.base_url, cwd=tmp_path, input="bye\n")
    assert done.returncode == 0 and done.stderr == ""


def test_chat_starts_when_the_model_list_has_ids_that_are_no_text(srv, tmp_path):
    srv.add_route("GET", "/v1/models", lambda request: (200, {}, {"data": [{"id": 1}, {"id": None}, {}]}))
    done = vero_cli("chat", "--base-url", srv.base_url, cwd=tmp_path, input="bye\n")
    assert done.returncode == 0 and "TypeError" not in done.stderr and done.stdout.rstrip().endswith("Bye.")


# --------------------------------------------------------------------------- 6. nothing configured
# (tests/test_cli.py::test_unconfigured_prints_a_few_short_lines_and_exits_2)


def test_the_library_keeps_its_python_advice():
    from vero.core.chat_openai import CONFIG_HELP

    assert "api_key=" in CONFIG_HELP and "OPENAI_BASE_URL" in CONFIG_HELP


# --------------------------------------------------------------------------- 7. version


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_flag(tmp_path, flag):
    done = vero_cli(flag, cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout == f"vero {vero.__version__}\n"


# --------------------------------------------------------------------------- 8. your own agent

MY_AGENTS = '''
from vero import Agent, Message


class ShoutAgent(Agent):
    """Answers in capitals."""

    def solve(self, task, **kwargs):
        return self.call_llm([*self.history_messages(), Message.user(task)]).text.upper()


class NotAnAgent:
    pass
'''


def test_run_with_your_own_agent_class(srv, tmp_path):
    (tmp_path / "myagents.py").write_text(MY_AGENTS)
    srv.enqueue("hello there")
    done = vero_cli("run", "--agent", "myagents:ShoutAgent", "hi", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "🚀 ShoutAgent `vero`" in done.stdout and "🏁 Final Answer (ok): HELLO THERE" in done.stdout


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nosuchmodule:Thing", "cannot import nosuchmodule:Thing: no module named 'nosuchmodule'"),
        ("myagents:Missing", "module myagents has no class 'Missing'; its agents: ShoutAgent"),
        ("myagents:NotAnAgent", "myagents:NotAnAgent is not an Agent: it is a class that does not subclass vero.Agent"),
        ("myagents:Message", "myagents:Message is not an Agent"),
    ],
)
def test_a_bad_agent_class_is_a_clear_usage_error(srv, tmp_path, spec, message):
    (tmp_path / "myagents.py").write_text(MY_AGENTS)
    done = vero_cli("run", "--agent", spec, "hi", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert srv.requests == []


def test_an_unknown_agent_name_is_a_usage_error(tmp_path):
    done = vero_cli("run", "--agent", "bogus", "hi", cwd=tmp_path)
    assert done.returncode == 2 and "package.module:ClassName" in done.stderr


def test_chat_switches_to_your_own_agent(srv, tmp_path):
    (tmp_path / "myagents.py").write_text(MY_AGENTS)
    srv.enqueue("quiet words")
    done = vero_cli(
        "chat",
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
        input="/agent myagents:Missing\n/agent myagents:ShoutAgent\nsay it\nbye\n",
    )
    assert done.returncode == 0, done.stderr
    assert "❌ module myagents has no class 'Missing'" in done.stdout
    assert "Switched to ShoutAgent; the conversation is kept." in done.stdout
    assert "Assistant: QUIET WORDS" in done.stdout


# --------------------------------------------------------------------------- 9. python -m vero.testing serve


def start_serve(tmp_path, replies, *extra):
    path = tmp_path / "replies.json"
    path.write_text(json.dumps(replies))
    proc = subprocess.Popen(
        [sys.executable, "-m", "vero.testing", "serve", "--replies", str(path), *extra],
        cwd=tmp_path,
        env=cli_env(PYTHONUNBUFFERED="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    first = proc.stdout.readline()
    match = re.search(r"(http://127\.0\.0\.1:\d+/v1)", first)
    assert match, first + proc.stderr.read()
    return proc, match.group(1), first


def post(url: str, model: str = "mock-model") -> tuple[int, dict]:
    request = urllib.request.Request(
        url + "/chat/completions",
        method="POST",
        data=json.dumps({"model": model, "messages": []}).encode(),
        headers={"content-type": "application/json"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def stop(proc) -> int:
    proc.send_signal(signal.SIGINT)
    return proc.wait(timeout=15)


@pytest.mark.processes
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT semantics")
def test_serve_plays_the_replies_in_order_then_repeats_the_last(tmp_path, sigint_default):
    proc, url, first = start_serve(
        tmp_path, ["One.", {"status": 404, "message": "model not found"}, "Final Answer: Last."]
    )
    try:
        assert "3 scripted replies (then the last repeats)" in first and "Ctrl-C" in first
        answers = [post(url) for _ in range(4)]
        done = vero_cli("run", "hi", "--tools", "none", "--base-url", url, cwd=tmp_path)
    finally:
        code = stop(proc)
    assert answers[0][1]["choices"][0]["message"]["content"] == "One."
    assert answers[1] == (404, {"error": {"message": "model not found", "type": "not_found_error", "code": None}})
    assert [a[1]["choices"][0]["message"]["content"] for a in answers[2:]] == ["Final Answer: Last."] * 2
    assert "🏁 Final Answer (ok): Last." in done.stdout  # the vero command works against it
    assert code == 0 and "Traceback" not in proc.stderr.read()


@pytest.mark.processes
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT semantics")
def test_serve_answers_404_for_an_unknown_model_and_500_once_the_script_ends(tmp_path, sigint_default):
    proc, url, first = start_serve(tmp_path, {"replies": ["Only."], "then": "error", "models": ["llama3.1"]})
    try:
        assert "--model llama3.1" in proc.stdout.readline()
        unknown = post(url, "gpt-4o-mini")
        served = post(url, "llama3.1")
        over = post(url, "llama3.1")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        listed = json.loads(opener.open(url + "/models", timeout=10).read())
    finally:
        stop(proc)
    assert unknown[0] == 404 and "model 'gpt-4o-mini' not found" in unknown[1]["error"]["message"]
    assert served[1]["choices"][0]["message"]["content"] == "Only."
    assert over[0] == 500 and "no scripted reply left" in over[1]["error"]["message"]
    assert [m["id"] for m in listed["data"]] == ["llama3.1"]


@pytest.mark.processes
def test_serve_rejects_a_bad_replies_file(tmp_path):
    (tmp_path / "bad.json").write_text(json.dumps([{"sleep": 1, "then": {"bogus": 1}}]))
    done = subprocess.run(
        [sys.executable, "-m", "vero.testing", "serve", "--replies", "bad.json"],
        cwd=tmp_path,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and "cannot use bad.json" in done.stderr and "bogus" in done.stderr


# --------------------------------------------------------------------------- 10. the demo


def test_demo_tours_five_agents_in_80_columns_and_shows_each_draft_once(tmp_path):
    done = vero_cli("demo", cwd=tmp_path, timeout=90)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "🚀 ToolCallingAgent `demo`" in out and "# 1/5 ToolCallingAgent" in out
    assert "👀 Observation: 31622400" in out
    headers = [line for line in out.splitlines() if line.startswith("#") or line.startswith("vero demo")]
    assert headers and all(len(line) <= 80 for line in headers)
    assert out.count("except json.JSONDecodeError:") == 1  # the revision, not again as the answer
    assert "🏁 Final Answer (ok): (the revision above)" in out
    assert "▶️ Step started: [>] Find the dates" in out and "✅ Step done: [x] Find the dates" in out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    "stream, fast, paced", [(_Terminal, False, True), (_Terminal, True, False), (io.StringIO, False, False)]
)
def test_demo_is_paced_only_on_a_terminal_without_fast(monkeypatch, stream, fast, paced):
    from vero import _demo

    pauses = []
    monkeypatch.setattr(time, "sleep", pauses.append)
    out = stream()
    assert _demo.run_demo(out=out, fast=fast) == 0
    assert bool(pauses) is paced
    if paced:
        assert set(pauses) == {_demo.STEP_PAUSE_S, _demo.STOP_PAUSE_S} and max(pauses) < 2


# --------------------------------------------------------------------------- 11. the examples


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"newcomer_example_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLES = sorted(path.name for path in (ROOT / "examples").glob("*.py"))


@pytest.mark.processes
@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_exits_2_with_a_short_message_when_nothing_is_configured(tmp_path, name):
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)],
        cwd=tmp_path,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) <= 2 and "OPENAI_API_KEY" in done.stderr and "MODEL_NAME" in done.stderr


CODE = "```python\nimport json\n\ndef parse_json(text):\n    return json.loads(text)\n```"
ACCEPT = json.dumps({"is_sufficient": True, "feedback": ""})


def test_basic_reflection_example_prints_the_answer_and_the_time_once(monkeypatch, capsys):
    example = load_example("basic_reflection")
    monkeypatch.setattr(example, "ChatOpenAI", lambda: ScriptedLLM([CODE, ACCEPT]))
    assert example.main(["code"]) == 0
    out = capsys.readouterr().out
    assert out.count("Final Answer") == 1 and out.count("Elapsed") == 1
    assert "🏁 Final Answer (ok): ```python" in out
    assert "Write a Python function parse_json" in example.TASKS["code"]  # English by default


def test_basic_reflection_example_exits_1_when_the_run_failed(monkeypatch, capsys):
    from vero.errors import LLMCallError

    example = load_example("basic_reflection")
    monkeypatch.setattr(example, "ChatOpenAI", lambda: ScriptedLLM([LLMCallError("model call failed: down")]))
    assert example.main(["code"]) == 1
    assert "Run failed" in capsys.readouterr().out


def test_basic_reflection_example_keeps_the_original_tasks_documented():
    source = (ROOT / "examples" / "basic_reflection.py").read_text(encoding="utf-8")
    assert "original vero repository" in source and "水是可以燃烧的" in source
    assert "water is flammable" in source  # the comment says what the original task asks for
    example = load_example("basic_reflection")
    assert {"original-code", "original-water"} <= set(example.TASKS)


def test_chat_repl_example_survives_ctrl_c_during_a_reply(monkeypatch, capsys):
    example = load_example("chat_repl")

    def interrupted(messages):
        raise KeyboardInterrupt

    monkeypatch.setattr(example, "ChatOpenAI", lambda: ScriptedLLM([interrupted, "Fine, thanks."]))
    monkeypatch.setattr(sys, "stdin", io.StringIO("slow question\nhow are you?\nbye\n"))
    assert example.main() == 0
    out = capsys.readouterr().out
    assert "(cancelled)" in out and "Fine, thanks." in out


@pytest.mark.parametrize(
    "name, replies",
    [
        (
            "react_calculator",
            [
                'Thought: compute\nAction: calculator\nAction Input: {"expression": "6*7"}',
                "Thought: done\nFinal Answer: 42",
            ],
        ),
        ("custom_tool", ["Thought: done\nFinal Answer: 42 GBP"]),
        ("basic_reflection", [CODE, ACCEPT]),
    ],
)
def test_examples_print_the_answer_once_and_exit_0(monkeypatch, capsys, name, replies):
    import runpy

    monkeypatch.setattr(vero, "ChatOpenAI", lambda **kwargs: ScriptedLLM(list(replies)))
    monkeypatch.setattr(sys, "argv", [name])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_path(str(ROOT / "examples" / f"{name}.py"), run_name="__main__")
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.count("Final Answer") == 1 and out.count("Elapsed") == 1, out


# --------------------------------------------------------------------------- 12. one footer


def test_the_cli_and_the_library_print_the_same_footer():
    from vero.agents import ReActAgent
    from vero.cli import print_result
    from vero.core.events import ConsolePrinter

    library = io.StringIO()
    agent = ReActAgent("t", ScriptedLLM(["Final Answer: 42"]), verbose=False)
    agent.events.callbacks.append(ConsolePrinter(stream=library))
    agent.run("6*7?")
    cli = io.StringIO()
    print_result(agent.last_result, out=cli, err=io.StringIO())
    footer = library.getvalue().splitlines()[-2:]
    assert footer[0] == "🏁 Final Answer (ok): 42" and footer[1].startswith("⏳ Elapsed: ")
    assert cli.getvalue().splitlines()[0] == footer[0]
    assert re.sub(r"[\d.]+ s,", "", cli.getvalue().splitlines()[1]) == re.sub(r"[\d.]+ s,", "", footer[1])


# --------------------------------------------------------------------------- 13. docstrings and vero.agents


@pytest.mark.processes
def test_vero_agents_is_an_attribute_after_import_vero(tmp_path):
    code = (
        "import sys, vero; print(any(m.startswith('vero.agents') for m in sys.modules)); "
        "print(vero.agents.ReActAgent.__name__, vero.batch.run_many.__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=cli_env(), capture_output=True, text=True)
    assert done.stdout.split() == ["False", "ReActAgent", "run_many"], done.stderr


def test_public_helpers_have_docstrings():
    import vero.batch
    from vero.core.events import Event
    from vero.core.result import RunResult

    for item in (RunResult.steps_of, RunResult.to_dict, RunResult.to_json, ScriptedLLM.generate, Event):
        assert item.__doc__ and len(item.__doc__.strip()) > 20, item
    assert set(vero.batch.__all__) == {"run_many", "run_one"}


# --------------------------------------------------------------------------- 14. small things


def test_run_says_when_the_pattern_ignores_the_tools(srv, tmp_path):
    srv.enqueue("A draft.", json.dumps({"is_sufficient": True, "feedback": ""}))
    done = vero_cli("run", "--agent", "reflection", "--tools", "python", "hi", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "BasicReflectionAgent uses no tools; --tools python is ignored." in done.stderr
    default = vero_cli("run", "--agent", "reflection", "hi", "--base-url", srv.base_url, cwd=tmp_path)
    assert "ignored" not in default.stderr  # the default tools are not the user's choice


def test_history_shows_the_tool_calls_and_the_banner_fits_80_columns(srv, tmp_path):
    srv.enqueue(
        {
            "tool_calls": [
                {"name": "calculator", "arguments": {"expression": "2**10"}},
                {"name": "current_time", "arguments": {}},
            ]
        },
        "1024, at noon.",
    )
    model = "a-model-with-a-rather-long-name-to-make-the-banner-wrap"
    done = vero_cli(
        "chat",
        "--agent",
        "chat",
        "-q",
        "--base-url",
        srv.base_url,
        "--model",
        model,
        cwd=tmp_path,
        input="2**10 and the time?\n/history\nbye\n",
    )
    assert done.returncode == 0, done.stderr
    banner = done.stdout.split("You: ")[0].splitlines()
    assert len(banner) >= 3 and all(len(line) <= 80 for line in banner)
    assert model in done.stdout.split("You: ")[0] and "Type /help" in banner[-1]
    history = done.stdout.split("You: ")[2].splitlines()
    assert history[:4] == [
        "user: 2**10 and the time?",
        '  🔧 calculator({"expression":"2**10"})',
        "  🔧 current_time({})",
        "assistant: 1024, at noon.",
    ]


def test_every_status_has_its_own_footer_icon_and_only_ok_the_finish_flag():
    from vero.core.events import STATUS_ICONS, footer_lines
    from vero.core.result import Status

    assert set(STATUS_ICONS) == set(Status)
    firsts = {status: footer_lines(status, "x", 1.0, 1, {})[0] for status in Status}
    assert [status for status, line in firsts.items() if line.startswith("🏁")] == [Status.OK]
