"""PlanExecuteAgent: plan -> approve -> execute each step -> replan (Wang et al., 2023; BabyAGI).

A planner (which sees the tools but cannot call them) writes the plan as JSON
``{"steps": [...]}``; an optional approval gate lets a person accept it,
reject it, or send feedback to the planner; then each step runs through a
fresh ReAct agent (``StepExecutor``) that shares this agent's llm, gets the
tools the step names (all of them if it names none) and sees the whole plan
and the earlier results, with the output of each earlier tool call that
worked.  A step whose tool calls all failed counts as failed.  A replanner
answers either ``{"response": "..."}`` (done) or ``{"steps": [...]}`` (what
still remains).

When to replan.  By default (``replan_every_step=False``) the replanner runs
only after a step that failed, and its steps go in place of the failed one,
before the later steps of the plan; after a completed step one short call asks whether
the results already answer the task (``answer_early``: small planners add steps after
the one that answers it, and each costs calls and can change the answer), and if
not the next step runs; once every step is done one plain-text call writes the
answer from the step results (status ``ok``).  Small local models handle this far better than the
classic loop, whose JSON replanner after every step tends to add pointless
steps instead of answering; it also saves a call per step.  With
``replan_every_step=True`` the replanner runs after every step, as in the
classic plan-and-execute loop (LangChain's, after Wang et al.).

The first step whose every call failed runs again, once, after the next step, before any repair: small
planners put a lookup before the step whose result it needs ("Find the greenhouse's capacity", then
"Find the Frostvine"), and its executor, with no id to use, makes one up.  Run later, it has that
result.  Only when it fails again does the replanner repair it.

A step is run at most twice with the same words.  A repair step that already
failed twice is dropped, and when a repair offers nothing new (no step that
is not already later in the plan: only the failed step again, only the later
or completed steps, or a reply that stays unusable) the failed step is given
up.  The plan goes on without it, and an answer written while a given-up step
was never done ends ``needs_review``: small planners add steps a task does
not need, and a step that cannot be done should not keep the later steps
from running.

A planner whose reply stays unusable after the JSON re-asks (small models copy
the prompt's example plan) does not end the run: the task becomes a one-step
plan, with a warning.

Model calls: 1 for the plan (+1 per feedback round), then per executed step the ReAct calls, plus 1
for the answer, plus 1 after each completed step that has steps after it (the early-answer check;
none when the step's result is an id, or with ``answer_early=False``). A two-step plan whose steps
each finish in one ReAct call costs 1 + 2 * 1 + 1 + 1 = 5 calls (3 when the check answers after the
first step); a failed step that is run again after the next step costs that step's ReAct calls
again, each failed step that is not adds a replanner call (up to ``max_replans`` of them: the next
failed step ends the loop), and a step that names a tool but is answered without calling one gets
one nudge (one more call). With ``replan_every_step=True`` every step adds a replanner call instead,
and the answer comes from it: 1 + 2 * (1 + 1) = 5 calls. When a cap ends the loop (``max_turns``
executed steps, ``max_replans``; with ``replan_every_step`` also the same remaining plan proposed
twice in a row, or no step left but no answer) one more call writes the final answer from the step
results, and the status is ``max_turns``; if that reply is empty or cut off, the answer is the last
completed step's result. JSON re-asks come on top.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from vero.agents._plan import MARKERS, Approval, Finished, Plan, PlanStep, Remaining
from vero.agents._planner import EmptyPlanError, Planner, PlanRejected
from vero.agents._step_executor import StepExecutor
from vero.agents.react import ReActAgent
from vero.core.agent import HISTORY_SECTION, Tools
from vero.core.message import ChatModel
from vero.core.options import AgentKeywords, Unpack, renamed_budget
from vero.core.result import REJECTED, Outcome, PlanStepStatus, StepKind

# Re-exported, so that `from vero.agents.plan_execute import Plan, StepExecutor, ...` keeps working.
__all__ = ["PlanExecuteAgent", "StepExecutor", "EmptyPlanError", "PlanRejected", "Plan", "PlanStep", "Finished",
           "Remaining", "Approval"]

PLANNER_PROMPT = "You are a planner. You break a task into a short, ordered list of concrete steps."

PLANNER_RULES = """An executor will carry out your steps one at a time; it can call the tools listed in the request.
- You cannot call tools yourself; only plan.
- Each step is one short instruction in plain words that names the tool to use; pick the tool whose description fits.
- A later step may use the result of an earlier one: refer to it ("the city found in step 1"), never guess it.
- Use as few steps as the task needs: no step after the one whose result answers the task.

Examples (other tools: country_info, city_info, calculate).
"What is the capital of Norway?" needs one step:
{"steps": ["Find the capital of Norway with country_info"]}
"What is the population density of the capital of Norway?" needs three:
{"steps": ["Find the capital of Norway with country_info", "Find that city's population and area with city_info", \
"Divide the population by the area with calculate"]}

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

