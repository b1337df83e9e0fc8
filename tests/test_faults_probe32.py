"""Replies a server broke off, said so in a way other than ``length``, through the real openai client over real
HTTP: a finish reason of its own (vLLM's, DeepSeek's, OpenRouter's, Mistral's), an error line or event inside a
stream, an error object beside the reply.  None of them is an answer; and the reply that goes past the token
budget is kept where the user can read it."""

from __future__ import annotations

import json

import pytest
from test_chat_openai_bad_bodies import chunk, close_delimited, make_llm, sse

from vero import LLMCallError, Message
from vero.agents import PlanExecuteAgent, ToolCallingAgent
from vero.core.result import Status
from vero.testing import HTTPFault, ScriptedLLM
from vero.tools import tool

BROKEN_OFF = ["abort", "error", "insufficient_system_resource", "repetition"]  # as docs/reliability.md names them


@pytest.fixture
def server(shared_mock_server):
    return shared_mock_server


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("reason", BROKEN_OFF)
def test_a_reply_the_server_broke_off_is_an_error_not_an_answer(server, reason, stream):
    server.enqueue({"content": "The capital of France is", "finish_reason": reason})
    with pytest.raises(LLMCallError, match=f"broke the reply off unfinished \\(finish_reason {reason}\\)"):
        make_llm(server.base_url).generate([Message.user("hi")], on_token=(lambda _: None) if stream else None)


def test_a_run_whose_reply_was_broken_off_fails_and_keeps_no_history(server):
    server.enqueue({"content": "The capital of France is", "finish_reason": "insufficient_system_resource"})
    agent = ToolCallingAgent("a", make_llm(server.base_url), verbose=False)
    agent.run("What is the capital of France?")
    assert agent.last_result.status == Status.FAILED and agent.history == []


def test_a_broken_off_reply_of_a_model_client_of_ones_own_fails_the_run_too():
    agent = ToolCallingAgent("a", ScriptedLLM([{"content": "21", "finish_reason": "error"}]), verbose=False)
    assert agent.run("How old?", output_type=int) is None
    assert agent.last_result.status == Status.FAILED and "finish_reason error" in str(agent.last_result.error)


def test_a_plan_broken_off_mid_step_is_not_run():
    deleted = []

    @tool
    def delete_files(folder: str) -> str:
        """Delete every file in a folder."""
        deleted.append(folder)
        return "deleted"

    cut_plan = {"content": '{"steps": ["Delete with delete_files the files in /srv', "finish_reason": "abort"}
    step = 'Thought: as the step says\nAction: delete_files\nAction Input: {"folder": "/srv"}'
    agent = PlanExecuteAgent("p", ScriptedLLM([cut_plan, step, "Final Answer: done"]), tools=[delete_files])
    agent.verbose = False
    agent.run("Delete the files in /srv/app/cache/tmp.")
    assert deleted == [] and agent.last_result.status == Status.FAILED


def test_the_context_running_out_is_a_reply_cut_off():
    assert Message("assistant", "The capital", finish_reason="model_length").truncated
    assert not Message("assistant", "Paris.", finish_reason="stop").truncated


# -- errors inside a stream ---------------------------------------------------------------------------------
def streamed(*parts: bytes) -> bytes:
    return sse(chunk({"role": "assistant", "content": "The capital of France is"})) + b"".join(parts)


STREAM_ERRORS = {
    "an error line (llama.cpp)": b'error: {"code":500,"message":"context shift is disabled","type":"server_error"}\n\n',
    "an error event with no error key": b'event: error\ndata: {"message":"context shift is disabled"}\n\n',
    "an error object (vLLM)": sse({"object": "error", "message": "context shift is disabled", "code": 400}),
}


@pytest.mark.parametrize("error", STREAM_ERRORS.values(), ids=STREAM_ERRORS.keys())
def test_an_error_a_stream_carries_fails_the_call_with_its_message(error):
    with close_delimited(streamed(error)) as url:
        with pytest.raises(LLMCallError, match="context shift is disabled"):
            make_llm(url).generate([Message.user("hi")], on_token=lambda _: None)


