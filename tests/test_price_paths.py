"""Price paths and FX paths (issue 53, part 2): hand-worked amounts, the solve's model = ledger = verifier, the
workbook recalculated, and bad input.

Expected numbers are worked by hand from the rules in solver/costs.py ("Price and FX paths"). Where an amount is
spread over days, the split is derived from named day counts (``FIRST_MONTH_DAYS``), so that a change of the
calendar (365/12-day months today) is restated in one place.
"""

from __future__ import annotations

import openpyxl
import pytest

from procure.models.units import HOURS_PER_DAY
from procure.solver import costs
from procure.solver.verify_money import money_problems

from helpers import cli, offer, project, recalculated, solve_fixed, workload

#: the days of project month 0 from a start on 2027-01-01: January's 31
FIRST_MONTH_DAYS = 31


def _renewal_case(**kw):
    """One node rented for a 700-day job on an offer of 10,000 a node-month, 12 months at least, over 24 months."""
    o = offer(id="r", mode="rent", price_per_node_month=10_000, min_term_months=12, max_nodes=2, **kw)
    p = project(
        [workload(name="j", deadline_days=720)],
        period_days=7,
        horizon_months=24,
        price_paths=[{"mode": "rent", "annual_pct": -20, "source": "test: a falling rent"}],
    )
    return p, o, {("j", "r", 1): 700 * 24.0}


def test_a_rent_index_of_minus_20_pct_a_year_prices_the_renewal_at_0_8():
    p, o, hours = _renewal_case()
    res = solve_fixed(p, [o], hours)
    assert str(res.status) == "optimal"  # verify_plan and the model-ledger agreement ran inside
    # by hand: the job holds the node for all 24 months. One 24-month contract from month 0 costs 24 × 10,000 =
    # 240,000; a 12-month contract and its renewal from month 12 cost 12 × 10,000 + 12 × 10,000 × 0.8^(12/12)
    # = 120,000 + 96,000 = 216,000 (the renewal is a new contract: the index of its own start)
    assert sorted((r.start_month, r.months) for r in res.plan.rentals) == [(0, 12), (12, 12)]
    assert res.plan.total_cost == pytest.approx(216_000.0, abs=0.005)
    rent = res.plan.flows["rent"]
    assert rent[11] == pytest.approx(10_000.0) and rent[12] == pytest.approx(8_000.0)
    assert rent[23] == pytest.approx(8_000.0)  # fixed for the contract's length, not re-indexed each month
    renewal = next(e for e in res.plan.ledger.entries if e.kind == "rent" and e.amounts[0][0] == 12)
    assert renewal.index == pytest.approx(0.8)
    assert money_problems(p, {o.id: o}, res.plan) == []


def test_a_purchase_is_priced_at_the_index_of_its_delivery_month():
    # delivered on day 61: month 2 (61 / (365/12) = 2.005; 2 March on a calendar from 1 January)
    b = offer(id="b", mode="buy", price_per_node=100_000, lead_time_days=61, network_per_node=2_000)
    p = project([workload()], horizon_months=12, price_paths=[{"mode": "buy", "monthly": [1.0, 1.1, 1.25, 1.4]}])
    f = costs.purchase_flows(b, p)
    # by hand: 100,000 × idx(2) = 125,000 paid in month 2; the network 2,000 × 1.25 = 2,500 with it; the residual
    # value 30 % of the price paid, 0.3 × 125,000 = 37,500, credited in month 11
    assert f["capex"] == {2: pytest.approx(125_000.0)}
    assert f["network"] == {2: pytest.approx(2_500.0)}
    assert f["residual_value"] == {11: pytest.approx(-37_500.0)}
    plain = project([workload()], horizon_months=12)
    assert costs.purchase_flows(b, plain)["capex"] == {2: 100_000.0}  # without paths: today's number, exactly


