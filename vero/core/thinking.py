"""Separating a model's thinking (``<think>...</think>``) from its answer.

Reasoning models put their thinking either in a separate field (``reasoning_content``) or inline as
``<think>`` blocks.  Inline blocks are cut out here so that thinking never reaches a scratchpad, a parser or
the user as if it were the answer.  Unclosed blocks (a model cut off mid-thought) and a lone ``</think>``
(servers that drop the opening tag) are handled too.
"""

from __future__ import annotations

OPEN, CLOSE = "<think>", "</think>"


def split_thinking(text: str | None) -> tuple[str, str | None]:
    """Return ``(answer, thinking)``; ``thinking`` is ``None`` when there was none."""
    if not text or "think>" not in text:
        return text or "", None
    answer, thoughts = _cut_blocks(text)
    if CLOSE in answer:  # "...thinking</think>answer": the opening tag was dropped
        before, _, answer = answer.partition(CLOSE)
        thoughts.insert(0, before.replace(OPEN, "").strip())
    if OPEN in answer:  # "answer<think>thinking..." never closed
        answer, _, rest = answer.partition(OPEN)
        thoughts.append(rest.strip())
    return answer.strip(), "\n\n".join(t for t in thoughts if t) or None


def _cut_blocks(text: str) -> tuple[str, list[str]]:
    """Cut every ``<think>...</think>`` block out of ``text`` in one pass (a regex is quadratic on unclosed tags)."""
    kept: list[str] = []
    thoughts: list[str] = []
    start = 0
    while (open_at := text.find(OPEN, start)) >= 0:
        close_at = text.find(CLOSE, open_at + len(OPEN))
        if close_at < 0:  # none after this tag, so none after the later ones: the rest is kept
            break
        kept.append(text[start:open_at])
        thoughts.append(text[open_at + len(OPEN) : close_at].strip())
        start = close_at + len(CLOSE)
    kept.append(text[start:])
    return "".join(kept), thoughts


class ThinkingStream:
    """Splits streamed text deltas into answer and thinking as they arrive; a tail that may start a tag is
    held back.  Thinking whose ``<think>`` the server dropped streams as text (the final ``Message`` is split)."""

    def __init__(self) -> None:
        self.in_think = False
        self.pending = ""
        self.thinking: list[str] = []
        self.seen = False  # a think tag came: the answer is stripped at both ends (``split_thinking``), as it streams
        self.space = ""  # white space held back: at the answer's start, or (once a tag came) at its end so far
        self.started = False  # answer text has streamed

    def feed(self, delta: str) -> str:
        """Add a delta; return the part of it that is answer text."""
        text = self.pending + delta
        visible: list[str] = []
        start = 0  # an index, not slices of ``text``: slicing after each tag is quadratic
        while True:
            tag = CLOSE if self.in_think else OPEN
            index = text.find(tag, start)
            if index < 0:
                break
            self._emit(text[start:index], visible)
            start = index + len(tag)
            self.in_think, self.seen = not self.in_think, True
        keep = _partial_tag_suffix(text, tag, start)
        self._emit(text[start : len(text) - keep], visible)
        self.pending = text[len(text) - keep :]
        return "".join(visible)

    def flush(self) -> str:
        """End of stream: release anything held back (white space at the answer's ends only when no tag came)."""
        rest, self.pending = self.pending, ""
        if self.in_think:
            self.thinking.append(rest)
            return ""
        visible: list[str] = []
        self._emit(rest, visible)
        return "".join(visible) + ("" if self.seen else self.space)

    def _emit(self, piece: str, visible: list[str]) -> None:
        if not piece or self.in_think:
            self.thinking += [piece] if piece else []
            return
        text, self.space = self.space + piece, ""
        if not self.started:
            if not text.strip():  # white space before the answer: held, as a think block may come before it
                self.space = text
                return
            text, self.started = text.lstrip() if self.seen else text, True
        if self.seen:  # its end so far held back: more answer may follow, or none
            body = text.rstrip()
            text, self.space = body, text[len(body) :]
        visible += [text] if text else []


def _partial_tag_suffix(text: str, tag: str, start: int = 0) -> int:
    """Length of the longest suffix of ``text[start:]`` that is a proper prefix of ``tag``."""
    for size in range(min(len(tag) - 1, len(text) - start), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0
