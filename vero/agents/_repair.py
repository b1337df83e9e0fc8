"""Repairing a failed tool call when the model gives up (ReAct and native tool calling).

A small model whose tool call fails ("no plant named 'Moon Petal Lilies'. Did you
mean: Moonpetal Lily?") often answers with an apology, or repeats the error, instead
of calling again; nudges in the conversation did not change that.  Asked in a
separate, short request to correct the failed call from its error, the same model
often does.

So when the model answers without a call while every call of the run has failed,
vero shows it the task, the failed calls with their errors and the tools, and asks
for the corrected call (once more if the reply repeats a call already made).  If the
reply names a registered tool with new arguments, that call takes the place of the
answer and runs; a ``warning`` step keeps the answer it replaced.  At most ``limit``
repairs per run (the agent's ``max_repairs``, ``MAX_REPAIRS`` by default), each one or
two requests, and none while the failed calls are the same as at the last one (the
same request would get the same reply).

Not done for a call repeated after it failed: there the request made the model fix
the arguments of a call that needed another tool, and vero's "Not run" note, which
lists the tools, did better.
"""

from __future__ import annotations

import json
from typing import Any

from vero.agents._native import echoes
from vero.core.agent import Agent, tool_calls
from vero.core.message import Message, ToolCall
from vero.core.parsing import normalized_arguments, tool_calls_in_text
from vero.core.result import StepKind, ToolError
from vero.core.text import clip

REPAIR_PROMPT = """Fix a failed tool call.
The task: {task}
{failed}
The tools:
{tools}
Read the error: correct the arguments as it says, or pick the tool that fits. \
Reply with only the corrected call as JSON: {{"name": "<tool>", "arguments": {{...}}}}"""
# Asked to repair, a small model often writes the failed call again; told so once, it writes another.
REPAIR_AGAIN = "That call was made already and failed. Write a different call: other arguments, or another tool."
MAX_REPAIRS = 2  # per run, by default
MAX_CALLS_SHOWN = 3  # the latest distinct failed calls shown in the request


def with_repaired_call(agent: Agent, reply: Message, limit: int = MAX_REPAIRS) -> Message:
    """``reply`` (native tool calls), or, when it gives up after only failed calls, a reply making
    the repaired call."""
    call = None if reply.tool_calls or reply.truncated else repair(agent, reply.text, limit)
    if call is None:
        return reply
    return Message("assistant", None, tool_calls=[call], usage=reply.usage, finish_reason=reply.finish_reason)


def repair(agent: Agent, answer: str, limit: int = MAX_REPAIRS) -> ToolCall | None:
    """The call to make instead of ``answer`` when every tool call of the run failed, else None."""
    if limit < 1 or not agent.tools or not agent.only_failed_tools():
        return None
    failed, notes = failed_calls_text(agent), agent.current_run.notes
    if notes.get("repair_shown") == failed or agent.tally("repair") > limit:
        return None
    notes["repair_shown"] = failed
    if not echoes(agent, answer):  # kept in case a budget ends the run during the repair
        agent.keep_partial(answer)
    call = repaired_call(agent, failed)
    if call is not None:
        agent.record(StepKind.WARNING, f"every tool call failed and the reply made none; a separate request repaired "
                     f"the call: {call.name}({call.arguments})", repaired=True, raw=answer)
    return call


def repaired_call(agent: Agent, failed: str) -> ToolCall | None:
    """The call the model writes when shown the task, the ``failed`` calls and their errors; None if
    it writes no call of a registered tool, or only a call made before."""
    request = [Message.user(REPAIR_PROMPT.format(task=agent.task, failed=failed, tools=agent.tools.short_lines()))]
    text = agent.call_llm(request).text
    call = _call_in(agent, text)
    if call is not None and agent.earlier_results(call.name, call.arguments):
        request += [Message.assistant(text), Message.user(REPAIR_AGAIN)]
        text = agent.call_llm(request).text
        call = _call_in(agent, text)
    if call is None or agent.earlier_results(call.name, call.arguments):
        agent.record(StepKind.WARNING, "a separate request to repair a failed call wrote no new call", raw=text)
        return None
    return call


def failed_calls_text(agent: Agent) -> str:
    """The run's latest distinct failed calls, each with the start of its error."""
    latest: dict[str, str] = {}
    for action, result in tool_calls(agent.steps_so_far()):
        if result.data.get("error") == ToolError.REPEATED_FAILURE:  # vero's note, not the tool's error
            continue
        call = f"Call: {action.data.get('tool')}({_json(action.data.get('args'))})"
        latest.pop(call, None)
        latest[call] = clip(" ".join(result.content.split()), 300, " ...")
    return "\n".join(f"{call}\nError: {error}" for call, error in list(latest.items())[-MAX_CALLS_SHOWN:])


def _call_in(agent: Agent, text: str) -> ToolCall | None:
    found = tool_calls_in_text(text, agent.tools.names())
    return found.calls[0] if found is not None else None


def _json(args: Any) -> str:
    args = normalized_arguments(args)
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
