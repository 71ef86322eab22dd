"""The range of the recommended plan: its TCO at the P50 and P90 hours of the calibrated band, and the
probability that it runs as decided, with the plan held fixed (re-costed, not re-optimized).

The re-cost is the Monte Carlo's first step (``recost.as_decided``): a job whose predecessor on the same
nodes runs late starts when they are free, a rented job that overruns extends its contract, and only a
missed deadline or capacity the plan does not hold makes it not run as decided.

The band (solver/sizing/band.py) is one multiplier r on every job's hours, drawn from a two-piece
lognormal through the band's P10, P50 and P90 (one factor for all jobs: the estimate's error is mostly
common to them, the in-step MFU and the goodput of one stack). With the plan fixed, its TCO can only
rise with r (every job runs, bills and uses energy longer; a rental is extended, never shortened) and
the plan can only stop running as decided as r grows (a job ends later). So both are monotone in r
and computed exactly, not by sampling:

* TCO P50 = the plan's TCO at r = hours_multiplier(0.5) = 1 (the estimate is the median), P90 at
  hours_multiplier(0.9);
* P(runs as decided) = the largest quantile u at which the re-costed plan still runs as decided, found by
  bisection on u to 1/1000 in at most 12 re-costs.

At most 14 re-costs of one plan, each a cost-model pass and a verification, done once by the solve
(``procure.app.solve``) and kept on the result (``Result.risk``): the reports only read it.
"""

from __future__ import annotations

from procure.solver.plan import Plan
from procure.solver.result import PlanRisk
from procure.solver.sizing.band import hours_multiplier

from .recost import AsDecided, as_decided
from .scenario import Baseline, Scenario

__all__ = ["PlanRisk", "plan_risk", "METHOD", "RESOLUTION"]

#: the bisection's resolution on the probability
RESOLUTION = 1e-3
METHOD = "exact for one hours multiplier common to all jobs, the plan held fixed"


def _recost(base: Baseline, plan: Plan, r: float, modes) -> AsDecided:
    """The decided plan with every job's hours × r (the shapes were re-sized when the plan was verified)."""
    a = base.apply(Scenario.of(f"band×{r:.4f}", {"mfu": 1.0 / r}))
    return as_decided(plan, a, r, modes)


def _cost(got: AsDecided) -> float:
    priced = got.plan or got.priced
    assert priced is not None
    return priced.total_cost


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
    p50 = _cost(_recost(base, plan, hours_multiplier(0.5), modes))
    p90 = _cost(_recost(base, plan, hours_multiplier(0.9), modes))
    lo, hi = 0.0, 1.0 - RESOLUTION  # runs at u → runs at every smaller u
    if _recost(base, plan, hours_multiplier(hi), modes).runs:
        lo = hi
    elif not _recost(base, plan, hours_multiplier(RESOLUTION), modes).runs:
        hi = lo = 0.0
    else:
        lo = RESOLUTION
        while hi - lo > RESOLUTION:
            mid = (lo + hi) / 2
            if _recost(base, plan, hours_multiplier(mid), modes).runs:
                lo = mid
            else:
                hi = mid
    return PlanRisk(p50, p90, lo, METHOD)
