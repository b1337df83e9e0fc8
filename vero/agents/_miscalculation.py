"""Arithmetic a model did in its head, checked: ``37 * 59.99 = 2219.33`` is found and its right value given,
and an answer's number that no tool gave is found.

Small models answer "What is 7.35 percent of 86420?" with ``0.0735 * 86420 =
6300.0735`` (it is 6351.87) instead of calling a calculator.  ``miscalculation``
finds such a sum in a reply and evaluates it with the safe evaluator behind the
built-in ``calculator`` tool; ``answer_nudge`` (in ``_native``) sends the
correction back.  Sums written in LaTeX (``\\[ 26.6 \\times 37.5 \\]``, often with
the result in the next display block) are read as plain arithmetic first.
Anything that does not read as plain arithmetic is left alone.

A bare result ("... is 480,600 crowns.") cannot be checked that way: ``unsourced_number`` finds the
number an answer ends on when neither the task nor any tool call gave it, and ``answer_nudge`` asks
the model once to compute it with a tool.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from vero.tool.builtin.arithmetic import evaluate


@dataclass(frozen=True)
class Miscalculation:
    """An equation written in a reply whose result is wrong: ``expression = claimed``, but it is ``value``."""

    expression: str
    claimed: str
    value: str


# A stated result: `=`, then a number (`2,219.33`, `$37.50`), not followed by more digits (`1.0.0`,
# `12,6`), a letter (`3k`) or more arithmetic (`= 2/3`; a closing `**` of bold is fine).
_RESULT = re.compile(r"=[ \t]*\$?(?P<claimed>-?\d{1,20}(?:,\d{3})*(?:\.\d{1,20})?)"
                     r"(?![\d.,]*\d|[^\W\d]|[ \t]*(?:[-+/×÷^(]|\*(?!\*)|\*\*[ \t]*[\d(]))")
_EXPRESSION_CHARS = frozenset("0123456789.,()+-*/×÷$ \t")
_MAX_EXPRESSION_CHARS = 200
_OPERATOR_BETWEEN_NUMBERS = re.compile(r"[\d)][ \t]*[-+*/×÷]")
_LINE_MARK = re.compile(r"^(?:[-*+][ \t]+|\*+|\d{1,3}\.[ \t]+)")  # a list bullet, bold, or `1. ` at a line's start
_SENTENCE_END = re.compile(r"^.*\.[ \t]+(?=\S)")  # `Each costs 59.99. 37 * 59.99` -> `37 * 59.99`
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_RANGE = re.compile(r"(\d+)[ \t]*-[ \t]*(\d+)")  # `18 - 25`: read as a range when the first is smaller
# A number as an answer writes it (`1,271.6`, `0.543`), sign aside, not part of a word, an id or a time;
# its length is bounded, so that a long run of digits and commas is read in linear time
_NUMBER = re.compile(r"(?<![\w.:])(?<!\w-)\d{1,20}(?:,\d{3}){0,6}(?:\.\d{1,20})?(?![\w:]|[.,]\d)")
# A number as a source may write it: anywhere, also inside an id, a date or a word (`ORD-1042`, `4500kg`,
# `"total":5102.76`), with and without thousands commas (CSV writes `120,125` for two numbers)
_SOURCE_NUMBERS = (re.compile(r"\d{1,20}(?:,\d{3}){1,6}(?:\.\d{1,20})?"), re.compile(r"\d{1,20}(?:\.\d{1,20})?"))
MAX_SOURCE_JSON_CHARS = 100_000  # a result read as JSON for its lists' lengths (a count is one of them)
_SCALE = re.compile(r"[ \t]*(thousand|million|billion)\b", re.IGNORECASE)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
MAX_CHECKED_EQUATIONS = 50  # per reply: the check stays cheap on any reply
# LaTeX as small models write their sums, rewritten as plain arithmetic: units and labels in `\text{}` go,
# `\times` is `*`, `\frac{a}{b}` is `(a)/(b)`, and each math delimiter starts a line of its own
_LATEX_REWRITES = [(re.compile(pattern), replacement) for pattern, replacement in (
    # a unit before `+` or `-` stays, as words: `2 \text{ hours} + 30 \text{ minutes}` is no sum of numbers
    (r"\\(?:text|mathrm|textbf|mbox)[ \t]*\{([^{}\n]*)\}(?=[ \t]*[-+])", r" \1 "),
    (r"\\(?:text|mathrm|textbf|mbox)[ \t]*\{[^{}\n]*\}", " "),
    (r"\\[dt]?frac[ \t]*\{([^{}\n]*)\}[ \t]*\{([^{}\n]*)\}", r"(\1)/(\2)"),
    (r"\\boxed[ \t]*\{([^{}\n]*)\}", r"\1"),
    (r"\\(?:times|cdot|ast)(?![A-Za-z])", " * "),
    (r"\\div(?![A-Za-z])", " / "),
    (r"\\(?:left|right)(?![A-Za-z])", ""),
    (r"\\%", "%"),
    (r"\\[,;:! ]|\\q?quad(?![A-Za-z])", " "),
    (r"\\[\[\]()]|\$\$", "\n"),
)]


def miscalculation(text: str) -> Miscalculation | None:
    """The first equation in ``text`` whose stated result is wrong, else None.

    A result within one unit of its last shown digit counts as right (rounded or
    cut: ``15 / 4 = 3``, ``1/3 = 0.33``); one followed by ``%`` may be the value
    or the value times 100.  Left alone: ranges and dates (``10-20``, ``18 - 25``,
    ``2024-01-05``), times (``11:30 - 2``), versions, sums glued to words, sums
    longer than 200 characters, and anything the safe evaluator refuses.
    """
    return next((slip for slip, wrong in _equations(text) if wrong), None)


def _equations(text: str) -> Iterator[tuple[Miscalculation, bool]]:
    """Each equation in ``text`` that reads as plain arithmetic (at most ``MAX_CHECKED_EQUATIONS``), and
    whether its stated result is wrong."""
    text = _plain_math(text)
    for number, match in enumerate(_RESULT.finditer(text)):
        if number == MAX_CHECKED_EQUATIONS:
            break
        expression = _expression_before(text, match.start())
        if expression is None:
            continue
        try:
            value = evaluate(_THOUSANDS_COMMA.sub("", expression).replace("×", "*").replace("÷", "/").replace("$", ""))
            claimed = float(match.group("claimed").replace(",", ""))
            candidates = (value, value * 100) if text.startswith("%", match.end()) else (value,)
            decimals = len(match.group("claimed").partition(".")[2])
            wrong = all(round(abs(v - claimed), decimals + 6) >= 10 ** -decimals for v in candidates)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):  # refused, or too big for a float
            continue
        yield Miscalculation(" ".join(expression.split()), match.group("claimed"), _plain(value)), wrong


def unsourced_number(answer: str, sources: Iterable[str]) -> str | None:
    """The number ``answer`` ends on (as written), when none of ``sources`` gives it; else None.

    Only the last number is checked: an answer ends on its result ("... is 480,600 crowns."), while
    the numbers before it may explain it with what the model knows ("366 days of 3,600 seconds").
    A number a source gives rounded (``1271.6`` or ``1,300`` for ``1271.5999``), as a percentage
    (``54.3%`` for ``0.543``) or with a scale word (``2.1 million``) counts as given, and so do the
    number of items in a list a source gives as JSON, the result of a sum the answer writes out
    correctly, and the total of such results.  Left alone: whole numbers below 10 (counts), list items
    (``12. Book L``), and digits that are part of a word, an id or a time (``GH-03``, ``t14``, ``11:30``).
    A source's number may be anywhere in it, also inside an id or a date (``ORD-1042``, ``2024-03-19``).
    """
    last = next((number for number in reversed(list(_answer_numbers(answer)))
                 if (number[0] >= 10 or not number[0].is_integer()) and not _is_list_item(answer, *number[2:])), None)
    if last is None:
        return None
    value, unit, written, _ = last
    known = [given for source in sources for given in _source_numbers(source)]
    worked_out = [_number(slip.claimed) for slip, wrong in _equations(answer) if not wrong]
    known += [*worked_out, sum(worked_out)]  # `120 × 12.5 = 1500 and 84 × 42.89 = 3602.76`: 5102.76 in all
    if any(abs(candidate - value) < unit for given in known for candidate in (given, given * 100, given / 100)):
        return None
    return written


def _answer_numbers(text: str) -> Iterator[tuple[float, float, str, int]]:
    """``(value, unit of its last digit, as written, where)`` for each number in an answer, by the word
    after it (``2.1 million``: 2100000.0, 100000.0); a whole number's unit counts its trailing zeros
    (``5,100`` is rounded to hundreds)."""
    for match in _NUMBER.finditer(text):
        written = match.group()
        scale = _SCALE.match(text, match.end())
        factor = _SCALES[scale.group(1).lower()] if scale else 1
        decimals = written.partition(".")[2]
        digits = written.replace(",", "")
        zeros = len(digits) - len(digits.rstrip("0")) if not decimals and digits.strip("0") else 0
        yield _number(written) * factor, 10.0 ** (zeros - len(decimals)) * factor, written, match.start()


def _is_list_item(text: str, written: str, start: int) -> bool:
    """True for a number that opens a line and is followed by ``.`` or ``)``: ``12. Book L``."""
    end = start + len(written)
    return not text[text.rfind("\n", 0, start) + 1:start].strip() and text[end:end + 1] in (".", ")")


def _source_numbers(text: str) -> set[float]:
    """Every number a source shows, each also scaled by a word after it, and the length of each list
    in it, if it is JSON."""
    numbers = {value for value, _, _, _ in _answer_numbers(text)}
    numbers.update(_number(match.group()) for pattern in _SOURCE_NUMBERS for match in pattern.finditer(text))
    if text.lstrip()[:1] in ("[", "{") and len(text) <= MAX_SOURCE_JSON_CHARS:
        try:
            numbers.update(float(length) for length in _list_lengths(json.loads(text)))
        except (ValueError, RecursionError):  # not JSON, or nested too deep to read
            pass
    return numbers


def _list_lengths(data: Any) -> Iterator[int]:
    if isinstance(data, list):
        yield len(data)
    for item in data.values() if isinstance(data, dict) else data if isinstance(data, list) else ():
        yield from _list_lengths(item)


def _number(written: str) -> float:
    return float(written.replace(",", ""))


def _plain_math(text: str) -> str:
    """``text`` with its LaTeX sums in plain arithmetic, and each line that begins with ``=`` joined to
    the line above it: ``\\[ \\text{Pay} = 26.6 \\times 37.5 \\]`` then ``\\[ \\text{Pay} = 984 \\]``
    reads ``= 26.6 * 37.5 = 984``."""
    for pattern, replacement in _LATEX_REWRITES:
        text = pattern.sub(replacement, text)
    lines: list[list[str]] = []
    for line in text.split("\n"):
        if lines and line.lstrip().startswith("="):
            while len(lines) > 1 and len(lines[-1]) == 1 and not lines[-1][0].strip():
                lines.pop()  # the blank lines between two display blocks
            lines[-1].append(line)
        else:
            lines.append([line])
    return "\n".join(" ".join(parts) for parts in lines)


def _expression_before(text: str, end: int) -> str | None:
    """The arithmetic right before position ``end`` on its line (``0.0735 * 86420``), if it is some."""
    start = end
    while start > 0 and text[start - 1] in _EXPRESSION_CHARS:
        start -= 1
        if end - start > _MAX_EXPRESSION_CHARS:
            return None
    before = text[start - 1] if start else "\n"
    if before not in "=\n" and (text[start] not in " \t" or before in "%^"):
        return None  # glued to something else: `v1.2 - 1`, `11:30 - 2`, `7 % 3 + 1`, `2x + 3`
    expression = _SENTENCE_END.sub("", text[start:end].strip())
    if before == "\n" or start == 0:
        expression = _LINE_MARK.sub("", expression)
    if expression.count("(") > expression.count(")"):
        expression = expression.lstrip("( \t")
    if not expression[:1].isdigit() and expression[:1] not in "($" or not _OPERATOR_BETWEEN_NUMBERS.search(expression):
        return None  # begins with an operator (`20 apples - 3 - 2`), or has none between numbers
    if "-" in expression and (re.search(r"\d-\d", expression) or _is_range(expression)):
        return None
    return expression


def _is_range(expression: str) -> bool:
    whole = _RANGE.fullmatch(expression)
    return whole is not None and int(whole.group(1)) < int(whole.group(2))


def _plain(value: int | float) -> str:
    """``value`` as a person writes it: whole numbers without ``.0``, no float noise, no exponent."""
    if isinstance(value, int) or (value.is_integer() and abs(value) < 1e15):
        return str(int(value))
    if 1e-9 <= abs(value) < 1e15:
        return f"{value:.10f}".rstrip("0").rstrip(".")
    return f"{value:.12g}"
