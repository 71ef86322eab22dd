"""The decided plan under a scenario: re-costed, NOT re-optimized.

What is decided today stays: every workload keeps its offer, node count and start day; purchases keep
their node counts; rental contracts keep their months. What the scenario changes flows through the cost
model: prices, electricity, resale value, the costs beyond the servers (fixed charges, network,
storage and egress, staff: build_plan prices them as for any plan), and the hours (× tokens ÷ MFU
factor) — a cloud job simply runs and bills longer. A rented job that now runs past its contract is covered by extending a
contract of that offer that has ended before the month it lacks (month by month, no new setup fee);
only when no contract can be extended is a new one of the minimum term signed. Anything the decided
plan can no longer do — a job that now ends after its (slipped) deadline, two jobs on the same nodes
that now overlap — makes it infeasible as decided: the verifier says which rule broke.

The result is verified like any plan (``solver.verify.verify_plan``) before its cost is used.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

from procure.models.units import DAYS_PER_MONTH
from procure.solver import costs
from procure.solver.costs import RentalContract
from procure.solver.plan import Plan, build_plan
from procure.solver.verify import VerificationError, verify_plan

from .scenario import Applied


def decided_under(plan: Plan, a: Applied, hours_factor: float, modes) -> tuple[Plan | None, list[str]]:
    """(the decided plan re-costed under the scenario, []) or (None, the rules it breaks there)."""
    decisions = [dataclasses.replace(d, hours=d.hours * hours_factor) for d in plan.decisions]
    purchases = {p.offer_id: p.nodes for p in plan.purchases}
    contracts = [r.contract for r in plan.rentals]  # each at the term tier it was signed at
    if hours_factor != 1.0:
        contracts = extend_rentals(contracts, decisions, a)
    out = build_plan(a.project, a.offers, decisions, purchases, contracts)
    try:
        verify_plan(a.project, a.offers, out, a.resize, modes)
    except VerificationError as exc:
        return None, exc.violations
    return out, []


def _need_by_month(jobs: list[tuple[float, float, int]], n_months: int) -> list[int]:
    """Most nodes running at once in each month, from the actual job intervals (start, end, nodes)."""
    need = [0] * n_months
    points = sorted(
        {s for s, _e, _n in jobs} | {e for _s, e, _n in jobs} | {m * DAYS_PER_MONTH for m in range(n_months + 1)}
    )
    for lo, hi in zip(points, points[1:], strict=False):
        if hi - lo <= 1e-9:
            continue
        mid = (lo + hi) / 2
        use = sum(n for s, e, n in jobs if s <= mid < e)
        m = costs.month_of(mid)
        if use and m < n_months:  # beyond the horizon no contract can cover it: the verifier says so
            need[m] = max(need[m], use)
    return need


def extend_rentals(contracts: list[RentalContract], decisions, a: Applied) -> list[RentalContract]:
    """Cover every month a rented job now runs in (see the module docstring)."""
    M = a.project.horizon_months
    jobs: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    for d in decisions:
        o = a.offers[d.offer_id]
        if o.mode == "rent":
            jobs[o.id].append((d.start_day, costs.job_end_day(o, d.start_day, d.hours), d.nodes))
    out = [c for c in contracts if c.offer_id not in jobs]
    for oid, intervals in jobs.items():
        mine = [c for c in contracts if c.offer_id == oid]
        need = _need_by_month(intervals, M)
        for m in range(M):
            while True:
                have = sum(c.nodes for c in mine if c.start_month <= m < c.start_month + c.months)
                short = need[m] - have
                if short <= 0:
                    break
                # a rent contract (any term tier: a minimum length) can run longer at its rate; a reserved term cannot
                ended = [c for c in mine if c.start_month + c.months <= m and a.offers[oid].mode == "rent"]
                if ended:
                    c = max(ended, key=lambda c: (c.start_month + c.months, c.nodes))
                    take = min(short, c.nodes)
                    mine.remove(c)
                    if c.nodes > take:
                        mine.append(dataclasses.replace(c, nodes=c.nodes - take))
                    mine.append(dataclasses.replace(c, nodes=take, months=m + 1 - c.start_month))
                else:
                    term = a.offers[oid].min_term
                    mine.append(RentalContract(oid, short, m, term))
        out += mine
    return out
