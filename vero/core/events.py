"""Events: loops report what happens; printers and trace files listen.

The agent loops never print.  They emit events (``run_start``, ``llm_start``, ``llm_call``, ``tool_call``,
``tool_result``, ``step``, ``run_end``) to callbacks.  ``ConsolePrinter`` turns them into one emoji line per
step, and ``JsonlTrace`` appends each to a file, flushed per event, so a killed process keeps every completed
step (``vero trace FILE`` reads it back).  ``vero.core.stream`` makes them typed objects for ``Agent.stream``.
"""

from __future__ import annotations

import builtins
import contextlib
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from vero.core.files import open_regular
from vero.core.result import PlanStepStatus, Status, StepKind
from vero.core.secrets import KEYS_IN_USE, hide_secrets, masked_json
from vero.core.text import clip, printable, printable_json

log = logging.getLogger("vero.events")


@dataclass(slots=True)
class Event:
    """One thing that happened, as listeners get it: ``type`` (an agent's ``run_start`` ... ``run_end``,
    docs/custom-agents.md, "Events"; a ``ChatOpenAI``'s ``llm_request``, ``llm_response``, ``llm_retry``,
    ``llm_replay``), ``agent`` (its name; empty for a model client's), ``data`` and ``time`` (Unix time)."""

    type: str
    agent: str
    data: dict[str, Any] = field(default_factory=dict)
    time: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "agent": self.agent, "time": self.time, **self.data}


Callback = Callable[[Event], None]


class JsonlTrace:
    """Appends every event as one JSON line, flushed at once (text deltas aside: the reply has the text).

    Only a regular file (or a new one) is opened.  A write that fails stops the trace (one warning,
    ``error`` keeps why) and the run goes on.  ``secret`` (the API key) is masked in every value.
    """

    def __init__(self, path: str, secret: str = ""):
        self.path = path
        self.error: OSError | None = None  # the first failed write; nothing is written after it
        fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        self.secret = secret if isinstance(secret, str) else ""
        # backslashreplace: text that is not valid UTF-8 (a lone surrogate) is written escaped, not failing the run
        self._file = os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace")

    def __call__(self, event: Event) -> None:
        if self.error is not None or event.type == "text_delta":
            return
        line = printable_json(masked_json(event.to_dict(), [self.secret]))
        try:
            self._file.write(line + "\n")
            self._file.flush()
        except OSError as exc:
            self.error = exc
            text = "vero: the trace file %s could not be written (%s); the trace stops here"
            log.warning(text, self.path, exc.strerror or exc)
            self.close()

    def close(self) -> None:
        with contextlib.suppress(OSError):  # a failed write's bytes, still buffered, fail again on closing
            self._file.close()


# -- console output -------------------------------------------------------------
# One icon per StepKind; a kind that a subclass of Agent records for itself gets DEFAULT_STEP_ICON.
# Keyed by members, looked up by member or plain string ("final" finds FINAL's icon).
STEP_ICONS: dict[str, str] = {
    StepKind.DRAFT: "📝",
    StepKind.REVISION: "📝",
    StepKind.CRITIQUE: "🔍",
    StepKind.THOUGHT: "💭",
    StepKind.ACTION: "🔧",
    StepKind.OBSERVATION: "👀",
    StepKind.FINAL: "✅",
    StepKind.PLAN: "📋",
    StepKind.REPLAN: "🔄",
    StepKind.PLAN_STEP: "▶️",
    StepKind.ATTEMPT: "🔁",
    StepKind.EVALUATION: "⚖️",
    StepKind.REFLECTION: "🪞",
    StepKind.WARNING: "⚠️",
    StepKind.ERROR: "❌",
    StepKind.THINKING: "🤔",
    StepKind.ANSWER: "💬",
    StepKind.APPROVAL: "🙋",
}
DEFAULT_STEP_ICON = "•"
MORE_CHARS = " … [{count} more chars]"  # after a clipped line's text
# A step kind whose label depends on its data: plan_step starts ([>]) and ends (done or failed).
PLAN_STEP_LABELS = {
    PlanStepStatus.IN_PROGRESS: ("▶️", "Step started"),
    PlanStepStatus.COMPLETED: ("✅", "Step done"),
    PlanStepStatus.FAILED: ("❌", "Step failed"),
}
STATUS_ICONS: dict[str, str] = {
    Status.OK: "🏁",
    Status.NEEDS_REVIEW: "🧐",
    Status.MAX_TURNS: "⌛",
    Status.MAX_TOKENS: "⌛",
    Status.REJECTED: "🚫",
    Status.FAILED: "❌",
    Status.CANCELLED: "🛑",
    Status.INVALID_OUTPUT: "🧩",  # an answer that never fit the output type: no finish flag
}


