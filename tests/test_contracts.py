"""Rentals as signed: a contract begins at delivery (or a job's release), never before the lead time, and runs
whole months from its own start; billing follows the contract's months; equal-cost plans keep the most slack."""

from __future__ import annotations

import dataclasses

import pytest

from procure.solver import lattice
from procure.solver.verify import VerificationError, verify_plan

from helpers import contract_days, offer, project, solve_fixed, workload


def _one_job(lead: int, price: float = 9000, days: float = 23.5, **kw):
    o = offer(id="r9", mode="rent", price_per_node_month=price, min_term_months=1, lead_time_days=lead, max_nodes=2)
    p = project([workload(name="j", deadline_days=60)], period_days=1, horizon_months=6, **kw)
    return p, o, {("j", "r9", 1): days * 24}


def test_a_23_5_day_job_after_a_14_day_lead_pays_one_month_from_delivery():
    p, o, hours = _one_job(lead=14)
    res = solve_fixed(p, [o], hours)
    assert res.status == "optimal"
    # by hand: the job runs day 14 to 37.5; one contract month from delivery (2027-01-15 to 2027-02-15, day 14 to
    # day 45) at 9,000
    assert res.plan.total_cost == pytest.approx(9000.0)
    (r,) = res.plan.rentals
    assert (r.nodes, r.months) == (1, 1)
    assert r.start_day == pytest.approx(14.0)
    assert r.end_day == pytest.approx(45.0)


def test_billing_follows_the_contract_months_and_lands_in_the_project_month_it_falls_in():
    # 40 days from day 14: two contract months (days 14–44.4 and 44.4–74.8), paid on day 14 (project month 0)
    # and day 44.4 (project month 1)
    p, o, hours = _one_job(lead=14, days=40)
    res = solve_fixed(p, [o], hours)
    assert res.plan.total_cost == pytest.approx(18000.0)
    assert res.plan.flows["rent"] == {0: pytest.approx(9000.0), 1: pytest.approx(9000.0)}


def test_no_contract_begins_before_the_lead_time_even_when_a_job_released_earlier_could_share_it():
    # two jobs released at day 0, the offer delivers on day 20: every contract begins on day 20 or later
    o = offer(id="r", mode="rent", price_per_node_month=10_000, min_term_months=1, lead_time_days=20, max_nodes=3)
    jobs = [workload(name="a", deadline_days=120), workload(name="b", deadline_days=150)]
    p = project(jobs, period_days=1, horizon_months=8)
    res = solve_fixed(p, [o], {("a", "r", 1): 30 * 24, ("b", "r", 2): 20 * 24})
    assert res.status == "optimal"
    assert res.plan.rentals and all(r.start_day >= 20 - 1e-9 for r in res.plan.rentals)
    assert all(a.start_day >= 20 - 1e-9 for a in res.plan.assignments)


def test_a_108_day_pretraining_keeps_its_slack_at_the_same_cost():
    # 7-day lead, deadline day 139: any start from day 7 to day 20 holds 4 nodes for 4 contract months
    # (4 × 4 × 20,000 = 320,000 by hand); the plan of most slack starts at delivery and ends on day 115
    o = offer(id="r7", mode="rent", price_per_node_month=20_000, min_term_months=1, lead_time_days=7, max_nodes=4)
    p = project([workload(name="pt", deadline_days=139)], period_days=1, horizon_months=12)
    res = solve_fixed(p, [o], {("pt", "r7", 4): 108 * 24})
    assert res.status == "optimal"
    assert res.plan.total_cost == pytest.approx(320_000.0)
    (a,) = res.plan.assignments
    assert a.start_day == pytest.approx(7.0)
    assert a.slack_days >= 20


def test_the_tie_break_leaves_the_optimum_cost_unchanged_and_prefers_earlier_ends():
    # a cloud job costs the same whenever it runs: the plan runs it first thing, at the same cost
    o = offer(id="c", mode="cloud", price_per_node_hour=10.0, max_nodes=1)
    p = project([workload(name="x", deadline_days=90, earliest_start_days=14)], period_days=7, horizon_months=4)
    res = solve_fixed(p, [o], {("x", "c", 1): 100})
    assert res.plan.total_cost == pytest.approx(1000.0)
    assert res.plan.assignments[0].start_day == pytest.approx(14.0)
    assert res.hybrid.solve.objective == pytest.approx(1000.0, abs=1e-9)  # read back without the tie-break


def test_contract_days_follow_delivery_and_releases():
    o = offer(id="r", mode="rent", price_per_node_month=1, min_term_months=1, lead_time_days=10)
    p = project(
        [workload(name="a", earliest_start_days=0), workload(name="b", earliest_start_days=40)],
        period_days=7,
        horizon_months=3,
    )
    # delivery day 10 → first period boundary day 14 (2027-01-15, 14 days after the 1st); b's release day 40 → day
    # 42 (2027-02-12, 11 days after the 1st)
    assert lattice.contract_phases(p, o) == pytest.approx((11.0, 14.0))
    # a month boundary of either lattice on or after delivery: the 12th and the 15th of each month (day 11 is b's
    # lattice, a month before day 42)
    days = contract_days(p, o)
    assert days[:4] == pytest.approx([11.0, 14.0, 42.0, 45.0])


