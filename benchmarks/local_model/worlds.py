"""Generated benchmark worlds: a seeded yardstick that prompts cannot be tuned to.

``make_world(seed)`` builds a fictional world from its seed alone: invented
entities in one of several domains ("things are kept in groups, a person runs
each group"), 3 to 6 plain typed tools chosen and named per seed, and 16 tasks
whose expected answers are computed from the data.  The same seed always gives
the same world; each call gives a fresh copy of its state, so a tool that
changes the world in one run never leaks into another.

Worlds differ in their nouns and attribute names, in which tools they have
(lookup by name, lookup by id, a list to filter or sort with a fixed set of
values, dates, a tool that changes the world, a tool no task needs), in how
errors read (a suggestion, the known values, an id-format hint, a terse "not
found"), and in how their docstrings are written.

Three splits, disjoint: ``DEV_SEEDS`` for reading trajectories and trying
changes, ``HELDOUT_SEEDS`` only to report, and ``HELDOUT_KINDS_SEEDS``, worlds
built by world_kinds.py that differ from both in kind (reply formats, failures,
tool shapes, task shapes and answer kinds), only to report and never to read
while developing; ``heldout-all`` is both held-out blocks.  Tables and targets
use held-out seeds only.  Standard library only: the peers' worker imports this too.

    python benchmarks/local_model/worlds.py 7    # print world 7: its tools' docstrings and its tasks
"""

from __future__ import annotations

import datetime as dt
import inspect
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from world_answers import is_correct  # noqa: E402,F401  (the check run.py and peers.py use)
from world_kinds import KIND_SEEDS, KindsWorld, make_kinds_world  # noqa: E402
from world_tasks import TASKS_PER_WORLD, WorldTask, make_tasks  # noqa: E402,F401
from world_tools import (  # noqa: E402
    WEEKDAYS,
    ErrorStyle,
    Refused,
    calculate,
    docstring,
    find_id,
    find_name,
    iso_date,
    make_tool,
    one_of,
    whole_number,
)
from world_vocab import (  # noqa: E402
    BAD_ID,
    BAD_VALUE,
    DOMAINS,
    ERROR_SHAPES,
    GROUP_KEYS,
    ID_HINT,
    KNOWN,
    KNOWN_IDS,
    NOT_FOUND,
    PERSON_KEYS,
    SUGGEST,
    TERSE,
    invented_names,
    invented_word,
)

# The two splits, kept here and nowhere else.  Never tune on HELDOUT_SEEDS.  The held-out block
# was picked on structure alone, before any model ran on it: the first ten consecutive seeds whose
# worlds together have every tool shape, error style, answer kind and tool count (benchmarks/tests/test_worlds.py).
DEV_SEEDS: tuple[int, ...] = (1, 2, 3, 4, 5)
HELDOUT_SEEDS: tuple[int, ...] = tuple(range(301, 311))
# Worlds that differ from both in kind (world_kinds.py): other reply formats, failures, tool shapes,
# task shapes and answer kinds, which no dev seed ever makes.  Report only; never read while developing.
# Chosen before any model ran on them; the world's seed rotates its failure kind and its record format,
# so any ten consecutive seeds have them all (benchmarks/tests/test_worlds.py checks the rest of the coverage).
HELDOUT_KINDS_SEEDS: tuple[int, ...] = tuple(range(401, 411))
SPLITS = {
    "dev": DEV_SEEDS,
    "heldout": HELDOUT_SEEDS,
    "heldout-kinds": HELDOUT_KINDS_SEEDS,
    "heldout-all": HELDOUT_SEEDS + HELDOUT_KINDS_SEEDS,
}

TOOL_SHAPES = (
    "lookup_by_name",
    "lookup_by_id",
    "list_filter",
    "list_sort",
    "literal_parameter",
    "dates",
    "changes_world",
    "distractor",
    "calculator",
)
ERROR_STYLES = ("suggest", "known", "id_hint", "terse")
ANSWER_KINDS = ("number", "name", "time", "date", "yesno", "list")


