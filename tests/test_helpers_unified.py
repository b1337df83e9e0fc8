"""One helper per job: yes/no words, JSON from model text, clipping, made-up token counts."""

import pytest

from vero._estimate import estimated_usage
from vero.core.parsing import as_bool, parse_bool, parse_json_value
from vero.core.text import clip
from vero.testing import ScriptedLLM
from vero.tools import ToolRegistry, tool
from vero.tools.base import coerce

YES = [True, 1, 1.0, "true", "True", " yes ", "Y", "1", "on", "ON", "pass", "passed"]
NO = [False, 0, 0.0, "false", "FALSE", "no", "n", "0", " off", "fail", "Failed"]
NEITHER = [None, 2, -1, 0.5, "", "maybe", "truthy", "null", "none", "1.0", [], {}]


@pytest.mark.parametrize("value", YES)
def test_yes_words_are_true_in_verdicts_and_tool_arguments(value):
    assert parse_bool(value) is True
    assert as_bool(value, "ok") is True
    assert coerce(value, {"type": "boolean"}) is True


@pytest.mark.parametrize("value", NO)
def test_no_words_are_false_in_verdicts_and_tool_arguments(value):
    assert parse_bool(value) is False
    assert as_bool(value, "ok") is False
    assert coerce(value, {"type": "boolean"}) is False


@pytest.mark.parametrize("value", NEITHER)
def test_other_values_are_refused_with_each_callers_message(value):
    assert parse_bool(value) is None
    with pytest.raises(ValueError, match=r"^`ok` must be true or false, got "):
        as_bool(value, "ok")
    with pytest.raises(ValueError, match=r"^expected boolean, got "):
        coerce(value, {"type": "boolean"})


def test_a_lookup_reads_a_verdict_word_as_its_boolean_argument():
    @tool(read_only=True)  # a tool that may change things takes only true or false
    def flag(on: bool) -> str:
        """Echo a flag."""
        return repr(on)

    tools = ToolRegistry([flag])
    assert [tools.run("flag", {"on": word}).output for word in ("passed", "off", "Yes")] == ["True", "False", "True"]
    assert "expected boolean, got 'maybe'" in tools.run("flag", {"on": "maybe"}).output


def test_strict_json_reads_only_exact_json():
    assert parse_json_value("{'a': 1,}") == {"a": 1}  # repaired
    assert parse_json_value('"x y"', repair=False) == "x y"
    for sloppy in ("{'a': 1}", '"a" "b"', "", "[1, 2,]"):
        with pytest.raises(ValueError):
            parse_json_value(sloppy, repair=False)
    with pytest.raises(ValueError, match="nested too deeply"):
        parse_json_value("[" * 100_000 + "]" * 100_000, repair=False)
    assert parse_json_value('"\\ud83d"', repair=False) == "\ufffd"  # a lone surrogate cannot reach a request


def test_a_quoted_sole_argument_is_read_as_strict_json():
    @tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    tools = ToolRegistry([echo])
    assert tools.run("echo", '"hello"').output == "hello"
    assert tools.run("echo", '"a" and "b"').output == '"a" and "b"'  # not one JSON string: given as written


@pytest.mark.parametrize(
    "text, limit, marker, within, expected",
    [
        ("abcdef", 6, "...", False, "abcdef"),  # fits: no marker
        ("abcdefg", 6, "...", False, "abcdef..."),  # the marker follows the kept text
        ("abcdefg", 6, "...", True, "abc..."),  # the whole result fits in the limit
        ("abcdefg", 3, "", False, "abc"),
        ("abcdefg", 2, "...", True, "..."),  # a marker longer than the limit keeps no text
        ("", 0, "...", False, ""),
    ],
)
def test_clip(text, limit, marker, within, expected):
    assert clip(text, limit, marker, within=within) == expected


def test_scripted_model_and_mock_server_make_up_the_same_token_counts():
    from vero._mock_server import MockOpenAIServer
    from vero.core.chat_openai import ChatOpenAI

    messages = [
        {"role": "system", "content": "x" * 40},
        {"role": "user", "content": [{"type": "text", "text": "y" * 21}]},
    ]
    expected = estimated_usage(messages, "hello there")
    assert expected == {"prompt_tokens": 16, "completion_tokens": 3, "total_tokens": 19}
    assert ScriptedLLM(["hello there"]).generate(messages).usage == expected
    with MockOpenAIServer(["hello there"]) as server:
        llm = ChatOpenAI("m", api_key="test", base_url=server.base_url, max_retries=0)
        usage = llm.generate(messages).usage
    assert {key: usage[key] for key in expected} == expected  # the client adds cached_tokens
