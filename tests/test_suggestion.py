"""A failed call whose error suggests the value it meant runs again with that value.

Seen on Qwen2.5-Coder-1.5B in plan-and-execute (t28, t23): ``find_plant(name='Moon Petal Lilies')``
got ``no plant named 'Moon Petal Lilies'. Did you mean: Moonpetal Lily?`` and the executors made the
same call again, or answered with the error, step after step.
"""

import pytest
from correction_helpers import NoRepairAgent, agent_for, native

from vero import tool
from vero.agents import PlanExecuteAgent
from vero.core.result import OK
from vero.core.suggestion import suggested
from vero.testing import ScriptedLLM

STOCK = {"Moonpetal Lily": 1288, "Sunthistle": 904}
CALLS: list = []


def lookup(name: str) -> dict:
    CALLS.append(name)
    if name not in STOCK:
        close = [known for known in STOCK if known.split()[0].casefold() in name.casefold().replace(" ", "")]
        return {"error": f"no plant named {name!r}." + (f" Did you mean: {close[0]}?" if close else "")}
    return {"name": name, "stock": STOCK[name]}


@tool
def find_plant(name: str) -> dict:
    """Look up a plant by its name."""
    return lookup(name)


@tool(auto_correct=False)
def order_plants(name: str) -> dict:
    """Order more plants of a kind (it changes something: vero runs only the model's own calls)."""
    return lookup(name)


@pytest.mark.parametrize("protocol", ["tool_calling", "native", "text"])
def test_the_suggested_name_runs_at_once(protocol):
    CALLS.clear()
    if protocol == "text":
        replies = ['Thought: look\nAction: find_plant\nAction Input: {"name": "Moon Petal Lilies"}',
                   "Final Answer: 1288"]
    else:
        replies = [native("find_plant", name="Moon Petal Lilies"), "1288"]
    llm = ScriptedLLM(replies)
    agent = agent_for(protocol, llm, [find_plant])
    assert agent.run("How many Moon Petal Lilies are in stock?") == "1288"
    assert CALLS == ["Moon Petal Lilies", "Moonpetal Lily"] and llm.calls == 2
    sent = llm.requests[1].messages[-1]["content"]
    assert ("(The error suggests 'Moonpetal Lily' for 'Moon Petal Lilies': ran find_plant(name='Moonpetal Lily') "
            "instead:)") in sent and "1288" in sent
    result = agent.last_result
    assert result.status == OK
    assert "Did you mean" in result.steps_of("observation")[0].content  # the first error is kept


def test_a_plan_steps_executor_takes_the_suggestion():
    CALLS.clear()
    llm = ScriptedLLM(['{"steps": ["Find the Sunthistle\'s stock with find_plant"]}',
                       'Action: find_plant\nAction Input: {"name": "Sunthistle\'s greenhouse"}',
                       "Final Answer: 904", '{"response": "904"}'])
    agent = PlanExecuteAgent("p", llm, tools=[find_plant], verbose=False)
    assert agent.run("How many Sunthistle plants are in stock?") == "904"
    assert CALLS == ["Sunthistle's greenhouse", "Sunthistle"] and agent.last_result.status == OK


def test_a_tool_made_with_auto_correct_false_runs_only_the_models_call():
    CALLS.clear()
    llm = ScriptedLLM([native("order_plants", name="Moon Petal Lilies"), "Not ordered.", "Not ordered."])
    NoRepairAgent("t", llm, tools=[order_plants], verbose=False).run("Order Moon Petal Lilies.")
    assert CALLS == ["Moon Petal Lilies"]
    assert "Did you mean: Moonpetal Lily?" in llm.requests[1].messages[-1]["content"]


def test_a_rewrapped_tool_keeps_auto_correct_false_and_its_timeout():
    """Found by review: re-wrapping a tool under another name turned its corrections back on."""
    from vero.tool.base import Tool
    slow = tool(timeout=3, auto_correct=False)(lookup)
    for wrapped in (Tool(slow, name="place_order"), tool(name="place_order")(slow), Tool.from_function(slow)):
        assert wrapped.auto_correct is False and wrapped.timeout == 3
    assert Tool(slow, auto_correct=True, timeout=5).auto_correct is True  # unless given again


