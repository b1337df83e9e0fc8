"""Yes/no and 0-100 scores as a model writes them in JSON verdicts and tool arguments."""

from __future__ import annotations

# One word set for every yes/no a model writes, in a verdict ("pass": "passed") or a tool's boolean ("verbose": "on"):
# none can mean the opposite in either place, and a word left out only costs a re-ask.  (vero.config.env_flag reads
# switches in the environment: there an unclear value must fall back to the default, and "fail" turn nothing off.)
_TRUE = frozenset({"true", "yes", "y", "1", "on", "pass", "passed"})
_FALSE = frozenset({"false", "no", "n", "0", "off", "fail", "failed"})


def parse_bool(value: object) -> bool | None:
    """``value`` as a boolean when a model plainly wrote one (``True``/``False``, the numbers 0 and 1, the
    words above in any case, with surrounding spaces), else None: callers word their own error."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
    return None


def as_bool(value: object, field: str) -> bool:
    """A boolean field from model JSON (``parse_bool``); raises ``ValueError`` naming the field."""
    if (flag := parse_bool(value)) is None:
        raise ValueError(f"`{field}` must be true or false, got {value!r}")
    return flag


def as_score(value: object, field: str = "score") -> float:
    """A 0-100 score from model JSON; numeric strings count, out-of-range does not."""
    try:
        score = float(str(value).strip().rstrip("%"))
    except (TypeError, ValueError):
        raise ValueError(f"`{field}` must be a number from 0 to 100, got {value!r}") from None
    if not 0 <= score <= 100:
        raise ValueError(f"`{field}` must be between 0 and 100, got {score:g}")
    return score
