"""Reading tool output: an error report, and float noise in numbers."""

from __future__ import annotations

import re

from vero.core.result import Step

ERROR_TEXT = re.compile(r'^\s*(?:error\b|\{\s*"error"\s*:)', re.IGNORECASE)


def call_worked(observation: Step) -> bool:
    """True when a tool call's observation is a result, not an error (a timeout counts as an error)."""
    return bool(observation.data.get("ok", True)) and not reports_error(observation.content)


def reports_error(output: str) -> bool:
    """True when a tool's output is an error report (``Error: ...`` or ``{"error": ...}``),
    although the tool itself returned normally."""
    return bool(ERROR_TEXT.match(output or ""))


# Binary floating point turns 0.1 + 0.2 into 0.30000000000000004: a run of 0s or 9s and a digit or three, at the
# 16th or 17th significant digit.  Every part is bounded: a number thousands of digits long is read in linear time.
_FLOAT_NOISE = re.compile(r"(?<![\w.])(-?)(\d{1,20})\.(\d{0,20}?)(0{5,20}|9{5,20})\d{1,3}(?![\w.])")


def tidy_numbers(text: str) -> str:
    """Float noise removed from the numbers in ``text`` (``16353.999999999998`` -> ``16354``): only numbers
    with 15 or more significant digits ending in such a run change, so ``1.0000001`` stays as written."""
    if "." not in text:
        return text

    def clean(match: re.Match[str]) -> str:
        digits = (match.group(2) + match.group(3) + match.group(4)).lstrip("0")
        if len(digits) + 1 < 15:
            return match.group(0)
        decimals = len(match.group(3))
        value = round(float(match.group(0)), decimals)
        return f"{value:.{decimals}f}" if decimals else str(int(value))

    return _FLOAT_NOISE.sub(clean, text)
