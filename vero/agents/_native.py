"""Native tool calling, shared by ``ToolCallingAgent`` and ``ReActAgent(protocol="native")``.

The model asks for tools through the API's ``tool_calls``; each call is run in
order and answered with a ``tool`` message carrying its ``tool_call_id``.

Small local models do not always keep to that protocol, so a reply without
API tool calls is read once more before it is taken as the answer:

- tool calls written into the text (fenced JSON, ``<tool_call>`` tags) are run
  as real calls (``with_text_tool_calls``), only the first of them: the others
  were written before the model saw its result, and small models fill them with
  invented arguments (or repeat them until the output cap);
- a reply cut off by the output cap, an answer given when every tool call so
  far failed, one given right after a failed call, one that gives up right
  after a call that worked, one that repeats vero's own message or a tool's
  error, one that gives an id another tool takes but was never given, one
  whose arithmetic is wrong (``answer_nudge``, also used by the text
  protocol), one that only acknowledges a tool result ("This is the response
  from ..."), or a reply that only announces a tool call ("I will use the
  `find_plant` tool...") or is a tool result the model made up gets a short
  nudge instead of being returned (``nudge_for``).  All but the cut-off nudge
  are bounded per run.

Before any of that, a reply that gives up when every call so far failed is
replaced by a repaired call, if a separate request gets one (``vero.agents._repair``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from vero.agents._miscalculation import miscalculation
from vero.core.agent import REPEATED_FAILURE, Agent, MalformedOutputError, tool_calls
from vero.core.message import Message, ToolCall
from vero.core.parsing import (
    acknowledges_result,
    announces_action,
    call_worked,
    gives_up,
    output_record,
    parse_json_object,
    strip_template_tags,
    tool_calls_in_text,
)
from vero.core.result import StepKind, ToolError
from vero.core.text import clip, folded, looks_like_id

# One call at a time, arguments only from the question or earlier results, and one example of
# a two-step lookup in the `<tool_call>` shape most open models' chat templates use (vero also
# runs such calls when a model writes them as text).  Small models otherwise invent arguments
# ("John Doe") and invent their own call formats.
TOOL_CALL_GUIDE = """Use only argument values that are in the question or in earlier tool results. \
When the question needs several facts, get them one call at a time, each call using what the one before returned.
Example: for "What is the population of the city where the painter Ada Moss lives?", first call
<tool_call>
{"name": "person_info", "arguments": {"name": "Ada Moss"}}
</tool_call>
then read the city in its result and call city_info with that city."""
# The instructions of every agent over native tool calls (ToolCallingAgent, native ReAct), after a
# one-sentence persona.  Native ReAct had its own wording ("Get facts and do arithmetic with the tools")
# and solved fewer tasks than ToolCallingAgent on the same model; with these words it solves as many.
NATIVE_INTRO = "You are a helpful assistant."
NATIVE_INSTRUCTIONS = f"""Call a tool for every fact you need and for every calculation; never guess a value.
{TOOL_CALL_GUIDE}
As soon as the results answer the question, reply with the answer and call nothing more."""

CUT_OFF_NUDGE = ("Your reply was cut off at the output limit. Reply again, shorter: "
                 "call a tool, or give the final answer in a few sentences.")
# Told that it had not called a tool, a small model apologised ("I apologize, but I did not call a
# tool") or invented the answer; told to go ahead, it makes the call.
ANNOUNCED_NUDGE = "Go ahead: make the {which} call now."
MAX_ANNOUNCED_NUDGES = 2  # in a row, with no tool call between: then such a reply is taken as the answer
REPEATED_CALL_NUDGE = ("You made that same call before, and its result is above. Use the results you have: "
                       "give the final answer, or call a different tool for what is still missing.")
# An empty reply comes mid-chain (after a result, before the next call): offering the answer first made
# small models answer with a value from the wrong result, so the next call is offered first.
EMPTY_NUDGE = "Your reply was empty. Call the tool you still need, or give the final answer from the results above."
MAX_EMPTY_NUDGES = 2  # per run: after that, an empty reply ends the run
GUESS_NUDGE = ("None of your tool calls has worked yet, so that answer would be a guess. The tools:\n{tools}\n"
               "Call the one that fits the task (if none can answer it, say that you could not find the answer).")
# Seen on a 1.5B model (docs/benchmarks.md): `calculate("stock * price_per_plant_crowns")` failed (names,
# not numbers), then an answer with a number no tool gave ("... is 520,096.0"), or one that only said how
# to compute it.  Once per run.
AFTER_FAILED_CALL_NUDGE = ("Your last call, {tool}, failed, so its result is still missing. Make the call again "
                           "with the values from the results above in its arguments, or call the tool that fits.")
ACKNOWLEDGED_NUDGE = "That does not answer the task. Using the results above, answer it now."
# Seen: after the first lookup of a chain worked, "The hourly wage of Orla ... is not provided in the given
# information." (the keeper lookup was still to come).  Once per run.
GAVE_UP_NUDGE = ("Not yet: the results above lead further. Take from them the value the next lookup needs (an id, a "
                 "name) and call the tool that finds the missing fact. The tools:\n{tools}")
# Seen (text ReAct, docs/benchmarks.md): "In which city is the Moonpetal Lily grown?" answered "The
# Moonpetal Lily grows in GH-03." right after the plant lookup, whose greenhouse_id the greenhouse tool
# takes.  Once per run.
LINK_NUDGE = ("Your answer gives {value}, the {field}. To find what the task asks about {value}, call {tool} with "
              "{field} {value} now. (If {value} itself is the answer, give the same answer again.)")
ECHO_NUDGE = ("You repeated my message instead of answering. Using the tool results above, call the tool you still "
              "need, or give your own final answer.")
ERROR_ECHO_NUDGE = ("You repeated a tool's error instead of answering. Using the tool results above, call the tool "
                    "you still need, or give your own final answer.")
MAX_ECHO_NUDGES = 2  # per run: a model still repeating messages or errors after that ends the run `failed`
# Told "check your arithmetic", a small model repeated its wrong number; given the right value it uses it.
ARITHMETIC_NUDGE = "Correction: {expression} = {value}, not {claimed}. Answer the task again with this value."
MAX_ARITHMETIC_NUDGES = 2  # per run


# A small model writing its calls as text inside its template's <tools> tags repeats such blocks
# until the output cap; only the first written call runs, so the rest is never needed.
TEXT_CALLS_STOP = ["</tools>"]


def tool_options(agent: Agent, **extra: Any) -> dict[str, Any]:
    """``generate`` options offering the agent's tools natively (none if it has no tools)."""
    return {"tools": agent.tools.schemas(), "stop": TEXT_CALLS_STOP, **extra} if agent.tools else {}


