"""The Excel approval workbook: a style module, one module per sheet, and ``workbook`` that writes them in order."""

from .workbook import SHEETS, build_workbook, write_workbook

__all__ = ["SHEETS", "build_workbook", "write_workbook"]
