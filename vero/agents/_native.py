"""Native tool calling, shared by ``ToolCallingAgent`` and ``ReActAgent(protocol="native")``.

The model asks for tools through the API's ``tool_calls``; each call is run in
order and answered with a ``tool`` message carrying its ``tool_call_id``.

Small local models do not always keep to that protocol, so a reply without
API tool calls is read once more before it is taken as the answer:

- tool calls written into the text (fenced JSON, ``<tool_call>`` tags) are run
  as real calls (``with_text_tool_calls``);
- a reply cut off by the output cap, an answer given when every tool call so
  far failed (``guess_nudge``, also used by the text protocol), or a reply that
  only announces a tool call ("I will use the `find_plant` tool...") gets a
  short nudge instead of being returned (``nudge_for``).  All but the cut-off
  nudge are bounded per run.
"""

from __future__ import annotations

import json
from typing import Callable

from vero.core.message import Message, ToolCall
from vero.core.parsing import announces_action, normalized_arguments, tool_calls_in_text

CUT_OFF_NUDGE = ("Your reply was cut off at the output limit. Reply again, shorter: "
                 "call a tool, or give the final answer in a few sentences.")
ANNOUNCED_NUDGE = ("You said what you would do but did not call a tool. Call the tool now; "
                   "or, if you already know the answer, reply with only the final answer.")
MAX_ANNOUNCED_NUDGES = 2  # per run: after that, such a reply is taken as the answer
GUESS_NUDGE = ("None of your tool calls has worked yet, so that answer would be a guess. Call the tool that "
               "fits (check the tool descriptions and arguments), or say that you could not find the answer.")


def tool_options(agent, **extra) -> dict:
    """``generate`` options offering the agent's tools natively (none if it has no tools)."""
    return {"tools": agent.tools.schemas(), **extra} if agent.tools else {}


def with_text_tool_calls(agent, reply: Message) -> Message:
    """``reply``, or a copy whose tool calls written as text became real tool calls.

    Only calls that name a registered tool with an arguments object count.  The
    text around them is recorded as the thought but not replayed, so the
    conversation shows a clean tool call.
    """
    if reply.tool_calls or not agent.tools:
        return reply
    found = tool_calls_in_text(reply.text, agent.tools.names())
    if found is None:
        return reply
    names = ", ".join(call.name for call in found.calls)
    agent.record("warning", f"tool call written as text, run as a call: {names}", recovered_from_text=True,
                 raw=reply.text)
    if found.prose:
        agent.record("thought", found.prose)
        agent.keep_partial(found.prose)
    return Message("assistant", None, tool_calls=found.calls, reasoning=reply.reasoning,
                   usage=reply.usage, finish_reason=reply.finish_reason)


def nudge_for(agent, reply: Message) -> str | None:
    """The message to send back when a text reply is not yet an answer, else None.

    A reply cut off by the output cap is never an answer.  An answer given when
    every tool call so far failed gets one nudge per run (small models then
    invent a value).  One that announces a tool call gets at most
    ``MAX_ANNOUNCED_NUDGES`` nudges per run.
    """
    if reply.truncated:
        return CUT_OFF_NUDGE
    guess = guess_nudge(agent, reply.text)
    if guess is not None:
        return guess
    if agent.tools and announces_action(reply.text, agent.tools.names()):
        if agent.tally("announced_action") <= MAX_ANNOUNCED_NUDGES:
            agent.record("warning", "the reply announced a tool call but made none; asked to act",
                         raw=reply.text)
            return ANNOUNCED_NUDGE
    return None


def guess_nudge(agent, answer: str) -> str | None:
    """``GUESS_NUDGE`` once per run for an answer given when every tool call so far failed."""
    if agent.only_failed_tools() and agent.tally("guess") == 1:
        agent.record("warning", "an answer after only failed tool calls; asked to try a fitting tool", raw=answer)
        return GUESS_NUDGE
    return None


def answer_tool_calls(agent, reply: Message, messages: list, observe: Callable[[ToolCall], str] | None = None) -> None:
    """Append the assistant's tool-call message, then one ``tool`` message per call.

    The calls run in the order the model gave them; ``observe(call)`` returns
    the text sent back (default: run the tool through ``agent.run_tool``,
    which records the ``action`` and ``observation`` steps).
    """
    observe = observe or (lambda call: _observe(agent, call))
    messages.append(Message.assistant(reply.content, reply.tool_calls))
    for call in reply.tool_calls:
        messages.append(Message.tool(observe(call), call.id, call.name))


REPEATED_CALL_NOTE = ("\n(You made this same call before and got the same result. Use it: call a different "
                      "tool, or give the final answer.)")


def _observe(agent, call: ToolCall) -> str:
    """Run the call; a call repeated with the same arguments gets a note, since small models loop."""
    repeated = any(step.kind == "action" and step.data.get("tool") == call.name
                   and _same_arguments(step.data.get("args"), call.arguments) for step in agent.steps_so_far())
    text = agent.run_tool(call.name, call.arguments).text
    return text + REPEATED_CALL_NOTE if repeated else text


def _same_arguments(a, b) -> bool:
    return json.dumps(normalized_arguments(a), sort_keys=True, default=str) == \
        json.dumps(normalized_arguments(b), sort_keys=True, default=str)
