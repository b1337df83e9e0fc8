"""The Agent base class: run(), results, budgets, JSON re-asks, tools, history, sessions, events."""

import io
import json
import os

import pytest

from vero import Agent, Message, Outcome, tool
from vero.core.agent import (
    NO_USAGE_WARNING,
    OVER_BUDGET_REPLY,
    MalformedOutputError,
    clip_observation,
    history_section,
    with_history,
)
from vero.core.events import ConsolePrinter
from vero.core.message import read_arguments
from vero.core.parsing import as_bool, as_score, parse_json_object, tool_calls_in_text
from vero.core.result import Status
from vero.core.stream import StepRecorded
from vero.errors import LLMCallError, SessionFormatError
from vero.testing import ScriptedLLM


class EchoAgent(Agent):
    """Asks the model once and returns its text."""

    def solve(self, task):
        reply = self.call_llm([Message.user(task)])
        self.record("answer", reply.text)
        return reply.text


class LoopingAgent(Agent):
    """Calls the model every turn, keeping each reply as the partial answer."""

    def solve(self, task):
        for _ in self.turns():
            self.keep_partial(self.call_llm([Message.user(task)]).text)
        return Outcome(self.partial, Status.NEEDS_REVIEW)


class JsonAgent(Agent):
    def solve(self, task):
        verdict = self.ask_json([Message.user(task)], lambda d: as_bool(d["ok"], "ok"), schema='{"ok": true}')
        return "yes" if verdict else "no"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def make(cls=EchoAgent, replies=(), **kwargs):
    llm = ScriptedLLM(list(replies))
    return cls("test", llm, verbose=False, **kwargs), llm


def test_run_returns_answer_and_records_result():
    agent, llm = make(replies=["hello"])
    assert agent.run("hi") == "hello"
    result = agent.last_result
    assert result.status == Status.OK and result.answer == "hello" and result.task == "hi"
    assert result.llm_calls == 1 and llm.calls == 1
    assert result.usage["total_tokens"] > 0
    assert result.elapsed_s >= 0
    assert [s.kind for s in result.steps] == ["answer"]


@pytest.mark.parametrize("task", ["", "   \n\t"])
def test_empty_input_fails_without_calling_the_model(task):
    agent, llm = make(replies=["never"])
    assert agent.run(task) == ""
    assert agent.last_result.status == Status.FAILED
    assert "empty" in str(agent.last_result.error)
    assert llm.calls == 0 and agent.history == []


def test_history_gets_task_and_answer_and_is_shared_across_runs():
    agent, _ = make(replies=["one", "two"])
    agent.run("first")
    agent.run("second")
    assert [(m.role, m.content) for m in agent.history] == [
        ("user", "first"),
        ("assistant", "one"),
        ("user", "second"),
        ("assistant", "two"),
    ]


def test_llm_error_ends_run_failed_with_error_and_keeps_history():
    agent, _ = make(replies=["fine", LLMCallError("boom", status=500)])
    agent.run("first")
    assert agent.run("second") == ""
    assert agent.last_result.status == Status.FAILED
    assert isinstance(agent.last_result.error, LLMCallError) and agent.last_result.error.status == 500
    assert [m.content for m in agent.history] == ["first", "fine"]


def test_keyboard_interrupt_propagates_and_leaves_history_unchanged():
    agent, _ = make(replies=["fine", KeyboardInterrupt()])
    agent.run("first")
    with pytest.raises(KeyboardInterrupt):
        agent.run("second")
    assert agent.last_result.status == Status.CANCELLED
    assert len(agent.history) == 2


def test_a_run_the_token_budget_cut_short_keeps_its_partial_text_out_of_the_history():
    from vero.agents import ReActAgent

    @tool(read_only=True)
    def price(item: str) -> str:
        """The price of an item."""
        return "12 EUR"

    usage = {"prompt_tokens": 200, "completion_tokens": 100, "total_tokens": 300}
    thought = {
        "content": 'Thought: I should look the price up first\nAction: price\nAction Input: "pen"',
        "usage": usage,
    }
    agent = ReActAgent(
        "r",
        ScriptedLLM([thought, {"content": "Thought: so", "usage": usage}]),
        tools=[price],
        verbose=False,
        max_tokens_per_run=500,
    )
    answer = agent.run("What does it cost?")
    assert agent.last_result.status == Status.MAX_TOKENS and "look the price up" in answer
    assert agent.history == []  # the next run would read the thought as an answer


