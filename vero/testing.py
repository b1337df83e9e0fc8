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

import argparse
import copy
import inspect
import json
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vero._estimate import estimated_usage
from vero.core.chat_openai import CONTENT_FILTERED
from vero.core.message import Message, as_api_dict
from vero.core.result import add_usage, empty_usage
from vero.core.thinking import split_thinking
from vero.errors import LLMCallError, ScriptExhaustedError

if TYPE_CHECKING:  # loaded on first use by __getattr__ below
    from vero._mock_server import Fault, HTTPFault, MockOpenAIServer

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
    ``default`` is given, returns it forever.  ``json_schema=True`` plays a
    server that constrains replies to a JSON schema (``supports_json_schema()``,
    which an agent asks before it constrains a typed answer); the replies are still the script's.
    """

    def __init__(
        self,
        responses: list | None = None,
        *,
        default: Any = None,
        model_name: str = "scripted",
        json_schema: bool = False,
        hosted: bool = False,
    ):
        self.responses = list(responses or [])
        self.json_schema = json_schema
        self.hosted = hosted  # as ChatOpenAI.hosted: True plays a hosted provider's model
        self.default = default
        self.model_name = model_name
        self.callbacks: list = []  # as ChatOpenAI.callbacks; a ScriptedLLM makes no HTTP attempts to report
        self.requests: list[ScriptedCall] = []
        self.calls = 0
        self.total_usage = empty_usage()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ScriptedLLM({len(self.responses)} replies left, {self.calls} calls)"

    @property
    def remaining(self) -> int:
        return len(self.responses)

    def supports_json_schema(self) -> bool:
        """What ``json_schema=`` says: as ``ChatOpenAI.supports_json_schema``, without a probe."""
        return self.json_schema

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
        """Take the next scripted reply, as ``ChatOpenAI.generate`` would answer.

        The call is recorded first (``requests``, ``calls``); an exception reply
        is raised; ``stop`` cuts the text and ``<think>`` blocks go to
        ``reasoning``.  ``stream=True`` returns an iterable of text pieces whose
        ``message`` is set at the end; ``on_token`` gets the pieces as well.
        """
        sent = [copy.deepcopy(as_api_dict(m)) for m in messages]
        options = {
            k: v
            for k, v in dict(
                tool_choice=tool_choice, response_format=response_format, temperature=temperature, max_tokens=max_tokens
            ).items()
            if v is not None
        }
        with self._lock:
            self.requests.append(ScriptedCall(sent, tools, stop, options))
            self.calls += 1
            reply = self._next(len(self.requests))
        if callable(reply) and not isinstance(reply, (Message, BaseException)):
            reply = _call_reply(reply, messages, dict(tools=tools, stop=stop, **options))
        if isinstance(reply, BaseException):
            raise reply
        message = self._to_message(reply, sent, stop)
        if message.finish_reason == "content_filter":  # as ChatOpenAI answers it: not a reply
            raise LLMCallError(CONTENT_FILTERED)
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
            message = Message.assistant(
                reply.get("content"),
                reply.get("tool_calls"),
                reasoning=reply.get("reasoning"),
                usage=reply.get("usage"),
                finish_reason=reply.get("finish_reason"),
            )
            for number, call in enumerate(message.tool_calls or [], 1):
                call.id = call.id or f"call_{number}"
        else:
            message = Message.assistant(str(reply))
        text = _cut_at_stop(message.content, stop)
        answer, thinking = split_thinking(text)
        message.content = answer if text is not None else None
        message.reasoning = message.reasoning or thinking
        if message.usage is None:
            message.usage = estimated_usage(sent, text)
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


# --------------------------------------------------------------------------- python -m vero.testing serve
SERVE_USAGE = """\
Serve scripted replies on an OpenAI-compatible endpoint, to drive `vero` (or any
OpenAI client) offline.  REPLIES is a JSON file holding one of:
  "Hello!"                      one fixed reply, for every request
  ["Hi.", "Bye."]               replies in order; then the last one repeats
  {"replies": [...], "then": "repeat" or "error", "models": ["llama3.1"]}
