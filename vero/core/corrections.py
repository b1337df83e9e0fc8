"""vero's corrections of a failed tool call, in the order they are tried (each in its own module).

Each rule reads a failed call and its error, and when the arguments it meant are plain, runs the
call again with them (``vero.core.rerun.run_again``): the names of values written where the values
belong, a number not written in the form of the error's example, the value the error suggests, the
one value the error lists as known that the conversation gave, an id made up where another tool's
result gave one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vero.core.example_form import run_in_example_form
from vero.core.given_id import run_with_given_id
from vero.core.listed_value import run_with_listed_value
from vero.core.named_values import run_with_values
from vero.core.suggestion import run_with_suggestion
from vero.tool.registry import ToolOutcome

if TYPE_CHECKING:  # the agent's module imports this one
    from vero.core.agent import Agent

RULES = (run_with_values, run_in_example_form, run_with_suggestion, run_with_listed_value, run_with_given_id)


def run_corrected(agent: Agent, name: str, args: Any, failure: ToolOutcome) -> ToolOutcome | None:
    """The result of the failed call run again by the first rule that corrects it; None if none does,
    or if the corrected call fails too."""
    for rule in RULES:
        outcome = rule(agent, name, args, failure)
        if outcome is not None:
            return outcome
    return None
