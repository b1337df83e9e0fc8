"""Run the local-model benchmark's tasks through peer agent frameworks.

This script runs inside the peers' own virtual environment (``peers.py``
makes it and starts this script there), so smolagents, LangGraph, pydantic-ai
and the OpenAI Agents SDK never touch vero's environment.  It uses only the
standard library and those frameworks; it imports ``world.py`` and
``worlds.py`` by path for the tools.

    peers-venv/bin/python peer_worker.py JOB.json RESULTS.jsonl

``JOB.json`` holds ``base_url``, ``model``, ``max_tokens``, ``max_steps``,
``timeout`` (seconds per task), ``frameworks`` (short names) and ``tasks``
(a list of ``{"id", "question", "seed"}``).  A task with a ``seed`` runs on a
fresh copy of that generated world (``worlds.make_world(seed)``), its row
saying whether the change the task asks for was made (``effect_ok``); one
without runs on ``world.TOOLS``.  One JSON line per (framework, task) is
appended to ``RESULTS.jsonl`` as soon as that task ends.

Model calls and tokens are counted at the HTTP level, the same way for every
framework: each task gets its own small counting reverse proxy on 127.0.0.1
that forwards to ``base_url`` and reads ``usage`` from every chat completion
(streamed or not).  The frameworks are given the proxy's URL.  A task that
runs past its timeout is abandoned: its proxy is closed, cutting the model
call in flight (llama-server then cancels it, freeing its slot), and any
request the abandoned thread still sends fails instead of being counted for,
or slowing down, the next task.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import http.server
import json
import os
import socket
import socketserver
import sys
import threading
import time
import traceback
import warnings
from urllib.parse import urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import world  # noqa: E402  (benchmarks/local_model/world.py)
import worlds  # noqa: E402  (benchmarks/local_model/worlds.py)

API_KEY = "sk-no-key"
AGENT_NAMES = {
    "smolagents": "smolagents ToolCallingAgent",
    "langgraph": "LangGraph create_react_agent",
    "pydantic-ai": "pydantic-ai Agent",
    "openai-agents": "OpenAI Agents SDK",
}


# -- the counting proxy ------------------------------------------------------------------
_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "trailers",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    "accept-encoding",
}


class Counts:
    """What one task's model calls cost, as the server reported it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.llm_calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cached_tokens = 0
        self.streamed_calls = 0
        self.calls_without_usage = 0
        self.http_errors = 0
        self.in_flight = 0

    def add_usage(self, usage: dict | None) -> None:
        with self.lock:
            if not isinstance(usage, dict):
                self.calls_without_usage += 1
                return
            self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
            self.completion_tokens += int(usage.get("completion_tokens") or 0)
            details = usage.get("prompt_tokens_details") or {}
            if isinstance(details, dict):
                self.cached_tokens += int(details.get("cached_tokens") or 0)


