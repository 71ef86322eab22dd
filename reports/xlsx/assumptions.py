"""Assumptions sheet: inputs, sizing parameters, GPU specs, prices with source and date, the cost-model
constants, the solver, the tool version, the run time and a SHA-256 of each input file."""

from __future__ import annotations

import datetime as dt
from typing import Iterable

from openpyxl.worksheet.worksheet import Worksheet

from ..tables import assumption_sections
from .style import DATE_FMT, NOTE_FONT, SECTION_FONT, TITLE_FONT, WRAP, header, print_setup, put, widths


def write_assumptions(ws: Worksheet, result, inputs: Iterable, now: dt.datetime) -> None:
    put(ws, 1, 1, "Assumptions and provenance", font=TITLE_FONT)
    put(ws, 2, 1, "What every figure rests on: inputs, sizing rules, hardware data, prices with their source and date, the solver and this run.",
        font=NOTE_FONT)
    row = 4
    for title, cols, rows in assumption_sections(result, inputs, now):
        put(ws, row, 1, title, font=SECTION_FONT)
        row += 1
        header(ws, row, cols)
        row += 1
        for r in rows:
            for j, v in enumerate(r):
                fmt = DATE_FMT if isinstance(v, dt.date) else ("#,##0.####" if isinstance(v, float) and abs(v) < 1e6 else
                                                             ("0.00E+00" if isinstance(v, float) else None))
                put(ws, row, j + 1, v, fmt, align=WRAP if isinstance(v, str) and len(v) > 40 else None)
            row += 1
        row += 1
    widths(ws, {"A": 30, "B": 24, "C": 40, "D": 24, "E": 16, "F": 40, "G": 14, "H": 14, "I": 12, "J": 40, "K": 14, "L": 14, "M": 16})
    print_setup(ws)
