"""What a finance reader reads: every price in the currency it is in (or converted), node counts that say
nodes and GPUs, one base for "X% less than", no signed zero, and no words of the solver's trade.

Hand-worked case (electricity 0, fx USD = 7 CNY): a CNY project, one job of 720 node-hours due day 40, on
the CNY cloud offer ``c`` at 100 CNY per node-hour (720 × 100 = 72,000 CNY) or on the USD bare-metal offer
``x`` at 20,000 USD per node-month, one-month terms (one month: 20,000 × 7 = 140,000 CNY). Buying is not
allowed. The plan runs the job on the cloud, 72,000 CNY; rent only costs 140,000 CNY; cloud only is the plan.

- ``x`` wins when 7·p ≤ 72,000: p* = 10,285.71 USD (to the cent, down), which is 71,999.97 CNY; today it is
  20,000 USD = 140,000 CNY; the change is 10,285.71 / 20,000 − 1 = −48.6 % → "-49%". Read as yuan,
  10,285.71 would be 7× too low: the figure must say USD, or be converted.
- The recommended plan saves 140,000 − 72,000 = 68,000 CNY against rent only: 68,000 / 140,000 = 48.6 % of
  rent only's cost → "49% less", in the sentence, the console table and the workbook alike (against the
  recommended plan's own cost it would be 68,000 / 72,000 = 94 %: the base that disagreed).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import shutil

import openpyxl
import pytest
from rich.console import Console

from procure.analysis import break_even as be
from procure.analysis.engine import Context
from procure.reports.i18n import Lang

from helpers import TableResizer, analysis_run, offer, project

ZH = Lang("zh-CN", currency="CNY")
FX = 7.0
P_STAR = 10_285.71  # floor(72,000 / 7, to the cent)


def _project(deadline: int = 40, **kw):
    return project(
        [dict(name="a", model="llama-2-7b", method="full", tokens_b=1, deadline_days=deadline)],
        currency="CNY",
        fx_rates={"USD": FX},
        fx_rates_date=dt.date(2026, 11, 1),
        fx_rates_source="test rate",
        electricity_price_per_kwh=0,
        allowed_modes=["rent", "cloud"],
        **kw,
    )


OFFERS = [
    offer(mode="rent", id="x", currency="USD", price_per_node_month=20_000, min_term_months=1, setup_fee_per_node=0),
    offer(mode="cloud", id="c", currency="CNY", price_per_node_hour=100),
]
HOURS = {("a", "x", 1): 720.0, ("a", "c", 1): 720.0}


@pytest.fixture(scope="module")
def analysed():
    a = analysis_run(_project(), OFFERS, HOURS, break_even=True)
    assert a.base.plan.total_cost == pytest.approx(72_000)  # 720 h × 100 CNY
    assert a.base.strategies["rent"].plan.total_cost == pytest.approx(140_000)  # 20,000 USD × 7
    return a


def _x(a):
    return next(b for b in a.break_even if b.subject == "x")


def _text(render) -> str:
    console = Console(record=True, width=400)
    render(console)
    return console.export_text()


# --- 1. a price carries the currency it is in, or is converted ----------------------------------------------


def test_the_break_even_of_a_usd_offer_in_a_cny_project_is_shown_in_cny_with_the_quote_beside_it(analysed):
    b = _x(analysed)
    assert b.break_even == pytest.approx(P_STAR, abs=0.01)  # in the offer's own field and currency
    s = b.sentence("CNY")
    assert "wins at or below 71,999.97 CNY per node-month [10,285.71 USD]" in s, s
    assert "(today 140,000.00 CNY [20,000.00 USD], -49%)" in s, s
    assert "10,285.71 CNY" not in s  # the USD figure never carries the project's currency


def test_the_chinese_break_even_says_yuan_for_yuan_and_dollars_for_dollars(analysed):
    from procure.reports.analysis_console import break_even_sentence

    s = break_even_sentence(_x(analysed), "CNY", ZH)
    assert "71,999.97 元/节点·月［10,285.71 美元］" in s, s
    assert "现价 140,000.00 元［20,000.00 美元］" in s, s
    assert "10,285.71 元" not in s


def test_analyze_json_and_console_give_the_break_even_in_both_currencies(analysed):
    from procure.reports.analysis_console import print_analysis
    from procure.reports.analysis_json import analysis_to_json

    row = next(r for r in analysis_to_json(analysed)["break_even"] if r["offer"] == "x")
    assert row["currency"] == "USD"
    assert row["break_even"] == pytest.approx(P_STAR, abs=0.01)
    assert row["reporting_break_even"] == pytest.approx(P_STAR * FX, abs=0.01)
    assert row["reporting_current"] == pytest.approx(140_000)
    frame = analysed.break_even_frame().set_index("offer").loc["x"]  # the Python API carries them too
    assert frame["currency"] == "USD" and frame["reporting_break_even"] == pytest.approx(P_STAR * FX, abs=0.01)
    text = _text(lambda c: print_analysis(c, analysed))
    assert "71,999.97 CNY per node-month [10,285.71 USD]" in text


def test_the_break_even_sheet_formats_each_price_in_its_own_currency_and_converts_it(analysed):
    from procure.reports.xlsx.analysis import analysis_workbook_bytes

    ws = openpyxl.load_workbook(io.BytesIO(analysis_workbook_bytes(analysed)), data_only=True)["Break-even"]
    heads = [ws.cell(4, c).value for c in range(1, 13)]
    assert heads[10:] == ["today in CNY", "break-even in CNY"]
    r = next(r for r in range(5, ws.max_row + 1) if ws.cell(r, 1).value == "x")
    assert ws.cell(r, 6).value == pytest.approx(20_000) and '"USD"' in ws.cell(r, 6).number_format
    assert ws.cell(r, 7).value == pytest.approx(P_STAR, abs=0.01) and '"USD"' in ws.cell(r, 7).number_format
    assert ws.cell(r, 11).value == pytest.approx(140_000) and '"CNY"' in ws.cell(r, 11).number_format
    assert ws.cell(r, 12).value == pytest.approx(P_STAR * FX, abs=0.01)
    assert ws.cell(r, 8).value == pytest.approx(P_STAR / 20_000 - 1, abs=1e-6)


def test_explain_shows_the_break_even_converted_and_the_nodes_with_their_gpus(analysed):
    from procure.app_explain import Explained
    from procure.reports.csv_report import explain_csv
    from procure.reports.explain_report import explained_to_json, print_explained
    from procure.reports.tables import explanation_row
    from procure.solver.explain import explain

    r = analysed.base
    e = explain(r, "a", "x", resize=TableResizer(HOURS))
    e.break_even = be.explain_break_even(r, "x", "a", Context.of(analysed.inputs, r))
    assert e.extra_cost == pytest.approx(140_000 - 72_000)
    done = Explained(r, "x", [e])
    text = _text(lambda c: print_explained(c, done))
    assert "at or below 71,999.97 CNY per node-month [10,285.71 USD]" in text, text
    # where each plan runs: one node of eight GPUs, never a bare "1 × c"
    assert "1 node (8 × H100-SXM-80GB) on c" in text and "1 node (8 × H100-SXM-80GB) on x" in text, text
    zh = _text(lambda c: print_explained(c, done, ZH))
    assert "71,999.97 元/节点·月［10,285.71 美元］" in zh, zh
    got = explained_to_json(done)["explanations"][0]["break_even"]
    assert got["currency"] == "USD" and got["price"] == pytest.approx(P_STAR, abs=0.01)
    assert got["reporting_price"] == pytest.approx(P_STAR * FX, abs=0.01)
    assert got["reporting_current"] == pytest.approx(140_000)
    (row,) = csv.DictReader(io.StringIO(explain_csv([explanation_row(e, "CNY")]).decode("utf-8-sig")))
    assert row["break_even_currency"] == "USD" and "[10,285.71 USD]" in row["break_even_text"]


# --- 10. one base for "X% less than", stated where it is shown ------------------------------------------------


def test_the_saving_against_a_strategy_has_one_base_in_the_sentence_the_table_and_the_workbook(analysed):
    from procure.reports.console import print_result
    from procure.reports.csv_report import tables
    from procure.reports.headline import recommendation
    from procure.reports.xlsx.workbook import workbook_bytes

    r = analysed.base
    assert "49% less TCO than rent only" in recommendation(r)  # 68,000 / 140,000
    text = _text(lambda c: print_result(c, r))
    assert "recommended saves" in text and "(% of its TCO)" in text  # a two-line header
    line = next(ln for ln in text.splitlines() if ln.startswith("│ rent only"))
    assert "68,000 (49%)" in line and "94%" not in line, line  # not 68,000 / 72,000
    cloud = next(ln for ln in text.splitlines() if ln.startswith("│ cloud only"))
    assert "0 (same)" in cloud and "+0" not in cloud, cloud
    ws = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)), data_only=True)["Summary"]
    rows = {}
    for i in range(1, ws.max_row + 1):
        rows.setdefault(ws.cell(i, 1).value, i)
    head = rows["strategy"]
    assert [ws.cell(head, c).value for c in (3, 4)] == ["recommended saves", "% of its TCO"]
    assert ws.cell(rows["rent only"], 3).value == pytest.approx(68_000)
    assert ws.cell(rows["rent only"], 4).value == pytest.approx(68_000 / 140_000)
    assert ws.cell(rows["cloud only"], 4).value == 0
    strategies = {x["name"]: x for x in csv.DictReader(io.StringIO(tables(r)["strategies.csv"].decode("utf-8-sig")))}
    assert float(strategies["rent"]["recommended_saves_pct"]) == pytest.approx(68_000 / 140_000)


def test_a_plan_dearer_than_a_strategy_is_more_than_it_on_the_strategy_s_cost():
    """The other way round: when the plan costs more (its own solve stopped at a gap), "X% more than
    <strategy>" is (plan − strategy) / strategy — here 110 / 100 − 1 = 10%, not 10 / 110 = 9%."""
    from types import SimpleNamespace

    from procure.reports import headline

    plan = SimpleNamespace(total_cost=110.0, npv_cost=110.0)
    cheaper = SimpleNamespace(total_cost=100.0, npv_cost=100.0)

    def strat(p):
        return SimpleNamespace(status="optimal", plan=p, solve=None)

    result = SimpleNamespace(
        objective="tco",
        objective_cost=110.0,
        status="feasible",
        strategies={"hybrid": strat(plan), "rent": strat(cheaper)},
    )
    (rent,) = [c for c in headline.comparisons(result) if c.name == "rent"]
    assert rent.text.startswith("10% more TCO than rent only"), rent.text
    assert headline.saving_text(rent) == "-10 (-10%)"


