"""Built-in tools: a safe calculator, isolated Python execution, web search and
the current time.  ``BUILTIN_TOOLS`` maps short names (as used by the CLI) to them."""

import sys

from vero.tool.base import tool
from vero.tool.builtin.arithmetic import calculator
from vero.tool.builtin.clock import current_time
from vero.tool.builtin.python_runner import python_exec
from vero.tool.builtin.search import web_search

BUILTIN_TOOLS = {"calculator": calculator, "python": python_exec, "search": web_search, "time": current_time}

# After `import vero` the name `vero.tool` is the `tool` decorator (see vero/__init__.py), and
# `import vero.tool.builtin as b` or `vero.tool.builtin.calculator` look this package up on it.
tool.__dict__["builtin"] = sys.modules[__name__]

__all__ = ["BUILTIN_TOOLS", "calculator", "current_time", "python_exec", "web_search"]
