"""Monte Carlo: draw N scenarios from ``analysis.uncertainty`` and measure what today's decision costs and
risks in each.

**What a scenario measures** (``mode``, ``procure analyze --monte-carlo-mode``):

* ``policy`` (the default, "here and now"): each strategy's plan of today is signed (purchases, rental
  contracts) and lived through the scenario (analysis/engine.py ``evaluate_scenario``): re-costed as decided
  where it runs (the *policy*: keep what is signed, a job starts when its nodes are free, a contract is
  extended where a job overruns), else the optimal recourse on top of what is signed (analysis/recourse.py).
  The figures are the **committed plan's cost**: what finance will pay for the plan it approves.
* ``recourse``: the same, with the optimal recourse solved in every scenario (a recourse may beat the policy
  even where the plan runs as decided, e.g. by moving a job to a cheaper offer).
* ``hindsight`` ("wait and see"): every strategy re-optimized in each scenario with everything free, to the
  analysis' gap. Its figures are what the best plan would have cost had the scenario been known: lower
  than the committed plan's by the value of waiting. They are not what the plan will cost.

Draws: each uncertain driver independently (the ``mfu`` driver, unless declared, from the calibrated
band of hours, also when nothing else is declared: ``distributions``), triangular(low, mode, high) or normal(mean, sd) truncated
to [low, high] (redrawn until inside while at least ``REDRAW_MIN_SHARE`` of the normal lies there, else drawn by
its inverse CDF on that share: a wide normal on a narrow range would be redrawn almost for ever), from one
``numpy.random.Generator`` seeded with ``analysis.seed`` — all N scenarios are drawn before any is solved, so the figures depend on the seed
only, not on the number of workers or the order results come back in.

Per strategy s over the scenarios where s has a plan: the P10 / P50 / P90 of its cost (committed, or in
hindsight; the value not exceeded in 10 / 50 / 90% of them; linear interpolation between order statistics).

With a committed plan, per strategy also: the share of scenarios it runs as decided (no recourse), the share
that needed recourse and what the plan cost there (mean, and mean above today's figure), and the probability
that its committed plan costs less than another strategy's (``cheaper``, over the scenarios where both have
a figure). **The value of waiting** (the expected value of perfect information plus that of flexibility,
E[committed] − E[hindsight optimum]; Birge 1982, "The value of the stochastic solution in stochastic linear
programs with fixed recourse", Math. Programming 24) is an interval: per scenario the hindsight optimum lies
between its LP bound and the best plan known, so the mean difference lies between
mean(committed − best known) and mean(committed − LP bound). The bounds are computed on the first
``bounds`` scenarios (an i.i.d. sample of the draws), and the interval is labelled with that count.

Win probability: the share of scenarios in which s is the cheapest strategy (committed plans, or hindsight optima). The free (hybrid)
optimum is never dearer than a single-mode one, so a single mode *wins* when its optimum ties the free
one (within 1e-6 relative): the mixed plan then buys nothing extra. ``hybrid`` wins when mixing modes
is strictly cheaper than every single mode.

Regret of the decided plan (``hindsight`` mode): today's optimal plan is kept as decided — same offers, node counts, start
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
#: a truncated normal is drawn by redrawing (about 1 / share rounds) while at least this share of it lies in
#: [low, high]; below it by the inverse CDF, whose cost does not depend on the share
REDRAW_MIN_SHARE = 0.05
#: a share so small that the normal is flat on [low, high] to within it: drawn uniformly there
FLAT_SHARE = 1e-9


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
        return _truncated_normal(rng, dist, n)
    raise TypeError(f"unknown distribution {dist!r}")


def _truncated_normal(rng: np.random.Generator, dist: Normal, n: int) -> np.ndarray:
    """n draws of normal(mean, sd) truncated to [low, high], in bounded time whatever sd is against the range:
    redrawn until inside (the shape kept exactly, the draws of earlier versions kept) while the range holds
    at least ``REDRAW_MIN_SHARE`` of the normal; else the inverse CDF of uniform draws on the range's share."""
    from statistics import NormalDist

    nd = NormalDist(dist.mean, dist.sd)
    lo_p, hi_p = nd.cdf(dist.low), nd.cdf(dist.high)
    share = hi_p - lo_p
    if share >= REDRAW_MIN_SHARE:
        out = np.empty(0)
        while out.size < n:  # about 1 / share rounds of 2n draws: at most about 10 at the threshold
            x = rng.normal(dist.mean, dist.sd, size=2 * n)
            out = np.concatenate([out, x[(x >= dist.low) & (x <= dist.high)]])
        return out[:n]
    if share <= FLAT_SHARE:  # the normal is flat on the range to within the share: uniform there
        return rng.uniform(dist.low, dist.high, size=n)
    u = rng.uniform(lo_p, hi_p, size=n)
    return np.clip([nd.inv_cdf(float(p)) for p in u], dist.low, dist.high)


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


