"""ToolCallingAgent: native tool calls until a text reply, streaming, budgets, history."""

import pytest

from vero import Tool, tool
from vero.agents import ToolCallingAgent
from vero.agents._native import EMPTY_ANSWER_NUDGE, EMPTY_NUDGE, MAX_NUDGES
from vero.agents.tool_calling import TOOL_CALLING_SYSTEM_PROMPT
from vero.core.agent import MalformedOutputError
from vero.core.result import Status
from vero.testing import ScriptedLLM

CALLS: list = []


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    CALLS.append(("add", a, b))
    return a + b


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    CALLS.append(("weather", city))
    return f"sunny in {city}"


@tool
def explode() -> str:
    """Always fails."""
    raise RuntimeError("no power")


@pytest.fixture(autouse=True)
def clear_calls():
    CALLS.clear()


def calls(*pairs, content=None):
    return {"content": content, "tool_calls": [{"name": n, "arguments": a} for n, a in pairs]}


def make(replies, **kwargs):
    llm = ScriptedLLM(list(replies))
    kwargs.setdefault("tools", [add, weather, explode])
    return ToolCallingAgent("chat", llm, verbose=False, **kwargs), llm


def test_happy_path_calls_a_tool_then_answers_in_text():
    agent, llm = make([calls(("add", {"a": 2, "b": 3})), "2 + 3 = 5"])
    assert agent.run("What is 2 + 3?") == "2 + 3 = 5"
    result = agent.last_result
    assert result.status == Status.OK and llm.calls == 2 and result.llm_calls == 2
    assert CALLS == [("add", 2, 3)]
    assert [s.kind for s in result.steps] == ["action", "observation", "final"]
    first = llm.requests[0]
    assert [m["role"] for m in first.messages] == ["system", "user"]
    assert first.messages[0]["content"] == TOOL_CALLING_SYSTEM_PROMPT
    assert [t["function"]["name"] for t in first.tools] == ["add", "weather", "explode"]
    sent = llm.requests[1].messages
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[3]["tool_call_id"] == sent[2]["tool_calls"][0]["id"] and sent[3]["content"] == "5"


def test_parallel_tool_calls_run_in_order_with_matching_ids():
    agent, llm = make(
        [
            calls(
                ("weather", {"city": "Oslo"}),
                ("weather", {"city": "Rome"}),
                ("add", '{"a": 1, "b": 1}'),
                content="Checking both.",
            ),
            "Both sunny.",
        ]
    )
    assert agent.run("Weather in Oslo and Rome?") == "Both sunny."
    assert CALLS == [("weather", "Oslo"), ("weather", "Rome"), ("add", 1, 1)]
    sent = llm.requests[1].messages
    ids = [c["id"] for c in sent[2]["tool_calls"]]
    assert len(set(ids)) == 3
    assert [(m["tool_call_id"], m["content"]) for m in sent[3:]] == [
        (ids[0], "sunny in Oslo"),
        (ids[1], "sunny in Rome"),
        (ids[2], "2"),
    ]
    assert [s.kind for s in agent.last_result.steps][0] == "thought"
    assert agent.last_result.steps[0].content == "Checking both."


def test_pure_chat_without_tools_sends_no_tools():
    llm = ScriptedLLM(["Hello there!"])
    agent = ToolCallingAgent("chat", llm, verbose=False)
    assert agent.run("hi") == "Hello there!"
    assert llm.calls == 1 and llm.requests[0].tools is None


def test_custom_system_prompt_replaces_the_default():
    agent, llm = make(["ok"], system_prompt="Answer in French.")
    agent.run("hi")
    assert llm.requests[0].messages[0] == {"role": "system", "content": "Answer in French."}


def test_history_after_two_runs_is_in_the_second_prompt():
    agent, llm = make(["Hi Ann!", "Your name is Ann."])
    agent.run("I am Ann.")
    assert agent.run("What is my name?") == "Your name is Ann."
    assert [(m["role"], m["content"]) for m in llm.requests[1].messages] == [
        ("system", TOOL_CALLING_SYSTEM_PROMPT),
        ("user", "I am Ann."),
        ("assistant", "Hi Ann!"),
        ("user", "What is my name?"),
    ]


