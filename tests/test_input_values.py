"""Numbers are numbers, dates are dates, text is text; problems and echoed values are bounded."""

from __future__ import annotations

import csv
import datetime as dt
import io
import typing

import openpyxl
import pytest
from pydantic import BaseModel

from procure.common.errors import InputError
from procure.models.offer import Offer
from procure.models.project import load_project
from procure.offers.catalog import load_catalog
from tests.hostile.generate import ROW, _csv, _workload

from helpers import cli


def problems(exc: InputError) -> str:
    return "\n".join(str(p) for p in exc.problems)


# --- numbers ---------------------------------------------------------------------------------------


def _input_models() -> list[type[BaseModel]]:
    from procure.models.model_spec import ModelSpec
    from procure.models.project import Project, SizingSettings, Workload

    return [Offer, Project, Workload, SizingSettings, ModelSpec]


def _numeric(annotation) -> bool:
    if annotation in (int, float):
        return True
    return any(_numeric(a) for a in typing.get_args(annotation))


@pytest.mark.parametrize("model", _input_models(), ids=lambda m: m.__name__)
def test_every_number_field_has_a_documented_upper_bound(model):
    """A new number field without a plausible range would let 1e300 through to the solver."""
    unbounded = []
    for name, f in model.model_fields.items():
        if not _numeric(f.annotation) or f.annotation is bool:
            continue
        bounds = [m for m in f.metadata if getattr(m, "le", None) is not None or getattr(m, "lt", None) is not None]
        # active_params_b, kv_heads: bounded by params_b / heads; fx_rates: each rate by its type (models.money.FxRate);
        # carbon_price_by_year: each price by the project's carbon checks (0 to MAX_CARBON_PRICE, named by index)
        if not bounds and name not in ("active_params_b", "kv_heads", "fx_rates", "carbon_price_by_year"):
            unbounded.append(name)
    assert not unbounded, f"{model.__name__}: no upper bound on {unbounded}"


NUMBER_FIELDS = [
    "gpus_per_node",
    "inter_node_rails",
    "ram_gb",
    "nvme_tb",
    "cpu_cores",
    "max_nodes",
    "lead_time_days",
    "price_per_node_month",
    "setup_fee_per_node",
    "min_term_months",
]


@pytest.mark.parametrize("field", NUMBER_FIELDS)
@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_is_never_a_number_in_an_offer(field, value):
    from pydantic import ValidationError

    from procure.models.validation import problems_from

    with pytest.raises(ValidationError) as exc:
        Offer.model_validate(dict(ROW, **{field: value}))
    assert [str(p) for p in problems_from(exc.value, "c.yaml")] == [
        f"c.yaml: error: {field}: {str(value).lower()} is not a number; write the number itself"
    ]


def test_true_in_an_xlsx_price_cell_is_refused_not_read_as_1(tmp_path):
    path = tmp_path / "q.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "offers"
    ws.append(list(ROW))
    ws.append([True if k == "price_per_node_month" else v for k, v in ROW.items()])
    wb.save(path)
    with pytest.raises(InputError) as exc:
        load_catalog([path])
    assert "q.xlsx row 2: error: price_per_node_month: true is not a number; write the number itself" in problems(
        exc.value
    )


@pytest.mark.parametrize("text", ["inf", "-inf", "Infinity", "1e309", "nan", "NaN"])
def test_non_finite_prices_are_input_errors_through_solve(tmp_path, text):
    """They used to pass validate, then make CBC fail with exit 3."""
    (tmp_path / "c.csv").write_text(_csv([dict(ROW, price_per_node_month=text)]))
    res = cli("solve", _w(tmp_path), "--offers", tmp_path / "c.csv", "--no-compare")
    assert res.exit_code == 1 and "price_per_node_month: Input should be a finite number" in res.output


def _w(tmp_path, top=None, **job):
    p = tmp_path / "w.yaml"
    p.write_text(_workload(top, **job))
    return p


@pytest.mark.parametrize(
    "top,job,needle",
    [
        (None, {"tokens_b": ".inf"}, "workloads[0].tokens_b: Input should be a finite number"),
        ({"budget": ".inf"}, {}, "budget: Input should be a finite number"),
        ({"budget": ".nan"}, {}, "budget: Input should be a finite number"),
        (None, {"tokens_b": "1e300"}, "workloads[0].tokens_b: Input should be less than or equal to 10000000"),
        (None, {"deadline_days": "9" * 5000}, "a number with 5,000 characters is out of range"),
        (None, {"deadline_days": "true"}, "workloads[0].deadline_days: true is not a number"),
        ({"electricity_price_per_kwh": "1e20"}, {}, "electricity_price_per_kwh: Input should be less than or equal to"),
    ],
)
def test_workload_numbers_out_of_range_exit_1(tmp_path, top, job, needle):
    res = cli("solve", _w(tmp_path, top, **job), "--no-compare")
    assert res.exit_code == 1 and needle in res.output, res.output


