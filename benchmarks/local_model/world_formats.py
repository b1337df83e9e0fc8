"""How the worlds of the ``heldout-kinds`` split write their replies: result formats and failures.

The dev and held-out worlds answer with flat JSON objects and fail with a small dict holding a
message.  These worlds answer the way other services do: a JSON envelope of records whose
measured values are nested ``{"value", "unit"}`` objects, a markdown table, CSV, ``label: value``
lines or sentences of prose; and they fail the way other services do: an exception's text, an
empty result, a JSON error object with a code, or a status-code line.

Every reply can be read back (``read_records``): that is how a task's oracle proves the task
solvable from the replies alone.  Standard library only: the peers' worker imports this too.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass

from world_tools import Refused

RESULT_FORMATS = ("json", "table", "csv", "lines", "prose")
ERROR_KINDS = ("exception", "empty", "error_object", "status_line")

FORMAT_WORDS = {
    "json": 'a JSON object: "data" holds the records, a measured value is {"value": ..., "unit": ...}',
    "table": "a markdown table, a row per record",
    "csv": "CSV text with a header line, a line per record",
    "lines": '"label: value" lines, a blank line between records',
    "prose": "sentences, one per record",
}


@dataclass(frozen=True)
class Field:
    """One attribute as a reply writes it: ``key`` in JSON, tables and CSV, ``label`` in lines and prose.

    Records are written from, and read back into, dicts keyed by what each field means (``means``,
    the key when not given), so one world's keys and labels never reach the code that reads them."""

    key: str
    label: str
    unit: str = ""  # written after the value (nested beside it in JSON)
    means: str = ""

    @property
    def meaning(self) -> str:
        return self.means or self.key


class Failure(Refused):
    """A tool cannot answer: ``reason`` is not_found, bad_request or conflict; the message says why."""

    def __init__(self, message: str, reason: str = "bad_request"):
        super().__init__(message)
        self.reason = reason


# -- writing records -------------------------------------------------------------------------------
def _shown(field: Field, value: object) -> str:
    return f"{value} {field.unit}" if field.unit else str(value)


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def write_records(records: list[dict], fields: list[Field], fmt: str, noun: str) -> object:
    """``records`` (meaning -> value) in format ``fmt``, each with ``fields`` only; the text forms are
    strings, JSON a dict."""
    if fmt == "json":
        rows = [
            {f.key: {"value": r[f.meaning], "unit": f.unit} if f.unit else r[f.meaning] for f in fields}
            for r in records
        ]
        return {"count": len(rows), "data": rows}
    if fmt == "table":
        lines = ["| " + " | ".join(f.key for f in fields) + " |", "|" + "---|" * len(fields)]
        lines += ["| " + " | ".join(str(r[f.meaning]) for f in fields) + " |" for r in records]
        return "\n".join(lines)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([f.key for f in fields])
        writer.writerows([[r[f.meaning] for f in fields] for r in records])
        return out.getvalue().rstrip("\n")
    if fmt == "lines":
        return "\n\n".join("\n".join(f"{f.label}: {_shown(f, r[f.meaning])}" for f in fields) for r in records)
    if not records:
        return f"No {noun} matches."
    return "\n".join(_sentence(r, fields, noun) for r in records)


def _sentence(record: dict, fields: list[Field], noun: str) -> str:
    name, *rest = fields
    parts = [f"{_article(f.label)} {f.label} of {_shown(f, record[f.meaning])}" for f in rest]
    listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
    return f"The {noun} {record[name.meaning]} has {listed}."


# -- reading them back -----------------------------------------------------------------------------
def read_records(reply: object, fields: list[Field], fmt: str) -> list[dict[str, str]]:
    """The records in a reply written by ``write_records`` (meaning -> the value as text, without its unit).

    A failure, in any of its forms, reads as no records."""
    return [{f.meaning: row[f.key] for f in fields if f.key in row} for row in _rows(reply, fields, fmt)]


