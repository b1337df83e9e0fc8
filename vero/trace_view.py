"""``vero trace FILE``: a JSONL trace read back as a numbered conversation.

A trace (``--trace FILE``, ``Agent(trace=...)``) holds every event of a run,
and each model call as sent (``llm_start``: messages, tools, options) and as
answered (``llm_call``: text, tool calls, usage, finish reason).  The viewer
prints, for each model call, the messages that are new since the earlier call
it continues, the reply, its tokens and time, and each tool call with its
outcome; ``--call N`` prints one request whole (``--json``: as the JSON body).

Everything printed from the trace goes through ``printable``: a model's reply
or a tool's output cannot send control sequences to the terminal.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

from vero.core.text import clip

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
MESSAGE_CHARS = 2000  # a message longer than this is cut in the overview (not with --call or --full)
OUTPUT_CHARS = 500  # a tool's output, in the overview
INDENT = "    "
NOTED_STEPS = {"warning": "⚠️", "error": "❌"}  # steps shown after the call they follow: why a loop re-asks
BIDI_CONTROLS = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))  # can reorder what a terminal shows


def printable(text: Any) -> str:
    """``text`` with terminal control characters (ESC, carriage return, C1 controls, bidi overrides) escaped
    as ``\\x1b`` ... ; newlines and tabs are kept.  (A local helper: vero has no shared one yet.)"""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(
        ch if ch in "\n\t" or not _is_control(ch) else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


def _is_control(ch: str) -> bool:
    code = ord(ch)
    return code < 0x20 or 0x7F <= code < 0xA0 or code in BIDI_CONTROLS


# -- reading -----------------------------------------------------------------------------------------------
@dataclass
class Call:
    """One model call: its request, its reply (or error), and the tool calls that followed it."""

    number: int
    run: int
    agent: str
    depth: int
    request: dict[str, Any]
    reply: dict[str, Any] | None = None
    error: str | None = None
    seconds: float | None = None
    # what followed it, in order: tool_call events (each with its "result") and warning or error steps
    after: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Trace:
    runs: list[dict[str, Any]] = field(default_factory=list)  # run_start events, each with its "end"
    calls: list[Call] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    items: list[tuple[str, Any]] = field(default_factory=list)  # ("run", run) / ("call", Call) / ("end", run)


def read_trace(lines: list[str]) -> Trace:
    """The runs and model calls of a trace's lines; a line that is not an event is noted and skipped."""
    trace = Trace()
    run: dict[str, Any] | None = None
    call: Call | None = None
    pending_tools: dict[int, dict[str, Any]] = {}  # depth -> the tool call awaiting its result
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            trace.problems.append(f"line {number}: not a JSON event (skipped)")
            continue
        if not isinstance(event, dict):
            trace.problems.append(f"line {number}: not a JSON event (skipped)")
            continue
        kind, depth = event.get("type"), _depth(event)
        if kind == "run_start" and depth == 0:
            run = {**event, "number": len(trace.runs) + 1}
            trace.runs.append(run)
            trace.items.append(("run", run))
        elif kind == "llm_start" and isinstance(event.get("request"), dict):
            call = Call(
                len(trace.calls) + 1,
                run["number"] if run else 0,
                event.get("subagent") or event.get("agent", ""),
                depth,
                event["request"],
            )
            trace.calls.append(call)
            trace.items.append(("call", call))
        elif kind in ("llm_call", "llm_error") and call is not None and call.reply is None and call.error is None:
            call.reply = event.get("reply") or {"usage": event.get("usage")}
            call.error, call.seconds = event.get("error"), event.get("seconds")
        elif kind == "tool_call" and call is not None:
            pending_tools[depth] = {**event}
            call.after.append(pending_tools[depth])
        elif kind == "tool_result" and depth in pending_tools:
            pending_tools.pop(depth)["result"] = event
        elif kind == "step" and event.get("kind") in NOTED_STEPS and call is not None:
            call.after.append(event)
        elif kind == "run_end" and depth == 0 and run is not None:
            run["end"] = event
            trace.items.append(("end", run))
            call = None
    return trace


def _depth(event: dict[str, Any]) -> int:
    depth = event.get("depth", 0)
    return depth if isinstance(depth, int) else 0


