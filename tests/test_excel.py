"""The Excel workbook (and its CSV twin): recalculated by LibreOffice, its formulas reproduce the cost
model to the cent, stay live when a price changes, keep input text as text, and are written atomically."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest

from procure.common.errors import InputError
from procure.models.offer import Offer
from procure.models.project import Project
from procure.reports import assumption_rows, lines
from procure.reports.csv_report import write_csv
from procure.reports.xlsx import SHEETS, style, write_workbook
from procure.solver import costs
from procure.solver.costs import CATEGORIES
from procure.solver.planner import plan_project
from procure.solver.sizing.constants import constant

from helpers import EXAMPLES, recalculating_profile

CENT = 0.01
EVIL_VENDOR = '=HYPERLINK("http://x","y")'
SOFFICE = shutil.which("soffice")
#: the session fixtures (every example, via tests/solved.py) are built once, on one worker
pytestmark = pytest.mark.xdist_group("solved")

needs_soffice = pytest.mark.skipif(
    SOFFICE is None, reason="LibreOffice (soffice) is not installed: cannot recalculate the workbook's formulas"
)


def _offer(**kw) -> Offer:
    mode = kw["mode"]
    base = dict(
        region="us-east",
        gpu="H100-SXM-80GB",
        gpus_per_node=8,
        intra_node="nvswitch",
        inter_node="ib-ndr",
        inter_node_rails=8,
        ram_gb=2048,
        nvme_tb=30,
        cpu_cores=112,
        max_nodes=8,
        lead_time_days=0,
        source="test quote",
        quoted_on="2026-11-01",
    )
    if mode == "buy":
        base.update(
            price_per_node=150_000,
            power_kw_per_node=10.2,
            residual_value_pct=0.4,
            maintenance_pct_per_year=0.05,
            colocation_per_node_month=600,
            lead_time_days=30,
        )
    elif mode == "rent":
        base.update(price_per_node_month=16_000, setup_fee_per_node=900, min_term_months=2)
    else:
        base.update(price_per_node_hour=98.0, max_nodes=4)
    base.update(kw)
    return Offer.model_validate(base)


OFFERS = [
    _offer(id="buy-h100", vendor=EVIL_VENDOR, mode="buy"),
    _offer(id="rent-h100", vendor="@RentCo", mode="rent"),
    _offer(id="cloud-h100", vendor="+CloudCo", mode="cloud", spot=True, spot_overhead_pct=0.15),
]


def _project(**kw) -> Project:
    """A long pretraining run (owning pays off) and two short fine-tunes; names that look like formulas."""
    base = dict(
        name="-excel test",
        start_date="2027-01-01",
        horizon_months=24,
        period_days=7,
        discount_rate=0.07,
        workloads=[
            dict(
                name="-pretrain",
                model="llama-2-7b",
                method="pretrain",
                tokens_b=4000,
                earliest_start_days=35,
                deadline_days=700,
            ),
            dict(name="@ft-early", model="llama-2-7b", method="full", tokens_b=2, deadline_days=45),
            dict(
                name="ft-late",
                model="llama-2-7b",
                method="full",
                tokens_b=20,
                earliest_start_days=300,
                deadline_days=400,
            ),
        ],
    )
    base.update(kw)
    return Project.model_validate(base)


#: Quotes as received, one per kind, each the only offer of its GPU so that every kind appears in the plan:
#: an EUR purchase with a minimum order and volume tiers, import duty, non-recoverable VAT and a loan; a CNY
#: rent with 1/3/6-month terms; a reserved A100 cloud term with an upfront fee.
QUOTE_OFFERS = [
    _offer(
        id="eur-h100-financed",
        vendor="EU integrator",
        mode="buy",
        currency="EUR",
        price_per_node=None,
        volume_prices=[{"min_nodes": 2, "price_per_node": 240_000}, {"min_nodes": 3, "price_per_node": 225_000}],
        import_duty_pct="4%",
        vat_pct="19%",
        financing={"down_payment_pct": "25%", "months": 36, "annual_rate": "6%"},
        depreciation_years=3,
    ),
    _offer(
        id="cny-h800-tiers",
        vendor="Shanghai bare metal",
        mode="rent",
        gpu="H800-SXM-80GB",
        currency="CNY",
        price_per_node_month=None,
        min_term_months=None,
        setup_fee_per_node=2000,
        term_prices="1:110000; 3:100000; 6:90000",
    ),
    _offer(
        id="a100-reserved",
        vendor="A Cloud",
        mode="cloud",
        gpu="A100-SXM-80GB",
        price_per_node_hour=20.0,
        commitment_months=6,
        upfront_per_node=15_000,
        max_nodes=2,
    ),
]


def _quotes_project() -> Project:
    return Project.model_validate(
        dict(
            name="quotes as received",
            start_date="2027-01-01",
            horizon_months=24,
            period_days=7,
            discount_rate=0.08,
            fx_rates={"EUR": 1.08, "CNY": 0.14},
            fx_rates_date="2026-11-20",
            fx_rates_source="test rates",
            vat_recoverable=False,
            workloads=[
                dict(
                    name="owned",
                    model="llama-2-7b",
                    method="pretrain",
                    tokens_b=400,
                    deadline_days=500,
                    allowed_gpus=["H100-SXM-80GB"],
                ),
                dict(
                    name="rented",
                    model="llama-2-7b",
                    method="pretrain",
                    tokens_b=150,
                    deadline_days=400,
                    allowed_gpus=["H800-SXM-80GB"],
                ),
                dict(
                    name="reserved-1",
                    model="llama-2-7b",
                    method="full",
                    tokens_b=5,
                    deadline_days=60,
                    allowed_gpus=["A100-SXM-80GB"],
                ),
                dict(
                    name="reserved-2",
                    model="llama-2-7b",
                    method="full",
                    tokens_b=5,
                    earliest_start_days=90,
                    deadline_days=150,
                    allowed_gpus=["A100-SXM-80GB"],
                ),
            ],
        )
    )


#: Costs beyond the servers, one of each: a buy offer with a fabric spine (fixed_cost), network per node, storage
#: and egress; a rent offer with an onboarding fee (fixed_cost), storage and egress; cloud storage and egress;
#: operations staff of bought and rented nodes.
TCO_OFFERS = [
    _offer(
        id="buy-fabric",
        vendor="Integrator",
        mode="buy",
        fixed_cost=60_000,
        network_per_node=15_100,
        storage_per_tb_month=8.5,
        egress_per_tb=0,
    ),
    _offer(
        id="rent-onboard",
        vendor="@RentCo",
        mode="rent",
        gpu="H800-SXM-80GB",
        fixed_cost=2_500,
        storage_per_tb_month=12,
        egress_per_tb=50,
    ),
    _offer(
        id="cloud-s3",
        vendor="+CloudCo",
        mode="cloud",
        gpu="A100-SXM-80GB",
        price_per_node_hour=41.0,
        storage_per_tb_month=23,
        egress_per_tb=90,
    ),
]


def _tco_project() -> Project:
    return _project(
        name="tco extras",
        staff={"nodes_per_fte": 3, "cost_per_fte_year": 150_000, "modes": ["buy", "rent"]},
        workloads=[
            dict(
                name="owned",
                model="llama-2-7b",
                method="pretrain",
                tokens_b=2000,
                deadline_days=500,
                dataset_tb=4.0,
                allowed_gpus=["H100-SXM-80GB"],
            ),
            dict(
                name="rented",
                model="llama-2-7b",
                method="pretrain",
                tokens_b=300,
                deadline_days=300,
                dataset_tb=2.0,
                dataset_moves_on=True,
                allowed_gpus=["H800-SXM-80GB"],
            ),
            dict(
                name="cloud",
                model="llama-2-7b",
                method="full",
                tokens_b=2,
                deadline_days=45,
                dataset_moves_on=True,
                allowed_gpus=["A100-SXM-80GB"],
            ),
        ],
    )


@pytest.fixture(scope="session")
def results(solved):
    """name -> (Result, input files): hand-built projects covering buy, rent and spot cloud, plus every example
    (the session's cached ``procure solve``, tests/solved.py). No runner-ups: no test here reads them."""
    out = {
        "buy": (plan_project(_project(), OFFERS, n_runner_ups=0), []),
        # no buy offer: rentals (and buy only shown as infeasible)
        "rent": (plan_project(_project(discount_rate=0.0), OFFERS[1:], n_runner_ups=0), []),
        "quotes": (plan_project(_quotes_project(), QUOTE_OFFERS, n_runner_ups=0), []),
        "tco": (plan_project(_tco_project(), TCO_OFFERS, n_runner_ups=0), []),
        # totals near 1e10: every column must still print its numbers (no ###)
        "huge": (
            plan_project(
                _project(), [_offer(id="buy-huge", vendor="BigCo", mode="buy", price_per_node=1.2e9)], n_runner_ups=0
            ),
            [],
        ),
    }
    for path in EXAMPLES:
        run = solved(path)
        out[path.stem] = (run.result, run.inputs.files)
    return out


@pytest.fixture(scope="session")
def written(results, tmp_path_factory):
    folder = tmp_path_factory.mktemp("workbooks")
    paths = {}
    for name, (result, inputs) in results.items():
        paths[name] = folder / f"{name}.xlsx"
        write_workbook(result, paths[name], inputs=inputs)
    return paths


def recalc(paths: list[Path], tmp_path_factory) -> dict[Path, Path]:
    """Open the workbooks in LibreOffice Calc, recalculate, save as xlsx (one soffice call for all)."""
    out = tmp_path_factory.mktemp("recalculated")
    profile = tmp_path_factory.mktemp("lo-profile")
    cmd = [
        SOFFICE,
        f"-env:UserInstallation={recalculating_profile(profile)}",
        "--headless",
        "--calc",
        "--convert-to",
        "xlsx",
        "--outdir",
        str(out),
        *map(str, paths),
    ]
    subprocess.run(cmd, check=True, capture_output=True, timeout=240)
    done = {p: out / p.name for p in paths}
    missing = [str(p) for p in done.values() if not p.exists()]
    assert not missing, f"LibreOffice did not write {missing}"
    return done


@pytest.fixture(scope="session")
def recalculated(written, tmp_path_factory):
    if SOFFICE is None:
        pytest.skip("LibreOffice (soffice) is not installed: cannot recalculate the workbook's formulas")
    done = recalc(list(written.values()), tmp_path_factory)
    return {name: openpyxl.load_workbook(done[p], data_only=True) for name, p in written.items()}


def named_value(wb, name: str):
    ((sheet, coord),) = list(wb.defined_names[name].destinations)
    return wb[sheet][coord.replace("$", "")].value


def category_totals(wb) -> dict[str, float]:
    ws = wb["Costs"]
    start = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "Totals by category")
    return {ws.cell(r, 1).value: ws.cell(r, 11).value for r in range(start + 1, start + 1 + len(CATEGORIES))}


