"""A failed tool call whose arguments name values instead of giving them.

Small models write ``calculate("stock * price_per_plant_crowns")`` or
``calculate("keeper_profile(hourly_wage)")``: the names of fields in results
they already have, not the numbers.  The tool fails, and the error ("use
numbers") does not tell them which numbers.  ``named_values_hint`` finds the
field names in the failed call's arguments and lists their values from the
earlier results, so the next call can use them.  Told the values, a small model
still wrote the names again, or answered with a sentence saying what to multiply;
so when each name has exactly one value (in the earlier results, or in an argument
of the call itself such as ``variables={"stock": 462}``), ``run_with_values`` runs
the call again with the values written in, and the model is told that it did.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from vero.core.parsing import args_text, call_worked, output_record, strings_in
from vero.core.rerun import read_call, run_again
from vero.core.result import Step, ToolError
from vero.core.text import clip
from vero.tool.registry import ToolOutcome

if TYPE_CHECKING:  # the agent's module imports this one
    from vero.core.agent import Agent

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# An argument that reads as arithmetic or a call: names, numbers, operators, parentheses.  Not prose
# or a query ("SELECT name FROM ..."), whose words merely look like field names.
_EXPRESSION = re.compile(r"[\w\s.+\-*/%^(),]*")
MAX_NAMES = 4
MAX_VALUES_PER_NAME = 4  # the latest results that have the field: enough to pick the right one
MAX_CALL_CHARS = 80
RAN_WITH_VALUES = "(Your arguments named values ({names}); ran {call} with them instead:)\n"
_OPERATOR = re.compile(r"[-+*/%]")
# A name glued to a number or a dot (``2x``, ``plant.stock``, ``1e5``) is not replaced: the value
# written in its place would change what the expression says.
_GLUED_NAME = re.compile(r"[\d.][A-Za-z_]|[A-Za-z_]\w*\.")


def argument_hint(args: Any, calls: list[tuple[Step, Step]]) -> str:
    """The note for a failed call's ``args``: the values its names stand for in the results of the
    earlier calls (``(action, observation)`` steps) that worked; "" if it names none."""
    return named_values_hint(args, _worked(calls))


def run_with_values(agent: Agent, name: str, args: Any, failure: ToolOutcome) -> ToolOutcome | None:
    """The failed call run again (``agent.run_tool``) with the values its arguments named, when each
    has one (see ``resolved_arguments``) and its ``failure`` is about those arguments; None if not,
    or if it fails again (the model is then sent the first error).

    Only an error that rejects the arguments, or names one of the names (``cannot evaluate 'stock * 2'``,
    ``name 'stock' is not defined``), counts: a tool that failed part-way for another reason is not run twice.
    """
    call = read_call(agent, name, args)
    if call is None:
        return None
    tool, args = call
    accepted = None if tool.parameters.get("additionalProperties", True) is not False else tool.parameters["properties"]
    resolved = resolved_arguments(args, _worked(agent.earlier_calls()), accepted)
    if resolved is None or not (failure.error == ToolError.BAD_ARGUMENTS or _mentions(failure.output, resolved[1])):
        return None
    values, names = resolved
    listed = ", ".join(names)
    return run_again(agent, name, values, f"the failed call named values ({listed}); run again with them",
                     RAN_WITH_VALUES.format(names=listed, call=f"{name}({args_text(values)})"), resolved=names)


def named_values_hint(args: Any, results: list[tuple[str, str]]) -> str:
    """A note giving the values of the fields that ``args`` names, or "" if it names none.

    ``results`` are ``(call, output)`` pairs of earlier calls that worked;
    only number fields of outputs that are JSON objects count, and only names
    in arguments that read as arithmetic (``stock * price``, ``temperature_c``).
    """
    named = {name for text in strings_in(args) if _EXPRESSION.fullmatch(text) for name in _IDENTIFIER.findall(text)}
    values: dict[str, list[str]] = {}
    for call, output in results:
        for field, value in _numbers(output).items():
            if field in named:
                found = values.setdefault(field, [])
                entry = f"{value} (from {clip(call, MAX_CALL_CHARS)})"
                if entry not in found:
                    found.append(entry)
    if not values:
        return ""
    fields = list(values)[:MAX_NAMES]
    listed = "; ".join(f"{field} is {' or '.join(values[field][-MAX_VALUES_PER_NAME:])}" for field in fields)
    return f"\n({' and '.join(fields)} {'names a value' if len(fields) == 1 else 'name values'} from earlier " \
           f"results; put the values themselves in the arguments: {listed}.)"


def resolved_arguments(args: Any, results: list[tuple[str, str]],
                       accepted: Collection[str] | None = ()) -> tuple[dict[str, Any], list[str]] | None:
    """``args`` with the field names in their arithmetic replaced by the values, and the names
    replaced; None unless some argument reads as arithmetic over names that each have exactly one
    value in ``results`` (the ``(call, output)`` pairs of earlier calls that worked).

    A small model may also give the values in an argument of its own (``variables={"stock": 462}``):
    those come first.  Such an object argument is left out unless it is one of the ``accepted``
    parameter names (None: the tool takes any).  An argument with a name of no such value (``sqrt``, a
    field two results give differently), or with a name glued to a number or a dot, stays as it is;
    if no argument could be written with values there is nothing to run.
    """
    if not isinstance(args, dict):
        return None
    values: dict[str, set[int | float]] = {}
    for _, output in results:
        for field, value in _numbers(output).items():
            values.setdefault(field, set()).add(value)
    known = {field: next(iter(found)) for field, found in values.items() if len(found) == 1}
    given = {key: _number_fields(value) for key, value in args.items() if isinstance(value, dict)}
    for numbers in given.values():
        known.update(numbers)
    written = {field: text for field, value in known.items() if (text := _written(value))}
    resolved, names = dict(args), []
    for key, text in args.items():
        if not (isinstance(text, str) and _EXPRESSION.fullmatch(text) and _OPERATOR.search(text)):
            continue
        found = _IDENTIFIER.findall(text)
        if found and all(name in written for name in found) and not _GLUED_NAME.search(text):
            resolved[key] = _IDENTIFIER.sub(lambda match: written[match[0]], text)
            names += [name for name in dict.fromkeys(found) if name not in names]
    if not names:
        return None
    return {key: value for key, value in resolved.items()
            if key not in given or accepted is None or key in accepted}, names


def _written(value: int | float) -> str:
    """A value as it goes into an expression: negative ones in parentheses; "" for one that cannot
    (``1e-05``, ``inf``: letters where the names were)."""
    text = repr(value)
    if re.search(r"[A-Za-z]", text):
        return ""
    return f"({text})" if value < 0 else text


def _mentions(error: str, names: list[str]) -> bool:
    return any(re.search(rf"\b{re.escape(name)}\b", error) for name in names)


def _worked(calls: list[tuple[Step, Step]]) -> list[tuple[str, str]]:
    """``(call, output)`` of the calls that worked."""
    return [(action.content, result.content) for action, result in calls if call_worked(result)]


def _numbers(output: str) -> dict[str, int | float]:
    """The number fields of a tool output that is a JSON object (none otherwise)."""
    return _number_fields(output_record(output))


def _number_fields(record: dict[str, Any]) -> dict[str, int | float]:
    return {k: v for k, v in record.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
