"""Options sheet: every deadline-feasible shape of every workload with its stand-alone cost, and every
rejected (workload, offer) with the reason."""

from __future__ import annotations

import math

from openpyxl.worksheet.worksheet import Worksheet

from ..tables import option_rows, rejection_rows
from .style import CHOSEN_FILL, INT_FMT, NOTE_FONT, NUM_FMT, SECTION_FONT, TITLE_FONT, WRAP, header, merge_in_row, print_setup, put, widths


def write_options(ws: Worksheet, result) -> None:
    cur = result.project.currency
    put(ws, 1, 1, "Every shape considered", font=TITLE_FONT)
    put(ws, 2, 1, "Feasible shapes: the job alone on that shape, starting as early as allowed (stand-alone cost), against the chosen "
                  "shape. Below: each (workload, offer) that cannot run the job, with the reason.", font=NOTE_FONT)
    cols = ["workload", "offer", "vendor", "mode", "GPU", "nodes", "GPUs", "strategy", "days on the nodes", "compute hours", "GPU-hours",
            "scaling efficiency", f"stand-alone cost ({cur})", f"vs chosen ({cur})", "chosen"]
    header(ws, 3, cols, height=30)
    ws.freeze_panes = "B4"
    row = 4
    orows = option_rows(result)
    for r in orows:
        fill = CHOSEN_FILL if r["chosen"] else None
        vals = [r["workload"], r["offer"], r["vendor"], r["mode"], r["gpu"], r["nodes"], r["gpus"], r["strategy"], r["days"], r["hours"],
                r["gpu_hours"], r["efficiency"], r["standalone_cost"], r["vs_chosen"], "chosen" if r["chosen"] else ""]
        fmts = [None, None, None, None, None, INT_FMT, INT_FMT, None, NUM_FMT, NUM_FMT, INT_FMT, "0.00", INT_FMT, "+#,##0;-#,##0;0", None]
        for j, (v, f) in enumerate(zip(vals, fmts, strict=True)):
            put(ws, row, j + 1, v, f, fill=fill)
        row += 1
    row += 1
    ups = [(w, r) for w, rs in result.runner_ups.items() for r in rs]
    if ups:
        short = "NPV" if result.objective == "npv" else "TCO"
        put(ws, row, 1, f"Runner-up offers: the whole plan re-solved with the workload held to that offer ({short}, like with like)",
            font=SECTION_FONT)
        row += 1
        header(ws, row, ["workload", "instead on", "vendor", "mode", "GPU", "nodes", "GPUs", "re-solve status", f"plan {short} ({cur})",
                         f"vs chosen plan ({cur})"])
        row += 1
        for w, r in ups:
            a = r.assignment
            vals = [w, r.option.offer_id, r.option.offer.vendor, r.option.mode, a.gpu if a else "", a.nodes if a else None, a.gpus if a else None,
                    str(r.status) if r.status else "", r.plan_cost, r.extra_cost]
            fmts = [None, None, None, None, None, INT_FMT, INT_FMT, None, INT_FMT, "+#,##0;-#,##0;0"]
            for j, (v, f) in enumerate(zip(vals, fmts, strict=True)):
                put(ws, row, j + 1, v if v is not None else "—", f)
            row += 1
        row += 1
    put(ws, row, 1, "Rejected (workload, offer) pairs", font=SECTION_FONT)
    row += 1
    header(ws, row, ["workload", "offer", "vendor", "mode", "GPU", "reason"])
    ws.merge_cells(start_row=row, start_column=6, end_row=row, end_column=15)
    row += 1
    for r in rejection_rows(result):
        for j, key in enumerate(("workload", "offer", "vendor", "mode", "gpu")):
            put(ws, row, j + 1, r[key])
        put(ws, row, 6, r["reason"], align=WRAP)
        merge_in_row(ws, row, 6, 15)
        ws.row_dimensions[row].height = 15 * max(1, math.ceil(len(r["reason"]) / 150))
        row += 1
    def fit(key: str, least: float, more=()) -> float:  # wide enough for the longest number of a column (else it prints ###)
        nums = [abs(r[key] or 0) for r in orows] + [abs(x or 0) for x in more]
        return max(least, max((len(f"{x:,.0f}") + 2 for x in nums), default=0) * 1.1)

    widths(ws, {"A": 20, "B": 32, "C": 12, "D": 7, "E": 16, "F": 7, "G": 7, "H": 26, "I": fit("days", 10, [r.plan_cost for _w, r in ups]),
                "J": fit("hours", 10, [r.extra_cost for _w, r in ups]), "K": fit("gpu_hours", 11),
                "L": 10, "M": fit("standalone_cost", 14), "N": fit("vs_chosen", 12), "O": 9})
    print_setup(ws, "3:3")
