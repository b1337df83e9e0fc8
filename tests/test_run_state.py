"""A run's state lives in a ``Run`` object that ends with the run: a finished
``RunResult`` is a snapshot nothing on the agent can change afterwards."""

import pytest

from vero import tool
from vero.agents import ReActAgent
from vero.core.agent import Run
from vero.testing import ScriptedLLM


@tool
def lookup(name: str) -> str:
    """Look something up.

    Args:
        name: what to look up.
    """
    return f"{name}: 42"


def finished_agent() -> ReActAgent:
    llm = ScriptedLLM(['Thought: look\nAction: lookup\nAction Input: {"name": "x"}', "Final Answer: 42"])
    agent = ReActAgent("t", llm, tools=[lookup], verbose=False)
    assert agent.run("What is x?") == "42"
    return agent


def test_nothing_done_after_a_run_changes_its_result():
    agent = finished_agent()
    result = agent.last_result
    steps, usage = list(result.steps), dict(result.usage)
    agent.record("note", "after the run")
    with pytest.raises(RuntimeError, match="only inside run"):
        agent.call_llm([])
    assert result.steps == steps and result.usage == usage


def test_the_run_object_exists_only_while_the_agent_runs():
    seen: list = []

    @tool
    def peek() -> str:
        """Look at the agent's run."""
        seen.append(agent.current_run)
        return "ok"

    llm = ScriptedLLM(['Thought: peek\nAction: peek\nAction Input: {}', "Final Answer: done"])
    agent = ReActAgent("t", llm, tools=[peek], verbose=False)
    agent.run("peek")
    assert isinstance(seen[0], Run) and seen[0].task == "peek"
    with pytest.raises(RuntimeError):
        _ = agent.current_run


def test_react_keeps_its_loop_counters_in_the_run_not_on_the_agent():
    agent = finished_agent()
    assert not [name for name in vars(agent) if name in ("_format_errors", "_repeats", "_last_actions", "_notes")]
    # a second run starts from fresh counters: three malformed replies end it, as on the first run
    agent.llm = ScriptedLLM(["no labels", "still none", "nothing"])
    agent.run("again")
    assert agent.last_result.status == "failed" and agent.llm.calls == 3