def test_a_system_exit_inside_a_run_ends_it_failed_and_the_program_goes_on():
    agent, _ = make(replies=["fine", SystemExit(3)])
    agent.run("first")
    assert agent.run("second") == ""
    assert agent.last_result.status == Status.FAILED and isinstance(agent.last_result.error, SystemExit)
    assert [m.content for m in agent.history] == ["first", "fine"]


def test_turn_budget_bounds_the_loop_with_exact_call_count():
    agent, llm = make(LoopingAgent, replies=["a", "b", "c", "d"], max_turns=3)
    assert agent.run("go") == "c"
    assert llm.calls == 3 and agent.last_result.status == Status.NEEDS_REVIEW


class NoUsageModel:
    """A model whose server reports no token usage (some local servers and proxies): none, {} or zeros."""

    def __init__(self, usage):
        self.usage, self.calls = usage, 0

    def generate(self, messages, **options):
        self.calls += 1
        return Message("assistant", "x" * 4000, usage=self.usage)


@pytest.mark.parametrize("usage", [None, {}, {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}])
def test_a_token_budget_holds_when_the_server_reports_no_usage_counting_an_estimate_with_a_warning(usage):
    llm = NoUsageModel(usage)
    agent = LoopingAgent("test", llm, verbose=False, max_turns=10, max_tokens_per_run=2500)
    agent.run("go")
    result = agent.last_result
    assert result.status == Status.MAX_TOKENS and llm.calls == 3
    warnings = [step.content for step in result.steps if step.kind == "warning"]
    assert warnings == [NO_USAGE_WARNING, OVER_BUDGET_REPLY]  # the estimate's once; the reply past it kept


def test_token_budget_ends_run_with_partial_answer():
    usage = {"prompt_tokens": 40, "completion_tokens": 10, "total_tokens": 50}
    replies = [{"content": f"draft {i}", "usage": usage} for i in range(10)]
    agent, llm = make(LoopingAgent, replies=replies, max_turns=10, max_tokens_per_run=120)
    answer = agent.run("go")
    assert agent.last_result.status == Status.MAX_TOKENS
    assert llm.calls == 3  # 50, 100, 150 > 120
    assert answer == "draft 1"  # the partial kept before the call that broke the budget
    assert "token budget" in str(agent.last_result.error)


def test_ask_json_reasks_with_the_error_and_does_not_count_turns():
    agent, llm = make(JsonAgent, replies=["I think it is fine.", "```json\n{'ok': 'true',}\n```"])
    assert agent.run("check") == "yes"
    assert llm.calls == 2
    reask = llm.requests[1].messages[-1]["content"]
    assert "could not be used" in reask and '{"ok": true}' in reask
    assert [s.kind for s in agent.last_result.steps] == ["warning"]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_ask_json_reasks_a_reply_whose_json_holds_no_number_json_has(number):
    agent, llm = make(JsonAgent, replies=[f'{{"ok": true, "score": [{number}]}}', '{"ok": true, "score": [1]}'])
    assert agent.run("check") == "yes" and llm.calls == 2
    assert "NaN or Infinity" in llm.requests[1].messages[-1]["content"]


def test_ask_json_gives_up_after_bounded_retries():
    agent, llm = make(JsonAgent, replies=["prose"] * 5, json_retries=2)
    agent.run("check")
    assert llm.calls == 3
    assert agent.last_result.status == Status.FAILED
    assert isinstance(agent.last_result.error, MalformedOutputError)
    assert agent.last_result.error.raw == "prose"


