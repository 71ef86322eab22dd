"""The tornado and Monte Carlo drivers of the money beyond the prices, worked by hand: the exchange rate (fx_rate),
the income tax rate (tax_rate), the depreciation life (depreciation_life) and the resale value (residual_value,
bought and owned servers).

Every case starts on 2027-01-01 with a 12-month horizon and fixed hours, no electricity, maintenance or colocation,
so a purchase is one payment in month 0 and one resale credit in month 11 (the horizon's last month), and a server
is depreciated (book and tax) from month 0 by whole months. None of the figures below depends on a month's length.
End-of-month discounting at 10 % a year: f_m = 1 / (1 + r_m)^(m+1), r_m = 1.1^(1/12) − 1.
"""

from __future__ import annotations

import io
import json
import shutil

import pytest
from rich.console import Console

from procure.analysis import Context
from procure.analysis.engine import inert_drivers, solve_scenario
from procure.analysis.recost import as_decided
from procure.analysis.scenario import Scenario, scaled_project
from procure.common.errors import InputError
from procure.models.project import load_project
from procure.reports.analysis_console import print_analysis
from procure.reports.analysis_json import analysis_to_json
from procure.reports.xlsx.analysis import build_analysis_workbook
from procure.solver import holdings
from procure.solver.enums import Objective

from helpers import HOURS, analysis_run as run, offer, project

FX = {"fx_rates": {"USD": 7.0}, "fx_rates_date": "2026-12-01", "fx_rates_source": "test rate"}
RATE = 0.10


def _f(m: int) -> float:
    r_m = (1 + RATE) ** (1 / 12) - 1
    return 1 / (1 + r_m) ** (m + 1)


def _job(name: str = "job") -> dict:
    return dict(name=name, model="llama-2-7b", method="full", tokens_b=1, deadline_days=120)


def _buy(**kw):
    base = dict(
        mode="buy",
        id="b",
        price_per_node=100_000,
        residual_value_pct=0.5,
        maintenance_pct_per_year=0,
        colocation_per_node_month=0,
        max_nodes=1,
    )
    base.update(kw)
    return offer(**base)


def _hours(offers, jobs=("job",)):
    return {(j, o.id, 1): HOURS for o in offers for j in jobs}


def _bar(a, driver):
    return next(b for b in a.sensitivity if b.driver == driver)


def _plan_at(a, strategy: str, values: dict):
    """Today's plan of ``strategy`` re-costed as decided under the scenario ``values`` (the tornado's re-cost)."""
    got = as_decided(
        a.base.strategies[strategy].plan,
        a.inputs.apply(Scenario.of("x", values)),
        1.0,
        tuple(a.base.strategies[strategy].modes),
    )
    assert got.runs
    return got.plan


# --- the exchange rate -------------------------------------------------------------------------------------


def test_fx_rate_moves_what_is_quoted_in_another_currency_by_exactly_its_factor():
    """A CNY project buying a server quoted at 10,000 USD (7 CNY a dollar): capex 70,000 CNY, resale 0.5 · 70,000 =
    35,000 back, TCO 35,000. The dollar 10 % dearer (fx_rate × 1.1): capex 77,000 (+10 %), resale 38,500, TCO 38,500;
    10 % cheaper: 31,500. A cloud offer quoted in CNY (2,160 h × 25 = 54,000) does not move."""
    b = _buy(price_per_node=10_000, currency="USD")
    c = offer(mode="cloud", id="c", price_per_node_hour=25, currency="CNY")
    p = project([_job()], currency="CNY", electricity_price_per_kwh=0, **FX)
    p = p.model_copy(
        update={"analysis": p.analysis.model_validate({"sensitivity": {"fx_rate": {"low": 0.9, "high": 1.1}}})}
    )
    a = run(p, [b, c], _hours([b, c]), sensitivity=True)
    assert a.base.strategies["buy"].plan.total_cost == pytest.approx(35_000)
    bar = _bar(a, "fx_rate")
    assert bar.reach == "objective"
    assert bar.tco("high", "buy") == pytest.approx(38_500) and bar.tco("low", "buy") == pytest.approx(31_500)
    assert bar.tco("low", "cloud") == bar.tco("high", "cloud") == pytest.approx(54_000)
    plan = _plan_at(a, "buy", {"fx_rate": 1.1})
    assert plan.breakdown["capex"] == pytest.approx(1.1 * 70_000) == pytest.approx(77_000)
    assert plan.breakdown["residual_value"] == pytest.approx(-38_500)
    # a project whose every amount is in its own currency has no exchange rate to move
    local = project([_job()], currency="CNY", electricity_price_per_kwh=0)
    a2 = run(local, [c], _hours([c]))
    assert "fx_rate" in inert_drivers(Context.of(a2.inputs, a2.base))


