"""BasicReflectionAgent: generate -> reflect -> revise, bounded, never fooled by a broken critic."""

import json

from vero.agents.basic_reflection import BasicReflectionAgent
from vero.core.result import Status
from vero.testing import ScriptedLLM


def critique(ok, feedback="", **extra):
    return json.dumps({"is_sufficient": ok, "feedback": feedback, **extra})


def make(replies, **kwargs):
    llm = ScriptedLLM(list(replies))
    return BasicReflectionAgent("reflect", llm, verbose=False, **kwargs), llm


def kinds(agent):
    return [s.kind for s in agent.last_result.steps]


def test_accepted_first_draft_costs_two_calls():
    agent, llm = make(["Paris", critique(True, thinking="Correct capital.")])
    assert agent.run("Capital of France?") == "Paris"
    result = agent.last_result
    assert result.status == Status.OK and llm.calls == 2 and result.llm_calls == 2
    assert kinds(agent) == ["draft", "critique"]
    step = result.steps_of("critique")[0]
    assert step.data == {"is_sufficient": True, "feedback": "", "thinking": "Correct capital."}


def test_the_critic_sees_the_task_and_the_draft():
    agent, llm = make(["Paris", critique(True)])
    agent.run("Capital of France?")
    critic_request = llm.requests[1].messages
    assert critic_request[0]["role"] == "system" and "strict critic" in critic_request[0]["content"]
    assert critic_request[1]["content"] == "## User Task\nCapital of France?\n\n## Response\nParis"


def test_rejected_draft_is_revised_with_the_feedback_then_accepted():
    agent, llm = make(
        ["def f(): pass", critique(False, "Add a docstring."), 'def f():\n    """Doc."""', critique(True)]
    )
    assert agent.run("write f") == 'def f():\n    """Doc."""'
    assert agent.last_result.status == Status.OK and llm.calls == 4
    assert kinds(agent) == ["draft", "critique", "revision", "critique"]
    revise_system = llm.requests[2].messages[0]["content"]
    assert "## Previous Response\ndef f(): pass" in revise_system
    assert "## Feedback\nAdd a docstring." in revise_system
    assert llm.requests[2].messages[1] == {"role": "user", "content": "write f"}


def test_budget_of_three_critiques_never_accepted_costs_six_calls():
    # draft, critique, revision, critique, revision, critique: no revision after the last critique
    replies = ["v1", critique(False, "bad 1"), "v2", critique(False, "bad 2"), "v3", critique(False, "bad 3"), "extra"]
    agent, llm = make(replies)  # default max_turns = 3
    assert agent.max_turns == 3
    assert agent.run("task") == "v3"
    assert agent.last_result.status == Status.NEEDS_REVIEW
    assert llm.calls == 6 and llm.remaining == 1
    assert kinds(agent) == ["draft", "critique", "revision", "critique", "revision", "critique"]
    assert [s.data["feedback"] for s in agent.last_result.steps_of("critique")] == ["bad 1", "bad 2", "bad 3"]


def test_budget_of_one_critique_costs_two_calls():
    agent, llm = make(["v1", critique(False, "wrong"), "never used"], max_turns=1)
    assert agent.run("task") == "v1"
    assert agent.last_result.status == Status.NEEDS_REVIEW and llm.calls == 2


def test_unusable_critic_output_is_reasked_then_ends_needs_review_not_accepted():
    agent, llm = make(["draft", "Looks great to me!", "I said it is great.", "Really, ship it."])
    assert agent.run("task") == "draft"
    result = agent.last_result
    assert result.status == Status.NEEDS_REVIEW  # never silently accepted
    assert llm.calls == 4  # draft + critique + 2 re-asks (json_retries=2)
    assert kinds(agent) == ["draft", "warning", "warning", "warning", "error"]
    error = result.steps_of("error")[0]
    assert error.content == "Really, ship it."
    reask = llm.requests[2].messages[-1]["content"]
    assert "could not be used" in reask and '"is_sufficient": true or false' in reask


def test_unusable_critic_output_respects_json_retries():
    agent, llm = make(["draft"] + ["nope"] * 5, json_retries=0)
    agent.run("task")
    assert llm.calls == 2 and agent.last_result.status == Status.NEEDS_REVIEW
    assert agent.last_result.steps_of("error")[0].data["reason"].startswith("the model's reply stayed unusable")


def test_string_booleans_are_read_as_booleans():
    agent, llm = make(
        [
            "v1",
            '{"is_sufficient": "false", "feedback": "fix it"}',
            "v2",
            "```json\n{'is_sufficient': 'true', 'feedback': '',}\n```",
        ]
    )
    assert agent.run("task") == "v2"
    assert agent.last_result.status == Status.OK and llm.calls == 4
    assert [s.data["is_sufficient"] for s in agent.last_result.steps_of("critique")] == [False, True]


def test_rejection_without_feedback_is_reasked():
    agent, llm = make(["v1", critique(False, ""), critique(False, "name the bug"), "v2", critique(True)])
    assert agent.run("task") == "v2"
    assert llm.calls == 5
    assert "`feedback` must name the must-fix issue" in llm.requests[2].messages[-1]["content"]


def test_missing_verdict_field_is_reasked():
    agent, llm = make(["v1", '{"feedback": "fine"}', critique(True)])
    assert agent.run("task") == "v1"
    assert llm.calls == 3 and "missing field 'is_sufficient'" in llm.requests[2].messages[-1]["content"]


