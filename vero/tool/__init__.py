"""Tools: ``@tool`` turns a typed function into a callable tool; ``ToolRegistry``
holds tools and runs them safely (errors become observations, never exceptions).

Import names from here (``from vero.tool import tool, ToolRegistry``) and the
built-in tools from ``vero.tool.builtin`` (``from vero.tool.builtin import
calculator``; it is imported on demand).  On the ``vero`` package itself,
``vero.tool`` is the ``tool`` decorator, not this package (see ``vero/__init__.py``);
``import vero.tool.builtin as b`` still works (the subpackage puts itself on the decorator).
"""

from vero.tool.base import Tool, ToolArgumentError, tool
from vero.tool.registry import ToolOutcome, ToolRegistry

__all__ = ["Tool", "ToolArgumentError", "ToolOutcome", "ToolRegistry", "tool"]
