"""Shared by the tests of vero's corrections of failed calls (vero.core.corrections)."""

from vero.agents import ReActAgent, ToolCallingAgent


def native(tool_name: str, **args) -> dict:
    """A scripted reply with one native tool call."""
    return {"tool_calls": [{"name": tool_name, "arguments": args}]}


class NoRepairAgent(ToolCallingAgent):
    max_repairs = 0  # no separate request to repair a failed call: the scripts stay short


def agent_for(protocol: str, llm, tools: list):
    """ToolCallingAgent for "tool_calling", else ReActAgent with that protocol ("native", "text")."""
    if protocol == "tool_calling":
        return ToolCallingAgent("t", llm, tools=tools, verbose=False)
    return ReActAgent("t", llm, tools=tools, protocol=protocol, verbose=False)