def with_text_tool_calls(agent: Agent, reply: Message) -> Message:
    """``reply``, or a copy whose tool calls written as text became real tool calls.

    Only calls that name a registered tool with an arguments object count.  The
    text around them is recorded as the thought but not replayed, so the
    conversation shows a clean tool call.
    """
    if reply.tool_calls:
        return reply
    found = tool_calls_in_text(reply.text, agent.tools.names()) if agent.tools else None
    if found is None:
        clean = strip_template_tags(reply.text)
        return reply if clean == reply.text else replace(reply, content=clean)
    call, dropped = found.calls[0], len(found.calls) - 1
    note = f" ({dropped} more call{'s' * (dropped > 1)} in the same reply not run)" if dropped else ""
    agent.record(StepKind.WARNING, f"tool call written as text, run as a call: {call.name}{note}",
                 recovered_from_text=True, raw=reply.text)
    prose = strip_template_tags(found.prose)
    if prose:
        agent.record(StepKind.THOUGHT, prose)
        agent.keep_partial(prose)
    return Message("assistant", None, tool_calls=[call], reasoning=reply.reasoning,
                   usage=reply.usage, finish_reason=reply.finish_reason)


def nudge_for(agent: Agent, reply: Message) -> str | None:
    """The message to send back when a text reply is not yet an answer, else None.

    A reply cut off by the output cap is never an answer; an empty one gets at
    most ``MAX_EMPTY_NUDGES`` nudges per run.  Then, in this order: vero's own
    words or a tool's error repeated, a guess after failed calls, or an answer
    right after a failed call (``answer_nudge``); a reply that only acknowledges
    a tool result; one that announces a tool call, or lays out steps without
    taking the first, is told to go ahead, at most ``MAX_ANNOUNCED_NUDGES``
    times in a row (a tool call in between starts the count again: a small
    model often announces each step of a chain); a give-up right after a call
    that worked; an id a tool takes but was never given; last, wrong arithmetic.  An announcement comes before the
    give-up and the arithmetic: "Go ahead" made a small model take the next
    lookup where "look further" did not, and one that announced the next lookup
    went on to write made-up values and sums with them, and correcting its sum
    did not make it look the values up.
    """
    if reply.truncated:
        return CUT_OFF_NUDGE
    text = reply.text
    if not text.strip():
        if agent.tally("empty") > MAX_EMPTY_NUDGES:
            return None
        agent.record(StepKind.WARNING, "the reply was empty; asked again")
        return with_task(EMPTY_NUDGE, agent)
    return (_not_an_answer(agent, text) or _acknowledgement_nudge(agent, text) or _announcement_nudge(agent, text)
            or _give_up_nudge(agent, text) or _link_nudge(agent, text) or _arithmetic_nudge(agent, text))


