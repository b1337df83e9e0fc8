"""Settings read from the environment and an optional ``.env`` file.

Nothing here fails when nothing is configured: missing values are ``None`` and
the code that needs them (``ChatOpenAI``) says what to set.  ``settings`` is
built on first use, so ``import vero`` stays fast and does not read files.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from urllib.parse import urlsplit

log = logging.getLogger("vero")

# The settings vero reads whose plain names other tools use too: each is also read as VERO_<NAME>,
# which wins (MODEL_NAME set for another program then does not change vero's model).
PREFIXED = ("MODEL_NAME", "TEMPERATURE", "TIMEOUT", "MAX_RETRIES", "MAX_TOKENS", "MAX_CALL_SECONDS", "DEBUG")
# Every name vero reads as a setting, and so the only names a .env file may set (docs/configuration.md).
# Anything else in a .env (HTTPS_PROXY, SSL_CERT_FILE, SSLKEYLOGFILE, OPENAI_LOG ...) would change the whole
# process, how every HTTP client connects and whom it trusts, on the word of a file that may come with
# a folder someone else made: it is ignored, with one warning naming it.
SETTING_NAMES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    *PREFIXED,
    *(f"VERO_{name}" for name in PREFIXED),
    "TAVILY_API_KEY",
    "BOCHA_API_KEY",
    "VERO_TAVILY_URL",
    "VERO_BOCHA_URL",
    "VERO_DDG_URL",
    "VERO_PYTHON_SANDBOX",
)
# Safety switches: only the real environment (or code) may turn them off, never a .env file,
# which may come with a folder someone else made.
SAFETY_SWITCHES = ("VERO_PYTHON_SANDBOX",)
# An endpoint and the key sent to it: a .env naming the endpoint while the key comes from
# elsewhere sends your key to whoever wrote that .env.
ENDPOINT_KEYS = {
    "OPENAI_BASE_URL": "OPENAI_API_KEY",
    "VERO_TAVILY_URL": "TAVILY_API_KEY",
    "VERO_BOCHA_URL": "BOCHA_API_KEY",
}
# The settings that are keys: never shown, whichever setting's message would quote them.
KEY_NAMES = ("OPENAI_API_KEY", "TAVILY_API_KEY", "BOCHA_API_KEY")
_from_file: dict[str, tuple[str, str]] = {}  # setting name -> (the .env file it was taken from, its value)
_unread: list[tuple[str, int, str]] = []  # the lines of the .env read last that python-dotenv could not parse
_warned: set[str] = set()  # endpoints and files already warned about (once per process)


def _number(name: str, value: str | None, default, kind, low: float = -math.inf, what: str = ""):
    """``value`` as a ``kind``: a finite number of at least ``low`` (``what`` says so in the error)."""
    if value in (None, ""):
        return default
    try:
        number = kind(value)
    except ValueError:
        raise ValueError(f"setting {name}={value!r} is not a valid {kind.__name__}") from None
    if not (math.isfinite(number) and number >= low):  # nan, inf, a timeout of 0 s or -1 s
        raise ValueError(f"setting {name}={value!r} must be {what or 'a finite number'}")
    return number


def _cap(name: str, value: str | None, default: int | None) -> int | None:
    """An output cap: a positive int, or ``0``/``none`` for no cap."""
    if value is not None and value.strip().lower() in {"0", "none", "off"}:
        return None
    cap = _number(name, value, default, int)
    if cap is not None and cap < 0:
        raise ValueError(f"setting {name}={value!r} must be a positive number, or 0 for no cap")
    return cap


def _temperature(name: str, value: str | None, default: float | None) -> float | None:
    """A sampling temperature, or ``omit`` (``None``): the model's own default, no temperature sent."""
    if value is not None and value.strip().lower() == "omit":
        return None
    try:
        return _number(name, value, default, float)
    except ValueError:
        raise ValueError(f"setting {name}={value!r} is not a number, or omit (send no temperature)") from None


