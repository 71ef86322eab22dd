"""Calendar months and fiscal years (issue 53 §1), worked by hand.

A project that starts on 2027-01-04 has month 0 = 2027-01-04 … 2027-01-31 (28 of January's 31 days), then the
calendar months; three months end on 2027-04-01, day 87. A price per month over part of one is paid by its days;
a rental's months are its own anniversary months (2027-01-14 → 2027-02-14 → …), each paid in full in the month
it begins."""

from __future__ import annotations

import datetime as dt

import pytest

from procure.reports.focus import commitment_rows, cost_rows
from procure.solver.verify_money import money_problems

from helpers import offer, project, solve_fixed, workload

START = dt.date(2027, 1, 4)


def _bought(**kw):
    """One node bought on day 0 for 100,000 with colocation 1,240 a node-month, nothing else priced; staff of one
    FTE at 120,000 a year (10,000 a month) for the bought node; a 100-hour job on it."""
    b = offer(
        mode="buy",
        id="b",
        price_per_node=100_000,
        residual_value_pct=0,
        maintenance_pct_per_year=0,
        colocation_per_node_month=1_240,
        max_nodes=1,
    )
    p = project(
        [workload(name="j", deadline_days=60)],
        start_date=START,
        horizon_months=3,
        electricity_price_per_kwh=0,
        staff={"nodes_per_fte": 1, "cost_per_fte_year": 120_000, "modes": ["buy"]},
        **kw,
    )
    return p, [b], {("j", "b", 1): 100.0}


def test_a_plan_starting_mid_month_is_billed_in_calendar_months_to_the_cent():
    p, offers, hours = _bought()
    assert p.horizon_days == 87  # 28 + 28 + 31 days: 2027-01-04 to 2027-04-01
    res = solve_fixed(p, offers, hours)
    assert res.status == "optimal"  # verified inside: the verifier's own calendar agrees
    plan = res.plan
    # colocation: 1,240 × 28/31 = 1,120.00 in January, then 1,240 in February and in March
    colocation = plan.ledger["buy:b:colocation"].amounts
    assert [m for m, _v in colocation] == [0, 1, 2]
    assert [v for _m, v in colocation] == pytest.approx([1_120.00, 1_240.0, 1_240.0])
    assert plan.ledger["buy:b:colocation"].quantity == pytest.approx(2 + 28 / 31)
    # staff: 10,000 × 28/31 = 9,032.26 in January, 10,000 a month after
    staff = dict(plan.ledger["staff"].amounts)
    assert round(staff[0], 2) == 9_032.26 and staff[1] == pytest.approx(10_000) and staff[2] == pytest.approx(10_000)
    by_month = [round(v, 2) for v in plan.ledger.by_month()]
    assert by_month == [100_000 + 1_120.00 + 9_032.26, 11_240.00, 11_240.00]
    assert round(plan.total_cost, 2) == 100_000 + 1_120.00 + 2 * 1_240 + 9_032.26 + 20_000


def test_a_contract_that_begins_mid_month_pays_its_own_months():
    """A rental delivered on day 10 (2027-01-14), 10,000 a node-month: a 40-day job needs two contract months,
    2027-01-14 → 2027-02-14 → 2027-03-14, paid in January and February (project months 0 and 1)."""
    r = offer(mode="rent", id="r", price_per_node_month=10_000, min_term_months=1, lead_time_days=10, max_nodes=1)
    p = project([workload(name="j", deadline_days=80)], start_date=START, horizon_months=3, period_days=1)
    res = solve_fixed(p, [r], {("j", "r", 1): 40 * 24.0})
    (c,) = res.plan.rentals
    assert (c.start_month, c.months, c.phase_days) == (0, 2, 13.0)  # 13 days after January's 1st
    assert c.start_day == 10.0 and c.end_day == (dt.date(2027, 3, 14) - START).days
    assert res.plan.ledger["rent0:rent"].amounts == ((0, 10_000.0), (1, 10_000.0))
    (row,) = commitment_rows(res)
    assert (row["ContractPeriodStart"], row["ContractPeriodEnd"]) == ("2027-01-14T00:00:00Z", "2027-03-14T00:00:00Z")


