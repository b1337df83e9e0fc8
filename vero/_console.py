"""What the ``vero`` command, its chat REPL and its demo share: building the model
client and the agents from the options, and printing steps, results and errors.

The imports go one way: ``vero.cli`` imports ``vero.repl`` and ``vero._demo``,
and all three import their shared helpers from here.  Importing this module
loads neither the ``openai`` SDK nor an agent pattern, so ``vero --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import json
import logging
import os
import re
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import vero.agents  # the package only: each agent pattern loads on first use
from vero.config import get_settings, unread_lines
from vero.core.agent import Agent
from vero.core.capabilities import hosted_model
from vero.core.chat_openai import ChatOpenAI, base_url_problem
from vero.core.events import ConsolePrinter, footer_lines
from vero.core.files import at_home
from vero.core.result import Status
from vero.core.secrets import hide_secrets
from vero.core.secrets import mask_secret as mask_secret  # the one masking rule for keys
from vero.core.text import clip, printable, redact_url, redact_urls
from vero.errors import LLMCallError, SessionFormatError

# --agent NAME -> the agent class in vero.agents
AGENTS = {
    "chat": "ToolCallingAgent",
    "react": "ReActAgent",
    "reflection": "BasicReflectionAgent",
    "plan": "PlanExecuteAgent",
    "reflexion": "ReflexionAgent",
}
TOOL_NAMES = ("calculator", "python", "search", "time")


def default_agent(llm) -> str:
    """``--agent`` when none is given: ``react`` (text ReAct) for a local model, ``chat`` for a hosted one.

    On the held-out benchmark a local 1.5B model solved 54 of 80 tasks with text ReAct and 19 with
    plain chat over native tool calls (docs/benchmarks.md); a hosted model's API is built for native calls."""
    return "chat" if hosted_model(llm) else "react"


DEFAULT_TOOLS = "calculator,time"

EXIT_OK, EXIT_FAILED, EXIT_CONFIG = 0, 1, 2

log = logging.getLogger("vero.cli")
# The keys of the running command (``secrets_hidden``): masked in everything it prints.
SECRETS: list[str] = []


class CliError(Exception):
    """A problem with what the user asked for; printed as one line, exit 2."""


def say(text: object = "", file=None, end: str = "\n", flush: bool = False) -> None:
    """``print`` for everything the command, the chat and the demo print: control characters in
    ``text`` are escaped (``printable``), so a reply, a tool's output or a server's error text
    cannot drive the terminal, and the command's keys are masked (``SECRETS``).  Once the output
    is gone (``write_or_drop``), nothing more is printed."""
    line = printable(hide_secrets(str(text), SECRETS))
    write_or_drop(functools.partial(_print, line, file or sys.stdout, end, flush), file or sys.stdout)


def _print(line: str, file, end: str, flush: bool) -> None:
    try:
        print(line, file=file, end=end, flush=flush)
    except UnicodeEncodeError:  # e.g. a lone surrogate on a UTF-8 terminal
        encoding = getattr(file, "encoding", None) or "utf-8"
        print(line.encode(encoding, "backslashreplace").decode(encoding), file=file, end=end, flush=flush)


# Why the command's output is gone (a closed pipe: `vero run ... | head`; a full disk: `> /dev/full`): every
# later write is dropped, and the command ends quietly (``lost_output_code``), as other command-line tools do.
LOST_OUTPUT: list[OSError] = []  # why standard output is gone; a lost stderr only drops its own later lines
LOST_STREAMS: set[int] = set()  # ``id`` of each stream a write failed on: its later writes are dropped
EXIT_PIPE = 141  # 128 + SIGPIPE: what the shell reports for `cat` or `yes` once the reader of its pipe has gone


def write_or_drop(write: Callable[[], object], stream=None) -> None:
    """Run ``write`` to ``stream``; an ``OSError`` means that stream is gone: remember it, point it at /dev/null
    (Python's flush at exit then has nothing to fail on), and drop this and every later write to it."""
    stream = stream or sys.stdout
    if id(stream) in LOST_STREAMS:
        return
    try:
        write()
    except OSError as exc:
        output_lost(exc, stream)


def output_lost(error: OSError, stream) -> None:
    """Remember ``error`` as why ``stream`` is gone (the output's, not stderr's: ``LOST_OUTPUT``), and send its
    later bytes to /dev/null."""
    LOST_STREAMS.add(id(stream))
    if stream is not sys.stderr:  # the output (a printer's stream is the stdout it began with)
        LOST_OUTPUT.append(error)
    with contextlib.suppress(OSError, ValueError, AttributeError):
        target = stream.fileno()  # none for an in-memory stream (a test's): nothing to redirect
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, target)
        os.close(devnull)


