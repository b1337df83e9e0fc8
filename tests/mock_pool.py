"""Reuse running ``MockOpenAIServer``s between tests, for speed.

Starting and stopping a ``MockOpenAIServer`` costs ~50 ms (its serve loop polls for a
shutdown request every 50 ms), and the suite would start hundreds.  ``pooled_mock_server``
is a drop-in for ``with MockOpenAIServer(replies, ...) as srv:``: it lends an idle,
running server, reset to as good as new (``reset_mock_server``), and takes it back at
the end of the block, waking any handler still in a ``Fault.sleep`` as ``stop()`` would.
Servers in use at the same time are different servers, so nesting works.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from vero.testing import MockOpenAIServer

_IDLE: list[MockOpenAIServer] = []
_OPTIONS = ("responder", "latency", "model", "stream_chunk_chars", "reject_response_format")


def reset_mock_server(server: MockOpenAIServer) -> None:
    """Make a running ``MockOpenAIServer`` as good as a new one, on the same port.

    The script, routes, responder and every record are cleared, the constructor's
    defaults restored, and a handler still inside a ``Fault.sleep`` of the previous
    user is woken up, as ``stop()`` would wake it.
    """
    fresh = MockOpenAIServer()  # the defaults and the empty records, never started
    wake_sleepers(server)
    with server._lock:
        server._replies.clear()
        server._routes.clear()
        server._completions = 0
        server._call_ids = fresh._call_ids
        for name in (
            *_OPTIONS,
            "requests",
            "request_log",
            "handler_seconds",
            "sleep_seconds",
            "connections_accepted",
            "errors",
        ):
            setattr(server, name, getattr(fresh, name))


def wake_sleepers(server: MockOpenAIServer) -> None:
    """End the ``Fault.sleep`` waits of a running server, and keep it serving."""
    server._stopping.set()
    server._stopping.clear()


@contextlib.contextmanager
def pooled_mock_server(replies: Any = None, **options: Any) -> Iterator[MockOpenAIServer]:
    """``with pooled_mock_server(replies, responder=..., latency=...) as srv:`` -- like
    ``with MockOpenAIServer(replies, ...) as srv:``, on a reused server."""
    unknown = set(options) - set(_OPTIONS)
    if unknown:  # host, port: a server of its own
        with MockOpenAIServer(replies, **options) as server:
            yield server
        return
    server = _IDLE.pop() if _IDLE else MockOpenAIServer().start()
    reset_mock_server(server)
    for name, value in options.items():
        setattr(server, name, value)
    if replies is not None:
        server.enqueue(*(replies if isinstance(replies, (list, tuple)) else [replies]))
    try:
        yield server
    finally:
        wake_sleepers(server)
        _IDLE.append(server)


def stop_idle() -> None:
    """Stop the pooled servers (at the end of the session)."""
    while _IDLE:
        _IDLE.pop().stop()
