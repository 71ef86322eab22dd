"""A price on carbon, worked by hand: the break-even price that moves a job from a coal-heavy grid to a clean one,
a yearly path, the carbon price in another currency, the verifier and the workbook with carbon present, bad input.

The energy and the grid figures the expected values use (solver.costs, section "Carbon"; models/data/
grid_intensity.yaml): an 8 × H100 SXM node without power_kw_per_node draws 8 × 700 W ÷ (5.6/10.2) = 10.2 kW at
most; a job draws 0.75 of it on the cloud, 0.75 − 0.15 on bought or rented nodes; a bought or rented node idles
at 0.15; PUE 1.3 (the project default); ap-in (India) 713 gCO2e/kWh, eu-north 45, us-east 369. The projects
start on 2027-01-01, so project year 1 is the 365 days of 2027 (12 months of 365/12 days): nothing below depends
on the length of a month.
"""

from __future__ import annotations

import shutil

import pytest

from procure.solver.enums import Objective
from procure.solver.verify_money import money_problems

from helpers import cli, offer, project, solve_fixed

JOB = dict(name="a", model="llama-2-7b", method="full", tokens_b=1, deadline_days=60)
HOURS = 100.0  # compute hours of the job on one node, on any offer
KW = 8 * 700 / 1000 / (5.6 / 10.2)  # 10.2 kW: the node's estimated maximum draw
PUE = 1.3
DIRTY_G, CLEAN_G = 713.0, 45.0  # gCO2e/kWh of ap-in and eu-north

DIRTY = offer(mode="cloud", id="dirty", region="ap-in", price_per_node_hour=30.0)
CLEAN = offer(mode="cloud", id="clean", region="eu-north", price_per_node_hour=31.0)


def _solve(p, offers, hours=None, **kw):
    hours = hours or {("a", o.id, 1): HOURS for o in offers}
    result = solve_fixed(p, offers, hours, **kw)
    plan = result.hybrid.plan
    assert plan is not None
    assert money_problems(p, {o.id: o for o in offers}, plan) == []  # the verifier's own carbon rule agrees
    return result, plan


# --- (a) the break-even price ---------------------------------------------------------------------------------


def test_a_carbon_price_moves_the_job_to_the_clean_grid_exactly_at_its_break_even():
    """The same 100 h cloud job on one node: 30 an hour on ap-in (713 g/kWh) or 31 on eu-north (45 g/kWh).
    Energy: 10.2 kW × 0.75 × 100 h × 1.3 = 994.5 kWh on either; tCO2e 994.5 × 713 / 10^6 = 0.7090785 against
    994.5 × 45 / 10^6 = 0.0447525; the clean grid saves Δt = 0.664326 t for Δcost = 3,100 − 3,000 = 100, so the
    break-even price is p* = 100 / 0.664326 = 150.5285… a tonne. Just below it the cheap dirty region wins, just
    above it the clean one (a difference of 0.5 a tonne moves the totals by 0.33, above the slack tie-break)."""
    kwh = KW * 0.75 * HOURS * PUE
    assert kwh == pytest.approx(994.5)
    d_t = kwh * (DIRTY_G - CLEAN_G) / 1e6
    assert d_t == pytest.approx(0.664326)
    p_star = (31.0 - 30.0) * HOURS / d_t
    assert p_star == pytest.approx(150.5285, abs=1e-4)

    for price, winner in ((0.0, "dirty"), (p_star - 0.5, "dirty"), (p_star + 0.5, "clean"), (1_000.0, "clean")):
        p = project([JOB], allowed_modes=["cloud"], carbon_price_per_t=price)
        _res, plan = _solve(p, [DIRTY, CLEAN])
        assert [d.offer_id for d in plan.decisions] == [winner], price
        g = DIRTY_G if winner == "dirty" else CLEAN_G
        cloud = HOURS * (30.0 if winner == "dirty" else 31.0)
        assert plan.breakdown["carbon"] == pytest.approx(kwh * g / 1e6 * price, abs=1e-6)
        assert plan.total_cost == pytest.approx(cloud + kwh * g / 1e6 * price, abs=1e-6)
        if price:
            e = plan.ledger["job0:carbon:y1"]
            assert (e.quantity, e.unit_price, e.rate) == pytest.approx((kwh, price, g))
    # at p* itself both cost the same: 3,000 + 0.7090785 p* = 3,100 + 0.0447525 p*
    assert 3_000 + kwh * DIRTY_G / 1e6 * p_star == pytest.approx(3_100 + kwh * CLEAN_G / 1e6 * p_star)


