"""Offer catalogs in YAML, CSV and XLSX: the same rules, every problem reported with its row or line."""

from __future__ import annotations

import csv

import openpyxl
import pytest
from pydantic import ValidationError

from procure.common.errors import InputError
from procure.offers.catalog import bundled_catalog_path, load_catalog, write_template

from helpers import GOOD_ROW, offer, write_csv


def write_xlsx(path, rows):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "offers"
    cols = list(dict.fromkeys(k for r in rows for k in r))
    ws.append(cols)
    for r in rows:
        ws.append([r.get(c) for c in cols])
    wb.save(path)
    return path


# --- the bundled catalog -------------------------------------------------------------------------


def test_bundled_catalog_is_broad_dated_and_sourced():
    cat = load_catalog()
    assert cat.files == [bundled_catalog_path()]
    assert len(cat.offers) >= 20
    assert {o.mode for o in cat.offers} == {"buy", "rent", "cloud"}
    assert len({o.gpu for o in cat.offers}) >= 6
    for o in cat.offers:
        assert o.source.strip() and o.quoted_on.year >= 2023


def test_bundled_rent_rows_say_they_are_estimates():
    for o in load_catalog().offers:
        if o.mode == "rent":
            assert "ESTIMATE" in o.source.upper()


# --- row rules ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["buy", "rent", "cloud"])
def test_valid_offer_of_each_mode(mode):
    assert offer(mode=mode).mode == mode


@pytest.mark.parametrize(
    "mode,field,value,needle",
    [
        ("rent", "price_per_node_hour", 3.0, "does not belong to a rent offer"),
        ("cloud", "price_per_node", 1.0, "does not belong to a cloud offer"),
        ("buy", "min_term_months", 3, "does not belong to a buy offer"),
        ("cloud", "price_per_node_hour", -1.0, "greater than 0"),
        ("cloud", "price_per_node_hour", 0, "greater than 0"),
        ("buy", "gpus_per_node", 0, "greater than 0"),
        ("buy", "residual_value_pct", 1.5, "write 1.5% or 0.015"),
        ("buy", "residual_value_pct", 40, "write 40% or 0.40"),
        ("buy", "residual_value_pct", "140%", "at most 100%"),
        ("cloud", "gpu", "H1OO", "did you mean"),
        ("cloud", "intra_node", "infiniband", "allowed"),
        ("cloud", "inter_node", "ib-xdr", "allowed"),
        ("cloud", "mode", "lease", "allowed"),
        ("cloud", "quoted_on", "yesterday", "date"),
        ("cloud", "colour", "blue", "unknown field"),
    ],
)
def test_invalid_offer_rows(mode, field, value, needle):
    from procure.models.validation import problems_from

    kw = {"mode": mode, field: value}
    with pytest.raises(ValidationError) as exc:
        offer(**kw)
    messages = [p.message for p in problems_from(exc.value, "quotes.csv")]
    assert any(needle in m for m in messages), messages


@pytest.mark.parametrize(
    "mode,missing", [("buy", "price_per_node"), ("rent", "price_per_node_month"), ("cloud", "price_per_node_hour")]
)
def test_mode_price_is_required(mode, missing):
    base = offer(mode=mode).model_dump()
    base.pop(missing)
    from procure.models.offer import Offer

    with pytest.raises(ValidationError, match=f"{missing} is required"):
        Offer.model_validate(base)


# --- the four problems at once (issue: Done when) ---------------------------------------------------


def four_bad_rows():
    return [
        dict(GOOD_ROW, id="neg", price_per_node_month=-100),
        dict(GOOD_ROW, id="typo", gpu="H1OO"),
        dict(GOOD_ROW, id="hourly", price_per_node_hour=3.5),
        dict(GOOD_ROW, id="dup"),
        dict(GOOD_ROW, id="dup"),
    ]


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "yaml"])
def test_all_four_problems_reported_with_rows(tmp_path, fmt):
    rows = four_bad_rows()
    if fmt == "csv":
        path = write_csv(tmp_path / "c.csv", rows)
    elif fmt == "xlsx":
        path = write_xlsx(tmp_path / "c.xlsx", rows)
    else:
        from ruamel.yaml import YAML

        path = tmp_path / "c.yaml"
        with path.open("w") as fh:  # closed, so the whole text is on disk before it is read
            YAML(typ="safe").dump({"offers": rows}, fh)
    with pytest.raises(InputError) as exc:
        load_catalog([path])
    probs = exc.value.problems
    text = "\n".join(str(p) for p in probs)
    assert len(probs) == 4, text
    assert (
        "greater than 0" in text
        and "did you mean" in text
        and "does not belong to a rent offer" in text
        and "duplicate offer id 'dup'" in text
    )
    if fmt in ("csv", "xlsx"):
        assert [p.row for p in probs] == [2, 3, 4, 6]
    else:
        assert all(p.line for p in probs)


