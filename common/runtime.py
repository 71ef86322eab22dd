"""The one runtime of a command: the wall-clock budget, the solver's child processes, temporary folders,
and the signals that end a run early. Solve, analyze and the output transaction (``fileio.outputs``) all
use it, so there is one handler and one ``Interrupted``, never two guards fighting over a signal.

Budget. ``--time-limit S`` bounds the whole command: ``Budget(S)`` starts the clock, every stage asks
``remaining()`` and ``share(f)`` of what is left, and the solver is stopped at its share's end
(``solver/milp/cbc.py``). ``Budget(None)`` never runs out.

Children. A solver runs as a child in a process group of its own (``spawn``), so stopping it stops
everything it started; on Linux the kernel also kills it when procure itself dies (even by kill -9,
``PR_SET_PDEATHSIG``). Other children (an analysis' worker pool) register how to stop them (``on_stop``).

Signals. Inside ``guarded_run()`` SIGINT, SIGTERM and SIGHUP kill the solver's process group, remove
the run's temp directory (where the solver's MPS/MST/solution/log files live) and raise ``Interrupted``,
which unwinds through every ``finally`` (an output transaction rolls back: the previous files stay) to
the CLI, which prints one line and exits 128 + the signal number (130 for SIGINT, 143 for SIGTERM, 129
for SIGHUP). ``signals_guarded()`` is that handler on its own; nested inside another guard it changes
nothing, so the outermost one decides. A library caller outside any guarded run (``atomic_write``,
``scratch_dir``: ``procure.solve()`` in a notebook) gets ``on_interrupt``: the cleanup runs, the caller's
handlers are put back and the signal is handed to them (``deliver``): Ctrl-C raises ``KeyboardInterrupt``,
and only a signal left at its default action ends the process (after one line), as it would have without
procure. A signal ignored when a guard starts (``nohup``'s SIGHUP) gets no handler and stays ignored.

Temporary folders. ``guarded_run()`` gives the run its own temp directory (``tempfile.tempdir``);
``scratch_dir()`` gives a library call a private folder for files a library writes (``$TMPDIR``). Both are
named ``procure-<pid>-…``; a run first sweeps the folders of runs whose process is gone (killed by SIGKILL,
which no handler sees), as ``fileio.outputs`` sweeps its temporaries.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _ignored_now() -> frozenset[int]:
    """The handled signals whose disposition is SIG_IGN now."""
    out = set()
    for sig in HANDLED:
        with contextlib.suppress(OSError, ValueError):
            if signal.getsignal(sig) == signal.SIG_IGN:
                out.add(sig)
    return frozenset(out)


#: the signals this process was started with ignored: ``nohup`` ignores SIGHUP, a shell ignores SIGINT for a
#: background job. An inherited ignore is kept (as Python itself keeps an ignored SIGINT): no handler of ours
#: replaces it, and a solver child keeps ignoring it too
IGNORED_AT_START = _ignored_now()


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
    for sig in HANDLED:  # a solver started by a worker (which ignores them) must still stop on SIGINT
        signal.signal(sig, signal.SIG_IGN if sig in IGNORED_AT_START else signal.SIG_DFL)  # nohup stays nohup
    _die_with_parent_process()


def _die_with_parent_process() -> None:
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1
        except OSError:
            pass


@contextlib.contextmanager
def signals_blocked() -> Iterator[None]:
    """SIGINT/SIGTERM/SIGHUP blocked in this thread meanwhile (held pending, not lost): a process started
    here inherits the mask, so a signal sent to the whole process group during its start-up waits until
    it has chosen what to do with them (``become_worker``)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def become_worker(folder: str | None) -> None:
    """In a worker process of an analysis: SIGINT/SIGTERM/SIGHUP are ignored (the parent acts on them and
    SIGKILLs its workers; a signal to the process group must not end a worker first, with a traceback),
    the worker dies with its parent, and its temp files (the solver's) go to ``folder``, the parent's."""
    global _temp_dir
    for sig in HANDLED:
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HANDLED)
    _die_with_parent_process()
    if folder:
        os.environ["TMPDIR"] = os.environ["TMP"] = folder
        tempfile.tempdir = folder
        _temp_dir = folder


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


