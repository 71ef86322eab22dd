"""The committed plan's recourse, and the hindsight bound, for the Monte Carlo's "here and now" evaluation.

**First stage.** A strategy's plan of today is what is signed: its purchases (the nodes bought) and its rental
contracts. Under a scenario the contracts become project commitments (``models.holdings.Commitment``: offer,
nodes, start day, months) at the scenario's rate for the signed length (``holdings.as_signed``: the Monte
Carlo's price factors are uncertainty in the price that will be signed), and the nodes bought are a lower
bound on the model's purchase columns. Everything else (where and when the jobs run, any capacity beyond
what is signed) is the recourse, optimized by the planner's own model (``solver.milp.Builder``: nothing here
writes a row; the commitments are constants and bounds the model already knows).

**The recourse, cheapest proof first** (``recourse``):

1. the recourse model's LP relaxation (``fast.solve_lp``, HiGHS in this process). An integral optimum is the
   recourse optimum. A known plan that costs no more than the LP bound (the slack tie-break allowed for) is
   optimal too: this is how a scenario where the decided plan needs nothing proves it, since the tie-break
   alone makes that LP fractional;
2. else the recourse MILP (CBC as ``procure solve`` runs it, from the known plan when there is one).

Every plan is extracted, re-costed by the cost model, checked against the solver's objective
(``reading.agreed``) and verified (``verify_plan``) before its cost is used.

**The hindsight bound** (``hindsight_lp``): the scenario's full model (nothing signed, every decision free: the
"wait and see" optimum WS) relaxed to an LP. Its value less the tie-break is a lower bound on WS; any plan
known in the scenario is an upper bound. The value of waiting, E[committed] − E[WS], lies between them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import time
from dataclasses import dataclass

from procure.models.holdings import Commitment
from procure.solver import holdings
from procure.solver.costs import Objective
from procure.solver.enums import SolveStatus
from procure.solver.milp import Builder, solve
from procure.solver.milp.backends import _info
from procure.solver.options import build_options
from procure.solver.plan import Plan
from procure.solver.reading import read_plan
from procure.solver.result import cost_on
from procure.solver.verify import Disagreement, VerificationError

from . import fast
from .scenario import Applied

#: which path gave a committed plan's cost: the decided plan as decided (the policy), the recourse LP, the
#: recourse MILP
POLICY, RECOURSE_LP, RECOURSE_MIP = "policy", "recourse-lp", "recourse-mip"
#: a known plan proves the recourse LP's bound when it costs no more than it by this much (relative)
BOUND_REL = 1e-9


@dataclass
class Recourse:
    """The optimal recourse of one committed plan under one scenario: the plan, the path that proved it, and
    the recourse LP's bound."""

    plan: Plan | None
    path: str = ""
    bound: float | None = None  # the recourse LP's value less the tie-break (a lower bound on the recourse)
    why: str = ""
    status: SolveStatus = SolveStatus.OPTIMAL  # feasible: the MILP stopped at its time limit or gap


def signed_project(plan: Plan, a: Applied):
    """The scenario's project with ``plan``'s contracts as signed commitments (at the scenario's rate)."""
    p = a.project
    added = [
        Commitment(
            offer=r.offer_id,
            nodes=r.nodes,
            start_date=p.start_date + dt.timedelta(days=round(r.contract.start_day)),
            months=r.contract.months,
        )
        for r in plan.rentals
        if not r.contract.committed
    ]
    if not added:
        return p
    signed = p.model_copy(update={"commitments": [*p.commitments, *added]})
    return holdings.as_signed(signed, a.offers.values())


def _model(project, a: Applied, modes, objective: Objective, bought: dict[str, int] | None, warm=None):
    """(builder, model) of ``project`` under the scenario, the nodes ``bought`` held as lower bounds; None when a
    job has no option or a purchase has no column."""
    options, _rej, _every = build_options(project, a.offers, a.sizings, modes)
    mine = {w.name for w in project.workloads}
    options = {w: opts for w, opts in options.items() if w in mine}
    if any(not opts for opts in options.values()):
        return None
    builder = Builder(project, options, a.offers, objective, warm_start=warm)
    model = builder.build()
    for oid, n in (bought or {}).items():
        if holdings.owned_entry(project, oid) is not None:
            continue  # owned nodes are held exactly already
        v = model.b.get(oid)
        if v is None:
            return None
        v.lowBound = max(v.lowBound or 0, n)
    return builder, model


