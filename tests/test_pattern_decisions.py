"""The patterns' decisions are typed values, their per-run state stays with the run, and
``max_turns`` is the one budget name (``max_steps`` / ``max_attempts`` are its old names)."""

import copy
import dataclasses
import json

import pytest

from vero.agents._plan import read_replan
from vero.agents.plan_execute import Approval, Finished, PlanExecuteAgent, Remaining
from vero.agents.reflexion import NOT_EVALUATED, Attempt, ReflexionAgent, Verdict
from vero.core.result import Status
from vero.testing import ScriptedLLM


def plan(*steps):
    return json.dumps({"steps": list(steps)})


def verdict(passed, score, reason="because"):
    return json.dumps({"pass": passed, "reason": reason, "score": score})


def planner(replies, **kwargs):
    llm = ScriptedLLM(list(replies))
    return PlanExecuteAgent("pe", llm, verbose=False, **kwargs), llm


def reflexion(replies, **kwargs):
    llm = ScriptedLLM(list(replies))
    return ReflexionAgent("rx", llm, verbose=False, **kwargs), llm


def top_steps(result):
    return [(s.kind, s.content) for s in result.steps if s.depth == 0]


# -- one budget name: max_turns; max_steps / max_attempts are aliases ---------------------------
def test_max_steps_alias_sets_the_step_budget_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match=r"max_steps= is deprecated.*max_turns="):
        agent, llm = planner(
            [
                plan("a", "b", "c"),
                "Final Answer: ra",
                plan("b", "c"),
                "Final Answer: rb",
                plan("c"),
                "Best effort",
                "never",
            ],
            max_steps=2,
        )
    assert agent.max_turns == 2
    assert agent.run("task") == "Best effort"
    assert agent.last_result.status == Status.MAX_TURNS and llm.calls == 6  # plan + 2 * (step + replan) + the answer


@pytest.mark.filterwarnings("ignore:max_steps=:DeprecationWarning")
def test_max_steps_and_max_turns_agreeing_is_fine_and_differing_raises_naming_both():
    assert planner([], max_turns=4, max_steps=4)[0].max_turns == 4
    with pytest.raises(ValueError, match=r"max_steps=7 and max_turns=4"):
        planner([], max_turns=4, max_steps=7)


def test_max_attempts_alias_sets_the_attempt_budget_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match=r"max_attempts= is deprecated.*max_turns="):
        agent, llm = reflexion(["a1", verdict(False, 40), "never"], max_attempts=1)
    assert agent.max_turns == 1
    assert agent.run("task") == "a1"
    assert agent.last_result.status == Status.NEEDS_REVIEW and llm.calls == 2  # one attempt, no reflection after it


@pytest.mark.filterwarnings("ignore:max_attempts=:DeprecationWarning")
def test_max_attempts_and_max_turns_agreeing_is_fine_and_differing_raises_naming_both():
    assert reflexion([], max_turns=2, max_attempts=2)[0].max_turns == 2
    with pytest.raises(ValueError, match=r"max_attempts=5 and max_turns=2"):
        reflexion([], max_turns=2, max_attempts=5)


def test_budget_aliases_are_read_only_views_of_max_turns_that_warn():
    agent = planner([], max_turns=3)[0]
    agent.max_turns = 6
    with pytest.warns(DeprecationWarning, match=r"PlanExecuteAgent.max_steps is deprecated.*max_turns"):
        assert agent.max_steps == 6
    with pytest.warns(DeprecationWarning, match=r"ReflexionAgent.max_attempts is deprecated"):
        assert reflexion([], max_turns=2)[0].max_attempts == 2
    with pytest.raises(AttributeError):
        agent.max_steps = 2


# -- Reflexion: the memory belongs to the run -----------------------------------------------------
def test_reflexion_memory_is_fresh_per_run_and_a_finished_run_is_not_changed_by_the_next():
    lesson = "Diagnosis: 6*6 was computed. Plan: compute 6*7."
    agent, llm = reflexion(
        ["36", verdict(False, 20, "wrong"), lesson, "42", verdict(True, 100), "blue", verdict(True, 90)]
    )
    assert agent.run("6 * 7?") == "42"
    first, first_memory = agent.last_result, agent.memory
    first_steps = copy.deepcopy(first.steps)
    assert first_memory.reflections == [{"attempt": 1, "reflection": lesson}]

    assert agent.run("Name a colour.") == "blue"
    assert "<past_reflections>" not in llm.requests[5].messages[-1]["content"]  # no lesson from the first run
    assert len(agent.memory) == 0 and agent.memory is not first_memory
    assert first_memory.reflections == [{"attempt": 1, "reflection": lesson}]  # the first run's memory as it was
    assert first.answer == "42" and first.status == Status.OK and first.steps == first_steps
    assert agent.last_result is not first


def test_reflexion_memory_during_a_run_is_that_runs():
    seen = []

    def evaluator(task, answer):
        seen.append([r["reflection"] for r in agent.memory.reflections])
        return answer == "42", 100 if answer == "42" else 10, "wrong"

    agent = ReflexionAgent(
        "rx", ScriptedLLM(["41", "lesson A", "42", "40", "lesson B", "42"]), evaluator=evaluator, verbose=False
    )
    agent.run("6 * 7?")
    agent.run("7 * 6?")
    assert seen == [[], ["lesson A"], [], ["lesson B"]]  # never the other run's lesson
    assert [r["reflection"] for r in agent.memory.reflections] == ["lesson B"]


