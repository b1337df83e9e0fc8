"""A fifteenth probe of how functions become tools: defaults, returned values, unions, dict keys, methods."""

from __future__ import annotations

import datetime
import enum
import json
import math
import sys
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NamedTuple

import pydantic
import pytest

from vero.core.result import RunResult, ToolError, plain_output
from vero.tools import Tool, ToolRegistry, tool
from vero.tools.base import parse_docstring


@dataclass
class Box:
    w: int


class Colour(enum.Enum):
    RED = "red"


@dataclass
class Parcel:
    box: Box = None  # type: ignore[assignment]  # `x: T = None`, as people write it


def pack(n: int = None, box: Box = None, day: datetime.date = None, colour: Colour = None, boxes: list[Box] = None):  # type: ignore[assignment]  # noqa: E501
    """Pack."""
    return repr((n, box, day, colour, boxes))


@pytest.mark.parametrize("name", ["n", "box", "day", "colour", "boxes"])
def test_null_is_the_default_none_whatever_the_type(name):
    out = ToolRegistry([Tool(pack)]).run("pack", {name: None})
    assert out.ok and out.output == repr((None,) * 5)


def test_null_is_the_default_none_of_a_records_field_too():
    def send(parcel: Parcel) -> str:
        """Send."""
        return repr(parcel)

    out = ToolRegistry([Tool(send)]).run("send", {"parcel": {"box": None}})
    assert out.ok and out.output == "Parcel(box=None)"


def remember(item: str, seen: dict = {}, tags: list = []) -> str:  # noqa: B006  # the classic mutable default
    """Remember an item."""
    seen[item] = True
    tags.append(item)
    return "ok"


def test_a_mutable_default_changed_by_the_tool_does_not_change_the_schema():
    tools = ToolRegistry([Tool(remember)])
    tools.run("remember", {"item": "alice@example.com"})
    properties = tools.schemas()[0]["function"]["parameters"]["properties"]
    assert properties["seen"]["default"] == {} and properties["tags"]["default"] == []


@dataclass
class Settings:
    region: str
    api_key: str


MISSING = object()


def search(q: str, settings: Settings = Settings("eu", "sk-live-1234567890abcdef"), page: int = MISSING) -> str:  # type: ignore[assignment]  # noqa: B008, E501
    """Search."""
    return "ok"


def test_a_default_of_no_json_type_is_not_shown_but_the_argument_stays_optional():
    t = Tool(search)
    described = ToolRegistry([t]).describe() + json.dumps(t.schema)
    assert "sk-live" not in described and "object at" not in described
    assert "default" not in t.parameters["properties"]["settings"] and t.parameters["required"] == ["q"]
    assert "settings?: {region: string, api_key: string}, page?: integer" in t.signature()


def test_plain_json_defaults_and_text_kinds_are_still_shown():
    def book(day: datetime.date = datetime.date(2024, 1, 2), colour: Colour = Colour.RED, n: float = 1.5) -> str:
        """Book."""
        return "ok"

    properties = Tool(book).parameters["properties"]
    assert [properties[name]["default"] for name in ("day", "colour", "n")] == ["2024-01-02", "red", 1.5]


class User(pydantic.BaseModel):
    user_id: int = pydantic.Field(alias="userId")


def test_a_returned_pydantic_model_is_shown_by_alias_as_its_schema_asks():
    def get_user() -> User:
        """Get the user."""
        return User(userId=3)

    def save_user(user: User) -> str:
        """Save a user."""
        return "saved"

    tools = ToolRegistry([Tool(get_user), Tool(save_user)])
    shown = tools.run("get_user").output
    assert json.loads(shown) == {"userId": 3}
    assert tools.run("save_user", {"user": json.loads(shown)}).output == "saved"
    assert RunResult(output=User(userId=3)).to_dict()["output"] == {"userId": 3}  # the same in to_dict


class Card(pydantic.BaseModel):
    kind: Literal["card"]
    number: str
    cvc: int


class Bank(pydantic.BaseModel):
    kind: Literal["bank"]
    iban: str


@dataclass
class Email:
    kind: Literal["email"]
    to: str


@dataclass
class Sms:
    kind: Literal["sms"]
    phone: str
    chars: int


def pay(method: Annotated[Card | Bank, pydantic.Field(discriminator="kind")], amount: int) -> str:
    """Pay."""
    return "paid"


def notify(via: list[Email | Sms]) -> str:
    """Notify."""
    return "sent"


@pytest.mark.parametrize("read_only", [True, False])
def test_a_union_names_the_problems_of_the_option_its_tag_picks(read_only):
    tools = ToolRegistry([Tool(pay, read_only=read_only), Tool(notify, read_only=read_only)])
    paid = tools.run("pay", {"method": {"kind": "card", "number": "4111", "cvc": "abc"}, "amount": 5}).output
    assert "for: method.cvc (" in paid
    sms = {"kind": "sms", "phone": "123", "chars": "many"}
    sent = tools.run("notify", {"via": [{"kind": "email", "to": "a"}, sms]}).output
    assert "for: via[1].chars (expected integer, got 'many')" in sent


