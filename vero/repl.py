"""The ``vero chat`` REPL: one agent kept across inputs, slash commands, readline.

Started by ``vero.cli``; it shares the command's helpers for building the
model, the agents and the printed results (``vero._console``).

The loop outlives its commands: an error in a slash command is one ❌ line,
Ctrl-C cancels what is running, and a closed stdin (``vero chat <&-``) ends
the chat like the end of input.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import unicodedata

from vero._console import (
    AGENTS,
    EXIT_OK,
    LOST_OUTPUT,
    SECRETS,
    CliError,
    approve_everything,
    default_agent,
    load_session_into,
    make_agent,
    print_error,
    say,
    step_printer,
    usage_line,
    watch_model,
)
from vero.core.agent_tool import calls_that_ran
from vero.core.files import at_home
from vero.core.result import Status, StepKind
from vero.core.secrets import StreamedSecrets, hide_secrets
from vero.core.text import INVISIBLE, clip

REPL_HELP = """\
Type a message and press Enter; the agent remembers the conversation.
  /help            this help
  /reset           forget the conversation
  /history         show the conversation so far
  /usage           tokens and model calls so far
  /save FILE       save the conversation as JSON
  /load FILE       continue a saved conversation
  /agent NAME      switch pattern, keeping the conversation ({agents},
                   or your own as package.module:ClassName)
  /tools           list the agent's tools
  /verbose on|off  show or hide the agent's steps
  bye, exit, quit or Ctrl-D leave; Ctrl-C cancels a running answer."""
EXIT_WORDS = {"bye", "exit", "quit", "/bye", "/exit", "/quit"}
APPROVAL_PROMPT = "Approve plan? [y]es / [n]o / or type feedback: "
TOOL_PROMPT = "Run it? [y]es / [n]o, or n and a reason for the model: "
TOOL_PROMPT_SHORTENED = "Run it? [y]es / [n]o, [v]iew all the arguments, or n and a reason for the model: "
HOLDS_A_KEY = "⚠️  The arguments hold one of your API keys (shown as ***): the tool would be sent that key."
SHOWN_ARGUMENT_CHARS = 2000  # longer arguments are shortened on screen, saying how much is not shown
SHOWN_VALUE_CHARS = 80  # the least of each value shown when the arguments are shortened
# A turn that adds nothing to the history (a failed run, by the documented rule) says so, on its ❌ line.
NOT_KEPT = " (your message was not kept: send it again)"
TAKE_NO_ARGUMENT = frozenset({"/help", "/reset", "/history", "/usage", "/tools"})
RAN_NOT_KEPT = " (your message was not kept: check what the calls above did before you send it again)"
TURN_NOT_KEPT = " (this turn was not kept in the conversation)"
NOT_UTF8 = "❌ your input is not UTF-8 text{at}; nothing was sent and the conversation is unchanged"


class Repl:
    """The ``vero chat`` loop: one agent kept across inputs."""

    def __init__(self, args, llm, tools: list):
        self.args = args
        self.llm = llm
        self.tools = tools
        self.verbose = not args.quiet
        self.kind = args.agent or default_agent(llm)
        self.agent = self._new_agent(self.kind)
        self.streamed: list[str] = []  # text deltas of the current answer
        self.mid_line = False  # a streamed line is open on the console
        self.call_ended = False  # a model call finished since the last streamed text
        self.turn_calls: list = []  # tool calls of the current turn: (name, args)
        self.shown = StreamedSecrets(SECRETS)  # the streamed answer as printed: a key split between deltas masked
        self.calls_of: list = []  # (assistant message in the history, its turn's tool calls), for /history
        watch_model(llm, sys.stdout, self.end_line)  # waiting and retry notices, in the transcript

    # -- agents ------------------------------------------------------------------
    def _new_agent(self, kind: str):
        options = {"approve": self.approve_plan} if kind == "plan" else {}
        approver = approve_everything if self.args.yes else self.approve_tool
        agent = make_agent(kind, self.llm, self.tools, self.args, approve_tool=approver, **options)
        agent.events.callbacks.append(self.on_event)
        self._set_verbose(agent, self.verbose, kind)
        return agent

    def _set_verbose(self, agent, on: bool, kind: str) -> None:
        agent.verbose = False  # removes any printer
        if on:
            # the answer is printed after the run; a streaming agent's thoughts were streamed
            # and the approval prompts say themselves what they will do with the user's reply
            hide = (StepKind.FINAL, StepKind.APPROVAL) + ((StepKind.THOUGHT,) if kind == "chat" else ())
            printer = step_printer(show_start=False, hide=hide)
            printer.before_line = self.end_line
            agent.events.callbacks.append(printer)

    def approve_plan(self, plan) -> bool | str:
        """The plan approval gate of ``--agent plan``: y, n, or feedback to replan.

        After the reply, one line says what happens next (the agent's own
        ``approval`` step is not printed in the REPL: it would repeat it).
        """
        self.end_line()
        if not self.verbose:  # otherwise the step printer has just shown it
            say("📋 Proposed plan:")
            say(plan.render())
        answer = ""
        while not answer:  # an empty line decides nothing: on a terminal the prompt again, piped in a refusal
            try:
                answer = read_line(APPROVAL_PROMPT, discard_typed_ahead=True).strip()
            except EOFError:
                say("\n🚫 No reply (end of input): the plan is refused.")
                return False
            if not answer and not _is_terminal(sys.stdin):  # piped in, an empty line: a refusal (no prompt again)
                say("")
                say("🚫 Plan refused (an empty reply); nothing was run.")
                return False
        if not _is_terminal(sys.stdin):  # the reply was not echoed: keep the transcript readable
            say(answer)
        if answer.lower() in ("y", "yes"):
            say("✅ Plan approved; running it.")
            return True
        if answer.lower() in ("n", "no"):
            say("🚫 Plan refused; nothing was run.")
            return False
        say("🔄 Sending your feedback to the planner for a new plan.")
        return answer

    def approve_tool(self, call) -> bool | str:
        """Asked before a call that needs approval runs (``ask_before_running``)."""
        self.end_line()
        return ask_before_running(call)

    # -- streaming -----------------------------------------------------------------
    def on_event(self, event) -> None:
        if event.type == "llm_call":
            self.call_ended = True
        elif event.type == "tool_call":
            self.turn_calls.append((event.data.get("tool"), event.data.get("args")))

    def on_token(self, delta: str) -> None:
        if self.call_ended:  # a new model call: its text starts on a new line
            self.end_line()
            self.call_ended = False
        if not self.mid_line:
            say("Assistant: ", end="")
            self.mid_line = True
        self.streamed.append(delta)
        say(self.shown.feed(delta), end="", flush=True)

    def end_line(self) -> None:
        if self.mid_line:
            say(self.shown.flush(), flush=True)
            self.mid_line = False

    # -- the loop ------------------------------------------------------------------
    def loop(self) -> int:
        history_file = _enable_readline()
        _keep_bytes_that_are_not_utf8(sys.stdin)  # told apart in ``ask``: a Latin-1 paste is not a model error
        for line in self.banner():
            say(line)
        interrupted = False  # the previous thing was a Ctrl-C: another one leaves
        try:
            while True:
                try:
                    line = read_line("You: ")
                except EOFError:
                    say()
                    break
                except UnicodeDecodeError:  # a stream ``_keep_bytes_that_are_not_utf8`` could not change
                    say(NOT_UTF8.format(at=""))
                    continue
                except KeyboardInterrupt:
                    if interrupted:
                        say()
                        break
                    say("\n(Ctrl-C again or bye to leave.)")
                    interrupted = True
                    continue
                text = line.strip()
                if not text:
                    continue
                interrupted = False
                if text.lower() in EXIT_WORDS:
                    break
                try:
                    if text.startswith("/"):
                        self.command(text)
                    else:
                        self.ask(text)
                except KeyboardInterrupt:
                    self.end_line()
                    say("⏹ Cancelled; the conversation is unchanged. (Ctrl-C again to leave.)")
                    interrupted = True
                if LOST_OUTPUT:  # nobody reads the replies any more (`vero chat | head`)
                    break
        finally:
            _save_readline(history_file)
        say("Bye.")
        return EXIT_OK

    def ask(self, text: str) -> None:
        bad = not_utf8_at(text)
        if bad is not None:  # nothing is sent: the model would be blamed for bytes it never got
            say(NOT_UTF8.format(at=f" (byte {bad})"))
            return
        self.streamed, self.mid_line, self.call_ended, self.turn_calls = [], False, False, []
        last_before = self.agent.history[-1] if self.agent.history else None  # /history pairs calls with what follows
        stream = self.kind == "chat"
        if stream:
            self.agent.run(text, on_token=self.on_token)
        else:
            self.agent.run(text)
        self.end_line()
        history = self.agent.history
        kept = bool(history) and history[-1] is not last_before
        if self.turn_calls and kept:
            self.calls_of.append((history[-1], self.turn_calls))  # only a turn that added to the history
        self._report(self.agent.last_result, kept)

    def _report(self, result, kept: bool) -> None:
        """The end of a turn: the answer unless it was streamed, and a ❌ or ⚠️ line for a run that did not end
        ok, saying when the turn was not kept (the next question would not see it)."""
        ran = [] if kept else calls_that_ran(result, lambda tool: not self.agent.tools.read_only(tool))
        if ran:  # the conversation will not say so: asked again, the model could make them again
            say(f"⚠️  Before the run ended, these calls ran: {'; '.join(ran)}")
        if result.status == Status.FAILED:  # its partial text is no answer and is not kept in the history
            print_error(result, sys.stdout, self.args.debug, note=RAN_NOT_KEPT if ran else NOT_KEPT)
            if result.answer:
                say(f"(partial, not kept): {result.answer}")
            return
        streamed = "".join(self.streamed).strip()
        if result.answer and not (streamed and streamed.endswith(result.answer.strip())):
            say(f"Assistant: {result.answer}")
        note = "" if kept else TURN_NOT_KEPT
        if result.error is not None:
            print_error(result, sys.stdout, self.args.debug, note=note)
        elif result.status != Status.OK:
            say(f"⚠️  The run ended with status {result.status}{note}.")

    def banner(self) -> list[str]:
        """The first lines of the chat, each at most 80 characters."""
        text = [
            f"vero chat: {type(self.agent).__name__}; {self._tools_label()}.",
            f"Model {self._model_label()}.",
            "Type /help for commands, bye to leave.",
        ]
        return [
            wrapped
            for line in text
            for wrapped in textwrap.wrap(line, 80, subsequent_indent="  ", break_on_hyphens=False)
        ]

    def _tools_label(self) -> str:
        if not self.agent.uses_tools:
            return "this pattern uses no tools"
        names = self.agent.tools.names()
        return f"tools: {', '.join(names)}" if names else "no tools"

    def _model_label(self) -> str:
        model = getattr(self.llm, "model_name", "?")
        url = getattr(self.llm, "shown_url", None)
        return f"{model}" + (f" at {url}" if url else "")

    # -- slash commands ---------------------------------------------------------------
    def command(self, text: str) -> None:
        name, _, rest = text.partition(" ")
        rest = rest.strip()
        handler = {
            "/help": self.cmd_help,
            "/reset": self.cmd_reset,
            "/history": self.cmd_history,
            "/usage": self.cmd_usage,
            "/save": self.cmd_save,
            "/load": self.cmd_load,
            "/agent": self.cmd_agent,
            "/tools": self.cmd_tools,
            "/verbose": self.cmd_verbose,
        }.get(name.lower())
        if handler is None:
            say(f"Unknown command {name}. Type /help for the list.")
            return
        if rest and name.lower() in TAKE_NO_ARGUMENT:  # "/reset please not" must not clear the conversation
            say(f"{name} takes nothing after it; nothing was done. Type /help for the list.")
            return
        try:
            handler(rest)
        except Exception as exc:  # a command's own bug must not end the chat and lose the conversation
            self.end_line()
            detail = " ".join(f"{type(exc).__name__}: {exc}".split())
            say(f"❌ {name} failed: {clip(detail, 300)}")

    def cmd_help(self, _rest: str) -> None:
        say(REPL_HELP.format(agents=", ".join(AGENTS)))

    def cmd_reset(self, _rest: str) -> None:
        self.agent.clear_history()
        say("Conversation cleared.")

    def cmd_history(self, _rest: str) -> None:
        history = self.agent.history
        if not history:
            say("(no conversation yet)")
            return
        for message in history:
            calls = [(c.name, c.arguments) for c in message.tool_calls or []]
            calls += next((made for answer, made in self.calls_of if answer is message), [])
            for name, args in calls:  # the tools the turn used, one line each: the name and the arguments
                say(f"  🔧 {name}({_one_line(args)})")
            if message.text or not calls:
                say(f"{message.role}: {message.text}")

    def cmd_usage(self, _rest: str) -> None:
        say(f"Usage so far: {usage_line(self.llm.total_usage, self.llm.calls)}.")

    def cmd_save(self, path: str) -> None:
        if not path:
            say("Usage: /save FILE")
            return
        try:
            self.agent.save(at_home(path))
        except OSError as exc:  # the error names the user's path, never the temporary file
            say(f"❌ cannot save to {path}: {exc.strerror or exc}")
            return
        except ValueError as exc:  # a NUL in the path
            say(f"❌ cannot save to {path}: {exc}")
            return
        say(f"Saved {len(self.agent.history)} messages to {path}.")

    def cmd_load(self, path: str) -> None:
        if not path:
            say("Usage: /load FILE")
            return
        try:
            load_session_into(self.agent, path)
        except CliError as exc:
            say(f"❌ {exc}")
            return
        say(f"Loaded {len(self.agent.history)} messages from {path}.")

    def cmd_agent(self, name: str) -> None:
        if not name:
            say(
                f"Current agent: {self.kind} ({type(self.agent).__name__}). "
                f"Usage: /agent NAME with NAME one of {', '.join(AGENTS)}, or package.module:ClassName."
            )
            return
        if name not in AGENTS and ":" not in name:
            say(
                f"Unknown agent {name!r}; choose one of {', '.join(AGENTS)}, or package.module:ClassName. "
                f"Still using {self.kind} ({type(self.agent).__name__})."
            )
            return
        history = list(self.agent.history)
        try:
            agent = self._new_agent(name)
        except CliError as exc:
            say(f"❌ {exc}. Still using {self.kind} ({type(self.agent).__name__}).")
            return
        self.kind, self.agent = name, agent
        self.agent.history = history
        note = "" if self.agent.uses_tools else " This pattern uses no tools."
        say(f"Switched to {type(self.agent).__name__}; the conversation is kept.{note}")

    def cmd_tools(self, _rest: str) -> None:
        if not self.agent.uses_tools:
            say(
                f"{type(self.agent).__name__} uses no tools: it answers from the model alone. "
                "/agent chat or /agent react use the tools."
            )
            return
        if not self.agent.tools:
            say("No tools. Start with --tools calculator,python,search,time to add some.")
            return
        for item in self.agent.tools:
            say(f"- {item.name}: {item.description}")

    def cmd_verbose(self, value: str) -> None:
        if value.lower() not in ("on", "off"):
            say(f"Verbose is {'on' if self.verbose else 'off'}. Usage: /verbose on|off")
            return
        self.verbose = value.lower() == "on"
        self._set_verbose(self.agent, self.verbose, self.kind)
        say(f"Verbose {'on' if self.verbose else 'off'}.")


def ask_before_running(call, out=None) -> bool | str:
    """The CLI's approver (``approve_tool=``): shows the tool's name and the arguments it will run
    with (``v`` shows them all when they were shortened), and asks on the terminal.  ``y`` or ``yes``
    runs the call; anything else refuses it: an empty line, ``n`` or ``no`` with no reason; other
    text is the reason the model reads (a leading ``n``/``no`` dropped).  The end of input refuses.
    Printed on ``out`` (default stdout) through ``say``: keys masked, control characters escaped."""
    out = out or sys.stdout
    say(f"🙋 {call.name} needs your approval. It would run with: {shown_arguments(call.arguments)}", file=out)
    written = json.dumps(call.arguments, ensure_ascii=False, default=str)
    if hide_secrets(written, SECRETS) != written:
        say(HOLDS_A_KEY, file=out)  # masked as everywhere, but the user must know what is sent
    shortened = len(written) > SHOWN_ARGUMENT_CHARS
    while True:  # until a verdict: "v" shows all the arguments, then asks again
        try:
            answer = read_reply(TOOL_PROMPT_SHORTENED if shortened else TOOL_PROMPT, out)
        except EOFError:
            say("\n🚫 No reply (end of input): not run.", file=out)
            return False
        if not _is_terminal(sys.stdin):  # the reply was not echoed: keep the transcript readable
            say(answer, file=out)
        if answer.strip().lower() not in ("v", "view"):
            break
        say(visible(json.dumps(call.arguments, ensure_ascii=False, indent=2, default=str)), file=out)
    verdict = tool_verdict(answer)
    say("✅ Approved; running it." if verdict is True else "🚫 Refused; the model is told.", file=out)
    return verdict


def tool_verdict(answer: str) -> bool | str:
    """``y``/``yes``: True; else a refusal: the reason typed (after an optional ``n``/``no``), or False."""
    text = answer.strip()
    if text.lower() in ("y", "yes"):
        return True
    first, _, rest = text.partition(" ")
    if first.lower().rstrip(":,.") in ("n", "no"):
        text = rest.strip()
    return text or False


def shown_arguments(arguments) -> str:
    """The arguments as JSON on one line.  Past ``SHOWN_ARGUMENT_CHARS``, each value is shortened to its share
    of them (an object's values each to a share of its), saying how much is not shown: a long first argument (a
    mail body) cannot push a short one (the recipient) off the screen."""
    text = visible(json.dumps(arguments, ensure_ascii=False, default=str))
    if len(text) <= SHOWN_ARGUMENT_CHARS:
        return text
    shown = _shared(arguments, SHOWN_ARGUMENT_CHARS)
    return shown + (" (v shows them all)" if "more characters not shown]" in shown else "")


def _shared(value, chars: int) -> str:
    """``value`` as JSON in about ``chars`` characters: an object's names whole (up to a share) and each of its values
    in its share, anything else cut at ``chars``."""
    if not isinstance(value, dict) or not value:
        return _shortened(visible(json.dumps(value, ensure_ascii=False, default=str)), chars)
    share = max(SHOWN_VALUE_CHARS, chars // len(value))
    names = (_shortened(visible(json.dumps(str(name), ensure_ascii=False)), share) for name in value)
    return "{" + ", ".join(f"{name}: {_shared(item, share)}" for name, item in zip(names, value.values())) + "}"


def _shortened(text: str, limit: int) -> str:
    hidden = len(text) - limit
    return text if hidden <= 0 else clip(text, limit, f" … [{hidden} more characters not shown]")


def visible(json_text: str) -> str:
    """JSON text with the characters a terminal shows as nothing (``INVISIBLE``, format characters, line and
    paragraph separators) written as ``\\uXXXX`` escapes: ``r-1\\u200b7`` is not ``r-17``.  The same JSON."""
    return "".join(
        json.dumps(c)[1:-1] if unicodedata.category(c) in ("Cf", "Zl", "Zp") or c in INVISIBLE else c for c in json_text
    )


def read_reply(prompt: str, out) -> str:
    """One line typed after ``prompt`` (printed on ``out``), what was typed before it discarded (``read_line``);
    EOFError at the end of input."""
    if out is sys.stdout:
        return read_line(prompt, discard_typed_ahead=True)
    _discard_typed_ahead()
    say(prompt, file=out, end="", flush=True)
    line = sys.stdin.readline() if sys.stdin is not None else ""
    if not line:
        raise EOFError
    return line.rstrip("\r\n")


def _one_line(args, limit: int = 200) -> str:
    compact = (",", ":")  # as a native call's arguments are usually written
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, default=str, separators=compact)
    text = " ".join(text.split())
    return clip(text, limit, "…", within=True)


def not_utf8_at(text: str) -> int | None:
    """The byte at which ``text``, as read from stdin, stops being UTF-8 (a byte that is not UTF-8 is read as a
    lone surrogate: a Latin-1 paste, a file piped in); None when all of it is UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return len(text[: exc.start].encode("utf-8"))
    return None


