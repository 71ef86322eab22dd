"""After tax, worked by hand: each jurisdiction's tax depreciation, the after-tax objective that changes the
decision, the cloud plan whose after-tax cost is (1 − t) × its TCO, a 24-month rental as a lease, IRR and payback.

The calendar of the projects below (start 2027-01-01): month m begins on day ⌊m · 365/12⌋, so month 11 begins
2027-12-01, month 12 2028-01-01, month 24 2028-12-31 (2028 is a leap year) and month 35 2029-11-30. End-of-month discounting:
f_m = 1 / (1 + r_m)^(m+1), r_m = (1 + r)^(1/12) − 1.
"""

from __future__ import annotations

import datetime as dt
import shutil

import pytest

from procure.models.project import Project
from procure.solver import appraisal, costs
from procure.solver.enums import Objective
from procure.solver.verify_money import money_problems

from helpers import offer, project, solve_fixed

JOB = dict(name="a", model="llama-2-7b", method="full", tokens_b=1, deadline_days=60)
HOURS = 100.0  # compute hours of the job on one node, on any offer


def _f(rate: float, m: int) -> float:
    r_m = (1 + rate) ** (1 / 12) - 1
    return 1 / (1 + r_m) ** (m + 1)


def _project(**kw) -> Project:
    base = dict(currency="CNY", electricity_price_per_kwh=0, discount_rate=0.10, horizon_months=24)
    base.update(kw)
    return project([JOB], **base)


BUY = offer(
    mode="buy",
    id="b",
    price_per_node=100_000,
    residual_value_pct=0,
    maintenance_pct_per_year=0,
    colocation_per_node_month=0,
    max_nodes=1,
)


def _rent(price: float, months: int, setup: float = 0.0, **kw):
    return offer(
        mode="rent",
        id=kw.pop("id", "r"),
        price_per_node_month=price,
        min_term_months=months,
        setup_fee_per_node=setup,
        max_nodes=1,
        **kw,
    )


def _solve(p: Project, offers, objective: Objective):
    hours = {("a", o.id, 1): HOURS for o in offers}
    result = solve_fixed(p, offers, hours, objective=objective)
    plan = result.hybrid.plan
    assert plan is not None
    assert money_problems(p, {o.id: o for o in offers}, plan) == []  # the verifier's tax route agrees
    return result, plan


# --- the decision changes with the tax rule --------------------------------------------------------


def test_buying_wins_before_tax_renting_after_slow_tax_depreciation_buying_again_with_the_one_off():
    """Buy: 100,000 CNY paid in month 0, no resale, no running cost. Rent: 4,700 CNY a month for the whole 24-month
    horizon (a 24-month minimum term). At 10 %:
      before tax  buy 100,000·f0 = 99,209.6; rent 4,700·Σf = 102,3xx: buying wins;
      t = 25 %, straight line over 20 years: buy deducts 100,000/240 a month (24 months: 10,000) and the 90,000
        left at the sale (month 23, proceeds 0): 100,000·f0 − 0.25·416.67·Σf − 22,500·f23 ≈ 78,4xx; rent 0.75·rent:
        renting wins;
      one-off deduction (cn-one-off: 100,000 CNY ≤ 5M a server, bought 2027-01-01, deducted in the month after it
        is put in use, 国家税务总局公告2018年第46号): buy 100,000·f0 − 25,000·f1 wins."""
    rent = _rent(4_700, 24)
    offers = [BUY, rent]
    r = 0.10
    sum_f = sum(_f(r, m) for m in range(24))
    buy_pre, rent_pre = 100_000 * _f(r, 0), 4_700 * sum_f
    assert buy_pre < rent_pre

    _res, plan = _solve(_project(allowed_modes=["buy", "rent"]), offers, Objective.NPV)
    assert [pu.offer_id for pu in plan.purchases] == ["b"] and not plan.rentals
    assert plan.npv_cost == pytest.approx(buy_pre, abs=0.01)

    slow = _project(
        allowed_modes=["buy", "rent"], tax={"income_tax_rate": "25%", "depreciation": "straight-line", "life_years": 20}
    )
    _res, plan = _solve(slow, offers, Objective.AFTER_TAX_NPV)
    buy_after = 100_000 * _f(r, 0) - 0.25 * (100_000 / 240) * sum_f - 0.25 * (100_000 - 24 * 100_000 / 240) * _f(r, 23)
    rent_after = 0.75 * rent_pre
    assert rent_after < buy_after
    assert not plan.purchases and [x.offer_id for x in plan.rentals] == ["r"]
    assert plan.after_tax_npv == pytest.approx(rent_after, abs=0.01)

    one_off = _project(allowed_modes=["buy", "rent"], tax={"income_tax_rate": "25%", "depreciation": "cn-one-off"})
    _res, plan = _solve(one_off, offers, Objective.AFTER_TAX_NPV)
    assert [pu.offer_id for pu in plan.purchases] == ["b"]
    assert plan.after_tax_npv == pytest.approx(100_000 * _f(r, 0) - 25_000 * _f(r, 1), abs=0.01)
    assert 100_000 * _f(r, 0) - 25_000 * _f(r, 1) < rent_after


