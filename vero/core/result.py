"""What a run leaves behind: its steps and a ``RunResult``."""

from __future__ import annotations

import datetime
import json
import math
from collections import Counter
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from decimal import Decimal
from enum import Enum
from pathlib import PurePath
from typing import Any, cast
from uuid import UUID

from vero.core.deprecation import deprecated


class _Named(str, Enum):
    """A string enum (a typo is an AttributeError, not a silently different string) whose member equals,
    formats, prints and is written to JSON as its string (``'ok'``, not ``<Status.OK: 'ok'>``), so code
    comparing with strings and saved traces still work.  (``enum.StrEnum`` needs Python 3.11.)"""

    value: str

    __str__ = str.__str__
    __format__ = str.__format__  # type: ignore[assignment]  # the same method; typeshed's is positional-only
    __repr__ = str.__repr__


class Status(_Named):
    """How a run ended (``RunResult.status``); every agent uses these."""

    OK = "ok"  # the pattern finished and accepted its answer
    NEEDS_REVIEW = "needs_review"  # a bounded loop ended without acceptance
    MAX_TURNS = "max_turns"  # the turn budget ran out (or the agent looped)
    MAX_TOKENS = "max_tokens"  # the token budget (max_tokens_per_run) ran out
    REJECTED = "rejected"  # the user refused the plan
    FAILED = "failed"  # an error, unusable model output, or empty input
    CANCELLED = "cancelled"  # stopped by Agent.cancel(), or by leaving a stream (Agent.stream) early
    INVALID_OUTPUT = "invalid_output"  # the answer never fit run(output_type=...), after the re-asks


def __getattr__(name: str) -> Any:
    """The statuses' old module-level names (``from vero.core.result import OK``; ``STATUSES``), for one
    more release, with a ``DeprecationWarning``: write ``Status.OK`` and ``tuple(Status)``."""
    if name in Status.__members__:
        deprecated(f"vero.core.result.{name}", f"write Status.{name} (from vero.core.result import Status)")
        return Status[name]
    if name == "STATUSES":
        deprecated("vero.core.result.STATUSES", "write tuple(Status)")
        return tuple(Status)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class StepKind(_Named):
    """The kinds of step the built-in agents record (``Step.kind``).  A subclass of ``Agent`` may record kinds
    of its own (``self.record("vote", ...)``): those stay plain strings, shown with a plain bullet."""

    # the Agent base class, so any agent
    THINKING = "thinking"  # the model's reasoning, when the server sends it apart
    ACTION = "action"  # a tool call: name(arguments)
    OBSERVATION = "observation"  # a tool's result
    WARNING = "warning"  # something went wrong, and the loop carries on
    # several agents
    ERROR = "error"  # something went wrong that ends the draft, attempt or plan
    FINAL = "final"  # the answer
    THOUGHT = "thought"  # ReAct, tool calling
    REFLECTION = "reflection"  # ReAct's look back at failed steps, Reflexion's lesson
    # basic reflection
    DRAFT = "draft"
    CRITIQUE = "critique"
    REVISION = "revision"
    # plan and execute
    PLAN = "plan"
    PLAN_STEP = "plan_step"  # a plan step starting or ending (data["status"])
    REPLAN = "replan"
    APPROVAL = "approval"  # the user's verdict on the plan
    # Reflexion
    ATTEMPT = "attempt"
    EVALUATION = "evaluation"
    # no built-in agent records it; a custom agent's answer (the console has long had an icon for it)
    ANSWER = "answer"


class ToolError(_Named):
    """Why a tool call failed (``ToolOutcome.error``; an observation step's ``data["error"]``)."""

    UNKNOWN_TOOL = "unknown_tool"  # no tool of that name
    BAD_ARGUMENTS = "bad_arguments"  # the arguments do not fit the tool's schema
    EXCEPTION = "exception"  # the tool raised
    TIMEOUT = "timeout"  # the tool ran past its time limit
    BUSY = "busy"  # not run: too many timed-out calls are still running
    REPEATED_FAILURE = "repeated_failure"  # not run by Agent.run_tool: the same call failed before
    REFUSED = "refused"  # not run by the gate (vero.core.gate): a quote, or not approved


