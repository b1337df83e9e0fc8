"""Cutting text to a length (one rule for prompts, logs and error messages), and comparing it."""

from __future__ import annotations

import re


def clip(text: str, limit: int, marker: str = "", *, within: bool = False) -> str:
    """``text`` cut to ``limit`` characters, with ``marker`` added only when something was cut.

    By default the marker follows the ``limit`` characters kept: a prompt shows
    the model exactly ``limit`` characters of the original, then says it was
    cut.  ``within=True`` keeps the whole result, marker included, within
    ``limit``: a line of fixed width (an error message, a terminal line).
    A marker that reports counts is formatted by the caller, e.g.
    ``clip(text, n, f" [{len(text) - n} more chars]")``.
    """
    if len(text) <= limit:
        return text
    keep = limit - len(marker) if within else limit
    return text[: max(0, keep)] + marker


def folded(text: str) -> str:
    """``text`` with spacing and case aside (runs of whitespace as one space, case folded): how two
    texts a model wrote are compared."""
    return " ".join(text.split()).casefold()


_ID = re.compile(r"(?=\S*\d)(?=\S*[A-Za-z])[\w.-]{2,40}")


def looks_like_id(text: str) -> bool:
    """True for an id such as ``AB-03`` or ``ORD-7``: letters and digits, no space (not a name, not a number)."""
    return bool(_ID.fullmatch(text))
