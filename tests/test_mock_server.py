"""Tests for vero._mock_server.MockOpenAIServer, driven by the real openai client."""

from __future__ import annotations

import http.client
import json
import time

import openai
import pytest
from openai import OpenAI

from vero._mock_server import Fault, HTTPFault, MockOpenAIServer, RecordedRequest

MESSAGES = [{"role": "user", "content": "Hi there"}]


def make_client(srv: MockOpenAIServer, **kwargs) -> OpenAI:
    kwargs.setdefault("max_retries", 0)
    return OpenAI(api_key="test", base_url=srv.base_url, **kwargs)


def chat(client: OpenAI, **kwargs):
    kwargs.setdefault("model", "test-model")
    kwargs.setdefault("messages", MESSAGES)
    return client.chat.completions.create(**kwargs)


def assemble_tool_calls(chunks) -> list[dict]:
    """Rebuild tool calls from OpenAI's incremental stream deltas."""
    calls: dict[int, dict] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or []:
                call = calls.setdefault(delta.index, {"id": None, "name": "", "arguments": ""})
                if delta.id:
                    call["id"] = delta.id
                if delta.function and delta.function.name:
                    call["name"] += delta.function.name
                if delta.function and delta.function.arguments:
                    call["arguments"] += delta.function.arguments
    return [calls[i] for i in sorted(calls)]


# -- plain replies -----------------------------------------------------------


def test_plain_reply_and_recorded_request():
    with MockOpenAIServer(["Hello!"]) as srv:
        response = chat(make_client(srv), temperature=0.5)
    assert response.choices[0].message.content == "Hello!"
    assert response.choices[0].message.role == "assistant"
    assert response.choices[0].finish_reason == "stop"
    assert response.model == "test-model"
    assert response.id == "chatcmpl-mock-1"
    assert response.usage.prompt_tokens == len("Hi there") // 4 + 1
    assert response.usage.completion_tokens == len("Hello!") // 4 + 1
    assert response.usage.total_tokens == response.usage.prompt_tokens + response.usage.completion_tokens
    assert srv.requests == [{"model": "test-model", "messages": MESSAGES, "temperature": 0.5}]
    [record] = srv.request_log
    assert isinstance(record, RecordedRequest)
    assert (record.method, record.path) == ("POST", "/v1/chat/completions")
    assert record.headers["authorization"] == "Bearer test"
    assert record.raw_bytes == len(record.content) > 0
    assert srv.remaining == 0
    assert len(srv.handler_seconds) == 1


def test_tool_call_reply():
    reply = {
        "tool_calls": [
            {"name": "add", "arguments": {"a": 1, "b": 2}},
            {"name": "echo", "arguments": '{"text": "x"}', "id": "my_id"},
        ]
    }
    with MockOpenAIServer([reply]) as srv:
        message_choice = chat(make_client(srv)).choices[0]
    assert message_choice.finish_reason == "tool_calls"
    assert message_choice.message.content is None
    first, second = message_choice.message.tool_calls
    assert first.type == "function" and first.id.startswith("call_")
    assert first.function.name == "add"
    assert json.loads(first.function.arguments) == {"a": 1, "b": 2}
    assert (second.id, second.function.name, second.function.arguments) == ("my_id", "echo", '{"text": "x"}')


def test_enqueue_remaining_and_callable_reply():
    srv = MockOpenAIServer()
    srv.enqueue("one", lambda body: f"you said {body['messages'][-1]['content']}")
    assert srv.remaining == 2
    with srv:
        client = make_client(srv)
        assert chat(client).choices[0].message.content == "one"
        assert chat(client).choices[0].message.content == "you said Hi there"
    assert srv.remaining == 0


def test_invalid_reply_rejected_at_enqueue():
    with pytest.raises(ValueError):
        MockOpenAIServer([{"contnet": "typo"}])
    with pytest.raises(TypeError):
        MockOpenAIServer([42])


