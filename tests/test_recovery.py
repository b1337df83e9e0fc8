"""The opt-in recovery layer (``vero.recovery``): the hook, the switch, the preset and each rule.

Every example is invented; the prompt texts are compared against their constants.
"""

import json
import re
import threading

import pytest

from vero import tool
from vero.agents import ReActAgent, ToolCallingAgent
from vero.core.notes import NOTES, repeats_a_note
from vero.recovery import PRESETS, RULES, Nudge, asks_the_user, declines, resolve, rule
from vero.recovery.arithmetic import Miscalculation, miscalculation
from vero.recovery.hook import tools_named
from vero.recovery.rules import ANNOUNCED_NUDGE, ARITHMETIC_NUDGE, GROUNDING_NUDGE
from vero.testing import ScriptedLLM


@tool(read_only=True)
def find_book(title: str) -> dict:
    """Look up a book by its title."""
    return {"title": title, "copies": 1288, "shelf": "SH-07", "author": "Ida Varga"}


@tool(read_only=True)
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    return "48235.6"


TOOLS = [find_book, calculator]
LOOKUP = {"tool_calls": [{"name": "find_book", "arguments": {"title": "Blue Atlas"}}]}
AGENTS = {
    "tool_calling": lambda llm, **kw: ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, **kw),
    "native_react": lambda llm, **kw: ReActAgent("r", llm, tools=TOOLS, protocol="native", verbose=False, **kw),
}


def last_sent(llm, number):
    return llm.requests[number].messages[-1]["content"]


# -- the switch and the preset ------------------------------------------------------------------------
def test_the_default_agent_has_no_rules_and_the_preset_is_a_tuple_of_rule_names():
    assert resolve(True) == () and resolve(False) == ()
    assert all(name in RULES for name in PRESETS["small-model"])
    assert resolve("small-model") == tuple(RULES[name] for name in PRESETS["small-model"])


@pytest.mark.parametrize(
    "setting, message",
    [
        ("large-model", "unknown recovery preset"),
        (("grounding", "guess"), "unknown recovery rule 'guess'"),
        ((42,), "needs a name"),
    ],
)
def test_an_unknown_preset_or_rule_is_a_clear_error(setting, message):
    with pytest.raises(ValueError, match=message):
        resolve(setting)


def test_an_unknown_preset_fails_the_run_with_that_message():
    agent = ToolCallingAgent("t", ScriptedLLM(["42"]), tools=TOOLS, verbose=False, recovery="large-model")
    agent.run("x")
    assert agent.last_result.status == "failed" and "unknown recovery preset" in str(agent.last_result.error)


def test_the_default_agent_accepts_an_answer_the_preset_would_question():
    llm = ScriptedLLM(["37 * 59.99 = 2219.33"])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False)
    assert agent.run("What do 37 beads at 59.99 cost?") == "37 * 59.99 = 2219.33" and llm.calls == 1


def test_a_user_rule_is_asked_and_its_limit_is_kept():
    seen_answers = []

    @rule("ask-twice", limit=2)
    def ask_twice(seen):
        seen_answers.append(seen.answer)
        return Nudge("Say it with the unit.")

    llm = ScriptedLLM(["5", "5 m", "5 metres"])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, recovery=[ask_twice])
    assert agent.run("How long?") == "5 metres" and llm.calls == 3
    assert seen_answers == ["5", "5 m"] and last_sent(llm, 1) == "Say it with the unit."
    assert [s.data.get("rule") for s in agent.last_result.steps_of("warning")] == ["ask-twice", "ask-twice"]


@pytest.mark.parametrize(
    "answer",
    [
        "I have stopped; please check with your bank.",
        "I won't send that.",
        "I'm sorry, I cannot help with this.",
        "Please confirm with the owner first.",
    ],
)
def test_answers_that_decline_or_stop_are_recognised(answer):
    assert declines(answer)


@pytest.mark.parametrize("answer", ["The shelf is SH-07.", "It has 1288 copies.", "Ida Varga wrote it."])
def test_ordinary_answers_do_not_decline(answer):
    assert not declines(answer)


# -- grounding --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", AGENTS)
def test_an_answer_with_a_value_no_result_gave_is_asked_once_to_look_it_up(kind):
    llm = ScriptedLLM([LOOKUP, "The Blue Atlas has 1300 copies on SH-09.", "The Blue Atlas has 1300 copies."])
    agent = AGENTS[kind](llm, recovery=["grounding"])
    assert agent.run("How many copies of the Blue Atlas are there?") == "The Blue Atlas has 1300 copies."
    nudge = last_sent(llm, 2)
    assert nudge.startswith(GROUNDING_NUDGE.format(values="1300, SH-09"))
    assert nudge.endswith("The task: How many copies of the Blue Atlas are there?") and llm.calls == 3


