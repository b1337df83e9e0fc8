"""A failed tool call that vero runs again itself, with arguments it corrected by a rule.

The rules: ``vero.core.named_values`` (names of values written where the values belong),
``vero.core.example_form`` (a number not written in the form the error's example shows) and
``vero.core.given_id`` (an id made up where another tool's result gave one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vero.core.parsing import reports_error
from vero.tool.base import Tool
from vero.tool.registry import ToolOutcome, parse_arguments

if TYPE_CHECKING:  # the agent's module imports this one
    from vero.core.agent import Agent


def read_call(agent: Agent, name: str, args: Any) -> tuple[Tool, dict[str, Any]] | None:
    """The tool ``name`` and ``args`` as it reads them (also text ReAct's bare ``Action Input: stock * 2``,
    and sloppy JSON), for a rule to correct; None for an unknown tool or arguments it cannot read."""
    tool = agent.tools.get(name)
    if tool is None:
        return None
    try:
        return tool, parse_arguments(tool, args)
    except ValueError:
        return None


def run_again(agent: Agent, name: str, args: dict[str, Any], warning: str, note: str,
              **data: Any) -> ToolOutcome | None:
    """``name(args)`` run through ``agent.run_tool`` after a ``warning`` step; its result with
    ``note`` before it, or None if it fails too (the model is then sent the first error; both calls
    stay in the steps).  A correction is not corrected again: one failed call runs at most twice."""
    agent.record("warning", warning, **data)
    run = agent.current_run
    run.correcting = True
    try:
        observation = agent.run_tool(name, args)
    finally:
        run.correcting = False
    if not observation.ok or reports_error(observation.text):
        return None
    return ToolOutcome(note + observation.text, observation.ok, observation.error)
