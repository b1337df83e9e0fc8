"""Watching a run as it happens: typed events for ``Agent.stream``, ``astream`` and ``arun`` (docs/streaming.md).

A stream turns each plain event (``vero.core.events``) into a frozen dataclass below and hands it over
from the run's worker thread (the model client is synchronous) through a queue.  Leaving a stream early,
or cancelling an ``arun``, cancels the run at its next model or tool call, and waits for it to end, so
the agent is free again when it returns.  Also here: the request and reply records of ``llm_start`` and
``llm_call`` events (as sent and received, the API key masked).
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import AsyncGenerator, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

from vero.core.message import Message
from vero.core.result import RunResult, Step, token_counts
from vero.core.secrets import hide_secrets_in

if TYPE_CHECKING:
    import asyncio


class Run(Protocol):
    """What the stream reads and sets of a run's state (``vero.core.agent.Run``; named here by its
    shape, so that this module and the agent's do not import each other)."""

    cancelled: threading.Event
    watch: Callable[[str, dict[str, Any]], None] | None
    pace: Callable[[], None] | None


class Agent(Protocol):
    """What the stream uses of an agent (``vero.core.agent.Agent``, by its shape)."""

    name: str
    last_result: RunResult | None


Work = Callable[[], Any]  # the run itself, handed over by the agent: returns the answer (or the typed output)


# -- the events ------------------------------------------------------------------------------
# `agent` is the name of the agent the event is about (a sub-agent's, for depth >= 1).
@dataclass(frozen=True, slots=True)
class RunStarted:
    agent: str
    task: str
    agent_class: str


@dataclass(frozen=True, slots=True)
class ModelCallStarted:
    """A request about to be sent: ``request`` holds the model, messages, tools and options as sent."""

    agent: str
    turn: int
    request: dict[str, Any]
    depth: int = 0


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the model's answer text, as the server streams it (thinking is not included)."""

    agent: str
    text: str
    depth: int = 0


@dataclass(frozen=True, slots=True)
class ModelCallFinished:
    """A reply received (``reply``: content, tool calls, reasoning, finish reason, usage), or ``error``."""

    agent: str
    turn: int
    seconds: float
    reply: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    depth: int = 0

    @property
    def text(self) -> str:
        return self.reply.get("content") or ""

    @property
    def finish_reason(self) -> str | None:
        return self.reply.get("finish_reason")

    @property
    def cached_tokens(self) -> int:
        """Prompt tokens the server took from its prompt cache."""
        return token_counts(self.usage)["cached_tokens"]


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """A tool call about to run: ``args`` are its arguments parsed, a dict, whichever way the model wrote them."""

    agent: str
    tool: str
    args: dict[str, Any]
    call_id: str | None = None  # the native tool call's id, when there is one
    depth: int = 0


@dataclass(frozen=True, slots=True)
class ToolCallFinished:
    """A tool's outcome: ``output`` is its full text (the model may be sent a clipped copy)."""

    agent: str
    tool: str
    ok: bool
    output: str
    error: str | None = None  # a ToolError, when the call failed
    call_id: str | None = None
    seconds: float = 0.0
    depth: int = 0


@dataclass(frozen=True, slots=True)
class StepRecorded:
    agent: str
    step: Step


@dataclass(frozen=True, slots=True)
class RunFinished:
    """Always the last event of a stream, whatever the status: ``result`` is the run's ``RunResult``."""

    agent: str
    result: RunResult


StreamEvent = (
    RunStarted
    | ModelCallStarted
    | TextDelta
    | ModelCallFinished
    | ToolCallStarted
    | ToolCallFinished
    | StepRecorded
    | RunFinished
)


