"""Fault-matrix rows for what comes back from the model endpoint (model I/O).

The same pattern as tests/test_faults.py, whose helpers are reused: each row
of ``FAULTS`` is a ``FaultRow(name, agents, check, expected)`` and
``test_fault`` runs every (row, agent) pair.  Agent kind ``direct`` marks a
row whose check drives ``ChatOpenAI``, the helpers or the batch runner
directly and ignores the kind.

Rows: ``<think>`` handling that must stay linear, lone surrogates in a reply,
usage counts the server got wrong, a ``ChatOpenAI`` shared across a fork, and
a masked form of the API key echoed back in an error.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from mock_pool import pooled_mock_server  # a reused MockOpenAIServer, for speed
from test_faults import (
    ADD,
    ALL,
    TASK,
    FaultRow,
    add,
    all_steps,
    chat_openai,
    critique,
    fault_test,
    final,
    happy,
    happy_default,
    make_agent,
    plan_json,
    respond,
    row_registry,
    verdict,
)

from vero import LLMCallError, Message
from vero.core.chat_openai import ChatOpenAI
from vero.core.result import Status, add_usage, empty_usage, normalize_usage
from vero.core.thinking import ThinkingStream, split_thinking
from vero.testing import HTTPFault, MockOpenAIServer, ScriptedLLM

FAULTS: list[FaultRow] = []
EVERY = (*ALL, "react_native")
DIRECT = ("direct",)


fault = row_registry(FAULTS)


# =========================================================================== helpers


LINEAR = 64  # growth for 16x the input: about 16 when linear, 256 when quadratic; 64 leaves room for noise


def growth(fn: Callable[[str], object], make_text: Callable[[int], str], n: int) -> float:
    """How much slower ``fn`` is on ``make_text(16 n)`` than on ``make_text(n)``.

    Short timings are repeated (``reps``), and the pair is measured again (up
    to 5 times, the best ratio counts) while the ratio looks superlinear, so
    that noise on a busy machine does not count; a slow run is not measured
    again (it is not noise, and it costs seconds).
    """
    small, large = make_text(n), make_text(16 * n)

    def seconds(text: str, reps: int) -> float:  # this thread's CPU time: other processes' load does not count
        started = time.thread_time()
        for _ in range(reps):
            fn(text)
        return time.thread_time() - started

    reps = max(1, int(0.01 / max(seconds(small, 1), 1e-7)))
    ratio = math.inf
    for _ in range(5):
        base, took = seconds(small, reps), seconds(large, reps)
        ratio = min(ratio, took / base)
        if ratio < LINEAR or took > 0.5:
            break
    return ratio


def encodable(text: str | None) -> bool:
    """True when the text can be sent over HTTP or printed to a UTF-8 stream."""
    try:
        (text or "").encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def completion_text(message: dict, usage: dict | None = None) -> dict:
    """A non-streamed reply sent as JSON text: lone surrogates travel as ``\\ud83d`` escapes."""
    body = {
        "id": "chatcmpl-raw",
        "object": "chat.completion",
        "created": 0,
        "model": "mock",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}],
        "usage": usage or {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    return {"raw": json.dumps(body)}  # ensure_ascii=True: "\ud83d" becomes the six characters \ud83d


def chunk_text(delta: dict, finish_reason: str | None = None) -> str:
    """One streamed ``data:`` chunk as JSON text (again: surrogates as escapes)."""
    return json.dumps(
        {
            "id": "chatcmpl-raw",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "mock",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
    )


def streamed(*deltas: dict) -> dict:
    """A streamed reply made of these deltas, as raw chunks."""
    return {"raw": [chunk_text({"role": "assistant"}), *map(chunk_text, deltas), chunk_text({}, "stop")]}


# =========================================================================== <think> stays linear


def tags(n: int) -> str:
    return "<think>" * n


def mixed(n: int) -> str:
    """Closed blocks, a lone ``</think>``, then ``n`` opening tags that are never closed."""
    return "<think>t</think>a " * (n // 8) + "late</think>" + "b<think>" * n


def split_stream(text: str) -> str:
    stream = ThinkingStream()
    return stream.feed(text) + stream.flush()


@fault(
    "model/think-tags-quadratic",
    DIRECT,
    "splitting <think> is linear: 16x the text takes about 16x the time (split_thinking and ThinkingStream); "
    "16000 opening tags (112 KB) or 109 KB of tag soup, scripted or over HTTP (streamed too), split as before",
)
def model_think_quadratic(kind):
    ratios = {
        "split_thinking(<think>*N)": growth(split_thinking, tags, 2000),
        "split_thinking(mixed)": growth(split_thinking, mixed, 2000),
        "ThinkingStream(<think>*N)": growth(split_stream, tags, 2000),
        "ThinkingStream(mixed)": growth(split_stream, mixed, 2000),
    }
    assert all(r < LINEAR for r in ratios.values()), ratios

    # the same semantics as before, at any size
    assert split_thinking(mixed(16)) == ("b", "a a late\n\nt\n\nt\n\n" + "b<think>" * 15)
    assert split_thinking(tags(16000)) == ("", tags(15999))
    stream = ThinkingStream()
    assert stream.feed("x<thi") == "x" and stream.feed("nk>y</th") == "" and stream.feed("ink>z") == "z"
    assert "".join(stream.thinking) == "y" and stream.flush() == ""

    # the reproduction: an agent on a scripted model, and ChatOpenAI over HTTP
    agent = make_agent("chat", ScriptedLLM([tags(16000)]))
    agent.run("hi")
    assert [s.content for s in all_steps(agent.last_result, "thinking")] == [tags(15999)]
    soup = mixed(10600)  # 109 KB
    assert 105_000 < len(soup.encode()) < 112_000
    with pooled_mock_server([soup, soup, tags(16000), tags(16000)]) as srv:
        llm = chat_openai(srv, max_tokens=0)  # no output cap: 109 KB is within the reply size limit
        for text in (soup, tags(16000)):
            expected = split_thinking(text)
            plain = llm.generate([Message.user("q")])
            tokens: list[str] = []
            live = llm.generate([Message.user("q")], on_token=tokens.append)
            assert (plain.content, plain.reasoning) == (live.content, live.reasoning) == expected
            assert "".join(tokens) == split_stream(text) and "<think>" not in "".join(tokens)
    return "linear: " + ", ".join(f"{name} x{ratio:.1f}" for name, ratio in ratios.items())


# =========================================================================== lone surrogates in a reply

HALF = "Paris, half \ud83d"  # the first half of a surrogate pair, alone
REPAIRED = "Paris, half \ufffd"


def answer_replies(kind: str, answer: str) -> list:
    """``happy(kind, answer)``, with the plan's JSON answer written the way a model writes it (not escaped)."""
    replies = happy(kind, answer)
    if kind == "plan":
        replies[-1] = json.dumps({"response": answer}, ensure_ascii=False)
    return replies


