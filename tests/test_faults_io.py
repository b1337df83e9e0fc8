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
    REACT_FAMILY,
    TASK,
    TOOL_AGENTS,
    FaultRow,
    around_react,
    cli_env,
    fault_test,
    final,
    happy,
    happy_default,
    history_texts,
    make_agent,
    patched,
    row_registry,
    run_one_tool,
    tool_script,
)

from vero import tool
from vero.errors import SessionFormatError
from vero.testing import ScriptedLLM
from vero.tools import ToolRegistry
from vero.tools import registry as registry_module

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
    with (
        contextlib.redirect_stdout(out),
        patched(builtins, "input", fake_input),
        patched(repl_module, "_enable_readline", lambda: None),
    ):
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
    return subprocess.run(
        command, cwd=folder, env=cli_env(), capture_output=True, text=True, encoding="utf-8", timeout=60
    )


# =========================================================================== persistence

NESTED = 100_000


@fault(
    "persistence/nested-session-file",
    ALL,
    "a session file nested 100,000 deep (in the history, a message or unclosed) raises "
    "SessionFormatError ('nested too deeply'); history unchanged; the next run ok",
)
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


@fault(
    "persistence/session-wrong-types",
    ALL,
    "any message field of the wrong type (role, content, tool_calls, function, ids, name, reasoning, usage) "
    "or a history that is no list raises SessionFormatError; history unchanged; the next run ok",
)
def persistence_wrong_types(kind):
    good = {"role": "user", "content": "fine"}
    cases = {name: session_text([good, message]) for name, message in WRONG_MESSAGES.items()}
    cases.update(
        {
            "history-text": session_text("user: hi"),
            "history-object": session_text({"role": "user", "content": "hi"}),
            "history-missing": json.dumps({"format": "vero.session", "version": 1}),
        }
    )
    return refuses_to_load(kind, cases, "corrupted history|no history")


@fault(
    "persistence/session-bad-version",
    ALL,
    "a version that is not a positive whole number up to the current one (true, false, -7, 0, 1.5, '1', "
    "null, [1], 2) raises SessionFormatError; history unchanged; the next run ok",
)
def persistence_bad_version(kind):
    versions = {
        "true": True,
        "false": False,
        "negative": -7,
        "zero": 0,
        "fraction": 1.5,
        "text": "1",
        "null": None,
        "list": [1],
        "newer": 2,
    }
    cases = {name: session_text([{"role": "user", "content": "hi"}], version) for name, version in versions.items()}
    return refuses_to_load(kind, cases, "version")


@fault(
    "persistence/save-over-symlink",
    ALL,
    "saving through a symlink (or a dangling one) writes the link's target atomically; the link stays a link",
)
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


@fault(
    "tools/positional-only-params",
    TOOL_AGENTS,
    "a tool `def f(a, b=10, /)` is called with its arguments positionally, in order (defaults filled); ok",
)
def tools_positional_only(kind):
    _, _, sent, step = run_one_tool(kind, [add_positional], "add_positional", {"a": 2, "b": "3"})
    assert sent == "5" and step.data["ok"], sent
    registry = ToolRegistry([add_positional, mixed_kinds])
    assert registry.run("add_positional", {"a": 2}).output == "12"
    assert registry.run("add_positional", '{"b": 1, "a": 2}').output == "3"
    assert registry.run("mixed_kinds", {"c": 3, "b": 2, "a": 1}).output == "1-2-3"
    assert registry.run("add_positional", {"b": 1}).error == "bad_arguments"
    return "ok; called positionally"


@fault(
    "tools/hung-tools-bounded-threads",
    ("direct",),
    "hung tools (timeout 0.01 s) hold at most MAX_STUCK_WORKERS threads; further calls fail at once with a "
    "`still running` observation (error `busy`); once they return, at most MAX_IDLE_WORKERS idle threads stay",
)
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


@fault(
    "tools/slow-str-result",
    TOOL_AGENTS,
    "a result whose __str__ hangs is turned into text under the tool's timeout: `timed out after 0.2 s`; ok",
)
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


@tool
async def count_to_async(n: int):
    """Count from 1 to n, as an async generator."""
    for number in range(1, n + 1):
        yield number