def _rows(reply: object, fields: list[Field], fmt: str) -> list[dict[str, str]]:
    """The records of a reply as written, key -> value."""
    if fmt == "json":
        rows = reply.get("data", []) if isinstance(reply, dict) else []
        return [{k: str(v["value"] if isinstance(v, dict) else v) for k, v in row.items()} for row in rows]
    if not isinstance(reply, str) or failed(reply):
        return []
    if fmt == "table":
        rows = [line.strip().strip("|").split("|") for line in reply.splitlines()[2:]]
        return [dict(zip([f.key for f in fields], (cell.strip() for cell in row))) for row in rows]
    if fmt == "csv":
        return [dict(row) for row in csv.DictReader(io.StringIO(reply))]
    if fmt == "lines":
        return [_read_lines(block, fields) for block in reply.split("\n\n") if block.strip()]
    return [_read_sentence(line, fields) for line in reply.splitlines() if line.startswith("The ")]


def _unitless(field: Field, text: str) -> str:
    return text.strip().removesuffix(f" {field.unit}") if field.unit else text.strip()


def _read_lines(block: str, fields: list[Field]) -> dict[str, str]:
    by_label = {f.label: f for f in fields}
    record = {}
    for line in block.splitlines():
        label, _, value = line.partition(": ")
        if label in by_label:
            record[by_label[label].key] = _unitless(by_label[label], value)
    return record


def _read_sentence(sentence: str, fields: list[Field]) -> dict[str, str]:
    name, *rest = fields
    record = {name.key: re.match(r"The \S+ (.+?) has ", sentence).group(1)}  # type: ignore[union-attr]
    for f in rest:
        found = re.search(rf"\b{re.escape(f.label)} of (.+?)(?:, an? | and an? |\.$)", sentence)
        if found:
            record[f.key] = _unitless(f, found.group(1))
    return record


def failed(reply: object) -> bool:
    """Whether a reply of these worlds is a failure in one of the forms ``ErrorWriter`` writes."""
    if isinstance(reply, dict):
        return "error" in reply
    text = str(reply).strip()
    return text.startswith(("Traceback", '{"error"', "No ")) or bool(
        re.match(r"(\w+Error|HTTP \d|\d{3} |status )", text)
    )


# -- failing -------------------------------------------------------------------------------------------
STATUS = {"not_found": (404, "Not Found"), "bad_request": (400, "Bad Request"), "conflict": (409, "Conflict")}
EXCEPTIONS = {"not_found": "KeyError", "bad_request": "ValueError", "conflict": "RuntimeError"}
STATUS_LINES = ("{code} {phrase}: {message}", "HTTP {code} {phrase} - {message}", "status {code} ({phrase}): {message}")


class ErrorWriter:
    """How one tool of a world fails: its world's kind of error, in the shape of the tool's replies."""

    def __init__(self, kind: str, variant: int, fmt: str, empty: object):
        self.kind = kind  # one of ERROR_KINDS
        self.variant = variant  # which wording of that kind the world uses
        self.fmt = fmt  # the tool's result format: a JSON error stays a dict there, text elsewhere
        self.empty = empty  # the tool's reply with no records

    def reply(self, message: str, reason: str = "bad_request") -> object:
        message = message[:1].upper() + message[1:]
        code, phrase = STATUS[reason]
        if self.kind == "empty":
            return self.empty
        if self.kind == "exception":
            head = f'Traceback (most recent call last):\n  File "service.py", line {140 + code % 97}, in handle\n'
            return (head if self.variant % 2 else "") + f"{EXCEPTIONS[reason]}: {message}"
        if self.kind == "status_line":
            return STATUS_LINES[self.variant % len(STATUS_LINES)].format(code=code, phrase=phrase, message=message)
        error = {"code": code if self.variant % 2 else phrase.upper().replace(" ", "_"), "message": message}
        return {"error": error} if self.fmt == "json" else json.dumps({"error": error})

    def refused(self, refused: Refused) -> object:
        return self.reply(str(refused), getattr(refused, "reason", "bad_request"))
