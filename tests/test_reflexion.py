"""ReflexionAgent: attempt -> evaluate -> reflect, with past reflections fed into the next attempt."""

import json

import pytest

from vero import Agent, Message, tool
from vero.agents.reflexion import ReflexionAgent, ReflexionMemory
from vero.core.result import Status
from vero.testing import ScriptedLLM


def verdict(passed, score, reason="because"):
    return json.dumps({"pass": passed, "reason": reason, "score": score})


def make(replies, **kwargs):
    llm = ScriptedLLM(list(replies))
    return ReflexionAgent("rx", llm, verbose=False, **kwargs), llm


def kinds(agent, depth=0):
    return [s.kind for s in agent.last_result.steps if s.depth == depth]


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


# -- ReflexionMemory -----------------------------------------------------------------
def test_memory_renders_past_reflections_and_keeps_only_the_last_ones():
    memory = ReflexionMemory(max_size=2)
    assert memory.render() == "" and len(memory) == 0
    memory.add("first lesson", 1)
    assert memory.render() == "<past_reflections>\nAttempt 1: first lesson\n</past_reflections>"
    memory.add("second lesson", 2)
    memory.add("third lesson", 3)
    assert len(memory) == 2
    assert memory.render() == (
        "<past_reflections>\nAttempt 2: second lesson\nAttempt 3: third lesson\n</past_reflections>"
    )
    with pytest.raises(ValueError):
        ReflexionMemory(0)


# -- the loop, without tools (one plain generation per attempt) ------------------------
def test_first_attempt_passing_costs_two_calls():
    agent, llm = make(["42", verdict(True, 95, "correct")])
    assert agent.run("6 * 7?") == "42"
    result = agent.last_result
    assert result.status == Status.OK and llm.calls == 2 and result.llm_calls == 2
    assert kinds(agent) == ["attempt", "evaluation"]
    evaluation = result.steps_of("evaluation")[0]
    assert evaluation.data == {"attempt": 1, "passed": True, "score": 95.0, "feedback": "correct", "outside": False}
    assert evaluation.content == "pass (95/100): correct"
    judge = llm.requests[1].messages
    assert "at least 80" in judge[0]["content"] and judge[1]["content"] == "## Task\n6 * 7?\n\n## Answer\n42"


def test_reflection_of_attempt_one_is_in_the_prompt_of_attempt_two():
    reflection = "Diagnosis: step 2 multiplied 6 by 6. Plan: multiply 6 by 7."
    agent, llm = make(["36", verdict(False, 20, "36 is 6*6, not 6*7"), reflection, "42", verdict(True, 100)])
    assert agent.run("6 * 7?") == "42"
    assert agent.last_result.status == Status.OK and llm.calls == 5
    assert kinds(agent) == ["attempt", "evaluation", "reflection", "attempt", "evaluation"]
    first_attempt, second_attempt = llm.requests[0].messages[1]["content"], llm.requests[3].messages[1]["content"]
    assert first_attempt == "6 * 7?"
    assert second_attempt.startswith("6 * 7?\n\n<past_reflections>\nAttempt 1: " + reflection + "\n</past_reflections>")
    reflector = llm.requests[2].messages
    assert "Vague advice" in reflector[0]["content"] and "specific step" in reflector[0]["content"]
    assert "## Attempt 1: answer\n36" in reflector[1]["content"]
    assert "## Evaluation (score 20/100)\n36 is 6*6, not 6*7" in reflector[1]["content"]
    assert agent.memory.reflections == [{"attempt": 1, "reflection": reflection}]


def test_no_attempt_passing_returns_the_best_one_needs_review_with_exact_calls():
    replies = ["a1", verdict(False, 40), "r1", "a2", verdict(False, 70), "r2", "a3", verdict(False, 70), "never"]
    agent, llm = make(replies)  # max_attempts defaults to 3
    assert agent.run("task") == "a2"  # highest score, earliest of the tie
    assert agent.last_result.status == Status.NEEDS_REVIEW
    assert llm.calls == 8 and llm.remaining == 1  # 3 * 3 - 1: no reflection after the last attempt
    assert kinds(agent).count("reflection") == 2


def test_no_attempt_with_an_answer_at_all_ends_failed_saying_why():
    replies = ["", verdict(False, 0), "r1", "", verdict(False, 0), "r2", "", verdict(False, 0)]
    agent, _ = make(replies)
    assert agent.run("task") == ""
    result = agent.last_result
    assert result.status == Status.FAILED and "no attempt gave an answer (3 attempts" in str(result.error)


