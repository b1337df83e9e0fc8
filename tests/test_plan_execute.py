"""PlanExecuteAgent: plan, approval gate, ReAct step executor, replanner and its caps."""

import json
import time

import pytest

from vero import tool
from vero.agents._plan import read_steps
from vero.agents.plan_execute import Plan, PlanExecuteAgent
from vero.core.result import FAILED, MAX_TURNS, NEEDS_REVIEW, OK, REJECTED
from vero.testing import ScriptedLLM


def plan(*steps):
    return json.dumps({"steps": list(steps)})


def respond(answer):
    return json.dumps({"response": answer})


def make(replies, **kwargs):
    """The classic loop (a replanner after every step); the default is tested in test_plan_execute_default."""
    llm = ScriptedLLM(list(replies))
    kwargs.setdefault("replan_every_step", True)
    return PlanExecuteAgent("pe", llm, verbose=False, **kwargs), llm


def kinds(agent):
    return [s.kind for s in agent.last_result.steps if s.depth == 0]


@tool
def lookup(city: str) -> str:
    """Look up a city's population."""
    return {"Paris": "2.1 million", "Rome": "2.8 million"}[city]


def test_plan_renders_each_status_marker():
    p = Plan.of(["a", "b", "c", "d"])
    for step, status in zip(p.steps, ["completed", "in_progress", "failed", "pending"]):
        step.status = status
    assert p.render() == "1. [x] a\n2. [>] b\n3. [!] c\n4. [ ] d"
    assert p.remaining() == ["d"]
    p.replace_remaining(["e", "f"])
    assert [s.description for s in p.steps] == ["a", "b", "c", "e", "f"]


def test_happy_path_two_steps_costs_five_calls():
    replies = [plan("find the number", "double it"), "Final Answer: 21", plan("double it"),
               "Final Answer: 42", respond("The answer is 42.")]
    agent, llm = make(replies)
    assert agent.run("double the number") == "The answer is 42."
    result = agent.last_result
    assert result.status == OK and llm.calls == 5 and result.llm_calls == 5
    assert kinds(agent) == ["plan", "plan_step", "plan_step", "plan_step", "plan_step", "final"]
    step_results = [s for s in result.steps_of("plan_step") if s.data["status"] != "in_progress"]
    assert [(s.data["result"], s.data["status"]) for s in step_results] == [("21", "completed"), ("42", "completed")]
    assert [s.content for s in result.steps_of("plan_step")] == [
        "[>] find the number", "[x] find the number -> 21", "[>] double it", "[x] double it -> 42"]
    assert result.steps_of("plan")[0].content == "1. [ ] find the number\n2. [ ] double it"


def test_step_results_and_the_plan_are_in_the_executor_prompt():
    replies = [plan("find the number", "double it"), "Final Answer: 21", plan("double it"),
               "Final Answer: 42", respond("42")]
    agent, llm = make(replies)
    agent.run("double the number")
    first, second = llm.requests[1], llm.requests[3]
    assert first.stop == ["Observation:"]  # a ReAct sub-agent runs each step
    assert "1. [>] find the number\n2. [ ] double it" in first.messages[-1]["content"]
    assert "## Results of earlier steps\n(none yet)" in first.messages[-1]["content"]
    text = second.messages[-1]["content"]
    assert "1. [x] find the number\n2. [>] double it" in text
    assert "Step 1 [x] find the number\nResult: 21" in text
    assert "## Your step\ndouble it" in text and "## Overall task\ndouble the number" in text
    replanner = llm.requests[2].messages[1]["content"]
    assert "Step 1 [x] find the number\nResult: 21" in replanner


def test_planner_sees_the_tools_but_cannot_call_them_and_steps_use_the_shared_registry():
    replies = [plan("look up Paris"), 'Thought: look it up\nAction: lookup\nAction Input: {"city": "Paris"}',
               "Final Answer: 2.1 million", respond("Paris has 2.1 million people.")]
    agent, llm = make(replies, tools=[lookup])
    assert agent.run("Population of Paris?") == "Paris has 2.1 million people."
    planner = llm.requests[0]
    assert planner.tools is None and "lookup(city: string)" in planner.messages[1]["content"]
    assert "cannot call tools" in planner.messages[0]["content"]
    observations = [s for s in agent.last_result.steps if s.kind == "observation"]
    assert [(s.content, s.depth) for s in observations] == [("2.1 million", 1)]


@tool
def flaky(x: str) -> str:
    """Always fails."""
    raise RuntimeError("service down")


def test_unknown_tool_and_raising_tool_in_a_step_become_observations():
    replies = [plan("fetch"), 'Thought: t\nAction: nosuch\nAction Input: {}',
               'Thought: t\nAction: flaky\nAction Input: {"x": "1"}', "Final Answer: unavailable",
               "Final Answer: unavailable",  # asked once more: no tool call has worked, so it was a guess
               respond("The service is down.")]
    agent, llm = make(replies, tools=[flaky])
    assert agent.run("task") == "The service is down."
    observations = [s.content for s in agent.last_result.steps if s.kind == "observation"]
    assert observations[0].startswith("Error: unknown tool 'nosuch'")
    assert observations[1] == "Error: tool 'flaky' raised RuntimeError: service down"
    assert "Observation: Error: tool 'flaky' raised RuntimeError" in llm.requests[3].messages[-1]["content"]
    assert llm.calls == 6 and agent.last_result.status == OK
    assert not any("Fix a failed tool call" in r.messages[0]["content"] for r in llm.requests)  # max_repairs = 0


def test_approved_plan_runs_and_the_gate_sees_the_plan():
    seen = []
    agent, llm = make([plan("only step"), "Final Answer: done", respond("done")],
                      approve=lambda p: seen.append(p.render()) or True)
    assert agent.run("task") == "done" and llm.calls == 3
    assert seen == ["1. [ ] only step"]
    assert agent.last_result.steps_of("approval")[0].data == {"approved": True}


def test_rejected_plan_calls_no_executor():
    agent, llm = make([plan("a", "b"), "Final Answer: never"], approve=lambda p: False)
    assert agent.run("task") == ""
    result = agent.last_result
    assert result.status == REJECTED
    assert llm.calls == 1 and llm.remaining == 1  # only the planner
    assert kinds(agent) == ["plan", "approval"] and result.steps_of("plan_step") == []
    assert result.steps_of("approval")[0].content == "rejected"
    assert agent.history == []  # no answer, nothing appended


def test_feedback_sends_the_plan_back_to_the_planner():
    verdicts = iter(["add a step that checks the result", True])
    replies = [plan("compute"), plan("compute", "check"), "Final Answer: 4", plan("check"),
               "Final Answer: ok", respond("4 (checked)")]
    agent, llm = make(replies, approve=lambda p: next(verdicts))
    assert agent.run("2 + 2") == "4 (checked)"
    assert llm.calls == 6
    second_planner = llm.requests[1].messages[1]["content"]
    assert "## Your previous plan\n1. [ ] compute" in second_planner
    assert "## Feedback on that plan\nadd a step that checks the result" in second_planner
    assert [s.data["approved"] for s in agent.last_result.steps_of("approval")] == [False, True]
    assert [s.content for s in agent.last_result.steps_of("approval")] == [
        "sent back with feedback: add a step that checks the result", "approved"]


def test_feedback_that_never_approves_ends_rejected_after_max_plan_revisions():
    agent, llm = make([plan(f"v{i}") for i in range(10)], approve=lambda p: "still not right")
    assert agent.run("task") == ""
    assert agent.last_result.status == REJECTED
    assert llm.calls == 4  # the plan + 3 revisions (max_plan_revisions=3); none executed
    agent, llm = make([plan(f"v{i}") for i in range(10)], approve=lambda p: "no", max_plan_revisions=1)
    agent.run("task")
    assert agent.last_result.status == REJECTED and llm.calls == 2


