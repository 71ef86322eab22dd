"""Break-even prices: at what price would a losing offer, or a losing single-mode strategy, win?

Offer (not in today's optimal plan), price p in its own price field (``PRICE_FIELD``). Every plan's cost
is linear in p — capex, residual value and maintenance are proportional to the purchase price, rent to
the monthly price, the cloud bill to the hourly price (solver/costs.py) — so the optimum

    z(p) = min( B, min over plans P that use the offer of a_P + b_P·p )

is concave and piecewise linear, where B is today's optimum (it does not use the offer, so it does not
depend on p). The break-even price p* is the largest p with z(p) = a_P + b_P·p ≤ B for some P that uses
the offer. Search (Newton on the concave envelope, each step a full MILP re-solve):

    p_0 = 0; solve at p_k; if the optimum uses the offer and costs less than B, its line gives
    p_{k+1} = (B − a_P)/b_P > p_k; stop when the optimum at p_k costs B (a tie: p* = p_k).

Each step lands on a new line of the envelope, so it ends after at most as many steps as lines cross
B — two or three re-solves in practice. The price reported is p* rounded down to the cent: at the
reported price the offer ties or wins, and a cent below it strictly wins. If even p = 0 leaves the
offer out, no price in [0, today] wins, and the reason says why (what it costs besides its price, or
the rule — lead time, deadline, memory — that keeps it out).

Strategy (buy-only, rent-only or cloud-only, when it lost to the optimum): the largest price level
k ∈ [0, 1] of every offer of that mode at which the optimum uses that mode alone (then the single-mode
plan is the optimum; at the break-even it ties the mixed one). Each step re-solves the free plan at
one level; the next level is where the cost lines of the bracketing plans cross (exact when they are
the plans active there), else the midpoint. It assumes, as the question does, that cheaper prices of
a mode never make a plan of that mode alone less attractive.

Driver (``staff``, ``network``, ``storage``: the costs beyond the servers, when the inputs have them):
the factor k on today's figures at which today's recommended plan stops being optimal. Every plan's cost
is linear in k (costs.py: FTE cost, network per node and fixed charges, storage and egress prices). When
today's plan pays the driver's costs, k rises from 1 to at most DRIVER_MAX: the answer is the largest k
at which today's plan is still optimal. When it pays none of them, k falls from 1 to 0: the answer is
the k below which a plan that pays them costs less than today's. Both compare the re-solved optimum with
today's plan re-costed at the same k — what the tornado's ends show — so the two cannot disagree; each
step re-solves where the better plan's line meets today's (Newton on the concave optimum).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, replace

from procure.solver.options import build_options
from procure.solver.plan import build_plan
from procure.solver.reasons import Amount, Clauses, counted, say, signed_pct
from procure.solver.result import Result

from .engine import Context, StrategyOutcome, solve_strategy
from .recost import decided_under
from .scenario import PRICE_FIELD, Scenario, reference_price

MAX_STEPS = 30
#: the highest factor the driver break-even tries (×10 today's staff, fabric or storage prices)
DRIVER_MAX = 10.0


#: the unit of an offer's price field, per mode
PRICE_UNIT = {"buy": "per node", "rent": "per node-month", "cloud": "per node-hour"}


@dataclass
class BreakEven:
    """One break-even. An offer's ``current`` and ``break_even`` are in its own price field, in the currency it
    is quoted in (``currency``); ``fx`` is the value of one unit of it in the reporting currency, so
    ``reporting(x)`` is the price a report shows first (``sentence``: converted, the quoted price in brackets
    when the currencies differ)."""

    subject: str  # offer id, "buy only" / "rent only" / "cloud only", or a driver (staff, network, storage)
    kind: str  # offer | strategy | driver
    mode: str
    field: str  # the price field searched (a strategy: its mode's price level)
    current: float  # today's price (a strategy: 1.0 = today's price level)
    break_even: float | None  # wins at or below this; None when no price in [0, current] wins
    reason: str
    solves: int = 0
    solved_by: dict[str, int] = dataclasses.field(
        default_factory=dict
    )  # its re-solves by the path that answered (fast.py)
    vendor: str = ""
    label: str = ""  # e.g. 8xH100-SXM-80GB
    workload: str = ""  # a job's break-even (``job_break_even``): the price at which this job moves onto the offer
    tiers: str = (
        ""  # a tiered quote: which tiers the price scales, e.g. "every tier × 0.875 (1-month tier 20,000 → 17,500 USD)"
    )
    currency: str = ""  # an offer's: the currency its price is quoted in ("" for a strategy or a driver)
    fx: float = 1.0  # value of one unit of ``currency`` in the reporting currency (project.fx_rates)

    @property
    def change_pct(self) -> float | None:
        if self.break_even is None or not self.current:
            return None
        return (self.break_even / self.current - 1.0) * 100.0

    def reporting(self, price: float | None) -> float | None:
        """An offer's price of its own currency in the reporting currency."""
        return None if price is None else price * self.fx

    def converted(self, reporting_currency: str) -> bool:
        """True when the offer is quoted in another currency than the report's."""
        return bool(self.currency) and self.currency != reporting_currency

    def price_text(self, price: float, currency: str, unit: str = "") -> str:
        """``71,820.03 CNY per node-month [10,002.79 USD]``: in the reporting ``currency``, the quoted price in
        brackets when the offer is quoted in another currency; ``10,002.79 USD per node-month`` otherwise."""
        shown = f"{self.reporting(price):,.2f} {currency}".strip() + (f" {unit}" if unit else "")
        if self.converted(currency):
            shown += f" [{price:,.2f} {self.currency}]"
        return shown

    def sentence(self, currency: str) -> str:
        """The finding in English; ``currency`` is the reporting currency (``reports.analysis_console``
        ``break_even_sentence`` writes the same in the reader's language)."""
        change = signed_pct(None if self.change_pct is None else self.change_pct / 100.0)
        if self.kind == "driver":
            if self.break_even is None:
                return f"the {self.subject} costs do not change the recommendation from ×0 to today's: {self.reason}"
            return f"{self.subject} costs at ×{self.break_even:g} today's: {self.reason}"
        if self.kind == "strategy":
            if self.break_even is None:
                return f"{self.subject} does not win at any {self.mode} price level from 0 to today's: {self.reason}"
            return f"{self.subject} wins at or below {self.break_even:.1%} of today's {self.mode} prices ({change})"
        what = {
            "buy": f"buying {self.label} servers",
            "rent": f"renting {self.label} nodes",
            "cloud": f"{self.label} cloud hours",
        }[self.mode]
        unit = PRICE_UNIT[self.mode]
        who = f" from {self.vendor} ({self.subject})" if self.vendor else f" ({self.subject})"
        tiers = f"; {self.tiers}" if self.tiers else ""
        today = self.price_text(self.current, currency)
        if self.workload:
            if self.break_even is None:
                return f"{self.workload} does not move onto {what}{who} at any price from 0 to today's {today}: {self.reason}"
            return (
                f"{self.workload} moves onto {what}{who} at or below {self.price_text(self.break_even, currency, unit)} "
                f"(today {today}, {change}{tiers})"
            )
        if self.break_even is None:
            return f"{what}{who} does not win at any price from 0 to today's {today}: {self.reason}"
        return (
            f"{what}{who} wins at or below {self.price_text(self.break_even, currency, unit)} "
            f"(today {today}, {change}{tiers})"
        )


