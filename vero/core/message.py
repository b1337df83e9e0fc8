"""The one message type that flows between agents, models and saved sessions."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

ROLES = ("system", "user", "assistant", "tool")
ORIGINS = ("native", "text", "vero")  # the API's tool call; a call read from the model's text; a recovery lookup
CUT_OFF_REASONS = frozenset({"length", "model_length"})  # the output cap; the context's end (Mistral's)
# a reply the server broke off: DeepSeek's, vLLM's, OpenRouter's and Mistral's finish reasons for it (a failed call)
BROKEN_OFF_REASONS = frozenset({"error", "abort", "insufficient_system_resource", "repetition"})
BROKEN_OFF = "model call failed: the server broke the reply off unfinished (finish_reason {reason})"


class Arguments(dict[str, Any]):
    """A tool call's arguments, read once where the model's reply is read: the dict every later stop uses (loop checks,
    the action step, the tool), with what the gate needs to know of the call (docs/tools.md, "Safety").  Being a dict,
    they are what code that overrides ``Agent.run_tool(name, args)`` sees, and passes on with all of this kept."""

    written: str | None = None  # the text as the model wrote it: read exactly for a tool that may change things
    problem: str | None = None  # why they are not as written (repaired, two sets in one step): refused for such a tool
    plain: bool = False  # no JSON object (text for a tool's one parameter): the gate reads ``written`` with the tool
    origin: str = "native"  # one of ORIGINS
    call_id: str | None = None  # the API's id of the call, if any


@dataclass(slots=True)
class ToolCall:
    """One function call requested by the model: ``arguments`` is the JSON text as the model wrote it
    (what the API sends back), ``args`` that text read once as a dict; ``origin`` is one of ``ORIGINS``
    (the gate treats each differently: ``vero.core.gate``)."""

    id: str
    name: str
    arguments: str = "{}"
    origin: str = field(default="native", compare=False)
    _args: Arguments | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def args(self) -> Arguments:
        """The arguments as a dict, read from ``arguments`` on first use and kept, with the call's origin
        and id: the JSON object the text begins with (perhaps in a code fence), read leniently (a sloppy
        object is repaired, as for a read-only tool); any other text is ``plain``.  Never raises: what is
        unusable is the gate's to say, with the tool in hand."""
        if self._args is None:
            from vero.core.parsing.json_text import DECODER, parse_json_value, valid_strings, without_fence  # a cycle

            text = self.arguments.strip()
            text = without_fence(text) if text[:1] in ("`", "~") else text
            value: Any = {} if not text else None
            if text.startswith("{"):
                try:
                    value = DECODER.raw_decode(text)[0]
                except (ValueError, RecursionError):
                    with contextlib.suppress(ValueError):
                        value = parse_json_value(text)
            is_object = isinstance(value, dict)
            self._args = Arguments((valid_strings(value) if "\\u" in text else value) if is_object else ())
            self._args.written, self._args.plain = self.arguments, not is_object
        self._args.origin, self._args.call_id = self.origin, self.id
        return self._args

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCall:
        """Read the OpenAI wire format or the flat ``{"id", "name", "arguments"}`` one; arguments that are not
        text (some servers send an object) are kept as their JSON text.  A field of the wrong type is a
        TypeError here, so a bad record or response fails at once and not later, mid-run."""
        _check_type("a tool call", data, dict)
        fn = _check_type("a tool call's function", data["function"], dict) if "function" in data else data
        name = _check_type("a tool call's name", fn.get("name"), str, None)
        arguments = fn.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        return cls(_check_type("a tool call's id", data.get("id"), str, None) or "", name or "", arguments or "{}")


def read_arguments(written: str, origin: str = "native", call_id: str | None = None) -> Arguments:
    """``written`` read as a tool call's arguments are (``ToolCall.args``), with this origin and id."""
    arguments = ToolCall("", "", written, origin).args
    arguments.call_id = call_id
    return arguments


def written_call_id(name: str, arguments: str) -> str:
    """The id of a call vero read from text or made itself (the API gives the others theirs).

    Derived from the call, not random: the same conversation sends the same request again, so a
    cassette replays it (``vero.Cassette``) and a server's prompt cache keeps serving it."""
    return "call_" + hashlib.sha256(f"{name}\n{arguments}".encode()).hexdigest()[:12]


@dataclass(frozen=True)
class ToolCallRequest:
    """A tool call as vero is about to run it, for an approver (``approve_tool=``): ``arguments`` is the
    parsed dict the tool will get; ``origin`` one of ``ORIGINS`` (the API's call, one read from the
    model's text, a recovery rule's read-only lookup)."""

    name: str
    arguments: dict[str, Any]
    id: str | None = None
    origin: str = "native"


