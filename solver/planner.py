"""The planning pipeline: size → options → MILP → solve → extract → verify, for the free (hybrid)
strategy and for buy-only, rent-only and cloud-only, plus the explanations a person needs when a
workload cannot be placed and the runner-up options of every workload."""

from __future__ import annotations

import dataclasses
from typing import TypedDict

from procure.common.errors import InputError, Problem
from procure.common.runtime import Budget
from procure.models.offer import Offer
from procure.models.project import Project
from procure.solver.enums import Objective

from . import costs, holdings
from .enums import STRATEGIES, SolveStatus, Strategy
from .greedy import greedy_plan
from .milp import Builder, SolveInfo, solve, solver_version
from .milp.gate import GateReport, integral_contracts
from .options import Option, OptionTable, Rejection, build_options, thin_starts
from .partial import (
    _budget_set_aside,
    largest_coverable,
    set_aside_unplaceable,
    without,
)
from .plan import Plan
from .reading import AGREE_REL, read_plan
from .reasons import Amount, Rule, counted, render, say
from .result import Result, SetAside, StrategyResult
from .runner_ups import runner_ups, skipped_note
from .sizing import Candidate, size_project, size_workload
from .verify import VerificationError, verify_plan

__all__ = ["STRATEGIES", "plan_project", "plan_from_sizings"]


class Considered(TypedDict):
    """What a strategy weighed, carried into every StrategyResult it returns."""

    rejections: list[Rejection]
    every_option: dict[str, list[Option]]


def uses_spot(plan: Plan | None, offers: dict[str, Offer]) -> bool:
    return plan is not None and any(offers[a.offer_id].spot for a in plan.assignments)


class Resizer:
    """The verifier's independent view of a shape: size this workload on this offer again
    (``resizer(workload, offer, nodes)`` → the Candidate, or None). A class, not a closure, so that it
    pickles to analysis workers; each pair is sized once per process (the cache does not travel)."""

    def __init__(self, project: Project):
        self.project = project
        self._sized: dict[tuple[str, str], dict[int, Candidate]] = {}  # (workload, offer) -> candidate by node count

    def __call__(self, workload, offer: Offer, nodes: int) -> Candidate | None:
        # the verifier runs after every strategy, fallback and runner-up solve: size each pair once
        key = (workload.name, offer.id)
        if key not in self._sized:
            sz = size_workload(workload, [offer], self.project.sizing, self.project.team_area)
            by_nodes: dict[int, Candidate] = {}
            for c in sz.candidates:
                by_nodes.setdefault(c.nodes, c)
            self._sized[key] = by_nodes
        return self._sized[key].get(nodes)

    def __getstate__(self) -> dict:
        return {"project": self.project, "_sized": {}}


# Share of the time left that the hybrid gets when the comparators follow: the answer comes first.
HYBRID_SHARE = 0.55
# Model build (PuLP objects and the MPS file CBC reads) per start column before reduction, measured on
# the daily and XL benchmarks under load (docs/performance.md): a strategy whose build would take more
# than BUILD_SHARE of its time goes straight to its greedy (or weekly) plan.
BUILD_SECONDS_PER_COLUMN = 1e-4
BUILD_SHARE = 0.6
# CBC's root LP per start column, measured on the daily programme (37 CPU s for 38k columns,
# docs/performance.md): a model whose root would outlast what is left is thinned (options.thin_starts)
ROOT_SECONDS_PER_COLUMN = 1e-3
# Share of the solver's time kept for the contracts' integrality gate (milp/gate.py: an x-fixed rental LP)
# when the search is stopped by the time limit with fractional contracts.
GATE_SHARE = 0.15
# Two-stage solve on grids finer than a week: a weekly solve first, within this share of the strategy's
# time, gives the fine solve its incumbent (coarse_plan).
COARSE_DAYS = 7
COARSE_SHARE = 0.3
COARSE_MIN_SECONDS = 5.0
RUNNER_UP_MIN_SECONDS = 1.0  # a runner-up re-solve needs at least this to be worth starting  # below this the weekly stage would only take the daily solve's time
# Seconds kept back from the solver for reading its solution, extracting and verifying the plan.
FINISH_MARGIN = 0.5


