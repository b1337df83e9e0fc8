"""ReflexionAgent on a coding task, judged by real unit tests instead of an LLM.

attempt -> evaluate (run the tests) -> reflect on the failures -> retry.
The evaluator is any ``fn(task, answer) -> (passed, score, feedback)``; this one
writes the code to a temporary folder and runs the tests in a subprocess with
a timeout.  The feedback lists the failing cases, so the reflection can be
specific.

Run:  python examples/reflexion_coding.py
"""

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from vero import ChatOpenAI, LLMConfigError, Status, StepKind
from vero.agents import ReflexionAgent

NO_MODEL = (
    "No model endpoint is configured: set OPENAI_API_KEY, or OPENAI_BASE_URL and MODEL_NAME\n"
    "for a local server, in the environment or .env.  (`vero demo` runs without a model.)"
)

TASK = """Write a Python function is_valid_ipv4(address: str) -> bool that returns True only for a
dotted-quad IPv4 address such as "192.168.0.1". Output only the code in a ```python block."""

CASES = [
    ("192.168.0.1", True),
    ("0.0.0.0", True),
    ("255.255.255.255", True),
    ("256.1.1.1", False),
    ("1.2.3", False),
    ("1.2.3.4.5", False),
    ("01.2.3.4", False),
    ("a.b.c.d", False),
    ("", False),
    (" 1.2.3.4", False),
    ("1..3.4", False),
    ("+1.2.3.4", False),
]

TEST_SCRIPT = """
import json
from solution import is_valid_ipv4
failures = []
for address, expected in {cases!r}:
    try:
        got = is_valid_ipv4(address)
    except Exception as exc:
        got = f"{{type(exc).__name__}}: {{exc}}"
    if got is not expected:
        failures.append(f"is_valid_ipv4({{address!r}}) returned {{got!r}}, expected {{expected!r}}")
print()
print("@@FAILED", len(failures), json.dumps(failures))  # one marked line: the solution may print too
"""


def extract_code(answer: str) -> str:
    """The first fenced code block, or the whole answer."""
    match = re.search(r"```(?:python|py)?\s*\n(.*?)```", answer, re.DOTALL)
    return match.group(1) if match else answer


def run_unit_tests(task: str, answer: str) -> tuple[bool, float, str]:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "solution.py").write_text(extract_code(answer), encoding="utf-8")
        Path(folder, "run_tests.py").write_text(TEST_SCRIPT.format(cases=CASES), encoding="utf-8")
        try:
            done = subprocess.run(
                [sys.executable, "run_tests.py"], cwd=folder, capture_output=True, text=True, timeout=10
            )
        except subprocess.TimeoutExpired:
            return False, 0, "The tests timed out after 10 s (an infinite loop?)."
    if done.returncode != 0:  # the code did not even import
        return False, 0, "The code failed to run:\n" + done.stderr[-1500:]
    report = re.findall(r"^@@FAILED (\d+) (.*)$", done.stdout, re.MULTILINE)
    if not report:  # e.g. the solution called sys.exit(0) while it was imported
        return False, 0, "The tests did not finish. Their output:\n" + done.stdout[-1500:]
    failed, details = int(report[-1][0]), json.loads(report[-1][1])
    score = round(100 * (len(CASES) - failed) / len(CASES))
    if failed == 0:
        return True, score, f"All {len(CASES)} tests passed."
    return False, score, f"{failed} of {len(CASES)} tests failed:\n" + "\n".join(details)


if __name__ == "__main__":
    try:
        llm = ChatOpenAI(temperature=0.2)
    except LLMConfigError:
        print(NO_MODEL, file=sys.stderr)
        sys.exit(2)
    agent = ReflexionAgent("coder", llm, evaluator=run_unit_tests, max_turns=4)
    agent.run(TASK)  # verbose: prints each attempt, evaluation and reflection, then the answer and status
    result = agent.last_result
    for step in result.steps_of(StepKind.EVALUATION):
        print(f"  attempt {step.data['attempt']}: score {step.data['score']:g}")
    sys.exit(1 if result.status == Status.FAILED else 0)
