"""A run's state lives in a ``Run`` object that ends with the run: a finished
``RunResult`` is a snapshot nothing on the agent can change afterwards."""

import dataclasses

import pytest

from vero import tool
from vero.agents import ReActAgent
from vero.core.agent import Run
from vero.core.result import RunResult, Step, StepKind
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
    steps, usage = tuple(result.steps), dict(result.usage)
    agent.record("note", "after the run")
    with pytest.raises(RuntimeError, match="only inside run"):
        agent.call_llm([])
    assert result.steps == steps and result.usage == usage


def test_a_run_result_is_frozen_and_holds_its_own_steps_and_usage():
    result = finished_agent().last_result
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.answer = "changed"  # type: ignore[misc]
    assert isinstance(result.steps, tuple)
    assert dataclasses.replace(result, answer="43").answer == "43" and result.answer == "42"
    made = RunResult(steps=[Step("final", "x")], usage={"total_tokens": 1})
    assert made.steps == (Step("final", "x"),)
    with pytest.raises(dataclasses.FrozenInstanceError):  # its steps too
        result.steps[-1].content = "changed"  # type: ignore[misc]
    assert result.steps[-1].content == "42" and Step("final").kind is StepKind.FINAL


def test_a_callback_that_changes_the_run_end_usage_leaves_the_result_alone():
    def spoil(event):
        if event.type == "run_end":
            event.data["usage"]["total_tokens"] = -1

    llm = ScriptedLLM(["Final Answer: 42"])
    agent = ReActAgent("t", llm, tools=[lookup], verbose=False, callbacks=[spoil])
    agent.run("What is x?")
    assert agent.last_result.usage["total_tokens"] > 0


def test_the_run_object_exists_only_while_the_agent_runs():
    seen: list = []

    @tool
    def peek() -> str:
        """Look at the agent's run."""
        seen.append(agent.current_run)
        return "ok"

    llm = ScriptedLLM(["Thought: peek\nAction: peek\nAction Input: {}", "Final Answer: done"])
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


class Outer(ReActAgent):
    """Runs one sub-agent on the task and returns its answer."""

    def solve(self, task, **kwargs):
        return self.run_subagent(self.inner, task).answer


def test_run_subagent_leaves_the_child_as_it_was_and_nests_its_steps():
    seen: list = []
    inner = ReActAgent(
        "inner",
        ScriptedLLM(['Thought: t\nAction: lookup\nAction Input: {"name": "x"}', "Final Answer: 42"]),
        tools=[lookup],
        callbacks=[seen.append],
        max_tokens_per_run=10**6,
    )
    callbacks, budget = inner.events.callbacks, inner.max_tokens_per_run
    middle = Outer("middle", ScriptedLLM([]), verbose=False)
    middle.inner = inner
    outer = Outer("outer", ScriptedLLM([]), verbose=False, max_tokens_per_run=10**5)
    outer.inner = middle
    assert outer.run("x?") == "42"
    assert inner.events.callbacks is callbacks and inner.max_tokens_per_run == budget
    assert {s.depth for s in outer.last_result.steps} == {2}  # the inner agent's steps, two levels down
    assert any(e.type == "step" for e in seen)  # the child's own listeners still hear its steps


def test_a_sub_agent_s_own_printer_rests_while_the_parent_prints_its_steps(capsys):
    inner = ReActAgent("inner", ScriptedLLM(["Final Answer: 42"]), verbose=True)
    outer = Outer("outer", ScriptedLLM([]), verbose=True)
    outer.inner = inner
    outer.run("x?")
    printed = capsys.readouterr().out
    assert "`inner`" not in printed and printed.count("`outer`") == 1  # one header: the parent's
    assert "    ✅ Final: 42" in printed  # the inner agent's step, printed once, one level deeper
    assert printed.count("Final: 42") == 1


def test_a_token_budget_covers_sub_agents_nested_two_deep():
    inner = ReActAgent(
        "inner",
        ScriptedLLM([{"content": "Final Answer: 42", "usage": {"prompt_tokens": 900, "completion_tokens": 200}}]),
        verbose=False,
    )
    middle = Outer("middle", ScriptedLLM([]), verbose=False)  # no budget of its own
    middle.inner = inner
    outer = Outer("outer", ScriptedLLM([]), verbose=False, max_tokens_per_run=1000)
    outer.inner = middle
    outer.run("x?")
    assert inner.last_result.status == "max_tokens"  # the outer budget reached two levels down
    assert outer.last_result.status == "max_tokens"