def test_a_5000_digit_integer_in_a_catalog_is_an_input_error(tmp_path):
    (tmp_path / "c.csv").write_text(_csv([dict(ROW, cpu_cores="9" * 5000, ram_gb="9" * 5000)]))
    res = cli("offers", "validate", tmp_path / "c.csv")
    assert res.exit_code == 1 and "cpu_cores" in res.output and "ram_gb: Input should be a finite number" in res.output
    assert len(res.output) < 2000


# --- dates -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,needle",
    [
        ("2026-13-01", "start_date: '2026-13-01' is not a calendar date (month must be in 1..12); write YYYY-MM-DD"),
        ("0000-01-01", "start_date: '0000-01-01' is not a calendar date"),
        ("9999-12-31", "start_date: 9999-12-31 is outside 2000–2100; check the year"),
        ("1999-12-31", "start_date: 1999-12-31 is outside 2000–2100"),
        (
            "1796083200",
            "start_date: expected a date written YYYY-MM-DD, e.g. 2026-12-01 (got 1796083200); a number is not read as a date",
        ),
        (
            "46357",
            "looks like an Excel serial day number (2026-12-01): format the cell as a date, or type the date as text",
        ),
        ("2026-1-1", "expected a date written YYYY-MM-DD"),
        ("true", "expected a date written YYYY-MM-DD"),
    ],
)
def test_bad_start_dates_exit_1_saying_what_to_write(tmp_path, value, needle):
    res = cli("solve", _w(tmp_path, {"start_date": value}), "--no-compare")
    assert res.exit_code == 1 and needle in res.output, res.output


def test_quoted_on_dates_in_csv_and_xlsx(tmp_path):
    (tmp_path / "c.csv").write_text(
        _csv(
            [
                dict(ROW, id="a", quoted_on="2025-02-30"),
                dict(ROW, id="b", quoted_on="46357"),
                dict(ROW, id="c", quoted_on="2026-11-01T00:00:00"),
            ]
        )
    )
    with pytest.raises(InputError) as exc:
        load_catalog([tmp_path / "c.csv"])
    text = problems(exc.value)
    assert "row 2: error: quoted_on: '2025-02-30' is not a calendar date (day is out of range for month)" in text
    assert (
        "row 3: error: quoted_on: expected a date written YYYY-MM-DD, e.g. 2026-12-01 (got '46357'); '46357' looks like an Excel serial day number (2026-12-01)"
        in text
    )
    assert "row 4: error: quoted_on: expected a date written YYYY-MM-DD" in text
    # a real date cell in a workbook is a date
    path = tmp_path / "q.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(list(ROW))
    ws.append([dt.datetime(2026, 11, 1) if k == "quoted_on" else v for k, v in ROW.items()])
    wb.save(path)
    assert load_catalog([path]).offers[0].quoted_on == dt.date(2026, 11, 1)
    ws["T2"] = dt.datetime(1999, 12, 31)
    wb.save(path)
    with pytest.raises(InputError) as exc:
        load_catalog([path])
    assert "quoted_on: 1999-12-31 is outside 2000–2100" in problems(exc.value)


def test_a_far_future_start_date_no_longer_crashes_after_solving(tmp_path):
    """`start_date: 9999-12-31` solved, then crashed with OverflowError while printing; no JSON."""
    res = cli("solve", _w(tmp_path, {"start_date": "9999-12-31"}), "--json", tmp_path / "p.json", "--no-compare")
    assert res.exit_code == 1 and "outside 2000–2100" in res.output
    res = cli(
        "solve",
        _w(tmp_path, {"start_date": "2100-12-31", "horizon_months": "12"}),
        "--json",
        tmp_path / "p.json",
        "--no-compare",
    )
    assert res.exit_code in (0, 2), res.output  # the last day of the window plans and prints


# --- text ------------------------------------------------------------------------------------------


