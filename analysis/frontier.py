"""What sooner costs: the cost–time frontier of a programme (``procure frontier``).

Method (ε-constraint on the completion day; Haimes, Lasdon & Wismer 1971, "On a bicriterion formulation of
the problems of integrated system identification and system optimization"):

    min cost(plan)   subject to   completion(plan) ≤ F

for a falling sequence of finish-by days F. The constraint is the planner's own deadline rule: every traced
job's ``deadline_days`` is lowered so that it must end by F (``Project.deadline_days_for``), so each point
is a full plan of the planner, checked by its verifier, with no new row in the model. ``completion`` is the
last traced job's end at the project's ``deadline_confidence`` quantile of its hours (the day the deadline
rule holds it to; ``solver.options.allowed_starts``): the date the plan promises with that confidence. The
median end (what the Plan sheet shows) is reported beside it.

Steps. The first point is the cheapest plan (``procure solve``'s hybrid plan). The fastest is found at the
lower bound L = max over traced jobs of their fastest option's earliest finish (no plan can end before it),
or, when the jobs cannot all run that early together, by bisection on F between L and the last feasible
completion. Between the two, F_k = min(⌈C_{k−1}⌉ − 1, ⌊C_0 − k·Δ⌋) with Δ = (C_0 − C_fast)/(points − 1), in
whole days (a deadline is a whole day, so plans that end within the same day are one point):
each solve returns the cheapest plan that ends by F_k, and its point sits at that plan's own completion
C_k ≤ F_k, where the cheaper plans stop fitting (a bigger node count, another GPU, buy instead of rent),
not on the grid of targets. With ``points`` above the number of such changes every breakpoint is found.

A plan with an earlier completion never costs less, when each point is solved to optimality (a plan that
ends by F_k ends by every looser F); a point solved only to a gap (the time limit) that breaks this (it costs
no less than a point that ends sooner) is dominated: it is left out, and the frontier says how many were
(``dropped``). The cheapest plan, the first point, is what ``procure solve`` recommends and always stays.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from procure.common.errors import InputError, Problem
from procure.common.runtime import Budget
from procure.solver.enums import Objective, SolveStatus
from procure.solver.reasons import Label, Msg, node_count, say
from procure.solver.sizing.band import hours_multiplier

if TYPE_CHECKING:
    from procure.models.offer import Offer
    from procure.models.project import Project, Workload
    from procure.solver.plan import Assignment, Plan
    from procure.solver.result import Result, SetAside

log = logging.getLogger("procure")

TOL = 1e-6
MAX_POINTS = 50  # points on one frontier at most (each is a full solve)
MAX_BISECTIONS = 12  # finish-by days tried to find the fastest plan when L itself is infeasible


@dataclass(frozen=True)
class Change:
    """One difference of a point's plan from the cheapest plan: a job moved, or capacity bought or rented."""

    workload: str | None  # None: capacity held outside any one job (a purchase or a contract)
    text: Msg  # English as a str; a report renders it in the reader's language (reports.i18n.Lang.say)


@dataclass
class FrontierPoint:
    """A verified plan that ends every traced job by ``completion_day`` (at ``confidence``)."""

    result: Result
    target_day: float | None  # the finish-by day F it was solved for (None: the cheapest plan, unconstrained)
    completion_day: float  # last traced job's end at the deadline_confidence quantile of its hours
    median_end_day: float  # … at its median hours (the Plan sheet's end day)
    changes: list[Change] = field(default_factory=list)

    @property
    def plan(self) -> Plan:
        return self.result.planned()

    @property
    def status(self) -> SolveStatus:
        return self.result.status

    @property
    def gap(self) -> float | None:
        return self.result.hybrid.gap

    @property
    def total_cost(self) -> float:
        return self.plan.total_cost

    @property
    def npv_cost(self) -> float:
        return self.plan.npv_cost


