"""A failed tool call whose id the model made up, when another tool's result already gave the id.

Asked what fraction of its greenhouse's capacity the Frostvine stock fills, a small model's plan
step calls ``greenhouse_info(greenhouse_id='12345')`` (or ``'moonpetal_lily'``, a plant's name
written as an id), although ``find_plant`` already returned ``"greenhouse_id": "GH-05"``; told
that the call failed, it makes the same call again (seen on Qwen2.5-Coder-1.5B).  So when a failed
call's value is in neither the task nor any earlier result (made up), and the earlier results of
other tools give exactly one id under a field named like the parameter, ``run_with_given_id`` runs
the call again with that id; the model is told that it did.  If that call fails too, the model gets
the first error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vero.core.parsing import args_text, output_record
from vero.core.rerun import read_failed_call, run_again, told, worked_results
from vero.core.text import folded, looks_like_id
from vero.tool.registry import ToolOutcome

if TYPE_CHECKING:  # the agent's module imports this one
    from vero.core.agent import Agent

RAN_WITH_GIVEN_ID = ("({key} {value!r} is in neither the task nor any result; {source} gave {key} {given!r}: "
                     "ran {call} instead:)\n")


def run_with_given_id(agent: Agent, name: str, args: Any, failure: ToolOutcome) -> ToolOutcome | None:
    """The failed call run again (``agent.run_tool``) with the id another tool's result gave for the
    value it made up (see ``given_id``); None if there is none, or if it fails again.

    Only an error the tool gave counts (see ``read_failed_call``).
    """
    call = read_failed_call(agent, name, args, failure)
    if call is None:
        return None
    _, args = call
    found = given_id(args, name, told(agent), worked_results(agent), failure.output)
    if found is None:
        return None
    key, given, source = found
    written = {**args, key: given}
    note = RAN_WITH_GIVEN_ID.format(key=key, value=args[key], source=source, given=given,
                                    call=f"{name}({args_text(written)})")
    return run_again(agent, name, written, f"the failed call's {key}={args[key]!r} is in neither the task nor any "
                                           f"result; run again with the {key} {source} gave, {given!r}", note,
                     given_id=key)


def given_id(args: dict[str, Any], tool: str, task: str, results: list[tuple[str | None, str]],
             error: str) -> tuple[str, str, str] | None:
    """``(parameter, id, source)`` for the first of ``args`` whose value is made up and that the
    ``results`` (``(tool, output)`` of the earlier calls that worked) of other tools than ``tool``
    give exactly one id for (``GH-05`` under ``greenhouse_id``, from ``find_plant``); else None.

    Made up: a text found in neither the task (with the conversation before it) nor any result, that
    the tool's ``error`` names.  Not a parameter named only ``id``, nor a field that is the record's
    own id (``employee_id`` in ``find_employee``'s result, when the call asks for the manager's):
    only a link to another tool's record counts.  Not two different ids (two plants in two
    greenhouses): which one the call meant is the model's to say.
    """
    seen = folded("\n".join([task, *(output for _, output in results)]))
    for key, value in args.items():
        if key.casefold() == "id" or not isinstance(value, str) or folded(value) in seen \
                or folded(value) not in folded(error):
            continue
        ids: dict[str, str] = {}
        for source, output in results:
            found = output_record(output).get(key)
            if source is not None and source != tool and isinstance(found, str) and looks_like_id(found) \
                    and not _own_id(key, source):
                ids.setdefault(found, source)
        if len(ids) == 1:
            given, source = next(iter(ids.items()))
            return key, given, source
    return None


def _own_id(field: str, source: str) -> bool:
    """True when ``field`` is the id of the record that ``source`` finds (``employee_id`` from
    ``find_employee``, ``order_id`` from ``get_order``), not a link to another record."""
    kind = field.casefold().removesuffix("id").strip("_- ")
    return bool(kind) and kind in source.casefold()