def test_parse_json_object_variants():
    assert parse_json_object('{"a": 1}') == {"a": 1}
    assert parse_json_object("Sure! ```json\n{'a': 1,}\n```") == {"a": 1}
    assert parse_json_object('<think>{"no": 1}</think>{"a": 2}') == {"a": 2}
    assert parse_json_object('Here: {"a": [1, 2]} done') == {"a": [1, 2]}
    for bad in ["", "just prose", "[1, 2]"]:
        with pytest.raises(ValueError):
            parse_json_object(bad)


def test_as_bool_and_as_score():
    assert as_bool("true", "x") is True and as_bool("False", "x") is False and as_bool(True, "x") is True
    with pytest.raises(ValueError):
        as_bool("maybe", "x")
    assert as_score("85") == 85 and as_score(70.5) == 70.5
    for bad in [101, -1, "high", None]:
        with pytest.raises(ValueError):
            as_score(bad)


class ToolAgent(Agent):
    def solve(self, task, name="add", args=None):
        observation = self.run_tool(name, args if args is not None else {"a": 2, "b": 3})
        return observation.output


def test_run_tool_records_action_and_full_observation():
    agent, _ = make(ToolAgent, tools=[add])
    assert agent.run("x") == "5"
    kinds = [(s.kind, s.content) for s in agent.last_result.steps]
    assert kinds == [("action", "add(a=2, b=3)"), ("observation", "5")]


def test_long_tool_output_is_clipped_in_prompt_but_kept_in_steps():
    @tool
    def big() -> str:
        """Return a lot of text."""
        return "x" * 50_000

    agent, _ = make(ToolAgent, tools=[big], max_observation_chars=1000)
    text = agent.run("x", name="big", args={})
    assert len(text) < 1200 and "truncated: showing 1000 of 50000 characters" in text
    assert len(agent.last_result.steps_of("observation")[0].content) == 50_000


def test_unknown_tool_is_an_observation_not_an_exception():
    agent, _ = make(ToolAgent, tools=[add])
    text = agent.run("x", name="nope", args={})
    assert "unknown tool 'nope'" in text and "add" in text
    assert agent.last_result.status == Status.OK


def test_format_history_is_bounded():
    agent, _ = make()
    for i in range(50):
        agent.add_message(Message.user(f"question {i} " + "y" * 5000))
    text = agent.format_history(max_messages=10, max_chars=100)
    assert text.count("User:") == 10 and "question 49" in text and "question 39" not in text
    assert len(text) < 10 * 140
    assert len(agent.history_messages()) == agent.options.history_window


def test_save_and_load_round_trip(tmp_path):
    agent, _ = make(replies=["answer {braces} ✓"])
    agent.run("question")
    path = tmp_path / "session.json"
    agent.save(str(path))
    data = json.loads(path.read_text())
    assert data["format"] == "vero.session" and data["version"] == 1
    other, _ = make()
    other.load(str(path))
    assert other.history == agent.history


def test_crash_mid_save_leaves_previous_file_intact(tmp_path, monkeypatch):
    agent, _ = make(replies=["one"])
    agent.run("first")
    path = tmp_path / "s.json"
    agent.save(str(path))
    before = path.read_text()
    agent.add_message(Message.user("more"))

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        agent.save(str(path))
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]  # no temporary file left behind


@pytest.mark.parametrize(
    "content, match",
    [
        ("{not json", "cannot read"),
        ('{"format": "vero.session", "version": 99, "history": []}', "version 99"),
        ('{"format": "other"}', "not a vero session"),
        ('{"format": "vero.session", "version": 1, "history": [{"content": "no role"}]}', "corrupted"),
    ],
)
def test_loading_a_bad_session_raises_and_changes_nothing(tmp_path, content, match):
    agent, _ = make(replies=["kept"])
    agent.run("q")
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(SessionFormatError, match=match):
        agent.load(str(path))
    assert [m.content for m in agent.history] == ["q", "kept"]


def test_events_reach_callbacks_and_trace_file_per_event(tmp_path):
    seen = []
    trace = tmp_path / "trace.jsonl"
    agent, _ = make(replies=["hello"], callbacks=[seen.append], trace=str(trace))
    agent.run("hi")
    types = [e.type for e in seen]
    assert types == ["run_start", "llm_start", "llm_call", "step", "run_end"]
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [line["type"] for line in lines] == types
    assert lines[-1]["status"] == "ok"


