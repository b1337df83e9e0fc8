"""ReAct's two protocols: how a reply is read and acted on, one small strategy each.

``TextProtocol`` parses ``Thought:`` / ``Action:`` / ``Action Input:`` lines (any endpoint);
``NativeProtocol`` takes the API's tool calls as the actions; ``GuidedProtocol`` (``vero.agents._guided``)
reads JSON steps that a schema constrains.  ``ReActAgent`` (``vero.agents.react``)
holds the loop and picks one by name from ``PROTOCOLS``.
"""

from __future__ import annotations

from typing import Any

from vero.agents._guided import GuidedProtocol
from vero.agents._native import (
    NATIVE_INSTRUCTIONS,
    REPEATED_CALL_NUDGE,
    answer_tool_calls,
    cut_off_warning,
    nudge_for,
    send_nudge,
    tool_options,
    with_task,
    with_text_tool_calls,
)
from vero.agents._react_base import ReActAgentBase
from vero.core.agent import CUT_OFF
from vero.core.capabilities import hosted_model
from vero.core.gate import WrittenArguments
from vero.core.message import Message
from vero.core.parsing import OBSERVATION_LABEL, ReActStep, final_answer_text, parse_react
from vero.core.result import StepKind

STOP = [OBSERVATION_LABEL]  # the text protocol ends a reply before a self-written observation
NO_STEP = "no `Action:` line with a tool name, and no `Final Answer:`"
EMBEDDED_ACTION = (
    "the `Action:` is inside other text (mid-line, a quote, an example or after the Final Answer), "
    "so it was not run; an action starts its own line"
)


# -- the two protocols ---------------------------------------------------------
# One strategy each, with the same interface: ``system_prompt`` (the agent's intro, or its
# ``system_prompt=``, then the protocol's instructions), ``options`` (request options; ``final=True``
# for the reflection and final-answer calls), ``step`` (read a reply, act on it; the answer when
# finished), ``correction`` (the message after a malformed or empty reply) and ``final_text`` (the
# answer in the text of the final-answer call's reply).  They hold no state: the prompts are read
# from the agent (a subclass overrides them there), per-run state lives in ``agent.current_run``.
# They use only the agent's public methods.


