"""Record a model's replies once, replay them offline: a JSONL cassette of requests and replies.

``ChatOpenAI(cassette=Cassette("session.jsonl", mode=...))`` looks every request up in the cassette before it
goes to the endpoint; a request is its whole body (not how it was delivered), compared as JSON, and no header
(so no API key) reaches the file.  The modes, what is compared and how the file is checked:
docs/record-replay.md.  Only each entry's offset and hash stay in memory.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import threading
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from vero.core.files import at_home, check_regular_or_missing
from vero.core.message import Message
from vero.core.secrets import hide_secrets_in
from vero.errors import REFUSED_STATUSES, LLMCallError, VeroError

Mode = Literal["record", "replay", "replay_then_live"]
MODES: tuple[Mode, ...] = ("record", "replay", "replay_then_live")
FORMAT = 1  # the cassette format this vero writes and reads (the header line's "vero_cassette")
MAX_LINE_BYTES = 64 * 1024 * 1024  # one entry; longer lines are refused, not read into memory
DELIVERY_KEYS = ("stream", "stream_options")  # how a reply is delivered, not what it says
log = logging.getLogger("vero.cassette")


class CassetteError(VeroError):
    """A cassette file that cannot be trusted: the message names the file and the line."""


class CassetteMissError(LLMCallError):
    """A request that is not in a ``replay`` cassette (the run ends ``failed`` with this message)."""


class Cassette:
    """A JSONL file of ``{"request": ..., "reply": ...}`` entries behind one header line.  Thread-safe: the
    agents of a thread pool may share one cassette.  ``hits`` and ``misses`` count this object's look-ups."""

    def __init__(self, path: str | os.PathLike[str], mode: Mode = "replay") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        text = os.fspath(path)
        self.path = Path(at_home(text))  # as given, in messages
        self._file = self.path.absolute()  # resolved once: a later chdir must not move the recording
        self.mode: Mode = mode
        self.hits = self.misses = 0
        self.error: OSError | None = None  # why recording stopped (a full disk), else None
        self._lock = threading.Lock()
        self._entries: dict[str, list[int]] = defaultdict(list)  # request hash -> offsets of its lines
        self._played: dict[str, int] = defaultdict(int)
        try:  # a FIFO would wait forever, /dev/null swallow the recording
            check_regular_or_missing(str(self.path))
        except OSError as exc:
            raise CassetteError(f"{self.path}: {exc.strerror}") from None
        if mode == "record" or (mode == "replay_then_live" and not self.path.exists()):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({"vero_cassette": FORMAT}) + "\n", encoding="utf-8")
        elif not self.path.exists():
            raise CassetteError(f"{self.path}: no such cassette (record one: mode='record', or vero run --record FILE)")
        else:  # every line checked, and where each request's entries are remembered
            for offset, entry in self._scan():
                for key in _keys_of(entry["request"]):
                    self._entries[key].append(offset)

    def __repr__(self) -> str:
        return f"Cassette({str(self.path)!r}, mode={self.mode!r}, hits={self.hits}, misses={self.misses})"

    @property
    def replays_only(self) -> bool:
        """True in ``replay`` mode: nothing may reach the model."""
        return self.mode == "replay"

    def lookup(self, request: dict[str, Any], secrets: Iterable[str] = ()) -> dict[str, Any] | None:
        """The recorded reply body for ``request``, or None when the model must be asked; ``secrets`` are
        masked first, as ``add`` masks them.  In ``replay`` mode an unrecorded request raises ``CassetteMissError``;
        a recorded refusal is raised as the ``LLMCallError`` it was."""
        if self.mode == "record":
            return None
        request = hide_secrets_in(request, secrets, in_use=False, names=False)  # the client's own key masked
        try:
            keys = _keys_of(request)
        except UnicodeEncodeError as exc:  # as the endpoint would refuse it (ChatOpenAI._complete)
            raise LLMCallError(f"the request has text that cannot be sent as UTF-8 ({exc.reason})") from None
        with self._lock:
            key = next((key for key in keys if key in self._entries), keys[0])
            offsets = self._entries.get(key, [])
            played = self._played[key]
            if played < len(offsets) or (offsets and self.mode == "replay"):
                self._played[key] = played + 1
                self.hits += 1
                return _replayed(self._entry_at(offsets[min(played, len(offsets) - 1)], key)["reply"])
            self.misses += 1
        if self.mode == "replay":
            raise CassetteMissError(self.miss_message(request))
        return None

    def add(self, request: dict[str, Any], reply: Message | LLMCallError, secrets: Iterable[str] = ()) -> None:
        """Append what the model answered to ``request`` (``record`` and ``replay_then_live``), with
        ``secrets`` (the API key) masked in both, in every written form.  An error is kept only when the
        server refused the body (``REFUSED_STATUSES``; a 400 only when it names a parameter: some servers answer a
        bad key with a 400), an answer as lasting as a reply: it replays as that error."""
        if isinstance(reply, LLMCallError):
            if reply.status not in REFUSED_STATUSES or (
                reply.status == 400 and reply.parameter is None
            ):  # a bad key too
                return
            if reply.parameter in DELIVERY_KEYS:  # not in the request's key: it would answer the request sent again
                return
            body = {"error": {"message": str(reply), "status": reply.status, "parameter": reply.parameter}}
        else:
            body = reply_body(reply)
        request = hide_secrets_in(_for_file(request), secrets, names=False)
        body = hide_secrets_in(body, secrets, names=False)
        entry = {"request": request, "reply": body, "check": _checksum(request, body)}
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            if self.error is not None:  # recording stopped: the file holds what was written before
                return
            try:
                offset = self._append(line)
            except OSError as exc:
                self.error = exc  # the reply itself is kept: the run goes on without its recording
                text = "vero: the cassette %s could not be written (%s); recording stops here"
                log.warning(text, self.path, exc.strerror or exc)
                return
            for key in _keys_of(request):
                self._entries[key].append(offset)
                self._played[key] += 1  # this reply was just given live

    def _append(self, line: bytes) -> int:
        """Write ``line`` at the file's end, and return where it starts.  One write of the whole line with
        ``O_APPEND``: processes sharing the file never interleave lines.  A write the disk took only part of (full,
        over a quota or a size limit) is taken back, so that the file stays one a replay can read."""
        fd = os.open(self._file, os.O_RDWR | os.O_APPEND)
        try:
            offset = os.lseek(fd, -1, os.SEEK_END) + 1  # never empty: its header was checked or written
            if os.read(fd, 1) != b"\n":  # a header written by hand without its newline
                offset += os.write(fd, b"\n")
            if os.write(fd, line) < len(line):
                os.ftruncate(fd, offset)
                raise OSError(errno.ENOSPC, "only part of an entry was written")
            return offset
        finally:
            os.close(fd)

    def miss_message(self, request: dict[str, Any]) -> str:
        """Why ``request`` is not in the cassette: the first difference from the nearest recorded request, as
        ``request_key`` compares them."""
        sent = _leaves(_whole_numbers(_for_file(request)))
        every = (_leaves(_whole_numbers(entry["request"])) for _, entry in self._scan())  # one at a time: big files
        nearest = max(every, key=lambda recorded: _common_prefix(sent, recorded), default=None)
        where = f"not in the cassette {self.path}"
        if nearest is None:
            return f"model request {where}, which holds no requests"
        return f"model request {where}; it differs from the nearest recorded request at {_difference(sent, nearest)}"

    def recorded_json_schema(self) -> bool | None:
        """``ChatOpenAI.supports_json_schema``'s answer when this was recorded, as its requests show (one asked
        for a reply in a JSON schema): a replay asks no endpoint.  None when the endpoint may be asked: in
        ``record`` mode, and in ``replay_then_live`` when no recorded request shows it."""
        if self.mode == "record":
            return None
        formats = (entry["request"].get("response_format") for _, entry in self._scan())
        if any(isinstance(answer, dict) and answer.get("type") == "json_schema" for answer in formats):
            return True
        return False if self.replays_only else None

    # -- reading the file ---------------------------------------------------------
    def _scan(self) -> Any:
        """``(offset, entry)`` of every entry, each line checked; a bad line raises ``CassetteError``."""
        with open(self._file, "rb") as file:
            header = file.readline(MAX_LINE_BYTES + 1)
            _check_header(self.path, header)
            number, offset = 1, file.tell()
            while True:
                line = file.readline(MAX_LINE_BYTES + 1)
                if not line:
                    return
                number += 1
                if line.strip():  # a blank line (an editor's, between entries or at the end) holds no entry
                    yield offset, _entry(self.path, number, line)
                offset = file.tell()

    def _entry_at(self, offset: int, key: str) -> dict[str, Any]:
        """The entry at ``offset``, which must still be the one recorded for the request of ``key``: a cassette
        written again while in use raises a ``CassetteError``, never another request's reply."""
        with open(self._file, "rb") as file:
            file.seek(offset)
            entry = _entry(self.path, 0, file.readline(MAX_LINE_BYTES + 1))
        if key not in _keys_of(entry["request"]):
            raise CassetteError(f"{self.path}: the cassette changed while it was in use; open it again")
        return entry


