"""The analysis' fast re-solve: the reference model's LP relaxation, in this process, accepted only when integral.

A scenario re-solve (``engine.solve_strategy``) first tries ``lp_first``: the strategy's options under the
scenario (``solver.options.build_options``) and the reference MILP (``solver.milp.Builder``, every row family
it has: nothing here writes a constraint of its own) exported as arrays (``solver.milp.inprocess``) and handed
to HiGHS in this process as an LP, started from the optimal basis of the previous re-solve of the same
strategy when the model has the same columns and rows. When every integer column of the LP optimum is
integral, that optimum is the MILP's optimum (the relaxation's optimum is a lower bound attained by an
integer point) and no branch and bound, model file or solver child is needed.

A fractional LP with a known feasible plan (today's plan re-costed under the scenario) fixes every integer
column whose reduced cost exceeds that plan's cost less the LP bound (no plan using it can be cheaper), and
CBC solves what is left from that plan; its optimum is accepted only when it is no dearer than the known plan,
which makes it the full model's optimum (``fix_by_reduced_cost``, ``_reduced_mip``). It is exact but off by
default (``lp_first(reduced=True)``): on the 12-month programme few columns could be fixed and CBC took
longer on the reduced model than on the reference one (docs/performance.md), so a fractional LP goes to the
reference path.

The gate is the planner's own: the plan is extracted, re-costed by the cost model and checked by
``reading.agreed`` (the LP objective must equal the plan's cost) and ``verify_plan``. Whenever any of this
cannot be proved — HiGHS is not installed, the LP is infeasible or stopped, fractional without a known plan,
the reduced MILP is not proved optimal, the objective and the plan's cost disagree, the verifier objects — ``lp_first`` returns None and the caller re-solves on the
reference path (``planner.run_strategy``: CBC as ``procure solve`` runs it). Each outcome says which path
answered it (``solved_by``).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from procure.solver.enums import Objective, SolveStatus, Strategy
from procure.solver.milp import Builder, solve
from procure.solver.milp.backends import _info, _quiet_stdout
from procure.solver.milp.inprocess import INTEGRAL_TOL, _arrays, _write, highs_lp
from procure.solver.options import build_options
from procure.solver.reading import read_plan
from procure.solver.result import StrategyResult, cost_on
from procure.solver.verify import Disagreement, VerificationError, verify_plan

#: which path answered a (scenario, strategy): the LP alone; CBC on the model with columns fixed by the LP's
#: reduced costs; the reference MILP; or today's plan kept (``engine.keeps_todays_plan``); none: excluded
LP, REDUCED, REFERENCE, KEPT = "lp", "reduced", "reference", "kept"
#: slack (relative) between a reduced cost and the room it is measured against: HiGHS' dual tolerance is 1e-7
FIX_MARGIN = 1e-6
#: today's plan re-costed is kept when it costs no more than the proven optimum by this much (relative)
TIE_REL = 1e-9

#: the stages' figures are CPU seconds of this process (a solver child's are not in them)
_cpu = time.process_time

#: optimal bases kept per process, by strategy and model shape: a warm start, never part of an answer
BASES = 16
_bases: OrderedDict[tuple, Any] = OrderedDict()


def available() -> bool:
    try:
        import highspy  # noqa: F401
    except ImportError:
        return False
    return True


def _shape(name: str, cols, n_rows: int, starts, idx) -> tuple:
    """What a basis is indexed by: the strategy, the columns' names and the rows' sparsity."""
    return (name, tuple(v.name for v in cols), n_rows, hash(starts.tobytes()), hash(idx.tobytes()))


@dataclass
class Relaxation:
    """The LP relaxation as solved: its optimum (``x``, rounded when ``integral``) and value, the reduced
    costs, and the arrays it was solved from (``inprocess._arrays``)."""

    arrays: tuple
    optimal: bool = False
    integral: bool = False
    x: np.ndarray | None = None
    value: float | None = None  # the LP optimum, the slack tie-break included
    reduced: np.ndarray | None = None


def solve_lp(name: str, model, time_limit: float | None, figures: dict) -> Relaxation:
    """``model``'s LP relaxation in HiGHS, from the last optimal basis of a model of the same shape;
    an integral optimum is rounded and written to the model's variables."""
    import highspy

    t0 = _cpu()
    arrays = _arrays(model)
    cols, integer = arrays[0], arrays[4]
    figures.update({"export_s": _cpu() - t0, "warm": False, "fractional": 0})
    with _quiet_stdout(True):  # HiGHS prints a banner when it first starts in a process
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    if time_limit is not None:
        h.setOptionValue("time_limit", max(0.05, time_limit))
    h.passModel(highs_lp(arrays))
    key = _shape(name, cols, len(arrays[8]), arrays[5], arrays[6])
    basis = _bases.get(key)
    if basis is not None:
        figures["warm"] = h.setBasis(basis) == highspy.HighsStatus.kOk
    t1 = _cpu()
    h.run()
    figures["lp_s"] = _cpu() - t1
    out = Relaxation(arrays)
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return out
    _bases[key] = h.getBasis()
    _bases.move_to_end(key)
    while len(_bases) > BASES:
        _bases.popitem(last=False)
    sol = h.getSolution()
    x = np.asarray(sol.col_value)
    out.optimal, out.reduced = True, np.asarray(sol.col_dual)
    out.value = float(h.getInfo().objective_function_value)
    frac = np.abs(x[integer] - np.round(x[integer]))
    figures["fractional"] = int((frac > INTEGRAL_TOL).sum())
    out.x = x
    if figures["fractional"] or not math.isfinite(out.value):
        return out
    x = np.where(integer, np.round(x), x)
    cost, offset = arrays[3], arrays[10]
    out.x, out.value, out.integral = x, float(cost @ x + offset), True
    _write(cols, x)
    return out


