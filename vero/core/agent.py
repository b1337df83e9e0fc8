"""The ``Agent`` base class: what every pattern shares.

A pattern (ReAct, reflection, ...) subclasses ``Agent`` and writes its loop in ``solve(task)``; the
base class owns ``run`` (the ``RunResult``, events, errors and budgets as a status), the ``history``,
the tools and the helpers each loop needs (docs/custom-agents.md has the table).  Control flow uses
exceptions, as in mini-swe-agent: a budget running out raises ``BudgetExceeded`` anywhere in the loop,
and ``run`` ends with that status and the best partial answer so far.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import logging
import operator
import threading
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, overload

from vero.core.agent_tool import NO_RUN, RUNNING_AGENT, Running, agent_tool
from vero.core.capabilities import hosted_model
from vero.core.deprecation import deprecated
from vero.core.events import Callback, ConsolePrinter, EventBus, JsonlTrace
from vero.core.gate import Refusal, Shown, approvers_of, decide, quote_sources
from vero.core.message import (
    BROKEN_OFF,
    BROKEN_OFF_REASONS,
    CUT_OFF_REASONS,
    Arguments,
    ChatModel,
    Message,
    read_arguments,
)
from vero.core.notes import note
from vero.core.options import AgentOptions, SharedSettings, Unpack
from vero.core.output import OUTPUT_SYSTEM, OutputSpec
from vero.core.parsing import args_text, normalized_arguments, parse_json_object, reports_error, tidy_numbers
from vero.core.result import USAGE_KEYS, Outcome, RunResult, Status, Step, StepKind, ToolError, add_usage
from vero.core.session import load_session, save_session
from vero.core.stream import astream_events, reply_record, request_record, run_async, stream_events, streams_text
from vero.core.text import BLANK
from vero.core.text import clip as clip_text
from vero.errors import REFUSED_STATUSES, Cancelled, LLMCallError, VeroError
from vero.tools.base import Tool
from vero.tools.registry import ToolOutcome, ToolRegistry
from vero.tools.schema import InvalidValue, describe

if TYPE_CHECKING:
    from vero.core.stream import StreamEvent

log = logging.getLogger("vero.agent")
T = TypeVar("T")

JSON_REASK = note(
    "json_reask",
    "Your previous reply could not be used: {error}.\n"
    "Reply again with only a JSON object of this form, and nothing else:\n{schema}",
)
OVER_BUDGET_REPLY = "the reply that went past the token budget, not used (its text is in this step's data: raw)"
TRUNCATION_MARKER = "\n...[truncated: showing {shown} of {total} characters]"
HISTORY_SECTION = "\n## Conversation History\n{history}\n"  # the recent conversation, as a prompt section
CUT_OFF = "the reply was cut off at the output limit (max_tokens); reply again, shorter"
# Kept in ``last_result``, not in ``history``: no answer the model gave (a budget cut mid-run leaves a thought)
NO_ANSWER_KEPT = (Status.FAILED, Status.CANCELLED, Status.INVALID_OUTPUT, Status.MAX_TOKENS)
THOUGHT_ONLY = "thought_only"  # a run note: the answer is the best partial one, a thought (no answer came)
CUT_OFF_WARNING = "the reply was cut off at the output limit"  # max_tokens, or max_completion_tokens
NO_USAGE, NO_USAGE_WARNING = "no_usage", "the model server reports no token usage: the token budget counts an estimate"
RELAYED_EVENTS = frozenset(
    {"llm_start", "llm_call", "llm_error", "text_delta", "tool_call", "tool_approval", "tool_result"}
)
REPEATED_FAILURE = note(
    "repeated_failure",
    "Not run: you made this exact call before and it failed ({error}). It would fail the same way. "
    "Use a different tool, or different arguments.",
)


REPLACED = "Not run: the tool {tool!r} was replaced while its call was being checked; call it again if it is needed."
ALREADY_RUNNING = (
    "{cls} {name!r} is already running a task; one agent runs one task at a time (its history and steps "
    "belong to that run). Create one agent per thread, as run_many does."
)


class BudgetExceeded(VeroError):
    """A run budget ran out; ``run`` ends with ``status`` and the partial answer."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status

    def __reduce__(self) -> tuple[type[BudgetExceeded], tuple[str, str]]:  # picklable, for process pools
        return type(self), (self.status, str(self))


class ConcurrentRunError(VeroError):
    """``run()`` was called on an agent already running a task (another thread, or re-entered); raised before
    anything changes: concurrent runs of one agent would mix their steps, usage and history."""


class _UnusableReply(VeroError):
    """A reply that stayed unusable; ``raw`` is its text."""

    def __init__(self, message: str, raw: str):
        super().__init__(message)
        self.raw = raw

    def __reduce__(self) -> tuple[type[_UnusableReply], tuple[str, str]]:  # picklable, for process pools
        return type(self), (str(self), self.raw)


class MalformedOutputError(_UnusableReply):
    """The model's reply stayed unusable after the bounded re-asks."""


class InvalidOutputError(_UnusableReply):
    """The answer never fit ``run(output_type=...)``, after the re-asks; ``raw`` is the last answer's text."""

    status = "invalid_output"


Tools = ToolRegistry | Sequence[Tool | Callable[..., Any]] | None  # what `tools=` accepts
OUTPUT_RETRIES = 2  # re-asks of an answer that does not fit output_type (run's output_retries=)
FORMAT_REFUSED = "answer_format_refused"  # Run.notes: the server refused the answer's response_format


_NO_USAGE: dict[str, int] = dict.fromkeys(USAGE_KEYS, 0)


