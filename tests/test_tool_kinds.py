"""Kinds of tools and what the model is shown of them: a partial's pinned keywords, two tools of one name,
a pydantic parameter's unknown fields, ``**kwargs``, numbers written for a ``str`` parameter, dates, decimals,
UUIDs and paths as parameters, defaults written as pydantic ``Field``, ``NewType`` and a string Enum returned
(all offline)."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import json
import pathlib
import uuid
from decimal import Decimal
from typing import Annotated, NewType

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


# --------------------------------------------------------------------------- dates, decimals, UUIDs and paths


def book(day: datetime.date) -> str:
    """Book a day."""
    return f"booked {type(day).__name__} {day!r}"


def test_a_date_parameter_is_a_string_of_format_date_and_the_function_gets_a_date():
    registry = ToolRegistry([Tool(book, read_only=True)])
    assert registry.get("book").parameters["properties"]["day"] == {"type": "string", "format": "date"}
    assert registry.get("book").signature() == "day: date"
    assert registry.run("book", '{"day": "2024-01-02"}').output == "booked date datetime.date(2024, 1, 2)"
    refused = registry.run("book", '{"day": "next tuesday"}')
    assert not refused.ok and "day (expected a date as YYYY-MM-DD, got 'next tuesday')" in refused.output
    assert "Expected arguments: day (date)." in refused.output


@pytest.mark.parametrize(
    ("hint", "schema", "label", "written", "received"),
    [
        (datetime.date, {"type": "string", "format": "date"}, "date", "2024-01-02", datetime.date(2024, 1, 2)),
        (
            datetime.datetime,
            {"type": "string", "format": "date-time"},
            "date-time",
            "2024-01-02T09:30:00Z",
            datetime.datetime(2024, 1, 2, 9, 30, tzinfo=datetime.timezone.utc),
        ),
        (datetime.time, {"type": "string", "format": "time"}, "time", "09:30", datetime.time(9, 30)),
        (
            uuid.UUID,
            {"type": "string", "format": "uuid"},
            "uuid",
            "12345678-1234-5678-1234-567812345678",
            uuid.UUID("12345678-1234-5678-1234-567812345678"),
        ),
        (pathlib.Path, {"type": "string"}, "string", "/srv/data/a.txt", pathlib.Path("/srv/data/a.txt")),
        (Decimal, {"type": ["number", "string"]}, "decimal", 0.1, Decimal("0.1")),  # not the float's 0.1000...0555
        (Decimal, {"type": ["number", "string"]}, "decimal", "12.50", Decimal("12.50")),  # as text: to the last digit
    ],
)
def test_each_standard_library_parameter_type_has_its_schema_and_the_function_gets_its_value(
    hint, schema, label, written, received
):
    got = []

    def take(value):
        """Take a value."""
        got.append(value)
        return "taken"

    take.__annotations__ = {"value": hint, "return": str}
    made = Tool(take, read_only=True)
    assert schema.items() <= made.parameters["properties"]["value"].items()
    assert made.signature() == f"value: {label}"
    assert ToolRegistry([made]).run("take", {"value": written}).output == "taken"
    assert got == [received] and type(got[0]) is type(received)


@pytest.mark.parametrize(
    ("hint", "written", "expected"),
    [
        (datetime.date, "next tuesday", "a date as YYYY-MM-DD, got 'next tuesday'"),
        (datetime.date, 20240102, "a date as YYYY-MM-DD, got 20240102"),
        (datetime.date, "2024-01-02T10:00", "a date as YYYY-MM-DD, got '2024-01-02T10:00'"),
        (datetime.datetime, "tomorrow at 9", "a date and time as YYYY-MM-DDTHH:MM:SS"),
        (datetime.time, "half past nine", "a time as HH:MM[:SS], got 'half past nine'"),
        (uuid.UUID, "abc", "a UUID, got 'abc'"),
        (pathlib.Path, "", "a path, got ''"),
        (Decimal, "1,5", """a decimal number (12.5 or "12.50"), got '1,5'"""),
        (Decimal, "NaN", "a decimal number"),
        (Decimal, float("inf"), "a decimal number"),
        (Decimal, True, "a decimal number"),
    ],
)
def test_a_value_that_does_not_parse_is_refused_naming_the_parameter_and_the_form_expected(hint, written, expected):
    def take(value):
        """Take a value."""
        raise AssertionError("never called")

    take.__annotations__ = {"value": hint, "return": str}
    outcome = ToolRegistry([Tool(take, read_only=True)]).run("take", {"value": written})
    assert not outcome.ok and f"value (expected {expected}" in outcome.output


@dataclasses.dataclass
class Slot:
    day: datetime.date
    at: datetime.time | None = None


def plan(days: list[datetime.date], slot: Slot, until: datetime.date | None = None) -> str:
    """Plan some days."""
    return repr((days, slot, until))


def test_a_date_inside_a_list_an_optional_and_a_dataclass_arrives_as_a_date():
    made = Tool(plan, read_only=True)
    properties = made.parameters["properties"]
    assert properties["days"] == {"type": "array", "items": {"type": "string", "format": "date"}}
    assert properties["slot"]["properties"]["day"] == {"type": "string", "format": "date"}
    assert made.signature() == "days: array of date, slot: {day: date, at?: time or null}, until: date or null = null"
    registry = ToolRegistry([made])
    written = '{"days": ["2024-01-02", "2024-01-03"], "slot": {"day": "2024-02-01", "at": "10:15"}, "until": null}'
    days = [datetime.date(2024, 1, 2), datetime.date(2024, 1, 3)]
    slot = Slot(datetime.date(2024, 2, 1), datetime.time(10, 15))
    assert registry.run("plan", written).output == repr((days, slot, None))
    both = registry.run("plan", {"days": ["2024-01-02"], "slot": {"day": "2024-02-01"}, "until": "2024-03-01"})
    assert both.output == repr(([days[0]], Slot(datetime.date(2024, 2, 1)), datetime.date(2024, 3, 1)))
    refused = registry.run("plan", {"days": ["2024-01-02", "soon"], "slot": {"day": "later"}, "until": "never"})
    assert "days[1] (expected a date as YYYY-MM-DD, got 'soon')" in refused.output
    assert "slot.day (expected a date as YYYY-MM-DD, got 'later')" in refused.output
    assert "until (expected a date as YYYY-MM-DD, got 'never')" in refused.output


def test_a_decimal_s_bounds_are_checked_on_the_exact_value():
    def pay(amount: Annotated[Decimal, pydantic.Field(gt=0, le=0.3)]) -> str:
        """Pay."""
        return repr(amount)

    registry = ToolRegistry([Tool(pay, read_only=True)])
    assert registry.get("pay").parameters["properties"]["amount"]["maximum"] == 0.3
    assert registry.run("pay", '{"amount": 0.3}').output == "Decimal('0.3')"  # not above the float 0.3
    assert "amount (expected at most 0.3, got 0.31)" in registry.run("pay", '{"amount": "0.31"}').output
    assert "amount (expected more than 0, got 0)" in registry.run("pay", '{"amount": 0}').output


def test_an_agent_sends_the_date_schema_and_its_tool_gets_a_date():
    llm = ScriptedLLM([native_call("book", '{"day": "2024-01-02"}'), native_call("book", '{"day": "soon"}'), "done"])
    agent = ToolCallingAgent("a", llm, tools=[Tool(book, read_only=True)], verbose=False)
    agent.run("book the second of January")
    [sent] = llm.requests[0].tools
    assert sent["function"]["parameters"]["properties"]["day"] == {"type": "string", "format": "date"}
    booked, refused = [step.content for step in agent.last_result.steps_of("observation")]
    assert booked == "booked date datetime.date(2024, 1, 2)"
    assert "day (expected a date as YYYY-MM-DD, got 'soon')" in refused


def test_a_tool_that_may_change_things_gets_the_date_and_the_decimal_exactly_as_written():
    got = []

    def transfer(day: datetime.date, amount: Decimal) -> str:
        """Schedule a transfer."""
        got.append((day, amount))
        return f"scheduled {amount} on {day.isoformat()}"

    written = '{"day": "2024-01-02", "amount": 1234.10}'
    llm = ScriptedLLM(
        [native_call("transfer", written), native_call("transfer", '{"day": "2024-13-01", "amount": 1}'), "done"]
    )
    agent = ToolCallingAgent("a", llm, tools=[Tool(transfer)], verbose=False)  # not read-only: through the gate
    agent.run("pay the rent")
    assert got == [(datetime.date(2024, 1, 2), Decimal("1234.1"))]
    assert type(got[0][0]) is datetime.date
    ran, refused = [step.content for step in agent.last_result.steps_of("observation")]
    assert ran == "scheduled 1234.1 on 2024-01-02"
    assert "day (expected a date as YYYY-MM-DD, got '2024-13-01')" in refused


def test_a_default_of_such_a_type_is_shown_as_the_text_a_model_would_write():
    def report(day: datetime.date = datetime.date(2024, 1, 2), amount: Decimal = Decimal("1.50")) -> str:
        """Report."""
        return "ok"

    made = Tool(report, read_only=True)
    assert made.signature() == 'day: date = "2024-01-02", amount: decimal = "1.50"'


def test_an_output_type_of_date_reads_the_answer_s_text_as_a_date():
    agent = ToolCallingAgent("a", ScriptedLLM(["2024-03-05"]), verbose=False)
    assert agent.run("When is it?", output_type=datetime.date) == datetime.date(2024, 3, 5)


def test_a_number_written_plainly_under_a_key_given_twice_stays_a_number():
    from vero.core.parsing import parse_json_value

    assert parse_json_value('{"page": 01, "items": [{"page": 1}]}') == {"page": 1, "items": [{"page": 1}]}
    assert parse_json_value('{"zip": 01234, "n": 1}') == {"zip": "01234", "n": 1}


class Quiet(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore")  # the author's choice: a model's extra fields go
    query: str


def test_a_pydantic_model_that_says_extra_ignore_drops_an_unknown_field_for_a_lookup():
    def search(q: Quiet) -> str:
        """Search."""
        return q.query

    outcome = ToolRegistry([Tool(search, read_only=True)]).run("search", {"q": {"query": "x", "limit": 5}})
    assert outcome.ok and outcome.output == "x"


def test_a_tool_that_returns_a_pydantic_model_class_is_shown_it_not_told_it_raised():
    def schema_of() -> str:
        """The model class the service uses."""
        return Quiet  # type: ignore[return-value]

    outcome = ToolRegistry([Tool(schema_of, read_only=True)]).run("schema_of", {})
    assert outcome.ok and "Quiet" in outcome.output


# --------------------------------------------------------------------------- defaults written as pydantic Field(...)


def search(query: str, limit: int = pydantic.Field(5, ge=1, le=50, description="results at most")) -> str:
    """Search the catalogue."""
    return f"{query}: {limit!r}"


def test_a_field_default_gives_the_schema_its_bounds_description_and_default():
    schema = Tool(search).parameters
    assert schema["properties"]["limit"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 50,
        "description": "results at most",
        "default": 5,
    }
    assert schema["required"] == ["query"]


@pytest.mark.parametrize("arguments, seen", [({"query": "q"}, "q: 5"), ({"query": "q", "limit": 7}, "q: 7")])
def test_a_field_default_reaches_the_function_as_its_value(arguments, seen):
    found = Tool(search, read_only=True)
    assert found.call(found.validate(arguments)) == seen


def test_a_value_outside_a_field_default_s_bounds_is_refused_by_name():
    llm = ScriptedLLM([native_call("search", '{"query": "q", "limit": 500}'), "done"])
    agent = ToolCallingAgent("a", llm, tools=[Tool(search, read_only=True)], verbose=False)
    agent.run("Find q.")
    assert "limit (expected at most 50, got 500)" in agent.last_result.steps_of("observation")[0].content


def test_a_field_without_a_default_is_required():
    def tag(name: str = pydantic.Field(description="the tag")) -> str:
        """Tag."""
        return name

    found = Tool(tag)
    assert found.parameters["required"] == ["name"] and found.parameters["properties"]["name"]["description"]


def test_a_field_default_factory_gives_each_call_a_fresh_value():
    def collect(items: list[int] = pydantic.Field(default_factory=list)) -> list[int]:  # noqa: B008  (the idiom)
        """Collect."""
        items.append(1)
        return items

    found = Tool(collect)
    assert found.call({}) == [1] and found.call({}) == [1]


# --------------------------------------------------------------------------- NewType, a string Enum returned
UserId = NewType("UserId", int)


def test_a_new_type_is_the_type_it_names():
    def profile(user: UserId) -> str:
        """A user's profile."""
        return f"user {user + 1}"

    found = Tool(profile, read_only=True)
    assert found.parameters["properties"]["user"] == {"type": "integer"}
    assert found.call(found.validate({"user": "41"})) == "user 42"


