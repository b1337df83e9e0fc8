"""Batch throughput of ``vero.batch.run_many`` vs a bare threaded SDK loop.

    python benchmarks/batch.py [--tasks 200] [--workers 16] [--repeats 3] [--json]

1. Zero latency: ``--tasks`` ReAct tasks (text protocol, 2 tool steps + the answer: 3 calls
   each) with ``--workers`` threads through ``run_many``, against a bare threaded
   ``openai`` SDK loop (``ThreadPoolExecutor``) sending the same requests (the same system
   prompt, the same Thought/Action/Observation messages).  Target: vero >= 0.7x the bare
   throughput.  Measured twice for vero: with one ``ChatOpenAI`` shared by all agents
   (what a user writes: ``llm = ChatOpenAI(); run_many(lambda: ReActAgent(..., llm), ...)``;
   the client is thread-safe and shares one connection pool) and with one ``ChatOpenAI`` per
   agent (a new connection pool per task).  The target uses the shared one.
2. 50 ms server latency: throughput of ``run_many`` (shared client) with 1, 2, 4, 8, 16
   workers, 1 tool step + the answer (2 calls) per task, max(16, 8 x workers) tasks.
   Efficiency = throughput(w) / (w x throughput(1)); target >= 0.8 at 16 workers.  The bare
   threaded SDK loop is measured alongside for reference: at 16 workers both are bound by
   the client's CPU time per call under one GIL, not by the server.

The mock server runs in its own process (like a real model server), so that its work
does not compete with the clients for this process's GIL.  Runs alternate between the
contestants; the median of ``--repeats`` runs is reported.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from _common import dump_json, machine, machine_line, median, print_table, verdict

from vero import tool

MODEL = "mock-model"
TARGET_THROUGHPUT_RATIO = 0.7
TARGET_EFFICIENCY = 0.8
WORKER_COUNTS = (1, 2, 4, 8, 16)


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def make_task(number: int, steps: int) -> str:
    return f"[steps={steps}] Task {number}: add {number}, then 1, 2, ... up to {steps}."


def expected_answer(number: int, steps: int) -> str:
    return str(number + steps * (steps + 1) // 2)


# -- the model (runs in the server process) ------------------------------------------------------
def respond(body: dict) -> str:
    """ReAct text protocol: `steps` tool steps (read from the task), then the final answer."""
    users = [m.get("content") or "" for m in body["messages"] if m["role"] == "user"]
    task = next(u for u in users if u.startswith("[steps="))
    steps, number = map(int, re.match(r"\[steps=(\d+)\] Task (\d+)", task).groups())
    done = [int(u.split(":", 1)[1]) for u in users if u.startswith("Observation:")]
    total = done[-1] if done else number
    if len(done) < steps:
        return (
            f"Thought: the total is {total}; add {len(done) + 1}.\n"
            f'Action: add\nAction Input: {{"a": {total}, "b": {len(done) + 1}}}'
        )
    return f"Thought: I now know the final answer\nFinal Answer: {total}"


def serve(latency: float) -> None:
    """`--serve`: run the mock server until stdin closes; print its base URL first."""
    from vero.testing import MockOpenAIServer

    srv = MockOpenAIServer(responder=respond, latency=latency).start()
    srv.requests = srv.request_log = _Discard()  # a long benchmark should not keep every request
    print(srv.base_url, flush=True)
    sys.stdin.read()
    srv.stop()


class _Discard(list):
    def append(self, item) -> None:
        pass


class ServerProcess:
    def __init__(self, latency: float):
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.base_url = self.proc.stdout.readline().strip()
        if not self.base_url.startswith("http"):
            raise RuntimeError("the mock server process did not start")

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


# -- the contestants --------------------------------------------------------------------------------
def react_system_prompt() -> str:
    from vero.agents import ReActAgent
    from vero.testing import ScriptedLLM

    return ReActAgent("x", ScriptedLLM(), tools=[add], verbose=False).build_system_prompt()


_ACTION_INPUT = re.compile(r"Action Input:\s*(\{.*\})", re.DOTALL)
_FINAL = re.compile(r"Final Answer:\s*(.*)", re.DOTALL)


def bare_react(client, system: str, task: str) -> str:
    """A hand-written ReAct loop on the bare SDK, sending what ReActAgent sends."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    while True:
        response = client.chat.completions.create(
            model=MODEL, messages=messages, stop=["Observation:"], temperature=0.7
        )
        text = response.choices[0].message.content
        final = _FINAL.search(text)
        if final:
            return final.group(1).strip()
        messages.append({"role": "assistant", "content": text})
        result = add.func(**json.loads(_ACTION_INPUT.search(text).group(1)))
        messages.append({"role": "user", "content": f"Observation: {result}"})


def run_bare(base_url: str, tasks: list[str], workers: int) -> list[str]:
    import openai

    client = openai.OpenAI(api_key="test", base_url=base_url)
    system = react_system_prompt()
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda task: bare_react(client, system, task), tasks))


def run_vero(base_url: str, tasks: list[str], workers: int, shared: bool = True) -> list[str]:
    from vero import ChatOpenAI
    from vero.agents import ReActAgent
    from vero.batch import run_many

    llm = ChatOpenAI(model_name=MODEL, api_key="test", base_url=base_url) if shared else None

    def make_agent():
        model = llm or ChatOpenAI(model_name=MODEL, api_key="test", base_url=base_url)
        return ReActAgent("batch", model, tools=[add], verbose=False)

    results = run_many(make_agent, tasks, max_workers=workers, progress=False)
    failed = [r for r in results if not r.ok]
    if failed:
        raise SystemExit(f"{len(failed)} vero tasks failed, e.g. {failed[0].status}: {failed[0].error!r}")
    return [r.answer for r in results]


