"""ReActAgent(protocol="guided"): JSON steps a schema constrains, "auto", and the fallback to text."""

import json
import logging

import pytest
from mock_pool import pooled_mock_server

from vero import tool
from vero.agents import PlanExecuteAgent, ReActAgent, ReflexionAgent
from vero.agents._guided import (
    ANSWER_NOW_NOTE,
    ANSWERED,
    GUIDED_ERROR_PROMPT,
    GUIDED_PROMPT,
    MAX_REPEATED_CALLS,
    REPEATED_CALL_NOTE,
    grammar_schema,
    is_strict,
    response_format,
    step_schema,
)
from vero.agents.react import FINAL_ANSWER_PROMPT, REACT_FORMAT_PROMPT, REACT_SYSTEM_PROMPT
from vero.core.agent import CUT_OFF
from vero.core.capabilities import json_schema_support
from vero.core.chat_openai import ChatOpenAI
from vero.core.result import Status
from vero.errors import LLMCallError
from vero.testing import HTTPFault, MockOpenAIServer, ScriptedLLM
from vero.tools import ToolRegistry

CALLS: list = []


@tool(read_only=True)
def add(a: int, b: int = 0) -> int:
    """Add two integers.

    Args:
        a: the first number.
        b: the second number.
    """
    CALLS.append(("add", a, b))
    return a + b


@tool
def reserve(room: str, guests: int) -> str:
    """Reserve a meeting room (changes the booking sheet).

    Args:
        room: the room's code.
        guests: how many people come.
    """
    CALLS.append(("reserve", room, guests))
    if room != "R-7":
        return f"Error: no room {room!r}. Did you mean 'R-7'?"
    return f"reserved {room} for {guests}"


@pytest.fixture(autouse=True)
def clear_calls():
    CALLS.clear()


def call(name, thought="I need a tool", **arguments):
    return json.dumps({"thought": thought, "step": {ANSWERED: False, "tool": name, "arguments": arguments}})


def final(answer, thought="The results answer the task"):
    return json.dumps({"thought": thought, "step": {ANSWERED: True, "final_answer": answer}})


def make(replies, **kwargs):
    llm = ScriptedLLM(list(replies))
    kwargs.setdefault("tools", [add, reserve])
    return ReActAgent("guided", llm, protocol="guided", verbose=False, **kwargs), llm


def schema_sent(request):
    return request.options["response_format"]["json_schema"]["schema"]


def choices(schema):
    step = schema["properties"]["step"]
    return step.get("anyOf", [step])


def warnings(agent):
    return [s for s in agent.last_result.steps if s.kind == "warning"]


# -- the schema ----------------------------------------------------------------------------
def test_step_schema_has_the_thought_first_then_one_branch_per_tool_then_the_final_answer():
    schema = step_schema(ToolRegistry([add, reserve]))
    assert list(schema["properties"]) == ["thought", "step"] and schema["required"] == ["thought", "step"]
    assert schema["properties"]["thought"] == {"type": "string"} and schema["additionalProperties"] is False
    branches = choices(schema)
    assert [b["properties"].get("tool") for b in branches] == [{"const": "add"}, {"const": "reserve"}, None]
    for branch in branches[:2]:
        assert list(branch["properties"]) == [ANSWERED, "tool", "arguments"]
        assert branch["properties"][ANSWERED] == {"const": False} and branch["additionalProperties"] is False
    assert branches[2]["properties"] == {ANSWERED: {"const": True}, "final_answer": {"type": "string"}}
    assert branches[2]["required"] == [ANSWERED, "final_answer"]


def test_a_call_branch_carries_the_tools_argument_schema_without_its_defaults():
    arguments = choices(step_schema(ToolRegistry([add])))[0]["properties"]["arguments"]
    assert arguments == {
        "type": "object",
        "required": ["a"],
        "additionalProperties": False,
        "properties": {
            "a": {"type": "integer", "description": "the first number."},
            "b": {"type": "integer", "description": "the second number."},
        },
    }
    assert "default" in add.parameters["properties"]["b"]  # the tool's own schema is left as it is


