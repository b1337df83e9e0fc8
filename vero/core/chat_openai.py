"""``ChatOpenAI``: a thin wrapper over the official ``openai`` SDK, for any OpenAI-compatible endpoint
(OpenAI, DeepSeek, Qwen, vLLM, Ollama, llama.cpp ...).  Retries and timeouts are the SDK's own.  Responses
are read from the raw JSON body instead of the SDK's per-response model objects: the same request, retries
and error types, with less work per call (see ``_complete``).
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import logging
import math
import os
import re
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any, TypeGuard
from urllib.parse import urlsplit

from vero.config import Settings, call_seconds_for, get_settings, warn_if_endpoint_from_env_file
from vero.core.events import Event
from vero.core.message import BROKEN_OFF, BROKEN_OFF_REASONS, Message, ToolCall, as_api_dict
from vero.core.parsing import valid_text
from vero.core.providers import UNKNOWN, ModelFamily, model_family, output_cap, refused_parameter
from vero.core.result import add_usage, empty_usage, normalize_usage
from vero.core.secrets import hide_secrets, key_in_use, unread_password, url_credentials
from vero.core.secrets import mask_secret as _mask_secret  # the one masking rule for keys
from vero.core.text import clip, redact_url, redact_urls
from vero.core.thinking import ThinkingStream, split_thinking
from vero.errors import REFUSED_STATUSES, LLMCallError, LLMConfigError

log = logging.getLogger("vero.llm")

CONFIG_HELP = (
    "No model endpoint is configured. Set OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible provider such as "
    "DeepSeek or Qwen) in the environment or a .env file, or pass api_key=/base_url= to ChatOpenAI. A local "
    "OpenAI-compatible server (Ollama, vLLM, llama.cpp) works too: set OPENAI_BASE_URL, e.g. "
    "http://localhost:11434/v1, and no key is needed."
)
BAD_KEY = (
    "OPENAI_API_KEY (or api_key= / --api-key) has a space, a control character or a non-ASCII "
    "character inside; an API key is one run of printable ASCII characters: check how it was copied"
)
# A reply may hold at most this many characters per token of the output cap (text, reasoning and tool-call
# arguments together; a token is about 4 characters), and its HTTP body this many bytes per such character (JSON
# and server-sent-event framing).  A server that sends more ignores the cap: the reply is cut off, not unbounded.
REPLY_CHARS_PER_TOKEN = 16
REPLY_BYTES_PER_CHAR = 64
UNCAPPED_REPLY_TOKENS = 131_072  # the output cap assumed when there is none (a large context window)


def reply_char_limit(max_tokens: int | None) -> int:
    """The most characters a reply may have with an output cap of ``max_tokens`` (``None``: no cap)."""
    return REPLY_CHARS_PER_TOKEN * (max_tokens or UNCAPPED_REPLY_TOKENS)


OMIT = "omit"  # temperature="omit": no temperature is sent


def _endpoint(
    settings: Settings, api_key: str | None, base_url: str | None, cassette: Any
) -> tuple[str | None, str | None]:
    """The API key (a pasted newline stripped) and base URL, given or from the settings, checked here and not at the
    first call: an ``LLMConfigError`` for a key a header cannot carry, or for neither (and no replayed cassette)."""
    if not base_url and settings.OPENAI_BASE_URL:  # before any request: say if a .env chose where the key goes
        warn_if_endpoint_from_env_file("OPENAI_BASE_URL", key_given=bool(api_key))
    api_key = (api_key or settings.OPENAI_API_KEY or "").strip() or None
    if api_key and not all("!" <= char <= "~" for char in api_key):
        raise LLMConfigError(BAD_KEY)
    base_url = (base_url or "").strip() or (settings.OPENAI_BASE_URL or "").strip() or None  # a pasted space too
    if base_url and base_url.partition("://")[0].lower() not in ("http", "https"):  # a config error, not a connection
        suggestion = redact_url(_with_http(base_url))
        raise LLMConfigError(f"the base URL needs http:// or https:// in front: did you mean {suggestion}?")
    if base_url and (problem := base_url_problem(base_url)):  # before the SDK's own error, which shows it whole
        raise LLMConfigError(f"the base URL {problem}")
    if not (api_key or base_url or (cassette is not None and cassette.replays_only)):  # a replay needs no key
        raise LLMConfigError(CONFIG_HELP)
    return api_key, base_url


def _with_http(url: str) -> str:
    """``url`` as likely meant: ``http:/host`` mended, else ``http://`` before its host (``ftp://host``'s too)."""
    mended = re.sub(r"(?i)^(https?):/*", r"\1://", url)
    scheme, _, rest = url.partition("://")
    host = rest if rest and re.fullmatch(r"[A-Za-z][\w+.-]*", scheme) else url
    return mended if mended != url else "http://" + host.lstrip("/")


def base_url_problem(url: str) -> str | None:
    """Why ``url`` can be no base URL: it does not parse (``http://[::1``, a port that is no number) or names no
    host (``http://:8080``), with its credentials masked (it did not parse, so nothing else finds them); else None."""
    if unread_password(url):  # read as it stands, its password would be a path, a query or a port
        return f"{redact_url(url)!r} has a password holding / ? or #: write them as %2F, %3F and %23"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- reading the port checks it
        (parts.hostname or "").encode("idna")  # a host name's label empty or over 63 characters: a..b
    except ValueError as exc:  # UnicodeError too
        return f"{redact_url(url)!r} is not a valid URL: {redact_urls(str(exc))}"
    scheme, written, _ = url.partition("://")  # "http:/host" is the scheme check's to explain
    if written and scheme.lower() in ("http", "https") and not parts.hostname:
        return f"{redact_url(url)!r} has no host: give one, e.g. http://localhost:11434/v1"
    return None


def _one_model_name(model_name: str | None, model: str | None) -> str | None:
    """``model=`` (as the SDK and other frameworks spell it) is another name for ``model_name``."""
    if model is not None and model_name is not None and model != model_name:
        raise TypeError(
            f"ChatOpenAI got model_name={model_name!r} and model={model!r}: "
            "model is another name for model_name, so give only one"
        )
    return model if model_name is None else model_name


