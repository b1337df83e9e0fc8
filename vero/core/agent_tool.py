"""``agent.as_tool()``: one agent as a tool of another (docs/typed-results.md, "Agents as tools").

Each call is a fresh run of the agent on ``task``, through the running agent's ``run_subagent`` (a
plain run when no agent is running).  Its answer is the tool's output; a run that ends without an
accepted answer raises ``SubagentFailed`` (an error observation), ``needs_review`` adds a line saying so.
"""

from __future__ import annotations

import contextvars
import json
import math
import re
import threading
from collections.abc import Callable
from typing import Annotated, Any, NamedTuple, NoReturn, cast

from vero.core.output import OutputSpec
from vero.core.result import RunResult, Status, StepKind, ToolError
from vero.core.text import clip
from vero.errors import VeroError
from vero.tools.base import Tool


class Running(NamedTuple):
    """The agent whose run is in progress in this context, and that run (``Agent._guarded`` sets them): an agent run
    as a tool runs as part of that run, and the run's approvers (kept once it ended) decide its calls too, also for
    an agent a tool of it starts later.  (``Any``: ``vero.core.agent`` imports this module.)"""

    agent: Any
    run: Any


RUNNING_AGENT: contextvars.ContextVar[Running | None] = contextvars.ContextVar("vero_running_agent", default=None)
NO_RUN = Running(None, None)  # RUNNING_AGENT outside any run

TASK_DESCRIPTION = "the task for the agent, in full: it sees nothing of this conversation"
NOT_ACCEPTED = "\n(The agent ended '{status}': its own check did not accept this answer.)"


class SubagentFailed(VeroError):
    """The agent run as a tool ended without an answer; the message names its status and error."""


def agent_tool(
    agent: Any,
    name: str | None = None,
    description: str | None = None,
    read_only: bool | None = None,
    run_options: dict[str, Any] | None = None,
) -> Tool:
    """The ``Tool`` of ``Agent.as_tool``; unless ``read_only`` says otherwise, it may change things when the
    agent's pattern uses tools: what it reaches is not known when the tool is made (tools registered later,
    an executor of its own, an MCP server's new tools).  ``run_options``: each run's keywords (``output_type``)."""
    options = dict(run_options or {})
    if "output_type" in options:  # a type with no JSON form: a TypeError now, not at the first call
        OutputSpec(options["output_type"], options.get("output_retries", 0))

    def ask_agent(task: Annotated[str, TASK_DESCRIPTION]) -> Any:
        result = _run_fresh(agent, task, options)
        return _typed_answer(agent, result) if "output_type" in options else _answer(agent, result)

    return Tool(
        ask_agent,
        name=name or re.sub(r"[^A-Za-z0-9_-]", "_", agent.name)[:64] or "agent",  # what a tool's name may hold
        description=description or f"Ask the agent {agent.name!r} ({type(agent).__name__}) to do a task; it answers.",
        timeout=math.inf,  # the caller's budgets bound it, and cancelling the caller stops it
        read_only=not agent.uses_tools if read_only is None else read_only,
    )


def _run_fresh(agent: Any, task: str, options: dict[str, Any]) -> RunResult:
    """A run of ``agent`` on ``task`` with no earlier conversation, as part of the running agent's run."""
    parent: Any = (RUNNING_AGENT.get() or NO_RUN).agent
    if parent is agent:
        raise SubagentFailed(f"the agent {agent.name!r} cannot call itself as a tool")
    with _LENDING:  # one caller at a time sets the history aside, and puts it back
        if agent._running.locked() or id(agent) in _LENT:  # that history belongs to the run in progress
            raise SubagentFailed(f"the agent {agent.name!r} is busy with a task (perhaps a caller's): ask later")
        _LENT.add(id(agent))
        saved, agent.history = agent.history, []
    try:
        if parent is None:
            agent.run(task, **options)
            return cast(RunResult, agent.last_result)  # set by every run() that returns
        return cast(RunResult, parent.run_subagent(agent, task, **options))
    finally:
        with _LENDING:
            agent.history = saved
            _LENT.discard(id(agent))


_LENDING = threading.Lock()
_LENT: set[int] = set()  # the agents whose history a call as a tool has set aside


def _answer(agent: Any, result: RunResult) -> str:
    """The sub-run's answer, or ``SubagentFailed`` saying why there is none."""
    if result.status in (Status.OK, Status.NEEDS_REVIEW) and result.answer.strip():
        return result.answer + ("" if result.status == Status.OK else NOT_ACCEPTED.format(status=result.status))
    _fail(agent, result)


def _typed_answer(agent: Any, result: RunResult) -> Any:
    """The sub-run's typed output (``null`` too, when the type allows it), as JSON; one the agent's own check did not
    accept (``needs_review``) as JSON text with a line saying so; else ``SubagentFailed``."""
    if result.status == Status.OK:
        return result.output  # the tool's output: the value as JSON (a dataclass's fields...)
    if result.status == Status.NEEDS_REVIEW and result.output is not None:
        return json.dumps(result.to_dict()["output"], ensure_ascii=False) + NOT_ACCEPTED.format(status=result.status)
    _fail(agent, result)


def _fail(agent: Any, result: RunResult) -> NoReturn:
    """``SubagentFailed``: the run's status and error, and the calls that ran before it ended (not to be made again
    unasked)."""
    reason = f": {result.error}" if result.error else ""
    ran = calls_that_ran(result)
    ran_text = f"; before it ended, these calls ran: {'; '.join(ran)}" if ran else ""
    raise SubagentFailed(f"the agent {agent.name!r} ended '{result.status}' without an answer{reason}{ran_text}")


MAX_CALLS_SHOWN = 10


def calls_that_ran(result: RunResult, of: Callable[[str], bool] = lambda tool: True) -> list[str]:
    """The calls of a run (its sub-agents' too) that ran and worked, or timed out, as its action steps show them;
    ``of``: those of the tools it says yes to (the tools that may change things, say)."""
    ran, pending = [], {}  # the last action at each depth, until its observation
    for step in result.steps:
        if step.kind == StepKind.ACTION and of(str(step.data.get("tool", ""))):
            pending[step.depth] = step.content
        elif step.kind == StepKind.OBSERVATION and step.depth in pending:
            late = step.data.get("error") == ToolError.TIMEOUT  # its thread may have gone on to finish it
            called = pending.pop(step.depth)
            ran += [called] if step.data.get("ok") else [f"{called} (timed out: it may have run)"] if late else []
    shown = ran[:MAX_CALLS_SHOWN] + ([f"and {len(ran) - MAX_CALLS_SHOWN} more"] if len(ran) > MAX_CALLS_SHOWN else [])
    return [clip(text, 200, "…", within=True) for text in shown]
