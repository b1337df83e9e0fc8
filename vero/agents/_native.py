"""Native tool calling, shared by ``ToolCallingAgent`` and ``ReActAgent(protocol="native")``.

The model asks for tools through the API's ``tool_calls``; each call is run in
order and answered with a ``tool`` message carrying its ``tool_call_id``.

Small local models do not always keep to that protocol: the accommodations here are switches of the
recovery hook (``agent.options.hook``: ``calls_in_text``, ``calls_in_prose``, ``nudges``,
``repeated_call_note``; docs/recovery.md has the table), and anything more is a recovery rule, which
the hook's ``respond`` consults in ``nudge_for``.  A call read from text runs only if the gate lets it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import replace
from itertools import islice
from typing import Any

from vero.core.agent import CUT_OFF_WARNING, Agent, MalformedOutputError
from vero.core.capabilities import hosted_model
from vero.core.message import CUT_OFF_REASONS, Message, ToolCall
from vero.core.notes import note
from vero.core.parsing import calls_in_prose, strip_template_tags, tool_calls_in_text
from vero.core.result import StepKind
from vero.core.text import SHOWS_NOTHING, clip

# One call at a time, arguments only from the question or earlier results, and one example of a two-step lookup in the
# `<tool_call>` shape most open models' chat templates use (vero also runs such calls when a model writes them as its
# whole reply).  Small models otherwise invent arguments ("John Doe") and invent their own call formats.
TOOL_CALL_GUIDE = """Use only argument values that are in the question or in earlier tool results. \
When the question needs several facts, get them one call at a time, each call using what the one before returned.
Example, with made-up tools: for "How many seats has the hall where the band Blue Harbor plays tonight?", first call
<tool_call>
{"name": "band_info", "arguments": {"band": "Blue Harbor"}}
</tool_call>
then read the hall in its result and call venue_info with that hall."""
# The instructions of every agent over native tool calls (ToolCallingAgent, native ReAct), after a
# one-sentence persona.  Native ReAct had its own wording ("Get facts and do arithmetic with the tools")
# and solved fewer tasks than ToolCallingAgent on the same model; with these words it solves as many.
# "never a plan": a small model's numbered plan with no call was the answer (35 of 160 tasks: docs/benchmarks.md).
NATIVE_INTRO = "You are a helpful assistant."
NATIVE_INSTRUCTIONS = f"""Call a tool for every fact you need and for every calculation; never guess a value.
{TOOL_CALL_GUIDE}
Each reply is a tool call or the final answer, never a plan of what you will do.
As soon as the results answer the question, reply with the answer and call nothing more."""
# The same for a hosted model (``hosted_model``), whose API returns calls natively: no text-call guide, no example.
HOSTED_INSTRUCTIONS = """Call a tool for every fact you need and for every calculation; never guess a value. \
Use only argument values that are in the question or in earlier tool results.
As soon as the results answer the question, reply with the answer and call nothing more."""

CUT_OFF_NUDGE = note(
    "cut_off",
    "Your reply was cut off at the output limit. Reply again, shorter: "
    "call a tool, or give the final answer in a few sentences.",
)
# The same for an agent whose every tool may change things: vero never nudges toward such a call.
CUT_OFF_ANSWER_NUDGE = note("cut_off_answer", "Your reply was cut off at the output limit. Reply again, shorter.")
REPEATED_CALL_NUDGE = note(
    "repeated_call",
    "You made that same call before, and its result is above. Use the results you have: give the final answer, "
    "or call a different tool for what is still missing.",
)
# An empty reply comes mid-chain (after a result, before the next call): offering the answer first made
# small models answer with a value from the wrong result, so the next call is offered first.
EMPTY_NUDGE = note(
    "empty", "Your reply was empty. Call the tool you still need, or give the final answer from the results above."
)
MAX_NUDGES = 2  # for empty replies in a run, and for replies cut off in a row: after that, such a reply ends the run
# The same two notes for an agent whose every tool may change things: vero never nudges toward such a call.
EMPTY_ANSWER_NUDGE = note("empty_answer", "Your reply was empty. Give the final answer, or say what is missing.")
REPEATED_ANSWER_NUDGE = note(
    "repeated_answer", "You made that same call before, and its result is above. Use the results you have."
)
RAN_FOR_YOU = note("ran_for_you", "vero made the call {call} for you (a read-only lookup) and gave you its result.")
TOO_MANY_CALLS = note(
    "too_many_calls", "Not run: at most {limit} tool calls are run per reply. Call the rest in your next reply."
)
# A small model writing its calls as text inside its template's <tools> tags repeats such blocks
# until the output cap; only the first written call runs, so the rest is never needed.
TEXT_CALLS_STOP = ["</tools>"]
# A reply that is a tool call written as text vero did not read (a template's syntax it does not know): no answer.
# A lookup is asked for again; for a tool that may change things, only the answer is (vero never nudges toward such
# a call).  A call amid other text is no call (it may be a quote): a warning, and the reply is the answer.
UNREAD_CALL_NUDGE = note(
    "unread_call",
    "Your reply holds a call of {tool} written as text, which was not run. Call it with the API's tool calls, "
    "alone in your reply, or give the final answer.",
)
UNREAD_CALL_ANSWER_NUDGE = note(
    "unread_call_answer",
    "Your reply holds a call of {tool} written as text, which was not run. Give the final answer, or say what is "
    "missing.",
)
_MARKERS = r"<tool_call>|<function=|<\|python_tag\|>|\[TOOL_CALLS\]|<\|tool_call\|>|<｜tool▁call|```tool_code"
# A reply that begins as a call: a template's marker (its tool named just after it), Functionary's >>>name, or code
# that calls one of the tools, the whole reply (``lookup(name=Oslo)``; not "Oslo (the capital) ...")
CALL_START = re.compile(rf"(?:{_MARKERS}|functools\[|>>>(?=[\w.-]+\n))|\[?(?P<called>[\w.-]{{1,64}})\((?s:.*)\)\]?\Z")
_SIGNS = re.compile(rf"{_MARKERS}|functools\[|>>>|\"(?:name|tool_name)\"\s*:")  # a call's signs, anywhere
NAMED_NEAR = 300  # how far after a call's sign its tool's name is looked for
_WRITTEN_NAME = re.compile(r'"name"\s*:\s*"([\w.-]{1,64})"|<function=([\w.-]{1,64})')  # a call's tool, as written


def tool_options(agent: Agent, **extra: Any) -> dict[str, Any]:
    """``generate`` options offering the agent's tools natively (none if it has no tools); a hosted model
    (``hosted_model``), which writes no calls as text, gets no ``stop``.  With ``output_type``, a hosted
    model's replies are constrained to the type too (``answer_format``): it may still call tools.  A local
    server's grammar would forbid the calls: its answer is read and checked instead."""
    hosted = hosted_model(agent.llm)
    typed = agent.answer_format() if agent.current_run.output_spec is not None and hosted else {}
    if not (schemas := agent.tools.schemas()):  # no tools
        return typed
    stop = {} if hosted else {"stop": TEXT_CALLS_STOP}
    return {"tools": schemas, **stop, **typed, **extra}


