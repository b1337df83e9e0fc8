"""ReActAgent: the text and native protocols, malformed output, loops, budgets, reflection."""

import re
from dataclasses import replace

import pytest

from vero import Tool, tool
from vero.agents import ReActAgent
from vero.agents._native import HOSTED_INSTRUCTIONS, NATIVE_INSTRUCTIONS
from vero.agents.react import (
    FINAL_ANSWER_PROMPT,
    REACT_EXAMPLE,
    REACT_SYSTEM_PROMPT,
    REFLECT_PROMPT,
    parse_action_input,
    parse_react,
)
from vero.agents.tool_calling import TOOL_CALLING_SYSTEM_PROMPT
from vero.core.agent import BudgetExceeded, MalformedOutputError
from vero.core.result import Status
from vero.testing import ScriptedLLM

CALLS: list = []


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first number.
        b: the second number.
    """
    CALLS.append(("add", a, b))
    return a + b


@tool
def search(query: str) -> str:
    """Look something up.

    Args:
        query: what to look for.
    """
    CALLS.append(("search", query))
    return f"results for {query}"


@tool
def explode(reason: str) -> str:
    """Always fails."""
    raise ValueError(f"kaboom: {reason}")


@pytest.fixture(autouse=True)
def clear_calls():
    CALLS.clear()


def act(tool_name, args, thought="let me use a tool"):
    return f"Thought: {thought}\nAction: {tool_name}\nAction Input: {args}"


ADD = act("add", '{"a": 2, "b": 3}', "I should add")
DONE = "Thought: I now know the final answer\nFinal Answer: 5"


def make(replies, **kwargs):
    llm = ScriptedLLM(list(replies))
    kwargs.setdefault("tools", [add, search, explode])
    return ReActAgent("react", llm, verbose=False, **kwargs), llm


def roles(request):
    return [m["role"] for m in request.messages]


# -- the text protocol: happy path and trajectory ---------------------------------------
def test_happy_path_runs_the_tool_and_returns_the_final_answer():
    agent, llm = make([ADD, DONE])
    assert agent.run("What is 2 + 3?") == "5"
    result = agent.last_result
    assert result.status == Status.OK and result.error is None
    assert llm.calls == 2 and result.llm_calls == 2
    assert CALLS == [("add", 2, 3)]
    assert [s.kind for s in result.steps] == ["thought", "action", "observation", "thought", "final"]
    assert result.steps[0].content == "I should add"
    assert result.steps[-1].content == "5"


def test_finish_action_with_answer_json_ends_the_run():
    agent, llm = make([act("Finish", '{"answer": "Paris"}')])
    assert agent.run("Capital of France?") == "Paris"
    assert agent.last_result.status == Status.OK and llm.calls == 1


def test_system_prompt_lists_tools_and_format_and_stays_fixed_for_the_run():
    agent, llm = make([ADD, act("search", '{"query": "x"}'), DONE])
    agent.run("task")
    system = llm.requests[0].messages[0]
    assert system["role"] == "system"
    assert "- add(" in system["content"] and "Add two integers." in system["content"]
    assert "Action Input:" in system["content"] and "Final Answer:" in system["content"]
    assert "add, search, explode, Finish" in system["content"]
    assert REACT_SYSTEM_PROMPT in system["content"]
    assert all(r.messages[0] == system for r in llm.requests)
    assert "results for x" not in system["content"]


def test_custom_system_prompt_replaces_the_intro_but_keeps_the_format():
    agent, llm = make([DONE], system_prompt="You are a terse pirate.")
    agent.run("task")
    system = llm.requests[0].messages[0]["content"]
    assert system.startswith("You are a terse pirate.")
    assert REACT_SYSTEM_PROMPT not in system
    assert "Action Input:" in system and "- add(" in system


def test_native_protocol_has_its_own_intro_without_step_by_step():
    # seen with Qwen2.5-Coder-1.5B: told it "solves tasks step by step", the native agent wrote a numbered
    # plan and no call, then answered with invented values (12/32 tasks; 17/32 with this intro)
    agent, llm = make(["done"], protocol="native")
    agent.run("task")
    system = llm.requests[0].messages[0]["content"]
    assert system.startswith(ReActAgent.native_prompts.intro) and "step by step" not in system
    assert REACT_SYSTEM_PROMPT not in system

    class Terse(ReActAgent):
        native_prompts = replace(ReActAgent.native_prompts, intro="You are terse.")

    llm = ScriptedLLM(["done", "done"])
    Terse("t", llm, tools=[add], verbose=False, protocol="native").run("task")
    Terse("t", llm, tools=[add], verbose=False, protocol="native", system_prompt="Pirate.").run("task")
    assert llm.requests[0].messages[0]["content"].startswith("You are terse. Call a tool for every fact")
    assert llm.requests[1].messages[0]["content"].startswith("Pirate. Call a tool for every fact")


def test_native_react_and_tool_calling_agent_send_the_same_system_prompt():
    # measured: native ReAct with its own wording solved fewer tasks than ToolCallingAgent on the same model
    agent, llm = make(["done"], protocol="native")
    agent.run("task")
    assert llm.requests[0].messages[0]["content"] == TOOL_CALLING_SYSTEM_PROMPT


def test_trajectory_is_appended_messages_with_observations_as_user_messages():
    agent, llm = make([ADD, DONE])
    agent.run("What is 2 + 3?")
    second = llm.requests[1].messages
    assert roles(llm.requests[1]) == ["system", "user", "assistant", "user"]
    assert second[1]["content"] == "What is 2 + 3?"
    assert second[2]["content"] == ADD
    assert second[3]["content"] == "Observation: 5"


def test_each_step_is_sent_once_per_call_and_prompts_only_grow_by_appending():
    replies = [act("search", f'{{"query": "q{i}"}}', f"thought number {i}") for i in range(5)] + [DONE]
    agent, llm = make(replies)
    agent.run("look five things up")
    for earlier, later in zip(llm.requests, llm.requests[1:]):
        assert later.messages[: len(earlier.messages)] == earlier.messages  # prefix: cache friendly
        assert len(later.messages) == len(earlier.messages) + 2
    last = llm.requests[-1].prompt
    for i in range(5):
        assert last.count(f"thought number {i}") == 1
        assert last.count(f"Observation: results for q{i}") == 1
    # bytes sent == system + task + every step once per call (no scratchpad duplication)
    system, task = llm.requests[0].messages[0]["content"], "look five things up"
    expected = sum(len(system) + len(task) + sum(len(m["content"]) for m in r.messages[2:]) for r in llm.requests)
    assert sum(len(r.prompt) - (len(r.messages) - 1) for r in llm.requests) == expected


def test_stop_sequence_is_passed_on_every_step_call():
    agent, llm = make([ADD, DONE])
    agent.run("task")
    assert llm.requests[0].stop == ["Observation:"]
    assert all(r.stop == ["Observation:"] for r in llm.requests)
    assert all(r.tools is None for r in llm.requests)


def test_history_after_two_runs_is_in_the_second_prompt():
    agent, llm = make([ADD, DONE, "Thought: it was 5\nFinal Answer: still 5"])
    agent.run("What is 2 + 3?")
    assert agent.run("And again?") == "still 5"
    messages = llm.requests[2].messages
    assert [(m["role"], m["content"]) for m in messages[1:4]] == [
        ("user", "What is 2 + 3?"),
        ("assistant", "5"),
        ("user", "And again?"),
    ]
    assert [m.content for m in agent.history] == ["What is 2 + 3?", "5", "And again?", "still 5"]


def test_empty_input_fails_without_a_model_call():
    agent, llm = make([DONE])
    assert agent.run("  ") == ""
    assert agent.last_result.status == Status.FAILED and llm.calls == 0


def test_unknown_protocol_is_rejected():
    with pytest.raises(ValueError, match="protocol"):
        ReActAgent("x", ScriptedLLM([]), protocol="xml")


# -- malformed output ---------------------------------------------------------------------
def test_reply_without_action_gets_a_correction_and_costs_a_turn():
    agent, llm = make(["I think I should add the numbers.", ADD, DONE])
    assert agent.run("task") == "5"
    assert llm.calls == 3
    correction = llm.requests[1].messages[-1]
    assert correction["role"] == "user" and correction["content"].startswith("Observation: Invalid format")
    assert "no `Action:` line" in correction["content"]
    assert llm.requests[1].messages[-2]["content"] == "I think I should add the numbers."
    assert [s.kind for s in agent.last_result.steps][:2] == ["thought", "warning"]


def test_action_without_action_input_is_a_format_error():
    agent, llm = make(["Thought: add\nAction: add", ADD, DONE])
    assert agent.run("task") == "5"
    assert "has no `Action Input:` line" in llm.requests[1].messages[-1]["content"]
    assert CALLS == [("add", 2, 3)]


def test_empty_reply_is_a_format_error():
    agent, llm = make(["", DONE])
    assert agent.run("task") == "5"
    assert llm.requests[1].messages[-1]["content"].startswith("Observation: Invalid format: the reply was empty")
    assert roles(llm.requests[1]) == ["system", "user", "user"]  # no empty assistant message


def test_bare_string_input_goes_to_a_single_argument_tool():
    agent, llm = make([act("search", "capital of France"), "Final Answer: Paris"])
    assert agent.run("task") == "Paris"
    assert CALLS == [("search", "capital of France")]
    assert llm.requests[1].messages[-1]["content"] == "Observation: results for capital of France"


def test_non_json_input_for_a_multi_argument_tool_becomes_an_error_observation():
    agent, llm = make([act("add", "two and three"), ADD, DONE])
    assert agent.run("task") == "5"
    observation = llm.requests[1].messages[-1]["content"]
    assert observation.startswith("Observation: Error: tool 'add'") and "JSON object" in observation
    assert CALLS == [("add", 2, 3)]


@pytest.mark.parametrize(
    "raw",
    [
        "{'a': 2, 'b': 3}",  # single quotes
        '{"a": 2, "b": 3,}',  # trailing comma
        '```json\n{"a": 2, "b": 3}\n```',  # code fence
        '```\n{"a": "2", "b": 3}\n```',  # fence without language, a string number
    ],
)
def test_sloppy_json_action_input_is_repaired_for_a_read_only_tool(raw):
    agent, _ = make([act("add", raw), DONE], tools=[Tool(add, read_only=True)])
    assert agent.run("task") == "5"
    assert CALLS == [("add", 2, 3)]


def test_invented_observation_and_final_answer_are_cut_and_the_action_wins():
    class IgnoresStop(ScriptedLLM):
        """A server that does not honour ``stop``."""

        def generate(self, messages, *, stop=None, **options):
            self.stops = [*getattr(self, "stops", []), stop]
            return super().generate(messages, **options)

    invented = ADD + "\nObservation: 99\nThought: done\nFinal Answer: 99"
    llm = IgnoresStop([invented, DONE])
    agent = ReActAgent("r", llm, tools=[add], verbose=False)
    assert agent.run("task") == "5"
    assert llm.stops[0] == ["Observation:"]
    assert CALLS == [("add", 2, 3)]
    sent = llm.requests[1].messages
    assert sent[2]["content"] == ADD  # the invented part never enters the scratchpad
    assert sent[3]["content"] == "Observation: 5"
    assert "99" not in llm.requests[1].prompt


def test_action_before_a_final_answer_in_one_reply_wins():
    step = parse_react(ADD + "\nFinal Answer: 42")
    assert step.action == "add" and step.action_input == {"a": 2, "b": 3}
    assert step.final_answer is None and step.text == ADD


def test_think_blocks_never_enter_the_scratchpad():
    replies = [
        "<think>secret plan</think>" + ADD,
        "Thought: done\nFinal Answer: 5\n<think>an unclosed musing",
    ]
    agent, llm = make(replies)
    assert agent.run("task") == "5"
    assert "secret plan" not in llm.requests[1].prompt
    assert llm.requests[1].messages[2]["content"] == ADD
    thinking = agent.last_result.steps_of("thinking")
    assert [s.content for s in thinking] == ["secret plan", "an unclosed musing"]
    assert all("secret" not in s.content for s in agent.last_result.steps_of("thought"))


def test_unclosed_think_after_an_action_keeps_only_the_action():
    agent, llm = make([ADD + "\n<think>maybe I should also", DONE])
    assert agent.run("task") == "5"
    assert llm.requests[1].messages[2]["content"] == ADD
    assert "maybe" not in llm.requests[1].prompt


def test_unknown_tool_becomes_an_observation_and_the_run_goes_on():
    agent, llm = make([act("multiply", '{"a": 2}'), ADD, DONE])
    assert agent.run("task") == "5"
    observation = llm.requests[1].messages[-1]["content"]
    assert observation.startswith("Observation: Error: unknown tool 'multiply'") and "add" in observation
    assert agent.last_result.steps_of("observation")[0].data["error"] == "unknown_tool"


def test_a_raising_tool_becomes_an_observation_and_the_run_goes_on():
    agent, llm = make([act("explode", '{"reason": "test"}'), DONE])
    assert agent.run("task") == "5"
    observation = llm.requests[1].messages[-1]["content"]
    assert "raised ValueError: kaboom: test" in observation
    assert agent.last_result.status == Status.OK
    assert llm.calls == 2  # the error is an observation; the model's answer after it stands


def test_three_consecutive_format_errors_fail_the_run_after_exactly_three_calls():
    agent, llm = make(["Thought: hmm, tricky", "", "Action: add", DONE])
    assert agent.run("task") == "hmm, tricky"  # the best partial: the latest thought
    result = agent.last_result
    assert result.status == Status.FAILED and llm.calls == 3
    assert isinstance(result.error, MalformedOutputError) and result.error.raw == "Action: add"
    assert len(result.steps_of("warning")) == 3


def test_format_errors_that_are_not_consecutive_do_not_end_the_run():
    agent, llm = make(["oops", "oops", ADD, "oops", "oops", DONE])
    assert agent.run("task") == "5"
    assert agent.last_result.status == Status.OK and llm.calls == 6


def test_max_format_errors_is_configurable():
    agent, llm = make(["oops"] * 5, max_format_errors=1)
    agent.run("task")
    assert agent.last_result.status == Status.FAILED and llm.calls == 1


# -- loop detection -----------------------------------------------------------------------
def test_same_action_three_times_gets_a_warning_and_a_fourth_ends_the_run():
    same = act("search", '{"query": "x"}', "search again")
    agent, llm = make([same, same, same, same, DONE])
    assert agent.run("task") == "search again"
    result = agent.last_result
    assert llm.calls == 4 and result.status == Status.MAX_TURNS
    assert isinstance(result.error, BudgetExceeded)
    assert CALLS == [("search", "x")] * 2  # the third is not run, the fourth ends the run
    warning = llm.requests[3].messages[-1]["content"]
    assert warning.startswith("Observation: You have repeated the same action")
    assert len(result.steps_of("warning")) == 1


def test_equivalent_inputs_count_as_the_same_action():
    inputs = ['{"query": "x"}', "{'query': 'x'}", '{"query": "x",}', '{"query": "x"}']
    agent, llm = make([act("search", i) for i in inputs])
    agent.run("task")
    assert llm.calls == 4 and agent.last_result.status == Status.MAX_TURNS


def test_a_different_action_after_the_warning_resets_the_count():
    same = act("search", '{"query": "x"}')
    agent, llm = make([same, same, same, ADD, same, same, DONE])
    assert agent.run("task") == "5"
    assert agent.last_result.status == Status.OK and llm.calls == 7
    assert len(agent.last_result.steps_of("warning")) == 1


# -- the turn budget ----------------------------------------------------------------------
def test_max_turns_makes_one_final_answer_call_from_the_trajectory():
    agent, llm = make(
        [ADD, act("search", '{"query": "y"}'), "Thought: from what I saw\nFinal Answer: 5, probably"], max_turns=2
    )
    assert agent.run("task") == "5, probably"
    result = agent.last_result
    assert result.status == Status.MAX_TURNS and llm.calls == 3  # max_turns + 1
    final = llm.requests[2]
    assert final.stop is None and final.tools is None
    assert final.messages[-1] == {"role": "user", "content": FINAL_ANSWER_PROMPT}
    assert final.messages[:-1] == llm.requests[1].messages + [
        {"role": "assistant", "content": act("search", '{"query": "y"}')},
        {"role": "user", "content": "Observation: results for y"},
    ]
    assert result.steps[-1].kind == "final" and result.steps[-1].data == {"reason": "max_turns"}


def test_final_answer_without_the_label_is_taken_as_prose():
    agent, llm = make([ADD, "The sum is 5."], max_turns=1)
    assert agent.run("task") == "The sum is 5."
    assert llm.calls == 2


def test_empty_final_answer_is_retried_a_bounded_number_of_times():
    agent, llm = make([ADD, "", act("add", "{}"), "Final Answer: 5"], max_turns=1)
    assert agent.run("task") == "5"
    assert llm.calls == 4  # 1 turn + the final-answer call + 2 retries (an action is not an answer)
    assert agent.last_result.status == Status.MAX_TURNS
    assert len(agent.last_result.steps_of("warning")) == 2


def test_final_answer_empty_after_all_retries_returns_the_partial():
    agent, llm = make([ADD, "", "", "", "never sent"], max_turns=1)
    assert agent.run("task") == "I should add"
    assert llm.calls == 1 + 1 + 2 and agent.last_result.status == Status.MAX_TURNS


# -- reflection ---------------------------------------------------------------------------
def test_reflect_every_adds_a_reflection_to_the_following_prompts():
    replies = [ADD, act("search", '{"query": "z"}'), "The search was not needed.", DONE]
    agent, llm = make(replies, reflect_every=2)
    assert agent.run("task") == "5"
    assert llm.calls == 4  # 3 turns + 1 reflection after turn 2
    reflection_call = llm.requests[2]
    assert reflection_call.messages[-1] == {"role": "user", "content": REFLECT_PROMPT}
    assert reflection_call.stop is None
    after = llm.requests[3].messages
    assert after[-1]["role"] == "user" and "The search was not needed." in after[-1]["content"]
    assert after[0] == llm.requests[0].messages[0]  # the system prompt is unchanged
    reflections = agent.last_result.steps_of("reflection")
    assert [s.content for s in reflections] == ["The search was not needed."]


def test_no_reflection_after_the_last_turn_of_the_budget():
    agent, llm = make([ADD, ADD.replace("3", "4"), "Final Answer: 5"], reflect_every=2, max_turns=2)
    agent.run("task")
    assert llm.calls == 3 and agent.last_result.steps_of("reflection") == []


# -- the native protocol ------------------------------------------------------------------
def calls(*pairs, content=None):
    return {"content": content, "tool_calls": [{"name": n, "arguments": a} for n, a in pairs]}


def test_native_protocol_runs_parallel_calls_in_order_and_finishes_on_text():
    replies = [
        calls(("add", {"a": 1, "b": 2}), ("search", {"query": "q"}), content="Two things first."),
        "The answer is 3.",
    ]
    agent, llm = make(replies, protocol="native")
    assert agent.run("task") == "The answer is 3."
    result = agent.last_result
    assert result.status == Status.OK and llm.calls == 2
    assert CALLS == [("add", 1, 2), ("search", "q")]
    assert [s.kind for s in result.steps] == ["thought", "action", "observation", "action", "observation", "final"]
    first = llm.requests[0]
    assert first.stop == ["</tools>"] and [t["function"]["name"] for t in first.tools] == ["add", "search", "explode"]
    sent = llm.requests[1].messages
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool"]
    assert sent[2]["content"] == "Two things first."
    ids = [c["id"] for c in sent[2]["tool_calls"]]
    assert [(m["tool_call_id"], m["name"], m["content"]) for m in sent[3:]] == [
        (ids[0], "add", "3"),
        (ids[1], "search", "results for q"),
    ]
    assert "Action Input" not in sent[0]["content"]


def test_native_unknown_tool_and_tool_failure_go_back_as_tool_messages():
    replies = [calls(("nope", {}), ("explode", {"reason": "r"})), "done"]
    agent, llm = make(replies, protocol="native")
    assert agent.run("task") == "done" and llm.calls == 2
    contents = [m["content"] for m in llm.requests[1].messages if m["role"] == "tool"]
    assert contents[0].startswith("Error: unknown tool 'nope'")
    assert "raised ValueError: kaboom: r" in contents[1]


def test_native_empty_replies_are_format_errors():
    agent, llm = make(["", "", ""], protocol="native")
    assert agent.run("task") == ""
    assert agent.last_result.status == Status.FAILED and llm.calls == 3
    assert llm.requests[1].messages[-1]["content"] == (
        "Your reply was empty. Call the tool you still need, or give the final answer from the results above."
        "\nThe task: task"
    )  # as in ToolCallingAgent: the next call first (it usually comes mid-chain)


def test_native_max_turns_final_call_disables_tools():
    agent, llm = make([calls(("add", {"a": 1, "b": 1})), "It is 2."], protocol="native", max_turns=1)
    assert agent.run("task") == "It is 2."
    final = llm.requests[1]
    assert agent.last_result.status == Status.MAX_TURNS and llm.calls == 2
    assert final.options["tool_choice"] == "none" and final.tools
    assert final.messages[-1]["content"] == FINAL_ANSWER_PROMPT


def test_native_loop_detection_answers_every_call_with_the_warning():
    same = calls(("search", {"query": "x"}))
    agent, llm = make([same] * 4, protocol="native")
    agent.run("task")
    assert llm.calls == 4 and agent.last_result.status == Status.MAX_TURNS
    assert CALLS == [("search", "x")] * 2
    assert llm.requests[3].messages[-1]["role"] == "tool"
    assert "repeated the same action" in llm.requests[3].messages[-1]["content"]


# -- parsing helpers ----------------------------------------------------------------------
def test_parse_react_cases():
    assert parse_react("Thought: done\nFinal Answer: 42").final_answer == "42"
    assert parse_react("Final answer: 42").final_answer == "42"
    assert parse_react("").problem == "the reply was empty"
    assert "no `Action:`" in parse_react("just prose").problem
    assert parse_react("Thought: x\nFinal Answer:").problem == "the Final Answer is empty"
    assert "Finish needs" in parse_react("Action: Finish\nAction Input: {}").problem
    assert parse_react('Action: Finish\nAction Input: "Rome"').final_answer == "Rome"
    assert parse_react('Action: Finish\nAction Input: {"answer": 7}').final_answer == "7"
    step = parse_react("Thought: look\nAction: `search`\nAction Input: cats\nObservation: invented")
    assert (step.thought, step.action, step.action_input) == ("look", "search", "cats")


def test_parse_action_input():
    assert parse_action_input("{'a': 1,}") == {"a": 1}
    assert parse_action_input('```JSON\n{"a": 1}\n```') == {"a": 1}
    assert parse_action_input("  plain words ") == "plain words"


# -- end to end through the real client ---------------------------------------------------
def test_end_to_end_through_chat_openai_and_the_mock_server():
    pytest.importorskip("vero._mock_server")
    from vero.core.chat_openai import ChatOpenAI
    from vero.testing import MockOpenAIServer

    invented = ADD + "\nObservation: 99\nFinal Answer: 99"  # the mock server ignores `stop`
    with MockOpenAIServer([invented, "<think>easy</think>Thought: got it\nFinal Answer: 5"]) as srv:
        llm = ChatOpenAI(api_key="test", base_url=srv.base_url, model_name="m", max_retries=0)
        agent = ReActAgent("e2e", llm, tools=[add], verbose=False)
        assert agent.run("What is 2 + 3?") == "5"
        assert agent.last_result.status == Status.OK and agent.last_result.llm_calls == 2
        assert srv.requests[0]["stop"] == ["Observation:"]
        sent = srv.requests[1]["messages"]
        assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
        assert sent[2]["content"] == ADD and sent[3]["content"] == "Observation: 5"
        assert CALLS == [("add", 2, 3)]
        assert agent.last_result.usage["total_tokens"] > 0


# -- review fixes: JSON inputs holding label words, max_turns default, Finish, reflection cap ----
@tool
def python(code: str) -> str:
    """Run Python code.

    Args:
        code: the code to run.
    """
    CALLS.append(("python", code))
    return "42"


CODE_INPUT = '{"code": "x = 6*7\\nprint(\\"Final answer:\\", x)"}'
CODE = 'x = 6*7\nprint("Final answer:", x)'


def test_action_input_json_holding_a_label_word_is_read_whole():
    step = parse_react(act("python", CODE_INPUT))
    assert step.action == "python" and step.action_input == {"code": CODE}
    for label in ("Thought: x", "Action: y", "Action Input: z", "Final Answer: w"):
        raw = '{"text": "before ' + label + ' after"}'
        assert parse_react(act("search", raw)).action_input == {"text": f"before {label} after"}
    fenced = parse_react(act("python", f"```json\n{CODE_INPUT}\n```"))
    assert fenced.action_input == {"code": CODE} and fenced.text.endswith("```")


def test_action_with_a_label_word_in_its_input_still_wins_over_an_invented_final_answer():
    invented = act("python", CODE_INPUT) + "\nObservation: Final answer: 42\nThought: done\nFinal Answer: 42"
    step = parse_react(invented)
    assert step.action_input == {"code": CODE} and step.final_answer is None
    assert step.text == act("python", CODE_INPUT)  # nothing after the object enters the scratchpad
    step = parse_react(act("python", CODE_INPUT) + "\nFinal Answer: 42")
    assert step.action == "python" and step.final_answer is None

    agent, llm = make([act("python", CODE_INPUT) + "\nFinal Answer: 41", "Final Answer: 42"], tools=[python])
    assert agent.run("compute") == "42"
    assert CALLS == [("python", CODE)]
    assert llm.requests[1].messages[2]["content"] == act("python", CODE_INPUT)


def test_a_subclass_default_max_turns_is_the_budget():
    class Quick(ReActAgent):
        default_max_turns = 2

    llm = ScriptedLLM([act("add", '{"a": 1, "b": 1}'), act("add", '{"a": 1, "b": 2}'), "Final Answer: 3"])
    agent = Quick("q", llm, tools=[add], verbose=False)
    assert agent.max_turns == 2
    agent.run("task")
    assert agent.last_result.status == Status.MAX_TURNS and llm.calls == 3  # 2 turns + the final-answer call
    assert Quick("q", llm, max_turns=5, verbose=False).max_turns == 5
    assert ReActAgent("r", llm, verbose=False).max_turns == ReActAgent.default_max_turns


@pytest.mark.parametrize(
    "name", ["BasicReflectionAgent", "ToolCallingAgent", "PlanExecuteAgent", "ReflexionAgent", "ReActAgent"]
)
def test_every_agent_takes_max_turns_from_a_subclass_default(name):
    import vero.agents

    cls = type("Sub", (getattr(vero.agents, name),), {"default_max_turns": 7})
    assert cls("s", ScriptedLLM([]), verbose=False).max_turns == 7


def test_the_format_prompt_explains_finish():
    agent, llm = make([DONE])
    agent.run("task")
    system = llm.requests[0].messages[0]["content"]
    assert 'Action: Finish\nAction Input: {"answer": "the final answer"}' in system


def test_only_the_last_two_reflections_stay_in_the_conversation():
    replies = []
    for n in (1, 2, 3):
        replies += [act("add", f'{{"a": 1, "b": {n}}}'), f"Reflection number {n}."]
    agent, llm = make([*replies, DONE], reflect_every=1)
    assert agent.run("task") == "5"
    assert len(agent.last_result.steps_of("reflection")) == 3
    last = llm.requests[-1]
    notes = [m["content"] for m in last.messages if m["content"].startswith("Reflection on your progress")]
    assert len(notes) == 2
    assert "Reflection number 1." not in last.prompt
    assert "Reflection number 2." in notes[0] and "Reflection number 3." in notes[1]
    assert "Observation: 2" in last.prompt and "Observation: 4" in last.prompt  # only the note was dropped
    assert "Reflection number 1." in llm.requests[5].prompt  # the third reflection call still saw it


# -- the worked example in the format prompt -------------------------------------------------------
def example_replies() -> list[str]:
    """The model's side of ``REACT_EXAMPLE``: its text between the observations, as replies."""
    body = REACT_EXAMPLE.split("\nQuestion:", 1)[1].split("\n", 1)[1]
    return [
        re.sub(r"^Observation: .*\n?", "", part, flags=re.M) for part in re.split(r"(?=^Thought:)", body, flags=re.M)
    ]


