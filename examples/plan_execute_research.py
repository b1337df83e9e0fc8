"""PlanExecuteAgent on a multi-step research task: plan -> approve -> execute each step -> replan.

Each step runs through a ReAct sub-agent with the web search and the calculator.
With --approve you review the plan first: y runs it, n stops, anything else is
feedback for the planner.

Run:  python examples/plan_execute_research.py [--approve]
"""

import sys

from vero import ChatOpenAI, LLMConfigError, Status
from vero.agents import PlanExecuteAgent
from vero.tools.builtin import calculator, web_search

NO_MODEL = (
    "No model endpoint is configured: set OPENAI_API_KEY, or OPENAI_BASE_URL and MODEL_NAME\n"
    "for a local server, in the environment or .env.  (`vero demo` runs without a model.)"
)
TASK = (
    "Find the heights of the three tallest buildings in the world, "
    "then compute their average height in metres and in feet."
)


def ask(plan):
    # the plan has just been printed as a step (verbose=True); plan.render() gives the same text
    reply = input("Approve plan? [y]es / [n]o / or type feedback: ").strip()
    return True if reply.lower() in ("", "y", "yes") else False if reply.lower() in ("n", "no") else reply


if __name__ == "__main__":
    try:
        llm = ChatOpenAI()
    except LLMConfigError:
        print(NO_MODEL, file=sys.stderr)
        sys.exit(2)
    agent = PlanExecuteAgent(
        "researcher", llm, tools=[web_search, calculator], approve=ask if "--approve" in sys.argv else None, max_turns=8
    )
    agent.run(TASK)  # verbose: prints the plan, each step, the answer and its status (ok, rejected, max_turns, failed)
    sys.exit(1 if agent.last_result.status == Status.FAILED else 0)
