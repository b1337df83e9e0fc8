"""ReActAgent: Thought -> Action -> Observation, until a final answer (Yao et al. 2022).

One step, as its diagram (``ReActAgent.step``; the text protocol's part is ``TextProtocol`` below)::

    reply ─► read as a step ─┬─ malformed ─► a correction (max_format_errors in a row: failed)
                             ├─ thought ─► recorded (the best partial answer so far)
                             ├─ final answer ─► the recovery hook objects? ─► its note ─► next turn
                             │                  otherwise ─► the answer
                             └─ action ─► repeated max_repeats times? ─► a warning instead
                                          otherwise ─► the gate (Agent.run_tool) ─► the observation

The trajectory is a growing conversation: ``[system, *history, user(task), assistant(step),
user("Observation: ..."), ...]``; the system prompt is built once per run and tool output never enters it.
A protocol says only how a reply becomes a step and how a step is asked for: ``"text"`` (default, any
endpoint: ``Thought:`` / ``Action:`` / ``Action Input:`` lines, or ``Final Answer:``; ``stop=["Observation:"]``,
and a self-written observation is cut, so an action wins over an invented answer after it), ``"native"``
(the API's tool calls are the actions, the text beside them the thought, a plain text reply the answer;
``vero.agents._react_protocols``), ``"guided"`` (one JSON step a schema constrains; a server that refuses
the schema switches the run to ``"text"``; ``vero.agents._guided``) and ``"auto"`` (``"native"`` for a
hosted provider's model, else ``"text"``; ``chosen_protocol`` says why).  Prompts: one table per protocol
(``vero.agents._react_prompts``).  Model calls per run: docs/react.md, "Model calls".
"""

from __future__ import annotations

from typing import Any, Literal

from vero.agents._guided import GuidedProtocol, chosen_protocol, fall_back
from vero.agents._native import cut_off_warning, repeated_call_note
from vero.agents._react_base import ReActAgentBase, ReActProtocol, ReplyStep, send_as_observation
from vero.agents._react_prompts import (
    FINAL_ANSWER_PROMPT,
    REACT_EXAMPLE,
    REACT_FORMAT_PROMPT,
    REACT_SYSTEM_PROMPT,
    REFLECT_PROMPT,
)
from vero.agents._react_protocols import NativeProtocol
from vero.core.agent import CUT_OFF, Tools
from vero.core.message import CUT_OFF_REASONS, ChatModel, Message
from vero.core.options import AgentKeywords, Unpack
from vero.core.parsing import OBSERVATION_LABEL, ReActStep, final_answer_text, parse_action_input, parse_react
from vero.core.parsing.json_text import parse_json_value, without_fence
from vero.core.result import Outcome, Status, StepKind
from vero.errors import LLMCallError

# Re-exported: the text protocol's parser (kept with the other parsers), and the prompts from before the tables.
__all__ = ["ReActAgent", "NativeProtocol", "TextProtocol", "ReActStep", "parse_action_input", "parse_react"]
__all__ += ["FINAL_ANSWER_PROMPT", "REACT_EXAMPLE", "REACT_FORMAT_PROMPT", "REACT_SYSTEM_PROMPT", "REFLECT_PROMPT"]