def output_reserve(budget: Budget, n_workloads: int) -> float:
    """Seconds of a limited budget kept for writing the outputs (console, JSON, workbook): they grow
    with the workloads (about 0.15 s each for the workbook on the daily benchmark), at most 30% of it."""
    return 0.0 if budget.seconds is None else min(0.3 * budget.seconds, max(0.5, 0.15 * n_workloads))


def run_strategy(
    project: Project,
    offers: dict[str, Offer],
    sizings,
    name: Strategy,
    modes: tuple[str, ...],
    *,
    resize,
    solver: str,
    gap: float,
    objective: Objective,
    budget: Budget | None = None,
    progress=None,
    reduce: bool | None = None,
    only: dict[str, str] | None = None,
    time_limit: float | None = None,
    warm_start: Plan | None = None,
    table: OptionTable | None = None,
    contracts_integer: bool = False,
    gate: GateReport | None = None,
) -> StrategyResult:
    """Plan one strategy within ``budget`` (wall clock, including the model build; without one,
    ``time_limit`` seconds); ``only`` holds workloads to one offer each (workload → offer id);
    ``warm_start``: a feasible plan of these inputs for the solver to start from (the analysis passes
    the base plan re-costed under its scenario); default: the greedy plan. When the solver has no plan
    at the budget's end, the warm-start plan is used if there is one, verified and marked ``heuristic``
    with the gap to the solver's bound where it proved one. The contract columns are continuous and pass the
    integrality gate (milp/gate.py, what it did into ``gate``) unless ``contracts_integer``."""
    budget = budget or Budget(time_limit)
    t0 = budget.elapsed()
    if table is not None:  # the run's shared table: each shape's verdict was worked out once
        options, rejections, every = table.select(modes, project.allow_spot)
    else:
        options, rejections, every = build_options(project, offers, sizings, modes)
    mine = {w.name for w in project.workloads}  # a partial plan's project leaves the set-aside jobs out
    options = {w: opts for w, opts in options.items() if w in mine}
    for w, oid in (only or {}).items():
        options[w] = [o for o in options.get(w, []) if o.offer_id == oid]
    considered: Considered = {"rejections": rejections, "every_option": every}
    missing = {w: opts for w, opts in options.items() if not opts}
    if missing:
        reasons = {w: explain_unplaceable(w, rejections, modes) for w in missing}
        return StrategyResult(name, modes, SolveStatus.INFEASIBLE, reasons=reasons, **considered)
    warm = warm_start if warm_start is not None else greedy_plan(project, offers, options)  # an incumbent to start from
    if progress is not None:
        progress.strategy_started(name, budget)
    if budget.limited and project.period_days < COARSE_DAYS and (budget.remaining() or 0) > COARSE_MIN_SECONDS:
        coarse = coarse_plan(
            project,
            offers,
            sizings,
            modes,
            resize=resize,
            solver=solver,
            gap=gap,
            objective=objective,
            budget=budget.share(COARSE_SHARE),
            only=only,
        )
        value = costs.Objective(objective).of
        if coarse is not None and (warm is None or value(coarse) < value(warm)):
            warm = coarse
    left = budget.remaining()
    options, columns, thinned = _fit_to_budget(project, options, warm, left)
    if left is not None and columns * BUILD_SECONDS_PER_COLUMN > BUILD_SHARE * left:
        # no time to build and solve the model: the greedy plan is the answer, if there is one
        info = SolveInfo(
            solver, solver_version(solver), SolveStatus.NO_SOLUTION, 0.0, None, None, stopped_by_deadline=True
        )
        if warm is not None:
            return heuristic_result(
                project, offers, name, modes, warm, info, resize, objective, considered, budget.elapsed() - t0, only
            )
        return StrategyResult(
            name, modes, SolveStatus.NO_SOLUTION, solve=info, build_seconds=budget.elapsed() - t0, **considered
        )
    builder = Builder(
        project, options, offers, objective, warm_start=warm, reduce=reduce, contracts_integer=contracts_integer
    )
    model = builder.build()
    build_seconds = budget.elapsed() - t0
    deadline = budget.deadline()
    if deadline is not None and (budget.remaining() or 0.0) < FINISH_MARGIN and warm is not None:
        # the build took the whole share: no solver run, the warm-start plan is the answer
        info = SolveInfo(
            solver, solver_version(solver), SolveStatus.NO_SOLUTION, 0.0, None, None, stopped_by_deadline=True
        )
        return heuristic_result(
            project, offers, name, modes, warm, info, resize, objective, considered, build_seconds, only
        )
    on_progress = (lambda seen: progress.solver_progress(name, seen, budget)) if progress is not None else None
    # the gate may need a rental LP after the search: it keeps GATE_SHARE of the solver's time for it
    share = 1.0 if contracts_integer or not model.S and not model.T else 1.0 - GATE_SHARE
    info = solve(
        model,
        solver,
        None if deadline is None else max(0.1, share * ((budget.remaining() or 0.0) - FINISH_MARGIN)),
        gap,
        hard_deadline=None if deadline is None else deadline - (1.0 - share) * (budget.remaining() or 0.0),
        on_progress=on_progress,
    )
    info = integral_contracts(builder, model, info, solver, gap, hard_deadline=deadline, report=gate)
    info = _unbounded(info) if thinned else info
    if not info.status.has_plan:
        if info.status == SolveStatus.NO_SOLUTION and warm is not None:
            return heuristic_result(
                project, offers, name, modes, warm, info, resize, objective, considered, build_seconds, only
            )
        res = StrategyResult(name, modes, info.status, solve=info, build_seconds=build_seconds, **considered)
        if info.status == SolveStatus.INFEASIBLE:
            # the budgets cap undiscounted amounts, so the shortfall is measured against the cheapest TCO
            res.reasons = explain_joint(
                project,
                offers,
                sizings,
                name,
                modes,
                resize=resize,
                solver=solver,
                budget=budget,
                gap=gap,
                objective="tco",
                only=only,
            )
        return res
    plan, info = read_plan(
        model, project, offers, info, objective=objective, strategy=name, resize=resize, modes=modes, held=only
    )
    return StrategyResult(name, modes, info.status, plan=plan, solve=info, build_seconds=build_seconds, **considered)


