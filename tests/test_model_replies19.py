"""Calls written as text in the templates of other model families, as an outside probe of 244 reply shapes wrote
them: each ran nothing and ended ``ok`` with the call's text as the answer.  Now each is read as the call it is, and a
reply that is a call vero cannot read is asked again (a bounded number of times), never taken as the answer."""

from __future__ import annotations

from typing import Any

import pytest

from vero import tool
from vero.agents import ReActAgent, ToolCallingAgent
from vero.agents._native import MAX_NUDGES, UNREAD_CALL_ANSWER_NUDGE, UNREAD_CALL_NUDGE
from vero.core.parsing.react_text import parse_react
from vero.core.parsing.text_calls import tool_calls_in_text
from vero.core.result import Status
from vero.testing import ScriptedLLM

SENT: list[tuple[str, str]] = []
LOOKED: list[str] = []


@pytest.fixture(autouse=True)
def _nothing_yet() -> None:
    SENT.clear()
    LOOKED.clear()


@tool
def send_message(to: str, text: str) -> str:
    """Send a message to someone."""
    SENT.append((to, text))
    return "sent"


@tool(read_only=True)
def lookup(name: str) -> str:
    """Look up a city's population."""
    LOOKED.append(name)
    return '{"population": 700000}'


ARGS = '{"to": "bob", "text": "700000"}'
# each family's call of send_message, as its template writes it when the server does not parse it
SHAPES = {
    "granite": f'<|tool_call|>[{{"name": "send_message", "arguments": {ARGS}}}]',
    "phi-4-mini": f'functools[{{"name": "send_message", "arguments": {ARGS}}}]',
    "mistral v11": f"[TOOL_CALLS]send_message[ARGS]{ARGS}",
    "mistral v11 with an id": f"[TOOL_CALLS]send_message[CALL_ID]a1b2c3d4e[ARGS]{ARGS}",
    "llama 3.2 pythonic": '[send_message(to="bob", text="700000")]',
    "deepseek-r1": (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>send_message\n```json\n"
        f"{ARGS}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    ),
    "hermes python dict": (
        "<tool_call>\n{'name': 'send_message', 'arguments': {'to': 'bob', 'text': '700000'}}\n</tool_call>"
    ),
    "functionary": f">>>send_message\n{ARGS}",
    "gemma tool_code": '```tool_code\nprint(send_message(to="bob", text="700000"))\n```',
    "qwen + end token": f'<tool_call>\n{{"name": "send_message", "arguments": {ARGS}}}\n</tool_call><|im_end|>',
    "llama 3.1 + end token": f'<|python_tag|>{{"name": "send_message", "parameters": {ARGS}}}<|eom_id|>',
    "mistral + end token": f'[TOOL_CALLS][{{"name": "send_message", "arguments": {ARGS}}}]</s>',
    "gemma + end token": f'{{"name": "send_message", "arguments": {ARGS}}}<end_of_turn>',
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("protocol", ["tool_calling", "native"])
def test_a_whole_reply_call_in_another_familys_template_runs(shape: str, protocol: str) -> None:
    llm = ScriptedLLM([SHAPES[shape], "Sent."])
    agent: Any = (
        ToolCallingAgent("t", llm, tools=[send_message], verbose=False)
        if protocol == "tool_calling"
        else ReActAgent("r", llm, tools=[send_message], protocol="native", verbose=False)
    )
    assert agent.run("Tell bob the population of Oslo: 700000.") == "Sent."
    assert SENT == [("bob", "700000")] and agent.last_result.status == Status.OK


def test_llama_31s_built_in_tool_call_is_read() -> None:
    found = tool_calls_in_text('<|python_tag|>lookup.call(name="Oslo")', ["lookup"])
    assert found is not None and [(c.name, c.arguments) for c in found.calls] == [("lookup", '{"name": "Oslo"}')]


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>\n{'name': 'send_message', 'arguments': {'to': 'bob', 'to': 'eve', 'text': 'hi'}}\n</tool_call>",
        "[send_message(to=bob, text='hi')]",  # a name, not a literal: nothing is guessed
        "[send_message(to='bob', text='hi'), print('x')]",  # all of it must be calls
        ">>>all\nOslo has 700000 people.",  # Functionary's answer, not a call
    ],
)
def test_a_call_that_is_not_plainly_written_is_no_call(text: str) -> None:
    assert tool_calls_in_text(text, ["send_message"]) is None


def test_a_python_literal_that_a_float_rounds_is_refused_for_a_changing_tool() -> None:
    found = tool_calls_in_text("[send_message(to='bob', text=2.9999999999999999)]", ["send_message"])
    assert found is not None and found.calls[0].args.problem


# ---------------------------------------------------------------------------- a call vero cannot read


def test_a_reply_that_is_a_lookup_vero_cannot_read_is_asked_again_for_the_call() -> None:
    llm = ScriptedLLM(["[lookup(name=Oslo)]", '[lookup(name="Oslo")]', "Oslo has 700000 people."])
    agent = ToolCallingAgent("t", llm, tools=[lookup], verbose=False)
    assert agent.run("How many people live in Oslo?") == "Oslo has 700000 people."
    assert LOOKED == ["Oslo"] and llm.requests[1].messages[-1]["content"] == UNREAD_CALL_NUDGE.format(tool="lookup")


def test_a_reply_that_is_a_changing_call_vero_cannot_read_gets_only_the_answer_asked_for() -> None:
    llm = ScriptedLLM(["send_message(to=bob, text=hi)", "I could not send it."])
    agent = ToolCallingAgent("t", llm, tools=[send_message, lookup], verbose=False)
    assert agent.run("Tell bob hi.") == "I could not send it."
    assert SENT == [] and llm.requests[1].messages[-1]["content"] == UNREAD_CALL_ANSWER_NUDGE.format(
        tool="send_message"
    )


def test_replies_that_stay_unreadable_calls_end_the_run_failed() -> None:
    llm = ScriptedLLM(default="send_message(to=bob, text=hi)")
    agent = ToolCallingAgent("t", llm, tools=[send_message], verbose=False)
    agent.run("Tell bob hi.")
    assert agent.last_result.status == Status.FAILED and llm.calls == MAX_NUDGES + 1 and agent.history == []


def test_a_changing_call_amid_prose_is_not_run_and_says_so_in_a_warning() -> None:
    reply = f'So I will message bob.\n\n<tool_call>\n{{"name": "send_message", "arguments": {ARGS}}}\n</tool_call>'
    agent = ToolCallingAgent("t", ScriptedLLM([reply]), tools=[send_message], verbose=False)
    assert agent.run("Tell bob the population.") == reply and SENT == []
    warnings = [step.content for step in agent.last_result.steps_of("warning")]
    assert any("a call of send_message amid other text, not run" in warning for warning in warnings)


def test_a_typed_answer_that_names_a_tool_is_read_as_the_answer() -> None:
    llm = ScriptedLLM(['{"name": "lookup", "uses": 3}'])
    agent = ToolCallingAgent("t", llm, tools=[lookup], verbose=False)
    assert agent.run("Which tool did you use most?", output_type=dict) == {"name": "lookup", "uses": 3}


# ---------------------------------------------------------------------------- ReAct's text, as other families write it


@pytest.mark.parametrize(
    "after",
    [
        "\n\nQuestion: What is the population of Bergen?\nThought: I need to look up Bergen.",  # a new round
        "<|im_end|>",
        "<|eot_id|>",
    ],
)
def test_what_a_model_writes_after_its_final_answer_is_no_part_of_it(after: str) -> None:
    step = parse_react(f"Thought: I know it.\nFinal Answer: Oslo has 700000 people.{after}", ["lookup"])
    assert step.final_answer == "Oslo has 700000 people."


@pytest.mark.parametrize(
    "reply",
    [
        'Thought：我需要查询奥斯陆。\nAction：lookup\nAction Input：{"name": "Oslo"}',  # full-width colons
        '*Thought:* look it up\n*Action:* lookup\n*Action Input:* {"name": "Oslo"}',  # in italics
        'Thought: look it up\nAction: lookup Action Input: {"name": "Oslo"}',  # on one line
        'Thought: look it up\nAction: [lookup]\nAction Input: {"name": "Oslo"}',
    ],
)
def test_an_action_written_in_other_dresses_is_read(reply: str) -> None:
    step = parse_react(reply, ["lookup"])
    assert (step.action, step.action_input, step.problem) == ("lookup", {"name": "Oslo"}, None)


def test_an_action_of_none_before_a_final_answer_is_the_answer() -> None:
    step = parse_react("Thought: no tool needed\nAction: None\nAction Input: none\nFinal Answer: 42", ["lookup"])
    assert (step.action, step.final_answer) == (None, "42")


@pytest.mark.parametrize(
    "answer",
    [
        "Oslo (the capital) has 700000 people; lookup said so.",  # a word and a parenthesis: no call
        "print(lookup) shows the function, not a call of it.",  # code, but of no tool
        'The page wrote {"name": "lookup"} as an example; Oslo has 700000 people.',  # a call amid prose
    ],
)
def test_an_answer_that_only_looks_a_little_like_a_call_is_the_answer(answer: str) -> None:
    llm = ScriptedLLM([answer, "asked again"])
    agent = ToolCallingAgent("t", llm, tools=[lookup], verbose=False)
    assert agent.run("How many people live in Oslo?") == answer and llm.calls == 1


# ---------------------------------------------------------------------------- a review of these readings


def test_a_json_call_with_a_parenthesis_in_its_text_is_still_read() -> None:
    text = '[TOOL_CALLS][{"name": "send_message", "arguments": {"to": "bob", "text": "Hi (from Oslo)"}}]'
    found = tool_calls_in_text(text, ["send_message"])
    assert found is not None and found.calls[0].arguments == '{"to": "bob", "text": "Hi (from Oslo)"}'


@pytest.mark.parametrize("value", ["'a' 'b'", "0x10", "9_00", "2.9999999999999999"])
def test_a_python_dict_call_with_a_value_not_written_plainly_does_not_run_a_changing_tool(value: str) -> None:
    reply = f"<tool_call>\n{{'name': 'send_message', 'arguments': {{'to': 'bob', 'text': {value}}}}}\n</tool_call>"
    found = tool_calls_in_text(reply, ["send_message"])
    assert found is not None and found.calls[0].args.problem
    agent = ToolCallingAgent("t", ScriptedLLM([reply, "Not sent."]), tools=[send_message], verbose=False)
    agent.run("Tell bob.")
    assert SENT == []


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>\n{'name': 'send_message', 'arguments': {'to': {'bob'}, 'text': 'hi'}}\n</tool_call>",  # a set
        "<tool_call>\n{'name': 'send_message', 'arguments': {'to': b'bob', 'text': 'hi'}}\n</tool_call>",  # bytes
        "<tool_call>\n{'name': 'send_message', 'arguments': {1: 'bob', True: 'hi'}}\n</tool_call>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>send_message\n```json\n"
        '{"to": "bob", "text": "hi"}}, {"name": "lookup", "arguments": {"name": "x"}\n```<｜tool▁call▁end｜>'
        "<｜tool▁calls▁end｜>",  # arguments that would add a call
    ],
)
def test_a_call_whose_arguments_are_no_plain_object_is_no_call(text: str) -> None:
    assert tool_calls_in_text(text, ["send_message", "lookup"]) is None


