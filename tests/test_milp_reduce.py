"""The exact start/row reduction (solver/milp/reduce.py) keeps the optimum and the LP bound: the same
model built with and without it gives equal objectives, while the reduced one has fewer columns and rows."""

from __future__ import annotations

import random

import pulp
import pytest

from procure.solver.milp import Builder
from procure.solver.options import build_options

from helpers import fixed_sizings, offer, project


def instance(seed: int, n_workloads: int, **project_kw):
    """Jobs with windows over 8 months on a daily grid, 1 or 2 nodes on any of six capped buy / rent /
    cloud offers (minimum terms 1–3 months): some windows overlap, most starts do not interact."""
    rng = random.Random(seed)
    workloads = []
    for k in range(n_workloads):
        e = rng.randint(0, 200)
        workloads.append(dict(name=f"w{k}", model="llama-2-7b", method="full", tokens_b=1, earliest_start_days=e,
                              deadline_days=e + rng.randint(15, 40)))
    offers = []
    for k in range(6):
        mode = ("buy", "rent", "cloud")[k % 3]
        kw = dict(mode=mode, id=f"o-{k}", max_nodes=rng.choice([2, 3]))
        if mode == "buy":
            kw.update(price_per_node=rng.randint(40, 90) * 1000)
        elif mode == "rent":
            kw.update(price_per_node_month=rng.randint(5, 15) * 1000, min_term_months=rng.choice([1, 2, 3]))
        else:
            kw.update(price_per_node_hour=rng.randint(15, 40))
        offers.append(offer(**kw))
    hours = {}
    for w in workloads:
        for o in offers:
            base = rng.randint(4, 12) * 24
            for n in (1, 2):
                hours[(w["name"], o.id, n)] = base / n / rng.choice([0.85, 0.95])
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


@pytest.mark.parametrize("seed,objective", [(4, "tco"), (5, "tco"), (6, "npv")])
def test_reduction_keeps_the_optimum(seed, objective):
    # under npv only starts with equal present values merge
    p, offers, options = instance(seed, 7, discount_rate=0.1)
    full = Builder(p, options, offers, objective, reduce=False).build()
    small = Builder(p, options, offers, objective, reduce=True).build()
    assert _solve(small, mip=True) == pytest.approx(_solve(full, mip=True), rel=1e-7)
