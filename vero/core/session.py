"""Saving and loading a conversation as JSON, atomically.

``load_session`` trusts nothing in the file: whatever is wrong with it (not JSON, nested too deeply, a field of the
wrong type, an unknown version) raises ``SessionFormatError`` and nothing else, so a caller can keep its conversation.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from vero.core.files import check_regular_or_missing, read_regular, with_path
from vero.core.message import Message
from vero.core.secrets import hide_secrets_in
from vero.errors import SessionFormatError

SESSION_FORMAT = "vero.session"
SESSION_VERSION = 1
MAX_SESSION_BYTES = 64 << 20  # /load reads at most this much (and save writes): far above a long conversation
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def atomic_write(path: str, text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves the old file intact: a temporary file in the same
    folder, flushed to disk, renamed over ``path`` (a symlink's target, as ``open`` would write).  Only a
    regular file (or a new name) is replaced, keeping its mode and owner; errors name ``path``."""
    real = os.path.realpath(path)
    try:
        old = check_regular_or_missing(real)
        fd, tmp = tempfile.mkstemp(prefix=".vero-", suffix=".tmp", dir=os.path.dirname(real))
    except OSError as exc:
        raise with_path(exc, path) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            if old is not None:
                _keep_mode_and_owner(file.fileno(), old)
            os.fsync(file.fileno())
        os.replace(tmp, real)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise with_path(exc, path) from exc
        raise


def _keep_mode_and_owner(fd: int, old: os.stat_result) -> None:
    """Give the new file the old one's permission bits and owner (only root may give a file away)."""
    os.fchmod(fd, stat.S_IMODE(old.st_mode))
    if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        with contextlib.suppress(PermissionError):  # a user saving over a file it does not own: it becomes theirs
            os.fchown(fd, old.st_uid, old.st_gid)


def save_session(
    path: str, agent_name: str, agent_class: str, history: list[Message], secrets: Sequence[str | None] = ()
) -> None:
    """Write ``history`` to ``path`` (atomically), each key of ``secrets`` masked (``vero.core.secrets``)."""
    data = {
        "format": SESSION_FORMAT,
        "version": SESSION_VERSION,
        "agent": agent_name,
        "agent_class": agent_class,
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "history": hide_secrets_in([m.to_record() for m in history], secrets),
    }
    # UTF-8, a lone surrogate (no UTF-8 character) as JSON's escape: any text round-trips through the file
    text = _LONE_SURROGATE.sub(lambda char: f"\\u{ord(char[0]):04x}", json.dumps(data, ensure_ascii=False, indent=1))
    if len(text.encode("utf-8")) > MAX_SESSION_BYTES:
        raise ValueError(f"the conversation is larger than load reads back ({MAX_SESSION_BYTES >> 20} MiB): not saved")
    atomic_write(path, text)


def load_session(path: str) -> list[Message]:
    """Read a saved session's history; raise ``SessionFormatError`` if unusable."""
    data = _read_json(path)
    if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
        raise SessionFormatError(f"{path!r} is not a vero session file")
    version = data.get("version")
    if type(version) is not int or version < 1:  # type(): True is no version
        raise SessionFormatError(f"{path!r} has an invalid session format version {version!r}")
    if version > SESSION_VERSION:
        raise SessionFormatError(
            f"{path!r} has session format version {version!r}; this vero reads up to {SESSION_VERSION}"
        )
    history = data.get("history")
    if not isinstance(history, list):
        raise SessionFormatError(f"{path!r} has no history list")
    try:
        messages = [_message(number, item) for number, item in enumerate(history, 1)]
        _check_conversation(messages)
    except (KeyError, TypeError, ValueError, RecursionError) as exc:
        raise SessionFormatError(f"{path!r} has a corrupted history: {exc}") from exc
    return messages


def _check_conversation(messages: list[Message]) -> None:
    """A ``ValueError`` naming the first message a chat API would refuse: a user's with no content, an assistant's
    with neither content nor calls or with two calls of one id, a call left unanswered, a tool's answer to no call
    before it, a tool call on another's message than the assistant's.  Loaded so, a history would fail every
    later turn, and a failed turn mends nothing."""
    waiting: set[str] = set()  # the ids of the calls message ``caller`` made, not yet answered
    caller = 0
    for number, message in enumerate(messages, 1):
        if message.role == "tool":
            if message.tool_call_id not in waiting or message.content is None:
                raise ValueError(f"message {number} answers no tool call made before it, or says nothing")
            waiting.discard(message.tool_call_id)
            continue
        if waiting:
            raise ValueError(f"message {caller} leaves tool calls unanswered: {', '.join(sorted(waiting))}")
        if message.content is None and not message.tool_calls:  # "" is text, as save writes what history holds
            raise ValueError(f"message {number} is the {message.role}'s, with no content")
        if message.role != "assistant" and (message.tool_calls or message.tool_call_id):  # only a model calls tools
            raise ValueError(f"message {number} is the {message.role}'s, with a tool call or a tool call's id")
        ids = [call.id for call in message.tool_calls or ()] if message.role == "assistant" else []
        if len(set(ids)) < len(ids):  # one answer would answer both
            raise ValueError(f"message {number} has two tool calls of one id")
        waiting, caller = set(ids), number
    if waiting:
        raise ValueError(f"message {caller} leaves tool calls unanswered: {', '.join(sorted(waiting))}")


def _read_json(path: str) -> Any:
    try:
        return json.loads(read_regular(path, MAX_SESSION_BYTES).decode("utf-8-sig"))  # an editor may add a BOM
    except RecursionError:  # json.load recurses once per level
        raise SessionFormatError(f"cannot read session file {path!r}: it is nested too deeply") from None
    except (OSError, ValueError) as exc:  # ValueError: not JSON, not UTF-8, a NUL in the path
        raise SessionFormatError(f"cannot read session file {path!r}: {exc}") from exc


def _message(number: int, item: Any) -> Message:
    """Message ``number`` of the history; the error names it."""
    try:
        return Message.from_dict(item)
    except KeyError as exc:
        raise ValueError(f"message {number} has no {exc}") from None
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"message {number}: {exc}") from None
