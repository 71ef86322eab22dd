"""Quotes as finance teams receive them, on tiny cases worked out by hand: term-tiered rent, volume-tiered
purchases, reserved cloud, financing, depreciation and the P&L, currencies, percent fields, templates.

Hours per shape are fixed (planner_fixtures) so every expected figure follows from the quoted prices;
the arithmetic is in each test. Electricity is 0 unless stated, so owned servers cost only what is quoted.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import math

import openpyxl
import pytest
from pydantic import ValidationError

from procure.common.errors import InputError
from procure.models.money import Financing
from procure.offers.catalog import check_currencies, load_catalog, write_template
from procure.reports.json_report import result_to_json
from procure.solver import costs

from helpers import offer, project, solve_fixed


def wl(name, deadline, earliest=0):
    return dict(
        name=name, model="llama-2-7b", method="full", tokens_b=1, deadline_days=deadline, earliest_start_days=earliest
    )


def bare_buy(**kw):
    base = dict(mode="buy", id="b", residual_value_pct=0, maintenance_pct_per_year=0, colocation_per_node_month=0)
    base.update(kw)
    return offer(**base)


# --- 1. term-tiered rent ---------------------------------------------------------------------------

# A 7-month job: 200 days from day 0 run through months 0–6 (6 × 365/12 = 182.5 < 200 < 212.9).
SEVEN_MONTHS_H = 200 * 24


def _tiered(prices: str):
    return offer(
        mode="rent",
        id="r",
        max_nodes=1,
        price_per_node_month=None,
        min_term_months=None,
        term_prices=prices,
        setup_fee_per_node=0,
    )


def test_seven_month_job_pays_the_six_month_rate_for_all_seven_months():
    # tiers 1: 3,200, 6: 2,900, 12: 2,600 per node-month, each a minimum length:
    #   one 7-month contract at the 6-month tier = 7 × 2,900           = 20,300
    #   6-month + 1-month contracts               = 6 × 2,900 + 3,200    = 20,600
    #   one 12-month contract                     = 12 × 2,600           = 31,200
    #   seven months at the 1-month rate          = 7 × 3,200            = 22,400
    p = project([wl("a", 210)], electricity_price_per_kwh=0, horizon_months=12)
    res = solve_fixed(p, [_tiered("1:3200; 6:2900; 12:2600")], {("a", "r", 1): SEVEN_MONTHS_H}, compare=False)
    assert res.status == "optimal"
    assert res.plan.total_cost == pytest.approx(20_300)
    assert [(r.start_month, r.months, r.term_months, r.price_per_node_month) for r in res.plan.rentals] == [
        (0, 7, 6, 2_900)
    ]
    js = result_to_json(res)
    assert [r["price_per_node_month"] for r in js["rentals"]] == [2_900]


def test_sixteen_month_job_is_one_contract_at_the_twelve_month_rate():
    # One node for 16 months (a 470-day job: 15 × 365/12 = 456.25 < 470 < 486.7) on tiers
    # 1: 30,000, 6: 24,000, 12: 20,000 per node-month:
    #   one 16-month contract at the 12-month tier = 16 × 20,000              = 320,000
    #   12 months at the 12-month tier + 4 at the open rate = 240,000 + 120,000 = 360,000
    #   12 months + 4 more at the 6-month tier is not possible: 4 < 6; 6 + 6 + 4 … all cost more
    p = project([wl("a", 480)], electricity_price_per_kwh=0, horizon_months=24)
    res = solve_fixed(p, [_tiered("1:30000; 6:24000; 12:20000")], {("a", "r", 1): 470 * 24}, compare=False)
    assert res.status == "optimal"
    assert res.plan.total_cost == pytest.approx(320_000)
    assert [(r.months, r.term_months, r.price_per_node_month) for r in res.plan.rentals] == [(16, 12, 20_000)]


def test_seven_month_job_takes_twelve_months_when_that_is_cheaper():
    # the 12-month tier at 1,600: 12 × 1,600 = 19,200 < 7 × 2,900 = 20,300
    p = project([wl("a", 210)], electricity_price_per_kwh=0, horizon_months=12)
    res = solve_fixed(p, [_tiered("1:3200; 6:2900; 12:1600")], {("a", "r", 1): SEVEN_MONTHS_H}, compare=False)
    assert res.plan.total_cost == pytest.approx(19_200)
    assert [(r.start_month, r.months, r.term_months, r.price_per_node_month) for r in res.plan.rentals] == [
        (0, 12, 12, 1_600)
    ]


def test_a_tier_is_a_minimum_length_that_the_verifier_enforces():
    o = _tiered("1:3200; 6:2900")
    assert costs.term_of(o, costs.RentalContract("r", 1, 0, 6, 6)).price == 2_900
    assert (
        costs.term_of(o, costs.RentalContract("r", 1, 0, 7, 6)).price == 2_900
    )  # 7 months at the 6-month rate: a tier is a minimum
    assert costs.term_of(o, costs.RentalContract("r", 1, 0, 5, 6)) is None  # 5 months is shorter than the 6-month tier
    assert "< the minimum 6" in costs.term_problem(o, costs.RentalContract("r", 1, 0, 5, 6))
    assert (
        costs.term_of(o, costs.RentalContract("r", 1, 0, 7, None)).price == 3_200
    )  # the shortest tier runs any length
    assert costs.term_of(o, costs.RentalContract("r", 1, 0, 7, 3)) is None  # a 3-month tier is not quoted


TIERS = ((1, 30_000.0), (6, 24_000.0), (12, 20_000.0))


def _cheapest_cover(months: int, horizon: int) -> float:
    """Independent of the cost model: the cheapest set of back-to-back contracts covering ``months``
    consecutive months from month 0, each of length ℓ at the rate of a tier with minimum ≤ ℓ, all ended
    within ``horizon`` (a contract may run past the job, not past the horizon)."""
    best = [0.0] + [float("inf")] * months  # best[k]: months 0 … k−1 covered
    for k in range(1, months + 1):
        for start in range(k):  # the last contract covers months start … k−1 (or runs longer)
            for length in range(k - start, horizon - start + 1):
                rate = min(p for least, p in TIERS if least <= length) if length >= TIERS[0][0] else None
                if rate is not None:
                    best[k] = min(best[k], best[start] + length * rate)
    return best[months]


@pytest.mark.parametrize("months", range(1, 31))
def test_tiered_rent_for_every_job_length_from_1_to_30_months(months):
    # a job of exactly ``months`` calendar months from day 0, 2027-01-01 (its last day inside month months − 1)
    days = (dt.date(2027 + months // 12, months % 12 + 1, 1) - dt.date(2027, 1, 1)).days - 1
    horizon = 36
    p = project([wl("a", math.ceil(days) + 1)], electricity_price_per_kwh=0, horizon_months=horizon, period_days=30)
    res = solve_fixed(p, [_tiered("1:30000; 6:24000; 12:20000")], {("a", "r", 1): days * 24}, compare=False)
    assert res.status == "optimal"
    assert res.plan.total_cost == pytest.approx(_cheapest_cover(months, horizon))


# --- 2. volume tiers -------------------------------------------------------------------------------


def test_volume_tier_makes_eight_nodes_cheaper_than_seven():
    # all-units tiers 1: 100,000, 8: 85,000 per node; the job needs 7 nodes:
    #   7 × 100,000 = 700,000   >   8 × 85,000 = 680,000  → buy 8, every node at 85,000
    p = project([wl("a", 60)], electricity_price_per_kwh=0)
    b = bare_buy(price_per_node=None, volume_prices="1:100000; 8:85000", max_nodes=10)
    res = solve_fixed(p, [b], {("a", "b", 7): 100}, compare=False)
    assert res.status == "optimal"
    assert [(x.offer_id, x.nodes, x.price_per_node) for x in res.plan.purchases] == [("b", 8, 85_000)]
    assert res.plan.breakdown["capex"] == pytest.approx(680_000)
    assert res.plan.total_cost == pytest.approx(680_000)


def test_a_first_tier_above_one_node_is_a_minimum_order():
    # tiers from 3 nodes only: a 1-node job still buys 3 × 50,000 = 150,000
    p = project([wl("a", 60)], electricity_price_per_kwh=0)
    b = bare_buy(price_per_node=None, volume_prices="3:50000", max_nodes=5)
    res = solve_fixed(p, [b], {("a", "b", 1): 100}, compare=False)
    assert [(x.nodes, x.price_per_node) for x in res.plan.purchases] == [(3, 50_000)]
    assert res.plan.total_cost == pytest.approx(150_000)


# --- 3. reserved cloud ------------------------------------------------------------------------------


def test_one_reserved_term_carries_two_jobs():
    # two 240-hour jobs (days 0–10 and 42–52) on one node.
    #   on-demand at 50/h:        2 × 240 × 50                  = 24,000
    #   one 3-month reservation at 10/h owed for every hour + 1,000 upfront:
    #                             3 × 730 × 10 + 1,000           = 22,900  (both jobs inside months 0–2)
    # one job alone would not pay for it: 240 × 50 = 12,000 < 22,900.
    p = project([wl("a", 20), wl("b", 60, 42)], electricity_price_per_kwh=0, horizon_months=6)
    reserved = offer(
        mode="cloud", id="rsv", price_per_node_hour=10, commitment_months=3, upfront_per_node=1_000, max_nodes=1
    )
    on_demand = offer(mode="cloud", id="od", price_per_node_hour=50)
    hours = {(w, o, 1): 240 for w in "ab" for o in ("rsv", "od")}
    res = solve_fixed(p, [reserved, on_demand], hours, compare=False)
    assert res.plan.total_cost == pytest.approx(22_900)
    assert {a.offer_id for a in res.plan.assignments} == {"rsv"}
    assert [(r.offer_id, r.nodes, r.months) for r in res.plan.rentals] == [("rsv", 1, 3)]
    assert res.plan.breakdown["cloud"] == pytest.approx(22_900)
    alone = solve_fixed(
        project([wl("a", 20)], electricity_price_per_kwh=0, horizon_months=6),
        [reserved, on_demand],
        {("a", "rsv", 1): 240, ("a", "od", 1): 240},
        compare=False,
    )
    assert alone.plan.total_cost == pytest.approx(12_000)


def test_a_reserved_term_longer_than_the_horizon_is_rejected_with_its_reason():
    p = project([wl("a", 20)], electricity_price_per_kwh=0, horizon_months=6)
    reserved = offer(mode="cloud", id="rsv", price_per_node_hour=1, commitment_months=12)
    res = solve_fixed(
        p,
        [reserved, offer(mode="cloud", id="od", price_per_node_hour=50)],
        {("a", "rsv", 1): 10, ("a", "od", 1): 10},
        compare=False,
    )
    (rej,) = [r for r in res.rejections if r.offer_id == "rsv"]
    assert "commitment_months" in rej.reason and "12" in rej.reason


# --- 4. financing -----------------------------------------------------------------------------------


def test_financed_instalments_equal_the_annuity_formula():
    # 100,000 with 20% down: loan F = 80,000 over 24 months at 6% a year, i = 0.005:
    #   A = F·i / (1 − (1+i)^−24) = 400 / (1 − 1.005^−24) = 400 / 0.1128140 = 3,545.649
    # paid in months 1–24 after delivery in month 0; interest = 24 × 3,545.649 − 80,000 = 5,095.57
    fin = Financing(down_payment_pct="20%", months=24, annual_rate="6%")
    p = project([wl("a", 60)], electricity_price_per_kwh=0, horizon_months=36)
    b = bare_buy(price_per_node=100_000, financing=fin.model_dump())
    f = costs.purchase_flows(b, p)
    assert f["capex"][0] == pytest.approx(20_000)
    instalments = [f["capex"].get(m, 0.0) + f["interest"].get(m, 0.0) for m in range(1, 25)]
    assert instalments == pytest.approx([3_545.65] * 24, abs=0.01)
    assert sum(instalments) == pytest.approx(24 * 80_000 * 0.005 / (1 - 1.005**-24))
    assert sum(f["interest"].values()) == pytest.approx(5_095.57, abs=0.01)
    assert sum(f["capex"].values()) == pytest.approx(100_000)  # principal always adds up to the price
    assert not any(m > 24 for m in f["capex"])


def test_a_loan_running_past_the_horizon_is_repaid_when_the_servers_are_sold():
    fin = {"down_payment_pct": 0.2, "months": 24, "annual_rate": 0.06}
    p = project([wl("a", 60)], electricity_price_per_kwh=0, horizon_months=12)
    f = costs.purchase_flows(bare_buy(price_per_node=100_000, financing=fin), p)
    assert sorted(f["interest"]) == list(range(1, 12))  # 11 instalments within months 1–11
    assert sum(f["capex"].values()) == pytest.approx(100_000)
    assert f["capex"][11] > 40_000  # month 11: its instalment's principal plus the balance left


def test_financing_below_the_discount_rate_lowers_the_npv_and_raises_the_tco():
    p = project([wl("a", 60)], electricity_price_per_kwh=0, horizon_months=36, discount_rate=0.10)
    cash = costs.purchase_flows(bare_buy(price_per_node=100_000), p)
    loan = costs.purchase_flows(
        bare_buy(price_per_node=100_000, financing={"down_payment_pct": 0.2, "months": 24, "annual_rate": 0.04}), p
    )
    assert costs.total(loan) > costs.total(cash)  # interest is a cost
    assert costs.present_value(loan, p) < costs.present_value(cash, p)


def test_a_financed_purchase_is_planned_verified_and_its_interest_reported():
    p = project(
        [wl("a", 60)],
        electricity_price_per_kwh=0,
        horizon_months=36,
        financing={"down_payment_pct": "20%", "months": 24, "annual_rate": "6%"},
    )
    res = solve_fixed(p, [bare_buy(price_per_node=100_000)], {("a", "b", 1): 100}, compare=False)
    assert res.plan.breakdown["interest"] == pytest.approx(5_095.57, abs=0.01)
    assert res.plan.total_cost == pytest.approx(105_095.57, abs=0.01)


# --- 5. depreciation and the P&L ----------------------------------------------------------------------


def test_depreciation_lines_sum_to_capex_and_the_pnl_to_the_tco():
    # 120,000 + 5% duty + 20% VAT not recoverable: landed 120,000 × 1.05 × 1.20 = 151,200 = capex.
    # 5 years straight line from month 0: 2,520 a month, 30,240 a year, 151,200 over the 60-month horizon.
    # Resale 10% of the pre-tax price = 12,000; book value 0 → gain on disposal 12,000 in year 5.
    p = project([wl("a", 60)], electricity_price_per_kwh=0, horizon_months=60, vat_recoverable=False)
    b = bare_buy(price_per_node=120_000, import_duty_pct="5%", vat_pct="20%", residual_value_pct="10%")
    res = solve_fixed(p, [b], {("a", "b", 1): 100}, compare=False)
    plan = res.plan
    assert plan.breakdown["capex"] == pytest.approx(151_200)
    assert [y.depreciation for y in plan.pnl] == pytest.approx([30_240] * 5)
    assert sum(y.depreciation for y in plan.pnl) == pytest.approx(plan.breakdown["capex"])
    assert [y.disposal_gain for y in plan.pnl] == pytest.approx([0, 0, 0, 0, 12_000])
    assert sum(y.cost for y in plan.pnl) == pytest.approx(plan.total_cost)
    js = result_to_json(res)
    assert js["pnl"][4] == {
        "year": 5,
        "fiscal_year": "FY2031",  # the calendar year from 2031-01-01, months 49 to 60 of the plan from 2027-01-01
        "months": [49, 60],
        "from": "2031-01-01",
        "depreciation": 30_240.0,
        "operating": 0.0,
        "interest": 0.0,
        "disposal_gain": 12_000.0,
    }


def test_a_short_horizon_leaves_book_value_and_a_loss_on_disposal():
    # same server, VAT recoverable (not a cost): landed 126,000; 36 months of 2,100 = 75,600 depreciated;
    # book value 50,400 against a resale of 12,000 → loss on disposal 38,400.
    p = project([wl("a", 60)], electricity_price_per_kwh=0, horizon_months=36)
    b = bare_buy(price_per_node=120_000, import_duty_pct="5%", vat_pct="20%", residual_value_pct="10%")
    plan = solve_fixed(p, [b], {("a", "b", 1): 100}, compare=False).plan
    assert plan.breakdown["capex"] == pytest.approx(126_000)
    assert sum(y.depreciation for y in plan.pnl) == pytest.approx(75_600)
    assert plan.pnl[-1].disposal_gain == pytest.approx(-38_400)
    assert sum(y.cost for y in plan.pnl) == pytest.approx(plan.total_cost)


# --- 6. currencies ------------------------------------------------------------------------------------


def test_a_cny_quote_is_converted_at_the_project_rate():
    # 10,000 CNY per node-month at 0.14 USD = 1,400 USD; a 1-month job pays one month.
    p = project(
        [wl("a", 20)],
        electricity_price_per_kwh=0,
        fx_rates={"CNY": 0.14},
        fx_rates_date="2026-11-20",
        fx_rates_source="test",
    )
    r = offer(mode="rent", id="r", currency="CNY", price_per_node_month=10_000)
    res = solve_fixed(p, [r], {("a", "r", 1): 100}, compare=False)
    assert res.plan.total_cost == pytest.approx(1_400)
    assert result_to_json(res)["rentals"][0]["price_per_node_month"] == pytest.approx(1_400)


def test_an_offer_without_a_rate_is_an_input_error_naming_the_rate(tmp_path):
    cat_file = tmp_path / "q.yaml"
    cat_file.write_text(
        "offers:\n  - {id: x, vendor: V, mode: rent, region: cn-east, gpu: H800, gpus_per_node: 8, intra_node: nvswitch,"
        " ram_gb: 2048, nvme_tb: 30, cpu_cores: 112, currency: CNY, price_per_node_month: 90000, source: s, quoted_on: 2026-11-01}\n"
    )
    cat = load_catalog([cat_file])
    with pytest.raises(InputError) as exc:
        check_currencies(cat, project([wl("a", 20)]), "workload.yaml")
    (problem,) = exc.value.problems
    assert problem.field == "fx_rates.CNY" and "missing exchange rate CNY" in problem.message and "x" in problem.message


def test_fx_rates_need_their_date_and_source_and_known_codes():
    with pytest.raises(ValidationError, match="fx_rates_date"):
        project([wl("a", 20)], fx_rates={"CNY": 0.14})
    with pytest.raises(ValidationError, match="unknown currency 'CNX'"):
        project([wl("a", 20)], fx_rates={"CNX": 0.14}, fx_rates_date="2026-11-20", fx_rates_source="s")
    with pytest.raises(ValidationError, match="unknown currency"):
        offer(mode="rent", currency="RMB")


def test_every_bundled_offer_states_its_currency():
    import yaml

    from procure.offers.catalog import bundled_catalog_path

    raw = yaml.safe_load(bundled_catalog_path().read_text())
    assert raw["currency"] == "USD"
    assert {o.currency for o in load_catalog().offers} == {"USD"}


def test_a_cny_project_on_the_bundled_catalog_needs_a_usd_rate():
    cat = load_catalog()
    with pytest.raises(InputError) as exc:
        check_currencies(cat, project([wl("a", 20)], currency="CNY"), "workload.yaml")
    (problem,) = exc.value.problems
    assert (
        problem.field == "fx_rates.USD"
        and "missing exchange rate USD" in problem.message
        and "reports in CNY" in problem.message
    )


def test_a_cny_project_converts_bundled_usd_prices():
    # the bundled H800 rental, read from the catalog file itself: price_per_node_month USD; the project
    # reports in CNY at 7.1 CNY per USD. A 100-hour job on one node holds one contract of the minimum
    # term: (min_term_months × price + setup fee) × 7.1 CNY.
    import yaml

    from procure.offers.catalog import bundled_catalog_path

    raw = {r["id"]: r for r in yaml.safe_load(bundled_catalog_path().read_text())["offers"]}
    row = raw["rent-8x-h800-cn-east"]
    quoted = row.get("min_term_months", 1) * row["price_per_node_month"] + row.get("setup_fee_per_node", 0)
    o = load_catalog().by_id()["rent-8x-h800-cn-east"]
    p = project(
        [wl("a", 20)],
        currency="CNY",
        electricity_price_per_kwh=0,
        fx_rates={"USD": 7.1},
        fx_rates_date="2026-11-30",
        fx_rates_source="test",
    )
    res = solve_fixed(p, [o], {("a", o.id, 1): 100}, compare=False)
    assert res.plan.total_cost == pytest.approx(quoted * 7.1)
    assert result_to_json(res)["rentals"][0]["price_per_node_month"] == pytest.approx(
        raw[o.id]["price_per_node_month"] * 7.1
    )


def test_the_costs_sheet_shows_the_quoted_usd_price_and_the_converted_cny_amount():
    # 12,928 USD per node-month (the bundled H800 rental), 3-month minimum term, 7.1 CNY per USD:
    # the sheet quotes 12,928 in USD/node-month and its amount is 3 × 12,928 × 7.1 = 275,366.40 CNY
    from io import BytesIO

    from procure.reports.xlsx.workbook import workbook_bytes

    o = load_catalog().by_id()["rent-8x-h800-cn-east"]
    assert (o.currency, o.price_per_node_month, o.min_term) == ("USD", 12_928, 3)
    p = project(
        [wl("a", 20)],
        currency="CNY",
        electricity_price_per_kwh=0,
        fx_rates={"USD": 7.1},
        fx_rates_date="2026-11-30",
        fx_rates_source="test",
    )
    res = solve_fixed(p, [o], {("a", o.id, 1): 100}, compare=False)
    ws = openpyxl.load_workbook(BytesIO(workbook_bytes(res)), data_only=True)["Costs"]
    rows = [[c.value for c in row] for row in ws.iter_rows()]
    rent = next(r for r in rows if r[0] == "rent" and r[2] == o.id)
    assert 12_928 in rent and "USD/node-month" in rent
    assert any(isinstance(v, float) and v == pytest.approx(3 * 12_928 * 7.1) for v in rent)
    assert any("exchange rate: 1 USD in CNY" in str(v) for r in rows for v in r if v)


@pytest.mark.slow
def test_the_67b_example_in_cny_costs_the_rate_times_the_usd_plan(tmp_path):
    # Every price of the bundled catalog is USD. The same project reported in CNY, with fx_rates {USD: 7.1}
    # and its one workload-level money field (the electricity price) given in CNY (× 7.1), must choose the
    # same plan at exactly 7.1 × its USD total. Without the rate it exits 1 naming it.
    from helpers import ROOT, cli

    text = (ROOT / "examples" / "full-67b-60days.yaml").read_text()
    assert "currency: USD" in text and "electricity_price_per_kwh: 0.12" in text
    cny = text.replace("currency: USD", "currency: CNY").replace(
        "electricity_price_per_kwh: 0.12", "electricity_price_per_kwh: 0.852"
    )
    (tmp_path / "cny.yaml").write_text(cny)
    res = cli("solve", tmp_path / "cny.yaml", "--no-compare", "--runner-ups", "0", "--json", tmp_path / "x.json")
    assert res.exit_code == 1 and "missing exchange rate USD" in " ".join(res.output.split())
    assert not (tmp_path / "x.json").exists()
    (tmp_path / "cny.yaml").write_text(
        cny + "fx_rates: {USD: 7.1}\nfx_rates_date: 2026-11-30\nfx_rates_source: test rate\n"
    )
    (tmp_path / "usd.yaml").write_text(text)
    for name in ("usd", "cny"):
        res = cli(
            "solve", tmp_path / f"{name}.yaml", "--no-compare", "--runner-ups", "0", "--json", tmp_path / f"{name}.json"
        )
        assert res.exit_code == 0, res.output
    usd, cny_plan = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("usd", "cny"))
    assert cny_plan["currency"] == "CNY"
    assert cny_plan["total_cost"] == pytest.approx(7.1 * usd["total_cost"], abs=0.1)  # the JSON rounds to cents
    assert [a["offer"] for a in cny_plan["assignments"]] == [a["offer"] for a in usd["assignments"]]


# --- 8. percent fields ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["8%", 0.08, "0.08"])
def test_the_discount_rate_takes_a_percent_or_a_fraction(value):
    assert project([wl("a", 20)], discount_rate=value).discount_rate == pytest.approx(0.08)


def test_a_bare_discount_rate_above_one_says_how_to_write_it():
    with pytest.raises(ValidationError, match="write 8% or 0.08"):
        project([wl("a", 20)], discount_rate=8)


def test_a_rate_above_thirty_percent_warns(tmp_path):
    from procure.models.project import load_project

    f = tmp_path / "w.yaml"
    f.write_text(
        "name: p\ndiscount_rate: 35%\nfinancing: {down_payment_pct: 0.2, months: 12, annual_rate: 0.4}\n"
        "workloads:\n  - {name: a, model: llama-2-7b, method: lora, tokens_b: 1, deadline_days: 30}\n"
    )
    _p, warnings = load_project(f)
    fields = {w.field: w for w in warnings}
    assert "above 30%" in fields["discount_rate"].message and fields["discount_rate"].line == 2
    assert "above 30%" in fields["financing.annual_rate"].message


@pytest.mark.parametrize("value", [0.4, "0.4", "40%", " 40 % "])
def test_a_percent_field_takes_a_fraction_or_a_percent_string(value):
    assert bare_buy(price_per_node=1000, residual_value_pct=value).residual == pytest.approx(0.4)


@pytest.mark.parametrize("value", [40, "40"])
def test_a_bare_number_above_one_says_how_to_write_it(value):
    with pytest.raises(ValidationError, match="write 40% or 0.40"):
        bare_buy(price_per_node=1000, residual_value_pct=value)


# --- 9. templates and validation --------------------------------------------------------------------------


def test_every_template_has_filled_examples_that_validate_when_used(tmp_path):
    for fmt in ("yaml", "csv", "xlsx"):
        write_template(fmt, tmp_path / f"t.{fmt}")
    with pytest.raises(InputError, match="no offers"):  # the examples themselves are never read
        load_catalog([tmp_path / "t.csv"])
    # YAML: uncomment the example block
    text = (tmp_path / "t.yaml").read_text().splitlines()
    used = ["offers:"] + [line[2:] for line in text if line.startswith(("#   - ", "#     ", "#       "))]
    (tmp_path / "u.yaml").write_text("\n".join(used) + "\n")
    # CSV: drop the comment mark of the example rows
    (tmp_path / "u.csv").write_text((tmp_path / "t.csv").read_text().replace("\n#", "\n"))
    # XLSX: copy the Example sheet's rows (percent-formatted cells included) onto the offers sheet
    wb = openpyxl.load_workbook(tmp_path / "t.xlsx")
    assert wb.sheetnames[:2] == ["offers", "Example"]
    for row in wb["Example"].iter_rows(min_row=2, max_row=5):
        wb["offers"].append([c.value for c in row])
    wb.save(tmp_path / "u.xlsx")
    header = next(csv.reader((tmp_path / "t.csv").open()))
    for col in (
        "currency",
        "term_prices",
        "volume_prices",
        "commitment_months",
        "upfront_per_node",
        "financing.down_payment_pct",
        "financing.months",
        "financing.annual_rate",
        "depreciation_years",
        "import_duty_pct",
        "vat_pct",
    ):
        assert col in header
    for fmt in ("yaml", "csv", "xlsx"):
        cat = load_catalog([tmp_path / f"u.{fmt}"])
        by_id = cat.by_id()
        assert by_id["sh-baremetal-8xh800-tiers"].rent_tiers == ((1, 105_000), (6, 96_000), (12, 88_000))
        buy = by_id["oem-hgx-h100-volume"]
        assert buy.financing.down_payment_pct == pytest.approx(0.2) and buy.vat_pct == pytest.approx(0.19), fmt
        assert by_id["cloud-8xh100-reserved-1y"].commitment_months == 12


def test_validate_reports_every_new_rule_with_its_row(tmp_path):
    write_template("csv", tmp_path / "t.csv")
    rows = list(csv.reader((tmp_path / "t.csv").open()))
    h = rows[0]
    for r in rows[1:]:
        r[0] = r[0].lstrip("#")
    rows[2][h.index("term_prices")] = "1:105000; 12:88000; 6:96000"  # row 3: not ascending
    rows[2][h.index("currency")] = "CNX"  # row 3: unknown currency
    rows[3][h.index("residual_value_pct")] = "30"  # row 4: a bare number above 1
    rows[4][h.index("commitment_months")] = "0"  # row 5: a term must be positive
    csv.writer((tmp_path / "bad.csv").open("w", newline="")).writerows(rows)
    with pytest.raises(InputError) as exc:
        load_catalog([tmp_path / "bad.csv"])
    got = {(p.row, p.field) for p in exc.value.problems}
    assert got == {(3, "term_prices"), (3, "currency"), (4, "residual_value_pct"), (5, "commitment_months")}
    text = " ".join(p.message for p in exc.value.problems)
    assert "ascending" in text and "did you mean 'CNY'" in text and "write 30% or 0.30" in text


@pytest.mark.slow
@pytest.mark.xdist_group("solved")  # the session's cached solve of the example (tests/solved.py)
def test_the_negotiated_quotes_example_solves_with_every_kind_of_quote(solved):
    from procure.models.project import load_project

    from helpers import ROOT

    path = ROOT / "examples" / "negotiated-quotes.yaml"
    p, _ = load_project(path)
    cat = load_catalog([path.parent / f for f in p.offers])
    check_currencies(cat, p, str(path))
    kinds = {o.id: o for o in cat.offers}
    assert kinds["sh-baremetal-8xh800"].currency == "CNY" and len(kinds["sh-baremetal-8xh800"].rent_tiers) == 3
    assert kinds["oem-hgx-h100-volume"].volume_prices and kinds["eu-hgx-h200-financed"].financing
    assert kinds["gcp-a3-highgpu-8g-cud-1y"].committed
    res = solved(path).result  # every strategy, no runner-ups (tested on their own)
    assert res.status == "optimal"
    assert json.loads(json.dumps(result_to_json(res)))["pnl"]


def test_the_verifier_recomputes_tiers_terms_and_prices():
    """A plan that pays the wrong tier, or shortens a contract below its tier's minimum, is caught by the independent checker."""
    import dataclasses

    from procure.solver.verify import VerificationError, verify_plan

    p = project([wl("a", 210)], electricity_price_per_kwh=0, horizon_months=12)
    o = _tiered("1:3200; 6:2900; 12:2600")
    hours = {("a", "r", 1): SEVEN_MONTHS_H}
    res = solve_fixed(p, [o], hours, compare=False)
    plan = res.plan
    six = next(i for i, r in enumerate(plan.rentals) if r.term_months == 6)
    short = dataclasses.replace(
        plan, rentals=[dataclasses.replace(r, months=5) if i == six else r for i, r in enumerate(plan.rentals)]
    )
    with pytest.raises(VerificationError, match="lasts 5 months < the minimum 6 of its term tier"):
        verify_plan(p, {"r": o}, short)
    cheap = dataclasses.replace(
        plan,
        rentals=[
            dataclasses.replace(r, price_per_node_month=2_600) if i == six else r for i, r in enumerate(plan.rentals)
        ],
    )
    with pytest.raises(VerificationError, match="rent_price"):
        verify_plan(p, {"r": o}, cheap)
    b = bare_buy(price_per_node=None, volume_prices="1:100000; 8:85000", max_nodes=10)
    pb = project([wl("a", 60)], electricity_price_per_kwh=0)
    bought = solve_fixed(pb, [b], {("a", "b", 7): 100}, compare=False).plan
    wrong = dataclasses.replace(bought, purchases=[dataclasses.replace(bought.purchases[0], price_per_node=100_000)])
    with pytest.raises(VerificationError, match="volume tier for 8 nodes"):
        verify_plan(pb, {"b": b}, wrong)


