"""The gate: the one place that decides whether a tool call runs (docs/tools.md, "Safety").

``Agent.run_tool`` asks it about every call, whatever path the call came by (a native tool call, a call read from the
model's text, a guided step, a recovery rule's lookup, a plan step's or a sub-agent's call).  It decides on the parsed
call, never on the text around it, and asks four questions, in order:

1. is the tool known;
2. for a tool that may change things: are the arguments exactly what the model wrote (JSON as
   ``json.loads`` reads it once a code fence or ``<pre>`` is removed: one object, nothing after it, no
   NaN or Infinity, one set of arguments; nothing repaired by guesswork);
3. for a call read from text (``origin="text"``) of a tool that may change things: is it a quote,
   the same tool with the same arguments written in the task, the conversation, a tool result, a
   tool description or the system prompt (``vero.core.parsing.quoted_calls``);
4. does the user approve (``approve_tool=``, the agent's own and, for an agent run as another's tool,
   its callers'; a ``needs_approval`` tool with nobody to ask is refused).

A "no" is an observation the model reads (one wording per reason, below), and the run goes on.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from vero.core.message import ORIGINS, Arguments, ToolCallRequest
from vero.core.notes import note
from vero.core.options import AgentOptions
from vero.core.parsing.json_text import (
    ConflictingKeysError,
    _one_value_per_key,
    exact_float,
    valid_strings,
    valid_text,
    without_fence,
)
from vero.core.parsing.quoted_calls import canonical, name_key, name_words, quoted_call, spared_values
from vero.core.parsing.tool_output import tidy_numbers
from vero.core.result import StepKind, ToolError, plain_output
from vero.core.text import clip
from vero.tools.base import Tool, ToolArgumentError
from vero.tools.registry import RAISED, ToolRegistry, parse_arguments
from vero.tools.schema import EXACT

__all__ = ["ORIGINS", "Arguments", "ToolCallRequest", "Refusal", "approvers_of", "decide"]

NOT_AS_WRITTEN = note(
    "not_as_written",
    "Not run: {tool} may change things, so it runs only with arguments exactly as written: one JSON "
    "object and nothing after it. {problem}. Write the call again, with the arguments you mean.",
)
QUOTED = note(
    "quoted_call",
    "Not run: this call of {tool} is a quote of a call shown to you (in the task, the conversation, a tool "
    "result, a tool description or the instructions), not a call of yours; {tool} may change things.",
)
NOT_APPROVED = note("not_approved", "Not run: the user did not approve this call of {tool}{reason}.")
NOBODY_TO_ASK = note("nobody_to_ask", "Not run: {tool} needs approval; nobody to ask.")
APPROVAL_FAILED = note("approval_failed", "Not run: asking for approval of this call of {tool} failed ({error}).")
NOT_CHECKED = note(
    "quote_check_failed",
    "Not run: {tool} may change things, and whether this call is a quote of one shown to you could not be checked.",
)
NOT_FOR_VERO = note("not_for_vero", "Not run: vero makes no call of {tool} for the model (it may change things).")


class Agent(Protocol):
    """What the gate uses of an agent (``vero.core.agent.Agent``)."""

    tools: ToolRegistry
    options: AgentOptions
    system_prompt: str | None
    history: list[Any]
    _run: Any  # the run in progress: its ``approvers`` are those of the runs it is part of

    def record(self, kind: str, content: str = "", **data: Any) -> Any: ...
    def _emit(self, type: str, **data: Any) -> None: ...


@dataclass(frozen=True)
class Refusal:
    """Why a call is not run: the observation the model reads, and its ``ToolError`` kind."""

    text: str
    error: str


def decide(
    agent: Agent, name: str, args: Any, origin: str | None = None, call_id: str | None = None
) -> ToolCallRequest | Refusal:
    """The gate's verdict on one call: the call to run (its arguments parsed), or why it is not run.
    ``origin`` and ``call_id`` (the id of the native tool call, which the approver sees): given, or
    those ``args`` carry when they are ``Arguments``, else ``"native"`` and None."""
    if isinstance(args, Arguments):
        origin, call_id = origin or args.origin, call_id or args.call_id
    origin = origin or "native"  # a dict or JSON text a subclass hands on: its own call, or the API's
    found = agent.tools.get(name) if isinstance(name, str) else None
    if found is None:
        valid = ", ".join(agent.tools.names()) or "(none)"
        return Refusal(f"Error: unknown tool {name!r}. Valid tools: {valid}.", ToolError.UNKNOWN_TOOL)
    if origin == "vero" and not found.read_only:  # recovery rules name read-only tools only
        return Refusal(NOT_FOR_VERO.format(tool=name), ToolError.REFUSED)
    if isinstance(args, Arguments) and args.plain and args.problem is None:  # no JSON object: read with the tool
        args = args.written
    try:  # question 2: a read-only tool's arguments are repaired if sloppy, as they always were
        if not found.read_only:
            arguments = exact_arguments(found, args)
        else:  # a dict: read leniently where the reply was read
            arguments = args if isinstance(args, dict) else parse_arguments(found, args)
    except ToolArgumentError as exc:
        return Refusal(f"Error: tool {name!r} {exc}", ToolError.BAD_ARGUMENTS)
    except NotAsWritten as exc:
        agent.record(StepKind.WARNING, f"the arguments of {name} are not exactly as written; not run: {exc}")
        problem = str(exc)[:1].upper() + str(exc)[1:]  # not capitalize(): "JSON" stays as it is
        return Refusal(NOT_AS_WRITTEN.format(tool=name, problem=problem), ToolError.BAD_ARGUMENTS)
    call = ToolCallRequest(name, arguments, call_id, origin)
    quoted = _quote_refusal(agent, found, name, arguments) if origin == "text" and not found.read_only else None
    if quoted is not None:  # question 3
        return quoted
    inherited = agent._run.approvers if agent._run is not None else ()  # an agent run as another's tool
    if found.needs_approval or (not found.read_only and (agent.options.approve_tool is not None or inherited)):
        refusal = _approval(agent, found, call)
        if refusal is not None:
            return Refusal(refusal, ToolError.REFUSED)
    return call


def _quote_refusal(agent: Agent, found: Tool, name: str, arguments: dict[str, Any]) -> Refusal | None:
    """Question 3: a call of a tool that may change things read from the model's text is not run when it is a quote of
    one the model was shown (``quoted_call``), under the tool's name or the one a page may call it by."""
    shown = quote_sources(agent)
    results: list[Any] = [text for tool, _, text in shown.results if tool != name]
    results += [(text, spared) for tool, text, spared in shown.own if tool == name]
    outside = [text for _, _, text in shown.results]  # data from outside, under either name
    sources = [*shown.texts, *outside]
    reading = functools.partial(_written_arguments, found)
    # A page may call the tool by another name: an MCP tool by its name on its server (before a prefix), a renamed
    # function by its own.  Under it only a call written out counts (the word near values in a result, "update",
    # says nothing), and the tool's own description is its own there too.
    other = str(getattr(found, "remote_name", None) or getattr(found.func, "__name__", name))
    names = {name: (results, shown.descriptions)}
    if other not in shown.descriptions and _OTHER_NAME.fullmatch(other):
        names[other] = ([], {**shown.descriptions, other: shown.descriptions.get(name, "")})
    properties = found.parameters["properties"]
    offered = [key for key, schema in properties.items() if isinstance(schema, dict) and "enum" in schema]
    try:
        optional = set(properties) - set(found.parameters.get("required", ()))
        kinds = (optional, offered, outside)  # of parameters, and of sources: data from outside under either name
        quoted = any(
            quoted_call(spelt, arguments, sources, reading, values_near, shown.asked, described, *kinds)
            for spelt, (values_near, described) in names.items()
        )
    except Exception as exc:  # a text the check could not read: the call is not run, and the run goes on
        agent.record(StepKind.WARNING, f"the quote check of {name} failed ({type(exc).__name__}: {exc}); not run")
        return Refusal(NOT_CHECKED.format(tool=name), ToolError.REFUSED)
    if quoted:
        agent.record(StepKind.WARNING, f"the call of {name} is a quote; not run", quoted=True, tool=name)
        return Refusal(QUOTED.format(tool=name), ToolError.REFUSED)
    return None


