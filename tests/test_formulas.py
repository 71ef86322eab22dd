"""The ledger's formula templates, evaluated in Python (solver.formulas): the verifier's second statement of
every cost rule. A rule in solver/costs.py that parts ways with its template is refused, naming the entry,
in the quick lane, without LibreOffice."""

from __future__ import annotations

import dataclasses

import pytest

from procure.solver import costs, holdings, ledger
from procure.solver.costs import RentalContract
from procure.solver.formulas import cumipmt, entry_formula_value, evaluate, formula_problems, parameters
from procure.solver.plan import Decision, build_plan
from procure.solver.verify import VerificationError, _close, verify_plan

from helpers import fixed_sizings, offer, project, solve_fixed, workload


def test_cumipmt_is_excels_on_microsofts_worked_example():
    # Microsoft's CUMIPMT help page: a 125,000 loan at 9 % a year over 30 years; the interest of the second year
    # (instalments 13-24) is -11,135.23213 and of the first instalment -937.50
    assert cumipmt(0.09 / 12, 30 * 12, 125_000, 13, 24, 0) == pytest.approx(-11_135.23213, abs=1e-5)
    assert cumipmt(0.09 / 12, 30 * 12, 125_000, 1, 1, 0) == pytest.approx(-937.50, abs=1e-9)


def test_the_arithmetic_is_parsed_not_evaluated_as_python():
    assert evaluate("-{a}*(1+{b})/4-2*-3", {"a": 2.0, "b": 0.5}) == pytest.approx(-0.75 + 6)
    assert evaluate("1.5e-3*2", {}) == pytest.approx(0.003)
    for bad in ("__import__('os')", "{a}**2", "1+", "({a}", "SUM(1)", "{missing}"):
        with pytest.raises(ValueError):
            evaluate(bad, {"a": 1.0})


def _every_kind():
    """A plan priced by the ledger with an entry of every kind: a financed, imported purchase in CNY (price, duty,
    VAT, network, residual, maintenance, colocation, idle, interest), owned servers with a residual value, a
    job's busy energy, storage and egress, a cloud job with 6 % VAT that is not recoverable (service_vat), a rent
    contract with its setup, a reserved cloud term with its upfront, a fixed charge, the staff, and a carbon price
    in EUR on the energy of every purchase, job and contract."""
    p = project(
        [workload(name=n, deadline_days=300, dataset_tb=2.0) for n in ("a", "c", "r", "o")],
        horizon_months=12,
        currency="USD",
        fx_rates={"CNY": 0.14, "EUR": 1.1},
        fx_rates_date="2026-11-01",
        fx_rates_source="test",
        carbon_price_per_t=80,
        carbon_price_currency="EUR",
        vat_recoverable=False,
        financing={"annual_rate": 0.08, "months": 24, "down_payment_pct": 0.25},
        staff={"nodes_per_fte": 2, "cost_per_fte_year": 120_000, "modes": ["buy", "rent"]},
        owned=[{"offer": "own", "nodes": 1, "residual_value": 5_000}],
    )
    b = offer(
        mode="buy",
        id="b",
        currency="CNY",
        price_per_node=1_800_000,
        import_duty_pct=0.05,
        vat_pct=0.13,
        network_per_node=9_000,
        fixed_cost=20_000,
        storage_per_tb_month=140,
        egress_per_tb=600,
        lead_time_days=20,
    )
    c = offer(mode="cloud", id="c", price_per_node_hour=98.0, spot_overhead_pct=0.1, vat_pct=0.06)
    r = offer(mode="rent", id="r", setup_fee_per_node=800)
    rsv = offer(mode="cloud", id="rsv", price_per_node_hour=60.0, commitment_months=3, upfront_per_node=1_000)
    offers = {o.id: o for o in holdings.with_owned(p, [b, c, r, rsv, offer(mode="buy", id="own")])}
    decisions = [
        Decision("a", "b", 2, 16, 300.0, 30.0),
        Decision("c", "c", 1, 8, 100.0, 10.0),
        Decision("r", "r", 1, 8, 200.0, 40.0),
        Decision("o", "own.owned", 1, 8, 50.0, 5.0),
    ]
    contracts = [RentalContract("r", 1, 1, 2), RentalContract("rsv", 2, 3, 3)]
    return p, offers, ledger.ledger(p, offers, decisions, {"b": 2, "own.owned": 1}, contracts)