# --- the income tax rate -----------------------------------------------------------------------------------


def _taxed(objective=Objective.TCO, **tax):
    """Buy 100,000 CNY (resale 50,000 in month 11), straight line over 5 years: 100,000 / 60 a month deducted in
    months 0…11 (20,000), the 80,000 not yet deducted against the 50,000 proceeds at the sale: a loss of 30,000."""
    b = _buy()
    p = project(
        [_job()],
        currency="CNY",
        electricity_price_per_kwh=0,
        discount_rate=RATE,
        allowed_modes=["buy"],
        tax={"income_tax_rate": "25%", "depreciation": "straight-line", **tax},
        analysis={"sensitivity": {"tax_rate": {"low": 0.8, "high": 1.2}}},
    )
    return run(p, [b], _hours([b]), sensitivity=True, objective=objective)


def _after_tax_npv(t: float, basis: float = 100_000, proceeds: float = 50_000, life_months: int = 60) -> float:
    """The after-tax NPV of one purchase by hand: the cash (basis in month 0, the proceeds back in month 11), less
    t × each month's straight-line deduction, plus t × the gain at the sale (proceeds − basis not yet deducted)."""
    months = min(life_months, 12)
    deducted = basis / life_months * months
    cash = basis * _f(0) - proceeds * _f(11)
    saved = t * (basis / life_months) * sum(_f(m) for m in range(months))
    return cash - saved + t * (proceeds - (basis - deducted)) * _f(11)


def test_tax_rate_moves_the_after_tax_npv_by_hand_and_not_the_tco():
    # 25 % × 0.8 = 20 %, × 1.2 = 30 %: each point of tax rate is worth (1,666.67 · Σ_{m=0..11} f_m + 30,000 · f_11)
    a = _taxed()
    bar = _bar(a, "tax_rate")
    assert bar.reach == "after_tax"  # the objective is the TCO: no cash flow before tax moves
    assert bar.tco("low") == bar.tco("high") == pytest.approx(50_000)
    assert bar.after_tax("low") == pytest.approx(_after_tax_npv(0.20), abs=0.01)
    assert bar.after_tax("high") == pytest.approx(_after_tax_npv(0.30), abs=0.01)
    per_point = (100_000 / 60) * sum(_f(m) for m in range(12)) + 30_000 * _f(11)
    assert bar.after_tax("low") - bar.after_tax("high") == pytest.approx(0.10 * per_point, abs=0.01)
    # every report says what the bar moves
    row = next(r for r in analysis_to_json(a)["sensitivity"] if r["driver"] == "tax_rate")
    assert row["reach"] == "after_tax" and row["high_after_tax_npv"] == pytest.approx(_after_tax_npv(0.30), abs=0.01)
    out = io.StringIO()
    print_analysis(Console(file=out, width=250), a)
    assert "tax_rate moves no cash flow before tax, so today's plan's TCO stays as it is" in out.getvalue()
    frame = a.sensitivity_frame().set_index("driver")
    assert frame.loc["tax_rate", "low_after_tax_npv"] == pytest.approx(_after_tax_npv(0.20), abs=0.01)
    ws = build_analysis_workbook(a).worksheets[0]
    head = [c.value for c in ws[6]]
    row_of = {ws.cell(r, 1).value: r for r in range(7, ws.max_row + 1)}
    r = row_of["tax_rate"]
    assert ws.cell(r, head.index("after-tax NPV at high") + 1).value == pytest.approx(_after_tax_npv(0.30), abs=0.01)
    assert "moves no cash flow before tax" in ws.cell(r, head.index("note") + 1).value