_stoppers: list[Callable[[], None]] = []


def on_stop(stop: Callable[[], None]) -> None:
    """Also call ``stop`` when the run is stopped (e.g. an analysis' worker pool, whose processes are
    not ``spawn``'s); ``forget`` it when it is done."""
    _stoppers.append(stop)


def forget(stop: Callable[[], None]) -> None:
    with contextlib.suppress(ValueError):
        _stoppers.remove(stop)


def kill_children() -> None:
    """SIGKILL every registered child's process group and reap it; call every registered stopper."""
    for stop in list(_stoppers):
        with contextlib.suppress(Exception):
            stop()
        forget(stop)
    for proc in list(_children):
        signal_group(proc, signal.SIGKILL)
        with contextlib.suppress(Exception):
            proc.wait(timeout=5)
        _children.discard(proc)


#: the signal a guarded run caught, kept beside the exception: an exception raised by a signal handler is lost
#: when the signal lands in a callback whose errors Python only prints ("Exception ignored in: <function
#: _releaseLock …>" from logging's at-fork hook, seen when a solver child is forked), and the run went on to exit 0
_caught: int | None = None


def _on_signal(signum, _frame) -> None:
    global _caught
    for sig in HANDLED:  # a second signal during the cleanup must not interrupt it
        signal.signal(sig, signal.SIG_IGN)
    _caught = signum
    kill_children()
    raise Interrupted(signum)


def check_interrupted() -> None:
    """Raise ``Interrupted`` now if a guarded run caught a signal whose exception was lost (see ``_caught``)."""
    if _caught is not None:
        raise Interrupted(_caught)


_guarded = False  # a signals_guarded() block is active: an inner one leaves the handlers alone


@contextlib.contextmanager
def signals_guarded(on_interrupt: str | None = None) -> Iterator[bool]:
    """SIGINT/SIGTERM/SIGHUP stop the children and raise ``Interrupted`` inside the block (main thread
    only; nested in another guard, or off the main thread, it does nothing). A signal that is ignored when
    the block starts (``nohup``: SIGHUP) stays ignored: no handler replaces an ignore.

    With ``on_interrupt`` (a library caller, who has no exit code of ours to get) an ``Interrupted`` that
    leaves the block goes, once the block has cleaned up and the caller's handlers are back, to the handler
    the caller had (``deliver``): Python's SIGINT handler raises ``KeyboardInterrupt`` (a notebook keeps its
    kernel), a handler of the caller's runs, and the default action prints ``interrupted by signal N;
    <on_interrupt>`` and ends the process by that signal, as it would have without procure. Yields whether
    this block installed the handlers (False when nested, or off the main thread)."""
    global _guarded, _caught
    if _guarded or threading.current_thread() is not threading.main_thread():
        check_interrupted()  # the outer guard caught a signal whose exception was lost: go no further (no output)
        yield False
        return
    _caught = None
    saved = {}
    for sig in HANDLED:
        with contextlib.suppress(OSError, ValueError):
            # an ignore (nohup's, a caller's) is kept; a handler not installed from Python (None) could not be put back
            if signal.getsignal(sig) not in (signal.SIG_IGN, None):
                saved[sig] = signal.signal(sig, _on_signal)
    _guarded = True
    stopped: Interrupted | None = None
    try:
        yield True
        check_interrupted()  # a signal whose exception was lost still ends the block as interrupted
    except Interrupted as stop:
        if on_interrupt is None:
            raise
        stopped = stop
    finally:
        _guarded = False
        _restore(saved)
    if stopped is not None and on_interrupt is not None:  # outside the except block: no chained Interrupted
        _caught = None  # handed on: a later guard of this process starts afresh
        deliver(stopped, on_interrupt)
        raise stopped  # the caller's handler returned: the block was still stopped


