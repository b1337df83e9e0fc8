"""The words generated worlds are made of: domains, invented names, and per-world wording.

A domain is a shape of relations ("things are kept in groups, a person runs
each group") with its nouns and attributes; each world picks one domain and,
inside it, one noun of each kind, so worlds differ in nouns and wording.  Names
of entities are built from random syllables, so no model has seen them.
Standard library only: the peers' worker imports this in its own environment.
"""

from __future__ import annotations

import random

SYLLABLES = (
    "ba",
    "bre",
    "cal",
    "dro",
    "dun",
    "el",
    "fen",
    "gar",
    "hal",
    "ith",
    "jor",
    "ka",
    "kel",
    "lum",
    "mar",
    "nes",
    "nor",
    "ob",
    "pel",
    "quin",
    "ras",
    "sol",
    "tav",
    "tor",
    "ul",
    "vel",
    "wen",
    "xan",
    "yor",
    "zel",
    "mip",
    "rud",
    "sab",
    "teg",
    "vorn",
    "lisk",
    "pra",
    "omb",
    "gli",
    "stra",
    "kur",
    "ady",
    "eth",
    "ost",
    "ryn",
    "fal",
)

# Each domain: nouns to choose from, the attributes of its things (a count, a
# price per unit, a category with a few fixed values, a date and a number of
# days) and how questions about them are asked.  ``{x}`` is a thing's name,
# ``{thing}``/``{things}`` the world's noun, ``{cur}`` its currency.
DOMAINS: dict[str, dict] = {
    "storage": {
        "thing": [("reagent", "reagents"), ("spice", "spices"), ("pigment", "pigments")],
        "group": [("depot", "depots"), ("storehouse", "storehouses")],
        "person": ["warden", "steward"],
        "place": ["town", "district"],
        "count": {
            "key": ["stock", "units_in_stock"],
            "ask": "How many units of the {thing} {x} are in stock?",
            "what": "number of units in stock",
        },
        "price": {
            "key": ["price", "unit_price"],
            "ask": "What does one unit of the {thing} {x} cost, in {cur}?",
            "what": "price of one unit in {cur}",
        },
        "product": "What is the total value of the {thing} {x} in stock (units in stock times unit price), in {cur}?",
        "buy": "How much would {n} units of the {thing} {x} cost, in {cur}?",
        "category": {"key": ["grade", "quality"], "values": ["coarse", "fine", "pure", "rare", "common"]},
        "date": {
            "key": ["next_delivery", "delivery_date"],
            "ask": "On what date is the next delivery of {x} due?",
            "what": "date of the next delivery",
        },
        "days": {
            "key": ["shelf_life_days", "keeps_days"],
            "what": "number of days it keeps after delivery",
            "ask": "The next delivery of {x} keeps for the {thing}'s shelf life in days, counted from its "
            "delivery date. On which date does it expire?",
        },
        "reserve": "Reserve {n} units of the {thing} {x}. How many units are left in stock after that?",
    },
    "fleet": {
        "thing": [("barge", "barges"), ("skiff", "skiffs"), ("glider", "gliders")],
        "group": [("dock", "docks"), ("yard", "yards"), ("hangar", "hangars")],
        "person": ["dockmaster", "foreman"],
        "place": ["port", "harbour town"],
        "count": {
            "key": ["cargo_tonnes", "capacity_tonnes"],
            "ask": "How many tonnes can the {thing} {x} carry?",
            "what": "cargo capacity in tonnes",
        },
        "price": {
            "key": ["rate_per_tonne", "freight_rate"],
            "ask": "What is the freight rate per tonne of the {thing} {x}, in {cur}?",
            "what": "freight rate per tonne in {cur}",
        },
        "product": "What does the {thing} {x} earn on a full load (tonnes it can carry times its rate per tonne), "
        "in {cur}?",
        "buy": "What does it cost to ship {n} tonnes on the {thing} {x}, in {cur}?",
        "category": {"key": ["hull_class", "hull"], "values": ["light", "medium", "heavy", "armoured", "open"]},
        "date": {
            "key": ["next_voyage", "sails_on"],
            "ask": "On what date does the {thing} {x} next sail?",
            "what": "date of the next voyage",
        },
        "days": {
            "key": ["voyage_days", "trip_length_days"],
            "what": "length of the voyage in days",
            "ask": "The {thing} {x} leaves on its next voyage date and is away for its voyage length in days. "
            "On which date does it return?",
        },
        "reserve": None,
    },
    "academy": {
        "thing": [("course", "courses"), ("seminar", "seminars"), ("workshop", "workshops")],
        "group": [("hall", "halls"), ("college", "colleges")],
        "person": ["dean", "proctor"],
        "place": ["district", "quarter"],
        "count": {
            "key": ["enrolled", "students"],
            "ask": "How many students are enrolled in the {thing} {x}?",
            "what": "number of students enrolled",
        },
        "price": {
            "key": ["fee", "fee_per_student"],
            "ask": "What is the fee per student of the {thing} {x}, in {cur}?",
            "what": "fee per student in {cur}",
        },
        "product": "How much does the {thing} {x} take in fees (students enrolled times the fee), in {cur}?",
        "buy": "What would {n} students pay together to attend the {thing} {x}, in {cur}?",
        "category": {"key": ["level", "tier"], "values": ["intro", "advanced", "master", "open", "evening"]},
        "date": {
            "key": ["starts_on", "start_date"],
            "ask": "On what date does the {thing} {x} start?",
            "what": "start date",
        },
        "days": {
            "key": ["length_days", "duration_days"],
            "what": "length in days",
            "ask": "The {thing} {x} starts on its start date and runs for its length in days. On which date "
            "does it end (start date plus length)?",
        },
        "reserve": None,
    },
    "observatory": {
        "thing": [("telescope", "telescopes"), ("probe", "probes"), ("sensor", "sensors")],
        "group": [("station", "stations"), ("outpost", "outposts")],
        "person": ["director", "custodian"],
        "place": ["province", "valley"],
        "count": {
            "key": ["units", "units_in_service"],
            "ask": "How many units of the {thing} {x} are in service?",
            "what": "number of units in service",
        },
        "price": {
            "key": ["unit_cost", "cost_each"],
            "ask": "What did one unit of the {thing} {x} cost, in {cur}?",
            "what": "cost of one unit in {cur}",
        },
        "product": "What did all units of the {thing} {x} in service cost together (units times unit cost), in {cur}?",
        "buy": "What would {n} more units of the {thing} {x} cost, in {cur}?",
        "category": {"key": ["band", "spectrum"], "values": ["radio", "optical", "infrared", "ultraviolet", "xray"]},
        "date": {
            "key": ["next_calibration", "calibration_date"],
            "ask": "On what date is the {thing} {x} next calibrated?",
            "what": "date of the next calibration",
        },
        "days": {
            "key": ["calibration_days", "service_days"],
            "what": "days a calibration takes",
            "ask": "A calibration of the {thing} {x} starts on its next calibration date and takes its "
            "calibration time in days. On which date is it finished?",
        },
        "reserve": None,
    },
    "market": {
        "thing": [("lantern", "lanterns"), ("tapestry", "tapestries"), ("clock", "clocks")],
        "group": [("workshop", "workshops"), ("atelier", "ateliers"), ("forge", "forges")],
        "person": ["master", "overseer"],
        "place": ["quarter", "village"],
        "count": {
            "key": ["pieces", "pieces_ready"],
            "ask": "How many pieces of the {thing} {x} are ready for sale?",
            "what": "number of pieces ready for sale",
        },
        "price": {
            "key": ["price", "price_each"],
            "ask": "What is the price of one {thing} {x}, in {cur}?",
            "what": "price of one piece in {cur}",
        },
        "product": "What are all ready pieces of the {thing} {x} worth together (pieces times price), in {cur}?",
        "buy": "How much would {n} pieces of the {thing} {x} cost, in {cur}?",
        "category": {"key": ["finish", "style"], "values": ["plain", "gilded", "lacquered", "enamelled", "carved"]},
        "date": {
            "key": ["next_fair", "fair_date"],
            "ask": "On what date is the {thing} {x} next shown at a fair?",
            "what": "next fair date",
        },
        "days": {
            "key": ["fair_days", "show_days"],
            "what": "days it stays at the fair",
            "ask": "The {thing} {x} goes to its next fair on its fair date and stays for its fair days. "
            "On which date does it leave the fair?",
        },
        "reserve": "Put {n} pieces of the {thing} {x} on hold. How many pieces are left ready for sale after that?",
    },
}

