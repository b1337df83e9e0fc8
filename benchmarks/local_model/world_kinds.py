"""Worlds that differ in kind from the dev and held-out ones: the ``heldout-kinds`` split.

A world of ``worlds.py`` answers with flat JSON objects, fails with a small message dict and asks
for single values.  A world made here, from a seed of ``KIND_SEEDS`` only, is built from other
parts: its tools reply in one of five formats (``world_formats``), fail in one of four other ways,
include a listing with no parameters or a free-text search, a calculator taking an operation and
two numbers, a tool over a list of numbers, a unit converter and a tool that counts days; and its
tasks ask for kinds of answers the other worlds never ask for (``world_kinds_tasks``).  Nothing of
this reaches a dev seed, so a rule fitted to the dev worlds' shapes meets new shapes here.

The nouns, units and measures are this module's own; entity names are invented per seed as
elsewhere.  Standard library only: the peers' worker imports this too.
"""

from __future__ import annotations

import ast
import copy
import datetime as dt
import inspect
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from world import _evaluate  # safe arithmetic: numbers, + - * / and parentheses
from world_formats import ERROR_KINDS, FORMAT_WORDS, RESULT_FORMATS, ErrorWriter, Failure, Field, write_records
from world_tools import docstring, make_tool
from world_vocab import invented_names, invented_word

# make_world builds these seeds here; every other seed comes from worlds.py's generator.
KIND_SEEDS = range(401, 500)

# Each domain: its nouns, what is counted (and the word for one of it), a measure of one counted
# unit in a small unit with the large unit questions ask for, a category and a date.
DOMAINS: dict[str, dict] = {
    "orchard": {
        "item": ("cultivar", "cultivars"),
        "site": ("grove", "groves"),
        "place": "valley",
        "manager": "grower",
        "count": ("crates", "crate"),
        "measure": ("weight of one crate", "g", (8000, 25000)),
        "large": ("kilograms", ("kg", "kilograms", "kilogram", "kilos")),
        "factor": 1000,
        "total": "What do all the crates of the cultivar {x} weigh together, in kilograms? Give the unit.",
        "one": "How much does one crate of the cultivar {x} weigh, in kilograms? Give the unit.",
        "category": ("season", ("early", "midseason", "late", "winter")),
        "date": ("harvest_date", "harvest date"),
    },
    "cellar": {
        "item": ("cider", "ciders"),
        "site": ("cellar", "cellars"),
        "place": "parish",
        "manager": "cellarer",
        "count": ("bottles", "bottle"),
        "measure": ("volume of one bottle", "ml", (250, 1500)),
        "large": ("litres", ("l", "litres", "litre", "liters", "liter")),
        "factor": 1000,
        "total": "How many litres of the cider {x} are there in all its bottles together? Give the unit.",
        "one": "How many litres does one bottle of the cider {x} hold? Give the unit.",
        "category": ("style", ("dry", "sweet", "sparkling", "still")),
        "date": ("bottled_on", "bottling date"),
    },
    "mill": {
        "item": ("cloth", "cloths"),
        "site": ("mill", "mills"),
        "place": "county",
        "manager": "overseer",
        "count": ("rolls", "roll"),
        "measure": ("length of one roll", "cm", (1500, 6000)),
        "large": ("metres", ("m", "metres", "metre", "meters", "meter")),
        "factor": 100,
        "total": "What is the total length of all rolls of the cloth {x}, in metres? Give the unit.",
        "one": "How long is one roll of the cloth {x}, in metres? Give the unit.",
        "category": ("weave", ("plain", "twill", "satin", "crepe")),
        "date": ("dyed_on", "dye date"),
    },
    "quarry": {
        "item": ("stone", "stones"),
        "site": ("pit", "pits"),
        "place": "district",
        "manager": "quarrymaster",
        "count": ("blocks", "block"),
        "measure": ("mass of one block", "kg", (300, 4000)),
        "large": ("tonnes", ("t", "tonnes", "tonne", "tons", "ton")),
        "factor": 1000,
        "total": "What is the total mass of all blocks of the stone {x}, in tonnes? Give the unit.",
        "one": "What is the mass of one block of the stone {x}, in tonnes? Give the unit.",
        "category": ("finish", ("honed", "polished", "split", "sawn")),
        "date": ("cut_on", "cutting date"),
    },
}

