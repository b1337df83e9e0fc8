"""python_exec's sandbox: every escape an adversarial probe found, as a fault-matrix row.

Each row runs hostile code through the tool directly (agent kind ``direct``)
and checks the one defined outcome; on the old python_exec (a plain
subprocess) every one of them failed.  ``FAULTS`` is collected by
benchmarks/fault_matrix.py too, so the checks use no pytest fixtures.

A process started inside the sandbox lives in its own pid namespace: the pid it
prints means nothing out here, so the checks find such processes by a unique
marker in their command line (``_alive_with``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest
from test_faults import FaultRow, fault_test, row_registry

from vero.tools.builtin import python_exec, python_runner
from vero.tools.builtin.python_runner import make_python_exec, run_python

ROOT = Path(__file__).resolve().parents[1]
LINUX = sys.platform.startswith("linux")
DIRECT = ("direct",)

FAULTS: list[FaultRow] = []


fault = row_registry(FAULTS)


# =========================================================================== helpers


def canary() -> str:
    return f"vero-canary-{uuid.uuid4().hex}"


def run(code: str, timeout: float = 5, tool=python_exec) -> str:
    """Call the tool the way a registry would (the function directly), with dedented code."""
    return tool(code=textwrap.dedent(code), timeout=timeout)


def ran(out: str) -> str:
    """``out``, after checking that the code really ran (was not refused) and finished."""
    assert not out.startswith("Error: python_exec refused") and "DONE" in out, out
    return out


def _alive_with(marker: str) -> list[int]:
    """Host pids of live (non-zombie) processes whose command line contains ``marker``."""
    pids = []
    for entry in os.listdir("/proc"):
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in cmdline and state != "Z":
            pids.append(int(entry))
    return pids


def _gone(marker: str, wait: float = 1.0) -> bool:
    deadline = time.monotonic() + wait
    while _alive_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = _alive_with(marker)
    for pid in survivors:  # never leave a survivor of the old code running
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
    return not survivors


@contextlib.contextmanager
def env_var(name: str, value: str):
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


@contextlib.contextmanager
def working_dir(path: str):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


RUNNER_IMPORT = "from vero.tools.builtin.python_runner import run_python"  # what a driver process calls


def in_a_fresh_parent(prelude: str, code: str, env: dict | None = None) -> str:
    """Run ``code`` with run_python from a new Python process (the parent), after ``prelude``.

    Needed where the secret must be in the parent's *initial* environment:
    /proc/<pid>/environ shows that, not later changes to os.environ.
    """
    script = "\n".join(
        [
            f"import sys; sys.path.insert(0, {str(ROOT)!r})",
            textwrap.dedent(prelude),
            RUNNER_IMPORT,
            f"print(run_python({textwrap.dedent(code)!r}), end='')",
        ]
    )
    env = {**os.environ, **(env or {})}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# =========================================================================== the parent's secrets


@fault(
    "sandbox/parent-environ-via-proc",
    DIRECT,
    "the API key in the parent's environment is not in /proc/<ppid>/environ (unreadable or absent)",
)
def parent_environ(kind):
    key = "sk-" + canary()
    out = ran(
        in_a_fresh_parent(
            "",
            """
        import os
        try:
            print(open(f"/proc/{os.getppid()}/environ", "rb").read())
        except OSError as exc:
            print("unreadable:", exc)
        print(dict(os.environ))
        print("DONE")
    """,
            env={"OPENAI_API_KEY": key},
        )
    )
    assert key not in out, out
    return "ok; key absent"


@fault(
    "sandbox/parent-cwd-dotenv",
    DIRECT,
    "the .env in the parent's working directory cannot be read: not via /proc/<ppid>/cwd, not by its path",
)
def parent_cwd_dotenv(kind):
    secret = canary()
    with tempfile.TemporaryDirectory(prefix="vero-parent-") as folder, working_dir(folder):
        Path(folder, ".env").write_text(f"OPENAI_API_KEY={secret}\n")
        out = ran(
            run(f"""
            import os
            for path in (f"/proc/{{os.getppid()}}/cwd/.env", "/proc/{os.getpid()}/cwd/.env", {folder + "/.env"!r}):
                try:
                    print(path, open(path).read())
                except OSError as exc:
                    print(path, "unreadable:", type(exc).__name__)
            print("DONE")
        """)
        )
    assert secret not in out, out
    return "ok; unreadable by /proc and by path"


_HELD_IN_MEMORY: list[bytes] = []  # the canary the memory scan looks for


@fault(
    "sandbox/parent-memory-canary",
    DIRECT,
    "a canary held only in the parent's memory is not found by scanning /proc/<ppid>/mem",
)
def parent_memory(kind):
    secret = canary()
    _HELD_IN_MEMORY[:] = [secret.encode() * 4]
    try:
        out = ran(
            run(
                f"""
            import os, re
            needle = {secret[::-1]!r}[::-1].encode()  # reversed: the code's own text does not contain it
            def scan(pid):
                try:
                    maps = open(f"/proc/{{pid}}/maps").read().splitlines()
                    with open(f"/proc/{{pid}}/mem", "rb", buffering=0) as mem:
                        for line in maps:
                            start, end = (int(x, 16) for x in line.split()[0].split("-"))
                            if "r" not in line.split()[1] or end - start > 1 << 28:
                                continue
                            try:
                                mem.seek(start)
                                if needle in mem.read(end - start):
                                    return "FOUND"
                            except OSError:
                                pass
                    return "not found"
                except OSError as exc:
                    return f"unreadable: {{type(exc).__name__}}"
            for pid in (os.getppid(), {os.getpid()}):
                print(pid, scan(pid))
            print("DONE")
        """,
                timeout=20,
            )
        )
    finally:
        _HELD_IN_MEMORY.clear()
    assert "FOUND" not in out and secret not in out, out
    return "ok; " + out.splitlines()[1].split(None, 1)[-1]


# =========================================================================== escaping processes


@fault(
    "sandbox/detached-child-new-session",
    DIRECT,
    "a child started with start_new_session=True does not outlive the call",
)
def detached_child(kind):
    marker = canary()
    out = ran(
        run(f"""
        import subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", {marker!r}],
                         start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print("DONE")
    """)
    )
    assert out.endswith("exit status: 0"), out
    assert _gone(marker), "the detached child survived the call"
    return "ok; killed with the call"


@fault("sandbox/double-fork-setsid", DIRECT, "a double-forked setsid() grandchild does not outlive the call")
def double_fork(kind):
    marker = canary()
    out = ran(
        run(f"""
        import os, sys
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(30)", {marker!r}])
            os._exit(0)
        os.wait()
        print("DONE")
    """)
    )
    assert out.endswith("exit status: 0"), out
    assert _gone(marker), "the double-forked grandchild survived the call"
    return "ok; killed with the call"


@fault(
    "sandbox/timeout-grandchild-holds-pipes",
    DIRECT,
    "a 1 s timeout returns within 2 s although a detached grandchild holds stdout; it is killed; no thread leaks",
)
def timeout_with_grandchild(kind):
    marker = canary()
    threads = threading.active_count()
    start = time.monotonic()
    out = run(
        f"""
        import subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", {marker!r}], start_new_session=True)
        print("started", flush=True)
        time.sleep(30)
    """,
        timeout=1,
    )
    elapsed = time.monotonic() - start
    assert out.endswith("timed out after 1 s") and "started" in out, out
    assert elapsed < 2.0, f"returned after {elapsed:.1f} s"
    assert _gone(marker), "the grandchild survived the timeout"
    assert threading.active_count() == threads, "reader threads leaked"
    return f"ok; returned after {elapsed:.1f} s"


# =========================================================================== project layouts (issue 34)


def _writable(folder: str) -> bool:
    return os.path.isdir(folder) and os.access(folder, os.W_OK)


READ_SECRETS = """
import os
for path in {paths!r}:
    try:
        print(path, "READ", open(path).read())
    except OSError as exc:
        print(path, "unreadable:", type(exc).__name__)
