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


def _answer_as(kind: str, answer: str) -> str:
    """``answer`` as a model using ``kind`` writes a final answer."""
    from vero.agents._guided import ANSWERED

    if kind == "text":
        return f"Final Answer: {answer}"
    if kind == "guided":
        return json.dumps({"thought": "t", "step": {ANSWERED: True, "final_answer": answer}})
    return answer


SHOW_NOTHING = ["\u200b", "\u2060\ufeff", "\x00", "\u200d \u00a0", "\u200e\u2066"]
# an empty code fence or empty quotes: a wrapper around nothing
WRAP_NOTHING = ["```\n```", "``` ```", "```json\n\n```", "~~~\n\u200b\n~~~", '""', "' '", "\u201c\u201d"]


@pytest.mark.parametrize("unseen", SHOW_NOTHING + WRAP_NOTHING)
@pytest.mark.parametrize("kind", ["tool_calling", "text", "native", "guided"])
def test_a_reply_that_shows_nothing_is_no_answer_and_is_asked_again(kind, unseen):
    from vero.agents import ReActAgent, ToolCallingAgent
    from vero.testing import ScriptedLLM

    llm = ScriptedLLM([_answer_as(kind, unseen), _answer_as(kind, "42")])
    if kind == "tool_calling":
        agent = ToolCallingAgent("a", llm, verbose=False)
    else:
        agent = ReActAgent("a", llm, verbose=False, protocol=kind)
    assert agent.run("What is six times seven?") == "42" and llm.calls == 2


@pytest.mark.parametrize("shown", ["```\n42\n```", "```42```", '"42"', "`42`", "'-'"])
def test_a_fence_or_quotes_around_something_are_an_answer(shown):
    from vero.agents import ReActAgent
    from vero.testing import ScriptedLLM

    agent = ReActAgent("a", ScriptedLLM([f"Final Answer: {shown}"]), verbose=False)
    assert agent.run("What is six times seven?") == shown and agent.last_result.status == "ok"


@pytest.mark.parametrize("draft", ["\u200b\u200e", "```\n```"])
def test_a_draft_that_shows_nothing_is_no_draft(draft):
    from vero.agents import BasicReflectionAgent
    from vero.testing import ScriptedLLM

    agent = BasicReflectionAgent("a", ScriptedLLM([draft]), verbose=False)
    agent.run("Write a haiku.")
    assert (
        agent.last_result.status == "failed"
        and agent.last_result.steps[-1].content == "the model returned an empty draft"
    )


@pytest.mark.parametrize("unseen", ["\u200b\ufeff", "\x00\x00", "```\n```"])
def test_a_reflexion_run_whose_attempts_show_nothing_fails(unseen):
    from vero.agents import ReflexionAgent
    from vero.testing import ScriptedLLM

    agent = ReflexionAgent("a", ScriptedLLM([], default=unseen), verbose=False, max_turns=2)
    agent.run("What is six times seven?")
    assert agent.last_result.status == "failed" and agent.last_result.answer == ""
