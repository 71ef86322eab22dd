"""`procure solve --focus charges.csv`: the plan's charges as FOCUS 1.3 Cost and Usage rows, its contracts
as Contract Commitment rows. Expected figures are worked out by hand from the offers' prices."""

from __future__ import annotations

import csv
import json
import re

import pytest

from procure.reports.focus import COLUMNS, COMMITMENT_COLUMNS, commitment_rows, commitments_path, cost_rows

from helpers import ROOT, cli, offer, project, solve_fixed, workload


def _case():
    """Job a: 2 cloud nodes × 100 h × 30/node-hour = 6,000. Job b: 500 h on 1 rented node, one month at
    14,000 (no setup fee). Nothing else costs anything: TCO 20,000."""
    cloud = offer(id="c", vendor="Cloudy", price_per_node_hour=30.0)
    rent = offer(id="r", mode="rent", vendor="Metal", price_per_node_month=14_000, region="eu-west")
    p = project([workload(name="a", deadline_days=60), workload(name="b", deadline_days=60)])
    res = solve_fixed(p, [cloud, rent], {("a", "c", 2): 100.0, ("b", "r", 1): 500.0}, compare=False)
    assert res.plan is not None
    return res


def test_rows_add_up_to_the_tco_by_hand():
    res = _case()
    rows = cost_rows(res)
    assert sum(r["EffectiveCost"] for r in rows) == pytest.approx(6_000 + 14_000)
    assert res.plan.total_cost == pytest.approx(20_000)
    (bill,) = [r for r in rows if r["x_CostCategory"] == "cloud"]
    assert (
        bill["BilledCost"] == pytest.approx(6_000) and bill["ListCost"] == bill["ContractedCost"] == bill["BilledCost"]
    )
    assert (bill["ChargeCategory"], bill["PricingCategory"], bill["ChargeFrequency"]) == (
        "Usage",
        "Standard",
        "Usage-Based",
    )
    assert bill["x_Workload"] == "a" and bill["SubAccountId"] == "a" and bill["ServiceProviderName"] == "Cloudy"
    # 2 nodes × 100 h: 200 node-hours, the quantity the 30 per node-hour prices (was the wall hours, 100)
    assert bill["ListUnitPrice"] == 30.0 and bill["ConsumedQuantity"] == pytest.approx(200.0)
    assert bill["ChargePeriodStart"] == "2027-01-01T00:00:00Z" and bill["ChargePeriodEnd"] == "2027-02-01T00:00:00Z"
    assert json.loads(bill["Tags"])["workload"] == "a"
    (rent,) = [r for r in rows if r["x_CostCategory"] == "rent"]
    # the contract's own rent is its purchase at the agreed rate: Standard in FOCUS 1.3 (Committed is for charges
    # a commitment discount applies to, with its CommitmentDiscountId; was Committed without one)
    assert rent["BilledCost"] == pytest.approx(14_000) and rent["PricingCategory"] == "Standard"
    assert rent["PricingUnit"] == "Server-Months" and rent["PricingQuantity"] == pytest.approx(1.0)
    assert (
        rent["ChargeCategory"] == "Purchase"
        and rent["RegionId"] == "eu-west"
        and rent["x_ContractId"] == "r/contract-1"
    )
    assert rent["SubAccountId"] == "shared"


def test_contract_commitments_by_hand():
    res = _case()
    (c,) = commitment_rows(res)
    assert c["ContractId"] == "r/contract-1" and c["ContractCommitmentCost"] == pytest.approx(14_000)
    assert c["ContractCommitmentQuantity"] == 1 and c["ContractCommitmentUnit"] == "node-months"
    assert c["ContractPeriodStart"] == "2027-01-01T00:00:00Z" and c["ContractPeriodEnd"] == "2027-02-01T00:00:00Z"


def test_spot_hours_are_dynamic_pricing():
    spot = offer(id="s", price_per_node_hour=10.0, spot=True, spot_overhead_pct=0.2)
    p = project([workload(name="a", deadline_days=60)], allow_spot=True)
    res = solve_fixed(p, [spot], {("a", "s", 1): 50.0}, compare=False)
    (row,) = cost_rows(res)
    # 1 node × 50 h × 1.2 (interruptions) × 10/node-hour = 600
    assert row["PricingCategory"] == "Dynamic" and row["EffectiveCost"] == pytest.approx(600)


_ALLOWED = {
    "ChargeCategory": {"Usage", "Purchase", "Tax", "Credit", "Adjustment"},
    "ChargeFrequency": {"One-Time", "Recurring", "Usage-Based"},
    "PricingCategory": {"Standard", "Dynamic", "Committed", "Other", ""},
    "ChargeClass": {"", "Correction"},
    "ServiceCategory": {"Compute", "Storage", "Networking", "Other", "AI and Machine Learning"},
}
_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT00:00:00Z$")


