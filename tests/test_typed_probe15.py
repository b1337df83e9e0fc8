"""A probe of typed results and hosted replies (15): a refusal, a 400 naming another parameter, numbers as
written, ``to_dict``'s output as JSON, and a simple type's constraints in its note."""

from __future__ import annotations

import datetime
import decimal
import json
import pathlib
import pickle
import uuid
from dataclasses import dataclass
from typing import Annotated, Any

import annotated_types
import pydantic
import pytest
from mock_pool import pooled_mock_server

from vero.agents import ToolCallingAgent
from vero.core.chat_openai import ChatOpenAI
from vero.core.message import Message
from vero.core.output import OutputSpec
from vero.core.result import Status, plain_output
from vero.errors import LLMCallError
from vero.testing import HTTPFault, ScriptedLLM
from vero.tools import schema
from vero.tools.schema import InvalidValue, convert

REFUSAL = "I'm sorry, I can't help with that request."


@dataclass
class City:
    city: str
    population: int


@dataclass
class Invoice:
    due: datetime.date
    total: decimal.Decimal


def http_llm(server: Any, **settings: Any) -> ChatOpenAI:
    settings = {"model_name": "mock", "api_key": "sk-test-probe15", "max_retries": 0, **settings}
    return ChatOpenAI(base_url=server.base_url, **settings)


def refused_completion() -> dict[str, Any]:
    message = {"role": "assistant", "content": None, "refusal": REFUSAL}
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return {"raw": {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice]}}


def refused_stream() -> dict[str, Any]:
    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [choice]}

    half = len(REFUSAL) // 2
    pieces = [{"role": "assistant", "content": None, "refusal": ""}, {"refusal": REFUSAL[:half]}]
    return {"raw": [chunk(p) for p in pieces] + [chunk({"refusal": REFUSAL[half:]}), chunk({}, "stop")]}


# -- 1. a refusal ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_a_refusal_is_an_error_that_quotes_the_model_s_words(stream):
    with pooled_mock_server([refused_stream() if stream else refused_completion()]) as server:
        with pytest.raises(LLMCallError, match="the model refused to answer: I'm sorry, I can't help") as caught:
            reply = http_llm(server).generate([Message.user("hi")], stream=stream)
            "".join(reply) if stream else None
    assert caught.value.status is None and caught.value.parameter is None


def test_a_typed_run_whose_answer_is_refused_fails_saying_so_with_the_refusal():
    with pooled_mock_server([refused_completion()]) as server:
        agent = ToolCallingAgent("typed", http_llm(server), verbose=False)
        assert agent.run("Biggest city of Norway?", output_type=City) is None
    result = agent.last_result
    assert result.status == Status.FAILED and "refused to answer" in str(result.error)
    assert REFUSAL in result.to_dict()["error"]["message"]


def test_a_refusal_that_is_not_text_is_a_malformed_reply():
    body = refused_completion()
    body["raw"]["choices"][0]["message"]["refusal"] = {"text": REFUSAL}
    with pooled_mock_server([body]) as server:
        with pytest.raises(LLMCallError, match="malformed response"):
            http_llm(server).generate([Message.user("hi")])


# -- 2. a 400 that names another parameter -------------------------------------------------------------------------


def openai_400(param: str | None, code: str | None, message: str = "bad request") -> HTTPFault:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return HTTPFault(400, body={"error": error})


@pytest.mark.parametrize(
    "param, code, named",
    [
        ("messages", "context_length_exceeded", "messages"),
        ("reasoning_effort", "invalid_value", "reasoning_effort"),
        ("messages[0].content", "invalid_type", "messages[0].content"),
        ("logprobs", "invalid_value", None),  # not a parameter of the request
        ("not a name; rm -rf", "invalid_value", None),
        (None, None, None),
    ],
)
def test_the_llm_call_error_names_the_parameter_the_error_body_names(param, code, named):
    with pooled_mock_server([openai_400(param, code)]) as server:
        with pytest.raises(LLMCallError) as caught:
            http_llm(server, model_name="gpt-5", reasoning_effort="extreme").generate([Message.user("hi")])
    assert caught.value.status == 400 and caught.value.parameter == named


