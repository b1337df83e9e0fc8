"""Run model-written Python in a sandbox: ``python_exec`` and ``run_python``.

On Linux each call runs the code in new user, pid, mount, network and IPC
namespaces, built by ``_sandbox.py`` with ``unshare(2)`` (through ctypes; no
extra binary or package).  What the code gets:

* its own file system: what the interpreter needs (standard library,
  site-packages, binary, loaded libraries; never a whole prefix) and the system
  folders (/etc, /bin, /lib, /usr/lib, /usr/share...) read-only, an empty
  ``/tmp`` (a tmpfs of ``disk_mb``, at most 256 files or folders per MB)
  with its working directory in it, a minimal /dev.  The parent's working
  directory, home folder, ``.env`` files and everything else on disk are not
  there;
* a fresh /proc that shows only its own processes: the parent's environment,
  memory and working directory cannot be reached (there is no pid to name);
* no network at all (a network namespace whose loopback is down), and no
  ``connect()`` (seccomp), so a unix socket in a folder it sees is out of reach;
* no privileges: uid 65534 (nobody) when vero runs as root, otherwise vero's
  own uid without any capability; setuid binaries cannot raise them;
* rlimits per process: address space ``memory_mb``, CPU time ``cpu_seconds``,
  file size ``file_mb``, 64 open files, and ``max_processes``
  processes/threads in total; no memory it could hold outside those limits
  (``memfd_create``, System V shared memory and message queues, a tmpfs in a
  nested user namespace are refused); where a cgroup v2 memory controller is
  delegated, a cgroup per call bounds all its memory together (``memory_bound()``
  says which is in force);
* a scrubbed environment (a few harmless variables, no secrets) and the
  wall-clock ``timeout``: when the program ends or times out, every process
  it started is killed with it (the pid namespace dies), however detached.

Configure a tool with ``make_python_exec(memory_mb=..., cpu_seconds=...,
file_mb=..., disk_mb=..., max_processes=...)``; ``python_exec`` is the default.

Not guaranteed: world-readable files in the folders it shows stay readable
(/etc/environment, say); the kernel's own information in /proc and CPU side
channels; without a cgroup, memory in total (the limit is per process, so up
to ``max_processes`` times ``memory_mb``, plus ``disk_mb`` of /tmp and the
kernel's pipe and socket buffers behind at most 64 open files per process).

Where the sandbox cannot be built (not Linux; user namespaces disabled by
``user.max_user_namespaces=0``, restricted for normal users by
``kernel.apparmor_restrict_unprivileged_userns=1``, or blocked by a
container's seccomp profile), ``python_exec`` does not run the code: it
returns an ``Error: ...`` text that says why.  To run the code anyway with
only the weak isolation of old (scrubbed environment, temporary directory,
process group killed at the end; no limits, full file and network access as
your user), opt out explicitly: ``make_python_exec(sandbox=False)`` in code,
or ``VERO_PYTHON_SANDBOX=off`` in the environment (the CLI's way; an explicit
``sandbox=`` argument wins).
"""

from __future__ import annotations

import codecs
import itertools
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from vero.config import env_flag
from vero.tools.base import Tool

DEFAULT_TIMEOUT = 10.0
MAX_TIMEOUT = 60.0
OUTPUT_LIMIT = 10_000  # characters kept per stream
# The only variables passed on: enough for Python and locales to work.
SAFE_ENV_VARS = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP")

# Sandbox limits (per call; memory, CPU and file size are per process).
DEFAULT_MEMORY_MB = 1024  # address space: virtual memory, so a little more than what is used
DEFAULT_CPU_SECONDS = 60
DEFAULT_FILE_MB = 64  # the largest file the code may write
DEFAULT_DISK_MB = 128  # its /tmp (held in memory): all files together
DEFAULT_MAX_PROCESSES = 64  # processes and threads together