def answer_nudge(agent: Agent, answer: str) -> str | None:
    """A nudge when ``answer`` is not an answer yet, else None (also the text protocol's check).

    Small models parrot the last message, so a reply that repeats one of
    vero's own notes or nudges, or the error of a failed tool call, is never the
    answer (``ECHO_NUDGE`` or ``ERROR_ECHO_NUDGE``, at most ``MAX_ECHO_NUDGES``
    times; then the run ends ``failed``).  ``GUESS_NUDGE`` comes once per run,
    for an answer given when every tool call so far failed;
    ``AFTER_FAILED_CALL_NUDGE`` once, for an answer right after a failed call
    (when an earlier one worked); ``GAVE_UP_NUDGE`` once, for an answer that
    gives up ("… is not provided") right after a call that worked.  An answer that
    shows a calculation with a wrong result (``37 * 59.99 = 2219.33``) is sent
    the right one (``ARITHMETIC_NUDGE``, at most ``MAX_ARITHMETIC_NUDGES`` times).  ``LINK_NUDGE`` comes
    once, for an answer that gives an id another tool takes but was never given (``unfollowed_link``;
    not for an agent whose ``follows_links`` is False).
    """
    return (_not_an_answer(agent, answer) or _give_up_nudge(agent, answer) or _link_nudge(agent, answer)
            or _arithmetic_nudge(agent, answer))


def _not_an_answer(agent: Agent, answer: str) -> str | None:
    """The nudge for vero's words or a tool's error repeated, or for a guess after failed calls."""
    ours = echoes_vero(answer)
    if ours or repeats_tool_error(agent, answer):
        if agent.tally("echo") > MAX_ECHO_NUDGES:
            what = "vero's own messages" if ours else "a tool's error"
            raise MalformedOutputError(f"the model kept repeating {what} instead of answering", answer)
        what = "one of vero's messages" if ours else "a failed tool call's error"
        agent.record(StepKind.WARNING, f"the reply repeated {what}; asked for an answer", raw=answer)
        return with_task(ECHO_NUDGE if ours else ERROR_ECHO_NUDGE, agent)
    if agent.only_failed_tools() and agent.tally("guess") == 1:
        agent.record(StepKind.WARNING, "an answer after only failed tool calls; asked to try a fitting tool",
                     raw=answer)
        return with_task(GUESS_NUDGE.format(tools=agent.tools.short_lines()), agent)
    failed = _failed_after_one_worked(agent)
    if failed is not None and agent.tally("after_failed_call") == 1:
        agent.record(StepKind.WARNING, f"an answer right after a failed {failed} call; asked to make the call again",
                     raw=answer)
        return with_task(AFTER_FAILED_CALL_NUDGE.format(tool=failed), agent)
    return None


def _give_up_nudge(agent: Agent, answer: str) -> str | None:
    if gives_up(answer) and _latest_call_worked(agent) and agent.tally("gave_up") == 1:
        agent.record(StepKind.WARNING, "the answer gave up after a tool call that worked; asked to look further",
                     raw=answer)
        return with_task(GAVE_UP_NUDGE.format(tools=agent.tools.short_lines()), agent)
    return None


def _link_nudge(agent: Agent, answer: str) -> str | None:
    if not getattr(agent, "follows_links", True):
        return None
    link = unfollowed_link(agent, answer)
    if link is None or agent.tally("link") > 1:
        return None
    value, field, tools = link
    agent.record(StepKind.WARNING, f"the answer gives {value!r}, a {field} no call took; asked to follow it",
                 raw=answer)
    return with_task(LINK_NUDGE.format(value=value, field=field, tool=" or ".join(tools)), agent)