def test_a_missing_exchange_rate_stops_solve_with_exit_1(tmp_path):
    from helpers import ROOT, cli

    examples = ROOT / "examples"
    text = (
        (examples / "negotiated-quotes.yaml")
        .read_text()
        .replace("fx_rates: {CNY: 0.14, EUR: 1.08}", "fx_rates: {EUR: 1.08}")
    )
    (tmp_path / "w.yaml").write_text(text)
    (tmp_path / "negotiated-quotes-offers.yaml").write_text((examples / "negotiated-quotes-offers.yaml").read_text())
    res = cli("solve", tmp_path / "w.yaml", "--json", tmp_path / "plan.json")
    assert res.exit_code == 1
    out = " ".join(res.output.split())
    assert (
        "fx_rates.CNY: missing exchange rate CNY: offer(s) sh-baremetal-8xh800" in out and "nothing was written" in out
    )
    assert not (tmp_path / "plan.json").exists()


def test_cash_and_capex_budgets_count_term_contracts_and_volume_tiers():
    # the cheapest cover of the 7-month job is one 12-month contract at 1,600: 19,200 of cash by month 11;
    # every other cover costs more (7 months at the 6-month tier: 20,300), so a cash budget of 19,150 leaves
    # no plan, and 19,250 keeps it.
    p = project([wl("a", 210)], electricity_price_per_kwh=0, horizon_months=12, budget_cash=19_250)
    o = _tiered("1:3200; 6:2900; 12:1600")
    hours = {("a", "r", 1): SEVEN_MONTHS_H}
    assert solve_fixed(p, [o], hours, compare=False).plan.total_cost == pytest.approx(19_200)
    tight = project([wl("a", 210)], electricity_price_per_kwh=0, horizon_months=12, budget_cash=19_150)
    assert solve_fixed(tight, [o], hours, compare=False).status == "infeasible"
    # 7 nodes needed: 8 at 85,000 = 680,000 is the cheapest purchase; a capex budget of 675,000 forbids it
    # (and 7 × 100,000 = 700,000), 680,000 allows it
    b = bare_buy(price_per_node=None, volume_prices="1:100000; 8:85000", max_nodes=10)
    for cap, status in ((680_000, "optimal"), (675_000, "infeasible")):
        pb = project([wl("a", 60)], electricity_price_per_kwh=0, budget_capex=cap)
        assert solve_fixed(pb, [b], {("a", "b", 7): 100}, compare=False).status == status, cap


