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
    assert bill["ListUnitPrice"] == 30.0 and bill["ConsumedQuantity"] == pytest.approx(100.0)
    assert bill["ChargePeriodStart"] == "2027-01-01T00:00:00Z" and bill["ChargePeriodEnd"] == "2027-01-31T00:00:00Z"
    assert json.loads(bill["Tags"])["workload"] == "a"
    (rent,) = [r for r in rows if r["x_CostCategory"] == "rent"]
    assert rent["BilledCost"] == pytest.approx(14_000) and rent["PricingCategory"] == "Committed"
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
    assert c["ContractPeriodStart"] == "2027-01-01T00:00:00Z" and c["ContractPeriodEnd"] == "2027-01-31T00:00:00Z"


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
