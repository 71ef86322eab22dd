"""Reading input files, safe against accidents and hostile paths.

Only regular files are read (:func:`read_input`) — a FIFO, a device (``/dev/zero``), a socket or a folder
is refused before it is opened; the file is opened non-blocking and checked again on the open
descriptor (it may have been swapped), and at most ``MAX_FILE_BYTES`` bytes are read, counted while
reading (a device or a growing file can report any size).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from procure.common.errors import InputError, Problem

from .limits import MAX_FILE_BYTES

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def file_kind(mode: int) -> str:
    """'a regular file', 'a folder', 'a character device', ... for an ``st_mode``."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def _size(n: int, decimals: int = 0) -> str:
    return f"{n / 2**20:.{decimals}f} MiB" if n >= 2**20 else f"{n:,} bytes"


def read_input(path: str | Path, what: str = "file", limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, or InputError saying why not. Never
    blocks (FIFOs are refused before opening, and the open is non-blocking) and never reads more than
    ``limit + 1`` bytes."""
    path = Path(path)
    name = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError([Problem(name, "", f"{what} not found")]) from None
    except OSError as exc:
        raise InputError([Problem(name, "", f"cannot read {what}: {exc.strerror}")]) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError([Problem(name, "", f"{what} is a folder, expected a file")])
    if not stat.S_ISREG(st.st_mode):
        raise InputError([Problem(name, "", f"{what} is {file_kind(st.st_mode)}, not a regular file; give a file")])
    if st.st_size > limit:
        if (
            _size(st.st_size, 1).split()[0] == f"{limit / 2**20:.1f}"
        ):  # "1.0 MiB; the limit is 1 MiB" says nothing: give bytes
            raise InputError(
                [Problem(name, "", f"{what} is {st.st_size:,} bytes; the limit is {_size(limit)} ({limit:,} bytes)")]
            )
        raise InputError([Problem(name, "", f"{what} is {_size(st.st_size, 1)}; the limit is {_size(limit)}")])
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError([Problem(name, "", f"cannot read {what}: {exc.strerror}")]) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped for something else after the first check
            raise InputError([Problem(name, "", f"{what} is {file_kind(st.st_mode)}, not a regular file; give a file")])
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except OSError as exc:
        raise InputError([Problem(name, "", f"cannot read {what}: {exc.strerror}")]) from None
    finally:
        os.close(fd)
    if got > limit:
        raise InputError(
            [
                Problem(
                    name,
                    "",
                    f"{what} is larger than the limit ({_size(limit)}); it grew while being read, or is not what its size says",
                )
            ]
        )
    return b"".join(chunks)