# --- 5. node counts say nodes and GPUs -------------------------------------------------------------------


def test_the_recommendation_says_the_gpus_in_the_nodes(analysed):
    from procure.reports.headline import recommendation

    assert recommendation(analysed.base).startswith("Use 1 × 8xH100-SXM-80GB node (8 GPUs) at peak")
    assert "1 台 8xH100-SXM-80GB 节点（8 块 GPU）" in recommendation(analysed.base, ZH)


def test_runner_ups_say_the_nodes_beside_the_gpus():
    from procure.reports.console import print_result

    from helpers import solve_fixed

    r = solve_fixed(_project(), OFFERS, HOURS, n_runner_ups=2)
    text = _text(lambda c: print_result(c, r))
    line = next(ln for ln in text.splitlines() if "│ a " in ln and "│ x " in ln)
    assert "H100-SXM-80GB × 8 (1 node)" in line, line


# --- 10. no signed zero, no trade words ---------------------------------------------------------------------


def test_a_change_that_rounds_to_nothing_never_prints_a_signed_zero():
    # a break-even 0.25% under today's price: "-0.2%" (as many decimals as show it), never "-0%"
    b = be.BreakEven("x", "offer", "rent", "price_per_node_month", 20_000.0, 19_950.0, "", vendor="V", label="L")
    s = b.sentence("USD")
    assert "-0%" not in s and "-0.2%" in s, s
    # and a tie to the cent's fraction: "0%", no sign
    b.break_even = 20_000.0 - 1e-7
    assert ", 0%)" in b.sentence("USD"), b.sentence("USD")
    from procure.solver.reasons import Amount, say

    assert str(Amount(-0.3, "USD", signed=True)) == "0 USD"  # not "-0 USD"
    zh = ZH.say(say("{category} {amount}", category="cloud", amount=Amount(-0.3, "USD", signed=True)))
    assert zh == "cloud 0 美元", zh
    # the comparison's differences in 万: -0.2 shows as no 万 at all, so it has no sign; -123,456 is -12.3 万
    from procure.reports.analysis_console import _signed
    from procure.reports.i18n import lang_for

    wan = lang_for("zh-CN", amounts_in="wan")
    assert not _signed(-0.2, wan).startswith(("-", "+")) and _signed(-123_456, wan).startswith("-12.3")


