"""A failed tool call whose error lists the values the tool knows, one of which the conversation gave.

In plan-and-execute, after ``greenhouse_info`` had returned ``"keeper": "Tamsin Reed"``, a step's
executor called ``keeper_profile(name="Sunthistle's greenhouse")`` and read ``no keeper named
"Sunthistle's greenhouse". Known names: Orla Venn, Tamsin Reed, Idris Calloway, ...``; it made the
same call again (seen on Qwen2.5-Coder-1.5B, also with ``name='GH-03'`` and ``name='Keeper Y'``).
So when the error lists the known values and exactly one of them is in the task or in another
tool's result, ``run_with_listed_value`` runs the call again with it; the model is told that it
did.  If that call fails too, the model gets the first error.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from vero.core.parsing import args_text, output_record
from vero.core.rerun import names_whole, read_failed_call, run_again, told, worked_results
from vero.tool.registry import ToolOutcome

if TYPE_CHECKING:  # the agent's module imports this one
    from vero.core.agent import Agent

RAN_LISTED_VALUE = ("({value!r} is not one of the known values; {listed!r} is, and {source} gave it: "
                    "ran {call} instead:)\n")
# "Known names: A, B, C.", "valid statuses are: open, closed", "must be one of: 'a', 'b'", "available rooms: R1, R2"
_LIST = re.compile(r"\b(?:known|valid|available|allowed|possible)\b[ \w]{0,30}?:[ \t]*(?P<list>[^\n]{1,2000})"
                   r"|\bone of\b:?[ \t]*(?P<alone>[^\n]{1,2000})", re.IGNORECASE)
_MAX_ERROR_CHARS = 4000


def run_with_listed_value(agent: Agent, name: str, args: Any, failure: ToolOutcome) -> ToolOutcome | None:
    """The failed call run again (``agent.run_tool``) with the one known value its error lists that
    the conversation gave (see ``listed_value``); None if there is none, or if it fails again.

    Only an error the tool gave counts (see ``read_failed_call``).
    """
    call = read_failed_call(agent, name, args, failure)
    if call is None:
        return None
    _, args = call
    tried = {str(value) for action, _ in agent.earlier_calls() if action.data.get("tool") == name
             and isinstance(action.data.get("args"), dict) for value in action.data["args"].values()}
    found = listed_value(args, failure.output, told(agent), worked_results(agent), name, tried)
    if found is None:
        return None
    key, value, source = found
    written = {**args, key: value}
    note = RAN_LISTED_VALUE.format(value=args[key], listed=value, source=source, call=f"{name}({args_text(written)})")
    return run_again(agent, name, written, f"the failed call's {key}={args[key]!r} is not one of the values its error "
                                           f"lists; run again with {value!r}, which {source} gave", note,
                     listed_value=key)


def listed_value(args: dict[str, Any], error: str, task: str, results: list[tuple[str | None, str]], tool: str,
                 tried: Collection[str] = ()) -> tuple[str, str, str] | None:
    """``(parameter, value, source)`` when ``error`` names the whole value of one text argument and
    lists the known values ("Known names: A, B, C"), and exactly one listed value that ``tool`` was
    not already given is in the ``task`` ("the task") or in a result of another tool (its name);
    else None.

    Not the results of ``tool`` itself: they name the records it already found, not the one the call
    is for.  Not two listed values given (two keepers named in the results): which one the call
    meant is the model's to say.
    """
    error = _message(error[:_MAX_ERROR_CHARS])
    named = [key for key, given in args.items() if isinstance(given, str) and names_whole(given, error)]
    listed = _listed(error)
    if len(named) != 1 or len(listed) < 2:
        return None
    sources = [("the task", task), *((source, output) for source, output in results if source not in (None, tool))]
    given: dict[str, str] = {}
    for value in listed:
        source = next((source for source, text in sources if names_whole(value, text)), None)
        if source is not None and value not in tried and value != args[named[0]]:
            given[value] = str(source)
    if len(given) != 1:
        return None
    value, source = next(iter(given.items()))
    return named[0], value, source


def _message(error: str) -> str:
    """The text of an error report: ``{"error": "..."}``'s message, or the output as it is."""
    message = output_record(error).get("error")
    return message if isinstance(message, str) else error


def _listed(error: str) -> list[str]:
    """The values listed after "Known names:", "valid ... are:", "one of": split at commas and "or"."""
    match = _LIST.search(error)
    if match is None:
        return []
    text = (match["list"] or match["alone"]).strip().rstrip(".").strip()
    values = [value.strip().strip("'\"`").strip() for value in re.split(r",|\bor\b", text)]
    return [value for value in values if value and len(value) <= 80]