TOOL_SHAPES = (
    "no_parameters",
    "free_text_search",
    "operation_and_two_numbers",
    "list_of_numbers",
    "unit_conversion",
    "day_count",
    "signed_change",
)
CODE_FORMATS = (
    lambda prefix, n: f"{prefix}-{n:03d}",
    lambda prefix, n: f"{prefix.lower()}.{n}",
    lambda prefix, n: f"#{n:04d}{prefix}",
)


@dataclass
class KindsWorld:
    """A world of the heldout-kinds split: its data, its tools (with their reply formats) and its tasks."""

    seed: int
    domain: str
    words: dict[str, Any]
    items: dict[str, dict]
    sites: dict[str, dict]
    error_kind: str
    fields: dict[str, list[Field]] = field(default_factory=dict)  # role -> what its replies hold
    formats: dict[str, str] = field(default_factory=dict)  # role -> its reply format
    tools: list[Callable[..., Any]] = field(default_factory=list)
    roles: dict[str, Callable[..., Any]] = field(default_factory=dict)
    read_only: dict[str, bool] = field(default_factory=dict)
    shapes: set[str] = field(default_factory=set)
    variants: dict[str, str] = field(default_factory=dict)
    changes: list[tuple] = field(default_factory=list)
    tasks: list = field(default_factory=list)

    def use(self, role: str, *args: Any) -> Any:
        """Call the tool that plays ``role`` (an oracle's way in)."""
        return self.roles[role](*args)

    def state(self) -> dict:
        return copy.deepcopy({"items": self.items, "sites": self.sites})

    @property
    def error_styles(self) -> set[str]:
        return {self.error_kind}

    def describe(self) -> str:
        """The world as text: its tools' signatures and docstrings, then its tasks."""
        lines = [
            f"world {self.seed}: {self.domain} (heldout-kinds), {len(self.tools)} tools, {len(self.tasks)} tasks, "
            f"errors {self.error_kind}",
            "",
        ]
        for role, tool in self.roles.items():
            kind = "looks up only" if self.read_only[tool.__name__] else "CHANGES the world"
            replies = self.formats.get("item" if role == "action" else role, "text")  # a change replies as a record
            lines.append(f"def {tool.__name__}{inspect.signature(tool)}:   # {kind}, replies as {replies}")
            lines += ["    " + line if line else "" for line in (tool.__doc__ or "").splitlines()]
            lines.append("")
        for task in self.tasks:
            effect = " (+ effect check)" if task.effect else ""
            lines.append(f"{task.id} [{task.kind}, {task.hops} hop(s), {task.answer}{effect}] {task.question}")
            lines.append(f"    expected: {task.expected}")
        return "\n".join(lines)


def make_kinds_world(seed: int) -> KindsWorld:
    """The world of ``seed`` (one of ``KIND_SEEDS``): the same every time, with a fresh state of its own."""
    from world_kinds_tasks import make_kinds_tasks  # the tasks read the world built here

    rng = random.Random(f"vero-kinds-world-{seed}")
    domain = rng.choice(sorted(DOMAINS))
    d = DOMAINS[domain]
    words = {**d, "cur": invented_word(rng, (1, 2)).lower() + "s"}
    w = KindsWorld(seed, domain, words, {}, {}, ERROR_KINDS[seed % len(ERROR_KINDS)])
    w.variants["error_wording"] = str(rng.randrange(6))
    _fill_data(w, rng)
    _add_tools(w, rng)
    w.tasks = make_kinds_tasks(w, rng)
    return w


def _fill_data(w: KindsWorld, rng: random.Random) -> None:
    d, taken = w.words, set()
    n_sites = rng.randint(3, 5)
    places = invented_names(rng, n_sites, 1, taken)
    managers = invented_names(rng, n_sites, 2, taken)
    names = invented_names(rng, rng.randint(7, 9), rng.choice((1, 2)), taken)
    prefix = d["site"][0][0].upper()
    for i, n in enumerate(rng.sample(range(1, 60), n_sites)):
        w.sites[f"{prefix}{n}"] = {"place": places[i], "manager": managers[i], "capacity": rng.randrange(600, 4000, 25)}
    values = list(d["category"][1])
    code_format, code_prefix = rng.choice(CODE_FORMATS), invented_word(rng, (1, 1))[:2].upper()
    low, high = d["measure"][2]
    start = dt.date(2026, 1, 1)
    for i, (name, n) in enumerate(zip(names, rng.sample(range(100, 999), len(names)))):
        w.items[name] = {
            "code": code_format(code_prefix, n),
            "site": list(w.sites)[i % n_sites] if i < n_sites else rng.choice(list(w.sites)),
            "count": rng.randint(12, 480),
            "price": round(rng.uniform(2.5, 350), 2),
            "category": values[i % len(values)] if i < len(values) else rng.choice(values),
            "measure": rng.randrange(low, high, 5),
            "date": (start + dt.timedelta(days=rng.randint(0, 600))).isoformat(),
        }


