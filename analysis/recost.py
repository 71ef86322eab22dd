"""The decided plan under a scenario: re-costed, NOT re-optimized.

What is decided today stays: every workload keeps its offer, node count and start day; purchases keep
their node counts; rental contracts keep their months. What the scenario changes flows through the cost
model: prices, electricity, resale value, the costs beyond the servers (fixed charges, network,
storage and egress, staff: build_plan prices them as for any plan), and the hours (× tokens ÷ MFU
factor) — a cloud job simply runs and bills longer. A rented job that now runs past its contract is covered by extending a
contract of that offer that has ended before the day it lacks (by whole months of the contract's own, no
new setup fee); only when no contract can be extended is a new one signed from that day. Anything the decided
plan can no longer do — a job that now ends after its (slipped) deadline, two jobs on the same nodes
that now overlap — makes it infeasible as decided: the verifier says which rule broke.

The result is verified like any plan (``solver.verify.verify_plan``) before its cost is used.
"""

from __future__ import annotations

import dataclasses
import math
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


def extend_rentals(contracts: list[RentalContract], decisions, a: Applied) -> list[RentalContract]:
    """Cover every day a rented job now runs (see the module docstring), on the contracts' own months."""
    jobs: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    for d in decisions:
        o = a.offers[d.offer_id]
        if o.mode == "rent":
            jobs[o.id].append((d.start_day, costs.job_end_day(o, d.start_day, d.hours), d.nodes))
    out = [c for c in contracts if c.offer_id not in jobs]
    for oid, intervals in jobs.items():
        mine = [c for c in contracts if c.offer_id == oid]
        points = sorted(
            {s for s, _e, _n in intervals}
            | {e for _s, e, _n in intervals}
            | {d for c in mine for d in (c.start_day, c.end_day)}
        )
        for lo, hi in zip(points, points[1:], strict=False):
            if hi - lo <= 1e-9:
                continue
            mid = (lo + hi) / 2
            use = sum(n for s, e, n in intervals if s <= mid < e)
            if use:
                _cover(mine, oid, use, lo, hi, a)
        out += mine
    return out


def _cover(mine: list[RentalContract], oid: str, use: int, lo: float, hi: float, a: Applied) -> None:
    """Hold ``use`` nodes of ``oid`` over [lo, hi): extend the contracts that ended last (a rent contract of any
    term tier, a minimum length, can run longer at its rate), else sign new ones from ``lo``."""
    mid, M = (lo + hi) / 2, a.project.horizon_months
    while True:
        short = use - sum(c.nodes for c in mine if c.start_day <= mid < c.end_day)
        if short <= 0:
            return
        # a commitment is as signed: it is never extended (solver.holdings)
        ended = [c for c in mine if c.end_day <= mid and a.offers[oid].mode == "rent" and not c.committed]
        if ended:
            c = max(ended, key=lambda c: (c.end_day, c.nodes))
            take = min(short, c.nodes)
            mine.remove(c)
            if c.nodes > take:
                mine.append(dataclasses.replace(c, nodes=c.nodes - take))
            # whole months of its own, paid within the horizon: what lies beyond is left for the verifier to name
            months = min(math.ceil((hi - c.start_day) / DAYS_PER_MONTH - 1e-9), M - c.start_month)
            mine.append(dataclasses.replace(c, nodes=take, months=max(c.months, months)))
            if months <= c.months:
                return
        else:
            term = a.offers[oid].min_term
            new = costs.contract_at(oid, short, lo, max(term, math.ceil((hi - lo) / DAYS_PER_MONTH - 1e-9)))
            if new.start_month + term > M:
                return  # no contract of the offer can begin here and end within the horizon
            new = dataclasses.replace(new, months=min(new.months, M - new.start_month))
            mine.append(new)
            if not new.start_day <= mid < new.end_day:
                return
