"""Why not offer X for job W: the whole plan re-solved with W held to X, against the chosen plan.

The answer has three parts, each from the machinery that already decides it:

- the cost difference by category (``costs.CATEGORIES``): held plan − chosen plan, each category the sum
  of that plan's cash flows (``costs.by_category``), undiscounted; the total on the minimized objective;
- the reason it lost (``Why``): ``price`` when the held plan is feasible and costs more (the categories
  say where), else the rule that keeps the offer out (``reasons.Rule`` of its rejection: fit, deadline,
  lead time, term, excluded by a setting) or the joint cause of the held re-solve (budget, capacity,
  time limit);
- its break-even price, which ``analysis.break_even`` computes (``procure.app_explain.explain`` adds it).

The re-solve is a runner-up's (``runner_ups.runner_ups``): ``run_strategy(only={W: X})``, verified with
``verify_plan(held=...)``; a runner-up already costed in the result is reused, not solved again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from procure.common.runtime import Budget

from .costs import CATEGORIES
from .enums import SolveStatus, Strategy
from .plan import Plan
from .planner import Resizer, run_strategy
from .reasons import Amount, Label, Msg, Rule, say
from .result import Result, RunnerUp, cost_on
from .runner_ups import _runner_up


class Why(StrEnum):
    """Why an offer lost for a job. The value is the JSON ``explain[].why``."""

    CHOSEN = "chosen"  # the plan runs the job on it: nothing to explain
    SAME = "same"  # held to it, the plan costs the same: a tie the solver broke the other way
    PRICE = "price"  # feasible, and the whole plan costs more (the categories say where)
    LEAD_TIME = "lead_time"  # its lead time leaves no start that meets the deadline
    DEADLINE = "deadline"  # no shape of it finishes by the deadline
    TERM = "term"  # its minimum rental or reserved term exceeds the horizon
    FIT = "fit"  # no shape fits (GPU memory, host RAM, CPU, fabric, NVMe, interconnect, precision)
    EXCLUDED = "excluded"  # a setting rules it out: allowed_modes, allow_spot, allowed_gpus, region
    BUDGET = "budget"  # held to it, no plan meets the budgets
    CAPACITY = "capacity"  # held to it, the offers' max_nodes cannot hold every job before its deadline
    TIME_LIMIT = "time_limit"  # the re-solve found no plan within its share of --time-limit
    QUOTA = "quota"  # every shape of it needs more GPUs at once than a quota allows
    WINDOW = "window"  # it is available (available_from / available_until) only outside the job's time


#: the rule of a rejection, as the reason an offer lost
RULE_WHY: dict[Rule, Why] = {
    Rule.MODE_NOT_ALLOWED: Why.EXCLUDED,
    Rule.SPOT_EXCLUDED: Why.EXCLUDED,
    Rule.GPU_NOT_ALLOWED: Why.EXCLUDED,
    Rule.REGION: Why.EXCLUDED,
    Rule.PRECISION: Why.FIT,
    Rule.HOST_RAM: Why.FIT,
    Rule.CPU_CORES: Why.FIT,
    Rule.GPU_MEMORY: Why.FIT,
    Rule.FABRIC: Why.FIT,
    Rule.INTERCONNECT_BOUND: Why.FIT,
    Rule.NVME: Why.FIT,
    Rule.RENT_TERM: Why.TERM,
    Rule.QUOTA: Why.QUOTA,
    Rule.OFFER_WINDOW: Why.WINDOW,
    Rule.DEADLINE: Why.DEADLINE,
    Rule.OTHER: Why.FIT,
}


@dataclass
class Explanation:
    """One (workload, offer) answer. Costs are in the reporting currency; ``held_cost`` and
    ``chosen_cost`` on the minimized objective, ``categories`` undiscounted (category → (chosen, held))."""

    workload: str
    offer_id: str
    mode: str
    chosen_offer: str  # where the recommended plan runs the workload
    why: Why
    reason: str  # the sentence a person reads
    chosen_cost: float
    held_cost: float | None = None
    status: SolveStatus | None = None  # how the held re-solve ended (a gap makes the difference an upper bound)
    categories: dict[str, tuple[float, float]] = field(default_factory=dict)
    held_plan: Plan | None = field(default=None, repr=False)
    break_even: object | None = None  # analysis.break_even.BreakEven, added by procure.app_explain.explain
    #: ``reason`` as the reports render it in the reader's language: a sentence, or a rejection's reasons
    message: Msg | tuple | None = None

    @property
    def extra_cost(self) -> float | None:
        """Held plan − chosen plan on the objective; None without a held plan."""
        return None if self.held_cost is None else self.held_cost - self.chosen_cost

    def difference(self, category: str) -> float:
        chosen, held = self.categories.get(category, (0.0, 0.0))
        return held - chosen


def category_rows(chosen: Plan, held: Plan) -> dict[str, tuple[float, float]]:
    """Category → (chosen, held), for every category either plan spends on (undiscounted)."""
    out = {}
    for c in CATEGORIES:
        a, b = chosen.breakdown.get(c, 0.0), held.breakdown.get(c, 0.0)
        if abs(a) > 0.005 or abs(b) > 0.005:
            out[c] = (a, b)
    return out


def candidates(result: Result, offer_id: str) -> list[str]:
    """The workloads that could run on ``offer_id`` (a deadline-feasible shape), in the file's order."""
    return [
        w.name
        for w in result.project.workloads
        if any(o.offer_id == offer_id for o in result.every_option.get(w.name, []))
    ]


