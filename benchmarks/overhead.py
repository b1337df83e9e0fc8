"""Framework overhead per model call, request bytes, peak memory and ReAct prompt economy.

    python benchmarks/overhead.py [--rounds 30] [--warmup 3] [--json]

One ``MockOpenAIServer`` (zero latency) and all contestants in ONE process,
interleaved round by round (the order rotates each round), after warm-up:

- ``bare-sdk``: a hand-written loop on the ``openai`` SDK
  (``client.chat.completions.create``), 10 tool calls then an answer: the baseline;
- ``ToolCallingAgent``: the same exchange through vero (10 native tool calls + answer);
- ``ToolCallingAgent (stream)``: the same, watched through ``agent.stream(task, deltas=False)`` (the run
  in a worker thread, every event handed over as it happens);
- ``ToolCallingAgent (stream, deltas)``: ``agent.stream(task)`` with its default text deltas: each
  request is streamed (server-sent events), so its target is the bare SDK sending the same streamed
  requests ('x sdk same'), not the plain bare loop;
- ``ToolCallingAgent (trace)``: the same with ``trace=FILE`` (every event and each request as sent
  written to a JSONL file);
- ``ReActAgent``: the text protocol, 10 Thought/Action/Observation steps + Final Answer;
- ``BasicReflectionAgent``: draft, critique (rejects), revision, critique (rejects), revision,
  critique (accepts): 6 calls;
- ``ReflexionAgent``: a 3-step ReAct attempt, evaluation (fails), reflection, a second attempt,
  evaluation (passes);
- for reference (no target): ``ChatOpenAI`` alone in the same loop as bare-sdk (vero's client
  without an agent) and a raw ``http.client`` loop (the floor of this machine).

Per contestant: the median over rounds of the client-side milliseconds per model call,
i.e. (wall time of a run - the server's handler seconds for its requests) / calls, and the
ratio to bare-sdk (target <= 1.15); request bytes per run (the HTTP bodies); peak RSS of a
separate process that imports and runs only that contestant 20 times (`resource.getrusage`).
ReAct prompt economy: the message-content bytes sent over the 10-step run, divided by the
minimum (per call: system prompt + task + each earlier step's reply and observation once);
target <= 1.10.

The server's responder reads each request (system prompt, number of tool results or
observations) to choose the reply, so every run is the same deterministic exchange.
"""

from __future__ import annotations

import argparse
import atexit
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlsplit

from _common import dump_json, machine, machine_line, median, peak_rss_mb, print_table, verdict

from vero import tool
from vero.testing import MockOpenAIServer

STEPS = 10
TARGET_RATIO = 1.15
TARGET_ECONOMY = 1.10
MODEL = "mock-model"
TASKS = {
    "native": "[native] Add the numbers 1 to 10 with the add tool, one addition at a time.",
    "react": "[react] Add the numbers 1 to 10 with the add tool, one addition at a time.",
    "reflection": "[reflection] Name three prime numbers.",
    "reflexion": "[reflexion] Add the numbers 1 to 3 with the add tool.",
}


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


# The schema a hand-written loop would write for `add` (checked equal to vero's at start).
ADD_SCHEMA = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two integers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    },
}


# -- the scripted model ----------------------------------------------------------------
def running_total(step: int) -> int:
    return step * (step + 1) // 2  # 1 + 2 + ... + step


def react_reply(step: int, steps: int = STEPS) -> str:
    """The text-protocol reply when `step` observations have come back."""
    if step < steps:
        return (
            f"Thought: the total so far is {running_total(step)}; add {step + 1}.\n"
            f'Action: add\nAction Input: {{"a": {running_total(step)}, "b": {step + 1}}}'
        )
    return f"Thought: I now know the final answer\nFinal Answer: {running_total(steps)}"


def native_reply(step: int, steps: int = STEPS) -> dict | str:
    if step < steps:
        return {"tool_calls": [{"name": "add", "arguments": {"a": running_total(step), "b": step + 1}}]}
    return f"The total is {running_total(steps)}."


def _version(text: str, label: str) -> int:
    match = re.search(label + r"\s*Draft v(\d+)", text)
    return int(match.group(1)) if match else 1


