"""The planner's side of ``PlanExecuteAgent``: the model calls that write the plan (through the approval
gate), repair or replan it as step results come in, and write the answer from the step results; and the
recording of what they decide (the new remaining steps, the answer).

``PlanExecuteAgent`` (``plan_execute.py``) holds the loop and runs the steps; its prompts, which these
calls send, are its class attributes and are documented there.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from vero.agents._early_answer import from_results
from vero.agents._plan import Approval, Finished, Plan, PlanStep, Remaining, read_plan, read_replan
from vero.core.agent import Agent, MalformedOutputError
from vero.core.message import Message
from vero.core.result import MAX_TURNS, NEEDS_REVIEW, OK, Outcome, PlanStepStatus, StepKind
from vero.core.text import folded, looks_like_id
from vero.errors import VeroError

PLAN_SCHEMA = '{"steps": ["first step", "second step"]}'
REPLAN_SCHEMA = '{"response": "<final answer>"} or {"steps": ["<remaining step>", "..."]}'
_NOT_YET = re.compile(r"^\W*not[\s_-]*yet\b|\bstill (?:need|missing|to be)\b|\bneed to (?:look|find|comput|calcul)")


class EmptyPlanError(VeroError):
    """The planner returned a plan with no steps (the run ends ``failed``)."""


class PlanRejected(VeroError):
    """The approval gate refused the plan (the run ends ``rejected``; no step runs)."""


class Planner(Agent):
    """The planner's model calls; ``PlanExecuteAgent`` sets the prompts and options they read."""

    max_plan_steps: int
    planner_prompt: str
    planner_rules: str
    plan_request: str
    plan_feedback: str
    replan_prompt: str
    repair_prompt: str
    answer_prompt: str
    early_answer_prompt: str
    answer_early: bool
    progress_request: str
    final_prompt: str
    approve: Callable[[Plan], bool | str | Approval] | None
    max_plan_revisions: int

    # -- planner and approval gate ------------------------------------------------------
    def _approved_plan(self, task: str) -> Plan:
        """The plan to run; raises ``PlanRejected`` when the gate refuses it (a plan never runs unapproved)."""
        plan = self._make_plan(task)
        if self.approve is None:
            return plan
        for revision in range(self.max_plan_revisions + 1):
            verdict = Approval.of(self.approve(plan))
            self.record(StepKind.APPROVAL, str(verdict), approved=verdict.approved)
            if verdict.approved:
                return plan
            if not verdict.feedback.strip() or revision == self.max_plan_revisions:
                break
            plan = self._make_plan(task, feedback=verdict.feedback, previous=plan)
        raise PlanRejected("the plan was not approved")

    def _make_plan(self, task: str, feedback: str | None = None, previous: Plan | None = None) -> Plan:
        request = self.plan_request.format(task=task, tools=self._tools_text(), history=self.history_text())
        if feedback is not None:
            assert previous is not None  # feedback is always on a previous plan
            request += self.plan_feedback.format(plan=previous.render(), feedback=feedback)
        system = (self.system_prompt or self.planner_prompt) + "\n\n" + self.planner_rules
        try:
            steps = self.ask_json([Message.system(system), Message.user(request)],
                                  lambda data: read_plan(data, self.planner_rules, self.tools.names()),
                                  schema=PLAN_SCHEMA)
        except MalformedOutputError as error:  # a small planner may copy the example however often it is re-asked
            self.record(StepKind.WARNING, f"no usable plan ({error}); the task runs as a single step")
            steps = [task]
        plan = Plan.of(self._capped(steps))
        self.record(StepKind.PLAN, plan.render(), steps=plan.remaining())
        if not plan:
            self.record(StepKind.ERROR, "the planner returned an empty plan")
            raise EmptyPlanError("the planner returned an empty plan")
        return plan

    def _capped(self, steps: list[str]) -> list[str]:
        if len(steps) > self.max_plan_steps:
            self.record(StepKind.WARNING, f"the plan had {len(steps)} steps; keeping the first {self.max_plan_steps}")
        return steps[: self.max_plan_steps]

    def _tools_text(self) -> str:
        return self.tools.describe() or "(no tools: steps are done by reasoning alone)"

    # -- replanner and the answer ----------------------------------------------------------------
    def _progress(self, prompt: str, task: str, plan: Plan) -> list[Message]:
        request = self.progress_request.format(task=task, plan=plan.render(), results=plan.results(self.clip),
                                               tools=self._tools_text())
        return [Message.system(prompt), Message.user(request)]

    def _repair(self, task: str, plan: Plan) -> Finished | Remaining:
        """After a failed step: the answer, or the repair's steps followed by the later steps of the plan.

        A repair never runs a step a third time, and an unusable repair is no reason to stop: the plan
        goes on without the failed step (small planners add steps the task does not need, such as
        finding a greenhouse by a tool that needs its id, and the later steps answer it).
        """
        try:
            decision = self._ask_progress(self.repair_prompt, task, plan)
        except MalformedOutputError:
            decision = Remaining([])
        if isinstance(decision, Finished):
            return decision
        remaining, given_up = plan.repair(decision.steps)
        for description in given_up:
            self.record(StepKind.WARNING, f"the failed step {description!r} could not be repaired; the plan goes on "
                                   "without it")
        return Remaining(self._capped(remaining))

    def _replan(self, task: str, plan: Plan) -> Finished | Remaining:
        """The answer, or the replanner's remaining steps (listing only completed steps keeps the plan)."""
        decision = self._ask_progress(self.replan_prompt, task, plan)
        if isinstance(decision, Finished):
            return decision
        return Remaining(self._capped(decision.steps or plan.remaining()))

    def _replace_remaining(self, plan: Plan, steps: list[str]) -> None:
        """Put the repair's or the replanner's steps in place of the pending ones (a ``replan`` step)."""
        if steps != plan.remaining():
            plan.replace_remaining(steps)
            self.record(StepKind.REPLAN, plan.render(), steps=steps)

    def _ask_progress(self, prompt: str, task: str, plan: Plan) -> Finished | Remaining:
        return self.ask_json(self._progress(prompt, task, plan),
                             lambda data: read_replan(data, plan.completed(), self.tools.names()), schema=REPLAN_SCHEMA)

    def _answered_early(self, task: str, plan: Plan, step: PlanStep) -> str | None:
        """After a completed step with steps still to come: the answer, when the step results already give it.

        Small planners add steps after the one that answers the task ("Divide the years of service by 52"
        after "Find the years of service"), and each costs an executor's calls and can change the answer.
        One short call asks; a reply of NOT YET, a cut-off reply, or an answer not taken from what the tools
        returned about what the task asks (``from_results``) lets the plan go on.
        Not asked when the step's result is an id (``GH-03``), nor taken when the answer is one: an id is a
        link to the next lookup.
        """
        if not self.answer_early or looks_like_id(step.result.strip()):
            return None
        reply = self.call_llm(self._progress(self.early_answer_prompt, task, plan))
        answer = reply.text.strip()
        if reply.truncated or not answer or _NOT_YET.search(folded(answer)) or looks_like_id(answer):
            return None  # not yet; or only an id, which again is a link
        outputs = [output for s in plan.steps if s.status == PlanStepStatus.COMPLETED for _, output in s.tool_results]
        if not from_results(answer, outputs, task):
            self.record(StepKind.WARNING, "an answer before the plan's end that the results do not give; the plan "
                                          "goes on", raw=answer)
            return None
        return answer

    def _finished(self, decision: Finished, plan: Plan) -> Outcome:
        """The replanner's or the early check's answer; ``needs_review`` when a given-up step was never done."""
        self.record(StepKind.FINAL, decision.answer)
        return Outcome(decision.answer, NEEDS_REVIEW if plan.gave_up() else OK)

    def _answer(self, task: str, plan: Plan, capped: bool = False) -> Outcome:
        """The answer from the step results, in plain text: after the last step, or when a cap ended the
        loop (status ``max_turns``).  When a failed step was given up or a cap struck, it comes from
        ``final_prompt`` (say what is still unknown), and an answer without a cap is ``needs_review``."""
        unfinished = capped or plan.gave_up()
        reply = self.call_llm(self._progress(self.final_prompt if unfinished else self.answer_prompt, task, plan))
        answer = reply.text.strip()
        if not answer or reply.truncated:
            self.record(StepKind.WARNING, "the answer from the step results was empty or cut off")
            return Outcome(self.partial, MAX_TURNS if capped else NEEDS_REVIEW)  # the last step's result
        self.record(StepKind.FINAL, answer, **({"reason": "max_turns"} if capped else {}))
        return Outcome(answer, MAX_TURNS if capped else NEEDS_REVIEW if unfinished else OK)
