"""The verifier checks the categories, not only the total: money moved between categories, or a staff
count changed with its cost left as it was, is refused with the category or the staff line named."""

from __future__ import annotations

import dataclasses

import pytest

from procure.solver.verify import VerificationError, verify_plan

from helpers import fixed_sizings, offer, project, solve_fixed


def _bought_plan():
    p = project(
        [dict(name="job", model="llama-2-7b", method="full", tokens_b=1, deadline_days=60)],
        period_days=7,
        horizon_months=6,
        staff={"nodes_per_fte": 1, "cost_per_fte_year": 12_000, "modes": ["buy"]},
    )
    o = offer(mode="buy", id="b", price_per_node=60_000, max_nodes=2)
    hours = {("job", "b", 1): 200}
    res = solve_fixed(p, [o], hours)
    _sizings, resize = fixed_sizings(p, [o], hours)
    return p, {o.id: o}, res.plan, resize


def test_the_plan_as_solved_passes():
    p, offers, plan, resize = _bought_plan()
    verify_plan(p, offers, plan, resize)  # raises on any problem
    assert plan.breakdown["capex"] == pytest.approx(60_000)
    assert [c.ftes for c in plan.charges if c.kind == "staff"] == [1]


def test_a_thousand_moved_from_capex_to_cloud_is_refused():
    p, offers, plan, resize = _bought_plan()
    breakdown = dict(plan.breakdown, capex=plan.breakdown["capex"] - 1000, cloud=plan.breakdown["cloud"] + 1000)
    flows = {c: dict(per) for c, per in plan.flows.items()}
    month = min(flows["capex"])
    flows["capex"][month] -= 1000
    flows.setdefault("cloud", {})[month] = flows.get("cloud", {}).get(month, 0.0) + 1000
    moved = dataclasses.replace(plan, breakdown=breakdown, flows=flows)
    assert moved.total_cost == plan.total_cost
    with pytest.raises(VerificationError, match="capex is 59,000.00 in the plan but recomputed 60,000.00"):
        verify_plan(p, offers, moved, resize)


def test_a_staff_count_lowered_with_its_cost_unchanged_is_refused():
    p, offers, plan, resize = _bought_plan()
    charges = [dataclasses.replace(c, ftes=0) if c.kind == "staff" else c for c in plan.charges]
    with pytest.raises(VerificationError, match="staff: the plan states 0 FTE"):
        verify_plan(p, offers, dataclasses.replace(plan, charges=charges), resize)
