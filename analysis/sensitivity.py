"""Sensitivity (the tornado): each driver moved alone to its low and its high value, and what today's plan of
every strategy costs there.

For driver d with range [lo, hi] (``analysis.sensitivity`` in workload.yaml; default factors 0.8 and
1.2 of today's value, the deadline slip −30 and +30 days), z(d = lo) and z(d = hi) are the decided plan
re-costed at that end (``recost.as_decided``, as the regret table and the Monte Carlo's policy do: the plan
that is signed, not the optimum one would pick with hindsight). Where the plan no longer runs as decided at
an end (a deadline moved before a job's end, capacity it does not hold), that end is re-optimized instead,
and the bar says so (``reoptimized``); the recommendation *flips* at an end where that re-optimized plan's
modes differ from today's. The bar's length is |z(hi) − z(lo)|. Where the decision changes is the
break-even searches' question (break_even.py): those stay true re-optimizations.
"""

from __future__ import annotations

from dataclasses import dataclass

from procure.models.analysis import DRIVERS, AnalysisSettings
from procure.solver.costs import Objective

from .engine import ScenarioOutcome
from .scenario import Scenario


@dataclass
class Bar:
    driver: str
    low_value: float
    high_value: float
    low: ScenarioOutcome
    high: ScenarioOutcome
    base_modes: tuple[str, ...]
    objective: Objective = Objective.TCO  # the bars are ordered by the swing of the objective minimized

    def tco(self, end: str, strategy: str = "hybrid") -> float | None:
        o = (self.low if end == "low" else self.high).strategies.get(strategy)
        return o.total_cost if o is not None and o.ok else None

    def npv(self, end: str, strategy: str = "hybrid") -> float | None:
        o = (self.low if end == "low" else self.high).strategies.get(strategy)
        return o.npv_cost if o is not None and o.ok else None

    def measure(self, end: str, strategy: str = "hybrid") -> float | None:
        """The optimum at that end on the objective minimized."""
        o = (self.low if end == "low" else self.high).strategies.get(strategy)
        return Objective(self.objective).of(o) if o is not None and o.ok else None

    def reoptimized(self, end: str, strategy: str = "hybrid") -> bool:
        """That end was re-optimized (today's plan does not run as decided there), not re-costed."""
        o = (self.low if end == "low" else self.high).strategies.get(strategy)
        return o is not None and o.solved

    def modes(self, end: str) -> tuple[str, ...] | None:
        o = (self.low if end == "low" else self.high).strategies["hybrid"]
        return o.modes if o.ok else None

    @property
    def flips(self) -> bool:
        return any(self.modes(e) is not None and self.modes(e) != self.base_modes for e in ("low", "high"))

    @property
    def swing(self) -> float:
        """How far the optimum moves between the driver's ends, on the objective minimized."""
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
) -> list[Bar]:
    """Pair the outcomes (low, high per driver) into bars, widest swing first."""
    ranges = settings.ranges()
    out = []
    for i, d in enumerate(DRIVERS):
        r = ranges[d]
        out.append(Bar(d, r.low, r.high, outcomes[2 * i], outcomes[2 * i + 1], base_modes, objective))
    return sorted(out, key=lambda b: -b.swing if b.swing != float("inf") else -1e300)