def lost_output_code() -> int:
    """How a command whose output was lost ends, without a traceback: a closed pipe silently with
    ``EXIT_PIPE``; another write error (a full disk) with one line on stderr, exit 1."""
    error = LOST_OUTPUT[0]
    if isinstance(error, BrokenPipeError):
        return EXIT_PIPE
    with contextlib.suppress(OSError, ValueError):
        print(f"vero: cannot write the output: {error.strerror or error}", file=sys.stderr, flush=True)
    return EXIT_FAILED


def say_traceback(error: BaseException, file=None) -> None:
    """``error``'s traceback (``--debug``), with control characters escaped and URLs redacted."""
    say(redact_urls("".join(traceback.format_exception(error))), file=file or sys.stderr, end="")


def config_help(message: str = "") -> str:
    """What to set when no endpoint is configured: four short lines (``message``, the
    library's longer text for Python users, is not repeated), and a line for each line of the
    .env that could not be read: the setting may be written there, but it was not taken."""
    unread = [
        f"\n  {file} line {line}{name} could not be read (an unclosed quote?), so it set nothing"
        for file, line, name in unread_lines()
    ]
    return (
        "vero: no model endpoint is configured. Set, in the environment or ./.env:\n"
        "  OPENAI_API_KEY=sk-...   (plus OPENAI_BASE_URL for DeepSeek, Qwen, ...), or\n"
        "  OPENAI_BASE_URL=http://localhost:11434/v1  MODEL_NAME=llama3.1  (Ollama)\n"
        "or pass --base-url URL --model NAME.  No model at all?  Try: vero demo" + "".join(unread)
    )


HINTS: dict[int | None, str] = {  # what to try next, for the HTTP statuses (LLMCallError.status) a newcomer meets
    401: " (Hint: check OPENAI_API_KEY.)",
    404: " (Hint: check MODEL_NAME / --model and OPENAI_BASE_URL / --base-url; most servers end in /v1.)",
}


TOOLS_HINT = " (Hint: a model without tool calling refuses requests with tools: try --tools none or --agent react.)"
# What to do when a server refused one parameter (LLMCallError.parameter, a 400), by its name.
PARAMETER_HINTS = {
    "temperature": "set TEMPERATURE=omit to send none",
    "max_tokens": "set MAX_TOKENS=0 to send no output cap",
}
NAME_THE_FAMILY = "vero.core.providers.add_family tells vero what this model takes (docs/configuration.md)"


START_SERVER = "is the server running? Ollama: `ollama serve`; llama.cpp: `llama-server -m MODEL.gguf`"


def error_line(error: BaseException, limit: int = 300) -> str:
    """An error as one short line: LLMCallError messages already say what failed."""
    text = str(error) if isinstance(error, LLMCallError) else f"run failed: {type(error).__name__}: {error}"
    text = " ".join(text.split())
    text = clip(text, limit, "…", within=True)
    status = getattr(error, "status", None)
    return text + (refused_hint(error) if status == 400 else HINTS.get(status) or connection_hint(error))


def refused_hint(error: BaseException) -> str:
    """For a 400: the tool-calling hint when the server refused the tools, what to do about another
    parameter it refused, else nothing (the server's own text, in the message, says why)."""
    parameter = getattr(error, "parameter", None)
    if not parameter or parameter == "messages":  # the conversation as a whole (too long): no setting to change
        return ""
    name = re.split(r"[.\[]", parameter)[0]  # messages[0].role -> messages
    if name in ("tools", "tool_choice", "functions"):
        return TOOLS_HINT
    return f" (Hint: the server refused {parameter!r}: {PARAMETER_HINTS.get(name, NAME_THE_FAMILY)}.)"