def _tol(base: float) -> float:
    return 1e-7 * abs(base) + 0.005


def exact_inputs(ctx: Context) -> Context:
    """Break-even needs proven optima (gap 0): a cent of price moves the total by cents."""
    return replace(ctx, inputs=replace(ctx.inputs, gap=0.0))


#: the re-solves of the break-even being searched in this process, by the path that answered (``with_paths``)
_paths: dict[str, int] = {}


def with_paths(search, ctx: Context, key: str) -> BreakEven:
    """``search(ctx, key)`` (a break-even), with its re-solves counted by the path that answered them."""
    _paths.clear()
    out = search(ctx, key)
    out.solved_by = dict(_paths)
    return out


def _solve(ctx: Context, s: Scenario, strategy: str) -> StrategyOutcome:
    a = ctx.inputs.apply(s)
    base = ctx.base_plans.get(strategy)
    warm = decided_under(base, a, s.hours_factor, ctx.modes[strategy])[0] if base is not None else None
    res = solve_strategy(ctx, a, strategy, warm)
    _paths[res.solved_by] = _paths.get(res.solved_by, 0) + 1
    return res


def _metric_at(ctx: Context, plan, s: Scenario) -> float:
    """The plan's decisions, purchases and contracts costed under ``s`` (prices only; nothing re-planned)."""
    a = ctx.inputs.apply(s)
    contracts = [r.contract for r in plan.rentals]
    return ctx.inputs.metric(
        build_plan(a.project, a.offers, plan.decisions, {p.offer_id: p.nodes for p in plan.purchases}, contracts)
    )


