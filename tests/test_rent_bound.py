"""The rent_whole rows tighten the LP relaxation of rentals.

Three 20-day jobs, each free to run anywhere in the first 180 days, on one rent offer with a 6-month
minimum term at 10,000 per node-month. Any plan rents at least one node for 6 months: 60,000, and one node
for months 0–5 carries all three jobs one after another, so 60,000 is the optimum. Without rent_whole the
LP spreads each job thinly over many starts and rents fractions of a node: its bound is well below that.
With rent_whole each job alone must hold one whole node-contract of at least 6 months, so the LP bound
reaches the optimum.
"""

from __future__ import annotations

import pulp
import pytest

from procure.solver.milp import Builder
from procure.solver.options import build_options

from helpers import fixed_sizings, offer, project, solve_fixed


def _case():
    p = project(
        [dict(name=f"j{k}", model="llama-2-7b", method="full", tokens_b=1, deadline_days=180) for k in range(3)],
        horizon_months=12,
        electricity_price_per_kwh=0,
    )
    o = offer(mode="rent", id="r", price_per_node_month=10_000, min_term_months=6, max_nodes=4)
    hours = {(f"j{k}", "r", 1): 20 * 24 for k in range(3)}
    return p, o, hours


def _lp_bound(whole: bool) -> float:
    p, o, hours = _case()
    sizings, _resize = fixed_sizings(p, [o], hours)
    options, _rej, _every = build_options(p, {"r": o}, sizings, ("rent",))
    model = Builder(p, options, {"r": o}).build()
    if not whole:
        for name in [n for n in model.prob.constraints if n.startswith("rent_whole")]:
            del model.prob.constraints[name]
    for v in model.prob.variables():
        v.cat = pulp.LpContinuous
    model.prob.solve(pulp.PULP_CBC_CMD(msg=False))
    return pulp.value(model.prob.objective)


def test_the_optimum_is_one_node_for_the_minimum_term():
    p, o, hours = _case()
    assert solve_fixed(p, [o], hours, compare=False).plan.total_cost == pytest.approx(60_000)


def test_rent_whole_lifts_the_lp_bound_to_the_optimum():
    assert _lp_bound(whole=False) < 0.5 * 60_000
    assert _lp_bound(whole=True) == pytest.approx(60_000)
