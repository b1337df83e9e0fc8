"""ReAct's prompts: one table (``ReActPrompts``) per protocol.

``ReActAgent.text_prompts``, ``native_prompts`` and ``guided_prompts`` hold them; a subclass
replaces a table, or one of its entries::

    class Careful(ReActAgent):
        text_prompts = replace(ReActAgent.text_prompts, intro="You are careful. Check every number.")
"""

from __future__ import annotations

from dataclasses import dataclass

from vero.agents._native import EMPTY_NUDGE, HOSTED_INSTRUCTIONS, NATIVE_INSTRUCTIONS, NATIVE_INTRO
from vero.core.notes import note

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

# One worked example, in a made-up domain: a small model copies a demonstrated habit (a lookup per fact,
# arithmetic through a tool, a call fixed from its error, a short answer, an honest "no") better than a
# described one: docs/react.md has the measurements.  The error is vero's own text (a test checks it).
REACT_EXAMPLE = (
    "An example of the format, with made-up tools (yours are listed above; call them with their own argument names):\n"
    """Question: How many more seats does the Orion Theatre have than the Lyra Hall, and is the Lyra Hall in Lisbon?
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
Observation: Error: tool 'calculate' is missing required argument(s): formula and got unexpected argument(s): expression. Expected arguments: formula (string).
Thought: The error says calculate takes "formula", not "expression".
Action: calculate
Action Input: {"formula": "1240 - 865"}
Observation: 375
Thought: The Lyra Hall is in Porto, so it is not in Lisbon. I now know the final answer
Final Answer: 375 more seats; no, the Lyra Hall is in Porto, not Lisbon."""  # noqa: E501 (vero's error, as it is)
)
REACT_FORMAT_PROMPT += "\n\n" + REACT_EXAMPLE.replace("{", "{{").replace("}", "}}")

FORMAT_ERROR_PROMPT = note(
    "format_error",
    """Observation: Invalid format: {problem}. Reply with
Thought: ...
Action: one of [{names}]
Action Input: a JSON object
or, if you know the answer, with
Final Answer: ...""",
)

LOOP_WARNING_PROMPT = note(
    "loop_warning",
    "You have repeated the same action with the same input {count} times in a row; it was not run again and the "
    "result would not change. Try a different action, or give your final answer.",
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

# The guided protocol's (vero.agents._guided): one JSON step per reply.
ANSWERED = "results_answer_the_task"  # the choice's first field: finish (true) or call a tool (false)

GUIDED_PROMPT = """You have access to the following tools:
{tools}

Reply with one JSON object per step. To call a tool:
{{"thought": "what you know so far and what to do next",
 "step": {{"{answered}": false, "tool": "the tool's name", "arguments": {{the tool's arguments}}}}}}
The tool's result comes back to you as the Observation. Call one tool per step, as often as needed.
When the results so far answer the task:
{{"thought": "...", "step": {{"{answered}": true, "final_answer": "the answer to the task"}}}}"""

GUIDED_ERROR_PROMPT = """Observation: Your reply could not be read: {problem}. Reply with one JSON object:
{{"thought": "...", "step": {{"{answered}": false, "tool": "one of [{names}]", "arguments": {{...}}}}}}
or, if the results so far answer the task:
{{"thought": "...", "step": {{"{answered}": true, "final_answer": "..."}}}}"""


@dataclass(frozen=True)
class ReActPrompts:
    """The prompts of one protocol.  The system prompt is ``intro`` (or the agent's ``system_prompt=``)
    followed by ``instructions``; ``correction`` follows a malformed or empty reply."""

    intro: str
    instructions: str  # text: with {tools} and {names}; guided: {tools} and {answered}
    correction: str  # text: {problem} and {names}; guided: {problem}, {names} and {answered}; native: the task follows
    hosted_instructions: str = ""  # native: the instructions for a hosted model (no guide to calls written as text)
    loop_warning: str = LOOP_WARNING_PROMPT  # with {count}: the same actions max_repeats times in a row
    reflect: str = REFLECT_PROMPT  # the reflection call's request (reflect_every)
    reflection_note: str = REFLECTION_NOTE  # with {reflection}: the reflection, kept in the conversation
    final_answer: str = FINAL_ANSWER_PROMPT  # the turns ran out: the request for the best answer


TEXT_PROMPTS = ReActPrompts(REACT_SYSTEM_PROMPT, REACT_FORMAT_PROMPT, FORMAT_ERROR_PROMPT)
# With native tool calls, "solve step by step" made a small model write out a numbered plan instead of
# making the first call (then answer with invented values): the native intro does not say it.  The
# native system prompt is ToolCallingAgent's: the intro, then the instructions, in one paragraph.
NATIVE_PROMPTS = ReActPrompts(NATIVE_INTRO, NATIVE_INSTRUCTIONS, EMPTY_NUDGE, hosted_instructions=HOSTED_INSTRUCTIONS)
GUIDED_PROMPTS = ReActPrompts(REACT_SYSTEM_PROMPT, GUIDED_PROMPT, GUIDED_ERROR_PROMPT)

# The prompt attributes ReActAgent had before the tables: (the tables, the entry) each stands for.
OLD_NAMES: dict[str, tuple[tuple[str, ...], str]] = {
    "intro_prompt": (("text_prompts", "guided_prompts"), "intro"),
    "format_prompt": (("text_prompts",), "instructions"),
    "format_error_prompt": (("text_prompts",), "correction"),
    "native_intro_prompt": (("native_prompts",), "intro"),
    "native_prompt": (("native_prompts",), "instructions"),
    "native_hosted_prompt": (("native_prompts",), "hosted_instructions"),
    "native_empty_prompt": (("native_prompts",), "correction"),
    "guided_prompt": (("guided_prompts",), "instructions"),
    "guided_error_prompt": (("guided_prompts",), "correction"),
    "loop_warning_prompt": (("text_prompts", "native_prompts", "guided_prompts"), "loop_warning"),
    "reflect_prompt": (("text_prompts", "native_prompts", "guided_prompts"), "reflect"),
    "reflection_note": (("text_prompts", "native_prompts", "guided_prompts"), "reflection_note"),
    "final_answer_prompt": (("text_prompts", "native_prompts", "guided_prompts"), "final_answer"),
}