def test_the_worked_example_is_in_the_text_protocols_system_prompt():
    agent, llm = make([DONE])
    agent.run("task")
    assert REACT_EXAMPLE in llm.requests[0].messages[0]["content"]


def test_the_worked_example_reads_as_the_steps_it_shows():
    """The example teaches the format vero parses: four actions with JSON inputs, then a Final Answer."""
    steps = [parse_react(reply) for reply in example_replies() if reply.strip()]
    assert [(s.action, s.action_input) for s in steps[:4]] == [
        ("venue_info", {"venue": "Orion Theatre"}),
        ("venue_info", {"venue": "Lyra Hall"}),
        ("calculate", {"expression": "1240 - 865"}),
        ("calculate", {"formula": "1240 - 865"}),
    ]
    assert steps[4].action is None and steps[4].final_answer.startswith("375 more seats; no,")
    assert not any(step.problem for step in steps)


def test_the_worked_examples_error_is_the_one_vero_gives_for_that_call():
    """The example shows a call fixed after reading its error: that error is vero's own text, word for word."""

    @tool(read_only=True)
    def calculate(formula: str) -> str:
        """Work out an arithmetic formula."""
        return "375"

    call = 'Thought: t\nAction: calculate\nAction Input: {"expression": "1240 - 865"}'
    agent, llm = make([call, DONE], tools=[calculate])
    agent.run("task")
    observation = llm.requests[1].messages[-1]["content"].removeprefix("Observation: ")
    assert f"Observation: {observation}\n" in REACT_EXAMPLE