@pytest.mark.parametrize(
    "answer",
    [
        "The Blue Atlas has 1288 copies on shelf SH-07.",
        "The Blue Atlas has 1,288 copies.",  # other grouping
        "Ida Varga wrote it.",  # a name from a result
        "1288 copies cost 48,235.60 coins.",  # a sum the calculator returned, rounded
        "Yes. There are 3 copies left to lend.",  # one-digit numbers and sentence openings are not checked
    ],
)
def test_values_found_in_the_task_or_a_result_pass(answer):
    llm = ScriptedLLM(
        [LOOKUP, {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1288*37.45"}}]}, answer]
    )
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, recovery=["grounding"])
    assert agent.run("About the Blue Atlas at 37.45 coins each: how many copies?") == answer and llm.calls == 3


def test_no_rule_nudges_to_look_values_up_when_every_tool_may_change_things():
    @tool
    def send_copies(title: str, copies: int) -> str:
        """Send copies of a book."""
        return "sent"

    llm = ScriptedLLM(["I sent 1300 copies to SH-09."])
    agent = ToolCallingAgent("t", llm, tools=[send_copies], verbose=False, recovery=["grounding"])
    assert agent.run("How many copies went out?") == "I sent 1300 copies to SH-09." and llm.calls == 1


def test_a_name_the_model_made_up_is_not_grounded():
    llm = ScriptedLLM([LOOKUP, "It was written by Olek Brandt.", "It was written by Ida Varga."])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, recovery=["grounding"])
    assert agent.run("Who wrote the Blue Atlas?") == "It was written by Ida Varga."
    assert last_sent(llm, 2).startswith(GROUNDING_NUDGE.format(values="Olek, Brandt"))


def test_text_react_grounds_its_final_answer_too():
    llm = ScriptedLLM(
        [
            'Thought: look\nAction: find_book\nAction Input: {"title": "Blue Atlas"}',
            "Final Answer: 1300",
            "Final Answer: 1288",
        ]
    )
    agent = ReActAgent("r", llm, tools=TOOLS, verbose=False, recovery=["grounding"])
    assert agent.run("How many copies of the Blue Atlas?") == "1288"
    assert last_sent(llm, 2).startswith("Observation: " + GROUNDING_NUDGE.format(values="1300"))


# -- arithmetic -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", AGENTS)
def test_a_wrong_sum_in_the_answer_gets_the_right_value(kind):
    llm = ScriptedLLM(["37 * 59.99 = 2219.33", "2219.63"])
    agent = AGENTS[kind](llm, recovery=["arithmetic"])
    assert agent.run("What do 37 beads at 59.99 cost?") == "2219.63"
    assert last_sent(llm, 1) == ARITHMETIC_NUDGE.format(expression="37 * 59.99", value="2219.63", claimed="2219.33")


def test_arithmetic_nudges_are_bounded_and_then_the_answer_stands():
    llm = ScriptedLLM(default="3 * 4 = 13")
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, recovery=["arithmetic"])
    assert agent.run("3 times 4?") == "3 * 4 = 13" and llm.calls == 3  # two nudges, then it stands


# -- arithmetic done in the head ------------------------------------------------------------------
# seen (ToolCallingAgent): the whole answer, after a lookup, with no calculate call
SEEN_WRONG_PRODUCT = "37 * 59.99 = 2219.33"
# seen (ToolCallingAgent and native ReAct): "What is 7.35 percent of 86420?" answered with no call
SEEN_WRONG_PERCENT = (
    "To find 7.35 percent of 86420, we can use the following calculation:\n\n1. Convert the "
    "percentage to a decimal: 7.35% = 0.0735\n2. Multiply the decimal by the number: 0.0735 * 86420"
    "\n\nLet's perform the multiplication:\n\n0.0735 * 86420 = 6300.0735"
)

# seen (native ReAct, after the lookup): the sum in LaTeX, its result in the next display block
SEEN_LATEX_CHAIN = (
    "To calculate Ida Varga's weekly earnings, we need to multiply her hourly wage by her weekly hours.\n\n"
    "1. Hourly wage: 28.9 coins\n2. Weekly hours: 44\n\n\\[ \\text{Weekly earnings} = \\text{Hourly wage} \\times "
    "\\text{Weekly hours} \\]\n\n\\[ \\text{Weekly earnings} = 28.9 \\times 44 \\]\n\n\\[ \\text{Weekly earnings} = "
    "1285.6 \\]\n\nTherefore, Ida Varga earns 1285.6 coins in a week."
)
# seen (ToolCallingAgent, after three lookups): units in \text{} and a thin space \, between the numbers
SEEN_LATEX_WITH_UNITS = (
    "Substituting the values we have:\n\\[ \\text{Weekly Pay} = 26.6 \\, \\text{coins/hour} \\times 37.5 \\, "
    "\\text{hours} \\]\n\n\\[ \\text{Weekly Pay} = 984 \\, \\text{coins} \\]\n\nTherefore, the weekly pay of the "
    "editor of the Blue Atlas is 984 coins."
)
# seen (native ReAct, no call): "What is 7.35 percent of 86420?"
SEEN_LATEX_PERCENT = (
    "1. Convert 7.35% to a decimal:\n   \\[\n   7.35\\% = \\frac{7.35}{100} = 0.0735\n   \\]\n\n2. Multiply 0.0735 by "
    "86420:\n   \\[\n   0.0735 \\times 86420 = 6300.0735\n   \\]\n\n"
    "So, 7.35 percent of 86420 is \\(\\boxed{6300.07}\\)."
)


