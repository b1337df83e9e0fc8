"""The recovery hook on ``AgentOptions``: one switch per small-model accommodation, and the rules.

The agents reach ``vero.recovery`` only through ``agent.options.hook``; each switch turns one
accommodation off on its own, so that each can be measured (the default keeps every one on)."""

import ast
from dataclasses import fields
from pathlib import Path

import pytest

from vero import tool
from vero.agents import ReActAgent, ToolCallingAgent
from vero.core.options import AS_WRITTEN, GENERAL, AgentOptions, RecoveryHook
from vero.core.result import Status
from vero.testing import ScriptedLLM

AGENTS = Path(__file__).resolve().parents[1] / "vero" / "agents"
CALLS: list[tuple[int, int]] = []


@tool(read_only=True)
def add(a: int, b: int) -> int:
    """Add two numbers."""
    CALLS.append((a, b))
    return a + b


@pytest.fixture(autouse=True)
def clear_calls():
    CALLS.clear()


TAGGED_CALL = '<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>'


def tool_calling(replies, recovery):
    llm = ScriptedLLM(list(replies))
    return ToolCallingAgent("t", llm, tools=[add], verbose=False, recovery=recovery), llm


def test_true_false_and_a_hook_of_your_own_are_the_hook_the_agents_read():
    assert AgentOptions().hook is GENERAL and AgentOptions(recovery=False).hook is AS_WRITTEN
    own = RecoveryHook(tidy_numbers=False)
    assert AgentOptions(recovery=own).hook is own and AgentOptions(recovery=own).recovery is own
    assert all(getattr(GENERAL, f.name) for f in fields(GENERAL) if f.name != "respond")
    assert GENERAL.respond is None and AS_WRITTEN.respond is None


def test_a_preset_keeps_the_users_value_and_its_hook_consults_the_rules():
    options = AgentOptions(recovery="small-model")
    assert options.recovery == "small-model"
    assert options.hook.respond is not None and options.hook.calls_in_text
    with pytest.raises(ValueError, match="unknown recovery preset"):
        ReActAgent("r", ScriptedLLM([]), recovery="no-such-preset")


def test_auto_the_default_reads_a_call_written_as_text_for_a_local_model_only():
    """The accommodations pay on local servers (docs/recovery.md, the measurement); a hosted API returns
    calls natively, so by default its replies are taken as written."""
    local = ToolCallingAgent("t", ScriptedLLM([TAGGED_CALL, "5"]), tools=[add], verbose=False)
    assert local.options.recovery == "auto" and local.options.hook is GENERAL
    assert local.run("2 + 3?") == "5" and CALLS == [(2, 3)]
    CALLS.clear()
    hosted = ToolCallingAgent("t", ScriptedLLM([TAGGED_CALL], hosted=True), tools=[add], verbose=False)
    assert hosted.options.recovery == "auto" and hosted.options.hook is AS_WRITTEN
    assert hosted.run("2 + 3?") == TAGGED_CALL and CALLS == []


def test_auto_stays_decided_when_a_setting_changes_and_an_explicit_true_is_kept_for_a_hosted_model():
    hosted = ToolCallingAgent("t", ScriptedLLM([], hosted=True), tools=[add], verbose=False)
    assert hosted.options.updated(json_retries=0).hook is AS_WRITTEN
    assert hosted.options == AgentOptions()  # the decision is not a setting
    forced = ToolCallingAgent("t", ScriptedLLM([], hosted=True), tools=[add], verbose=False, recovery=True)
    assert forced.options.hook is GENERAL


def test_no_agent_module_imports_the_recovery_layer():
    for module in AGENTS.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            assert not any(name.startswith("vero.recovery") for name in names), module.name


def test_calls_in_text_on_runs_a_tagged_call_and_off_takes_the_reply_as_written():
    agent, _ = tool_calling([TAGGED_CALL, "5"], recovery=True)
    assert agent.run("2 + 3?") == "5" and CALLS == [(2, 3)]
    CALLS.clear()
    agent, _ = tool_calling([TAGGED_CALL], recovery=RecoveryHook(calls_in_text=False, calls_in_prose=False))
    assert agent.run("2 + 3?") == TAGGED_CALL and CALLS == []


