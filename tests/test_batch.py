"""run_many: task order, failures as results, progress only on a terminal, any Executor."""

import io
import pickle
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from vero import Agent, Message
from vero.batch import _picklable, run_many, run_one
from vero.core.agent import BudgetExceeded, InvalidOutputError, MalformedOutputError
from vero.core.result import Status
from vero.errors import LLMCallError
from vero.testing import ScriptedLLM


def _echo(messages, **options):
    return "echo: " + messages[-1].content


class EchoAgent(Agent):
    """One model call; tasks named ``sleep:<s>:...`` wait first, ``boom`` raises, ``budget`` runs out."""

    def solve(self, task):
        if task == "boom":
            raise ValueError("boom")
        if task == "budget":
            raise BudgetExceeded(Status.MAX_TOKENS, "token budget of 1 exceeded")  # not picklable as is
        if task.startswith("sleep:"):
            time.sleep(float(task.split(":")[1]))
        return self.call_llm([Message.user(task)]).text


def make_agent():
    """Module-level, so a process pool can pickle it."""
    return EchoAgent("echo", ScriptedLLM(default=_echo), verbose=False)


def test_results_keep_task_order_when_tasks_finish_out_of_order():
    tasks = [f"sleep:{delay}:{i}" for i, delay in enumerate([0.15, 0.0, 0.1, 0.0, 0.05, 0.0])]
    results = run_many(make_agent, tasks, max_workers=6, progress=False)
    assert [r.task for r in results] == tasks
    assert [r.answer for r in results] == [f"echo: {t}" for t in tasks]
    assert all(r.status == Status.OK and r.llm_calls == 1 for r in results)


def test_each_task_gets_a_fresh_agent():
    built = []

    def factory():
        built.append(make_agent())
        return built[-1]

    results = run_many(factory, ["a", "b", "c"], max_workers=2, progress=False)
    assert len(built) == 3 and len({id(a) for a in built}) == 3
    assert sorted(len(a.history) for a in built) == [2, 2, 2]  # one task (user + answer) each
    assert [r.answer for r in results] == ["echo: a", "echo: b", "echo: c"]


def test_a_failing_run_becomes_a_failed_result_and_the_others_finish():
    results = run_many(make_agent, ["one", "boom", "two"], max_workers=2, progress=False)
    assert [r.status for r in results] == [Status.OK, Status.FAILED, Status.OK]
    assert isinstance(results[1].error, ValueError) and str(results[1].error) == "boom"
    assert results[1].task == "boom"
    assert [results[0].answer, results[2].answer] == ["echo: one", "echo: two"]


def test_an_exception_from_make_agent_becomes_a_failed_result():
    calls = []

    def factory():
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("no agent for you")
        return make_agent()

    results = run_many(factory, ["a", "b", "c"], max_workers=1, progress=False)
    assert [r.status for r in results] == [Status.OK, Status.FAILED, Status.OK]
    assert str(results[1].error) == "no agent for you" and results[1].task == "b"
    assert results[1].to_dict()["error"]["type"] == "RuntimeError"


def test_vero_errors_survive_pickling_with_their_fields():
    result = run_one(make_agent, "budget")
    assert result.status == Status.MAX_TOKENS
    restored = pickle.loads(pickle.dumps(result)).error
    assert type(restored) is BudgetExceeded and restored.status == Status.MAX_TOKENS
    assert str(restored) == "token budget of 1 exceeded"
    call_error = pickle.loads(pickle.dumps(LLMCallError("down", status=503)))
    assert call_error.status == 503 and str(call_error) == "down"
    malformed = pickle.loads(pickle.dumps(MalformedOutputError("bad", raw="prose")))
    assert type(malformed) is MalformedOutputError and malformed.raw == "prose" and str(malformed) == "bad"
    invalid = pickle.loads(pickle.dumps(InvalidOutputError("no fit", raw="{}")))
    assert type(invalid) is InvalidOutputError and invalid.raw == "{}" and invalid.status == "invalid_output"


def test_an_unpicklable_error_is_replaced_by_a_runtime_error_naming_it():
    error = ValueError("cannot travel")
    error.callback = lambda: None  # lambdas do not pickle
    replaced = _picklable(error)
    assert isinstance(replaced, RuntimeError) and "cannot travel" in str(replaced)
    assert pickle.loads(pickle.dumps(replaced)).args == replaced.args


