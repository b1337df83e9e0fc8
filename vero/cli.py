"""The ``vero`` command: ``vero chat`` (a REPL), ``vero run "TASK"``, ``vero demo`` and ``vero trace FILE``.

The helpers the commands share with the REPL and the demo live in
``vero._console``; they are importable from here too, as before.  Nothing
imported at module level loads the ``openai`` SDK or an agent pattern, so
``vero --help`` stays fast.

Exit codes: 0 the run ended ``ok``; 1 any other status or an error;
2 a configuration or usage error (no endpoint configured, bad option).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import json
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any, NoReturn

from vero._console import (  # noqa: F401 - the names not used here are re-exported, as before the split
    AGENTS,
    DEFAULT_TOOLS,
    EXIT_CONFIG,
    EXIT_FAILED,
    EXIT_OK,
    HINTS,
    LOST_OUTPUT,
    LOST_STREAMS,
    SECRETS,
    START_SERVER,
    TOOL_NAMES,
    WAIT_NOTICE_S,
    CliError,
    agent_class,
    approve_everything,
    check_endpoint,
    command_logging,
    config_help,
    connection_hint,
    default_agent,
    error_line,
    import_agent,
    load_session_into,
    lost_output_code,
    make_agent,
    make_llm,
    model_watch,
    output_lost,
    parse_tools,
    print_error,
    print_result,
    refuse_without_terminal,
    say,
    say_traceback,
    secrets_hidden,
    step_printer,
    usage_line,
    watch_model,
    write_or_drop,
)
from vero._demo import run_demo
from vero._version import __version__
from vero.config import get_settings, known_keys
from vero.core.chat_openai import CONFIG_HELP
from vero.core.events import JsonlTrace
from vero.core.result import RunResult, Status, StepKind, empty_usage
from vero.core.secrets import hide_secrets, key_in_use, masked_json, url_credentials
from vero.core.text import BLANK, printable_json, redact_urls
from vero.errors import LLMConfigError
from vero.repl import Repl, ask_before_running
from vero.tools.schema import schema_problems
from vero.trace_view import add_trace_command

# --------------------------------------------------------------------------- the parser

_Commands = argparse._SubParsersAction  # what add_subparsers returns


class KeyHidingParser(argparse.ArgumentParser):
    """An ArgumentParser whose error messages show no key: argparse quotes the arguments it cannot
    place (``invalid choice: 'sk-...'``, ``unrecognized arguments: --api-key sk-...``), and it parses
    before the command masks anything (``secrets_hidden``).  Its subparsers are of this class too."""

    arguments: list[str] = []  # what it parses now: error() masks the --api-key values in them

    def parse_known_args(self, args=None, namespace=None):
        self.arguments = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        """argparse's usage and error lines (exit 2), with the keys masked and URLs redacted."""
        secrets = [*api_key_values(self.arguments), *known_keys()]
        super().error(hide_secrets(redact_urls(message), secrets))

    def _get_value(self, action: argparse.Action, arg_string: str):
        """An option's value; a blank one is a usage error, not the default: ``--model "$MODEL"`` with the
        variable unset would talk to a model the user did not choose.  (argparse's hook for each value.)"""
        if action.option_strings and not arg_string.strip(BLANK):
            hint = EMPTY_HINTS.get(action.dest, "")
            self.exit(
                EXIT_CONFIG, f"vero: {action.option_strings[-1]} is empty: give it a value{hint}, or leave it out\n"
            )
        return super()._get_value(action, arg_string)


EMPTY_HINTS = {"tools": " (none: no tools)"}  # how to say what an empty value meant before it was an error


def api_key_values(arguments: list[str]) -> list[str]:
    """The values ``arguments`` give an ``--api-key`` option, as ``--api-key K`` or ``--api-key=K``."""
    values = []
    for i, argument in enumerate(arguments):
        name, equals, value = argument.partition("=")
        if _names_api_key(name):
            values.append(value if equals else arguments[i + 1] if i + 1 < len(arguments) else "")
    return values


def _names_api_key(option: str) -> bool:
    """``--api-key``, the ``--api_key`` typo, or a prefix of them: argparse takes ``--api K`` for
    ``--api-key K``, and quotes an ambiguous ``--a=K`` whole."""
    return len(option) >= 3 and any(name.startswith(option) for name in ("--api-key", "--api_key"))