@dataclass
class Frontier:
    """The points from the cheapest plan to the fastest, in falling completion (rising cost)."""

    base: Result  # the cheapest plan's result (procure solve's hybrid plan): its status says why there is no frontier
    project: Project
    jobs: tuple[str, ...]  # the traced jobs (every job when none was named)
    objective: Objective
    points: list[FrontierPoint]
    lower_bound_day: float  # no plan of these offers ends the traced jobs earlier (their fastest options)
    note: Msg | str = ""  # why the frontier is a single point, or where it was cut short
    fastest_proven: bool = True  # False: the time limit or the points ran out before the fastest plan was found
    dropped: int = 0  # points solved to a gap that cost no less than a point ending sooner: left out (docstring)

    @property
    def cheapest(self) -> FrontierPoint:
        return self.points[0]

    def cost(self, p: FrontierPoint) -> float:
        return float(self.objective.of(p.plan))


def day_before(c: float) -> int:
    """The latest whole finish-by day that a plan ending on day ``c`` does not meet: ⌈c⌉ − 1 (deadline_days are
    whole days, so two plans ending within the same day are one point)."""
    return math.ceil(c - TOL) - 1


def completion(plan: Plan, jobs: tuple[str, ...], confidence: float) -> tuple[float, float]:
    """(the last traced job's end at the ``confidence`` quantile of its hours, … at its median hours).
    A job's duration scales with its hours (``costs.wall_hours``), so its end at quantile c is
    start + (end − start) · hours_multiplier(c), the day the deadline rule checks (solver.options)."""
    sure = median = -math.inf
    for a in plan.assignments:
        if a.workload in jobs:
            sure = max(sure, a.start_day + (a.end_day - a.start_day) * hours_multiplier(confidence))
            median = max(median, a.end_day)
    return sure, median


def finish_by(project: Project, sizings: list, jobs: tuple[str, ...], day: float) -> tuple[Project, list]:
    """The project and its sizings with every traced job due by ``day``: its deadline_days lowered to
    ⌊day + its buffer⌋ (never raised), so that ``deadline_days_for`` ≤ day. The sizings carry their
    workload (the option table reads its deadline there), so they get the same one."""
    due_by: dict[str, Workload] = {}
    for w in project.workloads:
        if w.name in jobs:
            due = max(math.floor(day + project.slack_for(w) + TOL), math.floor(w.earliest_start_days) + 1)
            if due < w.deadline_days:
                due_by[w.name] = w.model_copy(update={"deadline_days": due})
    tight = project.model_copy(update={"workloads": [due_by.get(w.name, w) for w in project.workloads]})
    return tight, [
        dataclasses.replace(s, workload=due_by[s.workload.name]) if s.workload.name in due_by else s for s in sizings
    ]


def fastest_possible(result: Result, jobs: tuple[str, ...]) -> float:
    """L: no plan ends the traced jobs before the latest of their fastest options' earliest finish at the
    deadline confidence (each option's first allowed start plus its duration at that quantile)."""
    conf = result.project.deadline_confidence
    period = result.project.period_days
    bound = 0.0
    for name in jobs:
        opts = [o for o in result.every_option.get(name, []) if o.starts and o.confidence is None]
        if opts:
            bound = max(bound, min(o.starts[0] * period + o.wall_days * hours_multiplier(conf) for o in opts))
    return bound


def check_jobs(project: Project, jobs: list[str] | None, source: str = "--jobs") -> tuple[str, ...]:
    """The traced jobs: the named ones (each must be a workload of the project), or every job."""
    if not jobs:
        return tuple(w.name for w in project.workloads)
    names = [w.name for w in project.workloads]
    unknown = [j for j in jobs if j not in names]
    if unknown:
        from procure.common.errors import did_you_mean
        from procure.common.text import echo

        said = ", ".join(f"{echo(j)}{did_you_mean(j, names)}" for j in unknown[:5])
        raise InputError(
            [Problem("command line", source, f"no workload named {said}; the jobs are {', '.join(names)}")]
        )
    return tuple(dict.fromkeys(jobs))


