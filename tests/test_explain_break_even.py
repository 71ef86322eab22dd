"""``procure explain``'s break-even for one job, when the offer already runs another job: the price at which
*this* job moves onto it, checked by re-solving just below and just above it.

Hand-worked case (electricity 0): job ``a`` can run only on the rented offer ``x`` (20,000 per node-month,
one-month terms), 90 days from day 0, so the plan rents one node for three months. Job ``b`` (720 h,
due day 40) runs on the cloud offer ``c`` for 720 × 20 = 14,400, or on a second node of ``x`` for one
month at its price p (the first node is busy with ``a`` all that time). So ``b`` moves onto ``x`` at
p < 14,400: −28% of today's 20,000 — not "at no price", although the plan already uses ``x``."""

from __future__ import annotations

import pytest

from procure.analysis import break_even as be
from procure.analysis.engine import Context, solve_scenario
from procure.analysis.scenario import Scenario

from helpers import analysis_run, offer, project


def _case(term_prices=None):
    p = project(
        [
            dict(name="a", model="llama-2-7b", method="full", tokens_b=1, deadline_days=92),
            dict(name="b", model="llama-2-7b", method="full", tokens_b=1, deadline_days=40),
        ],
        electricity_price_per_kwh=0,
    )
    rent = (
        dict(term_prices=term_prices, price_per_node_month=None, min_term_months=None)
        if term_prices
        else dict(price_per_node_month=20_000, min_term_months=1, setup_fee_per_node=0)
    )
    x = offer(mode="rent", id="x", max_nodes=4, **({"setup_fee_per_node": 0} | rent))
    offers = [x, offer(mode="cloud", id="c", price_per_node_hour=20)]
    hours = {("a", "x", 1): 2160.0, ("b", "x", 1): 720.0, ("b", "c", 1): 720.0}
    return p, offers, hours


def _b_runs_on(ctx, price: float) -> str:
    out = solve_scenario(ctx, Scenario.of("p", offer_prices={"x": price}), ("hybrid",), keep_plans=True)
    plan = out.strategies["hybrid"].plan
    return next(a.offer_id for a in plan.assignments if a.workload == "b")


def test_the_break_even_of_a_job_is_where_it_moves_onto_an_offer_another_job_uses():
    p, offers, hours = _case()
    a = analysis_run(p, offers, hours)
    chosen = {x.workload: x.offer_id for x in a.base.plan.assignments}
    assert chosen == {"a": "x", "b": "c"}
    ctx = Context.of(a.inputs, a.base)
    b = be.explain_break_even(a.base, "x", "b", ctx)
    assert b.break_even == pytest.approx(14_400, abs=0.01)  # b's cloud bill: 720 h × 20
    assert b.change_pct == pytest.approx(-28, abs=0.01)
    assert "at any price" not in b.sentence("USD") and "b moves onto" in b.sentence("USD")
    # the re-solves agree: a little below, b runs on x; a little above, it stays on the cloud
    assert _b_runs_on(ctx, 14_400 * 0.99) == "x"
    assert _b_runs_on(ctx, 14_400 * 1.01) == "c"
    # the job the plan runs on x: no break-even to search
    assert "already uses it" in be.explain_break_even(a.base, "x", "a", ctx).reason


def test_a_tiered_break_even_says_which_tiers_it_scales():
    # two tiers, 20,000 from one month and 18,000 from three: b's one-month contract is on the first tier, so b
    # moves at a first-tier price of 14,400 — every tier × 0.72 (the one-month tier 20,000 → 14,400)
    tiers = [
        {"min_term_months": 1, "price_per_node_month": 20_000},
        {"min_term_months": 3, "price_per_node_month": 18_000},
    ]
    p, offers, hours = _case(tiers)
    a = analysis_run(p, offers, hours)
    ctx = Context.of(a.inputs, a.base)
    b = be.explain_break_even(a.base, "x", "b", ctx)
    assert b.break_even == pytest.approx(14_400, abs=0.01)
    assert "every tier × 0.72 (1-month tier 20,000 → 14,400 USD)" in b.sentence("USD")