def _fit_to_budget(project: Project, options: dict[str, list[Option]], warm: Plan | None, left: float | None):
    """(options, start columns, thinned): when the full grid's root LP alone would outlast the ``left``
    seconds, long jobs keep fewer starts (options.thin_starts), the warm start's among them."""
    columns = sum(len(o.starts) for opts in options.values() for o in opts)
    if left is None or columns * ROOT_SECONDS_PER_COLUMN <= left:
        return options, columns, False
    fewer = thin_starts(project, options, _starts_of(warm, project))
    n = sum(len(o.starts) for opts in fewer.values() for o in opts)
    return (fewer, n, True) if n < columns else (options, columns, False)


def _unbounded(info: SolveInfo) -> SolveInfo:
    """A thinned model's solve: its bound bounds nothing of the full grid's, so no bound, no gap, not optimal."""
    status = SolveStatus.FEASIBLE if info.status == SolveStatus.OPTIMAL else info.status
    return dataclasses.replace(info, status=status, bound=None, gap=None, thinned=True)


def _starts_of(plan: Plan | None, project: Project) -> dict[tuple[str, str, int], set[int]]:
    """The start period of each decision of ``plan`` per option key (thin_starts keeps them: the warm start
    stays a point of the model)."""
    out: dict[tuple[str, str, int], set[int]] = {}
    for d in plan.decisions if plan is not None else ():
        out.setdefault((d.workload, d.offer_id, d.nodes), set()).add(int(round(d.start_day / project.period_days)))
    return out