@dataclass(frozen=True)
class Shown:
    """What the model was shown, for question 3 (``quoted_call``): ``texts`` (the system prompt, the tools'
    descriptions and schemas, the history, the task); ``results``, the tool results and the messages an app added
    (data from outside: the tool's name with the call's values in any syntax is a quote there too); ``asked``, the
    user's own words (values in them are the user's); ``descriptions``, each tool's description and schema by its
    name, where a value after its parameter's name is a quote too; ``own``, what a tool said of a call of its own (its
    results and errors, not vero's about its arguments), with that call's values: they are no evidence there."""

    texts: list[str]
    results: list[tuple[str, bool, str]]  # (tool, ok, text): as the model read it, numbers tidied too
    asked: list[str]
    descriptions: dict[str, str]
    own: list[tuple[str, str, list[str]]] = field(default_factory=list)  # (tool, text, the values of its call)


# A tool's parameters as a text, one key a line: a record that ends a parameter's description ends its own line
_SCHEMA_TEXT = functools.partial(json.dumps, ensure_ascii=False, indent=1)


def quote_sources(agent: Agent) -> Shown:
    """The texts a call read from the model's text is compared with, to tell a quote (question 3).  A sub-agent's task
    is not among them but its parent's sources are: the parent's model wrote that task (a plan step, an ``as_tool``
    call), and what it was shown is there; a sub-run's answer (a plan step's) is shown as earlier answers are."""
    described = {t.name: f"{t.description}\n\n{_SCHEMA_TEXT(t.parameters)}" for t in agent.tools}
    examples = {t.name: _examples_of(t.parameters) for t in agent.tools if "xample" in described[t.name]}
    tools = {name: text + examples.get(name, "") for name, text in described.items()}
    # and the tools' names, which a server chooses (delete_record_rec-88412), as another description (as words too)
    tools[""] = "\n".join(f"{tool.name} {tool.name.replace('_', ' ')}" for tool in agent.tools)
    for name, told in agent.tools.retired.items():  # what a tool since replaced told the model (MCP's list_changed)
        tools[name] = "\n\n".join([tools.get(name, ""), *told])
    seen = agent.history[-w:] if (w := agent.options.history_window) > 0 else []  # the window sent (a cut result too)
    # a sub-agent's history holds tasks its parent's model wrote (a given Reflexion executor's, with reflections):
    # the user's words are its parent's (below)
    users = ("user",) if agent._run is None or agent._run.parent_sources is None else ()
    said = [message.text for message in seen if message.role in users]
    outside = ("tool", "system")  # a result (a loaded session's), a message the app added (a page it retrieved)
    results = [("", True, message.text) for message in seen if message.role in outside]
    others = [message.text for message in seen if message.role not in outside]  # a call pasted earlier: shown
    others += [call.arguments for message in seen for call in message.tool_calls or () if call.arguments]
    shown = Shown([agent.system_prompt or "", *tools.values(), *others], results, said, tools)
    if (run := agent._run) is None:
        return shown
    messages, sent_tools = run.sent  # the system prompt and tools as sent: a subclass's own prompt, a tool changed
    listing = agent.tools.describe() or "\0"  # but not vero's list of the tools (``- name(sig): ...``): no call
    shown.texts.extend(message.text.replace(listing, "") for message in messages if message.role == "system")
    functions = [schema.get("function") or {} for schema in sent_tools or () if isinstance(schema, dict)]
    sent = (f"{fn.get('description')}\n\n{_SCHEMA_TEXT(fn.get('parameters'))}" for fn in functions)
    shown.texts.extend(text for text in sent if text not in described.values())  # a tool as sent, since changed
    shown.texts.extend(step.content for step in run.steps if step.data.get("outside"))  # an evaluator's feedback
    shown.texts.extend(step.content for step in run.steps if step.kind == StepKind.FINAL and step.depth)
    limit = agent.options.max_observation_chars  # each result as far as sent, as recorded and tidied (499.9...4: 500)
    for action, step in zip([None, *run.steps], run.steps):
        if step.kind != StepKind.OBSERVATION:
            continue
        tool, ok, read = step.data.get("tool", ""), step.data.get("ok", True), step.content[:limit]
        texts = dict.fromkeys((read, tidy_numbers(step.content)[:limit]))
        shown.results.extend((tool, ok, text) for text in texts)
        if step.data.get("error") in (None, ToolError.EXCEPTION):  # the tool's words, not vero's about the call
            spared = spared_values(action.data.get("args")) if action and action.kind == StepKind.ACTION else []
            vero = RAISED.format(tool) if step.data.get("error") else "\0"  # before what it raised, vero's own words
            shown.own.extend((tool, text.removeprefix(vero), spared) for text in texts)
    parent = Shown([run.task], [], [run.task], {}) if run.parent_sources is None else run.parent_sources()
    shown.texts.extend(parent.texts)
    shown.results.extend(parent.results)
    shown.own.extend(parent.own)
    shown.asked.extend(parent.asked)
    names = "\n".join(filter(None, [shown.descriptions.get(""), parent.descriptions.get("")]))  # both kept
    shown.descriptions.update({**parent.descriptions, **shown.descriptions, "": names})  # the agent's own tools first
    return shown


