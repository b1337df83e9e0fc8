"""An API key is never shown in what vero writes: console lines, the CLI's answer and ``--json``,
the chat's streamed answer, the trace (issue #44, item 18).

The key holds a quote and a backslash, so its JSON-escaped form (``\\"``, ``\\\\``) differs from
the key itself: each output is checked for the key in every form it could be written in.
"""

from __future__ import annotations

import io
import json

import pytest
from test_cli import vero

from vero.core.events import ConsolePrinter, Event, JsonlTrace
from vero.core.secrets import MIN_PIECE, StreamedSecrets, hide_secrets, masked_json, written_forms
from vero.testing import MockOpenAIServer

KEY = 'sk-proj-Qu"ote\\Back-7f3a9c2e51d8b4'  # a quote and a backslash inside
FORMS = written_forms(KEY)


def shows_the_key(text: str) -> bool:
    """True if ``text`` holds the key in any written form, or a piece of one that long (MIN_PIECE)."""
    return any(form[i : i + MIN_PIECE] in text for form in FORMS for i in range(len(form) - MIN_PIECE + 1))


def test_the_key_has_escaped_forms_that_differ_from_it():
    assert len(FORMS) >= 3 and json.dumps(KEY)[1:-1] in FORMS and repr(KEY)[1:-1] in FORMS


@pytest.mark.parametrize("wrap", [str, lambda k: json.dumps(k), lambda k: json.dumps({"q": k}), repr])
def test_hide_secrets_masks_the_key_in_each_written_form(wrap):
    text = f"before {wrap(KEY)} after"
    masked = hide_secrets(text, [KEY])
    assert not shows_the_key(masked) and masked.startswith("before ") and masked.endswith(" after")


def test_masked_json_stays_valid_json_whatever_the_key_holds():
    value = {"answer": f"the key is {KEY}", KEY: [KEY, ("x", KEY)], "n": 3, "other": object()}
    text = masked_json(value, [KEY])
    assert not shows_the_key(text)
    data = json.loads(text)
    assert data["answer"] == "the key is ***" and data["n"] == 3 and data["***"] == ["***", ["x", "***"]]


def test_a_short_placeholder_key_is_not_hunted_for():
    assert hide_secrets("unused, demo", ["unused", "demo"]) == "unused, demo"


def test_the_trace_never_holds_the_key_even_with_a_quote_or_a_backslash(tmp_path):
    trace = JsonlTrace(str(tmp_path / "t.jsonl"), secret=KEY)
    trace(Event("step", "a", {"kind": "final", "content": f"Your key: {KEY}", "args": json.dumps({"k": KEY})}))
    trace(Event("tool_call", "a", {"tool": "t", "args": {"k": KEY}}))
    trace.close()
    text = (tmp_path / "t.jsonl").read_text()
    lines = [json.loads(line) for line in text.splitlines()]  # every line is still valid JSON
    assert not shows_the_key(text) and lines[0]["content"] == "Your key: ***" and lines[1]["args"] == {"k": "***"}


def test_console_lines_mask_the_keys_they_are_given():
    out = io.StringIO()
    printer = ConsolePrinter(stream=out, secrets=[KEY])
    printer(Event("step", "a", {"kind": "action", "content": f"lookup({json.dumps({'key': KEY})})"}))
    printer(Event("run_end", "a", {"status": "ok", "answer": f"It is {KEY}", "elapsed_s": 0.1, "llm_calls": 1}))
    assert not shows_the_key(out.getvalue()) and "Final Answer (ok): It is ***" in out.getvalue()


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13])
def test_a_streamed_key_split_between_pieces_is_masked_and_other_text_kept(size):
    text = f"Here: {KEY}. And {KEY[:6]}… plus sk-pro, the end"
    shown = StreamedSecrets([KEY])
    printed = "".join(shown.feed(text[i : i + size]) for i in range(0, len(text), size)) + shown.flush()
    assert not shows_the_key(printed)
    assert printed.startswith("Here: ***. And ") and printed.endswith(" plus sk-pro, the end")


def test_streaming_without_keys_prints_each_piece_at_once():
    shown = StreamedSecrets([])
    assert shown.feed("sk-") == "sk-" and shown.flush() == ""


