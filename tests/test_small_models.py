"""What small local models write, and what the agents' general mechanisms do with it.

The reply shapes come from small models served by llama.cpp's llama-server
(``--jinja``); the names in them are invented.  The opt-in recovery rules have
their own tests (tests/test_recovery.py), and the safety rules theirs
(tests/test_tool_safety.py).
"""

import json

import pytest

from vero import ChatOpenAI, Message, Tool, tool
from vero.agents import BasicReflectionAgent, PlanExecuteAgent, ReActAgent, ToolCallingAgent
from vero.agents._native import CUT_OFF_ANSWER_NUDGE, CUT_OFF_NUDGE, REPEATED_ANSWER_NUDGE, REPEATED_CALL_NUDGE
from vero.config import reload_settings
from vero.core.parsing import parse_react, tidy_numbers, tool_calls_in_text
from vero.core.result import Status
from vero.testing import MockOpenAIServer, ScriptedLLM

CALLS: list = []


@tool
def find_book(name: str) -> dict:
    """Look up a book by its title.

    Args:
        name: the book's title.
    """
    CALLS.append(("find_book", name))
    return {"name": name, "stock": 2715, "shelf_id": "SH-05"}


@tool
def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    CALLS.append(("calculate", expression))
    return "16353.999999999998"


TOOLS = [find_book, calculate]
LOOKUPS = [Tool(each, read_only=True) for each in TOOLS]  # the same tools, marked as lookups
NAMES = ["find_book", "calculate"]

# the whole reply content, as small models write it
SEEN_FENCED_CALL = '```json\n{\n  "name": "find_book",\n  "arguments": {\n    "name": "Nightjar"\n  }\n}\n```'
# a final reply that only echoes the template's tool-result tags
SEEN_ECHOED_RESULT = "<tool_response>\n2715\n</tool_response>"


@pytest.fixture(autouse=True)
def clear_calls():
    CALLS.clear()


# -- calls written as the whole reply ---------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        (SEEN_FENCED_CALL, [("find_book", {"name": "Nightjar"})]),
        ('{"name": "find_book", "arguments": {"name": "A"}}', [("find_book", {"name": "A"})]),
        (
            '  <tool_call>\n{"name": "find_book", "arguments": {"name": "B"}}\n</tool_call>\n',
            [("find_book", {"name": "B"})],
        ),
        (
            '<tool_call>{"name": "find_book", "arguments": {"name": "B"}}</tool_call>\n'
            '<tool_call>{"name": "calculate", "arguments": {"expression": "1+2"}}</tool_call>',
            [("find_book", {"name": "B"}), ("calculate", {"expression": "1+2"})],
        ),
        (
            '```json\n[{"name": "find_book", "parameters": {"name": "C"}}, '
            '{"name": "calculate", "arguments": "{\\"expression\\": \\"2*3\\"}"}]\n```',
            [("find_book", {"name": "C"}), ("calculate", {"expression": "2*3"})],
        ),
        (
            '{"type": "function", "function": {"name": "find_book", "arguments": {"name": "D"}}}',
            [("find_book", {"name": "D"})],
        ),
        ('<tool_call>\n{"name": "find_book", "arguments": {"name": "E"}}', [("find_book", {"name": "E"})]),  # unclosed
        (
            "<tool_call>\n<function=calculate>\n<parameter=expression>\n2 &lt; 3\n"
            "</parameter>\n</function>\n</tool_call>",
            [("calculate", {"expression": "2 < 3"})],
        ),
        (
            "<function=calculate>\n<parameter=expression>\n1 + 1\n</parameter>\n</function>",
            [("calculate", {"expression": "1 + 1"})],
        ),
        # seen (Qwen2.5-Coder-1.5B, llama-server --jinja, most of its first replies on generated worlds): the
        # template's <tools> tag it imitated, and the template's doubled braces
        ('<tools>\n{{"name": "find_book", "arguments": {"name": "F"}}}\n', [("find_book", {"name": "F"})]),
        ('<tools>\n{"name": "find_book", "arguments": {"name": "G"}}\n</tools>', [("find_book", {"name": "G"})]),
        ('{{"name": "find_book", "arguments": {"name": "H"}}}', [("find_book", {"name": "H"})]),
    ],
)
def test_a_reply_that_is_wholly_a_call_is_read_as_one(text, expected):
    found = tool_calls_in_text(text, NAMES)
    assert found is not None
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == expected


