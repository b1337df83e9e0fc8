"""Helpers shared by the benchmark scripts (run them from the repository root)."""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # `python benchmarks/x.py` from a clean clone, without installing
    sys.path.insert(0, ROOT)


def machine() -> dict:
    """What the numbers were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    import openai

    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "openai": openai.__version__,
    }


def machine_line(info: dict) -> str:
    return f"{info['cpus']} CPUs ({info['cpu']}), Python {info['python']}, openai {info['openai']}, {info['platform']}"


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB.

    On Linux, ``VmHWM`` from /proc/self/status: ``getrusage``'s ``ru_maxrss`` is
    inherited across fork + exec, so a child started by a bigger parent would
    report the parent's peak.  Elsewhere ``getrusage`` (macOS reports bytes).
    """
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration, ValueError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def median(values) -> float:
    return statistics.median(values) if values else float("nan")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def print_table(headers: list[str], rows: list[list]) -> None:
    cells = [[str(h) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for number, row in enumerate(cells):
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if number == 0:
            print("  ".join("-" * w for w in widths))


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)


def dump_json(data: dict) -> None:
    print(json.dumps(data, indent=2, default=str))
