"""ReAct's two protocols: how a reply is read and acted on, one small strategy each.

``TextProtocol`` parses ``Thought:`` / ``Action:`` / ``Action Input:`` lines (any endpoint);
``NativeProtocol`` takes the API's tool calls as the actions; ``GuidedProtocol`` (``vero.agents._guided``)
reads JSON steps that a schema constrains.  ``ReActAgent`` (``vero.agents.react``)
holds the loop and picks one by name from ``PROTOCOLS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vero.agents._guided import GuidedProtocol
from vero.agents._native import (
    REPEATED_CALL_NUDGE,
    answer_tool_calls,
    echoes,
    made_before,
    nudge_for,
    tool_options,
    with_task,
    with_text_tool_calls,
)
from vero.agents._repair import repair, with_repaired_call
from vero.core.agent import CUT_OFF
from vero.core.message import Message, ToolCall
from vero.core.parsing import OBSERVATION_LABEL, ReActStep, final_answer_text, parse_action_input, parse_react

if TYPE_CHECKING:  # the protocols act on the agent; the agent's module imports this one
    from vero.agents.react import ReActAgent

STOP = [OBSERVATION_LABEL]  # the text protocol ends a reply before a self-written observation


# -- the two protocols ---------------------------------------------------------
# One strategy each, with the same interface: ``system_prompt`` (the agent's intro, or its
# ``system_prompt=``, then the protocol's instructions), ``options`` (request options; ``final=True``
# for the reflection and final-answer calls), ``step`` (read a reply, act on it; the answer when
# finished), ``correction`` (the message after a malformed or empty reply) and ``final_text`` (the
# answer in the text of the final-answer call's reply).  They hold no state: the prompts are read
# from the agent (a subclass overrides them there), per-run state lives in ``agent.current_run``.

class TextProtocol:
    """``Thought:`` / ``Action:`` / ``Action Input:`` lines, parsed from the reply; works with any endpoint."""

    def system_prompt(self, agent: ReActAgent) -> str:
        """The intro (or ``system_prompt=``), then the format prompt with the tools."""
        instructions = agent.format_prompt.format(tools=agent.tools.describe() or "(no tools)", names=self.names(agent))
        return f"{agent.system_prompt or agent.intro_prompt}\n\n{instructions}"

    def options(self, agent: ReActAgent, final: bool = False) -> dict[str, Any]:
        return {} if final else {"stop": STOP}

    def step(self, agent: ReActAgent, reply: Message, messages: list[Message]) -> str | None:
        """Parse a Thought/Action reply; act on it.  Returns the answer when finished."""
        step = parse_react(reply.text, agent.tools.names())
        if step.text:
            messages.append(Message.assistant(step.text))
        agent._thought(step.thought)
        if reply.truncated and step.action is None:  # a cut-off Final Answer may have lost its end
            step.problem = step.problem or CUT_OFF
        if step.problem:
            agent._format_error(step.problem, reply.text, messages)
            return None
        agent.current_run.counters["format_errors"] = 0
        call = None if step.final_answer is None else repair(agent, step.final_answer, agent.max_repairs)
        if call is not None:  # a give-up after only failed calls: the repaired call runs instead
            step = _in_place_of(step, call, messages)
        elif step.final_answer is not None:
            nudge = agent.answer_check(step.final_answer)
            if nudge is not None:
                messages.append(Message.user(f"Observation: {nudge}"))
                return None
            return step.final_answer
        assert step.action is not None  # parse_react gives a problem, a final answer or an action
        observation = agent._check_repeats([(step.action, step.action_input)]) or self.run(agent, step)
        messages.append(Message.user(f"Observation: {observation}"))
        return None

    def run(self, agent: ReActAgent, step: ReActStep) -> str:
        """The action's result; a call made before gets a nudge too (small models loop on such a result)."""
        assert step.action is not None
        repeated = made_before(agent, step.action, step.action_input)
        result = agent.run_tool(step.action, step.action_input)
        return f"{result.output}\n{with_task(REPEATED_CALL_NUDGE, agent)}" if repeated and result.ok else result.output

    def correction(self, agent: ReActAgent, problem: str) -> str:
        return agent.format_error_prompt.format(problem=problem, names=self.names(agent))

    final_text = staticmethod(final_answer_text)  # its Final Answer, else its prose

    def names(self, agent: ReActAgent) -> str:
        return ", ".join([*agent.tools.names(), "Finish"])


class NativeProtocol:
    """The API's tool calls are the actions, the text beside them is the thought, and text alone is the answer."""

    def system_prompt(self, agent: ReActAgent) -> str:
        """The intro (or ``system_prompt=``), then the instructions, in one paragraph."""
        return f"{agent.system_prompt or agent.native_intro_prompt} {agent.native_prompt}"

    def options(self, agent: ReActAgent, final: bool = False) -> dict[str, Any]:
        return tool_options(agent, tool_choice="none") if final else tool_options(agent)

    def step(self, agent: ReActAgent, reply: Message, messages: list[Message]) -> str | None:
        """The text is the thought, the tool calls are the actions; text alone is the answer,
        unless it was cut off or only announced an action (then a nudge follows)."""
        reply = with_repaired_call(agent, with_text_tool_calls(agent, reply), agent.max_repairs)
        if not reply.tool_calls:
            nudge = nudge_for(agent, reply) if reply.text.strip() else None
            if nudge is not None:
                if not echoes(agent, reply.text):  # vero's words or a tool's error: no thought, no partial
                    agent._thought(reply.text)
                messages += [Message.assistant(reply.text), Message.user(nudge)]
                return None
            if reply.text.strip():
                return reply.text
            agent._format_error("the reply was empty", reply.text, messages)
            return None
        agent.current_run.counters["format_errors"] = 0
        agent._thought(reply.text)
        warning = agent._check_repeats([(call.name, call.arguments) for call in reply.tool_calls])
        answer_tool_calls(agent, reply, messages, (lambda call: warning) if warning else None)
        return None

    def correction(self, agent: ReActAgent, problem: str) -> str:
        return with_task(agent.native_empty_prompt, agent)

    final_text = staticmethod(str.strip)  # the whole reply


def _in_place_of(step: ReActStep, call: ToolCall, messages: list[Message]) -> ReActStep:
    """A repaired call (``vero.agents._repair``) in place of the reply ``step`` in the conversation."""
    if step.text:
        messages.pop()
    messages.append(Message.assistant(f"Action: {call.name}\nAction Input: {call.arguments}"))
    return ReActStep(action=call.name, action_input=parse_action_input(call.arguments))


PROTOCOLS: dict[str, TextProtocol | NativeProtocol | GuidedProtocol] = {
    "text": TextProtocol(), "native": NativeProtocol(), "guided": GuidedProtocol()}  # guided: vero.agents._guided