def connection_hint(error: BaseException) -> str:
    """For a model call that got no response: the URL, and what to try (the SDK only says 'Connection error.')."""
    cause = error.__cause__
    names = [type(c).__name__ for c in (cause, getattr(cause, "__cause__", None)) if c is not None]
    if not names or names[0] not in ("APITimeoutError", "APIConnectionError"):
        return ""
    url = _endpoint_of(cause)
    settings = get_settings()
    retries = settings.MAX_RETRIES
    tries = f"{retries + 1} attempt{'s' if retries else ''} with MAX_RETRIES={retries}"
    if names[0] == "APITimeoutError":
        return (
            f" (Hint: no reply from {url} within TIMEOUT={settings.TIMEOUT:g} s, {tries}; "
            "a slow local model needs a larger TIMEOUT, e.g. TIMEOUT=300.)"
        )
    if "ConnectError" in names:
        return f" (Hint: cannot connect to {url}: {START_SERVER}.)"
    # a reply that broke off mid-way is not retried: no count of attempts is claimed here
    return f" (Hint: the connection to {url} failed or broke off mid-reply; MAX_RETRIES={retries}.)"


def _endpoint_of(exc) -> str:
    """The base URL an SDK error's request went to (``.../v1`` without ``/chat/completions``)."""
    request = getattr(exc, "request", None)
    url = redact_url(str(getattr(request, "url", "") or "")) or "the model endpoint"
    for suffix in ("/chat/completions", "/models"):
        if url.endswith(suffix):
            return url[: -len(suffix)]
    return url


def parse_tools(spec: str | None) -> list:
    """``"calculator,time"`` -> the built-in Tool objects; ``"none"`` -> []; ``None``: the default tools.
    One that names no tool (``","``, from ``"$A,$B"`` unset) is an error: ``none`` says no tools."""
    spec = DEFAULT_TOOLS if spec is None else spec
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if names == ["none"]:
        return []
    if not names:
        raise CliError(f"--tools {spec!r} names no tool; choose from {', '.join(TOOL_NAMES)} or 'none'")
    unknown = [n for n in names if n not in TOOL_NAMES]
    if unknown:
        raise CliError(f"unknown tool(s) {', '.join(unknown)}; choose from {', '.join(TOOL_NAMES)} or 'none'")
    from vero.tools.builtin import BUILTIN_TOOLS  # here: the sandbox runner and search client cost ~15 ms

    return [BUILTIN_TOOLS[n] for n in names]


def make_llm(args):
    """The ChatOpenAI client from the options and the settings (LLMConfigError if unconfigured)."""
    log.debug("settings: %r", get_settings())  # the masked repr: keys show as ***
    check_base_url(args.base_url)
    llm = ChatOpenAI(
        model_name=args.model,
        api_key=args.api_key,
        base_url=args.base_url,
        max_call_seconds=getattr(args, "max_call_seconds", None),
        cassette=cassette_of(getattr(args, "record", None), getattr(args, "replay", None)),
    )
    log.debug("model client: %r", llm)
    return llm


def check_base_url(given: str | None) -> None:
    """The base URL ``ChatOpenAI`` will use (``--base-url``, else ``OPENAI_BASE_URL``), checked first
    (``base_url_problem``): one that cannot be used is a usage error now, naming where it came from."""
    where, url = "--base-url", (given or "").strip()
    if not url:
        where, url = "OPENAI_BASE_URL", (get_settings().OPENAI_BASE_URL or "").strip()
    problem = base_url_problem(url)
    if problem:
        raise CliError(f"{where} {problem}")


def cassette_of(record: str | None, replay: str | None):
    """The cassette of ``--record FILE`` and/or ``--replay FILE`` (both: the same file, replay then record)."""
    from vero.cassette import Cassette, CassetteError, Mode

    if record and replay and Path(record).resolve() != Path(replay).resolve():
        raise CliError(
            "--record and --replay name different files; together they name one cassette "
            "(replay what it holds, record the rest)"
        )
    mode: Mode = "replay_then_live" if record and replay else "record" if record else "replay"
    if not (record or replay):
        return None
    try:
        return Cassette(record or replay or "", mode)
    except (CassetteError, OSError) as exc:
        raise CliError(str(exc)) from None


class LogRedactor(logging.Filter):
    """What vero's log handler writes (the ``openai`` and ``httpx`` loggers' lines included):
    URLs without credentials, the keys masked, control characters escaped."""

    def __init__(self, secrets: list[str | None]) -> None:
        super().__init__()
        self.secrets = [secret.strip() for secret in secrets if secret and secret.strip()]

    def clean(self, text: str) -> str:
        text = redact_urls(text)
        for secret in self.secrets:
            text = mask_secret(text, secret)  # whatever its length, as the user gave it
        return printable(hide_secrets(text, self.secrets))  # and as JSON or Python escape it

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = self.clean(record.getMessage()), None
        if record.exc_info:  # the traceback, formatted here (or by a handler before) to be cleaned
            text = record.exc_text or "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
            record.exc_text = self.clean(text)
        return True