def _examples_of(parameters: dict[str, Any]) -> str:
    """Each parameter's one example in a tool's schema (``examples``, ``example``, ``x-example``; not one of an
    ``enum``) as a ``name: value`` line, as a description writes a call: a server that spells one out a parameter at
    a time shows it.  Only when one of them names a target (an address, a URL, an id of letters and digits), and of
    the others only a required parameter's: ``USD``, ``en`` or ``10`` are a schema's typical values, which users ask
    for in words of their own."""
    examples, required = [], parameters.get("required", ())
    for name, schema in parameters.get("properties", {}).items():
        for key in ("examples", "example", "x-example", "x-examples") if isinstance(schema, dict) else ():
            found = schema.get(key)
            values = found if isinstance(found, list) else [] if found is None else [found]
            examples += [(name, str(values[0]))] if len(values) == 1 and "enum" not in schema else []
    targets = [(name, value) for name, value in examples if _TARGET.search(value)]
    kept = [(name, value) for name, value in examples if (name, value) in targets or name in required]
    return "".join(f"\n{name}: {value}" for name, value in kept) if targets else ""


_TARGET = re.compile(r"@|://|\A(?=[^\s]*[^\W\d_])(?=[^\s]*\d)[\w.-]{3,64}\Z")  # a@b, a URL, rec-88412


