"""The two-call runs of benchmarks/function_count.py enter at most 51 distinct vero functions each (issue 33;
50 before the gate of issue 44)."""

import importlib.util
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "function_count.py"


def load_benchmark():
    spec = importlib.util.spec_from_file_location("vero_function_count", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_two_call_react_run_and_tool_calling_run_each_enter_at_most_51_vero_functions():
    benchmark = load_benchmark()
    counts = {name: len(functions) for name, functions in benchmark.counts().items()}
    assert set(counts) == {"ReActAgent (text)", "ToolCallingAgent"}
    assert all(count <= benchmark.LIMIT == 51 for count in counts.values()), counts


def test_with_a_tool_that_may_change_things_the_safety_checks_add_at_most_ten():
    benchmark = load_benchmark()
    counts = {name: len(functions) for name, functions in benchmark.counts(benchmark.MAY_CHANGE).items()}
    assert all(count <= benchmark.LIMIT_CHANGING == 61 for count in counts.values()), counts
    assert any(f.endswith(" decide") for f in benchmark.counts(benchmark.MAY_CHANGE)["ReActAgent (text)"])  # the gate


def test_the_count_sees_the_agent_s_own_functions():
    functions = load_benchmark().counts()["ToolCallingAgent"]
    assert any(f.endswith("ToolCallingAgent.solve") for f in functions)
    assert any(f.endswith("Agent.run_tool") for f in functions)
