"""Fault-matrix rows for files, tools and the console: crafted session files,
odd tool signatures and results, hung tool threads, REPL command errors and a
closed stdin.

The pattern is the one of tests/test_faults.py: the module-level list
``FAULTS`` holds ``FaultRow(name, agents, check, expected)`` rows, each
``check(kind)`` returns a short description of what happened or raises
``AssertionError``, and ``test_fault`` runs every (row, agent) pair.  Rows that
do not depend on an agent use the kind ``"direct"``.  The checks use no pytest
fixtures, so a script can run them too.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_faults import (
    ALL,
    TASK,
    TOOL_AGENTS,
    FaultRow,
    cli_env,
    fault_test,
    happy,
    happy_default,
    history_texts,
    make_agent,
    patched,
    row_registry,
    run_one_tool,
)

from vero import tool
from vero.errors import SessionFormatError
from vero.testing import ScriptedLLM
from vero.tool import ToolRegistry
from vero.tool import registry as registry_module

FAULTS: list[FaultRow] = []


fault = row_registry(FAULTS)


# =========================================================================== helpers


def deep_json(depth: int, inner: str = "") -> str:
    """A JSON array nested ``depth`` levels deep."""
    return "[" * depth + inner + "]" * depth


def deep_list(depth: int) -> list:
    """A Python list nested ``depth`` levels deep, built without recursion."""
    outer = current = []
    for _ in range(depth - 1):
        current.append([])
        current = current[0]
    return outer


def session_text(history, version=1) -> str:
    return json.dumps({"format": "vero.session", "version": version, "history": history})


def agent_after_one_turn(kind: str):
    """An agent of ``kind`` that answered one question; its script has a second answer ("Rome")."""
    agent = make_agent(kind, ScriptedLLM([*happy(kind), *happy(kind, "Rome")]))
    agent.run(TASK)
    return agent


def refuses_to_load(kind: str, cases: dict[str, str], match: str) -> str:
    """Each body in ``cases`` raises only SessionFormatError (matching ``match``) and changes
    nothing; afterwards the agent still runs."""
    agent = agent_after_one_turn(kind)
    before = list(agent.history)
    with tempfile.TemporaryDirectory() as folder:
        for name, body in cases.items():
            path = os.path.join(folder, f"{name}.json")
            Path(path).write_text(body, encoding="utf-8")
            try:
                agent.load(path)
            except SessionFormatError as exc:
                assert re.search(match, str(exc)), (name, str(exc))
            except Exception as exc:  # noqa: BLE001 - any other type is the failure
                raise AssertionError(f"{name}: {type(exc).__name__}: {str(exc)[:200]}") from None
            else:
                raise AssertionError(f"{name}: loaded without an error: {agent.history!r:.200}")
            assert agent.history == before, name
    assert agent.run("And of Italy?") == "Rome" and agent.last_result.ok, agent.last_result.error
    return f"SessionFormatError for {len(cases)} files; history unchanged; the next run ok"


def os_threads() -> int:
    """The process's OS threads (the worker pool uses ``_thread``, which ``threading`` does not count)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:  # not Linux
        return threading.active_count()