def test_the_answer_only_schema_has_no_call_branch():
    schema = step_schema(ToolRegistry([add, reserve]), calls=False)
    assert "anyOf" not in schema["properties"]["step"]
    assert list(schema["properties"]["step"]["properties"]) == [ANSWERED, "final_answer"]


def test_no_tools_offers_only_the_final_answer():
    assert choices(step_schema(ToolRegistry([]))) == choices(step_schema(ToolRegistry([add]), calls=False))


def test_grammar_schema_keeps_the_common_subset_and_writes_out_local_references():
    schema = {
        "type": "object",
        "title": "Args",
        "$defs": {
            "Colour": {"enum": ["red", "blue"], "title": "Colour"},
            "Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}},
        },
        "properties": {
            "code": {
                "type": "string",
                "pattern": "^[A-Z]+-\\d+$",
                "format": "uuid",
                "examples": ["AB-12"],
                "minLength": 2,
            },
            "colour": {"$ref": "#/$defs/Colour", "default": "red"},
            "size": {"oneOf": [{"type": "integer", "minimum": 1, "maximum": 9}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"type": "string", "format": "email"}, "maxItems": 3},
            "tree": {"$ref": "#/$defs/Node"},
            "remote": {"$ref": "https://example.org/schema.json"},
        },
        "required": ["code"],
        "additionalProperties": False,
    }
    assert grammar_schema(schema) == {
        "type": "object",
        "required": ["code"],
        "additionalProperties": False,
        "properties": {
            "code": {"type": "string"},
            "colour": {"enum": ["red", "blue"]},
            "size": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 9}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "tree": {"type": "object", "properties": {"child": {}}, "additionalProperties": True},  # recursive:
            # the second level is any value
            "remote": {},
        },
    }


def test_an_object_that_does_not_close_its_keys_says_it_takes_others():
    @tool
    def note(**fields) -> str:
        """Save a note with any fields."""
        return "saved"

    arguments = choices(step_schema(ToolRegistry([note])))[0]["properties"]["arguments"]
    assert arguments == {"type": "object", "properties": {}, "required": [], "additionalProperties": True}


def test_strict_is_asked_only_for_a_schema_that_fits_strict_mode():
    closed = step_schema(ToolRegistry([reserve]))  # every argument required
    open_ = step_schema(ToolRegistry([add]))  # b is optional
    assert is_strict(closed) and response_format(closed)["json_schema"]["strict"] is True
    assert not is_strict(open_) and response_format(open_)["json_schema"]["strict"] is False
    assert response_format(closed)["type"] == "json_schema" and response_format(closed)["json_schema"]["name"]


def test_system_prompt_is_the_intro_then_the_guided_prompt_with_the_tools():
    agent, _ = make([])
    instructions = GUIDED_PROMPT.format(tools=agent.tools.describe(), answered=ANSWERED)
    assert agent.build_system_prompt() == f"{REACT_SYSTEM_PROMPT}\n\n{instructions}"


# -- runs ----------------------------------------------------------------------------------
def test_a_call_then_its_observation_then_the_final_answer_costs_two_calls():
    agent, llm = make([call("add", a=2, b=3), final("5")])
    assert agent.run("What is 2 + 3?") == "5"
    result = agent.last_result
    assert result.status == Status.OK and llm.calls == result.llm_calls == 2
    assert CALLS == [("add", 2, 3)]
    assert all(schema_sent(request) == step_schema(agent.tools) for request in llm.requests)
    second = llm.requests[1].messages
    assert second[-2] == {"role": "assistant", "content": call("add", a=2, b=3)}
    assert second[-1] == {"role": "user", "content": "Observation: 5"}
    assert [s.kind for s in result.steps] == ["thought", "action", "observation", "thought", "final"]


def test_a_reply_that_is_not_json_gets_one_correction_and_the_run_goes_on():
    agent, llm = make(["The answer is probably 5.", call("add", a=2, b=3), final("5")])
    assert agent.run("What is 2 + 3?") == "5"
    assert agent.last_result.status == Status.OK and llm.calls == 3
    correction = llm.requests[1].messages[-1]["content"]
    assert correction == GUIDED_ERROR_PROMPT.format(
        problem="the reply contains no JSON object", names="add, reserve", answered=ANSWERED
    )
    assert [w.content for w in warnings(agent)] == ["malformed reply: the reply contains no JSON object"]