def test_no_progress_output_when_stderr_is_not_a_terminal(capsys):
    results = run_many(make_agent, ["a", "b"], progress=True)
    assert [r.answer for r in results] == ["echo: a", "echo: b"]
    assert capsys.readouterr().err == ""


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_line_on_a_terminal(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    run_many(make_agent, ["a", "boom", "c"], max_workers=1, progress=True)
    text = terminal.getvalue()
    assert text.startswith("\r1/3 done, 0 not ok, ") and text.endswith("\n")
    last = text.strip().split("\r")[-1]
    assert last.startswith("3/3 done, 1 not ok, ") and last.endswith(" tasks/s")


def test_progress_false_prints_nothing_even_on_a_terminal(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    run_many(make_agent, ["a"], progress=False)
    assert terminal.getvalue() == ""


def test_an_explicit_thread_pool_is_used_and_left_open():
    with ThreadPoolExecutor(3, thread_name_prefix="mine") as pool:
        seen = []

        def factory():
            import threading

            seen.append(threading.current_thread().name)
            return make_agent()

        results = run_many(factory, ["a", "b", "c", "d"], executor=pool, progress=False)
        assert [r.answer for r in results] == ["echo: a", "echo: b", "echo: c", "echo: d"]
        assert seen and all(name.startswith("mine") for name in seen)
        assert pool.submit(lambda: 42).result() == 42  # run_many did not shut it down


def test_process_pool_runs_module_level_make_agent():
    tasks = ["x", "boom", "y", "budget"]
    with ProcessPoolExecutor(2) as pool:
        results = run_many(make_agent, tasks, executor=pool, progress=False)
    assert [r.task for r in results] == tasks
    assert [r.status for r in results] == [Status.OK, Status.FAILED, Status.OK, Status.MAX_TOKENS]
    assert results[0].answer == "echo: x" and results[2].answer == "echo: y"
    assert results[0].llm_calls == 1 and results[0].usage["total_tokens"] > 0
    assert isinstance(results[1].error, ValueError)
    assert isinstance(results[3].error, BudgetExceeded) and results[3].error.status == Status.MAX_TOKENS


def test_process_pool_with_an_unpicklable_make_agent_gives_failed_results():
    with ProcessPoolExecutor(1) as pool:
        results = run_many(lambda: make_agent(), ["a", "b"], executor=pool, progress=False)
    assert [r.status for r in results] == [Status.FAILED, Status.FAILED]
    assert [r.task for r in results] == ["a", "b"]
    assert all("pickle" in repr(r.error).lower() for r in results)


def test_ctrl_c_in_a_task_stops_the_batch_and_cancels_the_tasks_not_started():
    built = []

    def factory():
        built.append(1)
        agent = make_agent()
        if len(built) == 1:
            agent.solve = lambda task: (_ for _ in ()).throw(KeyboardInterrupt())
        return agent

    with pytest.raises(KeyboardInterrupt):
        run_many(factory, ["first"] + ["sleep:0.05:rest"] * 20, max_workers=1, progress=False)
    assert len(built) <= 3  # at most the task already picked up by the worker ran; the rest were cancelled


def test_no_tasks_gives_no_results():
    assert run_many(make_agent, [], progress=False) == []


def make_http_agent(base_url):
    """An agent on the real client; module-level so a process pool can pickle it."""
    from vero import ChatOpenAI, tool
    from vero.agents import ToolCallingAgent

    @tool
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    llm = ChatOpenAI(model_name="m", api_key="k", base_url=base_url, max_retries=0)
    return ToolCallingAgent("http", llm, tools=[echo], verbose=False)


def _echo_task(body):
    """Reply with the task so a swapped reply would show; run the echo tool once first."""
    messages = body["messages"]
    task = next(m["content"] for m in messages if m["role"] == "user")
    if messages[-1]["role"] == "user":
        return {"tool_calls": [{"name": "echo", "arguments": {"text": task}}]}
    return f"answer to {task} via {messages[-1]['content']}"


def test_forked_workers_do_not_share_the_parents_connections_or_tool_threads():
    import functools
    import multiprocessing

    from vero.testing import MockOpenAIServer

    with MockOpenAIServer(responder=_echo_task) as srv:
        warm = make_http_agent(srv.base_url)  # the parent opens a keep-alive connection and a tool thread
        assert warm.run("warm-up") == "answer to warm-up via warm-up"
        tasks = [f"task-{i}" for i in range(24)]
        with ProcessPoolExecutor(4, mp_context=multiprocessing.get_context("fork")) as pool:
            results = run_many(functools.partial(make_http_agent, srv.base_url), tasks, executor=pool, progress=False)
    assert [r.answer for r in results] == [f"answer to {t} via {t}" for t in tasks]
    assert all(r.status == Status.OK for r in results)


def test_a_run_that_ended_without_an_answer_counts_as_not_ok_in_the_progress_line(monkeypatch):
    from vero.agents import ToolCallingAgent
    from vero.testing import ScriptedLLM

    def looping_agent():
        call = {"tool_calls": [{"name": "nothing", "arguments": {}}]}
        return ToolCallingAgent("loop", ScriptedLLM(default=call), max_turns=1, verbose=False)

    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    [result] = run_many(looping_agent, ["go"], progress=True)
    assert result.status == "max_turns" and terminal.getvalue().strip().startswith("1/1 done, 1 not ok, ")
