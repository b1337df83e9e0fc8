"""Reading structured data out of model text."""

from __future__ import annotations

import ast
import html
import json
import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from vero.core.message import ToolCall
from vero.core.result import Step
from vero.core.thinking import split_thinking

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def parse_json_object(text: str | None) -> dict[str, Any]:
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
    data = parse_json_value(candidate)
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        data = data[0]
    if not isinstance(data, dict) or not data:
        raise ValueError("the reply is not a JSON object")
    return data


# JSON can carry half of a surrogate pair ("\ud83d"), and a streamed pair can be
# cut between two chunks.  Such text cannot be encoded as UTF-8: kept in a
# message, it would break every later request (and any print of it).
_SURROGATE = re.compile("[\ud800-\udfff]")


_T = TypeVar("_T")


@overload
def valid_text(text: str) -> str: ...
@overload
def valid_text(text: _T) -> _T: ...
def valid_text(text: object) -> object:
    """``text`` with surrogate pairs joined into their character and lone halves as U+FFFD."""
    if not isinstance(text, str) or text.isascii() or not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _valid_strings(value: Any) -> Any:
    """``value`` (decoded JSON) with ``valid_text`` applied to every string in it."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list):
        return [_valid_strings(item) for item in value]
    if isinstance(value, dict):
        return {valid_text(key): _valid_strings(item) for key, item in value.items()}
    return value


MAX_JSON_DEPTH = 100  # model output nested deeper than this is not data an agent can use


def parse_json_value(text: str, *, repair: bool = True) -> Any:
    """Any JSON value (object, list, string, number), repaired if sloppy.

    The one place model JSON is read (nothing else imports ``json_repair``).
    ``repair=False`` reads strict JSON only, for text that must be exactly
    JSON to count (a quoted string given as a tool's sole argument).  Raises
    ``ValueError`` (never ``RecursionError``) for unusable text, and for text
    nested too deeply to be real arguments.
    """
    loads: Callable[[str], Any]
    if repair:
        from json_repair import loads as repair_loads  # imported here: it adds ~45 ms to `import vero`

        if _nesting(text) > MAX_JSON_DEPTH:
            raise ValueError(f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep")
        loads = repair_loads
    else:
        loads = json.loads
    try:
        value = loads(text)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None
    # a model can write a lone surrogate as an escape ("\ud83d"): repaired here, where it enters
    return _valid_strings(value) if "\\u" in text else value


def normalized_arguments(args: Any) -> Any:
    """Tool arguments in one comparable form (JSON text read as a dict), to spot a repeated call."""
    if isinstance(args, str) and args.strip().startswith("{"):
        try:
            return parse_json_value(args)
        except ValueError:  # unusable JSON: compared as text
            return args.strip()
    return args.strip() if isinstance(args, str) else args


def _nesting(text: str) -> int:
    """An upper bound on how deeply ``text`` nests brackets (linear, ignores strings)."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}" and depth:
            depth -= 1
    return deepest


# One word set for every yes/no a model writes: a verdict in its JSON
# ("is_sufficient": "yes", "pass": "passed") and a tool's boolean argument
# ("verbose": "on") alike.  A model uses the same words whatever the field, none
# of these can mean the opposite in either place, and a word left out only
# costs a re-ask or a failed tool call.  (Switches in the environment, such as
# VERO_PYTHON_SANDBOX, are read by vero.config.env_flag: there an unclear value
# must fall back to the default, and "fail" must not turn anything off.)
_TRUE = frozenset({"true", "yes", "y", "1", "on", "pass", "passed"})
_FALSE = frozenset({"false", "no", "n", "0", "off", "fail", "failed"})


def parse_bool(value: object) -> bool | None:
    """``value`` as a boolean when a model plainly wrote one, else None.

    Accepted: ``True``/``False``, the numbers 0 and 1, and the words above in
    any case, with surrounding spaces.  Callers word their own error for None.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
    return None


def as_bool(value: object, field: str) -> bool:
    """A boolean field from model JSON (``parse_bool``); raises ``ValueError`` naming the field."""
    flag = parse_bool(value)
    if flag is None:
        raise ValueError(f"`{field}` must be true or false, got {value!r}")
    return flag


def as_score(value: object, field: str = "score") -> float:
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
    action_input: dict[str, Any] | str | None = None
    final_answer: str | None = None
    problem: str | None = None
    text: str = ""  # the part of the reply kept in the scratchpad


_ACTION = re.compile(r"\bAction\s*:[ \t]*(.*)")
_INPUT = re.compile(r"\bAction\s+Input\s*:\s*(.*?)(?=\b(?:Thought|Action|Final\s+[Aa]nswer)\s*:|\Z)", re.DOTALL)
_FINAL = re.compile(r"\bFinal\s+[Aa]nswer\s*:\s*(.*)", re.DOTALL)
_CALLED_NAME = re.compile(r"([A-Za-z_][\w.-]*)\s*\(.*\)\s*$")  # `tool(...)` on an Action line
_FIRST_LABEL = re.compile(r"\b(?:Action(?:\s+Input)?|Final\s+[Aa]nswer)\s*:")
_THOUGHT_LABEL = re.compile(r"^\s*Thought\s*:\s*")
_OPEN_FENCE = re.compile(r"`{1,3}(?:json)?\s*", re.IGNORECASE)  # a code fence or inline backticks
_CLOSE_FENCE = re.compile(r"\s*`{1,3}")
_DECODER = json.JSONDecoder(strict=False)  # strict=False: raw newlines inside strings are common


_LABEL_LINE = re.compile(
    r"^[ \t>#*_-]*(?:\*\*|__)?[ \t]*(thought|action[ \t_]*input|action|final[ \t_]*answer|observation)"
    r"[ \t]*(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_CANONICAL = {"thought": "Thought", "actioninput": "Action Input", "action": "Action",
              "finalanswer": "Final Answer", "observation": "Observation"}


def normalize_labels(text: str) -> str:
    """Labels at the start of a line in their canonical form.

    Small models write ``**Action:** find_plant``, ``action input:`` or
    ``### Final answer:``; these become ``Action: find_plant`` and so on.
    """
    def canonical(match: re.Match[str]) -> str:
        return _CANONICAL[re.sub(r"[\s_]", "", match.group(1).lower())] + ": "

    return _LABEL_LINE.sub(canonical, text)


def parse_react(text: str | None, tool_names: Iterable[str] = ()) -> ReActStep:
    """Read a Thought/Action/Action Input or Final Answer reply.

    Everything from a self-written ``Observation:`` on is dropped; a complete
    action wins over a final answer (whatever followed it was invented).
    Forgiving of what small models write: labels in any case or in bold, JSON
    in code fences, ``Action: tool(arg="x")`` without an input line, and (given
    ``tool_names``) a tool call written as a JSON object without any labels.
    """
    text = normalize_labels(text or "").split(OBSERVATION_LABEL, 1)[0].strip()
    if not text:
        return ReActStep(problem="the reply was empty")
    first = _FIRST_LABEL.search(text)
    step = ReActStep(thought=_THOUGHT_LABEL.sub("", text[: first.start() if first else len(text)]).strip(), text=text)
    action, given = _ACTION.search(text), _INPUT.search(text)
    if action and given and action.start() < given.start():
        step.action = _tool_name(action.group(1))
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
    if action and not given and (expression := _call_expression(action.group(1))):
        step.action, step.action_input = expression
        step.text = text[: action.end()].rstrip()
        return step
    final = _FINAL.search(text)
    if final and final.group(1).strip():
        step.final_answer = _unwrapped_answer(final.group(1).strip())
        step.action = step.action_input = None
    elif final:
        step.problem = "the Final Answer is empty"
    elif (written := tool_calls_in_text(text, tool_names)) is not None:  # a JSON tool call, no labels
        call = written.calls[0]
        step.action, step.action_input = call.name, json.loads(call.arguments)
        step.thought = written.prose
    elif action and action.group(1).strip():
        step.problem = f"`Action: {action.group(1).strip()}` has no `Action Input:` line"
    else:
        step.problem = "no `Action:` line with a tool name, and no `Final Answer:`"
    return step


def _tool_name(text: str) -> str:
    """The tool's name from an ``Action:`` line: ``find_plant``, ```find_plant``` or ``find_plant(name: 'x')``.

    Small models sometimes write the call itself on the Action line and repeat
    its arguments in the Action Input; the Action Input is what counts.
    """
    name = text.strip().strip("`*'\"")
    called = _CALLED_NAME.match(name)
    return called.group(1) if called else name


def _call_expression(text: str) -> tuple[str, dict[str, Any] | str] | None:
    """``tool(a=1, b="x")`` or ``tool("x")`` as (name, arguments); literals only, else None."""
    text = text.strip().strip("`")
    if "(" not in text or not text.endswith(")"):
        return None
    try:
        call = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return None
    try:
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
        args = [ast.literal_eval(a) for a in call.args]
    except (ValueError, SyntaxError, TypeError, RecursionError):
        return None
    if args and (kwargs or len(args) > 1):
        return None
    return call.func.id, (str(args[0]) if args else kwargs)


def _json_object_at(text: str, start: int) -> tuple[dict[str, Any], int] | None:
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
    except (ValueError, RecursionError):
        return None
    closing = _CLOSE_FENCE.match(text, end) if fence else None
    return _valid_strings(value), closing.end() if closing else end


def parse_action_input(raw: str) -> dict[str, Any] | str:
    """A JSON object (repaired: single quotes, trailing commas, code fences), else the bare text."""
    text = raw.strip()
    if text.startswith("`"):
        text = text.strip("`").strip()
        text = text[4:].strip() if text[:4].lower() == "json" else text
    if text.startswith("{"):
        try:
            value = parse_json_value(text)
        except ValueError:
            return text
        if isinstance(value, dict):
            return value
    return text


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


# -- tool calls written as text ------------------------------------------------------------
# Small models served without a tool-call parser (or ignoring it) often write the
# call into the message text: ```json {"name": ..., "arguments": {...}}```, Qwen's
# <tool_call>...</tool_call> tags, or a list of such objects.
_TOOL_CALL_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_ANY_FENCE = re.compile(r"```[\w+-]*[^\S\n]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_CALL_START = re.compile(r'(?:\[\s*)?\{\s*"(?:name|function|tool|tool_name)"\s*:')
# Some write it as XML instead: <tool><name>t</name><arguments><k>v</k></arguments></tool>,
# <call function="t" arguments='{"k": "v"}'/>, <t k="v"/>, or (newer Qwen models)
# <function=t><parameter=k>v</parameter></function>.
_XML_CALLS = (
    re.compile(r"<(?P<label>name|function|tool_name)>\s*(?P<name>[\w.-]+)\s*</(?P=label)>\s*"
               r"<(?P<tag>arguments|parameters)>(?P<body>.*?)</(?P=tag)>", re.DOTALL),
    re.compile(r"""<\w+\s+(?:function|name)=["'](?P<name>[\w.-]+)["']\s+(?:arguments|parameters)='(?P<body>[^']*)'\s*/?>"""),
    re.compile(r"<function=(?P<name>[\w.-]+)>(?P<body>.*?)</function>", re.DOTALL),
)
_XML_ATTRIBUTE = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_XML_TOOL_ELEMENT = re.compile(
    r"<(?P<name>[A-Za-z_][\w.-]*)(?P<attributes>(?:\s+" + _XML_ATTRIBUTE.pattern + r")*)\s*/>")
_XML_ARGUMENT = re.compile(r"<(\w+)>(.*?)</\1>|<parameter=(\w+)>(.*?)</parameter>", re.DOTALL)
_EMPTY_WRAPPER = re.compile(r"<(\w+)>\s*</\1>|```[\w+-]*\s*```")
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "tool_input", "input")


@dataclass
class TextToolCalls:
    """Tool calls found in a reply's text, and the prose around them."""

    calls: list[ToolCall] = field(default_factory=list)
    prose: str = ""


def tool_calls_in_text(text: str | None, tool_names: Iterable[str]) -> TextToolCalls | None:
    """The tool calls a model wrote as text, or None when the text has none.

    Accepted: fenced or bare JSON objects with a tool ``name`` and an
    ``arguments`` (or ``parameters``) object, ``<tool_call>`` tags, lists of
    such objects, and calls written as XML (``<name>`` with ``<arguments>``,
    ``<call function=... arguments='{...}'/>``, ``<tool_name key="value"/>``,
    or ``<function=name>`` with ``<parameter=key>`` elements).  Only a
    registered tool name with an arguments object counts, so an ordinary answer
    that merely contains JSON is not taken for a call.
    """
    text = text or ""
    names = set(tool_names)
    if not names or ("{" not in text and "<" not in text):
        return None
    spans = _xml_spans(text, names)
    for pattern in (_TOOL_CALL_TAG, _ANY_FENCE):
        for match in pattern.finditer(text):
            if not _overlaps(spans, match.start(), match.end()):
                calls = _calls_in_snippet(match.group(1), names)
                if calls:
                    spans.append((match.start(), match.end(), calls))
    for match in _CALL_START.finditer(text):
        if _overlaps(spans, match.start(), match.start() + 1):
            continue
        try:
            value, end = _DECODER.raw_decode(text, match.start())
        except (ValueError, RecursionError):  # deeply nested input is not a call either
            continue
        calls = _calls_in_value(value, names)
        if calls:
            spans.append((match.start(), end, calls))
    if not spans:
        return None
    spans.sort()
    prose, last = [], 0
    for start, end, _ in spans:
        prose.append(text[last:start])
        last = end
    prose.append(text[last:])
    calls = []
    seen: set[tuple[str, str]] = set()
    for call in (call for _, _, found in spans for call in found):
        if (call.name, call.arguments) not in seen:  # a call written twice is run once
            seen.add((call.name, call.arguments))
            calls.append(call)
    return TextToolCalls(calls, _without_empty_wrappers("".join(prose)))


def _without_empty_wrappers(prose: str) -> str:
    """The prose left around the calls, without the fences and tags that held them."""
    while (emptier := _EMPTY_WRAPPER.sub("", prose)) != prose:
        prose = emptier
    return re.sub(r"\n{3,}", "\n\n", prose).strip()


def _overlaps(spans: list[tuple[int, int, list[ToolCall]]], start: int, end: int) -> bool:
    return any(start < s_end and s_start < end for s_start, s_end, _ in spans)


def _xml_spans(text: str, names: set[str]) -> list[tuple[int, int, list[ToolCall]]]:
    """Where ``text`` has calls written as XML, and the call each holds."""
    spans: list[tuple[int, int, list[ToolCall]]] = []
    for match in (match for pattern in _XML_CALLS for match in pattern.finditer(text)):
        if not _overlaps(spans, match.start(), match.end()):
            if (call := _xml_call(match["name"], match["body"], names)) is not None:
                spans.append((match.start(), match.end(), [call]))
    for match in _XML_TOOL_ELEMENT.finditer(text):  # <tool_name key="value"/>
        if match["name"] in names and not _overlaps(spans, match.start(), match.end()):
            arguments = {key: html.unescape(double or single)
                         for key, double, single in _XML_ATTRIBUTE.findall(match["attributes"])}
            if (call := _as_call({"name": match["name"], "arguments": arguments}, names)) is not None:
                spans.append((match.start(), match.end(), [call]))
    return spans


def _xml_call(name: str, body: str, names: set[str]) -> ToolCall | None:
    """A call written as XML; each argument is an element (or the body is a JSON object)."""
    arguments: Any = {
        tag or parameter: html.unescape(value if tag else parameter_value).strip()
        for tag, value, parameter, parameter_value in _XML_ARGUMENT.findall(body)
    }
    if not arguments and body.strip():
        try:
            arguments = _DECODER.decode(html.unescape(body.strip()))
        except (ValueError, RecursionError):
            return None
    return _as_call({"name": name, "arguments": arguments}, names)


def _calls_in_snippet(snippet: str, names: set[str]) -> list[ToolCall]:
    """Every call in a fence or tag body: one object, a list, or several objects in a row."""
    calls: list[ToolCall] = []
    position, snippet = 0, snippet.strip()
    while position < len(snippet):
        try:
            value, position = _DECODER.raw_decode(snippet, position)
        except (ValueError, RecursionError):
            return []
        found = _calls_in_value(value, names)
        if not found:
            return []
        calls += found
        while position < len(snippet) and snippet[position] in " \t\r\n,;":
            position += 1
    return calls


def _calls_in_value(value: Any, names: set[str]) -> list[ToolCall]:
    """A decoded JSON value as tool calls: all of it must be calls, or nothing is."""
    items = value if isinstance(value, list) else [value]
    calls = [call for item in items if (call := _as_call(item, names)) is not None]
    return calls if calls and len(calls) == len(items) else []


def written_call(item: dict[str, Any]) -> tuple[str, Any] | None:
    """The tool name and the arguments (None if absent) of an object written as a call, such as
    ``{"name": ..., "arguments": {...}}`` or ``{"tool": ..., "parameters": {...}}``; nothing is checked."""
    keys: tuple[str, ...] = _ARGUMENT_KEYS
    if isinstance(item.get("function"), dict):  # the API's own shape: {"type": "function", "function": {...}}
        item, keys = item["function"], ("arguments",)  # its "parameters" would be a tool's schema
    name = next((item[k] for k in _NAME_KEYS if isinstance(item.get(k), str)), None)
    return None if name is None else (name, next((item[k] for k in keys if k in item), None))


def args_text(args: Any) -> str:
    """Tool arguments as ``a=1, b='x'``, whether they came as a dict or as JSON text."""
    if isinstance(args, str) and args.lstrip().startswith("{"):
        try:
            args = parse_json_value(args, repair=False)
        except ValueError:
            pass
    if isinstance(args, dict):
        return ", ".join(f"{k}={v!r}" for k, v in args.items())
    return "" if args is None else str(args)


def _as_call(item: Any, names: set[str]) -> ToolCall | None:
    if not isinstance(item, dict) or (call := written_call(item)) is None:
        return None
    name, arguments = call
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return None
    if name not in names or not isinstance(arguments, dict) or _is_schema(arguments):
        return None
    arguments = _valid_strings(arguments)
    return ToolCall(f"call_{uuid.uuid4().hex[:12]}", name, json.dumps(arguments, ensure_ascii=False))


def _is_schema(arguments: dict[str, Any]) -> bool:
    """A tool's JSON schema echoed from the prompt, not arguments for it."""
    return arguments.get("type") == "object" and isinstance(arguments.get("properties"), dict)


_TEMPLATE_TAG = re.compile(r"</?(?:tool_response|tool_call|tools)>")


def strip_template_tags(text: str) -> str:
    """``text`` without chat-template tags (``<tool_response>``, ``<tools>``, ``<tool_call>``).

    Small models imitate the tags their chat template wraps tool results and
    schemas in; in an answer they are noise, and a reply that is nothing but
    such tags is empty.
    """
    if "<" not in text:
        return text
    return re.sub(r"\n{3,}", "\n\n", _TEMPLATE_TAG.sub("", text)).strip()


# -- a reply that announces an action instead of taking it -----------------------------------
_INTENT = re.compile(
    r"\b(?:I will|I'll|I am going to|I'm going to|let me|let's|let us|I need to|we need to|I should|"
    r"we should|I must|I can use|we can use|we will|we'll|next,? I|now I)\b",
    re.IGNORECASE,
)
_TOOL_WORDS = re.compile(r"\b(?:tools?|functions?|look(?:ing)? (?:it |this |that )?up|call(?:ing)?)\b", re.IGNORECASE)
_CALL_SHAPE = re.compile(r'"(?:name|function)"\s*:\s*"[^"]*"\s*,\s*"(?:arguments|parameters)"\s*:')
# "Now, call `greenhouse_info` with ...": an instruction the model wrote to itself (then invented the result)
_CALL_ORDER = re.compile(r"(?:^|[.:!\n]|\b(?:now|next|then|first),?)\s*call\s+(?:the\s+)?`?([A-Za-z_]\w*)",
                         re.IGNORECASE)


def announces_action(text: str | None, tool_names: Iterable[str]) -> bool:
    """True when a reply says it will use a tool (or writes a call it did not make).

    ``"To answer this, I will use the `find_plant` function..."`` is a plan, not
    an answer.  Agents answer such a reply with a bounded nudge instead of
    returning it.
    """
    text = text or ""
    names = set(tool_names)
    if _CALL_SHAPE.search(text) or any(m.group(1) in names for m in _CALL_ORDER.finditer(text)):
        return True
    if not _INTENT.search(text):
        return False
    return bool(_TOOL_WORDS.search(text)) or any(_names_tool(text, name) for name in names)


def _names_tool(text: str, name: str) -> bool:
    """``text`` names the tool as code (`find_plant`, find_plant(...), the find_plant tool), not as a
    plain word: a tool called ``calculate`` is not meant in "to calculate the price"."""
    name = re.escape(name)
    return bool(re.search(rf"`{name}`|\b{name}\s*\(|\b{name}\s+(?:function|tool)\b", text))


# -- a reply that only acknowledges a tool result --------------------------------------------------
_ACKNOWLEDGEMENT = re.compile(
    r"^\W*(?:thank(?:s| you)\b|(?:this|that|here) is (?:the|a|your)\s+(?:[\w`'-]+\s+){0,3}?"
    r"(?:response|result|output|information|data)\b)",
    re.IGNORECASE,
)


def acknowledges_result(text: str | None) -> bool:
    """True for a short reply that talks about the tool result instead of answering.

    ``"This is the response from the `greenhouse_info` function."`` or ``"Thank
    you for providing the response."``: small models read a tool result that
    their chat template puts in a user turn as something the user said.
    """
    text = (text or "").strip()
    if len(text.split()) > 25 or re.search(r"[\d:]", text):  # a value or a list after a colon: an answer
        return False
    return bool(_ACKNOWLEDGEMENT.match(text))


# -- a reply that gives up ----------------------------------------------------------------------
# The answer said to be missing from what the model was given ("... is not provided in the given
# information"), or the model unable to find it ("I cannot determine ...").  Not a plain negative answer
# ("Tickets are not available on Sunday", "The integral cannot be determined in closed form").
_SOURCE = r"(?:in|from|by) (?:the |these |any )?(?:given |provided |previous |above |tool )*" \
          r"(?:information|results?|responses?|data|context|output|observations?)"
_GIVES_UP = re.compile(
    rf"\b(?:(?:is|are|was|were)(?: not|n't) (?:a |an )?(?:provided|available|given|listed|mentioned|found|known|"
    rf"specified|included|present)\b[^.!?\n]{{0,40}}?\b{_SOURCE}"
    rf"|(?:cannot|can ?not|can't|could ?not|couldn't) be (?:determined|found)\b[^.!?\n]{{0,40}}?\b{_SOURCE}"
    rf"|\b(?:information|results?|responses?|data|context|output|observations?)"
    rf" (?:do|does|did)(?: not|n't) (?:provide|contain|include|mention|say|give|show)\b"
    rf"|I(?: cannot| can ?not|'m not able to| am not able to| can't| could ?not| couldn't|'m unable to| am unable to)"
    rf" (?:determine|find|answer|provide|tell)\b)",
    re.IGNORECASE,
)


def gives_up(text: str | None) -> bool:
    """True for a reply that says the answer cannot be found ("… is not provided in the given
    information", "I cannot determine …")."""
    return bool(_GIVES_UP.search(text or ""))


# -- tool output that is a JSON record --------------------------------------------------------
def output_record(output: str) -> dict[str, Any]:
    """A tool output that is a JSON object, as the model was shown it (numbers tidied), else ``{}``."""
    if not output.lstrip().startswith("{"):
        return {}
    try:
        value = parse_json_value(tidy_numbers(output), repair=False)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


# -- tool output that reports an error ---------------------------------------------------------
_ERROR_TEXT = re.compile(r'^\s*(?:error\b|\{\s*"error"\s*:)', re.IGNORECASE)


def strings_in(value: Any) -> list[str]:
    """Every string inside ``value`` (dict values and list items, at any depth; not the keys), reading
    text that is a JSON object or list as JSON: ``'{"error": "unknown id"}'`` -> ``["unknown id"]``.
    Text that is not JSON is one string."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and item.lstrip()[:1] in ("{", "["):
            try:
                item = parse_json_value(item, repair=False)
            except ValueError:
                pass
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def call_worked(observation: Step) -> bool:
    """True when a tool call's observation is a result, not an error (a timeout counts as an error)."""
    return bool(observation.data.get("ok", True)) and not reports_error(observation.content)


def reports_error(output: str) -> bool:
    """True when a tool's output is an error report (``Error: ...`` or ``{"error": ...}``),
    although the tool itself returned normally."""
    return bool(_ERROR_TEXT.match(output or ""))


# -- numbers ---------------------------------------------------------------------------------
# Binary floating point turns 0.1 + 0.2 into 0.30000000000000004: a run of 0s or 9s
# followed by a digit or three, at the 16th or 17th significant digit.
_FLOAT_NOISE = re.compile(r"(?<![\w.])(-?)(\d+)\.(\d*?)(0{5,}|9{5,})\d{1,3}(?![\w.])")


def tidy_numbers(text: str) -> str:
    """Float noise removed from the numbers in ``text`` (``16353.999999999998`` -> ``16354``).

    Only numbers with 15 or more significant digits ending in such a run are
    changed, so ordinary values such as ``1.0000001`` stay exactly as written.
    """
    if "." not in text:
        return text

    def clean(match: re.Match[str]) -> str:
        digits = (match.group(2) + match.group(3) + match.group(4)).lstrip("0")
        if len(digits) + 1 < 15:
            return match.group(0)
        decimals = len(match.group(3))
        value = round(float(match.group(0)), decimals)
        return f"{value:.{decimals}f}" if decimals else str(int(value))

    return _FLOAT_NOISE.sub(clean, text)