# -- what replies hold -----------------------------------------------------------------------------------
def _fields(w: KindsWorld) -> dict[str, list[Field]]:
    d, cur = w.words, w.words["cur"]
    counted, one = d["count"]
    measure, small, _ = d["measure"]
    name = Field("name", "name")
    code = Field("code", "code")
    count = Field(counted, f"number of {counted}", means="count")
    price = Field(f"price_per_{one}", f"price per {one}", cur, means="price")
    category = Field(d["category"][0], d["category"][0], means="category")
    return {
        "item": [
            name,
            code,
            Field(f"{d['site'][0]}_id", f"{d['site'][0]} id", means="site"),
            count,
            price,
            category,
            Field(f"{one}_{measure.split()[0]}_{small}", measure, small, means="measure"),
            Field(d["date"][0], d["date"][1], means="date"),
        ],
        "listing": [name, code, category, count, price],
        "site": [
            Field("id", "id"),
            Field(d["place"], d["place"], means="place"),
            Field(d["manager"], d["manager"], means="manager"),
            Field("capacity", f"capacity in {counted}"),
        ],
    }


def item_record(w: KindsWorld, name: str) -> dict:
    """An item's record by meaning: its name and its data (a reply writes the fields it lists)."""
    return {"name": name, **w.items[name]}


# -- the tools -------------------------------------------------------------------------------------------
# How likely a world is to have each tool beyond its record lookup, its listing and its calculator.
OPTIONAL_ROLES = {"site": 0.55, "action": 0.55, "stats": 0.35, "convert": 0.35, "days": 0.35}


def _add_tools(w: KindsWorld, rng: random.Random) -> None:
    w.fields = _fields(w)
    record_formats = rng.sample(RESULT_FORMATS, 3)
    w.formats = {
        "item": RESULT_FORMATS[w.seed % len(RESULT_FORMATS)],
        "listing": record_formats[0],
        "site": record_formats[1],
    }
    chosen = [role for role, chance in OPTIONAL_ROLES.items() if rng.random() < chance]
    while len(chosen) > 3:
        chosen.remove(rng.choice(chosen))
    if "action" in chosen:
        w.variants["action"] = rng.choice(("adjust", "recategorise", "relocate")[: 3 if "site" in chosen else 2])
    order = [*chosen, "calc"]
    rng.shuffle(order)
    for role in ["item", "listing", *order]:
        tool, read_only = BUILDERS[role](w, rng)
        w.roles[role] = tool
        w.tools.append(tool)
        w.read_only[tool.__name__] = read_only


def _errors(w: KindsWorld, role: str) -> ErrorWriter:
    """How ``role``'s tool fails; a tool without records (a calculator) replies "" when it fails empty."""
    fmt, empty = "text", ""
    if role in w.formats:
        fmt = w.formats[role]
        empty = write_records([], w.fields[role], fmt, w.words["site" if role == "site" else "item"][0])
    return ErrorWriter(w.error_kind, int(w.variants["error_wording"]), fmt, empty)


def _reply_doc(w: KindsWorld, role: str, what: str) -> str:
    fields = ", ".join(f"{f.key}" + (f" ({f.unit})" if f.unit else "") for f in w.fields[role])
    return f"Returns {what} as {FORMAT_WORDS[w.formats[role]]}, with: {fields}."


def find_item(w: KindsWorld, query: object) -> str:
    """The item ``query`` names, ignoring case and spacing; a not-found failure otherwise."""
    wanted = " ".join(str(query).split()).casefold()
    for name in w.items:
        if name.casefold() == wanted:
            return name
    raise Failure(f"no {w.words['item'][0]} named {str(query)[:60]!r}", "not_found")


