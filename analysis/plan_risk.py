"""The range of the recommended plan: its TCO at the P50 and P90 hours of the calibrated band, and the
probability that it runs as decided, with the plan held fixed (re-costed, not re-optimized).

The band (solver/sizing/band.py) is one multiplier r on every job's hours, drawn from a two-piece
lognormal through the band's P10, P50 and P90 (one factor for all jobs: the estimate's error is mostly
common to them, the in-step MFU and the goodput of one stack). With the plan fixed, its TCO can only
rise with r (every job runs, bills and uses energy longer; a rental is extended, never shortened) and
the plan can only stop running as decided as r grows (a job ends later). So both are monotone in r
and computed exactly, not by sampling:

* TCO P50 = the plan's TCO at r = hours_multiplier(0.5) = 1 (the estimate is the median), P90 at
  hours_multiplier(0.9);
* P(runs as decided) = the largest quantile u at which the re-costed plan still passes the verifier
  (each job meets its deadline at the drawn hours, no two jobs overlap on the same nodes), found by
  bisection on u to 1/1000 in at most 12 re-costs.

At most 14 re-costs of one plan, each a cost-model pass and a verification: bounded and cheap.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from procure.solver.plan import Plan, build_plan
from procure.solver.sizing.band import hours_multiplier
from procure.solver.verify import VerificationError, verify_plan

from .recost import extend_rentals
from .scenario import Applied, Baseline, Scenario

#: the bisection's resolution on the probability
RESOLUTION = 1e-3
METHOD = "exact for one hours multiplier common to all jobs, the plan held fixed"


@dataclass(frozen=True)
class PlanRisk:
    tco_p50: float
    tco_p90: float
    runs_as_decided: float  # probability, 0..1
    method: str = METHOD


def _recost(base: Baseline, plan: Plan, r: float, modes) -> tuple[Plan, bool]:
    """The decided plan with every job's hours × r: (re-costed plan, whether it runs as decided)."""
    a: Applied = base.apply(Scenario.of(f"band×{r:.4f}", {"mfu": 1.0 / r}))
    decisions = [dataclasses.replace(d, hours=d.hours * r) for d in plan.decisions]
    purchases = {p.offer_id: p.nodes for p in plan.purchases}
    contracts = extend_rentals([x.contract for x in plan.rentals], decisions, a)
    out = build_plan(a.project, a.offers, decisions, purchases, contracts)
    try:  # the shapes were re-sized when the plan was verified; only the hours move here
        verify_plan(a.project, a.offers, out, None, modes)
    except VerificationError:
        return out, False
    return out, True


def _no_resize(workload, offer, nodes):
    return None


def plan_risk(result) -> PlanRisk | None:
    """The recommended plan's TCO at the band's P50 and P90 hours and the probability it runs as decided;
    None without a plan."""
    plan = result.plan
    if plan is None:
        return None
    base = Baseline(result.project, list(result.offers.values()), result.sizings, _no_resize)
    modes = result.hybrid.modes
    p50, _ = _recost(base, plan, hours_multiplier(0.5), modes)
    p90, _ = _recost(base, plan, hours_multiplier(0.9), modes)
    lo, hi = 0.0, 1.0 - RESOLUTION  # feasible at u → feasible at every smaller u
    if _recost(base, plan, hours_multiplier(hi), modes)[1]:
        lo = hi
    elif not _recost(base, plan, hours_multiplier(RESOLUTION), modes)[1]:
        hi = lo = 0.0
    else:
        lo = RESOLUTION
        while hi - lo > RESOLUTION:
            mid = (lo + hi) / 2
            if _recost(base, plan, hours_multiplier(mid), modes)[1]:
                lo = mid
            else:
                hi = mid
    return PlanRisk(p50.total_cost, p90.total_cost, lo)


def risk_of(result) -> PlanRisk | None:
    """``plan_risk`` computed once per result (kept on it for every report that shows it)."""
    if not hasattr(result, "_plan_risk"):
        object.__setattr__(result, "_plan_risk", plan_risk(result))
    return result._plan_risk
