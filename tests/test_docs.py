"""Every code block of README.md and docs/*.md, run offline.

Conventions in the Markdown (an HTML comment on the line just before a fence):

* ``<!-- not run: REASON -->``: the block is not run (it needs a real server,
  for example).  Such blocks are counted and must stay few.
* ``<!-- doc-test {JSON} -->``: how to run the block.  Keys:
  ``replies``: the scripted model replies (``vero.testing.MockOpenAIServer``
  replies: text, or dicts with ``tool_calls``), consumed in order by the whole
  block, and all of them must be consumed;
  ``by_task``: ``{"text in the task": [replies...]}``, for concurrent runs whose
  order is not fixed; ``stdin``: what the block reads from standard input;
  ``"cwd": "repo"``: the block runs in the repository's root folder (to start a
  server of the test suite, ``tests/mcp_servers/...``), not in an empty one.
* ``<!-- output -->`` before a ```` ```text ```` block: the exact standard
  output of the Python blocks just before it (since the previous output block).
* ``<!-- file: NAME -->``: the block is written to the file NAME in the working
  folder of the page's shell blocks (``replies.json``, a module for ``--agent``).

How blocks run:

* ``python``: the blocks of one page run in order in one namespace, in this
  process, with ``OPENAI_BASE_URL`` set to a fresh ``MockOpenAIServer`` per
  block (so ``ChatOpenAI()`` talks to the scripted model).  Functions named
  ``test_*`` that a block defines are called.
* ``bash``: each command (split at ``&&``) is either run or checked.
  ``vero ...`` / ``python -m vero ...`` are run against the block's mock server
  (a ``--base-url`` value is replaced by the server's URL) and must exit 0,
  in this process; ``echo ... | vero ... | python -c ...`` runs stage by stage,
  other pipelines through ``bash``.  ``python -m vero.testing serve ...`` is
  started for real on a free port, and the block's later commands use it.  ``pip install``, ``python -m pytest`` and
  the venv lines are checked statically; ``python examples/X.py`` and
  ``python benchmarks/X.py`` must name an existing script and only options
  that script defines.  Anything else fails: teach this test, or mark the
  block ``not run``.
* ``dotenv``: every variable must be a vero setting, and the settings must
  load from it.  ``json`` blocks must parse.
* ``text`` blocks are output or synopsis and are not run.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import types
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import CONFIG_VARS

import vero.config
from vero.testing import MockOpenAIServer

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_TEST_COMMAND = 'pip install -e ".[dev]" && python -m pytest'
MAX_NOT_RUN = 6  # blocks that need a real server; keep them few
SETTINGS = CONFIG_VARS


# --------------------------------------------------------------------------- reading the pages


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    directive: str = ""  # "not run", "doc-test", "output" or ""
    options: dict = field(default_factory=dict)
    reason: str = ""
    file: str = ""  # ``<!-- file: NAME -->``: the shell blocks of the page find the block in the file NAME

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


FENCE = re.compile(r"^```(\S*)\s*$")
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(.+?)\s*-->\s*$")
DOC_TEST = re.compile(r"^<!--\s*doc-test\s+(\{.*\})\s*-->\s*$")
OUTPUT = re.compile(r"^<!--\s*output\s*-->\s*$")
FILE = re.compile(r"^<!--\s*file:\s*(\S+)\s*-->\s*$")


def blocks_of(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, lang = i, match.group(1)
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        assert end < len(lines), f"{page.name}:{start + 1}: unclosed code fence"
        block = Block(page, start + 1, lang, "\n".join(lines[start + 1 : end]) + "\n")
        above = start - 1
        while above >= 0 and lines[above].startswith("<!--"):  # the comments just above the fence
            comment = lines[above]
            if m := NOT_RUN.match(comment):
                block.directive, block.reason = "not run", m.group(1)
            elif m := DOC_TEST.match(comment):
                block.directive, block.options = "doc-test", json.loads(m.group(1))
            elif OUTPUT.match(comment):
                block.directive = "output"
            elif m := FILE.match(comment):
                block.file = m.group(1)
            above -= 1
        blocks.append(block)
        i = end + 1
    return blocks


ALL_BLOCKS = [b for page in PAGES for b in blocks_of(page)]


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


# --------------------------------------------------------------------------- the scripted model


@contextlib.contextmanager
def scripted_model(options: dict, monkeypatch):
    """A MockOpenAIServer with the block's replies; OPENAI_BASE_URL points at it."""
    by_task = {key: list(replies) for key, replies in options.get("by_task", {}).items()}
    lock = threading.Lock()

    def responder(body):
        task = next((m.get("content") or "" for m in body["messages"] if m["role"] == "user"), "")
        with lock:
            for key, replies in by_task.items():
                if key in task and replies:
                    return replies.pop(0)
        raise AssertionError(f"no scripted reply left for the task {task[:80]!r}")

    with MockOpenAIServer(options.get("replies", []), responder=responder) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        vero.config.reload_settings()
        yield server
    expected = len(options.get("replies", [])) + sum(len(r) for r in options.get("by_task", {}).values())
    assert not server.errors, f"the scripted model failed: {server.errors!r}"
    assert server.remaining == 0 and all(not r for r in by_task.values()), "not every scripted reply was used"
    assert len(server.requests) == expected, f"{len(server.requests)} model requests, {expected} scripted replies"


