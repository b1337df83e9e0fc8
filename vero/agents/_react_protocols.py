"""ReAct's ``native`` protocol, with ``TextProtocol``'s interface (``vero.agents.react``); calls written as text,
cut-off and empty replies are handled as in ``ToolCallingAgent`` (``vero.agents._native``)."""

from __future__ import annotations

from typing import Any

from vero.agents._native import (
    CALL_START,
    NATIVE_INSTRUCTIONS,
    answer_tool_calls,
    nudge_for,
    send_nudge,
    tool_options,
    unread_call_note,
    with_task,
    with_text_tool_calls,
)
from vero.agents._react_base import ReActAgentBase, ReplyStep
from vero.core.capabilities import hosted_model
from vero.core.message import Message, ToolCall
from vero.core.result import StepKind
from vero.core.text import SHOWS_NOTHING


class NativeProtocol:
    """The API's tool calls are the actions, the text beside them is the thought, and text alone is the answer."""

    name = "native"

    def system_prompt(self, agent: ReActAgentBase) -> str:
        """The intro (or ``system_prompt=``), then the instructions, in one paragraph; a hosted model gets
        the hosted instructions, unless a subclass changed the instructions."""
        prompts = agent.native_prompts
        hosted = hosted_model(agent.llm) and prompts.instructions == NATIVE_INSTRUCTIONS
        instructions = prompts.hosted_instructions if hosted else prompts.instructions
        return f"{agent.system_prompt or prompts.intro} {instructions}"

    def options(self, agent: ReActAgentBase, final: bool = False) -> dict[str, Any]:
        return tool_options(agent, tool_choice="none") if final else tool_options(agent)

    def read(self, agent: ReActAgentBase, reply: Message) -> ReplyStep:
        """Tool calls (also one written as text, ``with_text_tool_calls``) with their text as the thought;
        else the text is the answer.  A reply cut off at the output limit is asked again (off with the
        ``nudges`` switch: the run ends ``failed``); an empty one is malformed."""
        reply = with_text_tool_calls(agent, reply)
        if reply.tool_calls:
            said = Message("assistant", reply.content, tool_calls=reply.tool_calls)
            return ReplyStep(said, reply.text, actions=[(call.name, call.args) for call in reply.tool_calls])
        if reply.truncated:  # the note ToolCallingAgent sends (``nudge_for``), or the run ends with the switch off
            return ReplyStep(Message("assistant", reply.text), reply.text, note=str(nudge_for(agent, reply)))
        if SHOWS_NOTHING.fullmatch(reply.text):  # nothing a reader would see
            return ReplyStep(problem="the reply was empty")
        start = CALL_START.match(reply.text.lstrip()) if agent.options.hook.calls_in_text else None
        if start and (note := unread_call_note(agent, reply.text, start)):  # a call vero could not read: no answer
            return ReplyStep(Message("assistant", reply.text), reply.text, note=note)
        return ReplyStep(answer=reply.text)  # into the conversation only if the recovery hook objects (``send``)

    def act(self, agent: ReActAgentBase, step: ReplyStep, warning: str | None, messages: list[Message]) -> None:
        """Each call through the gate, answered by a ``tool`` message (or by the loop warning)."""
        assert step.said is not None
        answer_tool_calls(agent, step.said, messages, (lambda call: warning) if warning else None)

    def send(self, agent: ReActAgentBase, step: ReplyStep, response: str | ToolCall, messages: list[Message]) -> None:
        """The answer the recovery hook objected to, kept as a thought, then the hook's note or read-only
        lookup, sent as ``ToolCallingAgent`` sends them (``send_nudge``)."""
        assert step.answer is not None
        agent.record(StepKind.THOUGHT, step.answer.strip())
        agent.current_run.partial = step.answer.strip()
        send_nudge(agent, step.answer, response, messages)

    def correction(self, agent: ReActAgentBase, problem: str) -> str:
        return with_task(agent.native_prompts.correction, agent)

    final_text = staticmethod(str.strip)  # the whole reply
