"""ToolCallingAgent: the plain conversational agent over native tool calling.

The model sees ``[system, *history, user(task)]`` and the tools' schemas; results go back as ``tool``
messages.  ``run(task, on_token=print)`` streams the model's text.  The loop, as its diagram::

    ask the model ─┬─ tool calls ─► run them, send the results back ─► ask again
                   └─ text ─► cut off, empty, or a recovery rule objects? ─► send that note, ask again
                              otherwise ─► the answer

A reply whose whole text is a call written as text runs as that call (``vero.agents._native``, within
the safety rules of docs/tools.md).  Model calls per run: docs/tool-calling.md, "Model calls".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vero.agents._native import (
    HOSTED_INSTRUCTIONS,
    NATIVE_INSTRUCTIONS,
    NATIVE_INTRO,
    answer_tool_calls,
    nudge_for,
    send_nudge,
    tool_options,
    with_text_tool_calls,
)
from vero.core.agent import Agent, MalformedOutputError
from vero.core.capabilities import hosted_model
from vero.core.message import Message
from vero.core.result import Outcome, Status, StepKind
from vero.core.text import SHOWS_NOTHING

TOOL_CALLING_SYSTEM_PROMPT = f"{NATIVE_INTRO} {NATIVE_INSTRUCTIONS}"
HOSTED_SYSTEM_PROMPT = f"{NATIVE_INTRO} {HOSTED_INSTRUCTIONS}"  # no text-call guide: see hosted_system_prompt


class ToolCallingAgent(Agent):
    """The plain conversational agent: the model calls tools natively (the API's ``tool_calls``) until it
    replies with text, which is the answer.

    Steps: ``thought`` (text sent along with tool calls), ``action`` and
    ``observation`` per tool call, ``final`` with the answer.

    The system prompt is the class attribute ``default_system_prompt`` (a subclass overrides it;
    ``system_prompt=`` replaces it for one agent); a hosted model (``ChatOpenAI.hosted``) gets
    ``hosted_system_prompt``, the same without the guide to calls written as text that small local models need.
    """

    default_system_prompt = TOOL_CALLING_SYSTEM_PROMPT
    hosted_system_prompt = HOSTED_SYSTEM_PROMPT

    _solve_options = frozenset({"on_token"})  # run(task, on_token=print): the answer's text as it streams

    def solve(self, task: str, on_token: Callable[[str], None] | None = None, **kwargs: Any) -> str | Outcome:
        default = self.default_system_prompt  # a subclass's own is kept for every model
        hosted = hosted_model(self.llm) and default == TOOL_CALLING_SYSTEM_PROMPT
        system = self.system_prompt or (self.hosted_system_prompt if hosted else default)
        messages = [Message("system", system), *self.history_messages(), Message("user", task)]
        for _ in self.turns():
            reply = with_text_tool_calls(self, self.call_llm(messages, on_token=on_token, **tool_options(self)))
            if reply.tool_calls:
                if reply.text.strip():
                    self.record(StepKind.THOUGHT, reply.text)
                    self.keep_partial(reply.text)
                messages.append(Message("assistant", reply.content, tool_calls=reply.tool_calls))
                answer_tool_calls(self, reply, messages)
                continue
            nudge = nudge_for(self, reply)
            if nudge is None and SHOWS_NOTHING.fullmatch(reply.text):
                raise MalformedOutputError("the model replied with no text and no tool call", raw=reply.text)
            if nudge is None:
                self.record(StepKind.FINAL, reply.text)
                return reply.text
            self.keep_partial(reply.text)
            send_nudge(self, reply.text, nudge, messages)  # a note, or a recovery rule's read-only lookup
        reply = self.call_llm(messages, on_token=on_token, **tool_options(self, tool_choice="none"))
        answer = reply.text if reply.text.strip() else self.partial
        self.record(StepKind.FINAL, answer)
        return Outcome(answer, Status.MAX_TURNS)