def _keep_bytes_that_are_not_utf8(stream) -> None:
    """Read bytes that are not UTF-8 from ``stream`` as lone surrogates (``surrogateescape``) rather than fail:
    ``ask`` refuses that line, and the lines after it are still read."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None and "utf" in (getattr(stream, "encoding", None) or "").lower():
        try:
            reconfigure(errors="surrogateescape")
        except (ValueError, OSError):  # a stream that cannot change now: the loop says so per line
            pass


def read_line(prompt: str, discard_typed_ahead: bool = False) -> str:
    """``input(prompt)``; a closed stdin (``sys.stdin is None``) is the end of input.  ``discard_typed_ahead``: only
    what is typed after the prompt shows, as an approval's answer must be (``_discard_typed_ahead``)."""
    if sys.stdin is None:
        say(prompt, end="", flush=True)
        raise EOFError
    if discard_typed_ahead:
        _discard_typed_ahead()
    return input(prompt)


def _discard_typed_ahead() -> None:
    """Forget what a terminal holds that was typed or pasted before an approval's question showed, as ``getpass``
    does: a pasted "yes" must not answer a question the user has not seen."""
    if not _is_terminal(sys.stdin):
        return
    try:
        import termios  # here: POSIX only

        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except (ImportError, OSError, ValueError):  # Windows, a stream with no descriptor
        pass


def _is_terminal(stream) -> bool:
    return stream is not None and stream.isatty()


def _enable_readline() -> str | None:
    """Line editing and input history, on terminals where readline exists."""
    if not _is_terminal(sys.stdin):
        return None
    try:
        import readline  # here: importing it changes how input() reads, which only a terminal chat wants
    except ImportError:  # e.g. Windows without pyreadline
        return None
    path = os.path.join(os.path.expanduser("~"), ".vero_history")
    try:
        readline.read_history_file(path)
    except OSError:
        pass
    readline.set_history_length(1000)
    return path


def _save_readline(path: str | None) -> None:
    """The input history to ``path``, a key the user pasted into a line masked (as the CLI's keys are)."""
    if path is None:
        return
    try:
        import readline  # loaded already by _enable_readline; here for the same reason

        for position in range(readline.get_current_history_length()):
            line = readline.get_history_item(position + 1) or ""
            if (masked := hide_secrets(line, SECRETS)) != line:
                readline.replace_history_item(position, masked)
        readline.write_history_file(path)
    except (ImportError, OSError):
        pass