@fault(
    "model/lone-surrogate-in-reply",
    EVERY,
    "a lone surrogate in a non-streamed reply becomes U+FFFD: ok; the history is valid text and the next "
    "turn reaches the server: ok",
)
def model_lone_surrogate(kind):
    first = [completion_text({"content": reply}) for reply in answer_replies(kind, HALF)]
    with pooled_mock_server([*first, *happy(kind)]) as srv:
        agent = make_agent(kind, chat_openai(srv))
        answer = agent.run(TASK)
        assert (agent.last_result.status, answer) == (Status.OK, REPAIRED), (
            agent.last_result.status,
            answer,
            agent.last_result.error,
        )
        assert all(encodable(m.text) and encodable(m.reasoning) for m in agent.history)
        second = agent.run("And of Italy?")
        result = agent.last_result
        assert (result.status, second) == (Status.OK, "Paris"), (result.status, second, result.error)
        assert len(srv.requests) == len(first) + len(happy(kind))
        assert encodable(agent.last_result.to_json())
    return "ok; repaired to U+FFFD; the next turn ok"


@fault(
    "model/lone-surrogate-escape-in-json",
    ("react", "react_native", "chat", "plan"),
    "a lone surrogate the model writes as a JSON escape (\\ud83d) in tool arguments, a tool call "
    "written as text or the planner's JSON becomes U+FFFD where the JSON is read: ok, valid text",
)
def model_surrogate_escape_in_json(kind):
    seen = []

    def echo(text: str) -> str:
        """Echo the text."""
        seen.append(text)
        return f"echoed {text}"

    escaped = '{"text": "half \\ud83d"}'
    replies = {
        "react": [f"Thought: echo it\nAction: echo\nAction Input: {escaped}", final("done")],
        "react_native": [f'```json\n{{"name": "echo", "arguments": {escaped}}}\n```', "done"],
        "chat": [f'```json\n{{"name": "echo", "arguments": {escaped}}}\n```', "done"],
        "plan": [
            '{"steps": ["Echo half \\ud83d."]}',
            f"Thought: echo it\nAction: echo\nAction Input: {escaped}",
            final("done"),
            respond("done"),
        ],
    }[kind]
    llm = ScriptedLLM(replies)
    agent = make_agent(kind, llm, tools=[echo])
    answer = agent.run(TASK)
    assert (agent.last_result.status, answer) == (Status.OK, "done"), (
        agent.last_result.status,
        agent.last_result.error,
    )
    assert seen == ["half \ufffd"], seen
    assert encodable(agent.last_result.to_json()) and all(
        encodable(json.dumps(r.messages, ensure_ascii=False)) for r in llm.requests
    )
    return "ok; the escape became U+FFFD where the JSON was read"