CASES = ["buy", "rent", "quotes", "tco", "huge", *[p.stem for p in EXAMPLES]]


# --- the formulas reproduce the cost model --------------------------------------------------------


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
def test_examples_and_cases_exist(results):
    assert len(EXAMPLES) >= 3
    buy_plan = results["buy"][0].plan
    rent_plan = results["rent"][0].plan
    assert buy_plan.purchases, "the buy case must exercise purchase line items"
    assert rent_plan.rentals, "the rent case must exercise rental line items"
    assert any(a.mode == "cloud" for r, _ in results.values() for a in r.plan.assignments)


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
@pytest.mark.soffice
@needs_soffice
@pytest.mark.parametrize("name", CASES)
def test_recalculated_totals_equal_the_solver(name, results, recalculated):
    plan = results[name][0].plan
    project = results[name][0].project
    wb = recalculated[name]
    assert named_value(wb, "total_cost") == pytest.approx(plan.total_cost, abs=CENT)
    got = category_totals(wb)
    for c in CATEGORIES:
        assert got[c] == pytest.approx(plan.breakdown[c], abs=CENT), c
    # npv_cost exists for every project; at a 0% discount rate it equals the total
    assert named_value(wb, "npv_cost") == pytest.approx(plan.npv_cost, abs=CENT)
    if project.discount_rate == 0:
        assert plan.npv_cost == pytest.approx(plan.total_cost, abs=CENT)


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
@pytest.mark.soffice
@needs_soffice
@pytest.mark.parametrize("name", CASES)
def test_recalculated_cash_flow_equals_the_cost_model_month_by_month(name, results, recalculated):
    result = results[name][0]
    plan, n = result.plan, result.project.horizon_months
    ws = recalculated[name]["Cash flow"]
    rows = {ws.cell(r, 2).value: r for r in range(5, 5 + len(CATEGORIES))}
    assert set(rows) == set(CATEGORIES)
    for c in CATEGORIES:
        for m in range(n):
            want = plan.flows.get(c, {}).get(m, 0.0)
            assert ws.cell(rows[c], 4 + m).value == pytest.approx(want, abs=CENT), (c, m)
    total_row = 5 + len(CATEGORIES)
    cum_row = total_row + 1
    assert ws.cell(total_row, 3).value == pytest.approx(plan.total_cost, abs=CENT)
    assert ws.cell(cum_row, 3 + n).value == pytest.approx(plan.total_cost, abs=CENT)


