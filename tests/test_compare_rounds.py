"""``procure compare`` of three quote rounds: each round against round 1 and against the round before it,
an offer shown as removed in the round that removed it, and percent fields as percents.

Round 1: vendor A rents at 16,500 per node-month, cloud C at 30 per node-hour; discount rate 8%.
Round 2: vendor A 14,200; cloud C withdrawn, cloud D added at 28.
Round 3: vendor A back up to 15,000; cloud D withdrawn; discount rate 6%."""

from __future__ import annotations

import json

import openpyxl
import pytest
import yaml

from helpers import GOOD_ROW, cli

#: the module fixture is built once, on one worker
pytestmark = pytest.mark.xdist_group("compare_rounds")

RENT = {k: v for k, v in GOOD_ROW.items() if k not in ("price_per_node_month", "min_term_months", "id", "vendor")}
CLOUD = {k: v for k, v in RENT.items() if k != "setup_fee_per_node"} | {"mode": "cloud"}
A = {**RENT, "id": "vendor-a", "vendor": "Vendor A", "min_term_months": 1}
ROUNDS = [
    (
        [{**A, "price_per_node_month": 16500}, {**CLOUD, "id": "cloud-c", "vendor": "C", "price_per_node_hour": 30.0}],
        0.08,
    ),
    (
        [{**A, "price_per_node_month": 14200}, {**CLOUD, "id": "cloud-d", "vendor": "D", "price_per_node_hour": 28.0}],
        0.08,
    ),
    ([{**A, "price_per_node_month": 15000}], 0.06),
]


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    d = tmp_path_factory.mktemp("three")
    paths = []
    for k, (offers, rate) in enumerate(ROUNDS, start=1):
        (d / f"q{k}.yaml").write_text(yaml.safe_dump({"offers": offers}, sort_keys=False))
        job = {"name": "tune-7b", "model": "llama-2-7b", "method": "qlora", "tokens_b": 0.5, "deadline_days": 60}
        doc = {
            "name": "quote round",
            "start_date": "2027-01-04",
            "horizon_months": 12,
            "discount_rate": rate,
            "offers": [f"q{k}.yaml"],
            "workloads": [job],
        }
        (d / f"r{k}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
        paths.append(str(d / f"r{k}.yaml"))
    out, js = d / "c.xlsx", d / "c.json"
    res = cli("compare", *paths, "--out", str(out), "--json", str(js))
    assert res.exit_code == 0, res.output
    return paths, res, out, json.loads(js.read_text())


def test_each_round_is_compared_with_the_one_before_it(three):
    paths, res, out, doc = three
    price = next(x for x in doc["inputs"] if x["subject"] == "vendor-a" and x["field"] == "price_per_node_month")
    assert price["differences"] == [0, 14200 - 16500, 15000 - 16500]
    assert price["steps"] == [14200 - 16500, 15000 - 14200]
    total = next(r for r in doc["rows"] if r["label"] == "total cost")
    v1, v2, v3 = total["values"]
    assert total["steps"] == [pytest.approx(v2 - v1), pytest.approx(v3 - v2)]
    assert v3 > v2  # round 3 is worse than round 2 (vendor A dearer, cloud D gone) ...
    text = " ".join(res.output.split())
    assert f"+{v3 - v2:,.0f}" in text  # ... and the console says by how much
    ws = openpyxl.load_workbook(out)["Outcomes"]
    heads = [ws.cell(4, c).value for c in range(1, ws.max_column + 1)]
    col = heads.index(f"Δ {paths[2]} vs {paths[1]}") + 1
    row = next(r for r in range(5, ws.max_row + 1) if ws.cell(r, 2).value.endswith("total cost"))
    # round 3 − round 2, a live formula (0 where it rounds to nothing, so the cell never shows "-0")
    assert ws.cell(row, col).value == f"=IF(ABS(E{row}-D{row})<0.5,0,E{row}-D{row})"


def test_an_offer_reads_as_removed_in_the_round_that_removed_it(three):
    _paths, res, out, doc = three
    got = {x["subject"]: x["per_file"] for x in doc["inputs"] if x["change"] in ("added", "removed")}
    assert got == {"cloud-c": ["quoted", "removed", ""], "cloud-d": ["", "added", "removed"]}
    ws = openpyxl.load_workbook(out)["Inputs changed"]
    rows = {ws.cell(r, 2).value: [ws.cell(r, c).value for c in (4, 5, 6)] for r in range(5, ws.max_row + 1)}
    assert rows["cloud-c"] == ["quoted", "removed", None]
    assert rows["cloud-d"] == [None, "added", "removed"]
    cells = [c.strip() for c in next(ln for ln in res.output.splitlines() if "cloud-c" in ln).split("│")]
    assert cells[4:7] == ["quoted", "removed", "—"]  # the round-2 column says it; round 3 has nothing to say


def test_percent_fields_print_as_percents(three):
    _paths, res, out, doc = three
    rate = next(x for x in doc["inputs"] if x["field"] == "discount_rate")
    assert rate["percent"] and rate["values"] == [0.08, 0.08, 0.06]
    line = next(ln for ln in res.output.splitlines() if "discount_rate" in ln)
    assert "8%" in line and "6%" in line and "-2 pp" in line and "0.06" not in line
    ws = openpyxl.load_workbook(out)["Inputs changed"]
    r = next(r for r in range(5, ws.max_row + 1) if ws.cell(r, 3).value == "discount_rate")
    assert ws.cell(r, 6).number_format.endswith("%") and ws.cell(r, 6).value == 0.06