def test_models_endpoint_and_404():
    with MockOpenAIServer(model="my-model") as srv:
        assert [m.id for m in make_client(srv).models.list()] == ["my-model"]
        conn = http.client.HTTPConnection("127.0.0.1", srv.port)
        conn.request("GET", "/v1/nothing")
        response = conn.getresponse()
        body = json.loads(response.read())
        conn.close()
    assert response.status == 404
    assert "no route for GET /v1/nothing" in body["error"]["message"]


def test_path_without_v1_prefix():
    with MockOpenAIServer(["no prefix"]) as srv:
        client = OpenAI(api_key="test", base_url=srv.url, max_retries=0)
        assert chat(client).choices[0].message.content == "no prefix"
    assert srv.request_log[0].path == "/chat/completions"


# -- streaming ---------------------------------------------------------------


def test_streamed_content_in_order_with_usage():
    text = "The quick brown fox jumps over the lazy dog."
    with MockOpenAIServer([text]) as srv:
        chunks = list(chat(make_client(srv), stream=True, stream_options={"include_usage": True}))
    assert chunks[0].choices[0].delta.role == "assistant"
    deltas = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert deltas == ["The ", "quick ", "brown ", "fox ", "jumps ", "over ", "the ", "lazy ", "dog."]
    assert "".join(deltas) == text
    assert chunks[-2].choices[0].finish_reason == "stop"
    assert chunks[-1].choices == []
    assert chunks[-1].usage.completion_tokens == len(text) // 4 + 1


def test_stream_without_usage_and_fixed_chunk_size():
    with MockOpenAIServer(["abcdefghij"], stream_chunk_chars=4) as srv:
        chunks = list(chat(make_client(srv), stream=True))
    deltas = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert deltas == ["abcd", "efgh", "ij"]
    assert all(c.usage is None for c in chunks)


def test_streamed_tool_calls_reassembled():
    reply = {
        "content": "Let me add.",
        "tool_calls": [
            {"name": "add", "arguments": {"a": 1, "b": 2}},
            {"name": "mul", "arguments": {"x": 10, "y": 20}, "id": "call_mul"},
        ],
    }
    with MockOpenAIServer([reply]) as srv:
        chunks = list(chat(make_client(srv), stream=True))
    calls = assemble_tool_calls(chunks)
    assert [c["name"] for c in calls] == ["add", "mul"]
    assert json.loads(calls[0]["arguments"]) == {"a": 1, "b": 2}
    assert json.loads(calls[1]["arguments"]) == {"x": 10, "y": 20}
    assert calls[1]["id"] == "call_mul"
    # arguments arrive in several pieces, after a first delta that carries id and name
    first_deltas = [c.choices[0].delta.tool_calls[0] for c in chunks if c.choices[0].delta.tool_calls]
    assert first_deltas[0].id and first_deltas[0].function.arguments == ""
    assert sum(1 for d in first_deltas if d.index == 0) >= 3
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_reasoning_content_plain_and_streamed():
    reply = {"reasoning_content": "Think first.", "content": "Answer."}
    with MockOpenAIServer([reply, reply]) as srv:
        client = make_client(srv)
        message = chat(client).choices[0].message
        chunks = list(chat(client, stream=True))
    # openai's pydantic models keep unknown fields as extras
    assert message.model_extra["reasoning_content"] == "Think first."
    assert message.reasoning_content == "Think first."
    reasoning = [getattr(c.choices[0].delta, "reasoning_content", None) for c in chunks]
    assert "".join(r for r in reasoning if r) == "Think first."
    # reasoning deltas come before content deltas
    first_content = next(i for i, c in enumerate(chunks) if c.choices[0].delta.content)
    last_reasoning = max(i for i, r in enumerate(reasoning) if r)
    assert last_reasoning < first_content


