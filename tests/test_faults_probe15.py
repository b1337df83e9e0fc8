"""Faults an outside probe found (all offline): a non-text answer inside an ``Outcome``, ``sys.exit()`` in a custom
agent's module or ``__init__``, a base URL with no http(s) scheme, a task that only looks like text, ``sys.exit()``
in ``run_many``'s ``make_agent``, ReflexionAgent with no turns, and an output schema with a BOM."""

from __future__ import annotations

import json
import re

import pytest
from test_cli import vero

from vero import Agent, ChatOpenAI, Outcome
from vero.agents import PlanExecuteAgent, ReActAgent, ReflexionAgent, ToolCallingAgent
from vero.batch import run_many
from vero.cli import CliError, read_output_schema
from vero.core.result import Status
from vero.errors import LLMConfigError
from vero.testing import ScriptedLLM
from vero.tools.schema import schema_problems

OFFLINE = ("--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--api-key", "sk-x")  # nothing is sent


# -- a non-text answer in an Outcome ------------------------------------------------------------------------------
@pytest.mark.parametrize("answer", [{"n": 42}, 42, None])
def test_a_non_text_answer_in_an_outcome_fails_the_run_as_a_bare_one_does(tmp_path, answer):
    class Odd(Agent):
        uses_tools = False

        def solve(self, task, **kwargs):
            return Outcome(answer) if task == "odd" else "text"

    agent = Odd("o", ScriptedLLM([]), verbose=False)
    agent.run("plain")
    assert agent.run("odd") == ""
    result = agent.last_result
    assert result.status == Status.FAILED and isinstance(result.error, TypeError)
    assert [message.content for message in agent.history] == ["plain", "text"]  # the odd turn is not kept
    agent.save(tmp_path / "s.json")
    Odd("p", ScriptedLLM([]), verbose=False).load(tmp_path / "s.json")  # the saved session loads


# -- sys.exit() in a custom agent's module or __init__ -------------------------------------------------------------
EXITS_AT_IMPORT = "import sys\nsys.exit(0)\n"
EXITS_IN_INIT = """
from vero.agents import ReActAgent

class InitExit(ReActAgent):
    def __init__(self, *args, **kwargs):
        raise SystemExit("bye from init")
"""
CASES = [
    ("imp_exit0", EXITS_AT_IMPORT, "X", "cannot import"),
    ("init_exit", EXITS_IN_INIT, "InitExit", "cannot create"),
]


@pytest.mark.parametrize(("module", "source", "cls", "says"), CASES)
def test_vero_run_with_an_agent_that_calls_sys_exit_is_a_usage_error(tmp_path, module, source, cls, says):
    (tmp_path / f"{module}.py").write_text(source)
    done = vero("run", *OFFLINE, "-q", "--agent", f"{module}:{cls}", "hi", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"vero: {says} {module}:{cls}") and "SystemExit" in done.stderr
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize(("module", "source", "cls", "says"), CASES)
def test_chat_agent_that_calls_sys_exit_is_one_line_and_it_stays(
    shared_mock_server, tmp_path, module, source, cls, says
):
    srv = shared_mock_server
    (tmp_path / f"{module}.py").write_text(source)
    srv.enqueue("Final Answer: hello")
    lines = f"hi\n/agent {module}:{cls}\n/history\nbye\n"
    done = vero("chat", "--agent", "react", "--base-url", srv.base_url, cwd=tmp_path, input=lines)
    assert done.returncode == 0, done.stderr
    assert f"❌ {says} {module}:{cls}" in done.stdout and "Still using react (ReActAgent)." in done.stdout
    assert "user: hi\nassistant: hello" in done.stdout and "Bye." in done.stdout


def test_a_key_board_interrupt_in_a_custom_agent_s_module_still_interrupts(tmp_path):
    (tmp_path / "imp_kbd.py").write_text("raise KeyboardInterrupt\n")
    done = vero("run", *OFFLINE, "-q", "--agent", "imp_kbd:X", "hi", cwd=tmp_path)
    assert done.returncode == 130 and "Interrupted." in done.stderr


# -- a base URL that is not http(s) ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "meant"),
    [
        ("localhost:11434", "http://localhost:11434"),
        ("127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        ("ftp://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        ("http:/127.0.0.1/v1", "http://127.0.0.1/v1"),
        ("localhost:8080/relay/http://upstream/v1", "http://localhost:8080/relay/http://upstream/v1"),
    ],
)
def test_a_base_url_that_is_not_http_is_a_configuration_error_at_once(tmp_path, url, meant):
    with pytest.raises(LLMConfigError, match="needs http:// or https://") as raised:
        ChatOpenAI(base_url=url, model_name="m", api_key="sk-x")
    assert str(raised.value).endswith(f"did you mean {meant}?")
    for given, env in (((*OFFLINE[2:], "--base-url", url), {}), (OFFLINE[2:], {"OPENAI_BASE_URL": url})):
        done = vero("run", *given, "-q", "hi", cwd=tmp_path, **env)
        assert (done.returncode, done.stderr) == (2, f"vero: {raised.value}\n")


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://alice:sekret-password-123@[::1/v1", "is not a valid URL"),
        ("http://alice:sekret-password-123@host:port/v1", "is not a valid URL"),
        ("http://:8080/v1", "has no host"),
        ("https://", "has no host"),
    ],
)
def test_a_base_url_that_does_not_parse_is_a_configuration_error_with_its_password_masked(url, problem):
    with pytest.raises(LLMConfigError, match=problem) as raised:  # not the HTTP library's error, URL and all
        ChatOpenAI(base_url=url, model_name="m", api_key="sk-x")
    assert "sekret" not in str(raised.value)