@dataclass
class World:
    """One generated world: its data (the state its tools read and change), its tools and its tasks."""

    seed: int
    domain: str
    words: dict[str, str]  # thing, things, group, groups, person, place, cur
    keys: dict[str, str]  # attribute -> the key its tools use
    things: dict[str, dict]
    groups: dict[str, dict]
    people: dict[str, dict]
    errors: ErrorStyle
    id_example: str = ""
    tools: list[Callable[..., Any]] = field(default_factory=list)
    roles: dict[str, Callable[..., Any]] = field(default_factory=dict)  # role -> tool
    read_only: dict[str, bool] = field(default_factory=dict)  # tool name -> looks up only
    shapes: set[str] = field(default_factory=set)
    variants: dict[str, str] = field(default_factory=dict)  # role -> which variant of that tool
    changes: list[tuple] = field(default_factory=list)  # what changing tools did, in order
    tasks: list[WorldTask] = field(default_factory=list)

    @property
    def error_styles(self) -> set[str]:
        styles = {self.errors.name_style}
        if "group" in self.roles or self.variants.get("action") in ("transfer", "assign"):  # tools that take ids
            styles.add(self.errors.id_style)
        return styles

    def use(self, role: str, *args: Any) -> Any:
        """Call the tool that plays ``role`` (an oracle's way in)."""
        return self.roles[role](*args)

    def describe(self) -> str:
        """The world as text: its tools' signatures and docstrings, then its tasks."""
        lines = [
            f"world {self.seed}: {self.domain}, {len(self.tools)} tools, {len(self.tasks)} tasks, errors "
            f"{self.errors.name_style}/{self.errors.id_style} ({self.errors.shape})",
            "",
        ]
        for tool in self.tools:
            kind = "looks up only" if self.read_only[tool.__name__] else "CHANGES the world"
            lines.append(f"def {tool.__name__}{inspect.signature(tool)}:   # {kind}")
            lines += ["    " + line if line else "" for line in (tool.__doc__ or "").splitlines()]
            lines.append("")
        for task in self.tasks:
            effect = " (+ effect check)" if task.effect else ""
            lines.append(f"{task.id} [{task.kind}, {task.hops} hop(s), {task.answer}{effect}] {task.question}")
            lines.append(f"    expected: {task.expected!r}")
        return "\n".join(lines)


# -- making a world ------------------------------------------------------------------------
ID_FORMATS = (
    lambda prefix, n: f"{prefix}-{n:02d}",
    lambda prefix, n: f"{prefix.lower()}{n:03d}",
    lambda prefix, n: f"{prefix}/{n:04d}",
    lambda prefix, n: f"{prefix}{n}",
)


def make_world(seed: int) -> World | KindsWorld:
    """The world of ``seed``: the same every time, with a fresh state of its own.

    Seeds of ``KIND_SEEDS`` make the worlds of world_kinds.py, every other seed a world of this module."""
    if seed in KIND_SEEDS:
        return make_kinds_world(seed)
    return _make_world(seed)


def _make_world(seed: int) -> World:
    rng = random.Random(f"vero-world-{seed}")
    domain = rng.choice(sorted(DOMAINS))
    d = DOMAINS[domain]
    thing, things = rng.choice(d["thing"])
    group, groups = rng.choice(d["group"])
    words = {
        "thing": thing,
        "things": things,
        "group": group,
        "groups": groups,
        "person": rng.choice(d["person"]),
        "place": rng.choice(d["place"]),
        "cur": invented_word(rng, (1, 2)).lower() + "s",
    }
    keys = {
        "count": rng.choice(d["count"]["key"]),
        "price": rng.choice(d["price"]["key"]),
        "category": rng.choice(d["category"]["key"]),
        "date": rng.choice(d["date"]["key"]),
        "days": rng.choice(d["days"]["key"]),
        "group_ref": f"{group}_id",
        "person_ref": rng.choice([words["person"], f"{words['person']}_name"]),
        "place": words["place"].replace(" ", "_"),
        **{k: rng.choice(v) for k, v in {**GROUP_KEYS, **PERSON_KEYS}.items()},
    }
    errors = ErrorStyle(
        shape=rng.choice(ERROR_SHAPES),
        name_style=rng.choice(("suggest", "known", "terse")),
        id_style=rng.choice(("id_hint", "known", "terse")),
        phrases={
            "not_found": rng.choice(NOT_FOUND),
            "suggest": rng.choice(SUGGEST),
            "known": rng.choice(KNOWN),
            "terse": rng.choice(TERSE),
            "bad_id": rng.choice(BAD_ID),
            "id_hint": rng.choice(ID_HINT),
            "known_ids": rng.choice(KNOWN_IDS),
            "bad_value": rng.choice(BAD_VALUE),
        },
    )
    w = World(seed, domain, words, keys, {}, {}, {}, errors)
    _fill_data(w, rng, d)
    _add_tools(w, rng, d)
    w.tasks = make_tasks(w, rng, d)
    return w


