"""An answer that ends on a number no tool gave (worked out in the head) is sent back once.

The shapes are from Qwen2.5-Coder-1.5B runs of the local-model benchmark: after looking up two plants'
stock and price, "The combined value ... is 480,600 crowns." (it is 5,101.36; ToolCallingAgent and native
ReAct) and "Final Answer: ... is 5101.36." (text ReAct, a wrong sum); a plan step "Find the hourly wage and
weekly hours with keeper_profile" answered "1234.16", their product done wrong.
"""

from __future__ import annotations

import pytest

from vero import tool
from vero.agents import PlanExecuteAgent, ReActAgent, ToolCallingAgent
from vero.agents._miscalculation import unsourced_number
from vero.agents._native import COMPUTE_IT, QUOTE_RESULTS, UNSOURCED_NUDGE, _computing_tool
from vero.core.result import OK
from vero.testing import ScriptedLLM
from vero.tool.builtin.arithmetic import evaluate

PLANTS = {"Moonpetal Lily": {"stock": 120, "price_per_plant_crowns": 12.5},
          "Glasswort Pearl": {"stock": 84, "price_per_plant_crowns": 42.89}}


@tool
def find_plant(name: str) -> dict:
    """Look up a plant by its name."""
    return {"name": name, **PLANTS[name]}


@tool
def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    return str(evaluate(expression))


@tool
def keeper_profile(name: str) -> dict:
    """Look up a greenhouse keeper by their full name."""
    return {"name": name, "hourly_wage": 28.9, "weekly_hours": 44}


TASK = "What is the combined value in crowns (stock times price) of the Moonpetal Lily and the Glasswort Pearl?"
LOOKUPS = [{"tool_calls": [{"name": "find_plant", "arguments": {"name": name}}]} for name in PLANTS]
SEEN_HEAD_SUM = ("The combined value in crowns (stock times price) of the Moonpetal Lily and the Glasswort Pearl "
                 "stock is 480,600 crowns.")
SUM = {"tool_calls": [{"name": "calculate", "arguments": {"expression": "120 * 12.5 + 84 * 42.89"}}]}


@pytest.mark.parametrize("answer, sources, unsourced", [
    (SEEN_HEAD_SUM, ['{"stock": 120, "price_per_plant_crowns": 12.5}', '{"stock": 84, "price": 42.89}'], "480,600"),
    ("1234.16", ['{"hourly_wage": 28.9, "weekly_hours": 44}'], "1234.16"),
    ("She earns 1,271.60 crowns.", ["1271.6000000000001"], None),  # given, in other digits
    ("It earns 1272 crowns.", ["1271.6"], None),  # given, rounded
    ("The stock fills 54.3% of it.", ["0.5430107526881721"], None),  # given as a fraction
    ("7.35 percent is 0.0735 of it", ["What is 7.35 percent of 86420?"], None),  # the task's percentage
    ("Paris has about 2.1 million people.", ['{"population": 2102650}'], None),
    ("Paris has about 2.5 million people.", ['{"population": 2102650}'], "2.5"),
    ("26.6 * 37.5 = 997.5 crowns", ["26.6", "37.5"], None),  # a sum written out, and right
    ("26.6 * 37.5 = 990 crowns", ["26.6", "37.5"], "990"),  # and wrong: the arithmetic check's case
    ("A leap year has 366 days of 3,600 seconds: 31,622,400 seconds.", ["31622400"], None),  # only the last
    ("It is 480,600 crowns for 2 plants.", ["12.5"], "480,600"),  # small whole numbers are counts
    ("It grows in GH-03, checked at 11:30 by keeper t14.", [""], None),  # ids and times are no numbers
    ("The Frostvine is out of stock.", ["{}"], None),
    ("About 5,100 crowns.", ["5102.76"], None),  # rounded to hundreds
    ("There are 12 books by her.", ['[' + ",".join(['{"id": "B-01"}'] * 12) + "]"], None),  # a list's length
    ("1. Dune\n2. Emma\n12. Ulysses", ["[]"], None),  # list items
    ("It is due on March 19.", ['{"due": "2024-03-19"}'], None),  # a source's number may be inside anything
    ("It is order 1042, 4500 kg, at dock 14.", ['{"order": "ORD-1042", "kg": "4500kg", "dock": "dock_14"}'], None),
    ("The total value is 5102.76 crowns.", ['{"total":5102.76}'], None),
    ("120 × 12.5 = 1500 and 84 × 42.89 = 3602.76, so the total is 5102.76", ["120 12.5 84 42.89"], None),
    ("The average grade is 85.33.", ['{"grades": [80, 90, 86]}'], "85.33"),
])
def test_unsourced_number_is_the_last_number_no_source_gives(answer, sources, unsourced):
    assert unsourced_number(answer, sources) == unsourced


def test_a_head_sum_after_the_lookups_is_sent_back_to_compute_it():
    llm = ScriptedLLM([*LOOKUPS, SEEN_HEAD_SUM, SUM, "The combined value is 5102.76 crowns."])
    agent = ToolCallingAgent("t", llm, tools=[find_plant, calculate], verbose=False)
    assert agent.run(TASK) == "The combined value is 5102.76 crowns." and llm.calls == 5
    assert llm.requests[3].messages[-1]["content"] == UNSOURCED_NUDGE.format(
        number="480,600", how=COMPUTE_IT.format(tool="calculate"))
    assert "the answer gives 480,600, which no tool result shows" in agent.last_result.steps_of("warning")[0].content


