"""The ``vero`` command: ``vero chat`` (a REPL), ``vero run "TASK"`` and ``vero demo``.

Only ``argparse`` is imported at module level, so ``vero --help`` stays fast;
the model client and the agents are imported inside the commands.

Exit codes: 0 the run ended ``ok``; 1 any other status or an error;
2 a configuration or usage error (no endpoint configured, bad option).
"""

from __future__ import annotations

import argparse
import logging
import sys

# --agent NAME -> the agent class in vero.agents
AGENTS = {
    "chat": "ToolCallingAgent",
    "react": "ReActAgent",
    "reflection": "BasicReflectionAgent",
    "plan": "PlanExecuteAgent",
    "reflexion": "ReflexionAgent",
}
TOOL_NAMES = ("calculator", "python", "search", "time")
DEFAULT_TOOLS = "calculator,time"

EXIT_OK, EXIT_FAILED, EXIT_CONFIG = 0, 1, 2

log = logging.getLogger("vero.cli")


class CliError(Exception):
    """A problem with what the user asked for; printed as one line, exit 2."""


# --------------------------------------------------------------------------- the parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vero",
        description="vero: small, readable LLM agents. Chat with an agent, run one task, or take the offline demo.",
        epilog="Configure the model with OPENAI_API_KEY / OPENAI_BASE_URL / MODEL_NAME (environment or .env), "
        "or --api-key / --base-url / --model.  Start with: vero demo",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("agent and model")
    group.add_argument("--agent", choices=list(AGENTS), default="chat",
                       help="the agent pattern (default: chat, plain chat with native tool calls)")
    group.add_argument("--model", metavar="M", help="model name (default: MODEL_NAME or gpt-4o-mini)")
    group.add_argument("--base-url", metavar="U", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1")
    group.add_argument("--api-key", metavar="K", help="API key (default: OPENAI_API_KEY); never printed")
    group.add_argument("--tools", metavar="LIST", default=DEFAULT_TOOLS,
                       help=f"comma-separated built-in tools from {','.join(TOOL_NAMES)}, "
                       f"or 'none' (default: {DEFAULT_TOOLS})")
    group.add_argument("--max-turns", metavar="N", type=_positive_int,
                       help="the agent's loop budget: model calls that may use tools (chat, default 10), "
                       "Thought/Action turns (react, 10), critiques (reflection, 3), "
                       "executed plan steps (plan, 20), attempts (reflexion, 3)")
    group.add_argument("--load", metavar="FILE", help="start from a conversation saved with /save")
    group.add_argument("--trace", metavar="FILE", help="append every event to FILE as JSON lines")
    group.add_argument("-q", "--quiet", action="store_true", help="do not print the agent's steps")
    group.add_argument("--debug", action="store_true", help="debug logging and full tracebacks (also DEBUG=1)")

    chat = commands.add_parser("chat", parents=[common], help="chat with an agent (interactive, multi-turn)",
                               description="Chat with an agent. Type /help inside for the commands; bye to leave.")
    chat.set_defaults(func=cmd_chat)

    run = commands.add_parser("run", parents=[common], help="run one task and print the answer",
                              description="Run one task. Exit 0 if the run ended ok, 1 otherwise, "
                              "2 for a configuration error.")
    run.add_argument("task", metavar="TASK", help="the task; '-' reads it from stdin")
    run.add_argument("--json", action="store_true", help="print only the RunResult as JSON")
    run.set_defaults(func=cmd_run)

    demo = commands.add_parser("demo", help="an offline tour of the agents (scripted model, no key needed)",
                               description="Run each agent on one task against a scripted local model.")
    demo.add_argument("--debug", action="store_true", help="debug logging and full tracebacks")
    demo.set_defaults(func=cmd_demo)
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``vero`` console script and of ``python -m vero``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    from vero.config import get_settings

    try:
        settings = get_settings()  # the environment and ./.env
    except ValueError as exc:  # e.g. TEMPERATURE=warm
        print(f"vero: a setting in the environment or .env is not valid: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    debug = args.debug = args.debug or settings.DEBUG
    if debug:
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        return 130
    except Exception as exc:
        from vero.errors import LLMConfigError

        if debug:
            import traceback

            traceback.print_exc()
        if isinstance(exc, LLMConfigError):
            print(config_help(str(exc)), file=sys.stderr)
            return EXIT_CONFIG
        if isinstance(exc, CliError):
            print(f"vero: {exc}", file=sys.stderr)
            return EXIT_CONFIG
        print(f"❌ {error_line(exc)}" + ("" if debug else "  (--debug shows the traceback)"), file=sys.stderr)
        return EXIT_FAILED


# --------------------------------------------------------------------------- shared helpers


def config_help(message: str) -> str:
    """The unconfigured message: what to set, in one paragraph."""
    return (
        f"{message} On the command line you can also pass --base-url URL (and --api-key KEY), e.g. "
        "`vero chat --base-url http://localhost:11434/v1 --model llama3.1` for Ollama. "
        "To see vero work without any model, run `vero demo`."
    )


HINTS = {  # what to try next, for the HTTP statuses a newcomer meets first
    400: " (Hint: a model without tool calling refuses requests with tools: try --tools none or --agent react.)",
    401: " (Hint: check OPENAI_API_KEY.)",
    404: " (Hint: check MODEL_NAME / --model and OPENAI_BASE_URL / --base-url; most servers end in /v1.)",
}


def error_line(error: BaseException, limit: int = 300) -> str:
    """An error as one short line: LLMCallError messages already say what failed."""
    from vero.errors import LLMCallError

    text = str(error) if isinstance(error, LLMCallError) else f"run failed: {type(error).__name__}: {error}"
    text = " ".join(text.split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text + HINTS.get(getattr(error, "status", None), "")


def parse_tools(spec: str | None) -> list:
    """``"calculator,time"`` -> the built-in Tool objects; ``"none"`` -> []."""
    names = [n.strip() for n in (spec or "").split(",") if n.strip()]
    if names in ([], ["none"]):
        return []
    unknown = [n for n in names if n not in TOOL_NAMES]
    if unknown:
        raise CliError(f"unknown tool(s) {', '.join(unknown)}; choose from {', '.join(TOOL_NAMES)} or 'none'")
    from vero.tool.builtin import BUILTIN_TOOLS

    return [BUILTIN_TOOLS[n] for n in names]


def make_llm(args):
    """The ChatOpenAI client from the options and the settings (LLMConfigError if unconfigured)."""
    from vero.config import get_settings
    from vero.core.chat_openai import ChatOpenAI

    log.debug("settings: %r", get_settings())  # the masked repr: keys show as ***
    llm = ChatOpenAI(model_name=args.model, api_key=args.api_key, base_url=args.base_url)
    log.debug("model client: %r", llm)
    return llm


def agent_class(kind: str):
    """The agent class of pattern ``kind`` ("chat", "react", ...)."""
    import vero.agents

    return getattr(vero.agents, AGENTS[kind])


def make_agent(kind: str, llm, tools: list, args, **options):
    """An agent of pattern ``kind`` with the CLI's options."""
    if args.trace:
        options["trace"] = args.trace
    try:
        return agent_class(kind)("vero", llm, tools=tools, max_turns=args.max_turns, verbose=False, **options)
    except OSError as exc:  # the --trace file cannot be opened
        raise CliError(f"cannot write the trace file {args.trace}: {exc.strerror or exc}") from exc


def load_session_into(agent, path: str) -> None:
    from vero.errors import SessionFormatError

    try:
        agent.load(path)
    except SessionFormatError as exc:
        raise CliError(str(exc)) from exc


def usage_line(usage: dict, calls: int) -> str:
    return (f"{calls} model call{'s' if calls != 1 else ''}, {usage.get('total_tokens', 0)} tokens "
            f"({usage.get('prompt_tokens', 0)} prompt + {usage.get('completion_tokens', 0)} completion)")


def print_error(result, err=None, debug: bool = False) -> None:
    """A run's error as one ❌ line on ``err`` (with ``debug``, its traceback on stderr first)."""
    err = err or sys.stderr
    if result.error is not None:
        if debug:
            import traceback

            traceback.print_exception(result.error)
        print(f"❌ {error_line(result.error)}", file=err)
    elif result.status == "failed":
        print("❌ the run failed", file=err)


def print_result(result, out=None, err=None, debug: bool = False) -> None:
    """The end of a run, for ``vero run`` and ``vero demo``: the answer, status, usage and time.

    The error, if any, is one ❌ line on ``err``.  A ``failed`` run's partial
    text is not an answer (it is not kept in the history), so it is labelled
    as such instead of printed as the Final Answer.
    """
    out = out or sys.stdout
    print_error(result, err, debug)
    if result.status != "failed":
        print(f"🏁 Final Answer: {result.answer or '(no answer)'}", file=out)
    elif result.answer:
        print(f"(partial, not kept): {result.answer}", file=out)
    print(f"📊 Status: {result.status} ({usage_line(result.usage, result.llm_calls)})", file=out)
    print(f"⏳ Elapsed: {result.elapsed_s:.1f} s", file=out)


def step_printer(show_start: bool = True, hide: tuple = (), stream=None):
    """A ConsolePrinter for the CLI: the steps, but not its own end-of-run lines
    (``print_result`` or the REPL prints those).  Top-level steps of the kinds in
    ``hide`` are not shown (the REPL prints or streams those itself)."""
    from vero.core.events import ConsolePrinter

    class StepPrinter(ConsolePrinter):
        before_line = None  # set by the REPL to end a streamed line before a step

        def on_run_start(self, event):
            if show_start:
                super().on_run_start(event)

        def on_step(self, event):
            if event.data.get("depth", 0) == 0 and event.data["kind"] in hide:
                return
            if self.before_line:
                self.before_line()
            super().on_step(event)

        def on_run_end(self, event):
            pass

    return StepPrinter(stream=stream)


# --------------------------------------------------------------------------- vero run


def cmd_run(args) -> int:
    task = read_task(args.task)
    tools = parse_tools(args.tools)
    llm = make_llm(args)
    agent = make_agent(args.agent, llm, tools, args)
    if args.load:
        load_session_into(agent, args.load)
    if not (args.quiet or args.json):
        agent.events.callbacks.append(step_printer(hide=("final",)))
    agent.run(task)
    result = agent.last_result
    if args.json:
        print_error(result, debug=args.debug)
        print(result.to_json())
    else:
        print_result(result, debug=args.debug)
    return EXIT_OK if result.status == "ok" else EXIT_FAILED


def read_task(task: str) -> str:
    """The task argument; ``-`` reads it from stdin (a usage error when stdin is closed)."""
    if task != "-":
        return task
    if sys.stdin is None:  # `vero run - <&-`
        raise CliError("no task to run: standard input is closed; give the task as an argument or pipe it in")
    return sys.stdin.read()


# --------------------------------------------------------------------------- vero chat


def cmd_chat(args) -> int:
    from vero.repl import Repl

    tools = parse_tools(args.tools)
    llm = make_llm(args)
    repl = Repl(args, llm, tools)
    if args.load:
        load_session_into(repl.agent, args.load)
        print(f"Loaded {len(repl.agent.history)} messages from {args.load}.")
    return repl.loop()


# --------------------------------------------------------------------------- vero demo


def cmd_demo(args) -> int:
    from vero._demo import run_demo

    return run_demo()