A reply is a string, an object with "content" and/or "tool_calls"
([{"name": "calculator", "arguments": {"expression": "6*7"}}]), or a fault:
{"status": 404, "message": "model not found"} (an HTTP error),
{"sleep": 5, "then": "late reply"} (a slow server), {"disconnect": true}.
"then": "error" answers HTTP 500 once the list is used up.  With "models", GET
/v1/models lists them and a request for any other model gets HTTP 404."""


def serve_main(argv: list[str] | None = None) -> int:
    """``python -m vero.testing serve --replies FILE [--port P]``: run a ``MockOpenAIServer`` until Ctrl-C."""
    args = _serve_parser().parse_args(argv)
    try:
        script = ServeScript(_serve_spec(args.replies, args.models))
    except (OSError, ValueError, TypeError) as exc:
        print(f"python -m vero.testing serve: cannot use {args.replies}: {exc}", file=sys.stderr)
        return 2
    from vero._mock_server import MockOpenAIServer  # lazy: http.server and ssl cost ~35 ms

    server = MockOpenAIServer(responder=script.reply, host=args.host, port=args.port, model=script.model)
    server.add_route("GET", "/v1/models", script.models_route)
    server.add_route("GET", "/models", script.models_route)
    try:
        server.start()
    except OSError as exc:
        print(f"python -m vero.testing serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    print(f"Serving {script.describe()} at {server.base_url}  (Ctrl-C to stop)", flush=True)
    print(f"Try:  vero chat --base-url {server.base_url} --model {script.model}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        print("\nStopped.", flush=True)
    finally:
        server.stop()
    return 0


def _serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vero.testing", description="Offline helpers for vero.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    serve = commands.add_parser(
        "serve",
        help="serve scripted replies on 127.0.0.1 until Ctrl-C",
        description=SERVE_USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--replies", metavar="FILE", required=True, help="the scripted replies, as JSON")
    serve.add_argument("--port", metavar="P", type=int, default=0, help="the port (default: a free one)")
    serve.add_argument("--host", metavar="H", default="127.0.0.1", help="the address (default: 127.0.0.1)")
    serve.add_argument(
        "--models",
        metavar="LIST",
        help='comma-separated model names to serve (as "models" in the file): other names get HTTP 404',
    )
    return parser


def _serve_spec(replies_file: str, models: str | None) -> Any:
    """The replies file's JSON, with ``--models`` (a comma-separated list) as its ``models``."""
    with open(replies_file, encoding="utf-8") as file:
        spec = json.load(file)
    if models:
        spec = {
            **(spec if isinstance(spec, dict) and "replies" in spec else {"replies": spec}),
            "models": [m.strip() for m in models.split(",") if m.strip()],
        }
    return spec


class ServeScript:
    """The replies of ``serve``: ``reply(request_body)`` is the server's responder."""

    def __init__(self, spec: Any):
        if isinstance(spec, dict) and "replies" in spec:
            unknown = set(spec) - {"replies", "then", "models"}
            if unknown:
                raise ValueError(f"unknown keys {sorted(unknown)}; allowed: replies, then, models")
            replies, self.then, models = spec["replies"], spec.get("then", "repeat"), spec.get("models")
        else:
            replies, self.then, models = spec, "repeat", None
        if isinstance(replies, (str, dict)):
            replies = [replies]
        if not isinstance(replies, list) or not replies:
            raise ValueError("the replies must be a string, an object or a non-empty list")
        if self.then not in ("repeat", "error"):
            raise ValueError(f'"then" must be "repeat" or "error", not {self.then!r}')
        if models is not None and (not isinstance(models, list) or not all(isinstance(m, str) for m in models)):
            raise ValueError('"models" must be a list of model names')
        self.replies = [_serve_reply(item) for item in replies]
        self.models = models
        self.model = (models or ["mock-model"])[0]
        self.served = 0
        self._lock = threading.Lock()

    def describe(self) -> str:
        count = len(self.replies)
        then = "then the last repeats" if self.then == "repeat" else "then HTTP 500"
        return f"{count} scripted repl{'y' if count == 1 else 'ies'} ({then})"

    def reply(self, body: dict) -> Any:
        from vero._mock_server import HTTPFault  # lazy: see serve_main

        model = body.get("model")
        if self.models is not None and model not in self.models:
            return HTTPFault(
                404, f"model {model!r} not found; this server has: {', '.join(self.models)}", code="model_not_found"
            )
        with self._lock:
            index, self.served = self.served, self.served + 1
        if index < len(self.replies):
            return self.replies[index]
        if self.then == "repeat":
            return self.replies[-1]
        return HTTPFault(
            500,
            f"no scripted reply left ({len(self.replies)} served)",
            code="mock_script_exhausted",
            headers={"x-should-retry": "false"},
        )

    def models_route(self, request) -> tuple:
        names = self.models or [self.model]
        return (
            200,
            {},
            {
                "object": "list",
                "data": [{"id": n, "object": "model", "created": 0, "owned_by": "vero-mock"} for n in names],
            },
        )


def _serve_reply(item: Any) -> Any:
    """One reply of a ``serve`` JSON file as ``MockOpenAIServer`` takes it."""
    from vero._mock_server import Fault, HTTPFault, _check_reply  # lazy: see serve_main

    if isinstance(item, dict) and "status" in item:
        if not isinstance(item["status"], int) or not 400 <= item["status"] <= 599:
            raise ValueError(f"a fault's status must be an HTTP error code (400-599): {item!r}")
        return HTTPFault(
            item["status"], item.get("message", "injected error"), headers=item.get("headers"), code=item.get("code")
        )
    if isinstance(item, dict) and "sleep" in item:
        return Fault.sleep(float(item["sleep"]), _serve_reply(item.get("then", "OK")))
    if isinstance(item, dict) and item.get("disconnect"):
        return Fault.disconnect()
    _check_reply(item)
    if not isinstance(item, (str, dict)):
        raise ValueError(f"a reply must be a string or an object: {item!r}")
    return item


def __getattr__(name: str):
    # The HTTP server lives in its own module; load it only when asked for.
    if name in ("MockOpenAIServer", "HTTPFault", "Fault"):
        from vero import _mock_server  # lazy: see serve_main

        return getattr(_mock_server, name)
    raise AttributeError(f"module 'vero.testing' has no attribute {name!r}")


if __name__ == "__main__":
    sys.exit(serve_main())
