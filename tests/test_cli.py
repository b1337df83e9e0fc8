"""The ``vero`` command, end to end as a user runs it.

Each test uses a ``MockOpenAIServer`` in this process and runs ``python -m vero ...``
against it (``--base-url``), with nothing configured in the environment, in an empty
working folder: through ``vero()``, which calls ``vero.cli.main`` in this process with
the environment, folder and standard streams of a subprocess (fast), or through
``vero_process()``, a real subprocess, for the tests about the process itself and for
one end-to-end run of each command (marked ``processes``: ``python -m pytest -m processes`` runs them).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import py_compile
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import CONFIG_VARS

from vero._mock_server import Fault
from vero.testing import HTTPFault, MockOpenAIServer

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def srv(shared_mock_server):
    """An empty, running MockOpenAIServer (reused between tests, reset for each: see mock_pool.py)."""
    return shared_mock_server


def cli_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS and "proxy" not in k.lower()}
    env.update(NO_COLOR="1", PYTHONPATH=str(ROOT), NO_PROXY="127.0.0.1,localhost", PYTHONIOENCODING="utf-8")
    env.update(extra)
    return env


def chat_with(srv, agent: str = "chat") -> tuple[str, ...]:
    """``vero chat`` with one agent, on the scripted server: the arguments most chat tests begin with."""
    return ("chat", "--agent", agent, "--base-url", srv.base_url)


def vero_process(*args, cwd, input=None, timeout=60, **env) -> subprocess.CompletedProcess:
    """``python -m vero ARGS`` as a real subprocess, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "vero", *args],
        cwd=cwd,
        input=input,
        env=cli_env(**env),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
    )


def vero(*args, cwd, input=None, timeout=60, **env) -> subprocess.CompletedProcess:
    """``python -m vero ARGS`` run in this process, as ``vero_process`` would run it, only faster
    (see ``run_cli_in_process``); ``timeout`` is accepted for the same signature."""
    return run_cli_in_process(list(args), cwd=cwd, input=input, environ=cli_env(**env))


def run_cli_in_process(args: list[str], *, cwd, input: str | None, environ: dict) -> subprocess.CompletedProcess:
    """``python -m vero ARGS`` run by calling ``vero.cli.main`` in this process.

    What ``python -m vero`` sees is recreated: the environment is exactly ``environ``,
    the working folder is ``cwd``, stdin holds ``input`` (end of input when None), stdout
    and stderr are captured as text (newlines translated as ``text=True`` does), and the
    exit code is ``main``'s return value or ``SystemExit``'s code.  Everything is restored
    afterwards, and modules imported from ``cwd`` (``--agent mymodule:Class``) are forgotten.
    Tests about the process itself (signals, logging set-up, imports at start-up) use
    ``vero_process``.
    """
    from vero import cli, config

    saved_env, saved_cwd, saved_path = dict(os.environ), os.getcwd(), list(sys.path)
    saved_streams, saved_modules = (sys.stdin, sys.stdout, sys.stderr), set(sys.modules)
    out, err = io.StringIO(), io.StringIO()
    folder = os.path.realpath(cwd)
    try:
        os.environ.clear()
        os.environ.update(environ)
        os.chdir(folder)
        sys.stdin, sys.stdout, sys.stderr = io.StringIO(input or ""), out, err
        config.reload_settings()
        try:
            code = cli.main(list(args))
        except SystemExit as exit_:
            code = exit_.code
            if code is None:
                code = 0
            elif not isinstance(code, int):  # sys.exit("message"): printed, exit status 1
                print(code, file=err)
                code = 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        sys.path[:] = saved_path
        for name in set(sys.modules) - saved_modules:
            path = getattr(sys.modules[name], "__file__", None) or ""
            if os.path.realpath(path).startswith(folder + os.sep):
                del sys.modules[name]
        config.reload_settings()

    def text(stream: io.StringIO) -> str:  # as subprocess.run(text=True): universal newlines
        return stream.getvalue().replace("\r\n", "\n").replace("\r", "\n")

    return subprocess.CompletedProcess([sys.executable, "-m", "vero", *args], code, text(out), text(err))


def contents(request: dict) -> list[str]:
    return [m.get("content") or "" for m in request["messages"]]


# --------------------------------------------------------------------------- help and start-up


@pytest.mark.processes
def test_help_lists_the_commands(tmp_path):
    done = vero_process("--help", cwd=tmp_path)
    assert done.returncode == 0
    for command in ("chat", "run", "demo"):
        assert command in done.stdout
    run_help = vero_process("run", "--help", cwd=tmp_path)
    for option in (
        "--agent",
        "--model",
        "--base-url",
        "--api-key",
        "--tools",
        "--max-turns",
        "--load",
        "--trace",
        "--quiet",
        "--debug",
        "--json",
    ):
        assert option in run_help.stdout
    help_text = " ".join(run_help.stdout.split())  # argparse wraps the lines
    assert (
        "--max-turns N the agent's loop budget: model calls that may use tools (chat, default 10), "
        "Thought/Action turns (react, 10), critiques (reflection, 3), executed plan steps (plan, 20), "
        "attempts (reflexion, 3)"
    ) in help_text


