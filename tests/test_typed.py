"""Typed results (run(output_type=...)), typed tool parameters, and agents as tools (issue 45 items 1, 2, 4)."""

from __future__ import annotations

import asyncio
import enum
import json
import os
import threading
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from typing import Annotated, ClassVar, Literal, NamedTuple, TypedDict

import annotated_types
import pydantic
import pytest
from mock_pool import pooled_mock_server
from typing_extensions import NotRequired

from vero import Tool, tool
from vero.agents import BasicReflectionAgent, PlanExecuteAgent, ReActAgent, ReflexionAgent, ToolCallingAgent
from vero.core.chat_openai import ChatOpenAI
from vero.core.message import Message
from vero.core.result import Status
from vero.core.stream import RunFinished, ToolCallStarted
from vero.errors import LLMCallError
from vero.testing import ScriptedLLM
from vero.tools import ToolRegistry
from vero.tools.base import coerce, parse_docstring
from vero.tools.schema import EXACT, InvalidValue, convert, type_to_schema


# -- the types used below ------------------------------------------------------------------
class Unit(enum.Enum):
    CELSIUS = "c"
    FAHRENHEIT = "f"


@dataclass
class Address:
    """A postal address."""

    street: str
    zip: int
    unit: Unit = Unit.CELSIUS


@dataclass
class Order:
    item: str
    quantity: int
    ship_to: Address
    tags: list[str] = field(default_factory=list)


class Options(TypedDict, total=False):
    fast: bool
    retries: int


class Filters(TypedDict):
    city: str
    limit: NotRequired[int]


class Point(NamedTuple):
    x: float
    y: float = 0.0


class Person(pydantic.BaseModel):
    name: str
    age: int
    home: Address | None = None


@dataclass
class Tree:
    label: str
    children: list[Tree]


@dataclass
class Positive:
    value: int

    def __post_init__(self) -> None:
        if self.value <= 0:
            raise ValueError("value must be positive")


class Plain:
    """A class without fields."""


def registry_of(func: Callable[..., object]) -> ToolRegistry:
    return ToolRegistry([tool(func)])


