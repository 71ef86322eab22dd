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


def _tampered(plan, change):
    """The plan with its ledger's entries changed by ``change(entry) -> entries`` (the totals follow them)."""
    entries = tuple(x for e in plan.ledger.entries for x in change(e))
    return dataclasses.replace(plan, ledger=dataclasses.replace(plan.ledger, entries=entries))


def test_a_thousand_moved_from_capex_to_cloud_is_refused():
    p, offers, plan, resize = _bought_plan()

    def move(e):
        if e.key == "buy:b:capex":
            (month, amount), *rest = e.amounts
            yield dataclasses.replace(e, amounts=((month, amount - 1000), *rest))
            yield dataclasses.replace(e, key="job0:cloud", kind="cloud", category="cloud", amounts=((month, 1000.0),))
        else:
            yield e

    moved = _tampered(plan, move)
    assert moved.total_cost == pytest.approx(plan.total_cost)
    assert moved.breakdown["cloud"] == pytest.approx(1000)
    with pytest.raises(VerificationError) as err:
        verify_plan(p, offers, moved, resize)
    said = err.value.violations
    assert "ledger: buy:b:capex is 59,000.00 in the plan, 60,000.00 from the quotes" in said
    assert "ledger: entry job0:cloud (1,000.00) is in the plan but the quotes call for none" in said
    assert "cost: capex is 59,000.00 in the plan, 60,000.00 from the quotes" in said


def test_a_staff_count_lowered_with_its_cost_unchanged_is_refused():
    p, offers, plan, resize = _bought_plan()
    charges = [dataclasses.replace(c, ftes=0) if c.kind == "staff" else c for c in plan.charges]
    with pytest.raises(VerificationError, match="staff: the plan states 0 FTE"):
        verify_plan(p, offers, dataclasses.replace(plan, charges=charges), resize)


def test_a_staff_entry_lowered_in_the_ledger_with_its_cost_unchanged_is_refused():
    p, offers, plan, resize = _bought_plan()
    fewer = _tampered(plan, lambda e: [dataclasses.replace(e, quantity=0.0) if e.key == "staff" else e])
    assert fewer.total_cost == plan.total_cost
    with pytest.raises(VerificationError, match=r"ledger: staff has quantity 0.0 in the plan, 1.0 from the quotes"):
        verify_plan(p, offers, fewer, resize)