@pytest.mark.processes
def test_importing_the_cli_loads_neither_openai_nor_the_agents(tmp_path):
    code = (
        "import sys, vero.cli; print('openai' in sys.modules, any(m.startswith('vero.agents.') for m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=cli_env(), capture_output=True, text=True)
    assert done.stdout.split() == ["False", "False"]


# --------------------------------------------------------------------------- vero run


@pytest.mark.processes
def test_run_prints_steps_answer_status_and_elapsed(srv, tmp_path):
    srv.enqueue("Final Answer: Paris is the capital of France.")
    done = vero_process(
        "run", "What is the capital of France?", "--tools", "none", "--base-url", srv.base_url, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "👤 User Input: What is the capital of France?" in done.stdout
    assert "🏁 Final Answer (ok): Paris is the capital of France." in done.stdout  # the library's footer
    assert "⏳ Elapsed: " in done.stdout and " 1 model call, " in done.stdout
    assert contents(srv.requests[0])[-1] == "What is the capital of France?"
    assert "tools" not in srv.requests[0]  # --tools none


def test_run_quiet_prints_the_answer_alone(srv, tmp_path):
    srv.enqueue('Thought: multiply\nAction: calculator\nAction Input: {"expression": "6*7"}', "Final Answer: 42")
    done = vero("run", "6*7?", "--agent", "react", "-q", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "42\n" and done.stderr == ""  # A=$(vero run -q ...) captures the bare answer


def test_run_quiet_says_a_status_other_than_ok_on_stderr_and_in_the_exit_code(srv, tmp_path):
    srv.enqueue(*['Thought: again\nAction: calculator\nAction Input: {"expression": "1+1"}'] * 2, "2")
    done = vero("run", "1+1?", "--agent", "react", "-q", "--max-turns", "2", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 1
    assert "the run ended max_turns" in done.stderr and "the run ended" not in done.stdout


def test_run_quiet_puts_a_failure_on_stderr_and_nothing_on_stdout(srv, tmp_path):
    srv.enqueue(HTTPFault(401, "bad key"))
    done = vero("run", "hi", "-q", "--tools", "none", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert "HTTP 401" in done.stderr


def test_run_json_prints_only_the_run_result(srv, tmp_path):
    srv.enqueue(
        'Thought: I need the product.\nAction: calculator\nAction Input: {"expression": "1299 * 85 / 100"}',
        "Final Answer: 1104.15",
    )
    done = vero(
        "run",
        "1299 at 15% off?",
        "--agent",
        "react",
        "--tools",
        "calculator",
        "--json",
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)  # nothing but the JSON on stdout
    assert result["status"] == "ok" and result["answer"] == "1104.15"
    assert result["llm_calls"] == 2
    kinds = [step["kind"] for step in result["steps"]]
    assert kinds[:3] == ["thought", "action", "observation"]
    assert result["steps"][2]["content"] == "1104.15"  # the real calculator ran


def test_run_reads_the_task_from_stdin(srv, tmp_path):
    srv.enqueue("Final Answer: Hello!")
    done = vero("run", "-", "--tools", "none", "--base-url", srv.base_url, input="Say hello\n", cwd=tmp_path)
    assert done.returncode == 0
    assert contents(srv.requests[0])[-1].strip() == "Say hello"
    assert "Final Answer (ok): Hello!" in done.stdout


@pytest.mark.parametrize(
    "data, says",
    [(b"caf\xe9 au lait", r"not UTF-8 text \(byte 3\)"), (b"x" * ((16 << 20) + 1), "larger than 16 MiB")],
)
def test_a_task_on_stdin_that_is_not_text_or_too_large_is_a_usage_error(monkeypatch, data, says):
    from vero.cli import CliError, read_task

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    with pytest.raises(CliError, match=says):
        read_task("-")


@pytest.mark.parametrize(
    "option, url, says",
    [
        ("--base-url", "http://[::1", "is not a valid URL"),
        ("--base-url", "http://localhost:99999/v1", "Port out of range"),
        ("--mcp", "http://[::1", "--mcp: Invalid IPv6 URL"),
    ],
)
def test_a_url_that_cannot_be_read_is_a_usage_error(tmp_path, option, url, says):
    done = vero("run", "hi", "--tools", "none", option, url, cwd=tmp_path, OPENAI_API_KEY="sk-test")
    assert done.returncode == 2 and says in done.stderr


def test_run_with_a_non_ok_status_exits_1(srv, tmp_path):
    critique = json.dumps({"is_sufficient": False, "feedback": "Too vague."})
    srv.enqueue("A draft.", critique)
    done = vero(
        "run", "Explain water.", "--agent", "reflection", "--max-turns", "1", "--base-url", srv.base_url, cwd=tmp_path
    )
    assert done.returncode == 1
    assert "🧐 Final Answer (needs_review): A draft." in done.stdout


NO_TOOLS_AGENT = """
from vero import Agent, Message

class Short(Agent):
    uses_tools = False

    def solve(self, task, **kwargs):
        return f"tools: {self.tools.names()} " + self.call_llm([Message.user(task)]).text
"""


@pytest.mark.parametrize("tools", [["--tools", "calculator"], []])
def test_a_custom_agent_that_uses_no_tools_is_given_none_as_the_note_says(srv, tmp_path, tools):
    (tmp_path / "short.py").write_text(NO_TOOLS_AGENT)
    srv.enqueue("Hi.")
    done = vero("run", "hi", "--agent", "short:Short", *tools, "-q", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "tools: [] Hi.\n"  # not the --tools given, nor the default ones
    assert ("Short uses no tools; --tools calculator is ignored." in done.stderr) == bool(tools)


PRINTING_AGENT = """
from vero import tool
from vero.agents import ToolCallingAgent

@tool(read_only=True)
def fetch_report(name: str) -> str:
    \"\"\"Fetch a report.\"\"\"
    print("Downloading report... 100%")
    return "revenue: 42"

class Reports(ToolCallingAgent):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tools.register(fetch_report)
"""


@pytest.mark.parametrize("flag", ["--json", "-q"])
def test_what_a_tool_prints_goes_to_stderr_under_json_and_quiet(srv, tmp_path, flag):
    (tmp_path / "reports.py").write_text(PRINTING_AGENT)
    srv.enqueue({"tool_calls": [{"name": "fetch_report", "arguments": {"name": "q3"}}]}, "Revenue was 42.")
    done = vero("run", "Revenue of q3?", "--agent", "reports:Reports", flag, "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)["answer"] if flag == "--json" else done.stdout  # stdout: the result alone
    assert shown.strip() == "Revenue was 42." and "Downloading report... 100%" in done.stderr


@pytest.mark.parametrize("command", [["run", "hello"], ["chat"]])
def test_unconfigured_prints_a_few_short_lines_and_exits_2(tmp_path, command):
    done = vero(*command, cwd=tmp_path, input="hello\n")
    assert done.returncode == 2
    assert "OPENAI_API_KEY" in done.stderr and "OPENAI_BASE_URL" in done.stderr and "MODEL_NAME" in done.stderr
    assert "--base-url" in done.stderr and "Ollama" in done.stderr and "vero demo" in done.stderr
    lines = done.stderr.strip().splitlines()
    assert 2 <= len(lines) <= 4 and all(len(line) <= 80 for line in lines)
    assert "ChatOpenAI" not in done.stderr and "api_key=" not in done.stderr  # no Python advice
    assert "Traceback" not in done.stderr + done.stdout


def test_api_error_is_one_line_without_traceback(tmp_path):
    with MockOpenAIServer(responder=lambda body: HTTPFault(500)) as server:
        done = vero("run", "hello", "--base-url", server.base_url, cwd=tmp_path, MAX_RETRIES="0")
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("❌ model call failed (HTTP 500)")
    assert "Traceback" not in done.stderr + done.stdout
    assert "=\n⏳ Elapsed: " in done.stdout and "no model call succeeded" in done.stdout
    assert "❌" not in done.stdout  # the error line on stderr says it failed, once


def test_debug_shows_the_traceback_but_never_the_api_key(tmp_path):
    secret = "sk-very-secret-key-123"
    with MockOpenAIServer(responder=lambda body: HTTPFault(500)) as server:
        done = vero_process(
            "run", "hello", "--debug", "--api-key", secret, "--base-url", server.base_url, cwd=tmp_path, MAX_RETRIES="0"
        )
        assert server.request_log[0].headers["authorization"] == f"Bearer {secret}"  # it was used
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "LLMCallError" in done.stderr
    assert "DEBUG" in done.stderr  # logging is at DEBUG level
    assert secret not in done.stderr + done.stdout


def test_unknown_tool_is_a_usage_error(srv, tmp_path):
    done = vero("run", "hi", "--tools", "calculator,teleport", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 2
    assert "teleport" in done.stderr and "calculator" in done.stderr
    assert srv.requests == []


def test_run_writes_a_trace_file(srv, tmp_path):
    srv.enqueue("Final Answer: Hi.")
    done = vero("run", "hello", "--trace", "trace.jsonl", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 0
    events = [json.loads(line)["type"] for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert events[0] == "run_start" and events[-1] == "run_end"


# --------------------------------------------------------------------------- vero chat


@pytest.mark.processes
def test_chat_keeps_the_conversation_and_streams(srv, tmp_path):
    srv.enqueue("Nice to meet you, Ada.", "Your name is Ada.")
    done = vero_process(
        *chat_with(srv),
        cwd=tmp_path,
        input="My name is Ada.\nWhat is my name?\nbye\n",
    )
    assert done.returncode == 0, done.stderr
    assert "Assistant: Nice to meet you, Ada." in done.stdout
    assert "Assistant: Your name is Ada." in done.stdout
    assert done.stdout.rstrip().endswith("Bye.")
    second = srv.requests[1]
    assert second["stream"] is True  # the chat agent streams tokens
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert contents(second)[1:] == ["My name is Ada.", "Nice to meet you, Ada.", "What is my name?"]


def test_chat_ends_cleanly_at_end_of_input(srv, tmp_path):
    srv.enqueue("Hello!")
    done = vero("chat", "--agent", "chat", "--base-url", srv.base_url, cwd=tmp_path, input="hi\n")
    assert done.returncode == 0
    assert "Assistant: Hello!" in done.stdout and "Bye." in done.stdout
    assert "Traceback" not in done.stderr


def test_chat_slash_commands(srv, tmp_path):
    srv.enqueue(
        {
            "content": "",
            "tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        },
        {"content": "It is 42.", "usage": {"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23}},
    )
    lines = ["/help", "/tools", "What is 6*7?", "/history", "/usage", "/nope", "/reset", "/history", "bye"]
    done = vero("chat", "--agent", "chat", "--base-url", srv.base_url, cwd=tmp_path, input="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "/save FILE" in out and "/verbose on|off" in out  # /help
    assert "- calculator: Evaluate an arithmetic expression" in out  # /tools
    assert "- current_time:" in out
    assert "🔧 Action: calculator" in out and "👀 Observation: 42" in out  # verbose steps
    assert "Assistant: It is 42." in out
    assert 'user: What is 6*7?\n  🔧 calculator({"expression":"6*7"})\nassistant: It is 42.' in out  # /history
    assert "2 model calls, 38 tokens (30 prompt + 8 completion)" in out  # /usage
    assert "Unknown command /nope. Type /help for the list." in out
    assert "Conversation cleared." in out and "(no conversation yet)" in out  # /reset, then /history


def test_chat_verbose_off_hides_the_steps(srv, tmp_path):
    srv.enqueue({"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]}, "42.")
    done = vero("chat", "--agent", "chat", "--base-url", srv.base_url, cwd=tmp_path, input="/verbose off\n6*7?\nbye\n")
    assert "Verbose off." in done.stdout
    assert "Action" not in done.stdout and "Assistant: 42." in done.stdout


def test_chat_save_then_load_restores_the_conversation(srv, tmp_path):
    srv.enqueue("Noted: the code word is heron.")
    first = vero(
        *chat_with(srv),
        cwd=tmp_path,
        input="Remember the code word heron.\n/save conv.json\nbye\n",
    )
    assert "Saved 2 messages to conv.json." in first.stdout
    saved = json.loads((tmp_path / "conv.json").read_text())
    assert [m["content"] for m in saved["history"]] == [
        "Remember the code word heron.",
        "Noted: the code word is heron.",
    ]

    srv.enqueue("The code word is heron.")
    second = vero(
        "chat",
        "--agent",
        "chat",
        "--load",
        "conv.json",
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
        input="What is the code word?\nbye\n",
    )
    assert second.returncode == 0
    assert "Loaded 2 messages from conv.json." in second.stdout
    assert contents(srv.requests[-1])[1:] == [
        "Remember the code word heron.",
        "Noted: the code word is heron.",
        "What is the code word?",
    ]

    srv.enqueue("Still heron.")
    third = vero(
        *chat_with(srv),
        cwd=tmp_path,
        input="/load conv.json\nAnd now?\n/load missing.json\nbye\n",
    )
    assert "Loaded 2 messages from conv.json." in third.stdout
    assert contents(srv.requests[-1])[1:3] == ["Remember the code word heron.", "Noted: the code word is heron."]
    assert "❌" in third.stdout and "missing.json" in third.stdout  # a bad file is one line, the session goes on
    assert third.returncode == 0


def test_chat_load_of_a_corrupt_file_exits_2(srv, tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    done = vero("chat", "--load", "bad.json", "--base-url", srv.base_url, cwd=tmp_path, input="bye\n")
    assert done.returncode == 2
    assert "bad.json" in done.stderr and "Traceback" not in done.stderr


def test_chat_survives_an_api_error(srv, tmp_path):
    srv.enqueue(HTTPFault(500), "Recovered.")
    done = vero(
        *chat_with(srv),
        cwd=tmp_path,
        MAX_RETRIES="0",
        input="first question\nsecond question\nbye\n",
    )
    assert done.returncode == 0
    failures = [line for line in done.stdout.splitlines() if "❌" in line]
    assert len(failures) == 1 and "model call failed (HTTP 500)" in failures[0]
    assert "Assistant: Recovered." in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert "first question" not in contents(srv.requests[-1])  # a failed turn leaves no history


def test_chat_switches_agent_and_keeps_history(srv, tmp_path):
    srv.enqueue("Hi Bob.", "Thought: I remember it.\nFinal Answer: Your name is Bob.")
    done = vero(
        *chat_with(srv),
        cwd=tmp_path,
        input="I am Bob.\n/agent react\nWho am I?\n/agent\nbye\n",
    )
    assert "Switched to ReActAgent; the conversation is kept." in done.stdout
    assert "Assistant: Your name is Bob." in done.stdout
    assert "Current agent: react (ReActAgent)" in done.stdout
    react_request = srv.requests[1]
    assert "Final Answer" in contents(react_request)[0]  # the ReAct protocol prompt
    assert "I am Bob." in contents(react_request) and "Hi Bob." in contents(react_request)


def test_chat_agent_with_an_unknown_name_says_so_and_keeps_the_agent(srv, tmp_path):
    srv.enqueue("Hi.")
    done = vero("chat", "--agent", "chat", "--base-url", srv.base_url, cwd=tmp_path, input="/agent bogus\nhello\nbye\n")
    assert done.returncode == 0, done.stderr
    assert (
        "Unknown agent 'bogus'; choose one of chat, react, reflection, plan, reflexion, "
        "or package.module:ClassName. Still using chat (ToolCallingAgent)."
    ) in done.stdout
    assert "Switched" not in done.stdout and "Current agent" not in done.stdout
    assert "Assistant: Hi." in done.stdout
    assert srv.requests[0]["stream"] is True  # still the chat agent


def run_start(trace: Path) -> dict:
    return json.loads(trace.read_text().splitlines()[0])


def test_run_without_agent_runs_text_react_for_a_local_model(srv, tmp_path):
    srv.enqueue('Thought: multiply\nAction: calculator\nAction Input: {"expression": "6*7"}', "Final Answer: 42")
    done = vero("run", "6*7?", "-q", "--trace", "t.jsonl", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "42\n"  # the text Action ran and the Final Answer ended the run
    assert run_start(tmp_path / "t.jsonl")["cls"] == "ReActAgent"
    assert "tools" not in srv.requests[0] and "Final Answer" in contents(srv.requests[0])[0]  # the text protocol


def test_chat_without_agent_says_react_agent_for_a_local_model(srv, tmp_path):
    done = vero("chat", "--base-url", srv.base_url, cwd=tmp_path, input="/agent\nbye\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("vero chat: ReActAgent; tools: calculator, current_time.")
    assert "Current agent: react (ReActAgent)" in done.stdout


def test_without_agent_a_hosted_model_gets_the_chat_agent_and_agent_still_wins(srv, tmp_path, monkeypatch):
    from vero.core.chat_openai import ChatOpenAI

    monkeypatch.setattr(ChatOpenAI, "hosted", property(lambda self: True))  # the mock listens on 127.0.0.1
    srv.enqueue({"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]}, "42")
    done = vero("run", "6*7?", "-q", "--trace", "t.jsonl", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "42\n" and run_start(tmp_path / "t.jsonl")["cls"] == "ToolCallingAgent"
    assert srv.requests[0]["tools"]  # native tool calls
    chat = vero("chat", "--base-url", srv.base_url, cwd=tmp_path, input="bye\n")
    assert chat.stdout.startswith("vero chat: ToolCallingAgent; ")
    react = vero("chat", "--agent", "react", "--base-url", srv.base_url, cwd=tmp_path, input="bye\n")
    assert react.stdout.startswith("vero chat: ReActAgent; ")


def test_chat_plan_agent_asks_for_approval(srv, tmp_path):
    srv.enqueue(json.dumps({"steps": ["Say hi."]}))
    done = vero("chat", "--agent", "plan", "--base-url", srv.base_url, cwd=tmp_path, input="Greet me.\nn\nbye\n")
    assert "📋 Plan: 1. [ ] Say hi." in done.stdout
    # the reply is echoed (stdin is not a terminal), then one line says what happens
    assert "Approve plan? [y]es / [n]o / or type feedback: n\n🚫 Plan refused; nothing was run.\n" in done.stdout
    assert "Approval:" not in done.stdout  # the agent's approval step would only repeat it
    assert "status rejected" in done.stdout
    assert len(srv.requests) == 1  # a refused plan never runs


def test_chat_plan_approval_reads_as_a_question_and_its_answer(srv, tmp_path):
    srv.enqueue(
        json.dumps({"steps": ["Say hi."]}),
        json.dumps({"steps": ["Say hello in French."]}),
        "Final Answer: Bonjour !",
        json.dumps({"response": "Bonjour !"}),
    )  # the replanner answers
    done = vero(
        *chat_with(srv, "plan"),
        cwd=tmp_path,
        input="Greet me.\nin French please\ny\nbye\n",
    )
    assert done.returncode == 0, done.stderr
    prompt = "Approve plan? [y]es / [n]o / or type feedback: "
    assert (
        f"{prompt}in French please\n🔄 Sending your feedback to the planner for a new plan.\n"
        "📋 Plan: 1. [ ] Say hello in French.\n"
        f"{prompt}y\n✅ Plan approved; running it.\n▶️ Step started: [>] Say hello in French."
    ) in done.stdout
    assert "Approval" not in done.stdout and "True" not in done.stdout
    assert "Assistant: Bonjour !" in done.stdout


def test_chat_plan_approval_at_end_of_input_refuses_the_plan(srv, tmp_path):
    srv.enqueue(json.dumps({"steps": ["Say hi."]}))
    done = vero("chat", "--agent", "plan", "--base-url", srv.base_url, cwd=tmp_path, input="Greet me.\n")
    assert done.returncode == 0, done.stderr
    assert "🚫 No reply (end of input): the plan is refused." in done.stdout
    assert "status rejected" in done.stdout and done.stdout.rstrip().endswith("Bye.")
    assert len(srv.requests) == 1 and "Traceback" not in done.stderr


def test_chat_plan_feedback_then_approval_runs_the_plan(srv, tmp_path):
    srv.enqueue(
        json.dumps({"steps": ["Say hi."]}),
        json.dumps({"steps": ["Say hello in French."]}),
        "Final Answer: Bonjour !",
        json.dumps({"response": "Bonjour !"}),
    )  # the replanner answers
    done = vero(
        "chat",
        "--agent",
        "plan",
        "-q",
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
        input="Greet me.\nin French please\ny\nbye\n",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Approve plan?") == 2
    assert "1. [ ] Say hello in French." in done.stdout  # -q: the gate shows the plan itself
    assert "in French please" in contents(srv.requests[1])[-1]  # the feedback went to the planner
    assert "Assistant: Bonjour !" in done.stdout


def _read_into(stream, sink: list[str]) -> None:
    for chunk in iter(lambda: stream.read(1), ""):
        sink.append(chunk)


def _wait_for(predicate, timeout=60.0) -> None:  # a subprocess on a busy machine may take long to start
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


def start_vero(*args: str, cwd) -> subprocess.Popen:
    """``vero ARGS`` in a process of its own, unbuffered, its three streams piped (text)."""
    return subprocess.Popen(
        [sys.executable, "-m", "vero", *args],
        cwd=cwd,
        env=cli_env(PYTHONUNBUFFERED="1"),
        text=True,
        encoding="utf-8",
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.processes
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT semantics")
def test_chat_ctrl_c_cancels_the_run_and_a_second_one_exits(srv, tmp_path, sigint_default):
    srv.enqueue(Fault.sleep(30, "too late"), "Fine, thanks.")
    proc = start_vero("chat", "--base-url", srv.base_url, cwd=tmp_path)
    out: list[str] = []
    threading.Thread(target=_read_into, args=(proc.stdout, out), daemon=True).start()
    try:
        proc.stdin.write("slow question\n")
        proc.stdin.flush()
        _wait_for(lambda: len(srv.requests) == 1)
        proc.send_signal(signal.SIGINT)  # Ctrl-C during the run
        _wait_for(lambda: "Cancelled" in "".join(out))
        proc.stdin.write("how are you?\n")
        proc.stdin.flush()
        _wait_for(lambda: "Fine, thanks." in "".join(out))
        _wait_for(lambda: "".join(out).endswith("You: "))
        proc.send_signal(signal.SIGINT)  # once at the prompt: a hint
        after_answer = lambda: "".join(out).rsplit("Fine, thanks.", 1)[1]  # noqa: E731
        _wait_for(lambda: "Ctrl-C again" in after_answer() and after_answer().endswith("You: "))
        proc.send_signal(signal.SIGINT)  # twice in a row: leave
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    text = "".join(out)
    assert "⏹ Cancelled; the conversation is unchanged." in text
    assert text.rstrip().endswith("Bye.")
    assert "Traceback" not in proc.stderr.read()
    assert contents(srv.requests[1])[1:] == ["how are you?"]  # the cancelled turn left no history


@pytest.mark.processes
@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM semantics")
def test_sigterm_during_a_run_ends_it_as_ctrl_c_does_with_its_json_and_exit_143(srv, tmp_path):
    srv.enqueue(Fault.sleep(30, "too late"))
    proc = start_vero("run", "slow question", "--json", "--tools", "none", "--base-url", srv.base_url, cwd=tmp_path)
    try:
        _wait_for(lambda: len(srv.requests) == 1)
        proc.send_signal(signal.SIGTERM)  # what timeout(1), kill or a cancelled CI job sends
        assert proc.wait(timeout=15) == 143
    finally:
        if proc.poll() is None:
            proc.kill()
    assert json.loads(proc.stdout.read())["status"] == "cancelled"
    assert "Traceback" not in proc.stderr.read()


# --------------------------------------------------------------------------- vero demo and examples


@pytest.mark.processes
def test_demo_runs_every_agent_offline_and_exits_0(tmp_path):
    done = vero_process("demo", cwd=tmp_path, timeout=90)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "scripted model, not a real LLM" in out
    for name in ("ToolCallingAgent", "BasicReflectionAgent", "ReActAgent", "PlanExecuteAgent", "ReflexionAgent"):
        assert f"🚀 {name} `demo`" in out
    assert out.count("🏁 Final Answer (ok): ") == 5
    assert "🏁 Final Answer (ok): You pay $1,192.48." in out
    assert "👀 Observation: 1192.482" in out  # the real calculator tool ran
    assert "OPENAI_API_KEY" in out and "--base-url" in out  # how to use a real model


def test_every_example_compiles(tmp_path):
    examples = sorted((ROOT / "examples").glob("*.py"))
    names = {path.name for path in examples}
    assert {
        "chat_repl.py",
        "single_turn.py",
        "custom_tool.py",
        "custom_agent.py",
        "basic_reflection.py",
        "react_calculator.py",
        "plan_execute_research.py",
        "reflexion_coding.py",
    } <= names
    for path in examples:
        py_compile.compile(str(path), doraise=True, cfile=str(tmp_path / (path.name + "c")))


def load_example(name: str):
    """An example script as a module (its ``__main__`` block does not run)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CALCULATE = 'Thought: compute it\nAction: calculator\nAction Input: {"expression": "6*7"}'

CAREFUL_AT_END_OF_INPUT = """
import sys
sys.path.insert(0, {examples!r})
from custom_agent import CarefulReActAgent
from vero.testing import ScriptedLLM
from vero.tools.builtin import calculator
llm = ScriptedLLM([{calculate!r}, "Thought: I could not compute it.\\nFinal Answer: unknown"])
agent = CarefulReActAgent("careful", llm, tools=[calculator], verbose=False)
print("ANSWER", agent.run("6*7?"), agent.last_result.status)
print("ACTIONS RUN", len(agent.last_result.steps_of("action")))
print("OBSERVATION", llm.requests[1].messages[-1]["content"])
print("WARNING", agent.last_result.steps_of("warning")[0].content)
"""


@pytest.mark.processes
def test_custom_agent_example_treats_end_of_input_as_no(tmp_path):
    code = CAREFUL_AT_END_OF_INPUT.format(examples=str(ROOT / "examples"), calculate=CALCULATE)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "EOFError" not in done.stderr
    assert "Run calculator({'expression': '6*7'})? [y/N] \n" in done.stdout  # it asked, then saw no input
    assert "ANSWER unknown ok" in done.stdout
    assert "ACTIONS RUN 0" in done.stdout  # the tool did not run
    assert "OBSERVATION Observation: The user refused to run this tool." in done.stdout  # the model was told
    assert "WARNING the user refused to run calculator" in done.stdout


def test_custom_agent_example_runs_the_tool_when_the_user_says_yes(monkeypatch, capsys):
    example = load_example("custom_agent")
    from vero.testing import ScriptedLLM
    from vero.tools.builtin import calculator

    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    llm = ScriptedLLM([CALCULATE, "Thought: done\nFinal Answer: 42"])
    agent = example.CarefulReActAgent("careful", llm, tools=[calculator], verbose=False)
    assert agent.run("6*7?") == "42"
    assert [s.content for s in agent.last_result.steps_of("observation")] == ["42"]
    assert "Observation: 42" in llm.requests[1].messages[-1]["content"]


def test_single_turn_example_prints_the_answer_and_the_time_once(monkeypatch, capsys):
    example = load_example("single_turn")
    from vero.testing import ScriptedLLM

    monkeypatch.setattr(example, "ChatOpenAI", lambda: ScriptedLLM([CALCULATE, "Thought: done\nFinal Answer: 42"]))
    assert example.test_single_turn_agent(example.ReActAgent, "6*7?") == "42"
    out = capsys.readouterr().out
    assert out.count("Final Answer") == 1 and "🏁 Final Answer (ok): 42" in out
    assert out.count("Elapsed") == 1  # the run's own time, from the agent's printer
    assert out.count("Total time, creating the client included:") == 1
    assert "🔧 Action: calculator(expression='6*7')" in out  # the steps are shown


# --------------------------------------------------------------------------- review fixes


def test_run_with_an_unwritable_trace_file_is_a_configuration_error(srv, tmp_path):
    done = vero(
        "run",
        "hello",
        "--trace",
        str(tmp_path / "no" / "such" / "dir" / "t.jsonl"),
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vero: cannot write the trace file ") and "t.jsonl" in lines[0]
    assert "❌" not in done.stderr and srv.requests == []


MALFORMED = ["echo: hi", "echo: hi", "echo: hi"]  # three replies without Action or Final Answer


def test_run_that_failed_does_not_print_its_partial_as_the_answer(srv, tmp_path):
    srv.enqueue(*MALFORMED)
    done = vero("run", "say hi", "--agent", "react", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 1
    assert "🏁 Final Answer" not in done.stdout  # (the steps' warnings mention `Final Answer:`)
    assert "❌ Run failed; partial, not kept: echo: hi" in done.stdout
    errors = [line for line in done.stderr.splitlines() if "❌" in line]
    assert len(errors) == 1 and "malformed replies" in errors[0]
    srv.enqueue(*MALFORMED)
    quiet = vero("run", "say hi", "--agent", "react", "-q", "--base-url", srv.base_url, cwd=tmp_path)
    assert quiet.returncode == 1 and quiet.stdout == ""  # -q: no answer, and the partial is none


def test_chat_run_that_failed_does_not_print_its_partial_as_the_answer(srv, tmp_path):
    srv.enqueue(*MALFORMED, "Thought: ok\nFinal Answer: hi")
    done = vero(
        "chat", "--agent", "react", "-q", "--base-url", srv.base_url, cwd=tmp_path, input="say hi\nagain\nbye\n"
    )
    assert done.returncode == 0, done.stderr
    assert "Assistant: echo" not in done.stdout
    assert "(partial, not kept): echo: hi" in done.stdout
    assert len([line for line in done.stdout.splitlines() if "❌" in line]) == 1
    assert "Assistant: hi" in done.stdout
    assert "say hi" not in contents(srv.requests[-1])  # the failed turn left no history


def test_run_prints_the_answer_once(srv, tmp_path):
    srv.enqueue('Thought: multiply\nAction: calculator\nAction Input: {"expression": "6*7"}', "Final Answer: 42")
    done = vero("run", "6*7?", "--agent", "react", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("42") == 2  # the observation and the answer: no second end-of-run block
    assert done.stdout.count("Final Answer") == 1 and done.stdout.count("Elapsed") == 1


def test_chat_text_of_consecutive_model_calls_starts_on_new_lines(srv, tmp_path):
    srv.enqueue(
        {"content": "Let me compute that.", "tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}]},
        "It is 4.",
    )
    done = vero("chat", "--agent", "chat", "-q", "--base-url", srv.base_url, cwd=tmp_path, input="2+2?\nbye\n")
    assert done.returncode == 0, done.stderr
    assert "that.It is" not in done.stdout
    assert "Assistant: Let me compute that.\nAssistant: It is 4.\n" in done.stdout
    assert done.stdout.count("It is 4.") == 1  # streamed, not printed again


def test_chat_with_the_reflection_pattern_says_it_uses_no_tools(srv, tmp_path):
    done = vero(
        *chat_with(srv, "reflection"),
        cwd=tmp_path,
        input="/tools\n/agent react\n/tools\n/agent reflection\nbye\n",
    )
    assert done.returncode == 0, done.stderr
    banner = done.stdout.splitlines()[0]
    assert "BasicReflectionAgent" in banner and "this pattern uses no tools" in banner
    assert "BasicReflectionAgent uses no tools" in done.stdout
    assert "- calculator:" in done.stdout  # /tools after switching to react lists them
    assert done.stdout.count("- calculator:") == 1
    assert "Switched to BasicReflectionAgent; the conversation is kept. This pattern uses no tools." in done.stdout
    chat = vero("chat", "--base-url", srv.base_url, cwd=tmp_path, input="bye\n")
    assert "tools: calculator, current_time" in chat.stdout.splitlines()[0]


@pytest.mark.parametrize("status, hint", [(401, "OPENAI_API_KEY"), (404, "MODEL_NAME")])  # 400: test_providers.py
def test_common_http_errors_come_with_a_hint(status, hint):
    from vero.cli import error_line
    from vero.errors import LLMCallError

    line = error_line(LLMCallError(f"model call failed (HTTP {status}): nope", status=status))
    assert line.startswith(f"model call failed (HTTP {status})") and hint in line
    assert "Hint" not in error_line(LLMCallError("model call failed (HTTP 500): down", status=500))


def test_run_recovery_small_model_turns_the_preset_on_and_off_turns_text_calls_off(srv, tmp_path):
    srv.enqueue("3 * 4 = 13", "3 * 4 = 12")
    done = vero(
        "run",
        "3 times 4?",
        "--agent",
        "chat",
        "--tools",
        "none",
        "--recovery",
        "small-model",
        "-q",
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert contents(srv.requests[1])[-1].startswith("Correction: 3 * 4 = 12, not 13.")  # the arithmetic rule
    written = '{"name": "calculator", "arguments": {"expression": "6*7"}}'
    srv.enqueue(written)
    done = vero("run", "6*7?", "--agent", "chat", "--recovery", "off", "-q", "--base-url", srv.base_url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert written in done.stdout and len(srv.requests) == 3  # taken as the answer: no call was run
