"""The ``vero`` command: ``vero chat`` (a REPL), ``vero run "TASK"`` and ``vero demo``.

Only ``argparse`` is imported at module level, so ``vero --help`` stays fast;
the model client and the agents are imported inside the commands.

Exit codes: 0 the run ended ``ok``; 1 any other status or an error;
2 a configuration or usage error (no endpoint configured, bad option).
"""

from __future__ import annotations

import argparse
import logging
import os
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
    from vero import __version__

    parser.add_argument("-V", "--version", action="version", version=f"vero {__version__}",
                        help="print the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("agent and model")
    group.add_argument("--agent", metavar="NAME", type=_agent_spec, default="chat",
                       help=f"the agent pattern: {', '.join(AGENTS)} (default: chat, plain chat with native "
                       "tool calls), or your own Agent subclass as package.module:ClassName")
    group.add_argument("--model", metavar="M", help="model name (default: MODEL_NAME or gpt-4o-mini)")
    group.add_argument("--base-url", metavar="U", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1")
    group.add_argument("--api-key", metavar="K", help="API key (default: OPENAI_API_KEY); never printed")
    group.add_argument("--tools", metavar="LIST",
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
    demo.add_argument("--fast", action="store_true", help="no pauses between the steps (the default when "
                      "the output is not a terminal)")
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


def _agent_spec(text: str) -> str:
    """``--agent``: a built-in name, or ``package.module:ClassName`` (imported when the command runs)."""
    if text in AGENTS:
        return text
    module, colon, name = text.partition(":")
    if colon and module.strip() and name.strip():
        return text
    raise argparse.ArgumentTypeError(f"unknown agent {text!r}: choose one of {', '.join(AGENTS)}, "
                                     "or give your own as package.module:ClassName")


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


def config_help(message: str = "") -> str:
    """What to set when no endpoint is configured: four short lines (``message``, the
    library's longer text for Python users, is not repeated)."""
    return (
        "vero: no model endpoint is configured. Set, in the environment or ./.env:\n"
        "  OPENAI_API_KEY=sk-...   (plus OPENAI_BASE_URL for DeepSeek, Qwen, ...), or\n"
        "  OPENAI_BASE_URL=http://localhost:11434/v1  MODEL_NAME=llama3.1  (Ollama)\n"
        "or pass --base-url URL --model NAME.  No model at all?  Try: vero demo"
    )


HINTS = {  # what to try next, for the HTTP statuses a newcomer meets first
    400: " (Hint: a model without tool calling refuses requests with tools: try --tools none or --agent react.)",
    401: " (Hint: check OPENAI_API_KEY.)",
    404: " (Hint: check MODEL_NAME / --model and OPENAI_BASE_URL / --base-url; most servers end in /v1.)",
}


START_SERVER = "is the server running? (Ollama: `ollama serve`, llama.cpp: `llama-server -m MODEL.gguf`)"


def error_line(error: BaseException, limit: int = 300) -> str:
    """An error as one short line: LLMCallError messages already say what failed."""
    from vero.errors import LLMCallError

    text = str(error) if isinstance(error, LLMCallError) else f"run failed: {type(error).__name__}: {error}"
    text = " ".join(text.split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text + (HINTS.get(getattr(error, "status", None)) or connection_hint(error))


def connection_hint(error: BaseException) -> str:
    """For a model call that got no response: the URL, and what to try (the SDK only says 'Connection error.')."""
    cause = error.__cause__
    names = [type(c).__name__ for c in (cause, getattr(cause, "__cause__", None)) if c is not None]
    if not names or names[0] not in ("APITimeoutError", "APIConnectionError"):
        return ""
    url = _endpoint_of(cause)
    from vero.config import get_settings

    settings = get_settings()
    tries = f"{settings.MAX_RETRIES + 1} attempt{'s' if settings.MAX_RETRIES else ''}"
    if names[0] == "APITimeoutError":
        return (f" (Hint: no reply from {url} within TIMEOUT={settings.TIMEOUT:g} s, {tries} "
                f"(MAX_RETRIES={settings.MAX_RETRIES}); a slow local model needs a larger TIMEOUT, e.g. TIMEOUT=300.)")
    if "ConnectError" in names:
        return f" (Hint: cannot connect to {url}: {START_SERVER}.)"
    return f" (Hint: the connection to {url} failed, {tries} (MAX_RETRIES={settings.MAX_RETRIES}).)"


def _endpoint_of(exc) -> str:
    """The base URL an SDK error's request went to (``.../v1`` without ``/chat/completions``)."""
    request = getattr(exc, "request", None)
    url = str(getattr(request, "url", "") or "") or "the model endpoint"
    for suffix in ("/chat/completions", "/models"):
        if url.endswith(suffix):
            return url[: -len(suffix)]
    return url


def parse_tools(spec: str | None) -> list:
    """``"calculator,time"`` -> the built-in Tool objects; ``"none"`` -> []; ``None``: the default tools."""
    spec = DEFAULT_TOOLS if spec is None else spec
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
    """The agent class of pattern ``kind``: a built-in name ("chat", "react", ...) or
    ``package.module:ClassName`` (imported with the current folder on ``sys.path``)."""
    if kind in AGENTS:
        import vero.agents

        return getattr(vero.agents, AGENTS[kind])
    return import_agent(kind)


def import_agent(spec: str):
    """``package.module:ClassName`` -> the class; ``CliError`` unless it is an ``Agent`` subclass."""
    import importlib
    import inspect

    from vero.core.agent import Agent

    module_name, _, class_name = (part.strip() for part in spec.partition(":"))
    if not (module_name and class_name):
        raise CliError(f"unknown agent {spec!r}: choose one of {', '.join(AGENTS)}, "
                       "or give your own as package.module:ClassName")
    if os.getcwd() not in sys.path and "" not in sys.path:  # as `python -m` does
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise CliError(f"cannot import {spec}: no module named {exc.name!r} in the current folder "
                           f"({os.getcwd()}) or on sys.path") from exc
        raise CliError(f"cannot import {spec}: importing {module_name} failed: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # a syntax error or an exception in the user's module
        raise CliError(f"cannot import {spec}: importing {module_name} failed: {type(exc).__name__}: {exc}") from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        found = sorted(name for name, value in vars(module).items()
                       if inspect.isclass(value) and issubclass(value, Agent) and value.__module__ == module.__name__)
        hint = f"; its agents: {', '.join(found)}" if found else ""
        raise CliError(f"module {module_name} has no class {class_name!r}{hint}")
    if not (inspect.isclass(cls) and issubclass(cls, Agent)):
        what = "a class that does not subclass vero.Agent" if inspect.isclass(cls) else f"a {type(cls).__name__}"
        raise CliError(f"{spec} is not an Agent: it is {what}")
    return cls


def make_agent(kind: str, llm, tools: list, args, **options):
    """An agent of pattern ``kind`` with the CLI's options."""
    cls = agent_class(kind)
    if args.trace:
        options["trace"] = args.trace
    try:
        return cls("vero", llm, tools=tools, max_turns=args.max_turns, verbose=False, **options)
    except OSError as exc:  # the --trace file cannot be opened
        raise CliError(f"cannot write the trace file {args.trace}: {exc.strerror or exc}") from exc
    except TypeError as exc:  # a custom agent whose __init__ does not take the Agent arguments
        if kind in AGENTS:
            raise
        raise CliError(f"cannot create {kind}(\"vero\", llm, tools=..., max_turns=..., verbose=False): {exc}") from exc


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
    """The end of a run, for ``vero run`` and ``vero demo``: the error as one ❌ line on ``err``,
    then the footer ``ConsolePrinter`` prints (``footer_lines``) on ``out``: the answer with the
    status, the time, model calls and tokens.  A ``failed`` run's partial text is labelled as
    such, not printed as the Final Answer (it is not kept in the history).
    """
    from vero.core.events import footer_lines

    out = out or sys.stdout
    print_error(result, err, debug)
    for line in footer_lines(result.status, result.answer or ("" if result.status == "failed" else "(no answer)"),
                             result.elapsed_s, result.llm_calls, result.usage):
        print(line, file=out)


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


WAIT_NOTICE_S = 10.0  # no reply after this long (or a third of TIMEOUT, if shorter): say so


def model_watch(stream=None, before_line=None):
    """A listener for ``ChatOpenAI.callbacks``: when the model is slow to answer, one
    ``⏳ waiting`` line; on each retry, ``🔁 retrying (2/3): why``."""
    import threading

    from vero.core.events import ConsolePrinter

    class ModelWatch(ConsolePrinter):
        timer = None

        def on_llm_request(self, event):
            self.cancel()
            if event.data.get("attempt", 1) > 1:  # a retry has just said so
                return
            timeout = event.data.get("timeout")
            delay = min(WAIT_NOTICE_S, timeout / 3) if isinstance(timeout, (int, float)) and timeout else WAIT_NOTICE_S
            self.timer = threading.Timer(delay, self.waiting, args=(event.data, delay))
            self.timer.daemon = True
            self.timer.start()

        def on_llm_response(self, event):
            self.cancel()

        def on_llm_retry(self, event):
            self.cancel()
            if before_line:
                before_line()
            super().on_llm_retry(event)

        def waiting(self, data, delay):
            if before_line:
                before_line()
            timeout = data.get("timeout")
            limit = f"TIMEOUT={timeout:g} s" if isinstance(timeout, (int, float)) else "no TIMEOUT"
            self._line(f"⏳ waiting for {data.get('model')} at {data.get('url') or 'the endpoint'}: "
                       f"no reply after {delay:g} s (attempt {data.get('attempt')}/{data.get('max_attempts')}, "
                       f"{limit} each) …")

        def cancel(self):
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

    return ModelWatch(stream=stream or sys.stderr)


def watch_model(llm, stream=None, before_line=None):
    """Attach a ``model_watch`` to ``llm`` (a client without ``callbacks`` is left alone)."""
    callbacks = getattr(llm, "callbacks", None)
    if callbacks is None:
        return None
    watch = model_watch(stream, before_line)
    callbacks.append(watch)
    return watch


def check_endpoint(llm, timeout: float = 3.0) -> str | None:
    """``GET /models`` with a short timeout: a warning if the server is unreachable, refuses
    the key, or does not list the model; ``None`` if all looks fine or the server has no /models."""
    client = getattr(llm, "client", None)
    if client is None:
        return None
    import openai

    url = getattr(llm, "base_url", None) or "the model endpoint"
    try:
        page = client.with_options(timeout=timeout, max_retries=0).models.list()
        names = [getattr(model, "id", "") for model in getattr(page, "data", None) or []]
    except openai.APITimeoutError:
        return f"⚠️  {url} did not answer GET /models within {timeout:g} s; is it up and reachable?"
    except openai.APIConnectionError as exc:
        if "ConnectError" in type(exc.__cause__).__name__:
            return f"⚠️  cannot connect to {url}: {START_SERVER}"
        return f"⚠️  {url} failed on GET /models ({type(exc.__cause__ or exc).__name__}); is it an OpenAI-compatible server?"
    except openai.AuthenticationError:
        return f"⚠️  {url} refused the API key (HTTP 401): check OPENAI_API_KEY or --api-key"
    except Exception:  # e.g. a 404: some servers have no /models; the first message will tell
        return None
    model = getattr(llm, "model_name", None)
    if names and model and model not in names:
        listed = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        return (f"⚠️  {url} does not list the model {model!r} (it lists: {listed});\n"
                "    if requests fail, set MODEL_NAME or pass --model")
    return None


# --------------------------------------------------------------------------- vero run


def cmd_run(args) -> int:
    task = read_task(args.task)
    tools = parse_tools(args.tools)
    llm = make_llm(args)
    agent = make_agent(args.agent, llm, tools, args)
    if args.tools is not None and tools and not agent.uses_tools:
        print(f"vero: {type(agent).__name__} uses no tools; --tools {args.tools} is ignored.", file=sys.stderr)
    if args.load:
        load_session_into(agent, args.load)
    watch_model(llm)  # on stderr: --json keeps stdout for the result
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
    warning = check_endpoint(llm) if sys.stdin is not None else None  # closed stdin: nothing will be sent
    if warning:
        print(warning, file=sys.stderr)
    if args.load:
        load_session_into(repl.agent, args.load)
        print(f"Loaded {len(repl.agent.history)} messages from {args.load}.")
    return repl.loop()


# --------------------------------------------------------------------------- vero demo


def cmd_demo(args) -> int:
    from vero._demo import run_demo

    return run_demo(fast=args.fast)
