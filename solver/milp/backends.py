"""Solver backends: CBC as a child process, HiGHS in this process (inprocess.py: LP first, no MIP
start), and an honest reading of how a solve ended.

Status mapping (``SolveStatus``): ``optimal`` only when the solver proved it (relative gap ≤
``OPTIMAL_GAP``) and did not stop at a limit; ``feasible`` when it holds a plan but stopped at a time,
node or solution limit or at a looser ``--gap``; ``infeasible`` when no plan exists; ``no_solution``
when it stopped before finding one. The gap is (objective − bound) / |objective| with the best bound
the solver proved: read from CBC's log ("Lower bound:") or HiGHS's ``mip_dual_bound``.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass

import pulp

from procure.common.errors import ExitCode, ProcureError

from ..enums import SolveStatus
from .cbc import DeadlineCBC
from .state import Model

CBC_OPTIONS = ["preprocess off", "heur off", "cuts off"]
OPTIMAL_GAP = 1e-6  # a proven relative gap at or below this is called optimal


@dataclass
class SolveInfo:
    name: str
    version: str
    status: SolveStatus
    seconds: float
    gap: float | None
    objective: float | None
    variables: int = 0
    constraints: int = 0
    bound: float | None = None  # the best proven bound on the objective (objective units), if any
    stopped_by_deadline: bool = False  # stopped by procure at its share of --time-limit
    heuristic: bool = False  # the plan is the greedy one (the solver found none in time)
    # the solver's objective − its own solution's value at the model's prices (which are the ledger's), when the
    # solver slipped (reading.agreed): the status is then feasible, never optimal on the solver's word
    objective_off: float | None = None
    # the model had fewer start columns than the grid (options.thin_starts): no bound of the full grid is known
    thinned: bool = False


def solver_command(
    name: str,
    time_limit: float | None,
    gap: float,
    log_path: str | None,
    options: list[str] | None = None,
    hard_deadline: float | None = None,
    on_progress=None,
    warm: bool = True,
):
    """The PuLP command for ``name``; CBC runs as ``DeadlineCBC`` (stopped at ``hard_deadline``, a
    ``time.monotonic()`` reading, with ``on_progress(cbc.Progress)`` called while it runs)."""
    if name == "cbc":
        # CBC's presolve and primal heuristics cost ~65 s at the root of the XL benchmark before any
        # branching, while this model's LP relaxation is nearly integral and the greedy plan is a warm
        # start: without them XL solves in ~10 s (docs/performance.md).
        # timeMode elapsed: the limit is wall-clock seconds, as --time-limit is (CBC's default counts CPU seconds)
        cmd = DeadlineCBC(
            msg=False,
            timeLimit=time_limit,
            timeMode="elapsed",
            gapRel=gap,
            logPath=log_path,
            warmStart=warm,
            options=list(options or []),
            hard_deadline=hard_deadline,
            on_progress=on_progress,
        )
        if not cmd.available():
            raise SolverUnavailable(
                "the CBC solver that ships with PuLP was not found or cannot run on this machine; reinstall pulp (pip install --force-reinstall pulp) or use --solver highs"
            )
        return cmd
    raise SolverUnavailable(f"unknown solver {name!r}; allowed: cbc (HiGHS runs in process, see inprocess.py)")


class SolverUnavailable(ProcureError):
    """The chosen solver is not installed or cannot run here."""

    exit_code = ExitCode.NO_SOLUTION


class SolverFailed(ProcureError):
    """The solver ran but crashed or returned nothing usable."""

    exit_code = ExitCode.NO_SOLUTION


def solver_version(name: str) -> str:
    if name == "highs":
        try:
            import highspy

            h = highspy.Highs()
            return f"HiGHS {h.version()}" if hasattr(h, "version") else "HiGHS"
        except Exception:
            return "HiGHS"
    return f"CBC (PuLP {pulp.__version__})"


@contextlib.contextmanager
def _quiet_stdout(active: bool):
    """Silence what a solver library writes to the process's stdout (file descriptor 1) meanwhile."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def solve(
    model: Model,
    solver: str = "cbc",
    time_limit: float | None = None,
    gap: float = 1e-6,
    hard_deadline: float | None = None,
    on_progress=None,
    warm: bool = True,
) -> SolveInfo:
    """Solve and map the status honestly: optimal, feasible (limit reached; proven gap), infeasible, no_solution.

    ``time_limit`` is the solver's own limit (seconds); ``hard_deadline`` (a ``time.monotonic()``
    reading) is when procure stops a CBC child that has not stopped by itself (see cbc.py). ``highs``
    runs in this process on the model's arrays, LP first (inprocess.py). ``warm``: CBC starts from the
    variables' values (a MIP start); off, it returns the vertex its simplex ends at (gate.py)."""
    if solver == "highs":
        return _solve_highs(model, time_limit, gap, hard_deadline)
    if solver != "cbc":
        raise SolverUnavailable(f"unknown solver {solver!r}; allowed: cbc, highs")
    fd, log_path = tempfile.mkstemp(prefix="procure-cbc-", suffix=".log")
    os.close(fd)
    # CBC 2.10 without presolve can die on a model whose LP relaxation is infeasible (seen with a
    # budget below every plan): then the same model is solved again with CBC's defaults.
    attempts = [CBC_OPTIONS, []]
    try:
        t0 = time.perf_counter()
        for k, options in enumerate(attempts):
            cmd = solver_command(solver, time_limit, gap, log_path, options, hard_deadline, on_progress, warm)
            try:
                model.prob.solve(cmd)
                break
            except pulp.PulpSolverError as exc:
                if k + 1 < len(attempts) and not (hard_deadline is not None and time.monotonic() >= hard_deadline):
                    continue
                detail = str(exc).split(",")[0]
                raise SolverFailed(
                    "the CBC solver stopped with an error (it may have crashed or run out of memory); "
                    f"try --solver highs or report it with your input files (detail: {detail})"
                ) from None
        seconds = time.perf_counter() - t0
        log = open(log_path, encoding="utf-8", errors="replace").read()
    finally:
        try:
            os.unlink(log_path)
        except OSError:
            pass
    status, sol = model.prob.status, model.prob.sol_status
    objective = (
        pulp.value(model.prob.objective) if sol in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible) else None
    )
    seen = cmd.progress
    by_deadline = seen.stopped_by_deadline
    stopped = by_deadline or bool(re.search(r"Result - Stopped on (time|iterations|nodes|solutions|ctrl-c)", log, re.I))
    mb = re.search(r"Lower bound:\s*([-0-9.eE+]+)", log)
    bound = float(mb.group(1)) if mb else seen.bound if stopped else None
    if status == pulp.LpStatusInfeasible or sol == pulp.LpSolutionInfeasible:
        mapped = SolveStatus.INFEASIBLE
    elif sol == pulp.LpSolutionOptimal and status == pulp.LpStatusOptimal and not stopped:
        mapped = SolveStatus.OPTIMAL
    elif objective is not None and sol in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        mapped = SolveStatus.FEASIBLE
    elif status == pulp.LpStatusUnbounded:
        raise SolverFailed("the model is unbounded; this is a bug in procure")
    else:
        mapped = SolveStatus.NO_SOLUTION
    return _info(model, solver, mapped, seconds, objective, bound, gap, by_deadline)


