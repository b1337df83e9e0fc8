"""``StepExecutor``: the ReAct agent that carries out one step of a plan (``PlanExecuteAgent``)."""

from __future__ import annotations

from dataclasses import replace

from vero.agents.react import ReActAgent

STEP_FORMAT_PROMPT = """You have access to the following tools:
{tools}

Each reply is one step. When the observations so far give your step's result, reply:

Final Answer: your step's result

Otherwise reply in exactly this format:

Thought: what you know so far and what to do next
Action: the tool to use, one of [{names}]
Action Input: the tool's arguments as one JSON object

Then stop: the Observation (the tool's result) will be sent to you. Never write the Observation yourself."""


class StepExecutor(ReActAgent):
    """The ReAct agent that carries out one plan step.

    Its format prompt says how to finish first and shows the action format last: given a step with the plan around it,
    small models copy the closing lines of ReAct's usual prompt ("Thought: I now know the final answer") and invent the
    step's result instead of calling the tool.  Its finish line asks for "your step's result": with ReAct's "the final
    answer to the task" they wrote an invented answer to the whole task as each step's result.
    """

    text_prompts = replace(ReActAgent.text_prompts, instructions=STEP_FORMAT_PROMPT)
