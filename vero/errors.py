"""Exceptions that vero raises on purpose, so callers can catch them by name."""

from __future__ import annotations


class VeroError(Exception):
    """Base class of every error vero raises deliberately."""


class LLMConfigError(VeroError):
    """The model endpoint is not configured (no API key or base URL)."""


# What a request the server refused as sent comes back as (a refused response_format, a parameter it does not take):
# a bad request (llama.cpp, vLLM, OpenAI), a body it cannot process (422), a feature it does not implement (501).
REFUSED_STATUSES = (400, 415, 422, 501)


class LLMCallError(VeroError):
    """A model call failed after the SDK's own retries.

    ``status`` is the HTTP status code when the server answered, else ``None``;
    ``parameter`` the request parameter a 400 names: its error body's ``param`` (OpenAI's: ``messages``
    for a context too long), else the one its message says was refused
    (``vero.core.providers.refused_parameter``), else ``None``.
    The original SDK exception is chained as ``__cause__``.
    """

    def __init__(self, message: str, status: int | None = None, parameter: str | None = None):
        super().__init__(message)
        self.status = status
        self.parameter = parameter

    def __reduce__(self):  # keep `status` and `parameter` through pickling (process pools)
        return type(self), (str(self), self.status, self.parameter)

    @property
    def for_good(self) -> bool:
        """Refused for what every request sends (a parameter it names, the key, a permission, no such model):
        another attempt or step fares the same.  A timeout, an overloaded server, a request too long (its
        ``messages``) or a 400 that names nothing (a content filter) may pass with another request."""
        return self.parameter not in (None, "", "messages") or self.status in (401, 403, 404)


class ScriptExhaustedError(VeroError):
    """A ScriptedLLM was called more times than it has scripted replies."""


class SessionFormatError(VeroError):
    """A saved session file is corrupted or from a newer, unknown format."""


class Cancelled(VeroError):
    """The run was cancelled (``Agent.cancel()``, e.g. Ctrl-C in ``run_many``).

    Raised inside the run at its next model or tool call; ``run()`` catches it
    and ends with status ``cancelled``.
    """