def test_a_run_whose_stream_carried_an_error_fails_and_keeps_no_history():
    with close_delimited(streamed(STREAM_ERRORS["an error line (llama.cpp)"])) as url:
        agent = ToolCallingAgent("a", make_llm(url), verbose=False)
        events = list(agent.stream("What is the capital of France?"))
    assert events[-1].result.status == Status.FAILED and agent.history == []


def test_a_stream_whose_text_says_error_is_still_an_answer():
    body = sse(chunk({"content": "error: none found"}), chunk({}, "stop")) + b"data: [DONE]\n\n"
    with close_delimited(body) as url:
        assert make_llm(url).generate([Message.user("hi")], on_token=lambda _: None).text == "error: none found"


def test_a_chunk_with_no_choices_and_no_error_is_passed_over():
    body = sse(chunk({"content": "Paris."}), {"id": "c", "type": "keep_alive"}, chunk({}, "stop"))
    with close_delimited(body + b"data: [DONE]\n\n") as url:
        assert make_llm(url).generate([Message.user("hi")], on_token=lambda _: None).text == "Paris."


def test_an_error_object_beside_a_reply_is_an_error(server):
    reply = {"role": "assistant", "content": "The capital of France is"}
    body = {"choices": [{"index": 0, "message": reply, "finish_reason": "stop"}], "error": {"message": "overloaded"}}
    server.enqueue(HTTPFault(200, body=body))
    with pytest.raises(LLMCallError, match="overloaded"):
        make_llm(server.base_url).generate([Message.user("hi")])


def test_an_error_that_is_null_beside_a_reply_is_no_error(server):
    reply = {"role": "assistant", "content": "Paris."}
    body = {"choices": [{"index": 0, "message": reply, "finish_reason": "stop"}], "error": None}
    server.enqueue(HTTPFault(200, body=body))
    assert make_llm(server.base_url).generate([Message.user("hi")]).text == "Paris."


# -- the reply past the token budget --------------------------------------------------------------------------
def test_the_reply_that_goes_past_the_token_budget_is_kept_in_a_warning_step():
    reply = {"content": "Paris is the capital of France.", "usage": {"total_tokens": 50}}
    agent = ToolCallingAgent("a", ScriptedLLM([reply]), max_tokens_per_run=40, verbose=False)
    agent.run("What is the capital of France?")
    result = agent.last_result
    [warning] = result.steps_of("warning")
    assert result.status == Status.MAX_TOKENS and warning.data["raw"] == "Paris is the capital of France."
    assert agent.history == []


# -- a stream of two choices; the last call for an answer that gives none ------------------------------------------
def test_a_stream_of_two_choices_is_read_as_its_first():
    def both(first: str, second: str, finish: str | None = None) -> dict:
        choices = [{"index": 0, "delta": {"content": first}}, {"index": 1, "delta": {"content": second}}]
        return {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [{**c, "finish_reason": finish} for c in choices],
        }

    body = sse(both("The capital is ", "Do not "), both("Paris.", "answer.", "stop")) + b"data: [DONE]\n\n"
    with close_delimited(body) as url:
        assert make_llm(url).generate([Message.user("hi")], on_token=lambda _: None).text == "The capital is Paris."


def test_a_text_react_run_whose_last_call_gives_no_answer_keeps_its_thought_out_of_history():
    from vero.agents import ReActAgent

    @tool
    def pay(recipient: str, amount: int) -> str:
        """Pay an amount to a recipient."""
        return "paid"

    act = 'Thought: pay him\nAction: pay\nAction Input: {"recipient": "bob", "amount": 1}'
    agent = ReActAgent("t", ScriptedLLM([act], default=act), tools=[pay], max_turns=1, verbose=False)
    assert agent.run("Pay bob 1 EUR.") == "pay him"  # the best partial answer
    assert agent.last_result.status == Status.MAX_TURNS and agent.history == []


# -- a review of those -----------------------------------------------------------------------------------------
KEY = "sk-test-SECRET123456"  # make_llm's