def test_on_the_after_tax_objective_the_tax_rate_moves_the_figure_minimized():
    a = _taxed(Objective.AFTER_TAX_NPV)
    bar = _bar(a, "tax_rate")
    assert bar.reach == "objective"
    assert bar.measure("low") == pytest.approx(_after_tax_npv(0.20), abs=0.01)
    assert bar.measure("high") == pytest.approx(_after_tax_npv(0.30), abs=0.01)


def test_a_lower_tax_rate_can_change_the_after_tax_decision_so_it_is_re_solved():
    """Buy 100,000 CNY (resale 50,000 in month 11, tax life 20 years: 100,000/240 a month) or rent at 4,750 CNY a
    month for the 12 months. Before tax buying costs 100,000·f0 − 50,000·f11 against renting's 4,750·Σf: buying
    wins, narrowly. After tax at 25 % renting costs 0.75 of it, buying 0.25 · (100,000/240 · Σf + (95,000 − 50,000)
    · f11) less (the deductions come later than the payment): renting wins. With no tax (tax_rate × 0) buying wins
    again, so on the after-tax objective a tax-rate scenario is re-solved, never kept."""
    sum_f = sum(_f(m) for m in range(12))

    def buy_after(t):
        return 100_000 * _f(0) - 50_000 * _f(11) - t * (100_000 / 240 * sum_f + (95_000 - 50_000) * _f(11))

    def rent_after(t):
        return (1 - t) * 4_750 * sum_f

    assert rent_after(0.25) < buy_after(0.25) and buy_after(0) < rent_after(0)
    b = _buy()
    r = offer(mode="rent", id="r", price_per_node_month=4_750, min_term_months=12, max_nodes=1)
    p = project(
        [_job()],
        currency="CNY",
        electricity_price_per_kwh=0,
        discount_rate=RATE,
        allowed_modes=["buy", "rent"],
        tax={"income_tax_rate": "25%", "depreciation": "straight-line", "life_years": 20},
    )
    a = run(p, [b, r], _hours([b, r]), objective=Objective.AFTER_TAX_NPV)
    assert a.base.plan.modes() == {"rent"}
    assert a.base.plan.after_tax_npv == pytest.approx(rent_after(0.25), abs=0.01)
    ctx = Context.of(a.inputs, a.base)
    untaxed = solve_scenario(ctx, Scenario.of("t", {"tax_rate": 0.0}), ("hybrid",)).strategies["hybrid"]
    assert untaxed.solved and untaxed.modes == ("buy",)
    assert untaxed.after_tax_npv == pytest.approx(buy_after(0), abs=0.01)
    # on the TCO the tax rate touches no coefficient: today's plan (buying) is kept without a solve
    tco = run(p, [b, r], _hours([b, r]))
    kept = solve_scenario(Context.of(tco.inputs, tco.base), Scenario.of("t", {"tax_rate": 0.0}), ("hybrid",))
    assert not kept.strategies["hybrid"].solved and kept.strategies["hybrid"].modes == ("buy",)


# --- the resale value --------------------------------------------------------------------------------------


def test_residual_value_times_half_halves_the_resale_credit_of_bought_and_owned_servers():
    """Two 90-day jobs due day 120 cannot share a node: one runs on the owned server (resale 30,000 CNY at the end,
    nothing else to pay), the other on a bought one (100,000, resale 0.5 · 100,000 = 50,000; the cloud at
    2,160 h × 30 = 64,800 is dearer). Resale credit 80,000, TCO −30,000 + 100,000 − 50,000 = 20,000. At
    residual_value × 0.5 the credit is 40,000 (15,000 + 25,000): TCO 60,000; at × 1.5: 120,000, TCO −20,000."""
    b = _buy()
    c = offer(mode="cloud", id="c", price_per_node_hour=30)
    p = project(
        [_job("j1"), _job("j2")],
        currency="CNY",
        electricity_price_per_kwh=0,
        owned=[{"offer": "b", "nodes": 1, "residual_value": 30_000}],
        analysis={"sensitivity": {"residual_value": {"low": 0.5, "high": 1.5}}},
    )
    offers = holdings.with_owned(p, [b, c])
    a = run(p, offers, _hours(offers, ("j1", "j2")), sensitivity=True)
    assert sorted(x.offer_id for x in a.base.plan.assignments) == ["b", "b.owned"]
    assert a.base.plan.breakdown["residual_value"] == pytest.approx(-80_000)
    assert a.base.plan.total_cost == pytest.approx(20_000)
    plan = _plan_at(a, "hybrid", {"residual_value": 0.5})
    assert plan.breakdown["residual_value"] == pytest.approx(-40_000)
    bar = _bar(a, "residual_value")
    assert bar.tco("low") == pytest.approx(60_000) and bar.tco("high") == pytest.approx(-20_000)


