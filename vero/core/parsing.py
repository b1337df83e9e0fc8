"""Reading structured data out of model text."""

from __future__ import annotations

import re

from vero.core.thinking import split_thinking

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def parse_json_object(text: str | None) -> dict:
    """The JSON object in a model reply: fenced or bare, repaired if sloppy.

    Single quotes, trailing commas, comments and code fences are repaired by
    ``json_repair``.  Raises ``ValueError`` (with a reason the model can act on)
    when there is no usable object.
    """
    answer, _ = split_thinking(text)
    if not answer.strip():
        raise ValueError("the reply was empty")
    fenced = _FENCE.search(answer)
    candidate = fenced.group(1) if fenced else answer
    start, end = candidate.find("{"), candidate.rfind("}")
    if start < 0:
        raise ValueError("the reply contains no JSON object")
    candidate = candidate[start : end + 1] if end > start else candidate[start:]
    from json_repair import loads  # imported here: it adds ~45 ms to `import vero`

    data = loads(candidate)
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        data = data[0]
    if not isinstance(data, dict) or not data:
        raise ValueError("the reply is not a JSON object")
    return data


def parse_json_value(text: str):
    """Any JSON value (object, list, string, number), repaired if sloppy."""
    from json_repair import loads

    return loads(text)


_TRUE = {"true", "yes", "y", "1", "pass", "passed"}
_FALSE = {"false", "no", "n", "0", "fail", "failed"}


def as_bool(value, field: str) -> bool:
    """A boolean field from model JSON; the strings "true"/"false" count too."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError(f"`{field}` must be true or false, got {value!r}")


def as_score(value, field: str = "score") -> float:
    """A 0-100 score from model JSON; numeric strings count, out-of-range does not."""
    try:
        score = float(str(value).strip().rstrip("%"))
    except (TypeError, ValueError):
        raise ValueError(f"`{field}` must be a number from 0 to 100, got {value!r}") from None
    if not 0 <= score <= 100:
        raise ValueError(f"`{field}` must be between 0 and 100, got {score:g}")
    return score
