"""The tools suite's fictional world: the Harrowgate Botanical Consortium.

Plants grow in greenhouses, each greenhouse has a keeper.  None of this data
exists anywhere else, so a model can answer only by calling the tools.  The
tools are plain typed functions with Google-style docstrings, so every
framework in the benchmark (vero and its peers) can turn them into tools.

A tool never raises: a bad argument gets an ``{"error": ...}`` reply that says
how to do better, the same way for every framework.

Each task states how many dependent tool calls it needs (``hops``) and what
kind of skill it checks; ``expected`` is computed from the data, never typed in.
"""

from __future__ import annotations

import ast
import difflib
import operator
import re
from dataclasses import dataclass

PLANTS = {
    "Moonpetal Lily": {"code": "ML-114", "greenhouse": "GH-03", "stock": 1288, "price": 37.45},
    "Emberroot": {"code": "ER-207", "greenhouse": "GH-01", "stock": 462, "price": 112.80},
    "Frostvine": {"code": "FV-031", "greenhouse": "GH-05", "stock": 2715, "price": 8.35},
    "Duskmoss": {"code": "DM-560", "greenhouse": "GH-07", "stock": 9034, "price": 1.95},
    "Sunthistle": {"code": "ST-422", "greenhouse": "GH-02", "stock": 317, "price": 264.10},
    "Glasswort Pearl": {"code": "GP-089", "greenhouse": "GH-03", "stock": 845, "price": 59.99},
    "Velvet Nettle": {"code": "VN-301", "greenhouse": "GH-06", "stock": 1502, "price": 14.72},
    "Cinder Fern": {"code": "CF-718", "greenhouse": "GH-07", "stock": 676, "price": 23.40},
}

GREENHOUSES = {
    "GH-01": {"city": "Ostrava Vale", "keeper": "Orla Venn", "capacity": 2400, "temperature_c": 31.5},
    "GH-02": {"city": "Brindlemere", "keeper": "Tamsin Reed", "capacity": 900, "temperature_c": 27.0},
    "GH-03": {"city": "Quarry Hollow", "keeper": "Idris Calloway", "capacity": 3500, "temperature_c": 22.0},
    "GH-05": {"city": "Saltmarsh Point", "keeper": "Petra Lindqvist", "capacity": 5000, "temperature_c": 4.5},
    "GH-06": {"city": "Ashbourne Reach", "keeper": "Wendell Okafor", "capacity": 2000, "temperature_c": 18.0},
    "GH-07": {"city": "Kestrel Fen", "keeper": "Marisol Achterberg", "capacity": 12000, "temperature_c": 15.5},
}

KEEPERS = {
    "Orla Venn": {"years_of_service": 14, "hourly_wage": 23.75, "weekly_hours": 38},
    "Tamsin Reed": {"years_of_service": 6, "hourly_wage": 19.40, "weekly_hours": 42},
    "Idris Calloway": {"years_of_service": 21, "hourly_wage": 31.15, "weekly_hours": 35},
    "Petra Lindqvist": {"years_of_service": 3, "hourly_wage": 17.85, "weekly_hours": 40},
    "Wendell Okafor": {"years_of_service": 9, "hourly_wage": 26.60, "weekly_hours": 37.5},
    "Marisol Achterberg": {"years_of_service": 11, "hourly_wage": 28.90, "weekly_hours": 44},
}


# -- the tools ---------------------------------------------------------------------------
def find_plant(name: str) -> dict:
    """Look up a plant of the Harrowgate Botanical Consortium by its name.

    Returns the plant's code, the id of the greenhouse it grows in, the number
    of plants in stock, and the price of one plant in crowns.

    Args:
        name: the plant's name.
    """
    found = _lookup(PLANTS, name)
    if found is None:
        return {"error": f"no plant named {name!r}." + _suggest(name, PLANTS)}
    key, plant = found
    return {
        "name": key,
        "code": plant["code"],
        "greenhouse_id": plant["greenhouse"],
        "stock": plant["stock"],
        "price_per_plant_crowns": plant["price"],
    }


def greenhouse_info(greenhouse_id: str) -> dict:
    """Look up a greenhouse by its id.

    Returns the city it is in, the name of its keeper, how many plants it can
    hold, and its temperature in degrees Celsius.

    Args:
        greenhouse_id: the greenhouse's id.
    """
    key = str(greenhouse_id).strip().upper()
    if key not in GREENHOUSES:
        return {"error": f"unknown greenhouse id {greenhouse_id!r}. Greenhouse ids are written like 'GH-04'."}
    house = GREENHOUSES[key]
    return {
        "greenhouse_id": key,
        "city": house["city"],
        "keeper": house["keeper"],
        "capacity": house["capacity"],
        "temperature_c": house["temperature_c"],
    }


