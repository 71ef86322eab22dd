"""Sensitivity (the tornado): each driver moved alone to its low and its high value, and what today's plan of
every strategy costs there.

For driver d with range [lo, hi] (``analysis.sensitivity`` in workload.yaml; default factors 0.8 and
1.2 of today's value, the deadline slip −30 and +30 days), z(d = lo) and z(d = hi) are the decided plan
re-costed at that end (``recost.as_decided``, as the regret table and the Monte Carlo's policy do: the plan
that is signed, not the optimum one would pick with hindsight). Where the plan no longer runs as decided at
an end (a deadline moved before a job's end, capacity it does not hold), that end is re-optimized instead,
and the bar says so (``reoptimized``). The bar's length is |z(hi) − z(lo)|: how much the signed plan's cost
moves, not the optimum's.

Whether the decision changes is a second figure per end: the free strategy re-optimized there, o(d) (a solve
warm-started from today's plan, ``engine.recost_scenario``). The decision *changes* at an end where o(d) costs
less than z(d) by more than a cent (today's plan is no longer the cheapest there, or no longer runs), and it
*flips* where the plan that wins there also uses other modes. Re-costing alone cannot see either: a plan can
stay feasible while a cheaper one appears (cloud 0.2 % dearer, and buying wins: tests/test_analysis.py). The break-even
searches (break_even.py) say at what value between today and an end it happens.
"""

from __future__ import annotations

from dataclasses import dataclass

from procure.models.analysis import DRIVERS, NO_PRE_TAX_CASH, AnalysisSettings
from procure.solver import costs
from procure.solver.costs import Objective

from .engine import Context, ScenarioOutcome, inert_drivers
from .scenario import Scenario, straight_tax_rule

#: a re-optimized end changes the decision when it costs less than today's plan there by more than this (a cent)
DECISION_TOL = 0.01

#: what a driver's bar can move (``reach``): the figure minimized; only the after-tax NPV (a tax driver when the
#: objective is before tax); only the P&L (the book depreciation life, with no tax life to move); nothing at all
OBJECTIVE, AFTER_TAX, PNL, NOTHING = "objective", "after_tax", "pnl", "nothing"


def reach(ctx: Context, driver: str) -> str:
    """What moving ``driver`` can move in these inputs. The tax rate and the depreciation life move no cash flow
    before tax: on the TCO or NPV objective their bars keep today's figure, and their after-tax NPV at each end
    (``Bar.after_tax``) shows what they move; on the after-tax objective they move the figure minimized. The
    depreciation life moves only the P&L where no tax depreciation follows a life (no tax that saves, a rule of
    fixed shares). A driver with nothing to move in these inputs (``engine.inert_drivers``) moves nothing."""
    if driver in inert_drivers(ctx):
        return NOTHING
    if driver not in NO_PRE_TAX_CASH:
        return OBJECTIVE
    project = ctx.inputs.project
    taxed = bool(costs.income_tax_rate(project)) and (driver == "tax_rate" or straight_tax_rule(project) is not None)
    if not taxed:
        return PNL
    return OBJECTIVE if Objective(ctx.inputs.objective) is Objective.AFTER_TAX_NPV else AFTER_TAX


