"""Peer frameworks on the local-model benchmark's tasks, for comparison rows.

The same tasks (``world.TASKS``, or a generated world's tasks from
``worlds.py``) and the same tools (``world.TOOLS`` or that world's tools,
passed as the plain functions) run through four peer agent frameworks, each in
its default, idiomatic configuration as its docs show it:

* smolagents ``ToolCallingAgent`` with ``OpenAIServerModel``;
* LangGraph's prebuilt ReAct agent (``create_react_agent``) with
  ``langchain_openai.ChatOpenAI``;
* pydantic-ai ``Agent`` with ``OpenAIChatModel`` and an
  ``OpenAICompatibleProvider``;
* the OpenAI Agents SDK with ``OpenAIChatCompletionsModel`` over an
  ``AsyncOpenAI`` client, tracing disabled.

All get the same base URL and model, temperature 0, the same output cap
(``max_tokens``) and the same step limit (``max_steps`` model turns:
``max_steps`` / ``recursion_limit`` / ``request_limit`` / ``max_turns``), no
system prompt of ours, and the task text as it is.

The peers live in a virtual environment of their own, made once in the
benchmark cache (``$VERO_BENCH_CACHE`` or ``~/.cache/vero-local-model``,
folder ``peers-venv``) with the versions pinned in ``PINS``; the runs happen
in a subprocess there (``peer_worker.py``), so nothing they depend on touches
vero's environment.  Model calls and tokens are counted at the HTTP level by
a small counting proxy in that subprocess, the same way for every framework.

    python benchmarks/local_model/peers.py --base-url http://127.0.0.1:8080/v1 \\
        --model qwen2.5-coder-1.5b-instruct --frameworks smolagents langgraph --limit 2
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import world  # noqa: E402  (benchmarks/local_model/world.py)
import worlds  # noqa: E402  (benchmarks/local_model/worlds.py)

# The versions the comparison rows were measured with.  The frameworks, plus
# the dependencies that shape how they talk to the server or read the tools.
# (langchain-openai 1.7.4 needs langchain-core >= 1.7.5, which needs a certifi
# newer than PyPI serves here, so pip settles on 1.7.3 with core 1.7.2.)
PINS = (
    "smolagents[openai]==1.26.0",
    "langgraph==1.2.22",
    "langgraph-prebuilt==1.1.2",
    "langgraph-checkpoint==4.3.2",
    "langchain-core==1.7.2",
    "langchain-openai==1.7.3",
    "pydantic-ai-slim[openai]==2.68.0",
    "pydantic-graph==2.68.0",
    "openai-agents==0.24.0",
    "openai==3.54.0",
    "pydantic==2.14.3",
    "pydantic-core==2.50.4",
    "griffelib==2.4.1",
    "httpx==0.28.1",
)

# short name -> the agent's name in the results table
FRAMEWORKS = {
    "smolagents": "smolagents ToolCallingAgent",
    "langgraph": "LangGraph create_react_agent",
    "pydantic-ai": "pydantic-ai Agent",
    "openai-agents": "OpenAI Agents SDK",
}

WORKER = HERE / "peer_worker.py"
TASK_TIMEOUT_S = 600.0

_ROW_KEYS = (
    "agent",
    "task",
    "answer",
    "correct",
    "status",
    "error",
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "seconds",
    "effect_ok",
    "world_changes",
)


def cache_dir() -> Path:
    return Path(os.environ.get("VERO_BENCH_CACHE") or Path.home() / ".cache" / "vero-local-model")


def ensure_venv(*, verbose: bool = True) -> Path:
    """The peers' virtual environment's Python, made (once) with ``PINS`` installed.

    The venv is remade when ``PINS`` changes.  A lock file keeps two runs
    from building it at the same time.
    """
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    venv = cache / "peers-venv"
    python = venv / "bin" / "python"
    stamp = venv / "vero-peers-pins.txt"
    wanted = "\n".join(PINS) + "\n"
    with open(cache / "peers-venv.lock", "w") as lock:
        with contextlib.suppress(ImportError):
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists() and stamp.exists() and stamp.read_text() == wanted:
            return python
        if verbose:
            print(
                f"[peers] creating {venv} and installing {len(PINS)} pinned packages (takes a minute or two)",
                file=sys.stderr,
                flush=True,
            )
        stamp.unlink(missing_ok=True)
        log_path = cache / "peers-venv-install.log"
        with open(log_path, "w") as log:
            steps = [
                [sys.executable, "-m", "venv", "--clear", str(venv)],
                [str(python), "-m", "pip", "install", "--disable-pip-version-check", *PINS],
            ]
            for command in steps:
                log.write("$ " + " ".join(command) + "\n")
                log.flush()
                done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT)
                if done.returncode != 0:
                    tail = "".join(log_path.read_text().splitlines(keepends=True)[-20:])
                    raise RuntimeError(
                        f"making the peers' venv failed ({' '.join(command[:4])} ...); see {log_path}:\n{tail}"
                    )
        stamp.write_text(wanted)
        return python


def _short_names(frameworks) -> list[str]:
    if not frameworks:
        return list(FRAMEWORKS)
    names = []
    for name in frameworks:
        key = name.strip().lower().replace("_", "-")
        key = {
            "pydanticai": "pydantic-ai",
            "openai-agents-sdk": "openai-agents",
            "agents": "openai-agents",
            "smol": "smolagents",
            "lang-graph": "langgraph",
        }.get(key, key)
        if key not in FRAMEWORKS:
            raise ValueError(f"unknown framework {name!r}; choose from {', '.join(FRAMEWORKS)}")
        if key not in names:
            names.append(key)
    return names


def _task_fields(task) -> tuple[str, str, object, int | None]:
    """(id, question, judge, seed): ``judge(answer)`` says whether an answer is right; ``seed`` is the
    generated world's seed (``None`` for the tools suite), so the worker can make that world's tools."""
    if isinstance(task, str):  # a task id
        task = next(t for t in world.TASKS if t.id == task)
    if isinstance(task, worlds.WorldTask):
        return task.id, task.question, task.is_correct, worlds.seed_of(task.id)
    if isinstance(task, dict):
        task_id, question, expected = task["id"], task["question"], task["expected"]
    else:
        task_id, question, expected = task.id, task.question, task.expected
    return task_id, question, lambda answer: world.is_correct(answer, expected), None


def run_peers(
    base_url: str,
    model: str,
    tasks: list,
    *,
    max_tokens: int = 1024,
    max_steps: int = 10,
    frameworks: list[str] | None = None,
    out_jsonl: Path | None = None,
    timeout: float = TASK_TIMEOUT_S,
    verbose: bool = True,
) -> list[dict]:
    """Run ``tasks`` through the peer frameworks; one dict per (framework, task).

    Each dict has ``agent``, ``task``, ``answer``, ``correct`` (``world.is_correct``, or the
    generated task's check and its effect check: ``effect_ok``, ``world_changes``),
    ``status`` ("ok" | "error" | "max_steps"), ``error``, ``llm_calls``,
    ``prompt_tokens``, ``completion_tokens``, ``cached_tokens`` (as the server
    reported them) and ``seconds``.  ``frameworks`` picks a subset by short
    name: "smolagents", "langgraph", "pydantic-ai", "openai-agents".
    ``timeout`` is each task's wall-clock limit.  Rows are appended to
    ``out_jsonl`` as they come; the frameworks' own output goes to a log file
    in the cache folder (its path is printed when ``verbose``).
    """
    names = _short_names(frameworks)
    fields = [_task_fields(t) for t in tasks]
    judges = {task_id: judge for task_id, _, judge, _ in fields}
    python = ensure_venv(verbose=verbose)

    logs = cache_dir() / "peers-logs"
    logs.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    log_path = logs / f"peers-{stamp}-{os.getpid()}.log"
    job = {
        "base_url": base_url,
        "model": model,
        "max_tokens": max_tokens,
        "max_steps": max_steps,
        "timeout": timeout,
        "frameworks": names,
        "tasks": [{"id": task_id, "question": question, "seed": seed} for task_id, question, _, seed in fields],
    }
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(
        PYTHONUNBUFFERED="1", LANGSMITH_TRACING="false", LANGCHAIN_TRACING_V2="false", OPENAI_AGENTS_DISABLE_TRACING="1"
    )
    if verbose:
        print(
            f"[peers] {', '.join(names)} on {len(fields)} tasks; frameworks' output: {log_path}",
            file=sys.stderr,
            flush=True,
        )

    rows: dict[tuple[str, str], dict] = {}
    with tempfile.TemporaryDirectory(prefix="vero-peers-") as tmp:
        job_path, results_path = Path(tmp) / "job.json", Path(tmp) / "results.jsonl"
        job_path.write_text(json.dumps(job))
        results_path.touch()
        # The worker stops each task after `timeout`; this is only a backstop for a stuck worker.
        deadline = time.monotonic() + 120 + len(names) * (60 + len(fields) * (timeout + 10))
        with open(log_path, "w") as log, open(results_path) as results:
            worker = subprocess.Popen(
                [str(python), str(WORKER), str(job_path), str(results_path)],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=str(HERE),
            )
            pending = ""
            try:
                while True:
                    finished = worker.poll() is not None
                    pending += results.read()
                    *lines, pending = pending.split("\n")
                    for line in lines:
                        if line.strip():
                            row = _finish_row(json.loads(line), judges)
                            rows[(row["agent"], row["task"])] = row
                            _emit(row, out_jsonl, verbose)
                    if finished:
                        break
                    if time.monotonic() > deadline:
                        worker.kill()
                        worker.wait()
                        break
                    time.sleep(0.2)
            except BaseException:
                worker.kill()
                worker.wait()
                raise
        code = worker.returncode

    ordered = []
    for name in names:
        for task_id, _, _, _ in fields:
            row = rows.get((FRAMEWORKS[name], task_id))
            if row is None:  # the worker died or was stopped before this task
                row = _finish_row(
                    {
                        "agent": FRAMEWORKS[name],
                        "task": task_id,
                        "answer": "",
                        "status": "error",
                        "error": f"the peer worker exited (code {code}) before this task; see {log_path}",
                        "llm_calls": 0,
                        "prompt_tokens": 0,
                        "completion_tokens": 0,
                        "cached_tokens": 0,
                        "seconds": 0.0,
                    },
                    judges,
                )
                _emit(row, out_jsonl, verbose)
            ordered.append(row)
    return ordered


def _finish_row(raw: dict, judges: dict) -> dict:
    """The row of one task: correct when the answer is right and, for a task that asks for a change
    in a generated world, the worker found that change made (``effect_ok``)."""
    raw = dict(raw)
    raw["correct"] = (
        bool(raw.get("answer")) and judges[raw["task"]](str(raw["answer"])) and raw.get("effect_ok") is not False
    )
    return {key: raw.get(key) for key in _ROW_KEYS}


def _emit(row: dict, out_jsonl: Path | None, verbose: bool) -> None:
    if out_jsonl is not None:
        with open(out_jsonl, "a") as f:
            f.write(json.dumps(row) + "\n")
    if verbose:
        mark = "correct" if row["correct"] else "wrong"
        detail = f" ({row['error'][:120]})" if row["error"] else ""
        print(
            f"[peers] {row['agent']} {row['task']}: {row['status']}, {mark}, {row['llm_calls']} calls, "
            f"{row['seconds']:.1f} s, answer {row['answer'][:80]!r}{detail}",
            file=sys.stderr,
            flush=True,
        )


def summary(rows: list[dict]) -> list[list]:
    """One line per agent: agent, solved/total, calls, prompt, completion and cached tokens, seconds."""
    table = []
    for agent in dict.fromkeys(r["agent"] for r in rows):
        mine = [r for r in rows if r["agent"] == agent]
        table.append(
            [
                agent,
                f"{sum(r['correct'] for r in mine)}/{len(mine)}",
                sum(r["llm_calls"] for r in mine),
                sum(r["prompt_tokens"] for r in mine),
                sum(r["completion_tokens"] for r in mine),
                sum(r["cached_tokens"] for r in mine),
                round(sum(r["seconds"] for r in mine), 1),
            ]
        )
    return table


def print_table(rows: list[dict]) -> None:
    headers = ["agent", "solved/total", "calls", "prompt tok", "completion tok", "cached tok", "seconds"]
    cells = [headers] + [[str(v) for v in line] for line in summary(rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(headers))]
    for number, line in enumerate(cells):
        print(" | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))))
        if number == 0:
            print("-|-".join("-" * w for w in widths))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the local-model benchmark's tasks through peer frameworks.")
    parser.add_argument("--base-url", required=True, help="the OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model", required=True, help="the model name to send")
    parser.add_argument(
        "--frameworks", nargs="+", metavar="NAME", help=f"a subset of: {', '.join(FRAMEWORKS)} (default: all)"
    )
    parser.add_argument("--limit", type=int, help="only the first N tasks")
    parser.add_argument("--tasks", nargs="+", metavar="ID", help="only these task ids")
    parser.add_argument("--max-tokens", type=int, default=1024)
    parser.add_argument("--max-steps", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=TASK_TIMEOUT_S, help="seconds per task")
    parser.add_argument("--out-jsonl", type=Path, help="append one JSON line per (framework, task) here")
    args = parser.parse_args(argv)
    # A SIGTERM (e.g. from `timeout`) unwinds run_peers, which then stops the worker.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    frameworks = [n for item in args.frameworks or [] for n in item.split(",") if n]
    tasks = [t for t in world.TASKS if not args.tasks or t.id in args.tasks]
    if args.limit is not None:
        tasks = tasks[: args.limit]
    rows = run_peers(
        args.base_url,
        args.model,
        tasks,
        max_tokens=args.max_tokens,
        max_steps=args.max_steps,
        frameworks=frameworks or None,
        out_jsonl=args.out_jsonl,
        timeout=args.timeout,
    )
    print()
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