def test_console_printer_prints_one_line_per_step(capsys):
    agent = EchoAgent("printer", ScriptedLLM(["hello"]), verbose=True)
    agent.run("hi")
    out = capsys.readouterr().out
    assert "👤 User Input: hi" in out
    assert "💬 Answer: hello" in out
    assert "🏁 Final Answer (ok): hello" in out
    assert "\033[" not in out  # no colour when not a TTY


def test_console_footer_clips_only_an_answer_longer_than_max_chars():
    def footer(answer):
        printed = io.StringIO()
        agent = EchoAgent("printer", ScriptedLLM([answer]), verbose=False)
        agent.events.callbacks.append(ConsolePrinter(stream=printed, max_chars=20))
        agent.run("hi")
        return next(line for line in printed.getvalue().splitlines() if "Final Answer" in line)

    assert footer("x" * 20) == "🏁 Final Answer (ok): " + "x" * 20  # at the limit: whole, no marker
    assert footer("y" * 25) == "🏁 Final Answer (ok): " + "y" * 20 + " … [5 more chars]"


def test_thinking_is_recorded_but_not_in_the_answer():
    agent, _ = make(replies=["<think>private</think>public"])
    assert agent.run("q") == "public"
    assert agent.last_result.steps_of("thinking")[0].content == "private"


def test_subagent_steps_usage_and_calls_roll_up():
    class Parent(Agent):
        def solve(self, task):
            child = EchoAgent("child", self.llm, verbose=False)
            return self.run_subagent(child, task).answer

    agent, llm = make(Parent, replies=["from child"])
    assert agent.run("q") == "from child"
    result = agent.last_result
    assert result.llm_calls == 1 and result.usage["total_tokens"] > 0
    assert [(s.kind, s.depth) for s in result.steps] == [("answer", 1)]


def test_solve_returning_none_is_a_failure_not_success():
    class Forgetful(Agent):
        def solve(self, task):
            self.call_llm([Message.user(task)])  # ... and forgets to return

    agent, _ = make(Forgetful, replies=["text"])
    assert agent.run("q") == ""
    assert agent.last_result.status == Status.FAILED
    assert "returned None" in str(agent.last_result.error)


def test_a_failing_event_listener_does_not_break_the_run():
    def broken(event):
        raise RuntimeError("listener bug")

    agent, _ = make(replies=["fine"], callbacks=[broken])
    assert agent.run("q") == "fine" and agent.last_result.status == Status.OK


def test_verbose_setter_adds_and_removes_the_console_printer(capsys):
    agent, _ = make(replies=["one", "two"])
    agent.verbose = True
    agent.run("first")
    assert "Final Answer (ok): one" in capsys.readouterr().out
    agent.verbose = False
    agent.run("second")
    assert capsys.readouterr().out == ""


def test_run_subagent_restores_the_childs_callbacks_and_budget():
    seen = []
    child = EchoAgent("child", ScriptedLLM(["inner", "alone"]), verbose=False, callbacks=[seen.append])

    class Parent(Agent):
        def solve(self, task):
            return self.run_subagent(child, task).answer

    parent = Parent("parent", child.llm, verbose=False, max_tokens_per_run=10_000)
    assert parent.run("q") == "inner"
    assert child.events.callbacks == [seen.append] and child.max_tokens_per_run is None
    assert "run_end" in [e.type for e in seen]  # the child's own listener still heard its run
    child.run("again")
    assert len(parent.last_result.steps) == 1  # the child's later run does not leak into the parent's result


def test_subagent_shares_model_tools_settings_and_history():
    agent, llm = make(tools=[add], max_observation_chars=123, json_retries=1, history_window=4)
    agent.add_message(Message.user("earlier"))
    child = agent.subagent(EchoAgent, "child")
    assert child.llm is llm and child.tools is agent.tools and not child.verbose
    options = child.options
    assert (options.max_observation_chars, options.json_retries, options.history_window) == (123, 1, 4)
    assert [m.content for m in child.history] == ["earlier"]
    child.add_message(Message.user("child only"))
    assert len(agent.history) == 1


