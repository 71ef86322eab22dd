"""The solver's vocabularies: how a solve ended, which strategy a plan follows, and the objective minimized.

The values are the strings the JSON report, the workbook and the exit codes have always used.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from procure.models.project import Project


class SolveStatus(StrEnum):
    """How a strategy's solve ended."""

    OPTIMAL = "optimal"  # proven optimal (gap ≤ OPTIMAL_GAP)
    FEASIBLE = "feasible"  # a verified plan; the solver stopped at a limit or a looser gap, with its proven gap
    INFEASIBLE = "infeasible"  # no plan exists (the reasons say why)
    NO_SOLUTION = "no_solution"  # the solver stopped before it found any plan
    EXCLUDED = "excluded"  # a comparator the project excluded (its mode is outside allowed_modes): not solved
    VERIFICATION_FAILED = (
        "verification_failed"  # an analysis re-solve whose plan the verifier refused (a bug, reported)
    )
    ERROR = "error"  # an analysis re-solve whose solver failed

    @property
    def has_plan(self) -> bool:
        return self in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)


class Strategy(StrEnum):
    """The free (hybrid) strategy over the project's allowed modes, and the three single-mode comparators."""

    HYBRID = "hybrid"
    BUY = "buy"
    RENT = "rent"
    CLOUD = "cloud"


STRATEGIES: tuple[Strategy, ...] = tuple(Strategy)  # the one list, in the order every report shows them


class Objective(StrEnum):
    """What a plan is minimized and compared on: ``tco``, the undiscounted total cost of ownership, ``npv``, the
    present value of its monthly cash flows (``present_value``), or ``after_tax_npv``, the present value of its
    after-tax cash flows at the after-tax rate (``solver.costs``, "Income tax"; needs the project's ``tax``)."""

    TCO = "tco"
    NPV = "npv"
    AFTER_TAX_NPV = "after_tax_npv"

    def of(self, plan: Any) -> Any:
        """The plan's figure on this objective (``plan.npv_cost``, ``plan.after_tax_npv`` or ``plan.total_cost``;
        None stays None). Works for anything that carries them (a Plan, an analysis outcome)."""
        if plan is None:
            return None
        if self is Objective.AFTER_TAX_NPV:
            return getattr(plan, "after_tax_npv", None)
        return plan.npv_cost if self is Objective.NPV else plan.total_cost

    def measure(self, flows: Mapping[str, Mapping[int, float]], project: Project) -> float:
        """ONE column's cash flows measured on this objective (solver.costs.present_value, after_tax_value or
        total)."""
        from procure.solver import costs

        if self is Objective.AFTER_TAX_NPV:
            return costs.after_tax_value(flows, project)
        return costs.present_value(flows, project) if self is Objective.NPV else costs.total(flows)

    def parts(self, flows: Mapping[str, Mapping[int, float]], project: Project) -> dict[str, float]:
        """ONE column's (or a plan's) cash flows measured on this objective per category, with the income tax
        as ``costs.TAX`` on ``after_tax_npv``: what the model and the ledger compare category by category."""
        from procure.solver import costs

        if self is Objective.TCO:
            return {c: sum(flows.get(c, {}).values()) for c in costs.CATEGORIES}
        if self is Objective.NPV:
            factors = costs.discount_factors(project)
        else:
            factors = costs.after_tax_factors(project)
        out = {c: costs.discounted({c: flows.get(c, {})}, factors) for c in costs.CATEGORIES}
        if self is Objective.AFTER_TAX_NPV:
            out[costs.TAX] = self.measure(flows, project) - sum(out.values())
        return out

    @property
    def discounted(self) -> bool:
        return self is not Objective.TCO

    @property
    def other(self) -> Objective:
        """The measure shown beside the one minimized."""
        return Objective.TCO if self is not Objective.TCO else Objective.NPV

    @property
    def short(self) -> str:
        """TCO, NPV or after-tax NPV."""
        return "after-tax NPV" if self is Objective.AFTER_TAX_NPV else str(self).upper()
