import json

import pytest

from vero.core.message import Arguments, Message, ToolCall, read_arguments
from vero.core.thinking import ThinkingStream, split_thinking


def test_factories_set_roles():
    assert Message.system("s").role == "system"
    assert Message.user("u").to_dict() == {"role": "user", "content": "u"}
    tool = Message.tool("42", tool_call_id="call_1", name="add")
    assert tool.to_dict() == {"role": "tool", "content": "42", "tool_call_id": "call_1", "name": "add"}


def test_unknown_role_is_refused():
    with pytest.raises(ValueError, match="unknown role"):
        Message("robot", "hi")


def test_assistant_tool_calls_use_the_api_wire_format():
    message = Message.assistant(None, [{"name": "add", "arguments": {"a": 1}, "id": "c1"}])
    assert message.to_dict() == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}}],
    }


def test_reasoning_and_usage_stay_out_of_api_dict_by_default():
    message = Message.assistant("answer", reasoning="secret thoughts", usage={"total_tokens": 3})
    assert "reasoning" not in message.to_dict()
    assert "usage" not in message.to_dict()
    assert message.to_dict(include_reasoning=True)["reasoning"] == "secret thoughts"


def test_json_round_trip_is_lossless():
    original = Message.assistant(
        "text ✓ {braces}", [ToolCall("c1", "add", '{"a": 1}')], reasoning="why", usage={"total_tokens": 9}
    )
    restored = Message.from_json(original.to_json())
    assert restored == original
    assert restored.usage == {"total_tokens": 9}
    assert json.loads(original.to_json())["tool_calls"][0]["function"]["name"] == "add"


def test_from_dict_reads_reasoning_content():
    assert Message.from_dict({"role": "assistant", "content": "a", "reasoning_content": "r"}).reasoning == "r"


@pytest.mark.parametrize(
    "raw, answer, thinking",
    [
        ("plain", "plain", None),
        ("<think>hmm</think>The answer", "The answer", "hmm"),
        ("<think>a</think>x<think>b</think>y", "xy", "a\n\nb"),
        ("Answer first<think>cut off mid thought", "Answer first", "cut off mid thought"),
        ("<think>never closed", "", "never closed"),
        ("dropped opening tag</think>42", "42", "dropped opening tag"),
        ("", "", None),
        (None, "", None),
    ],
)
def test_split_thinking(raw, answer, thinking):
    assert split_thinking(raw) == (answer, thinking)


def test_thinking_stream_handles_tags_split_across_deltas():
    stream = ThinkingStream()
    deltas = ["<thi", "nk>sec", "ret</th", "ink>Hel", "lo <", "b>"]
    visible = "".join(stream.feed(d) for d in deltas) + stream.flush()
    assert visible == "Hello <b>"
    assert "".join(stream.thinking) == "secret"


# -- a tool call's arguments, read once -------------------------------------------------------------
def test_a_tool_call_reads_its_arguments_once_as_a_dict_keeping_the_text_as_written():
    call = ToolCall("c1", "add", '{"a": 1, "b": 2}')
    args = call.args
    assert args == {"a": 1, "b": 2} and isinstance(args, Arguments)
    assert (args.written, args.plain, args.problem) == ('{"a": 1, "b": 2}', False, None)
    assert (args.origin, args.call_id) == ("native", "c1")
    assert call.args is args  # read once, then kept
    assert call.to_dict()["function"]["arguments"] == '{"a": 1, "b": 2}'  # the wire form is the text


def test_a_call_read_from_text_says_so_in_its_arguments():
    call = ToolCall("c2", "add", '{"a": 1}', origin="text")
    assert (call.args.origin, call.args.call_id) == ("text", "c2")
    assert ToolCall("c2", "add", '{"a": 1}', origin="text") == ToolCall("c2", "add", '{"a": 1}')  # same call


@pytest.mark.parametrize(
    ("written", "expected", "plain"),
    [
        ('```json\n{"a": 1}\n```', {"a": 1}, False),  # fenced: its inside
        ("{'a': 1,}", {"a": 1}, False),  # sloppy: repaired (the gate reads the text again for a changing tool)
        ('{"a": 1} and more', {"a": 1}, False),  # the object it begins with
        ("", {}, False),
        ("Paris", {}, True),  # plain text: the gate reads it with the tool in hand
        ("{not json at all", {}, True),
    ],
)
def test_read_arguments_takes_the_object_leniently_and_marks_plain_text(written, expected, plain):
    args = read_arguments(written)
    assert (dict(args), args.plain, args.written) == (expected, plain, written)