def typed_event(agent: str, type: str, data: dict[str, Any]) -> StreamEvent | None:
    """The stream event for a plain event (``None`` for ``run_end``: ``RunFinished`` comes with the result)."""
    name, depth = data.get("subagent", agent), data.get("depth", 0)
    turn, seconds = data.get("turn", 0), data.get("seconds", 0.0)
    if type == "llm_start":
        return ModelCallStarted(name, turn, data["request"], depth)
    if type == "text_delta":
        return TextDelta(name, data["text"], depth)
    if type in ("llm_call", "llm_error"):
        reply, usage = data.get("reply") or {}, data.get("usage") or {}
        return ModelCallFinished(name, turn, seconds, reply, usage, data.get("error"), depth)
    if type == "tool_call":
        return ToolCallStarted(name, data["tool"], data["args"], data.get("call_id"), depth)
    if type == "tool_result":
        ok, output, error = bool(data.get("ok")), data.get("output", ""), data.get("error")
        return ToolCallFinished(name, data["tool"], ok, output, error, data.get("call_id"), seconds, depth)
    if type == "step":
        return StepRecorded(agent, Step(data["kind"], data.get("content", ""), data.get("data") or {}, turn, depth))
    if type == "run_start":
        return RunStarted(agent, data.get("task", ""), data.get("cls", ""))
    return None


# -- running in a thread -----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Raised:
    """The run could not start (``ConcurrentRunError``) or raised through ``run``: re-raised to the consumer."""

    error: BaseException


_Item = StreamEvent | _Raised


class _Pace:
    """Keeps a run from getting ahead of its consumer: at each model or tool call (and text delta) it waits
    until every event sent so far was taken, so leaving the loop stops the run at its next call."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.sent = self.taken = 0
        self.closed = False

    def send(self, deliver: Callable[[_Item], None], item: _Item) -> None:
        with self._changed:
            self.sent += 1
        deliver(item)

    def took_one(self) -> None:
        with self._changed:
            self.taken += 1
            self._changed.notify_all()

    def wait(self) -> None:
        with self._changed:
            self._changed.wait_for(lambda: self.taken >= self.sent or self.closed)

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()


def _in_thread(name: str, work: Callable[[], None]) -> threading.Thread:
    """``work()`` in a daemon thread, started, with the caller's context variables (an OpenTelemetry span, say)."""
    import contextvars  # here and below: `import vero` need not load what only a stream uses

    thread = threading.Thread(target=contextvars.copy_context().run, args=(work,), name=name, daemon=True)
    thread.start()
    return thread


def _start(agent: Agent, run: Run, execute: Work, deliver: Callable[[_Item], None], pace: _Pace) -> threading.Thread:
    """Run ``run`` in a worker thread, delivering its events, then ``RunFinished`` (or ``_Raised``)."""

    def watch(type: str, data: dict[str, Any]) -> None:
        event = typed_event(agent.name, type, data)
        if event is not None:
            pace.send(deliver, event)

    def work() -> None:
        try:
            execute()
        except BaseException as exc:  # handed to the consumer's thread
            deliver(_Raised(exc))
            return
        assert agent.last_result is not None  # set by every run that returns
        deliver(RunFinished(agent.name, agent.last_result))

    run.watch, run.pace = watch, pace.wait
    return _in_thread(f"vero-run-{agent.name}", work)


def stream_events(agent: Agent, run: Run, execute: Work) -> Iterator[StreamEvent]:
    """``Agent.stream``: the events of ``run``, which ``execute()`` runs (in a worker thread), ending with
    ``RunFinished``; leaving early cancels the run."""
    import queue

    items: queue.SimpleQueue[_Item] = queue.SimpleQueue()
    pace = _Pace()
    thread = _start(agent, run, execute, items.put, pace)
    try:
        while True:
            item = items.get()
            if isinstance(item, _Raised):
                raise item.error
            yield item
            if isinstance(item, RunFinished):
                return
            pace.took_one()
    finally:
        run.cancelled.set()  # no effect on a finished run
        pace.close()
        thread.join()  # the run stops at its next model or tool call: then the agent is free


async def astream_events(agent: Agent, run: Run, execute: Work) -> AsyncGenerator[StreamEvent, None]:
    """``Agent.astream``: as ``stream_events``, for an asyncio event loop."""
    import asyncio

    loop = asyncio.get_running_loop()
    items: asyncio.Queue[_Item] = asyncio.Queue()
    finished = threading.Event()

    def deliver(item: _Item) -> None:
        if isinstance(item, (RunFinished, _Raised)):
            finished.set()
        with contextlib.suppress(RuntimeError):  # the loop was closed under a run left running
            loop.call_soon_threadsafe(items.put_nowait, item)

    pace = _Pace()
    thread = _start(agent, run, execute, deliver, pace)
    try:
        while True:
            item = await items.get()
            if isinstance(item, _Raised):
                raise item.error
            yield item
            if isinstance(item, RunFinished):
                return
            pace.took_one()
    finally:
        run.cancelled.set()
        pace.close()
        if not finished.is_set():
            await _settled(asyncio.ensure_future(asyncio.to_thread(thread.join)))