# Attributes of groups and people; the key of each is chosen per world.
GROUP_KEYS = {"capacity": ["capacity", "max_units", "room_for"], "opens": ["opens_at", "opening_time", "doors_open"]}
PERSON_KEYS = {
    "years": ["years_of_service", "years_served", "seniority_years"],
    "wage": ["hourly_wage", "wage_per_hour", "pay_per_hour"],
    "hours": ["weekly_hours", "hours_per_week", "hours_a_week"],
}

# Error wording: each world picks one phrase of each kind.
NOT_FOUND = (
    "no {kind} named {q!r}.",
    "{q!r} is not a known {kind}.",
    "there is no {kind} called {q!r}.",
    "unknown {kind}: {q!r}.",
)
SUGGEST = (" Did you mean {close}?", " Perhaps you meant {close}.", " Closest match: {close}.")
KNOWN = (" Known {kinds}: {all}.", " Valid names are: {all}.", " Try one of: {all}.")
TERSE = ("not found", "no match", "{kind} not found")
BAD_ID = ("no {kind} with id {q!r}.", "{q!r} is not a {kind} id.", "unknown {kind} id {q!r}.")
ID_HINT = (" Ids look like {example}.", " {Kind} ids are written like {example}.", " Use the id format {example}.")
KNOWN_IDS = (" Known ids: {all}.", " The {kinds} are: {all}.")
BAD_VALUE = ("cannot use {q!r} as {what}.", "{what} expected, got {q!r}.", "invalid {what}: {q!r}.")
# {"error": m} | {"status": "failed", "message": m} | {"ok": False, "reason": m}
ERROR_SHAPES = ("error", "status", "ok")


def invented_word(rng: random.Random, parts: tuple[int, int] = (2, 3)) -> str:
    """A capitalised word of random syllables."""
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(*parts))).capitalize()


def invented_names(rng: random.Random, count: int, words: int, taken: set[str]) -> list[str]:
    """``count`` new names of ``words`` invented words; none is part of another (or of ``taken``)."""
    names: list[str] = []
    while len(names) < count:
        name = " ".join(invented_word(rng) for _ in range(words))
        squashed = name.casefold()
        if any(squashed in other.casefold() or other.casefold() in squashed for other in [*taken, *names]):
            continue
        names.append(name)
    taken.update(names)
    return names
