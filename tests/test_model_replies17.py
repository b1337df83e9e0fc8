"""Replies small models write, from an outside probe: a call after another chat template's call marker (Llama 3's
``<|python_tag|>`` and ``<function=...>{...}</function>``, Mistral's ``[TOOL_CALLS]``) is the call it is, not an
answer; ReAct's labels with a step's number (``Thought 1:``, as the paper writes them) are read; a Final Answer
ends before an ``Action:`` line after it, and without a closing fence it did not open.
"""

from __future__ import annotations

import pytest

from vero import tool
from vero.agents import ReActAgent, ToolCallingAgent
from vero.core.parsing import parse_react
from vero.core.parsing.text_calls import tool_calls_in_text
from vero.testing import ScriptedLLM

SENT: list[str] = []


@tool
def notify(channel: str) -> str:
    """Post a short notice to a channel."""
    SENT.append(channel)
    return "posted"


ARGUMENTS = {"channel": "ops-42"}


@pytest.mark.parametrize(
    "reply",
    [
        '<|python_tag|>{"name": "notify", "parameters": {"channel": "ops-42"}}',
        '[TOOL_CALLS] [{"name": "notify", "arguments": {"channel": "ops-42"}}]',
        '<function=notify>{"channel": "ops-42"}</function>',
    ],
)
def test_a_call_after_another_template_s_call_marker_is_that_call_not_the_answer(reply):
    SENT.clear()
    agent = ToolCallingAgent("a", ScriptedLLM([reply, "Posted."]), tools=[notify], verbose=False)
    assert agent.run("Tell ops-42 the deploy is done.") == "Posted." and SENT == ["ops-42"]


@pytest.mark.parametrize(
    "reply",
    [
        'Here is how: <|python_tag|>{"name": "notify", "parameters": {"channel": "ops-42"}}',  # amid prose
        '[TOOL_CALLS] [{"name": "notify", "arguments": {"channel": "ops-42"}}] and more',
        '<function=notify>{"channel": "ops-42"}</function> done',
    ],
)
def test_a_marked_call_that_is_not_the_whole_reply_is_no_call(reply):
    assert tool_calls_in_text(reply, ["notify"]) is None


def test_react_labels_with_a_step_s_number_are_read():
    step = parse_react('Thought 1: post it\nAction 1: notify\nAction Input 1: {"channel": "ops-42"}', ["notify"])
    assert (step.action, step.arguments) == ("notify", ARGUMENTS)


def test_a_react_run_in_the_paper_s_numbered_style_calls_the_tool():
    SENT.clear()
    replies = ['Thought 1: post it\nAction 1: notify\nAction Input 1: {"channel": "ops-42"}', "Final Answer: Posted."]
    assert ReActAgent("a", ScriptedLLM(replies), tools=[notify], verbose=False).run("Tell ops-42.") == "Posted."
    assert SENT == ["ops-42"]


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ("```\nFinal Answer: Paris\n```", "Paris"),
        ('Final Answer: Paris\nAction: notify\nAction Input: ```json\n{"channel": "ops-42"}\n```', "Paris"),
        ('Final Answer: Paris\nAction: notify\nAction Input: {"channel": "ops-42"}', "Paris"),
        ("Final Answer: run it so:\n```sh\nls\n```", "run it so:\n```sh\nls\n```"),  # a fence of its own kept
        ("Final Answer: inline code uses `x`", "inline code uses `x`"),
        ("Final Answer: Fences are ``` or ~~~", "Fences are ``` or ~~~"),
        ("Final Answer: Incident summary.\n- Action: restart the db", "Incident summary.\nAction: restart the db"),
        (
            "Final Answer: Lab notes:\n**Observation 1:** the culture grew",
            "Lab notes:\n**Observation 1:** the culture grew",
        ),
        (
            "Final Answer: Steps:\nAction: restart\nAction Input: none needed",
            "Steps:\nAction: restart\nAction Input: none needed",
        ),
        (
            "Final Answer: Write:\nAction: <tool>\nAction Input: <json>\nThen wait.",
            "Write:\nAction: <tool>\nAction Input: <json>\nThen wait.",
        ),  # the format explained, no step
    ],
)
def test_a_final_answer_is_its_text_alone(reply, answer):
    assert parse_react(reply, ["notify"]).final_answer == answer


def test_an_action_written_after_the_final_answer_is_not_run_nor_answered():
    SENT.clear()
    reply = 'Final Answer: Paris\nAction: notify\nAction Input: {"channel": "ops-42"}'
    agent = ReActAgent("a", ScriptedLLM([reply]), tools=[notify], verbose=False)
    assert agent.run("Capital of France?") == "Paris" and SENT == []
    assert agent.history[-1].content == "Paris"


def test_a_numbered_observation_the_model_wrote_is_cut_from_its_action_s_input():
    step = parse_react("Thought 1: look\nAction 1: notify\nAction Input 1: ops-42\nObservation 1: posted", ["notify"])
    assert (step.action, step.action_input) == ("notify", "ops-42")
