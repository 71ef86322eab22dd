"""The analyst's baseline: what a careful person builds in a spreadsheet, without an optimizer.

Workloads in order of deadline; each takes the shape with the lowest stand-alone cost (its own
purchase, its own rental contract, or its cloud bill) that meets its deadline from the earliest start
that still respects every offer's max_nodes and every quota. Nothing is shared: servers bought for one job are not
reused by the next. What the organisation already has (solver.holdings) is used first: a job runs on owned
nodes or on a commitment's nodes wherever they are free, and they are in the plan whatever it does. The plan
is costed by the cost model and verified like any other; the benchmark prints it next to the optimum, and the
MILP can start from it (a warm start).
"""

from __future__ import annotations

from collections import defaultdict

from procure.models.offer import Offer
from procure.models.project import Project

from . import costs, holdings, lattice
from .options import Grid, Option, standalone_contracts
from .plan import Decision, Plan, build_plan

Interval = tuple[float, float, int]  # (from day, to day, nodes or GPUs)


def _fits(held: list[Interval], used: list[Interval], new: Interval) -> bool:
    """``new`` fits beside ``used`` inside the capacity ``held`` at every moment of it."""
    lo, hi, n = new
    points = sorted({lo, *(b for b, _e, _n in held + used if lo < b < hi)})
    for t in points:
        probe = t + lattice.TOL
        cap = sum(k for b, e, k in held if b <= probe < e)
        if sum(k for b, e, k in used if b <= probe < e) + n > cap:
            return False
    return True


class _State:
    """What the greedy plan holds so far: per offer, per quota."""

    def __init__(self, project: Project, offers: dict[str, Offer], grid: Grid):
        self.project, self.offers, self.grid = project, offers, grid
        self.usage: dict[tuple[str, int], int] = defaultdict(int)  # cloud: nodes in use per period
        self.rented: dict[str, list[Interval]] = defaultdict(list)  # new contracts: (from day, to day, nodes)
        self.bought: dict[str, int] = defaultdict(int)
        self.signed: dict[str, list[Interval]] = defaultdict(list)  # commitments and owned nodes: capacity
        self.on_signed: dict[str, list[Interval]] = defaultdict(list)  # jobs on that capacity
        self.quota: dict[int, list[Interval]] = defaultdict(list)  # GPUs in use per quota
        self.covers: dict = {}  # standalone_contracts' cheapest covers, worked out once per offer, phase and span
        for c in holdings.committed_contracts(project):
            if c.offer_id in offers:
                self.signed[c.offer_id].append((c.start_day, c.end_day, c.nodes))
                self._hold(offers[c.offer_id], c.start_day, c.end_day, c.nodes)
        for oid, e in zip(holdings.owned_ids(project), project.owned, strict=True):
            span = holdings.owned_window(project, oid)
            if oid in offers and span is not None:
                self.signed[oid].append((span[0], span[1], e.nodes))
                self._hold(offers[oid], span[0], span[1], e.nodes)

    def _hold(self, o: Offer, lo: float, hi: float, nodes: int) -> None:
        for qi, q in enumerate(self.project.quotas):
            if holdings.matches(q, o):
                self.quota[qi].append((lo, hi, nodes * o.gpus_per_node))

    def _quota_ok(self, o: Offer, spans: list[Interval]) -> bool:
        for qi, q in enumerate(self.project.quotas):
            if holdings.matches(q, o):
                cap = [(0.0, float("inf"), q.max_gpus)]
                extra = [(lo, hi, n * o.gpus_per_node) for lo, hi, n in spans]
                if not all(_fits(cap, self.quota[qi] + extra[:k], extra[k]) for k in range(len(extra))):
                    return False
        return True

    def place(self, opt: Option, s: int) -> tuple[str, list] | None:
        """How ``opt`` started in period s would be held (kind, what it adds), or None when it cannot be."""
        o, grid, day = opt.offer, self.grid, self.grid.day_of_period(s)
        job = (day, costs.job_end_day(o, day, opt.hours), opt.nodes)
        if o.id in self.signed and _fits(self.signed[o.id], self.on_signed[o.id], job):
            return "signed", [job]
        if holdings.owned_window(self.project, o.id) is not None:
            return None  # owned offers hold only what is owned
        if o.mode == "buy":
            n = costs.nodes_bought(o, opt.nodes)
            end = costs.horizon_end_day(self.project)
            if self.bought[o.id] + n <= o.max_nodes and self._quota_ok(o, [(float(o.lead_time_days), end, n)]):
                return "buy", [n]
            return None
        if o.contracted:
            cs = standalone_contracts(self.project, grid, o, opt.nodes, opt.hours, day, self.covers)
            spans = [(c.start_day, c.end_day, c.nodes) for c in cs]
            ok = bool(cs) and all(
                lattice.peak_overlap(self.rented[o.id], c.start_day, c.end_day) + opt.nodes <= o.max_nodes for c in cs
            )
            return ("rent", cs) if ok and self._quota_ok(o, spans) else None
        periods = grid.busy_periods(s, opt.wall_days)
        if all(self.usage[(o.id, t)] + opt.nodes <= o.max_nodes for t in periods) and self._quota_ok(o, [job]):
            return "cloud", [job]
        return None

    def take(self, opt: Option, s: int, kind: str, what: list) -> None:
        o = opt.offer
        if kind == "signed":
            self.on_signed[o.id] += what
        elif kind == "buy":
            self.bought[o.id] += what[0]
            self._hold(o, float(o.lead_time_days), costs.horizon_end_day(self.project), what[0])
        elif kind == "rent":
            for c in what:
                self.rented[o.id].append((c.start_day, c.end_day, c.nodes))
                self._hold(o, c.start_day, c.end_day, c.nodes)
        else:
            for t in self.grid.busy_periods(s, opt.wall_days):
                self.usage[(o.id, t)] += opt.nodes
            self._hold(o, *what[0])


