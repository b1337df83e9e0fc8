"""Watching a run: Agent.stream, arun, astream, cancel, and the requests the events carry."""

import asyncio
import json
import threading

import pytest

from vero import Agent, Message, tool
from vero.agents import PlanExecuteAgent, ToolCallingAgent
from vero.core.agent import ConcurrentRunError
from vero.core.result import Status
from vero.core.secrets import MASK
from vero.core.stream import (
    ModelCallFinished,
    ModelCallStarted,
    RunFinished,
    RunStarted,
    StepRecorded,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from vero.errors import Cancelled, LLMCallError
from vero.testing import ScriptedLLM

SAFETY_S = 30  # only against a hang: a passing test never waits this long


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class AskTwice(Agent):
    """A custom agent: two model calls, the second answers."""

    def solve(self, task):
        first = self.call_llm([Message.user(task)]).text
        return self.call_llm([Message.user(task), Message.assistant(first), Message.user("again")]).text


def adding_agent(*replies, **kwargs):
    script = [{"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}, *(replies or ["The sum is 5."])]
    return ToolCallingAgent("adder", ScriptedLLM(script), tools=[add], verbose=False, **kwargs)


def kinds(events):
    return [type(e).__name__ for e in events]


# -- the stream -------------------------------------------------------------------------------------
def test_stream_yields_each_event_as_it_happens_and_ends_with_the_result():
    events = list(adding_agent().stream("What is 2 + 3?"))
    assert kinds(events) == [
        "RunStarted",
        "ModelCallStarted",
        "ModelCallFinished",
        "StepRecorded",
        "ToolCallStarted",
        "ToolCallFinished",
        "StepRecorded",
        "ModelCallStarted",
        *["TextDelta"] * 4,
        "ModelCallFinished",
        "StepRecorded",
        "RunFinished",
    ]
    started, finished = events[4], events[5]
    assert (started.tool, started.args, started.call_id) == ("add", {"a": 2, "b": 3}, "call_1")
    assert (finished.ok, finished.output, finished.call_id) == (True, "5", "call_1")
    assert events[-1].result.answer == "The sum is 5." and events[-1].result.status == Status.OK


def test_the_events_are_frozen():
    event = next(iter(adding_agent().stream("What is 2 + 3?")))
    assert isinstance(event, RunStarted)
    with pytest.raises(AttributeError):
        event.task = "changed"


def test_text_deltas_add_up_to_the_reply_and_the_reply_carries_usage_and_finish_reason():
    llm = ScriptedLLM(
        [
            {
                "content": "Five, as two plus three.",
                "finish_reason": "stop",
                "usage": {"prompt_tokens": 10, "completion_tokens": 6, "prompt_tokens_details": {"cached_tokens": 4}},
            }
        ]
    )
    events = list(ToolCallingAgent("t", llm, verbose=False).stream("2 + 3?"))
    deltas = "".join(e.text for e in events if isinstance(e, TextDelta))
    reply = next(e for e in events if isinstance(e, ModelCallFinished))
    assert deltas == reply.text == "Five, as two plus three."
    assert reply.finish_reason == "stop" and reply.usage["completion_tokens"] == 6 and reply.cached_tokens == 4
    assert reply.error is None


def test_without_deltas_no_text_delta_is_sent():
    events = list(adding_agent().stream("What is 2 + 3?", deltas=False))
    assert not any(isinstance(e, TextDelta) for e in events)
    assert events[-1].result.answer == "The sum is 5."


def test_a_custom_agent_subclass_streams_through_the_base_class():
    events = list(AskTwice("mine", ScriptedLLM(["one", "two"]), verbose=False).stream("go"))
    assert kinds(events).count("ModelCallStarted") == 2
    assert events[-1].result.answer == "two"


def test_a_model_without_on_token_still_streams_its_events():
    class PlainModel:  # a ChatModel of one's own, with no on_token
        def generate(self, messages, tools=None):
            return Message.assistant("plain")

    events = list(AskTwice("mine", PlainModel(), verbose=False).stream("go"))
    assert events[-1].result.answer == "plain" and not any(isinstance(e, TextDelta) for e in events)


@pytest.mark.parametrize(
    "task, replies, status",
    [
        ("", ["unused"], Status.FAILED),
        ("go", [LLMCallError("model call failed (HTTP 500)", status=500)], Status.FAILED),
    ],
)
def test_the_last_event_carries_the_result_whatever_the_status(task, replies, status):
    events = list(AskTwice("mine", ScriptedLLM(replies), verbose=False).stream(task))
    assert isinstance(events[-1], RunFinished) and events[-1].result.status == status


def test_a_failed_model_call_is_a_finished_call_with_the_error():
    events = list(AskTwice("mine", ScriptedLLM([LLMCallError("boom")]), verbose=False).stream("go"))
    failed = next(e for e in events if isinstance(e, ModelCallFinished))
    assert failed.error == "LLMCallError: boom" and failed.reply == {}


def test_the_request_is_recorded_as_sent_with_tools_and_options():
    llm = ScriptedLLM(["5"])
    agent = AskTwice("mine", llm, verbose=False)
    messages = [Message.system("Be brief."), Message.user("2 + 3?")]
    agent.solve = lambda task: (
        agent.call_llm(
            messages,
            tools=[add],
            tool_choice="auto",
            stop=["\nObservation:"],
            max_tokens=64,
            response_format={"type": "json_object"},
        ).text
    )
    started = next(e for e in agent.stream("2 + 3?") if isinstance(e, ModelCallStarted))
    request = started.request
    assert request["model"] == "scripted"
    assert request["messages"] == llm.requests[0].messages
    assert request["tools"] == [add.schema] and request["tool_choice"] == "auto"
    assert (request["stop"], request["max_tokens"], request["response_format"]) == (
        ["\nObservation:"],
        64,
        {"type": "json_object"},
    )


def test_the_api_key_is_masked_in_the_recorded_request():
    llm = ScriptedLLM(["noted"])
    llm._secret = "sk-live-0123456789abcdef"  # as ChatOpenAI keeps its key
    events = list(AskTwice("mine", llm, verbose=False).stream(f"my key is {llm._secret}"))
    request = next(e for e in events if isinstance(e, ModelCallStarted)).request
    assert llm._secret not in json.dumps(request) and f"my key is {MASK}" in json.dumps(request)


def test_a_sub_agents_model_and_tool_calls_reach_the_parents_stream_one_level_deeper():
    llm = ScriptedLLM(
        [
            json.dumps({"steps": ["Add 2 and 3."]}),
            'Thought: add\nAction: add\nAction Input: {"a": 2, "b": 3}',
            "Thought: done\nFinal Answer: 5",
            json.dumps({"response": "The answer is 5."}),  # the replanner answers
        ]
    )
    events = list(PlanExecuteAgent("planner", llm, tools=[add], verbose=False).stream("2 + 3?", deltas=False))
    calls = [e for e in events if isinstance(e, ModelCallStarted)]
    assert [c.depth for c in calls] == [0, 1, 1, 0]
    tool_events = [e for e in events if isinstance(e, (ToolCallStarted, ToolCallFinished))]
    assert [(e.depth, e.tool) for e in tool_events] == [(1, "add"), (1, "add")]
    assert calls[1].agent != "planner"  # the sub-agent's own name
    assert events[-1].result.answer == "The answer is 5."


# -- leaving early cancels ------------------------------------------------------------------------------
def test_breaking_out_cancels_the_run_keeps_the_history_and_leaves_the_agent_usable():
    agent = adding_agent("The sum is 5.", "Hello again.")
    agent.history = [Message.user("earlier"), Message.assistant("kept")]
    for event in agent.stream("What is 2 + 3?"):
        if isinstance(event, ToolCallStarted):
            break
    result = agent.last_result
    assert result.status == Status.CANCELLED and isinstance(result.error, Cancelled)
    assert [m.content for m in agent.history] == ["earlier", "kept"]
    assert agent.llm.calls == 1  # stopped before the next model call
    assert agent.run("hi") == "The sum is 5."  # the agent is free again


def test_closing_the_generator_cancels_the_run():
    agent = adding_agent()
    events = agent.stream("What is 2 + 3?")
    assert isinstance(next(events), RunStarted)
    events.close()
    assert agent.last_result.status == Status.CANCELLED


def test_cancel_stops_a_running_agent_at_its_next_model_call():
    agent = adding_agent()

    @tool
    def add(a: int, b: int) -> int:  # noqa: F811 - the tool cancels the run it is part of
        """Add two integers."""
        agent.cancel()
        return a + b

    agent.tools = ToolCallingAgent("x", agent.llm, tools=[add]).tools
    assert agent.run("What is 2 + 3?") == ""
    assert agent.last_result.status == Status.CANCELLED and agent.llm.calls == 1
    assert [s.kind for s in agent.last_result.steps] == ["action", "observation"]
    assert agent.history == []


def test_cancel_outside_a_run_does_nothing():
    agent = adding_agent()
    agent.cancel()
    assert agent.run("What is 2 + 3?") == "The sum is 5."


def test_a_cancelled_stream_stops_the_sub_agents_too():
    llm = ScriptedLLM(
        [
            json.dumps({"steps": ["Add 2 and 3.", "Add 5 and 5."]}),
            'Thought: add\nAction: add\nAction Input: {"a": 2, "b": 3}',
        ],
        default="Final Answer: 5",
    )
    agent = PlanExecuteAgent("planner", llm, tools=[add], verbose=False)
    for event in agent.stream("2 + 3, then + 5?"):
        if isinstance(event, ToolCallStarted):
            break
    assert agent.last_result.status == Status.CANCELLED and llm.calls == 2


def test_streaming_an_agent_that_is_already_running_raises_at_once():
    entered, release = threading.Event(), threading.Event()

    def slow(messages):
        entered.set()
        release.wait(SAFETY_S)
        return "done"

    agent = AskTwice("mine", ScriptedLLM([slow, "two"]), verbose=False)
    worker = threading.Thread(target=agent.run, args=("go",))
    worker.start()
    entered.wait(SAFETY_S)
    try:
        with pytest.raises(ConcurrentRunError):
            next(iter(agent.stream("other")))
    finally:
        release.set()
        worker.join()
    assert agent.last_result.answer == "two"


def test_a_listener_that_cancels_ends_the_streamed_reply_at_once():
    agent = ToolCallingAgent("t", ScriptedLLM(["one two three four five"]), verbose=False)
    agent.events.callbacks.append(lambda event: event.type == "text_delta" and agent.cancel())
    events = list(agent.stream("count"))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["one "]
    assert events[-1].result.status == Status.CANCELLED


# -- the async API ------------------------------------------------------------------------------------
def test_arun_returns_the_answer_and_sets_last_result():
    agent = adding_agent()
    assert asyncio.run(agent.arun("What is 2 + 3?")) == "The sum is 5."
    assert agent.last_result.status == Status.OK


def test_many_concurrent_aruns_neither_block_the_loop_nor_mix_their_results():
    count = 12  # more than a default thread pool on a small machine holds
    waiting = threading.Semaphore(0)
    release = threading.Event()

    def reply_for(number):
        def reply(messages):
            waiting.release()
            release.wait(SAFETY_S)  # held until the loop, still running, sees every run waiting
            return f"answer {number}"

        return reply

    agents = [AskTwice(f"a{n}", ScriptedLLM([reply_for(n), f"final {n}"]), verbose=False) for n in range(count)]

    async def main():
        tasks = [asyncio.create_task(agent.arun(f"task {n}")) for n, agent in enumerate(agents)]
        for _ in range(count):  # the loop keeps running while every run waits in its model call
            while not waiting.acquire(blocking=False):
                await asyncio.sleep(0.001)
        release.set()
        return await asyncio.gather(*tasks)

    assert asyncio.run(main()) == [f"final {n}" for n in range(count)]
    assert [a.last_result.task for a in agents] == [f"task {n}" for n in range(count)]


def test_cancelling_the_awaiting_task_cancels_the_run_and_leaves_the_agent_usable():
    entered, release = threading.Event(), threading.Event()

    def slow(messages):
        entered.set()
        release.wait(SAFETY_S)
        return "first"

    agent = AskTwice("mine", ScriptedLLM([slow, "again", "two"]), verbose=False)

    async def main():
        task = asyncio.create_task(agent.arun("go"))
        while not entered.is_set():
            await asyncio.sleep(0.001)
        task.cancel()
        await asyncio.sleep(0)
        release.set()  # the model call in flight ends; the run stops before the next one
        with pytest.raises(asyncio.CancelledError):
            await task
        return await agent.arun("go again")

    assert asyncio.run(main()) == "two"
    assert agent.llm.calls == 3


def blocking_model(*after):
    """A scripted model whose first call waits for ``release`` (``entered`` is set once it is under way)."""
    entered, release = threading.Event(), threading.Event()

    def first(messages):
        entered.set()
        release.wait(SAFETY_S)
        return "the answer"

    return ScriptedLLM([first, *after]), entered, release


async def cancel_twice_then_release(task, entered, release):
    """Cancel ``task`` twice while the model call is under way; it must still be waiting for the run."""
    await asyncio.to_thread(entered.wait, SAFETY_S)
    for _ in range(2):
        task.cancel()
        await asyncio.sleep(0.01)
    still_waiting = not task.done()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    return still_waiting


def test_cancelling_arun_during_its_last_model_call_cancels_the_run_and_waits_for_it():
    llm, entered, release = blocking_model("again")
    agent = ToolCallingAgent("t", llm, verbose=False)

    async def main():
        task = asyncio.create_task(agent.arun("go"))
        assert await cancel_twice_then_release(task, entered, release)  # a second cancel did not return early
        assert agent.last_result.status == Status.CANCELLED and agent.history == []
        return await agent.arun("go again")  # the agent is free: the run had stopped

    assert asyncio.run(main()) == "again"
    assert agent.history[0].text == "go again"


def test_cancelling_astream_twice_waits_for_the_run_to_stop():
    llm, entered, release = blocking_model("again")
    agent = ToolCallingAgent("t", llm, verbose=False)

    async def consume():
        return [event async for event in agent.astream("go")]

    async def main():
        assert await cancel_twice_then_release(asyncio.create_task(consume()), entered, release)
        assert agent.last_result.status == Status.CANCELLED and agent.history == []
        return await agent.arun("go again")

    assert asyncio.run(main()) == "again"


def test_cancel_during_the_last_model_call_ends_the_run_cancelled():
    def cancel_then_answer(messages):
        agent.cancel()
        return "the answer"

    agent = ToolCallingAgent("t", ScriptedLLM([cancel_then_answer, "again"]), verbose=False)
    agent.run("go")
    assert agent.last_result.status == Status.CANCELLED and agent.history == []
    assert agent.run("go again") == "again"


def test_astream_yields_the_events_and_ends_with_the_result():
    async def main():
        return [event async for event in adding_agent().astream("What is 2 + 3?")]

    events = asyncio.run(main())
    assert isinstance(events[0], RunStarted) and isinstance(events[-1], RunFinished)
    assert events[-1].result.answer == "The sum is 5."
    assert kinds(events) == kinds(list(adding_agent().stream("What is 2 + 3?")))


async def leave_astream_at_its_first_step(agent: Agent) -> None:
    events = agent.astream("What is 2 + 3?")
    async for event in events:
        if isinstance(event, StepRecorded):
            break
    await events.aclose()


def test_leaving_astream_early_cancels_the_run():
    agent = adding_agent()
    asyncio.run(leave_astream_at_its_first_step(agent))
    assert agent.last_result.status == Status.CANCELLED and agent.history == []


def test_closing_astream_early_frees_the_agent_for_the_next_task_at_once():
    agent = adding_agent()  # the tool call is the first task's; "The sum is 5." answers the next one

    async def main():
        await leave_astream_at_its_first_step(agent)
        assert agent.last_result is not None and agent.last_result.status == Status.CANCELLED  # stopped, not later
        return await agent.arun("And again?")  # no ConcurrentRunError: the agent is free

    assert asyncio.run(main()) == "The sum is 5."


# -- the real client -----------------------------------------------------------------------------------
def test_the_stream_carries_text_deltas_from_chat_openai_over_http(shared_mock_server):
    import openai

    from vero import ChatOpenAI

    shared_mock_server.enqueue("Streamed over real HTTP.")
    llm = ChatOpenAI(
        model_name="mock",
        api_key="sk-test-0123456789abcdef",
        base_url=shared_mock_server.base_url,
        max_retries=0,
        http_client=openai.DefaultHttpxClient(trust_env=False),
    )
    events = list(ToolCallingAgent("t", llm, verbose=False).stream("hi"))
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1 and "".join(deltas) == "Streamed over real HTTP."
    assert events[-1].result.answer == "Streamed over real HTTP."
    request = next(e for e in events if isinstance(e, ModelCallStarted)).request
    assert request["model"] == "mock" and "sk-test-0123456789abcdef" not in json.dumps(request)


def test_a_cancelled_run_prints_no_final_answer():
    from vero.core.events import footer_lines

    assert footer_lines(Status.CANCELLED, "half", 0.1, 1)[0] == "🛑 Run cancelled; partial, not kept: half"
    assert footer_lines(Status.CANCELLED, "", 0.1, 1)[0] == "🛑 Run cancelled"