@fault(
    "model/surrogate-pair-split-across-chunks",
    ("chat",),
    "a surrogate pair cut across two streamed chunks is joined into its character (streamed and in the "
    "answer); a lone half becomes U+FFFD; the next turn ok",
)
def model_split_pair(kind):
    reply = streamed({"content": "Paris \ud83d"}, {"content": "\ude00 and half \ud83d"})
    with pooled_mock_server([reply, "Rome"]) as srv:
        agent = make_agent(kind, chat_openai(srv))
        tokens: list[str] = []
        answer = agent.run(TASK, on_token=tokens.append)
        assert (agent.last_result.status, answer) == (Status.OK, "Paris 😀 and half \ufffd"), (
            answer,
            agent.last_result,
        )
        assert "".join(tokens) == answer and all(encodable(t) for t in tokens), tokens
        assert agent.run("And of Italy?", on_token=tokens.append) == "Rome" and agent.last_result.ok
        assert "Paris 😀 and half \ufffd" in json.dumps(srv.requests[1], ensure_ascii=False)
    return "ok; the pair joined, the lone half replaced"


@fault(
    "model/lone-surrogate-in-fields",
    DIRECT,
    "content, reasoning, tool-call ids, names and arguments with lone surrogates are repaired, "
    "streamed or not; pairs split across chunks are joined",
)
def model_surrogate_fields(kind):
    call = {"id": "call_\udc00", "type": "function", "function": {"name": "add\ud800", "arguments": '{"a": "\ud83d"}'}}
    plain = completion_text({"content": "x\udfff", "reasoning_content": "why \ud83d", "tool_calls": [call]})
    live = streamed(
        {"reasoning_content": "why \ud83d"},
        {"reasoning_content": "\ude00"},
        {"content": "<think>\ud83d"},
        {"content": "\ude00</think>x \ud83d"},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "add\ud83d", "arguments": '{"a": "\ud83d'},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '\ude00"}'}}]},
    )
    with pooled_mock_server([plain, live]) as srv:
        llm = chat_openai(srv)
        first = llm.generate([Message.user("q")])
        second = llm.generate([Message.user("q")], on_token=lambda token: None)
    assert (first.content, first.reasoning) == ("x\ufffd", "why \ufffd")
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [("call_\ufffd", "add\ufffd", '{"a": "\ufffd"}')]
    assert (second.content, second.reasoning) == ("x \ufffd", "why 😀\n\n😀")
    assert [(c.name, c.arguments) for c in second.tool_calls] == [("add\ufffd", '{"a": "😀"}')]
    return "every field repaired; split pairs joined"


