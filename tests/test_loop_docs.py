"""Each pattern's docs page shows its loop as it is: the page's ``solve`` block is the real method's source."""

from __future__ import annotations

import inspect
import re
import textwrap
from pathlib import Path

import pytest

from vero.agents.basic_reflection import BasicReflectionAgent
from vero.agents.plan_execute import PlanExecuteAgent
from vero.agents.reflexion import ReflexionAgent

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"```python\n(def solve\(.*?)```", re.DOTALL)


@pytest.mark.parametrize(
    "page, agent",
    [
        ("plan-execute.md", PlanExecuteAgent),
        ("reflexion.md", ReflexionAgent),
        ("basic-reflection.md", BasicReflectionAgent),
    ],
)
def test_the_docs_page_shows_the_real_solve_loop(page, agent):
    shown = BLOCK.findall((DOCS / page).read_text(encoding="utf-8"))
    real = textwrap.dedent(inspect.getsource(agent.solve))
    assert shown == [real], f"docs/{page}: copy {agent.__name__}.solve into the page as it is now:\n{real}"