# --- offers ----------------------------------------------------------------------------------------


def offer_break_even(ctx: Context, offer_id: str) -> BreakEven:
    """The break-even price of one offer that today's optimal plan does not use (module docstring)."""
    ctx = exact_inputs(ctx)
    offer = next(o for o in ctx.inputs.offers if o.id == offer_id)
    project = ctx.inputs.project
    out = offer_break_even_of(offer, project)
    current = out.current
    base = ctx.inputs.metric(ctx.decided)
    tol = _tol(base)
    p = 0.0
    for _ in range(MAX_STEPS):
        res = _solve(ctx, Scenario.of(f"{offer_id}@{p:.2f}", offer_prices={offer_id: p}), "hybrid")
        out.solves += 1
        if not res.ok:
            out.reason = f"no plan at price {p:,.2f} {out.currency}: {res.status} {res.detail}".strip()
            return out
        uses = offer_id in res.offers
        if not uses or res.plan is None:
            if p == 0.0:
                out.reason = _why_not_free(ctx, offer_id, base)
                return out
            break  # the line through p met B: a tie at p
        cost = ctx.inputs.metric(res.plan)
        if p > 0.0 and cost >= base - tol:
            break
        a = _metric_at(ctx, res.plan, Scenario.of("p0", offer_prices={offer_id: 0.0}))
        b = _metric_at(ctx, res.plan, Scenario.of("p1", offer_prices={offer_id: 1.0})) - a
        if b <= 0:
            out.reason = say("its price does not change the cost of the plans that use it")
            return out
        nxt = (base - a) / b
        if nxt >= current:
            p = current  # ties today's optimum at today's price
            break
        if nxt <= p + 1e-9:
            break
        p = nxt
    out.break_even = math.floor(p * 100 + 1e-6) / 100
    out.tiers = tiers_scaled(offer, out.break_even, out.currency)
    out.reason = say(
        "the optimal plan uses it below this price; at it, the plan with it ties today's optimum ({base})",
        base=Amount(base, project.currency),
    )
    return out


def offer_break_even_of(offer, project) -> BreakEven:
    """An offer's break-even, not yet searched: today's price in its own field and currency, and the rate that
    converts that currency into the project's."""
    return BreakEven(
        offer.id,
        "offer",
        offer.mode,
        PRICE_FIELD[offer.mode],
        reference_price(offer),
        None,
        "",
        vendor=offer.vendor,
        label=offer.label,
        currency=offer.currency or project.currency,
        fx=project.fx_rate(offer.currency),
    )


