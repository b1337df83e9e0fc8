"""ChatOpenAI and bad input from a server, through the real openai client over real HTTP: error bodies sent
with a 200, Retry-After waits past MAX_CALL_SECONDS, streams cut mid-event, servers that do not stream,
and streamed fields of the wrong type.  Each ends in a defined outcome, never a silent success."""

from __future__ import annotations

import email.utils
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from vero import ChatOpenAI, LLMCallError, Message
from vero.testing import HTTPFault

KEY = "sk-test-SECRET123456"


@pytest.fixture
def server(shared_mock_server):
    """An empty, running MockOpenAIServer (reused between tests, reset for each: see mock_pool.py)."""
    return shared_mock_server


def make_llm(base_url: str, **kwargs) -> ChatOpenAI:
    kwargs.setdefault("max_retries", 0)
    return ChatOpenAI(model_name="m", api_key=KEY, base_url=base_url, **kwargs)


def chunk(delta: dict | None, finish_reason: str | None = None) -> dict:
    return {"id": "c", "object": "chat.completion.chunk", "choices": [{"delta": delta, "finish_reason": finish_reason}]}


def completion(content: str) -> dict:
    message = {"role": "assistant", "content": content}
    return {
        "id": "c",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


@contextmanager
def close_delimited(body: bytes) -> Iterator[str]:
    """A server whose event-stream body has no Content-Length and no chunking: its end is the connection's
    close (HTTP/1.0 servers, some proxies), so a cut body looks like a whole one to HTTP.  Yields a base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # HTTP/1.0: the connection closes after each reply
    threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def sse(*events: dict) -> bytes:
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)


@pytest.mark.parametrize("stream", [False, True])
def test_a_200_error_body_echoing_the_key_is_masked(server, stream):
    server.enqueue(HTTPFault(200, body={"error": {"message": f"Incorrect API key provided: {KEY}"}}))
    with pytest.raises(LLMCallError, match="Incorrect API key provided") as caught:
        make_llm(server.base_url).generate([Message.user("hi")], on_token=(lambda _: None) if stream else None)
    assert KEY not in str(caught.value) and KEY[-6:] not in str(caught.value)


@pytest.fixture
def no_long_sleep(monkeypatch):
    """Fail at once where the SDK would sleep for long before a retry (the bug: it slept past the deadline)."""
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        assert seconds < 5, f"slept {seconds:.1f} s before a retry"
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", sleep)


@pytest.mark.parametrize(
    "retry_after",
    [lambda: "90", lambda: email.utils.formatdate(time.time() + 30, usegmt=True)],
    ids=["seconds-over-60", "http-date"],
)
def test_a_retry_after_past_the_deadline_ends_the_call_at_once(server, no_long_sleep, retry_after):
    server.enqueue(HTTPFault(429, "slow down", headers={"retry-after": retry_after()}), "too late")
    llm = make_llm(server.base_url, max_retries=2, max_call_seconds=1)
    started = time.monotonic()
    with pytest.raises(
        LLMCallError, match=r"asked to wait \d+(\.\d)? s before a retry, more than the .* s left of"
    ) as e:
        llm.generate([Message.user("hi")])
    assert time.monotonic() - started < 1 and len(server.requests) == 1
    assert "MAX_CALL_SECONDS=1 s" in str(e.value)


def test_a_stream_cut_in_the_middle_of_an_event_is_an_error():
    body = sse(chunk({"content": "The capital of France is"})) + b'data: {"id":"c","choices":[{"delta":{"content":" Par'
    with close_delimited(body) as base_url:
        llm = make_llm(base_url)
        with pytest.raises(LLMCallError, match="ended in the middle of an event"):
            llm.generate([Message.user("Capital of France?")], on_token=lambda _: None)
        assert llm.calls == 0


@pytest.mark.parametrize("tail", [b"data: [DONE]\n", b"data: [DONE]\r\n", b"data:[DONE]", b": keep-alive\n"])
def test_a_close_delimited_stream_whose_last_line_says_nothing_is_taken_without_its_blank_line(tail):
    body = sse(chunk({"content": "Paris."}), chunk({}, "stop")) + tail  # the server closes right after it
    with close_delimited(body) as base_url:
        reply = make_llm(base_url).generate([Message.user("Capital of France?")], on_token=lambda _: None)
    assert reply.text == "Paris." and reply.finish_reason == "stop"


@pytest.mark.parametrize("tail", [b": keep-alive\ndata: {", b'data: {"id":"c"}\n', b"event: message\n"])
def test_a_stream_whose_last_event_holds_more_than_a_comment_or_done_is_cut_off(tail):
    body = sse(chunk({"content": "Paris."}), chunk({}, "stop")) + tail
    with close_delimited(body) as base_url:
        with pytest.raises(LLMCallError, match="ended in the middle of an event"):
            make_llm(base_url).generate([Message.user("Capital of France?")], on_token=lambda _: None)


def test_a_close_delimited_stream_of_whole_events_with_no_done_is_taken():  # some servers never send [DONE]
    with close_delimited(sse(chunk({"content": "Paris."}))) as base_url:
        reply = make_llm(base_url).generate([Message.user("Capital of France?")], on_token=lambda _: None)
    assert reply.text == "Paris." and reply.finish_reason is None


def test_a_json_completion_sent_to_a_streamed_request_is_the_whole_reply(server):
    server.enqueue(HTTPFault(200, body=completion("Paris is the capital of France.")))
    tokens: list[str] = []
    reply = make_llm(server.base_url).generate([Message.user("Capital?")], on_token=tokens.append)
    assert reply.text == "Paris is the capital of France." and tokens == [reply.text]
    assert reply.finish_reason == "stop" and server.requests[0]["stream"] is True


def test_a_json_completion_with_tool_calls_sent_to_a_streamed_request_keeps_them_apart(server):
    body = completion("<think>add twice</think>")
    calls = [{"type": "function", "function": {"name": "add", "arguments": {"a": n}}} for n in (1, 2)]  # no ids
    body["choices"][0]["message"]["tool_calls"] = calls
    server.enqueue(HTTPFault(200, body=body))
    reply = make_llm(server.base_url).generate([Message.user("1+2")], on_token=lambda _: None)
    assert [json.loads(call.arguments) for call in reply.tool_calls] == [{"a": 1}, {"a": 2}]
    assert reply.tool_calls[0].id != reply.tool_calls[1].id and reply.reasoning == "add twice" and reply.text == ""


def test_a_page_sent_to_a_streamed_request_says_the_endpoint_did_not_stream(server):
    page = f"<html><body>Gateway login ({KEY})</body></html>"
    server.enqueue(HTTPFault(200, body=page, headers={"content-type": "text/html"}))
    with pytest.raises(LLMCallError, match="did not stream: it sent text/html") as caught:
        make_llm(server.base_url).generate([Message.user("hi")], on_token=lambda _: None)
    assert "Gateway login" in str(caught.value) and KEY not in str(caught.value)


def test_an_event_stream_under_another_content_type_is_read_as_one(server):
    body = (sse(chunk({"content": "Par"})) + sse(chunk({"content": "is."})) + b"data: [DONE]\n\n").decode()
    server.enqueue(HTTPFault(200, body=body, headers={"content-type": "text/plain"}))
    reply = make_llm(server.base_url).generate([Message.user("Capital of France?")], on_token=lambda _: None)
    assert reply.text == "Paris."


def test_streamed_arguments_sent_as_an_object_are_kept_as_json_text(server):
    call = {"index": 0, "id": "c1", "type": "function", "function": {"name": "add", "arguments": {"a": 1}}}
    server.enqueue({"raw": [chunk({"tool_calls": [call]}), chunk({}, "tool_calls")]})
    reply = make_llm(server.base_url).generate([Message.user("1+1")], on_token=lambda _: None)
    assert reply.tool_calls[0].name == "add" and json.loads(reply.tool_calls[0].arguments) == {"a": 1}


@pytest.mark.parametrize(
    "bad",
    [{"content": [{"type": "text", "text": "5"}]}, {"tool_calls": [{"index": 0, "function": {"name": 7}}]}],
    ids=["content-list", "name-number"],
)
def test_a_streamed_field_of_the_wrong_type_is_a_malformed_response(server, bad):
    server.enqueue({"raw": [chunk(bad), chunk({}, "stop")]})
    with pytest.raises(LLMCallError, match="malformed response: TypeError: .* not text"):
        make_llm(server.base_url).generate([Message.user("2+3")], on_token=lambda _: None)


def test_a_streamed_null_delta_adds_nothing(server):
    server.enqueue({"raw": [chunk(None), chunk({"content": "5"}, "stop")]})
    assert make_llm(server.base_url).generate([Message.user("2+3")], on_token=lambda _: None).text == "5"
