"""Python types and JSON schemas: one builder for tool parameters and typed results.

``type_to_schema`` writes the JSON schema of a type hint; ``convert`` checks a JSON value
(what a model wrote) against the hint and builds the Python value the hint asks for: a
dataclass instance, a ``TypedDict``'s dict, a ``NamedTuple``, an Enum member, a pydantic
model, a ``date`` or ``Decimal`` read from its text.  ``check`` does the same for a bare JSON
schema (an MCP tool's, ``--output-schema``'s), returning plain JSON values.  Both name every
problem with its path (``address.zip``), and neither returns a half-filled object.

Simple values keep vero's lenient reading of what models write (``"3"`` for an int, a JSON
string for a list).  A type with no JSON form (a ``Callable``, a plain class without fields)
is a ``TypeError`` here, so ``@tool`` refuses it at decoration time instead of offering a
string.  pydantic is imported by nobody here: a pydantic model is recognised through the
module the user already imported, and read through its own ``model_json_schema`` and
``model_validate``.
"""

from __future__ import annotations

import collections.abc
import contextvars
import dataclasses
import datetime
import enum
import json
import math
import pathlib
import re
import sys
import types
import typing
import uuid
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal, Union

from vero.core.parsing import parse_bool, parse_json_value
from vero.core.text import clip

_SIMPLE_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}
_ARRAY_TYPES = (list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.Set)
_MAPPING_TYPES = (dict, collections.abc.Mapping)
_NONE = type(None)
_REQUIRED_MARKS = tuple(m for m in (getattr(typing, "Required", None), getattr(typing, "NotRequired", None)) if m)

Problem = tuple[str, str]  # (where: "address.zip", or "" for the value itself; what is wrong)
# Set while the arguments of a tool that may change things are checked (``ToolRegistry.call``): JSON text in a
# value is read strictly (not repaired), a boolean only as true or false, a number only when it stays exact.
EXACT: contextvars.ContextVar[bool] = contextvars.ContextVar("vero_exact_arguments", default=False)


class WrittenNumber(float):
    """A JSON number with a fraction or an exponent that keeps the text it was written as (``OutputSpec.read``
    reads answers so): a ``Decimal`` made from it gets every digit (``1.10``, not ``1.1``), an int from ``1e30``
    is exact, and it shows as written.  As a ``float`` it is the float JSON would have read; an output's dict, list
    or ``Any`` gets plain floats (``vero.core.output``), a record's field typed ``Any`` this one."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> WrittenNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __repr__(self) -> str:  # as written: what pydantic makes a Decimal field of, and what a problem quotes
        return self.text

    def __reduce__(self) -> tuple[type[WrittenNumber], tuple[str]]:
        return type(self), (self.text,)


class InvalidValue(ValueError):
    """A value does not fit its type; ``problems`` names each misfit with its path."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(describe(problem) for problem in problems))


def describe(problem: Problem) -> str:
    """``address.zip: expected integer, got 'abc'`` (or just the message for the value itself)."""
    path, message = problem
    return f"{path}: {message}" if path else message


# --------------------------------------------------------------------------- what a hint is


def _is_enum(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, enum.Enum)