def test_loop_helpers_outside_run_say_so():
    agent, _ = make()
    with pytest.raises(RuntimeError, match="only inside run"):
        agent.call_llm([Message.user("q")])


def test_close_stops_the_trace(tmp_path):
    trace = tmp_path / "t.jsonl"
    agent, _ = make(replies=["a", "b"], trace=str(trace))
    agent.run("one")
    lines = len(trace.read_text().splitlines())
    agent.close()
    agent.run("two")
    assert len(trace.read_text().splitlines()) == lines and agent.last_result.answer == "b"


@pytest.mark.parametrize(
    "limits",
    [
        {"max_turns": "3"},
        {"max_turns": 1.5},
        {"max_turns": -1},
        {"max_turns": True},
        {"max_tokens_per_run": "100"},
        {"max_tokens_per_run": float("nan")},
        {"max_tokens_per_run": 0},
        {"max_tokens_per_run": 1e5 + 0.5},
    ],
)
def test_a_turn_or_token_budget_that_is_no_whole_number_is_refused_when_the_agent_is_made(limits):
    with pytest.raises(ValueError, match=f"{next(iter(limits))} must be a whole number of"):
        make(**limits)


def test_a_budget_written_as_a_whole_float_is_that_number():
    agent, _ = make(max_turns=3.0, max_tokens_per_run=1e5)
    assert (agent.max_turns, agent.max_tokens_per_run) == (3, 100_000) and type(agent.max_turns) is int


def test_a_reflexion_agent_with_zero_turns_ends_max_turns_as_every_agent_does():
    from vero.agents import ReflexionAgent

    agent = ReflexionAgent("r", ScriptedLLM([]), verbose=False, max_turns=0)
    agent.run("q")
    result = agent.last_result
    assert (result.status, result.answer, result.error, result.llm_calls) == (Status.MAX_TURNS, "", None, 0)


def test_zero_turns_means_zero_turns():
    agent, llm = make(LoopingAgent, replies=["never"], max_turns=0)
    agent.run("q")
    assert llm.calls == 0


def test_native_tool_arguments_print_like_dict_arguments():
    agent, _ = make(ToolAgent, tools=[add])
    agent.run("x", args='{"a": 2, "b": 3}')
    assert agent.last_result.steps[0].content == "add(a=2, b=3)"


def test_console_labels_a_failed_runs_partial_text(capsys):
    agent = LoopingAgent("p", ScriptedLLM(["draft", RuntimeError("api down")]), verbose=True, max_turns=3)
    agent.run("q")
    out = capsys.readouterr().out
    assert "Run failed; partial, not kept: draft" in out and "Final Answer" not in out


# -- the API: at most 30 public attributes; the moved helpers warn for one release -----------------------------
def test_agent_keeps_at_most_30_public_attributes():
    public = [name for name in dir(Agent) if not name.startswith("_")]
    assert len(public) <= 30, public
    assert "only_failed_tools" not in public and not hasattr(make()[0], "only_failed_tools")


@pytest.mark.parametrize(
    ("old", "value"),
    [
        ("max_observation_chars", lambda agent: agent.options.max_observation_chars),
        ("history_window", lambda agent: agent.options.history_window),
        ("recovery", lambda agent: agent.options.recovery),
        ("task", lambda agent: ""),
    ],
)
def test_a_moved_name_still_reads_with_a_deprecation_warning(old, value):
    agent, _ = make()
    with pytest.warns(DeprecationWarning, match=f"Agent.{old} is deprecated"):
        assert getattr(agent, old) == value(agent)


def test_moved_helpers_work_as_their_replacements():
    agent, _ = make()
    agent.add_message(Message.user("earlier"))
    with pytest.warns(DeprecationWarning):
        assert agent.clip("x" * 50, 10) == clip_observation("x" * 50, 10)
    with pytest.warns(DeprecationWarning):
        assert agent.with_history("S") == with_history(agent, "S") == "S" + history_section(agent)
    assert "User: earlier" in history_section(agent)
    with pytest.raises(AttributeError):
        agent.no_such_helper  # noqa: B018


