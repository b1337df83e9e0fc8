"""Calls a model was shown: is a call read from its text one of them (the gate's question 3)?

A model that echoes a document, a tool result or an example writes a call it did not decide to
make.  The gate compares the parsed call (tool name, arguments as a dict) with every call of that
tool written in the sources, in any shape vero reads a call in: ReAct ``Action:`` / ``Action Input:``
lines, JSON ``{"name": ..., "arguments": ...}`` objects (any of their key spellings, in a list,
inside other JSON, with arguments as a JSON string), ``<tool_call>`` blocks, Qwen's ``<function=...>``,
function-call syntax ``tool(a=1)`` and attribute tags ``<tool a="1"/>``.

Before calls are read, a source is normalised the way an echo may differ from it: code fences,
list bullets, blockquote marks and leading indentation go, HTML tags go (in a second reading, as
tags may be the call itself), invisible characters go, and HTML and JSON escapes are undone.  The
arguments are then compared as values (``canonical``): strings spacing, case, look-alike quotes,
HTML tags and invisible characters aside, a number and its text alike.
"""

from __future__ import annotations

import ast
import html
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from typing import Any

from vero.core.parsing.json_text import DECODER
from vero.core.parsing.react_text import parse_react
from vero.core.parsing.text_calls import _attribute_tag, _function_call, written_call

MAX_NAME_MENTIONS = 2000  # mentions of the tool read per source form (each is read in bounded time)
MAX_OBJECT_TRIES = 16  # "{" tried backwards from a mention, for the JSON object that holds it
MAX_CALL_CHARS = 8000  # how far a call written after a mention is read

# Invisible characters: format characters (category Cf, checked in ``plain``) and the ones outside it that
# render as nothing: the combining grapheme joiner, variation selectors, Hangul fillers, the braille blank.
_INVISIBLE = "\u034f\u115f\u1160\u3164\uffa0\u2800\u180b\u180c\u180d\u180e" + "".join(map(chr, range(0xFE00, 0xFE10)))
_INVISIBLE_SET = frozenset(_INVISIBLE) | frozenset(chr(c) for c in range(0xE0100, 0xE01F0))
# Quote marks a model may write for ASCII ones (NFKC keeps them): typographic, primes, guillemets.
_QUOTE_MARKS = str.maketrans(
    dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"')
    | dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'")
)
# Cyrillic and Greek letters drawn like Latin ones: a name or value written with them reads the same.
_LOOK_ALIKES = str.maketrans(
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u0501\u04cf\u04bb\u051b\u051d"
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0406\u0408\u0405"
    "\u03bf\u03c1\u03bd\u03b9\u03ba\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7",
    "aeopcyxijsdlhqwABEKMHOPCTXIJSopvikABEZHIKMNOPTYX",
)
_JSON_ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))')
_JSON_ESCAPED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _unescaped(match: re.Match[str]) -> str:
    if match.group(1):
        return chr(int(match.group(1), 16))
    return _JSON_ESCAPED.get(match.group(2), match.group(2))


_EMPHASIS = str.maketrans("", "", "*`")  # markdown emphasis and code marks around a value


_LINE_PREFIX = re.compile(r"^[ \t]*(?:(?:>[ \t]?)+[ \t]*)?(?:(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+)?", re.MULTILINE)
_FENCE_LINE = re.compile(r"^[ \t>]*(?:`{3,}|~{3,}).*$", re.MULTILINE)
_HTML_TAG = re.compile(r"</?([A-Za-z][\w-]*)[^<>]{0,300}>|<!--|-->")
_BLOCK_TAGS = frozenset("p div br li ul ol tr td th table pre blockquote h1 h2 h3 h4 h5 h6 hr section article".split())
_NAME_CHAR = re.compile(r"[\w-]")  # a character a tool name may hold: a mention next to one is part of a word
_ACTION_BEFORE = re.compile(r"\bAction[ \t]*(?:\*\*|__)?[ \t]*:[ \t*_`'\"]*\Z", re.IGNORECASE)


