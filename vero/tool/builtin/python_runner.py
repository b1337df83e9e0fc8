"""Run model-written Python in a separate, isolated interpreter.

This is isolation, not a security sandbox: the code runs as the current user.
What it does guarantee is that the code cannot read the parent's secrets
from the environment (it gets a scrubbed one), starts in an empty temporary
directory, cannot outlive its timeout (the whole process group, children
included, is killed) and cannot flood memory with output (only the first and
last part of each stream is kept).
"""

from __future__ import annotations

import codecs
import os
import signal
import subprocess
import sys
import tempfile
import threading

from vero.tool.base import tool

DEFAULT_TIMEOUT = 10.0
MAX_TIMEOUT = 60.0
OUTPUT_LIMIT = 10_000  # characters kept per stream
# The only variables passed on: enough for Python and locales to work.
SAFE_ENV_VARS = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP")


def scrubbed_env() -> dict[str, str]:
    """The child's environment: a few harmless basics, none of the parent's secrets."""
    return {name: os.environ[name] for name in SAFE_ENV_VARS if name in os.environ}


class _StreamReader(threading.Thread):
    """Drain a pipe, keeping only the first and last ``limit // 2`` characters.

    Reading on a thread means a chatty child never blocks on a full pipe, and
    keeping only both ends bounds memory whatever the child prints.
    """

    def __init__(self, stream, limit: int):
        super().__init__(daemon=True)
        self.stream, self.half = stream, limit // 2
        self.head, self.tail, self.total = "", "", 0

    def run(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        for chunk in iter(lambda: self.stream.read1(65536), b""):
            self._add(decoder.decode(chunk))
        self._add(decoder.decode(b"", final=True))

    def _add(self, text: str) -> None:
        self.total += len(text)
        if len(self.head) < self.half:
            room = self.half - len(self.head)
            self.head, text = self.head + text[:room], text[room:]
        if text:
            self.tail = (self.tail + text)[-self.half:]

    def text(self) -> str:
        cut = self.total - len(self.head) - len(self.tail)
        if cut <= 0:
            return self.head + self.tail
        return f"{self.head}\n... [{cut:,} characters cut] ...\n{self.tail}"


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the child's whole process group (its own children included)."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # Windows: no process groups; kill what we can
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass  # already gone


def run_python(code: str, timeout: float = DEFAULT_TIMEOUT, output_limit: int = OUTPUT_LIMIT) -> str:
    """Run ``code`` with ``sys.executable -I`` and report stdout, stderr and the exit status."""
    timeout = max(0.1, min(float(timeout), MAX_TIMEOUT))
    with tempfile.TemporaryDirectory(prefix="vero-python-") as workdir:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-X", "utf8", "-"],  # the code arrives on stdin: nothing in the cwd
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=workdir,
            env=scrubbed_env(),
            start_new_session=True,  # its own process group, so killpg reaches its children
        )
        readers = [_StreamReader(proc.stdout, output_limit), _StreamReader(proc.stderr, output_limit)]
        for reader in readers:
            reader.start()
        try:
            try:
                proc.stdin.write(code.encode("utf-8", errors="replace"))
                proc.stdin.close()
            except BrokenPipeError:
                pass  # the interpreter died early; its stderr says why
            proc.wait(timeout=timeout)
            status = f"exit status: {proc.returncode}"
        except subprocess.TimeoutExpired:
            status = f"timed out after {timeout:g} s"
        finally:
            _kill_group(proc)  # on success too: nothing it started may outlive the call
            proc.wait()
        for reader in readers:
            reader.join(timeout=2)  # a grandchild that left the group may hold the pipe
        stdout, stderr = (reader.text() for reader in readers)
    return _report(stdout, stderr, status)


def _report(stdout: str, stderr: str, status: str) -> str:
    streams = (("stdout", stdout), ("stderr", stderr))
    parts = [f"{name}:\n{text.rstrip()}" for name, text in streams if text.strip()]
    return "\n".join(parts or ["(no output)"]) + f"\n{status}"


@tool(timeout=MAX_TIMEOUT + 15)  # larger than any subprocess timeout, so that limit fires first
def python_exec(code: str, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Run Python code in a fresh interpreter and return its stdout, stderr and exit status.

    Print what you want to see. Each call starts from scratch in an empty
    temporary directory; no API keys or other secrets are available.

    Args:
        code: the complete Python program to run.
        timeout: seconds before the program (and anything it started) is killed; at most 60.
    """
    return run_python(code, timeout)