@pytest.mark.parametrize(
    "text, expression, value, claimed",
    [
        (SEEN_WRONG_PRODUCT, "37 * 59.99", "2219.63", "2219.33"),
        (SEEN_WRONG_PERCENT, "0.0735 * 86420", "6351.87", "6300.0735"),
        ("x = 3 × 4 = 13, so", "3 × 4", "12", "13"),
        ("(1,288 * 37.45) + (845 * 59.99) = 98,000", "(1,288 * 37.45) + (845 * 59.99)", "98927.15", "98,000"),
        ("**37 * 59.99 = 2219.33**", "37 * 59.99", "2219.63", "2219.33"),  # Markdown bold
        ("- 3 * 4 = 13", "3 * 4", "12", "13"),  # a list item, not a minus
        ("0.0000001 * 3 = 0.0000004", "0.0000001 * 3", "0.0000003", "0.0000004"),
        ("0.1 * 3 = 0.4", "0.1 * 3", "0.3", "0.4"),  # float noise does not make it "within one unit"
        ("123456789 * 987654321 = 1", "123456789 * 987654321", "121932631112635269", "1"),
        ("12.50 * 3 = $37.00", "12.50 * 3", "37.5", "37.00"),
        ("37 × $59.99 = $2,219.33", "37 × $59.99", "2219.63", "2,219.33"),
        ("1. 37 * 59.99 = 2219.33", "37 * 59.99", "2219.63", "2219.33"),
        ("Each costs 59.99. 37 * 59.99 = 2219.33.", "37 * 59.99", "2219.63", "2219.33"),
        ("2715 / 5000 * 100 = 5.43%", "2715 / 5000 * 100", "54.3", "5.43"),
        ("25 - 18 = 8 years", "25 - 18", "7", "8"),
        (SEEN_LATEX_CHAIN, "28.9 * 44", "1271.6", "1285.6"),
        (SEEN_LATEX_WITH_UNITS, "26.6 * 37.5", "997.5", "984"),
        (SEEN_LATEX_PERCENT, "0.0735 * 86420", "6351.87", "6300.0735"),
        ("\\[ 100 \\text{ books} \\times 5 \\text{ coins/book} = 600 \\text{ coins} \\]", "100 * 5", "500", "600"),
        ("\\[\n\\frac{1288}{4} = 320\n\\]", "(1288)/(4)", "322", "320"),
        ("\\(3 \\cdot 4 = 13\\)", "3 * 4", "12", "13"),
        ("$$12 \\div 4 = 4$$", "12 / 4", "3", "4"),
    ],
)
def test_a_wrong_result_written_in_an_answer_is_found(text, expression, value, claimed):
    assert miscalculation(text) == Miscalculation(expression, claimed, value)


