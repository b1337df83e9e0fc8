"""ToolCallingAgent: the plain conversational agent over native tool calling.

The model sees ``[system, *history, user(task)]`` and the tools' schemas; it
calls tools (results go back as ``tool`` messages) until it replies with text,
which is the answer.  ``run(task, on_token=print)`` streams the model's text.

Model calls: one per turn.  When all ``max_turns`` calls asked for tools, one
more call with ``tool_choice="none"`` gets the answer (status ``max_turns``),
so a run makes at most ``max_turns + 1`` calls (an empty answer there falls back
to the latest text the model sent).  An empty reply within the turns ends ``failed``.
"""

from __future__ import annotations

from typing import Callable

from vero.agents._native import answer_tool_calls, tool_options
from vero.core.agent import Agent, MalformedOutputError
from vero.core.message import Message
from vero.core.result import MAX_TURNS, Outcome

TOOL_CALLING_SYSTEM_PROMPT = (
    "You are a helpful assistant. Use the tools when they help; "
    "when you have what you need, answer the user in plain text."
)


class ToolCallingAgent(Agent):
    """Native tool calls until a text reply (the original's ``OpenAIFunctionAgent``).

    Steps: ``thought`` (text sent along with tool calls), ``action`` and
    ``observation`` per tool call, ``final`` with the answer.

    The system prompt is the class attribute ``default_system_prompt`` (a
    subclass overrides it; ``system_prompt=`` replaces it for one agent).
    """

    default_system_prompt = TOOL_CALLING_SYSTEM_PROMPT

    def solve(self, task: str, on_token: Callable[[str], None] | None = None) -> str | Outcome:
        system = self.system_prompt or self.default_system_prompt
        messages = [Message.system(system), *self.history_messages(), Message.user(task)]
        for _ in self.turns():
            reply = self.call_llm(messages, on_token=on_token, **tool_options(self))
            if not reply.tool_calls:
                return self._final(reply.text)
            if reply.text.strip():
                self.record("thought", reply.text)
                self.keep_partial(reply.text)
            answer_tool_calls(self, reply, messages)
        reply = self.call_llm(messages, on_token=on_token, **tool_options(self, tool_choice="none"))
        answer = reply.text if reply.text.strip() else self.partial
        self.record("final", answer)
        return Outcome(answer, MAX_TURNS)

    def _final(self, answer: str) -> str:
        if not answer.strip():
            raise MalformedOutputError("the model replied with no text and no tool call", raw=answer)
        self.record("final", answer)
        return answer