# --- mainland China: the one-off deduction against 3-year straight line ------------------------------------


def _buy_only(rule: str, price: float = 100_000, **kw):
    b = offer(
        mode="buy",
        id="b",
        price_per_node=price,
        residual_value_pct=0,
        maintenance_pct_per_year=0,
        colocation_per_node_month=0,
        max_nodes=1,
    )
    p = _project(allowed_modes=["buy"], tax={"income_tax_rate": "25%", "depreciation": rule}, **kw)
    return _solve(p, [b], Objective.AFTER_TAX_NPV)


def test_cn_one_off_against_straight_line_by_the_discounted_timing_difference():
    """Both deduct the whole 100,000 within the horizon, so both save 25,000 of tax undiscounted. The one-off
    saves it in month 1, the month after it is put in use (国家税务总局公告2018年第46号); the 3-year line (also
    from the month after, 实施条例 第五十九条) saves 0.25 · 100,000/36 in months 1…23 and the basis left,
    100,000 · 13/36, at the sale in month 23."""
    r = 0.10
    _res, once = _buy_only("cn-one-off")
    _res, line = _buy_only("cn-straight-line")
    assert once.ledger.tax_total() == pytest.approx(-25_000, abs=0.01)
    assert line.ledger.tax_total() == pytest.approx(-25_000, abs=0.01)
    month = 0.25 * 100_000 / 36
    assert line.ledger.tax_by_month("depreciation")[:3] == pytest.approx([0.0, -month, -month], abs=1e-6)
    assert line.ledger.tax_by_month("sale")[23] == pytest.approx(-0.25 * 100_000 * 13 / 36, abs=0.01)
    assert once.ledger.tax_by_month("depreciation")[:2] == pytest.approx([0.0, -25_000], abs=1e-6)
    pv_once = -25_000 * _f(r, 1)
    pv_line = -month * sum(_f(r, m) for m in range(1, 24)) - 0.25 * 100_000 * 13 / 36 * _f(r, 23)
    assert once.after_tax_npv - line.after_tax_npv == pytest.approx(pv_once - pv_line, abs=0.01)
    assert once.after_tax_npv < line.after_tax_npv


def test_cn_one_off_of_a_server_put_in_use_in_december_is_deducted_in_the_next_tax_year():
    """Delivered on day 340 (month 11, begins 2027-12-01): deducted in month 12 (2028-01-01), the tax year of the
    month after it is put in use."""
    b = offer(mode="buy", id="b", price_per_node=100_000, residual_value_pct=0, maintenance_pct_per_year=0,
              colocation_per_node_month=0, lead_time_days=340, max_nodes=1)  # fmt: skip
    p = project(
        [dict(JOB, earliest_start_days=340, deadline_days=400)],
        currency="CNY",
        electricity_price_per_kwh=0,
        horizon_months=24,
        allowed_modes=["buy"],
        tax={"income_tax_rate": "25%", "depreciation": "cn-one-off"},
    )
    _res, plan = _solve(p, [b], Objective.AFTER_TAX_NPV)
    dep = plan.ledger.tax_by_month("depreciation")
    assert dep[11] == 0.0 and dep[12] == pytest.approx(-25_000, abs=1e-6)
    assert costs.month_start_date(p, 11) == dt.date(2027, 12, 1) and costs.month_start_date(p, 12) == dt.date(
        2028, 1, 1
    )