def fix_by_reduced_cost(lp: Relaxation, upper: float) -> int:
    """Fix every integer column at a bound of the LP optimum whose reduced cost exceeds ``upper − LP value``
    (the objective of a known feasible plan less the LP bound): moving it by 1 costs at least its reduced
    cost, so no plan using it beats ``upper`` (``lp_first`` accepts the reduced MILP's optimum only when it
    is at most ``upper``). Returns how many were fixed."""
    cols, lower, up, integer = lp.arrays[0], lp.arrays[1], lp.arrays[2], lp.arrays[4]
    assert lp.x is not None and lp.reduced is not None and lp.value is not None
    room = upper - lp.value + FIX_MARGIN * max(1.0, abs(upper))
    fixed = 0
    for j in np.flatnonzero(integer & (np.abs(lp.reduced) > room)):
        v = cols[j]
        if lp.reduced[j] > 0 and abs(lp.x[j] - lower[j]) <= INTEGRAL_TOL:
            v.upBound = v.lowBound
        elif lp.reduced[j] < 0 and math.isfinite(up[j]) and abs(lp.x[j] - up[j]) <= INTEGRAL_TOL:
            v.lowBound = v.upBound
        else:
            continue
        fixed += 1
    return fixed


def lp_first(
    project,
    offers,
    sizings,
    name: Strategy,
    modes: tuple[str, ...],
    *,
    resize,
    objective: Objective,
    gap: float,
    time_limit: float | None = None,
    warm=None,
    solver: str = "cbc",
    reduced: bool = False,
    figures: dict | None = None,
) -> tuple[StrategyResult, str] | None:
    """(the strategy's verified optimal plan, the path: ``LP`` or ``REDUCED``), or None when neither proves it
    (the module docstring). ``warm``: a feasible plan of these inputs (today's re-costed), whose cost lets a
    fractional LP fix columns by reduced cost before ``solver`` solves the rest (with ``reduced``: off by
    default, see the module docstring). ``figures`` (a dict) receives the
    stages' seconds and why an answer was not accepted."""
    fig = figures if figures is not None else {}
    if not available():
        fig["why"] = "no highspy"
        return None
    t0 = _cpu()
    options, rejections, every = build_options(project, offers, sizings, modes)
    mine = {w.name for w in project.workloads}
    options = {w: opts for w, opts in options.items() if w in mine}
    if any(not opts for opts in options.values()):
        fig["why"] = "a job without options"  # the reference path explains it
        return None
    fig["options_s"] = _cpu() - t0
    t1 = _cpu()
    builder = Builder(project, options, offers, objective)
    model = builder.build()
    fig["build_s"] = _cpu() - t1
    wall = time.perf_counter()
    lp = solve_lp(str(name), model, time_limit, fig)
    if not lp.optimal:
        fig["why"] = "LP not optimal"
        return None
    if lp.integral:
        info = _info(model, "highs", SolveStatus.OPTIMAL, time.perf_counter() - wall, lp.value, lp.value, gap, False)
        path = LP
    elif not reduced:
        fig["why"] = "fractional"
        return None
    else:
        got = _reduced_mip(builder, model, lp, warm, objective, gap, time_limit, solver, fig)
        if got is None:
            return None
        info, path = got, REDUCED
    t3 = _cpu()
    plan = _ties_keep(warm, info, objective)
    try:
        if plan is None:
            plan, said = read_plan(
                model, project, offers, info, objective=objective, strategy=str(name), resize=resize, modes=modes
            )
            if said.status != SolveStatus.OPTIMAL:  # the solver slipped: the reference path answers
                fig["why"] = "objective and plan cost disagree"
                return None
        else:
            verify_plan(project, offers, plan, resize, modes)
    except Disagreement:  # the reference path re-solves it, and stops there if the model is wrong
        fig["why"] = "objective and plan cost disagree"
        return None
    except VerificationError as exc:
        fig["why"] = "verifier: " + "; ".join(exc.violations)
        return None
    fig["check_s"] = _cpu() - t3
    res = StrategyResult(
        name,
        modes,
        SolveStatus.OPTIMAL,
        plan=plan,
        solve=info,
        rejections=rejections,
        every_option=every,
        build_seconds=fig["options_s"] + fig["build_s"],
    )
    return res, path