def coarse_plan(
    project: Project,
    offers: dict[str, Offer],
    sizings,
    modes,
    *,
    resize,
    solver: str,
    gap: float,
    objective: Objective,
    budget: Budget,
    only: dict[str, str] | None = None,
) -> Plan | None:
    """Stage one of a fine-grid solve: the same strategy on a ``COARSE_DAYS`` grid, within ``budget``.

    Its plans are plans of the fine grid too: a weekly start is a daily start, a job occupies no more
    daily periods than weekly ones, and release, lead time and deadline are checked on days. The plan
    is costed and verified on the fine grid and becomes the fine solve's incumbent (and fallback). It
    proves nothing about the fine grid's optimum: the gap reported is the fine model's own. ``only`` holds
    workloads to one offer each, as in the fine solve."""
    coarse = project.model_copy(update={"period_days": COARSE_DAYS})
    options, _rej, _every = build_options(coarse, offers, sizings, modes)
    options = {w.name: options.get(w.name, []) for w in project.workloads}
    for w, oid in (only or {}).items():
        options[w] = [o for o in options.get(w, []) if o.offer_id == oid]
    if any(not opts for opts in options.values()):
        return None
    # on the fine grid's contract days, so that its plan is a plan of the fine model and its warm start
    warm = greedy_plan(coarse, offers, options)
    builder = Builder(coarse, options, offers, objective, warm_start=warm, phases_of=project, contracts_integer=False)
    model = builder.build()
    left = budget.remaining()
    info = solve(
        model, solver, None if left is None else max(0.1, left - FINISH_MARGIN), gap, hard_deadline=budget.deadline()
    )
    info = integral_contracts(builder, model, info, solver, gap, hard_deadline=budget.deadline())
    if not info.status.has_plan:
        return None
    try:
        plan, _info = read_plan(
            model, project, offers, info, objective=objective, strategy="weekly stage", resize=resize,
            modes=modes, held=only, grid_of=coarse,
        )  # fmt: skip
    except VerificationError:  # the fine solve reads and checks its own plan: this stage only offers a start
        return None
    return plan


def heuristic_result(
    project,
    offers,
    name,
    modes,
    warm: Plan,
    info: SolveInfo,
    resize,
    objective,
    considered: Considered,
    build_seconds,
    only: dict[str, str] | None = None,
) -> StrategyResult:
    """The warm-start plan (the greedy one, or the weekly stage's), verified, when the solver stopped
    without a plan: ``feasible`` and ``heuristic``, its gap measured against the solver's bound if it
    proved one (else unknown)."""
    verify_plan(project, offers, warm, resize, modes, held=only)
    cost = costs.Objective(objective).of(warm)
    gap = max(0.0, (cost - info.bound) / max(abs(cost), 1e-9)) if info.bound is not None else None
    info = SolveInfo(
        info.name,
        info.version,
        SolveStatus.FEASIBLE,
        info.seconds,
        gap,
        cost,
        info.variables,
        info.constraints,
        bound=info.bound,
        stopped_by_deadline=info.stopped_by_deadline,
        heuristic=True,
    )
    return StrategyResult(
        name, modes, SolveStatus.FEASIBLE, plan=warm, solve=info, build_seconds=build_seconds, **considered
    )


def explain_unplaceable(workload: str, rejections: list[Rejection], modes: tuple[str, ...]) -> list[str]:
    """Why no shape of any offer can run ``workload``: a count per rule, then one example of each (each line a
    ``reasons.Msg``, so a report can say it in the reader's language)."""
    mine = [r for r in rejections if r.workload == workload and r.rule is not Rule.MODE_NOT_ALLOWED]
    if not mine:
        return [say("the catalog has no {modes} offer for it", modes=" / ".join(modes))]
    groups: dict[Rule, list[Rejection]] = {}
    for r in mine:
        groups.setdefault(r.rule, []).append(r)
    ordered = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    counts = tuple(counted(len(rs), "offer", rule.group) for rule, rs in ordered)
    out: list[str] = [say("no offer can run it: {counts}", counts=counts)]
    for rule, rs in ordered:
        out.append(
            say(
                "{count}; e.g. {offer}: {reason}",
                count=counted(len(rs), "offer", rule.group),
                offer=rs[0].offer_id,
                reason=render(rs[0].reasons),
            )
        )
    return out