SANDBOX_ENV = "VERO_PYTHON_SANDBOX"  # "off" opts out of the sandbox
CGROUP_ENV = "VERO_PYTHON_CGROUP"  # a cgroup v2 folder delegated to vero (see memory_cgroup_parent)
OPEN_FILES = 64  # open files per sandboxed process, as in _sandbox.py
_CGROUP_NUMBERS = itertools.count()
BOOTSTRAP = Path(__file__).with_name("_sandbox.py")
SETUP_FAILED, SANDBOX_MARK = 125, "vero-sandbox:"  # as in _sandbox.py
KILL_GRACE = 0.5  # seconds to drain the pipes after a kill or an exit
_POLL = 0.05  # how often the output loop checks whether the process has exited


def scrubbed_env() -> dict[str, str]:
    """The child's environment: a few harmless basics, none of the parent's secrets."""
    return {name: os.environ[name] for name in SAFE_ENV_VARS if name in os.environ}


# --------------------------------------------------------------------------- output


class _HeadTail:
    """Decode a byte stream, keeping only the first and last ``limit // 2`` characters.

    Keeping only both ends bounds memory whatever the child prints.
    """

    def __init__(self, limit: int):
        self.half = limit // 2
        self.head, self.tail, self.total = "", "", 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, chunk: bytes, final: bool = False) -> None:
        text = self._decoder.decode(chunk, final=final)
        self.total += len(text)
        if len(self.head) < self.half:
            room = self.half - len(self.head)
            self.head, text = self.head + text[:room], text[room:]
        if text:
            self.tail = (self.tail + text)[-self.half :]

    def text(self) -> str:
        self.feed(b"", final=True)
        cut = self.total - len(self.head) - len(self.tail)
        if cut <= 0:
            return self.head + self.tail
        return f"{self.head}\n... [{cut:,} characters cut] ...\n{self.tail}"


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child's whole process group (in the sandbox: init too, so the whole namespace)."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # Windows: no process groups; kill what we can
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass  # already gone


def _communicate(proc: subprocess.Popen[bytes], data: bytes, timeout: float, limit: int) -> tuple[str, str, bool]:
    """Feed stdin, drain stdout and stderr, kill at the deadline: (stdout, stderr, timed_out).

    No reader threads, so none can leak: select() on the pipes, and once the
    process has exited or been killed the pipes get ``KILL_GRACE`` seconds to
    reach EOF and are then closed, even if something still holds them open.
    """
    if os.name == "nt":  # select() does not work on pipes there
        return _communicate_with_threads(proc, data, timeout, limit)
    stdin, stdout, stderr = proc.stdin, proc.stdout, proc.stderr
    assert stdin is not None and stdout is not None and stderr is not None  # the caller opened all three pipes
    outputs: dict[object, _HeadTail] = {stdout: _HeadTail(limit), stderr: _HeadTail(limit)}
    deadline, timed_out, ended = time.monotonic() + timeout, False, False
    os.set_blocking(stdin.fileno(), False)
    with selectors.DefaultSelector() as selector:
        for stream in (stdout, stderr):
            selector.register(stream, selectors.EVENT_READ)
        selector.register(stdin, selectors.EVENT_WRITE)
        while any(stream in selector.get_map() for stream in outputs):
            if not ended and proc.poll() is not None:  # exited, but something holds the pipes
                ended, deadline = True, time.monotonic() + KILL_GRACE
            if time.monotonic() >= deadline:
                if ended:
                    break
                timed_out, ended, deadline = True, True, time.monotonic() + KILL_GRACE
                _kill_group(proc)
            for key, _ in selector.select(max(0.0, min(_POLL, deadline - time.monotonic()))):
                if key.fileobj is stdin:
                    data = _write_some(stdin, data, selector)
                elif chunk := os.read(key.fd, 65536):
                    outputs[key.fileobj].feed(chunk)
                else:
                    selector.unregister(key.fileobj)
    if not ended:  # it closed both pipes: wait for its exit until the deadline
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
    for stream in (stdin, stdout, stderr):
        stream.close()
    return outputs[stdout].text(), outputs[stderr].text(), timed_out


def _write_some(stdin: IO[bytes], data: bytes, selector: selectors.BaseSelector) -> bytes:
    """Write what the pipe takes now; close stdin (EOF for the code) once all is written."""
    try:
        data = data[os.write(stdin.fileno(), data[:65536]) :]
    except BlockingIOError:
        return data
    except BrokenPipeError:
        data = b""  # the interpreter died early; its stderr says why
    if not data:
        selector.unregister(stdin)
        stdin.close()
    return data