def _call_seconds(name: str, value: str | None) -> float | None:
    """``MAX_CALL_SECONDS``: seconds > 0, ``0``/``none``/``off`` for no limit (``math.inf``), unset: ``None``."""
    if value is not None and value.strip().lower() in {"0", "none", "off"}:
        return math.inf
    seconds = _number(name, value, None, float)
    if seconds is not None and not seconds > 0:
        raise ValueError(f"setting {name}={value!r} must be a number of seconds > 0, or 0 for no limit")
    return seconds


# The default MAX_CALL_SECONDS: time for a slow local model (2 tokens/s on a laptop CPU) to
# write a whole reply of the output cap, plus 5 minutes to read a long prompt first.
SLOW_TOKENS_PER_S = 2.0
PROMPT_SECONDS = 300.0
UNCAPPED_TOKENS = 8192  # the reply length assumed when there is no output cap


def call_seconds_for(max_tokens: int | None) -> float:
    """The default bound on one model call for an output cap of ``max_tokens`` (``None``: no cap):
    1024 tokens give 812 s, no cap 4396 s."""
    return PROMPT_SECONDS + (max_tokens or UNCAPPED_TOKENS) / SLOW_TOKENS_PER_S


_ON, _OFF = frozenset({"1", "true", "yes", "y", "on"}), frozenset({"0", "false", "no", "n", "off"})


def env_flag(value: str | None, default: bool) -> bool:
    """A yes/no switch from the environment (``DEBUG``, ``VERO_PYTHON_SANDBOX``): on or off words in any
    case, else ``default``, so an unclear value never turns a safety switch off."""
    word = (value or "").strip().lower()
    return True if word in _ON else False if word in _OFF else default


@dataclass
class Settings:
    """Everything vero reads from the environment (see ``.env.example``)."""

    OPENAI_API_KEY: str | None = None
    OPENAI_BASE_URL: str | None = None
    MODEL_NAME: str = "gpt-4o-mini"
    TEMPERATURE: float | None = 0.7  # None (TEMPERATURE=omit): no temperature is sent
    TIMEOUT: float | None = 60.0
    MAX_RETRIES: int = 2
    # Output cap per model call.  An agent step (a thought and a tool call, a plan,
    # a critique) needs well under 500 tokens and a complete function a few hundred;
    # 1024 leaves room for both, while a small model stuck repeating itself stops
    # after about a minute on a laptop CPU instead of filling its context window.
    MAX_TOKENS: int | None = 1024
    # The longest one model call may take, from connect to the last byte (None: the
    # default, from the output cap: see ``call_seconds_for``).  TIMEOUT bounds each wait.
    MAX_CALL_SECONDS: float | None = None
    DEBUG: bool = False
    TAVILY_API_KEY: str | None = None
    BOCHA_API_KEY: str | None = None
    # Where the search tool sends its queries (None: the provider's own address).
    VERO_TAVILY_URL: str | None = None
    VERO_BOCHA_URL: str | None = None
    VERO_DDG_URL: str | None = None

    @classmethod
    def from_env(cls, env_file: str | None = ".env", environ=None) -> Settings:
        """Read settings from ``environ`` (default: the environment, and vero's own settings in
        ``env_file``; the environment wins).  A bad setting is a ``ValueError`` that shows no key."""
        if environ is None:
            environ = {**read_env_file(env_file), **os.environ}
        try:
            return cls._read(environ)
        except ValueError as exc:  # it quotes the bad value, which may be a key pasted on the wrong line
            from vero.core.secrets import hide_secrets  # here: vero.core imports this module

            raise ValueError(hide_secrets(str(exc), keys_in(environ))) from None

    @classmethod
    def _read(cls, environ) -> Settings:
        """The settings of ``environ``, each checked (``from_env``)."""
        get = lambda name: environ.get(name) or None  # noqa: E731 - empty means unset
        key = lambda name: (environ.get(name) or "").strip() or None  # noqa: E731 - a pasted key's newline goes

        def named(name: str) -> tuple[str, str | None]:
            """The variable that sets ``name`` and its value: VERO_<NAME> wins over the plain name."""
            prefixed = f"VERO_{name}"
            return (prefixed, get(prefixed)) if get(prefixed) else (name, get(name))

        return cls(
            OPENAI_API_KEY=key("OPENAI_API_KEY"),
            OPENAI_BASE_URL=get("OPENAI_BASE_URL"),
            MODEL_NAME=named("MODEL_NAME")[1] or cls.MODEL_NAME,
            TEMPERATURE=_temperature(*named("TEMPERATURE"), cls.TEMPERATURE),
            TIMEOUT=_number(*named("TIMEOUT"), cls.TIMEOUT, float, 5e-324, "seconds above 0"),
            MAX_RETRIES=_number(*named("MAX_RETRIES"), cls.MAX_RETRIES, int, 0, "a whole number, 0 or more"),
            MAX_TOKENS=_cap(*named("MAX_TOKENS"), cls.MAX_TOKENS),
            MAX_CALL_SECONDS=_call_seconds(*named("MAX_CALL_SECONDS")),
            DEBUG=env_flag(named("DEBUG")[1], default=False),
            TAVILY_API_KEY=key("TAVILY_API_KEY"),
            BOCHA_API_KEY=key("BOCHA_API_KEY"),
            VERO_TAVILY_URL=get("VERO_TAVILY_URL"),
            VERO_BOCHA_URL=get("VERO_BOCHA_URL"),
            VERO_DDG_URL=get("VERO_DDG_URL"),
        )

    def __repr__(self) -> str:
        from vero.core.text import redact_url  # here: vero.core imports this module

        shown = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name.endswith("_KEY") and value:
                value = "***"
            elif f.name.endswith("_URL") and value:
                value = redact_url(value)
            shown.append(f"{f.name}={value!r}")
        return f"Settings({', '.join(shown)})"


