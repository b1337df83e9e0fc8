"""vero's core: the model client, messages and the Agent base class."""

from vero.core.agent import Agent, BudgetExceeded, MalformedOutputError
from vero.core.chat_openai import ChatOpenAI, TextStream
from vero.core.events import ConsolePrinter, Event, JsonlTrace
from vero.core.message import Message, ToolCall
from vero.core.options import AgentOptions
from vero.core.result import Outcome, PlanStepStatus, RunResult, Status, Step, StepKind, ToolError
from vero.errors import LLMCallError, LLMConfigError

__all__ = [
    "Agent",
    "AgentOptions",
    "BudgetExceeded",
    "MalformedOutputError",
    "ChatOpenAI",
    "TextStream",
    "ConsolePrinter",
    "Event",
    "JsonlTrace",
    "Message",
    "ToolCall",
    "Outcome",
    "RunResult",
    "Status",
    "Step",
    "StepKind",
    "ToolError",
    "PlanStepStatus",
    "LLMCallError",
    "LLMConfigError",
]
