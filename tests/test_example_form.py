"""A failed call whose number is not written in the form the error's example shows runs again in that form.

Seen on Qwen2.5-Coder-1.5B in every vero agent: asked "In which city is greenhouse 1?", the model calls
``greenhouse_info(greenhouse_id='1')``; the tool answers ``unknown greenhouse id '1'. Greenhouse ids are
written like 'GH-04'.``, and the next call, also when vero asks for a repaired one, is for 'GH-04'.
"""

import json

import pytest
from correction_helpers import NoRepairAgent, agent_for

from vero import tool
from vero.agents import PlanExecuteAgent, ToolCallingAgent
from vero.core.example_form import in_example_form
from vero.core.result import OK
from vero.testing import ScriptedLLM

GREENHOUSES = {"GH-01": {"city": "Ostrava Vale", "keeper": "Orla Venn"},
               "GH-07": {"city": "Kestrel Fen", "keeper": "Marisol Achterberg"}}
CALLS: list = []


@tool
def greenhouse_info(greenhouse_id: str) -> dict:
    """Look up a greenhouse by its id."""
    CALLS.append(greenhouse_id)
    if greenhouse_id not in GREENHOUSES:
        return {"error": f"unknown greenhouse id {greenhouse_id!r}. Greenhouse ids are written like 'GH-04'."}
    return {"greenhouse_id": greenhouse_id, **GREENHOUSES[greenhouse_id]}


@tool
def find_plant(name: str) -> dict:
    """Look up a plant by its name."""
    return {"name": name, "greenhouse": 7}


def bare_number_call(protocol: str) -> object:
    if protocol == "text":
        return 'Thought: look it up\nAction: greenhouse_info\nAction Input: {"greenhouse_id": "1"}'
    return {"tool_calls": [{"name": "greenhouse_info", "arguments": {"greenhouse_id": "1"}}]}


def last_observation(request) -> str:
    return request.messages[-1]["content"]


@pytest.mark.parametrize("protocol", ["tool_calling", "native", "text"])
def test_a_bare_number_runs_again_in_the_form_of_the_errors_example(protocol):
    CALLS.clear()
    answer = "Final Answer: Ostrava Vale" if protocol == "text" else "Ostrava Vale"
    llm = ScriptedLLM([bare_number_call(protocol), answer])
    agent = agent_for(protocol, llm, [greenhouse_info])
    assert agent.run("In which city is greenhouse 1?") == "Ostrava Vale"
    assert CALLS == ["1", "GH-01"] and llm.calls == 2  # no model call for the second one
    sent = last_observation(llm.requests[1])
    assert ("(Written like the error's example 'GH-04', '1' is 'GH-01': "
            "ran greenhouse_info(greenhouse_id='GH-01') instead:)\n") in sent
    assert "Ostrava Vale" in sent and "unknown greenhouse id" not in sent
    result = agent.last_result
    assert result.status == OK
    assert [s.content for s in result.steps_of("action")] == ["greenhouse_info(greenhouse_id='1')",
                                                             "greenhouse_info(greenhouse_id='GH-01')"]
    assert "unknown greenhouse id '1'" in result.steps_of("observation")[0].content  # the first error is kept
    assert "written like the error's example 'GH-04'" in result.steps_of("warning")[-1].content


def test_a_plan_steps_executor_runs_the_call_in_the_examples_form():
    CALLS.clear()
    llm = ScriptedLLM(['{"steps": ["Find the city of greenhouse 1 with greenhouse_info"]}',
                       'Thought: look\nAction: greenhouse_info\nAction Input: {"greenhouse_id": "1"}',
                       "Final Answer: Ostrava Vale", '{"response": "Ostrava Vale"}'])
    agent = PlanExecuteAgent("p", llm, tools=[greenhouse_info], verbose=False)
    assert agent.run("In which city is greenhouse 1?") == "Ostrava Vale"
    assert CALLS == ["1", "GH-01"] and agent.last_result.status == OK


def test_the_number_may_come_from_an_earlier_result():
    CALLS.clear()
    llm = ScriptedLLM([{"tool_calls": [{"name": "find_plant", "arguments": {"name": "Frostvine"}}]},
                       {"tool_calls": [{"name": "greenhouse_info", "arguments": {"greenhouse_id": "7"}}]},
                       "Kestrel Fen"])
    agent = ToolCallingAgent("t", llm, tools=[find_plant, greenhouse_info], verbose=False)
    assert agent.run("Where does the Frostvine grow?") == "Kestrel Fen"
    assert CALLS == ["7", "GH-07"]


def test_a_made_up_number_is_not_rewritten():
    # seen: greenhouse_info(greenhouse_id='12345'), a placeholder no text gave
    CALLS.clear()
    made_up = {"tool_calls": [{"name": "greenhouse_info", "arguments": {"greenhouse_id": "12345"}}]}
    llm = ScriptedLLM([made_up, "I could not find it.", "I could not find it."])
    NoRepairAgent("t", llm, tools=[greenhouse_info], verbose=False).run(
        "Who keeps the greenhouse of the Frostvine?")
    assert CALLS == ["12345"]
    assert "unknown greenhouse id '12345'" in last_observation(llm.requests[1])


