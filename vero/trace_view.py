"""``vero trace FILE``: a JSONL trace read back as a numbered conversation.

A trace (``--trace FILE``, ``Agent(trace=...)``) holds every event of a run,
and each model call as sent (``llm_start``: messages, tools, options) and as
answered (``llm_call``: text, tool calls, usage, finish reason).  The viewer
prints, for each model call, the messages that are new since the earlier call
it continues, the reply, its tokens and time, and each tool call with its
outcome; ``--call N`` prints one request whole (``--json``: as the JSON body).

Everything printed from the trace goes through ``printable``: a model's reply
or a tool's output cannot send control sequences to the terminal.  A trace is
data from anywhere: only a regular file is read, at most ``MAX_TRACE_BYTES`` of
it and ``MAX_LINE_BYTES`` per line; an event that cannot be read or shown
(malformed, nested too deeply) becomes one marked line and the view goes on.
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, TextIO

from vero.core.text import clip

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
MESSAGE_CHARS = 2000  # a message longer than this is cut in the overview (not with --call or --full)
OUTPUT_CHARS = 500  # a tool's output, in the overview
INDENT = "    "
NOTED_STEPS = {"warning": "⚠️", "error": "❌"}  # steps shown after the call they follow: why a loop re-asks
BIDI_CONTROLS = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))  # can reorder what a terminal shows
MAX_TRACE_BYTES = 128 * 2**20  # read of a trace at most; the rest is not shown (a marked line says so)
MAX_LINE_BYTES = 32 * 2**20  # one event at most: a longer line is skipped unread (a marked line says so)
READ_CHUNK = 2**20
MAX_DEPTH = 16  # sub-agent levels shown indented; a deeper level is shown at this one
MAX_NOTED = 100  # lines that could not be read, each noted; the rest are counted in one line
MAX_KEPT = 200_000  # events held in memory at most (runs, model calls, tool calls, warnings); then reading stops
# What a malformed event raises while it is read or shown (a value of the wrong type, nesting too deep).
MALFORMED = (TypeError, AttributeError, KeyError, IndexError, ValueError, RecursionError)


def printable(text: Any) -> str:
    """``text`` with terminal control characters (ESC, carriage return, C1 controls, bidi overrides) and lone
    surrogates escaped as ``\\x1b``, ``\\udcef`` ... ; newlines and tabs are kept.  (A local helper: vero has no
    shared one yet.)"""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(
        ch if ch in "\n\t" or not _is_control(ch) else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


def _is_control(ch: str) -> bool:
    """A character a terminal must not get as it is: a control, a bidi override, or half of a surrogate pair (a file
    name Python could not decode, which a trace keeps as ``\\udcef``: no terminal's encoding can write it)."""
    code = ord(ch)
    return code < 0x20 or 0x7F <= code < 0xA0 or code in BIDI_CONTROLS or 0xD800 <= code <= 0xDFFF


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
    # the earlier call whose messages this one repeats the most of, from the start, and how many
    continues: tuple[Call | None, int] = (None, 0)


@dataclass
class Trace:
    runs: list[dict[str, Any]] = field(default_factory=list)  # run_start events, each with its "end"
    calls: list[Call] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # in order: ("run", run) / ("call", Call) / ("end", run) / ("problem", text), each with its line number
    items: list[tuple[str, Any, int]] = field(default_factory=list)

    unnoted: int = 0  # lines that could not be read past the first MAX_NOTED

    def note(self, number: int, problem: str) -> None:
        """A line that could not be read: reported in place, and in ``problems`` (the first
        ``MAX_NOTED`` of them; the others are counted, then reported in one line at the end)."""
        if len(self.problems) >= MAX_NOTED:
            self.unnoted += 1
            return
        self.problems.append(f"line {number}: {problem}")
        self.items.append(("problem", self.problems[-1], number))


@dataclass
class Reading:
    """Where ``read_trace`` is: the current run, the current call, and the tool calls awaiting results."""

    run: dict[str, Any] | None = None
    call: Call | None = None
    pending_tools: dict[int, dict[str, Any]] = field(default_factory=dict)  # depth -> the tool call
    conversations: Conversations = field(default_factory=lambda: Conversations())
    kept: int = 0  # events held so far


def read_trace(lines: Iterable[str | Unread]) -> Trace:
    """The runs and model calls of a trace's lines (text, or ``Unread`` for a line not read); a line
    that is not an event, or a malformed one, is noted and skipped."""
    trace, reading = Trace(), Reading()
    for number, line in enumerate(lines, 1):
        if reading.kept >= MAX_KEPT:
            trace.note(number, f"more than {MAX_KEPT:,} events to show; the rest is not read")
            break
        if isinstance(line, Unread):
            trace.note(number, line.problem)
            continue
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except RecursionError:
            trace.note(number, "nested too deeply to read (skipped)")
            continue
        except ValueError:
            trace.note(number, "not a JSON event (skipped)")
            continue
        if not isinstance(event, dict):
            trace.note(number, "not a JSON event (skipped)")
            continue
        try:
            _take(trace, reading, event, number)
        except MALFORMED as exc:
            trace.note(number, f"a malformed {_kind(event)} event (skipped): {_reason(exc)}")
    if trace.unnoted:
        trace.problems.append(f"{trace.unnoted:,} more lines could not be read (skipped)")
        trace.items.append(("problem", trace.problems[-1], 0))
    return trace


def _take(trace: Trace, reading: Reading, event: dict[str, Any], number: int) -> None:
    """Add one event to the trace."""
    kind, depth, call = event.get("type"), _depth(event), reading.call
    reading.kept += 1  # an upper bound: some events are not held
    if kind == "run_start" and depth == 0:
        reading.run = {**event, "number": len(trace.runs) + 1}
        trace.runs.append(reading.run)
        trace.items.append(("run", reading.run, number))
    elif kind == "llm_start":
        request = event.get("request")
        if not isinstance(request, dict):
            raise TypeError("its request is not an object")
        if not isinstance(request.get("messages", []), list):
            raise TypeError("its messages are not a list")
        reading.call = Call(
            len(trace.calls) + 1,
            reading.run["number"] if reading.run else 0,
            str(event.get("subagent") or event.get("agent", "")),
            depth,
            request,
        )
        reading.conversations.add(reading.call)
        trace.calls.append(reading.call)
        trace.items.append(("call", reading.call, number))
    elif kind in ("llm_call", "llm_error") and call is not None and call.reply is None and call.error is None:
        reply = event.get("reply") or {"usage": event.get("usage")}
        if not isinstance(reply, dict):
            raise TypeError("its reply is not an object")
        call.reply, call.error, call.seconds = reply, event.get("error"), event.get("seconds")
    elif kind == "tool_call" and call is not None:
        reading.pending_tools[depth] = {**event}
        call.after.append(reading.pending_tools[depth])
    elif kind == "tool_result" and depth in reading.pending_tools:
        reading.pending_tools.pop(depth)["result"] = event
    elif kind == "step" and event.get("kind") in ("warning", "error") and call is not None:
        call.after.append(event)
    elif kind == "run_end" and depth == 0 and reading.run is not None:
        reading.run["end"] = event
        trace.items.append(("end", reading.run, number))
        reading.call = None


def _kind(event: dict[str, Any]) -> str:
    kind = event.get("type")
    return clip(kind, 40, "…") if isinstance(kind, str) else "untyped"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return clip(f"{type(exc).__name__}: {exc}", 200, "…")


def _depth(event: dict[str, Any]) -> int:
    """The event's sub-agent level, 0 to ``MAX_DEPTH`` (a trace may say anything)."""
    depth = event.get("depth", 0)
    return min(max(depth, 0), MAX_DEPTH) if isinstance(depth, int) else 0


class Conversations:
    """Which earlier call each call continues, found as the calls are read; equal messages are kept once.

    Linear in the trace's size: each message is read once into an id (equal messages, equal ids), and
    each opening of a conversation is one id made of its parent's and its last message's; a call then
    walks its own openings while an earlier call had them.  A conversation of n calls repeats its
    messages n times over in the trace, but holds each of them once in memory here.
    """

    def __init__(self) -> None:
        self.message_ids: dict[str, int] = {}
        self.kept: dict[int, Any] = {}  # message id -> the one message object kept for it
        self.unequal = itertools.count(-1, -1)  # ids for messages that equal no other
        self.prefix_ids: dict[tuple[int, int], int] = {}
        self.latest_with: dict[int, Call] = {}  # opening id -> the latest call whose messages begin with it

    def add(self, call: Call) -> None:
        """Set ``call.continues``: the earlier call whose messages it repeats the most of, from the start
        (the latest of equals), and how many."""
        messages = call.request.get("messages") or []
        prefixes, parent = [], 0
        for index, message in enumerate(messages):
            key = _message_key(message)
            if key is None:
                message_id = next(self.unequal)
            else:
                message_id = self.message_ids.setdefault(key, len(self.message_ids))
                messages[index] = self.kept.setdefault(message_id, message)
            parent = self.prefix_ids.setdefault((parent, message_id), len(self.prefix_ids) + 1)
            prefixes.append(parent)
        shared = 0
        while shared < len(prefixes) and prefixes[shared] in self.latest_with:
            shared += 1
        call.continues = (self.latest_with[prefixes[shared - 1]], shared) if shared else (None, 0)
        for prefix in prefixes:
            self.latest_with[prefix] = call


_KEY_WRITER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)  # made once: it is used per message


