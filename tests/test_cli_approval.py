"""The CLI asks before a tool that may change things runs (issue #44: approval in the CLI).

``vero chat`` asks on the terminal; ``--yes`` approves every call; ``vero run`` asks when stdin is a
terminal and otherwise refuses the call, saying so, unless ``--yes``.  A read-only tool is never
asked about.  The agent here is a ``ToolCallingAgent`` with one tool that may change things
(``delete_note``, which records each run in ``deleted.txt``), loaded with ``--agent notes.py:NoteAgent``.
"""

from __future__ import annotations

import io
import json
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from mock_pool import reset_mock_server
from test_cli import vero

from vero._console import secrets_hidden
from vero.cli import run_approver
from vero.core.message import ToolCallRequest
from vero.repl import HOLDS_A_KEY, ask_before_running, tool_verdict

NOTES_AGENT = textwrap.dedent('''
    from vero import tool
    from vero.agents import ToolCallingAgent


    @tool
    def delete_note(name: str) -> str:
        """Delete the note called name."""
        with open("deleted.txt", "a") as runs:
            runs.write(name + "\\n")
        return f"deleted {name}"


    class NoteAgent(ToolCallingAgent):
        def __init__(self, name, llm, tools=(), **options):
            super().__init__(name, llm, tools=[*tools, delete_note], **options)
''')


@pytest.fixture
def notes(tmp_path, shared_mock_server):
    """The folder with notes.py, and the mock server: the model calls delete_note("groceries"), then answers."""
    (tmp_path / "notes.py").write_text(NOTES_AGENT)
    shared_mock_server.enqueue(
        {"tool_calls": [{"name": "delete_note", "arguments": {"name": "groceries"}}]}, "Done, as far as I can tell."
    )
    return SimpleNamespace(folder=tmp_path, srv=shared_mock_server, deleted=tmp_path / "deleted.txt")


def notes_cli(notes, command, *args, input=None):
    return vero(
        command,
        *args,
        "--agent",
        "notes.py:NoteAgent",
        "--tools",
        "calculator",
        "--base-url",
        notes.srv.base_url,
        cwd=notes.folder,
        input=input,
    )


def what_the_model_read(notes) -> str:
    """The tool result the model got for its call (the second request's last message)."""
    return notes.srv.requests[1]["messages"][-1]["content"]


def test_chat_asks_before_a_tool_that_may_change_things_and_runs_it_on_yes(notes):
    done = notes_cli(notes, "chat", input="Delete my groceries note.\ny\nbye\n")
    assert done.returncode == 0, done.stderr
    assert '🙋 delete_note needs your approval. It would run with: {"name": "groceries"}' in done.stdout
    assert "Run it? [y]es / [n]o" in done.stdout and "✅ Approved; running it." in done.stdout
    assert notes.deleted.read_text() == "groceries\n" and what_the_model_read(notes) == "deleted groceries"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [("n", ""), ("", ""), ("no", ""), ("n it is still needed", ": it is still needed"), ("keep it", ": keep it")],
)
def test_chat_refuses_the_call_on_anything_but_yes_and_tells_the_model_the_reason(notes, reply, reason):
    done = notes_cli(notes, "chat", input=f"Delete my groceries note.\n{reply}\nbye\n")
    assert done.returncode == 0, done.stderr
    assert "🚫 Refused; the model is told." in done.stdout and "Assistant: Done, as far as I can tell." in done.stdout
    assert not notes.deleted.exists()
    assert what_the_model_read(notes).startswith(f"Not run: the user did not approve this call of delete_note{reason}")


def test_chat_refuses_at_the_end_of_input(notes):
    done = notes_cli(notes, "chat", input="Delete my groceries note.\n")
    assert "No reply (end of input): not run." in done.stdout and not notes.deleted.exists()


def test_chat_with_yes_runs_every_call_without_asking(notes):
    done = notes_cli(notes, "chat", "--yes", input="Delete my groceries note.\nbye\n")
    assert done.returncode == 0, done.stderr
    assert "🙋" not in done.stdout and notes.deleted.read_text() == "groceries\n"


