"""A failed call whose id the model made up runs again with the id another tool's result gave.

Seen on Qwen2.5-Coder-1.5B in plan-and-execute: after ``find_plant`` returned
``"greenhouse_id": "GH-05"``, a step's executor called ``greenhouse_info(greenhouse_id='12345')``, and
in another task ``greenhouse_info(greenhouse_id='moonpetal_lily')``, then repeated the call.
"""

import pytest
from correction_helpers import NoRepairAgent, agent_for, native

from vero import tool
from vero.core.given_id import given_id
from vero.testing import ScriptedLLM

PLANTS = {"Frostvine": "GH-05", "Moonpetal Lily": "GH-03"}
GREENHOUSES = {"GH-03": {"city": "Quarry Hollow", "capacity": 3500},
               "GH-05": {"city": "Ashbourne Reach", "capacity": 5000}}
CALLS: list = []


@tool
def find_plant(name: str) -> dict:
    """Look up a plant by its name."""
    return {"name": name, "code": "FV-031", "greenhouse_id": PLANTS[name], "stock": 2715}


@tool
def greenhouse_info(greenhouse_id: str) -> dict:
    """Look up a greenhouse by its id."""
    CALLS.append(greenhouse_id)
    if greenhouse_id not in GREENHOUSES:
        return {"error": f"unknown greenhouse id {greenhouse_id!r}. Greenhouse ids are written like 'GH-04'."}
    return {"greenhouse_id": greenhouse_id, **GREENHOUSES[greenhouse_id]}


@pytest.mark.parametrize("protocol", ["tool_calling", "native", "text"])
def test_a_name_written_as_an_id_runs_again_with_the_id_found(protocol):
    CALLS.clear()
    if protocol == "text":
        replies = ['Thought: find it\nAction: find_plant\nAction Input: {"name": "Moonpetal Lily"}',
                   'Thought: now the city\nAction: greenhouse_info\nAction Input: {"greenhouse_id": "moonpetal_lily"}',
                   "Final Answer: Quarry Hollow"]
    else:
        replies = [native("find_plant", name="Moonpetal Lily"),
                   native("greenhouse_info", greenhouse_id="moonpetal_lily"), "Quarry Hollow"]
    llm = ScriptedLLM(replies)
    tools = [find_plant, greenhouse_info]
    agent = agent_for(protocol, llm, tools)
    assert agent.run("In which city is the Moonpetal Lily grown?") == "Quarry Hollow"
    assert CALLS == ["moonpetal_lily", "GH-03"] and llm.calls == 3
    assert "unknown greenhouse id 'moonpetal_lily'" in agent.last_result.steps_of("observation")[1].content


def test_a_rerun_that_fails_too_is_answered_with_the_first_error():
    CALLS.clear()
    PLANTS["Ghostfern"] = "GH-99"  # a greenhouse the greenhouse tool does not know
    try:
        llm = ScriptedLLM([native("find_plant", name="Ghostfern"), native("greenhouse_info", greenhouse_id="x1"),
                           "unknown", "unknown"])
        NoRepairAgent("t", llm, tools=[find_plant, greenhouse_info], verbose=False).run("Where is the Ghostfern?")
    finally:
        del PLANTS["Ghostfern"]
    assert CALLS == ["x1", "GH-99"]
    sent = llm.requests[2].messages[-1]["content"]
    assert "unknown greenhouse id 'x1'" in sent and "in neither the task" not in sent


def test_an_id_the_model_did_not_make_up_is_left_to_the_model():
    CALLS.clear()  # 'GH-09' is the task's own id: it is wrong, not made up
    llm = ScriptedLLM([native("find_plant", name="Frostvine"), native("greenhouse_info", greenhouse_id="GH-09"),
                       "unknown", "unknown"])
    NoRepairAgent("t", llm, tools=[find_plant, greenhouse_info], verbose=False).run(
        "Is the Frostvine in greenhouse GH-09?")
    assert CALLS == ["GH-09"]


RESULTS = [("find_plant", '{"name": "Frostvine", "greenhouse_id": "GH-05"}')]


