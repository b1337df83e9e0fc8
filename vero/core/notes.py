"""The one registry of the messages vero sends the model on its own: re-asks, nudges, "Not run:" notes.

Each such message is a module constant defined through ``note(name, text)``, which records it here.
``NOTES`` then lists every message vero can send (the modules that send them register them when imported).
"""

from __future__ import annotations

from vero.core.deprecation import deprecated
from vero.core.text import folded

NOTES: dict[str, str] = {}  # name -> text (with its ``{placeholders}``)
HEAD_CHARS = 40  # the opening compared: enough to tell a copied message


def note(name: str, text: str) -> str:
    """Record ``text`` as vero's message ``name`` and return it unchanged."""
    NOTES[name] = text
    return text


def repeats_a_note(text: str) -> bool:
    """Deprecated (nothing in vero asks it): True when ``text`` begins like one of ``NOTES`` (the fixed
    part before its first placeholder), in any case, also behind a "Not run:" copied from another note."""
    deprecated("vero.core.notes.repeats_a_note", "compare the reply with vero.core.notes.NOTES in your own rule")
    said = folded(text)
    heads = (said[:HEAD_CHARS], said.removeprefix("not run:").lstrip()[:HEAD_CHARS])
    openings = {folded(t.split("{")[0])[:HEAD_CHARS] for t in NOTES.values()}
    return any(h.startswith(opening) for h in heads for opening in openings if opening)