def _is_pydantic(tp: Any) -> bool:
    """A pydantic model class; pydantic is never imported here (a user with such a model has)."""
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def _is_typed_dict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _is_named_tuple(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def _is_record(tp: Any) -> bool:
    """A type with named fields: a dataclass, a ``TypedDict`` or a ``NamedTuple``."""
    return (isinstance(tp, type) and dataclasses.is_dataclass(tp)) or _is_typed_dict(tp) or _is_named_tuple(tp)


def unannotated(tp: Any) -> tuple[Any, str]:
    """``(T, description)`` for ``Annotated[T, "description", ...]``; ``(tp, "")`` otherwise.

    The description is the first string in the metadata, or the first ``description`` attribute
    (a pydantic ``Field(description=...)``).  A ``NewType`` is the type it names (``UserId`` an ``int``).
    """
    while isinstance(tp, typing.NewType):
        tp = tp.__supertype__
    if typing.get_origin(tp) is not typing.Annotated:
        return tp, ""
    inner, *metadata = typing.get_args(tp)
    for item in metadata:
        text = item if isinstance(item, str) else getattr(item, "description", None)
        if isinstance(text, str) and text.strip():
            return unannotated(inner)[0], text.strip()
    return unannotated(inner)


def _required_key(tp: Any, name: str, hint: Any) -> bool:
    """Whether a TypedDict's key is required: its own ``Required``/``NotRequired`` mark (read from the
    resolved hint: with string annotations the class cannot see it), else the class's ``total``."""
    mark = typing.get_origin(hint)
    if mark is not None and mark in _REQUIRED_MARKS:
        return getattr(mark, "_name", "") == "Required"
    return name in tp.__required_keys__ or (name not in tp.__optional_keys__ and tp.__total__)


def _without_required_mark(tp: Any) -> Any:
    """``T`` for a TypedDict field's ``Required[T]`` or ``NotRequired[T]``."""
    while typing.get_origin(tp) in _REQUIRED_MARKS:
        tp = typing.get_args(tp)[0]
    return tp


class Field(typing.NamedTuple):
    """One named field of a record type."""

    name: str
    hint: Any
    required: bool
    default: Any = dataclasses.MISSING


def _field_hints(tp: type) -> dict[str, Any]:
    """The class's field annotations, resolved; as written when its module cannot be found (a class made
    by ``exec``).  A string that cannot be resolved is a ``TypeError`` naming the class."""
    try:
        return typing.get_type_hints(tp, include_extras=True)
    except NameError as exc:  # a string annotation naming a class defined inside a function
        raise TypeError(f"{tp.__name__}: cannot resolve its field types ({exc}); define them at module level") from None
    except (AttributeError, KeyError):  # no module to resolve names in: the annotations as written
        hints: dict[str, Any] = {}
        for cls in reversed(tp.__mro__):
            hints.update(cls.__dict__.get("__annotations__", {}))
        if any(isinstance(hint, str) for hint in hints.values()):
            raise TypeError(f"{tp.__name__}: cannot resolve its field types (written as strings)") from None
        return hints


def record_fields(tp: type) -> list[Field]:
    """The fields of a dataclass, ``TypedDict`` or ``NamedTuple``, in order."""
    hints = _field_hints(tp)
    if _is_typed_dict(tp):
        return [
            Field(name, _without_required_mark(hint), _required_key(tp, name, hint)) for name, hint in hints.items()
        ]
    if _is_named_tuple(tp):
        defaults = tp._field_defaults  # type: ignore[attr-defined]
        return [
            Field(name, hints.get(name, Any), name not in defaults, defaults.get(name, dataclasses.MISSING))
            for name in tp._fields  # type: ignore[attr-defined]
        ]
    return _dataclass_fields(tp, hints)


def _dataclass_fields(tp: type, hints: dict[str, Any]) -> list[Field]:
    """The arguments of a dataclass's ``__init__``, in order: its fields and its ``InitVar``s (not its
    ``ClassVar``s nor its ``init=False`` fields)."""
    fields = []
    for f in tp.__dataclass_fields__.values():  # type: ignore[attr-defined]
        hint = hints.get(f.name, Any)
        if not f.init or hint is typing.ClassVar or typing.get_origin(hint) is typing.ClassVar:
            continue
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        fields.append(Field(f.name, hint.type if isinstance(hint, dataclasses.InitVar) else hint, required, f.default))
    return fields


# --------------------------------------------------------------------------- schemas


def type_to_schema(tp: Any) -> dict[str, Any]:
    """The JSON schema of a type hint.

    Raises ``TypeError`` for a type with no JSON form (a ``Callable``, a class without fields, a
    recursive dataclass): offering it as a string would only make the model's calls fail.
    """
    return _schema(tp, frozenset())


def _schema(tp: Any, seen: frozenset[Any]) -> dict[str, Any]:
    bare, description = unannotated(tp)
    schema = _bare_schema(bare, seen)
    schema = {**schema, **_constraints(tp, schema.get("type"))}
    return {**schema, "description": description} if description else schema


_BOUNDS = {"gt": "exclusiveMinimum", "ge": "minimum", "lt": "exclusiveMaximum", "le": "maximum"}
_LENGTH_OF = {"array": "Items", "object": "Properties"}  # a length bounds a list's items, a dict's keys, or text


def _constraints(tp: Any, kind: Any) -> dict[str, Any]:
    """The JSON Schema keywords of the constraints in ``Annotated[T, ...]``: annotated_types' ``Ge``,
    ``Interval``, ``MinLen``, ``MultipleOf``... and pydantic's ``Field(ge=..., max_length=..., pattern=...)``, read by
    their attributes (neither library is imported).  A length bounds a list's items, a dict's keys, else a string."""
    if typing.get_origin(tp) is not typing.Annotated:
        return {}
    found: dict[str, Any] = {}
    for item in tp.__metadata__:
        for part in (item, *getattr(item, "metadata", ())):  # a pydantic Field keeps its constraints in .metadata
            for attribute, keyword in (*_BOUNDS.items(), ("multiple_of", "multipleOf")):
                if _is_number(getattr(part, attribute, None)):
                    found[keyword] = getattr(part, attribute)
            for attribute, end in (("min_length", "min"), ("max_length", "max")):
                if _is_number(getattr(part, attribute, None)):
                    found[end + _LENGTH_OF.get(kind, "Length")] = getattr(part, attribute)
            if isinstance(getattr(part, "pattern", None), str):
                found["pattern"] = part.pattern
    return found


def _bare_schema(tp: Any, seen: frozenset[Any]) -> dict[str, Any]:
    if tp is Any or tp is object:
        return {}
    if tp is None or tp is _NONE:
        return {"type": "null"}
    if _is_enum(tp):
        return _enum_schema(tp)
    if tp in _SIMPLE_TYPES:
        return {"type": _SIMPLE_TYPES[tp]}
    text_kind = _text_kind(tp)
    if text_kind is not None:
        return dict(text_kind.schema)  # a copy: a description or default is added to it
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return _literal_schema(args)
    if origin in (Union, types.UnionType):
        return _union_schema(args, seen)
    if tp in _ARRAY_TYPES or origin in _ARRAY_TYPES:
        return _array_schema(origin or tp, args, seen)
    if tp in _MAPPING_TYPES or origin in _MAPPING_TYPES:
        return _mapping_schema(args, seen)
    if _is_record(tp):
        if tp in seen:
            raise TypeError(f"{tp.__name__} contains itself: a recursive type has no JSON schema vero can write")
        return _record_schema(tp, seen | {tp})
    if _is_pydantic(tp):
        schema: dict[str, Any] = inline_refs(tp.model_json_schema())
        return schema
    raise TypeError(
        f"{_type_name(tp)} has no JSON form: use str, int, float, bool, Literal, an Enum, a date, datetime, time, "
        "Decimal, UUID or Path, a list, a dict with str keys, a dataclass, a TypedDict, a NamedTuple, a pydantic "
        "model, or a union of these"
    )


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or repr(tp)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of ``X | None`` given the schema of ``X``."""
    kind = schema.get("type")
    if isinstance(kind, str):
        nullable = {**schema, "type": [kind, "null"]}
        if "enum" in schema:
            nullable["enum"] = [*schema["enum"], None]
        return nullable
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    if not schema or set(schema) == {"description"}:
        return schema  # "any" already admits null
    return {"anyOf": [schema, {"type": "null"}]}


def _literal_schema(values: tuple[Any, ...]) -> dict[str, Any]:
    members = [value for value in values if isinstance(value, enum.Enum) or not is_json(value)]
    if members:  # Literal[Shade.DARK]: the JSON value would never be the member the function is promised
        raise TypeError(f"a Literal of {members[0]!r} has no JSON form: use the Enum type itself, or its values")
    kinds = {_SIMPLE_TYPES.get(type(v)) for v in values}
    if kinds == {"integer", "number"}:
        kinds = {"number"}
    schema: dict[str, Any] = {"enum": list(values)}
    if len(kinds) == 1 and None not in kinds:
        schema = {"type": kinds.pop(), **schema}
    return schema


def _enum_schema(tp: type[enum.Enum]) -> dict[str, Any]:
    """An Enum is offered as its members' values, like a ``Literal`` of them."""
    values = tuple(member.value for member in tp)
    if not values or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values):
        raise TypeError(
            f"the Enum {tp.__name__} cannot be a tool parameter: its members' values must be strings "
            f"or numbers (got {[member.value for member in tp]!r})"
        )
    return _literal_schema(values)


def _union_schema(args: tuple[Any, ...], seen: frozenset[Any]) -> dict[str, Any]:
    options = [a for a in args if a is not _NONE]
    schema = _schema(options[0], seen) if len(options) == 1 else {"anyOf": [_schema(a, seen) for a in options]}
    return _nullable(schema) if len(options) < len(args) else schema


def _array_schema(origin: Any, args: tuple[Any, ...], seen: frozenset[Any]) -> dict[str, Any]:
    if not args:
        return {"type": "array", "items": {}}  # any items: OpenAI refuses an array schema without "items"
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):  # tuple[int, str]: fixed length
        kinds = [_schema(a, seen) for a in args]  # each place's (as pydantic writes them); items: OpenAI asks for it
        distinct = [k for i, k in enumerate(kinds) if k not in kinds[:i]]
        items = distinct[0] if len(distinct) == 1 else {"anyOf": distinct}
        return {"type": "array", "prefixItems": kinds, "items": items, "minItems": len(args), "maxItems": len(args)}
    return {"type": "array", "items": _schema(args[0], seen)}


