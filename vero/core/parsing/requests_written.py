"""The requests a text writes, however long: a call written as an HTTP request keeps its values in it.

A tool result may write a call as a request whose values stand far from its name, a long header between them: an
HTTP request (``POST /api/transfer HTTP/1.1``, its headers, then its body), a command that sends one (``curl``,
``wget``, HTTPie, PowerShell's ``Invoke-RestMethod``) or code that does (``requests.post(...)``, ``fetch(...)``).
A request is a call in another syntax, so ``requests_naming`` gives it whole, and the gate's value rule reads its
values as near the name (docs/tools.md, "The gate").  Other data that names a tool (a YAML profile, a config
section, a page, a log of one line per request) is no call written out: there the values count only near the name.
Read by lines, in linear time.
"""

from __future__ import annotations

import re

_METHOD = r"(?:POST|PUT|PATCH|DELETE)"  # the methods that send a body
# a request line: perhaps a log's stamp before it, the method, the target, perhaps the version (a log's line has more
# after it); or HTTP/2's :method: pseudo-header
_REQUEST = re.compile(
    rf"[ \t]*(?:\S+[ \t]+){{0,2}}?{_METHOD}[ \t]+\S+(?:[ \t]+HTTP/[\d.]+)?[ \t]*$|[ \t]*:method:[ \t]*{_METHOD}[ \t]*$",
    re.IGNORECASE,
)
_HEADER = re.compile(r"[ \t]*:?[!#$%&'*+.^_`|~\w-]{1,100}:|[ \t]+\S")  # Name: value (:path: too), or a folded line
_COMMAND = re.compile(  # a command that sends a request, perhaps after a prompt or sudo
    r"[ \t]*(?:[$>#][ \t]*)?(?:sudo[ \t]+)?(?:curl|wget|https?|xh|Invoke-RestMethod|Invoke-WebRequest|irm|iwr)"
    r"(?:\.exe)?[ \t]",
    re.IGNORECASE,
)
# code that sends one: a call whose arguments run on to where its parenthesis closes
_CODE = re.compile(r"(?:\b(?:requests|httpx|axios|session|client)\.(?:post|put|patch|delete|request)|\bfetch)[ \t]*\(")
MAX_CODE_LINES = 200  # lines of such a call read for its closing parenthesis
_CONTINUED = ("\\", "^", "`")  # a command line continued by sh, cmd or PowerShell
_HEREDOC = re.compile(r"<<-?[ \t]*['\"]?(\w+)")  # a command's input that follows it, up to a line of its word


def requests_naming(text: str, name: re.Pattern[str]) -> list[str]:
    """The requests of ``text`` that name the tool (``name``: its spellings) in their request line or headers, or
    anywhere in a command: an HTTP request with its headers and its body, a command with its continued lines."""
    lines, found, number = text.split("\n"), [], 0
    while number < len(lines):
        head, end = _request_at(lines, number)
        if end > number and name.search("\n".join(lines[number:head])):
            found.append("\n".join(lines[number:end]))
        number = max(end, number + 1)  # a request's own lines start no other: read once, in linear time
    return found


def _request_at(lines: list[str], number: int) -> tuple[int, int]:
    """Where the head (the lines that name what is called) and the whole of the request that starts at line
    ``number`` end (``number`` itself when none starts there).  A command: its continued lines and a here-document;
    code: up to its closing parenthesis; a request line: its headers, then after a blank line its body
    (``_body_end``).  A method and a target with no version and no header is no request (a log's line)."""
    end = number + 1
    if _COMMAND.match(lines[number]):
        while end < len(lines) and lines[end - 1].rstrip().endswith(_CONTINUED):
            end += 1
        heredoc = _HEREDOC.search("\n".join(lines[number:end]))
        while heredoc and end < len(lines) and lines[end - 1].strip() != heredoc.group(1):
            end += 1
        return end, end
    if _CODE.search(lines[number]):
        depth = lines[number].count("(") - lines[number].count(")")
        while depth > 0 and end < min(len(lines), number + MAX_CODE_LINES):
            depth += lines[end].count("(") - lines[end].count(")")
            end += 1
        return end, end
    if not _REQUEST.match(lines[number]):
        return number, number
    while end < len(lines) and _HEADER.match(lines[end]):
        end += 1
    if end == number + 1 and "HTTP/" not in lines[number].upper():
        return number, number
    head = end
    if end < len(lines) and not lines[end].strip():  # a blank line, then the body
        end = _body_end(lines, end + 1)
    return head, end


def _body_end(lines: list[str], start: int) -> int:
    """Where a body that starts at line ``start`` ends: at a blank line, or the next request; past blank lines
    while its syntax is open (a JSON value's brackets, a multipart form up to its closing boundary)."""
    end, depth = start, 0
    boundary = lines[start].strip() + "--" if start < len(lines) and lines[start].startswith("--") else None
    while end < len(lines) and not (_REQUEST.match(lines[end]) or _COMMAND.match(lines[end])):
        line = lines[end]
        if not line.strip() and depth <= 0 and boundary is None:
            break
        depth += line.count("{") + line.count("[") - line.count("}") - line.count("]")
        boundary = None if line.strip() == boundary else boundary
        end += 1
    return end