def wait_until(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def run_repl(kind: str, script: list, lines: list[str], prepare: Callable | None = None):
    """``vero chat --agent kind`` in this process, fed ``lines``: (exit code, console text, Repl)."""
    from vero import cli
    from vero import repl as repl_module

    inputs = iter(lines)

    def fake_input(prompt=""):
        print(prompt, end="")
        try:
            return next(inputs)
        except StopIteration:
            raise EOFError from None

    out = io.StringIO()
    with contextlib.redirect_stdout(out), patched(builtins, "input", fake_input), \
            patched(repl_module, "_enable_readline", lambda: None):
        args = cli.build_parser().parse_args(["chat", "--agent", kind, "--tools", "none", "-q"])
        repl = repl_module.Repl(args, ScriptedLLM(script), [])
        if prepare:
            prepare(repl)
        code = repl.loop()
    return code, out.getvalue(), repl


def two_questions(kind: str, middle: list[str]) -> tuple[list, list[str]]:
    """Script and input lines: a question, the ``middle`` commands, another question, bye."""
    approve = ["y"] if kind == "plan" else []
    script = [*happy_default(kind, "Paris"), *happy_default(kind, "Rome")]
    lines = [TASK, *approve, *middle, "And of Italy?", *approve, "bye"]
    return script, lines


def survives_commands(kind: str, middle: list[str], errors: int, match: str, prepare=None) -> str:
    """The REPL reports each failing command of ``middle`` in one ❌ line and goes on."""
    script, lines = two_questions(kind, middle)
    code, text, repl = run_repl(kind, script, lines, prepare)
    shown = [line for line in text.splitlines() if "❌" in line]
    assert code == 0 and len(shown) == errors, text
    assert all(re.search(match, line) for line in shown), shown
    assert "Rome" in text and text.rstrip().endswith("Bye."), text
    assert history_texts(repl.agent) == [TASK, "Paris", "And of Italy?", "Rome"]
    return f"{errors} one-line error(s); the conversation went on"


def vero_closed_stdin(args: list[str], folder: str) -> subprocess.CompletedProcess:
    """``python -m vero ARGS <&-``: standard input closed, not merely empty."""
    command = ["sh", "-c", 'exec "$0" -m vero "$@" <&-', sys.executable, *args]
    return subprocess.run(command, cwd=folder, env=cli_env(), capture_output=True, text=True,
                          encoding="utf-8", timeout=60)


# =========================================================================== persistence

NESTED = 100_000


@fault("persistence/nested-session-file", ALL,
       "a session file nested 100,000 deep (in the history, a message or unclosed) raises "
       "SessionFormatError ('nested too deeply'); history unchanged; the next run ok")
def persistence_nested(kind):
    head = '{"format": "vero.session", "version": 1, "history": '
    cases = {
        "nested-history": head + deep_json(NESTED) + "}",
        "nested-content": head + '[{"role": "user", "content": ' + deep_json(NESTED) + "}]}",
        "nested-object": '{"a": ' * NESTED + "1" + "}" * NESTED,
        "nested-unclosed": head + "[" * NESTED,
    }
    return refuses_to_load(kind, cases, "nested too deeply")


CALL = {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
WRONG_MESSAGES = {
    "message-text": "user: hi",
    "message-null": None,
    "role-number": {"role": 5, "content": "x"},
    "role-list": {"role": ["user"], "content": "x"},
    "content-number": {"role": "user", "content": 5},
    "content-list": {"role": "user", "content": ["x"]},
    "tool-calls-text": {"role": "assistant", "content": None, "tool_calls": "add"},
    "tool-calls-object": {"role": "assistant", "content": None, "tool_calls": CALL},
    "tool-call-text": {"role": "assistant", "content": None, "tool_calls": ["add"]},
    "function-text": {"role": "assistant", "content": None, "tool_calls": [{**CALL, "function": "add"}]},
    "function-name-number": {"role": "assistant", "tool_calls": [{**CALL, "function": {"name": 5}}]},
    "tool-call-id-number": {"role": "assistant", "tool_calls": [{**CALL, "id": 7}]},
    "tool-message-id-number": {"role": "tool", "content": "5", "tool_call_id": 7},
    "name-list": {"role": "tool", "content": "5", "tool_call_id": "c1", "name": ["add"]},
    "reasoning-number": {"role": "assistant", "content": "x", "reasoning": 5},
    "reasoning-content-object": {"role": "assistant", "content": "x", "reasoning_content": {}},
    "usage-text": {"role": "assistant", "content": "x", "usage": "lots"},
    "usage-list": {"role": "assistant", "content": "x", "usage": [1]},
}


@fault("persistence/session-wrong-types", ALL,
       "any message field of the wrong type (role, content, tool_calls, function, ids, name, reasoning, usage) "
       "or a history that is no list raises SessionFormatError; history unchanged; the next run ok")
def persistence_wrong_types(kind):
    good = {"role": "user", "content": "fine"}
    cases = {name: session_text([good, message]) for name, message in WRONG_MESSAGES.items()}
    cases.update({
        "history-text": session_text("user: hi"),
        "history-object": session_text({"role": "user", "content": "hi"}),
        "history-missing": json.dumps({"format": "vero.session", "version": 1}),
    })
    return refuses_to_load(kind, cases, "corrupted history|no history")


@fault("persistence/session-bad-version", ALL,
       "a version that is not a positive whole number up to the current one (true, false, -7, 0, 1.5, '1', "
       "null, [1], 2) raises SessionFormatError; history unchanged; the next run ok")
def persistence_bad_version(kind):
    versions = {"true": True, "false": False, "negative": -7, "zero": 0, "fraction": 1.5, "text": "1",
                "null": None, "list": [1], "newer": 2}
    cases = {name: session_text([{"role": "user", "content": "hi"}], version)
             for name, version in versions.items()}
    return refuses_to_load(kind, cases, "version")


@fault("persistence/save-over-symlink", ALL,
       "saving through a symlink (or a dangling one) writes the link's target atomically; the link stays a link")
def persistence_symlink(kind):
    agent = agent_after_one_turn(kind)
    with tempfile.TemporaryDirectory() as folder:
        real = os.path.join(folder, "real")
        os.mkdir(real)
        target, later = os.path.join(real, "session.json"), os.path.join(real, "later.json")
        Path(target).write_text("old", encoding="utf-8")
        link, dangling = os.path.join(folder, "session.json"), os.path.join(folder, "later.json")
        os.symlink(target, link)
        os.symlink(later, dangling)
        agent.save(link)
        agent.save(dangling)
        assert os.path.islink(link) and os.readlink(link) == target
        assert os.path.islink(dangling) and os.readlink(dangling) == later
        assert sorted(os.listdir(real)) == ["later.json", "session.json"]  # no temp file left
        assert sorted(os.listdir(folder)) == ["later.json", "real", "session.json"]
        for path in (target, later):
            other = make_agent(kind, ScriptedLLM())
            other.load(path)
            assert history_texts(other) == [TASK, "Paris"], path
    return "the targets written; the links kept"


# =========================================================================== tools


@tool
def add_positional(a: int, b: int = 10, /) -> int:
    """Add two integers (positional-only parameters).

    Args:
        a: the first number.
        b: the second number.
    """
    return a + b


@tool
def mixed_kinds(a: int, /, b: int, *, c: int = 0) -> str:
    """One parameter of each kind."""
    return f"{a}-{b}-{c}"


@fault("tools/positional-only-params", TOOL_AGENTS,
       "a tool `def f(a, b=10, /)` is called with its arguments positionally, in order (defaults filled); ok")
def tools_positional_only(kind):
    _, _, sent, step = run_one_tool(kind, [add_positional], "add_positional", {"a": 2, "b": "3"})
    assert sent == "5" and step.data["ok"], sent
    registry = ToolRegistry([add_positional, mixed_kinds])
    assert registry.run("add_positional", {"a": 2}).output == "12"
    assert registry.run("add_positional", '{"b": 1, "a": 2}').output == "3"
    assert registry.run("mixed_kinds", {"c": 3, "b": 2, "a": 1}).output == "1-2-3"
    assert registry.run("add_positional", {"b": 1}).error == "bad_arguments"
    return "ok; called positionally"


@fault("tools/hung-tools-bounded-threads", ("direct",),
       "hung tools (timeout 0.01 s) hold at most MAX_STUCK_WORKERS threads; further calls fail at once with a "
       "`still running` observation (error `busy`); once they return, at most MAX_IDLE_WORKERS idle threads stay")
def tools_hung_threads(kind):
    stuck_cap = getattr(registry_module, "MAX_STUCK_WORKERS", 32)
    idle_cap = getattr(registry_module, "MAX_IDLE_WORKERS", 8)
    release = threading.Event()

    @tool(timeout=0.01)
    def hang() -> str:
        """Waits for something that never comes."""
        release.wait(30)
        return "too late"

    registry = ToolRegistry([hang, add_positional])
    calls = stuck_cap + 60
    before = os_threads()
    started = time.perf_counter()
    try:
        outcomes = [registry.run("hang") for _ in range(calls)]
        peak = os_threads()
        elapsed = time.perf_counter() - started
    finally:
        release.set()
    busy = [o for o in outcomes if o.error == "busy"]
    assert peak - before <= stuck_cap, (before, peak, stuck_cap)
    assert len(busy) >= calls - stuck_cap and all(o.error in ("timeout", "busy") for o in outcomes)
    assert "still running" in busy[-1].output and elapsed < stuck_cap * 0.01 + 2, (busy[-1].output, elapsed)
    assert wait_until(lambda: os_threads() <= before + idle_cap), (before, os_threads(), idle_cap)
    assert wait_until(lambda: registry.run("add_positional", {"a": 1}).ok)  # usable again
    return f"{peak - before} threads for {calls} hung calls; {len(busy)} refused at once; shrank back"


class SlowText:
    """A result whose text takes long to make."""

    def __init__(self, gate: threading.Event):
        self.gate = gate

    def __str__(self) -> str:
        self.gate.wait(3)
        return "slow"

    __repr__ = __str__


@fault("tools/slow-str-result", TOOL_AGENTS,
       "a result whose __str__ hangs is turned into text under the tool's timeout: `timed out after 0.2 s`; ok")
def tools_slow_str(kind):
    gate = threading.Event()

    @tool(timeout=0.2)
    def slow_result():
        """Returns something slow to print."""
        return SlowText(gate)

    started = time.perf_counter()
    try:
        _, _, sent, step = run_one_tool(kind, [slow_result], "slow_result", {}, fails=True)
    finally:
        gate.set()
    elapsed = time.perf_counter() - started
    assert sent == "Error: tool 'slow_result' timed out after 0.2 s.", sent
    assert step.data["error"] == "timeout" and elapsed < 2, elapsed
    return f"ok; timed out, run took {elapsed:.2f} s"


@tool
def count_to(n: int):
    """Count from 1 to n."""
    yield from range(1, n + 1)


@tool(timeout=math.inf)
def count_forever():
    """Count for ever (run on the caller's thread)."""
    number = 0
    while True:
        number += 1
        yield number


@fault("tools/generator-result", TOOL_AGENTS,
       "a generator is consumed (in the worker, under the timeout) into a JSON list, at most "
       "MAX_GENERATED_ITEMS items, then a `stopped after` note; ok")
def tools_generator(kind):
    _, _, sent, step = run_one_tool(kind, [count_to], "count_to", {"n": 3})
    assert sent == "[1, 2, 3]" and step.data["ok"], sent
    limit = getattr(registry_module, "MAX_GENERATED_ITEMS", 10_000)
    outcome = ToolRegistry([count_forever]).run("count_forever")
    assert outcome.ok and outcome.output.startswith("[1, 2, 3, "), outcome.output[:80]
    assert outcome.output.endswith(f"...[the generator was stopped after {limit:,} items]"), outcome.output[-80:]
    return "ok; consumed into a list"


@tool
def interrupts() -> str:
    """Raises KeyboardInterrupt itself."""
    raise KeyboardInterrupt("the tool's own")


@fault("tools/raises-keyboardinterrupt", TOOL_AGENTS,
       "a KeyboardInterrupt raised by a tool on its worker thread is the tool's error: a `raised "
       "KeyboardInterrupt` observation; ok (without a timeout, on the caller's thread, it propagates)")
def tools_keyboard_interrupt(kind):
    try:
        _, _, sent, step = run_one_tool(kind, [interrupts], "interrupts", {}, fails=True)
    except KeyboardInterrupt:  # (would stop pytest itself)
        raise AssertionError("the tool's own KeyboardInterrupt aborted the run") from None
    assert sent == "Error: tool 'interrupts' raised KeyboardInterrupt: the tool's own", sent
    assert step.data["error"] == "exception"
    with pytest.raises(KeyboardInterrupt):  # on the caller's thread it cannot be told from Ctrl-C
        ToolRegistry([interrupts], default_timeout=None).run("interrupts")
    return "ok; error observation"


@fault("tools/deeply-nested-arguments", ("direct",),
       "arguments nested 50,000-100,000 deep (unclosed JSON, valid JSON, or a Python dict) give a "
       "`bad_arguments` observation, never an exception")
def tools_nested_arguments(kind):
    from vero.tool.builtin import calculator

    registry = ToolRegistry([calculator])
    cases = {
        "unclosed": "{" + "[" * 50_000,
        "valid": '{"expression": ' + deep_json(NESTED) + "}",
        "python": {"expression": deep_list(NESTED)},
    }
    for name, args in cases.items():
        outcome = registry.run("calculator", args)
        assert outcome.error == "bad_arguments", (name, outcome.output[:200])
    return f"bad_arguments for {len(cases)} inputs"


@fault("tools/calculator-complex", ("direct",),
       "a power with a complex result ((-8)**(1/3), pow(-8, 1/3), (-1)**0.5) is an error "
       "`... is not a real number`; real powers still work")
def tools_calculator_complex(kind):
    from vero.tool.builtin import calculator

    registry = ToolRegistry([calculator])
    for expression in ("(-8)**(1/3)", "pow(-8, 1/3)", "(-1)**0.5"):
        outcome = registry.run("calculator", {"expression": expression})
        assert outcome.error == "exception" and "not a real number" in outcome.output, (expression, outcome)
    expected = {"8**(1/3)": "2.0", "-(8**(1/3))": "-2.0", "(-8)**3": "-512", "(-8)**-1": "-0.125"}
    for expression, value in expected.items():
        assert registry.run("calculator", {"expression": expression}).output == value, expression
    return "error for 3 complex results"


# =========================================================================== the REPL


@fault("repl/save-null-byte", ALL,
       "`/save a<NUL>b.json`, `/load a<NUL>b.json` and a command that raises: each one ❌ line; "
       "the conversation goes on; exit 0")
def repl_save_null_byte(kind):
    def broken_usage(repl):
        repl.cmd_usage = lambda rest: 1 / 0  # a command with a bug of its own

    with tempfile.TemporaryDirectory() as folder:
        middle = [f"/save {folder}/a\0b.json", f"/load {folder}/a\0b.json", "/usage", "/history"]
        outcome = survives_commands(kind, middle, 3, "null byte|ZeroDivisionError", broken_usage)
        assert os.listdir(folder) == []
    return outcome


@fault("repl/load-nested-file", ALL,
       "`/load` of a file nested 100,000 deep: one ❌ line, the conversation kept; exit 0")
def repl_load_nested(kind):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "nested.json")
        Path(path).write_text('{"format": "vero.session", "version": 1, "history": ' + deep_json(NESTED) + "}",
                              encoding="utf-8")
        return survives_commands(kind, [f"/load {path}"], 1, "nested too deeply")


# =========================================================================== the command line


@fault("cli/closed-stdin", ("direct",),
       "`vero chat <&-` ends like end of input (Bye., exit 0); `vero run - <&-` says there is no input (exit 2)")
def cli_closed_stdin(kind):
    url = "http://127.0.0.1:9/v1"  # never called
    with tempfile.TemporaryDirectory() as folder:
        chat = vero_closed_stdin(["chat", "--base-url", url, "--agent", "plan"], folder)
        run = vero_closed_stdin(["run", "-", "--base-url", url], folder)
    assert chat.returncode == 0 and chat.stdout.rstrip().endswith("Bye."), (chat.stdout, chat.stderr)
    assert chat.stderr == "", chat.stderr
    assert run.returncode == 2 and run.stdout == "", (run.stdout, run.stderr)
    assert run.stderr.startswith("vero: ") and "standard input is closed" in run.stderr, run.stderr
    assert len(run.stderr.splitlines()) == 1
    return "chat: exit 0; run: exit 2 with one line"


@fault("cli/run-load-nested-file", ("direct",),
       "`vero run --load nested.json` exits 2 with one `vero: ...` line, like a corrupted file")
def cli_load_nested(kind):
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "nested.json").write_text(
            '{"format": "vero.session", "version": 1, "history": ' + deep_json(NESTED) + "}", encoding="utf-8")
        Path(folder, "corrupt.json").write_text("{not json", encoding="utf-8")
        started = {name: subprocess.Popen(  # both at once: each is a process of its own
            [sys.executable, "-m", "vero", "run", "hi", "--load", f"{name}.json", "--base-url",
             "http://127.0.0.1:9/v1"], cwd=folder, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8") for name in ("nested", "corrupt")}
        done = {}
        try:
            for name, proc in started.items():
                out, err = proc.communicate(timeout=60)
                done[name] = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        finally:
            for proc in started.values():
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    for name, result in done.items():
        assert result.returncode == 2, (name, result.returncode, result.stderr)
        assert result.stderr.startswith(f"vero: cannot read session file '{name}.json'"), (name, result.stderr)
        assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    return "exit 2, one line, for both"


@fault("agents/concurrent-runs-on-one-agent", ALL,
       "a second run() while one is running raises ConcurrentRunError at once; the first run ends ok, "
       "last_result and history are its own")
def concurrent_runs(kind):
    from vero.core.agent import ConcurrentRunError

    inside, release = threading.Event(), threading.Event()
    script = happy(kind)

    def first_reply(messages):  # the first model call waits until the second run() was tried
        inside.set()
        assert release.wait(10)
        return script[0]

    agent = make_agent(kind, ScriptedLLM([first_reply, *script[1:]]))
    worker = threading.Thread(target=agent.run, args=(TASK,))
    worker.start()
    assert inside.wait(10)
    try:
        agent.run("another task")
        raise AssertionError("the second run() did not refuse")
    except ConcurrentRunError as exc:
        refused = str(exc)
    finally:
        release.set()
        worker.join(10)
    result = agent.last_result
    assert result.status == "ok" and result.task == TASK and result.answer == "Paris", (result.status, result.task)
    assert history_texts(agent) == [TASK, "Paris"]
    assert "already running" in refused
    return "second run() refused at once (ConcurrentRunError); the first ended ok with its own result"


@fault("tools/1000-calls-in-one-reply", ("chat", "react_native"),
       "a reply with 1,000 tool calls runs the first max_tool_calls_per_reply (8); every other call is "
       "answered 'Not run: at most 8 ...'; a warning step; the run ends ok")
def thousand_calls(kind):
    ran = []

    @tool
    def ping(n: int) -> str:
        """Ping."""
        ran.append(n)
        return "pong"

    many = {"tool_calls": [{"name": "ping", "arguments": {"n": n}} for n in range(1000)]}
    llm = ScriptedLLM([many, "done"])
    agent = make_agent(kind, llm, tools=[ping])
    assert agent.run(TASK) == "done" and agent.last_result.status == "ok", agent.last_result.error
    assert ran == list(range(8)), ran[:20]
    answers = [m for m in llm.requests[1].messages if m["role"] == "tool"]
    assert len(answers) == 1000 and all(a["content"].startswith("Not run: at most 8") for a in answers[8:])
    assert any("1000 tool calls in one reply" in s.content for s in agent.last_result.steps_of("warning"))
    return "8 run, 992 answered 'not run'; ok"


# =========================================================================== pytest


test_fault = fault_test(FAULTS)


def test_row_names_are_unique_and_described():
    names = [row.name for row in FAULTS]
    assert len(set(names)) == len(names)
    assert all(row.agents and row.expected for row in FAULTS)


def test_var_positional_gets_nothing_and_var_keyword_gets_the_extra_arguments():
    @tool
    def gather(first: int, *rest, **options) -> str:
        """*rest is not in the schema (a model cannot fill it); **options takes any other argument."""
        return f"{first} {rest} {sorted(options.items())}"

    assert "rest" not in gather.parameters["properties"] and "additionalProperties" not in gather.parameters
    assert ToolRegistry([gather]).run("gather", {"first": "1", "x": 2, "rest": 3}).output == \
        "1 () [('rest', 3), ('x', 2)]"


def test_tool_call_arguments_sent_as_an_object_are_kept_as_json_text():
    from vero.core.message import Message, ToolCall

    call = ToolCall.from_dict({"id": "c1", "function": {"name": "add", "arguments": {"a": 1}}})
    assert call == ToolCall("c1", "add", '{"a": 1}')
    record = {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "add", "arguments": {"a": 1}}}]}
    assert Message.from_dict(record).tool_calls == [call]
