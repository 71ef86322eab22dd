"""Signals at random moments of ``procure analyze --workers 2``: does every try end promptly, and leave
no process and no file behind?

Each try runs the command in a child process with a private, empty ``TMPDIR``, sends SIGINT, SIGTERM or
SIGHUP (to the process, or to its process group) after a random delay, and then waits up to 10 s for it
to exit. A try fails when it does not exit in time (it is then SIGKILLed), when it exits with anything
but 128 + the signal (or 0: it had finished), when a process that inherited its ``TMPDIR`` is still alive
afterwards (a worker, a solver), or when anything is left in its ``TMPDIR``.

    python -m bench.signals                          # 20 tries on examples/programme-12-months.yaml
    python -m bench.signals --tries 5 --delay 2 12   # delays drawn from 2–12 s
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def survivors(tmpdir: str) -> list[int]:
    """Processes (of this user) whose environment has ``TMPDIR=tmpdir``: what a try left running."""
    marker = f"TMPDIR={tmpdir}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            env = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if marker in env.split(b"\0"):
            found.append(int(entry))
    return found


def one_try(args: list[str], delay: float, sig: int, to_group: bool, wait: float) -> dict:
    tmpdir = tempfile.mkdtemp(prefix="sigbench-")
    env = dict(os.environ, TMPDIR=tmpdir, TMP=tmpdir)
    proc = subprocess.Popen(
        [sys.executable, "-m", "procure", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    time.sleep(delay)
    sent = time.monotonic()
    try:
        if to_group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
    except ProcessLookupError:
        pass
    hung = False
    try:
        proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        hung = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    took = time.monotonic() - sent
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    time.sleep(0.5)  # a solver killed by PR_SET_PDEATHSIG needs a moment to go
    alive = survivors(tmpdir)
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    left = sorted(os.listdir(tmpdir))
    shutil.rmtree(tmpdir, ignore_errors=True)
    ok_codes = {0, 128 + sig}
    ok = not hung and proc.returncode in ok_codes and not alive and not left and "Traceback" not in err
    return {
        "ok": ok,
        "signal": signal.Signals(sig).name,
        "group": to_group,
        "delay": delay,
        "exit": proc.returncode,
        "seconds": took,
        "hung": hung,
        "alive": len(alive),
        "left": left[:5],
        "traceback": "Traceback" in err,
        "stderr": err,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tries", type=int, default=20)
    ap.add_argument("--delay", type=float, nargs=2, default=(3.0, 16.0), metavar=("LOW", "HIGH"))
    ap.add_argument("--wait", type=float, default=10.0, help="seconds a try may take to exit after the signal")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--workload", default="examples/programme-12-months.yaml")
    ap.add_argument("--monte-carlo", type=int, default=30)
    ap.add_argument("--verbose", action="store_true", help="print the end of a failed try's stderr")
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    args = ["analyze", a.workload, "--monte-carlo", str(a.monte_carlo), "--workers", "2"]
    failed = 0
    worst = 0.0
    for i in range(a.tries):
        r = one_try(args, rng.uniform(*a.delay), rng.choice(SIGNALS), rng.random() < 0.5, a.wait)
        worst = max(worst, r["seconds"])
        failed += not r["ok"]
        print(
            f"{i + 1:3d} {'ok  ' if r['ok'] else 'FAIL'} {r['signal']:7s} {'group' if r['group'] else 'pid  '} "
            f"after {r['delay']:5.1f} s: exit {r['exit']} in {r['seconds']:.1f} s"
            f"{', hung' if r['hung'] else ''}{', traceback' if r['traceback'] else ''}"
            f", {r['alive']} process(es) and {len(r['left'])} file(s) left {' '.join(r['left'])}",
            flush=True,
        )
        if not r["ok"] and a.verbose:
            print("    " + "\n    ".join(r["stderr"].strip().splitlines()[-12:]))
    print(f"{a.tries - failed} of {a.tries} tries clean; slowest exit after the signal {worst:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
