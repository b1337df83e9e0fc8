"""vero.otel: a run as OpenTelemetry spans (GenAI semantic conventions), checked with the SDK's in-memory exporter."""

import asyncio
import json
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import SpanKind, StatusCode  # noqa: E402

from vero import tool  # noqa: E402
from vero.agents import PlanExecuteAgent, ToolCallingAgent  # noqa: E402
from vero.errors import LLMCallError  # noqa: E402
from vero.otel import CAPTURE_ENV, INSTALL_HINT, GenAISpans  # noqa: E402
from vero.testing import ScriptedLLM  # noqa: E402


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


@pytest.fixture
def exporter():
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def adding_run(provider, *replies, tools=(add,), capture_content=False, **call):
    script = [
        {
            "tool_calls": [{"name": tools[0].name, "arguments": call or {"a": 2, "b": 3}}],
            "usage": {"prompt_tokens": 40, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 16}},
        },
        *(replies or [{"content": "The sum is 5.", "finish_reason": "stop"}]),
    ]
    agent = ToolCallingAgent(
        "adder",
        ScriptedLLM(script, model_name="small-model"),
        tools=list(tools),
        verbose=False,
        callbacks=[GenAISpans(provider, capture_content=capture_content)],
    )
    agent.run("What is 2 + 3?")
    return agent


def by_name(exporter):
    return {span.name: span for span in exporter.get_finished_spans()}


def test_a_run_is_an_invoke_agent_span_with_chat_and_execute_tool_spans_inside(provider, exporter):
    adding_run(provider)
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["chat small-model", "execute_tool add", "chat small-model", "invoke_agent adder"]
    root = spans[-1]
    assert all(s.parent.span_id == root.context.span_id for s in spans[:-1])
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["gen_ai.agent.name"] == "adder" and root.attributes["vero.run.status"] == "ok"
    assert root.status.status_code == StatusCode.UNSET


def test_chat_spans_carry_the_model_usage_and_finish_reasons(provider, exporter):
    adding_run(provider)
    first, _, last = exporter.get_finished_spans()[:3]
    assert first.kind == SpanKind.CLIENT
    assert first.attributes["gen_ai.operation.name"] == "chat"
    assert first.attributes["gen_ai.request.model"] == "small-model"
    assert (
        first.attributes["gen_ai.usage.input_tokens"],
        first.attributes["gen_ai.usage.output_tokens"],
        first.attributes["gen_ai.usage.cache_read.input_tokens"],
    ) == (40, 5, 16)
    assert tuple(last.attributes["gen_ai.response.finish_reasons"]) == ("stop",)
    assert first.attributes["gen_ai.agent.name"] == "adder"


def test_execute_tool_spans_carry_the_tool_and_the_call_id(provider, exporter):
    adding_run(provider)
    span = by_name(exporter)["execute_tool add"]
    assert span.attributes["gen_ai.operation.name"] == "execute_tool"
    assert span.attributes["gen_ai.tool.name"] == "add" and span.attributes["gen_ai.tool.call.id"] == "call_1"
    assert span.status.status_code == StatusCode.UNSET


def test_a_failed_tool_call_is_an_error_span(provider, exporter):
    adding_run(provider, "Cannot divide by zero.", tools=(divide,), a=1, b=0)
    span = by_name(exporter)["execute_tool divide"]
    assert span.status.status_code == StatusCode.ERROR and span.attributes["error.type"] == "exception"


def test_a_failed_model_call_ends_its_span_and_the_run_span_with_an_error(provider, exporter):
    adding_run(provider, LLMCallError("model call failed (HTTP 500)", status=500))
    spans = exporter.get_finished_spans()
    failed, root = spans[-2], spans[-1]
    assert failed.name == "chat small-model" and failed.status.status_code == StatusCode.ERROR
    assert failed.attributes["error.type"] == "LLMCallError"
    assert root.status.status_code == StatusCode.ERROR and root.attributes["vero.run.status"] == "failed"


