"""A failed tool call repaired in a separate request when the model gives up (vero.agents._repair).

The replies marked "seen" were written by Qwen2.5-Coder-1.5B-Instruct (llama-server
--jinja) in the local-model benchmark: after a failed call it apologised or repeated
the error; asked in a separate request for the corrected call, it wrote one.
"""

from __future__ import annotations

import json

import pytest

from vero import tool
from vero.agents import ReActAgent, ToolCallingAgent
from vero.agents._repair import MAX_REPAIRS, REPAIR_AGAIN
from vero.core.result import MAX_TOKENS, OK
from vero.testing import ScriptedLLM
from vero.tool.builtin.arithmetic import evaluate

STOCK = {"Moonpetal Lily": 1288}


# auto_correct=False: vero would run the name the error suggests itself (vero.core.suggestion); these
# tests are about the repair request, which also serves errors that suggest nothing.
@tool(auto_correct=False)
def find_plant(name: str) -> dict:
    """Look up a plant by its name.

    Args:
        name: the plant's name.
    """
    if name not in STOCK:
        return {"error": f"no plant named {name!r}. Did you mean: Moonpetal Lily?"}
    return {"name": name, "stock": STOCK[name]}


@tool
def greenhouse_info(greenhouse_id: str) -> dict:
    """Look up a greenhouse by its id.

    Args:
        greenhouse_id: the greenhouse's id.
    """
    return {"error": f"unknown greenhouse id {greenhouse_id!r}. Greenhouse ids are written like 'GH-04'."}