@dataclass(slots=True)
class Run:
    """The state of one ``run()``: created when it starts, dropped when it ends.

    The loop helpers (``record``, ``call_llm``, ``tally``...) act on it; ``RunResult`` is a snapshot of it, so nothing
    done afterwards changes a finished result.  A pattern keeps its own per-run state in ``counters`` and ``notes``.
    """

    task: str
    started: float = field(default_factory=time.perf_counter)
    steps: list[Step] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=_NO_USAGE.copy)  # empty_usage(), without a Python call
    llm_calls: int = 0
    turn: int = 0
    partial: str = ""
    counters: Counter[str] = field(default_factory=Counter)  # a pattern's per-run counts (see ``tally``)
    token_budget: int | None = None  # max_tokens_per_run, or what is left of the parent run's budget
    parent: Callable[[Step], None] | None = None  # run_subagent: where each step also goes, one level deeper
    notes: dict[str, Any] = field(default_factory=dict)  # a pattern's other per-run state
    cancelled: threading.Event = field(default_factory=threading.Event)  # Agent.cancel(); shared with sub-agents
    watch: Callable[[str, dict[str, Any]], None] | None = None  # also hears this run's events (stream, parent)
    deltas: bool = False  # send the model's text deltas as ``text_delta`` events (Agent.stream)
    pace: Callable[[], None] | None = None  # a stream: wait at each call until its consumer has caught up
    output_spec: OutputSpec | None = None  # run(output_type=...): what the answer must be
    output: Any = None  # the answer read as output_type, once it fits
    parent_sources: Callable[[], Shown] | None = None  # run_subagent: the parent's quote sources
    approvers: tuple[Callable[[Any], Any], ...] = ()  # run_subagent: the callers' approve_tool (the gate asks them too)
    sent: tuple[list[Message], Any] = ([], None)  # the latest request's messages and tools, as the model read them


