"""Plan sheet: per workload where, how, when (real dates) and at what cost; the capacity bought and
rented; a month-by-month timeline of the jobs and of that capacity."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result

from openpyxl.styles import Alignment, Border
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from ..headline import amount_unit, mode_label, peaks
from ..i18n import EN, Lang
from ..tables import capacity_rows, day_date, month_start, plan_rows, strategy_text
from .style import (
    BOLD,
    CAPACITY_FILL,
    CENTER,
    INT_FMT,
    MODE_FILL,
    NOTE_FONT,
    NUM_FMT,
    SECTION_FONT,
    THIN,
    TITLE_FONT,
    TOTAL_FILL,
    WRAP,
    align_top,
    fit_row,
    formula,
    header,
    print_setup,
    put,
    widths,
)


def write_plan(ws: Worksheet, result: Result, tr: Lang = EN) -> None:
    p, plan = result.project, result.planned()
    cur = tr.unit(p.currency)
    DATE_FMT, money = tr.date_fmt, tr.amount_fmt(INT_FMT)
    put(ws, 1, 1, tr("Plan per workload — {name}", name=p.name), font=TITLE_FONT)
    put(
        ws,
        2,
        1,
        tr(
            "Dates count from {start} (day 0). Cost = the job's own cost (cloud bill or busy energy) plus its "
            "node-hour share of the capacity bought or rented on that offer.",
            start=tr.date(p.start_date),
        ),
        font=NOTE_FONT,
    )
    cols = tr.each(
        "workload",
        "offer",
        "vendor",
        "mode",
        "GPU",
        "GPUs",
        "nodes",
        "strategy",
        "start",
        "end",
        "deadline",
        "slack (days)",
        "GPU-hours",
    ) + [tr("cost ({unit})", unit=cur)]
    header(ws, 3, cols, height=30)
    ws.freeze_panes = "B4"
    row = 4
    prows = plan_rows(result)
    for r in prows:
        vals = [
            r["workload"],
            r["offer"],
            r["vendor"],
            mode_label(r["mode"], tr),
            r["gpu"],
            r["gpus"],
            r["nodes"],
            strategy_text(r, tr),
            r["start"],
            r["end"],
            r["deadline"],
            r["slack_days"],
            r["gpu_hours"],
            r["cost"],
        ]
        fmts = [
            None,
            None,
            None,
            None,
            None,
            INT_FMT,
            INT_FMT,
            None,
            DATE_FMT,
            DATE_FMT,
            DATE_FMT,
            NUM_FMT,
            INT_FMT,
            money,
        ]
        for j, (v, f) in enumerate(zip(vals, fmts, strict=True)):
            put(
                ws,
                row,
                j + 1,
                v,
                f,
                align=Alignment(wrap_text=True, vertical="top", horizontal="center") if j in (5, 6) else WRAP,
            )
        put(ws, row, 4, mode_label(r["mode"], tr), fill=MODE_FILL.get(r["mode"]))
        ws.row_dimensions[row].height = 26
        row += 1
    last = row - 1
    put(ws, row, 1, tr("total"), font=BOLD)
    formula(
        ws, row, 13, f"=SUM(M4:M{last})", INT_FMT, font=BOLD, fill=TOTAL_FILL, value=sum(r["gpu_hours"] for r in prows)
    )
    formula(ws, row, 14, f"=SUM(N4:N{last})", money, font=BOLD, fill=TOTAL_FILL, value=sum(r["cost"] for r in prows))
    row += 2
    # what has to be ordered: the most nodes of each offer held at the same time
    put(ws, row, 1, tr("Peak capacity: the most nodes of each offer held at the same time"), font=SECTION_FONT)
    row += 1
    header(ws, row, tr.each("offer", "vendor", "mode", "spot", "peak nodes", "used", "unit"))
    row += 1
    for pk in peaks(result):
        put(ws, row, 1, pk.offer_id, align=WRAP)
        put(ws, row, 2, pk.vendor, align=WRAP)
        put(
            ws,
            row,
            3,
            mode_label(pk.mode, tr) + (tr(" (reserved)") if pk.reserved else ""),
            fill=MODE_FILL.get(pk.mode),
        )
        put(ws, row, 4, tr("SPOT") if pk.spot else "", font=BOLD)
        put(ws, row, 5, pk.peak_nodes, INT_FMT, font=BOLD)
        put(ws, row, 6, pk.amount, INT_FMT)
        put(ws, row, 7, amount_unit(pk.amount_unit, tr))
        fit_row(ws, row, pk.offer_id, 22)
        row += 1
    row += 1
    caps = capacity_rows(result, tr)
    if caps:
        put(ws, row, 1, tr("Capacity bought and rented"), font=SECTION_FONT)
        row += 1
        header(
            ws,
            row,
            tr.each("what", "offer", "vendor", "nodes", "from", "until", "months") + [tr("cost ({unit})", unit=cur)],
        )
        row += 1
        for c in caps:
            put(
                ws,
                row,
                1,
                (tr("owned (committed)") if c.get("owned") else tr("buy (own)"))
                if c["what"] == "buy"
                else c.get("label", mode_label("rent", tr)),
                fill=MODE_FILL.get(c["what"]),
            )
            put(ws, row, 2, c["offer"], align=WRAP)
            put(ws, row, 3, c["vendor"], align=WRAP)
            put(ws, row, 4, c["nodes"], INT_FMT, align=Alignment(horizontal="center", vertical="top"))
            put(ws, row, 5, c["from"], DATE_FMT)
            put(ws, row, 6, day_date(p, c["to_day"]), DATE_FMT)
            put(ws, row, 7, c["months"], NUM_FMT)
            put(ws, row, 8, c["cost"], money)
            ws.row_dimensions[row].height = 26
            align_top(ws, row, 8)
            row += 1
        row += 1
    # timeline: months down, one column per workload and per capacity block (fits under the table)
    ends = [a.deadline_day for a in plan.assignments] + [c["to_day"] - 1e-6 for c in caps if c["what"] == "rent"]
    last_m = min(p.horizon_months - 1, p.calendar.month_of(max(ends))) if ends else 0
    put(
        ws,
        row,
        1,
        tr("Timeline by month: days of work in each month, coloured by mode; ◆ = the workload's deadline month"),
        font=SECTION_FONT,
    )
    row += 1
    cols_t = [a.workload for a in plan.assignments] + [  # "rent 4 nodes of <offer>": a count that says what it counts
        tr(
            "{mode} {n} node of {offer}" if c["nodes"] == 1 else "{mode} {n} nodes of {offer}",
            mode=mode_label(c["what"], tr),
            n=c["nodes"],
            offer=c["offer"],
        )
        for c in caps
    ]
    header(ws, row, [tr("month starting")] + cols_t, height=42)
    ws.row_dimensions[row].height = 42
    row += 1
    border = Border(left=THIN, right=THIN, top=THIN, bottom=THIN)
    for m in range(last_m + 1):
        lo, hi = p.calendar.bucket_start(m), p.calendar.first_day(m + 1)
        put(ws, row, 1, month_start(p, m), DATE_FMT, font=BOLD, align=Alignment(horizontal="left"))
        for j, a in enumerate(plan.assignments):
            days = max(0.0, min(hi, a.end_day) - max(lo, a.start_day))
            running = days > 0 or (a.start_day == a.end_day and lo <= a.start_day < hi)
            text = (tr("{days:.1f} d", days=days) if days < 9.95 else tr("{days:.0f} d", days=days)) if running else ""
            if m == p.calendar.month_of(a.deadline_day):
                text = (text + " ◆").strip()
            c = put(ws, row, 2 + j, text, fill=MODE_FILL[a.mode] if running else None, align=CENTER)
            c.border = border
        for j, c in enumerate(caps):
            col = 2 + len(plan.assignments) + j
            held = min(hi, c["to_day"]) - max(lo, c["from_day"]) > 1e-6
            cell = put(
                ws,
                row,
                col,
                (tr("{n} nodes", n=c["nodes"]) if c["nodes"] > 1 else tr("{n} node", n=c["nodes"])) if held else "",
                fill=CAPACITY_FILL[c["what"]] if held else None,
                align=CENTER,
            )
            cell.border = border
        row += 1
    row += 1
    put(ws, row, 1, tr("Legend:"), font=BOLD)
    for j, (label, fill) in enumerate(
        [
            (tr("buy job"), MODE_FILL["buy"]),
            (tr("rent job"), MODE_FILL["rent"]),
            (tr("cloud job"), MODE_FILL["cloud"]),
            (tr("nodes owned"), CAPACITY_FILL["buy"]),
            (tr("nodes rented"), CAPACITY_FILL["rent"]),
        ]
    ):
        put(ws, row, 2 + j, label, fill=fill, align=CENTER)
    cost_w = max(13, len(f"{max((r['cost'] for r in prows), default=0) * len(prows):,.0f}") * 1.15 + 3)
    date_w = 12 if tr.en else 15  # 2027年12月31日 is wider than 2027-12-31
    widths(
        ws,
        {
            "A": 22,
            "B": 16,
            "C": 14,
            "D": 12,
            "E": 16,
            "F": 12,
            "G": 12,
            "H": 16,
            "I": date_w,
            "J": date_w,
            "K": date_w,
            "L": 12,
            "M": max(12, len(f"{sum(r['gpu_hours'] for r in prows):,.0f}") * 1.15 + 3),
            "N": cost_w,
        },
    )
    for j in range(13, len(cols_t) + 1):
        ws.column_dimensions[get_column_letter(2 + j)].width = 12
    print_setup(ws)
