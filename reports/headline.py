"""What page 1 says, format-neutral: the recommendation sentence, the peak capacity per offer, the
strategies compared on the minimized objective, the spot risk and stale prices.

The console, the CSV summary and the workbook's Summary all read these, so they say the same thing.

Peak nodes are the most nodes of one offer held at the same time: bought nodes are held from
delivery to the horizon end; a rental contract holds its nodes in each of its months; a cloud job
holds its nodes from its start to its end day. Summing contracts or taking the largest one would
over- or under-state what has to be ordered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result

import datetime as dt
from dataclasses import dataclass

from procure.solver import appraisal
from procure.solver.costs import Objective
from procure.solver.reasons import signed_pct
from procure.solver.result import cost_on

from .i18n import EN, N_, Lang

STRATEGY_LABEL = {
    "hybrid": N_("hybrid (free)"),
    "buy": N_("buy only"),
    "rent": N_("rent only"),
    "cloud": N_("cloud only"),
}
OBJECTIVE_LABEL = {
    "tco": N_("total cost of ownership (TCO)"),
    "npv": N_("net present value (NPV) of the costs"),
    "after_tax_npv": N_("after-tax net present value of the costs"),
}
OBJECTIVE_SHORT = {"tco": N_("TCO"), "npv": N_("NPV"), "after_tax_npv": N_("after-tax NPV")}
#: the deployment modes and solve statuses as a reader sees them
MODE_LABEL = {"buy": N_("buy"), "rent": N_("rent"), "cloud": N_("cloud")}
STATUS_LABEL = {
    "optimal": N_("optimal"),
    "feasible": N_("feasible"),
    "infeasible": N_("infeasible"),
    "no_solution": N_("no_solution"),
    "excluded": N_("excluded"),
    "heuristic": N_("heuristic"),
}
#: why an offer lost for a job (``solver.explain.Why``), as a reader sees it
WHY_LABEL = {
    "chosen": N_("chosen"),
    "same": N_("same cost"),
    "price": N_("price"),
    "lead_time": N_("lead time"),
    "deadline": N_("deadline"),
    "term": N_("term"),
    "fit": N_("fit"),
    "excluded": N_("excluded"),
    "budget": N_("budget"),
    "capacity": N_("capacity"),
    "time_limit": N_("time limit"),
    "quota": N_("quota"),
    "window": N_("window"),
}
#: Two costs closer than this (relative) are "the same".
SAME = 1e-6


def money(x: float | None, currency: str = "", tr: Lang = EN) -> str:
    return tr.money(x, currency)


def signed_money(x: float | None, tr: Lang = EN, currency: str = "") -> str:
    """A difference with its sign: ``+1,234``, ``-1,234``; one that rounds to nothing is ``0`` — never ``+0`` or
    ``-0`` (the sign would tell a reader there is a difference); ``—`` for none."""
    if x is None:
        return "—"
    if round(x) == 0:
        return tr.money(0.0, currency)
    return ("+" if x > 0 else "") + tr.money(x, currency)


def mode_label(mode, tr: Lang = EN) -> str:
    """A mode (buy, rent, cloud) in the reader's language."""
    return tr(MODE_LABEL[str(mode)]) if str(mode) in MODE_LABEL else str(mode)


def status_label(status, tr: Lang = EN) -> str:
    """A solve status in the reader's language."""
    return tr(STATUS_LABEL[str(status)]) if str(status) in STATUS_LABEL else str(status)


@dataclass(frozen=True)
class Peak:
    """One offer's capacity in the plan: the most nodes held at once, and how much was used in total."""

    offer_id: str
    mode: str
    vendor: str
    label: str  # e.g. 8xH100-SXM-80GB
    spot: bool
    peak_nodes: int
    amount: float  # node-months (rent, reserved cloud), node-hours (cloud), nodes (buy)
    amount_unit: str
    reserved: bool = False  # a reserved cloud term (commitment_months): held, and paid, for its whole term
    committed: bool = False  # owned servers, or only contracts signed before the plan (project commitments)
    gpus_per_node: int = 0  # the GPUs in one of its nodes: the phrase says both, nodes and GPUs


