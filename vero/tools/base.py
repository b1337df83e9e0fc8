"""``@tool``: turn a typed Python function into something a model can call (docs/tools.md).

The JSON schema comes from the type hints (``vero.tools.schema``), the descriptions from the docstring
(Google, Sphinx or NumPy style), so a tool is written once, as a normal function.  ``Tool.validate``
coerces the loose arguments models produce, builds the declared types and names every problem.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import json
import logging
import re
import types
import typing
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypedDict, overload

from vero.core.deprecation import deprecated
from vero.core.options import Unpack
from vero.tools.schema import check, coerce, convert_into, needs_building, set_default, type_label, type_to_schema

log = logging.getLogger("vero.tools")

__all__ = ["Tool", "ToolArgumentError", "coerce", "function_parameters", "parse_docstring", "tool", "type_to_schema"]

# The section headers of Google's and NumPy's style guides.
_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword [Aa]rguments|Other Parameters|Attributes|Returns?"
    r"|Raises|Yields?|Examples?|Notes?|Warnings?|Warns|See Also|References|Todo):\s*$"  # PEP 257's "Keyword arguments:"
)
_NUMPY_SECTION = re.compile(
    r"^(Parameters|Other Parameters|Attributes|Returns?|Raises|Yields?|Examples?|Notes?|Warnings?|Warns"
    r"|See Also|References)\s*$"
)
_UNDERLINE = re.compile(r"^-{3,}\s*$")
_ARG_SECTIONS = ("Args", "Arguments", "Parameters", "Params", "Keyword Args", "Keyword Arguments", "Other Parameters")
# x (tuple(a, b)): ..., or as PEP 257 writes it, x -- ...
_ARG_LINE = re.compile(r"^\*{0,2}(\w+)\s*(?:\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))?(?:\s*:|\s+--)\s*(.*)$")
_DASHED_ARG = re.compile(r"^[a-z_]\w*\s+--\s")  # PEP 257's "real -- the real part", under its header, not indented
_NUMPY_ARG = re.compile(r"^(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)\s*(?::.*)?$")  # x : int, or x, y : float
_SPHINX_FIELD = re.compile(r"^:(\w+)([^:]*):\s*(.*)$")
_SPHINX_PARAMS = ("param", "parameter", "arg", "argument", "key", "keyword")


class ToolArgumentError(ValueError):
    """The arguments given to a tool cannot be used; the message says why."""


# --------------------------------------------------------------------------- docstrings


_VALID_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def check_tool_name(name: str, hint: str = "") -> None:
    """A ``ValueError`` for a name the OpenAI API refuses at call time (``hint``: what to do)."""
    if not _VALID_NAME.fullmatch(name):
        raise ValueError(f"tool name {name!r} must be 1-64 letters, digits, '_' or '-'{hint}")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring (Google ``Args:``, Sphinx ``:param x:`` or NumPy ``Parameters`` style) into its
    summary (before the first section, on one line for a prompt) and its parameters' descriptions."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    place = _Place()
    for number, line in enumerate(lines):
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if _starts_section(place, line, following, args):
            continue
        if place.section is None:
            summary.append(line)
        elif line.strip():
            _section_line(place, line, args)
    return " ".join(" ".join(summary).split()), args


@dataclass
class _Place:
    """Where ``parse_docstring`` is: the section (None: still the summary), its style, the indent of
    a Google section's arguments, and the argument being described."""

    section: str | None = None
    style: str = ""
    arg_indent: int | None = None
    current: str | None = None


def _starts_section(place: _Place, line: str, following: str, args: dict[str, str]) -> bool:
    """True when ``line`` opens a section (or is a NumPy header's dashes, or a Sphinx field, read here)."""
    stripped = line.strip()
    if _UNDERLINE.match(line) and place.section is not None and place.style == "numpy-header":
        place.style = "numpy"
        return True
    if _NUMPY_SECTION.match(line) and _UNDERLINE.match(following):
        place.section, place.style, place.current = stripped, "numpy-header", None
        return True
    header = _SECTION.match(line)
    if header:
        place.section, place.style, place.arg_indent, place.current = header.group(1).title(), "google", None, None
        return True
    field = _SPHINX_FIELD.match(stripped) if line == stripped else None
    if field:
        place.section, place.style, place.current = "sphinx", "sphinx", None
        if field.group(1) in _SPHINX_PARAMS and field.group(2).split():
            place.current = field.group(2).split()[-1]
            args[place.current] = field.group(3).strip()
    return field is not None


