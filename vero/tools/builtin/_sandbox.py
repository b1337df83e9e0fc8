"""The sandbox bootstrap: ``python -I -S _sandbox.py WORKDIR REPORT_FD CGROUP LIMITS... HIDE...`` runs stdin's code.

python_runner starts this file as a script; it is never imported by vero (it
runs before site-packages, with the standard library only, and imports little:
its start-up is paid on every call).  The arguments: an empty folder for the
new root, the pipe to report a setup failure on, the cgroup to join (``-``:
none), the five ``LIMITS`` in that order, then folders to hide.
Three processes are involved::

    vero ── outer ── init (pid 1 of a new pid namespace) ── program (python -I -, the model's code)

* outer (this script) enters new user, mount, pid, network and IPC namespaces,
  forks init, and exits the way the program did (same exit code, same signal).
* init builds a new root file system (the Python installation and system
  folders read-only, a small tmpfs as /tmp, a fresh /proc that shows only the
  sandbox), forks the program, and reaps until the program is gone.  When init
  exits the kernel kills every process left in the namespace, however detached.
* the program sets the rlimits, drops to an unprivileged uid (uid 65534 when
  vero runs as root; vero's own uid otherwise, without capabilities),
  forbids gaining privileges, and execs a fresh interpreter on stdin.

Any step that fails writes ``vero-sandbox: <step>: <reason>`` to REPORT_FD and
exits with SETUP_FAILED: a missing mechanism is reported, never skipped.  The
program never holds REPORT_FD, so its code cannot fake that report.
"""

from __future__ import annotations

# The C half of signal (it has no type stub): importing the enum-based module costs ~10 ms a call.
import _signal as signal  # type: ignore[import-not-found]
import ctypes
import os
import resource
import sys
from typing import Any

SETUP_FAILED = 125
MARK = "vero-sandbox:"
NOBODY = 65534  # the uid/gid the program runs as when vero runs as root
LIMITS = ("memory_mb", "cpu_seconds", "file_mb", "disk_mb", "max_processes")  # the order of the arguments

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER = 0x00020000, 0x08000000, 0x10000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_SECCOMP, PR_SET_NO_NEW_PRIVS = 1, 4, 22, 38
OPEN_FILES = 64  # per process: bounds what can be held through file descriptors (pipes, sockets)
# Files in /tmp: one per 4 KiB page of disk_mb.  Size alone does not bound a tmpfs: each file, even an
# empty one, holds about 1 KiB of kernel memory outside it, so empty files could hold gigabytes; this
# way they hold at most about a quarter of disk_mb more.
INODES_PER_MB = 256

# Inside the sandbox's own namespaces (they change nothing outside): no nested user namespace (a
# tmpfs mounted in one would hold memory no limit sees), no System V shared memory or message queues.
NAMESPACE_LIMITS = {
    "/proc/sys/user/max_user_namespaces": "0",
    "/proc/sys/kernel/shmall": "0",
    "/proc/sys/kernel/shmmax": "0",
    "/proc/sys/kernel/msgmni": "0",
}
# System calls seccomp refuses (EPERM), per architecture: AUDIT_ARCH, then the numbers of
#   refused: memfd_create, memfd_secret (memory files outside /tmp's size limit), io_uring_setup
#     (its own memory, and connect() where seccomp cannot see it), connect (a unix socket in a
#     folder the sandbox shows would be reachable: the network namespace covers only the network);
#   socket and socketpair, refused for AF_UNIX datagram sockets (they send to a path without connect).
SYSCALLS = {
    "x86_64": (0xC000003E, (319, 447, 425, 42), (41, 53)),
    "aarch64": (0xC00000B7, (279, 447, 425, 203), (198, 199)),
}
AF_UNIX, SOCK_DGRAM, SOCK_TYPE_MASK = 1, 2, 0xF

