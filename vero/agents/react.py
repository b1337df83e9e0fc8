"""ReActAgent: Thought -> Action -> Observation, until a final answer (Yao et al. 2022).

The trajectory is a growing conversation: ``[system, *history, user(task),
assistant(step), user("Observation: ..."), ...]``.  The system prompt (tools
and format) is built once per run and never changes, tool output never enters
it, and each step is sent once per call.

Three protocols, one small strategy each (``TextProtocol``, ``NativeProtocol``, in
``vero.agents._react_protocols``; ``GuidedProtocol`` in ``vero.agents._guided``), and ``"auto"``.
``"text"`` (default, works with any endpoint): the model writes ``Thought:`` /
``Action:`` / ``Action Input: <JSON>`` and ends with ``Final Answer: ...`` or
``Action: Finish`` + ``{"answer": ...}``; the agent passes
``stop=["Observation:"]`` and also cuts a self-written observation, so an
action always wins over an invented final answer after it.  A call this run
made before is run again, and its observation also says so and repeats the
task (small models loop on a result they do not know how to use).  ``"native"``: the
API's tool calls are the actions, the text beside them is the thought, and a
plain text reply is the answer.  ``"guided"``: each step is one JSON object that
a JSON schema (``response_format``) constrains to a thought and then one tool
call or the final answer; a server that refuses the schema switches the run
to ``"text"`` (one warning step, and one more model request).  ``"auto"``:
``"guided"`` where the model client says it supports JSON-schema replies, else ``"text"``.

Model calls, with ``n`` turns used and ``k = reflect_every``:
- finishing on turn ``n``: ``n`` calls, plus one reflection after every
  ``k``-th turn that is not the last of the budget;
- turns exhausted: ``max_turns + 1`` calls (the final-answer call, asking for
  the best answer from the trajectory without tools), plus up to
  ``final_answer_retries`` (2) re-asks while it comes back empty; status ``max_turns``;
- a recovery rule's note (``recovery=``, ``vero.recovery``): one more turn each;
- ``max_format_errors`` (3) malformed replies in a row: the run ends ``failed``
  (``MalformedOutputError``) after exactly that many calls;
- the same actions ``max_repeats`` (3) times in a row: the third is not run,
  its observation is a warning; a fourth in a row ends the run ``max_turns``
  with the best partial answer (no final-answer call), after 4 calls;
- ``protocol="guided"``: as above, without the repair of failed calls; a server
  that refuses the schema costs one more call (the text protocol's first step).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from vero.agents._guided import GUIDED_ERROR_PROMPT, GUIDED_PROMPT, GuidedProtocol, chosen_protocol, fall_back
from vero.agents._native import (
    EMPTY_NUDGE,
    HOSTED_INSTRUCTIONS,
    LOOP_WARNING_PROMPT,
    NATIVE_INSTRUCTIONS,
    NATIVE_INTRO,
    RAN_FOR_YOU,
)
from vero.agents._react_base import ReActAgentBase
from vero.agents._react_protocols import PROTOCOLS, NativeProtocol, TextProtocol
from vero.core.agent import BudgetExceeded, MalformedOutputError, Tools
from vero.core.message import ChatModel, Message
from vero.core.notes import note
from vero.core.options import AgentKeywords, Unpack
from vero.core.parsing import ReActStep, normalized_arguments, parse_action_input, parse_react
from vero.core.result import MAX_TURNS, Outcome, StepKind
from vero.errors import LLMCallError
from vero.recovery import Nudge, consult, resolve

# The text protocol's parser lives with the other parsers; it is re-exported here.
__all__ = ["ReActAgent", "NativeProtocol", "TextProtocol", "ReActStep", "parse_action_input", "parse_react"]

REACT_SYSTEM_PROMPT = (
    "You are a helpful assistant that solves tasks step by step. "
    "Get facts and do arithmetic with the tools; never guess a value."
)

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

# One worked example, in a made-up domain: a small model follows a demonstrated habit (one lookup per
# fact, arithmetic through a tool, a short answer, an honest "no") better than a described one.  On 80
# held-out tasks, Qwen2.5-Coder-1.5B solved 34 without it and more with it (docs/benchmarks.md, the sixth
# measurement).  Its tool takes a domain-specific argument name: with a generic one ("name"), the model
# copied it into calls of tools whose parameter is named otherwise.
REACT_EXAMPLE = (
    (
        "An example of the format, with made-up tools "
        "(yours are listed above; call them with their own argument names):\n"
    )
    + """Question: How many more seats does the Orion Theatre have than the Lyra Hall, and is the Lyra Hall in Lisbon?
