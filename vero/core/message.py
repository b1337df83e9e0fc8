"""The one message type that flows between agents, models and saved sessions."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

ROLES = ("system", "user", "assistant", "tool")


@dataclass(slots=True)
class ToolCall:
    """One function call requested by the model (``arguments`` is the raw JSON text)."""

    id: str
    name: str
    arguments: str = "{}"

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    @classmethod
    def from_dict(cls, data: dict) -> "ToolCall":
        if "function" in data:  # the OpenAI wire format
            fn = data["function"]
            return cls(data.get("id") or "", fn.get("name") or "", fn.get("arguments") or "{}")
        arguments = data.get("arguments", "{}")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        return cls(data.get("id") or "", data.get("name") or "", arguments)


@dataclass(slots=True)
class Message:
    """A chat message.

    ``reasoning`` holds a model's thinking text; it is kept out of ``to_dict()``
    (what is sent to the API) unless asked for, so thinking never leaks back
    into a prompt by accident.  ``usage`` is the token usage of the call that
    produced an assistant message.
    """

    role: str
    content: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    reasoning: str | None = None
    usage: dict | None = field(default=None, compare=False)
    finish_reason: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r}; expected one of {', '.join(ROLES)}")

    # -- factories ---------------------------------------------------------
    @classmethod
    def system(cls, content: str) -> "Message":
        return cls("system", content)

    @classmethod
    def user(cls, content: str) -> "Message":
        return cls("user", content)

    @classmethod
    def assistant(cls, content: str | None = None, tool_calls=None, **extra) -> "Message":
        calls = [c if isinstance(c, ToolCall) else ToolCall.from_dict(c) for c in tool_calls or []]
        return cls("assistant", content, tool_calls=calls or None, **extra)

    @classmethod
    def tool(cls, content: str, tool_call_id: str, name: str | None = None) -> "Message":
        return cls("tool", content, tool_call_id=tool_call_id, name=name)

    # -- conversion --------------------------------------------------------
    def to_dict(self, *, include_reasoning: bool = False, include_usage: bool = False) -> dict:
        """The message as the OpenAI chat API accepts it (plus optional extras)."""
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            data["name"] = self.name
        if include_reasoning and self.reasoning is not None:
            data["reasoning"] = self.reasoning
        if include_usage and self.usage is not None:
            data["usage"] = self.usage
        return data

    def to_record(self) -> dict:
        """Everything, for saving: ``from_dict(m.to_record()) == m``."""
        return self.to_dict(include_reasoning=True, include_usage=True)

    @classmethod
    def from_dict(cls, data: dict) -> "Message":
        calls = data.get("tool_calls")
        return cls(
            role=data["role"],
            content=data.get("content"),
            tool_calls=[ToolCall.from_dict(c) for c in calls] if calls else None,
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            reasoning=data.get("reasoning") or data.get("reasoning_content"),
            usage=data.get("usage"),
        )

    def to_json(self) -> str:
        return json.dumps(self.to_record(), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "Message":
        return cls.from_dict(json.loads(text))

    @property
    def truncated(self) -> bool:
        """True when the model was cut off by the output cap (``max_tokens``)."""
        return self.finish_reason == "length"

    @property
    def text(self) -> str:
        """The content as a string (``""`` when the model sent none)."""
        return self.content or ""


def as_api_dict(item: "Message | dict") -> dict:
    """A message or dict in the form the API accepts (dicts pass through)."""
    return item.to_dict() if isinstance(item, Message) else item
