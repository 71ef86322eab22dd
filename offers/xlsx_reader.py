"""Read the offers table of an .xlsx workbook with bounded memory and time, whatever the file holds.

An .xlsx file is a zip of XML parts. Before anything is inflated, the zip directory is inspected:
part count, inflated size of each part and of all together, and each part's compression ratio (a
"zip bomb" inflates a few MB to GB). The sheet's declared dimension is checked before its rows are
read, and rows are then streamed (openpyxl's read-only parser) with a row cap, so a workbook with a
stray value in cell XFD1048576 is refused at once instead of being expanded into 17 billion cells.
XML is parsed by openpyxl through defusedxml (a dependency), so no DTD or entity is ever resolved.
Any other way a workbook can be broken (bad XML, a missing part, a chart where the sheet should be,
an encrypted file) ends in one message saying what is wrong with the file.
"""

from __future__ import annotations

import io
import re
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from openpyxl.utils import column_index_from_string, get_column_letter

from procure.common.errors import InputError, Problem, ProblemLog
from procure.common.text import echo
from procure.fileio.limits import (
    MAX_COLUMNS,
    MAX_OFFERS,
    XLSX_MAX_PART_BYTES,
    XLSX_MAX_PARTS,
    XLSX_MAX_RATIO,
    XLSX_MAX_SHEET_BYTES,
    XLSX_MAX_TOTAL_BYTES,
)
from procure.fileio.reading import read_input

#: the first bytes of an OLE2 compound file: an encrypted .xlsx, or an old binary .xls
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_RATIO_EXEMPT_BYTES = 1 << 20


def _fail(path: Path, message: str, row: int | None = None) -> InputError:
    return InputError([Problem(str(path), "", message, row=row)])


def inspect_zip(raw: bytes, path: Path) -> None:
    """Refuse a workbook whose zip directory announces a bomb (see ``fileio.limits``)."""
    if raw[:8] == _OLE_MAGIC:
        raise _fail(
            path,
            "the workbook is password-protected (encrypted), or an old .xls file; remove the password and save it as .xlsx",
        )
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, ValueError, EOFError):
        raise _fail(
            path, "not a readable .xlsx workbook (not a zip archive); save it from the spreadsheet as .xlsx"
        ) from None
    with zf:
        infos = zf.infolist()
        if len(infos) > XLSX_MAX_PARTS:
            raise _fail(path, f"the workbook holds {len(infos):,} parts; the limit is {XLSX_MAX_PARTS:,}")
        total = sum(i.file_size for i in infos)
        if total > XLSX_MAX_TOTAL_BYTES:
            raise _fail(
                path,
                f"the workbook inflates to {total / 2**20:,.0f} MiB; the limit is {XLSX_MAX_TOTAL_BYTES / 2**20:.0f} MiB (a zip bomb?)",
            )
        for i in infos:
            sheet = i.filename.startswith("xl/worksheets/")
            limit = XLSX_MAX_SHEET_BYTES if sheet else XLSX_MAX_PART_BYTES
            name = echo(i.filename)
            if i.file_size > limit:
                raise _fail(
                    path,
                    f"part {name} inflates to {i.file_size / 2**20:,.0f} MiB; the limit is {limit / 2**20:.0f} MiB (a zip bomb?)",
                )
            if i.file_size > _RATIO_EXEMPT_BYTES and i.file_size > XLSX_MAX_RATIO * max(i.compress_size, 1):
                ratio = i.file_size / max(i.compress_size, 1)
                raise _fail(
                    path,
                    f"part {name} inflates {ratio:,.0f} times (the limit is {XLSX_MAX_RATIO}); refusing a likely zip bomb",
                )


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        yield e
        e = e.__cause__ or e.__context__


def _describe(exc: BaseException) -> str:
    """What broke, in words, for an exception raised while opening or parsing a workbook (openpyxl
    wraps the real cause in a ValueError, so the whole chain is looked at)."""
    for e in _causes(exc):
        kind = type(e).__name__
        if kind in ("DTDForbidden", "EntitiesForbidden", "ExternalReferenceForbidden", "NotSupportedError"):
            return "an XML part declares a DTD or entities, which a workbook never needs; refusing to read it"
    for e in _causes(exc):
        kind, text = type(e).__name__, str(e).split("\n")[0]
        if kind in ("ParseError", "XMLSyntaxError", "ExpatError"):
            return f"an XML part is malformed ({echo(text, 60)})"
        if isinstance(e, KeyError):
            return f"a part the workbook refers to is missing ({echo(text, 60)})"
        if isinstance(e, zipfile.BadZipFile):
            return f"the zip archive is damaged ({echo(text, 60)})"
    text = str(exc).split("\n")[0]
    return f"its structure is damaged ({type(exc).__name__}: {echo(text, 60)})"


