"""Test your agents offline.

``ScriptedLLM`` is a drop-in stand-in for ``ChatOpenAI``: it returns scripted
replies in order and records every call, so a test can assert both what the
agent did and what it sent.  ``MockOpenAIServer`` is a small OpenAI-compatible
HTTP server on 127.0.0.1 for testing the real client path.

    llm = ScriptedLLM(["Thought: add\\nAction: add\\nAction Input: {\\"a\\": 2, \\"b\\": 3}",
                       "Final Answer: 5"])
    agent = ReActAgent("t", llm, tools=[add], verbose=False)
    assert agent.run("2+3?") == "5"
    assert llm.calls == 2 and "add" in llm.requests[0].messages[0]["content"]
"""

from __future__ import annotations

import copy
import inspect
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from vero.core.result import add_usage, empty_usage
from vero.core.message import Message, as_api_dict
from vero.core.thinking import split_thinking
from vero.errors import ScriptExhaustedError

__all__ = ["ScriptedLLM", "ScriptedCall", "MockOpenAIServer", "HTTPFault", "Fault"]


@dataclass
class ScriptedCall:
    """What the agent sent in one call: messages as API dicts, plus the options."""

    messages: list[dict]
    tools: list | None = None
    stop: Any = None
    options: dict = field(default_factory=dict)

    @property
    def prompt(self) -> str:
        """All message contents joined, handy for ``in`` assertions."""
        return "\n".join(m.get("content") or "" for m in self.messages)


class ScriptedLLM:
    """A fake chat model that replies from a script.

    Each scripted reply is one of: a string (the assistant's text), a
    ``Message``, a dict (``content``, ``tool_calls`` as ``{"name", "arguments"}``,
    ``reasoning``, ``usage``, ``finish_reason``: ``"length"`` for a reply cut
    off by the output cap), an exception instance (raised, to simulate an
    API error), or a function of the messages returning one of those (it gets
    the call's options too, ``tools``, ``stop``, ..., if it accepts them).
    ``stop`` sequences cut the text the way a real server does, and
    ``<think>`` blocks are split off as ``reasoning``, as ``ChatOpenAI`` does.
    Running out of script raises ``ScriptExhaustedError``, or, when
    ``default`` is given, returns it forever.
    """

    def __init__(self, responses: list | None = None, *, default: Any = None, model_name: str = "scripted"):
        self.responses = list(responses or [])
        self.default = default
        self.model_name = model_name
        self.requests: list[ScriptedCall] = []
        self.calls = 0
        self.total_usage = empty_usage()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ScriptedLLM({len(self.responses)} replies left, {self.calls} calls)"

    @property
    def remaining(self) -> int:
        return len(self.responses)

    def generate(
        self,
        messages,
        *,
        tools=None,
        tool_choice=None,
        stop=None,
        response_format=None,
        temperature=None,
        max_tokens=None,
        stream: bool = False,
        on_token: Callable[[str], None] | None = None,
    ):
        sent = [copy.deepcopy(as_api_dict(m)) for m in messages]
        options = {k: v for k, v in dict(tool_choice=tool_choice, response_format=response_format,
                                          temperature=temperature, max_tokens=max_tokens).items() if v is not None}
        with self._lock:
            self.requests.append(ScriptedCall(sent, tools, stop, options))
            self.calls += 1
            reply = self._next(len(self.requests))
        if callable(reply) and not isinstance(reply, (Message, BaseException)):
            reply = _call_reply(reply, messages, dict(tools=tools, stop=stop, **options))
        if isinstance(reply, BaseException):
            raise reply
        message = self._to_message(reply, sent, stop)
        with self._lock:
            add_usage(self.total_usage, message.usage)
        if stream:
            return _ScriptedStream(message)
        if on_token is not None:
            for piece in _pieces(message.text):
                on_token(piece)
        return message

    def _next(self, number: int):
        if self.responses:
            return self.responses.pop(0)
        if self.default is not None:
            return self.default
        raise ScriptExhaustedError(
            f"ScriptedLLM has no reply left for call #{number}; the script had {number - 1} replies"
        )

    @staticmethod
    def _to_message(reply, sent: list[dict], stop) -> Message:
        if isinstance(reply, Message):
            message = copy.copy(reply)
        elif isinstance(reply, dict):
            message = Message.assistant(reply.get("content"), reply.get("tool_calls"),
                                        reasoning=reply.get("reasoning"), usage=reply.get("usage"),
                                        finish_reason=reply.get("finish_reason"))
            for number, call in enumerate(message.tool_calls or [], 1):
                call.id = call.id or f"call_{number}"
        else:
            message = Message.assistant(str(reply))
        text = _cut_at_stop(message.content, stop)
        answer, thinking = split_thinking(text)
        message.content = answer if text is not None else None
        message.reasoning = message.reasoning or thinking
        if message.usage is None:
            prompt_chars = sum(len(m.get("content") or "") for m in sent)
            prompt, completion = prompt_chars // 4 + 1, len(text or "") // 4 + 1
            message.usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        return message


class _ScriptedStream:
    """Mimics ``ChatOpenAI.generate(stream=True)``: iterate deltas, then read ``message``."""

    def __init__(self, message: Message):
        self._message = message
        self.message: Message | None = None

    def __iter__(self) -> Iterator[str]:
        yield from _pieces(self._message.text)
        self.message = self._message


def _call_reply(fn: Callable, messages, options: dict):
    """Call a scripted reply function with the options its signature accepts."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature
        return fn(messages)
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return fn(messages, **options)
    names = {p.name for p in params}
    return fn(messages, **{k: v for k, v in options.items() if k in names})


def _pieces(text: str) -> list[str]:
    words = text.split(" ")
    return [w + " " for w in words[:-1]] + [words[-1]] if text else []


def _cut_at_stop(text: str | None, stop) -> str | None:
    if not text or not stop:
        return text
    for sequence in [stop] if isinstance(stop, str) else stop:
        index = text.find(sequence)
        if index >= 0:
            text = text[:index]
    return text


def __getattr__(name: str):
    # The HTTP server lives in its own module; load it only when asked for.
    if name in ("MockOpenAIServer", "HTTPFault", "Fault"):
        from vero import _mock_server

        return getattr(_mock_server, name)
    raise AttributeError(f"module 'vero.testing' has no attribute {name!r}")