RETRY_NOTE = "\n(This step failed before with {tools}: choose the tool whose description gives what the step needs.)"

REPLAN_PROMPT = """You check the progress of a plan after each step.
If the step results already answer the task, reply {"response": "<the final answer to the task, for the user>"}.
Otherwise reply {"steps": ["...", "..."]} with only the steps that still remain (not the completed ones):
keep the remaining plan if it still fits, or change it when a step failed or a result calls for it.
Reply with only the JSON object."""

REPAIR_PROMPT = """A step of the plan failed (marked [!]).
If the step results already answer the task, reply {"response": "<the final answer to the task, for the user>"}.
Otherwise reply {"steps": ["...", "..."]} with the step or steps to do instead of the failed one;
the later steps ([ ]) stay in the plan after them. Write each step in plain words and name the tool it uses,
as in "Find the capital of Norway with country_info". Reply with only the JSON object."""

PROGRESS_REQUEST = "## Task\n{task}\n\n## Plan\n{plan}\n\n## Step results\n{results}\n\n## Available tools\n{tools}"

EARLY_ANSWER_PROMPT = """Some steps of the plan are still to come. Read the step results below.
If they already give exactly what the task asks for, reply with the final answer to the task for the user:
short and direct, with the exact values from the results.
If something the task asks for is still missing (a value still to be looked up or computed), reply only: NOT YET"""

ANSWER_PROMPT = """Every step of the plan is done. Using the step results below, write the final answer to the task
for the user: short and direct, with the exact values from the results. Reply with the answer only."""

FINAL_PROMPT = """The plan could not be finished. Using only the step results below,
write the best final answer to the task, and say briefly what is still unknown."""