Thought: I need both seat counts. First the Orion Theatre.
Action: venue_info
Action Input: {"venue": "Orion Theatre"}
Observation: {"venue": "Orion Theatre", "seats": 1240, "city": "Porto"}
Thought: Now the Lyra Hall.
Action: venue_info
Action Input: {"venue": "Lyra Hall"}
Observation: {"venue": "Lyra Hall", "seats": 865, "city": "Porto"}
Thought: I subtract with a tool instead of in my head.
Action: calculate
Action Input: {"expression": "1240 - 865"}
Observation: 375
Thought: The Lyra Hall is in Porto, so it is not in Lisbon. I now know the final answer
Final Answer: 375 more seats; no, the Lyra Hall is in Porto, not Lisbon."""
)
REACT_FORMAT_PROMPT += "\n\n" + REACT_EXAMPLE.replace("{", "{{").replace("}", "}}")

# With native tool calls, "solve step by step" made a small model write out a numbered plan instead of
# making the first call (then answer with invented values): the native intro does not say it.  The
# native system prompt is ToolCallingAgent's: the intro, then the instructions, in one paragraph.

FORMAT_ERROR_PROMPT = note(
    "format_error",
    """Observation: Invalid format: {problem}. Reply with
Thought: ...
Action: one of [{names}]
Action Input: a JSON object
or, if you know the answer, with
Final Answer: ...""",
)


REFLECT_PROMPT = note(
    "reflect",
    """Pause and reflect on the steps so far, in at most three sentences:
Which steps helped? What went wrong or is still missing? What is the best next step?
Do not call a tool and do not give the final answer yet.""",
)

REFLECTION_NOTE = note("reflection", "Reflection on your progress so far: {reflection}\nContinue with the next step.")

FINAL_ANSWER_PROMPT = note(
    "final_answer",
    """You have run out of steps. Using only the steps above, write the best final answer
