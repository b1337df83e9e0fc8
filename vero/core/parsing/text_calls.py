"""Tool calls a model wrote as text, when its whole reply is the call.

Small models served without a tool-call parser (or ignoring it) write the call as text, in the shapes their chat
templates use: JSON ``{"name": ..., "arguments": {...}}`` objects, in one code fence, ``<tool_call>`` blocks (with JSON
or Qwen's ``<function=...>``), inside another tag of the template, with its doubled braces.  Such a reply is a call only
when its *whole* content is the call or calls, of a registered tool with an arguments object: a call amid prose may be
a quote or an example (docs/tools.md, "The promises", 2; ``calls_in_prose`` reads those, for read-only tools only).
Read with ``str.find`` and a JSON decoder, in linear time; a reply over ``MAX_CALL_TEXT_CHARS`` is no call.
"""

from __future__ import annotations

import ast
import html
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from vero.core.message import ToolCall, written_call_id
from vero.core.parsing.json_text import (
    DECODER,
    FENCE,
    ConflictingKeysError,
    _one_value_per_key,
    exact_float,
    rounded_number,
    valid_strings,
)

MAX_CALL_TEXT_CHARS = 100_000  # a longer reply is no call: real calls are short
_OPEN, _CLOSE = "<tool_call>", "</tool_call>"
_FUNCTION, _FUNCTION_END = "<function=", "</function>"
_PARAMETER, _PARAMETER_END = "<parameter=", "</parameter>"
# Other templates' signs that the call or calls follow: Llama 3's, Mistral's, Granite's, Phi-4's (``functools[...]``)
_CALL_MARKERS = ("<|python_tag|>", "[TOOL_CALLS]", "<|tool_call|>", "functools")
# A template's end of turn, left in the text by a server that does not know it for one: after a call, no part of it
TURN_ENDS = r"<\|(?:im_end|eom_id|eot_id|end|endoftext)\|>|<end_of_turn>"  # and </s>, which HTML writes too
END_TOKENS = re.compile(rf"(?:\s*(?:{TURN_ENDS}|</s>))+\s*\Z")
END_TOKENS_TAIL = 200  # END_TOKENS is looked for in a text's last characters only: linear, whatever the text
# A call's name before its JSON arguments: Mistral's newer name[ARGS]{...}, Functionary's >>>name then a line break
_ARGS_CALL = re.compile(r"([\w.-]{1,64})(?:\[CALL_ID\][\w-]{0,64})?\[ARGS\]|>>>[ \t]*(?!all\b)([\w.-]{1,64})[ \t]*\n")
_R1_CALL = re.compile(  # DeepSeek-R1's: function<｜tool▁sep｜>name, then its arguments in a fence
    r"<｜tool▁call▁begin｜>function<｜tool▁sep｜>([\w.-]{1,64})\s*```(?:json)?\s*(\{.*?\})\s*```\s*<｜tool▁call▁end｜>",
    re.DOTALL,
)
_R1_CALLS = ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "tool_input", "input")


@dataclass
class TextToolCalls:
    """The calls a reply's text is, and the text they were read from (without fence or tags)."""

    calls: list[ToolCall] = field(default_factory=list)
    written: str = ""


def tool_calls_in_text(text: str | None, tool_names: Iterable[str]) -> TextToolCalls | None:
    """The tool calls when the whole of ``text`` is calls of ``tool_names``, else None."""
    names, body = set(tool_names), (text or "").strip()
    body = body[:-END_TOKENS_TAIL] + END_TOKENS.sub("", body[-END_TOKENS_TAIL:])
    marker = next((marker for marker in _CALL_MARKERS if body.startswith(marker)), "")
    body = body[len(marker) :].strip()  # another template's sign that a call follows
    if body.startswith(_R1_CALLS[0]) or _ARGS_CALL.match(body):  # calls no JSON objects: written as JSON ones
        body = _as_json_calls(body)
    if not names or len(body) > MAX_CALL_TEXT_CHARS:
        return None
    if body.startswith("```tool_code"):  # Gemma's: the call as Python code, perhaps printed
        code = body.removeprefix("```tool_code").removesuffix("```").strip()
        body = f"[{code[6:-1] if code.startswith('print(') and code.endswith(')') else code}]"
    elif body[:1] not in ("{", "[", "<", "`"):  # Llama 3.1's built-in tools': lookup.call(name="Oslo")
        if not (marker and ".call(" in body):
            return None
        body = f"[{body.replace('.call(', '(', 1)}]"
    if body.startswith("<") and not body.startswith((_OPEN, _FUNCTION)):  # a template's tags around the call
        body = strip_template_tags(body)
    snippets = [_single_braces(s) for s in (_tagged(body) if body.startswith(_OPEN) else [unfenced(body)])]
    calls: list[ToolCall] = []
    for snippet in snippets:
        if snippet is None or not (found := _calls_in_snippet(snippet, names)):
            return None
        rounded = rounded_number(snippet)  # a number a float rounds: not as written
        for call in found if rounded else ():
            call.args.problem = call.args.problem or rounded
        calls += found
    return TextToolCalls(_once_each(calls), "\n".join(s for s in snippets if s))