def test_the_carbon_price_in_another_currency_converts_at_the_projects_rate():
    """80 EUR a tonne at 1.1 USD per EUR is 88 USD a tonne: the dirty job's carbon is 0.7090785 t × 88 = 62.40;
    the entry keeps its price in EUR."""
    p = project(
        [JOB],
        allowed_modes=["cloud"],
        carbon_price_per_t=80,
        carbon_price_currency="EUR",
        fx_rates={"EUR": 1.1},
        fx_rates_date="2026-12-01",
        fx_rates_source="test",
    )
    _res, plan = _solve(p, [DIRTY])
    e = plan.ledger["job0:carbon:y1"]
    assert e.currency == "EUR" and e.unit_price == 80
    assert e.amount == pytest.approx(994.5 * 713e-6 * 80 * 1.1)
    assert plan.total_cost == pytest.approx(3_000 + 994.5 * 713e-6 * 88)


def test_no_vat_on_the_carbon_price():
    """Cloud hours with 6 % VAT that is a cost: the VAT is on the 3,000 of hours, not on the carbon price."""
    p = project([JOB], allowed_modes=["cloud"], carbon_price_per_t=100, vat_recoverable=False)
    dirty = DIRTY.model_copy(update={"vat_pct": 0.06})
    _res, plan = _solve(p, [dirty])
    carbon = 994.5 * 713e-6 * 100
    assert plan.ledger["vat:dirty:cloud"].amount == pytest.approx(180)
    assert plan.ledger.get("vat:dirty:carbon") is None
    assert plan.total_cost == pytest.approx(3_180 + carbon)


# --- a path, purchases and contracts ----------------------------------------------------------------------------


def test_a_bought_node_pays_each_years_price_on_its_idle_energy():
    """One node bought (power_kw_per_node 10.2) on eu-north over 24 months, a 100 h job on it, carbon 50 a tonne in
    year 1 and 200 in year 2 (carbon_price_by_year). Idle: 10.2 × 0.15 × 8,760 h × 1.3 = 17,423.64 kWh in 2027;
    × 45 / 10^6 = 0.7840638 t → 39.20319; 2028 is a leap year, 8,784 h: 17,471.376 kWh → 157.24238 at 200. The job (in year 1): 10.2 × 0.6 ×
    100 h × 1.3 = 795.6 kWh → 0.035802 t × 50 = 1.7901."""
    p = project(
        [JOB],
        allowed_modes=["buy"],
        horizon_months=24,
        electricity_price_per_kwh=0,
        carbon_price_by_year=[50, 200],
    )
    b = offer(mode="buy", id="b", region="eu-north", price_per_node=60_000, max_nodes=1)
    _res, plan = _solve(p, [b])
    idle = 10.2 * 0.15 * 365 * 24 * PUE
    assert idle == pytest.approx(17_423.64)
    assert plan.ledger["buy:b:carbon:y1"].amount == pytest.approx(idle * 45e-6 * 50)
    leap = 10.2 * 0.15 * 366 * 24 * PUE  # the project's second year is the calendar year 2028
    assert plan.ledger["buy:b:carbon:y2"].amount == pytest.approx(leap * 45e-6 * 200)
    assert plan.ledger["buy:b:carbon:y2"].quantity == pytest.approx(leap)
    assert plan.ledger["job0:carbon:y1"].amount == pytest.approx(10.2 * 0.6 * HOURS * PUE * 45e-6 * 50)
    assert plan.breakdown["carbon"] == pytest.approx(idle * 45e-6 * 50 + leap * 45e-6 * 200 + 795.6 * 45e-6 * 50)
    assert [y.operating for y in plan.pnl][1] >= idle * 45e-6 * 200  # an operating cost of year 2


def test_a_rising_path_moves_a_flexible_job_into_the_cheaper_year():
    """A 100 h cloud job on ap-in that may run any time in 24 months: carbon 200 a tonne in year 1 and 0 in year
    2: the plan runs it in year 2 (carbon 0, the 3,000 of hours either way); with the path reversed, in year 1."""
    job = dict(JOB, deadline_days=700)
    for path, year in (([200, 0], 2), ([0, 200], 1)):
        p = project([job], allowed_modes=["cloud"], horizon_months=24, period_days=30, carbon_price_by_year=path)
        _res, plan = _solve(p, [DIRTY])
        (d,) = plan.decisions
        assert (d.start_day >= 365) == (year == 2), path
        assert plan.total_cost == pytest.approx(3_000, abs=1e-6)


