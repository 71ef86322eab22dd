"""CBC as a child process with a hard deadline and a live view of its search.

PuLP's ``PULP_CBC_CMD`` waits for CBC however long it takes: CBC's ``-sec`` limit is checked between
branch-and-bound nodes, not during the root LP, so a large model overran it by minutes. This command
runs the same CBC binary with the same arguments, but

- in a process group of its own, registered with ``runtime`` (a signal stops it, see common/runtime.py);
- with its files in the run's temp directory;
- reading CBC's log while it runs: the best integer solution ("incumbent") and the best bound, for the
  progress line and for the gap when CBC must be stopped before it prints its summary;
- and at ``hard_deadline`` (a ``time.monotonic()`` reading) it sends the group SIGINT — CBC then
  stops its search, writes its best solution and exits — and SIGKILL ``KILL_GRACE`` seconds later if
  it has not. A CBC stopped that way without a solution leaves the problem "not solved".
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

import pulp
from pulp import constants

from procure.common import runtime

KILL_GRACE = 2.0  # seconds CBC gets to write its solution after SIGINT
POLL = 0.25  # seconds between looks at the child and its log

_NODES = re.compile(r"Cbc0010I After \d+ nodes, \d+ on tree, ([-0-9.eE+]+) best solution, best possible ([-0-9.eE+]+)")
_FOUND = re.compile(r"Integer solution of ([-0-9.eE+]+)|MIPStart provided solution with cost ([-0-9.eE+]+)")
_OBJ = re.compile(
    r"Continuous objective value is ([-0-9.eE+]+)|Clp0000I Optimal - objective value ([-0-9.eE+]+)|Objective value:\s+([-0-9.eE+]+)"
)


@dataclass
class Progress:
    """What CBC's log says so far (objective units; ``None`` until known)."""

    incumbent: float | None = None
    bound: float | None = None
    stopped_by_deadline: bool = False
    killed: bool = False


def read_progress(log: str, into: Progress) -> Progress:
    for m in _OBJ.finditer(log):  # the LP relaxation's optimum is the first bound
        val = next(g for g in m.groups() if g is not None)
        if into.bound is None:
            into.bound = float(val)
    for m in _FOUND.finditer(log):
        v = float(m.group(1) or m.group(2))
        into.incumbent = v if into.incumbent is None else min(into.incumbent, v)
    for m in _NODES.finditer(log):
        into.incumbent = float(m.group(1)) if float(m.group(1)) < 1e49 else into.incumbent
        into.bound = float(m.group(2))
    return into


class DeadlineCBC(pulp.PULP_CBC_CMD):
    """``PULP_CBC_CMD`` with a hard deadline, its own process group and progress callbacks."""

    def __init__(
        self, *, hard_deadline: float | None = None, on_progress: Callable[[Progress], None] | None = None, **kw
    ):
        super().__init__(**kw)
        self.hard_deadline = hard_deadline
        self.on_progress = on_progress
        self.progress = Progress()
        if runtime.temp_dir():
            self.tmpDir = runtime.temp_dir()

    def solve_CBC(self, lp, use_mps=True):  # noqa: N802 (PuLP's name)
        if not self.executable(self.path):
            raise pulp.PulpSolverError(f"Pulp: cannot execute {self.path} cwd: {os.getcwd()}")
        tmpLp, tmpMps, tmpSol, tmpMst = self.create_tmp_files(lp.name, "lp", "mps", "sol", "mst")
        try:
            return self._run(lp, tmpMps, tmpSol, tmpMst)
        finally:
            self.delete_tmp_files(tmpMps, tmpLp, tmpSol, tmpMst)

    def _args(self, tmpMps: str, tmpSol: str, tmpMst: str | None) -> list[str]:
        """The arguments PuLP's own CBC command passes (pulp/apis/coin_api.py, ``solve_CBC``)."""
        args = [self.path, tmpMps]
        if tmpMst:
            args += ["-mips", tmpMst]
        if self.timeLimit is not None:
            args += ["-sec", str(self.timeLimit)]
        for option in self.options + self.getOptions():
            args += ("-" + option).split()
        args += ["-solve" if self.mip else "-initialSolve", "-printingOptions", "all", "-solution", tmpSol]
        return args

    def _run(self, lp, tmpMps: str, tmpSol: str, tmpMstFile: str):
        vs, variablesNames, constraintsNames, _obj = lp.writeMPS(tmpMps, rename=1)
        tmpMst: str | None = None
        if self.optionsDict.get("warmStart", False):
            self.writesol(tmpMstFile, lp, vs, variablesNames, constraintsNames)
            tmpMst = tmpMstFile
        log_path = self.optionsDict.get("logPath") or (tmpSol + ".log")
        # CBC block-buffers its log into a file or pipe; a pseudo-terminal makes it write line by line,
        # so the progress line can follow the search
        master, slave = pty.openpty()
        try:
            with open(log_path, "wb") as log:
                proc = runtime.spawn(
                    self._args(tmpMps, tmpSol, tmpMst), stdout=slave, stderr=slave, stdin=subprocess.DEVNULL
                )
                os.close(slave)
                slave = -1
                try:
                    rc = self._wait(proc, master, log)
                finally:
                    runtime.release(proc)
        finally:
            os.close(master)
            if slave >= 0:
                os.close(slave)
        if not self.optionsDict.get("logPath"):
            os.unlink(log_path)
        if rc != 0 and not self.progress.stopped_by_deadline:
            raise pulp.PulpSolverError("Pulp: Error while trying to execute, use msg=True for more details" + self.path)
        if self.progress.killed or not os.path.exists(tmpSol) or os.path.getsize(tmpSol) == 0:
            lp.assignStatus(constants.LpStatusNotSolved, constants.LpSolutionNoSolutionFound)
            return constants.LpStatusNotSolved
        status, values, reducedCosts, shadowPrices, slacks, sol_status = self.readsol_MPS(
            tmpSol, lp, vs, variablesNames, constraintsNames
        )
        lp.assignVarsVals(values)
        lp.assignVarsDj(reducedCosts)
        lp.assignConsPi(shadowPrices)
        lp.assignConsSlack(slacks, activity=True)
        lp.assignStatus(status, sol_status)
        return status

    def _wait(self, proc: subprocess.Popen, master: int, log) -> int:
        sent_int_at = None
        pending = b""
        while True:
            ready, _, _ = select.select([master], [], [], POLL)
            if ready:
                try:
                    data = os.read(master, 1 << 16)
                except OSError:  # EIO: the child closed the terminal (it exited)
                    data = b""
                if data:
                    data = data.replace(b"\r\n", b"\n")
                    log.write(data)
                    pending += data
                    cut = pending.rfind(b"\n") + 1  # whole lines only
                    if cut:
                        read_progress(pending[:cut].decode("utf-8", errors="replace"), self.progress)
                        pending = pending[cut:]
                        if self.on_progress is not None:
                            self.on_progress(self.progress)
                    continue
            rc = proc.poll()
            if rc is not None and not ready:
                return rc
            if rc is not None and ready and not data:
                return rc
            now = time.monotonic()
            if self.on_progress is not None and not ready:
                self.on_progress(self.progress)
            if sent_int_at is None and self.hard_deadline is not None and now >= self.hard_deadline:
                self.progress.stopped_by_deadline = True
                runtime.signal_group(proc, signal.SIGINT)
                sent_int_at = now
            elif sent_int_at is not None and now - sent_int_at >= KILL_GRACE:
                self.progress.killed = True
                runtime.signal_group(proc, signal.SIGKILL)
                proc.wait()
                return -signal.SIGKILL
