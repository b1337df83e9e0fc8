"""Fault-matrix rows for what vero prints and the limits of one model call.

The same pattern as tests/test_faults.py, whose helpers are reused: each row
of ``FAULTS`` is a ``FaultRow(name, agents, check, expected)``; agent kind
``direct`` marks a row whose check drives the CLI, the REPL or ``ChatOpenAI``
directly.

Rows: terminal escape sequences in everything printed, credentials in a base
URL, an API key with whitespace, replies without end (endless, trickling, huge),
and listeners that call ``sys.exit``.  The newcomer bugs of the same round
follow as plain tests.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import logging
import os
import socket
import sys
import tempfile
from pathlib import Path

import pytest
from mock_pool import pooled_mock_server
from test_faults import (
    ALL,
    KEY,
    TASK,
    FaultRow,
    act,
    captured_logs,
    chat_openai,
    fails_cleanly,
    fault_test,
    final,
    formatted,
    happy,
    make_agent,
    row_registry,
)

from vero import AgentOptions, LLMCallError, LLMConfigError
from vero.agents import BasicReflectionAgent
from vero.config import SETTING_NAMES, Settings, call_seconds_for, reload_settings
from vero.core.chat_openai import ChatOpenAI, reply_char_limit
from vero.core.result import Status
from vero.core.text import printable, redact_url
from vero.testing import Fault, HTTPFault, ScriptedLLM
from vero.tools import tool

FAULTS: list[FaultRow] = []
DIRECT = ("direct",)
# MAX_CALL_SECONDS in the rows that wait for it: time enough for the good turn before the fault on a
# busy machine, short enough that the twenty-odd runs that wait for it keep the suite fast.
CUT_OFF = 0.5
fault = row_registry(FAULTS)

ROOT = Path(__file__).resolve().parent.parent
CONFIG_VARS = SETTING_NAMES


# =========================================================================== helpers

# Escape sequences a reply, a tool or a server may send: the clipboard (OSC 52), the window
# title, erasing lines, clearing the screen, a hyperlink (OSC 8), DCS, CSI with odd parameters,
# the alternate screen, 8-bit C1 controls, a lone ESC, a carriage return that hides text, DEL,
# backspace, a right-to-left override.
EVIL = (
    "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[1A\x1b[2K\x1b[2J"
    "\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\\x1bP1$r0m\x1b\\\x1b[?1049h\x1b[38;5;9;1;;;m"
    "\x9b2J\x9d0;t\x9c\x1b safe\rHIDDEN\x7f\x08\x00\x0b\x0c\u202e"
)
CONTROLS = {chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0), 0x202E]}


def controls_in(text: str) -> set[str]:
    return CONTROLS & set(text)


def cli_environ(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS and "proxy" not in k.lower()}
    env.update(NO_COLOR="1", NO_PROXY="127.0.0.1,localhost", **extra)
    return env


def raw_cli(args: list[str], tmp_path: Path, input: str = "", **env: str) -> tuple[int, str, str]:
    """``vero ARGS`` in this process (as tests/test_cli.py's ``vero``), with stdout and stderr
    exactly as written: a carriage return is kept, not turned into a newline."""
    from vero import cli, config

    saved = dict(os.environ), os.getcwd(), (sys.stdin, sys.stdout, sys.stderr)
    out, err = io.StringIO(), io.StringIO()
    try:
        os.environ.clear()
        os.environ.update(cli_environ(**env))
        os.chdir(tmp_path)
        sys.stdin, sys.stdout, sys.stderr = io.StringIO(input), out, err
        config.reload_settings()
        try:
            code = cli.main(args)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved[2]
        os.chdir(saved[1])
        os.environ.clear()
        os.environ.update(saved[0])
        config.reload_settings()
    return code, out.getvalue(), err.getvalue()


def scratch() -> Path:
    """An empty folder to run the command in (a row gets no tmp_path)."""
    return Path(tempfile.mkdtemp(prefix="vero-fault-"))


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@tool(read_only=True)
def shout(text: str) -> str:
    """Return the text with escape sequences around it.

    Args:
        text: what to shout.
    """
    return f"{EVIL}{text}{EVIL}"


# =========================================================================== the terminal


@fault(
    "terminal/escape-sequences",
    DIRECT,
    "every printed line shows control characters escaped (\\x1b, \\x9b, \\r ...): the steps, tool output, "
    "thinking and answer of a verbose agent; vero run's answer, HTTP error line and --debug log; vero chat's "
    "banner, streamed tokens, /history and warnings; --json stays valid JSON with none raw",
)
def terminal_escapes(kind):
    # a verbose agent: thought, action, tool output (observation), thinking, the final answer
    printed = io.StringIO()
    llm = ScriptedLLM([f"<think>{EVIL}</think>" + act("shout", '{"text": "hi"}', thought=EVIL), final(EVIL)])
    with contextlib.redirect_stdout(printed):  # verbose: the agent's own ConsolePrinter
        agent = make_agent("react", llm, tools=[shout], verbose=True)
        agent.run(f"task {EVIL}")
    assert agent.last_result.status == Status.OK, agent.last_result.error
    shown = printed.getvalue()
    assert not controls_in(shown), controls_in(shown)
    assert shown.count("\\x1b]52;c;") >= 5 and "safe\\rHIDDEN" in shown and "\\x9b2J" in shown

    tmp = scratch()
    with pooled_mock_server([EVIL, EVIL, HTTPFault(400, f"bad {EVIL}")]) as srv:
        code, out, err = raw_cli(["run", f"hi {EVIL}", "--agent", "chat", "--base-url", srv.base_url, "--debug"], tmp)
        assert code == 0 and not controls_in(out + err), controls_in(out + err)
        assert "Final Answer (ok): \\x1b]52;c;" in out
        code, out, err = raw_cli(["run", "hi", "--agent", "chat", "--base-url", srv.base_url, "--json"], tmp)
        assert code == 0 and not controls_in(out + err), controls_in(out + err)
        assert json.loads(out)["answer"] == EVIL
        code, out, err = raw_cli(["run", "hi", "--agent", "chat", "--base-url", srv.base_url], tmp, MAX_RETRIES="0")
        assert code == 1 and "❌ model call failed (HTTP 400)" in err and "bad \\x1b]52" in err
        assert not controls_in(out + err), controls_in(out + err)

    # the chat: a model name with escapes (banner, the /models warning), streamed tokens, /history
    with pooled_mock_server([f"streamed {EVIL} end"], stream_chunk_chars=3) as srv:
        code, out, err = raw_cli(
            ["chat", "--agent", "chat", "--base-url", srv.base_url, "--model", f"m{EVIL}", "--tools", "none"],
            tmp,
            input="hello\n/history\nbye\n",
        )
        assert code == 0 and "Bye." in out, (out, err)
        assert not controls_in(out + err), controls_in(out + err)
        assert out.count("streamed \\x1b]52;c;") == 2  # streamed, then in /history
        assert "does not list the model 'm\\x1b]52" in err
    return "escaped everywhere: steps, tool output, thinking, answers, streamed tokens, /history, errors, logs"


def test_printable_escapes_each_control_character_and_keeps_text():
    assert printable("a\tb\nc") == "a\tb\nc"
    assert printable("line\r\nnext") == "line\nnext"
    assert printable("\x1b[2J\x9b\x7f\r\u202eé😀") == "\\x1b[2J\\x9b\\x7f\\r\\u202eé😀"
    assert not controls_in(printable(EVIL))


# =========================================================================== credentials


URL_SECRETS = ("alice", "pw-s3cret", "qk-secret", "sg-secret")


def with_user(base: str) -> str:
    return base.replace("http://", "http://alice:pw-s3cret@")


def with_query(base: str) -> str:
    return with_user(base) + "?api_key=qk-secret&sig=sg-secret&api-version=2024-10"


@fault(
    "credentials/base-url",
    DIRECT,
    "user:password@ and query values (?api_key=, ?sig=...) never shown: repr(ChatOpenAI), the chat banner, "
    "retry lines, error lines (a server echoing the path too), the connection hint, --debug logs (the SDK's "
    "and httpx's too); api-version is shown",
)
def credentials_in_url(kind):
    tmp = scratch()
    assert (
        redact_url("https://alice:pw@h/v1?key=k&token=t&api-version=1")
        == "https://***@h/v1?key=***&token=***&api-version=1"
    )
    with pooled_mock_server([HTTPFault(503, "busy"), "Hi", "Hi"]) as srv:
        shown = repr(ChatOpenAI(model_name="m", base_url=with_query(srv.base_url), api_key="k"))
        assert "api-version=2024-10" in shown
        code, out, err = raw_cli(
            ["run", "hi", "--agent", "chat", "--base-url", with_user(srv.base_url), "--debug"], tmp, MAX_RETRIES="1"
        )
        assert code == 0 and "🔁 retrying (2/2) http://***@127.0.0.1" in err, (out, err)
        assert "HTTP Request: POST http://***@127.0.0.1" in err  # httpx's own log line
        shown += out + err
        code, out, err = raw_cli(
            ["chat", "--agent", "chat", "--base-url", with_user(srv.base_url), "--tools", "none"],
            tmp,
            input="hi\nbye\n",
        )
        assert code == 0 and "at http://***@127.0.0.1" in out, (out, err)
        shown += out + err
        # the SDK puts the path after a query in the base URL: a 404 whose message echoes the query
        code, out, err = raw_cli(
            ["run", "hi", "--agent", "chat", "--base-url", with_query(srv.base_url), "--debug"], tmp
        )
        assert code == 1 and "❌ model call failed (HTTP 404)" in err and "api_key=***" in err, err
        shown += out + err
    gone = with_query(f"http://127.0.0.1:{closed_port()}/v1")
    code, out, err = raw_cli(["run", "hi", "--base-url", gone], tmp, MAX_RETRIES="0")
    assert code == 1 and "cannot connect to http://***@127.0.0.1" in err, err
    shown += out + err
    found = [line for line in shown.splitlines() if any(secret in line for secret in URL_SECRETS)]
    assert not found, found
    return "redacted in the repr, banner, retry lines, errors, hints and debug logs"


# =========================================================================== the key


@fault(
    "credentials/key-whitespace",
    DIRECT,
    "surrounding whitespace is stripped (env, .env, --api-key, api_key=): the request carries the bare key; "
    "whitespace inside: one LLMConfigError / one CLI line (exit 2) naming OPENAI_API_KEY, never the key",
)
def key_whitespace(kind):
    tmp = scratch()
    with pooled_mock_server(["one", "two", "three", "four"]) as srv:
        ChatOpenAI(model_name="m", base_url=srv.base_url, api_key=f"  {KEY}\n").generate(
            [{"role": "user", "content": "hi"}]
        )
        assert (
            raw_cli(["run", "hi", "--agent", "chat", "--base-url", srv.base_url], tmp, OPENAI_API_KEY=f"{KEY}\n")[0]
            == 0
        )
        assert (
            raw_cli(["run", "hi", "--agent", "chat", "--base-url", srv.base_url, "--api-key", f" {KEY}\r\n"], tmp)[0]
            == 0
        )
        (tmp / ".env").write_text(f'OPENAI_API_KEY="{KEY}\\n"\n')
        try:
            assert raw_cli(["run", "hi", "--agent", "chat", "--base-url", srv.base_url], tmp)[0] == 0
        finally:
            (tmp / ".env").unlink()
        headers = [r.headers.get("authorization") for r in srv.request_log]
        assert headers == [f"Bearer {KEY}"] * 4, headers
    inside = KEY[:10] + " \n" + KEY[10:]
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY") as info:
        ChatOpenAI(base_url="http://127.0.0.1:9/v1", api_key=inside)
    assert KEY[:10] not in str(info.value) and KEY[10:] not in str(info.value)
    code, out, err = raw_cli(["run", "hi", "--base-url", "http://127.0.0.1:9/v1"], tmp, OPENAI_API_KEY=inside)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "OPENAI_API_KEY" in err, err
    assert KEY[:10] not in out + err and KEY[10:] not in out + err
    return "stripped when read; whitespace inside: one configuration error, the key never shown"


# =========================================================================== replies without end


@fault(
    "model/endless-reply",
    ALL,
    f"a reply that never ends: failed at MAX_CALL_SECONDS (max_call_seconds={CUT_OFF:g}), LLMCallError naming it, "
    "one request (not retried); history intact",
)
def endless_reply(kind):
    return fails_cleanly(kind, [Fault.endless()], None, f"MAX_CALL_SECONDS={CUT_OFF:g} s", max_call_seconds=CUT_OFF)


@fault(
    "model/trickling-reply",
    ALL,
    "a reply of one piece every 0.1 s (each wait within TIMEOUT): failed at MAX_CALL_SECONDS, one request",
)
def trickling_reply(kind):
    return fails_cleanly(
        kind, [Fault.endless(every=0.1)], None, f"MAX_CALL_SECONDS={CUT_OFF:g} s", max_call_seconds=CUT_OFF
    )


@fault(
    "model/retry-after-past-the-deadline",
    ALL,
    "a 429 asking to wait 20 s, past MAX_CALL_SECONDS: failed at once, naming the wait, not retried",
)
def retry_after_past_the_deadline(kind):
    waits = HTTPFault(429, "Rate limit reached", headers={"retry-after": "20"})
    return fails_cleanly(kind, [waits], None, "asked to wait 20 s before a retry", max_call_seconds=CUT_OFF)


@fault(
    "model/retry-after-with-no-retry-left",
    ALL,
    "a 429 asking to wait 20 s when no retry is left (MAX_RETRIES=0): the server's own error, status 429",
)
def retry_after_with_no_retry_left(kind):
    waits = HTTPFault(429, "You exceeded your current quota", headers={"retry-after": "20"})
    return fails_cleanly(kind, [waits], 429, "exceeded your current quota", max_call_seconds=CUT_OFF, max_retries=0)


@fault(
    "model/silent-server-within-timeout",
    ALL,
    "a server silent for longer than MAX_CALL_SECONDS but less than TIMEOUT: failed at MAX_CALL_SECONDS, not retried",
)
def silent_within_timeout(kind):
    return fails_cleanly(
        kind, [Fault.sleep(30)], None, f"MAX_CALL_SECONDS={CUT_OFF:g} s", max_call_seconds=CUT_OFF, timeout=20
    )


@fault(
    "model/huge-reply",
    ALL,
    "a body past 64 bytes per character of the cap (1 MiB at max_tokens=1024) is cut: failed, "
    "'larger than 1,048,576 bytes', one request; a whole reply past 16 characters per token of the cap: "
    "failed, 'larger than 1,600 characters'",
)
def huge_reply(kind):
    fails_cleanly(
        kind, [Fault.endless("x" * 65536)], None, r"larger than 1,048,576 bytes .*cut off", max_call_seconds=60
    )
    return fails_cleanly(kind, ["y" * 1601], None, r"larger than 1,600 characters", max_tokens=100)


@fault(
    "model/compressed-huge-reply",
    DIRECT,
    "a gzip body of 8 KB that unpacks to 8 MB counts at its unpacked size: failed at 1 MiB "
    "(max_tokens=1024), one request",
)
def compressed_huge_reply(kind):
    body = json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "x" * 8_000_000}}
            ],
        }
    )
    packed = gzip.compress(body.encode())
    assert len(packed) < 64_000
    with pooled_mock_server() as srv:
        srv.add_route(
            "POST",
            "/v1/chat/completions",
            lambda request: (200, {"content-type": "application/json", "content-encoding": "gzip"}, packed),
        )
        with pytest.raises(LLMCallError, match=r"larger than 1,048,576 bytes"):
            chat_openai(srv).generate([{"role": "user", "content": "hi"}])
        assert len(srv.request_log) == 1
    return "failed at the size limit, counted unpacked; not retried"


@fault(
    "model/endless-stream",
    DIRECT,
    "streamed: an endless stream fails at MAX_CALL_SECONDS, a fast one at 16 characters per token of the cap; "
    "a chat agent streaming on_token ends failed, history intact",
)
def endless_stream(kind):
    # every=0.01: a stream that never ends but stays under the size cap for the CUT_OFF it may take
    replies = [Fault.endless(every=0.01), Fault.endless(every=0.1), Fault.endless("z" * 512), "ok"]
    with pooled_mock_server(replies) as srv:
        llm = chat_openai(srv, max_call_seconds=CUT_OFF)
        for _ in range(2):
            with pytest.raises(LLMCallError, match=f"MAX_CALL_SECONDS={CUT_OFF:g} s"):
                list(llm.generate([{"role": "user", "content": "hi"}], stream=True))
        agent = make_agent("chat", chat_openai(srv, max_call_seconds=60, max_tokens=100))
        pieces: list[str] = []
        agent.run(TASK, on_token=pieces.append)
        result = agent.last_result
        assert result.status == Status.FAILED and "larger than 1,600 characters" in str(result.error), result.error
        assert agent.history == [] and sum(map(len, pieces)) <= reply_char_limit(100)
        assert len(srv.requests) == 3
    return "failed with LLMCallError at the time or size limit; not retried"


def test_max_call_seconds_setting_and_its_default():
    assert Settings.from_env(environ={}).MAX_CALL_SECONDS is None
    assert Settings.from_env(environ={"MAX_CALL_SECONDS": "90"}).MAX_CALL_SECONDS == 90
    assert Settings.from_env(environ={"MAX_CALL_SECONDS": "0"}).MAX_CALL_SECONDS == float("inf")
    with pytest.raises(ValueError, match="MAX_CALL_SECONDS"):
        Settings.from_env(environ={"MAX_CALL_SECONDS": "-3"})
    assert call_seconds_for(1024) == 300 + 1024 / 2 and call_seconds_for(None) == 300 + 8192 / 2
    llm = ChatOpenAI(base_url="http://127.0.0.1:9/v1", max_call_seconds=0)
    assert llm.max_call_seconds == float("inf")


# =========================================================================== listeners


@fault(
    "events/listener-sys-exit",
    ALL,
    "a run listener and a model listener that call sys.exit on every event: caught and logged as "
    "warnings, the run ends ok",
)
def listener_sys_exit(kind):
    def leave(event):
        raise SystemExit(3)

    with pooled_mock_server(happy(kind)) as srv:
        llm = chat_openai(srv)
        llm.callbacks.append(leave)
        agent = make_agent(kind, llm, callbacks=[leave])
        with captured_logs(logging.WARNING) as records:
            answer = agent.run(TASK)
    assert (agent.last_result.status, answer) == (Status.OK, "Paris"), agent.last_result.error
    lines = formatted(records)
    assert any("event listener" in line for line in lines) and any("llm listener" in line for line in lines)
    return "ok; each listener failure logged"


test_fault = fault_test(FAULTS)


# =========================================================================== newcomer bugs


def test_an_empty_task_is_a_usage_error(tmp_path):
    for task, stdin in (("", ""), ("   \n", ""), ("-", "\n")):
        code, out, err = raw_cli(["run", task, "--base-url", "http://127.0.0.1:9/v1"], tmp_path, input=stdin)
        assert (code, out) == (2, ""), (code, out, err)
        assert len(err.strip().splitlines()) == 1 and "the task is empty" in err


def test_the_agent_options_snippet_runs_without_configuration(monkeypatch):
    for name in CONFIG_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(ROOT / "tests")  # no .env here
    reload_settings()
    text = (ROOT / "docs" / "agents.md").read_text()
    snippet = text.split("```python\nfrom vero import AgentOptions, ChatOpenAI")[1].split("```")[0]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec("from vero import AgentOptions, ChatOpenAI" + snippet, {})
    assert printed.getvalue().splitlines()[0] == "6 2000"
    assert isinstance(AgentOptions(), AgentOptions)


def test_an_unusable_critique_shows_the_reason_not_the_raw_reply():
    printed = io.StringIO()
    raw = "I think it is fine overall."
    with contextlib.redirect_stdout(printed):
        agent = BasicReflectionAgent("r", ScriptedLLM(["draft", raw, raw, raw]), verbose=True)
        agent.run(TASK)
    step = agent.last_result.steps_of("error")[0]
    line = next(line for line in printed.getvalue().splitlines() if "Error:" in line)
    assert line.split("Error: ", 1)[1].startswith(step.data["reason"]), line
    assert line.endswith(f"the reply was: {raw}")


def test_a_connection_error_is_one_line_with_one_hint(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    code, out, err = raw_cli(["run", "hi", "--base-url", url], tmp_path, MAX_RETRIES="0")
    lines = [line for line in (out + err).splitlines() if "❌" in line]
    assert code == 1 and len(lines) == 1, out + err
    assert lines[0].count("(") == 1 and lines[0].count("Hint") == 1, lines[0]
    assert f"cannot connect to {url}: is the server running?" in lines[0]
    assert "no model call succeeded" in out


def test_agent_given_as_a_file_path_loads_and_a_missing_one_says_drop_py(tmp_path):
    (tmp_path / "my_agent.py").write_text(
        "from vero import Agent\n\nclass Mine(Agent):\n    def solve(self, task, **kwargs):\n        return 'mine'\n"
    )
    for spec in ("my_agent.py:Mine", str(tmp_path / "my_agent.py") + ":Mine"):
        code, out, err = raw_cli(["run", "hi", "--agent", spec, "--base-url", "http://127.0.0.1:9/v1", "-q"], tmp_path)
        assert code == 0 and out == "mine\n", (spec, err)  # -q: the answer alone
        sys.modules.pop("my_agent", None)
    code, out, err = raw_cli(
        ["run", "hi", "--agent", "agents/other.py:Mine", "--base-url", "http://127.0.0.1:9/v1"], tmp_path
    )
    assert code == 2 and "name it without .py: agents.other:ClassName" in err, err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_agent_given_as_a_folder_or_a_pipe_says_it_is_no_file_not_that_there_is_none(tmp_path):
    (tmp_path / "folder.py").mkdir()
    os.mkfifo(tmp_path / "pipe.py")
    for name in ("folder.py", "pipe.py"):
        code, out, err = raw_cli(["run", "hi", "--agent", f"{name}:X", "--base-url", "http://127.0.0.1:9/v1"], tmp_path)
        assert code == 2 and f"'{name}' is not a regular file" in err, err


def test_api_key_help_warns_about_the_process_list(tmp_path):
    code, out, _ = raw_cli(["run", "--help"], tmp_path)
    assert code == 0 and "visible to every local user in the process list" in " ".join(out.split())


def test_max_call_seconds_on_the_command_line_ends_an_endless_reply(tmp_path):
    with pooled_mock_server([Fault.endless(every=0.1)]) as srv:
        code, out, err = raw_cli(["run", "hi", "--base-url", srv.base_url, "--max-call-seconds", "0.5"], tmp_path)
    assert code == 1 and "❌ model call failed: it took longer than MAX_CALL_SECONDS=0.5 s" in err, err
    assert len(srv.requests) == 1
    code, _, err = raw_cli(["run", "hi", "--max-call-seconds", "soon"], tmp_path)
    assert code == 2 and "expected a number of seconds" in err
