"""A second outside probe of approval: an agent two levels down, started after the agent between it and the user
has ended, still asks the user's approver; a replanned plan that runs an approved step again, or a step reworded
only in case, is asked about again (tests/test_plan_execute.py); and a chat approval prompt is answered only by what
is typed after it shows, an empty line deciding nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import os
import sys
import termios
import threading

import pytest
from test_approval_probe16 import ASKED, DONE, archive_record, refuse

from vero import ToolCallRequest, repl, tool
from vero.agents import ToolCallingAgent
from vero.testing import ScriptedLLM


def calls(name: str, **arguments: str) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_an_agent_two_levels_down_started_after_the_middle_one_ended_asks_the_user_s_approver():
    DONE.clear()
    ASKED.clear()
    middle_ended, inner_ended = threading.Event(), threading.Event()

    def inner_later() -> None:
        middle_ended.wait(5)
        inner = ToolCallingAgent(
            "inner", ScriptedLLM([calls("archive_record", record_id="r-4"), "done"]), verbose=False
        )
        inner.tools.register(archive_record)
        inner.run("archive r-4")
        inner_ended.set()

    @tool(read_only=True)
    def hand_over(task: str) -> str:
        """Hand the task to a helper who starts when one is free."""
        threading.Thread(target=contextvars.copy_context().run, args=(inner_later,)).start()  # as the docs advise
        return "handed over"

    middle = ToolCallingAgent("middle", ScriptedLLM([calls("hand_over", task="r-4"), "ok"]), verbose=False)
    middle.tools.register(hand_over)
    outer = ToolCallingAgent(
        "outer",
        ScriptedLLM([calls("middle", task="archive r-4"), "ok"]),
        tools=[middle.as_tool(read_only=True)],
        approve_tool=refuse,
        verbose=False,
    )
    outer.run("Tidy up.")
    middle_ended.set()  # the middle agent's run, and the outer one, are over
    assert inner_ended.wait(5)
    assert (DONE, ASKED) == ([], ["r-4"])


@pytest.fixture
def terminal_with_a_paste(monkeypatch):
    """stdin as a terminal that holds a pasted "yes" before the prompt shows; flushing it leaves what the user
    types once the question is there: "no"."""
    read, write = os.pipe()
    os.write(write, b"yes\n")
    flushed: list[int] = []

    def tcflush(fd: int, queue: int) -> None:
        flushed.append(queue)
        os.set_blocking(fd, False)
        while True:
            try:
                if not os.read(fd, 1024):
                    break
            except BlockingIOError:
                break
        os.set_blocking(fd, True)
        os.write(write, b"no\n")

    stdin = os.fdopen(read, "r")
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(repl, "_is_terminal", lambda stream: stream is stdin)
    monkeypatch.setattr(termios, "tcflush", tcflush)
    yield flushed
    stdin.close()
    os.close(write)


def test_a_tool_s_approval_prompt_is_not_answered_by_a_line_pasted_before_it(terminal_with_a_paste):
    call = ToolCallRequest("archive_record", {"record_id": "r-4"}, "c1", "native")
    assert repl.ask_before_running(call, out=io.StringIO()) is False  # the "no" typed after it
    assert terminal_with_a_paste == [termios.TCIFLUSH]


def test_the_plan_s_approval_prompt_is_not_answered_by_a_line_pasted_before_it(terminal_with_a_paste):
    assert repl.read_line("Approve plan? ", discard_typed_ahead=True) == "no"


@pytest.mark.parametrize(
    ("typed", "terminal", "approved"),
    [(["", "y"], True, True), ([""], True, False), (["", "  ", "n"], True, False), (["", "y"], False, False)],
)
def test_an_empty_line_at_the_plan_s_approval_prompt_decides_nothing(monkeypatch, typed, terminal, approved):
    """On a terminal the prompt comes again; piped in (``yes '' | vero chat``), an empty line is a refusal."""
    from vero import cli

    monkeypatch.setattr(repl, "_is_terminal", lambda stream: terminal)
    answers = iter(typed)

    def typed_line(prompt: str = "") -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", typed_line)
    args = cli.build_parser().parse_args(["chat", "--agent", "plan", "--tools", "none", "-q"])
    chat = repl.Repl(args, ScriptedLLM([]), [])
    plan = type("Plan", (), {"render": lambda self: "1. [ ] Archive r-4"})()
    with contextlib.redirect_stdout(io.StringIO()):
        assert chat.approve_plan(plan) is approved