def respond(body: dict):
    """Choose the reply from the request alone, so every run is the same exchange."""
    messages = body.get("messages") or []
    system = messages[0].get("content") or "" if messages and messages[0]["role"] == "system" else ""
    users = [m.get("content") or "" for m in messages if m["role"] == "user"]
    prompt = "\n".join([system, *users])
    if body.get("tools") and body.get("tool_choice") != "none":  # native tool calling
        return native_reply(sum(m["role"] == "tool" for m in messages))
    if "[reflexion]" in prompt:
        return reflexion_reply(system, users, messages)
    if "Action Input" in system:  # ReAct, text protocol
        return react_reply(sum(u.startswith("Observation:") for u in users))
    if "strict critic" in system:  # BasicReflection's critic: accept the third draft
        version = _version(users[-1], "## Response\n")
        if version >= 3:
            return '{"thinking": "Correct.", "is_sufficient": true, "feedback": ""}'
        return json.dumps(
            {
                "thinking": "Not yet.",
                "is_sufficient": False,
                "feedback": f"Draft v{version} lacks the proof that each number is prime.",
            }
        )
    if "Revise your previous response" in system:
        version = _version(system, "## Previous Response\n") + 1
        return f"Draft v{version}: 2, 3 and 5; each has no divisor but 1 and itself."
    return "Draft v1: 2, 3 and 5."


REFLEXION_STEPS = 3


def reflexion_reply(system: str, users: list[str], messages: list[dict]) -> str:
    """ReAct attempt (3 steps) -> evaluation (fails attempt 1) -> reflection -> attempt 2 -> passes."""
    if "strict evaluator" in system:
        if "(attempt 2)" in users[-1]:
            return '{"pass": true, "reason": "The sum is right and the work is shown.", "score": 100}'
        return '{"pass": false, "reason": "The additions are not shown.", "score": 40}'
    if "Action Input" in system:  # the ReAct executor
        step = sum(u.startswith("Observation:") for u in users)
        if step < REFLEXION_STEPS:
            return react_reply(step, REFLEXION_STEPS)
        attempt = 2 if any("<past_reflections>" in u for u in users) else 1
        return f"Thought: I now know the final answer\nFinal Answer: Final answer 6 (attempt {attempt})"
    return "Diagnosis: the answer did not show the additions.\nPlan: list each addition, then the total."