def test_judge_pass_needs_the_score_to_reach_pass_score():
    agent, llm = make(["a1", verdict(True, 60), "r1", "a2", verdict(True, 85)], max_turns=2)
    assert agent.run("task") == "a2"
    assert [s.data["passed"] for s in agent.last_result.steps_of("evaluation")] == [False, True]
    agent, llm = make(["a1", verdict(True, 60)], pass_score=60)
    assert agent.run("task") == "a1" and agent.last_result.status == Status.OK and llm.calls == 2
    agent, llm = make(["a1", verdict(False, 95)], max_turns=1)
    assert agent.run("task") == "a1" and agent.last_result.status == Status.NEEDS_REVIEW


def test_string_pass_and_score_are_read():
    agent, llm = make(["a1", '{"pass": "true", "reason": "ok", "score": "85"}'])
    assert agent.run("task") == "a1" and agent.last_result.status == Status.OK
    assert agent.last_result.steps_of("evaluation")[0].data["score"] == 85.0


@pytest.mark.parametrize("bad_score, problem", [(150, "between 0 and 100"), ("high", "must be a number")])
def test_bad_score_is_reasked_with_the_problem(bad_score, problem):
    agent, llm = make(["a1", verdict(True, bad_score), verdict(True, 90)])
    assert agent.run("task") == "a1" and agent.last_result.status == Status.OK
    assert llm.calls == 3
    reask = llm.requests[2].messages[-1]["content"]
    assert problem in reask and '"score": <number from 0 to 100>' in reask


def test_unusable_judge_output_ends_needs_review_with_the_raw_output():
    agent, llm = make(["a1", "Looks right to me.", "Yes.", "Definitely passes."])
    assert agent.run("task") == "a1"
    result = agent.last_result
    assert result.status == Status.NEEDS_REVIEW and llm.calls == 4  # attempt + judge + 2 re-asks
    assert result.steps_of("error")[0].content == "Definitely passes."
    assert result.steps_of("evaluation") == []


def test_unusable_judge_on_a_later_attempt_returns_the_best_scored_attempt():
    agent, llm = make(["a1", verdict(False, 50), "r1", "a2", "prose", "prose", "prose"])
    assert agent.run("task") == "a1"
    assert agent.last_result.status == Status.NEEDS_REVIEW and llm.calls == 7


def test_external_evaluator_replaces_the_judge_and_its_feedback_reaches_the_reflector():
    seen = []

    def unit_tests(task, answer):
        seen.append((task, answer))
        if answer == "def f(): return 2":
            return False, 30, "test_f: expected 3, got 2"
        return True, 100, "all tests passed"

    agent, llm = make(
        ["def f(): return 2", "Diagnosis: f returns 2. Plan: return 3.", "def f(): return 3"], evaluator=unit_tests
    )
    assert agent.run("write f returning 3") == "def f(): return 3"
    assert agent.last_result.status == Status.OK and llm.calls == 3  # no judge calls
    assert seen == [("write f returning 3", "def f(): return 2"), ("write f returning 3", "def f(): return 3")]
    assert "## Evaluation (score 30/100)\ntest_f: expected 3, got 2" in llm.requests[1].messages[1]["content"]
    assert "Attempt 1: Diagnosis: f returns 2." in llm.requests[2].messages[1]["content"]


def test_external_evaluator_passed_is_final_even_below_pass_score():
    agent, llm = make(["a1"], evaluator=lambda task, answer: (True, 10, "tests pass"))
    assert agent.run("task") == "a1" and agent.last_result.status == Status.OK and llm.calls == 1


def test_memory_size_limits_what_the_next_attempt_sees():
    replies = ["a1", verdict(False, 10), "lesson one", "a2", verdict(False, 20), "lesson two", "a3", verdict(True, 90)]
    agent, llm = make(replies, memory_size=1)
    assert agent.run("task") == "a3"
    third = llm.requests[6].messages[1]["content"]
    assert "Attempt 2: lesson two" in third and "lesson one" not in third


def test_overlong_reflection_is_cut():
    agent, llm = make(["a1", verdict(False, 10), "word " * 400, "a2", verdict(True, 90)])
    agent.run("task")
    reflection = agent.last_result.steps_of("reflection")[0].content
    assert len(reflection.split()) == 201 and reflection.endswith("...")


def test_max_attempts_is_the_deprecated_old_name_of_max_turns():
    with pytest.warns(DeprecationWarning, match="max_attempts"):
        assert make([])[0].max_attempts == 3
        assert make([], max_turns=5)[0].max_attempts == 5
        assert make([], max_attempts=2)[0].max_turns == 2  # giving both, different, raises (test_pattern_decisions)


def test_empty_input_makes_no_model_call():
    agent, llm = make(["never"])
    assert agent.run("") == "" and agent.last_result.status == Status.FAILED and llm.calls == 0