def percentiles(values) -> tuple[float | None, float | None, float | None]:
    if len(values) == 0:
        return None, None, None
    p10, p50, p90 = np.percentile(np.asarray(values, dtype=float), [10, 50, 90])
    return float(p10), float(p50), float(p90)


#: per-scenario outcomes kept whole for the tables (the rest are reduced to their figures as they come)
KEEP = 1_000
#: failures listed by name
FAILURES_KEPT = 100


@dataclass
class Summary:
    scenarios: int
    failed: int  # scenarios without a verified free (hybrid) plan
    # strategy -> p10, p50, p90, win_probability, plans; with a committed plan also runs_as_decided,
    # recourse_share, recourse_mean, recourse_extra, cheaper (strategy -> probability), value_of_waiting
    # (low, high, scenarios), solved_by (path -> count)
    strategies: dict[str, dict] = field(default_factory=dict)
    regret_mean: float | None = None
    regret_p90: float | None = None
    regret_scenarios: int = 0  # scenarios with a regret figure
    decided_infeasible: int = 0  # scenarios where the decided plan cannot run as decided
    failures: list[tuple[str, str, str]] = field(
        default_factory=list
    )  # (scenario, strategy, why) of the first failures
    mode: str = "hindsight"  # policy, recourse or hindsight (module docstring)
    gap: float | None = None  # hindsight: the relative gap every re-optimization was solved to
    bounds_scenarios: int = 0  # scenarios whose hindsight optimum was bracketed (value of waiting)
    #: why the value of waiting was asked for and not computed (None: computed, or not asked for)
    bounds_missing: str | None = None
    failures_total: int = 0

    @property
    def committed(self) -> bool:
        """The figures are the committed plan's (``policy``, ``recourse``), not hindsight optima."""
        return self.mode != "hindsight"


