"""What a model family accepts in a chat request: ``model_family(model_name)``.

OpenAI's reasoning models (o1, o3, o4-mini, the gpt-5 family, their dated snapshots) refuse ``temperature``
other than their default, ``stop`` and ``max_tokens``: they want ``max_completion_tokens``, a cap that also
counts their hidden reasoning.  ``ChatOpenAI`` builds each request from the family's entry, so such a model
gets only what it takes.  A model in no family (a local model, a provider not listed) gets every parameter;
if its server refuses one, the error names it (``refused_parameter``).  The families are matched on the bare
model name (``_bare_name``); ``add_family`` adds an entry for a model the table does not know.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class ModelFamily:
    """What the models of one family take in a chat completion request."""

    name: str
    temperature: bool = True
    """Takes a ``temperature`` other than its default (else none is sent)."""
    stop: bool = True
    """Takes ``stop`` sequences (else none are sent)."""
    cap_parameter: str = "max_tokens"
    """The name of the output cap: ``max_tokens``, or ``max_completion_tokens`` for reasoning models."""
    default_cap: int | None = None
    """The output cap sent when the user set none (``MAX_TOKENS`` unset, no ``max_tokens=``): a reasoning
    model's cap also counts its hidden reasoning, which vero's default of 1,024 tokens cuts off."""
    response_formats: tuple[str, ...] = ("json_schema", "json_object")
    """The ``response_format`` types it takes."""
    parallel_tool_calls: bool = True
    """Takes the ``parallel_tool_calls`` parameter (vero sends none; for code that builds its own requests)."""
    reasoning_effort: bool = False
    """Takes ``reasoning_effort`` (``ChatOpenAI(reasoning_effort="low")``)."""
    hosted: bool = True
    """Served by a hosted provider: a public endpoint serving it gets the hosted tool-calling prompt."""


# OpenAI's guide to reasoning models: reserve at least 25,000 tokens for reasoning and output.
REASONING_CAP = 25_000
# What OpenAI's reasoning API takes: no temperature and no stop, the output cap as max_completion_tokens.
_REASONING_API: dict[str, Any] = {"temperature": False, "stop": False, "cap_parameter": "max_completion_tokens"}

OPENAI_CHAT = ModelFamily("openai-chat")
GPT5 = ModelFamily("gpt-5", **_REASONING_API, default_cap=REASONING_CAP, reasoning_effort=True)
OPENAI_REASONING = replace(GPT5, name="openai-reasoning", parallel_tool_calls=False)  # o1, o3, o4-mini ...
# o1-mini, o1-preview: no structured outputs either, and no reasoning_effort
OPENAI_EARLY_REASONING = replace(
    OPENAI_REASONING, name="openai-early-reasoning", response_formats=(), reasoning_effort=False
)
GPT5_CHAT = ModelFamily("gpt-5-chat", **_REASONING_API)  # gpt-5-chat-latest and its kin: gpt-5 without reasoning_effort
DEEPSEEK_REASONER = ModelFamily(  # a temperature has no effect on it: none is sent; its max_tokens counts its reasoning
    "deepseek-reasoner", temperature=False, response_formats=("json_object",), default_cap=REASONING_CAP
)
DEEPSEEK_CHAT = ModelFamily("deepseek-chat", response_formats=("json_object",))
QWEN_HOSTED = ModelFamily("qwen-hosted", response_formats=("json_object",))  # DashScope's qwen-plus, qwen-max ...
UNKNOWN = ModelFamily("unknown", hosted=False)

_DATE = r"(?:-\d{4}-?\d{2}-?\d{2})?"  # a dated snapshot: o3-2025-04-16, gpt-4-0613
FAMILIES: list[tuple[re.Pattern[str], ModelFamily]] = [
    (re.compile(rf"o1-(?:mini|preview){_DATE}"), OPENAI_EARLY_REASONING),
    (re.compile(r"o[1-9](?:-[a-z0-9-]+)?"), OPENAI_REASONING),  # o1, o3-mini, o4-mini-2025-04-16, o3-pro
    (re.compile(r"gpt-5(?:\.\d+)?(?:-[a-z0-9]+)*-chat(?:-[a-z0-9-]+)?"), GPT5_CHAT),
    (re.compile(r"gpt-5(?:\.\d+)?(?:-[a-z0-9-]+)?"), GPT5),  # gpt-5, gpt-5-mini-2025-08-07, gpt-5.1, gpt-5-codex
    (re.compile(r"(?:gpt-4|gpt-3\.5|chatgpt-4o)[a-z0-9.-]*"), OPENAI_CHAT),
    (re.compile(r"deepseek-reasoner"), DEEPSEEK_REASONER),
    (re.compile(r"deepseek-chat"), DEEPSEEK_CHAT),
    (re.compile(r"qwen[0-9.]*-(?:plus|max|turbo|long|flash|coder-plus)[a-z0-9-]*"), QWEN_HOSTED),
]


def add_family(pattern: str, family: ModelFamily) -> None:
    """Match model names that fully match ``pattern`` (a regular expression, any case) to ``family``,
    before the built-in entries: for a model or a deployment name the table does not know.  The name
    matched is the bare one: ``my-org/reasoner:v2`` is matched as ``reasoner``."""
    FAMILIES.insert(0, (re.compile(pattern, re.IGNORECASE), family))


def model_family(model_name: str | None) -> ModelFamily:
    """The family of ``model_name`` (``UNKNOWN`` for a name in no family: every parameter is sent)."""
    name = _bare_name(model_name or "")
    return next((family for pattern, family in FAMILIES if pattern.fullmatch(name)), UNKNOWN)


def _bare_name(model_name: str) -> str:
    """The name without a router's prefix, a fine-tune's wrapping or a variant tag, in lower case:
    ``openai/o3`` -> ``o3``; ``ft:gpt-4o-mini:org::id`` -> ``gpt-4o-mini``; ``gpt-5:free`` -> ``gpt-5``."""
    name = model_name.strip().lower().rsplit("/", 1)[-1].removeprefix("ft:")
    return name.split(":", 1)[0]


def output_cap(request: dict[str, Any]) -> int | None:
    """The output cap of a request, under either name."""
    cap = request.get("max_tokens") or request.get("max_completion_tokens")
    return cap if isinstance(cap, int) else None


# A parameter name as servers spell it in their errors: `temperature`, `messages[0].role`, `reasoning.effort`.
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\]|\.[A-Za-z_][A-Za-z0-9_]*)*")
_REFUSED_IN_TEXT = (  # how servers without a `param` field name what they refused
    re.compile(r"unsupported parameter: '([^']{1,80})'", re.IGNORECASE),
    re.compile(r"unsupported value: '([^']{1,80})' does not support", re.IGNORECASE),  # (not "'low' is not ...")
    re.compile(r"unrecognized request arguments? supplied: ([A-Za-z_][\w.]{0,79})", re.IGNORECASE),
    re.compile(r"'([^']{1,80})' is not supported with this model", re.IGNORECASE),
    re.compile(r"\b(tools|functions) (?:is|are) not supported", re.IGNORECASE),
    re.compile(r"does not support (tools)\b", re.IGNORECASE),  # Ollama
    re.compile(r"\b(tools) param(?:eter)? requires", re.IGNORECASE),  # llama-server without --jinja
    re.compile(r"Unknown name \\?\"([A-Za-z_]\w{0,79})\\?\": Cannot find field", re.IGNORECASE),  # Gemini
    # vLLM, Mistral and other pydantic servers: [{'type': 'extra_forbidden', 'loc': ('body', 'x'), ...}]
    re.compile(r"extra_forbidden['\"],\s*['\"]loc['\"]:\s*[(\[]['\"]body['\"],\s*['\"]([A-Za-z_]\w{0,79})['\"]"),
)
REFUSAL_CODES = ("unsupported_parameter", "unsupported_value", "invalid_parameter", "unknown_parameter")


def refused_parameter(error_body: Any, sent: Collection[str] | None = None) -> str | None:
    """The request parameter a refusal's (400, 415, 422, 501) error body says the server refused, else None.

    ``error_body`` is the server's error object as the SDK parsed it (``{"message", "type", "param", "code"}``,
    or the whole body with an ``error`` inside): its ``param`` when the ``code`` says a parameter was refused,
    else the name in a message that says so (``Unsupported parameter: 'max_tokens' ...``).  With ``sent`` (the
    request's keys), only a parameter of the request (``messages[0].role``: ``messages``).
    """
    for name in _names_refused(error_body):
        if _PARAMETER.fullmatch(name) and (sent is None or re.split(r"[.\[]", name)[0] in sent):
            return name
    return None


def _names_refused(error_body: Any) -> Iterator[str]:
    """The names an error body gives as refused: ``param`` with a refusal ``code`` (many errors name a
    ``param``: a context too long names ``messages``), then those its message names."""
    if isinstance(error_body, list) and len(error_body) == 1:  # Gemini's body: a list of one error
        error_body = error_body[0]
    if isinstance(error_body, str):  # a proxy's page
        error_body = {"message": error_body}
    if isinstance(error_body, dict) and isinstance(error_body.get("error"), dict):
        error_body = error_body["error"]
    if not isinstance(error_body, dict):
        return
    param = error_body.get("param")
    if isinstance(param, str) and len(param) <= 80 and error_body.get("code") in REFUSAL_CODES:
        yield param
    message = error_body.get("message")  # Mistral's: an object of pydantic's details
    message = message if isinstance(message, str) else json.dumps(message, default=str) if message else ""
    for pattern in _REFUSED_IN_TEXT:
        yield from (found.group(1) for found in pattern.finditer(message))