# --------------------------------------------------------------------------- the CLI


def tool_call_with_the_key():
    return {"tool_calls": [{"name": "calculator", "arguments": {"expression": KEY}}]}


def test_vero_run_never_prints_the_key(shared_mock_server, tmp_path):
    srv = shared_mock_server
    srv.enqueue(tool_call_with_the_key(), f"Your key is {KEY}, escaped {json.dumps(KEY)}.")
    done = vero(
        "run", "What is my key?", "--agent", "chat", "--base-url", srv.base_url, cwd=tmp_path, OPENAI_API_KEY=KEY
    )
    assert done.returncode == 0, done.stderr
    assert "Final Answer (ok): Your key is ***, escaped" in done.stdout and "Action: calculator" in done.stdout
    assert not shows_the_key(done.stdout + done.stderr)
    assert srv.request_log[0].headers.get("authorization") == f"Bearer {KEY}"  # the key is used, only not shown


def test_vero_run_json_and_trace_never_hold_the_key(shared_mock_server, tmp_path):
    srv = shared_mock_server
    srv.enqueue(tool_call_with_the_key(), f"Your key is {KEY}.")
    done = vero(
        "run",
        "Key?",
        "--agent",
        "chat",
        "--json",
        "--trace",
        "t.jsonl",
        "--base-url",
        srv.base_url,
        cwd=tmp_path,
        OPENAI_API_KEY=KEY,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["answer"] == "Your key is ***." and not shows_the_key(done.stdout + done.stderr)
    trace = (tmp_path / "t.jsonl").read_text()
    assert trace and not shows_the_key(trace)


def test_vero_chat_never_prints_the_key_even_streamed_in_small_pieces(tmp_path):
    with MockOpenAIServer([f"Sure: {KEY} is your key.", f"Again: {KEY}"], stream_chunk_chars=3) as srv:
        done = vero(
            "chat",
            "--agent",
            "chat",
            "--tools",
            "none",
            "--base-url",
            srv.base_url,
            cwd=tmp_path,
            input="my key?\n/agent react\nagain?\n/history\nbye\n",
            OPENAI_API_KEY=KEY,
        )
    assert done.returncode == 0, done.stderr
    assert "Assistant: Sure: *** is your key." in done.stdout
    assert not shows_the_key(done.stdout + done.stderr)


def test_a_verbose_agent_masks_its_models_key_on_the_console(capsys):
    from vero import ChatOpenAI
    from vero.agents import ToolCallingAgent

    with MockOpenAIServer([f"It is {KEY}."]) as srv:
        agent = ToolCallingAgent("a", ChatOpenAI(base_url=srv.base_url, api_key=KEY), verbose=True)
        assert agent.run("key?") == f"It is {KEY}."  # the answer itself is the model's, unchanged
    printed = capsys.readouterr().out
    assert "Final Answer (ok): It is ***." in printed and not shows_the_key(printed)


def test_a_saved_conversation_never_holds_the_key(tmp_path):
    with MockOpenAIServer([f"Sure: {KEY} is your key."], stream_chunk_chars=3) as srv:
        done = vero(
            "chat",
            "--agent",
            "chat",
            "--tools",
            "none",
            "--base-url",
            srv.base_url,
            cwd=tmp_path,
            input="my key?\n/save chat.json\nbye\n",
            OPENAI_API_KEY=KEY,
        )
    assert "Saved 2 messages to chat.json." in done.stdout
    saved = (tmp_path / "chat.json").read_text()
    assert not shows_the_key(saved) and "Sure: *** is your key." in json.loads(saved)["history"][1]["content"]


def test_log_lines_mask_the_key_in_its_escaped_forms_too():
    from vero._console import LogRedactor

    key = 'sk-test-a"b\\c"d\\e"f\\g-9f8e7d6c5b'  # no 8 characters in its middle without a quote or backslash
    line = LogRedactor([key]).clean(f"request body: {json.dumps({'messages': [key]})}, repr {key!r}")
    forms = written_forms(key)
    assert not any(form[i : i + MIN_PIECE] in line for form in forms for i in range(len(form) - MIN_PIECE + 1))
    assert line.startswith("request body: ")