class Stream:
    """The Monte Carlo's summary, reduced one outcome at a time (bounded memory: a few numbers per scenario and
    strategy, and the first ``KEEP`` outcomes whole for the tables)."""

    def __init__(
        self,
        metric: str = "tco",
        mode: str = "hindsight",
        today: dict[str, float | None] | None = None,
        gap: float | None = None,
        keep: int = KEEP,
    ):
        self.metric, self.mode, self.gap, self.keep = metric, mode, gap, keep
        self.value = Objective(metric).of
        self.today = today or {}
        self.n = 0
        self.failed = 0
        self.kept: list[ScenarioOutcome] = []
        self.cost: dict[str, list[float]] = {s: [] for s in STRATEGIES}  # NaN: no figure
        self.runs: dict[str, list[float]] = {s: [] for s in STRATEGIES}  # 1 runs as decided, 0 recourse, NaN none
        self.ws: dict[str, list[tuple[float, float, float]]] = {s: [] for s in STRATEGIES}  # (cost, low, high)
        self.paths: dict[str, dict[str, int]] = {s: {} for s in STRATEGIES}
        self.wins: dict[str, int] = {str(s): 0 for s in STRATEGIES}
        self.regrets: list[float] = []
        self.decided_infeasible = 0
        self.failures: list[tuple[str, str, str]] = []
        self.failures_total = 0

    def add(self, o: ScenarioOutcome) -> None:
        self.n += 1
        if len(self.kept) < self.keep:
            self.kept.append(o)
        free = o.strategies.get("hybrid")
        if free is None or not free.ok:
            self.failed += 1
        w = winner(o, self.metric)
        if w is not None:
            self.wins[w] += 1
        for name in STRATEGIES:
            s = o.strategies.get(name)
            ok = s is not None and s.ok
            c = self.value(s) if ok else None
            self.cost[name].append(np.nan if c is None else float(c))
            runs = s.runs_as_decided if s is not None else None
            self.runs[name].append(np.nan if runs is None or not ok else float(runs))
            if s is not None and s.solved_by:
                self.paths[name][s.solved_by] = self.paths[name].get(s.solved_by, 0) + 1
            if s is not None and ok and c is not None and s.ws_low is not None:
                self.ws[name].append((c, s.ws_low, s.ws_high if s.ws_high is not None else c))
            if s is not None and s.status in (
                SolveStatus.VERIFICATION_FAILED,
                SolveStatus.ERROR,
                SolveStatus.NO_SOLUTION,
            ):
                self.failures_total += 1
                if len(self.failures) < FAILURES_KEPT:
                    self.failures.append((o.scenario.label, name, f"{s.status}: {s.detail}"))
        if self.mode == "hindsight":
            r = regret(o, self.value(free) if free is not None and free.ok else None)
            if r is None:
                self.decided_infeasible += 1
            else:
                self.regrets.append(r)
        elif o.decided_cost is None:
            self.decided_infeasible += 1

    def summary(self) -> Summary:
        out = Summary(
            self.n,
            self.failed,
            mode=self.mode,
            gap=self.gap if self.mode == "hindsight" else None,
            failures=list(self.failures),
            failures_total=self.failures_total,
            decided_infeasible=self.decided_infeasible,
        )
        ok = self.n - self.failed
        costs = {s: np.asarray(v, dtype=float) for s, v in self.cost.items()}
        for name in STRATEGIES:
            c = costs[name]
            known = c[~np.isnan(c)]
            p10, p50, p90 = percentiles(known)
            row: dict = dict(
                p10=p10,
                p50=p50,
                p90=p90,
                win_probability=(self.wins[name] / ok if ok else None),
                plans=int(known.size),
                solved_by=dict(sorted(self.paths[name].items())),
            )
            if self.mode != "hindsight":
                row.update(self._committed(name, costs))
            out.strategies[name] = row
        if self.regrets:
            out.regret_mean = float(np.mean(self.regrets))
            out.regret_p90 = float(np.percentile(self.regrets, 90))
        out.regret_scenarios = len(self.regrets)
        out.bounds_scenarios = max((len(v) for v in self.ws.values()), default=0)
        return out

    def _committed(self, name: str, costs: dict[str, np.ndarray]) -> dict:
        c = costs[name]
        runs = np.asarray(self.runs[name], dtype=float)
        has = ~np.isnan(c) & ~np.isnan(runs)
        needed = has & (runs == 0)
        today = self.today.get(name)
        row: dict = dict(
            runs_as_decided=float(np.mean(runs[has])) if has.any() else None,
            recourse_share=float(np.mean(needed[has])) if has.any() else None,
            recourse_scenarios=int(needed.sum()),
            recourse_mean=float(np.mean(c[needed])) if needed.any() else None,
            recourse_extra=float(np.mean(c[needed] - today)) if needed.any() and today is not None else None,
        )
        cheaper: dict[str, float | None] = {}
        for other in STRATEGIES:
            if other == name:
                continue
            d = costs[other]
            both = ~np.isnan(c) & ~np.isnan(d)
            cheaper[other] = float(np.mean(c[both] < d[both] - 0.01)) if both.any() else None
        row["cheaper"] = cheaper
        ws = np.asarray(self.ws[name], dtype=float).reshape(-1, 3)
        if ws.size:
            low = float(np.mean(ws[:, 0] - np.minimum(ws[:, 0], ws[:, 2])))
            high = float(np.mean(ws[:, 0] - np.minimum(ws[:, 0], ws[:, 1])))
            row["value_of_waiting"] = dict(low=max(0.0, low), high=max(0.0, high), scenarios=int(ws.shape[0]))
        else:
            row["value_of_waiting"] = None
        return row


def summarize(
    outcomes, metric: str = "tco", mode: str = "hindsight", today: dict | None = None, gap: float | None = None
) -> Summary:
    """The summary of a list of outcomes (``Stream`` fed with each)."""
    stream = Stream(metric, mode, today, gap)
    for o in outcomes:
        stream.add(o)
    return stream.summary()