@pytest.mark.parametrize(
    "text",
    [
        "28.9 * 44 = 1271.6",
        "1,288 * 37.45 = 48,235.60 coins",
        "(1288 * 37.45) + (845 * 59.99) = 98,927.2",
        "2219.63",
        "The answer is 42.",
        "7.35% of 86420 = 6352",
        "on 2024-01-05 = today",
        "AB-03 = 5",
        "10 / 0 = 1",
        "step 1. 5 = 5",
        "- 3 * 4 = 12",
        "15 / 4 = 3 full boxes",
        "1/3 = 0.33",
        "1/4 = 25%",
        "Pages 10-20 = 11 pages",
        "11:30 - 2 = 9:30",
        "v1.2 - 0.2 = 1",
        "version 1.2 - 0.2 = 1.0.0",
        "7 % 3 + 1 = 2",
        "2 ^ 3 + 1 = 9",
        "12 * 250 = 3k",
        "2,5 * 2 = 5",
        "3 * 4.2 = 12,6",
        "6.02e23 / 2 = 3.01e23",
        "9 ** 9 ** 9 = 1",
        "1 + 1 = " + "9" * 400,
        "Remaining: 20 apples - 3 - 2 = 15 apples",
        "Total: 5 kg + 2 + 1 = 8 kg",
        "2x + 3 * 2 = 10",
        "11 + " * 60 + "1 = 661",
        "0.25 * 100 = 25%",
        "Ages 18 - 25 = 40% of users",
        "Between 2020 - 2024 = 5 years",
        "1/3 + 1/3 = 2/3",
        "9.99 * 3 = 29.97",
        # right sums seen in LaTeX
        "\\[\n\\frac{100}{1000} = 0.1\n\\]",
        "\\[\n0.1 \\times 100 = 10\\%\n\\]",
        "The combined value of the Velvet Atlas is \\(100 \\times 10 = 1000\\) coins.",
        "\\[\n\\text{Total value} = \\text{Number of books in stock} \\times \\text{Price per book}\n\\]\n\n"
        "\\[\n\\text{Total value} = 100 \\times 5 = 500\n\\]\n\nTherefore, the total value is \\(\\boxed{500}\\).",
        "\\[ 15 \\text{ coins/hour} \\times 40 \\text{ hours/week} = 600 \\text{ coins/week} \\]",
        "\\[ \\text{Pay} = 28.9 \\times 44 \\]\n\n\\[ \\text{Pay} = 1271.6 \\]",
        # a unit before `+` or `-` keeps the sum from reading as one of plain numbers
        "\\[ 2 \\text{ hours} + 30 \\text{ minutes} = 150 \\text{ minutes} \\]",
        "\\[ 1 \\text{ kg} + 500 \\text{ g} = 1500 \\]",
        # a line that starts with `=` continues the one above, but only a sum there is checked
        "Price per book: 12\n\\[ \\text{Total} = 5 \\]",
        "\\[ x^2 \\]\n= 4",
    ],
)
def test_right_or_rounded_results_and_non_equations_are_left_alone(text):
    assert miscalculation(text) is None


def test_long_runs_of_spaces_and_operators_are_read_in_one_pass():
    # an earlier pattern backtracked for minutes on such replies (small models do pad with blanks):
    # the check runs in a thread, so a regression fails here instead of hanging the suite
    texts = [
        "1 +" + " " * 100_000 + "2 = 4",
        "1+" * 50_000 + "= 3",
        "= 1 " * 50_000,
        "= " + " " * 100_000,
        "x\n1 + 1\n" + "=\n" * 50_000,
        "\\[ = \\]" * 50_000,
    ]
    results: list = []
    worker = threading.Thread(target=lambda: results.extend(miscalculation(t) for t in texts), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert results == [None] * len(texts)


# -- announced --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", AGENTS)
def test_an_announced_call_that_was_not_made_is_told_to_go_ahead(kind):
    llm = ScriptedLLM(["To answer this, I will use the `find_book` tool.", LOOKUP, "1288 copies."])
    agent = AGENTS[kind](llm, recovery=["announced"])
    assert agent.run("How many copies of the Blue Atlas?") == "1288 copies."
    assert last_sent(llm, 1) == ANNOUNCED_NUDGE.format(which="first")


@pytest.mark.parametrize(
    "answer",
    ["I will be brief: 1288 copies.", "Let me know if you need more. 1288.", "We should calculate nothing more: 1288."],
)
def test_an_answer_that_does_not_speak_of_a_tool_is_no_announcement(answer):
    llm = ScriptedLLM([answer])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, recovery=["announced"])
    assert agent.run("How many?") == answer and llm.calls == 1


# -- announced: a result the model wrote itself ------------------------------------------------------------
# invented, of a kind seen: after the first of two lookups, the second one's result written by the model
MADE_UP = '{"title": "Red Atlas", "copies": 40, "shelf": "SH-02", "author": "Ida Varga"}'
OTHER_LOOKUP = {"tool_calls": [{"name": "find_book", "arguments": {"title": "Red Atlas"}}]}


@pytest.mark.parametrize("kind", AGENTS)
@pytest.mark.parametrize("written", [MADE_UP, f"```json\n{MADE_UP}\n```"])
def test_a_record_shaped_like_a_tool_result_that_no_tool_returned_is_told_to_go_ahead(kind, written):
    llm = ScriptedLLM([LOOKUP, written, OTHER_LOOKUP, "2576 copies in all."])
    agent = AGENTS[kind](llm, recovery=["announced"])
    assert agent.run("How many copies of the Blue Atlas and the Red Atlas together?") == "2576 copies in all."
    assert last_sent(llm, 2) == ANNOUNCED_NUDGE.format(which="next") and llm.calls == 4


@pytest.mark.parametrize(
    "answer",
    [
        '{"title": "Blue Atlas", "copies": 1288, "shelf": "SH-07", "author": "Ida Varga"}',  # the result itself
        '{"copies": 1288}',  # other keys: an answer in JSON
        'The record: {"title": "Red Atlas", "copies": 40, "shelf": "SH-02", "author": "Ida Varga"}',  # not whole
    ],
)
def test_a_result_restated_or_an_answer_in_json_is_not_made_up(answer):
    llm = ScriptedLLM([LOOKUP, answer])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, recovery=["announced"])
    assert agent.run("How many copies of the Blue Atlas?") == answer and llm.calls == 2


