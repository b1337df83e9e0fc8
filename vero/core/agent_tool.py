"""``agent.as_tool()``: one agent as a tool of another (docs/typed-results.md, "Agents as tools").

Each call is a fresh run of the agent on ``task``, through the running agent's ``run_subagent`` (a
plain run when no agent is running).  Its answer is the tool's output; a run that ends without an
accepted answer raises ``SubagentFailed`` (an error observation), ``needs_review`` adds a line saying so.
"""

from __future__ import annotations

import contextvars
import math
import re
import threading
from typing import Annotated, Any, NamedTuple, cast

from vero.core.result import RunResult, Status
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
    agent: Any, name: str | None = None, description: str | None = None, read_only: bool | None = None
) -> Tool:
    """The ``Tool`` of ``Agent.as_tool``; unless ``read_only`` says otherwise, it may change things when the
    agent's pattern uses tools: what it reaches is not known when the tool is made (tools registered later,
    an executor of its own, an MCP server's new tools)."""

    def ask_agent(task: Annotated[str, TASK_DESCRIPTION]) -> str:
        return _answer(agent, _run_fresh(agent, task))

    return Tool(
        ask_agent,
        name=name or re.sub(r"[^A-Za-z0-9_-]", "_", agent.name)[:64] or "agent",  # what a tool's name may hold
        description=description or f"Ask the agent {agent.name!r} ({type(agent).__name__}) to do a task; it answers.",
        timeout=math.inf,  # the caller's budgets bound it, and cancelling the caller stops it
        read_only=not agent.uses_tools if read_only is None else read_only,
    )


def _run_fresh(agent: Any, task: str) -> RunResult:
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
            agent.run(task)
            return cast(RunResult, agent.last_result)  # set by every run() that returns
        return cast(RunResult, parent.run_subagent(agent, task))
    finally:
        with _LENDING:
            agent.history = saved
            _LENT.discard(id(agent))


_LENDING = threading.Lock()
_LENT: set[int] = set()  # the agents whose history a call as a tool has set aside


def _answer(agent: Any, result: RunResult) -> str:
    if result.status in (Status.OK, Status.NEEDS_REVIEW) and result.answer.strip():
        return result.answer + ("" if result.status == Status.OK else NOT_ACCEPTED.format(status=result.status))
    reason = f": {result.error}" if result.error else ""
    raise SubagentFailed(f"the agent {agent.name!r} ended '{result.status}' without an answer{reason}")
