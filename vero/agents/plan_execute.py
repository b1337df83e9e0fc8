"""PlanExecuteAgent: plan -> approve -> execute each step -> replan -> answer (Wang et al., 2023; BabyAGI).

The textbook loop, as in LangChain's plan-and-execute:

1. A planner (which sees the tools but cannot call them) writes the plan as JSON ``{"steps": [...]}``.
2. An optional approval gate lets a person accept it, reject it, or send feedback to the planner.
3. The next step runs through a fresh ReAct agent (``StepExecutor``) that shares this agent's llm and
   tools and sees the whole plan and the earlier results, with the output of each tool call that worked.
4. A replanner reads the results so far and answers either ``{"response": "..."}`` (the answer: done)
   or ``{"steps": [...]}`` (what still remains); a plan with steps the user has not approved goes
   through the gate of 2 first; back to 3.

When a cap ends the loop (``max_turns`` executed steps, or more than ``max_replans`` changes of the plan)
one more call writes the answer from the step results (status ``max_turns``).  Model calls per run:
docs/plan-execute.md, "Model calls".
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import partial
from typing import Any, Literal

from vero.agents._plan import MARKERS, Approval, Finished, Plan, PlanStep, Remaining, in_order, read_plan, read_replan
from vero.agents._step_executor import StepExecutor
from vero.agents.react import ReActAgent
from vero.core.agent import HISTORY_SECTION, Agent, MalformedOutputError, Tools, clip_observation
from vero.core.message import ChatModel, Message
from vero.core.options import AgentKeywords, Unpack, renamed_budget, renamed_budget_property
from vero.core.result import Outcome, PlanStepStatus, Status, StepKind
from vero.errors import LLMCallError, VeroError

__all__ = ["PlanExecuteAgent", "StepExecutor", "EmptyPlanError", "PlanRejected"]
__all__ += ["Plan", "PlanStep", "Finished", "Remaining", "Approval"]  # re-exported from vero.agents._plan

PLANNER_PROMPT = "You are a planner. You break a task into a short, ordered list of concrete steps."

PLANNER_RULES = """An executor will carry out your steps one at a time; it can call the tools listed in the request.
- You cannot call tools yourself; only plan.
- Each step is one short instruction in plain words that names the tool to use; pick the tool whose description fits.
- A later step may use the result of an earlier one: refer to it ("the hall found in step 1"), never guess it.
- Use as few steps as the task needs: no step after the one whose result answers the task.

Examples (made-up tools: band_info, venue_info, calculate).
"Which hall does the band Blue Harbor play tonight?" needs one step:
{"steps": ["Find the hall Blue Harbor plays tonight with band_info"]}
"How many seats per row has the hall where Blue Harbor plays tonight?" needs three:
{"steps": ["Find the hall Blue Harbor plays tonight with band_info", \
"Find that hall's seats and rows with venue_info", "Divide the seats by the rows with calculate"]}

Reply with only the JSON object of your plan."""

PLAN_REQUEST = "## Task\n{task}\n\n## Available tools\n{tools}\n" + HISTORY_SECTION.rstrip("\n")

PLAN_FEEDBACK = """

## Your previous plan
{plan}

## Feedback on that plan
{feedback}
Write a new plan that addresses the feedback."""

STEP_TASK = """You are carrying out one step of a larger plan.

## Overall task
{task}

## Plan ([x] done, [!] failed, [>] this step, [ ] later)
{plan}

## Results of earlier steps
{results}

## Your step
{step}

Do only this step. Use a tool for every fact or calculation; never guess a value.
Give the step's result as your final answer."""

REPLAN_PROMPT = """You check the progress of a plan after each step.
If the step results already answer the task, reply {"response": "<the final answer to the task, for the user>"}.
Otherwise reply {"steps": ["...", "..."]} with only the steps that still remain (not the completed ones):
keep the remaining plan if it still fits, or change it when a step failed or a result calls for it.
Reply with only the JSON object."""

PROGRESS_REQUEST = "## Task\n{task}\n\n## Plan\n{plan}\n\n## Step results\n{results}\n\n## Available tools\n{tools}"

FINAL_PROMPT = """The plan could not be finished. Using only the step results below,
write the best final answer to the task, and say briefly what is still unknown."""

NO_TOOLS = "(no tools: steps are done by reasoning alone)"  # the tools section of a plan or progress request
PLAN_SCHEMA = '{"steps": ["first step", "second step"]}'
REPLAN_SCHEMA = '{"response": "<final answer>"} or {"steps": ["<remaining step>", "..."]}'


class EmptyPlanError(VeroError):
    """The planner returned a plan with no steps (the run ends ``failed``)."""


class PlanRejected(VeroError):
    """The approval gate refused the plan or a replanned one (the run ends ``rejected``; no step of it runs)."""


