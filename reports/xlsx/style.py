"""The workbook's look and its small toolkit: fonts, fills, number formats, and the helpers every sheet
writes through (``put`` for values and input text, ``formula`` for our own formulas, ``define`` for the
workbook-level names that sheets use to refer to each other's cells)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.utils.cell import coordinate_from_string
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.pagebreak import Break
from openpyxl.worksheet.worksheet import Worksheet

from procure.common.text import printable

INPUT_FONT = Font(color="0000FF")
INPUT_FILL = PatternFill("solid", fgColor="FFF2CC")
HEADER_FONT = Font(bold=True, color="FFFFFF")
HEADER_FILL = PatternFill("solid", fgColor="1F4E78")
SECTION_FONT = Font(bold=True, size=12, color="1F4E78")
TITLE_FONT = Font(bold=True, size=14)
BOLD = Font(bold=True)
NOTE_FONT = Font(italic=True, color="595959")
TOTAL_FILL = PatternFill("solid", fgColor="DDEBF7")
CHOSEN_FILL = PatternFill("solid", fgColor="E2EFDA")
BAD_FONT = Font(color="C00000")
MODE_FILL = {
    "buy": PatternFill("solid", fgColor="F4B183"),
    "rent": PatternFill("solid", fgColor="9DC3E6"),
    "cloud": PatternFill("solid", fgColor="A9D18E"),
}
CAPACITY_FILL = {"buy": PatternFill("solid", fgColor="FBE5D6"), "rent": PatternFill("solid", fgColor="DEEBF7")}
THIN = Side(style="thin", color="BFBFBF")
TOP_RULE = Border(top=Side(style="thin", color="000000"))
WRAP = Alignment(wrap_text=True, vertical="top")
CENTER = Alignment(horizontal="center", vertical="center")

DATE_FMT = "yyyy-mm-dd"
MONTH_FMT = "d mmm yy"
INT_FMT = "#,##0"
NUM_FMT = "#,##0.0"
PCT_FMT = "0.0%"
#: a signed change in whole percents; its cell holds ``signed_pct_formula``, so it never shows "-0%" or "+0%"
SIGNED_PCT_FMT = "+0%;-0%;0%"


def signed_pct_formula(expr: str) -> str:
    """``expr`` (a fraction) as the value of a SIGNED_PCT_FMT cell: 0 when it rounds to no whole percent, so
    the sign shows only on a difference the cell shows (a number format cannot test the absolute value)."""
    return f"IF(ABS({expr})<0.005,0,{expr})"


def signed_amount(x):
    """A difference for a signed amount cell (``+#,##0;-#,##0;0``): 0 when it rounds to nothing, so the cell
    never shows "+0" or "-0"; anything else (None, text) as it is."""
    if isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) < 0.5:
        return 0.0
    return x


def zeroed_amount_formula(expr: str) -> str:
    """``expr`` (an amount) as the value of a whole-unit money cell: 0 when it rounds to nothing, so the cell never
    shows "-0" (a number format picks its negative section by the value's sign, not by what it shows)."""
    return f"IF(ABS({expr})<0.5,0,{expr})"


def signed_pct_value(x: float) -> float:
    """The value ``signed_pct_formula`` computes, for the cached value beside the formula."""
    return 0.0 if abs(x) < 0.005 else x


def money_fmt(currency: str, cents: bool = False) -> str:
    body = "#,##0.00" if cents else "#,##0"
    return f'{body} "{currency}"_);-{body} "{currency}"_);0 "{currency}"_)'


def _style(c, fmt: str | None, font: Font | None, fill: PatternFill | None, align: Alignment | None = None):
    if fmt:
        c.number_format = fmt
    if font:
        c.font = font
    if fill:
        c.fill = fill
    if align:
        c.alignment = align
    return c


def merge_in_row(ws: Worksheet, row: int, first: int, last: int) -> None:
    """``ws.merge_cells`` for columns ``first``..``last`` of one row, without openpyxl's check against
    every range merged before (a sheet of 1,500 merged rows spent seconds in it); each call here
    merges a row no other merge touches."""
    from openpyxl.worksheet.cell_range import CellRange
    from openpyxl.worksheet.merge import MergedCellRange

    mcr = MergedCellRange(ws, CellRange(min_col=first, min_row=row, max_col=last, max_row=row).coord)
    ws.merged_cells.ranges.add(mcr)
    ws._clean_merge_range(mcr)


def put(
    ws: Worksheet,
    row: int,
    col: int,
    value: Any,
    fmt: str | None = None,
    font: Font | None = None,
    fill: PatternFill | None = None,
    align: Alignment | None = None,
):
    """Write a value; text is always text (never a formula), whatever it starts with."""
    c = ws.cell(row=row, column=col)
    if isinstance(value, dt.datetime):
        value = value.replace(tzinfo=None)
    if isinstance(value, str):
        value = printable(value, keep_newlines=True)  # control characters: visible escapes (xlsx cannot hold C0)
    c.value = value
    if isinstance(value, str):
        c.data_type = "s"
    return _style(c, fmt, font, fill, align)


def formula(
    ws: Worksheet,
    row: int,
    col: int,
    text: str,
    fmt: str | None = None,
    font: Font | None = None,
    fill: PatternFill | None = None,
    *,
    value: Any,
):
    """Write one of our own formulas (never text from the inputs: that goes through ``put``), with
    ``value``, what it evaluates to for the plan as solved. The value is stored as the formula's cached
    result (see ``with_cached_values``), so readers without a calculation engine see the numbers."""
    if not text.startswith("="):
        raise ValueError(f"not a formula: {text[:40]!r}")
    c = ws.cell(row=row, column=col, value=text)
    cached_values(ws.parent)[(ws.title, c.coordinate)] = value
    return _style(c, fmt, font, fill)


def cached_values(wb) -> dict[tuple[str, str], Any]:
    """(sheet, cell) -> cached result of each formula written through ``formula``."""
    if not hasattr(wb, "_procure_cached"):
        wb._procure_cached = {}
    return wb._procure_cached


_CELL = re.compile(r'<c r="([A-Z]+[0-9]+)"([^>]*)><f>(.*?)</f><v\s*/>(</c>)', re.S)


def with_cached_values(xlsx: bytes, wb) -> bytes:
    """The saved workbook with every formula's cached result filled in (openpyxl writes an empty
    ``<v/>``). Numbers become ``<v>n</v>``, text ``t="str"``, booleans ``t="b"`` (ECMA-376 §18.3.1.4)."""
    import zipfile
    from io import BytesIO
    from xml.sax.saxutils import escape

    cache = cached_values(wb)
    sheet_file = {ws.title: f"xl/worksheets/sheet{i + 1}.xml" for i, ws in enumerate(wb.worksheets)}
    by_file: dict[str, dict[str, Any]] = {}
    for (title, coord), v in cache.items():
        by_file.setdefault(sheet_file[title], {})[coord] = v
    src = zipfile.ZipFile(BytesIO(xlsx))
    out = BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            values = by_file.get(item.filename)
            if values:

                def fill(m: re.Match, values: dict[str, Any] = values) -> str:
                    coord, attrs, f, end = m.groups()
                    if coord not in values:
                        return m.group(0)
                    v = values[coord]
                    if isinstance(v, bool):
                        return f'<c r="{coord}"{attrs} t="b"><f>{f}</f><v>{int(v)}</v>{end}'
                    if isinstance(v, (int, float)):
                        return f'<c r="{coord}"{attrs}><f>{f}</f><v>{float(v)!r}</v>{end}'
                    return f'<c r="{coord}"{attrs} t="str"><f>{f}</f><v>{escape(str(v))}</v>{end}'

                data = _CELL.sub(fill, data.decode("utf-8")).encode("utf-8")
            dst.writestr(item, data)
    return out.getvalue()


def text_height(text: str, width_chars: float, line_pt: float = 13.0) -> float:
    """Row height (points) that shows ``text`` wrapped in a cell ``width_chars`` wide (Excel column
    units ≈ characters of the default font); a margin of one character per line for word breaks."""
    import math

    lines = 0
    for para in str(text).split("\n"):
        lines += max(1, math.ceil(len(para) / max(1.0, width_chars - 1)))
    return lines * line_pt + 3


def fit_row(ws: Worksheet, row: int, text: str, width_chars: float, line_pt: float = 13.0) -> None:
    """Make ``row`` tall enough for ``text`` wrapped in ``width_chars`` (never lower than it is)."""
    need = text_height(text, width_chars, line_pt)
    cur = ws.row_dimensions[row].height or 15.0
    ws.row_dimensions[row].height = max(cur, need)


def _text_width(text: str) -> float:
    """How many column units ``text`` takes: a CJK or full-width character two, any other one."""
    import unicodedata

    return sum(2.0 if unicodedata.east_asian_width(ch) in ("W", "F") else 1.0 for ch in text)


def _cell_width(ws: Worksheet, row: int, col: int, merged: dict[tuple[int, int], int]) -> float:
    """The width in column units a cell's text wraps in: its column, or its merged columns together."""
    from openpyxl.utils import get_column_letter

    last = merged.get((row, col), col)
    total = 0.0
    for c in range(col, last + 1):
        w = ws.column_dimensions[get_column_letter(c)].width if get_column_letter(c) in ws.column_dimensions else None
        total += w or 8.43
    return total


def fit_wrapped_rows(ws: Worksheet, line_pt: float = 15.0) -> None:
    """Make every row as tall as its wrapped text needs (never lower than it is): a wrapped cell that is cut
    to one line reads on screen, where the row can be dragged open, but not in print."""
    import math

    merged = {(r.min_row, r.min_col): r.max_col for r in ws.merged_cells.ranges if r.min_row == r.max_row}
    need: dict[int, float] = {}
    for row in ws.iter_rows():
        for c in row:
            if not isinstance(c.value, str) or c.data_type == "f" or not (c.alignment and c.alignment.wrap_text):
                continue
            width = max(1.0, _cell_width(ws, c.row, c.column, merged) - 1)  # a character's margin for word breaks
            lines = sum(max(1, math.ceil(_text_width(p) / width)) for p in c.value.split("\n"))
            if lines > 1:
                need[c.row] = max(need.get(c.row, 0.0), lines * line_pt + 3)
    for r, h in need.items():
        cur = ws.row_dimensions[r].height or 15.0
        ws.row_dimensions[r].height = max(cur, h)


def money_width(values, currency: str, cents: bool = False, bold: bool = True) -> float:
    """A column width that shows the largest of ``values`` in the money format without ``###``:
    the formatted text, plus 12% for bold digits and four characters of padding (the cell's margins and the
    format's ``_)``: with Calibri's metrics, as Excel prints, two characters left "-207,360.00 USD" as ``###``)."""
    vals = [abs(v) for v in values if isinstance(v, (int, float))] or [0.0]
    text = f"-{max(vals):,.{2 if cents else 0}f} {currency} "
    return round(len(text) * (1.12 if bold else 1.0) + 4, 1)


def as_input(cell) -> None:
    cell.font = INPUT_FONT
    cell.fill = INPUT_FILL


def header(ws: Worksheet, row: int, labels: list[str], col: int = 1, height: float | None = None) -> None:
    for i, label in enumerate(labels):
        put(
            ws,
            row,
            col + i,
            label,
            font=HEADER_FONT,
            fill=HEADER_FILL,
            align=Alignment(wrap_text=True, vertical="center"),
        )
    if height:
        ws.row_dimensions[row].height = height


def align_top(ws: Worksheet, row: int, n_cols: int) -> None:
    """Top-align a row whose one wrapped cell makes it tall, so its cells read as one line."""
    for col in range(1, n_cols + 1):
        c = ws.cell(row=row, column=col)
        a = c.alignment
        c.alignment = Alignment(horizontal=a.horizontal, vertical="top", wrap_text=a.wrap_text, indent=a.indent)


def widths(ws: Worksheet, cols: Mapping[str, float]) -> None:
    for letter, w in cols.items():
        ws.column_dimensions[letter].width = w


def print_setup(ws: Worksheet, title_rows: str | None = None) -> None:
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_options.gridLines = False
    ws.page_margins.left = ws.page_margins.right = 0.4
    ws.page_margins.top = ws.page_margins.bottom = 0.5
    if title_rows:
        ws.print_title_rows = title_rows


#: A4 (ISO 216) in points, and print_setup's margins: landscape, 0.4 in left and right, 0.5 in top and bottom
A4_PT = (595.28, 841.89)
PT_PER_CM = 72 / 2.54
#: a block is moved to a fresh page when it would end within this share of the page's bottom (the spreadsheet
#: program's own row heights and fonts differ a little from the estimate below)
PAGE_SLACK = 0.08


def _column_pt(width_chars: float) -> float:
    """A column's printed width in points: the width stored in the file, w, is in characters of the default font's
    maximum digit width with the cell padding already in it (ECMA-376 Part 1, 18.3.1.13 col: width), so Calibri's
    7 px digit gives w·7 px, 0.75 pt a px."""
    return width_chars * 7 * 0.75


def page_rows_height(ws: Worksheet, last_col: int) -> float:
    """The height one printed page holds, in the sheet's own points (before print_setup's fit to one page
    wide scales it): the printable height of landscape A4 divided by the scale that fits columns A…last_col."""
    printable_w = A4_PT[1] - 2 * 0.4 * 72
    printable_h = A4_PT[0] - 2 * 0.5 * 72
    default = 8.43  # Excel's default column width
    sheet_w = 0.0
    for c in range(1, last_col + 1):
        letter = get_column_letter(c)
        # read without creating: a missing column keeps the default width (reading would add a dimension)
        w = ws.column_dimensions[letter].width if letter in ws.column_dimensions else None
        sheet_w += _column_pt(w if w else default)
    scale = min(1.0, printable_w / sheet_w) if sheet_w else 1.0
    return printable_h / scale


def keep_on_one_page(ws: Worksheet, row: int, height_pt: float, last_col: int) -> bool:
    """Add a page break before ``row`` when a block ``height_pt`` tall drawn from its top (a chart) would
    straddle a printed page's end, following the rows' heights and the manual breaks above it (the rows fall on
    pages as the full page height places them; the block must fit ``PAGE_SLACK`` short of the page's end);
    whether a break was added. Call after the column widths and row heights are final."""
    page = page_rows_height(ws, last_col)
    breaks = {b.id for b in ws.row_breaks.brk}
    default = ws.sheet_format.defaultRowHeight or 15.0
    y = 0.0  # the top of row r on its page
    for r in range(1, row):
        h = (ws.row_dimensions[r].height if r in ws.row_dimensions else None) or default
        if y + h > page:  # the row does not fit: it starts the next page
            y = 0.0
        y += h
        if r in breaks:
            y = 0.0
    if y == 0.0 or y + height_pt <= page * (1 - PAGE_SLACK):
        return False
    ws.row_breaks.append(Break(id=row - 1))
    ws.row_breaks.brk = sorted(ws.row_breaks.brk, key=lambda b: b.id)
    return True


def charts_on_whole_pages(ws: Worksheet) -> None:
    """Every chart of ``ws`` printed whole: where one would straddle a page's end (a Summary whose head grew with
    Chinese text, stale-price lines or budget rows; a long table above a chart), a page break moves it to the
    next page (``keep_on_one_page``). Charts side by side share their row; the tallest counts. Run after the
    row heights are final."""
    tallest: dict[int, float] = {}
    for chart in ws._charts:
        a = chart.anchor  # "A32" until the workbook is saved, then an anchor object (zero-based)
        row = coordinate_from_string(a)[1] if isinstance(a, str) else a._from.row + 1
        tallest[row] = max(tallest.get(row, 0.0), float(chart.height) * PT_PER_CM)
    for row in sorted(tallest):
        keep_on_one_page(ws, row, tallest[row], last_col=max(1, ws.max_column))


def abs_ref(sheet: str, col: int | str, row: int) -> str:
    letter = col if isinstance(col, str) else get_column_letter(col)
    return f"{quote(sheet)}!${letter}${row}"


def quote(sheet: str) -> str:
    """A sheet name as a formula refers to it: quoted when it has a blank, a dash or a letter outside ASCII (现金流)."""
    return f"'{sheet}'" if " " in sheet or "-" in sheet or not sheet.isascii() else sheet


def name_fonts(wb, font_name: str) -> None:
    """Give every written cell's font the name ``font_name`` (a font with the glyphs of the reader's
    language, so a printed PDF shows them rather than boxes); size, weight and colour stay."""
    from copy import copy

    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                f = copy(c.font)
                f.name = font_name
                c.font = f
    wb._named_styles["Normal"].font = Font(name=font_name, size=11)


def define(
    ws: Worksheet, name: str, col: int | str, row: int, last_row: int | None = None, last_col: int | str | None = None
) -> str:
    """Give a cell (or a range down to ``last_row`` / across to ``last_col``) a workbook-level name and return the name.

    Sheets refer to each other's cells through these names, so a sheet can change its layout without
    the formulas of another sheet pointing at the wrong row."""
    if last_row is None and last_col is None:
        ref = abs_ref(ws.title, col, row)
    else:
        ref = (
            abs_ref(ws.title, col, row)
            + f":${_letter(last_col if last_col is not None else col)}${last_row if last_row is not None else row}"
        )
    ws.parent.defined_names[name] = DefinedName(name, attr_text=ref)
    return name


def define_block(ws: Worksheet, name: str, first_col: int, first_row: int, last_col: int, last_row: int) -> str:
    """Name a rectangular block of cells (workbook level) and return the name."""
    ref = f"{abs_ref(ws.title, first_col, first_row)}:${_letter(last_col)}${last_row}"
    ws.parent.defined_names[name] = DefinedName(name, attr_text=ref)
    return name


def name_for(prefix: str, key: str, index: int) -> str:
    """A defined name for an entity key: letters, digits and underscores, never a cell reference."""
    return f"{prefix}_{re.sub(r'[^A-Za-z0-9]+', '_', key).strip('_')}_{index}"


def _letter(col: int | str) -> str:
    return col if isinstance(col, str) else get_column_letter(col)