@pytest.mark.parametrize(
    "text",
    [
        "I need the stock.\n" + SEEN_FENCED_CALL,  # prose before
        SEEN_FENCED_CALL + "\nThis returns the stock.",  # prose after
        SEEN_FENCED_CALL + "\n" + SEEN_FENCED_CALL,  # two fences
        'The page says: <tool_call>{"name": "find_book", "arguments": {"name": "B"}}</tool_call>',
        '<find_book name="Nightjar"/>',  # attributes: no shape a chat template writes
        "<tools>\n  <tool><name>find_book</name><arguments><name>A</name></arguments></tool>\n</tools>",
        '{"name": "find_book", "arguments": {"name": "A"}} and then more',
        '{"name": "unknown_tool", "arguments": {"name": "A"}}',  # not a registered tool
        '{"name": "find_book", "arguments": "not an object"}',
        '{"result": 2715}',
        "<function=find_book>\n<parameter=name>A</parameter>\n</function>\nDone.",
        "<function=find_book>\n<function=find_book>\n",  # unclosed
        'Sure. <tools>{"name": "find_book", "arguments": {"name": "A"}}</tools>',  # prose before the tags
        '<tools>{"name": "find_book", "arguments": {"name": "A"}}</tools> Then I will add them.',
    ],
)
def test_a_call_inside_other_text_or_in_another_shape_is_not_a_call(text):
    assert tool_calls_in_text(text, NAMES) is None


def test_tool_calling_agent_runs_a_call_written_as_its_whole_reply_and_records_it():
    llm = ScriptedLLM([SEEN_FENCED_CALL, "There are 2715."])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False)
    assert agent.run("How many copies of Nightjar are in stock?") == "There are 2715."
    assert CALLS == [("find_book", "Nightjar")]
    assert any(s.data.get("recovered_from_text") for s in agent.last_result.steps_of("warning"))
    replayed = llm.requests[1].messages[-2]
    assert [c["function"]["name"] for c in replayed["tool_calls"]] == ["find_book"] and not replayed["content"]


def test_only_the_first_call_of_a_reply_runs_and_the_warning_says_so():
    two = (
        '<tool_call>{"name": "find_book", "arguments": {"name": "A"}}</tool_call>\n'
        '<tool_call>{"name": "find_book", "arguments": {"name": "B"}}</tool_call>'
    )
    agent = ToolCallingAgent("t", ScriptedLLM([two, "2715"]), tools=TOOLS, verbose=False)
    assert agent.run("How many?") == "2715" and CALLS == [("find_book", "A")]
    assert "1 more call" in agent.last_result.steps_of("warning")[0].content


def test_native_react_runs_a_call_written_as_its_whole_reply():
    llm = ScriptedLLM([SEEN_FENCED_CALL, "2715"])
    agent = ReActAgent("r", llm, tools=TOOLS, protocol="native", verbose=False)
    assert agent.run("How many copies of Nightjar?") == "2715" and CALLS == [("find_book", "Nightjar")]


def test_recovery_off_reads_no_call_from_text():
    llm = ScriptedLLM([SEEN_FENCED_CALL])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, recovery=False)
    assert agent.run("How many copies of Nightjar?") == SEEN_FENCED_CALL and CALLS == []


@pytest.mark.parametrize("native_react", [False, True])
@pytest.mark.parametrize("tools, nudge", [(LOOKUPS, CUT_OFF_NUDGE), (TOOLS, CUT_OFF_ANSWER_NUDGE)])
def test_a_cut_off_reply_is_never_the_answer(tools, nudge, native_react):
    cut = {"content": "The stock of Nightjar is 27", "finish_reason": "length"}
    llm = ScriptedLLM([cut, "The stock is 2715."])
    if native_react:
        agent = ReActAgent("r", llm, tools=tools, verbose=False, protocol="native")
    else:
        agent = ToolCallingAgent("t", llm, tools=tools, verbose=False)
    assert agent.run("How many?") == "The stock is 2715."
    # with tools that may change things only, the note asks for no call: vero never nudges toward one
    assert llm.requests[1].messages[-1]["content"] == nudge