def test_a_final_answer_that_lists_questions_is_kept_whole() -> None:
    answer = "Here are the FAQs.\nQuestion: How do I reset it?\nAnswer: Hold the button.\nQuestion: Is it safe?"
    assert parse_react(f"Thought: done\nFinal Answer: {answer}", ["lookup"]).final_answer == answer


@tool(read_only=True)
def weather(city: str) -> str:
    """The weather in a city."""
    return "12 C"


@pytest.mark.parametrize(
    "answer",
    [
        "weather (Oslo, today): 12 °C and clear.",
        "weather(city) gives the weather; in Oslo it is 12 °C.",
        ">>> print(weather)\n<function weather>",
        "weather(city) returns the current forecast for a city (in Celsius)",  # about a tool
        "<|python_tag|> is what Llama 3.1 writes before a call, as when it asks weather for the forecast.",
    ],
)
def test_an_answer_that_begins_like_code_or_a_template_is_the_answer(answer: str) -> None:
    llm = ScriptedLLM([answer, "asked again"])
    agent = ToolCallingAgent("t", llm, tools=[weather], verbose=False)
    assert agent.run("Weather in Oslo?") == answer and llm.calls == 1


def test_native_react_asks_again_for_a_call_it_could_not_read() -> None:
    llm = ScriptedLLM(["lookup(name=Oslo)", '[lookup(name="Oslo")]', "Oslo has 700000 people."])
    agent = ReActAgent("r", llm, tools=[lookup], protocol="native", verbose=False)
    assert agent.run("How many people live in Oslo?") == "Oslo has 700000 people."
    assert LOOKED == ["Oslo"]