def test_the_suggested_base_url_shows_no_password():
    with pytest.raises(LLMConfigError) as raised:
        ChatOpenAI(base_url="alice:sekret-password-123@host:8080/v1", model_name="m")
    assert "sekret" not in str(raised.value) and "http://***@host:8080/v1" in str(raised.value)


def test_an_http_or_https_base_url_in_any_case_is_taken():
    for url in ("http://127.0.0.1:9/v1", "HTTPS://api.example.com/v1"):
        assert ChatOpenAI(base_url=url, model_name="m", api_key="sk-x").base_url == url
        assert ChatOpenAI(base_url=f" {url}\n", model_name="m", api_key="sk-x").base_url == url  # as pasted


# -- a task that only looks like text ----------------------------------------------------------------------------
@pytest.mark.parametrize("task", ["\u200b", "\x00", "\ufeff", " \u2060 "])
def test_a_task_that_shows_nothing_is_a_usage_error(tmp_path, task):
    for arguments, piped in (([task], None), (["-"], task + "\r\n")):
        done = vero("run", *OFFLINE, "-q", *arguments, cwd=tmp_path, input=piped)
        assert done.returncode == 2 and done.stderr.startswith("vero: the task is empty"), done.stderr


def test_a_piped_task_s_byte_order_mark_is_not_sent(shared_mock_server, tmp_path):
    srv = shared_mock_server
    srv.enqueue("Final Answer: hello")
    done = vero("run", "--base-url", srv.base_url, "--agent", "react", "--json", "-", cwd=tmp_path, input="\ufeffhi")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["task"] == "hi" and "\ufeff" not in json.dumps(srv.requests[0])


# -- sys.exit() in run_many's make_agent ---------------------------------------------------------------------------
def test_sys_exit_in_make_agent_fails_that_task_and_the_batch_goes_on():
    made = iter(range(4))

    def make():
        if next(made) == 1:
            raise SystemExit("config missing")
        return ReActAgent("b", ScriptedLLM(default="Final Answer: ok"), verbose=False)

    results = run_many(make, [f"task {i}" for i in range(4)], max_workers=1, progress=False)
    assert [result.status for result in results] == ["ok", "failed", "ok", "ok"]
    assert isinstance(results[1].error, SystemExit) and results[1].task == "task 1"


def test_a_key_board_interrupt_in_make_agent_still_stops_the_batch():
    def make():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_many(make, ["a", "b"], max_workers=1, progress=False)


# -- ReflexionAgent with no turns ----------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [ReActAgent, ToolCallingAgent, PlanExecuteAgent, ReflexionAgent])
def test_every_pattern_with_no_turns_ends_max_turns(cls):
    agent = cls("x", ScriptedLLM(default="Final Answer: ok"), max_turns=0, verbose=False)
    agent.run("task")
    assert (agent.last_result.status, agent.last_result.error) == (Status.MAX_TURNS, None)


# -- an output schema with a BOM, as --mcp-config reads one --------------------------------------------------------
def test_an_output_schema_file_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "schema.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"type": "object"}).encode())
    assert read_output_schema(str(path)) == {"type": "object"}


@pytest.mark.parametrize(
    "schema, problem",
    [
        ({"type": "nonsense"}, "type 'nonsense'"),
        ({"type": "string", "pattern": "(unclosed"}, "pattern '(unclosed'"),
        ({"type": "integer", "minimum": "5"}, "minimum '5' is no number"),
        ({"type": "object", "properties": {"n": {"type": "integr"}}}, "$.properties.n: type 'integr'"),
        ({"type": "number", "minimum": 0, "exclusiveMinimum": True}, "draft 4's true: write the bound, \"exclusiveM"),
        ({"type": "integer", "minimum": float("nan")}, "minimum nan is no number"),
        # keywords vero does not read, a reference to nothing: an answer they forbid would pass as ok
        ({"type": "object", "required": ["a"], "not": {"required": ["b"]}}, "$: vero does not check 'not'"),
        ({"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}}, "does not check 'if'"),
        ({"type": "array", "items": {"type": "integer"}, "contains": {"const": 3}}, "does not check 'contains'"),
        ({"type": "object", "patternProperties": {"^x": {"type": "integer"}}}, "does not check 'patternProperties'"),
        ({"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}, "items as a list"),
        ({"type": "object", "properties": {"a": {"$ref": "#/definitions/Gone"}}}, "$.properties.a: $ref '#/def"),
        ({"type": "object", "properties": {"a": {"$ref": "other.json#/x"}}}, "points to no definition"),
    ],
)
def test_an_output_schema_that_says_what_cannot_be_checked_is_a_usage_error(tmp_path, schema, problem):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    with pytest.raises(CliError, match=re.escape(problem)):
        read_output_schema(str(path))
    llm = ScriptedLLM(['"anything"'])
    with pytest.raises(TypeError, match=re.escape(problem)):  # given to run(): at once, before anything is sent
        ToolCallingAgent("x", llm, verbose=False).run("task", output_type=schema)
    assert llm.calls == 0


def test_an_output_schema_with_a_property_named_type_is_read():
    schema = {"type": "object", "properties": {"type": {"type": "string"}, "pattern": {"type": "string"}}}
    assert schema_problems(schema) == []  # vero.tools.schema's, which the CLI and run(output_type=...) ask


@pytest.mark.parametrize("pattern", ["a{4294967296}", "(" * 1000 + ")" * 1000])
def test_an_output_schema_pattern_python_cannot_compile_is_a_usage_error_too(tmp_path, pattern):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"type": "string", "pattern": pattern}))
    with pytest.raises(CliError, match="no regular expression"):
        read_output_schema(str(path))