@dataclass
class Bar:
    driver: str
    low_value: float
    high_value: float
    low: ScenarioOutcome
    high: ScenarioOutcome
    base_modes: tuple[str, ...]
    objective: Objective = Objective.TCO  # the bars are ordered by the swing of the objective minimized
    reach: str = OBJECTIVE  # what the driver can move in these inputs (``reach``)

    def tco(self, end: str, strategy: str = "hybrid") -> float | None:
        o = (self.low if end == "low" else self.high).strategies.get(strategy)
        return o.total_cost if o is not None and o.ok else None

    def npv(self, end: str, strategy: str = "hybrid") -> float | None:
        o = (self.low if end == "low" else self.high).strategies.get(strategy)
        return o.npv_cost if o is not None and o.ok else None

    def after_tax(self, end: str, strategy: str = "hybrid") -> float | None:
        """Today's plan's after-tax NPV at that end (None without the project's tax section, or no plan)."""
        o = (self.low if end == "low" else self.high).strategies.get(strategy)
        return o.after_tax_npv if o is not None and o.ok else None

    def measure(self, end: str, strategy: str = "hybrid") -> float | None:
        """Today's plan re-costed at that end (re-optimized where it breaks), on the objective minimized."""
        o = (self.low if end == "low" else self.high).strategies.get(strategy)
        return Objective(self.objective).of(o) if o is not None and o.ok else None

    def reoptimized(self, end: str, strategy: str = "hybrid") -> bool:
        """That end was re-optimized (today's plan does not run as decided there), not re-costed."""
        o = (self.low if end == "low" else self.high).strategies.get(strategy)
        return o is not None and o.solved

    def modes(self, end: str) -> tuple[str, ...] | None:
        """The modes of today's plan at that end (or of the re-optimized plan where it breaks)."""
        o = (self.low if end == "low" else self.high).strategies["hybrid"]
        return o.modes if o.ok else None

    def _optimum(self, end: str):
        o = (self.low if end == "low" else self.high).optimum
        return o if o is not None and o.ok else None

    def optimum(self, end: str) -> float | None:
        """The free strategy re-optimized at that end, on the objective minimized (None: no plan there)."""
        o = self._optimum(end)
        return Objective(self.objective).of(o) if o is not None else None

    def optimum_modes(self, end: str) -> tuple[str, ...] | None:
        o = self._optimum(end)
        return o.modes if o is not None else None

    def changes(self, end: str) -> bool:
        """Today's decision is not the cheapest at that end: it does not run as decided there, or the re-optimized
        plan costs less than today's plan re-costed there by more than ``DECISION_TOL``."""
        best = self.optimum(end)
        if best is None:
            return False
        if self.reoptimized(end):  # today's plan does not run as decided there: what wins is another plan
            return True
        today = self.measure(end)
        return today is None or best < today - DECISION_TOL

    def decision(self, end: str) -> str:
        """What the decision does at that end: ``changes`` (``changes``), ``stands``, ``unsolved`` (today's plan
        runs there but its re-solve found no plan: a rule, a time limit) or ``none`` (no plan there at all)."""
        if self.optimum(end) is None:
            return "none" if self.measure(end) is None else "unsolved"
        return "changes" if self.changes(end) else "stands"

    @property
    def flips(self) -> bool:
        """At an end where the decision changes, the plan that wins there uses other modes than today's."""
        return any(self.changes(e) and self.optimum_modes(e) != self.base_modes for e in ("low", "high"))

    @property
    def swing(self) -> float:
        """How far today's plan's cost moves between the driver's ends, on the objective minimized."""
        lo, hi = self.measure("low"), self.measure("high")
        return abs(hi - lo) if lo is not None and hi is not None else float("inf")


def scenarios(settings: AnalysisSettings) -> list[Scenario]:
    """Two scenarios per driver, low then high, in the drivers' documented order."""
    out = []
    for d, r in settings.ranges().items():
        out += [Scenario.of(f"{d}=low", {d: r.low}), Scenario.of(f"{d}=high", {d: r.high})]
    return out


def bars(
    settings: AnalysisSettings,
    outcomes: list[ScenarioOutcome],
    base_modes: tuple[str, ...],
    objective: Objective = Objective.TCO,
    reaches: dict[str, str] | None = None,
) -> list[Bar]:
    """Pair the outcomes (low, high per driver) into bars, widest swing first; ``reaches``: what each driver can
    move (``reach``; unnamed: the objective)."""
    ranges = settings.ranges()
    out = []
    for i, d in enumerate(DRIVERS):
        r = ranges[d]
        bar = Bar(d, r.low, r.high, outcomes[2 * i], outcomes[2 * i + 1], base_modes, objective)
        bar.reach = (reaches or {}).get(d, OBJECTIVE)
        out.append(bar)
    return sorted(out, key=lambda b: -b.swing if b.swing != float("inf") else -1e300)