def _solve_highs(model: Model, time_limit: float | None, gap: float, hard_deadline: float | None) -> SolveInfo:
    try:
        import highspy  # noqa: F401
    except ImportError:
        raise SolverUnavailable(
            "HiGHS is not installed; it is a dependency of procure; reinstall it with: pip install highspy"
        ) from None
    from .inprocess import solve_in_process

    if hard_deadline is not None:
        left = max(0.05, hard_deadline - time.monotonic())
        time_limit = left if time_limit is None else min(time_limit, left)
    t0 = time.perf_counter()
    with _quiet_stdout(True):  # HiGHS prints a banner when it first starts
        mapped, objective, bound, stopped = solve_in_process(model, time_limit, gap)
    by_deadline = stopped and hard_deadline is not None and time.monotonic() >= hard_deadline - 0.05
    return _info(model, "highs", mapped, time.perf_counter() - t0, objective, bound, gap, by_deadline)


def _info(
    model: Model,
    solver: str,
    mapped: SolveStatus,
    seconds: float,
    objective: float | None,
    bound: float | None,
    gap: float,
    by_deadline: bool,
) -> SolveInfo:
    """The gap from the objective and the proven bound, and "optimal" only when that gap is proven small. The
    gap is the solver's own (slack tie-break included); the objective and bound are reported without the
    tie-break (formulation.add_objective): the objective less the plan's tie terms, the bound less the most
    they can add."""
    gap_value: float | None = None
    if objective is not None and bound is not None and math.isfinite(bound):
        gap_value = max(0.0, (objective - bound) / max(abs(objective), 1e-9))
    elif mapped == SolveStatus.OPTIMAL:
        # no bound reported: the solver proved optimality outright, unless it stopped at a looser --gap,
        # which then only bounds the true gap
        gap_value = 0.0 if gap <= OPTIMAL_GAP else gap
    # "optimal" means proven optimal: a solver that stopped at a looser --gap reports "feasible" with its gap
    if (
        mapped == SolveStatus.OPTIMAL
        and gap_value is not None
        and gap_value > OPTIMAL_GAP
        and objective is not None
        and objective - (bound if bound is not None else -math.inf) > 0.01
    ):
        mapped = SolveStatus.FEASIBLE
    if objective is not None and model.tie:
        objective -= sum(c * (v.value() or 0.0) for v, c in model.tie.items())
    if bound is not None and model.tie_max:
        bound -= model.tie_max
    if model.offset:  # the committed money no column carries (formulation.Model.offset)
        objective = None if objective is None else objective + model.offset
        bound = None if bound is None else bound + model.offset
    return SolveInfo(
        solver,
        solver_version(solver),
        mapped,
        seconds,
        gap_value,
        objective,
        variables=len(model.columns) or len(model.prob.variables()),
        constraints=len(model.prob.constraints),
        bound=bound if bound is not None and math.isfinite(bound) else None,
        stopped_by_deadline=by_deadline,
    )
