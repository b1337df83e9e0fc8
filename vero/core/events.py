"""Events: loops report what happens; printers and trace files listen.

The agent loops never print.  They emit events (``run_start``, ``llm_call``,
``tool_call``, ``tool_result``, ``step``, ``run_end``) to callbacks.
``ConsolePrinter`` turns them into one emoji line per step, and
``JsonlTrace`` appends each to a file, flushed per event, so a killed
process keeps every completed step.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, TextIO

log = logging.getLogger("vero.events")


@dataclass(slots=True)
class Event:
    type: str
    agent: str
    data: dict = field(default_factory=dict)
    time: float = 0.0

    def to_dict(self) -> dict:
        return {"type": self.type, "agent": self.agent, "time": self.time, **self.data}


Callback = Callable[[Event], None]


class JsonlTrace:
    """Appends every event as one JSON line, flushed at once."""

    def __init__(self, path: str):
        self.path = path
        # backslashreplace: text the model or user sent that is not valid
        # UTF-8 (a lone surrogate) is written escaped instead of failing the run.
        self._file = open(path, "a", encoding="utf-8", errors="backslashreplace")

    def __call__(self, event: Event) -> None:
        self._file.write(json.dumps(event.to_dict(), ensure_ascii=False, default=str) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


# -- console output -------------------------------------------------------------
STEP_ICONS = {
    "draft": "📝", "revision": "📝", "critique": "🔍", "thought": "💭", "action": "🔧",
    "observation": "👀", "final": "✅", "plan": "📋", "replan": "🔄", "plan_step": "▶️",
    "attempt": "🔁", "evaluation": "⚖️", "reflection": "🪞", "warning": "⚠️", "error": "❌",
    "thinking": "🤔", "answer": "💬", "approval": "🙋",
}
STATUS_ICONS = {"ok": "🏁", "needs_review": "🧐", "max_turns": "⌛", "max_tokens": "⌛", "rejected": "🚫", "failed": "❌"}


def use_colour(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set."""
    return "NO_COLOR" not in os.environ and getattr(stream, "isatty", lambda: False)()


class ConsolePrinter:
    """Prints one line per step, in the spirit of the original framework."""

    def __init__(self, stream: TextIO | None = None, max_chars: int = 2000):
        self.stream = stream or sys.stdout
        self.max_chars = max_chars
        self.colour = use_colour(self.stream)

    def __call__(self, event: Event) -> None:
        handler = getattr(self, f"on_{event.type}", None)
        if handler is not None:
            handler(event)

    def on_run_start(self, event: Event) -> None:
        self._line("=" * 30)
        self._line(f"🚀 {event.data.get('cls', 'Agent')} `{event.agent}`")
        self._line(f"👤 User Input: {self._short(event.data.get('task', ''))}")
        self._line("=" * 30)

    def on_step(self, event: Event) -> None:
        kind = event.data["kind"]
        if kind == "final" and not event.data.get("depth"):
            return  # run_end prints the final answer
        indent = "    " * event.data.get("depth", 0)
        icon = STEP_ICONS.get(kind, "•")
        label = kind.replace("_", " ").capitalize()
        self._line(f"{indent}{icon} {self._dim(label + ':')} {self._short(event.data.get('content', ''))}")

    def on_run_end(self, event: Event) -> None:
        status = event.data.get("status", "")
        icon = STATUS_ICONS.get(status, "🏁")
        answer = self._short(event.data.get("answer", ""))
        if status == "failed":  # not an answer: the run failed, and history does not keep it
            self._line(f"{icon} Run failed" + (f"; partial, not kept: {answer}" if answer else ""))
        else:
            self._line(f"{icon} Final Answer ({status}): {answer}")
        error = event.data.get("error")
        if error:
            self._line(f"❌ Error: {error}")
        self._line(f"⏳ Elapsed: {event.data.get('elapsed_s', 0):.1f} s, {event.data.get('llm_calls', 0)} model calls")

    def _short(self, text: str) -> str:
        text = str(text)
        if len(text) > self.max_chars:
            return text[: self.max_chars] + f" … [{len(text) - self.max_chars} more chars]"
        return text

    def _dim(self, text: str) -> str:
        return f"\033[1m{text}\033[0m" if self.colour else text

    def _line(self, text: str) -> None:
        try:
            print(text, file=self.stream, flush=True)
        except UnicodeEncodeError:  # e.g. a lone surrogate on a UTF-8 terminal
            encoding = getattr(self.stream, "encoding", None) or "utf-8"
            print(text.encode(encoding, "backslashreplace").decode(encoding), file=self.stream, flush=True)


class EventBus:
    """A list of callbacks; emitting with none attached costs almost nothing."""

    def __init__(self, agent_name: str, callbacks: list[Callback] | None = None):
        self.agent_name = agent_name
        self.callbacks: list[Callback] = list(callbacks or [])

    def emit(self, type: str, **data: Any) -> None:
        if not self.callbacks:
            return
        event = Event(type, self.agent_name, data, time.time())
        for callback in self.callbacks:
            try:
                callback(event)
            except Exception:  # a broken listener must not break the run it watches
                log.warning("event listener %r failed on %s", callback, type, exc_info=True)