def continued_call(calls: list[Call], call: Call) -> tuple[Call | None, int]:
    """The earlier call whose messages ``call`` repeats the most of, from the start, and how many it repeats."""
    messages = call.request.get("messages") or []
    best, shared = None, 0
    for earlier in calls[: call.number - 1]:
        before = earlier.request.get("messages") or []
        same = 0
        while same < min(len(before), len(messages)) and before[same] == messages[same]:
            same += 1
        if same > shared or (same == shared and same and best is not None):  # ties: the latest
            best, shared = earlier, same
    return best, shared


# -- printing ---------------------------------------------------------------------------------------------
class Printer:
    def __init__(self, out: TextIO, full: bool = False):
        self.out = out
        self.full = full

    def line(self, text: str = "", depth: int = 0) -> None:
        prefix = INDENT * depth
        print("\n".join(prefix + part for part in printable(text).split("\n")), file=self.out)

    def cut(self, text: str, limit: int) -> str:
        if self.full:
            return text
        return clip(text, limit, f" … [{len(text) - limit} more chars; --full shows all]")

    def message(self, message: dict[str, Any], depth: int, limit: int = MESSAGE_CHARS) -> None:
        role = str(message.get("role", "?"))
        label = f"{role} {message['name']}" if role == "tool" and message.get("name") else role
        content = message.get("content")
        if isinstance(content, list):  # content parts
            content = "\n".join(
                str(part.get("text", part)) if isinstance(part, dict) else str(part) for part in content
            )
        text = self.cut(str(content), limit) if content else ""
        self.line(f"[{label}] {text}".rstrip(), depth)
        for tool_call in message.get("tool_calls") or []:
            function = tool_call.get("function") or {}
            self.line(f"{INDENT}→ {function.get('name')}({function.get('arguments', '')})", depth)


def show_trace(trace: Trace, out: TextIO, full: bool = False) -> None:
    """The whole trace: per run its task, per model call its new messages, reply and tool calls, then the end."""
    printer = Printer(out, full)
    for kind, item in trace.items:
        if kind == "run":
            printer.line(f"━━ Run {item['number']}: {item.get('cls', 'Agent')} `{item.get('agent', '')}` ━━")
            printer.line(f"👤 Task: {printer.cut(str(item.get('task', '')), MESSAGE_CHARS)}")
            printer.line()
        elif kind == "call":
            show_call(printer, trace, item)
        else:
            end = item["end"]
            answer = printer.cut(str(end.get("answer") or ""), MESSAGE_CHARS)
            printer.line(f"🏁 Run {item['number']} ended {end.get('status')}: {answer}")
            if end.get("error"):
                printer.line(f"❌ {end['error']}")
            printer.line(
                f"⏳ {end.get('elapsed_s', 0):.2f} s, {end.get('llm_calls', 0)} model calls, {tokens(end.get('usage'))}"
            )
            printer.line()
    for problem in trace.problems:
        printer.line(f"⚠️ {problem}")


def show_call(printer: Printer, trace: Trace, call: Call) -> None:
    request, depth = call.request, call.depth
    messages = request.get("messages") or []
    earlier, shared = continued_call(trace.calls, call)
    who = f"{call.agent} (sub-agent)" if depth else call.agent
    printer.line(f"── Call {call.number} · {who} · {request.get('model', '?')} ──", depth)
    if earlier is None:
        printer.line(f"{len(messages)} messages, a new conversation:", depth)
    else:
        printer.line(f"{len(messages)} messages, the first {shared} as in call {earlier.number}; new:", depth)
    for message in messages[shared:]:
        printer.message(message, depth)
    options = ", ".join(
        f"{name}={json.dumps(request[name], ensure_ascii=False)}"
        for name in ("tool_choice", "stop", "max_tokens", "temperature", "response_format")
        if name in request
    )
    tools = [str((t.get("function") or {}).get("name", "?")) for t in request.get("tools") or [] if isinstance(t, dict)]
    if tools:
        printer.line(f"tools: {', '.join(tools)}", depth)
    if options:
        printer.line(f"options: {options}", depth)
    show_reply(printer, call)
    for event in call.after:
        if event.get("type") == "tool_call":
            show_tool_call(printer, event)
        else:
            text = printer.cut(str(event.get("content", "")), OUTPUT_CHARS)
            printer.line(f"{NOTED_STEPS[event['kind']]} {event['kind']}: {text}", _depth(event))
    printer.line()