# --------------------------------------------------------------------------- Python blocks


def check_statuses(block: Block, values: list) -> None:
    """An agent the block made must end its run with the status the page shows (``ok`` unless
    ``"status"`` says otherwise): a snippet that quietly fails is a broken snippet."""
    from vero import Agent

    expected = block.options.get("status", "ok")
    for value in values:
        if isinstance(value, Agent) and value.last_result is not None:
            result = value.last_result
            assert result.status == expected, (
                f"{block.where}: agent {value.name!r} ended {result.status!r} (expected {expected!r}): {result.error!r}"
            )


PYTHON_PAGES = sorted({b.page for b in ALL_BLOCKS if b.lang == "python"}, key=str)


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=page_id)
def test_python_blocks_run(page, monkeypatch, capsys):
    page_module = types.ModuleType("__doc_example__")  # in sys.modules, as a script's __main__ is: a
    monkeypatch.setitem(sys.modules, "__doc_example__", page_module)  # dataclass's string hints resolve
    namespace = page_module.__dict__
    stdout = []  # what the blocks printed since the last ``<!-- output -->`` check
    for block in blocks_of(page):
        if block.directive == "output":
            assert block.lang == "text", f"{block.where}: an output block must be ```text"
            assert "".join(stdout) == block.code, f"{block.where}: the output differs"
            stdout.clear()
            continue
        if block.lang != "python" or block.directive == "not run":
            continue
        before = {name: id(value) for name, value in namespace.items()}
        monkeypatch.setattr(sys, "stdin", io.StringIO(block.options.get("stdin", "")))
        if block.options.get("cwd") == "repo":
            monkeypatch.chdir(ROOT)
        try:
            with scripted_model(block.options, monkeypatch):
                exec(compile(block.code, block.where, "exec"), namespace)
                bound = sorted(name for name, value in namespace.items() if before.get(name) != id(value))
                for name in bound:
                    if name.startswith("test_") and callable(namespace[name]):
                        namespace[name]()
                check_statuses(block, [namespace[name] for name in bound])
        except BaseException as exc:
            raise AssertionError(f"{block.where}: the block failed: {type(exc).__name__}: {exc}") from exc
        finally:
            stdout.append(capsys.readouterr().out)


# --------------------------------------------------------------------------- shell blocks


SHELL_BLOCKS = [b for b in ALL_BLOCKS if b.lang in ("bash", "sh", "shell") and b.directive != "not run"]
SETUP_COMMANDS = {"python3 -m venv .venv", ". .venv/bin/activate", "python -m pytest"}


def commands_of(code: str) -> list[str]:
    """The commands of a shell block, comments dropped, split at ``&&``."""
    commands = []
    for raw in code.replace("\\\n", " ").splitlines():
        line = " ".join(shlex.split(raw, comments=True, posix=False))  # keeps quotes, drops comments
        commands += [part.strip() for part in line.split("&&") if part.strip()]
    return commands


def check_pip_install(command: str, where: str) -> None:
    words = shlex.split(command)
    assert words[:3] == ["pip", "install", "-e"], f"{where}: unexpected pip command {command!r}"
    spec = words[3]
    extras = re.fullmatch(r"\.(?:\[(.+)\])?", spec)
    assert extras, f"{where}: install this project with `pip install -e .`: {command!r}"
    pyproject = (ROOT / "pyproject.toml").read_text()
    for extra in (extras.group(1) or "").split(","):
        if extra:
            assert re.search(rf"^{re.escape(extra)} = \[", pyproject, re.M), f"{where}: no extra [{extra}]"


def check_script(command: str, where: str) -> None:
    words = shlex.split(command)
    script = ROOT / words[1]
    assert script.is_file(), f"{where}: no such script {words[1]}"
    source = script.read_text(encoding="utf-8")
    for word in words[2:]:
        if word.startswith("-"):
            option = word.split("=")[0]
            assert f'"{option}"' in source, f"{where}: {words[1]} has no option {option}"


