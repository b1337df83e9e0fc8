"""Every model client's key is masked in every agent's output: a critic's or a sub-agent's model has a key of
its own, and what its model echoes reaches the main agent's console, trace and saved session."""

from __future__ import annotations

import json

from vero.agents import ToolCallingAgent
from vero.cassette import Cassette
from vero.core.chat_openai import ChatOpenAI
from vero.core.message import Message
from vero.testing import ScriptedLLM

SECOND_KEY = "sk-test-second-model-4f3e2d1c"


def test_a_second_model_s_key_is_masked_in_another_agent_s_console_trace_and_session(tmp_path, capsys):
    ChatOpenAI(model_name="critic", api_key=SECOND_KEY, base_url="http://127.0.0.1:9/v1")  # a critic's own client
    echo = f"My key is {SECOND_KEY}."
    agent = ToolCallingAgent("main", ScriptedLLM([echo]), trace=str(tmp_path / "t.jsonl"))  # verbose: printed
    assert agent.run("Which key?") == echo  # the answer is the model's own text
    agent.close()
    agent.save(str(tmp_path / "session.json"))
    for written in (
        capsys.readouterr().out,
        (tmp_path / "t.jsonl").read_text(),
        (tmp_path / "session.json").read_text(),
    ):
        assert SECOND_KEY not in written and "***" in written
    assert json.loads((tmp_path / "session.json").read_text())  # still valid JSON


def test_credentials_in_a_model_s_base_url_are_masked_when_echoed_bare(tmp_path, capsys):
    password, query_key = "pw-test-userinfo-9a8b7c", "qk-test-query-6d5e4f"
    ChatOpenAI(model_name="m", api_key="local", base_url=f"http://alice:{password}@127.0.0.1:9/v1?key={query_key}")
    echo = f"The server said: {password} and {query_key}."
    agent = ToolCallingAgent("main", ScriptedLLM([echo]), trace=str(tmp_path / "t.jsonl"))
    agent.run("What did the server say?")
    agent.close()
    for written in (capsys.readouterr().out, (tmp_path / "t.jsonl").read_text()):
        assert password not in written and query_key not in written


def test_another_client_s_key_is_masked_whole_only_so_a_placeholder_s_pieces_stay_words(capsys):
    ChatOpenAI(model_name="m", api_key="sk-no-key-required", base_url="http://127.0.0.1:9/v1")  # llama.cpp's docs
    agent = ToolCallingAgent("main", ScriptedLLM(["A name is required; the key sk-no-key-required is not."]))
    agent.run("Which fields?")
    assert "A name is required; the key *** is not." in capsys.readouterr().out


def test_a_cassette_matches_whatever_other_clients_this_process_made(tmp_path):
    other_key = "sk-test-another-client-5a6b7c"
    request = {"model": "m", "messages": [{"role": "user", "content": f"Is {other_key} a key?"}]}
    Cassette(str(tmp_path / "c.jsonl"), mode="record").add(request, Message("assistant", "Yes."))
    ChatOpenAI(model_name="m", api_key=other_key, base_url="http://127.0.0.1:9/v1")  # made after the recording
    assert Cassette(str(tmp_path / "c.jsonl"), mode="replay").lookup(request) is not None