def test_a_suggestion_that_fails_too_is_answered_with_the_first_error():
    CALLS.clear()

    @tool
    def strict_plant(name: str) -> dict:
        """Look up a plant by its exact name."""
        CALLS.append(name)
        return {"error": f"no plant named {name!r}. Did you mean: Moonpetal Lilly?"}

    llm = ScriptedLLM([native("strict_plant", name="Moon Petal Lilies"), "unknown", "unknown"])
    NoRepairAgent("t", llm, tools=[strict_plant], verbose=False).run("How many Moon Petal Lilies are in stock?")
    assert CALLS == ["Moon Petal Lilies", "Moonpetal Lilly"]  # the correction is not corrected again
    sent = llm.requests[1].messages[-1]["content"]
    assert "no plant named 'Moon Petal Lilies'" in sent and "The error suggests" not in sent


@pytest.mark.parametrize("args, error, expected", [
    ({"name": "Moon Petal Lilies"}, "no plant named 'Moon Petal Lilies'. Did you mean: Moonpetal Lily?",
     ("name", "Moonpetal Lily")),
    ({"name": "Velvet Nettles"}, 'No plant "Velvet Nettles" - did you mean \'Velvet Nettle\'?',
     ("name", "Velvet Nettle")),
    ({"name": "Velvet Nettles"}, "Unknown plant Velvet Nettles. Did you mean `Velvet Nettle`?",
     ("name", "Velvet Nettle")),
    ({"name": "Velvet Nettles", "unit": "crowns"}, "no plant named 'Velvet Nettles'. Did you mean: Velvet Nettle?",
     ("name", "Velvet Nettle")),
    # several suggestions: which one is meant is the model's to say
    ({"name": "Nettle"}, "no plant named 'Nettle'. Did you mean: Velvet Nettle or Cinder Nettle?", None),
    ({"name": "Nettle"}, "no plant named 'Nettle'. Did you mean one of: Velvet Nettle, Cinder Nettle?", None),
    ({"name": "Nettle"}, "no plant 'Nettle'. Did you mean 'Velvet Nettle' or 'Cinder Nettle'?", None),
    # about a part of the argument, not the whole value
    ({"code": "print(totl)"}, "NameError: name 'totl' is not defined. Did you mean: 'total'?", None),
    # the error does not name the value: it may be about another argument
    ({"name": "Moonpetal Lily"}, "no such unit. Did you mean: crowns?", None),
    ({"name": "Moonpetal Lily"}, "no plant named 'Moonpetal Lily'. Did you mean: Moonpetal Lily?", None),  # the same
    ({"name": "Moon Lily"}, "no plant named 'Moon Lily'.", None),  # no suggestion
    ({"count": 3}, "no 3. Did you mean: 4?", None),  # not text
    # found by review in other worlds: a question, not a suggestion; two suggestions; another argument's value
    ({"customer": "Ann Lee"}, "Ann Lee has several accounts. Did you mean to search by email?", None),
    ({"title": "Dune Mesiah"}, "no book 'Dune Mesiah'. Did you mean 'Dune Messiah'? Or maybe 'Children of Dune'?",
     None),
    ({"author": "Tolkien", "genre": "fantsy"}, "no books by Tolkien in that genre. Did you mean: fantasy?", None),
    ({"name": "Jon Smith"}, "no user 'Jon Smith'. Did you mean: John Smith. Is the spelling right?", None),
])
def test_suggested(args, error, expected):
    assert suggested(args, error) == expected


def test_a_long_run_of_spaces_is_read_at_once():
    """Found by review: a suggestion pattern with two ways to read spaces took minutes on 2,000 of them."""
    for error in ["Did you mean" + " " * 100_000, "Did you mean\n" + "        \n" * 20_000,
                  "Did you mean:" + " " * 100_000 + "x", "no 'x'. Did you mean " + "'" * 50_000]:
        assert suggested({"name": "x"}, error) is None
