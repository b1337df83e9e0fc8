"""The hook protocol between an agent and its recovery rules.

A rule is a callable with a ``name`` and a ``limit``; the agent calls it with a
``Seen`` (what the rule may look at) when the model proposes a final answer,
and it returns one of:

- ``Nudge(text)``: a message sent to the model instead of accepting the answer;
- a ``ToolCall``: a call vero makes for the model, ONLY of a read-only tool
  (``consult`` drops any other, and the model is told what ran);
- ``None``: nothing to say.

``consult`` enforces the safety rules for every rule, built-in or a user's: a
rule fires at most ``limit`` times per run, never on an answer that declines or
stops (``declines``), and never runs a tool that may change things.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from vero.core.agent import Agent, tool_calls
from vero.core.message import ToolCall
from vero.core.parsing import call_worked, normalized_arguments
from vero.core.result import Step, StepKind
from vero.tool.registry import ToolRegistry


@dataclass(frozen=True)
class CallSeen:
    """One tool call of the run: the tool, the arguments as the model wrote them, the output, and
    whether it worked (an error report counts as a failure)."""

    tool: str
    arguments: Any
    output: str
    ok: bool


@dataclass(frozen=True)
class Seen:
    """What a rule sees when the model proposes a final answer (the reply's text)."""

    task: str
    answer: str  # the proposed final answer: the model's reply
    steps: tuple[Step, ...]  # the run's steps so far: actions, observations, warnings...
    tools: ToolRegistry

    def results(self) -> list[str]:
        """The outputs of this run's tool calls, oldest first (failed ones included)."""
        return [step.content for step in self.steps if step.kind == StepKind.OBSERVATION and step.depth == 0]

    def calls(self) -> list[CallSeen]:
        """This run's tool calls, oldest first."""
        return [
            CallSeen(
                str(action.data.get("tool")),
                normalized_arguments(action.data.get("args")),
                result.content,
                call_worked(result),
            )
            for action, result in tool_calls(self.steps)
        ]

    @property
    def failed_call(self) -> CallSeen | None:
        """The run's latest tool call when it failed (the answer came right after a failure), else None."""
        calls = self.calls()
        return calls[-1] if calls and not calls[-1].ok else None


@dataclass(frozen=True)
class Nudge:
    """A message for the model, sent instead of accepting its answer."""

    text: str


Response = Nudge | ToolCall | None


class Rule(Protocol):
    """What ``consult`` needs of a rule: a ``name`` (for presets and logs), a ``limit`` per run, and the call."""

    @property
    def name(self) -> str: ...

    @property
    def limit(self) -> int: ...

    def __call__(self, seen: Seen) -> Response: ...


@dataclass(frozen=True, eq=False)
class FunctionRule:
    """A rule made from a plain function by ``@rule(name, limit=...)``."""

    name: str
    limit: int
    check: Callable[[Seen], Response]

    def __call__(self, seen: Seen) -> Response:
        return self.check(seen)


def rule(name: str, limit: int = 1) -> Callable[[Callable[[Seen], Response]], FunctionRule]:
    """Decorator: ``@rule("my-rule", limit=2)`` over ``def check(seen) -> Nudge | ToolCall | None``."""
    return lambda check: FunctionRule(name, limit, check)


# An answer that declines or stops is final: no rule may talk the model out of it.
_DECLINES = re.compile(
    r"\b(?:I(?:'ve| have)? (?:stopped|halted)|I (?:will not|won't|cannot|can ?not|can't|refuse|must decline|decline)"
    r"|I(?:'m| am) (?:not able|unable|not allowed|not permitted|not going to|sorry)"
    r"|not (?:allowed|permitted|authori[sz]ed) to"
    r"|(?:check|contact|confirm) with\b)",
    re.IGNORECASE,
)


# Models often write a typographic apostrophe ("I won\u2019t"): read as the ASCII one.
_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc\u2032\uff07", "'"))


def declines(answer: str) -> bool:
    """True for an answer that refuses, stops, or hands the matter back to a person."""
    return bool(_DECLINES.search(answer.translate(_APOSTROPHES)))


def consult(agent: Agent, rules: tuple[Rule, ...], answer: str) -> Response:
    """The first response of ``rules`` to the proposed ``answer``, within the safety rules above."""
    if not rules or declines(answer):
        return None
    seen = Seen(agent.task, answer, tuple(agent.steps_so_far()), agent.tools)
    counters = agent.current_run.counters
    for candidate in rules:
        if counters[f"rule:{candidate.name}"] >= getattr(candidate, "limit", 1):
            continue
        response = candidate(seen)
        if isinstance(response, ToolCall) and not agent.tools.read_only(response.name):
            agent.record(
                StepKind.WARNING,
                f"recovery rule {candidate.name} proposed a call of {response.name}, which may change things: not run",
                rule=candidate.name,
            )
            continue
        if response is not None:
            counters[f"rule:{candidate.name}"] += 1
            what = response.text if isinstance(response, Nudge) else f"ran {response.name}({response.arguments})"
            agent.record(StepKind.WARNING, f"recovery rule {candidate.name}: {what}", rule=candidate.name, raw=answer)
            return response
    return None
