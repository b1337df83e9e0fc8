"""What ReAct's step skeleton (``ReActAgent``, ``vero.agents.react``) and its protocols share: ``ReActAgentBase``,
``ReplyStep``, ``ReActProtocol``.  The protocols (``TextProtocol`` in ``react.py``, ``NativeProtocol`` in
``_react_protocols.py``, ``GuidedProtocol`` in ``_guided.py``) see only this module, so none imports the agent's.
"""

from __future__ import annotations

import json
from abc import ABCMeta
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, cast

from vero.agents._native import RAN_FOR_YOU
from vero.agents._react_prompts import GUIDED_PROMPTS, NATIVE_PROMPTS, OLD_NAMES, TEXT_PROMPTS, ReActPrompts
from vero.core.agent import THOUGHT_ONLY, Agent, BudgetExceeded, MalformedOutputError
from vero.core.deprecation import deprecated
from vero.core.message import Arguments, Message, ToolCall
from vero.core.result import Status, StepKind


@dataclass
class ReplyStep:
    """One reply as its protocol read it: what the step skeleton (``ReActAgent.step``) acts on."""

    said: Message | None = None  # the reply as it goes into the conversation (None: nothing)
    thought: str = ""  # recorded, and kept as the best partial answer so far
    problem: str | None = None  # malformed: a correction follows (``max_format_errors`` in a row end the run)
    note: str | None = None  # sent back instead of acting (native: a cut-off reply, asked again)
    answer: str | None = None  # the final answer, unless the recovery hook objects
    check_answer: bool = True  # False: the answer is taken as it is (guided: nothing else was on offer)
    actions: list[tuple[str, Arguments]] = field(default_factory=list)  # (tool, the arguments as read, once)


class ReActProtocol(Protocol):
    """How one protocol reads a reply and asks for the next (the skeleton does the rest)."""

    name: str  # the ``protocol=`` name, and the agent's ``<name>_prompts`` table

    def system_prompt(self, agent: ReActAgentBase) -> str: ...
    def options(self, agent: ReActAgentBase, final: bool = False) -> dict[str, Any]: ...
    def read(self, agent: ReActAgentBase, reply: Message) -> ReplyStep: ...
    def act(self, agent: ReActAgentBase, step: ReplyStep, warning: str | None, messages: list[Message]) -> None: ...
    def send(
        self, agent: ReActAgentBase, step: ReplyStep, response: str | ToolCall, messages: list[Message]
    ) -> None: ...
    def correction(self, agent: ReActAgentBase, problem: str) -> str: ...
    def final_text(self, text: str) -> str: ...


class _OldPromptNames(ABCMeta):
    """Reading an old prompt attribute on the class (``ReActAgent.intro_prompt``): ``old_prompt``."""

    def __getattr__(cls, name: str) -> Any:
        if name not in OLD_NAMES:
            raise AttributeError(f"type object {cls.__name__!r} has no attribute {name!r}")
        return old_prompt(cls, name)


