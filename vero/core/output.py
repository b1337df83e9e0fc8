"""Typed results: ``run(task, output_type=T)`` reads the final answer as a ``T``.

``OutputSpec`` holds what the answer must be (a Python type, or a JSON Schema dict from
``vero run --output-schema``): the note that tells the model so, the ``response_format`` that constrains a
reply where the server supports it, and ``read``, which parses the answer text and builds the value with the
same machinery as tool arguments (``vero.tools.schema``), raising ``InvalidValue`` naming every problem;
the agent then re-asks (``Agent._typed_answer``).
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from vero.core.notes import note
from vero.core.parsing import parse_json_value
from vero.core.parsing.json_text import STRICT_DECODER, bracketed_spans, valid_strings
from vero.tools.schema import (
    BOUND_KEYWORDS,
    InvalidValue,
    WrittenNumber,
    check,
    convert,
    describe,
    inline_refs,
    schema_problems,
    type_label,
    type_to_schema,
    unannotated,
)

OUTPUT_NOTE = "\n\nYour final answer must be {what}, with nothing before or after it."
OUTPUT_REASK = note(
    "output_reask",
    "Your answer does not have the required form:\n{problems}\nWrite the answer again as {what}, and nothing else.",
)
OUTPUT_SYSTEM = "You write the answer to a task in exactly the form the task asks for."
ANSWER_KEY = "answer"  # a simple value sent under a constrained reply's object: {"answer": 42}
_SIMPLE_KINDS = ("string", "integer", "number", "boolean")
# An answer's JSON, its numbers as written (``WrittenNumber``): a Decimal gets every digit, an int from 1e30 is exact.
_DECODER = json.JSONDecoder(object_pairs_hook=STRICT_DECODER.object_pairs_hook, parse_float=WrittenNumber)


class OutputSpec:
    """What a run's final answer must be: ``output_type`` (a type hint, or a JSON Schema dict)."""

    def __init__(self, output_type: Any, retries: int = 2):
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"output_retries must be 0 or more, got {retries!r}")
        self.output_type = output_type
        self.retries = retries
        self.is_schema = isinstance(output_type, dict)
        if self.is_schema and (problems := schema_problems(output_type)):  # it would not be checked as it says
            raise TypeError(f"the output schema cannot be checked as written: {'; '.join(problems[:5])}")
        self.schema: dict[str, Any] = inline_refs(output_type) if self.is_schema else type_to_schema(output_type)
        self.simple = _is_simple(self.schema)

    def describe(self) -> str:
        """What the model is told the answer must be: a value of a kind, one of some values, or JSON."""
        if "enum" in self.schema:
            return "exactly one of: " + ", ".join(json.dumps(v, ensure_ascii=False) for v in self.schema["enum"])
        if self.simple:
            return f"a single {type_label(self.schema)} value" + self._limits()
        return f"only JSON that fits this JSON schema: {json.dumps(self.schema, ensure_ascii=False)}"

    def _limits(self) -> str:
        """A simple type's constraints (``Annotated[int, Ge(1)]``): `` (minimum 1, maximum 5)``, as the schema has
        them, so that a first answer is not a guess; "" for none (a Decimal's own ``pattern`` is no constraint)."""
        plain = {} if self.is_schema else type_to_schema(unannotated(self.output_type)[0])
        limits = [(key, value) for key, value in self.schema.items() if key in BOUND_KEYWORDS]
        shown = [f"{key} {json.dumps(value, ensure_ascii=False)}" for key, value in limits if plain.get(key) != value]
        return f" ({', '.join(shown)})" if shown else ""

    def instructions(self) -> str:
        """The note added to the task for the model."""
        return OUTPUT_NOTE.format(what=self.describe())

    def reask(self, problems: list[tuple[str, str]]) -> str:
        """The note that sends the answer back, naming every problem."""
        listed = "\n".join(f"- {describe(problem)}" for problem in problems)
        return OUTPUT_REASK.format(problems=listed, what=self.describe())

    def response_format(self) -> dict[str, Any]:
        """A ``response_format`` constraining the reply to this type; a value that is not an object goes
        under ``{"answer": ...}`` (OpenAI constrains objects only), ``strict`` where OpenAI's strict mode
        can hold the schema (``is_strict``: it binds the reply only then); a tuple's places (``prefixItems``, which
        strict mode does not take) are checked here, after the reply."""
        schema = _without_places(self.schema)
        if schema.get("type") != "object":
            schema = {
                "type": "object",
                "properties": {ANSWER_KEY: schema},
                "required": [ANSWER_KEY],
                "additionalProperties": False,
            }
        strict = is_strict(schema)
        return {"type": "json_schema", "json_schema": {"name": "final_answer", "schema": schema, "strict": strict}}

    def read(self, text: str) -> Any:
        """The answer ``text`` as the declared type; raises ``InvalidValue`` naming every problem.

        A simple type's answer that reads as JSON of another kind is tried as the bare text too:
        ``true`` for a ``str | None``, ``[1]`` for a ``str``; one that does not fit, without the markup
        and end punctuation around it (``**No**``, ``no.``, `` `red` ``) or after a ``Final Answer:`` label."""
        body = _unfenced(text or "")
        value = self._parsed(body)
        try:
            return self._built(value)
        except InvalidValue:
            if not self.simple:
                raise
            label = _ANSWER_LABEL.sub("", body)  # "Final Answer: 42", as a small model ends a tool-calling run
            quoted = isinstance(value, str) and value != body  # a JSON string: its quotes are no part of it
            for bare in dict.fromkeys((body, _DRESS.sub("", body), label, _DRESS.sub("", label))):  # then undressed
                if bare and bare != value and not (quoted and bare == body):
                    with contextlib.suppress(InvalidValue):
                        return self._built(bare)
            raise

    def _built(self, value: Any) -> Any:
        """A JSON value as the declared type (checked against the schema when one was given)."""
        if self.is_schema:
            problems: list[tuple[str, str]] = []
            result = check(value, self.schema, "", problems)
            if problems:
                raise InvalidValue(problems)
            return _plain_floats(result)
        return _plain_floats(convert(value, self.output_type))

    def _parsed(self, body: str) -> Any:
        """The JSON value in ``body`` (the unfenced answer); the bare text for a simple type when it is not JSON."""
        if not body:
            raise InvalidValue([("", "the answer is empty")])
        try:
            value = _as_written(body)
        except ValueError:
            if self.simple:
                return body  # 42, yes, positive: read leniently as the type says
            value = _json_within(body, self.schema)
        if (
            self.schema.get("type") == "integer"
            and isinstance(value, WrittenNumber)
            and _DOTTED_GROUPS.fullmatch(value.text)
        ):
            grouped, decimal = value.text.replace(".", ""), float(value.text)
            why = f"{value.text} is not plainly a number: write {grouped} if the dot groups thousands, else {decimal}"
            raise InvalidValue([("", why)])
        if isinstance(value, dict) and set(value) == {ANSWER_KEY} and self.schema.get("type") != "object":
            return value[ANSWER_KEY]  # a constrained reply's wrapper
        return value