# -- the registry of vero's messages ----------------------------------------------------------------------
def test_every_message_vero_sends_on_its_own_is_in_the_registry():
    import vero.agents.react  # noqa: F401  (registers ReAct's messages)

    for name in (
        "json_reask",
        "repeated_failure",
        "cut_off",
        "empty",
        "repeated_call",
        "too_many_calls",
        "loop_warning",
        "format_error",
        "final_answer",
        "announced",
        "grounding",
        "arithmetic",
    ):
        assert name in NOTES


@pytest.mark.parametrize(
    "text", [NOTES["repeated_call"], "not run: " + NOTES["loop_warning"].upper(), NOTES["grounding"].format(values="7")]
)
def test_a_reply_that_repeats_one_of_vero_s_messages_is_recognised(text):
    with pytest.warns(DeprecationWarning, match="repeats_a_note"):  # deprecated: nothing in vero asks it
        assert repeats_a_note(text)


@pytest.mark.parametrize("text", ["Your answer is 42.", "Go for it.", "1288 copies."])
def test_answers_that_only_share_a_word_with_a_message_are_not_echoes(text):
    with pytest.warns(DeprecationWarning, match="repeats_a_note"):
        assert not repeats_a_note(text)


def test_the_rules_send_the_task_with_their_note_and_keep_the_system_prompt():
    llm = ScriptedLLM([LOOKUP, "There are 1300.", "There are 1288."])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, recovery="small-model", system_prompt="Be exact.")
    agent.run("How many copies of the Blue Atlas?")
    assert all(request.messages[0] == {"role": "system", "content": "Be exact."} for request in llm.requests)
    assert json.loads(llm.requests[1].messages[-1]["content"])["copies"] == 1288


# -- did-you-mean -----------------------------------------------------------------------------------------
@tool(read_only=True)
def find_author(name: str) -> str:
    """Look up an author by name."""
    if name == "Ida Varga":
        return '{"name": "Ida Varga", "born": 1931}'
    return "Error: no author named " + repr(name) + ". Did you mean 'Ida Varga'?"


@pytest.mark.parametrize("kind", AGENTS)
def test_a_failed_read_only_lookup_runs_again_with_the_one_suggested_value_and_the_model_is_told(kind):
    wrong = {"tool_calls": [{"name": "find_author", "arguments": {"name": "Ida Vargo"}}]}
    llm = ScriptedLLM([wrong, "There is no such author.", "Ida Varga was born in 1931."])
    agent = AGENTS[kind](llm, recovery=["did-you-mean"])
    agent.tools.register(find_author)
    assert agent.run("When was Ida Vargo born?") == "Ida Varga was born in 1931."
    sent = llm.requests[2].messages
    assert sent[-2]["role"] == "tool" and "1931" in sent[-2]["content"]
    assert sent[-1]["content"] == NOTES["ran_for_you"].format(call='find_author({"name": "Ida Varga"})')


def test_text_react_runs_the_suggested_lookup_as_its_next_observation():
    llm = ScriptedLLM(
        [
            'Thought: look\nAction: find_author\nAction Input: {"name": "Ida Vargo"}',
            "Final Answer: There is no such author.",
            "Final Answer: 1931",
        ]
    )
    agent = ReActAgent("r", llm, tools=[find_author], verbose=False, recovery=["did-you-mean"])
    assert agent.run("When was Ida Vargo born?") == "1931"
    assert llm.requests[2].messages[-1]["content"].endswith('{"name": "Ida Varga", "born": 1931}')


@pytest.mark.parametrize(
    ("error", "runs"),
    [
        ("Error: no author named 'Ida Vargo'. Did you mean Ida Varga?", True),  # unquoted
        ('Error: no author "Ida Vargo". Did you mean: "Ida Varga" ?', True),
        ("Error: no author named 'Ida Vargo'. Did you mean Ida Varga, Ida Vargas or Ada Varga?", False),  # a list
        ("Error: no author named 'Ida Vargo'. Did you mean one of these?\n- Ida Varga\n- Ida Vargas", False),
        ("Error: no author named 'Ida Vargo'. Did you mean 'Ida Varga' or 'Ida Vargas'?", False),  # two values
        ("Error: no author named 'Ida Vargo'. Did you mean \u201cIda Varga\u201d?", True),  # typographic quotes
        ("Error: no author named 'Ida Vargo'. Did you mean Ida Varga or Ida Vargas?", False),
        ("Error: no author named 'Ida Vargo'. Did you mean to search by title instead?", False),  # a hint
        ("Error: no author named 'Ida Vargo'. Did you mean another spelling?", False),
        ("Error: no author named 'Ida Vargo'. Did you mean Ida Varga. Please retry?", False),  # two sentences
    ],
)
def test_only_one_suggested_value_quoted_or_not_is_looked_up(error, runs):
    @tool(read_only=True)
    def find_writer(name: str) -> str:
        """Look up an author by name."""
        return '{"name": "Ida Varga", "born": 1931}' if name == "Ida Varga" else error

    wrong = {"tool_calls": [{"name": "find_writer", "arguments": {"name": "Ida Vargo"}}]}
    llm = ScriptedLLM([wrong, "There is no such author.", "Ida Varga was born in 1931."])
    agent = ToolCallingAgent("t", llm, tools=[find_writer], verbose=False, recovery=["did-you-mean"])
    agent.run("When was Ida Vargo born?")
    actions = [s.content for s in agent.last_result.steps_of("action")]
    assert actions[1:] == (["find_writer(name='Ida Varga')"] if runs else [])