# Shown read-only inside (when they exist), besides what the interpreter needs.  Not /usr
# itself: /usr/src and /usr/local hold applications (and their .env files) in many images.
SYSTEM_PATHS = (
    "/bin",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libx32",
    "/usr/libexec",
    "/usr/share",
)
DEVICES = ("null", "zero", "full", "random", "urandom")
DEV_LINKS = {
    "fd": "/proc/self/fd",
    "stdin": "/proc/self/fd/0",
    "stdout": "/proc/self/fd/1",
    "stderr": "/proc/self/fd/2",
    "shm": "/tmp",
}

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
libc.pivot_root.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]


class SetupError(Exception):
    """A sandbox step failed; the message names the step and the reason."""


def _check(step: str, result: int) -> None:
    if result != 0:
        raise SetupError(f"{step}: {os.strerror(ctypes.get_errno())}")


REPORT_FD = [2]  # where a setup failure is reported: vero's private pipe (argv), never the program's stderr


def _fail(error: BaseException) -> None:
    """Report a failed step on the report pipe, which the model's code never holds, and exit."""
    try:
        os.write(REPORT_FD[0], f"{MARK} {error}\n".encode(errors="replace"))
    except OSError:
        pass  # vero reads nothing there: it refuses on the missing exit status alone
    os._exit(SETUP_FAILED)


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as exc:
        raise SetupError(f"writing {path}: {exc.strerror}") from None


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(
        f"mount {fstype or source or ''} on {target}",
        libc.mount(_bytes(source), _bytes(target), _bytes(fstype), flags, _bytes(data)),
    )


def prctl(option: int, value: int, argument: int = 0) -> None:
    _check(f"prctl({option})", libc.prctl(option, value, argument, 0, 0))


# --------------------------------------------------------------------------- outer


def enter_namespaces() -> None:
    """unshare(2) user, mount, pid, network and IPC namespaces and map our ids into them.

    The user namespace is what lets a normal user create the others; the pid
    namespace takes effect for the children (init is the first).
    """
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC
    if os.geteuid() == 0:
        _unshare_as_root(flags)
        return
    uid, gid = os.geteuid(), os.getegid()
    _check("unshare(user, mount, pid, net, ipc) (are user namespaces disabled?)", libc.unshare(flags))
    _write("/proc/self/setgroups", "deny")  # required before an unprivileged gid_map
    _write("/proc/self/uid_map", f"{uid} {uid} 1\n")  # the same uid inside: not root, so exec drops all caps
    _write("/proc/self/gid_map", f"{gid} {gid} 1\n")


def _unshare_as_root(flags: int) -> None:
    """As root, map root *and* nobody, so that the program can drop to nobody.

    A process may map only its own uid into the namespace it creates, unless a
    process with CAP_SETUID outside writes the map: a helper forked beforehand.
    """
    outer, (ready_r, ready_w) = os.getpid(), os.pipe()
    helper = os.fork()
    if helper == 0:
        os.close(ready_w)
        if os.read(ready_r, 1) != b"x":
            os._exit(2)  # unshare failed; outer reports it
        try:
            for name in ("uid_map", "gid_map"):
                _write(f"/proc/{outer}/{name}", f"0 0 1\n{NOBODY} {NOBODY} 1\n")
        except SetupError as exc:
            _fail(exc)
        os._exit(0)
    os.close(ready_r)
    result = libc.unshare(flags)
    error = ctypes.get_errno()
    if result == 0:
        os.write(ready_w, b"x")
    os.close(ready_w)
    _, status = os.waitpid(helper, 0)
    if result != 0:
        raise SetupError(f"unshare(user, mount, pid, net, ipc): {os.strerror(error)}")
    if status != 0:
        raise SetupError("mapping uids into the user namespace failed")


def report_like(status: int) -> None:
    """Exit with the program's exit code, or die of the signal that killed it."""
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        os._exit(code)
    if -code != signal.SIGKILL:
        signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
    os._exit(128 - code)  # not reached for fatal signals


