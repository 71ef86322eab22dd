"""What the approval meeting reads: the headline, the comparison, the risks and the budgets.

One section per finding of the review "what the approval meeting reads must be right"; each test
fails on the code before the fix. Expected values are worked out by hand from the inputs.
"""

from __future__ import annotations

import io
import subprocess
import sys

import openpyxl
import pytest
from rich.console import Console

from procure.common.errors import InputError
from procure.models.project import load_project
from procure.offers.catalog import load_catalog
from procure.reports.console import print_result
from procure.reports.headline import comparisons, peaks, recommendation, spot_risk, stale_text
from procure.reports.json_report import result_to_json
from procure.reports.xlsx import write_workbook
from procure.solver.costs import RentalContract
from procure.solver.enums import SolveStatus
from procure.solver.milp import SolveInfo
from procure.solver.plan import Decision, build_plan
from procure.solver.planner import budget_measure, plan_project
from procure.solver.verify import VerificationError, verify_plan

from helpers import EXAMPLES, offer, project, solve_fixed, workload

HOURS_PER_MONTH = 730.0


def _example(stem: str, **update):
    path = next(p for p in EXAMPLES if p.stem == stem)
    proj, _ = load_project(path)
    if update:
        proj = proj.model_copy(update=update)
    cat = load_catalog([path.parent / x for x in proj.offers] if proj.offers else None)
    return proj, cat


# --- 1. the headline names the peak nodes held at once ----------------------------------------------