_DIMENSION = re.compile(rb"<(?:\w+:)?dimension\s+ref=\"([A-Z]{1,3})?(\d+)?(?::([A-Z]{1,3})(\d+))?\"")


def declared_extent(head: bytes) -> tuple[int, int] | None:
    """(rows, columns) from the ``<dimension ref="A1:XFD1048576"/>`` at the start of a sheet part."""
    m = _DIMENSION.search(head)
    if not m:
        return None
    col, row = (m.group(3), m.group(4)) if m.group(3) else (m.group(1), m.group(2))
    if not col or not row:
        return None
    return int(row), column_index_from_string(col.decode())


#: template sheets that are never read as offers (``procure offers template`` writes them)
EXAMPLE_SHEETS = ("Example", "columns")


def read_sheet(path: Path) -> list[tuple[int, list[Any]]]:
    """The table of the sheet named ``offers`` (else the first sheet): ``(row number, values)`` per
    non-empty row, the header first, each row as wide as the header."""
    raw = read_input(path, "catalog")
    inspect_zip(raw, path)
    with warnings.catch_warnings():  # openpyxl warns about harmless oddities on stderr
        warnings.simplefilter("ignore")
        try:
            reader, title, target = _open(raw, path)
        except (InputError, MemoryError):
            raise
        except Exception as exc:  # noqa: BLE001 — every way openpyxl fails on a broken file is a bad input
            raise _fail(path, f"not a readable .xlsx workbook: {_describe(exc)}") from None
        try:
            return _rows(reader, title, target, path)
        except (InputError, MemoryError):
            raise
        except Exception as exc:  # noqa: BLE001
            raise _fail(path, f"sheet {echo(title)} cannot be read: {_describe(exc)}") from None
        finally:
            reader.archive.close()


def _open(raw: bytes, path: Path):
    """openpyxl's workbook reader, run up to (not including) the worksheets: strings, workbook,
    styles. Returns it with the chosen sheet's title and part name."""
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.styles.stylesheet import apply_stylesheet

    reader = ExcelReader(io.BytesIO(raw), read_only=True, data_only=False, keep_links=False)
    reader.read_manifest()
    reader.read_strings()
    reader.read_workbook()
    apply_stylesheet(reader.archive, reader.wb)
    found = list(reader.parser.find_sheets())
    if not found:
        raise _fail(path, "the workbook has no sheets")
    # only what a reviewer sees in Excel is read: a hidden (or very hidden) sheet never is, and one named
    # "offers" is refused rather than passed over for a visible sheet, which would be a guess
    for sheet, _rel in found:
        if sheet.name == "offers" and (sheet.state or "visible") != "visible":
            raise _fail(
                path,
                f"the sheet named 'offers' is {'very hidden' if sheet.state == 'veryHidden' else 'hidden'} in Excel, so "
                "what a reviewer sees is not what would be planned; unhide it (right-click a sheet tab, Unhide) or delete it",
            )
    sheets = [(sheet.name, rel) for sheet, rel in found if (sheet.state or "visible") == "visible"]
    if not sheets:
        raise _fail(
            path, "every sheet of the workbook is hidden; unhide the offers sheet (right-click a sheet tab, Unhide)"
        )
    # the sheet named "offers", else the first one that is not the template's "Example" or column help
    title, rel = next(((n, r) for n, r in sheets if n == "offers"), None) or next(
        ((n, r) for n, r in sheets if n not in EXAMPLE_SHEETS), sheets[0]
    )
    if "chartsheet" in (rel.Type or ""):
        raise _fail(
            path, f"sheet {echo(title)} is a chart, not a table of cells; put the offers on a worksheet named 'offers'"
        )
    if rel.target not in reader.valid_files:
        raise _fail(
            path, f"not a readable .xlsx workbook: the part of sheet {echo(title)} ({echo(rel.target)}) is missing"
        )
    return reader, title, rel.target


