"""``procure compare`` of two quote rounds: what changed in the inputs (every changed field of every
offer, offers added and removed, workload and project settings), then the outcomes; on the console, in
the JSON and in the workbook, which LibreOffice opens and recalculates."""

from __future__ import annotations

import json
import shutil
import subprocess

import openpyxl
import pytest
import yaml

from helpers import GOOD_ROW, cli, recalculating_profile

#: the module fixture is built once, on one worker
pytestmark = pytest.mark.xdist_group("compare")

SOFFICE = shutil.which("soffice")
needs_soffice = pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed")

RENT = {k: v for k, v in GOOD_ROW.items() if k not in ("price_per_node_month", "min_term_months", "id", "vendor")}
CLOUD = {k: v for k, v in RENT.items() if k not in ("setup_fee_per_node",)} | {"mode": "cloud"}

ROUND_1 = [
    {**RENT, "id": "vendor-a", "vendor": "Vendor A", "price_per_node_month": 16500, "min_term_months": 3},
    {
        **RENT,
        "id": "vendor-b",
        "vendor": "Vendor B",
        "term_prices": [
            {"min_term_months": 1, "price_per_node_month": 15000},
            {"min_term_months": 6, "price_per_node_month": 13000},
        ],
    },
    {**CLOUD, "id": "cloud-c", "vendor": "Cloud C", "price_per_node_hour": 30.0},
]
# round 2: vendor A 16,500 → 14,200 per node-month and minimum term 3 → 2 months; vendor B's 6-month
# tier 13,000 → 12,500; cloud C withdrawn; cloud D added
ROUND_2 = [
    {**ROUND_1[0], "price_per_node_month": 14200, "min_term_months": 2},
    {
        **ROUND_1[1],
        "term_prices": [
            {"min_term_months": 1, "price_per_node_month": 15000},
            {"min_term_months": 6, "price_per_node_month": 12500},
        ],
    },
    {**CLOUD, "id": "cloud-d", "vendor": "Cloud D", "price_per_node_hour": 28.0},
]


def _workload(offers_file: str, deadline: int, electricity: float) -> dict:
    job = {"name": "tune-7b", "model": "llama-2-7b", "method": "qlora", "tokens_b": 0.5, "deadline_days": deadline}
    return {
        "name": "quote round",
        "start_date": "2027-01-04",
        "horizon_months": 12,
        "electricity_price_per_kwh": electricity,
        "offers": [offers_file],
        "workloads": [job],
    }


@pytest.fixture(scope="module")
def rounds(tmp_path_factory):
    d = tmp_path_factory.mktemp("rounds")
    (d / "quotes-1.yaml").write_text(yaml.safe_dump({"offers": ROUND_1}, sort_keys=False))
    (d / "quotes-2.yaml").write_text(yaml.safe_dump({"offers": ROUND_2}, sort_keys=False))
    # the workload too: deadline day 60 → 75, electricity 0.12 → 0.10
    (d / "round-1.yaml").write_text(yaml.safe_dump(_workload("quotes-1.yaml", 60, 0.12), sort_keys=False))
    (d / "round-2.yaml").write_text(yaml.safe_dump(_workload("quotes-2.yaml", 75, 0.10), sort_keys=False))
    out, js = d / "compare.xlsx", d / "compare.json"
    res = cli("compare", str(d / "round-1.yaml"), str(d / "round-2.yaml"), "--out", str(out), "--json", str(js))
    assert res.exit_code == 0, res.output
    return d, res, out, json.loads(js.read_text())


# (section, subject, field, change, round 1, round 2), derived from the two rounds above by hand
EXPECTED = [
    ("project", "", "electricity_price_per_kwh", "changed", 0.12, 0.10),
    ("project", "", "offers", "changed", "quotes-1.yaml", "quotes-2.yaml"),
    ("workload", "tune-7b", "deadline_days", "changed", 60, 75),
    ("offer", "vendor-a", "price_per_node_month", "changed", 16500, 14200),
    ("offer", "vendor-a", "min_term_months", "changed", 3, 2),
    ("offer", "vendor-b", "term_prices", "changed", "1:15000; 6:13000", "1:15000; 6:12500"),
    ("offer", "cloud-c", "", "removed", "yes", None),
    ("offer", "cloud-d", "", "added", None, "yes"),
]


def test_the_json_lists_every_changed_input_with_old_and_new_values(rounds):
    _d, _res, _out, doc = rounds
    got = [(x["section"], x["subject"], x["field"], x["change"], *x["values"]) for x in doc["inputs"]]
    assert got == [pytest.approx(e) if isinstance(e[4], float) else e for e in EXPECTED]
    price = next(x for x in doc["inputs"] if x["field"] == "price_per_node_month")
    assert price["differences"] == [0, 14200 - 16500]
    assert any(r["label"] == "total cost" for r in doc["rows"])  # the outcome diff follows


def test_the_console_shows_the_input_diff_before_the_outcomes(rounds):
    _d, res, _out, _doc = rounds
    text = res.output
    assert "What changed in the inputs" in text
    assert text.index("What changed in the inputs") < text.index("Comparison against")
    for needle in (
        "price_per_node_month",
        "16,500",
        "14,200",
        "-2,300",
        "min_term_months",
        "1:15000; 6:12500",
        "removed",
        "added",
    ):
        assert needle in text, needle