for folder in {folders!r}:
    try:
        print(folder, "LISTED", sorted(os.listdir(folder)))
    except OSError as exc:
        print(folder, "unlisted:", type(exc).__name__)
print("DONE")
"""


@fault(
    "sandbox/project-beside-the-installation",
    DIRECT,
    "a project folder under a system prefix (/usr/local/src/app, /usr/src/app, or inside the interpreter's own "
    "prefix), with vero run from a subfolder of it or from /: its .env cannot be read nor the folder listed",
)
def project_beside_installation(kind):
    homes = [f for f in ("/usr/local/src", "/usr/src", sys.base_prefix) if _writable(f)]
    if not homes:
        pytest.skip("no writable system prefix to put a project in (needs root)")
    checked = []
    for home in homes:
        with tempfile.TemporaryDirectory(prefix="vero-app-", dir=home) as app:
            secret = canary()
            os.chmod(app, 0o755)  # as an app's folder is: readable by every user, nobody included
            Path(app, ".env").write_text(f"OPENAI_API_KEY={secret}\n")
            os.mkdir(os.path.join(app, "sub"))
            for cwd in (os.path.join(app, "sub"), "/"):
                with working_dir(cwd):
                    out = ran(run(READ_SECRETS.format(paths=[f"{app}/.env"], folders=[app, f"{app}/sub"])))
                assert secret not in out and "READ" not in out and "LISTED" not in out, out
                checked.append(cwd)
    return f"ok; hidden in {len(homes)} prefixes, from {len(checked)} working folders"


VENV_PARENT = """
import os, sys
sys.path.insert(0, {root!r})
from vero.tools.builtin.python_runner import run_python
os.chdir({project!r})
print(run_python({code!r}), end="")
"""


@fault(
    "sandbox/project-is-the-venv",
    DIRECT,
    "vero run by a venv that is itself the project folder: the project's .env and a key exported in "
    "bin/activate cannot be read; the venv's packages still import",
)
def project_is_the_venv(kind):
    secret = canary()
    with tempfile.TemporaryDirectory(prefix="vero-project-") as project:
        os.chmod(project, 0o755)  # readable by every user, nobody included (a temporary folder is not)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", project], check=True, timeout=120)
        Path(project, ".env").write_text(f"OPENAI_API_KEY={secret}\n")
        with open(os.path.join(project, "bin", "activate"), "a") as activate:
            activate.write(f"export OPENAI_API_KEY={secret}\n")
        python = os.path.join(project, "bin", "python")
        site = subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.strip()
        Path(site, "vero_probe_module.py").write_text("VALUE = 'imported'\n")
        code = READ_SECRETS.format(paths=[f"{project}/.env", f"{project}/bin/activate"], folders=[project])
        code += "import vero_probe_module\nprint(vero_probe_module.VALUE)\n"
        proc = subprocess.run(
            [python, "-c", VENV_PARENT.format(root=str(ROOT), project=project, code=code)],
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            capture_output=True,
            text=True,
            timeout=60,
        )
    out = ran(proc.stdout)
    assert secret not in out and "READ" not in out, out
    assert f"{project}/.env unreadable" in out and f"{project}/bin/activate unreadable" in out, out
    listed = out.split("LISTED", 1)[1].splitlines()[0] if "LISTED" in out else ""
    assert ".env" not in listed and "imported" in out, out
    return "ok; .env and bin/activate unreadable, packages import"


# =========================================================================== limits


@fault(
    "sandbox/memory-1GiB",
    DIRECT,
    "allocating 1 GiB raises MemoryError under the default memory limit; 100 MB still works",
)
def memory_limit(kind):
    out = ran(
        run("""
        small = bytearray(100 << 20)
        print("100 MB ok")
        try:
            big = bytearray(1 << 30)
            print("1 GiB allocated")
        except MemoryError:
            print("MemoryError")
        print("DONE")
    """)
    )
    assert "100 MB ok" in out and "MemoryError" in out and "allocated" not in out, out
    return "ok; MemoryError"


# Each way to hold memory that a per-process address-space limit does not see; each stops at {target_mb}.
HOLD = r"""
import ctypes, os, mmap
libc = ctypes.CDLL(None, use_errno=True)
MIB, TARGET = 1 << 20, {target_mb} << 20
def err():
    return os.strerror(ctypes.get_errno())