class Agent(ABC):
    """Base class of every vero agent.

    Args:
        name: a label for logs and saved sessions.
        llm: a ``ChatOpenAI`` or anything with the same ``generate`` signature (``vero.testing.ScriptedLLM`` in tests).
        tools: ``Tool`` objects or plain functions; shared by sub-agents.
        system_prompt: replaces the pattern's default system prompt.
        max_turns: the pattern's loop budget (its meaning is per pattern).
        verbose: print one line per step to the console.
        max_tokens_per_run: optional token budget for one ``run``.
        max_observation_chars, history_window, json_retries, max_tool_calls_per_reply, recovery: the shared
            settings of ``AgentOptions`` (documented there), one by one; or all at once as ``options=``.
        trace: path of a JSONL file that receives every event.
        callbacks: extra event listeners, ``fn(event)``.
    """

    default_max_turns = 10
    uses_tools = True  # False for patterns that answer from the model alone
    _solve_options: frozenset[str] | None = None  # the keywords of run() this class's solve takes; None: any

    def __init__(
        self,
        name: str,
        llm: ChatModel,
        tools: Tools = None,
        system_prompt: str | None = None,
        max_turns: int | None = None,
        verbose: bool = True,
        *,
        max_tokens_per_run: int | None = None,
        options: AgentOptions | None = None,
        trace: str | None = None,
        callbacks: list[Callback] | None = None,
        **settings: Unpack[SharedSettings],
    ) -> None:
        self.name = name
        self.llm = model_client(llm)
        self.tools = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        self.system_prompt = system_prompt
        self.max_turns = self.default_max_turns if max_turns is None else max_turns
        self.max_tokens_per_run = max_tokens_per_run
        for limit, value, least in (("max_turns", self.max_turns, 0), ("max_tokens_per_run", max_tokens_per_run, 1)):
            whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())  # 1e5 is 100000
            if value is not None and (isinstance(value, bool) or not whole or value < least):
                raise ValueError(f"{limit} must be a whole number of {least} or more, got {value!r}")
        self.max_turns = int(self.max_turns)  # 3.0 turns are 3
        options = options or AgentOptions()  # a copy only for the settings given one by one, if any
        self.options = (options.updated(**settings) if settings else options).for_model(hosted_model(self.llm))
        self.history: list[Message] = []
        self.last_result: RunResult | None = None
        self.events = EventBus(name, callbacks)
        self._trace = JsonlTrace(trace, secret=getattr(llm, "_secret", "")) if trace else None
        if self._trace:
            self.events.callbacks.append(self._trace)
        self.verbose = verbose
        self._run: Run | None = None
        self._running = threading.Lock()  # one run at a time: see ConcurrentRunError

    def __getattr__(self, name: str) -> Any:
        """The names that left the public API this release (``_MOVED``), with a DeprecationWarning."""
        moved = _MOVED.get(name)
        if moved is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        instead, value = moved
        deprecated(f"Agent.{name}", f"use {instead}")
        return value(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, llm={self.llm!r}, tools={self.tools.names()})"

    @property
    def verbose(self) -> bool:
        return any(isinstance(c, ConsolePrinter) for c in self.events.callbacks)

    @verbose.setter
    def verbose(self, on: bool) -> None:
        if not on:
            self.events.callbacks[:] = [c for c in self.events.callbacks if not isinstance(c, ConsolePrinter)]
        elif not self.verbose:
            self.events.callbacks.append(ConsolePrinter(secrets=[getattr(self.llm, "_secret", "")]))

    # -- the pattern ----------------------------------------------------------
    @abstractmethod
    def solve(self, task: str, **kwargs: Any) -> str | Outcome:
        """The pattern's loop: return the answer (status ``ok``) or an ``Outcome``."""

    @overload
    def run(self, task: str, *, output_type: type[T], **kwargs: Any) -> T | None: ...
    @overload
    def run(self, task: str, *, output_type: Any, **kwargs: Any) -> Any: ...
    @overload
    def run(self, task: str, **kwargs: Any) -> str: ...
    def run(self, task: str, **kwargs: Any) -> Any:
        """Run one task and return the answer text; details go to ``last_result``.

        ``output_type=T`` (``int``, a ``Literal``, a dataclass, a pydantic model: docs/typed-results.md)
        returns the answer read as a ``T`` instead (``last_result.answer`` keeps the text), or None when it
        never fit after ``output_retries`` re-asks (default 2; status ``invalid_output``) or there is no answer.
        Model, tool and budget problems never raise: they end the run with a status and ``last_result.error``.
        Raised at once: ``ConcurrentRunError`` when this agent is already running, ``TypeError`` for an
        ``output_type`` with no JSON form, an unknown keyword, or an approver set on the agent, not in its options.
        ``KeyboardInterrupt`` cancels the run, ``history`` unchanged.
        """
        return self._guarded(Run(task, token_budget=self.max_tokens_per_run), kwargs)

    def cancel(self) -> bool:
        """Stop the run in progress at its next model or tool call: it ends ``cancelled``, ``history`` unchanged.

        Safe from any thread or a callback (``run_many`` calls it on Ctrl-C; leaving a ``stream`` early does
        too).  A call already under way finishes first, but a model reply that arrives after the cancel is
        not used.  Returns False when no run is in progress.
        """
        run = self._run
        if run is not None:
            run.cancelled.set()
        return run is not None

    def stream(self, task: str, *, deltas: bool = True, **kwargs: Any) -> Iterator[StreamEvent]:
        """Run ``task`` in a worker thread and yield its events as they happen (``vero.core.stream``).

        The last event is always a ``RunFinished`` with the ``RunResult``.  ``deltas``: the model's
        text arrives as ``TextDelta`` events too (the request is streamed).  Leaving the loop early
        (``break``, ``close()``) cancels the run at its next model or tool call and waits for it to end.
        ``output_type=`` works as in ``run``: the ``RunFinished`` event's ``result.output`` is the value.
        """
        run = Run(task, token_budget=self.max_tokens_per_run, deltas=deltas)
        yield from stream_events(self, run, functools.partial(self._guarded, run, kwargs))

    @overload
    async def arun(self, task: str, *, output_type: type[T], **kwargs: Any) -> T | None: ...
    @overload
    async def arun(self, task: str, *, output_type: Any, **kwargs: Any) -> Any: ...
    @overload
    async def arun(self, task: str, **kwargs: Any) -> str: ...
    async def arun(self, task: str, **kwargs: Any) -> Any:
        """``run`` for async code: the run goes on in a thread of its own, so the event loop is not blocked.

        Cancelling the awaiting task cancels the run (as ``cancel``) and waits for it to stop.
        """
        run = Run(task, token_budget=self.max_tokens_per_run)
        return await run_async(self, run, functools.partial(self._guarded, run, kwargs))

    async def astream(self, task: str, *, deltas: bool = True, **kwargs: Any) -> AsyncIterator[StreamEvent]:
        """``stream`` for async code: ``async for event in agent.astream(task)``; the run goes on in a thread."""
        run = Run(task, token_budget=self.max_tokens_per_run, deltas=deltas)
        events = astream_events(self, run, functools.partial(self._guarded, run, kwargs))
        async with contextlib.aclosing(events):  # closing this stream closes that one at once: the run stops
            async for event in events:
                yield event

    def _guarded(self, run: Run, kwargs: dict[str, Any]) -> Any:
        """Run ``solve`` under the one-run-at-a-time lock: the answer text, or the typed output (``output_type``)."""
        output_type, retries = kwargs.pop("output_type", str), kwargs.pop("output_retries", OUTPUT_RETRIES)
        if output_type not in (str, None):
            run.output_spec = OutputSpec(output_type, retries)  # a type with no JSON form: TypeError, now
        if kwargs or any("approve_tool" in vars(owner) for owner in (self, *type(self).__mro__)):
            _check_run_settings(self, kwargs)
        if not self._running.acquire(blocking=False):
            raise ConcurrentRunError(ALREADY_RUNNING.format(cls=type(self).__name__, name=self.name))
        outer, outer_run = RUNNING_AGENT.get() or NO_RUN  # inside another's run, ended or not: its user decides too,
        if outer not in (None, self):  # and what its model was shown is no more the user's words here than there
            run.approvers = run.approvers or approvers_of(outer, outer_run)
            run.parent_sources = run.parent_sources or functools.partial(quote_sources, outer)
        running = RUNNING_AGENT.set(Running(self, run))  # its tools run as part of this run (an agent as a tool too)
        try:
            self._run, task = run, run.task
            self._emit("run_start", task=task, cls=type(self).__name__)
            error: BaseException | None = None
            try:
                if not isinstance(task, str):
                    raise TypeError(f"the task is {type(task).__name__}, not text")
                if not task.strip(BLANK):  # white space, zero-width characters, NUL...
                    raise ValueError("the task is empty")
                spec = run.output_spec
                solved = self.solve(task + spec.instructions() if spec else task, **kwargs)
                answer, status = (solved.answer, solved.status) if isinstance(solved, Outcome) else (solved, Status.OK)
                if not isinstance(answer, str) or (status == Status.OK and not answer.strip(BLANK)):  # a dict; ""
                    raise TypeError(f"{type(self).__name__}.solve returned {solved!r}: no answer text")
                answer = tidy_numbers(answer) if self.options.hook.tidy_numbers and not spec else answer
                if spec is not None:  # read as the model wrote it (tidied, 2.999999999999999999 would be 3)
                    answer = self._typed_answer(spec, answer, status)
            except InvalidOutputError as invalid:
                answer, status, error = invalid.raw, Status.INVALID_OUTPUT, invalid
            except Cancelled as stop:
                answer, status, error = run.partial, Status.CANCELLED, stop
            except BudgetExceeded as stop:
                answer, status, error = run.partial, stop.status, stop
            except KeyboardInterrupt as interrupt:  # the user's Ctrl-C: the run is cancelled, and the caller hears it
                self._finish(run, run.partial, Status.CANCELLED, interrupt)
                raise
            # every other failure is a `failed` result: sys.exit() too, and another library's cancellation
            except BaseException as exc:  # (asyncio's CancelledError from a model, GeneratorExit...)
                log.debug("run of %s failed", self.name, exc_info=True)
                answer, status, error = run.partial, Status.FAILED, exc
            result = self._finish(run, answer, status, error)
            return result.answer if run.output_spec is None else result.output
        finally:
            self._run = None  # the run is over: its state lives on only in last_result
            RUNNING_AGENT.reset(running)
            self._running.release()

    def _typed_answer(self, spec: OutputSpec, answer: str, status: str) -> str:
        """``answer`` read as the run's ``output_type`` (into ``run.output``), re-asked (``reask_output``) at most
        ``spec.retries`` times, then ``InvalidOutputError``; a run a budget cut short is not re-asked."""
        run = self.current_run
        for attempt in range(spec.retries + 1):
            try:
                if run.notes.get("cut_off") and answer.strip():  # the last reply: "70" of 700 is no answer
                    raise InvalidValue([("", "the answer was cut off at the output limit")])
                run.output = spec.read(answer)
                return answer
            except InvalidValue as exc:
                problems = exc.problems
            if status not in (Status.OK, Status.NEEDS_REVIEW):
                return answer
            listed = "; ".join(describe(problem) for problem in problems)
            self.record(StepKind.WARNING, f"the answer does not fit the output type: {listed}", raw=answer)
            if attempt < spec.retries:
                self.keep_partial(answer)  # kept if the re-ask fails (an API error, a budget): no answer is lost
                answer = self.reask_output(spec, answer, problems)
        raise InvalidOutputError(f"the answer did not fit the output type ({spec.retries} re-asks): {listed}", answer)

    def reask_output(self, spec: OutputSpec, answer: str, problems: list[tuple[str, str]]) -> str:
        """Ask again for an answer that did not fit ``output_type``; returns the new answer text.

        The one pattern hook of typed results: by default one model call with the task, the answer
        and every problem, constrained by the type's schema where the server supports it
        (``answer_format``).  A pattern may override it to ask within its own conversation.
        """
        messages = [
            Message("system", OUTPUT_SYSTEM),
            Message("user", self.current_run.task + spec.instructions()),
            Message("assistant", answer),
            Message("user", spec.reask(problems)),
        ]
        text = self.call_llm(messages, **self.answer_format()).text
        self.record(StepKind.FINAL, text, reasked=True)
        return text

    def answer_format(self) -> dict[str, Any]:
        """The options of a model call whose reply is the final answer: ``response_format`` with the
        ``output_type``'s schema when the run has one and the server constrains replies to a JSON schema
        (``supports_json_schema()``); else none."""
        run = self._run
        if run is None or run.output_spec is None or run.notes.get(FORMAT_REFUSED):
            return {}
        supports = getattr(self.llm, "supports_json_schema", None)
        if not callable(supports) or supports() is not True:
            return {}
        return {"response_format": run.output_spec.response_format()}

    def as_tool(
        self,
        name: str | None = None,
        description: str | None = None,
        read_only: bool | None = None,
        *,
        output_type: Any = str,
        output_retries: int = OUTPUT_RETRIES,
    ) -> Tool:
        """This agent as a tool that another agent's model can call with a task (``vero.core.agent_tool``).

        Each call is a fresh run of this agent as part of the calling run (``run_subagent``); ``output_type``
        and ``output_retries`` as ``run``'s: the tool's output is the typed value (as JSON).
        ``read_only``: as for any tool, your word that it changes nothing; unsaid, only a pattern that
        uses no tools (``uses_tools``) is read-only.
        """
        typed = {} if output_type in (str, None) else {"output_type": output_type, "output_retries": output_retries}
        return agent_tool(self, name, description, read_only, typed)

    def _finish(self, run: Run, answer: str, status: str, error: BaseException | None) -> RunResult:
        """``run``'s ``RunResult`` (kept as ``last_result``) and its ``run_end`` event; an answered
        turn goes into ``history`` (one of ``NO_ANSWER_KEPT`` does not: no half turn; nor does the partial
        answer of a run a budget cut short, ``BudgetExceeded``, or one noted ``THOUGHT_ONLY``: often a thought,
        which a next run reads as one)."""
        if status == Status.FAILED and error is None:  # a failed run always says why
            reasons = [s.content for s in run.steps if s.kind == StepKind.ERROR]
            error = VeroError(reasons[-1] if reasons else f"{type(self).__name__} reported failure")
        result = RunResult(
            answer=answer,
            status=status,
            steps=tuple(run.steps),
            usage=run.usage,
            llm_calls=run.llm_calls,
            elapsed_s=time.perf_counter() - run.started,
            error=error,
            task=run.task,
            output=run.output,
        )
        self.last_result = result
        self._emit(
            "run_end",
            answer=result.answer,
            status=result.status,
            elapsed_s=result.elapsed_s,
            llm_calls=result.llm_calls,
            usage=dict(result.usage),
            error=f"{type(error).__name__}: {error}" if error else None,
        )
        kept = (
            status not in NO_ANSWER_KEPT and not isinstance(error, BudgetExceeded) and not run.notes.get(THOUGHT_ONLY)
        )
        if result.answer and kept:
            self.history += [Message("user", run.task), Message("assistant", result.answer)]
        return result

    # -- helpers for the loops --------------------------------------------------
    def turns(self, limit: int | None = None) -> Iterator[int]:
        """The turn budget: yields 1 .. ``max_turns`` (or ``limit``)."""
        run = self.current_run
        for turn in range(1, (self.max_turns if limit is None else limit) + 1):
            run.turn = turn
            yield turn

    def call_llm(self, messages: list[Message], *, llm: ChatModel | None = None, **options: Any) -> Message:
        """Call the model, count its usage, and enforce the token budget.

        Listeners hear the request as sent (``llm_start``) and the reply as received (``llm_call``),
        or the error (``llm_error``); a cancelled run stops here (``vero.errors.Cancelled``).
        """
        run = self.current_run
        if run.pace is not None or run.cancelled.is_set():  # a stream's pace, or a cancel (``_check_cancelled``)
            self._check_cancelled()
        model = llm or self.llm
        # the request and reply records are built only for a listener that handles model events
        watched = run.watch is not None or any(
            "llm_call" in getattr(listener, "handles", ("llm_call",)) for listener in self.events.callbacks
        )
        if watched:
            self._emit("llm_start", turn=run.turn, request=request_record(model, messages, options))
        asked, run.sent = dict(options), (messages, options.get("tools"))  # the gate's quote check reads what was sent
        if run.deltas and streams_text(model):
            options["on_token"] = functools.partial(self._send_delta, options.get("on_token"))
        started = time.perf_counter()
        try:
            reply: Message = model.generate(messages, **options)
        except Exception as exc:
            return self._model_failed(exc, messages, llm, asked, started if watched else None)
        run.llm_calls += 1
        add_usage(run.usage, reply.usage)
        if reply.finish_reason in BROKEN_OFF_REASONS:  # (ChatOpenAI raises it; a model client of your own may not)
            raise LLMCallError(BROKEN_OFF.format(reason=reply.finish_reason))
        if watched:
            self._emit(
                "llm_call",
                turn=run.turn,
                seconds=time.perf_counter() - started,
                usage=reply.usage,
                messages=len(messages),
                tool_calls=len(reply.tool_calls or ()),
                reply=reply_record(model, reply),
            )
        if run.cancelled.is_set():  # cancelled while the call was under way: its reply is not used
            raise Cancelled(f"{type(self).__name__} {self.name!r}: the run was cancelled")
        if reply.reasoning:
            self.record(StepKind.THINKING, reply.reasoning)
        cut_off = reply.finish_reason in CUT_OFF_REASONS  # replies cut off in a row (a typed answer reads it)
        run.notes["cut_off"] = run.notes.get("cut_off", 0) + 1 if cut_off else 0
        if run.notes["cut_off"]:
            self.record(StepKind.WARNING, CUT_OFF_WARNING, raw=reply.text, cut_off=True)
        if run.token_budget:
            self._check_token_budget(messages, reply)
        return reply

    def _model_failed(
        self,
        error: Exception,
        messages: list[Message],
        llm: ChatModel | None,
        asked: dict[str, Any],
        started: float | None,
    ) -> Message:
        """A model call that raised ``error`` (called while it is handled): the ``llm_error`` event, then the
        error, unless the server refused ``answer_format``'s ``response_format`` (a 400 naming no other
        parameter...): then a warning, and this call and the run's later answer calls go on without it; or
        refused ``tool_choice`` (the last call when the turns ran out asks for no tool): the call again without it."""
        run = self.current_run
        if started is not None:
            seconds, text = time.perf_counter() - started, f"{type(error).__name__}: {error}"
            self._emit("llm_error", turn=run.turn, seconds=seconds, error=text)
        if run.cancelled.is_set():  # cancelled while the call was under way: the run ends cancelled, whatever it raised
            raise Cancelled(f"{type(self).__name__} {self.name!r}: the run was cancelled") from error
        spec = run.output_spec
        refused = (
            spec is not None
            and asked.get("response_format") == spec.response_format()
            and isinstance(error, LLMCallError)
            and error.status in REFUSED_STATUSES
            and error.parameter in (None, "response_format")
        )
        if isinstance(error, LLMCallError) and error.parameter == "tool_choice" and "tool_choice" in asked:
            self.record(StepKind.WARNING, f"the server refused tool_choice ({error}); asking without it")
            return self.call_llm(messages, llm=llm, **{name: v for name, v in asked.items() if name != "tool_choice"})
        if not refused:
            raise  # the model's error (this runs while it is handled), as it was raised
        run.notes[FORMAT_REFUSED] = True
        self.record(StepKind.WARNING, f"the answer's response_format was refused ({error}); asking without it")
        return self.call_llm(messages, llm=llm, **{name: v for name, v in asked.items() if name != "response_format"})

    def ask_json(
        self,
        messages: list[Message],
        validate: Callable[[dict[str, Any]], T],
        *,
        schema: str,
        llm: ChatModel | None = None,
        **options: Any,
    ) -> T:
        """Ask for a JSON object and return ``validate(obj)``.

        A reply that is not JSON, or that ``validate`` rejects with ``ValueError``/``KeyError``/``TypeError``,
        is re-asked up to ``json_retries`` times with the error and ``schema`` (re-asks are not turns).
        Raises ``MalformedOutputError`` if it stays unusable.
        """
        messages = list(messages)
        for attempt in range(self.options.json_retries + 1):
            reply = self.call_llm(messages, llm=llm, **options)
            try:
                if reply.truncated:  # even if the cut JSON could be repaired, it may have lost fields
                    raise ValueError(CUT_OFF)
                return validate(parse_json_object(reply.text))
            except (ValueError, KeyError, TypeError) as exc:
                problem = str(exc) if not isinstance(exc, KeyError) else f"missing field {exc}"
                self.record(
                    StepKind.WARNING, f"unusable JSON from the model: {problem}", raw=reply.text, attempt=attempt + 1
                )
                reask = JSON_REASK.format(error=problem, schema=schema)
                messages += [Message("assistant", reply.text), Message("user", reask)]
        raise MalformedOutputError(f"the model's reply stayed unusable: {problem}", raw=reply.text)

    def _send_delta(self, also: Callable[[str], None] | None, text: str) -> None:
        """One text delta of a streamed reply: to the caller's ``on_token``, then to the listeners."""
        self._check_cancelled()  # a streamed reply stops at once
        if also is not None:
            also(text)
        self._emit("text_delta", text=text)

    def _check_cancelled(self) -> None:
        """Wait for a stream's consumer (``run.pace``), then stop a cancelled run (``Cancelled``)."""
        run = self._run
        if run is not None and run.pace is not None:
            run.pace()
        if run is not None and run.cancelled.is_set():
            raise Cancelled(f"{type(self).__name__} {self.name!r}: the run was cancelled")

    def run_tool(self, name: str, args: Any) -> ToolOutcome:
        """Run a tool, if the gate lets it (``vero.core.gate``); record the action and the full observation.

        ``args`` as the model wrote them: the ``Arguments`` of ``ToolCall.args`` (they carry the call's ``origin`` and
        id, so a subclass overriding ``run_tool(name, args)`` keeps both), JSON text, or a dict.  The gate runs the call
        only if the tool is known, the arguments are as written, it is no quote and it is approved; a refusal is the
        observation.  A call that already failed with the same arguments in this run is not run again, unless it timed
        out or was refused (``_repeated_failure``).  The model is sent the output, clipped (``max_observation_chars``).
        """
        run = self._run
        if run is not None and (run.pace is not None or run.cancelled.is_set()):  # see ``_check_cancelled``
            self._check_cancelled()
        args = read_arguments(args) if isinstance(args, str) else args
        shown = args.written if isinstance(args, Arguments) and args.plain else args  # as the steps keep it
        earlier = earlier_results(run.steps if run else (), name, shown)
        hook = self.options.hook  # the small-model accommodations' switches
        failed = next((result for result in earlier if _failed(result)), None)  # not by a timeout
        if failed is not None and hook.refuse_repeated_failures:
            return self._repeated_failure(name, shown, failed)
        judged = self.tools.get(name)  # the tool the gate judges is the one that runs
        call = decide(self, name, args)  # its warning and approval steps come before the action
        parsed = shown if isinstance(call, Refusal) else call.arguments
        kept = sent = parsed  # the step and the event hold copies: what a listener does to them never reaches
        with contextlib.suppress(Exception):  # the tool, nor the tool's doings the record (unless not copyable)
            kept, sent = copy.deepcopy(parsed), copy.deepcopy(parsed)
        self.record(StepKind.ACTION, f"{name}({args_text(parsed)})", tool=name, args=kept)
        if isinstance(call, Refusal):
            self.record(StepKind.OBSERVATION, call.text, tool=name, ok=False, error=call.error)
            return ToolOutcome(call.text, False, call.error, repeated=bool(earlier))
        self._emit("tool_call", tool=name, args=sent, call_id=call.id)  # a dict from every pattern
        if run is not None and (run.pace is not None or run.cancelled.is_set()):
            self._check_cancelled()  # a listener may cancel the run on the tool_call event: this call stops too
        if self.tools.get(name) is not judged:  # replaced since (an MCP server's list_changed, a listener): not run
            text = REPLACED.format(tool=name)
            self.record(StepKind.OBSERVATION, text, tool=name, ok=False, error=ToolError.REFUSED)
            return ToolOutcome(text, False, ToolError.REFUSED)
        started = time.perf_counter()
        outcome = self.tools.call(name, call.arguments)
        seconds = time.perf_counter() - started
        output, ok, error = outcome.output, outcome.ok, outcome.error
        ran = {"tool": name, "ok": ok, "error": error, "chars": len(output), "output": output, "call_id": call.id}
        self._emit("tool_result", **ran, seconds=seconds)
        self.record(StepKind.OBSERVATION, output, tool=name, ok=ok, error=error)
        text = tidy_numbers(output) if hook.tidy_numbers else output
        text = text if len(text) <= self.options.max_observation_chars else self._clip(text)
        return ToolOutcome(text, ok, error, repeated=bool(earlier))

    def _repeated_failure(self, name: str, args: Any, failed: Step) -> ToolOutcome:
        """A call that failed before with the same arguments, not run again: small models repeat a failing
        call word for word, so the observation says so (no list of tools: they tried a list in turn).  A
        failed call is never changed and run again by vero: the model writes the next call (docs/tools.md)."""
        self.record(StepKind.ACTION, f"{name}({args_text(args)})", tool=name, args=args)
        text = REPEATED_FAILURE.format(error=self._clip(failed.content.strip().splitlines()[0], 200))
        self.record(StepKind.OBSERVATION, text, tool=name, ok=False, error=ToolError.REPEATED_FAILURE)
        return ToolOutcome(text, False, ToolError.REPEATED_FAILURE, repeated=True)

    def _clip(self, text: str, limit: int | None = None) -> str:
        """``text`` cut to ``limit`` characters (default ``max_observation_chars``), with a marker."""
        return clip_observation(text, self.options.max_observation_chars if limit is None else limit)

    def record(self, kind: str, content: str = "", **data: Any) -> Step:
        """Add a step to this run (kept in ``last_result.steps``) and emit it."""
        run = self._run
        step = Step(kind, content, data, run.turn if run else 0)
        if run is not None:
            run.steps.append(step)
        self._emit("step", kind=kind, content=content, data=data, turn=step.turn, depth=0)
        if run is not None and run.parent is not None:
            run.parent(step)
        return step

    def _emit(self, type: str, **data: Any) -> None:
        """Emit an event, to the run's ``watch`` too; a sub-agent's printer rests (the parent prints its steps)."""
        run = self._run
        watch = run.watch if run is not None else None
        if watch is None and not self.events.callbacks:  # nobody listens
            return
        if type == "step" and data["data"]:  # a copy: a listener that edits it (a redacting logger) leaves the
            with contextlib.suppress(Exception):  # record be (unless the data cannot be copied)
                data["data"] = copy.deepcopy(data["data"])
        if watch is not None:
            watch(type, data)
        self.events.emit(type, exclude=ConsolePrinter if run is not None and run.parent is not None else None, **data)

    def _relay(self, subagent: str, type: str, data: dict[str, Any]) -> None:
        """A sub-agent's model and tool events, emitted here one level deeper (its steps come via ``_adopt``)."""
        if type in RELAYED_EVENTS:
            self._emit(type, **{**data, "depth": data.get("depth", 0) + 1, "subagent": data.get("subagent", subagent)})

    def keep_partial(self, answer: str) -> None:
        """Remember the best answer so far, returned if a budget cuts the run short."""
        if answer.strip():  # whitespace is no answer
            self.current_run.partial = answer

    def tally(self, counter: str) -> int:
        """Add one to a per-run counter (nudges, format errors, ...) and return its new value."""
        counters = self.current_run.counters
        counters[counter] += 1
        return counters[counter]

    @property
    def partial(self) -> str:
        """The best answer so far in the current run (see ``keep_partial``)."""
        return self._run.partial if self._run else ""

    def subagent(self, cls: type[Agent], name: str, **options: Any) -> Agent:
        """A helper agent of class ``cls`` that shares this agent's model, tools (unless ``tools=`` is given), settings
        (observation clipping, history window, JSON re-asks) and recent history; run it with ``run_subagent``."""
        agent = cls(name, self.llm, verbose=False, **{"tools": self.tools, "options": self.options, **options})
        agent.history = list(self.history_messages())
        return agent

    def run_subagent(self, agent: Agent, task: str, **kwargs: Any) -> RunResult:
        """Run another agent as part of this run: its steps are recorded here one level deeper (and shown
        live), its usage and model calls count toward this run, its events reach this run's stream and
        trace, this run's token budget covers it, and cancelling this run cancels it.  ``kwargs``: as
        ``run``'s (``output_type=``)."""
        run = self.current_run
        # its model and tool events are relayed only when someone here hears them: else its
        # request and reply records would be built for nobody (a listener without ``handles`` hears all)
        heard = run.watch is not None or any(
            not RELAYED_EVENTS.isdisjoint(getattr(listener, "handles", RELAYED_EVENTS))
            for listener in self.events.callbacks
        )
        # this run's budget (itself perhaps what a parent left) covers the child, and so does the child's own
        left = max(1, run.token_budget - run.usage["total_tokens"]) if run.token_budget else None
        budget = min((b for b in (left, agent.max_tokens_per_run) if b), default=None)
        agent._guarded(
            Run(
                task,
                token_budget=budget,
                parent=self._adopt,
                cancelled=run.cancelled,
                watch=functools.partial(self._relay, agent.name) if heard else None,
                deltas=run.deltas,
                pace=run.pace,
                parent_sources=functools.partial(quote_sources, self),
                approvers=approvers_of(self),
            ),
            kwargs,
        )
        result = agent.last_result
        assert result is not None  # set by every run() that returns
        run.llm_calls += result.llm_calls
        add_usage(run.usage, result.usage)
        if run.token_budget:
            self._check_token_budget()
        if run.pace is not None or run.cancelled.is_set():  # cancelled during the sub-agent's run: this one stops too
            self._check_cancelled()
        return result

    def _adopt(self, step: Step) -> None:
        """A sub-agent's step, recorded in this run one level deeper (and passed further up, if nested)."""
        run = self.current_run
        step = Step(step.kind, step.content, step.data, run.turn, step.depth + 1)
        run.steps.append(step)
        self._emit("step", kind=step.kind, content=step.content, data=step.data, turn=step.turn, depth=step.depth)
        if run.parent is not None:
            run.parent(step)

    @property
    def current_run(self) -> Run:
        """The state of the run in progress (raises outside ``run``)."""
        if self._run is None:
            raise RuntimeError(f"{type(self).__name__}: the loop helpers work only inside run()")
        return self._run

    def _check_token_budget(self, messages: Sequence[Message] = (), reply: Message | None = None) -> None:
        """``BudgetExceeded`` past the run's token budget.  A reply with no usage (some local servers and proxies
        report none) counts about 4 characters a token of what was sent and received, with a warning once."""
        run = self.current_run
        if reply is not None and not (reply.usage or {}).get("total_tokens"):  # none, {} or zeros
            if not run.notes.get(NO_USAGE):
                run.notes[NO_USAGE] = True
                self.record(StepKind.WARNING, NO_USAGE_WARNING)
            sent = [*messages, reply]  # text, reasoning and tool calls
            chars = sum(len(m.text) + len(m.reasoning or "") + len(str(m.tool_calls or "")) for m in sent)
            add_usage(run.usage, {"total_tokens": chars // 4 + 1})
        if run.token_budget and run.usage["total_tokens"] > run.token_budget:
            budget, used = run.token_budget, run.usage["total_tokens"]
            if reply is not None and (reply.text.strip() or reply.tool_calls):  # paid for: kept, not used
                calls = [call.to_dict() for call in reply.tool_calls or ()]
                self.record(
                    StepKind.WARNING, OVER_BUDGET_REPLY, raw=reply.text, **({"tool_calls": calls} if calls else {})
                )
            raise BudgetExceeded(Status.MAX_TOKENS, f"token budget of {budget} exceeded ({used} used)")

    # -- conversation history -------------------------------------------------------
    def add_message(self, message: Message) -> None:
        self.history.append(message)

    def clear_history(self) -> None:
        self.history.clear()

    def history_messages(self, max_messages: int | None = None) -> list[Message]:
        """The most recent history messages, at most ``max_messages`` (default ``history_window``), not beginning
        with a tool's result (a server refuses one whose call is not before it, and every later turn with it)."""
        limit = self.options.history_window if max_messages is None else max_messages
        window = self.history[-limit:] if limit > 0 else []
        while window and window[0].role == "tool":  # a result whose call the window cut off: no request may begin so
            window = window[1:]
        return window

    def format_history(self, max_messages: int | None = None, max_chars: int = 2000) -> str:
        """Recent history as text for a prompt, each message clipped to ``max_chars``."""
        messages = self.history_messages(max_messages)
        return "\n".join(f"{m.role.capitalize()}: {clip_text(m.text, max_chars, ' ...[truncated]')}" for m in messages)

    def close(self) -> None:
        """Close the trace file, if any (the agent stays usable, without a trace)."""
        if self._trace is not None:
            self.events.callbacks.remove(self._trace)
            self._trace.close()
            self._trace = None

    def save(self, path: str) -> None:
        """Save the conversation to ``path`` as JSON (atomically), the model's API key masked."""
        save_session(path, self.name, type(self).__name__, self.history, secrets=[getattr(self.llm, "_secret", "")])

    def load(self, path: str) -> None:
        """Replace the conversation with the one saved at ``path`` (``SessionFormatError`` for a corrupted or
        newer file, the current history untouched)."""
        self.history = load_session(path)


def model_client(llm: Any) -> ChatModel:
    """``llm``, or a TypeError at once when it has no ``generate``: a model's name passed where the client
    goes would otherwise fail every run."""
    if not callable(getattr(llm, "generate", None)):
        raise TypeError(
            f"llm must be a model client such as vero.ChatOpenAI, not {type(llm).__name__} "
            f"{clip_text(repr(llm), 80, '...', within=True)}: pass ChatOpenAI(model_name=...) with the model's name "
            "as your endpoint knows it"
        )
    return llm  # type: ignore[no-any-return]  # it has generate: a ChatModel


def clip_observation(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with a marker saying how much was cut."""
    if len(text) <= limit:
        return text
    return clip_text(text, limit, TRUNCATION_MARKER.format(shown=limit, total=len(text)))


_OTHER_NAMES = {"result_type": "output_type=", "max_turns": "max_turns= on the agent"}  # other libraries' run()


def _check_run_settings(agent: Agent, kwargs: dict[str, Any]) -> None:
    """A TypeError at once for a keyword of ``run`` that a pattern's ``solve`` does not take (its ``_solve_options``):
    ignored, ``result_type=int`` would return text (a ``solve`` of your own takes what it declares); and for an
    approver given to the agent itself (``agent.approve_tool = ask``, or a method of that name): ignored, the tools
    would run unasked.  The approver is a setting: ``agent.options = agent.options.updated(approve_tool=ask)``."""
    if any("approve_tool" in vars(owner) for owner in (agent, *type(agent).__mro__)):
        raise TypeError(
            "agent.approve_tool is read from agent.options: agent.options = agent.options.updated(approve_tool=...)"
        )
    owner = next(cls for cls in type(agent).__mro__ if "solve" in vars(cls))
    known = vars(owner).get("_solve_options")
    unknown = [name for name in kwargs if known is not None and name not in known]
    if unknown:
        hint = f" (vero's is {_OTHER_NAMES[unknown[0]]})" if unknown[0] in _OTHER_NAMES else ""
        raise TypeError(f"{type(agent).__name__}.run() got an unexpected keyword argument {unknown[0]!r}{hint}")


def history_section(agent: Agent) -> str:
    """``HISTORY_SECTION`` with the agent's recent conversation, or ``""`` before there is one.

    An empty "(none)" section is noise to a small model: on HumanEval it cost 3 of 40 problems (docs/benchmarks.md).
    """
    history = agent.format_history()
    return HISTORY_SECTION.format(history=history) if history else ""


def with_history(agent: Agent, system: str) -> str:
    """``system`` (never formatted: it may be the user's own prompt) and then ``history_section``."""
    return system + history_section(agent)


def earlier_results(steps: Sequence[Step], name: str, args: Any) -> list[Step]:
    """The observations of the earlier calls of ``name`` with the same arguments among ``steps``
    (this level's: a sub-agent's calls are its own)."""
    return [
        result
        for action, result in zip(steps, steps[1:])
        if (action.kind, result.kind, action.depth, result.depth) == (StepKind.ACTION, StepKind.OBSERVATION, 0, 0)
        and _same_call(action, name, args)
    ]


def tool_calls(steps: Sequence[Step], depth: int = 0) -> list[tuple[Step, Step]]:
    """The ``(action, observation)`` step pairs of the tool calls made at this level (``depth=1``: by the
    sub-agents this run ran)."""
    return [
        (action, result)
        for action, result in zip(steps, steps[1:])
        if (action.kind, result.kind) == (StepKind.ACTION, StepKind.OBSERVATION)
        and action.depth == result.depth == depth
    ]


def _same_call(call: Step, name: str, args: Any) -> bool:
    """True when the action step ``call`` called ``name`` with the same arguments (read, when text)."""
    earlier = call.data.get("args")
    return call.data.get("tool") == name and (
        earlier == args or normalized_arguments(earlier) == normalized_arguments(args)
    )


def _failed(observation: Step) -> bool:
    """A tool result that reports a failure that would happen again (a timeout might not)."""
    error = observation.data.get("error")
    if error in (ToolError.TIMEOUT, ToolError.BUSY, ToolError.REFUSED):  # a refused call is asked about again
        return False
    return error is not None or not observation.data.get("ok", True) or reports_error(observation.content)


# The names that left Agent's public API, for one release: (what to use instead, the old value).
SETTINGS = ("max_observation_chars", "history_window", "json_retries", "max_tool_calls_per_reply", "recovery")
_MOVED: dict[str, tuple[str, Callable[[Agent], Any]]] = {
    **{name: (f"agent.options.{name}", operator.attrgetter(f"options.{name}")) for name in SETTINGS},
    "task": ("agent.current_run.task", lambda a: a._run.task if a._run else ""),
    "steps_so_far": ("agent.current_run.steps", lambda a: lambda: list(a._run.steps) if a._run else []),
    "new_run": ("agent.run / stream / arun", lambda a: lambda task: Run(task, token_budget=a.max_tokens_per_run)),
    "clip": ("vero.core.agent.clip_observation(text, limit)", lambda a: a._clip),
    "history_text": ('agent.format_history() or "(none)"', lambda a: lambda: a.format_history() or "(none)"),
    "history_section": ("vero.core.agent.history_section(agent)", lambda a: functools.partial(history_section, a)),
    "with_history": ("vero.core.agent.with_history(agent, system)", lambda a: functools.partial(with_history, a)),
    "quote_sources": ("vero.core.gate.quote_sources(agent)", lambda a: functools.partial(quote_sources, a)),
    "earlier_results": (
        "vero.core.agent.earlier_results(agent.current_run.steps, name, args)",
        lambda a: lambda name, args: earlier_results(a._run.steps if a._run else [], name, args),
    ),
}
