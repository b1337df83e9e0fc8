"""Web search over Tavily, Bocha or DuckDuckGo, with only the standard library.

``web_search`` picks the provider from the keys that are configured
(``TAVILY_API_KEY``, then ``BOCHA_API_KEY``, else DuckDuckGo, which needs no
key).  Every failure becomes a ``Search failed: ...`` observation, and an API
key never appears in what is returned.  Each provider's URL can be overridden
(``VERO_TAVILY_URL``, ``VERO_BOCHA_URL``, ``VERO_DDG_URL``), which is how the
tests point them at a local server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

from vero.config import get_settings, warn_if_endpoint_from_env_file
from vero.core.secrets import key_in_use, mask_secret
from vero.core.text import clip
from vero.tools.base import tool

TAVILY_URL = "https://api.tavily.com/search"
BOCHA_URL = "https://api.bochaai.com/v1/web-search"
DDG_URL = "https://html.duckduckgo.com/html/"
REQUEST_TIMEOUT = 15.0
MAX_RESULTS = 10
SNIPPET_CHARS = 500
USER_AGENT = "Mozilla/5.0 (compatible; vero-agent/0.1)"


@dataclass
class SearchResult:
    title: str
    url: str
    snippet: str = ""


class SearchError(Exception):
    """A provider could not deliver results; the message is safe to show."""


# --------------------------------------------------------------------------- HTTP


def _http(url: str, data: dict[str, Any] | None = None, headers: dict[str, Any] | None = None) -> bytes:
    """GET (or POST ``data`` as JSON) and return the body; failures raise SearchError."""
    import urllib.error
    import urllib.request  # lazy: it pulls in ssl and http.client

    body = json.dumps(data).encode() if data is not None else None
    request = urllib.request.Request(url, data=body, headers={"User-Agent": USER_AGENT, **(headers or {})})
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as response:
            raw: bytes = response.read()
            return raw
    except urllib.error.HTTPError as exc:
        detail = exc.read(300).decode("utf-8", errors="replace").strip()
        raise SearchError(f"HTTP {exc.code} {exc.reason}" + (f": {detail}" if detail else "")) from None
    except urllib.error.URLError as exc:
        raise SearchError(f"could not connect ({exc.reason})") from None
    except (TimeoutError, OSError) as exc:
        raise SearchError(f"network error ({exc})") from None


def _json(raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except ValueError:
        raise SearchError("the response was not valid JSON") from None
    if not isinstance(data, dict):
        raise SearchError("unexpected response format")
    return data


# --------------------------------------------------------------------------- providers


def tavily(query: str, max_results: int, api_key: str) -> list[SearchResult]:
    url = get_settings().VERO_TAVILY_URL or TAVILY_URL
    warn_if_endpoint_from_env_file("VERO_TAVILY_URL")
    payload = {"api_key": api_key, "query": query, "max_results": max_results}
    data = _json(_http(url, payload, {"Authorization": f"Bearer {api_key}"}))
    return [
        SearchResult(r.get("title") or "", r.get("url") or "", r.get("content") or "")
        for r in data.get("results") or []
        if isinstance(r, dict)
    ]


def bocha(query: str, max_results: int, api_key: str) -> list[SearchResult]:
    url = get_settings().VERO_BOCHA_URL or BOCHA_URL
    warn_if_endpoint_from_env_file("VERO_BOCHA_URL")
    payload = {"query": query, "count": max_results, "summary": True, "freshness": "noLimit"}
    data = _json(_http(url, payload, {"Authorization": f"Bearer {api_key}"}))
    if data.get("code") not in (None, 200):
        message = data.get("msg") or data.get("message") or ""
        raise SearchError(f"Bocha error {data.get('code')}: {message}".strip())
    pages = ((data.get("data") or {}).get("webPages") or {}).get("value") or []
    return [
        SearchResult(p.get("name") or "", p.get("url") or "", p.get("summary") or p.get("snippet") or "")
        for p in pages
        if isinstance(p, dict)
    ]


class _DuckDuckGoParser(HTMLParser):
    """Collect results from DuckDuckGo's HTML page: ``a.result__a`` is the
    title and link, ``.result__snippet`` the snippet."""

    def __init__(self) -> None:
        super().__init__()
        self.results: list[SearchResult] = []
        self._field: str | None = None  # "title" or "snippet" while inside one
        self._tag = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if tag == "a" and "result__a" in classes:
            self.results.append(SearchResult("", _unwrap_ddg_link(values.get("href") or "")))
            self._field, self._tag = "title", tag
        elif "result__snippet" in classes and self.results:
            self._field, self._tag = "snippet", tag

    def handle_endtag(self, tag: str) -> None:
        if tag == self._tag:
            self._field = None

    def handle_data(self, data: str) -> None:
        if self._field:
            result = self.results[-1]
            setattr(result, self._field, getattr(result, self._field) + data)


def _unwrap_ddg_link(href: str) -> str:
    """DuckDuckGo links go through a redirect (``//duckduckgo.com/l/?uddg=<url>``)."""
    target = parse_qs(urlparse(href).query).get("uddg")
    return target[0] if target else href


def duckduckgo(query: str, max_results: int) -> list[SearchResult]:
    url = get_settings().VERO_DDG_URL or DDG_URL
    parser = _DuckDuckGoParser()
    parser.feed(_http(f"{url}?{urlencode({'q': query})}").decode("utf-8", errors="replace"))
    ads = "duckduckgo.com/y.js"
    return [r for r in parser.results if r.url and ads not in r.url][:max_results]


# --------------------------------------------------------------------------- formatting


def format_results(results: list[SearchResult], query: str) -> str:
    """``1. Title — url`` then the snippet indented below, one block per result."""
    if not results:
        return f"No results found for {query!r}."
    lines = []
    for number, result in enumerate(results, 1):
        title = " ".join(result.title.split()) or "(untitled)"
        lines.append(f"{number}. {title} — {result.url}")
        snippet = " ".join(result.snippet.split())
        if snippet:
            lines.append(f"   {clip(snippet, SNIPPET_CHARS, '...', within=True)}")
    return "\n".join(lines)


def _search(provider: str, query: str, max_results: int, api_key: str | None = None) -> str:
    """Run one provider and turn every failure into ``Search failed: ...``."""
    max_results = max(1, min(int(max_results), MAX_RESULTS))
    try:
        if provider == "duckduckgo":
            results = duckduckgo(query, max_results)
        elif not api_key:
            env = {"tavily": "TAVILY_API_KEY", "bocha": "BOCHA_API_KEY"}[provider]
            return f"Search failed: {env} is not set."
        else:
            results = (tavily if provider == "tavily" else bocha)(query, max_results, api_key)
    except Exception as exc:  # SearchError, or a provider answering in an unexpected shape
        message = str(exc) if isinstance(exc, SearchError) else f"{type(exc).__name__}: {exc}"
        return f"Search failed: {provider}: {mask_secret(message, api_key or '')}"
    return format_results(results[:max_results], query)


def _keys() -> tuple[str | None, str | None]:
    settings = get_settings()  # read at call time: keys may be set after import
    for key in (settings.TAVILY_API_KEY, settings.BOCHA_API_KEY):
        key_in_use(key)  # masked in traces, sessions and cassettes too, as a model's key is
    return settings.TAVILY_API_KEY, settings.BOCHA_API_KEY


def search_tavily(query: str, max_results: int = 5) -> str:
    """Search the web with Tavily and return titles, links and snippets.

    Args:
        query: what to search for.
        max_results: how many results to return (1-10).
    """
    return _search("tavily", query, max_results, _keys()[0])


def search_bocha(query: str, max_results: int = 5) -> str:
    """Search the web with Bocha (good for Chinese queries) and return titles, links and snippets.

    Args:
        query: what to search for.
        max_results: how many results to return (1-10).
    """
    return _search("bocha", query, max_results, _keys()[1])


def search_duckduckgo(query: str, max_results: int = 5) -> str:
    """Search the web with DuckDuckGo and return titles, links and snippets.

    Args:
        query: what to search for.
        max_results: how many results to return (1-10).
    """
    return _search("duckduckgo", query, max_results)


@tool(read_only=True)
def web_search(query: str, max_results: int = 5) -> str:
    """Search the web and return a numbered list of titles, links and snippets.

    Args:
        query: what to search for.
        max_results: how many results to return (1-10).
    """
    tavily_key, bocha_key = _keys()
    if tavily_key:
        return _search("tavily", query, max_results, tavily_key)
    if bocha_key:
        return _search("bocha", query, max_results, bocha_key)
    return _search("duckduckgo", query, max_results)
