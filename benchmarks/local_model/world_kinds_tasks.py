"""The tasks of a heldout-kinds world (``world_kinds.py``), with answers computed from its data.

Each family asks for a kind of answer the dev and held-out worlds never ask for: a quantity with
its unit, a percentage, a total over a filtered list, a count of what passes a threshold, a
statement to judge true or false (some about a thing that does not exist), one name chosen by a
superlative among three or four, a mean, a value found through a code, a number of days, a change
followed by a read, and a misspelt name that only a listing can put right (the errors here never
suggest).  Every task carries an oracle that solves it through the world's tools alone, reading the
replies in their formats, so a test can prove it solvable.  Standard library only.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from world_answers import Choice, Percent, Quantity, Truth
from world_formats import read_records
from world_tasks import TASKS_PER_WORLD, WorldTask, interleave, misspell
from world_tools import close_names
from world_vocab import invented_names

if TYPE_CHECKING:
    from world_kinds import KindsWorld

NUMERIC = {"count": int, "price": float, "measure": int, "capacity": int}
TASK_SHAPES = (
    "unit",
    "percent",
    "filtered_sum",
    "filtered_count",
    "truth",
    "superlative",
    "mean",
    "by_code",
    "duration",
    "change",
    "recover_by_search",
)
ANSWER_KINDS = ("quantity", "percent", "total", "count", "truth", "choice", "mean")


class Reader:
    """An oracle's way through a world: it calls the tools and reads their replies as text or JSON."""

    def __init__(self, w: KindsWorld, use: Callable[..., Any]):
        self.w, self.use = w, use

    def records(self, role: str, reply: object) -> list[dict]:
        """The records of a reply of ``role``'s tool, by meaning, with numbers as numbers."""
        found = read_records(reply, self.w.fields[role], self.w.formats[role])
        return [{k: NUMERIC[k](float(v)) if k in NUMERIC else v for k, v in record.items()} for record in found]

    def item(self, name: str) -> dict | None:
        found = self.records("item", self.use("item", name))
        return found[0] if found else None

    def site(self, site_id: str) -> dict:
        return self.records("site", self.use("site", site_id))[0]

    def change(self, *args: Any) -> dict:
        return self.records("item", self.use("action", *args))[0]

    def listing(self) -> list[dict]:
        """Every item, through the world's listing: once, with an empty search, or one category at a time."""
        variant = self.w.variants["listing"]
        if variant == "catalogue":
            return self.records("listing", self.use("listing"))
        if variant == "search":
            return self.records("listing", self.use("listing", ""))
        return [r for value in self.w.words["category"][1] for r in self.records("listing", self.use("listing", value))]

    def of_category(self, value: str) -> list[dict]:
        if self.w.variants["listing"] == "by_category":
            return self.records("listing", self.use("listing", value))
        return [r for r in self.listing() if r["category"] == value]

    def calc(self, operation: str, a: float, b: float) -> float:
        if self.w.variants["calc"] == "expression":
            symbol = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/"}[operation]
            return float(self.use("calc", f"{a} {symbol} {b}"))
        return float(self.use("calc", operation, a, b))

    def total(self, values: list[float]) -> float:
        if "stats" in self.w.roles:
            return float(self.use("stats", "sum", values))
        result = values[0]
        for value in values[1:]:
            result = self.calc("add", result, value)
        return result

    def to_large(self, value: float) -> float:
        small, large = self.w.words["measure"][1], self.w.words["large"][1][0]
        if "convert" in self.w.roles:
            return float(str(self.use("convert", value, small, large)).split()[0])
        return self.calc("divide", value, self.w.words["factor"])


def _task(question, expected, hops, kind, answer, oracle, effect=None, exclude=()) -> WorldTask:
    """A task; ``hops`` is the fewest dependent calls that solve it, the arithmetic counted as one."""
    return WorldTask("", question, expected, hops, kind, answer, tuple(exclude), effect, oracle)


def _listing_calls(w: KindsWorld) -> int:
    return len(w.words["category"][1]) if w.variants["listing"] == "by_category" else 1


def _names(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1]


