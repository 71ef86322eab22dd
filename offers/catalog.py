"""Load offer catalogs from YAML, CSV or XLSX — one row per offer, the same columns in all three.

Every problem in every row is collected and reported at once, with the file and the YAML line or the
table row (the row number a spreadsheet shows; the header is row 1).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from procure.common.errors import InputError, Problem, ProblemLog, did_you_mean
from procure.common.text import echo
from procure.fileio.limits import MAX_COLUMNS, MAX_OFFERS, MAX_TEXT_CHARS
from procure.fileio.yamlio import line_of, load_yaml, read_text
from procure.models.gpu import gpu_table
from procure.models.money import high_rate_warning, known_currency
from procure.models.offer import COLUMNS, Offer
from procure.models.validation import problems_from

from . import price_band

SUFFIXES = (".yaml", ".yml", ".csv", ".xlsx")
#: top-level keys of a YAML catalog; residual_value_horizon_months says after how many months of
#: ownership the file's residual_value_pct figures hold (the bundled catalog: 36)
TOP_LEVEL = ("offers", "catalog_date", "notes", "residual_value_horizon_months", "currency")
# ``currency`` at the top level is the currency of every row that does not state its own (the bundled
# catalog: USD); without it, such a row is in the project's reporting currency.


def bundled_catalog_path() -> Path:
    return Path(str(resources.files("procure.offers") / "data" / "catalog.yaml"))


@dataclass
class Catalog:
    offers: list[Offer]
    files: list[Path]
    warnings: list[Problem] = field(default_factory=list)
    origin: dict[str, str] = field(default_factory=dict)  # offer id -> "file row N" / "file:line"
    residual_months: dict[str, int] = field(default_factory=dict)  # offer id -> months its residual value assumes

    def by_id(self) -> dict[str, Offer]:
        return {o.id: o for o in self.offers}


def load_catalog(paths: Iterable[str | Path] | None = None, project: Any = None) -> Catalog:
    """Load and validate one or more catalog files (default: the bundled catalog). ``project``: the project the
    offers are planned for, whose currency and ``fx_rates`` the price sanity band converts prices with
    (``offers.price_band``); without it a row without a currency is compared as US dollars, its ceilings widened
    for a catalog in yuan."""
    files = [Path(p) for p in paths] if paths else [bundled_catalog_path()]
    offers: list[Offer] = []
    problems = ProblemLog()
    origin: dict[str, str] = {}
    residual_months: dict[str, int] = {}
    warnings: list[Problem] = []
    for path in files:
        unchecked: dict[str, list[str]] = {}  # currency -> offers the price band could not convert
        try:
            rows = read_rows(path)
        except InputError as exc:
            problems.absorb(exc)
            continue
        if not rows:
            problems.add(Problem(str(path), "", "the catalog has no offers"))
            continue
        for row in rows:
            try:
                offer = Offer.model_validate(row.values)
            except ValidationError as exc:
                problems.extend(problems_from(exc, str(path), (), row.line_for, row=row.row, model=Offer))
                continue
            where = f"{path.name} row {row.row}" if row.row else f"{path.name}:{row.line}"
            if offer.id in origin:
                problems.add(
                    Problem(
                        str(path),
                        "id",
                        f"duplicate offer id {offer.id!r} (first defined at {origin[offer.id]})",
                        line=row.line,
                        row=row.row,
                    )
                )
                continue
            origin[offer.id] = where
            if row.residual_months is not None:
                residual_months[offer.id] = row.residual_months
            offers.append(offer)
            warnings += _plausibility(offer, path, row)
            for field_name, text in _price_band(offer, project, unchecked):
                warnings.append(
                    Problem(
                        str(path), field_name, f"offer {offer.id!r}: {text}", line=row.line, row=row.row, warning=True
                    )
                )
        warnings += _unchecked_currencies(path, unchecked)
    if problems:
        raise problems.error()
    return Catalog(offers=offers, files=files, warnings=warnings, origin=origin, residual_months=residual_months)


def check_currencies(catalog: Catalog, project, project_file: str) -> None:
    """Every offer quoted in another currency than the project's needs a rate in the project's fx_rates:
    an InputError per missing rate, naming the rate, the offers that need it and where they come from."""
    missing: dict[str, list[str]] = {}
    for o in catalog.offers:
        if o.currency is not None and o.currency != project.currency and o.currency not in project.fx_rates:
            missing.setdefault(o.currency, []).append(o.id)
    # a tax rule's cap per server in another currency (models/data/tax_rules.yaml: cn-one-off's 5,000,000 CNY)
    rule = project.tax.rule if project.tax is not None else None
    cap = rule.cap_currency if rule is not None and rule.cap_per_unit is not None else None
    taxed = cap is not None and cap != project.currency and cap not in project.fx_rates
    if cap is not None and taxed and cap not in missing:
        missing[cap] = []
    problems = []
    for code, ids in sorted(missing.items()):
        why = []
        if ids:
            why.append(
                f"offer(s) {', '.join(ids[:5])}{' …' if len(ids) > 5 else ''} ({catalog.origin[ids[0]]}) are quoted in {code}"
            )
        if taxed and code == cap and rule is not None:
            why.append(f"tax.depreciation {rule.name} caps a server at {rule.cap_per_unit:,.0f} {code}")
        problems.append(
            Problem(
                project_file,
                f"fx_rates.{code}",
                f"missing exchange rate {code}: {'; '.join(why)} "
                f"but the project reports in {project.currency}; add fx_rates: {{{code}: <value of 1 {code} in {project.currency}>}} with fx_rates_date and fx_rates_source",
            )
        )
    if problems:
        raise InputError(problems)


def horizon_warnings(catalog: Catalog, horizon_months: int) -> list[Problem]:
    """A warning per catalog file whose residual values assume another holding period than the horizon."""
    out, seen = [], set()
    for o in catalog.offers:
        months = catalog.residual_months.get(o.id)
        if o.mode != "buy" or not o.residual or months is None or months == horizon_months:
            continue
        file = catalog.origin[o.id].split(" row ")[0].split(":")[0]
        if file in seen:
            continue
        seen.add(file)
        way = "understated" if horizon_months < months else "overstated"
        out.append(
            Problem(
                file,
                "residual_value_pct",
                f"the purchase offers' resale values assume {months} months of ownership, but the horizon is {horizon_months} months: their residual value is probably {way}",
                warning=True,
            )
        )
    return out


@dataclass
class Row:
    values: dict[str, Any]
    row: int | None = None  # table row (CSV/XLSX)
    line: int | None = None  # YAML line
    lines: dict | None = None
    prefix: tuple = ()
    residual_months: int | None = None  # the holding period the file's residual_value_pct assumes

    def line_for(self, loc: tuple) -> int | None:
        if self.lines is None:
            return None
        return line_of(self.lines, self.prefix + tuple(loc)) or self.line


def read_rows(path: Path) -> list[Row]:
    """Raw rows of a catalog file, with where each came from."""
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return _yaml_rows(path)
    if suffix == ".csv":
        return _csv_rows(path)
    if suffix == ".xlsx":
        return _xlsx_rows(path)
    raise InputError(
        [Problem(str(path), "", f"unsupported catalog format {suffix or '(none)'!r}; use .yaml, .yml, .csv or .xlsx")]
    )


def _yaml_rows(path: Path) -> list[Row]:
    data, lines = load_yaml(path, "catalog")
    prefix: tuple[str, ...]
    if isinstance(data, dict) and "workloads" in data:
        raise InputError(
            [
                Problem(
                    str(path),
                    "",
                    "this is a workload file (it has `workloads:`), not an offer catalog; "
                    "pass it as the command's first argument, and its catalog with --offers",
                )
            ]
        )
    if isinstance(data, dict) and "offers" in data:
        unknown = set(data) - set(TOP_LEVEL)
        if unknown:
            raise InputError(
                [
                    Problem(
                        str(path),
                        k,
                        f"unknown top-level key; allowed: {', '.join(TOP_LEVEL)}",
                        line=line_of(lines, (k,)),
                    )
                    for k in sorted(unknown)
                ]
            )
        months = data.get("residual_value_horizon_months")
        if months is not None and (not isinstance(months, int) or isinstance(months, bool) or months <= 0):
            raise InputError(
                [
                    Problem(
                        str(path),
                        "residual_value_horizon_months",
                        f"expected a whole number of months > 0 (got {months!r})",
                        line=line_of(lines, ("residual_value_horizon_months",)),
                    )
                ]
            )
        default_currency = data.get("currency")
        if default_currency is not None:
            try:
                default_currency = known_currency(default_currency)
            except ValueError as exc:
                raise InputError(
                    [Problem(str(path), "currency", str(exc), line=line_of(lines, ("currency",)))]
                ) from None
        items, prefix = data["offers"], ("offers",)
    elif isinstance(data, list):
        items, prefix, default_currency = data, (), None
    elif data is None:
        return []
    else:
        raise InputError([Problem(str(path), "", "expected a list of offers, or a mapping with an `offers:` list")])
    if items is None:
        return []
    if not isinstance(items, list):
        raise InputError([Problem(str(path), "offers", "expected a list of offers", line=line_of(lines, prefix))])
    rows = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise InputError(
                [
                    Problem(
                        str(path),
                        f"offers[{i}]",
                        "each offer must be a mapping of column: value",
                        line=line_of(lines, prefix + (i,)),
                    )
                ]
            )
        if default_currency is not None and item.get("currency") is None:
            item = {**item, "currency": default_currency}
        rows.append(
            Row(
                values=item,
                line=line_of(lines, prefix + (i,)),
                lines=lines,
                prefix=prefix + (i,),
                residual_months=data.get("residual_value_horizon_months") if isinstance(data, dict) else None,
            )
        )
    return rows


def _clean_cells(header: list[str], cells: list[Any], path: Path, rownum: int) -> dict[str, Any] | None:
    values: dict[str, Any] = {}
    for name, cell in zip(header, cells, strict=False):  # a short row leaves the rest empty
        if name is None or name == "":
            if cell not in (None, ""):
                raise InputError([Problem(str(path), "", "a value stands in a column without a header", row=rownum)])
            continue
        if isinstance(cell, str):
            if len(cell) > MAX_TEXT_CHARS:
                raise InputError(
                    [
                        Problem(
                            str(path),
                            name,
                            f"a text of {len(cell):,} characters; the limit is {MAX_TEXT_CHARS:,}",
                            row=rownum,
                        )
                    ]
                )
            cell = cell.strip()
            if cell == "":
                cell = None
        if isinstance(cell, dt.datetime) and cell.time() == dt.time(0):
            cell = cell.date()
        if cell is not None:
            values[name] = cell
    return values or None  # all-empty row


def _check_header(header: list[str], path: Path) -> list[str]:
    if len(header) > MAX_COLUMNS:
        raise InputError(
            [
                Problem(
                    str(path),
                    "",
                    f"the header row has {len(header):,} columns; a catalog has at most {MAX_COLUMNS}",
                    row=1,
                )
            ]
        )
    cleaned = [str(h).strip() if h is not None else "" for h in header]
    seen, problems = set(), []
    for h in cleaned:
        if h and h in seen:
            problems.append(Problem(str(path), h, "column appears twice in the header", row=1))
        seen.add(h)
    if "id" not in seen:
        hint = " (the file looks semicolon-separated; save it with commas)" if any(";" in h for h in cleaned) else ""
        problems.append(
            Problem(
                str(path),
                "id",
                f"the header row has no `id` column{hint}; expected columns: {', '.join(COLUMNS)}",
                row=1,
            )
        )
    else:
        # a misspelled column is named once, at the header, not once per row
        unknown = [h for h in dict.fromkeys(cleaned) if h and h not in COLUMNS]
        problems += [
            Problem(
                str(path),
                h,
                f"unknown column{did_you_mean(h, COLUMNS)}; the columns are listed by `procure offers template`",
                row=1,
            )
            for h in unknown
        ]
    if problems:
        raise InputError(problems)
    return cleaned


def _too_many_rows(path: Path, row: int) -> Problem:
    return Problem(
        str(path),
        "",
        f"the table goes on past row {MAX_OFFERS + 1:,} (row {row:,} has values); a catalog holds at most {MAX_OFFERS:,} offers — split it into several files, or delete the stray rows",
        row=row,
    )


def _beyond_header(path: Path, first_row: int, first_col: int, rows: int, width: int) -> Problem:
    more = f" (and in {rows - 1:,} more row{'s' if rows > 2 else ''})" if rows > 1 else ""
    return Problem(
        str(path),
        "",
        f"cells beyond the header's {width} columns, first in column {first_col}{more}; give each column a header or delete the stray cells",
        row=first_row,
    )


def _csv_rows(path: Path) -> list[Row]:
    text = read_text(path, "catalog")  # strips a UTF-8 byte-order mark
    sample = text[:4096]
    delimiter = ","
    first = sample.splitlines()[0] if sample else ""
    if first.count(";") > first.count(","):
        delimiter = ";"  # European spreadsheet exports
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows: list[Row] = []
    header: list[str] | None = None
    stray = None  # (first row, first column, rows) of cells beyond the header
    try:
        for i, cells in enumerate(reader, start=1):
            if header is None:
                header = _check_header(cells, path)
                continue
            if i > MAX_OFFERS + 1:
                raise InputError([_too_many_rows(path, i)])
            if len(cells) > len(header):
                extra = [j for j, c in enumerate(cells[len(header) :], start=len(header) + 1) if c.strip()]
                if extra:
                    stray = (i, extra[0], 1) if stray is None else (stray[0], stray[1], stray[2] + 1)
                    continue
            if cells and cells[0].lstrip().startswith("#"):
                continue  # a comment row (the template's examples)
            values = _clean_cells(header, cells, path, i)
            if values is not None:
                rows.append(Row(values=values, row=i))
    except csv.Error as exc:
        why = f"malformed CSV: {exc}"
        if "field larger than field limit" in str(exc):
            why = f"a cell is longer than {csv.field_size_limit():,} characters; the limit is {MAX_TEXT_CHARS:,}"
        raise InputError([Problem(str(path), "", why, row=reader.line_num)]) from None
    if stray is not None:
        raise InputError([_beyond_header(path, stray[0], stray[1], stray[2], len(header or []))])
    return rows


def _xlsx_rows(path: Path) -> list[Row]:
    from .xlsx_reader import read_sheet

    table = read_sheet(path)
    if not table:
        return []
    header = _check_header(table[0][1], path)
    rows = []
    for i, cells in table[1:]:
        values = _clean_cells(header, cells, path, i)
        if values is not None:
            rows.append(Row(values=values, row=i))
    return rows


def _plausibility(offer: Offer, path: Path, row: Row) -> list[Problem]:
    """Values that validate but are probably a unit mistake: warnings, not errors."""
    out = []

    def warn(fieldname: str, msg: str) -> None:
        out.append(
            Problem(str(path), fieldname, f"offer {offer.id!r}: {msg}", line=row.line, row=row.row, warning=True)
        )

    typed = row.values.get("gpu")
    note = gpu_table().alias_note(typed) if isinstance(typed, str) else None
    if note:
        warn("gpu", note)
    if offer.ram_gb < 16:
        warn("ram_gb", f"{offer.ram_gb:g} GB of host RAM per node is implausibly small; is the unit GB?")
    if offer.nvme_tb > 2000:
        warn("nvme_tb", f"{offer.nvme_tb:g} TB of NVMe per node is implausibly large; is the unit TB?")
    rate = high_rate_warning(offer.financing.annual_rate) if offer.financing else None
    if rate:
        warn("financing.annual_rate", rate)
    return out


def _price_band(offer: Offer, project: Any, unchecked: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The offer's prices against its GPU's price sanity band (``offers.price_band``), as (field, warning)."""
    found, currency = price_band.offer_warnings(offer, project)
    if currency is not None:
        unchecked.setdefault(currency, []).append(offer.id)
    return found


