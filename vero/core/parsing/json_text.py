"""JSON out of model text: objects in replies and tool arguments, repaired when sloppy, read in linear time."""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, TypeVar, overload

from vero.core.thinking import split_thinking

FENCE = "```"
MAX_JSON_DEPTH = 100  # model output nested deeper than this is not data an agent can use
MAX_REPAIR_CHARS = 64_000  # longer JSON must be valid as it is: repairing is slow per character


class ConflictingKeysError(ValueError):
    """A JSON object gives one key two different values (``{"to": "bob", "to": "eve"}``): which one the
    model meant is unknown, so neither is taken (json keeps the last one silently)."""


def _one_value_per_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for key, item in pairs:
        if key in value and value[key] != item:
            raise ConflictingKeysError(f"the key {key!r} is given twice, with different values")
        value[key] = item
    return value


DECODER = json.JSONDecoder(strict=False, object_pairs_hook=_one_value_per_key)  # raw newlines in strings are common
STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_one_value_per_key)


def parse_json_object(text: str | None) -> dict[str, Any]:
    """The JSON object in a model reply: fenced or bare, repaired if sloppy (single quotes, trailing
    commas, comments).  Raises ``ValueError``, with a reason the model can act on, when there is no usable object."""
    answer, _ = split_thinking(text)
    if not answer.strip():
        raise ValueError("the reply was empty")
    candidate = fenced(answer)
    start, end = candidate.find("{"), candidate.rfind("}")
    if start < 0:
        raise ValueError("the reply contains no JSON object")
    candidate = candidate[start : end + 1] if end > start else candidate[start:]
    data = parse_json_value(candidate)
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        data = data[0]
    if not isinstance(data, dict) or not data:
        raise ValueError("the reply is not a JSON object")
    if ("NaN" in candidate or "Infinity" in candidate or LONG_NUMBER.search(candidate)) and not _finite(data):  # 1e999
        raise ValueError("the reply's JSON holds NaN or Infinity, which are no JSON numbers: write a number")
    return data


def exact_float(text: str) -> float:
    """A JSON number with a fraction or exponent, when a float holds it as written: ``ValueError`` for one too large
    (1e400, as Infinity) and for one a float would round (2.9999999999999999 would run as 3)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is no number a tool that may change things takes")
    try:
        rounded = Decimal(repr(value)) != Decimal(text)
    except ArithmeticError:  # an exponent too large for Decimal (0e999999999999999999999)
        rounded = True
    if rounded:
        raise ValueError(f"{text} has more digits than a number holds: it would run as {value!r}")
    return value


LONG_NUMBER = re.compile(r"\d[\d.]{15,}|[eE][+-]?\d{3}")  # a number a float may not hold as written


def rounded_number(text: str) -> str | None:
    """Why the JSON ``text`` would not run as written: a number in it that a float rounds (``exact_float``); None
    when there is none (or it is no JSON).  For calls read from a reply's JSON, which floats would round unseen."""
    found: list[str] = []

    def noted(number: str) -> float:
        try:
            return exact_float(number)
        except ValueError as exc:
            found.append(str(exc))
            return 0.0

    if LONG_NUMBER.search(text):
        with contextlib.suppress(ValueError, RecursionError):
            json.JSONDecoder(strict=False, parse_float=noted).raw_decode(text.strip())
    return found[0] if found else None


def _finite(value: Any) -> bool:
    """No NaN or Infinity anywhere in ``value`` (a JSON value as read)."""
    if isinstance(value, float):
        return math.isfinite(value)
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return all(_finite(item) for item in items)


def fenced(text: str) -> str:
    """The body of the first closed code fence in ``text`` (its ``json`` tag dropped), else ``text``;
    found with ``str.find``, so a reply full of unclosed fences is read in one pass."""
    start = text.find(FENCE)
    end = text.find(FENCE, start + 3) if start >= 0 else -1
    if end < 0:
        return text
    body = text[start + 3 : end]
    return body[4:] if body[:4] in ("json", "JSON") else body


# A code fence (``` or ~~~, any language tag: json, jsonc, javascript...) or backticks around the whole text.
_FENCED = re.compile(r"(`{3,}|~{3,})[ \t]*[\w+#.-]*[ \t]*\r?\n?(.*?)\r?\n?[ \t]*\1", re.DOTALL)
_INLINE_CODE = re.compile(r"`([^`]*)`")


def without_fence(text: str) -> str:
    """``text`` stripped, without the code fence (any language tag) or backticks that wrap the whole of it."""
    body = text.strip()
    for pattern in (_FENCED, _INLINE_CODE):
        match = pattern.fullmatch(body)
        if match is not None:
            return match.group(match.lastindex or 0).strip()
    return body