def _section_line(place: _Place, line: str, args: dict[str, str]) -> None:
    """A non-blank line inside a section: a parameter, or more of the current one's description."""
    stripped = line.strip()
    if place.style == "sphinx":
        if place.current and line != stripped:  # an indented continuation of a :param:
            args[place.current] = f"{args[place.current]} {stripped}".strip()
    elif place.style == "numpy":
        place.current = _numpy_line(line, place.section or "", args, place.current)
    elif place.section in _ARG_SECTIONS:
        indent = len(line) - len(line.lstrip())
        if indent == 0 and not _DASHED_ARG.match(line):  # back at column 0 without a header: the section is over
            place.section = ""
            return
        place.arg_indent = indent if place.arg_indent is None else place.arg_indent
        match = _ARG_LINE.match(stripped) if indent <= place.arg_indent else None
        if match:
            place.current = match.group(1)
            args[place.current] = match.group(2).strip()
        elif place.current:  # a continuation line of the current argument
            args[place.current] = f"{args[place.current]} {stripped}".strip()


def _numpy_line(line: str, section: str, args: dict[str, str], current: str | None) -> str | None:
    """One line of a NumPy section: ``x : int`` (or ``x, y : float``) names parameters, indented lines
    describe them.  ``current`` is the names being described, joined by commas."""
    if section not in _ARG_SECTIONS:
        return None
    if line == line.lstrip():
        match = _NUMPY_ARG.match(line.strip())
        if not match:
            return None
        names = [name.strip().lstrip("*") for name in match.group(1).split(",")]
        args.update(dict.fromkeys(names, ""))
        return ",".join(names)
    for name in (current or "").split(","):
        if name:
            args[name] = f"{args[name]} {line.strip()}".strip()
    return current


# --------------------------------------------------------------------------- schemas


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    """The parameters' hints, ``Annotated`` kept (its descriptions are read), and a default written as a pydantic
    ``Field(...)`` (``_pydantic_fields``) added to its parameter's hint as ``Annotated`` metadata."""
    fields, annotated = _pydantic_fields(func), _annotated(func)
    if inspect.isclass(annotated) and "__init__" in vars(annotated) and not dataclasses.is_dataclass(annotated):
        annotated = annotated.__init__  # a class's own __init__ takes the arguments, not its attributes
    hints = _resolved_hints(annotated)
    return {**hints, **{name: typing.Annotated[hints.get(name, Any), field] for name, field in fields.items()}}


def _pydantic_fields(func: Callable[..., Any]) -> dict[str, Any]:
    """The parameters whose default is a pydantic ``Field(...)`` (``limit: int = Field(5, ge=1)``, as FastMCP and
    LangChain tools write them): its constraints and description are the parameter's, and its default the value."""
    with contextlib.suppress(TypeError, ValueError):  # no signature: no such default
        parameters = _signature(func).parameters.values()
        return {p.name: p.default for p in parameters if _is_field(p.default)}
    return {}


def _is_field(default: Any) -> bool:
    """A pydantic (v2) ``Field(...)`` written as a parameter's default."""
    return type(default).__name__ == "FieldInfo" and callable(getattr(default, "is_required", None))


def _field_default(field: Any, name: str, func: Callable[..., Any]) -> Any:
    """The value a ``Field(...)`` default gives; a TypeError naming the parameter when it cannot give one alone
    (a ``default_factory`` that takes the other fields' values)."""
    try:
        return field.get_default(call_default_factory=True)
    except Exception as exc:
        where = getattr(func, "__name__", "the function")
        raise TypeError(f"parameter {name!r} of {where}(): its Field gives no default on its own ({exc})") from None