def test_a_reply_cut_off_on_every_turn_ends_max_turns_not_ok():
    llm = ScriptedLLM(default={"content": "The stock is", "finish_reason": "length"})
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, max_turns=2)
    agent.run("How many?")
    assert agent.last_result.status == Status.MAX_TURNS


def test_with_recovery_off_a_cut_off_reply_fails_the_run():
    llm = ScriptedLLM([{"content": "The stock is 27", "finish_reason": "length"}])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, recovery=False)
    agent.run("How many?")
    assert agent.last_result.status == Status.FAILED and "cut off" in str(agent.last_result.error) and llm.calls == 1


# -- ReAct, text protocol ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "reply",
    [
        '**Thought:** I need the stock.\n**Action:** find_book\n**Action Input:** {"name": "Nightjar"}',
        'thought: I need the stock.\naction: find_book\naction input: {"name": "Nightjar"}',
        'Thought: I need the stock.\nAction: find_book\nAction Input:\n```json\n{"name": "Nightjar"}\n```',
        'Thought: I need the stock.\nAction: `find_book`\nAction Input: `{"name": "Nightjar"}`',
        'Thought: I need the stock.\nAction: find_book(name="Nightjar")',
        # seen from Qwen2.5-Coder-1.5B as a plan step's executor: the call on the Action line, then its input
        "Thought: I need the book's stock.\n\nAction: find_book(name: 'Nightjar')\n\n"
        'Action Input: {"name": "Nightjar"}',
        SEEN_FENCED_CALL,  # the whole reply is a call, without labels
    ],
)
def test_the_text_protocol_forgives_what_small_models_write(reply):
    step = parse_react(reply, NAMES)
    assert (step.action, step.action_input, step.problem) == ("find_book", {"name": "Nightjar"}, None)


@pytest.mark.parametrize("reply", ["**Final Answer:** 2715", "final answer: 2715", "### Final answer: 2715"])
def test_final_answer_labels_in_any_case_or_bold(reply):
    assert parse_react(reply, NAMES).final_answer == "2715"


@pytest.mark.parametrize(
    "reply, answer",
    [
        (
            'Thought: I now know the final answer\nFinal Answer: {"answer": "28.9"}',
            "28.9",
        ),  # seen (Reflexion's executor)
        ('Final Answer: {"answer": 42}', "42"),
        ('Final Answer: {"answer": "Oslo", "source": "city_info"}', '{"answer": "Oslo", "source": "city_info"}'),
        ('Final Answer: {"answer": ""}', '{"answer": ""}'),
        ("Final Answer: {not json}", "{not json}"),
    ],
)
def test_a_final_answer_written_as_finish_s_json_is_unwrapped(reply, answer):
    assert parse_react(reply, NAMES).final_answer == answer


def test_text_react_tells_the_model_its_reply_was_cut_off():
    cut = {"content": "Thought: I know it.\nFinal Answer: The stock is 27", "finish_reason": "length"}
    llm = ScriptedLLM([cut, "Final Answer: 2715"])
    agent = ReActAgent("r", llm, tools=TOOLS, verbose=False)
    assert agent.run("How many?") == "2715"
    correction = llm.requests[1].messages[-1]["content"]
    assert "cut off" in correction and agent.last_result.status == Status.OK


def test_text_react_still_runs_a_complete_action_from_a_cut_off_reply():
    cut = {
        "content": 'Thought: look\nAction: find_book\nAction Input: {"name": "F"}\nThought: and then I will',
        "finish_reason": "length",
    }
    llm = ScriptedLLM([cut, "Final Answer: 2715"])
    agent = ReActAgent("r", llm, tools=TOOLS, verbose=False)
    assert agent.run("How many?") == "2715" and CALLS == [("find_book", "F")]


# -- JSON replies, drafts and numbers ------------------------------------------------------------
def test_a_cut_off_plan_is_re_asked_not_used():
    cut = {"content": '{"steps": ["look up the book", "look up the gre', "finish_reason": "length"}
    llm = ScriptedLLM([cut, '{"steps": ["look up the book"]}', "Final Answer: 2715", "2715"])
    agent = PlanExecuteAgent("p", llm, tools=TOOLS, verbose=False)
    assert agent.run("How many?") == "2715"
    assert "cut off" in llm.requests[1].messages[-1]["content"]
    assert agent.last_result.steps_of("plan")[0].data["steps"] == ["look up the book"]


