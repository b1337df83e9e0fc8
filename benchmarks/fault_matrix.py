"""Run the fault matrix and print what survived.

    python benchmarks/fault_matrix.py [--markdown] [-k TEXT]

The rows are the ``FAULTS`` lists of ``tests/test_faults*.py`` (each row defined
once, there; pytest runs the same rows).  Each row injects one fault into every agent it applies
to and checks the row's defined outcome (status, answer, exact number of model
calls or HTTP requests, history intact).  An agent "survived" a row when its
check passed.  Rows marked as a known bug in ``vero/`` count as not survived.

Exit status: 0 when every row survived on every agent, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for path in (ROOT, os.path.join(ROOT, "tests")):
    if path not in sys.path:  # `python benchmarks/fault_matrix.py` from a clean clone
        sys.path.insert(0, path)

from conftest import CONFIG_VARS  # noqa: E402  (tests/ is on the path above)


@contextlib.contextmanager
def isolated():
    """What tests/conftest.py does for pytest: nothing configured, an empty working folder."""
    import vero.config

    saved = {name: os.environ.pop(name) for name in CONFIG_VARS if name in os.environ}
    old_no_color, old_cwd = os.environ.get("NO_COLOR"), os.getcwd()
    os.environ["NO_COLOR"] = "1"
    with tempfile.TemporaryDirectory(prefix="vero-faults-") as folder:
        os.chdir(folder)
        vero.config.reload_settings()
        try:
            yield
        finally:
            os.chdir(old_cwd)
            for name in CONFIG_VARS:
                os.environ.pop(name, None)
            os.environ.update(saved)
            if old_no_color is None:
                os.environ.pop("NO_COLOR", None)
            else:
                os.environ["NO_COLOR"] = old_no_color
            vero.config.reload_settings()


def one_line(text: str, limit: int = 150) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_row(row) -> dict:
    """Run one row on each of its agents: {kind: (survived, outcome)}."""
    results = {}
    for kind in row.agents:
        with isolated():
            try:
                outcome = row.check(kind)
                survived = row.bug_for(kind) is None  # a known bug that no longer shows is still reported
                if not survived:
                    outcome = f"XPASS: the known bug no longer shows; remove its mark ({outcome})"
            except Exception as exc:  # noqa: BLE001 - a failed check is a row that did not survive
                survived = False
                bug = row.bug_for(kind)
                outcome = f"known bug: {bug}" if bug else f"{type(exc).__name__}: {exc}"
        results[kind] = (survived, one_line(outcome))
    return results


def outcome_text(results: dict) -> str:
    """The outcome column: one text if every agent had the same, else per agent."""
    failed = {kind: text for kind, (ok, text) in results.items() if not ok}
    shown = failed or {kind: text for kind, (_, text) in results.items()}
    texts = set(shown.values())
    if len(texts) == 1 and (not failed or len(failed) == len(results)):
        return next(iter(texts))
    return "; ".join(f"{kind}: {text}" for kind, text in shown.items())


FAULT_MODULES = (
    "test_faults",
    "test_faults_model_io",
    "test_faults_io",
    "test_faults_output",
    "test_faults_sandbox",
    "test_mcp_faults",
)


def all_rows() -> list:
    """Every row, from the module that defines it (tests/test_faults*.py)."""
    import importlib

    return [row for name in FAULT_MODULES for row in importlib.import_module(name).FAULTS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("-k", metavar="TEXT", help="only the rows whose name contains TEXT")
    args = parser.parse_args(argv)

    rows = [row for row in all_rows() if not args.k or args.k in row.name]
    started = time.perf_counter()
    table = []
    for row in rows:
        results = run_row(row)
        survived = sum(ok for ok, _ in results.values())
        table.append(
            (
                row.name,
                ",".join(row.agents),
                f"{survived}/{len(results)}",
                outcome_text(results),
                survived == len(results),
            )
        )
        if not args.markdown:
            print(f"  ran {row.name} ({survived}/{len(results)})", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started

    header = ("fault", "agents tried", "survived", "outcome")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        for name, agents, survived, outcome, _ in table:
            print(f"| {name} | {agents} | {survived} | {outcome.replace('|', '/')} |")
    else:
        widths = [max(len(header[i]), *(len(r[i]) for r in table)) for i in range(3)]
        print("  ".join(h.ljust(w) for h, w in zip(header, widths)) + "  " + header[3])
        print("  ".join("-" * w for w in widths) + "  " + "-" * 60)
        for name, agents, survived, outcome, ok in table:
            mark = "" if ok else "✗ "
            print("  ".join(v.ljust(w) for v, w in zip((name, agents, survived), widths)) + f"  {mark}{outcome}")

    runs = sum(int(r[2].split("/")[1]) for r in table)
    survived_runs = sum(int(r[2].split("/")[0]) for r in table)
    bad_rows = [r[0] for r in table if not r[4]]
    print()
    print(
        f"{len(table)} faults, {runs} agent runs, {survived_runs} survived, "
        f"{len(table) - len(bad_rows)}/{len(table)} rows fully survived, in {elapsed:.1f} s."
    )
    if bad_rows:
        print("Not survived: " + ", ".join(bad_rows))
    return 0 if not bad_rows else 1


if __name__ == "__main__":
    sys.exit(main())
