"""Whether an answer given before the plan's end comes from the tools' results: plan-and-execute's
early-answer check (``Planner._answered_early``) takes an answer only when ``from_results`` says so."""

from __future__ import annotations

import math
import re
from typing import Any

from vero.core.parsing import output_record
from vero.core.text import folded, looks_like_id

_NUMBER = re.compile(r"(?<![\w.-])-?\d+(?:\.\d+)?(?!\w)")  # not the digits of an id (GH-03)


def from_results(answer: str, tool_outputs: list[str], task: str) -> bool:
    """True when ``answer`` gives what the tools returned about what the task asks; when in doubt, False
    (the plan then goes on: a few more calls, never a wrong early answer).

    A field the task names (every word of its name is in the task: ``temperature_c`` for "What is the
    temperature ...", ``hourly_wage`` but not ``weekly_hours`` for "Wendell's hourly wage") gives its
    plain value; an output that is only a number is computed.  Each number of the answer must be such a
    value or the task's own (commas aside, 18 and 18.0 alike), and one at least a tool's; an answer
    without numbers must hold such a text value, as whole words, not an id.  Only a computed output
    counts when the answer needs arithmetic: the task names two or more numeric fields ("hourly wage
    times weekly hours"), gives numbers of its own, or asks for a total, a difference ...  A record
    that names another record the task does not ("manager": "Carol Diaz" for "the salary of Bob's
    manager") is a link to a further lookup, and its numbers do not count.

    Not a step's result: a small executor's result can be a field the step did not ask for (22.0, the
    greenhouse's temperature, for "Find the greenhouse GH-03"), or its own arithmetic.
    """
    asked, task_text = _stems(task), folded(task)
    named: dict[str, list[Any]] = {}
    computed: set[float] = set()
    for output in tool_outputs:
        record = output_record(output)
        if not record and _NUMBER.fullmatch(output.strip().replace(",", "")):
            computed |= _numbers(output)
        fields = {f: v for f, v in record.items() if _stems(f) and _stems(f) <= asked and _is_plain(v)}
        if any(isinstance(v, str) and not looks_like_id(v) and folded(v) not in task_text for v in fields.values()):
            fields = {f: v for f, v in fields.items() if isinstance(v, str)}  # a link: its numbers do not count
        for field, value in fields.items():
            named.setdefault(field, []).append(value)
    numbers = _numbers(answer)
    if numbers:
        numeric = {field for field, values in named.items() if any(not isinstance(v, str) for v in values)}
        looked_up = set() if len(numeric) > 1 or _numbers(task) or _ARITHMETIC.search(task_text) else \
            set().union(*(_numbers(str(v)) for values in named.values() for v in values if not isinstance(v, str)))
        tools = computed | looked_up
        return any(_close(n, tools) for n in numbers) and all(_close(n, tools | _numbers(task)) for n in numbers)
    said = folded(answer)
    texts = [v for values in named.values() for v in values if isinstance(v, str) and len(v) > 2]
    return any(not looks_like_id(v) and re.search(rf"(?<!\w){re.escape(folded(v))}(?!\w)", said) for v in texts)


_ARITHMETIC = re.compile(r"\b(?:total|sum|difference|average|combined|together|between|times|percent(?:age)?|"
                         r"fraction|ratio|more|less|twice|half)\b")


def _is_plain(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _close(number: float, known: set[float]) -> bool:
    return any(math.isclose(number, k, rel_tol=1e-9, abs_tol=1e-9) for k in known)


_FUNCTION_WORDS = {"the", "and", "for", "per", "with", "from", "into", "that", "this", "its"}


def _stems(text: str) -> set[str]:
    """The first four letters of each word of three letters or more, but for a few function words
    (``keeper`` and ``keeps`` meet; ``price_per_plant`` is price, plant)."""
    return {word[:4] for word in re.findall(r"[a-z]{3,}", text.casefold()) if word not in _FUNCTION_WORDS}


def _numbers(text: str) -> set[float]:
    return {float(n) for n in _NUMBER.findall(re.sub(r"(?<=\d),(?=\d{3})", "", text))}