@fault(
    "model/lone-surrogate-via-cli",
    ALL,
    "`vero run` (and `--json`) with a lone surrogate in the answer: exit 0, the answer printed with U+FFFD, "
    "valid JSON, the trace says ok",
)
def model_surrogate_cli(kind):
    outputs = []
    with tempfile.TemporaryDirectory() as folder:
        for extra in ([], ["--json"]):
            replies = [completion_text({"content": r}) for r in happy_default(kind, HALF)]
            trace = os.path.join(folder, f"trace{len(outputs)}.jsonl")
            with pooled_mock_server(replies) as srv:
                code, out, err = run_cli(
                    [
                        "run",
                        TASK,
                        "--agent",
                        kind,
                        "--tools",
                        "none",
                        "--base-url",
                        srv.base_url,
                        "--api-key",
                        "sk-test",
                        "--trace",
                        trace,
                        *extra,
                    ]
                )
            assert code == 0 and "❌" not in err, (code, out, err)
            events = [json.loads(line) for line in Path(trace).read_text(encoding="utf-8").splitlines()]
            assert events[-1]["type"] == "run_end" and events[-1]["status"] == Status.OK, events[-1]
            outputs.append(out)
    assert f"Final Answer (ok): {REPAIRED}" in outputs[0], outputs[0]
    assert json.loads(outputs[1])["answer"] == REPAIRED
    return "exit 0 twice; U+FFFD printed; valid JSON"


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``vero.cli.main(argv)`` with stdout and stderr as strict UTF-8 streams, like a pipe or a terminal."""
    from vero import cli

    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out, err = io.TextIOWrapper(out_bytes, encoding="utf-8"), io.TextIOWrapper(err_bytes, encoding="utf-8")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    out.flush()
    err.flush()
    return code, out_bytes.getvalue().decode("utf-8"), err_bytes.getvalue().decode("utf-8")


# =========================================================================== usage from the server

STRING_USAGE = {
    "prompt_tokens": "12",
    "completion_tokens": " 3 ",
    "total_tokens": "15",
    "prompt_tokens_details": {"cached_tokens": "4"},
}


@fault(
    "api/usage-as-strings",
    EVERY,
    "numeric strings in usage are counted as numbers (cached_tokens too), streamed or not; ok, no TypeError",
)
def api_usage_strings(kind):
    script = happy(kind)
    streams = [False, True] if kind == "chat" else [False]  # chat: a second turn, streamed
    replies = [{"content": reply, "usage": STRING_USAGE} for reply in script * len(streams)]
    with pooled_mock_server(replies) as srv:
        llm = chat_openai(srv)
        agent = make_agent(kind, llm)
        for stream in streams:
            answer = agent.run(TASK, on_token=lambda t: None) if stream else agent.run(TASK)
            result = agent.last_result
            assert (result.status, answer) == (Status.OK, "Paris"), (stream, result.status, answer, result.error)
            assert result.usage == counted(len(script)), (stream, result.usage)
    assert llm.total_usage == counted(len(replies)), llm.total_usage
    return f"ok; {llm.total_usage['total_tokens']} tokens counted over {len(replies)} call(s)"


def counted(calls: int) -> dict:
    """What ``STRING_USAGE`` adds up to over ``calls`` calls."""
    return {
        "prompt_tokens": 12 * calls,
        "completion_tokens": 3 * calls,
        "total_tokens": 15 * calls,
        "cached_tokens": 4 * calls,
    }


BUDGET_CASES = {  # kind: (replies as (text, extra), budget, calls, partial answer): see limits/token-budget
    "reflection": ([("Paris", {}), (critique(True), {})], 60, 2, "Paris"),
    "react": ([(ADD, {}), (final("5"), {})], 60, 2, "I should add"),
    "plan": ([(plan_json("a", "b"), {}), (final("21"), {}), (plan_json("b"), {}), (final("42"), {})], 120, 3, "21"),
    "reflexion": ([("Paris", {}), (verdict(True, 95), {})], 60, 2, "Paris"),
    "chat": (
        [("Let me add.", {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}), ("5", {})],
        60,
        2,
        "Let me add.",
    ),
}


@fault(
    "api/negative-usage",
    ALL,
    "a negative total_tokens counts as prompt + completion: the token budget still stops the run "
    "(max_tokens, the partial answer, the exact call count), as in limits/token-budget",
)
def api_negative_usage(kind):
    usage = {"prompt_tokens": 40, "completion_tokens": 10, "total_tokens": -1000}
    replies, budget, calls, partial = BUDGET_CASES[kind]
    with pooled_mock_server([{"content": text, "usage": usage, **extra} for text, extra in replies]) as srv:
        llm = chat_openai(srv)
        agent = make_agent(kind, llm, [add] if kind in ("react", "chat") else [], max_tokens_per_run=budget)
        answer = agent.run("task")
        result = agent.last_result
    assert (result.status, answer, result.llm_calls) == (Status.MAX_TOKENS, partial, calls), (
        result.status,
        answer,
        result.llm_calls,
        result.usage,
    )
    assert result.usage["total_tokens"] == 50 * calls == llm.total_usage["total_tokens"], result.usage
    return f"max_tokens after {calls} calls; {result.usage['total_tokens']} tokens counted"


@fault(
    "api/usage-garbage-values",
    DIRECT,
    "usage counts that are bool, negative, NaN, infinite, absurd (> 1e9) or not numbers count 0; "
    "numeric strings count; a total below prompt + completion is raised to it; the running total never drops",
)
def api_usage_garbage(kind):
    cases = [
        ("12", 12),
        (" 7 ", 7),
        ("12.0", 12),
        (9.0, 9),
        (5, 5),
        (True, 0),
        (False, 0),
        (-5, 0),
        ("-5", 0),
        (float("nan"), 0),
        (float("inf"), 0),
        ("1e30", 0),
        (10**15, 0),
        (None, 0),
        ("abc", 0),
        ([3], 0),
        ({"n": 3}, 0),
        ("", 0),
    ]
    for value, count in cases:
        usage = normalize_usage(
            {
                "prompt_tokens": value,
                "completion_tokens": 0,
                "total_tokens": value,
                "prompt_tokens_details": {"cached_tokens": value},
            }
        )
        assert [usage[k] for k in ("prompt_tokens", "total_tokens", "cached_tokens")] == [count] * 3, (value, usage)
        total = {**empty_usage(), "total_tokens": 100}
        add_usage(total, {"total_tokens": value, "prompt_tokens": value})
        assert total["total_tokens"] == 100 + count and total["prompt_tokens"] == count, (value, total)
    usage = normalize_usage({"prompt_tokens": 30, "completion_tokens": 20, "total_tokens": 7})
    assert usage["total_tokens"] == 50
    total = empty_usage()
    add_usage(total, {"prompt_tokens": 30, "completion_tokens": 20})  # no total: prompt + completion
    assert total == {"prompt_tokens": 30, "completion_tokens": 20, "total_tokens": 50, "cached_tokens": 0}
    assert normalize_usage(None) is None and normalize_usage("12") is None
    return f"{len(cases)} values checked"


# =========================================================================== a client shared across fork

_SHARED: dict = {}  # the parent's ChatOpenAI, inherited by forked workers


def make_shared_agent():
    """Module-level, so a process pool can pickle it: a fresh agent on the parent's (already used) client."""
    return make_agent("chat", _SHARED["llm"])


