"""The tools package's old name, ``vero.tool``, for one release: ``from vero.tool import Tool`` and
``import vero.tool.builtin`` still work, with a ``DeprecationWarning`` naming the ``vero.tools`` path.

``vero.tool`` (the attribute) is the ``@tool`` decorator and stays so in every import order: Python
binds a package's attribute when the package is first imported, so no ``vero/tool/`` package exists.
Instead ``install()`` (called by ``vero/__init__.py``) puts a stand-in module under the name
``vero.tool`` in ``sys.modules`` (found there, it is never bound on ``vero``) and a finder that
answers every ``vero.tool.X`` with the module ``vero.tools.X`` itself.  What does not work:
``import vero.tool.builtin as b`` and ``vero.tool.builtin.calculator``, which look the package up on
the decorator: write ``vero.tools``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

from vero.core.deprecation import deprecated

OLD, NEW = "vero.tool", "vero.tools"


class OldToolPaths(MetaPathFinder, Loader):
    """Finds ``vero.tool.X`` (any depth) and loads it as the module ``vero.tools.X``."""

    def find_spec(self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None) -> Any:
        return ModuleSpec(name, self) if name.startswith(f"{OLD}.") else None

    def exec_module(self, module: ModuleType) -> None:
        old = module.__name__
        new = NEW + old.removeprefix(OLD)
        real = import_module(new)
        deprecated(f"the import path {old}", f"import {new}")
        sys.modules[old] = real  # the import hands out what sys.modules holds at its end: the real module


def _old_package_attribute(name: str) -> Any:
    """``from vero.tool import X``: the ``vero.tools`` name or submodule ``X``, with a warning."""
    tools = import_module(NEW)
    if name == "__all__":  # `from vero.tool import *`: each name then warns as it is read
        return tools.__all__
    if name.startswith("__"):
        raise AttributeError(f"module {OLD!r} has no attribute {name!r}")
    try:
        value = getattr(tools, name) if hasattr(tools, name) else import_module(f"{NEW}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{NEW}.{name}":
            raise
        raise AttributeError(f"module {OLD!r} has no attribute {name!r}") from None
    deprecated(f"{OLD}.{name}", f"import it from {NEW}" if name != "tool" else "from vero import tool")
    return value


def _old_package() -> ModuleType:
    package = ModuleType(OLD, f"The tools package's old name: import from {NEW}.")
    package.__spec__ = ModuleSpec(OLD, None, is_package=True)
    package.__path__ = []  # a package, so `import vero.tool.builtin` asks the finders
    package.__getattr__ = _old_package_attribute  # type: ignore[method-assign]
    return package


def install() -> None:
    """Make the old paths importable (once per interpreter)."""
    sys.modules.setdefault(OLD, _old_package())
    if not any(isinstance(finder, OldToolPaths) for finder in sys.meta_path):
        sys.meta_path.insert(0, OldToolPaths())