def test_a_read_only_tool_is_never_asked_about(notes):
    reset_mock_server(notes.srv)  # another script: the model calls the calculator
    notes.srv.enqueue({"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]}, "42.")
    done = notes_cli(notes, "chat", input="6*7?\nbye\n")
    assert "Assistant: 42." in done.stdout and "🙋" not in done.stdout and "Run it?" not in done.stdout


def test_run_without_a_terminal_refuses_the_call_and_says_so(notes):
    done = notes_cli(notes, "run", "Delete my groceries note.")  # stdin is no terminal here
    assert done.returncode == 0, done.stderr  # a refused call is an observation: the run goes on
    assert not notes.deleted.exists()
    assert "Not run: delete_note needs approval" in done.stderr and "--yes approves every call" in done.stderr
    assert "no terminal" in what_the_model_read(notes)


def test_run_json_without_a_terminal_keeps_stdout_for_the_result(notes):
    done = notes_cli(notes, "run", "Delete my groceries note.", "--json")
    result = json.loads(done.stdout)
    approvals = [step for step in result["steps"] if step["kind"] == "approval"]
    assert len(approvals) == 1 and "refused" in approvals[0]["content"] and not notes.deleted.exists()


def test_run_with_yes_runs_the_call(notes):
    done = notes_cli(notes, "run", "Delete my groceries note.", "--yes")
    assert done.returncode == 0, done.stderr
    assert notes.deleted.read_text() == "groceries\n" and "Not run" not in done.stderr


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_run_asks_on_stderr_when_stdin_is_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", Terminal("yes\n"))
    approver = run_approver(SimpleNamespace(yes=False, task="Delete my note."))
    assert approver(ToolCallRequest("delete_note", {"name": "groceries"})) is True
    printed = capsys.readouterr()
    assert printed.out == "" and "🙋 delete_note needs your approval" in printed.err and "Run it?" in printed.err


def test_run_reading_the_task_from_stdin_cannot_ask_there(monkeypatch):
    monkeypatch.setattr(sys, "stdin", Terminal(""))
    call = ToolCallRequest("delete_note", {"name": "groceries"})
    assert "no terminal" in run_approver(SimpleNamespace(yes=False, task="-"))(call)
    assert run_approver(SimpleNamespace(yes=True, task="-"))(call) is True


def test_the_prompt_shortens_huge_arguments_and_masks_keys(monkeypatch, capsys):
    key = "sk-proj-9f8e7d6c5b4a3210"
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    call = ToolCallRequest("upload", {"token": key, "body": "x" * 50_000})
    with secrets_hidden([key]):
        assert ask_before_running(call) is True
    out = capsys.readouterr().out
    assert key not in out and '"token": "***"' in out and "more characters not shown" in out and len(out) < 3000


def test_v_shows_every_argument_of_a_shortened_call_then_asks_again(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("v\nn too long\n"))
    body = "x" * 3000 + "the end"
    assert ask_before_running(ToolCallRequest("upload", {"body": body})) == "too long"
    out = capsys.readouterr().out
    assert "[v]iew all the arguments" in out and "v shows them" in out
    assert out.count("Run it?") == 2 and body in out  # the whole argument, then the question again


def test_a_long_first_argument_does_not_push_the_others_off_the_prompt(monkeypatch, capsys):
    # a page can ask for a long body written first: the recipient after it must still be on screen
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    arguments = {"body": "Numbers attached as discussed. " * 90, "subject": "Q3", "to": ["someone@example.test"]}
    assert ask_before_running(ToolCallRequest("send_email", arguments)) is True
    asked = capsys.readouterr().out.split("Run it?")[0]
    assert '"to": ["someone@example.test"]' in asked and '"subject": "Q3"' in asked
    assert "more characters not shown]" in asked and "v shows them" in asked and len(asked) < 2300


def test_a_long_field_of_an_object_argument_does_not_push_the_others_off_the_prompt(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    arguments = {"email": {"body": "Numbers attached as discussed. " * 160, "to": "someone@example.test"}}
    assert ask_before_running(ToolCallRequest("send_email", arguments)) is False
    asked = capsys.readouterr().out.split("Run it?")[0]
    assert '"to": "someone@example.test"' in asked and "more characters not shown]" in asked


def test_a_call_shown_whole_is_not_offered_a_view(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    assert ask_before_running(ToolCallRequest("delete_note", {"name": "groceries"})) is True
    assert "[v]iew" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("y", True), (" YES ", True), ("yes please", "yes please"), ("No: too risky", "too risky"), ("nope", "nope")],
)
def test_tool_verdict_runs_only_on_y_or_yes(answer, verdict):
    assert tool_verdict(answer) == verdict


RAW_MCP_SERVER = str(Path(__file__).parent / "mcp_servers" / "raw_server.py")  # its echo says readOnlyHint


@pytest.mark.parametrize("trusted", [False, True])
def test_an_mcp_tool_marked_read_only_by_an_untrusted_server_is_asked_about(shared_mock_server, tmp_path, trusted):
    srv = shared_mock_server
    srv.enqueue({"tool_calls": [{"name": "echo", "arguments": {"text": "hello"}}]}, "Done.")
    trust = ["--mcp-trust", "raw_server"] if trusted else []
    mcp = ["--mcp", f"{sys.executable} {RAW_MCP_SERVER} plain", *trust]
    typed = "Echo hello.\nn\nbye\n"  # n: refused, if asked
    done = vero(
        "chat", "--agent", "chat", "--tools", "none", *mcp, "--base-url", srv.base_url, cwd=tmp_path, input=typed
    )
    assert done.returncode == 0, done.stderr
    tool_results = [m["content"] for m in srv.requests[1]["messages"] if m["role"] == "tool"]
    if trusted:  # its readOnlyHint is taken: it runs without asking
        assert "🙋" not in done.stdout and tool_results == ['{"text": "hello"}']
    else:
        assert '🙋 echo needs your approval. It would run with: {"text": "hello"}' in done.stdout
        assert tool_results[0].startswith("Not run: the user did not approve this call of echo")


@pytest.mark.parametrize(
    "hidden", ["\u200b", "\u2060", "\ufeff", "\u00ad", "\u2028", "\u2029", "\u034f", "\u3164", "\u2800", "\ufe0f"]
)
def test_the_prompt_shows_characters_a_terminal_shows_as_nothing(monkeypatch, capsys, hidden):
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    ask_before_running(ToolCallRequest("delete_record", {"record_id": f"r-1{hidden}7"}))
    out = capsys.readouterr().out
    assert hidden not in out and f"r-1\\u{ord(hidden):04x}7" in out


def test_the_prompt_says_when_the_arguments_hold_a_key(monkeypatch, capsys):
    key = "sk-proj-9f8e7d6c5b4a3210"
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    with secrets_hidden([key]):
        ask_before_running(ToolCallRequest("http_request", {"url": "https://acme.example/", "body": key}))
    out = capsys.readouterr().out
    assert key not in out and HOLDS_A_KEY in out


def test_the_chat_s_input_history_is_saved_with_a_pasted_key_masked(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from vero import repl

    key = "sk-test-PASTED-r29-1122334455"
    lines = ["hello", f"my key is {key}, keep it"]
    saved: dict[str, list[str]] = {}

    def replace(position: int, line: str) -> None:
        lines[position] = line

    fake = SimpleNamespace(
        get_current_history_length=lambda: len(lines),
        get_history_item=lambda number: lines[number - 1],
        replace_history_item=replace,
        write_history_file=lambda path: saved.setdefault(path, list(lines)),
    )
    monkeypatch.setitem(sys.modules, "readline", fake)
    monkeypatch.setattr(repl, "SECRETS", [key])
    repl._save_readline(str(tmp_path / "history"))
    assert saved[str(tmp_path / "history")] == ["hello", "my key is ***, keep it"]
