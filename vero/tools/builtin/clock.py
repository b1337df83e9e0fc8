"""The current local time: models do not know what day it is."""

from __future__ import annotations

from datetime import datetime

from vero.tools.base import tool


@tool(read_only=True)
def current_time() -> str:
    """Return the current local date and time in ISO 8601 format, with the UTC offset."""
    now = datetime.now().astimezone()
    return f"{now.isoformat(timespec='seconds')} ({now.strftime('%A')}, {now.tzname()})"
