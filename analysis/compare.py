"""Scenarios side by side (``procure compare a.yaml b.yaml ...``): the same question asked of two or
more workload files — typically a negotiation round: same jobs, new quotes — and what changed.

Every file is planned on its own (all four strategies, each verified). The comparison lists, per file,
the optimal total and NPV, each strategy's total, each cost category, and per workload where it runs;
the differences are taken against the first file.
"""

from __future__ import annotations

from dataclasses import dataclass

from procure.solver.costs import CATEGORIES
from procure.solver.enums import STRATEGIES
from procure.solver.result import Result


@dataclass
class Row:
    section: str  # totals | strategies | costs | plan
    label: str
    values: list  # one per file: a number, a text, or None
    numeric: bool

    def differences(self) -> list[float | None]:
        """Each file's value minus the first file's (numbers only)."""
        if not self.numeric or self.values[0] is None:
            return [None] * len(self.values)
        return [None if v is None else v - self.values[0] for v in self.values]

    @property
    def changed(self) -> bool:
        first = self.values[0]
        if self.numeric:
            return any((v is None) != (first is None) or (v is not None and abs(v - first) > 0.005) for v in self.values)
        return any(v != first for v in self.values)


def _placement(result: Result, workload: str) -> str | None:
    if result.plan is None:
        return None
    for a in result.plan.assignments:
        if a.workload == workload:
            return f"{a.nodes} × {a.offer_id} ({a.mode}), day {a.start_day:g}–{a.end_day:.1f}"
    return None


def compare_rows(results: list[Result]) -> list[Row]:
    """The comparison table: one row per figure, one value per file."""
    rows = [
        Row("totals", "status", [str(r.status) for r in results], False),
        Row("totals", "total cost", [r.plan.total_cost if r.plan else None for r in results], True),
        Row("totals", "NPV", [r.plan.npv_cost if r.plan else None for r in results], True),
        Row("totals", "modes", [" + ".join(sorted(r.plan.modes())) if r.plan else None for r in results], False),
    ]
    for s in STRATEGIES:
        rows.append(Row("strategies", f"{s} total", [r.strategies[s].total_cost if s in r.strategies else None for r in results], True))
    for c in CATEGORIES:
        rows.append(Row("costs", c, [r.plan.breakdown.get(c, 0.0) if r.plan else None for r in results], True))
    names: list[str] = []
    for r in results:
        for w in r.project.workloads:
            if w.name not in names:
                names.append(w.name)
    for name in names:
        rows.append(Row("plan", name, [_placement(r, name) for r in results], False))
    return rows