def unfenced(body: str) -> str | None:
    """The body itself, or the inside of the one code fence that is the whole body (None: not one fence)."""
    if not body.startswith(FENCE):
        return body
    inner = body[3:]
    end = inner.find(FENCE)
    if end < 0 or inner[end + 3 :].strip():  # unclosed, or more after the fence
        return None
    newline = inner.find("\n", 0, end)
    tag = inner[:newline].strip() if newline >= 0 else ""
    return (inner[newline + 1 : end] if tag.isalnum() or not tag else inner[:end]).strip()


def _single_braces(snippet: str | None) -> str | None:
    """A JSON call with a template's escaped (doubled) outer braces, as the model copied them, with
    single ones: so it is also compared as written when the agents check for a quoted call."""
    if snippet is not None and snippet.startswith("{{") and snippet.endswith("}}"):
        return snippet[1:-1]
    return snippet


def _tagged(body: str) -> list[str | None]:
    """The insides of the ``<tool_call>`` blocks that make up ``body`` (the last may be unclosed);
    a None among them when anything but whitespace lies between or after them."""
    snippets: list[str | None] = []
    position = 0
    while position < len(body):
        if not body.startswith(_OPEN, position):
            return [None]
        start = position + len(_OPEN)
        end = body.find(_CLOSE, start)
        if end < 0:  # unclosed: the rest of the reply, once
            return [*snippets, body[start:].strip()]
        snippets.append(body[start:end].strip())
        position = _skip_space(body, end + len(_CLOSE))
    return snippets


def _calls_in_snippet(snippet: str, names: set[str]) -> list[ToolCall]:
    """The calls a snippet is: JSON objects (one, a list, or several in a row), one ``<function=...>``, a list of
    Python calls (``[lookup(name="Oslo")]``, Llama 3.2's and Gemma 3's), or a Python dict (Hermes' prompt's)."""
    if snippet.startswith(_FUNCTION):
        call = _function_call(snippet, names)
        return [call] if call is not None else []
    calls: list[ToolCall] = []
    position = 0
    while position < len(snippet):
        try:
            value, position = DECODER.raw_decode(snippet, position)
        except ConflictingKeysError:
            return []
        except (ValueError, RecursionError):  # no JSON: Python's calls or literal, read exactly, or nothing
            return _python_calls(snippet, names) if position == 0 else []
        found = _calls_in_value(value, names)
        if not found:
            return []
        calls += found
        while position < len(snippet) and snippet[position] in " \t\r\n,;":
            position += 1
    return calls


def _as_json_calls(body: str) -> str:
    """``body`` with the calls of templates that write no JSON call objects written as JSON ones: Mistral's newer
    ``name[ARGS]{...}`` (after ``[TOOL_CALLS]``, each), Functionary's ``>>>name`` and DeepSeek-R1's; each call's
    arguments as written.  Else ``body`` as it is."""
    if body.startswith(_R1_CALLS[0]):
        found = _R1_CALL.findall(body)
        rest = _R1_CALL.sub("", body).replace(_R1_CALLS[0], "").replace(_R1_CALLS[1], "").strip()
        return _json_calls(found) if found and not rest and all(map(_one_object, (a for _, a in found))) else body
    found, position = [], 0
    while (named := _ARGS_CALL.match(body, position)) is not None:
        try:
            arguments, end = DECODER.raw_decode(body, named.end())
        except (ValueError, RecursionError):
            return body
        if not isinstance(arguments, dict):
            return body
        found.append((named.group(1) or named.group(2), body[named.end() : end]))
        position = _skip_space(body, end)
        if body.startswith("[TOOL_CALLS]", position):  # before each call, or only the first
            position = _skip_space(body, position + len("[TOOL_CALLS]"))
    return _json_calls(found) if found and position >= len(body) else body


