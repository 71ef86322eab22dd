"""What a cleaner plan costs: the cost–emissions frontier of a programme (``procure frontier --carbon``).

Method (a carbon price swept by dichotomy: the weighted-sum scalarization of the two objectives, whose weight is
the carbon price; Aneja & Nair 1979, "Bicriteria transportation problem", Management Science 25(1)):

    min  cost(plan) + p · tCO2e(plan)

where cost is the plan's undiscounted TCO without any carbon price and tCO2e its operational emissions
(solver.emissions: the energy the cost model draws × the grid intensity of each offer's region). That is exactly
what the planner minimises with ``carbon_price_per_t = p`` in the reporting currency (solver.costs, "Carbon"), so
each point is a full plan of the planner, checked by its verifier, with no new row in the model.

Steps. The first point is the cheapest plan (p = 0); the cleanest is the plan at p = ``TOP_PRICE`` (a price no
cost difference outweighs). Between two points A (cheaper, dirtier) and B (cleaner, dearer) the plan is solved at
their break-even price p = (cost_B − cost_A) / (t_A − t_B): a plan that costs less than A and B at that price lies
between them on the frontier and both gaps are searched again; none does: A and B are neighbours. Each point is
the cheapest plan for every carbon price between its break-even with the point before and with the point after
(``low``, ``high``). The search finds every plan on the lower convex hull of the cost–emissions trade-off (a plan
above the hull is the cheapest at no carbon price and is not traced), with ``points`` solves at most.

A point solved only to a gap can cost no less than a point that emits less: it is dominated, left out, and the
frontier says how many were (``dropped``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from procure.common.errors import InputError, Problem
from procure.common.runtime import Budget
from procure.solver.enums import Objective
from procure.solver.reasons import Msg, say

if TYPE_CHECKING:
    from procure.models.offer import Offer
    from procure.models.project import Project
    from procure.solver.result import Result

from procure.fileio.limits import MAX_CARBON_PRICE

TOL = 1e-6
#: the carbon price of the cleanest point, per tCO2e in the reporting currency (the most a project may set)
TOP_PRICE = MAX_CARBON_PRICE
MAX_POINTS = 50  # solves on one frontier at most


@dataclass
class CarbonPoint:
    """A verified plan: its TCO without a carbon price, its emissions, and the carbon prices it is cheapest at."""

    result: Result
    price: float  # the carbon price per tCO2e it was solved at (reporting currency)
    cost: float  # its undiscounted TCO without the carbon price
    tco2e: float
    low: float = 0.0  # the cheapest plan from this carbon price …
    high: float | None = None  # … up to this one (None: any higher price)

    @property
    def plan(self):
        return self.result.planned()


@dataclass
class CarbonFrontier:
    """The points from the cheapest plan to the cleanest, in falling emissions (rising cost)."""

    base: Result  # the cheapest plan's result (no carbon price): its status says why there is no frontier
    project: Project  # the project without a carbon price
    points: list[CarbonPoint]
    solves: int
    note: Msg | str = ""
    dropped: int = 0  # points solved to a gap that cost no less than a point that emits less

    @property
    def cheapest(self) -> CarbonPoint:
        return self.points[0]


def without_carbon_price(project: Project) -> Project:
    """The project with no carbon price (the frontier sets its own)."""
    return project.model_copy(
        update={
            "carbon_price_per_t": None,
            "carbon_price_currency": None,
            "carbon_price_change_pct_per_year": None,
            "carbon_price_by_year": None,
        }
    )


def _point(project: Project, r: Result, price: float) -> CarbonPoint | None:
    from procure.solver.emissions import plan_emissions

    if r.plan is None:
        return None
    plan = r.planned()
    e = plan_emissions(project, r.offers, plan)
    cost = plan.total_cost - plan.breakdown.get("carbon", 0.0)
    return CarbonPoint(r, price, cost, e.tco2e if e is not None else 0.0)


def break_even(a: CarbonPoint, b: CarbonPoint) -> float | None:
    """The carbon price at which ``a`` and ``b`` cost the same: (cost_b − cost_a) / (t_a − t_b); None when the
    cleaner one is not dearer (one dominates the other)."""
    dt = a.tco2e - b.tco2e
    if dt <= TOL or b.cost <= a.cost + TOL:
        return None
    return (b.cost - a.cost) / dt


def trace_carbon(
    project: Project,
    offers: list[Offer],
    sizings,
    resize,
    *,
    points: int = 8,
    solver: str = "cbc",
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
    budget: Budget | None = None,
    progress=None,
) -> CarbonFrontier:
    """The cost–emissions frontier with ``points`` solves at most (≥ 2) (module docstring). ``progress(k, point)``
    is called as each plan is found."""
    from procure.solver.planner import plan_from_sizings

    if not 2 <= points <= MAX_POINTS:
        raise InputError([Problem("command line", "--points", f"{points} points: give 2 to {MAX_POINTS}")])
    if Objective(objective) != Objective.TCO:
        raise InputError(
            [
                Problem(
                    "command line",
                    "--objective",
                    f"--carbon traces the undiscounted TCO against the tonnes emitted; give --objective tco "
                    f"(got {objective})",
                )
            ]
        )
    budget = budget or Budget(None)
    clean = without_carbon_price(project)
    names = {w.name for w in clean.workloads}
    sizings = [s for s in sizings if s.workload.name in names]
    kw: dict[str, Any] = dict(solver=solver, gap=gap, objective=Objective.TCO, compare=False, n_runner_ups=0)
    solves = 0
    found: list[CarbonPoint] = []

    def at(price: float) -> CarbonPoint | None:
        nonlocal solves
        left = budget.remaining()
        if solves >= points or (left is not None and left <= 0):
            return None
        solves += 1
        priced = clean.model_copy(update={"carbon_price_per_t": price}) if price else clean
        r = plan_from_sizings(priced, offers, sizings, resize, budget=budget.share(1.0 / max(1, points - solves + 1)),
                              all_or_nothing=True, **kw)  # fmt: skip
        p = _point(priced, r, price)
        if p is not None:
            found.append(p)
            if progress is not None:
                progress(len(found) - 1, p)
        return p

    first = at(0.0)
    if first is None:
        base = plan_from_sizings(clean, offers, sizings, resize, budget=budget, all_or_nothing=True, **kw)
        return CarbonFrontier(base, clean, [], solves, note=say("no plan: nothing to trace"))
    cleanest = at(TOP_PRICE) if first.tco2e > TOL else None
    note: Msg | str = ""
    if cleanest is not None and cleanest.tco2e < first.tco2e - TOL:
        pending = [(first, cleanest)]
        while pending:
            a, b = pending.pop()
            price = break_even(a, b)
            if price is None:
                continue
            mid = at(price)
            if mid is None:
                note = say("the points or the time limit ended the search: points between may be missing")
                break
            # a plan cheaper than both at their break-even price lies between them on the frontier
            if mid.cost + price * mid.tco2e < a.cost + price * a.tco2e - max(TOL, 1e-9 * abs(a.cost)):
                pending += [(mid, b), (a, mid)]
    elif first.tco2e <= TOL:
        note = say("the cheapest plan emits nothing priced: it is also the cleanest")
    else:
        note = say("no plan emits less than the cheapest plan")
    curve = _non_dominated(found)
    for k, p in enumerate(curve):
        p.low = 0.0 if k == 0 else (break_even(curve[k - 1], p) or 0.0)
        p.high = break_even(p, curve[k + 1]) if k + 1 < len(curve) else None
    return CarbonFrontier(
        first.result, clean, curve, solves, note=note, dropped=len(found) - len(curve) - _repeats(found)
    )


def _key(p: CarbonPoint) -> tuple[float, float]:
    return round(p.tco2e, 9), round(p.cost, 6)


def _repeats(found: list[CarbonPoint]) -> int:
    """Solves that returned a plan already found (the same cost and tonnes): not points, not dropped either."""
    return len(found) - len({_key(p) for p in found})


def _non_dominated(found: list[CarbonPoint]) -> list[CarbonPoint]:
    """The points on the curve, by falling emissions: a point that costs at least as much (to ``TOL``) as a point
    that emits no more is left out; the same plan found twice is kept once."""
    best = math.inf
    out: list[CarbonPoint] = []
    seen: set[tuple[float, float]] = set()
    for p in sorted(found, key=lambda q: (q.tco2e, q.cost)):
        if _key(p) in seen:
            continue
        seen.add(_key(p))
        if p.cost < best - TOL:
            out.append(p)
        best = min(best, p.cost)
    return sorted(out, key=lambda q: (-q.tco2e, q.cost))


def plan_carbon_frontier(project: Project, offers: list[Offer], *, points: int = 8, **kw) -> CarbonFrontier:
    """Size the programme, then trace its cost–emissions frontier (``trace_carbon``)."""
    from procure.solver import holdings
    from procure.solver.planner import Resizer, check_holdings
    from procure.solver.sizing import size_project

    check_holdings(project, offers)
    offers = holdings.with_owned(project, offers)
    sizings = size_project(project, offers)
    return trace_carbon(project, offers, sizings, Resizer(project), points=points, **kw)


__all__ = ["CarbonFrontier", "CarbonPoint", "TOP_PRICE", "break_even", "plan_carbon_frontier", "trace_carbon"]
