"""The priced ledger (solver.ledger): its entries by hand, its views against the cost model summed
independently, and the rule that reports only format (ruff's banned-api over reports/).

The oracle here sums the cost model's per-purpose functions (job_flows, purchase_flows, rental_flows,
fixed_charge_flows, staff_flows) the way plans were costed before the ledger, and computes the P&L from
depreciation_flows and resale_value, so a view that drifts from the cost model fails here."""

from __future__ import annotations

import inspect
import math
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from procure.models.units import MONTHS_PER_YEAR
from procure.solver import costs, ledger
from procure.solver.costs import CATEGORIES, OPERATING, RentalContract
from procure.solver.formulas import formula_problems
from procure.solver.plan import Decision, build_plan

from helpers import offer, project

ROOT = Path(__file__).resolve().parent.parent


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


# --- by hand ------------------------------------------------------------------------------------------


def test_a_financed_imported_purchase_by_hand():
    # one node at 100,000, import duty 10 %, VAT 13 % not recoverable, network 1,000, delivered on day 0;
    # 12-month horizon, no energy price. Price 100,000, duty 10,000, VAT (100,000 + 10,000) · 13 % = 14,300.
    p = project(
        [dict(name="a", model="llama-2-7b", method="lora", tokens_b=0.1, deadline_days=60)],
        horizon_months=12,
        electricity_price_per_kwh=0,
        vat_recoverable=False,
    )
    o = offer(
        mode="buy",
        id="b",
        price_per_node=100_000,
        import_duty_pct=0.10,
        vat_pct=0.13,
        network_per_node=1_000,
        residual_value_pct=0.25,
        maintenance_pct_per_year=0.0,
        colocation_per_node_month=500,
        depreciation_years=2,
    )
    book = ledger.ledger(p, {"b": o}, [], {"b": 1}, [])
    assert book["buy:b:capex"].amount == pytest.approx(100_000)
    assert book["buy:b:duty"].amount == pytest.approx(10_000)
    assert book["buy:b:vat"].amount == pytest.approx(14_300)
    assert book["buy:b:network"].amount == pytest.approx(1_000)
    assert book["buy:b:residual"].amount == pytest.approx(-25_000)  # resale on the price, before taxes
    assert book["buy:b:colocation"].amount == pytest.approx(500 * 12)  # 12 owned months
    assert book.capex() == pytest.approx(124_300)  # the budget_capex measure leaves the network out
    assert book.total() == pytest.approx(124_300 + 1_000 - 25_000 + 6_000)
    # the books: (124,300 + 1,000) over 24 months = 5,220.83 a month; 12 months in the horizon
    b = book.book("b")
    assert b.capitalised == pytest.approx(125_300)
    assert sum(v for _m, v in b.depreciation) == pytest.approx(125_300 / 2)
    assert b.disposal_gain == pytest.approx(25_000 - 125_300 / 2)
    (year,) = book.pnl_years()
    assert year.depreciation == pytest.approx(62_650)
    assert year.operating == pytest.approx(6_000)
    assert year.cost == pytest.approx(book.total())
    # peak cash out: price, taxes and network in month 1, 500 of colocation every month, the resale credited in
    # month 12: by month 11 the cash out is 125,300 + 11 × 500 = 130,800, and 106,300 after the resale
    assert book.peak_cash_out() == pytest.approx(130_800)
    assert book.cumulative()[-1] == pytest.approx(106_300)


def test_rent_staff_and_fixed_entries_by_hand():
    # 2 nodes rented for 3 months at 10,000 per node-month with a 500 setup fee; one fixed charge of 2,000;
    # staff 1 FTE per 4 nodes at 120,000 a year over the 3 months held: 30,000.
    p = project(
        [dict(name="a", model="llama-2-7b", method="lora", tokens_b=0.1, deadline_days=60)],
        horizon_months=6,
        staff={"nodes_per_fte": 4, "cost_per_fte_year": 120_000, "modes": ["rent"]},
    )
    o = offer(mode="rent", id="r", price_per_node_month=10_000, setup_fee_per_node=500, fixed_cost=2_000)
    d = Decision("a", "r", 2, 16, 100.0, 3.0)
    book = ledger.ledger(p, {"r": o}, [d], {}, [RentalContract("r", 2, 0, 3)])
    assert book["rent0:rent"].amount == pytest.approx(60_000)
    assert dict(book["rent0:rent"].amounts) == pytest.approx({0: 20_000, 1: 20_000, 2: 20_000})
    assert book["rent0:setup"].amount == pytest.approx(1_000)
    assert book["fixed:r"].amount == pytest.approx(2_000)
    staff = book["staff"]
    assert (staff.quantity, staff.rate, staff.nodes) == (1.0, 3.0, 2)
    assert staff.amount == pytest.approx(30_000)
    assert book.by_category()["staff"] == pytest.approx(30_000)
    assert book.by_month()[0] == pytest.approx(20_000 + 1_000 + 2_000 + 10_000)
    plan = build_plan(p, {"r": o}, [d], {}, [RentalContract("r", 2, 0, 3)])
    assert plan.total_cost == pytest.approx(60_000 + 1_000 + 2_000 + 30_000)
    assert [(c.kind, c.ftes, c.months, c.nodes) for c in plan.charges] == [("fixed", 0, 0, 0), ("staff", 1, 3, 2)]