def show_reply(printer: Printer, call: Call) -> None:
    depth, reply = call.depth, call.reply
    seconds = f"{call.seconds:.2f} s" if isinstance(call.seconds, (int, float)) else "time unknown"
    if call.error:
        printer.line(f"⬅ no reply ({seconds}): {call.error}", depth)
        return
    if reply is None:
        printer.line("⬅ no reply recorded (the run stopped during the call)", depth)
        return
    finish = f", finish: {reply['finish_reason']}" if reply.get("finish_reason") else ""
    printer.line(f"⬅ reply ({seconds}, {tokens(reply.get('usage'))}{finish}):", depth)
    if reply.get("reasoning"):
        printer.line(f"[thinking] {printer.cut(str(reply['reasoning']), MESSAGE_CHARS)}", depth)
    printer.message({"role": "assistant", **reply}, depth)


def show_tool_call(printer: Printer, event: dict[str, Any]) -> None:
    depth = _depth(event)
    args = event.get("args")
    args_text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, default=str)
    result = event.get("result")
    if result is None:
        printer.line(f"🔧 {event.get('tool')}({args_text}) → no result recorded", depth)
        return
    verdict = "ok" if result.get("ok") else f"failed ({result.get('error') or 'error'})"
    seconds = f", {result['seconds']:.2f} s" if isinstance(result.get("seconds"), (int, float)) else ""
    output = printer.cut(str(result.get("output", "")), OUTPUT_CHARS)
    printer.line(f"🔧 {event.get('tool')}({args_text}) → {verdict}{seconds}: {output}", depth)


def tokens(usage: Any) -> str:
    if not isinstance(usage, dict) or not usage:
        return "tokens unknown"
    cached = usage.get("cached_tokens") or (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    return (
        f"{usage.get('prompt_tokens', 0)} prompt tokens ({cached} cached) + "
        f"{usage.get('completion_tokens', 0)} completion"
    )


def show_request(call: Call, out: TextIO, as_json: bool = False) -> None:
    """One request whole: every message in full, the tools' schemas and the options (or the JSON body)."""
    printer = Printer(out, full=True)
    request = call.request
    if as_json:
        printer.line(json.dumps(request, ensure_ascii=False, indent=2))
        return
    printer.line(
        f"Call {call.number} (run {call.run}, {call.agent}) to {request.get('model', '?')}: "
        f"{len(request.get('messages') or [])} messages"
    )
    for message in request.get("messages") or []:
        printer.message(message, 0, limit=0)
    for schema in request.get("tools") or []:
        printer.line(f"tool: {json.dumps(schema, ensure_ascii=False)}")
    for name, value in request.items():
        if name not in ("model", "messages", "tools"):
            printer.line(f"{name}: {json.dumps(value, ensure_ascii=False)}")


# -- the command ------------------------------------------------------------------------------------------
def add_trace_command(commands: Any) -> None:
    """Add ``vero trace`` to the ``vero`` command's subparsers."""
    parser = commands.add_parser(
        "trace",
        help="print a trace file as a readable, numbered conversation",
        description="Print a JSONL trace (written by --trace FILE) as numbered model "
        "calls: the new messages of each, its reply, tokens and time, and each tool "
        "call with its outcome.",
    )
    parser.add_argument("file", metavar="FILE", help="the trace, a JSON-lines file")
    parser.add_argument("--call", metavar="N", type=int, help="print request N whole")
    parser.add_argument("--json", action="store_true", help="with --call: print the request as its JSON body")
    parser.add_argument("--full", action="store_true", help="do not cut long messages and tool outputs")
    parser.set_defaults(func=cmd_trace, debug=False)


def cmd_trace(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        with open(args.file, encoding="utf-8", errors="backslashreplace") as file:
            lines = file.read().splitlines()
    except OSError as exc:
        print(f"vero trace: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    trace = read_trace(lines)
    if not trace.calls:
        what = "no events" if not trace.items else "no model requests (a trace written by an older vero?)"
        print(f"vero trace: {args.file} has {what}", file=sys.stderr)
        for problem in trace.problems:
            print(f"vero trace: {problem}", file=sys.stderr)
        return EXIT_FAILED
    if args.call is not None and not 1 <= args.call <= len(trace.calls):
        print(
            f"vero trace: there is no call {args.call}; {args.file} has calls 1 to {len(trace.calls)}", file=sys.stderr
        )
        return EXIT_USAGE
    try:
        if args.call is not None:
            show_request(trace.calls[args.call - 1], out, args.json)
        else:
            show_trace(trace, out, args.full)
    except BrokenPipeError:  # `vero trace FILE | head`: the reader has all it wanted
        _quiet_stdout()
    return EXIT_OK


def _quiet_stdout() -> None:
    """After a broken pipe: send what Python still flushes at exit to nowhere, not to an error message."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (a test's StringIO)
        pass