# A bare whole number in groups of three after dots: 709.000 is 709000 where a dot groups thousands (German,
# Spanish...), and 709 to JSON: for an int, asked again (a float's 0.125 or 3.142 is a decimal)
_DOTTED_GROUPS = re.compile(r"-?[1-9]\d{0,2}(?:\.\d{3})+")
_DRESS = re.compile(r"^[\s*_`'\"]+|[\s*_`'\".!]+$")  # markup and end punctuation around a whole answer
_ANSWER_LABEL = re.compile(r"\A[\s*_]*final[ \t]*answer[\s*_]*:[ \t]*", re.IGNORECASE)  # **Final Answer:** 42
# A code block: a fence (``` or ~~~, any language tag) that starts a line, up to the same fence on a
# line of its own.  A fence inside a JSON string is no block: a JSON string has no line breaks.
_CODE_BLOCK = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n`]*\n(.*?)\n[ \t]*\1[ \t]*$", re.DOTALL | re.MULTILINE)


def _unfenced(text: str) -> str:
    """The answer in ``text`` without its code fence: the body of its one code block, or of the one block that holds
    JSON; the text without a block.  Two blocks of JSON are a problem: which one is the answer is the model's to say."""
    blocks = [match.group(2).strip() for match in _CODE_BLOCK.finditer(text)]
    if len(blocks) > 1:
        blocks = [block for block in blocks if _is_json(block)] or [text]
    if len(blocks) > 1:
        raise InvalidValue([("", f"the answer has {len(blocks)} JSON values; write only the one answer")])
    return (blocks[0] if blocks else text).strip()


def _as_written(text: str) -> Any:
    """``text`` read as strict JSON, its numbers as written (``_DECODER``); a ``ValueError`` if it is not JSON."""
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None
    return valid_strings(value) if "\\u" in text else value


def _plain_floats(value: Any) -> Any:
    """``value`` with the numbers a dict, list or ``Any`` kept as read (``WrittenNumber``) as the floats JSON reads."""
    if isinstance(value, WrittenNumber):
        return float(value)
    if type(value) is dict:
        return {key: _plain_floats(item) for key, item in value.items()}
    return [_plain_floats(item) for item in value] if type(value) is list else value


def _is_json(text: str) -> bool:
    try:
        parse_json_value(text, repair=False)
        return True
    except ValueError:
        return False


def _json_within(text: str, schema: dict[str, Any]) -> Any:
    """The one JSON object or array in ``text`` (prose around it dropped; repaired if sloppy).

    Only spans of the kind the schema wants count (an object's ``{``, a list's ``[``), so a bracket in the
    prose is no second value; two values of that kind (an answer, then a corrected one) are a problem:
    which one is the answer is the model's to say, not vero's to guess."""
    spans, cut_off = bracketed_spans(text)
    if not spans:
        raise InvalidValue([("", "the answer is not JSON (it has no JSON object or array)")])
    kind = schema.get("type")
    opening = {"object": "{", "array": "["}.get(kind) if isinstance(kind, str) else None
    wanted = [span for span in spans if span[0] == opening] or spans
    if len(wanted) > 1:
        raise InvalidValue([("", f"the answer has {len(wanted)} JSON values; write only the one answer")])
    if cut_off and wanted[0] == spans[-1]:  # a repair would close it: 70 for a number cut at 70...
        raise InvalidValue([("", "the answer's JSON is cut off: it never closes")])
    try:
        return parse_json_value(wanted[0])
    except ValueError as exc:
        raise InvalidValue([("", f"the answer is not valid JSON ({exc})")]) from None


def _is_simple(schema: dict[str, Any]) -> bool:
    """A string, number, boolean or fixed value (or null), or a choice of these (``int | str``): read from bare text."""
    options = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(options, list):
        values = [option for option in options if isinstance(option, dict) and option.get("type") != "null"]
        return bool(values) and all(_is_simple(option) for option in values)
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "enum" in schema or "const" in schema:
        return True
    return bool(kinds) and kind != "null" and all(k in (*_SIMPLE_KINDS, "null") for k in kinds)


# The keywords (and string formats) OpenAI's strict mode takes: a schema with another (minLength, default, oneOf,
# examples) is refused there, so it is sent unstrict, and vero checks what it says
_STRICT_KEYWORDS = frozenset(
    "type properties required additionalProperties items enum const anyOf description title pattern format minimum "
    "maximum exclusiveMinimum exclusiveMaximum multipleOf minItems maxItems".split()
)
_STRICT_FORMATS = frozenset("date-time time date duration email hostname ipv4 ipv6 uuid".split())


def _without_places(schema: Any) -> Any:
    """``schema`` without ``prefixItems`` (each array keeps its ``items``, the union of the places' kinds)."""
    if isinstance(schema, list):
        return [_without_places(part) for part in schema]
    if not isinstance(schema, dict):
        return schema
    return {key: _without_places(part) for key, part in schema.items() if key != "prefixItems"}


def is_strict(schema: Any) -> bool:
    """True when ``schema`` fits OpenAI's strict mode: every value typed, every object closed with
    every property required, only the keywords it takes (``_STRICT_KEYWORDS``)."""
    if not isinstance(schema, dict) or not schema.keys() <= _STRICT_KEYWORDS:
        return False
    if schema.get("format", "date") not in _STRICT_FORMATS:
        return False
    if "anyOf" in schema:
        return all(is_strict(part) for part in schema["anyOf"])
    if not {"type", "const", "enum"} & schema.keys():
        return False
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        closed = schema.get("additionalProperties") is False and set(schema.get("required", ())) == set(properties)
        if not closed or not all(is_strict(part) for part in properties.values()):
            return False
    return "items" not in schema or is_strict(schema["items"])