def _answer_the_task(body: dict) -> str:
    task = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return f"answer to {task}"


@fault(
    "batch/client-shared-across-fork",
    DIRECT,
    "a ChatOpenAI used in the parent, then used by forked workers (run_many, ProcessPoolExecutor): "
    "each worker opens its own connections; every answer matches its task",
)
def batch_shared_fork(kind):
    from vero.batch import run_many

    tasks = [f"task-{i}" for i in range(40)]
    with MockOpenAIServer(responder=_answer_the_task, latency=0.02) as srv:
        _SHARED["llm"] = chat_openai(srv, max_retries=0, timeout=3)
        try:
            assert make_shared_agent().run("warm-up") == "answer to warm-up"  # a keep-alive connection now
            with ProcessPoolExecutor(4, mp_context=multiprocessing.get_context("fork")) as pool:
                results = run_many(make_shared_agent, tasks, executor=pool, progress=False)
            assert make_shared_agent().run("after") == "answer to after"  # the parent's client still works
        finally:
            _SHARED.clear()
        connections = srv.connections_accepted
    wrong = [(r.task, r.status, r.answer) for r in results if r.answer != f"answer to {r.task}"]
    assert not wrong, f"{len(wrong)} of {len(tasks)} wrong: {wrong[:5]}"
    assert connections >= 2, connections  # the parent's, and at least one of a worker
    return f"all {len(tasks)} answers match their task; {connections} connections"