def test_unknown_tool_and_raising_tool_become_tool_messages():
    agent, llm = make([calls(("nope", {}), ("explode", {})), "Sorry, that failed."])
    assert agent.run("go") == "Sorry, that failed." and agent.last_result.status == Status.OK and llm.calls == 2
    tool_messages = [m for m in llm.requests[1].messages if m["role"] == "tool"]
    assert tool_messages[0]["content"].startswith("Error: unknown tool 'nope'")
    assert "raised RuntimeError: no power" in tool_messages[1]["content"]
    assert [s.data["ok"] for s in agent.last_result.steps_of("observation")] == [False, False]


def test_max_turns_of_tool_calls_ends_with_one_call_without_tools():
    agent, llm = make([calls(("add", {"a": 1, "b": i})) for i in range(3)] + ["Gave up: 1 + 2 = 3"], max_turns=3)
    assert agent.run("keep adding") == "Gave up: 1 + 2 = 3"
    assert agent.last_result.status == Status.MAX_TURNS
    assert llm.calls == 4  # max_turns + 1
    assert llm.requests[3].options["tool_choice"] == "none"
    assert "tool_choice" not in llm.requests[2].options
    assert len(CALLS) == 3


def test_max_turns_with_an_empty_final_reply_returns_the_latest_text():
    agent, llm = make([calls(("add", {"a": 1, "b": 1}), content="Adding first."), ""], max_turns=1)
    assert agent.run("go") == "Adding first."
    assert agent.last_result.status == Status.MAX_TURNS and llm.calls == 2


def test_on_token_streams_the_answer():
    tokens = []
    agent, llm = make([calls(("add", {"a": 2, "b": 2})), "The sum is 4."])
    assert agent.run("2 + 2?", on_token=tokens.append) == "The sum is 4."
    assert "".join(tokens) == "The sum is 4."
    assert len(tokens) > 1


def test_empty_input_fails_without_a_model_call():
    agent, llm = make(["never"])
    assert agent.run("") == ""
    assert agent.last_result.status == Status.FAILED and llm.calls == 0


LOOKUPS = [Tool(add, read_only=True), Tool(weather, read_only=True)]


def test_replies_of_whitespace_only_end_failed_with_no_answer_kept():
    agent, _ = make(["  \n\t ", " ", "\n"])
    assert agent.run("say hi") == "" and agent.last_result.status == Status.FAILED
    assert agent.last_result.answer == ""  # whitespace is no partial answer


def test_an_empty_reply_is_asked_again_with_the_task():
    agent, llm = make(["", "Hello!"], tools=LOOKUPS)
    assert agent.run("say hi") == "Hello!" and agent.last_result.status == Status.OK
    nudge = llm.requests[1].messages[-1]["content"]
    assert nudge.startswith(EMPTY_NUDGE) and nudge.endswith("The task: say hi")


def test_an_empty_reply_is_not_nudged_toward_a_call_when_every_tool_may_change_things():
    agent, llm = make(["", "Hello!"])  # add, weather and explode are unmarked: each may change things
    assert agent.run("say hi") == "Hello!"
    assert llm.requests[1].messages[-1]["content"].startswith(EMPTY_ANSWER_NUDGE)


def test_an_empty_reply_mid_chain_is_asked_for_the_next_call_first():
    # seen with Qwen2.5-Coder-1.5B: after the second of three lookups the reply was empty (one token);
    # asked "give the final answer ... or call the tool", it answered with a value from the wrong result
    replies = [calls(("weather", {"city": "Oslo"})), "", calls(("add", {"a": 2, "b": 2})), "4, sunny"]
    agent, llm = make(replies, tools=LOOKUPS)
    assert agent.run("Weather in Oslo, and 2 + 2?") == "4, sunny"
    nudge = llm.requests[2].messages[-1]["content"]
    assert nudge.startswith("Your reply was empty. Call the tool you still need, or give the final answer")
    assert CALLS == [("weather", "Oslo"), ("add", 2, 2)]


def test_empty_replies_past_the_nudges_fail_the_run():
    agent, llm = make([""] * (MAX_NUDGES + 1))
    assert agent.run("hi") == ""
    assert agent.last_result.status == Status.FAILED and llm.calls == MAX_NUDGES + 1
    assert isinstance(agent.last_result.error, MalformedOutputError)
    assert agent.history == []