class _StderrHandler(logging.StreamHandler):
    """Writes to ``sys.stderr`` as it is when a record comes (tests and the REPL swap it)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


@contextlib.contextmanager
def secrets_hidden(secrets: list[str | None]) -> Iterator[None]:
    """While a command runs: ``secrets`` (its API keys) are masked in every line it prints
    (``say``, the step and wait printers, ``--json``), as ``LogRedactor`` masks them in log lines."""
    saved = list(SECRETS)
    SECRETS[:] = [secret.strip() for secret in secrets if secret and secret.strip()]
    try:
        yield
    finally:
        SECRETS[:] = saved


@contextlib.contextmanager
def command_logging(debug: bool, secrets: list[str | None]) -> Iterator[None]:
    """While a command runs: its log output on stderr, through ``LogRedactor``; everything with
    ``--debug`` (the SDK's and httpx's requests too), else warnings only, as Python prints them
    by default.  Afterwards the logging set-up is as it was (``main`` may run in a test process)."""
    root = logging.getLogger()
    handler, level = _StderrHandler(), root.level
    handler.addFilter(LogRedactor(secrets))
    if debug:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.setLevel(logging.DEBUG)
    else:
        handler.setLevel(logging.WARNING)
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def agent_class(kind: str):
    """The agent class of pattern ``kind``: a built-in name ("chat", "react", ...) or
    ``package.module:ClassName`` (imported with the current folder on ``sys.path``)."""
    if kind in AGENTS:
        return getattr(vero.agents, AGENTS[kind])
    return import_agent(kind)


def import_agent(spec: str):
    """``package.module:ClassName`` (or ``path/to/file.py:ClassName``) -> the class; ``CliError``
    unless it is an ``Agent`` subclass."""
    module_name, _, class_name = (part.strip() for part in spec.rpartition(":"))
    if not (module_name and class_name):
        raise CliError(
            f"unknown agent {spec!r}: choose one of {', '.join(AGENTS)}, or give your own as package.module:ClassName"
        )
    if os.getcwd() not in sys.path and "" not in sys.path:  # as `python -m` does
        sys.path.insert(0, os.getcwd())
    try:
        module = load_file(module_name) if module_name.endswith(".py") else importlib.import_module(module_name)
    except CliError:
        raise
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise CliError(
                f"cannot import {spec}: no module named {exc.name!r} in the current folder "
                f"({os.getcwd()}) or on sys.path"
            ) from exc
        raise CliError(f"cannot import {spec}: importing {module_name} failed: {type(exc).__name__}: {exc}") from exc
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a syntax error, an exception or sys.exit() in the user's module
        raise CliError(f"cannot import {spec}: importing {module_name} failed: {type(exc).__name__}: {exc}") from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        found = sorted(
            name
            for name, value in vars(module).items()
            if inspect.isclass(value) and issubclass(value, Agent) and value.__module__ == module.__name__
        )
        hint = f"; its agents: {', '.join(found)}" if found else ""
        raise CliError(f"module {module_name} has no class {class_name!r}{hint}")
    if not (inspect.isclass(cls) and issubclass(cls, Agent)):
        what = "a class that does not subclass vero.Agent" if inspect.isclass(cls) else f"a {type(cls).__name__}"
        raise CliError(f"{spec} is not an Agent: it is {what}")
    return cls


def load_file(path: str):
    """The module in the Python file ``path`` (``--agent my_agent.py:MyAgent``), imported as
    ``python my_agent.py`` would see it: its folder first on ``sys.path``."""
    if os.path.exists(path) and not os.path.isfile(path):  # a folder, a pipe, a device
        raise CliError(f"{path!r} is not a regular file: give the agent's Python file")
    if not os.path.isfile(path):
        dotted = path[:-3].replace(os.sep, ".").strip(".")
        raise CliError(f"no file {path!r}; to import a module, name it without .py: {dotted}:ClassName")
    import importlib.util  # here: only a file path needs it

    folder, name = os.path.split(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec_ = importlib.util.spec_from_file_location(name[:-3], path)
    if spec_ is None or spec_.loader is None:
        raise CliError(f"cannot import {path!r} as a Python module")
    module = importlib.util.module_from_spec(spec_)
    sys.modules[spec_.name] = module  # as an import does: dataclasses and pickle look the module up
    spec_.loader.exec_module(module)
    return module


def make_agent(kind: str, llm, tools: list, args, approve_tool=None, **options):
    """An agent of pattern ``kind`` with the CLI's options; ``approve_tool`` is asked before a tool
    that may change things runs (``AgentOptions.approve_tool``).  A class that uses no tools
    (``uses_tools = False``) is given none: ``--tools`` is ignored, as ``vero run`` says."""
    cls = agent_class(kind)
    tools = tools if cls.uses_tools else []
    if args.trace:
        options["trace"] = args.trace
    if getattr(args, "recovery", None):  # --recovery small-model|off (docs/recovery.md)
        options["recovery"] = False if args.recovery == "off" else args.recovery
    try:
        agent = cls("vero", llm, tools=tools, max_turns=args.max_turns, verbose=False, **options)
    except OSError as exc:  # the --trace file cannot be opened
        raise trace_error(args.trace, exc) from exc
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a custom agent's __init__ that does not take the arguments, or calls sys.exit()
        if kind in AGENTS:
            raise
        detail = exc if isinstance(exc, TypeError) else f"{type(exc).__name__}: {exc}"
        raise CliError(f'cannot create {kind}("vero", llm, tools=..., max_turns=..., verbose=False): {detail}') from exc
    if approve_tool is not None:  # set afterwards: a custom agent's __init__ need not take it
        agent.options = agent.options.updated(approve_tool=approve_tool)
    return agent


def trace_error(path: str, exc: OSError) -> CliError:
    """The usage error for a ``--trace`` file that cannot be opened (a FIFO, a device, a folder, no permission)."""
    return CliError(f"cannot write the trace file {path}: {exc.strerror or exc}")


def check_trace_file(path: str) -> None:
    """Open ``--trace FILE`` as ``JsonlTrace`` will (a regular file or a new one only: a FIFO would wait for a
    reader forever, a device is no trace), before anything runs; ``trace_error`` if it cannot be."""
    from vero.core.files import open_regular

    try:
        os.close(open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT))
    except OSError as exc:
        raise trace_error(path, exc) from exc


def approve_everything(call) -> bool:
    """``--yes``: every tool call runs without asking."""
    return True


NO_TERMINAL = "nobody could be asked: vero run has no terminal to ask on (--yes approves every call)"


def refuse_without_terminal(call) -> str:
    """``vero run`` with no terminal to ask on: a call that needs approval is refused, never run
    silently; one line on stderr says so, and the model reads the reason."""
    say(f"🚫 Not run: {call.name} needs approval, and {NO_TERMINAL}.", file=sys.stderr)
    return NO_TERMINAL


def load_session_into(agent, path: str) -> None:
    try:
        agent.load(at_home(path))
    except SessionFormatError as exc:
        raise CliError(str(exc)) from exc


def usage_line(usage: dict, calls: int) -> str:
    return (
        f"{calls} model call{'s' if calls != 1 else ''}, {usage.get('total_tokens', 0)} tokens "
        f"({usage.get('prompt_tokens', 0)} prompt + {usage.get('completion_tokens', 0)} completion)"
    )


def print_error(result, err=None, debug: bool = False, note: str = "") -> None:
    """A run's error as one ❌ line on ``err``, ending with ``note`` (with ``debug``, its traceback on stderr first)."""
    err = err or sys.stderr
    if result.error is not None:
        if debug:
            say_traceback(result.error)
        say(f"❌ {error_line(result.error)}{note}", file=err)
    elif result.status == Status.FAILED:
        say(f"❌ the run failed{note}", file=err)