def memfds():
    held, fds = 0, []
    try:
        while held < TARGET:
            fd = os.memfd_create("hold")
            fds.append(fd)
            for _ in range(16):  # 16 x 4 MiB per file, under a 64 MiB file_mb
                os.posix_fallocate(fd, os.fstat(fd).st_size, 4 * MIB)
                held += 4 * MIB
    except OSError as exc:
        return held, exc.strerror
    return held, "held"

def nested_tmpfs():
    pid = os.fork()
    if pid == 0:
        if libc.unshare(0x10000000 | 0x00020000) != 0:
            os.write(1, f"nested-tmpfs: 0 (unshare: {{err()}})\n".encode()); os._exit(0)
        os.makedirs("/tmp/nest", exist_ok=True)
        if libc.mount(b"none", b"/tmp/nest", b"tmpfs", 0, b"size=2g") != 0:
            os.write(1, f"nested-tmpfs: 0 (mount: {{err()}})\n".encode()); os._exit(0)
        held = 0
        try:
            while held < TARGET:
                with open(f"/tmp/nest/{{held}}", "wb") as f:
                    os.posix_fallocate(f.fileno(), 0, 16 * MIB)
                held += 16 * MIB
            reason = "held"
        except OSError as exc:
            reason = exc.strerror
        os.write(1, f"nested-tmpfs: {{held >> 20}} ({{reason}})\n".encode()); os._exit(0)
    os.waitpid(pid, 0)