def _resolved_hints(func: Callable[..., Any]) -> dict[str, Any]:
    """The hints as written.  One that cannot be resolved (a class defined inside a function, under ``from
    __future__ import annotations``) is a ``TypeError`` naming it: read as "any value", the function would get
    the model's JSON, not the type it declares."""
    with contextlib.suppress(Exception):  # one hint cannot be resolved: each is read on its own, to find it
        return typing.get_type_hints(func, include_extras=True)
    globalns = getattr(inspect.unwrap(func), "__globals__", {})
    hints: dict[str, Any] = {}
    for name, hint in getattr(func, "__annotations__", {}).items():
        if name == "return":
            continue  # an unresolvable return type is no concern of the tool's
        try:
            only = types.SimpleNamespace(__annotations__={name: hint})
            hints.update(typing.get_type_hints(only, globalns, include_extras=True))
        except Exception as exc:
            raise TypeError(
                f"parameter {name!r} of {getattr(func, '__name__', 'the function')}(): cannot resolve its type "
                f"{hint!r} ({exc}): a tool's types must be importable from its module (not defined inside a "
                "function, not imported under TYPE_CHECKING only)"
            ) from None
    return hints


def _signature(func: Callable[..., Any]) -> inspect.Signature:
    """The parameters a call gives ``func``: its own, even when a decorator copied another function's name onto it
    (``functools.wraps`` over a wrapper that supplies an argument itself); the wrapped function's when the wrapper
    passes everything on (``*args, **kwargs``, perhaps with keywords of its own that have defaults)."""
    own = inspect.signature(func, follow_wrapped=False)
    parameters = list(own.parameters.values())
    variadic = [p for p in parameters if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    passes_on = bool(variadic) and all(
        p in variadic or (p.kind is p.KEYWORD_ONLY and p.default is not p.empty) for p in parameters
    )
    return inspect.signature(func) if passes_on and hasattr(_annotated(func), "__wrapped__") else own


def _annotated(func: Callable[..., Any]) -> Callable[..., Any]:
    """The function that carries a callable's hints and docstring: a partial's function, an object's ``__call__``."""
    func = _unpartialled(func)
    return func if inspect.isroutine(func) or inspect.isclass(func) else type(func).__call__


def _unpartialled(func: Callable[..., Any]) -> Callable[..., Any]:
    """What a ``functools.partial`` (of a partial...) calls."""
    while isinstance(func, functools.partial):
        func = func.func
    return func


def _bound_keywords(func: Callable[..., Any]) -> frozenset[str]:
    """The arguments a ``functools.partial`` binds by keyword (``partial(orders, user_id=42, api_key=...)``): the
    tool's author pinned them, so the model is neither shown them (an API key would be its "default") nor let
    override them.  (``inspect.signature`` keeps them, as keyword-only parameters with those defaults.)"""
    bound: set[str] = set()
    while isinstance(func, functools.partial):
        bound.update(func.keywords)
        func = func.func
    return frozenset(bound)


def function_parameters(func: Callable[..., Any], arg_docs: dict[str, str] | None = None) -> dict[str, Any]:
    """The ``parameters`` JSON schema object of a function's signature (without what a partial binds by
    keyword); a ``TypeError`` names a parameter whose type has no JSON form."""
    hints, arg_docs, bound = _type_hints(func), arg_docs or {}, _bound_keywords(func)
    properties: dict[str, dict[str, Any]] = {}
    required: list[str] = []
    accepts_extra: dict[str, Any] | bool = False  # **extra: True, or the schema of its annotation
    for param in _signature(func).parameters.values():
        if param.name in bound or param.kind is param.VAR_POSITIONAL:
            continue
        if param.kind is param.VAR_KEYWORD:  # **extra: int checks each extra argument as an int
            accepts_extra = type_to_schema(hints[param.name]) if param.name in hints else True
            continue
        try:
            schema = type_to_schema(hints.get(param.name, Any))  # unannotated: any JSON value, unconverted
        except TypeError as exc:
            name = getattr(func, "__name__", "the function")
            raise TypeError(f"parameter {param.name!r} of {name}(): {exc}") from None
        if arg_docs.get(param.name):
            schema["description"] = arg_docs[param.name]
        default = param.default
        if _is_field(default):  # a pydantic Field(...): its own default (``_pydantic_fields``)
            default = param.empty if default.is_required() else _field_default(default, param.name, func)
        if default is param.empty:
            required.append(param.name)
        else:  # a JSON copy of it; a dataclass or an object() sentinel is not shown
            set_default(schema, default)
        properties[param.name] = schema
    documented = _unpartialled(func)  # a partial's function, all its parameters: those bound are documented too
    unmatched = sorted(set(arg_docs) - set(_signature(documented).parameters))
    if unmatched and inspect.isroutine(documented):  # not a class's docstring, which may be its __init__'s
        name = getattr(documented, "__name__", "the function")  # written for other names ("q:" for query)
        log.warning("%s(): its docstring's Args describe %s, which name no parameter", name, ", ".join(unmatched))
    parameters: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if accepts_extra is not True:
        parameters["additionalProperties"] = accepts_extra
    return parameters


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


MAX_GENERATED_ITEMS = 10_000  # items taken from a generator a tool returned


async def _gathered(generator: Any) -> Any:
    """An async generator's items, as a generator of them (read as a sync one's: ``to_text``), one past the
    limit at most; then it is closed."""
    items = []
    try:
        async for item in generator:
            items.append(item)
            if len(items) > MAX_GENERATED_ITEMS:
                break
    finally:
        await generator.aclose()
    return (item for item in items)


def _run_to_end(awaitable: Any) -> Any:
    """``awaitable``'s result, from a new event loop: on this thread, or on a new one when this thread already
    runs a loop (a tool with no time limit called from a notebook or an async app)."""
    import asyncio  # imported here: `import vero` should not pay it
    import concurrent.futures
    import contextvars

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(awaitable))
    with concurrent.futures.ThreadPoolExecutor(1) as thread:  # in this context: the run it is part of goes along
        return thread.submit(contextvars.copy_context().run, asyncio.run, _awaited(awaitable)).result()


