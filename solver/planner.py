"""The planning pipeline: size → options → MILP → solve → extract → verify, for the free (hybrid)
strategy and for buy-only, rent-only and cloud-only, plus the explanations a person needs when a
workload cannot be placed and the runner-up options of every workload."""

from __future__ import annotations

from dataclasses import dataclass, field

from procure.models.offer import Offer
from procure.models.project import Project

from . import costs
from .enums import STRATEGIES, SolveStatus, Strategy
from .greedy import greedy_plan
from .milp import Builder, SolveInfo, extract, solve
from .options import Option, Rejection, build_options
from .plan import Assignment, Plan, build_plan
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
    """Another offer for one workload, costed like with like: the whole plan re-solved with the
    workload held to that offer (``plan_cost``), against the chosen plan's cost on the same objective."""

    option: Option  # the cheapest stand-alone shape of that offer
    assignment: Assignment | None  # where the workload runs in the re-solved plan
    extra_cost: float | None  # plan_cost − the chosen plan's cost (objective units); None: no plan with it
    plan_cost: float | None = None  # the re-solved plan's cost on the objective (TCO or NPV)
    status: SolveStatus | None = None  # how that re-solve ended (a gap makes extra_cost an upper bound)
    gap: float | None = None


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
    spot_fallback: StrategyResult | None = None  # the hybrid re-solved without spot, when the plan uses spot

    @property
    def objective_cost(self) -> float | None:
        """The recommended plan's cost on the minimized objective."""
        return cost_on(self.plan, self.objective)

    @property
    def status(self) -> SolveStatus:
        return self.hybrid.status

    @property
    def plan(self) -> Plan | None:
        return self.hybrid.plan


def cost_on(plan: Plan | None, objective: str) -> float | None:
    """A plan's cost on an objective: ``tco`` (undiscounted total) or ``npv`` (present value)."""
    if plan is None:
        return None
    return plan.npv_cost if objective == "npv" else plan.total_cost


def uses_spot(plan: Plan | None, offers: dict[str, Offer]) -> bool:
    return plan is not None and any(offers[a.offer_id].spot for a in plan.assignments)


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
                 solver: str, time_limit: float | None, gap: float, objective: str, only: dict[str, str] | None = None,
                 warm_start: Plan | None = None) -> StrategyResult:
    """Solve one strategy; ``only`` holds workloads to one offer each (workload → offer id).
    ``warm_start``: a feasible plan of these inputs for the solver to start from (the analysis passes
    the base plan re-costed under its scenario); default: the greedy plan."""
    options, rejections, every = build_options(project, offers, sizings, modes)
    for w, oid in (only or {}).items():
        options[w] = [o for o in options.get(w, []) if o.offer_id == oid]
    considered = dict(rejections=rejections, every_option=every)
    missing = {w: opts for w, opts in options.items() if not opts}
    if missing:
        reasons = {w: explain_unplaceable(w, rejections, modes) for w in missing}
        return StrategyResult(name, modes, SolveStatus.INFEASIBLE, reasons=reasons, **considered)
    warm = warm_start if warm_start is not None else greedy_plan(project, offers, options)  # an incumbent to start from
    model = Builder(project, options, offers, objective, warm_start=warm).build()
    info = solve(model, solver, time_limit, gap)
    if not info.status.has_plan:
        res = StrategyResult(name, modes, info.status, solve=info, **considered)
        if info.status == SolveStatus.INFEASIBLE:
            # the budgets cap undiscounted amounts, so the shortfall is measured against the cheapest TCO
            res.reasons = explain_joint(project, offers, sizings, name, modes, resize=resize, solver=solver, time_limit=time_limit, gap=gap,
                                        objective="tco", only=only)
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
    """Every workload has options, yet the whole is infeasible: a budget, or shared capacity."""
    if project.budgets:
        relaxed = project.model_copy(update={"budget_tco": None, "budget_cash": None, "budget_capex": None})
        free = run_strategy(relaxed, offers, sizings, name, modes, **kw)
        if free.plan is not None:
            cur = project.currency
            lines = []
            for kind, cap in project.budgets.items():
                need = budget_measure(free.plan, kind)
                what = {"tco": "total cost of ownership", "cash": "peak cumulative cash out", "capex": "capex"}[kind]
                if need > cap:
                    lines.append(f"the cheapest plan's {what} is {need:,.0f} {cur}; budget_{kind} {cap:,.0f} is short by {need - cap:,.0f} {cur}")
                else:
                    lines.append(f"the cheapest plan's {what} is {need:,.0f} {cur}, within budget_{kind} {cap:,.0f}")
            lines.append("no plan meets every budget at once" if len(project.budgets) > 1 else "no plan meets the budget")
            return {"(budget)": lines}
    return {"(capacity)": ["the workloads cannot all be scheduled within the offers' max_nodes at the same time before their deadlines"]}


