"""How many distinct vero functions one small run enters: a measure of how much machinery a step goes through.

    python benchmarks/function_count.py [--list]

With a scripted model (``vero.testing.ScriptedLLM``) and default options, two
two-call runs: ``ReActAgent`` (one action, then ``Final Answer``) and
``ToolCallingAgent`` (one native tool call, then the answer).  ``sys.setprofile``
records every Python function entered during ``agent.run(...)`` whose code lives
under ``vero/``: the agent, the core, the parsers and the tool plumbing.  Not
counted: building the agent and importing; comprehensions (``<listcomp>``,
``<genexpr>``...: Python 3.12 inlines most of them, so counting them would make
the figure depend on the version); and what runs inside the model's ``generate``
(the model call counts as one function: what the scripted model does inside
stands for the server's work).  The tool runs in a worker thread, which these
counts do not follow (``functions_entered(..., tool_thread=True)`` does: ``benchmarks/budgets.py``);
the first tool call of the process, which starts that thread, is made
before counting.  Target: at most ``LIMIT`` each (issue 33; 116 and 111
before the rules left the core; 50 until the gate, issue 44, added its verdict and the tool
lookup it needs).  ``--list`` prints the functions.

The tool multiplies, so it is marked read-only, like the built-in calculator.  The same runs
with a tool that may change things (unmarked) also go through the safety checks for such a
tool (a cut-off call, an action inside other text, the gate's exact arguments and quote check:
docs/tools.md, "Safety");
they are printed too, against ``LIMIT_CHANGING``.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import vero
from vero import tool
from vero.agents import ReActAgent, ToolCallingAgent
from vero.testing import ScriptedLLM

LIMIT = 51
LIMIT_CHANGING = 61  # the same runs when the tool may change things
COMPREHENSIONS = {"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"}
VERO = str(Path(vero.__file__).resolve().parent)


@tool(read_only=True)
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


def react_run(tool: Any = multiply) -> Callable[[], Any]:
    llm = ScriptedLLM(
        [
            'Thought: multiply\nAction: multiply\nAction Input: {"a": 46, "b": 28}',
            "Thought: I now know the final answer\nFinal Answer: 1288",
        ]
    )
    agent = ReActAgent("count", llm, tools=[tool], verbose=False)
    return lambda: agent.run("What is 46 times 28?")


def tool_calling_run(tool: Any = multiply) -> Callable[[], Any]:
    llm = ScriptedLLM([{"tool_calls": [{"name": "multiply", "arguments": {"a": 46, "b": 28}}]}, "1288"])
    agent = ToolCallingAgent("count", llm, tools=[tool], verbose=False)
    return lambda: agent.run("What is 46 times 28?")


RUNS = {"ReActAgent (text)": react_run, "ToolCallingAgent": tool_calling_run}
MAY_CHANGE = vero.Tool(multiply.func, read_only=False)  # the same tool, unmarked


class Recorder:
    """A profile function (``sys.setprofile``) for any number of threads: while ``entered`` is a set, it adds
    the vero functions (``file:line name``) entered on each thread it is installed on."""

    def __init__(self) -> None:
        self.entered: set[str] | None = None
        self.threads: set[int] = set()  # the threads on which a vero function was entered
        self.inside_model: dict[int, FrameType] = {}  # per thread: the model's generate frame, while it runs

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        entered, code, thread = self.entered, frame.f_code, threading.get_ident()
        if entered is None:
            return
        if thread in self.inside_model:
            if event == "return" and frame is self.inside_model[thread]:
                del self.inside_model[thread]
            return
        if event != "call" or not code.co_filename.startswith(VERO) or code.co_name in COMPREHENSIONS:
            return
        name = getattr(code, "co_qualname", code.co_name)
        entered.add(f"{Path(code.co_filename).relative_to(VERO)}:{code.co_firstlineno} {name}")
        self.threads.add(thread)
        if code.co_name == "generate":
            self.inside_model[thread] = frame


def install_on_tool_worker(recorder: Recorder) -> None:
    """Install ``recorder`` on the idle worker thread that the next tool call reuses (the registry starts its
    workers with ``_thread``, which ``threading.setprofile`` does not reach): a tool call that does it."""

    def profile_this_thread() -> None:
        """Profile the tool worker."""
        sys.setprofile(recorder)

    vero.ToolRegistry([vero.Tool(profile_this_thread, read_only=True)]).run("profile_this_thread", {})


def functions_entered(run: Callable[[], Any], tool_thread: bool = False) -> set[str]:
    """The vero functions (``file:line name``) entered while ``run()`` runs: on the caller's thread, on the
    threads it starts with ``threading`` and, with ``tool_thread``, on the worker that runs its tool call."""
    recorder = Recorder()
    if tool_thread:
        install_on_tool_worker(recorder)
    recorder.entered = set()
    sys.setprofile(recorder)
    threading.setprofile(recorder)
    try:
        answer = run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        entered, recorder.entered = recorder.entered, None
    assert answer == "1288", answer
    assert not tool_thread or len(recorder.threads) == 2, "the tool's worker thread was not followed"
    return entered


def counts(tool: Any = multiply) -> dict[str, set[str]]:
    vero.ToolRegistry([multiply]).run("multiply", {"a": 1, "b": 1})  # the first tool call of a process starts
    # the worker thread that later calls reuse: process setup, like the imports, not a step's machinery
    return {name: functions_entered(make(tool)) for name, make in RUNS.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the functions each run enters")
    args = parser.parse_args()
    over = False
    for used, limit, kind in (
        (multiply, LIMIT, "read-only tool"),
        (MAY_CHANGE, LIMIT_CHANGING, "tool may change things"),
    ):
        for name, functions in counts(used).items():
            files = {f.split(":")[0] for f in functions}
            print(f"{name:20} {kind:24} {len(functions):4} functions in {len(files)} files (limit {limit})")
            if args.list:
                print("".join(f"    {f}\n" for f in sorted(functions)))
            over |= len(functions) > limit
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