def check_not_set_aside(
    jobs: list[str] | None, set_aside: list[SetAside], planned: list[str], source: str = "--jobs"
) -> None:
    """A job named in ``jobs`` that the plan sets aside (``set_aside``) has no point on the frontier: bad input,
    said as such (it is a workload of the file, so "no workload named" would mislead)."""
    from procure.common.text import echo

    aside = {x.workload: x for x in set_aside}
    hit = [j for j in jobs or [] if j in aside]
    if not hit:
        return
    rest = ", ".join(planned) or "none"
    raise InputError(
        [
            Problem(
                "command line",
                source,
                f"job {echo(j)} is set aside by the plan ({aside[j].summary}), so it has no point on the frontier; "
                f"name planned jobs only (planned: {rest})",
            )
            for j in hit
        ]
    )


def _shape(a: Assignment) -> Msg:
    """ "rent 2 nodes (16 × H100-SXM-80GB) on rent-8x-h100": the nodes and the GPUs in them, never a bare count."""
    return say(
        "{mode} {count} on {offer}", mode=_mode(a.mode), count=node_count(a.nodes, a.gpus, a.gpu), offer=a.offer_id
    )


def _mode(mode) -> Label:
    """A deployment mode in a sentence, in the reader's language (the reports' "buy", "rent", "cloud")."""
    return Label(str(mode), str(mode))


def changes_from(base: Plan, plan: Plan) -> list[Change]:
    """What a point's plan does differently from the cheapest plan: per job a new offer, node count or start,
    then the nodes bought per offer, and a contract's peak nodes where no job's move already says it."""
    out: list[Change] = []
    before = {a.workload: a for a in base.assignments}
    for a in plan.assignments:
        b = before.get(a.workload)
        if b is None:
            continue
        if a.offer_id == b.offer_id and a.nodes != b.nodes:
            text = say(
                "{job}: {now} instead of {was} ({mode}, {offer})",
                job=a.workload,
                now=node_count(a.nodes, a.gpus, a.gpu),
                was=node_count(b.nodes, b.gpus),
                mode=_mode(a.mode),
                offer=a.offer_id,
            )
        elif a.offer_id != b.offer_id:
            text = say("{job}: {now} instead of {was}", job=a.workload, now=_shape(a), was=_shape(b))
        elif abs(a.start_day - b.start_day) > TOL:
            text = say(
                "{job}: starts day {day} instead of {was}",
                job=a.workload,
                day=f"{a.start_day:g}",
                was=f"{b.start_day:g}",
            )
        else:
            continue
        out.append(Change(a.workload, text))
    was, now = _held(base, purchases=True), _held(plan, purchases=True)
    for oid in sorted(set(was) | set(now)):  # bought nodes are shared by jobs: say so apart
        if was.get(oid, 0) != now.get(oid, 0):
            text = say(
                "buy {nodes} node(s) of {offer} instead of {was}", nodes=now.get(oid, 0), offer=oid, was=was.get(oid, 0)
            )
            out.append(Change(None, text))
    was, now = _held(base, purchases=False), _held(plan, purchases=False)
    for oid in sorted(set(was) | set(now)):  # a contract's peak, when no job's move above already says it
        if was.get(oid, 0) != now.get(oid, 0) and not any(oid in c.text for c in out):
            text = say(
                "rent {nodes} node(s) of {offer} at peak instead of {was}",
                nodes=now.get(oid, 0),
                offer=oid,
                was=was.get(oid, 0),
            )
            out.append(Change(None, text))
    return out


def _held(plan: Plan, purchases: bool) -> dict[str, int]:
    """Nodes bought per offer, or the peak nodes under contract per offer (owned and signed ones aside)."""
    if purchases:
        held: dict[str, int] = {}
        for p in plan.purchases:
            if not p.committed:
                held[p.offer_id] = held.get(p.offer_id, 0) + p.nodes
        return held
    peak: dict[str, int] = {}
    for oid in {r.offer_id for r in plan.rentals if not r.committed}:
        rs = [r for r in plan.rentals if r.offer_id == oid and not r.committed]
        days = sorted({r.start_day for r in rs})
        peak[oid] = max(sum(r.nodes for r in rs if r.start_day <= d < r.end_day) for d in days)
    return peak