def test_no_suggested_value_is_used_for_a_tool_that_may_change_things():
    done = []

    @tool
    def remove_author(name: str) -> str:
        """Remove an author."""
        done.append(name)
        return "Error: no author named " + repr(name) + ". Did you mean 'Ida Varga'?"

    llm = ScriptedLLM(
        [{"tool_calls": [{"name": "remove_author", "arguments": {"name": "Ida Vargo"}}]}, "Nothing was removed."]
    )
    agent = ToolCallingAgent("t", llm, tools=[remove_author], verbose=False, recovery=["did-you-mean"])
    assert agent.run("Remove Ida Vargo.") == "Nothing was removed." and done == ["Ida Vargo"] and llm.calls == 2


def test_a_rule_object_that_cannot_be_hashed_is_accepted():
    class Always:  # a plain class with __eq__ (so unhashable), as a user might write a rule
        name, limit = "always", 1

        def __eq__(self, other):
            return isinstance(other, Always)

        __hash__ = None

        def __call__(self, seen):
            return Nudge("Once more, please.")

    llm = ScriptedLLM(["first", "second"])
    agent = ToolCallingAgent("t", llm, tools=TOOLS, verbose=False, recovery=[Always()])
    assert agent.run("x") == "second" and last_sent(llm, 1) == "Once more, please."


# -- never a nudge toward a change (issue 44, item 2) ------------------------------------------------------
@tool
def archive_note(name: str) -> str:
    """Move a note to the archive (it may change things: not read-only)."""
    ARCHIVED.append(name)
    return '{"name": "' + name + '", "archived": true}'


ARCHIVED: list = []
ARCHIVE_CALL = {"tool_calls": [{"name": "archive_note", "arguments": {"name": "draft"}}]}


def mixed_agent(kind, llm, **kw):
    """An agent with a read-only lookup and a tool that may change things."""
    if kind == "text_react":
        return ReActAgent("r", llm, tools=[find_book, archive_note], protocol="text", verbose=False, **kw)
    agent = AGENTS[kind](llm, **kw)
    agent.tools.register(archive_note)
    return agent


@pytest.fixture
def archive():
    ARCHIVED.clear()
    yield ARCHIVED
    ARCHIVED.clear()


# The three, then invented ones of the same kind: the next step put to the user.
ASKS_THE_USER = [
    "Let me know if I should call `delete_file`.",
    "I found the file. Do you want me to go ahead?",
    "Let's wait for your confirmation before doing anything.",
    "Shall I archive the draft now?",
    "Should we move it to the archive?",
    "Would you like me to archive the draft?",
    "Is it okay if I archive the draft?",
    "Can you confirm that the draft should go?",
    "I am ready to call archive_note once you give the go-ahead.",
    "Before I archive it, I need your approval.",
    "Please confirm and I will proceed.",
    "Tell me whether to archive it.",
    "I can archive it if you\u2019d like.",
    "Awaiting your decision on the draft.",
    "Proceed with archiving the draft?",
    "Are you sure you want the draft archived? (yes/no)",
    "Archiving is your call.",
    "May I go on with the archive step\uff1f",
    "Should I archive the draft? I will wait for your answer.",  # the next sentence speaks to the user
    "What should I do next? Let me know.",
    "Ready to archive the draft, just say yes.",
    "Archive the draft now [y/N]",
    "Do you want the draft archived?",
    "Type 'yes' to confirm the archive step.",
    "Would it be alright for me to archive the draft?",
    "Give me a thumbs up and I'll archive it, if you agree.",
    "What would you like me to do with the draft?",
]