def test_text_react_is_sent_back_its_head_sum_too():
    seen = "Final Answer: The combined value in crowns of the Moonpetal Lily and the Glasswort Pearl stock is 5101.36."
    lookup = 'Thought: look\nAction: find_plant\nAction Input: {{"name": "{}"}}'
    llm = ScriptedLLM([lookup.format("Moonpetal Lily"), lookup.format("Glasswort Pearl"), seen,
                       'Thought: sum\nAction: calculate\nAction Input: {"expression": "120 * 12.5 + 84 * 42.89"}',
                       "Final Answer: 5102.76"])
    agent = ReActAgent("r", llm, tools=[find_plant, calculate], verbose=False)
    assert agent.run(TASK) == "5102.76" and llm.calls == 5
    assert "Your answer gives 5101.36, but no tool result shows that number." in \
        llm.requests[3].messages[-1]["content"]


def test_the_nudge_comes_once_per_run_and_then_the_answer_stands():
    llm = ScriptedLLM([*LOOKUPS, SEEN_HEAD_SUM, SEEN_HEAD_SUM])
    agent = ToolCallingAgent("t", llm, tools=[find_plant, calculate], verbose=False)
    assert agent.run(TASK) == SEEN_HEAD_SUM and llm.calls == 4
    assert agent.last_result.status == OK


@pytest.mark.parametrize("replies, answer", [
    (["391"], "391"),  # no tool call worked: nothing to check the number against
    ([LOOKUPS[0], "The Moonpetal Lily stock is 120 plants."], "The Moonpetal Lily stock is 120 plants."),
    ([LOOKUPS[0], SUM, "It is 5102.76 crowns."], "It is 5102.76 crowns."),
])
def test_an_answer_whose_number_a_result_gives_is_not_sent_back(replies, answer):
    llm = ScriptedLLM(replies)
    agent = ToolCallingAgent("t", llm, tools=[find_plant, calculate], verbose=False)
    assert agent.run(TASK) == answer and llm.calls == len(replies)
    assert not agent.last_result.steps_of("warning")


def test_a_plan_step_without_a_calculator_is_asked_for_the_values_as_the_results_give_them():
    """Seen in t14: the step named keeper_profile only, and its executor answered with a wrong product."""
    llm = ScriptedLLM([
        '{"steps": ["Find Marisol Achterberg\'s hourly wage and weekly hours with keeper_profile", '
        '"Multiply them with calculate"]}',
        'Action: keeper_profile\nAction Input: {"name": "Marisol Achterberg"}', "Final Answer: 1234.16",
        "Final Answer: hourly wage 28.9, weekly hours 44",
        'Action: calculate\nAction Input: {"expression": "28.9 * 44"}', "Final Answer: 1271.6",
        "Marisol Achterberg earns 1271.6 crowns a week."])
    agent = PlanExecuteAgent("pe", llm, tools=[keeper_profile, calculate], verbose=False)
    assert agent.run("What does Marisol Achterberg earn in a week?") == "Marisol Achterberg earns 1271.6 crowns a week."
    assert llm.requests[3].messages[-1]["content"].endswith(
        UNSOURCED_NUDGE.format(number="1234.16", how=QUOTE_RESULTS))
    results = [step.data["result"] for step in agent.last_result.steps_of("plan_step") if "result" in step.data]
    assert results == ["hourly wage 28.9, weekly hours 44", "1271.6"]


def test_an_agent_without_a_calculating_tool_is_not_sent_back():
    """It can only work numbers out itself: asking it for the values would undo a right total."""
    llm = ScriptedLLM([*LOOKUPS, "The total value is 5102.76 crowns."])
    agent = ToolCallingAgent("t", llm, tools=[find_plant], verbose=False)
    assert agent.run(TASK) == "The total value is 5102.76 crowns." and llm.calls == 3


def _described(name: str, description: str):
    def run(text: str) -> str:
        return text
    run.__name__, run.__doc__ = name, description
    return tool(run)


@pytest.mark.parametrize("tools, named", [
    ([("plan_route", "Compute the shipping route between two ports."), ("calc", "Do sums.")], "calc"),
    ([("search_catalog", "Search the catalog with a regular expression."),
      ("evaluate", "Evaluate an arithmetic expression.")], "evaluate"),
    ([("math_eval", "Evaluate."), ("lookup", "Look up a book.")], "math_eval"),
    ([("plan_route", "Compute the shipping route."), ("search", "Regular expression search.")], None),
])
def test_the_calculating_tool_is_found_by_its_name_else_by_its_description(tools, named):
    agent = ToolCallingAgent("t", ScriptedLLM([]), tools=[_described(*pair) for pair in tools], verbose=False)
    assert _computing_tool(agent) == named


def test_a_number_only_a_failed_call_or_a_wrong_sum_wrote_is_still_unsourced():
    failed = {"tool_calls": [{"name": "find_plant", "arguments": {"name": "480600"}}]}  # KeyError: a failed call
    sums = "Moonpetal Lily: 120 * 12.5 = 480600"  # corrected to 1500
    llm = ScriptedLLM([LOOKUPS[0], failed, LOOKUPS[1], sums, SEEN_HEAD_SUM, SUM, "It is 5102.76 crowns."])
    agent = ToolCallingAgent("t", llm, tools=[find_plant, calculate], verbose=False)
    assert agent.run(TASK) == "It is 5102.76 crowns."
    assert llm.requests[4].messages[-1]["content"].startswith("Correction: 120 * 12.5 = 1500, not 480600.")
    assert llm.requests[5].messages[-1]["content"].startswith("Your answer gives 480,600, but no tool result")