def _message_key(message: Any) -> str | None:
    """One message as text that is equal exactly for equal messages; None when it cannot be written
    (nested too deeply): such a message equals no other."""
    try:
        return _KEY_WRITER.encode(message)
    except (ValueError, TypeError, RecursionError):
        return None


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
    """The whole trace: per run its task, per model call its new messages, reply and tool calls, then the end.

    Each item is written whole or not at all: one whose events are malformed becomes a marked line.
    """
    for kind, item, number in trace.items:
        shown = io.StringIO()
        try:
            show_item(Printer(shown, full), kind, item)
        except MALFORMED as exc:
            what = f"call {item.number}" if kind == "call" else f"the run's {'start' if kind == 'run' else 'end'}"
            Printer(out).line(f"⚠️ line {number}: {what} could not be shown, a malformed event: {_reason(exc)}")
            continue
        out.write(shown.getvalue())


def show_item(printer: Printer, kind: str, item: Any) -> None:
    """One item of the trace: a run's start, a model call, a run's end, or a line that could not be read."""
    if kind == "run":
        printer.line(f"━━ Run {item['number']}: {item.get('cls', 'Agent')} `{item.get('agent', '')}` ━━")
        printer.line(f"👤 Task: {printer.cut(str(item.get('task', '')), MESSAGE_CHARS)}")
        printer.line()
    elif kind == "call":
        show_call(printer, item)
    elif kind == "problem":
        printer.line(f"⚠️ {item}")
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


