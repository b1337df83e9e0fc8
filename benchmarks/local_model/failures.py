"""Why the failed tasks failed: each one sorted by what its trajectory shows, from runs `run.py` wrote.

    python benchmarks/local_model/failures.py text.jsonl tool_calling.jsonl

One column per run, one row per kind of failure; a task counts once, under the first kind that fits
(the order of ``KINDS``).  Everything is read from the run's own record (status, steps, answer):
nothing here reads the expected answer, so the kinds say where a run went wrong, not how far off it was.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from world_formats import failed as kinds_world_failed  # noqa: E402

from vero.core.parsing import parse_json_value, reports_error  # noqa: E402

KINDS = {
    "no_call": "no tool called: the answer is a plan or made-up values",
    "turn_limit": "the turn limit reached",
    "other_status": "ended with another status (failed, needs review)",
    "json_answer": "the answer is a JSON object or list (a tool's result, a call, a made-up record)",
    "after_error": "stopped after a failed call (its error unanswered)",
    "change": "a change task: the change not made, or not the one asked",
    "wrong_value": "tools called, the answer wrong (the wrong tool, argument, formula or comparison)",
}


def failed_output(text: str) -> bool:
    """True when a tool's output reports a failure: vero's own error text, the worlds' JSON error shapes
    (``{"error"}``, ``{"status": "failed"}``, ``{"ok": false}``) or a ``heldout-kinds`` world's errors."""
    if reports_error(text) or kinds_world_failed(text):
        return True
    value = _json(text)
    return isinstance(value, dict) and ("error" in value or value.get("status") == "failed" or value.get("ok") is False)


def _json(text: str) -> Any:
    try:
        return parse_json_value(text.strip(), repair=False)
    except ValueError:
        return None


def kind_of(row: dict[str, Any]) -> str:
    """The first kind in ``KINDS`` that a failed task's record shows."""
    observations = [step["content"] for step in row["steps"] if step["kind"] == "observation"]
    answer = str(row.get("answer") or "").strip()
    if not observations:
        return "no_call"
    if row["status"] == "max_turns":
        return "turn_limit"
    if row["status"] != "ok":
        return "other_status"
    if answer[:1] in "{[" and isinstance(_json(answer), (dict, list)):
        return "json_answer"
    if failed_output(observations[-1]):
        return "after_error"
    return "change" if row.get("kind") == "action" else "wrong_value"


def table(runs: dict[str, list[dict[str, Any]]]) -> list[str]:
    """A markdown table: the solved count of each run, then its failed tasks by kind."""
    counts = {name: Counter(kind_of(row) for row in rows if not row["correct"]) for name, rows in runs.items()}
    lines = [f"| kind | {' | '.join(runs)} |", "|---|" + "---|" * len(runs)]
    solved = [f"{sum(row['correct'] for row in rows)}/{len(rows)}" for rows in runs.values()]
    lines.append(f"| solved | {' | '.join(solved)} |")
    for kind, meaning in KINDS.items():
        lines.append(f"| {meaning} | {' | '.join(str(counts[name][kind]) for name in runs)} |")
    return lines


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run.py JSONL files")
    args = parser.parse_args()
    runs = {Path(path).stem: _rows(Path(path)) for path in args.runs}
    print("\n".join(table(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
