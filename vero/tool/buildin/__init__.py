"""Aliases under the original framework's names (its package was spelled
``buildin``), so scripts written for it run unmodified::

    from vero.tool.buildin import *
    tools = [math_calculator, google_search]
"""

from vero.tool.base import Tool
from vero.tool.builtin import BUILTIN_TOOLS, calculator, current_time, python_exec, web_search
from vero.tool.builtin.search import search_bocha, search_duckduckgo, search_tavily

math_calculator = Tool.from_function(calculator, name="math_calculator")
google_search = Tool.from_function(search_tavily, name="google_search")  # the original vero repository's name; backed by Tavily
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
