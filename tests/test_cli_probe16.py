"""Faults a probe of the ``vero`` command found: an option given an empty value (``--model "$MODEL"`` with the
variable unset) silently meant the default, and Ctrl-C under ``--json`` printed no JSON at all."""

from __future__ import annotations

import errno
import json
import signal
import sys
import threading

import pytest
from test_cli import _read_into, _wait_for, start_vero, vero
from test_cli_probe15 import GoneStdout, run_with_stdout

from vero import cli
from vero._mock_server import Fault
from vero.testing import ScriptedLLM


@pytest.fixture
def srv(shared_mock_server):
    return shared_mock_server


def endpoint(srv) -> dict:
    """The settings of a working endpoint: what an empty option used to fall back to, silently."""
    return {"OPENAI_BASE_URL": srv.base_url, "MODEL_NAME": "the-default-model", "MAX_RETRIES": "0"}


# -- 1: an option given an empty value is a usage error, not the default -----------------------------------------
VALUE_OPTIONS = [
    "--model",
    "--base-url",
    "--api-key",
    "--tools",
    "--load",
    "--trace",
    "--record",
    "--replay",
    "--mcp",
    "--mcp-config",
    "--mcp-trust",
    "--output-schema",
]


@pytest.mark.parametrize("value", ["", "  ", "\t\u200b"])
@pytest.mark.parametrize("option", VALUE_OPTIONS)
def test_vero_run_refuses_an_option_given_an_empty_value(srv, tmp_path, option, value):
    srv.enqueue("Final Answer: from the default model")  # what a run that ignored the option would get
    done = vero("run", "--agent", "react", option, value, "hi", cwd=tmp_path, **endpoint(srv))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == "" and srv.requests == []
    assert done.stderr.startswith(f"vero: {option} is empty: give it a value") and len(done.stderr.splitlines()) == 1


def test_the_equals_form_and_vero_chat_are_refused_too(srv, tmp_path):
    done = vero("run", "--model=", "hi", cwd=tmp_path, **endpoint(srv))
    assert (done.returncode, done.stderr) == (2, "vero: --model is empty: give it a value, or leave it out\n")
    done = vero("chat", "--base-url", "", cwd=tmp_path, input="hi\nbye\n", **endpoint(srv))
    assert done.returncode == 2 and done.stderr.startswith("vero: --base-url is empty") and srv.requests == []


def test_an_empty_tools_list_says_how_to_ask_for_no_tools(srv, tmp_path):
    done = vero("run", "--tools", "", "hi", cwd=tmp_path, **endpoint(srv))
    assert done.returncode == 2 and "(none: no tools)" in done.stderr
    done = vero("run", "--tools", " , ", "hi", cwd=tmp_path, **endpoint(srv))  # "$A,$B" with both unset
    assert done.returncode == 2 and done.stderr.startswith("vero: --tools ' , ' names no tool")


def test_demo_refuses_an_empty_trace_file(tmp_path):
    done = vero("demo", "--fast", "--trace", "", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("vero: --trace is empty")


# -- 2: Ctrl-C under --json still prints one JSON object, status cancelled ---------------------------------------
def interrupted(messages):
    raise KeyboardInterrupt  # the user's Ctrl-C, during the second model call


STEP = 'Thought: add\nAction: calculator\nAction Input: {"expression": "2+2"}'


def test_ctrl_c_under_json_prints_the_cancelled_result(tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "make_llm", lambda args: ScriptedLLM([STEP, interrupted]))
    done = vero("run", "--json", "--agent", "react", "--tools", "calculator", "What is 2+2?", cwd=tmp_path)
    assert done.returncode == 130 and done.stderr == "\nInterrupted.\n"
    result = json.loads(done.stdout)  # one object, nothing else
    assert result["status"] == "cancelled" and result["task"] == "What is 2+2?"
    assert result["llm_calls"] == 1 and "action" in [step["kind"] for step in result["steps"]]
    assert result["error"]["type"] == "KeyboardInterrupt"


def test_ctrl_c_under_json_before_the_run_began_prints_an_empty_cancelled_result(tmp_path, monkeypatch):
    def starting(args):
        raise KeyboardInterrupt  # e.g. while an MCP server starts

    monkeypatch.setattr(cli, "make_llm", starting)
    done = vero("run", "--json", "What is 2+2?", cwd=tmp_path)
    assert done.returncode == 130
    result = json.loads(done.stdout)
    assert (result["status"], result["task"]) == ("cancelled", "What is 2+2?")
    assert (result["llm_calls"], result["steps"], result["answer"]) == (0, [], "")


def test_ctrl_c_under_json_exits_130_when_the_reader_has_gone_too(tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "make_llm", lambda args: ScriptedLLM([interrupted]))  # `| jq`, killed by the same Ctrl-C
    code, _ = run_with_stdout(["run", "--json", "What is 2+2?"], GoneStdout(errno.EPIPE, 0), tmp_path, monkeypatch)
    assert code == 130


def test_ctrl_c_without_json_is_unchanged(tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "make_llm", lambda args: ScriptedLLM([STEP, interrupted]))
    done = vero("run", "--agent", "react", "--tools", "calculator", "What is 2+2?", cwd=tmp_path)
    assert done.returncode == 130 and done.stderr == "\nInterrupted.\n"
    assert "Observation: 4" in done.stdout and "Final Answer" not in done.stdout and "{" not in done.stdout
    monkeypatch.setattr(cli, "make_llm", lambda args: ScriptedLLM([interrupted]))
    done = vero("run", "-q", "What is 2+2?", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "\nInterrupted.\n")


@pytest.mark.processes
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT semantics")
def test_a_real_ctrl_c_under_json_prints_the_cancelled_result(srv, tmp_path, sigint_default):
    srv.enqueue(Fault.sleep(30, "too late"))
    proc = start_vero("run", "--json", "--base-url", srv.base_url, "slow question", cwd=tmp_path)
    out: list[str] = []
    threading.Thread(target=_read_into, args=(proc.stdout, out), daemon=True).start()
    try:
        _wait_for(lambda: len(srv.requests) == 1)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    _wait_for(lambda: "".join(out).endswith("\n"), timeout=5)
    result = json.loads("".join(out))
    assert result["status"] == "cancelled" and result["task"] == "slow question"
    assert "Traceback" not in proc.stderr.read()