def test_macrs_gives_nothing_when_bought_and_sold_in_one_tax_year():
    """A 6-month horizon from 2027-01-01: the server is bought (month 0) and sold (month 5) in 2027, so MACRS allows no
    depreciation (IRS Publication 946); the sale deducts the whole basis as a loss: 21 % of (0 − 100,000)."""
    b = offer(mode="buy", id="b", price_per_node=100_000, residual_value_pct=0, maintenance_pct_per_year=0,
              colocation_per_node_month=0, max_nodes=1)  # fmt: skip
    p = project([JOB], electricity_price_per_kwh=0, horizon_months=6, allowed_modes=["buy"],
                tax={"income_tax_rate": "21%", "depreciation": "us-macrs-5"})  # fmt: skip
    _res, plan = _solve(p, [b], Objective.AFTER_TAX_NPV)
    assert plan.ledger.tax_total("depreciation") == 0.0
    assert plan.ledger.tax_by_month("sale")[5] == pytest.approx(-21_000, abs=0.01)


def test_cn_one_off_falls_back_to_the_straight_line_above_its_cap_and_after_its_dates():
    """6,000,000 CNY a server is above the 5,000,000 cap; a server put in use on 2028-01-01 is after 2027-12-31:
    both are deducted as cn-straight-line would."""
    _res, capped = _buy_only("cn-one-off", price=6_000_000)
    _res, line = _buy_only("cn-straight-line", price=6_000_000)
    assert capped.ledger.tax_by_month() == pytest.approx(line.ledger.tax_by_month(), abs=1e-6)
    _res, late = _buy_only("cn-one-off", start_date=dt.date(2028, 1, 1))
    assert late.ledger.tax_by_month("depreciation")[0] == 0.0
    assert late.ledger.tax_by_month("depreciation")[1] == pytest.approx(-0.25 * 100_000 / 36, abs=1e-6)


# --- United States: MACRS 5-year, half-year convention ------------------------------------------------------


def test_us_macrs_five_year_by_hand():
    """A server of 100,000 USD delivered on day 40 (2027-02-10, month 1: February) and sold at the horizon end (36
    months: month 35 is 2029-12) for 30 % of its price. MACRS 5-year half-year (IRS Pub 946 Table A-1): 2027
    20 % over the 11 months held (1…11, February to December); 2028 32 % over its 12 months (12…23); 2029, the year
    of the sale, half of 19.2 % over its 12 months (24…35); deducted 61,600; the sale's gain 30,000 − 38,400 =
    −8,400 saves 21 % of it."""
    b = offer(
        mode="buy",
        id="b",
        price_per_node=100_000,
        residual_value_pct="30%",
        maintenance_pct_per_year=0,
        colocation_per_node_month=0,
        lead_time_days=40,
        max_nodes=1,
    )
    p = project(
        [dict(JOB, deadline_days=90)],
        electricity_price_per_kwh=0,
        discount_rate=0.08,
        horizon_months=36,
        allowed_modes=["buy"],
        tax={"income_tax_rate": "21%", "depreciation": "us-macrs-5"},
        wacc="9%",
    )
    _res, plan = _solve(p, [b], Objective.AFTER_TAX_NPV)
    dep = plan.ledger.tax_by_month("depreciation")
    want = [0.0] + [-0.21 * 20_000 / 11] * 11 + [-0.21 * 32_000 / 12] * 12 + [-0.21 * 9_600 / 12] * 12
    assert dep == pytest.approx(want, abs=1e-6)
    sale = plan.ledger.tax_by_month("sale")
    assert sale[35] == pytest.approx(0.21 * (30_000 - 38_400), abs=0.01)
    # after-tax NPV at the wacc (9 %), not the discount rate: capex −100,000 in month 1, resale 30,000 in month 35
    pv = 100_000 * _f(0.09, 1) - 30_000 * _f(0.09, 35)
    pv += sum(v * _f(0.09, m) for m, v in enumerate(want)) + sale[35] * _f(0.09, 35)
    assert plan.after_tax_npv == pytest.approx(pv, abs=0.01)


# --- a cloud-only plan ------------------------------------------------------------------------------------