class Colour(str, enum.Enum):
    RED = "red"


def test_a_string_enum_member_returned_is_observed_as_its_text():
    def favourite() -> Colour:
        """The favourite colour."""
        return Colour.RED

    llm = ScriptedLLM(["Action: favourite\nAction Input: {}", "Final Answer: red"])
    agent = ReActAgent("a", llm, tools=[Tool(favourite, read_only=True)], verbose=False)
    agent.run("Which colour?")
    assert agent.last_result.steps_of("observation")[0].content == "red"
    assert "Observation: red" in llm.requests[1].messages[-1]["content"]


# --------------------------------------------------------------------------- an MCP tool's schema with $ref
class _Server:  # what MCPTool needs of a server, in-process
    name, trust, max_description_chars, call_timeout = "fake", True, 2000, 5.0

    def call(self, name: str, arguments: dict, timeout: float | None = None) -> str:
        return "got " + json.dumps(arguments)


ADDRESS = {"type": "object", "properties": {"zip": {"type": "integer"}}, "required": ["zip"]}


@pytest.mark.parametrize("definitions", ["$defs", "definitions"])
def test_an_mcp_tool_s_referenced_object_is_checked_as_any_other(definitions):
    from vero.tools.mcp import MCPTool

    schema = {"type": "object", definitions: {"Address": {**ADDRESS, "additionalProperties": False}}}
    schema |= {"properties": {"to": {"$ref": f"#/{definitions}/Address"}}, "required": ["to"]}
    found = MCPTool(_Server(), {"name": "ship", "inputSchema": schema, "annotations": {"readOnlyHint": True}})
    assert found.signature() == "to: {zip: integer}" and definitions not in found.parameters
    assert found.validate({"to": {"zip": "75001"}}) == {"to": {"zip": 75001}}
    with pytest.raises(ValueError, match=r"to\.zip \(expected integer, got 'x'\); to\.zap \(unexpected field"):
        found.validate({"to": {"zip": "x", "zap": 1}})


