"""The tasks of a generated world, with answers computed from its data.

Each family of tasks checks one skill (lookups, chains of dependent calls,
arithmetic, comparisons, lists, dates, changing the world, recovering from an
error) and offers candidates for the tools the world has; a world takes
``TASKS_PER_WORLD`` of them, mixed across families by its seed.  Every task
carries an oracle: the tool calls a careful agent makes, in order, reading each
result for the next call, so a test can prove that the task is solvable.
Standard library only: the peers' worker imports this in its own environment.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from world_answers import is_correct, names_in
from world_tools import close_names

if TYPE_CHECKING:
    from worlds import World

TASKS_PER_WORLD = 16


@dataclass(frozen=True)
class WorldTask:
    """One question about a generated world, with its answer computed from the data."""

    id: str
    question: str
    expected: Any  # number | name | "HH:MM" | ISO date | "yes"/"no" | tuple of names
    hops: int  # dependent tool calls a careful agent needs
    kind: str  # the skill it checks: lookup | chain | arithmetic | compare | list | date | action | recovery
    answer: str  # number | name | time | date | yesno | list
    exclude: tuple[str, ...] = ()  # names a correct answer leaves out (for a name: the others of its kind)
    # True when the world's state shows the change the task asks for (only tasks that change the world)
    effect: Callable[[World], bool] | None = field(default=None, compare=False, repr=False)
    # The calls a careful agent makes: given ``use(role, *args)``, returns the answer as text
    oracle: Callable[[Callable[..., Any]], str] | None = field(default=None, compare=False, repr=False)

    def is_correct(self, answer: str | None) -> bool:
        return is_correct(answer, self.expected, self.exclude)


def _task(
    question: str,
    expected: Any,
    hops: int,
    kind: str,
    answer: str,
    oracle: Callable[..., str],
    effect: Callable[[World], bool] | None = None,
    exclude: tuple[str, ...] = (),
) -> WorldTask:
    if isinstance(expected, float):
        expected = round(expected, 6)  # 1025.64, not 1025.6399999999999
    return WorldTask("", question, expected, hops, kind, answer, exclude, effect, oracle)


def _number(value: Any) -> str:
    return str(value)


# -- the families ----------------------------------------------------------------------------
def _lookups(w: World, rng: random.Random, d: dict) -> list[list[WorldTask]]:
    t, k, cur = w.words, w.keys, w.words["cur"]
    count, price, cat, date = [], [], [], []
    for x, data in w.things.items():
        count.append(
            _task(
                d["count"]["ask"].format(x=x, thing=t["thing"]),
                data["count"],
                1,
                "lookup",
                "number",
                lambda use, x=x: _number(use("thing", x)[k["count"]]),
            )
        )
        price.append(
            _task(
                d["price"]["ask"].format(x=x, thing=t["thing"], cur=cur),
                data["price"],
                1,
                "lookup",
                "number",
                lambda use, x=x: _number(use("thing", x)[k["price"]]),
            )
        )
        cat.append(
            _task(
                f"What is the {k['category'].replace('_', ' ')} of the {t['thing']} {x}?",
                data["category"],
                1,
                "lookup",
                "name",
                lambda use, x=x: use("thing", x)[k["category"]],
            )
        )
        date.append(
            _task(
                d["date"]["ask"].format(x=x, thing=t["thing"]),
                data["date"],
                1,
                "lookup",
                "date",
                lambda use, x=x: use("thing", x)[k["date"]],
            )
        )
    return [count, price, cat, date]


def _arithmetic(w: World, rng: random.Random, d: dict) -> list[list[WorldTask]]:
    t, k, cur, roles = w.words, w.keys, w.words["cur"], w.roles
    a, b = rng.randint(10000, 99999), rng.randint(1000, 9999)
    share, total = rng.choice((2.5, 3.75, 7.35, 12.5, 17.8)), rng.randint(10000, 99999)
    pure = [
        _task(
            f"What is {a} multiplied by {b}?", a * b, 1, "arithmetic", "number", lambda use: use("calc", f"{a} * {b}")
        ),
        _task(
            f"What is {share} percent of {total}?",
            share * total / 100,
            1,
            "arithmetic",
            "number",
            lambda use: use("calc", f"{share} * {total} / 100"),
        ),
    ]
    names = list(w.things)
    product, buy, sums = [], [], []
    for x, data in w.things.items():
        product.append(
            _task(
                d["product"].format(x=x, thing=t["thing"], cur=cur),
                data["count"] * data["price"],
                2,
                "arithmetic",
                "number",
                lambda use, x=x: _product(use, x, k),
            )
        )
        n = rng.randint(13, 97)
        buy.append(
            _task(
                d["buy"].format(n=n, x=x, thing=t["thing"], cur=cur),
                n * data["price"],
                2,
                "arithmetic",
                "number",
                lambda use, x=x, n=n: use("calc", f"{n} * {use('thing', x)[k['price']]}"),
            )
        )
    what = d["count"]["what"]
    for _ in range(4):
        x, y, z = rng.sample(names, 3)
        sums.append(
            _task(
                f"Add up the {what} for the {t['things']} {x} and {y}. What is the total?",
                w.things[x]["count"] + w.things[y]["count"],
                3,
                "arithmetic",
                "number",
                lambda use, x=x, y=y: _sum(use, [x, y], k),
            )
        )
        sums.append(
            _task(
                f"Add up the {what} for the {t['things']} {x}, {y} and {z}. What is the total?",
                w.things[x]["count"] + w.things[y]["count"] + w.things[z]["count"],
                4,
                "arithmetic",
                "number",
                lambda use, x=x, y=y, z=z: _sum(use, [x, y, z], k),
            )
        )
    price_what = d["price"]["what"].format(cur=cur)
    for _ in range(4):
        x, y = rng.sample(names, 2)
        if w.things[x]["count"] < w.things[y]["count"]:
            x, y = y, x
        n, m = rng.randint(3, 40), rng.randint(3, 40)
        sums.append(
            _task(
                f"How much larger is the {what} for the {t['thing']} {x} than for the {t['thing']} {y}?",
                w.things[x]["count"] - w.things[y]["count"],
                3,
                "arithmetic",
                "number",
                lambda use, x=x, y=y: use("calc", f"{use('thing', x)[k['count']]} - {use('thing', y)[k['count']]}"),
            )
        )
        sums.append(
            _task(
                f"What is {n} times the {price_what} of the {t['thing']} {x}, plus {m} times the "
                f"{price_what} of the {t['thing']} {y}?",
                n * w.things[x]["price"] + m * w.things[y]["price"],
                3,
                "arithmetic",
                "number",
                lambda use, x=x, y=y, n=n, m=m: use(
                    "calc", f"{n} * {use('thing', x)[k['price']]} + {m} * {use('thing', y)[k['price']]}"
                ),
            )
        )
    families = [pure, product, buy, sums]
    if "person" in roles:
        pay = []
        for who, p in w.people.items():
            pay.append(
                _task(
                    f"What does {who} earn in a week (hourly wage times weekly hours), in {cur}?",
                    p["wage"] * p["hours"],
                    2,
                    "arithmetic",
                    "number",
                    lambda use, who=who: _pay(use, who, k),
                )
            )
            if "group" in roles:
                for gid, g in w.groups.items():
                    if g["person"] == who:
                        pay.append(
                            _task(
                                f"What does the {t['person']} of {t['group']} {gid} earn in a week (hourly "
                                f"wage times weekly hours), in {cur}?",
                                p["wage"] * p["hours"],
                                3,
                                "arithmetic",
                                "number",
                                lambda use, gid=gid: _pay(use, use("group", gid)[k["person_ref"]], k),
                            )
                        )
        if "group" in roles:
            for x, data in w.things.items():
                p = w.people[w.groups[data["group"]]["person"]]
                pay.append(
                    _task(
                        f"What does the {t['person']} responsible for the {t['thing']} {x} earn in a week "
                        f"(hourly wage times weekly hours), in {cur}?",
                        p["wage"] * p["hours"],
                        4,
                        "arithmetic",
                        "number",
                        lambda use, x=x: _pay(use, _person_of(use, x, k), k),
                    )
                )
        families.append(pay)
    return families


def _product(use, x: str, k: dict) -> str:
    found = use("thing", x)
    return use("calc", f"{found[k['count']]} * {found[k['price']]}")


def _sum(use, names: list[str], k: dict) -> str:
    return use("calc", " + ".join(str(use("thing", x)[k["count"]]) for x in names))


def _pay(use, who: str, k: dict) -> str:
    found = use("person", who)
    return use("calc", f"{found[k['wage']]} * {found[k['hours']]}")


def _person_of(use, x: str, k: dict) -> str:
    return use("group", use("thing", x)[k["group_ref"]])[k["person_ref"]]


def _compare(w: World, rng: random.Random, d: dict) -> list[list[WorldTask]]:
    t, k = w.words, w.keys
    tasks = []
    names = list(w.things)
    for attr, what in (("price", d["price"]["what"].format(cur=t["cur"])), ("count", d["count"]["what"])):
        for _ in range(3):
            x, y = rng.sample(names, 2)
            expected = "yes" if w.things[x][attr] > w.things[y][attr] else "no"
            tasks.append(
                _task(
                    f"Is the {what} for the {t['thing']} {x} higher than for the {t['thing']} {y}? Answer yes or no.",
                    expected,
                    2,
                    "compare",
                    "yesno",
                    lambda use, x=x, y=y, key=k[attr]: "yes" if use("thing", x)[key] > use("thing", y)[key] else "no",
                )
            )
    return [tasks]


def _groups(w: World, rng: random.Random, d: dict) -> list[list[WorldTask]]:
    if "group" not in w.roles:
        return []
    t, k = w.words, w.keys
    direct, chained = [], []
    for gid, g in w.groups.items():
        direct += [
            _task(
                f"In which {t['place']} is {t['group']} {gid}?",
                g["place"],
                1,
                "lookup",
                "name",
                lambda use, gid=gid: use("group", gid)[k["place"]],
            ),
            _task(
                f"Who is the {t['person']} of {t['group']} {gid}?",
                g["person"],
                1,
                "lookup",
                "name",
                lambda use, gid=gid: use("group", gid)[k["person_ref"]],
            ),
            _task(
                f"At what time does {t['group']} {gid} open?",
                g["opens"],
                1,
                "lookup",
                "time",
                lambda use, gid=gid: use("group", gid)[k["opens"]],
            ),
        ]
    for x, data in w.things.items():
        g = w.groups[data["group"]]
        chained += [
            _task(
                f"In which {t['place']} is the {t['group']} of the {t['thing']} {x}?",
                g["place"],
                2,
                "chain",
                "name",
                lambda use, x=x: use("group", use("thing", x)[k["group_ref"]])[k["place"]],
            ),
            _task(
                f"Who is the {t['person']} responsible for the {t['thing']} {x}?",
                g["person"],
                2,
                "chain",
                "name",
                lambda use, x=x: _person_of(use, x, k),
            ),
            _task(
                f"At what time does the {t['group']} of the {t['thing']} {x} open?",
                g["opens"],
                2,
                "chain",
                "time",
                lambda use, x=x: use("group", use("thing", x)[k["group_ref"]])[k["opens"]],
            ),
        ]
    return [direct, chained]


def _people(w: World, rng: random.Random, d: dict) -> list[list[WorldTask]]:
    if "person" not in w.roles:
        return []
    t, k, cur = w.words, w.keys, w.words["cur"]
    direct, chained = [], []
    for who, p in w.people.items():
        direct += [
            _task(
                f"How many years of service does {who} have?",
                p["years"],
                1,
                "lookup",
                "number",
                lambda use, who=who: _number(use("person", who)[k["years"]]),
            ),
            _task(
                f"What is the hourly wage of {who}, in {cur}?",
                p["wage"],
                1,
                "lookup",
                "number",
                lambda use, who=who: _number(use("person", who)[k["wage"]]),
            ),
        ]
    if "group" in w.roles:
        for gid, g in w.groups.items():
            chained.append(
                _task(
                    f"How many years of service does the {t['person']} of {t['group']} {gid} have?",
                    w.people[g["person"]]["years"],
                    2,
                    "chain",
                    "number",
                    lambda use, gid=gid: _number(use("person", use("group", gid)[k["person_ref"]])[k["years"]]),
                )
            )
        for x, data in w.things.items():
            p = w.people[w.groups[data["group"]]["person"]]
            chained.append(
                _task(
                    f"What is the hourly wage of the {t['person']} responsible for the {t['thing']} {x}, in {cur}?",
                    p["wage"],
                    3,
                    "chain",
                    "number",
                    lambda use, x=x: _number(use("person", _person_of(use, x, k))[k["wage"]]),
                )
            )
    return [direct, chained]


def _lists(w: World, rng: random.Random, d: dict) -> list[list[WorldTask]]:
    if "list" not in w.roles:
        return []
    t, k = w.words, w.keys
    tasks = []
    price_what = d["price"]["what"].format(cur=t["cur"])
    if w.variants["list"] == "filter":
        label = k["category"].replace("_", " ")
        for value in w.variants["category_values"].split(","):
            members = tuple(n for n, data in w.things.items() if data["category"] == value)
            others = tuple(n for n in w.things if n not in members)
            top = max(members, key=lambda n: w.things[n]["price"])
            tasks += [
                _task(
                    f"Which {t['things']} have the {label} {value}? Name all of them.",
                    members,
                    1,
                    "list",
                    "list",
                    lambda use, value=value: ", ".join(item["name"] for item in use("list", value)),
                    exclude=others,
                ),
                _task(
                    f"How many {t['things']} have the {label} {value}?",
                    len(members),
                    1,
                    "list",
                    "number",
                    lambda use, value=value: str(len(use("list", value))),
                ),
                _task(
                    f"Of the {t['things']} with the {label} {value}, which has the highest {price_what}?",
                    top,
                    1,
                    "list",
                    "name",
                    lambda use, value=value: _priciest(use("list", value), k),
                ),
            ]
            tasks.append(
                _task(
                    f"What is the {d['date']['what']} of the {t['thing']} with the {label} {value} that has "
                    f"the highest {price_what}?",
                    w.things[top]["date"],
                    2,
                    "list",
                    "date",
                    lambda use, value=value: use("thing", _priciest(use("list", value), k))[k["date"]],
                )
            )
    else:
        by_count = sorted(w.things, key=lambda n: -w.things[n]["count"])
        top = by_count[0]
        tasks += [
            _task(
                f"What is the {price_what} of the {t['thing']} with the highest {d['count']['what']}?",
                w.things[top]["price"],
                2,
                "list",
                "number",
                lambda use: _number(use("thing", use("list", k["count"])[0]["name"])[k["price"]]),
            ),
            _task(
                d["product"].format(x=f"with the highest {d['count']['what']}", thing=t["thing"], cur=t["cur"]),
                w.things[top]["count"] * w.things[top]["price"],
                3,
                "list",
                "number",
                lambda use: _product(use, use("list", k["count"])[0]["name"], k),
            ),
        ]
        by_price = sorted(w.things, key=lambda n: -w.things[n]["price"])
        tasks += [
            _task(
                f"Which {t['thing']} has the highest {d['count']['what']}?",
                by_count[0],
                1,
                "list",
                "name",
                lambda use: use("list", k["count"])[0]["name"],
            ),
            _task(
                f"Which {t['thing']} has the lowest {price_what}?",
                by_price[-1],
                1,
                "list",
                "name",
                lambda use: use("list", k["price"])[-1]["name"],
            ),
            _task(
                f"Name the three {t['things']} with the highest {price_what}.",
                tuple(by_price[:3]),
                1,
                "list",
                "list",
                lambda use: ", ".join(i["name"] for i in use("list", k["price"])[:3]),
                exclude=tuple(by_price[3:]),
            ),
            _task(
                f"Name the two {t['things']} with the lowest {d['count']['what']}.",
                tuple(by_count[-2:]),
                1,
                "list",
                "list",
                lambda use: ", ".join(i["name"] for i in use("list", k["count"])[-2:]),
                exclude=tuple(by_count[:-2]),
            ),
        ]
    return [tasks]


def _priciest(listed: list[dict], k: dict) -> str:
    return max(listed, key=lambda item: item[k["price"]])["name"]


def _dates(w: World, rng: random.Random, d: dict) -> list[list[WorldTask]]:
    if "date" not in w.roles:
        return []
    import datetime as dt

    from world_tools import WEEKDAYS

    t, k = w.words, w.keys
    weekday, ends = [], []
    shift = w.variants["date"] == "shift"
    for x, data in w.things.items():
        day = dt.date.fromisoformat(data["date"])
        weekday.append(
            _task(
                f"On which weekday is the {d['date']['what']} of the {t['thing']} {x}?",
                WEEKDAYS[day.weekday()],
                2,
                "date",
                "name",
                lambda use, x=x: use("date", *_date_args(use("thing", x)[k["date"]], 0, shift))["weekday"],
            )
        )
        if shift:
            end = day + dt.timedelta(days=data["days"])
            ends.append(
                _task(
                    d["days"]["ask"].format(x=x, thing=t["thing"]),
                    end.isoformat(),
                    2,
                    "date",
                    "date",
                    lambda use, x=x: _end(use, x, k)["date"],
                )
            )
            weekday_ask = d["days"]["ask"].replace("On which date", "On which weekday")
            ends.append(
                _task(
                    weekday_ask.format(x=x, thing=t["thing"]),
                    WEEKDAYS[end.weekday()],
                    2,
                    "date",
                    "name",
                    lambda use, x=x: _end(use, x, k)["weekday"],
                )
            )
    return [weekday, ends]


def _date_args(date: str, days: int, shift: bool) -> tuple:
    return (date, days) if shift else (date,)


def _end(use, x: str, k: dict) -> dict:
    found = use("thing", x)
    return use("date", found[k["date"]], found[k["days"]])


def _actions(w: World, rng: random.Random, d: dict) -> list[list[WorldTask]]:
    if "action" not in w.roles:
        return []
    t, k = w.words, w.keys
    tasks = []
    variant = w.variants["action"]
    if variant == "reserve":
        for x, data in w.things.items():
            n = rng.randint(5, 60)
            tasks.append(
                _task(
                    d["reserve"].format(n=n, x=x, thing=t["thing"]),
                    data["count"] - n,
                    1,
                    "action",
                    "number",
                    lambda use, x=x, n=n: _number(use("action", x, n)[k["count"]]),
                    effect=_only(w, "things", x, "count", data["count"] - n),
                )
            )
    elif variant == "transfer":
        for x, data in w.things.items():
            gid = rng.choice([g for g in w.groups if g != data["group"]])
            tasks.append(
                _task(
                    f"Move the {t['thing']} {x} to {t['group']} {gid}. In which {t['place']} is it now?",
                    w.groups[gid]["place"],
                    1,
                    "action",
                    "name",
                    lambda use, x=x, gid=gid: use("action", x, gid)[k["place"]],
                    effect=_only(w, "things", x, "group", gid),
                )
            )
            y = rng.choice([n for n, other in w.things.items() if other["group"] != data["group"]])
            target = w.things[y]["group"]
            tasks.append(
                _task(
                    f"Move the {t['thing']} {x} to the {t['group']} where the {t['thing']} {y} is. "
                    f"What is the id of that {t['group']}?",
                    target,
                    2,
                    "action",
                    "name",
                    lambda use, x=x, y=y: use("action", x, use("thing", y)[k["group_ref"]])["to"],
                    effect=_only(w, "things", x, "group", target),
                )
            )
    else:
        free = [p for p in w.people if all(g["person"] != p for g in w.groups.values())]
        for who in free:
            for gid, g in w.groups.items():
                tasks.append(
                    _task(
                        f"Make {who} the {t['person']} of {t['group']} {gid}. Who was the {t['person']} there before?",
                        g["person"],
                        1,
                        "action",
                        "name",
                        lambda use, who=who, gid=gid: use("action", who, gid)["previous"],
                        effect=_only(w, "groups", gid, "person", who),
                    )
                )
    return [tasks]


def _only(w: World, table: str, key: str, field_: str, value: Any) -> Callable[[World], bool]:
    """The effect check of a change: ``table[key][field_]`` is ``value`` and nothing else in the world differs
    from its state before the run (so a wrong change made on the way, or made twice, fails the task)."""
    wanted = copy.deepcopy({"things": w.things, "groups": w.groups, "people": w.people})
    wanted[table][key][field_] = value

    def check(world: World) -> bool:
        return {"things": world.things, "groups": world.groups, "people": world.people} == wanted

    return check


def misspell(name: str, rng: random.Random, names: list[str]) -> str | None:
    """A slightly wrong spelling of ``name`` that no name has; ``None`` when none is found."""
    for _ in range(20):
        i = rng.randrange(1, len(name) - 1)
        if not name[i].isalpha() or not name[i - 1].isalpha():
            continue
        wrong = rng.choice(
            (
                name[:i] + name[i + 1 :],
                name[:i] + name[i] + name[i:],
                name[: i - 1] + name[i] + name[i - 1] + name[i + 1 :],
                name + "s",
            )
        )
        if all(" ".join(wrong.split()).casefold() != n.casefold() for n in names):
            return wrong
    return None


def _recovery(w: World, rng: random.Random, d: dict) -> list[list[WorldTask]]:
    t, k, style = w.words, w.keys, w.errors
    tasks = []
    if style.name_style != "terse":
        names = list(w.things)
        for x, data in w.things.items():
            wrong = misspell(x, rng, names)
            if wrong is None or (style.name_style == "suggest" and x not in close_names(wrong, names)):
                continue
            tasks.append(
                _task(
                    d["count"]["ask"].format(x=wrong, thing=t["thing"]),
                    data["count"],
                    2,
                    "recovery",
                    "number",
                    lambda use, wrong=wrong, x=x: _after_error(use, "thing", wrong, x, k["count"]),
                )
            )
        if "person" in w.roles:
            people = list(w.people)
            for who, p in w.people.items():
                wrong = misspell(who, rng, people)
                if wrong is None or (style.name_style == "suggest" and who not in close_names(wrong, people)):
                    continue
                tasks.append(
                    _task(
                        f"How many years of service does {wrong} have?",
                        p["years"],
                        2,
                        "recovery",
                        "number",
                        lambda use, wrong=wrong, who=who: _after_error(use, "person", wrong, who, k["years"]),
                    )
                )
    if "group" in w.roles and style.id_style != "terse":
        for gid, g in w.groups.items():
            tasks.append(
                _task(
                    f"Who is the {t['person']} of {t['group']} number {g['number']}?",
                    g["person"],
                    2,
                    "recovery",
                    "name",
                    lambda use, n=g["number"], gid=gid: _after_error(use, "group", str(n), gid, k["person_ref"]),
                )
            )
    return [tasks]


def _after_error(use, role: str, wrong: str, right: str, key: str) -> str:
    """The first call, as the question spells it, fails; the second, as the error showed, answers."""
    first = use(role, wrong)
    if key in first:
        raise AssertionError(f"{wrong!r} should not be found")
    return _number(use(role, right)[key])


FAMILIES = (_lookups, _arithmetic, _compare, _groups, _people, _lists, _dates, _actions, _recovery)


def interleave(lists: list[list], rng: random.Random) -> list:
    """The items of ``lists``, each list shuffled, taken in turn from each list (in a shuffled order)."""
    pools = [rng.sample(items, len(items)) for items in lists if items]
    rng.shuffle(pools)
    mixed = []
    while any(pools):
        for pool in pools:
            if pool:
                mixed.append(pool.pop())
    return mixed


# At most this many tasks of a family per world, so that every world mixes its skills.
FAMILY_CAPS = {_lookups: 4, _compare: 2}


def make_tasks(w: World, rng: random.Random, d: dict) -> list[WorldTask]:
    """``TASKS_PER_WORLD`` tasks mixed across the families this world's tools allow, numbered in order."""
    families = []
    deep: list[WorldTask] = []  # tasks of three or more dependent calls, from every family
    for family in FAMILIES:
        shallow = []
        for candidates in family(w, rng, d):
            deep += [task for task in candidates if task.hops >= 3]
            shallow.append([task for task in candidates if task.hops < 3])
        families.append(interleave(shallow, rng)[: FAMILY_CAPS.get(family, TASKS_PER_WORLD)])
    deep = rng.sample(deep, len(deep))
    families += [deep[0::2], deep[1::2]]  # two turns in each round: about a quarter of the tasks
    chosen: list[WorldTask] = []
    seen: set[tuple] = set()
    for task in interleave(families, rng):
        same = (frozenset(re.findall(r"\w+", task.question)), repr(task.expected))  # the same things reordered
        if same not in seen:
            seen.add(same)
            chosen.append(task)
        if len(chosen) == TASKS_PER_WORLD:
            break
    return [
        dataclasses.replace(task, id=f"w{w.seed}-t{i:02d}", exclude=task.exclude or rivals(w, task))
        for i, task in enumerate(chosen, 1)
    ]


def rivals(w: World, task: WorldTask) -> tuple[str, ...]:
    """For a one-name answer, the other names of its kind that the question does not mention.

    An answer that names them too (a list of every known name, a tool's error pasted back) has not chosen.
    """
    if task.answer != "name":
        return ()
    kinds = [
        set(w.things),
        set(w.people),
        set(w.groups),
        {group["place"] for group in w.groups.values()},
        {thing["category"] for thing in w.things.values()},
        {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"},
    ]
    expected = str(task.expected)
    same_kind = next((names for names in kinds if expected in names), set())
    words = set(re.findall(r"\w+", expected.casefold()))
    return tuple(
        sorted(
            name
            for name in same_kind - {expected}
            if not names_in(task.question, name) and not words & set(re.findall(r"\w+", name.casefold()))
        )
    )