def _written_arguments(tool: Tool, written: Any) -> dict[str, Any]:
    """Question 3: the arguments of a call written in what the model was shown, read as the tool would
    read them (leniently), under the tool's own parameter names: given by position (``tool("a", 5)`` is
    read ``{0: "a", 1: 5}``), spelt otherwise (``Account``), inside an object of another name, or under another
    name sharing a word with the one required parameter left (``id`` for ``record_id``; not ``memo`` for ``to``).
    A tool that takes arguments its schema does not list (``**kwargs``, a loose MCP schema) keeps them: compared."""
    properties = tool.parameters["properties"]
    names = list(properties)
    spelt = {name_key(name): name for name in names}
    read = dict(parse_arguments(tool, written))  # a copy: the written call stays as read, for its other readings
    for key, value in list(read.items()):  # an object around them ({"payment": {"to": ...}}): its fields
        if isinstance(key, str) and isinstance(value, dict) and key not in properties and name_key(key) not in spelt:
            read.pop(key)
            read.update({field: item for field, item in value.items() if field not in read})
    arguments = {
        names[key] if isinstance(key, int) and key < len(names) else spelt.get(name_key(str(key)), key): value
        for key, value in read.items()
    }
    required = [name for name in tool.parameters.get("required", ()) if name not in arguments]
    unknown = [key for key in arguments if key not in properties]
    # a tool that takes arguments its schema does not list (**kwargs, a loose MCP schema): they are compared too
    takes_more = tool.parameters.get("additionalProperties", True) is not False
    if len(unknown) == len(required) == 1 and set(name_words(unknown[0])) & set(name_words(required[0])):
        arguments[required[0]] = arguments.pop(unknown[0])  # id for record_id
    # without those that only repeat a default, are null, or name no parameter it takes: the same call either way
    return {
        key: value
        for key, value in arguments.items()
        if value is not None
        and (isinstance(properties.get(key), dict) or (takes_more and key not in properties))
        and not _same_value((properties.get(key) or {}).get("default", ...), value)
    }


def _same_value(default: Any, value: Any) -> bool:
    """``value`` is the default as the tool reads it (``"false"`` for ``False``, ``"3"`` for ``3``)."""
    return default is not ... and (default == value or canonical(default) == canonical(value))


