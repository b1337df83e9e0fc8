"""What a run leaves behind: its steps and a ``RunResult``."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

# The statuses every agent shares.
OK = "ok"                      # the pattern finished and accepted its answer
NEEDS_REVIEW = "needs_review"  # a bounded loop ended without acceptance
MAX_TURNS = "max_turns"        # the turn budget ran out (or the agent looped)
MAX_TOKENS = "max_tokens"      # the token budget (max_tokens_per_run) ran out
REJECTED = "rejected"          # the user refused the plan
FAILED = "failed"              # an error, unusable model output, or empty input
STATUSES = (OK, NEEDS_REVIEW, MAX_TURNS, MAX_TOKENS, REJECTED, FAILED)

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens")
MAX_CALL_TOKENS = 10**9  # more in one call is a broken server, not a real count


def add_usage(total: dict, usage: dict | None) -> None:
    """Add a call's token counts to a running total (in place).

    The counts are checked first (``token_counts``): a bad count adds 0, so the
    total never drops and a token budget cannot be dodged.
    """
    if usage:
        for key, count in token_counts(usage).items():
            total[key] = total.get(key, 0) + count


def normalize_usage(usage: dict | None) -> dict | None:
    """A call's usage with checked counts and ``cached_tokens`` at the top level.

    Servers report prompt tokens served from their prompt cache as
    ``prompt_tokens_details.cached_tokens`` (OpenAI, llama.cpp's llama-server);
    vero keeps it beside the other counts so that runs can add it up.  Other
    keys are kept as sent.
    """
    if not isinstance(usage, dict):
        return None
    return {**usage, **token_counts(usage)}


def token_counts(usage: dict) -> dict[str, int]:
    """The counts of ``USAGE_KEYS`` as non-negative ints, whatever the server sent.

    Numeric strings count (``"12"``); anything else that is not a sane number
    (negative, bool, NaN, infinite, absurd, a list ...) counts 0.  A missing or
    too small ``total_tokens`` is raised to prompt + completion: the token
    budget reads the total.
    """
    counts = {key: _token_count(usage.get(key)) for key in USAGE_KEYS}
    if "cached_tokens" not in usage:
        details = usage.get("prompt_tokens_details")
        counts["cached_tokens"] = _token_count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    counts["total_tokens"] = max(counts["total_tokens"], counts["prompt_tokens"] + counts["completion_tokens"])
    return counts


def _token_count(value: Any) -> int:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if not 0 <= value <= MAX_CALL_TOKENS:  # also false for NaN
        return 0
    return int(value)


def empty_usage() -> dict:
    return dict.fromkeys(USAGE_KEYS, 0)


@dataclass(slots=True)
class Step:
    """One recorded step: a draft, critique, thought, action, observation, plan, ...

    ``content`` is the full text (never truncated); ``data`` holds the
    structured details (tool arguments, scores, plan items, ...).
    """

    kind: str
    content: str = ""
    data: dict = field(default_factory=dict)
    turn: int = 0
    depth: int = 0  # 0 for this agent, 1 for a sub-agent's steps, ...

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Outcome:
    """What a pattern's ``solve`` may return instead of a bare answer string."""

    answer: str
    status: str = OK


@dataclass
class RunResult:
    """The structured result of one ``run``."""

    answer: str = ""
    status: str = OK
    steps: list[Step] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    llm_calls: int = 0
    elapsed_s: float = 0.0
    error: BaseException | None = None
    task: str = ""

    @property
    def ok(self) -> bool:
        return self.status == OK

    def steps_of(self, kind: str) -> list[Step]:
        """The steps of one kind, in order, e.g. ``result.steps_of("action")`` (sub-agents' steps included)."""
        return [s for s in self.steps if s.kind == kind]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the task, answer, status, steps, usage, model calls, time and error.

        The error is ``{"type", "message", "status"}`` (or ``None``), not the exception itself.
        """
        return {
            "task": self.task,
            "answer": self.answer,
            "status": self.status,
            "steps": [s.to_dict() for s in self.steps],
            "usage": dict(self.usage),
            "llm_calls": self.llm_calls,
            "elapsed_s": round(self.elapsed_s, 4),
            "error": _describe_error(self.error),
        }

    def to_json(self, **kwargs) -> str:
        """``to_dict()`` as JSON text; ``kwargs`` go to ``json.dumps`` (e.g. ``indent=2``)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str, **kwargs)


def _describe_error(error: BaseException | None) -> dict | None:
    if error is None:
        return None
    return {"type": type(error).__name__, "message": str(error), "status": getattr(error, "status", None)}