def _fill_data(w: World, rng: random.Random, d: dict) -> None:
    taken: set[str] = set()
    n_groups = rng.randint(4, 6)
    places = invented_names(rng, n_groups, 1, taken)
    people = invented_names(rng, n_groups + 2, 2, taken)
    names = invented_names(rng, rng.randint(7, 9), rng.choice((1, 2)), taken)
    prefix = w.words["group"][0].upper() + rng.choice("BDKLMRSTVXZ")
    id_format = rng.choice(ID_FORMATS)
    numbers = rng.sample(range(1, 40), n_groups + 1)
    w.id_example = id_format(prefix, numbers[-1])  # an id in the right form that no group has
    for i, (n, place) in enumerate(zip(numbers, places)):
        w.groups[id_format(prefix, n)] = {
            "number": n,
            "place": place,
            "person": people[i],
            "capacity": rng.randrange(500, 20000, 50),
            "opens": f"{rng.randint(5, 10):02d}:{rng.choice((0, 15, 30, 45)):02d}",
        }
    for name in people:
        w.people[name] = {
            "years": rng.randint(1, 34),
            "wage": round(rng.uniform(12, 48), 2),
            "hours": rng.choice((30, 32, 35, 36, 37.5, 38, 40, 42, 44)),
        }
    values = rng.sample(d["category"]["values"], rng.choice((3, 4)))
    w.variants["category_values"] = ",".join(values)
    group_ids = list(w.groups)
    start = dt.date(2026, 1, 1)
    for i, name in enumerate(names):
        w.things[name] = {
            "group": group_ids[i % len(group_ids)] if i < len(group_ids) else rng.choice(group_ids),
            "count": rng.randint(120, 9800),
            "price": round(rng.uniform(0.5, 480), 2),
            "category": values[i % len(values)] if i < len(values) else rng.choice(values),
            "date": (start + dt.timedelta(days=rng.randint(0, 700))).isoformat(),
            "days": rng.randint(3, 75),
        }


def _category_values(w: World) -> list[str]:
    return w.variants["category_values"].split(",")


# -- the tools -------------------------------------------------------------------------------
# How likely a world is to have each tool beyond its lookup by name and its calculator.
OPTIONAL_ROLES = {"group": 0.55, "person": 0.45, "list": 0.45, "date": 0.45, "action": 0.5, "distractor": 0.35}


def _optional_roles(rng: random.Random) -> list[str]:
    """One to four of ``OPTIONAL_ROLES``, each drawn with its own chance (so 3 to 6 tools in all)."""
    chosen = [role for role, chance in OPTIONAL_ROLES.items() if rng.random() < chance]
    while len(chosen) > 4:
        chosen.remove(rng.choice(chosen))
    return chosen or [rng.choice(list(OPTIONAL_ROLES))]


def _add_tools(w: World, rng: random.Random, d: dict) -> None:
    chosen = _optional_roles(rng)
    doc_style = rng.choice(("prose", "section", "short"))
    roles = ["thing", *chosen, "calc"]
    order = roles[1:]
    rng.shuffle(order)
    for role in ["thing", *order]:
        tool, read_only = BUILDERS[role](w, rng, d, doc_style)
        w.roles[role] = tool
        w.tools.append(tool)
        w.read_only[tool.__name__] = read_only
    w.shapes.update({"lookup_by_name", "calculator"})
    if "group" in w.roles:
        w.shapes.add("lookup_by_id")
    if "list" in w.roles:
        w.shapes.update({f"list_{w.variants['list']}", "literal_parameter"})
    if "date" in w.roles:
        w.shapes.add("dates")
    if "action" in w.roles:
        w.shapes.add("changes_world")
    if "distractor" in w.roles:
        w.shapes.add("distractor")
        if w.variants["distractor"] == "rate":
            w.shapes.add("literal_parameter")


def _reply_thing(w: World, name: str) -> dict:
    t, k = w.things[name], w.keys
    return {
        "name": name,
        k["group_ref"]: t["group"],
        k["count"]: t["count"],
        k["price"]: t["price"],
        k["category"]: t["category"],
        k["date"]: t["date"],
        k["days"]: t["days"],
    }


