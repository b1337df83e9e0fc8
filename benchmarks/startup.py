"""Start-up cost: `import vero` and `vero --help`.

    python benchmarks/startup.py [--runs 7] [--json]

Targets: ``python -X importtime -c "import vero"`` under 100 ms (the
cumulative time of the ``vero`` line, best of the runs), ``vero --help``
under 150 ms wall time (best of the runs, including interpreter start-up),
and ``import vero`` must not import ``openai``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

from _common import ROOT, dump_json, machine, machine_line, verdict

IMPORT_TARGET_MS = 100.0
HELP_TARGET_MS = 150.0
IMPORTTIME_LINE = re.compile(r"^import time:\s*(\d+)\s*\|\s*(\d+)\s*\|(\s*)(\S+)\s*$")
HEAVY = ("openai", "httpx", "pydantic", "anyio", "json_repair", "dotenv")


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    return env


def importtime(code: str = "import vero") -> tuple[float, list[tuple[str, float, float]]]:
    """One run: (cumulative ms of the `vero` line, [(module, self ms, cumulative ms)])."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, env=_env(), cwd=ROOT
    )
    if proc.returncode:
        raise SystemExit(f"`{code}` failed:\n{proc.stderr[-2000:]}")
    modules, total = [], None
    for line in proc.stderr.splitlines():
        match = IMPORTTIME_LINE.match(line)
        if match:
            own, cumulative, _, name = match.groups()
            modules.append((name, int(own) / 1000, int(cumulative) / 1000))
            if name == "vero":
                total = int(cumulative) / 1000
    if total is None:
        raise SystemExit("no `vero` line in the -X importtime output")
    return total, modules


def help_command() -> list[str]:
    """The installed console script if it belongs to this interpreter, else `python -m vero`."""
    script = shutil.which("vero", path=os.path.dirname(sys.executable))
    return [script, "--help"] if script else [sys.executable, "-m", "vero", "--help"]


def wall_ms(command: list[str]) -> float:
    """Wall time of one run; infinite (reported as a failure) if the command fails."""
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, env=_env(), cwd=ROOT)
    elapsed = (time.perf_counter() - started) * 1000
    if proc.returncode:
        last = (proc.stderr.strip().splitlines() or [""])[-1]
        print(f"`{' '.join(command)}` exited with {proc.returncode}: {last}", file=sys.stderr)
        return float("inf")
    return elapsed


def heavy_modules_after(code: str) -> list[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=_env(), cwd=ROOT)
    if proc.returncode:
        raise SystemExit(f"probe failed:\n{proc.stderr[-2000:]}")
    return proc.stdout.split()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="take the best of this many runs (default 7)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()

    import_runs = [importtime() for _ in range(args.runs)]
    import_ms, modules = min(import_runs, key=lambda run: run[0])
    command = help_command()
    help_ms = min(wall_ms(command) for _ in range(args.runs))
    python_ms = min(wall_ms([sys.executable, "-c", "pass"]) for _ in range(args.runs))
    import_wall_ms = min(wall_ms([sys.executable, "-c", "import vero"]) for _ in range(args.runs))
    after_import = {
        code: heavy_modules_after(code) for code in ("import vero", "import vero.agents, vero.batch, vero.testing")
    }
    after_client = heavy_modules_after("import vero\nvero.ChatOpenAI(api_key='k', base_url='http://127.0.0.1:9/v1')")
    lazy_ok = not any(m.split(".")[0] == "openai" for mods in after_import.values() for m in mods)
    slowest = sorted((m for m in modules if m[0].startswith("vero")), key=lambda m: -m[1])[:5]
    slowest_ext = sorted((m for m in modules if not m[0].startswith("vero")), key=lambda m: -m[2])[:5]

    result = {
        "machine": machine(),
        "import_vero_ms": round(import_ms, 1),
        "import_vero_target_ms": IMPORT_TARGET_MS,
        "help_command": " ".join(os.path.basename(c) if i == 0 else c for i, c in enumerate(command)),
        "help_ms": round(help_ms, 1) if help_ms != float("inf") else None,
        "help_target_ms": HELP_TARGET_MS,
        "python_c_pass_ms": round(python_ms, 1),
        "python_c_import_vero_ms": round(import_wall_ms, 1),
        "heavy_modules_after_import": after_import,
        "openai_imported_by_ChatOpenAI": any(m == "openai" for m in after_client),
        "pass": {"import": import_ms < IMPORT_TARGET_MS, "help": help_ms < HELP_TARGET_MS, "lazy_openai": lazy_ok},
    }
    if args.json:
        dump_json(result)
    else:
        print(f"machine: {machine_line(result['machine'])}   (best of {args.runs} runs)")
        print(
            f"python -X importtime -c 'import vero': {import_ms:6.1f} ms  "
            f"(target < {IMPORT_TARGET_MS:.0f})  {verdict(import_ms < IMPORT_TARGET_MS)}"
        )
        print(
            f"{result['help_command']}: {help_ms:6.1f} ms wall  (target < {HELP_TARGET_MS:.0f}; "
            f"`python -c pass`: {python_ms:.1f} ms, `python -c 'import vero'`: {import_wall_ms:.1f} ms)  "
            f"{verdict(help_ms < HELP_TARGET_MS)}"
        )
        for code, mods in after_import.items():
            print(f"after `{code}`: heavy modules loaded: {', '.join(mods) or 'none'}")
        print(
            f"openai not imported by `import vero`: {verdict(lazy_ok)}; "
            f"imported once a ChatOpenAI is created: {result['openai_imported_by_ChatOpenAI']}"
        )
        print("largest self times inside vero: " + ", ".join(f"{n} {s:.1f} ms" for n, s, _ in slowest))
        print("largest other imports (cumulative): " + ", ".join(f"{n} {c:.1f} ms" for n, _, c in slowest_ext))
    return 0 if all(result["pass"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