def sysv_shm():
    libc.shmat.restype = ctypes.c_void_p
    held = 0
    while held < TARGET:
        sid = libc.shmget(0, ctypes.c_size_t(32 * MIB), 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if sid < 0:
            return held, "shmget: " + err()
        address = libc.shmat(sid, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            return held, "shmat: " + err()
        ctypes.memset(address, 1, 32 * MIB)
        libc.shmdt(ctypes.c_void_p(address))
        held += 32 * MIB
    return held, "held"

def sysv_msg():
    class Msg(ctypes.Structure):
        _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 8192)]
    msg, held = Msg(1, b"x" * 8192), 0
    while held < TARGET:
        qid = libc.msgget(0, 0o1600)
        if qid < 0:
            return held, "msgget: " + err()
        while libc.msgsnd(qid, ctypes.byref(msg), 8192, 0o4000) == 0:  # IPC_NOWAIT
            held += 8192
    return held, "held"

for name, hold in (("memfd", memfds), ("sysv-shm", sysv_shm), ("sysv-msg", sysv_msg)):
    held, reason = hold()
    print(f"{{name}}: {{held >> 20}} ({{reason}})", flush=True)
nested_tmpfs()
print("DONE")
"""


@fault(
    "sandbox/memory-outside-the-limit",
    DIRECT,
    "with memory_mb=128 and disk_mb=16, memfd_create files, System V shared memory and message queues, and a "
    "tmpfs in a nested user namespace each hold nothing (refused), never the 320 MB asked for",
)
def memory_outside_the_limit(kind):
    out = ran(run(HOLD.format(target_mb=320), timeout=30, tool=make_python_exec(memory_mb=128, disk_mb=16)))
    held = {
        line.split(":")[0]: int(line.split()[1])
        for line in out.splitlines()
        if line.split(":")[0] in ("memfd", "sysv-shm", "sysv-msg", "nested-tmpfs")
    }
    assert len(held) == 4 and all(mb == 0 for mb in held.values()), out
    if python_runner.memory_bound().startswith("rlimits") and os.uname().machine in ("x86_64", "aarch64"):
        assert "memfd: 0 (Operation not permitted)" in out, out
    return "ok; " + ", ".join(line.split(" (")[1].rstrip(")") for line in out.splitlines() if " (" in line)


EMPTY_FILES = """
import errno
made = 0
try:
    while made < {most}:
        open(f"f{{made}}", "w").close()
        made += 1
    print("made:", made)
except OSError as exc:
    print("stopped:", made, errno.errorcode.get(exc.errno))
