"""Record and replay: the fifteenth probe's findings (placeholder keys, the capability probe, numbers, the
pytest fixture's paths, credentials in the base URL, refusals, a header without its newline, relative paths)."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest
from test_cassette import add

from vero import ChatOpenAI
from vero.agents import ToolCallingAgent
from vero.cassette import Cassette, CassetteError, CassetteMissError
from vero.core.message import Message
from vero.core.secrets import hide_secrets_in, mask_secret
from vero.errors import LLMCallError
from vero.testing import MockOpenAIServer

DEAD_LOCAL_URL = "http://127.0.0.1:9/v1"  # nothing listens there: only the cassette can answer


@pytest.fixture(autouse=True)
def no_endpoint_settings(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MODEL_NAME", "TEMPERATURE"):
        monkeypatch.delenv(name, raising=False)


def offline(path, **options) -> ChatOpenAI:
    return ChatOpenAI(model_name="m", cassette=Cassette(path, "replay"), **{"base_url": DEAD_LOCAL_URL, **options})


# -- 1. a placeholder key, or a key's pieces that are words, mask no words -------------------------------
def test_a_placeholder_key_leaves_the_tool_schema_and_the_words_of_the_cassette_alone(tmp_path):
    path = tmp_path / "c.jsonl"
    replies = [{"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}, "It is required: 5"]
    with MockOpenAIServer(replies) as server:
        llm = ChatOpenAI(
            model_name="m", base_url=server.url + "/v1", api_key="sk-no-key-required", cassette=Cassette(path, "record")
        )
        assert ToolCallingAgent("t", llm, tools=[add], verbose=False).run("2+3?") == "It is required: 5"
    text = path.read_text()
    assert '"required": ["a", "b"]' in text and '"***"' not in text
    agent = ToolCallingAgent("t", offline(path), tools=[add], verbose=False)  # no key, as the docs promise
    assert agent.run("2+3?") == "It is required: 5"


def test_the_pieces_of_a_real_key_that_are_words_stay_and_object_keys_are_never_masked():
    key = "sk-production-7f3a9c2e51d8"
    assert mask_secret("the production build", key) == "the production build"
    assert mask_secret(f"key: {key[10:]}", key) == "key: ***"  # its other pieces are
    assert hide_secrets_in({key: key}, [key], names=False) == {key: "***"}


# -- 2. a replay asks the recording whether the endpoint takes a JSON schema, never the network -----------
def test_a_replay_answers_the_json_schema_probe_from_the_recording_and_sends_nothing(tmp_path):
    path = tmp_path / "c.jsonl"
    props = {"default_generation_settings": {}, "total_slots": 1}  # llama.cpp: JSON schemas taken
    with MockOpenAIServer(['{"value": 42}', "42"]) as server:
        server.add_route("GET", "/props", lambda request: (200, {}, props))
        llm = ChatOpenAI(model_name="m", base_url=server.url + "/v1", cassette=Cassette(path, "record"))
        assert ToolCallingAgent("t", llm, tools=[], verbose=False).run("How many?", output_type=int) == 42
        assert any("response_format" in request for request in server.requests)
    with MockOpenAIServer(["never"]) as listening:  # something listens where the recording's server was
        key = "sk-test-replay-0123456789"
        for url in (DEAD_LOCAL_URL, listening.url + "/v1"):
            agent = ToolCallingAgent("t", offline(path, base_url=url, api_key=key), tools=[], verbose=False)
            assert agent.run("How many?", output_type=int) == 42, agent.last_result.error
        assert listening.request_log == []


# -- 3. JSON-equal numbers are one request -----------------------------------------------------------------
def test_temperature_0_replays_a_recording_made_with_0_0_and_a_miss_names_true_against_1(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer(["Hi"]) as server:
        live = ChatOpenAI(
            model_name="m", base_url=server.url + "/v1", temperature=0.0, cassette=Cassette(path, "record")
        )
        live.generate([Message.user("hi")])
    for temperature in (0, 0.0):
        assert offline(path, temperature=temperature).generate([Message.user("hi")]).content == "Hi"
    cassette = Cassette(tmp_path / "n.jsonl", "record")
    cassette.add({"model": "m", "messages": [], "logprobs": True}, Message.assistant("x"))
    with pytest.raises(CassetteMissError, match="logprobs: recorded true, sent 1"):
        Cassette(tmp_path / "n.jsonl", "replay").lookup({"model": "m", "messages": [], "logprobs": 1})


# -- 4. the vero_cassette fixture: one cassette per test, never another's -----------------------------------
pytest_plugins = ["pytester"]

COLLIDING_TESTS = """
import os
from vero import ChatOpenAI
from vero.core.message import Message

