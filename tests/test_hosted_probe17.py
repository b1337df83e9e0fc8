"""Hosted servers' refusals, from an outside probe, over real HTTP (``MockOpenAIServer``): an error body the SDK
does not read (a list, as Gemini's is; an object as its message, as Mistral's 422 is; a proxy's page) is shown and
names the refused parameter; a 422 refusal is one; a guided step's fallback is for a refused schema only; a server
that refuses ``tool_choice`` is asked again without it; strict mode only for the keywords OpenAI's takes.
"""

from __future__ import annotations

import base64
from typing import Annotated

import annotated_types
import pytest

from vero import ChatOpenAI, Message
from vero.agents import ReActAgent, ToolCallingAgent
from vero.core.output import OutputSpec
from vero.core.secrets import hide_secrets, url_credentials
from vero.errors import LLMCallError
from vero.testing import HTTPFault, MockOpenAIServer
from vero.tools.builtin import calculator

GEMINI = [{"error": {"code": 400, "message": 'Unknown name "reasoning_effort": Cannot find field.', "status": "X"}}]
MISTRAL = {"object": "error", "message": {"detail": [{"type": "extra_forbidden", "loc": ["body", "reasoning_effort"]}]}}
PROXY = "<html><body><h1>400 Bad Request</h1><p>Unsupported parameter: 'reasoning_effort'</p></body></html>"


def client(srv: MockOpenAIServer, **options) -> ChatOpenAI:
    return ChatOpenAI(base_url=srv.base_url, model_name="m", api_key="sk-test-hosted17", max_retries=0, **options)


@pytest.mark.parametrize(
    ("status", "body", "shown"), [(400, GEMINI, "Cannot find field"), (422, MISTRAL, "extra_forbidden")]
)
def test_an_error_body_the_sdk_does_not_read_is_shown_and_names_the_refused_parameter(status, body, shown):
    with MockOpenAIServer([HTTPFault(status, body=body)]) as srv:
        with pytest.raises(LLMCallError) as raised:
            client(srv, reasoning_effort="low").generate([Message("user", "hi")])
    assert shown in str(raised.value) and raised.value.parameter == "reasoning_effort"


def test_a_proxy_s_page_is_shown_and_read_for_what_it_refused():
    with MockOpenAIServer([HTTPFault(400, body=PROXY)]) as srv:
        with pytest.raises(LLMCallError) as raised:
            client(srv, reasoning_effort="low").generate([Message("user", "hi")])
    assert "400 Bad Request" in str(raised.value) and raised.value.parameter == "reasoning_effort"


def test_a_guided_step_falls_back_to_text_only_when_the_schema_is_what_was_refused():
    refused = HTTPFault(400, body={"error": {"message": "no", "param": "temperature", "code": "unsupported_value"}})
    with MockOpenAIServer([refused] * 3) as srv:
        agent = ReActAgent("a", client(srv, temperature=0.3), tools=[calculator], protocol="guided", verbose=False)
        agent.run("What is 6*7?")
    assert agent.last_result.status == "failed" and len(srv.requests) == 1  # not re-sent as text, blaming the schema
    assert "temperature" in str(agent.last_result.error)


def test_a_server_that_refuses_tool_choice_is_asked_again_without_it_when_the_turns_run_out():
    call = {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]}
    refused = HTTPFault(400, body={"error": {"message": "no", "param": "tool_choice", "code": "unsupported_parameter"}})
    with MockOpenAIServer([call, refused, "It is 42."]) as srv:
        agent = ToolCallingAgent("a", client(srv), tools=[calculator], max_turns=1, verbose=False)
        agent.run("What is 6*7?")
    assert (agent.last_result.status, agent.last_result.answer) == ("max_turns", "It is 42.")
    assert [request.get("tool_choice") for request in srv.requests] == [None, "none", None]


@pytest.mark.parametrize(
    ("schema", "strict"),
    [
        (
            {
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "required": ["n"],
                "additionalProperties": False,
            },
            True,
        ),
        (
            {"type": "object", "properties": {"n": {"type": "string", "minLength": 2}}, "required": ["n"]}
            | {"additionalProperties": False},
            False,
        ),
        (
            {"type": "object", "properties": {"n": {"type": "integer", "default": 3}}, "required": ["n"]}
            | {"additionalProperties": False},
            False,
        ),
        (
            {"type": "object", "properties": {"p": {"type": "string", "format": "password"}}, "required": ["p"]}
            | {"additionalProperties": False},
            False,
        ),
    ],
)
def test_a_typed_answer_is_strict_only_with_the_keywords_openai_s_strict_mode_takes(schema, strict):
    assert OutputSpec(schema).response_format()["json_schema"]["strict"] is strict


