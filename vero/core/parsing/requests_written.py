"""The requests a text writes, however long: a call written as an HTTP request keeps its values in it.

A tool result may write a call as a request whose values stand far from its name, a long header between them: an
HTTP request (``POST /api/transfer HTTP/1.1``, its headers, then its body) or a ``curl`` or ``wget`` command.  A
request is a call in another syntax, so ``requests_naming`` gives it whole, and the gate's value rule reads its values
as near the name (docs/tools.md, "The gate").  Other data that names a tool (a YAML profile, a config section, a
page, a log of one line per request) is no call written out: there the values count only near the name.  Read by
lines, in linear time.
"""

from __future__ import annotations

import re

# a request line that sends a body: the method, the target, perhaps the version (a log's line has more after it)
_REQUEST = re.compile(r"[ \t]*(?:POST|PUT|PATCH|DELETE)[ \t]+\S+(?:[ \t]+HTTP/[\d.]+)?[ \t]*$")
_HEADER = re.compile(r"[ \t]*:?[!#$%&'*+.^_`|~\w-]{1,100}:|[ \t]+\S")  # Name: value (:path: too), or a folded line
_COMMAND = re.compile(r"[ \t]*(?:\$[ \t]*)?(?:curl|wget)[ \t]")  # a command that sends a request
_CONTINUED = ("\\", "^", "`")  # a command line continued by sh, cmd or PowerShell


def requests_naming(text: str, name: re.Pattern[str]) -> list[str]:
    """The requests of ``text`` whose first line names the tool (``name``: its spellings): an HTTP request with
    its headers and its body (up to the next blank line), or a command with its continued lines."""
    lines, found, number = text.split("\n"), [], 0
    while number < len(lines):
        end = _request_end(lines, number)
        if end > number and name.search(lines[number]):
            found.append("\n".join(lines[number:end]))
        number = max(end, number + 1)  # a request's own lines start no other: read once, in linear time
    return found


def _request_end(lines: list[str], number: int) -> int:
    """Where the request that starts at line ``number`` ends (``number`` itself when none starts there): a
    command's continued lines; a request line's headers, then after a blank line its body, up to a blank line or
    the next request.  A method and a target with no version and no header is no request (a log line)."""
    end = number + 1
    if _COMMAND.match(lines[number]):
        while end < len(lines) and lines[end - 1].rstrip().endswith(_CONTINUED):
            end += 1
        return end
    if not _REQUEST.match(lines[number]):
        return number
    while end < len(lines) and _HEADER.match(lines[end]):
        end += 1
    if end == number + 1 and "HTTP/" not in lines[number]:
        return number
    if end < len(lines) and not lines[end].strip():  # a blank line, then the body
        end += 1
        while end < len(lines) and lines[end].strip() and not _REQUEST.match(lines[end]):
            end += 1
    return end