def test_a_held_plan_that_costs_the_same_is_said_in_plain_words():
    from procure.reports.headline import WHY_LABEL
    from procure.solver.explain import Why, _price_reason

    why, msg = _price_reason(72_000.0, 72_000.0, {"cloud": (72_000.0, 72_000.0)}, "CNY", "c")
    assert why is Why.SAME
    assert "tie" not in msg and "tie" not in WHY_LABEL["same"]
    assert msg == "held to it, the whole plan costs the same: either offer will do, and the recommended plan uses c"
    assert WHY_LABEL["same"] == "same cost"


def test_no_report_says_what_only_the_solver_s_authors_would_read():
    """The phrases the issue lists, in any sentence the reports can print (tests/test_i18n.py's extractor of
    every label and sentence), and the Monte Carlo's failure reason."""
    import inspect

    from test_i18n import labels_in_code

    from procure.analysis import recourse

    said = list(labels_in_code()) + [inspect.getsource(recourse.recourse)]
    for phrase in ("E[committed]", "E[hindsight", "without a column", ": a tie", "a tie with the free plan"):
        assert not [s for s in said if phrase in s], phrase


# --- 10. solve's and analyze's P50 / P90: one exact, one sampled, each saying so -------------------------------


def test_analyze_says_its_percentiles_are_sampled_and_gives_solve_s_exact_range():
    """The solve's range is exact over the hours band: P50 at the band's median (× 1) = 72,000 CNY, P90 at
    × HOURS_BAND_P90 / HOURS_BAND_P50 = × 1.743 / 1.000 → 72,000 × 1.743 = 125,496 CNY (the cloud bill is
    linear in the hours; the band of python -m bench.calibration, docs/sizing.md). The Monte Carlo draws the
    same band in 40 scenarios, so its percentiles differ by the sampling error: the output says which is
    which, and gives the exact figures beside the sampled ones. Due day 120, the 720-hour job meets its
    deadline up to × 4 its hours (2,880 h = 120 days), so nothing else differs: the band's upper side has
    σ = ln 1.743 / 1.2816 = 0.434, and its 40 seeded draws reach × 3.33 at most (the job ending day 99.76
    of 30); due day 60 (× 2) two of them missed the deadline, as P(r > 2) = 1 − Φ(ln 2 / 0.434) = 5.5 % says."""
    from procure.reports.analysis_console import print_analysis
    from procure.reports.headline import range_lines
    from procure.reports.xlsx.analysis import analysis_workbook_bytes
    from procure.solver.sizing.constants import constant

    assert (constant("HOURS_BAND_P50"), constant("HOURS_BAND_P90")) == (1.0, 1.743)
    a = analysis_run(_project(deadline=120), OFFERS, HOURS, monte_carlo=40)
    assert a.base.risk.tco_p50 == pytest.approx(72_000) and a.base.risk.tco_p90 == pytest.approx(125_496)
    assert "over the hours band alone (exact, not sampled): P50 72,000 CNY, P90 125,496 CNY" in range_lines(a.base)[0]
    raw = _text(lambda c: print_analysis(c, a))
    text = " ".join(raw.split())
    assert "a Monte Carlo of 40 sampled scenarios" in text
    assert (
        "Sampled: the percentiles above come from 40 drawn scenarios (the hours band); procure solve gives today's "
        "plan P50 72,000 CNY and P90 125,496 CNY, exact over the hours band alone and not sampled: they differ by "
        "the sampling error of 40 scenarios." in text
    ), text
    # the recommended (hybrid) plan ties cloud only: its "cheapest in" is not a bare "0%" beside the plan chosen
    table = raw[raw.index("a Monte Carlo of 40") :]
    cells = [c.strip() for c in next(ln for ln in table.splitlines() if ln.startswith("│ hybrid (free)")).split("│")]
    assert cells[8] == "—", cells  # strategy, P10, P50, P90, runs as decided, needs recourse, mean, cheapest in
    assert "mixing modes was strictly cheaper in 0% of the scenarios" in text
    assert "E[" not in text
    ws = openpyxl.load_workbook(io.BytesIO(analysis_workbook_bytes(a)), data_only=True)["Uncertainty"]
    notes = [ws.cell(r, 1).value or "" for r in range(1, 15)]
    assert any(n.startswith("Sampled: the percentiles above come from 40") for n in notes), notes