def test_a_cut_off_draft_is_revised_without_asking_the_critic():
    llm = ScriptedLLM(
        [
            {"content": "def f(x):\n    return x +", "finish_reason": "length"},
            "def f(x):\n    return x + 1",
            '{"thinking": "ok", "is_sufficient": true, "feedback": ""}',
        ]
    )
    agent = BasicReflectionAgent("b", llm, verbose=False)
    assert agent.run("Write f") == "def f(x):\n    return x + 1"
    critiques = agent.last_result.steps_of("critique")
    assert critiques[0].data["is_sufficient"] is False and "cut off" in critiques[0].content
    assert llm.calls == 3 and agent.last_result.status == Status.OK


def test_every_draft_cut_off_ends_failed_and_out_of_history():
    llm = ScriptedLLM(default={"content": "def f(x):\n    return", "finish_reason": "length"})
    agent = BasicReflectionAgent("b", llm, max_turns=2, verbose=False)
    agent.run("Write f")
    assert agent.last_result.status == Status.FAILED and llm.calls == 2 and agent.history == []


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("16353.999999999998", "16354"),
        ("The total is 1271.6000000000001 coins.", "The total is 1271.6 coins."),
        ("0.30000000000000004", "0.3"),
        ("-2.9999999999999996", "-3"),
        ("1.0000001", "1.0000001"),  # an ordinary value stays as written
        ("3.141592653589793", "3.141592653589793"),
        ("v1.000000000000001", "v1.000000000000001"),
    ],
)
def test_float_noise_is_tidied(raw, clean):
    assert tidy_numbers(raw) == clean


def test_answers_and_observations_come_back_with_clean_numbers():
    llm = ScriptedLLM(
        [
            'Thought: compute\nAction: calculate\nAction Input: {"expression": "x"}',
            "Final Answer: 16353.999999999998 coins",
        ]
    )
    agent = ReActAgent("r", llm, tools=TOOLS, verbose=False)
    assert agent.run("What is it?") == "16354 coins"
    assert llm.requests[1].messages[-1]["content"] == "Observation: 16354"
    assert agent.last_result.steps_of("observation")[0].content == "16353.999999999998"  # the raw output is kept


# -- the output cap and cached tokens over HTTP ---------------------------------------------------
def test_max_tokens_defaults_to_the_setting_and_finish_reason_and_cached_tokens_are_read(monkeypatch):
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 5,
        "total_tokens": 105,
        "prompt_tokens_details": {"cached_tokens": 80},
    }
    with MockOpenAIServer() as server:
        server.enqueue({"content": "cut", "finish_reason": "length", "usage": usage})
        reply = ChatOpenAI(model_name="m", base_url=server.base_url, max_retries=0).generate([Message.user("hi")])
        assert server.requests[0]["max_tokens"] == 1024
        assert reply.truncated and reply.usage["cached_tokens"] == 80

        monkeypatch.setenv("MAX_TOKENS", "0")
        reload_settings()
        server.enqueue({"content": "ok"})
        ChatOpenAI(model_name="m", base_url=server.base_url, max_retries=0).generate([Message.user("hi")])
        assert "max_tokens" not in server.requests[1]


def test_streamed_replies_keep_finish_reason_and_cached_tokens():
    usage = {
        "prompt_tokens": 10,
        "completion_tokens": 2,
        "total_tokens": 12,
        "prompt_tokens_details": {"cached_tokens": 7},
    }
    with MockOpenAIServer() as server:
        server.enqueue({"content": "a b", "finish_reason": "length", "usage": usage})
        llm = ChatOpenAI(model_name="m", base_url=server.base_url, max_retries=0)
        stream = llm.generate([Message.user("hi")], stream=True)
        assert "".join(stream) == "a b"
        assert stream.message.truncated and stream.message.usage["cached_tokens"] == 7


def test_run_usage_adds_up_cached_tokens():
    llm = ScriptedLLM(
        [
            {
                "content": "Final Answer: 1",
                "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11, "cached_tokens": 6},
            }
        ]
    )
    agent = ReActAgent("r", llm, tools=TOOLS, verbose=False)
    agent.run("x")
    assert agent.last_result.usage["cached_tokens"] == 6