# -- question 2: the arguments ------------------------------------------------------------------
class NotAsWritten(ValueError):
    """Arguments of a tool that may change things that are not exactly one JSON object as written."""


def exact_arguments(tool: Tool, args: Any) -> dict[str, Any]:
    """The arguments of a call of a tool that may change things, exactly as written: JSON as ``json.loads`` reads it
    once a code fence (any language tag) or a ``<pre>``/``<code>`` element is removed (a JSON string holding the object:
    once decoded), else ``NotAsWritten``; plain text goes to the tool's one parameter as written, unless it is arguments
    in another syntax (``id=5``).  ``ToolArgumentError``: unusable."""
    if isinstance(args, Arguments):  # read where the reply was read: the text as written decides
        if args.problem is not None:
            raise NotAsWritten(args.problem)
        args = args if args.written is None else args.written  # no text: a dict read exactly
    if isinstance(args, (bytes, bytearray)):
        args = bytes(args).decode("utf-8", errors="replace")
    if isinstance(args, str):
        text = args.strip()
        wrapped = _WRAPPING_TAG.fullmatch(text)  # in <pre> or <code>, or a code fence: its inside is what was written
        if wrapped is not None:
            text = args = wrapped.group(2).strip()
        if text[:1] in ("`", "~"):
            text = args = without_fence(text)
        if text[:1] in ("{", "["):
            return _exact_object(text)
        if text[:1] == '"' and _encoded_object(text):  # a JSON string holding the object: read once decoded
            return exact_arguments(tool, json.loads(text))
    if isinstance(args, dict):
        _check_finite(args)
        return args
    if isinstance(args, str) and _written_as_pairs(tool, args):
        raise NotAsWritten('they name the tool\'s parameters but are no JSON object (write {"name": value})')
    return parse_arguments(tool, args)  # None, empty, or plain text for the tool's one parameter


def _written_as_pairs(tool: Tool, text: str) -> bool:
    """Plain text that is no value but arguments in another syntax: ``record_id=r-17``, ``id: 5, force=true``,
    ``delete_record('r-17')``; read by guesswork it would reach the tool with its own names in it."""
    names = "|".join(re.escape(name) for name in tool.parameters["properties"])
    text = text.strip()
    pairs = names and re.search(rf"(?:\A[ \t(]*(?:{names})[ \t]*[=:]|[,;][ \t]*(?:{names})[ \t]*=)", text)
    return bool(pairs) or (text.endswith(")") and re.match(rf"{re.escape(tool.name)}[ \t]*\(", text) is not None)


_OTHER_NAME = re.compile(r"(?!None\Z|.*__)[A-Za-z][\w.-]{3,63}")  # a name a page may write: no <lambda>, _, run
_WRAPPING_TAG = re.compile(r"<(pre|code|tt|samp|kbd)\b[^<>]{0,200}>(.*)</\1[ \t]*>", re.DOTALL | re.IGNORECASE)


def _encoded_object(text: str) -> bool:
    """``text`` is a JSON string whose content is a JSON object or list (arguments encoded twice)."""
    try:
        inner = json.loads(text)
    except ValueError:
        return False
    return isinstance(inner, str) and inner.strip()[:1] in ("{", "[")


def _exact_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(
            text, object_pairs_hook=_one_value_per_key, parse_constant=_no_constant, parse_float=exact_float
        )
    except ConflictingKeysError as exc:
        raise NotAsWritten(str(exc)) from None
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            raise NotAsWritten("there is more after the arguments' JSON object (a second object?)") from None
        raise NotAsWritten(f"they are not valid JSON ({exc.msg} at character {exc.pos})") from None
    except (ValueError, RecursionError) as exc:
        raise NotAsWritten(str(exc) or "they are nested too deeply") from None
    if not isinstance(value, dict):
        raise NotAsWritten("they are not one JSON object")
    return valid_strings(value) if "\\u" in text else value  # an escaped half of a surrogate pair


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no number a tool that may change things takes")


def _check_finite(value: Any) -> None:
    """NaN and Infinity are no amounts: refused anywhere in parsed arguments."""
    if isinstance(value, float) and not math.isfinite(value):
        raise NotAsWritten(f"{value} is no number a tool that may change things takes")
    if isinstance(value, (dict, list)):
        for item in value.values() if isinstance(value, dict) else value:
            _check_finite(item)


