"""``@tool``: turn a typed Python function into something a model can call.

The JSON schema comes from the type hints, the descriptions from the docstring
(a Google-style ``Args:`` section), so a tool is written once, as a normal
function.  ``Tool.validate`` coerces the loose arguments models produce
(``"3"`` for an int, a JSON string for a list) and says precisely what is wrong
when they cannot be used.  A ``Literal`` or ``enum.Enum`` parameter lists its
allowed values in the schema (an Enum's member values), and an Enum argument
reaches the function as the member.
"""

from __future__ import annotations

import enum
import functools
import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union, overload

from vero.core.parsing import parse_bool, parse_json_value
from vero.core.text import clip

_SECTION = re.compile(r"^(Args|Arguments|Parameters|Params|Returns?|Raises|Yields?|Examples?|Notes?):\s*$")
_ARG_LINE = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SIMPLE_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}
_ARRAY_TYPES = (list, tuple, set, frozenset)


class ToolArgumentError(ValueError):
    """The arguments given to a tool cannot be used; the message says why."""


# --------------------------------------------------------------------------- docstrings


_VALID_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into its summary and the ``Args:`` descriptions.

    The summary is everything before the first section header, with whitespace
    collapsed so it fits on one line of a prompt.
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    section = None
    arg_indent = None
    current = None
    for line in lines:
        header = _SECTION.match(line)
        if header:
            section, arg_indent, current = header.group(1), None, None
            continue
        if section is None:
            summary.append(line)
        elif section in ("Args", "Arguments", "Parameters", "Params") and line.strip():
            indent = len(line) - len(line.lstrip())
            if indent == 0:  # back at column 0 without a header: the section is over
                section = ""
                continue
            arg_indent = indent if arg_indent is None else arg_indent
            match = _ARG_LINE.match(line.strip()) if indent <= arg_indent else None
            if match:
                current = match.group(1)
                args[current] = match.group(2).strip()
            elif current:  # a continuation line of the current argument
                args[current] = f"{args[current]} {line.strip()}".strip()
    return " ".join(" ".join(summary).split()), args


# --------------------------------------------------------------------------- schemas


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of ``X | None`` given the schema of ``X``."""
    kind = schema.get("type")
    if isinstance(kind, str):
        nullable = {**schema, "type": [kind, "null"]}
        if "enum" in schema:
            nullable["enum"] = [*schema["enum"], None]
        return nullable
    if "anyOf" in schema:
        return {"anyOf": [*schema["anyOf"], {"type": "null"}]}
    return schema  # "any" already admits null


def _literal_schema(values: tuple[Any, ...]) -> dict[str, Any]:
    kinds = {_SIMPLE_TYPES.get(type(v)) for v in values}
    if kinds == {"integer", "number"}:
        kinds = {"number"}
    schema: dict[str, Any] = {"enum": list(values)}
    if len(kinds) == 1 and None not in kinds:
        schema = {"type": kinds.pop(), **schema}
    return schema


def _is_enum(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, enum.Enum)


def _enum_schema(tp: type[enum.Enum]) -> dict[str, Any]:
    """An Enum is offered as its members' values, like a ``Literal`` of them."""
    values = tuple(member.value for member in tp)
    if not values or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values):
        raise TypeError(
            f"the Enum {tp.__name__} cannot be a tool parameter: its members' values must be strings "
            f"or numbers (got {[member.value for member in tp]!r})"
        )
    return _literal_schema(values)


def type_to_schema(tp: Any) -> dict[str, Any]:
    """JSON schema for a Python type hint (unknown types are treated as strings)."""
    if _is_enum(tp):
        return _enum_schema(tp)
    if tp is Any:
        return {}
    if tp is None or tp is type(None):
        return {"type": "null"}
    if tp in _SIMPLE_TYPES:
        return {"type": _SIMPLE_TYPES[tp]}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return _literal_schema(args)
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            schema = type_to_schema(options[0])
        else:
            schema = {"anyOf": [type_to_schema(a) for a in options]}
        return _nullable(schema) if len(options) < len(args) else schema
    if tp in _ARRAY_TYPES or origin in _ARRAY_TYPES:
        if args and (len(args) == 1 or args[-1] is Ellipsis):  # list[X], tuple[X, ...]
            return {"type": "array", "items": type_to_schema(args[0])}
        return {"type": "array"}
    if tp is dict or origin is dict:
        if len(args) == 2:  # dict[str, X]
            return {"type": "object", "additionalProperties": type_to_schema(args[1])}
        return {"type": "object"}
    return {"type": "string"}


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(func)
    except Exception:  # unresolvable forward references: use what is there
        return {k: v for k, v in getattr(func, "__annotations__", {}).items() if not isinstance(v, str)}


