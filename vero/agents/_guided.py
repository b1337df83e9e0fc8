"""ReAct's ``guided`` protocol: each step is one JSON object that a JSON schema constrains
(docs/react.md, "Schema-guided steps").

``{"thought": ..., "step": ...}``: the step is a call of one tool with that tool's argument schema
(trimmed to what every server's converter takes, ``grammar_schema``), or the final answer; the thought
comes first (the model reasons before it chooses), then ``results_answer_the_task``, a yes/no choice
(with the answer as one option among many calls, a small model went on calling tools after it had
the answer).  A call that worked is not run again (a tool that changes things would change them twice);
after ``MAX_REPEATED_CALLS`` repeats only the answer is offered.  A refused schema: text for the run (``fall_back``).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from vero.agents._react_base import ReActAgentBase, ReplyStep, send_as_observation
from vero.agents._react_prompts import ANSWERED, GUIDED_ERROR_PROMPT, GUIDED_PROMPT
from vero.core.agent import CUT_OFF, clip_observation, earlier_results
from vero.core.capabilities import hosted_model
from vero.core.message import Arguments, Message
from vero.core.output import is_strict
from vero.core.parsing import call_worked, final_answer_text, parse_json_object, parse_json_value
from vero.core.parsing.json_text import LONG_NUMBER, rounded_number, without_fence
from vero.core.result import StepKind
from vero.core.text import SHOWS_NOTHING
from vero.errors import REFUSED_STATUSES, LLMCallError
from vero.tools.registry import ToolRegistry

__all__ = ["ANSWERED", "GUIDED_ERROR_PROMPT", "GUIDED_PROMPT", "GuidedProtocol", "chosen_protocol", "fall_back"]

log = logging.getLogger("vero.agent")
SCHEMA_NAME = "react_step"
MAX_REPEATED_CALLS = 2  # repeats of a call that worked, per run; after them only the final answer is offered

_NOT_RUN_AGAIN = "(You made this same call before; it was not run again. Its result is above. "
REPEATED_CALL_NOTE = _NOT_RUN_AGAIN + "Use it: call another tool, or give the final answer.)"
ANSWER_NOW_NOTE = _NOT_RUN_AGAIN + "You have what the tools can give: reply now with the final answer.)"


class GuidedProtocol:
    """Schema-guided JSON steps (``response_format`` with a JSON schema); needs a server that enforces it."""

    name = "guided"

    def system_prompt(self, agent: ReActAgentBase) -> str:
        """The intro (or ``system_prompt=``), then the step format with the tools."""
        prompts = agent.guided_prompts
        instructions = prompts.instructions.format(tools=agent.tools.describe() or "(no tools)", answered=ANSWERED)
        return f"{agent.system_prompt or prompts.intro}\n\n{instructions}"

    def options(self, agent: ReActAgentBase, final: bool = False) -> dict[str, Any]:
        """The step's schema; the reflection and final-answer calls are free text."""
        if final:
            return {}
        return {"response_format": response_format(step_schema(agent.tools, calls=not answer_only(agent)))}

    def read(self, agent: ReActAgentBase, reply: Message) -> ReplyStep:
        """The JSON step: its thought, then its call or its answer.  An empty answer is malformed; the
        answer is taken as it is when only the answer was on offer (the model could do nothing else)."""
        try:
            thought, choice = read_step(reply.text, reply.truncated)
        except ValueError as problem:
            return ReplyStep(Message("assistant", reply.text) if reply.text.strip() else None, problem=str(problem))
        said = Message("assistant", reply.text)
        if "final_answer" in choice:
            answer = choice["final_answer"].strip()
            if SHOWS_NOTHING.fullmatch(answer):
                return ReplyStep(said, thought, problem="the final answer was empty")
            return ReplyStep(said, thought, answer=answer, check_answer=not answer_only(agent))
        if reply.truncated and not agent.tools.read_only(choice["tool"]):  # its arguments may have lost their end
            return ReplyStep(said, problem=CUT_OFF)  # (whether a call runs is the gate's to decide: Agent.run_tool)
        return ReplyStep(said, thought, actions=[(choice["tool"], choice["arguments"])])

    def act(self, agent: ReActAgentBase, step: ReplyStep, warning: str | None, messages: list[Message]) -> None:
        """The call's result as the next Observation (or the loop warning instead).  A repeat of a call that worked is
        not run (a tool that changes something would change it twice): the earlier result comes back with a note."""
        name, arguments = step.actions[0]
        earlier = earlier_results(agent.current_run.steps, name, arguments)
        worked = next((result.content for result in earlier if call_worked(result)), None)
        if warning is not None or worked is None:
            observation = warning if warning is not None else agent.run_tool(name, arguments).output
            messages.append(Message("user", f"Observation: {observation}"))
            return
        repeats = agent.tally("repeated_calls")
        message = f"{name} was called again with the same arguments; not run again, its earlier result was sent"
        agent.record(StepKind.WARNING, message, tool=name, args=arguments, repeats=repeats)
        note = ANSWER_NOW_NOTE if repeats >= MAX_REPEATED_CALLS else REPEATED_CALL_NOTE
        clipped = clip_observation(worked, agent.options.max_observation_chars)
        messages.append(Message("user", f"Observation: {clipped}\n{note}"))

    send = staticmethod(send_as_observation)  # the recovery hook's note on an answer, as the next Observation

    def correction(self, agent: ReActAgentBase, problem: str) -> str:
        names = ", ".join(agent.tools.names())
        return agent.guided_prompts.correction.format(problem=problem, names=names, answered=ANSWERED)

    @staticmethod
    def final_text(text: str) -> str:
        """The answer in the final-answer call's free reply: a guided step's ``final_answer`` (the model
        may keep writing JSON), else its ``Final Answer:`` line or its prose."""
        try:
            _, choice = read_step(text, truncated=False)
        except ValueError:
            return final_answer_text(text)
        answer = choice.get("final_answer")
        return answer.strip() if isinstance(answer, str) else ""


