"""Bad input, as a thirty-fourth outside probe found it: a tool with no time limit that raises KeyboardInterrupt
under ``arun`` (vero's own thread, where no Ctrl-C lands) is an observation, not the end of the caller's event loop."""

from __future__ import annotations

import asyncio
import math

from vero import tool
from vero.agents import ToolCallingAgent
from vero.testing import ScriptedLLM


@tool(timeout=math.inf)
def lookup(key: str) -> str:
    """Look a key up."""
    raise KeyboardInterrupt  # a library's own, as a closed prompt raises it


def test_a_tools_keyboard_interrupt_under_arun_is_an_observation_and_the_loop_goes_on():
    beats: list[int] = []

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(0.01)
            beats.append(1)

    async def main() -> str:
        beating = asyncio.create_task(heartbeat())
        llm = ScriptedLLM([{"tool_calls": [{"name": "lookup", "arguments": {"key": "k"}}]}, "done"])
        agent = ToolCallingAgent("a", llm, tools=[lookup], verbose=False)
        [answer] = await asyncio.gather(agent.arun("Look k up."))
        await asyncio.sleep(0.05)
        beating.cancel()
        observation = agent.last_result.steps_of("observation")[0].content
        assert observation == "Error: tool 'lookup' raised KeyboardInterrupt"
        return answer

    assert asyncio.run(main()) == "done" and beats  # the other task went on beating