def find_site(w: KindsWorld, query: object) -> str:
    wanted = str(query).strip().upper()
    for key in w.sites:
        if key.upper() == wanted:
            return key
    raise Failure(f"no {w.words['site'][0]} with id {str(query)[:60]!r}", "not_found")


def find_category(w: KindsWorld, query: object) -> str:
    wanted = str(query).strip().casefold()
    for value in w.words["category"][1]:
        if value == wanted:
            return value
    raise Failure(f"{str(query)[:60]!r} is not a {w.words['category'][0]}", "not_found")


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise Failure(f"{what} must be a number, not {str(value)[:40]!r}")
    try:
        number = float(value)
    except ValueError:
        raise Failure(f"{what} must be a number, not {str(value)[:40]!r}") from None
    if number != number or abs(number) > 1e15:
        raise Failure(f"{what} is out of range")
    return number


def _shown(value: float) -> str:
    value = round(value, 6)
    return str(int(value)) if float(value).is_integer() else repr(value)


def _item_tool(w: KindsWorld, rng: random.Random):
    item = w.words["item"][0]
    name = rng.choice((f"{item}_record", f"describe_{item}", f"fetch_{item}", f"{item}_details"))
    param = rng.choice(("name", f"{item}_name", "title"))
    fmt = w.formats["item"]

    def body(query):
        return write_records([item_record(w, find_item(w, query))], w.fields["item"], fmt, item)

    doc = docstring(
        f"The full record of one {item}, by its name.",
        [(param, f"the {item}'s name.")],
        _reply_doc(w, "item", "the record"),
        "prose",
    )
    return make_tool(name, [(param, str)], dict if fmt == "json" else str, doc, body, _errors(w, "item")), True


def _listing_tool(w: KindsWorld, rng: random.Random):
    item, items = w.words["item"]
    fmt, key = w.formats["listing"], w.words["category"][0]
    variant = w.variants["listing"] = rng.choice(("catalogue", "search", "by_category"))
    returns = dict if fmt == "json" else str

    def write(names: list[str]):
        return write_records([item_record(w, n) for n in names], w.fields["listing"], fmt, item)

    if variant == "catalogue":
        w.shapes.add("no_parameters")
        name = rng.choice(("catalogue", f"all_{items}", f"list_all_{items}", "inventory"))
        params: list = []
        args: list = []

        def body():
            return write(list(w.items))

        summary = f"Every {item} there is, one record each."
    elif variant == "search":
        w.shapes.add("free_text_search")
        name = rng.choice((f"search_{items}", "search", f"find_{items}"))
        params = [(rng.choice(("text", "query", "contains")), str)]
        args = [(params[0][0], "part of a name or a code; an empty text lists them all.")]

        def body(text):  # type: ignore[misc]
            wanted = " ".join(str(text).split()).casefold()
            return write([n for n, i in w.items.items() if wanted in n.casefold() or wanted in i["code"].casefold()])

        summary = f"The {items} whose name or code contains a text (ignoring case)."
    else:
        name = rng.choice((f"{items}_by_{key}", f"list_by_{key}", f"browse_{items}"))
        params = [(key, str)]
        args = [(key, f"the {key}: {', '.join(w.words['category'][1])}.")]

        def body(value):  # type: ignore[misc]
            wanted = find_category(w, value)
            return write([n for n, i in w.items.items() if i["category"] == wanted])

        summary = f"The {items} of one {key}."
    doc = docstring(summary, args, _reply_doc(w, "listing", "one record per " + item), "prose")
    return make_tool(name, params, returns, doc, body, _errors(w, "listing")), True


def _site_tool(w: KindsWorld, rng: random.Random):
    site = w.words["site"][0]
    name = rng.choice((f"{site}_info", f"get_{site}", f"{site}_record"))
    param = rng.choice((f"{site}_id", "id"))
    prefix = next(iter(w.sites))[0]
    example = next(f"{prefix}{n}" for n in range(12, 99) if f"{prefix}{n}" not in w.sites)  # an id no site has
    fmt = w.formats["site"]

    def body(query):
        key = find_site(w, query)
        return write_records([{"id": key, **w.sites[key]}], w.fields["site"], fmt, site)

    doc = docstring(
        f"One {site}, by its id (such as {example}).",
        [(param, f"the {site}'s id.")],
        _reply_doc(w, "site", "the record"),
        "prose",
    )
    return make_tool(name, [(param, str)], dict if fmt == "json" else str, doc, body, _errors(w, "site")), True


