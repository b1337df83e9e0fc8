"""The built-in ``calculator`` tool: arithmetic and ``math`` functions, evaluated safely by
``vero.arithmetic.evaluate`` (by walking the AST of the expression, never with ``eval``)."""

from __future__ import annotations

from vero.arithmetic import evaluate
from vero.tools.base import tool

__all__ = ["calculator", "evaluate"]


@tool(read_only=True)
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression and return the result.

    Supports + - * / // % ** and parentheses, the constants pi, e, tau, inf and
    the functions sqrt, sin, cos, tan, asin, acos, atan, atan2, log, log10,
    log2, exp, floor, ceil, fabs, factorial, gcd, hypot, degrees, radians,
    abs, round, min, max, pow.

    Args:
        expression: the expression, e.g. "sqrt(2) * (3 + 4) ** 2".
    """
    result = evaluate(expression)
    return repr(result) if isinstance(result, float) else str(result)