def explain_joint(project: Project, offers, sizings, name, modes, **kw) -> dict[str, list[str]]:
    """Every workload has options, yet the whole is infeasible: a budget, or shared capacity."""
    if project.budgets:
        relaxed = project.model_copy(update={"budget_tco": None, "budget_cash": None, "budget_capex": None})
        free = run_strategy(relaxed, offers, sizings, name, modes, **kw)
        if free.plan is not None:
            met = [(kind, cap, budget_measure(free.plan, kind)) for kind, cap in project.budgets.items()]
            if all(need <= cap * (1 + AGREE_REL) for _kind, cap, need in met):
                # a verified plan meets every budget, yet the model with the budget rows has none: the rows price
                # otherwise than the ledger, a bug (a strategy is never called infeasible for a budget it meets)
                raise VerificationError(
                    [
                        f"{name}: the model with the budgets is infeasible, but a verified plan meets every one ("
                        + ", ".join(f"budget_{k} {c:,.2f}: {n:,.2f}" for k, c, n in met)
                        + "): the budget rows and the ledger disagree, a bug in procure"
                    ]
                )
            cur = project.currency
            lines: list[str] = []
            for kind, cap in project.budgets.items():
                need = budget_measure(free.plan, kind)
                what = {
                    "tco": say("total cost of ownership"),
                    "cash": say("peak cumulative cash out"),
                    "capex": say("capex"),
                }[kind]
                if need > cap:
                    lines.append(
                        say(
                            "the cheapest plan's {what} is {need}; budget_{kind} {cap} is short by {short}",
                            what=what,
                            need=Amount(need, cur),
                            kind=kind,
                            cap=Amount(cap),
                            short=Amount(need - cap, cur),
                        )
                    )
                else:
                    lines.append(
                        say(
                            "the cheapest plan's {what} is {need}, within budget_{kind} {cap}",
                            what=what,
                            need=Amount(need, cur),
                            kind=kind,
                            cap=Amount(cap),
                        )
                    )
            lines.append(
                say("no plan meets every budget at once")
                if len(project.budgets) > 1
                else say("no plan meets the budget")
            )
            return {"(budget)": lines}
    if project.quotas:  # a quota is shared capacity too (solver.holdings)
        free = run_strategy(project.model_copy(update={"quotas": []}), offers, sizings, name, modes, **kw)
        if free.plan is not None:  # the quotas bind, not max_nodes: name them first, with the shape each allows
            return {
                "(capacity)": [
                    say(
                        "the quotas leave too few GPUs at once: {allowed}; without them the workloads fit within "
                        "the offers' max_nodes before their deadlines",
                        allowed="; ".join(_quota_shape(q, offers.values()) for q in project.quotas),
                    )
                ]
            }
        return {
            "(capacity)": [
                say(
                    "the workloads cannot all be scheduled within the offers' max_nodes and the quotas ({quotas}) "
                    "at the same time before their deadlines",
                    quotas="; ".join(q.label for q in project.quotas),
                )
            ]
        }
    return {
        "(capacity)": [
            say(
                "the workloads cannot all be scheduled within the offers' max_nodes at the same time before their "
                "deadlines"
            )
        ]
    }


def _quota_shape(q, offers) -> str:
    """A quota and the most nodes it lets run at once on each offer it covers: ``vendor=aws: 16 GPUs (2 nodes
    of aws-p5)``."""
    covered = [o for o in offers if holdings.matches(q, o)]
    shapes = ", ".join(f"{q.max_gpus // o.gpus_per_node} nodes of {o.id}" for o in covered[:3])
    more = f", … ({len(covered)} offers)" if len(covered) > 3 else ""
    return f"{q.label} ({shapes}{more})" if covered else q.label


def budget_measure(plan: Plan, kind: str) -> float:
    """What a budget caps, measured on a plan (its ledger's views): ``tco`` total cost, ``cash`` peak
    cumulative cash out, ``capex`` the purchase prices paid."""
    if kind == "tco":
        return plan.total_cost
    if kind == "capex":
        return plan.ledger.capex()
    return plan.ledger.peak_cash_out()


