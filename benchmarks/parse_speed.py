"""Time per KB of every reply parser, from 10 KB to 1 MB, for each shape it accepts, closed and unclosed.

    python benchmarks/parse_speed.py [--sizes 10,100,1000] [--limit 3]

A parser that backtracks or rescans takes time that grows faster than the reply
(issue 34: an unclosed ``<function=echo>`` repeated took 53 s at 400 KB).  Each
row times one parser on one shape at each size (CPU time of this process, the
best of several repeats) and prints microseconds per KB.  A large reply is
slower per KB even for a linear scan (it no longer fits in the CPU's caches,
more so on a busy machine), so each time is also divided by that of a plain
linear scan of the same text (``BASELINE``, measured alongside); the row passes
when this relative per-KB time at the largest size is within ``--limit`` times
(default 3) the one at the smallest.  Exit status 1 when a row does not.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable

from vero.agents._native import _SIGNS, CALL_START
from vero.core.parsing import parse_json_object, parse_react, strip_template_tags, tidy_numbers, tool_calls_in_text
from vero.core.thinking import split_thinking
from vero.recovery.arithmetic import miscalculation

NAMES = ["echo", "lookup"]
CALL = '{{"name": "echo", "arguments": {{"text": "{}"}}}}'


def pad(unit: str, size: int) -> str:
    """``unit`` repeated to ``size`` characters."""
    return (unit * (size // len(unit) + 1))[:size]


def calls(text: str) -> object:
    return tool_calls_in_text(text, NAMES)


def unread(text: str) -> object:
    """Whether a native agent's reply begins as a call it could not read (``CALL_START``), as it is asked."""
    return CALL_START.match(text.lstrip()) or _SIGNS.search(text)


def react(text: str) -> object:
    return parse_react(text, NAMES)


def json_object(text: str) -> object:
    try:
        return parse_json_object(text)
    except ValueError:
        return None


# (parser, shape) -> a reply of about `size` characters in that shape
SHAPES: dict[str, tuple[Callable[[str], object], Callable[[int], str]]] = {
    "text calls: JSON, closed": (calls, lambda n: CALL.format(pad("x", n))),
    "text calls: JSON, unclosed": (calls, lambda n: '{"name": "echo", "arguments": {"text": "' + pad("x", n)),
    "text calls: <tool_call>, closed": (calls, lambda n: f"<tool_call>{CALL.format(pad('x', n))}</tool_call>"),
    "text calls: <tool_call> repeated, unclosed": (calls, lambda n: pad("<tool_call>{", n)),
    "text calls: fence, closed": (calls, lambda n: f"```json\n{CALL.format(pad('x', n))}\n```"),
    "text calls: fence repeated, unclosed": (calls, lambda n: pad("```json\n{", n)),
    "text calls: <function=>, closed": (
        calls,
        lambda n: f"<function=echo><parameter=text>{pad('x', n)}</parameter></function>",
    ),
    "text calls: <function=> repeated, unclosed": (calls, lambda n: pad("<function=echo>", n)),
    "text calls: <parameter=> repeated, unclosed": (calls, lambda n: "<function=echo>" + pad("<parameter=a>", n)),
    "react: action, closed": (
        react,
        lambda n: 'Thought: go\nAction: echo\nAction Input: {"text": "' + pad("x", n) + '"}',
    ),
    "react: action input, unclosed": (
        react,
        lambda n: 'Thought: go\nAction: echo\nAction Input: {"text": "' + pad("x", n),
    ),
    "react: labels repeated": (react, lambda n: pad("**Action:** echo\n", n)),
    "react: spaces after a label": (react, lambda n: "Thought" + pad(" ", n) + "x"),
    "react: final answer": (react, lambda n: "Final Answer: " + pad("word ", n)),
    "react: call on the action line, unclosed": (react, lambda n: "Action: echo(" + pad("a", n)),
    "react: final answer, spaces inside": (react, lambda n: "Final Answer: a" + pad(" ", n) + "b"),
    "react: final answer, questions": (react, lambda n: "Final Answer: faq" + pad("\nQuestion: q", n)),
    "text calls: spaces before an end token": (calls, lambda n: CALL.format("x") + pad(" ", n) + "x<|im_end|>"),
    "text calls: Python calls repeated": (calls, lambda n: "[" + pad("echo(text='x'), ", n) + "]"),
    "text calls: [ARGS] repeated": (calls, lambda n: "[TOOL_CALLS]" + pad('echo[ARGS]{"text": "x"}', n)),
    "native: spaces before a reply that looks like a call": (unread, lambda n: pad(" ", n) + "echo(x"),
    "json: object, closed": (json_object, lambda n: '{"a": "' + pad("x", n) + '"}'),
    "json: object, unclosed": (json_object, lambda n: '{"a": "' + pad("x", n)),
    "json: fences repeated, unclosed": (json_object, lambda n: pad("```json\n{", n)),
    "thinking: <think>, closed": (split_thinking, lambda n: f"<think>{pad('x', n)}</think>answer"),
    "thinking: <think> repeated, unclosed": (split_thinking, lambda n: pad("<think>", n)),
    "template tags repeated": (strip_template_tags, lambda n: pad("<tools></tool_call>\n", n)),
    "numbers: float noise": (tidy_numbers, lambda n: pad("0.30000000000000004 ", n)),
    "numbers: one long number": (tidy_numbers, lambda n: "1." + pad("0", n) + "1"),
    "arithmetic: sums": (miscalculation, lambda n: pad("1 + 2 = 4. ", n)),
    "arithmetic: spaces and operators": (miscalculation, lambda n: "1 +" + pad(" ", n) + "2 = 4"),
}


