"""Built-in tools: a safe calculator, isolated Python execution, web search and
the current time.  ``BUILTIN_TOOLS`` maps short names (as used by the CLI) to them."""

from vero.tools.builtin.arithmetic import calculator
from vero.tools.builtin.clock import current_time
from vero.tools.builtin.python_runner import python_exec
from vero.tools.builtin.search import web_search

BUILTIN_TOOLS = {"calculator": calculator, "python": python_exec, "search": web_search, "time": current_time}

__all__ = ["BUILTIN_TOOLS", "calculator", "current_time", "python_exec", "web_search"]