def test_empty_plan_fails():
    agent, llm = make([plan(), "never"])
    assert agent.run("task") == ""
    assert agent.last_result.status == FAILED and llm.calls == 1
    assert agent.last_result.steps_of("error")[0].content == "the planner returned an empty plan"
    assert type(agent.last_result.error).__name__ == "EmptyPlanError"


def test_a_plan_of_500_steps_is_cut_to_20_with_a_warning():
    seen = []
    agent, llm = make([plan(*[f"step {i}" for i in range(500)])], approve=lambda p: seen.append(len(p)) or False)
    agent.run("task")
    assert seen == [20]
    assert "the plan had 500 steps; keeping the first 20" in agent.last_result.steps_of("warning")[0].content


def test_a_planner_reply_that_stays_unusable_makes_the_task_a_one_step_plan():
    agent, llm = make(["First I would look it up, then answer."] * 3 + ["Final Answer: 42", respond("42")])
    assert agent.run("What is six times seven?") == "42"
    result = agent.last_result
    assert result.status == OK and llm.calls == 5
    assert '{"steps": ["first step", "second step"]}' in llm.requests[1].messages[-1]["content"]
    assert result.steps_of("plan")[0].content == "1. [ ] What is six times seven?"
    assert "the task runs as a single step" in result.steps_of("warning")[-1].content
    assert "## Your step\nWhat is six times seven?" in llm.requests[3].messages[-1]["content"]


def test_prose_planner_reply_then_json_proceeds():
    agent, llm = make(["Let me think.", plan("one"), "Final Answer: 1", respond("1")])
    assert agent.run("task") == "1" and llm.calls == 4 and agent.last_result.status == OK


def test_failing_step_is_marked_failed_with_its_partial_result():
    replies = [plan("try it", "report"), "gibberish one", "gibberish two", "gibberish three",
               respond("could not do it")]
    agent, llm = make(replies)
    assert agent.run("task") == "could not do it"
    result = agent.last_result
    done = [s for s in result.steps_of("plan_step") if s.data["status"] != "in_progress"][0]
    assert done.data["status"] == "failed" and done.data["result"] == "gibberish three"  # the sub-run's partial
    assert done.content == "[!] try it -> gibberish three"
    replanner = llm.requests[4].messages[1]["content"]
    assert "1. [!] try it\n2. [ ] report" in replanner and "Step 1 [!] try it" in replanner
    assert llm.calls == 5


def test_same_remaining_plan_twice_in_a_row_ends_with_a_final_answer():
    # after a, the replanner inserts x; x fails (3 malformed ReAct replies) and it proposes [x, b] again
    replies = [plan("a", "b"), "Final Answer: ra", plan("x", "b"), "hmm", "hmm", "hmm", plan("x", "b"),
               "Summary from ra", "never"]
    agent, llm = make(replies)
    assert agent.run("task") == "Summary from ra"
    result = agent.last_result
    assert result.status == MAX_TURNS and llm.calls == 8
    warnings = [s.content for s in result.steps_of("warning") if s.depth == 0]
    assert warnings == ["the replanner proposed the same plan twice in a row"]
    final_request = llm.requests[7].messages[1]["content"]
    assert "Result: ra" in final_request
    assert "Step 2 [!] x\nResult: none (the step failed; it ended with: hmm)" in final_request


def test_step_budget_ends_with_a_final_answer():
    replies = [plan("a", "b", "c"), "Final Answer: ra", plan("b", "c"), "Final Answer: rb", plan("c"),
               "Best effort answer", "never"]
    agent, llm = make(replies, max_steps=2)
    assert agent.run("task") == "Best effort answer"
    assert agent.last_result.status == MAX_TURNS and llm.calls == 6  # 1 + 2 * (1 + 1) + 1
    final = [s for s in agent.last_result.steps_of("final") if s.depth == 0]
    assert [(s.content, s.data) for s in final] == [("Best effort answer", {"reason": "max_turns"})]


def test_a_cut_off_answer_after_a_cap_is_not_used():
    replies = [plan("a", "b"), "Final Answer: ra", plan("b"), {"content": "Best eff", "finish_reason": "length"}]
    agent, llm = make(replies, max_steps=1)
    assert agent.run("task") == "ra"  # the last step's result, not the cut-off reply
    result = agent.last_result
    assert result.status == MAX_TURNS and llm.calls == 4 and not [s for s in result.steps_of("final") if s.depth == 0]
    assert "empty or cut off" in result.steps_of("warning")[-1].content


def test_max_steps_is_the_old_name_of_max_turns():
    assert make([])[0].max_steps == 20
    assert make([], max_turns=4)[0].max_steps == 4
    assert make([], max_steps=7)[0].max_turns == 7  # giving both, different, raises (test_pattern_decisions)


def test_replan_cap_ends_with_a_final_answer():
    replies = [plan("a"), "Final Answer: ra", plan("x"), "Final Answer: rx", plan("y"), "Final from ra, rx", "never"]
    agent, llm = make(replies, max_replans=1)
    assert agent.run("task") == "Final from ra, rx"
    result = agent.last_result
    assert result.status == MAX_TURNS and llm.calls == 6
    assert [s.content for s in result.steps_of("replan")] == ["1. [x] a\n2. [ ] x"]
    assert "the replan cap (1) is reached" in result.steps_of("warning")[0].content


def test_replanner_without_response_or_steps_is_reasked():
    replies = [plan("a"), "Final Answer: ra", '{"steps": []}', respond("ra it is")]
    agent, llm = make(replies)
    assert agent.run("task") == "ra it is" and llm.calls == 4
    assert "no steps remain" in llm.requests[3].messages[-1]["content"]


def test_unusable_replanner_fails_keeping_the_last_step_result():
    agent, llm = make([plan("a"), "Final Answer: ra", "hmm", "hmm", "hmm"])
    assert agent.run("task") == "ra"
    assert agent.last_result.status == FAILED and llm.calls == 5


def test_empty_input_makes_no_model_call():
    agent, llm = make(["never"])
    assert agent.run("") == "" and agent.last_result.status == FAILED and llm.calls == 0


def test_braces_in_the_task_are_safe():
    task = "Explain {x} and {{y}}"
    agent, llm = make([plan("say {x}"), "Final Answer: {x} is x", respond("{x} done")])
    assert agent.run(task) == "{x} done"
    assert llm.requests[0].messages[1]["content"].startswith("## Task\nExplain {x} and {{y}}")
    assert "## Your step\nsay {x}" in llm.requests[1].messages[-1]["content"]


def test_history_reaches_the_planner_of_the_next_run_and_system_prompt_keeps_the_rules():
    replies = [plan("greet"), "Final Answer: hi", respond("Hi Alice"), plan("recall"), "Final Answer: Alice",
               respond("Alice")]
    agent, llm = make(replies, system_prompt="You plan tersely {literally}.")
    agent.run("I am Alice")
    agent.run("Who am I?")
    assert [m.content for m in agent.history] == ["I am Alice", "Hi Alice", "Who am I?", "Alice"]
    planner = llm.requests[3].messages
    assert "User: I am Alice\nAssistant: Hi Alice" in planner[1]["content"]
    assert planner[0]["content"].startswith("You plan tersely {literally}.\n\n")
    assert planner[0]["content"].endswith(PlanExecuteAgent.planner_rules)


# -- end to end through the real client ----------------------------------------------
def test_end_to_end_through_chat_openai_and_the_mock_server():
    from vero.core.chat_openai import ChatOpenAI
    from vero.testing import MockOpenAIServer

    replies = [plan("look up Rome"), 'Thought: look\nAction: lookup\nAction Input: {"city": "Rome"}',
               "Final Answer: 2.8 million", "Rome has 2.8 million people."]  # the default: a plain answer at the end
    with MockOpenAIServer(replies) as srv:
        llm = ChatOpenAI(api_key="test", base_url=srv.base_url, model_name="m", max_retries=0)
        agent = PlanExecuteAgent("e2e", llm, tools=[lookup], verbose=False)
        assert agent.run("Population of Rome?") == "Rome has 2.8 million people."
        assert agent.last_result.status == OK and agent.last_result.llm_calls == 4 and len(srv.requests) == 4
        assert srv.requests[1]["stop"] == ["Observation:"]
        assert "Observation: 2.8 million" in srv.requests[2]["messages"][-1]["content"]