def test_a_union_no_tag_picks_is_still_named_as_a_whole():
    out = ToolRegistry([Tool(notify)]).run("notify", {"via": [{"kind": "fax", "to": "a"}]}).output
    assert 'for: via[0] (expected {kind: "email", to: string} or {kind: "sms"' in out


class Cat(pydantic.BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(pydantic.BaseModel):
    kind: Literal["dog"]
    bark: str


class Owner(pydantic.BaseModel):
    pet: Cat | Dog = pydantic.Field(discriminator="kind")


def adopt(owner: Owner) -> str:
    """Adopt."""
    return "ok"


def test_a_discriminators_mapping_to_the_dropped_defs_is_dropped():
    text = json.dumps(Tool(adopt).schema)
    assert "#/$defs/" not in text and "$defs" not in text
    assert Tool(adopt).parameters["properties"]["owner"]["properties"]["pet"]["discriminator"] == {
        "propertyName": "kind"
    }


def test_a_discriminated_union_checked_by_its_schema_names_the_tagged_options_field():
    out = ToolRegistry([Tool(adopt)]).run("adopt", {"owner": {"pet": {"kind": "cat", "lives": "many"}}}).output
    assert "for: owner.pet.lives (" in out


def test_google_parameter_lines_whose_type_holds_parentheses():
    _, args = parse_docstring(
        """Move a piece.

        Args:
            speed (float): how fast
            start (tuple(int, int)): the square to start from
            end (dict(str, tuple(int, int)), optional): the square to end on
        """
    )
    assert args == {"speed": "how fast", "start": "the square to start from", "end": "the square to end on"}


def test_a_returned_dict_whose_keys_collide_as_text_loses_none_and_nan_is_json():
    def counts() -> dict:
        """Counts by id."""
        return {1: "int key", "1": "str key", "ratio": math.nan, "max": math.inf, "min": -math.inf}

    out = ToolRegistry([Tool(counts)]).run("counts").output
    parsed = json.loads(out, parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))
    assert parsed == {"1 (int)": "int key", "1": "str key", "ratio": "NaN", "max": "Infinity", "min": "-Infinity"}


def test_enum_keys_are_written_as_their_values():
    def by_colour() -> dict:
        """By colour."""
        return {Colour.RED: 1}

    assert ToolRegistry([Tool(by_colour)]).run("by_colour").output == '{"red": 1}'


class Shop:
    def stock(self, item: str) -> int:
        """Units in stock."""
        return 3

    @tool(read_only=True)
    def price(self, item: str) -> float:
        """Price of an item."""
        return 1.0


def test_the_same_bound_method_given_twice_is_taken_once():
    shop = Shop()
    assert ToolRegistry([shop.stock, shop.stock]).names() == ["stock"]
    assert ToolRegistry([shop.price, shop.price]).names() == ["price"]
    with pytest.raises(ValueError, match="two different tools"):
        ToolRegistry([Shop().stock, Shop().stock])  # two shops: two tools
    with pytest.raises(ValueError, match="two different tools"):
        ToolRegistry([Tool(shop.stock, read_only=True), Tool(shop.stock)])


def _catalog() -> type:
    """Made in a function: before the fix, ``@tool`` over ``@classmethod`` failed when the class was made."""

    class Catalog:
        @classmethod
        @tool
        def lookup(cls, sku: str) -> str:
            """Look a SKU up."""
            return f"{cls.__name__}:{sku}"

        @tool
        @classmethod
        def find(cls, sku: str) -> str:
            """Find a SKU."""
            return f"{cls.__name__}:{sku}"

        @tool
        def count(this, sku: str) -> str:  # noqa: N805  # a first parameter not named self
            """Count a SKU."""
            return f"{type(this).__name__}:{sku}"

    return Catalog


OVER_TOOL = pytest.mark.skipif(sys.version_info >= (3, 13), reason="3.13's classmethod no longer chains __get__")


@pytest.mark.parametrize(
    "read", [pytest.param(lambda c: c.lookup, marks=OVER_TOOL), lambda c: c.find, lambda c: c().count]
)
def test_classmethods_and_methods_hide_their_first_parameter_whatever_its_name(read):
    found = read(_catalog())
    assert isinstance(found, Tool) and found.parameters["required"] == ["sku"]
    out = ToolRegistry([found]).run(found.name, {"sku": "A1"})
    assert out.output == "Catalog:A1"
    assert "unexpected argument(s): cls" in ToolRegistry([found]).run(found.name, {"cls": "x", "sku": "A1"}).output


