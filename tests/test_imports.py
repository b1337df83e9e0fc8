"""How vero is imported: ``@tool`` is a plain function wherever it is imported from,
``vero.tools`` is a plain package, the old names work for one release with a ``DeprecationWarning``
that names the new one, every module imports on its own in a fresh interpreter, and no vero modules
import each other in a circle."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import subprocess
import sys
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import vero
from vero.tools import Tool
from vero.tools.base import tool as tool_in_base

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "vero"
NOT_IMPORTABLE = {
    "vero.__main__",  # runs the command and exits
    "vero.tools.builtin._sandbox",  # a script the sandbox runs; importing it would sandbox this interpreter
}
CONSOLE = {"vero.cli", "vero.repl", "vero._demo", "vero._console"}


def python(code: str, *args: str) -> subprocess.CompletedProcess:
    """Run ``code`` (with ``args`` in ``sys.argv``) in a fresh interpreter that imports vero from this work tree."""
    path = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def assert_runs(code: str) -> None:
    done = python(code)
    assert done.returncode == 0, f"{code}\n{done.stderr[-2000:]}"


# --------------------------------------------------------------------------- @tool and vero.tools


def test_from_vero_import_tool_gives_the_decorator_function():
    from vero import tool
    from vero.tools import tool as tool_from_the_package

    assert tool is tool_from_the_package is tool_in_base
    assert inspect.isfunction(tool) and vero.tool is tool


def test_the_tools_package_is_a_plain_package_and_tool_stays_the_decorator_after_it_loads():
    import vero.tools.builtin as b
    import vero.tools.mcp

    package = sys.modules["vero.tools"]
    assert type(package) is types.ModuleType and not callable(package) and hasattr(package, "__path__")
    assert vero.tools.builtin is b and b.calculator("2 + 2") == "4" and vero.tools.mcp.__name__ == "vero.tools.mcp"
    assert vero.tool is tool_in_base


DECORATE = '''
@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
assert isinstance(add, Tool) and add.name == "add" and add(2, 3) == 5
'''


def test_tool_is_the_decorator_when_the_tools_package_loads_first():
    assert_runs(
        "import vero.tools.builtin as b\nfrom vero.tools.builtin import BUILTIN_TOOLS\n"
        "from vero import tool\nfrom vero.tools import Tool\n"
        + DECORATE
        + "import vero\nassert vero.tool is tool and BUILTIN_TOOLS['calculator']('6 * 7') == '42'\n"
        "assert b.calculator('2 + 2') == '4'\n"
    )


# --------------------------------------------------------------------------- old names, for one release
# Each shim warns with `vero.core.deprecation.deprecated`, which names the user's line.


def deprecated_here(old: str):
    """``pytest.warns`` for the deprecation of ``old``, in the words of ``vero.core.deprecation``."""
    return pytest.warns(DeprecationWarning, match=rf"^{old} is deprecated and will be removed in the next release: ")


def assert_blames_this_file(record) -> None:
    assert {Path(w.filename) for w in record if w.category is DeprecationWarning} == {Path(__file__)}


# The old paths before `import vero`, in a fresh interpreter, with Python's default warning filters:
# a script's own lines (__main__) see the warnings, and `vero.tool` stays the decorator.
OLD_PATHS_FIRST = (
    "import vero.tool.builtin\n"
    "from vero.tool.builtin import calculator\n"
    "from vero.tool import Tool, ToolRegistry\n"
    "from vero.tool.buildin import math_calculator\n"
    "import inspect, vero, vero.tools.builtin\n"
    "from vero import tool\n"
    "assert inspect.isfunction(tool) and vero.tool is tool and Tool is vero.tools.Tool\n"
    "assert calculator is vero.tools.builtin.calculator and math_calculator('6 * 7') == '42'\n" + DECORATE
)


def test_the_old_tool_paths_warn_and_give_the_tools_modules_in_a_fresh_interpreter():
    done = python(OLD_PATHS_FIRST)
    assert done.returncode == 0, done.stderr[-2000:]
    for line, old, new in [
        (1, "the import path vero.tool.builtin", "import vero.tools.builtin"),
        (3, "vero.tool.Tool", "import it from vero.tools"),
        (3, "vero.tool.ToolRegistry", "import it from vero.tools"),
        (4, "the import path vero.tool.buildin", "import vero.tools.buildin"),
    ]:
        warning = f"<string>:{line}: DeprecationWarning: {old} is deprecated and will be removed in the next release"
        assert f"{warning}: {new}" in done.stderr


@pytest.mark.parametrize("name", ["base", "registry", "schema", "builtin", "builtin.search", "mcp"])
def test_an_old_tool_path_is_the_tools_module_with_a_warning(name, monkeypatch):
    monkeypatch.delitem(sys.modules, f"vero.tool.{name}", raising=False)  # imported once: warned once
    with deprecated_here(f"the import path vero.tool.{name}") as record:
        module = importlib.import_module(f"vero.tool.{name}")
    assert module is importlib.import_module(f"vero.tools.{name}")
    assert f"import vero.tools.{name}" in str(record[0].message)
    assert_blames_this_file(record)


def test_from_vero_tool_import_gives_the_tools_names_with_a_warning():
    with deprecated_here("vero.tool.ToolRegistry") as record:
        from vero.tool import ToolRegistry
    with deprecated_here("vero.tool.tool") as named:
        from vero.tool import tool
    assert ToolRegistry is vero.tools.ToolRegistry and tool is tool_in_base
    assert "from vero import tool" in str(named[0].message)
    assert_blames_this_file([*record, *named])
    with pytest.raises(ImportError):
        from vero.tool import no_such_name  # noqa: F401
    namespace: dict = {}
    with pytest.warns(DeprecationWarning) as star:
        exec("from vero.tool import *", namespace)  # every name of vero.tools.__all__, with its warning
    assert namespace["Tool"] is Tool and namespace["tool"] is tool_in_base
    assert {str(w.message).split()[0] for w in star} == {f"vero.tool.{name}" for name in vero.tools.__all__}


def test_import_vero_tool_builtin_as_a_name_fails_after_its_warning(monkeypatch):
    """It looks the package up on ``vero.tool``, the decorator: the one old form that cannot work."""
    monkeypatch.delitem(sys.modules, "vero.tool.builtin", raising=False)
    with deprecated_here("the import path vero.tool.builtin"), pytest.raises(ImportError):
        exec("import vero.tool.builtin as b", {})
    assert vero.tool is tool_in_base


def test_buildin_warns_and_gives_the_original_names(monkeypatch):
    monkeypatch.delitem(sys.modules, "vero.tools.buildin", raising=False)  # imported once: warned once
    with deprecated_here("vero.tools.buildin") as record:
        buildin = importlib.import_module("vero.tools.buildin")
    assert "vero.tools.builtin (calculator for math_calculator)" in str(record[0].message)
    assert_blames_this_file(record)
    assert buildin.math_calculator("6 * 7") == "42" and buildin.google_search.name == "google_search"


@pytest.mark.filterwarnings("ignore:vero.tools.buildin is deprecated:DeprecationWarning")
def test_buildin_is_an_alias_with_no_code_of_its_own():
    from vero.tools import buildin, builtin

    for name in buildin.__all__:
        value = getattr(buildin, name)
        if name in builtin.__all__:
            assert value is getattr(builtin, name)
        else:  # a built-in function under the original framework's name
            assert isinstance(value, Tool) and value.name == name
            assert value.func.__module__.startswith("vero.tools.builtin.")
    defined_here = [
        name
        for name, value in vars(buildin).items()
        if inspect.isfunction(value) and value.__module__ == buildin.__name__
    ]
    assert defined_here == []
    assert not hasattr(buildin, "__path__")  # a module, not a package


@pytest.mark.filterwarnings("ignore:vero.tools.buildin is deprecated:DeprecationWarning")
def test_google_search_says_it_searches_with_tavily():
    from vero.tools.buildin import google_search
    from vero.tools.builtin.search import search_tavily

    assert google_search.func is search_tavily and "Tavily" in google_search.description


def test_tool_auto_correct_is_accepted_with_a_warning_and_changes_nothing():
    def double(x: int) -> int:
        return 2 * x

    with deprecated_here(r"Tool\(auto_correct=...\)") as record:
        made = Tool(double, auto_correct=False)
    with deprecated_here(r"Tool\(auto_correct=...\)") as decorated:
        tool_in_base(auto_correct=True)(double)
    assert_blames_this_file([*record, *decorated])
    assert vars(made).keys() == vars(Tool(double)).keys() and not hasattr(made, "auto_correct")
    assert made.read_only is False and made(4) == 8


def test_tool_from_function_is_tool_with_a_warning():
    def double(x: int) -> int:
        return 2 * x

    with deprecated_here(r"Tool.from_function\(func, ...\)") as record:
        made = Tool.from_function(double, "twice", read_only=True)  # its arguments, by position too
    assert_blames_this_file(record)
    assert (type(made), made.name, made.read_only) == (Tool, "twice", True)
    assert made.schema == Tool(double, name="twice").schema


def test_the_status_constants_of_the_result_module_warn_and_are_the_members():
    from vero.core import result
    from vero.core.result import Status

    with deprecated_here(r"vero.core.result.MAX_TURNS") as record:
        from vero.core.result import MAX_TURNS
    with deprecated_here(r"vero.core.result.STATUSES") as listed:
        statuses = result.STATUSES
    assert MAX_TURNS is Status.MAX_TURNS and statuses == tuple(Status)
    assert "write Status.MAX_TURNS" in str(record[0].message) and "tuple(Status)" in str(listed[0].message)
    assert_blames_this_file([*record, *listed])
    with pytest.raises(ImportError):
        from vero.core.result import NOT_A_STATUS  # noqa: F401


# --------------------------------------------------------------------------- each module on its own


def vero_modules() -> dict[str, Path]:
    """Every module under vero/, by dotted name."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def outside_imports() -> list[str]:
    """The modules from outside vero that vero's files import at their top (the standard library's)."""
    names = set()
    for path in vero_modules().values():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names.add(node.module)
    return sorted(name for name in names if name.partition(".")[0] not in ("vero", "__future__"))