def test_calls_in_prose_alone_runs_a_read_only_call_written_amid_prose():
    prose = 'First I add them: {"name": "add", "arguments": {"a": 2, "b": 3}} and then I answer.'
    agent, _ = tool_calling([prose, "5"], recovery=RecoveryHook(calls_in_text=False))
    assert agent.run("2 + 3?") == "5" and CALLS == [(2, 3)]
    CALLS.clear()
    agent, _ = tool_calling([prose], recovery=RecoveryHook(calls_in_text=False, calls_in_prose=False))
    assert agent.run("2 + 3?") == prose and CALLS == []


def test_unlabelled_calls_off_makes_a_bare_json_call_a_format_error_in_text_react():
    bare = '{"name": "add", "arguments": {"a": 2, "b": 3}}'
    llm = ScriptedLLM([bare, "Final Answer: 5"])
    assert ReActAgent("r", llm, tools=[add], verbose=False).run("2 + 3?") == "5" and CALLS == [(2, 3)]
    CALLS.clear()
    llm = ScriptedLLM([bare, "Final Answer: 5"])
    agent = ReActAgent("r", llm, tools=[add], verbose=False, recovery=RecoveryHook(unlabelled_calls=False))
    assert agent.run("2 + 3?") == "5" and CALLS == []
    assert "Invalid format" in llm.requests[1].messages[-1]["content"]


def test_repeated_call_note_off_sends_the_result_without_the_note():
    call = 'Thought: add\nAction: add\nAction Input: {"a": 2, "b": 3}'
    for hook, noted in ((GENERAL, True), (RecoveryHook(repeated_call_note=False), False)):
        llm = ScriptedLLM([call, "Thought: again\n" + call.split("\n", 1)[1], "Final Answer: 5"])
        ReActAgent("r", llm, tools=[add], verbose=False, recovery=hook).run("2 + 3?")
        assert ("You made that same call before" in llm.requests[2].messages[-1]["content"]) is noted


def test_nudges_off_ends_a_cut_off_native_reply_failed_instead_of_asking_again():
    cut = {"content": "The answer is", "finish_reason": "length"}
    agent, llm = tool_calling([cut, "5"], recovery=True)
    assert agent.run("2 + 3?") == "5" and agent.last_result.status == Status.OK and llm.calls == 2
    agent, llm = tool_calling([cut, "5"], recovery=RecoveryHook(nudges=False))
    agent.run("2 + 3?")
    assert agent.last_result.status == Status.FAILED and llm.calls == 1


@tool(read_only=True)
def half(n: float) -> float:
    """Half of a number; fails for a negative one."""
    if n < 0:
        raise ValueError("n must be 0 or more")
    return n / 2


def test_tidy_numbers_off_sends_tool_output_and_the_answer_as_they_are():
    call = 'Thought: halve\nAction: half\nAction Input: {"n": 0.6000000000000001}'
    noisy = "0.30000000000000004"
    for hook, shown in ((GENERAL, "0.3"), (RecoveryHook(tidy_numbers=False), noisy)):
        llm = ScriptedLLM([call, f"Final Answer: {noisy}"])
        assert ReActAgent("r", llm, tools=[half], verbose=False, recovery=hook).run("0.6 / 2?") == shown
        assert llm.requests[1].messages[-1]["content"].startswith(f"Observation: {shown}")


def test_refuse_repeated_failures_off_runs_a_failed_call_again():
    call = 'Thought: halve\nAction: half\nAction Input: {"n": -2}'
    for hook, ran_twice in ((GENERAL, False), (RecoveryHook(refuse_repeated_failures=False), True)):
        llm = ScriptedLLM([call, "Thought: again\n" + call.split("\n", 1)[1], "Final Answer: no"])
        agent = ReActAgent("r", llm, tools=[half], verbose=False, recovery=hook)
        agent.run("half of -2?")
        errors = [s.data.get("error") for s in agent.last_result.steps if s.kind == "observation"]
        assert (errors[-1] != "repeated_failure") is ran_twice