def _thing_tool(w: World, rng: random.Random, d: dict, doc_style: str):
    thing, k = w.words["thing"], w.keys
    name = rng.choice((f"find_{thing}", f"{thing}_info", f"lookup_{thing}", f"get_{thing}"))
    param = rng.choice(("name", f"{thing}_name", thing))
    summary = rng.choice(
        (f"Look up a {thing} by its name.", f"Find one {thing} and its details, by name.", f"Get a {thing}'s record.")
    )
    returns = (
        f"Returns the {thing}'s {w.words['group']} id ({k['group_ref']}), {d['count']['what']} "
        f"({k['count']}), {d['price']['what'].format(cur=w.words['cur'])} ({k['price']}), its "
        f"{k['category'].replace('_', ' ')}, the {d['date']['what']} ({k['date']}, an ISO date) and the "
        f"{d['days']['what']} ({k['days']})."
    )

    def body(query):
        return _reply_thing(w, find_name(w.things, query, w.errors, thing, w.words["things"]))

    doc = docstring(summary, [(param, f"the {thing}'s name.")], returns, doc_style)
    return make_tool(name, [(param, str)], dict, doc, body, w.errors), True


def _group_tool(w: World, rng: random.Random, d: dict, doc_style: str):
    group, k = w.words["group"], w.keys
    name = rng.choice((f"{group}_info", f"get_{group}", f"{group}_by_id", f"lookup_{group}"))
    param = rng.choice(("id", f"{group}_id"))
    summary = rng.choice((f"Look up a {group} by its id.", f"Details of one {group}, given its id."))
    returns = (
        f"Returns the {w.words['place']} it is in ({k['place']}), the name of its {w.words['person']} "
        f"({k['person_ref']}), its capacity ({k['capacity']}) and its opening time ({k['opens']}, HH:MM)."
    )

    def body(query):
        key = find_id(w.groups, query, w.errors, w.id_example, group, w.words["groups"])
        g = w.groups[key]
        return {
            k["group_ref"]: key,
            k["place"]: g["place"],
            k["person_ref"]: g["person"],
            k["capacity"]: g["capacity"],
            k["opens"]: g["opens"],
        }

    doc = docstring(summary, [(param, f"the {group}'s id, e.g. {w.id_example}.")], returns, doc_style)
    return make_tool(name, [(param, str)], dict, doc, body, w.errors), True


def _person_tool(w: World, rng: random.Random, d: dict, doc_style: str):
    person, k = w.words["person"], w.keys
    name = rng.choice((f"{person}_profile", f"find_{person}", f"get_{person}"))
    param = rng.choice(("name", "full_name", f"{person}_name"))
    summary = rng.choice((f"Look up a {person} by their full name.", f"The record of one {person}."))
    returns = (
        f"Returns their years of service ({k['years']}), hourly wage in {w.words['cur']} ({k['wage']}) "
        f"and working hours per week ({k['hours']})."
    )

    def body(query):
        key = find_name(w.people, query, w.errors, person, f"{person}s")
        p = w.people[key]
        return {"name": key, k["years"]: p["years"], k["wage"]: p["wage"], k["hours"]: p["hours"]}

    doc = docstring(summary, [(param, f"the {person}'s full name.")], returns, doc_style)
    return make_tool(name, [(param, str)], dict, doc, body, w.errors), True


def _list_tool(w: World, rng: random.Random, d: dict, doc_style: str):
    things, k = w.words["things"], w.keys
    w.variants["list"] = rng.choice(("filter", "sort"))
    if w.variants["list"] == "filter":
        values = _category_values(w)
        name = rng.choice((f"list_{things}", f"{things}_by_{k['category']}", f"filter_{things}"))
        param, kind = k["category"], Literal[tuple(values)]  # type: ignore[valid-type]
        summary = f"List the {things} of one {k['category'].replace('_', ' ')}."
        returns = f"Returns each matching {w.words['thing']}'s name, {k['count']} and {k['price']}."
        arg_text = f"the {k['category'].replace('_', ' ')}: one of {', '.join(values)}."

        def body(value):
            chosen = one_of(value, values, w.errors, f"a {k['category']}")
            return [
                {"name": n, k["count"]: t["count"], k["price"]: t["price"]}
                for n, t in w.things.items()
                if t["category"] == chosen
            ]
    else:
        name = rng.choice((f"rank_{things}", f"sort_{things}", f"top_{things}"))
        param, kind = "by", Literal[(k["count"], k["price"])]  # type: ignore[valid-type]
        summary = f"All {things}, ordered from the highest to the lowest value of one attribute."
        returns = "Returns a list of {name, value}, highest first."
        arg_text = f"what to order by: {k['count']} or {k['price']}."

        def body(value):
            by = one_of(value, [k["count"], k["price"]], w.errors, "an attribute")
            field_ = "count" if by == k["count"] else "price"
            ranked = sorted(w.things.items(), key=lambda item: -item[1][field_])
            return [{"name": n, "value": t[field_]} for n, t in ranked]

    doc = docstring(summary, [(param, arg_text)], returns, doc_style)
    return make_tool(name, [(param, kind)], list, doc, body, w.errors), True