class ReActAgentBase(Agent, metaclass=_OldPromptNames):
    """ReAct's prompt tables (one per protocol: ``vero.agents._react_prompts``), and what the step skeleton
    uses beyond ``Agent``: corrections, loop detection, the reflection and the final-answer call.

    The prompt attributes from before the tables (``intro_prompt``, ``format_prompt``...) still work for
    one release, with a ``DeprecationWarning``.
    """

    text_prompts: ReActPrompts = TEXT_PROMPTS
    native_prompts: ReActPrompts = NATIVE_PROMPTS
    guided_prompts: ReActPrompts = GUIDED_PROMPTS
    final_answer_retries = 2
    max_reflections = 2  # reflection notes kept in the conversation
    max_format_errors: int
    max_repeats: int

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass that sets an old prompt attribute: its value goes into the tables (deprecated)."""
        super().__init_subclass__(**kwargs)
        for old, (tables, entry) in OLD_NAMES.items():
            if old in cls.__dict__ and isinstance(cls.__dict__[old], str):
                deprecated(f"{cls.__name__}.{old}", _instead(tables[0], entry))
                for table in tables:
                    setattr(cls, table, replace(getattr(cls, table), **{entry: cls.__dict__[old]}))

    def __getattr__(self, name: str) -> Any:
        """An old prompt attribute (``agent.intro_prompt``, ``old_prompt``), or ``Agent``'s moved names."""
        return old_prompt(type(self), name) if name in OLD_NAMES else super().__getattr__(name)

    def protocol_of_run(self) -> ReActProtocol:
        """The protocol of the run in progress (``ReActAgent.run_protocol`` names it)."""
        raise NotImplementedError  # ReActAgent's

    def build_system_prompt(self) -> str:
        """The protocol's system prompt (a subclass may override this to change it)."""
        return self.protocol_of_run().system_prompt(self)

    @property
    def prompts(self) -> ReActPrompts:
        """The prompt table of the run's protocol."""
        return cast(ReActPrompts, getattr(self, f"{self.protocol_of_run().name}_prompts"))

    def format_error(self, problem: str, raw: str, messages: list[Message]) -> None:
        """A correction as the next message; ``max_format_errors`` in a row end the run ``failed``."""
        errors = self.tally("format_errors")
        self.record(StepKind.WARNING, f"malformed reply: {problem}", raw=raw)
        if errors >= self.max_format_errors:
            raise MalformedOutputError(f"{errors} malformed replies in a row; the last: {problem}", raw)
        messages.append(Message("user", self.protocol_of_run().correction(self, problem)))

    def check_repeats(self, actions: list[tuple[str, Arguments]]) -> str | None:
        """Loop detection: a warning instead of the observation, or the end of the run."""
        comparable = [[name, (args.written or "").strip() if args.plain else args] for name, args in actions]
        key = json.dumps(comparable, sort_keys=True, default=str)
        notes = self.current_run.notes
        repeats = notes["repeats"] = notes.get("repeats", 0) + 1 if key == notes.get("last_actions") else 1
        notes["last_actions"] = key
        if repeats > self.max_repeats:
            raise BudgetExceeded(Status.MAX_TURNS, f"the agent repeated the same action {repeats} times in a row")
        if repeats == self.max_repeats:
            warning = self.prompts.loop_warning.format(count=repeats)
            self.record(StepKind.WARNING, warning, actions=key)
            return warning
        return None

    def reflect(self, messages: list[Message]) -> None:
        """One extra call: a short reflection, appended so the next calls see it.  Only the last
        ``max_reflections`` notes stay in the conversation, so the prompt stays short."""
        protocol = self.protocol_of_run()
        reply = self.call_llm([*messages, Message("user", self.prompts.reflect)], **protocol.options(self, final=True))
        if not reply.text.strip():
            return
        self.record(StepKind.REFLECTION, reply.text.strip())
        note = Message("user", self.prompts.reflection_note.format(reflection=reply.text.strip()))
        messages.append(note)
        kept = self.current_run.notes.setdefault("reflection_notes", [])
        kept.append(note)
        if len(kept) > self.max_reflections:
            oldest = kept.pop(0)
            messages[:] = [m for m in messages if m is not oldest]

    def final_answer(self, messages: list[Message]) -> str:
        """The turns ran out: ask for the best answer from the trajectory, re-asking if empty."""
        protocol = self.protocol_of_run()
        prompt = [*messages, Message("user", self.prompts.final_answer)]
        for attempt in range(1, self.final_answer_retries + 2):
            answer = protocol.final_text(self.call_llm(prompt, **protocol.options(self, final=True)).text)
            if answer:
                self.record(StepKind.FINAL, answer, reason="max_turns")
                return answer
            self.record(StepKind.WARNING, "the final answer came back empty", attempt=attempt)
        self.current_run.notes[THOUGHT_ONLY] = True  # no answer came: the partial one is a thought, kept out of history
        return self.partial


def send_as_observation(agent: Agent, step: ReplyStep, response: str | ToolCall, messages: list[Message]) -> None:
    """The recovery hook's response to an answer, as the next ``Observation:`` (text and guided steps):
    its note, or the result of the read-only lookup it made for the model, saying that vero made it."""
    if isinstance(response, ToolCall):
        response.origin = "vero"  # for the gate: vero makes this lookup
        result = agent.run_tool(response.name, response.args)
        response = f"{RAN_FOR_YOU.format(call=f'{response.name}({response.arguments})')}\n{result.output}"
    messages.append(Message("user", f"Observation: {response}"))


def old_prompt(owner: type, old: str) -> str:
    """The table entry an old prompt attribute stands for, with a ``DeprecationWarning``."""
    tables, entry = OLD_NAMES[old]
    deprecated(f"{owner.__name__}.{old}", _instead(tables[0], entry))
    return cast(str, getattr(getattr(owner, tables[0]), entry))


def _instead(table: str, entry: str) -> str:
    return f"set {table} = dataclasses.replace(ReActAgent.{table}, {entry}=...) instead"