# -- reading a step ------------------------------------------------------------------------
def read_step(text: str, truncated: bool) -> tuple[str, dict[str, Any]]:
    """``(thought, choice)`` of a guided reply: the choice is ``{"final_answer": str}`` or
    ``{"tool": str, "arguments": dict}``; arguments read only by repairing the reply are ``Arguments`` with a
    ``problem`` (the gate refuses them for a tool that may change things).  Raises ``ValueError`` naming the problem."""
    repaired = False
    try:  # a key given twice with different values is an error; a code fence around the step is no repair
        data = parse_json_value(without_fence(text), repair=False)
    except ValueError:
        if truncated:  # a repaired cut-off reply may have lost its end
            raise ValueError(CUT_OFF) from None
        data, repaired = parse_json_object(text), True  # sloppy or amid prose: a server without the schema
    if not isinstance(data, dict) or not isinstance(data.get("step"), dict):
        raise ValueError('the reply is not a JSON object with a "step" object')
    thought = data["thought"] if isinstance(data.get("thought"), str) else ""
    choice = data["step"]
    answer = choice.get("final_answer")
    if isinstance(answer, (str, int, float)) and not isinstance(answer, bool):  # a number: a server without
        return thought, {"final_answer": str(answer)}  # the schema; a bool is no answer
    if isinstance(answer, (dict, list)) and answer:  # an object or list (a typed answer): as its JSON text
        return thought, {"final_answer": json.dumps(answer, ensure_ascii=False)}
    arguments = choice.get("arguments", {})
    if isinstance(choice.get("tool"), str) and isinstance(arguments, dict):
        written = Arguments(arguments)  # read exactly, or only by repairing the reply (refused for a changing tool)
        rounded = rounded_number(text) if LONG_NUMBER.search(text) else None  # a float would round it: not as written
        written.origin = "text"
        written.problem = "they could be read only by repairing them" if repaired else rounded
        return thought, {"tool": choice["tool"], "arguments": written}
    raise ValueError('the "step" has neither "tool" with "arguments" nor "final_answer"')


def answer_only(agent: ReActAgentBase) -> bool:
    """True once the run repeated calls that worked ``MAX_REPEATED_CALLS`` times: only the answer is offered."""
    return agent.current_run.counters["repeated_calls"] >= MAX_REPEATED_CALLS