you can to the task (say what is still uncertain). Do not call tools. Reply in the form
Final Answer: ...""",
)


class ReActAgent(ReActAgentBase):
    """Reasoning and acting in a loop over the shared ``ToolRegistry``.

    Args (beyond ``Agent``'s):
        protocol: ``"text"`` (Thought/Action lines, ``TextProtocol``), ``"native"``
            (API tool calls, ``NativeProtocol``), ``"guided"`` (JSON steps a schema constrains,
            ``GuidedProtocol``) or ``"auto"`` (``"guided"`` where the model client supports
            JSON-schema replies, else ``"text"``); ``PROTOCOLS`` maps the names to the strategies.
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
    or, for ``protocol="native"``, ``native_intro_prompt`` followed by ``native_prompt``
    (``native_hosted_prompt`` for a hosted model: no text-call guide);
    for ``protocol="guided"``, ``intro_prompt`` followed by ``guided_prompt``.
    """

    intro_prompt = REACT_SYSTEM_PROMPT
    format_prompt = REACT_FORMAT_PROMPT
    native_intro_prompt = NATIVE_INTRO
    native_prompt = NATIVE_INSTRUCTIONS
    native_hosted_prompt = HOSTED_INSTRUCTIONS  # for a hosted model (vero.core.capabilities.hosted_model)
    format_error_prompt = FORMAT_ERROR_PROMPT
    native_empty_prompt = EMPTY_NUDGE  # the same as ToolCallingAgent's; the task follows it
    guided_prompt = GUIDED_PROMPT
    guided_error_prompt = GUIDED_ERROR_PROMPT
    loop_warning_prompt = LOOP_WARNING_PROMPT
    reflect_prompt = REFLECT_PROMPT
    reflection_note = REFLECTION_NOTE
    final_answer_prompt = FINAL_ANSWER_PROMPT
    final_answer_retries = 2
    max_reflections = 2  # reflection notes kept in the conversation

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
        resolve(self.options.recovery)  # an unknown preset or rule is an error here, not in the run

    @property
    def _strategy(self) -> TextProtocol | NativeProtocol | GuidedProtocol:
        """The protocol of the run in progress (see ``run_protocol``), chosen once per run."""
        if self._run is None:
            return PROTOCOLS[chosen_protocol(self.protocol, self.llm)]
        notes = self._run.notes
        if "protocol" not in notes:
            notes["protocol"] = self.protocol if self.protocol != "auto" else chosen_protocol("auto", self.llm)
        return PROTOCOLS[notes["protocol"]]

    @property
    def run_protocol(self) -> str:
        """The protocol of the run in progress: ``protocol``, with ``"auto"`` decided once per run, and
        ``"text"`` after a server refused a guided step (``vero.agents._guided.fall_back``)."""
        if self._run is None:
            return chosen_protocol(self.protocol, self.llm)
        return next(name for name, strategy in PROTOCOLS.items() if strategy is self._strategy)

    # -- the loop ------------------------------------------------------------
    def solve(self, task: str, **kwargs: Any) -> str | Outcome:
        messages = [Message("system", self.build_system_prompt()), *self.history_messages(), Message("user", task)]
        for turn in self.turns():
            try:
                reply = self.call_llm(messages, **self._strategy.options(self))
            except LLMCallError as error:  # a server that refuses guided steps: the text protocol from here on
                if not fall_back(self, error, messages):
                    raise
                continue
            answer = self._strategy.step(self, reply, messages)
            if answer is not None:
                self.record(StepKind.FINAL, answer)
                return answer
            if self.reflect_every and turn % self.reflect_every == 0 and turn < self.max_turns:
                self.reflect(messages)
        return Outcome(self.final_answer(messages), MAX_TURNS)

    def answer_check(self, answer: str) -> str | None:
        """The text protocol's check of a Final Answer: the next observation instead, or None to accept it.

        The recovery rules (``recovery=``, ``vero.recovery``) may send a note, or make a read-only
        lookup for the model (the observation then says that vero made it, and gives its result).
        """
        if isinstance(self.options.recovery, bool):  # no rules
            return None
        response = consult(self, resolve(self.options.recovery), answer)
        if isinstance(response, Nudge) or response is None:
            return response.text if response else None
        self.current_run.call_origin = "vero"  # for the gate: vero makes this lookup
        result = self.run_tool(response.name, response.arguments)
        self.current_run.call_origin = "native"
        return f"{RAN_FOR_YOU.format(call=f'{response.name}({response.arguments})')}\n{result.output}"

    def build_system_prompt(self) -> str:
        """The protocol's system prompt (a subclass may override this to change it)."""
        return self._strategy.system_prompt(self)

    def reflect(self, messages: list[Message]) -> None:
        """One extra call: a short reflection, appended so the next calls see it.

        Only the last ``max_reflections`` notes stay in the conversation (two by default,
        so the prompt stays short): adding one more removes the oldest note message.
        """
        reply = self.call_llm(
            [*messages, Message("user", self.reflect_prompt)], **self._strategy.options(self, final=True)
        )
        if not reply.text.strip():
            return
        self.record(StepKind.REFLECTION, reply.text.strip())
        note = Message("user", self.reflection_note.format(reflection=reply.text.strip()))
        messages.append(note)
        kept = self.current_run.notes.setdefault("reflection_notes", [])
        kept.append(note)
        if len(kept) > self.max_reflections:
            oldest = kept.pop(0)
            messages[:] = [m for m in messages if m is not oldest]

    def final_answer(self, messages: list[Message]) -> str:
        """The turns ran out: ask for the best answer from the trajectory, re-asking if empty."""
        prompt = [*messages, Message("user", self.final_answer_prompt)]
        for attempt in range(1, self.final_answer_retries + 2):
            answer = self._strategy.final_text(self.call_llm(prompt, **self._strategy.options(self, final=True)).text)
            if answer:
                self.record(StepKind.FINAL, answer, reason="max_turns")
                return answer
            self.record(StepKind.WARNING, "the final answer came back empty", attempt=attempt)
        return self.partial

    # -- used by the protocols' steps --------------------------------------
    def note_thought(self, thought: str) -> None:
        """Record a thought (also the best partial answer so far, see ``keep_partial``)."""
        if thought.strip():
            self.record(StepKind.THOUGHT, thought.strip())
            self.current_run.partial = thought.strip()

    def format_error(self, problem: str, raw: str, messages: list[Message]) -> None:
        """A correction as the next observation; ``max_format_errors`` in a row end the run."""
        errors = self.tally("format_errors")
        self.record(StepKind.WARNING, f"malformed reply: {problem}", raw=raw)
        if errors >= self.max_format_errors:
            raise MalformedOutputError(f"{errors} malformed replies in a row; the last: {problem}", raw)
        messages.append(Message("user", self._strategy.correction(self, problem)))

    def check_repeats(self, actions: list[tuple[str, Any]]) -> str | None:
        """Loop detection: a warning instead of the observation, or the end of the run."""
        key = json.dumps([[name, normalized_arguments(args)] for name, args in actions], sort_keys=True, default=str)
        notes = self.current_run.notes
        repeats = notes["repeats"] = notes.get("repeats", 0) + 1 if key == notes.get("last_actions") else 1
        notes["last_actions"] = key
        if repeats > self.max_repeats:
            raise BudgetExceeded(MAX_TURNS, f"the agent repeated the same action {repeats} times in a row")
        if repeats == self.max_repeats:
            warning = self.loop_warning_prompt.format(count=repeats)
            self.record(StepKind.WARNING, warning, actions=key)
            return warning
        return None
