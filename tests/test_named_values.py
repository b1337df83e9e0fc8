"""Statuses and step kinds as named values: ``Status`` and ``StepKind`` (StrEnums), and with them
``ToolError`` (why a tool call failed) and ``PlanStepStatus`` (where a plan step stands).

They must stay interchangeable with the strings they replaced (old code and saved
traces compare with ``"ok"``), JSON must get plain strings, every kind the built-in
agents record must be a ``StepKind``, and the console must have an icon for each.
"""

import ast
import io
import json
import pathlib
import pickle

import pytest

import vero
from vero import Agent, Message, Outcome, RunResult, Status, Step, StepKind
from vero.agents import ReActAgent
from vero.core import PlanStepStatus, ToolError
from vero.core import result as result_module
from vero.core.events import (
    DEFAULT_STEP_ICON,
    PLAN_STEP_LABELS,
    STATUS_ICONS,
    STEP_ICONS,
    ConsolePrinter,
    Event,
    JsonlTrace,
)
from vero.core.result import FAILED, MAX_TOKENS, MAX_TURNS, NEEDS_REVIEW, OK, REJECTED, STATUSES, step_kind
from vero.testing import ScriptedLLM

VERO = pathlib.Path(vero.__file__).parent
OLD_STATUSES = ("ok", "needs_review", "max_turns", "max_tokens", "rejected", "failed")


# -- the values are the old strings -----------------------------------------------
def test_the_old_status_constants_are_the_enum_members_and_equal_the_old_strings():
    assert (OK, NEEDS_REVIEW, MAX_TURNS, MAX_TOKENS, REJECTED, FAILED) == OLD_STATUSES
    assert OK is Status.OK and FAILED is Status.FAILED and REJECTED is Status.REJECTED
    assert STATUSES == (*OLD_STATUSES, "cancelled") and set(STATUSES) == set(Status)  # cancelled: issue 34
    assert all(isinstance(status, Status) for status in STATUSES)


@pytest.mark.parametrize("member", [*Status, *StepKind, *ToolError, *PlanStepStatus], ids=str)
def test_a_member_is_its_string_in_every_text_form(member):
    value = member.value
    assert member == value and hash(member) == hash(value) and {value: 1}[member] == 1
    assert str(member) == f"{member}" == "%s" % member == value  # noqa: UP031 (%-formatting is under test)
    assert json.dumps(member) == json.dumps(value)
    assert repr(member) == repr(value)  # print([s.kind for s in steps]) reads as it did (the docs show it)


def test_printed_steps_and_lists_of_kinds_look_as_they_did_with_strings():
    steps = [Step("thought", "hm"), Step("final", "42")]
    assert str([s.kind for s in steps]) == "['thought', 'final']"
    assert repr(steps[1]) == "Step(kind='final', content='42', data={}, turn=0, depth=0)"
    assert str(RunResult(status="failed")).startswith("RunResult(answer='', status='failed', ")


def test_step_kind_values_are_lower_case_names():
    assert [kind.value for kind in StepKind] == [kind.name.lower() for kind in StepKind]


# -- Step, Outcome and RunResult normalize known values, keep the others -----------
def test_step_turns_a_known_kind_string_into_a_step_kind():
    step = Step("plan_step", "[>] look it up")
    assert step.kind is StepKind.PLAN_STEP and step.kind == "plan_step"
    assert Step(StepKind.FINAL).kind is StepKind.FINAL


def test_step_keeps_a_kind_of_ones_own_as_the_plain_string():
    step = Step("vote", "3 of 5 agree")
    assert step.kind == "vote" and type(step.kind) is str
    assert step_kind("vote") == "vote" and step_kind("final") is StepKind.FINAL


def test_outcome_and_run_result_turn_a_known_status_string_into_a_status():
    assert Outcome("x", "needs_review").status is Status.NEEDS_REVIEW
    assert RunResult(status="failed").status is Status.FAILED and not RunResult(status="failed").ok
    assert RunResult().status is Status.OK and RunResult().ok


def test_steps_of_finds_steps_by_member_or_string():
    result = RunResult(steps=[Step("action", "add(a=1)"), Step("vote"), Step("action", "add(a=2)")])
    assert result.steps_of(StepKind.ACTION) == result.steps_of("action") and len(result.steps_of("action")) == 2
    assert [s.kind for s in result.steps_of("vote")] == ["vote"]