def print_result(result, out=None, err=None, debug: bool = False) -> None:
    """The end of a run, for ``vero run`` and ``vero demo``: the error as one ❌ line on ``err``,
    then the footer ``ConsolePrinter`` prints (``footer_lines``) on ``out``: the answer with the
    status, the time, model calls and tokens.  A ``failed`` run's partial text is labelled as
    such, not printed as the Final Answer (it is not kept in the history); a failed run with an
    error and no partial text has only the ❌ error line, not a second "❌ Run failed".
    """
    out = out or sys.stdout
    print_error(result, err, debug)
    lines = footer_lines(
        result.status,
        result.answer or ("" if result.status == Status.FAILED else "(no answer)"),
        result.elapsed_s,
        result.llm_calls,
        result.usage,
    )
    if result.error is not None and result.status == Status.FAILED and not result.answer:
        lines = lines[1:]  # "❌ Run failed": the ❌ error line has just said so
    for line in lines:
        say(line, file=out)


class CliPrinter(ConsolePrinter):
    """A ``ConsolePrinter`` whose lines go through ``write_or_drop``: a closed pipe ends the output, not
    the run with a traceback per step from the event bus."""

    def _line(self, text: str, label: str = "", before: str = "", short: bool = False) -> None:
        write_or_drop(functools.partial(ConsolePrinter._line, self, text, label, before, short), self.stream)