# =========================================================================== a masked key echoed back

CANARY = "sk-canary-7Hq2Lm9Xw4Pz-0123456789-Z123"
MASKED = "sk-canar****Z123"
DOTTED = "sk-can...Z123"
FRAGMENT = CANARY[10:24]  # a bare 14-character piece


def key_leaks(texts: dict) -> dict:
    """For each text, the pieces of the key (8+ characters, or the masked tail) that it shows."""
    pieces = {CANARY[i : i + 8] for i in range(len(CANARY) - 7)} | {"Z123"}
    found = {name: sorted(p for p in pieces if p in text) for name, text in texts.items()}
    return {name: hits for name, hits in found.items() if hits}


def echoing_fault() -> HTTPFault:
    message = f"Incorrect API key provided: {MASKED}. You sent {CANARY} (also shown as {DOTTED}; id {FRAGMENT})"
    body = {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "code": "invalid_api_key",
            "param": MASKED,
            "details": [CANARY, f"key={MASKED}"],
        }
    }
    return HTTPFault(401, body=body)


@fault(
    "secrets/masked-key-echoed",
    EVERY,
    "a 401 echoing the key whole, masked (sk-canar****Z123, sk-can...Z123) and in pieces: no piece of the key "
    "in the error, its cause, the cause's body, to_json, the trace or printed output; failed, history intact",
)
def secrets_masked_key(kind):
    with tempfile.TemporaryDirectory() as folder:
        trace = os.path.join(folder, "trace.jsonl")
        out, err = io.StringIO(), io.StringIO()
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            pooled_mock_server([*happy(kind), echoing_fault()]) as srv,
        ):
            llm = ChatOpenAI(model_name="mock", api_key=CANARY, base_url=srv.base_url, max_retries=0)
            agent = make_agent(kind, llm, verbose=True, trace=trace)
            assert agent.run(TASK) == "Paris"
            assert agent.run("And of Italy?") == ""
            assert srv.request_log[0].headers["authorization"] == f"Bearer {CANARY}"
        failed = agent.last_result
        error = failed.error
        assert isinstance(error, LLMCallError) and error.status == 401, repr(error)
        cause = error.__cause__
        texts = {
            "str(error)": str(error),
            "str(cause)": str(cause),
            "repr(cause)": repr(cause),
            "cause.body": json.dumps(cause.body),
            "cause.message": str(getattr(cause, "message", "")),
            "to_json": failed.to_json(),
            "trace": Path(trace).read_text(encoding="utf-8"),
            "stdout": out.getvalue(),
            "stderr": err.getvalue(),
        }
    assert not key_leaks(texts), key_leaks(texts)
    assert "***" in str(error) and "Incorrect API key provided" in str(error)
    return f"0 pieces of the key in {len(texts)} outputs"