def tiers_scaled(offer, price: float, currency: str = "") -> str:
    """Which tiers a break-even price scales: a tiered quote moves as a whole (``scenario.scaled_offer``), so
    "every tier × 0.875 (1-month tier 20,000 → 17,500 USD)", in the currency the tiers are quoted in; "" for a
    flat price. A ``reasons.Msg``."""
    ref = reference_price(offer)
    if not ref or (offer.term_prices is None and offer.volume_prices is None):
        return ""
    f = price / ref
    if offer.mode == "rent" and offer.term_prices:
        t = offer.term_prices[0]
        first = say(
            "{m}-month tier {a} → {b}",
            m=t.min_term_months,
            a=f"{t.price_per_node_month:,.0f}",
            b=f"{t.price_per_node_month * f:,.0f} {currency}".strip(),
        )
    elif offer.volume_prices:
        v = offer.volume_prices[0]
        first = say(
            "{n}-node tier {a} → {b}",
            n=v.min_nodes,
            a=f"{v.price_per_node:,.0f}",
            b=f"{v.price_per_node * f:,.0f} {currency}".strip(),
        )
    else:
        return ""
    return say("every tier × {f} ({first})", f=f"{f:.3g}", first=first)


def _on(plan, workload: str, offer_id: str) -> bool:
    return plan is not None and any(a.workload == workload and a.offer_id == offer_id for a in plan.assignments)


def job_break_even(ctx: Context, offer_id: str, workload: str) -> BreakEven:
    """The price of ``offer_id`` at or below which the optimal plan runs ``workload`` on it.

    Today (price ``current``) the optimum runs the job elsewhere; another job may already run on the offer,
    so "the optimum uses the offer" is not the question. Bracket [lo, hi] with the job on the offer at lo
    and elsewhere at hi; the next price tried is where the cost lines of those two plans cross (each
    plan's cost is linear in the price), else the midpoint, until the bracket is a cent wide. It assumes,
    as the question does, that a cheaper offer never moves the job off it."""
    ctx = exact_inputs(ctx)
    offer = next(o for o in ctx.inputs.offers if o.id == offer_id)
    out = offer_break_even_of(offer, ctx.inputs.project)
    out.workload = workload
    current = out.current

    def at(p: float) -> StrategyOutcome:
        out.solves += 1
        return _solve(ctx, Scenario.of(f"{offer_id}@{p:.2f}", offer_prices={offer_id: p}), "hybrid")

    def line(plan) -> tuple[float, float]:
        a = _metric_at(ctx, plan, Scenario.of("p0", offer_prices={offer_id: 0.0}))
        return a, _metric_at(ctx, plan, Scenario.of("p1", offer_prices={offer_id: 1.0})) - a

    free = at(0.0)
    if not free.ok or free.plan is None:
        out.reason = f"no plan at price 0: {free.detail or free.status}"
        return out
    if not _on(free.plan, workload, offer_id):
        decided = ctx.decided
        where = next((a.offer_id for a in decided.assignments if a.workload == workload), "?") if decided else "?"
        out.reason = say(
            "even free, the optimal plan keeps {workload} on {where}: its nodes are worth more to the other jobs, "
            "or what it costs besides its price (setup, colocation, energy, the longer run) outweighs it",
            workload=workload,
            where=where,
        )
        return out
    lo, hi = 0.0, current
    lo_plan, hi_plan = free.plan, ctx.decided
    last = None
    for _ in range(MAX_STEPS):
        if hi - lo < 0.005 or hi_plan is None:
            break
        (aL, bL), (aH, bH) = line(lo_plan), line(hi_plan)
        p_line = (aH - aL) / (bL - bH) if bL > bH else None  # where the two cost lines cross
        crossing = p_line is not None and lo < p_line < hi and (last is None or abs(p_line - last) >= 1e-9)
        p = p_line if crossing and p_line is not None else (lo + hi) / 2
        last = p
        res = at(p)
        if not res.ok or res.plan is None:
            break
        if _on(res.plan, workload, offer_id):
            lo, lo_plan = p, res.plan
            continue
        if ctx.inputs.metric(res.plan) >= aL + bL * p - _tol(aL + bL * p):
            lo = p  # a tie with the plan that moves the job: where the two lines cross nothing higher moves it
            if crossing:
                break
            continue
        hi, hi_plan = p, res.plan
    out.break_even = math.floor(lo * 100 + 1e-6) / 100
    out.tiers = tiers_scaled(offer, out.break_even, out.currency)
    out.reason = say(
        "re-optimized at each price tried: at or below it the optimal plan runs {workload} on it", workload=workload
    )
    return out


