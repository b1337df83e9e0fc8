"""A multi-turn chat in a dozen lines (``vero chat`` is the full-featured version).

Run:  python examples/chat_repl.py      (needs OPENAI_API_KEY or OPENAI_BASE_URL, see README)
"""

from vero import ChatOpenAI
from vero.agents import ToolCallingAgent
from vero.tool.builtin import calculator, current_time

agent = ToolCallingAgent("assistant", ChatOpenAI(), tools=[calculator, current_time], verbose=False)
while True:
    try:
        text = input("You: ").strip()
    except (EOFError, KeyboardInterrupt):  # Ctrl-D / Ctrl-C
        break
    if text.lower() in {"bye", "exit", "quit"}:
        break
    if text:
        print("Assistant: ", end="")
        agent.run(text, on_token=lambda delta: print(delta, end="", flush=True))  # streams the answer
        print(f"\n(error: {agent.last_result.error})" if agent.last_result.error else "")
