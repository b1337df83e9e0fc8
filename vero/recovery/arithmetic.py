"""Arithmetic a model did in its head, checked: ``37 * 59.99 = 2219.33`` is found and its right value given.

Small models answer "What is 7.35 percent of 86420?" with ``0.0735 * 86420 =
6300.0735`` (it is 6351.87) instead of calling a calculator.  ``miscalculation``
finds such a sum in a reply and evaluates it with the safe evaluator behind the
built-in ``calculator`` tool (``vero.arithmetic``); the ``arithmetic`` rule (``vero.recovery.rules``) sends the
correction back.  Sums written in LaTeX (``\\[ 26.6 \\times 37.5 \\]``, often with
the result in the next display block) are read as plain arithmetic first.
Anything that does not read as plain arithmetic is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vero.arithmetic import evaluate


@dataclass(frozen=True)
class Miscalculation:
    """An equation written in a reply whose result is wrong: ``expression = claimed``, but it is ``value``."""

    expression: str
    claimed: str
    value: str


# A stated result: `=`, then a number (`2,219.33`, `$37.50`), not followed by more digits (`1.0.0`,
# `12,6`), a letter (`3k`) or more arithmetic (`= 2/3`; a closing `**` of bold is fine).
_RESULT = re.compile(
    r"=[ \t]*\$?(?P<claimed>-?\d{1,20}(?:,\d{3})*(?:\.\d{1,20})?)"
    r"(?![\d.,]*\d|[^\W\d]|[ \t]*(?:[-+/×÷^(]|\*(?!\*)|\*\*[ \t]*[\d(]))"
)
_EXPRESSION_CHARS = frozenset("0123456789.,()+-*/×÷$ \t")
_MAX_EXPRESSION_CHARS = 200
_OPERATOR_BETWEEN_NUMBERS = re.compile(r"[\d)][ \t]*[-+*/×÷]")
_LINE_MARK = re.compile(r"^(?:[-*+][ \t]+|\*+|\d{1,3}\.[ \t]+)")  # a list bullet, bold, or `1. ` at a line's start
_SENTENCE_END = re.compile(r"^.*\.[ \t]+(?=\S)")  # `Each costs 59.99. 37 * 59.99` -> `37 * 59.99`
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_RANGE = re.compile(r"(\d+)[ \t]*-[ \t]*(\d+)")  # `18 - 25`: read as a range when the first is smaller
MAX_CHECKED_EQUATIONS = 50  # per reply: the check stays cheap on any reply
# LaTeX as small models write their sums, rewritten as plain arithmetic: units and labels in `\text{}` go,
# `\times` is `*`, `\frac{a}{b}` is `(a)/(b)`, and each math delimiter starts a line of its own
_LATEX_REWRITES = [
    (re.compile(pattern), replacement)
    for pattern, replacement in (
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
    )
]


def miscalculation(text: str) -> Miscalculation | None:
    """The first equation in ``text`` whose stated result is wrong, else None.

    A result within one unit of its last shown digit counts as right (rounded or
    cut: ``15 / 4 = 3``, ``1/3 = 0.33``); one followed by ``%`` may be the value
    or the value times 100.  Left alone: ranges and dates (``10-20``, ``18 - 25``,
    ``2024-01-05``), times (``11:30 - 2``), versions, sums glued to words, sums
    longer than 200 characters, and anything the safe evaluator refuses.
    """
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
            wrong = all(round(abs(v - claimed), decimals + 6) >= 10**-decimals for v in candidates)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):  # refused, or too big for a float
            continue
        if wrong:
            return Miscalculation(" ".join(expression.split()), match.group("claimed"), _plain(value))
    return None


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
