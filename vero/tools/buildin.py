"""Deprecated: the original framework's tool names, under its misspelled module name, for one more
release (a ``DeprecationWarning`` says so on import)::

    from vero.tools.buildin import *
    tools = [math_calculator, google_search]

New code imports ``vero.tools.builtin``: ``calculator`` for ``math_calculator``, and the searches
``search_tavily`` (``google_search``: it searches with Tavily, not Google), ``search_bocha`` and
``search_duckduckgo`` from ``vero.tools.builtin.search``.  Every name below is a ``vero.tools.builtin``
tool, the same object or the same function under the name the original scripts use.
"""

from vero.core.deprecation import deprecated
from vero.tools.base import Tool
from vero.tools.builtin import BUILTIN_TOOLS, calculator, current_time, python_exec, web_search
from vero.tools.builtin.search import search_bocha, search_duckduckgo, search_tavily

deprecated(
    "vero.tools.buildin",
    "import vero.tools.builtin (calculator for math_calculator) and vero.tools.builtin.search "
    "(search_tavily for google_search, search_bocha, search_duckduckgo)",
)

math_calculator = Tool(calculator, name="math_calculator")
# The original name, kept for its scripts: this searches with Tavily (TAVILY_API_KEY), not Google,
# and the model is told so (the description is search_tavily's).
google_search = Tool(search_tavily, name="google_search")
bocha_search = Tool(search_bocha, name="bocha_search")
duckduckgo_search = Tool(search_duckduckgo, name="duckduckgo_search")


__all__ = [
    "math_calculator",
    "google_search",
    "bocha_search",
    "duckduckgo_search",
    "BUILTIN_TOOLS",
    "calculator",
    "current_time",
    "python_exec",
    "web_search",
]
