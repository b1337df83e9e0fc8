"""A reply that is not all there is no answer: a stream that stops mid-reply with no finish reason (a
dropped connection), or a reply the provider's content filter cut.  Each fails the model call."""

from __future__ import annotations

import json

import pytest

from vero.agents import ToolCallingAgent
from vero.core.chat_openai import ChatOpenAI
from vero.core.message import Message
from vero.core.result import Status
from vero.errors import LLMCallError
from vero.testing import MockOpenAIServer


def chunk(delta: dict, finish_reason: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    return json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [choice]})


def http_llm(server: MockOpenAIServer) -> ChatOpenAI:
    return ChatOpenAI(model_name="m", api_key="sk-test-unfinished", base_url=server.base_url, max_retries=0)


CUT_TEXT = [chunk({"role": "assistant"}), chunk({"content": "The capital of"})]
CUT_CALL = [chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a": '}}]})]


@pytest.mark.parametrize("chunks", [CUT_TEXT, CUT_CALL], ids=["text", "tool_call"])
def test_a_stream_that_stops_mid_reply_with_no_finish_reason_is_a_failed_call(chunks):
    with MockOpenAIServer() as server:
        server.enqueue({"raw": chunks})
        with pytest.raises(LLMCallError, match="the stream ended before the reply was finished"):
            "".join(http_llm(server).generate([Message.user("Capital of France?")], stream=True))


def test_a_run_whose_streamed_answer_stops_mid_reply_fails_and_keeps_no_half_turn():
    with MockOpenAIServer() as server:
        server.enqueue({"raw": CUT_TEXT})
        agent = ToolCallingAgent("t", http_llm(server), verbose=False)
        agent.run("Capital of France?", on_token=lambda _: None)
    assert agent.last_result.status == Status.FAILED and agent.history == []


def test_an_empty_stream_is_still_the_model_s_empty_reply():
    with MockOpenAIServer() as server:
        server.enqueue({"raw": [chunk({"role": "assistant"})]})
        stream = http_llm(server).generate([Message.user("hi")], stream=True)
        assert "".join(stream) == "" and stream.message.text == ""


@pytest.mark.parametrize("stream", [False, True])
def test_a_reply_the_content_filter_stopped_is_a_failed_call(stream):
    with MockOpenAIServer() as server:
        server.enqueue({"content": "I can tell you that", "finish_reason": "content_filter"})
        with pytest.raises(LLMCallError, match="content filter stopped the reply"):
            reply = http_llm(server).generate([Message.user("hi")], stream=stream)
            "".join(reply) if stream else None