def test_cloud_only_after_tax_cost_is_one_minus_t_of_its_tco():
    """100 node-hours at 30 CNY = 3,000 CNY; every yuan is deductible when paid: 0.75 · 3,000 = 2,250 CNY."""
    c = offer(mode="cloud", id="c", price_per_node_hour=30.0)
    p = _project(allowed_modes=["cloud"], tax={"income_tax_rate": "25%", "depreciation": "straight-line"})
    result, plan = _solve(p, [c], Objective.AFTER_TAX_NPV)
    assert plan.total_cost == pytest.approx(3_000, abs=0.01)
    assert plan.after_tax_total == pytest.approx(2_250, abs=0.01)
    at = appraisal.after_tax(plan)
    assert at is not None and at.tax_saved == pytest.approx(750, abs=0.01)
    assert appraisal.investment(result, "hybrid") is None  # it buys nothing: no investment to pay back


# --- leases --------------------------------------------------------------------------------------------------


def test_a_24_month_rental_is_a_lease_on_the_balance_sheet():
    """10,000 CNY a month for 24 months from month 0, a 2,000 setup fee, IBR 6 % a year: i = 1.06^(1/12) − 1,
    liability L = 10,000 · (1 − (1 + i)^−24) / i, asset L + 2,000 depreciated over 24 months; interest of month 0
    L·i; the liability is paid off by the last payment. A 12-month contract stays off the balance sheet."""
    p = _project(allowed_modes=["rent"], incremental_borrowing_rate="6%")
    _res, plan = _solve(p, [_rent(10_000, 24, setup=2_000)], Objective.TCO)
    assert len(plan.ledger.leases) == 1
    _j, lb = plan.ledger.leases[0]
    i = 1.06 ** (1 / 12) - 1
    L = 10_000 * (1 - (1 + i) ** -24) / i
    assert lb.liability == pytest.approx(L, abs=0.01)
    assert lb.asset == pytest.approx(L + 2_000, abs=0.01)
    assert lb.interest[0] == pytest.approx(L * i, abs=0.01)
    assert lb.depreciation[5] == pytest.approx((L + 2_000) / 24, abs=0.01)
    assert lb.closing[23] == pytest.approx(0.0, abs=0.01)
    assert sum(lb.interest.values()) == pytest.approx(24 * 10_000 - L, abs=0.01)
    rent, dep, interest = plan.ledger.lease_years()[0]
    assert rent == pytest.approx(12 * 10_000 + 2_000, abs=0.01)
    assert dep == pytest.approx(12 * (L + 2_000) / 24, abs=0.01)

    short = _project(allowed_modes=["rent"], horizon_months=12)
    _res, plan = _solve(short, [_rent(10_000, 12)], Objective.TCO)
    assert plan.rentals and not plan.ledger.leases


def test_a_cloud_service_is_not_a_lease_unless_the_offer_says_so():
    assert not costs.is_lease(offer(mode="cloud", commitment_months=24))
    assert costs.is_lease(offer(mode="cloud", commitment_months=24, lease=True))
    assert costs.is_lease(offer(mode="rent"))
    assert not costs.is_lease(offer(mode="rent", lease=False))
    with pytest.raises(ValueError, match="lease is for rent and cloud offers"):
        offer(mode="buy", lease=True)


# --- IRR and payback ----------------------------------------------------------------------------------------


def test_irr_and_payback_by_hand():
    # −100 then +110 a month later: 10 % a month, (1.1)^12 − 1 a year
    assert costs.irr_monthly([-100.0, 110.0]) == pytest.approx(0.10, abs=1e-9)
    assert costs.annual_rate(0.10) == pytest.approx(1.1**12 - 1, abs=1e-12)
    assert costs.irr_monthly([100.0, 50.0]) is None  # never changes sign: no IRR
    # cumulative −100, −70, −40, −10, +20: the last negative month end is month 3's, so 4 + 10/30 months
    assert costs.payback_months([-100.0, 30.0, 30.0, 30.0, 30.0]) == pytest.approx(4 + 10 / 30, abs=1e-12)
    assert costs.payback_months([-100.0, 30.0, 30.0]) is None
    assert costs.payback_months([10.0, 5.0]) == 0.0
    # discounted at 1 %/month factors 1/1.01^(m+1): −99.0099, +29.4059, +29.1148, +28.8265, +28.5411
    f = [1 / 1.01 ** (m + 1) for m in range(5)]
    cum = -100 * f[0] + 30 * (f[1] + f[2] + f[3])
    assert costs.payback_months([-100.0, 30.0, 30.0, 30.0, 30.0], f) == pytest.approx(4 + -cum / (30 * f[4]), abs=1e-12)