def _unchecked_currencies(path: Path, unchecked: dict[str, list[str]]) -> list[Problem]:
    """One warning per currency whose offers the price band could not convert to US dollars."""
    return [
        Problem(
            str(path),
            "currency",
            f"{len(ids)} offer(s) in {code} ({', '.join(ids[:3])}{' …' if len(ids) > 3 else ''}) were not checked "
            f"against the per-GPU price band: there is no rate from {code} to US dollars; give the project's "
            "fx_rates a USD rate to have them checked",
            warning=True,
        )
        for code, ids in sorted(unchecked.items())
    ]


# --- template -----------------------------------------------------------------------------------

_HOST = {
    "gpu": "H100-SXM-80GB",
    "gpus_per_node": 8,
    "intra_node": "nvswitch",
    "inter_node": "ib-ndr",
    "inter_node_rails": 8,
    "ram_gb": 2048,
    "nvme_tb": 30,
    "cpu_cores": 112,
    "network_line": "standard",
}

#: Filled example rows, one per kind of quote: the YAML template shows them commented out, the XLSX
#: template on its "Example" sheet (never read as offers), the CSV template as rows starting with '#'.
EXAMPLE_ROWS: list[dict[str, Any]] = [
    {
        "id": "my-vendor-8xh100",
        "vendor": "My Vendor",
        "mode": "rent",
        "region": "us-east",
        **_HOST,
        "max_nodes": 4,
        "lead_time_days": 7,
        "price_per_node_month": 16000,
        "setup_fee_per_node": 500,
        "min_term_months": 1,
        "source": "quote Q-123 from My Vendor",
        "quoted_on": "2026-11-01",
    },
    {
        "id": "sh-baremetal-8xh800-tiers",
        "vendor": "Shanghai bare metal",
        "mode": "rent",
        "region": "cn-east",
        **_HOST,
        "gpu": "H800-SXM-80GB",
        "currency": "CNY",
        "max_nodes": 8,
        "lead_time_days": 14,
        "term_prices": "1:105000; 6:96000; 12:88000",
        "setup_fee_per_node": 0,
        "source": "quote SH-2026-118: 1, 6 and 12-month terms",
        "quoted_on": "2026-11-01",
    },
    {
        "id": "oem-hgx-h100-volume",
        "vendor": "Server OEM",
        "mode": "buy",
        "region": "us-east",
        **_HOST,
        "currency": "EUR",
        "max_nodes": 16,
        "lead_time_days": 60,
        "volume_prices": "1:255000; 4:245000; 8:232000",
        "power_kw_per_node": 10.2,
        "residual_value_pct": "30%",
        "maintenance_pct_per_year": "5%",
        "colocation_per_node_month": 1200,
        "financing.down_payment_pct": "20%",
        "financing.months": 36,
        "financing.annual_rate": "6.5%",
        "depreciation_years": 5,
        "import_duty_pct": "0%",
        "vat_pct": "19%",
        "network_per_node": 15000,
        "fixed_cost": 60000,
        "source": "OEM quote 4711, volume discount from 4 and 8 nodes; lease offer attached; IB leaf ports and optics per node, spine and installation once",
        "quoted_on": "2026-11-01",
    },
    {
        "id": "cloud-8xh100-reserved-1y",
        "vendor": "A Cloud",
        "mode": "cloud",
        "region": "us-central",
        **_HOST,
        "max_nodes": 8,
        "price_per_node_hour": 45.0,
        "commitment_months": 12,
        "upfront_per_node": 20000,
        "spot": False,
        "storage_per_tb_month": 23,
        "egress_per_tb": 90,
        "source": "1-year reservation, partial upfront, price list 2026-11; object storage and egress list prices",
        "quoted_on": "2026-11-01",
    },
]
EXAMPLE_ROW = EXAMPLE_ROWS[0]


