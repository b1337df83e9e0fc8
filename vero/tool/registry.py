"""ToolRegistry: the tools an agent may call, and the one place they are run.

``run(name, args)`` never raises: an unknown tool, bad arguments, an exception
or a timeout all become an observation string the model can read and react
to.  Output is never truncated here; the agent decides what fits a prompt.
"""

from __future__ import annotations

import _thread
import contextvars
import os
import json
import logging
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from vero.core.parsing import parse_json_value
from vero.tool.base import Tool, ToolArgumentError, tool

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class ToolOutcome:
    """What running a tool produced.

    ``error`` is a short kind when ``ok`` is False:
    ``"unknown_tool" | "bad_arguments" | "exception" | "timeout"``.
    """

    output: str
    ok: bool
    error: str | None = None

    def __str__(self) -> str:
        return self.output


class _TimedOut(Exception):
    pass


class _Worker:
    """A daemon thread that runs one tool call at a time, then waits to be reused."""

    idle: list["_Worker"] = []
    idle_lock = _thread.allocate_lock()

    def __init__(self) -> None:
        self.wake = _thread.allocate_lock()
        self.wake.acquire()
        self.job: tuple | None = None
        _thread.start_new_thread(self._loop, ())

    @classmethod
    def take(cls) -> "_Worker":
        with cls.idle_lock:
            return cls.idle.pop() if cls.idle else cls()

    def _loop(self) -> None:
        while True:
            self.wake.acquire()
            func, kwargs, box, done, context = self.job
            self.job = None
            try:
                box.append((True, context.run(func, **kwargs)))
            except BaseException as exc:  # re-raised in the caller's thread
                box.append((False, exc))
            done.release()
            with self.idle_lock:
                self.idle.append(self)


def _forget_workers_after_fork() -> None:
    # A forked child has none of the parent's worker threads, only their objects.
    _Worker.idle = []
    _Worker.idle_lock = _thread.allocate_lock()


os.register_at_fork(after_in_child=_forget_workers_after_fork)


def _call_with_timeout(func: Callable, kwargs: dict, timeout: float) -> Any:
    """Call ``func`` on a daemon worker thread and wait at most ``timeout`` seconds.

    Idle workers are reused (starting a thread costs ~0.1-1 ms, and this runs
    on every tool call); a new one starts only when none is idle.  A tool that
    times out keeps its worker busy until it returns, so hung tools can neither
    exhaust a fixed pool nor keep the interpreter from exiting (daemon threads).
    """
    box: list = []
    done = _thread.allocate_lock()
    done.acquire()
    worker = _Worker.take()
    worker.job = (func, kwargs, box, done, contextvars.copy_context())  # as if called directly
    worker.wake.release()
    if not done.acquire(timeout=timeout):
        raise _TimedOut
    ok, value = box[0]
    if not ok:
        raise value
    return value


def to_text(result: Any) -> str:
    """Turn whatever a tool returned into the observation text."""
    if isinstance(result, str):
        return result
    if result is None:
        return "(no output)"
    if isinstance(result, (bytes, bytearray)):
        return bytes(result).decode("utf-8", errors="replace")
    if isinstance(result, (dict, list)):
        return json.dumps(result, ensure_ascii=False, default=str)
    return str(result)


def _parse_arguments(tool: Tool, args: Any) -> dict:
    """Accept a dict, a (possibly sloppy) JSON object string, None, or a bare string."""
    if args is None:
        return {}
    if isinstance(args, dict):
        return args
    if isinstance(args, (bytes, bytearray)):
        args = bytes(args).decode("utf-8", errors="replace")
    if not isinstance(args, str):
        raise ToolArgumentError(f"expects a JSON object of arguments, got {type(args).__name__}.")
    text = args.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            parsed = parse_json_value(text)
        except ValueError as exc:
            raise ToolArgumentError(f"got arguments that are not usable JSON ({exc}).") from None
        if isinstance(parsed, dict):
            return parsed
    if not tool.parameters["properties"]:
        return {}  # a tool without parameters ignores stray input such as "None"
    if tool.sole_parameter is None:
        raise ToolArgumentError(
            f"expects a JSON object of arguments, got {text[:60]!r}. "
            f"Expected arguments: {tool.expected_arguments()}."
        )
    if len(text) >= 2 and text[0] == text[-1] == '"':  # a quoted JSON string
        try:
            return {tool.sole_parameter: json.loads(text)}
        except ValueError:
            pass
    return {tool.sole_parameter: args}