def _rows(reader, title: str, target: str, path: Path) -> list[tuple[int, list[Any]]]:
    from openpyxl.worksheet._reader import WorkSheetParser

    _check_extent(reader, target, title, path)
    problems = ProblemLog()
    table: list[tuple[int, list[Any]]] = []
    width = 0
    stray = None  # (first row, first column, rows)
    wb = reader.wb
    # the parser yields only the rows the file holds (openpyxl's worksheet objects would first scan
    # a sheet without <dimension> to its end, then pad every gap with empty rows)
    with reader.archive.open(target) as src:
        # dates are converted here, not by the parser: Excel's serial 60 is a day openpyxl moves (below)
        parser = WorkSheetParser(
            src,
            _SharedStrings(reader.shared_strings),
            data_only=False,
            epoch=wb.epoch,
            date_formats=set(),
            timedelta_formats=set(),
        )
        dates = _DateCells(wb, path)
        hidden: list[int] = []
        for rownum, cells in parser.parse():
            _check_cell_refs(cells, rownum, path)
            header = table[0][1] if table else []
            for c in cells:
                c["value"] = dates.as_typed(c, rownum, header)
            if rownum > MAX_OFFERS + 1:
                raise InputError(
                    [
                        Problem(
                            str(path),
                            "",
                            f"the table goes on past row {MAX_OFFERS + 1:,} (row {rownum:,} has values); a catalog holds at most {MAX_OFFERS:,} offers — split it into several files, or delete the stray rows",
                            row=rownum,
                        )
                    ]
                )
            present = [c for c in cells if c["value"] is not None and c["value"] != ""]
            if not present:
                continue
            if not table:
                width = _header_width(rownum, present, path)
            if str((parser.row_dimensions.get(str(rownum)) or {}).get("hidden", "")).lower() in ("1", "true"):
                hidden.append(rownum)
            beyond = [c["column"] for c in present if c["column"] > width]
            if beyond:
                stray = (rownum, min(beyond), 1) if stray is None else (stray[0], stray[1], stray[2] + 1)
            table.append((rownum, _row_values(present, width, header, rownum, path, problems)))
        merged = getattr(parser, "merged_cells", None)
        for rng in getattr(merged, "mergeCell", None) or []:
            problems.add(
                Problem(
                    str(path),
                    "",
                    f"merged cells {rng.ref} on sheet {echo(title)}; unmerge them so each cell holds one value",
                    row=_first_row(rng.ref),
                )
            )
    if hidden:
        problems.add(
            Problem(
                str(path),
                "",
                f"row{'s' if len(hidden) > 1 else ''} {_row_list(hidden)} of sheet {echo(title)} "
                f"{'are' if len(hidden) > 1 else 'is'} hidden in Excel, so what a reviewer sees is not what would be "
                "planned; unhide them (select all, right-click a row number, Unhide) or delete them",
                row=hidden[0],
            )
        )
    if stray is not None:
        problems.add(
            Problem(
                str(path),
                "",
                f"cells beyond the header's {width} columns, first in column {stray[1]}"
                + (f" (and in {stray[2] - 1:,} more row{'s' if stray[2] > 2 else ''})" if stray[2] > 1 else "")
                + "; give each column a header or delete the stray cells",
                row=stray[0],
            )
        )
    if problems:
        raise problems.error()
    return table


class _SharedStrings(list):
    """The workbook's shared strings, indexed as the file's cells index them: a negative index (Python would
    count from the end) or one past the end is a damaged file, never another cell's text."""

    def __getitem__(self, i):
        if not isinstance(i, int) or not 0 <= i < len(self):
            raise ValueError(
                f"a cell refers to shared string {i!r}, and the workbook has {len(self):,} (a damaged file)"
            )
        return super().__getitem__(i)


def _check_cell_refs(cells: list[dict], rownum: int, path: Path) -> None:
    """Two cells of a row at the same reference (``<c r="P2">`` twice) is structural damage: one would be lost."""
    seen: set[int] = set()
    for c in cells:
        if c["column"] in seen:
            raise _fail(
                path,
                f"cell {get_column_letter(c['column'])}{rownum} appears twice in the sheet's XML (a damaged file); "
                "re-save the workbook from the spreadsheet",
                row=rownum,
            )
        seen.add(c["column"])


def _row_list(rows: list[int]) -> str:
    shown = ", ".join(f"{r:,}" for r in rows[:10])
    return shown + (f" and {len(rows) - 10:,} more" if len(rows) > 10 else "")


def _check_extent(reader, target: str, title: str, path: Path) -> None:
    """The sheet's own <dimension>, when it has one: refuse an absurd extent before reading a row."""
    with reader.archive.open(target) as src:
        extent = declared_extent(src.read(4096))
    if extent and (extent[0] > MAX_OFFERS + 1 or extent[1] > MAX_COLUMNS):
        rows, cols = extent
        raise _fail(
            path,
            f"sheet {echo(title)} spans A1:{get_column_letter(cols)}{rows} ({rows:,} rows × {cols:,} columns); "
            f"a catalog holds at most {MAX_OFFERS:,} offers in at most {MAX_COLUMNS} columns — delete the stray cells "
            "(Ctrl+End jumps to the last one)",
        )