def test_cloud_hours_across_two_months_take_each_months_index():
    c = offer(id="c", mode="cloud", price_per_node_hour=10.0)
    p = project([workload()], horizon_months=6, price_paths=[{"mode": "cloud", "monthly": [1.0, 1.5]}])
    start, days = 20.0, 20.0
    f = costs.job_flows(c, p, 1, days * HOURS_PER_DAY, start)
    # by hand: 20 days from day 20; FIRST_MONTH_DAYS − 20 of them in month 0 at index 1, the rest in month 1 at 1.5
    d0 = FIRST_MONTH_DAYS - start
    d1 = days - d0
    assert f["cloud"][0] == pytest.approx(10.0 * 24 * d0 * 1.0)
    assert f["cloud"][1] == pytest.approx(10.0 * 24 * d1 * 1.5)


def test_electricity_is_indexed_in_the_month_it_is_drawn():
    b = offer(id="b", mode="buy", price_per_node=100_000)
    p = project(
        [workload()],
        horizon_months=6,
        electricity_price_per_kwh=0.10,
        pue=1.25,
        price_paths=[{"mode": "energy", "monthly": [1.0, 2.0]}],
    )
    # a 10-day job from day 35 (inside month 1): 240 h on one node of 10.2 kW at (0.75 − 0.15) of its power
    f = costs.job_flows(b, p, 1, 240.0, 35.0)
    assert f["energy"] == {1: pytest.approx(10.2 * 0.6 * 240 * 1.25 * 0.10 * 2.0)}


def test_an_fx_path_moves_a_usd_rent_paid_from_a_cny_project_month_by_month():
    r = offer(id="u", mode="rent", price_per_node_month=1_000, currency="USD", min_term_months=1)
    p = project(
        [workload()],
        currency="CNY",
        horizon_months=6,
        fx_rates={"USD": 7.0},
        fx_rates_date="2026-12-31",
        fx_rates_source="test",
        # mid-month dates: month 1 and month 2 whatever the months' lengths
        fx_paths={"USD": [{"from": "2027-02-10", "rate": 7.2}, {"from": "2027-03-15", "rate": 7.5}]},
    )
    contract = costs.RentalContract("u", 2, 0, 4)
    f = costs.rental_flows(r, contract, p)
    # by hand: 2 nodes × 1,000 USD a month, paid at 7.0, 7.2, 7.5 and 7.5 CNY per USD
    assert f["rent"] == pytest.approx({0: 14_000.0, 1: 14_400.0, 2: 15_000.0, 3: 15_000.0})


@pytest.mark.parametrize("objective", ["tco", "npv"])
def test_a_solve_on_price_and_fx_paths_agrees_model_ledger_and_verifier(objective):
    """Rent falling, cloud rising and a USD rent on an FX path: the plan is optimal (the objective equals the
    ledger: reading.agreed; the verifier re-derives every entry by its own rules) and costs what its entries say."""
    r = offer(
        id="r",
        mode="rent",
        price_per_node_month=1_500,
        currency="USD",
        min_term_months=1,
        max_nodes=2,
        fixed_cost=1_000,
        storage_per_tb_month=20,
        egress_per_tb=90,
    )
    c = offer(id="c", mode="cloud", price_per_node_hour=8.0, max_nodes=2)
    p = project(
        [workload(name="a", deadline_days=100), workload(name="b", earliest_start_days=120, deadline_days=300)],
        currency="CNY",
        horizon_months=12,
        fx_rates={"USD": 7.0},
        fx_rates_date="2026-12-31",
        fx_rates_source="test",
        fx_paths={"USD": [{"from": "2027-04-15", "rate": 7.4}]},
        price_paths=[{"mode": "rent", "annual_pct": -30}, {"mode": "cloud", "annual_pct": 10}],
        discount_rate=0.08,
    )
    hours = {("a", "r", 1): 40 * 24.0, ("a", "c", 1): 40 * 24.0, ("b", "r", 1): 40 * 24.0}
    res = solve_fixed(p, [r, c], hours, objective=objective)
    assert str(res.status) == "optimal"
    plan = res.plan
    assert {x.offer_id for x in plan.assignments} == {"r", "c"}
    (cloud,) = [e for e in plan.ledger.entries if e.kind == "cloud"]
    # by hand: 960 node-hours at 8.0 × 1.1^(m/12) in the months they run (its index lies between the first and
    # the last of them)
    months = [m for m, _v in cloud.amounts]
    assert 1.1 ** (min(months) / 12) - 1e-12 <= cloud.index <= 1.1 ** (max(months) / 12) + 1e-12
    assert cloud.amount == pytest.approx(960 * 8.0 * cloud.index)
    assert money_problems(p, {"r": r, "c": c}, plan) == []
    for e in plan.ledger.entries:
        assert e.index is not None
    # the second job's contract starts later, at a lower index, and its rent is paid at the later rate
    late = [x for x in plan.rentals if x.start_month >= 4]
    for x in late:
        entry = next(e for e in plan.ledger.entries if e.kind == "rent" and e.amounts[0][0] == x.start_month)
        want = x.nodes * 1_500 * 0.7 ** (x.start_month / 12) * 7.4 * x.months
        assert entry.amount == pytest.approx(want)


