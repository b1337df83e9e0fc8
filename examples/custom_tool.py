"""Write your own tool: a typed function, a docstring with an ``Args:`` section, and ``@tool``.

The JSON schema the model sees comes from the type hints; the descriptions come
from the docstring.  Errors (a bad argument, an exception) become observations
the model can read; they never crash the agent.

Run:  python examples/custom_tool.py
"""

import json
import sys
from typing import Literal

from vero import ChatOpenAI, LLMConfigError, Status, tool
from vero.agents import ReActAgent

NO_MODEL = (
    "No model endpoint is configured: set OPENAI_API_KEY, or OPENAI_BASE_URL and MODEL_NAME\n"
    "for a local server, in the environment or .env.  (`vero demo` runs without a model.)"
)
RATES_TO_EUR = {"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "JPY": 0.0061}


@tool
def convert_currency(amount: float, source: Literal["EUR", "USD", "GBP", "JPY"], target: str = "EUR") -> str:
    """Convert an amount of money between currencies (fixed demo rates).

    Args:
        amount: how much money, in the source currency
        source: the currency code of the amount
        target: the currency code to convert to
    """
    if target not in RATES_TO_EUR:
        raise ValueError(f"unknown currency {target!r}; known: {', '.join(RATES_TO_EUR)}")
    value = amount * RATES_TO_EUR[source] / RATES_TO_EUR[target]
    return f"{amount:g} {source} = {value:.2f} {target}"


if __name__ == "__main__":
    print(json.dumps(convert_currency.schema, indent=2))  # what the model is told
    print(convert_currency(100, "USD", "GBP"))  # a tool is still a plain function

    try:
        llm = ChatOpenAI()
    except LLMConfigError:
        print(NO_MODEL, file=sys.stderr)
        sys.exit(2)
    # verbose (the default): the agent prints its steps and the final answer itself
    agent = ReActAgent("traveller", llm, tools=[convert_currency], max_turns=5)
    agent.run("I have 250 US dollars and 12,000 yen. How many British pounds is that in total?")
    sys.exit(1 if agent.last_result.status == Status.FAILED else 0)
