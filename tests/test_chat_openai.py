"""ChatOpenAI through the real openai client, over real HTTP, against the local mock server."""

import json
import time

import pytest

from vero import ChatOpenAI, LLMCallError, Message
from vero.core.chat_openai import TextStream
from vero.testing import Fault, HTTPFault

FAST_RETRY = {"retry-after-ms": "1"}


@pytest.fixture
def server(shared_mock_server):
    """An empty, running MockOpenAIServer (reused between tests, reset for each: see mock_pool.py)."""
    return shared_mock_server


def make_llm(srv, **kwargs):
    kwargs.setdefault("max_retries", 0)
    return ChatOpenAI(model_name="mock", api_key="sk-test-key", base_url=srv.base_url, **kwargs)


def test_plain_reply_and_request_body(server):
    server.enqueue({"content": "Hello!", "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}})
    llm = make_llm(server, temperature=0.1)
    reply = llm.generate([Message.system("be brief"), {"role": "user", "content": "hi"}], stop=["X"], max_tokens=9)
    assert reply.role == "assistant" and reply.content == "Hello!" and reply.tool_calls is None
    assert reply.usage["total_tokens"] == 7
    body = server.requests[0]
    assert body["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    assert body["model"] == "mock" and body["temperature"] == 0.1 and body["stop"] == ["X"] and body["max_tokens"] == 9
    assert "stream" not in body


def test_usage_accumulates_on_the_instance(server):
    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    server.enqueue({"content": "a", "usage": usage}, {"content": "b", "usage": usage})
    llm = make_llm(server)
    llm.generate([Message.user("1")])
    llm.generate([Message.user("2")])
    assert llm.calls == 2
    assert llm.total_usage == {"prompt_tokens": 6, "completion_tokens": 2, "total_tokens": 8, "cached_tokens": 0}


def test_tool_calls_and_tool_schemas(server):
    from vero import tool

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    server.enqueue({"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 2}, "id": "call_x"}]})
    reply = make_llm(server).generate([Message.user("1+2")], tools=[add], tool_choice="auto")
    assert reply.tool_calls[0].id == "call_x" and reply.tool_calls[0].name == "add"
    assert json.loads(reply.tool_calls[0].arguments) == {"a": 1, "b": 2}
    sent = server.requests[0]
    assert sent["tools"][0]["function"]["name"] == "add" and sent["tool_choice"] == "auto"


def test_streamed_reply_yields_deltas_in_order_and_keeps_the_message(server):
    server.enqueue("one two three four")
    stream = make_llm(server).generate([Message.user("count")], stream=True)
    assert isinstance(stream, TextStream)
    deltas = list(stream)
    assert len(deltas) > 1 and "".join(deltas) == "one two three four"
    assert stream.message.content == "one two three four"
    assert stream.message.usage["total_tokens"] > 0
    assert server.requests[0]["stream"] is True


def test_on_token_streams_and_returns_the_full_message(server):
    server.enqueue(
        {"content": "Hello there world", "usage": {"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4}}
    )
    tokens = []
    llm = make_llm(server)
    reply = llm.generate([Message.user("hi")], on_token=tokens.append)
    assert "".join(tokens) == "Hello there world" and len(tokens) >= 2
    assert reply.content == "Hello there world" and reply.usage["total_tokens"] == 4
    assert llm.calls == 1 and llm.total_usage["total_tokens"] == 4


def test_streamed_tool_calls_are_assembled(server):
    server.enqueue(
        {
            "content": "calling",
            "tool_calls": [
                {"name": "add", "arguments": {"a": 10, "b": 20}, "id": "c1"},
                {"name": "mul", "arguments": {"x": "long argument text " * 3}, "id": "c2"},
            ],
        }
    )
    tokens = []
    reply = make_llm(server).generate([Message.user("go")], on_token=tokens.append)
    assert [(c.id, c.name) for c in reply.tool_calls] == [("c1", "add"), ("c2", "mul")]
    assert json.loads(reply.tool_calls[0].arguments) == {"a": 10, "b": 20}
    assert json.loads(reply.tool_calls[1].arguments) == {"x": "long argument text " * 3}
    assert "".join(tokens) == "calling"


def test_think_tags_go_to_reasoning(server):
    server.enqueue("<think>let me see</think>The answer is 4.", "<think>streamed thought</think>Streamed answer")
    llm = make_llm(server)
    reply = llm.generate([Message.user("2+2")])
    assert reply.content == "The answer is 4." and reply.reasoning == "let me see"
    tokens = []
    streamed = llm.generate([Message.user("again")], on_token=tokens.append)
    assert "think" not in "".join(tokens) and "streamed thought" not in "".join(tokens)
    assert streamed.content == "Streamed answer" and streamed.reasoning == "streamed thought"


def test_reasoning_content_field_goes_to_reasoning(server):
    server.enqueue(
        {"content": "42", "reasoning_content": "deep thought"},
        {"content": "43", "reasoning_content": "streamed deep thought"},
    )
    llm = make_llm(server)
    reply = llm.generate([Message.user("q")])
    assert reply.content == "42" and reply.reasoning == "deep thought"
    tokens = []
    streamed = llm.generate([Message.user("q")], on_token=tokens.append)
    assert "".join(tokens) == "43" and streamed.reasoning == "streamed deep thought"
    assert "reasoning" not in streamed.to_dict()


@pytest.mark.parametrize("status", [429, 500])
def test_transient_error_then_success_is_retried_by_the_sdk(server, status):
    server.enqueue(HTTPFault(status, headers=FAST_RETRY), "recovered")
    llm = make_llm(server, max_retries=2)
    assert llm.generate([Message.user("q")]).content == "recovered"
    assert len(server.requests) == 2 and llm.calls == 1


def test_persistent_500_becomes_llm_call_error_with_status(server):
    server.enqueue(*[HTTPFault(500, "server on fire", headers=FAST_RETRY)] * 3)
    llm = make_llm(server, max_retries=2)
    with pytest.raises(LLMCallError) as info:
        llm.generate([Message.user("q")])
    assert info.value.status == 500
    assert "server on fire" in str(info.value)
    assert type(info.value.__cause__).__name__ == "InternalServerError"
    assert len(server.requests) == 3  # first try + 2 retries
    assert llm.calls == 0


def test_timeout_becomes_llm_call_error(server):
    server.enqueue(Fault.sleep(2.0, then="too late"))
    llm = make_llm(server, timeout=0.3)
    started = time.perf_counter()
    with pytest.raises(LLMCallError) as info:
        llm.generate([Message.user("q")])
    assert time.perf_counter() - started < 1.5
    assert info.value.status is None
    assert "Timeout" in type(info.value.__cause__).__name__


def test_error_message_never_contains_the_key(server):
    key = "sk-leaky-1234567890"
    server.enqueue(HTTPFault(401, f"Incorrect API key provided: {key}"))
    llm = ChatOpenAI(model_name="m", api_key=key, base_url=server.base_url, max_retries=0)
    with pytest.raises(LLMCallError) as info:
        llm.generate([Message.user("q")])
    assert info.value.status == 401 and key not in str(info.value) and "***" in str(info.value)


def test_empty_choices_is_a_call_error(server):
    server.enqueue({"choices": []})
    with pytest.raises(LLMCallError, match="no choices"):
        make_llm(server).generate([Message.user("q")])


def test_null_content_without_tool_calls_is_an_empty_message(server):
    server.enqueue({"content": None})
    reply = make_llm(server).generate([Message.user("q")])
    assert reply.content == "" and reply.tool_calls is None


@pytest.mark.parametrize(
    "fault",
    [
        Fault.disconnect_mid_stream(after_chunks=2, content="partial answer here"),
        Fault.malformed_chunk(content="some text"),
    ],
)
def test_broken_stream_becomes_llm_call_error(server, fault):
    server.enqueue(fault)
    with pytest.raises(LLMCallError) as info:
        list(make_llm(server).generate([Message.user("q")], stream=True))
    assert info.value.status is None and info.value.__cause__ is not None


def test_connection_refused_is_llm_call_error_without_status():
    llm = ChatOpenAI(model_name="m", api_key="k", base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=2)
    with pytest.raises(LLMCallError) as info:
        llm.generate([Message.user("q")])
    assert info.value.status is None and "Connection" in str(info.value)


def test_instances_with_the_same_settings_share_one_sdk_client(server):
    first, second = make_llm(server), make_llm(server)
    other = make_llm(server, timeout=5)
    assert first.client is second.client
    assert other.client is not first.client
    assert first.total_usage is not second.total_usage  # usage stays per instance


def test_temperature_comes_from_the_settings_unless_given(server, monkeypatch):
    from vero.config import reload_settings

    monkeypatch.setenv("TEMPERATURE", "0.1")
    reload_settings()
    server.enqueue("a", "b", "c")
    make_llm(server).generate([Message.user("q")])
    make_llm(server, temperature=0.9).generate([Message.user("q")])
    make_llm(server).generate([Message.user("q")], temperature=0.0)
    assert [r["temperature"] for r in server.requests] == [0.1, 0.9, 0.0]


@pytest.mark.parametrize(
    "body",
    [
        {"choices": [None]},
        {"choices": ["oops"]},
        {"choices": [{"message": {"content": ["part"]}}]},
        {"choices": [{"message": {"content": None, "tool_calls": [{"id": "c", "function": None}]}}]},
    ],
    ids=["null-choice", "string-choice", "list-content", "null-function"],
)
def test_malformed_200_bodies_become_llm_call_errors(server, body):
    server.enqueue({"raw": body})
    with pytest.raises(LLMCallError, match="malformed response"):
        make_llm(server).generate([Message.user("q")])


def test_a_non_object_body_is_an_llm_call_error(server):
    server.enqueue({"raw": ["not", "an", "object"]})
    with pytest.raises(LLMCallError, match="other than a JSON object"):
        make_llm(server).generate([Message.user("q")])