def quoted_call(
    name: str, arguments: dict[str, Any], sources: Iterable[str], as_arguments: Callable[[Any], Any] = lambda a: a
) -> bool:
    """True when a call of ``name`` with ``arguments`` is written in one of ``sources``.

    ``as_arguments`` reads a call's arguments (``arguments``, and each written call's: JSON text, a bare
    string) into the dict compared, as the tool would get them (the gate passes the tool's lenient
    reading, without arguments given their default); a written call it cannot read is skipped.
    Arguments nested too deeply to compare count as quoted (no model writes such a call itself).
    """
    wanted = None  # compared only once a written call of ``name`` is found
    for source in sources:
        for form in _forms(source, name):
            for written in calls_written(form, name):
                try:
                    wanted = canonical(as_arguments(arguments)) if wanted is None else wanted
                except ValueError:
                    return True
                try:
                    if canonical(as_arguments(written)) == wanted:
                        return True
                except (ValueError, TypeError, RecursionError):
                    continue
    return False


def _forms(source: str, name: str) -> list[str]:
    """The normalised readings of ``source`` that mention ``name``: escapes undone zero, one and two
    times (JSON inside JSON), each with and without HTML tags, and with single quotes as double ones."""
    forms: list[str] = []
    text = html.unescape(source) if "&" in source else source
    for _ in range(3):
        for form in (plain(text), plain(_HTML_TAG.sub(_tag_gap, text)) if "<" in text else ""):
            if name.lower() in form.lower() and form not in forms:
                forms.append(form)
        if "\\" not in text:
            break
        text = _JSON_ESCAPE.sub(_unescaped, text)
    # a call written with single quotes, as Python prints a dict, read as JSON too
    return forms + [form.replace("'", '"') for form in forms if "'" in form]


def _tag_gap(tag: re.Match[str]) -> str:
    """What an HTML tag leaves: a line break for a block (``<p>``, ``<br>``, ``<li>``...), else nothing."""
    return "\n" if (tag.group(1) or "").lower() in _BLOCK_TAGS else ""


def plain(text: str) -> str:
    """``text`` without invisible characters, code fence lines, list bullets, blockquote marks and
    indentation, NFKC-normalised, with look-alike quotes and Cyrillic or Greek look-alike letters as
    ASCII ones."""
    if not text.isascii():
        text = "".join(c for c in text if c not in _INVISIBLE_SET and unicodedata.category(c) != "Cf")
        text = unicodedata.normalize("NFKC", text).translate(_QUOTE_MARKS).translate(_LOOK_ALIKES)
    text = _FENCE_LINE.sub("", text)
    return _LINE_PREFIX.sub("", text)


def calls_written(text: str, name: str) -> Iterator[Any]:
    """The arguments (as written: a dict, JSON text or a bare string) of each call of ``name`` in
    ``text``, found from each mention of the name, in any case (a model may echo it corrected)."""
    objects: dict[int, tuple[Any, int]] = {}  # "{" position -> (the JSON value there, where it ends)
    read: set[int] = set()  # the "{" whose calls were yielded
    for number, mention in enumerate(re.finditer(re.escape(name), text, re.IGNORECASE)):  # in any case
        position, end, spelled = mention.start(), mention.end(), mention.group()
        if number >= MAX_NAME_MENTIONS:
            return
        before, after = text[position - 1 : position], text[end : end + 1]
        if _NAME_CHAR.match(before) or _NAME_CHAR.match(after):  # part of a longer word
            continue
        if before == '"':  # a JSON string: the call around it
            yield from _json_calls(text, position, spelled, objects, read)
        if before in ("<", "="):  # <name a="1"/>, <function=name>
            yield from _tagged_call(text, position, end, spelled)
        if _ACTION_BEFORE.search(text, max(0, position - 40), position):
            yield from _labelled_call(text, position, spelled)
        if text[end : end + 40].lstrip(" \t")[:1] == "(":  # name(...)
            yield from _expression_call(text, end, spelled)