def _temperature(value: float | str | None) -> float | None:
    """A temperature to send, or None for "send none" (``"omit"``); ``ValueError`` for anything else."""
    if value is None or (isinstance(value, str) and value.strip().lower() == OMIT):
        return None
    if not _is_number(value):
        raise ValueError(f'temperature must be a number or "omit" (send none), got {value!r}')
    return value  # as given: 0 stays 0 in the request (a recorded request matches it)


class ChatOpenAI:
    """Chat model client: ``generate(messages) -> Message``.

    ``None`` arguments fall back to the settings (environment / ``.env``).  ``total_usage`` and ``calls`` accumulate
    over the instance's lifetime.  Instances with the same key, URL, timeout and retries share one SDK ``client`` (and
    its connection pool): closing it closes it for all of them; a forked process gets a new one.

    ``callbacks`` (``fn(event)``) hear each HTTP attempt: ``llm_request``, ``llm_response`` and ``llm_retry`` (the SDK
    retries, ``max_retries``).  ``timeout`` bounds each wait for the next bytes, ``max_call_seconds`` a whole call,
    retries included (``0``: no limit); a reply holds at most ``REPLY_CHARS_PER_TOKEN`` characters per token of the
    output cap.  Each request carries what the model's family takes (``vero.core.providers``); ``temperature="omit"``
    sends none.  ``model=`` is another name for ``model_name``.  All of it: docs/configuration.md.
    """

    def __init__(
        self,
        model_name: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        temperature: float | str | None = None,
        max_tokens: int | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        max_call_seconds: float | None = None,
        cassette: Any = None,
        *,
        model: str | None = None,
        reasoning_effort: str | None = None,
        **client_kwargs: Any,
    ) -> None:
        model_name = _one_model_name(model_name, model)
        settings = get_settings()
        api_key, self.base_url = _endpoint(settings, api_key, base_url, cassette)
        self.model_name = model_name or settings.MODEL_NAME
        self._set_sampling(settings, temperature, max_tokens, reasoning_effort)
        _check_seconds(timeout, max_call_seconds)
        self.timeout = settings.TIMEOUT if timeout is None else timeout
        self.max_retries = settings.MAX_RETRIES if max_retries is None else max_retries
        # None: from each request's output cap (``vero.config.call_seconds_for``); 0: no limit.
        call_seconds = settings.MAX_CALL_SECONDS if max_call_seconds is None else (max_call_seconds or math.inf)
        self.max_call_seconds: float | None = call_seconds
        self.total_usage = empty_usage()
        self.calls = 0
        self.cassette = cassette  # a vero.cassette.Cassette: requests looked up there before they are sent
        self.replayed = 0  # calls answered from the cassette (counted in ``calls`` too)
        self.callbacks: list[Callable[[Any], None]] = []
        self._lock = threading.Lock()
        self._secret = api_key or ""
        self._secrets = [self._secret, *url_credentials(self.base_url)]  # masked in the cassette, requests and replies
        for key in self._secrets:  # and in every agent's output
            key_in_use(key)
        self._json_schema: bool | None = None  # supports_json_schema(), once asked
        self._stream_usage = True  # stream_options asks a stream for its usage; False once a server refused it
        self._probe_lock = threading.Lock()

        import openai  # imported here: it takes ~0.5 s, and `import vero` should not pay it

        self._openai = openai
        self._client_args = (api_key or "not-needed", self.base_url, self.timeout, self.max_retries, client_kwargs)
        self.client = _openai_client(*self._client_args)
        log.debug("ChatOpenAI ready: model=%s base_url=%s", self.model_name, self.shown_url)

    def _set_sampling(
        self, settings: Settings, temperature: float | str | None, max_tokens: int | None, reasoning_effort: str | None
    ) -> None:
        """The temperature, output cap and reasoning effort, and which of them the user chose."""
        self.temperature = _temperature(settings.TEMPERATURE if temperature is None else temperature)
        # None: the MAX_TOKENS setting (default 1024); 0: no cap.
        self.max_tokens = settings.MAX_TOKENS if max_tokens is None else (max_tokens or None)
        # vero's default cap, not the user's: a family's own default cap may replace it (providers.ModelFamily)
        self._default_cap = max_tokens is None and settings.MAX_TOKENS == Settings.MAX_TOKENS
        if reasoning_effort is not None and not (isinstance(reasoning_effort, str) and reasoning_effort.strip()):
            raise ValueError(f'reasoning_effort must be a word such as "low" or "high", got {reasoning_effort!r}')
        self.reasoning_effort = reasoning_effort
        self._chose_temperature = temperature is not None  # the user's own choice: not sent is a warning
        self._not_sent: set[str] = set()  # the parameters said once not to be sent to this model

    @property
    def client(self) -> Any:
        """The SDK client, rebuilt (lazily) in a process forked after it was built: a forked child holds a
        copy of the parent's connection pool, and two processes reading replies from one socket swap them."""
        if self._client_pid != os.getpid():
            self._lock = threading.Lock()  # a copy of a lock may be held by a thread that did not fork
            self.client = _openai_client(*self._client_args)
        return self._client

    @client.setter
    def client(self, client: Any) -> None:
        self._client, self._client_pid = client, os.getpid()

    @property
    def shown_url(self) -> str | None:
        """The base URL as vero prints and logs it: without credentials (``redact_url``)."""
        return redact_url(self.base_url) if self.base_url else self.base_url

    def __repr__(self) -> str:
        return f"ChatOpenAI(model_name={self.model_name!r}, base_url={self.shown_url!r})"

    @property
    def family(self) -> ModelFamily:
        """What this model takes in a request (``vero.core.providers``; ``UNKNOWN``: everything)."""
        return model_family(self.model_name)

    @property
    def hosted(self) -> bool:
        """True for a hosted provider's model (``vero.core.capabilities.is_hosted``): tool-calling agents
        send it a plain prompt, without the text-call guide small local models need, and no ``stop``."""
        from vero.core.capabilities import is_hosted

        return is_hosted(self.base_url, self.model_name)

    # -- public API ----------------------------------------------------------
    def generate(
        self,
        messages: Iterable[Message | dict[str, Any]],
        *,
        tools: list[Any] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        stop: str | list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        stream: bool = False,
        on_token: Callable[[str], None] | None = None,
    ) -> Message | TextStream:
        """Send one chat request; the assistant ``Message``.  With ``stream=True``, a ``TextStream``: iterate
        it for text deltas; afterwards its ``message`` holds the full reply.  With ``on_token`` the request is
        streamed, each answer delta goes to the callback, and the full ``Message`` is returned."""
        request: dict[str, Any] = {  # what the model's family takes (vero.core.providers)
            "model": self.model_name,
            "messages": [as_api_dict(m) for m in messages],
            **self.sent_options({"stop": stop, "temperature": temperature, "max_tokens": max_tokens}),
        }
        if tools:
            request["tools"] = [getattr(t, "schema", t) for t in tools]
            if tool_choice is not None:
                request["tool_choice"] = tool_choice
        if response_format is not None:
            request["response_format"] = response_format
        if stream:
            return TextStream(self, request)
        if on_token is not None:
            text_stream = TextStream(self, request)
            deltas = iter(text_stream)
            with contextlib.closing(deltas):  # left early (on_token raised: a cancelled run): the reply's stream too
                for delta in deltas:
                    on_token(delta)
            assert text_stream.message is not None  # set when the stream is exhausted
            return text_stream.message
        return self._complete(request)

    def supports_json_schema(self) -> bool:
        """True when this endpoint is known to constrain replies to ``response_format``'s JSON schema (hosted endpoints
        by host, a local server by one probe: ``vero.core.capabilities``); asked once, never raises (unknown: False)."""
        with self._probe_lock:
            if self._json_schema is None:
                from vero.core.capabilities import json_schema_support

                # no probe when the model's family takes no JSON schema (vero.core.providers), nor when a replay
                # knows the answer from the recording (in replay mode it always does: nothing reaches the endpoint)
                taken = "json_schema" in self.family.response_formats
                recorded = self.cassette.recorded_json_schema() if taken and self.cassette else None
                self._json_schema = taken and (
                    recorded if recorded is not None else json_schema_support(self.base_url, self._secret or None)
                )
            return self._json_schema

    # -- steps ---------------------------------------------------------------
    def sent_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """``stop``, the temperature, the output cap (under the family's name for it) and the reasoning
        effort of a request with these ``generate`` options, as this model takes them (a trace records them too)."""
        family = self.family
        sent: dict[str, Any] = {}
        if options.get("stop") and family.stop:
            sent["stop"] = options["stop"]
        call_temperature = options.get("temperature")  # this call's own, else the client's
        temperature = self.temperature if call_temperature is None else _temperature(call_temperature)
        if temperature is not None:
            if family.temperature:
                sent["temperature"] = temperature
            else:
                self._say_not_sent("temperature", family, call_temperature is not None or self._chose_temperature)
        cap = options.get("max_tokens") or (self._default_cap and family.default_cap) or self.max_tokens
        if cap:
            sent[family.cap_parameter] = cap
        if self.reasoning_effort is not None:
            if family.reasoning_effort or family is UNKNOWN:
                sent["reasoning_effort"] = self.reasoning_effort
            else:
                self._say_not_sent("reasoning_effort", family, True)
        return sent

    def _say_not_sent(self, name: str, family: ModelFamily, chosen: bool) -> None:
        """Log once per client and parameter that ``name`` is not sent: a warning when the user chose a value for it."""
        if name not in self._not_sent:
            self._not_sent.add(name)
            text = "vero: %s is not sent to %s: the %s models do not take it (vero.core.providers)"
            log.log(logging.WARNING if chosen else logging.DEBUG, text, name, self.model_name, family.name)

    def _complete(self, request: dict[str, Any]) -> Message:
        replayed = self._replay(request)
        if replayed is not None:
            return replayed
        try:
            # The SDK's generic POST: `chat.completions.create`'s retries, timeouts and error types,
            # without its per-call walk over every message and its response model objects.
            with _Attempts(self, request):
                body = self.client.post("/chat/completions", body=request, cast_to=object)
        except self._openai.OpenAIError as exc:
            raise self._call_error(exc, request) from _limit_of(exc) or exc
        except UnicodeEncodeError as exc:  # before ValueError: it is one
            raise LLMCallError(f"the request has text that cannot be sent as UTF-8 ({exc.reason})") from exc
        except (ValueError, RecursionError) as exc:  # a 200 whose body is not JSON, or nested past what Python reads
            problem = "JSON nested too deeply to read" if isinstance(exc, RecursionError) else f"invalid JSON: {exc}"
            raise LLMCallError(f"model endpoint returned {problem}") from exc
        message = _message_from_body(body, self._secret)
        if _reply_chars(message) > reply_char_limit(output_cap(request)):
            raise LLMCallError("model call failed: " + _too_large(output_cap(request), "characters"))
        self._count(message.usage)
        self._keep(request, message)
        return message

    def _replay(self, request: dict[str, Any]) -> Message | None:
        """The cassette's reply to ``request``, counted like a call; None when the model must answer."""
        body = None if self.cassette is None else self.cassette.lookup(request, secrets=self._secrets)
        if body is None:
            return None
        message = _message_from_body(body)
        self._count(message.usage)
        with self._lock:
            self.replayed += 1
        details = {"model": self.model_name, "cassette": str(self.cassette.path)}
        _notify(self, Event("llm_replay", "", details, time.time()))
        return message

    def _keep(self, request: dict[str, Any], message: Message | LLMCallError) -> None:
        """Write a live reply, or a refusal (``Cassette.add``), to the cassette, if there is one (the key masked)."""
        if self.cassette is not None:
            self.cassette.add(request, message, secrets=self._secrets)

    def _count(self, usage: dict[str, Any] | None) -> None:
        with self._lock:
            self.calls += 1
            add_usage(self.total_usage, usage)

    def _call_error(self, exc: Exception, request: dict[str, Any]) -> LLMCallError:
        limit = _limit_of(exc)
        if limit is not None:  # MAX_CALL_SECONDS or the reply size: said in full, no SDK error name
            return LLMCallError(f"model call failed: {limit}")
        status, said = getattr(exc, "status_code", None), copy.deepcopy(getattr(exc, "body", None))  # as written
        _scrub(exc, self._secret, self._secrets)  # before its body is shown: a server may have echoed them
        text = redact_urls(f"{type(exc).__name__}: {exc}{_body_unsaid(exc, getattr(exc, 'body', None))}")
        prefix = f"model call failed (HTTP {status})" if status else "model call failed"
        refused = refused_parameter(said, sent=request) if status in REFUSED_STATUSES else None  # a request's key
        named = _named_parameter(said, request) if status in REFUSED_STATUSES else None
        refused, named = (_unsecret(name, self._secret, self._secrets) for name in (refused, named))
        if refused:
            prefix += f": the server refused the parameter {refused!r} for {self.model_name}"
        with contextlib.suppress(AttributeError, TypeError, ValueError):  # a Retry-After past the SDK's own cap
            response: Any = getattr(exc, "response", None)  # (the SDK's errors with a status carry it)
            wait = self.client._parse_retry_after_header(response.headers) if status in (429, 503) else None
            text += f" (the server asked to wait {wait:,.0f} s before a retry)" if wait and wait >= 1 else ""
        error = LLMCallError(f"{prefix}: {text}", status=status, parameter=named or refused)
        self._keep(request, error)  # a refusal of the body replays as this error (Cassette.add)
        return error