def main() -> None:
    workdir, report_fd, cgroup = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    limits, hide = sys.argv[4 : 4 + len(LIMITS)], sys.argv[4 + len(LIMITS) :]
    config = {"workdir": workdir, "hide": hide, **{name: int(value) for name, value in zip(LIMITS, limits)}}
    REPORT_FD[0] = report_fd
    os.set_inheritable(report_fd, False)  # closed when the program execs: its code cannot write a setup failure
    try:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # vero dies: so does outer, then init, then the namespace
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # dying "like the program" must not dump core
        if cgroup != "-":  # before any fork: everything the call starts is in the cgroup and counts
            _write(os.path.join(cgroup, "cgroup.procs"), str(os.getpid()))
        enter_namespaces()
    except SetupError as exc:
        _fail(exc)
    status_r, status_w = os.pipe()
    init = os.fork()
    if init == 0:
        os.close(status_r)
        run_init(config, status_w)
    os.close(status_w)
    os.waitpid(init, 0)
    with os.fdopen(status_r, "rb") as f:
        status = f.read()
    if not status:
        os._exit(SETUP_FAILED)  # init failed (and said why) or was killed
    report_like(int(status))


# --------------------------------------------------------------------------- init


def run_init(config: dict[str, Any], status_w: int) -> None:
    """Pid 1 of the sandbox: build its file system, run the program, reap, report."""
    try:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # outer killed: init dies, and the namespace with it
        prctl(PR_SET_DUMPABLE, 0)  # the program (maybe the same uid) may not ptrace init
        for path, value in NAMESPACE_LIMITS.items():
            _write(path, value)
        inside = build_root(config)
        program = os.fork()
        if program == 0:
            run_program(config, inside)
        while True:  # orphans are re-parented to init: reap them too
            pid, status = os.waitpid(-1, 0)
            if pid == program:
                break
        os.write(status_w, str(status).encode())
    except SetupError as exc:
        _fail(exc)
    except BaseException as exc:  # noqa: BLE001 - any surprise is a setup failure, never a silent skip
        _fail(SetupError(f"init: {exc!r}"))
    os._exit(0)  # the kernel now kills whatever the program left behind


def python_paths() -> list[str]:
    """What the interpreter needs, never a whole prefix: its standard library, its site-packages
    (the venv's too), the venv's ``pyvenv.cfg``, its binary and the shared libraries it has loaded.

    So a project folder that *is* the venv, or that sits beside the installation
    (``/usr/local/src/app`` next to ``/usr/local/lib/python3.X``), stays out of sight,
    ``bin/activate`` and ``.env`` included.  Run with -S, this interpreter does not
    know it is in a venv (site.py would say), so the venv is found as ``pyvenv.cfg`` next to bin/.
    """
    import site  # with -S, importing site does not run it

    venv = os.path.dirname(os.path.dirname(sys.executable))
    venvs = [venv] if os.path.isfile(os.path.join(venv, "pyvenv.cfg")) else []
    paths = {os.path.dirname(os.__file__), *site.getsitepackages([sys.base_prefix, *venvs])}
    paths |= {os.path.join(v, "pyvenv.cfg") for v in venvs} | set(link_chain(sys.executable)) | mapped_files()
    paths |= {os.path.realpath(p) for p in paths}  # a folder given through a symlink: its target too
    return sorted(os.path.normpath(p) for p in paths if os.path.exists(p))


def link_chain(path: str) -> list[str]:
    """``path``, then each path its symlinks lead to, up to the real file (venv/bin/python -> python3 -> ...)."""
    chain = [path]
    while os.path.islink(path) and len(chain) < 40:
        path = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))
        chain.append(path)
    return chain


def mapped_files() -> set[str]:
    """The files this interpreter has mapped: its binary, libpython and the other shared libraries."""
    with open("/proc/self/maps") as f:
        fields = (line.split(None, 5) for line in f)
        return {parts[5].rstrip("\n") for parts in fields if len(parts) == 6 and parts[5].startswith("/")}


