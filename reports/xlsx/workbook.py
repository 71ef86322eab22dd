"""The approval workbook: a live model of the chosen plan, not a picture of it.

Sheets (``SHEETS``, in this order)
    Summary      the recommendation, key figures, the strategies side by side, charts, deadlines.
    Plan         per workload: where, how, when and at what cost; capacity; a monthly timeline.
    Costs        every line item as quantity × unit price formulas over input cells.
    Cash flow    months as columns, each line item's share of its Costs total; totals; NPV.
    P&L          per project year: depreciation vs operating costs, interest, gain on disposal.
    Lease vs buy with the project's tax: the plan after income tax, buying against the best strategy that buys
                 none (IRR, payback, net advantage to leasing), leases on the balance sheet and EBITDA.
    Options      every feasible shape with its stand-alone cost, every rejection with its reason.
    Assumptions  inputs, sizing, GPU specs, prices with source and date, cost model, solver, this run.

Every number comes from the cost model (``solver.costs``) and the result objects: the line items'
quantities are the cost model's (owned days, wall hours, contract months), so the formulas reproduce
``plan.breakdown`` / ``plan.total_cost`` / ``plan.npv_cost`` to the cent, and stay live when a price is
edited. Sheets refer to each other through workbook-level defined names (``total_cost``,
``npv_cost``, ``cat_<category>``, ``cm_<parameter>``, one per line item), never through row numbers
guessed in advance. Text from inputs is always written as text, never as a formula. The file is built
in memory and replaces the target atomically.

Sheet names, labels, sentences and number formats are the reader's language (``reports.i18n.Lang``,
``--lang``); formulas refer to sheets through defined names and ``Names.sheet``, so they work in
every language. A zh-CN workbook names Noto Sans CJK SC on every cell, so it prints its glyphs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result

import datetime as dt
from collections.abc import Iterable
from io import BytesIO

from openpyxl import Workbook

from procure.fileio.outputs import atomic_write

from ..emissions_report import write_costs_block, write_summary_block
from ..i18n import EN, N_, Lang
from ..lines import line_items
from .assumptions import write_assumptions
from .cashflow import write_cash_flow
from .costs import write_costs
from .leasebuy import SHEET as LEASE_SHEET, write_lease_vs_buy
from .names import Names
from .options import write_options
from .plan import write_plan
from .pnl import write_pnl
from .style import charts_on_whole_pages, fit_wrapped_rows, name_fonts, with_cached_values
from .summary import write_summary

SHEETS = (N_("Summary"), N_("Plan"), N_("Costs"), N_("Cash flow"), N_("P&L"), N_("Options"), N_("Assumptions"))


def build_workbook(result: Result, inputs: Iterable = (), now: dt.datetime | None = None, tr: Lang = EN) -> Workbook:
    """The approval workbook in the reader's language ``tr`` (sheet names, labels, number formats, font)."""
    if result.plan is None:
        raise ValueError("the workbook needs a plan; infeasible results are reported on the console and in JSON")
    now = now or dt.datetime.now()
    wb = Workbook()
    shown = SHEETS if result.project.tax is None else (*SHEETS[:5], LEASE_SHEET, *SHEETS[5:])
    sheets = {name: (wb.active if i == 0 else wb.create_sheet()) for i, name in enumerate(shown)}
    names = Names()
    for name, ws in sheets.items():
        ws.title = tr(name)
        names.sheet[name] = ws.title
    items = line_items(result, tr)
    # the sheets that define names come first; the Summary refers to them
    write_costs(sheets["Costs"], result, items, names, tr)
    write_costs_block(sheets["Costs"], result, tr)  # operational emissions below the costs
    write_cash_flow(sheets["Cash flow"], result, items, names, tr)
    write_pnl(sheets["P&L"], result, names, tr)
    if LEASE_SHEET in sheets:
        write_lease_vs_buy(sheets[LEASE_SHEET], result, names, tr)
    write_summary(sheets["Summary"], result, names, inputs, tr)
    write_summary_block(sheets["Summary"], result, tr)
    write_plan(sheets["Plan"], result, tr)
    write_options(sheets["Options"], result, tr)
    write_assumptions(sheets["Assumptions"], result, inputs, now, tr)
    wb.active = 0
    return wb


def finish(wb: Workbook, tr: Lang = EN) -> bytes:
    """The workbook as bytes: the reader's font named on every cell, every formula with its cached result."""
    if tr.font:
        name_fonts(wb, tr.font)
    for ws in wb.worksheets:
        fit_wrapped_rows(ws)
        charts_on_whole_pages(ws)
    buf = BytesIO()
    wb.save(buf)
    return with_cached_values(buf.getvalue(), wb)


def workbook_bytes(result: Result, inputs: Iterable = (), tr: Lang = EN) -> bytes:
    """The approval workbook as bytes, every formula with its cached result (readers without a
    calculation engine, such as pandas or a file preview, see the numbers)."""
    wb = build_workbook(result, list(inputs), tr=tr)
    return finish(wb, tr)


def approval_bytes(result: Result, inputs: Iterable = (), tr: Lang = EN, analysis=None, frontier=None) -> bytes:
    """The approval workbook as bytes, with the analysis sheets (``solve --analyze``) and the Frontier sheet
    (``solve --frontier``) after its own when given."""
    wb = build_workbook(result, list(inputs), tr=tr)
    if analysis is not None:
        from .analysis import add_analysis_sheets

        add_analysis_sheets(wb, analysis, tr)
    if frontier is not None and frontier.points:
        from .frontier import add_frontier_sheet

        add_frontier_sheet(wb, frontier, tr)
    return finish(wb, tr)


def write_workbook(result: Result, path, inputs: Iterable = (), tr: Lang = EN) -> None:
    """Write the approval workbook to ``path`` atomically (complete file or nothing)."""
    atomic_write(path, workbook_bytes(result, inputs, tr))
