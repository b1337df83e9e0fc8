"""A failed tool call whose value is right but not written in the form the tool's error shows.

Asked "In which city is greenhouse 1?", a small model calls ``greenhouse_info("1")``.  The tool
answers ``unknown greenhouse id '1'. Greenhouse ids are written like 'GH-04'``, and the model's next
call asks for ``'GH-04'``, the example itself: it copies the example rather than reading it as a
form (seen in every vero agent on Qwen2.5-Coder-1.5B, also when asked to repair the call).  So when
the error quotes an example with one run of digits and the failed value is a number (``1``,
``'GH1'``, ``'greenhouse 1'``), ``run_in_example_form`` writes that number into the example's form
(``'GH-01'``) and runs the call again; the model is told that it did.  If that call fails too, the
model gets the first error, as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from vero.core.parsing import args_text, call_worked, reports_error
from vero.core.rerun import run_again
from vero.tool.registry import ToolOutcome, parse_arguments

if TYPE_CHECKING:  # the agent's module imports this one
    from vero.core.agent import Agent

RAN_IN_FORM = "(Written like the error's example {example!r}, {value!r} is {written!r}: ran {call} instead:)\n"
_QUOTED = re.compile(r"'([^'\n]{1,40})'|\"([^\"\n]{1,40})\"")
_DIGITS = re.compile(r"\d+")
# A value that can be a number in another form: ``7``, ``'GH7'``, ``'greenhouse 7'``, ``'#7'``; not an
# expression or a call (``"greenhouse_info('GH-04')['city']"``), whose digits are something else.
_NUMBER_IN_WORDS = re.compile(r"[\w #.-]{1,30}")


def run_in_example_form(agent: Agent, name: str, args: Any, failure: ToolOutcome) -> ToolOutcome | None:
    """The failed call run again (``agent.run_tool``) with its number written in the form of the
    example its error quotes (see ``in_example_form``); None if there is none, or if it fails again."""
    tool = agent.tools.get(name)
    if tool is None or not (failure.error == "exception" or (failure.ok and reports_error(failure.output))):
        return None
    try:
        args = parse_arguments(tool, args)
    except ValueError:
        return None
    seen = [agent.task, *(result.content for _, result in agent.earlier_calls() if call_worked(result))]
    corrected = in_example_form(args, failure.output, "\n".join(seen), tools=agent.tools.names())
    if corrected is None:
        return None
    written, key, example = corrected
    return run_again(agent, name, written, f"the failed call's {key}={args[key]!r} is written like the error's "
                     f"example {example!r}: run again with {written[key]!r}",
                     RAN_IN_FORM.format(example=example, value=args[key], written=written[key],
                                       call=f"{name}({args_text(written)})"),
                     example=example)


def in_example_form(args: dict[str, Any], error: str, seen: str,
                    tools: Collection[str] = ()) -> tuple[dict[str, Any], str, str] | None:
    """``args`` with one value rewritten in the form of the example that ``error`` quotes, with the
    argument's name and the example; None when there is no such rewriting.

    The value rewritten is the one the error quotes (or the call's only value): a number, or a few
    words with one run of digits, whose number is in the text ``seen`` (the task and the earlier
    results): ``'7'`` for "greenhouse number 7", but not an id made up, such as ``'12345'``.
    The examples are the error's quoted words that are not one of the call's values or a tool's name
    (``Error: tool 'lookup_v2' raised ...``), have no space, and have one run of digits and something
    else (a bare number shows no form).  Each must give the same rewriting (``'GH-04'`` and
    ``'GH-12'`` both make ``7`` into ``'GH-07'``), and it must differ from the value.  An example with
    more runs of digits (a date, ``'2024-01-05'``) says too little about where the number goes, so it
    gives none.
    """
    values = {key: str(value) for key, value in args.items()
              if isinstance(value, (str, int)) and not isinstance(value, bool)}
    quoted = [a or b for a, b in _QUOTED.findall(" ".join(_texts(error)))]
    keys = [key for key, text in values.items() if text in quoted] or (list(values) if len(args) == 1 else [])
    if len(keys) != 1 or not _NUMBER_IN_WORDS.fullmatch(values[keys[0]]):
        return None
    key, value = keys[0], values[keys[0]]
    digits = _DIGITS.findall(value)
    if len(digits) != 1 or int(digits[0]) not in {int(number) for number in _DIGITS.findall(seen)}:
        return None
    examples = [word for word in dict.fromkeys(quoted) if word not in {*values.values(), *tools} and " " not in word
                and len(_DIGITS.findall(word)) == 1 and _DIGITS.sub("", word)]
    written = {_written_like(int(digits[0]), example) for example in examples}
    if len(written) != 1 or value in written:
        return None
    return {**args, key: written.pop()}, key, examples[0]


def _texts(output: str) -> list[str]:
    """The text of a tool's error: the strings of a JSON error object (``{"error": "..."}``), not its
    keys and quotes; the output itself otherwise."""
    try:
        data = json.loads(output)
    except ValueError:
        return [output]
    if isinstance(data, dict):
        data = list(data.values())
    return [text for text in (data if isinstance(data, list) else [data]) if isinstance(text, str)] or [output]


def _written_like(number: int, example: str) -> str:
    """``number`` in place of ``example``'s digits, as wide as they are (``1``, ``'GH-04'`` -> ``'GH-01'``)."""
    run = _DIGITS.search(example)
    assert run is not None  # the examples have one run of digits
    return example[: run.start()] + str(number).zfill(len(run[0])) + example[run.end():]
