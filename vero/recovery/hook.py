"""The hook protocol between an agent and its recovery rules.

A rule is a callable with a ``name`` and a ``limit``; the agent calls it with a
``Seen`` (what the rule may look at) when the model proposes a final answer,
and it returns one of:

- ``Nudge(text, toward=...)``: a message sent to the model instead of accepting the answer
  (``toward`` names the tools it leads the model to call, if any);
- a ``ToolCall``: a call vero makes for the model, ONLY of a read-only tool
  (``consult`` drops any other, and the model is told what ran);
- ``None``: nothing to say.

``consult`` enforces the safety rules for every rule, built-in or a user's: a
rule fires at most ``limit`` times per run, never on an answer that declines or
stops (``declines``) or puts the next step to the user (``asks_the_user``), never
runs a tool that may change things, and never nudges toward one: a nudge whose
``toward`` or own words name such a tool, in any spelling a model or a rule writes
(``tools_named``), is not sent.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from vero.core.agent import Agent, tool_calls
from vero.core.message import ToolCall
from vero.core.parsing import call_worked, normalized_arguments
from vero.core.parsing.quoted_calls import plain
from vero.core.result import Step, StepKind
from vero.core.text import clip
from vero.tools.registry import ToolRegistry


@dataclass(frozen=True)
class CallSeen:
    """One tool call of the run: the tool, the arguments as the model wrote them, the output, and
    whether it worked (an error report counts as a failure)."""

    tool: str
    arguments: Any
    output: str
    ok: bool


@dataclass(frozen=True)
class Seen:
    """What a rule sees when the model proposes a final answer (the reply's text)."""

    task: str
    answer: str  # the proposed final answer: the model's reply
    steps: tuple[Step, ...]  # the run's steps so far: actions, observations, warnings...
    tools: ToolRegistry

    def results(self) -> list[str]:
        """The outputs of this run's tool calls, oldest first (failed ones included)."""
        return [step.content for step in self.steps if step.kind == StepKind.OBSERVATION and step.depth == 0]

    def calls(self) -> list[CallSeen]:
        """This run's tool calls, oldest first."""
        return [
            CallSeen(
                str(action.data.get("tool")),
                normalized_arguments(action.data.get("args")),
                result.content,
                call_worked(result),
            )
            for action, result in tool_calls(self.steps)
        ]

    @property
    def failed_call(self) -> CallSeen | None:
        """The run's latest tool call when it failed (the answer came right after a failure), else None."""
        calls = self.calls()
        return calls[-1] if calls and not calls[-1].ok else None


@dataclass(frozen=True)
class Nudge:
    """A message for the model, sent instead of accepting its answer.

    ``toward``: the tools the message leads the model to call (``consult`` drops a nudge toward a
    tool that may change things; tools its text names count too).
    """

    text: str
    toward: tuple[str, ...] = ()


Response = Nudge | ToolCall | None


class Rule(Protocol):
    """What ``consult`` needs of a rule: a ``name`` (for presets and logs), a ``limit`` per run, and the call."""

    @property
    def name(self) -> str: ...

    @property
    def limit(self) -> int: ...

    def __call__(self, seen: Seen) -> Response: ...


@dataclass(frozen=True, eq=False)
class FunctionRule:
    """A rule made from a plain function by ``@rule(name, limit=...)``."""

    name: str
    limit: int
    check: Callable[[Seen], Response]

    def __call__(self, seen: Seen) -> Response:
        return self.check(seen)


def rule(name: str, limit: int = 1) -> Callable[[Callable[[Seen], Response]], FunctionRule]:
    """Decorator: ``@rule("my-rule", limit=2)`` over ``def check(seen) -> Nudge | ToolCall | None``."""
    return lambda check: FunctionRule(name, limit, check)


# An answer that declines or stops is final: no rule may talk the model out of it.
_DECLINES = re.compile(
    r"\b(?:I(?:'ve| have)? (?:stopped|halted)|I (?:will not|won't|cannot|can ?not|can't|refuse|must decline|decline)"
    r"|I(?:'m| am) (?:not able|unable|not allowed|not permitted|not going to|sorry)"
    r"|not (?:allowed|permitted|authori[sz]ed) to"
    r"|(?:check|contact|confirm) with\b)",
    re.IGNORECASE,
)


# Models often write a typographic apostrophe ("I won\u2019t"): read as the ASCII one.
_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc\u2032\uff07", "'"))


def declines(answer: str) -> bool:
    """True for an answer that refuses, stops, or hands the matter back to a person."""
    return bool(_DECLINES.search(answer.translate(_APOSTROPHES)))


# A question about the speaker's own next act ("Shall I delete it?", "Do you want me to go ahead?"),
# or "if/whether I should ..." inside a request ("Let me know if I should call ...").
_OWN_NEXT_STEP = re.compile(
    r"\b(?:should|shall|may|can|could|must|do|am) (?:I|we)\b"
    r"|\b(?:want|like|need|prefer|wish|expect|allow|permit|authori[sz]e|ask|tell) (?:me|us) to\b"
    r"|\b(?:if|whether) (?:I|we) (?:should|shall|may|can|could|am to|are to|ought to)\b"
    r"|\b(?:if|whether|when) to\b"
    r"|\b(?:do|would|will) you (?:want|like|prefer|wish)\b",  # "Do you want the draft archived?"
    re.IGNORECASE,
)
# Words about going on with a step, confirming it or permitting it.
_PROCEEDING = re.compile(
    r"\b(?:proceed\w*|go(?:-| )?ahead|continu\w*|carry on|confirm\w*|permission|permit\w*|approv\w*"
    r"|authori[sz]\w*|allow\w*|consent\w*|sign[- ]off|green light|say[- ]so|(?:say|give me) the word"
    r"|ok(?:ay)?|alright|all right|objection\w*|decid\w*|decision|thumbs[- ]up)\b",
    re.IGNORECASE,
)
# Words that turn a sentence to the user: a request, or a wait for the user's word.
_TO_THE_USER = re.compile(
    r"\b(?:let (?:me|us) know|tell me|please|kindly|wait(?:ing)? (?:for|on|until)|await\w*|until you|once you"
    r"|when you|if you|need your|with(?:out)? your|on your)\b"
    r"|^\s*(?:type|reply|respond|answer|say|write|click|press)\b",  # an instruction to the user
    re.IGNORECASE,
)
# The choice itself handed over: "it is up to you", "your call", "just say yes", "are you sure", "(y/n)";
# "if you'd like" with the model's own act.
_USER_CHOICE = re.compile(
    r"\bup to you\b|\byour (?:call|choice|decision)\b|\bjust say (?:yes|so|the word)\b|\bare you sure\b"
    r"|[(\[]\s*(?:yes|y)\s*/\s*(?:no|n)\s*[)\]]",
    re.IGNORECASE,
)
_IF_YOU_LIKE = re.compile(r"\bif you(?:'d| would)? (?:like|want|wish|prefer|agree)\b", re.IGNORECASE)
_OWN_ACT = re.compile(r"\b(?:I|we|me|us)\b", re.IGNORECASE)
# A courtesy offer after an answer ("Can I help with anything else?", "Would you like to know more?")
# hands over no pending step.
_COURTESY = re.compile(
    r"\b(?:any|some)(?: ?thing| ?one)? else\b|\bany (?:other|more|further)\b"
    r"|\bto (?:know|hear|learn|see) more\b|\bmore (?:details|information|info)\b",
    re.IGNORECASE,
)
# A question the model answers itself in the next sentence ("What should I do next? I should look it
# up."), unless that sentence speaks to the user.
_SELF_ANSWER = re.compile(
    r"\s*(?:(?:I|we|yes|no|first|next|now|so|then)\b|let(?:'s| us| me)\b(?! know))", re.IGNORECASE
)
_YOU = re.compile(r"\byou(?:r|rs)?\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?\u3002\uff1f])[\s\"')\]*_]*\s|\n+")
_TRAILING = " \t\"')]*_`\u201d\u2019"


def asks_the_user(answer: str) -> bool:
    """True for an answer that puts the next step to the user: asks for confirmation, permission or a
    decision about proceeding ("Do you want me to go ahead?", "Let me know if I should call ...",
    "Let's wait for your confirmation.", "I can cancel it if you'd like.").

    Read sentence by sentence: a question about the speaker's own next act or about proceeding (not
    one the next sentence answers), a request or wait addressed to the user about either, or a
    choice handed over.  A courtesy offer ("Can I help with anything else?") is not one.  Such an
    answer is handed to a person, as it is.
    """
    sentences = [part for part in _SENTENCE_END.split(answer.translate(_APOSTROPHES)) if part.strip()]
    return any(
        _hands_a_step_over(sentence, following)
        for sentence, following in zip(sentences, [*sentences[1:], ""], strict=True)
    )


def _hands_a_step_over(sentence: str, following: str) -> bool:
    """Whether ``sentence`` (before ``following``) puts a step to the user."""
    if _USER_CHOICE.search(sentence) or (_IF_YOU_LIKE.search(sentence) and _OWN_ACT.search(sentence)):
        return True
    if not (_PROCEEDING.search(sentence) or _OWN_NEXT_STEP.search(sentence)):
        return False
    if _COURTESY.search(sentence) and not _PROCEEDING.search(sentence):
        return False
    if _TO_THE_USER.search(sentence):
        return True
    is_question = sentence.rstrip(_TRAILING).endswith(("?", "\uff1f"))
    answered = bool(_SELF_ANSWER.match(following)) and not _YOU.search(following)
    return is_question and not answered


# -- a tool's name in text a model or a rule wrote ----------------------------------------------------------
# The text and the name are read alike: letters of other scripts drawn like Latin ones as those, invisible and
# format characters gone (``plain``, as the gate reads a name), case folded, l and 1 as i and 0 as o (drawn
# alike), and every run of other signs (``_ - . \ ` *``, spaces) as one space.  The name's words are then
# looked for on word boundaries, joined by a space or by nothing, the last one perhaps plural: ``archive_note``
# is found in ``archiveNote``, ``Archive-Note``, ``archive\_notes``, "the archive note tool".
_CAMEL = re.compile(r"(?<=[^\W_])(?=[A-Z][a-z])|(?<=[a-z0-9])(?=[A-Z])")  # where camelCase starts a word
_DRAWN_ALIKE = str.maketrans("l10345$@7", "iioeasaat")  # d3l3t3_r3c0rd is delete_record too
_SIGNS = re.compile(r"[\W_]+")
_TAG = re.compile(r"<[^<>]{0,200}>")
_SPACED_OUT = re.compile(r"\b(\w) (?=\w\b)")  # a letter and a space before another letter standing alone


def tools_named(text: str, names: list[str]) -> list[str]:
    """The tool ``names`` that ``text`` mentions, in any spelling a model or a rule writes (case,
    separators or none, markdown escapes, invisible characters, look-alike letters, a plural or a
    trailing "tool").  Generous on purpose: a name read where none was meant only withholds a nudge."""
    readings = _readings(text)
    readings |= {_SPACED_OUT.sub(r"\1", reading) for reading in readings}  # d e l e t e _ r e c o r d
    return [name for name in names if any(_spelling(name).search(reading) for reading in readings)]


def _folded(text: str) -> str:
    """``text`` case folded, letters drawn alike as one, every run of signs one space (see above)."""
    return _SIGNS.sub(" ", text.casefold().translate(_DRAWN_ALIKE))


def _readings(text: str) -> set[str]:
    """``text`` folded as written and as shown (HTML escapes undone, tags gone: ``delete<wbr>_record``),
    each also with camelCase words apart (``archiveNoteTool``), after ``plain``."""
    forms = [plain(text)]
    if "<" in text or "&" in text:
        forms.append(plain(_TAG.sub("", html.unescape(text))))
    return {_folded(reading) for form in forms for reading in (form, _CAMEL.sub(" ", form))}


@functools.lru_cache(maxsize=1024)
def _spelling(name: str) -> re.Pattern[str]:
    """How ``name`` is found in a folded text: its words (snake, kebab or camel case) on word boundaries,
    joined by a space or nothing, the last perhaps plural."""
    words = _folded(plain(_CAMEL.sub(" ", name))).split() or [name]
    return re.compile(rf"\b{' ?'.join(map(re.escape, words))}(?:e?s)?\b")


def task_line(task: str) -> str:
    """The line vero's rules add after a note (``rules.with_task``): a stuck model has usually lost
    sight of the task."""
    return f"\nThe task: {clip(task, 300, ' ...')}" if task else ""


def _own_words(nudge: Nudge, task: str) -> str:
    """The nudge's text without the run's task quoted at its end (as ``task_line`` writes it, or in
    full): naming a tool the task names is no lead toward it.  Any other text after a "The task:"
    is the rule's own."""
    for quoted in (task_line(task), f"\nThe task: {task}" if task else ""):
        if quoted and nudge.text.endswith(quoted):
            return nudge.text.removesuffix(quoted)
    return nudge.text


def _changing_tools_led_to(tools: ToolRegistry, response: Response, task: str) -> list[str]:
    """The tools that may change things which ``response`` would run or lead the model to call."""
    if isinstance(response, ToolCall):
        led_to = [response.name]
    elif isinstance(response, Nudge):
        led_to = [*response.toward, *tools_named(_own_words(response, task), tools.names())]
    else:
        led_to = []
    return [name for name in dict.fromkeys(led_to) if not tools.read_only(name)]


def consult(agent: Agent, rules: tuple[Rule, ...], answer: str) -> Response:
    """The first response of ``rules`` to the proposed ``answer``, within the safety rules above."""
    if not rules or declines(answer) or asks_the_user(answer):
        return None
    seen = Seen(agent.current_run.task, answer, tuple(agent.current_run.steps), agent.tools)
    counters = agent.current_run.counters
    for candidate in rules:
        if counters[f"rule:{candidate.name}"] >= getattr(candidate, "limit", 1):
            continue
        response = candidate(seen)
        changing = _changing_tools_led_to(agent.tools, response, seen.task)
        if changing:
            is_call = isinstance(response, ToolCall)
            what, outcome = ("proposed a call of", "not run") if is_call else ("would nudge toward", "not sent")
            agent.record(
                StepKind.WARNING,
                f"recovery rule {candidate.name} {what} {changing[0]}, which may change things: {outcome}",
                rule=candidate.name,
            )
            continue
        if response is not None:
            counters[f"rule:{candidate.name}"] += 1
            what = response.text if isinstance(response, Nudge) else f"calls {response.name}({response.arguments})"
            agent.record(StepKind.WARNING, f"recovery rule {candidate.name}: {what}", rule=candidate.name, raw=answer)
            return response
    return None