@pytest.mark.parametrize("answer", ASKS_THE_USER)
def test_answers_that_put_the_next_step_to_the_user_are_recognised(answer):
    assert asks_the_user(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "The shelf is SH-07.",
        "Let me know if you need anything else.",
        "There are 1288 copies. Can I help with anything else?",
        "The order was confirmed on Monday.",
        "Your transfer was approved; it continues on page 2.",
        "If you add 2 and 2 you get 4.",
        "What did the lookup return? It returned 1288.",
        "I will be brief: 1288 copies.",
        "What should I do next? I should look it up with find_book.",  # a question it answers itself
        "Should we add them? Yes: 1288 + 40 = 1328.",
        "If you would like more details, just ask!",  # a courtesy offer
        "Sure! The answer is 42.",
        "Answer: 42.",
        "Sure, please find the total below: 42.",
        "Would you like to know more? The shelf is SH-07.",  # courtesy, then the answer itself
    ],
)
def test_answers_that_hand_nothing_over_are_not_questions_to_the_user(answer):
    assert not asks_the_user(answer)


@pytest.mark.parametrize("kind", [*AGENTS, "text_react"])
@pytest.mark.parametrize("question", ASKS_THE_USER)
def test_a_request_for_confirmation_is_returned_as_it_is_and_nothing_changes(kind, question, archive):
    answer = f"I will call `find_book` next. {question}"  # announced, read-only: a nudge without the question
    reply = f"Final Answer: {answer}" if kind == "text_react" else answer
    llm = ScriptedLLM([reply, ARCHIVE_CALL, "Archived."])
    agent = mixed_agent(kind, llm, recovery="small-model")
    assert agent.run("Archive the draft note.") == answer
    assert llm.calls == 1 and archive == []


@pytest.mark.parametrize("kind", [*AGENTS, "text_react"])
@pytest.mark.parametrize(
    "answer",
    [
        "I will call archive_note for the draft now.",  # names the changing tool
        "Next, I need to use `archive_note` and then `find_book`.",  # names it among read-only ones
        "I will use the right tool for this.",  # names none: any tool of the agent, one may change things
    ],
)
def test_an_announced_call_that_may_change_things_gets_no_nudge(kind, answer, archive):
    reply = f"Final Answer: {answer}" if kind == "text_react" else answer
    llm = ScriptedLLM([reply, ARCHIVE_CALL, "Archived."])
    agent = mixed_agent(kind, llm, recovery=["announced"])
    assert agent.run("Archive the draft note.") == answer
    assert llm.calls == 1 and archive == []
    assert "may change things: not sent" in agent.last_result.steps_of("warning")[0].content


@pytest.mark.parametrize("kind", AGENTS)
def test_an_announced_read_only_lookup_is_still_told_to_go_ahead_beside_a_changing_tool(kind):
    llm = ScriptedLLM(["I will use find_book to look it up.", LOOKUP, "1288 copies."])
    agent = mixed_agent(kind, llm, recovery=["announced"])
    assert agent.run("How many copies of the Blue Atlas?") == "1288 copies."
    assert last_sent(llm, 1) == ANNOUNCED_NUDGE.format(which="first")


def test_a_record_shaped_like_a_changing_tool_s_result_gets_no_nudge(archive):
    written = '{"name": "final", "archived": true}'
    llm = ScriptedLLM([ARCHIVE_CALL, written, {"tool_calls": [{"name": "archive_note", "arguments": {"name": "x"}}]}])
    agent = mixed_agent("tool_calling", llm, recovery=["announced"])
    assert agent.run("Archive the draft note.") == written and llm.calls == 2 and archive == ["draft"]


@pytest.mark.parametrize(
    "nudge",
    [Nudge("Now call archive_note with the draft."), Nudge("Do it now.", toward=("archive_note",))],
)
def test_no_rule_of_a_user_may_nudge_toward_a_tool_that_may_change_things(nudge, archive):
    llm = ScriptedLLM(["Done thinking.", ARCHIVE_CALL])
    agent = mixed_agent("tool_calling", llm, recovery=[rule("push")(lambda seen: nudge)])
    assert agent.run("Archive the draft note.") == "Done thinking." and llm.calls == 1 and archive == []


def test_a_nudge_that_quotes_a_task_naming_a_changing_tool_is_still_sent():
    llm = ScriptedLLM(["It is 12.", "It is 1288."])
    agent = mixed_agent("tool_calling", llm, recovery=["grounding"])
    assert agent.run("Use archive_note later; first, how many copies of the Blue Atlas?") == "It is 1288."
    assert last_sent(llm, 1).startswith(GROUNDING_NUDGE.split("{")[0])


def test_only_the_announced_note_says_go_ahead_and_consult_guards_it():
    urging = [name for name, text in NOTES.items() if re.search(r"go ahead|make the \S+ ?call", text, re.IGNORECASE)]
    assert urging == ["announced"]


# -- a changing tool's name in any spelling: no nudge toward it ----------------------------------------------
@tool(read_only=True)
def find_note(name: str) -> str:
    """Look up a note by its name."""
    return '{"name": "' + name + '", "words": 120}'


