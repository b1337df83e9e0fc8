"""Record and replay (vero.cassette) through the real openai client over real HTTP."""

from __future__ import annotations

import json
import os

import pytest

from vero import ChatOpenAI, tool
from vero.agents import ReActAgent, ToolCallingAgent
from vero.cassette import MAX_LINE_BYTES, Cassette, CassetteError, CassetteMissError
from vero.core.message import Message
from vero.testing import HTTPFault, MockOpenAIServer

REACT_REPLIES = [
    'Thought: add them\nAction: add\nAction Input: {"a": 2, "b": 3}',
    "Thought: done\nFinal Answer: 5",
]


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: first addend
        b: second addend
    """
    return a + b


def live_llm(server: MockOpenAIServer, cassette: Cassette | None, **options) -> ChatOpenAI:
    return ChatOpenAI(
        model_name="m", base_url=server.url + "/v1", api_key="sk-test-key-123456", cassette=cassette, **options
    )


DEAD_LOCAL_URL = "http://127.0.0.1:9/v1"  # a local endpoint, as recorded, where nothing listens


def offline_llm(cassette: Cassette, **options) -> ChatOpenAI:
    """A replaying client with no key, at a local address where nothing listens: nothing can answer but
    the cassette.  (Local, like the recordings: vero sends hosted and local models different prompts.)"""
    return ChatOpenAI(model_name="m", cassette=cassette, **{"api_key": None, "base_url": DEAD_LOCAL_URL, **options})


def record_react(path, replies=REACT_REPLIES) -> tuple[str, MockOpenAIServer]:
    with MockOpenAIServer(list(replies)) as server:
        agent = ReActAgent("r", live_llm(server, Cassette(path, mode="record")), tools=[add], verbose=False)
        answer = agent.run("What is 2 + 3?")
    return answer, server


def test_a_recorded_run_replays_offline_with_the_same_answer_steps_and_usage(tmp_path, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "session.jsonl"
    answer, server = record_react(path)
    assert answer == "5" and len(server.requests) == 2

    llm = offline_llm(Cassette(path, mode="replay"))
    agent = ReActAgent("r", llm, tools=[add], verbose=False)
    assert agent.run("What is 2 + 3?") == "5"
    assert agent.last_result.status == "ok"
    assert llm.replayed == llm.calls == 2
    assert [s.kind for s in agent.last_result.steps].count("action") == 1


def test_a_hosted_model_recorded_replays_with_no_key_and_the_default_endpoint(tmp_path, monkeypatch):
    """The common case: record against OpenAI (no base_url), replay in CI with no key at all."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer([{"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}, "5"]) as server:
        hosted = ChatOpenAI(model_name="gpt-4o-mini", api_key="sk-test-key-123456", cassette=Cassette(path, "record"))
        hosted.client = hosted.client.with_options(base_url=server.url + "/v1")  # OpenAI, played by the mock
        assert ToolCallingAgent("t", hosted, tools=[add], verbose=False).run("2+3?") == "5"
    offline = ChatOpenAI(model_name="gpt-4o-mini", cassette=Cassette(path, "replay"))
    assert ToolCallingAgent("t", offline, tools=[add], verbose=False).run("2+3?") == "5"
    assert offline.replayed == 2


