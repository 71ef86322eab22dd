"""Partial plans: which jobs a programme can hold when not all of them can be planned — jobs no offer can
run are set aside with their reasons, and under a budget or shared capacity the most jobs are kept (then
the cheapest such set, re-solving without each job, each pair, …), never a required one while an optional
one could go instead."""

from __future__ import annotations

import itertools

from procure.common.runtime import Budget
from procure.models.offer import Offer
from procure.models.project import Project
from procure.solver.enums import Objective

from . import planner  # the strategy solve these re-run (planner imports this module)
from .enums import Strategy
from .options import OptionTable, Rejection
from .reasons import RULE_LABEL, Amount, Clauses, Label, Rule, render, say
from .result import SetAside, StrategyResult, cost_on

# A budget (or shared capacity) that cannot hold every job: at most this many re-solves look for the
# largest set of jobs it can hold (see ``largest_coverable``).
MAX_SUBSET_SOLVES = 64


def without(project: Project, sizings, names) -> tuple[Project, list]:
    """The programme without the jobs ``names``: the project and the sizings of the others."""
    drop = set(names)
    kept = project.model_copy(update={"workloads": [w for w in project.workloads if w.name not in drop]})
    return kept, [sz for sz in sizings if sz.workload.name not in drop]


def fit_summary(rejections: list[Rejection]) -> tuple[str, tuple[str, ...]]:
    """The headline's phrase for a job no offer can run: the rule that removed the most offers first, each
    rule with its count and key figure on one offer it names ("GPU memory (3 offers): needs 28.2 GB per
    GPU, 25.6 GB usable on lab-8x-rtx-4090"); for the deadline, the fastest shape of all — what a new
    deadline would have to allow ("deadline (5 offers): the fastest, 16 × aws-p5 in 10.6 days, finishes
    day 40.6"). The phrase is a ``reasons.Msg``."""
    groups: dict[Rule, list[Rejection]] = {}
    for r in rejections:
        groups.setdefault(r.rule, []).append(r)
    ordered = sorted(groups.items(), key=lambda kv: -len(kv[1]))  # stable: the first rule met breaks ties
    parts = []
    for rule, rs in ordered:
        count = say(" ({n} offers)", n=len(rs)) if len(rs) > 1 else ""
        label = Label(RULE_LABEL[rule], RULE_LABEL[rule])
        parts.append(say("{label}{count}: {detail}", label=label, count=count, detail=_rule_detail(rule, rs)))
    return say("{parts}", parts=Clauses(tuple(parts), "; ")), tuple(str(rule) for rule, _rs in ordered)


def _rule_detail(rule: Rule, rs: list[Rejection]) -> str:
    """One rule's figure: the fastest shape for the deadline, else the key figure on the first offer."""
    if rule is Rule.DEADLINE:
        timed = [(x, r) for r in rs for x in r.reasons if x.rule is rule and x.wall_days is not None]
        if timed:
            x, r = min(timed, key=lambda t: (t[0].wall_days, t[1].offer_id))
            return say(
                "the fastest, {nodes} node(s) of {offer} in {days} days, finishes day {end}",
                nodes=x.nodes,
                offer=r.offer_id,
                days=f"{x.wall_days:.1f}",
                end=f"{x.finish_day:.1f}",
            )
    r = rs[0]
    short = next((x.short for x in r.reasons if x.rule is rule and x.short), "")
    if short:
        return say("{short} on {offer}", short=short, offer=r.offer_id)
    return say("e.g. {offer}: {reason}", offer=r.offer_id, reason=render(r.reasons))


def set_aside_unplaceable(project: Project, table: OptionTable, modes: tuple[str, ...]) -> list[SetAside]:
    """The jobs no offer of ``modes`` can run (no deadline-feasible shape), each with its reasons. None when
    every job has an option, or when no job has one (then nothing can be planned: all-or-nothing's answer)."""
    options, rejections, _every = table.select(modes, project.allow_spot)
    missing = [w.name for w in project.workloads if not options.get(w.name)]
    if not missing or len(missing) == len(project.workloads):
        return []
    if any(w.priority == "required" for w in project.workloads if w.name in missing):
        return []  # a required job is never set aside: without it there is no plan (all-or-nothing's answer)
    out = []
    for w in missing:
        mine = [r for r in rejections if r.workload == w and r.rule is not Rule.MODE_NOT_ALLOWED]
        summary, rules = (
            fit_summary(mine) if mine else (say("the catalog has no {modes} offer for it", modes=" / ".join(modes)), ())
        )
        out.append(SetAside(w, "fit", summary, tuple(planner.explain_unplaceable(w, rejections, modes)), rules))
    return out


def largest_coverable(
    project: Project,
    offers: dict[str, Offer],
    sizings,
    modes: tuple[str, ...],
    objective: Objective,
    budget: Budget,
    reserve: float,
    **kw,
) -> tuple[tuple[str, ...], Project, list, StrategyResult] | None:
    """The rule for a programme the budgets (or the offers' shared capacity) cannot hold whole: plan the most
    jobs that fit, and of the sets of that size the cheapest on the objective. Exact by enumeration: every
    programme without one job (each re-solved and verified), then without two, …; the first size with a
    plan wins, ties broken by cost, then by the order of the workload file. At most ``MAX_SUBSET_SOLVES``
    re-solves and within ``budget``; None when no set was found within them (the whole programme then has
    no plan, as with --all-or-nothing). Only optional jobs are set aside (``priority: required`` never is): when
    the required jobs alone have no plan, neither has the programme."""
    names = [w.name for w in project.workloads if w.priority != "required"]
    required = len(project.workloads) - len(names)
    tried = 0
    for k in range(1, len(names) + (1 if required else 0)):
        best: tuple[float, tuple[str, ...], Project, list, StrategyResult] | None = None
        for drop in itertools.combinations(names, k):
            if tried >= MAX_SUBSET_SOLVES or planner._spent(budget, reserve):
                return None
            tried += 1
            sub, sub_sizings = without(project, sizings, drop)
            res = planner.run_strategy(
                sub,
                offers,
                sub_sizings,
                Strategy.HYBRID,
                modes,
                objective=objective,
                budget=budget.share(0.25, reserve),
                **kw,
            )
            cost = cost_on(res.plan, objective)
            if cost is not None and (best is None or cost < best[0] - 1e-6):
                best = (cost, drop, sub, sub_sizings, res)
        if best is not None:
            return best[1], best[2], best[3], best[4]
    return None


def _budget_set_aside(
    project: Project, dropped: tuple[str, ...], kept: Project, why: dict[str, list[str]]
) -> list[SetAside]:
    """The jobs ``largest_coverable`` left out, each with the joint reason (the budgets' shortfall, or capacity)."""
    cause = "budget" if "(budget)" in why else "capacity"
    lines = tuple(line for lines in why.values() for line in lines)
    n, total = len(kept.workloads), len(project.workloads)
    summary: str
    if cause == "budget":
        caps = tuple(
            say("budget_{kind} {cap}", kind=kind, cap=Amount(cap, project.currency))
            for kind, cap in project.budgets.items()
        )
        summary = say(
            "{caps} covers {n} of the {total} jobs at most; it does not cover this one with the others",
            caps=caps,
            n=n,
            total=total,
        )
    else:
        summary = say(
            "the offers' max_nodes hold {n} of the {total} jobs at most before their deadlines; "
            "not this one with the others",
            n=n,
            total=total,
        )
    return [SetAside(w, cause, summary, lines) for w in dropped]