def test_without_paths_no_entry_has_an_index():
    p, o, hours = _renewal_case()
    plain = p.model_copy(update={"price_paths": []})
    res = solve_fixed(plain, [o], hours)
    # one contract at today's rate: 23 months from 2027-01-01 end on 2028-12-01, day 700, when the 700-day job
    # ends: 23 × 10,000
    assert res.plan.total_cost == pytest.approx(230_000.0)
    assert all(e.index is None for e in res.plan.ledger.entries)


@pytest.mark.soffice
@pytest.mark.slow
def test_the_workbook_recalculates_to_the_indexed_amounts(tmp_path):
    from procure.reports.xlsx.workbook import write_workbook

    p, o, hours = _renewal_case()
    res = solve_fixed(p, [o], hours)
    path = tmp_path / "paths.xlsx"
    write_workbook(res, path)
    wb = openpyxl.load_workbook(recalculated(path, tmp_path), data_only=True)
    (sheet, ref), *_ = wb.defined_names["total_cost"].destinations
    assert wb[sheet][ref.replace("$", "")].value == pytest.approx(216_000.0, abs=0.005)
    formulas = openpyxl.load_workbook(path)["Costs"]
    texts = [c.value for row in formulas.iter_rows() for c in row if isinstance(c.value, str) and "*0.8" in c.value]
    assert texts, "the renewal's index 0.8 is written in its formula"
    assumptions = [
        c.value
        for row in wb["Assumptions"].iter_rows()
        for c in row
        if isinstance(c.value, str) and "price path" in c.value
    ]
    assert assumptions == ["price path rent"]


BAD = [
    ("price_paths: [{mode: lease, annual_pct: 5}]", "price_paths[0].mode", "rent, buy, cloud, energy"),
    ("price_paths: [{mode: rent, monthly: [1.0, -0.5]}]", "price_paths[0].monthly", "> 0"),
    ("price_paths: [{mode: rent, annual_pct: -120}]", "price_paths[0].annual_pct", "-100"),
    ("price_paths: [{mode: rent, monthly: [" + ", ".join(["1"] * 121) + "]}]", "price_paths[0].monthly", "120"),
    ("price_paths: [{mode: rent, annual_pct: 5, monthly: [1]}]", "price_paths[0]", "not both"),
    ("price_paths: [{mode: rent, annual_pct: 5}, {mode: rent, annual_pct: 6}]", "price_paths[1]", "one path per mode"),
    ("fx_paths: {EUR: [{from: 2027-02-01, rate: 7.9}]}", "fx_paths.EUR", "no rate in fx_rates"),
    (
        "fx_paths: {USD: [{from: 2027-03-01, rate: 7.2}, {from: 2027-02-01, rate: 7.3}]}",
        "fx_paths.USD",
        "must increase",
    ),
]