def _peak_of_intervals(intervals: list[tuple[float, float, int]]) -> int:
    """Most nodes held at once over half-open [start, end) intervals."""
    events = sorted(
        [(s, n) for s, _e, n in intervals] + [(e, -n) for _s, e, n in intervals], key=lambda x: (x[0], x[1])
    )
    held = peak = 0
    for _t, dn in events:  # ends sort before starts at the same time (negative first)
        held += dn
        peak = max(peak, held)
    return peak


def peaks(result: Result) -> list[Peak]:
    """Per offer of the recommended plan, in the order buy, rent, cloud."""
    plan = result.plan
    if plan is None:
        return []
    out: list[Peak] = []
    for pur in plan.purchases:
        o = result.offers[pur.offer_id]
        out.append(
            Peak(
                o.id,
                "buy",
                o.vendor,
                o.label,
                False,
                pur.nodes,
                float(pur.nodes),
                "nodes",
                committed=pur.committed,
                gpus_per_node=o.gpus_per_node,
            )
        )
    rent: dict[str, list] = {}
    for r in plan.rentals:
        rent.setdefault(r.offer_id, []).append(r)
    for oid, rs in rent.items():
        o = result.offers[oid]
        # the most nodes under contract at once: where a contract begins, on its own months
        per_month = {r.start_day: sum(x.nodes for x in rs if x.start_day <= r.start_day + 1e-6 < x.end_day) for r in rs}
        out.append(
            Peak(
                o.id,
                o.mode,  # "rent", or "cloud": a reserved cloud term is held like a rental, and is one offer's line
                o.vendor,
                o.label,
                False,
                max(per_month.values()),
                float(sum(r.nodes * r.months for r in rs)),
                "node-months",
                reserved=o.mode == "cloud",
                committed=all(r.committed for r in rs),
                gpus_per_node=o.gpus_per_node,
            )
        )
    cloud: dict[str, list] = {}
    for a in plan.assignments:
        if a.mode == "cloud" and a.offer_id not in rent:  # a reserved term's jobs are on its line above
            cloud.setdefault(a.offer_id, []).append(a)
    for oid, jobs in cloud.items():
        o = result.offers[oid]
        peak = _peak_of_intervals([(a.start_day, a.end_day, a.nodes) for a in jobs])
        out.append(
            Peak(
                o.id,
                "cloud",
                o.vendor,
                o.label,
                bool(o.spot),
                peak,
                sum(a.nodes * a.hours for a in jobs),
                "node-hours",
                gpus_per_node=o.gpus_per_node,
            )
        )
    return out


def amount_unit(unit: str, tr: Lang = EN) -> str:
    """The unit of a peak's amount (nodes, node-months, node-hours) in the reader's language."""
    if unit == "nodes":
        return tr.p("unit", "nodes")
    return tr({"node-months": N_("node-months"), "node-hours": N_("node-hours")}[unit])