def test_cli_focus_files_follow_the_specification(tmp_path):
    """The 1.3 rules these files rely on, checked on a real solve with purchases, rentals and loans."""
    out, js = tmp_path / "charges.csv", tmp_path / "plan.json"
    res = cli(
        "solve", ROOT / "examples" / "negotiated-quotes.yaml", "--focus", out, "--json", js, "--quiet", "--no-compare",
        "--runner-ups", "0",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    with out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    header = list(rows[0])
    assert tuple(header) == COLUMNS
    assert all(c.startswith("x_") or c[0].isupper() and "_" not in c for c in header)  # FOCUS names or x_ ones
    for r in rows:
        for col, allowed in _ALLOWED.items():
            assert r[col] in allowed, (col, r[col])
        assert _STAMP.match(r["ChargePeriodStart"]) and _STAMP.match(r["ChargePeriodEnd"])
        assert r["ChargePeriodStart"] < r["ChargePeriodEnd"] and r["BillingCurrency"] == "USD"
        assert r["BilledCost"] == r["EffectiveCost"]
        if r["ChargeCategory"] == "Credit":
            assert float(r["BilledCost"]) < 0
    assert sum(float(r["EffectiveCost"]) for r in rows) == pytest.approx(
        json.loads(js.read_text())["total_cost"], abs=0.01
    )
    with commitments_path(out).open(newline="") as f:
        contracts = list(csv.DictReader(f))
    assert tuple(contracts[0]) == COMMITMENT_COLUMNS
    rentals = json.loads(js.read_text())["rentals"]
    assert len(contracts) == len(rentals) and sum(
        float(c["ContractCommitmentCost"]) for c in contracts
    ) == pytest.approx(sum(r["cost"] for r in rentals), abs=0.01)
    assert {r["x_ContractId"] for r in rows if r["x_ContractId"]} == {c["ContractId"] for c in contracts}


def test_focus_must_be_csv_and_nothing_is_half_written(tmp_path):
    res = cli("solve", ROOT / "examples" / "qlora-7b-week.yaml", "--focus", tmp_path / "charges.xlsx")
    assert res.exit_code == 1 and "--focus" in res.output and not list(tmp_path.iterdir())


# --- the specification's row rules, checked independently of reports/focus.py --------------------------

#: FOCUS 1.3 PricingUnit values this plan may use: each a unit a FinOps reader reads as a quantity of the
#: thing bought (servers, node-hours, kWh, TB, staff time, loan instalments)
_UNITS = {
    "Servers",
    "Server-Days",
    "Server-Months",
    "Hours",
    "kWh",
    "TB",
    "TB-Months",
    "FTE-Months",
    "Instalments",
    "Charges",
}


def _num(v):
    return None if v in ("", None) else float(v)


def _unit_price_violations(n: int, r: dict) -> list[str]:
    bad = []
    q = _num(r["PricingQuantity"])
    sku = r["SkuPriceId"]
    # ListUnitPrice, ContractedUnitPrice, PricingQuantity, PricingUnit: null exactly when SkuPriceId is null
    for col in ("ListUnitPrice", "ContractedUnitPrice", "PricingQuantity", "PricingUnit"):
        if (r[col] in ("", None)) != (sku in ("", None)):
            bad.append(f"row {n}: {col} {r[col]!r} with SkuPriceId {sku!r}")
    for price_col, cost_col in (("ListUnitPrice", "ListCost"), ("ContractedUnitPrice", "ContractedCost")):
        price, cost = _num(r[price_col]), _num(r[cost_col])
        if price is None:
            continue
        if price < 0:
            bad.append(f"row {n}: {price_col} {price} < 0")
        if q is None or abs(price * q - cost) > 0.005:  # to the cent
            bad.append(f"row {n}: {price_col} {price} × PricingQuantity {q} ≠ {cost_col} {cost}")
    return bad


def focus_rule_violations(rows: list[dict]) -> list[str]:
    """The FOCUS 1.3 Cost and Usage rules a plan's rows must keep, row by row (ListUnitPrice, PricingQuantity,
    ListCost, ContractedUnitPrice, ContractedCost, PricingCategory, CommitmentDiscountId, ChargeFrequency,
    SkuPriceId), written from the specification's column pages, not from the code under test."""
    bad = []
    for n, r in enumerate(rows, start=2):
        bad += _unit_price_violations(n, r)
        if r["PricingUnit"] and r["PricingUnit"] not in _UNITS:
            bad.append(f"row {n}: PricingUnit {r['PricingUnit']!r}")
        # PricingCategory: not null for Usage and Purchase; Committed exactly when a CommitmentDiscountId is given
        if r["ChargeCategory"] in ("Usage", "Purchase") and not r["PricingCategory"]:
            bad.append(f"row {n}: no PricingCategory on a {r['ChargeCategory']} row")
        if (r["PricingCategory"] == "Committed") != bool(r["CommitmentDiscountId"]):
            bad.append(
                f"row {n}: PricingCategory {r['PricingCategory']!r}, CommitmentDiscountId {r['CommitmentDiscountId']!r}"
            )
        # ChargeFrequency: a purchase is never Usage-Based; a charge paid in several months is not One-Time
        if r["ChargeCategory"] == "Purchase" and r["ChargeFrequency"] == "Usage-Based":
            bad.append(f"row {n}: a Purchase row is Usage-Based")
        if r["x_CostCategory"] == "interest" and r["ChargeFrequency"] != "Recurring":
            bad.append(f"row {n}: a loan instalment is {r['ChargeFrequency']}")
        if r["ChargeCategory"] == "Usage" and r["ConsumedQuantity"] in ("", None):
            bad.append(f"row {n}: a Usage row without ConsumedQuantity")
    return bad


def _holdings_case():
    """Owned servers (1 node, running costs committed), a signed rental (1 node, 3 months), a financed purchase
    (20 % down, 24 monthly instalments at 6 %/year) and cloud hours, each job held to its own offer."""
    from procure.solver import holdings

    own = offer(id="dgx", mode="buy")
    fin = offer(
        id="fin",
        mode="buy",
        price_per_node=200_000,
        financing={"down_payment_pct": 0.2, "months": 24, "annual_rate": 0.06},
    )
    rent = offer(id="r", mode="rent", vendor="Metal", price_per_node_month=14_000)
    cloud = offer(id="c", vendor="Cloudy", price_per_node_hour=30.0)
    p = project(
        [
            workload(name="on-owned", deadline_days=60),
            workload(name="on-rent", deadline_days=60),
            workload(name="on-bought", deadline_days=200),
            workload(name="on-cloud", deadline_days=60),
        ],
        owned=[{"offer": "dgx", "nodes": 1, "residual_value": 50_000}],
        commitments=[{"offer": "r", "nodes": 1, "start_date": "2027-01-01", "months": 3}],
    )
    offers = holdings.with_owned(p, [own, fin, rent, cloud])
    hours = {
        ("on-owned", "dgx.owned", 1): 500.0,
        ("on-rent", "r", 1): 500.0,
        ("on-bought", "fin", 1): 3000.0,
        ("on-cloud", "c", 2): 100.0,
    }
    res = solve_fixed(p, offers, hours, compare=False)
    assert res.plan is not None
    assert {a.offer_id for a in res.plan.assignments} == {"dgx.owned", "r", "fin", "c"}
    return res


def test_focus_rows_keep_the_specification_rules_row_by_row(tmp_path):
    res = _holdings_case()
    out = tmp_path / "charges.csv"
    from procure.reports.focus import focus_files

    cost, _ = focus_files(res)
    out.write_bytes(cost)
    with out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert focus_rule_violations(rows) == []
    assert sum(float(r["EffectiveCost"]) for r in rows) == pytest.approx(res.plan.total_cost, abs=0.01)
    by = {}
    for r in rows:
        by.setdefault(r["x_CostCategory"], []).append(r)
    # the cloud job: 2 nodes × 100 h at 30 per node-hour = 200 node-hours
    (cl,) = by["cloud"]
    assert cl["PricingUnit"] == "Hours" and float(cl["PricingQuantity"]) == pytest.approx(200.0)
    assert float(cl["ListUnitPrice"]) == 30.0
    # the rental: 1 node × 3 months at 14,000 per node-month; a commitment's own rows are not Committed
    rent = by["rent"]
    assert {r["PricingUnit"] for r in rent} == {"Server-Months"}
    assert sum(float(r["PricingQuantity"]) for r in rent) == pytest.approx(3.0)
    assert {float(r["ListUnitPrice"]) for r in rent} == {14_000.0}
    # maintenance is priced per server-day (5 %/year of 250,000 / 365), not at the server's price
    maint = [r for r in by["maintenance"] if r["ResourceId"].startswith("dgx")]
    assert {r["PricingUnit"] for r in maint} == {"Server-Days"}
    assert {round(float(r["ListUnitPrice"]), 6) for r in maint} == {round(250_000 * 0.05 / 365, 6)}
    # energy in kWh at the electricity price
    assert {r["PricingUnit"] for r in by["energy"]} == {"kWh"}
    # the financed purchase: the loan's interest is recurring; the principal after the down payment too
    assert by["interest"] and all(r["ChargeFrequency"] == "Recurring" for r in by["interest"])
    capex = sorted(by["capex"], key=lambda r: r["ChargePeriodStart"])
    assert capex[0]["ChargeFrequency"] == "One-Time" and {r["ChargeFrequency"] for r in capex[1:]} == {"Recurring"}


@pytest.mark.slow
def test_cli_focus_negotiated_quotes_keeps_the_row_rules(tmp_path):
    out = tmp_path / "charges.csv"
    res = cli(
        "solve", ROOT / "examples" / "negotiated-quotes.yaml", "--focus", out, "--quiet", "--no-compare",
        "--runner-ups", "0",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    with out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert focus_rule_violations(rows) == []
