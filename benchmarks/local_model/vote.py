"""Self-consistency, measured before it is built: vote over runs that `run.py` already wrote.

The first run is the usual one at temperature 0 (replayed from its cassette); the others are samples
of the same tasks at a temperature above 0, each from a server with its own ``--seed``:

    python benchmarks/local_model/run.py --split heldout --tasks-per-world 2 --agents "ReActAgent (text)" \\
        --temperature 0.7 --seed 1 --cache cache-seed1 --out sample1.jsonl
    python benchmarks/local_model/vote.py base.jsonl sample1.jsonl sample2.jsonl --k 3

For each task and each k, the first k runs' final answers are normalised (``answer_key``) and the most
common one wins; a tie goes to the earliest run (the temperature-0 one).  A task whose first run
called a tool that may change things is not voted: a run that changes things never runs twice, so it
keeps the first run's answer (and costs one run), and the table counts the tasks voted.  The voted
answer is as right as the run that gave it (the benchmark's own check, ``correct``): nothing here
reads the expected answer.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def answer_key(answer: Any) -> str:
    """What two answers must share to count as the same vote: a leading yes or no; else the numbers they
    give (thousands separators and trailing zeros aside); else their words, case and punctuation aside."""
    text = str(answer or "").strip().casefold()
    words = re.findall(r"[^\W_]+", text)
    if words[:1] in (["yes"], ["no"]):
        return words[0]
    numbers = sorted({f"{float(n.replace(',', '')):g}" for n in NUMBER.findall(text)})
    return " ".join(numbers) if numbers else " ".join(words)


def changes_things(row: dict[str, Any], read_only: dict[str, bool]) -> bool:
    """True when the run called a tool that is not marked read-only (an unknown name counts as one)."""
    return any(
        step["kind"] == "action" and not read_only.get(step["data"].get("tool", ""), False) for step in row["steps"]
    )


def vote(rows: list[dict[str, Any]], read_only: dict[str, bool]) -> tuple[dict[str, Any], bool]:
    """The winning run of one task's ``rows`` (in run order), and whether a vote was held: not when the
    first run changed things (no sample would run); a sample that called such a tool is left out (run
    for real, its call would be refused, as an approver that says no to every such call does)."""
    if changes_things(rows[0], read_only):
        return rows[0], False
    rows = [row for row in rows if not changes_things(row, read_only)]
    keys = [answer_key(row["answer"]) for row in rows]
    counts = Counter(keys)
    best = max(counts.values())
    winner = next(key for key in keys if counts[key] == best)  # the earliest of the most common
    return rows[keys.index(winner)], True


def read_runs(paths: list[str]) -> list[dict[str, dict[str, Any]]]:
    runs = []
    for path in paths:
        rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
        runs.append({row["task"]: row for row in rows})
    return runs


def read_only_tools(seed: int) -> dict[str, bool]:
    import worlds

    return dict(worlds.make_world(seed).read_only)


def table(runs: list[dict[str, dict[str, Any]]], ks: list[int]) -> list[str]:
    """One line per k: solved, tasks voted, gained and lost against the first run, calls and prompt tokens."""
    tasks = [task for task in runs[0] if all(task in run for run in runs[: max(ks)])]
    lines = ["| k | solved | voted tasks | gained | lost | calls | prompt tokens |", "|---|---|---|---|---|---|---|"]
    for k in ks:
        solved = voted = gained = lost = calls = tokens = 0
        for task in tasks:
            rows = [run[task] for run in runs[:k]]
            winner, held = vote(rows, read_only_tools(rows[0]["seed"]))
            first = rows[0]["correct"]
            solved += winner["correct"]
            voted += held
            gained += winner["correct"] and not first
            lost += first and not winner["correct"]
            calls += sum(row["llm_calls"] for row in rows if held or row is rows[0])
            tokens += sum(row["prompt_tokens"] for row in rows if held or row is rows[0])
        lines.append(f"| {k} | {solved}/{len(tasks)} | {voted} | {gained} | {lost} | {calls} | {tokens} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run.py JSONL files: the temperature-0 run first, then the samples")
    parser.add_argument("--k", type=int, nargs="+", default=None, help="vote sizes (default: 1 and every run)")
    args = parser.parse_args()
    ks = args.k or sorted({1, len(args.runs)})
    if max(ks) > len(args.runs):
        parser.error(f"--k {max(ks)} needs that many runs, got {len(args.runs)}")
    print("\n".join(table(read_runs(args.runs), ks)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