class ToolRegistry:
    """Named tools plus their schemas, and a safe way to run them.

    ``default_timeout`` (seconds) applies to tools whose own ``timeout`` is
    None.  No limit (``default_timeout=None``, or a tool's ``timeout=math.inf``)
    runs the tool directly on the caller's thread.
    """

    def __init__(self, tools: Iterable[Tool | Callable] | None = None, default_timeout: float | None = 30.0):
        self.default_timeout = default_timeout
        self._tools: dict[str, Tool] = {}
        self._schemas: list[dict] | None = None
        self._description: str | None = None
        if isinstance(tools, dict):
            tools = tools.values()
        for item in tools or ():
            self.register(item)

    # ------------------------------------------------------------------ contents

    def register(self, item: Tool | Callable) -> Tool:
        """Add a tool (plain functions are wrapped with ``@tool``); returns it,
        so ``@registry.register`` works as a decorator."""
        new = item if isinstance(item, Tool) else tool(item)
        if new.name in self._tools:
            logger.warning("tool %r registered twice; the new one replaces the old", new.name)
        self._tools[new.name] = new
        self._schemas = self._description = None
        return new

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict]:
        """The OpenAI ``tools=`` list (cached: it is sent with every model call)."""
        if self._schemas is None:
            self._schemas = [t.schema for t in self._tools.values()]
        return self._schemas

    def describe(self) -> str:
        """One line per tool, for agents that list tools in the prompt."""
        if self._description is None:
            self._description = "\n".join(_describe_line(t) for t in self._tools.values())
        return self._description

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __bool__(self) -> bool:
        return bool(self._tools)

    def __repr__(self) -> str:
        return f"ToolRegistry({', '.join(self._tools)})"

    # ------------------------------------------------------------------ running

    def execute(self, name: str, args: Any = None) -> str:
        """Run a tool and return only the observation text."""
        return self.run(name, args).output

    def run(self, name: str, args: Any = None) -> ToolOutcome:
        """Run tool ``name`` with ``args``; every failure becomes an observation."""
        found = self._tools.get(name) if isinstance(name, str) else None
        if found is None:
            valid = ", ".join(self._tools) or "(none)"
            return ToolOutcome(f"Error: unknown tool {name!r}. Valid tools: {valid}.", False, "unknown_tool")
        try:
            kwargs = found.validate(_parse_arguments(found, args))
        except ToolArgumentError as exc:
            return ToolOutcome(f"Error: tool {name!r} {exc}", False, "bad_arguments")
        timeout = found.timeout if found.timeout is not None else self.default_timeout
        try:
            if timeout is None or math.isinf(timeout):
                result = found.func(**kwargs)
            else:
                result = _call_with_timeout(found.func, kwargs, timeout)
            return ToolOutcome(to_text(result), True)
        except _TimedOut:
            return ToolOutcome(f"Error: tool {name!r} timed out after {float(timeout)} s.", False, "timeout")
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            return ToolOutcome(f"Error: tool {name!r} raised {detail}", False, "exception")


def _describe_line(t: Tool) -> str:
    line = f"- {t.name}({t.signature()}): {t.description}"
    notes = [f"{name} — {schema['description']}" for name, schema in t.parameters["properties"].items()
             if schema.get("description")]
    return f"{line} Args: {'; '.join(notes)}." if notes else line
