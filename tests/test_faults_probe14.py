"""Faults an outside probe found (all offline): an exception from another library's cancellation in the model,
an answer that shows nothing from the replanner, a cut-off direct answer in Reflexion, an API error behind
Reflexion's executor, a repeating ReAct model's thought kept in history, and a console that cannot write a
character."""

from __future__ import annotations

import asyncio
import io
import json
import sys

import pytest
from mock_pool import pooled_mock_server

import vero.cli
from vero import ChatOpenAI, tool
from vero.agents import PlanExecuteAgent, ReActAgent, ReflexionAgent
from vero.core.result import Status
from vero.errors import LLMCallError
from vero.testing import HTTPFault, ScriptedLLM


@tool(read_only=True)
def lookup(query: str) -> str:
    """Look up a fact."""
    return "no data"


@pytest.mark.parametrize("raised", [asyncio.CancelledError(), GeneratorExit(), type("Stop", (BaseException,), {})()])
def test_another_library_s_cancellation_from_the_model_ends_the_run_failed(raised):
    agent = ReActAgent("r", ScriptedLLM(["Final Answer: first", raised]), verbose=False)
    agent.run("task one")
    agent.run("task two")
    result = agent.last_result
    assert (result.task, result.status, result.error) == ("task two", Status.FAILED, raised)
    assert [message.content for message in agent.history] == ["task one", "first"]


@pytest.mark.parametrize("invisible", ["\u200b", "\u0000", "\ufeff", "\u2060"])
def test_a_replanner_s_answer_that_shows_nothing_is_no_answer(invisible):
    replies = ['{"steps": ["look it up"]}', "Final Answer: found", json.dumps({"response": invisible})]
    agent = PlanExecuteAgent("p", ScriptedLLM(replies, default='{"response": "the answer"}'), tools=[lookup])
    agent.verbose = False
    assert agent.run("What is it?") == "the answer" and agent.last_result.status == Status.OK


def test_a_direct_answer_cut_off_at_the_output_limit_is_never_passed():
    cut = {"content": "The capital of Australia is Can", "finish_reason": "length"}
    judge = '{"pass": true, "score": 95, "reason": "correct"}'
    llm = ScriptedLLM([cut, judge], default="")
    agent = ReflexionAgent("r", llm, max_turns=1, verbose=False)
    agent.run("Capital of Australia?")
    assert agent.last_result.status != Status.OK and llm.calls == 1  # the judge is not asked of a cut-off reply
    assert agent.history == []


def test_an_api_error_behind_reflexion_s_executor_is_the_run_s_error():
    with pooled_mock_server(responder=lambda body: HTTPFault(401, "Incorrect API key")) as srv:
        llm = ChatOpenAI(api_key="sk-test-0000", base_url=srv.base_url, max_retries=0)
        agent = ReflexionAgent("r", llm, tools=[lookup], max_turns=1, verbose=False)  # no reflection call
        agent.run("What is it?")
    error = agent.last_result.error
    assert agent.last_result.status == Status.FAILED and isinstance(error, LLMCallError) and error.status == 401


def test_a_repeating_model_s_last_thought_is_not_kept_in_history():
    loop = 'Thought: I still need to look it up.\nAction: lookup\nAction Input: {"query": "a"}'
    agent = ReActAgent("r", ScriptedLLM([loop] * 4), tools=[lookup], verbose=False)
    assert agent.run("What is it?") == "I still need to look it up."
    assert agent.last_result.status == Status.MAX_TURNS and agent.history == []


@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_the_json_of_a_run_prints_on_a_console_that_cannot_write_its_characters(monkeypatch, encoding):
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding=encoding, write_through=True))
    with pooled_mock_server(["Final Answer: Tokyo 東京"]) as srv:
        arguments = ["--base-url", srv.base_url, "--model", "m", "--api-key", "sk-x", "--agent", "react", "--json"]
        code = vero.cli.main(["run", *arguments, "hi"])
    assert code == 0 and json.loads(out.getvalue().decode(encoding))["answer"] == "Tokyo 東京"


@pytest.mark.parametrize(
    "written",
    [
        '<tool_call>\n{"name": "web_search", "arguments": {"q": "capital of Australia"}}\n</tool_call>',
        '{"name":"web_search","arguments":{"q":"capital of Australia"}}',
        "<function=web_search>\n<parameter=q>capital of Australia</parameter>\n</function>",
    ],
)
def test_a_call_written_as_text_of_a_tool_the_agent_has_not_is_answered_as_an_unknown_tool(written):
    from vero.agents import ToolCallingAgent

    llm = ScriptedLLM([written, "Canberra"])
    agent = ToolCallingAgent("t", llm, tools=[lookup], verbose=False)
    assert agent.run("Capital of Australia?") == "Canberra" and agent.history[-1].content == "Canberra"
    assert agent.last_result.steps_of("observation")[0].content.startswith("Error: unknown tool 'web_search'")


# -- the second fault probe: a cancel and a failing call, a stream left, run_many given one task, odd seconds -------
def test_a_run_cancelled_while_its_model_call_fails_ends_cancelled():
    import threading

    from vero.agents import ToolCallingAgent

    started = threading.Event()

    def fails_after_the_cancel(messages):
        started.set()
        agent.cancel()  # the user cancels while the call is under way; the server then fails it
        raise LLMCallError("model call failed (HTTP 503): overloaded", status=503)

    agent = ToolCallingAgent("t", ScriptedLLM([fails_after_the_cancel]), verbose=False)
    agent.run("go")
    assert started.is_set() and agent.last_result.status == Status.CANCELLED


def test_leaving_a_stream_early_closes_the_reply_s_connection():
    import time

    from vero.agents import ToolCallingAgent
    from vero.core.stream import TextDelta
    from vero.testing import Fault

    with pooled_mock_server() as srv:
        srv.enqueue(Fault.endless("token ", every=0.01))  # a reply still being generated
        llm = ChatOpenAI(model_name="m", api_key="sk-x", base_url=srv.base_url, max_retries=0)
        agent = ToolCallingAgent("t", llm, verbose=False)
        for event in agent.stream("go"):
            if isinstance(event, TextDelta):
                break
        deadline = time.monotonic() + 5
        while srv._handling and time.monotonic() < deadline:  # the server sees the connection closed
            time.sleep(0.05)
        assert agent.last_result.status == Status.CANCELLED and not srv._handling


def test_run_many_given_one_task_as_text_is_a_type_error():
    from vero.batch import run_many

    with pytest.raises(TypeError, match="a list of tasks, not one task"):
        run_many(lambda: None, "What is 6 * 7?")


@pytest.mark.parametrize(
    "seconds", [{"timeout": 0}, {"timeout": "abc"}, {"max_call_seconds": float("nan")}, {"max_call_seconds": -5}]
)
def test_chat_openai_refuses_seconds_that_are_not_seconds(seconds):
    with pytest.raises(ValueError, match=f"{next(iter(seconds))} must be seconds"):
        ChatOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", **seconds)


def test_a_timeout_behind_reflexion_s_executor_leaves_the_next_attempt_to_go_on():
    def model(messages):
        if (messages[0].content or "").startswith("You are a strict evaluator"):
            return '{"pass": true, "reason": "ok", "score": 100}'
        return "Final Answer: 5"

    llm = ScriptedLLM([LLMCallError("model call failed: APITimeoutError: Request timed out.")], default=model)
    agent = ReflexionAgent("r", llm, tools=[lookup], max_turns=3, verbose=False)
    assert agent.run("2 + 3?") == "5" and agent.last_result.status == Status.OK