def test_braces_in_the_task_and_answers_are_safe():
    task = "Explain {x} and {{y}}"
    agent, llm = make(["{x} is {0}", verdict(False, 10, "bad {z}"), "lesson {w}", "ok {}", verdict(True, 90)])
    assert agent.run(task) == "ok {}"
    second_attempt = llm.requests[3].messages[1]["content"]
    assert second_attempt.startswith("Explain {x} and {{y}}\n\n<past_reflections>\nAttempt 1: lesson {w}")


def test_history_reaches_the_next_run():
    agent, llm = make(["Alice", verdict(True, 90), "Alice again", verdict(True, 90)])
    agent.run("I am Alice")
    agent.run("Who am I?")
    assert [m.content for m in agent.history] == ["I am Alice", "Alice", "Who am I?", "Alice again"]
    assert "User: I am Alice\nAssistant: Alice" in llm.requests[2].messages[0]["content"]


def test_token_budget_returns_the_best_attempt_so_far():
    usage = {"prompt_tokens": 40, "completion_tokens": 10, "total_tokens": 50}
    replies = [{"content": c, "usage": usage} for c in ["a1", verdict(False, 60), "r1", "a2", verdict(False, 10)]]
    agent, llm = make(replies, max_tokens_per_run=170)
    assert agent.run("task") == "a1"
    assert agent.last_result.status == Status.MAX_TOKENS and llm.calls == 4


# -- executors -----------------------------------------------------------------------
def test_default_executor_is_react_over_the_shared_tools():
    replies = [
        'Thought: add them\nAction: add\nAction Input: {"a": 2, "b": 2}',
        "Final Answer: 4",
        verdict(False, 0, "the task asked for 2 + 3"),
        "Diagnosis: the add call used b=2 but the task says 3. Plan: call add with a=2, b=3.",
        'Thought: retry\nAction: add\nAction Input: {"a": 2, "b": 3}',
        "Final Answer: 5",
        verdict(True, 100),
    ]
    agent, llm = make(replies, tools=[add])
    assert agent.run("2 + 3?") == "5"
    result = agent.last_result
    assert result.status == Status.OK and llm.calls == 7 and result.llm_calls == 7
    assert kinds(agent) == ["attempt", "evaluation", "reflection", "attempt", "evaluation"]
    assert [s.content for s in result.steps if s.kind == "observation" and s.depth == 1] == ["4", "5"]
    assert llm.requests[0].stop == ["Observation:"] and "add(" in llm.requests[0].messages[0]["content"]
    reflector_request = llm.requests[3].messages[1]["content"]
    assert "action: add(a=2, b=2)" in reflector_request and "observation: 4" in reflector_request
    assert "<past_reflections>\nAttempt 1: Diagnosis: the add call used b=2" in llm.requests[4].messages[-1]["content"]


@tool
def flaky(x: str) -> str:
    """Always fails."""
    raise RuntimeError("service down")


def test_reflector_sees_the_failing_tool_call_and_unknown_tool():
    replies = [
        "Thought: t\nAction: nosuch\nAction Input: {}",
        'Thought: t\nAction: flaky\nAction Input: {"x": "1"}',
        "Final Answer: guessed",
        "no call",  # the request to repair the failed call (vero.agents._repair): no call written
        "Final Answer: guessed",  # asked once more, since no tool call worked
        verdict(False, 10, "the answer is a guess"),
        "Diagnosis: flaky raised RuntimeError. Plan: answer from known facts.",
        "Final Answer: known",
        verdict(True, 90),
    ]
    agent, llm = make(replies, tools=[flaky])
    assert agent.run("task") == "known" and llm.calls == 9
    trajectory = llm.requests[6].messages[1]["content"]
    assert "observation: Error: unknown tool 'nosuch'" in trajectory
    assert "observation: Error: tool 'flaky' raised RuntimeError: service down" in trajectory


def test_failed_executor_run_scores_zero_without_a_judge_call():
    replies = [
        "no format",
        "still none",
        "nothing",
        "Diagnosis: no Action line. Plan: use the format.",
        "Final Answer: 5",
        verdict(True, 90),
    ]
    agent, llm = make(replies, tools=[add])
    assert agent.run("2 + 3?") == "5"
    first = agent.last_result.steps_of("evaluation")[0]
    assert first.data["score"] == 0 and "no usable answer (executor status: failed)" in first.data["feedback"]
    assert llm.calls == 6  # 3 malformed executor calls, no judge, 1 reflection, 1 executor call, 1 judge
    assert "(the run ended with status failed" in llm.requests[3].messages[1]["content"]


class Doubler(Agent):
    """A custom executor: asks its own model once."""

    def solve(self, task):
        return self.call_llm([Message.user(task)]).text


