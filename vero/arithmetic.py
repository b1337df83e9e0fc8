"""Safe arithmetic: ``evaluate("sqrt(2) * (3 + 4) ** 2")`` walks the AST of the expression, never ``eval``.

The built-in ``calculator`` tool (``vero.tools.builtin``) and the recovery rule that checks
arithmetic a model did in its head (``vero.recovery``) both evaluate with it, so it sits below both.

Only numbers, arithmetic operators, a few constants and whitelisted functions
are accepted; everything else is refused with a ValueError that says what was
not allowed.  Operations that could run for minutes or exhaust memory
(``9**9**9``, ``factorial(10**6)``) are refused before they are computed.
Results are real numbers: a power whose result would be complex,
``(-8) ** (1/3)``, is an error that says so, not ``(1+1.73j)``.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

MAX_EXPRESSION_CHARS = 1_000
MAX_DIGITS = 4_000  # Python refuses to print ints beyond 4,300 digits anyway
MAX_FACTORIAL = 1_000
MAX_ROUND_DIGITS = 1_000

CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}


def _digits(n: int) -> float:
    """Approximate number of decimal digits of an int, without converting it."""
    return n.bit_length() * 0.30103


def _check_size(digits: float) -> None:
    if digits > MAX_DIGITS:
        raise ValueError(f"result too large (more than {MAX_DIGITS:,} digits)")


def _power(base: Any, exponent: Any) -> Any:
    """``base ** exponent``, refused up front when the integer result would be huge."""
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        # digits(base ** exponent) ~= exponent * log10(|base|), and log10(|base|) >= 0.3,
        # so a huge exponent is refused before it is multiplied (which could overflow).
        _check_size(math.inf if exponent > 4 * MAX_DIGITS else exponent * math.log10(abs(base)))
    result = operator.pow(base, exponent)
    if isinstance(result, complex):  # a negative base to a fractional power
        raise ValueError(
            f"{base!r} to the power {exponent!r} is not a real number "
            "(for the real cube root of -8, write -(8 ** (1/3)))"
        )
    return result


def _multiply(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        _check_size(_digits(a) + _digits(b))
    return a * b


def _factorial(n: Any) -> int:
    if isinstance(n, int) and n > MAX_FACTORIAL:
        raise ValueError(f"factorial argument too large (limit {MAX_FACTORIAL})")
    return math.factorial(n)


def _round(number: Any, ndigits: int | None = None) -> Any:
    # round(5, -10**9) would compute 10**(10**9): bound ndigits.
    if ndigits is not None and abs(ndigits) > MAX_ROUND_DIGITS:
        raise ValueError(f"round() digits must be within ±{MAX_ROUND_DIGITS}")
    return round(number, ndigits)


_MATH_NAMES = "sqrt sin cos tan asin acos atan atan2 log log10 log2 exp floor ceil fabs gcd hypot degrees radians"
FUNCTIONS = {name: getattr(math, name) for name in _MATH_NAMES.split()}
FUNCTIONS.update(factorial=_factorial, abs=abs, round=_round, min=min, max=max, pow=_power)

BINARY_OPERATORS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: _multiply,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: _power,
}
UNARY_OPERATORS: dict[type[ast.unaryop], Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _evaluate(node: ast.AST) -> Any:
    """Evaluate one whitelisted AST node; anything else raises ValueError."""
    if isinstance(node, ast.Constant):
        if type(node.value) in (int, float):
            return node.value
        raise ValueError(f"only numbers are allowed, not {node.value!r}")
    if isinstance(node, ast.BinOp):
        op = BINARY_OPERATORS.get(type(node.op))
        if op is None:
            hint = " (use ** for powers)" if isinstance(node.op, ast.BitXor) else ""
            raise ValueError(f"operator {type(node.op).__name__} is not allowed{hint}")
        return op(_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY_OPERATORS:
        return UNARY_OPERATORS[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        if node.id in FUNCTIONS:
            raise ValueError(f"{node.id} is a function: call it, e.g. {node.id}(2)")
        raise ValueError(f"unknown name {node.id!r} (allowed constants: {', '.join(CONSTANTS)})")
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.Attribute):
        raise ValueError(f"attribute access (.{node.attr}) is not allowed; call functions directly: sqrt(2)")
    raise ValueError(f"{type(node).__name__} is not allowed in a calculator expression")


def _call(node: ast.Call) -> Any:
    if isinstance(node.func, ast.Attribute):
        _evaluate(node.func)  # raises the attribute-access message
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
        allowed = ", ".join(FUNCTIONS)
        raise ValueError(f"function {ast.unparse(node.func)!r} is not allowed (allowed: {allowed})")
    if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
        raise ValueError("only plain positional arguments are allowed in function calls")
    return FUNCTIONS[node.func.id](*[_evaluate(arg) for arg in node.args])


def evaluate(expression: str) -> int | float:
    """Evaluate an arithmetic expression safely (see the module docstring)."""
    expression = expression.strip()
    if not expression:
        raise ValueError("empty expression")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ValueError(f"expression too long ({len(expression):,} characters; limit {MAX_EXPRESSION_CHARS:,})")
    try:
        tree = ast.parse(expression, mode="eval")
    except (SyntaxError, ValueError) as exc:
        raise ValueError(f"invalid expression: {getattr(exc, 'msg', exc)}") from None
    except (RecursionError, MemoryError):
        raise ValueError("expression is nested too deeply") from None
    try:
        value: int | float = _evaluate(tree.body)
    except RecursionError:
        raise ValueError("expression is nested too deeply") from None
    return value