def plan_project(
    project: Project,
    offers: list[Offer],
    *,
    solver: str = "cbc",
    time_limit: float | None = None,
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
    compare: bool = True,
    n_runner_ups: int = 2,
    budget: Budget | None = None,
    progress=None,
    on_hybrid=None,
    reduce: bool | None = None,
    all_or_nothing: bool = False,
) -> Result:
    """Size every workload on every offer, then plan (see ``plan_from_sizings``). ``time_limit`` (or
    an already running ``budget``) bounds sizing and planning together, in wall-clock seconds."""
    budget = budget or Budget(time_limit)
    check_holdings(project, offers)
    offers = holdings.with_owned(project, offers)  # owned servers are an offer of their own (solver.holdings)
    if progress is not None:
        progress.sizing_started(len(project.workloads), len(offers), budget)
    sizings = size_project(project, offers)
    return plan_from_sizings(
        project,
        offers,
        sizings,
        Resizer(project),
        solver=solver,
        budget=budget,
        gap=gap,
        objective=objective,
        compare=compare,
        n_runner_ups=n_runner_ups,
        progress=progress,
        on_hybrid=on_hybrid,
        reduce=reduce,
        all_or_nothing=all_or_nothing,
    )


def _spent(budget: Budget, reserve: float) -> bool:
    """A limited budget with nothing left beyond the outputs' reserve: a comparison started now could
    only overrun --time-limit (even its greedy plan is built and verified)."""
    left = budget.remaining()
    return left is not None and left - reserve <= 0.0


def _not_run(name: Strategy, modes: tuple[str, ...], solver: str) -> StrategyResult:
    """A strategy the time limit left no time for: no plan, saying why."""
    info = SolveInfo(solver, solver_version(solver), SolveStatus.NO_SOLUTION, 0.0, None, None, stopped_by_deadline=True)
    return StrategyResult(
        name,
        modes,
        SolveStatus.NO_SOLUTION,
        solve=info,
        reasons={
            "(time limit)": ["not planned: --time-limit was spent before its turn; raise --time-limit to compare it"]
        },
    )


def check_holdings(project: Project, offers: list[Offer], source: str = "<workload>") -> None:
    """InputError for owned servers or commitments that name no offer or one of the wrong kind, and for quotas
    that they alone exceed; ``source`` names the workload file."""
    bad = holdings.holding_problems(project, {o.id: o for o in offers})
    if bad:
        raise InputError([Problem(source, where, msg) for where, msg in bad])