def step_printer(show_start: bool = True, hide: tuple = (), stream=None):
    """A ConsolePrinter for the CLI: the steps, but not its own end-of-run lines
    (``print_result`` or the REPL prints those).  Top-level steps of the kinds in
    ``hide`` are not shown (the REPL prints or streams those itself)."""

    class StepPrinter(CliPrinter):
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

    return StepPrinter(stream=stream, secrets=SECRETS)


WAIT_NOTICE_S = 10.0  # no reply after this long (or a third of TIMEOUT, if shorter): say so


def model_watch(stream=None, before_line=None):
    """A listener for ``ChatOpenAI.callbacks``: when the model is slow to answer, one
    ``⏳ waiting`` line; on each retry, ``🔁 retrying (2/3): why``."""

    class ModelWatch(CliPrinter):
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
            self._line(
                f"⏳ waiting for {data.get('model')} at {data.get('url') or 'the endpoint'}: "
                f"no reply after {delay:g} s (attempt {data.get('attempt')}/{data.get('max_attempts')}, "
                f"{limit} each) …"
            )

        def cancel(self):
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

    return ModelWatch(stream=stream or sys.stderr, secrets=SECRETS)


def watch_model(llm, stream=None, before_line=None):
    """Attach a ``model_watch`` to ``llm`` (a client without ``callbacks`` is left alone)."""
    callbacks = getattr(llm, "callbacks", None)
    if callbacks is None:
        return None
    watch = model_watch(stream, before_line)
    callbacks.append(watch)
    return watch


MAX_MODELS_BYTES = 8 * 2**20  # a hosted router's list of every model is about 1 MB


def _listed_models(client, timeout: float) -> list[str]:
    """The model ids ``GET /models`` lists, the whole body read within ``timeout`` seconds (the SDK's
    timeout bounds each wait, so a body that trickles in would hold the chat's start for hours):
    ``TimeoutError`` past it; none from a body over ``MAX_MODELS_BYTES``."""
    deadline, body = time.monotonic() + timeout, bytearray()
    with client.models.with_streaming_response.list() as response:
        for chunk in response.iter_bytes():
            body += chunk
            if time.monotonic() > deadline:
                raise TimeoutError
            if len(body) > MAX_MODELS_BYTES:
                return []
    listed = json.loads(body).get("data") or []
    return [model["id"] for model in listed if isinstance(model, dict) and isinstance(model.get("id"), str)]


def check_endpoint(llm, timeout: float = 3.0) -> str | None:
    """``GET /models`` with a short timeout: a warning if the server is unreachable, refuses
    the key, or does not list the model; ``None`` if all looks fine or the server has no /models."""
    client = getattr(llm, "client", None)
    if client is None:
        return None
    import openai  # here: importing this module must not load the SDK (~0.4 s); ChatOpenAI has by now

    url = getattr(llm, "shown_url", None) or "the model endpoint"
    try:
        names = _listed_models(client.with_options(timeout=timeout, max_retries=0), timeout)
    except (openai.APITimeoutError, TimeoutError):
        return f"⚠️  {url} did not answer GET /models within {timeout:g} s; is it up and reachable?"
    except openai.APIConnectionError as exc:
        if "ConnectError" in type(exc.__cause__).__name__:
            return f"⚠️  cannot connect to {url}: {START_SERVER}"
        return (
            f"⚠️  {url} failed on GET /models ({type(exc.__cause__ or exc).__name__}); "
            "is it an OpenAI-compatible server?"
        )
    except openai.AuthenticationError:
        return f"⚠️  {url} refused the API key (HTTP 401): check OPENAI_API_KEY or --api-key"
    except Exception:  # e.g. a 404: some servers have no /models; the first message will tell
        return None
    model = getattr(llm, "model_name", None)
    if names and model and model not in names:
        listed = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        return (
            f"⚠️  {url} does not list the model {model!r} (it lists: {listed});\n"
            "    if requests fail, set MODEL_NAME or pass --model"
        )
    return None
