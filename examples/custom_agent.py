"""Two ways to make your own agent.

1. A new pattern: subclass ``Agent`` and write the loop in ``solve``, using the
   base class helpers: ``turns()`` (the turn budget), ``call_llm`` (usage and
   token budget), ``record`` (a step: printed when verbose, kept in
   ``last_result.steps``) and ``run_tool``.
2. A variation: subclass an existing agent and override one step.

Run:  python examples/custom_agent.py
"""

import sys
from collections import Counter

from vero import Agent, ChatOpenAI, LLMConfigError, Message, Outcome, Status, StepKind
from vero.agents import ReActAgent
from vero.tools import ToolOutcome
from vero.tools.builtin import calculator, python_exec

NO_MODEL = (
    "No model endpoint is configured: set OPENAI_API_KEY, or OPENAI_BASE_URL and MODEL_NAME\n"
    "for a local server, in the environment or .env.  (`vero demo` runs without a model.)"
)


class SelfConsistencyAgent(Agent):
    """Sample several answers and return the most common one (Wang et al., 2022)."""

    default_max_turns = 5  # samples

    def solve(self, task: str, **kwargs):
        prompt = [
            Message.system("Think briefly, then give only the final answer on the last line."),
            *self.history_messages(),
            Message.user(task),
        ]
        answers = []
        for _ in self.turns():
            reply = self.call_llm(prompt, temperature=1.0)
            lines = reply.text.strip().splitlines() or [""]
            answers.append(lines[-1].strip())
            self.record("sample", answers[-1])
        answer, votes = Counter(answers).most_common(1)[0]
        self.record("vote", f"{votes} of {len(answers)} samples agree")
        if votes * 2 > len(answers):
            return answer  # status "ok"
        return Outcome(answer, Status.NEEDS_REVIEW)  # no majority


class CarefulReActAgent(ReActAgent):
    """ReAct that asks you before it runs any tool: only ``run_tool`` changes."""

    def run_tool(self, name: str, args) -> ToolOutcome:
        try:
            reply = input(f"Run {name}({args})? [y/N] ")
        except EOFError:  # no more input (e.g. stdin is not a terminal): that is a "no"
            print()
            reply = ""
        if reply.strip().lower() not in ("y", "yes"):
            self.record(StepKind.WARNING, f"the user refused to run {name}")
            return ToolOutcome("The user refused to run this tool. Continue without it.", ok=False, error="refused")
        return super().run_tool(name, args)


if __name__ == "__main__":
    try:
        llm = ChatOpenAI()
    except LLMConfigError:
        print(NO_MODEL, file=sys.stderr)
        sys.exit(2)
    # verbose (the default): each agent prints its steps, its final answer, status and time
    voter = SelfConsistencyAgent("voter", llm, max_turns=5)
    voter.run(
        "A bat and a ball cost $1.10 in total. The bat costs $1.00 more than the ball. How much does the ball cost?"
    )

    careful = CarefulReActAgent("careful", llm, tools=[calculator, python_exec], max_turns=5)
    careful.run("What is the 30th Fibonacci number?")
    sys.exit(1 if "failed" in (voter.last_result.status, careful.last_result.status) else 0)