def read_env_file(path: str | None) -> dict[str, str]:
    """vero's own settings in the ``.env`` file ``path`` (none if there is no such file).

    Only the names in ``SETTING_NAMES`` are taken, and never a safety switch turned off;
    every other name is ignored, with one warning naming it (values are never shown).
    Nothing is put into ``os.environ``.  Values are read as written (``${VAR}`` is not
    expanded: a file must not copy a key from the environment into a URL of its own).
    Each name taken is remembered, so that ``warn_if_endpoint_from_env_file`` can tell an
    endpoint from a file apart from one the user set.
    """
    _from_file.clear()
    _unread.clear()
    if not path or not os.path.isfile(path):
        return {}
    where = os.path.abspath(path)
    try:
        values = _dotenv_values(path, where)
    except (OSError, UnicodeDecodeError) as exc:  # unreadable, or not text: no setting comes from it
        log.warning("vero: ignored %s: it cannot be read (%s)", where, getattr(exc, "strerror", None) or exc)
        return {}
    taken, ignored = {}, []
    for name, value in values.items():
        if value is None:
            continue
        if name not in SETTING_NAMES:
            ignored.append(name)
        elif name in SAFETY_SWITCHES and not env_flag(value, default=True):
            _warn_safety_switch(name, value, where)
        else:
            taken[name] = value
            if name not in os.environ:  # the environment wins
                _from_file[name] = (where, value)
    if ignored:
        _warn_ignored(ignored, where)
    return taken


def _dotenv_values(path: str, where: str) -> dict[str, str | None]:
    """python-dotenv's ``dotenv_values(path, interpolate=False)``, with each line it could not parse (an
    unclosed quote) kept in ``_unread`` and warned about by file and line number: a setting on that line
    is not taken, and python-dotenv's own warning names neither."""
    from dotenv.parser import parse_stream  # here: only when a .env exists; python-dotenv costs a few ms

    values: dict[str, str | None] = {}
    with open(path, encoding="utf-8") as stream:  # as dotenv_values reads it
        for binding in parse_stream(stream):
            if binding.error:
                _unread.append((where, binding.original.line, _name_on(binding.original.string)))
            elif binding.key is not None:
                values[binding.key] = binding.value
    for file, line, name in _unread:
        log.warning("vero: %s line %d%s could not be read (an unclosed quote?): it sets nothing", file, line, name)
    return values


