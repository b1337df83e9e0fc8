"""``AgentOptions``: the shared settings, one validated value handed to sub-agents whole."""

import ast
import dataclasses
import inspect
import typing
from pathlib import Path

import pytest

from vero import Agent, AgentOptions
from vero.agents import BasicReflectionAgent, PlanExecuteAgent, ReActAgent, ReflexionAgent
from vero.core.options import AgentKeywords, SharedSettings, Unpack
from vero.testing import ScriptedLLM

ROOT = Path(__file__).resolve().parents[1]


def test_keyword_settings_and_an_options_value_give_the_same_agent():
    by_keyword = ReActAgent("a", ScriptedLLM([]), history_window=4, json_retries=1, verbose=False)
    by_value = ReActAgent("a", ScriptedLLM([]), options=AgentOptions(history_window=4, json_retries=1), verbose=False)
    assert by_keyword.options == by_value.options == AgentOptions(history_window=4, json_retries=1)
    assert by_keyword.history_window == 4 and by_keyword.json_retries == 1


def test_a_keyword_setting_overrides_the_options_value():
    agent = ReActAgent("a", ScriptedLLM([]), options=AgentOptions(history_window=4), history_window=9, verbose=False)
    assert agent.options.history_window == 9


def test_a_sub_agent_gets_the_options_whole_and_may_change_one():
    parent = PlanExecuteAgent(
        "p", ScriptedLLM([]), options=AgentOptions(max_observation_chars=123, json_retries=0), verbose=False
    )
    assert parent.subagent(ReActAgent, "child").options is parent.options
    child = parent.subagent(ReActAgent, "child", history_window=3)
    assert child.options == AgentOptions(max_observation_chars=123, json_retries=0, history_window=3)


def test_every_unknown_setting_is_named():
    with pytest.raises(TypeError, match="unexpected keyword arguments: histroy_window, json_retry"):
        ReActAgent("a", ScriptedLLM([]), histroy_window=3, json_retry=1)


@pytest.mark.parametrize(
    "settings, problem",
    [
        ({"json_retries": -1}, "json_retries must be an int of 0 or more, got -1"),
        ({"max_tool_calls_per_reply": 0}, "max_tool_calls_per_reply must be a positive int, got 0"),
        ({"max_observation_chars": "8000"}, "max_observation_chars must be a positive int, got '8000'"),
        ({"history_window": True}, "history_window must be an int of 0 or more, got True"),
    ],
)
def test_a_bad_value_is_refused_when_the_agent_is_created(settings, problem):
    with pytest.raises(ValueError, match=problem):
        ReActAgent("a", ScriptedLLM([]), **settings)


def test_options_cannot_change_under_a_running_agent():
    agent = ReActAgent("a", ScriptedLLM([]), verbose=False)
    with pytest.raises(AttributeError):
        agent.options.history_window = 1  # type: ignore[misc]
    agent.history_window = 1  # no setting (its deprecated alias only read agent.options)
    assert agent.options.history_window == AgentOptions().history_window


# -- the keyword arguments are typed for type checkers -------------------------------------------
def test_the_typed_keywords_are_the_agents_keyword_arguments_and_the_shared_settings():
    keyword_only = [
        p.name
        for p in inspect.signature(Agent.__init__).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    assert set(SharedSettings.__annotations__) == {f.name for f in dataclasses.fields(AgentOptions)}
    assert set(AgentKeywords.__annotations__) == set(SharedSettings.__annotations__) | set(keyword_only)


@pytest.mark.parametrize("pattern", [ReActAgent, ReflexionAgent, PlanExecuteAgent, BasicReflectionAgent])
def test_each_pattern_passes_its_other_keywords_on_typed(pattern):
    base_options = inspect.signature(pattern.__init__).parameters["base_options"]
    assert base_options.kind is inspect.Parameter.VAR_KEYWORD and base_options.annotation == "Unpack[AgentKeywords]"
    # the hints resolve at run time too (documentation tools and validators read them)
    assert typing.get_type_hints(pattern.__init__)["base_options"] == Unpack[AgentKeywords]
    assert typing.get_type_hints(Agent.__init__)["settings"] == Unpack[SharedSettings]


def test_type_checkers_see_the_agent_classes_that_load_on_first_use():
    import vero.agents

    def seen(path: Path) -> set[str]:  # the names imported "as X" for type checkers
        tree = ast.parse(path.read_text(encoding="utf-8"))
        return {a.asname for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for a in node.names if a.asname}

    assert seen(ROOT / "vero" / "agents" / "__init__.py") == set(vero.agents.__all__)
    # the agents, the agent and the model client, which `from vero import` loads lazily
    assert seen(ROOT / "vero" / "__init__.py") == {*vero._AGENTS, *vero._CORE_LATER}
    assert (ROOT / "vero" / "py.typed").exists() and '"py.typed"' in (ROOT / "pyproject.toml").read_text()