class PlanExecuteAgent(Agent):
    """Plan first, then execute step by step with a ReAct sub-agent, replanning after each step.

    Args (beyond ``Agent``'s):
        system_prompt: replaces the planner's introduction (its rules stay) and the step executors'
            (their format stays), so its rules reach the agent that calls the tools.
        max_turns: executed steps at most (default 20).  ``max_steps=`` is its deprecated old name
            (``agent.max_steps`` reads it), with a warning.
        approve: ``fn(plan) -> True | False | str``; True runs the plan, False ends the run ``rejected``
            before any step of it runs, a non-empty string is feedback for the planner (or return an
            ``Approval``).  Asked for the first plan and for each replanned one with a step not approved
            yet (feedback on that goes to the replanner).  Default None: auto-approve.
        max_plan_revisions: feedback rounds on each plan shown (default 3); a plan still not approved
            after them is ``rejected`` (it never runs unapproved).
        max_replans: changes of the remaining plan by the replanner (default 5); the next one ends the loop.
        protocol: the ReAct protocol of the step executors (``ReActAgent``'s ``protocol``, default ``"text"``).

    Statuses: ``ok`` (the replanner answered), ``rejected``, ``failed`` (an empty plan, a replanner whose reply stays
    unusable, or another error), ``max_turns`` (a cap ended the loop).  Steps: ``plan``, ``approval``, ``plan_step``
    (start and result), ``replan``, ``final``, ``warning``; each step's ReAct steps are one level deeper.

    Prompts are class attributes: the planner's system prompt is ``planner_prompt`` (``system_prompt=``
    replaces it for one agent) followed by ``planner_rules``; ``step_task`` is the task each step's
    ``executor_class`` (``StepExecutor``) gets, ``replan_prompt`` the replanner's system prompt.
    """

    default_max_turns = 20
    max_plan_steps = 20
    planner_prompt = PLANNER_PROMPT
    planner_rules = PLANNER_RULES
    plan_request = PLAN_REQUEST
    plan_feedback = PLAN_FEEDBACK
    step_task = STEP_TASK
    executor_class: type[ReActAgent] = StepExecutor
    replan_prompt = REPLAN_PROMPT
    progress_request = PROGRESS_REQUEST
    final_prompt = FINAL_PROMPT
    max_steps = renamed_budget_property("max_steps")  # deprecated: the old name of max_turns

    def __init__(
        self,
        name: str,
        llm: ChatModel,
        tools: Tools = None,
        system_prompt: str | None = None,
        max_turns: int | None = None,
        verbose: bool = True,
        *,
        max_steps: int | None = None,
        approve: Callable[[Plan], bool | str | Approval] | None = None,
        max_plan_revisions: int = 3,
        max_replans: int = 5,
        protocol: Literal["text", "native", "guided", "auto"] = "text",
        **base_options: Unpack[AgentKeywords],
    ) -> None:
        if max_plan_revisions < 0:
            raise ValueError(f"max_plan_revisions must be 0 or more, got {max_plan_revisions}")
        if approve is not None and (not callable(approve) or inspect.iscoroutinefunction(approve)):
            raise ValueError(f"approve must be a plain function of the plan (not async), or None; got {approve!r}")
        budget = renamed_budget("max_steps", max_steps, max_turns)
        super().__init__(name, llm, tools, system_prompt, budget, verbose, **base_options)
        self.approve = approve
        self.max_plan_revisions = max_plan_revisions
        self.max_replans = max_replans
        self.protocol = protocol

    # -- the loop: plan -> (approve) -> execute a step -> replan -> ... -> answer ------------------
    _solve_options: frozenset[str] | None = frozenset()  # run() takes no keyword for solve

    def solve(self, task: str, **kwargs: Any) -> str | Outcome:
        try:
            plan = self._approved_plan(task)  # plan -> (approve)
            for number in self.turns():  # at most max_turns steps
                self._execute(task, plan, plan.next_step(), number)  # execute the next step
                decision = self._replan(task, plan)  # replan: the answer, or the steps that remain
                if isinstance(decision, Remaining) and decision.steps != plan.remaining():  # a new plan for the rest
                    if self.tally("replans") > self.max_replans:
                        self.record(StepKind.WARNING, f"the replan cap ({self.max_replans}) is reached")
                        break
                    decision = self._approved_replan(task, plan, decision)  # -> (approve) steps not approved yet
                if isinstance(decision, Finished):
                    self.record(StepKind.FINAL, decision.answer)
                    return Outcome(decision.answer, Status.OK)
        except PlanRejected:  # the gate refused the plan or a replanned one: no unapproved step runs
            return Outcome("", Status.REJECTED)
        return self._answer_from_results(task, plan)

    # -- plan and approval gate ------------------------------------------------------------
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

    def _approved_replan(self, task: str, plan: Plan, decision: Finished | Remaining) -> Finished | Remaining:
        """The replanner's steps in place of the remaining ones, once they may run: approved ones still to
        run, in their order (some perhaps dropped), run without asking again; any other plan goes to
        ``approve`` as the first did, its feedback to the replanner (whose answer then ends the run)."""
        approved = plan.remaining()  # the steps approved and not run yet (not retries)
        for revision in range(self.max_plan_revisions + 1):
            if isinstance(decision, Finished):
                return decision
            plan.replace_remaining(decision.steps)
            self.record(StepKind.REPLAN, plan.render(), steps=decision.steps)
            if self.approve is None or in_order(decision.steps, approved):
                return decision
            verdict = Approval.of(self.approve(plan))
            self.record(StepKind.APPROVAL, str(verdict), approved=verdict.approved)
            if verdict.approved:
                return decision
            if not verdict.feedback.strip() or revision == self.max_plan_revisions:
                break
            decision = self._replan(task, plan, feedback=verdict.feedback)
        raise PlanRejected("the replanned plan was not approved")

    def _make_plan(self, task: str, previous: Plan | None = None, feedback: str = "") -> Plan:
        history = self.format_history() or "(none)"
        request = self.plan_request.format(task=task, tools=self.tools.describe() or NO_TOOLS, history=history)
        if previous is not None:  # the gate sent it back with feedback
            request += self.plan_feedback.format(plan=previous.render(), feedback=feedback)
        system = (self.system_prompt or self.planner_prompt) + "\n\n" + self.planner_rules
        messages = [Message("system", system), Message("user", request)]
        try:
            steps = self.ask_json(messages, partial(read_plan, instructions=self.planner_rules), schema=PLAN_SCHEMA)
        except MalformedOutputError as error:  # no plan after the re-asks: the task itself is the one step
            self.record(StepKind.WARNING, f"no usable plan ({error}); the task runs as a single step")
            steps = [task]
        plan = Plan.of(self._capped(steps))
        self.record(StepKind.PLAN, plan.render(), steps=plan.remaining())
        if not plan.steps:
            self.record(StepKind.ERROR, "the planner returned an empty plan")
            raise EmptyPlanError("the planner returned an empty plan")
        return plan

    def _capped(self, steps: list[str]) -> list[str]:
        if len(steps) > self.max_plan_steps:
            self.record(StepKind.WARNING, f"the plan had {len(steps)} steps; keeping the first {self.max_plan_steps}")
        return steps[: self.max_plan_steps]

    # -- execute one step ------------------------------------------------------------------
    def _execute(self, task: str, plan: Plan, step: PlanStep, number: int) -> None:
        step.status = PlanStepStatus.IN_PROGRESS
        self.record(StepKind.PLAN_STEP, f"[>] {step.description}", status=step.status)
        executor = self.subagent(  # the user's system prompt (its rules) reaches the agent that calls the tools
            self.executor_class, f"{self.name}-step{number}", protocol=self.protocol, system_prompt=self.system_prompt
        )
        results = plan.results(clip_observation, self.options.max_observation_chars)
        text = self.step_task.format(task=task, plan=plan.render(), results=results, step=step.description)
        result = self.run_subagent(executor, text)
        if isinstance(result.error, LLMCallError) and result.error.for_good:  # every later step would fare the same
            raise result.error  # (as in Reflexion): the run ends `failed` with it, not with a replanner's guess
        step.finish(result)
        line = f"{MARKERS[step.status]} {step.description} -> {step.result}"
        self.record(StepKind.PLAN_STEP, line, status=step.status, description=step.description, result=step.result)
        if step.status == PlanStepStatus.COMPLETED:  # a failed step's answer is a guess: never the run's partial answer
            self.keep_partial(result.answer)

    # -- replan, and the answer when a cap ends the loop -------------------------------------
    def _progress(self, prompt: str, task: str, plan: Plan, feedback: str = "") -> list[Message]:
        results = plan.results(clip_observation, self.options.max_observation_chars)
        tools = self.tools.describe() or NO_TOOLS
        request = self.progress_request.format(task=task, plan=plan.render(), results=results, tools=tools)
        if feedback:  # the gate sent the replanned steps back
            request += self.plan_feedback.format(plan=plan.render(), feedback=feedback)
        return [Message("system", prompt), Message("user", request)]

    def _replan(self, task: str, plan: Plan, feedback: str = "") -> Finished | Remaining:
        """The replanner's answer, or the steps that remain (at most ``max_plan_steps``)."""
        read = partial(read_replan, completed=plan.completed(), remaining=plan.remaining())
        decision = self.ask_json(self._progress(self.replan_prompt, task, plan, feedback), read, schema=REPLAN_SCHEMA)
        return decision if isinstance(decision, Finished) else Remaining(self._capped(decision.steps))

    def _answer_from_results(self, task: str, plan: Plan) -> Outcome:
        """A cap ended the loop: one call writes the best answer from the step results (status ``max_turns``);
        if that reply is empty or cut off, the answer is the last completed step's result.  With no step run
        (``max_turns=0``) there are no results to answer from: no call, and no answer."""
        if all(step.status == PlanStepStatus.PENDING for step in plan.steps):
            return Outcome("", Status.MAX_TURNS)
        reply = self.call_llm(self._progress(self.final_prompt, task, plan), **self.answer_format())
        answer = reply.text.strip()
        if not answer or reply.truncated:
            self.record(StepKind.WARNING, "the answer from the step results was empty or cut off")
            return Outcome(self.partial, Status.MAX_TURNS)
        self.record(StepKind.FINAL, answer, reason="max_turns")
        return Outcome(answer, Status.MAX_TURNS)
