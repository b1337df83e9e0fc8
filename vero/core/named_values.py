"""Hints for a failed tool call whose arguments name values instead of giving them, or copy an example.

Small models write ``calculate("stock * price_per_plant_crowns")`` or
``calculate("keeper_profile(hourly_wage)")``: the names of fields in results
they already have, not the numbers.  The tool fails, and the error ("use
numbers") does not tell them which numbers.  ``named_values_hint`` finds the
field names in the failed call's arguments and lists their values from the
earlier results, so the next call can use them.  When each name has exactly one value
in those results, ``resolved_arguments`` writes the values in, so that the call can run again
with them (the model is told that it did).

They also copy the example an error message gives of a value's format: told
"unknown greenhouse id '7'. Greenhouse ids are written like 'GH-04'." for
"greenhouse number 7", the next call asks for 'GH-04'.  ``copied_example_hint``
says where that value came from when the call with it fails too.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from vero.core.parsing import args_text, call_worked, output_record, parse_json_value, reports_error
from vero.core.result import Step
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
# Told which values a failed call's field names stand for, small models still wrote the names again, or
# answered with a sentence saying what to multiply; so the call runs again with the values.
RAN_WITH_VALUES = "(Your arguments named values from earlier results ({names}); ran {call} with them instead:)\n"
_OPERATOR = re.compile(r"[-+*/%]")


def argument_hint(args: Any, calls: list[tuple[Step, Step]]) -> str:
    """The note for a failed call's ``args``, given the ``(action, observation)`` steps of the earlier
    calls: the values its names stand for, or where a value copied from an error came from ("" if none)."""
    failures = [(action.data.get("args"), result.content) for action, result in calls if not call_worked(result)]
    return named_values_hint(args, _worked(calls)) or copied_example_hint(args, failures)


def run_with_values(agent: Agent, name: str, args: Any) -> ToolOutcome | None:
    """The failed call run again (``agent.run_tool``) with the values its arguments named, when each
    has one (see ``resolved_arguments``) and it then works; else None (the model is sent the first error)."""
    tool = agent.tools.get(name)
    accepted = tool.parameters["properties"] if tool is not None else ()
    resolved = resolved_arguments(args, _worked(agent.earlier_calls()), accepted)
    if resolved is None:
        return None
    values, names = resolved
    agent.record("warning", f"the failed call named values from earlier results ({', '.join(names)}); "
                            "run again with them", resolved=names)
    observation = agent.run_tool(name, values)
    if not observation.ok or reports_error(observation.text):
        return None
    note = RAN_WITH_VALUES.format(names=", ".join(names), call=f"{name}({args_text(values)})")
    return ToolOutcome(note + observation.text, observation.ok, observation.error)


def named_values_hint(args: Any, results: list[tuple[str, str]]) -> str:
    """A note giving the values of the fields that ``args`` names, or "" if it names none.

    ``results`` are ``(call, output)`` pairs of earlier calls that worked;
    only number fields of outputs that are JSON objects count, and only names
    in arguments that read as arithmetic (``stock * price``, ``temperature_c``).
    """
    named = {name for text in _strings(args) if _EXPRESSION.fullmatch(text) for name in _IDENTIFIER.findall(text)}
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
                       accepted: Collection[str] = ()) -> tuple[dict[str, Any], list[str]] | None:
    """``args`` with the field names in their arithmetic replaced by the values, and the names
    replaced; None unless some argument reads as arithmetic over names that each have exactly one
    value in ``results`` (the ``(call, output)`` pairs of earlier calls that worked).

    A small model may also give the values in an argument of its own (``variables={"stock": 462}``):
    those come first, and such an argument is dropped when the tool does not take it (it is not one of
    the ``accepted`` names).  An argument with a name of no such value (``sqrt``, a field two results
    give differently) stays as it is, and if none could be written with values there is nothing to run.
    """
    if isinstance(args, str) and args.lstrip().startswith("{"):
        try:
            args = parse_json_value(args, repair=False)
        except ValueError:
            return None
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
    resolved, names = dict(args), []
    for key, text in args.items():
        if not (isinstance(text, str) and _EXPRESSION.fullmatch(text) and _OPERATOR.search(text)):
            continue
        found = _IDENTIFIER.findall(text)
        if found and all(name in known for name in found):
            resolved[key] = _IDENTIFIER.sub(lambda match: str(known[match[0]]), text)
            names += [name for name in dict.fromkeys(found) if name not in names]
    for key, numbers in given.items():
        if key not in accepted and numbers and set(numbers) <= set(names):
            del resolved[key]
    return (resolved, names) if names else None


def copied_example_hint(args: Any, failures: list[tuple[Any, str]]) -> str:
    """A note for an argument value copied from an earlier error message, or "" if there is none.

    ``failures`` are ``(arguments, error)`` of earlier calls that failed; a value counts as copied when
    one of those errors quotes it and that call's own arguments did not hold it (an error that repeats
    the value it was given says nothing about where the value came from).
    """
    for earlier_args, error in failures:
        given = set(_strings(earlier_args))
        for value in _strings(args):
            quoted = f"'{value}'" in error or f'"{value}"' in error
            if value.strip() and value not in given and quoted:
                return f"\n({value!r} comes from an earlier error message, where it shows how such a value is " \
                       "written; it is not a value for this task. Write the task's own value that way.)"
    return ""


def _worked(calls: list[tuple[Step, Step]]) -> list[tuple[str, str]]:
    """``(call, output)`` of the calls that worked."""
    return [(action.content, result.content) for action, result in calls if call_worked(result)]


def _strings(value: Any) -> list[str]:
    """Every string inside a call's arguments (``{"expression": "a * b"}``, also as JSON text -> ``["a * b"]``)."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            value = parse_json_value(value, repair=False)
        except ValueError:
            return [value]
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _numbers(output: str) -> dict[str, int | float]:
    """The number fields of a tool output that is a JSON object (none otherwise)."""
    return _number_fields(output_record(output))


def _number_fields(record: dict[str, Any]) -> dict[str, int | float]:
    return {k: v for k, v in record.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
