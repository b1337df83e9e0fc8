"""The reflection suite: small programming tasks with stated requirements.

Each task states its requirements in words; hidden tests (never shown to the
agent) check every requirement.  Plain (one model call) and
``BasicReflectionAgent`` (draft, critique, revise) answer the same tasks, so
the table shows what the critic adds on a small model.
"""

from __future__ import annotations

import time

import humaneval

from vero.agents import BasicReflectionAgent

CODER_SYSTEM = "You are an expert Python programmer. Reply with the complete code in one ```python code block."

TASKS = [
    (
        "slugify",
        "Write a Python function `slugify(text: str) -> str`. Requirements: the result is lowercase; every "
        "run of characters that are not ASCII letters or digits becomes a single hyphen; there is no hyphen at the "
        "start or the end.",
        [
            "assert slugify('Hello, World!') == 'hello-world'",
            "assert slugify('  --Already--Slugged--  ') == 'already-slugged'",
            "assert slugify('A  B\\tC') == 'a-b-c'",
            "assert slugify('') == ''",
            "assert slugify('Ünïcode 42') == 'n-code-42'",
        ],
    ),
    (
        "parse_duration",
        "Write a Python function `parse_duration(text: str) -> int` that returns the number of "
        "seconds in a duration such as '1h30m15s'. Requirements: the units are h, m and s, each optional but in that "
        "order; at least one unit must be present; anything else (including an empty string) raises ValueError.",
        [
            "assert parse_duration('1h30m15s') == 5415",
            "assert parse_duration('45m') == 2700",
            "assert parse_duration('2h') == 7200",
            "assert parse_duration('90s') == 90",
            "import pytest_raises_stub as _r; _r.raises(ValueError, parse_duration, '')",
            "import pytest_raises_stub as _r; _r.raises(ValueError, parse_duration, '5x')",
            "import pytest_raises_stub as _r; _r.raises(ValueError, parse_duration, '15s1h')",
        ],
    ),
    (
        "chunk",
        "Write a Python function `chunk(items: list, size: int) -> list[list]` that splits a list into "
        "consecutive pieces of `size` items (the last piece may be shorter). Requirements: a size below 1 raises "
        "ValueError; an empty list gives an empty list; the input list is not modified.",
        [
            "assert chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]",
            "assert chunk([], 3) == []",
            "assert chunk([1, 2], 5) == [[1, 2]]",
            "import pytest_raises_stub as _r; _r.raises(ValueError, chunk, [1], 0)",
            "x = [1, 2, 3]; chunk(x, 2); assert x == [1, 2, 3]",
        ],
    ),
    (
        "to_roman",
        "Write a Python function `to_roman(n: int) -> str` that returns the Roman numeral of n. "
        "Requirements: standard subtractive notation (4 is IV, 90 is XC); n must be from 1 to 3999, otherwise raise "
        "ValueError.",
        [
            "assert to_roman(4) == 'IV'",
            "assert to_roman(1994) == 'MCMXCIV'",
            "assert to_roman(3999) == 'MMMCMXCIX'",
            "assert to_roman(1) == 'I'",
            "import pytest_raises_stub as _r; _r.raises(ValueError, to_roman, 0)",
            "import pytest_raises_stub as _r; _r.raises(ValueError, to_roman, 4000)",
        ],
    ),
    (
        "merge_intervals",
        "Write a Python function `merge_intervals(intervals: list[tuple[int, int]]) -> "
        "list[tuple[int, int]]`. Requirements: overlapping intervals are merged, and so are intervals that only "
        "touch (end of one equals start of the next); the result is sorted by start; the input may be unsorted; "
        "the result holds tuples.",
        [
            "assert merge_intervals([(5, 7), (1, 3), (2, 4)]) == [(1, 4), (5, 7)]",
            "assert merge_intervals([(1, 2), (2, 3)]) == [(1, 3)]",
            "assert merge_intervals([]) == []",
            "assert merge_intervals([(1, 10), (2, 3)]) == [(1, 10)]",
        ],
    ),
    (
        "word_counts",
        "Write a Python function `word_counts(text: str) -> dict[str, int]`. Requirements: words are "
        "runs of letters (apostrophes inside a word, as in don't, belong to it); counting ignores case; the keys "
        "are lowercase.",
        [
            "assert word_counts('The cat and the hat.') == {'the': 2, 'cat': 1, 'and': 1, 'hat': 1}",
            "assert word_counts(\"Don't stop, DON'T!\") == {\"don't\": 2, 'stop': 1}",
            "assert word_counts('') == {}",
            "assert word_counts('a1b') == {'a': 1, 'b': 1}",
        ],
    ),
]

_RAISES_STUB = """
import sys, types
_stub = types.ModuleType("pytest_raises_stub")
def _raises(kind, fn, *args):
    try:
        fn(*args)
    except kind:
        return
    raise AssertionError(f"{fn.__name__}{args!r} did not raise {kind.__name__}")
_stub.raises = _raises
sys.modules["pytest_raises_stub"] = _stub
"""


def passes(code_reply: str, tests: list[str]) -> tuple[bool, str]:
    """Run the reply's code and the hidden tests in a subprocess."""
    code = humaneval.extract_code(code_reply)
    program = _RAISES_STUB + "\n" + code + "\n\n" + "\n".join(tests) + "\nprint('ALL-PASSED')\n"
    ok, output = humaneval.run_python(program, 10.0)
    return ok and "ALL-PASSED" in output, output[-600:]


def run_reflection_suite(llm, limit: int | None = None) -> list[dict]:
    from run import result_row

    def plain() -> humaneval.PlainAgent:  # the same first request as BasicReflectionAgent's draft
        return humaneval.PlainAgent("plain", llm, system_prompt=CODER_SYSTEM, verbose=False)

    def reflection() -> BasicReflectionAgent:
        return BasicReflectionAgent("reflection", llm, system_prompt=CODER_SYSTEM, verbose=False)

    rows = []
    for label, make in (("plain (one call)", plain), ("BasicReflectionAgent", reflection)):
        for name, task, tests in TASKS[:limit]:
            agent = make()
            started = time.perf_counter()
            agent.run(task + "\nReply with the code in one ```python code block.")
            result = agent.last_result
            ok, output = passes(result.answer, tests)
            rows.append(
                result_row(
                    "reflection",
                    label,
                    name,
                    result,
                    ok,
                    time.perf_counter() - started,
                    test_output="" if ok else output,
                )
            )
    return rows