def _mapping_schema(args: tuple[Any, ...], seen: frozenset[Any]) -> dict[str, Any]:
    """A dict's schema; one whose keys are a few strings (a ``Literal`` of them, a str-valued Enum) lists them as its
    fields, none of them required, so a key it does not take is refused by name."""
    if not args:
        return {"type": "object"}
    values, keys = _schema(args[1], seen), _string_keys(unannotated(args[0])[0])
    if keys is None:
        return {"type": "object", "additionalProperties": values}
    return {"type": "object", "properties": {key: dict(values) for key in keys}, "additionalProperties": False}


def _string_keys(tp: Any) -> list[str] | None:
    """The keys a dict's key type allows: None for any string; a TypeError for keys that are no strings (JSON
    object keys are)."""
    if tp in (str, Any):
        return None
    keys = [m.value for m in tp] if _is_enum(tp) else typing.get_args(tp) if typing.get_origin(tp) is Literal else ()
    if not keys or not all(isinstance(key, str) for key in keys):
        raise TypeError(f"a dict with {_type_name(tp)} keys has no JSON form: JSON object keys are strings")
    return list(keys)


def _record_schema(tp: type, seen: frozenset[Any]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    fields = record_fields(tp)
    for field in fields:
        try:
            schema = _schema(field.hint, seen)
        except TypeError as exc:
            raise TypeError(f"{tp.__name__}.{field.name}: {exc}") from None
        if field.default is not dataclasses.MISSING:
            set_default(schema, field.default)
        properties[field.name] = schema
    schema = {
        "type": "object",
        "properties": properties,
        "required": [f.name for f in fields if f.required],
        "additionalProperties": False,
    }
    description = _own_docstring(tp)
    return {**schema, "description": description} if description else schema


def _own_docstring(tp: type) -> str:
    """The class's own docstring, on one line; not the one ``dataclass`` or ``NamedTuple`` writes."""
    doc = tp.__dict__.get("__doc__") or ""
    if not doc or doc.startswith(f"{tp.__name__}("):
        return ""
    return " ".join(doc.split())


def set_default(schema: dict[str, Any], default: Any) -> None:
    """Show ``default`` in ``schema``: a JSON copy (a mutable default the function changes does not change what the
    model is sent), an Enum member as its value, a set as a sorted list, a date or Decimal as its text.  A value of
    no JSON type (a dataclass, an ``object()`` sentinel) is not shown: its repr may hold a secret or an address."""
    default = default.value if isinstance(default, enum.Enum) else default
    if _text_kind(type(default)) is not None:
        schema["default"] = str(default)
        return
    default = sorted(default, key=repr) if isinstance(default, (set, frozenset)) else default
    try:
        if _plain_json(default):
            schema["default"] = json.loads(json.dumps(default))
    except RecursionError:  # a list that holds itself: not shown
        pass


def _plain_json(value: Any) -> bool:
    """A value of JSON's own types, as JSON writes it: a string, a finite number, a bool, None (a subclass too: a
    ``str`` Enum, a ``NamedTuple``), lists and str-keyed dicts of them."""
    if value is None or isinstance(value, (str, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_plain_json(item) for item in value)
    return isinstance(value, dict) and all(isinstance(key, str) and _plain_json(item) for key, item in value.items())


def is_json(value: Any) -> bool:
    try:
        json.dumps(value.value if isinstance(value, enum.Enum) else value, allow_nan=False)
        return True
    except (TypeError, ValueError):
        return False


MAX_INLINED_REFS = 500  # ``$ref``s written out per schema: a server's schema whose references fan out is not expanded


def inline_refs(
    schema: Any,
    definitions: dict[str, Any] | None = None,
    seen: frozenset[str] = frozenset(),
    left: list[int] | None = None,
) -> Any:
    """``schema`` with its local ``$ref``s written out and its ``$defs`` and ``title``s dropped.

    A tool's parameter schema sits inside the tool's own, where ``#/$defs/...`` would point
    nowhere; a reference to itself (a recursive model), one to nothing, and every one past ``MAX_INLINED_REFS``
    (``left``: how many may still be) become "any value".  Values (``default``, ``const``, ``enum``, ``examples``)
    are kept as they are.
    """
    left = [MAX_INLINED_REFS] if left is None else left
    if isinstance(schema, list):
        return [inline_refs(item, definitions, seen, left) for item in schema]
    if not isinstance(schema, dict):
        return schema
    found = [schema.get(key) for key in ("$defs", "definitions")]
    definitions = {**(definitions or {}), **{k: v for part in found if isinstance(part, dict) for k, v in part.items()}}
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/"):
        target = definitions.get(reference.rsplit("/", 1)[-1])
        left[0] -= 1
        if target is None or reference in seen or left[0] < 0:
            return {}
        if isinstance(target, bool):  # a definition that is true (anything) or false (nothing)
            return target
        beside = {k: v for k, v in schema.items() if k != "$ref"}  # a description next to the reference
        return inline_refs({**target, **beside}, definitions, seen | {reference}, left)
    written: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("$defs", "definitions", "title", "$schema"):
            continue
        if key == "discriminator" and isinstance(value, dict):  # its mapping's $refs point into the $defs dropped
            value = {name: part for name, part in value.items() if name != "mapping"}
        if key in ("default", "const", "enum", "examples") or not isinstance(value, (dict, list)):
            written[key] = value
        elif key == "properties" and isinstance(value, dict):
            written[key] = {name: inline_refs(part, definitions, seen, left) for name, part in value.items()}
        else:
            written[key] = inline_refs(value, definitions, seen, left)
    return written


def type_label(schema: dict[str, Any]) -> str:
    """A short human/model-readable name for a schema: ``integer``, ``array of string``, ``{x: integer}``..."""
    if "enum" in schema:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    named = next((k.label for k in _TEXT_KINDS if k.label and k.schema.items() <= schema.items()), None)
    if named:  # {"type": "string", "format": "date"}: a date
        return named
    options = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(options, list):
        return " or ".join(type_label(s) if isinstance(s, dict) else "any" if s else "nothing" for s in options)
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(type_label({**schema, "type": k}) for k in kind)
    places = schema.get("prefixItems")
    if kind == "array" and isinstance(places, list) and places and schema.get("maxItems") == len(places):
        return "[" + ", ".join(type_label(s) if isinstance(s, dict) else "any" for s in places) + "]"
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {type_label(schema['items'])}"
    if kind == "object" and isinstance(schema.get("properties"), dict) and schema["properties"]:
        required = schema.get("required", ())
        fields = (
            f"{name}{'' if name in required else '?'}: {type_label(part) if isinstance(part, dict) else 'any'}"
            for name, part in schema["properties"].items()
        )
        return "{" + ", ".join(fields) + "}"
    return kind or "any"


# --------------------------------------------------------------------------- simple values


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    kinds = {int: "integer", float: "number", WrittenNumber: "number", str: "string", list: "array", dict: "object"}
    return kinds.get(type(value), "")


def _parse_json_text(value: Any, wanted: type) -> Any:
    if EXACT.get() and isinstance(value, str) and re.search(r"\b(?:NaN|Infinity)\b", value):
        raise ValueError("NaN and Infinity are no numbers a tool that may change things takes")
    parsed = parse_json_value(value, repair=not EXACT.get()) if isinstance(value, str) else None
    if not isinstance(parsed, wanted):
        raise ValueError("not valid JSON")
    return parsed


# A number written as text is read only when it is plainly one: Python would also read "1e3" as 1000,
# "1_000" and "\u0661\u0660" as numbers, "1.000" (a thousand, in much of Europe) as 1, and "nan" or "inf":
# a value the model did not plainly write.
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def _exact_integer(text: str) -> int:
    """The whole number a JSON number's text writes (``1e30``, ``5.0``), else ``ValueError``: a fraction, or more
    digits than Python writes an int with (``1e999999999`` is no answer to read)."""
    try:
        _, digits, exponent = Decimal(text).as_tuple()
    except ArithmeticError:  # an exponent past what Decimal holds
        raise ValueError from None
    fraction = digits[len(digits) + exponent :] if isinstance(exponent, int) and exponent < 0 else ()
    if not isinstance(exponent, int) or any(fraction) or len(digits) + max(exponent, 0) > 4300:
        raise ValueError
    return int(Decimal(text))


def _to_integer(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, WrittenNumber):  # 1e30 exactly as written
        return _exact_integer(value.text)
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:  # a bare float only where exact
        return int(value)
    if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value.strip()):
        return int(value.strip())
    raise ValueError


def _to_boolean(value: Any) -> bool:
    flag = parse_bool(value)  # the same words as a verdict in model JSON
    exact = not EXACT.get() or isinstance(value, bool) or str(value).strip().lower() in ("true", "false")
    if flag is None or not exact:  # "pass", "y" or 1 switches nothing on for a tool that may change things
        raise ValueError
    return flag


def _to_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and not (EXACT.get() and isinstance(value, float))
    ):
        return str(value)  # a fraction is not its text as written (1.50 arrives as 1.5): only for a lookup
    raise ValueError


