"""ToolRegistry: the tools an agent may call, and the one place they are run.

``run(name, args)`` never raises (but for the user's Ctrl-C): an unknown tool, bad arguments, an
exception or a timeout all become an observation the model can read.  Output is never truncated here.

A tool with a timeout (default 30 s) runs, and its result becomes text, on a daemon worker thread
from a small pool.  **A thread that times out cannot be killed: the tool runs on, and its side effects
can still happen after the "timed out" observation or a Ctrl-C** (give such a tool its own deadline, as
``python_exec`` does).  Hung tools are bounded (``MAX_STUCK_WORKERS``, then ``busy``; docs/reliability.md).
A tool without a limit runs on the caller's thread, where a KeyboardInterrupt propagates.
"""

from __future__ import annotations

import _thread
import contextlib
import contextvars
import copy
import functools
import io
import itertools
import json
import logging
import math
import os
import threading
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from vero.core.parsing import parse_json_value, unclosed_json
from vero.core.parsing.json_text import DECODER, valid_strings, valid_text, without_fence
from vero.core.result import ToolError, plain_output
from vero.core.text import clip
from vero.tools.base import MAX_GENERATED_ITEMS, Tool, ToolArgumentError, check_tool_name, tool
from vero.tools.schema import EXACT

logger = logging.getLogger(__name__)

MAX_IDLE_WORKERS = 8  # idle threads kept for the next calls
MAX_STUCK_WORKERS = 32  # timed-out calls still running before new calls are refused


@dataclass(slots=True)
class ToolOutcome:
    """What running a tool produced: the tool's full ``output`` (from ``ToolRegistry.run``), or the one the
    model is sent (from ``Agent.run_tool``: clipped).  ``error`` says why when ``ok`` is False
    (a ``vero.core.ToolError``, or an agent's own kind); ``repeated``: this run made the same call before."""

    output: str
    ok: bool
    error: ToolError | str | None = None
    repeated: bool = False

    def __str__(self) -> str:
        return self.output


class _TimedOut(Exception):
    pass


class _Busy(Exception):
    pass


@dataclass(slots=True)
class _Job:
    """One call handed to a worker, and whether its caller stopped waiting for it."""

    call: Callable[[], Any]
    context: contextvars.Context = field(default_factory=contextvars.copy_context)  # as if called directly
    done: _thread.LockType = field(default_factory=_thread.allocate_lock)  # held until ``result`` is set
    result: tuple[bool, Any] | None = None  # (True, value) or (False, exception)
    abandoned: bool = False  # set under _Worker.lock


class _Worker:
    """A daemon thread that runs one job at a time, then waits to be reused or exits."""

    lock = _thread.allocate_lock()  # guards ``idle``, ``stuck`` and every job's ``abandoned``
    idle: list[_Worker] = []
    stuck = 0  # abandoned jobs still running

    def __init__(self) -> None:
        self.wake = _thread.allocate_lock()
        self.wake.acquire()
        self.job: _Job | None = None
        _thread.start_new_thread(self._loop, ())

    def _loop(self) -> None:
        while True:
            self.wake.acquire()
            job, self.job = self.job, None
            assert job is not None  # set by the caller before it releases ``wake``
            try:
                job.result = (True, job.context.run(job.call))
            except BaseException as exc:  # handed to the caller's thread
                job.result = (False, exc)
            job.done.release()
            with _Worker.lock:
                if job.abandoned:
                    _Worker.stuck -= 1
                if len(_Worker.idle) >= MAX_IDLE_WORKERS:
                    return  # enough threads wait already: this one ends
                _Worker.idle.append(self)


def _forget_workers_after_fork() -> None:
    # A forked child has none of the parent's worker threads, only their objects.
    _Worker.idle = []
    _Worker.stuck = 0
    _Worker.lock = _thread.allocate_lock()


os.register_at_fork(after_in_child=_forget_workers_after_fork)