def test_empty_choices_and_raw():
    raw = {
        "id": "x",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "raw!"}, "finish_reason": "stop"}],
    }
    with MockOpenAIServer([{"choices": []}, {"raw": raw}]) as srv:
        client = make_client(srv)
        assert chat(client).choices == []
        assert chat(client).choices[0].message.content == "raw!"


# -- HTTP errors and transport faults ----------------------------------------


def test_429_then_success_is_retried():
    # openai ignores "Retry-After: 0" (only delays > 0 count) and falls back to
    # ~0.5 s backoff; "retry-after-ms" keeps the retry fast.
    with MockOpenAIServer([HTTPFault(429, headers={"retry-after-ms": "1"}), "after retry"]) as srv:
        started = time.perf_counter()
        response = chat(make_client(srv, max_retries=2))
        elapsed = time.perf_counter() - started
    assert response.choices[0].message.content == "after retry"
    assert len(srv.request_log) == 2
    assert srv.request_log[1].headers["x-stainless-retry-count"] == "1"
    assert elapsed < 0.4


def test_persistent_500_raises_internal_server_error():
    with MockOpenAIServer([HTTPFault(500, "boom")]) as srv:
        with pytest.raises(openai.InternalServerError) as info:
            chat(make_client(srv))
    assert info.value.status_code == 500
    assert info.value.body["message"] == "boom"


def test_http_fault_custom_body_and_status():
    with MockOpenAIServer([HTTPFault(400, "bad request", code="context_length_exceeded")]) as srv:
        with pytest.raises(openai.BadRequestError) as info:
            chat(make_client(srv))
    assert info.value.code == "context_length_exceeded"
    assert info.value.body["type"] == "invalid_request_error"


def test_sleep_triggers_client_timeout():
    with MockOpenAIServer([Fault.sleep(2.0)]) as srv:
        started = time.perf_counter()
        with pytest.raises(openai.APITimeoutError):
            chat(make_client(srv, timeout=0.3))
        assert time.perf_counter() - started < 1.5


def test_sleep_then_reply():
    with MockOpenAIServer([Fault.sleep(0.05, then="late")]) as srv:
        assert chat(make_client(srv)).choices[0].message.content == "late"


def test_disconnect_raises_connection_error():
    with MockOpenAIServer([Fault.disconnect()]) as srv:
        with pytest.raises(openai.APIConnectionError) as info:
            chat(make_client(srv))
    assert not isinstance(info.value, openai.APITimeoutError)


def test_disconnect_then_retry_succeeds(quick_sdk_backoff):
    with MockOpenAIServer([Fault.disconnect(), "second try"]) as srv:
        assert chat(make_client(srv, max_retries=1)).choices[0].message.content == "second try"
    assert len(srv.requests) == 2


def test_disconnect_mid_stream():
    with MockOpenAIServer([Fault.disconnect_mid_stream(after_chunks=3, content="one two three four five")]) as srv:
        received = []
        with pytest.raises(openai.APIConnectionError):
            for chunk in chat(make_client(srv), stream=True):
                received.append(chunk.choices[0].delta.content)
    assert received == [None, "one ", "two "]


def test_disconnect_mid_response_when_not_streamed():
    with MockOpenAIServer([Fault.disconnect_mid_stream()]) as srv:
        with pytest.raises(openai.APIConnectionError):
            chat(make_client(srv))


def test_malformed_chunk_raises():
    with MockOpenAIServer([Fault.malformed_chunk("a b c d e f")]) as srv:
        with pytest.raises(Exception) as info:
            list(chat(make_client(srv), stream=True))
    assert isinstance(info.value, json.JSONDecodeError)  # the openai client does not wrap it


def test_exhausted_script_returns_500():
    with MockOpenAIServer(["only one"]) as srv:
        client = make_client(srv, max_retries=2)  # x-should-retry: false stops retries
        chat(client)
        with pytest.raises(openai.InternalServerError) as info:
            chat(client)
    assert "MockOpenAIServer: no scripted reply left (1 requests served)" in str(info.value)
    assert len(srv.request_log) == 2


