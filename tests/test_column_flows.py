"""The MILP's columns priced month by month: Σ over columns of value × the column's unit cash flows equals the
ledger's flows of the plan extracted, per category and month, not only in total.

Three of the model's cost coefficients rest on an algebraic argument rather than on one code path: a job's
cost does not depend on its start (x is costed once per option), the open-ended rentals' S/E profile
(costs.open_contract_unit_flows, a telescoped sum), and the staff linearisation (G[m] at one FTE-month).
Here each column's unit flows are stated by what the column means (a job started on its own day; S[m] − S[m−1]
contracts begin in month m and pay the setup fee there, S[m] − E[m] are held in month m and pay its rent; G[m]
FTEs are paid in month m), each column's total is checked against the coefficient the builder kept
(the coefficient table, solver/milp/coefficients.py), and the solution's flows against the ledger's."""

from __future__ import annotations

import pytest
from test_planner import random_instance

from procure.solver import costs
from procure.solver.costs import CATEGORIES, RentalContract
from procure.solver.milp import Builder, extract, solve
from procure.solver.options import Grid, build_options
from procure.solver.plan import build_plan

from helpers import fixed_sizings

SEEDS = range(104)  # ≥ 100 instances with an option for every workload (2 of these have none)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def _column_flows(b: Builder, project, offers) -> dict[object, costs.Flows]:
    """Every costed column (its PuLP variable) → the cash flows of one unit of it, by category and month."""
    m, grid, M = b.m, Grid.of(project), project.horizon_months
    data = {w.name: costs.job_data(w) for w in project.workloads}
    out: dict[object, costs.Flows] = {}
    for (w, i, s), var in m.x.items():  # a job run from its own start day
        opt = m.options[w][i]
        out[var] = costs.job_flows(opt.offer, project, opt.nodes, opt.hours, grid.day_of_period(s), data[w])
    for (w, i), var in m.y.items():
        opt = m.options[w][i]
        start = grid.day_of_period(m.y_start[(w, i)])
        out[var] = costs.job_flows(opt.offer, project, opt.nodes, opt.hours, start, data[w])
    for oid, var in m.b.items():
        if not m.q or all(o != oid for o, _j in m.q):
            out[var] = costs.purchase_flows(offers[oid], project)
    for (oid, j), var in m.q.items():
        out[var] = costs.purchase_flows(offers[oid], project, offers[oid].buy_tiers[j][0])
    for (oid, L, _ph, mm), var in m.S.items():  # S[m] − S[m−1] begin in month m; S[m] − E[m] are held in month m
        term = next(t for t in costs.contract_terms(offers[oid]) if t.months == L)
        rent, setup = (
            costs.rental_month_cost(offers[oid], project, term),
            costs.rental_setup_cost(offers[oid], project, term),
        )
        fee = {mm: setup, **({mm + 1: -setup} if mm + 1 < M else {})}
        out[var] = {"rent": {mm: rent}, "setup": fee}
    for (oid, L, _ph, mm), var in m.E.items():
        if mm < M:
            term = next(t for t in costs.contract_terms(offers[oid]) if t.months == L)
            out[var] = {"rent": {mm: -costs.rental_month_cost(offers[oid], project, term)}}
    for (oid, L, ph, mm), var in m.T.items():
        contract = RentalContract(
            oid, 1, mm, L, m.T_signed.get((oid, L, ph, mm), L), m.phases[oid][ph], cal=project.calendar
        )
        out[var] = costs.rental_flows(offers[oid], contract, project)
    for oid, var in m.u.items():
        out[var] = costs.fixed_charge_flows(offers[oid], project)
    for mm, var in m.staff_G.items():  # G[m] FTEs paid in month m
        out[var] = {"staff": {mm: costs.staff_month_cost(project, mm)}}
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_columns_times_unit_flows_are_the_ledgers_flows_per_category_and_month(seed):
    p, offer_list, hours = random_instance(seed, tiers=bool(seed % 2))
    if seed % 3 == 0:  # operations staff of the bought and rented nodes: the G[m] linearisation
        staff = {"nodes_per_fte": 1 + seed % 2, "cost_per_fte_year": 60_000, "modes": ["buy", "rent"]}
        p = type(p).model_validate({**p.model_dump(by_alias=True), "staff": staff})
    offers = {o.id: o for o in offer_list}
    sizings, _resize = fixed_sizings(p, offer_list, hours)
    options, _rejected, _every = build_options(p, offers, sizings, tuple(p.allowed_modes))
    if any(not opts for opts in options.values()):
        pytest.skip("a workload has no option: nothing to solve")
    b = Builder(p, options, offers)
    model = b.build()
    info = solve(model, "cbc", None, 1e-9)
    if not info.status.has_plan:
        assert info.status == "infeasible"
        return
    unit = _column_flows(b, p, offers)
    # each column's row of the coefficient table is its flows as stated here, month by month (x: whatever its
    # start; S/E: the telescoped profile), and its coefficient their total
    kept = b.table.rows
    for var, priced in kept.items():
        assert var in unit, var.name
        assert _close(costs.total(unit[var]), priced.value), (var.name, costs.total(unit[var]), priced.value)
        table = priced.flows()
        for c in CATEGORIES:
            for mm in set(unit[var].get(c, {})) | set(table.get(c, {})):
                assert _close(unit[var].get(c, {}).get(mm, 0.0), table.get(c, {}).get(mm, 0.0)), (var.name, c, mm)
    assert all(_close(costs.total(f), 0.0) for v, f in unit.items() if v not in kept)
    # Σ value × unit flows, per category and month, against the ledger of the plan extracted
    got: costs.Flows = {c: {} for c in CATEGORIES}
    for var, flows in unit.items():
        value = var.value() or 0.0
        for c, per in flows.items():
            for mm, v in per.items():
                got[c][mm] = got[c].get(mm, 0.0) + value * v
    decisions, purchases, contracts = extract(model, p, offers)
    book = build_plan(p, offers, decisions, purchases, contracts).ledger.flows()
    for c in CATEGORIES:
        for mm in sorted(set(got[c]) | set(book[c])):
            assert _close(got[c].get(mm, 0.0), book[c].get(mm, 0.0)), (c, mm, got[c].get(mm), book[c].get(mm))