def test_a_rewritten_call_that_fails_too_is_answered_with_the_first_error():
    CALLS.clear()
    llm = ScriptedLLM([{"tool_calls": [{"name": "greenhouse_info", "arguments": {"greenhouse_id": "9"}}]},
                       "I could not find greenhouse 9.", "I could not find greenhouse 9."])
    agent = NoRepairAgent("t", llm, tools=[greenhouse_info], verbose=False)
    agent.run("In which city is greenhouse 9?")
    assert CALLS == ["9", "GH-09"]  # once each: the rewriting of 'GH-09' is 'GH-09', so nothing more runs
    sent = last_observation(llm.requests[1])
    assert "unknown greenhouse id '9'" in sent and "Written like" not in sent
    assert [s.content for s in agent.last_result.steps_of("action")][-1] == "greenhouse_info(greenhouse_id='GH-09')"


@tool
def room_info(room: str) -> str:
    """Look up a room by its number."""
    CALLS.append(room)
    raise ValueError(f"no room {room!r}; rooms are named like 'R-104'")


def test_an_error_raised_by_the_tool_counts_too():
    CALLS.clear()
    llm = ScriptedLLM([{"tool_calls": [{"name": "room_info", "arguments": {"room": "12"}}]}, "unknown", "unknown"])
    NoRepairAgent("t", llm, tools=[room_info], verbose=False).run("Who is in room 12?")
    assert CALLS == ["12", "R-012"]


SEEN = "In which city is greenhouse 7?"
ERROR = json.dumps({"error": "unknown greenhouse id '7'. Greenhouse ids are written like 'GH-04'."})


@pytest.mark.parametrize("value, error, written", [
    ("7", ERROR, "GH-07"),
    (7, ERROR, "GH-07"),  # an int argument
    ("GH7", ERROR.replace("'7'", "'GH7'"), "GH-07"),
    ("GH-7", ERROR.replace("'7'", "'GH-7'"), "GH-07"),
    ("greenhouse 7", ERROR.replace("'7'", "'greenhouse 7'"), "GH-07"),
    ("0007", ERROR.replace("'7'", "'0007'"), "GH-07"),
    ("7", "unknown id '7'; ids look like 'E-0042'", "E-0007"),  # as wide as the example's digits
    ("7", "no such id. Ids look like 'GH-04', e.g. 'GH-12'", "GH-07"),  # two examples that agree
    ("7", "no such id; written like `GH-04`", "GH-07"),  # backticks
    ("7", "no such id; written like \u2018GH-04\u2019", "GH-07"),  # typographic quotes
    ("7", "Error: tool 'x' raised KeyError: \"no greenhouse '7'; ids like 'GH-04'\"", "GH-07"),
    ("7", "the keeper's greenhouse '7' is unknown; ids look like 'GH-04'", "GH-07"),  # an apostrophe before
    ("7", "Format: 'GH-04'", "GH-07"),
    ("7", "no such id. Ids look like 'GH-04' or like 'B7-X'", None),  # two that disagree
    ("7", "no such id. Known: 'GH-04', 'GH-12'", None),  # quoted, but not given as examples
    ("7", "bad date '7'; dates are written like '2024-01-05'", None),  # more than one run of digits
    ("7", "bad id '7'; ids are numbers such as '0042'", None),  # a bare number shows no form
    ("7", "no plant named '7'. Known names: Frostvine, Emberroot", None),  # no example
    ("GH-07", ERROR.replace("'7'", "'GH-07'"), None),  # already in the form
    ("12345", ERROR.replace("'7'", "'12345'"), None),  # a number no text gave
    ("-7", ERROR.replace("'7'", "'-7'"), None),  # a sign is not a form
    ("7.5", ERROR.replace("'7'", "'7.5'"), None),  # nor a decimal
    ("GH-7 or GH-04", ERROR, None),  # two runs of digits in the value
    ("greenhouse_info('7')['city']", ERROR, None),  # an expression, not a number in words
    # quoted words that are no example
    ("7", "could not reach host 'db1'", None),
    ("7", "order '7' is stored in warehouse 'WH2', not here", None),
    ("7", "SKU '7' is discontinued; replaced by 'SKU-5678'", None),
    ("7", "discount '7' exceeds the maximum of '10%'", None),
    ("7", "amount '7' exceeds the daily limit of '$50'", None),
    ("7", "room '7' is occupied; the nearest free room is 'B14'", None),
    ("7", "Traceback:\n  File \"/srv/app2/tools.py\", line 3\nKeyError: '7'", None),
    ("7", json.dumps({"error": {"code": "E404", "message": "order 7 not found"}}), None),
    ("7", "numbers are written like '+15551234567'", None),  # a long run of digits: a phone number
    ("2024", "quarters are written like 'Q1'", None),  # a number wider than the example's place for it
])
def test_only_a_number_the_task_gave_is_rewritten_and_only_by_an_example(value, error, written):
    rewritten = in_example_form({"greenhouse_id": value}, error, SEEN + " Or in 2024?")
    assert (rewritten[0]["greenhouse_id"] if rewritten else None) == written


