"""Calls a model was shown: is a call read from its text one of them (the gate's question 3)?"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def quoted_call(name: str, arguments: dict[str, Any], sources: Iterable[str], tool: Any = None) -> bool:
    """True when a call of ``name`` with ``arguments`` is written in one of ``sources``."""
    return False
