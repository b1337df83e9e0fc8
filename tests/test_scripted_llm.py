import pytest

from vero import Message
from vero.errors import ScriptExhaustedError
from vero.testing import ScriptedLLM


def test_replies_in_order_and_records_calls():
    llm = ScriptedLLM(["one", "two"])
    assert llm.generate([Message.user("a")]).content == "one"
    assert llm.generate([{"role": "user", "content": "b"}], stop=["X"], tools=[{"t": 1}]).content == "two"
    assert llm.calls == 2
    assert llm.requests[1].messages == [{"role": "user", "content": "b"}]
    assert llm.requests[1].stop == ["X"] and llm.requests[1].tools == [{"t": 1}]


def test_exhausted_script_raises_a_clear_error():
    llm = ScriptedLLM(["only"])
    llm.generate([Message.user("a")])
    with pytest.raises(ScriptExhaustedError, match="no reply left for call #2"):
        llm.generate([Message.user("a")])


def test_default_reply_repeats():
    llm = ScriptedLLM(default="again")
    assert [llm.generate([Message.user("x")]).content for _ in range(3)] == ["again"] * 3


def test_stop_sequences_cut_like_a_server():
    llm = ScriptedLLM(["Action: x\nObservation: invented"])
    assert llm.generate([Message.user("q")], stop=["Observation:"]).content == "Action: x\n"


def test_dict_reply_with_tool_calls_and_usage():
    llm = ScriptedLLM([{"tool_calls": [{"name": "add", "arguments": {"a": 1}}], "usage": {"total_tokens": 7}}])
    message = llm.generate([Message.user("q")])
    assert message.tool_calls[0].name == "add" and message.tool_calls[0].arguments == '{"a": 1}'
    assert message.tool_calls[0].id == "call_1"
    assert message.usage == {"total_tokens": 7} and llm.total_usage["total_tokens"] == 7


def test_exception_reply_is_raised_and_callable_reply_sees_messages():
    llm = ScriptedLLM([RuntimeError("api down"), lambda messages, **kw: f"saw {len(messages)}"])
    with pytest.raises(RuntimeError, match="api down"):
        llm.generate([Message.user("q")])
    assert llm.generate([Message.user("q"), Message.user("r")]).content == "saw 2"


def test_on_token_and_stream_deliver_the_text():
    llm = ScriptedLLM(["hello big world", "<think>t</think>streamed text"])
    tokens = []
    message = llm.generate([Message.user("q")], on_token=tokens.append)
    assert "".join(tokens) == "hello big world" and len(tokens) == 3 and message.content == "hello big world"
    stream = llm.generate([Message.user("q")], stream=True)
    assert "".join(stream) == "streamed text" and stream.message.reasoning == "t"


def test_reply_functions_get_only_the_options_they_accept():
    seen = {}
    llm = ScriptedLLM(
        [
            lambda messages: f"plain {len(messages)}",
            lambda messages, stop: f"{len(stop)} stop sequence",
            lambda messages, **options: seen.update(options) or "all",
        ]
    )
    assert llm.generate([Message.user("q")], tools=[{"t": 1}]).content == "plain 1"
    assert llm.generate([Message.user("q")], stop=["X"]).content == "1 stop sequence"
    assert llm.generate([Message.user("q")], stop=["Y"], temperature=0.5).content == "all"
    assert seen["stop"] == ["Y"] and seen["temperature"] == 0.5 and seen["tools"] is None