def test_headline_and_plan_sheet_name_the_peak_nodes_held_at_once(tmp_path):
    """7 nodes for 10 months and 1 node for 12 months, rented at the same time: the order is 8 nodes."""
    rent = offer(
        id="rent-a", mode="rent", price_per_node_month=10_000, setup_fee_per_node=0, min_term_months=1, max_nodes=8
    )
    proj = project(
        [workload(name="big", deadline_days=320), workload(name="small", deadline_days=365)],
        horizon_months=12,
        allowed_modes=["rent"],
    )
    hours = {("big", "rent-a", 7): 10 * HOURS_PER_MONTH - 1, ("small", "rent-a", 1): 12 * HOURS_PER_MONTH - 1}
    result = solve_fixed(proj, [rent], hours, compare=False)
    assert sorted(r.nodes for r in result.plan.rentals) == [1, 7]
    (pk,) = peaks(result)
    assert pk.peak_nodes == 8
    text = recommendation(result)
    assert text.startswith("Rent 8 × 8xH100-SXM-80GB nodes (64 GPUs) at peak"), text  # 8 nodes × 8 GPUs
    write_workbook(result, tmp_path / "r.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "r.xlsx")["Plan"]
    start = next(r for r in range(1, ws.max_row + 1) if str(ws.cell(r, 1).value).startswith("Peak capacity"))
    assert ws.cell(start + 2, 1).value == "rent-a" and ws.cell(start + 2, 5).value == 8


# --- 2. modes outside allowed_modes are shown as excluded --------------------------------------------


def _excluded_result():
    offers = [
        offer(id="buy-h100", mode="buy", lead_time_days=0),
        offer(id="rent-h100", mode="rent", price_per_node_month=1_000),
        offer(id="cloud-h100", mode="cloud"),
    ]
    proj = project([workload(deadline_days=30)], allowed_modes=["buy", "cloud"])
    return plan_project(proj, offers, n_runner_ups=0)


def test_modes_outside_allowed_modes_are_excluded_not_compared(tmp_path):
    result = _excluded_result()
    rent = result.strategies["rent"]
    assert rent.status == SolveStatus.EXCLUDED and rent.plan is None
    text = recommendation(result)
    assert "rent only excluded by you" in text and "less TCO than rent only" not in text
    assert result_to_json(result)["strategies"]["rent"]["total_cost"] is None
    write_workbook(result, tmp_path / "x.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "x.xlsx")["Summary"]
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "rent only")
    assert ws.cell(row, 2).value == "excluded by you"


# --- 3. spot is named, and its on-demand fallback is on page 1 ----------------------------------------


def test_spot_is_named_and_the_on_demand_fallback_is_costed(tmp_path):
    """Spot 98/node-hour with 15% lost hours against on-demand 120: the same shape costs 120 / (98 × 1.15) as much."""
    spot = offer(
        id="cloud-spot", mode="cloud", price_per_node_hour=98.0, spot=True, spot_overhead_pct=0.15, max_nodes=2
    )
    od = offer(id="cloud-od", mode="cloud", price_per_node_hour=120.0, max_nodes=2)
    proj = project([workload(deadline_days=30)], allowed_modes=["cloud"])
    result = solve_fixed(
        proj, [spot, od], {("job", "cloud-spot", 1): 100.0, ("job", "cloud-od", 1): 100.0}, compare=False
    )
    assert result.plan.assignments[0].offer_id == "cloud-spot"
    assert result.plan.total_cost == pytest.approx(100 * 1.15 * 98.0)
    assert "SPOT" in recommendation(result)
    risk = spot_risk(result)
    assert risk.fallback_cost == pytest.approx(100 * 120.0)
    assert risk.extra == pytest.approx(12_000 - 11_270)
    write_workbook(result, tmp_path / "s.xlsx")
    summary = openpyxl.load_workbook(tmp_path / "s.xlsx")["Summary"]
    page1 = " ".join(str(summary.cell(r, 1).value) for r in range(1, 12))
    assert "On-demand fallback" in page1 and "12,000" in page1


# --- 4. the objective is named, and strategies are compared on it ----------------------------------------


def test_npv_objective_is_named_and_strategies_are_compared_on_npv():
    proj, cat = _example("full-67b-60days")
    result = plan_project(proj, cat.offers, objective="npv", n_runner_ups=0)
    rows = {c.name: c for c in comparisons(result)}
    assert rows["hybrid"].cost == pytest.approx(result.plan.npv_cost)
    assert rows["buy"].cost == pytest.approx(result.strategies["buy"].plan.npv_cost)
    assert rows["buy"].other == pytest.approx(result.strategies["buy"].plan.total_cost)
    out = io.StringIO()
    print_result(Console(file=out, width=160), result)
    text = out.getvalue()
    assert "minimizing the net present value" in text
    assert "Strategies compared on NPV (minimized), TCO beside it" in text
    assert "net present value (minimized" in recommendation(result)
    # the cloud job moves to its latest start: a discounting effect, and the report says so
    assert "start later than allowed because NPV is minimized" in text


# --- 5 and 6. a live workbook that prints --------------------------------------------------------------
# (LibreOffice recalculation and PDF export: tests/test_excel.py, test_summary_follows_an_edited_price and
# test_printed_pdf_has_no_hash_marks; cached values: test_cached_values_equal_libreoffice)


# --- 7. budgets: TCO, peak cash out and capex ------------------------------------------------------------


def test_budget_is_a_deprecated_alias_of_budget_tco(tmp_path):
    f = tmp_path / "w.yaml"
    f.write_text(
        "name: b\nbudget: 1000000\nworkloads:\n  - {name: a, model: llama-2-7b, method: full, tokens_b: 1, deadline_days: 30}\n"
    )
    proj, warnings = load_project(f)
    assert proj.budget_tco == 1_000_000
    assert any("deprecated" in str(w) and "budget_tco" in str(w) for w in warnings)


def test_peak_cash_out_of_a_rental_is_worked_by_hand():
    """One node rented for 2 months at 16,000 with a 900 setup fee: cash out peaks at 32,900 by month 2."""
    rent = offer(id="r", mode="rent", price_per_node_month=16_000, setup_fee_per_node=900, min_term_months=2)
    proj = project([workload(deadline_days=40)])
    plan = build_plan(proj, {"r": rent}, [Decision("job", "r", 1, 8, 300.0, 0.0)], {}, [RentalContract("r", 1, 0, 2)])
    assert budget_measure(plan, "cash") == pytest.approx(32_900)
    verify_plan(proj.model_copy(update={"budget_cash": 33_000}), {"r": rent}, plan, None, ("rent",))
    with pytest.raises(VerificationError, match="budget_cash"):
        verify_plan(proj.model_copy(update={"budget_cash": 32_000}), {"r": rent}, plan, None, ("rent",))


def test_budget_cash_and_capex_are_constraints_of_the_optimizer():
    """Buying 1 node costs 150,000 up front (resold for 60,000 at the end): TCO 90,000. Renting it for the
    6 months of the job costs 6 × 16,000 = 96,000. Buying is cheaper, but its cash out peaks at 150,000,
    renting's at 96,000: a 100,000 cash or capex cap forces renting; a 10,000 cash cap leaves no plan."""
    buy = offer(
        id="b",
        mode="buy",
        price_per_node=150_000,
        power_kw_per_node=1.0,
        residual_value_pct=0.4,
        maintenance_pct_per_year=0.0,
        colocation_per_node_month=0.0,
        max_nodes=1,
    )
    rent = offer(id="r", mode="rent", price_per_node_month=16_000, setup_fee_per_node=0, min_term_months=1, max_nodes=1)
    proj = project([workload(deadline_days=180)], horizon_months=6, electricity_price_per_kwh=0.0)
    hours = {("job", "b", 1): 4000.0, ("job", "r", 1): 4000.0}  # 166.7 days: months 1-6
    free = solve_fixed(proj, [buy, rent], hours, compare=False)
    assert [p.offer_id for p in free.plan.purchases] == ["b"] and free.plan.total_cost == pytest.approx(90_000)
    for cap in ({"budget_cash": 100_000}, {"budget_capex": 100_000}):
        capped = solve_fixed(proj.model_copy(update=cap), [buy, rent], hours, compare=False)
        assert capped.plan.purchases == [] and capped.plan.total_cost == pytest.approx(6 * 16_000), cap
    tight = solve_fixed(proj.model_copy(update={"budget_cash": 10_000}), [buy, rent], hours, compare=False)
    assert tight.status == "infeasible" and "budget_cash" in " ".join(tight.hybrid.reasons["(budget)"])


# --- 8. comparators solved to a gap, and runner-ups costed like with like ----------------------------------


def test_a_comparator_stopped_at_a_gap_is_quoted_as_at_most():
    result = _excluded_result()
    buy = result.strategies["buy"]
    buy.status = SolveStatus.FEASIBLE
    buy.solve = SolveInfo(
        name="cbc", version="", status=SolveStatus.FEASIBLE, seconds=1.0, gap=0.05, objective=buy.plan.total_cost
    )
    (c,) = [c for c in comparisons(result) if c.name == "buy"]
    assert c.diff > 0, "buying a server for a 30-day job costs more than the cloud"
    assert c.bound == "at most" and c.text.startswith("at most ") and "5.0% gap" in c.text
    assert "at most" in recommendation(result)


def test_runner_ups_cost_the_whole_plan_with_the_other_offer(tmp_path):
    """Like with like: the plan re-solved with the workload held to another offer can never beat the optimum."""
    proj, cat = _example("qlora-7b-week")
    result = plan_project(proj, cat.offers)
    write_workbook(result, tmp_path / "o.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "o.xlsx")["Options"]
    start = next(r for r in range(1, ws.max_row + 1) if str(ws.cell(r, 1).value).startswith("Runner-up offers"))
    listed = [
        ws.cell(r, 10).value for r in range(start + 2, start + 2 + sum(len(u) for u in result.runner_ups.values()))
    ]
    assert listed and all(isinstance(v, (int, float)) and v >= -0.01 for v in listed if v != "—")
    assert result.runner_ups
    for w, ups in result.runner_ups.items():
        for r in ups:
            assert r.plan_cost is None or r.extra_cost >= -0.01, (w, r.option.offer_id, r.extra_cost)
            if r.plan_cost is not None:
                assert r.assignment.offer_id == r.option.offer_id


# --- 9. an infeasible run with --out says why there is no workbook -------------------------------------------


def test_infeasible_run_with_out_says_no_workbook(tmp_path):
    f = tmp_path / "w.yaml"
    f.write_text(
        "name: none\nallowed_modes: [cloud]\nworkloads:\n  - {name: huge, model: llama-2-70b, method: pretrain, tokens_b: 2000, deadline_days: 3}\n"
    )
    out = tmp_path / "plan.xlsx"
    res = subprocess.run(
        [sys.executable, "-m", "procure", "solve", str(f), "--out", str(out), "--no-compare"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 2, res.stderr
    assert "no workbook: no plan" in res.stdout + res.stderr
    assert not out.exists()


# --- 10. the console never cuts numbers or dates ----------------------------------------------------------


@pytest.mark.slow
def test_console_at_80_columns_keeps_every_number_and_date():
    proj, cat = _example("programme-12-months")
    result = plan_project(proj, cat.offers, n_runner_ups=1)
    out = io.StringIO()
    print_result(Console(file=out, width=80, legacy_windows=False), result)
    text = out.getvalue()
    assert "…" not in text
    for a in result.plan.assignments:
        for day in (a.start_day, a.end_day):
            assert costs_date(proj, day) in text
        assert f"{a.cost:,.0f}" in text
        assert a.workload in text.replace("\n", "") or all(part in text for part in a.workload.split("-"))
    assert max(len(line) for line in text.splitlines() if "│" in line or "┃" in line) <= 80


def costs_date(proj, day: float) -> str:
    import datetime as dt

    return (proj.start_date + dt.timedelta(days=day)).isoformat()


# --- 11. China: regions, network lines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "typed, region",
    [
        ("shanghai", "cn-east"),
        ("Beijing", "cn-north"),
        ("shenzhen", "cn-south"),
        ("china", "cn"),
        ("CN-East", "cn-east"),
        ("hong kong", "ap-hk"),
    ],
)
def test_team_region_aliases(typed, region):
    assert project([workload()], team_region=typed).team_region == region
    assert project([workload()], team_region=typed).team_area == region.split("-")[0]


def test_unknown_team_region_has_a_did_you_mean(tmp_path):
    f = tmp_path / "w.yaml"
    f.write_text(
        "name: x\nteam_region: shangai\nworkloads:\n  - {name: a, model: llama-2-7b, method: full, tokens_b: 1, deadline_days: 30}\n"
    )
    with pytest.raises(InputError) as exc:
        load_project(f)
    msg = str(exc.value)
    assert "did you mean 'shanghai'" in msg and "w.yaml:2:" in msg


def test_network_line_is_normalized_at_validation_and_counts_as_premium():
    o = offer(id="hk", mode="cloud", region="ap-hk", network_line="CN2 GIA")
    assert o.network_line == "cn2-gia"
    proj = project([workload(deadline_days=30)], team_region="shanghai", allowed_modes=["cloud"])
    result = plan_project(proj, [o], compare=False, n_runner_ups=0)
    assert result.plan is not None and result.plan.assignments[0].offer_id == "hk"


def test_a_team_in_china_needs_a_premium_line_to_offers_abroad():
    o = offer(id="us", mode="cloud", region="us-east")
    result = plan_project(
        project([workload(deadline_days=30)], team_region="china", allowed_modes=["cloud"]),
        [o],
        compare=False,
        n_runner_ups=0,
    )
    assert result.plan is None and "premium" in " ".join(r.reason for r in result.rejections)


# --- 13. stale prices ----------------------------------------------------------------------------------------


def test_stale_quotes_are_flagged_on_console_and_summary(tmp_path):
    o = offer(id="old", mode="cloud", quoted_on="2026-01-01")
    proj = project([workload(deadline_days=30)], start_date="2027-01-01", allowed_modes=["cloud"])
    result = plan_project(proj, [o], compare=False, n_runner_ups=0)
    assert "old quoted 2026-01-01 (365 days)" in stale_text(result)
    out = io.StringIO()
    print_result(Console(file=out, width=200), result)
    assert "Stale prices" in out.getvalue()
    write_workbook(result, tmp_path / "s.xlsx")
    summary = openpyxl.load_workbook(tmp_path / "s.xlsx")["Summary"]
    assert any("Stale prices" in str(summary.cell(r, 1).value) for r in range(1, 15))
    fresh = plan_project(proj.model_copy(update={"stale_quote_days": 400}), [o], compare=False, n_runner_ups=0)
    assert stale_text(fresh) == ""


@pytest.mark.slow
def test_runner_ups_option_sets_how_many_offers_are_re_solved():
    path = next(p for p in EXAMPLES if p.stem == "qlora-7b-week")
    runs = {
        n: subprocess.run(
            [sys.executable, "-m", "procure", "solve", str(path), "--runner-ups", str(n), "--no-compare"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        for n in (0, 1)
    }
    assert runs[0].returncode == 0 and runs[1].returncode == 0
    assert "Runner-up offers" not in runs[0].stdout
    assert "Runner-up offers" in runs[1].stdout