def _action_tool(w: KindsWorld, rng: random.Random):
    item, site, key = w.words["item"][0], w.words["site"][0], w.words["category"][0]
    counted, fmt = w.words["count"][0], w.formats["item"]
    variant = w.variants["action"]
    first = (rng.choice(("name", f"{item}_name")), str)

    def changed(target: str):
        return write_records([item_record(w, target)], w.fields["item"], fmt, item)

    if variant == "adjust":
        w.shapes.add("signed_change")
        name = rng.choice((f"adjust_{counted}", f"update_{counted}", "record_stock_change"))
        params = [first, (rng.choice(("change", "delta", "by")), int)]
        summary = (
            f"Add {counted} to a {item}'s records (a positive change) or take them off (a negative one). "
            "This changes the records."
        )
        args = [
            (first[0], f"the {item}'s name."),
            (params[1][0], f"how many {counted} to add, or minus how many to remove."),
        ]

        def body(who, by):
            target, n = find_item(w, who), _number(by, "the change")
            if not n.is_integer() or n == 0 or w.items[target]["count"] + n < 0:
                raise Failure(f"cannot change {target}'s {w.items[target]['count']} {counted} by {by!r}", "conflict")
            w.items[target]["count"] += int(n)
            w.changes.append(("adjust", target, int(n)))
            return changed(target)
    elif variant == "recategorise":
        name = rng.choice((f"set_{key}", f"change_{key}", f"reclassify_{item}"))
        params = [first, (key, str)]
        summary = f"Give a {item} another {key}. This changes the records."
        args = [(first[0], f"the {item}'s name."), (key, f"the new {key}: {', '.join(w.words['category'][1])}.")]

        def body(who, value):  # type: ignore[misc]
            target, wanted = find_item(w, who), find_category(w, value)
            if w.items[target]["category"] == wanted:
                raise Failure(f"{target} is {wanted} already", "conflict")
            w.items[target]["category"] = wanted
            w.changes.append(("recategorise", target, wanted))
            return changed(target)
    else:
        name = rng.choice((f"move_{item}", f"relocate_{item}"))
        params = [first, (f"{site}_id", str)]
        summary = f"Move a {item} to another {site}. This changes the records."
        args = [(first[0], f"the {item}'s name."), (params[1][0], f"the id of the {site} to move it to.")]

        def body(who, to):  # type: ignore[misc]
            target, where = find_item(w, who), find_site(w, to)
            if w.items[target]["site"] == where:
                raise Failure(f"{target} is at {where} already", "conflict")
            w.items[target]["site"] = where
            w.changes.append(("relocate", target, where))
            return changed(target)

    doc = docstring(summary, args, "Returns the changed record, written as the record lookup writes it.", "prose")
    return make_tool(name, params, dict if fmt == "json" else str, doc, body, _errors(w, "item")), False


OPERATIONS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/"}


def _calc_tool(w: KindsWorld, rng: random.Random):
    w.variants["calc"] = rng.choice(("expression", "operation", "operation"))
    if w.variants["calc"] == "expression":
        name, param = rng.choice(("calculate", "evaluate")), rng.choice(("expression", "formula"))
        doc = docstring(
            "Evaluate arithmetic: numbers, + - * / and parentheses.",
            [(param, "e.g. (12.5 + 3) * 4.")],
            "Returns the value as text.",
            "prose",
        )

        def body(text):
            text = str(text).strip()
            if not text or len(text) > 400:
                raise Failure("an expression is needed")
            try:
                return _shown(_evaluate(ast.parse(text, mode="eval").body))
            except (SyntaxError, ValueError, TypeError, ZeroDivisionError, KeyError, RecursionError, OverflowError):
                raise Failure(f"cannot evaluate {text[:60]!r}") from None

        return make_tool(name, [(param, str)], str, doc, body, _errors(w, "calc")), True
    w.shapes.add("operation_and_two_numbers")
    name = rng.choice(("arithmetic", "compute", "math_op"))
    params = [("operation", Literal[tuple(OPERATIONS)]), ("a", float), ("b", float)]  # type: ignore[misc]
    doc = docstring(
        "One arithmetic operation on two numbers: a (operation) b.",
        [("operation", "add, subtract, multiply or divide."), ("a", "the first number."), ("b", "the second number.")],
        "Returns the result as text.",
        "prose",
    )

    def operate(operation, a, b):
        if operation not in OPERATIONS:
            raise Failure(f"unknown operation {str(operation)[:40]!r}; use add, subtract, multiply or divide")
        x, y = _number(a, "a"), _number(b, "b")
        if operation == "divide" and y == 0:
            raise Failure("cannot divide by zero")
        return _shown({"add": x + y, "subtract": x - y, "multiply": x * y, "divide": x / y if y else 0}[operation])

    return make_tool(name, params, str, doc, operate, _errors(w, "calc")), True


