"""Opt-in recovery rules for small models, outside vero's core.

``Agent(..., recovery=...)`` (an ``AgentOptions`` setting) chooses them:

- ``True`` (default): no rules; the agents' general mechanisms only;
- ``False``: no rules and no general mechanisms either (docs/recovery.md);
- ``"small-model"``: the preset ``PRESETS["small-model"]``;
- a sequence of rule names (``RULES``) or rule objects (``vero.recovery.hook.Rule``).

A rule sees the proposed answer and the run (``Seen``) and may return a ``Nudge``,
a call of a read-only tool, or nothing; ``consult`` applies the safety rules.

The agents never import this package: they call ``agent.options.hook`` (a
``vero.core.options.RecoveryHook``), which ``AgentOptions`` builds with ``hook`` below
the first time a setting names rules.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from vero.core.message import ToolCall
from vero.core.options import RecoveryHook
from vero.recovery.hook import (
    CallSeen,
    FunctionRule,
    Nudge,
    Response,
    Rule,
    Seen,
    asks_the_user,
    consult,
    declines,
    rule,
)
from vero.recovery.rules import PRESETS, RULES

__all__ = [
    "CallSeen",
    "FunctionRule",
    "Nudge",
    "PRESETS",
    "RULES",
    "Response",
    "Rule",
    "Seen",
    "asks_the_user",
    "consult",
    "declines",
    "hook",
    "resolve",
    "rule",
]


def resolve(setting: bool | str | tuple[Any, ...]) -> tuple[Rule, ...]:
    """The rules a ``recovery=`` setting turns on; ValueError for an unknown preset or rule name."""
    if isinstance(setting, bool):
        return ()
    if isinstance(setting, str):
        if setting not in PRESETS:
            raise ValueError(
                f"unknown recovery preset {setting!r} (the presets: {', '.join(PRESETS)}; "
                "or True, False, or a list of rules)"
            )
        setting = PRESETS[setting]
    rules = []
    for item in setting:
        if isinstance(item, str) and item not in RULES:
            raise ValueError(f"unknown recovery rule {item!r} (the rules: {', '.join(RULES)})")
        found = RULES[item] if isinstance(item, str) else item
        if not (callable(found) and isinstance(getattr(found, "name", None), str)):
            raise ValueError(f"a recovery rule needs a name and must be callable, got {item!r}")
        rules.append(found)
    return tuple(rules)


def hook(setting: str | tuple[Any, ...]) -> RecoveryHook:
    """The ``RecoveryHook`` of a preset or a sequence of rules: every general mechanism on, and these
    rules consulted on each proposed answer."""
    return RecoveryHook(respond=partial(respond, resolve(setting)))


def respond(rules: tuple[Rule, ...], agent: Any, answer: str) -> str | ToolCall | None:
    """The rules' say on ``answer`` (``consult``): a note's text, a read-only call, or None."""
    response = consult(agent, rules, answer)
    return response.text if isinstance(response, Nudge) else response