@tool
async def count_forever_async():
    """Count for ever, as an async generator."""
    number = 0
    while True:
        number += 1
        yield number


@fault(
    "tools/generator-result",
    TOOL_AGENTS,
    "a generator, or an async generator, is consumed (in the worker, under the timeout) into a JSON list, at most "
    "MAX_GENERATED_ITEMS items, then a `stopped after` note (never its repr as a result); ok",
)
def tools_generator(kind):
    limit = getattr(registry_module, "MAX_GENERATED_ITEMS", 10_000)
    for counting, endless in ((count_to, count_forever), (count_to_async, count_forever_async)):
        _, _, sent, step = run_one_tool(kind, [counting], counting.name, {"n": 3})
        assert sent == "[1, 2, 3]" and step.data["ok"], sent
        outcome = ToolRegistry([endless]).run(endless.name)
        assert outcome.ok and outcome.output.startswith("[1, 2, 3, "), outcome.output[:80]
        assert outcome.output.endswith(f"...[the generator was stopped after {limit:,} items]"), outcome.output[-80:]
    return "ok; consumed into a list"


@tool
def interrupts() -> str:
    """Raises KeyboardInterrupt itself."""
    raise KeyboardInterrupt("the tool's own")


@fault(
    "tools/raises-keyboardinterrupt",
    TOOL_AGENTS,
    "a KeyboardInterrupt raised by a tool on its worker thread is the tool's error: a `raised "
    "KeyboardInterrupt` observation; ok (without a timeout, on the caller's thread, it propagates)",
)
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


@fault(
    "tools/deeply-nested-arguments",
    ("direct",),
    "arguments nested 50,000-100,000 deep (unclosed JSON, valid JSON, or a Python dict) give a "
    "`bad_arguments` observation, never an exception",
)
def tools_nested_arguments(kind):
    from vero.tools.builtin import calculator

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


@fault(
    "tools/calculator-complex",
    ("direct",),
    "a power with a complex result ((-8)**(1/3), pow(-8, 1/3), (-1)**0.5) is an error "
    "`... is not a real number`; real powers still work",
)
def tools_calculator_complex(kind):
    from vero.tools.builtin import calculator

    registry = ToolRegistry([calculator])
    for expression in ("(-8)**(1/3)", "pow(-8, 1/3)", "(-1)**0.5"):
        outcome = registry.run("calculator", {"expression": expression})
        assert outcome.error == "exception" and "not a real number" in outcome.output, (expression, outcome)
    expected = {"8**(1/3)": "2.0", "-(8**(1/3))": "-2.0", "(-8)**3": "-512", "(-8)**-1": "-0.125"}
    for expression, value in expected.items():
        assert registry.run("calculator", {"expression": expression}).output == value, expression
    return "error for 3 complex results"


# =========================================================================== the REPL


@fault(
    "repl/save-null-byte",
    ALL,
    "`/save a<NUL>b.json`, `/load a<NUL>b.json` and a command that raises: each one ❌ line; "
    "the conversation goes on; exit 0",
)
def repl_save_null_byte(kind):
    def broken_usage(repl):
        repl.cmd_usage = lambda rest: 1 / 0  # a command with a bug of its own

    with tempfile.TemporaryDirectory() as folder:
        middle = [f"/save {folder}/a\0b.json", f"/load {folder}/a\0b.json", "/usage", "/history"]
        outcome = survives_commands(kind, middle, 3, "null byte|ZeroDivisionError", broken_usage)
        assert os.listdir(folder) == []
    return outcome


@fault(
    "repl/load-nested-file", ALL, "`/load` of a file nested 100,000 deep: one ❌ line, the conversation kept; exit 0"
)
def repl_load_nested(kind):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "nested.json")
        Path(path).write_text(
            '{"format": "vero.session", "version": 1, "history": ' + deep_json(NESTED) + "}", encoding="utf-8"
        )
        return survives_commands(kind, [f"/load {path}"], 1, "nested too deeply")


# =========================================================================== the command line


@fault(
    "cli/closed-stdin",
    ("direct",),
    "`vero chat <&-` ends like end of input (Bye., exit 0); `vero run - <&-` says there is no input (exit 2)",
)
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