def test_replies_that_stay_unreadable_end_the_run_failed_after_max_format_errors():
    agent, llm = make(["I think 5.", '{"answer": 5}', "Still 5."])
    assert agent.run("What is 2 + 3?") == ""
    result = agent.last_result
    assert result.status == Status.FAILED and llm.calls == 3 == agent.max_format_errors
    assert "3 malformed replies in a row" in str(result.error) and CALLS == []


def test_a_cut_off_reply_is_asked_again_shorter():
    agent, llm = make([{"content": '{"thought": "first I', "finish_reason": "length"}, final("5")])
    assert agent.run("What is 2 + 3?") == "5"
    assert llm.calls == 2 and CUT_OFF in llm.requests[1].messages[-1]["content"]


def test_a_number_as_the_final_answer_from_a_server_without_the_schema_is_read_as_text():
    agent, llm = make(['{"thought": "easy", "step": {"final_answer": 5}}'])
    assert agent.run("What is 2 + 3?") == "5" and llm.calls == 1


def test_an_object_as_the_final_answer_is_read_as_its_json_for_a_typed_run():
    agent, llm = make(['{"thought": "found", "step": {"final_answer": {"city": "Oslo", "size": 709000}}}'])
    assert agent.run("Which city, how big?", output_type=dict[str, int | str]) == {"city": "Oslo", "size": 709000}
    assert llm.calls == 1


def test_an_empty_final_answer_is_asked_again():
    agent, llm = make([final("  "), final("5")])
    assert agent.run("What is 2 + 3?") == "5"
    assert llm.calls == 2 and "the final answer was empty" in llm.requests[1].messages[-1]["content"]


def test_a_call_that_worked_is_not_run_again_and_its_earlier_result_comes_back():
    agent, llm = make([call("add", a=2, b=3), call("add", a=2, b=3), final("5")])
    assert agent.run("What is 2 + 3?") == "5"
    assert CALLS == [("add", 2, 3)] and llm.calls == 3
    assert llm.requests[2].messages[-1]["content"] == f"Observation: 5\n{REPEATED_CALL_NOTE}"
    assert "not run again" in warnings(agent)[0].content
    assert choices(schema_sent(llm.requests[2])) == choices(step_schema(agent.tools))  # calls still on offer


def test_after_two_repeats_only_the_final_answer_is_offered():
    replies = [call("add", a=2, b=3), call("add", a=2, b=3), call("add", a=1), call("add", a=2, b=3), final("5")]
    agent, llm = make(replies)
    assert agent.run("What is 2 + 3?") == "5"
    assert CALLS == [("add", 2, 3), ("add", 1, 0)] and llm.calls == 5
    offered = [len(choices(schema_sent(request))) for request in llm.requests]
    assert offered == [3, 3, 3, 3, 1]  # MAX_REPEATED_CALLS repeats: then the answer only
    assert MAX_REPEATED_CALLS == 2
    assert llm.requests[4].messages[-1]["content"] == f"Observation: 5\n{ANSWER_NOW_NOTE}"


def test_a_tool_that_changes_things_runs_only_with_the_models_own_arguments():
    agent, llm = make(
        [
            call("reserve", room="R-9", guests=4),
            call("reserve", room="R-9", guests=4),
            call("reserve", room="R-7", guests=4),
            call("reserve", room="R-7", guests=4),
            final("Reserved R-7 for 4."),
        ]
    )
    assert agent.run("Reserve a room for 4.") == "Reserved R-7 for 4."
    # the failed call is not repeated, no call is made that the model did not write, and the call
    # that worked is not made twice
    assert CALLS == [("reserve", "R-9", 4), ("reserve", "R-7", 4)] and llm.calls == 5
    actions = [s.data for s in agent.last_result.steps if s.kind == "action"]
    assert [(a["tool"], a["args"]) for a in actions] == [("reserve", {"room": "R-9", "guests": 4})] * 2 + [
        ("reserve", {"room": "R-7", "guests": 4})
    ]


