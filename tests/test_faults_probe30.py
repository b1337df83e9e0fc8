"""What a thirtieth outside probe of bad input found in the approval gates and the verdicts: a replanned step that
differs from an approved one by more than an end stop (``/srv/app/cache/..``, the parent folder), an ``Approval``
whose ``approved`` is a string or a number, and an evaluator's ``passed`` that is an object true for being there."""

from __future__ import annotations

import json
import subprocess
import sys
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


@pytest.mark.parametrize("written", [APPROVED + ".", APPROVED + " ;", f"2. {APPROVED}."])
def test_a_step_with_an_end_stop_or_a_list_number_is_the_approved_one(written: str) -> None:
    assert in_order([written], [APPROVED])


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
