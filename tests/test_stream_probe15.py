"""Streaming's fifteenth probe: the streamed answer after a thinking block is the answer as a run keeps it, and a
server that refuses ``stream_options`` still streams (asked again without it, and recorded so that it replays)."""

from __future__ import annotations

import random

import openai
import pytest

from vero import ChatOpenAI
from vero.agents import ToolCallingAgent
from vero.cassette import Cassette
from vero.core.thinking import ThinkingStream, split_thinking
from vero.testing import HTTPFault, MockOpenAIServer


@pytest.mark.parametrize(
    "reply",
    ["<think>two and two</think>\n\nThe answer is 4.\n", "<think>a</think>  x  <think>b</think>  y  ", "plain "],
)
def test_the_streamed_answer_after_thinking_is_the_answer_split_thinking_keeps(reply):
    pieces = random.Random(7)
    for _ in range(30):
        cuts = sorted(pieces.sample(range(1, len(reply)), 3))
        stream = ThinkingStream()
        streamed = "".join(stream.feed(reply[a:b]) for a, b in zip([0, *cuts], [*cuts, len(reply)])) + stream.flush()
        assert streamed == split_thinking(reply)[0]


def no_stream_options(body: dict) -> object:
    if "stream_options" in body:
        return HTTPFault(400, "Unrecognized request argument supplied: stream_options", code="invalid_request_error")
    return "Paris."


def client(url: str, **options: object) -> ChatOpenAI:
    http = openai.DefaultHttpxClient(trust_env=False)
    return ChatOpenAI(model_name="m", api_key="sk-x", base_url=url, max_retries=0, http_client=http, **options)


def test_a_server_that_refuses_stream_options_is_streamed_to_without_them_and_the_recording_replays(tmp_path):
    path = tmp_path / "c.jsonl"
    with MockOpenAIServer(responder=no_stream_options) as server:
        llm = client(server.base_url, cassette=Cassette(path, "record"))
        events = list(ToolCallingAgent("t", llm, verbose=False).stream("Capital of France?"))
        assert events[-1].result.status == "ok" and events[-1].result.answer == "Paris."
        assert llm._stream_usage is False  # the next stream does not ask again
    replayed = ToolCallingAgent("t", client("http://127.0.0.1:9/v1", cassette=Cassette(path, "replay")), verbose=False)
    assert list(replayed.stream("Capital of France?"))[-1].result.answer == "Paris."


@pytest.mark.parametrize("workers", [0, -3, 2.5, True, "4"])
def test_run_many_refuses_a_max_workers_that_is_no_number_of_workers(workers):
    from vero.batch import run_many

    with pytest.raises(ValueError, match="max_workers"):
        run_many(lambda: None, ["a"], max_workers=workers, progress=False)


def test_run_many_with_max_workers_none_uses_the_pool_s_default():
    from vero.batch import run_many
    from vero.testing import ScriptedLLM

    results = run_many(lambda: ToolCallingAgent("t", ScriptedLLM(["ok"]), verbose=False), ["a", "b"], max_workers=None)
    assert [result.answer for result in results] == ["ok", "ok"]


@pytest.mark.parametrize(
    "reply", ["<think>x</think>Hello <", "<think>x</think>a\n\n<th", "<think></think>\n\nHello", " <think>x</think>Hi"]
)
def test_white_space_inside_the_answer_streams_and_at_its_ends_does_not(reply):
    for size in (1, 2, 3, len(reply)):
        stream = ThinkingStream()
        streamed = "".join(stream.feed(reply[i : i + size]) for i in range(0, len(reply), size)) + stream.flush()
        assert streamed == split_thinking(reply)[0]