def _one_object(text: str) -> bool:
    """``text`` is one JSON object and nothing more: spliced into a call as its arguments, it cannot add a call."""
    try:
        value, end = DECODER.raw_decode(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and not text[end:].strip()


def _json_calls(found: list[tuple[str, str]]) -> str:
    """``(name, arguments as written)`` pairs as a JSON list of calls."""
    calls = (f'{{"name": {json.dumps(name)}, "arguments": {arguments}}}' for name, arguments in found)
    return "[" + ", ".join(calls) + "]"


def _python_calls(snippet: str, names: set[str]) -> list[ToolCall]:
    """The calls of a snippet written in Python: a list of calls by keyword (``[tool(a="x"), other(b=1)]``, Llama
    3.2's and Gemma 3's; ``call_expression``), or a dict (or list of dicts) of literals naming a tool (Hermes'
    prompt's ``{'name': 'x', 'arguments': {...}}``).  A value not written as plainly as JSON writes it is the call's
    problem (the gate refuses it for a tool that may change things); anything else in it, no call at all."""
    try:
        tree = ast.parse(snippet, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    items = tree.elts if isinstance(tree, ast.List) else [tree]
    if len(items) > MAX_WRITTEN_CALLS:  # each is read on its own: a reply of many is no call (and stays linear)
        return []
    if items and all(isinstance(item, ast.Call) for item in items):
        read = [call_expression(ast.get_source_segment(snippet, item) or "") for item in items]
        found = [(_as_call({"name": r[0], "arguments": r[1]}, names), r[2]) if r else (None, None) for r in read]
    elif (literal := _literal(tree, snippet)) is not None:
        found = [(call, literal[1]) for call in _calls_in_value(literal[0], names)]
    else:
        return []
    calls = [call for call, _ in found if call is not None]
    if len(calls) != len(items):
        return []
    for call, (_, problem) in zip(calls, found):
        call.args.problem = call.args.problem or problem
    return calls


_LITERALS = (ast.Dict, ast.List, ast.Constant, ast.UnaryOp, ast.USub, ast.Load)
_JSON_KINDS = (str, int, float, bool, type(None))
MAX_WRITTEN_CALLS = 16  # Python calls in one reply
MAX_LITERALS = 256  # values in one Python literal


def _literal(tree: ast.expr, snippet: str) -> tuple[Any, str | None] | None:
    """A dict or list of JSON's kinds of values written in Python (``{'to': 'bob', 'paid': True}``), and why it is
    not written as plainly as JSON (``0x10``, ``9_00``, ``'a' 'b'``, a float that rounds), or None; None for
    anything else (a set, bytes, a tuple) and for a dict that gives a key twice (Python keeps the last silently)."""
    nodes = list(ast.walk(tree))
    if not isinstance(tree, (ast.Dict, ast.List)) or not all(isinstance(node, _LITERALS) for node in nodes):
        return None
    constants = [node for node in nodes if isinstance(node, ast.Constant)]
    if len(constants) > MAX_LITERALS or any(type(node.value) not in _JSON_KINDS for node in constants):
        return None  # (each value's text is looked up on its own: a call's arguments are a few)
    for node in (node for node in nodes if isinstance(node, ast.Dict)):
        keys = [key.value if isinstance(key, ast.Constant) else None for key in node.keys]
        if not all(isinstance(key, str) for key in keys) or len(set(keys)) < len(keys):
            return None
    try:
        value = ast.literal_eval(tree)
    except (ValueError, TypeError, RecursionError, MemoryError):
        return None
    return value, _unplain_literals(snippet, list(constants))


def _function_call(snippet: str, names: set[str]) -> ToolCall | None:
    """``<function=name><parameter=key>value</parameter>...</function>`` (or a JSON object inside) and no more."""
    close = snippet.find(">")
    if close < 0:
        return None
    name, position, arguments = snippet[len(_FUNCTION) : close].strip(), _skip_space(snippet, close + 1), []
    if snippet.startswith("{", position):  # Llama 3's: the arguments as written
        inside = snippet[position:].rstrip().removesuffix(_FUNCTION_END)
        return _as_call({"name": name, "arguments": inside.rstrip()}, names) if _one_object(inside) else None
    while True:
        position = _skip_space(snippet, position)
        if snippet.startswith(_FUNCTION_END, position):
            position += len(_FUNCTION_END)
            break
        if not snippet.startswith(_PARAMETER, position):
            return None
        close = snippet.find(">", position)
        end = snippet.find(_PARAMETER_END, close) if close >= 0 else -1
        if end < 0:
            return None
        key = snippet[position + len(_PARAMETER) : close].strip()
        arguments.append((key, snippet[close + 1 : end].strip()))
        position = end + len(_PARAMETER_END)
    if snippet[position:].strip():
        return None
    if len(dict(arguments)) < len(arguments):  # a parameter given twice: written so, the gate says which
        written = "{" + ", ".join(f"{json.dumps(key)}: {json.dumps(value)}" for key, value in arguments) + "}"
        return ToolCall(written_call_id(name, written), name, written, "text") if name in names else None
    call = _as_call({"name": name, "arguments": {key: html.unescape(value) for key, value in arguments}}, names)
    if call is not None:  # the values as written, for a tool that may change things: no guess at what &amp; meant
        call.args.written = json.dumps(dict(arguments), ensure_ascii=False)
    return call


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _calls_in_value(value: Any, names: set[str]) -> list[ToolCall]:
    """A decoded JSON value as tool calls: all of it must be calls, or nothing is."""
    items = value if isinstance(value, list) else [value]
    calls = [call for item in items if (call := _as_call(item, names)) is not None]
    return calls if len(calls) == len(items) else []


def written_call(item: dict[str, Any]) -> tuple[str, Any] | None:
    """The tool name and the arguments (None if absent) of an object written as a call, such as
    ``{"name": ..., "arguments": {...}}`` or ``{"tool": ..., "parameters": {...}}``; nothing is checked."""
    keys: tuple[str, ...] = _ARGUMENT_KEYS
    if isinstance(item.get("function"), dict):  # the API's own shape: {"type": "function", "function": {...}}
        item, keys = item["function"], ("arguments",)  # its "parameters" would be a tool's schema
    name = next((item[k] for k in _NAME_KEYS if isinstance(item.get(k), str)), None)
    return None if name is None else (name, next((item[k] for k in keys if k in item), None))


def _as_call(item: Any, names: set[str]) -> ToolCall | None:
    if not isinstance(item, dict) or (call := written_call(item)) is None or _says_two_things(item):
        return None
    name, arguments = call
    written = arguments if isinstance(arguments, str) else None  # arguments as a JSON string: kept as written
    if written is not None:
        try:
            arguments = json.loads(written)
        except (ValueError, RecursionError):
            return None
    if name not in names or not isinstance(arguments, dict):
        return None
    if arguments.get("type") == "object" and isinstance(arguments.get("properties"), dict):
        return None  # a tool's JSON schema echoed from the prompt, not arguments for it
    text = written if written is not None else json.dumps(valid_strings(arguments), ensure_ascii=False)
    return ToolCall(written_call_id(name, text), name, text, "text")


def _says_two_things(item: dict[str, Any]) -> bool:
    """An object that names two tools (``{"name": a, "tool": b}``, or one more inside the API's ``function``
    object) or gives two sets of arguments (``arguments`` and ``parameters``, or ``arguments`` beside those of
    ``function``): no call, as no one is picked."""
    inner = item["function"] if isinstance(item.get("function"), dict) else {}  # the API's shape, read as well
    named = {part[key] for part in (item, inner) for key in _NAME_KEYS if isinstance(part.get(key), str)}
    keys = [(item, key) for key in _ARGUMENT_KEYS if key in item] + [(inner, "arguments")] * ("arguments" in inner)
    given = {json.dumps(part[key], sort_keys=True, default=str) for part, key in keys}
    return len(named) > 1 or len(given) > 1


def _once_each(calls: list[ToolCall]) -> list[ToolCall]:
    """``calls`` without repeats: a call written twice is run once."""
    once: dict[tuple[str, str], ToolCall] = {}
    for call in calls:
        once.setdefault((call.name, call.arguments), call)
    return list(once.values())


MAX_EMBEDDED_CANDIDATES = 20  # JSON objects tried inside prose: keeps a hostile reply's scan bounded
_CALL_KEYS = tuple(f'"{key}"' for key in _NAME_KEYS)


def calls_in_prose(text: str | None, tool_names: Iterable[str]) -> list[ToolCall]:
    """The calls of ``tool_names`` written anywhere in ``text`` (amid prose, in fences or tags), in the order written:
    JSON calls, and tags with the arguments as attributes (``<weather city="Oslo"/>``).  Only for tools that change
    nothing: the agents run such a call only when the tool is read-only (docs/tools.md, "Safety").  Linear: each ``{``
    that opens an object whose first key names a tool is decoded once, and each tag named after a tool read once, at
    most ``MAX_EMBEDDED_CANDIDATES`` of each, in a reply of at most ``MAX_CALL_TEXT_CHARS``."""
    names, body = set(tool_names), text or ""
    if not names or len(body) > MAX_CALL_TEXT_CHARS:
        return []
    calls: list[tuple[int, ToolCall]] = _attribute_tag_calls(body, names) if "<" in body else []
    position, tried = body.find("{"), 0
    while position >= 0 and tried < MAX_EMBEDDED_CANDIDATES:
        end = position + 1  # where the next "{" is looked for: past this one, or past the object decoded here
        # an object whose first key names a tool (a template's "{{" is not: its inner "{" is)
        if body[position + 1 : position + 40].lstrip().startswith(_CALL_KEYS):
            tried += 1
            try:
                value, end = DECODER.raw_decode(body, position)
            except (ValueError, RecursionError):
                pass  # no JSON here: the next "{" is tried
            else:
                calls += [(position, call) for call in _calls_in_value(value, names)]
        position = body.find("{", end)
    return _once_each([call for _, call in sorted(calls, key=lambda place: place[0])])


_TAG_NAME = re.compile(r"<([A-Za-z_][\w.-]{0,99})")
# One attribute of a tag: key="value" or key='value' (no quote inside the value, so no backtracking).
_ATTRIBUTE = re.compile(r"""\s+([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
MAX_TAG_ATTRIBUTES = 32  # a call has a few arguments; a longer tag is no call


def _attribute_tag_calls(body: str, names: set[str]) -> list[tuple[int, ToolCall]]:
    """``(where, call)`` for each self-closing tag named after a tool (of the first ``MAX_EMBEDDED_CANDIDATES``),
    its arguments as attributes: ``<weather city="Oslo" unit='C'/>`` (small models write calls so), as strings."""
    named = islice((tag for tag in _TAG_NAME.finditer(body) if tag.group(1) in names), MAX_EMBEDDED_CANDIDATES)
    read = ((tag.start(), _attribute_tag(body, tag.end(), tag.group(1), names)) for tag in named)
    return [(where, call) for where, call in read if call is not None]


def _attribute_tag(body: str, position: int, name: str, names: set[str]) -> ToolCall | None:
    """The call of the tag whose name ends at ``position``, when attributes and ``/>`` follow (none
    when an attribute is given twice: which value was meant is unknown, as for JSON)."""
    arguments: dict[str, str] = {}
    while (attribute := _ATTRIBUTE.match(body, position)) is not None:
        key, double, single = attribute.groups()
        if key in arguments or len(arguments) == MAX_TAG_ATTRIBUTES:
            return None
        arguments[key] = html.unescape(double if double is not None else single)
        position = attribute.end()
    if not body[position : position + 100].lstrip().startswith("/>"):  # a call's tag closes soon
        return None
    return _as_call({"name": name, "arguments": arguments}, names)


_TEMPLATE_TAG = re.compile(r"</?(?:tool_response|tool_call|tools)>")


def strip_template_tags(text: str) -> str:
    """``text`` without the chat-template tags small models imitate (``<tool_response>``, ``<tools>``,
    ``<tool_call>``): noise in an answer (a reply of nothing but such tags is empty)."""
    if "<" not in text:
        return text
    return re.sub(r"\n{3,}", "\n\n", _TEMPLATE_TAG.sub("", text)).strip()


def call_expression(text: str) -> tuple[str, dict[str, Any] | str, str | None] | None:
    """``tool(a=1, b="x")`` or ``tool("x")`` as (name, arguments, why they are not plainly written or None);
    literals only, else None."""
    text = text.strip().strip("`")
    if "(" not in text or not text.endswith(")"):
        return None
    try:
        call = ast.parse(text, mode="eval").body
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            return None
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
        args = [ast.literal_eval(a) for a in call.args]
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):  # f(---...): too deep for the parser
        return None
    if args and (kwargs or len(args) > 1):
        return None
    return call.func.id, (str(args[0]) if args else kwargs), _unplain(text, call, args)


def _unplain_literals(text: str, literals: list[ast.expr]) -> str | None:
    """Why one of ``literals`` (nodes of ``text``) is not written as plainly as JSON writes it, else None."""
    for node in literals:
        segment = ast.get_source_segment(text, node) or ""
        if segment in ("True", "False", "None") or re.fullmatch(r"'[^'\"\\\n]*'", segment):
            continue  # a Python literal as plain as JSON's
        try:
            json.loads(segment, object_pairs_hook=_one_value_per_key, parse_float=exact_float)  # 2.9999999999999999
        except (ValueError, RecursionError):
            return f"the value {segment[:40]} is not written plainly (as JSON would write it)"
    return None


def _unplain(text: str, call: ast.Call, args: list[Any]) -> str | None:
    """Why a call's literals are not written as plainly as JSON (``9_00``, ``0x10``, ``"a" "b"``, a key given
    twice, ``tool(None)`` read as the text "None"), else None."""
    if problem := _unplain_literals(text, [*call.args, *(keyword.value for keyword in call.keywords)]):
        return problem
    return "a value that is not text, given as the tool's text" if args and not isinstance(args[0], str) else None