# JSON can carry half of a surrogate pair ("\ud83d"), and a streamed pair can be cut between two chunks.
# Such text cannot be encoded as UTF-8: kept in a message, it would break every later request (and any print).
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


def valid_strings(value: Any) -> Any:
    """``value`` (decoded JSON) with ``valid_text`` applied to every string in it, at any depth: its containers are
    copied from a list of those still to copy, not by recursion (JSON nested 500 deep decodes; Python's stack may not
    hold as many calls)."""
    copies: dict[int, Any] = {}
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, (list, dict)) and id(item) not in copies:
            copies[id(item)] = [] if isinstance(item, list) else {}
            pending += [item, *(item.values() if isinstance(item, dict) else item)]
        elif isinstance(item, list):  # its items copied: the copy takes them, in order
            copies[id(item)][:] = [copies.get(id(part), valid_text(part)) for part in item]
        elif isinstance(item, dict):
            copies[id(item)].update((valid_text(k), copies.get(id(v), valid_text(v))) for k, v in item.items())
    return copies.get(id(value), valid_text(value))


def parse_json_value(text: str, *, repair: bool = True) -> Any:
    """Any JSON value (object, list, string, number), repaired if sloppy.

    The one place model JSON is read (nothing else imports ``json_repair``).  ``repair=False`` reads strict JSON only,
    for text that must be exactly JSON to count (a quoted string given as a tool's sole argument).  Raises
    ``ValueError`` (never ``RecursionError``) for unusable text, and for text nested too deeply to be real arguments.
    """
    try:  # most model JSON is valid: read it strictly first, and repair only what is not
        value = STRICT_DECODER.decode(text)
    except ConflictingKeysError:
        raise  # valid JSON that says two things: a repair would pick one
    except RecursionError:
        if not repair:
            raise ValueError("the JSON is nested too deeply") from None
    except ValueError:
        if not repair:
            raise  # strict JSON only: the decoder's own reason
    else:
        return valid_strings(value) if "\\u" in text else value
    from json_repair import loads  # imported here: it adds ~45 ms to `import vero`

    if len(text) > MAX_REPAIR_CHARS:
        raise ValueError(f"the JSON is not valid, and longer than {MAX_REPAIR_CHARS:,} characters to repair")
    if _nesting(text) > MAX_JSON_DEPTH:
        raise ValueError(f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep")
    if repeats_a_key(text):  # json_repair keeps the last value silently, as json does
        raise ConflictingKeysError("an object in the JSON gives one key twice")
    if text.count("{") > 1 and (key := _key_objects_disagree_on(text)):  # json_repair merges them into the last
        raise ConflictingKeysError(f"the reply holds more than one JSON object, giving {key!r} different values")
    try:
        value = loads(text)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None
    value = _numbers_as_written(value, _odd_numbers(text)) if _ODD_NUMBER.search(text) else value
    # a model can write a lone surrogate as an escape ("\ud83d"): repaired here, where it enters
    return valid_strings(value) if "\\u" in text else value


_KEY = re.compile(r"""(?<![^\s"',{\[])["']?([^\s"':,{}]+)["']?\s*:""")  # from a key's start only: linear in a long run
# A value JSON has no number for: a leading zero or plus sign (a zip code 01234, a phone number +4712345678)
_ODD_NUMBER = re.compile(_KEY.pattern + r"""\s*(\+\d+(?:\.\d+)?|-?0\d+(?:\.\d+)?)(?=\s*[,}\]\n])""")


def _odd_numbers(text: str) -> dict[str, str]:
    """Each key ``text`` gives once with a number JSON has none for (``"zip": 01234``), and that number as written."""
    keys = Counter(_KEY.findall(text))
    return {key: written for key, written in _ODD_NUMBER.findall(text) if keys[key] == 1}  # no other "page": 1


def _numbers_as_written(value: Any, odd: dict[str, str]) -> Any:
    """``value`` with each number of ``odd`` (``_odd_numbers``) as the text written: the repair's 1234 for ``01234``
    prints as another zip code; a number parameter reads the text as the number."""
    if isinstance(value, list):
        return [_numbers_as_written(item, odd) for item in value]
    if not isinstance(value, dict):
        return value
    return {
        key: odd[key] if key in odd and _same_number(item, odd[key]) else _numbers_as_written(item, odd)
        for key, item in value.items()
    }


def _same_number(value: Any, written: str) -> bool:
    return type(value) in (int, float) and float(written) == value


def normalized_arguments(args: Any) -> Any:
    """Tool arguments in one comparable form (JSON text read as a dict), to spot a repeated call."""
    if isinstance(args, str) and args.strip().startswith("{"):
        with contextlib.suppress(ValueError):  # unusable JSON: compared as text
            return parse_json_value(args)
    return args.strip() if isinstance(args, str) else args


class _Quoted(str):
    """The content of a string in JSON-like text, as ``_outside_strings`` yields it."""


_UNCLOSED = _Quoted()  # yielded last when the text ends inside a string


def _outside_strings(text: str) -> Iterator[str]:
    """Each character of ``text`` outside its strings (in double or single quotes, as sloppy JSON has
    them), with each string as one ``_Quoted`` item in its place; ``_UNCLOSED`` last when a string
    does not end.  The one scan of JSON-like text that ``unclosed_json`` and ``repeats_a_key`` share."""
    quote, escaped, start = "", False, 0
    for index, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
                yield _Quoted(text[start:index])
        elif char in "\"'":
            quote, start = char, index + 1
        else:
            yield char
    if quote:
        yield _UNCLOSED


def unclosed_json(text: str) -> bool:
    """True when JSON ``text`` ends inside a string or an object or list (``{"amount": 9``): the model did not finish
    writing it, and a repair would complete it with a value it never wrote.  Single-quoted strings count; linear."""
    depth = 0
    for item in _outside_strings(text):
        if item is _UNCLOSED:
            return True
        if not isinstance(item, _Quoted):
            depth += (item in "[{") - (item in "]}")
    return depth > 0


def repeats_a_key(text: str) -> bool:
    """True when an object in JSON ``text`` gives one key twice (``{to: 'bob', to: 'eve'}``), for sloppy
    JSON, which ``json_repair`` reads keeping the last value: keys in double or single quotes and bare ones
    count, at any depth; linear.  (Valid JSON is checked by ``_one_value_per_key``.)"""
    objects: list[set[str] | None] = []  # per open bracket: an object's keys so far, or None for a list
    token, in_word = "", False
    for item in _outside_strings(text):
        if isinstance(item, _Quoted):
            token, in_word = str(item), False
        elif item.isalnum() or item in "_$-":
            token, in_word = (token + item if in_word else item), True
        elif item.isspace():
            in_word = False
        else:
            keys = objects[-1] if objects else None
            if item == ":" and keys is not None and token:
                if token in keys:
                    return True
                keys.add(token)
            elif item in "{[":
                objects.append(set() if item == "{" else None)
            elif item in "]}" and objects:
                objects.pop()
            token, in_word = "", False
    return False


def _key_objects_disagree_on(text: str) -> str | None:
    """A key that two of the objects side by side in ``text`` (``{"pass": false} {"pass": true}``) give different
    values; None when there are fewer than two, or they agree (a model that wrote the same object twice)."""
    objects = [span for span in bracketed_spans(text)[0] if span.startswith("{") and span.endswith("}")]
    seen: dict[str, Any] = {}
    for part in objects if len(objects) > 1 else ():
        with contextlib.suppress(ValueError):
            value = parse_json_value(part)
            for key, item in value.items() if isinstance(value, dict) else ():
                if seen.setdefault(key, item) != item:
                    return str(key)
    return None


def bracketed_spans(text: str) -> tuple[list[str], bool]:
    """Each outermost ``{...}`` or ``[...]`` in ``text``, in order: brackets in a quoted string inside
    one are skipped, and one never closed runs to the end.  True with them when the last is cut off
    (not when it ends inside a ``'`` that may be an apostrophe: that is for the repair to read)."""
    spans: list[str] = []
    start, depth, quote, escaped = 0, 0, "", False
    for index, char in enumerate(text):
        if quote:  # inside a string: only its end (not an escaped quote) matters
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'" and depth:
            quote = char
        elif char in "{[":
            if depth == 0:
                start = index
            depth += 1
        elif char in "}]" and depth:
            depth -= 1
            if depth == 0:
                spans.append(text[start : index + 1])
    if depth:
        spans.append(text[start:])
    return spans, depth > 0 and quote != "'"


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


def args_text(args: Any) -> str:
    """Tool arguments as ``a=1, b='x'``, whether they came as a dict or as JSON text."""
    if isinstance(args, str) and args.lstrip().startswith("{"):
        with contextlib.suppress(ValueError):
            args = parse_json_value(args, repair=False)
    if isinstance(args, dict):
        return ", ".join(f"{k}={v!r}" for k, v in args.items())
    return "" if args is None else str(args)
