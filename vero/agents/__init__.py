"""The agent patterns, each a subclass of ``vero.core.Agent``.

Loaded on first use so that ``import vero.agents`` stays cheap.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # type checkers see the classes ("X as X": re-exported); at run time each loads on first use
    from vero.agents.basic_reflection import BasicReflectionAgent as BasicReflectionAgent
    from vero.agents.plan_execute import PlanExecuteAgent as PlanExecuteAgent
    from vero.agents.react import ReActAgent as ReActAgent
    from vero.agents.reflexion import ReflexionAgent as ReflexionAgent
    from vero.agents.reflexion import ReflexionMemory as ReflexionMemory
    from vero.agents.tool_calling import ToolCallingAgent as ToolCallingAgent

_WHERE = {"BasicReflectionAgent": "basic_reflection", "ReActAgent": "react", "ToolCallingAgent": "tool_calling"}
_WHERE |= {"PlanExecuteAgent": "plan_execute", "ReflexionAgent": "reflexion", "ReflexionMemory": "reflexion"}

__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(f"vero.agents.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'vero.agents' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