def _checked(model, project, a: Applied, modes, info, objective: Objective, figures: dict) -> Plan | None:
    """The plan in the solved ``model``: costed, agreed with the solver's objective, verified; else None."""
    try:  # the signed purchases are held on purpose: nothing is trimmed
        plan, said = read_plan(
            model, project, a.offers, info, objective=objective, strategy="recourse", resize=a.resize, modes=modes,
            trim=False,
        )  # fmt: skip
        if said.status != info.status:
            figures["why"] = "the solver's objective is not its solution's value"
            return None
    except Disagreement as exc:  # a modelling bug: no recourse plan is read from this model
        figures["why"] = "objective and plan cost disagree: " + "; ".join(exc.violations)
        return None
    except VerificationError as exc:
        figures["why"] = "verifier: " + "; ".join(exc.violations)
        return None
    return plan


def recourse(
    plan: Plan,
    a: Applied,
    name: str,
    modes,
    *,
    objective: Objective,
    known: Plan | None,
    solver: str = "cbc",
    gap: float = 1e-6,
    time_limit: float | None = None,
    figures: dict | None = None,
) -> Recourse:
    """The optimal recourse of ``plan`` (the first stage) under ``a`` (module docstring). ``known``: a feasible
    plan with the same first stage (the decided plan re-costed), whose cost may prove the LP's bound and which
    starts the MILP."""
    fig = figures if figures is not None else {}
    project = signed_project(plan, a)
    bought = {p.offer_id: p.nodes for p in plan.purchases}
    built = _model(project, a, modes, objective, bought, warm=known)
    if built is None:
        return Recourse(
            None,
            why="in this scenario a job has no offer left to run on, or the servers the plan bought are of an "
            "offer no job can use any more",
        )
    builder, model = built
    if fast.available():
        t = time.perf_counter()
        lp = fast.solve_lp(f"{name}-recourse", model, time_limit, fig)
        bound = lp.value - model.tie_max if lp.optimal and lp.value is not None else None
        if lp.integral and lp.value is not None:
            info = _info(model, "highs", SolveStatus.OPTIMAL, time.perf_counter() - t, lp.value, lp.value, gap, False)
            got = _checked(model, project, a, modes, info, objective, fig)
            if got is not None:
                return Recourse(got, RECOURSE_LP, bound)
        kept = cost_on(known, objective)
        if bound is not None and kept is not None and kept <= bound + BOUND_REL * max(1.0, abs(kept)) + model.tie_max:
            return Recourse(known, RECOURSE_LP, bound)
    else:
        bound = None
    if known is not None:
        builder.set_warm_start()
    info = solve(model, solver, time_limit, gap)
    if info.objective is None or not SolveStatus(info.status).has_plan:
        return Recourse(None, bound=bound, why=f"recourse MILP {info.status}")
    got = _checked(model, project, a, modes, info, objective, fig)
    if got is None:
        return Recourse(None, bound=bound, why=fig.get("why", "recourse plan refused"))
    return Recourse(got, RECOURSE_MIP, bound, status=info.status)


@dataclass
class Bound:
    """The hindsight (wait-and-see) optimum of one strategy under one scenario, bracketed: ``low`` the LP
    relaxation's value less the tie-break, ``high`` the cost of a verified plan (None: none found here)."""

    low: float | None
    high: float | None = None


def hindsight_lp(a: Applied, name: str, modes, objective: Objective, time_limit: float | None = None) -> Bound:
    """The scenario's full model's LP bound (module docstring); an integral LP also gives its verified plan."""
    if not fast.available():
        return Bound(None)
    built = _model(a.project, a, modes, objective, None)
    if built is None:
        return Bound(None)
    _builder, model = built
    fig: dict = {}
    lp = fast.solve_lp(f"{name}-hindsight", model, time_limit, fig)
    if not lp.optimal or lp.value is None or not math.isfinite(lp.value):
        return Bound(None)
    low = lp.value - model.tie_max
    if lp.integral:
        info = _info(model, "highs", SolveStatus.OPTIMAL, 0.0, lp.value, lp.value, 1e-6, False)
        got = _checked(model, a.project, a, modes, info, objective, fig)
        if got is not None:
            return Bound(low, cost_on(got, objective))
    return Bound(low)


def realized_applied(a: Applied) -> Applied:
    """The scenario as it is lived: deadlines without the planning buffer (``recost.realized``)."""
    from .recost import realized

    p = realized(a.project)
    return a if p is a.project else dataclasses.replace(a, project=p)
