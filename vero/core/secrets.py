"""API keys are never shown: the one rule (``mask_secret``) that masks a key, pieces of it and its escaped
forms in everything vero writes (errors, logs, console lines, traces, stream records), since a server,
a model or a tool may echo it anywhere."""

from __future__ import annotations

import base64
import json
import re
import threading
import urllib.parse
from collections.abc import Iterable
from typing import Any, TypeGuard

from vero.core.text import MASK, PLAIN_QUERY_NAMES

MIN_SECRET = 8  # a shorter "key" is a placeholder a local server ignores ("demo"), not a secret to hunt for
MIN_PIECE = 8  # a bare piece of the key this long is masked ...
MIN_MASKED_PIECE = 4  # ... and a piece this long next to a run of *** or ... (sk-proj****Z123)
MIN_KEY_FOR_PIECES = 12  # a shorter key is masked only whole: its pieces are too common
_MASK_RUN = re.compile(r"\*{3,}|\.{3,}|…+")
_MASK_RUN_ENDING = re.compile(rf"[*.…]+\S{{0,{MIN_PIECE}}}\Z")  # a masked form (its run begun) the next piece may end
_WORD = re.compile(r"[A-Za-z][a-z]*|[A-Z]+")  # a piece of a key that is an ordinary word ("required"): not masked


def mask_secret(text: str, secret: str) -> str:
    """``text`` with the key, and pieces of it a server may echo, replaced by ``***``: servers echo a key
    whole, in part, or masked their own way (``sk-canar****Z123``, ``sk-...Z123``).  The pieces of a key without a
    digit ("sk-no-key-required") or that are words ("required") are words: masking them would change every text
    that holds them, a tool schema's keys too.  A key is masked whole whatever it is: a password may be a word."""
    if not secret:
        return text
    text = text.replace(secret, MASK)
    if len(secret) < MIN_KEY_FOR_PIECES or not any(char.isdigit() for char in secret):
        return text
    spans = _piece_spans(text, secret) + _masked_form_spans(text, secret)
    return _replace_spans(text, spans) if spans else text


def written_forms(secret: str) -> list[str]:
    """The key as the outputs may write it: as it is, JSON-escaped (``\\"``, ``\\\\``, ``\\uXXXX``) and Python-escaped
    (``repr``).  They differ only for a key holding a quote, a backslash or a character outside ASCII."""
    forms = [secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1], repr(secret)[1:-1]]
    return list(dict.fromkeys(forms))  # each once, the key itself first


# Every model client's key in this process (``key_in_use``): masked whole in everything vero shows, whichever
# agent's output it reaches; its pieces are not hunted (a placeholder key's pieces are words: "required").
KEYS_IN_USE: list[str] = []
MAX_KEYS_IN_USE = 64  # the latest clients' keys: a service making a client per user key does not pay for all
_keys_lock = threading.Lock()


def key_in_use(key: str | None) -> None:
    """Mask ``key`` wherever vero masks keys, from now on: a second model's key (a critic's, a sub-agent's)
    reaches the same console, trace and files as the first's.  ``ChatOpenAI`` calls it with its own."""
    with _keys_lock:
        if _worth_masking(key) and key not in KEYS_IN_USE:
            KEYS_IN_USE.append(key)
            del KEYS_IN_USE[:-MAX_KEYS_IN_USE]


def _worth_masking(key: str | None) -> TypeGuard[str]:
    """False for a placeholder a local server ignores: a key shorter than ``MIN_SECRET`` ("demo")."""
    return isinstance(key, str) and len(key) >= MIN_SECRET


def _keys(secrets: Iterable[str | None]) -> list[str]:
    """The keys of ``secrets`` to mask, each once (not the placeholders)."""
    return [key for key in dict.fromkeys(secrets) if _worth_masking(key)]


def _forms(secrets: Iterable[str | None], in_use: bool) -> list[tuple[str, bool]]:
    """The written forms of the keys to mask, each with whether its pieces go too: those of ``secrets``
    (a server echoes pieces), and with ``in_use`` the keys in use, whole."""
    given = _keys(secrets)
    keys = [(key, True) for key in given] + [(key, False) for key in KEYS_IN_USE if in_use and key not in given]
    return [(form, pieces) for key, pieces in keys for form in written_forms(key)]


def _masked(text: str, forms: list[tuple[str, bool]]) -> str:
    for form, pieces in forms:
        text = mask_secret(text, form) if pieces else text.replace(form, MASK)
    return text


def hide_secrets(text: str, secrets: Iterable[str | None], in_use: bool = True) -> str:
    """``text`` with each key of ``secrets`` masked in every form it may be written in (``written_forms``),
    pieces too, and (``in_use``) each key in use whole.  Keys shorter than ``MIN_SECRET`` are placeholders."""
    return _masked(text, _forms(secrets, in_use))


def hide_secrets_in(value: Any, secrets: Iterable[str | None], in_use: bool = True, names: bool = True) -> Any:
    """``value`` (dicts, lists and tuples walked, keys included unless ``names`` is False) with ``hide_secrets``
    applied to each string: masking before ``json.dumps`` keeps the JSON valid whatever the key holds."""
    forms = _forms(secrets, in_use)
    return _walk(value, forms, names) if forms else value


def _walk(value: Any, forms: list[tuple[str, bool]], names: bool = True) -> Any:
    """``value`` with ``forms`` (worked out once) masked in its strings (``names``: its keys' too)."""
    if isinstance(value, str):
        return _masked(value, forms)
    if isinstance(value, dict):
        return {(_walk(key, forms) if names else key): _walk(item, forms, names) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_walk(item, forms, names) for item in value]
    return value