def show_call(printer: Printer, call: Call) -> None:
    request, depth = call.request, call.depth
    messages = request.get("messages") or []
    earlier, shared = call.continues
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
        with open_trace(args.file) as file:
            trace = read_trace(trace_lines(file))
    except OSError as exc:
        print(f"vero trace: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
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
            shown = io.StringIO()  # whole or not at all
            show_request(trace.calls[args.call - 1], shown, args.json)
            out.write(shown.getvalue())
        else:
            show_trace(trace, out, args.full)
    except BrokenPipeError:  # `vero trace FILE | head`: the reader has all it wanted
        _quiet_stdout()
    except MALFORMED as exc:  # --call N of a malformed request
        what = "the trace" if args.call is None else f"call {args.call}"
        print(f"vero trace: {what} could not be shown, a malformed event: {_reason(exc)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


# -- the file ---------------------------------------------------------------------------------------------
class NotATraceFile(OSError):
    """The path names something other than a regular file: a FIFO, a device, a folder..."""


def open_trace(path: str) -> BinaryIO:
    """``path`` opened for reading when it is a regular file; ``NotATraceFile`` (an OSError) at once for a
    FIFO, a device or a folder.  Opened without waiting (a FIFO with no writer would block the open),
    then checked on the open file itself, so a file swapped in between is checked too."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotATraceFile(f"not a regular file ({_file_kind(mode)}); a trace is a file written by --trace")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _file_kind(mode: int) -> str:
    kinds = {stat.S_ISDIR: "a folder", stat.S_ISFIFO: "a FIFO", stat.S_ISCHR: "a device", stat.S_ISSOCK: "a socket"}
    return next((name for test, name in kinds.items() if test(mode)), "not a plain file")


@dataclass(frozen=True)
class Unread:
    """A line of the trace that was not read, and why."""

    problem: str


def trace_lines(file: BinaryIO) -> Iterator[str | Unread]:
    """The lines of a trace as text, at most ``MAX_LINE_BYTES`` each (a longer one is an ``Unread``,
    skipped without keeping it) and ``MAX_TRACE_BYTES`` in all (then an ``Unread`` says the rest is not
    read).  Split at newlines only: a JSON string may hold U+2028 and other line separators."""
    total = 0
    while total < MAX_TRACE_BYTES:
        line = file.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        total += len(line)
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            total += _skip_line(file, MAX_TRACE_BYTES - total)
            yield Unread(f"longer than {MAX_LINE_BYTES // 2**20} MiB (skipped unread)")
        else:
            yield line.decode("utf-8", errors="backslashreplace")
    if file.read(1):
        yield Unread(f"the trace goes on past {MAX_TRACE_BYTES // 2**20} MiB; the rest is not read")


def _skip_line(file: BinaryIO, budget: int) -> int:
    """Read past the rest of a line (at most ``budget`` bytes) without keeping it; the bytes read."""
    skipped = 0
    while skipped < budget:
        chunk = file.readline(min(READ_CHUNK, budget - skipped))
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            break
    return skipped


def _quiet_stdout() -> None:
    """After a broken pipe: send what Python still flushes at exit to nowhere, not to an error message."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (a test's StringIO)
        pass
