"""The exact requests in a JSONL trace, and ``vero trace FILE`` reading them back."""

import io
import json
import os
import re
import threading
import time

import openai
import pytest

from vero import ChatOpenAI, Message, tool, trace_view
from vero.agents import ReActAgent, ToolCallingAgent
from vero.cli import main
from vero.errors import LLMCallError
from vero.testing import ScriptedLLM
from vero.trace_view import printable

KEY = "sk-trace-test-0123456789abcdef"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


def events(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def view(capsys, *args):
    code = main(["trace", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def traced_run(tmp_path, replies, tools=(add,), cls=ToolCallingAgent, task="What is 2 + 3?"):
    path = tmp_path / "run.jsonl"
    agent = cls("adder", ScriptedLLM(replies), tools=list(tools), verbose=False, trace=str(path))
    agent.run(task)
    agent.close()
    return path, agent


# -- what the trace records ----------------------------------------------------------------------------
def test_the_trace_holds_each_request_as_the_server_received_it_and_each_reply(tmp_path, shared_mock_server):
    shared_mock_server.enqueue({"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}, "The sum is 5.")
    llm = ChatOpenAI(
        model_name="mock",
        api_key=KEY,
        base_url=shared_mock_server.base_url,
        max_retries=0,
        max_tokens=256,
        http_client=openai.DefaultHttpxClient(trust_env=False),
    )
    path = tmp_path / "run.jsonl"
    agent = ToolCallingAgent("adder", llm, tools=[add], verbose=False, trace=str(path))
    agent.run("What is 2 + 3?")
    agent.close()
    recorded = [e["request"] for e in events(path) if e["type"] == "llm_start"]
    received = shared_mock_server.requests[-2:]
    for request, body in zip(recorded, received):
        assert request["messages"] == body["messages"] and request["tools"] == body["tools"]
        assert (request["model"], request["max_tokens"], request.get("stop")) == (
            body["model"],
            body["max_tokens"],
            body.get("stop"),
        )
    replies = [e["reply"] for e in events(path) if e["type"] == "llm_call"]
    assert replies[0]["tool_calls"][0]["function"]["name"] == "add"
    assert replies[1]["content"] == "The sum is 5." and replies[1]["finish_reason"] == "stop"
    assert replies[1]["usage"]["prompt_tokens"] > 0


def test_the_api_key_never_appears_in_the_trace(tmp_path, shared_mock_server):
    shared_mock_server.enqueue(f"You said {KEY}.")
    llm = ChatOpenAI(
        model_name="mock",
        api_key=KEY,
        base_url=shared_mock_server.base_url,
        max_retries=0,
        http_client=openai.DefaultHttpxClient(trust_env=False),
    )
    path = tmp_path / "run.jsonl"
    agent = ToolCallingAgent("t", llm, verbose=False, trace=str(path))
    agent.run(f"Remember {KEY}")
    agent.close()
    text = path.read_text(encoding="utf-8")
    assert KEY not in text and "Remember ***" in text and "You said ***." in text


def test_text_deltas_are_not_written_to_the_trace(tmp_path):
    path = tmp_path / "run.jsonl"
    agent = ToolCallingAgent("t", ScriptedLLM(["one two three"]), verbose=False, trace=str(path))
    list(agent.stream("count"))
    agent.close()
    types = [e["type"] for e in events(path)]
    assert "text_delta" not in types and types.count("llm_call") == 1


# -- the viewer ------------------------------------------------------------------------------------------
def test_the_demo_trace_shows_every_request_of_the_demo(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--trace", "demo.jsonl"]) == 0
    capsys.readouterr()
    trace = events(tmp_path / "demo.jsonl")
    requests = sum(e["type"] == "llm_start" for e in trace)
    model_calls = sum(e["llm_calls"] for e in trace if e["type"] == "run_end")
    assert requests == model_calls > 10
    code, out, _ = view(capsys, "demo.jsonl")
    assert code == 0
    assert re.findall(r"── Call (\d+) ·", out) == [str(n) for n in range(1, requests + 1)]
    assert out.count("━━ Run ") == 5 and out.count("🏁 Run ") == 5
    assert "(sub-agent)" in out  # plan-and-execute's executors


def test_each_call_shows_its_new_messages_reply_tokens_time_and_tool_calls(tmp_path, capsys):
    path, _ = traced_run(
        tmp_path,
        [
            {
                "tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 32}},
            },
            "The sum is 5.",
        ],
    )
    code, out, _ = view(capsys, path)
    assert code == 0
    first, second = out.split("── Call 2")
    assert "2 messages, a new conversation:" in first and "[user] What is 2 + 3?" in first
    assert "50 prompt tokens (32 cached) + 7 completion" in first
    assert '→ add({"a": 2, "b": 3})' in first
    assert re.search(r'🔧 add\(\{"a": 2, "b": 3\}\) → ok, \d+\.\d\d s: 5', first)
    assert "4 messages, the first 2 as in call 1; new:" in second
    assert "[tool add] 5" in second and "[assistant] The sum is 5." in second
    assert "[user] What is 2 + 3?" not in second  # not new: shown once, in call 1
    assert "🏁 Run 1 ended ok: The sum is 5." in second


def test_a_failed_tool_call_and_a_failed_model_call_are_shown(tmp_path, capsys):
    path, _ = traced_run(
        tmp_path,
        [
            {"tool_calls": [{"name": "divide", "arguments": {"a": 1, "b": 0}}]},
            LLMCallError("model call failed (HTTP 500)", status=500),
        ],
        tools=[divide],
    )
    _, out, _ = view(capsys, path)
    assert "🔧 divide(" in out and "→ failed (exception)" in out
    assert "⬅ no reply" in out and "LLMCallError: model call failed (HTTP 500)" in out
    assert "🏁 Run 1 ended failed" in out


def test_call_n_prints_one_request_whole(tmp_path, capsys):
    long_task = "Add these. " + "x" * 5000
    path, agent = traced_run(
        tmp_path,
        ['Thought: add\nAction: add\nAction Input: {"a": 2, "b": 3}', "Final Answer: 5"],
        cls=ReActAgent,
        task=long_task,
    )
    _, overview, _ = view(capsys, path)
    assert long_task not in overview and "--full shows all" in overview
    code, out, _ = view(capsys, path, "--call", 2)
    assert code == 0 and long_task in out and "Observation: 5" in out
    assert out.startswith("Call 2 (run 1, adder)") and 'stop: ["Observation:"]' in out
    code, body, _ = view(capsys, path, "--call", 2, "--json")
    assert (
        json.loads(body) == agent.llm.requests[1].messages
        or json.loads(body)["messages"] == agent.llm.requests[1].messages
    )


def test_full_shows_long_messages_whole(tmp_path, capsys):
    long_task = "Add these. " + "y" * 5000
    path, _ = traced_run(tmp_path, ["5"], task=long_task)
    _, out, _ = view(capsys, path, "--full")
    assert long_task in out


def test_terminal_control_characters_in_the_trace_are_escaped(tmp_path, capsys):
    path, _ = traced_run(tmp_path, ["\x1b[2J\x1b]0;owned\x07Cleared\rthe \u202eevil screen"])
    _, out, _ = view(capsys, path)
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out and "\u202e" not in out
    assert "\\x1b[2J\\x1b]0;owned\\x07Cleared\\rthe \\u202eevil screen" in out


@pytest.mark.parametrize("call", [None, "1"])
def test_a_lone_surrogate_vero_wrote_is_shown_escaped_on_a_utf8_terminal(tmp_path, monkeypatch, call):
    # a task holding a file name Python could not decode: the trace keeps it as \udcef, which JSON reads back as a
    # lone surrogate; a UTF-8 terminal cannot write it, and the view stopped there ("call None could not be shown")
    path, _ = traced_run(tmp_path, ["Renamed na\udcefve.txt."], task="Rename na\udcefve.txt")
    terminal = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # strict, as a real terminal's stream
    monkeypatch.setattr("sys.stdout", terminal)
    assert main(["trace", str(path), *(["--call", call] if call else [])]) == 0
    terminal.flush()
    shown = terminal.buffer.getvalue().decode("utf-8")
    assert "Rename na\\udcefve.txt" in shown  # the request; the whole trace shows the reply and the run's end too
    assert call or ("Renamed na\\udcefve.txt." in shown and "🏁 Run 1 ended ok" in shown)


def test_printable_keeps_newlines_tabs_and_ordinary_text():
    assert printable("a\tb\nc é 👍") == "a\tb\nc é 👍"
    assert printable("\x9b31m") == "\\x9b31m"


@pytest.mark.parametrize(
    "content, code, message",
    [
        (None, 2, "cannot read"),
        ("", 1, "has no events"),
        (json.dumps({"type": "run_start", "agent": "a", "task": "t"}) + "\n", 1, "no model requests"),
    ],
)
def test_a_trace_that_cannot_be_shown_says_why(tmp_path, capsys, content, code, message):
    path = tmp_path / "t.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result, out, err = view(capsys, path)
    assert result == code and message in err and out == ""


def test_a_line_that_is_not_an_event_is_skipped_and_reported(tmp_path, capsys):
    path, _ = traced_run(tmp_path, ["5"])
    with open(path, "a", encoding="utf-8") as file:
        file.write('{"type": "run_start", "cut off\n')
    code, out, _ = view(capsys, path)
    assert code == 0 and "── Call 1" in out and "not a JSON event (skipped)" in out


def test_call_n_out_of_range_is_a_usage_error(tmp_path, capsys):
    path, _ = traced_run(tmp_path, ["5"])
    code, out, err = view(capsys, path, "--call", 2)
    assert code == 2 and "there is no call 2" in err and "calls 1 to 1" in err


def test_a_message_given_as_a_dict_is_recorded_as_sent(tmp_path):
    class DictAgent(ToolCallingAgent):
        def solve(self, task):
            return self.call_llm([{"role": "user", "content": task}, Message.assistant("ok")]).text

    path, _ = traced_run(tmp_path, ["5"], cls=DictAgent)
    request = next(e["request"] for e in events(path) if e["type"] == "llm_start")
    assert request["messages"] == [
        {"role": "user", "content": "What is 2 + 3?"},
        {"role": "assistant", "content": "ok"},
    ]


def test_demo_with_a_trace_file_that_cannot_be_written_is_a_usage_error(tmp_path, capsys):
    code = main(["demo", "--trace", str(tmp_path / "missing-folder" / "demo.jsonl")])
    assert code == 2 and "cannot write the trace file" in capsys.readouterr().err


def test_vero_help_lists_the_trace_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "trace" in capsys.readouterr().out


def test_warnings_after_a_call_are_shown_where_they_happened(tmp_path, capsys):
    class AskForJson(ToolCallingAgent):
        def solve(self, task):
            return str(self.ask_json([Message.user(task)], lambda obj: obj["sum"], schema='{"sum": 5}'))

    path, _ = traced_run(tmp_path, ["five, I think", '{"sum": 5}'], cls=AskForJson)
    _, out, _ = view(capsys, path)
    first, second = out.split("── Call 2")
    assert "⚠️ warning: unusable JSON from the model" in first
    assert "🏁 Run 1 ended ok: 5" in second


# -- a trace from anywhere: malformed events, deep nesting, odd files, huge inputs (issue 44, item 17) -------
def event_lines(*events_):
    return "".join(json.dumps(e) + "\n" for e in events_)


def run_events(task, answer):
    """One run of one model call, as a trace records it."""
    return [
        {"type": "run_start", "agent": "a", "task": task},
        {"type": "llm_start", "request": {"model": "m", "messages": [{"role": "user", "content": task}]}},
        {"type": "llm_call", "reply": {"content": answer}, "seconds": 0.5},
        {"type": "run_end", "status": "ok", "answer": answer, "elapsed_s": 0.5, "llm_calls": 1},
    ]


MALFORMED_EVENTS = {
    "messages-not-a-list": {"type": "llm_start", "request": {"messages": 5}},
    "message-not-an-object": {"type": "llm_start", "request": {"messages": [1, "x"]}},
    "tool-calls-not-objects": {
        "type": "llm_start",
        "request": {"messages": [{"role": "assistant", "tool_calls": [7]}]},
    },
    "reply-not-an-object": {"type": "llm_call", "reply": "just text"},
    "reply-tool-calls-a-string": {"type": "llm_call", "reply": {"tool_calls": "abc"}},
    "elapsed-not-a-number": {"type": "run_end", "status": "ok", "elapsed_s": "soon"},
    "step-kind-a-list": {"type": "step", "kind": ["warning"], "content": "x"},
    "tool-result-odd": {"type": "tool_result", "ok": "maybe", "seconds": [], "output": {"a": [1]}},
    "task-an-object": {"type": "run_start", "agent": ["a"], "task": {"t": 1}},
    "depth-absurd": {"type": "llm_start", "depth": 10**12, "request": {"messages": [{"role": "user", "content": "x"}]}},
}


@pytest.mark.parametrize("bad", MALFORMED_EVENTS.values(), ids=list(MALFORMED_EVENTS))
def test_a_malformed_event_is_one_marked_line_and_the_view_goes_on(tmp_path, capsys, bad):
    first, second = run_events("First task?", "one"), run_events("Second task?", "two")
    tool_call = {"type": "tool_call", "tool": "add", "args": {"a": 1}}
    path = tmp_path / "t.jsonl"
    path.write_text(event_lines(*first[:3], tool_call, bad, *first[3:], *second), encoding="utf-8")
    code, out, err = view(capsys, path)
    assert code == 0 and err == "" and "Traceback" not in out
    assert "👤 Task: Second task?" in out and "[assistant] two" in out and "ended ok: two" in out


@pytest.mark.parametrize(
    "replaced, bad, number",
    [
        (1, MALFORMED_EVENTS["messages-not-a-list"], 2),  # refused as it is read
        (1, MALFORMED_EVENTS["message-not-an-object"], 2),  # read, then refused as it is shown
        (2, MALFORMED_EVENTS["reply-not-an-object"], 3),
        (2, MALFORMED_EVENTS["reply-tool-calls-a-string"], 2),  # the call it answers is not shown
        (3, MALFORMED_EVENTS["elapsed-not-a-number"], 4),
    ],
)
def test_the_marked_line_names_the_line_of_the_malformed_event(tmp_path, capsys, replaced, bad, number):
    lines = run_events("First task?", "one")
    lines[replaced] = bad
    path = tmp_path / "t.jsonl"
    path.write_text(event_lines(*lines, *run_events("Second task?", "two")), encoding="utf-8")
    code, out, _ = view(capsys, path)
    marked = [line for line in out.splitlines() if line.startswith("⚠️ line")]
    assert code == 0 and len(marked) == 1 and marked[0].startswith(f"⚠️ line {number}:") and "malformed" in marked[0]
    assert "ended ok: two" in out


@pytest.mark.parametrize("depth", [990, 100_000])
def test_a_deeply_nested_line_is_a_marked_line_not_a_recursion_error(tmp_path, capsys, depth):
    deep = '{"type": "llm_start", "request": {"messages": [{"role": "user", "content": ' + "[" * depth
    deep += "]" * depth + "}]}}"
    path = tmp_path / "t.jsonl"
    path.write_text(event_lines(*run_events("First task?", "one")) + deep + "\n", encoding="utf-8")
    code, out, _ = view(capsys, path)
    assert code == 0 and "Run 1 ended ok: one" in out
    assert depth < 1000 or "line 5: nested too deeply" in out


def test_a_fifo_is_refused_at_once_without_waiting_for_a_writer(tmp_path, capsys):
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    done: list = []
    worker = threading.Thread(target=lambda: done.append(view(capsys, fifo)), daemon=True)
    worker.start()
    worker.join(timeout=10)
    if not done:  # free the stuck reader before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert done and done[0][0] == 2 and "not a regular file (a FIFO)" in done[0][2]


@pytest.mark.parametrize("target, kind", [("/dev/zero", "a device"), (".", "a folder")])
def test_a_device_or_a_folder_is_refused_unread(capsys, target, kind):
    if not os.path.exists(target):
        pytest.skip(f"no {target} here")
    code, out, err = view(capsys, target)
    assert code == 2 and out == "" and f"not a regular file ({kind})" in err


def test_a_line_over_the_cap_is_skipped_unread_and_the_rest_is_shown(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(trace_view, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(trace_view, "READ_CHUNK", 64)
    path = tmp_path / "t.jsonl"
    text = event_lines(*run_events("First task?", "one")) + "x" * 50_000 + "\n"
    path.write_text(text + event_lines(*run_events("Second task?", "two")), encoding="utf-8")
    code, out, _ = view(capsys, path)
    assert code == 0 and "line 5: longer than" in out and "Run 2 ended ok: two" in out


def test_a_trace_over_the_total_cap_is_read_up_to_it_and_says_so(tmp_path, capsys, monkeypatch):
    first = event_lines(*run_events("First task?", "one"))
    monkeypatch.setattr(trace_view, "MAX_TRACE_BYTES", len(first.encode()))
    path = tmp_path / "t.jsonl"
    path.write_text(first + event_lines(*run_events("Second task?", "two")), encoding="utf-8")
    code, out, _ = view(capsys, path)
    assert code == 0 and "Run 1 ended ok: one" in out and "Second task?" not in out
    assert "the rest is not read" in out


def test_lines_that_cannot_be_read_are_noted_up_to_a_cap_then_counted(tmp_path, capsys):
    path = tmp_path / "t.jsonl"
    path.write_text(event_lines(*run_events("First task?", "one")) + "x\n" * 5000, encoding="utf-8")
    code, out, _ = view(capsys, path)
    assert code == 0 and out.count("not a JSON event") == trace_view.MAX_NOTED
    assert f"{5000 - trace_view.MAX_NOTED:,} more lines could not be read" in out


def test_events_are_read_up_to_a_cap(monkeypatch):
    monkeypatch.setattr(trace_view, "MAX_KEPT", 21)  # the run's start, then 10 calls of two events each
    trace = trace_view.read_trace(one_conversation(30))
    assert len(trace.calls) == 10 and "more than 21 events to show" in trace.problems[-1]


def test_a_line_separator_inside_a_json_string_does_not_split_the_event(tmp_path, capsys):
    path = tmp_path / "t.jsonl"
    lines = run_events("First\u2028task?", "one")
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in lines), encoding="utf-8")
    code, out, _ = view(capsys, path)
    assert code == 0 and "not a JSON event" not in out and "Run 1 ended ok: one" in out


def one_conversation(calls):
    """A trace of one conversation of ``calls`` model calls, each repeating the one before and adding two."""
    messages = [{"role": "user", "content": "Count."}]
    lines = [json.dumps({"type": "run_start", "agent": "a", "task": "Count."})]
    for number in range(calls):
        lines.append(json.dumps({"type": "llm_start", "request": {"model": "m", "messages": messages}}))
        lines.append(json.dumps({"type": "llm_call", "reply": {"content": str(number)}}))
        messages = [*messages, {"role": "assistant", "content": str(number)}, {"role": "user", "content": "More."}]
    return lines


def test_each_message_of_a_long_conversation_is_read_once(monkeypatch):
    keyed = []
    real = trace_view._message_key
    monkeypatch.setattr(trace_view, "_message_key", lambda message: keyed.append(1) or real(message))
    trace = trace_view.read_trace(one_conversation(300))
    assert len(keyed) == sum(2 * number + 1 for number in range(300))
    assert [call.continues[1] for call in trace.calls[1:4]] == [1, 3, 5]
    assert all(call.continues[0] is trace.calls[call.number - 2] for call in trace.calls[1:])
    first, last = trace.calls[0].request["messages"], trace.calls[-1].request["messages"]
    assert last[0] is first[0]  # a message repeated by every call is held once


def test_reading_a_long_conversation_grows_with_its_size_not_faster():
    """8 times the calls is 64 times the trace: a linear reading takes about 64 times as long, a cubic
    one (every call against every earlier call, message by message) 512 times."""
    small, large = one_conversation(50), one_conversation(400)
    small_seconds = min(seconds_to_show(small) for _ in range(5))
    assert seconds_to_show(large) < 200 * small_seconds


def seconds_to_show(lines):
    start = time.perf_counter()
    trace_view.show_trace(trace_view.read_trace(lines), io.StringIO())
    return time.perf_counter() - start
