"""Every limit on what procure reads, in one place (docs/errors.md lists each with its message).

Limits are checked before the work they protect: a file's type and size before it is read, a
workbook's zip directory and sheet size before any cell is parsed. Plausible ranges bound every
number so that a typo (or a hostile file) is an input error, never a solver failure. Money ranges are
wide enough for any currency's figures (a server costs about 10^9 in IDR or KRW).
"""

from __future__ import annotations

import datetime as dt

# --- files -----------------------------------------------------------------------------------------

#: bytes read from any input file (YAML, CSV, XLSX); counted while reading, not taken from stat
MAX_FILE_BYTES = 20 * 1024 * 1024
#: bytes read from a workload file (YAML written by hand: a thousand jobs take about 200 KB)
MAX_WORKLOAD_BYTES = 1024 * 1024

# --- YAML (workload files, YAML catalogs), counted while the document is composed -------------------

#: values in one YAML document (every scalar, list and mapping; an alias counts the values it repeats):
#: about 8,000 offers of 25 fields (a bigger catalog is a CSV or XLSX file), composed in about 1 CPU-second
MAX_YAML_VALUES = 200_000
#: lists and mappings nested in one another
MAX_YAML_DEPTH = 100

# --- XLSX (a zip of XML parts), checked from the zip directory before anything is inflated ---------

#: parts (files) in the zip
XLSX_MAX_PARTS = 1_000
#: inflated size of all parts together
XLSX_MAX_TOTAL_BYTES = 400 * 1024 * 1024
#: inflated size of one worksheet part
XLSX_MAX_SHEET_BYTES = 200 * 1024 * 1024
#: inflated size of any other part (shared strings, styles, workbook ...): all are read whole
XLSX_MAX_PART_BYTES = 32 * 1024 * 1024
#: inflated / compressed size of one part (parts under 1 MiB inflated are exempt)
XLSX_MAX_RATIO = 200

# --- catalog tables (CSV and XLSX) -----------------------------------------------------------------

#: offers in one catalog file (table rows after the header, blank rows included)
MAX_OFFERS = 100_000
#: columns in a table (the documented catalog has 28)
MAX_COLUMNS = 64
#: characters in one cell or YAML string
MAX_TEXT_CHARS = 10_000

# --- public price catalogs imported by `procure offers import` (gpuhunt, SkyPilot vms.csv) ----------

#: bytes of one imported catalog file (SkyPilot's AWS vms.csv is about 10 MB)
IMPORT_MAX_BYTES = 64 * 1024 * 1024
#: rows of one imported catalog file
IMPORT_MAX_ROWS = 1_000_000

# --- numbers and dates -----------------------------------------------------------------------------

#: every date (start_date, quoted_on) lies in this window
MIN_DATE = dt.date(2000, 1, 1)
MAX_DATE = dt.date(2100, 12, 31)

#: one price or fee, in the project currency
MAX_PRICE = 1e12
#: a budget, in the project currency
MAX_BUDGET = 1e15
#: a carbon price, currency per tonne of CO2e (the EU ETS traded at about 60–100 EUR/t in 2023–25; a
#: million per tonne in any currency is a typing slip)
MAX_CARBON_PRICE = 1e6
#: prices of a carbon price path, one per project year (the horizon is at most 120 months)
MAX_CARBON_YEARS = 10
#: electricity, currency per kWh
MAX_ELECTRICITY_PRICE = 1e4
#: days counted from start_date (deadline, earliest start, lead time): a hundred years (a project's
#: deadlines must also lie within its horizon, at most 120 months)
MAX_DAYS = 36_600
#: tokens processed by one workload, billions (10^16 tokens; a warning starts at 10^14)
MAX_TOKENS_B = 1e7
#: host RAM per node, GB
MAX_RAM_GB = 1e6
#: NVMe per node, TB; data set per workload, TB
MAX_STORAGE_TB = 1e6
#: counts: CPU cores per node, nodes per offer or job
MAX_COUNT = 100_000
#: power per node, kW
MAX_POWER_KW = 1_000
#: months (minimum rental term)
MAX_MONTHS = 1_200
#: hours between checkpoints
MAX_HOURS = 1e5
#: model parameters, billions (100 trillion)
MAX_PARAMS_B = 1e5