def build_parser() -> argparse.ArgumentParser:
    parser = KeyHidingParser(
        prog="vero",
        description="vero: small, readable LLM agents. Chat with an agent, run one task, or take the offline demo.",
        epilog="Configure the model with OPENAI_API_KEY / OPENAI_BASE_URL / MODEL_NAME (environment or .env), "
        "or --api-key / --base-url / --model.  Start with: vero demo",
    )
    parser.add_argument(
        "-V", "--version", action="version", version=f"vero {__version__}", help="print the version and exit"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    common = _common_options()
    _add_chat_command(commands, common)
    _add_run_command(commands, common)
    _add_demo_command(commands)
    add_trace_command(commands)
    return parser


def _common_options() -> argparse.ArgumentParser:
    """The options ``chat`` and ``run`` share: the agent and model, the run, MCP servers."""
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("agent and model")
    _add_agent_options(group)
    _add_tool_and_file_options(group)
    _add_run_behaviour_options(group)
    _add_mcp_options(common)
    return common


def _add_agent_options(group: argparse._ArgumentGroup) -> None:
    """Which agent, which model, and how to reach it."""
    group.add_argument(
        "--agent",
        metavar="NAME",
        type=_agent_spec,
        help=f"the agent pattern: {', '.join(AGENTS)} (default: react for a local model, chat, plain chat with "
        "native tool calls, for a hosted one), or your own Agent subclass as package.module:ClassName or "
        "file.py:ClassName",
    )
    group.add_argument("--model", metavar="M", help="model name (default: MODEL_NAME or gpt-4o-mini)")
    group.add_argument("--base-url", metavar="U", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1")
    group.add_argument(
        "--api-key",
        metavar="K",
        help="API key (default: OPENAI_API_KEY, the safer way: "
        "a key on the command line is visible to every local user in the process list); "
        "never printed",
    )
    group.add_argument(
        "--max-call-seconds",
        metavar="S",
        type=_seconds,
        help="the longest one model call may take, from connect to the last byte "
        "(default: MAX_CALL_SECONDS, else 300 + MAX_TOKENS / 2; 0: no limit)",
    )


def _add_tool_and_file_options(group: argparse._ArgumentGroup) -> None:
    """The tools, the loop budget, and the files a run reads or writes."""
    group.add_argument(
        "--tools",
        metavar="LIST",
        help=f"comma-separated built-in tools from {','.join(TOOL_NAMES)}, or 'none' (default: {DEFAULT_TOOLS})",
    )
    group.add_argument(
        "--max-turns",
        metavar="N",
        type=_positive_int,
        help="the agent's loop budget: model calls that may use tools (chat, default 10), "
        "Thought/Action turns (react, 10), critiques (reflection, 3), "
        "executed plan steps (plan, 20), attempts (reflexion, 3)",
    )
    group.add_argument("--load", metavar="FILE", help="start from a conversation saved with /save")
    group.add_argument("--trace", metavar="FILE", help="append every event to FILE as JSON lines")
    group.add_argument(
        "--record",
        metavar="FILE",
        help="write every model request and its reply to FILE, a cassette (docs/record-replay.md)",
    )
    group.add_argument(
        "--replay",
        metavar="FILE",
        help="answer every model request from the cassette FILE, offline; with --record FILE too (the same "
        "file): replay what it holds and record the rest",
    )


def _add_run_behaviour_options(group: argparse._ArgumentGroup) -> None:
    """Recovery, output, and whether vero asks before a tool that may change things."""
    group.add_argument(
        "--recovery",
        choices=["small-model", "off"],
        help="small-model: the recovery rules for small models (docs/recovery.md); off: no recovery at all "
        "(default: the general mechanisms for a local model, none for a hosted one)",
    )
    group.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="run: print the answer alone on stdout (the status is the exit code, errors go to stderr); "
        "chat: do not print the agent's steps",
    )
    group.add_argument("--debug", action="store_true", help="debug logging and full tracebacks (also DEBUG=1)")
    group.add_argument(
        "-y",
        "--yes",
        action="store_true",
        help="run every tool call without asking (default: vero asks before a tool that may change things "
        "runs; vero run with no terminal refuses such a call)",
    )


def _add_mcp_options(common: argparse.ArgumentParser) -> None:
    mcp = common.add_argument_group("MCP servers (their tools are added to the agent's; docs/mcp.md)")
    mcp.add_argument(
        "--mcp",
        metavar="CMD",
        action="append",
        default=[],
        help='a server to start, as one string: --mcp "npx -y @modelcontextprotocol/server-filesystem '
        '/some/dir"; or a Streamable HTTP URL (repeatable)',
    )
    mcp.add_argument(
        "--mcp-config",
        metavar="FILE",
        help='the servers of a JSON file: {"mcpServers": {NAME: {"command", "args", "env"} | {"url", "headers"}}} '
        '(or VS Code\'s {"servers": ...}, Zed\'s {"context_servers": ...}; comments allowed); '
        "${VAR} reads the environment",
    )
    mcp.add_argument(
        "--mcp-trust",
        metavar="NAME",
        action="append",
        default=[],
        help="take this server's word for which of its tools only read (readOnlyHint); otherwise every MCP "
        "tool is taken to change things (repeatable; NAME as in --mcp-config, or as vero names a --mcp server)",
    )


def _add_chat_command(commands: _Commands, common: argparse.ArgumentParser) -> None:
    chat = commands.add_parser(
        "chat",
        parents=[common],
        help="chat with an agent (interactive, multi-turn)",
        description="Chat with an agent. Type /help inside for the commands; bye to leave.",
    )
    chat.set_defaults(func=cmd_chat)


def _add_run_command(commands: _Commands, common: argparse.ArgumentParser) -> None:
    run = commands.add_parser(
        "run",
        parents=[common],
        help="run one task and print the answer",
        description="Run one task. Exit 0 if the run ended ok, 1 otherwise, 2 for a configuration error.",
    )
    run.add_argument("task", metavar="TASK", help="the task; '-' reads it from stdin")
    run.add_argument("--json", action="store_true", help="print only the RunResult as JSON")
    run.add_argument(
        "--output-schema",
        metavar="FILE",
        help="a JSON Schema file the answer must fit; the answer is printed as JSON (docs/typed-results.md)",
    )
    run.set_defaults(func=cmd_run)


def _add_demo_command(commands: _Commands) -> None:
    demo = commands.add_parser(
        "demo",
        help="an offline tour of the agents (scripted model, no key needed)",
        description="Run each agent on one task against a scripted local model.",
    )
    demo.add_argument(
        "--fast",
        action="store_true",
        help="no pauses between the steps (the default when the output is not a terminal)",
    )
    demo.add_argument("--debug", action="store_true", help="debug logging and full tracebacks")
    demo.add_argument(
        "--trace",
        metavar="FILE",
        help="append every event and model request to FILE as JSON lines (read it with: vero trace FILE)",
    )
    demo.set_defaults(func=cmd_demo)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds >= 0 (0: no limit), got {text!r}")
    return value


def _agent_spec(text: str) -> str:
    """``--agent``: a built-in name, or ``package.module:ClassName`` (imported when the command runs)."""
    if text in AGENTS:
        return text
    module, colon, name = text.rpartition(":")
    if colon and module.strip() and name.strip():
        return text
    raise argparse.ArgumentTypeError(
        f"unknown agent {text!r}: choose one of {', '.join(AGENTS)}, or give your own as package.module:ClassName"
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``vero`` console script and of ``python -m vero``."""
    for stream in (sys.stdout, sys.stderr):  # a console that cannot write a character (cp1252, ascii) escapes it
        if "utf" not in (getattr(stream, "encoding", None) or "utf").lower():
            with contextlib.suppress(AttributeError, ValueError):
                stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]  # a TextIOWrapper's
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    try:
        settings = get_settings()  # the environment and ./.env
    except ValueError as exc:  # e.g. TEMPERATURE=warm (the error shows no key: Settings.from_env)
        message = f"a setting in the environment or .env is not valid: {exc}"
        if getattr(args, "json", False):  # one JSON object, as for every usage error of vero run --json
            print_json(unbegun_result(_given_task(args), CliError(message)))
        say(f"vero: {message}", file=sys.stderr)
        return EXIT_CONFIG
    debug = args.debug = args.debug or settings.DEBUG
    secrets = [getattr(args, "api_key", None), settings.OPENAI_API_KEY, settings.TAVILY_API_KEY, settings.BOCHA_API_KEY]
    secrets += url_credentials(getattr(args, "base_url", None)) + url_credentials(settings.OPENAI_BASE_URL)
    for key in secrets:  # the search keys too: masked in the trace, the cassette and saved sessions
        key_in_use(key)
    with command_logging(debug, secrets), secrets_hidden(secrets):
        return run_command(args, debug)


def _encodes(text: str, stream: object) -> bool:
    """True when ``stream`` can write ``text`` as it is."""
    try:
        text.encode(getattr(stream, "encoding", None) or "utf-8")
    except UnicodeEncodeError:
        return False
    return True


def run_command(args, debug: bool) -> int:
    """Run the chosen command; each way it can fail is one short message and an exit code (a lost
    output: ``lost_output_code``)."""
    LOST_OUTPUT.clear()
    LOST_STREAMS.clear()
    with _signals_as_ctrl_c(args.command == "run") as caught:  # the chat's Ctrl-C asks twice: SIGTERM ends it
        code = _run_command(args, debug)
    write_or_drop(sys.stdout.flush)  # what is still buffered: a closed pipe says so here, not at exit
    if caught and code == 130:
        return 128 + caught[0]  # 143 for SIGTERM, as a process it ends would
    return lost_output_code() if LOST_OUTPUT and code != 130 else code  # Ctrl-C's own code, reader gone or not


@contextlib.contextmanager
def _signals_as_ctrl_c(wanted: bool = True) -> Iterator[list[int]]:
    """SIGTERM and SIGHUP (``timeout``, ``kill``, a CI job cancelled, a terminal closed) end ``vero run`` as Ctrl-C
    does: the run cancelled, ``--json`` printed, the MCP servers and what they started stopped.  Only where they
    would end the process (not under ``nohup``, which ignores SIGHUP).  Yields the signals caught."""
    caught: list[int] = []

    def interrupt(signum: int, frame: Any) -> None:
        caught.append(signum)
        raise KeyboardInterrupt

    signals = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    in_main = wanted and threading.current_thread() is threading.main_thread()  # where a handler may be set
    ending = [number for number in signals if in_main and signal.getsignal(number) is signal.SIG_DFL]
    before = {number: signal.signal(number, interrupt) for number in ending}
    try:
        yield caught
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


def _run_command(args, debug: bool) -> int:
    try:
        with contextlib.ExitStack() as args.exit_stack:  # the --mcp servers stop when the command ends
            return args.func(args)
    except KeyboardInterrupt:
        say("\nInterrupted.", file=sys.stderr)
        return 130
    except Exception as exc:
        if isinstance(exc, BrokenPipeError) and not LOST_OUTPUT:  # a print outside ``say`` (the demo's)
            output_lost(exc, sys.stdout)
        if LOST_OUTPUT:  # the output is gone: no message, no traceback (run_command ends quietly)
            return EXIT_FAILED
        if debug:
            say_traceback(exc)
        if isinstance(exc, LLMConfigError):  # no endpoint at all, or a key that cannot be sent
            say(config_help() if str(exc) == CONFIG_HELP else f"vero: {redact_urls(str(exc))}", file=sys.stderr)
            return EXIT_CONFIG
        if isinstance(exc, CliError):  # URLs redacted: one that does not parse has no credentials in SECRETS
            say(f"vero: {redact_urls(str(exc))}", file=sys.stderr)
            return EXIT_CONFIG
        say(f"❌ {error_line(exc)}" + ("" if debug else "  (--debug shows the traceback)"), file=sys.stderr)
        return EXIT_FAILED


def with_mcp_tools(args, tools: list):
    """``tools`` and the tools of the ``--mcp`` / ``--mcp-config`` servers, which stop when the command ends."""
    if not (args.mcp or args.mcp_config or args.mcp_trust):
        return tools
    from vero.tools.mcp import MCPError, servers_from_cli  # here: only a command with MCP servers loads the client

    try:
        return servers_from_cli(args, tools, args.exit_stack)
    except MCPError as exc:
        raise CliError(str(exc)) from None
    except ValueError as exc:  # a --mcp URL that cannot be read ("http://[::1")
        option = "--mcp" if args.mcp else f"--mcp-config {args.mcp_config}"
        raise CliError(f"{option}: {exc}") from None


# --------------------------------------------------------------------------- vero run


def _stdout_kept_for_the_result(args) -> contextlib.AbstractContextManager[object]:
    """Under ``--json`` or ``-q``, what the run prints (a tool's own ``print``: a progress line, a key) goes to
    stderr: stdout holds only the result, as a script reads it."""
    return contextlib.redirect_stdout(sys.stderr) if args.json or args.quiet else contextlib.nullcontext()


def cmd_run(args) -> int:
    """``vero run``.  Under ``--json``, a run that ends early still prints one JSON object before
    ``_run_command`` says why on stderr and exits: after Ctrl-C the result so far (status cancelled, exit
    130), after a usage error or an error before the run began a failed one (exit 2 or 1).  A script
    reading stdout as JSON gets what it reads."""
    agent, task = None, _given_task(args)
    try:
        task = read_task(args.task)
        if not task.strip(BLANK):  # as the agent sees it: a BOM, a NUL or a zero-width space alone is empty too
            raise CliError('the task is empty: give it as an argument (vero run "What is 2+2?"), or pipe it in with -')
        schema = read_output_schema(args.output_schema)  # before any server starts: a bad file is a usage error
        agent = run_agent(args)
        with _stdout_kept_for_the_result(args):
            agent.run(task, **({} if schema is None else {"output_type": schema}))
    except KeyboardInterrupt:
        if args.json:
            print_json(interrupted_result(agent, task))
        raise
    except Exception as exc:
        if args.json and not LOST_OUTPUT:
            print_json(unbegun_result(task, exc))
        raise
    result = as_json_answer(agent.last_result) if schema is not None else agent.last_result
    if args.json:
        print_error(result, debug=args.debug)
        print_json(result)
    elif args.quiet:
        print_answer(result, debug=args.debug)
    else:
        print_result(result, debug=args.debug)
    trace_failed = any(isinstance(c, JsonlTrace) and c.error for c in agent.events.callbacks)  # said once, as logged
    cassette = getattr(agent.llm, "cassette", None)
    record_failed = cassette is not None and cassette.error is not None  # said once too, as logged
    return EXIT_OK if result.status == Status.OK and not (trace_failed or record_failed) else EXIT_FAILED


def run_agent(args):
    """The agent ``vero run`` runs: its tools (the MCP servers' too), model, conversation and printers."""
    tools = with_mcp_tools(args, parse_tools(args.tools))
    llm = make_llm(args)
    agent = make_agent(args.agent or default_agent(llm), llm, tools, args, approve_tool=run_approver(args))
    if args.tools is not None and tools and not agent.uses_tools:
        say(f"vero: {type(agent).__name__} uses no tools; --tools {args.tools} is ignored.", file=sys.stderr)
    if args.load:
        load_session_into(agent, args.load)
    watch_model(llm)  # on stderr: --json keeps stdout for the result
    if not (args.quiet or args.json):
        agent.events.callbacks.append(step_printer(hide=(StepKind.FINAL, StepKind.APPROVAL)))  # the approver says it
    return agent


def print_json(result) -> None:
    """``--json``: ``result`` as one JSON object on stdout, the keys masked (in ASCII if stdout cannot write it)."""
    text = printable_json(masked_json(result.to_dict(), SECRETS))  # C0 controls are escaped by json already
    text = text if _encodes(text, sys.stdout) else json.dumps(json.loads(text))  # else the same JSON, in ASCII
    write_or_drop(functools.partial(print, text))


def interrupted_result(agent, task: str):
    """What ``--json`` prints after Ctrl-C: the run's result as far as it got (``Agent.run`` keeps it, status
    cancelled), or an empty cancelled one when the run had not begun (Ctrl-C while an MCP server starts)."""
    result = getattr(agent, "last_result", None)
    if result is None:
        return RunResult(task=task, status=Status.CANCELLED, usage=empty_usage(), error=KeyboardInterrupt())
    return dataclasses.replace(result, status=Status.CANCELLED)


def unbegun_result(task: str, error: BaseException) -> RunResult:
    """What ``--json`` prints for a run that never began: a usage error (an unknown tool, a missing file, a bad
    base URL: exit 2) or another error on the way: status failed, no steps, zero usage, and the error as the
    stderr line says it (URLs redacted; ``print_json`` masks the keys)."""
    if isinstance(error, (CliError, LLMConfigError)):
        shown = config_help().removeprefix("vero: ") if str(error) == CONFIG_HELP else redact_urls(str(error))
        error = type(error)(shown)
    return RunResult(task=task, status=Status.FAILED, usage=empty_usage(), error=error)


def _given_task(args) -> str:
    """The task as given on the command line (``-``, still to be read from stdin: none yet)."""
    return "" if args.task == "-" else args.task


def read_output_schema(path: str | None) -> dict | None:
    """``--output-schema FILE``: the JSON Schema (an object) the answer must fit; a usage error otherwise."""
    if path is None:
        return None
    import json

    from vero.core.files import read_regular

    try:  # a regular file only: a FIFO would wait forever, /dev/zero never end
        schema = json.loads(read_regular(path, MAX_INPUT_BYTES).decode("utf-8-sig"))  # BOM too, as --mcp-config
    except OSError as exc:
        raise CliError(f"cannot read the output schema {path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise CliError(f"the output schema {path} is not JSON: {str(exc)[:200] or 'nested too deeply'}") from None
    if not isinstance(schema, dict):
        raise CliError(f"the output schema {path} must be a JSON object (a JSON Schema), not {type(schema).__name__}")
    problems = schema_problems(schema)
    if problems:  # a keyword vero would read as something else, or skip: the answer would not be checked as meant
        raise CliError(f"the output schema {path} cannot be checked as written: {'; '.join(problems[:5])}")
    return schema


def as_json_answer(result):
    """A typed run's result with its answer as the output's JSON (the text stays when nothing fit)."""
    import json

    if result.output is None:
        return result
    return dataclasses.replace(result, answer=json.dumps(result.output, ensure_ascii=False))


def print_answer(result, debug: bool = False) -> None:
    """``vero run -q``: the answer alone on stdout, so that ``A=$(vero run -q ...)`` captures it (nothing
    for a failed run, nor for an answer that never fit ``--output-schema``: their text is no answer);
    the error, or a status other than ok, one line on stderr."""
    print_error(result, debug=debug)
    if result.status not in (Status.OK, Status.FAILED):
        say(f"vero: the run ended {result.status}", file=sys.stderr)
    if result.answer and result.status not in (Status.FAILED, Status.INVALID_OUTPUT):
        say(result.answer)


def run_approver(args):
    """Who approves a call of a tool that may change things in ``vero run``: nobody needs to with
    ``--yes``; else the user, asked on stderr (stdout keeps the answer or ``--json``) when stdin
    is a terminal the task was not read from; else the call is refused (``refuse_without_terminal``)."""
    if args.yes:
        return approve_everything
    if args.task != "-" and sys.stdin is not None and sys.stdin.isatty():
        return functools.partial(ask_before_running, out=sys.stderr)
    return refuse_without_terminal


MAX_INPUT_BYTES = 16 << 20  # a task on stdin or an output schema larger than this is refused, not read


def read_task(task: str) -> str:
    """The task argument; ``-`` reads it from stdin (a usage error when stdin is closed)."""
    if task != "-":
        return task
    if sys.stdin is None:  # `vero run - <&-`
        raise CliError("no task to run: standard input is closed; give the task as an argument or pipe it in")
    data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1) if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    if len(data) > MAX_INPUT_BYTES:
        raise CliError(f"the task on standard input is larger than {MAX_INPUT_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # a BOM (Notepad, PowerShell) is no part of the task
    except UnicodeDecodeError as exc:
        raise CliError(f"the task on standard input is not UTF-8 text (byte {exc.start})") from None


# --------------------------------------------------------------------------- vero chat


def cmd_chat(args) -> int:
    tools = with_mcp_tools(args, parse_tools(args.tools))
    llm = make_llm(args)
    repl = Repl(args, llm, tools)
    replaying = llm.cassette is not None and llm.cassette.replays_only  # nothing will be sent
    warning = check_endpoint(llm) if sys.stdin is not None and not replaying else None  # closed stdin: neither
    if warning:
        say(warning, file=sys.stderr)
    if args.load:
        load_session_into(repl.agent, args.load)
        say(f"Loaded {len(repl.agent.history)} messages from {args.load}.")
    return repl.loop()


# --------------------------------------------------------------------------- vero demo


def cmd_demo(args) -> int:
    return run_demo(fast=args.fast, trace=args.trace)
