"""vero: a small, readable framework for building LLM agents from scratch.

    from vero import ChatOpenAI, tool
    from vero.agents import ReActAgent

Importing vero is cheap: the ``openai`` SDK is imported only when a
``ChatOpenAI`` is created, and settings are read on first use.
"""

from vero.core import (
    Agent,
    ChatOpenAI,
    LLMCallError,
    LLMConfigError,
    Message,
    Outcome,
    RunResult,
    Step,
)
from vero import tool  # the package is callable: `@tool` is `vero.tool.tool`
from vero.tool import Tool, ToolRegistry

__version__ = "0.1.0"

_AGENTS = ("BasicReflectionAgent", "ReActAgent", "ToolCallingAgent", "PlanExecuteAgent", "ReflexionAgent")


_SUBMODULES = ("agents", "batch", "testing")


def __getattr__(name: str):
    # `vero.agents.ReActAgent` after a bare `import vero`: the subpackage loads on first use.
    if name in _SUBMODULES:
        from importlib import import_module

        return import_module(f"vero.{name}")
    # `from vero import ReActAgent` works too; the agents load on first use.
    if name in _AGENTS:
        import vero.agents

        return getattr(vero.agents, name)
    raise AttributeError(f"module 'vero' has no attribute {name!r}")


__all__ = [
    "Agent", "ChatOpenAI", "LLMCallError", "LLMConfigError", "Message", "Outcome",
    "RunResult", "Step", "Tool", "ToolRegistry", "tool", "__version__", *_AGENTS,
]
