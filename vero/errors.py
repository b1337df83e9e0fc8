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
        """Refused as asked (a parameter, a bad request, the key, a permission, no such model): asking again,
        or in another attempt or step, fares the same.  A timeout or an overloaded server may pass."""
        return bool(self.parameter) or self.status in (400, 401, 403, 404)


class ScriptExhaustedError(VeroError):
    """A ScriptedLLM was called more times than it has scripted replies."""


class SessionFormatError(VeroError):
    """A saved session file is corrupted or from a newer, unknown format."""


class Cancelled(VeroError):
    """The run was cancelled (``Agent.cancel()``, e.g. Ctrl-C in ``run_many``).

    Raised inside the run at its next model or tool call; ``run()`` catches it
    and ends with status ``cancelled``.
    """
