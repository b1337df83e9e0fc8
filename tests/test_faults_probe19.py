"""The multi-stage patterns and agents of one's own on bad input: an outside probe found runs ending ``ok`` that had
no answer (a verdict written as text, a replanner's ``false`` beside its steps, an empty answer, a step refused for
good), fragments kept as answers, a given executor carrying one run's attempts into the next, and tracebacks."""

from __future__ import annotations

import enum
import io
import json
import threading
from typing import Any

import pytest

from vero import Agent, Message
from vero.agents import BasicReflectionAgent, PlanExecuteAgent, ReflexionAgent, ToolCallingAgent
from vero.agents._native import MAX_NUDGES
from vero.agents._plan import Finished, Remaining, read_replan, read_steps
from vero.core.parsing import parse_json_object
from vero.core.result import Outcome, Status
from vero.errors import LLMCallError
from vero.testing import ScriptedLLM
from vero.tools.builtin import calculator

CUT_OFF = "length"


def cut(text: str) -> dict[str, Any]:
    return {"content": text, "finish_reason": CUT_OFF}


def verdict(passed: bool, score: int, reason: str = "the reason") -> str:
    return json.dumps({"pass": passed, "score": score, "reason": reason})


class Answers(Agent):
    """An agent of one's own whose ``solve`` returns what it is given."""

    def __init__(self, answer: Any) -> None:
        super().__init__("own", ScriptedLLM([]), verbose=False)
        self.answer = answer

    def solve(self, task: str, **kwargs: Any) -> Any:
        return self.answer() if callable(self.answer) else self.answer


# ---------------------------------------------------------------------------- a verdict is read, not guessed


@pytest.mark.parametrize("passed", ["false", "no", "0", "fail", 1])
def test_an_evaluators_passed_that_is_no_bool_fails_the_attempt(passed: Any) -> None:
    llm = ScriptedLLM(["5", "a lesson", "6", "another lesson", "7"])
    agent = ReflexionAgent("r", llm, verbose=False, evaluator=lambda task, answer: (passed, 0, "tests failed"))
    agent.run("What is 2+2?")
    assert agent.last_result.status == Status.NEEDS_REVIEW
    assert "passed must be True or False" in agent.last_result.steps_of("evaluation")[0].content


@pytest.mark.parametrize("response", [False, 0, True])
def test_a_replanners_non_text_response_beside_its_steps_is_no_answer(response: Any) -> None:
    plan = json.dumps({"steps": ["Compute 17*23 with calculator", "Add 5 to it with calculator"]})
    replan = json.dumps({"response": response, "steps": ["Add 5 to it with calculator"]})
    llm = ScriptedLLM(
        [
            plan,
            'Action: calculator\nAction Input: {"expression": "17*23"}',
            "Final Answer: 391",
            replan,
            'Action: calculator\nAction Input: {"expression": "391+5"}',
            "Final Answer: 396",
            json.dumps({"response": "396"}),
        ]
    )
    agent = PlanExecuteAgent("p", llm, tools=[calculator], verbose=False)
    assert agent.run("What is 17*23 + 5?") == "396"
    assert agent.last_result.status == Status.OK and llm.calls == 7


def test_a_replanners_true_alone_is_still_its_answer() -> None:
    llm = ScriptedLLM([json.dumps({"steps": ["Say whether 2 is even"]}), "Final Answer: yes", '{"response": true}'])
    agent = PlanExecuteAgent("p", llm, tools=[calculator], verbose=False)
    assert agent.run("Is 2 even?") == "true" and agent.last_result.status == Status.OK


@pytest.mark.parametrize("answer", ["", "   ", "\u200b", "\ufeff", Outcome("", Status.OK)])
def test_an_empty_answer_from_solve_is_a_failed_run_kept_out_of_history(answer: Any) -> None:
    agent = Answers(answer)
    agent.run("the task")
    assert agent.last_result.status == Status.FAILED and "no answer text" in str(agent.last_result.error)
    assert agent.history == []


