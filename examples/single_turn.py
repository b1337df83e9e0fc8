"""One task per agent, printing the answer, the status and the elapsed time (like the original's driver).

Run:  python examples/single_turn.py [reflection|react|chat|plan|reflexion]   (default: react)
"""

import sys
import time

from vero import ChatOpenAI
from vero.agents import BasicReflectionAgent, PlanExecuteAgent, ReActAgent, ReflexionAgent, ToolCallingAgent
from vero.tool.builtin import calculator, web_search

TOOLS = [calculator, web_search]
TASKS = {
    "reflection": (BasicReflectionAgent, "Explain in three sentences why the sky is blue."),
    "react": (ReActAgent, "What is 17.5% of 2,480, plus the square root of 1,764?"),
    "chat": (ToolCallingAgent, "How many seconds are there in a leap year?"),
    "plan": (PlanExecuteAgent, "Compare the populations of Tokyo and Paris and give the ratio."),
    "reflexion": (ReflexionAgent, "Write a haiku about the sea whose lines have exactly 5, 7 and 5 syllables."),
}


def test_single_turn_agent(agent_class, task: str, max_turns: int = 5) -> None:
    start = time.perf_counter()
    agent = agent_class("test-agent", ChatOpenAI(), tools=TOOLS, max_turns=max_turns)
    answer = agent.run(task)  # prints each step (verbose=True is the default)
    print(f"🏁 Final LLM Answer: {answer}\n")
    print(f"📊 Status: {agent.last_result.status}, {agent.last_result.llm_calls} model calls")
    print(f"⏳ Elapsed: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    agent_class, task = TASKS[sys.argv[1] if len(sys.argv) > 1 else "react"]
    test_single_turn_agent(agent_class, task)
