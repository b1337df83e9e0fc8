"""A failed tool call whose error suggests the value it meant ("Did you mean: Moonpetal Lily?").

Asked "How many Moon Petal Lilies are in stock?", plan-and-execute's executors called
``find_plant(name='Moon Petal Lilies')``, read ``no plant named 'Moon Petal Lilies'. Did you mean:
Moonpetal Lily?``, and made the same call again or answered with the error, step after step (seen
on Qwen2.5-Coder-1.5B; the other agents took the suggestion, one or two model calls later).  So
when the error suggests exactly one value for the failed value, ``run_with_suggestion`` runs the
call again with it; the model is told that it did.  If that call fails too, the model gets the
first error.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from vero.core.parsing import args_text, reports_error
from vero.core.rerun import read_call, run_again
from vero.tool.registry import ToolOutcome

if TYPE_CHECKING:  # the agent's module imports this one
    from vero.core.agent import Agent

RAN_SUGGESTION = "(The error suggests {suggested!r} for {value!r}: ran {call} instead:)\n"
# "Did you mean: Moonpetal Lily?", "did you mean 'Velvet Nettle'?", "Did you mean `GH-04`?"
_SUGGESTION = re.compile(r"\bdid you mean\b\s*:?\s*(?P<text>[^?\n]{1,80}?)\s*\?", re.IGNORECASE)
_QUOTED = re.compile(r"""^(['"`\u2018\u201c])(.*)['"`\u2019\u201d]$""")
_SEVERAL = re.compile(r",|;|\bor\b|\bone of\b", re.IGNORECASE)


def run_with_suggestion(agent: Agent, name: str, args: Any, failure: ToolOutcome) -> ToolOutcome | None:
    """The failed call run again (``agent.run_tool``) with the value its error suggests (see
    ``suggested``); None if there is none, or if it fails again.

    Only an error the tool gave (it raised, or returned an error report) counts.
    """
    call = read_call(agent, name, args)
    if call is None or not (failure.error == "exception" or (failure.ok and reports_error(failure.output))):
        return None
    _, args = call
    found = suggested(args, failure.output)
    if found is None:
        return None
    key, value = found
    written = {**args, key: value}
    note = RAN_SUGGESTION.format(suggested=value, value=args[key], call=f"{name}({args_text(written)})")
    return run_again(agent, name, written, f"the failed call's error suggests {value!r} for {key}={args[key]!r}; "
                                           "run again with it", note, suggested=key)


def suggested(args: dict[str, Any], error: str) -> tuple[str, str] | None:
    """``(parameter, value)`` when ``error`` suggests exactly one value ("Did you mean: X?") in place
    of the one text argument whose whole value it names; else None.

    Not a list of suggestions ("'A' or 'B'", "one of A, B"): which one is meant is the model's to say.
    Not an error about a part of an argument (Python's "name 'x' is not defined. Did you mean: 'y'?"
    for ``python_exec(code='print(x)')``): the whole value must be the one named.
    """
    matches = _SUGGESTION.findall(error)
    if len(matches) != 1:
        return None
    text = matches[0].strip()
    quoted = _QUOTED.match(text)
    value = quoted.group(2).strip() if quoted else text
    if not value or _SEVERAL.search(value) or re.search(r"""['"`]""", value):
        return None
    named = [key for key, given in args.items() if isinstance(given, str) and given.strip()
             and re.search(rf"(?<!\w){re.escape(given.strip())}(?!\w)", error, re.IGNORECASE)]
    if len(named) != 1 or args[named[0]].strip() == value:
        return None
    return named[0], value