def test_an_empty_answer_with_a_status_of_its_own_stays_that_status() -> None:
    agent = Answers(Outcome("", Status.NEEDS_REVIEW))
    agent.run("the task")
    assert agent.last_result.status == Status.NEEDS_REVIEW


@pytest.mark.parametrize("status", ["FAILED", "error", None, "Failed "])
def test_an_outcome_status_that_is_none_of_veros_fails_the_run_naming_them(status: Any) -> None:
    agent = Answers(lambda: Outcome("an answer", status))
    agent.run("the task")
    assert agent.last_result.status == Status.FAILED and agent.history == []
    assert f"Outcome status {status!r} is none of vero's: ok, needs_review" in str(agent.last_result.error)


def test_a_plan_step_whose_model_call_is_refused_for_good_fails_the_run() -> None:
    refused = LLMCallError("Error code: 400 - 'tools' is not supported", status=400, parameter="tools")

    def reply(messages: list[Any], tools: Any = None) -> str:
        if tools:
            raise refused
        return json.dumps({"steps": ["Compute 17*23 with calculator"]} if llm.calls == 1 else {"response": "381"})

    llm = ScriptedLLM(default=reply)
    agent = PlanExecuteAgent("p", llm, tools=[calculator], verbose=False, protocol="native")
    agent.run("What is 17*23?")
    assert agent.last_result.status == Status.FAILED and agent.last_result.error is refused
    assert agent.history == [] and llm.calls == 2  # the plan, the step's one call: no replanner's guess


@pytest.mark.parametrize(
    ("status", "for_good"), [(400, False), (401, True), (403, True), (404, True), (429, False), (503, False)]
)
def test_a_model_error_is_for_good_by_its_status(status: int, for_good: bool) -> None:
    assert LLMCallError("refused", status=status).for_good is for_good
    assert LLMCallError("timed out").for_good is False
    assert LLMCallError("no such parameter", status=None, parameter="seed").for_good is True
    assert LLMCallError("the context is too long", status=400, parameter="messages").for_good is False


# ---------------------------------------------------------------------------- fragments are no answers


def test_a_cut_off_attempt_never_judged_loses_a_tie_to_a_whole_one() -> None:
    llm = ScriptedLLM(
        [
            cut("The capital of Australia is Syd"),
            "lesson 1",
            "Sydney",
            verdict(False, 0, "Wrong: the capital is Canberra."),
            "lesson 2",
            "Canberra, I think? Or Sydney.",
            verdict(False, 0, "Hedged between two cities."),
        ]
    )
    agent = ReflexionAgent("r", llm, verbose=False)
    assert agent.run("What is the capital of Australia?") == "Sydney"
    assert agent.last_result.status == Status.NEEDS_REVIEW


def test_a_cut_off_revision_does_not_replace_the_whole_draft_before_it() -> None:
    critique = json.dumps({"thinking": "t", "is_sufficient": False, "feedback": "Add the population."})
    llm = ScriptedLLM(["Paris is the capital of France.", critique, cut("Paris, with a population of about 2.1 mil")])
    agent = BasicReflectionAgent("b", llm, verbose=False, max_turns=2)
    assert agent.run("Capital of France, and its population?") == "Paris is the capital of France."
    assert agent.last_result.status == Status.NEEDS_REVIEW


# ---------------------------------------------------------------------------- a given executor's history


class Solver(Agent):
    def solve(self, task: str, **kwargs: Any) -> str:
        return self.call_llm([Message("system", "Answer."), *self.history_messages(), Message("user", task)]).text


def test_a_given_executor_starts_each_attempt_and_run_from_its_own_history() -> None:
    llm = ScriptedLLM(["5", verdict(False, 10), "lesson: 2+2 is not 5", "6", KeyboardInterrupt()])
    executor = Solver("solver", llm, verbose=False)
    agent = ReflexionAgent("r", llm, verbose=False, executor=executor)
    with pytest.raises(KeyboardInterrupt):
        agent.run("What is 2+2?")
    assert executor.history == []
    second_attempt = llm.requests[3].messages
    assert [m["role"] for m in second_attempt] == ["system", "user"]  # the lesson is in its task, not its history
    llm.responses[:] = ["6", verdict(True, 95)]
    agent.run("What is 3+3?")
    assert [m["content"] for m in llm.requests[-2].messages] == ["Answer.", "What is 3+3?"]