def _price_reason(
    held: float, base: float, cats: dict[str, tuple[float, float]], currency: str, chosen: str = ""
) -> tuple[Why, Msg]:
    diff = held - base
    if abs(diff) <= 1e-6 * max(1.0, abs(base)):
        return Why.SAME, say(
            "held to it, the whole plan costs the same: either offer will do, and the recommended plan uses {chosen}",
            chosen=chosen,
        )
    moves = sorted(((b - a, c) for c, (a, b) in cats.items() if abs(b - a) > 0.5), key=lambda x: -abs(x[0]))
    where = [
        say("{category} {amount}", category=Label(c, c.replace("_", " ")), amount=Amount(d, signed=True))
        for d, c in moves[:3]
    ]
    more = (
        say("{amount} more", amount=Amount(diff, currency))
        if diff > 0
        else say("{amount} less (the chosen plan's solve stopped at a gap)", amount=Amount(-diff, currency))
    )
    if not where:
        return Why.PRICE, say("held to it, the whole plan costs {more}", more=more)
    return Why.PRICE, say("held to it, the whole plan costs {more} ({where})", more=more, where=tuple(where))


def _rejected(result: Result, workload: str, offer_id: str, base: float, chosen: str) -> Explanation:
    """No shape of the offer can run the job: the rule that keeps it out."""
    offer = result.offers[offer_id]
    rej = next((r for r in result.rejections if r.workload == workload and r.offer_id == offer_id), None)
    if offer.mode not in result.hybrid.modes:
        why, text = Why.EXCLUDED, f"{offer.mode} is not in allowed_modes ({', '.join(result.hybrid.modes)})"
    elif rej is None:
        why, text = (
            Why.EXCLUDED,
            "no shape of it is an option for this workload (spot excluded by allow_spot, or not sized)",
        )
    else:
        why = RULE_WHY[rej.rule]
        w = next(x for x in result.project.workloads if x.name == workload)
        if why is Why.DEADLINE and offer.lead_time_days > w.earliest_start_days:
            why = Why.LEAD_TIME
        return Explanation(workload, offer_id, offer.mode, chosen, why, rej.reason, base, message=tuple(rej.reasons))
    return Explanation(workload, offer_id, offer.mode, chosen, why, text, base)


def explain(
    result: Result,
    workload: str,
    offer_id: str,
    *,
    solver: str = "cbc",
    gap: float = 1e-6,
    budget: Budget | None = None,
    resize=None,
) -> Explanation:
    """Why ``workload`` does not run on ``offer_id`` in the recommended plan (module docstring). The plan
    must exist; ``workload`` and ``offer_id`` must be the project's and the catalog's (the caller checks)."""
    plan = result.plan
    if plan is None:
        raise ValueError("explain needs a plan")
    objective = result.objective
    base = cost_on(plan, objective)
    if base is None:
        raise ValueError("explain needs a plan")
    chosen = next(a.offer_id for a in plan.assignments if a.workload == workload)
    offer = result.offers[offer_id]
    if chosen == offer_id:
        return Explanation(
            workload,
            offer_id,
            offer.mode,
            chosen,
            Why.CHOSEN,
            "the recommended plan runs it on this offer",
            base,
            base,
            result.status,
            category_rows(plan, plan),
            plan,
        )
    shapes = [o for o in result.every_option.get(workload, []) if o.offer_id == offer_id]
    if not shapes:
        return _rejected(result, workload, offer_id, base, chosen)
    known = next(
        (r for r in result.runner_ups.get(workload, []) if r.option.offer_id == offer_id and r.plan is not None), None
    )
    if known is None:
        alt = run_strategy(
            result.project,
            result.offers,
            result.sizings,
            Strategy.HYBRID,
            result.hybrid.modes,
            resize=resize or Resizer(result.project),
            solver=solver,
            gap=gap,
            objective=objective,
            only={workload: offer_id},
            budget=budget,
        )
        known = _runner_up(workload, min(shapes, key=lambda o: o.standalone_cost), alt, base, objective)
    return from_runner_up(result, workload, known, base, chosen)


def from_runner_up(result: Result, workload: str, r: RunnerUp, base: float, chosen: str) -> Explanation:
    """A costed (or failed) held re-solve as an explanation."""
    offer = r.option.offer
    if r.plan is None or r.plan_cost is None or result.plan is None:
        why = {"(budget)": Why.BUDGET, "(capacity)": Why.CAPACITY, "(time limit)": Why.TIME_LIMIT}.get(
            r.cause or "", Why.CAPACITY
        )
        return Explanation(
            workload,
            offer.id,
            offer.mode,
            chosen,
            why,
            r.note or "no plan",
            base,
            None,
            r.status,
            message=r.note_message,
        )
    cats = category_rows(result.plan, r.plan)
    why, text = _price_reason(r.plan_cost, base, cats, result.project.currency, chosen)
    return Explanation(
        workload, offer.id, offer.mode, chosen, why, str(text), base, r.plan_cost, r.status, cats, r.plan, message=text
    )
