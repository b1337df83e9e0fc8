"""A hint for a failed tool call whose arguments name values instead of giving them.

Small models write ``calculate("stock * price_per_plant_crowns")`` or
``calculate("keeper_profile(hourly_wage)")``: the names of fields in results
they already have, not the numbers.  The tool fails, and the error ("use
numbers") does not tell them which numbers.  ``named_values_hint`` finds the
field names in the failed call's arguments and lists their values from the
earlier results, so the next call can use them.
"""

from __future__ import annotations

import re
from typing import Any

from vero.core.parsing import parse_json_value

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
MAX_VALUES_PER_NAME = 4  # one per earlier result that has the field: enough to pick the right one


def named_values_hint(args: Any, results: list[tuple[str, str]]) -> str:
    """A note giving the values of the fields that ``args`` names, or "" if it names none.

    ``results`` are ``(call, output)`` pairs of this run's calls that worked;
    only fields of outputs that are JSON objects count, and only their
    numbers and strings.
    """
    named = set(_IDENTIFIER.findall(" ".join(_strings(args))))
    values: dict[str, list[str]] = {}
    for call, output in results:
        for field, value in _fields(output).items():
            if field in named:
                values.setdefault(field, []).append(f"{value} (from {call})")
    if not values:
        return ""
    names = " and ".join(values)
    listed = "; ".join(f"{field} is {' or '.join(found[:MAX_VALUES_PER_NAME])}" for field, found in values.items())
    return f"\n({names} {'names a value' if len(values) == 1 else 'name values'} from earlier results; " \
           f"put the values themselves in the arguments: {listed}.)"


def _strings(value: Any) -> list[str]:
    """Every string inside a call's arguments (``{"expression": "a * b"}`` -> ``["a * b"]``)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _fields(output: str) -> dict[str, Any]:
    """The number and string fields of a tool output that is a JSON object (none otherwise)."""
    if not output.lstrip().startswith("{"):
        return {}
    try:
        value = parse_json_value(output, repair=False)
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)}