def test_a_refused_parameter_named_only_in_the_message_is_still_named():
    fault = openai_400(None, None, "Unsupported parameter: 'reasoning_effort' is not supported with this model.")
    with pooled_mock_server([fault]) as server:
        with pytest.raises(LLMCallError, match="refused the parameter 'reasoning_effort'") as caught:
            http_llm(server, model_name="gpt-5", reasoning_effort="low").generate([Message.user("hi")])
    assert caught.value.parameter == "reasoning_effort"


def typed_run_against(fault: HTTPFault) -> tuple[ToolCallingAgent, list[dict[str, Any]]]:
    """A typed run whose re-ask carries a response_format (a llama.cpp-like server), answered by ``fault``."""

    def reply(body: dict[str, Any]) -> Any:
        return fault if "response_format" in body else "It is Oslo, a big one"

    with pooled_mock_server(responder=reply) as server:
        server.add_route("GET", "/props", lambda request: (200, {}, {"default_generation_settings": {}}))
        agent = ToolCallingAgent("typed", http_llm(server), verbose=False)
        agent.run("Biggest city of Norway?", output_type=City)
        return agent, [r for r in server.requests if "messages" in r]


def test_a_400_naming_another_parameter_is_not_taken_for_a_refused_response_format():
    agent, sent = typed_run_against(openai_400("messages", "context_length_exceeded", "maximum context length"))
    result = agent.last_result
    assert ["response_format" in request for request in sent] == [False, True]  # not sent again without it
    assert result.status == Status.FAILED and result.error.parameter == "messages"
    assert not any("response_format was refused" in step.content for step in result.steps)


def test_a_400_naming_the_response_format_is_still_asked_again_without_it():
    agent, sent = typed_run_against(openai_400("response_format", None, "Invalid schema for response_format"))
    assert ["response_format" in request for request in sent] == [False, True, False, False]  # nor later
    assert any("response_format was refused" in step.content for step in agent.last_result.steps)


# -- 3. numbers as written -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "output_type, reply, expected",
    [
        (decimal.Decimal, "12345678901234567890.123456789", decimal.Decimal("12345678901234567890.123456789")),
        (decimal.Decimal, "1.10", decimal.Decimal("1.10")),
        (decimal.Decimal, '{"answer": 0.30000000000000000001}', decimal.Decimal("0.30000000000000000001")),
        (Invoice, '{"due": "2024-03-05", "total": 98765432109876543.21}', None),
        (int, "1e30", 10**30),
        (int, "1.5e1", 15),
        (list[int], "[2e20, 3]", [2 * 10**20, 3]),
    ],
)
def test_a_number_is_read_with_every_digit_it_was_written_with(output_type, reply, expected):
    value = OutputSpec(output_type).read(reply)
    if output_type is Invoice:
        assert value.total == decimal.Decimal("98765432109876543.21") and str(value.total) == "98765432109876543.21"
    else:
        assert value == expected and str(value) == str(expected)


def test_an_int_written_with_a_fraction_past_a_float_s_digits_is_refused_not_rounded():
    with pytest.raises(InvalidValue, match="expected integer, got 1.0000000000000000001"):
        OutputSpec(int).read("1.0000000000000000001")
    with pytest.raises(InvalidValue, match="expected integer"):
        convert(1e30, int)  # a float alone (a tool's arguments): past 2**53 its digits are not the model's
    assert convert(3.0, int) == 3 and convert(2.0**53, int) == 2**53


def test_a_pydantic_decimal_field_gets_every_digit_too():
    class Price(pydantic.BaseModel):
        amount: decimal.Decimal
        ratio: float

    price = OutputSpec(Price).read('{"amount": 12345678901234567890.5, "ratio": 0.1}')
    assert price.amount == decimal.Decimal("12345678901234567890.5") and type(price.ratio) is float


@pytest.mark.parametrize(
    "output_type, reply, expected",
    [
        (float, "0.1", 0.1),
        (float, "1e-7", 1e-7),
        (list[float], "[0.1, 2.5]", [0.1, 2.5]),
        (dict[str, float], '{"a": 0.5}', {"a": 0.5}),
        (int | float, "1.0", 1.0),
        (float | None, "2.5", 2.5),
    ],
)
def test_a_float_output_is_read_as_before_a_plain_float(output_type, reply, expected):
    value = OutputSpec(output_type).read(reply)
    assert value == expected
    floats = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else [value]
    assert all(type(number) is float for number in floats)