# -- a replanner that repeats the whole plan; settings reach the step agents -------------------
def test_a_replanner_repeating_completed_steps_does_not_rerun_them():
    replies = [plan("Look up A", "Compute B"), "Final Answer: ra",
               plan("  look up  a ", "Compute B"),  # the full plan, the done step spelled differently
               "Final Answer: rb", respond("done: ra, rb")]
    agent, llm = make(replies)
    assert agent.run("task") == "done: ra, rb"
    result = agent.last_result
    assert result.status == OK and llm.calls == 5
    assert "## Your step\nCompute B" in llm.requests[3].messages[-1]["content"]
    starts = [s.content for s in result.steps_of("plan_step") if s.data["status"] == "in_progress"]
    assert starts == ["[>] Look up A", "[>] Compute B"]  # A ran once
    assert result.steps_of("replan") == []  # the remaining plan did not change


def test_a_replanner_listing_only_completed_steps_keeps_the_remaining_plan():
    replies = [plan("a", "b"), "Final Answer: ra", plan("a"), "Final Answer: rb", respond("ok")]
    agent, llm = make(replies)
    assert agent.run("task") == "ok" and llm.calls == 5
    assert "## Your step\nb" in llm.requests[3].messages[-1]["content"]
    assert agent.last_result.steps_of("replan") == []


def test_every_step_done_but_no_answer_ends_with_a_final_answer():
    agent, llm = make([plan("a"), "Final Answer: ra", plan("a"), "Summary: ra", "never"])
    assert agent.run("task") == "Summary: ra"
    result = agent.last_result
    assert result.status == MAX_TURNS and llm.calls == 4
    assert [s.content for s in result.steps_of("warning")] == ["every step is done, but the replanner gave no answer"]


@tool
def dump() -> str:
    """Return a long text."""
    return "x" * 500


def test_step_agents_inherit_max_observation_chars():
    replies = [plan("dump it"), 'Thought: go\nAction: dump\nAction Input: {}', "Final Answer: dumped",
               respond("dumped")]
    agent, llm = make(replies, tools=[dump], max_observation_chars=100)
    assert agent.run("task") == "dumped"
    observation = llm.requests[2].messages[-1]["content"]
    assert observation.startswith("Observation: " + "x" * 100 + "\n...[truncated: showing 100 of 500 characters]")
    assert "x" * 101 not in observation
    step = [s for s in agent.last_result.steps if s.kind == "observation"][0]
    assert step.depth == 1 and step.content == "x" * 500  # the full text stays in the steps


# -- the default loop: replan only after a failed step, answer in plain text at the end -----------
def make_default(replies, **kwargs):
    """The default loop without the early-answer check, unless ``answer_early=True``: these tests script
    the repair and the steps; the check's own tests (``test_early_answer_*``) script its replies."""
    llm = ScriptedLLM(list(replies))
    kwargs.setdefault("answer_early", False)
    return PlanExecuteAgent("pe", llm, verbose=False, **kwargs), llm


def test_default_two_completed_steps_cost_four_calls_and_no_replanner():
    agent, llm = make_default([plan("find A", "find B"), "Final Answer: 1", "Final Answer: 2", "A is 1 and B is 2."])
    assert agent.run("task") == "A is 1 and B is 2."
    assert agent.last_result.status == OK and llm.calls == 4
    assert not any("check the progress" in r.messages[0]["content"] for r in llm.requests)
    answer_request = llm.requests[3].messages
    assert "Every step of the plan is done" in answer_request[0]["content"]
    assert "Step 2 [x] find B\nResult: 2" in answer_request[1]["content"]
    assert kinds(agent)[-1] == "final"


def test_default_a_failed_step_is_repaired_and_the_later_steps_stay():
    """Seen with Qwen2.5-Coder-1.5B: asked for the remaining steps after a failed one, it wrote only the
    step that fixes the failure, and the later steps of the plan were lost."""
    broken = "Thought: hmm"  # no action and no answer: three in a row fail the step
    agent, llm = make_default([plan("try it", "report"), broken, broken, broken,
                               plan("try again"), "Final Answer: ok", "Final Answer: reported",
                               "It worked on the second try."])
    assert agent.run("task") == "It worked on the second try."
    assert agent.last_result.status == OK and llm.calls == 8
    assert "A step of the plan failed" in llm.requests[4].messages[0]["content"]
    assert [s.content for s in agent.last_result.steps_of("replan")] == [
        "1. [!] try it\n2. [ ] try again\n3. [ ] report"]


def test_default_a_repair_that_repeats_the_later_steps_does_not_run_them_twice():
    broken = "Thought: hmm"
    agent, llm = make_default([plan("try it", "report"), broken, broken, broken,
                               plan("try again", "Report"), "Final Answer: ok", "Final Answer: reported",
                               "It worked on the second try."])
    assert agent.run("task") == "It worked on the second try."
    assert [s.content for s in agent.last_result.steps_of("replan")] == [
        "1. [!] try it\n2. [ ] try again\n3. [ ] Report"]


def test_default_a_cut_off_answer_is_not_ok():
    agent, llm = make_default([plan("find A"), "Final Answer: 1", {"content": "A is", "finish_reason": "length"}])
    assert agent.run("task") == "1"  # the step result, kept as the partial answer
    assert agent.last_result.status == "needs_review" and llm.calls == 3


# -- what the step executor is given -----------------------------------------------------------
@tool
def weather(city: str) -> str:
    """Look up a city's weather."""
    return "sunny"


def executor_system_prompt(llm, call):
    return llm.requests[call].messages[0]["content"]


def test_a_step_that_names_a_tool_gets_only_that_tool():
    """Seen with Qwen2.5-Coder-1.5B: given every tool, the executor of "Find the greenhouse GH-06 with
    greenhouse_info" called the first tool listed (find_plant) instead."""
    replies = [plan("Find the weather in Paris with weather", "Summarise it"), CALL_WEATHER, "Final Answer: sunny",
               "Final Answer: Paris is sunny", "Paris is sunny."]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[lookup, weather], verbose=False, answer_early=False)
    assert agent.run("What is the weather in Paris?") == "Paris is sunny."
    named, unnamed = executor_system_prompt(llm, 1), executor_system_prompt(llm, 3)
    assert "weather(city: string)" in named and "lookup(" not in named
    assert "weather(" in unnamed and "lookup(" in unnamed  # a step that names no tool gets them all
    assert agent.tools.names() == ["lookup", "weather"]  # the agent's own registry is untouched


CALL_WEATHER = 'Thought: look it up\nAction: weather\nAction Input: {"city": "Paris"}'
# seen with Qwen2.5-Coder-1.5B, for "Find the plant code for Glasswort Pearl with find_plant":
INVENTED_STEP_RESULT = "Thought: I now know the final answer\nFinal Answer: the final answer to the task is 21,165.00"


def test_a_step_answered_without_calling_the_tool_it_names_gets_one_nudge():
    llm = ScriptedLLM([plan("Find the weather in Paris with weather"), INVENTED_STEP_RESULT, CALL_WEATHER,
                       "Final Answer: sunny", "Paris is sunny."])
    agent = PlanExecuteAgent("pe", llm, tools=[lookup, weather], verbose=False)
    assert agent.run("What is the weather in Paris?") == "Paris is sunny."
    nudge = llm.requests[2].messages[-1]["content"]
    assert nudge.startswith("Observation: You answered without calling a tool") and "weather(city" in nudge
    warnings = [s for s in agent.last_result.steps_of("warning") if s.depth == 1]
    assert [w.content for w in warnings] == ["the step's answer came without calling its tool; asked to call it"]
    assert [s.data["result"] for s in agent.last_result.steps_of("plan_step") if "result" in s.data] == ["sunny"]


