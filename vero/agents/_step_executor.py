"""``StepExecutor``: the ReAct agent that carries out one step of a plan (``PlanExecuteAgent``)."""

from __future__ import annotations

from vero.agents._plan import lasting
from vero.agents.react import ReActAgent
from vero.core.agent import tool_calls
from vero.core.result import Step, StepKind

STEP_FORMAT_PROMPT = """You have access to the following tools:
{tools}

Each reply is one step. When the observations so far give your step's result, reply:

Final Answer: your step's result

Otherwise reply in exactly this format:

Thought: what you know so far and what to do next
Action: the tool to use, one of [{names}]
Action Input: the tool's arguments as one JSON object

Then stop: the Observation (the tool's result) will be sent to you. Never write the Observation yourself."""

STEP_TOOL_NUDGE = """You answered without calling a tool, so that result would be a guess. This step is done with:
{tools}
Call it now with the values from the task or the earlier results."""


class StepExecutor(ReActAgent):
    """The ReAct agent that carries out one plan step.

    Its format prompt says how to finish first and shows the action format
    last: given a step with the plan around it, small models copy the closing
    lines of ReAct's usual prompt ("Thought: I now know the final answer") and
    invent the step's result instead of calling the tool.  Its finish line asks
    for "your step's result": with ReAct's "the final answer to the task" they
    wrote an invented answer to the whole task as each step's result.
    """

    format_prompt = STEP_FORMAT_PROMPT
    step_tool_nudge = STEP_TOOL_NUDGE
    # A step whose calls all failed goes to the replanner, plan-and-execute's own repair.  Repairing the
    # call inside the step instead (vero.agents._repair) kept executors going on pointless steps until
    # some call worked: measured on a 1.5B model, 4 tasks lost and 1 gained over 21 (docs/benchmarks.md).
    max_repairs = 0
    follows_links = False  # a step's result is often the id itself ("Find the greenhouse of the Frostvine")
    tools_named = False  # set when the step names its tools: its result must come from one of them
    plan_calls: tuple[tuple[Step, Step], ...] = ()  # set to the earlier steps' calls (see _plan.lasting)
    # set to the user's task: a value found only in this step's text (the plan, an earlier failed call) is
    # still made up (vero.core.given_id)
    overall_task = ""

    def join_plan(self, task: str, tools_named: bool, plan_steps: list[Step]) -> None:
        """Before the run: the user's task, whether the step names its tools, and the plan's steps so far
        (their tool calls that still hold, see ``_plan.lasting``), which this executor's checks read."""
        self.overall_task, self.tools_named = task, tools_named
        self.plan_calls = lasting(tool_calls(plan_steps, depth=1))

    def earlier_calls(self) -> list[tuple[Step, Step]]:
        """The plan's earlier calls count too.  Its executor writes ``calculate("stock * price")`` with
        field names from their results (the named-values hint gives their values), and a retried step's
        executor repeats the call that failed for the step before, word for word (it is not run again
        while no call has worked since: the observation lists the other tools)."""
        return [*self.plan_calls, *super().earlier_calls()]

    def answer_check(self, answer: str) -> str | None:
        """Small executors "answer" a step that names a tool without calling it, with an invented
        value (often the whole task's answer): the first such answer gets one nudge to call it."""
        if self.tools_named and not tool_calls(self.steps_so_far()) and self.tally("uncalled_tool") == 1:
            self.record(StepKind.WARNING, "the step's answer came without calling its tool; asked to call it",
                        raw=answer)
            return self.step_tool_nudge.format(tools=self.tools.short_lines())
        return super().answer_check(answer)
