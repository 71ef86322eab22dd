"""The integrality gate of the rental contracts.

The contract columns S, E (open-ended term tiers) and T (fixed-length terms) are continuous in the model the
planner solves (``Builder(contracts_integer=False)``): only the choices — which job runs where and when (x, y),
what is bought (b, q, z), which fixed charges and staff are paid (u, F, s, e) — are integer. With those
fixed, the rental rows are interval-structured (consecutive months of one lattice), and the vertex the
simplex method returns has integral S/E/T wherever the rows are totally unimodular. CBC then searches
only over the choices: about half the CPU on the rent re-solves, with the same optima (docs/performance.md).

Because several phases add up in one capacity row, integrality is measured, not proven. So every solve
passes this gate before its plan is read (``integral_contracts``):

1. every S/E/T value within ``FRACTION_TOL`` of an integer: the solve stands;
2. else the choices are fixed at the solution and the rental LP is solved again, without a MIP start (a
   vertex, no heuristic point); its objective is at most the first one, and the solve's bound still holds;
3. else the model is solved again with S/E/T integer (``Builder.set_contracts_integer``), the landed
   formulation, from the builder's warm start.

A fractional contract never reaches a plan: when the gate cannot end in integral contracts (no time
left), it says so and the planner falls back to its verified warm-start plan.
"""

from __future__ import annotations

import dataclasses
import math
import time

from ..enums import SolveStatus
from .backends import OPTIMAL_GAP, SolveInfo, solve

FRACTION_TOL = 1e-6  # a contract count farther than this from an integer is fractional


@dataclasses.dataclass
class GateReport:
    """What the gate did: ``path`` is ``integral`` (nothing to do), ``lp`` (step 2 made them integral) or
    ``integer`` (step 3); ``fractional`` counts the fractional S/E/T values the solve came back with."""

    path: str = "integral"
    fractional: int = 0
    seconds: float = 0.0


def fractional_contracts(model) -> int:
    """How many S/E/T values of the solved model are farther than FRACTION_TOL from an integer."""
    n = 0
    for group in (model.S, model.E, model.T):
        for v in group.values():
            val = v.varValue
            if val is not None and abs(val - round(val)) > FRACTION_TOL:
                n += 1
    return n


def _choices(model) -> list:
    """The integer columns: everything the plan decides apart from the contract counts."""
    contracts = {id(v) for group in (model.S, model.E, model.T) for v in group.values()}
    return [v for v in model.columns if v.cat != "Continuous" and id(v) not in contracts]


def integral_contracts(
    builder,
    model,
    info: SolveInfo,
    solver: str,
    gap: float,
    hard_deadline: float | None = None,
    report: GateReport | None = None,
) -> SolveInfo:
    """The solve's SolveInfo once its contracts are integral (the module docstring); the model's values are
    then the plan's. Returns a SolveInfo without a plan (``no_solution``) when the deadline left no time to
    make them integral."""
    report = report if report is not None else GateReport()
    report.fractional = fractional_contracts(model)
    if not info.status.has_plan or not report.fractional:
        return info
    t0 = time.perf_counter()
    # 2. the rental LP with the choices fixed, solved to a vertex
    fixed = [(v, v.lowBound, v.upBound) for v in _choices(model)]
    for v, _lo, _hi in fixed:
        val = float(round(v.varValue or 0.0))
        v.bounds(val, val)
    try:
        lp = solve(model, solver, _left(hard_deadline), OPTIMAL_GAP, hard_deadline=hard_deadline, warm=False)
    finally:
        for v, lo, hi in fixed:
            v.bounds(lo, hi)
    if lp.status.has_plan and lp.objective is not None and not fractional_contracts(model):
        report.path, report.seconds = "lp", time.perf_counter() - t0
        return _with_bound(info, lp.objective, lp.seconds)
    # 3. the landed formulation: S/E/T integer, from the builder's warm start
    builder.set_contracts_integer(True)
    builder.set_warm_start()
    whole = solve(model, solver, _left(hard_deadline), gap, hard_deadline=hard_deadline)
    report.path, report.seconds = "integer", time.perf_counter() - t0
    bounds = [b for b in (info.bound, whole.bound) if b is not None]
    bound = max(bounds) if bounds else None
    if whole.status == SolveStatus.INFEASIBLE:
        return whole
    if not whole.status.has_plan or fractional_contracts(model):
        return dataclasses.replace(whole, status=SolveStatus.NO_SOLUTION, objective=None, gap=None, bound=bound)
    return _with_bound(whole, whole.objective, info.seconds + lp.seconds, bound)


def _left(hard_deadline: float | None) -> float | None:
    return None if hard_deadline is None else max(0.1, hard_deadline - time.monotonic())


def _with_bound(info: SolveInfo, objective, extra_seconds: float, bound: float | None = None) -> SolveInfo:
    """``info`` with the objective of the integral plan and the gap to the best proven bound. The continuous
    model's bound is a bound of the integer one (it relaxes it), so a proven optimum stays proven."""
    bound = info.bound if bound is None else bound
    gap = info.gap
    if objective is not None and bound is not None and math.isfinite(bound):
        gap = max(0.0, (objective - bound) / max(abs(objective), 1e-9))
    status = info.status
    if status == SolveStatus.OPTIMAL and gap is not None and gap > OPTIMAL_GAP and objective - bound > 0.01:
        status = SolveStatus.FEASIBLE
    return dataclasses.replace(
        info, status=status, objective=objective, gap=gap, bound=bound, seconds=info.seconds + extra_seconds
    )
