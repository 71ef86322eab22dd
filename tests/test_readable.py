"""Small readability fixes: the progress line shows the figure minimized, no empty runner-up table under the
"not costed" warning, and a fixed charge has no node count on the Costs sheet."""

from __future__ import annotations

import dataclasses
import io

import openpyxl
from rich.console import Console

from helpers import fixed_sizings, offer, project, solve_fixed, workload


def _case(**kw):
    p = project([workload(name="a", deadline_days=60)], **kw)
    offers = [
        offer(id="c1", mode="cloud", price_per_node_hour=30.0, fixed_cost=5_000),
        offer(id="c2", mode="cloud", price_per_node_hour=40.0),
    ]
    hours = {("a", "c1", 1): 100.0, ("a", "c2", 1): 400.0}
    return p, offers, hours


def test_with_the_npv_objective_the_progress_line_shows_the_npv():
    from procure.progress import strategy_line

    p, offers, hours = _case(discount_rate=0.5)
    res = solve_fixed(p, offers, hours, compare=False, objective="npv")
    plan = res.plan
    assert abs(plan.npv_cost - plan.total_cost) > 1  # a 50% rate discounts the bill
    line = strategy_line(res.hybrid, "USD", "npv")
    assert f"NPV {plan.npv_cost:,.0f} USD" in line and f"{plan.total_cost:,.0f}" not in line
    assert f"{plan.total_cost:,.0f} USD" in strategy_line(res.hybrid, "USD")  # TCO as before


def test_no_empty_runner_up_table_under_the_not_costed_warning():
    from procure.common.runtime import Budget
    from procure.reports.console import print_result
    from procure.solver.planner import runner_ups, skipped_note

    p, offers, hours = _case()
    res = solve_fixed(p, offers, hours, compare=False)
    sizings, resize = fixed_sizings(p, offers, hours)
    ups = runner_ups(
        p, res.offers, sizings, res.hybrid, "tco", n=1, budget=Budget(1e-3), resize=resize, solver="cbc", gap=1e-6
    )
    res = dataclasses.replace(res, runner_ups=ups, runner_ups_skipped=skipped_note(ups))
    console = Console(record=True, width=160)
    print_result(console, res)
    text = console.export_text()
    assert "runner-ups not costed" in text and "Runner-up offers per workload" not in text


def test_a_fixed_charge_has_no_node_count_on_the_costs_sheet():
    from procure.reports.xlsx.workbook import workbook_bytes

    p, offers, hours = _case()
    res = solve_fixed(p, offers, hours, compare=False)
    assert res.plan.assignments[0].offer_id == "c1"  # 5,000 + 100 h × 30 = 8,000 < 400 h × 40 = 16,000
    ws = openpyxl.load_workbook(io.BytesIO(workbook_bytes(res, [])))["Costs"]
    row = next(r for r in range(1, ws.max_row + 1) if str(ws.cell(r, 2).value).startswith("fixed charge"))
    assert ws.cell(row, 4).value is None and ws.cell(row, 11).value.startswith("=")


def test_the_progress_line_reads_in_chinese():
    from procure.progress import strategy_line
    from procure.reports import i18n
    from procure.reports.i18n import Lang

    p, offers, hours = _case()
    res = solve_fixed(p, offers, hours, compare=False)
    i18n.MISSING.clear()
    line = strategy_line(res.hybrid, "USD", "tco", Lang("zh-CN", currency="USD"))
    assert not i18n.MISSING and line.startswith("混合") and "最优" in line and "秒" in line and "optimal" not in line
    assert strategy_line(res.hybrid, "USD") == strategy_line(res.hybrid, "USD", "tco", Lang())  # English as before
