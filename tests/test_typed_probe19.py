"""Typed answers read as the model wrote them: an outside probe of ``output_type`` found numbers rounded before the
check, a JSON string's quotes counted in its length, ``true``/``false`` schemas crashing the reading, and OpenAPI's
``nullable`` passing unread."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any

import annotated_types
import pytest

from vero.agents import ToolCallingAgent
from vero.core.output import OutputSpec
from vero.testing import ScriptedLLM
from vero.tools.schema import InvalidValue


def typed_run(reply: str, output_type: Any, **settings: Any) -> tuple[Any, str]:
    agent = ToolCallingAgent("typed", ScriptedLLM([reply]), verbose=False, **settings)
    output = agent.run("the task", output_type=output_type, output_retries=0)
    return output, agent.last_result.status


@dataclass
class Price:
    amount: Decimal


# ---------------------------------------------------------------------------- numbers as written


@pytest.mark.parametrize(
    ("reply", "output_type", "expected"),
    [
        ("2.999999999999999999", Decimal, Decimal("2.999999999999999999")),
        ('{"amount": 0.30000000000000000001}', Price, Price(Decimal("0.30000000000000000001"))),
    ],
)
def test_a_typed_answer_keeps_every_digit_the_model_wrote(reply: str, output_type: Any, expected: Any) -> None:
    assert typed_run(reply, output_type) == (expected, "ok")


@pytest.mark.parametrize("recovery", [True, False])
def test_an_integer_written_with_a_fraction_is_no_integer_in_a_run(recovery: bool) -> None:
    assert typed_run("1.0000000000000000001", int, recovery=recovery) == (None, "invalid_output")


def test_an_untyped_answer_is_still_tidied() -> None:
    agent = ToolCallingAgent("plain", ScriptedLLM(["It is 0.30000000000000004"]), verbose=False)
    assert agent.run("the task") == "It is 0.3"


# ---------------------------------------------------------------------------- a JSON string's quotes


@pytest.mark.parametrize(
    ("output_type", "reply"),
    [
        (Annotated[str, annotated_types.MinLen(5)], '"Oslo"'),
        ({"type": "string", "minLength": 3}, '"ab"'),
        ({"type": "string", "pattern": "^.{3,}$"}, '"a"'),
    ],
)
def test_a_json_string_is_checked_without_its_quotes(output_type: Any, reply: str) -> None:
    with pytest.raises(InvalidValue):
        OutputSpec(output_type).read(reply)
    assert typed_run(reply, output_type) == (None, "invalid_output")


def test_a_quoted_answer_that_fits_is_read_without_its_quotes() -> None:
    assert OutputSpec(Annotated[str, annotated_types.MinLen(3)]).read('"Oslo"') == "Oslo"


# ---------------------------------------------------------------------------- true and false as schemas


def test_a_property_whose_schema_is_true_takes_any_value() -> None:
    schema = {"type": "object", "properties": {"a": True, "b": {"type": "integer"}}, "required": ["b"]}
    assert typed_run('{"a": [1, "x"], "b": 2}', schema) == ({"a": [1, "x"], "b": 2}, "ok")


def test_a_property_whose_schema_is_false_takes_no_value() -> None:
    schema = {"type": "object", "properties": {"a": False, "b": {"type": "integer"}}}
    with pytest.raises(InvalidValue, match="a: expected no value here"):
        OutputSpec(schema).read('{"a": 1, "b": 2}')


def test_a_true_option_of_any_of_takes_what_the_others_do_not() -> None:
    assert OutputSpec({"anyOf": [True, {"type": "integer"}]}).read('"x"') == "x"


def test_a_false_part_of_all_of_takes_nothing() -> None:
    with pytest.raises(InvalidValue, match="expected no value here"):
        OutputSpec({"allOf": [{"type": "integer"}, False]}).read("5")


# ---------------------------------------------------------------------------- a keyword of another standard


@pytest.mark.parametrize("kind", ["string", "integer"])
def test_openapi_nullable_is_refused_with_json_schemas_way_to_say_it(kind: str) -> None:
    with pytest.raises(TypeError, match=rf"OpenAPI's nullable: write \"type\": \[\"{kind}\", \"null\"\]"):
        OutputSpec({"type": kind, "nullable": True})


def test_nullable_false_says_what_json_schema_says_without_it() -> None:
    assert OutputSpec({"type": "integer", "nullable": False}).read("5") == 5


def test_a_reference_to_a_definition_that_is_true_or_false_is_read() -> None:
    schema = {"$defs": {"Any": True, "No": False}, "type": "object", "properties": {"a": {"$ref": "#/$defs/Any"}}}
    assert OutputSpec(schema).read('{"a": [1]}') == {"a": [1]}
    schema["properties"] = {"a": {"$ref": "#/$defs/No"}}
    with pytest.raises(InvalidValue, match="a: expected no value here"):
        OutputSpec(schema).read('{"a": 1}')


# ---------------------------------------------------------------- a closed object with no fields (a fault probe's)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "additionalProperties": False},
        {"type": "object", "properties": {}, "additionalProperties": False},
        {
            "type": "object",
            "properties": {"flags": {"type": "object", "properties": {}, "additionalProperties": False}},
        },
    ],
)
def test_an_object_that_allows_no_fields_refuses_an_answer_with_some(schema: dict[str, Any]) -> None:
    answer = '{"flags": {"rm_rf": true}}' if "flags" in schema.get("properties", {}) else '{"name": "x"}'
    agent = ToolCallingAgent("t", ScriptedLLM([answer] * 3), verbose=False)
    agent.run("Answer.", output_type=schema)
    assert agent.last_result.status == "invalid_output"
    assert "no fields are allowed" in str(agent.last_result.error)


@pytest.mark.parametrize(
    "schema",
    [{"enum": []}, {"type": "string", "maxLength": -1}, {"type": "object", "properties": {"a": {"enum": []}}}],
)
def test_a_schema_no_answer_could_fit_is_refused_before_the_run(schema: dict[str, Any]) -> None:
    llm = ScriptedLLM(["x"])
    agent = ToolCallingAgent("t", llm, verbose=False)
    with pytest.raises(TypeError, match="no answer could fit it"):
        agent.run("Answer.", output_type=schema)
    assert llm.calls == 0  # no re-ask spent on it
