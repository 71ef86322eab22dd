"""A printed chart is never cut by a page's end: the Summary's charts move to the next page when the rows above
them leave less room than the chart's height (reports/xlsx/style.py ``keep_on_one_page``).

The page geometry, by hand: landscape A4 is 841.89 × 595.28 pt; print_setup's margins leave 841.89 − 57.6 =
784.29 pt of width and 595.28 − 72 = 523.28 pt of height. A column whose stored width is w prints 7w px × 0.75 pt/px
(ECMA-376 col width: characters of Calibri's 7 px digit, the padding included), and fit-to-one-page-wide scales
every row by the same factor. Rows fall on pages by the full page height; a chart must fit 8 % short of it."""

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
    # 8 columns 20 wide: 20 × 7 × 0.75 = 105 pt each, 840 pt in all; scale 784.29 / 840 = 0.93368;
    # a page holds 523.28 / 0.93368 = 560.45 sheet-pt, and a chart must end by 560.45 × 0.92 = 515.62.
    ws = _sheet([20] * 8, [20.0] * 20)  # rows 1–20: 400 pt above row 21
    assert not keep_on_one_page(ws, 21, 110.0, last_col=8)  # 400 + 110 = 510 ≤ 515.62: it fits
    assert ws.row_breaks.brk == []
    assert keep_on_one_page(ws, 21, 120.0, last_col=8)  # 400 + 120 = 520 > 515.62: next page
    assert [b.id for b in ws.row_breaks.brk] == [20]  # a break above row 21 (zero-based id 20)


def test_rows_fall_on_pages_by_the_full_page_and_the_slack_is_only_the_charts():
    # the same page: rows 1–27 of 20 pt end at 540 ≤ 560.45, all on page 1; a 400 pt chart at row 28 would run
    # from 540 to 940: a break (the slack must not move row 27 to page 2 in the count)
    ws = _sheet([20] * 8, [20.0] * 27)
    assert keep_on_one_page(ws, 28, 400.0, last_col=8)
    assert [b.id for b in ws.row_breaks.brk] == [27]


def test_rows_that_overflow_a_page_and_manual_breaks_restart_the_count():
    # 30 rows of 20 pt: rows 1–28 fill 560 ≤ 560.45, row 29 would end at 580 and starts page 2; rows 29–30 =
    # 40 pt, so a chart at row 31 of 400 pt ends at 440 ≤ 515.62: it fits on page 2
    ws = _sheet([20] * 8, [20.0] * 30)
    assert not keep_on_one_page(ws, 31, 400.0, last_col=8)
    # a manual break above row 11: rows 11–30 = 400 pt on their page, and 400 + 140 = 540 > 515.62
    from openpyxl.worksheet.pagebreak import Break

    ws.row_breaks.append(Break(id=10))
    assert keep_on_one_page(ws, 31, 140.0, last_col=8)
    assert [b.id for b in ws.row_breaks.brk] == [10, 30]


def test_wider_columns_shrink_the_print_and_leave_room_for_more_rows():
    # 8 columns 40 wide: 210 pt each, 1,680 pt; scale 0.46684; the page holds 1,120.9 sheet-pt, a chart must end
    # by 1,031.2: 600 pt of rows and a 400 pt chart fit, where at width 20 they did not
    assert not keep_on_one_page(_sheet([40] * 8, [20.0] * 30), 31, 400.0, last_col=8)
    assert keep_on_one_page(_sheet([20] * 8, [20.0] * 25), 26, 400.0, last_col=8)  # 500 + 400 > 515.62


def test_the_check_reads_the_widths_without_adding_columns():
    ws = _sheet([20] * 3, [20.0] * 5)
    keep_on_one_page(ws, 6, 100.0, last_col=8)
    assert sorted(ws.column_dimensions) == ["A", "B", "C"]


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
    widths = sum(7 * (ws.column_dimensions[c].width or 8.43) * 0.75 for c in "ABCDEFGH")
    page = 523.28 / min(1.0, 784.29 / widths) * 0.92
    chart = 7.6 * 72 / 2.54
    assert above < page < above + chart  # the head fits one page, the head and the charts do not
    assert chart_row in {b.id for b in ws.row_breaks.brk}