def test_an_error_a_stream_carries_is_shown_with_the_key_masked():
    error = b'error: {"message": "Incorrect API key provided: ' + KEY.encode() + b'"}\n\n'
    with close_delimited(streamed(error)) as url:
        with pytest.raises(LLMCallError) as caught:
            make_llm(url).generate([Message.user("hi")], on_token=lambda _: None)
    assert KEY not in str(caught.value) and "Incorrect API key provided" in str(caught.value)


def test_a_stream_whose_one_choice_has_another_index_is_read():
    def only(text: str, finish: str | None = None) -> dict:
        return {"id": "c", "choices": [{"index": 1, "delta": {"content": text}, "finish_reason": finish}]}

    with close_delimited(sse(only("Paris."), only("", "stop")) + b"data: [DONE]\n\n") as url:
        assert make_llm(url).generate([Message.user("hi")], on_token=lambda _: None).text == "Paris."


def test_a_broken_off_reply_of_ones_own_client_is_counted():
    agent = ToolCallingAgent(
        "a", ScriptedLLM([{"content": "21", "finish_reason": "error", "usage": {"total_tokens": 99}}])
    )
    agent.verbose = False
    agent.run("How old?")
    assert agent.last_result.usage["total_tokens"] == 99 and agent.last_result.llm_calls == 1


# -- sessions (a 33rd probe) ---------------------------------------------------------------------------------------
def test_the_history_window_never_begins_with_a_result_whose_call_it_cut_off():
    from vero.core.message import ToolCall

    call = Message("assistant", None, [ToolCall("c1", "lookup", "{}")])
    history = [Message.user("q0"), call, Message("tool", "found", tool_call_id="c1"), Message("assistant", "a0")]
    history += [Message.user(f"q{n}") if n % 2 else Message("assistant", f"a{n}") for n in range(1, 20)]
    agent = ToolCallingAgent("a", ScriptedLLM(default="Fine."), verbose=False)
    agent.history = history
    window = agent.history_messages(len(history) - 2)  # the cut falls between the call and its result
    assert window[0].role != "tool" and window == history[3:]
    agent.run("next")
    assert agent.last_result.status == Status.OK


A_CALL = [{"id": "c1", "type": "function", "function": {"name": "x", "arguments": "{}"}}]


@pytest.mark.parametrize(
    "message",
    [
        {"role": "user", "content": "hi", "tool_calls": A_CALL},
        {"role": "user", "content": "hi", "tool_call_id": "c9"},
        {"role": "system", "content": "x", "tool_calls": A_CALL},
    ],
)
def test_a_session_with_a_tool_call_on_anothers_message_than_the_assistants_is_refused(tmp_path, message):
    from vero.core.session import load_session
    from vero.errors import SessionFormatError

    path = tmp_path / "session.json"
    path.write_text(
        json.dumps(
            {"format": "vero.session", "version": 1, "history": [message, {"role": "assistant", "content": "ok"}]}
        )
    )
    with pytest.raises(SessionFormatError, match="with a tool call or a tool call's id"):
        load_session(str(path))


def test_a_chat_command_that_takes_nothing_does_nothing_when_given_something(shared_mock_server, tmp_path):
    from test_cli import vero as vero_command

    shared_mock_server.enqueue("Hello to you.")
    done = vero_command(
        *("chat", "--agent", "chat", "--base-url", shared_mock_server.base_url),
        cwd=tmp_path,
        input="hello\n/reset please not\n/history\n",
    )
    assert "/reset takes nothing after it; nothing was done" in done.stdout
    assert "Conversation cleared" not in done.stdout and "Hello to you." in done.stdout.split("/reset")[-1]


def test_a_retry_after_past_the_clients_own_cap_is_named_in_the_error(server):
    server.enqueue(HTTPFault(429, "rate limited", headers={"retry-after": "3600"}))
    with pytest.raises(LLMCallError, match="the server asked to wait 3,600 s before a retry"):
        make_llm(server.base_url, max_retries=2).generate([Message.user("hi")])
