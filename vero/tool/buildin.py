"""The compatibility module for scripts written for the original framework: ``vero.tool.builtin``
under its misspelled name, so those scripts run unmodified::

    from vero.tool.buildin import *
    tools = [math_calculator, google_search]

New code imports ``vero.tool.builtin``.  Nothing is implemented here: every
name below is a ``vero.tool.builtin`` tool, either the same object or the same
function registered under the name the original scripts use.
"""

import sys

from vero.tool.base import Tool, tool
from vero.tool.builtin import BUILTIN_TOOLS, calculator, current_time, python_exec, web_search
from vero.tool.builtin.search import search_bocha, search_duckduckgo, search_tavily

math_calculator = Tool.from_function(calculator, name="math_calculator")
# The original name, kept for its scripts: this searches with Tavily (TAVILY_API_KEY), not Google,
# and the model is told so (the description is search_tavily's).
google_search = Tool.from_function(search_tavily, name="google_search")
bocha_search = Tool.from_function(search_bocha, name="bocha_search")
duckduckgo_search = Tool.from_function(search_duckduckgo, name="duckduckgo_search")

tool.__dict__["buildin"] = sys.modules[__name__]  # `import vero.tool.buildin as b`, as for vero.tool.builtin

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