def _abandon(job: _Job) -> bool:
    """Stop waiting for ``job``: True if it is still running (now counted as stuck)."""
    with _Worker.lock:
        if job.result is not None:  # it finished meanwhile (the worker sets it before it locks)
            return False
        job.abandoned = True
        _Worker.stuck += 1
        return True


def _call_with_timeout(call: Callable[[], Any], timeout: float) -> Any:
    """Run ``call()`` on a (reused: a new thread costs ~0.1-1 ms) worker thread and wait at most ``timeout``
    seconds; ``_TimedOut``, or ``_Busy`` while ``MAX_STUCK_WORKERS`` jobs are stuck; ``call``'s errors re-raised."""
    with _Worker.lock:  # an idle worker, or a new one below; none while too many jobs are stuck
        if _Worker.stuck >= MAX_STUCK_WORKERS:
            raise _Busy
        worker = _Worker.idle.pop() if _Worker.idle else None
    worker = worker or _Worker()
    job = worker.job = _Job(call)
    job.done.acquire()  # before the worker runs, which releases it
    worker.wake.release()
    try:
        finished = job.done.acquire(timeout=max(0.0, min(timeout, _thread.TIMEOUT_MAX)))
    except BaseException:  # the user's Ctrl-C while waiting: the tool runs on, unwatched
        _abandon(job)
        raise
    if not finished and _abandon(job):
        raise _TimedOut
    assert job.result is not None  # set before ``done`` is released, or seen set by ``_abandon``
    ok, value = job.result
    if not ok:
        raise value
    return value


class UnwritableResult(Exception):
    """What a tool returned cannot be written as text (an int of 5,000 digits): vero failed, not the tool."""


def _listed(tools: Any) -> list[Any]:
    """``tools=`` as a list: a dict's keys name its tools, one tool or function is a list of one; each a tool or a
    callable (``None``, left by ``[search, calc if ON else None]``, is a ``TypeError`` naming its place)."""
    if tools is None:
        return []
    if isinstance(tools, dict):  # {"double": f}: the model is sent the name it is given
        named = [(str(key), _callable(item, f"tools[{key!r}]")) for key, item in tools.items()]
        return [_renamed(item, key) if isinstance(item, Tool) else Tool(item, name=key) for key, item in named]
    if callable(tools) and not isinstance(tools, Iterable):
        return [tools]
    return [_callable(item, f"tools[{number}]") for number, item in enumerate(tools)]


def _renamed(tool: Tool, name: str) -> Tool:
    """``tool`` under ``name``, all else kept (an MCP tool's schema and call, a description given to it)."""
    if tool.name == name:
        return tool
    check_tool_name(name)
    renamed = copy.copy(tool)
    renamed.name, renamed.parameters = name, copy.deepcopy(tool.parameters)
    renamed.description = name if tool.description == tool.name else tool.description  # a default of its name
    return renamed


def _callable(item: Any, where: str) -> Any:
    if not callable(item):
        raise TypeError(f"{where} is {item!r}, not a tool or a function")
    return item


def to_text(result: Any) -> str:
    """Turn whatever a tool returned into the observation text: a structured value as JSON, as the
    model's arguments came (``Order(id=1)`` as ``{"id": 1}``), anything else as ``str``."""
    if isinstance(result, str):
        return str.__str__(result)  # the text, also of a str subclass (an Enum of strings: "red", not Color.RED)
    if result is None:
        return "(no output)"
    try:
        if type(result) in (int, float, bool):  # a plain number, as it prints
            return str(result)
        if isinstance(result, (bytes, bytearray)):
            return bytes(result).decode("utf-8", errors="replace")
        if isinstance(result, Iterator) and not isinstance(result, io.IOBase):  # a generator, map()...: its items
            return _generated_text(result)
        plain = plain_output(result)  # a dataclass, pydantic model, NamedTuple, Enum, tuple or set: its JSON values
        return (
            json.dumps(plain, ensure_ascii=False, default=_as_text) if isinstance(plain, (dict, list)) else str(plain)
        )
    except Exception as exc:  # a generator's own exception is the tool's; any other, vero's writing failed
        if isinstance(exc, UnwritableResult) or isinstance(result, Iterator):
            raise
        raise UnwritableResult from exc