def with_text_tool_calls(agent: Agent, reply: Message) -> Message:
    """``reply``, or a copy whose call written as text became a real tool call.

    A reply whose whole text is a call is read as that call; so is one of a tool the agent does not have, unless the
    run asks for a typed answer (which may be such an object): the gate answers it "unknown tool", as it answers such a
    native call.  A call of a read-only tool written amid prose is read too (running a lookup changes nothing).
    Only the first call runs.  Such a call is marked as read from text (``origin="text"``): the gate
    (``Agent.run_tool``) refuses it when it is a quote of a call the model was shown.  A reply cut off at the output
    limit runs no call of a tool that may change things (``without_cut_off_calls``).
    """
    reply = without_cut_off_calls(agent, reply) if reply.finish_reason in CUT_OFF_REASONS else reply
    hook, names = agent.options.hook, agent.tools.names()
    if reply.tool_calls or not names:
        return reply
    found = tool_calls_in_text(reply.text, names) if hook.calls_in_text else None
    starts = reply.text.lstrip()[:1]
    if found is None and hook.calls_in_text and starts in "{[<`" and agent.current_run.output_spec is None:
        found = tool_calls_in_text(reply.text, _names_written(reply.text))  # of a tool it has not: "unknown tool"
    if found is None:
        return _with_lookup_in_prose(agent, reply) if hook.calls_in_prose else reply
    call, dropped = found.calls[0], len(found.calls) - 1
    if reply.finish_reason in CUT_OFF_REASONS and not agent.tools.read_only(call.name):
        agent.record(StepKind.WARNING, cut_off_warning(call.name), cut_off=True, raw=reply.text)
        return reply
    note_ = f" ({dropped} more call{'s' * (dropped > 1)} in the same reply not run)" if dropped else ""
    return _as_call(agent, reply, call, f"tool call written as text, run as a call: {call.name}{note_}")


def _names_written(text: str) -> list[str]:
    """The tool names written in ``text`` as a call's (``"name": "x"``, ``<function=x>``), known or not."""
    return [json_name or tag_name for json_name, tag_name in _WRITTEN_NAME.findall(text)]


