"""What an approver is shown is what the tool gets, and nothing done to a shown copy reaches the tool
(docs/tools.md, "The gate", question 4)."""

import enum
import json
import threading
from dataclasses import dataclass
from typing import Any

from vero import Agent, tool
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


class Mode(enum.Enum):
    SOFT = "soft"
    PURGE = "purge"


@dataclass
class Order:
    sku: str
    qty: int


@tool
def wipe(mode: Mode, order: Order) -> str:
    """Wipe an order's stock."""
    RAN.append(("wipe", (mode, order)))
    return "wiped"


def test_the_approver_sees_json_values_an_enum_as_its_value_and_a_dataclass_as_a_dict():
    shown = []

    def approve(call):
        shown.append(json.dumps(call.arguments))  # an audit log: JSON values only
        return "no purges" if call.arguments["mode"] == "purge" else True

    RAN.clear()
    call = {"name": "wipe", "arguments": {"mode": "purge", "order": {"sku": "a-1", "qty": "2"}}}
    llm = ScriptedLLM([{"tool_calls": [call]}, "done"])
    ToolCallingAgent("w", llm, tools=[wipe], verbose=False, approve_tool=approve).run("wipe a-1")
    assert RAN == [] and shown == ['{"mode": "purge", "order": {"sku": "a-1", "qty": 2}}']


def test_arguments_that_cannot_be_copied_still_reach_a_custom_agent_s_tool():
    @tool(read_only=True)
    def locked_read(guard: Any, key: str) -> str:
        """Read a key under a lock."""
        with guard:
            return f"value of {key}"

    class Direct(Agent):
        def solve(self, task):
            return self.run_tool("locked_read", {"guard": threading.Lock(), "key": "k"}).output

    assert Direct("d", ScriptedLLM([]), tools=[locked_read], verbose=False).run("read k") == "value of k"


def test_a_refusal_reason_holding_text_utf8_cannot_carry_reaches_the_model_marked():
    agent = _agent(
        {"name": "pay", "arguments": {"account": 7, "amount": 5}}, approve_tool=lambda call: "caf\udce9 locked"
    )
    agent.run("pay")
    observation = next(step for step in agent.last_result.steps if step.kind == "observation")
    assert agent.last_result.status == "ok" and "caf\ufffd locked" in observation.content