def greedy_choices(
    project: Project, offers: dict[str, Offer], options: dict[str, list[Option]]
) -> list[tuple[Option, int, str, list]] | None:
    """(option, start period, how it is held, what it adds) per workload, or None when the greedy rule strands
    a workload."""
    state = _State(project, offers, Grid.of(project))
    chosen: list[tuple[Option, int, str, list]] = []
    for w in sorted(project.workloads, key=lambda w: (project.deadline_days_for(w), w.name)):
        pick = None
        ranked = sorted(options.get(w.name, []), key=lambda o: (o.standalone_cost, o.wall_days))
        # what is already held first (its money is owed anyway), then the cheapest stand-alone option
        for signed_only in (True, False):
            for opt in ranked:
                for s in opt.starts:
                    got = state.place(opt, s)
                    if got is not None and (got[0] == "signed" or not signed_only):
                        pick = (opt, s, *got)
                        break
                if pick:
                    break
            if pick:
                break
        if pick is None:
            return None
        state.take(*pick)
        chosen.append(pick)
    return chosen


def greedy_plan(project: Project, offers: dict[str, Offer], options: dict[str, list[Option]]) -> Plan | None:
    choices = greedy_choices(project, offers, options)
    if choices is None:
        return None
    grid = Grid.of(project)
    decisions: list[Decision] = []
    purchases: defaultdict[str, int] = defaultdict(int)
    contracts: list = [c for c in holdings.committed_contracts(project) if c.offer_id in offers]
    for oid, e in zip(holdings.owned_ids(project), project.owned, strict=True):
        if oid in offers:
            purchases[oid] = e.nodes
    for opt, s, kind, what in choices:
        c = opt.candidate
        decisions.append(
            Decision(
                opt.workload,
                opt.offer_id,
                opt.nodes,
                opt.gpus,
                opt.hours,
                grid.day_of_period(s),
                c.strategy if c else None,
                c.efficiency if c else None,
                c.per_gpu_memory_gb if c else None,
                c.mfu if c else None,
            )
        )
        if kind == "buy":
            purchases[opt.offer_id] += what[0]
        elif kind == "rent":
            contracts += what
    return build_plan(project, offers, decisions, dict(purchases), contracts)