def test_responder_fallback():
    seen = []

    def responder(body):
        seen.append(body)
        return {"content": f"auto {len(seen)}"}

    with MockOpenAIServer(["scripted"], responder=responder) as srv:
        client = make_client(srv)
        contents = [chat(client).choices[0].message.content for _ in range(3)]
    assert contents == ["scripted", "auto 1", "auto 2"]
    assert seen[0]["messages"] == MESSAGES


def test_failing_reply_function_reports_500():
    def broken(body):
        raise RuntimeError("oops")

    with MockOpenAIServer([broken]) as srv:
        with pytest.raises(openai.InternalServerError) as info:
            chat(make_client(srv))
    assert "oops" in str(info.value)
    assert isinstance(srv.errors[0], RuntimeError)


# -- custom routes -----------------------------------------------------------


def test_add_route():
    def search(request: RecordedRequest):
        return 200, {"X-Total": "1"}, {"results": [{"title": f"About {request.query['q']}"}]}

    with MockOpenAIServer() as srv:
        srv.add_route("GET", "/search", search)
        srv.add_route("POST", "/echo", lambda r: (201, {}, r.content.decode().upper()))
        conn = http.client.HTTPConnection("127.0.0.1", srv.port)
        conn.request("GET", "/search?q=cats")
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("x-total") == "1"
        assert json.loads(response.read()) == {"results": [{"title": "About cats"}]}
        conn.request("POST", "/echo", body=b"hello")
        response = conn.getresponse()
        assert (response.status, response.read()) == (201, b"HELLO")
        conn.close()
    assert [r.path for r in srv.request_log] == ["/search?q=cats", "/echo"]
    assert srv.requests == []


# -- performance-related behaviour -------------------------------------------


def test_keep_alive_reuses_connections():
    with MockOpenAIServer(["ok"] * 20) as srv:
        client = make_client(srv)
        for _ in range(20):
            chat(client)
    assert len(srv.requests) == 20
    assert srv.connections_accepted <= 2


def test_streams_keep_connection_alive_when_read_to_the_end():
    # The openai client stops reading at "data: [DONE]" and so closes the
    # connection after every stream (as with the real API); a client that
    # reads the chunked body to its end can reuse the connection.
    with MockOpenAIServer(["one two", "three"]) as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port)
        bodies = []
        for _ in range(2):
            request = {"model": "m", "messages": MESSAGES, "stream": True}
            conn.request(
                "POST", "/v1/chat/completions", body=json.dumps(request), headers={"Content-Type": "application/json"}
            )
            response = conn.getresponse()
            assert response.getheader("content-type") == "text/event-stream"
            bodies.append(response.read().decode())
        conn.close()
    assert srv.connections_accepted == 1
    for body in bodies:
        events = [line[len("data: ") :] for line in body.split("\n\n") if line]
        assert events[-1] == "[DONE]"
        assert [json.loads(e)["object"] for e in events[:-1]] == ["chat.completion.chunk"] * (len(events) - 1)


def test_latency_honoured():
    with MockOpenAIServer(["slow"], latency=0.1) as srv:
        client = make_client(srv)
        started = time.perf_counter()
        chat(client)
        elapsed = time.perf_counter() - started
    assert elapsed >= 0.1
    assert srv.handler_seconds[0] >= 0.1
    assert srv.sleep_seconds >= 0.1


def test_stop_is_prompt_with_idle_keep_alive_connection():
    srv = MockOpenAIServer(["ok"]).start()
    client = make_client(srv)
    chat(client)  # leaves an idle keep-alive connection open
    started = time.perf_counter()
    srv.stop()
    assert time.perf_counter() - started < 1.0
    with pytest.raises(RuntimeError):
        srv.base_url  # noqa: B018 (the property raises)