@pytest.mark.slow  # the session fixture (about a minute)
def test_tco_case_exercises_every_cost_beyond_the_servers(results):
    """The "tco" case pays each new category, so the LibreOffice tests above recalculate each one to the cent."""
    plan = results["tco"][0].plan
    for c in ("network", "fixed", "storage", "egress", "staff"):
        assert plan.breakdown[c] > 0, c
    assert {c.offer_id for c in plan.charges if c.kind == "fixed"} == {"buy-fabric", "rent-onboard"}
    assert plan.breakdown["fixed"] == pytest.approx(60_000 + 2_500)  # once per offer, whatever the nodes
    assert plan.modes() == {"buy", "rent", "cloud"}


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
def test_quotes_case_exercises_every_kind_of_quote(results):
    plan = results["quotes"][0].plan
    (pur,) = plan.purchases
    assert pur.nodes >= 2 and pur.price_per_node == pytest.approx((225_000 if pur.nodes >= 3 else 240_000) * 1.08)
    assert plan.breakdown["interest"] > 0
    assert {r.offer_id for r in plan.rentals} == {"cny-h800-tiers", "a100-reserved"}
    reserved = [r for r in plan.rentals if r.offer_id == "a100-reserved"]
    assert all(r.months == 6 for r in reserved)
    # one reserved term carries both jobs: they run within six months of each other
    assert sum(r.nodes for r in reserved) == max(a.nodes for a in plan.assignments if a.offer_id == "a100-reserved")


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
@pytest.mark.soffice
@needs_soffice
@pytest.mark.parametrize("name", CASES)
def test_recalculated_pnl_equals_the_cost_model(name, results, recalculated):
    """The P&L sheet's years equal the ledger's P&L years to the cent, and add up to the total cost of ownership."""
    plan = results[name][0].plan
    ws = recalculated[name]["P&L"]
    for k, y in enumerate(plan.pnl):
        row = 5 + k
        assert ws.cell(row, 1).value == y.label  # the fiscal year ("FY2027")
        got = [ws.cell(row, c).value for c in range(3, 8)]
        assert got == pytest.approx([y.depreciation, y.operating, y.interest, y.disposal_gain, y.cost], abs=CENT), y
    total_row = 5 + len(plan.pnl)
    assert ws.cell(total_row, 7).value == pytest.approx(plan.total_cost, abs=CENT)
    assert ws.cell(total_row, 8).value == pytest.approx(plan.total_cost, abs=CENT)  # the cash view's total
    assert ws.cell(total_row + 1, 7).value == pytest.approx(0.0, abs=CENT)


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
@pytest.mark.soffice
@needs_soffice
def test_summary_figures_are_live_formulas(results, recalculated, written):
    plan = results["buy"][0].plan
    ws = recalculated["buy"]["Summary"]
    row = next(r for r in range(1, 40) if ws.cell(r, 1).value == "Total cost of ownership")
    assert ws.cell(row, 2).value == pytest.approx(plan.total_cost, abs=CENT)
    raw = openpyxl.load_workbook(written["buy"])["Summary"]
    assert str(raw.cell(row, 2).value).startswith("=")