def _under(path: str, folders: list[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def build_root(config: dict[str, Any]) -> str:
    """Assemble the sandbox's file system on a tmpfs and pivot_root into it.

    Only system folders and the Python installation are visible (read-only),
    so the parent's working directory, home and .env files are not there.
    Returns the program's working directory (inside).
    """
    root: str = config["workdir"]  # an empty host folder: the mount point of the new root
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing we mount propagates to the host
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    scratch_opts = f"size={config['disk_mb']}m,nr_inodes={config['disk_mb'] * INODES_PER_MB},mode=1777"
    os.mkdir(root + "/tmp")
    mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, scratch_opts)
    shown: list[str] = []
    needed = python_paths()
    for path in sorted(set(SYSTEM_PATHS) | set(needed)):
        if os.path.lexists(path) and not _under(path, shown):
            show_readonly(path, root)
            shown.append(path)
    for path in config["hide"]:
        if should_hide(path, needed):
            mount("tmpfs", root + path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k")
    make_dev(root)
    os.mkdir(root + "/proc")  # mounted while the old /proc is visible: the kernel requires it
    mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    inside = "/tmp/" + os.path.basename(root)
    os.mkdir(root + inside, 0o700)
    if os.getuid() == 0:
        os.chown(root + inside, NOBODY, NOBODY)
    os.chdir(root)
    _check("pivot_root", libc.pivot_root(b".", b"."))
    _check("unmount the old root", libc.umount2(b".", MNT_DETACH))
    os.chdir("/")
    mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    return inside


def should_hide(path: str, needed: list[str]) -> bool:
    """Whether to cover the parent's cwd (or home) with an empty tmpfs: when a system folder shows it.

    /usr/share/app and /usr/lib/app could be project folders (with a .env);
    such a folder (three levels deep or more, inside a system folder) is hidden
    unless the interpreter's own files are inside it.  Shallower ones (/usr/lib)
    hold what programs need and stay.  Folders elsewhere are not shown at all.
    """
    deep = path.rstrip("/").count("/") >= 3 and any(
        _under(path, [top]) for top in SYSTEM_PATHS if not os.path.islink(top)
    )
    return deep and os.path.isdir(path) and not any(_under(p, [path]) for p in needed)


def show_readonly(path: str, root: str) -> None:
    """Make ``path`` appear at the same place in the new root, read-only (a symlink stays a symlink)."""
    target = root + path
    if os.path.islink(path):  # /bin -> usr/bin on merged-/usr systems; venv/bin/python -> python3
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.symlink(os.readlink(path), target)
        return
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "w").close()
    mount(path, target, None, MS_BIND | MS_REC)
    for mount_point in _mounts_under(target):  # MS_RDONLY is per mount: submounts too
        _remount_readonly(mount_point)


def _mounts_under(target: str) -> list[str]:
    points = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            point = line.split()[4]
            for escaped, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
                point = point.replace(escaped, char)  # how mountinfo writes these characters
            if _under(point, [target]):
                points.append(point)
    return points


def _remount_readonly(point: str) -> None:
    """Remount read-only, keeping the flags a user namespace may not clear."""
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY
    kept = os.statvfs(point).f_flag
    for st_flag, ms_flag in ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC)):
        if kept & st_flag:
            flags |= ms_flag
    mount(None, point, None, flags)


def make_dev(root: str) -> None:
    """A minimal /dev: a few harmless devices bound from the host, plus the usual links."""
    os.mkdir(root + "/dev")
    for name in DEVICES:
        if os.path.exists("/dev/" + name):
            open(f"{root}/dev/{name}", "w").close()
            mount("/dev/" + name, f"{root}/dev/{name}", None, MS_BIND)
    for name, target in DEV_LINKS.items():
        os.symlink(target, f"{root}/dev/{name}")


# --------------------------------------------------------------------------- program