@fault(
    "secrets/key-fragments-scrubbed",
    DIRECT,
    "_scrub masks the whole key, any 8+ character piece of it, and prefix***suffix forms with 4+ character "
    "pieces; a short key (< 12 characters) is masked only whole; other text is untouched; linear time",
)
def secrets_fragments(kind):
    from vero.core.chat_openai import _scrub

    def scrubbed(text: str, secret: str = CANARY) -> str:
        exc = Exception(text)
        _scrub(exc, secret, [secret])
        return exc.args[0]

    for echoed in (
        CANARY,
        MASKED,
        DOTTED,
        FRAGMENT,
        "sk-canary…Z123",
        "sk-c****************Z123",
        CANARY[:8],
        CANARY[-8:],
        f"{CANARY[:6]}***{CANARY[-6:]}",
    ):
        text = scrubbed(f"key: {echoed}.")
        assert text == "key: ***.", (echoed, text)
    untouched = "Loading... **bold** *** sk-other-key-abcdef12 ok"
    assert scrubbed(untouched) == untouched
    assert scrubbed("short sk-abc1234 and sk-abc1****1234", "sk-abc1234") == "short *** and sk-abc1****1234"
    ratio = growth(lambda text: scrubbed(text), lambda n: ("sk-canar****Z123 a*** " + CANARY[5:20]) * n, 200)
    assert ratio < LINEAR, ratio
    return f"all forms masked; x{ratio:.1f} for 16x the text"


# =========================================================================== pytest


# =========================================================================== huge unclosed replies stay cheap


echoed: list = []


def echo(text: str) -> str:
    """Say the text back."""
    echoed.append(text)
    return text


UNCLOSED_REPLIES = {  # each about 400 KB: the shapes the reply parsers accept, never closed
    "<function=echo>": "<function=echo>" * 27_000,
    "<tool_call>{": "<tool_call>{" * 34_000,
    "```json {": "```json\n{" * 45_000,
    "**Action:**": "**Action:** echo\n" * 24_000,
}


@fault(
    "model/huge-unclosed-reply",
    ("chat", "react", "react_native"),
    "a 400 KB reply of unclosed call shapes (<function=, <tool_call>, fences, labels; an Action Input) is read "
    "in one linear pass: no call runs, the run ends with a defined status (benchmarks/parse_speed.py "
    "measures time per KB)",
)
def model_huge_unclosed_reply(kind):
    from vero.core.parsing import parse_react, tool_calls_in_text

    for shape, text in UNCLOSED_REPLIES.items():
        assert tool_calls_in_text(text, ["echo"]) is None, shape
        assert parse_react(text, ["echo"]).action_input is None, shape
        echoed.clear()
        agent = make_agent(kind, ScriptedLLM([text], default=final("done")), [echo])
        agent.run(TASK)
        assert agent.last_result.status in (Status.OK, "failed", "max_turns"), (shape, agent.last_result.status)
        assert echoed == [], shape  # nothing written in these replies is a call
    unclosed_input = 'Thought: go\nAction: echo\nAction Input: {"text": "' + "x" * 400_000
    step = parse_react(unclosed_input, ["echo"])  # ReAct's own format: the call is the model's, its input text
    assert (step.action, step.action_input) == ("echo", unclosed_input.split("Action Input: ")[1])
    return "no call; a defined status"


test_fault = fault_test(FAULTS)


def test_the_rows_are_named_and_unique():
    names = [row.name for row in FAULTS]
    assert len(set(names)) == len(names)
    for needed in (
        "model/think-tags-quadratic",
        "model/lone-surrogate-in-reply",
        "api/usage-as-strings",
        "api/negative-usage",
        "batch/client-shared-across-fork",
        "secrets/masked-key-echoed",
    ):
        assert needed in names, needed
    assert all(row.agents and row.expected for row in FAULTS)