# --- changing an input moves the total by quantity × change ---------------------------------------


def _find_row(ws, category: str, offer_id: str) -> int:
    for r in range(4, ws.max_row + 1):
        if ws.cell(r, 1).value == category and ws.cell(r, 3).value == offer_id and ws.cell(r, 11).value is not None:
            return r
    raise AssertionError(f"no {category} row for {offer_id}")


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
@pytest.mark.soffice
@needs_soffice
def test_changing_unit_prices_moves_the_total(results, written, tmp_path_factory):
    rent_result = results["rent"][0]
    buy_result = results["buy"][0]
    folder = tmp_path_factory.mktemp("edited")
    # rent: +1,000 per node-month on the first contract's price cell (every contract of the offer reuses it)
    rent_wb = openpyxl.load_workbook(written["rent"])
    ws = rent_wb["Costs"]
    r = _find_row(ws, "rent", "rent-h100")
    assert ws.cell(r, 7).fill.fgColor.rgb.endswith(style.INPUT_FILL.fgColor.rgb[-6:]), "the price is an input cell"
    ws.cell(r, 7).value = ws.cell(r, 7).value + 1000
    rent_wb.save(folder / "rent-edited.xlsx")
    # buy: +10,000 on the purchase price, which residual value and maintenance reuse
    buy_wb = openpyxl.load_workbook(written["buy"])
    ws = buy_wb["Costs"]
    r = _find_row(ws, "capex", "buy-h100")
    ws.cell(r, 7).value = ws.cell(r, 7).value + 10_000
    buy_wb.save(folder / "buy-edited.xlsx")

    done = recalc([folder / "rent-edited.xlsx", folder / "buy-edited.xlsx"], tmp_path_factory)
    rent_total = named_value(openpyxl.load_workbook(done[folder / "rent-edited.xlsx"], data_only=True), "total_cost")
    node_months = sum(x.nodes * x.months for x in rent_result.plan.rentals if x.offer_id == "rent-h100")
    assert node_months > 0
    assert rent_total == pytest.approx(rent_result.plan.total_cost + 1000 * node_months, abs=CENT)

    buy_total = named_value(openpyxl.load_workbook(done[folder / "buy-edited.xlsx"], data_only=True), "total_cost")
    o = buy_result.offers["buy-h100"]
    nodes = next(p.nodes for p in buy_result.plan.purchases if p.offer_id == o.id)
    years = costs.owned_days(o, buy_result.project) / 365.0
    per_unit = nodes * (1 - o.residual + o.maintenance * years)
    assert buy_total == pytest.approx(buy_result.plan.total_cost + 10_000 * per_unit, abs=CENT)


# --- text from inputs stays text ------------------------------------------------------------------


def _text_cells(wb, text: str):
    return [
        (ws.title, c.coordinate, c) for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.value == text
    ]


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
def test_formula_like_input_text_is_written_as_text(written):
    wb = openpyxl.load_workbook(written["buy"])
    for text in (EVIL_VENDOR, "-pretrain", "@ft-early", "-excel test — GPU compute procurement"):
        cells = _text_cells(wb, text)
        assert cells, f"{text!r} should appear in the workbook"
        for sheet, coord, c in cells:
            assert c.data_type == "s", (sheet, coord)
    # nothing that came from the inputs became a formula anywhere
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type == "f":
                    assert "HYPERLINK" not in str(c.value) and "pretrain" not in str(c.value), (ws.title, c.coordinate)


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
@pytest.mark.soffice
@needs_soffice
def test_formula_like_text_survives_recalculation(recalculated):
    wb = recalculated["buy"]
    plan_ws = wb["Plan"]
    assert plan_ws["A4"].value == "-pretrain"
    assert plan_ws["A5"].value == "@ft-early"
    assert plan_ws["C4"].value == EVIL_VENDOR
    assert _text_cells(wb, EVIL_VENDOR)