# --- the views against the cost model, on random plans -------------------------------------------------


def oracle_flows(p, offers, decisions, purchases, contracts):
    parts = [
        costs.job_flows(offers[d.offer_id], p, d.nodes, d.hours, d.start_day, costs.data_of(p, d.workload))
        for d in decisions
    ]
    parts += [costs.scale(costs.purchase_flows(offers[oid], p, n), n) for oid, n in purchases.items()]
    parts += [costs.rental_flows(offers[c.offer_id], c, p) for c in contracts]
    used = {d.offer_id for d in decisions} | set(purchases) | {c.offer_id for c in contracts}
    parts += [costs.fixed_charge_flows(offers[oid], p) for oid in used]
    parts.append(costs.staff_flows(p, offers, purchases, contracts))
    return costs.add_flows(parts)


def oracle_pnl(p, offers, purchases, flows):
    """Per year: depreciation (costs.depreciation_flows per node × nodes), operating, interest, and the gain on
    disposal (resale − (capitalised − depreciated)) in the last year."""
    M = p.horizon_months
    dep = [0.0] * M
    gain = 0.0
    for oid, n in purchases.items():
        o = offers[oid]
        per_node = costs.depreciation_flows(o, p, n)
        for m, v in per_node.items():
            dep[m] += n * v
        gain += costs.resale_value(o, p, n) - n * (costs.capitalised_cost(o, p, n) - sum(per_node.values()))
    years = math.ceil(M / MONTHS_PER_YEAR)
    out = []
    for y in range(years):
        months = range(y * MONTHS_PER_YEAR, min((y + 1) * MONTHS_PER_YEAR, M))
        op = sum(flows[c].get(m, 0.0) for c in OPERATING for m in months)
        interest = sum(flows["interest"].get(m, 0.0) for m in months)
        out.append((sum(dep[m] for m in months), op, interest, gain if y == years - 1 else 0.0))
    return out


