"""ReActAgent with the calculator: Thought -> Action -> Observation -> ... -> Final Answer.

Run:  python examples/react_calculator.py

The agent prints its steps and the final answer (verbose, the default); the
script then reads the tool calls back from ``last_result``.  Exit code 1 if the
run failed, 2 if no model endpoint is configured.
"""

import sys

from vero import ChatOpenAI, LLMConfigError, Status, StepKind
from vero.agents import ReActAgent
from vero.tools.builtin import calculator

NO_MODEL = (
    "No model endpoint is configured: set OPENAI_API_KEY, or OPENAI_BASE_URL and MODEL_NAME\n"
    "for a local server, in the environment or .env.  (`vero demo` runs without a model.)"
)


if __name__ == "__main__":
    try:
        llm = ChatOpenAI()
    except LLMConfigError:
        print(NO_MODEL, file=sys.stderr)
        sys.exit(2)
    agent = ReActAgent("math", llm, tools=[calculator], max_turns=6)
    agent.run(
        "A loan of $12,000 at 4.5% yearly interest, compounded monthly, is repaid in one payment after 3 years. "
        "How much is repaid? Use the calculator, and round to cents."
    )
    result = agent.last_result  # the answer, status, time and usage were printed by the agent
    for step in result.steps_of(StepKind.ACTION):
        print("Tool call:", step.content)
    sys.exit(1 if result.status == Status.FAILED else 0)
