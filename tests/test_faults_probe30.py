"""What a thirtieth outside probe of bad input found in the approval gates and the verdicts: a replanned step that
differs from an approved one by more than an end stop (``/srv/app/cache/..``, the parent folder), an ``Approval``
whose ``approved`` is a string or a number, and an evaluator's ``passed`` that is an object true for being there."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import unittest
from typing import Any

import pytest

from vero import tool
from vero.agents import PlanExecuteAgent, ReflexionAgent
from vero.agents._plan import in_order
from vero.agents.plan_execute import Approval
from vero.core.result import Status
from vero.testing import ScriptedLLM

DONE: list[str] = []


@tool
def delete_folder(path: str) -> str:
    """Delete a folder and everything in it."""
    DONE.append(path)
    return f"deleted {path}"


@pytest.fixture(autouse=True)
def _nothing_done() -> None:
    DONE.clear()


APPROVED = "Delete with delete_folder the folder /srv/app/cache/"


@pytest.mark.parametrize("replanned", [APPROVED + "..", APPROVED + "./..", "Drop table a;;", "Drop table a.."])
def test_a_step_that_adds_more_than_an_end_stop_is_not_an_approved_one(replanned: str) -> None:
    approved = APPROVED if replanned.startswith(APPROVED) else "Drop table a"
    assert not in_order([replanned], [approved])


WORDED = "Delete with delete_folder the cache folder"


@pytest.mark.parametrize("written", [WORDED + ".", WORDED + ";", f"2. {WORDED}."])
def test_a_step_with_an_end_stop_or_a_list_number_is_the_approved_one(written: str) -> None:
    assert in_order([written], [WORDED])


@pytest.mark.parametrize("written", [APPROVED + ".", APPROVED + " ;", "Run git add ."])
def test_a_stop_after_a_path_s_slash_or_a_space_is_no_end_stop_and_asks_again(written: str) -> None:
    assert not in_order([written], [APPROVED if written.startswith(APPROVED) else "Run git add"])


@tool(read_only=True)
def list_folder(path: str) -> str:
    """List a folder."""
    return "a.tmp b.tmp"


def test_a_replanned_step_that_reaches_the_parent_folder_asks_again_and_a_refusal_stops_it() -> None:
    listed = "List the folder /srv/app/cache/ with list_folder"
    script = [
        json.dumps({"steps": [listed, APPROVED]}),
        'Thought: list\nAction: list_folder\nAction Input: {"path": "/srv/app/cache/"}',
        "Final Answer: a.tmp b.tmp",
        json.dumps({"steps": [APPROVED + ".."]}),  # replanned: the parent folder
        'Thought: delete\nAction: delete_folder\nAction Input: {"path": "/srv/app/cache/.."}',
        "Final Answer: deleted",
        json.dumps({"response": "done"}),
    ]
    asked: list[str] = []

    def approve(plan: Any) -> bool:
        asked.append(plan.render())
        return len(asked) == 1  # the first plan only

    tools = [list_folder, delete_folder]
    agent = PlanExecuteAgent("p", ScriptedLLM(script), tools=tools, approve=approve, verbose=False)
    agent.run("Clean the cache.")
    assert len(asked) == 2 and "/srv/app/cache/.." in asked[1] and DONE == []


@pytest.mark.parametrize("verdict", [Approval("no"), Approval("false"), Approval(1), Approval("true")])  # type: ignore[arg-type]
def test_an_approval_that_is_not_true_rejects_the_plan(verdict: Approval) -> None:
    script = [json.dumps({"steps": [APPROVED]}), 'Action: delete_folder\nAction Input: {"path": "/srv/app/cache/"}']
    agent = PlanExecuteAgent(
        "p", ScriptedLLM(script), tools=[delete_folder], approve=lambda plan: verdict, verbose=False
    )
    agent.run("Clean the cache.")
    assert DONE == [] and agent.last_result.status == Status.REJECTED


def _failing_test_run() -> unittest.TestResult:
    class Failing(unittest.TestCase):
        def test_it(self) -> None:
            self.fail("wrong")

    return unittest.TextTestRunner(stream=open("/dev/null", "w")).run(Failing("test_it"))  # noqa: SIM115


def _failing_process() -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "raise SystemExit(1)"], capture_output=True, text=True)


@pytest.mark.parametrize("passed", [_failing_test_run, _failing_process, lambda: [False], lambda: {"ok": False}])
def test_an_evaluators_passed_that_is_true_only_for_being_there_fails_the_attempt(passed: Any) -> None:
    verdict = passed()
    agent = ReflexionAgent("r", ScriptedLLM(["4"] * 6), verbose=False, evaluator=lambda task, answer: (verdict, 0, "x"))
    agent.run("What is 2+2?")
    assert agent.last_result.status != Status.OK
    assert "passed must be True or False" in " ".join(step.content for step in agent.last_result.steps)


def test_a_second_caller_of_an_agent_as_a_tool_is_told_it_is_busy_and_the_agent_keeps_its_history() -> None:
    from vero.agents import ToolCallingAgent
    from vero.core.message import Message
    from vero.tools import ToolRegistry

    helper = ToolCallingAgent("helper", ScriptedLLM(["done", "done"]), verbose=False)
    earlier = [Message("user", "an earlier question"), Message("assistant", "its answer")]
    helper.history = list(earlier)
    tool, second, run = helper.as_tool(), [], helper.run

    def run_after_a_second_caller(task: str, **options: Any) -> Any:  # a caller comes before the run begins
        if not second:
            caller = threading.Thread(target=lambda: second.append(ToolRegistry([tool]).run(tool.name, {"task": "x"})))
            caller.start()
            caller.join()
        return run(task, **options)

    helper.run = run_after_a_second_caller  # type: ignore[method-assign]
    assert ToolRegistry([tool]).run(tool.name, {"task": "first"}).output == "done"
    assert not second[0].ok and "busy" in second[0].output
    assert helper.history == earlier  # set aside for the run, then put back


class Unshowable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@tool
def delete_record(record_id: str) -> str:
    """Delete a record."""
    DONE.append(record_id)
    return "deleted"


@pytest.mark.parametrize("verdict", [Unshowable(), ["y" * 100_000]])
def test_an_approver_s_odd_verdict_refuses_the_call_and_is_shown_short(verdict: Any) -> None:
    from vero.agents import ToolCallingAgent

    call = {"tool_calls": [{"name": "delete_record", "arguments": {"record_id": "r-17"}}]}
    agent = ToolCallingAgent(
        "t", ScriptedLLM([call, "Not done."]), tools=[delete_record], approve_tool=lambda c: verdict, verbose=False
    )
    assert agent.run("Delete record r-17.") == "Not done." and DONE == []
    approval = agent.last_result.steps_of("approval")[0].content
    assert len(approval) < 1000


@pytest.mark.parametrize("approve", [True, "yes", 1])
def test_a_plan_approver_that_is_no_function_is_refused_when_the_agent_is_made(approve: Any) -> None:
    with pytest.raises(ValueError, match="approve must be a plain function"):
        PlanExecuteAgent("p", ScriptedLLM([]), approve=approve)


def test_an_async_plan_approver_is_refused_when_the_agent_is_made() -> None:
    async def approve(plan: Any) -> bool:
        return True

    with pytest.raises(ValueError, match="not async"):
        PlanExecuteAgent("p", ScriptedLLM([]), approve=approve)


def test_an_evaluator_s_huge_feedback_reaches_the_reflector_clipped() -> None:
    sent: list[int] = []

    def model(messages: list[Any]) -> str:
        sent.append(sum(len(message.text) for message in messages))
        return "4"

    agent = ReflexionAgent(
        "r", ScriptedLLM([model] * 6), verbose=False, evaluator=lambda t, a: (False, 0, "E" * 2_000_000)
    )
    agent.run("What is 2+2?")
    assert sent and max(sent) < 100_000