def _peak_phrase(pk: Peak, tr: Lang = EN) -> str:
    nodes = tr("{n} × {label} node" if pk.peak_nodes == 1 else "{n} × {label} nodes", n=pk.peak_nodes, label=pk.label)
    if pk.gpus_per_node:  # "2 × 8xH100 nodes (16 GPUs)": a node count is never read as GPUs
        gpus = pk.peak_nodes * pk.gpus_per_node
        nodes += tr(" ({n} GPUs)" if gpus != 1 else " ({n} GPU)", n=gpus)
    if pk.committed:  # what the organisation already has: no decision, but where the jobs run
        if pk.mode == "buy":
            return tr("use the {nodes} already owned", nodes=nodes)
        return tr("use the {nodes} already under contract with {vendor}", nodes=nodes, vendor=pk.vendor)
    if pk.mode == "buy":
        return tr("buy {nodes} from {vendor}", nodes=nodes, vendor=pk.vendor)
    if pk.mode == "rent":
        return tr(
            "rent {nodes} at peak from {vendor} ({amount} node-months)",
            nodes=nodes,
            vendor=pk.vendor,
            amount=tr.number(pk.amount),
        )
    if pk.reserved:
        return tr(
            "reserve {nodes} at peak of {vendor} cloud capacity for its committed term ({amount} node-months)",
            nodes=nodes,
            vendor=pk.vendor,
            amount=tr.number(pk.amount),
        )
    kind = tr("SPOT cloud") if pk.spot else tr("on-demand cloud")
    return tr(
        "use {nodes} at peak of {vendor} {kind} capacity ({amount} node-hours)",
        nodes=nodes,
        vendor=pk.vendor,
        kind=kind,
        amount=tr.number(pk.amount),
    )


@dataclass(frozen=True)
class Comparison:
    """The recommended plan against one strategy, on the minimized objective."""

    name: str
    label: str
    status: str
    cost: float | None  # on the objective
    other: float | None  # on the other objective (TCO when NPV was minimized, and vice versa)
    diff: float | None  # cost − recommended (objective units); positive: the strategy costs more
    pct: float | None  # diff / cost
    bound: str  # "" exact; "at most": the strategy's solve stopped at a gap, its best plan may be cheaper
    gap: float | None
    text: str  # the phrase for the recommendation sentence ("" for the recommended plan)


def comparisons(result: Result, tr: Lang = EN) -> list[Comparison]:
    """Every strategy against the recommended plan, on the objective that was minimized."""
    obj = result.objective
    other_obj = str(Objective(obj).other)
    base = result.objective_cost
    out = []
    for name in ("hybrid", "buy", "rent", "cloud"):
        s = result.strategies.get(name)
        if s is None:
            continue
        label = tr(STRATEGY_LABEL[name])
        gap = s.solve.gap if s.solve else None
        if s.status == "excluded":
            out.append(
                Comparison(
                    name,
                    label,
                    "excluded",
                    None,
                    None,
                    None,
                    None,
                    "",
                    None,
                    tr("{label} excluded by you (allowed_modes)", label=label),
                )
            )
            continue
        cost, other = cost_on(s.plan, Objective(obj)), cost_on(s.plan, Objective(other_obj))
        if cost is None or base is None:
            txt = (
                tr("{label} is infeasible", label=label)
                if s.status == "infeasible"
                else tr("{label}: no plan within the time limit", label=label)
            )
            out.append(
                Comparison(name, label, str(s.status), None, None, None, None, "", gap, "" if name == "hybrid" else txt)
            )
            continue
        diff = cost - base
        pct = diff / cost if cost else None
        # a comparator stopped at a gap: its true optimum may be up to gap × cost lower, so our saving is an upper bound
        bound = "at most" if s.status != "optimal" and name != "hybrid" and diff > 0 else ""
        short = tr(OBJECTIVE_SHORT[obj])
        if name == "hybrid":
            txt = ""
        elif abs(diff) <= SAME * max(1.0, abs(base)):
            txt = tr("same {short} as {label}", short=short, label=label)
        elif diff > 0:
            gap_note = tr(", whose solve stopped at a {gap:.1%} gap", gap=gap) if bound and gap is not None else ""
            less = (
                tr("at most {pct} less {short} than {label}{gap_note}")
                if bound
                else tr("{pct} less {short} than {label}{gap_note}")
            )
            txt = less.format(pct=share_text(pct or 0.0), short=short, label=label, gap_note=gap_note)
        else:
            txt = tr("{pct} more {short} than {label}", pct=share_text(-diff / cost), short=short, label=label) + (
                tr(" (this plan's solve stopped at a gap)") if result.status != "optimal" else ""
            )
        out.append(Comparison(name, label, str(s.status), cost, other, diff, pct, bound, gap, txt))
    return out


