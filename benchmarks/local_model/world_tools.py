"""Plain typed functions built per generated world: the machinery behind ``worlds.py``'s tools.

A generated tool is a closure with its own ``__name__``, ``__doc__``,
``__annotations__`` and ``__signature__``, so every framework in the benchmark
reads it like a hand-written function.  It never raises: wrong arguments,
unknown names and odd values all get an error reply in the world's own style.
Standard library only: the peers' worker imports this in its own environment.
"""

from __future__ import annotations

import ast
import datetime as dt
import difflib
import inspect
from collections.abc import Callable
from typing import Any

from world import _evaluate  # the fixed world's safe arithmetic: numbers, + - * / and parentheses

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class Refused(Exception):
    """A tool's input cannot be used; the message is the reply's text."""


class ErrorStyle:
    """How one world words and shapes its error replies."""

    def __init__(self, shape: str, name_style: str, id_style: str, phrases: dict[str, str]):
        self.shape = shape  # "error" | "status" | "ok"
        self.name_style = name_style  # "suggest" | "known" | "terse"
        self.id_style = id_style  # "id_hint" | "known" | "terse"
        self.phrases = phrases

    def reply(self, message: str) -> dict:
        message = message[:1].upper() + message[1:]
        if self.shape == "status":
            return {"status": "failed", "message": message}
        if self.shape == "ok":
            return {"ok": False, "reason": message}
        return {"error": message}

    def refused(self, refused: Refused) -> dict:
        return self.reply(str(refused))

    def unknown_name(self, query: object, names: list[str], kind: str, kinds: str) -> Refused:
        shown = _shown(query)
        if self.name_style == "terse":
            return Refused(self.phrases["terse"].format(kind=kind))
        text = self.phrases["not_found"].format(kind=kind, q=shown)
        if self.name_style == "suggest":
            close = close_names(str(query), names)
            if close:
                return Refused(text + self.phrases["suggest"].format(close=" or ".join(close)))
        return Refused(text + self.phrases["known"].format(kinds=kinds, all=", ".join(names)))

    def unknown_id(self, query: object, ids: list[str], example: str, kind: str, kinds: str) -> Refused:
        if self.id_style == "terse":
            return Refused(self.phrases["terse"].format(kind=kind))
        text = self.phrases["bad_id"].format(kind=kind, q=_shown(query))
        if self.id_style == "id_hint":
            return Refused(text + self.phrases["id_hint"].format(Kind=kind.capitalize(), example=example))
        return Refused(text + self.phrases["known_ids"].format(kinds=kinds, all=", ".join(ids)))

    def bad_value(self, query: object, what: str) -> Refused:
        return Refused(self.phrases["bad_value"].format(q=_shown(query), what=what))


def _shown(value: object, limit: int = 60) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def close_names(query: str, names: list[str]) -> list[str]:
    """Up to two of ``names`` that look like ``query`` (ignoring case)."""
    folded = {name.casefold(): name for name in names}
    return [
        folded[m] for m in difflib.get_close_matches(" ".join(query.split()).casefold(), list(folded), n=2, cutoff=0.6)
    ]


def find_name(table: dict, query: object, style: ErrorStyle, kind: str, kinds: str) -> str:
    """The key of ``table`` that ``query`` names, ignoring case and spacing."""
    wanted = " ".join(str(query).split()).casefold()
    for key in table:
        if key.casefold() == wanted:
            return key
    raise style.unknown_name(query, list(table), kind, kinds)


def find_id(table: dict, query: object, style: ErrorStyle, example: str, kind: str, kinds: str) -> str:
    wanted = str(query).strip().upper()
    for key in table:
        if key.upper() == wanted:
            return key
    raise style.unknown_id(query, list(table), example, kind, kinds)


def whole_number(value: object, style: ErrorStyle, what: str) -> int:
    """``value`` as an int: ints, integral floats and digit strings; anything else is refused."""
    if isinstance(value, bool):
        raise style.bad_value(value, what)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit() and len(value.strip()) < 10:
        return int(value.strip())
    raise style.bad_value(value, what)


def iso_date(value: object, style: ErrorStyle, what: str) -> dt.date:
    try:
        return dt.date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        raise style.bad_value(value, what) from None


def one_of(value: object, allowed: list[str], style: ErrorStyle, what: str) -> str:
    wanted = str(value).strip().casefold()
    for option in allowed:
        if option.casefold() == wanted:
            return option
    raise Refused(style.bad_value(value, what).args[0] + f" Allowed: {', '.join(allowed)}.")


def calculate(expression: object, style: ErrorStyle) -> str:
    """The value of an arithmetic expression, as text (integers without a decimal point)."""
    text = str(expression).strip()
    if not text or len(text) > 400:
        raise style.bad_value(expression, "an arithmetic expression")
    try:
        value = _evaluate(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, KeyError, RecursionError, OverflowError):
        raise Refused(
            style.bad_value(expression, "an arithmetic expression").args[0] + " Use numbers, + - * / and parentheses."
        ) from None
    value = round(value, 6)
    return str(int(value)) if float(value).is_integer() else repr(value)


def make_tool(
    name: str, params: list[tuple[str, Any]], returns: Any, doc: str, body: Callable[..., Any], style: Any
) -> Callable[..., Any]:
    """A function named ``name`` taking ``params`` (name, type) that runs ``body`` and never raises.

    ``style`` words the failures: ``reply(message)`` for wrong arguments, ``refused(exc)`` for a refusal."""
    signature = inspect.Signature(
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=t) for p, t in params],
        return_annotation=returns,
    )
    expected = ", ".join(p for p, _ in params)

    def generated_tool(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return style.reply(f"{name} takes these arguments: {expected}.")
        try:
            return body(*bound.args)
        except Refused as refused:
            return style.refused(refused)
        except Exception as exc:  # noqa: BLE001 - a tool answers, it never raises
            return style.reply(f"{name} could not use these arguments ({type(exc).__name__}).")

    generated_tool.__name__ = generated_tool.__qualname__ = name
    generated_tool.__doc__ = doc
    generated_tool.__annotations__ = {**dict(params), "return": returns}
    generated_tool.__signature__ = signature  # type: ignore[attr-defined]
    return generated_tool


def docstring(summary: str, args: list[tuple[str, str]], returns: str | None, style: str) -> str:
    """A Google-style docstring; ``style`` puts what the tool returns in the summary or a Returns: section."""
    lines = [summary]
    if returns and style == "prose":
        lines += ["", returns]
    if args:
        lines += ["", "Args:"] + [f"    {name}: {text}" for name, text in args]
    if returns and style == "section":
        text = returns.removeprefix("Returns ")
        lines += ["", "Returns:", f"    {text[:1].upper()}{text[1:]}"]
    return "\n".join(lines) + "\n"
