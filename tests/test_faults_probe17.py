"""Faults an outside probe found (offline): a base URL whose host has no name the HTTP library can send (an empty
label, one over 63 characters, a symbol IDNA has no name for), and an output schema whose ``$ref``s to its own
definitions are checked (the keywords vero does not read are refused: test_faults_probe15's table of such schemas).
"""

from __future__ import annotations

import pytest

from vero import ChatOpenAI
from vero.agents import ToolCallingAgent
from vero.core.chat_openai import base_url_problem
from vero.errors import LLMConfigError
from vero.testing import ScriptedLLM
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