# ---------------------------------------------------------------------------- answers that only look like protocol


@pytest.mark.parametrize(
    "answer",
    [
        "**Oslo** is the capital.",  # emphasis that opens the answer, not closes the label
        "*args collects the positional arguments.",
        "__init__ is called when the object is made.",
        "Solve:\n2x + 3 = 7\n2x = 4\nFinal Answer: x = 2",  # a worked answer that ends in its own Final Answer
        "In HTML, strike a price out with <s>$20</s>",
    ],
)
def test_a_final_answer_is_kept_as_written(answer: str) -> None:
    assert parse_react(f"Thought: done\nFinal Answer: {answer}", ["lookup"]).final_answer == answer


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ("Final Answer: 42\nFinal Answer: 42", "42"),  # said again
        ("Final Answer: Oslo\nThought: and Bergen?\nFinal Answer: Bergen", "Oslo"),  # a new round
    ],
)
def test_an_answer_said_again_or_a_new_round_after_it_is_no_part_of_it(reply: str, answer: str) -> None:
    assert parse_react(reply, ["lookup"]).final_answer == answer


def test_an_action_input_with_emphasis_only_after_its_colon_is_still_its_json() -> None:
    step = parse_react('Action: lookup\nAction Input:** {"name": "Oslo"}', ["lookup"])
    assert step.action_input == {"name": "Oslo"}


@pytest.mark.parametrize(
    "reply",
    [
        '<function=weather>{"city": Oslo}',  # the marker's own format, its JSON unreadable
        'weather(city="Oslo"); weather(city=Bergen)',  # code of two statements
    ],
)
def test_a_reply_that_is_a_call_vero_cannot_read_in_other_shapes_is_asked_again(reply: str) -> None:
    llm = ScriptedLLM([reply, "It is 12 C."])
    agent = ToolCallingAgent("t", llm, tools=[weather], verbose=False)
    assert agent.run("Weather in Oslo?") == "It is 12 C." and llm.calls == 2