# -- the contestants ------------------------------------------------------------------------
def bare_sdk_loop(client, task: str = TASKS["native"]) -> str:
    """What a user would write on the bare openai SDK."""
    messages = [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": task}]
    while True:
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[ADD_SCHEMA], temperature=0.7)
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(
            {
                "role": "assistant",
                "content": message.content,
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.function.name, "arguments": c.function.arguments},
                    }
                    for c in message.tool_calls
                ],
            }
        )
        for call in message.tool_calls:
            result = add.func(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": str(result)})


def chat_openai_loop(llm, task: str = TASKS["native"]) -> str:
    """The same loop on vero's ChatOpenAI alone (no agent): isolates the client's cost."""
    from vero import Message

    messages = [Message.system("You are a helpful assistant."), Message.user(task)]
    while True:
        reply = llm.generate(messages, tools=[add])
        if not reply.tool_calls:
            return reply.content
        messages.append(reply)
        for call in reply.tool_calls:
            messages.append(Message.tool(str(add.func(**json.loads(call.arguments))), call.id))


class RawHTTPLoop:
    """The floor: the same exchange over one keep-alive http.client connection."""

    def __init__(self, base_url: str):
        parts = urlsplit(base_url)
        self.path = parts.path + "/chat/completions"
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port)

    def __call__(self, task: str = TASKS["native"]) -> str:
        messages = [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": task}]
        while True:
            body = json.dumps({"model": MODEL, "messages": messages, "tools": [ADD_SCHEMA], "temperature": 0.7})
            self.conn.request("POST", self.path, body, {"Content-Type": "application/json"})
            message = json.loads(self.conn.getresponse().read())["choices"][0]["message"]
            if not message.get("tool_calls"):
                return message["content"]
            messages.append(message)
            for call in message["tool_calls"]:
                result = add.func(**json.loads(call["function"]["arguments"]))
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": str(result)})


def make_contestants(base_url: str, names: list[str] | None = None) -> dict:
    """name -> zero-argument function running one task; only the named ones are built (and imported).

    Agents are built fresh for every run (an agent keeps history) on one shared ``ChatOpenAI``,
    as the bare loop shares one ``openai.OpenAI`` client.
    """
    shared: dict = {}

    def client():
        if "client" not in shared:
            import openai

            shared["client"] = openai.OpenAI(api_key="test", base_url=base_url)
        return shared["client"]

    def llm():
        if "llm" not in shared:
            from vero import ChatOpenAI

            shared["llm"] = ChatOpenAI(model_name=MODEL, api_key="test", base_url=base_url)
        return shared["llm"]

    def tool_calling():
        from vero.agents import ToolCallingAgent

        model = llm()
        return lambda: ToolCallingAgent("tc", model, tools=[add], max_turns=STEPS + 2, verbose=False).run(
            TASKS["native"]
        )

    def tool_calling_stream():
        from vero.agents import ToolCallingAgent

        model = llm()

        def watched(deltas: bool = False) -> str:
            agent = ToolCallingAgent("tc", model, tools=[add], max_turns=STEPS + 2, verbose=False)
            *_, finished = agent.stream(TASKS["native"], deltas=deltas)  # every event taken; the last: RunFinished
            return finished.result.answer

        return watched

    def tool_calling_stream_deltas():
        watched = tool_calling_stream()
        return lambda: watched(deltas=True)

    def tool_calling_trace():
        from vero.agents import ToolCallingAgent

        model = llm()
        handle, path = tempfile.mkstemp(prefix="vero-overhead-", suffix=".jsonl")
        os.close(handle)
        atexit.register(os.remove, path)

        def traced() -> str:
            agent = ToolCallingAgent("tc", model, tools=[add], max_turns=STEPS + 2, verbose=False, trace=path)
            try:
                return agent.run(TASKS["native"])
            finally:
                agent.close()

        return traced

    def react():
        from vero.agents import ReActAgent

        model = llm()
        return lambda: ReActAgent("react", model, tools=[add], max_turns=STEPS + 2, verbose=False).run(TASKS["react"])

    def reflection():
        from vero.agents import BasicReflectionAgent

        model = llm()
        return lambda: BasicReflectionAgent("refl", model, max_turns=3, verbose=False).run(TASKS["reflection"])

    def reflexion():
        from vero.agents import ReflexionAgent

        model = llm()
        return lambda: ReflexionAgent("reflexion", model, tools=[add], verbose=False, **REFLEXION_OPTIONS).run(
            TASKS["reflexion"]
        )

    def bare():
        sdk = client()
        return lambda: bare_sdk_loop(sdk)

    def chat_openai():
        model = llm()
        return lambda: chat_openai_loop(model)

    builders = {
        "bare-sdk": bare,
        "ToolCallingAgent": tool_calling,
        "ToolCallingAgent (stream)": tool_calling_stream,
        "ToolCallingAgent (stream, deltas)": tool_calling_stream_deltas,
        "ToolCallingAgent (trace)": tool_calling_trace,
        "ReActAgent": react,
        "BasicReflectionAgent": reflection,
        "ReflexionAgent": reflexion,
        "ChatOpenAI (ref)": chat_openai,
        "raw http.client (ref)": lambda: RawHTTPLoop(base_url),
    }
    return {name: build() for name, build in builders.items() if names is None or name in names}


REFLEXION_OPTIONS: dict = {"max_attempts": 2}
EXPECTED_ANSWERS = {
    "bare-sdk": "The total is 55.",
    "ToolCallingAgent": "The total is 55.",
    "ReActAgent": "55",
    "ToolCallingAgent (stream)": "The total is 55.",
    "ToolCallingAgent (stream, deltas)": "The total is 55.",
    "ToolCallingAgent (trace)": "The total is 55.",
    "BasicReflectionAgent": "Draft v3: 2, 3 and 5; each has no divisor but 1 and itself.",
    "ReflexionAgent": "Final answer 6 (attempt 2)",
    "ChatOpenAI (ref)": "The total is 55.",
    "raw http.client (ref)": "The total is 55.",
}
REFERENCES = ("ChatOpenAI (ref)", "raw http.client (ref)")
SAME_REQUESTS_TARGET = ("ToolCallingAgent (stream, deltas)",)  # judged against the SDK sending its (streamed) requests


# -- measuring -----------------------------------------------------------------------------------
def settle(srv: MockOpenAIServer) -> int:
    """Wait until every request's handler time is recorded (it is appended just after the reply is sent)."""
    deadline = time.perf_counter() + 5
    while len(srv.handler_seconds) < len(srv.request_log) and time.perf_counter() < deadline:
        time.sleep(0.0002)
    return len(srv.request_log)


def run_once(srv: MockOpenAIServer, fn) -> dict:
    first = settle(srv)
    started = time.perf_counter()
    answer = fn()
    wall = time.perf_counter() - started
    calls = settle(srv) - first
    server = sum(srv.handler_seconds[first : first + calls])
    return {
        "answer": answer,
        "calls": calls,
        "wall_s": wall,
        "server_s": server,
        "client_ms_per_call": (wall - server) * 1000 / max(calls, 1),
        "request_bytes": sum(r.raw_bytes for r in srv.request_log[first : first + calls]),
        "bodies": srv.requests[-calls:] if calls else [],
    }


def prompt_economy(srv: MockOpenAIServer, contestants: dict) -> dict:
    """Bytes of message content sent over one ReAct run vs the minimum."""
    first = len(srv.requests)
    contestants["ReActAgent"]()
    bodies = srv.requests[first:]
    sent = sum(len((m.get("content") or "").encode()) for body in bodies for m in body["messages"])
    system = bodies[0]["messages"][0]["content"]
    base = len(system.encode()) + len(TASKS["react"].encode())
    steps = [len(react_reply(i).encode()) + len(str(running_total(i + 1)).encode()) for i in range(STEPS)]
    minimum = sum(base + sum(steps[:call]) for call in range(len(bodies)))
    return {
        "calls": len(bodies),
        "sent_bytes": sent,
        "minimum_bytes": minimum,
        "ratio": sent / minimum,
        "system_prompt_bytes": len(system.encode()),
    }


def child_rss(base_url: str, name: str, runs: int) -> float:
    """Peak RSS of a fresh process that runs only `name`."""
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", name, "--base-url", base_url, "--rounds", str(runs)],
        capture_output=True,
        text=True,
    )
    if proc.returncode:
        raise RuntimeError(f"child {name} failed: {proc.stderr[-1500:]}")
    return json.loads(proc.stdout)["peak_rss_mb"]


