"""ReActAgent: Thought -> Action -> Observation, until a final answer (Yao et al. 2022).

The trajectory is a growing conversation: ``[system, *history, user(task),
assistant(step), user("Observation: ..."), ...]``.  The system prompt (tools
and format) is built once per run and never changes, tool output never enters
it, and each step is sent once per call.

Two protocols, one small strategy each (``TextProtocol``, ``NativeProtocol``).
``"text"`` (default, works with any endpoint): the model writes ``Thought:`` /
``Action:`` / ``Action Input: <JSON>`` and ends with ``Final Answer: ...`` or
``Action: Finish`` + ``{"answer": ...}``; the agent passes
``stop=["Observation:"]`` and also cuts a self-written observation, so an
action always wins over an invented final answer after it.  A call this run
made before is run again, and its observation also says so and repeats the
task (small models loop on a result they do not know how to use).  ``"native"``: the
API's tool calls are the actions, the text beside them is the thought, and a
plain text reply is the answer.

Model calls, with ``n`` turns used and ``k = reflect_every``:
- finishing on turn ``n``: ``n`` calls, plus one reflection after every
  ``k``-th turn that is not the last of the budget;
- turns exhausted: ``max_turns + 1`` calls (the final-answer call, asking for
  the best answer from the trajectory without tools), plus up to
  ``final_answer_retries`` (2) re-asks while it comes back empty; status ``max_turns``;
- an answer given when every tool call failed: one or two more calls to repair
  the failed call (``vero.agents._repair``), at most twice per run;
- ``max_format_errors`` (3) malformed replies in a row: the run ends ``failed``
  (``MalformedOutputError``) after exactly that many calls;
- the same actions ``max_repeats`` (3) times in a row: the third is not run,
  its observation is a warning; a fourth in a row ends the run ``max_turns``
  with the best partial answer (no final-answer call), after 4 calls.
"""

from __future__ import annotations

import json
from typing import Any

from vero.agents._native import (
    EMPTY_NUDGE,
    LOOP_WARNING_PROMPT,
    NATIVE_INSTRUCTIONS,
    REPEATED_CALL_NUDGE,
    answer_nudge,
    answer_tool_calls,
    echoes_vero,
    made_before,
    nudge_for,
    tool_options,
    with_task,
    with_text_tool_calls,
)
from vero.agents._repair import MAX_REPAIRS, repair, with_repaired_call
from vero.core.agent import CUT_OFF, Agent, BudgetExceeded, MalformedOutputError, Tools
from vero.core.message import ChatModel, Message, ToolCall
from vero.core.parsing import (  # the text protocol's parser lives with the other parsers
    OBSERVATION_LABEL,
    ReActStep,  # also re-exported: `from vero.agents.react import parse_react, ReActStep`
    final_answer_text,
    normalized_arguments,
    parse_action_input,  # also re-exported
    parse_react,
)
from vero.core.result import MAX_TURNS, Outcome

REACT_SYSTEM_PROMPT = ("You are a helpful assistant that solves tasks step by step. "
                       "Get facts and do arithmetic with the tools; never guess a value.")

REACT_FORMAT_PROMPT = """You have access to the following tools:
{tools}

Use exactly this format:

Thought: what you know so far and what to do next
Action: the tool to use, one of [{names}]
Action Input: the tool's arguments as one JSON object

Then stop: the Observation (the tool's result) will be sent to you.
Repeat Thought / Action / Action Input as often as needed, one action per reply.
Never write the Observation yourself. When you know the answer, write:

Thought: I now know the final answer
Final Answer: the final answer to the task

Instead of the Final Answer line you may also write
Action: Finish
Action Input: {{"answer": "the final answer"}}"""

# With native tool calls, "solve step by step" made a small model write out a numbered plan instead of
# making the first call (then answer with invented values): the native intro does not say it.  The
# native system prompt is ToolCallingAgent's: the intro, then the instructions, in one paragraph.
REACT_NATIVE_INTRO = "You are a helpful assistant."
REACT_NATIVE_PROMPT = NATIVE_INSTRUCTIONS