async def run_async(agent: Agent, run: Run, execute: Work) -> Any:
    """``Agent.arun``: ``execute()``, the run, in a thread of its own; cancelling the awaiting task cancels the run."""
    import asyncio

    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()  # the answer text, or the typed output

    def settle(answer: Any, error: BaseException | None) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(answer)

    def work() -> None:
        try:
            answer, error = execute(), None
        except BaseException as exc:  # handed to the awaiting task
            answer, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop was closed under a run left running
            loop.call_soon_threadsafe(settle, answer, error)

    _in_thread(f"vero-arun-{agent.name}", work)
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        run.cancelled.set()
        await _settled(done)  # the run stops at its next model or tool call: then the agent is free
        raise


async def _settled(future: asyncio.Future[Any]) -> None:
    """Wait for ``future`` to be done, whatever its outcome, however often the waiting task is cancelled
    meanwhile: the caller re-raises its own cancellation once the run has stopped, so that neither a
    second cancel nor an enclosing timeout returns while the run goes on (and holds the agent)."""
    import asyncio

    while not future.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait([future])


# -- what a trace records of each model call ------------------------------------------------------------
OPTIONS_RECORDED = ("tool_choice", "stop", "response_format", "temperature", "max_tokens")
AS_THE_MODEL_TAKES = ("stop", "temperature", "max_tokens")  # recorded as a client's sent_options says


def request_record(model: Any, messages: list[Message] | list[Any], options: dict[str, Any]) -> dict[str, Any]:
    """The request as the model client is asked to send it: model name, messages in the API's form, tool
    schemas and options (the client's own output cap and temperature when the call sets none; with a
    client's ``sent_options``, as its model takes them: ``ChatOpenAI`` sends a reasoning model no
    temperature and its cap as ``max_completion_tokens``).  The API key is masked wherever it appears."""
    record: dict[str, Any] = {
        "model": getattr(model, "model_name", None) or type(model).__name__,
        "messages": [m.to_dict() if isinstance(m, Message) else dict(m) for m in messages],  # a copy, as sent
    }
    tools = options.get("tools")
    if tools:
        record["tools"] = [getattr(t, "schema", t) for t in tools]
    sent = getattr(model, "sent_options", None)
    taken: dict[str, Any] = sent(options) if callable(sent) else {}
    for name in OPTIONS_RECORDED:
        value = options.get(name)
        if callable(sent) and name in AS_THE_MODEL_TAKES:
            value = taken.pop(name, None)
        elif value is None and name in ("temperature", "max_tokens"):
            value = getattr(model, name, None)
        if value is not None and (name != "tool_choice" or tools):
            record[name] = value
    record.update(taken)  # what else the model takes: max_completion_tokens, reasoning_effort
    return cast(dict[str, Any], hide_secrets_in(record, [getattr(model, "_secret", "")]))


def reply_record(model: Any, reply: Message) -> dict[str, Any]:
    """The reply as received: text, tool calls, reasoning, finish reason and usage (the API key masked)."""
    record: dict[str, Any] = {"content": reply.content}
    if reply.tool_calls:
        record["tool_calls"] = [call.to_dict() for call in reply.tool_calls]
    if reply.reasoning:
        record["reasoning"] = reply.reasoning
    record.update(finish_reason=reply.finish_reason, usage=reply.usage)
    return cast(dict[str, Any], hide_secrets_in(record, [getattr(model, "_secret", "")]))


def streams_text(model: Any) -> bool:
    """True when the model's ``generate`` takes ``on_token`` (a ``ChatModel`` of one's own may not)."""
    generate = getattr(model, "generate", None)
    return generate is not None and _takes_on_token(getattr(generate, "__func__", generate))


@functools.lru_cache(maxsize=64)
def _takes_on_token(generate: Callable[..., Any]) -> bool:
    import inspect

    try:
        parameters = inspect.signature(generate).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "on_token" or p.kind is p.VAR_KEYWORD for p in parameters)