def explain_break_even(result: Result, offer_id: str, workload: str, ctx: Context) -> BreakEven:
    """The break-even ``procure explain`` shows for ``workload`` held to ``offer_id``: none when the plan runs
    the job on it; the rule when no price helps; else the price at which this job moves onto the offer
    (``job_break_even``) — when another job already runs on it, or several could, the offer's own
    break-even (the price at which the plan starts using it) answers a different question."""
    plan = result.plan
    on_it = [a.workload for a in plan.assignments if a.offer_id == offer_id] if plan else []
    if workload in on_it:
        return rule_break_even(
            result, offer_id, say("the recommended plan already uses it (for {jobs})", jobs=", ".join(on_it))
        )
    if result.offers[offer_id].mode not in result.hybrid.modes:
        return rule_break_even(
            result, offer_id, say("{mode} is not in allowed_modes", mode=result.offers[offer_id].mode)
        )
    ruled = offers_without_options(result)
    if offer_id in ruled:
        return rule_break_even(result, offer_id, ruled[offer_id])
    shapes = [o for o in result.every_option.get(workload, []) if o.offer_id == offer_id]
    if not shapes:
        b = rule_break_even(result, offer_id, say("no shape of it can run {workload}", workload=workload))
        b.workload = workload
        return b
    from procure.solver.explain import candidates

    if on_it or len(candidates(result, offer_id)) > 1:
        return job_break_even(ctx, offer_id, workload)
    return offer_break_even(ctx, offer_id)


def _why_not_free(ctx: Context, offer_id: str, base: float) -> str:
    """Why even price 0 leaves the offer out: what its cheapest use still costs besides the price."""
    a = ctx.inputs.apply(Scenario.of("free", offer_prices={offer_id: 0.0}))
    options, _rej, _every = build_options(a.project, a.offers, a.sizings, ctx.modes["hybrid"])
    best = None
    for opts in options.values():
        for o in opts:
            if o.offer_id == offer_id and (best is None or o.standalone_cost < best.standalone_cost):
                best = o
    offer = a.offers[offer_id]
    costs = {
        "buy": say("colocation, idle and busy energy over the horizon"),
        "rent": say("setup fees"),
        "cloud": say("nothing"),
    }[offer.mode]
    if best is None:
        return say("no workload can use it")
    decided = ctx.decided
    if decided is None:
        raise ValueError("break-even analysis needs a feasible decided plan")
    chosen = next((x for x in decided.assignments if x.workload == best.workload), None)
    cur = a.project.currency
    extra = say("; the plan spends {amount} on that workload", amount=Amount(chosen.cost, cur)) if chosen else ""
    lead = say(", and its lead time is {days} days", days=offer.lead_time_days) if offer.lead_time_days else ""
    return say(
        "even free, it is not chosen: its cheapest use ({workload} on {nodes} node(s)) still costs {amount} "
        "({costs}){extra}{lead}",
        workload=best.workload,
        nodes=best.nodes,
        amount=Amount(best.standalone_cost, cur),
        costs=costs,
        extra=extra,
        lead=lead,
    )


def offers_without_options(base: Result) -> dict[str, str]:
    """Offers no workload can run on under the free strategy, with the rules that keep them out."""
    usable = {o.offer_id for opts in base.every_option.values() for o in opts}
    by_offer: dict[str, list] = {}
    for r in base.rejections:
        if r.offer_id not in usable:
            by_offer.setdefault(r.offer_id, []).append(r)
    out: dict[str, str] = {}
    for oid, rs in by_offer.items():
        groups: dict[str, list] = {}
        for r in rs:
            groups.setdefault(r.rule.group, []).append(r)
        parts = tuple(
            say(
                "{count}, e.g. {workload}: {reason}",
                count=counted(len(g), "workload", rule),
                workload=g[0].workload,
                reason=g[0].reason,
            )
            for rule, g in sorted(groups.items(), key=lambda kv: -len(kv[1]))
        )
        out[oid] = say("no price helps — {parts}", parts=Clauses(parts, "; "))
    return out