def test_control_characters_in_names_are_refused_at_load(tmp_path):
    res = cli("solve", _w(tmp_path, {"name": '"demo \\e[2J\\e[31mRED"'}), "--no-compare")
    assert (
        res.exit_code == 1
        and "name: name contains the control character \\x1b at position 6; use printable text only" in res.output
    )
    assert "\x1b" not in res.output
    (tmp_path / "c.csv").write_text(_csv([dict(ROW, vendor="V\x1b]0;title\x07", region="us-east\x9b")]))
    res = cli("offers", "validate", tmp_path / "c.csv")
    assert res.exit_code == 1 and "vendor contains the control character \\x1b at position 2" in res.output
    assert (
        "region contains the control character \\x9b" in res.output
        and "\x1b" not in res.output
        and "\x9b" not in res.output
    )


def test_whitespace_in_names_is_one_space_so_near_duplicates_are_duplicates(tmp_path):
    text = _workload().replace(
        "workloads:\n",
        'workloads:\n  - {name: "a\\t", model: llama-2-7b, method: lora, tokens_b: 0.5, deadline_days: 30}\n',
    )
    (tmp_path / "w.yaml").write_text(text)
    with pytest.raises(InputError) as exc:
        load_project(tmp_path / "w.yaml")
    assert "workload names must be unique; repeated: a" in problems(exc.value)
    (tmp_path / "w.yaml").write_text(_workload(name='"job\\r=1+1"'))
    project, _ = load_project(tmp_path / "w.yaml")
    assert project.workloads[0].name == "job =1+1"  # the bare CR that split CSV records is a space


@pytest.mark.parametrize("blank", ['"   "', '"\\t\\n"', '"\\u00a0"'])
def test_blank_names_are_errors(tmp_path, blank):
    res = cli("solve", _w(tmp_path, name=blank), "--no-compare")
    assert res.exit_code == 1 and "workloads[0].name: name is blank; give a name" in res.output


def test_an_enormous_value_is_echoed_in_80_characters(tmp_path):
    """A 20 MB id used to come back as a 20 MB message."""
    with pytest.raises(Exception) as exc:
        Offer.model_validate(dict(ROW, id="x" * 20_000_000, gpu="y" * 1_000_000))
    from procure.models.validation import problems_from

    lines = [str(p) for p in problems_from(exc.value, "c.csv")]
    assert all(len(line) < 600 for line in lines), [len(line) for line in lines]
    assert any("(got 'xxxxxxxx" in line and "…)" in line for line in lines)


def test_problems_are_capped_at_50_per_file_unless_all_errors(tmp_path):
    (tmp_path / "c.csv").write_text(_csv([dict(ROW, id=f"v{i}", ram_gb=0) for i in range(300)]))
    res = cli("offers", "validate", tmp_path / "c.csv")
    assert res.exit_code == 1
    lines = res.output.splitlines()
    assert sum(line.startswith("✗") for line in lines) == 50
    assert f"… and 250 more in {tmp_path / 'c.csv'} (see --all-errors)" in res.output
    assert lines[-1] == "300 problems found; nothing was written."
    res = cli("offers", "validate", "--all-errors", tmp_path / "c.csv")
    assert sum(line.startswith("✗") for line in res.output.splitlines()) == 300 and "more in" not in res.output


