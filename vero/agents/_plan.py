"""PlanExecuteAgent's data: the plan with each step's status and results, the replanner's decisions, and the
readers of the model's JSON and of a step executor's tool calls."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from vero.core.agent import tool_calls
from vero.core.parsing import args_text, call_worked, written_call
from vero.core.result import PlanStepStatus, RunResult, Step
from vero.core.text import folded

_TEXT_KEYS = ("description", "step", "instruction", "task")
_TOOL_NAME = re.compile(r"\s*([A-Za-z_][\w.-]*)\s*(?:\(.*\))?\s*", re.DOTALL)  # find_plant, find_plant(name: str)
MARKERS = {PlanStepStatus.PENDING: "[ ]", PlanStepStatus.IN_PROGRESS: "[>]", PlanStepStatus.COMPLETED: "[x]",
           PlanStepStatus.FAILED: "[!]"}


@dataclass
class PlanStep:
    description: str
    status: PlanStepStatus = PlanStepStatus.PENDING
    result: str = ""
    tool_results: list[tuple[str, str]] = field(default_factory=list)  # ("tool(args)", output) of calls that worked
    errors: list[tuple[str, str]] = field(default_factory=list)  # ("tool(args)", error) of its calls that failed
    deferred: bool = False  # a failed step run again after the next step (see Plan.defer)

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
    given_up: list[str] = field(default_factory=list)  # failed steps that could not be repaired
    put_off: bool = False  # a step was deferred (see defer): once per plan, also after a repair

    @classmethod
    def of(cls, descriptions: list[str]) -> Plan:
        return cls([PlanStep(d) for d in descriptions])

    def render(self) -> str:
        return "\n".join(f"{i}. {MARKERS[s.status]} {s.description}" for i, s in enumerate(self.steps, 1))

    def next_step(self) -> PlanStep:
        """The first pending step (the loops run while one is left)."""
        return next(s for s in self.steps if s.status == PlanStepStatus.PENDING)

    def remaining(self) -> list[str]:
        return [s.description for s in self.steps if s.status == PlanStepStatus.PENDING]

    def completed(self) -> list[str]:
        return [s.description for s in self.steps if s.status == PlanStepStatus.COMPLETED]

    def replace_remaining(self, descriptions: list[str]) -> None:
        self.steps = [s for s in self.steps if s.status != PlanStepStatus.PENDING] + [PlanStep(d) for d in descriptions]

    def results(self, clip: Callable[[str, int], str]) -> str:
        """The finished steps: each with its result and the output of its tool calls that worked; a
        failed step with those outputs and the errors of its last two failed calls, but not its
        answer: no tool result is behind it, and a small model copied such a guess into the final answer."""
        finished = (PlanStepStatus.COMPLETED, PlanStepStatus.FAILED)
        done = [(i, s) for i, s in enumerate(self.steps, 1) if s.status in finished]
        return "\n\n".join(f"Step {i} {MARKERS[s.status]} {s.description}\n{_outcome(s, clip)}" for i, s in done) \
            or "(none yet)"

    def tools_for(self, step: PlanStep, tool_names: list[str]) -> list[str]:
        """The tools ``step`` names, unless the same step failed before (then none: the executor gets all).

        The planner names each step's tool; a small executor given every tool
        tends to reach for the first one listed instead.  But when the same step
        already failed (a small replanner repeats it), the named tool was the
        wrong one, and the executor may pick another.
        """
        named = [name for name in tool_names if re.search(rf"\b{re.escape(name)}\b", step.description)]
        return [] if self.failures(step.description) and not step.deferred else named

    def defer(self, step: PlanStep) -> bool:
        """Run a failed step again, as it is, after the next pending step, and return True; once per step.

        Small planners put a lookup before the step whose result it needs ("Find the greenhouse's
        capacity with greenhouse_info", then "Find the Frostvine with find_plant"), and the executor,
        with no id to use, makes one up.  Run after the next step, it has that step's result.  Only a
        step whose every call failed counts, and only one step per plan (measured: a repair's steps,
        each put off in turn, cost 19 more calls): False (the plan is unchanged) when no step is
        pending, a call of the step worked, it made no call, it failed before, or a step was put off.
        """
        pending = [i for i, s in enumerate(self.steps) if s.status == PlanStepStatus.PENDING]
        if not pending or step.tool_results or not step.errors or self.put_off or self.failures(step.description) > 1:
            return False
        self.steps.insert(pending[0] + 1, PlanStep(step.description, deferred=True))
        self.put_off = True
        return True

    def gave_up(self) -> bool:
        """True when the plan went on without a failed step that no later step with its words did."""
        done = {folded(d) for d in self.completed()}
        return any(folded(d) not in done for d in self.given_up)

    def failed_tools(self, description: str) -> list[str]:
        """The tools whose calls failed in earlier tries of a step with this description."""
        calls = [call for s in self._failed_tries(description) for call, _ in s.errors]
        return list(dict.fromkeys(call.split("(", 1)[0] for call in calls))

    def failures(self, description: str) -> int:
        """How often a step with this description failed."""
        return len(self._failed_tries(description))

    def repair(self, proposed: list[str]) -> tuple[list[str], list[str]]:
        """Take a repair that ``proposed`` these steps for the last failed one: the steps that then remain,
        and the failed steps it gives up (each is recorded in ``given_up``, once).

        A proposed step that already failed twice is dropped; when the rest brings no step that is not
        already later in the plan, the failed step is given up and the plan goes on without it.
        """
        later = {folded(d) for d in self.remaining()}
        repair = [d for d in proposed if self.failures(d) < 2]
        dropped = [d for d in proposed if self.failures(d) >= 2]
        if not any(folded(d) not in later for d in repair):
            dropped.append(next(s.description for s in reversed(self.steps) if s.status == PlanStepStatus.FAILED))
        given_up = [d for d in dict.fromkeys(dropped) if self._give_up(d)]
        repaired = {folded(d) for d in repair}
        return repair + [d for d in self.remaining() if folded(d) not in repaired], given_up

    def _give_up(self, description: str) -> bool:
        """Record that the plan goes on without this failed step; False if it was given up already."""
        if any(folded(d) == folded(description) for d in self.given_up):
            return False
        self.given_up.append(description)
        return True

    def _failed_tries(self, description: str) -> list[PlanStep]:
        wanted = folded(description)
        return [s for s in self.steps if s.status == PlanStepStatus.FAILED and folded(s.description) == wanted]

    def __len__(self) -> int:
        return len(self.steps)


def _outcome(step: PlanStep, clip: Callable[[str, int], str]) -> str:
    worked = "".join(f"\nTool result: {clip(f'{call} -> {output}', 1000)}" for call, output in step.tool_results)
    if step.status != PlanStepStatus.FAILED:
        return f"Result: {clip(step.result, 2000)}{worked}"
    if not step.errors and not step.tool_results:  # no call was made: what the executor ended with says why
        return f"Result: none (the step failed; it ended with: {clip(step.result, 300)})"
    failed = "".join(f"\nFailed call: {clip(f'{call} -> {error}', 500)}" for call, error in step.errors[-2:])
    return f"Result: none (the step failed){worked}{failed}"


@dataclass(frozen=True)
class Finished:
    """The replanner's decision: the task is answered."""

    answer: str


@dataclass(frozen=True)
class Remaining:
    """The replanner's decision: these steps remain (empty: none left, yet no answer)."""

    steps: list[str]


def read_steps(data: dict[str, Any], tools: Collection[str] = ()) -> list[str]:
    """``{"steps": [...]}`` as step texts; an item may also be an object naming one of ``tools``, see
    ``_step_text``.  A step written again right after itself runs once (small replanners repeat a call), and
    one without a word or number is no step (a stray "}" from JSON that a small replanner broke)."""
    steps = data["steps"]
    if not isinstance(steps, list):
        raise ValueError("`steps` must be a list of strings")
    texts = [text for text in (_step_text(item, tools) for item in steps) if re.search(r"\w", text)]
    return [text for i, text in enumerate(texts) if i == 0 or folded(text) != folded(texts[i - 1])]


def _step_text(item: Any, tools: Collection[str]) -> str:
    """A step written as an object, in words: its ``description`` (or ``step``, ``instruction``, ``task``)
    with the tool it names and that tool's arguments; or a call object (``{"tool": ..., "arguments":
    {...}}``, written by small replanners, sometimes with the tool's signature as its name) as "Call tool
    with a=1".  Anything else is kept as JSON rather than dropped."""
    if not isinstance(item, dict):
        return str(item).strip()
    text = next((item[k] for k in _TEXT_KEYS if isinstance(item.get(k), str) and item[k].strip()), "").strip()
    call = written_call(item)
    names = ([call[0]] if call else []) + [value for value in item.values() if isinstance(value, str)]
    tool = next((m[1] for name in names if (m := _TOOL_NAME.fullmatch(name)) and m[1] in tools), None)
    if tool is None:
        return text or (json.dumps(item, ensure_ascii=False) if item else "")
    arguments = args_text(call[1]) if call and call[1] else ""
    if not text:
        return f"Call {tool} with {arguments}" if arguments else f"Call {tool}"
    text = text if re.search(rf"\b{re.escape(tool)}\b", text) else f"{text} with {tool}"
    return f"{text} ({arguments})" if arguments else text


def read_plan(data: dict[str, Any], instructions: str, tools: Collection[str] = ()) -> list[str]:
    """The plan's steps; a step copied word for word from the planner's ``instructions`` (their example,
    which small models copy) is re-asked for.  Steps without a word leave an empty plan (``failed``)."""
    steps = read_steps(data, tools)
    copied = next((step for step in steps if len(step) >= 20 and folded(step) in folded(instructions)), None)
    if copied is not None:
        raise ValueError(f"the step {copied!r} is copied from the example in the instructions; "
                         "plan this task's own steps, with the tools listed in the request")
    return steps


def read_replan(data: dict[str, Any], completed: list[str], tools: Collection[str] = ()) -> Finished | Remaining:
    """A final answer (``response``) or the remaining steps.

    A replanner that repeats the whole plan would re-run finished steps, so
    leading steps that match the ``completed`` ones are dropped (the steps are
    empty if it listed only completed ones).
    """
    response = data.get("response")
    if isinstance(response, str) and response.strip():
        return Finished(response.strip())
    if "steps" not in data:
        raise ValueError('reply with {"response": ...} when done, or {"steps": [...]} with the remaining steps')
    steps = read_steps(data, tools)
    if not steps:
        raise ValueError('no steps remain, so reply with {"response": "<the final answer>"}')
    done = {folded(d) for d in completed}
    while steps and folded(steps[0]) in done:
        steps.pop(0)
    return Remaining(steps)


def tool_results(steps: Sequence[Step]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``("tool(args)", output)`` for each call of a step's executor that worked, and for each that failed.

    Later steps and the answer see these values as the tools gave them: a small
    executor's own retelling rounds them, or computes something nobody asked for.
    A step whose every call failed is not done, whatever the executor then said.
    """
    calls = [(action.content, result.content.strip(), call_worked(result)) for action, result in tool_calls(steps)]
    return (list(dict.fromkeys((call, output) for call, output, worked in calls if worked)),
            list(dict.fromkeys((call, output) for call, output, worked in calls if not worked)))


def lasting(calls: list[tuple[Step, Step]]) -> tuple[tuple[Step, Step], ...]:
    """The plan's tool calls whose outcome still holds for a later step: every call that worked, and
    the failed calls made since the last call that worked (a call that worked, such as one that
    creates a file, may change what a failed call would now meet)."""
    last_worked = max((i for i, (_, result) in enumerate(calls) if call_worked(result)), default=-1)
    return tuple(call for i, call in enumerate(calls) if i > last_worked or call_worked(call[1]))


@dataclass(frozen=True)
class Approval:
    """The approval gate's verdict on a plan: approved, or not, with feedback for the planner when given."""

    approved: bool
    feedback: str = ""  # as the user wrote it: the planner reads it so

    @classmethod
    def of(cls, verdict: object) -> Approval:
        """What an ``approve`` function returned, as a verdict: True approves, a non-empty string is
        feedback, an ``Approval`` is kept, and anything else (False, None, "") rejects."""
        if isinstance(verdict, Approval):
            return verdict
        if isinstance(verdict, str) and verdict.strip():
            return cls(False, verdict)
        return cls(verdict is True)

    def __str__(self) -> str:
        """As the ``approval`` step shows it."""
        if self.approved:
            return "approved"
        return f"sent back with feedback: {self.feedback.strip()}" if self.feedback.strip() else "rejected"