#: the column that compares a strategy with the recommended plan, on one base: the strategy's own cost
SAVING_HEADER = N_("recommended saves\n(% of its {short})")  # two lines: the table fits 80 columns


def saving_text(c: Comparison, tr: Lang = EN) -> str:
    """What the recommended plan saves against strategy ``c``, on the base the recommendation sentence uses
    ("26% less than rent only"): the strategy's cost − the recommended, and that as a share of the strategy's
    cost, (other − plan) / other. ``—`` for the recommended plan itself and for a strategy without a plan."""
    if c.name == "hybrid" or c.diff is None or c.cost is None:
        return "—"
    bound = "≤ " if c.bound else ""
    if abs(c.diff) <= SAME * max(1.0, abs(c.cost - c.diff)):
        return tr("0 (same)")
    amount = tr.money(c.diff) if round(c.diff) != 0 else tr.money(0.0)
    pct = share_text(c.pct or 0.0) if c.diff > 0 else "-" + share_text(-(c.pct or 0.0))
    return f"{bound}{amount} ({bound}{pct})"


def share_text(fraction: float) -> str:
    """A difference as a percentage a reader can trust: whole percents from 1 %, else one decimal ("0.4%"),
    and "< 0.1%" below that — never "0%" for a difference that is not the same."""
    if round(abs(fraction) * 100) >= 1:
        return f"{fraction:.0%}"
    if abs(fraction) >= 0.00095:
        return f"{fraction:.1%}"
    return "< 0.1%"


def objective_phrase(result: Result, tr: Lang = EN) -> str:
    p = result.project
    if Objective(result.objective) is Objective.AFTER_TAX_NPV:
        return tr(
            "minimizing the {label} at {rate:.1%} a year (income tax {tax:.1%}, {rule})",
            label=tr(OBJECTIVE_LABEL["after_tax_npv"]),
            rate=appraisal.rates(p).after_tax,
            tax=appraisal.rates(p).income_tax,
            rule=p.tax.depreciation if p.tax is not None else "",
        )
    if Objective(result.objective).discounted:
        return tr("minimizing the {label} at {rate:.1%} a year", label=tr(OBJECTIVE_LABEL["npv"]), rate=p.discount_rate)
    return tr("minimizing the {label}", label=tr(OBJECTIVE_LABEL["tco"]))


def what_to_do(result: Result, tr: Lang = EN) -> str:
    """The actions, with the peak nodes held at once per offer: 'Rent 8 × 8xH100 nodes at peak from …'."""
    parts = [_peak_phrase(pk, tr) for pk in peaks(result)]
    what = tr("; ").join(parts)
    return what[0].upper() + what[1:] if what else ""


def recommendation(result: Result, tr: Lang = EN) -> str:
    """One sentence: what to do (peak nodes per offer), what it costs on the minimized objective (and
    the other beside it), and how it compares with the single-mode strategies."""
    plan, p = result.plan, result.project
    if plan is None:
        return tr("No plan: see the reasons below.")
    cur = p.currency
    if Objective(result.objective) is Objective.AFTER_TAX_NPV:
        cost = tr(
            "{npv} after-tax net present value (minimized; {tco} total cost of ownership before tax)",
            npv=tr.money(plan.after_tax_npv or 0.0, cur),
            tco=tr.money(plan.total_cost, cur),
        )
    elif Objective(result.objective).discounted:
        cost = tr(
            "{npv} net present value (minimized; {tco} total cost of ownership)",
            npv=tr.money(plan.npv_cost, cur),
            tco=tr.money(plan.total_cost, cur),
        )
    else:
        cost = tr("{tco} total cost of ownership (minimized)", tco=tr.money(plan.total_cost, cur))
    cmp = [c.text for c in comparisons(result, tr) if c.text]
    tail = tr(" ({list})", list=tr(", ").join(cmp)) if cmp else ""
    return tr(
        "{what}: {cost} over {months} months{tail}.",
        what=what_to_do(result, tr),
        cost=cost,
        months=p.horizon_months,
        tail=tail,
    )