def _keys_of(request: dict[str, Any]) -> list[str]:
    """The keys a request is found under: with the keys in use masked (vero's other clients', the CLI's search keys:
    ``add`` writes it so), and as it stands (recorded before such a key was in use)."""
    return list(dict.fromkeys([request_key(hide_secrets_in(request, (), names=False)), request_key(request)]))


def request_key(request: dict[str, Any]) -> str:
    """The request as the cassette compares it: its body as canonical JSON, hashed."""
    text = json.dumps(_whole_numbers(_for_file(request)), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _whole_numbers(value: Any) -> Any:
    """``value`` with each whole float an int: ``0.0`` and ``0`` are one JSON number (``TEMPERATURE=0`` in the
    environment is ``0.0``, ``temperature=0`` in code ``0``), so one request."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(item) for item in value]
    return value


def reply_body(message: Message) -> dict[str, Any]:
    """A reply as a chat completion body, the form ``ChatOpenAI`` reads, whether it came streamed or not."""
    data = message.to_dict()
    if message.reasoning:
        data["reasoning_content"] = message.reasoning
    return {"choices": [{"message": data, "finish_reason": message.finish_reason}], "usage": message.usage}


def _replayed(reply: dict[str, Any]) -> dict[str, Any]:
    """A recorded reply body; a refusal ``Cassette.add`` kept is raised as the ``LLMCallError`` it was."""
    error = reply.get("error")
    if isinstance(error, dict) and error.get("status") in REFUSED_STATUSES:
        raise LLMCallError(str(error.get("message")), status=error["status"], parameter=error.get("parameter"))
    return reply


def _for_file(request: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in request.items() if key not in DELIVERY_KEYS}


def _checksum(request: dict[str, Any], reply: Any) -> str:
    text = json.dumps([request, reply], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _check_header(path: Path, line: bytes) -> None:
    try:
        header = json.loads(line)
    except (ValueError, RecursionError):  # nested too deeply for the decoder: no header either
        header = None
    if not isinstance(header, dict) or type(header.get("vero_cassette")) is not int:  # true == 1 in Python
        raise CassetteError(f"{path}, line 1: not a vero cassette (no header line)")
    if header["vero_cassette"] != FORMAT:
        raise CassetteError(
            f"{path}, line 1: cassette format {header['vero_cassette']!r}; this vero reads format {FORMAT}: "
            "record it again"
        )


def _entry(path: Path, number: int, line: bytes) -> dict[str, Any]:
    where = f"{path}, line {number}" if number else str(path)
    if len(line) > MAX_LINE_BYTES:
        raise CassetteError(f"{where}: longer than {MAX_LINE_BYTES} bytes; not read")
    if not line.endswith(b"\n"):
        raise CassetteError(f"{where}: cut off (the line does not end); record the cassette again")
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise CassetteError(f"{where}: not valid JSON ({exc})") from None
    if not isinstance(entry, dict) or not all(isinstance(entry.get(key), dict) for key in ("request", "reply")):
        raise CassetteError(f"{where}: not a cassette entry (needs 'request', 'reply' and 'check')")  # a null reply too
    try:
        intact = entry.get("check") == _checksum(entry["request"], entry["reply"])
        request_key(entry["request"])  # as a replay reads it
    except UnicodeEncodeError:  # half a surrogate pair ("\ud800"), which vero never writes
        intact = False
    except RecursionError:  # valid JSON nested past what Python reads: no request vero sends
        raise CassetteError(f"{where}: nested too deeply to read; record the cassette again") from None
    if not intact:
        raise CassetteError(f"{where}: changed after it was recorded (its check does not match); record it again")
    return entry


def _leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """``value``'s scalars with their paths (``messages[2].content``), in a fixed order: at the top,
    the model first and the conversation last, so that the first difference is the telling one."""
    if isinstance(value, dict):
        if not value:
            return [(path, {})]
        keys = sorted(value, key=lambda key: (_TOP_ORDER.get(key, 1), key)) if not path else sorted(value)
        return [leaf for key in keys for leaf in _leaves(value[key], f"{path}.{key}" if path else key)]
    if isinstance(value, list):
        if not value:
            return [(path, [])]
        return [leaf for i, item in enumerate(value) for leaf in _leaves(item, f"{path}[{i}]")]
    return [(path, value)]


_TOP_ORDER = {"model": 0, "tools": 2, "messages": 3}  # other options (temperature, stop...) in between


def _common_prefix(a: list[tuple[str, Any]], b: list[tuple[str, Any]]) -> int:
    """How many leading leaves ``a`` and ``b`` share."""
    for count, (left, right) in enumerate(zip(a, b)):
        if left != right or type(left[1]) is not type(right[1]):  # true is not 1 in JSON, nor in the key
            return count
    return min(len(a), len(b))


def _difference(sent: list[tuple[str, Any]], recorded: list[tuple[str, Any]]) -> str:
    """The first leaf where the two requests part, said in words."""
    at = _common_prefix(sent, recorded)
    mine = sent[at] if at < len(sent) else None
    theirs = recorded[at] if at < len(recorded) else None
    if mine and theirs and mine[0] == theirs[0]:  # shown from a little before the first character that differs
        at = len(os.path.commonprefix([json.dumps(v, ensure_ascii=False) for v in (theirs[1], mine[1])]))
        return f"{mine[0]}: recorded {_shown(theirs[1], at)}, sent {_shown(mine[1], at)}"
    if mine and theirs and not _holds(sent, theirs[0]):  # the request lacks what the recording has here (a stop)
        mine = None
    elif mine and theirs and not _holds(recorded, mine[0]):  # it has what the recording lacks
        theirs = None
    if mine and theirs:
        return f"{mine[0]} (sent {_shown(mine[1])}) where the recording has {theirs[0]} ({_shown(theirs[1])})"
    if mine:
        return f"{mine[0]}: sent {_shown(mine[1])}, which the recording does not have"
    if theirs:
        return f"{theirs[0]}: recorded {_shown(theirs[1])}, which the request does not have"
    return "nothing (the same request, asked more often than recorded)"


def _holds(leaves: list[tuple[str, Any]], path: str) -> bool:
    """``leaves`` have something at ``path``: that leaf, or one inside it or around it (parts for a string)."""
    return any(
        p == path or p.startswith((path + ".", path + "[")) or path.startswith((p + ".", p + "[")) for p, _ in leaves
    )


def _shown(value: Any, at: int = 0, limit: int = 80) -> str:
    """``value`` as JSON, clipped to ``limit`` characters from a little before character ``at``."""
    text = json.dumps(value, ensure_ascii=False)
    start = max(0, at - 20) if len(text) > limit else 0
    return ("..." if start else "") + text[start : start + limit] + ("..." if start + limit < len(text) else "")
