"""Tools: ``@tool`` turns a typed function into a callable tool; ``ToolRegistry``
holds tools and runs them safely (errors become observations, never exceptions).

Import names from here (``from vero.tools import Tool, ToolRegistry``; ``from vero import tool``
for the decorator) and the built-in tools from ``vero.tools.builtin``.
"""

from vero.tools.base import Tool, ToolArgumentError, tool
from vero.tools.registry import ToolOutcome, ToolRegistry

__all__ = ["Tool", "ToolArgumentError", "ToolOutcome", "ToolRegistry", "tool"]