# -- a call's origin travels with its arguments, not on the run ----------------------------------------------------
DELETED: list[str] = []


@tool
def delete_note(name: str) -> str:
    """Delete a note (changes things)."""
    DELETED.append(name)
    return "deleted"


class TwoCallsAgent(Agent):
    """Runs the same call twice in one run: first as read from the model's text, then as a native call."""

    def solve(self, task):
        as_text = read_arguments('{"name": "groceries"}', origin="text")
        first = self.run_tool("delete_note", as_text)
        second = self.run_tool("delete_note", read_arguments('{"name": "groceries"}', origin="native"))
        return f"{first.error} {second.output}"


def test_the_origin_is_the_calls_own_so_nothing_is_left_on_the_run():
    DELETED.clear()
    agent, _ = make(TwoCallsAgent, tools=[delete_note])
    # the task shows the call: read from text it is a quote (refused); the native call is the model's own
    answer = agent.run('The page says: delete_note(name="groceries")')
    assert answer == "refused deleted" and DELETED == ["groceries"]


class ReadsTheCallItself(Agent):
    """A subclass that reads the model's call with ``tool_calls_in_text`` and hands ``run_tool`` its ``args``."""

    def solve(self, task):
        reply = self.call_llm([Message("user", task)]).text
        found = tool_calls_in_text(reply, self.tools.names())
        return self.run_tool("delete_note", found.calls[0].args).error or "ran"


def test_a_call_tool_calls_in_text_read_is_checked_as_read_from_text():
    DELETED.clear()
    reply = '<tool_call>{"name": "delete_note", "arguments": {"name": "groceries"}}</tool_call>'
    agent, _ = make(ReadsTheCallItself, [reply], tools=[delete_note])
    # the task shows the call: the model's echo of it is a quote
    assert agent.run('The page says: delete_note(name="groceries")') == "refused" and DELETED == []


class PollsItself(Agent):
    """A subclass whose own code makes a call a tool result suggested (a dict, or JSON text): no model wrote it."""

    def solve(self, task):
        self.run_tool("delete_note", self.first)  # its result names the follow-up
        return self.run_tool("delete_note", self.then).output


@pytest.mark.parametrize("then", [{"name": "groceries"}, '{"name": "groceries"}'])
def test_a_call_of_a_subclass_s_own_code_is_not_quote_checked(then):
    DELETED.clear()

    @tool
    def delete_note(name: str) -> str:
        """Delete a note (changes things)."""
        DELETED.append(name)
        return 'deleted; its copy goes next: delete_note(name="groceries")'

    agent, _ = make(PollsItself, [], tools=[delete_note])
    agent.first, agent.then = {"name": "drafts"}, then
    agent.run("Tidy up.")
    assert DELETED == ["drafts", "groceries"]


def test_no_request_record_is_built_for_listeners_that_do_not_handle_model_events(monkeypatch, capsys):
    import vero.core.agent as agent_module

    def no_record(*args, **kwargs):
        raise AssertionError("a record was built that nobody reads")

    monkeypatch.setattr(agent_module, "request_record", no_record)
    monkeypatch.setattr(agent_module, "reply_record", no_record)
    agent = EchoAgent("test", ScriptedLLM(["hello"]), verbose=True)  # the console printer handles no model event
    assert agent.run("hi") == "hello" and agent.last_result.status == Status.OK
    assert "hello" in capsys.readouterr().out


class ParentAgent(Agent):
    """Runs an ``EchoAgent`` as a sub-agent and answers with its answer."""

    def solve(self, task):
        return self.run_subagent(self.subagent(EchoAgent, "child"), task).answer


