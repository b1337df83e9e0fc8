"""ReActAgent with the calculator: Thought -> Action -> Observation -> ... -> Final Answer.

Run:  python examples/react_calculator.py
"""

from vero import ChatOpenAI
from vero.agents import ReActAgent
from vero.tool.builtin import calculator

agent = ReActAgent("math", ChatOpenAI(), tools=[calculator], max_turns=6)
answer = agent.run(
    "A loan of $12,000 at 4.5% yearly interest, compounded monthly, is repaid in one payment after 3 years. "
    "How much is repaid? Use the calculator, and round to cents."
)
print("Answer:", answer)

result = agent.last_result
print("Status:", result.status, "| model calls:", result.llm_calls, "| tokens:", result.usage.get("total_tokens"))
for step in result.steps_of("action"):
    print("Tool call:", step.content)
