"""Clean interrupts: SIGINT / SIGTERM / SIGHUP during a real solve stop the CBC child (its whole process
group), remove every temp file, leave an existing output untouched, print one line and exit 128 + signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.daily import write_yaml

#: signals mid-solve, timed against a child: one at a time, on one worker
pytestmark = pytest.mark.xdist_group("clock")


def _children(pid: int) -> list[tuple[int, str]]:
    """(pid, command name) of the live processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append((int(entry.name), name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split()[0] != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find the solver child")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signal_mid_solve_stops_the_solver_and_leaves_no_temp_file(tmp_path, sig):
    work = tmp_path / "work"
    tmp = tmp_path / "tmp"
    work.mkdir()
    tmp.mkdir()
    write_yaml(work / "programme.yaml", period_days=1)  # the daily programme: CBC runs for minutes
    old = work / "plan.json"
    old.write_text("the previous plan\n")
    env = dict(os.environ, TMPDIR=str(tmp), TMP=str(tmp), TEMP=str(tmp))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "procure",
            "solve",
            "programme.yaml",
            "--no-compare",
            "--time-limit",
            "none",
            "--json",
            "plan.json",
        ],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        cbc = None
        end = time.monotonic() + 240
        while cbc is None and time.monotonic() < end and proc.poll() is None:
            kids = [pid for pid, name in _children(proc.pid) if name.startswith("cbc")]
            cbc = kids[0] if kids else None
            time.sleep(0.2)
        assert cbc is not None, "the solver child never started"
        time.sleep(1.0)  # mid-solve
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + sig
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1].startswith(
        f"interrupted ({signal.Signals(sig).name}): the solver was stopped and its temp files removed"
    )
    for _ in range(50):  # the kernel reaps the killed group at once; allow it a moment
        if not _alive(cbc):
            break
        time.sleep(0.1)
    assert not _alive(cbc), "the CBC child survived"
    assert list(tmp.iterdir()) == []  # the run's temp dir (MPS, MST, solution, log) is gone
    assert old.read_text() == "the previous plan\n"  # the existing output is untouched
    assert sorted(p.name for p in work.iterdir()) == ["plan.json", "programme.yaml"]  # nothing half-written


def test_a_run_nested_in_a_guard_leaves_the_outer_handler_in_place():
    """One handler: a guarded run inside another guard neither replaces the outer handler nor leaves
    the signals ignored when it ends; the outer guard restores what was there before it."""
    from procure.common import runtime

    before = signal.getsignal(signal.SIGTERM)
    with runtime.signals_guarded() as outer:
        assert outer
        handler = signal.getsignal(signal.SIGTERM)
        assert handler is not before
        with runtime.guarded_run() as tmp:
            assert signal.getsignal(signal.SIGTERM) is handler
        assert signal.getsignal(signal.SIGTERM) is handler  # not SIG_IGN
        assert not os.path.exists(tmp)
    assert signal.getsignal(signal.SIGTERM) == before


# --- a signal at any moment, and folders of killed runs ---------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals to a child process")
@pytest.mark.parametrize(
    ("sig", "after"),
    [
        (signal.SIGTERM, 0.2),
        (signal.SIGHUP, 0.2),
        (signal.SIGTERM, 0.4),
        (signal.SIGHUP, 0.8),
        (signal.SIGINT, 0.3),
        (signal.SIGINT, 1.0),
        (signal.SIGINT, 1.5),
    ],
)
def test_a_signal_in_the_first_seconds_gets_its_exit_code_and_one_line(tmp_path, sig, after):
    # from 0.2 s: the interpreter's own start (tens of ms, before any line of procure runs) keeps the
    # signal's default action, which still ends the process by that signal
    env = dict(os.environ, TMPDIR=str(tmp_path), TMP=str(tmp_path), TEMP=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "procure", "solve", str(ROOT / "examples" / "programme-12-months.yaml"), "--quiet"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(after)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig, (proc.returncode, err[-3000:])
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    assert "interrupted" in err and len([ln for ln in err.splitlines() if "interrupted" in ln]) == 1, err


def test_a_killed_runs_temp_folder_is_swept_by_the_next_run(tmp_path, monkeypatch):
    from procure.common import runtime

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"procure-{dead.pid}-abcd1234"
    stale.mkdir()
    (stale / "model.mps").write_text("x")
    alive = tmp_path / f"procure-{os.getppid()}-abcd1234"  # a running process's folder stays
    alive.mkdir()
    other = tmp_path / "procure-notapid"
    other.mkdir()
    monkeypatch.setattr(runtime.tempfile, "tempdir", str(tmp_path))
    with runtime.guarded_run(handle_signals=False) as mine:
        assert Path(mine).parent == tmp_path and Path(mine).name.startswith(f"procure-{os.getpid()}-")
    assert not stale.exists() and alive.exists() and other.exists()


def test_a_signal_whose_exception_was_lost_still_ends_the_run_as_interrupted():
    """An exception raised by a signal handler is lost when the signal lands in a callback whose errors Python only
    prints (logging's at-fork lock release, seen under a forked solver child). The guard keeps the signal and ends
    the block as interrupted anyway, and a nested guard (an output commit) goes no further."""
    from procure.common import runtime

    with pytest.raises(runtime.Interrupted) as got:
        with runtime.signals_guarded():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):  # the handler runs at the next bytecode boundary
                    time.sleep(0.001)
            except runtime.Interrupted:
                pass  # swallowed, as the at-fork callback does
            with pytest.raises(runtime.Interrupted):
                with runtime.signals_guarded():
                    raise AssertionError("a nested guard must not start after a lost signal")
    assert got.value.signum == signal.SIGTERM
    runtime._caught = None