class PlanStepStatus(_Named):
    """Where a step of a plan stands (``PlanStep.status``; a ``plan_step`` step's ``data["status"]``)."""

    PENDING = "pending"  # not run yet
    IN_PROGRESS = "in_progress"  # its executor is running
    COMPLETED = "completed"  # it ended ok, and a tool call of it worked or none failed
    FAILED = "failed"  # it ended otherwise, or every tool call of it failed


_STEP_KINDS: dict[str, StepKind] = {kind.value: kind for kind in StepKind}


_STATUSES: dict[str, Status] = {status.value: status for status in Status}


def _plain(value: Any) -> Any:
    """``value`` with each of vero's named values (``Status``, ``StepKind``...; also inside dicts and lists) as
    its plain string: ``to_dict`` output then prints and compares like the JSON it becomes."""
    if isinstance(value, _Named):
        return value.value
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_plain(v) for v in value)
    return value


USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens")
MAX_CALL_TOKENS = 10**9  # more in one call is a broken server, not a real count


def add_usage(total: dict[str, int], usage: dict[str, Any] | None) -> None:
    """Add a call's token counts to a running total (in place), checked first (``token_counts``): a bad
    count adds 0, so the total never drops and a token budget cannot be dodged."""
    if usage:
        for key, count in token_counts(usage).items():
            total[key] = total.get(key, 0) + count


def normalize_usage(usage: dict[str, Any] | None) -> dict[str, Any] | None:
    """A call's usage with checked counts, and ``cached_tokens`` (servers report it as
    ``prompt_tokens_details.cached_tokens``) at the top level so that runs can add it up."""
    return {**usage, **token_counts(usage)} if isinstance(usage, dict) else None


def token_counts(usage: dict[str, Any]) -> dict[str, int]:
    """The counts of ``USAGE_KEYS`` as non-negative ints, whatever the server sent (``_token_count``); a
    missing or too small ``total_tokens`` is raised to prompt + completion: the token budget reads it."""
    counts = {key: _token_count(usage.get(key)) for key in USAGE_KEYS}
    if "cached_tokens" not in usage:
        details = usage.get("prompt_tokens_details")
        counts["cached_tokens"] = _token_count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    counts["total_tokens"] = max(counts["total_tokens"], counts["prompt_tokens"] + counts["completion_tokens"])
    return counts


def _token_count(value: Any) -> int:
    """One count: a number or numeric text; 0 for anything that is not a sane number (negative, NaN...)."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return 0
    sane = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= MAX_CALL_TOKENS
    return int(value) if sane else 0  # NaN is not sane: every comparison with it is false


def empty_usage() -> dict[str, int]:
    return dict.fromkeys(USAGE_KEYS, 0)


@dataclass(frozen=True, slots=True)
class Step:
    """One recorded step: a draft, critique, thought, action, observation, plan, ...  ``content`` is the full
    text (never truncated); ``data`` the structured details (tool arguments, scores, plan items, ...).  Frozen:
    a finished ``RunResult``'s steps stay as they were recorded."""

    kind: StepKind | str  # a known kind becomes a StepKind; a subclass's own stays a str
    content: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    turn: int = 0
    depth: int = 0  # 0 for this agent, 1 for a sub-agent's steps, ...

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _STEP_KINDS.get(self.kind, self.kind))  # frozen: set once, here

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict of plain values (``"kind": "final"``)."""
        try:
            data = asdict(self)  # a copy: what is done to it leaves the step be
        except Exception:  # a value that cannot be copied (an open file, a lock): as it is; to_json writes its str
            data = {item.name: getattr(self, item.name) for item in fields(self)}
        return cast(dict[str, Any], _plain(data))


@dataclass
class Outcome:
    """What a pattern's ``solve`` may return instead of a bare answer string."""

    answer: str
    status: Status | str = Status.OK

    def __post_init__(self) -> None:
        if self.status not in _STATUSES:  # "FAILED", "error": read as none, a failed run would keep its answer
            raise ValueError(f"Outcome status {self.status!r} is none of vero's: {', '.join(_STATUSES)}")
        self.status = _STATUSES[self.status]