class ConsolePrinter:
    """Prints one line per step, an icon and the step's kind before its text.

    Every line goes through ``_line``, which escapes control characters (``vero.core.text.printable``): what
    a model, a tool or a server wrote cannot move the cursor, retitle the window or write the clipboard.
    ``handles``: the events it prints; an agent builds no request or reply record for the model events when
    no listener handles them (a listener without ``handles`` hears every event).
    """

    handles = frozenset({"run_start", "step", "run_end", "llm_retry"})

    def __init__(self, stream: TextIO | None = None, max_chars: int = 2000, secrets: Sequence[str | None] = ()):
        self.stream = stream or sys.stdout
        self.max_chars = max_chars
        self.colour = "NO_COLOR" not in os.environ and getattr(self.stream, "isatty", lambda: False)()  # a terminal
        self.secrets = secrets  # keys masked in every line (the CLI's list is filled once the command starts)

    def __call__(self, event: Event) -> None:
        handler = getattr(self, f"on_{event.type}", None)
        if handler is not None:
            handler(event)

    def on_run_start(self, event: Event) -> None:
        self._line("=" * 30)
        self._line(f"🚀 {event.data.get('cls', 'Agent')} `{event.agent}`")
        self._line(str(event.data.get("task", "")), before="👤 User Input: ", short=True)
        self._line("=" * 30)

    def on_step(self, event: Event) -> None:
        kind = str(event.data["kind"])  # a StepKind, or a kind of one's own (a string, or an enum of one's own)
        if kind == StepKind.FINAL and not event.data.get("depth"):
            return  # run_end prints the final answer
        indent = "    " * event.data.get("depth", 0)
        icon = STEP_ICONS.get(kind, DEFAULT_STEP_ICON)
        label = kind.replace("_", " ").capitalize()
        if kind == StepKind.PLAN_STEP:
            icon, label = PLAN_STEP_LABELS.get((event.data.get("data") or {}).get("status", ""), (icon, label))
        text = _error_text(event.data) if kind == StepKind.ERROR else str(event.data.get("content", ""))
        self._line(text, label=f"{label}:", before=f"{indent}{icon} ", short=True)

    def on_run_end(self, event: Event) -> None:
        data, answer, limit = event.data, str(event.data.get("answer", "")), self.max_chars
        if len(answer) > limit:
            answer = clip(answer, limit, MORE_CHARS.format(count=len(answer) - limit))
        status, elapsed, calls = data.get("status", ""), data.get("elapsed_s", 0), data.get("llm_calls", 0)
        for line in footer_lines(status, answer, elapsed, calls, data.get("usage"), data.get("error")):
            self._line(line)

    def on_llm_retry(self, event: Event) -> None:
        """A ``ChatOpenAI`` retries a request (``ChatOpenAI.callbacks``): ``🔁 retrying (2/3) http://...: no reply
        within 2 s (timed out)``."""
        data = event.data
        where = f" {data['url']}" if data.get("url") else ""
        attempt = f"{data.get('attempt', '?')}/{data.get('max_attempts', '?')}"
        self._line(f"🔁 retrying ({attempt}){where}: {data.get('reason') or 'failed'}")

    def _line(self, text: str, label: str = "", before: str = "", short: bool = False) -> None:
        """Print ``before``, ``label`` (bold on a colour terminal) and ``text`` (``short``: clipped to ``max_chars``)
        as one line, keys masked and control characters escaped (the bold is vero's own, added after)."""
        if short and len(text) > self.max_chars:
            text = clip(text, self.max_chars, MORE_CHARS.format(count=len(text) - self.max_chars))
        text = printable(hide_secrets(text, self.secrets) if KEYS_IN_USE or any(self.secrets) else text)
        if label:
            text = f"\033[1m{printable(label)}\033[0m {text}" if self.colour else f"{printable(label)} {text}"
        text = f"{printable(before)}{text}" if before else text
        try:
            print(text, file=self.stream, flush=True)
        except UnicodeEncodeError:  # e.g. a lone surrogate on a UTF-8 terminal
            encoding = getattr(self.stream, "encoding", None) or "utf-8"
            print(text.encode(encoding, "backslashreplace").decode(encoding), file=self.stream, flush=True)