def _as_text(value: Any) -> str:
    """A value inside a result that JSON has no form for: bytes as their UTF-8 text (as a result that is bytes),
    anything else as it prints."""
    return bytes(value).decode("utf-8", errors="replace") if isinstance(value, (bytes, bytearray)) else str(value)


class PartlyGenerated(Exception):
    """A generator raised after giving some items: the tool failed (its error is ``__cause__``), and what it gave
    before is kept, as the JSON list ``args[0]``, in its error's text."""


def _generated_text(generator: Iterator[Any]) -> str:
    """An iterator's items as a JSON list; it is stopped after ``MAX_GENERATED_ITEMS`` (a generator closed)."""
    items: list[Any] = []
    try:
        items.extend(itertools.islice(generator, MAX_GENERATED_ITEMS + 1))
    except Exception as exc:
        try:
            given = to_text(items) if items else ""
        except UnwritableResult:  # what it gave cannot be written: its own error alone
            given = ""
        if given:
            raise PartlyGenerated(given) from exc
        raise
    finally:
        if isinstance(generator, types.GeneratorType):
            generator.close()
    text = to_text(items[:MAX_GENERATED_ITEMS])
    if len(items) > MAX_GENERATED_ITEMS:
        text += f"\n...[the generator was stopped after {MAX_GENERATED_ITEMS:,} items]"
    return text


RAISED = "Error: tool {!r} raised "  # before what a tool raised: vero's words, not the tool's (the gate skips them)
UNWRITABLE = "Error: tool {!r} returned a value vero could not write as text: "  # the tool did not fail


def _observe(found: Tool, kwargs: dict[str, Any], on_worker: bool) -> ToolOutcome:
    """Call the tool and turn what it returned or raised into its outcome; a KeyboardInterrupt is the tool's
    own on any thread but the main one (signals go to the main thread: ``arun``'s thread is vero's), else perhaps
    the user's Ctrl-C: it propagates."""
    try:  # text that cannot be sent as UTF-8 (a file name os.listdir decoded with surrogates): U+FFFD for it
        text = to_text(found.call(kwargs))
        return ToolOutcome(text if text.isascii() else valid_text(text), True)
    except BaseException as exc:  # SystemExit too: a tool must not end the program
        if isinstance(exc, KeyboardInterrupt) and not on_worker:
            raise
        unwritable = isinstance(exc, UnwritableResult) and exc.__cause__ is not None
        given = f"; before that it gave: {exc.args[0]}" if isinstance(exc, PartlyGenerated) else ""
        exc = exc.__cause__ if unwritable or given else exc  # type: ignore[assignment]
        try:
            detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        except Exception:  # an exception whose message cannot be made
            detail = type(exc).__name__
        prefix = (UNWRITABLE if unwritable else RAISED).format(found.name)
        return ToolOutcome(valid_text(prefix + detail + given), False, ToolError.EXCEPTION)


def parse_arguments(tool: Tool, args: Any) -> dict[str, Any]:
    """Accept a dict, a (possibly sloppy, perhaps fenced) JSON object string, None, or a bare string.

    For a read-only tool the JSON object the text begins with is taken whatever follows it (a lookup changes
    nothing); a call of a tool that may change things is read exactly, by the gate, before it gets here.
    """
    if args is None:
        return {}
    if isinstance(args, dict):
        return args
    if isinstance(args, (bytes, bytearray)):
        args = bytes(args).decode("utf-8", errors="replace")
    if not isinstance(args, str):
        raise ToolArgumentError(f"expects a JSON object of arguments, got {type(args).__name__}.")
    text = args.strip()
    if text[:1] in ("`", "~"):  # fenced: its inside is what was written
        text = args = without_fence(text)
    if not text or text.lower() in ("null", "none"):  # no arguments, not the text "null" for the one parameter
        return {}
    if text.startswith("{"):
        if tool.read_only:
            try:
                value, _ = DECODER.raw_decode(text)
            except (ValueError, RecursionError):
                value = None
            if isinstance(value, dict):
                return valid_strings(value) if "\\u" in text else value
        elif unclosed_json(text):
            raise ToolArgumentError(
                "got arguments that end before their JSON object is closed; a tool that may change things "
                "is not run with arguments completed by guesswork: write the whole call again."
            )
        try:
            parsed = parse_json_value(text)
        except ValueError as exc:
            raise ToolArgumentError(f"got arguments that are not usable JSON ({exc}).") from None
        if isinstance(parsed, dict):
            return parsed
    return _plain_arguments(tool, text, args)


