"""Tools as users bring them, from a fourth outside probe: another framework's tool object is refused with a word on
what to pass; a decorator's own signature counts unless it passes everything on; ``tools=`` as a dict, one function
or a list with a ``None`` in it; a callable object named after its own class; bytes inside a result; a docstring
that describes other names; an MCP schema that requires a property it does not have.
"""

from __future__ import annotations

import functools
import json
import logging
from typing import Any

import pytest

from vero import Tool, ToolRegistry, tool
from vero.tools.mcp import _parameters
from vero.tools.registry import to_text


class _Framework:
    name = "weather"
    description = "Get the weather."

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        return "sunny"


class SmolStyle(_Framework):
    inputs = {"city": {"type": "string"}}


class LangChainStyle(_Framework):
    args_schema = object


class AgentsSdkStyle(_Framework):
    params_json_schema = {"type": "object"}


@pytest.mark.parametrize(
    ("kind", "framework"),
    [(SmolStyle, "smolagents"), (LangChainStyle, "LangChain"), (AgentsSdkStyle, "the OpenAI Agents SDK")],
)
def test_another_framework_s_tool_object_is_refused_saying_what_to_pass(kind, framework):
    with pytest.raises(TypeError, match=f"'weather' is a tool object of {framework}: give vero the function it wraps"):
        Tool(kind())


STORE = {"r-1": "kept"}


def with_store(function):
    @functools.wraps(function)
    def wrapper(record_id: str) -> str:  # supplies the store itself
        return function(STORE, record_id)

    return wrapper


def passing_on(function):
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    return wrapper


def test_a_decorator_that_supplies_an_argument_shows_the_model_its_own_parameters():
    @tool(read_only=True)
    @with_store
    def lookup(store: dict, record_id: str) -> str:
        """Look a record up."""
        return store.get(record_id, "none")

    assert list(lookup.parameters["properties"]) == ["record_id"]
    assert ToolRegistry([lookup]).run("lookup", {"record_id": "r-1"}).output == "kept"


def test_a_decorator_that_passes_everything_on_shows_the_wrapped_function_s_parameters():
    @tool(read_only=True)
    @passing_on
    def lookup(record_id: str, limit: int = 3) -> str:
        """Look a record up."""
        return f"{record_id}:{limit}"

    assert lookup.parameters["required"] == ["record_id"] and "limit" in lookup.parameters["properties"]
    assert ToolRegistry([lookup]).run("lookup", {"record_id": "r-1"}).output == "r-1:3"


def double(x: int) -> int:
    """Double a number."""
    return 2 * x


def test_tools_given_as_a_dict_are_named_by_its_keys():
    registry = ToolRegistry({"twice": double, "double": double})
    assert registry.names() == ["twice", "double"] and registry.run("twice", {"x": 4}).output == "8"


def test_one_function_given_as_tools_is_a_list_of_one():
    assert ToolRegistry(double).names() == ["double"]


@pytest.mark.parametrize("tools", [[double, None], {"double": None}])
def test_a_none_among_the_tools_is_named_by_its_place(tools):
    with pytest.raises(TypeError, match=r"tools\[(1|'double')\] is None, not a tool or a function"):
        ToolRegistry(tools)


class Operation:
    """An operation on a number."""

    def __call__(self, x: int) -> int:
        return self.apply(x)


class Negate(Operation):
    """Negate a number."""

    def apply(self, x: int) -> int:
        return -x


class Square(Operation):
    """Square a number."""

    def apply(self, x: int) -> int:
        return x * x


def test_a_callable_object_is_named_and_described_after_its_own_class_not_its_call_s():
    negate = Tool(Negate())
    assert (negate.name, negate.description) == ("Negate", "Negate a number.")
    assert ToolRegistry([Negate(), Square()]).names() == ["Negate", "Square"]


def test_bytes_inside_a_result_reach_the_model_as_their_text_as_bytes_alone_do():
    assert json.loads(to_text({"body": b"hello", "parts": [b"a\xffb"]})) == {"body": "hello", "parts": ["a\ufffdb"]}


def test_a_docstring_describing_other_names_than_the_parameters_is_warned_about(caplog):
    def search(query: str, k: int = 3) -> str:
        """Search.

        Args:
            q: what to look for
            query: the words
        """
        return query

    with caplog.at_level(logging.WARNING, logger="vero.tools"):
        Tool(search, read_only=True)
    assert "search(): its docstring's Args describe q, which name no parameter" in caplog.text


def test_an_mcp_schema_that_requires_a_property_it_does_not_have_is_callable():
    schema = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title", "repo"]}
    assert _parameters({**schema, "additionalProperties": False})["required"] == ["title"]
    assert _parameters(schema)["required"] == ["title", "repo"]  # open: the server may take it as it comes


# -- a review of those: what kept working before them keeps working ----------------------------------------------
def test_a_tool_given_under_another_key_keeps_its_schema_and_description():
    described = Tool(double, description="Twice the number.")
    registry = ToolRegistry({"twice": described})
    assert registry.get("twice").description == "Twice the number." and registry.get("twice").parameters == (
        described.parameters
    )
    assert described.name == "double"  # the tool given is not renamed


def passing_on_with_options(function):
    @functools.wraps(function)
    def wrapper(*args: Any, _retries: int = 3, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    return wrapper


class Doubler:
    """Doubles numbers."""

    @passing_on
    def __call__(self, x: int) -> int:
        return 2 * x


@pytest.mark.parametrize(
    "made",
    [
        lambda: Tool(passing_on_with_options(double)),  # keywords of its own with defaults: still passing on
        lambda: Tool(functools.partial(passing_on(double))),  # a partial over such a wrapper
        lambda: Tool(Doubler()),  # a callable object whose __call__ is wrapped
    ],
)
def test_a_wrapper_that_passes_everything_on_shows_the_wrapped_parameters_however_it_is_given(made):
    assert made().parameters["required"] == ["x"]


class WebSearch:
    """Search the web."""

    def __call__(self, query: str, limit: int = 5) -> str:
        return query


def test_a_partial_of_a_callable_object_is_named_after_the_object_s_class():
    assert Tool(functools.partial(WebSearch(), limit=3)).name == "WebSearch"


def test_no_warning_for_a_class_s_docstring_or_a_partial_s_bound_argument(caplog):
    class Greeter:
        """Greets.

        Args:
            greeting: set in __init__
        """

        def __call__(self, name: str) -> str:
            return name

    def send(to: str, body: str) -> str:
        """Send.

        Args:
            to: the address
            body: the text
        """
        return body

    with caplog.at_level(logging.WARNING, logger="vero.tools"):
        Tool(Greeter())
        Tool(functools.partial(send, "ops@example.test"))
    assert "docstring" not in caplog.text


def test_a_mock_with_every_attribute_is_no_other_framework_s_tool():
    from unittest import mock

    assert Tool(mock.MagicMock(__name__="probe", __doc__="A probe.", return_value="ok"), name="probe").name == "probe"


def test_a_dict_key_that_is_no_tool_name_is_refused_as_a_name_given_is():
    with pytest.raises(ValueError, match="tool name 'bad name!' must be 1-64 letters"):
        ToolRegistry({"bad name!": Tool(double)})


def test_a_tool_renamed_by_its_key_is_described_by_its_new_name_when_its_name_was_its_description():
    plain = Tool(lambda x: x, name="echo")
    assert (ToolRegistry({"repeat": plain}).get("repeat").description, plain.description) == ("repeat", "echo")