print("DONE")
"""


@fault(
    "sandbox/empty-files-bounded",
    DIRECT,
    "with disk_mb=16, creating empty files in /tmp stops with ENOSPC at its inode limit (256 per MB: about "
    "4,000 files), long before the 20,000 asked for; each file holds kernel memory that its size does not count",
)
def empty_files_bounded(kind):
    out = ran(run(EMPTY_FILES.format(most=20_000), timeout=60, tool=make_python_exec(disk_mb=16)))
    assert "stopped:" in out and "ENOSPC" in out, out
    made = int(out.split("stopped:")[1].split()[0])
    assert 1000 < made <= 16 * 256, out
    return f"ok; stopped at {made} files (ENOSPC)"


@fault(
    "sandbox/cpu-loop",
    DIRECT,
    "a CPU loop is killed by SIGXCPU at its CPU limit (cpu_seconds=1), long before its timeout",
)
def cpu_limit(kind):
    start = time.monotonic()
    out = run("while True: pass", timeout=30, tool=make_python_exec(cpu_seconds=1))
    elapsed = time.monotonic() - start
    assert "killed by SIGXCPU: CPU time limit of 1 s" in out, out
    assert elapsed < 15, elapsed
    return f"ok; SIGXCPU after {elapsed:.1f} s"


@fault(
    "sandbox/file-too-large",
    DIRECT,
    "writing a file larger than file_mb fails with EFBIG (File too large); the program goes on",
)
def file_size_limit(kind):
    out = ran(
        run(
            """
        try:
            with open("big.bin", "wb") as f:
                f.write(b"x" * (3 << 20))
            print("written")
        except OSError as exc:
            print("EFBIG:", exc.strerror)
        print("DONE")
    """,
            tool=make_python_exec(file_mb=1),
        )
    )
    assert "EFBIG: File too large" in out and "written" not in out, out
    return "ok; File too large"


@fault(
    "sandbox/write-outside-workdir",
    DIRECT,
    "writes outside /tmp fail (read-only or absent): /, /usr, /etc, the venv, the parent's folder",
)
def write_outside(kind):
    with tempfile.TemporaryDirectory(prefix="vero-parent-") as folder, working_dir(folder):
        name = canary()  # a unique name, so that only what the code wrote is removed
        targets = [f"{folder}/{name}", *(f"{top}/{name}" for top in ("", "/usr", "/etc", sys.prefix))]
        try:
            out = ran(
                run(f"""
                for path in {targets!r}:
                    try:
                        open(path, "w").write("x")
                        print("WROTE", path)
                    except OSError as exc:
                        print("no:", path, exc.strerror)
                open("/tmp/scratch", "w").write("ok")
                print("DONE")
            """)
            )
        finally:
            leaked = [path for path in targets if os.path.exists(path)]
            for path in leaked:
                os.remove(path)
    assert "WROTE" not in out and not leaked, out
    return "ok; read-only outside /tmp"


@fault("sandbox/fork-bomb", DIRECT, "a fork bomb stops at the process limit (EAGAIN) and every fork dies with the call")
def fork_bomb(kind):
    marker = canary()
    out = ran(
        run(
            f"""
        import os, sys
        children = 0
        try:
            while children < 1000:
                if os.fork() == 0:
                    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(30)", {marker!r}])
                children += 1
        except OSError as exc:
            print("stopped:", exc.strerror)
        print("children:", children)
        print("DONE")
    """,
            timeout=20,
            tool=make_python_exec(max_processes=16),
        )
    )
    children = int(out.split("children:")[1].split()[0])
    assert "stopped: Resource temporarily unavailable" in out and children < 16, out
    assert _gone(marker), "forks survived the call"
    return f"ok; stopped after {children} forks"


@fault(
    "sandbox/connect-localhost", DIRECT, "a TCP connect to a listening 127.0.0.1 socket of the parent fails: no network"
)
def connect_localhost(kind):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.setblocking(False)
        port = server.getsockname()[1]
        out = ran(
            run(f"""
            import socket
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=2)
                print("CONNECTED")
            except OSError as exc:
                print("no network:", exc.strerror or exc)
            print("DONE")
        """)
        )
        with contextlib.suppress(BlockingIOError):
            server.accept()
            raise AssertionError("the sandbox connected to the parent's socket")
    assert "CONNECTED" not in out and "no network" in out, out
    return "ok; " + out.split("no network: ")[1].splitlines()[0]


@fault(
    "sandbox/unix-socket-in-shown-folder",
    DIRECT,
    "a listening unix socket (stream and datagram) in a folder the sandbox shows (the venv's site-packages) "
    "cannot be reached: connect and sendto fail, the listener receives nothing",
)
def unix_socket_in_shown_folder(kind):
    folder = next((p for p in sys.path if p.endswith("site-packages") and os.access(p, os.W_OK)), None)
    if folder is None:
        pytest.skip("no writable site-packages folder to put a socket in")
    name = canary()[-12:]
    stream_path, dgram_path = os.path.join(folder, f"s-{name}.sock"), os.path.join(folder, f"d-{name}.sock")
    with socket.socket(socket.AF_UNIX) as stream, socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as dgram:
        try:
            stream.bind(stream_path)
            dgram.bind(dgram_path)
            os.chmod(stream_path, 0o777)  # anyone may connect: only the sandbox stands in the way
            os.chmod(dgram_path, 0o777)
            stream.listen(1)
            stream.setblocking(False)
            dgram.setblocking(False)
            out = ran(
                run(f"""
                import os, socket
                print("visible:", os.path.exists({stream_path!r}))
                for kind, path in ((socket.SOCK_STREAM, {stream_path!r}), (socket.SOCK_DGRAM, {dgram_path!r})):
                    try:
                        with socket.socket(socket.AF_UNIX, kind) as s:
                            s.connect(path)
                            s.send(b"hello")
                            print("CONNECTED", kind)
                    except OSError as exc:
                        print("no connection:", exc.strerror)
                try:
                    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
                    a.sendto(b"hello", {dgram_path!r})
                    print("SENT")
                except OSError as exc:
                    print("no datagram:", exc.strerror)
                print("DONE")
            """)
            )
            with contextlib.suppress(BlockingIOError):
                stream.accept()
                raise AssertionError("the sandbox connected to the stream socket")
            with contextlib.suppress(BlockingIOError):
                dgram.recv(10)
                raise AssertionError("the sandbox sent to the datagram socket")
        finally:
            for path in (stream_path, dgram_path):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(path)
    assert "CONNECTED" not in out and "SENT" not in out and out.count("no connection") == 2, out
    return "ok; " + out.split("no connection: ")[1].splitlines()[0]


@fault(
    "sandbox/fake-setup-failure",
    DIRECT,
    "code that prints vero's own `vero-sandbox:` message and exits with its status (125) is reported as the "
    "code's output and exit status, not as a sandbox that could not be set up; only fds 0-2 are open in it",
)
def fake_setup_failure(kind):
    out = run("""
        import os, sys
        print(sorted(int(fd) for fd in os.listdir("/proc/self/fd"))[:3], len(os.listdir("/proc/self/fd")))
        sys.stderr.write("vero-sandbox: unshare(user, mount, pid, net, ipc): Operation not permitted\\n")
        sys.exit(125)
    """)
    assert not out.startswith("Error: python_exec refused") and out.endswith("exit status: 125"), out
    assert "stdout:\n[0, 1, 2] 4" in out and "stderr:\nvero-sandbox: unshare" in out, out
    return "ok; the code's own output and exit status"


# =========================================================================== refusing without a sandbox


@fault(
    "sandbox/not-linux-refuses",
    DIRECT,
    "off Linux the code does not run: an Error text says why and how to opt out; sandbox=False runs it",
)
def not_linux(kind):
    platform, sys.platform = sys.platform, "darwin"
    try:
        out = run("print('RAN')")
    finally:
        sys.platform = platform
    assert out.startswith("Error: python_exec refused") and "RAN" not in out, out
    assert "VERO_PYTHON_SANDBOX=off" in out and "sandbox=False" in out, out
    assert "RAN" in run("print('RAN')", tool=make_python_exec(sandbox=False))
    return "ok; refused; opt-out runs"


_NO_USER_NAMESPACES = """
import ctypes, os
uid, gid = os.geteuid(), os.getegid()
if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) != 0:  # CLONE_NEWUSER, to own its limits
    sys.exit("unshare: " + os.strerror(ctypes.get_errno()))