def plan_from_sizings(
    project: Project,
    offers: list[Offer],
    sizings,
    resize,
    *,
    solver: str = "cbc",
    time_limit: float | None = None,
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
    compare: bool = True,
    n_runner_ups: int = 2,
    budget: Budget | None = None,
    progress=None,
    on_hybrid=None,
    reduce: bool | None = None,
    all_or_nothing: bool = False,
) -> Result:
    """Solve the hybrid strategy (allowed_modes) and, with ``compare``, buy-only, rent-only and cloud-only;
    re-solve without spot when the plan uses spot; cost ``n_runner_ups`` other offers per workload.

    Partial plans (unless ``all_or_nothing``): a job no offer of allowed_modes can run is set aside with its
    reasons and the rest is planned; when the budgets (or shared capacity) cannot hold every job, the most
    jobs they can hold are planned (``largest_coverable``). Every strategy then plans the same jobs.

    Time: of what ``budget`` leaves after the outputs' reserve, the hybrid gets ``HYBRID_SHARE`` (all
    of it without ``compare``), each comparator then an equal part of what is left (so time one does
    not use goes to the next), the spot fallback half of the rest, and the runner-ups what remains.
    ``on_hybrid(StrategyResult)`` is called as soon as the hybrid plan is verified."""
    budget = budget or Budget(time_limit)
    check_holdings(project, offers)
    offers = holdings.with_owned(project, offers)
    by_id = {o.id: o for o in offers}
    programme = project
    hybrid_modes = tuple(project.allowed_modes)
    set_aside: list[SetAside] = []
    aside_rejections: list[Rejection] = []
    table = OptionTable(project, by_id, sizings)  # every shape judged once per run, the set-aside check included
    if not all_or_nothing:
        set_aside = set_aside_unplaceable(project, table, hybrid_modes)
        if set_aside:
            gone = {x.workload for x in set_aside}
            aside_rejections = [r for r in table.select(hybrid_modes, project.allow_spot)[1] if r.workload in gone]
            project, sizings = without(project, sizings, gone)
            table = OptionTable(project, by_id, sizings)
    kw = dict(resize=resize, solver=solver, gap=gap, objective=objective, reduce=reduce, table=table)
    reserve = output_reserve(budget, len(project.workloads))
    names = [Strategy.HYBRID]
    strategies: dict[str, StrategyResult] = {}
    if compare:
        for name in STRATEGIES[1:]:  # the single-mode comparators: buy, rent, cloud
            if name.value not in project.allowed_modes:
                # the user excluded this mode: no cost, no comparison
                strategies[name] = StrategyResult(
                    name,
                    (name.value,),
                    SolveStatus.EXCLUDED,
                    reasons={
                        "(allowed_modes)": [f"excluded by you: allowed_modes is {', '.join(project.allowed_modes)}"]
                    },
                )
            else:
                names.append(name)
    share = budget.share(HYBRID_SHARE if len(names) > 1 else 1.0, reserve)
    hybrid = run_strategy(project, by_id, sizings, Strategy.HYBRID, hybrid_modes, budget=share, progress=progress, **kw)
    joint = set(hybrid.reasons) & {"(budget)", "(capacity)"}
    if hybrid.status == SolveStatus.INFEASIBLE and joint and not all_or_nothing and len(project.workloads) > 1:
        found = largest_coverable(
            project,
            by_id,
            sizings,
            hybrid_modes,
            objective,
            budget,
            reserve,
            **{k: v for k, v in kw.items() if k != "objective"},
        )
        if found is not None:
            dropped, kept, kept_sizings, sub = found
            set_aside += _budget_set_aside(project, dropped, kept, hybrid.reasons)
            aside_rejections += [r for r in hybrid.rejections if r.workload in dropped]
            project, sizings, hybrid = kept, kept_sizings, sub
            kw["table"] = OptionTable(project, by_id, sizings)
    strategies[Strategy.HYBRID] = hybrid
    if progress is not None:
        progress.strategy_done(hybrid)
    if on_hybrid is not None:
        on_hybrid(hybrid)
    for k, name in enumerate(names[1:]):
        left = len(names) - 1 - k
        modes = (name.value,)
        if _spent(budget, reserve):
            strategies[name] = _not_run(name, modes, solver)
            continue
        strategies[name] = run_strategy(
            project, by_id, sizings, name, modes, budget=budget.share(1.0 / left, reserve), progress=progress, **kw
        )
        if progress is not None:
            progress.strategy_done(strategies[name])
    strategies = {name: strategies[name] for name in STRATEGIES if name in strategies}
    fallback = None
    if uses_spot(hybrid.plan, by_id):
        # the risk of spot: the same workloads without it (on-demand or another mode), re-solved
        no_spot = project.model_copy(update={"allow_spot": False})
        if _spent(budget, reserve):
            fallback = _not_run(Strategy.HYBRID, tuple(project.allowed_modes), solver)
        else:
            fallback = run_strategy(
                no_spot,
                by_id,
                sizings,
                Strategy.HYBRID,
                tuple(project.allowed_modes),
                budget=budget.share(0.5, reserve),
                **kw,
            )
    ups = (
        runner_ups(project, by_id, sizings, hybrid, n=n_runner_ups, budget=budget, reserve=reserve, **kw)
        if n_runner_ups
        else {}
    )
    skipped = skipped_note(ups)
    return Result(
        project,
        by_id,
        sizings,
        objective,
        hybrid,
        strategies,
        hybrid.rejections + aside_rejections,
        hybrid.every_option,
        ups,
        fallback,
        set_aside=set_aside,
        programme=programme if set_aside else None,
        runner_ups_skipped=skipped,
    )