@tool
def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression.

    Args:
        expression: numbers, + - * / and parentheses.
    """
    if any(c.isalpha() for c in expression):
        return f"error: cannot evaluate {expression!r}. Use numbers, + - * / and parentheses."
    return str(round(evaluate(expression), 6))


TOOLS = [find_plant, greenhouse_info, calculate]
TASK = "How many Moon Petal Lilies are in stock?"


def call(tool_name: str, **arguments) -> dict:
    return {"tool_calls": [{"name": tool_name, "arguments": arguments}]}


# seen (ToolCallingAgent): the reply after the failed call repeated the error as the answer
SEEN_GIVE_UP = '{"error": "no plant named \'Moon Petal Lilies\'. Did you mean: Moonpetal Lily?"}'
SEEN_APOLOGY = "I apologize, but I cannot provide the answer to your question."
# seen: the reply to the repair request
SEEN_REPAIR = '```json\n{\n  "name": "find_plant",\n  "arguments": {\n    "name": "Moonpetal Lily"\n  }\n}\n```'
SEEN_SAME_CALL = '```json\n{"name": "find_plant", "arguments": {"name": "Moon Petal Lilies"}}\n```'


def agent_of(kind: str, llm: ScriptedLLM):
    if kind == "chat":
        return ToolCallingAgent("t", llm, tools=TOOLS, verbose=False)
    return ReActAgent("r", llm, tools=TOOLS, protocol="native", verbose=False)


BOTH = pytest.mark.parametrize("kind", ["chat", "react_native"])


@BOTH
def test_a_give_up_after_a_failed_call_is_replaced_by_the_repaired_call(kind):
    llm = ScriptedLLM([call("find_plant", name="Moon Petal Lilies"), SEEN_GIVE_UP, SEEN_REPAIR, "1288"])
    agent = agent_of(kind, llm)
    assert agent.run(TASK) == "1288"
    result = agent.last_result
    assert result.status == OK and result.llm_calls == llm.calls == 4
    actions = [s.content for s in result.steps_of("action")]
    assert actions == ["find_plant(name='Moon Petal Lilies')", "find_plant(name='Moonpetal Lily')"]
    warning = next(s for s in result.steps_of("warning") if s.data.get("repaired"))
    assert warning.data["raw"] == SEEN_GIVE_UP and "find_plant" in warning.content
    # the conversation shows the repaired call where the give-up was, then its result
    messages = llm.requests[3].messages
    assert not any(m["content"] == SEEN_GIVE_UP for m in messages)
    assert messages[-2]["tool_calls"][0]["function"]["name"] == "find_plant"
    assert json.loads(messages[-2]["tool_calls"][0]["function"]["arguments"]) == {"name": "Moonpetal Lily"}
    assert messages[-1]["role"] == "tool" and '"stock": 1288' in messages[-1]["content"]


def test_the_repair_request_is_short_and_shows_the_task_the_failed_call_its_error_and_the_tools():
    llm = ScriptedLLM([call("find_plant", name="Moon Petal Lilies"), SEEN_APOLOGY, SEEN_REPAIR, "1288"])
    ToolCallingAgent("t", llm, tools=TOOLS, verbose=False).run(TASK)
    request = llm.requests[2].messages
    assert [m["role"] for m in request] == ["user"]  # no system prompt, no conversation
    text = request[0]["content"]
    assert f"The task: {TASK}" in text
    assert 'Call: find_plant({"name": "Moon Petal Lilies"})' in text
    assert "Error: {\"error\": \"no plant named 'Moon Petal Lilies'. Did you mean: Moonpetal Lily?\"}" in text
    assert "- find_plant(name): Look up a plant by its name" in text and "- greenhouse_info(greenhouse_id)" in text
    assert llm.requests[2].tools is None  # a plain request: the call comes back as text


def test_a_repair_that_repeats_the_failed_call_is_told_so_once():
    llm = ScriptedLLM([call("find_plant", name="Moon Petal Lilies"), SEEN_APOLOGY, SEEN_SAME_CALL, SEEN_REPAIR,
                       "1288"])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False)
    assert agent.run(TASK) == "1288" and llm.calls == 5
    follow_up = llm.requests[3].messages
    assert [m["role"] for m in follow_up] == ["user", "assistant", "user"]
    assert follow_up[1]["content"] == SEEN_SAME_CALL and follow_up[2]["content"] == REPAIR_AGAIN


def test_no_new_call_from_the_repair_leaves_the_reply_to_the_guess_nudge():
    llm = ScriptedLLM([call("find_plant", name="Moon Petal Lilies"), SEEN_APOLOGY, SEEN_SAME_CALL, SEEN_SAME_CALL,
                       SEEN_APOLOGY])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False)
    assert agent.run(TASK) == SEEN_APOLOGY and llm.calls == 5
    assert "None of your tool calls has worked yet" in llm.requests[4].messages[-1]["content"]
    warnings = [s.content for s in agent.last_result.steps_of("warning")]
    assert any("wrote no new call" in w for w in warnings)
    assert [s.content for s in agent.last_result.steps_of("action")] == ["find_plant(name='Moon Petal Lilies')"]


def test_an_answer_after_a_call_that_worked_is_not_repaired():
    llm = ScriptedLLM([call("find_plant", name="Moonpetal Lily"), "1288"])
    assert ToolCallingAgent("t", llm, tools=TOOLS, verbose=False).run(TASK) == "1288" and llm.calls == 2


def test_an_answer_with_no_tool_call_at_all_is_not_repaired():
    llm = ScriptedLLM(["Hello!"])
    assert ToolCallingAgent("t", llm, tools=TOOLS, verbose=False).run("Hi") == "Hello!" and llm.calls == 1


def test_at_most_max_repairs_per_run():
    # each repaired call fails too (greenhouse ids); after MAX_REPAIRS the guess nudge follows
    assert MAX_REPAIRS == 2
    llm = ScriptedLLM([call("greenhouse_info", greenhouse_id="7"), SEEN_APOLOGY,
                       json.dumps({"name": "greenhouse_info", "arguments": {"greenhouse_id": "GH-04"}}), SEEN_APOLOGY,
                       json.dumps({"name": "greenhouse_info", "arguments": {"greenhouse_id": "GH-4"}}), SEEN_APOLOGY,
                       "I could not find the answer."])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False)
    assert agent.run("Who keeps greenhouse 7?") == "I could not find the answer." and llm.calls == 7
    assert len([s for s in agent.last_result.steps_of("warning") if s.data.get("repaired")]) == MAX_REPAIRS
    assert "None of your tool calls has worked yet" in llm.requests[6].messages[-1]["content"]


def test_a_reply_cut_off_by_the_output_cap_gets_the_cut_off_nudge_not_a_repair():
    llm = ScriptedLLM([call("find_plant", name="Moon Petal Lilies"),
                       {"content": "I apologize, but", "finish_reason": "length"}, SEEN_REPAIR, "1288"])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False)
    agent.run(TASK)
    assert "cut off" in llm.requests[2].messages[-1]["content"]  # the cut-off nudge, in the conversation


def test_a_budget_ending_the_run_during_the_repair_keeps_the_reply_as_the_partial_answer():
    llm = ScriptedLLM([{"content": "", "tool_calls": [{"name": "find_plant", "arguments": {"name": "X"}}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5}},
                       {"content": SEEN_APOLOGY, "usage": {"prompt_tokens": 10, "completion_tokens": 5}},
                       {"content": SEEN_REPAIR, "usage": {"prompt_tokens": 10, "completion_tokens": 5}}])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, max_tokens_per_run=40)
    answer = agent.run(TASK)
    assert agent.last_result.status == MAX_TOKENS and answer == SEEN_APOLOGY


def test_text_react_replaces_a_final_answer_after_only_failed_calls_with_the_repaired_action():
    llm = ScriptedLLM(['Thought: look it up\nAction: find_plant\nAction Input: {"name": "Moon Petal Lilies"}',
                       "Thought: I now know the final answer\nFinal Answer: " + SEEN_APOLOGY, SEEN_REPAIR,
                       "Final Answer: 1288"])
    agent = ReActAgent("r", llm, tools=TOOLS, verbose=False)
    assert agent.run(TASK) == "1288" and agent.last_result.status == OK and llm.calls == 4
    conversation = [(m["role"], m["content"]) for m in llm.requests[3].messages[-2:]]
    assert conversation == [("assistant", 'Action: find_plant\nAction Input: {"name": "Moonpetal Lily"}'),
                            ("user", 'Observation: {"name": "Moonpetal Lily", "stock": 1288}')]
    assert not any(SEEN_APOLOGY in m["content"] for m in llm.requests[3].messages)
    assert [s.content for s in agent.last_result.steps_of("action")] == [
        "find_plant(name='Moon Petal Lilies')", "find_plant(name='Moonpetal Lily')"]


# seen (text ReAct): find_plant given a greenhouse id, then the same call again.  A repair here made the
# model fix the arguments from the error's list of plants ("Moonpetal Lily"), where vero's "Not run"
# note, which lists the tools, led it to the right tool; so a repeated call is not repaired.
SEEN_WRONG_TOOL = 'Thought: I need the greenhouse.\nAction: find_plant\nAction Input: {"name": "GH-06"}'


def test_a_call_repeated_after_it_failed_gets_the_not_run_note_and_no_repair():
    right = 'Thought: the plant tool\nAction: find_plant\nAction Input: {"name": "Moonpetal Lily"}'
    llm = ScriptedLLM([SEEN_WRONG_TOOL, SEEN_WRONG_TOOL, right, "Final Answer: 1288"])
    agent = ReActAgent("r", llm, tools=TOOLS, verbose=False)
    assert agent.run(TASK) == "1288" and agent.last_result.status == OK and llm.calls == 4
    assert llm.requests[2].messages[-1]["content"].startswith("Observation: Not run: you made this exact call")
    assert not any(s.data.get("repaired") for s in agent.last_result.steps_of("warning"))


@BOTH
def test_max_repairs_zero_turns_the_repair_off(kind):
    llm = ScriptedLLM([call("find_plant", name="Moon Petal Lilies"), SEEN_APOLOGY, SEEN_APOLOGY])
    agent = agent_of(kind, llm)
    agent.max_repairs = 0
    assert agent.run(TASK) == SEEN_APOLOGY and llm.calls == 3  # the guess nudge, no repair request
    assert not any("Fix a failed tool call" in r.messages[0]["content"] for r in llm.requests)
