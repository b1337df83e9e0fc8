"""BasicReflectionAgent: generate -> reflect -> revise, until a critic accepts.

A generator answers from the model's own knowledge (no tools), a critic judges the answer as JSON
``{"is_sufficient": bool, "feedback": str}``, and the generator revises with that feedback.  The loop
stops when the critic accepts (status ``ok``) or after ``max_turns`` critiques (status ``needs_review``,
with the latest draft: it is returned without a further revision, so every returned draft has been
critiqued).  Model calls per run: docs/basic-reflection.md, "Model calls".

A critique that stays unusable after the re-asks is never read as acceptance: the run ends ``needs_review``
with the raw critic output recorded as an ``error`` step.  A draft cut off by the output cap (``max_tokens``)
is never accepted: it gets the critique "cut off, write a complete and shorter response" without a critic call.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from vero.core.agent import HISTORY_SECTION, Agent, MalformedOutputError, Tools, with_history
from vero.core.message import ChatModel, Message
from vero.core.options import AgentKeywords, Unpack
from vero.core.parsing import as_bool
from vero.core.result import Outcome, Status, StepKind
from vero.core.text import SHOWS_NOTHING

GENERATE_PROMPT = """You are a helpful assistant. Answer the user task as accurately as possible.
Output only the answer to the user task.
{history_section}"""

REFLECT_PROMPT = """You are a strict critic. Evaluate whether the response sufficiently answers the user task.
{history_section}
## Evaluation criteria for `is_sufficient`
Set `is_sufficient` to true if the response correctly answers what the user asked, even if it could be phrased better or include extra detail.
Set `is_sufficient` to false only if:
- The response contains factual errors
- The response does not actually answer the user task
- A piece of information critical to answering the task is missing
Judge what the response does, not whether it spells out every requirement: a requirement that is met
implicitly (for example, an exception that is not caught propagates on its own) is met.

## Output Format
Reply with only this JSON object:
{{
  "thinking": "<one or two sentences of reasoning>",
  "is_sufficient": <true or false>,
  "feedback": "<describe the must-fix issue if is_sufficient is false, otherwise empty string>"
}}
"""  # noqa: E501 (a long line of the prompt: rewrapping it would change what the model reads)

CRITIQUE_REQUEST = "## User Task\n{task}\n\n## Response\n{response}"

REVISE_PROMPT = """You are a helpful assistant.
Revise your previous response using the critic's feedback below.
Produce only the improved response with no additional commentary.
{history_section}
## Previous Response
{response}

## Feedback
{feedback}
"""

CUT_OFF_FEEDBACK = (
    "The response was cut off at the output length limit. "
    "Write a complete response that is shorter: leave out anything the task does not ask for."
)

CRITIQUE_SCHEMA = '{"thinking": "...", "is_sufficient": true or false, "feedback": "<the must-fix issue, or empty>"}'


@dataclass
class Critique:
    """The critic's verdict on one draft."""

    is_sufficient: bool
    feedback: str
    thinking: str = ""


