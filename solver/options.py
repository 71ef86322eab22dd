"""Options: every fitting shape of a workload turned into something the planner can schedule.

An option is (workload, offer, nodes, strategy) with its wall-clock duration on the nodes, the start
periods that respect ``earliest_start_days``, the offer's lead time and the deadline, and its
stand-alone cost (the job alone on that shape, starting as early as allowed). Shapes that fit but can
never meet the deadline become rejections with the day they would finish.

Dominance (per workload and offer): a shape that needs at least as many nodes, node-days and days as
another shape of the same offer cannot be in any optimal plan — it takes more capacity for longer at
no lower cost — so it is dropped before the MILP is built.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from procure.models.offer import Offer
from procure.models.project import Project
from procure.models.units import HOURS_PER_DAY
from procure.solver.reasons import Msg, Reason, Rule, render, say

from . import costs, holdings, lattice
from .costs import RentalContract
from .sizing.band import confidence_of, hours_multiplier
from .sizing.results import Candidate
from .sizing.shapes import node_cap, tried_counts

EPS = 1e-9


@dataclass
class Option:
    workload: str
    offer: Offer
    nodes: int
    gpus: int
    hours: float  # compute hours on the shape
    wall_days: float  # days the nodes are occupied (spot overhead included)
    starts: list[int]  # allowed start periods
    candidate: Candidate | None = field(repr=False, default=None)  # the sized shape: strategy, efficiency, memory, MFU
    # the confidence its deadline is met with, when below the project's deadline_confidence (None: met at it)
    confidence: float | None = None
    # the job alone on this shape from its first start (standalone_cost), priced when first asked: the
    # planner's analysis re-solves never ask, and pricing every shape was a third of their time
    price: Callable[[], float] | None = field(repr=False, default=None)
    _standalone: float | None = field(repr=False, default=None)

    @property
    def standalone_cost(self) -> float:
        if self._standalone is None:
            self._standalone = self.price() if self.price is not None else 0.0
        return self._standalone

    @property
    def offer_id(self) -> str:
        return self.offer.id

    @property
    def key(self) -> tuple[str, str, int]:
        """The option's identity, (workload, offer, nodes): the same under any price; with a start period
        it names one column of the model."""
        return (self.workload, self.offer.id, self.nodes)

    @property
    def mode(self) -> str:
        return self.offer.mode


@dataclass(frozen=True)
class Grid:
    """The planning grid: periods of ``period_days`` days over the horizon, and project months."""

    period_days: int
    n_periods: int
    n_months: int
    horizon_days: int

    @classmethod
    def of(cls, project: Project) -> Grid:
        return cls(
            project.period_days,
            math.ceil(project.horizon_days / project.period_days),
            project.horizon_months,
            project.horizon_days,
        )

    def day_of_period(self, s: int) -> float:
        """The day planning period ``s`` begins (a job's ``start_day`` is the day of its start period)."""
        return float(s * self.period_days)

    def busy_periods(self, s: int, wall_days: float) -> range:
        end = s * self.period_days + wall_days
        last = max(s, math.ceil(end / self.period_days - EPS) - 1)
        return range(s, last + 1)


def allowed_starts(project: Project, grid: Grid, workload, offer: Offer, wall_days: float) -> tuple[list[int], float]:
    """Start periods for a job, and the earliest day it could finish (for the rejection reason). The job
    must end by ``deadline_days − min_slack_days`` (``Project.deadline_days_for``):
    s·period_days + wall_days ≤ that day, and start and end inside the offer's window (holdings.release_day)."""
    release = max(workload.earliest_start_days, holdings.release_day(project, offer))
    s_min = math.ceil(release / grid.period_days - EPS)
    earliest_finish = s_min * grid.period_days + wall_days
    due = project.deadline_days_for(workload)
    until = holdings.window(project, offer)[1]
    if until is not None:
        due = min(due, until)
    s_max = math.floor((due - wall_days) / grid.period_days + EPS)
    return list(range(s_min, s_max + 1)), earliest_finish


def window_reason(project: Project, grid: Grid, workload, offer: Offer, wall_days: float) -> Reason | None:
    """Why a job that would meet its deadline on the offer cannot run inside the offer's window, or None."""
    lo, hi = holdings.window(project, offer)
    if not (offer.available_from or offer.available_until):
        return None
    plain = offer.model_copy(update={"available_from": None, "available_until": None})
    if not allowed_starts(project, grid, workload, plain, wall_days)[0]:
        return None  # the deadline rules it out anyway: that reason says more
    why = say(
        "a {days}-day job does not fit the offer's window, days {lo} to {hi} (available_from {a} – available_until {b})",
        days=f"{wall_days:.1f}",
        lo=f"{lo:g}",
        hi="the horizon end" if hi is None else f"{hi:g}",
        a=offer.available_from or "-",
        b=offer.available_until or "-",
    )
    return Reason.of(Rule.OFFER_WINDOW, why)


def reached_confidence(project: Project, grid: Grid, workload, offer: Offer, wall_days: float) -> float | None:
    """The highest confidence (to 0.001, at least 0.5) with which a job of median duration ``wall_days``
    meets its deadline from its earliest start, or None when it misses it even at the median. The wall
    time is proportional to the hours (``costs.wall_hours``), so the room left is a multiplier on them."""
    release = max(workload.earliest_start_days, holdings.release_day(project, offer))
    first = math.ceil(release / grid.period_days - EPS) * grid.period_days
    until = holdings.window(project, offer)[1]
    room = min(project.deadline_days_for(workload), until if until is not None else math.inf) - first
    if wall_days <= 0 or room < wall_days * hours_multiplier(0.5) - EPS:
        return None
    reached = math.floor(min(confidence_of(room / wall_days), project.deadline_confidence) * 1000) / 1000
    return reached if reached >= 0.5 else None


def finish_by(project: Project, workload) -> Msg:
    """The day a job must end by, as a rejection reason says it: the deadline, less its schedule buffer."""
    slack = project.slack_for(workload)
    if not slack:
        return say("deadline day {day}", day=workload.deadline_days)
    return say(
        "day {day} (deadline day {deadline} − min_slack_days {slack})",
        day=f"{project.deadline_days_for(workload):g}",
        deadline=workload.deadline_days,
        slack=f"{slack:g}",
    )


def standalone_contracts(
    project: Project,
    grid: Grid,
    offer: Offer,
    nodes: int,
    hours: float,
    start_day: float,
    cache: dict | None = None,
) -> list[RentalContract]:
    """The cheapest whole-month contracts that one job alone needs on a rent or reserved cloud offer: they
    begin on the latest contract day (lattice.py) at or before the job's start and cover it to its end,
    one after another, each running whole months from its own start; a contract whose months would run
    past the horizon begins earlier. With one (flat) term this is one contract of the months the job
    runs, at least the minimum term. With term tiers (each a minimum length) or a reserved term it is
    found by dynamic programming over the lattice months still to cover. Of the offer's phases the
    cheapest wins, then the one that begins latest (the fewest days paid before the job).

    ``cache``: a dict kept by a caller that prices many jobs of one project and catalog (the greedy plan, an
    option table). A contract's cost is linear in its nodes (costs.rental_contract_cost), so the cheapest
    cover of a span of lattice months is the same for any node count and is worked out once per offer,
    phase and span."""
    cache = {} if cache is None else cache
    end = costs.job_end_day(offer, start_day, hours)
    key = ("phases", offer.id)
    if key not in cache:
        cache[key] = (lattice.contract_phases(project, offer), holdings.contract_from_day(project, offer))
    phases, from_day = cache[key]
    best: tuple[float, float, tuple] | None = None
    for phase in phases:
        first = lattice.covering_start(project.calendar, offer, phase, start_day, from_day)
        if first is None:
            continue
        months = lattice.months_touched(project.calendar, phase, start_day, end)
        span = ("cover", offer.id, phase, first, min(months.stop, grid.n_months))
        if span not in cache:
            cache[span] = _cover_months(project, grid, offer, phase, from_day, first, span[4])
        got = cache[span]
        if got is None:
            continue
        cost, pieces = got
        order = (cost, -lattice.month_start(project.calendar, phase, first))
        if best is None or order < best[:2]:
            best = (order[0], order[1], tuple((phase, *piece) for piece in pieces))
    if best is None:
        return []
    return [
        RentalContract(offer.id, nodes, start, length, term, phase, cal=project.calendar)
        for phase, start, length, term in best[2]
    ]


def _cover_months(
    project: Project, grid: Grid, offer: Offer, phase: float, from_day: float, first: int, last: int
) -> tuple[float, tuple[tuple[int, int, int | None], ...]] | None:
    """The cheapest contracts of one node on ``phase`` covering its lattice months first … last−1, as
    (cost, ((start month, months, term months as signed), …)); None: none can."""
    M = grid.n_months
    priced = [(t, costs.signed_term_months(offer, t)) for t in costs.contract_terms(offer)]

    @functools.cache
    def best(p: int) -> tuple[float, tuple[tuple[int, int, int | None], ...]]:
        """Cheapest contracts covering months p … last−1."""
        if p >= last:
            return 0.0, ()
        out: tuple[float, tuple[tuple[int, int, int | None], ...]] = (math.inf, ())
        for t, signed in priced:
            length = max(t.months, last - p) if t.open_ended else t.months
            if length > M:
                continue
            start = min(p, M - length)
            if not lattice.may_start(project.calendar, offer, phase, start, from_day):
                continue
            here = costs.rental_contract_cost(offer, project, t, 1, length)
            rest, more = best(start + length)
            if here + rest < out[0] - 1e-9:
                out = (here + rest, ((start, length, signed), *more))
        return out

    cost, pieces = best(first)
    return None if math.isinf(cost) else (cost, pieces)


def standalone_cost(
    project: Project,
    grid: Grid,
    offer: Offer,
    nodes: int,
    hours: float,
    start_day: float,
    owned: dict[tuple[str, int], float] | None = None,
    data: costs.JobData | None = None,
    covers: dict | None = None,
) -> float:
    """The job alone on this shape from ``start_day``: buy its nodes, rent them for whole months, or pay the cloud,
    with the job's storage and egress (``data``), the offer's fixed charge and the staff its nodes alone need.
    ``owned``: a cache of the cost of owning one node, per (offer id, nodes bought), for many calls on one project;
    ``covers``: standalone_contracts' cache, likewise."""
    vat = 1.0 + costs.service_vat_rate(offer, project)  # the VAT that is a cost on a rent or cloud offer's charges
    job = costs.total(
        costs.with_service_vat(offer, project, costs.job_flows(offer, project, nodes, hours, start_day, data))
    )
    job += costs.total(costs.fixed_charge_flows(offer, project)) * vat
    offers = {offer.id: offer}
    if offer.mode == "buy":
        bought = costs.nodes_bought(offer, nodes)  # a vendor's minimum order is bought in full
        key = (offer.id, bought)
        per_node = owned.get(key) if owned is not None else None
        if per_node is None:
            per_node = costs.total(costs.purchase_flows(offer, project, bought))
            if owned is not None:
                owned[key] = per_node
        return job + bought * per_node + costs.total(costs.staff_flows(project, offers, {offer.id: bought}, []))
    if offer.contracted:
        contracts = standalone_contracts(project, grid, offer, nodes, hours, start_day, covers)
        return (
            job
            + sum(
                costs.total(costs.with_service_vat(offer, project, costs.rental_flows(offer, c, project)))
                for c in contracts
            )
            + costs.total(costs.staff_flows(project, offers, {}, contracts))
        )
    return job


def rental_fits_horizon(grid: Grid, offer: Offer) -> bool:
    return min(t.months for t in costs.contract_terms(offer)) <= grid.n_months


@dataclass
class Rejection:
    workload: str
    offer_id: str
    reasons: tuple[Reason, ...]

    @property
    def rule(self) -> Rule:
        """The rule that says most: the first one broken."""
        return self.reasons[0].rule

    @property
    def reason(self) -> str:
        return render(self.reasons)


def build_options(
    project: Project, offers: dict[str, Offer], sizings, modes: tuple[str, ...] | list[str] | None = None
) -> tuple[dict[str, list[Option]], list[Rejection], dict[str, list[Option]]]:
    """Returns (kept options per workload, rejections, every deadline-feasible option per workload)."""
    return OptionTable(project, offers, sizings).select(modes, project.allow_spot)


class OptionTable:
    """:func:`build_options` for every strategy of one planning run, each shape's verdict (fit, term,
    start days, stand-alone cost) worked out once, when a strategy first needs it: the hybrid, the
    single-mode comparators, the plan without spot and the runner-ups all select from one table
    instead of rebuilding it (which took seconds on 40 workloads × 150 offers)."""

    def __init__(self, project: Project, offers: dict[str, Offer], sizings):
        self.project, self.offers, self.sizings = project, offers, sizings
        self.grid = Grid.of(project)
        self._outcomes: dict[tuple[int, int], tuple] = {}
        self._owned: dict[tuple[str, int], float] = {}  # cost of owning one node, per (buy offer, nodes bought)
        self._covers: dict = {}  # standalone_contracts' cheapest covers, per offer, phase and span of months
        self._fronts: dict[tuple[int, str], list[Option]] = {}  # per (workload, offer): its Pareto frontier

    def _outcome(self, i: int, j: int, w, offer: Offer, c) -> tuple:
        key = (i, j)
        got = self._outcomes.get(key)
        if got is not None:
            return got
        project, grid = self.project, self.grid
        quota = holdings.tightest_quota(project, offer)
        if not c.fits:
            got = ("unfit", c.reasons or (Reason.of(Rule.OTHER, say("does not fit")),))
        elif quota is not None and c.gpus > quota.max_gpus:
            over = say("{gpus} GPUs exceed the quota of {quota}", gpus=c.gpus, quota=quota.label)
            got = ("unfit", (Reason.of(Rule.QUOTA, over),))
        elif (
            offer.contracted
            and not rental_fits_horizon(grid, offer)
            and not holdings.commitments_of(project, offer.id)  # a signed term runs past the horizon: usable
        ):
            what = (
                say("minimum rental term {months} months", months=offer.min_term)
                if offer.mode == "rent"
                else say("reserved term (commitment_months) {months} months", months=offer.commitment_months)
            )
            term = say("{what} exceeds the {horizon}-month horizon", what=what, horizon=project.horizon_months)
            got = ("term", (Reason.of(Rule.RENT_TERM, term),))
        else:
            wall_days = costs.wall_hours(offer, c.hours) / HOURS_PER_DAY
            # the deadline holds at the project's confidence: the start periods are those whose end at the
            # band's deadline_confidence quantile of the hours meets it (the cost uses the median hours)
            conf = project.deadline_confidence
            sure_days = costs.wall_hours(offer, c.hours * hours_multiplier(conf)) / HOURS_PER_DAY
            starts, earliest_finish = allowed_starts(project, grid, w, offer, sure_days)
            reached = None if starts else reached_confidence(project, grid, w, offer, wall_days)
            if reached is not None:  # meets its deadline only at a lower confidence: kept, and said so
                starts, _ = allowed_starts(project, grid, w, offer, wall_days * hours_multiplier(reached))
            closed = None if starts else window_reason(project, grid, w, offer, sure_days)
            if closed is not None:
                got = ("term", (closed,))
            elif not starts:
                wall_days = sure_days  # the reason quotes the duration the deadline is checked with
                release = max(w.earliest_start_days, holdings.release_day(project, offer))
                opens = holdings.window(project, offer)[0]
                why = (
                    say("lead time {days} days, ", days=offer.lead_time_days)
                    if offer.lead_time_days > w.earliest_start_days and offer.lead_time_days >= opens
                    else say("available from day {day}, ", day=f"{opens:g}")
                    if opens > w.earliest_start_days
                    else ""
                )
                first = earliest_finish - wall_days
                grid_note = (
                    say(
                        " (the first start on the {period}-day planning grid: day {first}; a smaller period_days starts sooner)",
                        period=grid.period_days,
                        first=f"{first:g}",
                    )
                    if first > release
                    else ""
                )
                counts = tried_counts(offer, project.sizing)
                most = (
                    say(
                        "; {nodes} is the most nodes tried on this offer (node counts 1, 2, 3, 4, 6, 8, 12, … up to {cap})",
                        nodes=c.nodes,
                        cap=node_cap(offer, project.sizing)[1],
                    )
                    if c.nodes == max(counts)
                    else ""
                )
                late = say(
                    "{nodes} node(s) take {days} days at the P{p} hours (deadline_confidence {conf}); {why}earliest "
                    "start day {release}{grid} → finishes day {end} > {due}{most}",
                    nodes=c.nodes,
                    days=f"{wall_days:.1f}",
                    p=f"{100 * conf:g}",
                    conf=f"{conf:g}",
                    why=why,
                    release=f"{release:g}",
                    grid=grid_note,
                    end=f"{earliest_finish:.1f}",
                    due=finish_by(project, w),
                    most=most,
                )
                got = (
                    "deadline",
                    (
                        Reason.of(
                            Rule.DEADLINE,
                            late,
                            finish_day=earliest_finish,
                            nodes=c.nodes,
                            wall_days=wall_days,
                        ),
                    ),
                )
            else:
                opt = Option(
                    w.name,
                    offer,
                    c.nodes,
                    c.gpus,
                    c.hours,
                    wall_days,
                    starts,
                    c,
                    confidence=reached,
                    price=functools.partial(
                        standalone_cost,
                        project,
                        grid,
                        offer,
                        c.nodes,
                        c.hours,
                        grid.day_of_period(starts[0]),
                        self._owned,
                        costs.job_data(w),
                        self._covers,
                    ),
                )
                got = ("option" if reached is None else "low_confidence", opt)
        self._outcomes[key] = got
        return got

    def select(
        self, modes: tuple[str, ...] | list[str] | None = None, allow_spot: bool | None = None
    ) -> tuple[dict[str, list[Option]], list[Rejection], dict[str, list[Option]]]:
        """The options of a strategy allowed ``modes`` (default: the project's), with spot capacity or
        without: (kept options per workload, rejections, every deadline-feasible option per workload)."""
        offers = self.offers
        modes = tuple(self.project.allowed_modes if modes is None else modes)
        allow_spot = self.project.allow_spot if allow_spot is None else allow_spot
        kept: dict[str, list[Option]] = {}
        every: dict[str, list[Option]] = {}
        rejections: list[Rejection] = []
        for i, sz in enumerate(self.sizings):
            w = sz.workload
            per_offer: dict[str, list[Option]] = {}
            unsure: dict[str, list[Option]] = {}  # shapes that meet the deadline only below deadline_confidence
            seen_reason: dict[str, tuple[Reason, ...]] = {}
            for j, c in enumerate(sz.candidates):
                offer = offers[c.offer_id]
                excluded = _excluded(offer, modes, allow_spot)
                if excluded is not None:
                    seen_reason.setdefault(offer.id, excluded)
                    continue
                kind, what = self._outcome(i, j, w, offer, c)
                if kind == "unfit":
                    if offer.id not in seen_reason or len(what) < len(seen_reason[offer.id]):
                        seen_reason[offer.id] = what  # the shape that fails the fewest rules says most
                elif kind == "term":
                    seen_reason.setdefault(offer.id, what)
                elif kind == "deadline":
                    seen_reason[offer.id + f"#{c.nodes}"] = what
                elif kind == "low_confidence":
                    unsure.setdefault(offer.id, []).append(what)
                else:
                    per_offer.setdefault(offer.id, []).append(what)
            per_offer = _settle_unsure(self.project, per_offer, unsure, seen_reason)
            options: list[Option] = []
            all_opts: list[Option] = []
            for oid, opts in per_offer.items():
                all_opts += opts
                # an offer's options are the same in every strategy that allows it: its frontier too
                front = self._fronts.get((i, oid))
                if front is None:
                    front = self._fronts[(i, oid)] = pareto(opts)
                options += front
            # offers with no deadline-feasible option: one rejection per offer, the fastest shape's reason
            offer_ids = {c.offer_id for c in sz.candidates}
            by_offer: dict[str, list[tuple[Reason, ...]]] = {}  # per offer, its shapes' deadline reasons
            for k, r in seen_reason.items():
                if "#" in k:
                    by_offer.setdefault(k.split("#", 1)[0], []).append(r)
            for oid in sorted(offer_ids - set(per_offer)):
                deadline_reasons = by_offer.get(oid)
                if not deadline_reasons and oid not in seen_reason:
                    continue
                rejections.append(Rejection(w.name, oid, _offer_reason(seen_reason.get(oid, ()), deadline_reasons)))
            options.sort(
                key=lambda o: o.key
            )  # the model's order: by identity, never by price (a price change moves no column)
            all_opts.sort(key=lambda o: o.key)
            kept[w.name] = options
            every[w.name] = all_opts
        return kept, rejections, every


def _offer_reason(seen: tuple[Reason, ...], deadline_reasons: list[tuple[Reason, ...]] | None) -> tuple[Reason, ...]:
    """Why an offer has no option for a job: the window when only it rules a shape out; the fastest shape's
    deadline, with the quota when the quota rules out the faster shapes; else what its shapes were refused for."""
    if seen and seen[0].rule is Rule.OFFER_WINDOW:
        return seen
    if seen and seen[0].rule is Rule.QUOTA and deadline_reasons:
        return _fastest(deadline_reasons) + seen
    return _fastest(deadline_reasons) if deadline_reasons else seen


def _excluded(offer: Offer, modes: tuple[str, ...], allow_spot: bool) -> tuple[Reason, ...] | None:
    """Why a strategy does not consider ``offer`` at all (its mode, or spot capacity), or None."""
    if offer.mode not in modes:
        why = say("{mode} is not allowed (allowed_modes: {modes})", mode=offer.mode, modes=", ".join(modes))
        return (Reason.of(Rule.MODE_NOT_ALLOWED, why),)
    if offer.spot and not allow_spot:
        return (Reason.of(Rule.SPOT_EXCLUDED, say("spot capacity is excluded (allow_spot: false)")),)
    return None


def _settle_unsure(project: Project, per_offer: dict, unsure: dict, seen_reason: dict) -> dict:
    """A workload's options once its shapes are judged: when no shape meets the deadline at
    deadline_confidence, the ones that meet it at a lower confidence are planned (each option carries its
    confidence and the reports say so) rather than the job dropped; otherwise those are rejected, saying
    the confidence they reach."""
    if not per_offer:
        return unsure
    for oid, opts in unsure.items():
        for o in opts:
            seen_reason[oid + f"#{o.nodes}"] = (low_confidence_reason(project, o),)
    return per_offer


def low_confidence_reason(project: Project, o: Option) -> Reason:
    """Why a shape that meets its deadline only below deadline_confidence is not planned (others meet it)."""
    conf = project.deadline_confidence
    why = say(
        "{nodes} node(s) meet the deadline with {pct} % confidence only (deadline_confidence {conf}: {days} days "
        "at the P{p} hours)",
        nodes=o.nodes,
        pct=f"{100 * (o.confidence or 0):.0f}",
        conf=f"{conf:g}",
        days=f"{o.wall_days * hours_multiplier(conf):.1f}",
        p=f"{100 * conf:g}",
    )
    return Reason.of(Rule.DEADLINE, why, finish_day=None)


def cheapest_first(opts: list[Option]) -> list[Option]:
    """Options by stand-alone cost (then duration, offer, nodes): the order people read them in."""
    return sorted(opts, key=lambda o: (o.standalone_cost, o.wall_days, o.offer_id, o.nodes))


def _fastest(reasons: list[tuple[Reason, ...]]) -> tuple[Reason, ...]:
    """The deadline rejection of the shape that would finish soonest."""

    def finish(rs: tuple[Reason, ...]) -> float:
        # to the tenth of a day the reason shows; among equals the first (fewest nodes) is kept
        day = rs[0].finish_day
        return math.inf if day is None else round(day, 1)

    return min(reasons, key=finish)


def pareto(opts: list[Option]) -> list[Option]:
    """Drop options dominated in (nodes, node-days, duration): another shape of the same offer that
    needs no more nodes, no more node-days (energy, cloud bill) and no more time is never worse."""

    def key(o: Option) -> tuple[float, float, float]:
        return (o.nodes, o.nodes * o.wall_days, o.wall_days)

    out: list[Option] = []
    for o in sorted(opts, key=key):
        k = key(o)
        if any(all(a <= b + EPS for a, b in zip(key(p), k, strict=True)) for p in out):
            continue
        out.append(o)
    return out


# Start columns of long jobs on fine grids (``thin_starts``): a job that runs at least LONG_JOB_DAYS keeps
# the starts on its offer's contract days and every STRIDE_DAYS between them.
LONG_JOB_DAYS = 30.0
STRIDE_DAYS = 7


def thin_starts(
    project: Project, options: dict[str, list[Option]], keep: dict[tuple[str, str, int], set[int]] | None = None
) -> dict[str, list[Option]]:
    """The options with fewer start periods for long jobs on a grid finer than STRIDE_DAYS: most columns of
    a daily model are a pretraining run's daily starts, and a day earlier or later moves its cost little
    while every start is a column of every capacity row it spans. An option whose job runs LONG_JOB_DAYS or
    more keeps its first and last start, the starts on its offer's contract days (lattice.contract_phases,
    where a rental's months begin), every start on a day that is a multiple of STRIDE_DAYS (the weekly
    grid's starts, so a weekly plan stays a plan of the model) and the starts in ``keep`` (per option key,
    e.g. the warm-start plan's). This restricts the model: its optimum may cost more than the full
    grid's (docs/performance.md measures it); the plans it finds are plans of the full grid."""
    P = project.period_days
    if P >= STRIDE_DAYS:
        return options
    keep = keep or {}
    out: dict[str, list[Option]] = {}
    for w, opts in options.items():
        thinned = []
        for o in opts:
            if o.wall_days < LONG_JOB_DAYS or len(o.starts) <= 2:
                thinned.append(o)
                continue
            days = {0.0}
            if o.offer.contracted:
                days = set(lattice.contract_phases(project, o.offer))
            wanted = keep.get(o.key, set())
            starts = [
                s
                for s in o.starts
                if s in (o.starts[0], o.starts[-1])
                or s in wanted
                or (s * P) % STRIDE_DAYS == 0
                or any(abs(lattice.phase_of(project.calendar, s * P) - ph) <= lattice.TOL for ph in days)
            ]
            thinned.append(dataclasses.replace(o, starts=starts) if len(starts) < len(o.starts) else o)
        out[w] = thinned
    return out
