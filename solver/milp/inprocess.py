"""HiGHS in this process, on the model's arrays: LP first, branching only when the LP optimum is fractional.

The model built for CBC (``formulation.Builder``) is handed to HiGHS as arrays — column bounds, costs and
integrality; the rows as a row-wise sparse matrix with lower and upper bounds — through ``highspy``,
without a model file or a child process. The LP relaxation is solved first: when every integer column of
its optimum is integral (within ``INTEGRAL_TOL``), that optimum is the MIP's optimum (the relaxation's
optimum is a lower bound attained by an integer point), and no branch and bound is run. Otherwise the
integrality is restored and HiGHS solves the MIP to ``gap``. No MIP start is passed (see backends.py).

The solution is written back to the model's variables, so ``formulation.extract`` reads it as it reads
CBC's; the planner then re-costs and verifies the plan like any other.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pulp

from ..enums import SolveStatus
from .state import Model

INTEGRAL_TOL = 1e-6


def _arrays(model: Model):
    """(columns, lower, upper, cost, integer mask, row starts, row indices, row values, row lower, row upper)."""
    cols = model.columns
    index = {v.name: k for k, v in enumerate(cols)}
    lower = np.array([-math.inf if v.lowBound is None else v.lowBound for v in cols], dtype=float)
    upper = np.array([math.inf if v.upBound is None else v.upBound for v in cols], dtype=float)
    integer = np.array([v.cat == pulp.LpInteger or v.cat == pulp.LpBinary for v in cols], dtype=bool)
    cost = np.zeros(len(cols))
    for v, a in model.prob.objective.items():
        cost[index[v.name]] += a
    starts, idx, vals, rlo, rhi = [0], [], [], [], []
    for c in model.prob.constraints.values():
        for v, a in c.items():
            idx.append(index[v.name])
            vals.append(a)
        starts.append(len(idx))
        rhs = -c.constant
        rlo.append(rhs if c.sense in (pulp.LpConstraintGE, pulp.LpConstraintEQ) else -math.inf)
        rhi.append(rhs if c.sense in (pulp.LpConstraintLE, pulp.LpConstraintEQ) else math.inf)
    return (
        cols,
        lower,
        upper,
        cost,
        integer,
        np.array(starts, dtype=np.int32),
        np.array(idx, dtype=np.int32),
        np.array(vals, dtype=float),
        np.array(rlo, dtype=float),
        np.array(rhi, dtype=float),
        float(model.prob.objective.constant),
    )


def highs_lp(arrays):
    """The model's arrays (``_arrays``) as a ``highspy.HighsLp``, row-wise, integrality left to the caller."""
    import highspy

    cols, lower, upper, cost, _integer, starts, idx, vals, rlo, rhi, offset = arrays
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = len(cols), len(rlo)
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = cost, lower, upper
    lp.row_lower_, lp.row_upper_ = rlo, rhi
    lp.offset_ = offset
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = len(cols), len(rlo)
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = starts, idx, vals
    return lp


def solve_in_process(model: Model, time_limit: float | None, gap: float):
    """Solve ``model`` with HiGHS in this process; returns (status, objective, bound, stopped)."""
    import highspy

    arrays = _arrays(model)
    cols, _lower, _upper, cost, integer, *_matrix, offset = arrays
    lp = highs_lp(arrays)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    if time_limit is not None:
        h.setOptionValue("time_limit", max(0.05, time_limit))
    h.passModel(lp)
    h.run()
    lp_status = h.getModelStatus()
    if lp_status == highspy.HighsModelStatus.kInfeasible:
        return SolveStatus.INFEASIBLE, None, None, False
    if lp_status == highspy.HighsModelStatus.kOptimal:
        x = np.asarray(h.getSolution().col_value)
        frac = np.abs(x[integer] - np.round(x[integer]))
        if frac.size == 0 or frac.max() <= INTEGRAL_TOL:
            x = np.where(integer, np.round(x), x)
            _write(cols, x)
            objective = float(cost @ x + offset)
            return SolveStatus.OPTIMAL, objective, float(h.getInfo().objective_function_value), False
    # the LP optimum is fractional (or the LP stopped): the MIP, from scratch
    if deadline is not None and deadline - time.monotonic() <= 0:
        return SolveStatus.NO_SOLUTION, None, None, True
    # a fresh solver for the MIP: HiGHS 1.16 that solved the LP and then had its columns made integer
    # reported a MIP objective (22,000) that was not the cost of the solution it returned (25,312) on
    # tests/test_planner.py's random instance 0 (docs/performance.md)
    lp.integrality_ = [highspy.HighsVarType.kInteger if k else highspy.HighsVarType.kContinuous for k in integer]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", gap)
    if deadline is not None:
        h.setOptionValue("time_limit", max(0.05, deadline - time.monotonic()))
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    has = info.primal_solution_status == 2  # kSolutionStatusFeasible
    stopped = status in (
        highspy.HighsModelStatus.kTimeLimit,
        highspy.HighsModelStatus.kIterationLimit,
        highspy.HighsModelStatus.kSolutionLimit,
    )
    bound = getattr(info, "mip_dual_bound", None)
    bound = float(bound) if bound is not None and math.isfinite(bound) else None
    if status == highspy.HighsModelStatus.kInfeasible:
        return SolveStatus.INFEASIBLE, None, None, False
    if not has:
        return SolveStatus.NO_SOLUTION, None, bound, stopped
    x = np.asarray(h.getSolution().col_value)
    x = np.where(integer, np.round(x), x)
    _write(cols, x)
    objective = float(cost @ x + offset)
    mapped = (
        SolveStatus.OPTIMAL if status == highspy.HighsModelStatus.kOptimal and not stopped else SolveStatus.FEASIBLE
    )
    return mapped, objective, bound, stopped


def _write(cols, x) -> None:
    for v, value in zip(cols, x, strict=True):
        v.varValue = float(value)