_clients: dict[tuple[Any, ...], Any] = {}
_clients_lock = threading.Lock()


def _forget_clients_after_fork() -> None:
    """A forked process must not reuse the parent's connections: two processes on one socket swap replies."""
    global _clients_lock
    _clients.clear()
    _clients_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_clients_after_fork)


def _openai_client(
    api_key: str, base_url: str | None, timeout: float | None, max_retries: int, client_kwargs: dict[str, Any]
) -> Any:
    """An ``openai.OpenAI`` client, shared (thread-safe, with its connection pool) between instances with the
    same settings: building one costs ~30 ms, and a batch makes one per agent.  Never with ``client_kwargs``."""
    settings: dict[str, Any] = dict(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries)
    if client_kwargs:
        return _watch_attempts(_sdk_client(settings, client_kwargs))
    key = (api_key, base_url, timeout, max_retries)
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = _watch_attempts(_sdk_client(settings))
        return client


def _sdk_client(settings: dict[str, Any], client_kwargs: dict[str, Any] | None = None) -> Any:
    """``openai.OpenAI(...)``; a base URL its HTTP library cannot send to (a host IDNA 2008 has no name for, as
    ``☃.example``) is an ``LLMConfigError``, its credentials masked, not the library's error."""
    import openai  # here, not at the top: it takes ~0.5 s, and `import vero` should not pay it

    try:
        return openai.OpenAI(**settings, **(client_kwargs or {}))
    except Exception as exc:  # httpx's InvalidURL, whichever package provides it
        if type(exc).__name__ != "InvalidURL":
            raise
        shown = redact_url(settings["base_url"] or "")
        raise LLMConfigError(f"the base URL {shown!r} is not a valid URL: {redact_urls(str(exc))}") from exc