def ask(cassette, text):
    llm = ChatOpenAI(model_name="m", base_url=os.environ["LIVE_URL"], api_key="sk-x", cassette=cassette)
    return llm.generate([Message.user(text)]).content

def test_run(vero_cassette):
    assert ask(vero_cassette, "function") == "function?"

class TestA:
    def test_run(self, vero_cassette):
        assert ask(vero_cassette, "class") == "class?"
"""


def test_a_function_and_a_method_of_one_name_record_and_rerecord_their_own_cassettes(pytester, monkeypatch):
    pytester.makepyfile(test_user=COLLIDING_TESTS)
    echo = MockOpenAIServer(responder=lambda body: body["messages"][-1]["content"] + "?")
    with echo as server:
        monkeypatch.setenv("LIVE_URL", server.url + "/v1")
        pytester.runpytest_inprocess("-p", "no:randomly", "--vero-record").assert_outcomes(passed=2)
        pytester.runpytest_inprocess("-p", "no:randomly", "--vero-rerecord").assert_outcomes(passed=2)
    folder = pytester.path / "cassettes" / "test_user"
    assert sorted(path.name for path in folder.iterdir()) == ["TestA.test_run.jsonl", "test_run.jsonl"]
    monkeypatch.setenv("LIVE_URL", DEAD_LOCAL_URL)
    pytester.runpytest_inprocess("-p", "no:randomly").assert_outcomes(passed=2)


def node(folder, nodeid: str):
    """A test item as ``cassette_path`` reads it: its name is the last part of its id, with its parameters."""
    base, bracket, parameters = nodeid.partition("[")
    return SimpleNamespace(
        path=folder / "test_user.py", nodeid=nodeid, name=base.split("::")[-1] + bracket + parameters
    )


def test_parameters_written_apart_keep_apart_and_an_earlier_name_another_test_has_is_not_taken(tmp_path):
    from vero.pytest_plugin import cassette_path

    assert cassette_path(node(tmp_path, "test_user.py::test_x[a::b]")) != cassette_path(
        node(tmp_path, "test_user.py::test_x[a.b]")
    )
    (tmp_path / "cassettes" / "test_user").mkdir(parents=True)
    (tmp_path / "cassettes" / "test_user" / "test_run.jsonl").write_text("")  # the function's
    method, function = node(tmp_path, "test_user.py::TestA::test_run"), node(tmp_path, "test_user.py::test_run")
    method.session = function.session = SimpleNamespace(items=[method, function])
    assert cassette_path(method).name == "TestA.test_run.jsonl"
    method.session.items = [method]  # no test of that name in this session: the earlier name is the method's
    assert cassette_path(method).name == "test_run.jsonl"
    assert cassette_path(method, rerecord=True).name == "TestA.test_run.jsonl"  # a new recording: its own name


# -- 5. a credential in the base URL is masked in requests as in replies ------------------------------------
def test_a_token_in_the_base_url_is_masked_in_requests_too_and_the_run_replays(tmp_path):
    token, path = "tok-ABCDEF0123456789", tmp_path / "c.jsonl"

    def converse(llm: ChatOpenAI) -> None:
        messages = [Message.user("what is my token?")]
        messages += [llm.generate(messages), Message.user(f"thanks; my token again: {token}")]
        llm.generate(messages)

    with MockOpenAIServer([f"your token is {token}", "ok"]) as server:
        url = server.url.replace("http://", f"http://user:{token}@") + "/v1"
        converse(ChatOpenAI(model_name="m", base_url=url, cassette=Cassette(path, "record")))
    assert token not in path.read_text()
    converse(offline(path, base_url=f"http://user:{token}@127.0.0.1:9/v1"))


# -- 6. a refusal of the request as sent replays ---------------------------------------------------------------
def test_a_refused_response_format_is_recorded_and_replays_as_the_same_error(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer(["42"], reject_response_format=True) as server:
        hosted = ChatOpenAI(model_name="gpt-4o-mini", api_key="sk-test-key-123456", cassette=Cassette(path, "record"))
        hosted.client = hosted.client.with_options(base_url=server.url + "/v1")  # OpenAI, played by the mock
        assert ToolCallingAgent("t", hosted, tools=[], verbose=False).run("How many?", output_type=int) == 42
    replaying = ChatOpenAI(model_name="gpt-4o-mini", cassette=Cassette(path, "replay"))
    agent = ToolCallingAgent("t", replaying, tools=[], verbose=False)
    assert agent.run("How many?", output_type=int) == 42, agent.last_result.error
    request = json.loads(path.read_text().splitlines()[1])["request"]
    with pytest.raises(LLMCallError, match="HTTP 400") as refused:
        replaying.generate(request["messages"], response_format=request["response_format"])
    assert refused.value.status == 400


def test_a_400_that_names_no_parameter_is_not_recorded_a_bad_key_may_be_one(tmp_path):
    cassette = Cassette(tmp_path / "c.jsonl", "record")
    request = {"model": "m", "messages": []}
    cassette.add(request, LLMCallError("HTTP 400: API key not valid", status=400))
    cassette.add(request, LLMCallError("HTTP 400: refused", status=400, parameter="response_format"))
    assert len((tmp_path / "c.jsonl").read_text().splitlines()) == 2  # the header and the named refusal


# -- 7, 8 and the minor ones: the file ---------------------------------------------------------------------------
def test_a_header_without_its_newline_gets_one_before_the_first_entry(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"vero_cassette": 1}')
    Cassette(path, "replay_then_live").add({"model": "m", "messages": []}, Message.assistant("Hi"))
    assert path.read_bytes().startswith(b'{"vero_cassette": 1}\n{"request"')
    assert Cassette(path, "replay").lookup({"model": "m", "messages": []}) is not None


def test_a_relative_path_is_the_file_it_named_when_the_cassette_was_made(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cassette = Cassette("rel.jsonl", "record")
    (tmp_path / "elsewhere").mkdir()
    os.chdir(tmp_path / "elsewhere")
    cassette.add({"model": "m", "messages": []}, Message.assistant("Hi"))
    assert len((tmp_path / "rel.jsonl").read_text().splitlines()) == 2


@pytest.mark.parametrize("mode", ["replay", "replay_then_live"])
def test_half_a_surrogate_pair_is_the_error_record_mode_gives(tmp_path, mode):
    (tmp_path / "c.jsonl").write_text('{"vero_cassette": 1}\n')
    llm = ChatOpenAI(
        model_name="m", base_url=DEAD_LOCAL_URL, max_retries=0, cassette=Cassette(tmp_path / "c.jsonl", mode)
    )
    with pytest.raises(LLMCallError, match="cannot be sent as UTF-8"):
        llm.generate([Message.user("bad \ud800 text")])


def test_a_header_whose_format_is_true_is_no_cassette(tmp_path):
    (tmp_path / "c.jsonl").write_text('{"vero_cassette": true}\n')
    with pytest.raises(CassetteError, match="not a vero cassette"):
        Cassette(tmp_path / "c.jsonl", "replay")


def test_a_key_or_a_base_url_password_that_is_a_word_is_still_masked_whole():
    from vero.core.secrets import hide_secrets, url_credentials

    for key in ["qwhxjzkpmrtvbnlsdfghcvbn", "Sunshinebeach", *url_credentials("http://bob:Sunshinebeach@host/v1")]:
        assert key not in hide_secrets(f"the key is {key}", [key], in_use=False)


def test_a_cassette_path_with_a_tilde_is_in_the_home_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    cassette = Cassette("~/sessions/run.jsonl", mode="record")
    assert cassette.path == tmp_path / "sessions" / "run.jsonl" and cassette.path.exists()
    assert not (tmp_path / "~").exists()


def test_a_miss_names_the_option_the_request_lacks_not_the_next_one_it_has(tmp_path):
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.7}
    cassette = Cassette(tmp_path / "c.jsonl", mode="record")
    cassette.add({**request, "stop": ["Observation:"]}, Message("assistant", "ok"))
    said = Cassette(tmp_path / "c.jsonl").miss_message(request)
    assert said.endswith('at stop[0]: recorded "Observation:", which the request does not have'), said
    said = Cassette(tmp_path / "c.jsonl").miss_message({**request, "stop": ["Observation:"], "seed": 1})
    assert said.endswith("at seed: sent 1, which the recording does not have"), said


def test_a_miss_where_one_request_has_parts_and_the_other_text_names_both(tmp_path):
    text = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    parts = {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    cassette = Cassette(tmp_path / "c.jsonl", mode="record")
    cassette.add(text, Message("assistant", "ok"))
    said = Cassette(tmp_path / "c.jsonl").miss_message(parts)
    assert "where the recording has messages[0].content" in said and "does not have" not in said, said


def test_a_relative_cassette_name_that_begins_with_a_tilde_is_that_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cassette = Cassette("~old.jsonl", mode="record")
    assert cassette.path.name == "~old.jsonl" and (tmp_path / "~old.jsonl").exists()