class CountingProxy:
    """A threaded reverse proxy on 127.0.0.1 that forwards everything to
    ``target`` and counts the chat completions that pass through it.

    ``base_url`` is the proxy's URL with the target's path (``.../v1``), so a
    client can use it in place of the real base URL.
    """

    def __init__(self, target_base_url: str) -> None:
        parts = urlsplit(target_base_url)
        self.target_scheme = parts.scheme or "http"
        self.target_netloc = parts.netloc
        self.target_path = parts.path.rstrip("/")
        self.counts = Counts()
        self.closed = False
        self._upstream: set[http.client.HTTPConnection] = set()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # no access log
                pass

            def do_GET(self):
                proxy._forward(self)

            do_POST = do_PUT = do_DELETE = do_PATCH = do_GET

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
            allow_reuse_address = True

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}{self.target_path}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"CountingProxy:{self.port}",
            daemon=True,
        )
        self._thread.start()

    def close(self) -> None:
        """Stop accepting requests, refuse the next ones on open connections,
        and cut the requests still in flight, so that the server drops them
        (llama-server cancels a request whose client went away) instead of
        keeping its slot busy for the next task."""
        if self.closed:
            return
        self.closed = True
        self._httpd.shutdown()
        self._httpd.server_close()
        with self.counts.lock:
            upstream = list(self._upstream)
        for connection in upstream:
            sock = connection.sock
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def _connection(self) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self.target_scheme == "https" else http.client.HTTPConnection
        return cls(self.target_netloc, timeout=900)

    def _forward(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        if self.closed:
            _reply(handler, 503, b'{"error": {"message": "the task timed out; its proxy is closed"}}', close=True)
            return
        is_completion = handler.command == "POST" and handler.path.split("?")[0].rstrip("/").endswith(
            "/chat/completions"
        )
        if is_completion:
            with self.counts.lock:
                self.counts.llm_calls += 1
            try:
                request = json.loads(body)
            except ValueError:
                request = None
            if isinstance(request, dict) and request.get("stream"):
                # Ask for the usage chunk at the end of the stream, so that it can be counted.
                options = request.get("stream_options") or {}
                if not options.get("include_usage"):
                    request["stream_options"] = {**options, "include_usage": True}
                    body = json.dumps(request).encode()
                with self.counts.lock:
                    self.counts.streamed_calls += 1
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in _HOP_BY_HOP}
        headers["Content-Length"] = str(len(body))
        connection = self._connection()
        with self.counts.lock:
            self._upstream.add(connection)
            if is_completion:
                self.counts.in_flight += 1
        try:
            try:
                connection.request(handler.command, handler.path, body=body, headers=headers)
                response = connection.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                if is_completion:
                    with self.counts.lock:
                        self.counts.http_errors += 1
                message = json.dumps({"error": {"message": f"proxy: no answer from {self.target_netloc}: {exc}"}})
                _reply(handler, 502, message.encode(), close=True)
                return
            if is_completion and response.status >= 400:
                with self.counts.lock:
                    self.counts.http_errors += 1
            content_type = response.getheader("content-type") or ""
            if "text/event-stream" in content_type:
                self._relay_stream(handler, response, count=is_completion)
            else:
                data = response.read()
                if is_completion and response.status < 400:
                    try:
                        self.counts.add_usage(json.loads(data).get("usage"))
                    except (ValueError, AttributeError):
                        self.counts.add_usage(None)
                _reply(handler, response.status, data, response.getheaders())
        except (OSError, http.client.HTTPException):
            handler.close_connection = True  # cut off (the task timed out) or the client went away
        finally:
            connection.close()
            with self.counts.lock:
                self._upstream.discard(connection)
                if is_completion:
                    self.counts.in_flight -= 1

    def _relay_stream(self, handler, response, *, count: bool) -> None:
        handler.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in _HOP_BY_HOP:
                handler.send_header(name, value)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        usage = None
        pending = b""
        try:
            while True:
                piece = response.read1(65536) if hasattr(response, "read1") else response.read(65536)
                if not piece:
                    break
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                handler.wfile.flush()
                pending += piece
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    found = _usage_in_sse_line(line)
                    if found is not None:
                        usage = found
            found = _usage_in_sse_line(pending)
            if found is not None:
                usage = found
            handler.wfile.write(b"0\r\n\r\n")
            handler.wfile.flush()
        finally:
            if count:
                self.counts.add_usage(usage)


def _usage_in_sse_line(line: bytes):
    line = line.strip()
    if not line.startswith(b"data:"):
        return None
    payload = line[5:].strip()
    if not payload or payload == b"[DONE]":
        return None
    try:
        event = json.loads(payload)
    except ValueError:
        return None
    usage = event.get("usage") if isinstance(event, dict) else None
    return usage if isinstance(usage, dict) else None


def _reply(handler, status: int, data: bytes, headers=(), close: bool = False) -> None:
    handler.send_response(status)
    sent_type = False
    for name, value in headers:
        if name.lower() not in _HOP_BY_HOP:
            handler.send_header(name, value)
            sent_type = sent_type or name.lower() == "content-type"
    if not sent_type:
        handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    if close:
        handler.send_header("Connection", "close")
        handler.close_connection = True
    handler.end_headers()
    handler.wfile.write(data)
    handler.wfile.flush()