@dataclass(frozen=True)
class SpotRisk:
    offers: list[str]  # spot offers in the plan
    workloads: list[str]
    fallback_status: str
    fallback_cost: float | None  # the plan re-solved without spot, on the objective
    fallback_tco: float | None
    extra: float | None  # fallback − recommended (objective units)
    text: str


def spot_risk(result: Result, tr: Lang = EN) -> SpotRisk | None:
    """When the plan uses spot: which jobs, and what the same workloads cost without spot (re-solved)."""
    plan = result.plan
    if plan is None:
        return None
    spot_jobs = [a for a in plan.assignments if result.offers[a.offer_id].spot]
    if not spot_jobs:
        return None
    cur = result.project.currency
    offers = list(dict.fromkeys(a.offer_id for a in spot_jobs))
    fb = result.spot_fallback
    cost = cost_on(fb.plan, result.objective) if fb else None
    tco = fb.plan.total_cost if fb and fb.plan else None
    base = result.objective_cost
    extra = cost - base if cost is not None and base is not None else None
    short = tr(OBJECTIVE_SHORT[result.objective])
    overhead = max((result.offers[o].hour_overhead or 0.0) for o in offers)
    head = tr(
        "Spot risk: {n} of {total} workload(s) run on spot capacity ({offers}), which the provider may interrupt "
        "(planned with {overhead:.0%} extra hours).",
        n=len(spot_jobs),
        total=len(plan.assignments),
        offers=", ".join(offers),
        overhead=overhead,
    )
    if cost is None or extra is None or base is None:
        why = (
            tr("no plan without spot exists")
            if fb is not None and fb.status == "infeasible"
            else tr("no plan without spot was found")
        )
        text = tr("{head} Without spot: {why}, so the deadlines depend on spot capacity.", head=head, why=why)
    else:
        text = tr(
            "{head} On-demand fallback (the same workloads re-solved without spot): {cost} {short}, {extra} more ({pct}).",
            head=head,
            cost=tr.money(cost, cur),
            short=short,
            extra=tr.money(extra, cur),
            pct=signed_pct(extra / base) if base else "—",
        )
    return SpotRisk(offers, [a.workload for a in spot_jobs], str(fb.status) if fb else "", cost, tco, extra, text)


@dataclass(frozen=True)
class Stale:
    offer_id: str
    quoted_on: dt.date
    days_before_start: int


def stale_offers(result: Result) -> list[Stale]:
    """Offers whose price the recommended plan would pay anew, quoted more than ``stale_quote_days`` before the start.

    A quote goes stale; an invoice does not. Servers already owned (project ``owned``) are paid for, and a signed
    commitment (``commitments``) is owed at the rate signed: neither is a price to ask again, so a plan that only
    runs jobs on them is not warned about them. The same offer bought or rented anew in the plan still is: that
    money is spent at the quoted price."""
    plan, p = result.plan, result.project
    if plan is None:
        return []
    new_money = [x.offer_id for x in plan.purchases if not x.committed] + [
        r.offer_id for r in plan.rentals if not r.committed
    ]
    held = {x.offer_id for x in plan.purchases if x.committed} | {r.offer_id for r in plan.rentals if r.committed}
    # a job on an offer held only through what is owned or signed spends nothing at its quoted price
    used = [a.offer_id for a in plan.assignments if a.offer_id not in held or a.offer_id in new_money]
    out = []
    for oid in dict.fromkeys(used + new_money):
        o = result.offers[oid]
        age = (p.start_date - o.quoted_on).days
        if age > p.stale_quote_days:
            out.append(Stale(oid, o.quoted_on, age))
    return out