def vero_argv(command: str, base_url: str) -> list[str] | None:
    """``vero ARGS`` / ``python -m vero ARGS`` as the CLI's argv, or None."""
    words = shlex.split(command)
    if words[:1] == ["vero"]:
        argv = words[1:]
    elif words[:3] == ["python", "-m", "vero"]:
        argv = words[3:]
    else:
        return None
    return [base_url if i and argv[i - 1] == "--base-url" else word for i, word in enumerate(argv)]


def run_vero_in_process(argv: list[str], stdin: str) -> tuple[int, str, str]:
    from vero.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code
    finally:
        sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


def run_simple_pipeline(command: str, base_url: str, stdin: str, where: str) -> str | None:
    """``echo TEXT | vero ... | python -c CODE``, stage by stage, with ``vero`` in this process
    (fast: no interpreter start and no ``openai`` import).  None for anything else."""
    words = shlex.split(command)
    if any(w in ("<", ">", ">>", "2>", "&") for w in words):
        return None
    stages, current = [], []
    for word in words + ["|"]:
        if word == "|":
            stages.append(current)
            current = []
        else:
            current.append(word)
    data = stdin
    for stage in stages:
        if stage[:1] == ["echo"]:
            data = " ".join(stage[1:]) + "\n"
        elif (argv := vero_argv(shlex.join(stage), base_url)) is not None:
            code, data, err = run_vero_in_process(argv, data)
            assert code == 0, f"{where}: `{shlex.join(stage)}` in `{command}` exited {code}:\n{data}\n{err}"
        elif stage[:2] == ["python", "-c"] and len(stage) == 3:
            done = subprocess.run(
                [sys.executable, "-c", stage[2]],
                input=data,
                capture_output=True,
                text=True,
                encoding="utf-8",
                timeout=60,
            )
            assert done.returncode == 0, f"{where}: `{shlex.join(stage)}` failed:\n{done.stderr}"
            data = done.stdout
        else:
            return None
    return data


def run_pipeline(command: str, base_url: str, stdin: str, cwd: Path) -> subprocess.CompletedProcess:
    command = re.sub(r"--base-url\s+\S+", f"--base-url {base_url}", command)
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS and "proxy" not in k.lower()}
    env.update(
        OPENAI_BASE_URL=base_url,
        NO_COLOR="1",
        NO_PROXY="127.0.0.1,localhost",
        PYTHONIOENCODING="utf-8",
        PYTHONPATH=str(ROOT),
        PATH=os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", ""),
    )
    script = f'vero() {{ "{sys.executable}" -m vero "$@"; }}\nset -eo pipefail\n{command}\n'
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )


def start_serve(command: str, cwd: Path) -> tuple[subprocess.Popen, str]:
    """``python -m vero.testing serve ...`` on a free port; returns the process and its base URL."""
    argv = [word for word in shlex.split(command) if word != "&"][3:]
    if "--port" in argv:
        argv[argv.index("--port") + 1] = "0"
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    process = subprocess.Popen(
        [sys.executable, "-m", "vero.testing", *argv],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = []
    reader = threading.Thread(target=lambda: lines.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout=20)
    match = re.search(r"at (http://\S+/v1)", lines[0] if lines else "")
    if not match:
        process.kill()
        raise AssertionError(f"`{command}` did not start: {lines!r} {process.stderr.read() if process.poll() else ''}")
    return process, match.group(1)


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=lambda b: b.where)
def test_shell_blocks(block, monkeypatch, tmp_path):
    stdin = block.options.get("stdin", "")
    for other in blocks_of(block.page):  # the page's files, e.g. replies.json
        if other.file:
            (tmp_path / other.file).write_text(other.code, encoding="utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))  # `--agent module:Class` imports from the working folder
    modules = set(sys.modules)

    def stack_cleanup():
        return [
            sys.modules.pop(name)
            for name in set(sys.modules) - modules
            if str(tmp_path) in str(getattr(sys.modules[name], "__file__", "") or "")
        ]

    servers = []
    with scripted_model(block.options, monkeypatch) as server, contextlib.ExitStack() as stack:
        base_url = server.base_url
        stack.callback(lambda: [p.kill() or p.wait() for p in servers])
        stack.callback(stack_cleanup)
        for command in commands_of(block.code):
            if command in SETUP_COMMANDS:
                continue
            if command.startswith("python -m vero.testing serve"):
                process, base_url = start_serve(command, tmp_path)
                servers.append(process)
                monkeypatch.setenv("OPENAI_BASE_URL", base_url)
                vero.config.reload_settings()
                continue
            if command.startswith("pip "):
                check_pip_install(command, block.where)
            elif re.match(r"python (examples|benchmarks)/", command):
                check_script(command, block.where)
            elif "|" in command or "<" in command or ">" in command:
                assert "vero" in command, f"{block.where}: unknown command {command!r}"
                output = run_simple_pipeline(command, base_url, stdin, block.where)
                if output is None:  # not a plain `echo | vero | python -c` pipeline: let bash run it
                    done = run_pipeline(command, base_url, stdin, tmp_path)
                    assert done.returncode == 0, f"{block.where}: `{command}` failed:\n{done.stdout}\n{done.stderr}"
            elif (argv := vero_argv(command, base_url)) is not None:
                code, out, err = run_vero_in_process(argv, stdin)
                assert code == 0, f"{block.where}: `{command}` exited {code}:\n{out}\n{err}"
            else:
                pytest.fail(f"{block.where}: the test does not know how to check {command!r}")


@pytest.mark.parametrize("block", [b for b in ALL_BLOCKS if b.lang == "json"], ids=lambda b: b.where)
def test_json_blocks_parse(block):
    json.loads(block.code)


# --------------------------------------------------------------------------- .env blocks


@pytest.mark.parametrize("block", [b for b in ALL_BLOCKS if b.lang == "dotenv"], ids=lambda b: b.where)
def test_dotenv_blocks(block, tmp_path):
    from dotenv import dotenv_values

    values = dotenv_values(stream=io.StringIO(block.code))
    assert values, f"{block.where}: no settings"
    for name in values:
        assert name in SETTINGS, f"{block.where}: {name} is not a vero setting"
    (tmp_path / ".env").write_text(block.code, encoding="utf-8")
    settings = vero.config.reload_settings()
    for name in ("OPENAI_BASE_URL", "MODEL_NAME", "VERO_MODEL_NAME"):
        if values.get(name):
            setting = name.removeprefix("VERO_")
            assert getattr(settings, setting) == values[name], f"{block.where}: {name} did not load"


# --------------------------------------------------------------------------- the pages themselves


def test_every_block_has_a_known_language():
    known = {"python", "bash", "dotenv", "text", "json"}
    unknown = [f"{b.where} ({b.lang or 'no language'})" for b in ALL_BLOCKS if b.lang not in known]
    assert not unknown, f"code blocks the test cannot run: {unknown}"


def test_few_blocks_are_not_run():
    skipped = [b for b in ALL_BLOCKS if b.directive == "not run"]
    assert all(b.reason for b in skipped)
    assert len(skipped) <= MAX_NOT_RUN, [b.where for b in skipped]


def test_readme_is_short_and_keeps_the_ci_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert any(line.startswith(README_TEST_COMMAND) for line in readme.splitlines())
    assert README_TEST_COMMAND in (ROOT / ".ci" / "run").read_text()
    assert "<!-- local-model tables -->" in readme


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_links_point_to_existing_pages_and_headings(page):
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, fragment = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page_id(page)}: broken link {target}"
        if fragment and linked.suffix == ".md":
            headings = re.findall(
                r"^#+ (.+)$", re.sub(r"```.*?```", "", linked.read_text(encoding="utf-8"), flags=re.S), re.M
            )
            assert fragment in {anchor(h) for h in headings}, f"{page_id(page)}: no heading for {target}"


def test_reliability_page_lists_every_new_fault_row():
    """docs/reliability.md lists every row of the fault modules beyond the grouped table, by name,
    and names no row that does not exist."""
    import importlib

    page = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z]+/[A-Za-z0-9-]+)` \|", page, re.M))
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        modules = [
            importlib.import_module(name)
            for name in (
                "test_faults",
                "test_faults_io",
                "test_faults_model_io",
                "test_faults_output",
                "test_faults_sandbox",
                "test_mcp_faults",
            )
        ]
    finally:
        sys.path.remove(str(ROOT / "tests"))
    grouped, *others = [{row.name for row in module.FAULTS} for module in modules]
    new_rows = set().union(*others)
    assert new_rows - listed == set(), f"fault rows missing from docs/reliability.md: {sorted(new_rows - listed)}"
    assert listed - new_rows - grouped == set(), f"unknown fault rows: {sorted(listed - new_rows - grouped)}"
    assert f"| **all** | **{len(grouped)}** |" in page, "the grouped table's row count is out of date"