def test_an_mcp_tool_s_other_arguments_are_checked_against_additional_properties():
    from vero.tools.mcp import MCPTool

    schema = {"type": "object", "properties": {}, "additionalProperties": {"type": "integer"}}
    found = MCPTool(_Server(), {"name": "count", "inputSchema": schema})
    with pytest.raises(ValueError, match=r"n \(expected integer, got 'many'\)"):
        found.validate({"n": "many"})


# --------------------------------------------------------------------------- an iterator returned
@pytest.mark.parametrize(
    "made, text",
    [(lambda: zip("ab", [1, 2]), '[["a", 1], ["b", 2]]'), (lambda: map(str.upper, "ab"), '["A", "B"]')],
)
def test_an_iterator_a_tool_returns_is_observed_as_its_items(made, text):
    def pairs() -> object:
        """Pairs."""
        return made()

    registry = ToolRegistry([Tool(pairs, read_only=True)])
    assert registry.run("pairs", {}).output == text


# --------------------------------------------------------------------------- constraints: a multiple, a dict's size
def test_a_multiple_of_constraint_is_shown_and_checked():
    def pack(
        even: Annotated[int, pydantic.Field(multiple_of=2)], step: Annotated[float, pydantic.Field(multiple_of=0.1)]
    ):
        """Pack."""
        return even

    found = Tool(pack)
    assert found.parameters["properties"]["even"] == {"type": "integer", "multipleOf": 2}
    assert found.validate({"even": 4, "step": 0.3}) == {"even": 4, "step": 0.3}  # 0.3 is a multiple of 0.1, written
    with pytest.raises(ValueError, match=r"even \(expected a multiple of 2, got 3\); step \(expected a multiple of"):
        found.validate({"even": 3, "step": 0.25})


