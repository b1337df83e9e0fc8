"""Opening the files a user names (``/save``, ``/load``, ``--trace``) without surprises.

A name can point at something that is not a file: a FIFO (opening it waits for a writer, forever), a device
(``/dev/zero`` never ends; replacing ``/dev/null`` breaks the system), a socket or a folder.  These helpers
accept only a regular file, or a name that does not exist yet, and check what was really opened (``fstat``),
so a name swapped between the check and the open is caught too.  Every error is an ``OSError`` that names the
user's path.
"""

from __future__ import annotations

import errno
import os
import stat

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def not_regular(path: str, mode: int) -> OSError:
    """The error for ``path`` being something other than a regular file."""
    what = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return OSError(errno.EINVAL, f"not a regular file but {what}", path)


def check_regular_or_missing(path: str) -> os.stat_result | None:
    """``path``'s stat if it is a regular file, None if nothing is there; else raise (never opens it)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise not_regular(path, info.st_mode)
    return info


def open_regular(path: str, flags: int, mode: int = 0o666) -> int:
    """``os.open`` for a regular file only: a FIFO or device is refused, never waited on or read
    (O_NONBLOCK makes opening a FIFO return at once; ``fstat`` then sees what was opened)."""
    check_regular_or_missing(path)
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise not_regular(path, info.st_mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str, limit: int) -> bytes:
    """The bytes of the regular file ``path``; more than ``limit`` bytes is an error, not a long read."""
    with os.fdopen(open_regular(path, os.O_RDONLY), "rb") as file:
        data = file.read(limit + 1)  # a file that grows while read is cut here too
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit // (1 << 20)} MiB", path)
    return data


def with_path(exc: OSError, path: str) -> OSError:
    """The same error, naming ``path`` (the user's name) instead of a temporary file's."""
    return type(exc)(exc.errno, exc.strerror or str(exc), path)


def at_home(path: str) -> str:
    """``path`` as a shell reads it: ``~`` or ``~/...`` in the home folder (a path typed at the chat's prompt, or as
    ``--load=~/...``, which no shell expands); any other path as given (``~user`` too)."""
    return os.path.expanduser(path) if path == "~" or path.startswith("~/") else path