def test_the_uncalled_tool_nudge_comes_once_per_step_and_not_for_steps_that_name_no_tool():
    llm = ScriptedLLM([plan("Find the weather in Paris with weather", "Say it nicely"), INVENTED_STEP_RESULT,
                       INVENTED_STEP_RESULT, "Final Answer: a fine day", "It is a fine day."])
    agent = PlanExecuteAgent("pe", llm, tools=[lookup, weather], verbose=False, answer_early=False)
    assert agent.run("What is the weather in Paris?") == "It is a fine day."
    assert llm.calls == 5  # plan, the invented answer, its nudge's reply (taken), step 2 at once, the answer
    assert len(agent.last_result.steps_of("warning")) == 1


def test_the_step_executor_is_told_how_to_finish_before_the_action_format():
    """A small executor that reads ReAct's usual format last copies its closing lines
    ("Thought: I now know the final answer") and invents the step's result."""
    agent, llm = make([plan("Find the population of Paris with lookup"), "Final Answer: 2.1 million",
                       respond("2.1 million")], tools=[lookup])
    agent.run("How many people live in Paris?")
    system = executor_system_prompt(llm, 1)
    assert system.index("Final Answer:") < system.index("Action Input:")
    # seen: told to finish with "the final answer to the task", steps returned "the final answer to the
    # task is 21,165.00", an invented answer to the whole task, which the answer call then trusted
    assert "Final Answer: your step's result" in system and "final answer to the task" not in system


def test_a_subclass_can_choose_its_own_step_executor():
    from vero.agents import ReActAgent

    class ClassicExecutors(PlanExecuteAgent):
        executor_class = ReActAgent

    llm = ScriptedLLM([plan("Find the population of Paris with lookup"), "Final Answer: 2.1 million", "2.1 million"])
    ClassicExecutors("pe", llm, tools=[lookup], verbose=False).run("How many people live in Paris?")
    system = executor_system_prompt(llm, 1)
    assert "Instead of the Final Answer line" in system
    assert system.index("Final Answer:") > system.index("Action Input:")


# -- what a step hands on ------------------------------------------------------------------------
@tool
def population(city: str) -> str:
    """Look up a city's population."""
    if city != "Paris":
        return '{"error": "unknown city"}'
    return '{"city": "Paris", "population": 2102650}'


def test_later_steps_and_the_answer_see_the_tool_results_as_the_tool_gave_them():
    """Seen with Qwen2.5-Coder-1.5B: after keeper_profile returned hourly_wage 28.9 and weekly_hours 44,
    the executor's answer was "earns 1,255 crowns in a week", and the next step multiplied that."""
    replies = [plan("Find the population of Paris with population", "Double it"),
               'Action: population\nAction Input: {"city": "Paris"}', "Final Answer: about 2.1 million",
               "Final Answer: 4205300", "4205300"]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[population], verbose=False, answer_early=False)
    assert agent.run("What is twice the population of Paris?") == "4205300"
    handed_on = "Tool result: population(city='Paris') -> {\"city\": \"Paris\", \"population\": 2102650}"
    second_step, answer_request = llm.requests[3].messages[1]["content"], llm.requests[4].messages[1]["content"]
    assert "Result: about 2.1 million" + "\n" + handed_on in second_step
    assert handed_on in answer_request


def test_a_step_whose_every_tool_call_failed_is_failed_whatever_the_executor_said():
    """Seen with Qwen2.5-Coder-1.5B: greenhouse_info('moonpetal_lily') failed twice, and the executor
    answered "The Moonpetal Lily is not grown in any greenhouse."; the step must not count as done."""
    replies = [plan("Find the population of Lyon with population"),
               'Action: population\nAction Input: {"city": "Lyon"}', "Final Answer: Lyon has no people.",
               respond("The population of Lyon could not be found.")]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[population], verbose=False)
    assert agent.run("How many people live in Lyon?") == "The population of Lyon could not be found."
    done = [s for s in agent.last_result.steps_of("plan_step") if s.data["status"] != "in_progress"]
    assert [s.data["status"] for s in done] == ["failed"]
    assert kinds(agent) == ["plan", "plan_step", "plan_step", "final"] and llm.calls == 4  # the replanner answered


def test_a_failed_step_hands_on_its_failed_calls_not_its_guess():
    """Seen with Qwen2.5-Coder-1.5B (t24): every calculate call of the last step failed and the executor
    guessed "... is 800.0"; the repaired step computed 997.5, but the answer copied 800.0 from the results."""
    replies = [plan("Find the population of Lyon with population"),
               'Action: population\nAction Input: {"city": "Lyon"}', "Final Answer: Lyon has 800000 people.",
               "Final Answer: Lyon has 800000 people.",  # the same guess after the executor's guess nudge
               plan("Find the population of Paris with population"),
               'Action: population\nAction Input: {"city": "Paris"}', "Final Answer: 2102650", "2102650"]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[population], verbose=False)
    assert agent.run("How many people live in Lyon or else Paris?") == "2102650" and llm.calls == 8
    repair_request, answer_request = llm.requests[4].messages[1]["content"], llm.requests[7].messages[1]["content"]
    for request in (repair_request, answer_request):
        assert "800000" not in request
        assert ("Step 1 [!] Find the population of Lyon with population\nResult: none (the step failed)\n"
                "Failed call: population(city='Lyon') -> {\"error\": \"unknown city\"}") in request
    assert "Result: 2102650" in answer_request


def test_a_failed_step_still_hands_on_the_calls_of_it_that_worked():
    replies = [plan("Find the populations of Paris and Lyon with population"),
               'Action: population\nAction Input: {"city": "Paris"}',
               'Action: population\nAction Input: {"city": "Lyon"}',
               "hmm", "hmm", "hmm",  # three malformed replies end the executor `failed`
               respond("Paris has 2102650 people; Lyon is unknown.")]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[population], verbose=False)
    assert agent.run("How many people live in Paris and Lyon?") == "Paris has 2102650 people; Lyon is unknown."
    repair_request = llm.requests[6].messages[1]["content"]
    assert ("Result: none (the step failed)\nTool result: population(city='Paris') -> {\"city\": \"Paris\", "
            "\"population\": 2102650}\nFailed call: population(city='Lyon') -> {\"error\": \"unknown city\"}") \
        in repair_request


def test_a_step_that_failed_before_is_retried_with_every_tool():
    """Seen with Qwen2.5-Coder-1.5B: the repair repeated the failed step ("Find the greenhouse where the
    Moonpetal Lily grows with greenhouse_info") word for word; with only the named tool it failed again."""
    step = "Find the weather in Lyon with weather"
    broken = "Thought: hmm"  # three malformed replies fail the step
    replies = [plan(step), broken, broken, broken, plan(step), "Final Answer: sunny", "Lyon is sunny."]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[lookup, weather], verbose=False)
    assert agent.run("What is the weather in Lyon?") == "Lyon is sunny."
    first_try, retry = executor_system_prompt(llm, 1), executor_system_prompt(llm, 5)
    assert "lookup(" not in first_try and "lookup(" in retry and "weather(" in retry