def test_cli_validate_reports_four_problems_and_exits_1(tmp_path):
    from typer.testing import CliRunner

    from procure.cli import app

    path = write_csv(tmp_path / "quotes.csv", four_bad_rows())
    res = CliRunner().invoke(app, ["offers", "validate", str(path)])
    assert res.exit_code == 1
    assert "row 2" in res.output and "row 3" in res.output and "row 4" in res.output and "row 6" in res.output
    assert "Traceback" not in res.output


# --- formats ----------------------------------------------------------------------------------------


def test_same_rows_load_from_csv_xlsx_yaml(tmp_path):
    from ruamel.yaml import YAML

    rows = [
        GOOD_ROW,
        dict(
            GOOD_ROW,
            id="c1",
            mode="cloud",
            price_per_node_hour=30.0,
            price_per_node_month=None,
            setup_fee_per_node=None,
            min_term_months=None,
        ),
    ]
    rows = [{k: v for k, v in r.items() if v is not None} for r in rows]
    y = tmp_path / "o.yaml"
    with y.open("w") as fh:
        YAML(typ="safe").dump(rows, fh)
    a = load_catalog([write_csv(tmp_path / "o.csv", rows)]).offers
    b = load_catalog([write_xlsx(tmp_path / "o.xlsx", rows)]).offers
    c = load_catalog([y]).offers
    assert a == b == c and a[0].gpu == "H100-SXM-80GB"


def test_csv_with_bom_and_semicolons(tmp_path):
    path = write_csv(tmp_path / "eu.csv", [GOOD_ROW], delimiter=";", bom=True)
    assert load_catalog([path]).offers[0].id == "v-8xh100"


def test_empty_catalog_is_an_error(tmp_path):
    p = tmp_path / "empty.csv"
    p.write_text(",".join(GOOD_ROW) + "\n")
    with pytest.raises(InputError, match="no offers"):
        load_catalog([p])


def test_duplicate_ids_across_files(tmp_path):
    a = write_csv(tmp_path / "a.csv", [GOOD_ROW])
    b = write_csv(tmp_path / "b.csv", [GOOD_ROW])
    with pytest.raises(InputError, match="duplicate offer id"):
        load_catalog([a, b])


def test_non_utf8_csv(tmp_path):
    p = tmp_path / "latin.csv"
    p.write_bytes((",".join(GOOD_ROW) + "\n").encode() + "caf\xe9".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        load_catalog([p])


def test_xlsx_formulas_merged_cells_and_empty_rows(tmp_path):
    path = tmp_path / "q.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(list(GOOD_ROW))
    ws.append(list(GOOD_ROW.values()))
    ws.append([None] * len(GOOD_ROW))  # an empty row is skipped
    row = list(dict(GOOD_ROW, id="f").values())
    row[list(GOOD_ROW).index("price_per_node_month")] = "=1000*15"
    ws.append(row)
    ws.merge_cells("B6:C6")
    wb.save(path)
    with pytest.raises(InputError) as exc:
        load_catalog([path])
    text = str(exc.value)
    assert "formula" in text and "row 4" in text and "merged cells B6:C6" in text
    # an empty row between offers and an extra sheet are fine
    clean = tmp_path / "clean.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(list(GOOD_ROW))
    ws.append([None] * len(GOOD_ROW))
    ws.append(list(GOOD_ROW.values()))
    wb.create_sheet("notes").append(["extra sheets are ignored"])
    wb.save(clean)
    assert [o.id for o in load_catalog([clean]).offers] == ["v-8xh100"]


def test_implausible_units_are_warnings(tmp_path):
    path = write_csv(tmp_path / "w.csv", [dict(GOOD_ROW, ram_gb=2)])
    cat = load_catalog([path])
    assert any("ram_gb" == w.field for w in cat.warnings)


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "yaml"])
def test_template_is_accepted_once_a_row_is_filled(tmp_path, fmt):
    path = tmp_path / f"t.{fmt}"
    write_template(fmt, path)
    with pytest.raises(InputError, match="no offers"):
        load_catalog([path])
    if fmt == "csv":
        header = path.read_text().splitlines()[0].split(",")  # the example rows below it are comments
        with path.open("a", newline="") as fh:
            csv.DictWriter(fh, header).writerow(GOOD_ROW)
    elif fmt == "xlsx":
        wb = openpyxl.load_workbook(path)
        ws = wb["offers"]
        header = [c.value for c in ws[1]]
        ws.append([GOOD_ROW.get(h) for h in header])
        wb.save(path)
    else:
        text = path.read_text().replace(
            "offers: []", "offers:\n  - " + "\n    ".join(f"{k}: {v}" for k, v in GOOD_ROW.items())
        )
        path.write_text(text)
    assert load_catalog([path]).offers[0].id == "v-8xh100"


def test_residual_values_warn_when_the_horizon_differs_from_their_holding_period():
    from procure.offers.catalog import horizon_warnings

    cat = load_catalog()  # residual_value_horizon_months: 36
    assert horizon_warnings(cat, 36) == []
    (w,) = horizon_warnings(cat, 12)
    assert w.warning and "assume 36 months" in w.message and "understated" in w.message
