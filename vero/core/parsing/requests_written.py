"""The requests a text writes, however long: a call written as an HTTP request keeps its values in it.

A tool result may write a call as a request whose values stand far from its name, a long header between them: an
HTTP request (``POST /api/transfer HTTP/1.1``, its headers, then its body), a command that sends one (``curl``,
``wget``, HTTPie, PowerShell's ``Invoke-RestMethod``) or code that does (``requests.post(...)``, ``fetch(...)``).
A request is a call in another syntax, so ``requests_naming`` gives it whole, and the gate's value rule reads its
values as near the name (docs/tools.md, "The gate").  Other data that names a tool (a YAML profile, a config
section, a page, a log of one line per request) is no call written out: there the values count only near the name.
Read by lines, in linear time: no request runs past the next one, nor past ``MAX_REQUEST_LINES``.
"""

from __future__ import annotations

import re

_METHOD = r"(?:POST|PUT|PATCH|DELETE)"  # the methods that send a body
# A request line: the method in capitals, the target, perhaps the version; in any case or after a log's stamp only
# with the version (a log's line has more after it, a sentence no version); or HTTP/2's pseudo-headers
_REQUEST = re.compile(
    rf"[ \t]*(?:{_METHOD}[ \t]+\S+(?:[ \t]+HTTP/[\d.]+)?|(?:\S+[ \t]+){{0,3}}?(?i:{_METHOD}[ \t]+\S+[ \t]+HTTP/[\d.]+)"
    r"|:(?:method|path):[ \t]*\S+)[ \t]*$"
)
# A header: "Name: value" (a letter first: a log's time stamp is none), ":path: /x", a folded line, or a note in
# brackets where some were left out ("[auth headers trimmed]")
_HEADER = re.compile(r"[ \t]*(?::[a-z]+:|[A-Za-z][!#$%&'*+.^_`|~\w-]{0,99}:|\[[^\]\n]{0,80}\][ \t]*$)|[ \t]+\S")
_BOUNDARY = re.compile(r"boundary=\"?([^\";\s]+)", re.IGNORECASE)  # a multipart body's, named by its header
_COMMAND = re.compile(  # a command that sends a request: HTTPie's at a line's start, the others anywhere in it
    r"^[ \t]*(?:[$>#][ \t]*)?(?:https?|xh)[ \t]"
    r"|(?:^|[\s|;&(=/`\"'\[,])(?:curl|wget|Invoke-RestMethod|Invoke-WebRequest|irm|iwr)(?:\.exe)?[ \t]",
    re.IGNORECASE,
)
_CODE = re.compile(r"(?:\.(?:post|put|patch|delete|request)|\bfetch)[ \t]*\(", re.IGNORECASE)  # requests.post(
_CODE_CALLED = re.compile(r"(?<![\w$.])[\w$.]*" + _CODE.pattern, re.IGNORECASE)  # what it is called on: requests.post(
# What may come before a command or code that starts a line: a prompt, sudo or the like, an assignment ("r = ")
_LEAD_IN = re.compile(  # each part read one way only: no backtracking to try
    r"[ \t]*(?:[$>#%][ \t]*|PS[^>\n]{0,40}>[ \t]*)?"  # a shell's or PowerShell's prompt
    r"(?:(?:sudo(?:[ \t]+-\S+)*|\S*time|timeout[ \t]+\S+|xargs|await|nohup|env|exec|const|let|var)[ \t]+"
    r"|\$?[\w.\[\]]+(?:[ \t]+=[ \t]*|=[ \t]+|=\$?\())*"  # an assignment: "r = ", "r=$(" ("to=curl" is a form's)
)
_CODE_ASSIGNED = re.compile(r"[ \t]*\$?[\w.\[\]]+=[ \t]*")  # r=requests.post(
_CONTINUED = ("\\", "^", "`")  # a command line continued by sh, cmd or PowerShell
_OPEN_BODY = re.compile(r"(?:^|\s)'[\[{][^']*$")  # an argument in quotes that opens a JSON body and goes on below
_HEREDOC = re.compile(r"(?<!<)<<-?[ \t]*['\"]?(\w+)")  # a command's input after it, up to a line of its word
_STRINGS_AND_COMMENTS = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|//.*|#.*")  # as code counts them
MAX_REQUEST_LINES = 200  # lines of one request read at most (a body, a here-document, a call's arguments)


def requests_naming(text: str, name: re.Pattern[str]) -> list[str]:
    """The requests of ``text`` that name the tool (``name``: its spellings) in their request line or headers, or
    anywhere in a command or code: an HTTP request with its headers and its body, a command with its continued
    lines and its here-document, code up to its closing parenthesis."""
    lines, found, number = text.split("\n"), [], 0
    while number < len(lines):
        head, end = _request_at(lines, number)
        if end > number and name.search("\n".join(lines[number:head])):
            found.append("\n".join(lines[number:end]))
        number = max(end, number + 1)  # a request's own lines start no other: read once, in linear time
    return found


