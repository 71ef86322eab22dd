"""The planning pipeline: size → options → MILP → solve → extract → verify, for the free (hybrid)
strategy and for buy-only, rent-only and cloud-only, plus the explanations a person needs when a
workload cannot be placed and the runner-up options of every workload."""

from __future__ import annotations

from dataclasses import dataclass, field

from procure.models.offer import Offer
from procure.models.project import Project

from .enums import STRATEGIES, SolveStatus, Strategy
from .milp import Builder, SolveInfo, extract, solve
from .options import Option, Rejection, build_options
from .greedy import greedy_plan
from .plan import Plan, build_plan
from .reasons import Rule
from .sizing import size_project, size_workload
from .verify import VerificationError, verify_plan

__all__ = ["STRATEGIES", "Result", "StrategyResult", "plan_project", "plan_from_sizings"]


@dataclass
class StrategyResult:
    name: Strategy
    modes: tuple[str, ...]
    status: SolveStatus
    plan: Plan | None = None
    solve: SolveInfo | None = None
    reasons: dict[str, list[str]] = field(default_factory=dict)  # workload -> why it cannot be placed
    rejections: list[Rejection] = field(default_factory=list)  # (workload, offer) pairs no shape of which can be used
    every_option: dict[str, list[Option]] = field(default_factory=dict)  # every deadline-feasible shape per workload

    @property
    def total_cost(self) -> float | None:
        return self.plan.total_cost if self.plan else None


@dataclass
class RunnerUp:
    option: Option
    extra_cost: float  # stand-alone cost minus the chosen shape's stand-alone cost


@dataclass
class Result:
    project: Project
    offers: dict[str, Offer]
    sizings: list
    objective: str
    hybrid: StrategyResult
    strategies: dict[str, StrategyResult]
    rejections: list[Rejection]
    every_option: dict[str, list[Option]]
    runner_ups: dict[str, list[RunnerUp]]

    @property
    def status(self) -> SolveStatus:
        return self.hybrid.status

    @property
    def plan(self) -> Plan | None:
        return self.hybrid.plan


def make_resizer(project: Project):
    """The verifier's independent view of a shape: size this workload on this offer again."""

    def resize(workload, offer: Offer, nodes: int):
        sz = size_workload(workload, [offer], project.sizing, project.team_area)
        for c in sz.candidates:
            if c.nodes == nodes:
                return c
        return None

    return resize


def run_strategy(project: Project, offers: dict[str, Offer], sizings, name: Strategy, modes: tuple[str, ...], *, resize,
                 solver: str, time_limit: float | None, gap: float, objective: str) -> StrategyResult:
    options, rejections, every = build_options(project, offers, sizings, modes)
    considered = dict(rejections=rejections, every_option=every)
    missing = {w: opts for w, opts in options.items() if not opts}
    if missing:
        reasons = {w: explain_unplaceable(w, rejections, modes) for w in missing}
        return StrategyResult(name, modes, SolveStatus.INFEASIBLE, reasons=reasons, **considered)
    warm = greedy_plan(project, offers, options)  # an incumbent for the solver to start from
    model = Builder(project, options, offers, objective, warm_start=warm).build()
    info = solve(model, solver, time_limit, gap)
    if not info.status.has_plan:
        res = StrategyResult(name, modes, info.status, solve=info, **considered)
        if info.status == SolveStatus.INFEASIBLE:
            # the budget caps undiscounted cost, so the shortfall is measured against the cheapest TCO
            res.reasons = explain_joint(project, offers, sizings, name, modes, resize=resize, solver=solver, time_limit=time_limit, gap=gap, objective="tco")
        return res
    decisions, purchases, contracts = extract(model, project, offers)
    as_solved = build_plan(project, offers, decisions, purchases, contracts)
    claimed = as_solved.npv_cost if objective == "npv" else as_solved.total_cost
    if info.objective is not None and abs(info.objective - claimed) > 1e-6 * max(1.0, abs(claimed)) + 0.01:
        raise VerificationError([f"objective: the solver reports {info.objective:,.2f} but the plan recomputed by the cost model costs {claimed:,.2f}"])
    # a solve stopped early may hold capacity no job uses: dropping it keeps the plan feasible and cheaper
    purchases, contracts = trim_idle_capacity(decisions, purchases, contracts)
    plan = build_plan(project, offers, decisions, purchases, contracts)
    verify_plan(project, offers, plan, resize, modes)
    return StrategyResult(name, modes, info.status, plan=plan, solve=info, **considered)


