"""Atomic file output: write to a temporary file in the same folder, then rename over the target.

A failure part-way never leaves a half-written file, and an existing file is replaced only by a
complete new one (``os.replace`` is atomic on POSIX and Windows within one file system).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import InputError, Problem


def check_writable(path: str | Path, what: str = "output") -> Path:
    """Fail early — before any solving — when ``path`` cannot be written."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.exists():
        raise InputError([Problem(str(path), what, f"folder {str(folder)!r} does not exist")])
    if not folder.is_dir():
        raise InputError([Problem(str(path), what, f"{str(folder)!r} is not a folder")])
    if path.is_dir():
        raise InputError([Problem(str(path), what, "is a folder; give a file name")])
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError([Problem(str(path), what, "no permission to write here")])
    return path


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write(path: str | Path, data: bytes, what: str = "output") -> None:
    """Write ``data`` to ``path`` completely or not at all. An OS failure (disk full, permission lost)
    becomes an InputError that says the previous file, if any, is unchanged."""
    path = Path(path)
    check_writable(path, what)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            # mkstemp makes the file private (0600); give it the mode a plain new file would get, or
            # keep the mode of the file it replaces
            os.fchmod(fh.fileno(), _mode_for(path))
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        if isinstance(exc, OSError):
            why = exc.strerror or str(exc)
            raise InputError([Problem(str(path), what, f"could not write the file ({why}); any previous file there is unchanged")]) from None
        raise
