"""Bad input, as a twenty-fourth outside probe found it: model text read in time quadratic in its length (sloppy JSON
with a long run of one kind of character, a reply of many blank lines), JSON nested past Python's stack with an
escape in it, a cassette or a server's body nested as deep, a content filter the test double let through, a session
file saved with a BOM and an MCP server whose working directory is missing.  Each gets its defined outcome."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest

from vero import ChatOpenAI, LLMCallError, Message, tool
from vero.agents import ToolCallingAgent
from vero.cassette import FORMAT, Cassette, CassetteError, _checksum, reply_body
from vero.core.parsing.json_text import parse_json_value
from vero.core.result import Status
from vero.core.text import SHOWS_NOTHING
from vero.testing import HTTPFault, ScriptedLLM
from vero.tools.mcp import MCPError, MCPServer


def grows_linearly(read, text_of) -> bool:
    """8 times the text: a linear reading takes about 8 times as long, a quadratic one 64 times."""

    def seconds(size: int) -> float:
        text = text_of(size)
        start = time.perf_counter()
        read(text)
        return time.perf_counter() - start

    small, large = (min(seconds(size) for _ in range(3)) for size in (4_000, 32_000))
    return large < 30 * small + 0.01


def unusable(text: str) -> None:
    try:
        parse_json_value(text)
    except ValueError:
        pass


@pytest.mark.parametrize("run", ["-", "a", "Zm9v"])
def test_sloppy_json_with_a_long_run_is_read_in_time_that_grows_with_it_not_faster(run: str) -> None:
    assert grows_linearly(unusable, lambda size: '{"a": "' + run * (size // len(run)))
    assert grows_linearly(unusable, lambda size: "{" + run * (size // len(run)))


def test_a_reply_of_many_blank_lines_is_read_in_time_that_grows_with_it_not_faster() -> None:
    assert grows_linearly(SHOWS_NOTHING.fullmatch, lambda size: "\n" * size + "x")
    assert not SHOWS_NOTHING.fullmatch("\n" * 1000 + "x") and SHOWS_NOTHING.fullmatch("\n" * 1000 + "```\n```\n")


SAVED: list = []


@tool
def save_note(note: list) -> str:
    """Save a note."""
    SAVED.append(note)
    return "saved"


def test_arguments_nested_hundreds_deep_with_an_escape_are_read_not_a_failed_run() -> None:
    arguments = '{"note": ' + "[" * 600 + '"caf\\u00e9"' + "]" * 600 + "}"
    llm = ScriptedLLM([{"tool_calls": [{"name": "save_note", "arguments": arguments}]}, "Could not save it."])
    agent = ToolCallingAgent("deep", llm, tools=[save_note], verbose=False)
    assert agent.run("Save it.") == "Could not save it." and agent.last_result.status == Status.OK
    innermost = SAVED[-1]
    while isinstance(innermost, list):
        innermost = innermost[0]
    assert innermost == "café"  # the escape read, 600 levels down: JSON that deep is data json reads


def test_a_cassette_whose_request_is_nested_past_python_s_stack_is_a_cassette_error(tmp_path: Path) -> None:
    deep: object = "x"
    for _ in range(600):  # json reads it; copying it one call per level may not
        deep = [deep]
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "metadata": deep}
    reply = reply_body(Message.assistant("hello"))
    entry = {"request": request, "reply": reply, "check": _checksum(request, reply)}
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps({"vero_cassette": FORMAT}) + "\n" + json.dumps(entry) + "\n", encoding="utf-8")
    with pytest.raises(CassetteError, match=r"line 2: nested too deeply"):
        Cassette(path, mode="replay")


def test_a_server_body_nested_past_python_s_stack_is_an_llm_call_error(shared_mock_server) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    body = '{"choices": [{"message": {"role": "assistant", "content": "hi", "x": ' + deep + "}}]}"
    shared_mock_server.enqueue(HTTPFault(200, body=body.encode(), headers={"content-type": "application/json"}))
    llm = ChatOpenAI(model_name="m", api_key="sk-test", base_url=shared_mock_server.base_url, max_retries=0)
    with pytest.raises(LLMCallError, match="JSON nested too deeply to read"):
        llm.generate([Message.user("hi")])


def test_the_scripted_model_fails_a_reply_the_content_filter_stopped_as_chat_openai_does() -> None:
    llm = ScriptedLLM([{"content": "Here is how to", "finish_reason": "content_filter"}])
    with pytest.raises(LLMCallError, match="content filter"):
        llm.generate([Message.user("hi")])


def test_a_session_file_an_editor_saved_with_a_bom_loads(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    saver = ToolCallingAgent("t", ScriptedLLM(["hello"]), verbose=False)
    saver.run("hi")
    saver.save(str(path))
    path.write_text(path.read_text(encoding="utf-8"), encoding="utf-8-sig")
    loader = ToolCallingAgent("t", ScriptedLLM([]), verbose=False)
    loader.load(str(path))
    assert [message.text for message in loader.history] == ["hi", "hello"]


def test_an_mcp_server_whose_working_directory_is_missing_names_it(tmp_path: Path) -> None:
    missing = str(tmp_path / "gone")
    server = MCPServer.stdio(sys.executable, ["-c", "pass"], cwd=missing)
    with pytest.raises(MCPError, match=re.escape(f": '{missing}'")):
        server.start()
