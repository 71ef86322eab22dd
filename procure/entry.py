"""The ``procure`` command's entry point: SIGINT, SIGTERM and SIGHUP are honoured from its first line.

A signal the process was started with ignored (``nohup`` ignores SIGHUP; a shell ignores SIGINT for a background
job) stays ignored throughout: no handler of procure's replaces an inherited ignore.

Before the command line is even imported (typer, rich, pydantic take about a second) and whenever no run's
guard is active, a signal ends the process at once with its one line (``_early``); a run's own guard
(``guarded_run``) takes over while it solves, stops the solver, removes its files, and gives this handler
back afterwards. Whatever the moment, the command prints one line and exits 128 + the
signal number (130 SIGINT, 143 SIGTERM, 129 SIGHUP), never a traceback from an import, never exit 0.
"""

from __future__ import annotations

import contextlib
import signal
import sys


def _early(signum, _frame) -> None:
    """Outside a run's guard nothing is half-done: no solver child, no temp folder, no output being written
    (an output transaction guards itself). Say so in one line and end with 128 + the signal at once, which
    no import, callback or library can swallow (an exception raised from a handler can be)."""
    import os

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    name = signal.Signals(signum).name
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    os.write(2, f"interrupted ({name}): nothing was solved or written\n".encode())
    os._exit(128 + signum)


def main() -> None:
    """Install the early handler, then run the command line (``procure.cli.main``)."""
    from procure.common.runtime import HANDLED, Interrupted

    for sig in HANDLED:
        if signal.getsignal(sig) != signal.SIG_IGN:  # an inherited ignore (nohup: SIGHUP) is kept
            signal.signal(sig, _early)
    try:
        from procure.cli import main as cli_main

        cli_main()
    except Interrupted as stop:
        for sig in HANDLED:
            signal.signal(sig, signal.SIG_IGN)
        sys.stderr.write(f"interrupted ({stop.name}): nothing was solved or written\n")
        sys.stderr.flush()
        sys.exit(stop.exit_code)