def _communicate_with_threads(
    proc: subprocess.Popen[bytes], data: bytes, timeout: float, limit: int
) -> tuple[str, str, bool]:
    """Windows (never sandboxed): reader threads, as select() cannot wait on pipes."""
    outputs = [_HeadTail(limit), _HeadTail(limit)]

    def drain(stream: Any, output: _HeadTail) -> None:
        for chunk in iter(lambda: stream.read1(65536), b""):
            output.feed(chunk)

    readers = [
        threading.Thread(target=drain, args=pair, daemon=True) for pair in zip((proc.stdout, proc.stderr), outputs)
    ]
    for reader in readers:
        reader.start()
    assert proc.stdin is not None  # the caller opened all three pipes
    try:
        proc.stdin.write(data)
        proc.stdin.close()
    except OSError:
        pass  # the interpreter died early; its stderr says why
    try:
        proc.wait(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
    _kill_group(proc)
    for reader in readers:
        reader.join(timeout=KILL_GRACE)  # a grandchild that left the group may hold the pipe
    return outputs[0].text(), outputs[1].text(), timed_out


# --------------------------------------------------------------------------- running


def sandbox_enabled(sandbox: bool | None = None) -> bool:
    """``sandbox`` if given, else on unless ``VERO_PYTHON_SANDBOX=off`` (or 0/false/no/n) in the
    environment (a .env file may only keep it on, the default: ``vero.config.read_env_file``)."""
    if sandbox is not None:
        return sandbox
    return env_flag(os.environ.get(SANDBOX_ENV), default=True)


def _refusal(reason: str) -> str:
    return (
        f"Error: python_exec refused to run the code: {reason}. Its sandbox needs Linux with user "
        "namespaces (unshare of user, pid, mount and network namespaces), which may be disabled "
        "(sysctl user.max_user_namespaces, kernel.apparmor_restrict_unprivileged_userns) or blocked "
        "in a container. To run code without the sandbox (no limits, full file and network access), "
        f"set {SANDBOX_ENV}=off or use make_python_exec(sandbox=False)."
    )


def _sandbox_command(workdir: str, report_fd: int, cgroup: str | None, limits: dict[str, Any]) -> list[str]:
    """``python -I -S _sandbox.py WORKDIR REPORT_FD CGROUP LIMITS... HIDE...``: the bootstrap, running stdin's code."""
    try:  # hidden if they lie inside a folder the sandbox shows (e.g. the cwd /usr/share/app)
        hide = [os.getcwd(), os.path.expanduser("~")]
    except OSError:  # the cwd was deleted
        hide = [os.path.expanduser("~")]
    return [
        sys.executable,
        "-I",
        "-S",
        str(BOOTSTRAP),
        workdir,
        str(report_fd),
        cgroup or "-",
        *map(str, limits.values()),
        *hide,
    ]


# --------------------------------------------------------------------------- the memory bound


def memory_cgroup_parent() -> str | None:
    """The cgroup v2 folder under which each call gets a cgroup of its own with ``memory.max``, or None.

    ``VERO_PYTHON_CGROUP`` names a folder delegated to vero; otherwise vero's own cgroup is
    tried.  Usable when the memory controller is on for its children (``memory`` in its
    ``cgroup.subtree_control``) and vero may create folders there.
    """
    folder = os.environ.get(CGROUP_ENV) or _own_cgroup()
    if not folder:
        return None
    try:
        with open(os.path.join(folder, "cgroup.subtree_control")) as f:
            controllers = f.read().split()
    except OSError:
        return None
    return folder if "memory" in controllers and os.access(folder, os.W_OK) else None


def _own_cgroup() -> str | None:
    """This process's cgroup v2 folder (``0::/path`` in /proc/self/cgroup, under the cgroup2 mount)."""
    try:
        with open("/proc/self/cgroup") as f:
            path = next((line[3:].strip() for line in f if line.startswith("0::")), None)
        with open("/proc/self/mounts") as f:
            mount = next((line.split()[1] for line in f if line.split()[2:3] == ["cgroup2"]), None)
    except OSError:
        return None
    return mount + path if path and mount else None


def memory_bound() -> str:
    """Which mechanism bounds a sandboxed call's memory here, and what it bounds (also in the tool's description)."""
    if memory_cgroup_parent():
        return (
            "cgroup: memory.max of memory_mb + disk_mb bounds all memory of the call together (every "
            "process, /tmp, shared memory), plus the per-process rlimits"
        )
    return (
        "rlimits: memory_mb of address space per process (so at most max_processes x memory_mb), disk_mb "
        f"in /tmp, {OPEN_FILES} open files per process; memfd_create, System V shared memory and message "
        "queues and nested user namespaces are refused"
    )


def _call_cgroup(limits: dict[str, Any]) -> str | None:
    """A new cgroup for one call, its memory.max set, or None when no cgroup can be had (rlimits still apply)."""
    parent = memory_cgroup_parent()
    if parent is None:
        return None
    folder = os.path.join(parent, f"vero-python-{os.getpid()}-{next(_CGROUP_NUMBERS)}")
    try:
        os.mkdir(folder)
        with open(os.path.join(folder, "memory.max"), "w") as f:
            f.write(str((limits["memory_mb"] + limits["disk_mb"]) << 20))
        if os.path.exists(os.path.join(folder, "memory.swap.max")):
            with open(os.path.join(folder, "memory.swap.max"), "w") as f:
                f.write("0")  # swapped-out pages would not count against memory.max
    except OSError:
        _remove_cgroup(folder)
        return None
    return folder


def _remove_cgroup(folder: str | None) -> None:
    """Remove a call's cgroup once its processes are gone (the kernel may need a moment)."""
    deadline = time.monotonic() + 1.0
    while folder and os.path.isdir(folder):
        try:
            os.rmdir(folder)
        except OSError:
            if time.monotonic() > deadline:
                return
            time.sleep(0.01)


def _status(returncode: int, timed_out: bool, timeout: float, limits: dict[str, Any] | None) -> str:
    """``exit status: N``, with the reason when a signal (a limit, typically) killed it."""
    if timed_out:
        return f"timed out after {timeout:g} s"
    status = f"exit status: {returncode}"
    if returncode >= 0:
        return status
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    if limits and -returncode == getattr(signal, "SIGXCPU", None):
        return f"{status} (killed by {name}: CPU time limit of {limits['cpu_seconds']} s)"
    return f"{status} (killed by {name})"


def run_python(
    code: str,
    timeout: float = DEFAULT_TIMEOUT,
    output_limit: int = OUTPUT_LIMIT,
    *,
    sandbox: bool | None = None,
    memory_mb: int = DEFAULT_MEMORY_MB,
    cpu_seconds: int = DEFAULT_CPU_SECONDS,
    file_mb: int = DEFAULT_FILE_MB,
    disk_mb: int = DEFAULT_DISK_MB,
    max_processes: int = DEFAULT_MAX_PROCESSES,
) -> str:
    """Run ``code`` in a fresh interpreter and report stdout, stderr and the exit status.

    Sandboxed (see the module docstring) unless ``sandbox=False`` or
    ``VERO_PYTHON_SANDBOX=off``; where the sandbox is impossible the result is
    an ``Error: ...`` text saying why, and the code does not run.
    """
    timeout = max(0.1, min(float(timeout), MAX_TIMEOUT))
    sandboxed = sandbox_enabled(sandbox)
    if sandboxed and not sys.platform.startswith("linux"):
        return _refusal(f"the sandbox works only on Linux, not on {sys.platform}")
    limits = dict(
        memory_mb=int(memory_mb),
        cpu_seconds=int(cpu_seconds),
        file_mb=int(file_mb),
        disk_mb=int(disk_mb),
        max_processes=int(max_processes),
    )  # _sandbox.LIMITS' order
    report_r, report_w = os.pipe()  # the bootstrap's setup failures: a pipe the model's code never holds
    cgroup = _call_cgroup(limits) if sandboxed else None
    try:
        with tempfile.TemporaryDirectory(prefix="vero-python-") as workdir:
            command = (
                _sandbox_command(workdir, report_w, cgroup, limits)
                if sandboxed
                else [sys.executable, "-I", "-X", "utf8", "-"]
            )
            returncode, stdout, stderr, timed_out = _run_child(
                command, workdir, code, timeout, output_limit, report_w, sandboxed
            )
        setup_failure = _read_report(report_r)
    finally:
        os.close(report_r)
        _remove_cgroup(cgroup)
    if sandboxed and setup_failure:
        return _refusal(f"the sandbox could not be set up ({setup_failure})")
    return _report(stdout, stderr, _status(returncode, timed_out, timeout, limits if sandboxed else None))


def _run_child(
    command: list[str], workdir: str, code: str, timeout: float, output_limit: int, report_w: int, sandboxed: bool
) -> tuple[int, str, str, bool]:
    """Start ``command`` in ``workdir`` with ``code`` on its stdin, wait at most ``timeout`` seconds,
    and kill its whole process group: its exit code, stdout, stderr and whether it timed out.
    ``report_w`` (the sandbox's report pipe) is passed to a sandboxed child, and closed here."""
    try:
        proc = subprocess.Popen(
            command,  # the code arrives on stdin: nothing in the working directory
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=workdir,
            env=scrubbed_env(),
            start_new_session=True,  # its own process group, so killpg reaches its children
            pass_fds=(report_w,) if sandboxed else (),
        )
    finally:
        os.close(report_w)  # the bootstrap holds its copy: EOF comes when it and init are gone
    try:
        stdout, stderr, timed_out = _communicate(proc, code.encode("utf-8", errors="replace"), timeout, output_limit)
    finally:
        _kill_group(proc)  # on success too: nothing it started may outlive the call
        proc.wait()
    return proc.returncode, stdout, stderr, timed_out


def _read_report(fd: int) -> str:
    """What the bootstrap reported on its private pipe (empty when all went well); never waits."""
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 4096).decode("utf-8", errors="replace").strip()
    except BlockingIOError:
        return ""  # nothing written, but a writer is still alive (it is being killed)


