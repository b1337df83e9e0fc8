"""Scripts written for the original framework run unmodified.

``tests/data/seed_driver.py`` is the driver script of the original vero
repository (its ``run_agent``, ``run_multi_turn_agent`` and
``test_single_turn_agent`` helpers and its ``__main__`` block), copied as
published; only the indentation, lost in the published text, is restored.  It builds ``ChatOpenAI()`` from the
settings, so these tests point ``OPENAI_BASE_URL`` at a local
``MockOpenAIServer`` and reload the settings.
"""

from __future__ import annotations

import builtins
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import vero.config
from vero.testing import MockOpenAIServer

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "tests" / "data" / "seed_driver.py"

PARSE_JSON_TASK = """请用 Python 写一个函数 parse_json(text: str)。
要求:
使用 json.loads 解析传入的 text。
如果解析失败且抛出的是 json.JSONDecodeError,请返回空字典 {}。
【关键要求】如果抛出的是其他任何异常(例如传入了非字符串类型导致的 TypeError),不要捕获,必须让异常原样抛出。
只输出函数代码,不要输出测试用例和解释。
"""
PARSE_JSON_CODE = (
    "```python\nimport json\n\ndef parse_json(text: str):\n    try:\n        return json.loads(text)\n"
    "    except json.JSONDecodeError:\n        return {}\n```"
)
ACCEPT = json.dumps({"thinking": "Correct.", "is_sufficient": True, "feedback": ""})


@pytest.fixture
def srv(monkeypatch):
    with MockOpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-seed-test")
        vero.config.reload_settings()
        yield server


def load_driver(name="seed_driver"):
    """Import the driver script as a module (after the settings are in place)."""
    spec = importlib.util.spec_from_file_location(name, DRIVER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def system_prompt(request: dict) -> str:
    return request["messages"][0]["content"]


def test_run_agent_with_basic_reflection(srv):
    driver = load_driver()
    srv.enqueue(PARSE_JSON_CODE, ACCEPT)
    answer = driver.run_agent(driver.BasicReflectionAgent, PARSE_JSON_TASK)
    assert answer == PARSE_JSON_CODE
    assert len(srv.requests) == 2
    assert srv.requests[0]["messages"][-1]["content"] == PARSE_JSON_TASK


def test_single_turn_agent_with_react_uses_the_seed_tools(srv, capsys):
    driver = load_driver()
    assert [t.name for t in driver.tools] == ["math_calculator", "duckduckgo_search"]
    srv.enqueue(
        'Thought: compute it\nAction: math_calculator\nAction Input: {"expression": "(3 + 4) * 6"}',
        "Thought: I now know the final answer\nFinal Answer: 42",
    )
    driver.test_single_turn_agent(driver.ReActAgent, "What is (3 + 4) * 6?", max_turns=3)
    out = capsys.readouterr().out
    assert "🏁 Final LLM Answer: 42" in out
    assert "⏳ Elapsed:" in out
    assert "math_calculator" in system_prompt(srv.requests[0])
    assert "duckduckgo_search" in system_prompt(srv.requests[0])
    observation = srv.requests[1]["messages"][-1]["content"]
    assert observation == "Observation: 42"  # the aliased calculator really ran


@pytest.mark.parametrize("key, tool_name", [("TAVILY_API_KEY", "google_search"), ("BOCHA_API_KEY", "bocha_search")])
def test_search_tool_follows_the_settings_keys(srv, monkeypatch, key, tool_name):
    monkeypatch.setenv(key, "search-key")
    vero.config.reload_settings()
    driver = load_driver()
    assert [t.name for t in driver.tools] == ["math_calculator", tool_name]


def test_run_agent_with_tool_calling(srv):
    driver = load_driver()
    srv.enqueue({"tool_calls": [{"name": "math_calculator", "arguments": {"expression": "2**10"}}]}, "2**10 is 1024.")
    assert driver.run_agent(driver.ToolCallingAgent, "What is 2**10?") == "2**10 is 1024."
    tool_message = srv.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["content"] == "1024"


def test_run_agent_with_plan_execute(srv):
    driver = load_driver()
    srv.enqueue(
        json.dumps({"steps": ["Compute 2 + 2."]}),
        "Thought: easy\nFinal Answer: 4",
        json.dumps({"response": "2 + 2 = 4"}),
    )  # the replanner answers
    assert driver.run_agent(driver.PlanExecuteAgent, "What is 2 + 2?") == "2 + 2 = 4"


def test_run_agent_with_reflexion(srv):
    driver = load_driver()
    srv.enqueue("Thought: easy\nFinal Answer: 4", json.dumps({"pass": True, "reason": "correct", "score": 100}))
    assert driver.run_agent(driver.ReflexionAgent, "What is 2 + 2?") == "4"


def test_run_multi_turn_agent_keeps_history_until_bye(srv, monkeypatch, capsys):
    driver = load_driver()
    lines = iter(["My name is Ada.", "What is my name?", "bye"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(lines))
    srv.enqueue("Thought: greet\nFinal Answer: Hello Ada!", "Thought: I remember\nFinal Answer: You are Ada.")
    driver.run_multi_turn_agent(driver.ReActAgent)
    out = capsys.readouterr().out
    assert "Assistant: Hello Ada!" in out and "Assistant: You are Ada." in out
    assert "Exiting the conversation." in out
    sent = [m["content"] for m in srv.requests[1]["messages"]]
    assert "My name is Ada." in sent and "Hello Ada!" in sent


@pytest.mark.processes
def test_driver_script_runs_unmodified_as_main(srv, tmp_path):
    srv.enqueue(PARSE_JSON_CODE, ACCEPT)
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONIOENCODING="utf-8", NO_PROXY="127.0.0.1")
    done = subprocess.run(
        [sys.executable, str(DRIVER)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert f"🏁 Final LLM Answer: {PARSE_JSON_CODE}" in done.stdout
    assert "⏳ Elapsed:" in done.stdout
    assert srv.requests[0]["messages"][-1]["content"] == PARSE_JSON_TASK