# ---------------------------------------------------------------------------- no tracebacks


def test_a_step_whose_data_cannot_be_copied_is_written_by_to_json() -> None:
    lock = threading.Lock()

    class Noting(Agent):
        def solve(self, task: str, **kwargs: Any) -> str:
            self.record("note", "kept the lock", lock=lock)
            return "done"

    agent = Noting("n", ScriptedLLM([]), verbose=False)
    agent.run("the task")
    note = json.loads(agent.last_result.to_json())["steps"][0]
    assert note["kind"] == "note" and note["data"]["lock"] == str(lock)


class Vote(enum.Enum):
    CAST = 1


@pytest.mark.parametrize("kind", [Vote.CAST, 42])
def test_a_step_kind_that_is_no_string_prints_as_one_line(kind: Any, capsys: pytest.CaptureFixture[str]) -> None:
    class Voting(Agent):
        def solve(self, task: str, **kwargs: Any) -> str:
            self.record(kind, "Paris")
            return "Paris"

    stream = io.StringIO()
    agent = Voting("v", ScriptedLLM([]), verbose=False)
    agent.events.callbacks.append(_printer(stream))
    agent.run("Capital of France?")
    shown = [line for line in stream.getvalue().splitlines() if line.startswith("• ")]
    assert shown == [f"• {str(kind).capitalize()}: Paris"]
    assert "Traceback" not in capsys.readouterr().err


def _printer(stream: io.StringIO) -> Any:
    from vero.core.events import ConsolePrinter

    return ConsolePrinter(stream)


# ---------------------------------------------------------------------------- replies that say two things


@pytest.mark.parametrize(
    "reply",
    [
        '{"pass": false, "score": 20, "reason": "2+2 is 4"}\n{"pass": true, "score": 90, "reason": "ok"}',
        "{'pass': False, 'score': 20} then {'pass': True, 'score': 90}",
        '[{"pass": false, "score": 20}, {"pass": true, "score": 90}]',
    ],
)
def test_two_verdicts_that_disagree_are_asked_again_not_merged_into_the_last(reply: str) -> None:
    with pytest.raises(ValueError, match="more than one JSON object, giving 'pass' different values"):
        parse_json_object(reply)
    llm = ScriptedLLM(["5", reply, verdict(False, 10, "2+2 is 4"), "a lesson", "4", verdict(True, 95)])
    agent = ReflexionAgent("r", llm, verbose=False, max_turns=2)
    assert agent.run("What is 2+2?") == "4" and llm.calls == 6


def test_the_same_object_written_twice_is_read_once() -> None:
    assert parse_json_object('{"pass": true, "score": 90}\n{"pass": true, "score": 90}') == {"pass": True, "score": 90}


# ---------------------------------------------------------------------------- plans as small models write them


def test_null_true_and_nested_lists_are_no_plan_steps() -> None:
    assert read_steps({"steps": [None, True, ["a", "b"], "Compute 2+2 with calculator"]}) == [
        "Compute 2+2 with calculator"
    ]


def test_a_steps_list_number_is_no_part_of_it_and_a_renumbered_plan_is_no_replan() -> None:
    steps = ["Compute 2+2 with calculator", "Compute 3+3 with calculator", "Compute 4+4 with calculator"]
    plan = json.dumps({"steps": steps})
    done = 'Action: calculator\nAction Input: {"expression": "%s"}'
    replies = [plan]
    for left in (steps[1:], steps[2:]):
        renumbered = [f"{number}. {step}" for number, step in enumerate(left, 1)]
        replies += [done % "1+1", "Final Answer: 2", json.dumps({"steps": renumbered})]
    replies += [done % "1+1", "Final Answer: 2", json.dumps({"response": "done"})]
    agent = PlanExecuteAgent("p", ScriptedLLM(replies), tools=[calculator], verbose=False, max_replans=0)
    assert agent.run("Add up three sums.") == "done" and agent.last_result.status == Status.OK
    assert agent.last_result.steps_of("replan") == []


