"""Cutting text to a length (one rule for prompts, logs and error messages), and comparing it."""

from __future__ import annotations

import re


def clip(text: str, limit: int, marker: str = "", *, within: bool = False) -> str:
    """``text`` cut to ``limit`` characters, with ``marker`` added only when something was cut: after the
    ``limit`` characters kept (a prompt shows the model exactly that many), or with ``within=True``
    inside ``limit`` (a line of fixed width).  A marker that reports counts is formatted by the caller."""
    if len(text) <= limit:
        return text
    keep = limit - len(marker) if within else limit
    return text[: max(0, keep)] + marker


def folded(text: str) -> str:
    """``text`` with spacing and case aside (runs of whitespace as one space, case folded): how two
    texts a model wrote are compared."""
    return " ".join(text.split()).casefold()


# Shown as nothing, yet not a format character (Cf, which callers check): joiners, fillers, the braille blank...
_SELECTORS = (*range(0x180B, 0x1810), *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0))
INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0\u2800") | frozenset(map(chr, _SELECTORS))
# What shows as nothing at a reply's ends: white space, NUL, zero-width and joining marks, a BOM, a soft hyphen, the
# fillers above.  A reply that is all of it (``not text.strip(BLANK)``) is empty, not an answer.
_FORMAT = "\xad\u0600-\u0605\u061c\u06dd\u070f\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
_FORMAT += "\ufff9-\ufffb\U000e0001\U000e0020-\U000e007f"  # Unicode's format characters (Cf) that show nothing
_SPACES = "\t-\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"  # what str.isspace() takes
BLANK = "\x00" + "".join(sorted(INVISIBLE))
BLANK += re.sub(r"(.)-(.)", lambda m: "".join(map(chr, range(ord(m[1]), ord(m[2]) + 1))), _SPACES + _FORMAT)
# A reply that shows a reader nothing: all BLANK, or an empty code fence (``` or ```json on its own line) or empty
# quotes around nothing but BLANK.  ``SHOWS_NOTHING.fullmatch(reply)``: no answer, asked again.
_B = f"[{re.escape(BLANK)}]*"
_FENCE = r"(?:`{3,}|~{3,})"
_EMPTY_QUOTES = "|".join(f"{re.escape(a)}{_B}{re.escape(b)}" for a, b in ('""', "''", "``", "“”", "‘’", "«»"))
# (each blank run read once: two runs side by side would be tried at every split, quadratic in a reply of newlines)
SHOWS_NOTHING = re.compile(rf"{_B}(?:{_FENCE}(?:[\w+#.-]+[ \t]*\n)?{_B}(?:{_FENCE}{_B})?|(?:{_EMPTY_QUOTES}){_B})?")


# -- what reaches a terminal ------------------------------------------------------
# C0 controls except newline and tab, DEL, C1 controls (0x80-0x9f, e.g. the 8-bit CSI
# "\x9b"), and the bidirectional overrides that reorder what a line shows.
_CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]
_CONTROLS += [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_NAMED = {0x0D: "\\r", 0x1B: "\\x1b"}
_PRINTABLE = {code: _NAMED.get(code) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}") for code in _CONTROLS}


def printable(text: object) -> str:
    """``text`` safe to print on a terminal: control characters shown escaped (``\\x1b``, ``\\r``), as
    a reply, a tool's output or an error can hold escape sequences (a window title, the clipboard).
    Each character on its own: no parser, and streamed pieces work too.  Newlines and tabs stay."""
    return str(text).replace("\r\n", "\n").translate(_PRINTABLE)


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable_json(text: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``, which escapes C0 controls only) with
    DEL, C1 controls and bidirectional overrides written as ``\\uXXXX`` escapes: the same JSON, safe
    to print.  (Outside strings JSON text has no such characters.)"""
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


# -- credentials in URLs ------------------------------------------------------------
MASK = "***"
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")
# user:password@, also a password with an unencoded / ? or # in it (which a URL parser reads as the host's end)
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)(?:[^/?#@\s]*|[^:/?#@\s]*:[^@\s=&]*)@")
_QUERY_VALUE = re.compile(r"([?&;][^=&;#]*=)[^&;#]*")
# Query parameters known to carry no secret (Azure's api-version ...): shown as they are.
PLAIN_QUERY_NAMES = frozenset({"api-version", "api_version", "version", "model", "format", "stream"})


def redact_url(url: str) -> str:
    """``url`` as vero prints or logs it: ``user:password@`` becomes ``***@`` and query values are masked
    (``?key=***``), except those of a few plain parameters such as ``api-version``.  Endpoints often carry their
    credentials in the URL (``https://alice:secret@host/v1``, ``?api_key=...``, a signed ``?sig=...``); any
    parameter may, so only known plain ones show."""
    url = _USERINFO.sub(rf"\1{MASK}@", url, count=1)
    return _QUERY_VALUE.sub(_mask_query_value, url)


def _mask_query_value(match: re.Match[str]) -> str:
    name = match.group(1)[1:-1].lower()
    return match.group(0) if name in PLAIN_QUERY_NAMES else match.group(1) + MASK


_SECRET_PARAMETER = re.compile(
    r"([?&;][\w.-]*(?:key|token|secret|sig|password|passwd|pwd|auth|credential)[\w.-]*=)[^&;#\s'\"]+", re.IGNORECASE
)


def redact_urls(text: str) -> str:
    """``text`` with every URL in it redacted (``redact_url``), and any other query parameter named like a secret
    (``?api_key=``, ``&token=``: a server that echoes the request's path): for log lines and error messages."""
    if "://" in text:
        text = _URL.sub(lambda match: redact_url(match.group(0)), text)
    return _SECRET_PARAMETER.sub(rf"\1{MASK}", text) if "=" in text else text
