"""Faults a probe of the ``vero`` command found: an unparsable base URL printed with its credentials, an
unparsable ``OPENAI_BASE_URL`` failing the run instead of a usage error, ``vero demo --trace`` on a FIFO or a
device, a broken stdout (``| head``, ``> /dev/full``) printing tracebacks, ``/history`` pairing a turn's tool calls
with the previous turn, and ``--base-url http://`` suggesting ``http://http://``."""

from __future__ import annotations

import errno
import io
import json
import os
import sys

import pytest
from conftest import CONFIG_VARS
from test_cli import vero

from vero import cli, config
from vero._console import step_printer
from vero.core.events import Event


@pytest.fixture
def srv(shared_mock_server):
    return shared_mock_server


# -- 1, 7: the base URL is checked, and shown without its credentials ---------------------------------------------
def test_an_unparsable_base_url_is_shown_without_its_credentials(tmp_path):
    done = vero("run", "hi", "--base-url", "http://alice:pw5ecret@[::1/v1?api_key=qk5ecret", cwd=tmp_path)
    assert done.returncode == 2
    assert "is not a valid URL" in done.stderr and "***" in done.stderr
    assert "pw5ecret" not in done.stderr and "qk5ecret" not in done.stderr


def test_a_base_url_without_a_host_says_so(tmp_path):
    done = vero("run", "hi", "--base-url", "http://", cwd=tmp_path)
    assert done.returncode == 2
    assert "has no host" in done.stderr and "http://http://" not in done.stderr


# -- 2: OPENAI_BASE_URL is checked as --base-url is ---------------------------------------------------------------
@pytest.mark.parametrize("url", ["http://[::1", "http://host:port/v1", "http://"])
def test_an_invalid_openai_base_url_setting_is_a_usage_error(tmp_path, url):
    done = vero("run", "hi", cwd=tmp_path, OPENAI_BASE_URL=url, MAX_RETRIES="0")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("vero: OPENAI_BASE_URL ") and "Traceback" not in done.stderr


# -- 3: vero demo --trace takes a regular file (or a new one) only ------------------------------------------------
def test_demo_refuses_a_device_as_its_trace_file(tmp_path):
    done = vero("demo", "--fast", "--trace", os.devnull, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"vero: cannot write the trace file {os.devnull}: not a regular file")


def test_demo_refuses_a_fifo_as_its_trace_file(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader: the check must refuse it, not wait or open it
    try:
        done = vero("demo", "--fast", "--trace", str(fifo), cwd=tmp_path)
    finally:
        os.close(reader)
    assert done.returncode == 2
    assert done.stderr.startswith(f"vero: cannot write the trace file {fifo}: not a regular file")


# -- 4: a broken stdout ends the command quietly ------------------------------------------------------------------
class GoneStdout(io.StringIO):
    """A stdout whose reader has gone: the first ``ok_writes`` writes pass, then every write fails with ``error``."""

    def __init__(self, error: int, ok_writes: int = 3):
        super().__init__()
        self.error, self.ok_writes = error, ok_writes

    def write(self, text: str) -> int:
        if self.ok_writes <= 0:
            raise OSError(self.error, os.strerror(self.error)) if self.error != errno.EPIPE else BrokenPipeError()
        self.ok_writes -= 1
        return super().write(text)


def run_with_stdout(args: list[str], stdout, tmp_path, monkeypatch) -> tuple[int, str]:
    """``vero ARGS`` in this process with ``stdout`` as its standard output: the exit code and stderr."""
    for name in CONFIG_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    config.reload_settings()
    try:
        code = cli.main(args)
    finally:
        config.reload_settings()
    return code, err.getvalue()


REACT_REPLY = 'Thought: add\nAction: calculator\nAction Input: {"expression": "1+1"}'


@pytest.mark.parametrize("command", ["run", "demo"])
def test_a_closed_pipe_on_stdout_ends_quietly_with_141(srv, tmp_path, monkeypatch, command):
    srv.responder = lambda body: REACT_REPLY
    args = ["demo", "--fast"]
    if command == "run":
        args = ["run", "hi", "--agent", "react", "--max-turns", "2", "--base-url", srv.base_url]
    code, err = run_with_stdout(args, GoneStdout(errno.EPIPE), tmp_path, monkeypatch)
    assert code == 141
    assert err == ""  # no "event listener ... failed", no traceback, no ❌ line


def test_a_full_disk_on_stdout_ends_with_one_line(srv, tmp_path, monkeypatch):
    srv.responder = lambda body: REACT_REPLY
    args = ["run", "hi", "--agent", "react", "--max-turns", "1", "--base-url", srv.base_url]
    code, err = run_with_stdout(args, GoneStdout(errno.ENOSPC), tmp_path, monkeypatch)
    assert code == 1
    assert err == "vero: cannot write the output: No space left on device\n"


def test_the_step_printer_drops_its_lines_once_the_output_is_gone():
    from vero._console import LOST_OUTPUT  # here: the other tests of this file run without it

    LOST_OUTPUT.clear()
    printer = step_printer(stream=GoneStdout(errno.EPIPE, ok_writes=0))
    step = Event("step", "a", {"kind": "thought", "content": "hm"}, 0.0)
    try:
        printer(step)  # no exception for the event bus to log with a traceback
        printer(step)
        assert len(LOST_OUTPUT) == 1 and isinstance(LOST_OUTPUT[0], BrokenPipeError)
    finally:
        LOST_OUTPUT.clear()


# -- 5: /history pairs tool calls only with a turn that added to the history --------------------------------------
def test_history_does_not_show_a_turn_that_was_not_kept_under_the_previous_one(srv, tmp_path):
    def reply(body):
        last = body["messages"][-1]
        looping = last["role"] == "tool" or "LOOP" in json.dumps(last)
        return {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]} if looping else "first"

    srv.responder = reply
    args = ("chat", "--agent", "chat", "--tools", "calculator", "--max-turns", "2", "--base-url", srv.base_url)
    done = vero(*args, cwd=tmp_path, input="first\nLOOP\n/history\nbye\n")
    shown = done.stdout[done.stdout.rfind("You: user: first") :]
    assert "🔧" not in shown  # the LOOP turn ended max_turns: nothing of it was kept
    assert "assistant: first" in shown


def test_a_lost_stderr_drops_only_its_own_lines_and_the_answer_still_prints(capsys, monkeypatch):
    from vero._console import LOST_OUTPUT, LOST_STREAMS, say

    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    LOST_OUTPUT.clear()
    LOST_STREAMS.clear()
    monkeypatch.setattr(sys, "stderr", Gone())
    say("a warning", file=sys.stderr)
    say("THE ANSWER")
    assert "THE ANSWER" in capsys.readouterr().out and LOST_OUTPUT == []
    LOST_STREAMS.clear()
