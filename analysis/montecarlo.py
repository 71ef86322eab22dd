"""Monte Carlo: draw N scenarios from ``analysis.uncertainty``, re-optimize every strategy in each,
and measure what today's decision risks.

Draws: each uncertain driver independently (the ``mfu`` driver, unless declared, from the calibrated
band of hours, also when nothing else is declared: ``distributions``), triangular(low, mode, high) or normal(mean, sd) truncated
to [low, high] (redrawn until inside), from one ``numpy.random.Generator`` seeded with
``analysis.seed`` — all N scenarios are drawn before any is solved, so the figures depend on the seed
only, not on the number of workers or the order results come back in.

Per strategy s over the scenarios where s has a plan: the P10 / P50 / P90 of its optimal TCO (the
value not exceeded in 10 / 50 / 90% of them; linear interpolation between order statistics).

Win probability: the share of scenarios in which s is the cheapest strategy. The free (hybrid)
optimum is never dearer than a single-mode one, so a single mode *wins* when its optimum ties the free
one (within 1e-6 relative): the mixed plan then buys nothing extra. ``hybrid`` wins when mixing modes
is strictly cheaper than every single mode.

Regret of the decided plan: today's optimal plan is kept as decided — same offers, node counts, start
days, purchases, contracts — and only re-costed under the scenario (analysis/recost.py); it is NOT
re-optimized. Its regret in scenario j is

    regret_j = cost_j(decided plan) − z_j,   z_j = min(scenario optimum, cost_j(decided plan)) ≥ 0

(the min only matters when the solver stopped within its gap above a plan we know: then the known
plan is the better optimum). Scenarios in which the decided plan cannot run as decided (a job now
misses its deadline, or jobs now overlap on the same nodes) have no regret figure and are counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from procure.models.analysis import DRIVERS, AnalysisSettings, Normal, Triangular
from procure.solver.costs import Objective
from procure.solver.enums import SolveStatus
from procure.solver.planner import STRATEGIES
from procure.solver.sizing.band import draw_execution_factors, hours_multiplier
from procure.solver.sizing.constants import constant

from .engine import ScenarioOutcome
from .scenario import Scenario

SINGLE = ("buy", "rent", "cloud")
TIE = 1e-6


@dataclass(frozen=True)
class HoursBand:
    """The execution factor (solver/sizing/band.py) as the ``mfu`` driver's distribution: each scenario draws
    u ~ U(0, 1) and a team at the band's u-quantile, i.e. mfu = execution factor ÷ its median =
    1 / hours_multiplier(u) (a two-piece lognormal through P10, P50, P90 of published ÷ estimated hours of
    comparable runs): a slower team, the same on every GPU (band.EXECUTION_PROVENANCE)."""

    dist: str = "hours band"

    @property
    def bounds(self) -> tuple[float, float]:
        return 1.0 / hours_multiplier(1 - 1e-6), 1.0 / hours_multiplier(1e-6)


def distributions(settings: AnalysisSettings) -> dict[str, Triangular | Normal | HoursBand]:
    """The distributions drawn: the declared ones, and for the ``mfu`` driver, unless it is declared, the
    calibrated band of hours (``HoursBand``), also when nothing is declared at all, so a Monte Carlo
    study always draws at least the hours; ``mfu: null`` holds it at today's value."""
    out: dict[str, Triangular | Normal | HoursBand] = {
        str(d): dist for d, dist in settings.uncertainty.items() if dist is not None
    }
    if "mfu" not in settings.uncertainty:
        out["mfu"] = HoursBand()
    return out


def draw(settings: AnalysisSettings, n: int | None = None, seed: int | None = None) -> list[Scenario]:
    """N scenarios drawn from ``distributions`` (drivers in the documented order)."""
    n = settings.scenarios if n is None else n
    rng = np.random.default_rng(settings.seed if seed is None else seed)
    declared = distributions(settings)
    dists = [(d, declared[d]) for d in DRIVERS if d in declared]
    values: dict[str, np.ndarray] = {}
    for d, dist in dists:
        values[d] = _sample(rng, dist, n)
    return [Scenario.of(f"mc{j:05d}", {d: float(values[d][j]) for d, _ in dists}) for j in range(n)]