def test_a_price_scenario_moves_a_tiered_quote_as_a_whole():
    """Break-even and sensitivity scale an offer's price: every tier by the same factor, from the first tier."""
    from procure.analysis.scenario import Scenario, reference_price, scaled_offer

    o = _tiered("1:3200; 6:2900; 12:2600")
    assert reference_price(o) == 3_200
    cheaper = scaled_offer(o, Scenario.of("r@1600", offer_prices={"r": 1_600}))
    assert cheaper.rent_tiers == ((1, 1_600), (6, 1_450), (12, 1_300))
    b = bare_buy(price_per_node=None, volume_prices="1:100000; 8:85000")
    assert scaled_offer(b, Scenario.of("b@50000", offer_prices={"b": 50_000})).buy_tiers == ((1, 50_000), (8, 42_500))


def test_a_fractional_life_depreciates_the_landed_cost_exactly_once_on_the_pnl_sheet():
    # 2.55 years = round(30.6) = 31 whole months: 126,000 / 31 = 4,064.52 a month, all 126,000 depreciated
    # within the 36-month horizon, so the book value at the end is 0 and the resale of 12,000 is all gain.
    # (The sheet once divided by 12 × 2.55 = 30.6 months over 31 months: 101% of cost, a negative book value.)
    from io import BytesIO

    from procure.reports.xlsx.workbook import workbook_bytes

    p = project([wl("a", 60)], electricity_price_per_kwh=0, horizon_months=36)
    b = bare_buy(
        price_per_node=120_000, import_duty_pct="5%", vat_pct="20%", residual_value_pct="10%", depreciation_years=2.55
    )
    res = solve_fixed(p, [b], {("a", "b", 1): 100}, compare=False)
    assert sum(y.depreciation for y in res.plan.pnl) == pytest.approx(126_000)
    ws = openpyxl.load_workbook(BytesIO(workbook_bytes(res)), data_only=True)["P&L"]
    rows = [[c.value for c in row] for row in ws.iter_rows()]
    head = next(i for i, r in enumerate(rows) if "book value at the end" in r)
    line, cols = rows[head + 1], rows[head]
    assert line[cols.index("per month")] == pytest.approx(126_000 / 31, abs=0.01)
    assert line[cols.index("book value at the end")] == pytest.approx(0, abs=0.01)
    assert line[cols.index("gain on disposal")] == pytest.approx(12_000, abs=0.01)