def stale_text(result: Result, tr: Lang = EN) -> str:
    st = stale_offers(result)
    if not st:
        return ""
    p = result.project
    each = tr("; ").join(
        tr("{offer} quoted {date} ({days} days)", offer=s.offer_id, date=tr.date(s.quoted_on), days=s.days_before_start)
        for s in st
    )
    return tr(
        "Stale prices: {n} offer(s) in this plan were quoted more than {limit} days before the start date {start}: {each}. "
        "Ask for fresh quotes before approval (stale_quote_days sets the limit).",
        n=len(st),
        limit=p.stale_quote_days,
        start=tr.date(p.start_date),
        each=each,
    )


def npv_timing_note(result: Result, tr: Lang = EN) -> str:
    """Under the NPV objective a job may start later than it could: a later payment is worth less today."""
    if not Objective(result.objective).discounted or result.plan is None:
        return ""
    earliest = {w.name: w.earliest_start_days for w in result.project.workloads}
    late = [
        a
        for a in result.plan.assignments
        if a.start_day - max(earliest[a.workload], result.offers[a.offer_id].lead_time_days) >= 7
    ]
    if not late:
        return ""
    return tr(
        "{n} workload(s) start later than allowed because NPV is minimized: paying later lowers the present value, "
        "not the cost. Run with --objective tco to start every job as early as allowed.",
        n=len(late),
    )


#: why a job was set aside, as a reader sees it (``solver.planner.SetAside.cause``)
SET_ASIDE_CAUSE = {
    "fit": N_("cannot run on these offers"),
    "budget": N_("is not covered by the budget"),
    "capacity": N_("does not fit the offers' capacity with the others"),
}


def set_aside_headline(result: Result, tr: Lang = EN) -> str:
    """'3 of 4 jobs planned; legal-67b-full cannot run on these offers (GPU memory: needs …)' — or ''."""
    if not result.set_aside:
        return ""
    each = tr("; ").join(
        tr("{workload} {cause} ({why})", workload=x.workload, cause=tr(SET_ASIDE_CAUSE[x.cause]), why=tr.say(x.summary))
        for x in result.set_aside
    )
    planned = len(result.project.workloads) if result.plan is not None else 0
    return tr("{n} of {total} jobs planned; {each}", n=planned, total=result.n_jobs, each=each)


def set_aside_rows(result: Result, tr: Lang = EN) -> list[dict]:
    """One row per job set aside: workload, cause (fit, budget, capacity), its phrase and every reason line."""
    return [
        {
            "workload": x.workload,
            "cause": x.cause,
            "cause_text": tr(SET_ASIDE_CAUSE[x.cause]),
            "summary": tr.say(x.summary),
            "reasons": [tr.say(r) for r in x.reasons],
            "rules": list(x.rules),
        }
        for x in result.set_aside
    ]


# --- the range of the recommended plan (analysis/plan_risk.py) and what its hours rest on ---------------


@dataclass(frozen=True)
class PlanRange:
    """TCO at the band's P50 and P90 hours, the probability the plan runs as decided, how it was worked
    out, and the jobs that meet their deadline below deadline_confidence (workload, confidence)."""

    tco_p50: float
    tco_p90: float
    runs_as_decided: float
    method: str
    band: str
    unsure: list[tuple[str, float]]


def plan_range(result: Result) -> PlanRange | None:
    """The recommended plan's range (None without a plan, or when the solve did not work it out): read from
    ``Result.risk``, which the solve computed once (analysis/plan_risk.py); nothing is re-costed here."""
    from procure.solver.sizing.band import confidence_of
    from procure.solver.sizing.constants import constant

    risk = result.risk
    if risk is None:
        return None
    p = result.project
    workloads = {w.name: w for w in p.workloads}
    unsure = []
    for a in result.planned().assignments:
        wall = a.end_day - a.start_day
        room = p.deadline_days_for(workloads[a.workload]) - a.start_day
        reached = confidence_of(room / wall) if wall > 0 else 1.0
        if reached < p.deadline_confidence - 1e-6:
            unsure.append((a.workload, reached))
    band = (
        f"P10–P90 {constant('HOURS_BAND_P10'):.2f}–{constant('HOURS_BAND_P90'):.2f}× the estimate, "
        "the execution factor's spread over comparable published whole runs (a slower team, not a slower GPU), "
        "docs/sizing.md"
    )
    return PlanRange(risk.tco_p50, risk.tco_p90, risk.runs_as_decided, risk.method, band, unsure)


