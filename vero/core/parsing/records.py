"""The record a mention of a tool stands in, however long: a call written as data keeps its values in it.

A tool result may write a call as a record whose values stand far from its name, a long field or header between
them: a YAML item (``- action: transfer`` over ``params:`` lines), an XML element (``<step action="transfer">``
holding ``<to>``), an HTTP request (its body after the headers), a ``curl`` command.  ``records_naming`` gives
the records of a text that name the tool; the gate's value rule reads a record's values as near the name
(docs/tools.md, "The gate").  Records are read by their structure only (indentation, tags, a request's blank
line), in linear time; a text that is no such record gives none.
"""

from __future__ import annotations

import bisect
import re

MAX_MENTIONS = 8  # records are looked for around the first mentions only: a text padded with mentions stays fast
MAX_HEAD_CHARS = 300  # a longer line is a page's text, not the head of a record indented under it
_ITEM = re.compile(r"[ \t]*(?:[-*+][ \t]+)?")  # a line's indentation, a YAML or markdown list marker counted in
_MARKER = re.compile(r"[ \t]*[-*+][ \t]")
_REQUEST = re.compile(r"[ \t]*(?:GET|POST|PUT|PATCH|DELETE)[ \t]+(?:/|https?://)")  # a request line, in capitals
_COMMAND = re.compile(r"[ \t]*(?:\$[ \t]*)?(?:curl|wget)[ \t]")  # a command that sends a request
_HEADER = re.compile(r"[ \t]*\[\[?([\w.\"' -]{1,200})\]\]?[ \t]*")  # a TOML or INI table's header: [step.args]
_FRAMES = frozenset({"html", "head", "body", "main", "article", "section", "frameset"})  # a page, not a record
_TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]{0,100})\b[^<>]{0,2000}?(/?)>")


def records_naming(text: str, name: re.Pattern[str]) -> list[str]:
    """The records of ``text`` (``_block``, ``_section``, ``_request``, ``_element``) that hold one of the first
    mentions of the tool (``name``: its spellings)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    found: list[str] = []
    for count, mention in enumerate(name.finditer(text)):
        if count == MAX_MENTIONS:
            break
        number = bisect.bisect_right(starts, mention.start()) - 1
        found += [_block(lines, number), _section(lines, number), _request(lines, number)]
        found.append(_element(text, mention))
    return list(dict.fromkeys(record for record in found if record))


def _indent(line: str) -> int:
    return len(_ITEM.match(line)[0])  # type: ignore[index]  # matches every line


def _block(lines: list[str], number: int) -> str:
    """The indented block the mention's line stands in, as YAML nests a record: from its list item's first line
    (``- action: ...``) or the line itself, down through the lines indented as deep or deeper (blank lines
    too).  A line at the left margin holds only what is indented under it; a line alone, or one too long to head
    a record, is no block ("")."""
    base = _indent(lines[number])
    if len(lines[number]) > MAX_HEAD_CHARS:
        return ""
    start = number
    while base and start > 0 and not _MARKER.match(lines[start]):  # up to the item's marker, through its fields
        above = lines[start - 1]
        if above.strip() and _indent(above) < base:
            break
        start -= 1
    end = number + 1
    while end < len(lines) and (not lines[end].strip() or _continues(lines[end], max(base, 1))):
        end += 1
    return "\n".join(lines[start:end]).strip("\n") if (start, end) != (number, number + 1) else ""


def _continues(line: str, base: int) -> bool:
    """``line`` belongs to a block indented ``base`` deep (a list item of an outer level does not)."""
    return len(line) - len(line.lstrip(" \t")) >= base


def _section(lines: list[str], number: int) -> str:
    """The TOML or INI table the mention's line stands in: from its header (``[[step]]``) down to the next
    header that is no sub-table of it (``[step.args]`` is one)."""
    start = number
    while start >= 0 and not _HEADER.fullmatch(lines[start]):
        start -= 1
    if start < 0:
        return ""
    table = _HEADER.fullmatch(lines[start])[1].strip()  # type: ignore[index]  # matched above
    end = number + 1
    while end < len(lines):
        header = _HEADER.fullmatch(lines[end])
        if header and not header[1].strip().startswith(table + "."):
            break
        end += 1
    return "\n".join(lines[start:end])


def _request(lines: list[str], number: int) -> str:
    """An HTTP request the mention's line starts (``POST /api/transfer HTTP/1.1``): its headers and its body,
    up to the next blank line after the body; or a ``curl`` command with its continued lines."""
    line = lines[number]
    if _COMMAND.match(line):
        end = number + 1
        while end < len(lines) and lines[end - 1].rstrip().endswith("\\"):
            end += 1
        return "\n".join(lines[number:end])
    if not _REQUEST.match(line):
        return ""
    end, blanks = number + 1, 0
    while end < len(lines) and blanks < 2:
        blanks += not lines[end].strip() and bool(lines[end - 1].strip())
        end += 1
    return "\n".join(lines[number:end]).strip("\n")


def _element(text: str, mention: re.Match[str]) -> str:
    """The XML or HTML element the mention stands in: the one whose start tag holds it (``<step
    action="transfer">``), or the parent of the element whose whole text it is (``<step><tool>transfer</tool>``);
    none when that element is not closed, or is a page's frame (``_FRAMES``)."""
    if "<" not in text:
        return ""
    open_tags: list[re.Match[str]] = []
    for tag in _TAG.finditer(text, 0, mention.start() + 2000):
        if tag.start() > mention.start():
            break
        if tag.end() > mention.start():  # the mention is inside this start tag
            open_tags.append(tag)
            break
        if tag[1]:  # a closing tag: its element (and any left open inside it) ends
            while open_tags and open_tags.pop()[2] != tag[2]:
                pass
        elif not tag[3]:
            open_tags.append(tag)
    if not open_tags:
        return ""
    inside = open_tags[-1]
    alone = not text[inside.end() : mention.start()].strip() and re.match(
        rf"\s*</{re.escape(inside[2])}\s*>", text[mention.end() :]
    )
    if inside.end() <= mention.start() and alone and len(open_tags) > 1:  # the name is all its text: the parent
        inside = open_tags[-2]
    close = re.compile(rf"</{re.escape(inside[2])}\s*>", re.IGNORECASE).search(text, mention.end())
    return text[inside.start() : close.end()] if close and inside[2].lower() not in _FRAMES else ""