def _vocab(w: KindsWorld) -> dict[str, str]:
    d = w.words
    return {
        "item": d["item"][0],
        "items": d["item"][1],
        "counted": d["count"][0],
        "one": d["count"][1],
        "key": d["category"][0],
        "cur": d["cur"],
        "site": d["site"][0],
        "measure": d["measure"][0],
        "date": d["date"][1],
    }


# -- the families ------------------------------------------------------------------------------------
def _units(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    d, factor = w.words, w.words["factor"]
    tasks = []
    for x, i in w.items.items():
        tasks.append(
            _task(
                d["total"].format(x=x),
                Quantity(round(i["count"] * i["measure"] / factor, 6), d["large"][1]),
                2,
                "unit",
                "quantity",
                lambda use, x=x: _large(Reader(w, use), x, total=True),
            )
        )
        tasks.append(
            _task(
                d["one"].format(x=x),
                Quantity(round(i["measure"] / factor, 6), d["large"][1]),
                2,
                "unit",
                "quantity",
                lambda use, x=x: _large(Reader(w, use), x, total=False),
            )
        )
    return tasks


def _large(r: Reader, x: str, total: bool) -> str:
    found = r.item(x)
    assert found is not None
    small = r.calc("multiply", found["count"], found["measure"]) if total else found["measure"]
    return f"{r.to_large(small)} {r.w.words['large'][1][0]}"


def _percent(r: Reader, part: float, whole: float) -> str:
    return f"{r.calc('multiply', r.calc('divide', part, whole), 100)} %"


def _percents(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    v, names = _vocab(w), list(w.items)
    tasks = []
    for _ in range(3):
        x, y = rng.sample(names, 2)
        tasks.append(
            _task(
                f"The number of {v['counted']} of the {v['item']} {x} is what percentage of the number of "
                f"{v['counted']} of the {v['item']} {y}? Give it to one decimal place.",
                Percent(100 * w.items[x]["count"] / w.items[y]["count"]),
                3,
                "percent",
                "percent",
                lambda use, x=x, y=y: _ratio(Reader(w, use), x, y),
            )
        )
    if "site" in w.roles:
        for x in rng.sample(names, 3):
            capacity = w.sites[w.items[x]["site"]]["capacity"]
            tasks.append(
                _task(
                    f"What percentage of the capacity of its {v['site']} do the {v['counted']} of the {v['item']} "
                    f"{x} take up? Give it to one decimal place.",
                    Percent(100 * w.items[x]["count"] / capacity),
                    3,
                    "percent",
                    "percent",
                    lambda use, x=x: _fill(Reader(w, use), x),
                )
            )
    for value in _categories(w):
        share = sum(i["category"] == value for i in w.items.values()) / len(w.items)
        tasks.append(
            _task(
                f"What percentage of all the {v['items']} have the {v['key']} {value}? Give it to one decimal place.",
                Percent(100 * share),
                _listing_calls(w) + 1,
                "percent",
                "percent",
                lambda use, value=value: _share(Reader(w, use), value),
            )
        )
    return tasks


def _ratio(r: Reader, x: str, y: str) -> str:
    part, whole = r.item(x), r.item(y)
    assert part is not None and whole is not None
    return _percent(r, part["count"], whole["count"])


def _fill(r: Reader, x: str) -> str:
    found = r.item(x)
    assert found is not None
    return _percent(r, found["count"], r.site(found["site"])["capacity"])


def _share(r: Reader, value: str) -> str:
    every = r.listing()
    return _percent(r, sum(item["category"] == value for item in every), len(every))


def _categories(w: KindsWorld) -> list[str]:
    return [value for value in w.words["category"][1] if any(i["category"] == value for i in w.items.values())]


def _filtered_sums(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    v = _vocab(w)
    tasks = []
    for value in _categories(w):
        members = [i["count"] for i in w.items.values() if i["category"] == value]
        if len(members) < 2:
            continue
        tasks.append(
            _task(
                f"Add up the {v['counted']} of every {v['item']} with the {v['key']} {value}. What is the total?",
                sum(members),
                2,
                "filtered_sum",
                "total",
                lambda use, value=value: _sum_of(Reader(w, use), value),
            )
        )
    return tasks


def _sum_of(r: Reader, value: str) -> str:
    return f"{r.total([item['count'] for item in r.of_category(value)]):g}"


def _between(values: list[float], rng: random.Random) -> tuple[float, int] | None:
    """A round threshold strictly between two neighbouring values, and how many values lie above it."""
    ordered = sorted(values)
    for _ in range(10):
        k = rng.randrange(1, len(ordered))
        low, high = ordered[k - 1], ordered[k]
        for threshold in (round((low + high) / 2), round((low + high) / 2, 1), round((low + high) / 2, 2)):
            if low < threshold < high:
                return threshold, len(ordered) - k
    return None


def _threshold_counts(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    v = _vocab(w)
    tasks = []
    for _ in range(2):
        found = _between([i["price"] for i in w.items.values()], rng)
        if found:
            price, above = found
            tasks.append(
                _task(
                    f"How many {v['items']} cost more than {price:g} {v['cur']} per {v['one']}?",
                    above,
                    _listing_calls(w),
                    "filtered_count",
                    "count",
                    lambda use, price=price: str(sum(r["price"] > price for r in Reader(w, use).listing())),
                )
            )
        found = _between([i["count"] for i in w.items.values()], rng)
        if found:
            count, above = found
            tasks.append(
                _task(
                    f"How many {v['items']} have fewer than {count:g} {v['counted']}?",
                    len(w.items) - above,
                    _listing_calls(w),
                    "filtered_count",
                    "count",
                    lambda use, count=count: str(sum(r["count"] < count for r in Reader(w, use).listing())),
                )
            )
    return tasks


def _truths(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    v, names = _vocab(w), list(w.items)
    tasks = []
    for _ in range(2):
        x, y, z = rng.sample(names, 3)
        c = {n: w.items[n]["count"] for n in (x, y, z)}
        if c[x] == c[y] + c[z]:
            continue
        tasks.append(
            _task(
                f"True or false: the {v['item']} {x} has more {v['counted']} than the {v['items']} {y} and {z} "
                "together.",
                Truth(c[x] > c[y] + c[z]),
                4,
                "truth",
                "truth",
                lambda use, x=x, y=y, z=z: _more_than_both(Reader(w, use), x, y, z),
            )
        )
    taken = {*names, *(s["place"] for s in w.sites.values()), *(s["manager"] for s in w.sites.values())}
    absent = invented_names(rng, 2, 2, taken)
    for name in [*absent, rng.choice(names)]:
        tasks.append(
            _task(
                f"True or false: the records list a {v['item']} called {name}.",
                Truth(name in w.items),
                1,
                "truth",
                "truth",
                lambda use, name=name: str(Reader(w, use).item(name) is not None).lower(),
            )
        )
    for value in _categories(w):
        prices = [i["price"] for i in w.items.values() if i["category"] == value]
        limit = round(max(prices) + rng.choice((-1, 1)) * rng.uniform(0.5, 20), 1)
        if len(prices) < 2 or limit in prices or limit <= 0:
            continue
        tasks.append(
            _task(
                f"True or false: every {v['item']} with the {v['key']} {value} costs less than {limit:g} {v['cur']} "
                f"per {v['one']}.",
                Truth(max(prices) < limit),
                1,
                "truth",
                "truth",
                lambda use, value=value, limit=limit: str(
                    all(r["price"] < limit for r in Reader(w, use).of_category(value))
                ).lower(),
            )
        )
    return tasks


def _more_than_both(r: Reader, x: str, y: str, z: str) -> str:
    counts = [r.item(n)["count"] for n in (x, y, z)]  # type: ignore[index]
    return str(counts[0] > r.calc("add", counts[1], counts[2])).lower()


SUPERLATIVES = {
    "price": ("has the highest price per {one}", max),
    "count": ("has the fewest {counted}", min),
    "date": ("has the earliest {date}", min),
    "total": ("has the greatest {measure} times its number of {counted}", max),
}


def _superlatives(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    v, names = _vocab(w), list(w.items)
    tasks = []
    for attribute, (phrase, pick) in SUPERLATIVES.items():
        among = rng.sample(names, rng.choice((3, 4)))
        values = {n: _value(w.items[n], attribute) for n in among}
        best = pick(values.values())
        if list(values.values()).count(best) > 1:
            continue
        winner = next(n for n in among if values[n] == best)
        said = phrase.format(**v)
        tasks.append(
            _task(
                f"Of the {v['items']} {_names(among)}, which {said}?",
                Choice(winner, tuple(among)),
                len(among) + (attribute == "total"),
                "superlative",
                "choice",
                lambda use, among=among, attribute=attribute, pick=pick: _pick(Reader(w, use), among, attribute, pick),
            )
        )
    return tasks


def _value(item: dict, attribute: str) -> Any:
    return item["count"] * item["measure"] if attribute == "total" else item[attribute]


def _pick(r: Reader, among: list[str], attribute: str, pick: Callable) -> str:
    values = {}
    for name in among:
        found = r.item(name)
        assert found is not None
        values[name] = (
            r.calc("multiply", found["count"], found["measure"]) if attribute == "total" else found[attribute]
        )
    best = pick(values.values())
    return next(n for n in among if values[n] == best)


def _means(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    v, names = _vocab(w), list(w.items)
    tasks = []
    for _ in range(2):
        among = rng.sample(names, 3)
        tasks.append(
            _task(
                f"What is the average price per {v['one']} of the {v['items']} {_names(among)}, in {v['cur']}?",
                round(sum(w.items[n]["price"] for n in among) / 3, 6),
                4,
                "mean",
                "mean",
                lambda use, among=among: _mean(Reader(w, use), among),
            )
        )
    return tasks


def _mean(r: Reader, among: list[str]) -> str:
    prices = [r.item(n)["price"] for n in among]  # type: ignore[index]
    if "stats" in r.w.roles:
        return str(r.use("stats", "mean", prices))
    return f"{r.calc('divide', r.total(prices), len(prices))}"


def _codes(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    v = _vocab(w)
    cur = v["cur"]
    return [
        _task(
            f"What is the price per {v['one']} of the {v['item']} with the code {i['code']}? Give the currency.",
            Quantity(i["price"], (cur, cur.removesuffix("s"))),
            _listing_calls(w),
            "by_code",
            "quantity",
            lambda use, code=i["code"]: _by_code(Reader(w, use), code),
        )
        for i in w.items.values()
    ]


def _by_code(r: Reader, code: str) -> str:
    if r.w.variants["listing"] == "search":
        found = r.records("listing", r.use("listing", code))
    else:
        found = [item for item in r.listing() if item["code"] == code]
    return f"{found[0]['price']} {r.w.words['cur']}"


def _durations(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    if "days" not in w.roles:
        return []
    v, names = _vocab(w), list(w.items)
    tasks = []
    for _ in range(4):
        x, y = rng.sample(names, 2)
        days = abs((dt.date.fromisoformat(w.items[x]["date"]) - dt.date.fromisoformat(w.items[y]["date"])).days)
        tasks.append(
            _task(
                f"How many days lie between the {v['date']} of the {v['item']} {x} and the {v['date']} of the "
                f"{v['item']} {y}? Give the unit.",
                Quantity(days, ("days", "day")),
                3,
                "duration",
                "quantity",
                lambda use, x=x, y=y: _days(Reader(w, use), x, y),
            )
        )
    return tasks


def _days(r: Reader, x: str, y: str) -> str:
    first, second = r.item(x)["date"], r.item(y)["date"]  # type: ignore[index]
    return f"{abs(int(str(r.use('days', first, second)).split()[0]))} days"


def _changes(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    if "action" not in w.roles:
        return []
    v, variant = _vocab(w), w.variants["action"]
    tasks = []
    for x, i in w.items.items():
        if variant == "adjust":
            n = rng.randint(2, min(40, i["count"] - 1))
            tasks.append(
                _task(
                    f"{n} {v['counted']} of the {v['item']} {x} were damaged and thrown away. Take them off the "
                    f"records, then say how many {v['counted']} of {x} are left.",
                    i["count"] - n,
                    1,
                    "change",
                    "count",
                    lambda use, x=x, n=n: str(Reader(w, use).change(x, -n)["count"]),
                    effect=_only(w, x, "count", i["count"] - n),
                )
            )
            tasks.append(
                _task(
                    f"A delivery of {n} {v['counted']} of the {v['item']} {x} arrived. Add it to the records. "
                    + w.words["total"].format(x=x),
                    Quantity(round((i["count"] + n) * i["measure"] / w.words["factor"], 6), w.words["large"][1]),
                    2,
                    "change",
                    "quantity",
                    lambda use, x=x, n=n: _after_delivery(Reader(w, use), x, n),
                    effect=_only(w, x, "count", i["count"] + n),
                )
            )
        elif variant == "recategorise":
            value = rng.choice([c for c in w.words["category"][1] if c != i["category"]])
            now = sum(other["category"] == value for other in w.items.values()) + 1
            tasks.append(
                _task(
                    f"The {v['item']} {x} now has the {v['key']} {value}: record that, then say how many "
                    f"{v['items']} have the {v['key']} {value}.",
                    now,
                    2,
                    "change",
                    "count",
                    lambda use, x=x, value=value: _recount(Reader(w, use), x, value),
                    effect=_only(w, x, "category", value),
                )
            )
        else:
            to = rng.choice([s for s in w.sites if s != i["site"]])
            manager = w.sites[to]["manager"]
            tasks.append(
                _task(
                    f"Move the {v['item']} {x} to the {v['site']} {to}. Who is the {w.words['manager']} of the "
                    f"{v['site']} where it is now?",
                    manager,
                    2,
                    "change",
                    "name",
                    lambda use, x=x, to=to: Reader(w, use).site(Reader(w, use).change(x, to)["site"])["manager"],
                    effect=_only(w, x, "site", to),
                    exclude=[s["manager"] for s in w.sites.values() if s["manager"] != manager],
                )
            )
    return tasks


def _after_delivery(r: Reader, x: str, n: int) -> str:
    found = r.change(x, n)
    return f"{r.to_large(r.calc('multiply', found['count'], found['measure']))} {r.w.words['large'][1][0]}"


def _recount(r: Reader, x: str, value: str) -> str:
    r.change(x, value)
    return str(len(r.of_category(value)))


def _only(w: KindsWorld, name: str, field_: str, value: Any) -> Callable[[Any], bool]:
    """The effect check of a change: that item's field is ``value`` and nothing else differs from the start."""
    wanted = w.state()
    wanted["items"][name][field_] = value
    return lambda world: world.state() == wanted


def _misspelt(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    v, names = _vocab(w), list(w.items)
    tasks = []
    for x, i in w.items.items():
        wrong = misspell(x, rng, names)
        if wrong is None or close_names(wrong, names)[:1] != [x]:
            continue
        tasks.append(
            _task(
                f'What is the price per {v["one"]} of the {v["item"]} I noted down as "{wrong}"? The spelling '
                "may be off. Give the currency.",
                Quantity(i["price"], (v["cur"], v["cur"].removesuffix("s"))),
                1 + _listing_calls(w),
                "recover_by_search",
                "quantity",
                lambda use, wrong=wrong: _recover(Reader(w, use), wrong),
            )
        )
    return tasks


def _recover(r: Reader, wrong: str) -> str:
    if r.item(wrong) is not None:
        raise AssertionError(f"{wrong!r} should not be found")
    right = close_names(wrong, [item["name"] for item in r.listing()])[0]
    return f"{r.item(right)['price']} {r.w.words['cur']}"  # type: ignore[index]


FAMILIES = (
    _units,
    _percents,
    _filtered_sums,
    _threshold_counts,
    _truths,
    _superlatives,
    _means,
    _codes,
    _durations,
    _changes,
    _misspelt,
)


def make_kinds_tasks(w: KindsWorld, rng: random.Random) -> list[WorldTask]:
    """``TASKS_PER_WORLD`` tasks mixed across the families this world's tools allow, numbered in order."""
    chosen: list[WorldTask] = []
    seen: set[tuple] = set()
    for task in interleave([family(w, rng) for family in FAMILIES], rng):
        same = (frozenset(re.findall(r"\w+", task.question)), repr(task.expected))
        if same not in seen:
            seen.add(same)
            chosen.append(task)
        if len(chosen) == TASKS_PER_WORLD:
            break
    return [dataclasses.replace(task, id=f"w{w.seed}-t{i:02d}") for i, task in enumerate(chosen, 1)]