@pytest.mark.parametrize("args, tool, results, expected", [
    ({"greenhouse_id": "12345"}, "greenhouse_info", RESULTS, ("greenhouse_id", "GH-05", "find_plant")),
    # two plants in two greenhouses: which one the call meant is the model's to say
    ({"greenhouse_id": "12345"}, "greenhouse_info",
     [*RESULTS, ("find_plant", '{"name": "Emberroot", "greenhouse_id": "GH-02"}')], None),
    # two results with the same id are one id
    ({"greenhouse_id": "12345"}, "greenhouse_info",
     [*RESULTS, ("find_plant", '{"name": "Duskmoss", "greenhouse_id": "GH-05"}')],
     ("greenhouse_id", "GH-05", "find_plant")),
    # the tool's own earlier result: its id is the record's own, not a link
    ({"greenhouse_id": "12345"}, "greenhouse_info", [("greenhouse_info", '{"greenhouse_id": "GH-05"}')], None),
    # a name is no id (seen: keeper_profile(name='Keeper Y') after find_plant gave "name": "Moonpetal Lily")
    ({"name": "Keeper Y"}, "keeper_profile", [("find_plant", '{"name": "Moonpetal Lily"}')], None),
    # a parameter named only "id" is any record's own id
    ({"id": "12345"}, "get_customer", [("get_order", '{"id": "ORD-7", "customer_id": "C-12"}')], None),
    ({"customer_id": "john"}, "get_customer", [("get_order", '{"id": "ORD-7", "customer_id": "C-12"}')],
     ("customer_id", "C-12", "get_order")),
    # a value a result gives is not made up
    ({"greenhouse_id": "GH-05"}, "greenhouse_info", RESULTS, None),
    ({"greenhouse_id": 12345}, "greenhouse_info", RESULTS, None),  # not text
    ({"greenhouse_id": "12345"}, "greenhouse_info", [("find_plant", "Frostvine grows in GH-05")], None),  # no record
])
def test_given_id(args, tool, results, expected):
    error = f"unknown {next(iter(args))} {next(iter(args.values()))!r}"
    assert given_id(args, tool, "How full is the Frostvine's greenhouse?", results, error) == expected


def test_a_value_the_task_gives_is_not_made_up():
    assert given_id({"greenhouse_id": "north wing"}, "greenhouse_info", "Who works in the North  Wing?",
                    RESULTS, "unknown greenhouse 'north wing'") is None


def test_only_a_value_the_error_names_is_made_up():
    # "not shipped yet" is about the order, not an unknown id: the call was right
    assert given_id({"order_id": "ORD-77"}, "shipping_status", "Has it shipped?",
                    [("get_customer", '{"name": "Ann", "order_id": "ORD-9"}')], "Error: not shipped yet") is None


def test_a_records_own_id_is_no_link():
    """Found by review (an HR world): the manager's id made up, the employee's own id is no answer."""
    results = [("find_employee", '{"employee_id": "E-17", "name": "Ann Lee", "manager_id": "E-03"}')]
    assert given_id({"employee_id": "E-3"}, "employee_info", "Who is Ann Lee's manager?", results,
                    "no employee 'E-3'") is None
    assert given_id({"manager_id": "x"}, "manager_info", "Who is Ann Lee's manager?", results,
                    "no manager 'x'") == ("manager_id", "E-03", "find_employee")


def test_an_id_from_an_earlier_turn_is_not_made_up():
    """Found by review (a shop): the order number the user gave a turn before is the one meant."""
    @tool
    def get_customer(name: str) -> dict:
        """Look up a customer."""
        return {"name": name, "order_id": "ORD-9"}

    @tool
    def shipping_status(order_id: str) -> str:
        """The shipping status of an order."""
        CALLS.append(order_id)
        return "shipped 2 May" if order_id == "ORD-9" else f"Error: no order {order_id!r} is on its way yet"

    CALLS.clear()
    llm = ScriptedLLM(["Noted.", native("get_customer", name="Ann"), native("shipping_status", order_id="ORD-77"),
                       "It has not shipped yet."])
    agent = NoRepairAgent("t", llm, tools=[get_customer, shipping_status], verbose=False)
    agent.run("My order number is ORD-77.")
    agent.run("I am Ann. Has my order shipped?")
    assert CALLS == ["ORD-77"]
