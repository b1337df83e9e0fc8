"""vero's core: the model client, messages and the Agent base class.

The agent and the model client load on first use (``from vero.core import Agent``), so that the data
modules (``vero.core.message``, ``vero.core.text``...) load without them: README.md, "Changing vero".
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from vero.core.events import ConsolePrinter, Event, JsonlTrace
from vero.core.message import Message, ToolCall
from vero.core.options import AgentOptions
from vero.core.result import Outcome, PlanStepStatus, RunResult, Status, Step, StepKind, ToolError
from vero.errors import LLMCallError, LLMConfigError

if TYPE_CHECKING:  # type checkers see these ("X as X": re-exported); at run time each loads on first use
    from vero.core.agent import Agent as Agent
    from vero.core.agent import BudgetExceeded as BudgetExceeded
    from vero.core.agent import MalformedOutputError as MalformedOutputError
    from vero.core.chat_openai import ChatOpenAI as ChatOpenAI
    from vero.core.chat_openai import TextStream as TextStream

_LATER = {"Agent": "agent", "BudgetExceeded": "agent", "MalformedOutputError": "agent"}
_LATER |= {"ChatOpenAI": "chat_openai", "TextStream": "chat_openai"}


def __getattr__(name: str) -> Any:
    if name in _LATER:
        return getattr(import_module(f"vero.core.{_LATER[name]}"), name)
    raise AttributeError(f"module 'vero.core' has no attribute {name!r}")


__all__ = ["Agent", "BudgetExceeded", "MalformedOutputError", "ChatOpenAI", "TextStream", "AgentOptions"]
__all__ += ["ConsolePrinter", "Event", "JsonlTrace", "Message", "ToolCall", "Outcome", "RunResult", "Status", "Step"]
__all__ += ["StepKind", "ToolError", "PlanStepStatus", "LLMCallError", "LLMConfigError"]
