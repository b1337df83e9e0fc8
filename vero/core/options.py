"""``AgentOptions``: the settings every pattern shares, handed to sub-agents as one value."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import Any, TypedDict

from vero.core.deprecation import deprecated
from vero.core.events import Callback
from vero.core.message import ToolCall, ToolCallRequest

# Unpack types a **kwargs by a TypedDict; typing has it from Python 3.11 (typing_extensions before).
# Imported at run time, so that typing.get_type_hints works on every agent's __init__.
if sys.version_info >= (3, 11):
    from typing import Unpack as Unpack
else:
    from typing_extensions import Unpack as Unpack


@dataclass(frozen=True)
class RecoveryHook:
    """How the agents help a model that breaks the protocol: every accommodation is one switch here,
    and ``respond`` is the recovery rules' say on a proposed answer (docs/recovery.md).

    ``recovery=True`` is ``GENERAL``, every switch on and no rules; ``recovery=False`` is ``AS_WRITTEN``;
    ``recovery="auto"`` (the default) is ``GENERAL`` for a local model and ``AS_WRITTEN`` for a hosted one;
    a ``RecoveryHook`` of your own sets each switch (``recovery=RecoveryHook(tidy_numbers=False)``), which is
    how each one is measured.

    Why the hook is data here: the agents read only ``agent.options.hook``, so they never import
    ``vero.recovery`` (a layer above them); a preset or rule names become a hook through ``use_rules_layer``.
    """

    # Each switch, as on (docs/recovery.md has the table):
    unlabelled_calls: bool = True  # text ReAct: a call written without labels (JSON, template tags) is the action
    calls_in_text: bool = True  # native: a reply that is wholly a call written as text (text_calls' dialects) runs
    calls_in_prose: bool = True  # native: a read-only call amid prose runs; leading template tags are dropped
    nudges: bool = True  # native: a cut-off or empty reply is asked again (off: a cut-off reply ends ``failed``)
    repeated_call_note: bool = True  # a call made before gets its result and a note to use it
    refuse_repeated_failures: bool = True  # a call that failed before with the same arguments is not run again
    tidy_numbers: bool = True  # float noise leaves tool output and the answer (0.30000000000000004 -> 0.3)
    respond: Callable[[Any, str], str | ToolCall | None] | None = None
    """The rules: ``respond(agent, answer)`` gives a note to send instead of accepting ``answer``, a
    read-only call for vero to make, or None; ``None``: no rules (``vero.recovery.hook`` builds one)."""


GENERAL = RecoveryHook()  # ``recovery=True``
# ``recovery=False``: a reply is taken as written.  Tool output and repeated failures are not about
# reading replies, and kept as they were before the switches existed.
AS_WRITTEN = RecoveryHook(
    unlabelled_calls=False, calls_in_text=False, calls_in_prose=False, nudges=False, repeated_call_note=False
)
AUTO = "auto"  # ``recovery="auto"``, the default: ``AgentOptions.for_model`` decides it per model
# How a preset or rule names become a hook (``vero.recovery.hook``): see ``use_rules_layer``.
_rules_layer: list[Callable[[Any], RecoveryHook]] = []


def use_rules_layer(resolve: Callable[[Any], RecoveryHook]) -> None:
    """Give the function that turns a ``recovery=`` preset or rule names into a hook.  The recovery layer
    sits above this one, so it is given from above: the facade (``vero/__init__.py``, which runs before
    any vero module and may reach every layer) gives one that loads it on first use."""
    _rules_layer[:] = [resolve]


_LEAST = {"max_observation_chars": 1, "history_window": 0, "json_retries": 0, "max_tool_calls_per_reply": 1}


@dataclass(frozen=True)
class AgentOptions:
    """The settings every agent shares; ``Agent.subagent`` passes them on as a whole.  ``Agent(...)`` takes
    each as a keyword argument of the same name (or all of them as ``options=AgentOptions(...)``) and exposes
    them as ``agent.options``."""

    max_observation_chars: int = 8000
    """Tool output longer than this is clipped in the prompt (the steps keep the full text)."""

    history_window: int = 20
    """How many past messages of the history a prompt may include."""

    json_retries: int = 2
    """Re-asks when the model's JSON is unusable (0 or more)."""

    max_tool_calls_per_reply: int = 8
    """Tool calls run from one model reply; the rest are answered "not run" (1 or more)."""

    recovery: bool | str | tuple[Any, ...] | RecoveryHook = "auto"
    """How much vero helps a model that breaks the protocol (docs/recovery.md has the table): ``"auto"``
    (the default; ``True`` for a local model, ``False`` for a hosted one, decided by ``for_model``),
    ``True`` (the general mechanisms), ``False`` (a reply is taken as written), a preset name or rules
    (``vero.recovery``), or a ``RecoveryHook``.  Kept as given; ``hook`` is what the agents read."""

    approve_tool: Callable[[ToolCallRequest], bool | str] | None = None
    """Asked before a call of a tool that may change things (and of a ``needs_approval`` tool) runs:
    ``fn(call)`` gets a ``ToolCallRequest`` (``call.name``, ``call.arguments`` as a dict)
    and returns ``True`` to run it, ``False`` or a reason (a string, shown to the model) to refuse it.
    ``None``: nobody is asked, and a ``needs_approval`` tool is never run (docs/tools.md, "Safety")."""

    def for_model(self, hosted: bool) -> AgentOptions:
        """These options for an agent whose model is hosted or local: ``recovery="auto"`` is decided by it.
        (Not a setting: the choice is kept beside the fields, and ``updated`` passes it on.)"""
        if hosted == self._hosted:
            return self
        copy = replace(self)
        object.__setattr__(copy, "_hosted", hosted)
        if copy.recovery == AUTO:
            copy.__dict__["hook"] = AS_WRITTEN if hosted else GENERAL
        return copy

    def updated(self, **settings: Any) -> AgentOptions:
        """A copy with ``settings`` changed; a TypeError names every unknown setting."""
        known = {f.name for f in fields(self)}
        if unknown := sorted(set(settings) - known):
            raise TypeError(
                f"unexpected keyword argument{'s' * (len(unknown) > 1)}: {', '.join(unknown)} "
                f"(the shared settings are: {', '.join(sorted(known))})"
            )
        return replace(self, **settings).for_model(self._hosted) if settings else self

    _hosted = False  # see ``for_model``

    @cached_property
    def hook(self) -> RecoveryHook:
        """``recovery`` as the agents use it (set in ``__post_init__`` unless it names rules).  Rules are
        resolved by their layer (``use_rules_layer``) on first use: an unknown preset fails the first run
        that reads it (ReActAgent reads it when it is made)."""
        if not _rules_layer:
            raise ValueError(f"recovery={self.recovery!r} names rules, and no recovery layer was given (vero.recovery)")
        return _rules_layer[0](self.recovery)

    def __post_init__(self) -> None:
        if isinstance(self.recovery, (list, tuple)):  # a list works too; kept as a tuple (hashable, frozen)
            object.__setattr__(self, "recovery", tuple(self.recovery))
        elif isinstance(self.recovery, RecoveryHook):  # the hook, now (rules: on first use, see ``hook``)
            self.__dict__["hook"] = self.recovery
        elif isinstance(self.recovery, bool) or self.recovery == AUTO:  # "auto" reads as a local model's
            self.__dict__["hook"] = GENERAL if self.recovery else AS_WRITTEN
        elif not isinstance(self.recovery, str):
            raise ValueError(
                f"recovery must be True, False, a preset name or a sequence of rules, got {self.recovery!r}"
            )
        if self.approve_tool is not None and not callable(self.approve_tool):
            raise ValueError(f"approve_tool must be a function, fn(call) -> bool | str, or None: {self.approve_tool!r}")
        problems = []  # every problem named, not only the first
        for name, least in _LEAST.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                rule = "a positive int" if least == 1 else "an int of 0 or more"
                problems.append(f"{name} must be {rule}, got {value!r}")
        if problems:
            raise ValueError("; ".join(problems))