def losing_offers(base: Result) -> list[str]:
    """Offers of the catalog the optimal plan does not use, in catalog order."""
    used = {a.offer_id for a in base.plan.assignments} if base.plan else set()
    return [oid for oid in base.offers if oid not in used]


def rule_break_even(base: Result, offer_id: str, reason: str) -> BreakEven:
    out = offer_break_even_of(base.offers[offer_id], base.project)
    out.reason = reason
    return out


# --- strategies ------------------------------------------------------------------------------------


def _at_level(ctx: Context, mode: str, k: float) -> tuple[bool, StrategyOutcome]:
    """Solve the free plan with every ``mode`` offer at price level k; it *wins* when that optimum uses
    ``mode`` alone (then it is also the ``mode``-only optimum)."""
    free = _solve(ctx, Scenario.of(f"{mode}@{k:.6f}", {f"price_{mode}": k}), "hybrid")
    return free.ok and set(free.modes) == {mode}, free


def _line(ctx: Context, plan, mode: str) -> tuple[float, float]:
    """(a, b) with the plan's cost at price level k = a + b·k (costs are linear in every price)."""
    a = _metric_at(ctx, plan, Scenario.of("k0", {f"price_{mode}": 0.0}))
    return a, _metric_at(ctx, plan, Scenario.of("k1", {f"price_{mode}": 1.0})) - a


def strategy_break_even(ctx: Context, mode: str) -> BreakEven:
    """The price level of ``mode`` below which the optimum uses ``mode`` alone.

    Bracket [lo, hi] with the free optimum single-mode at lo and mixed at hi. The next level tried is
    where the cost lines of those two plans cross (the break-even when they are the plans active
    there), else the midpoint; it stops when the crossing no longer moves or the bracket is 1e-4 wide.
    """
    ctx = exact_inputs(ctx)
    name = f"{mode} only"
    out = BreakEven(name, "strategy", mode, f"price level of every {mode} offer", 1.0, None, "")
    ok, free = _at_level(ctx, mode, 0.0)
    out.solves += 1
    if not free.ok:
        out.reason = f"no plan at price level 0: {free.detail or free.status}"
        return out
    if not ok:
        single = _solve(ctx, Scenario.of(f"{mode}@0", {f"price_{mode}": 0.0}), mode)
        out.solves += 1
        if not single.ok:
            out.reason = f"{name} has no plan at any price: {single.detail or single.status}"
        else:
            out.reason = say(
                "even at price 0 the {mode}-only plan costs {single} against {mixed} when modes are mixed (costs "
                "besides the {mode} price, or jobs it cannot run as early)",
                mode=mode,
                single=Amount(ctx.inputs.metric(single.plan), ctx.inputs.project.currency),
                mixed=Amount(ctx.inputs.metric(free.plan), ctx.inputs.project.currency),
            )
        return out
    lo, hi = 0.0, 1.0
    lo_plan, hi_plan = free.plan, ctx.base_plans["hybrid"]
    last = None
    for _ in range(24):
        if hi - lo < 1e-4:
            break
        (aS, bS), (aH, bH) = _line(ctx, lo_plan, mode), _line(ctx, hi_plan, mode)
        k_line = (aH - aS) / (bS - bH) if bS > bH else None  # where the two cost lines cross
        crossing = k_line is not None and lo < k_line < hi and (last is None or abs(k_line - last) >= 1e-9)
        k = k_line if crossing and k_line is not None else (lo + hi) / 2
        last = k
        ok, free = _at_level(ctx, mode, k)
        out.solves += 1
        if ok:
            lo, lo_plan = k, free.plan
            continue
        if free.ok and ctx.inputs.metric(free.plan) >= aS + bS * k - _tol(aS + bS * k):
            lo = k  # the single-mode plan ties the optimum here; where the two lines cross, nothing higher wins
            if crossing:
                break
            continue
        hi, hi_plan = k, free.plan
    out.break_even = math.floor(lo * 1e4 + 1e-6) / 1e4
    out.reason = say(
        "re-optimized at each price level tried: at or below {level} of today's {mode} prices the optimal plan uses "
        "{mode} alone",
        level=f"{out.break_even:.2%}",
        mode=mode,
    )
    return out