def set_limits(config: dict[str, Any]) -> None:
    """The rlimits; the program and everything it starts inherit them."""
    mib, seconds = 1 << 20, config["cpu_seconds"]
    limits = {
        resource.RLIMIT_AS: (config["memory_mb"] * mib,) * 2,
        resource.RLIMIT_FSIZE: (config["file_mb"] * mib,) * 2,
        resource.RLIMIT_NPROC: (config["max_processes"],) * 2,  # counted per user in this user namespace
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_NOFILE: (OPEN_FILES, OPEN_FILES),
        resource.RLIMIT_MSGQUEUE: (0, 0),  # no POSIX message queues
        resource.RLIMIT_CPU: (seconds, seconds + 1),  # SIGXCPU at the soft limit, SIGKILL a second later
    }
    for kind, (soft, hard) in limits.items():
        current = resource.getrlimit(kind)[1]  # never above what vero itself was given
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
        resource.setrlimit(kind, (soft, hard))


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def syscall_filter(machine: str) -> list[tuple[int, int, int, int]] | None:
    """The seccomp BPF program refusing ``SYSCALLS`` (EPERM), or None on another architecture.

    Instructions are (code, jump if true, jump if false, k); a jump skips that many.
    Another ABI (32-bit calls on a 64-bit kernel, x32) is refused whole: nothing
    the program needs uses one, and its syscall numbers differ.
    """
    if machine not in SYSCALLS:
        return None
    arch, refused, sockets = SYSCALLS[machine]
    load, jeq, jset, alu_and, ret = 0x20, 0x15, 0x45, 0x54, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JSET|K, ALU|AND|K
    deny, allow = (ret, 0, 0, 0x00050000 | 1), (ret, 0, 0, 0x7FFF0000)  # SECCOMP_RET_ERRNO | EPERM, RET_ALLOW
    program = [(load, 0, 0, 4), (jeq, 1, 0, arch), deny, (load, 0, 0, 0)]  # seccomp_data: nr at 0, arch at 4
    if machine == "x86_64":
        program += [(jset, 0, 1, 0x40000000), deny]  # the x32 ABI's syscall bit
    for number in refused:
        program += [(jeq, 0, 1, number), deny]
    socket, socketpair = sockets
    return program + [
        (jeq, 1, 0, socket),
        (jeq, 0, 6, socketpair),  # neither: allow
        (load, 0, 0, 16),
        (jeq, 0, 4, AF_UNIX),  # args[0], the family (low half): not AF_UNIX: allow
        (load, 0, 0, 24),
        (alu_and, 0, 0, SOCK_TYPE_MASK),
        (jeq, 0, 1, SOCK_DGRAM),  # args[1], the type
        deny,
        allow,
    ]


def install_syscall_filter() -> None:
    """Install ``syscall_filter`` for this process and everything it starts (after PR_SET_NO_NEW_PRIVS).

    Elsewhere memfd files stay bounded per file by RLIMIT_FSIZE and in number by RLIMIT_NOFILE,
    and a unix socket in a shown folder stays reachable (see docs/reliability.md).
    """
    program = syscall_filter(os.uname().machine)
    if program is None:
        return
    filters = (_SockFilter * len(program))(*(_SockFilter(*instruction) for instruction in program))
    fprog = _SockFprog(len(program), filters)
    prctl(PR_SET_SECCOMP, 2, ctypes.addressof(fprog))  # SECCOMP_MODE_FILTER


def run_program(config: dict[str, Any], workdir: str) -> None:
    """The model's code: limits, no privileges, a fresh interpreter reading stdin."""
    try:
        os.chdir(workdir)
        set_limits(config)
        if os.getuid() == 0:  # vero runs as root: become nobody (this also drops all capabilities)
            os.setgroups([])
            os.setresgid(NOBODY, NOBODY, NOBODY)
            os.setresuid(NOBODY, NOBODY, NOBODY)
        prctl(PR_SET_NO_NEW_PRIVS, 1)  # setuid binaries cannot give privileges back
        install_syscall_filter()
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # as a fresh process would have them
            signal.signal(sig, signal.SIG_DFL)
        os.execv(sys.executable, [sys.executable, "-I", "-X", "utf8", "-"])
    except SetupError as exc:
        _fail(exc)
    except (OSError, ValueError) as exc:
        _fail(SetupError(f"starting {sys.executable}: {exc}"))


if __name__ == "__main__":
    main()
