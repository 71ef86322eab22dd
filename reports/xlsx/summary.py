"""Summary sheet: the recommendation, key figures, the four strategies side by side, TCO and
cumulative-cash-out charts with the break-even month of buying, and the deadlines.

Its figures are formulas over the names the Costs and Cash flow sheets define (``total_cost``,
``npv_cost``, ``cat_<category>``), so they follow an edited input."""

from __future__ import annotations

import math

from openpyxl.chart import BarChart, LineChart, Reference, Series
from openpyxl.chart.label import DataLabelList
from openpyxl.styles import Alignment, Font
from openpyxl.worksheet.pagebreak import Break
from openpyxl.worksheet.worksheet import Worksheet

from procure.solver.costs import CATEGORIES

from ..console import STRATEGY_LABEL, recommendation
from ..tables import break_even, day_date, strategy_rows
from .names import Names
from .style import (
    BAD_FONT, BOLD, CHOSEN_FILL, NOTE_FONT, NUM_FMT, DATE_FMT, SECTION_FONT, TITLE_FONT, TOTAL_FILL, WRAP, align_top, formula, header,
    money_fmt, print_setup, put, widths,
)


def write_summary(ws: Worksheet, result, names: Names) -> None:
    p, plan = result.project, result.plan
    cur = p.currency
    mfmt = money_fmt(cur)
    note_align = Alignment(indent=1, vertical="top")
    put(ws, 1, 1, f"{p.name} — GPU compute procurement", font=TITLE_FONT)
    info = result.hybrid.solve
    gap = f", gap {info.gap:.2%}" if info and info.gap is not None else ""
    put(ws, 2, 1, f"{len(p.workloads)} workload(s), {len(result.offers)} offers compared, horizon {p.horizon_months} months from "
                  f"{p.start_date.isoformat()}; solver status: {result.status} ({info.name if info else ''}{gap}); plan verified independently.",
        font=NOTE_FONT)
    put(ws, 4, 1, "Recommendation", font=SECTION_FONT)
    put(ws, 5, 1, recommendation(result), font=Font(bold=True, size=12), align=Alignment(wrap_text=True, vertical="top"))
    ws.merge_cells(start_row=5, start_column=1, end_row=5, end_column=8)
    ws.row_dimensions[5].height = 36
    # key figures
    row = 7
    put(ws, row, 1, "Key figures", font=SECTION_FONT)
    row += 1
    header(ws, row, ["figure", "amount", "note"])

    def merge_note(r: int) -> None:
        ws.merge_cells(start_row=r, start_column=3, end_row=r, end_column=8)

    merge_note(row)
    row += 1
    opex = [c for c in CATEGORIES if c not in ("capex", "residual_value")]
    figures = [
        ("Total cost of ownership", f"={names.grand_total}", f"over {p.horizon_months} months, undiscounted; the sum of every line item on the Costs sheet", True),
    ]
    if p.discount_rate > 0:
        figures.append(("Net present value of the costs", f"={names.npv}", f"discounted at {p.discount_rate:.1%} a year, end-of-month cash flows (Cash flow sheet)", False))
    figures += [
        ("Capex (purchases)", f"={names.category_total['capex']}", "server purchases, paid on delivery", False),
        ("Residual value", f"={names.category_total['residual_value']}", "resale value of the bought servers at the horizon end (negative = money back)", False),
        ("Opex", "=" + "+".join(names.category_total[c] for c in opex), "maintenance, colocation, energy, rent, setup fees and cloud", False),
    ]
    for label, f, note, strong in figures:
        put(ws, row, 1, label, font=BOLD if strong else None)
        formula(ws, row, 2, f, mfmt, font=BOLD if strong else None, fill=TOTAL_FILL if strong else None)
        put(ws, row, 3, note, font=NOTE_FONT, align=note_align)
        merge_note(row)
        row += 1
    late = [a for a in plan.assignments if a.slack_days < -1e-9]
    tight = min(plan.assignments, key=lambda a: a.slack_days)
    put(ws, row, 1, "Deadlines")
    put(ws, row, 2, "all met" if not late else f"{len(late)} LATE", font=None if not late else BAD_FONT, align=Alignment(horizontal="right"))
    put(ws, row, 3, f"{len(plan.assignments)} workload(s); the tightest, {tight.workload}, finishes {day_date(p, tight.end_day).isoformat()} "
                    f"with {tight.slack_days:.1f} days to spare (deadline {day_date(p, tight.deadline_day).isoformat()}); each below",
        font=NOTE_FONT, align=note_align)
    merge_note(row)
    row += 2
    # strategies
    put(ws, row, 1, "Strategies: buy vs rent vs cloud", font=SECTION_FONT)
    row += 1
    header(ws, row, ["strategy", "total cost", "vs recommended", "vs rec. %", "NPV", "status", "modes used", "why not possible"])
    row += 1
    srows = strategy_rows(result)
    first_strat = row
    hybrid_row = None
    for s in srows:
        rec = s["name"] == "hybrid"
        fill = CHOSEN_FILL if rec else None
        put(ws, row, 1, s["strategy"], font=BOLD if rec else None, fill=fill)
        if s["total_cost"] is None:
            put(ws, row, 2, "infeasible" if s["status"] == "infeasible" else "no plan", font=BAD_FONT, align=Alignment(horizontal="right"))
            for col in (3, 4, 5):
                put(ws, row, col, "—", align=Alignment(horizontal="center"))
        else:
            if rec:
                formula(ws, row, 2, f"={names.grand_total}", mfmt, font=BOLD, fill=fill)
                hybrid_row = row
            else:
                put(ws, row, 2, s["total_cost"], mfmt)
            base = f"$B${hybrid_row or first_strat}"
            formula(ws, row, 3, f"=B{row}-{base}", f'+#,##0 "{cur}";-#,##0 "{cur}";0', fill=fill)
            formula(ws, row, 4, f"=IF({base}=0,0,(B{row}-{base})/{base})", "+0%;-0%;0%", fill=fill)
            if rec and p.discount_rate > 0:
                formula(ws, row, 5, f"={names.npv}", mfmt, fill=fill)
            else:
                put(ws, row, 5, s["npv_cost"], mfmt, fill=fill)
        put(ws, row, 6, s["status"] + (", recommended" if rec else ""), font=BOLD if rec else None, fill=fill, align=Alignment(indent=1))
        put(ws, row, 7, s["modes"], fill=fill)
        put(ws, row, 8, s["note"], font=NOTE_FONT, align=WRAP)
        if s["note"]:
            ws.row_dimensions[row].height = 13 * min(5, 1 + len(s["note"]) // 48)
        align_top(ws, row, 8)
        row += 1
    last_strat = row - 1
    be_month, be_text = break_even(result)
    if be_text:
        put(ws, row, 1, be_text, font=BOLD, align=Alignment(wrap_text=True, vertical="top"))
        ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=8)
        ws.row_dimensions[row].height = 30
        row += 1
    # charts, side by side
    row += 1
    chart_h = 7.6
    bar = BarChart()
    bar.type = "col"
    bar.title = f"Total cost of ownership ({cur})"
    bar.y_axis.numFmt = "#,##0"
    bar.y_axis.scaling.min = 0
    bar.legend = None
    bar.add_data(Reference(ws, min_col=2, min_row=first_strat, max_row=last_strat), titles_from_data=False)
    bar.set_categories(Reference(ws, min_col=1, min_row=first_strat, max_row=last_strat))
    bar.series[0].graphicalProperties.solidFill = "2E75B6"
    bar.dataLabels = DataLabelList()
    bar.dataLabels.showVal = True
    for flag in ("showSerName", "showCatName", "showLegendKey", "showPercent", "showLeaderLines"):
        setattr(bar.dataLabels, flag, False)
    bar.dataLabels.numFmt = "#,##0"
    bar.height, bar.width = chart_h, 12.0
    bar.x_axis.delete = False
    bar.y_axis.delete = False
    ws.add_chart(bar, f"A{row}")
    cf = ws.parent["Cash flow"]
    n = p.horizon_months
    if names.strategy_rows:
        line = LineChart()
        line.title = f"Cumulative cash out by strategy ({cur})"
        line.y_axis.numFmt = "#,##0"
        line.x_axis.number_format = "mmm yy"
        line.x_axis.tickLblSkip = max(1, math.ceil(n / 8))
        line.x_axis.tickMarkSkip = max(1, math.ceil(n / 8))
        colors = {"hybrid": "00B050", "buy": "ED7D31", "rent": "2E75B6", "cloud": "7F7F7F"}
        c0, c1 = names.first_month_col, names.first_month_col + n - 1
        for name, r in names.strategy_rows.items():
            label = "hybrid (recommended)" if name == "hybrid" else STRATEGY_LABEL[name]
            ser = Series(Reference(cf, min_col=c0, max_col=c1, min_row=r), title=label)
            ser.graphicalProperties.line.solidFill = colors[name]
            ser.graphicalProperties.line.width = 38100 if name == "hybrid" else 22225
            if name == "hybrid":
                ser.graphicalProperties.line.dashStyle = "sysDash"
            ser.smooth = False
            ser.marker.symbol = "none"
            line.series.append(ser)
        if names.break_even_row is not None:
            ser = Series(Reference(cf, min_col=c0, max_col=c1, min_row=names.break_even_row), title=f"break-even, month {be_month + 1}")
            ser.marker.symbol = "diamond"
            ser.marker.size = 12
            ser.marker.graphicalProperties.solidFill = "C00000"
            ser.marker.graphicalProperties.line.solidFill = "C00000"
            ser.graphicalProperties.line.noFill = True
            line.series.append(ser)
        line.set_categories(Reference(cf, min_col=c0, max_col=c1, min_row=names.month_header_row))
        line.legend.position = "r"
        line.height, line.width = chart_h, 18.5
        line.x_axis.delete = False
        line.y_axis.delete = False
        ws.add_chart(line, f"D{row}")
    row += 16
    # deadlines, on the next page
    ws.row_breaks.append(Break(id=row - 1))
    put(ws, row, 1, "Deadlines", font=SECTION_FONT)
    row += 1
    header(ws, row, ["workload", "finishes", "deadline", "slack (days)", "on time"])
    row += 1
    for a in plan.assignments:
        put(ws, row, 1, a.workload)
        put(ws, row, 2, day_date(p, a.end_day), DATE_FMT)
        put(ws, row, 3, day_date(p, a.deadline_day), DATE_FMT)
        put(ws, row, 4, a.slack_days, NUM_FMT)
        ok = a.slack_days >= -1e-9
        put(ws, row, 5, "yes" if ok else "NO", font=None if ok else BAD_FONT, align=Alignment(horizontal="right"))
        row += 1
    ws.freeze_panes = "A4"
    widths(ws, {"A": 34, "B": 16, "C": 16, "D": 15, "E": 16, "F": 21, "G": 12, "H": 40})
    print_setup(ws)