def test_a_rented_node_pays_carbon_on_every_month_it_is_held():
    """A one-month rental on ap-in at 14,000 for a 100 h job, carbon 100 a tonne: the node idles the month through
    and draws 0.6 more while the job runs (795.6 kWh). A held month idles for its days, so the plan rents in
    February, the shortest month: 10.2 × 0.15 × 672 h × 1.3 = 1,336.61 kWh; (1,336.61 + 795.6) × 713 / 10^6 × 100."""
    p = project([JOB], allowed_modes=["rent"], carbon_price_per_t=100)
    r = offer(mode="rent", id="r", region="ap-in", price_per_node_month=14_000, min_term_months=1, max_nodes=1)
    _res, plan = _solve(p, [r])
    assert [(x.start_month, x.months) for x in plan.rentals] == [(1, 1)]
    held = 10.2 * 0.15 * 28 * 24 * PUE
    assert plan.ledger["rent0:carbon:y1"].amount == pytest.approx(held * 713e-6 * 100)
    assert plan.ledger["job0:carbon:y1"].amount == pytest.approx(795.6 * 713e-6 * 100)
    assert plan.total_cost == pytest.approx(14_000 + (held + 795.6) * 713e-6 * 100)


def test_the_reported_emissions_are_the_tonnes_the_price_charges():
    """solver.emissions and the carbon price use one definition of the energy: tCO2e × price = the carbon cost."""
    from procure.solver.emissions import plan_emissions

    p = project([JOB], allowed_modes=["cloud"], carbon_price_per_t=120)
    res, plan = _solve(p, [DIRTY])
    e = plan_emissions(p, res.offers, plan)
    assert e is not None and e.tco2e == pytest.approx(994.5 * 713e-6)
    assert plan.breakdown["carbon"] == pytest.approx(e.tco2e * 120)


def test_the_after_tax_objective_deducts_the_carbon_price():
    """The carbon price is an operating cost: deductible like the cloud bill, so at 25 % income tax the after-tax
    cash flow of the cloud plan is 0.75 × its TCO."""
    p = project(
        [JOB],
        allowed_modes=["cloud"],
        carbon_price_per_t=100,
        tax={"income_tax_rate": "25%", "depreciation": "straight-line"},
    )
    _res, plan = _solve(p, [DIRTY], objective=Objective.AFTER_TAX_NPV)
    assert plan.ledger.after_tax_total() == pytest.approx(0.75 * (3_000 + 994.5 * 713e-6 * 100))


# --- (c) the workbook recalculated ------------------------------------------------------------------------------


@pytest.mark.soffice
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed")
def test_the_workbook_recalculates_the_carbon_price_to_the_ledger(tmp_path):
    """Bought, rented and cloud capacity with a carbon price in EUR rising 10 % a year over 24 months: LibreOffice
    recomputes each carbon line from its cells (kWh × g/kWh / 10^6 × price × the EUR rate cell), the carbon
    category, the Cash flow sheet month by month and the P&L years; each equals the ledger to the cent."""
    import openpyxl

    from procure.reports.xlsx.workbook import write_workbook
    from procure.solver.costs import CATEGORIES

    from helpers import recalculated

    jobs = [dict(JOB, name=n, deadline_days=600) for n in ("a", "b", "c")]
    p = project(
        jobs,
        horizon_months=24,
        carbon_price_per_t=90,
        carbon_price_currency="EUR",
        carbon_price_change_pct_per_year="10%",
        fx_rates={"EUR": 1.1},
        fx_rates_date="2026-12-01",
        fx_rates_source="test",
    )
    b = offer(mode="buy", id="b", region="ap-in", price_per_node=20_000, max_nodes=1)
    r = offer(mode="rent", id="r", region="us-east", price_per_node_month=3_000, min_term_months=1, max_nodes=1)
    offers = [b, r, DIRTY]
    hours = {("a", "b", 1): 4_000.0, ("b", "r", 1): 500.0, ("c", "dirty", 1): 100.0}
    result, plan = _solve(p, offers, hours)
    assert {a.offer_id for a in plan.assignments} == {"b", "r", "dirty"}
    assert {e.key.rsplit(":", 2)[0] for e in plan.ledger if e.kind == "carbon"} >= {"buy:b", "rent0", "job2"}
    path = tmp_path / "carbon.xlsx"
    write_workbook(result, path)
    wb = openpyxl.load_workbook(recalculated(path, tmp_path), data_only=True)

    def named(name: str) -> float:
        (sheet, ref), *_ = wb.defined_names[name].destinations
        return wb[sheet][ref.replace("$", "")].value

    assert named("total_cost") == pytest.approx(plan.total_cost, abs=0.005)
    assert named("cat_carbon") == pytest.approx(plan.breakdown["carbon"], abs=0.005)
    assert plan.breakdown["carbon"] > 0
    ws = wb["Costs"]
    lines = [r for r in range(4, ws.max_row + 1) if str(ws.cell(r, 2).value or "").startswith("carbon price of")]
    assert len(lines) == len([e for e in plan.ledger if e.kind == "carbon"])
    recomputed = sorted(ws.cell(r, 11).value for r in lines)
    assert recomputed == pytest.approx(sorted(e.amount for e in plan.ledger if e.kind == "carbon"), abs=0.005)
    cf = wb["Cash flow"]
    rows = {cf.cell(r, 2).value: r for r in range(5, 5 + len(CATEGORIES))}
    for m in range(p.horizon_months):
        want = plan.flows.get("carbon", {}).get(m, 0.0)
        assert cf.cell(rows["carbon"], 4 + m).value == pytest.approx(want, abs=0.005), m
    pnl = wb["P&L"]
    for k, y in enumerate(plan.pnl):
        assert pnl.cell(5 + k, 4).value == pytest.approx(y.operating, abs=0.005)