# -- JSON and dicts get plain strings ------------------------------------------------
def _only_plain_strings(value):
    """No str subclass (an enum member) anywhere in ``value``."""
    if isinstance(value, dict):
        return all(_only_plain_strings(k) and _only_plain_strings(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(_only_plain_strings(v) for v in value)
    return not isinstance(value, str) or type(value) is str


def test_run_result_to_dict_and_to_json_have_plain_strings():
    steps = [Step("attempt", "Paris", {"status": Status.OK}), Step("final", "Paris"), Step("vote", "1 of 1")]
    result = RunResult("Paris", Status.NEEDS_REVIEW, steps, task="capital?")
    data = result.to_dict()
    assert _only_plain_strings(data)
    assert data["status"] == "needs_review" and [s["kind"] for s in data["steps"]] == ["attempt", "final", "vote"]
    assert data["steps"][0]["data"] == {"status": "ok"}
    assert "Status." not in repr(data) and "StepKind." not in repr(data)
    text = result.to_json(indent=2)
    assert '"status": "needs_review"' in text and '"kind": "final"' in text and "Status." not in text
    assert json.loads(text) == data


def test_step_to_dict_has_plain_strings():
    assert Step("final", "x").to_dict() == {"kind": "final", "content": "x", "data": {}, "turn": 0, "depth": 0}
    assert type(Step("final").to_dict()["kind"]) is str


def test_a_run_result_survives_pickling_with_its_members():
    result = pickle.loads(pickle.dumps(RunResult("a", Status.FAILED, [Step("error", "boom"), Step("vote")])))
    assert result.status is Status.FAILED and result.steps[0].kind is StepKind.ERROR and result.steps[1].kind == "vote"


class Echo(Agent):
    def solve(self, task):
        reply = self.call_llm([Message.user(task)])
        self.record(StepKind.ANSWER, reply.text)
        self.record("vote", "1 of 1")
        return Outcome(reply.text, Status.NEEDS_REVIEW)


def test_a_jsonl_trace_writes_plain_strings(tmp_path):
    path = tmp_path / "trace.jsonl"
    trace = JsonlTrace(str(path))
    agent = Echo("echo", ScriptedLLM(["hi"]), verbose=False, callbacks=[trace])
    agent.run("say hi")
    trace.close()
    text = path.read_text(encoding="utf-8")
    assert "Status." not in text and "StepKind." not in text
    events = [json.loads(line) for line in text.splitlines()]
    assert [e["kind"] for e in events if e["type"] == "step"] == ["answer", "vote"]
    assert [e["status"] for e in events if e["type"] == "run_end"] == ["needs_review"]


def test_a_real_run_records_members_and_reports_plain_json():
    llm = ScriptedLLM(["Thought: I know it.\nFinal Answer: Paris"])
    agent = ReActAgent("r", llm, tools=[], verbose=False)
    assert agent.run("Capital of France?") == "Paris"
    result = agent.last_result
    assert result.status is Status.OK
    assert all(isinstance(s.kind, StepKind) for s in result.steps)
    assert json.loads(result.to_json())["status"] == "ok" and _only_plain_strings(result.to_dict())


# -- every kind the built-in agents record is a StepKind ---------------------------
SOURCES = sorted([*VERO.glob("agents/*.py"), *VERO.glob("core/*.py")])


def recorded_kinds() -> dict[str, list[str]]:
    """The kind each ``record(...)`` and ``Step(...)`` call of the built-in agents passes, with where.

    A static scan of the source (the syntax tree, so docstrings and comments do
    not count): the first argument or ``kind=``, as written (``StepKind.WARNING``,
    or ``'warning'`` for a string literal).
    """
    found: dict[str, list[str]] = {}
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name not in ("record", "Step"):
                continue
            for arg in node.args[:1] + [k.value for k in node.keywords if k.arg == "kind"]:
                found.setdefault(ast.unparse(arg), []).append(f"{path.relative_to(VERO.parent)}:{arg.lineno}")
    return found


def test_the_scan_finds_the_kinds_it_should():
    # guards the scan itself: a broken pattern would make the next test pass vacuously
    found = recorded_kinds()
    assert {"StepKind.ACTION", "StepKind.OBSERVATION", "StepKind.FINAL", "StepKind.WARNING", "StepKind.DRAFT",
            "StepKind.PLAN", "StepKind.EVALUATION"} <= set(found)
    assert sum(map(len, found.values())) >= 30  # record() call sites; far fewer means the scan broke


def test_the_built_in_agents_record_step_kinds_not_string_literals():
    # a literal typo ("warnign") would only show as the console's plain bullet; a member typo fails at import
    literals = {kind: where for kind, where in recorded_kinds().items() if kind.startswith(("'", '"'))}
    assert not literals, f"kinds recorded as string literals (use StepKind members): {literals}"
    members = {kind.removeprefix("StepKind.") for kind in recorded_kinds() if kind.startswith("StepKind.")}
    assert members <= {member.name for member in StepKind}


# -- the console has an icon for each ------------------------------------------------
def test_every_step_kind_has_an_icon_and_every_status_too():
    assert set(STEP_ICONS) == set(StepKind), f"no icon for {set(StepKind) - set(STEP_ICONS)}"
    assert all(isinstance(kind, StepKind) for kind in STEP_ICONS)
    assert DEFAULT_STEP_ICON not in STEP_ICONS.values()
    assert set(STATUS_ICONS) == set(Status)


def printed(kind, depth=0, data=None) -> str:
    out = io.StringIO()
    ConsolePrinter(stream=out)(Event("step", "a", {"kind": kind, "content": "text", "data": data or {},
                                                   "depth": depth}))
    return out.getvalue()


@pytest.mark.parametrize("kind", list(StepKind), ids=str)
def test_the_printer_shows_each_kind_with_its_icon(kind):
    depth = 1 if kind == StepKind.FINAL else 0  # a top-level final step is left to run_end
    for sent in (kind, kind.value):  # a member, or the plain string record() passes on
        line = printed(sent, depth)
        assert line.lstrip().startswith(STEP_ICONS[kind]) and DEFAULT_STEP_ICON not in line


def test_the_printer_shows_a_kind_of_ones_own_with_the_default_icon():
    assert printed("vote") == f"{DEFAULT_STEP_ICON} Vote: text\n"


def test_the_printer_leaves_a_top_level_final_step_to_the_run_end_line():
    assert printed("final") == printed(StepKind.FINAL) == ""


def test_old_status_constants_are_exported_where_they_were():
    assert result_module.OK == "ok" and vero.Status is Status and vero.StepKind is StepKind


# -- tool errors and plan-step statuses ------------------------------------------------
def test_a_failed_tool_call_says_why_with_a_tool_error():
    from vero.tool import ToolRegistry

    def boom() -> str:
        """Always fails."""
        raise RuntimeError("no")

    registry = ToolRegistry([boom])
    assert registry.run("nope", {}).error is ToolError.UNKNOWN_TOOL
    assert registry.run("boom", {"x": 1}).error is ToolError.BAD_ARGUMENTS
    assert registry.run("boom", {}).error is ToolError.EXCEPTION == "exception"


def test_vero_names_tool_errors_and_plan_step_statuses_by_their_members():
    values = {member.value for member in (*ToolError, *PlanStepStatus)} - {member.value for member in Status}
    literals = []
    for path in VERO.rglob("*.py"):
        if path.name == "result.py":  # where the members are defined
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            # compared with, or given as a result's error or a step's status ("timeout" is also a setting's name)
            used = [*node.comparators, node.left] if isinstance(node, ast.Compare) else \
                [k.value for k in node.keywords if k.arg in ("error", "status")] + node.args[1:] \
                if isinstance(node, ast.Call) else []
            for value in (v for item in used for v in ast.walk(item)):
                if isinstance(value, ast.Constant) and value.value in values:
                    literals.append(f"{path.relative_to(VERO)}:{value.lineno} {value.value!r}")
    assert not literals, f"use the ToolError or PlanStepStatus member: {literals}"


def test_the_printer_labels_every_plan_step_status_but_pending():
    assert set(PLAN_STEP_LABELS) == set(PlanStepStatus) - {PlanStepStatus.PENDING}