def _date_tool(w: World, rng: random.Random, d: dict, doc_style: str):
    w.variants["date"] = rng.choice(("shift", "weekday"))
    if w.variants["date"] == "shift":
        name = rng.choice(("add_days", "date_after", "shift_date"))
        params = [(rng.choice(("date", "start")), str), (rng.choice(("days", "n_days")), int)]
        summary = "The date a number of days after a given date, and its weekday."
        args = [(params[0][0], "an ISO date, YYYY-MM-DD."), (params[1][0], "how many days later (0 for the same day).")]

        def body(date, days):
            start = iso_date(date, w.errors, "an ISO date (YYYY-MM-DD)")
            later = start + dt.timedelta(days=whole_number(days, w.errors, "a whole number of days"))
            return {"date": later.isoformat(), "weekday": WEEKDAYS[later.weekday()]}
    else:
        name = rng.choice(("weekday_of", "day_of_week", "weekday"))
        params = [(rng.choice(("date", "day")), str)]
        summary = "Which day of the week a date falls on."
        args = [(params[0][0], "an ISO date, YYYY-MM-DD.")]

        def body(date):  # type: ignore[misc]
            day = iso_date(date, w.errors, "an ISO date (YYYY-MM-DD)")
            return {"date": day.isoformat(), "weekday": WEEKDAYS[day.weekday()]}

    doc = docstring(summary, args, "Returns the date and its weekday.", doc_style)
    return make_tool(name, params, dict, doc, body, w.errors), True


def _action_tool(w: World, rng: random.Random, d: dict, doc_style: str):
    thing, group, person, k = w.words["thing"], w.words["group"], w.words["person"], w.keys
    w.variants["action"] = rng.choice(("reserve", "transfer", "assign") if d["reserve"] else ("transfer", "assign"))
    things = w.words["things"]
    if w.variants["action"] == "reserve":
        name = rng.choice((f"reserve_{thing}", f"hold_{thing}", "reserve"))
        params = [(rng.choice(("name", f"{thing}_name")), str), (rng.choice(("quantity", "units")), int)]
        summary = f"Reserve units of a {thing}: they leave the stock at once. This changes the records."
        args = [(params[0][0], f"the {thing}'s name."), (params[1][0], "how many units to reserve.")]

        def body(name_, quantity):
            key = find_name(w.things, name_, w.errors, thing, things)
            n = whole_number(quantity, w.errors, "a number of units")
            if not 1 <= n <= w.things[key]["count"]:
                raise Refused(f"can reserve 1 to {w.things[key]['count']} units of {key}, not {n}.")
            w.things[key]["count"] -= n
            w.changes.append(("reserve", key, n))
            return {"name": key, "reserved": n, k["count"]: w.things[key]["count"]}
    elif w.variants["action"] == "transfer":
        name = rng.choice((f"move_{thing}", f"transfer_{thing}", f"relocate_{thing}"))
        params = [(rng.choice(("name", f"{thing}_name")), str), (k["group_ref"], str)]
        summary = f"Move a {thing} to another {group}. This changes the records."
        args = [(params[0][0], f"the {thing}'s name."), (params[1][0], f"the id of the {group} to move it to.")]

        def body(name_, group_id):
            key = find_name(w.things, name_, w.errors, thing, things)
            target = find_id(w.groups, group_id, w.errors, w.id_example, group, w.words["groups"])
            before = w.things[key]["group"]
            w.things[key]["group"] = target
            w.changes.append(("transfer", key, target))
            return {"name": key, "from": before, "to": target, k["place"]: w.groups[target]["place"]}
    else:
        name = rng.choice((f"assign_{person}", f"appoint_{person}"))
        params = [(k["person_ref"], str), (k["group_ref"], str)]
        summary = f"Make someone the {person} of a {group}, in place of the current one. This changes the records."
        args = [(params[0][0], f"the full name of the new {person}."), (params[1][0], f"the {group}'s id.")]

        def body(who, group_id):
            new = find_name(w.people, who, w.errors, person, f"{person}s")
            target = find_id(w.groups, group_id, w.errors, w.id_example, group, w.words["groups"])
            before = w.groups[target]["person"]
            w.groups[target]["person"] = new
            w.changes.append(("assign", new, target))
            return {k["group_ref"]: target, "previous": before, "now": new}

    doc = docstring(summary, args, "Returns what changed.", doc_style)
    return make_tool(name, params, dict, doc, body, w.errors), False


