"""Faults an outside probe found (offline): a base URL whose host has no name the HTTP library can send (an empty
label, one over 63 characters, a symbol IDNA has no name for), and an output schema whose ``$ref``s to its own
definitions are checked (the keywords vero does not read are refused: test_faults_probe15's table of such schemas).
"""

from __future__ import annotations

import json
import re

import pytest

from vero import ChatOpenAI, Message, trace_view
from vero.agents import ToolCallingAgent
from vero.core import session
from vero.core.chat_openai import base_url_problem
from vero.core.files import at_home
from vero.core.output import OutputSpec
from vero.core.secrets import StreamedSecrets
from vero.errors import LLMConfigError, SessionFormatError
from vero.testing import ScriptedLLM
from vero.tools.builtin import calculator
from vero.tools.schema import schema_problems


@pytest.mark.parametrize(
    "url",
    ["http://a..example/v1", f"http://{'x' * 64}.example/v1", "http://alice:sekret-pw@\u2603.example/v1"],
)
def test_a_base_url_whose_host_has_no_sendable_name_is_a_configuration_error(url):
    with pytest.raises(LLMConfigError, match="is not a valid URL") as raised:  # not an error of the HTTP library
        ChatOpenAI(base_url=url, model_name="m", api_key="sk-x")
    assert "sekret" not in str(raised.value)


@pytest.mark.parametrize("url", ["http://a..example/v1", f"http://{'x' * 64}.example/v1"])
def test_the_cli_s_check_of_the_base_url_finds_a_host_name_with_an_empty_or_long_label(url):
    assert "is not a valid URL" in (base_url_problem(url) or "")


@pytest.mark.parametrize(
    "url",
    ["http://b\u00fccher.example/v1", "http://[::1]:8080/v1", "http://example.test./v1", "http://gpu-box:8080/v1"],
)
def test_hosts_with_sendable_names_are_taken(url):
    assert base_url_problem(url) is None
    assert ChatOpenAI(base_url=url, model_name="m", api_key="sk-x").base_url == url


def test_references_to_the_schema_s_own_definitions_are_checked_and_taken():
    schema = {
        "type": "object",
        "properties": {"size": {"$ref": "#/$defs/Size"}, "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}}},
        "$defs": {"Size": {"type": "integer", "minimum": 1}, "Tag": {"type": "string"}},
    }
    assert schema_problems(schema) == []
    agent = ToolCallingAgent("x", ScriptedLLM(['{"size": 0, "tags": []}', '{"size": 2, "tags": ["a"]}']), verbose=False)
    assert agent.run("task", output_type=schema) == {"size": 2, "tags": ["a"]}  # 0 was re-asked


# -- a third probe: sessions, a sub-agent's budget, the streamed masked form, traces ------------------------------
def session_file(tmp_path, history: list[dict]) -> str:
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"format": "vero.session", "version": 1, "history": history}))
    return str(path)


CALLED = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "lookup", "arguments": "{}"}]}
ANSWERED = {"role": "tool", "content": "42", "tool_call_id": "c1"}
ASKED = {"role": "user", "content": "What is it?"}


@pytest.mark.parametrize(
    ("history", "says"),
    [
        ([ASKED, CALLED], "message 2 leaves tool calls unanswered: c1"),
        ([ASKED, CALLED, ASKED], "message 2 leaves tool calls unanswered"),
        ([ASKED, ANSWERED], "message 2 answers no tool call made before it"),
        ([ASKED, CALLED, {"role": "tool", "content": "42"}], "message 3 answers no tool call"),
        ([{"role": "user", "content": None}], "message 1 is the user's, with no content"),
        (
            [ASKED, CALLED, {"role": "tool", "tool_call_id": "c1"}],
            "message 3 answers no tool call made before it, or says",
        ),
        ([ASKED, {"role": "assistant", "content": None}], "message 2 is the assistant's, with no content"),
        (
            [ASKED, CALLED, ANSWERED, CALLED | {"tool_calls": [{"id": "c2", "name": "x", "arguments": "{}"}]}, ASKED],
            "message 4",
        ),
        (
            [ASKED, CALLED | {"tool_calls": CALLED["tool_calls"] * 2}, ANSWERED],
            "message 2 has two tool calls of one id",
        ),
    ],
)
def test_a_session_a_chat_api_would_refuse_is_not_loaded(tmp_path, history, says):
    agent = ToolCallingAgent("x", ScriptedLLM([]), verbose=False)
    agent.history = [Message("user", "kept")]
    with pytest.raises(SessionFormatError, match=re.escape(says)):
        agent.load(session_file(tmp_path, history))
    assert agent.history == [Message("user", "kept")]  # every later turn would have failed on it