def test_a_written_number_is_a_float_that_survives_pickling_and_json():
    number = schema.WrittenNumber("1.10")
    assert number == 1.1 and repr(number) == "1.10" and json.dumps(number) == "1.1"
    copied = pickle.loads(pickle.dumps(number))
    assert copied.text == "1.10" and copied == number


# -- 4. to_dict's output as plain JSON -------------------------------------------------------------------------------

JSON_CASES = [
    (datetime.date, "2024-03-05", "2024-03-05"),
    (datetime.datetime, "2024-03-05T10:00:00+02:00", "2024-03-05T10:00:00+02:00"),
    (datetime.time, "10:30:00", "10:30:00"),
    (decimal.Decimal, "12.50", "12.50"),
    (uuid.UUID, "12345678-1234-5678-1234-567812345678", "12345678-1234-5678-1234-567812345678"),
    (pathlib.Path, "/tmp/x", "/tmp/x"),
    (Invoice, '{"due": "2024-03-05", "total": "12.50"}', {"due": "2024-03-05", "total": "12.50"}),
    (list[datetime.date], '["2024-03-05"]', ["2024-03-05"]),
    (dict[str, uuid.UUID], '{"id": "12345678-1234-5678-1234-567812345678"}', None),
]


@pytest.mark.parametrize("output_type, answer, plain", JSON_CASES)
def test_to_dict_writes_the_output_as_json_values_that_read_back_as_the_type(output_type, answer, plain):
    agent = ToolCallingAgent("typed", ScriptedLLM([answer]), verbose=False)
    value = agent.run("?", output_type=output_type)
    written = agent.last_result.to_dict()["output"]
    assert json.loads(json.dumps(written)) == written  # plain JSON: json.dumps takes it as it is
    assert plain is None or written == plain
    assert OutputSpec(output_type).read(json.dumps(written)) == value


def test_plain_output_leaves_json_values_and_named_values_as_before():
    assert plain_output({"a": [1, 2.5, "x", None, True]}) == {"a": [1, 2.5, "x", None, True]}
    assert plain_output(decimal.Decimal("1.10")) == "1.10"


# -- 5. a simple type's constraints in its note --------------------------------------------------------------------


@pytest.mark.parametrize(
    "output_type, shown",
    [
        (Annotated[int, annotated_types.Ge(1), annotated_types.Le(5)], "a single integer value (minimum 1, maximum 5)"),
        (Annotated[str, pydantic.Field(pattern=r"^[A-Z]{3}$")], 'a single string value (pattern "^[A-Z]{3}$")'),
        (Annotated[float, pydantic.Field(gt=0)], "a single number value (exclusiveMinimum 0)"),
        ({"type": "integer", "minimum": 1}, "a single integer value (minimum 1)"),
        (int, "a single integer value,"),
        (decimal.Decimal, "a single decimal value,"),  # its own pattern is its form, not a constraint
    ],
)
def test_a_simple_type_s_note_and_re_ask_say_its_constraints(output_type, shown):
    llm = ScriptedLLM(["7", "3"])
    ToolCallingAgent("typed", llm, verbose=False).run("Rate the movie.", output_type=output_type)
    last = [request.messages[-1] for request in llm.requests]
    notes = [message["content"] if isinstance(message, dict) else message.content for message in last]
    assert shown in notes[0]
    if len(notes) > 1:  # 7 did not fit: the re-ask says the constraints too
        assert shown.rstrip(",") in notes[1]


def test_the_cli_gives_no_setting_hint_for_a_conversation_too_long_but_one_for_a_refused_role():
    from vero._console import NAME_THE_FAMILY, refused_hint

    assert refused_hint(LLMCallError("context too long", status=400, parameter="messages")) == ""
    assert NAME_THE_FAMILY in refused_hint(LLMCallError("no system role", status=400, parameter="messages[0].role"))


@pytest.mark.parametrize("output_type", [dict, dict[str, Any], list, Any])
def test_numbers_in_an_output_of_no_declared_number_type_are_plain_floats(output_type):
    text = "[1.10]" if output_type is list else '{"a": {"b": [1.10]}}'
    value = OutputSpec(output_type, 1).read(text)
    found = value[0] if output_type is list else value["a"]["b"][0]
    assert type(found) is float and repr(found) == "1.1"