@dataclass(frozen=True)
class RunResult:
    """The structured result of one ``run``: a snapshot, made when the run ends.  Frozen, with the steps as a
    tuple and a usage dict of its own, so that nothing the agent does later (another run, a callback) changes
    it; ``dataclasses.replace`` makes a changed copy."""

    answer: str = ""
    status: Status | str = Status.OK
    steps: tuple[Step, ...] = ()
    usage: dict[str, int] = field(default_factory=dict)
    llm_calls: int = 0
    elapsed_s: float = 0.0
    error: BaseException | None = None
    task: str = ""
    output: Any = None  # the answer as run(output_type=...) asked for it; None without a type, or when it never fit

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", _STATUSES.get(self.status, self.status))  # frozen: set once, here
        object.__setattr__(self, "steps", tuple(self.steps))
        object.__setattr__(self, "usage", dict(self.usage))

    @property
    def ok(self) -> bool:
        return self.status == Status.OK

    def steps_of(self, kind: StepKind | str) -> list[Step]:
        """The steps of one kind, in order, e.g. ``result.steps_of("action")`` (sub-agents' steps included)."""
        return [s for s in self.steps if s.kind == kind]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the fields: the error as ``{"type", "message", "status"}`` (or ``None``), not the
        exception itself; the output as plain JSON values (a dataclass as its fields, an Enum member as its value)."""
        return {
            "task": self.task,
            "answer": self.answer,
            "output": plain_output(self.output),
            "status": _plain(self.status),
            "steps": [s.to_dict() for s in self.steps],
            "usage": dict(self.usage),
            "llm_calls": self.llm_calls,
            "elapsed_s": round(self.elapsed_s, 4),
            "error": _describe_error(self.error),
        }

    def to_json(self, **kwargs: Any) -> str:
        """``to_dict()`` as JSON text; ``kwargs`` go to ``json.dumps`` (e.g. ``indent=2``)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str, **kwargs)


def _describe_error(error: BaseException | None) -> dict[str, Any] | None:
    if error is None:
        return None
    return {"type": type(error).__name__, "message": str(error), "status": getattr(error, "status", None)}


def _read_by_alias(model: type) -> bool:
    """A pydantic model is written by its aliases when they are what reading it takes (its schema asks for them), not
    when a field is written under another name than it is read by (``serialization_alias``)."""
    fields = getattr(model, "model_fields", {}).values()
    return all(getattr(field, "serialization_alias", None) in (None, getattr(field, "alias", None)) for field in fields)


def plain_output(value: Any) -> Any:
    """A typed output as plain JSON values (for ``RunResult.to_dict``): a dataclass or ``NamedTuple`` as its fields, a
    pydantic model as its ``model_dump``, an Enum member as its value, a date, datetime or time as its ISO text, a
    Decimal, UUID or path as its text (``"12.50"``: every digit): what reading the output type takes back."""
    if hasattr(value, "model_dump") and callable(value.model_dump) and not isinstance(value, type):  # not a class
        return value.model_dump(mode="json", by_alias=_read_by_alias(type(value)))
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain_output(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: plain_output(v) for k, v in value._asdict().items()}
    if isinstance(value, Enum):
        return plain_output(value.value)
    if isinstance(value, dict):  # keys as text; one that would read as another (1 beside "1") says its type
        keys = [str(plain_output(k)) for k in value]
        counts = Counter(keys) if len(set(keys)) < len(keys) else None
        if counts:  # {"1": ..., "1 (int)": ...}: none lost
            keys = [k if type(o) is str or counts[k] == 1 else f"{k} ({type(o).__name__})" for o, k in zip(value, keys)]
        return dict(zip(keys, (plain_output(v) for v in value.values())))
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain_output(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):  # a datetime is a date
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):  # no JSON number: "NaN", "Infinity" or "-Infinity"
        return json.dumps(value)
    return str(value) if isinstance(value, (Decimal, UUID, PurePath)) else value