def test_a_module_function_set_on_a_class_is_not_bound():
    @tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    holder = type("Holder", (), {"echo": echo})
    assert holder().echo.parameters["required"] == ["text"]


class Region(str, enum.Enum):
    EU = "eu"
    US = "us"


class Zone(enum.Enum):
    EU = "eu"


def test_dict_keys_of_a_few_strings_are_accepted_and_checked():
    def set_quota(quota: dict[Literal["eu", "us"], int], zones: dict[Zone, int] | None = None) -> str:
        """Set quotas."""
        return repr((quota, zones))

    t = Tool(set_quota)
    assert t.parameters["properties"]["quota"]["properties"] == {"eu": {"type": "integer"}, "us": {"type": "integer"}}
    tools = ToolRegistry([t])
    assert (
        tools.run("set_quota", {"quota": {"eu": "3"}, "zones": {"eu": 1}}).output == "({'eu': 3}, {<Zone.EU: 'eu'>: 1})"
    )
    assert "quota.asia (unexpected field (the fields: eu, us))" in tools.run("set_quota", {"quota": {"asia": 1}}).output
    assert Tool(_quota2).parameters["properties"]["quota"]["additionalProperties"] is False
    with pytest.raises(TypeError, match="JSON object keys are strings"):
        Tool(_int_keys)


def _quota2(quota: dict[Region, int]) -> str:
    """Set quotas."""
    return "ok"


def _int_keys(quota: dict[Literal[1, 2], int]) -> str:
    """Set quotas."""
    return "ok"


def test_a_result_vero_cannot_write_is_not_blamed_on_the_tool():
    def factorial(n: int) -> int:
        """n!"""
        return math.factorial(n)

    out = ToolRegistry([Tool(factorial, read_only=True)]).run("factorial", {"n": 2000})
    assert not out.ok and out.error == ToolError.EXCEPTION
    assert out.output.startswith("Error: tool 'factorial' returned a value vero could not write as text: ValueError")


class Plain:
    @tool
    def add(a: int, b: int) -> int:  # noqa: N805  # no instance: its first parameter is an argument
        """Add two numbers."""
        return a + b


def _from_self(self: Any, x: int) -> int:
    """A module function written for a class (a mixin's)."""
    return x


def test_a_tool_in_a_class_whose_first_parameter_is_an_argument_is_not_bound_and_one_named_self_is():
    assert Plain().add.parameters["required"] == ["a", "b"] and Plain().add.call({"a": 1, "b": 2}) == 3
    mixin = type("Mixin", (), {"pick": tool(_from_self)})
    assert mixin().pick.parameters["required"] == ["x"]


def test_a_pydantic_model_written_under_another_name_than_it_is_read_by_keeps_its_field_names():
    class Out(pydantic.BaseModel):
        user_name: str = pydantic.Field(serialization_alias="userName")

    assert plain_output(Out(user_name="x")) == {"user_name": "x"}


class Hue(str, enum.Enum):
    RED = "red"


class Pair(NamedTuple):
    x: int
    y: int


def test_defaults_that_json_writes_as_its_own_values_are_shown():
    @tool
    def paint(hues: list[Hue] = [Hue.RED], at: tuple[int, int] = Pair(1, 2)) -> str:  # noqa: B006
        """Paint."""
        return ""

    properties = paint.parameters["properties"]
    assert properties["hues"]["default"] == ["red"] and properties["at"]["default"] == [1, 2]


# -- a generator that raises after giving some items ------------------------------------------------------------
def test_a_generator_that_raises_midway_fails_and_keeps_what_it_gave_in_its_error():
    def readings(count: int):
        """Meter readings, until the meter fails."""
        yield from ({"meter": n, "kwh": 10 * n} for n in range(count))
        raise OSError("the meter stopped answering")

    outcome = ToolRegistry([readings]).call("readings", {"count": 2})
    assert (outcome.ok, outcome.error) == (False, ToolError.EXCEPTION)
    assert outcome.output == (
        "Error: tool 'readings' raised OSError: the meter stopped answering; "
        'before that it gave: [{"meter": 0, "kwh": 0}, {"meter": 1, "kwh": 10}]'
    )
    nothing = ToolRegistry([readings]).call("readings", {"count": 0})  # no item: the error alone, as before
    assert nothing.output == "Error: tool 'readings' raised OSError: the meter stopped answering"


def test_a_generator_that_raises_after_items_vero_cannot_write_fails_with_its_own_error():
    def huge():
        """Numbers too long to write."""
        yield 10**5000
        raise OSError("the meter stopped answering")

    outcome = ToolRegistry([huge]).call("huge", {})
    assert outcome.output == "Error: tool 'huge' raised OSError: the meter stopped answering"