# -- attempts and retries --------------------------------------------------------
# The SDK retries inside one `client.post(...)`; every attempt goes through its HTTP client's `send`, which
# `_watch_attempts` wraps.  `_Attempts` tells that wrapper which ChatOpenAI is calling in this thread, so the
# events reach its callbacks (and none are built when nobody listens), and the call's limits apply to every attempt.
_current = threading.local()


class _Attempts:
    """While a ``ChatOpenAI`` call runs in this thread: count its HTTP attempts, report them, and bound the call: its
    deadline (``max_call_seconds`` from the first connect to the last byte; each wait is shortened to fit it) and its
    reply's size, checked as the body is read (``_bound_body``), so that a reply that never ends is cut."""

    def __init__(self, llm: ChatOpenAI, request: dict[str, Any]) -> None:
        self.llm = llm
        self.attempt = 0
        self.failure: str | None = None
        self.outer: _Attempts | None = None
        self.max_tokens = output_cap(request)
        self.seconds = call_seconds_for(self.max_tokens) if llm.max_call_seconds is None else llm.max_call_seconds
        self.deadline = time.monotonic() + self.seconds
        self.max_bytes = REPLY_BYTES_PER_CHAR * reply_char_limit(self.max_tokens)
        self.received = 0
        self.hit: Exception | None = None
        self.retries_left = llm.max_retries  # the SDK's retries of this call
        self.listened = bool(llm.callbacks) or log.isEnabledFor(logging.INFO)

    def __enter__(self) -> _Attempts:
        self.outer = getattr(_current, "attempts", None)
        _current.attempts = self
        return self

    def __exit__(self, *exc_info: object) -> None:
        if getattr(_current, "attempts", None) is self:
            _current.attempts = self.outer

    def emit(self, type: str, **data: Any) -> None:
        if not self.listened:
            return
        llm = self.llm
        sent_to = {"url": llm.shown_url, "model": llm.model_name, "timeout": llm.timeout}
        data = {"attempt": self.attempt, "max_attempts": llm.max_retries + 1, **sent_to, **data}
        if type == "llm_retry":
            text = "llm_retry: attempt %s/%s to %s after %s"
            log.info(text, data["attempt"], data["max_attempts"], llm.shown_url, data.get("reason"))
        _notify(llm, Event(type, "", data, time.time()))

    def send(self, send: Callable[..., Any], request: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        self.attempt += 1
        if self.attempt > 1:
            self.emit("llm_retry", reason=self.failure)
        self.emit("llm_request")
        try:
            response = self.limited(send, request, args, kwargs)
        except BaseException as exc:
            self.failure = _mask_secret(redact_urls(_failure_reason(exc, self.llm.timeout)), self.llm._secret)
            self.emit("llm_response", ok=False, reason=self.failure)
            raise
        status = getattr(response, "status_code", 200)
        self.failure = f"HTTP {status}" if status >= 400 else None
        self.emit("llm_response", ok=status < 400, status=status)
        return response

    def limited(self, send: Callable[..., Any], request: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self.hit is not None:  # an SDK that retries every error (openai 1.x): do not send again
            raise self.hit
        self.check_time()
        _shorten_waits(request, self.deadline - time.monotonic())
        try:
            response = send(request, *args, **{**kwargs, "stream": True})
        except Exception as exc:
            self.check_time(exc)
            raise
        if response.status_code >= 400:  # an error the SDK may retry
            self.end_before_a_long_wait(response)
        _bound_body(response, self)
        if not kwargs.get("stream", False):  # what the SDK asked for: the whole body, read here within the limits
            try:
                response.read()
            except BaseException:
                response.close()
                raise
        return response

    def end_before_a_long_wait(self, response: Any) -> None:
        """End the call at once when the SDK would retry ``response`` only after the wait its ``Retry-After``
        asks (seconds or an HTTP date), and that wait ends past the deadline: sleeping first only fails later."""
        self.retries_left -= 1  # the SDK's own reading of the reply: its statuses and its longest wait
        client = self.llm.client
        try:
            retried, wait = client._should_retry(response), client._parse_retry_after_header(response.headers)
        except AttributeError:  # an SDK without these readers (private): its wait is bounded by the request's timeout
            return
        left, waits = self.deadline - time.monotonic(), wait is not None and math.isfinite(wait) and wait > 0
        if self.retries_left >= 0 and retried and waits and wait >= left:
            response.close()  # not read: the call ends here
            asked = f"the server asked to wait {wait:.3g} s before a retry, more than the {max(left, 0):.1f} s left"
            self.hit = _call_limit(f"{asked} of MAX_CALL_SECONDS={self.seconds:g} s")
            raise self.hit

    def check_time(self, cause: BaseException | None = None) -> None:
        """Raise the time limit once the deadline has passed (``cause``: the error it explains)."""
        if self.hit is None and time.monotonic() >= self.deadline - DEADLINE_SLACK_S:
            self.hit = _call_limit(
                f"it took longer than MAX_CALL_SECONDS={self.seconds:g} s, from connect to the last byte; "
                "the reply was cut off (a slow model needs a larger MAX_CALL_SECONDS)"
            )
        if self.hit is not None:
            raise self.hit from cause

    def count(self, size: int) -> None:
        """``size`` more bytes of the body arrived: raise if the reply is too large or too late."""
        self.received += size
        if self.hit is None and self.received > self.max_bytes:
            self.hit = _call_limit(_too_large(self.max_tokens, "bytes"))
        self.check_time()


def _notify(llm: ChatOpenAI, event: Event) -> None:
    """Tell ``llm``'s listeners; a broken listener (even one calling sys.exit) must not break the call."""
    for callback in list(llm.callbacks):
        try:
            callback(event)
        except KeyboardInterrupt:
            raise
        except BaseException:
            log.warning("llm listener %r failed on %s", callback, event.type, exc_info=True)


DEADLINE_SLACK_S = 0.01  # a wait shortened to end at the deadline may wake a little before it


def _too_large(max_tokens: int | None, unit: str) -> str:
    cap = f"max_tokens={max_tokens}" if max_tokens else "no output cap"
    scale = REPLY_BYTES_PER_CHAR if unit == "bytes" else 1  # the body's bytes per character of the reply
    limit, per = scale * reply_char_limit(max_tokens), scale * REPLY_CHARS_PER_TOKEN
    return (
        f"the reply is larger than {limit:,} {unit} ({per} per token of the output cap, {cap}), "
        "so it was cut off there; the server does not keep to the output cap"
    )


def _shorten_waits(request: Any, remaining: float) -> None:
    """Make no wait of ``request`` (connect, read, write, pool) longer than ``remaining`` seconds."""
    extensions: Any = getattr(request, "extensions", None)
    timeout = extensions.get("timeout") if isinstance(extensions, dict) else None
    if isinstance(timeout, dict) and math.isfinite(remaining):
        extensions["timeout"] = {
            name: max(0.0, remaining if wait is None else min(wait, remaining)) for name, wait in timeout.items()
        }


_EVENT_END = re.compile(rb"(?:\r\n|\r(?!\n)|\n){2}")  # a blank line, in any of the line ends streams use
_NOTHING_LINE = rb"(?::[^\r\n]{0,200}|data: ?\[DONE\][ \t]*)?"  # a comment, [DONE] or a blank line
_SAYS_NOTHING = re.compile(rb"(?:%s(?:\r\n|\r|\n))*%s" % (_NOTHING_LINE, _NOTHING_LINE))  # the last may lack its end
OPEN_EVENT_BYTES = 1000  # more of an event, still open, is kept only to find where it ends


def _bound_body(response: Any, attempts: _Attempts) -> None:
    """Route the body of ``response`` through the call's limits (``attempts``) as it is read, decoded (a compressed
    body counts at its full size).  ``read()``, the SDK's event stream and every other reader of an httpx response go
    through its ``iter_bytes``.  An event stream's last event must end with the blank line that closes it: a
    body that stops before it (framed by the connection's close) was cut off, where the SDK would drop that event;
    unless that event says nothing (``data: [DONE]`` or a comment: some servers close right after it)."""
    iter_bytes = response.iter_bytes
    events = "event-stream" in response.headers.get("content-type", "")

    def bounded(*args: Any, **kwargs: Any) -> Iterator[bytes]:
        open_event = b""  # what came after the last blank line (its end: an event that says nothing is short)
        try:
            for chunk in iter_bytes(*args, **kwargs):
                attempts.count(len(chunk))
                read = open_event[-OPEN_EVENT_BYTES:] + chunk
                whole = len(open_event) <= OPEN_EVENT_BYTES  # the event from its start: its first line is a line
                error = _ERROR_LINE.search(b"\n" + read if whole else read) if events else None
                if error:  # (the SDK reads an error event only when its data holds "error"; a server may echo the key)
                    said = _mask_secret(_error_message(error[1]), attempts.llm._secret)
                    raise _call_limit(f"the server reported an error mid-reply: {said}")
                open_event = _EVENT_END.split(read)[-1]
                yield chunk
            if events and not _SAYS_NOTHING.fullmatch(open_event):
                raise _call_limit("the stream ended in the middle of an event (the connection dropped?)")
        except Exception as exc:  # a read that timed out at the deadline is the time limit
            if exc is not attempts.hit:
                attempts.check_time(exc)
            raise

    response.iter_bytes = bounded


_NONE_YET = object()  # no choice read yet
# llama.cpp's ``error: {...}`` (no field of an event stream's: its reader drops it), and an ``event: error``'s data
_ERROR_LINE = re.compile(rb"[\r\n](?:error: ?|event: ?error(?:\r\n|\r|\n)data: ?)([^\r\n]*)[\r\n]")


def _error_message(data: bytes) -> str:
    """What an error a server sent says: its JSON's ``message`` (under ``error`` or not), else its text, clipped."""
    text = data.decode("utf-8", "replace")
    with contextlib.suppress(ValueError):
        body = json.loads(text)
        error = body.get("error", body) if isinstance(body, dict) else body
        text = str(error.get("message") or text) if isinstance(error, dict) else text
    return clip(redact_urls(text), 300, " …")


_limit_class: type[Exception] | None = None


def _call_limit(message: str) -> Exception:
    """The error that ends a call at a limit: an ``openai.OpenAIError``, which the SDK does not retry."""
    global _limit_class
    if _limit_class is None:
        import openai  # loaded by now: a call is under way

        _limit_class = type("CallLimitExceeded", (openai.OpenAIError,), {"_vero_limit": True})
    return _limit_class(message)


def _limit_of(exc: BaseException) -> BaseException | None:
    """The call-limit error that ``exc`` is or was caused by (an SDK may wrap it)."""
    return next((error for error in (exc, exc.__cause__) if getattr(error, "_vero_limit", False)), None)


def _failure_reason(exc: BaseException, timeout: Any) -> str:
    """Why an attempt failed, in words (the SDK's own error only says 'Connection error.')."""
    name = type(exc).__name__
    if name.endswith("Timeout"):  # httpx's ReadTimeout, ConnectTimeout, ...
        seconds = f" within {timeout:g} s" if isinstance(timeout, (int, float)) else ""
        return f"no reply{seconds} (timed out)"
    if name == "ConnectError":
        return "could not connect"
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    return f"{name}: {exc}" if str(exc) else name


def _check_seconds(timeout: Any, max_call_seconds: Any) -> None:
    """A ValueError naming each of ``timeout`` (seconds above 0) and ``max_call_seconds`` (seconds, 0 for no limit)
    given as something else: ``nan`` would lift the limit silently, ``"abc"`` fail every call obscurely."""
    wrong = []
    if timeout is not None and (not _is_number(timeout) or not timeout > 0):
        wrong.append(f"timeout must be seconds above 0 or None, got {timeout!r}")
    if max_call_seconds is not None and (not _is_number(max_call_seconds) or not max_call_seconds >= 0):
        wrong.append(f"max_call_seconds must be seconds (0: no limit) or None, got {max_call_seconds!r}")
    if wrong:
        raise ValueError("; ".join(wrong))


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _watch_attempts(client: Any) -> Any:
    """Wrap the SDK client's HTTP ``send`` so that ``_Attempts`` sees every attempt (once per client)."""
    http: Any = getattr(client, "_client", None)
    send = getattr(http, "send", None)
    if send is None or getattr(send, "_vero_attempts", False):
        return client

    def send_watched(request: Any, *args: Any, **kwargs: Any) -> Any:
        attempts = getattr(_current, "attempts", None)
        if attempts is None:
            return send(request, *args, **kwargs)
        return attempts.send(send, request, args, kwargs)

    send_watched._vero_attempts = True  # type: ignore[attr-defined]  # a marker on the wrapper function
    with contextlib.suppress(AttributeError):  # an HTTP client that does not take attributes: no attempt events
        http.send = send_watched
    return client


class TextStream:
    """Iterator of answer text deltas; ``message`` is set when it is exhausted.  Thinking (``<think>`` blocks or
    ``reasoning_content``) goes to ``message.reasoning``, not yielded; tool-call deltas make up ``tool_calls``."""

    def __init__(self, llm: ChatOpenAI, request: dict[str, Any]) -> None:
        self._llm = llm
        usage = {"stream_options": {"include_usage": True}} if llm._stream_usage else {}
        self._request = {**request, "stream": True, **usage}
        self.message: Message | None = None
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[dict[str, str]] = []  # the streamed tool calls, in the order they began
        self._writing: dict[int, dict[str, str]] = {}  # the call each index is writing
        self._usage: dict[str, Any] | None = None
        self._finish_reason: str | None = None
        self._choice: Any = _NONE_YET  # the index of the choice read: the first one sent
        self._refusal: list[str] = []  # a structured-output refusal (OpenAI's ``delta.refusal``), in pieces

    def __iter__(self) -> Generator[str, None, None]:
        llm = self._llm
        replayed = llm._replay(self._request)
        if replayed is not None:
            if replayed.text:
                yield replayed.text
            self.message = replayed
            return
        splitter = ThinkingStream()
        held = ""  # the first half of a surrogate pair whose second half may come in the next delta
        for delta_text in self._answer_deltas(llm):
            text, held = held + delta_text, ""
            if text and "\ud800" <= text[-1] <= "\udbff":  # the next delta may complete the pair
                text, held = text[:-1], text[-1]
            self._content.append(text)
            visible = splitter.feed(valid_text(text))
            if visible:
                yield visible
        self._content.append(held)
        tail = splitter.feed(valid_text(held)) + splitter.flush()
        if tail:
            yield tail
        self.message = self._assembled()
        llm._count(self._usage)
        llm._keep(self._request, self.message)

    def _answer_deltas(self, llm: ChatOpenAI) -> Iterator[str]:
        """The answer text of each chunk as it comes; its reasoning, tool calls, usage and finish reason
        are gathered.  Any failure, or a reply over its size limit, is an ``LLMCallError``."""
        cap, size = output_cap(self._request), 0
        try:
            with _Attempts(llm, self._request):  # the SDK retries before the first chunk, not after
                sent = {"body": self._request, "cast_to": object, "stream": True}  # chunks: plain JSON, checked below
                stream = llm.client.post("/chat/completions", **sent, stream_cls=llm._openai.Stream[object])
            response = stream.response
            events = "event-stream" in response.headers.get("content-type", "")
            with contextlib.closing(stream):  # read to its end, or left: the server stops generating
                for chunk in stream if events else _not_streamed(response, llm._secret):
                    if "choices" not in chunk and chunk.get("object") == "error":  # vLLM's error mid-stream
                        failed = _error_message(json.dumps(chunk).encode())
                        raise LLMCallError(
                            _mask_secret(f"model stream failed: the server reported: {failed}", llm._secret)
                        )
                    self._usage = normalize_usage(chunk.get("usage")) or self._usage
                    for choice in chunk.get("choices") or []:
                        self._choice = choice.get("index") if self._choice is _NONE_YET else self._choice
                        if choice.get("index") != self._choice:  # another choice's (n=2 a gateway set): not this reply
                            continue
                        self._finish_reason = choice.get("finish_reason") or self._finish_reason
                        delta = choice.get("delta") or {}
                        size += self._gather(delta)
                        if size > reply_char_limit(cap):
                            raise LLMCallError("model call failed: " + _too_large(cap, "characters"))
                        if delta.get("content"):
                            yield delta["content"]
            _check_finished(self._finish_reason, "".join(self._refusal))
        except LLMCallError:
            raise
        except llm._openai.OpenAIError as exc:
            error = llm._call_error(exc, self._request)
            if error.parameter != "stream_options" or size:
                raise error from _limit_of(exc) or exc
        except (AttributeError, KeyError, TypeError, IndexError) as exc:  # a field of the wrong type
            raise _malformed(exc) from exc
        except Exception as exc:  # a broken stream (reset, bad chunk) raised by httpx or the decoder
            text = _mask_secret(redact_urls(f"model stream failed: {type(exc).__name__}: {exc}"), llm._secret)
            raise LLMCallError(text) from exc
        else:
            return
        # a server (an older Azure API, a proxy) that refused stream_options: asked again without it, as every
        # later stream of this client is; its usage then counts as the server reports it, or as an estimate
        llm._stream_usage = False
        self._request = {key: value for key, value in self._request.items() if key != "stream_options"}
        yield from self._answer_deltas(llm)

    def _gather(self, delta: dict[str, Any]) -> int:
        """Keep a delta's reasoning and tool-call pieces; the characters the delta adds to the reply.  Its fields
        are checked as a whole reply's are: arguments sent as an object are kept as their JSON text."""
        thought = delta.get("reasoning_content") or delta.get("reasoning") or ""
        size = len(_text("reasoning", thought)) + len(_text("content", delta.get("content") or ""))
        self._reasoning.append(thought)
        if delta.get("refusal"):
            self._refusal.append(_text("refusal", delta["refusal"]))
            size += len(delta["refusal"])
        for piece in delta.get("tool_calls") or []:  # a streamed piece of a tool call
            index, piece_id = piece.get("index") or 0, _text("a tool call's id", piece.get("id") or "")
            function = piece.get("function") or {}
            name, arguments = _text("a tool call's name", function.get("name") or ""), function.get("arguments") or ""
            arguments = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
            call = self._writing.get(index)
            if call is None or _starts_another(call, piece_id, name):
                call = self._writing[index] = {"id": piece_id, "name": "", "arguments": ""}
                self._calls.append(call)
            call["id"] = call["id"] or piece_id
            call["name"] += "" if name == call["name"] else name  # some servers send the whole name in every piece
            call["arguments"] += arguments
            size += len(name) + len(arguments)
        return size

    def _assembled(self) -> Message:
        """The whole reply: the answer apart from its thinking, and the tool calls put together."""
        answer, thinking = _answer_and_thinking("".join(self._content), "".join(self._reasoning))
        calls = _own_ids([ToolCall(c["id"], c["name"], c["arguments"] or "{}") for c in self._calls])
        return Message(
            "assistant", answer, calls, reasoning=thinking, usage=self._usage, finish_reason=self._finish_reason
        )


def _starts_another(call: dict[str, str], piece_id: str, name: str) -> bool:
    """Whether a streamed piece at the index of ``call`` starts another call (some servers give every call index 0):
    another tool's name under another id; once the call has arguments, another tool's name or another id.  A piece
    with no name, or the call's (some send it each time), goes on with it whatever its id (some change it)."""
    other_id = bool(piece_id and call["id"] and piece_id != call["id"])
    renamed = bool(call["name"]) and name != call["name"]
    return bool(name) and (other_id or renamed) and (bool(call["arguments"]) or (renamed and other_id))


def _text(what: str, value: Any) -> str:
    """``value``, a text field of a reply; a ``TypeError`` (a malformed reply) when it is not text."""
    if not isinstance(value, str):
        raise TypeError(f"{what} is a {type(value).__name__}, not text")
    return value


def _not_streamed(response: Any, secret: str) -> list[dict[str, Any]]:
    """The chunks of a reply to a streamed request that is not labelled an event stream: its events when it is
    one all the same; a JSON completion (a server or proxy that ignores ``"stream": true``) as one chunk, the
    whole reply; a JSON error its error (masked); anything else an ``LLMCallError`` (not an empty reply)."""
    raw = response.read()
    if raw.lstrip().startswith(b"data:"):  # an event stream under another content type
        data = [line[5:].strip() for line in raw.splitlines() if line.startswith(b"data:")]
        return [json.loads(event) for event in data if event != b"[DONE]"]
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON: an HTML page, a proxy's text; or nested past what Python reads
        start, kind = redact_urls(response.text[:120].strip()), response.headers.get("content-type") or "no type"
        text = f"model call failed: the endpoint did not stream: it sent {kind}, not text/event-stream: {start!r}"
        raise LLMCallError(_mask_secret(text, secret)) from None
    message = _message_from_body(body, secret)
    delta = message.to_dict(include_reasoning=True)  # its calls told apart by their ids (``_own_ids``)
    return [{"choices": [{"delta": delta, "finish_reason": message.finish_reason}], "usage": message.usage}]


def _scrub(exc: Exception, key: str, secrets: list[str]) -> None:
    """Mask the API key (``key``, however short) and the URL's credentials (``secrets``) a server echoed into the SDK's
    exception: chained as ``__cause__``, tracebacks (``--debug``, logs) print its message, args, fields and body."""

    def masked(text: str) -> str:
        return hide_secrets(_mask_secret(text, key), secrets)

    exc.args = tuple(masked(arg) if isinstance(arg, str) else arg for arg in exc.args)
    for name, value in list(vars(exc).items()):  # message, code, param ...
        if isinstance(value, str):
            setattr(exc, name, masked(value))
    body = getattr(exc, "body", None)
    if body is not None:
        text = json.dumps(body, default=str, ensure_ascii=False)
        if (shown := masked(text)) != text:
            try:
                exc.body = json.loads(shown)  # type: ignore[attr-defined]  # the SDK error's body, read above
            except ValueError:  # a piece of a key held a quote or a backslash
                exc.body = shown  # type: ignore[attr-defined]  # the same


_CALL_NUMBERS = itertools.count(1)  # ids vero gives, never the same twice in a process


def _own_ids(calls: list[ToolCall]) -> list[ToolCall] | None:
    """``calls`` (None for none) made valid text, each with an id no other has: a server that sends none (some local
    ones), or one twice, would get results back (and events) that cannot be told apart; vero's are ``vero_call_1``..."""
    for number, call in enumerate(calls):
        call.id, call.name, call.arguments = valid_text(call.id), valid_text(call.name), valid_text(call.arguments)
        if not call.id or any(other.id == call.id for other in calls[:number]):
            call.id = f"vero_call_{next(_CALL_NUMBERS)}"
    return calls or None


# -- wire-format helpers --------------------------------------------------------
def _message_from_body(body: Any, secret: str = "") -> Message:
    """The assistant message of a chat completion body; ``LLMCallError`` if it has none (an error it holds
    masked with ``secret``, the key in use: a server may echo it)."""
    if not isinstance(body, dict):
        raise LLMCallError("model endpoint returned something other than a JSON object")
    choices = body.get("choices") or []
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    error = body.get("error") or first.get("error")  # beside a reply too (OpenRouter's): what it holds is not all
    if isinstance(error, dict) and error.get("message"):
        text = redact_urls(f"model endpoint returned an error: {error['message']}")
        raise LLMCallError(_mask_secret(text, secret))
    if not choices:
        raise LLMCallError("model endpoint returned no choices")
    try:
        data, finish_reason = choices[0]["message"] or {}, choices[0].get("finish_reason")
        content = data.get("content")
        content = None if content is None else _text("content", content)
        answer, thinking = _answer_and_thinking(content, data.get("reasoning_content") or data.get("reasoning"))
        _check_finished(finish_reason, data.get("refusal"))
        calls = _own_ids([ToolCall.from_dict(c) for c in data.get("tool_calls") or []])
        usage = normalize_usage(body.get("usage"))
        return Message("assistant", answer, calls, reasoning=thinking, usage=usage, finish_reason=finish_reason)
    except (AttributeError, KeyError, TypeError, IndexError) as exc:
        raise _malformed(exc) from exc


def _body_unsaid(exc: Exception, body: Any) -> str:
    """`` - `` and the start of an error's body when the SDK's message says nothing of it (a body that is a list,
    as Gemini's is, or text, as a proxy's page is): what the server said, clipped."""
    if body is None or not re.fullmatch(r"Error code: \d+", str(exc).strip()):
        return ""
    said = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    return " - " + clip(" ".join(said.split()), 300, " …")


def _unsecret(name: str | None, key: str, secrets: list[str]) -> str | None:
    """``name`` (a parameter's, read from an error's body as written: the request's own key, perhaps with a path
    after it), or None when its path holds a secret (``messages.<the URL's password>``, as a server echoed it)."""
    path = re.sub(r"^[^.\[]*", "", name or "")
    return name if name and hide_secrets(_mask_secret(path, key), secrets) == path else None


def _named_parameter(body: Any, request: dict[str, Any]) -> str | None:
    """The request parameter a refusal's (400, 415, 422, 501) error body names in ``param`` (OpenAI's: ``messages``
    for a context too long, ``reasoning_effort`` for a value it does not take), refused by name or not; else None."""
    error = body.get("error", body) if isinstance(body, dict) else None
    param = error.get("param") if isinstance(error, dict) else None
    if not isinstance(param, str) or not re.fullmatch(r"[\w.\[\]]{1,80}", param):  # no name, or not one
        return None
    return param if re.split(r"[.\[]", param)[0] in request else None


def _malformed(exc: Exception) -> LLMCallError:
    return LLMCallError(f"model endpoint returned a malformed response: {type(exc).__name__}: {exc}")


CONTENT_FILTERED = "model call failed: the provider's content filter stopped the reply (finish_reason content_filter)"


def _check_finished(finish_reason: str | None, refusal: Any = None) -> None:
    """``LLMCallError`` for a reply the content filter or the server stopped (what it holds is not all of it:
    ``BROKEN_OFF_REASONS``), and for a refusal (OpenAI's ``refusal``, sent instead of content that would fit a
    ``response_format``): the model declined, and its words are the error's, not an empty answer.  A stream with
    no finish reason is fine: some servers never send one."""
    if refusal:
        raise LLMCallError(f"the model refused to answer: {valid_text(_text('refusal', refusal))}")
    if finish_reason == "content_filter":
        raise LLMCallError(CONTENT_FILTERED)
    if finish_reason in BROKEN_OFF_REASONS:
        raise LLMCallError(BROKEN_OFF.format(reason=finish_reason))


def _reply_chars(message: Message) -> int:
    calls = message.tool_calls or []
    return len(message.text) + len(message.reasoning or "") + sum(len(c.name) + len(c.arguments) for c in calls)


def _answer_and_thinking(content: str | None, reasoning_field: str | None) -> tuple[str, str | None]:
    """Split inline ``<think>`` blocks off the answer and join them with a reasoning field (both made valid text)."""
    answer, inline = split_thinking(valid_text(content))
    return answer, "\n\n".join(part for part in (valid_text(reasoning_field), inline) if part) or None
