"""Kinds of tools and what the model is shown of them: a partial's pinned keywords, two tools of one name,
a pydantic parameter's unknown fields, ``**kwargs``, and numbers written for a ``str`` parameter (all offline)."""

from __future__ import annotations

import functools
import json

import pydantic
import pytest

from vero.agents import ReActAgent, ToolCallingAgent
from vero.testing import ScriptedLLM
from vero.tools import Tool, ToolRegistry, tool


def native_call(name: str, arguments: str) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


# --------------------------------------------------------------------------- a partial's bound keywords


def orders(query: str, user_id: int, api_key: str) -> str:
    """List the orders of a user.

    Args:
        query: what to look for
        user_id: whose orders
        api_key: the key of the orders service
    """
    return f"orders of user {user_id} ({query}) with {api_key}"


def test_a_partial_s_bound_keyword_is_hidden_from_the_model_and_cannot_be_overridden():
    pinned = functools.partial(orders, user_id=42, api_key="sk-SECRET-123")
    for made in (Tool(pinned, name="orders", read_only=True), tool(pinned, name="orders", read_only=True)):
        assert list(made.parameters["properties"]) == ["query"] and made.parameters["required"] == ["query"]
        llm = ScriptedLLM(
            [native_call("orders", '{"query": "all", "user_id": 7}'), native_call("orders", '{"query": "all"}'), "done"]
        )
        agent = ToolCallingAgent("a", llm, tools=[made], verbose=False)
        agent.run("my orders")
        sent = json.dumps(llm.requests[0].tools) + ToolRegistry([made]).describe()
        assert "sk-SECRET" not in sent and "user_id" not in sent and "42" not in sent
        refused, ran = [step.content for step in agent.last_result.steps_of("observation")]
        assert "unexpected argument(s): user_id" in refused
        assert ran == "orders of user 42 (all) with sk-SECRET-123"


def test_a_partial_s_bound_keyword_is_refused_even_when_the_function_takes_any_keyword():
    def lookup(query: str, **options: str) -> str:
        """Look up."""
        return f"{query} {options}"

    registry = ToolRegistry([Tool(functools.partial(lookup, region="eu"), read_only=True)])
    outcome = registry.run("lookup", {"query": "x", "region": "us"})
    assert not outcome.ok and "unexpected argument(s): region" in outcome.output
    assert registry.run("lookup", {"query": "x", "page": "2"}).output == "x {'region': 'eu', 'page': '2'}"


# --------------------------------------------------------------------------- two tools of one name


def search_web(q: str) -> str:
    """Search the web."""
    return "web"


def search_files(q: str) -> str:
    """Search the local files."""
    return "files"


def test_two_different_tools_of_one_name_are_refused_when_the_agent_is_built():
    web, files = Tool(search_web, name="search", read_only=True), Tool(search_files, name="search", read_only=True)
    for build in (
        lambda: ToolCallingAgent("a", ScriptedLLM(["done"]), tools=[web, files], verbose=False),
        lambda: ToolRegistry([web, files]),
        lambda: ToolRegistry([search_web, Tool(search_web, read_only=True)]),  # a function and a tool of it
    ):
        with pytest.raises(ValueError, match=r"two different tools are named '(search|search_web)'.*pass name="):
            build()


def test_the_same_tool_given_twice_is_taken_once_and_register_still_replaces_by_name():
    web = Tool(search_web, name="search", read_only=True)
    llm = ScriptedLLM(["done"])
    ToolCallingAgent("a", llm, tools=[web, web, search_files, search_files], verbose=False).run("x")
    assert [t["function"]["name"] for t in llm.requests[0].tools] == ["search", "search_files"]
    registry = ToolRegistry([web])
    files = registry.register(Tool(search_files, name="search"))  # one call, one tool: a deliberate replacement
    assert registry.get("search") is files and len(registry) == 1


# --------------------------------------------------------------------------- a pydantic parameter's unknown fields


class Size(pydantic.BaseModel):
    eu: int


class Filters(pydantic.BaseModel):
    category: str | None = None
    in_stock: bool = False
    size: Size | None = None


class OpenFilters(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")  # the model's own word: fields it does not list are kept
    category: str | None = None


@tool(read_only=True)
def find_products(filters: Filters) -> str:
    """Find products."""
    return repr(filters)


@tool(read_only=True)
def find_open(filters: OpenFilters) -> str:
    """Find products, with any filter."""
    return repr(filters)


def observations(tools: list, *calls: tuple[str, str]) -> list[str]:
    llm = ScriptedLLM([*(native_call(name, arguments) for name, arguments in calls), "done"])
    agent = ToolCallingAgent("a", llm, tools=tools, verbose=False)
    agent.run("find shoes")
    return [step.content for step in agent.last_result.steps_of("observation")]


def test_a_pydantic_parameter_s_unknown_field_is_refused_by_name_unless_the_model_allows_extra_fields():
    misspelled, nested, lax = observations(
        [find_products],
        ("find_products", '{"filters": {"ctegory": "shoes"}}'),
        ("find_products", '{"filters": {"size": {"eu": 42, "us": 9}}}'),
        ("find_products", '{"filters": {"category": "shoes", "in_stock": "t"}}'),  # pydantic's own lax reading
    )
    assert "filters.ctegory (unexpected field (the fields: category, in_stock, size))" in misspelled
    assert "filters.size.us (unexpected field (the fields: eu))" in nested
    assert lax == "Filters(category='shoes', in_stock=True, size=None)"
    [kept] = observations([find_open], ("find_open", '{"filters": {"ctegory": "shoes"}}'))
    assert kept == "OpenFilters(category=None, ctegory='shoes')"


# --------------------------------------------------------------------------- **kwargs


@tool(read_only=True)
def count(**filters: int) -> str:
    """Count records matching the filters (e.g. year=2024)."""
    return f"3 records for {filters}"


def test_a_tool_taking_typed_kwargs_is_described_as_taking_any_named_arguments_of_that_type():
    llm = ScriptedLLM(['Action: count\nAction Input: {"year": "x"}', "Final Answer: done"])
    agent = ReActAgent("a", llm, tools=[count], verbose=False)
    agent.run("how many?")
    prompt = llm.requests[0].messages[0]["content"]
    assert "- count(**filters: integer): Count records matching the filters (e.g. year=2024)." in prompt
    [refused] = [step.content for step in agent.last_result.steps_of("observation")]
    assert refused.endswith("Expected arguments: any named arguments (integer).") and "none" not in refused


# --------------------------------------------------------------------------- numbers written for a str parameter


@tool(read_only=True)
def lookup_zip(zip_code: str, phone: str | None = None, count: int = 1) -> str:
    """Look up a town by its postal code."""
    return json.dumps([zip_code, phone, count])


def test_a_number_written_unquoted_for_a_lookup_s_str_parameter_arrives_as_the_text_written():
    written = '{"zip_code": 01234, "phone": +4712345678, "count": 02}'  # no JSON: repaired for a lookup
    native = observations([lookup_zip], ("lookup_zip", written))
    llm = ScriptedLLM([f"Action: lookup_zip\nAction Input: {written}", "Final Answer: done"])
    agent = ReActAgent("a", llm, tools=[lookup_zip], verbose=False)
    agent.run("which town?")
    text = [step.content for step in agent.last_result.steps_of("observation")]
    direct = ToolRegistry([lookup_zip]).run("lookup_zip", written).output
    assert native == text == [direct] == ['["01234", "+4712345678", 2]']  # an int stays the number