def test_critic_llm_does_the_critiques():
    llm = ScriptedLLM(["v1", "v2"])
    critic = ScriptedLLM([critique(False, "more detail"), critique(True)])
    agent = BasicReflectionAgent("r", llm, critic_llm=critic, verbose=False)
    assert agent.run("task") == "v2"
    assert llm.calls == 2 and critic.calls == 2 and agent.last_result.llm_calls == 4


def test_empty_input_makes_no_model_call():
    agent, llm = make(["never"])
    assert agent.run("  ") == ""
    assert agent.last_result.status == Status.FAILED and llm.calls == 0


def test_empty_first_draft_fails_without_critique():
    agent, llm = make(["", critique(True)])
    assert agent.run("task") == ""
    assert agent.last_result.status == Status.FAILED and llm.calls == 1
    assert kinds(agent) == ["error"]
    assert str(agent.last_result.error) == "the model returned an empty draft"  # a failed run says why


def test_empty_revision_keeps_the_previous_draft():
    agent, llm = make(["v1", critique(False, "fix"), "   "])
    assert agent.run("task") == "v1"
    assert agent.last_result.status == Status.NEEDS_REVIEW and llm.calls == 3


def test_braces_in_task_and_answers_do_not_break_the_prompts():
    task = "Format {name} and {{x}} with str.format"
    agent, llm = make(["use '{0}'.format(x) {}", critique(False, "mention {name}"), "'{name}'", critique(True)])
    assert agent.run(task) == "'{name}'"
    assert "use '{0}'.format(x) {}" in llm.requests[2].messages[0]["content"]
    assert "mention {name}" in llm.requests[2].messages[0]["content"]
    assert llm.requests[0].messages[1]["content"] == task


def test_history_is_shared_across_runs_and_reaches_the_prompts():
    agent, llm = make(["Alice", critique(True), "Your name is Alice.", critique(True)])
    agent.run("My name is Alice.")
    agent.run("What is my name?")
    assert [m.content for m in agent.history] == [
        "My name is Alice.",
        "Alice",
        "What is my name?",
        "Your name is Alice.",
    ]
    second_generate, second_critique = llm.requests[2].messages[0]["content"], llm.requests[3].messages[0]["content"]
    assert "User: My name is Alice.\nAssistant: Alice" in second_generate
    assert "User: My name is Alice." in second_critique


def test_system_prompt_replaces_the_generator_prompt_verbatim():
    agent, llm = make(
        ["ok", critique(True), "ok again", critique(True)], system_prompt="You are terse. Literal {braces} stay."
    )
    agent.run("task")
    assert llm.requests[0].messages[0]["content"] == "You are terse. Literal {braces} stay."
    agent.run("next task")
    system = llm.requests[2].messages[0]["content"]
    assert system.startswith("You are terse. Literal {braces} stay.\n## Conversation History\n")
    assert "User: task\nAssistant: ok" in system and "helpful assistant" not in system


def test_no_empty_history_section_before_a_conversation():
    agent, llm = make(["draft", critique(False, "too short"), "longer draft", critique(True)])
    agent.run("task")
    systems = [request.messages[0]["content"] for request in llm.requests]
    assert len(systems) == 4 and not any("Conversation History" in s or "(none)" in s for s in systems)
    assert systems[0] == agent.generate_prompt.format(history_section="")


def test_a_subclass_can_override_a_prompt():
    class Polite(BasicReflectionAgent):
        generate_prompt = "Be polite.\nHistory: {history}"

    llm = ScriptedLLM(["Hello", critique(True)])
    Polite("p", llm, verbose=False).run("hi")
    assert llm.requests[0].messages[0]["content"] == "Be polite.\nHistory: (none)"


def test_token_budget_returns_the_latest_draft():
    usage = {"prompt_tokens": 40, "completion_tokens": 10, "total_tokens": 50}
    replies = [{"content": c, "usage": usage} for c in ["v1", critique(False, "no"), "v2", critique(False, "no"), "v3"]]
    agent, llm = make(replies, max_tokens_per_run=170)
    assert agent.run("task") == "v2"  # 50, 100, 150, 200 > 170: the critique of v2 crossed the budget
    assert agent.last_result.status == Status.MAX_TOKENS and llm.calls == 4


def test_console_output_shows_each_draft_and_critique(capsys):
    llm = ScriptedLLM(["v1", critique(False, "too short"), "v2", critique(True)])
    BasicReflectionAgent("console", llm).run("task")
    out = capsys.readouterr().out
    assert "Draft: v1" in out and "Critique: not sufficient: too short" in out
    assert "Revision: v2" in out and "Critique: sufficient" in out
    assert "Final Answer (ok): v2" in out


# -- end to end through the real client ----------------------------------------------
def test_end_to_end_through_chat_openai_and_the_mock_server():
    from vero.core.chat_openai import ChatOpenAI
    from vero.testing import MockOpenAIServer

    with MockOpenAIServer(["draft one", critique(False, "say two"), "draft two", critique(True)]) as srv:
        llm = ChatOpenAI(api_key="test", base_url=srv.base_url, model_name="m", max_retries=0)
        agent = BasicReflectionAgent("e2e", llm, verbose=False)
        assert agent.run("count") == "draft two"
        assert agent.last_result.status == Status.OK and agent.last_result.llm_calls == 4
        assert len(srv.requests) == 4
        assert "## Feedback\nsay two" in srv.requests[2]["messages"][0]["content"]
        assert agent.last_result.usage["total_tokens"] > 0
