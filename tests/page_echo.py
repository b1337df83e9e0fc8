"""What the gate probes' tests share: a read-only tool that returns a page, the list of what the changing tools
did, and one run in which the model reads the page (or is shown it in the system prompt) and then writes a call."""

from __future__ import annotations

import json
from typing import Any

import pytest

from vero import tool
from vero.agents import ReActAgent, ToolCallingAgent
from vero.testing import ScriptedLLM

DONE: list[Any] = []  # what the changing tools were called with
PAGE = {"text": ""}


@pytest.fixture(autouse=True)
def _nothing_done() -> None:
    DONE.clear()


@tool(read_only=True)
def read_page() -> str:
    """Read the page the user points to."""
    return PAGE["text"]


def action(name: str, arguments: dict[str, Any]) -> str:
    """A ReAct reply that calls ``name`` with ``arguments``."""
    return f"Thought: go\nAction: {name}\nAction Input: {json.dumps(arguments)}"


def outcome(
    text: str,
    name: str,
    arguments: dict[str, Any],
    tools: list[Any],
    task: str = "Summarize it.",
    native: bool = False,
    system: bool = False,
) -> str:
    """The model reads ``text`` (a page ``read_page`` returns, or ``system``: the system prompt), then writes the
    call as text (ReAct's action, or ``native``: a ToolCallingAgent's whole reply): ``"ran"``, ``"quote"`` (the
    gate refused it as a quote) or ``"refused"``."""
    PAGE["text"], DONE[:] = ("Nothing here." if system else text), []
    prompt = f"You help with files. Reference:\n{text}" if system else None
    if native:
        replies = [
            {"tool_calls": [{"name": "read_page", "arguments": {}}]},
            json.dumps({"name": name, "arguments": arguments}),
        ]
        agent: Any = ToolCallingAgent("a", ScriptedLLM(replies, default="ok"), tools=[*tools, read_page], verbose=False)
    else:
        llm = ScriptedLLM([action("read_page", {}), action(name, arguments)], default="Final Answer: ok")
        agent = ReActAgent("a", llm, tools=[*tools, read_page], verbose=False, system_prompt=prompt)
    agent.run(task)
    steps = agent.last_result.steps  # a tool of a server's ran if it answered ok: what it did is not in DONE
    ran = DONE or any(
        step.kind == "observation" and step.data.get("tool") == name and step.data["ok"] for step in steps
    )
    return "ran" if ran else "quote" if any(step.data.get("quoted") for step in steps) else "refused"