# --- the depreciation life ---------------------------------------------------------------------------------


def test_depreciation_life_moves_the_p_and_l_and_the_tax_life_by_hand():
    """Buy 120,000 CNY, resale 60,000; the offer's book life 4 years (48 months: 2,500 a month), the tax's straight
    line 4 years too, 25 %. Over the 12 months: book depreciation 30,000, loss on disposal 60,000 − 90,000; tax
    deductions 30,000 and a loss of 30,000 at the sale. depreciation_life × 0.5 (2 years, 24 months: 5,000 a
    month): book depreciation 60,000, book value 60,000 = the proceeds (no gain or loss); tax the same. The P&L
    costs 60,000 either way (= the TCO, which does not move); the after-tax NPV moves by the timing alone."""
    b = _buy(price_per_node=120_000, depreciation_years=4)
    p = project(
        [_job()],
        currency="CNY",
        electricity_price_per_kwh=0,
        discount_rate=RATE,
        allowed_modes=["buy"],
        depreciation_years=5,
        tax={"income_tax_rate": "25%", "depreciation": "straight-line", "life_years": 4},
        analysis={"sensitivity": {"depreciation_life": {"low": 0.5, "high": 2}}},
    )
    a = run(p, [b], _hours([b]), sensitivity=True)
    today = a.base.plan
    assert sum(y.depreciation for y in today.pnl) == pytest.approx(30_000)
    assert sum(y.disposal_gain for y in today.pnl) == pytest.approx(-30_000)
    short = _plan_at(a, "buy", {"depreciation_life": 0.5})
    assert sum(y.depreciation for y in short.pnl) == pytest.approx(60_000)
    assert sum(y.disposal_gain for y in short.pnl) == pytest.approx(0, abs=1e-6)
    assert sum(y.cost for y in short.pnl) == pytest.approx(60_000) == pytest.approx(short.total_cost)
    bar = _bar(a, "depreciation_life")
    assert bar.reach == "after_tax"  # the objective is the TCO
    assert bar.tco("low") == bar.tco("high") == pytest.approx(60_000)
    kw = dict(basis=120_000, proceeds=60_000)
    assert today.after_tax_npv == pytest.approx(_after_tax_npv(0.25, life_months=48, **kw), abs=0.01)
    assert bar.after_tax("low") == pytest.approx(_after_tax_npv(0.25, life_months=24, **kw), abs=0.01)
    assert bar.after_tax("high") == pytest.approx(_after_tax_npv(0.25, life_months=96, **kw), abs=0.01)


def test_the_tax_life_never_goes_below_the_laws_minimum_and_a_fixed_table_keeps_its_shares():
    p = project([_job()], tax={"income_tax_rate": "25%", "depreciation": "cn-straight-line"}, depreciation_years=5)
    # mainland China: electronic equipment at least 3 years (the rule's default and minimum)
    assert scaled_project(p, Scenario.of("x", {"depreciation_life": 0.5})).tax.life_years == 3
    assert scaled_project(p, Scenario.of("x", {"depreciation_life": 1.5})).tax.life_years == pytest.approx(4.5)
    assert scaled_project(p, Scenario.of("x", {"depreciation_life": 0.5})).depreciation_years == pytest.approx(2.5)
    # the one-off deduction falls back to that straight line: its life moves too
    one_off = project([_job()], tax={"income_tax_rate": "25%", "depreciation": "cn-one-off"})
    assert scaled_project(one_off, Scenario.of("x", {"depreciation_life": 2})).tax.life_years == 6
    macrs = project([_job()], tax={"income_tax_rate": "21%", "depreciation": "us-macrs-5"})
    assert scaled_project(macrs, Scenario.of("x", {"depreciation_life": 2})).tax.life_years is None