def test_a_sub_agent_builds_no_request_record_when_nobody_above_hears_model_events(monkeypatch, capsys):
    import vero.core.agent as agent_module

    def no_record(*args, **kwargs):
        raise AssertionError("a record was built that nobody reads")

    monkeypatch.setattr(agent_module, "request_record", no_record)
    monkeypatch.setattr(agent_module, "reply_record", no_record)
    agent = ParentAgent("parent", ScriptedLLM(["hello"]), verbose=True)
    assert agent.run("hi") == "hello" and agent.last_result.status == Status.OK
    assert "hello" in capsys.readouterr().out  # its steps are still printed, one level deeper


def test_a_sub_agents_model_events_reach_a_listener_of_the_parent():
    events = []
    agent = ParentAgent("parent", ScriptedLLM(["hello"]), verbose=False, callbacks=[events.append])
    agent.run("hi")
    start = next(event for event in events if event.type == "llm_start")
    assert start.data["subagent"] == "child" and start.data["depth"] == 1
    assert start.data["request"]["messages"][-1]["content"] == "hi"


def test_a_listener_without_handles_hears_the_model_events_with_the_request():
    events = []
    agent = EchoAgent("test", ScriptedLLM(["hello"]), verbose=True, callbacks=[events.append])
    agent.run("hi")
    start = next(event for event in events if event.type == "llm_start")
    assert start.data["request"]["messages"][-1]["content"] == "hi"
    assert any(event.type == "llm_call" for event in events)


def test_tool_calls_pairs_the_calls_of_the_level_asked_for():
    from vero.core.agent import tool_calls
    from vero.core.result import Step, StepKind

    own = [Step(StepKind.ACTION, "a()"), Step(StepKind.OBSERVATION, "1")]
    sub = [Step(StepKind.ACTION, "b()", depth=1), Step(StepKind.OBSERVATION, "2", depth=1)]
    steps = [*own, Step(StepKind.THOUGHT, "x"), *sub]
    assert [(a.content, o.content) for a, o in tool_calls(steps)] == [("a()", "1")]
    assert [(a.content, o.content) for a, o in tool_calls(steps, depth=1)] == [("b()", "2")]


@pytest.mark.parametrize("pattern", ["ToolCallingAgent", "ReActAgent", "BasicReflectionAgent", "ReflexionAgent"])
@pytest.mark.parametrize("keyword", ["result_type", "max_turns", "temperature"])
def test_a_keyword_a_pattern_s_run_does_not_take_is_a_type_error_at_once(pattern, keyword):
    import vero.agents

    llm = ScriptedLLM(["never used"])
    agent = getattr(vero.agents, pattern)("a", llm, verbose=False)
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{keyword}'"):
        agent.run("What is 2 + 2?", **{keyword: 1})
    assert llm.calls == 0 and agent.history == []


def test_a_solve_of_your_own_takes_the_keywords_it_declares():
    class Styled(Agent):
        def solve(self, task, style="plain", **kwargs):
            return f"{style}: {task}"

    agent, _ = make(Styled)
    assert agent.run("hi", style="bold") == "bold: hi"


@pytest.mark.parametrize("listen", ["callback", "stream"])
def test_a_listener_that_edits_a_step_event_leaves_the_run_record_as_it_was(listen):
    from vero.agents import ReActAgent

    @tool(read_only=True)
    def lookup(name: str) -> str:
        """Look a name up."""
        return "found"

    def redact(event):
        if event.type == "step" and "args" in event.data["data"]:
            event.data["data"]["args"]["name"] = "[redacted]"  # a redacting logger, editing in place

    replies = ['Thought: look\nAction: lookup\nAction Input: {"name": "Ada"}', "Final Answer: found"]
    agent = ReActAgent("r", ScriptedLLM(replies), tools=[lookup], verbose=False)
    if listen == "callback":
        agent.events.callbacks.append(redact)
        agent.run("Find Ada.")
    else:
        for event in agent.stream("Find Ada."):
            if isinstance(event, StepRecorded) and "args" in event.step.data:
                event.step.data["args"]["name"] = "[redacted]"
    assert agent.last_result.steps_of("action")[0].data["args"] == {"name": "Ada"}


def test_parse_json_object_refuses_a_number_json_cannot_hold():
    with pytest.raises(ValueError, match="NaN or Infinity"):
        parse_json_object('{"a": 1e999}')