# -- one schema builder ------------------------------------------------------------------
def test_a_nested_dataclass_parameter_has_an_object_schema_with_its_fields_and_defaults():
    def place(order: Order) -> str:
        return ""

    schema = tool(place).parameters["properties"]["order"]
    assert schema["type"] == "object" and schema["required"] == ["item", "quantity", "ship_to"]
    assert schema["additionalProperties"] is False
    address = schema["properties"]["ship_to"]
    assert address["properties"]["zip"] == {"type": "integer"}
    assert address["properties"]["unit"] == {"type": "string", "enum": ["c", "f"], "default": "c"}
    assert address["description"] == "A postal address."
    assert schema["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}


def test_typed_dict_keys_are_required_as_declared():
    assert type_to_schema(Options)["required"] == []
    assert type_to_schema(Filters)["required"] == ["city"]
    assert type_to_schema(Filters)["properties"]["limit"] == {"type": "integer"}


def test_an_annotated_string_is_the_parameter_description_and_a_docstring_line_wins():
    def search(query: Annotated[str, "what to look for"], limit: Annotated[int, "at most this many"] = 5) -> str:
        """Search.

        Args:
            limit: how many results
        """
        return ""

    props = tool(search).parameters["properties"]
    assert props["query"] == {"type": "string", "description": "what to look for"}
    assert props["limit"]["description"] == "how many results" and props["limit"]["default"] == 5


def test_a_pydantic_model_parameter_uses_its_own_schema_with_references_written_out():
    def register(person: Person) -> str:
        return ""

    schema = tool(register).parameters["properties"]["person"]
    text = json.dumps(schema)
    assert "$ref" not in text and "$defs" not in text
    assert schema["required"] == ["name", "age"]
    home = schema["properties"]["home"]["anyOf"][0]
    assert home["properties"]["zip"]["type"] == "integer"


@pytest.mark.parametrize(
    "hint, named",
    [
        (Callable[[int], int], "callback"),
        (Plain, "Plain has no JSON form"),
        (dict[int, str], "int keys"),
        (Tree, "recursive"),
        (set[Plain], "Plain"),
    ],
)
def test_a_type_with_no_json_form_is_a_type_error_at_decoration_naming_the_parameter(hint, named):
    def handle(callback):  # the hint is set below: a local class cannot be named in a string annotation
        return ""

    handle.__annotations__ = {"callback": hint}
    with pytest.raises(TypeError, match="parameter 'callback' of handle") as caught:
        tool(handle)
    assert named in str(caught.value)


def test_a_parameter_type_that_cannot_be_resolved_is_a_type_error_naming_it_not_any_value():
    @dataclass
    class Local:  # defined in a function: this module's string annotations cannot name it
        v: int

    def handle(count: int, item: Local) -> str:
        return str(item.v + count)

    with pytest.raises(TypeError, match="parameter 'item' of handle.*Local"):
        tool(handle)


def test_a_return_type_that_cannot_be_resolved_leaves_the_parameters_typed():
    @dataclass
    class Local:
        v: int

    def make(count: int, kind: Unit) -> Local:
        assert isinstance(count, int) and kind is Unit.CELSIUS
        return Local(count)

    made = tool(make)
    assert made.parameters["properties"]["count"] == {"type": "integer"}
    assert ToolRegistry([made]).run("make", {"count": "2", "kind": "c"}).output == '{"v": 2}'  # the dataclass as JSON


def test_sphinx_docstrings_give_descriptions_and_a_summary_without_fields():
    summary, args = parse_docstring(
        """Convert a temperature.

        Reads the value as given.

        :param value: the temperature
            to convert
        :type value: float
        :param str unit: the target unit
        :returns: the converted value
        :raises ValueError: for an unknown unit
        """
    )
    assert summary == "Convert a temperature. Reads the value as given."
    assert args == {"value": "the temperature to convert", "unit": "the target unit"}


def test_numpy_docstrings_give_descriptions_and_a_summary_without_sections():
    summary, args = parse_docstring(
        """Convert a temperature.

        Parameters
        ----------
        value : float
            the temperature
            to convert
        unit : {"c", "f"}, optional
            the target unit

        Returns
        -------
        float
            the converted value
        """
    )
    assert summary == "Convert a temperature."
    assert args == {"value": "the temperature to convert", "unit": "the target unit"}


def test_numpy_parameters_named_together_share_their_description():
    summary, args = parse_docstring(
        """Move a point.

        Parameters
        ----------
        dx, dy : float
            the offsets
        """
    )
    assert summary == "Move a point." and args == {"dx": "the offsets", "dy": "the offsets"}


def test_google_keyword_args_and_other_sections_stay_out_of_the_summary():
    summary, args = parse_docstring(
        """Search the catalogue.

        Args:
            query: what to look for

        Keyword Args:
            limit: how many results

        Warning:
            Slow on large catalogues.
        """
    )
    assert summary == "Search the catalogue."
    assert args == {"query": "what to look for", "limit": "how many results"}


# -- arguments built as their hints ask ----------------------------------------------------------
def test_object_arguments_reach_the_function_as_the_declared_types():
    seen = {}

    def place(order: Order, options: Options, where: Point, person: Person, units: list[Unit]) -> str:
        seen.update(order=order, options=options, where=where, person=person, units=units)
        return "placed"

    order = {"item": "lamp", "quantity": "2", "ship_to": {"street": "Main St", "zip": 12345, "unit": "f"}}
    person = '{"name": "Ada", "age": 36}'  # a JSON string of the object is read too
    outcome = registry_of(place).run(
        "place", {"order": order, "options": {"fast": "true"}, "where": [1, 2], "person": person, "units": ["c"]}
    )
    assert outcome.ok, outcome.output
    assert seen["order"] == Order("lamp", 2, Address("Main St", 12345, Unit.FAHRENHEIT))
    assert seen["options"] == {"fast": True}
    assert seen["where"] == Point(1.0, 2.0) and isinstance(seen["where"], Point)
    assert isinstance(seen["person"], Person) and seen["person"].age == 36
    assert seen["units"] == [Unit.CELSIUS]


def test_every_problem_in_an_object_argument_is_named_with_its_path_and_the_function_is_not_called():
    calls = []

    def place(order: Order, person: Person) -> str:
        calls.append(order)
        return "placed"

    order = {"item": "lamp", "quantity": "two", "ship_to": {"street": "Main St", "zip": "abc", "colour": "red"}}
    outcome = registry_of(place).run("place", {"order": order, "person": {"name": "Ada", "age": "old"}})
    assert outcome.error == "bad_arguments" and calls == []
    for problem in (
        "order.quantity (expected integer, got 'two')",
        "order.ship_to.zip (expected integer, got 'abc')",
        "order.ship_to.colour (unexpected field",
        "person.age (",
    ):
        assert problem in outcome.output, outcome.output


def test_the_fields_of_an_object_argument_given_flat_are_refused_with_a_hint_to_nest_them():
    calls = []

    def place(order: Order) -> str:
        calls.append(order)
        return "placed"

    flat = {"item": "lamp", "quantity": 1, "ship_to": {"street": "Main St", "zip": 1}}
    outcome = registry_of(place).run("place", flat)
    assert outcome.error == "bad_arguments" and calls == []  # never moved into place by vero
    assert 'The fields item, quantity, ship_to belong inside order: {"order": {...}}.' in outcome.output


def test_a_missing_nested_field_is_named_and_nothing_half_filled_is_returned():
    with pytest.raises(InvalidValue) as caught:
        convert({"item": "lamp", "ship_to": {"street": "x"}}, Order)
    assert [path for path, _ in caught.value.problems] == ["quantity", "ship_to.zip"]


@dataclass
class Scaled:
    base: int
    factor: InitVar[int]  # an argument of __init__, not a field: the model must give it too
    limit: ClassVar[int] = 10
    total: int = field(init=False, default=0)

    def __post_init__(self, factor: int) -> None:
        self.total = self.base * factor


def test_an_init_var_is_asked_for_and_passed_and_class_vars_and_init_false_fields_are_not():
    schema = type_to_schema(Scaled)
    assert list(schema["properties"]) == ["base", "factor"] and schema["required"] == ["base", "factor"]
    assert convert({"base": 2, "factor": "3"}, Scaled).total == 6


def test_a_dataclass_that_refuses_its_values_is_a_named_problem():
    with pytest.raises(InvalidValue, match="Positive refused the values: value must be positive"):
        convert({"value": -1}, Positive)


def test_bare_containers_become_their_own_type():
    assert convert([1, 2, 2], set) == {1, 2} and convert("[1, 2]", tuple) == (1, 2)
    assert convert(["1", 2], frozenset[int]) == frozenset({1, 2})


def test_a_fixed_length_tuple_is_checked_item_by_item():
    assert convert(["a", "2"], tuple[str, int]) == ("a", 2)
    with pytest.raises(InvalidValue, match="expected 2 items, got 3"):
        convert(["a", 2, 3], tuple[str, int])


def test_a_bare_json_schema_is_checked_in_depth_too():
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "integer"}}},
        "required": ["name"],
    }
    assert coerce({"name": "x", "tags": ["1"]}, schema) == {"name": "x", "tags": [1]}
    with pytest.raises(InvalidValue, match=r"tags\[1\]: expected integer, got 'b'; name: required, missing"):
        coerce({"tags": [1, "b"]}, schema)


@pytest.mark.parametrize(
    "schema, value, problem",
    [
        ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, {"a": 1}, "expected integer or string"),
        ({"allOf": [{"type": "object", "required": ["a"]}]}, {"b": 1}, "a: required, missing"),
        ({"const": "yes"}, "no", 'expected "yes"'),
        ({"type": "integer", "minimum": 1, "maximum": 10}, 42, "expected at most 10, got 42"),
        ({"type": "number", "exclusiveMinimum": 0}, 0, "expected more than 0, got 0"),
        ({"type": "string", "maxLength": 3}, "hello", "expected at most 3 characters, got 5"),
        ({"type": "string", "minLength": 1}, "", "expected at least 1 characters, got 0"),
        ({"type": "string", "pattern": "^[0-9]{5}$"}, "abc", "expected text matching ^[0-9]{5}$, got 'abc'"),
        ({"type": "object", "properties": {"age": {"type": "integer", "minimum": 0}}}, {"age": -3}, "age: expected"),
    ],
)
def test_the_validation_keywords_of_a_json_schema_are_checked_not_passed_over(schema, value, problem):
    with pytest.raises(InvalidValue) as caught:
        coerce(value, schema)
    assert problem in str(caught.value)


