"""The independent checker: every plan is verified against the inputs before anyone sees it.

It trusts nothing the optimizer produced except the plan itself. From the inputs it re-sizes every
chosen shape, re-derives start and end days, sweeps the actual job intervals (not the optimizer's
period grid) to check node usage against purchases, rental contracts and availability caps, checks
every rental contract's term, checks that every entry's amount is what its formula template makes of the
entry's own fields (solver.formulas: the rules of ``solver.costs`` stated a second time), and prices the
plan's decisions again into a ledger of its own (the cost model's), which it compares with the plan's entry
by entry, naming the entry that differs. What the
organisation already has (solver.holdings) has rules of its own: ``owned`` (exactly the nodes owned are
held), ``commitment`` (every signed contract, as signed), ``quota`` (GPUs in use at once, on exact days) and
``offer_window`` (every job inside its offer's window). Any violation raises
``VerificationError`` with the rules that failed — a bug, never a result.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping

from procure.common.errors import ExitCode, ProcureError
from procure.models.offer import Offer
from procure.models.project import Project
from procure.models.units import DAYS_PER_MONTH, HOURS_PER_DAY

from . import costs, holdings
from .formulas import formula_problems
from .ledger import Entry, Ledger, PnlYear, ledger
from .plan import Assignment, Decision, Plan, Rental
from .sizing.band import hours_multiplier

REL_TOL = 1e-6
DAY_TOL = 1e-6


class VerificationError(ProcureError):
    """The plan broke a rule the optimizer should have enforced: a bug, never shown as a plan."""

    exit_code = ExitCode.VERIFY

    def __init__(self, violations: list[str]):
        self.violations = violations
        super().__init__("; ".join(violations))


def _close(a: float, b: float, tol: float = REL_TOL) -> bool:
    """Whether ``a`` and ``b`` agree within a relative tolerance (absolute below 1)."""
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def verify_plan(
    project: Project,
    offers: dict[str, Offer],
    plan: Plan,
    resize=None,
    modes=None,
    held: Mapping[str, str] | None = None,
) -> None:
    """Raise VerificationError if ``plan`` breaks any rule. ``resize(workload, offer, nodes)`` returns
    the sizing engine's candidate for that shape (fits, hours); ``modes`` are the deployment modes the
    plan may use (default: the project's allowed_modes; a buy-only comparison passes ("buy",));
    ``held`` maps workloads to the one offer each must run on (a runner-up re-solve)."""
    modes = tuple(project.allowed_modes if modes is None else modes)
    workloads = {w.name: w for w in project.workloads}
    decisions = {d.workload: d for d in plan.decisions}
    bad = _held_problems(plan, held or {}) + _count_problems(plan, workloads)
    for a in plan.assignments:
        bad += _assignment_problems(project, offers, a, workloads, decisions.get(a.workload), resize, modes)
    used = {a.offer_id for a in plan.assignments}
    bought = _bought(plan)
    bad += _purchase_problems(project, offers, plan, bought, modes, used)
    rented: defaultdict[str, list[tuple[float, float, int]]] = defaultdict(list)  # offer -> (from, to day, nodes)
    bad += _rental_problems(project, offers, plan, rented, modes, used)
    bad += _capacity_problems(project, offers, plan, bought, rented)
    bad += holdings.quota_problems(project, offers, plan)
    bad += holdings.commitment_problems(project, plan) + holdings.owned_problems(project, plan)
    again, unpriced = _priced_again(project, offers, plan, workloads, bought)
    bad += unpriced if again is None else _cost_problems(project, offers, plan, again, bought)
    if bad:
        raise VerificationError(bad)


def _held_problems(plan: Plan, held: Mapping[str, str]) -> list[str]:
    """The held workloads the plan moved off the one offer each must run on."""
    placed = {a.workload: a.offer_id for a in plan.assignments}
    return [
        f"held: {name!r} must run on {oid} but the plan places it on {placed[name]}"
        for name, oid in held.items()
        if placed.get(name, oid) != oid
    ]


def _count_problems(plan: Plan, workloads: Mapping[str, object]) -> list[str]:
    """Workloads placed other than exactly once, and workloads the project does not have."""
    bad: list[str] = []
    seen: defaultdict[str, int] = defaultdict(int)
    for a in plan.assignments:
        seen[a.workload] += 1
    for name in workloads:
        if seen[name] != 1:
            bad.append(f"assign: workload {name!r} is placed {seen[name]} times (must be exactly once)")
    for name in seen:
        if name not in workloads:
            bad.append(f"assign: unknown workload {name!r} in plan")
    return bad


def _assignment_problems(project, offers, a: Assignment, workloads, d: Decision | None, resize, modes) -> list[str]:
    """Every rule one assignment must keep: its offer, its shape, its sizing and its days."""
    w = workloads.get(a.workload)
    offer = offers.get(a.offer_id)
    if w is None or offer is None:
        return [f"assign: {a.workload!r} uses unknown offer {a.offer_id!r}"]
    hours = d.hours if d else None
    return (
        _offer_problems(project, offer, a, w, modes)
        + _sizing_problems(offer, a, w, hours, resize)
        + _day_problems(project, offer, a, w, hours)
    )


def _offer_problems(project, offer: Offer, a: Assignment, w, modes) -> list[str]:
    """The assignment's offer against the allowed modes, spot, GPUs and the offer's node count."""
    bad: list[str] = []
    if offer.mode not in modes:
        bad.append(f"mode: {a.workload!r} uses a {offer.mode} offer but this plan may use only {', '.join(modes)}")
    if offer.spot and not project.allow_spot:
        bad.append(f"spot: {a.workload!r} runs on spot offer {offer.id} but allow_spot is false")
    if w.allowed_gpus and offer.gpu not in w.allowed_gpus:
        bad.append(f"gpu: {a.workload!r} runs on {offer.gpu}, not in its allowed_gpus")
    if a.nodes > offer.max_nodes:
        bad.append(f"nodes: {a.workload!r} uses {a.nodes} nodes of {offer.id} (max_nodes {offer.max_nodes})")
    if a.gpus != a.nodes * offer.gpus_per_node:
        bad.append(f"gpus: {a.workload!r} reports {a.gpus} GPUs on {a.nodes} × {offer.gpus_per_node}")
    return bad


def _sizing_problems(offer: Offer, a: Assignment, w, hours: float | None, resize) -> list[str]:
    """The shape re-sized by the sizing engine: it must fit and take the hours the plan says."""
    if resize is None:
        return []
    cand = resize(w, offer, a.nodes)
    if cand is None or not cand.fits:
        why = getattr(cand, "reason", "no such shape")
        return [f"fit: {a.workload!r} on {a.nodes} × {offer.id} does not fit: {why}"]
    if hours is not None and not _close(cand.hours, hours):
        return [f"hours: {a.workload!r} on {offer.id} takes {cand.hours:.3f} h per sizing, plan says {hours:.3f} h"]
    return []


def _day_problems(project, offer: Offer, a: Assignment, w, hours: float | None) -> list[str]:
    """The assignment's start (release, lead time), recomputed end, deadline and slack."""
    bad: list[str] = []
    release = max(w.earliest_start_days, holdings.release_day(project, offer))
    if a.start_day < release - DAY_TOL:
        bad.append(
            f"release: {a.workload!r} starts day {a.start_day:g} before day {release:g} (earliest start / lead time / window)"
        )
    until = holdings.window(project, offer)[1]
    if until is not None and a.end_day > until + DAY_TOL:
        bad.append(
            f"offer_window: {a.workload!r} ends day {a.end_day:.2f} after {offer.id}'s available_until (day {until:g})"
        )
    if hours is not None:
        end = a.start_day + costs.wall_hours(offer, hours) / HOURS_PER_DAY
        if not _close(end, a.end_day):
            bad.append(f"end: {a.workload!r} ends day {a.end_day:.3f}, recomputed {end:.3f}")
    if a.end_day > w.deadline_days + DAY_TOL:
        bad.append(f"deadline: {a.workload!r} ends day {a.end_day:.2f} after its deadline day {w.deadline_days}")
    elif a.end_day > project.deadline_days_for(w) + DAY_TOL:
        early = w.deadline_days - a.end_day
        bad.append(
            f"slack: {a.workload!r} ends day {a.end_day:.2f}, {early:.2f} days before its deadline "
            f"day {w.deadline_days}; min_slack_days is {project.slack_for(w):g}"
        )
    elif (sure := _confidence_problem(project, offer, a, w)) is not None:
        bad.append(sure)
    return bad


def _confidence_problem(project, offer: Offer, a: Assignment, w) -> str | None:
    """The deadline at ``deadline_confidence``: the job's end at that quantile of its hours (the duration
    scaled by the band's multiplier) must meet ``deadline_days_for``. A shape that cannot meet it even
    from its earliest start on the grid may be planned at a lower confidence, but never below the median."""
    conf = project.deadline_confidence
    by = project.deadline_days_for(w)
    wall = a.end_day - a.start_day
    if a.start_day + wall * hours_multiplier(conf) <= by + DAY_TOL:
        return None
    release = max(w.earliest_start_days, holdings.release_day(project, offer))
    first = math.ceil(release / project.period_days - 1e-9) * project.period_days
    if (
        first + wall * hours_multiplier(conf) > by + DAY_TOL
        and a.start_day + wall * hours_multiplier(0.5) <= by + DAY_TOL
    ):
        return None  # planned at the confidence it can reach (the option table says which)
    return (
        f"confidence: {a.workload!r} ends day {a.start_day + wall * hours_multiplier(conf):.2f} at its P{100 * conf:g} "
        f"hours, after day {by:g} (deadline_confidence {conf:g})"
    )


def _bought(plan: Plan) -> defaultdict[str, int]:
    """The nodes the plan buys, per offer."""
    bought: defaultdict[str, int] = defaultdict(int)
    for p in plan.purchases:
        bought[p.offer_id] += p.nodes
    return bought


def _purchase_problems(project, offers, plan: Plan, bought, modes, used: set[str]) -> list[str]:
    """Each purchase's offer and use, each offer's total against max_nodes and tiers, and the tier paid."""
    bad: list[str] = []
    for p in plan.purchases:
        o = offers[p.offer_id]
        if o.mode != "buy":
            bad.append(f"purchase: {p.offer_id} is a {o.mode} offer")
        if p.committed:  # owned servers: held in every plan (the owned rule checks them)
            continue
        if "buy" not in modes:
            bad.append(f"mode: the plan buys {p.offer_id} but may use only {', '.join(modes)}")
        if p.offer_id not in used:
            bad.append(f"idle: the plan buys {p.nodes} × {p.offer_id} but no job runs on them")
    for oid, n in bought.items():
        if n > offers[oid].max_nodes:
            bad.append(f"purchase: {n} nodes of {oid} exceed max_nodes {offers[oid].max_nodes}")
        if offers[oid].mode == "buy" and costs.buy_tier(offers[oid], n) is None:
            first = offers[oid].buy_tiers[0][0]
            bad.append(f"purchase: {n} nodes of {oid} are fewer than its first volume tier ({first} nodes)")
    return bad + _purchase_price_problems(project, offers, plan, bought)


def _purchase_price_problems(project, offers, plan: Plan, bought) -> list[str]:
    """Each purchase's price per node against the volume tier its offer's total reaches."""
    bad: list[str] = []
    for p in plan.purchases:
        o = offers[p.offer_id]
        if o.mode != "buy" or costs.buy_tier(o, bought[p.offer_id]) is None:
            continue  # reported by _purchase_problems
        # the tier paid: every node at the price of the highest tier the total reaches (all-units)
        paid = costs.unit_price(o, project, bought[p.offer_id])
        if not _close(p.price_per_node, paid):
            bad.append(
                f"purchase: {p.offer_id} reports {p.price_per_node:,.2f} per node, "
                f"its volume tier for {bought[p.offer_id]} nodes is {paid:,.2f} {project.currency}"
            )
    return bad


def _rental_problems(project, offers, plan: Plan, rented, modes, used: set[str]) -> list[str]:
    """Each rental contract's rules; fills ``rented`` (offer -> the days each contract holds its nodes, from
    its own start for whole months) and checks the nodes held at once against max_nodes."""
    bad: list[str] = []
    for r in plan.rentals:
        o = offers[r.offer_id]
        reserved = o.mode == "cloud" and o.commitment_months is not None
        if o.mode != "rent" and not reserved:
            bad.append(f"rental: {r.offer_id} is a {o.mode} offer without a commitment term")
            continue
        bad += _contract_problems(project, o, r, modes, used)
        begin = r.start_month * DAYS_PER_MONTH + r.phase_days
        rented[r.offer_id].append((begin, begin + r.months * DAYS_PER_MONTH, r.nodes))
    new = {r.contract for r in plan.rentals if not r.committed}  # max_nodes bounds the new contracts
    for oid in rented:
        fresh = [(c.start_day, c.end_day, c.nodes) for c in new if c.offer_id == oid]
        for day in sorted({b for b, _e, _n in fresh}):
            n = sum(k for b, e, k in fresh if b <= day + DAY_TOL < e)
            if n > offers[oid].max_nodes:
                bad.append(
                    f"rent_avail: {n} nodes of {oid} rented on day {day:.1f} (max_nodes {offers[oid].max_nodes})"
                )
                break
    return bad


def _contract_problems(project, o: Offer, r: Rental, modes, used: set[str]) -> list[str]:
    """One rental contract's mode, use, term, rate and months within the horizon (a commitment, signed before
    the plan: its rate and months; the commitment rule checks it is the one signed)."""
    bad: list[str] = []
    if r.committed:
        rate = costs.rental_month_cost(o, project, costs.term_of(o, r.contract))
        if not _close(r.price_per_node_month, rate):
            bad.append(
                f"rent_price: commitment of {r.offer_id} reports {r.price_per_node_month:,.2f}, its rate is {rate:,.2f}"
            )
        return bad
    if o.mode not in modes:
        bad.append(f"mode: the plan contracts {r.offer_id} ({o.mode}) but may use only {', '.join(modes)}")
    if r.offer_id not in used:
        bad.append(f"idle: the plan contracts {r.nodes} × {r.offer_id} but no job runs on them")
    why = costs.term_problem(o, r.contract)
    if why:
        bad.append(f"rent_term: contract of {r.nodes} × {r.offer_id} from month {r.start_month}: {why}")
    else:
        # the rate of the tier signed: a rent tier's price, or the committed hourly rate × 730 h
        rate = costs.rental_month_cost(o, project, costs.term_of(o, r.contract))
        if not _close(r.price_per_node_month, rate):
            bad.append(
                f"rent_price: contract of {r.offer_id} from month {r.start_month} reports "
                f"{r.price_per_node_month:,.2f} per node-month, its tier is {rate:,.2f} {project.currency}"
            )
    begin = r.start_month * DAYS_PER_MONTH + r.phase_days
    if not 0.0 <= r.phase_days < DAYS_PER_MONTH:
        bad.append(
            f"rent_phase: contract of {r.offer_id} begins {r.phase_days:g} days into a month (0 to {DAYS_PER_MONTH:g})"
        )
    if begin < holdings.contract_from_day(project, o) - DAY_TOL:
        bad.append(
            f"rent_lead: contract of {r.nodes} × {r.offer_id} begins on day {begin:.2f}, before its delivery "
            f"(lead time {o.lead_time_days} days)"
        )
    if r.start_month < 0 or r.start_month + r.months > project.horizon_months:
        last = r.start_month + r.months - 1
        bad.append(f"rent_horizon: contract of {r.offer_id} months {r.start_month}–{last} leaves the horizon")
    return bad


def _capacity_problems(project, offers, plan: Plan, bought, rented) -> list[str]:
    """Sweep the actual job intervals per offer; a rental's capacity changes where one of its contracts
    begins or ends."""
    horizon = costs.horizon_end_day(project)
    months = {m * DAYS_PER_MONTH for m in range(int(horizon / DAYS_PER_MONTH) + 1)}
    months |= {d for held in rented.values() for b, e, _n in held for d in (b, e)}
    by_offer: defaultdict[str, list[Assignment]] = defaultdict(list)
    for a in plan.assignments:
        by_offer[a.offer_id].append(a)
    bad: list[str] = []
    for oid, jobs in by_offer.items():
        found = _offer_overload(offers[oid], oid, jobs, months, bought, rented)
        if found:
            bad.append(found)
    return bad


def _offer_overload(o: Offer, oid: str, jobs: list[Assignment], months: set[float], bought, rented) -> str | None:
    """The first interval in which one offer's jobs use more nodes than it holds, as a message."""
    points = sorted({j.start_day for j in jobs} | {j.end_day for j in jobs} | months)
    for lo, hi in zip(points, points[1:], strict=False):
        if hi - lo <= DAY_TOL:
            continue
        mid = (lo + hi) / 2
        use = sum(j.nodes for j in jobs if j.start_day <= mid < j.end_day)
        if not use:
            continue
        cap, what = _capacity_at(o, oid, mid, bought, rented)
        if use > cap:
            return f"capacity: {use} nodes of {oid} in use on days {lo:.1f}–{hi:.1f} but {cap} {what}"
    return None


def _capacity_at(o: Offer, oid: str, day: float, bought, rented) -> tuple[int, str]:
    """The nodes of one offer held on ``day`` (bought, contracted that month, or available) and what they are."""
    if o.mode == "buy":
        return bought.get(oid, 0), "bought"
    if o.mode == "rent" or o.commitment_months is not None:
        return sum(n for b, e, n in rented.get(oid, []) if b <= day < e), f"under contract on day {day:.1f}"
    return o.max_nodes, "available"


def _priced_again(project, offers, plan: Plan, workloads, bought) -> tuple[Ledger | None, list[str]]:
    """The plan priced again from its raw decisions (the jobs' shapes and start days, the nodes bought, the
    contracts signed) through the cost model: a ledger of the verifier's own, or the reason it cannot be."""
    decisions = [d for d in plan.decisions if d.offer_id in offers and d.workload in workloads]
    contracts = [
        r.contract
        for r in plan.rentals
        if r.offer_id in offers and costs.term_of(offers[r.offer_id], r.contract) is not None
    ]
    try:
        return ledger(project, offers, decisions, {o: n for o, n in bought.items() if o in offers}, contracts), []
    except (ValueError, KeyError) as exc:
        return None, [f"ledger: the plan cannot be priced again: {exc}"]


def _cost_problems(project, offers, plan: Plan, again: Ledger, bought) -> list[str]:
    """The plan's ledger entry by entry, and its totals, NPV, P&L and budgets, against the ledger priced again."""
    total = again.total()
    bad = formula_problems(plan.ledger.entries, project, _close) + entry_problems(plan.ledger, again, _close)
    bad += _total_problems(plan, total, costs.staff_modes(project)) + _npv_pnl_problems(plan, again)
    bad += _category_problems(plan, again) + _staff_problems(project, offers, plan, bought)
    bad += _budget_problems(project, again)
    if not math.isfinite(total):
        bad.append("cost: total is not finite")
    return bad


def _category_problems(plan: Plan, again: Ledger) -> list[str]:
    """Each cost category of the plan (its breakdown and its cash flows) against the one priced again: a
    plan whose total is right but whose money sits in the wrong category is refused, naming it."""
    bad: list[str] = []
    said_by, again_by = plan.breakdown, again.by_category()
    said_flows, flows = plan.flows, again.flows()
    for c in costs.CATEGORIES:
        said = said_by.get(c, 0.0)
        if not _close(said, again_by[c]):
            bad.append(f"cost: {c} is {said:,.2f} in the plan but recomputed {again_by[c]:,.2f}")
        for m in sorted(set(said_flows.get(c, {})) | set(flows.get(c, {}))):
            a, b = said_flows.get(c, {}).get(m, 0.0), flows.get(c, {}).get(m, 0.0)
            if not _close(a, b):
                bad.append(f"cost: {c} in month {m + 1} is {a:,.2f} in the plan's cash flow but recomputed {b:,.2f}")
                break
    return bad


def _staff_problems(project, offers, plan: Plan, bought) -> list[str]:
    """The staff the plan states (FTEs, months, peak nodes) against the nodes it holds (costs.held_by_month)."""
    staff = [c for c in plan.charges if c.kind == "staff"]
    if not staff:
        return []
    held = costs.held_by_month(project, offers, dict(bought), [r.contract for r in plan.rentals])
    peak = max(held, default=0)
    want = (costs.staff_ftes(project, peak), len(costs.held_span(held)), peak)
    bad = []
    for c in staff:
        if (c.ftes, c.months, c.nodes) != want:
            bad.append(
                f"staff: the plan states {c.ftes} FTE(s) for {c.months} months at a peak of {c.nodes} nodes; "
                f"its nodes need {want[0]} for {want[1]} months at a peak of {want[2]}"
            )
    return bad


def _total_problems(plan: Plan, total: float, staff_modes: tuple[str, ...] = ()) -> list[str]:
    """The plan's total against the recomputed one, its breakdown, per-workload costs and line items."""
    bad: list[str] = []
    if not _close(total, plan.total_cost):
        bad.append(f"cost: plan total {plan.total_cost:,.2f} but recomputed {total:,.2f}")
    if not _close(sum(plan.breakdown.values()), plan.total_cost):
        bad.append("cost: breakdown does not add up to the total")
    idle = sum(
        p.cost for p in plan.purchases if p.committed and p.offer_id not in {a.offer_id for a in plan.assignments}
    )
    idle += sum(r.cost for r in plan.rentals if r.offer_id not in {a.offer_id for a in plan.assignments})
    if not any(a.mode in staff_modes for a in plan.assignments):  # staff of capacity no job uses is idle too
        idle += sum(c.cost for c in plan.charges if c.kind == "staff")
    if not _close(idle, plan.committed_idle):
        bad.append(f"cost: the plan states {plan.committed_idle:,.2f} committed and unused, recomputed {idle:,.2f}")
    if not _close(sum(a.cost for a in plan.assignments) + idle, plan.total_cost):
        bad.append("cost: per-workload costs do not add up to the total")
    lines = (
        sum(p.cost for p in plan.purchases)
        + sum(r.cost for r in plan.rentals)
        + sum(a.direct_cost for a in plan.assignments if a.mode != "buy")
        + sum(c.cost for c in plan.charges)
    )
    if not _close(lines, plan.total_cost):
        bad.append(f"cost: line items add up to {lines:,.2f}, total is {plan.total_cost:,.2f}")
    return bad


def _npv_pnl_problems(plan: Plan, again: Ledger) -> list[str]:
    """The plan's NPV and P&L years against those of the ledger priced again."""
    bad: list[str] = []
    npv, total = again.present_value(), again.total()
    if not _close(npv, plan.npv_cost):
        bad.append(f"npv: plan NPV {plan.npv_cost:,.2f} but recomputed {npv:,.2f}")
    pnl = again.pnl_years()
    if not _close(sum(y.cost for y in pnl), total):
        bad.append(f"pnl: the P&L years add up to {sum(y.cost for y in pnl):,.2f}, the total is {total:,.2f}")
    if len(pnl) != len(plan.pnl) or not all(_same_year(a, b) for a, b in zip(pnl, plan.pnl, strict=False)):
        bad.append("pnl: the plan's P&L differs from the one recomputed")
    return bad


def _same_year(a: PnlYear, b: PnlYear) -> bool:
    """Whether two P&L years agree on depreciation, operating cost, interest and disposal gain."""
    return (
        _close(a.depreciation, b.depreciation)
        and _close(a.operating, b.operating)
        and _close(a.interest, b.interest)
        and _close(a.disposal_gain, b.disposal_gain)
    )


def _budget_problems(project, again: Ledger) -> list[str]:
    """The total, peak cash out and capex of the ledger priced again against the project's budgets."""
    bad: list[str] = []
    total = again.total()
    if project.budget_tco is not None and total > project.budget_tco * (1 + REL_TOL):
        bad.append(f"budget_tco: total {total:,.2f} exceeds budget_tco {project.budget_tco:,.2f}")
    peak = again.peak_cash_out()
    if project.budget_cash is not None and peak > project.budget_cash * (1 + REL_TOL):
        bad.append(
            f"budget_cash: cumulative cash out peaks at {peak:,.2f}, above budget_cash {project.budget_cash:,.2f}"
        )
    spent = again.capex()
    if project.budget_capex is not None and spent > project.budget_capex * (1 + REL_TOL):
        bad.append(f"budget_capex: purchases cost {spent:,.2f}, above budget_capex {project.budget_capex:,.2f}")
    return bad


def entry_problems(said: Ledger, again: Ledger, close) -> list[str]:
    """Entry by entry, what differs between a plan's ledger (``said``) and one priced again from its raw
    decisions (``again``): a missing or extra key, or a field (category, nodes, quantity, unit price, rate,
    the amount in a month) that differs, named by the entry's key."""
    bad: list[str] = []
    mine = {e.key: e for e in said.entries}
    theirs = {e.key: e for e in again.entries}
    for key in theirs.keys() - mine.keys():
        bad.append(f"ledger: entry {key} ({theirs[key].amount:,.2f}) is missing from the plan")
    for key in mine.keys() - theirs.keys():
        bad.append(f"ledger: entry {key} ({mine[key].amount:,.2f}) is in the plan but priced by nothing")
    for key in sorted(mine.keys() & theirs.keys()):
        bad += _field_problems(mine[key], theirs[key], close)
    return bad


def _field_problems(a: Entry, b: Entry, close) -> list[str]:
    bad = []
    for name in (
        "kind",
        "category",
        "offer",
        "currency",
        "workload",
        "term_months",
        "tier_nodes",
        "down_payment",
        "committed",
    ):
        if getattr(a, name) != getattr(b, name):
            bad.append(
                f"ledger: {a.key} has {name} {getattr(a, name)!r} in the plan but {getattr(b, name)!r} priced again"
            )
    for name in ("nodes", "quantity", "unit_price", "rate"):
        x, y = getattr(a, name), getattr(b, name)
        if (x is None) != (y is None) or (x is not None and not close(x, y)):
            bad.append(f"ledger: {a.key} has {name} {x} in the plan but {y} priced again")
    if not close(a.amount, b.amount):
        bad.append(f"ledger: {a.key} is {a.amount:,.2f} in the plan but priced again {b.amount:,.2f}")
    else:
        x, y = dict(a.amounts), dict(b.amounts)
        for m in sorted(x.keys() | y.keys()):
            if not close(x.get(m, 0.0), y.get(m, 0.0)):
                bad.append(
                    f"ledger: {a.key} pays {x.get(m, 0.0):,.2f} in month {m + 1} in the plan but {y.get(m, 0.0):,.2f} priced again"
                )
                break
    return bad