# Run by one fresh interpreter: load what vero imports from outside once, then fork one child per vero
# module, which imports that module alone (no vero module is loaded before the fork).  Each child prints
# one line if its import fails; the parent prints one for a child that ended without saying why.
IMPORT_EACH_ALONE = """
import os, sys
for outside in sys.argv[1].split(","):
    try:
        __import__(outside)
    except Exception:
        pass
assert not any(name == "vero" or name.startswith("vero.") for name in sys.modules), "vero was loaded early"
sys.stdout.flush()
todo, running = sys.argv[2:], {}
while todo or running:
    while todo and len(running) < (os.cpu_count() or 1):
        name = todo.pop()
        pid = os.fork()
        if pid == 0:
            try:
                __import__(name)
            except BaseException as exc:
                print(f"{name}: {type(exc).__name__}: {exc}", flush=True)
                os._exit(1)
            os._exit(0)
        running[pid] = name
    pid, status = os.wait()
    name = running.pop(pid)
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # 1: the child printed its error
        print(f"{name}: ended with status {os.waitstatus_to_exitcode(status)}", flush=True)
"""


def test_every_module_imports_on_its_own_in_a_fresh_interpreter():
    """Each module is imported with no other vero module loaded.  Where the system can fork, one fresh
    interpreter forks a child per module (seconds less than an interpreter per module); else an interpreter each."""
    names = sorted(set(vero_modules()) - NOT_IMPORTABLE)
    if hasattr(os, "fork"):
        done = python(IMPORT_EACH_ALONE + "\n", ",".join(outside_imports()), *names)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.splitlines() == []
        return
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = dict(zip(names, pool.map(lambda name: python(f"import {name}"), names)))
    failed = {name: done.stderr.strip().splitlines()[-1:] for name, done in runs.items() if done.returncode}
    assert failed == {}