@pytest.mark.parametrize(("line", "where", "allowed"), BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_paths_are_bad_input(line, where, allowed, tmp_path):
    wl = tmp_path / "w.yaml"
    wl.write_text(
        "name: t\ncurrency: CNY\nfx_rates: {USD: 7.0}\nfx_rates_date: 2027-01-01\nfx_rates_source: test\n"
        "start_date: 2027-01-01\nhorizon_months: 12\n" + line + "\n"
        "workloads:\n  - {name: a, model: llama-2-7b, method: lora, tokens_b: 1, deadline_days: 100}\n",
        encoding="utf-8",
    )
    out = tmp_path / "plan.json"
    res = cli("solve", wl, "--json", out)
    assert res.exit_code == 1
    assert where in res.output and allowed in res.output, res.output
    assert not out.exists()


# --- the price paths' slope: a driver of the tornado and the Monte Carlo -------------------------------------------


def test_the_slope_driver_adds_percentage_points_a_year_to_each_path():
    from procure.analysis.scenario import Scenario, scaled_project

    p, o, hours = _renewal_case()  # rent −20 %/year
    moved = scaled_project(p, Scenario.of("s", {"price_path_slope": 10}))
    res = solve_fixed(moved, [o], hours)
    # by hand: −20 + 10 = −10 %/year: 12 × 10,000 + 12 × 10,000 × 0.9 = 228,000 (one 24-month contract: 240,000)
    assert res.plan.total_cost == pytest.approx(228_000.0, abs=0.005)
    # a flat mode gets a path of the slope alone: cloud at −20 %/year from a project without a cloud path
    paths = {q.mode: q for q in scaled_project(p, Scenario.of("s", {"price_path_slope": -20})).price_paths}
    assert paths["cloud"].index(12) == pytest.approx(0.8)
    assert paths["rent"].index(12) == pytest.approx(0.6)  # −20 − 20 = −40 %/year
    # an explicit path: each month's index × (1 + slope/100)^(m/12), the last value held and moved on
    q = p.model_copy(
        update={"price_paths": [p.price_paths[0].model_copy(update={"annual_pct": None, "monthly": [1.0, 2.0]})]}
    )
    (rent,) = [x for x in scaled_project(q, Scenario.of("s", {"price_path_slope": 10})).price_paths if x.mode == "rent"]
    assert rent.index(1) == pytest.approx(2.0 * 1.1 ** (1 / 12))
    assert rent.index(12) == pytest.approx(2.0 * 1.1)


def test_the_slope_is_a_tornado_bar_and_its_range_is_bounded():
    from procure.models.analysis import AnalysisSettings

    assert AnalysisSettings().ranges()["price_path_slope"].low == -10
    with pytest.raises(ValueError, match="price_path_slope.high: 150 %/year is outside"):
        AnalysisSettings.model_validate({"sensitivity": {"price_path_slope": {"low": -10, "high": 150}}})


def test_a_path_that_names_no_offer_or_the_wrong_mode_is_refused_and_an_unquoted_gpu_warned(tmp_path):
    import yaml

    from helpers import ROOT, cli

    data = yaml.safe_load((ROOT / "examples" / "existing-capacity.yaml").read_text())
    data["offers"] = [str(ROOT / "examples" / "existing-capacity-offers.yaml")]
    data["price_paths"] = [
        {"mode": "rent", "offer": "metal-h100-monthy", "annual_pct": -20},
        {"mode": "cloud", "offer": "metal-h100-monthly", "annual_pct": 10},
    ]
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(data))
    res = cli("solve", path, "--runner-ups", "0", "--out", tmp_path / "x.xlsx")
    assert res.exit_code == 1, res.output
    flat = " ".join(res.output.split())
    assert "price_paths[0].offer" in flat and "did you mean 'metal-h100-monthly'?" in flat
    assert "price_paths[1].mode" in flat and "metal-h100-monthly is a rent offer" in flat
    assert not (tmp_path / "x.xlsx").exists()
    data["price_paths"] = [{"mode": "rent", "gpu": "A100-SXM-80GB", "annual_pct": -20}]  # no offer quotes it
    path.write_text(yaml.safe_dump(data))
    res = cli("solve", path, "--runner-ups", "0", "--out", tmp_path / "x.xlsx")
    flat = " ".join(res.output.split())
    assert "price_paths[0].gpu" in flat and "this path prices nothing" in flat
