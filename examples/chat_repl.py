"""A multi-turn chat in a few lines (``vero chat`` is the full-featured version).

Run:  python examples/chat_repl.py      (needs OPENAI_API_KEY or OPENAI_BASE_URL, see README)

Ctrl-C during a reply cancels it (the conversation is unchanged); Ctrl-C at
the prompt, Ctrl-D, bye, exit or quit leave.
"""

import sys

from vero import ChatOpenAI, LLMConfigError
from vero.agents import ToolCallingAgent
from vero.tools.builtin import calculator, current_time

NO_MODEL = (
    "No model endpoint is configured: set OPENAI_API_KEY, or OPENAI_BASE_URL and MODEL_NAME\n"
    "for a local server, in the environment or .env.  (`vero demo` runs without a model.)"
)


def main() -> int:
    try:
        llm = ChatOpenAI()
    except LLMConfigError:
        print(NO_MODEL, file=sys.stderr)
        return 2
    agent = ToolCallingAgent("assistant", llm, tools=[calculator, current_time], verbose=False)
    while True:
        try:
            text = input("You: ").strip()
        except (EOFError, KeyboardInterrupt):  # Ctrl-D / Ctrl-C
            print()
            return 0
        if text.lower() in {"bye", "exit", "quit"}:
            return 0
        if not text:
            continue
        print("Assistant: ", end="")
        try:
            agent.run(text, on_token=lambda delta: print(delta, end="", flush=True))  # streams the answer
        except KeyboardInterrupt:  # Ctrl-C during a reply: the turn is dropped, the chat goes on
            print("\n(cancelled)")
            continue
        print(f"\n(error: {agent.last_result.error})" if agent.last_result.error else "")


if __name__ == "__main__":
    sys.exit(main())