def keeper_profile(name: str) -> dict:
    """Look up a greenhouse keeper by their full name.

    Returns their years of service, hourly wage in crowns and weekly working hours.

    Args:
        name: the keeper's full name.
    """
    found = _lookup(KEEPERS, name)
    if found is None:
        return {"error": f"no keeper named {name!r}." + _suggest(name, KEEPERS)}
    key, keeper = found
    return {"name": key, **keeper}


def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression with + - * / and parentheses.

    Args:
        expression: the arithmetic expression to evaluate.
    """
    try:
        value = _evaluate(ast.parse(str(expression).strip(), mode="eval").body)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, KeyError) as exc:
        return f"error: cannot evaluate {expression!r} ({type(exc).__name__}). Use numbers, + - * / and parentheses."
    value = round(value, 6)
    return str(int(value)) if float(value).is_integer() else repr(value)


TOOLS = [find_plant, greenhouse_info, keeper_profile, calculate]


def _lookup(table: dict, name: str):
    wanted = " ".join(str(name).split()).casefold()
    for key, value in table.items():
        if key.casefold() == wanted:
            return key, value
    return None


def _suggest(name: str, table: dict) -> str:
    close = difflib.get_close_matches(str(name).title(), list(table), n=2, cutoff=0.5)
    return f" Did you mean: {', '.join(close)}?" if close else f" Known names: {', '.join(table)}."


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _evaluate(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    raise ValueError("unsupported expression")


# -- the tasks ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    id: str
    question: str
    expected: str | float
    hops: int  # dependent tool calls a careful agent needs
    kind: str  # lookup | chain | arithmetic | recovery


def _p(name):
    return PLANTS[name]


def _g(plant):
    return GREENHOUSES[PLANTS[plant]["greenhouse"]]


def _k(plant):
    return KEEPERS[_g(plant)["keeper"]]


def _tasks() -> list[Task]:
    t = Task
    return [
        # one tool call
        t("t01", "How many Frostvine plants are in stock?", _p("Frostvine")["stock"], 1, "lookup"),
        t("t02", "What is the price of one Sunthistle plant, in crowns?", _p("Sunthistle")["price"], 1, "lookup"),
        t("t03", "In which city is greenhouse GH-06?", GREENHOUSES["GH-06"]["city"], 1, "lookup"),
        t("t04", "Who is the keeper of greenhouse GH-02?", GREENHOUSES["GH-02"]["keeper"], 1, "lookup"),
        t(
            "t05",
            "How many years of service does Idris Calloway have?",
            KEEPERS["Idris Calloway"]["years_of_service"],
            1,
            "lookup",
        ),
        t(
            "t06",
            "What is Wendell Okafor's hourly wage in crowns?",
            KEEPERS["Wendell Okafor"]["hourly_wage"],
            1,
            "lookup",
        ),
        t(
            "t07",
            "What is the temperature in greenhouse GH-05, in degrees Celsius?",
            GREENHOUSES["GH-05"]["temperature_c"],
            1,
            "lookup",
        ),
        t("t08", "What is 48173 multiplied by 2963?", 48173 * 2963, 1, "arithmetic"),
        t("t09", "What is the plant code of the Glasswort Pearl?", _p("Glasswort Pearl")["code"], 1, "lookup"),
        t("t10", "How many plants can greenhouse GH-07 hold?", GREENHOUSES["GH-07"]["capacity"], 1, "lookup"),
        # two dependent calls
        t("t11", "In which city is the Moonpetal Lily grown?", _g("Moonpetal Lily")["city"], 2, "chain"),
        t("t12", "Who keeps the greenhouse where Frostvine grows?", _g("Frostvine")["keeper"], 2, "chain"),
        t(
            "t13",
            "What is the total value in crowns of all Emberroot plants in stock (stock times price)?",
            _p("Emberroot")["stock"] * _p("Emberroot")["price"],
            2,
            "arithmetic",
        ),
        t(
            "t14",
            "What does Marisol Achterberg earn in a week (hourly wage times weekly hours), in crowns?",
            KEEPERS["Marisol Achterberg"]["hourly_wage"] * KEEPERS["Marisol Achterberg"]["weekly_hours"],
            2,
            "arithmetic",
        ),
        t(
            "t15",
            "What is the temperature of the greenhouse that grows Velvet Nettle, in degrees Celsius?",
            _g("Velvet Nettle")["temperature_c"],
            2,
            "chain",
        ),
        t(
            "t16",
            "How much would it cost to buy 37 Glasswort Pearl plants, in crowns?",
            37 * _p("Glasswort Pearl")["price"],
            2,
            "arithmetic",
        ),
        t(
            "t17",
            "How many more plants could the greenhouse of the Sunthistle hold than Sunthistle plants in stock?",
            _g("Sunthistle")["capacity"] - _p("Sunthistle")["stock"],
            3,
            "arithmetic",
        ),
        t(
            "t18",
            "How many Duskmoss and Cinder Fern plants are in stock together?",
            _p("Duskmoss")["stock"] + _p("Cinder Fern")["stock"],
            3,
            "arithmetic",
        ),
        t(
            "t19",
            "Which greenhouse id grows the Cinder Fern, and in which city is it? Give the city.",
            _g("Cinder Fern")["city"],
            2,
            "chain",
        ),
        t(
            "t20",
            "How many years of service does the keeper of greenhouse GH-03 have?",
            KEEPERS[GREENHOUSES["GH-03"]["keeper"]]["years_of_service"],
            2,
            "chain",
        ),
        # three dependent calls
        t(
            "t21",
            "What is the hourly wage of the keeper of the greenhouse where Duskmoss grows?",
            _k("Duskmoss")["hourly_wage"],
            3,
            "chain",
        ),
        t(
            "t22",
            "How many years of service does the keeper who looks after the Emberroot have?",
            _k("Emberroot")["years_of_service"],
            3,
            "chain",
        ),
        t(
            "t23",
            "How many hours a week does the keeper of the Sunthistle's greenhouse work?",
            _k("Sunthistle")["weekly_hours"],
            3,
            "chain",
        ),
        t(
            "t24",
            "What is the weekly pay (hourly wage times weekly hours) of the keeper responsible for the Velvet "
            "Nettle, in crowns?",
            _k("Velvet Nettle")["hourly_wage"] * _k("Velvet Nettle")["weekly_hours"],
            4,
            "arithmetic",
        ),
        t(
            "t25",
            "What is the combined value in crowns (stock times price) of the Moonpetal Lily and the Glasswort "
            "Pearl stock?",
            _p("Moonpetal Lily")["stock"] * _p("Moonpetal Lily")["price"]
            + _p("Glasswort Pearl")["stock"] * _p("Glasswort Pearl")["price"],
            3,
            "arithmetic",
        ),
        t(
            "t26",
            "What fraction of its greenhouse's capacity does the Frostvine stock fill? Give it as a percentage.",
            100 * _p("Frostvine")["stock"] / _g("Frostvine")["capacity"],
            3,
            "arithmetic",
        ),
        # a tool returns an error the model must recover from
        t("t27", "Who is the keeper of greenhouse number 7?", GREENHOUSES["GH-07"]["keeper"], 2, "recovery"),
        t("t28", "How many Moon Petal Lilies are in stock?", _p("Moonpetal Lily")["stock"], 2, "recovery"),
        t("t29", "In which city is greenhouse 1?", GREENHOUSES["GH-01"]["city"], 2, "recovery"),
        t(
            "t30",
            "What is the hourly wage of Orla, the keeper of greenhouse GH-01?",
            KEEPERS["Orla Venn"]["hourly_wage"],
            3,
            "recovery",
        ),
        t(
            "t31",
            "What is the price of one Velvet Nettles plant in crowns?",
            _p("Velvet Nettle")["price"],
            2,
            "recovery",
        ),
        t("t32", "What is 7.35 percent of 86420?", 0.0735 * 86420, 1, "arithmetic"),
    ]


TASKS = _tasks()

# -- checking answers --------------------------------------------------------------------
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


def numbers_in(text: str) -> list[float]:
    """Every number written in ``text`` (``12,345.6`` counts as one number)."""
    values = []
    for raw in _NUMBER.findall(text or ""):
        cleaned = raw.replace(",", "")
        try:
            values.append(float(cleaned))
        except ValueError:
            continue
    return values


def is_correct(answer: str, expected: str | float, rel_tol: float = 1e-4, abs_tol: float = 0.01) -> bool:
    """Numbers: some number in the answer equals ``expected`` within a tolerance.
    Text: the expected name appears in the answer, ignoring case and spacing."""
    if isinstance(expected, (int, float)):
        return any(abs(v - expected) <= max(abs_tol, rel_tol * abs(expected)) for v in numbers_in(answer))
    squash = lambda s: " ".join(re.sub(r"[^\w\s-]", " ", s).split()).casefold()  # noqa: E731
    return squash(str(expected)) in squash(answer or "")
