"""@tool schemas, docstring parsing, and ToolRegistry execution (all offline)."""

from __future__ import annotations

import datetime
import enum
import functools
import inspect
import json
import logging
import math
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal, Optional, Union

import pytest

from vero.testing import ScriptedLLM
from vero.tools import Tool, ToolOutcome, ToolRegistry, tool
from vero.tools.base import parse_docstring


def props(t: Tool) -> dict:
    return t.parameters["properties"]


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: first addend
        b: second addend
    """
    return a + b


@tool
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


# --------------------------------------------------------------------------- schemas


@pytest.mark.parametrize(
    "hint, schema",
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (list, {"type": "array", "items": {}}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (tuple[str, ...], {"type": "array", "items": {"type": "string"}}),
        (dict, {"type": "object"}),
        (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
        (Optional[int], {"type": ["integer", "null"]}),
        (str | None, {"type": ["string", "null"]}),
        (Literal["c", "f"], {"type": "string", "enum": ["c", "f"]}),
        (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
        (Optional[Literal["x"]], {"type": ["string", "null"], "enum": ["x", None]}),
        (Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        (list[list[bool]], {"type": "array", "items": {"type": "array", "items": {"type": "boolean"}}}),
        (Any, {}),
    ],
)
def test_schema_for_each_supported_type_hint(hint, schema):
    def f(x): ...

    f.__annotations__ = {"x": hint}
    assert props(Tool(f))["x"] == schema


def test_unannotated_parameter_accepts_any_json_value_and_defaults_are_optional():
    def f(a, b: int = 3, c: Optional[str] = None):
        return repr(a)

    params = Tool(f).parameters
    assert params["properties"]["a"] == {}
    assert ToolRegistry([f]).run("f", {"a": 2}).output == "2"  # passed through, not turned into "2"
    assert params["properties"]["b"] == {"type": "integer", "default": 3}
    assert params["properties"]["c"]["default"] is None
    assert params["required"] == ["a"]
    assert params["additionalProperties"] is False
    assert params["type"] == "object"


def test_openai_schema_format():
    assert add.schema == {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two integers.",
            "parameters": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "description": "first addend"},
                    "b": {"type": "integer", "description": "second addend"},
                },
                "required": ["a", "b"],
                "additionalProperties": False,
            },
        },
    }


def test_docstring_args_section_forms_and_continuation_lines():
    summary, args = parse_docstring(
        """Look things up
        in the catalogue.

        Args:
            name: the item's name
            count (int): how many to return,
                at most 10
            *extra: ignored
        Returns:
            matching: items (not an argument)
        """
    )
    assert summary == "Look things up in the catalogue."
    assert args == {"name": "the item's name", "count": "how many to return, at most 10", "extra": "ignored"}


def test_docstring_without_args_section_is_all_summary():
    assert parse_docstring("Just a summary.\n\nMore words.") == ("Just a summary. More words.", {})
    assert parse_docstring(None) == ("", {})


def test_decorator_with_options():
    @tool(name="adder", description="Adds.", timeout=2.5)
    def plus(a: int, b: int = 1) -> int:
        return a + b

    assert isinstance(plus, Tool)
    assert (plus.name, plus.description, plus.timeout) == ("adder", "Adds.", 2.5)
    assert plus.schema["function"]["name"] == "adder"
    assert plus(2) == 3  # still callable as the function


def test_bare_decorator_keeps_function_callable_and_introspectable():
    assert isinstance(add, Tool)
    assert add(2, 3) == 5
    assert add(a=1, b=1) == 2
    assert add.__name__ == "add" and add.timeout is None
    assert list(inspect.signature(add).parameters) == ["a", "b"]
    assert "add" in repr(add) and "a: integer" in repr(add)


def test_a_tool_from_a_function_and_rewrapping_a_tool_under_a_new_name():
    def mul(a: int, b: int) -> int:
        """Multiply."""
        return a * b

    t = Tool(mul, name="times", timeout=1)
    assert (t.name, t.description, t.timeout, t(3, 4)) == ("times", "Multiply.", 1, 12)
    alias = Tool(add, name="plus")
    assert alias.name == "plus" and add.name == "add"
    assert alias.parameters == add.parameters


def test_description_falls_back_to_the_name():
    @tool
    def nodoc(x: int): ...

    assert nodoc.description == "nodoc"


# --------------------------------------------------------------------------- registry contents


def test_registry_register_get_names_and_container_protocol():
    empty = ToolRegistry()
    assert not empty and len(empty) == 0 and empty.schemas() == []

    def search(query: str) -> str:
        """Search."""
        return query

    reg = ToolRegistry([add])
    returned = reg.register(search)  # a plain function is wrapped
    assert isinstance(returned, Tool) and reg.get("search") is returned
    assert reg.get("nope") is None
    assert reg.names() == ["add", "search"]
    assert "add" in reg and "nope" not in reg
    assert len(reg) == 2 and bool(reg)
    assert [t.name for t in reg] == ["add", "search"]


def test_only_gives_a_smaller_registry_with_the_same_tools_and_timeout():
    def search(query: str) -> str:
        """Search."""
        return query

    reg = ToolRegistry([add, search], default_timeout=5.0)
    small = reg.only(["search", "unknown"])
    assert small.names() == ["search"] and small.get("search") is reg.get("search")
    assert small.default_timeout == 5.0 and reg.names() == ["add", "search"]


def test_describe_ends_each_line_with_one_full_stop():
    @tool
    def find(name: str) -> str:
        """Find a thing.

        Args:
            name: the thing's name.
        """
        return name

    assert ToolRegistry([find]).describe() == "- find(name: string): Find a thing. Args: name — the thing's name."


def test_register_duplicate_replaces_and_warns(caplog):
    reg = ToolRegistry([add])

    @tool(name="add")
    def other(a: int) -> int:
        return -a

    with caplog.at_level(logging.WARNING):
        reg.register(other)
    assert reg.get("add") is other and len(reg) == 1
    assert "add" in caplog.text and caplog.records[0].levelno == logging.WARNING


def test_schemas_are_cached_and_invalidated_on_register():
    reg = ToolRegistry([add])
    first = reg.schemas()
    assert first == [add.schema]
    assert reg.schemas() is first
    reg.register(echo)
    assert [s["function"]["name"] for s in reg.schemas()] == ["add", "echo"]


def test_describe_lists_one_tool_per_line_with_argument_descriptions():
    @tool
    def weather(city: str, unit: Literal["c", "f"] = "c") -> str:
        """Get the weather.

        Args:
            city: the city name
        """

    reg = ToolRegistry([add, weather])
    text = reg.describe()
    lines = text.splitlines()
    assert len(lines) == 2
    assert lines[0] == "- add(a: integer, b: integer): Add two integers. Args: a — first addend; b — second addend."
    assert lines[1] == '- weather(city: string, unit: "c" | "f" = "c"): Get the weather. Args: city — the city name.'
    assert reg.describe() is text  # cached
    reg.register(echo)
    assert reg.describe().splitlines()[2] == "- echo(text: string): Return the text unchanged."


# --------------------------------------------------------------------------- execution


@pytest.fixture
def reg() -> ToolRegistry:
    return ToolRegistry([add, echo])


@pytest.mark.parametrize(
    "args",
    [{"a": 2, "b": 3}, '{"a": 2, "b": 3}', "{'a': 2, 'b': 3}", '  {"a": 2, "b": 3,}  ', b'{"a": 2, "b": 3}'],
)
def test_execute_accepts_dict_json_and_sloppy_json(reg, args):
    assert reg.run("add", args).output == "5"


def test_execute_bare_string_goes_to_the_only_parameter(reg):
    assert reg.run("echo", "hello world").output == "hello world"
    assert reg.run("echo", '"quoted json string"').output == "quoted json string"


def test_bare_string_goes_to_the_only_required_parameter():
    @tool
    def find(query: str, limit: int = 3) -> str:
        return f"{query}/{limit}"

    assert ToolRegistry([find]).run("find", "cats").output == "cats/3"


def test_bare_string_for_a_multi_argument_tool_is_refused(reg):
    out = reg.run("add", "2 and 3")
    assert not out.ok and out.error == "bad_arguments"
    assert "expects a JSON object" in out.output and "a (integer), b (integer)" in out.output


def test_null_for_arguments_is_no_value_for_a_read_only_tool_s_one_parameter_either():
    @tool(read_only=True)
    def search(query: str) -> str:
        return f"found {query}"

    reg = ToolRegistry([search])
    for written in ("null", "None", "NULL"):
        out = reg.run("search", written)
        assert not out.ok and "missing required argument(s): query" in out.output, written
    assert reg.run("search", "nulls").output == "found nulls"


def test_no_argument_tool_accepts_none_empty_and_stray_text():
    @tool
    def ping() -> str:
        return "pong"

    reg = ToolRegistry([ping])
    assert [reg.run("ping", a).output for a in (None, "", "{}", "None", {})] == ["pong"] * 5


@pytest.mark.parametrize(
    "hint, given, expected",
    [
        (int, "3", 3),
        (int, " 42 ", 42),
        (int, 4.0, 4),
        (float, "2.5", 2.5),
        (float, 3, 3.0),
        (bool, "true", True),
        (bool, "False", False),
        (bool, 1, True),
        (str, 12, "12"),
        (list[int], "[1, 2, 3]", [1, 2, 3]),
        (list[int], ["1", 2], [1, 2]),
        (dict, '{"k": "v"}', {"k": "v"}),
        (Optional[int], None, None),
        (Optional[int], "null", None),
        (Literal["x", "y"], "y", "y"),
        (Union[int, str], "abc", "abc"),
        (Union[int, str], 5, 5),
    ],
)
def test_arguments_are_coerced_to_the_declared_type(hint, given, expected):
    seen = []

    def f(x):
        seen.append(x)

    f.__annotations__ = {"x": hint}
    outcome = ToolRegistry([Tool(f, read_only=True)]).run("f", {"x": given})  # a lookup's arguments
    assert outcome.ok, outcome.output
    assert seen == [expected] and type(seen[0]) is type(expected)


@pytest.mark.parametrize(
    "hint, given",
    [
        (bool, "yes"),  # a word that is no JSON boolean
        (bool, 1),
        (list[str], "['bob', 'eve'"),  # JSON text that needs repair
        (dict[str, float], "{to: 1,}"),
        (dict, '{"x": NaN}'),  # JSON text json.loads reads, with a number JSON has not
        (float, 9007199254740993),  # a float would run it as ...992
        (float, "9007199254740993"),  # and its text too
        (str, 1.50),  # a fraction for text: its text as written is gone (1.50 arrives as 1.5)
    ],
)
def test_a_tool_that_may_change_things_gets_no_value_read_by_guesswork(hint, given):
    seen = []

    def change(x):
        seen.append(x)

    change.__annotations__ = {"x": hint}
    outcome = ToolRegistry([Tool(change)]).run("change", {"x": given})
    assert not outcome.ok and seen == []
    assert ToolRegistry([Tool(change, read_only=True)]).run("change", {"x": given}).ok  # a lookup's are read


def test_unknown_tool_lists_the_valid_names(reg):
    out = reg.run("foo", {})
    assert out == ToolOutcome("Error: unknown tool 'foo'. Valid tools: add, echo.", False, "unknown_tool")


def test_missing_argument_is_named(reg):
    out = reg.run("add", {"a": 1})
    assert out.output == (
        "Error: tool 'add' is missing required argument(s): b. Expected arguments: a (integer), b (integer)."
    )
    assert (out.ok, out.error) == (False, "bad_arguments")


def test_unexpected_argument_is_named(reg):
    out = reg.run("add", {"a": 1, "b": 2, "c": 3})
    assert out.error == "bad_arguments"
    assert "got unexpected argument(s): c." in out.output


def test_invalid_values_are_named_with_the_expected_type(reg):
    out = reg.run("add", {"a": "three", "b": True})
    assert out.error == "bad_arguments"
    assert "a (expected integer, got 'three')" in out.output
    assert "b (expected integer, got True)" in out.output


def test_literal_membership_is_checked():
    @tool
    def convert(unit: Literal["c", "f"]) -> str:
        return unit

    out = ToolRegistry([convert]).run("convert", {"unit": "k"})
    assert out.error == "bad_arguments" and 'unit (expected "c" | "f", got \'k\')' in out.output


def test_unparseable_list_argument_is_refused():
    @tool
    def total(xs: list[int]) -> int:
        return sum(xs)

    reg = ToolRegistry([total])
    assert reg.run("total", {"xs": "[1, 2]"}).output == "3"
    out = reg.run("total", {"xs": "not a list"})
    assert out.error == "bad_arguments" and "xs (expected array of integer" in out.output


def test_exception_becomes_an_observation_with_type_and_message():
    @tool
    def boom(x: int) -> int:
        raise ValueError("x must be positive")

    out = ToolRegistry([boom]).run("boom", {"x": -1})
    assert out == ToolOutcome("Error: tool 'boom' raised ValueError: x must be positive", False, "exception")


def test_keyboard_interrupt_is_not_swallowed_on_the_callers_thread():
    @tool
    def interrupt() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # without a timeout it cannot be told from Ctrl-C
        ToolRegistry([interrupt], default_timeout=None).run("interrupt", {})
    # on a worker thread it can only be the tool's own (tests/test_faults_io.py)
    assert ToolRegistry([interrupt]).run("interrupt", {}).error == "exception"


def test_slow_tool_times_out_promptly():
    @tool(timeout=0.2)
    def slow() -> str:
        time.sleep(3)
        return "done"

    start = time.perf_counter()
    out = ToolRegistry([slow]).run("slow", {})
    assert time.perf_counter() - start < 1.0
    assert out == ToolOutcome("Error: tool 'slow' timed out after 0.2 s.", False, "timeout")


def test_registry_default_timeout_applies_and_none_means_no_limit():
    @tool
    def nap() -> str:
        time.sleep(0.3)
        return "awake"

    assert ToolRegistry([nap], default_timeout=0.1).run("nap").error == "timeout"
    assert ToolRegistry([nap], default_timeout=None).run("nap").output == "awake"


def test_tool_timeout_overrides_the_registry_default():
    @tool(timeout=2)
    def nap() -> str:
        time.sleep(0.3)
        return "awake"

    assert ToolRegistry([nap], default_timeout=0.1).run("nap").output == "awake"


@dataclass
class Receipt:
    number: str
    total: Decimal
    lines: tuple[int, ...]


class Shade(enum.Enum):
    DARK = "dark"


@pytest.mark.parametrize(
    "value, text",
    [
        ({"k": "ü", "n": [1, 2]}, '{"k": "ü", "n": [1, 2]}'),
        ([1, "a"], '[1, "a"]'),
        (None, "(no output)"),
        (b"caf\xc3\xa9 \xff", "café \ufffd"),
        (3.5, "3.5"),
        (True, "True"),
        ("as is", "as is"),
        # structured values as JSON, as the model's arguments came
        (Receipt("A-1", Decimal("2.50"), (1, 2)), '{"number": "A-1", "total": "2.50", "lines": [1, 2]}'),
        ({"receipt": Receipt("B", Decimal("1"), ())}, '{"receipt": {"number": "B", "total": "1", "lines": []}}'),
        (Shade.DARK, "dark"),
        ((1, "a"), '[1, "a"]'),
        ({"day": datetime.date(2026, 1, 2)}, '{"day": "2026-01-02"}'),
    ],
)
def test_non_string_results_are_converted(value, text):
    @tool
    def give():
        return value

    out = ToolRegistry([give]).run("give")
    assert out == ToolOutcome(text, True, None)


def test_long_output_is_not_truncated(reg):
    assert reg.run("echo", {"text": "x" * 100_000}).output == "x" * 100_000


def test_outcome_fields_and_one_name_for_each(reg):
    ok = reg.run("add", {"a": 1, "b": 1})
    assert (ok.output, ok.ok, ok.error) == ("2", True, None)
    assert str(ok) == "2"
    assert not hasattr(ok, "text") and not hasattr(reg, "execute")  # `.output`, and `run(...).output`
    import vero.core

    assert not hasattr(vero.core, "Observation")  # the type is ToolOutcome


def test_tool_calls_reuse_idle_worker_threads(reg):
    # Starting a thread per call would cost more than the tool; idle workers are reused.
    import threading

    reg.run("add", {"a": 1, "b": 2})
    before = threading.active_count()
    results = [reg.run("add", {"a": i, "b": 1}).output for i in range(200)]
    assert results == [str(i + 1) for i in range(200)]
    assert threading.active_count() <= before + 1


def test_concurrent_tool_calls_get_their_own_results(reg):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(lambda i: reg.run("add", {"a": i, "b": i}).output, range(500)))
    assert results == [str(2 * i) for i in range(500)]


def test_tools_see_the_callers_context_variables():
    import contextvars

    user = contextvars.ContextVar("user", default="nobody")

    @tool(timeout=5)
    def whoami() -> str:
        """Who is calling."""
        return user.get()

    registry = ToolRegistry([whoami])
    user.set("alice")
    assert registry.run("whoami").output == "alice"


def test_a_tool_calling_sys_exit_is_an_observation():
    import sys

    @tool
    def quitter() -> str:
        """Exit the process."""
        sys.exit("bye")

    outcome = ToolRegistry([quitter]).run("quitter")
    assert (outcome.ok, outcome.error) == (False, "exception")
    assert "SystemExit: bye" in outcome.output


def test_a_tool_name_the_api_would_refuse_is_rejected_at_definition():
    with pytest.raises(ValueError, match="must be 1-64 letters"):
        tool(lambda x: x)
    assert tool(name="shout")(lambda text: text.upper()).name == "shout"


def test_tools_are_taken_to_change_things_unless_marked_read_only():
    from vero import tool
    from vero.tools.base import Tool
    from vero.tools.builtin import calculator, current_time, web_search

    @tool
    def delete_note(title: str) -> str:
        """Delete a note."""
        return "deleted"

    @tool(read_only=True)
    def find_note(title: str) -> str:
        """Find a note."""
        return "found"

    assert delete_note.read_only is False
    assert find_note.read_only is True
    assert Tool(find_note, name="lookup").read_only is True  # re-wrapping keeps it
    assert Tool(find_note, read_only=False).read_only is False
    assert all(t.read_only for t in (calculator, current_time, web_search))


# -- enum.Enum parameters: offered, checked and passed like a Literal of their values, as members ----------
class Shade(enum.Enum):
    LIGHT = "light"
    DARK = "dark"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 3


@tool
def tint(shade: Shade, level: Level = Level.LOW, trim: Shade | None = None, layers: list[Shade] | None = None) -> str:
    """Tint a sample."""
    return repr((shade, level, trim, layers))


def test_an_enum_parameter_lists_its_members_values_in_the_schema():
    props = tint.parameters["properties"]
    assert props["shade"] == {"type": "string", "enum": ["light", "dark"]}
    assert props["level"] == {"type": "integer", "enum": [1, 3], "default": 1}  # the default as its value
    assert props["trim"]["enum"] == ["light", "dark", None]
    assert props["layers"]["items"] == {"type": "string", "enum": ["light", "dark"]}
    assert 'shade: "light" | "dark"' in tint.signature()


def test_an_enum_argument_reaches_the_function_as_the_member():
    out = ToolRegistry([tint]).run("tint", {"shade": "dark", "level": "3", "trim": "light", "layers": ["dark"]})
    assert out.ok and out.output == repr((Shade.DARK, Level.HIGH, Shade.LIGHT, [Shade.DARK]))
    assert ToolRegistry([tint]).run("tint", {"shade": "light"}).output == repr((Shade.LIGHT, Level.LOW, None, None))


@pytest.mark.parametrize("args", [{"shade": "blue"}, {"shade": "DARK"}, {"shade": "light", "level": 2}])
def test_a_value_that_is_no_members_value_is_refused_naming_the_allowed_ones(args):
    out = ToolRegistry([tint]).run("tint", args)
    assert not out.ok and out.error == "bad_arguments"
    assert 'expected "light" | "dark"' in out.output or "expected 1 | 3" in out.output


class Point(enum.Enum):
    ORIGIN = (0, 0)


def test_an_enum_whose_values_are_not_strings_or_numbers_is_refused_when_the_tool_is_made():
    def place(at: Point) -> str:
        return str(at)

    with pytest.raises(TypeError, match="the Enum Point cannot be a tool parameter"):
        tool(place)


# -- callables of every kind a user may hand to Tool ------------------------------------------------------------
def test_an_async_tool_is_awaited_in_run_and_in_arun():
    import asyncio

    from vero.agents import ToolCallingAgent

    @tool
    async def look_up(key: str) -> str:
        """Look a key up."""
        await asyncio.sleep(0)
        return f"value of {key}"

    def agent():
        replies = [{"tool_calls": [{"name": "look_up", "arguments": {"key": "k1"}}]}, "done"]
        return ToolCallingAgent("a", ScriptedLLM(replies), tools=[look_up], verbose=False)

    ran = agent()
    ran.run("Look k1 up.")
    awaited = agent()
    asyncio.run(awaited.arun("Look k1 up."))
    for each in (ran, awaited):
        assert [s.content for s in each.last_result.steps_of("observation")] == ["value of k1"]


def test_an_async_tool_with_no_time_limit_runs_from_inside_a_running_event_loop():
    import asyncio

    @tool(timeout=math.inf)  # run on the caller's thread, where a loop already runs
    async def look_up(key: str) -> str:
        """Look a key up."""
        await asyncio.sleep(0)
        return f"value of {key}"

    async def inside_a_loop() -> str:
        return ToolRegistry([look_up]).run("look_up", {"key": "k1"}).output

    assert asyncio.run(inside_a_loop()) == "value of k1"


def test_a_partial_and_a_callable_object_keep_their_hints_names_and_docstrings():
    def area(width: int, height: int) -> int:
        """Area of a rectangle.

        Args:
            width: the width
        """
        return width * height

    class Adder:
        """Add two whole numbers."""

        def __call__(self, x: int, y: int) -> int:
            return x + y

    partial, adder = Tool(functools.partial(area, height=2)), Tool(Adder())
    assert (partial.name, partial.description) == ("area", "Area of a rectangle.")
    assert partial.parameters["properties"]["width"] == {"type": "integer", "description": "the width"}
    assert (adder.name, adder.description) == ("Adder", "Add two whole numbers.")
    assert adder.parameters["required"] == ["x", "y"]
    assert ToolRegistry([partial]).run("area", {"width": "3"}).output == "6"  # "3" built as an int, not "33"
    assert ToolRegistry([adder]).run("Adder", {"x": "1", "y": "2"}).output == "3"


def test_a_list_without_an_item_type_still_has_items_in_its_schema():
    def tag(names: list, groups: list[list]) -> str:
        """Tag."""
        return "ok"

    properties = Tool(tag).parameters["properties"]
    assert properties["names"] == {"type": "array", "items": {}}
    assert properties["groups"] == {"type": "array", "items": {"type": "array", "items": {}}}


@pytest.mark.parametrize("timeout", [None, math.inf])  # on a worker thread, and inline
def test_an_exception_whose_message_cannot_be_made_is_still_an_observation(timeout):
    class Broken(Exception):
        def __str__(self) -> str:
            raise AttributeError("no detail")

    def fail() -> str:
        """Fail."""
        raise Broken()

    outcome = ToolRegistry([Tool(fail, timeout=timeout)]).run("fail", {})
    assert (outcome.ok, outcome.output) == (False, "Error: tool 'fail' raised Broken")


def test_a_tool_decorated_inside_a_class_is_bound_to_its_instance():
    class Shop:
        def __init__(self) -> None:
            self.stock = {"apple": 3}

        @tool(read_only=True)
        def count(self, item: str) -> int:
            """How many of an item are in stock."""
            return self.stock.get(item, 0)

    bound = Shop().count
    assert list(bound.parameters["properties"]) == ["item"] and bound.read_only
    assert ToolRegistry([bound]).run("count", {"item": "apple"}).output == "3"


def test_extra_keyword_arguments_are_checked_against_their_annotation():
    def tally(**counts: int) -> int:
        """Add up counts."""
        return sum(counts.values())

    tallied = Tool(tally)
    assert tallied.parameters["additionalProperties"] == {"type": "integer"}
    assert ToolRegistry([tallied]).run("tally", {"a": "2", "b": 3}).output == "5"
    assert not ToolRegistry([tallied]).run("tally", {"a": "many"}).ok


def test_null_is_accepted_where_the_default_is_none():
    def page(size: int = None) -> str:  # type: ignore[assignment]  # a common way to write it
        """A page."""
        return f"size {size}"

    assert ToolRegistry([Tool(page)]).run("page", {"size": None}).output == "size None"


@pytest.mark.parametrize("timeout", [0, -1, math.nan, "5", True])
def test_a_timeout_that_is_no_positive_number_of_seconds_is_refused_when_the_tool_is_made(timeout):
    with pytest.raises(ValueError, match="timeout must be seconds above 0"):
        Tool(lambda: "x", name="x", timeout=timeout)


def test_a_literal_of_enum_members_is_refused_when_the_tool_is_made():
    class Shade(enum.Enum):
        DARK = "dark"

    def paint(shade: Literal[Shade.DARK]) -> str:
        """Paint."""
        return "ok"

    with pytest.raises(TypeError, match="use the Enum type itself"):
        Tool(paint)


def test_a_json_boolean_is_not_one_of_a_literal_s_numbers():
    def mode(level: Literal["auto", 0, 1]) -> str:
        """Set the mode."""
        return repr(level)

    registry = ToolRegistry([Tool(mode)])
    assert registry.run("mode", {"level": 1}).output == "1"
    assert not registry.run("mode", {"level": True}).ok


def test_defaults_are_shown_to_the_model_as_json():
    def pick(choices: list[int] = {2, 1}, limit: float = math.inf) -> str:  # noqa: B006
        """Pick."""
        return "ok"

    properties = Tool(pick).parameters["properties"]
    assert properties["choices"]["default"] == [1, 2]
    json.dumps(Tool(pick).parameters, allow_nan=False)  # no Infinity: the API would refuse the request