def test_every_kind_of_entry_is_its_formula_of_its_own_fields():
    p, _offers, book = _every_kind()
    assert {e.kind for e in book} == set(ledger.KINDS)
    assert formula_problems(book.entries, p, _close) == []
    # a quoted price converts at the project's rate: 2 nodes × 1,800,000 CNY × 0.14
    assert entry_formula_value(book["buy:b:capex"], parameters(p), p.currency) == pytest.approx(2 * 1_800_000 * 0.14)
    assert book["buy:b:capex"].amount == pytest.approx(504_000)
    # the carbon price of every source of energy, in EUR; no VAT on it (it is no vendor's charge)
    carbon = {e.key.rsplit(":", 2)[0] for e in book if e.kind == "carbon"}
    assert carbon == {"buy:b", "own:own.owned", "job0", "job1", "job2", "job3", "rent0", "rent1"}
    assert all(e.currency == "EUR" for e in book if e.kind == "carbon")
    assert not [e.key for e in book if e.kind == "service_vat" and e.category == "carbon"]
    # the cloud job: 1 node × 10.2 kW (8 × 700 W ÷ 5.6/10.2) × 0.75 × 100 h × 1.1 spot × PUE 1.3 = 1,093.95 kWh,
    # × 369 g/kWh (us-east) / 10^6 × 80 EUR × 1.1
    assert book["job1:carbon:y1"].amount == pytest.approx(10.2 * 0.75 * 110 * 1.3 * 369e-6 * 80 * 1.1)


def test_an_amount_that_is_not_its_formula_is_named():
    p, _offers, book = _every_kind()
    e = book["rent0:setup"]
    wrong = dataclasses.replace(e, amounts=tuple((m, v + 1.0) for m, v in e.amounts))
    (said,) = formula_problems([wrong], p, _close)
    assert said == "formula: rent0:setup is 801.00 but its formula {D}*{G} makes 800.00 of its fields"


def _bought():
    p = project([workload(name="job", deadline_days=60)], horizon_months=6)
    o = offer(mode="buy", id="b", price_per_node=60_000, max_nodes=2)
    hours = {("job", "b", 1): 200}
    return p, [o], hours


def test_a_maintenance_rule_one_percent_off_its_formula_is_refused_naming_the_entry(monkeypatch):
    """The cost model's maintenance × 1.01: the amount is no longer what the maintenance template makes of the
    entry's fields, nor what the verifier derives from the quote (solver.verify_money)."""
    p, offers, hours = _bought()
    ok = solve_fixed(p, offers, hours).plan
    right = costs.purchase_flows

    def off(offer, project, nodes=1):
        flows = right(offer, project, nodes)
        flows["maintenance"] = {m: v * 1.01 for m, v in flows["maintenance"].items()}
        return flows

    monkeypatch.setattr(costs, "purchase_flows", off)
    plan = build_plan(p, {o.id: o for o in offers}, ok.decisions, {"b": 1}, [])
    _sizings, resize = fixed_sizings(p, offers, hours)
    with pytest.raises(VerificationError) as err:
        verify_plan(p, {o.id: o for o in offers}, plan, resize)
    said = err.value.violations
    # the template of its own fields, and the amount the verifier derives from the quote, both refuse it; nothing
    # else of the plan moved (the maintenance category, the total, the NPV and the P&L's operating cost follow
    # from it, each 14.88 off: 1 % of 60,000 × 0.05 × 181 / 365, the 181 days of January to June 2027)
    assert said[0].startswith("formula: buy:b:maintenance is ")
    assert any(v.startswith("ledger: buy:b:maintenance is ") and "from the quotes" in v for v in said)
    follows = ("cost: plan total ", "npv: plan NPV ", "pnl: year 1 ")
    assert all("maintenance" in v or v.startswith(follows) for v in said), said
    maintenance = plan.ledger["buy:b:maintenance"].amount
    assert maintenance == pytest.approx(1.01 * 60_000 * 0.05 * 181 / 365)
