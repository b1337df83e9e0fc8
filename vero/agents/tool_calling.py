"""ToolCallingAgent: the plain conversational agent over native tool calling.

The model sees ``[system, *history, user(task)]`` and the tools' schemas; it
calls tools (results go back as ``tool`` messages) until it replies with text,
which is the answer.  ``run(task, on_token=print)`` streams the model's text.

Small models often break the protocol, so a reply is read before it is used
(see ``vero.agents._native``): tool calls written as text are run as calls; a
reply that gives up after only failed calls is replaced by a repaired call
(``vero.agents._repair``); and a reply cut off by the output cap or one that
only announces a tool call ("I will use `find_plant`...") gets a nudge instead.

Model calls: one per turn (a nudge uses a turn).  When all ``max_turns`` calls
did not answer, one more call with ``tool_choice="none"`` gets the answer
(status ``max_turns``), so a run makes at most ``max_turns + 1`` calls, plus
one or two per repair (at most two per run).  An empty answer there falls back
to the latest text the model sent.  An empty reply within the turns ends ``failed``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vero.agents._native import (
    NATIVE_INSTRUCTIONS,
    NATIVE_INTRO,
    answer_tool_calls,
    echoes,
    nudge_for,
    tool_options,
    with_text_tool_calls,
)
from vero.agents._repair import MAX_REPAIRS, with_repaired_call
from vero.core.agent import Agent, MalformedOutputError
from vero.core.message import Message
from vero.core.result import MAX_TURNS, Outcome, StepKind

TOOL_CALLING_SYSTEM_PROMPT = f"{NATIVE_INTRO} {NATIVE_INSTRUCTIONS}"


class ToolCallingAgent(Agent):
    """Native tool calls until a text reply (``OpenAIFunctionAgent`` in the original vero,
    https://github.com/nlp-greyfoss/vero).

    Steps: ``thought`` (text sent along with tool calls), ``action`` and
    ``observation`` per tool call, ``final`` with the answer.

    The system prompt is the class attribute ``default_system_prompt`` (a
    subclass overrides it; ``system_prompt=`` replaces it for one agent).
    """

    default_system_prompt = TOOL_CALLING_SYSTEM_PROMPT
    max_repairs = MAX_REPAIRS  # failed calls repaired in a separate request, per run (vero.agents._repair)

    def solve(self, task: str, on_token: Callable[[str], None] | None = None, **kwargs: Any) -> str | Outcome:
        if kwargs:  # as before `**kwargs` (there for Agent.solve's signature): an unknown option fails the run
            raise TypeError(f"ToolCallingAgent.solve() got an unexpected keyword argument {next(iter(kwargs))!r}")
        system = self.system_prompt or self.default_system_prompt
        messages = [Message.system(system), *self.history_messages(), Message.user(task)]
        for _ in self.turns():
            reply = self.call_llm(messages, on_token=on_token, **tool_options(self))
            reply = with_repaired_call(self, with_text_tool_calls(self, reply), self.max_repairs)
            if not reply.tool_calls:
                nudge = nudge_for(self, reply)
                if nudge is None:
                    return self._final(reply.text)
                if not echoes(self, reply.text):  # vero's words or a tool's error are no partial answer
                    self.keep_partial(reply.text)
                messages += [Message.assistant(reply.text), Message.user(nudge)]
                continue
            if reply.text.strip():
                self.record(StepKind.THOUGHT, reply.text)
                self.keep_partial(reply.text)
            answer_tool_calls(self, reply, messages)
        reply = self.call_llm(messages, on_token=on_token, **tool_options(self, tool_choice="none"))
        answer = reply.text if reply.text.strip() else self.partial
        self.record(StepKind.FINAL, answer)
        return Outcome(answer, MAX_TURNS)

    def _final(self, answer: str) -> str:
        if not answer.strip():
            raise MalformedOutputError("the model replied with no text and no tool call", raw=answer)
        self.record(StepKind.FINAL, answer)
        return answer