def function_parameters(func: Callable[..., Any], arg_docs: dict[str, str] | None = None) -> dict[str, Any]:
    """The ``parameters`` JSON schema object of a function's signature."""
    hints, arg_docs = _type_hints(func), arg_docs or {}
    properties: dict[str, dict[str, Any]] = {}
    required: list[str] = []
    accepts_extra = False
    for param in inspect.signature(func).parameters.values():
        if param.kind is param.VAR_KEYWORD:
            accepts_extra = True
            continue
        if param.kind is param.VAR_POSITIONAL:
            continue
        schema = type_to_schema(hints.get(param.name, Any))  # unannotated: any JSON value, unconverted
        if param.name in arg_docs:
            schema["description"] = arg_docs[param.name]
        if param.default is param.empty:
            required.append(param.name)
        else:
            default = param.default.value if isinstance(param.default, enum.Enum) else param.default
            schema["default"] = default if _is_json(default) else repr(default)
        properties[param.name] = schema
    parameters: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if not accepts_extra:
        parameters["additionalProperties"] = False
    return parameters


def _positional_only(func: Callable[..., Any]) -> list[tuple[str, Any]]:
    """(name, default) of each positional-only parameter of ``func``, in order."""
    return [(p.name, p.default) for p in inspect.signature(func).parameters.values() if p.kind is p.POSITIONAL_ONLY]


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def type_label(schema: dict[str, Any]) -> str:
    """A short human/model-readable name for a schema: ``integer``, ``array of string``..."""
    if "enum" in schema:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(type_label(s) for s in schema["anyOf"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(type_label({**schema, "type": k}) for k in kind)
    if kind == "array" and "items" in schema:
        return f"array of {type_label(schema['items'])}"
    return kind or "any"


# --------------------------------------------------------------------------- coercion


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {int: "integer", float: "number", str: "string", list: "array", dict: "object"}.get(type(value), "")


def _parse_json_text(value: str, wanted: type) -> Any:
    parsed = parse_json_value(value)
    if not isinstance(parsed, wanted):
        raise ValueError("not valid JSON")
    return parsed


# A number written as text is read only when it is plainly one: Python would also read "1e3" as 1000,
# "1_000" and "\u0661\u0660" as numbers, "1.000" (a thousand, in much of Europe) as 1, and "nan" or "inf":
# a value the model did not plainly write.
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def _to_integer(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value.strip()):
        return int(value.strip())
    raise ValueError


def _to_boolean(value: Any) -> bool:
    flag = parse_bool(value)  # the same words as a verdict in model JSON
    if flag is None:
        raise ValueError
    return flag


def _to_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ValueError


def _to_number(value: Any) -> float:
    if isinstance(value, bool) or (isinstance(value, str) and not _NUMBER_TEXT.fullmatch(value.strip())):
        raise ValueError
    return float(value.strip() if isinstance(value, str) else value)


def coerce(value: Any, schema: dict[str, Any]) -> Any:
    """Return ``value`` converted to fit ``schema``; raise ValueError (naming the
    expected type) when it cannot be."""
    kind = schema.get("type")
    if isinstance(kind, list) or "anyOf" in schema:
        options = [{**schema, "type": k} for k in kind] if isinstance(kind, list) else schema["anyOf"]
        return _coerce_any_of(value, options, schema)
    try:
        value = _coerce_kind(value, kind, schema)
    except (ValueError, TypeError, OverflowError):
        raise ValueError(f"expected {type_label(schema)}, got {_short_repr(value)}") from None
    if "enum" in schema and value not in schema["enum"]:
        raise ValueError(f"expected {type_label(schema)}, got {_short_repr(value)}")
    return value


def _coerce_kind(value: Any, kind: str | None, schema: dict[str, Any]) -> Any:
    if kind == "string":
        return _to_string(value)
    if kind == "integer":
        return _to_integer(value)
    if kind == "number":
        return _to_number(value)
    if kind == "boolean":
        return _to_boolean(value)
    if kind == "null":
        if value is None or (isinstance(value, str) and value.strip().lower() in ("null", "none")):
            return None
        raise ValueError
    if kind == "array":
        items = list(value) if isinstance(value, (list, tuple)) else _parse_json_text(value, list)
        return [coerce(v, schema["items"]) for v in items] if "items" in schema else items
    if kind == "object":
        obj = value if isinstance(value, dict) else _parse_json_text(value, dict)
        inner = schema.get("additionalProperties")
        return {k: coerce(v, inner) for k, v in obj.items()} if isinstance(inner, dict) else obj
    return value  # no type: anything goes


def _coerce_any_of(value: Any, options: list[dict[str, Any]], schema: dict[str, Any]) -> Any:
    kind = _json_type(value)
    for option in sorted(options, key=lambda o: o.get("type") != kind):  # exact type first
        try:
            return coerce(value, option)
        except ValueError:
            continue
    raise ValueError(f"expected {type_label(schema)}, got {_short_repr(value)}")


def _holds_enum(tp: Any) -> bool:
    """True when the hint ``tp`` is an Enum or has one inside (``X | None``, ``list[X]``, ...)."""
    return _is_enum(tp) or any(_holds_enum(arg) for arg in typing.get_args(tp))


def with_members(value: Any, tp: Any) -> Any:
    """A valid argument as the function's hint ``tp`` asks for it: each Enum value as its member
    (also inside ``X | None``, ``list[X]`` and ``dict[str, X]``); anything else as it is."""
    if _is_enum(tp):
        return tp(value)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if value is None or len(options) == 1:
            return None if value is None else with_members(value, options[0])
        for option in (a for a in options if _is_enum(a)):
            try:
                return option(value)
            except ValueError:
                continue
        return value
    if origin in _ARRAY_TYPES and len(args) >= 1 and isinstance(value, list):
        return [with_members(v, args[0]) for v in value]
    if origin is dict and len(args) == 2 and isinstance(value, dict):
        return {k: with_members(v, args[1]) for k, v in value.items()}
    return value


def _short_repr(value: Any, limit: int = 60) -> str:
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # nested 100,000 deep; an int of over 4,300 digits
        return f"a {type(value).__name__} too large to show"
    return clip(text, limit, "...", within=True)


# --------------------------------------------------------------------------- Tool


class Tool:
    """A function plus the JSON schema that tells a model how to call it.

    ``timeout`` is in seconds; ``None`` means "use the registry's default" and
    ``math.inf`` means "no limit".  ``auto_correct`` is still accepted for old scripts and changes
    nothing: vero no longer corrects a failed call's arguments itself.  ``read_only=True`` says the
    tool only looks things up and changes nothing (a calculator, a clock, a search); unmarked tools
    are taken to change things, and vero never runs one with arguments the model did not write
    (docs/tools.md, "Safety").  ``needs_approval=True``: every call is put to the agent's approver
    (``approve_tool=``), read-only or not, and refused when there is none.  Re-wrapping a tool keeps its
    ``timeout``, ``auto_correct``, ``read_only`` and ``needs_approval`` unless they are given again.
    Calling the tool calls the function directly, so decorated functions keep
    working as functions.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
        auto_correct: bool | None = None,
        read_only: bool | None = None,
        needs_approval: bool | None = None,
    ):
        if isinstance(func, Tool):  # re-wrapping a tool (e.g. under another name): its settings stay
            timeout = func.timeout if timeout is None else timeout
            auto_correct = func.auto_correct if auto_correct is None else auto_correct
            read_only = func.read_only if read_only is None else read_only
            needs_approval = func.needs_approval if needs_approval is None else needs_approval
            func = func.func
        functools.update_wrapper(self, func)  # __name__, __doc__, __wrapped__ for introspection
        summary, arg_docs = parse_docstring(func.__doc__)
        self.func: Callable[..., Any] = func
        self.name = name or func.__name__
        if not _VALID_NAME.fullmatch(self.name):  # the OpenAI API refuses other names at call time
            raise ValueError(f"tool name {self.name!r} must be 1-64 letters, digits, '_' or '-'; pass name=...")
        self.description = description or summary or self.name
        self.parameters = function_parameters(func, arg_docs)
        # the parameters whose hint holds an Enum: their valid values are converted to members
        self._enum_hints = {name: hint for name, hint in _type_hints(func).items() if _holds_enum(hint)}
        self.timeout: float | None = timeout
        self.auto_correct: bool = auto_correct is not False
        self.read_only: bool = read_only is True  # unmarked: may change things
        self.needs_approval: bool = needs_approval is True
        self._positional = _positional_only(func)
        self._required = self.parameters["required"]
        self._accepts_extra = "additionalProperties" not in self.parameters
        # The parameter that a bare (non-JSON) string argument is given to, if any.
        props = list(self.parameters["properties"])
        self.sole_parameter = props[0] if len(props) == 1 else None
        if self.sole_parameter is None and len(self._required) == 1:
            self.sole_parameter = self._required[0]

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
        auto_correct: bool | None = None,
        read_only: bool | None = None,
        needs_approval: bool | None = None,
    ) -> Tool:
        return cls(
            func,
            name=name,
            description=description,
            timeout=timeout,
            auto_correct=auto_correct,
            read_only=read_only,
            needs_approval=needs_approval,
        )

    @property
    def schema(self) -> dict[str, Any]:
        """The OpenAI ``tools=[...]`` entry for this tool."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    def call(self, arguments: dict[str, Any]) -> Any:
        """Call the function with validated ``arguments`` (a dict by name).

        Positional-only parameters are passed positionally, in order; one the
        model left out gets its default (``validate`` made sure it has one).
        """
        if not self._positional:
            return self.func(**arguments)
        kwargs, args = dict(arguments), []
        for name, default in self._positional:
            if name not in kwargs and default is inspect.Parameter.empty:
                raise TypeError(f"{self.name}() missing required argument: {name!r}")
            args.append(kwargs.pop(name, default))
        return self.func(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Tool({self.name}({self.signature()}))"

    def signature(self) -> str:
        """``a: integer, b: integer = 0``: the arguments as a model should read them."""
        parts = []
        for name, schema in self.parameters["properties"].items():
            part = f"{name}: {type_label(schema)}"
            if "default" in schema:
                part += f" = {json.dumps(schema['default'], ensure_ascii=False)}"
            parts.append(part)
        return ", ".join(parts)

    def expected_arguments(self) -> str:
        """``a (integer), b (integer, optional)``: used in error observations."""
        parts = []
        for name, schema in self.parameters["properties"].items():
            optional = "" if name in self._required else ", optional"
            parts.append(f"{name} ({type_label(schema)}{optional})")
        return ", ".join(parts) or "none"

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        """Check and coerce ``args`` into keyword arguments for ``func``.

        Raises ToolArgumentError naming every missing, unexpected or invalid
        argument, so the model can fix all of them in one go.
        """
        props = self.parameters["properties"]
        kwargs, unexpected, invalid = {}, [], []
        for key, value in args.items():
            if key in props:
                try:
                    kwargs[key] = coerce(value, props[key])
                    if key in self._enum_hints:
                        kwargs[key] = with_members(kwargs[key], self._enum_hints[key])
                except ValueError as exc:
                    invalid.append(f"{key} ({exc})")
            elif self._accepts_extra:
                kwargs[key] = value
            else:
                unexpected.append(str(key))
        missing = [name for name in self._required if name not in args]
        problems = []
        if missing:
            problems.append(f"is missing required argument(s): {', '.join(missing)}")
        if unexpected:
            problems.append(f"got unexpected argument(s): {', '.join(unexpected)}")
        if invalid:
            problems.append(f"got invalid value(s) for: {'; '.join(invalid)}")
        if problems:
            expected = self.expected_arguments()
            raise ToolArgumentError(f"{' and '.join(problems)}. Expected arguments: {expected}.")
        return kwargs


@overload
def tool(
    func: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    auto_correct: bool | None = None,
    read_only: bool | None = None,
    needs_approval: bool | None = None,
) -> Tool: ...


@overload
def tool(
    func: None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    auto_correct: bool | None = None,
    read_only: bool | None = None,
    needs_approval: bool | None = None,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    func: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    auto_correct: bool | None = None,
    read_only: bool | None = None,
    needs_approval: bool | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Decorator: ``@tool`` or ``@tool(name=..., description=..., timeout=..., read_only=..., needs_approval=...)``.

    Every named parameter is in the schema and is filled by name from the
    model's arguments; positional-only ones (``def add(a, b, /)``) are passed
    positionally, in order.  ``*args`` is not in the schema and always gets
    nothing; ``**kwargs`` receives any argument the schema does not name.
    """

    def wrap(f: Callable[..., Any]) -> Tool:
        return Tool(
            f,
            name=name,
            description=description,
            timeout=timeout,
            auto_correct=auto_correct,
            read_only=read_only,
            needs_approval=needs_approval,
        )

    return wrap if func is None else wrap(func)