def test_cells_beyond_the_header_are_one_problem(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(list(ROW))
    for i in range(3):
        ws.append(list(dict(ROW, id=f"v{i}").values()) + [None, "stray"])
    wb.save(tmp_path / "q.xlsx")
    with pytest.raises(InputError) as exc:
        load_catalog([tmp_path / "q.xlsx"])
    assert problems(exc.value) == (
        f"{tmp_path / 'q.xlsx'} row 2: error: cells beyond the header's 20 columns, first in column 22 "
        "(and in 2 more rows); give each column a header or delete the stray cells"
    )


# --- outputs: CSV injection and the terminal ------------------------------------------------------


def test_csv_cells_quote_text_and_defuse_formulas_after_blanks_and_controls():
    from procure.reports.csv_report import _csv_bytes

    hostile = [
        "=1+1",
        " =1+1",
        "\r=1+1",
        "job\r=1+1",
        '\x1b=HYPERLINK("x")',
        "=cmd|' /C calc'!A0",
        "@SUM(A1)",
        "\t-2",
        "plain",
        3.5,
        -2,
    ]
    data = _csv_bytes(["v"], [[v] for v in hostile]).decode()
    rows = list(csv.reader(io.StringIO(data)))
    assert len(rows) == len(hostile) + 1  # no value ended a record early
    cells = [r[0] for r in rows[1:]]
    assert cells[:3] == ["'=1+1", "' =1+1", "'\\x0d=1+1"]
    assert cells[3] == "job\\x0d=1+1"  # no line break: nothing starts a new row
    assert (
        cells[4].startswith("'\\x1b=")
        and cells[5].startswith("'=cmd")
        and cells[6] == "'@SUM(A1)"
        and cells[7] == "'\\x09-2"
    )
    assert cells[8:] == ["plain", "3.5", "-2"]
    assert '"plain"' in data and "\n3.5\n" in data  # text quoted, numbers not


def test_a_vendor_written_as_a_formula_lands_defused_in_every_csv(tmp_path):
    vendor = "=cmd|' /C calc'!A0"
    offers = [
        dict(
            ROW,
            id="evil",
            vendor=vendor,
            mode="cloud",
            price_per_node_hour=20,
            price_per_node_month=None,
            setup_fee_per_node=None,
            min_term_months=None,
            lead_time_days=0,
        )
    ]
    (tmp_path / "c.csv").write_text(_csv(offers))
    res = cli("solve", _w(tmp_path), "--offers", tmp_path / "c.csv", "--no-compare", "--csv", tmp_path / "out")
    assert res.exit_code == 0, res.output
    seen = 0
    for f in (tmp_path / "out").iterdir():
        for row in csv.reader(f.open(encoding="utf-8")):
            for cell in row:
                assert not cell.lstrip().startswith(("=", "+", "@")), (f.name, cell)
                seen += vendor in cell
    assert seen >= 2  # the vendor is there (plan, options), as text


def test_the_console_escapes_control_characters_that_reach_it():
    """The second line of defence: text that bypassed validation still prints inert."""
    from procure.reports.terminal import SafeConsole

    buf = io.StringIO()
    con = SafeConsole(file=buf, highlight=False, width=120)
    con.print("vendor \x1b[2J\x1b]0;pwned\x07 and \x9b31m", markup=False)
    from rich.table import Table

    t = Table("name")
    t.add_row("cell \x1b[31mred")
    con.print(t)
    out = buf.getvalue()
    assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out
    assert "\\x1b[2J" in out and "\\x1b[31mred" in out


def test_the_workbook_escapes_control_characters_that_reach_it():
    """Second line of defence in the workbook: C0 cannot be stored in xlsx, C1 would print as garbage."""
    from procure.reports.xlsx.style import put

    ws = openpyxl.Workbook().active
    put(ws, 1, 1, "vendor \x1b[31m\x9b2J\r=1+1\nsecond line")
    assert ws["A1"].value == "vendor \\x1b[31m\\x9b2J\\x0d=1+1\nsecond line" and ws["A1"].data_type == "s"


def test_a_carriage_return_in_a_name_cannot_start_a_live_formula_row(tmp_path):
    """`job\\r=1+1` was written unquoted: every CSV reader ended the record at the CR and read `=1+1`
    as a new row; a vendor with a leading space escaped the prefix check."""
    cloud = dict(ROW, id="evil", vendor=" =cmd|' /C calc'!A0", mode="cloud", price_per_node_hour=20, lead_time_days=0)
    for k in ("price_per_node_month", "setup_fee_per_node", "min_term_months"):
        cloud.pop(k)
    (tmp_path / "c.yaml").write_text(
        "offers:\n  - "
        + "\n    ".join(f"{k}: {v!r}" if isinstance(v, str) else f"{k}: {v}" for k, v in cloud.items())
        + "\n"
    )
    (tmp_path / "w.yaml").write_text(_workload(name='"job\\r=1+1"'))
    res = cli("solve", tmp_path / "w.yaml", "--offers", tmp_path / "c.yaml", "--no-compare", "--csv", tmp_path / "out")
    assert res.exit_code == 0, res.output
    for f in (tmp_path / "out").iterdir():
        raw = f.read_bytes()
        assert b"\r" not in raw, f.name
        rows = list(csv.reader(io.StringIO(raw.decode())))
        assert all(len(r) == len(rows[0]) for r in rows), f.name  # no record was split
        for r in rows:
            for cell in r:
                assert not cell.lstrip().startswith(("=", "+", "@")), (f.name, cell)
    plan = (tmp_path / "out" / "plan.csv").read_text()
    assert '"job =1+1"' in plan and "\"'=cmd|' /C calc'!A0\"" in plan