def budget_measure(plan: Plan, kind: str, n_months: int | None = None) -> float:
    """What a budget caps, measured on a plan (solver.costs): ``tco`` total cost, ``cash`` peak
    cumulative cash out, ``capex`` the purchase prices paid."""
    if kind == "tco":
        return plan.total_cost
    if kind == "capex":
        return costs.capex(plan.flows)
    months = n_months if n_months is not None else max([m + 1 for per in plan.flows.values() for m in per] or [0])
    return costs.peak_cash_out(plan.flows, months)


def runner_ups(project: Project, offers: dict[str, Offer], sizings, hybrid: StrategyResult, objective: str, n: int = 2,
               **kw) -> dict[str, list[RunnerUp]]:
    """Per workload, the ``n`` other offers with the cheapest stand-alone shapes, each costed like with
    like: the whole plan re-solved with the workload held to that offer, against the chosen plan."""
    out: dict[str, list[RunnerUp]] = {}
    plan = hybrid.plan
    if plan is None:
        return out
    base = cost_on(plan, objective)
    for a in plan.assignments:
        seen, rows = {a.offer_id}, []
        for o in hybrid.every_option.get(a.workload, []):  # cheapest stand-alone first
            if o.offer_id in seen:
                continue
            seen.add(o.offer_id)
            alt = run_strategy(project, offers, sizings, Strategy.HYBRID, hybrid.modes, objective=objective, only={a.workload: o.offer_id}, **kw)
            cost = cost_on(alt.plan, objective)
            where = next((x for x in alt.plan.assignments if x.workload == a.workload), None) if alt.plan else None
            rows.append(RunnerUp(o, where, cost - base if cost is not None else None, cost, alt.status, alt.solve.gap if alt.solve else None))
            if len(rows) == n:
                break
        out[a.workload] = rows
    return out


def plan_project(project: Project, offers: list[Offer], *, solver: str = "cbc", time_limit: float | None = None,
                 gap: float = 1e-6, objective: str = "tco", compare: bool = True, n_runner_ups: int = 2) -> Result:
    """Size every workload on every offer, then plan (see ``plan_from_sizings``)."""
    sizings = size_project(project, offers)
    return plan_from_sizings(project, offers, sizings, make_resizer(project), solver=solver, time_limit=time_limit,
                             gap=gap, objective=objective, compare=compare, n_runner_ups=n_runner_ups)


def plan_from_sizings(project: Project, offers: list[Offer], sizings, resize, *, solver: str = "cbc", time_limit: float | None = None,
                      gap: float = 1e-6, objective: str = "tco", compare: bool = True, n_runner_ups: int = 2) -> Result:
    """Solve the hybrid strategy (allowed_modes) and, with ``compare``, buy-only, rent-only and cloud-only;
    re-solve without spot when the plan uses spot; cost ``n_runner_ups`` other offers per workload."""
    by_id = {o.id: o for o in offers}
    kw = dict(resize=resize, solver=solver, time_limit=time_limit, gap=gap, objective=objective)
    hybrid = run_strategy(project, by_id, sizings, Strategy.HYBRID, tuple(project.allowed_modes), **kw)
    strategies = {Strategy.HYBRID: hybrid}
    if compare:
        for name in STRATEGIES[1:]:  # the single-mode comparators: buy, rent, cloud
            if name.value not in project.allowed_modes:
                # the user excluded this mode: no cost, no comparison
                strategies[name] = StrategyResult(name, (name.value,), SolveStatus.EXCLUDED,
                                                  reasons={"(allowed_modes)": [f"excluded by you: allowed_modes is {', '.join(project.allowed_modes)}"]})
                continue
            strategies[name] = run_strategy(project, by_id, sizings, name, (name.value,), **kw)
    fallback = None
    if uses_spot(hybrid.plan, by_id):
        # the risk of spot: the same workloads without it (on-demand or another mode), re-solved
        no_spot = project.model_copy(update={"allow_spot": False})
        fallback = run_strategy(no_spot, by_id, sizings, Strategy.HYBRID, tuple(project.allowed_modes), **kw)
    ups = runner_ups(project, by_id, sizings, hybrid, n=n_runner_ups, **kw) if n_runner_ups else {}
    return Result(project, by_id, sizings, objective, hybrid, strategies, hybrid.rejections, hybrid.every_option, ups, fallback)