def unfollowed_link(agent: Agent, answer: str) -> tuple[str, str, list[str]] | None:
    """``(value, field, tools)`` when ``answer`` gives an id (``GH-03``: letters and digits) that a result
    of this run gave under a field that is a parameter of other ``tools`` (``greenhouse_id`` of
    ``greenhouse_info``), and none of them was given it; else None.

    Not when the task names the field's kind ("Which greenhouse ..." for ``greenhouse_id``) or gives
    the value itself: then the id is likely what it asks for, and a tool that takes it may change
    something (``cancel_order(order_id)``).
    """
    takes = _tools_by_parameter(agent)
    calls = tool_calls(agent.steps_so_far())
    given = {(action.data.get("tool"), folded(str(value)))
             for action, _ in calls for value in _values(action.data.get("args"))}
    task = folded(agent.task)
    for action, result in calls:
        if not call_worked(result):
            continue
        for field, value in output_record(result.content).items():
            tools = [name for name in takes.get(field, []) if name != action.data.get("tool")]
            if not (tools and isinstance(value, str) and looks_like_id(value)) or folded(value) in task \
                    or any(word in task for word in field.casefold().split("_") if word != "id"):
                continue
            if re.search(rf"(?<!\w){re.escape(value)}(?!\w)", answer) \
                    and not any((name, folded(value)) in given for name in tools):
                return value, field, tools
    return None


def _tools_by_parameter(agent: Agent) -> dict[str, list[str]]:
    takes: dict[str, list[str]] = {}
    for name in agent.tools.names():
        tool = agent.tools.get(name)
        schema = tool.parameters if tool is not None and isinstance(tool.parameters, dict) else {}
        properties = schema.get("properties")
        for parameter in properties if isinstance(properties, dict) else ():
            takes.setdefault(parameter, []).append(name)
    return takes


def _values(args: Any) -> list[Any]:
    """A call's argument values (text ReAct may record a bare ``Action Input`` as the text itself)."""
    return list(args.values()) if isinstance(args, dict) else [args]


def _acknowledgement_nudge(agent: Agent, text: str) -> str | None:
    if acknowledges_result(text) and agent.tally("acknowledged") == 1:
        agent.record(StepKind.WARNING, "the reply talked about the tool result instead of answering; asked to answer",
                     raw=text)
        return with_task(ACKNOWLEDGED_NUDGE, agent)
    return None


def _announcement_nudge(agent: Agent, text: str) -> str | None:
    if not agent.tools:
        return None
    made_up = writes_made_up_result(agent, text)
    if not (made_up or announces_action(text, agent.tools.names())):
        return None
    if nudges_since_last_call(agent, "announced") >= MAX_ANNOUNCED_NUDGES:
        return None
    what = "was a tool result the model made up" if made_up else "announced a tool call but made none"
    agent.record(StepKind.WARNING, f"the reply {what}; asked to act", raw=text, nudge="announced")
    return ANNOUNCED_NUDGE.format(which="next" if tool_calls(agent.steps_so_far()) else "first")


def writes_made_up_result(agent: Agent, text: str) -> bool:
    """True when the whole reply is a JSON object shaped like an earlier tool result (the same keys)
    but equal to none: seen after the first of two lookups, the second one's result, made up."""
    stripped = text.strip()
    if not (stripped[:1] in "{`" and stripped[-1:] in "}`"):
        return False
    try:
        written = parse_json_object(stripped)
    except ValueError:
        return False
    results = [_json_fields(result.content) for _, result in tool_calls(agent.steps_so_far())]
    return written not in results and any(set(result) == set(written) for result in results if result)


def _json_fields(output: str) -> dict[str, Any]:
    return output_record(output) if len(output) <= MAX_RESULT_CHARS_COMPARED else {}


MAX_RESULT_CHARS_COMPARED = 20_000  # a record the model could retype; longer outputs are not compared


def _arithmetic_nudge(agent: Agent, answer: str) -> str | None:
    slip = miscalculation(answer)
    if slip is None or agent.tally("arithmetic") > MAX_ARITHMETIC_NUDGES:
        return None
    correction = ARITHMETIC_NUDGE.format(expression=slip.expression, value=slip.value, claimed=slip.claimed)
    agent.record(StepKind.WARNING, f"the answer's arithmetic is wrong; sent: {correction}", raw=answer)
    return correction


TOO_MANY_CALLS = "Not run: at most {limit} tool calls are run per reply. Call the rest in your next reply."
LOOP_WARNING_PROMPT = ("You have repeated the same action with the same input {count} times in a row; "
                       "it was not run again and the result would not change. Try a different action, "
                       "or give your final answer.")  # ReAct's loop detection


def _head(text: str) -> str:
    """The first 40 characters of ``text``, spacing and case aside: enough to tell a copied message."""
    return folded(text)[:40]


