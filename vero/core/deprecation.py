"""The one way vero says that a name goes in the next release: ``deprecated(old, instead)``.

Every shim kept for one release calls it (``grep -rn "deprecated(" vero`` lists them), so the
next release deletes each caller and then this module.
"""

from __future__ import annotations

import sys
import warnings
from types import FrameType


def deprecated(old: str, instead: str) -> None:
    """Warn (``DeprecationWarning``) that ``old`` will be removed in the next release; ``instead``
    says what to write.  The warning names the line that used ``old``: the first caller outside
    vero and the import system, so Python shows it for a script's own code (``__main__``)."""
    frame = _user_frame(sys._getframe(1))
    warnings.warn_explicit(
        f"{old} is deprecated and will be removed in the next release: {instead}",
        DeprecationWarning,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=frame.f_globals.get("__name__", "<unknown>"),
        registry=frame.f_globals.setdefault("__warningregistry__", {}),
    )


def _user_frame(frame: FrameType) -> FrameType:
    """The first frame from ``frame`` outwards that is neither vero's nor the import system's."""
    while frame.f_back is not None and _is_internal(frame):
        frame = frame.f_back
    return frame


def _is_internal(frame: FrameType) -> bool:
    module = frame.f_globals.get("__name__", "").partition(".")[0]
    # importlib, or another loader running a module (pytest's assertion rewriter execs vero's modules)
    return module in ("vero", "importlib", "_frozen_importlib") or frame.f_code.co_name == "exec_module"