class PlanExecuteAgent(Planner):
    """Plan first, then execute step by step with a ReAct sub-agent, replanning as results come in.

    Args (beyond ``Agent``'s):
        system_prompt: replaces the planner's introduction (its rules stay).
        max_turns: executed steps at most (default 20).  ``max_steps=`` is
            its old name and still works (``agent.max_steps`` reads it).
        approve: ``fn(plan) -> True | False | str``; True runs the plan, False
            ends the run ``rejected`` before any step runs, a non-empty string
            is feedback for the planner (or return an ``Approval``).  Default None: auto-approve.
        max_plan_revisions: feedback rounds (default 3); a plan still not
            approved after them is ``rejected`` (it never runs unapproved).
        max_replans: repairs after a failed step, also one that gives the step up (default 5): the next
            failed step ends the loop; with ``replan_every_step``, changes of the remaining plan.
        replan_every_step: run the replanner after every step, not only after a
            failed one (default False; see the module docstring).
        answer_early: after a completed step with steps still to come, ask once whether the
            results already answer the task, and answer if so (default True; see the module
            docstring).  Without ``replan_every_step`` only: there the replanner asks that.
        protocol: the ReAct protocol of the step executors (``ReActAgent``'s ``protocol``:
            ``"text"``, the default, ``"native"``, ``"guided"`` or ``"auto"``).

    Statuses: ``ok`` (answered after the last step, or the replanner answered), ``needs_review``
    (answered while a failed step that was given up was never done), ``rejected``, ``failed`` (empty
    plan, or another error), ``max_turns`` (a cap ended the loop).
    Steps: ``plan``, ``approval``, ``plan_step`` (start and result), ``replan``,
    ``final``, ``warning``; each step's ReAct steps are one level deeper.

    Prompts are class attributes: the planner's system prompt is
    ``planner_prompt`` (a subclass overrides it; ``system_prompt=`` replaces
    it for one agent) followed by ``planner_rules``.  ``step_task`` is the
    task each step's ReAct agent (an ``executor_class``, by default
    ``StepExecutor``) gets, ``replan_prompt`` the replanner's system prompt.

    This file holds the loop and runs the steps; the model calls that write, repair and replan the
    plan and write the answer, and the recording of what they decide, are the planner's, in ``Planner``
    (``vero/agents/_planner.py``).
    """

    default_max_turns = 20
    max_plan_steps = 20
    planner_prompt = PLANNER_PROMPT
    planner_rules = PLANNER_RULES
    plan_request = PLAN_REQUEST
    plan_feedback = PLAN_FEEDBACK
    step_task = STEP_TASK
    retry_note = RETRY_NOTE
    executor_class: type[ReActAgent] = StepExecutor
    replan_prompt = REPLAN_PROMPT
    repair_prompt = REPAIR_PROMPT
    answer_prompt = ANSWER_PROMPT
    early_answer_prompt = EARLY_ANSWER_PROMPT
    progress_request = PROGRESS_REQUEST
    final_prompt = FINAL_PROMPT
    max_steps = property(lambda self: self.max_turns)  # the old name of max_turns

    def __init__(self, name: str, llm: ChatModel, tools: Tools = None, system_prompt: str | None = None,
                 max_turns: int | None = None, verbose: bool = True, *, max_steps: int | None = None,
                 approve: Callable[[Plan], bool | str | Approval] | None = None, max_plan_revisions: int = 3,
                 max_replans: int = 5, replan_every_step: bool = False, answer_early: bool = True,
                 protocol: Literal["text", "native", "guided", "auto"] = "text",
                 **base_options: Unpack[AgentKeywords]) -> None:
        if max_plan_revisions < 0:
            raise ValueError(f"max_plan_revisions must be 0 or more, got {max_plan_revisions}")
        budget = renamed_budget("max_steps", max_steps, max_turns)
        super().__init__(name, llm, tools, system_prompt, budget, verbose, **base_options)
        self.approve = approve
        self.max_plan_revisions = max_plan_revisions
        self.max_replans = max_replans
        self.replan_every_step = replan_every_step
        self.answer_early = answer_early
        self.protocol = protocol

    # -- the loop ------------------------------------------------------------
    def solve(self, task: str, **kwargs: Any) -> str | Outcome:
        try:
            plan = self._approved_plan(task)
        except PlanRejected:
            return Outcome("", REJECTED)
        run_steps = self._replan_after_every_step if self.replan_every_step else self._repair_failed_steps
        return run_steps(task, plan)

    def _repair_failed_steps(self, task: str, plan: Plan) -> Outcome:
        """The default loop: the steps in order, a repair after each failed one, the answer after the last."""
        for number in self.turns():
            step = plan.next_step()
            self._execute(task, plan, step, number)
            if step.status == PlanStepStatus.COMPLETED:
                if not plan.remaining():
                    return self._answer(task, plan)
                answer = self._answered_early(task, plan, step)
                if answer is not None:
                    return self._finished(Finished(answer), plan)
                continue
            if plan.defer(step):
                self.record(StepKind.WARNING, f"the step {step.description!r} failed; it runs again after the next "
                                       "step, whose result it may need")
                continue
            if self._past_cap():
                break
            decision = self._repair(task, plan)
            if isinstance(decision, Finished):
                return self._finished(decision, plan)
            if not decision.steps:  # the failed step was the last one left
                return self._answer(task, plan)
            self._replace_remaining(plan, decision.steps)
        return self._answer(task, plan, capped=True)

    def _replan_after_every_step(self, task: str, plan: Plan) -> Outcome:
        """The classic loop (``replan_every_step``): the replanner answers, or says what remains, after each step."""
        proposed = None
        for number in self.turns():
            self._execute(task, plan, plan.next_step(), number)
            decision = self._replan(task, plan)
            if isinstance(decision, Finished):
                return self._finished(decision, plan)
            if not decision.steps:
                self.record(StepKind.WARNING, "every step is done, but the replanner gave no answer")
                break
            if decision == proposed:
                self.record(StepKind.WARNING, "the replanner proposed the same plan twice in a row")
                break
            proposed = decision
            if decision.steps != plan.remaining() and self._past_cap():
                break
            self._replace_remaining(plan, decision.steps)
        return self._answer(task, plan, capped=True)

    def _past_cap(self) -> bool:
        """Count one more repair or change of plan; True, with a warning, once they pass ``max_replans``."""
        capped = self.tally("replans") > self.max_replans
        if capped:
            self.record(StepKind.WARNING, f"the replan cap ({self.max_replans}) is reached")
        return capped

    # -- executor ------------------------------------------------------------------
    def _execute(self, task: str, plan: Plan, step: PlanStep, number: int) -> None:
        step.status = PlanStepStatus.IN_PROGRESS
        self.record(StepKind.PLAN_STEP, f"[>] {step.description}", status=step.status)
        named = plan.tools_for(step, self.tools.names())
        executor = self.subagent(self.executor_class, f"{self.name}-step{number}",
                                 tools=self.tools.only(named) if named else self.tools, protocol=self.protocol)
        if isinstance(executor, StepExecutor):
            executor.join_plan(task, tools_named=bool(named), plan_steps=self.steps_so_far())
        # a retry: the planner may have named the wrong tool (not for a deferred step: its input was missing)
        failed_tools = [] if step.deferred else plan.failed_tools(step.description)
        retry_note = self.retry_note.format(tools=", ".join(failed_tools)) if failed_tools else ""
        text = self.step_task.format(task=task, plan=plan.render(), results=plan.results(self.clip),
                                     step=step.description + retry_note)
        result = self.run_subagent(executor, text)
        step.finish(result)
        self.record(StepKind.PLAN_STEP, f"{MARKERS[step.status]} {step.description} -> {step.result}",
                    status=step.status, description=step.description, result=step.result)
        if step.status == PlanStepStatus.COMPLETED:  # a failed step's answer is a guess: never the run's partial answer
            self.keep_partial(result.answer)