class TextProtocol:
    """``Thought:`` / ``Action:`` / ``Action Input:`` lines, parsed from the reply; works with any endpoint."""

    def system_prompt(self, agent: ReActAgentBase) -> str:
        """The intro (or ``system_prompt=``), then the format prompt with the tools."""
        names = ", ".join([*agent.tools.names(), "Finish"])
        instructions = agent.format_prompt.format(tools=agent.tools.describe() or "(no tools)", names=names)
        return f"{agent.system_prompt or agent.intro_prompt}\n\n{instructions}"

    def options(self, agent: ReActAgentBase, final: bool = False) -> dict[str, Any]:
        return {} if final else {"stop": STOP}

    def step(self, agent: ReActAgentBase, reply: Message, messages: list[Message]) -> str | None:
        """Thought, then the Action and its Observation, or the Final Answer (returned when accepted)."""
        step = parse_react(reply.text, agent.tools.names() if agent.options.recovery is not False else ())
        if step.text:
            messages.append(Message("assistant", step.text))
        agent.note_thought(step.thought)
        if reply.finish_reason == "length" and step.action is None:  # cut off: a Final Answer may have lost its end
            step.problem = step.problem or CUT_OFF
        if step.action and not step.problem and not agent.tools.read_only(step.action):
            step.problem = self.unsafe_action(agent, step, reply)
        if step.problem:
            agent.format_error(step.problem, reply.text, messages)
            return None
        agent.current_run.counters["format_errors"] = 0
        if step.final_answer is not None:
            nudge = agent.answer_check(step.final_answer)
            if nudge is None:
                return step.final_answer
            messages.append(Message("user", f"Observation: {nudge}"))
            return None
        assert step.action is not None  # parse_react gives a problem, a final answer or an action
        observation = agent.check_repeats([(step.action, step.action_input)])
        if observation is None:  # run it; a call made before gets a note too (small models loop on its result)
            arguments = step.action_input  # with its text as written: the gate reads that for a changing tool
            if isinstance(arguments, dict) and step.input_text is not None:
                arguments = WrittenArguments(arguments)
                arguments.written = step.input_text
                if step.line_arguments and step.line_arguments not in (arguments, *arguments.values()):
                    arguments.problem = "the Action line and the Action Input give different arguments"
            agent.current_run.call_origin = "text"  # for the gate
            result = agent.run_tool(step.action, arguments)
            agent.current_run.call_origin = "native"
            repeated = result.repeated and result.ok and agent.options.recovery is not False
            observation = f"{result.output}\n{with_task(REPEATED_CALL_NUDGE, agent)}" if repeated else result.output
        messages.append(Message("user", f"Observation: {observation}"))
        return None

    @staticmethod
    def unsafe_action(agent: ReActAgentBase, step: ReActStep, reply: Message) -> str | None:
        """Why the reply holds no action of a tool that may change things (docs/tools.md, "Safety"), or
        None: it was cut off in the action's input, or the action lies inside other text (an example).
        Whether an action runs is the gate's to decide (``Agent.run_tool``)."""
        assert step.action is not None
        if reply.finish_reason == "length" and step.open_ended:
            agent.record(StepKind.WARNING, cut_off_warning(step.action), cut_off=True, raw=reply.text)
            return CUT_OFF
        return EMBEDDED_ACTION if step.embedded else None

    def correction(self, agent: ReActAgentBase, problem: str) -> str:
        return agent.format_error_prompt.format(problem=problem, names=self.names(agent))

    final_text = staticmethod(final_answer_text)  # its Final Answer, else its prose

    def names(self, agent: ReActAgentBase) -> str:
        return ", ".join([*agent.tools.names(), "Finish"])


class NativeProtocol:
    """The API's tool calls are the actions, the text beside them is the thought, and text alone is the answer."""

    def system_prompt(self, agent: ReActAgentBase) -> str:
        """The intro (or ``system_prompt=``), then the instructions, in one paragraph."""
        hosted = hosted_model(agent.llm) and agent.native_prompt == NATIVE_INSTRUCTIONS  # a subclass's own is kept
        instructions = agent.native_hosted_prompt if hosted else agent.native_prompt
        return f"{agent.system_prompt or agent.native_intro_prompt} {instructions}"

    def options(self, agent: ReActAgentBase, final: bool = False) -> dict[str, Any]:
        return tool_options(agent, tool_choice="none") if final else tool_options(agent)

    def step(self, agent: ReActAgentBase, reply: Message, messages: list[Message]) -> str | None:
        """The text is the thought, the tool calls are the actions and their results the observations;
        text alone is the answer, unless it was cut off, empty or a recovery rule objects (a note follows)."""
        reply = with_text_tool_calls(agent, reply)
        if reply.tool_calls:
            agent.current_run.counters["format_errors"] = 0
            agent.note_thought(reply.text)
            warning = agent.check_repeats([(call.name, call.arguments) for call in reply.tool_calls])
            answer_tool_calls(agent, reply, messages, (lambda call: warning) if warning else None)
            return None
        nudge = nudge_for(agent, reply) if reply.text.strip() or reply.truncated else None
        if nudge is None and reply.text.strip():
            return reply.text
        if nudge is None:
            agent.format_error("the reply was empty", reply.text, messages)
            return None
        agent.note_thought(reply.text)
        send_nudge(agent, reply.text, nudge, messages)
        return None

    def correction(self, agent: ReActAgentBase, problem: str) -> str:
        return with_task(agent.native_empty_prompt, agent)

    final_text = staticmethod(str.strip)  # the whole reply


PROTOCOLS: dict[str, TextProtocol | NativeProtocol | GuidedProtocol] = {
    "text": TextProtocol(),
    "native": NativeProtocol(),
    "guided": GuidedProtocol(),
}  # guided: vero.agents._guided