def test_a_value_that_fits_more_than_one_option_of_a_one_of_does_not_fit():
    schema = {"oneOf": [{"type": "integer"}, {"type": "number"}]}
    with pytest.raises(InvalidValue, match=r"expected exactly one of integer or number, got 5, which matches more"):
        coerce(5, schema)
    assert coerce(5.5, schema) == 5.5  # a number, not an integer: one option fits
    assert coerce(5, {"anyOf": schema["oneOf"]}) == 5  # anyOf: any number of options may fit
    # an option that takes the value as it is counts before one that would convert it
    assert coerce("5", {"oneOf": [{"type": "integer"}, {"type": "string"}]}) == "5"
    with pytest.raises(InvalidValue, match=r"b: expected exactly one of"):  # in depth, named by its path
        coerce({"b": 1}, {"type": "object", "properties": {"b": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}}})


def test_a_value_within_the_json_schema_keywords_fits():
    assert coerce("7", {"type": "integer", "minimum": 1, "maximum": 10}) == 7
    assert coerce({"a": "1"}, {"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}}]}) == {"a": 1}
    assert coerce("12345", {"type": "string", "pattern": "^[0-9]{5}$", "maxLength": 5}) == "12345"
    assert coerce("x", {"type": "string", "pattern": "(?<=a"}) == "x"  # a pattern Python cannot read: not checked


@dataclass
class Booking:
    guests: Annotated[int, pydantic.Field(ge=1, le=8)]
    code: Annotated[str, annotated_types.MinLen(3), annotated_types.MaxLen(3)]
    nights: Annotated[list[int], annotated_types.MinLen(1)] = field(default_factory=lambda: [1])


def test_constraints_in_annotated_are_in_the_schema_and_checked():
    assert type_to_schema(Booking)["properties"]["guests"] == {"type": "integer", "minimum": 1, "maximum": 8}
    assert type_to_schema(Booking)["properties"]["nights"]["minItems"] == 1
    assert convert({"guests": "2", "code": "ABC"}, Booking) == Booking(2, "ABC")
    with pytest.raises(InvalidValue) as caught:
        convert({"guests": 9, "code": "ABCD", "nights": []}, Booking)
    assert str(caught.value) == (
        "guests: expected at most 8, got 9; code: expected at most 3 characters, got 4; "
        "nights: expected at least 1 items, got 0"
    )


def test_a_tool_parameter_constraint_from_a_pydantic_field_refuses_a_value_outside_it():
    def roll(sides: Annotated[int, pydantic.Field(ge=2, description="how many sides")]) -> str:
        return str(sides)

    made = tool(roll)
    assert made.parameters["properties"]["sides"] == {"type": "integer", "minimum": 2, "description": "how many sides"}
    assert "sides (expected at least 2, got 1)" in ToolRegistry([made]).run("roll", {"sides": 1}).output
    assert ToolRegistry([made]).run("roll", {"sides": "6"}).output == "6"


# -- output_type -------------------------------------------------------------------------------
def tool_calling(replies, **kwargs):
    llm = ScriptedLLM(replies, **kwargs)
    return ToolCallingAgent("typed", llm, verbose=False), llm


def test_a_dataclass_output_is_read_from_a_fenced_json_answer():
    agent, llm = tool_calling(['```json\n{"street": "Main St", "zip": "12345"}\n```'])
    address = agent.run("Where?", output_type=Address)
    assert address == Address("Main St", 12345) and agent.last_result.output == address
    assert agent.last_result.status == Status.OK and llm.calls == 1
    assert '"zip": {"type": "integer"}' in llm.requests[0].messages[-1]["content"]  # the model is told the form


@pytest.mark.parametrize(
    "output_type, answer, expected",
    [
        (int, "42", 42),
        (float, " 2.5 ", 2.5),
        (bool, "yes", True),
        (Literal["positive", "negative"], "negative", "negative"),
        (Literal["positive", "negative"], '"positive"', "positive"),
        (Unit, "f", Unit.FAHRENHEIT),
        (list[int], "[1, 2, 3]", [1, 2, 3]),
        (dict[str, int], '{"a": 1}', {"a": 1}),
        (Point, '{"x": 1}', Point(1.0, 0.0)),
        (Filters, '{"city": "Oslo"}', {"city": "Oslo"}),
        (list[Address], '[{"street": "a", "zip": 1}]', [Address("a", 1)]),
        (int, '{"answer": 7}', 7),  # a constrained reply's wrapper
        (int | str, "Oslo", "Oslo"),  # a choice of simple values: a bare value too
        (Unit | int, "c", Unit.CELSIUS),
        (float | bool, "yes", True),
        (str | None, "true", "true"),  # JSON of another kind: the bare text, as the type asks
        (Literal["true", "false"], "false", "false"),
        # the markup and end punctuation small models put around a whole answer
        (bool, "no.", False),
        (int, "**42**", 42),
        (Literal["positive", "negative"], "`negative`", "negative"),
        (float, "_2.5_!", 2.5),
    ],
)
def test_each_output_type_is_read_and_built(output_type, answer, expected):
    agent, _ = tool_calling([answer])
    assert agent.run("task", output_type=output_type) == expected
    assert agent.last_result.status == Status.OK


def test_a_pydantic_output_is_an_instance_and_to_dict_gives_plain_values():
    agent, _ = tool_calling(['{"name": "Ada", "age": 36, "home": {"street": "a", "zip": 1}}'])
    person = agent.run("Who?", output_type=Person)
    assert isinstance(person, Person) and person.home == Address("a", 1)
    assert agent.last_result.to_dict()["output"] == {
        "name": "Ada",
        "age": 36,
        "home": {"street": "a", "zip": 1, "unit": "c"},
    }


@pytest.mark.parametrize(
    "output_type, answer, again, expected",
    [(bool, "**No**, it is not.", "no", False), (int, "The answer is 42.", "42", 42), (int, "42 units", "42", 42)],
)
def test_words_around_a_simple_value_are_not_read_past_the_answer_is_sent_back(output_type, answer, again, expected):
    agent, _ = tool_calling([answer, again])
    assert agent.run("task", output_type=output_type) == expected
    assert agent.last_result.llm_calls == 2  # the first answer did not fit: one re-ask


def test_an_answer_that_does_not_fit_is_sent_back_with_every_problem_named():
    agent, llm = tool_calling(['{"street": 5}', '{"street": "Main St", "zip": 12345}'])
    assert agent.run("Where?", output_type=Address) == Address("Main St", 12345)
    reask = llm.requests[1].messages[-1]["content"]
    assert "- zip: required, missing" in reask and '{"street": 5}' == llm.requests[1].messages[-2]["content"]
    assert llm.calls == 2 and agent.last_result.llm_calls == 2
    warnings = agent.last_result.steps_of("warning")
    assert len(warnings) == 1 and "zip: required, missing" in warnings[0].content


def test_the_re_asks_are_bounded_then_the_run_ends_invalid_output_with_the_raw_text():
    agent, llm = tool_calling(["lots", "many", "several"])
    assert agent.run("How many?", output_type=int, output_retries=1) is None
    result = agent.last_result
    assert llm.calls == 2 and result.status == Status.INVALID_OUTPUT == "invalid_output"
    assert result.answer == "many" and result.output is None
    assert "expected integer, got 'many'" in str(result.error)
    assert agent.history == []  # no half turn kept


def test_output_retries_zero_asks_once():
    agent, llm = tool_calling(["lots"])
    assert agent.run("How many?", output_type=int, output_retries=0) is None
    assert llm.calls == 1 and agent.last_result.status == Status.INVALID_OUTPUT


def test_without_output_type_the_task_and_the_calls_are_unchanged():
    agent, llm = tool_calling(["lots"])
    assert agent.run("How many?") == "lots"
    assert llm.requests[0].messages[-1]["content"] == "How many?" and llm.calls == 1
    assert agent.last_result.output is None and agent.last_result.to_dict()["output"] is None


def test_an_output_type_with_no_json_form_is_a_type_error_before_the_run():
    agent, llm = tool_calling(["x"])
    with pytest.raises(TypeError, match="Plain has no JSON form"):
        agent.run("task", output_type=Plain)
    assert llm.calls == 0 and agent.last_result is None


def test_an_answer_cut_short_by_the_turn_budget_is_read_but_never_re_asked():
    llm = ScriptedLLM([{"tool_calls": [{"name": "count", "arguments": {}}]}, "not a number"])

    @tool(read_only=True)
    def count() -> int:
        """Count."""
        return 3

    agent = ToolCallingAgent("t", llm, tools=[count], max_turns=1, verbose=False)
    assert agent.run("How many?", output_type=int) is None
    assert agent.last_result.status == Status.MAX_TURNS and llm.calls == 2


def test_the_re_ask_is_constrained_by_a_json_schema_where_the_server_supports_it():
    agent, llm = tool_calling(["about six", '{"answer": 6}'], json_schema=True)
    assert agent.run("How many?", output_type=int) == 6
    assert "response_format" not in llm.requests[0].options  # the loop's own call: parsed and checked
    schema = llm.requests[1].options["response_format"]["json_schema"]["schema"]
    assert schema == {
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
        "additionalProperties": False,
    }


@tool(read_only=True)
def count_items(kind: str) -> str:
    """How many items of a kind there are."""
    return "6"


@pytest.mark.parametrize("tools", [[], [count_items]])
def test_a_hosted_model_s_replies_in_the_tool_loop_are_constrained_to_the_type(tools):
    llm = ScriptedLLM(['{"answer": 6}'], json_schema=True, hosted=True)
    agent = ToolCallingAgent("typed", llm, tools=tools, verbose=False)
    assert agent.run("How many?", output_type=int) == 6 and llm.calls == 1
    sent = llm.requests[0]
    assert sent.options["response_format"]["json_schema"]["schema"]["properties"] == {"answer": {"type": "integer"}}
    assert bool(sent.tools) == bool(tools)  # it may still call a tool: a hosted server allows both


@pytest.mark.parametrize("output_type, strict", [(int, True), (Point, False)])  # Point's y has a default
def test_a_typed_answer_s_schema_is_strict_where_openai_s_strict_mode_can_hold_it(output_type, strict):
    llm = ScriptedLLM(['{"answer": 6}', '{"x": 1, "y": 2}'], json_schema=True, hosted=True)
    ToolCallingAgent("typed", llm, verbose=False).run("How many?", output_type=output_type)
    assert llm.requests[0].options["response_format"]["json_schema"]["strict"] is strict


def test_a_local_server_s_tool_loop_is_not_constrained_its_grammar_would_forbid_the_calls():
    llm = ScriptedLLM(["6"], json_schema=True)
    agent = ToolCallingAgent("typed", llm, tools=[count_items], verbose=False)
    assert agent.run("How many?", output_type=int) == 6
    assert "response_format" not in llm.requests[0].options


# -- every pattern ---------------------------------------------------------------------------------
def test_react_final_answer_is_typed():
    llm = ScriptedLLM(["Thought: done\nFinal Answer: 42"])
    agent = ReActAgent("r", llm, verbose=False)
    assert agent.run("6 * 7?", output_type=int) == 42


def test_basic_reflection_last_revision_is_typed_and_its_drafts_are_constrained():
    critique = '{"thinking": "t", "is_sufficient": false, "feedback": "count again"}'
    llm = ScriptedLLM(['{"answer": 5}', critique, '{"answer": 6}', critique], json_schema=True)
    agent = BasicReflectionAgent("b", llm, max_turns=2, verbose=False)
    assert agent.run("How many?", output_type=int) == 6
    assert agent.last_result.status == Status.NEEDS_REVIEW
    draft, revision = llm.requests[0].options, llm.requests[2].options
    assert draft["response_format"] == revision["response_format"]
    assert "response_format" not in llm.requests[1].options  # the critic's call is its own


def test_reflexion_best_attempt_is_typed():
    verdict = '{"pass": true, "reason": "right", "score": 90}'
    llm = ScriptedLLM(["Paris", verdict])
    agent = ReflexionAgent("x", llm, verbose=False)
    assert agent.run("Capital of France?", output_type=Literal["Paris", "Rome"]) == "Paris"


def test_plan_execute_final_step_is_typed():
    llm = ScriptedLLM([json.dumps({"steps": ["count"]}), "Final Answer: 3", json.dumps({"response": "3 items"}), "3"])
    agent = PlanExecuteAgent("p", llm, verbose=False)
    assert agent.run("How many?", output_type=int) == 3
    assert llm.calls == 4  # the plan's answer "3 items" did not fit: one re-ask


def test_a_re_asked_answer_cut_off_at_the_output_limit_is_not_read_as_the_type():
    cut = {"content": "70", "finish_reason": "length"}  # 70 of 70000, cut off
    agent, llm = tool_calling(["about seventy thousand", cut, "70000"])
    assert agent.run("How many?", output_type=int) == 70000
    assert llm.calls == 3  # the cut-off re-ask was asked again
    warnings = [step.content for step in agent.last_result.steps_of("warning")]
    assert any("cut off at the output limit" in warning for warning in warnings)


def test_an_earlier_cut_off_reply_does_not_make_a_whole_answer_cut_off():
    cut = {"content": "I think 42 but let me", "finish_reason": "length"}  # nudged: asked again, shorter
    agent, llm = tool_calling([cut, "42"])
    assert agent.run("How many?", output_type=int) == 42 and llm.calls == 2


def test_an_answer_that_did_not_fit_is_kept_when_its_re_ask_fails():
    agent, _ = tool_calling(["about seventy thousand", RuntimeError("the server went away")])
    assert agent.run("How many?", output_type=int) is None
    result = agent.last_result
    assert (result.status, result.answer) == (Status.FAILED, "about seventy thousand")


@pytest.mark.parametrize("response", [{"name": "Oslo", "size": 709000}, 709000, True])
def test_plan_execute_reads_a_replanner_s_answer_written_as_a_json_value_not_text(response):
    plan, replan = json.dumps({"steps": ["look it up"]}), json.dumps({"response": response})
    llm = ScriptedLLM([plan, "Final Answer: found", replan])
    agent = PlanExecuteAgent("p", llm, verbose=False)
    answer = agent.run("Which city, and how big?")
    assert (answer, agent.last_result.status) == (json.dumps(response), Status.OK)
    assert llm.calls == 3  # no re-ask: the value is the answer


def test_arun_and_stream_return_the_typed_output():
    agent, _ = tool_calling(["42", "43"])
    assert asyncio.run(agent.arun("task", output_type=int)) == 42
    events = list(agent.stream("task", output_type=int))
    assert isinstance(events[-1], RunFinished) and events[-1].result.output == 43


# -- agents as tools -------------------------------------------------------------------------------
@tool(read_only=True)
def lookup(city: str) -> str:
    """The population of a city."""
    return {"Oslo": "709,000"}.get(city, "unknown")


@tool
def book(city: str) -> str:
    """Book a trip (changes things)."""
    return "booked"


def researcher(replies, tools=(lookup,)):
    return ToolCallingAgent("researcher", ScriptedLLM(replies), tools=list(tools), verbose=False)


def call_researcher(task="Population of Oslo?"):
    return f"Thought: ask\nAction: researcher\nAction Input: {json.dumps({'task': task})}"


def test_an_agent_as_a_tool_runs_nested_in_the_callers_run():
    inner = researcher([{"tool_calls": [{"name": "lookup", "arguments": {"city": "Oslo"}}]}, "709,000 people"])
    inner.history = ["earlier"]  # set aside for the tool's fresh run, then put back
    outer_llm = ScriptedLLM([call_researcher(), "Final Answer: 709,000"])
    outer = ReActAgent("boss", outer_llm, tools=[inner.as_tool()], verbose=False)
    assert outer.run("How many live in Oslo?") == "709,000"
    result = outer.last_result
    assert result.llm_calls == 4  # two of its own, two of the researcher's
    nested = [(s.depth, s.kind) for s in result.steps if s.depth == 1]
    assert nested == [(1, "action"), (1, "observation"), (1, "final")]
    observation = next(s for s in result.steps if s.depth == 0 and s.kind == "observation")
    assert observation.content == "709,000 people"
    assert inner.history == ["earlier"]
    sent = inner.llm.requests[0].messages
    assert [m["role"] for m in sent] == ["system", "user"] and sent[-1]["content"] == "Population of Oslo?"


def test_the_tool_is_read_only_only_when_the_agent_uses_no_tools_or_the_user_says_so():
    assert not researcher([]).as_tool().read_only  # tools may be registered later
    assert not researcher([], tools=[lookup]).as_tool().read_only  # lookups now; what it reaches may change
    assert not ReflexionAgent("careful", ScriptedLLM([]), executor=researcher([], tools=[book])).as_tool().read_only
    assert BasicReflectionAgent("critic", ScriptedLLM([]), verbose=False).as_tool().read_only
    assert researcher([], tools=[lookup]).as_tool(read_only=True).read_only
    assert not BasicReflectionAgent("critic", ScriptedLLM([]), verbose=False).as_tool(read_only=False).read_only
    named = researcher([]).as_tool(name="ask_research", description="Ask the research desk.")
    assert (named.name, named.description) == ("ask_research", "Ask the research desk.")


def test_a_failed_sub_run_is_an_error_observation_naming_its_status():
    inner = researcher([RuntimeError("server down")])
    outer_llm = ScriptedLLM([call_researcher(), "Final Answer: unknown"])
    outer = ReActAgent("boss", outer_llm, tools=[inner.as_tool()], verbose=False)
    outer.run("How many live in Oslo?")
    observation = next(s for s in outer.last_result.steps if s.depth == 0 and s.kind == "observation")
    assert observation.data["ok"] is False
    assert "ended 'failed'" in observation.content and "server down" in observation.content


def test_an_agent_busy_with_a_run_of_its_own_is_an_error_observation_saying_so():
    def asks(agent_name):
        return {"tool_calls": [{"name": agent_name, "arguments": {"task": "help"}}]}

    alice = ToolCallingAgent("alice", ScriptedLLM([asks("bob"), "alice done"]), verbose=False)
    bob = ToolCallingAgent("bob", ScriptedLLM([asks("alice"), "bob done"]), verbose=False)
    alice.tools.register(bob.as_tool())
    bob.tools.register(alice.as_tool())  # a cycle: alice asks bob, who asks alice, busy with that very task
    alice.history = [Message.user("earlier"), Message.assistant("yes")]
    assert alice.run("go") == "alice done"
    observation = next(s for s in alice.last_result.steps if s.depth == 1 and s.kind == "observation")
    assert "the agent 'alice' is busy with a task" in observation.content
    assert "ConcurrentRunError" not in observation.content
    assert [m.content for m in alice.history] == ["earlier", "yes", "go", "alice done"]


def test_the_sub_runs_usage_counts_toward_the_callers_token_budget():
    big = {"content": "709,000 people", "usage": {"prompt_tokens": 5000, "completion_tokens": 10}}
    inner = researcher([big])
    outer_llm = ScriptedLLM([call_researcher(), "Final Answer: 709,000"])
    outer = ReActAgent("boss", outer_llm, tools=[inner.as_tool()], verbose=False, max_tokens_per_run=3000)
    outer.run("How many live in Oslo?")
    assert outer.last_result.status == Status.MAX_TOKENS
    assert outer.last_result.usage["prompt_tokens"] >= 5000


def test_the_sub_runs_events_reach_the_callers_stream():
    inner = researcher([{"tool_calls": [{"name": "lookup", "arguments": {"city": "Oslo"}}]}, "709,000 people"])
    outer = ReActAgent("boss", ScriptedLLM([call_researcher(), "Final Answer: 709,000"]), tools=[inner.as_tool()])
    outer.verbose = False
    events = list(outer.stream("How many live in Oslo?"))
    calls = [(e.tool, e.depth) for e in events if isinstance(e, ToolCallStarted)]
    assert calls == [("researcher", 0), ("lookup", 1)]


def test_cancelling_the_caller_cancels_the_sub_run():
    started, release = threading.Event(), threading.Event()

    def slow_reply(messages):
        started.set()
        release.wait(5)
        return {"tool_calls": [{"name": "lookup", "arguments": {"city": "Oslo"}}]}

    inner = researcher([slow_reply, "never sent"])
    outer_llm = ScriptedLLM([call_researcher(), "Final Answer: never"])
    outer = ReActAgent("boss", outer_llm, tools=[inner.as_tool()], verbose=False)
    worker = threading.Thread(target=outer.run, args=("How many live in Oslo?",))
    worker.start()
    assert started.wait(5)
    outer.cancel()
    release.set()
    worker.join(5)
    assert outer.last_result.status == Status.CANCELLED
    assert inner.last_result.status == Status.CANCELLED and inner.llm.calls == 1


def test_a_react_agent_calls_a_reflexion_agent():
    verdict = '{"pass": true, "reason": "right", "score": 90}'
    checker = ReflexionAgent("checker", ScriptedLLM(["Paris", verdict]), verbose=False)
    outer_llm = ScriptedLLM(
        ['Thought: ask\nAction: checker\nAction Input: {"task": "Capital of France?"}', "Final Answer: Paris"]
    )
    outer = ReActAgent("boss", outer_llm, tools=[checker.as_tool()], verbose=False)
    assert outer.run("Capital of France?") == "Paris"
    assert outer.last_result.llm_calls == 4
    assert any(s.depth == 1 and s.kind == "attempt" for s in outer.last_result.steps)


# -- over real HTTP -----------------------------------------------------------------------------
def http_llm(server):
    return ChatOpenAI(model_name="mock", api_key="sk-test", base_url=server.base_url, max_retries=0)


def llama_cpp(server):
    """The mock answers llama.cpp's /props: the client then knows it constrains replies to a JSON schema."""
    server.add_route("GET", "/props", lambda request: (200, {}, {"default_generation_settings": {}}))


def test_over_http_a_typed_answer_is_re_asked_with_a_json_schema_response_format():
    replies = ["It is Main St, zip unknown", {"json": {"street": "Main St", "zip": 12345}}]
    with pooled_mock_server(replies) as server:
        llama_cpp(server)
        agent = ToolCallingAgent("typed", http_llm(server), verbose=False)
        assert agent.run("Where?", output_type=Address) == Address("Main St", 12345)
        sent = [r for r in server.requests if "messages" in r]
    assert "response_format" not in sent[0]
    response_format = sent[1]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["schema"]["required"] == ["street", "zip"]
    assert "- the answer is not JSON (it has no JSON object or array)" in sent[1]["messages"][-1]["content"]


def test_over_http_a_refused_answer_format_is_asked_again_without_it_for_the_rest_of_the_run():
    replies = ["It is Main St, zip unknown", '{"street": "Main St", "zip": 12345}']
    with pooled_mock_server(replies, reject_response_format=True) as server:
        llama_cpp(server)  # the server says it constrains replies, and then refuses this response_format
        agent = ToolCallingAgent("typed", http_llm(server), verbose=False)
        assert agent.run("Where?", output_type=Address) == Address("Main St", 12345)
        sent = [r for r in server.requests if "messages" in r]
    assert agent.last_result.status == Status.OK
    assert ["response_format" in request for request in sent] == [False, True, False]
    warnings = [s.content for s in agent.last_result.steps if s.kind == "warning"]
    assert any("response_format" in warning and "HTTP 400" in warning for warning in warnings)


def test_a_pattern_whose_answer_calls_are_constrained_goes_on_unconstrained_after_a_refusal():
    def draft(messages, response_format=None):
        if response_format is not None:
            return LLMCallError("model call failed (HTTP 400): schema not supported", status=400)
        return "6"

    critique = '{"thinking": "t", "is_sufficient": true, "feedback": ""}'
    llm = ScriptedLLM([draft, draft, critique], json_schema=True)
    agent = BasicReflectionAgent("b", llm, verbose=False)
    assert agent.run("How many?", output_type=int) == 6
    assert [("response_format" in r.options) for r in llm.requests] == [True, False, False]


def test_an_answer_call_refused_for_another_parameter_is_not_retried():
    refusal = LLMCallError("model call failed (HTTP 400): temperature", status=400, parameter="temperature")
    llm = ScriptedLLM([refusal, "6"], json_schema=True)
    agent = BasicReflectionAgent("b", llm, verbose=False)
    assert agent.run("How many?", output_type=int) is None
    assert agent.last_result.status == Status.FAILED and llm.calls == 1


def test_over_http_an_object_tool_argument_reaches_the_function_as_a_dataclass():
    received = []

    @tool
    def ship(order: Order) -> str:
        """Ship an order."""
        received.append(order)
        return "shipped"

    order = {"item": "lamp", "quantity": 1, "ship_to": {"street": "Main St", "zip": 12345}}
    with pooled_mock_server([{"tool_calls": [{"name": "ship", "arguments": {"order": order}}]}, "Shipped."]) as server:
        agent = ToolCallingAgent("shop", http_llm(server), tools=[ship], verbose=False)
        assert agent.run("Ship a lamp to Main St 12345") == "Shipped."
        sent_schema = server.requests[0]["tools"][0]["function"]["parameters"]["properties"]["order"]
    assert received == [Order("lamp", 1, Address("Main St", 12345))]
    assert sent_schema["properties"]["ship_to"]["type"] == "object"


def test_over_http_an_agent_as_a_tool_rolls_its_usage_into_the_callers():
    replies = [
        {"tool_calls": [{"name": "researcher", "arguments": {"task": "Population of Oslo?"}}]},
        {"tool_calls": [{"name": "lookup", "arguments": {"city": "Oslo"}}]},
        "709,000 people",
        "About 709,000.",
    ]
    with pooled_mock_server(replies) as server:
        llm = http_llm(server)
        inner = ToolCallingAgent("researcher", llm, tools=[lookup], verbose=False)
        outer = ToolCallingAgent("boss", llm, tools=[inner.as_tool()], verbose=False)
        assert outer.run("How many live in Oslo?") == "About 709,000."
        assert len(server.requests) == 4
    result = outer.last_result
    inner_tokens = inner.last_result.usage["total_tokens"]
    assert result.llm_calls == 4 and inner.last_result.llm_calls == 2
    assert 0 < inner_tokens < result.usage["total_tokens"]  # the caller's total holds the sub-run's
    assert [s.kind for s in result.steps if s.depth == 1] == ["action", "observation", "final"]


# -- vero run --output-schema ----------------------------------------------------------------------
CITY_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "population": {"type": "integer"}},
    "required": ["name", "population"],
}