# -- question 4: approval -----------------------------------------------------------------------
def approvers_of(agent: Agent, run: Any = None) -> tuple[Callable[[Any], Any], ...]:
    """Who approves the agent's calls: its own ``approve_tool`` and those of the runs its run (``run``, else the one
    in progress) is part of (an agent run as another's tool: the caller's user has a say over its calls too), each
    once.  A run keeps them after it ended: an agent its tool started still asks them."""
    run = agent._run if run is None else run
    found: list[Callable[[Any], Any]] = []
    for approver in (agent.options.approve_tool, *(run.approvers if run is not None else ())):
        if approver is not None and all(approver is not known for known in found):
            found.append(approver)
    return tuple(found)


def _approval(agent: Agent, tool: Tool, call: ToolCallRequest) -> str | None:
    """None when every approver lets the call run; else the refusal.  Asked for a tool that may change
    things and for a ``needs_approval`` one (with no approver, that one is refused); the verdict is an
    ``approval`` step and a ``tool_approval`` event.  Approvers, step and event are shown the values the tool
    will get (the model's ``"0500"`` for an int is 500), each a copy: what is done to it never reaches the tool."""
    call = replace(call, arguments=_as_the_tool_gets(tool, call.arguments))
    refusal: str | None = NOBODY_TO_ASK.format(tool=call.name)
    reason = "nobody to ask"
    for approver in approvers_of(agent):  # the agent's own first; the first refusal decides
        refusal, reason = _ask(approver, call)
        if refusal is not None:
            break
    approved = refusal is None
    verdict = "approved" if approved else f"refused: {reason}" if reason else "refused"
    kept = sent = call.arguments  # a new dict of JSON values (``_as_the_tool_gets``), or the arguments as written:
    with contextlib.suppress(Exception):  # a copy each, unless a custom agent passed something that cannot be copied
        kept, sent = copy.deepcopy(kept), copy.deepcopy(sent)  # a listener's edit of the event leaves the record be
    agent.record(StepKind.APPROVAL, f"{call.name}: {verdict}", tool=call.name, args=kept, approved=approved)
    agent._emit("tool_approval", tool=call.name, args=sent, approved=approved, reason=reason)
    return refusal


def _as_the_tool_gets(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` as ``ToolRegistry.call`` will give them to the tool (``Tool.validate``, as exactly as
    for a tool that may change things), written as JSON values (an Enum as its value, a dataclass or pydantic
    model as a dict: ``plain_output``); as they are when they do not fit (the tool is not run then)."""
    exact = EXACT.set(not tool.read_only)
    try:
        return dict(plain_output(tool.validate(copy.deepcopy(arguments))))  # a copy: a validator may edit its input
    except ToolArgumentError:
        return arguments
    finally:
        EXACT.reset(exact)


def _ask(approver: Any, call: ToolCallRequest) -> tuple[str | None, str]:
    """``(refusal or None, reason)`` from the approver; anything but ``True`` or a string refuses."""
    try:  # the approver sees a copy: what it does to it never reaches the tool
        verdict = approver(replace(call, arguments=copy.deepcopy(call.arguments)))
    except Exception as exc:  # an approver that fails never lets the call through
        error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return APPROVAL_FAILED.format(tool=call.name, error=error), f"the approver raised {error}"
    if verdict is True:
        return None, ""
    if isinstance(verdict, str) and verdict.strip():  # the model reads it: text UTF-8 can carry
        return NOT_APPROVED.format(tool=call.name, reason=f": {valid_text(verdict.strip())}"), verdict.strip()
    if verdict is False or isinstance(verdict, str):
        return NOT_APPROVED.format(tool=call.name, reason=""), ""
    if inspect.iscoroutine(verdict):  # an ``async def`` approver: its answer never comes here
        verdict.close()
        return NOT_APPROVED.format(tool=call.name, reason=""), "the approver is async; write it as a plain def"
    try:  # a verdict's repr may raise, or be megabytes
        shown = clip(repr(verdict), 200, " ...")
    except Exception:
        shown = f"a {type(verdict).__name__}"
    return NOT_APPROVED.format(tool=call.name, reason=""), f"the approver returned {shown}, not True"