class SharedSettings(TypedDict, total=False):
    """``AgentOptions``' fields as keyword arguments (``Agent(..., json_retries=1)``), for type checkers."""

    max_observation_chars: int
    history_window: int
    json_retries: int
    max_tool_calls_per_reply: int
    recovery: bool | str | tuple[Any, ...] | list[Any] | RecoveryHook
    approve_tool: Callable[[ToolCallRequest], bool | str] | None


class AgentKeywords(SharedSettings, total=False):
    """``Agent.__init__``'s keyword-only arguments: what a pattern's ``**base_options`` passes on to it,
    typed, so that a type checker names a misspelt or mistyped one where the agent is made."""

    max_tokens_per_run: int | None
    options: AgentOptions | None
    trace: str | None
    callbacks: list[Callback] | None


def renamed_budget(old_name: str, old: int | None, max_turns: int | None) -> int | None:
    """``max_turns``, or the value given under its deprecated old name (``max_steps``, ``max_attempts``;
    a ``DeprecationWarning`` says so).  Both given with different values is a ValueError: one budget, one name."""
    if old is None:
        return max_turns
    deprecated(f"{old_name}=", "write max_turns=")
    if max_turns is not None and old != max_turns:
        raise ValueError(
            f"{old_name}={old} and max_turns={max_turns} differ: {old_name} is the old name "
            "of max_turns, so give only max_turns"
        )
    return old


def renamed_budget_property(old_name: str) -> property:
    """``agent.max_steps`` (or another old name): ``agent.max_turns``, with a ``DeprecationWarning``."""

    def read(agent: Any) -> int:
        deprecated(f"{type(agent).__name__}.{old_name}", "read max_turns")
        return int(agent.max_turns)

    return property(read)