def _to_number(value: Any) -> float:
    """A number the model wrote; JSON's parser also reads ``NaN`` and ``Infinity``, which JSON has no
    numbers for (and ``to_dict`` could not write back): refused too."""
    if isinstance(value, bool) or (isinstance(value, str) and not _NUMBER_TEXT.fullmatch(value.strip())):
        raise ValueError
    number = float(value.strip() if isinstance(value, str) else value)
    whole = value if isinstance(value, int) else int(value) if isinstance(value, str) and value.isdigit() else None
    if EXACT.get() and whole is not None and number != whole:  # 9007199254740993 would run as ...992
        raise ValueError
    if EXACT.get() and isinstance(value, str) and Decimal(value.strip()) != Decimal(repr(number)):
        raise ValueError  # as text too: "2.9999999999999999" would run as 3.0, "-9007199254740993" as ...992
    if not math.isfinite(number):
        raise ValueError
    return number


def _to_null(value: Any) -> None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("null", "none")):
        return None
    raise ValueError


_SCALARS: dict[str, Callable[[Any], Any]] = {
    "string": _to_string,
    "integer": _to_integer,
    "number": _to_number,
    "boolean": _to_boolean,
    "null": _to_null,
}


def _short_repr(value: Any, limit: int = 60) -> str:
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # nested 100,000 deep; an int of over 4,300 digits
        return f"a {type(value).__name__} too large to show"
    return clip(text, limit, "...", within=True)


def _misfit(schema: dict[str, Any], value: Any) -> str:
    return f"expected {type_label(schema)}, got {_short_repr(value)}"


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


# --------------------------------------------------------------------------- checking a JSON schema