def test_think_blocks_stay_out_of_the_answer():
    agent, llm = make(["<think>they want a greeting</think>Hello!"])
    assert agent.run("hi") == "Hello!"
    assert agent.last_result.steps_of("thinking")[0].content == "they want a greeting"
    assert agent.history[-1].content == "Hello!"


def test_end_to_end_through_chat_openai_and_the_mock_server_with_streaming():
    pytest.importorskip("vero._mock_server")
    from vero.core.chat_openai import ChatOpenAI
    from vero.testing import MockOpenAIServer

    tokens = []
    with MockOpenAIServer([calls(("weather", {"city": "Oslo"})), "It is sunny in Oslo."]) as srv:
        llm = ChatOpenAI(api_key="test", base_url=srv.base_url, model_name="m", max_retries=0)
        agent = ToolCallingAgent("e2e", llm, tools=[weather], verbose=False)
        assert agent.run("Weather in Oslo?", on_token=tokens.append) == "It is sunny in Oslo."
        assert "".join(tokens) == "It is sunny in Oslo."
        assert agent.last_result.status == Status.OK and len(srv.requests) == 2
        assert srv.requests[0]["tools"][0]["function"]["name"] == "weather"
        sent = srv.requests[1]["messages"]
        assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
        assert sent[3]["content"] == "sunny in Oslo"
        assert sent[3]["tool_call_id"] == sent[2]["tool_calls"][0]["id"]
        assert CALLS == [("weather", "Oslo")]


def _raw_calls(*calls):
    """A chat completion body whose tool calls are written exactly as given (a server's own shape)."""
    message = {"role": "assistant", "content": None, "tool_calls": list(calls)}
    choice = {"index": 0, "finish_reason": "tool_calls", "message": message}
    return {"raw": {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice]}}


def _weather_call(city, **fields):
    return {"type": "function", "function": {"name": "weather", "arguments": f'{{"city": "{city}"}}'}, **fields}


@pytest.mark.parametrize("ids", [{}, {"id": None}, {"id": ""}, {"id": "same"}])
def test_tool_calls_a_server_sends_without_ids_of_their_own_get_ids_so_results_can_be_told_apart(ids):
    pytest.importorskip("vero._mock_server")
    from vero.core.chat_openai import ChatOpenAI
    from vero.testing import MockOpenAIServer

    with MockOpenAIServer([_raw_calls(_weather_call("Oslo", **ids), _weather_call("Rome", **ids)), "done"]) as srv:
        llm = ChatOpenAI(api_key="test", base_url=srv.base_url, model_name="m", max_retries=0)
        assert ToolCallingAgent("ids", llm, tools=[weather], verbose=False).run("Oslo and Rome?") == "done"
        sent = srv.requests[1]["messages"]
    ids_sent = [call["id"] for call in sent[2]["tool_calls"]]
    assert len(set(ids_sent)) == 2 and all(ids_sent)
    assert [message["tool_call_id"] for message in sent[3:]] == ids_sent


def test_a_tool_result_holding_text_no_utf8_can_carry_reaches_the_model_with_a_replacement_mark():
    pytest.importorskip("vero._mock_server")
    from vero.core.chat_openai import ChatOpenAI
    from vero.testing import MockOpenAIServer

    @tool(read_only=True)
    def list_folder(path: str) -> list:
        """List a folder."""
        return ["caf\udce9.txt"]  # os.listdir's reading of a file name that is no UTF-8

    @tool(read_only=True)
    def open_file(path: str) -> str:
        """Open a file."""
        raise FileNotFoundError("no such file: 'caf\udce9.txt'")

    first = {"tool_calls": [{"name": "list_folder", "arguments": {"path": "."}}]}
    second = {"tool_calls": [{"name": "open_file", "arguments": {"path": "x"}}]}
    with MockOpenAIServer([first, second, "done"]) as srv:
        llm = ChatOpenAI(api_key="test", base_url=srv.base_url, model_name="m", max_retries=0)
        agent = ToolCallingAgent("files", llm, tools=[list_folder, open_file], verbose=False)
        assert agent.run("What is in the folder?") == "done" and agent.last_result.status == Status.OK
        results = [message["content"] for message in srv.requests[2]["messages"] if message["role"] == "tool"]
    assert results[0] == '["caf\ufffd.txt"]' and "caf\ufffd.txt" in results[1]