class ReActAgent(ReActAgentBase):
    """Reasoning and acting in a loop over the shared ``ToolRegistry``.

    Args (beyond ``Agent``'s):
        protocol: ``"text"``, ``"native"``, ``"guided"`` or ``"auto"`` (the module's docstring).
        reflect_every: every k turns, one extra call reflects on the trajectory; the conversation keeps
            the last ``max_reflections`` (2) reflections.
        max_format_errors: malformed replies in a row that end the run ``failed``.
        max_repeats: identical actions in a row that get a warning; one more ends the run.

    Statuses: ``ok``, ``max_turns`` (budget or loop), ``failed``, ``max_tokens``.
    Steps: ``thought``, ``action``, ``observation``, ``reflection``, ``warning`` and ``final``.
    Prompts: ``text_prompts``, ``native_prompts``, ``guided_prompts`` (``ReActPrompts``); the system prompt
    is the table's ``intro`` (``system_prompt=`` replaces it for one agent), then its ``instructions``.
    """

    def __init__(
        self,
        name: str,
        llm: ChatModel,
        tools: Tools = None,
        system_prompt: str | None = None,
        max_turns: int | None = None,
        verbose: bool = True,
        *,
        protocol: Literal["text", "native", "guided", "auto"] = "text",
        reflect_every: int | None = None,
        max_format_errors: int = 3,
        max_repeats: int = 3,
        **base_options: Unpack[AgentKeywords],
    ) -> None:
        super().__init__(name, llm, tools, system_prompt, max_turns, verbose, **base_options)
        if protocol not in (*PROTOCOLS, "auto"):
            raise ValueError(f"protocol must be 'text', 'native', 'guided' or 'auto', got {protocol!r}")
        self.protocol = protocol
        self.reflect_every = reflect_every
        self.max_format_errors = max_format_errors
        self.max_repeats = max_repeats
        self.options.hook  # noqa: B018 -- an unknown recovery preset or rule is an error here, not in the run

    @property
    def run_protocol(self) -> str:
        """The protocol of the run in progress: ``protocol``, with ``"auto"`` decided once per run, and
        ``"text"`` after a server refused a guided step (``vero.agents._guided.fall_back``)."""
        return self.protocol_of_run().name

    def protocol_of_run(self) -> ReActProtocol:
        """The protocol of the run in progress (``run_protocol``), chosen on first use in the run."""
        notes = self._run.notes if self._run is not None else {}  # outside a run: chosen afresh
        if "protocol" not in notes:
            notes["protocol"] = self.protocol if self.protocol != "auto" else chosen_protocol("auto", self.llm)
        return PROTOCOLS[notes["protocol"]]

    # -- the loop ------------------------------------------------------------
    _solve_options: frozenset[str] | None = frozenset()  # run() takes no keyword for solve

    def solve(self, task: str, **kwargs: Any) -> str | Outcome:
        protocol = self.protocol_of_run()
        messages = [Message("system", self.build_system_prompt()), *self.history_messages(), Message("user", task)]
        for turn in self.turns():
            try:
                reply = self.call_llm(messages, **protocol.options(self))
            except LLMCallError as error:  # a server that refuses guided steps: the text protocol from here on
                if not fall_back(self, error, messages):
                    raise
                protocol = self.protocol_of_run()
                continue
            answer = self.step(protocol, reply, messages)
            if answer is not None:
                self.record(StepKind.FINAL, answer)
                return answer
            if self.reflect_every and turn % self.reflect_every == 0 and turn < self.max_turns:
                self.reflect(messages)
        return Outcome(self.final_answer(messages), Status.MAX_TURNS)

    # -- one step: reply -> thought -> answer, or action -> the gate -> observation ----------
    def step(self, protocol: ReActProtocol, reply: Message, messages: list[Message]) -> str | None:
        """Act on one reply; the final answer when the run is done, else None (the next turn)."""
        step = protocol.read(self, reply)
        if step.said is not None:
            messages.append(step.said)
        if step.thought.strip():
            self.record(StepKind.THOUGHT, step.thought.strip())
            self.current_run.partial = step.thought.strip()
        if step.problem is not None:
            self.format_error(step.problem, reply.text, messages)
            return None
        if step.note is not None:
            messages.append(Message("user", step.note))
            return None
        self.current_run.counters["format_errors"] = 0
        if step.answer is not None:
            respond = self.options.hook.respond if step.check_answer else None
            response = respond(self, step.answer) if respond is not None else None
            if response is None:
                return step.answer
            protocol.send(self, step, response, messages)
            return None
        warning = self.check_repeats(step.actions)
        protocol.act(self, step, warning, messages)
        return None


def _only_json(text: str) -> bool:
    """``text`` is one JSON object or list and nothing else, fenced or not: what a typed run asks for
    ("only JSON"), written without ``Final Answer:``."""
    try:  # strict JSON; one nested too deeply to read is no answer either
        return isinstance(parse_json_value(without_fence(text.strip()), repair=False), (dict, list))
    except ValueError:
        return False


