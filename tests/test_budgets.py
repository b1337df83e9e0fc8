"""benchmarks/budgets.py: the import checker on small invented trees named like vero's modules (every kind
of import counts; only arrows that point up are found), the two-call runs, and the exit status."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_budgets():
    spec = importlib.util.spec_from_file_location("vero_budgets", ROOT / "benchmarks" / "budgets.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


budgets = load_budgets()


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """A package ``vero`` under ``tmp_path`` with ``files`` (``"core/text.py": source``), and every
    ``__init__.py`` on the way."""
    package = tmp_path / "vero"
    for name, source in {"__init__.py": "", **files}.items():
        path = package / name
        for folder in [path.parent, *path.parent.parents]:
            if folder == tmp_path:
                break
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "__init__.py").touch()
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return package


def found(tmp_path: Path, files: dict[str, str]) -> list[str]:
    return [str(finding) for finding in budgets.upward_imports(tree(tmp_path, files))]


AGENT = {"core/agent.py": "from vero.core.text import clip\n", "core/text.py": "def clip(text): return text\n"}


def test_an_upward_import_at_the_top_is_found_with_its_line(tmp_path):
    files = {**AGENT, "core/text.py": "import os\nfrom vero.core.agent import Agent\n"}
    assert found(tmp_path, files) == ["vero.core.text:2 imports vero.core.agent (top): 1 data -> 3 agent"]


def test_an_import_under_type_checking_is_found(tmp_path):
    source = """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from vero.agents.react import ReActAgent
    """
    files = {"agents/react.py": "", "core/message.py": source}
    assert found(tmp_path, files) == [
        "vero.core.message:4 imports vero.agents.react (under TYPE_CHECKING): 1 data -> 4 patterns"
    ]


def test_an_import_inside_a_function_is_found(tmp_path):
    source = """
        def maybe_recover(agent):
            from vero.recovery import hook
            return hook(agent)
    """
    files = {"recovery/__init__.py": "def hook(agent): return agent\n", "agents/react.py": source}
    assert found(tmp_path, files) == [
        "vero.agents.react:3 imports vero.recovery (in a function): 4 patterns -> 5 recovery"
    ]


def test_import_module_with_a_written_name_is_found(tmp_path):
    files = {**AGENT, "core/options.py": "import importlib\nHOOK = importlib.import_module('vero.core.agent')\n"}
    assert found(tmp_path, files) == ["vero.core.options:2 imports vero.core.agent (top): 1 data -> 3 agent"]


def test_import_module_with_a_name_set_to_a_module_s_name_is_found(tmp_path):
    source = "import importlib\nLAYER = 'vero.recovery'\ndef hook():\n    return importlib.import_module(LAYER)\n"
    files = {"recovery/__init__.py": "", "core/options.py": source}
    assert found(tmp_path, files) == ["vero.core.options:4 imports vero.recovery (in a function): 1 data -> 5 recovery"]


def test_imports_of_the_same_or_a_lower_layer_pass(tmp_path):
    files = {
        **AGENT,
        "core/result.py": "from vero.core.text import clip\nfrom . import text\n",  # the same layer, relative too
        "agents/react.py": "from vero.core.agent import Agent\nimport vero.core.result\n",
        "cli.py": "from vero.agents.react import ReActAgent\nfrom vero.recovery import hook\n",
        "recovery/__init__.py": "from vero.core.agent import Agent\n",
    }
    assert found(tmp_path, files) == []


def test_importing_the_facade_from_inside_is_found_but_a_module_of_it_is_not(tmp_path):
    files = {
        "otel.py": "from vero import __version__\n",
        "tools/mcp.py": "def version():\n    import vero\n    return vero.__version__\n",
        "testing.py": "from vero import _mock_server\n",  # a module: not the facade's names
        "_mock_server.py": "",
    }
    assert found(tmp_path, files) == [
        "vero.otel:1 imports the facade `vero` (top)",
        "vero.tools.mcp:2 imports the facade `vero` (in a function)",
    ]


def test_the_optional_layers_do_not_import_each_other_or_the_cli(tmp_path):
    files = {
        "recovery/arithmetic.py": "from vero.tools.builtin.arithmetic import evaluate\n",
        "tools/builtin/arithmetic.py": "def evaluate(text): return 0\n",
        "tools/mcp.py": "def fail():\n    from vero._console import CliError\n",
        "_console.py": "class CliError(Exception): pass\n",
    }
    assert found(tmp_path, files) == [
        "vero.recovery.arithmetic:1 imports vero.tools.builtin.arithmetic (top): 5 recovery -> 5 built-in tools",
        "vero.tools.mcp:2 imports vero._console (in a function): 5 MCP -> 6 CLI",
    ]


def test_a_package_init_may_not_load_at_its_top_what_a_module_inside_may_not_import(tmp_path):
    lazy = """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from vero.core.agent import Agent as Agent
        def __getattr__(name):
            from vero.core.agent import Agent
            return Agent
    """
    eager = {**AGENT, "core/__init__.py": "from vero.core.agent import Agent\n"}
    assert found(tmp_path / "eager", eager) == [
        "vero.core:1 runs before vero.core.text and imports vero.core.agent at its top"
    ]
    assert found(tmp_path / "lazy", {**AGENT, "core/__init__.py": lazy}) == []


AGENT_WITH_GUARDED = "from vero.core.stream import stream\nclass Agent:\n    def _guarded(self):\n        return 1\n"


def test_a_call_of_a_private_method_of_a_module_that_imports_this_one_is_found(tmp_path):
    files = {"core/agent.py": AGENT_WITH_GUARDED, "core/stream.py": "def stream(agent):\n    return agent._guarded()\n"}
    assert found(tmp_path, files) == ["vero.core.stream:2 calls ._guarded() of vero.core.agent, which imports it"]


def test_a_private_method_only_declared_by_the_caller_s_protocol_is_still_found(tmp_path):
    stream = "class Agent:\n    def _guarded(self): ...\n\ndef stream(agent):\n    return agent._guarded()\n"
    files = {"core/agent.py": AGENT_WITH_GUARDED, "core/stream.py": stream}
    assert found(tmp_path, files) == ["vero.core.stream:5 calls ._guarded() of vero.core.agent, which imports it"]


def test_a_module_in_no_layer_is_reported(tmp_path):
    assert found(tmp_path, {"newthing.py": ""}) == ["vero.newthing:1 is in no layer: add it to LAYERS"]


def test_vero_has_no_upward_imports():
    assert [str(f) for f in budgets.upward_imports(ROOT / "vero")] == []


def test_a_data_module_loads_without_the_agent_and_the_model_client():
    """``vero/__init__.py`` and ``vero/core/__init__.py`` run first; both load the agent only on first use."""
    code = "import sys, vero.core.message, vero.core.text; print(sorted(m for m in sys.modules if 'vero' in m))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = done.stdout
    assert "vero.core.message" in loaded and "vero.core.agent" not in loaded and "vero.core.chat_openai" not in loaded


def test_the_longest_function_is_measured_from_def_to_its_last_line(tmp_path):
    package = tree(tmp_path, {"core/text.py": "def short():\n    return 1\n\n\ndef long():\n" + "    x = 1\n" * 60})
    longest, over = budgets.long_functions(package, limit=50)
    assert str(longest) == "vero.core.text:5 long: 61 lines" and over == [longest]


def test_the_counts_follow_the_tool_s_worker_thread():
    from function_count import functions_entered

    run, calls_a_tool = budgets.two_call_runs()["ToolCallingAgent"]
    assert calls_a_tool
    both = functions_entered(run, tool_thread=True)
    run, _ = budgets.two_call_runs()["ToolCallingAgent"]
    assert functions_entered(run) < both  # the tool's side of the call is counted too


def test_every_pattern_has_a_run_with_one_tool_call_then_the_answer():
    runs = budgets.two_call_runs()
    assert [name for name, (_, tool) in runs.items() if not tool] == ["BasicReflectionAgent"]  # it has no tools
    model_calls = {}
    for name, (run, calls_a_tool) in runs.items():
        agent = run.func.__self__
        assert run() == "1288" and agent.last_result.status == "ok", name
        observations = [s for s in agent.last_result.steps if s.kind == "observation"]
        assert len(observations) == calls_a_tool and all(float(s.content) == 1288 for s in observations), name
        model_calls[name] = agent.llm.calls
    assert model_calls == {
        "ToolCallingAgent": 2,
        "ReActAgent (text)": 2,
        "ReActAgent (native)": 2,
        "ReActAgent (guided)": 2,
        "PlanExecuteAgent": 4,  # the plan, the step's two, the replanner's answer
        "ReflexionAgent": 3,  # the attempt's two, the judge
        "BasicReflectionAgent": 2,
    }


def test_every_pattern_has_a_ceiling_at_or_above_the_target():
    assert set(budgets.FUNCTION_CEILINGS) == set(budgets.two_call_runs())
    assert all(ceiling >= budgets.FUNCTION_TARGET for ceiling in budgets.FUNCTION_CEILINGS.values())


def test_a_broken_budget_is_marked_and_fails(monkeypatch, capsys):
    monkeypatch.setattr(budgets, "function_counts", lambda: {"ToolCallingAgent": {"a", "b", "c"}})
    monkeypatch.setitem(budgets.FUNCTION_CEILINGS, "ToolCallingAgent", 2)
    monkeypatch.setattr("sys.argv", ["budgets.py"])
    assert budgets.main() == 1
    out = capsys.readouterr().out
    assert "functions: ToolCallingAgent" in out and "OVER" in out.splitlines()[2]
    monkeypatch.setitem(budgets.FUNCTION_CEILINGS, "ToolCallingAgent", 3)
    monkeypatch.setattr(budgets, "upward_imports", lambda package: [])
    monkeypatch.setattr(budgets, "FUNCTION_LINES_LIMIT", 10_000)
    monkeypatch.setattr(budgets, "LINES_CEILING", 10**6)
    assert budgets.main() == 0 and "all budgets hold" in capsys.readouterr().out
