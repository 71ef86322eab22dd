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

import calendar
import datetime as dt
import math
from collections import defaultdict
from collections.abc import Mapping

from procure.common.errors import ExitCode, ProcureError
from procure.models.offer import Offer
from procure.models.project import Project
from procure.models.units import HOURS_PER_DAY

from . import holdings
from .formulas import formula_problems
from .plan import Assignment, Decision, Plan, Rental
from .sizing.band import hours_multiplier
from .verify_money import contract_rate, money_problems, quoted_tier

REL_TOL = 1e-6
DAY_TOL = 1e-6


class VerificationError(ProcureError):
    """The plan broke a rule the optimizer should have enforced: a bug, never shown as a plan."""

    exit_code = ExitCode.VERIFY

    def __init__(self, violations: list[str]):
        self.violations = violations
        super().__init__("; ".join(violations))


class Disagreement(VerificationError):
    """A strategy's objective and the ledger of the plan it returned disagree (reading.agreed): the model
    optimized other prices than the ones the plan is charged, so its plan is not the cheapest; a bug, exit
    code 4, never a recommendation. Names the strategy and every cost category that differs."""

    def __init__(self, strategy: str, objective: float, ledger: float, categories: list[tuple[str, float, float]]):
        self.strategy, self.objective, self.ledger, self.categories = strategy, objective, ledger, categories
        parts = "; ".join(f"{c}: {a:,.2f} in the model, {b:,.2f} in the ledger" for c, a, b in categories)
        where = parts or "no cost category differs: the solver's objective is not its own solution's value"
        super().__init__(
            [
                f"{strategy}: the model's objective {objective:,.2f} and the ledger of its plan {ledger:,.2f} "
                f"disagree by {objective - ledger:,.2f} ({where}): a bug in procure, so no plan of this run is reported"
            ]
        )


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
    bad += _cost_problems(project, offers, plan)
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
        spot = (offer.spot_overhead_pct or 0.0) if offer.mode == "cloud" else 0.0
        end = a.start_day + hours * (1.0 + spot) / HOURS_PER_DAY
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
        if offers[oid].mode == "buy" and quoted_tier(offers[oid], n) is None:
            first = offers[oid].buy_tiers[0][0]
            bad.append(f"purchase: {n} nodes of {oid} are fewer than its first volume tier ({first} nodes)")
    return bad + _purchase_price_problems(project, offers, plan, bought)


def _purchase_price_problems(project, offers, plan: Plan, bought) -> list[str]:
    """Each purchase's price per node against the volume tier its offer's total reaches."""
    bad: list[str] = []
    for p in plan.purchases:
        o = offers[p.offer_id]
        tier = quoted_tier(o, bought[p.offer_id]) if o.mode == "buy" else None
        if tier is None:
            continue  # reported by _purchase_problems
        # the tier paid: every node at the price of the highest tier the total reaches (all-units)
        paid = tier[1] * project.fx_rate(o.currency)
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
        rented[r.offer_id].append((*_contract_days(project, r), r.nodes))
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


def _month_day(project, month: int, phase: float) -> float:
    """The day ``phase`` days after the 1st of calendar month ``month`` (month 0: the start date's), on the
    month's last day when it is shorter: a contract's months begin on the same day of each month."""
    s = project.start_date
    y, mo = divmod(s.year * 12 + s.month - 1 + month, 12)
    last = calendar.monthrange(y, mo + 1)[1] - 1
    whole = math.floor(phase + 1e-9)
    return (dt.date(y, mo + 1, 1) - s).days + (phase if whole <= last else last + phase - whole)


def _contract_days(project, r: Rental) -> tuple[float, float]:
    """The days a contract holds its nodes: from its first month's day to the same day ``months`` later."""
    return _month_day(project, r.start_month, r.phase_days), _month_day(project, r.start_month + r.months, r.phase_days)


def _contract_problems(project, o: Offer, r: Rental, modes, used: set[str]) -> list[str]:
    """One rental contract's mode, use, term, rate and months within the horizon (a commitment, signed before
    the plan: its rate and months; the commitment rule checks it is the one signed)."""
    bad: list[str] = []
    _term, quoted, why = contract_rate(o, r.contract)
    rate = quoted * project.fx_rate(o.currency)  # the tier signed: a rent tier's rate, or the hourly rate × 730 h
    if r.committed:
        if not _close(r.price_per_node_month, rate):
            bad.append(
                f"rent_price: commitment of {r.offer_id} reports {r.price_per_node_month:,.2f}, its rate is {rate:,.2f}"
            )
        return bad
    if o.mode not in modes:
        bad.append(f"mode: the plan contracts {r.offer_id} ({o.mode}) but may use only {', '.join(modes)}")
    if r.offer_id not in used:
        bad.append(f"idle: the plan contracts {r.nodes} × {r.offer_id} but no job runs on them")
    if why:
        bad.append(f"rent_term: contract of {r.nodes} × {r.offer_id} from month {r.start_month}: {why}")
    elif not _close(r.price_per_node_month, rate):
        bad.append(
            f"rent_price: contract of {r.offer_id} from month {r.start_month} reports "
            f"{r.price_per_node_month:,.2f} per node-month, its tier is {rate:,.2f} {project.currency}"
        )
    begin = _contract_days(project, r)[0]
    if not 0.0 <= r.phase_days < 31:
        bad.append(f"rent_phase: contract of {r.offer_id} begins {r.phase_days:g} days after a month's 1st (0 to 31)")
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
    months = {float(max(0.0, _month_day(project, m, 0.0))) for m in range(project.horizon_months + 1)}
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


def _cost_problems(project, offers, plan: Plan) -> list[str]:
    """The plan's money: every entry's amount against its formula template of its own fields (solver.formulas),
    every entry, total, category, cash flow, NPV, P&L year and budget against what the verifier derives from the
    quotes by its own rules (solver.verify_money), and the plan's line items and allocation against its total."""
    bad = formula_problems(plan.ledger.entries, project, _close) + money_problems(project, offers, plan)
    staff = tuple(str(m) for m in project.staff.modes) if project.staff is not None else ()
    return bad + _total_problems(plan, staff) + _staff_problems(plan)


def _staff_problems(plan: Plan) -> list[str]:
    """The staff the plan states (FTEs, months, peak nodes) against its ledger's staff entry (which
    money_problems derives from the nodes the plan holds)."""
    entry = plan.ledger.get("staff")
    want = (int(entry.quantity or 0), int(entry.rate or 0), int(entry.nodes or 0)) if entry is not None else None
    bad = []
    for c in (c for c in plan.charges if c.kind == "staff"):
        if (c.ftes, c.months, c.nodes) != want:
            bad.append(
                f"staff: the plan states {c.ftes} FTE(s) for {c.months} months at a peak of {c.nodes} nodes; "
                f"its ledger's staff entry is {want}"
            )
    return bad


def _total_problems(plan: Plan, staff_modes: tuple[str, ...] = ()) -> list[str]:
    """The plan's breakdown, per-workload costs and line items against its total (the total itself against the
    quotes: solver.verify_money)."""
    bad: list[str] = []
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
