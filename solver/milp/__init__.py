"""The mixed-integer program: ``formulation`` builds it (variables, rows, cost coefficients from
``costs``), ``backends`` runs CBC or HiGHS and maps how the solve ended, ``names`` names its rows."""

from .backends import (
    CBC_OPTIONS,
    OPTIMAL_GAP,
    SolveInfo,
    SolverFailed,
    SolverUnavailable,
    solve,
    solver_command,
    solver_version,
)
from .extract import extract
from .formulation import Builder
from .names import Names, slug
from .state import Model

__all__ = [
    "Builder",
    "CBC_OPTIONS",
    "Model",
    "Names",
    "OPTIMAL_GAP",
    "SolveInfo",
    "SolverFailed",
    "SolverUnavailable",
    "extract",
    "slug",
    "solve",
    "solver_command",
    "solver_version",
]