def _tampered(res, **change):
    r = res.plan.rentals[0]
    return dataclasses.replace(res.plan, rentals=[dataclasses.replace(r, **change)])


def test_the_verifier_refuses_a_contract_before_delivery_and_a_phase_beyond_a_month():
    p, o, hours = _one_job(lead=14)
    res = solve_fixed(p, [o], hours)
    resize = None
    with pytest.raises(VerificationError, match="rent_lead"):
        verify_plan(p, {o.id: o}, _tampered(res, phase_days=3.0), resize)
    with pytest.raises(VerificationError, match="rent_phase"):
        verify_plan(p, {o.id: o}, _tampered(res, phase_days=31 + 14), resize)


def test_the_verifier_refuses_a_contract_that_ends_before_its_job():
    # the job runs day 14–54; a one-month contract from day 14 ends on day 44.4
    p, o, hours = _one_job(lead=14, days=40)
    res = solve_fixed(p, [o], hours)
    short = _tampered(res, months=1, cost=9000.0)
    with pytest.raises(VerificationError, match="capacity"):
        verify_plan(p, {o.id: o}, short, None)


def test_a_cny_project_on_the_bundled_catalog_rents_the_h800_from_its_delivery(tmp_path):
    # the bundled 14-day-lead H800 rental (3-month minimum) was contracted from day 0, before its delivery
    import json

    from helpers import ROOT, cli

    text = (ROOT / "examples" / "full-67b-60days.yaml").read_text()
    cny = (
        text.replace("currency: USD", "currency: CNY")
        .replace("team_region: us-east", "team_region: cn-east")
        .replace("electricity_price_per_kwh: 0.12", "electricity_price_per_kwh: 0.852")
    )
    cny += "allowed_modes: [rent]\nfx_rates: {USD: 7.1}\nfx_rates_date: 2026-11-30\nfx_rates_source: test rate\n"
    (tmp_path / "cny.yaml").write_text(cny)
    res = cli("solve", tmp_path / "cny.yaml", "--no-compare", "--runner-ups", "0", "--json", tmp_path / "x.json")
    assert res.exit_code == 0, res.output
    plan = json.loads((tmp_path / "x.json").read_text())
    h800 = [r for r in plan["rentals"] if r["offer"] == "rent-8x-h800-cn-east"]
    assert h800, plan["rentals"]
    assert all(r["start_day"] >= 14 for r in h800)
    assert all(a["start_day"] >= 14 for a in plan["assignments"] if a["offer"] == "rent-8x-h800-cn-east")


_FX = dict(fx_rates={"CNY": 0.14}, fx_rates_date="2026-11-20", fx_rates_source="test rates")


def _tiered_offers():
    tiers = offer(
        id="cny-tiers",
        mode="rent",
        currency="CNY",
        price_per_node_month=None,
        min_term_months=None,
        setup_fee_per_node=2000,
        term_prices="1:110000; 3:100000; 6:90000",
        max_nodes=4,
    )
    reserved = offer(
        id="rsv", mode="cloud", price_per_node_hour=20.0, commitment_months=6, upfront_per_node=15_000, max_nodes=2
    )
    flat = offer(id="flat", mode="rent", price_per_node_month=9000, min_term_months=2, lead_time_days=14, max_nodes=2)
    return tiers, reserved, flat


def test_a_contract_priced_by_its_term_rates_equals_its_cash_flows():
    from procure.solver import costs

    p = project([workload(name="j")], horizon_months=12, **_FX)
    for o in _tiered_offers():
        for term in costs.contract_terms(o):
            lengths = range(term.months, 13) if term.open_ended else [term.months]
            for months in lengths:
                for nodes in (1, 3):
                    c = costs.RentalContract(o.id, nodes, 12 - months, months, costs.signed_term_months(o, term), 3.0)
                    by_flows = costs.total(costs.rental_flows(o, c, p))
                    assert by_flows > 0
                    assert costs.rental_contract_cost(o, p, term, nodes, months) == pytest.approx(by_flows, rel=1e-12)


def test_the_cached_cover_is_the_one_worked_out_alone_for_every_node_count_and_start():
    from procure.solver.options import Grid, standalone_contracts

    p = project([workload(name="j", earliest_start_days=10)], period_days=1, horizon_months=12, **_FX)
    grid = Grid.of(p)
    cache: dict = {}
    checked = 0
    for o in _tiered_offers():
        for nodes in (1, 2, 3):
            for start in range(0, 330, 17):
                for hours in (24.0 * 10, 24.0 * 75, 24.0 * 200):
                    alone = standalone_contracts(p, grid, o, nodes, hours, float(start))
                    assert standalone_contracts(p, grid, o, nodes, hours, float(start), cache) == alone
                    checked += bool(alone)
    assert checked > 100  # most spans have a cover; the cache served every later one