def test_a_plan_copied_from_the_example_in_the_instructions_is_asked_for_again():
    """Seen with Qwen2.5-Coder-1.5B: asked a question about greenhouses, the planner returned the
    example plan of its instructions ("Find the capital of Norway with country_info", ...)."""
    example = PlanExecuteAgent.planner_rules.split('{"steps": ["')[1].split('"')[0]
    replies = [plan(example), plan("Find the population of Paris with lookup"),
               'Action: lookup\nAction Input: {"city": "Paris"}', "Final Answer: 2.1 million", "2.1 million"]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[lookup], verbose=False)
    assert agent.run("How many people live in Paris?") == "2.1 million" and agent.last_result.status == OK
    assert "copied from the example" in llm.requests[1].messages[-1]["content"]
    assert agent.last_result.steps_of("plan")[0].content == "1. [ ] Find the population of Paris with lookup"


def test_a_repair_written_as_call_objects_runs_them_as_steps():
    """Seen with Qwen2.5-Coder-1.5B: asked for the steps to do instead of a failed one, the replanner wrote
    them as calls, {"steps": [{"tool": ..., "arguments": {...}}]}, which used to be read as no steps at all."""
    broken = "Thought: hmm"
    repair = json.dumps({"steps": [{"tool": "lookup", "arguments": {"city": "Rome"}}]})
    replies = [plan("Find the population of Rom with lookup"), broken, broken, broken, repair,
               'Action: lookup\nAction Input: {"city": "Rome"}', "Final Answer: 2.8 million", "2.8 million"]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[lookup, weather], verbose=False)
    assert agent.run("How many people live in Rome?") == "2.8 million"
    assert agent.last_result.status == OK
    assert agent.last_result.steps_of("replan")[0].content.endswith("2. [ ] Call lookup with city='Rome'")
    assert "lookup(" in executor_system_prompt(llm, 5) and "weather(" not in executor_system_prompt(llm, 5)


@pytest.mark.parametrize("item, text", [
    ({"tool": "lookup", "arguments": {"city": "Rome"}}, "Call lookup with city='Rome'"),
    ({"name": "lookup", "parameters": '{"city": "Rome"}'}, "Call lookup with city='Rome'"),
    ({"function": {"name": "lookup", "arguments": {}}}, "Call lookup"),
    ({"description": "Find Rome's population", "tool": "lookup"}, "Find Rome's population with lookup"),
    ({"step": "Find Rome's population with lookup", "tool": "lookup"}, "Find Rome's population with lookup"),
    ({"description": "Find the population", "tool": "lookup", "arguments": {"city": "Rome"}},
     "Find the population with lookup (city='Rome')"),
    ({"name": "Get the weather", "tool": "weather"}, "Call weather"),
    ({"name": "step1", "description": "Find Paris with lookup"}, "Find Paris with lookup"),  # step1: no tool
    ({"description": "Think it over", "tool": "none"}, "Think it over"),
    ({"name": "Find the population", "details": "of Rome"}, '{"name": "Find the population", "details": "of Rome"}'),
    ({"description": "  "}, '{"description": "  "}'),
    # seen: a repair's steps with the tool's signature as its name and the argument as a string
    ({"tool": "lookup(city: string)", "arguments": "Rome", "result": "none (the step failed)"},
     "Call lookup with Rome"),
    ({}, None),
    ("  Find it  ", "Find it"),
    ("}", None),  # seen: a stray brace from a repair whose JSON the model broke
    (" -- ", None),
])
def test_a_step_written_as_an_object_is_read_in_words(item, text):
    assert read_steps({"steps": [item]}, ["lookup", "weather"]) == ([text] if text else [])


def test_a_call_object_without_the_tools_to_check_it_against_stays_json():
    assert read_steps({"steps": [{"tool": "lookup"}]}) == ['{"tool": "lookup"}']


def test_a_step_written_again_right_after_itself_is_read_once():
    """Seen: a repair of three identical call objects.  A step repeated later on purpose stays."""
    call = {"tool": "lookup(city: string)", "arguments": "Rome"}
    assert read_steps({"steps": [call, call, "Add them", call]}, ["lookup"]) == [
        "Call lookup with Rome", "Add them", "Call lookup with Rome"]


@tool
def find_plant(name: str) -> dict:
    """Look up a plant by its name."""
    return {"name": name, "stock": 462, "price_per_plant_crowns": 112.8}


@tool
def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    return str(eval(expression, {"__builtins__": {}}))  # test double: a name in the expression raises


GREENHOUSE_CALLS: list[str] = []


@tool
def greenhouse_info(greenhouse_id: str) -> dict:
    """Look up a greenhouse by its id."""
    GREENHOUSE_CALLS.append(greenhouse_id)
    if greenhouse_id != "GH-03":
        return {"error": f"unknown greenhouse id {greenhouse_id!r}. Greenhouse ids are written like 'GH-04'."}
    return {"greenhouse_id": "GH-03", "city": "Quarry Hollow"}


def test_a_call_that_failed_in_an_earlier_step_is_not_run_again_by_a_later_executor():
    """Seen with Qwen2.5-Coder-1.5B (t11, and in 11 of 32 tasks of one run): the retried step's executor,
    given every tool, first made the very call that had failed for the step before."""
    GREENHOUSE_CALLS.clear()
    wrong = 'Action: greenhouse_info\nAction Input: {"greenhouse_id": "moonpetal_lily"}'
    step = "Find the greenhouse where the Moonpetal Lily grows with greenhouse_info"
    replies = [plan(step), wrong, *BROKEN, plan(step, "Find the city of that greenhouse with greenhouse_info"),
               wrong, 'Action: find_plant\nAction Input: {"name": "Moonpetal Lily"}', "Final Answer: GH-03",
               'Action: greenhouse_info\nAction Input: {"greenhouse_id": "GH-03"}', "Final Answer: Quarry Hollow",
               "Quarry Hollow"]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[find_plant, greenhouse_info], verbose=False)
    assert agent.run("In which city is the Moonpetal Lily grown?") == "Quarry Hollow"
    assert GREENHOUSE_CALLS == ["moonpetal_lily", "GH-03"] and llm.calls == len(replies)
    observation = llm.requests[7].messages[-1]["content"]
    assert "Not run: you made this exact call before and it failed ({\"error\": \"unknown greenhouse id" in observation
    assert "- find_plant(name): Look up a plant by its name" in observation
    assert agent.last_result.status == OK


DOOR: dict[str, object] = {}


@tool
def open_door() -> str:
    """Open the door."""
    DOOR["opened"] = int(DOOR.get("opened", 0)) + 1
    return "open" if DOOR.get("unlocked") else "error: the door is locked"


@tool
def unlock() -> str:
    """Unlock the door."""
    DOOR["unlocked"] = True
    return "unlocked"


def test_a_failed_call_runs_again_in_a_later_step_once_another_call_worked_since():
    """A call that worked may change what the failed one meets (here: unlock, then open)."""
    DOOR.clear()
    step = "Open the door with open_door"
    replies = [plan(step), "Action: open_door\nAction Input: {}", *BROKEN, plan("Unlock the door with unlock", step),
               "Action: unlock\nAction Input: {}", "Final Answer: unlocked",
               "Action: open_door\nAction Input: {}", "Final Answer: open", "The door is open."]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[open_door, unlock], verbose=False, answer_early=False)
    assert agent.run("Open the door.") == "The door is open." and agent.last_result.status == OK
    assert DOOR["opened"] == 2 and llm.calls == len(replies)


SLOW_CALLS: list[float] = []


@tool(timeout=0.05)
def slow_lookup() -> str:
    """Look something up (times out the first time)."""
    SLOW_CALLS.append(time.monotonic())
    if len(SLOW_CALLS) == 1:
        time.sleep(0.3)
    return "found"


def test_a_call_that_timed_out_in_an_earlier_step_runs_again_in_a_later_one():
    SLOW_CALLS.clear()
    step = "Look it up with slow_lookup"
    replies = [plan(step), "Action: slow_lookup\nAction Input: {}", *BROKEN, plan(step),
               "Action: slow_lookup\nAction Input: {}", "Final Answer: found", "It was found."]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[slow_lookup], verbose=False)
    assert agent.run("Look it up.") == "It was found." and agent.last_result.status == OK
    assert len(SLOW_CALLS) == 2 and llm.calls == len(replies)