@dataclass(slots=True)
class Message:
    """A chat message.  ``reasoning`` holds a model's thinking text; it is kept out of ``to_dict()`` (what is
    sent to the API) unless asked for, so thinking never leaks back into a prompt by accident.  ``usage`` is
    the token usage of the call that produced an assistant message."""

    role: str
    content: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    reasoning: str | None = None
    usage: dict[str, Any] | None = field(default=None, compare=False)
    finish_reason: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r}; expected one of {', '.join(ROLES)}")

    # -- factories ---------------------------------------------------------
    @classmethod
    def system(cls, content: str) -> Message:
        return cls("system", content)

    @classmethod
    def user(cls, content: str) -> Message:
        return cls("user", content)

    @classmethod
    def assistant(
        cls, content: str | None = None, tool_calls: Iterable[ToolCall | dict[str, Any]] | None = None, **extra: Any
    ) -> Message:
        calls = [c if isinstance(c, ToolCall) else ToolCall.from_dict(c) for c in tool_calls or []]
        return cls("assistant", content, tool_calls=calls or None, **extra)

    @classmethod
    def tool(cls, content: str, tool_call_id: str, name: str | None = None) -> Message:
        return cls("tool", content, tool_call_id=tool_call_id, name=name)

    # -- conversion --------------------------------------------------------
    def to_dict(self, *, include_reasoning: bool = False, include_usage: bool = False) -> dict[str, Any]:
        """The message as the OpenAI chat API accepts it (plus optional extras)."""
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        reasoning, usage = self.reasoning if include_reasoning else None, self.usage if include_usage else None
        optional = {"tool_call_id": self.tool_call_id, "name": self.name, "reasoning": reasoning, "usage": usage}
        return data | {key: value for key, value in optional.items() if value is not None}  # those it has

    def to_record(self) -> dict[str, Any]:
        """Everything, for saving: ``from_dict(m.to_record()) == m``."""
        return self.to_dict(include_reasoning=True, include_usage=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        """The inverse of ``to_record``.  Every field's type is checked (TypeError, or ValueError for an unknown
        role), so that a crafted or corrupted record is refused here instead of failing a later run."""
        _check_type("a message", data, dict)
        calls = _check_type("tool_calls", data.get("tool_calls"), list, None)
        reasoning = _check_type("reasoning", data.get("reasoning"), str, None)
        return cls(
            role=_check_type("role", data["role"], str),
            content=_check_type("content", data.get("content"), str, None),
            tool_calls=[ToolCall.from_dict(c) for c in calls] if calls else None,
            tool_call_id=_check_type("tool_call_id", data.get("tool_call_id"), str, None),
            name=_check_type("name", data.get("name"), str, None),
            reasoning=reasoning or _check_type("reasoning_content", data.get("reasoning_content"), str, None),
            usage=_check_type("usage", data.get("usage"), dict, None),
        )

    def to_json(self) -> str:
        return json.dumps(self.to_record(), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Message:
        return cls.from_dict(json.loads(text))

    @property
    def truncated(self) -> bool:
        """True when the model was cut off by the output cap (``max_tokens``) or the context's end."""
        return self.finish_reason in CUT_OFF_REASONS

    @property
    def text(self) -> str:
        """The content as a string (``""`` when the model sent none)."""
        return self.content or ""


_TYPE_NAMES: dict[type | None, str] = {str: "text", list: "a list", dict: "an object", None: "null"}


def _check_type(what: str, value: Any, *allowed: type | None) -> Any:
    """``value`` if it is of one of the ``allowed`` types (``None`` admits None); else TypeError."""
    if any(value is None if kind is None else isinstance(value, kind) for kind in allowed):
        return value
    expected = " or ".join(_TYPE_NAMES.get(kind, getattr(kind, "__name__", "?")) for kind in allowed)
    raise TypeError(f"{what} must be {expected}, not {type(value).__name__}")


def as_api_dict(item: Message | dict[str, Any]) -> dict[str, Any]:
    """A message or dict in the form the API accepts (dicts pass through)."""
    return item.to_dict() if isinstance(item, Message) else item


class ChatModel(Protocol):
    """What an agent needs of its model: ``ChatOpenAI``, ``vero.testing.ScriptedLLM``, or your own.

    ``generate(messages, **options)`` returns the assistant ``Message`` (typed ``Any``: ``ChatOpenAI.generate``
    returns a ``TextStream`` when asked to stream); ``*args, **options`` lets any ``generate`` with a
    ``messages`` first parameter match.
    """

    def generate(self, messages: list[Message], /, *args: Any, **options: Any) -> Any: ...