# ---------------------------------------------------------------------------- a model that cannot be brief


def test_replies_always_cut_off_end_a_tool_calling_run_after_two_notes() -> None:
    llm = ScriptedLLM(default=cut("A very long answer that never"))
    agent = ToolCallingAgent("t", llm, tools=[calculator], verbose=False)
    agent.run("Explain.")
    assert agent.last_result.status == Status.FAILED and llm.calls == MAX_NUDGES + 1
    assert agent.history == []


def test_a_plan_with_no_step_run_has_no_answer_made_up_from_no_results() -> None:
    llm = ScriptedLLM([json.dumps({"steps": ["Look up the population of the city"]}), "About 37 million."])
    agent = PlanExecuteAgent("p", llm, tools=[calculator], verbose=False, max_turns=0)
    assert agent.run("How many people live in the city?") == ""
    assert agent.last_result.status == Status.MAX_TURNS and llm.calls == 1 and agent.history == []


# ---------------------------------------------------------------------------- a review of these fixes


def test_replies_cut_off_now_and_then_in_a_long_run_are_each_asked_again() -> None:
    calls = [{"tool_calls": [{"name": "calculator", "arguments": {"expression": f"{n}+1"}}]} for n in range(4)]
    replies: list[Any] = []
    for call in calls:  # a cut-off reply before each call: three and more in a run, never three in a row
        replies += [cut("Saving the next section, which"), call]
    llm = ScriptedLLM([*replies, "All four sections are saved."])
    agent = ToolCallingAgent("t", llm, tools=[calculator], verbose=False)
    assert agent.run("Save four sections.") == "All four sections are saved."
    assert agent.last_result.status == Status.OK


class NumpyLikeBool:
    """What ``numpy.allclose`` returns: no ``bool``, and no number either, but true or false."""

    def __init__(self, value: bool) -> None:
        self.value = value

    def __bool__(self) -> bool:
        return self.value


def test_an_evaluators_bool_of_another_library_is_its_verdict() -> None:
    llm = ScriptedLLM(["4"])
    agent = ReflexionAgent("r", llm, verbose=False, evaluator=lambda task, answer: (NumpyLikeBool(True), 100, "ok"))
    assert agent.run("What is 2+2?") == "4" and agent.last_result.status == Status.OK


@pytest.mark.parametrize("placeholder", ["null", "None", "N/A", "TBD", "..."])
def test_a_replanners_placeholder_text_beside_its_steps_is_no_answer(placeholder: str) -> None:
    decision = read_replan({"response": placeholder, "steps": ["Add 5 to it"]}, ["Compute 17*23"], ["Add 5 to it"])
    assert decision == Remaining(["Add 5 to it"])
    assert read_replan({"response": "None"}, ["Compute 17*23"], []) == Finished("None")  # alone, it is the answer


def test_a_budget_that_ends_a_reflection_run_returns_the_last_whole_draft() -> None:
    critique = json.dumps({"thinking": "t", "is_sufficient": False, "feedback": "Add the population."})
    replies = [
        {"content": "Paris is the capital of France.", "usage": {"total_tokens": 40}},
        {"content": critique, "usage": {"total_tokens": 40}},
        {"content": "Paris, with about 2.1 mil", "finish_reason": CUT_OFF, "usage": {"total_tokens": 40}},
        {"content": critique, "usage": {"total_tokens": 400}},
    ]
    agent = BasicReflectionAgent("b", ScriptedLLM(replies), verbose=False, max_tokens_per_run=150)
    assert agent.run("Capital of France, and its population?") == "Paris is the capital of France."
    assert agent.last_result.status == Status.MAX_TOKENS