@fault(
    "cli/run-load-nested-file",
    ("direct",),
    "`vero run --load nested.json` exits 2 with one `vero: ...` line, like a corrupted file",
)
def cli_load_nested(kind):
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "nested.json").write_text(
            '{"format": "vero.session", "version": 1, "history": ' + deep_json(NESTED) + "}", encoding="utf-8"
        )
        Path(folder, "corrupt.json").write_text("{not json", encoding="utf-8")
        started = {
            name: subprocess.Popen(  # both at once: each is a process of its own
                [
                    sys.executable,
                    "-m",
                    "vero",
                    "run",
                    "hi",
                    "--load",
                    f"{name}.json",
                    "--base-url",
                    "http://127.0.0.1:9/v1",
                ],
                cwd=folder,
                env=cli_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
            )
            for name in ("nested", "corrupt")
        }
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


@fault(
    "agents/concurrent-runs-on-one-agent",
    ALL,
    "a second run() while one is running raises ConcurrentRunError at once; the first run ends ok, "
    "last_result and history are its own",
)
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


@fault(
    "tools/1000-calls-in-one-reply",
    ("chat", "react_native"),
    "a reply with 1,000 tool calls runs the first max_tool_calls_per_reply (8); every other call is "
    "answered 'Not run: at most 8 ...'; a warning step; the run ends ok",
)
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


# =========================================================================== untrusted folders (issue 34)


SANDBOX_CHECK = (
    "from vero.config import get_settings; get_settings(); "
    "from vero.tools.builtin.python_runner import sandbox_enabled; print('sandbox on:', sandbox_enabled())"
)


