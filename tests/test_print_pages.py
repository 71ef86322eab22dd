"""A printed chart is never cut by a page's end: the Summary's charts move to the next page when the rows above
them leave less room than the chart's height (reports/xlsx/style.py ``keep_on_one_page``).

The page geometry, by hand: landscape A4 is 841.89 × 595.28 pt; print_setup's margins leave 841.89 − 57.6 =
784.29 pt of width and 595.28 − 72 = 523.28 pt of height. A column w characters wide prints (7w + 5) px × 0.75
pt/px (ECMA-376 col width, Calibri's 7 px digit), and fit-to-one-page-wide scales every row by the same factor."""

from __future__ import annotations

import pytest
from openpyxl import Workbook

from procure.reports.xlsx.style import keep_on_one_page, print_setup


def _sheet(col_widths, heights):
    wb = Workbook()
    ws = wb.active
    for i, w in enumerate(col_widths):
        ws.column_dimensions["ABCDEFGH"[i]].width = w
    for r, h in enumerate(heights, start=1):
        ws.row_dimensions[r].height = h
    print_setup(ws)
    return ws


def test_a_chart_that_fits_below_the_rows_stays_and_one_that_does_not_moves():
    # 8 columns 20 wide: (7·20 + 5) × 0.75 = 108.75 pt each, 870 pt in all; scale 784.29 / 870 = 0.90148;
    # a page holds 523.28 / 0.90148 = 580.47 sheet-pt, 534.03 after the 8 % slack.
    ws = _sheet([20] * 8, [20.0] * 20)  # rows 1–20: 400 pt above row 21
    assert not keep_on_one_page(ws, 21, 130.0, last_col=8)  # 400 + 130 = 530 ≤ 534.03: it fits
    assert ws.row_breaks.brk == []
    assert keep_on_one_page(ws, 21, 140.0, last_col=8)  # 400 + 140 = 540 > 534.03: next page
    assert [b.id for b in ws.row_breaks.brk] == [20]  # a break above row 21 (zero-based id 20)


def test_rows_that_overflow_a_page_and_manual_breaks_restart_the_count():
    # the same page (534.03 sheet-pt): 30 rows of 20 pt: rows 1–26 fill 520 pt, row 27 would end at 540 and
    # starts page 2; rows 27–30 = 80 pt, so a chart at row 31 of 400 pt ends at 480: it fits on page 2
    ws = _sheet([20] * 8, [20.0] * 30)
    assert not keep_on_one_page(ws, 31, 400.0, last_col=8)
    # a manual break above row 11: rows 11–30 = 400 pt on their page, and 400 + 140 > 534.03
    from openpyxl.worksheet.pagebreak import Break

    ws.row_breaks.append(Break(id=10))
    assert keep_on_one_page(ws, 31, 140.0, last_col=8)
    assert [b.id for b in ws.row_breaks.brk] == [10, 30]


def test_wider_columns_shrink_the_print_and_leave_room_for_more_rows():
    # 8 columns 40 wide: 213.75 pt each, 1,710 pt; scale 0.45865; the page holds 1,140.9 sheet-pt × 0.92 =
    # 1,049.6: 600 pt of rows and a 400 pt chart fit, where at width 20 they did not
    assert not keep_on_one_page(_sheet([40] * 8, [20.0] * 30), 31, 400.0, last_col=8)
    assert keep_on_one_page(_sheet([20] * 8, [20.0] * 30), 31, 400.0 + 534.03 - 80 + 1, last_col=8)


@pytest.mark.slow  # solves the 12-month programme (about 15 s)
def test_the_quick_start_summary_puts_its_charts_on_a_page_of_their_own(tmp_path):
    """The quick start's Summary: its head (recommendation, risk and assumption lines, key figures, strategies)
    is taller than a page leaves room for beside the 7.6 cm charts, so they start the next page: printed in
    Excel (Calibri) they were cut in two across the page's end."""
    import openpyxl

    from helpers import ROOT, cli

    out = tmp_path / "r.xlsx"
    res = cli("solve", str(ROOT / "examples" / "programme-12-months.yaml"), "--out", str(out), "--no-compare")
    assert res.exit_code == 0, res.output
    ws = openpyxl.load_workbook(out).worksheets[0]
    chart_row = min(c.anchor._from.row for c in ws._charts)  # zero-based: the row the charts start on
    above = sum(ws.row_dimensions[r].height or 15.0 for r in range(1, chart_row + 1))
    widths = sum((7 * (ws.column_dimensions[c].width or 8.43) + 5) * 0.75 for c in "ABCDEFGH")
    page = 523.28 / min(1.0, 784.29 / widths) * 0.92
    chart = 7.6 * 72 / 2.54
    assert above < page < above + chart  # the head fits one page, the head and the charts do not
    assert chart_row in {b.id for b in ws.row_breaks.brk}