open("/proc/self/setgroups", "w").write("deny")
open("/proc/self/uid_map", "w").write(f"0 {uid} 1")
open("/proc/self/gid_map", "w").write(f"0 {gid} 1")
open("/proc/sys/user/max_user_namespaces", "w").write("0")  # from here on, none can be created
"""


@fault(
    "sandbox/no-user-namespaces-refuses",
    DIRECT,
    "where user namespaces cannot be created the code does not run: an Error text names the failed step",
)
def no_user_namespaces(kind):
    out = in_a_fresh_parent(_NO_USER_NAMESPACES, "print('RAN')")
    assert out.startswith("Error: python_exec refused") and "RAN" not in out, out
    assert "unshare" in out and "No space left on device" in out, out
    return "ok; refused (unshare: ENOSPC)"


# =========================================================================== pytest


pytestmark = pytest.mark.skipif(not LINUX, reason="the sandbox exists only on Linux (elsewhere it refuses)")


test_fault = fault_test(FAULTS)


def test_the_rows_are_named_and_unique():
    names = [row.name for row in FAULTS]
    assert len(set(names)) == len(names) and all(name.startswith("sandbox/") for name in names)
    assert all(row.agents == DIRECT and row.expected for row in FAULTS)


def test_the_opt_out_variable_and_argument(monkeypatch):
    monkeypatch.setenv("VERO_PYTHON_SANDBOX", "off")
    assert python_runner.sandbox_enabled() is False and python_runner.sandbox_enabled(True) is True
    monkeypatch.setenv("VERO_PYTHON_SANDBOX", "on")
    assert python_runner.sandbox_enabled() is True and python_runner.sandbox_enabled(False) is False
    monkeypatch.setattr(sys, "platform", "win32")
    assert run_python("print(1)").startswith("Error: python_exec refused")
    monkeypatch.setenv("VERO_PYTHON_SANDBOX", "off")
    assert run_python("print(1)") == "stdout:\n1\nexit status: 0"


def test_make_python_exec_documents_its_limits_in_the_schema():
    tool = make_python_exec(memory_mb=256, cpu_seconds=5, file_mb=2, disk_mb=8, max_processes=8)
    assert tool.name == "python_exec" and tool.timeout > 60
    assert list(tool.parameters["properties"]) == ["code", "timeout"]
    assert "no network" in tool.description.lower() and "256 MB" in tool.description
    assert "network" not in make_python_exec(sandbox=False).description
    assert python_exec.parameters == tool.parameters


def test_limits_are_per_tool():
    out = run("print(len(bytearray(200 << 20)))\nprint('DONE')", tool=make_python_exec(memory_mb=128))
    assert "MemoryError" in out
    assert "209715200" in ran(run("print(len(bytearray(200 << 20)))\nprint('DONE')"))


def test_the_program_runs_unprivileged_with_pid_1_as_its_parent():
    # The parent's files are not there.  (The folders leading to the Python installation are, so a
    # virtual environment inside the repository shows the repository's folder, holding only the venv.)
    here = os.path.abspath(__file__)
    out = ran(
        run(f"""
        import os
        print(os.getuid(), os.getppid(), sorted(p for p in os.listdir("/proc") if p.isdigit()))
        print(os.path.exists({here!r}), os.path.exists({os.path.dirname(here)!r}), os.getcwd())
        print("DONE")
    """)
    )
    uid, ppid, _ = out.splitlines()[1].split(" ", 2)
    assert ppid == "1" and (uid == "65534" if os.geteuid() == 0 else uid == str(os.geteuid())), out
    assert os.path.exists(here) and out.splitlines()[2].startswith("False False /tmp/vero-python-"), out


def test_exit_codes_and_signals_come_through():
    assert run("import sys; sys.exit(7)").endswith("exit status: 7")
    out = run("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    assert out.endswith("exit status: -11 (killed by SIGSEGV)"), out


def test_large_code_and_output_go_through_the_pipes():
    code = "x = 1\n" * 20_000 + "print('a' * 50_000)\nprint('END')"
    out = run(code)
    assert "characters cut" in out and out.endswith("END\nexit status: 0"), out[-200:]


def test_utf8_round_trip():
    assert run("print('héllo ✓ 日本')") == "stdout:\nhéllo ✓ 日本\nexit status: 0"


def _unprivileged_python(uid: int) -> tuple[list[str], dict] | None:
    """A command prefix running as ``uid`` and a Python that imports vero there, or None."""
    runner = shutil.which("setpriv")
    if not runner:
        return None
    prefix = [runner, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    site = [p for p in sys.path if p.endswith("site-packages")]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": os.pathsep.join([str(ROOT), *site])}
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    probe = "import subprocess, sys, vero.tools.builtin; subprocess.run([sys.executable, '-c', ''], check=True)"
    for python in dict.fromkeys([sys.executable, shutil.which(version, path="/usr/local/bin:/usr/bin") or ""]):
        if (
            python
            and subprocess.run(
                [*prefix, python, "-c", probe],
                env=env,  # it must start itself, too
                capture_output=True,
                timeout=60,
            ).returncode
            == 0
        ):
            return [*prefix, python], env
    return None


_UNPRIVILEGED = """
import json, os, sys
from vero.tools.builtin.python_runner import run_python
os.environ["OPENAI_API_KEY"] = {key!r}
os.chdir({folder!r})
code = '''
import os, socket, subprocess, sys
print("uid", os.getuid())
for path in (f"/proc/{{os.getppid()}}/environ", "/proc/{{parent}}/environ", ".env", {folder!r} + "/.env"):
    try:
        print(path, open(path, "rb").read())
    except OSError as exc:
        print(path, "unreadable")
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", {marker!r}], start_new_session=True)
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2)
    print("CONNECTED")
except OSError as exc:
    print("no network")
print("DONE")
'''.replace("{{parent}}", str(os.getpid()))
print(run_python(code))
"""


@pytest.mark.skipif(not LINUX or os.geteuid() != 0, reason="needs root to switch to an unprivileged uid")
def test_an_unprivileged_user_gets_the_same_sandbox():
    """vero run by a normal user (uid 65534 here): the same guarantees, or a clear refusal."""
    found = _unprivileged_python(65534)
    if found is None:
        pytest.skip(
            "no setpriv, or no Python that uid 65534 can run with vero importable "
            "(e.g. the interpreter lives under /root)"
        )
    command, env = found
    key, marker = "sk-" + canary(), canary()
    with tempfile.TemporaryDirectory(prefix="vero-unprivileged-") as folder, socket.socket() as server:
        os.chmod(folder, 0o777)
        Path(folder, ".env").write_text(f"OPENAI_API_KEY={key}\n")
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        script = _UNPRIVILEGED.format(key=key, folder=folder, marker=marker, port=server.getsockname()[1])
        proc = subprocess.run([*command, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert key not in out and _gone(marker), out
    if out.startswith("Error: python_exec refused"):  # unprivileged user namespaces are disabled here
        assert "unshare" in out or "mount" in out, out
        return
    assert "uid 65534" in out and "no network" in out and "DONE" in out and "CONNECTED" not in out, out


def test_a_parent_cwd_inside_a_system_folder_is_hidden():
    """/usr/src/app with its .env is a usual cwd: an existing folder at that depth stands in for it."""
    folder = next(
        (
            f
            for f in ("/usr/share/doc", "/usr/share/man", "/usr/share/locale", "/usr/include/linux")
            if os.path.isdir(f) and os.listdir(f)
        ),
        None,
    )
    if folder is None:
        pytest.skip("no non-empty folder two levels below /usr")
    with working_dir(folder):
        out = ran(
            run(
                f"import os\nprint(os.listdir({folder!r}), os.listdir({os.path.dirname(folder)!r}) != [])\n"
                "print('DONE')"
            )
        )
    assert "[] True" in out, out


def test_memory_bound_names_the_mechanism_in_force(monkeypatch, tmp_path):
    """No usable cgroup: the rlimits; a folder whose children get the memory controller: the cgroup."""
    monkeypatch.setenv("VERO_PYTHON_CGROUP", str(tmp_path / "missing"))
    monkeypatch.setattr(python_runner, "_own_cgroup", lambda: None)
    assert python_runner.memory_cgroup_parent() is None
    assert python_runner.memory_bound().startswith("rlimits: ") and "memfd_create" in python_runner.memory_bound()
    (tmp_path / "cgroup.subtree_control").write_text("cpu pids\n")
    monkeypatch.setenv("VERO_PYTHON_CGROUP", str(tmp_path))
    assert python_runner.memory_cgroup_parent() is None  # no memory controller for the children
    (tmp_path / "cgroup.subtree_control").write_text("cpu memory pids\n")
    assert python_runner.memory_cgroup_parent() == str(tmp_path)
    assert python_runner.memory_bound().startswith("cgroup: memory.max")


def test_each_call_joins_a_cgroup_of_its_own_with_memory_max(monkeypatch, tmp_path):
    """The cgroup plumbing, on a stand-in folder (a real cgroupfs removes its files itself)."""
    (tmp_path / "cgroup.subtree_control").write_text("memory\n")
    monkeypatch.setenv("VERO_PYTHON_CGROUP", str(tmp_path))
    removed: list = []
    monkeypatch.setattr(python_runner, "_remove_cgroup", removed.append)
    out = run("print('DONE')", tool=make_python_exec(memory_mb=100, disk_mb=28))
    assert out == "stdout:\nDONE\nexit status: 0", out
    (folder,) = removed
    assert os.path.dirname(folder) == str(tmp_path) and os.path.basename(folder).startswith("vero-python-")
    assert Path(folder, "memory.max").read_text() == str(128 << 20)
    assert Path(folder, "cgroup.procs").read_text().strip().isdigit()  # the bootstrap joined before forking


@pytest.mark.skipif(
    python_runner.memory_cgroup_parent() is None,
    reason="no cgroup v2 memory controller for vero's cgroup here (cgroup v1, or not delegated; "
    "VERO_PYTHON_CGROUP names one): the rlimit fallback is in force, tested by "
    "sandbox/memory-outside-the-limit",
)
def test_a_real_cgroup_bounds_the_memory_of_all_processes_together():
    out = ran(
        run(
            """
        import os
        children = []
        for _ in range(4):  # 4 x 60 MB: each under memory_mb, together over memory.max (96 MB)
            pid = os.fork()
            if pid == 0:
                block = bytearray(60 << 20)
                block[::4096] = b"x" * len(block[::4096])  # touch every page: it is really used
                import time; time.sleep(2)
                os._exit(0)
            children.append(pid)
        print("killed:", sum(os.waitpid(pid, 0)[1] & 0x7f == 9 for pid in children))
        print("DONE")
    """,
            timeout=20,
            tool=make_python_exec(memory_mb=80, disk_mb=16),
        )
    )
    assert "killed: 0" not in out, out
