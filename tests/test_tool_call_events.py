"""``ToolCallStarted.args`` (and the ``tool_call`` event's ``args``) is the parsed dict from every pattern,
however the model wrote the call: a native call's JSON text, a ReAct action's input, a guided reply."""

from __future__ import annotations

import json

import pytest

from vero import tool
from vero.agents import ReActAgent, ToolCallingAgent
from vero.agents._guided import ANSWERED
from vero.core.stream import ToolCallStarted
from vero.testing import ScriptedLLM


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


NATIVE = [{"tool_calls": [{"name": "add", "arguments": '{"a": 2, "b": 3}'}]}, "5"]
RUNS = {
    "ToolCallingAgent": (lambda llm: ToolCallingAgent("a", llm, tools=[add], verbose=False), NATIVE),
    "ReActAgent native": (lambda llm: ReActAgent("a", llm, tools=[add], protocol="native", verbose=False), NATIVE),
    "ReActAgent text": (
        lambda llm: ReActAgent("a", llm, tools=[add], verbose=False),
        ['Thought: add\nAction: add\nAction Input: {"a": 2, "b": 3}', "Final Answer: 5"],
    ),
    "ReActAgent guided": (
        lambda llm: ReActAgent("a", llm, tools=[add], protocol="guided", verbose=False),
        [
            {"json": {"thought": "add", "step": {ANSWERED: False, "tool": "add", "arguments": {"a": 2, "b": 3}}}},
            {"json": {"thought": "done", "step": {ANSWERED: True, "final_answer": "5"}}},
        ],
    ),
}


@pytest.mark.parametrize("pattern", list(RUNS))
def test_tool_call_started_args_is_the_parsed_dict_from_every_pattern(pattern):
    make, replies = RUNS[pattern]
    llm = ScriptedLLM([json.dumps(r["json"]) if isinstance(r, dict) and "json" in r else r for r in replies])
    agent = make(llm)
    started = [event for event in agent.stream("2 + 3?") if isinstance(event, ToolCallStarted)]
    assert agent.last_result.answer == "5", agent.last_result.error
    assert [(event.tool, event.args) for event in started] == [("add", {"a": 2, "b": 3})]


def test_the_tool_call_event_of_a_callback_carries_the_dict_too():
    seen = []
    agent = ToolCallingAgent("a", ScriptedLLM(list(NATIVE)), tools=[add], verbose=False, callbacks=[seen.append])
    agent.run("2 + 3?")
    assert [event.data["args"] for event in seen if event.type == "tool_call"] == [{"a": 2, "b": 3}]