def test_buy_case_by_hand():
    """Buy (100,000 in month 0, deducted in month 1) against rent (4,700 a month) after tax (25 %, one-off): the
    incremental flow is rent's after-tax cost − buy's each month: month 0 0.75·4,700 − 100,000, month 1
    0.75·4,700 + 25,000, then 0.75·4,700 = 3,525 a month."""
    p = _project(allowed_modes=["buy", "rent"], tax={"income_tax_rate": "25%", "depreciation": "cn-one-off"})
    offers = [BUY, _rent(4_700, 24)]
    hours = {("a", o.id, 1): HOURS for o in offers}
    result = solve_fixed(p, offers, hours, objective=Objective.AFTER_TAX_NPV, compare=True)
    case = appraisal.buy_case(result)
    assert case is not None and case.against in ("rent", "cloud")
    inc = [3_525 - 100_000, 3_525 + 25_000] + [3_525] * 22
    assert list(case.incremental) == pytest.approx(inc, abs=0.01)
    assert case.irr_monthly == pytest.approx(costs.irr_monthly(inc), abs=1e-9)
    # cumulative: −96,475 after month 0, −67,950 after month 1, then +3,525 a month: −975 after month 20
    # (−67,950 + 19·3,525), +2,550 after month 21: payback 21 + 975 / 3,525 months
    assert case.payback_months == pytest.approx(21 + 975 / 3_525, abs=1e-9)
    assert case.npv_saving == pytest.approx(sum(v * _f(0.10, m) for m, v in enumerate(inc)), abs=0.01)


# --- bad input ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tax", "extra", "message"),
    [
        ({"income_tax_rate": "25%", "depreciation": "cn-fast"}, {}, "not a known rule; allowed: cn-one-off"),
        ({"income_tax_rate": "25%", "depreciation": "cn-straight-line", "life_years": 2}, {}, "below the minimum"),
        ({"income_tax_rate": "25%", "depreciation": "us-macrs-5", "life_years": 4}, {}, "does not go with us-macrs-5"),
        ({"income_tax_rate": "125%", "depreciation": "straight-line"}, {}, "income_tax_rate"),
    ],
)
def test_bad_tax_sections_are_refused_with_what_is_allowed(tax, extra, message):
    with pytest.raises(ValueError, match=message):
        project([JOB], tax=tax, **extra)


# --- VAT on services ------------------------------------------------------------------------------------------


def test_vat_on_rent_and_cloud_is_a_cost_when_not_recoverable():
    """Not recoverable: cloud at 30 CNY a node-hour with 6 % VAT (IT services) for 100 h: 3,000 + 180 = 3,180;
    a one-month rental at 10,000 with 13 % VAT (leases of movable goods): 10,000 + 1,300 = 11,300. Recoverable:
    VAT is no cost."""
    from procure.reports.focus import cost_rows

    cloud = offer(mode="cloud", id="c", price_per_node_hour=30.0, vat_pct="6%")
    p = _project(allowed_modes=["cloud"], vat_recoverable=False)
    result, plan = _solve(p, [cloud], Objective.TCO)
    vat = plan.ledger["vat:c:cloud"]
    assert vat.kind == "service_vat" and vat.quantity == pytest.approx(3_000) and vat.rate == pytest.approx(0.06)
    assert vat.amount == pytest.approx(180, abs=0.01)
    assert plan.total_cost == pytest.approx(3_180, abs=0.01)
    rows = cost_rows(result)
    assert sum(r["EffectiveCost"] for r in rows) == pytest.approx(3_180, abs=0.01)
    assert sum(r["EffectiveCost"] for r in rows if r["ChargeCategory"] == "Tax") == pytest.approx(180, abs=0.01)

    rent = _rent(10_000, 1, vat_pct="13%")
    p = _project(allowed_modes=["rent"], vat_recoverable=False)
    _res, plan = _solve(p, [rent], Objective.TCO)
    assert plan.ledger["vat:r:rent"].amount == pytest.approx(1_300, abs=0.01)
    assert plan.total_cost == pytest.approx(11_300, abs=0.01)

    _res, plan = _solve(_project(allowed_modes=["rent"]), [rent], Objective.TCO)
    assert plan.ledger.get("vat:r:rent") is None and plan.total_cost == pytest.approx(10_000, abs=0.01)