def range_lines(result: Result, tr: Lang = EN) -> list[str]:
    """What the Summary and the console say about the plan's range: TCO P50 and P90 with the probability
    it runs as decided, the deadline confidence, jobs held below it, and GPUs whose MFU is an assumption."""
    from procure.solver.sizing.constants import constant

    r = plan_range(result)
    if r is None:
        return []
    cur = result.project.currency
    conf = result.project.deadline_confidence
    lines = [
        tr(
            "Range of this plan's TCO over the hours band alone (exact, not sampled): P50 {p50}, P90 {p90}; it runs "
            "as decided with {prob} probability (hours band {band}; {method}; procure analyze's Monte Carlo samples "
            "this band with any other declared uncertainty, so its P50 and P90 differ, by the sampling error at least)",
            p50=money(r.tco_p50, cur, tr),
            p90=money(r.tco_p90, cur, tr),
            prob=probability_text(r.runs_as_decided),
            band=tr(
                "P10–P90 {lo}–{hi}× the estimate: the execution factor's spread over comparable published whole runs "
                "(a slower team, not a slower GPU), docs/sizing.md",
                lo=f"{constant('HOURS_BAND_P10'):.2f}",
                hi=f"{constant('HOURS_BAND_P90'):.2f}",
            ),
            method=tr(r.method),
        ),
        tr(
            "Deadlines are held at {conf:.0%} confidence (deadline_confidence): each job meets its deadline at its P{pct:g} hours",
            conf=conf,
            pct=100 * conf,
        ),
    ]
    for name, reached in r.unsure:
        lines.append(
            tr(
                "{name} meets its deadline with only {reached:.0%} confidence (below deadline_confidence {conf:g}): no shape finishes in time at its P{pct:g} hours",
                name=name,
                reached=reached,
                conf=conf,
                pct=100 * conf,
            )
        )
    for gpu, basis in assumed_mfu(result):
        lines.append(
            tr(
                "Assumption: the MFU of {gpu} ({basis}) is not a measurement; no published training run on this GPU family was found, so its hours are less certain than the band says",
                gpu=gpu,
                basis=basis,
            )
        )
    return lines


def probability_text(p: float) -> str:
    """A probability as the reports print it: "≥ 99.9%" at the bisection's top, one decimal from 99%
    (never a rounded "100%"), else a whole percent."""
    if p >= 0.999 - 1e-9:
        return "≥ 99.9%"
    return f"{p:.1%}" if p >= 0.99 else f"{p:.0%}"


def assumed_mfu(result: Result) -> list[tuple[str, str]]:
    """(GPU, the assumed MFU constant) for each GPU of the plan whose default MFU rests on an assumption
    (a constant whose source says "Assumption"); a workload's own ``mfu`` is the user's figure."""
    from procure.models.gpu import gpu_table
    from procure.solver.sizing.constants import constant_rows

    assumed = {n for n, _v, _u, src in constant_rows() if n.startswith("MFU_") and "Assumption" in src}
    table = gpu_table()
    workloads = {w.name: w for w in result.project.workloads}
    out: dict[str, str] = {}
    for a in result.planned().assignments:
        if workloads[a.workload].mfu is not None:
            continue
        g = table[a.gpu]
        name = "MFU_CONSUMER" if g.form_factor == "consumer" else f"MFU_{g.architecture.upper()}"
        if name in assumed:
            out.setdefault(a.gpu, name)
    return sorted(out.items())