# -- the frameworks ------------------------------------------------------------------------
# Each runner builds the framework's agent the way its docs show, against
# ``url`` (the task's proxy) with ``functions`` (the tools, plain functions), runs ``question`` and returns
# (answer, status).
# An exception becomes status "error" in ``run_task``.


class _MaxSteps(Exception):
    """The framework stopped at its step limit without giving an answer."""


def make_smolagents(job: dict):
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    def run(url: str, question: str, functions: list):
        tools = [tool(fn) for fn in functions]
        model = OpenAIServerModel(
            model_id=job["model"], api_base=url, api_key=API_KEY, temperature=0, max_tokens=job["max_tokens"]
        )
        agent = ToolCallingAgent(tools=tools, model=model, max_steps=job["max_steps"])
        result = agent.run(question, return_full_result=True)
        answer = "" if result.output is None else str(result.output)
        return answer, "max_steps" if result.state == "max_steps_error" else "ok"

    return run


LANGGRAPH_GAVE_UP = "Sorry, need more steps to process this request."


def make_langgraph(job: dict):
    from langchain_openai import ChatOpenAI
    from langgraph.errors import GraphRecursionError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent is deprecated in favour of langchain.agents.create_agent
        from langgraph.prebuilt import create_react_agent

    def run(url: str, question: str, functions: list):
        llm = ChatOpenAI(model=job["model"], base_url=url, api_key=API_KEY, temperature=0, max_tokens=job["max_tokens"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agent = create_react_agent(llm, functions)
        # One model turn is one "agent" super-step, each round of tools one "tools" super-step:
        # N model turns that end in an answer take 2N - 1 super-steps.
        config = {"recursion_limit": 2 * job["max_steps"]}
        try:
            state = agent.invoke({"messages": [{"role": "user", "content": question}]}, config)
        except GraphRecursionError as exc:
            raise _MaxSteps(_error_message(exc)) from exc
        answer = _text(state["messages"][-1].content)
        return answer, "max_steps" if answer == LANGGRAPH_GAVE_UP else "ok"

    return run


def make_pydantic_ai(job: dict):
    from pydantic_ai import Agent, UsageLimitExceeded, UsageLimits
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai_compatible import OpenAICompatibleProvider

    def run(url: str, question: str, functions: list):
        provider = OpenAICompatibleProvider("llama-server", base_url=url, api_key=API_KEY)
        model = OpenAIChatModel(job["model"], provider=provider)
        agent = Agent(model, tools=functions, model_settings={"temperature": 0, "max_tokens": job["max_tokens"]})

        async def main():
            try:
                result = await agent.run(question, usage_limits=UsageLimits(request_limit=job["max_steps"]))
            except UsageLimitExceeded as exc:
                raise _MaxSteps(_error_message(exc)) from exc
            finally:
                await provider.client.close()
            return result.output

        return str(asyncio.run(main())), "ok"

    return run


def make_openai_agents(job: dict):
    from agents import (
        Agent,
        MaxTurnsExceeded,
        ModelSettings,
        OpenAIChatCompletionsModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from openai import AsyncOpenAI

    set_tracing_disabled(True)

    def run(url: str, question: str, functions: list):
        tools = [function_tool(fn) for fn in functions]

        async def main():
            client = AsyncOpenAI(base_url=url, api_key=API_KEY)
            try:
                agent = Agent(
                    name="Assistant",
                    model=OpenAIChatCompletionsModel(model=job["model"], openai_client=client),
                    model_settings=ModelSettings(temperature=0, max_tokens=job["max_tokens"]),
                    tools=tools,
                )
                result = await Runner.run(agent, question, max_turns=job["max_steps"])
            except MaxTurnsExceeded as exc:
                raise _MaxSteps(_error_message(exc)) from exc
            finally:
                await client.close()
            return result.final_output

        output = asyncio.run(main())
        return ("" if output is None else str(output)), "ok"

    return run


FRAMEWORKS = {
    "smolagents": make_smolagents,
    "langgraph": make_langgraph,
    "pydantic-ai": make_pydantic_ai,
    "openai-agents": make_openai_agents,
}


def _text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return "" if content is None else str(content)


def _error_message(exc: BaseException) -> str:
    message = f"{type(exc).__name__}: {exc}".strip()
    return message if len(message) <= 2000 else message[:2000] + " ..."


# -- running --------------------------------------------------------------------------------
def run_task(runner, job: dict, task: dict) -> dict:
    proxy = CountingProxy(job["base_url"])
    outcome: dict = {}
    fresh = worlds.make_world(task["seed"]) if task.get("seed") is not None else None
    functions = fresh.tools if fresh is not None else world.TOOLS

    def target():
        try:
            outcome["answer"], outcome["status"] = runner(proxy.base_url, task["question"], functions)
        except _MaxSteps as exc:
            outcome.update(answer="", status="max_steps", error=str(exc))
        except BaseException as exc:  # noqa: BLE001 - one task's failure must not stop the others
            traceback.print_exc()
            outcome.update(answer="", status="error", error=_error_message(exc))

    started = time.perf_counter()
    thread = threading.Thread(target=target, name=f"task-{task['id']}", daemon=True)
    thread.start()
    thread.join(job["timeout"])
    seconds = time.perf_counter() - started
    counts = proxy.counts
    if thread.is_alive():
        with counts.lock:
            cut = counts.in_flight
        note = f"; {cut} unfinished model call(s) cut off, their tokens not counted" if cut else ""
        outcome = {"answer": "", "status": "error", "error": f"timeout: no answer after {job['timeout']:g} s{note}"}
    proxy.close()
    checks = _world_checks(fresh, task["id"])
    with counts.lock:
        return {
            **checks,
            "task": task["id"],
            "answer": outcome.get("answer", ""),
            "status": outcome.get("status", "error"),
            "error": outcome.get("error"),
            "llm_calls": counts.llm_calls,
            "prompt_tokens": counts.prompt_tokens,
            "completion_tokens": counts.completion_tokens,
            "cached_tokens": counts.cached_tokens,
            "seconds": round(seconds, 3),
            "streamed_calls": counts.streamed_calls,
            "calls_without_usage": counts.calls_without_usage,
            "http_errors": counts.http_errors,
        }


def _world_checks(fresh, task_id: str) -> dict:
    """For a generated world: whether the change its task asks for was made, and what changed."""
    if fresh is None:
        return {}
    task = next(t for t in fresh.tasks if t.id == task_id)
    effect_ok = None if task.effect is None else bool(task.effect(fresh))
    return {"effect_ok": effect_ok, "world_changes": [list(change) for change in fresh.changes]}


def _exit_with_parent() -> None:
    """Stop when the process that started us is gone (killed without cleaning up)."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(3)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    _exit_with_parent()
    with open(argv[1]) as f:
        job = json.load(f)
    out_path = argv[2]
    for name in job["frameworks"]:
        agent = AGENT_NAMES[name]
        print(f"=== {agent} ===", flush=True)
        try:
            runner = FRAMEWORKS[name](job)
            setup_error = None
        except BaseException as exc:  # noqa: BLE001 - a framework that fails to load fails its tasks
            traceback.print_exc()
            runner, setup_error = None, f"setup: {_error_message(exc)}"
        for task in job["tasks"]:
            print(f"--- {agent} / {task['id']}: {task['question']}", flush=True)
            if runner is None:
                row = {
                    "task": task["id"],
                    "answer": "",
                    "status": "error",
                    "error": setup_error,
                    "llm_calls": 0,
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "cached_tokens": 0,
                    "seconds": 0.0,
                }
            else:
                row = run_task(runner, job, task)
            row = {"framework": name, "agent": agent, **row}
            print(f"--- result: {json.dumps(row)}", flush=True)
            with open(out_path, "a") as f:
                f.write(json.dumps(row) + "\n")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # abandoned (timed-out) task threads must not keep the process alive


if __name__ == "__main__":
    sys.exit(main(sys.argv))