def test_vat_on_services_changes_the_choice():
    """Cloud 3,000 + 6 % = 3,180 against rent 2,900 + 13 % = 3,277: VAT makes the cloud the cheaper; recovered,
    the rent (2,900 against 3,000) is."""
    cloud = offer(mode="cloud", id="c", price_per_node_hour=30.0, vat_pct="6%")
    rent = _rent(2_900, 1, vat_pct="13%")
    _res, plan = _solve(_project(allowed_modes=["rent", "cloud"], vat_recoverable=False), [cloud, rent], Objective.TCO)
    assert plan.total_cost == pytest.approx(3_180, abs=0.01) and not plan.rentals
    _res, plan = _solve(_project(allowed_modes=["rent", "cloud"]), [cloud, rent], Objective.TCO)
    assert plan.total_cost == pytest.approx(2_900, abs=0.01) and plan.rentals


# --- the workbook, recalculated by LibreOffice ---------------------------------------------------------------


@pytest.mark.soffice
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed")
def test_the_lease_vs_buy_sheet_recalculates_to_the_json(tmp_path):
    """Buy against a 24-month rental after tax (cn-one-off) and a 24-month lease: LibreOffice recomputes the
    sheet's IRR (Excel IRR), after-tax NPV, the incremental NPV and the lease liability (PV) from their inputs;
    each equals the JSON's: rates to 1e-6, amounts to the cent the JSON rounds them to."""
    import openpyxl

    from procure.reports.json_report import result_to_json
    from procure.reports.xlsx.workbook import write_workbook

    from helpers import recalculated

    p = _project(
        allowed_modes=["buy", "rent"],
        tax={"income_tax_rate": "25%", "depreciation": "cn-one-off"},
        incremental_borrowing_rate="6%",
    )
    offers = [BUY, _rent(4_700, 24, setup=500)]
    hours = {("a", o.id, 1): HOURS for o in offers}
    result = solve_fixed(p, offers, hours, objective=Objective.AFTER_TAX_NPV, compare=True)
    doc = result_to_json(result)
    lvb = doc["lease_vs_buy"]
    assert lvb is not None and lvb["irr_monthly"] is not None
    path = tmp_path / "lvb.xlsx"
    write_workbook(result, path)
    wb = openpyxl.load_workbook(recalculated(path, tmp_path), data_only=True)

    def named(name: str) -> float:
        (sheet, ref), *_ = wb.defined_names[name].destinations
        return wb[sheet][ref.replace("$", "")].value

    assert named("buy_irr_monthly") == pytest.approx(lvb["irr_monthly"], abs=1e-6)
    assert named("after_tax_npv") == pytest.approx(doc["after_tax"]["npv"], abs=0.006)
    ws = wb["Lease vs buy"]
    rows = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1)}
    npv_row = rows["NPV of buying's saving at the after-tax rate"]
    assert ws.cell(npv_row, 3).value == pytest.approx(lvb["npv_saving"], abs=0.006)
    irr_year = rows["IRR a year, (1 + IRR)^12 − 1"]
    assert ws.cell(irr_year, 3).value == pytest.approx(lvb["irr"], abs=1e-6)
    assert not doc["leases"]  # the plan buys

    # renting only, 24 months: the lease liability recomputed by PV at the monthly IBR, the asset with the setup fee
    rent_only = p.model_copy(update={"allowed_modes": ["rent"]})
    result = solve_fixed(rent_only, offers, hours, objective=Objective.AFTER_TAX_NPV)
    doc = result_to_json(result)
    (lease,) = doc["leases"]
    i = 1.06 ** (1 / 12) - 1
    assert lease["liability"] == pytest.approx(4_700 * (1 - (1 + i) ** -24) / i, abs=0.006)
    path = tmp_path / "lease.xlsx"
    write_workbook(result, path)
    ws = openpyxl.load_workbook(recalculated(path, tmp_path), data_only=True)["Lease vs buy"]
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "rent0")
    assert ws.cell(row, 6).value == pytest.approx(lease["liability"], abs=0.006)
    assert ws.cell(row, 7).value == pytest.approx(lease["right_of_use_asset"], abs=0.006)
    assert ws.cell(row, 7).value - ws.cell(row, 6).value == pytest.approx(500, abs=1e-6)


