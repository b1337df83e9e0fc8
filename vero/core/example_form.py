"""A failed tool call whose value is right but not written in the form the tool's error shows.

Asked "In which city is greenhouse 1?", a small model calls ``greenhouse_info("1")``.  The tool
answers ``unknown greenhouse id '1'. Greenhouse ids are written like 'GH-04'``, and the model's next
call asks for ``'GH-04'``, the example itself: it copies the example rather than reading it as a
form (seen in every vero agent on Qwen2.5-Coder-1.5B, also when asked to repair the call).  So when
the error gives an example ("like 'GH-04'") and the failed value is a number the task or an earlier
result gives (``1``, ``'GH1'``, ``'greenhouse 1'``), ``run_in_example_form`` writes that number into
the example's form (``'GH-01'``) and runs the call again; the model is told that it did.  If that
call fails too, the model gets the first error, as before.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from vero.core.parsing import args_text, strings_in
from vero.core.rerun import read_failed_call, run_again, worked_results
from vero.tool.registry import ToolOutcome

if TYPE_CHECKING:  # the agent's module imports this one
    from vero.core.agent import Agent

RAN_IN_FORM = "(Written like the error's example {example!r}, {value!r} is {written!r}: ran {call} instead:)\n"
# A quoted word: 'GH-04', "GH-04", `GH-04`, ‘GH-04’, “GH-04” (each kind of quote found on its own).
_QUOTES = [re.compile(rf"(?<!\w){start}([^{end}\n]{{1,40}}){end}(?!\w)") for start, end in
           (("'", "'"), ('"', '"'), ("`", "`"), ("\u2018", "\u2019"), ("\u201c", "\u201d"))]
# An example is a quoted word right after words that introduce one: "written like 'GH-04'", "e.g. 'GH-04'".
# Any other quoted word is not: "stored in warehouse 'WH2'", "the limit of '$50'", "host 'db1'".
_CUE = re.compile(r"(?:\blike|\bsuch as|\be\.g\.|\bfor example|\bformat|\bform|\bas in|\bpattern)[:,]?\s*$", re.I)
_DIGITS = re.compile(r"\d+")
# A number standing alone in a text ("greenhouse 7", "#7", "room 12."), not a part of a date, an id or a
# decimal ("2024-05-01", "GH-01", "3.14"): only such a number can be the one a failed value meant.
_STANDALONE_NUMBER = re.compile(r"(?<![\w.\-/:])\d+(?![\w\-/:]|\.\d)")
# A value that can be a number in another form: ``7``, ``'GH7'``, ``'greenhouse 7'``, ``'#7'``; not a
# negative number, a decimal, a file name, an expression or a call, whose digits are something else.
_NUMBER_IN_WORDS = re.compile(r"(?:[A-Za-z_#][A-Za-z_ #]*-?\s*)?\d+")
_MAX_EXAMPLE_DIGITS = 6  # ids and counters; a longer run (a phone number) is no place to pad a number into


def run_in_example_form(agent: Agent, name: str, args: Any, failure: ToolOutcome) -> ToolOutcome | None:
    """The failed call run again (``agent.run_tool``) with its number written in the form of the
    example its error gives (see ``in_example_form``); None if there is none, or if it fails again.

    Only an error the tool gave counts (see ``read_failed_call``).
    """
    call = read_failed_call(agent, name, args, failure)
    if call is None:
        return None
    tool, args = call
    texts = [output for _, output in worked_results(agent)]
    corrected = in_example_form(args, failure.output, "\n".join([agent.task, *texts]), tools=agent.tools.names(),
                                strings=_string_parameters(tool.parameters))
    if corrected is None:
        return None
    written, key, example = corrected
    return run_again(agent, name, written, f"the failed call's {key}={args[key]!r} is written like the error's "
                     f"example {example!r}: run again with {written[key]!r}",
                     RAN_IN_FORM.format(example=example, value=args[key], written=written[key],
                                        call=f"{name}({args_text(written)})"),
                     example=example)


def in_example_form(args: dict[str, Any], error: str, seen: str, tools: Collection[str] = (),
                    strings: Collection[str] | None = None) -> tuple[dict[str, Any], str, str] | None:
    """``args`` with one value rewritten in the form of the example that ``error`` gives, with the
    argument's name and the example; None when there is no such rewriting.

    The value rewritten is a number, or a few words with one number (``'GH1'``, ``'greenhouse 1'``),
    that stands alone in the text ``seen`` (the task and the earlier results): ``'7'`` for "greenhouse
    number 7", not an id made up (``'12345'``) or a part of a date.  It is the one the error quotes
    (or the call's only value), and a text parameter (one of ``strings``; None: any).  The examples
    are the error's quoted words right after "like", "such as", "e.g.", "for example", "format" and
    the like, with one run of digits (at most six, and as many as the number's at least) and
    something else (a bare number shows no form), and no space; not one of the call's values or a
    tool's name.  Each must give the same rewriting (``'GH-04'`` and ``'GH-12'`` both make ``7``
    into ``'GH-07'``), and it must differ from the value.
    """
    values = {key: str(value) for key, value in args.items() if isinstance(value, (str, int))
              and not isinstance(value, bool) and (strings is None or key in strings)}
    text = " ".join(strings_in(error))
    quoted = [(match[1], text[: match.start()]) for pattern in _QUOTES for match in pattern.finditer(text)]
    numbers = {key: value for key, value in values.items() if _NUMBER_IN_WORDS.fullmatch(value)}
    keys = [key for key, value in numbers.items() if value in {word for word, _ in quoted}]
    if not keys and len(args) == 1:
        keys = list(numbers)
    if len(keys) != 1:
        return None
    key, value = keys[0], numbers[keys[0]]
    digits = _DIGITS.findall(value)
    if len(digits) != 1 or _number(digits[0]) not in {_number(n) for n in _STANDALONE_NUMBER.findall(seen)}:
        return None
    examples = [word for word, before in quoted if _CUE.search(before) and _is_form(word, digits[0])
                and word not in {*values.values(), *tools}]
    written = {_written_like(digits[0], example) for example in examples}
    if len(written) != 1 or value in written:
        return None
    return {**args, key: written.pop()}, key, examples[0]


def _is_form(word: str, number: str) -> bool:
    """``word`` shows where a number goes: one run of digits, wide enough for ``number``, and more."""
    runs = _DIGITS.findall(word)
    return (len(runs) == 1 and len(_number(number)) <= len(runs[0]) <= _MAX_EXAMPLE_DIGITS
            and " " not in word and bool(_DIGITS.sub("", word)))


def _number(digits: str) -> str:
    """Digits without their leading zeros, compared as text: ``int()`` refuses runs of 4,300 digits."""
    return digits.lstrip("0") or "0"


def _written_like(digits: str, example: str) -> str:
    """The number in ``digits`` in place of ``example``'s digits, as wide as they are (``1``, ``'GH-04'`` ->
    ``'GH-01'``)."""
    run = _DIGITS.search(example)
    assert run is not None  # an example has one run of digits
    return example[: run.start()] + _number(digits).zfill(len(run[0])) + example[run.end():]


def _string_parameters(schema: dict[str, Any]) -> set[str] | None:
    """The parameters a text can go to (an integer parameter cannot take ``'GH-07'``); None: any."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return None
    return {name for name, spec in properties.items() if not isinstance(spec, dict) or _takes_text(spec.get("type"))}


def _takes_text(kind: Any) -> bool:
    return kind is None or kind == "string" or (isinstance(kind, list) and "string" in kind)