class _Tracer:
    """The solves of one frontier: the project (set-aside jobs out), its sizings, the traced jobs, the budget."""

    def __init__(self, base: Result, sizings, resize, traced: tuple[str, ...], points: int, budget: Budget, kw):
        self.base = base
        self.project = base.project
        names = {w.name for w in self.project.workloads}
        self.sizings = [s for s in sizings if s.workload.name in names]
        self.traced = traced
        self.resize = resize
        self.points = points
        self.budget = budget
        self.kw = kw
        self.offers = list(base.offers.values())  # owned servers included, as the base plan saw them
        self.conf = self.project.deadline_confidence
        self.found: list[FrontierPoint] = []

    def done(self, r: Result) -> float:
        return completion(r.planned(), self.traced, self.conf)[0]

    def out_of_time(self) -> bool:
        return _out_of_time(self.budget)

    def solve_by(self, day: float) -> Result | None:
        """The cheapest verified plan that ends the traced jobs by ``day``, or None (none does, or no time)."""
        from procure.solver.planner import plan_from_sizings

        if self.out_of_time():
            return None
        share = self.budget.share(1.0 / max(1, self.points - len(self.found)))
        tight, tight_sizings = finish_by(self.project, self.sizings, self.traced, day)
        r = plan_from_sizings(
            tight, self.offers, tight_sizings, self.resize, budget=share, all_or_nothing=True, **self.kw
        )
        if r.plan is None or self.done(r) > day + TOL:
            return None  # no plan, or one that meets the day only at a lower confidence than asked
        return r

    def add(self, r: Result, day: float | None, progress) -> None:
        done, median = completion(r.planned(), self.traced, self.conf)
        changes = changes_from(self.base.planned(), r.planned()) if self.found else []
        p = FrontierPoint(r, day, done, median, changes)
        self.found.append(p)
        if progress is not None:
            progress(len(self.found) - 1, p)

    def fastest(self, lower: float, c0: float) -> tuple[Result | None, bool]:
        """The fastest plan: at the lower bound, else by bisection on whole finish-by days between it and the
        cheapest plan's completion; and whether it is proven the fastest (to a day)."""
        first_day = math.ceil(lower - TOL)  # finish-by days are whole days
        found = self.solve_by(first_day)
        if found is not None:
            return found, True
        lo, hi, best = first_day, day_before(c0) + 1, None  # no plan ends by lo; the cheapest one ends by hi
        for _ in range(MAX_BISECTIONS):
            if hi - lo <= 1 or self.out_of_time():
                break
            mid = (lo + hi) // 2
            r = self.solve_by(mid)
            if r is None:
                lo = mid
            else:
                best, hi = r, day_before(self.done(r)) + 1
        return best, hi - lo <= 1

    def walk(self, c0: float, c_fast: float, progress) -> None:
        """The points between: finish-by days F_k = min(⌈C_{k−1}⌉ − 1, ⌊C_0 − k·Δ⌋) (module docstring)."""
        step = (c0 - c_fast) / (self.points - 1)
        k = 1
        while len(self.found) < self.points - 1 and not self.out_of_time():
            day = min(day_before(self.found[-1].completion_day), math.floor(c0 - k * step + TOL))
            k += 1
            if day <= day_before(c_fast):
                return  # only the fastest plan ends by then
            r = self.solve_by(day)
            if r is None or self.done(r) <= c_fast + TOL:
                return  # none, or the fastest plan itself: it closes the curve
            self.add(r, day, progress)