def test_deferred_tax_is_the_book_less_the_tax_rule_and_reverses_by_the_sale():
    """The one-off deduction (100,000 in month 1) against book depreciation over 5 years (100,000/60 a month): year
    1's P&L cost is 12 · 1,666.67 = 20,000, its tax expense −5,000, its current tax −25,000 (the deduction), so its
    deferred tax is +20,000; year 2 books 20,000 more depreciation and the 60,000 book value left is lost at the
    sale (resale 0): P&L cost 80,000, expense −20,000, current 0, deferred −20,000. Σ deferred = 0."""
    _res, plan = _buy_only("cn-one-off")
    (c1, d1), (c2, d2) = plan.ledger.tax_years()
    assert [py.cost for py in plan.pnl] == pytest.approx([20_000, 80_000], abs=0.01)
    assert (c1, d1) == pytest.approx((-25_000, 20_000), abs=0.01)
    assert (c2, d2) == pytest.approx((0.0, -20_000), abs=0.01)


@pytest.mark.parametrize(
    ("signed", "months", "first", "opening", "closing"),
    [
        # signed at the start for 36 months, the horizon 24: all 36 payments are the lease; 12 are still owed at its end
        (dt.date(2027, 1, 1), 36, 0, 36, 12),
        # signed in month 12 (2028-01-01) for 36 months: 12 of them lie in the horizon, the lease is 36 months long
        (dt.date(2028, 1, 1), 36, 12, 0, 24),
        # signed 8 months before the start for 24: the lease began then; 16 payments are owed at the start
        (dt.date(2026, 5, 5), 24, -8, 16, 0),
    ],
)
def test_a_signed_lease_is_booked_over_its_whole_schedule(signed, months, first, opening, closing):
    """10,000 a month, IBR 6 %: the liability at commencement is the PV of every signed payment, whatever part of
    them lies in the 24-month horizon; the liability at the project start and at its end is the PV of the payments
    still owed then (an annuity of that many months)."""
    i = 1.06 ** (1 / 12) - 1

    def annuity(n: int) -> float:
        return 10_000 * (1 - (1 + i) ** -n) / i

    r = _rent(10_000, 1)
    p = _project(
        allowed_modes=["rent"],
        incremental_borrowing_rate="6%",
        commitments=[{"offer": "r", "nodes": 1, "start_date": signed, "months": months}],
    )
    _res, plan = _solve(p, [r], Objective.TCO)
    (j, lb), *_ = [(j, lb) for j, lb in plan.ledger.leases]
    assert lb.first_month == first
    assert lb.liability == pytest.approx(annuity(months), abs=0.01)
    assert lb.liability_before(0) == pytest.approx(annuity(opening) if opening else 0.0, abs=0.01)
    assert lb.liability_before(24) == pytest.approx(annuity(closing) if closing else 0.0, abs=0.01)
    assert len(lb.depreciation) == months


def test_net_advantage_to_leasing_discounts_debt_like_flows_at_the_after_tax_cost_of_debt():
    """cost_of_debt 6 %, t 25 %: r_d·(1 − t) = 4.5 %. Buying's flows are all debt-like (the price, its one-off tax
    shield; no resale, so no salvage), renting's too (the rent and its tax shield): NAL = PV at 4.5 % of buy − rent
    = 100,000·g0 − 25,000·g1 − 3,525·Σg. Without cost_of_debt the NAL falls back to the 10 % NPV rate and equals
    −(NPV saving)."""
    offers = [BUY, _rent(4_700, 24)]
    hours = {("a", o.id, 1): HOURS for o in offers}
    tax = {"income_tax_rate": "25%", "depreciation": "cn-one-off"}
    p = _project(allowed_modes=["buy", "rent"], tax=tax, cost_of_debt="6%")
    case = appraisal.buy_case(solve_fixed(p, offers, hours, objective=Objective.AFTER_TAX_NPV, compare=True))
    assert case is not None and case.nal_rate == pytest.approx(0.045) and case.nal_rate_is_debt
    g = [_f(0.045, m) for m in range(24)]
    assert case.nal == pytest.approx(100_000 * g[0] - 25_000 * g[1] - 3_525 * sum(g), abs=0.01)
    p = _project(allowed_modes=["buy", "rent"], tax=tax)
    case = appraisal.buy_case(solve_fixed(p, offers, hours, objective=Objective.AFTER_TAX_NPV, compare=True))
    assert case is not None and not case.nal_rate_is_debt and case.nal == pytest.approx(-case.npv_saving, abs=1e-6)