class BasicReflectionAgent(Agent):
    """Generator and critic in a bounded loop (the reflection pattern of Shinn et al., 2023, without tools).

    Args (beyond ``Agent``'s):
        max_turns: how many critiques at most (default 3).
        critic_llm: the model that critiques (default: ``llm``); a stronger
            model here often helps more than a stronger generator.

    Statuses: ``ok`` (accepted), ``needs_review`` (never accepted, or the critic's output stayed
    unusable), ``failed`` (empty first draft or an error).  Steps: ``draft``, ``critique`` (data:
    is_sufficient, feedback, thinking), ``revision``, and ``error`` for an unusable critique.

    Prompts are class attributes (``generate_prompt``, ``reflect_prompt``, ``revise_prompt``;
    docs/basic-reflection.md).  The agent never calls tools.
    """

    uses_tools = False  # it answers from the model alone
    default_max_turns = 3
    generate_prompt = GENERATE_PROMPT
    reflect_prompt = REFLECT_PROMPT
    critique_request = CRITIQUE_REQUEST
    revise_prompt = REVISE_PROMPT
    critique_schema = CRITIQUE_SCHEMA

    def __init__(
        self,
        name: str,
        llm: ChatModel,
        tools: Tools = None,
        system_prompt: str | None = None,
        max_turns: int | None = None,
        verbose: bool = True,
        *,
        critic_llm: ChatModel | None = None,
        **base_options: Unpack[AgentKeywords],
    ) -> None:
        super().__init__(name, llm, tools, system_prompt, max_turns, verbose, **base_options)
        self.critic_llm = critic_llm or llm

    # -- the loop ------------------------------------------------------------
    _solve_options: frozenset[str] | None = frozenset()  # run() takes no keyword for solve

    def solve(self, task: str, **kwargs: Any) -> str | Outcome:
        reply = self._generate(task)
        draft = reply.text
        if SHOWS_NOTHING.fullmatch(draft):  # nothing a reader would see
            self.record(StepKind.ERROR, "the model returned an empty draft")
            return Outcome("", Status.FAILED)
        self.record(StepKind.DRAFT, draft)
        self.keep_partial(draft)
        complete = "" if reply.truncated else draft  # the latest draft not cut off at the output limit

        for turn in self.turns():
            try:
                critique = Critique(False, CUT_OFF_FEEDBACK) if reply.truncated else self._reflect(task, draft)
            except MalformedOutputError as exc:
                self.record(StepKind.ERROR, exc.raw, reason=str(exc))
                return Outcome(draft, Status.NEEDS_REVIEW)
            verdict = "sufficient" if critique.is_sufficient else f"not sufficient: {critique.feedback}"
            self.record(StepKind.CRITIQUE, verdict, **asdict(critique))  # is_sufficient, feedback, thinking
            if critique.is_sufficient:
                return Outcome(draft, Status.OK)
            if turn == self.max_turns:
                break  # the budget is spent: no revision that nobody would critique
            reply = self._revise(task, draft, critique.feedback)
            if SHOWS_NOTHING.fullmatch(reply.text):
                self.record(StepKind.ERROR, "the model returned an empty revision")
                break
            draft = reply.text
            self.record(StepKind.REVISION, draft)
            complete = draft if not reply.truncated else complete
            self.keep_partial(complete or draft)  # what a budget that ends the run returns
        if not complete:  # a fragment is no draft to review
            self.record(StepKind.ERROR, "every draft was cut off at the output limit")
            return Outcome(draft, Status.FAILED)
        return Outcome(complete, Status.NEEDS_REVIEW)  # a cut-off revision does not replace a whole draft

    # -- the steps -------------------------------------------------------------
    def _generate(self, task: str) -> Message:
        if self.system_prompt:  # the user's prompt is used verbatim, never formatted
            system = with_history(self, self.system_prompt)
        else:
            system = self.generate_prompt.format(**self._history_slots())
        return self.call_llm([Message("system", system), Message("user", task)], **self.answer_format())

    def _reflect(self, task: str, response: str) -> Critique:
        messages = [
            Message("system", self.reflect_prompt.format(**self._history_slots())),
            Message("user", self.critique_request.format(task=task, response=response)),
        ]
        return self.ask_json(messages, _read_critique, schema=self.critique_schema, llm=self.critic_llm)

    def _history_slots(self) -> dict[str, str]:
        """The slots a prompt may have: ``{history_section}`` (these prompts) or ``{history}`` (a subclass's own)."""
        history = self.format_history()  # read once for both slots
        section = HISTORY_SECTION.format(history=history) if history else ""  # as history_section(self)
        return {"history_section": section, "history": history or "(none)"}

    def _revise(self, task: str, response: str, feedback: str) -> Message:
        system = self.revise_prompt.format(**self._history_slots(), response=response, feedback=feedback)
        return self.call_llm([Message("system", system), Message("user", task)], **self.answer_format())


def _read_critique(data: dict[str, Any]) -> Critique:
    """The critic's JSON as a ``Critique``; raises ValueError/KeyError to re-ask."""
    sufficient = as_bool(data["is_sufficient"], "is_sufficient")
    feedback = str(data.get("feedback") or "").strip()
    if not sufficient and not feedback:
        raise ValueError("`feedback` must name the must-fix issue when `is_sufficient` is false")
    return Critique(sufficient, feedback, str(data.get("thinking") or "").strip())
