"""A failed call whose error lists the known values runs again with the one the conversation gave.

Seen on Qwen2.5-Coder-1.5B in plan-and-execute (t23): after ``greenhouse_info`` returned
``"keeper": "Tamsin Reed"``, a step's executor called ``keeper_profile(name="Sunthistle's greenhouse")``,
read ``no keeper named "Sunthistle's greenhouse". Known names: Orla Venn, Tamsin Reed, ...`` and made the
same call again; in other tasks it called ``keeper_profile(name='GH-03')`` and ``name='Keeper Y'``.
"""

import json

import pytest
from correction_helpers import NoRepairAgent, native

from vero import tool
from vero.agents import ToolCallingAgent
from vero.core.listed_value import listed_value
from vero.core.result import OK
from vero.testing import ScriptedLLM

KEEPERS = {"Orla Venn": 38, "Tamsin Reed": 40, "Idris Calloway": 35}
CALLS: list = []


@tool
def greenhouse_info(greenhouse_id: str) -> dict:
    """Look up a greenhouse by its id."""
    return {"greenhouse_id": greenhouse_id, "keeper": "Tamsin Reed", "capacity": 900}


@tool
def keeper_profile(name: str) -> dict:
    """Look up a keeper by their full name."""
    CALLS.append(name)
    if name not in KEEPERS:
        return {"error": f"no keeper named {name!r}. Known names: {', '.join(KEEPERS)}."}
    return {"name": name, "weekly_hours": KEEPERS[name]}


def test_the_keeper_an_earlier_result_named_is_looked_up():
    CALLS.clear()
    llm = ScriptedLLM([native("greenhouse_info", greenhouse_id="GH-02"),
                       native("keeper_profile", name="Sunthistle's greenhouse"), "40"])
    agent = ToolCallingAgent("t", llm, tools=[greenhouse_info, keeper_profile], verbose=False)
    assert agent.run("How many hours a week does the keeper of greenhouse GH-02 work?") == "40"
    assert CALLS == ["Sunthistle's greenhouse", "Tamsin Reed"] and llm.calls == 3
    sent = llm.requests[2].messages[-1]["content"]
    assert ("(\"Sunthistle's greenhouse\" is not one of the known values; 'Tamsin Reed' is, and greenhouse_info "
            "gave it: ran keeper_profile(name='Tamsin Reed') instead:)") in sent
    assert agent.last_result.status == OK


def test_a_name_the_task_gives_is_taken():
    CALLS.clear()
    llm = ScriptedLLM([native("keeper_profile", name="Idris"), "35"])
    ToolCallingAgent("t", llm, tools=[keeper_profile], verbose=False).run("How many hours does Idris Calloway work?")
    assert CALLS == ["Idris", "Idris Calloway"]
    assert "'Idris Calloway' is, and the task gave it" in llm.requests[1].messages[-1]["content"]


def test_two_names_given_leave_the_choice_to_the_model():
    CALLS.clear()
    llm = ScriptedLLM([native("keeper_profile", name="the keeper"), "unknown", "unknown"])
    NoRepairAgent("t", llm, tools=[keeper_profile], verbose=False).run(
        "Who works longer, Orla Venn or the keeper of GH-02, Tamsin Reed?")
    assert CALLS == ["the keeper"]


ERROR = json.dumps({"error": "no keeper named 'Keeper Y'. Known names: Orla Venn, Tamsin Reed, Idris Calloway."})


@pytest.mark.parametrize("args, error, task, results, expected", [
    ({"name": "Keeper Y"}, ERROR, "Who keeps GH-02?", [("greenhouse_info", '{"keeper": "Tamsin Reed"}')],
     ("name", "Tamsin Reed", "greenhouse_info")),
    # the tool's own results name the records it found already, not the one the call is for
    ({"name": "Keeper Y"}, ERROR, "Who keeps GH-02?", [("keeper_profile", '{"name": "Tamsin Reed"}')], None),
    # a value the tool was already given
    ({"name": "Keeper Y"}, ERROR, "Is Tamsin Reed the keeper?", [], None),
    # other list forms
    ({"status": "done"}, "Error: unknown status 'done'; valid statuses are: open, closed, pending",
     "How many closed orders are there?", [], ("status", "closed", "the task")),
    ({"room": "big room"}, "no room 'big room'. It must be one of 'R1', 'R2', 'R3'.", "Book R2 for noon.", [],
     ("room", "R2", "the task")),
    # no list, or one value only: nothing to choose from
    ({"name": "Keeper Y"}, "no keeper named 'Keeper Y'.", "Is Tamsin Reed here?", [], None),
    ({"name": "Keeper Y"}, "no keeper named 'Keeper Y'. Known names: Tamsin Reed.", "Is Tamsin Reed here?", [], None),
    # the error does not name the value: it may be about something else
    ({"name": "Keeper Y"}, "the registry is closed. Known names: Orla Venn, Tamsin Reed.", "Tamsin Reed?", [], None),
    # a listed value inside a longer word is not given ("Reedy" is not "Reed")
    ({"kind": "x"}, "unknown kind 'x'. Valid kinds: Reed, Fern.", "How tall is the Reedy palm?", [], None),
])
def test_listed_value(args, error, task, results, expected):
    tried = {"Tamsin Reed"} if "Is Tamsin Reed the keeper?" in task else set()
    assert listed_value(args, error, task, results, "keeper_profile", tried) == expected


def test_a_long_list_is_read_at_once():
    error = "no keeper named 'x'. Known names: " + ", ".join(f"Name {i}" for i in range(50_000))
    found = listed_value({"name": "x"}, error, "Name 7 works here", [], "keeper_profile")
    assert found == ("name", "Name 7", "the task")