def test_any_agent_can_be_the_executor():
    executor_llm = ScriptedLLM(["draft", "better"])
    executor = Doubler("doubler", executor_llm, verbose=False)
    agent, llm = make(
        [verdict(False, 30, "too vague"), "Plan: be concrete about X.", verdict(True, 90)], executor=executor
    )
    assert agent.run("task") == "better"
    result = agent.last_result
    assert result.status == Status.OK and result.llm_calls == 5 and llm.calls == 3 and executor_llm.calls == 2
    assert "Attempt 1: Plan: be concrete about X." in executor_llm.requests[1].messages[-1]["content"]


# -- end to end through the real client ----------------------------------------------
def test_end_to_end_through_chat_openai_and_the_mock_server():
    from vero.core.chat_openai import ChatOpenAI
    from vero.testing import MockOpenAIServer

    replies = [
        "41",
        verdict(False, 10, "off by one"),
        "Diagnosis: added 1 too few. Plan: add 1.",
        "42",
        verdict(True, 100),
    ]
    with MockOpenAIServer(replies) as srv:
        llm = ChatOpenAI(api_key="test", base_url=srv.base_url, model_name="m", max_retries=0)
        agent = ReflexionAgent("e2e", llm, verbose=False)
        assert agent.run("6 * 7?") == "42"
        assert agent.last_result.status == Status.OK and agent.last_result.llm_calls == 5 and len(srv.requests) == 5
        assert "<past_reflections>\nAttempt 1: Diagnosis: added 1 too few." in srv.requests[3]["messages"][1]["content"]


# -- a broken external evaluator fails only its attempt ----------------------------------
def raises(task, answer):
    raise RuntimeError("the test runner crashed")


@pytest.mark.parametrize(
    "evaluator, feedback",
    [
        (raises, "evaluator raised RuntimeError: the test runner crashed"),
        (
            lambda task, answer: (True, 150, "great"),
            "evaluator returned (True, 150, 'great') (expected (passed, score, feedback))",
        ),
        (lambda task, answer: True, "evaluator returned True (expected (passed, score, feedback))"),
        (lambda task, answer: (True, 90), "evaluator returned (True, 90) (expected (passed, score, feedback))"),
    ],
)
def test_a_broken_external_evaluator_fails_that_attempt_and_the_run_goes_on(evaluator, feedback):
    def evaluate(task, answer):  # broken on the first attempt only
        return evaluator(task, answer) if answer == "a1" else (True, 100, "all tests passed")

    agent, llm = make(["a1", "Diagnosis: the check broke. Plan: try again.", "a2"], evaluator=evaluate)
    assert agent.run("task") == "a2"
    result = agent.last_result
    assert result.status == Status.OK and result.error is None and llm.calls == 3
    assert kinds(agent) == ["attempt", "error", "evaluation", "reflection", "attempt", "evaluation"]
    error = result.steps_of("error")[0]
    assert error.content.startswith(feedback) and error.data == {"attempt": 1}
    first = result.steps_of("evaluation")[0]
    assert first.data["passed"] is False and first.data["score"] == 0
    assert first.data["feedback"].startswith(feedback)
    assert "## Evaluation (score 0/100)\n" + feedback in llm.requests[1].messages[1]["content"]


def test_an_evaluator_that_always_raises_ends_needs_review_with_the_first_attempt():
    agent, llm = make(["a1", "r1", "a2", "r2", "a3"], evaluator=raises)
    assert agent.run("task") == "a1"
    result = agent.last_result
    assert result.status == Status.NEEDS_REVIEW and llm.calls == 5
    assert len(result.steps_of("error")) == 3 and len(result.steps_of("attempt")) == 3


# -- examples/reflexion_coding.py reads its test count from a marker line ------------------
def load_example(name):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / name
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GOOD_IPV4 = """
def is_valid_ipv4(address):
    parts = address.split(".")
    return len(parts) == 4 and all(p.isdigit() and p.isascii() and str(int(p)) == p and int(p) <= 255
                                   for p in parts)
"""


def test_the_coding_example_is_not_fooled_by_what_the_solution_prints():
    example = load_example("reflexion_coding.py")
    n = len(example.CASES)
    # a wrong solution that prints a 0 of its own before the test count
    passed, score, feedback = example.run_unit_tests("t", "print(0)\ndef is_valid_ipv4(address):\n    return True")
    assert passed is False and score < 100 and f"of {n} tests failed" in feedback
    # a correct one that prints while it runs, including something like the marker's count
    chatty = GOOD_IPV4.replace("    parts =", "    print('3 failures? no');\n    parts =")
    assert example.run_unit_tests("t", f"```python\nprint(7)\n{chatty}```") == (True, 100, f"All {n} tests passed.")
    passed, score, feedback = example.run_unit_tests("t", "def is_valid_ipv4(address):\n    return 'yes'")
    assert passed is False and score == 0 and f"{n} of {n} tests failed" in feedback