def _sample(rng: np.random.Generator, dist, n: int) -> np.ndarray:
    if isinstance(dist, HoursBand):  # the execution factor relative to its median (the P50 the hours assume)
        return np.asarray(draw_execution_factors(list(rng.random(n)))) / constant("EXECUTION_FACTOR")
    if isinstance(dist, Triangular):
        if dist.low == dist.high:
            return np.full(n, dist.low)
        return rng.triangular(dist.low, dist.mode, dist.high, size=n)
    if isinstance(dist, Normal):
        out = np.empty(0)
        while out.size < n:  # truncation by rejection keeps the normal's shape inside the bounds
            x = rng.normal(dist.mean, dist.sd, size=2 * n)
            out = np.concatenate([out, x[(x >= dist.low) & (x <= dist.high)]])
        return out[:n]
    raise TypeError(f"unknown distribution {dist!r}")


def winner(o: ScenarioOutcome, metric: str = "tco") -> str | None:
    """The cheapest strategy of one scenario on the objective's ``metric`` (tco or npv; single modes win
    ties), None when the free one has no plan."""

    value = Objective(metric).of

    free = o.strategies.get("hybrid")
    best = value(free) if free is not None and free.ok else None
    if best is None:
        return None
    singles: list[tuple[float, str]] = []
    for s in SINGLE:
        single = o.strategies.get(s)
        cost = value(single) if single is not None and single.ok else None
        if cost is not None:
            singles.append((cost, s))
    if singles:
        cost, s = min(singles)
        if cost <= best * (1 + TIE) + 0.01:
            return s
    return "hybrid"


def regret(o: ScenarioOutcome, metric_of_free: float | None) -> float | None:
    """Decided plan's cost minus the scenario's optimum (≥ 0), None when infeasible as decided."""
    if o.decided_cost is None:
        return None
    z = o.decided_cost if metric_of_free is None else min(metric_of_free, o.decided_cost)
    return o.decided_cost - z


def percentiles(values: list[float]) -> tuple[float | None, float | None, float | None]:
    if not values:
        return None, None, None
    p10, p50, p90 = np.percentile(np.asarray(values, dtype=float), [10, 50, 90])
    return float(p10), float(p50), float(p90)


@dataclass
class Summary:
    scenarios: int
    failed: int  # scenarios without a verified free (hybrid) plan
    strategies: dict[str, dict] = field(default_factory=dict)  # strategy -> p10, p50, p90, win_probability, plans
    regret_mean: float | None = None
    regret_p90: float | None = None
    regret_scenarios: int = 0  # scenarios with a regret figure
    decided_infeasible: int = 0  # scenarios where the decided plan cannot run as decided
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # (scenario, strategy, why) of every failure


def summarize(outcomes: list[ScenarioOutcome], metric: str = "tco") -> Summary:
    value = Objective(metric).of

    n = len(outcomes)
    failed = [o for o in outcomes if not o.strategies["hybrid"].ok]
    out = Summary(n, len(failed))
    wins: dict[str, int] = {s: 0 for s in STRATEGIES}
    decided_ok = 0
    for o in outcomes:
        w = winner(o, metric)
        if w is not None:
            wins[w] += 1
        for name, s in o.strategies.items():
            if s.status in (SolveStatus.VERIFICATION_FAILED, SolveStatus.ERROR, SolveStatus.NO_SOLUTION):
                out.failures.append((o.scenario.label, name, f"{s.status}: {s.detail}"))
    ok = n - len(failed)
    for name in STRATEGIES:
        vals = [value(o.strategies[name]) for o in outcomes if name in o.strategies and o.strategies[name].ok]
        p10, p50, p90 = percentiles(vals)
        out.strategies[name] = dict(
            p10=p10, p50=p50, p90=p90, win_probability=(wins[name] / ok if ok else None), plans=len(vals)
        )
    regrets = []
    for o in outcomes:
        free = o.strategies["hybrid"]
        r = regret(o, value(free) if free.ok else None)
        if r is None:
            out.decided_infeasible += 1
        else:
            decided_ok += 1
            regrets.append(r)
    if regrets:
        out.regret_mean = float(np.mean(regrets))
        out.regret_p90 = float(np.percentile(regrets, 90))
    out.regret_scenarios = decided_ok
    return out
