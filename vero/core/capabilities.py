"""What vero knows of a model endpoint without asking the model: is it a hosted provider's model (``is_hosted``:
tool-calling agents send it a plain prompt and no ``stop``), and does it constrain replies to a JSON schema
(``json_schema_support``)?
"""

from __future__ import annotations

import functools
import ipaddress
import json
import logging
import re
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger("vero.llm")

PROBE_TIMEOUT = 1.5  # seconds per GET; a local server answers in milliseconds

# Hosted endpoints, by host: True when they enforce ``response_format={"type": "json_schema", ...}``.
# ollama.com accepts the field but does not enforce it; DeepSeek has only ``json_object``.
HOSTED = {"api.openai.com": True, "ollama.com": False, "api.deepseek.com": False}

# Hosted providers' API hosts (docs/configuration.md), and host suffixes of per-customer endpoints (Azure).
PROVIDER_HOSTS = frozenset(
    "api.openai.com api.deepseek.com dashscope.aliyuncs.com dashscope-intl.aliyuncs.com openrouter.ai api.groq.com "
    "api.together.xyz api.fireworks.ai api.mistral.ai api.x.ai api.moonshot.cn api.moonshot.ai open.bigmodel.cn "
    "generativelanguage.googleapis.com ollama.com".split()
)
PROVIDER_HOST_SUFFIXES = (".openai.azure.com", ".services.ai.azure.com")

OLLAMA_SINCE = (0, 5, 0)  # Ollama's first version with structured outputs
VLLM_SINCE = (0, 6, 0)  # vLLM's first version that guides decoding by response_format's json_schema


@functools.lru_cache(maxsize=256)
def is_hosted(base_url: str | None, model_name: str | None = None) -> bool:
    """True for a hosted provider's model: OpenAI's default endpoint (no ``base_url``), a provider's
    host (``PROVIDER_HOSTS``), or another public host serving a hosted family's model (a gateway
    serving ``gpt-4o``).  A local or private host, and an unknown model on an unknown host: False."""
    if not base_url:
        return True
    try:
        host = (urlsplit(base_url).hostname or "").lower().rstrip(".")
    except ValueError:  # e.g. an unclosed [ of an IPv6 address
        return False
    if host in PROVIDER_HOSTS or host.endswith(PROVIDER_HOST_SUFFIXES):
        return True
    from vero.core.providers import model_family

    return not _local(host) and model_family(model_name).hosted


def hosted_model(llm: Any) -> bool:
    """True when an agent's model is a hosted provider's (its ``hosted``: ``ChatOpenAI.hosted``); a model
    object without that attribute is taken as local (tool-calling agents keep the text-call guide)."""
    return getattr(llm, "hosted", False) is True


def _local(host: str) -> bool:
    """A host on this machine or a private network: localhost, a name without a dot, ``.local``,
    ``.internal``, and loopback, private and link-local addresses."""
    if not host or ("." not in host and ":" not in host):
        return True
    if host.endswith((".localhost", ".local", ".internal", ".lan", ".home.arpa")):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:  # a public-looking name
        return False
    return not address.is_global


def json_schema_support(base_url: str | None, api_key: str | None = None, timeout: float = PROBE_TIMEOUT) -> bool:
    """True when the endpoint at ``base_url`` is known to decode by a ``json_schema`` response format: by host
    (``HOSTED``), else asked with one cheap GET each: llama.cpp's ``/props``, Ollama's ``/api/version``, vLLM's
    ``/version`` (docs/react.md, "Which servers").  Anything else, and any failure, is no; nothing raises."""
    if not base_url:  # the SDK's default endpoint: OpenAI's
        return True
    url = urlsplit(base_url)
    host = (url.hostname or "").lower()
    if url.scheme not in ("http", "https"):
        return False
    if host in HOSTED:
        return HOSTED[host]
    try:
        return _probe(re.sub(r"/v1/?$", "", base_url.rstrip("/")), api_key, timeout)  # the server's root
    except Exception as error:  # never raise: unknown is "no"
        log.info("could not tell whether %s supports JSON-schema replies (%s): taken as no", host, error)
        return False


def _probe(root: str, api_key: str | None, timeout: float) -> bool:
    """Ask the server at ``root`` who it is, llama.cpp first (a server that does not answer is asked nothing more)."""
    props = _get_json(f"{root}/props", api_key, timeout)
    if isinstance(props, dict) and ("default_generation_settings" in props or "total_slots" in props):
        return True
    for path, since in (("/api/version", OLLAMA_SINCE), ("/version", VLLM_SINCE)):
        answer = _get_json(root + path, api_key, timeout)
        if isinstance(answer, dict) and isinstance(answer.get("version"), str):
            return _version(answer["version"]) >= since
    return False


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not followed: the key in the request goes to the endpoint's own origin only."""

    def redirect_request(self, *args: Any) -> None:
        return None  # urllib raises the 3xx as an HTTPError


_OPENER = urllib.request.build_opener(_NoRedirect)
MAX_PROBE_BYTES = 65536  # a server's /props is a few KB


def _get_json(url: str, api_key: str | None, timeout: float) -> Any:
    """The JSON body of ``GET url``, or None when the server answers with an error, a redirect, no JSON, or a body
    longer than ``MAX_PROBE_BYTES`` or slower than ``timeout`` in all (one byte at a time, a read timeout alone would
    wait for hours).  A server that cannot be reached raises (``URLError``, ``TimeoutError``): the probe stops there."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {api_key}"} if api_key else {})
    deadline = time.monotonic() + timeout
    try:
        with _OPENER.open(request, timeout=timeout) as response:  # noqa: S310  (http(s) base URL)
            body = b""
            while len(body) <= MAX_PROBE_BYTES and (chunk := response.read1(4096)):
                body += chunk
                if time.monotonic() > deadline:
                    return None
            return json.loads(body or b"null") if len(body) <= MAX_PROBE_BYTES else None
    except (urllib.error.HTTPError, ValueError):  # it answered, just not this path, or not with JSON
        return None


def _version(text: str) -> tuple[int, ...]:
    """``"0.5.7"`` -> ``(0, 5, 7)``; the digits of each part only (``"0.6.3.post1"`` -> ``(0, 6, 3, 1)``)."""
    return tuple(int(part) for part in re.findall(r"\d+", text)[:4])
