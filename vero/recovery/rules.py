"""The built-in recovery rules, each for one *kind* of small-model behaviour, and the presets.

Every rule sees the proposed final answer and the run so far (``vero.recovery.hook.Seen``)
and answers with at most one nudge; only ``did-you-mean`` makes a call, and only a read-only
lookup.  docs/recovery.md describes each one and what it was measured to gain.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from vero.core.message import ToolCall, written_call_id
from vero.core.notes import note
from vero.core.parsing import parse_json_object, parse_json_value, tidy_numbers
from vero.recovery.arithmetic import miscalculation
from vero.recovery.hook import Nudge, Response, Rule, Seen, rule, task_line, tools_named

_ID = re.compile(r"(?=\S*\d)(?=\S*[A-Za-z])[\w.-]{2,40}")


def looks_like_id(text: str) -> bool:
    """True for an id such as ``AB-03`` or ``ORD-7``: letters and digits, no space (not a name, not a number)."""
    return bool(_ID.fullmatch(text))


def output_record(output: str) -> dict[str, Any]:
    """A tool output that is a JSON object, as the model was shown it (numbers tidied), else ``{}``."""
    if not output.lstrip().startswith("{"):
        return {}
    try:
        value = parse_json_value(tidy_numbers(output), repair=False)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


# Told that it had not called a tool, a small model apologised or invented the answer; told to go ahead, it acts.
ANNOUNCED_NUDGE = note("announced", "Go ahead: make the {which} call now.")
GROUNDING_NUDGE = note(
    "grounding",
    "Your answer gives {values}, which neither the task nor any tool result of "
    "this run contains. Look up what you need with the tools and work out any "
    "arithmetic with a tool, then answer with the values they return.",
)
# Told "check your arithmetic", a small model repeated its wrong number; given the right value it uses it.
ARITHMETIC_NUDGE = note(
    "arithmetic", "Correction: {expression} = {value}, not {claimed}. Answer the task again with this value."
)


def with_task(text: str, task: str) -> str:
    """``text`` followed by the task (clipped): a small model that is stuck has usually lost sight of it."""
    return text + task_line(task)


# -- announced: the answer says it will call a tool, or writes what such a call would return ----------
_INTENT = re.compile(
    r"\b(?:I will|I'll|I am going to|I'm going to|let me|let's|let us|I need to|we need to|"
    r"I should|we should|I can use|we can use|we will|we'll|next,? I|now I)\b",
    re.IGNORECASE,
)
_TOOL_WORDS = re.compile(r"\b(?:tools?|functions?|look(?:ing)? (?:it |this |that )?up|call(?:ing)?)\b", re.IGNORECASE)
MAX_RECORD_CHARS = 20_000  # a record the model could retype; longer outputs are not compared


@rule("announced", limit=2)
def announced(seen: Seen) -> Response:
    """A step not taken is not an answer: told to go ahead, the model makes the call.

    Two kinds: a plan ("I will use the `find_book` tool..."), and a record shaped like an earlier tool
    result (the same keys, other values) that no tool returned: seen after the first of two lookups,
    the second one's result, written by the model itself.  The nudge leads toward the tools the plan
    names (every tool of the agent when it names none) or the tool that returned such records, and
    toward every tool the answer names anywhere, in any spelling (``tools_named``): when one of them may
    change things, ``consult`` does not send it.  "I will look it up, then deleteRecord" gets no "Go
    ahead": vero never urges a change.
    """
    if not seen.tools:
        return None
    named = tuple(tools_named(seen.answer, seen.tools.names()))
    toward = _announced_tools(seen, named) or _tools_whose_result_is_written(seen)
    if not toward:
        return None
    which = "next" if seen.results() else "first"
    return Nudge(ANNOUNCED_NUDGE.format(which=which), toward=tuple(dict.fromkeys((*toward, *named))))


def _announced_tools(seen: Seen, named: tuple[str, ...]) -> tuple[str, ...]:
    """The tools a plan in the answer would call: those it names (``named``), or, when it only speaks of
    tools or calling, any tool of the agent; () when the answer announces no call."""
    if not _INTENT.search(seen.answer):
        return ()
    if named:
        return named
    return tuple(seen.tools.names()) if _TOOL_WORDS.search(seen.answer) else ()


def _tools_whose_result_is_written(seen: Seen) -> tuple[str, ...]:
    """The tools whose earlier results have the keys of the JSON record that is the whole answer, when
    no tool returned that record; () otherwise."""
    written = _whole_json_object(seen.answer)
    if written is None:
        return ()
    results = [(call.tool, output_record(call.output)) for call in seen.calls() if len(call.output) <= MAX_RECORD_CHARS]
    if any(record == written for _, record in results):
        return ()
    return tuple(dict.fromkeys(tool for tool, record in results if record and set(record) == set(written)))


def _whole_json_object(answer: str) -> dict[str, object] | None:
    """The JSON object that is the whole ``answer`` (bare or in one code fence), else None."""
    text = answer.strip()
    if not (text[:1] in "{`" and text[-1:] in "}`") or len(text) > MAX_RECORD_CHARS:
        return None
    try:
        return parse_json_object(tidy_numbers(text))
    except ValueError:
        return None


# -- arithmetic: a sum written in the answer with a wrong result -----------------------------------
@rule("arithmetic", limit=2)
def arithmetic(seen: Seen) -> Response:
    """``37 * 59.99 = 2219.33`` (it is 2219.63): the right value is sent back, checked by the calculator's
    own evaluator (``vero.tools.builtin.arithmetic.evaluate``)."""
    slip = miscalculation(seen.answer)
    if slip is None:
        return None
    return Nudge(ARITHMETIC_NUDGE.format(expression=slip.expression, value=slip.value, claimed=slip.claimed))


# -- grounding: a value in the answer that no source of the run gave ------------------------------------
_NUMBER = re.compile(r"(?<![\w.-])-?\d{1,15}(?:,\d{3}){0,5}(?:\.\d{1,10})?(?![\w])")
_TOKEN = re.compile(r"[^\W_][\w'-]{0,39}")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n]\s*|[\"'(\[]\s*)$")
MAX_ANSWER_CHARS_CHECKED = 4000  # a longer answer is an essay or a document, not a lookup's result


@rule("grounding", limit=1)
def grounding(seen: Seen) -> Response:
    """Each number (two digits or more), id (``AB-12``) and capitalised name in the answer must appear in
    the task or in a tool result of the run; otherwise the model is asked once to look the values up
    (only when a read-only tool is there to look them up with).

    A number counts as found also when a source has it with other grouping or rounding (``1,288`` for
    ``1288.0``); a sum counts only when a tool (a calculator) returned it.  Only for an agent with tools.
    """
    if not any(tool.read_only for tool in seen.tools or ()) or len(seen.answer) > MAX_ANSWER_CHARS_CHECKED:
        return None  # nothing to look values up with: a nudge could only lead to a tool that changes things
    sources = [seen.task, *(tidy_numbers(r) for r in seen.results())]
    missing = _unfound_numbers(seen.answer, sources) + _unfound_names(seen.answer, sources)
    if not missing:
        return None
    return Nudge(with_task(GROUNDING_NUDGE.format(values=", ".join(missing[:5])), seen.task))


def _numbers(texts: Iterable[str]) -> set[float]:
    """Every number in ``texts``, also rounded to 0-3 decimals (an answer may round a result)."""
    found: set[float] = set()
    for text in texts:
        for match in _NUMBER.finditer(text):
            value = float(match.group().replace(",", ""))
            found.update(round(value, decimals) for decimals in range(4))
            found.add(value)
    return found


def _unfound_numbers(answer: str, sources: list[str]) -> list[str]:
    known = _numbers(sources)
    return [
        m.group()
        for m in _NUMBER.finditer(answer)
        if len(m.group().strip("-").replace(",", "").split(".")[0]) >= 2 or "." in m.group()
        if float(m.group().replace(",", "")) not in known
    ]


def _unfound_names(answer: str, sources: list[str]) -> list[str]:
    """Ids and capitalised words (not opening a sentence) that no source contains, case aside."""
    haystack = "\n".join(sources).casefold()
    missing = []
    for match in _TOKEN.finditer(answer):
        token = match.group()
        name_like = token[:1].isupper() and token != "I" and not _SENTENCE_START.search(answer[: match.start()])
        if (looks_like_id(token) or name_like) and not token.isdigit() and token.casefold() not in haystack:
            missing.append(token)
    return missing


# -- did-you-mean: a failed read-only lookup whose error suggests one value ----------------------------------
# "Did you mean 'Ida Varga'?" (any quote marks) or, unquoted, "Did you mean Ida Varga?".
_QUOTES = "\"'`\u201c\u201d\u2018\u2019\u00ab\u00bb"
_SUGGESTION = re.compile(
    rf"\b[Dd]id you mean:?[ \t]{{0,4}}(?:[{_QUOTES}]([^{_QUOTES}\n]{{1,80}})[{_QUOTES}]"
    rf"|([^\s{_QUOTES}?,;:(][^{_QUOTES}\n?,;:(]{{0,79}}?))[ \t]{{0,4}}\?"
)
# An unquoted suggestion that is not one value: a list ("A or B"), a hint ("to use X instead",
# "another spelling"), a pointer ("one of these"), or more than one sentence.
_NOT_ONE_VALUE = re.compile(
    r"^(?:one|any|either|some|these|those|this|that|to|a|an|the|another|something|different)\b"
    r"|\b(?:or|and|instead)\b|/|\.\s|\t"
)


@rule("did-you-mean", limit=1)
def did_you_mean(seen: Seen) -> Response:
    """The answer came right after a failed call of a read-only tool whose error suggests exactly one
    value ("Did you mean 'Ida Varga'?", quoted or not) and that took exactly one text argument: vero makes the same
    lookup with the suggested value, and the model is told.  Never for a tool that may change things
    (``consult`` would drop such a call anyway)."""
    failed = seen.failed_call
    tool = seen.tools.get(failed.tool) if failed is not None else None
    if failed is None or tool is None or not tool.read_only or not isinstance(failed.arguments, dict):
        return None
    suggested = [
        quoted or bare
        for quoted, bare in _SUGGESTION.findall(failed.output[:2000])
        if quoted or not _NOT_ONE_VALUE.search(bare)
    ]
    texts = [name for name, value in failed.arguments.items() if isinstance(value, str)]
    if len(suggested) != 1 or len(texts) != 1 or failed.arguments[texts[0]] == suggested[0]:
        return None
    arguments = {**failed.arguments, texts[0]: suggested[0]}
    text = json.dumps(arguments, ensure_ascii=False)
    return ToolCall(written_call_id(failed.tool, text), failed.tool, text)


RULES: dict[str, Rule] = {r.name: r for r in (announced, arithmetic, grounding, did_you_mean)}
# The preset's rules, in the order they are asked: those whose held-out gain docs/recovery.md reports.
PRESETS: dict[str, tuple[str, ...]] = {"small-model": ("announced", "arithmetic", "grounding")}