def test_cli_output_schema_prints_the_answer_as_json(tmp_path, shared_mock_server):
    from test_cli import vero

    (tmp_path / "city.json").write_text(json.dumps(CITY_SCHEMA))
    shared_mock_server.enqueue('{"name": "Oslo", "population": "709000"}')
    base = ("--agent", "chat", "--tools", "none", "--base-url", shared_mock_server.base_url)
    done = vero("run", "Biggest city of Norway?", "--output-schema", "city.json", "-q", *base, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"name": "Oslo", "population": 709000}


@pytest.mark.parametrize("odd", ["fifo", "/dev/zero"])
def test_cli_output_schema_that_is_no_regular_file_is_a_usage_error_at_once(tmp_path, odd):
    from test_cli import vero

    if odd == "fifo":
        os.mkfifo(tmp_path / "schema.json")
    path = "schema.json" if odd == "fifo" else odd
    done = vero("run", "Biggest city?", "--output-schema", path, "--tools", "none", cwd=tmp_path)
    assert done.returncode == 2 and "not a regular file" in done.stderr


def test_cli_output_schema_that_never_fits_ends_invalid_output(tmp_path, shared_mock_server):
    from test_cli import vero

    (tmp_path / "city.json").write_text(json.dumps(CITY_SCHEMA))
    shared_mock_server.enqueue("Oslo", '{"name": "Oslo"}', '{"name": "Oslo"}')
    base = ("--agent", "chat", "--tools", "none", "--base-url", shared_mock_server.base_url)
    done = vero("run", "Biggest city?", "--output-schema", "city.json", "--json", *base, cwd=tmp_path)
    result = json.loads(done.stdout)
    assert done.returncode == 1 and result["status"] == "invalid_output" and result["output"] is None
    assert "population: required, missing" in result["error"]["message"]