def test_a_call_of_the_examples_made_up_tool_is_an_unknown_tool_observation():
    agent, llm = make(['Thought: look\nAction: venue_info\nAction Input: {"venue": "Orion Theatre"}', DONE])
    agent.run("task")
    observation = llm.requests[1].messages[-1]["content"]
    assert "unknown tool 'venue_info'" in observation


# -- the prompt tables (one per protocol) and the old prompt attributes --------------------------
def test_each_protocol_has_one_prompt_table_and_a_subclass_replaces_one_entry():
    class Careful(ReActAgent):
        text_prompts = replace(ReActAgent.text_prompts, intro="You are careful.")
        guided_prompts = replace(ReActAgent.guided_prompts, intro="You are guided.")

    guided_done = '{"thought": "", "step": {"results_answer_the_task": true, "final_answer": "5"}}'
    for protocol, opening, reply in (
        ("text", "You are careful.\n\nYou have access", DONE),
        ("guided", "You are guided.\n\n", guided_done),
    ):
        llm = ScriptedLLM([reply])
        Careful("c", llm, tools=[add], verbose=False, protocol=protocol).run("task")
        assert llm.requests[0].messages[0]["content"].startswith(opening)
    assert ReActAgent.text_prompts.intro == REACT_SYSTEM_PROMPT  # the class's own table is untouched


