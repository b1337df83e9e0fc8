"""Native tool calling, shared by ``ToolCallingAgent`` and ``ReActAgent(protocol="native")``.

The model asks for tools through the API's ``tool_calls``; each call is run in
order and answered with a ``tool`` message carrying its ``tool_call_id``.
"""

from __future__ import annotations

from typing import Callable

from vero.core.message import Message, ToolCall


def tool_options(agent, **extra) -> dict:
    """``generate`` options offering the agent's tools natively (none if it has no tools)."""
    return {"tools": agent.tools.schemas(), **extra} if agent.tools else {}


def answer_tool_calls(agent, reply: Message, messages: list, observe: Callable[[ToolCall], str] | None = None) -> None:
    """Append the assistant's tool-call message, then one ``tool`` message per call.

    The calls run in the order the model gave them; ``observe(call)`` returns
    the text sent back (default: run the tool through ``agent.run_tool``,
    which records the ``action`` and ``observation`` steps).
    """
    observe = observe or (lambda call: agent.run_tool(call.name, call.arguments).text)
    messages.append(Message.assistant(reply.content, reply.tool_calls))
    for call in reply.tool_calls:
        messages.append(Message.tool(observe(call), call.id, call.name))