# --------------------------------------------------------------------------- Tool


class Tool:
    """A function plus the JSON schema that tells a model how to call it; calling the tool calls the function.

    ``timeout``: seconds (``None``: the registry's default; ``math.inf``: no limit).  ``read_only=True``:
    the tool only looks things up; unmarked tools are taken to change things, and vero never runs one
    with arguments the model did not write (docs/tools.md, "Safety").  ``needs_approval=True``: every call
    is put to the agent's approver (refused without one).  Re-wrapping a tool keeps these three settings, and a
    class or static method's binding.
    """

    _of_class = _static = False  # how a method's tool is bound: to the class read from, or never (set below)

    def __init__(
        self,
        func: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
        auto_correct: bool | None = None,  # deprecated
        read_only: bool | None = None,
        needs_approval: bool | None = None,
    ):
        if auto_correct is not None:
            deprecated("Tool(auto_correct=...)", "drop it: it changes nothing, vero never corrects a call itself")
        if isinstance(func, Tool):  # re-wrapping a tool (e.g. under another name): its settings stay
            timeout = func.timeout if timeout is None else timeout
            read_only = func.read_only if read_only is None else read_only
            needs_approval = func.needs_approval if needs_approval is None else needs_approval
            binding: Any = classmethod if func._of_class else staticmethod if func._static else None
            func = binding(func.func) if binding else func.func
        _refuse_foreign_tool(func)
        _check_settings(timeout, read_only=read_only, needs_approval=needs_approval)
        self._of_class = isinstance(func, classmethod)  # @tool over @classmethod: bound to the class read from
        self._static = isinstance(func, staticmethod)  # @tool over @staticmethod: never bound
        func = func.__func__ if self._of_class or self._static else func  # type: ignore[attr-defined]
        functools.update_wrapper(self, func)  # __name__, __doc__, __wrapped__ for introspection
        inner = _annotated(func)  # a partial's function, a callable object's __call__
        method = inner.__name__ == "__call__"  # of a callable object: its class names and describes it
        summary, arg_docs = parse_docstring(inner.__doc__ or (type(func).__doc__ if method else None))
        self.func: Callable[..., Any] = func
        owner = type(_unpartialled(func)).__name__ if method else inner.__qualname__.rsplit(".", 1)[-1]  # not a base's
        self.name = name or getattr(func, "__name__", None) or owner
        check_tool_name(self.name, "; pass name=...")
        self.description = description or summary or self.name
        self.parameters = function_parameters(func, arg_docs)
        props = list(self.parameters["properties"])
        hints = _type_hints(func).items()  # a valid argument is built as its hint asks (a dataclass, an Enum member...)
        self._hints = {name: hint for name, hint in hints if name in props and needs_building(hint)}
        self.timeout: float | None = timeout
        self.read_only: bool = read_only is True  # unmarked: may change things
        self.needs_approval: bool = needs_approval is True
        parameters = _signature(func).parameters.values()
        self._positional = [(p.name, p.default) for p in parameters if p.kind is p.POSITIONAL_ONLY]  # in order
        self._extra_name = next((p.name for p in parameters if p.kind is p.VAR_KEYWORD), "kwargs")  # **filters
        self._required = self.parameters["required"]
        extra = self.parameters.get("additionalProperties", True)
        self._extra: dict[str, Any] | None = extra if isinstance(extra, dict) else None  # **extra's schema
        self._accepts_extra = extra is not False
        self._pinned = _bound_keywords(func)  # a partial's keywords: no argument of the model's replaces one
        self._fields = _pydantic_fields(func)  # defaults written as pydantic Field(...): given by ``call``
        # The parameter that a bare (non-JSON) string argument is given to: the only one, else the only required one.
        self.sole_parameter = props[0] if len(props) == 1 else self._required[0] if len(self._required) == 1 else None

    @classmethod
    def from_function(cls, func: Callable[..., Any], *args: Any, **settings: Any) -> Tool:
        """Deprecated: the same as ``Tool(func, ...)``."""
        deprecated("Tool.from_function(func, ...)", "write Tool(func, ...)")
        return cls(func, *args, **settings)

    @property
    def schema(self) -> dict[str, Any]:
        """The OpenAI ``tools=[...]`` entry for this tool."""
        function = {"name": self.name, "description": self.description, "parameters": self.parameters}
        return {"type": "function", "function": function}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    def __get__(self, instance: Any, owner: type | None = None) -> Tool:
        """``@tool`` on a method: read from an instance (a classmethod: from the class), the tool of the method bound
        to it, whose first parameter is not asked: one named ``self`` or ``cls``, or, in a class body, one with no
        annotation (``this``).  A tool whose first parameter is an argument (``a: int``) is not bound."""
        instance = owner if self._of_class else instance
        if (
            instance is None
            or self._static
            or not inspect.isfunction(self.func)
            or not _takes_its_owner(self.func, self._of_class)
        ):
            return self
        bound = self.func.__get__(instance, owner)
        return Tool(bound, self.name, self.description, self.timeout, None, self.read_only, self.needs_approval)

    def call(self, arguments: dict[str, Any]) -> Any:
        """Call the function with validated ``arguments`` (by name; positional-only ones are passed in order,
        one the model left out gets its default: ``validate`` made sure it has one)."""
        kwargs, args = dict(arguments), []
        for name, field in self._fields.items():  # not the Field itself: the value it gives
            if name not in kwargs and not field.is_required():
                kwargs[name] = _field_default(field, name, self.func)
        for name, default in self._positional:
            if name not in kwargs and default is inspect.Parameter.empty:
                raise TypeError(f"{self.name}() missing required argument: {name!r}")
            args.append(kwargs.pop(name, default))
        result = self.func(*args, **kwargs)
        if inspect.isawaitable(result):  # an async def tool: run to its end in an event loop of its own
            return _run_to_end(result)
        if inspect.isasyncgen(result):  # an async generator: its items, read in a loop of their own
            return _run_to_end(_gathered(result))
        return result

    def __repr__(self) -> str:
        return f"Tool({self.name}({self.signature()}))"

    def signature(self) -> str:
        """``a: integer, b: integer = 0``: the arguments as a model should read them."""
        parts = []
        for name, schema in self.parameters["properties"].items():
            optional = "?" if name not in self._required and "default" not in schema else ""  # a default not shown
            part = f"{name}{optional}: {type_label(schema)}"
            if "default" in schema:
                part += f" = {json.dumps(schema['default'], ensure_ascii=False)}"
            parts.append(part)
        extra = self.parameters.get("additionalProperties")
        if isinstance(extra, dict):  # **filters: int takes any other named argument, each an int
            parts.append(f"**{self._extra_name}: {type_label(extra)}")
        return ", ".join(parts)

    def expected_arguments(self) -> str:
        """``a (integer), b (integer, optional)``: used in error observations."""
        parts = []
        for name, schema in self.parameters["properties"].items():
            optional = "" if name in self._required else ", optional"
            parts.append(f"{name} ({type_label(schema)}{optional})")
        extra = self.parameters.get("additionalProperties")
        if isinstance(extra, dict):
            parts.append(f"any {'other ' if parts else ''}named arguments ({type_label(extra)})")
        return ", ".join(parts) or "none"

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        """Check and coerce ``args`` into keyword arguments for ``func``.  A ToolArgumentError names every
        missing, unexpected or invalid argument, so the model can fix all of them in one go."""
        props = self.parameters["properties"]
        kwargs: dict[str, Any] = {}
        unexpected: list[str] = []
        misfits: list[tuple[str, str]] = []  # (path, what is wrong) of each invalid value
        for key, value in args.items():
            if value is None and key in props and props[key].get("default", ...) is None:
                kwargs[key] = None  # `x: T = None`: null is its default, whatever T is
            elif key in self._hints:  # built as its hint asks: a dataclass, an Enum member...
                kwargs[key] = convert_into(value, self._hints[key], key, misfits)
            elif key in props:  # a simple value, or a schema from elsewhere (an MCP server's)
                kwargs[key] = check(value, props[key], key, misfits)
            elif self._accepts_extra and key not in self._pinned and not _misspelt(str(key), [*props, *self._pinned]):
                kwargs[key] = value if self._extra is None else check(value, self._extra, key, misfits)
            else:
                unexpected.append(str(key))
        missing = [name for name in self._required if name not in args]
        invalid = [f"{path} ({message})" for path, message in misfits]
        problems = []
        if missing:
            problems.append(f"is missing required argument(s): {', '.join(missing)}")
        if unexpected:
            problems.append(f"got unexpected argument(s): {', '.join(unexpected)}")
        if invalid:
            problems.append(f"got invalid value(s) for: {'; '.join(invalid)}")
        if problems:
            hint = self._nesting_hint(missing, unexpected)
            raise ToolArgumentError(f"{' and '.join(problems)}. Expected arguments: {self.expected_arguments()}.{hint}")
        return kwargs

    def _nesting_hint(self, missing: list[str], unexpected: list[str]) -> str:
        """When the unexpected arguments are the fields of the one missing object argument: say they go
        inside it (vero does not move them there itself: the call is the model's to write)."""
        if len(missing) != 1 or not unexpected:
            return ""
        fields = self.parameters["properties"].get(missing[0], {}).get("properties") or {}
        if not set(unexpected) <= set(fields):
            return ""
        return f' The fields {", ".join(unexpected)} belong inside {missing[0]}: {{"{missing[0]}": {{...}}}}.'