def test_cli_quiet_prints_nothing_on_stdout_for_an_answer_that_never_fit(tmp_path, shared_mock_server):
    from test_cli import vero

    (tmp_path / "city.json").write_text(json.dumps(CITY_SCHEMA))
    shared_mock_server.enqueue("Oslo", '{"name": "Oslo"}', '{"name": "Oslo"}')
    base = ("--agent", "chat", "--tools", "none", "--base-url", shared_mock_server.base_url)
    done = vero("run", "Biggest city?", "--output-schema", "city.json", "-q", *base, cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""  # `vero run -q ... | jq` gets no text that is not the JSON
    assert "invalid_output" in done.stderr


@pytest.mark.parametrize("content, problem", [("[1, 2]", "must be a JSON object"), ("{oops", "is not JSON")])
def test_cli_a_bad_output_schema_file_is_a_usage_error(tmp_path, content, problem):
    from test_cli import vero

    (tmp_path / "schema.json").write_text(content)
    done = vero("run", "task", "--output-schema", "schema.json", "--base-url", "http://127.0.0.1:9/v1", cwd=tmp_path)
    assert done.returncode == 2 and problem in done.stderr


# -- more shapes of bad input ------------------------------------------------------------------------
class Strict(pydantic.BaseModel):
    code: str

    @pydantic.field_validator("code")
    @classmethod
    def no_spaces(cls, value: str) -> str:
        if " " in value:
            raise TypeError("a code has no spaces")  # not a ValueError: pydantic lets it through
        return value


def test_a_pydantic_validator_that_raises_another_error_is_a_named_problem_not_a_crash():
    def check_code(item: Strict) -> str:
        return item.code

    outcome = registry_of(check_code).run("check_code", {"item": {"code": "a b"}})
    assert outcome.error == "bad_arguments" and "Strict refused the values: a code has no spaces" in outcome.output


def test_a_field_a_pydantic_model_does_not_know_is_refused_for_a_tool_that_may_change_things():
    seen: list[Person] = []

    def register(person: Person) -> str:
        seen.append(person)
        return "registered"

    written = {"person": {"name": "Ada", "age": 36, "hoem": None}}  # misspelt: pydantic would drop it
    outcome = registry_of(register).run("register", written)
    assert outcome.error == "bad_arguments" and "person.hoem (unexpected field" in outcome.output and seen == []
    assert not ToolRegistry([Tool(register, read_only=True)]).run("register", written).ok  # a lookup's too: no drop


def test_an_object_schema_that_does_not_close_its_fields_keeps_more_for_a_changing_tool_too():  # an MCP tool's
    schema = {
        "type": "object",
        "properties": {"fields": {"type": "object", "properties": {"level": {"type": "string"}}}},
    }
    written = {"fields": {"level": "high", "custom_1": "y"}}  # JSON Schema allows more: the server reads it
    exact = EXACT.set(True)
    try:
        assert coerce(written, schema) == written
    finally:
        EXACT.reset(exact)


def test_a_union_of_dataclasses_takes_the_one_that_fits_and_none_for_null():
    assert convert({"x": 1}, Address | Point) == Point(1.0, 0.0)
    assert convert(None, Address | None) is None
    with pytest.raises(InvalidValue, match="zip: expected integer"):
        convert({"street": "a", "zip": "x"}, Address | None)


@pytest.mark.parametrize(
    "answer, problem",
    [
        ('{"street": "a", "zip": 1, "zip": 2}', "the key 'zip' is given twice"),
        ("[1, 2]", 'expected {street: string, zip: integer, unit?: "c" | "f"}, got [1, 2]'),
        ("null", 'expected {street: string, zip: integer, unit?: "c" | "f"}, got None'),
        ('Here: {"street": "a"} and that is all', "zip: required, missing"),
        ("Main St", "the answer is not JSON"),
    ],
)
def test_answers_of_the_wrong_shape_are_named_problems(answer, problem):
    agent, llm = tool_calling([answer], default=answer)
    assert agent.run("Where?", output_type=Address, output_retries=0) is None
    assert agent.last_result.status == Status.INVALID_OUTPUT and problem in str(agent.last_result.error)


def test_json_in_prose_around_the_answer_is_read():
    agent, _ = tool_calling(['Sure! Here it is: {"street": "a", "zip": 1}. Anything else?'])
    assert agent.run("Where?", output_type=Address) == Address("a", 1)


@pytest.mark.parametrize(
    "answer, output_type",
    [
        ('{"street": "a", "zip": 1}\nCorrection: {"street": "b", "zip": 2}', Address),
        ('{"street": "a", "zip": 1} {"street": "b", "zip": 2}', Address),
        ("First [1, 2], then [3]", list[int]),
        ("{'street': 'a', 'zip': 1} or {'street': 'b', 'zip': 2}", Address),
        ('```json\n{"street": "a", "zip": 1}\n```\nor, better:\n```json\n{"street": "b", "zip": 2}\n```', Address),
        ("```\n12\n```\nor\n```\n13\n```", int),
    ],
)
def test_an_answer_with_two_json_values_is_a_named_problem_not_one_of_them_picked(answer, output_type):
    agent, _ = tool_calling([answer], default=answer)
    assert agent.run("Where?", output_type=output_type, output_retries=0) is None
    assert "the answer has 2 JSON values" in str(agent.last_result.error)


@pytest.mark.parametrize("answer", ['{"street": "Main St", "zip": 12', 'Here: {"street": "Main S', "[1, 2"])
def test_json_that_never_closes_is_a_named_problem_not_repaired_into_a_value(answer):
    agent, _ = tool_calling([answer], default=answer)
    output_type = list[int] if answer.startswith("[") else Address
    assert agent.run("Where?", output_type=output_type, output_retries=0) is None
    assert "the answer's JSON is cut off" in str(agent.last_result.error)


def test_a_fence_inside_a_string_of_the_answer_is_no_second_block():
    @dataclass
    class Snippet:
        code: str

    answer = '```json\n{"code": "```python\\nprint(1)\\n```"}\n```'
    agent, _ = tool_calling([answer])
    assert agent.run("Show it.", output_type=Snippet, output_retries=0) == Snippet("```python\nprint(1)\n```")


@pytest.mark.parametrize(
    "answer",
    [
        'Here it is [as asked]: {"street": "a [b]", "zip": 1}',
        '{"street": "a } b", "zip": 1} (zip code [1] from the registry)',
        "{'street': 'it\\'s', 'zip': 1}",
    ],
)
def test_brackets_in_the_prose_or_in_strings_are_no_second_value(answer):
    agent, _ = tool_calling([answer])
    assert isinstance(agent.run("Where?", output_type=Address), Address)


@pytest.mark.parametrize("written", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_no_numbers_for_a_tool_or_an_answer(written):
    def scale(factor: float) -> str:
        return str(factor)

    output = registry_of(scale).run("scale", json.loads(f'{{"factor": {written}}}')).output
    assert output.startswith("Error:") and "factor (expected number" in output
    agent, _ = tool_calling([written], default=written)
    assert agent.run("How much?", output_type=float, output_retries=0) is None
    assert agent.last_result.status == Status.INVALID_OUTPUT


def test_a_choice_of_simple_types_is_asked_for_as_a_bare_value_not_json():
    agent, llm = tool_calling(["12"])
    assert agent.run("How many?", output_type=int | None) == 12
    assert "a single integer or null value" in llm.requests[0].messages[-1]["content"]
    agent, llm = tool_calling(["Oslo"])
    assert agent.run("Where?", output_type=int | str) == "Oslo"
    assert "a single integer or string value" in llm.requests[0].messages[-1]["content"]


def test_output_type_none_or_str_is_the_answer_text():
    agent, _ = tool_calling(["42", "43"])
    assert agent.run("task", output_type=None) == "42"
    assert agent.run("task", output_type=str) == "43" and agent.last_result.output is None


@pytest.mark.parametrize("retries", [-1, True, "2"])
def test_a_bad_output_retries_is_a_value_error_before_the_run(retries):
    agent, llm = tool_calling(["42"])
    with pytest.raises(ValueError, match="output_retries must be 0 or more"):
        agent.run("task", output_type=int, output_retries=retries)
    assert llm.calls == 0


def test_an_agent_tool_given_an_empty_task_is_an_error_observation():
    inner = researcher(["never sent"])
    outer_llm = ScriptedLLM(['Thought: ask\nAction: researcher\nAction Input: {"task": " "}', "Final Answer: none"])
    outer = ReActAgent("boss", outer_llm, tools=[inner.as_tool()], verbose=False)
    outer.run("How many live in Oslo?")
    observation = next(s for s in outer.last_result.steps if s.depth == 0 and s.kind == "observation")
    assert observation.data["ok"] is False and "ended 'failed'" in observation.content
    assert "the task is empty" in observation.content and inner.llm.calls == 0


@pytest.mark.parametrize(
    "output_type, reply, expected",
    [
        (int, "Final Answer: 42", 42),
        (bool, "**Final Answer:** yes.", True),
        (Literal["a", "b"], "final answer: b", "b"),
    ],
)
def test_a_simple_answer_after_a_final_answer_label_is_read_without_a_re_ask(output_type, reply, expected):
    llm = ScriptedLLM([reply])
    assert ToolCallingAgent("typed", llm, verbose=False).run("q", output_type=output_type) == expected
    assert llm.calls == 1