def _header_width(rownum: int, present: list[dict], path: Path) -> int:
    """The first row with values is the header, and must be row 1; its last column is the table's width."""
    if rownum != 1:
        raise _fail(path, "row 1 is empty; it must be the header (the column names)", row=1)
    width = max(c["column"] for c in present)
    if width > MAX_COLUMNS:
        raise _fail(path, f"the header row has {width:,} columns; a catalog has at most {MAX_COLUMNS}", row=1)
    return width


def _row_values(
    present: list[dict], width: int, header: list[Any], rownum: int, path: Path, problems: ProblemLog
) -> list[Any]:
    """One row's values by column up to the header's width; a formula cell is a problem (values only)."""
    values: list[Any] = [None] * width
    for c in present:
        if c["column"] > width:
            continue
        values[c["column"] - 1] = c["value"]
        if c.get("data_type") == "f" or (isinstance(c["value"], str) and c["value"].startswith("=")):
            name = (
                header[c["column"] - 1]
                if c["column"] - 1 < len(header) and header[c["column"] - 1]
                else f"column {c['column']}"
            )
            problems.add(
                Problem(
                    str(path),
                    str(name),
                    f"cell holds a formula ({echo(c['value'], 40)}); enter the value itself (paste as values)",
                    row=rownum,
                )
            )
    return values


class _DateCells:
    """Cell values as the user typed them, and dates as Excel shows them.

    A number in a cell formatted as a date is a serial day count. In the 1900 date system Excel
    counts a 29 February 1900 that never was (serial 60, kept from Lotus 1-2-3), so serials 1-59 are
    1900-01-01 … 1900-02-28 and serials from 61 are one day less than their count from 1899-12-31.
    Serial 60 has no calendar date: it is refused with what Excel shows, 1900-02-29. A time of day
    (a serial under 1) or a duration is shown as Excel writes it; array and data-table formulas are
    shown as their formula text, never as a Python object."""

    def __init__(self, wb, path: Path):
        from openpyxl.utils.datetime import WINDOWS_EPOCH

        self.date_styles = wb._date_formats
        self.duration_styles = wb._timedelta_formats
        self.excel_1900 = wb.epoch == WINDOWS_EPOCH
        self.epoch = wb.epoch
        self.path = path

    def as_typed(self, cell: dict, rownum: int, header: list[Any]) -> Any:
        from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula

        value = cell["value"]
        if isinstance(value, ArrayFormula):
            return value.text or "{=…}"
        if isinstance(value, DataTableFormula):
            return "=TABLE()"
        if cell.get("data_type") != "n" or not isinstance(value, (int, float)) or isinstance(value, bool):
            return value
        style = cell.get("style_id")
        if style in self.duration_styles:
            return _duration_text(value)
        if style not in self.date_styles:
            return value
        k = cell["column"] - 1
        column = str(header[k]) if k < len(header) and header[k] else f"column {cell['column']}"
        return self.date(value, rownum, column)

    def date(self, serial: float, rownum: int, column: str) -> Any:
        import datetime as dt

        if self.excel_1900 and 60 <= serial < 61:
            raise InputError(
                [
                    Problem(
                        str(self.path),
                        column,
                        "a date cell holds Excel's serial 60, shown by Excel as 1900-02-29: a day that "
                        "does not exist (Excel keeps it from Lotus 1-2-3); type the date you mean",
                        row=rownum,
                    )
                ]
            )
        day, fraction = divmod(serial, 1)
        if 0 <= serial < 1:  # a time of day without a date
            seconds = round(fraction * 86400)
            return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}" + (f":{seconds % 60:02d}" if seconds % 60 else "")
        if self.excel_1900 and serial < 60:
            day += 1  # before the day that never was, Excel's count is one day ahead of the calendar's
        try:
            return self.epoch + dt.timedelta(days=day, milliseconds=round(fraction * 86_400_000))
        except OverflowError:
            return serial  # not a date Python can hold: the number, refused as a date by validation


def _duration_text(days: float) -> str:
    """A duration cell as Excel's [h]:mm:ss shows it."""
    seconds = round(days * 86400)
    sign, seconds = ("-", -seconds) if seconds < 0 else ("", seconds)
    return f"{sign}{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _first_row(ref: str) -> int | None:
    digits = "".join(ch for ch in ref.split(":")[0] if ch.isdigit())
    return int(digits) if digits else None