def test_a_session_with_its_tool_calls_answered_loads(tmp_path):
    agent = ToolCallingAgent("x", ScriptedLLM([]), verbose=False)
    agent.load(session_file(tmp_path, [ASKED, CALLED, ANSWERED, {"role": "assistant", "content": "42."}]))
    assert [m.role for m in agent.history] == ["user", "assistant", "tool", "assistant"]
    agent.load(session_file(tmp_path, [ASKED, {"role": "assistant", "content": ""}]))  # an empty answer vero kept


def test_a_session_is_saved_as_utf8_text_and_any_text_comes_back(tmp_path):
    agent = ToolCallingAgent("x", ScriptedLLM([]), verbose=False)
    agent.history = [Message("user", "Zürich \U0001f600 \ud800"), Message("assistant", "ok")]
    path = tmp_path / "s.json"
    agent.save(str(path))
    assert "Zürich \U0001f600" in path.read_text(encoding="utf-8")  # not 6 bytes an emoji's escapes
    agent.load(str(path))
    assert agent.history[0].content == "Zürich \U0001f600 \ud800"


def test_a_session_load_would_refuse_as_too_large_is_not_saved(tmp_path, monkeypatch):
    monkeypatch.setattr(session, "MAX_SESSION_BYTES", 1000)
    agent = ToolCallingAgent("x", ScriptedLLM([]), verbose=False)
    agent.history = [Message("user", "x" * 2000), Message("assistant", "ok")]
    with pytest.raises(ValueError, match="larger than load reads back"):
        agent.save(str(tmp_path / "s.json"))
    assert not (tmp_path / "s.json").exists()


def test_a_sub_agent_s_own_token_budget_holds_under_a_caller_s_larger_one():
    usage = {"prompt_tokens": 90, "completion_tokens": 10, "total_tokens": 100}
    call = {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}], "usage": usage}
    child = ToolCallingAgent(
        "child", ScriptedLLM([call] * 5), tools=[calculator], max_tokens_per_run=150, verbose=False
    )
    ask_child = {"tool_calls": [{"name": "child", "arguments": {"task": "go"}}], "usage": usage}
    parent = ToolCallingAgent(
        "parent", ScriptedLLM([ask_child, "done"]), tools=[child.as_tool()], max_tokens_per_run=100_000, verbose=False
    )
    parent.run("start")
    answered = [step.content for step in parent.last_result.steps_of("observation") if step.depth == 0]
    assert "ended 'max_tokens'" in answered[0]


def test_a_chat_s_save_and_load_read_a_tilde_as_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert at_home("~/chat.json") == str(tmp_path / "chat.json") and at_home("./~x") == "./~x"


def test_a_streamed_key_in_a_masked_form_shows_no_piece_of_it_whichever_way_it_is_split():
    key = "sk-canary-abcdef123456"
    echo = f"I saw {key[:8]}****{key[-4:]} today."
    for cut in range(1, len(echo)):
        streamed = StreamedSecrets([key])
        shown = streamed.feed(echo[:cut]) + streamed.feed(echo[cut:]) + streamed.flush()
        assert key[-4:] not in shown and key[:8] not in shown, cut


def test_a_trace_s_model_call_whose_request_is_no_object_is_noted():
    lines = [json.dumps({"type": "llm_start", "agent": "a", "request": "not an object"})]
    assert trace_view.read_trace(lines).problems == [
        "line 1: a malformed llm_start event (skipped): TypeError: its request is not an object"
    ]


def test_a_pydantic_model_s_schema_with_a_tuple_and_a_set_is_an_output_type_vero_checks():
    import pydantic

    class Pick(pydantic.BaseModel):
        pair: tuple[int, str]
        tags: set[str]

    spec = OutputSpec(Pick.model_json_schema())
    assert spec.read('{"pair": [1, "a"], "tags": ["x", "y"]}') == {"pair": [1, "a"], "tags": ["x", "y"]}
    with pytest.raises(ValueError, match=r"pair\[0\]: expected integer.*tags: expected items that differ"):
        spec.read('{"pair": ["b", "a"], "tags": ["x", "x"]}')


def test_a_session_save_wrote_with_an_empty_user_turn_loads_back(tmp_path):
    agent = ToolCallingAgent("x", ScriptedLLM([]), verbose=False)
    agent.history = [Message("user", ""), Message("assistant", "ok")]
    agent.save(str(tmp_path / "s.json"))
    agent.load(str(tmp_path / "s.json"))
    assert agent.history == [Message("user", ""), Message("assistant", "ok")]


@pytest.mark.parametrize(
    ("schema", "answer", "says"),
    [
        ({"type": "array", "prefixItems": [{"type": "integer"}], "items": False}, "[1, 2]", r"\[1\]: expected no item"),
        ({"type": "array", "items": {"type": "number"}, "uniqueItems": True}, "[1, 1.0]", "items that differ"),
    ],
)
def test_an_array_schema_s_closed_end_and_json_s_equal_numbers_are_checked(schema, answer, says):
    with pytest.raises(ValueError, match=says):
        OutputSpec(schema).read(answer)