def test_a_length_bound_leaves_a_typed_answer_unstrict_and_checked_by_vero():
    spec = OutputSpec(list[Annotated[str, annotated_types.MinLen(2)]])
    assert spec.response_format()["json_schema"]["strict"] is False


@pytest.mark.parametrize(
    "body", [[{"error": {"message": "API key not valid: sk-test-hosted17"}}], "<p>sk-test-hosted17</p>"]
)
def test_an_error_body_shown_in_the_message_has_the_key_masked(body):
    with MockOpenAIServer([HTTPFault(400, body=body)]) as srv:
        with pytest.raises(LLMCallError) as raised:
            client(srv).generate([Message("user", "hi")])
    assert "hosted17" not in str(raised.value) and "***" in str(raised.value)


def test_an_error_body_shown_in_the_message_has_the_url_s_password_masked_in_its_basic_form_too():
    basic = "YWxpY2U6aHVudGVyMi1TM2NyZXRQYXNzOTk="  # base64 of alice:hunter2-S3cretPass99
    with MockOpenAIServer([HTTPFault(400, body=f"<p>Basic {basic}; password hunter2-S3cretPass99</p>")]) as srv:
        url = srv.base_url.replace("http://", "http://alice:hunter2-S3cretPass99@")
        llm = ChatOpenAI(base_url=url, model_name="m", api_key="sk-test-hosted17", max_retries=0)
        with pytest.raises(LLMCallError) as raised:
            llm.generate([Message("user", "hi")])
    assert "S3cretPass99" not in str(raised.value) and basic not in str(raised.value)


@pytest.mark.parametrize("credentials", ["sk-gateway-token-0123", ":gateway-pass-0123"])
def test_a_url_s_user_alone_or_password_alone_is_masked_in_its_basic_form(credentials):
    pair = credentials if ":" in credentials else credentials + ":"  # as the HTTP library sends it
    basic = base64.b64encode(pair.encode()).decode()
    secrets = url_credentials(f"https://{credentials}@gateway.example/v1")
    assert hide_secrets(f"echo: Basic {basic}", secrets) == "echo: Basic ***"


def test_an_error_message_the_sdk_writes_has_the_url_s_password_masked():
    echoed = {"error": {"message": "bad password hunter2-S3cretPass99", "type": "auth"}}
    with MockOpenAIServer([HTTPFault(400, body=echoed)]) as srv:
        url = srv.base_url.replace("http://", "http://alice:hunter2-S3cretPass99@")
        llm = ChatOpenAI(base_url=url, model_name="m", api_key="sk-test-hosted17", max_retries=0)
        with pytest.raises(LLMCallError) as raised:
            llm.generate([Message("user", "hi")])
    assert "S3cretPass99" not in str(raised.value) and "S3cretPass99" not in repr(raised.value.__cause__.args)


def test_a_refused_parameter_is_named_even_when_a_masked_secret_holds_its_name():
    refused = {"error": {"message": "Unsupported parameter: 'max_tokens'", "code": "unsupported_parameter"}}
    with MockOpenAIServer([HTTPFault(400, body=refused)]) as srv:
        url = srv.base_url.replace("http://", "http://alice:max_tokens_2024@")
        llm = ChatOpenAI(base_url=url, model_name="m", api_key="sk-test-hosted17", max_retries=0, max_tokens=64)
        with pytest.raises(LLMCallError) as raised:
            llm.generate([Message("user", "hi")])
    assert raised.value.parameter == "max_tokens" and "max_tokens_2024" not in str(raised.value)


def test_a_refused_parameter_whose_name_holds_the_url_s_password_is_not_named():
    refused = {"error": {"message": "bad", "param": "messages.S3cretPass99x", "code": "unsupported_parameter"}}
    with MockOpenAIServer([HTTPFault(400, body=refused)]) as srv:
        url = srv.base_url.replace("http://", "http://alice:S3cretPass99x@")
        llm = ChatOpenAI(base_url=url, model_name="m", api_key="sk-test-hosted17", max_retries=0)
        with pytest.raises(LLMCallError) as raised:
            llm.generate([Message("user", "hi")])
    assert raised.value.parameter is None and "S3cretPass99x" not in str(raised.value)