# -- a failed step that cannot be repaired ------------------------------------------------------
BROKEN = ["Thought: hmm"] * 3  # three malformed ReAct replies in a row fail a step


def test_a_step_that_failed_twice_is_given_up_and_the_later_steps_still_run():
    """Seen with Qwen2.5-Coder-1.5B (t14, t01, t11): the planner's first step could not be done (finding a
    greenhouse with a tool that needs its id), the repair repeated it, and the later steps that answer the
    task never ran: the replanner made up an answer."""
    useless, useful = "Find the greenhouse of Paris with weather", "Find the population of Paris with lookup"
    replies = [plan(useless, useful), *BROKEN, plan(useless), *BROKEN, plan(useless, useful),
               'Action: lookup\nAction Input: {"city": "Paris"}', "Final Answer: 2.1 million", "2.1 million"]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[lookup, weather], verbose=False)
    assert agent.run("How many people live in Paris?") == "2.1 million"
    result = agent.last_result
    assert result.status == NEEDS_REVIEW and llm.calls == len(replies)
    assert f"the failed step {useless!r} could not be repaired; the plan goes on without it" in [
        s.content for s in result.steps_of("warning") if s.depth == 0]
    assert [s.data["status"] for s in result.steps_of("plan_step") if "result" in s.data] == [
        "failed", "failed", "completed"]
    assert "say briefly what is still unknown" in llm.requests[-1].messages[0]["content"]


def test_an_unusable_repair_does_not_end_the_run_the_later_steps_still_run():
    retries = PlanExecuteAgent("x", ScriptedLLM([])).json_retries
    replies = [plan("find A", "find B"), *BROKEN, *["no idea"] * (retries + 1), "Final Answer: 2", "B is 2."]
    agent, llm = make_default(replies)
    assert agent.run("task") == "B is 2."
    assert agent.last_result.status == NEEDS_REVIEW and llm.calls == len(replies)


def test_a_last_step_that_failed_twice_ends_with_an_answer_from_the_results():
    replies = [plan("find A", "find B"), "Final Answer: 1", *BROKEN, plan("find B"), *BROKEN, plan("find B"),
               "A is 1; B is unknown."]
    agent, llm = make_default(replies)
    assert agent.run("task") == "A is 1; B is unknown."
    assert agent.last_result.status == NEEDS_REVIEW and llm.calls == len(replies)
    assert "Step 1 [x] find A\nResult: 1" in llm.requests[-1].messages[1]["content"]


def test_an_answer_from_the_replanner_after_a_step_was_given_up_needs_review():
    """A repair that lists only the later steps gives the failed one up; the run cannot end ``ok``."""
    replies = [plan("find A", "find B"), *BROKEN, plan("find B"), *BROKEN, respond("A and B are unknown")]
    agent, llm = make_default(replies)
    assert agent.run("task") == "A and B are unknown"
    assert agent.last_result.status == NEEDS_REVIEW and llm.calls == len(replies)


def test_a_step_that_failed_twice_is_given_up_even_when_the_repair_adds_a_new_step():
    replies = [plan("find A", "find B"), *BROKEN, plan("find A"), *BROKEN, plan("find X", "find A"),
               "Final Answer: x", "Final Answer: b", "X is x and B is b."]
    agent, llm = make_default(replies)
    assert agent.run("task") == "X is x and B is b."
    result = agent.last_result
    assert result.status == NEEDS_REVIEW and llm.calls == len(replies)
    assert [s.content for s in result.steps_of("replan")][-1].endswith("2. [!] find A\n3. [ ] find X\n4. [ ] find B")


def test_a_given_up_step_done_later_does_not_need_review():
    replies = [plan("find A", "find B", "find C"), *BROKEN, *["no idea"] * 3, *BROKEN, plan("find A", "find B"),
               "Final Answer: a", "Final Answer: b", "Final Answer: c", "A, B and C."]
    agent, llm = make_default(replies)
    assert agent.run("task") == "A, B and C."
    assert agent.last_result.status == OK and llm.calls == len(replies)
    assert "Every step of the plan is done" in llm.requests[-1].messages[0]["content"]


def test_a_retried_step_says_which_tool_failed_for_it():
    """Seen with Qwen2.5-Coder-1.5B (t22): "Find the greenhouse where Emberroot grows with greenhouse_info";
    the executor called greenhouse_info with made-up ids, and on the retries, given every tool, it went on
    calling the tool the step names until one try picked find_plant."""
    step = "Find the population of Paris with weather"
    replies = [plan(step), 'Action: weather\nAction Input: {"city": "Paris"}', "Final Answer: sunny",
               "Final Answer: sunny", plan(step),  # the answer after only failed calls gets one nudge
               'Action: lookup\nAction Input: {"city": "Paris"}', "Final Answer: 2.1 million", "2.1 million"]
    llm = ScriptedLLM(replies)

    @tool
    def weather(city: str) -> str:
        """Look up a city's weather."""
        raise ValueError(f"no weather for {city}")

    agent = PlanExecuteAgent("pe", llm, tools=[lookup, weather], verbose=False)
    assert agent.run("How many people live in Paris?") == "2.1 million"
    assert llm.calls == len(replies)
    first_try, retry = (llm.requests[i].messages[-1]["content"] for i in (1, 5))
    note = "(This step failed before with weather: choose the tool whose description gives what the step needs.)"
    assert note not in first_try and f"## Your step\n{step}\n{note}" in retry


def test_a_given_up_step_proposed_again_is_dropped_without_another_warning():
    replies = [plan("find A", "find B", "find C"), *BROKEN, plan("find A"), *BROKEN, plan("find A", "find B"),
               *BROKEN, plan("find A", "find B"), "Final Answer: b", "Final Answer: c", "B is b, C is c."]
    agent, llm = make_default(replies)
    assert agent.run("task") == "B is b, C is c."
    result = agent.last_result
    assert result.status == NEEDS_REVIEW and llm.calls == len(replies)
    assert [s.content for s in result.steps_of("warning") if s.depth == 0] == [
        "the failed step 'find A' could not be repaired; the plan goes on without it"]


def test_every_repair_counts_toward_max_replans_also_one_that_gives_a_step_up():
    """Seen: after a given-up step, later steps that could not be done either failed and were repaired
    one after the other (44 model calls for a one-lookup task); the repairs are capped like replans."""
    replies = [plan("find A", "find B", "find C"), *BROKEN, plan("find B", "find C"), *BROKEN,
               "A and B are unknown."]  # no repair is asked for past the cap
    agent, llm = make_default(replies, max_replans=1)
    assert agent.run("task") == "A and B are unknown."
    result = agent.last_result
    assert result.status == MAX_TURNS and llm.calls == len(replies)
    assert [s.content for s in result.steps_of("warning") if s.depth == 0] == [
        "the failed step 'find A' could not be repaired; the plan goes on without it", "the replan cap (1) is reached"]


def test_with_max_replans_0_a_failed_step_ends_the_loop_without_asking_for_a_repair():
    replies = [plan("find A", "find B"), "Final Answer: 1", *BROKEN, "A is 1; B is unknown."]
    agent, llm = make_default(replies, max_replans=0)
    assert agent.run("task") == "A is 1; B is unknown."
    assert agent.last_result.status == MAX_TURNS and llm.calls == len(replies)
    assert not any("A step of the plan failed" in r.messages[0]["content"] for r in llm.requests)


def test_a_cut_off_answer_after_a_failed_step_falls_back_to_a_completed_steps_result_not_its_guess():
    """A failed step's answer is a guess (its calls failed, or it wrote no usable reply): when the answer
    after the cap is cut off, the run's answer is the last completed step's result."""
    replies = [plan("find A", "find B"), "Final Answer: 1", "gibberish one", "gibberish two", "gibberish three",
               {"content": "A is 1 and B", "finish_reason": "length"}]
    agent, llm = make_default(replies, max_replans=0)
    assert agent.run("task") == "1"
    assert agent.last_result.status == MAX_TURNS and llm.calls == len(replies)


