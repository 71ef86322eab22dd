"""The solver's vocabularies: how a solve ended, and which strategy a plan follows.

The values are the strings the JSON report, the workbook and the exit codes have always used.
"""

from __future__ import annotations

from enum import StrEnum


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
