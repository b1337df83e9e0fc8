"""Reading structured data out of model text."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from vero.core.thinking import split_thinking

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def parse_json_object(text: str | None) -> dict:
    """The JSON object in a model reply: fenced or bare, repaired if sloppy.

    Single quotes, trailing commas, comments and code fences are repaired by
    ``json_repair``.  Raises ``ValueError`` (with a reason the model can act on)
    when there is no usable object.
    """
    answer, _ = split_thinking(text)
    if not answer.strip():
        raise ValueError("the reply was empty")
    fenced = _FENCE.search(answer)
    candidate = fenced.group(1) if fenced else answer
    start, end = candidate.find("{"), candidate.rfind("}")
    if start < 0:
        raise ValueError("the reply contains no JSON object")
    candidate = candidate[start : end + 1] if end > start else candidate[start:]
    from json_repair import loads  # imported here: it adds ~45 ms to `import vero`

    data = loads(candidate)
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        data = data[0]
    if not isinstance(data, dict) or not data:
        raise ValueError("the reply is not a JSON object")
    return data


def parse_json_value(text: str):
    """Any JSON value (object, list, string, number), repaired if sloppy."""
    from json_repair import loads

    return loads(text)


_TRUE = {"true", "yes", "y", "1", "pass", "passed"}
_FALSE = {"false", "no", "n", "0", "fail", "failed"}


def as_bool(value, field: str) -> bool:
    """A boolean field from model JSON; the strings "true"/"false" count too."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError(f"`{field}` must be true or false, got {value!r}")


def as_score(value, field: str = "score") -> float:
    """A 0-100 score from model JSON; numeric strings count, out-of-range does not."""
    try:
        score = float(str(value).strip().rstrip("%"))
    except (TypeError, ValueError):
        raise ValueError(f"`{field}` must be a number from 0 to 100, got {value!r}") from None
    if not 0 <= score <= 100:
        raise ValueError(f"`{field}` must be between 0 and 100, got {score:g}")
    return score


# -- the ReAct text protocol -----------------------------------------------------------
OBSERVATION_LABEL = "Observation:"


@dataclass
class ReActStep:
    """One parsed text-protocol reply; ``problem`` is set when it is unusable."""

    thought: str = ""
    action: str | None = None
    action_input: dict | str | None = None
    final_answer: str | None = None
    problem: str | None = None
    text: str = ""  # the part of the reply kept in the scratchpad


_ACTION = re.compile(r"\bAction\s*:[ \t]*(.*)")
_INPUT = re.compile(r"\bAction\s+Input\s*:\s*(.*?)(?=\b(?:Thought|Action|Final\s+[Aa]nswer)\s*:|\Z)", re.DOTALL)
_FINAL = re.compile(r"\bFinal\s+[Aa]nswer\s*:\s*(.*)", re.DOTALL)
_FIRST_LABEL = re.compile(r"\b(?:Action(?:\s+Input)?|Final\s+[Aa]nswer)\s*:")
_THOUGHT_LABEL = re.compile(r"^\s*Thought\s*:\s*")
_OPEN_FENCE = re.compile(r"```(?:json)?\s*", re.IGNORECASE)
_CLOSE_FENCE = re.compile(r"\s*```")
_DECODER = json.JSONDecoder(strict=False)  # strict=False: raw newlines inside strings are common


def parse_react(text: str | None) -> ReActStep:
    """Read a Thought/Action/Action Input or Final Answer reply.

    Everything from a self-written ``Observation:`` on is dropped; a complete
    action wins over a final answer (whatever followed it was invented).
    """
    text = (text or "").split(OBSERVATION_LABEL, 1)[0].strip()
    if not text:
        return ReActStep(problem="the reply was empty")
    first = _FIRST_LABEL.search(text)
    step = ReActStep(thought=_THOUGHT_LABEL.sub("", text[: first.start() if first else len(text)]).strip(), text=text)
    action, given = _ACTION.search(text), _INPUT.search(text)
    if action and given and action.start() < given.start():
        step.action = action.group(1).strip().strip("`*'\"")
        parsed = _json_object_at(text, given.start(1))
        if parsed:
            step.action_input, end = parsed
        else:  # not valid JSON: the text up to the next label, repaired if it is sloppy JSON
            step.action_input, end = parse_action_input(given.group(1)), given.end()
        step.text = text[:end].rstrip()
        if step.action.lower() == "finish":
            return _finish(step)
        if step.action:
            return step
        step.action = None
    final = _FINAL.search(text)
    if final and final.group(1).strip():
        step.final_answer = final.group(1).strip()
        step.action = step.action_input = None
    elif final:
        step.problem = "the Final Answer is empty"
    elif action and action.group(1).strip():
        step.problem = f"`Action: {action.group(1).strip()}` has no `Action Input:` line"
    else:
        step.problem = "no `Action:` line with a tool name, and no `Final Answer:`"
    return step


def _json_object_at(text: str, start: int) -> tuple[dict, int] | None:
    """The JSON object starting at ``text[start]`` (maybe in a code fence) and where it ends.

    Read with a JSON decoder, so a label inside a string value (``print("Final
    Answer:", x)``) cannot cut it short.  None if it is not valid JSON.
    """
    fence = _OPEN_FENCE.match(text, start)
    begin = fence.end() if fence else start
    if not text.startswith("{", begin):
        return None
    try:
        value, end = _DECODER.raw_decode(text, begin)
    except ValueError:
        return None
    closing = _CLOSE_FENCE.match(text, end) if fence else None
    return value, closing.end() if closing else end


def parse_action_input(raw: str) -> dict | str:
    """A JSON object (repaired: single quotes, trailing commas, code fences), else the bare text."""
    text = raw.strip()
    if text.startswith("```"):
        text = text.strip("`").strip()
        text = text[4:].strip() if text[:4].lower() == "json" else text
    if text.startswith("{"):
        value = parse_json_value(text)
        if isinstance(value, dict):
            return value
    return text


def _finish(step: ReActStep) -> ReActStep:
    """``Action: Finish`` with ``{"answer": ...}`` (or a bare answer) is the final answer."""
    data = step.action_input
    answer = data.get("answer") if isinstance(data, dict) else data.strip().strip('"')
    if answer in (None, ""):
        step.problem = 'Action: Finish needs Action Input: {"answer": "..."}'
    else:
        step.final_answer = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    step.action = step.action_input = None
    return step


def final_answer_text(text: str) -> str:
    """The answer in a final-answer reply: its Final Answer, else its prose (never an action)."""
    step = parse_react(text)
    if step.final_answer is not None:
        return step.final_answer
    return "" if step.action or _ACTION.search(step.text) else step.thought