@st.composite
def random_plans(draw):
    horizon = draw(st.sampled_from([6, 13, 24]))
    financing = draw(st.sampled_from([None, {"annual_rate": 0.07, "months": 36, "down_payment_pct": 0.2}]))
    p = project(
        [
            dict(
                name=f"w{i}",
                model="llama-2-7b",
                method=draw(st.sampled_from(["lora", "full"])),
                tokens_b=0.1,
                deadline_days=horizon * 30,
                dataset_tb=draw(st.sampled_from([0.0, 2.5])),
            )
            for i in range(3)
        ],
        horizon_months=horizon,
        discount_rate=draw(st.sampled_from([0.0, 0.1])),
        electricity_price_per_kwh=draw(st.sampled_from([0.0, 0.12])),
        vat_recoverable=draw(st.booleans()),
        staff=draw(
            st.sampled_from([None, {"nodes_per_fte": 3, "cost_per_fte_year": 90_000, "modes": ["buy", "rent"]}])
        ),
        **({"financing": financing} if financing else {}),
    )
    extras = lambda: dict(  # noqa: E731
        network_per_node=draw(st.sampled_from([None, 1_500])),
        fixed_cost=draw(st.sampled_from([None, 4_000])),
        storage_per_tb_month=draw(st.sampled_from([None, 20])),
        egress_per_tb=draw(st.sampled_from([None, 90])),
    )
    buy = offer(
        mode="buy",
        id="b",
        lead_time_days=draw(st.sampled_from([0, 20, 45])),
        import_duty_pct=draw(st.sampled_from([None, 0.05])),
        vat_pct=draw(st.sampled_from([None, 0.13])),
        **{k: v for k, v in extras().items() if k != "egress_per_tb"},
    )
    not_bought = {k: v for k, v in extras().items() if k != "network_per_node"}
    rent = offer(mode="rent", id="r", setup_fee_per_node=draw(st.sampled_from([0, 800])), **not_bought)
    cloud = offer(mode="cloud", id="c", price_per_node_hour=98.0, **not_bought)
    offers = {o.id: o for o in (buy, rent, cloud)}
    decisions = []
    for i in range(3):
        oid = draw(st.sampled_from(["b", "r", "c"]))
        nodes = draw(st.integers(1, 3))
        decisions.append(
            Decision(
                f"w{i}",
                oid,
                nodes,
                8 * nodes,
                draw(st.integers(24, 900)) * 1.0,
                float(draw(st.integers(0, horizon * 30 - 40))),
            )
        )
    bought = max([d.nodes for d in decisions if d.offer_id == "b"], default=0)
    purchases = {"b": bought} if bought else {}
    contracts = []
    for d in decisions:
        if d.offer_id == "r":
            start = costs.contract_at("r", d.nodes, d.start_day, 1, p.calendar)
            end = costs.job_end_day(rent, d.start_day, d.hours)
            months = max(1, p.calendar.months_until(start.phase_days, start.start_month, end))
            months = min(months, horizon - start.start_month)
            contracts.append(RentalContract("r", d.nodes, start.start_month, months, None, start.phase_days))
    return p, offers, decisions, purchases, contracts


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_plans())
def test_every_view_of_the_ledger_equals_the_cost_model_summed_independently(case):
    p, offers, decisions, purchases, contracts = case
    book = ledger.ledger(p, offers, decisions, purchases, contracts)
    flows = oracle_flows(p, offers, decisions, purchases, contracts)
    assert len(set(book.keys())) == len(book.entries)
    # every amount is what its kind's formula template makes of the entry's fields (solver.formulas)
    assert formula_problems(book.entries, p, _close) == []
    got = book.flows()
    for c in CATEGORIES:
        for m in set(got[c]) | set(flows[c]):
            assert _close(got[c].get(m, 0.0), flows[c].get(m, 0.0)), (c, m)
    assert all(_close(book.by_category()[c], sum(flows[c].values())) for c in CATEGORIES)
    by_month = [sum(flows[c].get(m, 0.0) for c in CATEGORIES) for m in range(p.horizon_months)]
    assert all(_close(a, b) for a, b in zip(book.by_month(), by_month, strict=True))
    running, acc = [], 0.0
    for v in by_month:
        acc += v
        running.append(acc)
    assert all(_close(a, b) for a, b in zip(book.cumulative(), running, strict=True))
    assert _close(book.peak_cash_out(), max([0.0, *running]))
    assert _close(book.capex(), sum(flows["capex"].values()))
    assert _close(book.total(), sum(by_month))
    df = [(1 + p.discount_rate) ** (-(m + 1) / 12) for m in range(p.horizon_months)]
    assert _close(book.present_value(), sum(v * f for v, f in zip(by_month, df, strict=True)))
    pnl = book.pnl_years()
    want = oracle_pnl(p, offers, purchases, flows)
    assert len(pnl) == len(want)
    for y, (dep, op, interest, gain) in zip(pnl, want, strict=True):
        assert _close(y.depreciation, dep) and _close(y.operating, op)
        assert _close(y.interest, interest) and _close(y.disposal_gain, gain)
    assert _close(sum(y.cost for y in pnl), book.total())
    # the plan reads the same views
    plan = build_plan(p, offers, decisions, purchases, contracts)
    assert _close(plan.total_cost, book.total()) and _close(plan.npv_cost, book.present_value())
    assert _close(sum(a.cost for a in plan.assignments), plan.total_cost)


# --- reports only format ---------------------------------------------------------------------------------