# --- atomic writes --------------------------------------------------------------------------------


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
def test_failed_write_keeps_the_old_report_and_leaves_no_temp_file(results, tmp_path, monkeypatch):
    target = tmp_path / "report.xlsx"
    target.write_bytes(b"previous report")
    result = results["buy"][0]

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(openpyxl.Workbook, "save", boom)
    with pytest.raises((OSError, InputError)):
        write_workbook(result, target)
    monkeypatch.undo()
    assert target.read_bytes() == b"previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.xlsx"]

    monkeypatch.setattr(os, "replace", boom)  # the temp file is complete, the rename fails
    with pytest.raises((OSError, InputError)):
        write_workbook(result, target)
    monkeypatch.undo()
    assert target.read_bytes() == b"previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.xlsx"]

    write_workbook(result, target)
    assert openpyxl.load_workbook(target).sheetnames == list(SHEETS)


# --- structure a reader relies on -----------------------------------------------------------------


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
def test_workbook_layout(written, results):
    wb = openpyxl.load_workbook(written["buy"])
    assert wb.sheetnames == ["Summary", "Plan", "Costs", "Cash flow", "P&L", "Options", "Assumptions"]
    for ws in wb.worksheets:
        assert ws.page_setup.orientation == "landscape"
        assert ws.sheet_properties.pageSetUpPr.fitToPage
    assert wb["Costs"].freeze_panes == "A4"
    assert wb["Summary"]._charts, "TCO and cumulative cash-out charts"
    costs_ws = wb["Costs"]
    grand = list(wb.defined_names["total_cost"].destinations)[0][1].replace("$", "")
    assert costs_ws[grand].value.startswith("=SUM(")
    # every line amount is a formula over its own row
    r = _find_row(costs_ws, "maintenance", "buy-h100")
    assert costs_ws.cell(r, 11).value.startswith("=") and f"E{r}" in costs_ws.cell(r, 11).value
    # plan dates are real dates
    assert results["buy"][0].project.start_date <= wb["Plan"]["I4"].value.date()
    # the assumptions name the solver and hash the inputs
    text = " ".join(str(c.value) for row in wb["Assumptions"].iter_rows() for c in row if c.value is not None)
    assert "cbc" in text and "procure version" in text


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
def test_example_workbook_hashes_its_inputs(written, results):
    name = EXAMPLES[0].stem
    wb = openpyxl.load_workbook(written[name])
    values = [c.value for row in wb["Assumptions"].iter_rows() for c in row]
    digest = assumption_rows.sha256_of(EXAMPLES[0])
    assert digest in values