def _plain_arguments(tool: Tool, text: str, args: str) -> dict[str, Any]:
    """Arguments that are no JSON object (``text``, stripped; ``args``, as written): the value of the tool's one
    parameter (a quoted JSON string decoded), nothing for a tool without parameters, else ``ToolArgumentError``."""
    if not tool.parameters["properties"]:
        return {}  # a tool without parameters ignores stray input such as "None"
    if tool.sole_parameter is None:
        raise ToolArgumentError(
            f"expects a JSON object of arguments, got {clip(text, 60)!r}. "
            f"Expected arguments: {tool.expected_arguments()}."
        )
    if len(text) >= 2 and text[0] == text[-1] == '"':  # a quoted JSON string
        with contextlib.suppress(ValueError):
            return {tool.sole_parameter: parse_json_value(text, repair=False)}
    return {tool.sole_parameter: args}


def _settings(given: Tool) -> tuple[Any, ...]:
    """What makes two tools one: their function (bound methods equal when of one object and function), settings."""
    return (given.func, given.description, given.timeout, given.read_only, given.needs_approval, given.parameters)


MAX_RETIRED = 3  # descriptions a tool replaced mid-run is remembered by (``ToolRegistry.retired``)


class ToolRegistry:
    """Named tools plus their schemas, and a safe way to run them.  ``default_timeout`` (seconds) applies
    to tools whose own ``timeout`` is None; no limit (None, or a tool's ``math.inf``) runs on the caller's thread."""

    def __init__(self, tools: Iterable[Tool | Callable[..., Any]] | None = None, default_timeout: float | None = 30.0):
        self.default_timeout = default_timeout
        self._tools: dict[str, Tool] = {}
        self._schemas: list[dict[str, Any]] | None = None
        self._description: str | None = None
        self.retired: dict[str, list[str]] = {}  # a replaced tool's description and schema, by name: once shown
        for item in _listed(tools):
            new = item if isinstance(item, Tool) else tool(item)
            if new.name not in self._tools:  # the same tool given twice is taken once
                self.register(new)
            elif _settings(self._tools[new.name]) != _settings(new):
                raise ValueError(
                    f"two different tools are named {new.name!r}: the model would see only one of them; "
                    "pass name= to one of them (Tool(func, name=...) or @tool(name=...))"
                )

    # ------------------------------------------------------------------ contents

    def register(self, item: Tool | Callable[..., Any]) -> Tool:
        """Add a tool (a plain function is wrapped with ``@tool``); returns it, so it works as a decorator.  One
        of the same name is replaced, with a warning (``ToolRegistry(tools)`` refuses two in its list instead)."""
        new = item if isinstance(item, Tool) else tool(_callable(item, "the tool"))
        if new.name in self._tools:
            logger.warning("tool %r registered twice; the new one replaces the old", new.name)
            self._retire(self._tools[new.name])
        self._tools[new.name] = new
        self._schemas = self._description = None
        return new

    def remove(self, name: str) -> Tool | None:
        """Take a tool out (an MCP server's tool the server no longer offers); returns it, or None."""
        removed = self._tools.pop(name, None)
        self._schemas = self._description = None
        if removed is not None:
            self._retire(removed)
        return removed

    def _retire(self, old: Tool) -> None:
        """Keep what a tool replaced or removed told the model (``retired``): an MCP server that changes a
        description after a call ("list_changed") may have had the model read the old one, which the gate
        reads as any description (a call written there is a quote)."""
        told = f"{old.description}\n\n{json.dumps(old.parameters, ensure_ascii=False)}"
        kept = self.retired.get(old.name, [])
        if told not in kept:
            self.retired[old.name] = [*kept, told][-MAX_RETIRED:]  # the latest: a server changing it often pays no more

    def only(self, names: Iterable[str]) -> ToolRegistry:
        """A registry with just these of its tools (unknown names are skipped) and the same default timeout."""
        return ToolRegistry([self._tools[n] for n in names if n in self._tools], self.default_timeout)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def read_only(self, name: str) -> bool:
        """True when ``name`` is a tool here marked read-only: an unknown name may change things."""
        tool = self._tools.get(name)
        return tool is not None and tool.read_only

    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """The OpenAI ``tools=`` list (cached: it is sent with every model call)."""
        if self._schemas is None:
            self._schemas = [t.schema for t in self._tools.values()]
        return self._schemas

    def describe(self) -> str:
        """One line per tool, for agents that list tools in the prompt."""
        if self._description is None:
            lines = []
            for t in self._tools.values():
                line = f"- {t.name}({t.signature()}): {t.description}"
                props = t.parameters["properties"].items()
                notes = [f"{name} — {schema['description']}" for name, schema in props if schema.get("description")]
                lines.append(f"{line} Args: {'; '.join(notes).rstrip('.')}." if notes else line)
            self._description = "\n".join(lines)
        return self._description

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __repr__(self) -> str:
        return f"ToolRegistry({', '.join(self._tools)})"

    # ------------------------------------------------------------------ running

    def run(self, name: str, args: Any = None) -> ToolOutcome:
        """Run tool ``name`` with ``args`` (JSON text, a dict, plain text...); every failure becomes an observation."""
        found = self._tools.get(name) if isinstance(name, str) else None
        if found is None:
            return self._unknown(name)
        try:
            arguments = parse_arguments(found, args)
        except ToolArgumentError as exc:
            return ToolOutcome(f"Error: tool {name!r} {exc}", False, ToolError.BAD_ARGUMENTS)
        return self.call(name, arguments)

    def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Run tool ``name`` with arguments already read as a dict (``Agent.run_tool`` passes the gate's,
        which read them once); every failure becomes an observation."""
        found = self._tools.get(name) if isinstance(name, str) else None
        if found is None:
            return self._unknown(name)
        exact = EXACT.set(not found.read_only)  # a tool that may change things: nothing read by guesswork
        try:
            kwargs = found.validate(arguments)
        except ToolArgumentError as exc:
            return ToolOutcome(f"Error: tool {name!r} {exc}", False, ToolError.BAD_ARGUMENTS)
        finally:
            EXACT.reset(exact)
        timeout = found.timeout if found.timeout is not None else self.default_timeout
        if timeout is None or math.isinf(timeout):
            return _observe(found, kwargs, on_worker=threading.current_thread() is not threading.main_thread())
        try:
            return cast(ToolOutcome, _call_with_timeout(functools.partial(_observe, found, kwargs, True), timeout))
        except _TimedOut:
            return ToolOutcome(f"Error: tool {name!r} timed out after {float(timeout)} s.", False, ToolError.TIMEOUT)
        except _Busy:
            stuck = f"{MAX_STUCK_WORKERS} earlier tool calls timed out and are still running"
            return ToolOutcome(f"Error: tool {name!r} was not run: {stuck}; try again later.", False, ToolError.BUSY)
        except Exception as exc:  # only when even formatting the tool's error failed
            return ToolOutcome(f"Error: tool {name!r} raised {type(exc).__name__}", False, ToolError.EXCEPTION)

    def _unknown(self, name: Any) -> ToolOutcome:
        valid = ", ".join(self._tools) or "(none)"
        return ToolOutcome(f"Error: unknown tool {name!r}. Valid tools: {valid}.", False, ToolError.UNKNOWN_TOOL)
