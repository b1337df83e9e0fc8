"""PlanExecuteAgent's data: the plan with each step's status and results, the replanner's decisions, and the
readers of the model's JSON and of a step executor's tool calls."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vero.core.agent import tool_calls
from vero.core.parsing import call_worked
from vero.core.result import PlanStepStatus, RunResult, Step
from vero.core.text import SHOWS_NOTHING, folded

_TEXT_KEYS = ("description", "step", "instruction", "task")
_LIST_MARK = re.compile(r"^(?:\d+[.)]|[-*•])\s+")  # "2. ", "- "
# A replanner's response that says "no answer yet" beside the steps that remain
_NOT_YET = re.compile(r"(?i)null|none|nil|false|true|n/?a|tbd|pending|undefined|not yet|-+|\.+|…")
MARKERS = {
    PlanStepStatus.PENDING: "[ ]",
    PlanStepStatus.IN_PROGRESS: "[>]",
    PlanStepStatus.COMPLETED: "[x]",
    PlanStepStatus.FAILED: "[!]",
}


@dataclass
class PlanStep:
    description: str
    status: PlanStepStatus = PlanStepStatus.PENDING
    result: str = ""
    tool_results: list[tuple[str, str]] = field(default_factory=list)  # ("tool(args)", output) of calls that worked
    errors: list[tuple[str, str]] = field(default_factory=list)  # ("tool(args)", error) of its calls that failed

    def finish(self, result: RunResult) -> None:
        """Take the outcome of the step's executor run: its tool calls, its result, and its status,
        ``completed`` only when the run ended ok and a call worked or none failed (a step whose
        every call failed is not done, whatever the executor then said)."""
        self.tool_results, self.errors = tool_results(result.steps)
        worked = result.ok and (self.tool_results or not self.errors)
        self.status = PlanStepStatus.COMPLETED if worked else PlanStepStatus.FAILED
        self.result = result.answer or f"(no result: the step ended {result.status}; {result.error})"


@dataclass
class Plan:
    """An ordered list of steps with their status; ``render()`` shows ``[ ] [>] [x] [!]``."""

    steps: list[PlanStep] = field(default_factory=list)

    @classmethod
    def of(cls, descriptions: list[str]) -> Plan:
        return cls([PlanStep(d) for d in descriptions])

    def render(self) -> str:
        return "\n".join(f"{i}. {MARKERS[s.status]} {s.description}" for i, s in enumerate(self.steps, 1))

    def next_step(self) -> PlanStep:
        """The first pending step (the replanner always leaves one, or answers)."""
        return next(s for s in self.steps if s.status == PlanStepStatus.PENDING)

    def remaining(self) -> list[str]:
        return [s.description for s in self.steps if s.status == PlanStepStatus.PENDING]

    def completed(self) -> list[str]:
        return [s.description for s in self.steps if s.status == PlanStepStatus.COMPLETED]

    def replace_remaining(self, descriptions: list[str]) -> None:
        self.steps = [s for s in self.steps if s.status != PlanStepStatus.PENDING] + [PlanStep(d) for d in descriptions]

    def results(self, clip: Callable[[str, int], str], most: int) -> str:
        """The finished steps: each with its result and the output of its tool calls that worked; a
        failed step with those outputs and the errors of its last two failed calls, but not its
        answer: no tool result is behind it, and a model copied such a guess into the final answer.
        ``clip`` cuts each text; no result is shown past ``most`` characters (``max_observation_chars``)."""
        finished = (PlanStepStatus.COMPLETED, PlanStepStatus.FAILED)
        done = [(i, s) for i, s in enumerate(self.steps, 1) if s.status in finished]
        shown = [f"Step {i} {MARKERS[s.status]} {s.description}\n{_outcome(s, clip, most)}" for i, s in done]
        return "\n\n".join(shown) or "(none yet)"

    def __len__(self) -> int:
        return len(self.steps)


def _outcome(step: PlanStep, clip: Callable[[str, int], str], most: int) -> str:
    """A finished step as the next step's executor and the replanner read it; a result is shown at most as far as
    the model was shown it (``most``, ``max_observation_chars``): what is past that, the gate does not compare."""
    worked = "".join(
        f"\nTool result: {clip(f'{call} -> {output}', min(1000, most))}" for call, output in step.tool_results
    )
    if step.status != PlanStepStatus.FAILED:
        return f"Result: {clip(step.result, 2000)}{worked}"
    if not step.errors and not step.tool_results:  # no call was made: what the executor ended with says why
        return f"Result: none (the step failed; it ended with: {clip(step.result, 300)})"
    failed = "".join(f"\nFailed call: {clip(f'{call} -> {error}', min(500, most))}" for call, error in step.errors[-2:])
    return f"Result: none (the step failed){worked}{failed}"


@dataclass(frozen=True)
class Finished:
    """The replanner's decision: the task is answered."""

    answer: str


@dataclass(frozen=True)
class Remaining:
    """The replanner's decision: these steps remain (at least one)."""

    steps: list[str]


def read_steps(data: dict[str, Any]) -> list[str]:
    """``{"steps": [...]}`` as step texts: a string as it is, an object by its ``description`` (or ``step``,
    ``instruction``, ``task``) or else as JSON; an item without a word or number is no step."""
    steps = data["steps"]
    if not isinstance(steps, list):
        raise ValueError("`steps` must be a list of strings")
    return [text for text in map(_step_text, steps) if re.search(r"\w", text)]


