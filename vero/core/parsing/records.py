"""The request a mention of a tool stands in, however long: a call written as an HTTP request keeps its values in it.

A tool result may write a call as a request whose values stand far from its name, a long header between them: an
HTTP request (``POST /api/transfer HTTP/1.1``, its headers, then its body) or a ``curl`` or ``wget`` command.  A
request is a call in another syntax, so ``requests_naming`` gives it whole, and the gate's value rule reads its values
as near the name (docs/tools.md, "The gate").  Other data that names a tool (a YAML profile, a config section, a
page) is no call: there the values count only near the name.  Read by lines, in linear time.
"""

from __future__ import annotations

import bisect
import re

MAX_MENTIONS = 8  # requests are looked for around the first mentions only: a text padded with mentions stays fast
_REQUEST = re.compile(r"[ \t]*(?:POST|PUT|PATCH|DELETE)[ \t]+(?:/|https?://)")  # a request that sends a body
_COMMAND = re.compile(r"[ \t]*(?:\$[ \t]*)?(?:curl|wget)[ \t]")  # a command that sends a request


def requests_naming(text: str, name: re.Pattern[str]) -> list[str]:
    """The requests of ``text`` whose first line holds one of the first mentions of the tool (``name``: its
    spellings): an HTTP request with its headers and body, up to the blank line after the body, or a command with
    its continued lines."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    found = []
    for count, mention in enumerate(name.finditer(text)):
        if count == MAX_MENTIONS:
            break
        number = bisect.bisect_right(starts, mention.start()) - 1
        end = number + 1
        if _COMMAND.match(lines[number]):
            while end < len(lines) and lines[end - 1].rstrip().endswith(("\\", "^", "`")):  # sh, cmd, PowerShell
                end += 1
        elif _REQUEST.match(lines[number]):
            blanks = 0
            while end < len(lines) and blanks < 2:  # the headers, a blank line, the body, a blank line
                blanks += not lines[end].strip() and bool(lines[end - 1].strip())
                end += 1
        else:
            continue
        found.append("\n".join(lines[number:end]).strip("\n"))
    return list(dict.fromkeys(found))