def _with_lookup_in_prose(agent: Agent, reply: Message) -> Message:
    """``reply`` with the first read-only call written amid its prose made a real call; else ``reply``
    without the chat-template tags a model may imitate.

    The prose is recorded as a thought but not sent back: a small model's prose around a call often goes on past it (the
    result it expects, the answer it will give), and replayed, that guess was taken as a result (the second lookup
    skipped, the guessed value answered).  The conversation shows the call as a native call looks.
    """
    read_only = [name for name in agent.tools.names() if agent.tools.read_only(name)]
    calls = calls_in_prose(reply.text, read_only)
    if not calls:
        # a reply that begins with a template's tags (imitated) is read without them
        clean = strip_template_tags(reply.text) if reply.text.lstrip().startswith("<") else reply.text
        return reply if clean == reply.text else replace(reply, content=clean)
    lookup = _as_call(agent, reply, calls[0], f"read-only tool call written amid prose, run as a call: {calls[0].name}")
    agent.record(StepKind.THOUGHT, reply.text)
    return lookup


def _as_call(agent: Agent, reply: Message, call: ToolCall, warning: str) -> Message:
    """``reply`` as the one ``call`` read from its text (reasoning, usage and finish reason kept), with a warning."""
    agent.record(StepKind.WARNING, warning, recovered_from_text=True, raw=reply.text)
    call.origin = "text"
    return replace(reply, content=None, tool_calls=[call])


def without_cut_off_calls(agent: Agent, reply: Message) -> Message:
    """``reply`` without its tool calls when it was cut off at the output limit and one of them may
    change things: the call may have lost the end of its arguments (``{"amount": 9`` of 900), and
    the model is asked again (``nudge_for``), as for any cut-off reply."""
    changing = [call.name for call in reply.tool_calls or [] if not agent.tools.read_only(call.name)]
    if reply.finish_reason not in CUT_OFF_REASONS or not changing:
        return reply
    agent.record(StepKind.WARNING, cut_off_warning(changing[0]), cut_off=True, raw=reply.text)
    return replace(reply, tool_calls=None)


def cut_off_warning(tool: str) -> str:
    return f"the reply was cut off at the output limit; its call of {tool} was not run (the tool may change things)"


def nudge_for(agent: Agent, reply: Message) -> str | ToolCall | None:
    """What to send back when a text reply is not yet an answer, else None (the reply is the answer).

    A reply cut off by the output cap is never an answer; such a reply gets at most ``MAX_NUDGES`` nudges in a row,
    and an empty one ``MAX_NUDGES`` a run.
    Then the recovery hook's rules (``respond``) may send a nudge, or make a read-only call for the model (returned as a
    ``ToolCall``).  With the ``nudges`` switch off (``recovery=False``) a cut-off reply fails the run, its text kept."""
    hook = agent.options.hook
    if reply.truncated:
        if not hook.nudges or agent.current_run.notes["cut_off"] > MAX_NUDGES:  # so many in a row: it cannot be brief
            agent.keep_partial(reply.text)
            raise MalformedOutputError(CUT_OFF_WARNING, reply.text)
        return toward_lookups(agent, CUT_OFF_NUDGE, CUT_OFF_ANSWER_NUDGE)
    if SHOWS_NOTHING.fullmatch(reply.text):  # nothing a reader would see
        if not hook.nudges or agent.tally("empty") > MAX_NUDGES:
            return None
        agent.record(StepKind.WARNING, "the reply was empty; asked again")
        return with_task(toward_lookups(agent, EMPTY_NUDGE, EMPTY_ANSWER_NUDGE), agent)
    if hook.calls_in_text and (start := CALL_START.match(reply.text.lstrip())):
        return unread_call_note(agent, reply.text, start)
    if hook.calls_in_text and _SIGNS.search(reply.text) and (tool := _tool_named(agent, reply.text)):
        why = f"the reply holds a call of {tool} amid other text, not run (such a call may be a quote)"
        agent.record(StepKind.WARNING, why, raw=reply.text)  # the answer, as written (docs/tools.md, "Safety")
    return hook.respond(agent, reply.text) if hook.respond is not None else None


def _tool_named(agent: Agent, text: str) -> str | None:
    """The agent's tool named within ``NAMED_NEAR`` characters after one of the first ``_SIGNS`` of a call in
    ``text`` (as its call is written); none in a typed run's answer, which may be any JSON."""
    if agent.current_run.output_spec is not None:
        return None
    names = "|".join(re.escape(name) for name in sorted(agent.tools.names(), key=len, reverse=True))
    for sign in islice(_SIGNS.finditer(text), 8) if names else ():  # a few: a reply of many signs is no call
        if named := re.search(rf"(?<![\w.-])(?:{names})(?![\w-])", text[sign.start() : sign.end() + NAMED_NEAR]):
            return named.group(0)
    return None