FORMAT_ERROR_PROMPT = """Observation: Invalid format: {problem}. Reply with
Thought: ...
Action: one of [{names}]
Action Input: a JSON object
or, if you know the answer, with
Final Answer: ..."""

NATIVE_EMPTY_PROMPT = EMPTY_NUDGE  # the same as ToolCallingAgent's; the task follows it


REFLECT_PROMPT = """Pause and reflect on the steps so far, in at most three sentences:
Which steps helped? What went wrong or is still missing? What is the best next step?
Do not call a tool and do not give the final answer yet."""

REFLECTION_NOTE = "Reflection on your progress so far: {reflection}\nContinue with the next step."

FINAL_ANSWER_PROMPT = """You have run out of steps. Using only the steps above, write the best final answer
you can to the task (say what is still uncertain). Do not call tools. Reply in the form
Final Answer: ..."""

STOP = [OBSERVATION_LABEL]


class ReActAgent(Agent):
    """Reasoning and acting in a loop over the shared ``ToolRegistry``.

    Args (beyond ``Agent``'s):
        protocol: ``"text"`` (Thought/Action lines, ``TextProtocol``) or ``"native"``
            (API tool calls, ``NativeProtocol``); ``PROTOCOLS`` maps the names to the strategies.
        reflect_every: every k turns, one extra call reflects on the trajectory;
            the reflection is added to the conversation (a ``reflection`` step),
            which keeps the last ``max_reflections`` (2) of them.
        max_format_errors: malformed replies in a row that end the run ``failed``.
        max_repeats: identical actions in a row that get a warning; one more ends the run.

    Statuses: ``ok``, ``max_turns`` (budget or loop), ``failed``, ``max_tokens``.
    Steps: ``thought``, ``action``, ``observation``, ``reflection``, ``warning``
    (format errors, loops, empty final answers) and ``final``.

    Prompts are class attributes.  The system prompt is ``intro_prompt`` (a
    subclass overrides it; ``system_prompt=`` replaces it for one agent)
    followed by ``format_prompt`` (the Thought/Action protocol and the tools)
    or, for ``protocol="native"``, ``native_intro_prompt`` followed by ``native_prompt``.
    """

    intro_prompt = REACT_SYSTEM_PROMPT
    format_prompt = REACT_FORMAT_PROMPT
    native_intro_prompt = REACT_NATIVE_INTRO
    native_prompt = REACT_NATIVE_PROMPT
    format_error_prompt = FORMAT_ERROR_PROMPT
    native_empty_prompt = NATIVE_EMPTY_PROMPT
    loop_warning_prompt = LOOP_WARNING_PROMPT
    reflect_prompt = REFLECT_PROMPT
    reflection_note = REFLECTION_NOTE
    final_answer_prompt = FINAL_ANSWER_PROMPT
    final_answer_retries = 2
    max_reflections = 2  # reflection notes kept in the conversation
    max_repairs = MAX_REPAIRS  # failed calls repaired in a separate request, per run (vero.agents._repair)

    def __init__(
        self,
        name: str,
        llm: ChatModel,
        tools: Tools = None,
        system_prompt: str | None = None,
        max_turns: int | None = None,
        verbose: bool = True,
        *,
        protocol: str = "text",
        reflect_every: int | None = None,
        max_format_errors: int = 3,
        max_repeats: int = 3,
        **base_options: Any,
    ) -> None:
        super().__init__(name, llm, tools, system_prompt, max_turns, verbose, **base_options)
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be 'text' or 'native', got {protocol!r}")
        self.protocol = protocol
        self.reflect_every = reflect_every
        self.max_format_errors = max_format_errors
        self.max_repeats = max_repeats

    @property
    def _strategy(self) -> TextProtocol | NativeProtocol:
        return PROTOCOLS[self.protocol]

    # -- the loop ------------------------------------------------------------
    def solve(self, task: str, **kwargs: Any) -> str | Outcome:
        messages = [Message.system(self.build_system_prompt()), *self.history_messages(), Message.user(task)]
        for turn in self.turns():
            answer = self._strategy.step(self, self.call_llm(messages, **self._strategy.options(self)), messages)
            if answer is not None:
                self.record("final", answer)
                return answer
            if self.reflect_every and turn % self.reflect_every == 0 and turn < self.max_turns:
                self.reflect(messages)
        return Outcome(self.final_answer(messages), MAX_TURNS)

    def answer_check(self, answer: str) -> str | None:
        """The text protocol's check of a Final Answer: a nudge to send instead, or None to accept
        it (``answer_nudge``: not a repeat of vero's own words, not a guess after failed calls, no
        calculation with a wrong result)."""
        return answer_nudge(self, answer)

    def build_system_prompt(self) -> str:
        return self._strategy.system_prompt(self)

    def reflect(self, messages: list[Message]) -> None:
        """One extra call: a short reflection, appended so the next calls see it.

        Only the last ``max_reflections`` notes stay in the conversation (two by default,
        so the prompt stays short): adding one more removes the oldest note message.
        """
        reply = self.call_llm([*messages, Message.user(self.reflect_prompt)],
                              **self._strategy.options(self, final=True))
        if not reply.text.strip():
            return
        self.record("reflection", reply.text.strip())
        note = Message.user(self.reflection_note.format(reflection=reply.text.strip()))
        messages.append(note)
        kept = self.current_run.notes.setdefault("reflection_notes", [])
        kept.append(note)
        if len(kept) > self.max_reflections:
            oldest = kept.pop(0)
            messages[:] = [m for m in messages if m is not oldest]

    def final_answer(self, messages: list[Message]) -> str:
        """The turns ran out: ask for the best answer from the trajectory, re-asking if empty."""
        prompt = [*messages, Message.user(self.final_answer_prompt)]
        for attempt in range(1, self.final_answer_retries + 2):
            answer = self._strategy.final_text(self.call_llm(prompt, **self._strategy.options(self, final=True)).text)
            if answer:
                self.record("final", answer, reason="max_turns")
                return answer
            self.record("warning", "the final answer came back empty", attempt=attempt)
        return self.partial

    # -- shared by the protocols' steps --------------------------------------
    def _thought(self, thought: str) -> None:
        if thought.strip():
            self.record("thought", thought.strip())
            self.keep_partial(thought.strip())

    def _format_error(self, problem: str, raw: str, messages: list[Message]) -> None:
        """A correction as the next observation; ``max_format_errors`` in a row end the run."""
        errors = self.tally("format_errors")
        self.record("warning", f"malformed reply: {problem}", raw=raw)
        if errors >= self.max_format_errors:
            raise MalformedOutputError(f"{errors} malformed replies in a row; the last: {problem}", raw)
        messages.append(Message.user(self._strategy.correction(self, problem)))

    def _check_repeats(self, actions: list[tuple[str, Any]]) -> str | None:
        """Loop detection: a warning instead of the observation, or the end of the run."""
        key = json.dumps([[name, normalized_arguments(args)] for name, args in actions], sort_keys=True, default=str)
        notes = self.current_run.notes
        repeats = notes["repeats"] = notes.get("repeats", 0) + 1 if key == notes.get("last_actions") else 1
        notes["last_actions"] = key
        if repeats > self.max_repeats:
            raise BudgetExceeded(MAX_TURNS, f"the agent repeated the same action {repeats} times in a row")
        if repeats == self.max_repeats:
            warning = self.loop_warning_prompt.format(count=repeats)
            self.record("warning", warning, actions=key)
            return warning
        return None


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
        return f"{result.text}\n{with_task(REPEATED_CALL_NUDGE, agent)}" if repeated and result.ok else result.text

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
                if not echoes_vero(reply.text):  # vero's own words are no thought and no partial answer
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


PROTOCOLS: dict[str, TextProtocol | NativeProtocol] = {"text": TextProtocol(), "native": NativeProtocol()}