@tool
def plant_record(name: str) -> dict:
    """Look up a plant by its name: its greenhouse."""
    return {"name": name, "greenhouse_id": "GH-03"}


LOOKUP_FIRST = "Find the greenhouse's city with greenhouse_info"
MADE_UP_ID = 'Action: greenhouse_info\nAction Input: {"greenhouse_id": "12345"}'


def test_a_step_whose_calls_all_failed_runs_again_after_the_next_step():
    """Seen with Qwen2.5-Coder-1.5B (t26, t17): the plan looked the greenhouse up before the plant that
    names it, the executor made up an id ('12345'), and the repairs that followed never recovered."""
    GREENHOUSE_CALLS.clear()
    replies = [plan(LOOKUP_FIRST, "Find the Moonpetal Lily with plant_record"),
               MADE_UP_ID, "Final Answer: unknown", "Final Answer: unknown",  # (the second after the guess nudge)
               'Action: plant_record\nAction Input: {"name": "Moonpetal Lily"}', "Final Answer: GH-03",
               'Action: greenhouse_info\nAction Input: {"greenhouse_id": "GH-03"}', "Final Answer: Quarry Hollow",
               "Quarry Hollow"]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[plant_record, greenhouse_info], verbose=False)
    assert agent.run("In which city is the Moonpetal Lily grown?") == "Quarry Hollow"
    result = agent.last_result
    assert result.status == OK and llm.calls == len(replies)  # no replanner call
    assert GREENHOUSE_CALLS == ["12345", "GH-03"]
    done = [(s.data["description"], s.data["status"]) for s in result.steps_of("plan_step") if "description" in s.data]
    assert done == [(LOOKUP_FIRST, "failed"), ("Find the Moonpetal Lily with plant_record", "completed"),
                    (LOOKUP_FIRST, "completed")]
    deferred = [s.content for s in result.steps_of("warning") if s.depth == 0]
    assert len(deferred) == 1 and "runs again after the next step" in deferred[0]
    retry = llm.requests[6].messages
    assert "plant_record(" not in retry[0]["content"]  # the step's own tool, as the first time
    assert "failed before" not in retry[-1]["content"] and "Tool result: plant_record(" in retry[-1]["content"]


def test_a_step_that_fails_again_after_the_next_step_is_repaired():
    GREENHOUSE_CALLS.clear()
    replies = [plan(LOOKUP_FIRST, "Find the Moonpetal Lily with plant_record"),
               MADE_UP_ID, "Final Answer: unknown", "Final Answer: unknown",
               'Action: plant_record\nAction Input: {"name": "Moonpetal Lily"}', "Final Answer: GH-03",
               # the plant's name, which the task gives: a wrong id, not a made-up one (vero.core.given_id)
               'Action: greenhouse_info\nAction Input: {"greenhouse_id": "Moonpetal Lily"}', "Final Answer: none",
               "Final Answer: none", respond("The greenhouse is GH-03; its city is unknown.")]
    llm = ScriptedLLM(replies)
    agent = PlanExecuteAgent("pe", llm, tools=[plant_record, greenhouse_info], verbose=False)
    assert agent.run("In which city is the Moonpetal Lily grown?") == "The greenhouse is GH-03; its city is unknown."
    assert "A step of the plan failed" in llm.requests[-1].messages[0]["content"]  # the repair, as before
    deferred = [s for s in agent.last_result.steps_of("warning") if "runs again after" in s.content]
    assert len(deferred) == 1  # once


def test_only_a_step_whose_every_call_failed_and_that_has_a_next_step_is_deferred():
    p = Plan.of(["a", "b"])
    first = p.steps[0]
    first.status, first.errors = "failed", [("t(x='1')", "error")]
    assert p.defer(first) and [s.description for s in p.steps] == ["a", "b", "a"] and p.steps[2].deferred
    p.steps[1].status = "completed"
    again = p.steps[2]
    again.status, again.errors = "failed", [("t(x='1')", "error")]
    assert not p.defer(again)  # once
    other = Plan.of(["a", "b", "c"])
    other.steps[0].status, other.steps[0].errors = "failed", [("t(x='1')", "error")]
    assert other.defer(other.steps[0])
    other.steps[1].status, other.steps[1].errors = "failed", [("t(x='2')", "error")]
    assert not other.defer(other.steps[1])  # one step per plan
    other.replace_remaining(["d", "e"])  # seen (t23): the deferred copy went with a repair, and a repair step
    other.steps[2].status, other.steps[2].errors = "failed", [("t(x='3')", "error")]  # was put off too
    assert not other.defer(other.steps[2])
    no_calls = Plan.of(["a", "b"])
    no_calls.steps[0].status = "failed"  # the executor broke down: no call to make up an input for
    assert not no_calls.defer(no_calls.steps[0])
    worked = Plan.of(["a", "b"])
    worked.steps[0].status, worked.steps[0].tool_results = "failed", [("t()", "ok")]
    assert not worked.defer(worked.steps[0])
    last = Plan.of(["a"])
    last.steps[0].status, last.steps[0].errors = "failed", [("t()", "error")]
    assert not last.defer(last.steps[0])  # nothing after it


# -- the early-answer check (answer_early, on by default) ----------------------------------------
@tool
def keeper_profile(name: str) -> str:
    """A greenhouse keeper's profile.

    Args:
        name: the keeper's full name
    """
    return json.dumps({"name": name, "years_of_service": 21, "hourly_wage": 31.15, "weekly_hours": 35})


# The plan Qwen2.5-Coder-1.5B wrote for "How many years of service does Idris Calloway have?": the divide
# step is one the task does not need, and with it the run answered 0.403846.
IDRIS_PLAN = plan("Find Idris Calloway's years of service with keeper_profile",
                  "Divide the years of service by 52 with calculate")
IDRIS_LOOKUP = ["Thought: I need to look up Idris Calloway's years of service.\nAction: keeper_profile\n"
                'Action Input: {"name": "Idris Calloway"}', "Final Answer: 21"]


def early(replies, **kwargs):
    llm = ScriptedLLM(list(replies))
    return PlanExecuteAgent("pe", llm, tools=[keeper_profile], verbose=False, **kwargs), llm


def test_early_answer_ends_the_run_when_a_completed_step_already_answers_the_task():
    agent, llm = early([IDRIS_PLAN, *IDRIS_LOOKUP, "21"])
    assert agent.run("How many years of service does Idris Calloway have?") == "21"
    result = agent.last_result
    assert result.status == OK and llm.calls == 4  # plan, the step's two ReAct calls, the check
    assert "Some steps of the plan are still to come" in llm.requests[3].messages[0]["content"]
    assert "Step 1 [x] Find Idris Calloway's years of service" in llm.requests[3].messages[1]["content"]
    assert "2. [ ] Divide the years of service by 52" in llm.requests[3].messages[1]["content"]
    assert [s.data["status"] for s in result.steps_of("plan_step")] == ["in_progress", "completed"]
    assert kinds(agent)[-1] == "final" and result.steps_of("final")[-1].content == "21"


def test_early_answer_not_yet_runs_the_next_step_and_the_documented_count_holds():
    """1 + 2 * 1 + 1 + 1 = 5 calls for two one-call steps: the check after step 1, none after the last."""
    agent, llm = make_default([plan("find A", "find B"), "Final Answer: 1", "Not yet.", "Final Answer: 2",
                               "A is 1 and B is 2."], answer_early=True)
    assert agent.run("task") == "A is 1 and B is 2."
    assert agent.last_result.status == OK and llm.calls == 5
    assert "Every step of the plan is done" in llm.requests[4].messages[0]["content"]


