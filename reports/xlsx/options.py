"""Options sheet: every deadline-feasible shape of every workload with its stand-alone cost, and every
rejected (workload, offer) with the reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result

import math

from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from procure.solver.costs import CATEGORIES, Objective

from ..console import CATEGORY_LABEL
from ..headline import OBJECTIVE_SHORT, WHY_LABEL, mode_label, status_label
from ..i18n import EN, Lang
from ..tables import option_rows, rejection_rows, runner_up_rows, strategy_text
from .style import (
    CHOSEN_FILL,
    INT_FMT,
    NOTE_FONT,
    NUM_FMT,
    SECTION_FONT,
    TITLE_FONT,
    WRAP,
    header,
    merge_in_row,
    print_setup,
    put,
    signed_amount,
    widths,
)


def write_options(ws: Worksheet, result: Result, tr: Lang = EN) -> None:
    cur = tr.unit(result.project.currency)
    money = tr.amount_fmt(INT_FMT)
    put(ws, 1, 1, tr("Every shape considered"), font=TITLE_FONT)
    put(
        ws,
        2,
        1,
        tr(
            "Feasible shapes: the job alone on that shape, starting as early as allowed (stand-alone cost), against the chosen "
            "shape. Below: each (workload, offer) that cannot run the job, with the reason."
        ),
        font=NOTE_FONT,
    )
    cols = tr.each(
        "workload",
        "offer",
        "vendor",
        "mode",
        "GPU",
        "nodes",
        "GPUs",
        "strategy",
        "days on the nodes",
        "compute hours",
        "GPU-hours",
        "scaling efficiency",
    ) + [tr("stand-alone cost ({unit})", unit=cur), tr("vs chosen ({unit})", unit=cur), tr("chosen")]
    header(ws, 3, cols, height=30)
    ws.freeze_panes = "B4"
    row = 4
    orows = option_rows(result)
    for r in orows:
        fill = CHOSEN_FILL if r["chosen"] else None
        vals = [
            r["workload"],
            r["offer"],
            r["vendor"],
            mode_label(r["mode"], tr),
            r["gpu"],
            r["nodes"],
            r["gpus"],
            strategy_text(r, tr),
            r["days"],
            r["hours"],
            r["gpu_hours"],
            r["efficiency"],
            r["standalone_cost"],
            signed_amount(r["vs_chosen"]),
            tr("chosen") if r["chosen"] else "",
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
            NUM_FMT,
            NUM_FMT,
            INT_FMT,
            "0.00",
            money,
            tr.amount_fmt("+#,##0;-#,##0;0"),
            None,
        ]
        for j, (v, f) in enumerate(zip(vals, fmts, strict=True)):
            put(ws, row, j + 1, v, f, fill=fill)
        row += 1
    row += 1
    ups = runner_up_rows(result, tr)
    if ups:
        short = tr(OBJECTIVE_SHORT[str(Objective(result.objective))])
        put(
            ws,
            row,
            1,
            tr(
                "Runner-up offers: the whole plan re-solved with the workload held to that offer ({short}, like with like)",
                short=short,
            ),
            font=SECTION_FONT,
        )
        row += 1
        header(
            ws,
            row,
            tr.each("workload", "instead on", "vendor", "mode", "GPU", "nodes", "GPUs", "re-solve status")
            + [
                tr("plan {short} ({unit})", short=short, unit=cur),
                tr("vs chosen plan ({unit})", unit=cur),
                tr("why not"),
                tr("reason"),
            ]
            + [tr("{category} vs chosen ({unit})", category=tr(CATEGORY_LABEL[c]), unit=cur) for c in CATEGORIES],
        )
        row += 1
        for r in ups:
            status = (status_label(r["status"], tr) if r["status"] else "") + (f": {r['note']}" if r["note"] else "")
            vals = [
                r["workload"],
                r["offer"],
                r["vendor"],
                mode_label(r["mode"], tr),
                r["gpu"],
                r["nodes"],
                r["gpus"],
                status,
                r["plan_cost"],
                signed_amount(r["vs_chosen"]),
                tr(WHY_LABEL[r["why"]]),
                r["reason"],
            ]
            vals += [signed_amount(r[f"diff_{c}"]) for c in CATEGORIES]
            signed = tr.amount_fmt("+#,##0;-#,##0;0")
            fmts = [None, None, None, None, None, INT_FMT, INT_FMT, None, money, signed, None, None]
            fmts += [signed] * len(CATEGORIES)
            for j, (v, f) in enumerate(zip(vals, fmts, strict=True)):
                put(ws, row, j + 1, v if v is not None else "—", f)
            row += 1
        note = tr(
            "Why not: price (it costs more: the category columns say where), lead time, deadline, term, fit, "
            "excluded, budget, capacity or time limit. The same answer as "
            "`procure explain WORKLOAD.yaml --offer ID`."
        )
        put(ws, row, 1, note, font=NOTE_FONT)
        row += 2
    put(ws, row, 1, tr("Rejected (workload, offer) pairs"), font=SECTION_FONT)
    row += 1
    header(ws, row, tr.each("workload", "offer", "vendor", "mode", "GPU", "reason"))
    ws.merge_cells(start_row=row, start_column=6, end_row=row, end_column=15)
    row += 1
    for r in rejection_rows(result, tr):
        for j, key in enumerate(("workload", "offer", "vendor", "mode", "gpu")):
            put(ws, row, j + 1, mode_label(r[key], tr) if key == "mode" and r[key] else r[key])
        put(ws, row, 6, r["reason"], align=WRAP)
        merge_in_row(ws, row, 6, 15)
        ws.row_dimensions[row].height = 15 * max(1, math.ceil(len(r["reason"]) / 150))
        row += 1

    def fit(
        key: str, least: float, more=()
    ) -> float:  # wide enough for the longest number of a column (else it prints ###)
        nums = [abs(r[key] or 0) for r in orows] + [abs(x or 0) for x in more]
        return max(least, max((len(f"{x:,.0f}") + 2 for x in nums), default=0) * 1.1)

    sized: dict[str, float] = {
        "A": 20,
        "B": 32,
        "C": 12,
        "D": 7,
        "E": 16,
        "F": 7,
        "G": 7,
        "H": 26,
        "I": fit("days", 10, [r["plan_cost"] for r in ups]),
        "J": fit("hours", 10, [r["vs_chosen"] for r in ups]),
        "K": fit("gpu_hours", 11),
        "L": 10,
        "M": fit("standalone_cost", 14),
        "N": fit("vs_chosen", 12),
        "O": 9,
    }
    for k, c in enumerate(CATEGORIES):  # the runner-ups' differences per category, signed
        letter = get_column_letter(13 + k)
        need = max((len(f"{abs(r[f'diff_{c}'] or 0):,.0f}") + 3 for r in ups), default=0) * 1.1
        sized[letter] = max(sized.get(letter, 9.0), need)
    widths(ws, sized)
    print_setup(ws, "3:3")
