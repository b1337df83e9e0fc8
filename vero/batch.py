"""Run many tasks concurrently: ``run_many(make_agent, tasks)``.

    from vero.batch import run_many

    results = run_many(lambda: ReActAgent("calc", llm, tools=[add], verbose=False),
                       ["2+3?", "7*6?"], max_workers=16)
    print(sum(r.ok for r in results), "ok")

Each task gets a fresh agent from ``make_agent()`` (agents keep history, so
they are not shared); one ``ChatOpenAI`` may be shared by all of them, it is
thread-safe.  Results come back in task order, and a task that raises becomes a
``failed`` ``RunResult`` instead of stopping the batch.

``executor=`` takes any ``concurrent.futures.Executor``: a
``ProcessPoolExecutor``, a Dask ``client.get_executor(pure=False)`` (``pure=False``:
Dask would otherwise run identical tasks once), a Ray-backed executor ...  For
executors in other processes, ``make_agent`` and the tasks must be picklable
(a module-level function, not a lambda), and each worker process builds its own
client.

Ctrl-C stops the batch: tasks not started are dropped, and with the default
thread pool every running agent is cancelled (``Agent.cancel()``): it stops
before its next model or tool call, so ``run_many`` returns (raising the
``KeyboardInterrupt``) within about one model call.
"""

from __future__ import annotations

import contextvars
import pickle
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future, ThreadPoolExecutor, as_completed, wait
from dataclasses import replace
from typing import Any, cast

from vero.core.result import RunResult, Status

__all__ = ["run_many", "run_one"]


def run_one(make_agent: Callable[[], Any], task: str) -> RunResult:
    """Build an agent, run one task, return its ``RunResult`` (raises only ``KeyboardInterrupt``: it stops the batch).

    Module-level so that process pools can pickle it.
    """
    started = time.perf_counter()
    try:
        agent = make_agent()
        answer = agent.run(task)
        result = getattr(agent, "last_result", None) or RunResult(answer=answer or "", task=task)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # sys.exit() in make_agent too: this task failed, the batch goes on
        result = RunResult(status=Status.FAILED, error=exc, task=task, elapsed_s=time.perf_counter() - started)
    error = _picklable(result.error)
    return result if error is result.error else replace(result, error=error)


def _picklable(error: BaseException | None) -> BaseException | None:
    """The error itself if it survives a pickle round trip, else a ``RuntimeError`` naming it."""
    if error is None:
        return None
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        return RuntimeError(repr(error))


def _submit(pool: Executor, make_agent: Callable[[], Any], task: str) -> Future:
    """``run_one`` on ``pool``; on a thread, in a copy of this context: an agent run inside another's tool asks that
    run's approvers (``vero.core.agent_tool.RUNNING_AGENT``)."""
    if isinstance(pool, ThreadPoolExecutor):
        return pool.submit(contextvars.copy_context().run, run_one, make_agent, task)
    return pool.submit(run_one, make_agent, task)


def run_many(
    make_agent: Callable[[], Any],
    tasks: Iterable[str],
    *,
    max_workers: int | None = 8,
    executor: Executor | None = None,
    progress: bool = True,
) -> list[RunResult]:
    """Run every task with a fresh agent from ``make_agent()``; results in task order.

    Without ``executor`` a ``ThreadPoolExecutor(max_workers)`` is used (model calls
    wait on the network, so threads scale well).  A given executor is not shut down.
    ``progress`` shows a one-line counter on stderr when stderr is a terminal.
    """
    tasks = _task_list(tasks, max_workers)
    results: list[RunResult | None] = [None] * len(tasks)
    workers = None if max_workers is None else max(1, min(max_workers, len(tasks)))  # None: the pool's default
    pool = executor or ThreadPoolExecutor(workers, thread_name_prefix="vero-batch")
    show = progress and sys.stderr.isatty()
    started, failed = time.perf_counter(), 0
    futures: dict = {}
    agents: list[Any] = []  # the agents built so far (own thread pool only): Ctrl-C cancels them

    def tracked_agent() -> Any:
        agent = make_agent()
        agents.append(agent)
        return agent

    factory = make_agent if executor else tracked_agent  # another executor may need a picklable make_agent
    try:
        for index, task in enumerate(tasks):
            futures[_submit(pool, factory, task)] = index
        for done, future in enumerate(as_completed(futures), 1):
            index = futures[future]
            results[index] = result = _result_of(future, tasks[index])
            failed += result.status != Status.OK  # max_turns, max_tokens...: no answer to count on either
            if show:
                _show_progress(done, len(tasks), failed, started)
    except BaseException:  # Ctrl-C: drop the tasks not started yet, and stop the running ones
        for future in futures:
            future.cancel()
        _cancel_until_done(agents, list(futures))
        raise
    finally:
        if show and tasks:
            sys.stderr.write("\n")
        if executor is None:
            pool.shutdown(wait=True)
    return cast("list[RunResult]", results)  # every slot is filled: as_completed yields every future


def _task_list(tasks: Iterable[str], max_workers: int | None) -> list[str]:
    """``tasks`` as a list; a ``TypeError`` for one task given alone (its letters would each be run as a task), a
    ``ValueError`` for a ``max_workers`` that is no number of workers (0 or less would run one at a time, unsaid)."""
    if isinstance(tasks, str):
        raise TypeError("run_many takes a list of tasks, not one task: run_many(make_agent, [task])")
    if max_workers is not None and (
        isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1
    ):
        raise ValueError(
            f"max_workers must be a whole number of 1 or more (or None: the pool's default), got {max_workers!r}"
        )
    return list(tasks)


def _result_of(future: Future, task: str) -> RunResult:
    """The run's result; a ``failed`` one when the executor failed (unpicklable make_agent, a dead worker...)."""
    try:
        return cast("RunResult", future.result())
    except Exception as exc:
        return RunResult(status=Status.FAILED, error=_picklable(exc), task=task)


def _show_progress(done: int, total: int, failed: int, started: float) -> None:
    """The one-line counter on stderr, rewritten in place: the runs done, and those that did not end ``ok``."""
    rate = done / max(time.perf_counter() - started, 1e-9)
    sys.stderr.write(f"\r{done}/{total} done, {failed} not ok, {rate:.1f} tasks/s")
    sys.stderr.flush()


def _cancel_until_done(agents: list[Any], futures: list[Future]) -> None:
    """Cancel every agent's run until all ``futures`` are done.

    Repeated, because an agent built just now may not have started its run yet
    (``cancel()`` then has nothing to stop); each running agent stops at its
    next model or tool call.
    """
    while not all(future.done() for future in futures):
        for agent in list(agents):
            if callable(getattr(agent, "cancel", None)):
                agent.cancel()
        wait(futures, timeout=0.05)