STOP = [OBSERVATION_LABEL]  # the text protocol ends a reply before a self-written observation
EMBEDDED_ACTION = (
    "the `Action:` is inside other text (mid-line, a quote, an example or after the Final Answer), "
    "so it was not run; an action starts its own line"
)


class TextProtocol:
    """``Thought:`` / ``Action:`` / ``Action Input:`` lines, parsed from the reply; works with any endpoint."""

    name = "text"

    def system_prompt(self, agent: ReActAgentBase) -> str:
        """The intro (or ``system_prompt=``), then the format prompt with the tools.  A tool named ``Finish``
        (in any case) is refused: ``Action: Finish`` is the answer, and the tool would never run."""
        if any(name.lower() == "finish" for name in agent.tools.names()):
            raise ValueError("a tool named Finish cannot be told from ReAct's own Finish action: rename the tool")
        prompts, names = agent.text_prompts, ", ".join([*agent.tools.names(), "Finish"])
        instructions = prompts.instructions.format(tools=agent.tools.describe() or "(no tools)", names=names)
        return f"{agent.system_prompt or prompts.intro}\n\n{instructions}"

    def options(self, agent: ReActAgentBase, final: bool = False) -> dict[str, Any]:
        return {} if final else {"stop": STOP}

    def read(self, agent: ReActAgentBase, reply: Message) -> ReplyStep:
        """The reply's Thought, then its Action (with the arguments as written) or its Final Answer.

        Not run, whatever the gate would say: an action of a tool that may change things inside
        other text (an example), or cut off in its input at the output limit (docs/tools.md, "Safety")."""
        parsed = parse_react(reply.text, agent.tools.names() if agent.options.hook.unlabelled_calls else ())
        step = ReplyStep(Message("assistant", parsed.text) if parsed.text else None, parsed.thought, parsed.problem)
        cut_off = reply.finish_reason in CUT_OFF_REASONS
        if parsed.action is None or step.problem:
            if step.problem and not cut_off and agent.current_run.output_spec and _only_json(reply.text):
                step.problem, step.answer = None, reply.text.strip()  # a typed run asks for only JSON: it is that
                return step
            step.problem = step.problem or (CUT_OFF if cut_off else None)  # a Final Answer may have lost its end
            step.answer = parsed.final_answer
            return step
        if not agent.tools.read_only(parsed.action) and cut_off and parsed.open_ended:
            agent.record(StepKind.WARNING, cut_off_warning(parsed.action), cut_off=True, raw=reply.text)
            step.problem = CUT_OFF
        elif not agent.tools.read_only(parsed.action) and parsed.embedded:
            step.problem = EMBEDDED_ACTION
        assert parsed.arguments is not None  # read with the action
        step.actions = [(parsed.action, parsed.arguments)]
        return step

    def act(self, agent: ReActAgentBase, step: ReplyStep, warning: str | None, messages: list[Message]) -> None:
        """Run the action (the gate decides, ``Agent.run_tool``); its result is the next Observation.
        A call made before runs again, with a note (small models loop on a result they cannot use)."""
        observation = warning
        if observation is None:
            result = agent.run_tool(*step.actions[0])
            repeated = result.repeated and result.ok and agent.options.hook.repeated_call_note
            observation = f"{result.output}\n{repeated_call_note(agent)}" if repeated else result.output
        messages.append(Message("user", f"Observation: {observation}"))

    send = staticmethod(send_as_observation)  # the recovery hook's note on an answer, as the next Observation

    def correction(self, agent: ReActAgentBase, problem: str) -> str:
        return agent.text_prompts.correction.format(problem=problem, names=", ".join([*agent.tools.names(), "Finish"]))

    final_text = staticmethod(final_answer_text)  # its Final Answer, else its prose


PROTOCOLS: dict[str, ReActProtocol] = {"text": TextProtocol(), "native": NativeProtocol(), "guided": GuidedProtocol()}