REPLY_EXCERPT_CHARS = 200


def _error_text(data: dict[str, Any]) -> str:
    """What an ``error`` step's line shows: its content; with a ``reason`` (a reply that stayed
    unusable, recorded whole), the reason first and an excerpt of the reply after it."""
    content = str(data.get("content", ""))
    reason = (data.get("data") or {}).get("reason")
    if not reason:
        return content
    excerpt = clip(" ".join(content.split()), REPLY_EXCERPT_CHARS, "…", within=True)
    return f"{reason}; the reply was: {excerpt}" if excerpt else str(reason)


def footer_lines(
    status: str,
    answer: str,
    elapsed_s: float,
    llm_calls: int,
    usage: dict[str, Any] | None = None,
    error: str | None = None,
) -> list[str]:
    """The end of a run as printed by ``ConsolePrinter`` and the ``vero`` command.

        🏁 Final Answer (ok): Paris.
        ⏳ Elapsed: 0.4 s, 1 model call, 31 tokens (25 prompt + 6 completion)

    A ``failed`` or ``cancelled`` run's partial text is not an answer (history does not keep
    it): ``❌ Run failed; partial, not kept: ...``.  ``error`` adds a ``❌ Error:``
    line.  A run that made requests but got no reply says ``no model call succeeded``.
    """
    icon = STATUS_ICONS.get(status, "🏁")
    if status in (Status.FAILED, Status.CANCELLED):
        lines = [f"{icon} Run {status}" + (f"; partial, not kept: {answer}" if answer else "")]
    else:
        lines = [f"{icon} Final Answer ({status}): {answer}"]
    if error:
        lines.append(f"❌ Error: {error}")
    if llm_calls:
        calls = f"{llm_calls} model call{'s' if llm_calls != 1 else ''}"
    else:
        calls = "no model call succeeded" if status == Status.FAILED else "0 model calls"
    if usage and usage.get("total_tokens"):
        prompt, completion = usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)
        calls += f", {usage['total_tokens']} tokens ({prompt} prompt + {completion} completion)"
    lines.append(f"⏳ Elapsed: {elapsed_s:.1f} s, {calls}")
    return lines


class EventBus:
    """A list of callbacks; emitting with none attached costs almost nothing."""

    def __init__(self, agent_name: str, callbacks: list[Callback] | None = None):
        self.agent_name = agent_name
        self.callbacks: list[Callback] = list(callbacks or [])

    def emit(self, type: str, exclude: builtins.type | None = None, **data: Any) -> None:
        """Send an event to every callback (except instances of ``exclude``)."""
        if not self.callbacks:
            return
        event = Event(type, self.agent_name, data, time.time())
        for callback in self.callbacks:
            if exclude is not None and isinstance(callback, exclude):
                continue
            try:
                callback(event)
            except KeyboardInterrupt:  # the user's Ctrl-C cancels the run, wherever it lands
                raise
            except BaseException:  # a broken listener (even one calling sys.exit) must not break the run it watches
                log.warning("event listener %r failed on %s", callback, type, exc_info=True)
