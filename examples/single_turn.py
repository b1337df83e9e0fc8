"""One task per agent, like the original framework's driver: the agent prints each step and
its final answer as it works, then this script prints the total time.

Run:  python examples/single_turn.py [react|chat|reflection|plan|reflexion]   (default: react)
"""

import sys
import time

from vero import ChatOpenAI, LLMConfigError, Status
from vero.agents import BasicReflectionAgent, PlanExecuteAgent, ReActAgent, ReflexionAgent, ToolCallingAgent
from vero.tools.builtin import calculator, web_search

NO_MODEL = (
    "No model endpoint is configured: set OPENAI_API_KEY, or OPENAI_BASE_URL and MODEL_NAME\n"
    "for a local server, in the environment or .env.  (`vero demo` runs without a model.)"
)
TOOLS = [calculator, web_search]
TASKS = {
    "reflection": (BasicReflectionAgent, "Explain in three sentences why the sky is blue."),
    "react": (ReActAgent, "What is 17.5% of 2,480, plus the square root of 1,764?"),
    "chat": (ToolCallingAgent, "How many seconds are there in a leap year?"),
    "plan": (PlanExecuteAgent, "Compare the populations of Tokyo and Paris and give the ratio."),
    "reflexion": (ReflexionAgent, "Write a haiku about the sea whose lines have exactly 5, 7 and 5 syllables."),
}


def test_single_turn_agent(agent_class, task: str, max_turns: int = 5) -> str:
    """Run one task, as the original framework's driver did; returns the answer."""
    return run_single_turn(agent_class, task, max_turns).answer


def run_single_turn(agent_class, task: str, max_turns: int = 5):
    start = time.perf_counter()
    agent = agent_class("test-agent", ChatOpenAI(), tools=TOOLS, max_turns=max_turns)
    # verbose=True (the default): the agent prints its steps, then the final answer, the
    # status and the run's own time ("Elapsed").  The total below also counts creating the client.
    agent.run(task)
    print(f"⏱️ Total time, creating the client included: {time.perf_counter() - start:.1f} s")
    return agent.last_result


if __name__ == "__main__":
    name = sys.argv[1] if len(sys.argv) > 1 else "react"
    if name not in TASKS:
        sys.exit(f"usage: python examples/single_turn.py [{'|'.join(TASKS)}]")
    agent_class, task = TASKS[name]
    try:
        result = run_single_turn(agent_class, task)
    except LLMConfigError:
        print(NO_MODEL, file=sys.stderr)
        sys.exit(2)
    sys.exit(1 if result.status == Status.FAILED else 0)