@pytest.mark.parametrize("reply", ["NOT YET", "**NOT YET**", "not yet: the rate is still to be looked up", "NOT_YET",
                                   "I still need the weekly hours; the wage is 31.15.", "",
                                   {"content": "The years of service are 21, and dividing", "finish_reason": "length"}])
def test_early_answer_a_not_yet_empty_or_cut_off_reply_lets_the_plan_go_on(reply):
    agent, llm = early([IDRIS_PLAN, *IDRIS_LOOKUP, reply, "Final Answer: 0.403846", "0.403846"])
    assert agent.run("How many years of service does Idris Calloway have?") == "0.403846"
    assert llm.calls == 6
    # a cut-off reply is recorded as such by call_llm; no reply here is read as an answer without the result
    assert all(s.data.get("cut_off") for s in agent.last_result.steps_of("warning"))


def test_early_answer_with_a_number_no_result_gave_is_not_taken():
    """A value the step did not produce is the model's own arithmetic (or a guess): the plan goes on."""
    agent, llm = early([IDRIS_PLAN, *IDRIS_LOOKUP, "Idris Calloway has 1092 weeks of service.",
                        "Final Answer: 0.403846", "0.403846"])
    agent.run("How many years of service does Idris Calloway have?")
    assert llm.calls == 6
    warning = agent.last_result.steps_of("warning")[0]
    assert "the results do not give" in warning.content and "1092" in warning.data["raw"]


def test_early_answer_is_not_asked_after_a_step_whose_result_is_an_id():
    """An id (GH-03) is a link to the next lookup, not an answer to a task that asks what it leads to."""
    agent, llm = make_default([plan("Find the greenhouse of the Moonpetal Lily", "Find that greenhouse's city"),
                               "Final Answer: GH-03", "Final Answer: Quarry Hollow", "Quarry Hollow"],
                              answer_early=True)
    assert agent.run("In which city is the Moonpetal Lily grown?") == "Quarry Hollow"
    assert llm.calls == 4


def test_early_answer_is_not_asked_in_the_classic_loop_or_when_turned_off():
    agent, llm = make([plan("find A", "find B"), "Final Answer: 1", plan("find B"), "Final Answer: 2",
                       respond("A is 1 and B is 2.")])
    assert agent.run("task") == "A is 1 and B is 2." and llm.calls == 5
    agent, llm = early([IDRIS_PLAN, *IDRIS_LOOKUP, "Final Answer: 0.403846", "0.403846"], answer_early=False)
    assert agent.run("How many years of service does Idris Calloway have?") == "0.403846" and llm.calls == 5


def test_early_answer_may_come_from_an_earlier_steps_tool_output():
    """Seen (t15): the temperature was in the greenhouse lookup's output, while that step's executor answered
    with the city; the check answered 18.0 from the output."""
    steps = plan("Find the keeper with keeper_profile", "Find the keeper's wage with keeper_profile", "Report")
    agent, llm = early([steps, 'Action: keeper_profile\nAction Input: {"name": "Idris Calloway"}',
                        "Final Answer: Idris Calloway", "Idris Calloway works 35 hours a week."])
    assert agent.run("How many hours a week does Idris Calloway work?") == "Idris Calloway works 35 hours a week."
    assert llm.calls == 4


def test_early_answer_that_is_only_an_id_is_not_taken():
    agent, llm = early([IDRIS_PLAN, *IDRIS_LOOKUP, "GH-03", "Final Answer: 0.403846", "0.403846"])
    agent.run("How many years of service does Idris Calloway have?")
    assert llm.calls == 6


GH03 = '{"greenhouse_id": "GH-03", "city": "Quarry Hollow", "keeper": "Idris Calloway", "temperature_c": 22.0}'
IDRIS = '{"name": "Idris Calloway", "years_of_service": 21, "hourly_wage": 31.15}'


@pytest.mark.parametrize(("answer", "outputs", "task", "taken"), [
    ("21", [IDRIS], "How many years of service does Idris Calloway have?", True),
    ("Idris Calloway has 21 years of service.", [IDRIS], "How many years of service does Idris Calloway have?", True),
    # seen (t20): the executor answered "Find the greenhouse GH-03" with its temperature, and the check repeated it
    ("22.0", [GH03], "How many years of service does the keeper of greenhouse GH-03 have?", False),
    ("22", [GH03], "What is the temperature in greenhouse GH-03?", True),  # 22 and 22.0 alike
    ("Quarry Hollow", [GH03], "In which city is the Moonpetal Lily grown?", True),
    ("Idris Calloway", [GH03], "Who keeps greenhouse GH-03?", True),  # keeps / keeper
    ("Quarry Hollow", [GH03], "Who keeps greenhouse GH-03?", False),  # a value, but not of the field asked about
    ("The total is 52,113.6 crowns.", ["52113.6"], "What are the Emberroot plants worth?", True),  # computed
    ("52113.6", ['{"stock": 462, "price_per_plant_crowns": 112.8}'], "What is the stock worth?", False),  # own sum
    ("37 plants cost 2219.63 crowns", ["2219.63"], "How much would 37 plants cost?", True),  # 37 is the task's
    ("nothing", [], "Who keeps greenhouse GH-03?", False),
    # seen (t24): asked for the weekly pay (hourly wage times weekly hours), the check gave the hourly wage
    ("26.6", ['{"hourly_wage": 26.6, "weekly_hours": 37.5}'],
     "What is the weekly pay (hourly wage times weekly hours) of the keeper, in crowns?", False),
    ("997.5", ['{"hourly_wage": 26.6, "weekly_hours": 37.5}', "997.5"],
     "What is the weekly pay (hourly wage times weekly hours) of the keeper, in crowns?", True),
    ("26.6", ['{"hourly_wage": 26.6, "weekly_hours": 37.5}'], "What is Wendell Okafor's hourly wage?", True),
    ("462", ['{"stock": 462, "price_per_plant_crowns": 112.8}'],
     "What is the total value in crowns of all Emberroot plants in stock (stock times price)?", False),
    # other worlds (a review): each needs a further lookup or arithmetic, so none is taken
    ("50000", ['{"name": "Bob Lin", "salary": 50000, "manager": "Carol Diaz"}'],
     "What is the salary of Bob Lin's manager?", False),  # the record links to the manager's
    ("The late fee is $0.25 per day.", ['{"loan_id": "L-7", "days_overdue": 12}'],
     "What is the late fee for loan L-7 at $0.25 per day overdue?", False),  # only the task's numbers
    ("88 days", ["Loan L-7: borrowed 2024-04-17 by member 88, due 2024-05-01"],
     "How many days overdue is loan L-7 today?", False),  # a sentence is no computed output
    ("Ana Ruiz's manager is E-12.", ['{"name": "Ana Ruiz", "manager_id": "E-12"}'], "Who is the manager of Ana Ruiz?",
     False),  # an id in a sentence
    ("Not available", ['{"employee": "Ana", "grade": "A"}'], "What grade does Ana have?", False),  # "a" in "available"
    ("1200", ['{"shipment_id": "S-1", "weight_kg": 1200}'], "What is the total weight of shipments S-1 and S-2?",
     False),  # a total
    ("12.5", ['{"title": "Dune", "price": 12.5}'], "What do 3 copies of Dune cost at the listed price?", False),
    ("3", ['{"loan": {"days_overdue": 3, "fine": 1.5}}'], "What is the fine on the loan?", False),  # not plain
    ("37.5", ['{"name": "Dune", "price": 12.5}', "37.5"], "What do 3 copies of Dune cost at the listed price?",
     True),  # computed
])
def test_from_results_takes_values_of_fields_the_task_asks_about(answer, outputs, task, taken):
    from vero.agents._early_answer import from_results

    assert from_results(answer, outputs, task) is taken
