"""What people read: console summary, JSON, CSV and the Excel workbook. Reports read result objects only."""
