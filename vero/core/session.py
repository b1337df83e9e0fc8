"""Saving and loading a conversation as JSON, atomically."""

from __future__ import annotations

import json
import os
import tempfile
import time

from vero.core.message import Message
from vero.errors import SessionFormatError

SESSION_FORMAT = "vero.session"
SESSION_VERSION = 1


def atomic_write(path: str, text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves the old file intact.

    The text goes to a temporary file in the same folder, is flushed to disk,
    and then renamed over ``path`` in one step.
    """
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".vero-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save_session(path: str, agent_name: str, agent_class: str, history: list[Message]) -> None:
    data = {
        "format": SESSION_FORMAT,
        "version": SESSION_VERSION,
        "agent": agent_name,
        "agent_class": agent_class,
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "history": [m.to_record() for m in history],
    }
    # ensure_ascii: any text, even a lone surrogate, round-trips through the file.
    atomic_write(path, json.dumps(data, ensure_ascii=True, indent=1))


def load_session(path: str) -> list[Message]:
    """Read a saved session's history; raise ``SessionFormatError`` if unusable."""
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except (OSError, ValueError) as exc:
        raise SessionFormatError(f"cannot read session file {path!r}: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
        raise SessionFormatError(f"{path!r} is not a vero session file")
    version = data.get("version")
    if not isinstance(version, int) or version > SESSION_VERSION:
        raise SessionFormatError(
            f"{path!r} has session format version {version!r}; this vero reads up to {SESSION_VERSION}"
        )
    try:
        return [Message.from_dict(item) for item in data["history"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise SessionFormatError(f"{path!r} has a corrupted history: {exc}") from exc