def test_a_dict_s_length_constraint_bounds_its_entries():
    def label(tags: Annotated[dict[str, int], pydantic.Field(min_length=1, max_length=2)]) -> str:
        """Label."""
        return "ok"

    found = Tool(label)
    assert {"minProperties": 1, "maxProperties": 2}.items() <= found.parameters["properties"]["tags"].items()
    with pytest.raises(ValueError, match=r"tags \(expected at most 2 entries, got 3\)"):
        found.validate({"tags": {"a": 1, "b": 2, "c": 3}})
    with pytest.raises(ValueError, match=r"tags \(expected at least 1 entries, got 0\)"):
        found.validate({"tags": {}})


class Query(pydantic.BaseModel):
    count: int
    text: str


def test_a_lookup_s_pydantic_parameter_names_every_problem_with_an_unknown_field():
    def find(query: Query) -> str:
        """Find."""
        return "ok"

    outcome = ToolRegistry([Tool(find, read_only=True)]).call("find", {"query": {"count": "many", "extra": 1}})
    assert all(f"query.{field} (" in outcome.output for field in ("extra", "count", "text"))


class Repeat:
    """Repeat a word."""

    count: str  # an attribute of the class, not the argument of the same name

    def __init__(self, word: str, count: int):
        self.text = " ".join([word] * count)

    def __str__(self) -> str:
        return self.text