def _yaml_example(row: dict[str, Any]) -> list[str]:
    """One example offer as commented YAML lines (financing as a mapping, tiers as lists)."""
    out, fin = [], {k.split(".", 1)[1]: v for k, v in row.items() if k.startswith("financing.")}
    first = True
    for k, v in row.items():
        if k.startswith("financing."):
            continue
        lead = "#   - " if first else "#     "
        first = False
        if k in ("term_prices", "volume_prices"):
            keys = (
                ("min_term_months", "price_per_node_month") if k == "term_prices" else ("min_nodes", "price_per_node")
            )
            out.append(f"{lead}{k}:")
            for part in str(v).split(";"):
                t, price = (x.strip() for x in part.split(":"))
                out.append(f"#       - {{{keys[0]}: {t}, {keys[1]}: {price}}}")
        else:
            out.append(f"{lead}{k}: {_yaml_scalar(v)}")
    if fin:
        out.append("#     financing: {" + ", ".join(f"{k}: {_yaml_scalar(v)}" for k, v in fin.items()) + "}")
    return out


def _yaml_scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str) and (v.endswith("%") or ":" in v or v.startswith(("'", '"'))):
        return f'"{v}"'
    return str(v)


#: a catalog file's format, from its suffix (what ``read_rows`` reads)
SUFFIX_FORMATS = {".csv": "csv", ".xlsx": "xlsx", ".yaml": "yaml", ".yml": "yaml"}