def trim_idle_capacity(decisions, purchases: dict[str, int], contracts):
    """Purchases and rental contracts of offers that no job runs on."""
    used = {d.offer_id for d in decisions}
    return {o: n for o, n in purchases.items() if o in used}, [c for c in contracts if c.offer_id in used]


def explain_unplaceable(workload: str, rejections: list[Rejection], modes: tuple[str, ...]) -> list[str]:
    """Why no shape of any offer can run ``workload``: a count per rule, then one example of each."""
    mine = [r for r in rejections if r.workload == workload and r.rule is not Rule.MODE_NOT_ALLOWED]
    if not mine:
        return [f"the catalog has no {' / '.join(modes)} offer for it"]
    groups: dict[Rule, list[Rejection]] = {}
    for r in mine:
        groups.setdefault(r.rule, []).append(r)
    ordered = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    out = ["no offer can run it: " + ", ".join(f"{len(rs)} {rule.group}" for rule, rs in ordered)]
    for rule, rs in ordered:
        out.append(f"{len(rs)} offer(s) {rule.group}; e.g. {rs[0].offer_id}: {rs[0].reason}")
    return out


def explain_joint(project: Project, offers, sizings, name, modes, **kw) -> dict[str, list[str]]:
    """Every workload has options, yet the whole is infeasible: the budget, or shared capacity."""
    if project.budget is not None:
        relaxed = project.model_copy(update={"budget": None})
        free = run_strategy(relaxed, offers, sizings, name, modes, **kw)
        if free.plan is not None:
            short = free.plan.total_cost - project.budget
            return {"(budget)": [f"the cheapest plan costs {free.plan.total_cost:,.0f} {project.currency}; budget {project.budget:,.0f} is short by {short:,.0f} {project.currency}"]}
    return {"(capacity)": ["the workloads cannot all be scheduled within the offers' max_nodes at the same time before their deadlines"]}


def runner_ups(plan: Plan | None, every: dict[str, list[Option]], n: int = 3) -> dict[str, list[RunnerUp]]:
    """Per workload, the ``n`` cheapest other shapes (one per offer), by stand-alone cost."""
    out: dict[str, list[RunnerUp]] = {}
    if plan is None:
        return out
    for a in plan.assignments:
        opts = every.get(a.workload, [])
        chosen = next((o for o in opts if o.offer_id == a.offer_id and o.nodes == a.nodes), None)
        base = chosen.standalone_cost if chosen else a.cost
        seen, rows = {a.offer_id}, []
        for o in opts:
            if o.offer_id in seen:
                continue
            seen.add(o.offer_id)
            rows.append(RunnerUp(o, o.standalone_cost - base))
            if len(rows) == n:
                break
        out[a.workload] = rows
    return out


def plan_project(project: Project, offers: list[Offer], *, solver: str = "cbc", time_limit: float | None = None,
                 gap: float = 1e-6, objective: str = "tco", compare: bool = True) -> Result:
    """Size every workload on every offer, then plan (see ``plan_from_sizings``)."""
    sizings = size_project(project, offers)
    return plan_from_sizings(project, offers, sizings, make_resizer(project), solver=solver, time_limit=time_limit,
                             gap=gap, objective=objective, compare=compare)


def plan_from_sizings(project: Project, offers: list[Offer], sizings, resize, *, solver: str = "cbc", time_limit: float | None = None,
                      gap: float = 1e-6, objective: str = "tco", compare: bool = True) -> Result:
    """Solve the hybrid strategy (allowed_modes) and, with ``compare``, buy-only, rent-only and cloud-only."""
    by_id = {o.id: o for o in offers}
    kw = dict(resize=resize, solver=solver, time_limit=time_limit, gap=gap, objective=objective)
    hybrid = run_strategy(project, by_id, sizings, Strategy.HYBRID, tuple(project.allowed_modes), **kw)
    strategies = {Strategy.HYBRID: hybrid}
    if compare:
        for name in STRATEGIES[1:]:  # the single-mode comparators: buy, rent, cloud
            strategies[name] = run_strategy(project, by_id, sizings, name, (name.value,), **kw)
    return Result(project, by_id, sizings, objective, hybrid, strategies, hybrid.rejections, hybrid.every_option,
                  runner_ups(hybrid.plan, hybrid.every_option))