def test_without_tax_the_depreciation_life_moves_only_the_p_and_l_and_the_tax_rate_nothing():
    b = _buy()
    p = project([_job()], currency="CNY", electricity_price_per_kwh=0, allowed_modes=["buy"])
    a = run(p, [b], _hours([b]), sensitivity=True)
    assert _bar(a, "depreciation_life").reach == "pnl" and _bar(a, "tax_rate").reach == "nothing"
    out = io.StringIO()
    print_analysis(Console(file=out, width=300), a)
    text = out.getvalue()
    assert "depreciation_life moves only the P&L" in text
    assert "Nothing in these inputs for" in text and "tax_rate" in text.split("Nothing in these inputs for")[1]
    assert json.loads(json.dumps(analysis_to_json(a)))["sensitivity"][0]["low_after_tax_npv"] is None


# --- the Monte Carlo ---------------------------------------------------------------------------------------


def test_monte_carlo_draws_the_four_drivers_and_every_sample_costs_what_the_hand_formula_says():
    """The USD server of the fx case with the tax of the tax case (straight line 4 years, 25 %), on the after-tax
    objective: each scenario's committed plan is today's purchase re-costed, so its TCO is
    70,000 · k_fx · (1 − 0.5 · k_res) and its after-tax NPV the hand formula at basis 70,000 · k_fx, proceeds
    0.5 · k_res of it, t = 0.25 · k_tax and a life of round(48 · k_life) months."""
    b = _buy(price_per_node=10_000, currency="USD")
    tri = lambda lo, hi: {"dist": "triangular", "low": lo, "mode": 1.0, "high": hi}  # noqa: E731
    p = project(
        [_job()],
        currency="CNY",
        electricity_price_per_kwh=0,
        discount_rate=RATE,
        allowed_modes=["buy"],
        tax={"income_tax_rate": "25%", "depreciation": "straight-line", "life_years": 4},
        analysis={
            "uncertainty": {
                "fx_rate": tri(0.8, 1.2),
                "residual_value": tri(0.5, 1.5),
                "tax_rate": tri(0.8, 1.2),
                "depreciation_life": tri(0.5, 2.0),
                "mfu": None,
            },
            "seed": 3,
        },
        **FX,
    )
    a = run(p, [b], _hours([b]), monte_carlo=12, objective=Objective.AFTER_TAX_NPV)
    assert len(a.monte_carlo) == 12
    tcos, afters = [], []
    for o in a.monte_carlo:
        k = o.scenario.values()
        basis = 70_000 * k["fx_rate"]
        proceeds = basis * 0.5 * k["residual_value"]
        s = o.strategies["hybrid"]
        assert s.total_cost == pytest.approx(basis - proceeds, abs=0.01)
        life = max(1, round(48 * k["depreciation_life"]))
        hand = _after_tax_npv(0.25 * k["tax_rate"], basis=basis, proceeds=proceeds, life_months=life)
        assert s.after_tax_npv == pytest.approx(hand, abs=0.01)
        tcos.append(s.total_cost)
        afters.append(s.after_tax_npv)
    assert len({round(x, 2) for x in tcos}) == 12 and len({round(x, 2) for x in afters}) == 12
    frame = a.scenarios_frame()
    assert {"fx_rate", "tax_rate", "depreciation_life", "residual_value", "after_tax_npv"} <= set(frame.columns)
    hybrid = a.summary.strategies["hybrid"]
    assert hybrid["p10"] < hybrid["p50"] < hybrid["p90"]  # the after-tax NPV, the figure minimized, spreads