FIND_CALL = {"tool_calls": [{"name": "find_note", "arguments": {"name": "draft"}}]}
# Spellings of ``archive_note`` a model or a rule writes that a literal, case-blind match misses.
CHANGING_SPELLINGS = [
    "archiveNote",
    "ArchiveNoteTool",
    "archive-note",
    "Archive Note",
    "the archive note tool",
    "archive_notes",
    "archive_note-tool",
    "archive\\_note",  # a markdown escape
    "arch\u0456ve_note",  # a Cyrillic i
    "\u0430rchive_n\u043ete",  # a Cyrillic a and o
    "archive\u200b_note",  # a zero-width space
    "ar\u00adchive_note",  # a soft hyphen
    "archive\u2060Note",  # a word joiner
    "archive&#95;note",  # an HTML escape
]


def notes_agent(kind, llm, **kw):
    """An agent with a read-only ``find_note`` and ``archive_note``, which may change things."""
    tools = [find_note, archive_note]
    if kind == "tool_calling":
        return ToolCallingAgent("t", llm, tools=tools, verbose=False, **kw)
    return ReActAgent("r", llm, tools=tools, protocol=kind.removesuffix("_react"), verbose=False, **kw)


@pytest.mark.parametrize("spelt", CHANGING_SPELLINGS)
def test_a_changing_tool_is_named_in_any_spelling(spelt):
    assert tools_named(f"Next: {spelt} for the draft.", ["find_note", "archive_note"]) == ["archive_note"]


@pytest.mark.parametrize("kind", [*AGENTS, "text_react"])
@pytest.mark.parametrize("spelt", CHANGING_SPELLINGS)
def test_an_announced_plan_naming_a_changing_tool_in_any_spelling_gets_no_go_ahead(kind, spelt, archive):
    answer = f"I will call find_note to check the draft, then {spelt} to put it away."
    reply = f"Final Answer: {answer}" if kind == "text_react" else answer
    llm = ScriptedLLM([reply, ARCHIVE_CALL, "Archived."])
    agent = notes_agent(kind, llm, recovery=["announced"])
    assert agent.run("Check the draft note.") == answer
    assert llm.calls == 1 and archive == []
    assert "archive_note, which may change things: not sent" in agent.last_result.steps_of("warning")[0].content


@pytest.mark.parametrize("spelt", CHANGING_SPELLINGS)
def test_no_rule_of_a_user_may_nudge_toward_a_changing_tool_in_any_spelling(spelt, archive):
    llm = ScriptedLLM(["Done thinking.", ARCHIVE_CALL])
    push = rule("push")(lambda seen: Nudge(f"Now call {spelt} with the draft."))
    agent = notes_agent("tool_calling", llm, recovery=[push])
    assert agent.run("Check the draft note.") == "Done thinking." and llm.calls == 1 and archive == []


@pytest.mark.parametrize(
    "text",
    [
        "Do it now.\nThe task: call archive_note on the draft.",  # a task line the rule made up
        "Do it now.\nThe task: Check the draft note.\nThen call archive_note.",  # words after the real task
    ],
)
def test_only_the_run_s_own_task_at_a_nudge_s_end_is_set_aside(text, archive):
    llm = ScriptedLLM(["Done thinking.", ARCHIVE_CALL])
    agent = notes_agent("tool_calling", llm, recovery=[rule("push")(lambda seen: Nudge(text))])
    assert agent.run("Check the draft note.") == "Done thinking." and llm.calls == 1 and archive == []


@pytest.mark.parametrize(
    "answer",
    [
        "Let me findNote for the draft first.",
        "I will use the find note tool on the draft.",
        "Next I call Find-Note for the draft.",
        "I will call find_notes for the draft.",
    ],
)
def test_a_plan_naming_only_a_read_only_tool_in_another_spelling_is_told_to_go_ahead(answer, archive):
    llm = ScriptedLLM([answer, FIND_CALL, "The draft has 120 words."])
    agent = notes_agent("tool_calling", llm, recovery=["announced"])
    assert agent.run("How many words has the draft note?") == "The draft has 120 words."
    assert last_sent(llm, 1) == ANNOUNCED_NUDGE.format(which="first") and archive == []


# Guards against refusing too much: these passed before too.
@pytest.mark.parametrize("text", ["I unarchive_note nothing.", "I archived the note.", "Archive this note."])
def test_words_near_a_changing_tool_s_name_are_not_its_name(text):
    assert tools_named(text, ["find_note", "archive_note"]) == []


def test_a_nudge_quoting_the_run_s_task_in_full_is_sent_though_the_task_names_a_changing_tool():
    llm = ScriptedLLM(["It is 12.", FIND_CALL, "It has 120 words."])
    quote = rule("quote")(lambda seen: Nudge(f"Look the draft up with find_note first.\nThe task: {seen.task}"))
    agent = notes_agent("tool_calling", llm, recovery=[quote])
    assert agent.run("Use archiveNote later; first, how many words has the draft?") == "It has 120 words."
    assert last_sent(llm, 1).startswith("Look the draft up with find_note first.")