def _ties_keep(warm, info, objective: Objective):
    """``warm`` (today's plan re-costed) when it costs the proven optimum (to ``TIE_REL``): among plans of equal
    cost the one CBC starts from is the one it returns on the reference path, and break-even's searches read
    which plan an optimum is at a tie. None otherwise."""
    kept = cost_on(warm, objective)
    if kept is None or info.objective is None:
        return None
    return warm if kept <= info.objective + TIE_REL * max(1.0, abs(kept)) else None


def _reduced_mip(
    builder, model, lp: Relaxation, warm, objective: Objective, gap: float, time_limit, solver: str, fig: dict
):
    """A fractional LP: columns fixed by reduced cost against ``warm``'s cost, the rest solved by CBC from
    ``warm``; its SolveInfo when the solver proves an optimum no dearer than ``warm`` (then it is the full model's
    optimum: every plan the fixing removed costs more than ``warm``), else None."""
    upper = cost_on(warm, objective)
    if warm is None or upper is None:
        fig["why"] = "fractional, no plan to fix columns against"
        return None
    upper_model = upper + model.tie_max  # the model's objective carries the slack tie-break
    t = _cpu()
    fig["fixed"] = fix_by_reduced_cost(lp, upper_model)
    fig["columns"] = len(model.columns)
    builder.warm_start = warm
    builder.set_warm_start()
    info = solve(model, solver, time_limit, gap)
    fig["mip_s"] = _cpu() - t
    if info.status != SolveStatus.OPTIMAL or info.objective is None:
        fig["why"] = f"reduced MILP {info.status}"
        return None
    with_tie = info.objective + sum(c * (v.value() or 0.0) for v, c in model.tie.items())
    if with_tie > upper_model + FIX_MARGIN * max(1.0, abs(upper_model)):
        fig["why"] = "reduced MILP dearer than the known plan"
        return None
    return info