# --- (d) bad input ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"carbon_price_per_t": -5}, "carbon_price_per_t"),
        ({"carbon_price_per_t": 2e6}, "carbon_price_per_t"),
        ({"carbon_price_per_t": 80, "carbon_price_by_year": [80, 90]}, "not both"),
        ({"carbon_price_currency": "EUR"}, "need carbon_price_per_t"),
        ({"carbon_price_change_pct_per_year": "5%"}, "need carbon_price_per_t"),
        ({"carbon_price_per_t": 80, "carbon_price_currency": "EUR"}, "carbon_price_currency EUR has no rate"),
        ({"carbon_price_per_t": 80, "carbon_price_currency": "EURO"}, "carbon_price_currency"),
        ({"carbon_price_per_t": 80, "carbon_price_change_pct_per_year": "150%"}, "at most 100%"),
        ({"carbon_price_by_year": [10, 20]}, "has 1: give at most 1 prices"),
        ({"carbon_price_by_year": [-1.0]}, r"carbon_price_by_year\[0\] = -1.0"),
        ({"carbon_price_by_year": []}, "carbon_price_by_year"),
        ({"carbon_price_by_year": [1] * 11, "horizon_months": 120}, "carbon_price_by_year"),
        ({"carbon_price_by_year": [10], "carbon_price_change_pct_per_year": "5%"}, "goes with carbon_price_per_t"),
    ],
)
def test_bad_carbon_settings_are_refused_with_what_is_allowed(fields, message):
    with pytest.raises(ValueError, match=message):
        project([JOB], **fields)