def test_the_cassette_holds_the_request_body_and_never_the_key(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer(["Hi"]) as server:
        llm = live_llm(server, Cassette(path, mode="record"), temperature=0.25)
        llm.generate([Message.user("my key is sk-test-key-123456, say hi")])
    text = path.read_text()
    assert "sk-test-key-123456" not in text
    entry = json.loads(text.splitlines()[1])
    assert entry["request"]["model"] == "m" and entry["request"]["temperature"] == 0.25
    assert entry["request"]["messages"][0]["content"].startswith("my key is ")
    assert entry["reply"]["choices"][0]["message"]["content"] == "Hi"
    assert "authorization" not in text.lower()


def test_a_key_the_model_repeats_in_its_reply_is_masked_in_the_cassette(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer(['Your key is "sk-test-key-123456".']) as server:
        reply = live_llm(server, Cassette(path, mode="record")).generate([Message.user("what is my key?")])
    assert "sk-test-key-123456" in reply.content  # the reply itself is the model's; the file is vero's
    assert "sk-test-key-123456" not in path.read_text()
    assert Cassette(path, mode="replay").hits == 0  # and the masked entry still passes its check


def test_a_request_not_in_the_cassette_names_the_first_difference(tmp_path):
    path = tmp_path / "c.jsonl"
    record_react(path)
    llm = offline_llm(Cassette(path, mode="replay"))
    agent = ReActAgent("r", llm, tools=[add], verbose=False)
    agent.run("What is 2 + 4?")  # another task: the first request differs in the user message
    result = agent.last_result
    assert result.status == "failed"
    assert isinstance(result.error, CassetteMissError)
    message = str(result.error)
    assert "messages[1].content" in message
    assert "What is 2 + 3?" in message and "What is 2 + 4?" in message


def test_a_miss_late_in_a_long_prompt_shows_where_the_two_part_with_the_key_masked(tmp_path):
    path = tmp_path / "c.jsonl"
    rules = "Be brief. " * 40  # 400 characters the two prompts share
    with MockOpenAIServer(["Hi"]) as server:
        llm = live_llm(server, Cassette(path, mode="record"))
        llm.generate([Message.system(rules + "Use the key sk-test-key-123456 in UTC."), Message.user("hi")])
    llm = offline_llm(Cassette(path, mode="replay"), api_key="sk-test-key-123456")  # the key masked alike
    with pytest.raises(CassetteMissError) as caught:
        llm.generate([Message.system(rules + "Use the key sk-test-key-123456 in CET."), Message.user("hi")])
    message = str(caught.value)
    assert "messages[0].content: recorded ..." in message and ", sent ..." in message  # clipped at the start
    assert 'the key *** in UTC."' in message and 'the key *** in CET."' in message
    assert "sk-test-key-123456" not in message and "Be brief. " * 3 not in message  # not the 400 shared ones


def test_another_model_is_a_miss_naming_the_model(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer(["Hi"]) as server:
        live_llm(server, Cassette(path, mode="record")).generate([Message.user("hi")])
    llm = ChatOpenAI(model_name="other", cassette=Cassette(path, mode="replay"), base_url=DEAD_LOCAL_URL)
    with pytest.raises(CassetteMissError, match=r'at model: recorded "m", sent "other"'):
        llm.generate([Message.user("hi")])


def test_replay_then_live_replays_what_it_has_and_appends_the_rest(tmp_path):
    path = tmp_path / "c.jsonl"
    record_react(path)
    with MockOpenAIServer(["Thought: done\nFinal Answer: 6"]) as server:
        cassette = Cassette(path, mode="replay_then_live")
        llm = live_llm(server, cassette)
        agent = ReActAgent("r", llm, tools=[add], verbose=False)
        assert agent.run("What is 2 + 3?") == "5"
        assert server.requests == [] and llm.replayed == 2
        assert agent.run("And 3 + 3?") == "6"  # a new request: asked live and appended
        assert len(server.requests) == 1 and cassette.misses == 1
    assert len(path.read_text().splitlines()) == 4  # header + 3 entries
    agent = ReActAgent("r", offline_llm(Cassette(path, mode="replay")), tools=[add], verbose=False)
    agent.run("What is 2 + 3?")
    assert agent.run("And 3 + 3?") == "6"  # the appended reply replays offline, in the same conversation


def test_a_streamed_reply_is_recorded_and_replayed_as_text_deltas(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer(["one two three"]) as server:
        stream = live_llm(server, Cassette(path, mode="record")).generate([Message.user("count")], stream=True)
        assert "".join(stream) == "one two three"
    replay = offline_llm(Cassette(path, mode="replay")).generate([Message.user("count")], stream=True)
    assert "".join(replay) == "one two three"
    assert replay.message.content == "one two three"


def test_a_streamed_request_replays_a_non_streamed_recording(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer(["hello"]) as server:
        live_llm(server, Cassette(path, mode="record")).generate([Message.user("hi")])
    tokens: list[str] = []
    message = offline_llm(Cassette(path, mode="replay")).generate([Message.user("hi")], on_token=tokens.append)
    assert message.content == "hello" and "".join(tokens) == "hello"


def test_native_tool_calls_survive_the_round_trip(tmp_path):
    path = tmp_path / "c.jsonl"
    replies = [{"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}, "It is 5."]
    with MockOpenAIServer(replies) as server:
        agent = ToolCallingAgent("t", live_llm(server, Cassette(path, mode="record")), tools=[add], verbose=False)
        assert agent.run("2+3?") == "It is 5."
    agent = ToolCallingAgent("t", offline_llm(Cassette(path, mode="replay")), tools=[add], verbose=False)
    assert agent.run("2+3?") == "It is 5."
    assert agent.last_result.steps_of("observation")[0].content == "5"


def test_a_call_the_model_wrote_as_text_replays_too(tmp_path):
    """A small model's call written as text gets an id from vero, which the next request carries: the id
    is derived from the call, so the second request of a replay matches the recorded one."""
    path = tmp_path / "c.jsonl"
    replies = ['<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>', "It is 5."]
    with MockOpenAIServer(replies) as server:
        agent = ToolCallingAgent("t", live_llm(server, Cassette(path, mode="record")), tools=[add], verbose=False)
        assert agent.run("2+3?") == "It is 5."
    llm = offline_llm(Cassette(path, mode="replay"))
    agent = ToolCallingAgent("t", llm, tools=[add], verbose=False)
    assert agent.run("2+3?") == "It is 5." and agent.last_result.status == "ok"
    assert llm.replayed == 2


def test_the_same_request_recorded_twice_replays_in_recorded_order_then_repeats_the_last(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer(["first", "second"]) as server:
        llm = live_llm(server, Cassette(path, mode="record"), temperature=1)
        assert [llm.generate([Message.user("pick")]).content for _ in range(2)] == ["first", "second"]
    llm = offline_llm(Cassette(path, mode="replay"), temperature=1)
    assert [llm.generate([Message.user("pick")]).content for _ in range(3)] == ["first", "second", "second"]


def test_replay_then_live_asks_the_model_once_the_recorded_samples_are_used(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer(["first"]) as server:
        live_llm(server, Cassette(path, mode="record")).generate([Message.user("pick")])
    with MockOpenAIServer(["fresh"]) as server:
        llm = live_llm(server, Cassette(path, mode="replay_then_live"))
        assert [llm.generate([Message.user("pick")]).content for _ in range(2)] == ["first", "fresh"]


def test_an_api_error_is_not_recorded_unless_the_server_refused_the_body(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer([HTTPFault(500), HTTPFault(401), HTTPFault(429)]) as server:
        llm = live_llm(server, Cassette(path, mode="record"), max_retries=0)
        for status in ("500", "401", "429"):  # a fault of the server, the key or the rate: not the request's answer
            with pytest.raises(Exception, match=status):
                llm.generate([Message.user("hi")])
    assert len(path.read_text().splitlines()) == 1  # the header only (a 400 is recorded: test_cassette_probe15.py)


def test_llm_replay_events_tell_listeners_which_calls_were_replayed(tmp_path):
    path = tmp_path / "c.jsonl"
    record_react(path)
    llm = offline_llm(Cassette(path, mode="replay"))
    seen: list[str] = []
    llm.callbacks.append(lambda event: seen.append(event.type))
    ReActAgent("r", llm, tools=[add], verbose=False).run("What is 2 + 3?")
    assert seen == ["llm_replay", "llm_replay"]


# -- bad cassettes: a clear error naming the line, never a wrong replay ------------------------------
def recorded_lines(tmp_path) -> tuple:
    path = tmp_path / "c.jsonl"
    record_react(path)
    return path, path.read_text().splitlines(keepends=True)


def test_a_cut_off_cassette_names_its_last_line(tmp_path):
    path, lines = recorded_lines(tmp_path)
    path.write_text("".join(lines)[:-40])
    with pytest.raises(CassetteError, match=r"line 3: (cut off|not valid JSON)"):
        Cassette(path, mode="replay")


def test_blank_lines_an_editor_leaves_are_skipped_and_later_lines_keep_their_numbers(tmp_path):
    path, lines = recorded_lines(tmp_path)
    path.write_text(lines[0] + "\n" + lines[1] + "  \r\n" + lines[2] + "\n\n")
    llm = offline_llm(Cassette(path, mode="replay"))
    assert ReActAgent("r", llm, tools=[add], verbose=False).run("What is 2 + 3?") == "5"
    path.write_text(lines[0] + "\n" + lines[1] + lines[2].replace("Final Answer: 5", "Final Answer: 7"))
    with pytest.raises(CassetteError, match="line 4: changed after it was recorded"):
        Cassette(path, mode="replay")


def test_a_hand_edited_reply_is_refused_naming_its_line(tmp_path):
    path, lines = recorded_lines(tmp_path)
    lines[2] = lines[2].replace("Final Answer: 5", "Final Answer: 7")
    path.write_text("".join(lines))
    with pytest.raises(CassetteError, match="line 3: changed after it was recorded"):
        Cassette(path, mode="replay")


def test_an_entry_of_the_wrong_shape_is_refused(tmp_path):
    path, lines = recorded_lines(tmp_path)
    path.write_text(lines[0] + '["not", "an", "entry"]\n')
    with pytest.raises(CassetteError, match="line 2: not a cassette entry"):
        Cassette(path, mode="replay")


def test_an_entry_whose_reply_is_no_object_is_refused_never_asked_live(tmp_path):
    from vero.cassette import _checksum

    path, lines = recorded_lines(tmp_path)
    entry = json.loads(lines[1])
    entry["reply"] = None  # its check written again: a null reply would mean "ask the model"
    entry["check"] = _checksum(entry["request"], None)
    path.write_text(lines[0] + json.dumps(entry) + "\n")
    with pytest.raises(CassetteError, match="line 2: not a cassette entry"):
        Cassette(path, mode="replay")


def test_an_entry_holding_half_a_surrogate_pair_is_refused_as_changed(tmp_path):
    path, lines = recorded_lines(tmp_path)
    path.write_text(lines[0] + lines[1].replace('"role": "user"', '"role": "user\\ud800"', 1))
    with pytest.raises(CassetteError, match="line 2: changed after it was recorded"):
        Cassette(path, mode="replay")


def test_a_cassette_of_another_format_version_is_refused(tmp_path):
    path, lines = recorded_lines(tmp_path)
    path.write_text('{"vero_cassette": 99}\n' + "".join(lines[1:]))
    with pytest.raises(CassetteError, match="line 1: cassette format 99"):
        Cassette(path, mode="replay")


def test_a_file_that_is_no_cassette_is_refused(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n')
    with pytest.raises(CassetteError, match="line 1: not a vero cassette"):
        Cassette(path, mode="replay")


def test_a_missing_cassette_in_replay_mode_says_how_to_record_one(tmp_path):
    with pytest.raises(CassetteError, match="no such cassette"):
        Cassette(tmp_path / "absent.jsonl", mode="replay")


def test_a_line_longer_than_the_limit_is_refused_without_reading_it_whole(tmp_path, monkeypatch):
    import vero.cassette as cassette_module

    path, lines = recorded_lines(tmp_path)
    monkeypatch.setattr(cassette_module, "MAX_LINE_BYTES", 100)
    assert MAX_LINE_BYTES > 100
    with pytest.raises(CassetteError, match="line 2: longer than 100 bytes"):
        Cassette(path, mode="replay")


def test_an_unknown_mode_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="mode must be one of"):
        Cassette(tmp_path / "c.jsonl", mode="rewind")  # type: ignore[arg-type]


# -- the vero_cassette pytest fixture ---------------------------------------------------------------
pytest_plugins = ["pytester"]

USER_TEST = """
import os
from vero import ChatOpenAI
from vero.core.message import Message

def test_greeting(vero_cassette):
    llm = ChatOpenAI(model_name="m", base_url=os.environ.get("LIVE_URL"), api_key="sk-x", cassette=vero_cassette)
    assert llm.generate([Message.user("hi")]).content == "Hello!"
"""


def test_the_fixture_records_once_then_replays_without_the_server(pytester, monkeypatch):
    pytester.makepyfile(test_user=USER_TEST)
    with MockOpenAIServer(["Hello!"]) as server:
        monkeypatch.setenv("LIVE_URL", server.url + "/v1")
        pytester.runpytest_inprocess("--vero-record").assert_outcomes(passed=1)
    assert (pytester.path / "cassettes" / "test_user" / "test_greeting.jsonl").is_file()
    monkeypatch.setenv("LIVE_URL", DEAD_LOCAL_URL)  # nothing listens there: a request would fail
    pytester.runpytest_inprocess().assert_outcomes(passed=1)


def test_a_recording_the_disk_could_not_take_fails_the_test_that_made_it(pytester, monkeypatch):
    pytester.makepyfile(test_user=USER_TEST)
    _short_writes(monkeypatch)  # a full disk: only part of the entry is written
    with MockOpenAIServer(["Hello!"]) as server:
        monkeypatch.setenv("LIVE_URL", server.url + "/v1")
        result = pytester.runpytest_inprocess("--vero-record")
    result.assert_outcomes(passed=1, errors=1)  # the test ran; its recording is not whole: said at teardown
    result.stdout.fnmatch_lines(["*the cassette *test_greeting.jsonl could not be written*"])


def test_the_fixture_without_a_cassette_fails_saying_how_to_record_it(pytester):
    pytester.makepyfile(test_user=USER_TEST)
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no such cassette*pytest --vero-record*"])


def test_each_test_gets_a_cassette_of_its_own():
    from types import SimpleNamespace

    from vero.pytest_plugin import cassette_path

    def node(nodeid: str):
        return SimpleNamespace(path="/t/test_user.py", nodeid=nodeid, name=nodeid.rsplit("::", 1)[-1])

    ids = ["test_user.py::TestA::test_run", "test_user.py::TestB::test_run", "test_user.py::test_x[x/y]"]
    ids += ["test_user.py::test_x[x y]", "test_user.py::test_x[" + "y" * 300 + "]"]
    paths = [cassette_path(node(nodeid)) for nodeid in ids]
    assert len(set(paths)) == len(paths) and all(len(path.name) < 120 for path in paths)
    assert cassette_path(node("test_user.py::test_greeting")).name == "test_greeting.jsonl"  # as it always was


def test_a_long_test_name_in_another_script_gets_a_file_name_a_file_system_can_hold(tmp_path):
    from types import SimpleNamespace

    from vero.pytest_plugin import cassette_path

    name = "test_" + "東京の天気" * 17  # 90 characters, 260 bytes: file systems count bytes (255 at most)
    node = SimpleNamespace(path=str(tmp_path / "test_user.py"), nodeid=f"test_user.py::{name}", name=name)
    path = cassette_path(node, rerecord=True)
    assert len(path.name.encode()) < 120 and path.name.startswith("test_東京の天気")
    Cassette(path, mode="record")  # the file can be made


def test_a_cassette_recorded_under_its_earlier_name_is_still_found(tmp_path):
    from types import SimpleNamespace

    from vero.pytest_plugin import cassette_path

    node = SimpleNamespace(path=str(tmp_path / "test_user.py"), nodeid="test_user.py::test_x[1]", name="test_x[1]")
    assert cassette_path(node).name != "test_x_1.jsonl"
    earlier = tmp_path / "cassettes" / "test_user" / "test_x_1.jsonl"
    earlier.parent.mkdir(parents=True)
    earlier.write_text("")
    assert cassette_path(node) == earlier


# -- a recording the disk cannot hold ------------------------------------------------------------------
def _short_writes(monkeypatch):
    """``os.write`` as on a full disk: only half of each entry is written (a size limit or a quota does the same)."""
    real = os.write
    monkeypatch.setattr("vero.cassette.os.write", lambda fd, data: real(fd, data[: max(1, len(data) // 2)]))


def test_an_entry_the_disk_took_in_part_is_taken_back_and_the_run_keeps_its_answer(tmp_path, monkeypatch, caplog):
    path = tmp_path / "session.jsonl"
    cassette = Cassette(path, mode="record")
    _short_writes(monkeypatch)
    with MockOpenAIServer(list(REACT_REPLIES)) as server:
        agent = ReActAgent("r", live_llm(server, cassette), tools=[add], verbose=False)
        answer = agent.run("What is 2 + 3?")
    assert (answer, agent.last_result.status) == ("5", "ok")  # the replies came: the run does not fail for the file
    assert isinstance(cassette.error, OSError) and len(server.requests) == 2
    assert [r.getMessage() for r in caplog.records if r.name == "vero.cassette"] == [
        f"vero: the cassette {path} could not be written (only part of an entry was written); recording stops here"
    ]  # once: the second reply was not written after the first failed
    assert path.read_text() == '{"vero_cassette": 1}\n'  # whole, so a replay reads it: a miss, not a cut line
    with pytest.raises(CassetteMissError):
        Cassette(path, mode="replay").lookup({"model": "m", "messages": []})


def test_vero_run_record_exits_1_when_the_cassette_could_not_be_written(tmp_path, monkeypatch, capsys):
    from vero.cli import main

    _short_writes(monkeypatch)
    path = tmp_path / "session.jsonl"
    with MockOpenAIServer(["Final Answer: It is 4."]) as server:
        code = main(["run", "--tools", "none", "-q", "--base-url", server.url + "/v1", "--record", str(path), "2+2?"])
    assert (code, capsys.readouterr().out) == (1, "It is 4.\n")  # the answer shown, the failed recording said


# -- the command line ---------------------------------------------------------------------------------
def test_vero_run_records_then_replays_offline(tmp_path, capsys):
    from vero.cli import main

    path = tmp_path / "session.jsonl"
    with MockOpenAIServer(["Final Answer: It is 4."]) as server:
        assert (
            main(["run", "--tools", "none", "-q", "--base-url", server.url + "/v1", "--record", str(path), "2+2?"]) == 0
        )
    assert main(["run", "--tools", "none", "-q", "--base-url", DEAD_LOCAL_URL, "--replay", str(path), "2+2?"]) == 0
    assert capsys.readouterr().out == "It is 4.\nIt is 4.\n"


def test_vero_run_with_a_missing_cassette_or_two_different_files_is_a_usage_error(tmp_path, capsys):
    from vero.cli import main

    assert main(["run", "--base-url", DEAD_LOCAL_URL, "--replay", str(tmp_path / "absent.jsonl"), "hi"]) == 2
    assert "no such cassette" in capsys.readouterr().err
    args = [
        "run",
        "--base-url",
        DEAD_LOCAL_URL,
        "--record",
        str(tmp_path / "a.jsonl"),
        "--replay",
        str(tmp_path / "b.jsonl"),
    ]
    assert main([*args, "hi"]) == 2
    assert "name different files" in capsys.readouterr().err


@pytest.mark.parametrize("mode", ["record", "replay", "replay_then_live"])
def test_a_cassette_that_is_no_regular_file_is_refused_at_once(tmp_path, mode):
    fifo = tmp_path / "run.jsonl"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/null"):  # a FIFO would wait forever; /dev/null would swallow the recording
        with pytest.raises(CassetteError, match="not a regular file"):
            Cassette(path, mode)