# --- CSV ------------------------------------------------------------------------------------------


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
def test_csv_tables(results, tmp_path):
    result = results["buy"][0]
    folder = tmp_path / "tables"
    written = write_csv(result, folder)
    names = {p.name for p in written}
    assert {
        "summary.csv",
        "strategies.csv",
        "plan.csv",
        "costs.csv",
        "cash_flow.csv",
        "options.csv",
        "assumptions.csv",
    } <= names
    with open(folder / "costs.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert sum(float(r["amount"]) for r in rows) == pytest.approx(result.plan.total_cost, abs=CENT)
    with open(folder / "cash_flow.csv", newline="", encoding="utf-8") as fh:
        flows = list(csv.DictReader(fh))
    assert len(flows) == result.project.horizon_months
    assert float(flows[-1]["cumulative"]) == pytest.approx(result.plan.total_cost, abs=CENT)
    with open(folder / "plan.csv", newline="", encoding="utf-8") as fh:
        plan = list(csv.DictReader(fh))
    # formula-like text is defused for spreadsheet programs that open the CSV
    assert plan[0]["workload"] == "'-pretrain" and plan[0]["vendor"] == "'" + EVIL_VENDOR
    assert not list(folder.glob(".*.tmp"))


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
def test_line_items_reproduce_the_breakdown(results):
    for name, (result, _) in results.items():
        items = lines.line_items(result)
        for c in CATEGORIES:
            got = sum(i.amount for i in items if i.category == c)
            assert got == pytest.approx(result.plan.breakdown[c], abs=CENT), (name, c)
        for i in items:
            assert sum(i.months.values()) == pytest.approx(1.0, abs=1e-9), (name, i.key)


# --- the report modules by concept ------------------------------------------------------------------


def test_csv_report_does_not_import_openpyxl():
    import subprocess
    import sys

    code = "import sys, procure.reports.csv_report, procure.reports.tables; print('openpyxl' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
@pytest.mark.parametrize("name", CASES)
def test_sheets_refer_to_each_other_by_defined_names(name, written):
    """No formula reaches into another sheet by a cell address: it uses the names the sheet defines."""
    wb = openpyxl.load_workbook(written[name])
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type == "f":
                    assert "!" not in str(c.value), (ws.title, c.coordinate, c.value)
    for n in ("total_cost", "npv_cost", *(f"cat_{c}" for c in CATEGORIES), "cm_kwh", "cm_pue"):
        assert n in wb.defined_names, n


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
@pytest.mark.soffice
@needs_soffice
def test_recalculated_cash_flow_shows_the_loan_instalments(results, recalculated):
    """The financed purchase's instalment row equals the cost model's capex-after-delivery plus interest."""
    result = results["quotes"][0]
    (pur,) = result.plan.purchases
    o = result.offers[pur.offer_id]
    ws = recalculated["quotes"]["Cash flow"]
    row = next(r for r in range(1, ws.max_row + 1) if str(ws.cell(r, 1).value or "").startswith("loan instalments"))
    d = costs.delivery_month(o, result.project)
    flows = costs.scale(costs.purchase_flows(o, result.project, pur.nodes), pur.nodes)
    for m in range(d + 1, result.project.horizon_months):
        want = flows["capex"].get(m, 0.0) + flows["interest"].get(m, 0.0)
        assert ws.cell(row, 4 + m).value == pytest.approx(want, abs=CENT), m
    fin = costs.financing_of(o, result.project)
    assert ws.cell(row, 4 + d + 1).value == pytest.approx(
        costs.annuity_payment(
            pur.nodes
            * costs.unit_price(o, result.project, pur.nodes)
            * costs.landed_factor(o, result.project)
            * (1 - fin.down_payment_pct),
            fin.annual_rate,
            fin.months,
        ),
        abs=CENT,
    )


# --- what readers without a calculation engine, and printers, see -----------------------------------


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
@pytest.mark.soffice
@needs_soffice
@pytest.mark.parametrize("name", CASES)
def test_cached_values_equal_libreoffice(name, written, recalculated):
    """Every formula carries its result, and it is the result LibreOffice computes."""
    raw = openpyxl.load_workbook(written[name])
    cached = openpyxl.load_workbook(written[name], data_only=True)
    lo = recalculated[name]
    n = 0
    for ws in raw.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type != "f":
                    continue
                n += 1
                mine, theirs = cached[ws.title][c.coordinate].value, lo[ws.title][c.coordinate].value
                assert mine is not None or theirs in (None, ""), (ws.title, c.coordinate, c.value)
                if isinstance(theirs, (int, float)) and not isinstance(theirs, bool):
                    assert mine == pytest.approx(theirs, abs=CENT), (ws.title, c.coordinate, c.value)
                else:
                    assert (mine or "") == (theirs or ""), (ws.title, c.coordinate, c.value)
    assert n > 50


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
def test_huge_case_is_above_a_billion(results):
    assert results["huge"][0].plan.total_cost > 1e9


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
@pytest.mark.soffice
@needs_soffice
def test_printed_pdf_has_no_hash_marks_and_no_long_decimals(written, tmp_path_factory):
    """Every example, a >1 M and a ~1e10 case, printed to PDF by LibreOffice: every number fits its column."""
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    out = tmp_path_factory.mktemp("pdf")
    profile = tmp_path_factory.mktemp("lo-profile-pdf")
    paths = list(written.values())
    subprocess.run(
        [
            SOFFICE,
            f"-env:UserInstallation={recalculating_profile(profile)}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(out),
            *map(str, paths),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    import re

    for p in paths:
        pdf = out / (p.stem + ".pdf")
        assert pdf.exists(), pdf
        text = subprocess.run(
            ["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
        ).stdout
        assert "###" not in text, p.stem
        # a number with five or more decimals (not a citation such as arXiv:1910.02054)
        long_decimal = re.search(r"(?<![\d.:])\d\.\d{5,}(?!\d)", text)
        assert not long_decimal, (
            p.stem,
            text[max(0, long_decimal.start() - 40) : long_decimal.end() + 10] if long_decimal else "",
        )
        assert "Recommendation" in text


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
def test_long_text_wraps_with_a_row_height_that_fits(written):
    from procure.reports.xlsx.style import text_height

    ws = openpyxl.load_workbook(written[EXAMPLES[0].stem])["Assumptions"]
    checked = 0
    for row in ws.iter_rows(min_row=4):
        for c in row:
            if isinstance(c.value, str) and len(c.value) > 60:
                assert c.alignment.wrap_text, c.coordinate
                width = ws.column_dimensions[c.column_letter].width
                assert (ws.row_dimensions[c.row].height or 15) >= text_height(c.value, width) - 0.01, c.coordinate
                checked += 1
    assert checked > 5


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
@pytest.mark.soffice
@needs_soffice
def test_summary_follows_an_edited_price(results, written, tmp_path_factory):
    """+1,000 per node-month on the rent price: the Summary's sentence, strategy table and key figures follow;
    the strategies solved before the edit say so, and the warning to re-solve appears once one is cheaper."""
    result = results["rent"][0]
    folder = tmp_path_factory.mktemp("edited-summary")
    wb = openpyxl.load_workbook(written["rent"])
    ws = wb["Costs"]
    r = _find_row(ws, "rent", "rent-h100")
    ws.cell(r, 7).value = ws.cell(r, 7).value + 1000
    wb.save(folder / "rent.xlsx")
    done = recalc([folder / "rent.xlsx"], tmp_path_factory)
    out = openpyxl.load_workbook(done[folder / "rent.xlsx"], data_only=True)
    node_months = sum(x.nodes * x.months for x in result.plan.rentals if x.offer_id == "rent-h100")
    new_total = result.plan.total_cost + 1000 * node_months
    s = out["Summary"]
    sentence = s["A6"].value
    assert f"{new_total:,.0f} USD total cost of ownership" in sentence
    rows: dict = {}
    for i in range(1, s.max_row + 1):  # the first row of each label (the emissions table at the foot repeats them)
        rows.setdefault(s.cell(i, 1).value, i)
    assert s.cell(rows["hybrid (free)"], 2).value == pytest.approx(new_total, abs=CENT)
    assert s.cell(rows["Total cost of ownership"], 2).value == pytest.approx(new_total, abs=CENT)
    cloud = result.strategies["cloud"].plan.total_cost
    assert s.cell(rows["cloud only"], 2).value == pytest.approx(cloud, abs=CENT)
    assert s.cell(rows["cloud only"], 3).value == pytest.approx(cloud - new_total, abs=CENT)
    assert s.cell(rows["cloud only"], 7).value == "as solved"
    rent_only = result.strategies["rent"].plan.total_cost
    if new_total > rent_only:
        assert "re-solve" in (s["A7"].value or "").lower() or "procure solve" in (s["A7"].value or "")
        assert "more TCO than rent only as solved" in sentence


@pytest.mark.slow  # the session fixture solves and writes every example and case (about a minute)
def test_assumptions_list_sizing_constants_with_unit_and_source(written):
    # The sizing constants come from solver/sizing/constants.yaml with their unit and source — the
    # efficiency and overlap parameters among them — and units of measure are not among them.
    wb = openpyxl.load_workbook(written[EXAMPLES[0].stem])
    rows = [[c.value for c in row] for row in wb["Assumptions"].iter_rows()]
    by_name = {r[0]: r for r in rows if r and isinstance(r[0], str)}
    names = ("TP_COMM_OVERLAP", "COMM_OVERLAP", "FP8_GEMM_EFFICIENCY", "MOE_MFU_FACTOR", "MFU_HIDDEN_HALF_HOPPER")
    # the whole-run goodput, calibrated apart from the in-step MFU, with its sources too
    # (RESTART_LOSS_HOURS became RESTART_RELOAD_HOURS: the loss per interruption now follows the checkpoint
    # interval; the execution factor is the whole-run half the goodput does not explain)
    for name in (
        *names,
        "GOODPUT_OVERHEAD",
        "GPU_INTERRUPTION_RATE",
        "RESTART_RELOAD_HOURS",
        "JOB_STARTUP_HOURS",
        "EXECUTION_FACTOR",
    ):
        row = by_name[name]
        assert isinstance(row[1], (int, float)) and row[2] and len(str(row[3])) > 30, row
    assert "GB" not in by_name and "GIB" not in by_name


def test_mi300x_hours_come_from_its_own_efficiency_with_the_source_on_the_assumptions_sheet(tmp_path):
    # An MI300X-only plan: the chosen shape's MFU is MFU_CDNA3 (its measured training speed, not H100's
    # efficiency), the sheet says so, lists that constant with its source, and gives the hours' P10–P90.
    mi = _offer(
        id="cloud-mi300x",
        vendor="AMD Cloud",
        mode="cloud",
        gpu="MI300X-192GB",
        intra_node="nvlink",
        inter_node="roce-400g",
    )
    project = Project.model_validate(
        dict(
            name="mi",
            start_date="2027-01-01",
            horizon_months=12,
            period_days=7,
            workloads=[dict(name="ft", model="llama-2-7b", method="full", tokens_b=2, deadline_days=60)],
        )
    )
    result = plan_project(project, [mi], n_runner_ups=0)
    path = tmp_path / "mi.xlsx"
    write_workbook(result, path)
    ws = openpyxl.load_workbook(path)["Assumptions"]
    rows = [[c.value for c in r] for r in ws.iter_rows()]
    header = next(r for r in rows if r[0] == "workload" and "MFU from" in r)
    chosen = next(r for r in rows[rows.index(header) + 1 :] if r[0] == "ft")
    col = {name: i for i, name in enumerate(header) if name}
    assert chosen[col["MFU from"]].startswith("MFU_CDNA3")
    # MFU_CDNA3 0.287 at hidden size 8192 (MFU_HOPPER 0.515 × 989.4 / 1.36 / 1,307.4, constants.yaml) × the
    # hidden-size factor CDNA3 takes from Hopper, h½ = MFU_HIDDEN_HALF_HOPPER 1024, for Llama-2-7B's 4096:
    # 0.287 × (1 + 1024/8192) / (1 + 1024/4096) = 0.287 × 1.125 / 1.25 = 0.2583
    assert (constant("MFU_CDNA3"), constant("MFU_HIDDEN_HALF_HOPPER")) == (0.287, 1024)
    assert chosen[col["MFU"]] == pytest.approx(0.287 * 1.125 / 1.25, rel=1e-6)
    # what it means in step (published convention, below the matmul rate), the goodput and execution factors,
    # and the GPU's speed against the fastest sized (the only one here)
    assert 0 < chosen[col["MFU in step"]] < chosen[col["MFU"]]
    assert chosen[col["tokens/s per GPU in step"]] > 0
    assert chosen[col["execution factor"]] == pytest.approx(constant("EXECUTION_FACTOR"))
    assert chosen[col["speed per GPU vs the fastest sized"]] == pytest.approx(1.0)
    assert chosen[col["hours P10"]] < chosen[col["wall hours"]] < chosen[col["hours P90"]]
    (const,) = [r for r in rows if r[0] == "MFU_CDNA3"]
    assert "MI300X" in const[3] and "H200" in const[3]


@pytest.mark.soffice
@needs_soffice
def test_libreoffice_really_recalculates_an_input_changed_in_the_file(tmp_path):
    # one rented node for one month at 9,000: change the rent's price cell in the sheet XML, leaving every
    # cached value as it was, and convert. With the recalculating profile the total follows the input
    # (9,000 → 12,000); with a plain profile LibreOffice keeps the cached 9,000, which is why every
    # LibreOffice test here uses recalculating_profile.
    import re
    import zipfile

    from helpers import offer, project, solve_fixed

    o = offer(id="r9", mode="rent", price_per_node_month=9000, min_term_months=1, max_nodes=1)
    p = project([dict(name="j", model="llama-2-7b", method="full", tokens_b=1, deadline_days=30)], horizon_months=3)
    res = solve_fixed(p, [o], {("j", "r9", 1): 100}, compare=True)
    assert res.plan.total_cost == pytest.approx(9000)
    book = tmp_path / "in" / "plan.xlsx"
    book.parent.mkdir()
    write_workbook(res, book)
    wb = openpyxl.load_workbook(book)
    ws = wb["Costs"]
    cell = next(c for row in ws.iter_rows() for c in row if c.value == 9000 and c.column_letter == "G")
    sheet_xml = f"xl/worksheets/sheet{wb.sheetnames.index('Costs') + 1}.xml"
    changed = tmp_path / "changed" / "plan.xlsx"
    changed.parent.mkdir()
    with zipfile.ZipFile(book) as zin, zipfile.ZipFile(changed, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == sheet_xml:
                text, n = re.subn(
                    rf'(<c r="{cell.coordinate}"[^>]*><v>)9000(</v>)', r"\g<1>12000\g<2>", data.decode("utf-8")
                )
                assert n == 1, "the price cell was not found in the sheet XML"
                data = text.encode("utf-8")
            zout.writestr(item, data)

    def total_after(profile_uri: str, name: str) -> float:
        out = tmp_path / name
        subprocess.run(
            [SOFFICE, f"-env:UserInstallation={profile_uri}", "--headless", "--calc", "--convert-to", "xlsx"]
            + ["--outdir", str(out), str(changed)],
            check=True,
            capture_output=True,
            timeout=240,
        )
        return named_value(openpyxl.load_workbook(out / "plan.xlsx", data_only=True), "total_cost")

    assert total_after(recalculating_profile(tmp_path / "lo-recalc"), "recalc") == pytest.approx(12000)
    assert total_after((tmp_path / "lo-plain").as_uri(), "plain") == pytest.approx(9000)


@pytest.mark.soffice
@needs_soffice
def test_budget_capex_reads_the_same_in_the_solver_the_cached_and_the_recalculated_workbook(tmp_path):
    # one node bought at 10,000 with network_per_node 1,000 under budget_capex 10,500: the cap is on the servers'
    # purchase price (10,000), so the plan stands with 500 to spare, in the cache and recalculated alike
    from helpers import offer, project, solve_fixed

    o = offer(id="b", mode="buy", price_per_node=10_000, network_per_node=1_000, max_nodes=1)
    p = project(
        [dict(name="j", model="llama-2-7b", method="full", tokens_b=1, deadline_days=30)],
        horizon_months=3,
        budget_capex=10_500,
    )
    res = solve_fixed(p, [o], {("j", "b", 1): 100}, compare=True)
    assert res.status == "optimal" and [x.nodes for x in res.plan.purchases] == [1]
    book = tmp_path / "in" / "plan.xlsx"
    book.parent.mkdir()
    write_workbook(res, book)
    subprocess.run(
        [SOFFICE, f"-env:UserInstallation={recalculating_profile(tmp_path / 'lo')}", "--headless", "--calc"]
        + ["--convert-to", "xlsx", "--outdir", str(tmp_path / "out"), str(book)],
        check=True,
        capture_output=True,
        timeout=240,
    )

    def verdict(path) -> str:
        s = openpyxl.load_workbook(path, data_only=True)["Summary"]
        row = next(r for r in range(1, s.max_row + 1) if s.cell(r, 1).value == "budget_capex")
        return s.cell(row, 3).value

    cached, recalculated = verdict(book), verdict(tmp_path / "out" / "plan.xlsx")
    assert cached.startswith("within") and "500" in cached
    assert recalculated == cached