def test_a_bad_carbon_price_in_the_workload_file_exits_1_naming_the_field(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(
        "name: x\nstart_date: 2027-01-01\nhorizon_months: 12\ncarbon_price_per_t: -80\n"
        "workloads:\n  - {name: a, model: llama-2-7b, method: full, tokens_b: 1, deadline_days: 60}\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.xlsx"
    res = cli("solve", path, "--out", out)
    assert res.exit_code == 1
    assert "w.yaml:4: error: carbon_price_per_t: Input should be greater than or equal to 0" in res.output
    assert not out.exists()
    path.write_text(
        "name: x\nstart_date: 2027-01-01\nhorizon_months: 12\ncarbon_price_per_t: 80\ncarbon_price_currency: EUR\n"
        "workloads:\n  - {name: a, model: llama-2-7b, method: full, tokens_b: 1, deadline_days: 60}\n",
        encoding="utf-8",
    )
    res = cli("solve", path, "--out", out)
    assert res.exit_code == 1 and "has no rate in fx_rates" in res.output and not out.exists()


# --- FOCUS ------------------------------------------------------------------------------------------------------


def test_focus_books_the_carbon_price_as_its_own_tax_charge():
    """The carbon rows are ChargeCategory Tax (a levy on emissions, not a provider's usage), priced per kWh: 994.5
    kWh at 713 g/kWh × 100 a tonne = 0.0713 a kWh; the rows add up to the TCO and keep the specification's rules."""
    from test_focus import focus_rule_violations

    from procure.reports.focus import cost_rows

    p = project([JOB], allowed_modes=["cloud"], carbon_price_per_t=100)
    res, plan = _solve(p, [DIRTY])
    rows = cost_rows(res)
    (carbon,) = [r for r in rows if r["x_CostCategory"] == "carbon"]
    assert (carbon["ChargeCategory"], carbon["ChargeFrequency"]) == ("Tax", "Usage-Based")
    assert carbon["PricingUnit"] == "kWh" and carbon["PricingQuantity"] == pytest.approx(994.5)
    assert carbon["ListUnitPrice"] == pytest.approx(713e-6 * 100)
    assert carbon["EffectiveCost"] == pytest.approx(994.5 * 713e-6 * 100)
    assert sum(r["EffectiveCost"] for r in rows) == pytest.approx(plan.total_cost, abs=0.005)
    as_text = [{k: "" if v is None else str(v) for k, v in r.items()} for r in rows]
    assert focus_rule_violations(as_text) == []


# --- (b) the cost–emissions frontier ----------------------------------------------------------------------------


def test_the_carbon_frontier_of_three_regions_by_hand():
    """The 100 h job on ap-in at 30 (0.7090785 t), us-east at 30.5 (994.5 × 369 / 10^6 = 0.3669705 t) or eu-north
    at 31 (0.0447525 t): the slopes 50 / 0.342108 = 146.1527 and 50 / 0.322218 = 155.1744 a tonne rise, so all
    three plans are on the frontier, each the cheapest between its break-even prices: [0, 146.1527],
    [146.1527, 155.1744], [155.1744, ∞)."""
    from procure.analysis.carbon_frontier import trace_carbon

    from helpers import fixed_sizings

    mid = offer(mode="cloud", id="mid", region="us-east", price_per_node_hour=30.5)
    offers = [DIRTY, mid, CLEAN]
    p = project([JOB], allowed_modes=["cloud"], carbon_price_per_t=40)  # the project's own price is set aside
    sizings, resize = fixed_sizings(p, offers, {("a", o.id, 1): HOURS for o in offers})
    f = trace_carbon(p, offers, sizings, resize, points=8)
    kwh = 994.5
    want = [(3_000.0, kwh * 713e-6, "dirty"), (3_050.0, kwh * 369e-6, "mid"), (3_100.0, kwh * 45e-6, "clean")]
    got = [(pt.cost, pt.tco2e, pt.plan.decisions[0].offer_id) for pt in f.points]
    assert [g[2] for g in got] == [w[2] for w in want]
    assert [x for g in got for x in g[:2]] == pytest.approx([x for w in want for x in w[:2]])
    s1, s2 = 50 / (kwh * (713 - 369) * 1e-6), 50 / (kwh * (369 - 45) * 1e-6)
    assert (s1, s2) == pytest.approx((146.1527, 155.1744), abs=1e-4)
    assert [(pt.low, pt.high) for pt in f.points] == [
        (0.0, pytest.approx(s1)),
        (pytest.approx(s1), pytest.approx(s2)),
        (pytest.approx(s2), None),
    ]
    assert f.dropped == 0


def test_procure_frontier_carbon_on_the_two_region_example(tmp_path):
    """examples/carbon-two-regions.yaml: one job, the same 8 × H100 instance at 30 on ap-in or 31 on eu-north a
    node-hour. Whatever its hours H, the dirty plan costs 30·H and emits 9.945·H·713/10^6 t (10.2 kW × 0.75 × 1.3
    = 9.945 kWh a node-hour), the clean one 31·H and 9.945·H·45/10^6; the frontier is those two plans, and the
    price between them is 1 / (9.945 × 668 / 10^6) = 150.5285 a tonne."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "carbon.json"
    res = cli("frontier", root / "examples" / "carbon-two-regions.yaml", "--carbon", "--json", out, "--quiet")
    assert res.exit_code == 0, res.output
    assert "What cleaner costs" in res.output
    doc = json.loads(out.read_text())
    dirty, clean = doc["points"]
    assert [a["offer_id"] for a in dirty["assignments"]] == ["h100-ap-in"]
    assert [a["offer_id"] for a in clean["assignments"]] == ["h100-eu-north"]
    hours = dirty["total_cost"] / 30.0  # H, from the cheapest plan's own bill
    assert clean["total_cost"] == pytest.approx(31.0 * hours, abs=0.01)
    assert dirty["tco2e"] == pytest.approx(9.945 * hours * 713e-6, abs=1e-5)
    assert clean["tco2e"] == pytest.approx(9.945 * hours * 45e-6, abs=1e-5)
    p_star = 1 / (9.945 * 668e-6)
    assert p_star == pytest.approx(150.5285, abs=1e-4)
    assert dirty["carbon_price_to"] == pytest.approx(p_star, abs=1e-4)
    assert clean["carbon_price_from"] == pytest.approx(p_star, abs=1e-4)
    assert clean["cost_per_tco2e_avoided"] == pytest.approx(p_star, abs=0.01)
    assert doc["dropped_points"] == 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--jobs", "a"], "--carbon traces the whole programme"),
        (["--out", "f.csv"], ".xlsx"),
        (["--objective", "npv"], "give --objective tco"),
        (["--points", "1"], "give 2 to 50"),
    ],
)
def test_frontier_carbon_bad_options_exit_1(tmp_path, extra, message):
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    res = cli("frontier", root / "examples" / "carbon-two-regions.yaml", "--carbon", *extra)
    assert res.exit_code == 1 and message in res.output, res.output


def test_owned_servers_and_signed_commitments_pay_the_carbon_price_whatever_the_plan():
    """Two servers owned from February to August (power_kw_per_node 10.2, us-east) and a rental signed on the start
    for 6 months: their idle energy is priced as committed entries (owed whatever the plan does), and the
    verifier's own rule agrees. The owned window is 2027-02-01 to 2027-08-01, 181 days: 2 × 10.2 × 0.15 × 181 × 24
    × 1.3 kWh × 369 / 10^6 × 100."""
    from procure.solver import holdings

    p = project(
        [dict(JOB, deadline_days=200)],
        horizon_months=12,
        carbon_price_per_t=100,
        owned=[{"offer": "dgx", "nodes": 2, "from": "2027-02-01", "until": "2027-08-01"}],
        commitments=[{"offer": "r", "nodes": 1, "start_date": "2027-01-01", "months": 6}],
    )
    r = offer(mode="rent", id="r", price_per_node_month=14_000, min_term_months=1, max_nodes=2)
    offers = holdings.with_owned(p, [offer(mode="buy", id="dgx"), r, DIRTY])
    hours = {("a", "dgx.owned", 2): 720.0, ("a", "r", 1): 720.0, ("a", "dirty", 1): 720.0}
    _res, plan = _solve(p, offers, hours)
    own = plan.ledger["own:dgx.owned:carbon:y1"]
    assert own.committed and own.amount == pytest.approx(2 * 10.2 * 0.15 * 181 * 24 * 1.3 * 369e-6 * 100)
    signed = [e for e in plan.ledger if e.kind == "carbon" and e.key.startswith("rent")]
    assert signed and all(e.committed for e in signed)
    # the rental holds its node January to June 2027: 181 days
    assert sum(e.amount for e in signed) == pytest.approx(10.2 * 0.15 * 181 * 24 * 1.3 * 369e-6 * 100)


@pytest.mark.soffice
@pytest.mark.slow
def test_the_carbon_frontier_workbook_recalculates_to_the_break_even_price(tmp_path):
    """``--out``: the Carbon frontier sheet of the two-region example, recalculated by LibreOffice: the clean plan's
    cost per tonne avoided (=extra TCO / tCO2e avoided, formulas over its row) is p* = 1 / (9.945 × 668 / 10^6)."""
    import shutil
    from pathlib import Path

    import openpyxl

    from helpers import recalculated

    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice (soffice) is not installed: cannot recalculate the workbook")
    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "carbon.xlsx"
    res = cli("frontier", root / "examples" / "carbon-two-regions.yaml", "--carbon", "--out", out, "--quiet")
    assert res.exit_code == 0, res.output
    ws = openpyxl.load_workbook(recalculated(out, tmp_path), data_only=True)["Carbon frontier"]
    assert ws.cell(6, 1).value == 1 and ws.cell(7, 1).value == 2
    assert ws.cell(7, 6).value == pytest.approx(1 / (9.945 * 668e-6), abs=0.01)
    assert ws.cell(7, 5).value == pytest.approx(ws.cell(7, 3).value - ws.cell(6, 3).value, abs=0.01)