def test_the_quoted_value_is_the_one_rewritten_and_a_tools_name_is_no_example():
    error = "Error: tool 'lookup_v2' raised ValueError: no keeper at desk '3'; desks are written like 'D-12'"
    rewritten = in_example_form({"name": "Orla", "desk": "3"}, error, "desk 3", tools=["lookup_v2"])
    assert rewritten == ({"name": "Orla", "desk": "D-03"}, "desk", "D-12")
    assert in_example_form({"name": "Orla", "desk": "3"}, "unknown desk; like 'D-12'", "desk 3") is None  # which?
    two = in_example_form({"room": "12", "day": "2024-05-01"}, "no room '12' on '2024-05-01'; rooms look like 'R-104'",
                          "room 12 on 2024-05-01")
    assert two == ({"room": "R-012", "day": "2024-05-01"}, "room", "R-104")  # the date is no number in words


@pytest.mark.parametrize("seen", [
    "Who keeps the greenhouse of the Frostvine? " + json.dumps({"planted": "2024-05-01"}),  # a part of a date
    "Who keeps the greenhouse of the Frostvine? " + json.dumps({"greenhouse_id": "GH-01"}),  # a part of an id
    "Read it: 3." + "1415926535" * 500,  # a run of 5,000 digits: compared as text, not by int()
])
def test_a_number_is_seen_only_where_it_stands_alone(seen):
    assert in_example_form({"greenhouse_id": "1"}, ERROR.replace("'7'", "'1'"), seen) is None


def test_an_integer_parameter_is_not_given_text():
    assert in_example_form({"greenhouse_id": 7}, ERROR, SEEN, strings=set()) is None
    rewritten = in_example_form({"greenhouse_id": 7}, ERROR, SEEN, strings={"greenhouse_id"})
    assert rewritten[0] == {"greenhouse_id": "GH-07"}


def test_an_error_nested_past_what_json_can_read_is_read_as_text():
    deep = '{"error": ' + "[" * 200_000 + "]" * 200_000 + "}"
    assert in_example_form({"greenhouse_id": "7"}, deep, SEEN) is None


@tool
def fussy_info(greenhouse_id: str) -> dict:
    """Look up a greenhouse by its id; its errors show the form in upper case, but it takes lower case."""
    CALLS.append(greenhouse_id)
    if greenhouse_id == "gh-01":
        return {"city": "Ostrava Vale"}
    example = "gh-04" if greenhouse_id.startswith("GH") else "GH-04"
    return {"error": f"unknown id {greenhouse_id!r}; ids are written like {example!r}"}


def test_a_rewritten_call_is_not_rewritten_again():
    # '1' -> 'GH-01' -> 'gh-01' would be two rewritings from one model call
    CALLS.clear()
    llm = ScriptedLLM([{"tool_calls": [{"name": "fussy_info", "arguments": {"greenhouse_id": "1"}}]},
                       "unknown", "unknown"])
    NoRepairAgent("t", llm, tools=[fussy_info], verbose=False).run("In which city is greenhouse 1?")
    assert CALLS == ["1", "GH-01"]


@tool
def numbered_info(greenhouse_id: int) -> dict:
    """Look up a greenhouse by its number."""
    CALLS.append(greenhouse_id)
    return {"error": f"unknown greenhouse {greenhouse_id}; ids are written like 'GH-04'"}


def test_a_call_to_an_integer_parameter_runs_once():
    CALLS.clear()
    llm = ScriptedLLM([{"tool_calls": [{"name": "numbered_info", "arguments": {"greenhouse_id": 7}}]},
                       "unknown", "unknown"])
    NoRepairAgent("t", llm, tools=[numbered_info], verbose=False).run("In which city is greenhouse 7?")
    assert CALLS == [7]


def test_a_run_tool_override_with_the_documented_signature_still_gets_the_rerun():
    # docs/custom-agents.md overrides run_tool(self, name, args): the rerun goes through it too
    CALLS.clear()
    seen = []

    class Careful(ToolCallingAgent):
        def run_tool(self, name, args):
            seen.append(args)
            return super().run_tool(name, args)

    llm = ScriptedLLM([bare_number_call("tool_calling"), "Ostrava Vale"])
    assert Careful("t", llm, tools=[greenhouse_info], verbose=False).run("In which city is greenhouse 1?") \
        == "Ostrava Vale"
    assert CALLS == ["1", "GH-01"] and len(seen) == 2