def test_max_tokens_setting_is_validated(monkeypatch):
    monkeypatch.setenv("MAX_TOKENS", "-5")
    with pytest.raises(ValueError, match="MAX_TOKENS"):
        reload_settings()
    monkeypatch.setenv("MAX_TOKENS", "none")
    assert reload_settings().MAX_TOKENS is None


# -- after a tool error, the other tools are named ----------------------------------------------
@tool
def author_profile(name: str) -> dict:
    """Look up a author by name."""
    return {"error": f"no author named {name!r}"}


@tool(read_only=True)
def find_title(name: str) -> dict:
    """Look up a book by its title."""
    return {"title": name}


@tool
def lend_book(name: str, reader: str) -> str:
    """Lend a book to a reader: changes the library's records."""
    return "lent"


def test_a_tool_reporting_an_error_is_answered_with_its_error_alone():
    """A hint listing the other tools after an error was measured and removed: after it, a 1.5B model
    tried the listed tools in turn instead of fixing its call as the worked example shows."""
    llm = ScriptedLLM(
        ['Thought: look\nAction: author_profile\nAction Input: {"name": "Nightjar"}', "Final Answer: unknown"]
    )
    agent = ReActAgent("r", llm, tools=[find_title, lend_book, author_profile], verbose=False)
    agent.run("Who?")
    assert llm.requests[1].messages[-1]["content"] == 'Observation: {"error": "no author named \'Nightjar\'"}'


def test_no_hint_or_note_points_at_a_tool_that_may_change_things():
    """Seen: listed after an error as "the others", a changing tool was tried by a small model in its turn;
    vero's notes after a failed call now list no tools at all (a list was a menu the model tried in turn)."""
    bad = 'Thought: look\nAction: author_profile\nAction Input: {"author": "Nightjar"}'
    llm = ScriptedLLM([bad, bad, "Final Answer: unknown"])
    agent = ReActAgent("r", llm, tools=[lend_book, author_profile], verbose=False)
    agent.run("Who?")
    after_error, after_repeat = (request.messages[-1]["content"] for request in llm.requests[1:3])
    assert after_error.endswith("Expected arguments: name (string).")
    assert after_repeat.endswith("It would fail the same way. Use a different tool, or different arguments.")
    assert "lend_book" not in after_error + after_repeat


def test_ordinary_output_gets_no_hint():
    llm = ScriptedLLM(['Thought: look\nAction: find_book\nAction Input: {"name": "Nightjar"}', "Final Answer: 2715"])
    agent = ReActAgent("r", llm, tools=[*TOOLS, author_profile], verbose=False)
    agent.run("How many?")


def test_chat_template_tags_are_not_part_of_an_answer():
    agent = ToolCallingAgent("t", ScriptedLLM([SEEN_ECHOED_RESULT]), tools=TOOLS, verbose=False)
    assert agent.run("How many Nightjar books are in stock?") == "2715"


def test_a_repeated_call_gets_the_results_and_the_task_back():
    repeat = {"tool_calls": [{"name": "find_book", "arguments": {"name": "Nightjar"}}]}
    llm = ScriptedLLM([repeat, repeat, "2715"])
    agent = ToolCallingAgent("t", llm, tools=LOOKUPS, verbose=False)
    assert agent.run("How many Nightjar books are in stock?") == "2715"
    nudge = llm.requests[2].messages[-1]
    assert nudge["role"] == "user" and nudge["content"].startswith(REPEATED_CALL_NUDGE)
    assert nudge["content"].endswith("The task: How many Nightjar books are in stock?")
    assert any("same tool call again" in s.content for s in agent.last_result.steps_of("warning"))


def test_a_repeated_call_is_not_nudged_toward_another_call_when_every_tool_may_change_things():
    repeat = {"tool_calls": [{"name": "find_book", "arguments": {"name": "Nightjar"}}]}
    llm = ScriptedLLM([repeat, repeat, "2715"])
    ToolCallingAgent("t", llm, tools=TOOLS, verbose=False).run("How many Nightjar books are in stock?")
    assert llm.requests[2].messages[-1]["content"].startswith(REPEATED_ANSWER_NUDGE)