def test_message_content_is_left_out_unless_turned_on(provider, exporter, monkeypatch):
    monkeypatch.delenv(CAPTURE_ENV, raising=False)
    adding_run(provider)
    attributes = [key for span in exporter.get_finished_spans() for key in span.attributes]
    assert not [
        key
        for key in attributes
        if key
        in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result")
    ]
    assert "What is 2 + 3?" not in json.dumps([dict(s.attributes) for s in exporter.get_finished_spans()])


@pytest.mark.parametrize("by_env", [False, True])
def test_message_content_when_turned_on(provider, exporter, monkeypatch, by_env):
    monkeypatch.setenv(CAPTURE_ENV, "true" if by_env else "false")
    adding_run(provider, capture_content=None if by_env else True)
    spans = by_name(exporter)
    chat = exporter.get_finished_spans()[0]
    assert json.loads(chat.attributes["gen_ai.input.messages"])[-1] == {"role": "user", "content": "What is 2 + 3?"}
    assert json.loads(chat.attributes["gen_ai.output.messages"])[0]["tool_calls"][0]["function"]["name"] == "add"
    assert json.loads(spans["execute_tool add"].attributes["gen_ai.tool.call.arguments"]) == {"a": 2, "b": 3}
    assert spans["execute_tool add"].attributes["gen_ai.tool.call.result"] == "5"


def test_a_sub_agents_calls_are_spans_inside_the_run(provider, exporter):
    llm = ScriptedLLM(
        [
            json.dumps({"steps": ["Add 2 and 3."]}),
            'Thought: add\nAction: add\nAction Input: {"a": 2, "b": 3}',
            "Thought: done\nFinal Answer: 5",
            json.dumps({"response": "The answer is 5."}),
        ],  # the replanner answers
        model_name="small-model",
    )
    PlanExecuteAgent("planner", llm, tools=[add], verbose=False, callbacks=[GenAISpans(provider)]).run("2 + 3?")
    spans = exporter.get_finished_spans()
    names = [s.name for s in spans]
    assert names.count("chat small-model") == 4 and names.count("execute_tool add") == 1
    root = spans[-1]
    assert root.name == "invoke_agent planner"
    assert all(s.parent.span_id == root.context.span_id for s in spans[:-1])
    assert {s.attributes["gen_ai.agent.name"] for s in spans[:-1]} > {"planner"}  # the executor's own name too


def test_a_streamed_or_async_run_nests_in_the_callers_current_span(provider, exporter):
    tracer = trace.get_tracer("test", tracer_provider=provider)
    agent = ToolCallingAgent("t", ScriptedLLM(["one", "two"]), verbose=False, callbacks=[GenAISpans(provider)])
    with tracer.start_as_current_span("request") as outer:
        list(agent.stream("hi"))
        asyncio.run(agent.arun("again"))
    roots = [s for s in exporter.get_finished_spans() if s.name == "invoke_agent t"]
    assert len(roots) == 2 and all(s.parent.span_id == outer.get_span_context().span_id for s in roots)


def test_without_opentelemetry_the_listener_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "opentelemetry", None)
    with pytest.raises(ImportError, match="vero\\[otel\\]"):
        GenAISpans()
    assert "pip install" in INSTALL_HINT


def test_vero_never_imports_opentelemetry_on_its_own():
    code = textwrap.dedent("""
        import sys
        import vero
        from vero.agents import ToolCallingAgent
        from vero.testing import ScriptedLLM
        agent = ToolCallingAgent("t", ScriptedLLM(["hello", "again"]), verbose=False)
        agent.run("hi")
        list(agent.stream("hi"))
        print(sorted(name for name in sys.modules if name.startswith("opentelemetry")))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_otel_extra_installs_every_opentelemetry_package_the_documented_example_imports():
    import re
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    root = Path(__file__).resolve().parent.parent
    extra = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]["otel"]
    installed = {re.split(r"[<>=!~ ;\[]", requirement)[0] for requirement in extra}
    imported = set(re.findall(r"^from opentelemetry\.(\w+)", (root / "docs" / "tracing.md").read_text(), re.M))
    needed = {"opentelemetry-sdk" if module == "sdk" else "opentelemetry-api" for module in imported}
    assert imported and needed <= installed, (needed, installed)