def test_a_changed_correction_and_final_answer_prompt_are_sent():
    class Strict(ReActAgent):
        text_prompts = replace(
            ReActAgent.text_prompts, correction="Bad: {problem} [{names}]", final_answer="Answer now, please."
        )

    llm = ScriptedLLM(["no labels at all", "Final Answer: 4"])
    assert Strict("s", llm, tools=[add], verbose=False).run("task") == "4"
    assert llm.requests[1].messages[-1]["content"].startswith("Bad: no `Action:` line")
    llm = ScriptedLLM([ADD, "Final Answer: 5"])
    Strict("s", llm, tools=[add], verbose=False, max_turns=1).run("task")
    assert llm.requests[1].messages[-1]["content"] == "Answer now, please."


def test_an_old_prompt_attribute_still_works_for_one_release_with_a_warning():
    with pytest.warns(DeprecationWarning, match="intro_prompt is deprecated.*text_prompts"):

        class Old(ReActAgent):
            intro_prompt = "You are old."

    assert Old.text_prompts.intro == Old.guided_prompts.intro == "You are old."
    llm = ScriptedLLM([DONE])
    Old("o", llm, tools=[add], verbose=False).run("task")
    assert llm.requests[0].messages[0]["content"].startswith("You are old.\n\n")
    with pytest.warns(DeprecationWarning, match="format_prompt"):
        assert ReActAgent.format_prompt == ReActAgent.text_prompts.instructions