def masked_json(value: Any, secrets: Iterable[str | None]) -> str:
    """``value`` as JSON (``ensure_ascii=False``; other types as ``str``), each key of ``secrets`` masked throughout."""
    secrets = list(secrets)
    return json.dumps(
        hide_secrets_in(value, secrets), ensure_ascii=False, default=lambda other: hide_secrets(str(other), secrets)
    )


class StreamedSecrets:
    """Masks keys in text printed piece by piece (a streamed answer), where a key may be split
    between two pieces: the end of the text that may be the start of a key (any piece of one) is
    held back, unmasked, until the next piece shows what it is, or until ``flush``."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        self.secrets = _keys(secrets)
        self.forms = [form for secret in self.secrets for form in written_forms(secret)]
        self.held = ""

    def feed(self, piece: str) -> str:
        """What may be printed now of the text so far, masked."""
        if not self.forms:
            return piece
        text = self.held + piece
        cut = len(text) - max(_key_piece_size(text, len(text), form, -1) for form in self.forms)
        masked_form = _MASK_RUN_ENDING.search(text, max(0, cut - MIN_PIECE - 8))  # "sk-ab****" then "3456": held
        cut = min(cut, masked_form.start()) if masked_form else cut
        for form in self.forms:  # a whole key across the cut is printed, masked, with the text before it
            start = text.find(form, max(0, cut - len(form) + 1))
            if 0 <= start < cut < start + len(form):
                cut = start + len(form)
        self.held = text[cut:]
        return hide_secrets(text[:cut], self.secrets)

    def flush(self) -> str:
        """The text held back, masked: the stream has ended."""
        text, self.held = self.held, ""
        return hide_secrets(text, self.secrets)


def _piece_spans(text: str, secret: str) -> list[tuple[int, int]]:
    """Where ``text`` holds a piece of the key of ``MIN_PIECE`` characters (longer pieces overlap), but a word."""
    spans = []
    windows = (secret[i : i + MIN_PIECE] for i in range(len(secret) - MIN_PIECE + 1))
    for piece in {piece for piece in windows if not _WORD.fullmatch(piece)}:
        start = text.find(piece)
        while start >= 0:
            spans.append((start, start + MIN_PIECE))
            start = text.find(piece, start + 1)
    return spans


def _masked_form_spans(text: str, secret: str) -> list[tuple[int, int]]:
    """Runs of ``***`` or ``...`` with a piece of the key (4+ characters) before or after them."""
    spans = []
    for run in _MASK_RUN.finditer(text):
        before = _key_piece_size(text, run.start(), secret, -1)
        after = _key_piece_size(text, run.end(), secret, +1)
        shown = text[run.start() - before : run.start()] + text[run.end() : run.end() + after]
        if max(before, after) >= MIN_MASKED_PIECE and not _WORD.fullmatch(shown):  # "required...": a word
            spans.append((run.start() - before, run.end() + after))
    return spans


def _key_piece_size(text: str, at: int, secret: str, direction: int) -> int:
    """How many characters before (-1) or after (+1) ``at`` form a piece of the key."""
    size, limit = 0, min(len(secret), at if direction < 0 else len(text) - at)
    while size < limit:
        piece = text[at - size - 1 : at] if direction < 0 else text[at : at + size + 1]
        if piece not in secret:
            break
        size += 1
    return size


def _replace_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each run of overlapping or touching spans replaced by one ``***``."""
    parts, end = [], -1
    for start, stop in sorted(spans):
        if start > end:  # a new run
            parts += [text[max(end, 0) : start], MASK]
        end = max(end, stop)
    parts.append(text[max(end, 0) :])
    return "".join(parts)


def unread_password(url: str) -> list[str]:
    """The password of ``scheme://user:pass@host`` when it holds an unencoded ``/``, ``?`` or ``#``: a URL parser
    ends the host there, so the password is no credential to it (and ``host:4711#...`` a port)."""
    written = re.match(r"[A-Za-z][\w+.-]*://[^:/?#@\s]*:([^@\s=&]*[/?#][^@\s=&]*)@", url)  # not ?to=a@b's @
    return [written[1]] if written else []


def url_credentials(url: str | None) -> list[str]:
    """The credentials a base URL carries, its userinfo password (or a token given as the user alone,
    ``https://TOKEN@host``) and its query values (but those of
    ``PLAIN_QUERY_NAMES``), as written and decoded: ``redact_urls`` masks them inside a URL only,
    and a server or a model may echo them bare.  Values shorter than ``MIN_SECRET`` are left."""
    try:
        parts = urllib.parse.urlsplit(url or "")
    except ValueError:  # "http://[::1": make_llm says so
        return []
    found = [parts.password or parts.username or "", *unread_password(url or "")]
    for field in re.split("[&;]", parts.query):
        name, _, value = field.partition("=")
        if urllib.parse.unquote_plus(name).lower() not in PLAIN_QUERY_NAMES:
            found.append(value)
    forms = [form for value in found for form in (value, urllib.parse.unquote_plus(value), urllib.parse.unquote(value))]
    if parts.username or parts.password:  # as an "Authorization: Basic" header carries them, which a proxy may echo
        pair = f"{urllib.parse.unquote(parts.username or '')}:{urllib.parse.unquote(parts.password or '')}"
        forms.append(base64.b64encode(pair.encode()).decode())
    return [form for form in dict.fromkeys(forms) if len(form) >= MIN_SECRET]