def child_main(name: str, base_url: str, runs: int) -> None:
    fn = make_contestants(base_url, [name])[name]
    for _ in range(runs):
        fn()
    print(json.dumps({"peak_rss_mb": peak_rss_mb()}))


def sdk_replay(client, bodies: list[dict]):
    """The bare SDK sending exactly the requests an agent sent (its same-exchange baseline)."""

    def replay() -> None:
        for body in bodies:
            if body.get("stream"):  # a streamed request: read every chunk, as an agent does
                for _ in client.chat.completions.create(**body):
                    pass
            else:
                client.chat.completions.create(**body).choices[0].message  # noqa: B018 (reads the reply, as an agent does)

    return replay


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30, help="measured rounds (default 30)")
    parser.add_argument("--warmup", type=int, default=3, help="rounds discarded first (default 3)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--only", nargs="*", help="run only these contestants (bare-sdk is always included)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child_main(args.child, args.base_url, args.rounds)
        return 0

    assert add.schema == ADD_SCHEMA, f"the bare loop's schema differs from vero's: {add.schema}"
    import openai

    with MockOpenAIServer(responder=respond) as srv:
        names = None if not args.only else ["bare-sdk", *args.only]
        contestants = make_contestants(srv.base_url, names)
        agents = [n for n in contestants if n != "bare-sdk" and n not in REFERENCES]
        client = openai.OpenAI(api_key="test", base_url=srv.base_url)
        for name in agents:  # record each agent's requests once, for its same-exchange SDK replay
            contestants[f"sdk-replay[{name}]"] = sdk_replay(client, run_once(srv, contestants[name])["bodies"])
        samples: dict[str, list[dict]] = {name: [] for name in contestants}
        order = list(contestants)
        for round_number in range(args.warmup + args.rounds):
            shift = round_number % len(order)
            for name in order[shift:] + order[:shift]:
                sample = run_once(srv, contestants[name])
                if name in EXPECTED_ANSWERS and sample["answer"] != EXPECTED_ANSWERS[name]:
                    raise SystemExit(f"{name} answered {sample['answer']!r}, expected {EXPECTED_ANSWERS[name]!r}")
                if round_number >= args.warmup:
                    samples[name].append(sample)
        economy = prompt_economy(srv, contestants) if "ReActAgent" in contestants else None
        rss = {name: child_rss(srv.base_url, name, 20) for name in contestants if not name.startswith("sdk-replay")}

    def ms(name: str) -> float:
        return median([s["client_ms_per_call"] for s in samples[name]])

    def paired(name: str, baseline: str) -> float:
        """Median over rounds of name / baseline measured in the same round (robust to load drift)."""
        return median(
            [a["client_ms_per_call"] / b["client_ms_per_call"] for a, b in zip(samples[name], samples[baseline])]
        )

    rows, report = [], {}
    for name in [n for n in contestants if not n.startswith("sdk-replay")]:
        runs = samples[name]
        ratio = paired(name, "bare-sdk")
        replay = f"sdk-replay[{name}]" if name in agents else None
        same = paired(name, replay) if replay else None
        entry = report[name] = {
            "calls_per_run": runs[0]["calls"],
            "client_ms_per_call": round(ms(name), 4),
            "server_ms_per_call": round(median([s["server_s"] * 1000 / s["calls"] for s in runs]), 4),
            "ratio_to_bare_sdk": round(ratio, 3),
            "sdk_same_requests_ms_per_call": round(ms(replay), 4) if replay else None,
            "ratio_to_sdk_same_requests": round(same, 3) if replay else None,
            "request_bytes_per_run": runs[0]["request_bytes"],
            "peak_rss_mb": round(rss[name], 1),
            "reference": name in REFERENCES,
        }
        if name in agents:
            entry["pass"] = (same if name in SAME_REQUESTS_TARGET else ratio) <= TARGET_RATIO
        rows.append(
            [
                name,
                runs[0]["calls"],
                ms(name),
                ratio,
                ms(replay) if replay else "",
                same or "",
                runs[0]["request_bytes"],
                rss[name],
                verdict(entry["pass"]) if name in agents else "",
            ]
        )
    if economy:
        economy["pass"] = economy["ratio"] <= TARGET_ECONOMY
    result = {
        "machine": machine(),
        "rounds": args.rounds,
        "warmup": args.warmup,
        "target_ratio": TARGET_RATIO,
        "contestants": report,
        "react_prompt_economy": economy,
        "target_economy": TARGET_ECONOMY,
    }
    if args.json:
        dump_json(result)
    else:
        print(f"machine: {machine_line(result['machine'])}")
        print(
            f"{args.rounds} interleaved rounds after {args.warmup} warm-up; ms/call = (run wall time - server "
            f"handler time) / calls, median over rounds.\n'x bare' (the target, <= {TARGET_RATIO}) and "
            "'x sdk same' are medians of per-round ratios; 'sdk same' replays the agent's exact requests "
            "through the bare SDK.\n"
        )
        print_table(
            [
                "contestant",
                "calls",
                "ms/call",
                "x bare",
                "sdk same ms",
                "x sdk same",
                "req bytes/run",
                "peak RSS MB",
                "target",
            ],
            rows,
        )
        if economy:
            print(
                f"\nReAct prompt economy ({economy['calls']} calls): {economy['sent_bytes']} content bytes sent, "
                f"minimum {economy['minimum_bytes']}: {economy['ratio']:.3f}x  "
                f"(target <= {TARGET_ECONOMY})  {verdict(economy['pass'])}"
            )
    passed = all(r.get("pass", True) for r in report.values()) and (economy is None or economy["pass"])
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
