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
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

from vero.core.parsing import args_text
from vero.core.rerun import names_whole, read_failed_call, run_again
from vero.core.text import folded
from vero.tool.registry import ToolOutcome

if TYPE_CHECKING:  # the agent's module imports this one
    from vero.core.agent import Agent

RAN_SUGGESTION = "(The error suggests {suggested!r} for {value!r}: ran {call} instead:)\n"
# "Did you mean: Moonpetal Lily?", "did you mean 'Velvet Nettle'?", "Did you mean `GH-04`?"; not "Did you mean
# to search by email?" (no colon, no quotes).  No two ways to read a run of spaces: a long one must not
# make the search slow.
_SUGGESTION = re.compile(r"""\bdid you mean\b\s*(?::\s*(?P<plain>[^?\s'"`\u2018\u201c][^?\n]{0,79}?)|(?::\s*)?"""
                         r"""(?P<quoted>'[^'\n]{1,80}'|"[^"\n]{1,80}"|`[^`\n]{1,80}`|\u2018[^\u2019\n]{1,80}\u2019"""
                         r"""|\u201c[^\u201d\n]{1,80}\u201d))\s*\?(?!\s*or\b)""", re.IGNORECASE)
_SEVERAL = re.compile(r",|;|\bor\b|\bone of\b|\.\s", re.IGNORECASE)
_MAX_ERROR_CHARS = 2000  # the suggestion follows the value it is for, near the start of an error
_MIN_LIKENESS = 0.5  # 'Moon Petal Lilies' and 'Moonpetal Lily': 0.84; 'Tolkien' and 'fantasy': 0.14


def run_with_suggestion(agent: Agent, name: str, args: Any, failure: ToolOutcome) -> ToolOutcome | None:
    """The failed call run again (``agent.run_tool``) with the value its error suggests (see
    ``suggested``); None if there is none, or if it fails again.

    Only an error the tool gave counts (see ``read_failed_call``).
    """
    call = read_failed_call(agent, name, args, failure)
    if call is None:
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

    Not a list of suggestions ("'A' or 'B'", "one of A, B", "'A'? Or maybe 'B'?"): which one is meant
    is the model's to say.  Not an error about a part of an argument (Python's "name 'x' is not
    defined. Did you mean: 'y'?" for ``python_exec(code='print(x)')``): the whole value must be the one
    named.  Not a question ("Did you mean to search by email?"): a suggestion follows a colon or is
    quoted.  Not a value unlike the one named (``author='Tolkien'``, "Did you mean: fantasy?"): it
    is likely for another argument.
    """
    matches = list(_SUGGESTION.finditer(error[:_MAX_ERROR_CHARS]))
    if len(matches) != 1:
        return None
    value = (matches[0]["plain"] or matches[0]["quoted"][1:-1]).strip()
    if not value or _SEVERAL.search(value) or re.search(r"""['"`]""", value):
        return None
    named = [key for key, given in args.items() if isinstance(given, str) and names_whole(given, error)]
    if len(named) != 1 or args[named[0]].strip() == value or not _alike(args[named[0]], value):
        return None
    return named[0], value


def _alike(given: str, suggestion: str) -> bool:
    """True when ``suggestion`` is written much like ``given``: a correction of it, not a value for
    another argument ("no books by 'Tolkien' in that genre. Did you mean: fantasy?")."""
    return SequenceMatcher(None, folded(given), folded(suggestion)).ratio() >= _MIN_LIKENESS
