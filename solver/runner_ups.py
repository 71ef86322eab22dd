"""Runner-ups: for each job, the best plan with the job held to another offer, re-solved and verified like the
chosen one, and the reason it lost (price, tie, lead time, deadline, …)."""

from __future__ import annotations

from procure.common.runtime import Budget
from procure.models.offer import Offer
from procure.models.project import Project
from procure.solver.enums import Objective

from . import planner  # the strategy solve these re-run (planner imports this module)
from .enums import SolveStatus, Strategy
from .options import Option, cheapest_first
from .reasons import Clauses, say
from .result import RunnerUp, StrategyResult, cost_on
from .verify import VerificationError


def runner_ups(
    project: Project,
    offers: dict[str, Offer],
    sizings,
    hybrid: StrategyResult,
    objective: Objective,
    n: int = 2,
    budget: Budget | None = None,
    reserve: float = 0.0,
    **kw,
) -> dict[str, list[RunnerUp]]:
    """Per workload, the ``n`` other offers with the cheapest stand-alone shapes, each costed like with
    like: the whole plan re-solved with the workload held to that offer, against the chosen plan.

    Within a limited ``budget`` each re-solve gets an equal part of what is left; once that part would
    be under ``planner.RUNNER_UP_MIN_SECONDS`` no further runner-up is costed (the lists are shorter)."""
    budget = budget or Budget(None)
    out: dict[str, list[RunnerUp]] = {}
    plan = hybrid.plan
    if plan is None:
        return out
    base = cost_on(plan, objective)
    if base is None:  # cost_on is None only without a plan
        return out
    todo: list[tuple[str, Option]] = []
    for a in plan.assignments:
        seen: set[str] = {a.offer_id}
        mine: list[tuple[str, Option]] = []
        for o in cheapest_first(hybrid.every_option.get(a.workload, [])):
            if o.offer_id not in seen and len(mine) < n:
                seen.add(o.offer_id)
                mine.append((a.workload, o))
        todo += mine
    for k, (w, o) in enumerate(todo):
        share = budget.share(1.0 / (len(todo) - k), reserve)
        if share.seconds is not None and share.seconds < planner.RUNNER_UP_MIN_SECONDS:
            # no time left to cost the rest: listed, and said so
            for w2, o2 in todo[k:]:
                skipped = RunnerUp(
                    o2,
                    None,
                    None,
                    status=SolveStatus.NO_SOLUTION,
                    cause="(time limit)",
                    note=str(SKIPPED),
                    note_message=SKIPPED,
                )
                out.setdefault(w2, []).append(skipped)
            break
        alt = planner.run_strategy(
            project,
            offers,
            sizings,
            Strategy.HYBRID,
            hybrid.modes,
            objective=objective,
            only={w: o.offer_id},
            budget=share,
            **kw,
        )
        out.setdefault(w, []).append(_runner_up(w, o, alt, base, objective))
    return out


#: the note of a runner-up that --time-limit left no time to cost
SKIPPED = say("not solved: no time was left within --time-limit")


def skipped_note(ups: dict[str, list[RunnerUp]]) -> str:
    """What the console and the JSON say when --time-limit left no time to cost any runner-up ("" otherwise)."""
    every = [r for rs in ups.values() for r in rs]
    if every and all(r.cause == "(time limit)" and r.plan_cost is None for r in every):
        return "runner-ups not costed: no time was left within --time-limit; raise --time-limit to cost them"
    return ""


def _runner_up(workload: str, option: Option, alt: StrategyResult, base: float, objective: Objective) -> RunnerUp:
    """The re-solve's answer for ``option``: costed only when its plan runs the workload on that offer."""
    where = next((x for x in alt.plan.assignments if x.workload == workload), None) if alt.plan else None
    cost = cost_on(alt.plan, objective)
    gap = alt.solve.gap if alt.solve else None
    if where is not None and where.offer_id != option.offer_id:
        # a plan with the workload elsewhere is no answer for this offer (planner.run_strategy holds it there; never shown as one)
        raise VerificationError(
            [f"runner-up: the re-solve for {workload!r} on {option.offer_id} placed it on {where.offer_id}"]
        )
    if alt.plan is None or where is None or cost is None:
        cause: str | None = "(time limit)"
        if alt.status == SolveStatus.INFEASIBLE:
            why = "; ".join(line for lines in alt.reasons.values() for line in lines) or "no plan meets every rule"
            cause = next((k for k in ("(budget)", "(capacity)") if k in alt.reasons), None)
            leads = {"(budget)": "no plan: excluded by the budget", "(capacity)": "no plan: the offers' capacity"}
            lead = leads.get(cause or "", "no plan")
            note = f"{lead}: {why}"
            lines = tuple(line for lines in alt.reasons.values() for line in lines)
            # the same words, each part a sentence the reports translate
            message = say(
                "{lead}: {why}",
                lead=say(lead),
                why=Clauses(lines, "; ") if lines else say("no plan meets every rule"),
            )
        else:
            message = say("not solved within its share of --time-limit")
            note = str(message)
        return RunnerUp(option, None, None, None, alt.status, gap, note=note, cause=cause, note_message=message)
    return RunnerUp(option, where, cost - base, cost, alt.status, gap, plan=alt.plan)