def _json_calls(
    text: str, mention: int, name: str, objects: dict[int, tuple[Any, int]], read: set[int]
) -> Iterator[Any]:
    """The calls in the nearest JSON value around ``mention`` that holds it (tried from the nearest "{"
    backwards, at most ``MAX_OBJECT_TRIES``; each "{" is decoded once per text)."""
    brace = text.rfind("{", 0, mention)
    for _ in range(MAX_OBJECT_TRIES):
        if brace < 0:
            return
        if brace not in objects:
            try:
                objects[brace] = DECODER.raw_decode(text, brace)
            except (ValueError, RecursionError):
                objects[brace] = (None, brace)
        value, end = objects[brace]
        if end > mention:
            if brace not in read:
                read.add(brace)
                yield from _calls_in(value, name)
            return
        brace = text.rfind("{", 0, brace)


def _calls_in(value: Any, name: str, depth: int = 0) -> Iterator[Any]:
    """The arguments of each object in ``value`` (at any depth) written as a call of ``name``."""
    if depth > 50:
        return
    if isinstance(value, dict):
        call = written_call(value)
        if call is not None and call[0] == name:
            yield {} if call[1] is None else call[1]
        for item in value.values():
            yield from _calls_in(item, name, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _calls_in(item, name, depth + 1)


def _labelled_call(text: str, mention: int, name: str) -> Iterator[Any]:
    """The call when ``mention`` follows an ``Action:`` label (its input after it, on the same or the
    next lines); the label need not begin the line (a call inside a JSON string, a sentence)."""
    label = _ACTION_BEFORE.search(text, max(0, mention - 40), mention)
    if label is None:
        return
    step = parse_react(text[label.start() : label.start() + MAX_CALL_CHARS], [name])
    if step.action == name:
        yield step.action_input


def _tagged_call(text: str, mention: int, end: int, name: str) -> Iterator[Any]:
    """``<name a="1"/>`` or ``<function=name>...</function>``."""
    if text.endswith("<", 0, mention):
        call = _attribute_tag(text, end, name, {name})
        if call is not None:
            yield call.arguments
    elif text.endswith("<function=", 0, mention):
        close = text.find("</function>", end, end + MAX_CALL_CHARS)
        if close >= 0:
            call = _function_call(text[mention - len("<function=") : close + len("</function>")], {name})
            if call is not None:
                yield call.arguments


def _expression_call(text: str, end: int, name: str) -> Iterator[Any]:
    """``name(a=1, b="x")``, ``name({"a": 1})`` or ``name("x")``: literals only."""
    opening = end
    while opening < len(text) and text[opening] in " \t":
        opening += 1
    if not text.startswith("(", opening):
        return
    closing = text.find(")", opening)
    for _ in range(MAX_OBJECT_TRIES):
        if closing < 0 or closing - opening > MAX_CALL_CHARS:
            return
        arguments = _literal_call(f"f{text[opening : closing + 1]}")
        if arguments is not None:
            yield arguments
            return
        closing = text.find(")", closing + 1)


def _literal_call(text: str) -> Any:
    """The arguments of ``f(...)`` with literal values: keywords as a dict, or its one positional value."""
    try:
        call = ast.parse(text, mode="eval").body
        if not isinstance(call, ast.Call):
            return None
        keywords = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
        positional = [ast.literal_eval(a) for a in call.args]
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None
    if positional and (keywords or len(positional) > 1):
        return None
    return positional[0] if positional else keywords


def canonical(value: Any, depth: int = 0) -> Any:
    """``value`` in the form quotes are compared in: JSON text as its value, strings without HTML tags,
    invisible characters, look-alike quotes, case and spacing differences, numbers as their text."""
    if depth > 50:
        raise ValueError("nested too deeply")
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            value = json.loads(value)
        except ValueError:
            pass
    if isinstance(value, dict):
        pairs = [(canonical(str(key), depth + 1), canonical(item, depth + 1)) for key, item in value.items()]
        return tuple(sorted(pairs, key=itemgetter(0)))
    if isinstance(value, (list, tuple)):
        return tuple(canonical(item, depth + 1) for item in value)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = value if isinstance(value, str) else json.dumps(value)
    text = plain(_HTML_TAG.sub("", html.unescape(text))).translate(_EMPHASIS)
    return " ".join(text.split()).casefold()