REPEATS = 5  # the same number at every size: the best of fewer repeats would favour the small sizes
_LINES = re.compile(r"[^\n]{1,80}")


def BASELINE(text: str) -> object:
    """A plain linear scan of the text, for scale: chunks of up to 80 characters."""
    return len(_LINES.findall(text))


def per_kb(parse: Callable[[str], object], text: str) -> float:
    """CPU microseconds per KB: the best of ``REPEATS`` timed runs, each repeated to take at least 10 ms."""
    rounds = 1
    while True:  # enough rounds for a measurable time at small sizes
        started = time.process_time()
        for _ in range(rounds):
            parse(text)
        if time.process_time() - started >= 0.01:
            break
        rounds *= 4
    best = float("inf")
    for _ in range(REPEATS):
        started = time.process_time()
        for _ in range(rounds):
            parse(text)
        best = min(best, (time.process_time() - started) / rounds)
    return best * 1e6 / (len(text) / 1024)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000", help="reply sizes in KB, comma-separated")
    parser.add_argument("--limit", type=float, default=3.0, help="largest per-KB time / smallest, at most")
    args = parser.parse_args()
    sizes = [int(s) * 1024 for s in args.sizes.split(",")]
    print(
        f"{'parser and shape':48}"
        + "".join(f"{s // 1024:>9} KB" for s in sizes)
        + "  raw ratio  relative ratio  (CPU us per KB)"
    )
    failed = []
    for name, (parse, shape) in SHAPES.items():
        texts = [shape(size) for size in sizes]
        times = [per_kb(parse, text) for text in texts]
        scale = [per_kb(BASELINE, text) for text in texts]
        ratio = (times[-1] / scale[-1]) / (times[0] / scale[0])
        ok = ratio <= args.limit
        failed += [] if ok else [name]
        print(
            f"{name:48}"
            + "".join(f"{t:12.1f}" for t in times)
            + f"  {times[-1] / times[0]:9.2f}  {ratio:14.2f}  {'ok' if ok else 'SLOW'}"
        )
    if failed:
        print(f"\nper-KB time grew more than {args.limit}x: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