def test_analyze_says_which_scenarios_its_percentiles_leave_out():
    """Due day 40, the job misses its deadline when its hours exceed 40 × 24 = 960 = 720 × 4/3: in those
    scenarios no plan exists and the Monte Carlo's percentiles leave them out, while the solve's P90 costs the
    plan as decided there — a second reason, beside the sampling error, that the sentence names."""
    from procure.analysis import montecarlo as mc
    from procure.reports.analysis_console import sampled_text

    p = _project(deadline=40)
    late = sum(1 / s.value("mfu") > 4 / 3 for s in mc.draw(p.analysis, 40, None))
    assert late > 0
    a = analysis_run(p, OFFERS, HOURS, monte_carlo=40)
    text = sampled_text(a)
    assert f"the sampling error of 40 scenarios; the {late} scenario(s) in which no plan meets the deadlines" in text


# --- the workbook recalculated: the live formulas say the same as the Python that cached them --------------


@pytest.mark.slow  # LibreOffice recalculates the workbook: about 10 s
@pytest.mark.soffice
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed")
def test_the_recalculated_workbook_keeps_one_base_and_converts_the_break_even(analysed, tmp_path):
    """LibreOffice recomputes every formula (no cached value is read): the Summary's sentence says "49% less
    TCO than rent only" (68,000 / 140,000), its columns 68,000 and 48.6% of rent only's cost; the Break-even
    sheet's converted columns are 20,000 × 7 and 10,285.71 × 7, its change −48.6%."""
    from procure.reports.xlsx.analysis import add_analysis_sheets
    from procure.reports.xlsx.workbook import build_workbook

    from helpers import recalculated

    wb = build_workbook(analysed.base, [])
    add_analysis_sheets(wb, analysed)
    path = tmp_path / "book.xlsx"
    wb.save(path)  # no cached results: LibreOffice must compute each formula itself
    book = openpyxl.load_workbook(recalculated(path, tmp_path), data_only=True)
    ws = book["Summary"]
    cells = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert any("49% less TCO than rent only" in t for t in cells), [t for t in cells if "TCO than" in t]
    rows = {}
    for i in range(1, ws.max_row + 1):
        rows.setdefault(ws.cell(i, 1).value, i)
    assert ws.cell(rows["rent only"], 3).value == pytest.approx(68_000)
    assert ws.cell(rows["rent only"], 4).value == pytest.approx(68_000 / 140_000)
    assert ws.cell(rows["cloud only"], 3).value == 0 and ws.cell(rows["cloud only"], 4).value == 0
    be_ws = book["Break-even"]
    r = next(r for r in range(5, be_ws.max_row + 1) if be_ws.cell(r, 1).value == "x")
    assert be_ws.cell(r, 11).value == pytest.approx(140_000)
    assert be_ws.cell(r, 12).value == pytest.approx(P_STAR * FX, abs=0.01)
    assert be_ws.cell(r, 8).value == pytest.approx(P_STAR / 20_000 - 1, abs=1e-6)
