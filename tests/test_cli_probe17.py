"""Faults a seventeenth outside probe found in the ``vero`` command: ``vero chat`` sent a line that is not
UTF-8 and blamed the model, and dropped a failed turn's message without saying so; ``vero run --json`` printed
nothing for a usage error and ``"usage": {}`` after an early Ctrl-C; a ``.env`` line with an unclosed quote
led to "no model endpoint is configured" without naming that line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from test_cli import cli_env, contents, vero, vero_process

from vero import cli
from vero.testing import HTTPFault

ZERO_USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "cached_tokens": 0}


@pytest.fixture
def srv(shared_mock_server):
    return shared_mock_server


def chat(srv, tmp_path, input: str, agent: str = "chat"):
    return vero("chat", "--agent", agent, "--base-url", srv.base_url, cwd=tmp_path, input=input, MAX_RETRIES="0")


# -- 4: a chat line that is not UTF-8 is not sent -------------------------------------------------------------------
@pytest.mark.parametrize("agent", ["chat", "react"])
def test_chat_does_not_send_a_line_that_is_not_utf8_and_goes_on(srv, tmp_path, agent):
    srv.enqueue("Final Answer: a coffee" if agent == "react" else "a coffee")
    done = chat(srv, tmp_path, "caf\udce9 au lait?\nAnd in English?\n/history\n", agent)  # b"caf\xe9", as read
    failures = [line for line in done.stdout.splitlines() if "❌" in line]
    assert failures == [
        "You: ❌ your input is not UTF-8 text (byte 3); nothing was sent and the conversation is unchanged"
    ]
    assert len(srv.requests) == 1 and "And in English?" in contents(srv.requests[0])
    assert "model" not in failures[0] and "caf" not in "".join(contents(srv.requests[0]))


@pytest.mark.processes
def test_chat_reads_the_lines_after_one_that_is_not_utf8_from_a_strict_utf8_stdin(srv, tmp_path):
    srv.enqueue("the next answer")
    env = cli_env(OPENAI_BASE_URL=srv.base_url, OPENAI_API_KEY="sk-invented-0001", MODEL_NAME="m", MAX_RETRIES="0")
    env.update(PYTHONIOENCODING="utf-8:strict", PYTHONUTF8="1")  # a UTF-8 terminal: stdin decodes strictly
    done = subprocess.run(
        [sys.executable, "-m", "vero", "chat", "--agent", "chat"],
        input=b"caf\xe9 au lait?\nnext question\n",
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    out = done.stdout.decode("utf-8", "replace")
    assert done.returncode == 0 and "❌ your input is not UTF-8 text (byte 3)" in out, out + done.stderr.decode()
    assert "Assistant: the next answer" in out and "Traceback" not in out + done.stderr.decode()


# -- 5: a failed turn says that its message was not kept ---------------------------------------------------------
def test_a_failed_chat_turn_says_the_message_was_not_kept(srv, tmp_path):
    srv.enqueue("one", HTTPFault(503, "overloaded"), "three")
    done = chat(srv, tmp_path, "My order is 4711.\nPlease cancel it.\nWhat did I ask?\n/history\n")
    failures = [line for line in done.stdout.splitlines() if "❌" in line]
    assert len(failures) == 1 and "HTTP 503" in failures[0]
    assert failures[0].endswith("(your message was not kept: send it again)")
    assert "Please cancel it." not in done.stdout.split("/history")[-1] and "user: Please cancel" not in done.stdout


# -- 6: vero run --json prints one JSON object for a run that never began --------------------------------------------
@pytest.mark.parametrize(
    "options",
    [
        ["--tools", "nope"],
        ["--replay", "missing.jsonl"],
        ["--output-schema", "missing.json"],
        ["--base-url", "localhost:11434"],
        ["--mcp-config", "missing-mcp.json"],
    ],
)
def test_a_usage_error_under_json_prints_one_failed_result_and_exits_2(srv, tmp_path, options):
    done = vero("run", "--json", *options, "hi", cwd=tmp_path, OPENAI_API_KEY="sk-invented-0001")
    assert done.returncode == 2
    result = json.loads(done.stdout)  # one object, nothing else
    assert (result["status"], result["task"], result["steps"], result["usage"]) == ("failed", "hi", [], ZERO_USAGE)
    assert done.stderr == f"vero: {result['error']['message']}\n"


@pytest.mark.processes
def test_a_setting_that_is_not_valid_under_json_prints_one_failed_result_without_the_key(tmp_path):
    key = "sk-invented-key-0123456789"
    done = vero_process("run", "--json", "hi", cwd=tmp_path, OPENAI_API_KEY=key, TEMPERATURE=key)  # the wrong line
    assert done.returncode == 2
    result = json.loads(done.stdout)
    assert result["status"] == "failed" and "TEMPERATURE" in result["error"]["message"]
    assert key not in done.stdout + done.stderr


def test_no_endpoint_under_json_prints_one_failed_result(tmp_path):
    done = vero("run", "--json", "hi", cwd=tmp_path)
    assert done.returncode == 2
    result = json.loads(done.stdout)
    assert result["error"]["type"] == "LLMConfigError"
    assert result["error"]["message"].startswith("no model endpoint is configured")


def test_ctrl_c_before_the_run_began_prints_the_usual_zero_usage(tmp_path, monkeypatch):
    def starting(args):
        raise KeyboardInterrupt  # while an MCP server starts

    monkeypatch.setattr(cli, "make_llm", starting)
    done = vero("run", "--json", "What is 2+2?", cwd=tmp_path)
    assert done.returncode == 130 and json.loads(done.stdout)["usage"] == ZERO_USAGE


# -- 7: a .env line python-dotenv cannot parse is named ---------------------------------------------------------------
def test_no_endpoint_names_the_dotenv_line_that_could_not_be_read_never_its_value(tmp_path):
    key = "sk-invented-key-0123456789"
    (tmp_path / ".env").write_text(f'MODEL_NAME=m\nOPENAI_API_KEY="{key}\n')  # the closing quote forgotten
    done = vero("run", "hi", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("vero: no model endpoint is configured")
    dotenv = os.path.join(os.path.realpath(tmp_path), ".env")
    assert f"{dotenv} line 2 (OPENAI_API_KEY) could not be read (an unclosed quote?)" in done.stderr
    assert key not in done.stdout + done.stderr


def test_the_dotenv_lines_read_are_still_taken_beside_one_that_could_not_be(tmp_path):
    from vero import config

    (tmp_path / ".env").write_text('OPENAI_API_KEY="sk-invented\nMODEL_NAME=the-model\n')
    assert config.read_env_file(str(tmp_path / ".env")) == {"MODEL_NAME": "the-model"}
    assert config.unread_lines() == [(str(tmp_path / ".env"), 1, " (OPENAI_API_KEY)")]
