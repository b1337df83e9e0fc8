"""A reply the provider's content filter stopped is not all there: no answer, a failed model call."""

from __future__ import annotations

import json

import pytest

from vero.core.chat_openai import ChatOpenAI
from vero.core.message import Message
from vero.errors import LLMCallError
from vero.testing import MockOpenAIServer


def chunk(delta: dict, finish_reason: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    return json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [choice]})


def http_llm(server: MockOpenAIServer) -> ChatOpenAI:
    return ChatOpenAI(model_name="m", api_key="sk-test-unfinished", base_url=server.base_url, max_retries=0)


def test_a_stream_with_no_finish_reason_is_taken_as_it_came():  # some servers and proxies never send one
    with MockOpenAIServer() as server:
        server.enqueue({"raw": [chunk({"role": "assistant"}), chunk({"content": "Paris."})]})
        stream = http_llm(server).generate([Message.user("Capital of France?")], stream=True)
        assert "".join(stream) == "Paris." and stream.message.finish_reason is None


@pytest.mark.parametrize("stream", [False, True])
def test_a_reply_the_content_filter_stopped_is_a_failed_call(stream):
    with MockOpenAIServer() as server:
        server.enqueue({"content": "I can tell you that", "finish_reason": "content_filter"})
        with pytest.raises(LLMCallError, match="content filter stopped the reply"):
            reply = http_llm(server).generate([Message.user("hi")], stream=stream)
            "".join(reply) if stream else None
