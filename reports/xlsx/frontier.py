"""The Frontier sheet (``procure frontier --out``, ``procure solve --frontier N --out``): what finishing sooner
costs. One row per point, cheapest first: its completion (the day and the date, at the deadline confidence),
the median end, its TCO and NPV (each plan's own totals, as ``procure solve`` reports them), the extra cost
and the days sooner against the cheapest plan and the cost per day sooner (formulas over the row), its status
and gap, and what changed. A scatter chart draws the objective against the completion date on a date (value)
axis, so points a day apart sit a day apart and time runs left to right."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openpyxl import Workbook
from openpyxl.chart import Reference, ScatterChart, Series
from openpyxl.worksheet.worksheet import Worksheet

from procure.models.units import day_date

from ..frontier_report import dropped_sentence, point_sentence
from ..headline import status_label
from ..i18n import EN, N_, Lang
from .style import NOTE_FONT, NUM_FMT, PCT_FMT, TITLE_FONT, WRAP, align_top, formula, header, print_setup, put, widths

if TYPE_CHECKING:
    from procure.analysis.carbon_frontier import CarbonFrontier
    from procure.analysis.frontier import Frontier

FRONTIER_SHEET = N_("Frontier")
TOP = 5  # the header row of the table


def write_frontier(ws: Worksheet, f: Frontier, tr: Lang = EN) -> None:
    """The sheet (module docstring). Columns: A point, B done-by day, C date, D median end, E TCO, F NPV,
    G extra on the objective (=its column − the cheapest row's), H days sooner (=B of the cheapest − B),
    I extra per day sooner (=G/H), J status, K gap, L what changed."""
    cur = f.project.currency
    money = tr.money_fmt(cur)
    put(ws, 1, 1, tr("What sooner costs: the cost–time frontier"), font=TITLE_FONT)
    put(
        ws,
        2,
        1,
        tr(
            "Completion of {jobs}: the day the last of them ends at {conf:.0%} confidence (deadline_confidence). "
            "Each point is a full plan, verified, and the cheapest that ends by then; the first is the plan "
            "procure solve recommends.",
            jobs=", ".join(f.jobs),
            conf=f.project.deadline_confidence,
        ),
        font=NOTE_FONT,
    )
    if f.note:
        put(ws, 3, 1, tr.say(f.note), font=NOTE_FONT)
    if f.dropped:
        put(ws, 4, 1, dropped_sentence(f, tr), font=NOTE_FONT)
    labels = [
        tr("point"),
        tr("done by (day)"),
        tr("done by (date)"),
        tr("median end (day)"),
        tr("TCO ({unit})", unit=tr.unit(cur)),
        tr("NPV ({unit})", unit=tr.unit(cur)),
        tr("extra {m} vs the cheapest", m=f.objective.short),
        tr("days sooner"),
        tr("extra per day sooner"),
        tr("status"),
        tr("gap"),
        tr("what changed"),
    ]
    header(ws, TOP, labels)
    m_col = "F" if f.objective.discounted else "E"
    first = TOP + 1
    for k, p in enumerate(f.points):
        r = TOP + 1 + k
        extra = f.cost(p) - f.cost(f.cheapest)
        put(ws, r, 1, k + 1)
        put(ws, r, 2, round(p.completion_day, 2), NUM_FMT)
        put(ws, r, 3, day_date(f.project.start_date, p.completion_day), tr.date_fmt)
        put(ws, r, 4, round(p.median_end_day, 2), NUM_FMT)
        put(ws, r, 5, p.total_cost, money)
        put(ws, r, 6, p.npv_cost, money)
        formula(ws, r, 7, f"={m_col}{r}-{m_col}${first}", money, value=extra)
        sooner = round(round(f.cheapest.completion_day, 2) - round(p.completion_day, 2), 2)  # as column H has it
        formula(ws, r, 8, f"=ROUND($B${first}-B{r},2)", NUM_FMT, value=sooner)
        per_day = extra / sooner if sooner > 0 else ""
        formula(ws, r, 9, f'=IF(H{r}>0,G{r}/H{r},"")', money, value=per_day)
        put(ws, r, 10, status_label(p.status, tr))
        if p.gap is not None:
            put(ws, r, 11, p.gap, PCT_FMT)
        put(ws, r, 12, point_sentence(f, p, tr), align=WRAP)
        align_top(ws, r, 12)
    last = TOP + len(f.points)
    if len(f.points) > 1:
        chart = ScatterChart()
        chart.style = 13
        chart.title = tr("{m} against the completion date", m=f.objective.short)
        chart.y_axis.title = tr.unit(cur)
        chart.x_axis.title = tr("done by (date)")
        chart.x_axis.number_format = tr.date_fmt
        chart.x_axis.delete = False
        chart.y_axis.delete = False
        days = [p.completion_day for p in f.points]  # the date axis spans the points, a day either side
        chart.x_axis.scaling.min = _serial(f, min(days)) - 1
        chart.x_axis.scaling.max = _serial(f, max(days)) + 1
        col = 6 if f.objective.discounted else 5
        s = Series(
            Reference(ws, min_col=col, min_row=first, max_row=last),
            Reference(ws, min_col=3, min_row=first, max_row=last),
            title=f.objective.short,
        )
        s.marker.symbol = "circle"
        s.smooth = False
        chart.series.append(s)
        chart.legend = None
        chart.height, chart.width = 8.0, 18.0
        ws.add_chart(chart, f"A{last + 3}")
    widths(
        ws, {"A": 7, "B": 11, "C": 13, "D": 11, "E": 15, "F": 15, "G": 15, "H": 10, "I": 15, "J": 14, "K": 8, "L": 70}
    )
    print_setup(ws)


def _serial(f: Frontier, day: float) -> float:
    """A project day as a spreadsheet date serial (days since 1899-12-30), the number a date cell holds."""
    import datetime as dt

    return (f.project.start_date - dt.date(1899, 12, 30)).days + day


def add_frontier_sheet(wb: Workbook, f: Frontier, tr: Lang = EN) -> str:
    """Append the Frontier sheet to ``wb``; returns its title."""
    title = tr(FRONTIER_SHEET)
    write_frontier(wb.create_sheet(title), f, tr)
    return title


def frontier_workbook_bytes(f: Frontier, tr: Lang = EN) -> bytes:
    """The workbook of ``procure frontier --out``: the Frontier sheet, every formula with its cached result."""
    from .workbook import finish

    wb = Workbook()
    wb.remove(wb.active)
    add_frontier_sheet(wb, f, tr)
    return finish(wb, tr)


CARBON_FRONTIER_SHEET = N_("Carbon frontier")


def write_carbon_frontier(ws: Worksheet, f: CarbonFrontier, tr: Lang = EN) -> None:
    """The cost–emissions frontier (``procure frontier --carbon --out``): one row per verified plan, cheapest first.
    Columns: A point, B tCO2e, C TCO without a carbon price, D tCO2e avoided (=B of the cheapest − B), E extra TCO
    (=C − C of the cheapest), F per tonne avoided (=E/D), G–H the carbon prices it is the cheapest plan at, I where
    the jobs run. A scatter chart draws the TCO against the tCO2e."""
    from ..frontier_report import _placed, carbon_sentence

    cur = f.project.currency
    money = tr.money_fmt(cur)
    put(ws, 1, 1, tr("What cleaner costs: the cost–emissions frontier"), font=TITLE_FONT)
    put(
        ws,
        2,
        1,
        tr(
            "Each point is a full plan, verified, the cheapest at some carbon price (TCO without the carbon price "
            "against the operational tCO2e of its energy); the first is the cheapest plan with no carbon price."
        ),
        font=NOTE_FONT,
    )
    if f.note:
        put(ws, 3, 1, tr.say(f.note), font=NOTE_FONT)
    labels = [
        tr("point"),
        "tCO2e",
        tr("TCO ({unit})", unit=tr.unit(cur)),
        tr("tCO2e avoided"),
        tr("extra TCO"),
        tr("per tonne avoided"),
        tr("cheapest from (per tCO2e)"),
        tr("up to (per tCO2e)"),
        tr("where the jobs run"),
    ]
    header(ws, TOP, labels)
    first = TOP + 1
    for k, p in enumerate(f.points):
        r = TOP + 1 + k
        less, extra = f.cheapest.tco2e - p.tco2e, p.cost - f.cheapest.cost
        put(ws, r, 1, k + 1)
        put(ws, r, 2, p.tco2e, "#,##0.000")
        put(ws, r, 3, p.cost, money)
        formula(ws, r, 4, f"=B${first}-B{r}", "#,##0.000", value=less)
        formula(ws, r, 5, f"=C{r}-C${first}", money, value=extra)
        formula(ws, r, 6, f'=IF(D{r}>0,E{r}/D{r},"")', money, value=extra / less if less > 0 else "")
        put(ws, r, 7, p.low, money)
        put(ws, r, 8, p.high if p.high is not None else tr("any higher price"), money)
        put(ws, r, 9, _placed(p), align=WRAP)
        align_top(ws, r, 9)
    last = TOP + len(f.points)
    for k, p in enumerate(f.points):
        put(ws, last + 2 + k, 1, carbon_sentence(f, p, tr), font=NOTE_FONT)
    if len(f.points) > 1:
        chart = ScatterChart()
        chart.style = 13
        chart.title = tr("TCO against tCO2e")
        chart.y_axis.title = tr.unit(cur)
        chart.x_axis.title = "tCO2e"
        chart.x_axis.delete = False
        chart.y_axis.delete = False
        s = Series(
            Reference(ws, min_col=3, min_row=first, max_row=last),
            Reference(ws, min_col=2, min_row=first, max_row=last),
            title="TCO",
        )
        s.marker.symbol = "circle"
        s.smooth = False
        chart.series.append(s)
        chart.legend = None
        chart.height, chart.width = 8.0, 18.0
        ws.add_chart(chart, f"A{last + 3 + len(f.points)}")
    widths(ws, {"A": 7, "B": 12, "C": 15, "D": 12, "E": 15, "F": 15, "G": 15, "H": 15, "I": 70})
    print_setup(ws)


def carbon_frontier_workbook_bytes(f: CarbonFrontier, tr: Lang = EN) -> bytes:
    """The workbook of ``procure frontier --carbon --out``: the Carbon frontier sheet, formulas with their results."""
    from .workbook import finish

    wb = Workbook()
    wb.remove(wb.active)
    write_carbon_frontier(wb.create_sheet(tr(CARBON_FRONTIER_SHEET)), f, tr)
    return finish(wb, tr)
