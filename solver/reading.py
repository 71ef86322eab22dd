"""From a solved model to a verified plan, one way: the planner's strategies, the weekly first stage of a daily
solve, the analysis' fast path and its recourse all read their plans here.

    read_plan   extract the decisions, purchases and contracts (milp/extract.py) → price them (the ledger) →
                ``agreed``: the solver's objective against the ledger's cost of that plan, told apart by the model's
                coefficient table (a model that priced otherwise stops the run; a solver's slip is kept as feasible)
                → drop capacity no job uses (``trim_idle_capacity``; what the organisation already has stays) →
                price again → ``verify_plan`` (solver.verify: every rule and every amount, from the quotes)

Nothing reads a plan from a model any other way, so every path that reports a plan has passed the same checks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from procure.models.offer import Offer
from procure.models.project import Project
from procure.solver.enums import Objective

from . import costs, holdings
from .enums import SolveStatus
from .milp import SolveInfo, extract
from .plan import Plan, build_plan
from .result import cost_on
from .verify import Disagreement, verify_plan

# The solver's objective and the ledger's cost of its plan must agree this closely (relative), else ``agreed``
# tells a model that priced otherwise (a Disagreement) from a solver's slip.
AGREE_REL = 1e-6


def read_plan(
    model,
    project: Project,
    offers: dict[str, Offer],
    info: SolveInfo,
    *,
    objective: Objective,
    strategy: str,
    resize,
    modes,
    held: Mapping[str, str] | None = None,
    trim: bool = True,
    grid_of: Project | None = None,
) -> tuple[Plan, SolveInfo]:
    """The verified plan of a solved ``model`` and the solve as it stands after ``agreed`` (module docstring).
    ``trim``: drop capacity no job uses (off where capacity is held on purpose, as the recourse's signed
    purchases); ``grid_of``: the project whose period grid the model was built on (the weekly first stage of a
    daily solve), the plan itself is priced and verified on ``project``. Raises ``Disagreement`` or
    ``VerificationError``: a bug, never a plan."""
    decisions, purchases, contracts = extract(model, grid_of or project, offers)
    info = agreed(info, model, build_plan(project, offers, decisions, purchases, contracts), objective, strategy)
    if trim:  # a solve stopped early may hold capacity no job uses: dropping it keeps the plan feasible and cheaper
        purchases, contracts = trim_idle_capacity(decisions, purchases, contracts, project)
    plan = build_plan(project, offers, decisions, purchases, contracts)
    verify_plan(project, offers, plan, resize, modes, held=held)
    return plan, info


def agreed(info: SolveInfo, model, plan: Plan, objective: Objective, strategy: str) -> SolveInfo:
    """The solve as reported, if its objective equals the ledger's cost of the plan it returned (on the
    objective minimized) within ``AGREE_REL``. Else one of two things, told apart by pricing the solution with
    the model's own coefficient table (milp/coefficients.py), category by category:

    - the table's prices of the solution are not the ledger's: the model and the ledger price the same
      decisions differently, a modelling bug, never a slow solve and never a recommendation. It raises
      ``Disagreement`` (exit code 4, docs/errors.md) naming the strategy and each category with both amounts.
      procure does not re-solve "on corrected prices": which of the two is right is not known there, and a
      model that priced something else has optimized something else, so its plan is not the cheapest.
    - they are the ledger's, category by category: the model agrees with the ledger and the solver's reported
      objective is not its own solution's value (a solver's numerical slip, e.g. a MIP start HiGHS once took
      at its word). The plan stands at its ledger's cost, ``feasible`` (never optimal on that objective), its gap
      measured from that cost to the solver's bound, and ``objective_off`` says by how much the solver was off."""
    claimed = cost_on(plan, objective)
    if info.objective is None or claimed is None or abs(info.objective - claimed) <= AGREE_REL * max(1.0, abs(claimed)):
        return info
    gaps = _category_gaps(model, plan, objective)
    if gaps or model is None or model.table is None:
        raise Disagreement(strategy, info.objective, claimed, gaps)
    gap = max(0.0, (claimed - info.bound) / max(abs(claimed), 1e-9)) if info.bound is not None else None
    status = SolveStatus.FEASIBLE if info.status == SolveStatus.OPTIMAL else info.status
    return dataclasses.replace(info, status=status, objective=claimed, gap=gap, objective_off=info.objective - claimed)


def _category_gaps(model, plan: Plan, objective: Objective) -> list[tuple[str, float, float]]:
    """(category, the model's amount, the ledger's amount) where they differ, on the objective minimized."""
    if model is None or model.table is None:
        return []
    table = model.table
    on_objective = table.priced(lambda v: v.value() or 0.0)
    book = plan.ledger
    obj = Objective(objective)
    if obj is Objective.AFTER_TAX_NPV:
        said = obj.parts({c: per for c, per in book.flows().items()}, table.project)
        said[costs.TAX] = sum(v * f for v, f in zip(book.tax_by_month(), book.after_tax_factors, strict=True))
    elif obj.discounted:
        flows = book.flows()
        said = {c: costs.present_value({c: flows.get(c, {})}, table.project) for c in costs.CATEGORIES}
    else:
        said = book.by_category()
    return [
        (c, on_objective.get(c, 0.0), said.get(c, 0.0))
        for c in (*costs.CATEGORIES, costs.TAX)
        if abs(on_objective.get(c, 0.0) - said.get(c, 0.0)) > AGREE_REL * max(1.0, abs(said.get(c, 0.0)))
    ]


def trim_idle_capacity(decisions, purchases: dict[str, int], contracts, project: Project | None = None):
    """Purchases and rental contracts of offers that no job runs on (what the organisation already has —
    owned nodes, commitments — stays: it is held whatever the plan does)."""
    used = {d.offer_id for d in decisions}
    owned = set(holdings.owned_ids(project)) if project is not None else set()
    return (
        {o: n for o, n in purchases.items() if o in used or o in owned},
        [c for c in contracts if c.offer_id in used or c.committed],
    )