class ToolSettings(TypedDict, total=False):
    """``@tool(...)``'s keyword arguments: ``Tool``'s, but for the function."""

    name: str | None
    description: str | None
    timeout: float | None
    auto_correct: bool | None  # deprecated
    read_only: bool | None
    needs_approval: bool | None


# Other frameworks' tool objects, by the attribute that holds their arguments' schema: their call is not the function's
_FOREIGN_TOOLS = {"inputs": "smolagents", "args_schema": "LangChain", "params_json_schema": "the OpenAI Agents SDK"}


def _refuse_foreign_tool(func: Any) -> None:
    """A ``TypeError`` when ``func`` is another framework's tool object (a ``name``, its arguments' schema beside
    it): what calling it does is that framework's, not the function's vero would describe."""
    if inspect.isroutine(func) or inspect.isclass(func) or not hasattr(func, "name"):
        return
    schemas = _FOREIGN_TOOLS.items()  # a dict or a class there (a pydantic model): a mock's attributes are neither
    framework = next((name for key, name in schemas if isinstance(getattr(func, key, None), (dict, type))), None)
    if framework is not None:
        shown = f"{type(func).__name__} {str(func.name)!r}"
        raise TypeError(f"{shown} is a tool object of {framework}: give vero the function it wraps (@tool over it)")


