"""Checking an agent's answer to a generated world's task against the expected value.

Standard library only: the peers' worker imports this in its own environment.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import world as fixed_world

_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"(?<![\d:.])(\d{1,2})(?:[:.h](\d{2}))?(?:\s*([ap])\.?m\b)?", re.IGNORECASE)
_MONTHS = {
    m.casefold(): i
    for i, m in enumerate(
        (
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ),
        1,
    )
}


@dataclass(frozen=True)
class Quantity:
    """A value whose unit is part of the answer: right when the number is written with one of ``units``."""

    value: float
    units: tuple[str, ...]  # the first is how the value is shown

    def __str__(self) -> str:
        return f"{self.value:g} {self.units[0]}"


@dataclass(frozen=True)
class Percent:
    """A percentage asked for to one decimal place: right within 0.05 of the exact value."""

    value: float

    def __str__(self) -> str:
        return f"{self.value:.1f} %"


@dataclass(frozen=True)
class Truth:
    """A statement to judge "true or false" (a "yes" or "no" says the same)."""

    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass(frozen=True)
class Choice:
    """One name chosen among the candidates a question lists: right when it is the first of them named."""

    name: str
    among: tuple[str, ...]

    def __str__(self) -> str:
        return self.name


def dates_in(text: str) -> set[str]:
    """ISO dates written in ``text``: 2027-03-05, 5 March 2027 or March 5, 2027."""
    found = set(_ISO.findall(text))
    month = "|".join(_MONTHS)
    for day, name, year in re.findall(
        rf"(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({month}),?\s+(\d{{4}})", text, re.IGNORECASE
    ):
        found.add(_iso(year, name, day))
    for name, day, year in re.findall(rf"({month})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})", text, re.IGNORECASE):
        found.add(_iso(year, name, day))
    return found


def _iso(year: str, month: str, day: str) -> str:
    try:
        return dt.date(int(year), _MONTHS[month.casefold()], int(day)).isoformat()
    except ValueError:
        return ""


def times_in(text: str) -> set[tuple[int, int]]:
    """(hour, minute) of the times written in ``text``: 07:30, 7.30, 7:30 am, 7 am, 1:15 pm (13:15)."""
    found = set()
    for hour, minute, half in _TIME.findall(text):
        if not minute and not half:
            continue  # a bare number is not a time
        h = int(hour) % 12 + (12 if half.lower() == "p" else 0) if half else int(hour)
        found.add((h, int(minute or 0)))
    return found


def yes_or_no(text: str) -> str | None:
    """The first "yes" or "no" in ``text``."""
    for word in re.findall(r"[a-z]+", text.casefold()):
        if word in ("yes", "no"):
            return word
    return None


def is_correct(answer: str | None, expected: Any, exclude: tuple[str, ...] | list[str] = ()) -> bool:
    """Whether ``answer`` gives ``expected``: a number within a tolerance, the same date, time, yes/no,
    the name, or every name of a list (and, for a name or a list, none of ``exclude``); or one of the
    typed answers above."""
    text = "" if answer is None else str(answer)
    if isinstance(expected, (Quantity, Percent, Truth, Choice)):
        return _typed_answer_is_correct(text, expected)
    if isinstance(expected, (list, tuple)):
        return all(names_in(text, name) for name in expected) and not any(names_in(text, name) for name in exclude)
    if isinstance(expected, (int, float)):
        return fixed_world.is_correct(text, expected)
    expected = str(expected)
    if _ISO.fullmatch(expected):
        return expected in dates_in(text)
    if re.fullmatch(r"\d{2}:\d{2}", expected):
        return (int(expected[:2]), int(expected[3:])) in times_in(text)
    if expected in ("yes", "no"):
        return yes_or_no(text) == expected
    return names_in(text, expected) and not any(names_in(text, name) for name in exclude)


def _squash(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s-]", " ", text).split()).casefold()


def names_in(text: str, name: str) -> bool:
    """Whether ``name`` is written in ``text`` as whole words, ignoring case, spacing and punctuation."""
    return re.search(rf"(?<![\w-]){re.escape(_squash(name))}(?![\w-])", _squash(text)) is not None


# -- the typed answers of the heldout-kinds worlds -----------------------------------------------------
_NUMBER = r"(-?\d[\d,]*(?:\.\d+)?)"


def _typed_answer_is_correct(text: str, expected: Quantity | Percent | Truth | Choice) -> bool:
    if isinstance(expected, Quantity):
        return any(fixed_world.is_correct(number, expected.value) for number in quantities_in(text, expected.units))
    if isinstance(expected, Percent):
        return any(abs(value - expected.value) <= 0.05 + 1e-9 for value in fixed_world.numbers_in(text))
    if isinstance(expected, Truth):
        return truth_of(text) is expected.value
    return first_named(text, expected.among) == expected.name


def quantities_in(text: str, units: tuple[str, ...]) -> list[str]:
    """The numbers written in ``text`` with one of ``units`` right after them ("12.5 kg", "3 litres")."""
    spelled = "|".join(re.escape(unit) for unit in sorted(units, key=len, reverse=True))
    return re.findall(rf"{_NUMBER}\s*(?:{spelled})(?![^\W\d_])", text, re.IGNORECASE)


def truth_of(text: str) -> bool | None:
    """The first "true"/"yes" (True) or "false"/"no" (False) in ``text``."""
    for word in re.findall(r"[a-z]+", text.casefold()):
        if word in ("true", "yes", "false", "no"):
            return word in ("true", "yes")
    return None


def first_named(text: str, names: tuple[str, ...]) -> str | None:
    """Which of ``names`` ``text`` names first (whole words, ignoring case and punctuation)."""
    squashed = _squash(text)
    found = []
    for name in names:
        match = re.search(rf"(?<![\w-]){re.escape(_squash(name))}(?![\w-])", squashed)
        if match:
            found.append((match.start(), name))
    return min(found)[1] if found else None
