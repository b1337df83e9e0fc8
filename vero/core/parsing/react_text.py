"""ReAct's text protocol: ``Thought:`` / ``Action:`` / ``Action Input:`` or ``Final Answer:`` replies.
Every pattern is bounded or anchored, so that a reply is read in linear time whatever it holds."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from vero.core.message import Arguments, read_arguments
from vero.core.parsing.json_text import DECODER, parse_json_value, unclosed_json, valid_strings
from vero.core.parsing.text_calls import END_TOKENS_TAIL, TURN_ENDS, call_expression, tool_calls_in_text
from vero.core.text import SHOWS_NOTHING

OBSERVATION_LABEL = "Observation:"


@dataclass
class ReActStep:
    """One parsed text-protocol reply; ``problem`` is set when it is unusable."""

    thought: str = ""
    action: str | None = None
    action_input: dict[str, Any] | str | None = None
    final_answer: str | None = None
    problem: str | None = None
    text: str = ""  # the part of the reply kept in the scratchpad
    written: str = ""  # the action's text (its labels and input, or a call written without labels)
    input_text: str | None = None  # the Action Input as written, up to the next label (None: no input line)
    line_arguments: dict[str, Any] | str | None = None  # the arguments of a call written on the Action line too
    open_ended: bool = False  # its input is no complete JSON object and runs to the reply's end (a cut may end it)
    reply: str = ""  # the whole reply, and where the action's label starts in it (for ``embedded``)
    at: int = -1
    lines: tuple[str, ...] = ()  # the reply's lines as written (labels not normalised), from its first text on
    arguments: Arguments | None = None  # the action's arguments, read once (``origin="text"``): what the gate gets

    @property
    def embedded(self) -> bool:
        """True when the ``Action:`` label is not one the model wrote as its step: it does not begin a
        line, or lies in a code fence (``` or ~~~) with text outside it (an example), in an indented
        code block amid unindented text, in ``<pre>`` or ``<code>``, or in an HTML comment.  The agents
        do not run such an action of a tool that may change things (docs/tools.md, "Safety")."""
        text, start = self.reply, self.at
        if start < 0:
            return False
        if start > 0 and text[start - 1] != "\n":
            return True
        for fence in ("```", "~~~"):  # inside a fence that is not the whole reply (the step, fenced)
            whole = text.startswith(fence) and text.endswith(fence) and text.count(fence) == 2
            if text.count(fence, 0, start) % 2 == 1 and not whole:
                return True
        if any(text.rfind(opening, 0, start) > text.rfind(closing, 0, start) for opening, closing in _BLOCKS):
            return True
        line, code = text.count("\n", 0, start), ("    ", "\t")  # an indented code block amid unindented text
        indented = line < len(self.lines) and self.lines[line].startswith(code)
        return indented and any(other.strip() and not other.startswith(code) for other in self.lines)


_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")
_BLOCKS = (("<!--", "-->"), ("<pre", "</pre>"), ("<code", "</code>"))  # an example inside them is no action


_ACTION = re.compile(r"\bAction\s*:[ \t]*(.*)")
_INPUT = re.compile(r"\bAction\s+Input\s*:\s*")
_NEXT_LABEL = re.compile(  # where an Action Input ends: another label, or an Observation the model numbered itself
    r"\b(?:Thought|Action|Final\s+[Aa]nswer)[ \t]{0,8}:|^Observation[ \t]+\d{1,3}[ \t]*:", re.MULTILINE
)
_FINAL = re.compile(r"\bFinal\s+[Aa]nswer\s*:\s*(.*)", re.DOTALL)
_LINE_FINAL = re.compile(r"^Final Answer:", re.MULTILINE)  # after normalize_labels
_LINE_ACTION = re.compile(r"^Action:", re.MULTILINE)
# After a Final Answer, a new round the model went on to write (a next Question or Thought, then a Thought or Final
# Answer within a few lines), the answer said again, or its template's end of turn: no part of the answer (a second
# Final Answer alone may be the end of a worked answer)
_ANSWER_END = re.compile(rf"(?:\s*(?:{TURN_ENDS}))+\s*\Z")  # not </s>: in an answer, HTML's strikethrough ends
_NEW_ROUND = re.compile(r"\n(?:Question|Thought):[^\n]*(?:\n[^\n]*){0,3}?\n(?:Thought|Final Answer):")
_SAID_AGAIN = re.compile(r"\A(.+?)\s*\nFinal Answer:\s*\1\s*\Z", re.DOTALL)
_STEP_INPUT = re.compile(r"^Action Input:\s*(?:(?:`{3,}|~{3,})[\w+#.-]*\s*|`{1,2}\s*)?[{\[]", re.MULTILINE)  # JSON
_CALLED_NAME = re.compile(r"([A-Za-z_][\w.-]*)\s*\(.*\)\s*$")  # `tool(...)` on an Action line
_FIRST_LABEL = re.compile(r"\b(?:Action(?:\s+Input)?|Final\s+[Aa]nswer)\s*:")
_THOUGHT_LABEL = re.compile(r"^\s*Thought\s*:\s*")
# A code fence (any language tag: json, jsonc, javascript...) or inline backticks around an Action Input.
_OPEN_FENCE = re.compile(r"(?:`{3,}|~{3,})[ \t]*[\w+#.-]*[ \t]*\n?\s*|`{1,2}\s*")
_CLOSE_FENCE = re.compile(r"\s*(?:`{1,3}|~{3,})")
_TRAILING_FENCE = re.compile(r"(?:`{1,3}|~{3,})\s*$")


# A label as small models write it at the start of a line (bounded: one line is read in constant time).
_LABEL_LINE = re.compile(  # not after ">": a quoted line is the quote of a label, not one
    r"[ \t#*_-]{0,12}(?:\*\*|__)?[ \t]{0,8}(thought|action[ \t_]{0,3}input|action|final[ \t_]{0,3}answer|observation)"
    r"(?:(?<!observation)[ \t]{1,8}\d{1,3})?"  # a step's number, as the ReAct paper writes it ("Thought 1:")
    r"[ \t]{0,8}(?:\*{1,2}|_{1,2})?[ \t]{0,8}[:：][ \t]{0,8}(?P<close>\*{1,2}|_{1,2})?[ \t]{0,8}",  # ：as Chinese does
    re.IGNORECASE,
)
_LABELS = ("Thought", "Action Input", "Action", "Final Answer", "Observation")
_CANONICAL = {label.replace(" ", "").lower(): label for label in _LABELS}
_NOT_LETTERS = re.compile(r"[\s_]")


def normalize_labels(text: str) -> str:
    """Labels at the start of a line in their canonical form: small models write ``**Action:** find_book``,
    ``action input:``, ``Thought 1:`` or ``### Final answer:``.  Each line is matched once, at its start: linear."""
    lines = text.split("\n")
    for number, line in enumerate(lines):
        label = _LABEL_LINE.match(line)
        if label is not None:
            name = _CANONICAL[_NOT_LETTERS.sub("", label.group(1).lower())]
            opened = any(mark in line[: label.start(1)] for mark in "*_")  # **Action:** closes after the colon,
            kept = label.group("close") if name == "Final Answer" and not opened else None  # else they open the
            lines[number] = f"{name}: {kept or ''}{line[label.end() :]}"  # answer: Final Answer: **Oslo** is
    return "\n".join(lines)


def parse_react(text: str | None, tool_names: Iterable[str] = ()) -> ReActStep:
    """Read a Thought/Action/Action Input or Final Answer reply.

    Everything from a self-written ``Observation:`` on is dropped; a complete action wins over a final answer after it
    (whatever followed it was invented), and an action after a ``Final Answer:`` line, or a new round, is neither run
    nor answered.  Forgiving of what small models write: labels in any case, in bold or numbered, JSON in code fences,
    ``Action: tool(arg="x")`` without an input line, and (given ``tool_names``) a call written without labels."""
    source = _BLANK_LINES.sub("", text or "")  # so that the lines are numbered as in ``text`` below
    text = normalize_labels(source).split(OBSERVATION_LABEL, 1)[0].strip()
    if not text:
        return ReActStep(problem="the reply was empty")
    first = _FIRST_LABEL.search(text)
    thought = _THOUGHT_LABEL.sub("", text[: first.start() if first else len(text)]).strip()
    step = ReActStep(thought=thought, text=text, lines=tuple(source.split("\n")))
    action, given = _ACTION.search(text), _INPUT.search(text)
    final_line = _LINE_FINAL.search(text)
    if action and final_line and final_line.start() < action.start():  # an Action after the answer is part of it
        action = given = None
    if action and given and action.start() < given.start():
        _read_action(step, text, action, given)
        if step.action:
            return _finish(step) if step.action.lower() == "finish" else step
        step.action = None
    if action and not given and (expression := call_expression(action.group(1))):
        (step.action, step.action_input, _), step.arguments = expression, _as_read(*expression[1:])
        step.text = text[: action.end()].rstrip()
        step.written, step.reply, step.at = text[action.start() : action.end()], text, action.start()
        return step
    final = _FINAL.search(text)
    if final and not SHOWS_NOTHING.fullmatch(final.group(1)):
        after = _LINE_ACTION.search(final.group(1))  # a step after the answer (its Action Input JSON): not run, not it
        answer = final.group(1)[: after.start() if after and _STEP_INPUT.search(final.group(1), after.end()) else None]
        answer = _SAID_AGAIN.sub(r"\1", _NEW_ROUND.split(answer, 1)[0])  # and its end of turn, in its last characters:
        answer = answer[:-END_TOKENS_TAIL] + _ANSWER_END.sub("", answer[-END_TOKENS_TAIL:])
        fenced = answer.rstrip().endswith("\n```") and text.count("```", 0, final.start()) % 2  # around it all
        answer = answer.rstrip()[:-3].strip() if fenced else answer.strip()
        step.final_answer = _unwrapped_answer(answer) if answer.startswith("{") else answer
        step.action = step.action_input = None
    elif final:
        step.problem = "the Final Answer is empty"
    elif (written := tool_calls_in_text(text, tool_names)) is not None:  # the whole reply is a call, no labels
        call = written.calls[0]
        step.action, step.action_input = call.name, json.loads(call.arguments)
        step.arguments = call.args  # read from the text as written (JSON text inside a string too), its problem kept
        step.thought, step.written, step.open_ended = "", written.written, True
    elif action and action.group(1).strip():
        step.problem = f"`Action: {action.group(1).strip()}` has no `Action Input:` line"
    else:
        step.problem = "no `Action:` line with a tool name, and no `Final Answer:`"
    return step


def _read_action(step: ReActStep, text: str, action: re.Match[str], given: re.Match[str]) -> None:
    """Fill ``step`` with the ``Action:`` line and the ``Action Input:`` that follows it: the input is the
    JSON object after the label (what follows it up to the next label is input too), else the text up to
    the next label, repaired if it is sloppy JSON."""
    parsed = _json_object_at(text, given.end())
    following = _NEXT_LABEL.search(text, parsed[1] if parsed else given.end())
    given_text = text[given.end() : following.start() if following else len(text)]
    # `find_book`, ```find_book``` or `find_book(name: 'x')`: small models sometimes write the call itself
    # on the Action line and repeat its arguments in the Action Input, which is what counts
    name = action.group(1).split("Action Input", 1)[0].strip().strip("`*'\"[]").strip().rstrip(",;")  # on one line
    called = _CALLED_NAME.match(name)
    step.action = called.group(1) if called else name
    step.action = None if step.action.lower() in ("none", "null", "n/a", "no action") else step.action  # none to run
    expression = call_expression(name) if called else None
    step.line_arguments = expression[1] if expression else None
    if parsed:
        step.action_input, end = parsed
        fenced = given_text.lstrip()[:1] in "`~"  # else: without the closing fence of a reply fenced whole
        step.input_text = given_text if fenced else _TRAILING_FENCE.sub("", given_text.rstrip())
    else:
        step.action_input, end = parse_action_input(given_text), given.end() + len(given_text)
        step.open_ended = following is None
        step.input_text = given_text
    step.text = text[:end].rstrip()
    step.written, step.reply, step.at = text[action.start() : end], text, action.start()
    if not isinstance(step.action_input, dict):  # plain text: the gate reads it with the tool in hand
        step.arguments = read_arguments(step.action_input, origin="text")
        return
    step.arguments = arguments = Arguments(step.action_input)
    arguments.written, arguments.origin = step.input_text, "text"  # the gate reads the text for a changing tool
    if step.line_arguments and step.line_arguments not in (arguments, *arguments.values()):
        arguments.problem = "the Action line and the Action Input give different arguments"


def _as_read(value: dict[str, Any] | str, problem: str | None = None) -> Arguments:
    """The arguments of ``Action: tool(a=1)`` (no ``Action Input:``) from the model's text: a dict read exactly, or
    plain text; ``problem``: why they are not as written (Python's readings, ``9_00``: refused for a changing tool)."""
    arguments = read_arguments(value, origin="text") if not isinstance(value, dict) else Arguments(value)
    arguments.origin, arguments.problem = "text", problem
    return arguments


def _json_object_at(text: str, start: int) -> tuple[dict[str, Any], int] | None:
    """The JSON object starting at ``text[start]`` (maybe in a code fence) and where it ends, or None if it is not valid
    JSON.  Read with a decoder, so a label in a string (``print("Final Answer:", x)``) cannot cut it short."""
    fence = _OPEN_FENCE.match(text, start)
    begin = fence.end() if fence else start
    if not text.startswith("{", begin):
        return None
    try:
        value, end = DECODER.raw_decode(text, begin)
    except (ValueError, RecursionError):
        return None
    closing = _CLOSE_FENCE.match(text, end) if fence else None
    value = valid_strings(value) if "\\u" in text else value  # an escaped half of a surrogate pair
    return value, closing.end() if closing else end


def parse_action_input(raw: str) -> dict[str, Any] | str:
    """A JSON object (repaired: single quotes, trailing commas, code fences), else the bare text."""
    text = raw.strip()
    fence = _OPEN_FENCE.match(text)
    if fence:  # any language tag (json, jsonc, javascript...) goes with the fence
        text = _TRAILING_FENCE.sub("", text[fence.end() :]).strip()
    if not text.startswith("{") or unclosed_json(text):  # unclosed: completed only for a read-only tool (registry)
        return text
    try:
        value = parse_json_value(text)
    except ValueError:
        return text
    return value if isinstance(value, dict) else text


def _finish(step: ReActStep) -> ReActStep:
    """``Action: Finish`` with ``{"answer": ...}`` (or a bare answer) is the final answer."""
    data = step.action_input
    answer = data.get("answer") if isinstance(data, dict) else (data or "").strip().strip('"')
    if answer in (None, ""):
        step.problem = 'Action: Finish needs Action Input: {"answer": "..."}'
    else:
        step.final_answer = _answer_text(answer)
    step.action = step.action_input = None
    return step


def _unwrapped_answer(answer: str) -> str:
    """A Final Answer written as Finish's ``{"answer": ...}`` object (seen after a format
    correction) is its value; any other text is kept as it is."""
    try:
        data = json.loads(answer)
    except ValueError:
        return answer
    if isinstance(data, dict) and list(data) == ["answer"] and data["answer"] not in (None, ""):
        return _answer_text(data["answer"])
    return answer


def _answer_text(value: Any) -> str:
    """Finish's ``answer`` value as text: a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def final_answer_text(text: str) -> str:
    """The answer in a final-answer reply: its Final Answer, else its prose (never an action)."""
    step = parse_react(text)
    if step.final_answer is not None:
        return step.final_answer
    return "" if step.action or _ACTION.search(step.text) else step.thought
