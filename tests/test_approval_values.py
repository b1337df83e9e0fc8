"""What an approver is shown is what the tool gets, and nothing done to a shown copy reaches the tool
(docs/tools.md, "The gate", question 4)."""

from typing import Any

from vero import tool
from vero.agents import ToolCallingAgent
from vero.testing import ScriptedLLM

RAN: list[tuple[str, Any]] = []


@tool
def pay(account: int, amount: float) -> str:
    """Pay an account."""
    RAN.append(("pay", (account, amount)))
    return "paid"


@tool
def notify(recipients: Any) -> str:
    """Send a note to recipients."""
    recipients.append("extra@example.org")  # a tool that changes the list it was given
    RAN.append(("notify", list(recipients)))
    return "sent"


def _agent(call: dict[str, Any], **options: Any) -> ToolCallingAgent:
    RAN.clear()
    llm = ScriptedLLM([{"tool_calls": [call]}, "done"])
    return ToolCallingAgent("payer", llm, tools=[pay, notify], verbose=False, **options)


def test_the_approver_sees_the_values_the_tool_would_get_not_the_text_they_were_written_as():
    shown = []

    def approve(call):
        shown.append(call.arguments)
        return "account blocked" if call.arguments["account"] == 500 else True

    agent = _agent({"name": "pay", "arguments": '{"account": "0500", "amount": "5"}'}, approve_tool=approve)
    agent.run("pay account 500")
    assert shown == [{"account": 500, "amount": 5.0}] and RAN == []
    assert [step.data["args"] for step in agent.last_result.steps if step.kind == "approval"] == shown


def test_a_listener_that_changes_what_it_is_shown_changes_nothing_that_runs():
    def redact(event):  # a logger that masks values in place
        if event.type in ("tool_approval", "tool_call"):
            event.data["args"]["account"] = 999

    agent = _agent({"name": "pay", "arguments": {"account": 7, "amount": 5}}, approve_tool=lambda call: True)
    agent.events.callbacks.append(redact)
    agent.run("pay account 7")
    assert RAN == [("pay", (7, 5.0))]
    action = next(step for step in agent.last_result.steps if step.kind == "action")
    assert action.data["args"] == {"account": 7, "amount": 5}


def test_a_tool_that_changes_its_arguments_does_not_rewrite_what_was_approved():
    agent = _agent({"name": "notify", "arguments": {"recipients": ["a@example.org"]}}, approve_tool=lambda call: True)
    agent.run("tell a")
    assert RAN == [("notify", ["a@example.org", "extra@example.org"])]
    recorded = [step.data["args"] for step in agent.last_result.steps if step.kind in ("approval", "action")]
    assert recorded == [{"recipients": ["a@example.org"]}] * 2


def test_a_number_written_as_text_that_a_float_would_round_is_refused_for_a_tool_that_may_change_things():
    for written in ("2.9999999999999999", "-9007199254740993", "9007199254740993.0"):
        agent = _agent({"name": "pay", "arguments": {"account": 7, "amount": written}})
        agent.run("pay")
        observation = next(step for step in agent.last_result.steps if step.kind == "observation")
        assert RAN == [] and observation.data["ok"] is False, written