def template_format(fmt: str | None, out: Path) -> str:
    """The template's format: ``--format`` if given, else the one the suffix of ``out`` names. A suffix
    that no catalog has, or a ``--format`` that contradicts the suffix, is refused: the file would be
    read back by its suffix."""
    suffix = Path(out).suffix.lower()
    implied = SUFFIX_FORMATS.get(suffix)
    if implied is None:
        raise InputError(
            [
                Problem(
                    str(out),
                    "--out",
                    f"a catalog file ends in .csv, .xlsx, .yaml or .yml (got {echo(suffix or '(no suffix)')}); "
                    "procure reads a catalog by its suffix",
                )
            ]
        )
    if fmt is not None and fmt != implied:
        raise InputError(
            [
                Problem(
                    str(out),
                    "--format",
                    f"--format {fmt} contradicts the file name, which ends in {suffix} ({implied}); "
                    f"drop --format, or name the file .{'yaml' if fmt == 'yaml' else fmt}",
                )
            ]
        )
    return implied


def write_template(fmt: str, out: Path, overwrite: bool = False) -> None:
    """An empty, documented catalog in ``fmt`` (csv, xlsx, yaml) to type vendor quotes into, with filled
    example rows that are never read as offers; an existing file is replaced only with ``overwrite``."""
    from functools import partial

    from procure.fileio.outputs import atomic_write as _write

    atomic_write = partial(_write, what="--out", overwrite=overwrite)

    cols = list(COLUMNS)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        for row in EXAMPLE_ROWS:  # rows whose id starts with '#' are comments: delete the '#' to use one
            w.writerow([("#" + str(row[c]) if c == "id" else _cell(row.get(c))) for c in cols])
        atomic_write(out, buf.getvalue().encode("utf-8"))
    elif fmt == "yaml":
        lines = [
            "# procure offer catalog: one entry per offer under `offers:`.",
            "# Columns (omit those that do not apply to the offer's mode):",
        ]
        lines += [f"#   {c}: {d}" for c, d in COLUMNS.items()]
        lines += [
            "# In YAML, tiers are lists and financing is a mapping (see the examples); in CSV/XLSX a tier list is one",
            '# cell "1:3200; 6:2900" and financing is three financing.<field> columns. Percentages: 0.40 or "40%".',
            "# Examples (remove the leading '# ' to use them):",
            "# offers:",
        ]
        for row in EXAMPLE_ROWS:
            lines += _yaml_example(row)
        lines += ["offers: []", ""]
        atomic_write(out, "\n".join(lines).encode("utf-8"))
    elif fmt == "xlsx":
        import openpyxl
        from openpyxl.comments import Comment
        from openpyxl.styles import Font, PatternFill

        wb = openpyxl.Workbook()
        ws = wb.active
        ws.title = "offers"
        example = wb.create_sheet("Example")
        for sheet in (ws, example):
            sheet.append(cols)
            for i, c in enumerate(cols, start=1):
                cell = sheet.cell(row=1, column=i)
                cell.font = Font(bold=True)
                cell.fill = PatternFill("solid", fgColor="DDEBF7")
                cell.comment = Comment(COLUMNS[c], "procure")
                sheet.column_dimensions[cell.column_letter].width = max(12, len(c) + 2)
            sheet.freeze_panes = "A2"
        for r, row in enumerate(EXAMPLE_ROWS, start=2):
            for i, c in enumerate(cols, start=1):
                v = row.get(c)
                if isinstance(v, str) and v.endswith("%"):
                    cell = example.cell(row=r, column=i, value=float(v[:-1]) / 100)
                    cell.number_format = "0.0%"  # a percent-formatted cell, as finance teams type it
                elif v is not None:
                    example.cell(row=r, column=i, value=v)
        example.cell(
            row=len(EXAMPLE_ROWS) + 3,
            column=1,
            value="Filled examples, never read as offers: copy a row to the 'offers' sheet and change it.",
        )
        help_ws = wb.create_sheet("columns")
        help_ws.append(["column", "meaning"])
        for c, d in COLUMNS.items():
            help_ws.append([c, d])
        help_ws.column_dimensions["A"].width = 28
        help_ws.column_dimensions["B"].width = 100
        xlsx_buf = io.BytesIO()
        wb.save(xlsx_buf)
        atomic_write(out, xlsx_buf.getvalue())
    else:
        raise InputError([Problem(str(out), "--format", f"unknown format {fmt!r}; allowed: csv, xlsx, yaml")])


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
