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
    thinking = "\n\n".join(t for t in thoughts if t)
    return answer.strip(), thinking or None


def _cut_blocks(text: str) -> tuple[str, list[str]]:
    """Cut every ``<think>...</think>`` block out of ``text``, in one pass with ``str.find`` (a regex is
    quadratic on a reply full of unclosed tags)."""
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
        self.space = ""  # after thinking, white space held back: the answer is stripped (``split_thinking``)
        self.started = False  # answer text streamed since the thinking

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
            self.in_think = not self.in_think
        keep = _partial_tag_suffix(text, tag, start)
        self._emit(text[start : len(text) - keep], visible)
        self.pending = text[len(text) - keep :]
        return "".join(visible)

    def flush(self) -> str:
        """End of stream: release anything held back."""
        rest, self.pending = self.pending, ""
        if self.in_think:
            self.thinking.append(rest)
            return ""
        return rest.rstrip() if self.thinking else rest  # the held white space at the answer's end goes

    def _emit(self, piece: str, visible: list[str]) -> None:
        if not piece or self.in_think:
            self.thinking += [piece] if piece else []
            return
        if self.thinking:  # the answer after thinking, as ``split_thinking`` strips it: no white space at its ends
            piece = self.space + piece if self.started else piece.lstrip()
            body = piece.rstrip()
            self.space, piece = piece[len(body) :], body
        self.started = self.started or bool(piece.strip())
        visible += [piece] if piece else []


def _partial_tag_suffix(text: str, tag: str, start: int = 0) -> int:
    """Length of the longest suffix of ``text[start:]`` that is a proper prefix of ``tag``."""
    for size in range(min(len(tag) - 1, len(text) - start), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0