def test_every_function_of_the_cost_model_is_banned_in_reports():
    """ruff's banned-api (TID251) keeps the cost model's functions out of reports/: a function added to
    solver.costs must be added to the list in pyproject.toml, or a report could price with it unseen."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    lint = cfg["tool"]["ruff"]["lint"]
    assert "TID251" in lint["select"]
    assert lint["per-file-ignores"]["!reports/**"] == ["TID251"]
    banned = set(lint["flake8-tidy-imports"]["banned-api"])
    functions = {
        f"procure.solver.costs.{name}"
        for name, fn in vars(costs).items()
        if callable(fn)
        and not name.startswith("_")
        and not inspect.isclass(fn)
        and getattr(fn, "__module__", "").startswith("procure.")
    }
    assert functions - banned == set()
    assert "procure.solver.ledger.ledger" in banned


def test_every_ledger_entry_becomes_one_cost_line_with_its_amount_and_formula():
    # a financed purchase (its interest line is Excel's CUMIPMT), a job's busy energy and storage on it
    from procure.reports.lines import line_items

    from helpers import solve_fixed

    p = project(
        [dict(name="a", model="llama-2-7b", method="lora", tokens_b=0.1, deadline_days=60, dataset_tb=1.0)],
        horizon_months=12,
        financing={"annual_rate": 0.08, "months": 24, "down_payment_pct": 0.25},
    )
    o = offer(mode="buy", id="b", price_per_node=100_000, storage_per_tb_month=20, network_per_node=500)
    res = solve_fixed(p, [o], {("a", "b", 1): 100})
    items = line_items(res)
    book = res.plan.ledger
    assert [i.key for i in items] == book.keys()
    assert all(i.amount == book[i.key].amount for i in items)
    interest = next(i for i in items if i.key == "buy:b:interest")
    assert interest.expr == "-CUMIPMT({I}/12,24,{D}*{G},1,{E},0)"
    assert interest.quantity == 11.0  # instalments paid in months 2–12 of the horizon
    assert interest.unit_price == pytest.approx(75_000)  # 75 % of the price financed
    assert sum(i.amount for i in items) == pytest.approx(res.plan.total_cost)


def test_every_kind_the_ledger_prices_has_its_words_and_a_formula_in_the_reports():
    """A kind the ledger adds without a formula template would fail the Costs sheet (as the loan interest once
    did) and the verifier's formula check: the ledger's vocabulary (KINDS) and its templates (EXPR) agree."""
    assert set(ledger.EXPR) == set(ledger.KINDS)


def test_the_ledger_is_indexed_by_key_and_prefix_and_answers_as_a_scan_does():
    p, offers, decisions, purchases, contracts = _every_kind_plan()
    book = ledger.ledger(p, offers, decisions, purchases, contracts)
    keys = book.keys()
    prefixes = {k[: i + 1] for k in keys for i, ch in enumerate(k) if ch == ":"} | {"buy:b:cap", "job", "rent1", "x:"}
    for prefix in prefixes:
        assert book.of(prefix) == [e for e in book.entries if e.key.startswith(prefix)], prefix
    assert all(book[k] is e for k, e in zip(keys, book.entries, strict=True))
    assert book.get("nothing") is None
    with pytest.raises(KeyError):
        book["nothing"]


def _every_kind_plan():
    p = project(
        [dict(name=f"w{i}", model="llama-2-7b", method="lora", tokens_b=0.1, deadline_days=300) for i in range(3)],
        horizon_months=12,
        staff={"nodes_per_fte": 4, "cost_per_fte_year": 96_000, "modes": ["buy", "rent"]},
    )
    offers = {
        o.id: o
        for o in (
            offer(mode="buy", id="b", price_per_node=60_000, fixed_cost=2_000),
            offer(mode="rent", id="r", setup_fee_per_node=500),
            offer(mode="cloud", id="c", price_per_node_hour=30.0),
        )
    }
    decisions = [
        Decision("w0", "b", 1, 8, 100.0, 0.0),
        Decision("w1", "b", 1, 8, 300.0, 10.0),
        Decision("w2", "r", 2, 16, 200.0, 40.0),
    ]
    return p, offers, decisions, {"b": 2}, [RentalContract("r", 2, 1, 1), RentalContract("r", 1, 3, 2)]


def test_capacity_and_staff_are_shared_by_node_hours():
    # w0 and w1 share the purchase and the fixed charge of b by node-hours (1×100 : 1×300 = 1 : 3); the staff
    # is shared by the node-hours of all three jobs, on bought and rented nodes (100 : 300 : 2×200 = 1 : 3 : 4)
    p, offers, decisions, purchases, contracts = _every_kind_plan()
    book = ledger.ledger(p, offers, decisions, purchases, contracts)
    alloc = ledger.allocate(book, decisions, offers, ("buy", "rent"))
    bought = sum(e.amount for e in book.of("buy:b:")) + book["fixed:b"].amount
    rented = sum(e.amount for e in book.of("rent0:") + book.of("rent1:"))
    staff = book["staff"].amount
    own = {d.workload: sum(e.amount for e in book.of(f"job{i}:")) for i, d in enumerate(decisions)}
    assert alloc.cost["w0"] == pytest.approx(own["w0"] + bought / 4 + staff / 8)
    assert alloc.cost["w1"] == pytest.approx(own["w1"] + bought * 3 / 4 + staff * 3 / 8)
    assert alloc.cost["w2"] == pytest.approx(own["w2"] + rented + staff / 2)
    assert alloc.idle == 0.0
    assert sum(alloc.cost.values()) == pytest.approx(book.total())