def test_irr_notes_say_why_there_is_none_or_that_there_may_be_several():
    from procure.reports.finance_report import NO_IRR, NO_IRR_FOUND, SEVERAL_IRR, irr_note

    def case(values):
        irr = costs.irr_monthly(values)
        return appraisal.BuyCase(
            "buy", "rent", tuple(values), irr, None if irr is None else costs.annual_rate(irr), None, None, 0.0, 0.0,
            0.1, False, None, None, costs.sign_changes(values),
        )  # fmt: skip

    assert costs.sign_changes([-1.0, 0.0, 2.0, -3.0]) == 2
    assert irr_note(case([5.0, 5.0])) == NO_IRR
    assert irr_note(case([100.0, -300.0, 250.0])) == NO_IRR_FOUND  # two sign changes, no real root
    # −100, +230, −132: roots at 10 % and 20 % a month
    several = case([-100.0, 230.0, -132.0])
    assert several.irr_monthly in (pytest.approx(0.1), pytest.approx(0.2)) and irr_note(several) == SEVERAL_IRR
    assert irr_note(case([-100.0, 110.0])) is None


def test_the_after_tax_objective_without_a_tax_section_is_refused_on_every_door(tmp_path):
    """The command line and the Python API alike: a clear message naming the field, exit code 1, no traceback."""
    import yaml

    from procure import api
    from procure.common.errors import InputError

    from helpers import cli

    doc = {"name": "x", "workloads": [JOB], "offers": ["offers.yaml"]}
    (tmp_path / "offers.yaml").write_text(
        yaml.safe_dump({"offers": [offer(mode="cloud", id="c").model_dump(mode="json", exclude_none=True)]})
    )
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(doc))
    r = cli("solve", str(tmp_path / "w.yaml"), "--objective", "after_tax_npv")
    assert r.exit_code == 1 and "needs a tax section" in r.output
    with pytest.raises(InputError, match="needs a tax section"):
        api.solve(
            {k: v for k, v in doc.items() if k != "offers"}, offers=tmp_path / "offers.yaml", objective="after_tax_npv"
        )


def test_a_cap_in_another_currency_needs_its_exchange_rate(tmp_path):
    """cn-one-off caps a server at 5,000,000 CNY: a USD project without a CNY rate is told which rate is missing and
    why (exit 1, nothing written)."""
    import yaml

    from helpers import cli

    (tmp_path / "offers.yaml").write_text(
        yaml.safe_dump({"offers": [offer(mode="cloud", id="c").model_dump(mode="json", exclude_none=True)]})
    )
    doc = {"name": "x", "workloads": [JOB], "offers": ["offers.yaml"]}
    doc["tax"] = {"income_tax_rate": "25%", "depreciation": "cn-one-off"}
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(doc))
    r = cli("solve", str(tmp_path / "w.yaml"), "--out", str(tmp_path / "r.xlsx"))
    assert r.exit_code == 1
    assert "fx_rates.CNY" in r.output and "cn-one-off caps a server at 5,000,000 CNY" in r.output
    assert not (tmp_path / "r.xlsx").exists()


def test_an_irr_beyond_100_pct_a_month_is_not_reported_the_root_nearest_0_is():
    """Flows with two IRRs, 10 % and 300 % a month: Σ v_m x^m with x = 1/(1+r) has roots x = 1/1.1 and 1/4, so
    v = (x − 1/1.1)(x − 1/4) = 1/4.4 − (1/1.1 + 1/4)·x + x². The IRR reported is 10 %, whichever root a solver
    meets first; flows whose only roots lie beyond +100 % a month have none."""
    from procure.solver import costs

    a, b = 1 / 1.1, 0.25
    values = [a * b, -(a + b), 1.0]
    assert costs.irr_monthly(values) == pytest.approx(0.1, abs=1e-9)
    a = 1 / 4.0  # one root only, at 300 % a month: (x − 1/4) · (x + 2), the other x is negative (no rate)
    values = [-2 * a, 2 - a, 1.0]
    assert costs.irr_monthly(values) is None