@fault(
    "config/dotenv-cannot-disable-safety",
    ("direct",),
    "a ./.env with VERO_PYTHON_SANDBOX=off leaves the sandbox on (one `ignored` line); a ./.env naming "
    "OPENAI_BASE_URL while the key comes from the environment gives one warning line naming the file and host, "
    "before the first request; the key is never printed",
)
def config_dotenv_safety(kind):
    from mock_pool import pooled_mock_server
    from test_faults import KEY

    with tempfile.TemporaryDirectory() as folder, pooled_mock_server(["Paris", "Rome"]) as srv:
        dotenv = os.path.join(folder, ".env")
        Path(dotenv).write_text(f"OPENAI_BASE_URL={srv.base_url}\nVERO_PYTHON_SANDBOX=off\n", encoding="utf-8")
        check = subprocess.run(
            [sys.executable, "-c", SANDBOX_CHECK], cwd=folder, env=cli_env(), capture_output=True, text=True, timeout=60
        )
        run = subprocess.run(
            [sys.executable, "-m", "vero", "run", TASK, "--agent", "chat", "--tools", "none"],
            cwd=folder,
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        requests = len(srv.requests)
    assert check.stdout.strip() == "sandbox on: True", (check.stdout, check.stderr)
    ignored = [line for line in check.stderr.splitlines() if "VERO_PYTHON_SANDBOX" in line]
    assert len(ignored) == 1 and "ignored" in ignored[0] and dotenv in ignored[0], check.stderr
    assert run.returncode == 0 and "Paris" in run.stdout and requests == 1, (run.stdout, run.stderr)
    warned = [line for line in run.stderr.splitlines() if "OPENAI_BASE_URL" in line]
    assert len(warned) == 1 and dotenv in warned[0] and "host 127.0.0.1" in warned[0], run.stderr
    assert "OPENAI_API_KEY comes from the environment" in warned[0], warned
    assert KEY not in run.stderr + run.stdout + check.stderr
    return "the sandbox stays on; one warning naming the .env and the host"


# =========================================================================== odd files (issue 34)


def odd_targets(folder: str) -> dict[str, str]:
    """Things in ``folder`` that are not regular files: a FIFO, a socket, a folder and (as root) a device node.

    Made in a temporary folder, never in /dev: the device node has /dev/null's numbers, so replacing
    it (the old bug) harms nothing.
    """
    import socket
    import stat

    targets = {
        "fifo": os.path.join(folder, "fifo"),
        "folder": os.path.join(folder, "folder"),
        "socket": os.path.join(folder, "sock"),
    }
    os.mkfifo(targets["fifo"])
    os.mkdir(targets["folder"])
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(targets["socket"])
    listener.close()  # the socket file stays
    if os.geteuid() == 0:
        targets["device"] = os.path.join(folder, "null-device")
        os.mknod(targets["device"], stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return targets


def in_time(function: Callable[[], object], seconds: float = 10.0) -> object:
    """``function()`` on a daemon thread; a call still running after ``seconds`` (a hang) fails the check."""
    outcome: list = []

    def call():
        try:
            outcome.append(("returned", function()))
        except BaseException as exc:  # noqa: BLE001 - reported below
            outcome.append(("raised", exc))

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"still running after {seconds:g} s (a hang)"
    return outcome[0]


def unblock_fifo(path: str) -> None:
    """Release a thread of the old code stuck opening ``path`` (a FIFO) by opening its other end."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        os.close(fd)


@fault(
    "persistence/save-odd-targets",
    ALL,
    "saving onto a FIFO, socket, folder or device node (directly or through a symlink) raises OSError naming "
    "the path and leaves it as it was; saving through a symlink keeps the target's mode and owner; a failed save "
    "names the user's path, never the temporary file",
)
def persistence_save_odd(kind):
    import stat

    agent = agent_after_one_turn(kind)
    with tempfile.TemporaryDirectory() as folder:
        targets = odd_targets(folder)
        for name, path in targets.items():
            link = os.path.join(folder, f"link-to-{name}")
            os.symlink(path, link)
            for given in (path, link):
                kind_before = stat.S_IFMT(os.lstat(path).st_mode)
                status, value = in_time(lambda given=given: agent.save(given))
                assert status == "raised" and isinstance(value, OSError), (given, status, value)
                assert "not a regular file" in str(value) and given in str(value), str(value)
                assert stat.S_IFMT(os.lstat(path).st_mode) == kind_before, f"{given} was replaced"
        real, link = os.path.join(folder, "shared.json"), os.path.join(folder, "link.json")
        Path(real).write_text("{}", encoding="utf-8")
        os.chmod(real, 0o640)
        owner = (12345, 12345) if os.geteuid() == 0 else (os.geteuid(), os.getegid())
        os.chown(real, *owner)
        os.symlink(real, link)
        agent.save(link)
        info = os.stat(real)
        assert (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid) == (0o640, *owner), oct(info.st_mode)
        assert os.path.islink(link) and len(Path(real).read_text(encoding="utf-8")) > 2
        missing = os.path.join(folder, "no-such-folder", "s.json")
        status, value = in_time(lambda: agent.save(missing))
        assert status == "raised" and missing in str(value) and ".vero-" not in str(value), str(value)
        assert sorted(os.listdir(folder)) == sorted(
            [
                "shared.json",
                "link.json",
                *(os.path.basename(p) for p in targets.values()),
                *(f"link-to-{n}" for n in targets),
            ]
        )
    return f"{len(targets)} kinds refused, directly and through links; mode and owner kept; errors name the path"


LOAD_ZERO = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # the old code reads /dev/zero until this stops it
from vero.core.session import load_session
from vero.errors import SessionFormatError
try:
    load_session(sys.argv[1])
except SessionFormatError as exc:
    print("refused:", exc)
"""


@fault(
    "persistence/load-odd-targets",
    ("direct",),
    "loading a FIFO (no writer), /dev/zero through a symlink, a socket or a folder raises SessionFormatError at "
    "once; a file larger than 64 MiB is refused without being read",
)
def persistence_load_odd(kind):
    from vero.core.session import MAX_SESSION_BYTES, load_session

    with tempfile.TemporaryDirectory() as folder:
        targets = odd_targets(folder)
        zero = os.path.join(folder, "zero.json")
        os.symlink("/dev/zero", zero)
        big = os.path.join(folder, "big.json")
        with open(big, "wb") as file:
            file.truncate(MAX_SESSION_BYTES + 1)  # sparse: costs no disk
        try:
            for name, path in {**targets, "big": big}.items():
                status, value = in_time(lambda path=path: load_session(path))
                assert status == "raised" and isinstance(value, SessionFormatError), (name, status, value)
                assert ("not a regular file" if name != "big" else "larger than 64 MiB") in str(value), str(value)
        finally:
            unblock_fifo(targets["fifo"])
        proc = subprocess.run(
            [sys.executable, "-c", LOAD_ZERO, zero], env=cli_env(), capture_output=True, text=True, timeout=60
        )
    assert proc.stdout.startswith("refused:") and "not a regular file but a device" in proc.stdout, (
        proc.stdout,
        proc.stderr[-500:],
    )
    return f"{len(targets) + 2} odd files refused at once"


@fault(
    "repl/load-save-odd-targets",
    ALL,
    "`/load` of a FIFO and `/save` onto one: one ❌ line each naming the path, no hang; the conversation goes on",
)
def repl_odd_targets(kind):
    with tempfile.TemporaryDirectory() as folder:
        fifo = os.path.join(folder, "fifo")
        os.mkfifo(fifo)
        try:
            status, value = in_time(
                lambda: survives_commands(
                    kind, [f"/load {fifo}", f"/save {fifo}"], 2, re.escape(fifo) + ".*not a regular file"
                )
            )
        finally:
            unblock_fifo(fifo)
    if status == "raised":
        raise value
    return str(value)


TRACE_LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing
resource.setrlimit(resource.RLIMIT_FSIZE, (600, 600))  # the trace's first lines fit, the rest do not
from vero.cli import main
sys.exit(main(sys.argv[1:]))
"""


@fault(
    "cli/trace-odd-targets",
    ("direct",),
    "`vero run --trace` onto a FIFO or a link to /dev/full exits 2 with one `vero: cannot write the trace file` "
    "line, without waiting; a trace write that fails mid-run (file size limit) is reported in one line and the "
    "run exits 1",
)
def cli_trace_odd(kind):
    from mock_pool import pooled_mock_server

    with tempfile.TemporaryDirectory() as folder, pooled_mock_server(["Paris"]) as srv:
        os.mkfifo(os.path.join(folder, "fifo"))
        os.symlink("/dev/full", os.path.join(folder, "full"))
        base = ["run", TASK, "--agent", "chat", "--tools", "none", "--base-url", srv.base_url]
        refused = {}
        for name in ("fifo", "full"):
            refused[name] = subprocess.run(
                [sys.executable, "-m", "vero", *base, "--trace", name],
                cwd=folder,
                env=cli_env(),
                capture_output=True,
                text=True,
                timeout=60,
            )
        failed = subprocess.run(
            [sys.executable, "-c", TRACE_LIMITED, *base, "--trace", "trace.jsonl"],
            cwd=folder,
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        written = Path(folder, "trace.jsonl").read_text(encoding="utf-8", errors="replace")
    for name, proc in refused.items():
        assert proc.returncode == 2 and proc.stdout == "", (name, proc.returncode, proc.stdout, proc.stderr)
        assert proc.stderr.startswith(f"vero: cannot write the trace file {name}: not a regular file"), proc.stderr
        assert len(proc.stderr.splitlines()) == 1, proc.stderr
    lines = failed.stderr.splitlines()
    assert failed.returncode == 1 and "Paris" in failed.stdout, (failed.returncode, failed.stdout, failed.stderr)
    assert len(lines) == 1 and "trace file trace.jsonl could not be written" in lines[0], failed.stderr
    assert 0 < len(written) <= 600, len(written)
    return "refused at once (exit 2); a failed write: one line, exit 1"


# =========================================================================== cancelling (issue 34)


@fault(
    "agents/cancel-stops-at-next-call",
    ALL + ("react_native",),
    "Agent.cancel() during a model call (as from another thread) stops the run before its next model or tool "
    "call: status cancelled, the Cancelled error, exactly one model call, history unchanged; the agent runs again",
)
def agents_cancel(kind):
    from vero.errors import Cancelled

    holder: list = []
    ran: list = []

    @tool
    def remember(note: str) -> str:
        """Remember a note."""
        ran.append(note)
        return "remembered"

    # Each script needs a second model call (the critic) or a tool call after the first reply.
    script = happy(kind) if kind == "reflection" else tool_script(kind, "remember", {"note": "x"})

    def cancel_now(messages):
        assert holder[0].cancel() is True  # a run is in progress
        return script[0]

    again = around_react(kind, [final("Rome")], "Rome") if kind in REACT_FAMILY else happy(kind, "Rome")
    llm = ScriptedLLM([cancel_now, *again])
    agent = make_agent(kind, llm, [remember])
    holder.append(agent)
    assert agent.cancel() is False  # no run: nothing to cancel
    answer = agent.run(TASK)
    result = agent.last_result
    assert result.status == "cancelled" and isinstance(result.error, Cancelled), (result.status, result.error)
    assert llm.calls == 1 and ran == [] and agent.history == [], (llm.calls, ran, agent.history)
    assert isinstance(answer, str)
    assert agent.run("And of Italy?") == "Rome" and agent.last_result.ok, agent.last_result.error
    return "cancelled after 1 call; history unchanged; the next run ok"


RUN_MANY_SLOW = """
import itertools, signal, sys, time
# Ctrl-C as in a terminal, also when the tests run as a background job (SIGINT ignored, inherited)
signal.signal(signal.SIGINT, signal.default_int_handler)
from vero import ReActAgent, tool
from vero.batch import run_many
from vero.testing import ScriptedLLM

CALL_SECONDS = float(sys.argv[1])
count = itertools.count()


@tool(read_only=True)
def add(a: int, b: int) -> int:
    \"\"\"Add two numbers.\"\"\"
    return a + b


def slow_reply(messages):
    time.sleep(CALL_SECONDS)  # one model call
    return f'Thought: more\\nAction: add\\nAction Input: {{"a": {next(count)}, "b": 1}}'


llm, made = ScriptedLLM(default=slow_reply), []


def make():
    made.append(ReActAgent("slow", llm, tools=[add], max_turns=40, verbose=False))
    return made[-1]


print("started", flush=True)
try:
    run_many(make, ["count up"] * 4, max_workers=4, progress=False)
except KeyboardInterrupt:
    print("interrupted", sorted(str(a.last_result.status) for a in made), llm.calls, flush=True)
"""


@fault(
    "batch/ctrl-c-stops-running-agents",
    ("direct",),
    "one Ctrl-C (SIGINT) during run_many with 4 agents, each 40 model calls of 0.25 s: run_many raises "
    "KeyboardInterrupt within about one model call; every running agent ends cancelled",
)
def batch_ctrl_c(kind):
    call_seconds = 0.25
    proc = subprocess.Popen(
        [sys.executable, "-c", RUN_MANY_SLOW, str(call_seconds)],
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
        time.sleep(4 * call_seconds)  # the agents are mid-run
        proc.send_signal(2)  # SIGINT, as Ctrl-C sends it
        interrupted = time.monotonic()
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - interrupted
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert out.startswith("interrupted"), (out, err[-2000:])
    assert "['cancelled', 'cancelled', 'cancelled', 'cancelled']" in out, out
    assert took < 16 * call_seconds, f"returned {took:.1f} s after Ctrl-C (a run takes {40 * call_seconds:g} s)"
    return f"returned {took:.2f} s after Ctrl-C; 4 runs cancelled"


# =========================================================================== issue 44: nudges, arun, vero trace


NUDGE_AGENTS = ("react", "react_native", "chat")  # the agents that consult recovery rules on an answer


@fault(
    "recovery/no-nudge-toward-a-change",
    NUDGE_AGENTS,
    "with recovery='small-model': an answer that asks the user to confirm ('... Shall I go ahead?') and one that "
    "announces a call of a tool that may change things are each returned as written after one model call; the "
    "scripted call of that tool that a 'go ahead' would have drawn never runs",
)
def no_nudge_toward_a_change(kind):
    archived: list = []

    @tool
    def archive_note(name: str) -> str:
        """Move a note to the archive."""
        archived.append(name)
        return "archived"

    call = tool_script(kind, "archive_note", {"name": "draft"})[0]
    for answer in ("I found the draft. Shall I go ahead and archive it?", "I will call archive_note for it now."):
        reply = final(answer) if kind == "react" else answer
        llm = ScriptedLLM([reply, call, happy(kind, "Archived.")[0]])
        agent = make_agent(kind, llm, [archive_note], recovery="small-model")
        assert agent.run("Archive the draft note.") == answer, agent.last_result.answer
        assert llm.calls == 1 and archived == [], (llm.calls, archived)
    return "both returned as written; 1 model call each; nothing archived"


@fault(
    "agents/arun-cancel-during-last-call",
    NUDGE_AGENTS,
    "cancelling the task awaiting arun() twice during its last model call: arun waits for the run to stop, then "
    "raises CancelledError; the run ends cancelled (the late reply is not used), history unchanged; the next arun ok",
)
def arun_cancel_during_last_call(kind):
    import asyncio

    entered, release = threading.Event(), threading.Event()

    def last_call(messages):
        entered.set()
        release.wait(30)
        return happy(kind, "Paris")[0]

    agent = make_agent(kind, ScriptedLLM([last_call, *happy(kind, "Rome")]))

    async def main():
        task = asyncio.create_task(agent.arun(TASK))
        await asyncio.to_thread(entered.wait, 30)
        for _ in range(2):
            task.cancel()
            await asyncio.sleep(0.01)
        waited = not task.done()
        release.set()
        try:
            await task
        except asyncio.CancelledError:
            return waited, await agent.arun("And of Italy?")
        raise AssertionError("arun returned after a cancel")

    waited, again = asyncio.run(main())
    assert waited, "arun returned before the run stopped"
    assert again == "Rome" and history_texts(agent) == ["And of Italy?", "Rome"], (again, history_texts(agent))
    return "waited for the run; CancelledError; history unchanged; the next arun ok"


def view_trace(path: str) -> tuple[int, str, str]:
    """``vero trace PATH`` in this process: exit code, stdout, stderr."""
    from vero.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["trace", path])
    return code, out.getvalue(), err.getvalue()


@fault(
    "cli/trace-view-hostile-files",
    ("direct",),
    "`vero trace`: a malformed event and a line nested 100,000 deep are each one marked line and the view goes on "
    "(exit 0); a FIFO with no writer, /dev/zero and a folder are refused at once (exit 2, `not a regular file`)",
)
def trace_view_hostile_files(kind):
    run = [
        {"type": "run_start", "agent": "a", "task": "Capital?"},
        {"type": "llm_start", "request": {"model": "m", "messages": [{"role": "user", "content": "Capital?"}]}},
        {"type": "llm_call", "reply": "not an object"},
        {"type": "run_end", "status": "ok", "answer": "Paris", "elapsed_s": 1.0},
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.jsonl")
        lines = [json.dumps(event) for event in run] + ["[" * 100_000 + "]" * 100_000, json.dumps(run[1])]
        Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
        code, out, _ = view_trace(path)
        marked = [line for line in out.splitlines() if line.startswith("⚠️ line")]
        assert code == 0 and len(marked) == 2 and "ended ok: Paris" in out and "── Call 2" in out, out
        fifo = os.path.join(folder, "trace.fifo")
        os.mkfifo(fifo)
        for odd in (fifo, "/dev/zero", folder):
            done: list = []
            worker = threading.Thread(target=lambda odd=odd, done=done: done.append(view_trace(odd)), daemon=True)
            worker.start()
            worker.join(10)
            if not done:  # free a reader stuck on the FIFO before failing
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            assert done and done[0][0] == 2 and "not a regular file" in done[0][2], (odd, done)
    return "2 marked lines, exit 0; FIFO, /dev/zero and a folder refused (exit 2)"


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
    assert (
        ToolRegistry([gather]).run("gather", {"first": "1", "x": 2, "rest": 3}).output == "1 () [('rest', 3), ('x', 2)]"
    )


def test_tool_call_arguments_sent_as_an_object_are_kept_as_json_text():
    from vero.core.message import Message, ToolCall

    call = ToolCall.from_dict({"id": "c1", "function": {"name": "add", "arguments": {"a": 1}}})
    assert call == ToolCall("c1", "add", '{"a": 1}')
    record = {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "add", "arguments": {"a": 1}}}]}
    assert Message.from_dict(record).tool_calls == [call]