def test_text_react_answers_a_repeated_call_with_its_result_and_the_task():
    # seen: text ReAct made each lookup twice in a row, copying its thought, and lost the question
    again = (
        "Thought: I now know the shelf of the Ashgrove. I need to find the shelf of the "
        'Ashgrove.\nAction: find_book\nAction Input: {"name": "Nightjar"}'
    )
    llm = ScriptedLLM([again, again, "Thought: I now know the final answer\nFinal Answer: 2715"])
    agent = ReActAgent("t", llm, tools=LOOKUPS, verbose=False)
    assert agent.run("How many Nightjar books are in stock?") == "2715"
    assert CALLS == [("find_book", "Nightjar")] * 2  # run again: a tool's result may change
    first, second = (m["content"] for m in llm.requests[2].messages if m["content"].startswith("Observation:"))
    assert REPEATED_CALL_NUDGE not in first
    assert second.startswith(first + "\n" + REPEATED_CALL_NUDGE)
    assert second.endswith("The task: How many Nightjar books are in stock?")


@tool(read_only=True)
def shelf_info(shelf_id: str) -> dict:
    """Look up a shelf by its id. Returns its city."""
    CALLS.append(("shelf_info", shelf_id))
    return {"city": "Stonebridge"}


def test_a_failed_call_repeated_word_for_word_is_not_run_again():
    # seen: text ReAct kept calling find_book with a shelf id, three times in a row
    wrong = 'Thought: I need to find the shelf SH-06.\nAction: find_book\nAction Input: {"name": "SH-06"}'
    right = 'Thought: use the shelf tool.\nAction: shelf_info\nAction Input: {"shelf_id": "SH-06"}'

    @tool
    def find_book(name: str) -> dict:  # noqa: F811 - this test's own find_book, which knows no such book
        """Look up a book by its name."""
        CALLS.append(("find_book", name))
        return {"error": f"no book named {name!r}"}

    llm = ScriptedLLM([wrong, wrong, right, "Thought: done\nFinal Answer: Stonebridge"])
    agent = ReActAgent("t", llm, tools=[find_book, shelf_info], verbose=False)
    assert agent.run("In which city is shelf SH-06?") == "Stonebridge"
    assert CALLS == [("find_book", "SH-06"), ("shelf_info", "SH-06")]  # the repeat did not run
    second = [s for s in agent.last_result.steps if s.kind == "observation"][1]
    assert second.data["error"] == "repeated_failure" and "no book named 'SH-06'" in second.content
    sent = llm.requests[2].messages[-1]["content"]
    assert sent.startswith("Observation: Not run: you made this exact call before and it failed")
    assert sent.endswith("Use a different tool, or different arguments.")  # the model's tools, not listed again


def test_at_most_max_tool_calls_per_reply_run_and_the_rest_are_answered():
    many = {"tool_calls": [{"name": "calculate", "arguments": {"expression": f"{n} + 1"}} for n in range(5)]}
    llm = ScriptedLLM([many, "done"])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, max_tool_calls_per_reply=3)
    assert agent.run("add them") == "done"
    assert [c for c in CALLS] == [("calculate", f"{n} + 1") for n in range(3)]
    answers = [m for m in llm.requests[1].messages if m["role"] == "tool"]
    assert len(answers) == 5 and all(a["content"].startswith("Not run: at most 3") for a in answers[3:])
    assert any("5 tool calls in one reply" in s.content for s in agent.last_result.steps_of("warning"))


# seen: ToolCallingAgent, the reply after a successful shelf lookup


@pytest.mark.parametrize("native_react", [False, True])
def test_a_cut_off_reply_with_the_notes_off_fails_and_keeps_its_text_as_the_partial_answer(native_react):
    cut = {"content": "The stock of Nightjar is 27", "finish_reason": "length"}
    llm = ScriptedLLM([cut])
    if native_react:
        agent = ReActAgent("r", llm, tools=TOOLS, verbose=False, protocol="native", recovery=False)
    else:
        agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, recovery=False)
    assert agent.run("How many?") == "The stock of Nightjar is 27"
    assert agent.last_result.status == Status.FAILED and agent.history == []
