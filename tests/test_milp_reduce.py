"""The exact start/row reduction (solver/milp/reduce.py) keeps the optimum and the LP bound: the same
model built with and without it gives equal objectives, while the reduced one has fewer columns and rows."""

from __future__ import annotations

import random

import pulp
import pytest

from procure.solver.milp import Builder
from procure.solver.options import build_options

from helpers import fixed_sizings, project, windowed_jobs


def instance(seed: int, n_workloads: int, **project_kw):
    """Jobs with windows over 8 months on a daily grid, 1 or 2 nodes on any of six capped buy / rent /
    cloud offers (minimum terms 1–3 months): some windows overlap, most starts do not interact."""
    rng = random.Random(seed)
    workloads, offers, hours = windowed_jobs(
        rng, n_workloads, 6, window=(15, 40), max_nodes=[2, 3], base_days=(4, 12), id_sep="-"
    )
    p = project(workloads, period_days=1, horizon_months=9, **project_kw)
    sizings, _ = fixed_sizings(p, offers, hours)
    by_id = {o.id: o for o in offers}
    options, _rej, _every = build_options(p, by_id, sizings, ("buy", "rent", "cloud"))
    return p, by_id, options


def _solve(model, mip: bool) -> float:
    model.prob.solve(pulp.PULP_CBC_CMD(msg=False, mip=mip))
    assert model.prob.status == pulp.LpStatusOptimal
    return pulp.value(model.prob.objective)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reduction_keeps_the_lp_bound_and_shrinks_the_model(seed):
    p, offers, options = instance(seed, 14)
    full = Builder(p, options, offers, reduce=False).build()
    small = Builder(p, options, offers, reduce=True).build()
    assert len(small.x) < len(full.x) and len(small.prob.constraints) < len(full.prob.constraints)
    assert _solve(small, mip=False) == pytest.approx(_solve(full, mip=False), rel=1e-7)


@pytest.mark.parametrize(
    "seed,objective",
    [pytest.param(4, "tco", marks=pytest.mark.slow), pytest.param(5, "tco", marks=pytest.mark.slow), (6, "npv")],
)
def test_reduction_keeps_the_optimum(seed, objective):
    # under npv only starts with equal present values merge
    p, offers, options = instance(seed, 7, discount_rate=0.1)
    full = Builder(p, options, offers, objective, reduce=False).build()
    small = Builder(p, options, offers, objective, reduce=True).build()
    assert _solve(small, mip=True) == pytest.approx(_solve(full, mip=True), rel=1e-7)