def test_reflexion_memory_cannot_be_replaced_from_outside():
    agent = reflexion([])[0]
    assert len(agent.memory) == 0 and agent.memory.max_size == 3
    with pytest.raises(AttributeError):
        agent.memory = None


# -- Reflexion: the evaluation is a value, the attempt is not changed --------------------------------
def test_evaluate_returns_a_verdict_and_leaves_the_attempt_unchanged():
    agent = reflexion([], evaluator=lambda task, answer: (False, 30, "test_f failed"))[0]
    attempt = Attempt(1, "def f(): pass", Status.OK, "(trajectory)")
    before = copy.copy(attempt)
    assert agent._evaluate("write f", attempt) == Verdict(False, 30.0, "test_f failed", outside=True)
    assert attempt == before and attempt.verdict is NOT_EVALUATED
    empty = Attempt(2, "  ", Status.OK, "(trajectory)")
    assert agent._evaluate("write f", empty).feedback.startswith("The attempt produced no usable answer")
    assert empty.verdict is NOT_EVALUATED
    with pytest.raises(dataclasses.FrozenInstanceError):
        attempt.answer = "changed"  # type: ignore[misc]


def test_the_judge_evaluation_leaves_the_attempt_unchanged():
    seen = []

    class Watched(ReflexionAgent):
        def _evaluate(self, task, attempt):
            before = copy.copy(attempt)
            result = super()._evaluate(task, attempt)
            seen.append((attempt == before, result))
            return result

    llm = ScriptedLLM(["42", verdict(True, 95, "correct")])
    agent = Watched("rx", llm, verbose=False)
    assert agent.run("6 * 7?") == "42"
    assert seen == [(True, Verdict(True, 95.0, "correct"))]
    assert agent.last_result.steps_of("evaluation")[0].content == "pass (95/100): correct"


# -- PlanExecute: the gate's and the replanner's decisions -----------------------------------------
def test_a_rejected_plan_ends_rejected_with_the_same_steps():
    agent, llm = planner([plan("a", "b"), "never"], approve=lambda p: False)
    assert agent.run("task") == ""
    result = agent.last_result
    assert result.status == Status.REJECTED and result.error is None and llm.calls == 1
    assert top_steps(result) == [("plan", "1. [ ] a\n2. [ ] b"), ("approval", "rejected")]
    assert [s.data for s in result.steps] == [{"steps": ["a", "b"]}, {"approved": False}]


def test_a_plan_still_sent_back_after_the_revisions_ends_rejected_with_the_same_steps():
    agent, llm = planner([plan("v0"), plan("v1"), "never"], approve=lambda p: " no ", max_plan_revisions=1)
    assert agent.run("task") == ""
    result = agent.last_result
    assert result.status == Status.REJECTED and llm.calls == 2
    assert top_steps(result) == [
        ("plan", "1. [ ] v0"),
        ("approval", "sent back with feedback: no"),
        ("plan", "1. [ ] v1"),
        ("approval", "sent back with feedback: no"),
    ]
    assert "## Feedback on that plan\n no " in llm.requests[1].messages[1]["content"]  # the feedback as given


@pytest.mark.parametrize(
    "returned, expected",
    [
        (True, Approval(True)),
        ("add a check", Approval(False, "add a check")),
        (False, Approval(False)),
        (None, Approval(False)),
        ("  ", Approval(False)),
        (1, Approval(False)),
        (Approval(True), Approval(True)),
    ],
)
def test_what_an_approve_function_returns_is_read_as_an_approval(returned, expected):
    assert Approval.of(returned) == expected


def test_an_approve_function_may_return_an_approval_with_feedback():
    verdicts = iter([Approval(False, "name the tool"), Approval(True)])
    agent, llm = planner([plan("v0"), plan("v1 with lookup"), "done", "the answer"], approve=lambda p: next(verdicts))
    agent.run("task")
    assert [content for kind, content in top_steps(agent.last_result) if kind == "approval"] == [
        "sent back with feedback: name the tool",
        "approved",
    ]
    assert "## Feedback on that plan\nname the tool" in llm.requests[1].messages[1]["content"]


def test_negative_max_plan_revisions_is_refused_when_the_agent_is_made():
    with pytest.raises(ValueError, match="max_plan_revisions must be 0 or more"):
        planner([], max_plan_revisions=-1)


def test_the_replanner_decision_is_a_typed_value():
    assert read_replan({"response": " done "}, [], []) == Finished("done")
    assert read_replan({"steps": ["A", "b"]}, ["a"], ["b"]) == Remaining(["b"])  # a repeated completed step is dropped
    assert read_replan({"steps": ["a"]}, ["a"], ["b"]) == Remaining(["b"])  # only completed steps: the plan stands
    with pytest.raises(ValueError, match="no steps remain"):
        read_replan({"steps": ["a"]}, ["a"], [])