def _distractor_tool(w: World, rng: random.Random, d: dict, doc_style: str):
    variant = rng.choice(("weather", "rate", "contact"))
    w.variants["distractor"] = variant
    forecast = {
        p: rng.choice(("rain", "fog", "clear", "wind", "snow")) for p in sorted(g["place"] for g in w.groups.values())
    }
    if variant == "weather":
        name, params = f"{w.keys['place']}_weather", [(w.keys["place"], str)]
        doc = docstring(
            f"Tomorrow's weather in a {w.words['place']}.",
            [(params[0][0], f"the {w.words['place']}'s name.")],
            "Returns the forecast.",
            doc_style,
        )

        def body(query):
            place = find_name(forecast, query, w.errors, w.words["place"], f"{w.words['place']}s")
            return {w.keys["place"]: place, "forecast": forecast[place]}
    elif variant == "rate":
        others = [invented_word(rng, (1, 2)).lower() + "s" for _ in range(3)]
        rates = {c: round(rng.uniform(0.2, 5), 4) for c in others}
        name, params = "exchange_rate", [("currency", Literal[tuple(others)])]  # type: ignore[valid-type]
        doc = docstring(
            f"How many {w.words['cur']} one unit of another currency buys.",
            [("currency", f"the other currency: one of {', '.join(others)}.")],
            None,
            doc_style,
        )

        def body(query):
            return {
                "currency": one_of(query, others, w.errors, "a currency"),
                w.words["cur"]: rates[one_of(query, others, w.errors, "a currency")],
            }
    else:
        name, params = f"{w.words['person']}_contact", [("name", str)]
        doc = docstring(
            f"How to reach a {w.words['person']}.",
            [("name", "their full name.")],
            "Returns a message address.",
            doc_style,
        )

        def body(query):
            key = find_name(w.people, query, w.errors, w.words["person"], f"{w.words['person']}s")
            return {"name": key, "address": key.lower().replace(" ", ".") + "@post.invalid"}

    return make_tool(name, params, dict, doc, body, w.errors), True


def _calc_tool(w: World, rng: random.Random, d: dict, doc_style: str):
    name = rng.choice(("calculate", "calculator", "compute", "evaluate"))
    param = rng.choice(("expression", "expr", "formula"))
    doc = docstring(
        rng.choice(
            (
                "Evaluate an arithmetic expression with + - * / and parentheses.",
                "Work out arithmetic exactly: numbers, + - * / and parentheses.",
            )
        ),
        [(param, "the expression, e.g. (12.5 + 3) * 4.")],
        "Returns the result as text.",
        doc_style,
    )
    return make_tool(name, [(param, str)], str, doc, lambda expression: calculate(expression, w.errors), w.errors), True


BUILDERS: dict[str, Callable[..., tuple[Callable[..., Any], bool]]] = {
    "thing": _thing_tool,
    "group": _group_tool,
    "person": _person_tool,
    "list": _list_tool,
    "date": _date_tool,
    "action": _action_tool,
    "distractor": _distractor_tool,
    "calc": _calc_tool,
}


def world_tasks(seeds: tuple[int, ...] | list[int], tasks_per_world: int | None = None) -> list[WorldTask]:
    """The tasks of these worlds, the first ``tasks_per_world`` of each (their order is already mixed)."""
    return [task for seed in seeds for task in make_world(seed).tasks[:tasks_per_world]]


def seed_of(task_id: str) -> int:
    """The world seed in a task id such as ``w104-t07``."""
    return int(task_id[1:].rsplit("-t", 1)[0])


def main(argv: list[str]) -> int:
    for seed in argv or [str(s) for s in DEV_SEEDS]:
        print(make_world(int(seed)).describe(), end="\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
