"""A failed tool call that vero runs again itself, with arguments it corrected by a rule.

The rules, and the order they are tried in, are in ``vero.core.corrections``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from vero.core.parsing import call_worked, reports_error
from vero.core.result import StepKind, ToolError
from vero.tool.base import Tool
from vero.tool.registry import ToolOutcome, parse_arguments

if TYPE_CHECKING:  # the agent's module imports this one
    from vero.core.agent import Agent


def read_call(agent: Agent, name: str, args: Any) -> tuple[Tool, dict[str, Any]] | None:
    """The tool ``name`` and ``args`` as it reads them (also text ReAct's bare ``Action Input: stock * 2``,
    and sloppy JSON), for a rule to correct; None for an unknown tool, one made with
    ``auto_correct=False``, or arguments it cannot read."""
    tool = agent.tools.get(name)
    if tool is None or not tool.auto_correct:  # a tool that changes something runs only the model's calls
        return None
    try:
        return tool, parse_arguments(tool, args)
    except ValueError:
        return None


def read_failed_call(agent: Agent, name: str, args: Any, failure: ToolOutcome) -> tuple[Tool, dict[str, Any]] | None:
    """``read_call``, when the tool itself failed (it raised, or returned an error report): arguments
    the registry rejected (a wrong name or type) hold no value the error could be about."""
    if not (failure.error == ToolError.EXCEPTION or (failure.ok and reports_error(failure.output))):
        return None
    return read_call(agent, name, args)


def told(agent: Agent) -> str:
    """What the user told the agent: the task (a plan step's executor: the user's task, not the step's
    text, which quotes earlier failed calls) and the conversation before it."""
    task = getattr(agent, "overall_task", "") or agent.task
    return "\n".join([task, *(message.text for message in agent.history)])


def worked_results(agent: Agent) -> list[tuple[str | None, str]]:
    """``(tool, output)`` of the earlier calls that worked (a plan step's executor: also the plan's)."""
    return [(action.data.get("tool"), result.content) for action, result in agent.earlier_calls()
            if call_worked(result)]


def names_whole(value: str, text: str) -> bool:
    """True when ``text`` names ``value`` as a whole (not inside a longer word), case aside."""
    pattern = rf"(?<!\w){re.escape(value.strip())}(?!\w)"
    return bool(value.strip()) and re.search(pattern, text, re.IGNORECASE) is not None


def run_again(agent: Agent, name: str, args: dict[str, Any], warning: str, note: str,
              **data: Any) -> ToolOutcome | None:
    """``name(args)`` run through ``agent.run_tool`` after a ``warning`` step; its result with
    ``note`` before it, or None if it fails too (the model is then sent the first error; both calls
    stay in the steps).  A correction is not corrected again: one failed call runs at most twice."""
    agent.record(StepKind.WARNING, warning, **data)
    run = agent.current_run
    run.correcting = True
    try:
        observation = agent.run_tool(name, args)
    finally:
        run.correcting = False
    if not observation.ok or reports_error(observation.output):
        return None
    return ToolOutcome(note + observation.output, observation.ok, observation.error)
