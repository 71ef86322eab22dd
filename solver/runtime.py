"""Run-time guards of one planning run: the wall-clock budget, the solver's child processes, the run's
temp directory, and the signals that end a run early.

Budget. ``--time-limit S`` bounds the whole command: ``Budget(S)`` starts the clock, every stage asks
``remaining()`` and ``share(f)`` of what is left, and the solver is stopped at its share's end
(``solver/milp/cbc.py``). ``Budget(None)`` never runs out.

Children. A solver runs as a child in a process group of its own (``spawn``), so stopping it stops
everything it started; on Linux the kernel also kills it when procure itself dies (even by kill -9,
``PR_SET_PDEATHSIG``).

Signals. Inside ``guarded_run()`` SIGINT, SIGTERM and SIGHUP kill the solver's process group, remove
the run's temp directory (where the solver's MPS/MST/solution/log files live) and raise ``Interrupted``,
which unwinds through every ``finally`` (an output half-written by ``fileio.atomic_write`` is removed,
the previous file stays) to the CLI, which prints one line and exits 128 + the signal number (130 for
SIGINT, 143 for SIGTERM, 129 for SIGHUP).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Budget:
    """A wall-clock budget in seconds from its creation, or from ``started`` (a ``time.monotonic()``
    reading, e.g. :func:`process_started`); ``None`` seconds: unlimited."""

    def __init__(self, seconds: float | None, started: float | None = None):
        self.seconds = seconds if seconds else None  # 0 means unlimited, as --time-limit 0 does
        self.started = time.monotonic() if started is None else started

    @property
    def limited(self) -> bool:
        return self.seconds is not None

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def remaining(self) -> float | None:
        return None if self.seconds is None else max(0.0, self.seconds - self.elapsed())

    def deadline(self) -> float | None:
        """The monotonic clock reading at which the budget ends."""
        return None if self.seconds is None else self.started + self.seconds

    def share(self, fraction: float, reserve: float = 0.0) -> Budget:
        """A budget of ``fraction`` of what is left after keeping ``reserve`` seconds back."""
        left = self.remaining()
        return Budget(None) if left is None else Budget(max(0.0, (left - reserve) * fraction) or 1e-9)


#: a process older than this when it asks is not a command that has just started (a library caller)
_STARTUP_MAX_SECONDS = 60.0


def process_started() -> float:
    """The ``time.monotonic()`` reading at which this process started, so that ``--time-limit`` also
    counts the interpreter's start-up and the imports before the first line of procure runs (about a
    second). Linux: the start time in ``/proc/self/stat`` (clock ticks since boot) against
    ``CLOCK_BOOTTIME``; elsewhere, or when that reads implausibly, now."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        start_s = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime; fields[0] is field 3
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - start_s
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0.0 <= age <= _STARTUP_MAX_SECONDS else now


class Interrupted(BaseException):
    """The run was stopped by a signal (a BaseException, like KeyboardInterrupt, so no ``except
    Exception`` swallows it)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


_children: set[subprocess.Popen] = set()
_temp_dir: str | None = None


def temp_dir() -> str | None:
    """The run's own temp directory (inside ``guarded_run``), else None (the system's)."""
    return _temp_dir


def _die_with_parent() -> None:
    """In the child before exec: a new session (own process group), and SIGKILL when the parent dies."""
    os.setsid()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1
        except OSError:
            pass


def spawn(args: list[str], **kw) -> subprocess.Popen:
    """Start a solver child in its own process group, registered so that a signal can stop it."""
    proc = subprocess.Popen(args, preexec_fn=_die_with_parent, **kw)  # noqa: PLW1509 (no threads spawn children)
    _children.add(proc)
    return proc


def release(proc: subprocess.Popen) -> None:
    _children.discard(proc)


def signal_group(proc: subprocess.Popen, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def kill_children() -> None:
    """SIGKILL every registered child's process group and reap it."""
    for proc in list(_children):
        signal_group(proc, signal.SIGKILL)
        with contextlib.suppress(Exception):
            proc.wait(timeout=5)
        _children.discard(proc)


def _on_signal(signum, _frame) -> None:
    for sig in HANDLED:  # a second signal during the cleanup must not interrupt it
        signal.signal(sig, signal.SIG_IGN)
    kill_children()
    raise Interrupted(signum)


@contextlib.contextmanager
def guarded_run(handle_signals: bool = True) -> Iterator[str]:
    """A run with its own temp directory (yielded), removed at the end however the run ends; with
    ``handle_signals`` (main thread only) SIGINT/SIGTERM/SIGHUP stop it cleanly (see the module doc)."""
    global _temp_dir
    previous_dir, previous_tempdir = _temp_dir, tempfile.tempdir
    path = tempfile.mkdtemp(prefix="procure-")
    _temp_dir = path
    tempfile.tempdir = path  # mkstemp/mkdtemp of this process (solver logs) land here too
    saved = {}
    if handle_signals:
        for sig in HANDLED:
            saved[sig] = signal.signal(sig, _on_signal)
    try:
        yield path
    finally:
        for sig in HANDLED:  # no signal may interrupt the cleanup itself
            if handle_signals:
                signal.signal(sig, signal.SIG_IGN)
        try:
            kill_children()
            shutil.rmtree(path, ignore_errors=True)
        finally:
            _temp_dir, tempfile.tempdir = previous_dir, previous_tempdir
            for sig, old in saved.items():
                signal.signal(sig, old)
