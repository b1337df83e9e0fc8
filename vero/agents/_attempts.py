"""ReflexionAgent's data: the memory of reflections, each attempt and its verdict."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Number
from typing import Any

from vero.core.parsing import as_score
from vero.core.result import Status
from vero.core.text import clip

# fn(task, answer) -> (passed, score 0-100, feedback): an external check, such as unit tests
Evaluator = Callable[[str, str], tuple[bool, float, str]]


class ReflexionMemory:
    """The last ``max_size`` reflections, rendered for the next attempt's prompt."""

    def __init__(self, max_size: int = 3) -> None:
        if max_size < 1:
            raise ValueError("ReflexionMemory needs max_size >= 1")
        self.max_size = max_size
        self.reflections: list[dict[str, Any]] = []

    def add(self, reflection: str, attempt: int) -> None:
        self.reflections.append({"attempt": attempt, "reflection": reflection})
        del self.reflections[: -self.max_size]

    def render(self) -> str:
        if not self.reflections:
            return ""
        lines = [f"Attempt {r['attempt']}: {r['reflection']}" for r in self.reflections]
        return "<past_reflections>\n" + "\n".join(lines) + "\n</past_reflections>"

    def __len__(self) -> int:
        return len(self.reflections)


@dataclass(frozen=True)
class Verdict:
    """The evaluation of one attempt: passed or not, a score from 0 to 100, and why; ``outside``: from a check
    outside the model (``evaluator=``), so a call written in it and echoed later is a quote (the gate)."""

    passed: bool
    score: float
    feedback: str
    outside: bool = False

    def __str__(self) -> str:
        return f"{'pass' if self.passed else 'fail'} ({self.score:g}/100): {self.feedback}"


NOT_EVALUATED = Verdict(False, 0.0, "")


@dataclass(frozen=True)
class Attempt:
    """One try at the task and its verdict (an attempt not evaluated scores 0)."""

    number: int
    answer: str
    status: Status | str  # the executor's run status (a custom executor may report its own)
    trajectory: str
    verdict: Verdict = NOT_EVALUATED


def best(attempts: list[Attempt]) -> Attempt:
    """The highest-scoring attempt; on a tie, the earliest that did not fail (a failed one, a cut-off fragment, was
    never judged), else the earliest."""
    top = max(attempt.verdict.score for attempt in attempts)
    tied = [attempt for attempt in attempts if attempt.verdict.score == top]
    return next((attempt for attempt in tied if attempt.status != Status.FAILED), tied[0])


def _a_truth_value(value: object) -> bool:
    """A library's bool (numpy's): its type says its truth (``__bool__``).  Not text or a number, nor an object true
    for being there (a test run's result, a finished process) or a list (``[False]``)."""
    plain = value is None or isinstance(value, (str, bytes, Number, list, tuple, dict))  # Decimal, a count: numbers
    return not plain and getattr(type(value), "__bool__", None) is not None


def external_verdict(evaluator: Evaluator, task: str, answer: str) -> tuple[Verdict, str | None]:
    """The evaluator's verdict on ``answer``, and None; or, when it raises or returns anything but
    ``(passed, score, feedback)``, a failing verdict (score 0, the problem as its feedback) and the problem."""
    try:
        verdict = evaluator(task, answer)
    except Exception as exc:
        problem = f"evaluator raised {type(exc).__name__}: {exc}"
    else:
        try:
            passed, score, feedback = verdict
            if not isinstance(passed, bool) and not _a_truth_value(passed):  # numpy's bool too
                raise TypeError(f"passed must be True or False, not {type(passed).__name__}")  # bool("false") is True
            return Verdict(bool(passed), as_score(score), str(feedback or ""), outside=True), None
        except (TypeError, ValueError) as exc:
            shown = clip(repr(verdict), 300, " ...")
            problem = f"evaluator returned {shown} (expected (passed, score, feedback)): {exc}"
    return Verdict(False, 0.0, problem), problem