def test_ids_vero_gives_differ_from_one_reply_to_the_next():
    pytest.importorskip("vero._mock_server")
    from vero.core.chat_openai import ChatOpenAI
    from vero.testing import MockOpenAIServer

    replies = [_raw_calls(_weather_call("Oslo")), _raw_calls(_weather_call("Rome")), "done"]
    with MockOpenAIServer(replies) as srv:
        llm = ChatOpenAI(api_key="test", base_url=srv.base_url, model_name="m", max_retries=0)
        agent = ToolCallingAgent("ids", llm, tools=[weather], verbose=False)
        ids = []
        agent.events.callbacks.append(
            lambda event: ids.append(event.data["call_id"]) if event.type == "tool_call" else None
        )
        assert agent.run("Oslo, then Rome?") == "done"
    assert len(ids) == 2 and len(set(ids)) == 2


def _chunk(delta, finish=None):
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [choice]}


def _streamed_piece(call_id, name=None, arguments=""):
    function = {"arguments": arguments, **({"name": name} if name else {})}
    return _chunk({"tool_calls": [{"index": 0, **({"id": call_id} if call_id else {}), "function": function}]})


STREAM_SHAPES = {  # how servers stream calls at one index, and the calls the model wrote
    "every call at index 0, each under its own id": (
        [_streamed_piece("a", "weather", '{"city": "Oslo"}'), _streamed_piece("b", "weather", '{"city": "Rome"}')],
        [("weather", "Oslo"), ("weather", "Rome")],
    ),
    "two calls at index 0, no ids": (
        [_streamed_piece(None, "forecast", "{}"), _streamed_piece(None, "weather", '{"city": "Oslo"}')],
        [("weather", "Oslo")],  # forecast is no tool here: an observation says so
    ),
    "the id changes in mid-call": (
        [_streamed_piece("a", "weather", '{"city": "Os'), _streamed_piece("b", None, 'lo"}')],
        [("weather", "Oslo")],
    ),
    "the id changes after the name": (  # the first piece alone would run the tool with its defaults
        [_streamed_piece("a", "weather", ""), _streamed_piece("b", None, '{"city": "Oslo"}')],
        [("weather", "Oslo")],
    ),
    "the id changes and the name comes again": (
        [_streamed_piece("a", "weather", ""), _streamed_piece("b", "weather", '{"city": "Oslo"}')],
        [("weather", "Oslo")],
    ),
    "the name in every piece": (
        [_streamed_piece("a", "weather", '{"city": "Os'), _streamed_piece("a", "weather", 'lo"}')],
        [("weather", "Oslo")],
    ),
    "the name in every piece, no ids": (
        [_streamed_piece(None, "weather", '{"city": "Os'), _streamed_piece(None, "weather", 'lo"}')],
        [("weather", "Oslo")],
    ),
    "the name sent in parts": (
        [_streamed_piece("a", "wea"), _streamed_piece(None, "ther", '{"city": "Oslo"}')],
        [("weather", "Oslo")],
    ),
}


@pytest.mark.parametrize("shape", STREAM_SHAPES)
def test_streamed_calls_at_one_index_are_the_calls_the_model_wrote_and_no_others(shape):
    pytest.importorskip("vero._mock_server")
    from vero.core.chat_openai import ChatOpenAI
    from vero.testing import MockOpenAIServer

    pieces, calls = STREAM_SHAPES[shape]
    CALLS.clear()
    with MockOpenAIServer([{"raw": [*pieces, _chunk({}, "tool_calls")]}, "done"]) as srv:
        llm = ChatOpenAI(api_key="test", base_url=srv.base_url, model_name="m", max_retries=0)
        agent = ToolCallingAgent("s", llm, tools=[weather], verbose=False)
        assert agent.run("Weather?", on_token=lambda token: None) == "done"
    assert CALLS == calls
    written = 2 if shape.startswith(("every call", "two calls")) else 1
    assert len(agent.last_result.steps_of("action")) == written  # no half of a call made a call of its own