def test_a_failed_call_repeated_in_a_row_is_not_run_again_and_the_fourth_ends_the_run():
    agent, llm = make([call("reserve", room="R-9", guests=2)] * 4)
    assert agent.run("Reserve a room for 2.") == "I need a tool"  # the best partial answer: the last thought
    result = agent.last_result
    assert result.status == Status.MAX_TURNS and llm.calls == 4 and CALLS == [("reserve", "R-9", 2)]
    observations = [m["content"] for m in llm.requests[3].messages if m["role"] == "user"][1:]
    assert observations[1].startswith("Observation: Not run: you made this exact call before and it failed")
    assert "repeated the same action with the same input 3 times" in observations[2]


def test_a_call_of_an_unknown_tool_from_a_server_that_ignores_the_schema_is_an_observation():
    agent, llm = make([call("plus", a=2, b=3), call("add", a=2, b=3), final("5")])
    assert agent.run("What is 2 + 3?") == "5"
    assert llm.calls == 3 and CALLS == [("add", 2, 3)]
    observation = llm.requests[1].messages[-1]["content"]
    assert observation.startswith("Observation: ") and "unknown tool 'plus'" in observation and "add" in observation


def test_out_of_turns_the_final_answer_call_is_free_text_and_its_json_answer_is_read():
    agent, llm = make([call("add", a=1, b=1), call("add", a=2, b=2), final("4")], max_turns=2)
    assert agent.run("Add things.") == "4"
    result = agent.last_result
    assert result.status == Status.MAX_TURNS and llm.calls == 3
    assert "response_format" not in llm.requests[2].options
    assert llm.requests[2].messages[-1]["content"] == FINAL_ANSWER_PROMPT


def test_a_run_with_a_guided_step_keeps_the_answer_in_history():
    agent, llm = make([final("hello")])
    agent.run("Say hello.")
    assert [m.text for m in agent.history] == ["Say hello.", "hello"]


# -- auto ----------------------------------------------------------------------------------
@pytest.mark.parametrize("json_schema", [True, False])
def test_auto_is_text_for_a_local_model_even_where_its_server_supports_json_schema(json_schema):
    llm = ScriptedLLM(
        ['Thought: add\nAction: add\nAction Input: {"a": 2, "b": 3}', "Final Answer: 5"], json_schema=json_schema
    )
    agent = ReActAgent("auto", llm, tools=[add], protocol="auto", verbose=False)
    assert agent.run("What is 2 + 3?") == "5" and CALLS == [("add", 2, 3)]
    assert agent.run_protocol == "text" and llm.calls == 2
    assert [("response_format" in r.options, r.tools) for r in llm.requests] == [(False, None)] * 2


@pytest.mark.parametrize("json_schema", [True, False])
def test_auto_is_native_for_a_hosted_model(json_schema):
    native_call = {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}
    llm = ScriptedLLM([native_call, "The sum is 5."], hosted=True, json_schema=json_schema)
    agent = ReActAgent("auto", llm, tools=[add], protocol="auto", verbose=False)
    assert agent.run("What is 2 + 3?") == "The sum is 5." and CALLS == [("add", 2, 3)]
    assert agent.run_protocol == "native" and llm.calls == 2
    assert all(r.tools and "response_format" not in r.options for r in llm.requests)


def test_auto_with_a_client_that_cannot_say_is_text():
    class Plain:
        def generate(self, messages, **options):
            return ScriptedLLM(["Final Answer: 5"]).generate(messages, **options)

    agent = ReActAgent("auto", Plain(), tools=[add], protocol="auto", verbose=False)
    assert agent.run_protocol == "text" and agent.run("What is 2 + 3?") == "5"


