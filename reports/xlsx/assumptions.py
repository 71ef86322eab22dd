"""Assumptions sheet: inputs, sizing parameters, GPU specs, prices with source and date, the cost-model
constants, the solver, the tool version, the run time and a SHA-256 of each input file."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result

import datetime as dt
from collections.abc import Iterable

from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from ..assumption_rows import assumption_sections
from ..i18n import EN, Lang
from .style import DATE_FMT, NOTE_FONT, SECTION_FONT, TITLE_FONT, WRAP, fit_row, header, print_setup, put, widths

WIDTHS = {
    "A": 30,
    "B": 24,
    "C": 40,
    "D": 24,
    "E": 16,
    "F": 40,
    "G": 14,
    "H": 14,
    "I": 12,
    "J": 40,
    "K": 14,
    "L": 14,
    "M": 16,
}


def number_format(v, tr: Lang = EN) -> tuple[str | None, str]:
    """(format, how it prints) of one value: whole numbers with thousands separators, amounts of 100 or
    more to the cent, smaller numbers to at most four decimals, dates as ISO dates."""
    if isinstance(v, dt.date):
        return (DATE_FMT, "2027-01-01") if tr.en else (tr.date_fmt, "2027年12月31日")
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None, str(v)
    if isinstance(v, int) or float(v).is_integer():
        return "#,##0", f"{v:,.0f}"
    if abs(v) >= 100:
        return "#,##0.00", f"{v:,.2f}"
    return "0.0###", f"{v:.4f}"


def write_assumptions(ws: Worksheet, result: Result, inputs: Iterable, now: dt.datetime, tr: Lang = EN) -> None:
    put(ws, 1, 1, tr("Assumptions and provenance"), font=TITLE_FONT)
    put(
        ws,
        2,
        1,
        tr(
            "What every figure rests on: inputs, sizing rules, hardware data, prices with their source and date, the solver and this run."
        ),
        font=NOTE_FONT,
    )
    row = 4
    col_w: dict[str, float] = dict(WIDTHS)
    sections = assumption_sections(result, inputs, now, tr)
    # numbers must fit their column (a too narrow column prints ###): widen it to the longest
    for _title, _cols, rows in sections:
        for r in rows:
            for j, v in enumerate(r):
                fmt, shown = number_format(v, tr)
                if fmt is not None:
                    letter = get_column_letter(j + 1)
                    col_w[letter] = max(col_w.get(letter, 10), len(shown) * 1.1 + 2)
    for title, cols, rows in sections:
        put(ws, row, 1, title, font=SECTION_FONT)
        row += 1
        header(ws, row, cols)
        for j, label in enumerate(cols):
            fit_row(ws, row, label, col_w.get(get_column_letter(j + 1), 10))
        row += 1
        for r in rows:
            for j, v in enumerate(r):
                fmt, _shown = number_format(v, tr)
                long = isinstance(v, str) and len(v) > 20
                put(ws, row, j + 1, v, fmt, align=WRAP if long else Alignment(vertical="top"))
                if long:
                    fit_row(ws, row, v, col_w.get(get_column_letter(j + 1), 10))
            row += 1
        row += 1
    widths(ws, col_w)
    print_setup(ws)
