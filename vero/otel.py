"""OpenTelemetry spans for a run, after the GenAI semantic conventions (optional: ``pip install "vero[otel]"``).

Add ``GenAISpans()`` to an agent's callbacks and each run becomes a span
``invoke_agent {agent}`` with, inside it, one ``chat {model}`` span per model
call and one ``execute_tool {tool}`` span per tool call (sub-agents' calls
included), sent to the tracer provider you configured::

    from vero.otel import GenAISpans
    agent = ToolCallingAgent("helper", llm, tools=tools, callbacks=[GenAISpans()])

Attributes: ``gen_ai.operation.name``, ``gen_ai.agent.name``,
``gen_ai.request.model`` (and its output cap, temperature, stop sequences),
``gen_ai.response.finish_reasons``, ``gen_ai.usage.input_tokens`` /
``output_tokens`` / ``cache_read.input_tokens``, ``gen_ai.tool.name``,
``gen_ai.tool.call.id``.  Message content (the messages sent, the reply, tool
arguments and results) only with ``capture_content=True``, or when
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` is ``true``.

Spans are opened and closed from the agent's events, on the thread the run
runs on, and each is made the current span while it is open (an instrumented
HTTP client nests its spans inside ``chat``).  vero itself never imports
OpenTelemetry: only this module does, when you use it.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

from vero._version import __version__
from vero.core.events import Event
from vero.core.result import token_counts
from vero.core.secrets import hide_secrets, hide_secrets_in

CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
INSTALL_HINT = 'vero.otel needs OpenTelemetry: pip install "vero[otel]" (the opentelemetry-api package)'


class GenAISpans:
    """An event listener that turns a run into OpenTelemetry spans (see the module's docstring).

    ``tracer_provider``: where the spans go (default: the global one, ``trace.set_tracer_provider``).
    ``capture_content``: record message content too (default: the environment variable ``CAPTURE_ENV``).
    """

    def __init__(self, tracer_provider: Any = None, capture_content: bool | None = None) -> None:
        try:
            from opentelemetry import context, trace
        except ImportError as exc:
            raise ImportError(INSTALL_HINT) from exc
        self._trace, self._context = trace, context
        self.tracer = trace.get_tracer("vero", __version__, tracer_provider=tracer_provider)
        if capture_content is None:
            capture_content = os.environ.get(CAPTURE_ENV, "").strip().lower() == "true"
        self.capture_content = capture_content
        self._local = threading.local()  # per run thread: the open spans, innermost last

    # -- the listener ------------------------------------------------------------------------
    def __call__(self, event: Event) -> None:
        handler = getattr(self, f"_on_{event.type}", None)
        if handler is not None:
            handler(event, event.data)

    def _on_run_start(self, event: Event, data: dict[str, Any]) -> None:
        self._open(
            "invoke_agent",
            f"invoke_agent {event.agent}",
            self._trace.SpanKind.INTERNAL,
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": event.agent},
        )

    def _on_llm_start(self, event: Event, data: dict[str, Any]) -> None:
        request = data.get("request") or {}
        model = str(request.get("model", ""))
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": model,
            "gen_ai.agent.name": data.get("subagent", event.agent),
        }
        for name, key in (
            ("max_tokens", "gen_ai.request.max_tokens"),
            ("max_completion_tokens", "gen_ai.request.max_tokens"),  # a reasoning model's cap (vero.core.providers)
            ("temperature", "gen_ai.request.temperature"),
        ):
            if isinstance(request.get(name), (int, float)):
                attributes[key] = request[name]
        stop = request.get("stop")
        if stop:
            attributes["gen_ai.request.stop_sequences"] = [stop] if isinstance(stop, str) else list(map(str, stop))
        if self.capture_content:
            attributes["gen_ai.input.messages"] = _json(request.get("messages") or [])
            if request.get("tools"):
                attributes["gen_ai.tool.definitions"] = _json(request["tools"])
        self._open("chat", f"chat {model}".strip(), self._trace.SpanKind.CLIENT, attributes)

    def _on_llm_call(self, event: Event, data: dict[str, Any]) -> None:
        span = self._close_to("chat")
        if span is None:
            return
        reply = data.get("reply") or {}
        usage = data.get("usage")
        counts = token_counts(usage) if isinstance(usage, dict) and usage else {}
        if reply.get("finish_reason"):
            span.set_attribute("gen_ai.response.finish_reasons", [str(reply["finish_reason"])])
        for key, attribute in (
            ("prompt_tokens", "gen_ai.usage.input_tokens"),
            ("completion_tokens", "gen_ai.usage.output_tokens"),
            ("cached_tokens", "gen_ai.usage.cache_read.input_tokens"),
        ):
            if key in counts:
                span.set_attribute(attribute, counts[key])
        if self.capture_content:
            span.set_attribute("gen_ai.output.messages", _json([{"role": "assistant", **reply}]))
        self._end(span)

    def _on_llm_error(self, event: Event, data: dict[str, Any]) -> None:
        span = self._close_to("chat")
        if span is not None:
            self._fail(span, str(data.get("error") or "error"))
            self._end(span)

    def _on_tool_call(self, event: Event, data: dict[str, Any]) -> None:
        tool = str(data.get("tool", ""))
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.type": "function",
            "gen_ai.agent.name": data.get("subagent", event.agent),
        }
        if data.get("call_id"):
            attributes["gen_ai.tool.call.id"] = str(data["call_id"])
        if self.capture_content:
            args = hide_secrets_in(data.get("args"), ())  # a key a model or a tool repeats, masked as elsewhere
            attributes["gen_ai.tool.call.arguments"] = args if isinstance(args, str) else _json(args)
        self._open("execute_tool", f"execute_tool {tool}", self._trace.SpanKind.INTERNAL, attributes)

    def _on_tool_result(self, event: Event, data: dict[str, Any]) -> None:
        span = self._close_to("execute_tool")
        if span is None:
            return
        if self.capture_content:
            span.set_attribute("gen_ai.tool.call.result", hide_secrets(str(data.get("output", "")), ()))
        if not data.get("ok", True):
            self._fail(span, str(data.get("error") or "tool_error"))
        self._end(span)

    def _on_run_end(self, event: Event, data: dict[str, Any]) -> None:
        while self._stack:
            kind, span, token = self._stack.pop()
            self._context.detach(token)
            if kind != "invoke_agent":  # a call the run left open (it raised): it failed
                self._fail(span, str(data.get("error") or "the run ended during the call"))
                span.end()
                continue
            span.set_attribute("vero.run.status", str(data.get("status", "")))
            if data.get("error"):
                self._fail(span, str(data["error"]))
            span.end()
            return

    # -- the open spans ----------------------------------------------------------------------
    @property
    def _stack(self) -> list[tuple[str, Any, Any]]:
        stack: list[tuple[str, Any, Any]] | None = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def _open(self, kind: str, name: str, span_kind: Any, attributes: dict[str, Any]) -> None:
        span = self.tracer.start_span(name, kind=span_kind, attributes=attributes)
        token = self._context.attach(self._trace.set_span_in_context(span))
        self._stack.append((kind, span, token))

    def _close_to(self, kind: str) -> Any:
        """The innermost open span of ``kind``, taken off the stack (with anything opened inside it)."""
        stack = self._stack
        if not any(entry[0] == kind for entry in stack):
            return None
        while stack:
            entry_kind, span, token = stack.pop()
            self._context.detach(token)
            if entry_kind == kind:
                return span
            span.end()  # left open inside it: cannot happen with vero's own events
        return None

    def _end(self, span: Any) -> None:
        span.end()

    def _fail(self, span: Any, description: str) -> None:
        from opentelemetry.trace import Status, StatusCode

        span.set_status(Status(StatusCode.ERROR, description))
        span.set_attribute("error.type", description.split(":", 1)[0] or "error")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