def trace(
    project: Project,
    offers: list[Offer],
    sizings,
    resize,
    *,
    jobs: list[str] | None = None,
    points: int = 8,
    solver: str = "cbc",
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
    budget: Budget | None = None,
    base: Result | None = None,
    progress=None,
) -> Frontier:
    """The frontier of ``points`` points at most (≥ 2) from the cheapest plan to the fastest (module docstring).
    ``base``: the cheapest plan when already solved (``procure solve --frontier``); its set-aside jobs stay
    out. ``progress(k, point)`` is called as each point is found."""
    from procure.solver.planner import plan_from_sizings

    if not 2 <= points <= MAX_POINTS:
        raise InputError([Problem("command line", "--points", f"{points} points: give 2 to {MAX_POINTS}")])
    budget = budget or Budget(None)
    kw: dict[str, Any] = dict(solver=solver, gap=gap, objective=objective, compare=False, n_runner_ups=0)
    if base is None:
        base = plan_from_sizings(project, offers, sizings, resize, budget=budget.share(1.0 / points), **kw)
    # a job the budgets (or capacity) set aside is known only now, after the cheapest plan's solve
    check_not_set_aside(jobs, base.set_aside, [w.name for w in base.project.workloads])
    traced = check_jobs(base.project, jobs)
    if base.plan is None:
        return Frontier(
            base, base.project, traced, objective, [], 0.0, note=say("no plan: nothing to trace"), fastest_proven=False
        )
    names = {w.name for w in base.project.workloads}
    t = _Tracer(base, sizings, resize, tuple(j for j in traced if j in names), points, budget, kw)
    t.add(base, None, progress)
    c0 = t.found[0].completion_day
    lower = fastest_possible(base, t.traced)
    if day_before(c0) < math.ceil(lower - TOL):
        note = say("the cheapest plan is already the fastest these offers allow (to a day)")
        return Frontier(base, t.project, t.traced, objective, t.found, lower, note=note)
    fastest, proven = t.fastest(lower, c0)
    if fastest is None:
        late = t.out_of_time()
        note = (
            say("the time limit ended the search before a faster plan was found")
            if late
            else say("no plan ends the traced jobs a day sooner than the cheapest plan")
        )
        return Frontier(base, t.project, t.traced, objective, t.found, lower, note=note, fastest_proven=not late)
    t.walk(c0, t.done(fastest), progress)
    t.add(fastest, None, progress)
    curve = non_dominated(t.found, objective)
    cut: Msg | str = ""
    if t.out_of_time():
        cut = say("the time limit ended the frontier early: points between may be missing")
    elif curve[0] is not t.found[0]:
        first = t.found[0]
        cut = say(
            "the recommended plan ends on day {day} at {cost}; a plan that ends sooner costs no more, so the curve "
            "starts there",
            day=f"{first.completion_day:.1f}",
            cost=f"{float(objective.of(first.plan)):,.2f}",
        )
    return Frontier(
        base,
        t.project,
        t.traced,
        objective,
        curve,
        lower,
        note=cut,
        fastest_proven=proven,
        dropped=len(t.found) - len(curve),
    )


def _out_of_time(budget: Budget) -> bool:
    left = budget.remaining()
    return left is not None and left <= 0


def non_dominated(found: list[FrontierPoint], objective: Objective) -> list[FrontierPoint]:
    """The points on the curve, in their order: a point that costs at least as much (to ``TOL``) as a point that
    ends sooner, or as soon, is left out (possible only when a point was solved to a gap, or two plans tie).
    That holds for the first point too, the plan ``procure solve`` recommends: where a plan ending sooner costs
    no more, the curve starts at that plan and the frontier says so (``trace``)."""
    best = math.inf
    out: set[int] = set()
    for p in sorted(found, key=lambda q: (q.completion_day, float(objective.of(q.plan)))):
        cost = float(objective.of(p.plan))
        if cost < best - TOL:
            out.add(id(p))
        best = min(best, cost)
    return [p for p in found if id(p) in out]


def plan_frontier(
    project: Project, offers: list[Offer], *, jobs: list[str] | None = None, points: int = 8, **kw
) -> Frontier:
    """Size the programme, then trace its frontier (``trace``)."""
    from procure.solver import holdings
    from procure.solver.options import OptionTable
    from procure.solver.partial import set_aside_unplaceable
    from procure.solver.planner import Resizer, check_holdings
    from procure.solver.sizing import size_project

    check_jobs(project, jobs)
    check_holdings(project, offers)
    offers = holdings.with_owned(project, offers)
    sizings = size_project(project, offers)
    if jobs:  # a named job no offer can run is set aside by the plan: said before any solve
        table = OptionTable(project, {o.id: o for o in offers}, sizings)
        aside = set_aside_unplaceable(project, table, tuple(project.allowed_modes))
        gone = {x.workload for x in aside}
        check_not_set_aside(jobs, aside, [w.name for w in project.workloads if w.name not in gone])
    return trace(project, offers, sizings, Resizer(project), jobs=jobs, points=points, **kw)