def deliver(stop: Interrupted, note: str) -> None:
    """The signal that stopped a guarded block, given to the handler in place now (the caller's, restored):
    Python's default SIGINT handler raises ``KeyboardInterrupt`` here, a caller's handler runs (and returns
    or raises), and the default action prints ``interrupted by signal N; <note>`` and ends the process by the
    signal. An ignored signal is not delivered."""
    handler = signal.getsignal(stop.signum)
    if handler == signal.SIG_IGN:
        return
    if handler in (signal.SIG_DFL, None):
        sys.stderr.write(f"interrupted by signal {stop.signum}; {note}\n")
        sys.stderr.flush()
        signal.signal(stop.signum, signal.SIG_DFL)
        os.kill(os.getpid(), stop.signum)  # ends the process, as the signal would have without procure
        return
    signal.raise_signal(stop.signum)  # the Python handler runs before this returns


def _restore(saved: dict) -> None:
    for sig, old in saved.items():
        signal.signal(sig, old)


_RUN_FOLDER = re.compile(r"^procure-(\d+)-[A-Za-z0-9_]+$")


def owner_gone(pid: int) -> bool:
    """Whether the process that named a temporary after ``pid`` is gone: not this one, and no process has that
    id (one we may not signal, or an id out of range, counts as alive: its files are left alone)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False


def sweep_stale_folders(parent: str | None = None) -> None:
    """Remove the temp folders of earlier runs killed outright (SIGKILL leaves no time to clean up): a run
    names its folder ``procure-<pid>-…``, and a folder whose process is gone is swept, as the output
    temporaries are (``fileio.outputs``). A folder of a live process, or not named so, is left alone."""
    where = parent or tempfile.gettempdir()
    try:
        names = os.listdir(where)
    except OSError:
        return
    for name in names:
        m = _RUN_FOLDER.match(name)
        if not m or not owner_gone(int(m.group(1))):
            continue
        folder = os.path.join(where, name)
        with contextlib.suppress(OSError):
            if os.path.isdir(folder) and not os.path.islink(folder):
                shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def guarded_run(handle_signals: bool = True) -> Iterator[str]:
    """A run with its own temp directory (yielded), removed at the end however the run ends; with
    ``handle_signals`` SIGINT/SIGTERM/SIGHUP stop it cleanly (see the module doc)."""
    global _temp_dir
    previous_dir, previous_tempdir = _temp_dir, tempfile.tempdir
    sweep_stale_folders()
    path = tempfile.mkdtemp(prefix=f"procure-{os.getpid()}-")
    _temp_dir = path
    tempfile.tempdir = path  # mkstemp/mkdtemp of this process (solver logs) land here too
    with signals_guarded() if handle_signals else contextlib.nullcontext(False) as own:
        try:
            yield path
        finally:
            if own:  # no signal may interrupt the cleanup itself (a nested run leaves them to the outer one)
                for sig in HANDLED:
                    signal.signal(sig, signal.SIG_IGN)
            try:
                kill_children()
                shutil.rmtree(path, ignore_errors=True)
            finally:
                _temp_dir, tempfile.tempdir = previous_dir, previous_tempdir


@contextlib.contextmanager
def scratch_dir() -> Iterator[Path]:
    """A private temporary folder for files a library writes (PuLP's model and solution files go to
    ``$TMPDIR``, which points here meanwhile). It is removed on every exit path, SIGTERM/SIGINT/SIGHUP
    included (inside a guarded run the run's handler stops the solver's process group too); a full disk
    is an InputError naming the folder."""
    from procure.common.errors import InputError, Problem

    saved = {k: os.environ.get(k) for k in ("TMPDIR", "TMP")}
    try:
        with (
            signals_guarded(on_interrupt="no output was written"),
            tempfile.TemporaryDirectory(prefix=f"procure-{os.getpid()}-") as folder,
        ):
            os.environ["TMPDIR"] = os.environ["TMP"] = folder
            try:
                yield Path(folder)
            finally:
                for k, v in saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
    except OSError as exc:
        where = exc.filename or tempfile.gettempdir()
        raise InputError(
            [
                Problem(
                    str(where),
                    "",
                    f"could not write a temporary file for the solver ({exc.strerror or exc}); "
                    "free some disk space there or set TMPDIR",
                )
            ]
        ) from None