def test_a_class_as_a_tool_takes_its_own_init_s_arguments():
    found = Tool(Repeat, read_only=True)
    assert found.parameters["properties"] == {"word": {"type": "string"}, "count": {"type": "integer"}}
    assert ToolRegistry([found]).call("Repeat", {"word": "hi", "count": "3"}).output == "hi hi hi"


def test_a_multiple_of_a_huge_number_is_checked_without_error():
    def pay(amount: Annotated[int, pydantic.Field(multiple_of=5)]) -> int:
        """Pay."""
        return amount

    found = Tool(pay)
    assert found.validate({"amount": 10**32}) == {"amount": 10**32}
    with pytest.raises(ValueError, match="expected a multiple of 5"):
        found.validate({"amount": 10**32 + 1})


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "$defs": [1], "properties": {"a": {"type": "string"}}},  # not a mapping
        {"type": "object", "properties": {"doc": {"type": "object", "default": {"title": "Untitled"}}}},
    ],
)
def test_an_mcp_tool_s_odd_schema_is_read_as_written(schema):
    from vero.tools.mcp import MCPTool

    found = MCPTool(_Server(), {"name": "odd", "inputSchema": schema})
    assert found.parameters["properties"] == schema["properties"]


def test_an_mcp_tool_s_references_that_fan_out_are_not_expanded_without_end():
    from vero.tools.mcp import MCPTool

    definitions = {
        f"D{n}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/D{n + 1}"}, "b": {"$ref": f"#/$defs/D{n + 1}"}},
        }
        for n in range(30)
    }
    schema = {"type": "object", "$defs": definitions, "properties": {"root": {"$ref": "#/$defs/D0"}}}
    found = MCPTool(_Server(), {"name": "deep", "inputSchema": schema})
    assert len(json.dumps(found.parameters)) < 1_000_000