def unread_call_note(agent: Agent, text: str, start: re.Match[str]) -> str | None:
    """For a reply that begins as a call (``CALL_START``) vero did not read: the note to send, if it calls one of the
    agent's tools (else None: it is the answer); after ``MAX_NUDGES`` such replies in a run, the run fails."""
    called, written = start.group("called"), text.lstrip()
    if called:  # code that calls a tool, as Python reads it: not "weather(city) returns a forecast (in C)"
        tool = called if agent.tools.get(called) and _is_python(written) else None
    else:  # after a marker, the call itself (an object, a list, a tag, a name and its arguments), not prose about it
        tool = _tool_named(agent, text) if _CALL_AFTER.match(written, start.end()) else None
    return _unread_call_nudge(agent, text, tool) if tool else None


_CALL_AFTER = re.compile(r"\s*(?:[{\[<`▁]|[\w.-]{1,64}(?:\s*[(\[{>]|\n))")  # an object, a tag, a name and its arguments


def _is_python(text: str) -> bool:
    try:
        ast.parse(text)  # statements: tool(a=1); tool(a=2) too
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _unread_call_nudge(agent: Agent, text: str, tool: str) -> str:
    """The note for a reply that holds a call of ``tool`` written as text, not run; after ``MAX_NUDGES`` such replies
    in a run, the run fails (a model that writes calls vero cannot read is not answering)."""
    why = f"the reply holds a call of {tool} written as text, which was not run"
    if agent.tally("unread_call") > MAX_NUDGES:
        raise MalformedOutputError(why, text)
    agent.record(StepKind.WARNING, f"{why}; asked again", raw=text)
    nudge = UNREAD_CALL_NUDGE if agent.tools.read_only(tool) else UNREAD_CALL_ANSWER_NUDGE
    return nudge.format(tool=tool)


def answer_tool_calls(
    agent: Agent,
    reply: Message,
    messages: list[Message],
    observe: Callable[[ToolCall], str] | None = None,
    origin: str | None = None,
) -> None:
    """One ``tool`` message per call of ``reply`` (the caller has appended ``reply`` itself), in the model's
    order, at most ``max_tool_calls_per_reply`` of them (the rest are answered "not run").

    ``observe(call)`` returns the text sent back (default: run the tool through ``agent.run_tool``, which
    records the ``action`` and ``observation`` steps).  ``origin`` (for the gate): the calls' origin, else
    each call's own (``"text"`` for a call read from text, ``"native"`` for the others).
    """
    calls = reply.tool_calls
    assert calls is not None  # callers pass a reply that has tool calls
    repeated = False  # a call made before: small models loop on a result they do not know how to use
    limit = agent.options.max_tool_calls_per_reply
    if len(calls) > limit:
        agent.record(StepKind.WARNING, f"{len(calls)} tool calls in one reply; only the first {limit} run")
    for number, call in enumerate(calls):
        if number >= limit:
            text = TOO_MANY_CALLS.format(limit=limit)
        elif observe is not None:
            text = observe(call)
        else:
            call.origin = origin or call.origin  # for the gate; the arguments carry it, and the call's id
            result = agent.run_tool(call.name, call.args)
            text, repeated = result.output, repeated or result.repeated
        messages.append(Message("tool", text, tool_call_id=call.id, name=call.name))
    if repeated and agent.options.hook.repeated_call_note:
        agent.record(StepKind.WARNING, "the same tool call again; asked to use the results it has")
        messages.append(Message("user", repeated_call_note(agent)))


def send_nudge(agent: Agent, reply_text: str, nudge: str | ToolCall, messages: list[Message]) -> None:
    """The reply, then the nudge: a note as the next user message, or a recovery rule's read-only
    lookup, run and shown as a call, then a note saying vero made it."""
    messages.append(Message("assistant", reply_text))
    if isinstance(nudge, ToolCall):
        lookup = Message("assistant", None, tool_calls=[nudge])
        messages.append(lookup)
        answer_tool_calls(agent, lookup, messages, origin="vero")
        messages.append(Message("user", RAN_FOR_YOU.format(call=f"{nudge.name}({nudge.arguments})")))
    else:
        messages.append(Message("user", nudge))


def toward_lookups(agent: Agent, nudge: str, otherwise: str) -> str:
    """``nudge``, which asks for a call, when a read-only tool is there to call; else ``otherwise``."""
    return nudge if any(tool.read_only for tool in agent.tools) else otherwise


def repeated_call_note(agent: Agent) -> str:
    """The note after a call made before (every pattern's): use the results, or make another lookup."""
    return with_task(toward_lookups(agent, REPEATED_CALL_NUDGE, REPEATED_ANSWER_NUDGE), agent)


def with_task(nudge: str, agent: Agent) -> str:
    """``nudge`` followed by the task (clipped): a small model that is stuck has usually lost sight of it."""
    task = clip(agent.current_run.task, 300, " ...")
    return f"{nudge}\nThe task: {task}" if task else nudge