def test_the_prompt_tables_keep_the_prompts_text():
    assert ReActAgent.text_prompts.instructions.endswith(REACT_EXAMPLE.replace("{", "{{").replace("}", "}}"))
    assert ReActAgent.native_prompts.instructions == NATIVE_INSTRUCTIONS
    assert ReActAgent.native_prompts.hosted_instructions == HOSTED_INSTRUCTIONS


def test_a_tool_named_finish_ends_the_run_failed_before_any_model_call_naming_the_clash():
    @tool
    def Finish(answer: str) -> str:
        """Send the finished report."""
        return "sent"

    llm = ScriptedLLM(['Thought: done\nAction: Finish\nAction Input: {"answer": "Q3"}'])
    agent = ReActAgent("clash", llm, tools=[Finish], verbose=False)
    agent.run("Send the report.")
    assert agent.last_result.status == Status.FAILED and "named Finish" in str(agent.last_result.error)
    assert agent.last_result.llm_calls == 0


def test_a_typed_run_takes_a_reply_of_only_json_as_the_answer_it_asked_for():
    from dataclasses import dataclass

    @dataclass
    class City:
        name: str
        population: int

    for reply in ('{"name": "Oslo", "population": 709000}', '```json\n{"name": "Oslo", "population": 709000}\n```'):
        llm = ScriptedLLM([reply])
        agent = ReActAgent("typed", llm, verbose=False)
        assert agent.run("The largest city of Norway?", output_type=City) == City("Oslo", 709000)
        assert llm.calls == 1 and agent.last_result.status == Status.OK


def test_an_untyped_run_still_asks_for_the_format_when_the_reply_is_only_json():
    llm = ScriptedLLM(['{"name": "Oslo"}', "Final Answer: Oslo"])
    assert ReActAgent("plain", llm, verbose=False).run("The largest city of Norway?") == "Oslo" and llm.calls == 2


def test_a_typed_run_given_json_nested_too_deeply_asks_again_instead_of_failing():
    llm = ScriptedLLM(["[" * 5000 + "]" * 5000, "Final Answer: 42"])
    agent = ReActAgent("typed", llm, verbose=False)
    assert agent.run("Six times seven?", output_type=int) == 42 and llm.calls == 2


def test_an_action_too_deep_for_python_s_parser_is_a_format_error_not_a_failed_run():
    @tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    llm = ScriptedLLM(["Action: echo(" + "-" * 100_000 + ")", "Final Answer: done"])
    agent = ReActAgent("deep", llm, tools=[echo], verbose=False)
    assert agent.run("Echo something.") == "done" and agent.last_result.status == Status.OK and llm.calls == 2