def _misspelt(name: str, parameters: Collection[str]) -> bool:
    """``name`` is a parameter's written otherwise (``dryrun``, ``dry-run``, ``dryRun`` for ``dry_run``): taken as an
    argument of its own (``**kwargs``, an MCP server's open schema), its value would be dropped or misread (an MCP
    server drops a name it does not know), and the call would run as if it were not written.  (Not a plural or a
    typo: ``tags`` beside ``tag`` may be an argument of its own.)"""
    bare = re.sub(r"[\W_]", "", name).lower()
    return any(re.sub(r"[\W_]", "", known).lower() == bare for known in parameters)


def _check_settings(timeout: Any, **switches: Any) -> None:
    """A ``ValueError`` for a timeout that is no seconds above 0; a ``TypeError`` for a switch that is neither True,
    False nor None: a function or a ``1`` read as False would run a call unasked (the OpenAI Agents SDK takes a
    function for ``needs_approval``; vero's per-call decision is the agent's ``approve_tool``)."""
    if timeout is not None and (type(timeout) not in (int, float) or not timeout > 0):  # not nan, 0, "5"
        raise ValueError(f"timeout must be seconds above 0 (math.inf: no limit) or None, got {timeout!r}")
    for name, value in switches.items():
        if value is not None and type(value) is not bool:
            hint = "; to decide per call, give the agent approve_tool=<function>" if callable(value) else ""
            raise TypeError(f"{name} must be True or False, got {value!r}{hint} (docs/tools.md, 'Approving calls')")


