"""Wrapped text in the workbooks is not cut to one line in print: each row is at least as tall as its
longest wrapped cell needs. The bound here is deliberately loose and independent of the code's estimate:
a column unit holds at most 1.2 characters of the default font (CJK characters count two), and a line of
11-point text needs at least 12 points."""

from __future__ import annotations

import io
import math
import unicodedata

import openpyxl
import pytest

from procure.reports.xlsx.workbook import workbook_bytes

from helpers import offer, project, solve_fixed, workload

#: the module fixture is built once, on one worker
pytestmark = pytest.mark.xdist_group("row_heights")


def _units(text: str) -> float:
    return sum(2.0 if unicodedata.east_asian_width(ch) in ("W", "F") else 1.0 for ch in text)


def _short_rows(ws) -> list[tuple[int, str]]:
    from openpyxl.utils import get_column_letter

    merged = {(r.min_row, r.min_col): r.max_col for r in ws.merged_cells.ranges if r.min_row == r.max_row}
    out = []
    for row in ws.iter_rows():
        for c in row:
            if not isinstance(c.value, str) or c.data_type == "f" or not (c.alignment and c.alignment.wrap_text):
                continue
            cols = range(c.column, merged.get((c.row, c.column), c.column) + 1)
            width = sum(ws.column_dimensions[get_column_letter(k)].width or 8.43 for k in cols)
            lines = sum(max(1, math.ceil(_units(p) / (1.2 * width))) for p in c.value.split("\n"))
            if (ws.row_dimensions[c.row].height or 15.0) < 12 * lines:
                out.append((c.row, c.value[:60]))
    return out


@pytest.fixture(scope="module")
def book():
    # a job whose option reasons are long: every shape of the slow offer misses the deadline
    p = project([workload(name="a", deadline_days=60), workload(name="b", deadline_days=10)])
    offers = [
        offer(id="slow", mode="cloud", price_per_node_hour=20.0),
        offer(id="fast", mode="cloud", price_per_node_hour=90.0, max_nodes=16),
    ]
    hours = {("a", "slow", 1): 100.0, ("a", "fast", 1): 90.0, ("b", "slow", 1): 1884.0, ("b", "fast", 16): 254.4}
    res = solve_fixed(p, offers, hours, compare=True, all_or_nothing=False, n_runner_ups=1)
    return openpyxl.load_workbook(io.BytesIO(workbook_bytes(res, [])))


@pytest.mark.parametrize("sheet", ["Summary", "Plan", "Options"])
def test_every_wrapped_cell_of_the_approval_workbook_has_the_height_its_text_needs(book, sheet):
    assert _short_rows(book[sheet]) == []


def test_the_compare_workbook_rows_fit_their_text():
    from procure.analysis.compare import InputChange, Row
    from procure.reports.xlsx.compare import compare_workbook_bytes

    long = "2 × a-very-long-offer-id-of-a-bare-metal-provider-in-us-east (rent), day 0–41.3"
    rows = [Row("plan", "job", [long, long + " and longer still, with a note on its term"], False)]
    changes = [InputChange("offer", "x", "source", "changed", ["quote 1, " * 12, "quote 2, " * 12])]
    wb = openpyxl.load_workbook(io.BytesIO(compare_workbook_bytes(["r1.yaml", "r2.yaml"], changes, rows, "USD")))
    assert _short_rows(wb["Outcomes"]) == [] and _short_rows(wb["Inputs changed"]) == []