def _stats_tool(w: KindsWorld, rng: random.Random):
    w.shapes.add("list_of_numbers")
    name = rng.choice(("statistics", "aggregate", "summarise_numbers"))
    params = [("operation", Literal["sum", "mean", "min", "max"]), ("values", list[float])]
    doc = docstring(
        "Sum, mean, minimum or maximum of a list of numbers.",
        [("operation", "sum, mean, min or max."), ("values", "the numbers, e.g. [3, 4.5, 10].")],
        "Returns the result as text.",
        "prose",
    )

    def body(operation, values):
        if not isinstance(values, list) or not values or len(values) > 200:
            raise Failure("values must be a list of 1 to 200 numbers")
        numbers = [_number(v, "every value") for v in values]
        table = {"sum": sum, "mean": lambda v: sum(v) / len(v), "min": min, "max": max}
        if operation not in table:
            raise Failure(f"unknown operation {str(operation)[:40]!r}; use sum, mean, min or max")
        return _shown(table[operation](numbers))

    return make_tool(name, params, str, doc, body, _errors(w, "stats")), True


def _convert_tool(w: KindsWorld, rng: random.Random):
    w.shapes.add("unit_conversion")
    small, (large_name, large) = w.words["measure"][1], w.words["large"]
    to_small = {small: 1.0, large[0]: float(w.words["factor"])}
    name = rng.choice(("convert_units", "convert", "unit_converter"))
    params = [("value", float), ("from_unit", str), ("to_unit", str)]
    doc = docstring(
        f"Convert a measure between {small} and {large[0]} ({large_name}).",
        [
            ("value", "the number to convert."),
            ("from_unit", f"{small} or {large[0]}."),
            ("to_unit", f"{small} or {large[0]}."),
        ],
        "Returns the value with its unit.",
        "prose",
    )

    def unit(text: object) -> str:
        wanted = str(text).strip().casefold()
        for symbol in to_small:
            if wanted == symbol.casefold() or (symbol == large[0] and wanted in large):
                return symbol
        raise Failure(f"unknown unit {str(text)[:30]!r}; use {small} or {large[0]}")

    def body(value, from_unit, to_unit):
        source, target = unit(from_unit), unit(to_unit)
        return f"{_shown(_number(value, 'value') * to_small[source] / to_small[target])} {target}"

    return make_tool(name, params, str, doc, body, _errors(w, "convert")), True


def _days_tool(w: KindsWorld, rng: random.Random):
    w.shapes.add("day_count")
    name = rng.choice(("days_between", "count_days", "date_difference"))
    params = [(rng.choice(("start", "first")), str), (rng.choice(("end", "second")), str)]
    doc = docstring(
        "How many days lie between two dates.",
        [(params[0][0], "an ISO date, YYYY-MM-DD."), (params[1][0], "an ISO date, YYYY-MM-DD.")],
        "Returns the number of days, negative when the second date comes first.",
        "prose",
    )

    def day(text: object) -> dt.date:
        try:
            return dt.date.fromisoformat(str(text).strip()[:10])
        except ValueError:
            raise Failure(f"{str(text)[:30]!r} is not an ISO date (YYYY-MM-DD)") from None

    def body(start, end):
        return f"{(day(end) - day(start)).days} days"

    return make_tool(name, params, str, doc, body, _errors(w, "days")), True


BUILDERS: dict[str, Callable[..., tuple[Callable[..., Any], bool]]] = {
    "item": _item_tool,
    "listing": _listing_tool,
    "site": _site_tool,
    "action": _action_tool,
    "calc": _calc_tool,
    "stats": _stats_tool,
    "convert": _convert_tool,
    "days": _days_tool,
}
