"""What a thirty-first outside probe found in record and replay and in the OpenTelemetry spans: a cassette written
again while a replay had it open answered with another request's reply, a key a reply repeated reached the next
request line of a cassette whole, and a tool span held a key a tool returned."""

from __future__ import annotations

import pytest

from vero import ChatOpenAI, tool
from vero.agents import ReActAgent, ToolCallingAgent
from vero.cassette import Cassette, CassetteError
from vero.core.secrets import key_in_use
from vero.testing import MockOpenAIServer, ScriptedLLM

OTHER_KEY = "sk-test-OTHER-r31-24681357"  # another client's key in this process: masked wherever vero masks keys


@pytest.fixture(autouse=True)
def no_endpoint_settings(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_a_cassette_written_again_while_a_replay_has_it_open_is_an_error_not_another_reply(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer(["Final Answer: Paris", "Final Answer: DELETE ALL ROWS"]) as server:
        record = ChatOpenAI(
            model_name="m", base_url=server.base_url, api_key="sk-x", cassette=Cassette(path, mode="record")
        )
        ReActAgent("a", record, verbose=False).run("Capital of France?")
        replay = Cassette(path, mode="replay")  # where each entry sits, remembered
        again = ChatOpenAI(
            model_name="m", base_url=server.base_url, api_key="sk-x", cassette=Cassette(path, mode="record")
        )
        ReActAgent("a", again, verbose=False).run("What should the cleanup job do?")  # the file recorded again
    offline = ChatOpenAI(model_name="m", base_url="http://127.0.0.1:9/v1", api_key="sk-x", cassette=replay)
    agent = ReActAgent("a", offline, verbose=False)
    agent.run("Capital of France?")
    assert agent.last_result.status == "failed" and "DELETE" not in agent.last_result.answer
    assert isinstance(agent.last_result.error, CassetteError) or "changed while it was in use" in str(
        agent.last_result.error
    )


@tool(read_only=True)
def read_settings() -> str:
    """Read the settings file."""
    return f"search_key={OTHER_KEY}"


def test_a_key_in_use_that_a_tool_returns_is_masked_in_the_next_request_of_a_cassette(tmp_path):
    key_in_use(OTHER_KEY)
    path = tmp_path / "c.jsonl"
    call = {"tool_calls": [{"name": "read_settings", "arguments": {}}]}
    with MockOpenAIServer([call, "Done."]) as server:
        llm = ChatOpenAI(
            model_name="m", base_url=server.base_url, api_key="sk-x", cassette=Cassette(path, mode="record")
        )
        ToolCallingAgent("t", llm, tools=[read_settings], verbose=False).run("Read the settings.")
    written = path.read_text(encoding="utf-8")
    assert "search_key=***" in written and OTHER_KEY not in written


def test_a_tool_span_masks_a_key_in_use_that_the_tool_returns():
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from vero.otel import GenAISpans

    key_in_use(OTHER_KEY)
    exporter, provider = InMemorySpanExporter(), TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    call = {"tool_calls": [{"name": "read_settings", "arguments": {}}]}
    agent = ToolCallingAgent("t", ScriptedLLM([call, "Done."]), tools=[read_settings], verbose=False)
    agent.events.callbacks.append(GenAISpans(provider, capture_content=True))
    agent.run("Read the settings.")
    attributes = [str(value) for span in exporter.get_finished_spans() for value in (span.attributes or {}).values()]
    assert any("search_key=***" in value for value in attributes) and not any(OTHER_KEY in v for v in attributes)