# --- drivers of the costs beyond the servers ---------------------------------------------------------


def _driver_line(ctx: Context, plan, driver: str) -> tuple[float, float]:
    """(a, b): the plan's cost at factor k of ``driver`` is a + b·k."""
    a = _metric_at(ctx, plan, Scenario.of("k0", {driver: 0.0}))
    return a, _metric_at(ctx, plan, Scenario.of("k1", {driver: 1.0})) - a


def driver_break_even(ctx: Context, driver: str) -> BreakEven:
    """The factor of ``driver`` at which today's recommended plan stops being optimal (module docstring).

    z(k), the optimum at factor k, is concave and piecewise linear; today's plan costs a0 + b0·k and is the
    optimum at k = 1. The difference is concave, at most 0, and 0 at 1, so today's plan is optimal on one
    interval around 1 and nowhere else. Newton from the far end (×DRIVER_MAX when today's plan pays the
    driver's costs, else ×0): re-solve at k; when the optimum there costs less than today's plan, the next
    k is where its line meets today's; when it ties, k is the edge of the interval. A tornado end inside
    the interval therefore re-solves to today's plan's cost, and one outside it to less: the two agree."""
    ctx = exact_inputs(ctx)
    today = ctx.base_plans.get("hybrid")
    if today is None:
        raise ValueError("the driver break-even needs a feasible recommended plan")
    modes = set(today.modes())
    out = BreakEven(
        driver, "driver", "+".join(sorted(str(m) for m in modes)), f"factor on today's {driver} costs", 1.0, None, ""
    )
    a0, b0 = _driver_line(ctx, today, driver)
    up = b0 > _tol(a0)
    k = DRIVER_MAX if up else 0.0
    other = None  # the last plan found to beat today's
    for _ in range(MAX_STEPS):
        res = _solve(ctx, Scenario.of(f"{driver}@{k:.6f}", {driver: k}), "hybrid")
        out.solves += 1
        if not res.ok or res.plan is None:
            out.reason = f"no plan at ×{k:g}: {res.detail or res.status}"
            return out
        mine = a0 + b0 * k
        if ctx.inputs.metric(res.plan) >= mine - _tol(mine):
            break  # today's plan is optimal at k: the edge of its interval
        other = res
        af, bf = _driver_line(ctx, res.plan, driver)
        if abs(b0 - bf) <= 1e-12:
            break
        nxt = (af - a0) / (b0 - bf)  # where the better plan's line meets today's
        if not (min(k, 1.0) - 1e-12 <= nxt <= max(k, 1.0) + 1e-12) or abs(nxt - k) < 1e-9:
            break
        k = nxt
    if other is None:
        if up:
            out.break_even = DRIVER_MAX
            out.reason = say("today's plan and its modes stay optimal up to ×{k}", k=f"{DRIVER_MAX:g}")
        else:
            out.reason = say("even at ×0 no plan that pays {driver} costs beats today's", driver=driver)
        return out
    out.break_even = math.floor(k * 1e4 + 1e-6) / 1e4
    beyond = "+".join(sorted(other.modes))
    if up:
        out.reason = say(
            "re-optimized at each factor tried: up to ×{k} today's {driver} costs today's plan ({modes}) stays "
            "optimal; above it a plan of {beyond} costs less",
            k=f"{out.break_even:g}",
            driver=driver,
            modes=out.mode,
            beyond=beyond,
        )
    else:
        out.reason = say(
            "re-optimized at each factor tried: below ×{k} today's {driver} costs a plan that pays them ({beyond}) "
            "costs less than today's",
            k=f"{out.break_even:g}",
            driver=driver,
            beyond=beyond,
        )
    return out