def test_plan_and_execute_with_auto_runs_its_steps_as_text_on_a_local_model():
    plan = json.dumps({"steps": ["Add 2 and 3 with add"]})
    step = 'Thought: add\nAction: add\nAction Input: {"a": 2, "b": 3}'
    llm = ScriptedLLM([plan, step, "Final Answer: 5", json.dumps({"response": "The sum is 5."})], json_schema=True)
    agent = PlanExecuteAgent("pe", llm, tools=[add], protocol="auto", verbose=False)
    assert agent.run("What is 2 + 3?") == "The sum is 5." and CALLS == [("add", 2, 3)]
    assert [("response_format" in r.options) for r in llm.requests[1:3]] == [False, False]


def test_an_unknown_protocol_names_the_four():
    with pytest.raises(ValueError, match="'text', 'native', 'guided' or 'auto'"):
        ReActAgent("x", ScriptedLLM([]), protocol="json")


# -- other patterns use it -----------------------------------------------------------------
def test_plan_and_execute_runs_its_steps_with_the_guided_protocol():
    llm = ScriptedLLM(
        [
            json.dumps({"steps": ["Add 2 and 3 with add"]}),
            call("add", a=2, b=3),
            final("5"),
            json.dumps({"response": "The sum is 5."}),
        ]
    )  # the replanner answers
    agent = PlanExecuteAgent("pe", llm, tools=[add], protocol="guided", verbose=False)
    assert agent.run("What is 2 + 3?") == "The sum is 5."
    assert agent.last_result.status == Status.OK and llm.calls == 4 and CALLS == [("add", 2, 3)]
    assert [("response_format" in r.options) for r in llm.requests] == [False, True, True, False]


def test_reflexion_runs_its_attempts_with_the_guided_protocol():
    verdict = json.dumps({"pass": True, "reason": "right", "score": 100})
    llm = ScriptedLLM([call("add", a=2, b=3), final("5"), verdict])
    agent = ReflexionAgent("rx", llm, tools=[add], protocol="guided", verbose=False)
    assert agent.run("What is 2 + 3?") == "5"
    assert agent.last_result.status == Status.OK and llm.calls == 3 and CALLS == [("add", 2, 3)]
    assert [("response_format" in r.options) for r in llm.requests] == [True, True, False]


# -- over real HTTP ------------------------------------------------------------------------
def http_llm(server, **kwargs):
    return ChatOpenAI(model_name="mock", api_key="sk-test", base_url=server.base_url, max_retries=0, **kwargs)


def test_guided_steps_over_real_http_send_the_schema_and_read_json_replies():
    replies = [{"json": json.loads(call("add", a=2, b=3))}, {"json": json.loads(final("5"))}]
    with pooled_mock_server(replies) as server:
        agent = ReActAgent("g", http_llm(server), tools=[add], protocol="guided", verbose=False)
        assert agent.run("What is 2 + 3?") == "5"
        sent = [request["response_format"] for request in server.requests]
    assert agent.last_result.llm_calls == 2 and CALLS == [("add", 2, 3)]
    assert sent == [response_format(step_schema(agent.tools))] * 2


def test_a_server_that_rejects_response_format_gets_the_text_protocol_for_the_rest_of_the_run(caplog):
    replies = ['Thought: add\nAction: add\nAction Input: {"a": 2, "b": 3}', "Final Answer: 5"]
    with pooled_mock_server(replies, reject_response_format=True) as server, caplog.at_level(logging.WARNING):
        agent = ReActAgent("g", http_llm(server), tools=[add], protocol="guided", verbose=False)
        assert agent.run("What is 2 + 3?") == "5"
        requests = list(server.requests)
    result = agent.last_result
    assert result.status == Status.OK and result.llm_calls == 2 and len(requests) == 3  # the refused one, then two
    assert CALLS == [("add", 2, 3)]  # the text step after the refusal is read as a text step
    assert [s.kind for s in result.steps] == ["warning", "thought", "action", "observation", "final"]
    assert ["response_format" in r for r in requests] == [True, False, False]
    assert requests[1]["messages"][0]["content"].endswith(
        REACT_FORMAT_PROMPT.format(tools=agent.tools.describe(), names="add, Finish")
    )
    fallbacks = [w for w in warnings(agent) if w.data.get("fallback") == "text"]
    assert len(fallbacks) == 1 and fallbacks[0].data["http_status"] == 400
    assert "this run goes on with the text protocol" in caplog.text
    assert agent.run_protocol == "guided"  # the next run tries the schema again