def timed(fn, tasks: list[str], answers: list[str], *args, **kwargs) -> float:
    """Tasks per second of one run; checks every answer."""
    started = time.perf_counter()
    got = fn(*args, tasks, **kwargs)
    elapsed = time.perf_counter() - started
    if got != answers:
        wrong = next(i for i, (g, a) in enumerate(zip(got, answers)) if g != a)
        raise SystemExit(f"{fn.__name__}: task {wrong} answered {got[wrong]!r}, expected {answers[wrong]!r}")
    return len(tasks) / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3, help="runs per contestant; the median is reported")
    parser.add_argument("--latency", type=float, default=0.05, help="server latency of part 2 (s)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve)
        return 0

    # 1. zero latency: vero vs the bare threaded SDK loop
    steps = 2
    tasks = [make_task(n, steps) for n in range(args.tasks)]
    answers = [expected_answer(n, steps) for n in range(args.tasks)]
    contestants = {
        "bare SDK threads": lambda url: timed(run_bare, tasks, answers, url, workers=args.workers),
        "run_many, shared ChatOpenAI": lambda url: timed(run_vero, tasks, answers, url, workers=args.workers),
        "run_many, ChatOpenAI per agent": lambda url: timed(
            run_vero, tasks, answers, url, workers=args.workers, shared=False
        ),
    }
    rates: dict[str, list[float]] = {name: [] for name in contestants}
    with ServerProcess(0.0) as srv:
        for run in contestants.values():  # warm-up: imports, connections
            run(srv.base_url)
        for _ in range(args.repeats):
            for name, run in contestants.items():
                rates[name].append(run(srv.base_url))
    zero = {name: median(values) for name, values in rates.items()}
    bare = zero["bare SDK threads"]
    ratio = zero["run_many, shared ChatOpenAI"] / bare

    # 2. 50 ms latency: scaling from 1 to 16 workers
    scaling = {}
    with ServerProcess(args.latency) as srv:
        timed(run_vero, tasks[:4], answers[:4], srv.base_url, workers=2)  # warm-up
        for workers in WORKER_COUNTS:
            count = max(16, 8 * workers)
            subset = [make_task(n, 1) for n in range(count)]
            expected = [expected_answer(n, 1) for n in range(count)]
            vero_runs, bare_runs = [], []
            for _ in range(args.repeats):
                vero_runs.append(timed(run_vero, subset, expected, srv.base_url, workers=workers))
                bare_runs.append(timed(run_bare, subset, expected, srv.base_url, workers=workers))
            scaling[workers] = {
                "tasks": count,
                "calls": 2 * count,
                "tasks_per_s": median(vero_runs),
                "bare_tasks_per_s": median(bare_runs),
            }
    one, bare_one = scaling[1]["tasks_per_s"], scaling[1]["bare_tasks_per_s"]
    for workers, entry in scaling.items():
        entry["efficiency"] = entry["tasks_per_s"] / (workers * one)
        entry["bare_efficiency"] = entry["bare_tasks_per_s"] / (workers * bare_one)
    top = scaling[max(WORKER_COUNTS)]["efficiency"]

    result = {
        "machine": machine(),
        "zero_latency": {
            "tasks": args.tasks,
            "calls_per_task": steps + 1,
            "workers": args.workers,
            "tasks_per_s": {k: round(v, 1) for k, v in zero.items()},
            "ratio_shared_to_bare": round(ratio, 3),
            "ratio_per_agent_to_bare": round(zero["run_many, ChatOpenAI per agent"] / bare, 3),
            "target": TARGET_THROUGHPUT_RATIO,
            "pass": ratio >= TARGET_THROUGHPUT_RATIO,
        },
        "latency_scaling": {
            "latency_s": args.latency,
            "calls_per_task": 2,
            "by_workers": {w: {k: round(v, 3) for k, v in e.items()} for w, e in scaling.items()},
            "efficiency_at_16": round(top, 3),
            "target": TARGET_EFFICIENCY,
            "pass": top >= TARGET_EFFICIENCY,
        },
    }
    if args.json:
        dump_json(result)
    else:
        print(f"machine: {machine_line(result['machine'])}; mock server in a separate process\n")
        print(
            f"1. zero latency: {args.tasks} ReAct tasks x {steps + 1} calls, {args.workers} workers, "
            f"median of {args.repeats}"
        )
        print_table(["contestant", "tasks/s", "x bare"], [[n, v, v / bare] for n, v in zero.items()])
        print(
            f"run_many (shared ChatOpenAI) / bare threads: {ratio:.3f}  "
            f"(target >= {TARGET_THROUGHPUT_RATIO})  {verdict(ratio >= TARGET_THROUGHPUT_RATIO)}\n"
        )
        print(f"2. {args.latency * 1000:.0f} ms server latency: run_many (shared ChatOpenAI), 2 calls per task")
        print_table(
            ["workers", "tasks", "tasks/s", "efficiency", "bare SDK tasks/s", "bare efficiency"],
            [
                [w, e["tasks"], e["tasks_per_s"], e["efficiency"], e["bare_tasks_per_s"], e["bare_efficiency"]]
                for w, e in scaling.items()
            ],
        )
        print(
            f"efficiency at 16 workers: {top:.3f}  (target >= {TARGET_EFFICIENCY})  {verdict(top >= TARGET_EFFICIENCY)}"
        )
    return 0 if result["zero_latency"]["pass"] and result["latency_scaling"]["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