@pytest.mark.slow
@pytest.mark.soffice
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed")
def test_the_taxed_tornado_and_monte_carlo_sheets_recalculate_without_an_error(tmp_path):
    """The tax case's workbook (the after-tax columns and the notes of the Sensitivity sheet, the new drivers'
    columns of the Scenarios sheet) opened and recalculated by LibreOffice: no cell is an error, and the
    after-tax NPV at the tax rate's ends is the hand figure."""
    import openpyxl

    from helpers import recalculated

    b = _buy()
    p = project(
        [_job()],
        currency="CNY",
        electricity_price_per_kwh=0,
        discount_rate=RATE,
        allowed_modes=["buy"],
        tax={"income_tax_rate": "25%", "depreciation": "straight-line"},
        analysis={
            "sensitivity": {"tax_rate": {"low": 0.8, "high": 1.2}},
            "uncertainty": {"tax_rate": {"dist": "triangular", "low": 0.8, "mode": 1.0, "high": 1.2}, "mfu": None},
        },
    )
    a = run(p, [b], _hours([b]), sensitivity=True, monte_carlo=6)
    path = tmp_path / "analysis.xlsx"
    build_analysis_workbook(a).save(path)
    wb = openpyxl.load_workbook(recalculated(path, tmp_path / "recalc"), data_only=True)
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                assert not (isinstance(c.value, str) and c.value.startswith(("#", "Err:"))), (ws.title, c.coordinate)
    ws = wb["Sensitivity"]
    head = [c.value for c in ws[6]]
    r = next(r for r in range(7, ws.max_row + 1) if ws.cell(r, 1).value == "tax_rate")
    assert ws.cell(r, head.index("after-tax NPV at low") + 1).value == pytest.approx(_after_tax_npv(0.20), abs=0.01)
    assert "tax_rate" in [c.value for c in wb["Scenarios"][1]]


# --- one list of drivers -----------------------------------------------------------------------------------


def test_every_driver_is_named_validated_placed_and_translated_alike():
    """A driver added to DRIVERS and forgotten elsewhere would be refused in the workload file, or treated as
    touching no MILP (today's plan kept where it should be re-solved), or reach the reports untranslated."""
    from typing import get_args

    from procure.analysis.engine import EVERY_MODE, MODE_DRIVERS, OBJECTIVE_DRIVERS
    from procure.models.analysis import DRIVERS, DriverName
    from procure.reports.i18n import catalogue

    assert get_args(DriverName) == tuple(DRIVERS)
    placed = set().union(*MODE_DRIVERS.values(), *OBJECTIVE_DRIVERS.values(), EVERY_MODE)
    assert placed == set(DRIVERS)
    zh = catalogue("zh-CN")
    for d, (what, _unit) in DRIVERS.items():
        assert zh.get(d, "").strip() and zh.get(what, "").strip(), d


# --- bad input ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "analysis", "message"),
    [
        ("", "  sensitivity:\n    fx_rate: {low: 0, high: 1.2}\n", "fx_rate.low: 0 must be a factor above 0"),
        ("", "  sensitivity:\n    depreciation_life: {low: -1, high: 2}\n", "depreciation_life.low: -1 must be"),
        ("", "  sensitivity:\n    tax_rate: {low: 0.8, high: 1.2}\n", "sensitivity.tax_rate: the project has no tax"),
        (
            "tax: {income_tax_rate: 25%}\n",
            "  uncertainty:\n    tax_rate: {dist: triangular, low: 0.5, mode: 1, high: 5}\n",
            "uncertainty.tax_rate.high: ×5 of the income tax rate 0.25 is 1.25, above 0.99",
        ),
        (
            "",
            "  sensitivity:\n    fx_rate: {low: 0.9, high: 1.1}\n",
            "sensitivity.fx_rate: the project has no fx_rates",
        ),
        ("", "  sensitivity:\n    fx_rates: {low: 0.9, high: 1.1}\n", "did you mean 'fx_rate'"),
    ],
)
def test_bad_driver_settings_are_refused_with_the_field_and_what_is_allowed(tmp_path, extra, analysis, message):
    f = tmp_path / "w.yaml"
    f.write_text(
        "name: x\nworkloads:\n  - {name: a, model: llama-2-7b, method: full, tokens_b: 1, deadline_days: 30}\n"
        + extra
        + "analysis:\n"
        + analysis
    )
    with pytest.raises(InputError) as exc:
        load_project(f)
    text = " ".join(str(p) for p in exc.value.problems)
    assert message in text and "analysis" in text
