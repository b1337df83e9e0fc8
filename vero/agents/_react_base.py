"""What ReAct's protocols use of their agent: ``ReActAgentBase``.

The protocols (``vero.agents._react_protocols``, ``vero.agents._guided``) see only this class,
and ``ReActAgent`` (``vero.agents.react``) fills it in, so no protocol module imports the agent's.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from vero.core.agent import Agent
from vero.core.message import Message


class ReActAgentBase(Agent):
    """What a protocol uses of its agent beyond ``Agent``: the prompts and four hooks.

    ``ReActAgent`` (``vero.agents.react``) fills them in; the protocols see only this,
    so neither module imports the other's.
    """

    intro_prompt: str
    format_prompt: str
    native_intro_prompt: str
    native_prompt: str
    native_hosted_prompt: str
    format_error_prompt: str
    native_empty_prompt: str
    guided_prompt: str
    guided_error_prompt: str

    @abstractmethod
    def note_thought(self, thought: str) -> None:
        """Record a thought (also the best partial answer so far)."""

    @abstractmethod
    def format_error(self, problem: str, raw: str, messages: list[Message]) -> None:
        """A malformed reply: a correction as the next message (bounded)."""

    @abstractmethod
    def check_repeats(self, actions: list[tuple[str, Any]]) -> str | None:
        """Loop detection: a warning instead of the observation, or None to run the actions."""

    @abstractmethod
    def answer_check(self, answer: str) -> str | None:
        """A note to send instead of accepting ``answer``, or None to accept it."""

    @abstractmethod
    def build_system_prompt(self) -> str:
        """The system prompt of the protocol in use."""