# -- the schema ----------------------------------------------------------------------------
def step_schema(tools: ToolRegistry, calls: bool = True) -> dict[str, Any]:
    """``{"thought": string, "step": one of the calls or the final answer}``; ``calls=False``: the answer only."""
    branches: list[dict[str, Any]] = []
    for tool in tools if calls else ():
        call = {ANSWERED: {"const": False}, "tool": {"const": tool.name}, "arguments": grammar_schema(tool.parameters)}
        branches.append(_closed_object(call))
    branches.append(_closed_object({ANSWERED: {"const": True}, "final_answer": {"type": "string"}}))
    choice = branches[0] if len(branches) == 1 else {"anyOf": branches}
    return _closed_object({"thought": {"type": "string"}, "step": choice})


def _closed_object(properties: dict[str, Any]) -> dict[str, Any]:
    """An object with exactly these properties, in this order (grammar converters keep the order)."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """The request's ``response_format``.  ``strict`` only matters to OpenAI, which takes a strict schema
    only if every object is closed with every property required (local servers always enforce it)."""
    return {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME, "schema": schema, "strict": is_strict(schema)}}


# The keywords of a tool's argument schema that llama.cpp's, Ollama's, vLLM's and OpenAI's converters all
# take; title, default and examples go (a small model copies an example into its call), and so does what a
# converter may refuse, such as pattern or format (docs/react.md, "Schema-guided steps", has the list and why).
KEPT_KEYWORDS = frozenset(
    "type properties required additionalProperties items enum const anyOf description".split()
    + "minItems maxItems minimum maximum".split()  # the bounds
)


def grammar_schema(schema: Any, definitions: dict[str, Any] | None = None, seen: frozenset[str] = frozenset()) -> Any:
    """A tool's argument schema cut down to ``KEPT_KEYWORDS``, with local references written out."""
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict):
        return {}
    definitions = {**(definitions or {}), **schema.get("$defs", {}), **schema.get("definitions", {})}
    reference = schema.get("$ref")
    if isinstance(reference, str):
        target = definitions.get(reference.rsplit("/", 1)[-1]) if reference.startswith("#/") else None
        return {} if target is None or reference in seen else grammar_schema(target, definitions, seen | {reference})
    if "oneOf" in schema and "anyOf" not in schema:
        schema = {**schema, "anyOf": schema["oneOf"]}
    if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
        schema = {**schema, **schema["allOf"][0]}
    kept: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in KEPT_KEYWORDS:
            continue
        if key == "properties" and isinstance(value, dict):
            value = {name: grammar_schema(part, definitions, seen) for name, part in value.items()}
        elif key in ("items", "additionalProperties"):
            value = grammar_schema(value, definitions, seen)
        elif key == "anyOf" and isinstance(value, list):
            value = [grammar_schema(part, definitions, seen) for part in value]
        kept[key] = value
    if kept.get("type") == "object" and "additionalProperties" not in kept:
        kept["additionalProperties"] = True  # absent means "any other keys" (a **kwargs tool); llama.cpp reads "none"
    return kept


# -- choosing and falling back -------------------------------------------------------------
def chosen_protocol(protocol: str, llm: Any) -> str:
    """``protocol``, with ``"auto"`` decided by the model: ``"native"`` for a hosted provider's model
    (``hosted_model``: its API is built for tool calls), else ``"text"`` (on local servers text ReAct
    solved the most held-out tasks, guided and native fewer: docs/benchmarks.md)."""
    if protocol != "auto":
        return protocol
    return "native" if hosted_model(llm) else "text"


def fall_back(agent: ReActAgentBase, error: LLMCallError, messages: list[Message]) -> bool:
    """After a server refused a guided step's ``response_format``: the text protocol for the rest of
    the run (a warning step and a log line say so, and the system prompt becomes text ReAct's).
    False when the error is not such a refusal (one that names another parameter: a temperature, the messages of
    a context too long), or the run already fell back."""
    notes = agent.current_run.notes
    refused = error.status in REFUSED_STATUSES and error.parameter in (None, "response_format")
    if not refused or notes.get("protocol") != "guided":
        return False
    notes["protocol"] = "text"
    message = f"the server refused the guided step ({error}); this run goes on with the text protocol"
    log.warning("%s: %s", agent.name, message)
    agent.record(StepKind.WARNING, message, fallback="text", http_status=error.status)
    messages[0] = Message("system", agent.build_system_prompt())
    return True