# The fixed opening of each message vero sends the model (up to the first placeholder, at most 40 characters).
# Not the arithmetic correction: a reply that repeats it carries the right value.
_OPENINGS = [_head(t.split("{")[0]) for t in (
    CUT_OFF_NUDGE, ANNOUNCED_NUDGE.format(which="first"), ANNOUNCED_NUDGE.format(which="next"), REPEATED_CALL_NUDGE,
    EMPTY_NUDGE, GUESS_NUDGE, ACKNOWLEDGED_NUDGE, ECHO_NUDGE, ERROR_ECHO_NUDGE, TOO_MANY_CALLS, REPEATED_FAILURE,
    LOOP_WARNING_PROMPT, GAVE_UP_NUDGE, AFTER_FAILED_CALL_NUDGE, LINK_NUDGE)]


def answer_tool_calls(agent: Agent, reply: Message, messages: list[Message],
                      observe: Callable[[ToolCall], str] | None = None) -> None:
    """Append the assistant's tool-call message, then one ``tool`` message per call.

    The calls run in the order the model gave them, at most
    ``agent.max_tool_calls_per_reply`` of them (the rest are answered "not
    run"); ``observe(call)`` returns the text sent back (default: run the tool
    through ``agent.run_tool``, which records the ``action`` and ``observation``
    steps).
    """
    calls = reply.tool_calls
    assert calls is not None  # callers pass a reply that has tool calls
    repeated = observe is None and any(made_before(agent, call.name, call.arguments) for call in calls)
    observe = observe or (lambda call: _observe(agent, call))
    limit = agent.max_tool_calls_per_reply
    messages.append(Message.assistant(reply.content, calls))
    if len(calls) > limit:
        agent.record(StepKind.WARNING, f"{len(calls)} tool calls in one reply; only the first {limit} run")
    for number, call in enumerate(calls):
        text = observe(call) if number < limit else TOO_MANY_CALLS.format(limit=limit)
        messages.append(Message.tool(text, call.id, call.name))
    if repeated:  # small models loop on a call whose result they do not know how to use
        agent.record(StepKind.WARNING, "the same tool call again; asked to use the results it has")
        messages.append(Message.user(with_task(REPEATED_CALL_NUDGE, agent)))


def _observe(agent: Agent, call: ToolCall) -> str:
    return agent.run_tool(call.name, call.arguments).output


def echoes(agent: Agent, text: str) -> bool:
    """True when ``text`` repeats one of vero's messages or a failed tool call's error: no answer,
    no thought and no partial answer."""
    return echoes_vero(text) or repeats_tool_error(agent, text)


def echoes_vero(text: str) -> bool:
    """True when ``text`` begins like one of the notes and nudges vero sends the model, in any case,
    also behind a "Not run:" that the model copied from another of them."""
    head = " ".join(text.split()).casefold()
    heads = (head, head.removeprefix("not run:").lstrip())
    return any(h.startswith(opening) for h in heads for opening in _OPENINGS)


def repeats_tool_error(agent: Agent, text: str) -> bool:
    """True when ``text`` begins with the output of one of this run's failed tool calls (its first 40
    characters, spacing and case aside): a small model may give an error it was shown as its answer."""
    head = _head(text)
    errors = (_head(result.content) for _, result in tool_calls(agent.steps_so_far()) if not call_worked(result))
    return any(error and head.startswith(error) for error in errors)


def _latest_call_worked(agent: Agent) -> bool:
    calls = tool_calls(agent.steps_so_far())
    return bool(calls) and call_worked(calls[-1][1])


def _failed_after_one_worked(agent: Agent) -> str | None:
    """The tool of this run's latest call if it failed after an earlier call worked, else None.  Not
    after a repeated call that was not run: its note already said it would fail again.  (When every
    call failed, ``GUESS_NUDGE`` applies instead.)"""
    calls = tool_calls(agent.steps_so_far())
    if not calls or call_worked(calls[-1][1]) or not any(call_worked(result) for _, result in calls):
        return None
    if calls[-1][1].data.get("error") == ToolError.REPEATED_FAILURE:
        return None
    return str(calls[-1][0].data.get("tool"))


def nudges_since_last_call(agent: Agent, nudge: str) -> int:
    """How many warnings marked ``nudge=nudge`` this run recorded since its last tool call."""
    count = 0
    for step in reversed(agent.steps_so_far()):
        if step.kind == StepKind.ACTION:
            break
        count += step.kind == StepKind.WARNING and step.data.get("nudge") == nudge
    return count


def made_before(agent: Agent, name: str, arguments: Any) -> bool:
    """True when this run already made the same call (same tool, same arguments)."""
    return bool(agent.earlier_results(name, arguments))


def with_task(nudge: str, agent: Agent) -> str:
    """``nudge`` followed by the task (clipped): a small model that is stuck has usually lost sight of it."""
    task = clip(agent.task, 300, " ...")
    return f"{nudge}\nThe task: {task}" if task else nudge