def _request_at(lines: list[str], number: int) -> tuple[int, int]:
    """Where the head (the lines that name what is called) and the whole of the request that starts at line
    ``number`` end (``number`` itself when none starts there): a command's, code's, or an HTTP request's."""
    if _COMMAND.search(lines[number]):
        end = _command_end(lines, number)
        return end, end
    if _CODE.search(lines[number]):
        end = _code_end(lines, number)
        return end, end
    return _http_request_at(lines, number)


def _command_end(lines: list[str], number: int) -> int:
    """Where a command ends: its continued lines and those of a quoted JSON body (``-d '{`` up to ``}'``), then its
    here-document up to the line of its word."""
    end, quoted = number + 1, _OPEN_BODY.search(lines[number]) is not None  # -d '{ ... over lines
    while end < len(lines) and (quoted or lines[end - 1].rstrip().endswith(_CONTINUED)) and not _starts(lines[end]):
        quoted = _OPEN_BODY.search(lines[end]) is not None if not quoted else "'" not in lines[end]
        end += 1
        quoted = quoted and end < number + MAX_REQUEST_LINES
    heredoc, limit = _HEREDOC.search("\n".join(lines[number:end])), min(len(lines), end + MAX_REQUEST_LINES)
    while heredoc and end < limit and not _starts(lines[end]):
        end += 1
        if lines[end - 1].strip() == heredoc.group(1):
            break
    return end


def _code_end(lines: list[str], number: int) -> int:
    """Where code that sends a request ends: where the parenthesis its first line opens closes."""
    depth, end, limit = _parentheses(lines[number]), number + 1, min(len(lines), number + MAX_REQUEST_LINES)
    while depth > 0 and end < limit and not _starts(lines[end]):
        depth += _parentheses(lines[end])
        end += 1
    return end


def _http_request_at(lines: list[str], number: int) -> tuple[int, int]:
    """The head and the end of an HTTP request at line ``number``: its request line and headers, then after a blank line
    its body (``_body_end``).  A method and a target with no version and no header is no request (a log's line)."""
    end = number + 1
    if not _REQUEST.match(lines[number]):
        return number, number
    while (
        end < len(lines) and _HEADER.match(lines[end]) and (lines[end].lstrip()[:1] == ":" or not _starts(lines[end]))
    ):
        end += 1
    if end == number + 1 and "HTTP/" not in lines[number].upper():
        return number, number
    head, boundary = end, _BOUNDARY.search("\n".join(lines[number:end]))
    if end < len(lines) and not lines[end].strip():  # a blank line, then the body
        end = _body_end(lines, end + 1, f"--{boundary.group(1)}--" if boundary else None)
    return head, end


def _body_end(lines: list[str], start: int, closing: str | None) -> int:
    """Where a body that starts at line ``start`` ends: at a blank line, unless its JSON brackets are still open
    and JSON goes on after it (an indented line, a quote or a bracket: a log cut off inside a value ends there);
    a multipart form's at its closing boundary (``closing``, ``--B--``), blank lines and all.  Either way before
    the next request, and after ``MAX_REQUEST_LINES``."""
    end, depth, limit = start, 0, min(len(lines), start + MAX_REQUEST_LINES)
    while end < limit and not _starts(lines[end]):
        line, following = lines[end], lines[end + 1] if end + 1 < len(lines) else ""
        if closing is None and not line.strip() and (depth <= 0 or following[:1] not in tuple(' \t"{}[]')):
            break
        depth += line.count("{") + line.count("[") - line.count("}") - line.count("]")
        end += 1
        if line.strip() == closing:
            break
    return end


def _parentheses(line: str) -> int:
    """The parentheses ``line`` of code opens, less those it closes, outside its strings and comments."""
    code = _STRINGS_AND_COMMENTS.sub("", line)
    return code.count("(") - code.count(")")


def _starts(line: str) -> bool:
    """``line`` starts a request of its own, a request line, a command or code that sends one (``sudo curl``,
    ``await fetch(``, ``r = requests.post(``): what a request before it cannot hold.  Not a command that a header,
    a form or a string only names ("X-Client: made with curl", ``client=curl 8.5&to=...``)."""
    command = _COMMAND.search(line)
    found = command or _CODE_CALLED.search(line)
    if _REQUEST.match(line):
        return True
    if found is None or found.start() > 80:
        return False
    leads = (line[: found.start()], line[: found.start() + 1])  # before its separator ("(curl"), or with it ("$(")
    return any(  # a prompt, sudo, await, "r = " and no more; code's "r=" too (a command's "to=curl" is a form's)
        _LEAD_IN.fullmatch(lead) or (command is None and _CODE_ASSIGNED.fullmatch(lead)) for lead in leads
    )
