"""``vero demo`` shows what the agents really do: each scene's scripted replies answer the requests the
script says they answer, every reply is used, and every tool result it shows was computed by the tool."""

from __future__ import annotations

import pytest

from vero._console import agent_class
from vero._demo import tour
from vero.agents.basic_reflection import BasicReflectionAgent
from vero.agents.plan_execute import PlanExecuteAgent, StepExecutor
from vero.agents.reflexion import ReflexionAgent
from vero.core.result import Status
from vero.testing import ScriptedLLM
from vero.tools.builtin import BUILTIN_TOOLS

# Which part of an agent sent a request, by the prompt constant its system message starts with.
ROLES = [
    (PlanExecuteAgent.planner_prompt, "planner"),
    (PlanExecuteAgent.replan_prompt, "replanner"),
    (BasicReflectionAgent.reflect_prompt, "critic"),
    (BasicReflectionAgent.revise_prompt, "reviser"),
    (ReflexionAgent.evaluate_prompt, "evaluator"),
    (ReflexionAgent.reflect_prompt, "reflector"),
]

# Each scene's script, reply by reply: the request each reply answers.
SCRIPTS = {
    "chat": ["agent", "agent"],
    "reflection": ["agent", "critic", "reviser", "critic"],
    "react": ["agent", "agent"],
    "plan": ["planner", "step", "replanner", "step", "step", "replanner"],
    "reflexion": ["agent", "evaluator", "reflector", "agent", "evaluator"],
}


def role_of(request) -> str:
    messages = request.messages
    system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
    if StepExecutor.text_prompts.instructions.split("{tools}")[1].split("{names}")[0] in system:
        return "step"
    return next((role for prompt, role in ROLES if system.startswith(prompt.split("{")[0])), "agent")


def scripted_calls(replies) -> int:
    """The tool calls the scene's replies make: native calls and ReAct's Action lines."""
    return sum(len(r.get("tool_calls", [])) if isinstance(r, dict) else r.count("\nAction:") for r in replies)


@pytest.mark.parametrize("scene", tour(), ids=lambda scene: scene["agent"])
def test_each_demo_scenes_steps_match_its_script(scene):
    assert len(SCRIPTS[scene["agent"]]) == len(scene["replies"])  # the test knows every reply of the scene
    llm = ScriptedLLM(list(scene["replies"]))
    tools = [BUILTIN_TOOLS[name] for name in scene.get("tools", [])]
    agent = agent_class(scene["agent"])("demo", llm, tools=tools, verbose=False)
    agent.run(scene["task"])
    result = agent.last_result
    assert result.status == Status.OK and llm.remaining == 0 and llm.calls == len(scene["replies"])
    assert [role_of(request) for request in llm.requests] == SCRIPTS[scene["agent"]]
    actions, observations = result.steps_of("action"), result.steps_of("observation")
    assert len(actions) == len(observations) == scripted_calls(scene["replies"])
    assert not [o.content for o in observations if o.content.startswith("Error")]  # each tool result was computed
