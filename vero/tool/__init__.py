"""Tools: ``@tool`` turns a typed function into a callable tool; ``ToolRegistry``
holds tools and runs them safely (errors become observations, never exceptions).

The built-in tools live in ``vero.tool.builtin`` (imported on demand).
"""

import sys
import types

from vero.tool.base import Tool, ToolArgumentError, tool
from vero.tool.registry import ToolOutcome, ToolRegistry

__all__ = ["Tool", "ToolArgumentError", "ToolOutcome", "ToolRegistry", "tool"]


class _DecoratorModule(types.ModuleType):
    """Makes ``from vero import tool`` the decorator while ``vero.tool.builtin`` stays reachable.

    ``vero.tool`` is this package, and calling the package calls ``tool``.
    Binding the function itself as ``vero.tool`` would hide the subpackage.
    """

    def __call__(self, *args, **kwargs):
        return tool(*args, **kwargs)


sys.modules[__name__].__class__ = _DecoratorModule
