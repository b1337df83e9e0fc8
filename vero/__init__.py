"""vero: a small, readable framework for building LLM agents from scratch.

    from vero import ChatOpenAI, tool
    from vero.agents import ReActAgent

Importing vero is cheap: the ``openai`` SDK is imported only when a
``ChatOpenAI`` is created, and settings are read on first use.
"""

from importlib import import_module
from typing import TYPE_CHECKING

from vero._version import __version__
from vero.cassette import Cassette
from vero.core import (
    AgentOptions,
    LLMCallError,
    LLMConfigError,
    Message,
    Outcome,
    RunResult,
    Status,
    Step,
    StepKind,
)
from vero.core.message import ToolCallRequest
from vero.core.options import RecoveryHook, use_rules_layer

# `vero.tool` is the decorator; the tools package is `vero.tools`.
from vero.tools import Tool, ToolRegistry, _old_paths, tool

_old_paths.install()  # `from vero.tool import Tool`, the tools package's old path, for one more release


def _rules_hook(setting: "str | tuple[object, ...]") -> "RecoveryHook":
    """``recovery="small-model"`` (or rule names) as the agents' hook: the recovery layer, loaded on first use."""
    hook: RecoveryHook = import_module("vero.recovery").hook(setting)
    return hook


use_rules_layer(_rules_hook)  # given from above: no layer below vero.recovery imports it

if TYPE_CHECKING:  # type checkers see these ("X as X": re-exported); at run time they load on first use
    from vero.agents import BasicReflectionAgent as BasicReflectionAgent
    from vero.agents import PlanExecuteAgent as PlanExecuteAgent
    from vero.agents import ReActAgent as ReActAgent
    from vero.agents import ReflexionAgent as ReflexionAgent
    from vero.agents import ToolCallingAgent as ToolCallingAgent
    from vero.core import Agent as Agent
    from vero.core import ChatOpenAI as ChatOpenAI

_AGENTS = ("BasicReflectionAgent", "ReActAgent", "ToolCallingAgent", "PlanExecuteAgent", "ReflexionAgent")
_CORE_LATER = ("Agent", "ChatOpenAI")  # from vero.core, on first use too


_SUBMODULES = ("agents", "batch", "testing")


def __getattr__(name: str):
    # `vero.agents.ReActAgent` after a bare `import vero`: the subpackage loads on first use.
    if name in _SUBMODULES:
        return import_module(f"vero.{name}")
    # `from vero import ReActAgent` works too; the agents load on first use.
    if name in _AGENTS:
        return getattr(import_module("vero.agents"), name)
    # The agent and the model client too: importing a data module (vero.core.message) loads neither.
    if name in _CORE_LATER:
        return getattr(import_module("vero.core"), name)
    raise AttributeError(f"module 'vero' has no attribute {name!r}")


__all__ = [
    "Agent",
    "AgentOptions",
    "Cassette",
    "ChatOpenAI",
    "LLMCallError",
    "LLMConfigError",
    "Message",
    "Outcome",
    "RunResult",
    "Status",
    "Step",
    "StepKind",
    "Tool",
    "ToolCallRequest",
    "ToolRegistry",
    "tool",
    "__version__",
    *_AGENTS,
]