def _takes_its_owner(func: Callable[..., Any], of_class: bool) -> bool:
    """``func``'s first parameter is the instance (or class) it is read from, not an argument of the call."""
    first = next(iter(_signature(func).parameters.values()), None)
    place = func.__qualname__.rpartition(".")[0]  # "Shop" for a method; "" or "f.<locals>" for a function
    in_class = bool(place) and not place.endswith("<locals>") and func.__name__ != "<lambda>"
    return first is not None and (
        of_class or first.name in ("self", "cls") or (in_class and first.annotation is first.empty)
    )


@overload
def tool(func: Callable[..., Any], **settings: Unpack[ToolSettings]) -> Tool: ...
@overload
def tool(func: None = None, **settings: Unpack[ToolSettings]) -> Callable[[Callable[..., Any]], Tool]: ...
def tool(
    func: Callable[..., Any] | None = None, **settings: Unpack[ToolSettings]
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Decorator: ``@tool`` or ``@tool(name=..., description=..., timeout=..., read_only=..., needs_approval=...)``.

    Every named parameter is in the schema and is filled by name from the model's arguments; positional-only
    ones (``def add(a, b, /)``) are passed in order.  ``*args`` is not in the schema and always gets nothing;
    ``**kwargs`` receives any argument the schema does not name.  (``auto_correct=`` is deprecated: it does nothing.)
    """

    def wrap(f: Callable[..., Any]) -> Tool:
        return Tool(f, **settings)

    return wrap if func is None else wrap(func)