def coerce(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` converted to fit ``schema``; raises ``InvalidValue`` (a ValueError naming each problem)
    when it cannot be."""
    problems: list[Problem] = []
    result = check(value, schema, "", problems)
    if problems:
        raise InvalidValue(problems)
    return result


def check(value: Any, schema: dict[str, Any] | bool, path: str, problems: list[Problem]) -> Any:
    """``value`` converted to fit the JSON ``schema`` (plain JSON values); each misfit is added to
    ``problems`` with its path.

    Checked: ``type``, ``enum``, ``const``, ``anyOf`` (an option that fits), ``oneOf`` (exactly one), ``allOf``,
    an object's ``properties``/``required``/``additionalProperties`` and number of entries, an array's ``items``
    and length, a number's bounds and ``multipleOf``, a string's length and ``pattern``.  A schema may be
    ``true`` (any value fits) or ``false`` (none does), as JSON Schema allows anywhere a schema goes.
    """
    if isinstance(schema, bool):
        if not schema:
            problems.append((path, "expected no value here"))
        return value
    if isinstance(schema.get("allOf"), list):
        return _check_all_of(value, schema, path, problems)
    kind = schema.get("type")
    if isinstance(kind, list):
        return _check_any_of(value, [{**schema, "type": k} for k in kind], schema, path, problems)
    listed = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(listed, list):
        options = [o for o in listed if isinstance(o, (dict, bool))]
        return _check_any_of(value, options, schema, path, problems, only_one="anyOf" not in schema)
    if kind == "array":
        return _check_array(value, schema, path, problems)
    if kind == "object":
        return _check_object(value, schema, path, problems)
    try:
        value = _SCALARS[kind](value) if kind in _SCALARS else value  # no type: anything goes
    except (ValueError, TypeError, OverflowError):
        problems.append((path, _misfit(schema, value)))
        return None
    listed = [schema["const"]] if "const" in schema else schema.get("enum")
    if listed is not None and not any(value == v and isinstance(value, bool) == isinstance(v, bool) for v in listed):
        problems.append((path, _misfit(schema, value)))
        return value
    if not BOUND_KEYWORDS.isdisjoint(schema):  # (looked up first: most values have no bounds)
        out_of_bounds = _bounds_problem(value, schema)
        if out_of_bounds:
            problems.append((path, out_of_bounds))
    return value


def _check_all_of(value: Any, schema: dict[str, Any], path: str, problems: list[Problem]) -> Any:
    """A value that must fit every part of ``allOf`` (and the keywords beside it), each in turn."""
    beside = {key: part for key, part in schema.items() if key != "allOf"}
    for part in [beside, *schema["allOf"]]:
        if isinstance(part, (dict, bool)):
            value = check(value, part, path, problems)
    return value


BOUND_KEYWORDS = frozenset(
    ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern")
)
_NUMBER_BOUNDS: tuple[tuple[str, Callable[[Any, Any], bool], str], ...] = (
    ("minimum", lambda value, bound: value >= bound, "at least"),
    ("maximum", lambda value, bound: value <= bound, "at most"),
    ("exclusiveMinimum", lambda value, bound: value > bound, "more than"),
    ("exclusiveMaximum", lambda value, bound: value < bound, "less than"),
    ("multipleOf", lambda value, step: step <= 0 or Fraction(repr(value)) % Fraction(repr(step)) == 0, "a multiple of"),
)


def _bounds_problem(value: Any, schema: dict[str, Any]) -> str:
    """What is wrong with a number's size or a string's length or form, per the schema; "" if nothing."""
    if _is_number(value) or isinstance(value, Decimal):
        for keyword, fits, words in _NUMBER_BOUNDS:
            bound = schema.get(keyword)
            if _is_number(bound) and not fits(value, Decimal(repr(bound)) if isinstance(value, Decimal) else bound):
                return f"expected {words} {bound}, got {value}"
    if not isinstance(value, str):
        return ""
    if _is_number(schema.get("minLength")) and len(value) < schema["minLength"]:
        return f"expected at least {schema['minLength']} characters, got {len(value)}"
    if _is_number(schema.get("maxLength")) and len(value) > schema["maxLength"]:
        return f"expected at most {schema['maxLength']} characters, got {len(value)}"
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and not _matches(pattern, value):
        return f"expected text matching {pattern}, got {_short_repr(value)}"
    return ""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _matches(pattern: str, text: str) -> bool:
    """Whether ``text`` matches a JSON Schema ``pattern`` (anywhere, as JSON Schema says); a pattern
    Python's ``re`` cannot read is not held against the value."""
    try:
        return re.search(pattern, text) is not None
    except (re.error, OverflowError, RecursionError):  # a{4294967296}: no pattern to check against
        return True


def _check_any_of(
    value: Any,
    options: list[dict[str, Any] | bool],
    schema: dict[str, Any],
    path: str,
    problems: list[Problem],
    only_one: bool = False,
) -> Any:
    """The value as the first option that fits reads it; with ``only_one`` (``oneOf``), a value that more
    than one option fits is a misfit.  Options that take it unconverted count first: "5" fits ``string``
    as it is and ``integer`` only once read as 5, so it fits one.  A value no option fits is told what is
    wrong with the one option of its own JSON type, if there is one."""
    kind = _json_type(value)
    fits: list[Any] = []
    same_kind: list[tuple[dict[str, Any] | bool, list[Problem]]] = []  # each option of the value's type, its problems
    for option in sorted(options, key=lambda o: _type_of(o) != kind):  # exact type first
        attempt: list[Problem] = []
        result = check(value, option, path, attempt)
        if attempt:
            same_kind += [(option, attempt)] if _type_of(option) == kind else []
            continue
        if not only_one:
            return result
        fits.append(result)
    as_is = [r for r in fits if r == value and isinstance(r, bool) == isinstance(value, bool)]
    fits = as_is or fits
    if len(fits) == 1:
        return fits[0]
    if fits:
        many = f"expected exactly one of {type_label(schema)}, got {_short_repr(value)}, which matches more than one"
        problems.append((path, many))
    else:  # one option of its type (an object for ``Size | None``), or the one its tag picks: its problems, by field
        picked = same_kind if len(same_kind) == 1 else [(o, a) for o, a in same_kind if _tagged(o, value)]
        problems.extend(picked[0][1] if len(picked) == 1 else [(path, _misfit(schema, value))])
    return None


def _type_of(schema: dict[str, Any] | bool) -> Any:
    """A schema's ``type``; none for ``true`` and ``false``."""
    return schema.get("type") if isinstance(schema, dict) else None


def _check_array(value: Any, schema: dict[str, Any], path: str, problems: list[Problem]) -> Any:
    """An array's items, each by its place's schema (``prefixItems``, as pydantic writes a tuple's) or ``items``
    (``false``: no more items); ``uniqueItems`` (a set's) checked on the items as read, 1 and 1.0 alike."""
    items = _as_list(value, schema, path, problems)
    if items is None:
        return None
    placed, inner = schema.get("prefixItems") or [], schema.get("items")
    schemas = [*placed, *[inner] * (len(items) - len(placed))] if isinstance(placed, list) else [inner] * len(items)
    problems += [
        (_join(path, i), "expected no item here") for i, part in enumerate(schemas[: len(items)]) if part is False
    ]
    read = [
        check(v, part, _join(path, i), problems) if isinstance(part, dict) else v
        for i, (v, part) in enumerate(zip(items, schemas))
    ]
    unique = schema.get("uniqueItems") is True  # read as JSON only when asked: most arrays are not
    if unique and len({json.dumps(_integral(v), sort_keys=True, default=str) for v in read}) < len(read):
        problems.append((path, f"expected items that differ from each other, got {_short_repr(value)}"))
    return read


def _integral(value: Any) -> Any:
    """``value`` with its whole floats as ints (1.0 as 1, not True): JSON Schema's equality, for ``uniqueItems``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    return [_integral(item) for item in value] if isinstance(value, list) else value


def _as_list(value: Any, schema: dict[str, Any], path: str, problems: list[Problem]) -> list[Any] | None:
    """The items of an array value (or of a JSON text of one) of the schema's length; None if it is none."""
    try:
        items = list(value) if isinstance(value, (list, tuple)) else _parse_json_text(value, list)
    except ValueError:
        problems.append((path, _misfit(schema, value)))
        return None
    if not _fits_length(items, schema):
        problems.append((path, f"expected {_length_text(schema)}, got {len(items)}"))
        return None
    return items


def _fits_length(items: list[Any], schema: dict[str, Any]) -> bool:
    low, high = schema.get("minItems", 0), schema.get("maxItems", len(items))
    return bool(low <= len(items) <= high)


def _length_text(schema: dict[str, Any]) -> str:
    low, high = schema.get("minItems"), schema.get("maxItems")
    if low == high:
        return f"{low} items"
    if high is None:
        return f"at least {low} items"
    return f"at most {high} items" if low is None else f"{low}-{high} items"


UNEXPECTED_FIELD = "unexpected field"


def _check_object(value: Any, schema: dict[str, Any], path: str, problems: list[Problem]) -> Any:
    try:
        obj = value if isinstance(value, dict) else _parse_json_text(value, dict)
    except ValueError:
        problems.append((path, _misfit(schema, value)))
        return None
    properties: dict[str, Any] = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
    extra = schema.get("additionalProperties")
    result: dict[str, Any] = {}
    for key, item in obj.items():
        if key in properties:
            result[key] = check(item, properties[key], _join(path, key), problems)
        elif isinstance(extra, dict):
            result[key] = check(item, extra, _join(path, key), problems)
        elif extra is False:  # an object with no fields allows none
            allowed = f"the fields: {', '.join(properties)}" if properties else "no fields are allowed"
            problems.append((_join(path, key), f"{UNEXPECTED_FIELD} ({allowed})"))
        else:
            result[key] = item
    for name in schema.get("required", ()):
        if name not in obj:
            problems.append((_join(path, name), "required, missing"))
    fewest, most = schema.get("minProperties"), schema.get("maxProperties")  # pydantic's Field(max_length=) of a dict
    if isinstance(fewest, int) and len(obj) < fewest:
        problems.append((path, f"expected at least {fewest} entries, got {len(obj)}"))
    if isinstance(most, int) and len(obj) > most:
        problems.append((path, f"expected at most {most} entries, got {len(obj)}"))
    return result


# --------------------------------------------------------------------------- standard-library values written as text


def _from_iso(tp: Any, value: Any) -> Any:
    """A date, datetime or time from its ISO 8601 text; a trailing ``Z`` (UTC) too, which Python 3.10 does not read."""
    if not isinstance(value, str):
        raise ValueError
    text = value.strip()
    if issubclass(tp, (datetime.datetime, datetime.time)) and text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    return tp.fromisoformat(text)


def _to_uuid(tp: Any, value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError
    return tp(value.strip())


def _to_path(tp: Any, value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():  # Path("") would be ".": a path nobody wrote
        raise ValueError
    return tp(value)


def _to_decimal(tp: Any, value: Any) -> Any:
    """A JSON number as the text it was written as (``0.1``, not the float's ``0.1000000000000000055...``;
    a tool that may change things only gets numbers a float holds exactly), or a number's plain text;
    NaN and Infinity, ``1,5`` and ``1e3`` as text are refused, as for a ``float``."""
    if isinstance(value, WrittenNumber):
        return tp(value.text)  # every digit: 12345678901234567890.123456789
    if _is_number(value) and math.isfinite(value):
        return tp(repr(value))
    if isinstance(value, str) and _NUMBER_TEXT.fullmatch(value.strip()):
        return tp(value.strip())
    raise ValueError


class _TextKind(typing.NamedTuple):
    """A standard-library type that JSON writes as text: its schema, its name in ``type_label`` ("" to keep the
    schema's own), what a misfit is told is expected, and how the text becomes the value (``parse(tp, value)``)."""

    type: type
    schema: dict[str, Any]
    label: str
    expected: str
    parse: Callable[[Any, Any], Any]


# Values JSON has no type for, offered as pydantic offers them (JSON Schema string formats, which models know; a
# Decimal as a number or its text, as models write amounts) and given to the function as the Python value.  Without
# them ``def book(day: date)`` could not be a tool.  A datetime before a date: it is one.
_TEXT_KINDS = (
    _TextKind(
        datetime.datetime,
        {"type": "string", "format": "date-time"},
        "date-time",
        "a date and time as YYYY-MM-DDTHH:MM:SS (ISO 8601, with an optional offset or Z)",
        _from_iso,
    ),
    _TextKind(datetime.date, {"type": "string", "format": "date"}, "date", "a date as YYYY-MM-DD", _from_iso),
    _TextKind(datetime.time, {"type": "string", "format": "time"}, "time", "a time as HH:MM[:SS]", _from_iso),
    _TextKind(uuid.UUID, {"type": "string", "format": "uuid"}, "uuid", "a UUID", _to_uuid),
    _TextKind(pathlib.PurePath, {"type": "string"}, "", "a path", _to_path),
    _TextKind(
        Decimal,
        {"type": ["number", "string"], "pattern": f"^{_NUMBER_TEXT.pattern}$"},
        "decimal",
        'a decimal number (12.5 or "12.50")',
        _to_decimal,
    ),
)


def _text_kind(tp: Any) -> _TextKind | None:
    if not isinstance(tp, type):
        return None
    return next((kind for kind in _TEXT_KINDS if issubclass(tp, kind.type)), None)


def _convert_text(value: Any, hint: Any, tp: Any, kind: _TextKind, path: str, problems: list[Problem]) -> Any:
    """``value`` as the standard-library type ``tp`` (already one, from Python code: as it is); a number's
    bounds (``Annotated[Decimal, Field(gt=0)]``) checked too."""
    try:
        result = value if isinstance(value, tp) else kind.parse(tp, value)
    except (ValueError, TypeError, ArithmeticError):
        problems.append((path, f"expected {kind.expected}, got {_short_repr(value)}"))
        return None
    if typing.get_origin(hint) is typing.Annotated:
        out_of_bounds = _bounds_problem(result if isinstance(result, Decimal) else value, type_to_schema(hint))
        if out_of_bounds:
            problems.append((path, out_of_bounds))
            return None
    return result


# --------------------------------------------------------------------------- converting to a Python type


def convert(value: Any, tp: Any, path: str = "") -> Any:
    """``value`` (JSON, as a model wrote it) as the type hint ``tp`` asks for; raises ``InvalidValue``
    naming every problem, so nothing half-filled is ever returned."""
    problems: list[Problem] = []
    result = convert_into(value, tp, path, problems)
    if problems:
        raise InvalidValue(problems)
    return result


def convert_into(value: Any, tp: Any, path: str, problems: list[Problem]) -> Any:
    """``convert``, adding each problem to ``problems`` (the result is then meaningless)."""
    if _pydantic_metadata(tp):
        return _validated_by_pydantic(value, tp, path, problems)
    hint = tp  # with its Annotated constraints, which a simple value or a list is checked against
    tp, _ = unannotated(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if _is_pydantic(tp):
        return _convert_pydantic(value, tp, path, problems)
    if _is_record(tp):
        return _convert_record(value, tp, path, problems)
    text_kind = _text_kind(tp)
    if text_kind is not None:
        return _convert_text(value, hint, tp, text_kind, path, problems)
    if origin in (Union, types.UnionType) and not all(_is_leaf(a) for a in args):
        return _convert_union(value, tp, args, path, problems)
    if tp in _ARRAY_TYPES or origin in _ARRAY_TYPES:
        return _convert_array(value, hint, origin or tp, args, path, problems)
    if (tp in _MAPPING_TYPES or origin in _MAPPING_TYPES) and args:
        items = check(value, _mapping_schema((args[0], Any), frozenset()), path, problems)  # keys checked
        keys = unannotated(args[0])[0]
        return {
            _as_member(k, keys): convert_into(v, args[1], _join(path, k), problems) for k, v in (items or {}).items()
        }
    before = len(problems)
    result = check(value, type_to_schema(hint), path, problems)  # a simple value: read leniently
    return _as_member(result, tp) if len(problems) == before else None


def needs_building(tp: Any) -> bool:
    """True when a valid JSON value of the hint ``tp`` is not yet the Python value it asks for (a
    dataclass, an Enum member, a tuple, one a pydantic validator may change...): ``convert``; else checking it
    against its schema will do."""
    if _pydantic_metadata(tp):
        return True
    tp, _ = unannotated(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if _is_leaf(tp) and not _is_enum(tp):
        return False
    if origin in (Union, types.UnionType, list):
        return any(needs_building(a) for a in args)
    if tp in (list, dict) or origin is dict:
        return len(args) == 2 and (needs_building(args[1]) or _is_enum(unannotated(args[0])[0]))
    return True


def _is_leaf(tp: Any) -> bool:
    """A hint checked by its schema alone: a simple value, a Literal, an Enum, None or Any (not one with pydantic's
    validators, which run: ``Annotated[str, AfterValidator(f)] | None``)."""
    if _pydantic_metadata(tp):
        return False
    tp, _ = unannotated(tp)
    return tp in (Any, object, None, _NONE) or tp in _SIMPLE_TYPES or _is_enum(tp) or typing.get_origin(tp) is Literal


def _as_member(value: Any, tp: Any) -> Any:
    """A valid value of a leaf hint as the function gets it: an Enum value as its member."""
    if _is_enum(tp):
        return tp(value)
    for option in (a for a in typing.get_args(tp) if _is_enum(a)):  # Color | None, Color | int
        try:
            return option(value)
        except ValueError:
            continue
    return value


def _convert_union(value: Any, tp: Any, args: tuple[Any, ...], path: str, problems: list[Problem]) -> Any:
    options = [a for a in args if a is not _NONE]
    if value is None and len(options) < len(args):
        return None
    if len(options) == 1:  # X | None: X's own problems, with their paths
        return convert_into(value, options[0], path, problems)
    kind, tagged = _json_type(value), []
    for option in sorted(options, key=lambda o: _schema_kind(o) != kind):  # the option of the value's kind first
        attempt: list[Problem] = []
        result = convert_into(value, option, path, attempt)
        if not attempt:
            return result
        tagged += [attempt] if _tagged(type_to_schema(option), value) else []
    problems.extend(tagged[0] if len(tagged) == 1 else [(path, _misfit(type_to_schema(tp), value))])
    return None


def _tagged(schema: dict[str, Any] | bool, value: Any) -> bool:
    """Whether the object ``value`` carries the tag of the object ``schema``: a field it allows one value for
    (``kind: Literal["card"]``), with that value; the union's option it picked is then the one to name problems of."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(value, dict) or not isinstance(properties, dict):
        return False
    for name, part in properties.items():
        only = ([part["const"]] if "const" in part else part.get("enum")) if isinstance(part, dict) else None
        if isinstance(only, list) and len(only) == 1 and name in value and value[name] == only[0]:
            return True
    return False


def _schema_kind(tp: Any) -> Any:
    return type_to_schema(tp).get("type")


def _convert_array(value: Any, tp: Any, origin: Any, args: tuple[Any, ...], path: str, problems: list[Problem]) -> Any:
    items = _as_list(value, type_to_schema(tp), path, problems)
    if items is None:
        return None
    fixed = origin is tuple and bool(args) and not (len(args) == 2 and args[1] is Ellipsis)
    hints = args if fixed else [args[0] if args else Any] * len(items)
    converted = [convert_into(v, hint, _join(path, i), problems) for i, (v, hint) in enumerate(zip(items, hints))]
    container = origin if origin in (list, tuple, set, frozenset) else list
    try:
        return container(converted)
    except TypeError:  # a set of unhashable items (dicts)
        problems.append((path, "the items cannot be put in a set (they are not hashable)"))
        return None


def _convert_record(value: Any, tp: type, path: str, problems: list[Problem]) -> Any:
    fields = record_fields(tp)
    if _is_named_tuple(tp) and isinstance(value, (list, tuple)) and len(value) == len(fields):
        value = dict(zip((f.name for f in fields), value))  # a NamedTuple may come as its tuple
    try:
        obj = value if isinstance(value, dict) else _parse_json_text(value, dict)
    except ValueError:
        problems.append((path, _misfit(type_to_schema(tp), value)))  # the fields it wants, by name
        return None
    before = len(problems)
    names = [f.name for f in fields]
    for key in obj:
        if key not in names:
            problems.append((_join(path, key), f"{UNEXPECTED_FIELD} (the fields of {tp.__name__}: {', '.join(names)})"))
    values: dict[str, Any] = {}
    for field in fields:
        if field.name in obj and obj[field.name] is None and field.default is None:
            values[field.name] = None  # `x: T = None`: null is its default, whatever T is
        elif field.name in obj:
            values[field.name] = convert_into(obj[field.name], field.hint, _join(path, field.name), problems)
        elif field.required:
            problems.append((_join(path, field.name), "required, missing"))
    if len(problems) > before:
        return None  # never a half-filled object
    if _is_typed_dict(tp):
        return values
    try:
        return tp(**values)
    except Exception as exc:  # the class's own check (__post_init__) refused the values
        problems.append((path, f"{tp.__name__} refused the values: {exc}"))
        return None


def _closed(schema: Any) -> Any:
    """``schema`` with ``additionalProperties: false`` on each object that does not say: a pydantic model drops
    a field it does not know (``extra="ignore"``), so a field the model wrote would never reach the tool."""
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {key: _closed(item) for key, item in schema.items()}
    if isinstance(schema.get("properties"), dict) and "additionalProperties" not in schema:
        closed["additionalProperties"] = False
    return closed


def _reads_fields_its_own_way(model: Any) -> bool:
    """A pydantic model whose author chose how its fields are read (``extra=`` set, e.g. "ignore" to take a
    model's extra fields in stride; names besides aliases; alias choices): vero leaves unknown fields to it."""
    config = model.model_config
    by_name = config.get("populate_by_name") or config.get("validate_by_name")
    return "extra" in config or bool(by_name) or any(f.validation_alias for f in model.model_fields.values())


def _pydantic_metadata(tp: Any) -> list[Any]:
    """What ``Annotated[T, ...]`` holds of pydantic's own beyond a ``Field``'s constraints, which vero reads: a
    validator (``AfterValidator(f)``), a string's transform (``StringConstraints(to_lower=True)``)."""
    if typing.get_origin(tp) is not typing.Annotated:
        return []
    return [
        item
        for item in tp.__metadata__
        if type(item).__module__.split(".")[0] == "pydantic" and not type(item).__name__ == "FieldInfo"
    ]


def _validated_by_pydantic(value: Any, hint: Any, path: str, problems: list[Problem]) -> Any:
    """``value`` read as vero reads the hint without pydantic's validators, then given to them (pydantic's
    ``TypeAdapter``), as pydantic-ai runs them: what they return is what the tool gets; what they raise, a problem."""
    own = [item for item in hint.__metadata__ if item not in _pydantic_metadata(hint)]
    found = len(problems)
    read_by_vero = typing.Annotated[(hint.__origin__,) + tuple(own)] if own else hint.__origin__
    value = convert_into(value, read_by_vero, path, problems)
    if len(problems) > found:
        return None
    pydantic = sys.modules["pydantic"]
    try:
        return pydantic.TypeAdapter(hint).validate_python(value)
    except pydantic.ValidationError as exc:
        problems += [(path, f"{error.get('msg', 'invalid')}, got {_short_repr(value)}") for error in exc.errors()]
    except Exception as exc:  # a validator that raised something else
        problems.append((path, f"refused by its validator: {exc}"))
    return None


def _convert_pydantic(value: Any, tp: Any, path: str, problems: list[Problem]) -> Any:
    if isinstance(value, str):
        try:
            value = _parse_json_text(value, dict)
        except ValueError:
            problems.append((path, _misfit({"type": "object"}, value)))
            return None
    pydantic = sys.modules["pydantic"]
    found, schema = len(problems), _closed(type_to_schema(tp))
    if EXACT.get():  # pydantic's lax reading ("1_000", "nan", "t") is no plain value: vero's own check first
        check(value, schema, path, problems)
    elif not _reads_fields_its_own_way(tp):  # a lookup keeps pydantic's reading of the values, but not its silence
        strict: list[Problem] = []  # on a field it drops (``ctegory``)
        check(value, schema, path, strict)
        problems += [problem for problem in strict if problem[1].startswith(UNEXPECTED_FIELD)]
    named = {where for where, _ in problems[found:]}
    try:  # pydantic names the rest (its validators, its parsing), where vero's check did not: all in one reply
        model = tp.model_validate(value)
        return model if len(problems) == found else None
    except pydantic.ValidationError as exc:
        for error in exc.errors():
            where = path
            for part in error.get("loc", ()):
                where = _join(where, part)
            if where not in named:
                problems.append((where, f"{error.get('msg', 'invalid')}, got {_short_repr(error.get('input'))}"))
    except Exception as exc:  # a validator of the model's own that raised something else
        problems.append((path, f"{tp.__name__} refused the values: {exc}"))
    return None


# -- a JSON Schema given as the output type: what vero cannot check as written ------------------------------
JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
_DRAFT4 = ("exclusiveMinimum", "exclusiveMaximum")  # true beside minimum in draft 4 (and OpenAPI 3.0)
_NUMERIC_KEYWORDS = (
    "minimum maximum exclusiveMinimum exclusiveMaximum multipleOf minLength maxLength minItems maxItems".split()
)


# JSON Schema's keywords that check a value and that ``check`` does not read: a schema with one is refused
_UNCHECKED = frozenset(
    "not if then else dependentRequired dependentSchemas dependencies propertyNames contains minContains maxContains "
    "unevaluatedProperties unevaluatedItems patternProperties additionalItems $dynamicRef $recursiveRef".split()
)


def schema_problems(schema: Any, where: str = "$", depth: int = 0, defined: frozenset[str] = frozenset()) -> list[str]:
    """Each keyword of ``schema``, and of the schemas inside it, that says what vero cannot check: a keyword
    ``check`` does not read (``not``, ``if``...), a ``$ref`` to no definition of the schema's (``defined``: the
    names under ``$defs`` and ``definitions`` so far), a ``type`` JSON Schema has not, a ``pattern`` that is no
    regular expression, a bound that is no number (``"minimum": "5"``).  Such a schema given as the output type
    would leave the answer unchecked where it says to check it."""
    if not isinstance(schema, dict) or depth > 50:
        return []
    found = [schema.get(key) for key in ("$defs", "definitions")]
    defined = defined | {name for names in found if isinstance(names, dict) for name in names}
    problems = _unread(schema, where, defined)
    kinds = schema.get("type", [])
    problems += [
        f"{where}: type {kind!r} is none of JSON Schema's"
        for kind in (kinds if isinstance(kinds, list) else [kinds])
        if not isinstance(kind, str) or kind not in JSON_TYPES
    ]
    if "pattern" in schema and not _is_pattern(schema["pattern"]):
        problems.append(
            f"{where}: pattern {schema['pattern']!r} is no regular expression Python reads: vero could not check it"
        )
    for key in _NUMERIC_KEYWORDS:
        value = schema.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):  # NaN too
            hint = f' (draft 4\'s true: write the bound, "{key}": 5)' if key in _DRAFT4 and value is True else ""
            problems.append(f"{where}: {key} {value!r} is no number{hint}")
    if schema.get("enum", [None]) == []:
        problems.append(f"{where}: enum lists no value: no answer could fit it")
    for key in ("maxLength", "maxItems", "maxProperties"):
        if _is_number(schema.get(key)) and schema[key] < 0:
            problems.append(f"{where}: {key} {schema[key]!r} is below 0: no answer could fit it")
    for key, inner in _subschemas(schema):
        problems += schema_problems(inner, f"{where}.{key}", depth + 1, defined)
    return problems


def _unread(schema: dict[str, Any], where: str, defined: frozenset[str]) -> list[str]:
    """What ``check`` would not read in ``schema`` itself: its keywords of ``_UNCHECKED``, draft 4's ``items`` list,
    and a ``$ref`` that is not to one of the schema's definitions (``defined``: the names of the ``inline_refs``)."""
    problems = [
        f"{where}: vero does not check {key!r}: write the schema without it"
        for key in sorted(_UNCHECKED & schema.keys())
    ]
    if schema.get("nullable") is True:  # OpenAPI's word (false says what JSON Schema says without it)
        kind = schema.get("type", "string")
        problems.append(f'{where}: vero does not read OpenAPI\'s nullable: write "type": [{json.dumps(kind)}, "null"]')
    if isinstance(schema.get("items"), list):
        problems.append(
            f"{where}: items as a list (draft 4's tuples) is not checked: give items one schema for every item"
        )
    reference = schema.get("$ref")
    local = isinstance(reference, str) and reference.startswith("#/") and reference.rsplit("/", 1)[-1] in defined
    if reference is not None and not local:
        problems.append(f"{where}: $ref {reference!r} points to no definition in the schema: vero could not check it")
    return problems


def _subschemas(schema: dict[str, Any]) -> collections.abc.Iterator[tuple[str, Any]]:
    """``(path, schema)`` of the schemas ``schema`` holds: under properties and $defs by name, items and the
    combinators by place, additionalProperties and not."""
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        named = schema.get(key)
        yield from ((f"{key}.{name}", inner) for name, inner in named.items()) if isinstance(named, dict) else ()
    for key in ("items", "prefixItems", "anyOf", "oneOf", "allOf", "additionalProperties", "not"):
        inner = schema.get(key)
        yield from (
            ((f"{key}[{i}]", item) for i, item in enumerate(inner)) if isinstance(inner, list) else [(key, inner)]
        )


def _is_pattern(pattern: Any) -> bool:
    try:
        re.compile(pattern)
    except (re.error, TypeError, OverflowError, RecursionError):  # a{4294967296}, parentheses nested a thousand deep
        return False
    return True