def _step_text(item: Any) -> str:
    """A step's text without a list's number or bullet (``"2. Add 5"``: the plan numbers its steps itself); none
    for ``null``, ``true`` or a list."""
    if item is None or isinstance(item, (bool, list)):
        return ""
    if not isinstance(item, dict):
        return _LIST_MARK.sub("", str(item).strip())
    text = next((item[k] for k in _TEXT_KEYS if isinstance(item.get(k), str) and item[k].strip()), "")
    return _LIST_MARK.sub("", text.strip()) or json.dumps(item, ensure_ascii=False)


def read_plan(data: dict[str, Any], instructions: str) -> list[str]:
    """The plan's steps; a step copied word for word from the planner's ``instructions`` (their example)
    is re-asked for.  Steps without a word leave an empty plan (``failed``)."""
    steps = read_steps(data)
    copied = next((step for step in steps if len(step) >= 20 and folded(step) in folded(instructions)), None)
    if copied is not None:
        raise ValueError(
            f"the step {copied!r} is copied from the example in the instructions; "
            "plan this task's own steps, with the tools listed in the request"
        )
    return steps


def read_replan(data: dict[str, Any], completed: list[str], remaining: list[str]) -> Finished | Remaining:
    """A final answer (``response``) or the steps that remain, never none.

    A replanner that repeats the whole plan would re-run finished steps, so leading steps that match
    the ``completed`` ones are dropped, and so is a step written with its ``result``: a report of a step
    done, copied from the progress it was shown, not a step to do.  If that leaves none, the
    ``remaining`` plan stands, and with no step remaining the replanner is asked again for its answer.
    """
    response = data.get("response")
    steps_given = isinstance(data.get("steps"), list) and data["steps"] != []  # "response": false beside them
    if isinstance(response, (int, float, dict, list)) and response not in ({}, []) and not steps_given:  # 42, true
        response = json.dumps(response, ensure_ascii=False)  # {...}: as JSON
    if isinstance(response, str) and not SHOWS_NOTHING.fullmatch(response):  # "\u200b" is no answer either,
        if not (steps_given and _NOT_YET.fullmatch(response.strip())):  # nor "null" beside the steps that remain
            return Finished(response.strip())
    if "steps" not in data:
        raise ValueError('reply with {"response": ...} when done, or {"steps": [...]} with the remaining steps')
    if isinstance(data["steps"], list):
        data = {"steps": [step for step in data["steps"] if not (isinstance(step, dict) and "result" in step)]}
    steps = read_steps(data)
    done = {folded(d) for d in completed}
    while steps and folded(steps[0]) in done:
        steps.pop(0)
    if not steps and not remaining:
        raise ValueError('no steps remain, so reply with {"response": "<the final answer>"}')
    return Remaining(steps or remaining)


def in_order(steps: list[str], approved: list[str]) -> bool:
    """Whether ``steps`` are ``approved`` ones in their order, some perhaps dropped: nothing new to approve (compared as
    written, spacing, a list number or bullet and an end stop aside: not case, ``Draft.txt`` is not ``draft.txt``)."""
    rest = iter(map(_as_read, approved))
    return all(_as_read(step) in rest for step in steps)  # each found after the one before it


def _as_read(step: str) -> str:
    """A step as ``in_order`` compares it: one end stop aside, not a path's ``/..`` nor more stops (``a;;``)."""
    return _END_STOP.sub("", _LIST_MARK.sub("", " ".join(step.split()).replace("\u2019", "'"))).rstrip()


_END_STOP = re.compile(r"(?<![.;/\s])[.;]\Z")  # a sentence's stop, not a path's "." nor "git add ."


def tool_results(steps: Sequence[Step]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``("tool(args)", output)`` for each call of a step's executor that worked, and for each that failed.

    Later steps and the answer see these values as the tools gave them: a small
    executor's own retelling rounds them, or computes something nobody asked for.
    """
    calls = [(action.content, result.content.strip(), call_worked(result)) for action, result in tool_calls(steps)]
    worked = list(dict.fromkeys((call, output) for call, output, ok in calls if ok))
    failed = list(dict.fromkeys((call, output) for call, output, ok in calls if not ok))
    return worked, failed


@dataclass(frozen=True)
class Approval:
    """The approval gate's verdict on a plan: approved, or not, with feedback for the planner when given."""

    approved: bool
    feedback: str = ""  # as the user wrote it: the planner reads it so

    @classmethod
    def of(cls, verdict: object) -> Approval:
        """What an ``approve`` function returned, as a verdict: True approves, a non-empty string is
        feedback, an ``Approval`` is kept (its ``approved`` True or not: ``Approval("no")`` rejects), and anything
        else (False, None, "") rejects."""
        if isinstance(verdict, Approval):
            return cls(verdict.approved is True, verdict.feedback)
        if isinstance(verdict, str) and verdict.strip():
            return cls(False, verdict)
        return cls(verdict is True)

    def __str__(self) -> str:
        """As the ``approval`` step shows it."""
        if self.approved:
            return "approved"
        return f"sent back with feedback: {self.feedback.strip()}" if self.feedback.strip() else "rejected"
