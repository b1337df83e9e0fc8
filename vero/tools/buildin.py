"""The compatibility module for scripts written for the original framework: ``vero.tools.builtin``
under its misspelled name, so those scripts run unmodified::

    from vero.tools.buildin import *
    tools = [math_calculator, google_search]

New code imports ``vero.tools.builtin``.  Nothing is implemented here: every
name below is a ``vero.tools.builtin`` tool, either the same object or the same
function registered under the name the original scripts use.
"""

from vero.tools.base import Tool
from vero.tools.builtin import BUILTIN_TOOLS, calculator, current_time, python_exec, web_search
from vero.tools.builtin.search import search_bocha, search_duckduckgo, search_tavily

math_calculator = Tool.from_function(calculator, name="math_calculator")
# The original name, kept for its scripts: this searches with Tavily (TAVILY_API_KEY), not Google,
# and the model is told so (the description is search_tavily's).
google_search = Tool.from_function(search_tavily, name="google_search")
bocha_search = Tool.from_function(search_bocha, name="bocha_search")
duckduckgo_search = Tool.from_function(search_duckduckgo, name="duckduckgo_search")


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