def _report(stdout: str, stderr: str, status: str) -> str:
    streams = (("stdout", stdout), ("stderr", stderr))
    parts = [f"{name}:\n{text.rstrip()}" for name, text in streams if text.strip()]
    return "\n".join(parts or ["(no output)"]) + f"\n{status}"


# --------------------------------------------------------------------------- the tool

_DOC = """Run Python code in a fresh interpreter and return its stdout, stderr and exit status.

    Print what you want to see. Each call starts from scratch in an empty
    temporary directory; no API keys or other secrets are available.{limits}

    Args:
        code: the complete Python program to run.
        timeout: seconds before the program (and anything it started) is killed; at most 60.
    """

_LIMITS_DOC = (
    " There is no network access; the program may use up to {memory_mb} MB of memory and "
    "{cpu_seconds} s of CPU per process, files up to {file_mb} MB, {disk_mb} MB in all."
)


def make_python_exec(
    *,
    sandbox: bool | None = None,
    memory_mb: int = DEFAULT_MEMORY_MB,
    cpu_seconds: int = DEFAULT_CPU_SECONDS,
    file_mb: int = DEFAULT_FILE_MB,
    disk_mb: int = DEFAULT_DISK_MB,
    max_processes: int = DEFAULT_MAX_PROCESSES,
    name: str = "python_exec",
) -> Tool:
    """A ``python_exec`` tool with its own limits (or ``sandbox=False`` to opt out, see above).

    ``sandbox=None`` (the default) follows ``VERO_PYTHON_SANDBOX`` at call time.
    """
    options: dict[str, Any] = dict(
        sandbox=sandbox,
        memory_mb=memory_mb,
        cpu_seconds=cpu_seconds,
        file_mb=file_mb,
        disk_mb=disk_mb,
        max_processes=max_processes,
    )

    def python_exec(code: str, timeout: float = DEFAULT_TIMEOUT) -> str:
        return run_python(code, timeout, **options)

    limits = _LIMITS_DOC.format(**options) if sandbox_enabled(sandbox) else ""  # as configured right now
    python_exec.__doc__ = _DOC.format(limits=limits)
    # The registry's timeout is larger than any subprocess timeout, so that limit fires first.
    return Tool(python_exec, name=name, timeout=MAX_TIMEOUT + 15)


python_exec = make_python_exec()