def _name_on(line: str) -> str:
    """`` (NAME)`` for a line that starts ``NAME=`` (never its value), else nothing."""
    from vero.core.text import printable  # here: vero.core imports this module

    start = line.lstrip().removeprefix("export ").split("=", 1)
    name = start[0].strip()
    return f" ({printable(name)})" if len(start) == 2 and name.isidentifier() else ""


def unread_lines() -> list[tuple[str, int, str]]:
    """The lines of the .env read last that could not be parsed: (its file, the line number, `` (NAME)`` or "")."""
    return list(_unread)


def _warn_safety_switch(name: str, value: str, where: str) -> None:
    log.warning(
        "vero: ignored %s=%s in %s: a .env file cannot switch off a safety setting "
        "(set it in the environment to do so)",
        name,
        value.strip().lower(),  # one of the off words (env_flag): no value of the user's own
        where,
    )


def _warn_ignored(names: list[str], where: str) -> None:
    """One warning per file and process: the names a .env may not set (never their values)."""
    if where in _warned:
        return
    _warned.add(where)
    from vero.core.text import printable  # here: vero.core imports this module

    log.warning(
        "vero: ignored %s in %s: a .env file sets only vero's own settings; process-wide variables "
        "(proxies, certificates, key logs, other programs' settings) are read from the environment only",
        printable(", ".join(sorted(names))),
        printable(where),
    )


def warn_if_endpoint_from_env_file(endpoint: str, key_given: bool = False) -> None:
    """Warn once if setting ``endpoint`` (e.g. ``OPENAI_BASE_URL``) came from a .env file but its key did not.

    ``key_given``: the key was passed in code, so it did not come from that file either.
    Called before the first request that would send the key there.
    """
    taken, key = _from_file.get(endpoint), ENDPOINT_KEYS[endpoint]
    if taken is None or endpoint in _warned:
        return
    source, url = taken
    if key_given:
        origin = "your code"
    elif os.environ.get(key):  # set in the environment (a key from the same file is its author's choice)
        origin = "the environment"
    else:
        return
    _warned.add(endpoint)
    try:
        host = urlsplit(url).hostname or "?"  # the host only: no user, password or path
    except ValueError:  # e.g. an unclosed [ of an IPv6 address
        host = "?"
    log.warning(
        "vero: warning: %s comes from %s (host %s) while %s comes from %s: your key will be sent to that host",
        endpoint,
        source,
        host,
        key,
        origin,
    )


def keys_in(environ: Mapping[str, str | None]) -> list[str]:
    """The API keys ``environ`` sets (``KEY_NAMES``), read as ``Settings`` reads them: to mask them."""
    values = ((environ.get(name) or "").strip() for name in KEY_NAMES)
    return [value for value in values if value]


def known_keys() -> list[str]:
    """The API keys of the environment and ./.env, even while another setting is not valid: a
    message made before the settings are (a command-line usage error) must not show them either."""
    try:
        settings = get_settings()
    except ValueError:  # read them alone
        return keys_in({**read_env_file(".env"), **os.environ})
    return keys_in({name: getattr(settings, name) for name in KEY_NAMES})


_settings: Settings | None = None


def get_settings() -> Settings:
    """The process-wide settings, read once on first use."""
    global _settings
    if _settings is None:
        _settings = Settings.from_env()
    return _settings


def reload_settings(**overrides) -> Settings:
    """Re-read the environment (tests and the CLI use this after changing it)."""
    global _settings
    _settings = Settings.from_env()
    for name, value in overrides.items():
        setattr(_settings, name, value)
    return _settings


def __getattr__(name: str):
    # ``from vero.config import settings`` builds the settings lazily.
    if name == "settings":
        return get_settings()
    raise AttributeError(f"module 'vero.config' has no attribute {name!r}")