@pytest.mark.soffice
@needs_soffice
def test_libreoffice_opens_the_workbook_and_reads_back_the_input_diff(rounds, tmp_path):
    _d, _res, out, _doc = rounds
    profile = tmp_path / "lo-profile"
    subprocess.run(
        [
            SOFFICE,
            f"-env:UserInstallation={recalculating_profile(profile)}",
            "--headless",
            "--calc",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(tmp_path / "re"),
            str(out),
        ],
        check=True,
        capture_output=True,
        timeout=240,
    )
    wb = openpyxl.load_workbook(tmp_path / "re" / out.name, data_only=True)  # values as LibreOffice computed them
    assert wb.sheetnames == ["Inputs changed", "Outcomes"]
    ws = wb["Inputs changed"]
    header = [ws.cell(4, c).value for c in range(1, 7)]
    assert header[:3] == ["section", "offer / workload", "field"] and header[5].startswith("Δ ")
    rows = {
        (ws.cell(r, 2).value or "", ws.cell(r, 3).value): [ws.cell(r, c).value for c in (4, 5, 6)]
        for r in range(5, ws.max_row + 1)
        if ws.cell(r, 1).value
    }
    assert rows[("vendor-a", "price_per_node_month")] == [16500, 14200, 14200 - 16500]
    assert rows[("vendor-a", "min_term_months")] == [3, 2, 2 - 3]
    assert rows[("tune-7b", "deadline_days")] == [60, 75, 75 - 60]
    old, new, delta = rows[("", "electricity_price_per_kwh")]
    assert (old, new) == (0.12, 0.10) and delta == pytest.approx(0.10 - 0.12)
    assert rows[("vendor-b", "term_prices")][:2] == ["1:15000; 6:13000", "1:15000; 6:12500"]
    # each reads in the round where it happened (analysis.compare.InputChange.presence)
    assert rows[("cloud-c", "removed")][:2] == ["quoted", "removed"]
    assert rows[("cloud-d", "added")][:2] == [None, "added"]
    assert len(rows) == len(EXPECTED)
    outcomes = wb["Outcomes"]
    labels = [outcomes.cell(r, 2).value for r in range(5, outcomes.max_row + 1)]
    total = next(r for r, v in enumerate(labels, start=5) if v and v.lstrip("* ") == "total cost")
    first, second, delta = (outcomes.cell(total, c).value for c in (3, 4, 5))
    assert delta == pytest.approx(second - first)  # LibreOffice's own Δ


def test_a_bad_output_is_bad_input_and_nothing_is_written(rounds, tmp_path):
    d, _res, _out, _doc = rounds
    js = tmp_path / "c.json"
    r1, r2 = str(d / "round-1.yaml"), str(d / "round-2.yaml")
    res = cli("compare", r1, r2, "--out", str(tmp_path / "c.csv"), "--json", str(js))
    assert res.exit_code == 1
    assert "the workbook must end in .xlsx" in res.output
    assert not js.exists() and not (tmp_path / "c.csv").exists()
    res = cli("compare", r1, r2, "--out", str(d / "quotes-1.yaml"))
    assert res.exit_code == 1  # not a workbook (and an input file)
    res = cli("compare", r1, r2, "--out", str(tmp_path / "c.xlsx"), "--offers", r1)
    assert res.exit_code == 1 and "this is a workload file" in res.output


def test_the_workbook_reads_in_chinese(rounds, tmp_path):
    d, _res, _out, _doc = rounds
    out = tmp_path / "对比.xlsx"
    res = cli("compare", str(d / "round-1.yaml"), str(d / "round-2.yaml"), "--lang", "zh-CN", "--out", str(out))
    assert res.exit_code == 0, res.output
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["输入变化", "结果"]
    ws = wb["输入变化"]
    assert [ws.cell(4, c).value for c in (1, 2, 3)] == ["部分", "报价 / 训练任务", "字段"]
    kinds = {ws.cell(r, 3).value for r in range(5, ws.max_row + 1)}
    assert {"新增", "移除"} <= kinds


def test_compare_states_every_file_in_the_first_files_currency(tmp_path):
    # the same round in USD, then in CNY with fx_rates {USD: 7.1} (its electricity price × 7.1): one plan, so
    # every difference is 0 once the CNY file's amounts are stated in USD (÷ 7.1)
    (tmp_path / "quotes.yaml").write_text(yaml.safe_dump({"currency": "USD", "offers": ROUND_1}))
    usd = _workload("quotes.yaml", 60, 0.12) | {"currency": "USD"}
    cny = _workload("quotes.yaml", 60, 0.12 * 7.1) | {
        "currency": "CNY",
        "fx_rates": {"USD": 7.1},
        "fx_rates_date": "2026-11-30",
        "fx_rates_source": "test rate",
    }
    for name, doc in (("usd", usd), ("cny", cny)):
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    res = cli("compare", tmp_path / "usd.yaml", tmp_path / "cny.yaml", "--json", tmp_path / "c.json")
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "c.json").read_text())
    rows = {r["label"]: r for r in doc["rows"]}
    total = rows["total cost"]
    assert total["values"][0] > 0
    assert total["differences"][1] == pytest.approx(0.0, abs=0.01)
    assert doc["files"][1].endswith("(CNY → USD at 1 USD = 7.1 CNY)")  # the header says how it was converted
    # without a rate between the two currencies: exit 1 before any solving, naming the field
    del cny["fx_rates"], cny["fx_rates_date"], cny["fx_rates_source"]
    cny["electricity_price_per_kwh"] = 0.0
    (tmp_path / "quotes-cny.yaml").write_text(
        yaml.safe_dump({"currency": "CNY", "offers": [{**o, "id": o["id"] + "-cn"} for o in ROUND_1]})
    )
    cny["offers"] = ["quotes-cny.yaml"]
    (tmp_path / "cny.yaml").write_text(yaml.safe_dump(cny, sort_keys=False))
    res = cli("compare", tmp_path / "usd.yaml", tmp_path / "cny.yaml")
    assert res.exit_code == 1
    assert "fx_rates" in res.output and "give fx_rates: {USD" in " ".join(res.output.split())