def test_no_vero_module_uses_a_deprecated_name_when_it_is_imported():
    """Every module but the deprecated ones imports in one interpreter where a DeprecationWarning is an error."""
    names = sorted(set(vero_modules()) - NOT_IMPORTABLE - {"vero.tools.buildin"})
    done = python(
        "import sys, warnings\nwarnings.simplefilter('error', DeprecationWarning)\n"
        "for name in sys.argv[1:]:\n    __import__(name)\n",
        *names,
    )
    assert done.returncode == 0, done.stderr[-2000:]


# --------------------------------------------------------------------------- import cycles


def imported_modules(module: str, path: Path, modules: dict) -> set[str]:
    """The vero modules ``module`` imports, at the top, inside functions or under ``if TYPE_CHECKING:``
    (an import only a type checker follows is still a circle a reader has to untangle)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, path.name == "__init__.py")
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # `import vero.tools.builtin.search.x` -> the module
                target = target.rpartition(".")[0]
            if target and target != module:
                found.add(target)
    return found


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """``from .x import y`` in ``module`` -> ``vero....x``."""
    if not node.level:
        return node.module or ""
    base = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


def import_graph() -> dict[str, set[str]]:
    modules = vero_modules()
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The groups of modules that import each other in a circle (strongly connected components)."""
    reaches = {name: _reachable(graph, name) for name in graph}
    groups = []
    for name in sorted(graph):
        group = {other for other in reaches[name] if name in reaches[other]}
        if group and group not in groups:
            groups.append(group)
    return groups


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), list(graph[start])
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph.get(name, ()))
    return seen


def test_the_cycle_finder_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_command_the_repl_and_the_demo_import_one_way():
    graph = import_graph()
    console = {name: graph[name] & CONSOLE for name in CONSOLE}
    assert console == {
        "vero.cli": {"vero._console", "vero.repl", "vero._demo"},
        "vero.repl": {"vero._console"},
        "vero._demo": {"vero._console"},
        "vero._console": set(),
    }


def test_no_vero_modules_import_each_other_in_a_circle():
    assert cycles(import_graph()) == []
