"""The comparison workbook of ``procure compare --out compare.xlsx``: what changed in the inputs, then
how the outcomes changed (``procure.analysis.compare``).

Sheet "Inputs changed": one row per offer, workload or project field whose value differs from the first
file, each offer or workload added or removed; the value in each file (prices as quoted, in the offer's
currency), and for numbers a Δ column per later file as a live formula (later − first).
Sheet "Outcomes": the comparison rows (status, totals, strategies, cost categories, where each workload
runs) per file, with Δ formulas for the amounts.
"""

from __future__ import annotations

from openpyxl import Workbook
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from ..analysis_console import SAME_INPUTS, _row_label, _value_text, delta_labels, deltas, input_cells
from ..i18n import EN, N_, Lang
from .style import (
    BOLD,
    NOTE_FONT,
    TITLE_FONT,
    WRAP,
    formula,
    header,
    print_setup,
    put,
    signed_amount,
    widths,
    zeroed_amount_formula,
)

COMPARE_SHEETS = (N_("Inputs changed"), N_("Outcomes"))


def write_input_diff(ws: Worksheet, files: list[str], changes, tr: Lang = EN) -> None:
    n = len(files)
    put(ws, 1, 1, tr("What changed in the inputs, against {first}", first=files[0]), font=TITLE_FONT)
    put(
        ws,
        2,
        1,
        tr(
            "One row per field whose value differs, and per offer or workload added or removed; prices "
            "as quoted, in the offer's currency. Empty: the file does not give it."
        ),
        font=NOTE_FONT,
    )
    hdr = 4
    labels = [*tr.each("section", "offer / workload", "field"), *files, *delta_labels(files, tr)]
    header(ws, hdr, labels, height=30)
    r = hdr + 1
    if not changes:
        put(ws, r, 1, tr(SAME_INPUTS))
    for c in changes:
        put(ws, r, 1, tr(c.section))
        put(ws, r, 2, c.subject, font=BOLD)
        put(ws, r, 3, c.field if c.kind == "changed" else tr(c.kind))
        cells = input_cells(c, tr)
        for k, v in enumerate(c.values):
            if c.numeric and c.kind == "changed":
                # General: 0.12 stays 0.12, 16500 stays 16500; a percent field as a percent
                put(ws, r, 4 + k, v, "0.##%" if c.percent else None)
            else:
                put(ws, r, 4 + k, None if cells[k] == "—" else cells[k], align=WRAP)
        delta_fmt = "+0.##%;-0.##%;0%" if c.percent else "+General;-General;0"
        for k, (d, (a, b)) in enumerate(zip(deltas(c), _delta_refs(n), strict=True)):
            if d is None:
                continue
            formula(
                ws, r, 4 + n + k, f"={get_column_letter(4 + b)}{r}-{get_column_letter(4 + a)}{r}", delta_fmt, value=d
            )
        r += 1
    widths(
        ws, {"A": 10, "B": 30, "C": 26, **{get_column_letter(4 + k): 24 for k in range(n + len(delta_labels(files)))}}
    )
    ws.freeze_panes = ws.cell(row=hdr + 1, column=4)
    print_setup(ws, f"{hdr}:{hdr}")


def write_outcomes(ws: Worksheet, files: list[str], rows, currency: str, tr: Lang = EN) -> None:
    n = len(files)
    title = tr("How the outcomes changed, against {first} ({unit})", first=files[0], unit=tr.unit(currency))
    put(ws, 1, 1, title, font=TITLE_FONT)
    put(
        ws,
        2,
        1,
        tr("Every file planned on its own (all four strategies, each verified); * marks what differs."),
        font=NOTE_FONT,
    )
    hdr = 4
    header(ws, hdr, [tr("section"), tr("figure"), *files, *delta_labels(files, tr)], height=30)
    r = hdr + 1
    money = tr.money_fmt(currency)
    for row in rows:
        put(ws, r, 1, tr(row.section))
        put(ws, r, 2, ("* " if row.changed else "") + _row_label(row, tr), font=BOLD if row.changed else None)
        for k, v in enumerate(row.values):
            if row.numeric:
                put(ws, r, 3 + k, v, money)
            else:
                put(ws, r, 3 + k, None if v is None else _value_text(row, v, tr), align=WRAP)
        for k, (d, (a, b)) in enumerate(zip(deltas(row), _delta_refs(n), strict=True)):
            if d is None:
                continue
            expr = zeroed_amount_formula(f"{get_column_letter(3 + b)}{r}-{get_column_letter(3 + a)}{r}")
            formula(ws, r, 3 + n + k, f"={expr}", money, value=signed_amount(d) if row.numeric else d)
        r += 1
    widths(ws, {"A": 12, "B": 30, **{get_column_letter(3 + k): 30 for k in range(n + len(delta_labels(files)))}})
    ws.freeze_panes = ws.cell(row=hdr + 1, column=3)
    print_setup(ws, f"{hdr}:{hdr}")


def _delta_refs(n: int) -> list[tuple[int, int]]:
    """(earlier, later) file indexes of each difference column (``delta_labels``): later − first, then
    from the third file on later − the one before it."""
    return [(0, k) for k in range(1, n)] + [(k - 1, k) for k in range(2, n)]


def compare_workbook_bytes(files: list[str], changes, rows, currency: str, tr: Lang = EN) -> bytes:
    """The comparison workbook as bytes, every formula with its cached result."""
    from .workbook import finish

    wb = Workbook()
    wb.remove(wb.active)
    write_input_diff(wb.create_sheet(tr("Inputs changed")), files, changes, tr)
    write_outcomes(wb.create_sheet(tr("Outcomes")), files, rows, currency, tr)
    return finish(wb, tr)