def test_a_contract_from_the_31st_runs_to_the_months_last_day():
    from procure.models.calendar import add_months, calendar

    assert add_months(dt.date(2027, 1, 31), 1) == dt.date(2027, 2, 28)
    assert add_months(dt.date(2027, 1, 31), 2) == dt.date(2027, 3, 31)  # from the signing day, not from Feb 28
    assert add_months(dt.date(2028, 1, 31), 1) == dt.date(2028, 2, 29)
    cal = calendar(dt.date(2027, 1, 1))
    # phase 30 (the 31st) in February is its last day, 2027-02-28 (day 58)
    assert cal.anniversary(30.0, 1) == 58 and cal.anniversary(30.0, 2) == 89
    assert cal.lattice_month(30.0, 58.5) == 1 and cal.lattice_month(30.0, 57.5) == 0


def test_a_fiscal_year_starting_in_april():
    """18 months from 2027-01-04, fiscal years from April: FY2026/27 is months 0–2 (January to March), FY2027/28
    months 3–14, FY2028/29 months 15–17. The P&L splits the costs there: colocation 1,120 + 2 × 1,240 = 3,600 and
    staff 9,032.26 + 20,000 in the first; 12 × (1,240 + 10,000) in the second; 3 × 11,240 in the third."""
    p, offers, hours = _bought(fiscal_year_start_month=4)
    p = p.model_copy(update={"horizon_months": 18})
    res = solve_fixed(p, offers, hours)
    pnl = res.plan.pnl
    assert [(y.label, y.months) for y in pnl] == [
        ("FY2026/27", (0, 3)),
        ("FY2027/28", (3, 15)),
        ("FY2028/29", (15, 18)),
    ]
    assert [round(y.operating, 2) for y in pnl] == [3_600.00 + 29_032.26, 12 * 11_240.00, 3 * 11_240.00]
    # the purchase is depreciated from month 0 over 5 years: 100,000 / 60 a month
    assert [round(y.depreciation, 2) for y in pnl] == [round(100_000 / 60 * k, 2) for k in (3, 12, 3)]
    assert sum(y.cost for y in pnl) == pytest.approx(res.plan.total_cost)
    assert money_problems(p, {o.id: o for o in offers}, res.plan) == []
    calendar_years = solve_fixed(*_bought())  # January: the calendar year
    assert [y.label for y in calendar_years.plan.pnl] == ["FY2027"]


def test_focus_rows_of_a_plan_from_2027_01_04_lie_in_calendar_months_and_add_up_to_the_tco():
    p, offers, hours = _bought()
    r = offer(mode="rent", id="r", price_per_node_month=10_000, min_term_months=1, lead_time_days=10, max_nodes=1)
    c = offer(mode="cloud", id="c", price_per_node_hour=30.0, storage_per_tb_month=20.0)
    p = p.model_copy(
        update={"workloads": [*p.workloads, p.workloads[0].model_copy(update={"name": "k", "dataset_tb": 1.0})]}
    )
    hours = {**hours, ("k", "c", 1): 500.0, ("k", "r", 1): 40 * 24.0}
    res = solve_fixed(p, [*offers, r, c], hours)
    rows = cost_rows(res)
    assert sum(x["EffectiveCost"] for x in rows) == pytest.approx(res.plan.total_cost, abs=0.005)
    for x in rows:
        a = dt.date.fromisoformat(x["ChargePeriodStart"][:10])
        b = dt.date.fromisoformat(x["ChargePeriodEnd"][:10])
        bill = dt.date.fromisoformat(x["BillingPeriodStart"][:10])
        assert a < b and b.day == 1 and (b.year * 12 + b.month) - (a.year * 12 + a.month) == 1  # within one month
        assert bill == a.replace(day=1) and x["BillingPeriodEnd"] == x["ChargePeriodEnd"]
    firsts = {x["ChargePeriodStart"] for x in rows}
    assert "2027-01-04T00:00:00Z" in firsts and "2027-01-01T00:00:00Z" not in firsts
    assert {x["BillingPeriodStart"] for x in rows if x["ChargePeriodStart"].startswith("2027-01")} == {
        "2027-01-01T00:00:00Z"
    }