def test_after_a_refusal_the_next_guided_run_sends_the_schema_again():
    refusal = LLMCallError("model call failed (HTTP 400): response_format is not supported", status=400)
    llm = ScriptedLLM([refusal, "Final Answer: 5", final("6")], json_schema=True)
    agent = ReActAgent("guided", llm, tools=[add], protocol="guided", verbose=False)
    assert agent.run("What is 2 + 3?") == "5" and len(warnings(agent)) == 1
    assert agent.run("What is 3 + 3?") == "6" and not warnings(agent)
    assert ["response_format" in r.options for r in llm.requests] == [True, False, True]


def test_a_server_error_that_is_not_a_refusal_fails_the_run_without_a_fallback():
    with pooled_mock_server([HTTPFault(401, "bad key")]) as server:
        agent = ReActAgent("g", http_llm(server), tools=[add], protocol="guided", verbose=False)
        assert agent.run("What is 2 + 3?") == ""
        requests = len(server.requests)
    assert agent.last_result.status == Status.FAILED and requests == 1 and not warnings(agent)


# -- the capability check ------------------------------------------------------------------
def route(body):
    return lambda request: (200, {}, body)


@pytest.mark.parametrize(
    ("path", "body", "supported"),
    [
        ("/props", {"default_generation_settings": {}, "total_slots": 1}, True),  # llama.cpp
        ("/api/version", {"version": "0.5.7"}, True),  # Ollama with structured outputs
        ("/api/version", {"version": "0.4.2"}, False),  # Ollama before them
        ("/version", {"version": "0.8.5"}, True),  # vLLM
    ],
)
def test_supports_json_schema_probes_the_local_server_once(path, body, supported):
    with pooled_mock_server() as server:
        server.add_route("GET", path, route(body))
        llm = http_llm(server)
        assert llm.supports_json_schema() is supported
        assert llm.supports_json_schema() is supported
        probes = [r.url_path for r in server.request_log]
    assert probes.count(probes[-1]) == 1 and probes[-1] == path  # asked once per client, stopped at the answer
    assert all(r == "/props" or r in ("/api/version", "/version") for r in probes)


def test_an_unknown_server_is_no_and_a_server_that_does_not_answer_is_no():
    with pooled_mock_server() as server:
        assert http_llm(server).supports_json_schema() is False  # every probe: 404
        assert [r.url_path for r in server.request_log] == ["/props", "/api/version", "/version"]
    with MockOpenAIServer() as gone:
        url = gone.base_url
    assert json_schema_support(url, timeout=0.5) is False  # nothing listens: no second probe, no exception


@pytest.mark.parametrize(
    ("base_url", "supported"),
    [
        ("https://api.openai.com/v1", True),
        ("https://api.deepseek.com", False),
        ("https://ollama.com/v1", False),
        (None, True),
        ("file:///etc/v1", False),
    ],
)
def test_hosted_endpoints_are_known_by_host_without_a_request(base_url, supported):
    assert json_schema_support(base_url) is supported


# -- the mock server's parts ---------------------------------------------------------------
def test_the_mock_server_rejects_response_format_without_using_up_a_reply():
    from openai import BadRequestError, OpenAI

    with pooled_mock_server(["plain"], reject_response_format="no schemas here") as server:
        client = OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        with pytest.raises(BadRequestError, match="no schemas here"):
            client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], response_format={"type": "json_object"}
            )
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "plain"


def test_the_mock_server_sends_a_json_reply_as_the_content():
    with pooled_mock_server([{"json": {"a": [1, "b"]}}]) as server:
        message = http_llm(server).generate([{"role": "user", "content": "hi"}])
    assert json.loads(message.text) == {"a": [1, "b"]}
    with pytest.raises(ValueError, match="not both"):
        MockOpenAIServer([{"json": {}, "content": "x"}])
