"""Result objects: what the planner decided, costed by the cost model. Reports read only these.

``build_plan`` turns decisions (each workload's shape and start day, the purchases, the rental
contracts) into a costed ``Plan``. The optimizer, the greedy baseline and the brute-force tests all go
through it, so a plan's figures always come from the one cost model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from procure.models.offer import Offer
from procure.models.project import Project

from . import costs
from .costs import Flows, RentalContract

# Sizing types are imported lazily by type checkers only; plans keep plain fields.


@dataclass(frozen=True)
class Decision:
    """One workload placed on one shape, starting on ``start_day``."""

    workload: str
    offer_id: str
    nodes: int
    gpus: int
    hours: float  # compute hours on this shape (before spot overhead)
    start_day: float
    strategy: Any = None  # solver.sizing.Parallelism
    efficiency: float | None = None
    per_gpu_memory_gb: float | None = None
    mfu: float | None = None  # the MFU the shape was sized with, so reports need not size it again


@dataclass(frozen=True)
class Assignment:
    workload: str
    offer_id: str
    mode: str
    vendor: str
    gpu: str
    nodes: int
    gpus: int
    strategy: Any
    start_day: float
    end_day: float
    deadline_day: int
    hours: float  # wall-clock hours on the nodes (spot overhead included)
    gpu_hours: float
    direct_cost: float  # cloud bill or busy energy
    cost: float  # direct cost + this job's node-hour share of its offer's purchase or rental cost
    efficiency: float | None = None
    per_gpu_memory_gb: float | None = None
    mfu: float | None = None  # the MFU the shape was sized with (Decision.mfu)

    @property
    def slack_days(self) -> float:
        return self.deadline_day - self.end_day


@dataclass(frozen=True)
class Purchase:
    offer_id: str
    nodes: int
    cost: float  # all costs of owning the nodes over the horizon, energy of the jobs on them included
    flows: Flows = field(repr=False, default_factory=dict)
    price_per_node: float = 0.0  # the volume tier paid, reporting currency, before duty and VAT
    committed: bool = False  # owned servers (project ``owned``): held and paid for whatever the plan does


@dataclass(frozen=True)
class Rental:
    offer_id: str
    nodes: int
    start_month: int
    months: int
    cost: float
    term_months: int | None = None  # the term tier signed (None: the offer's shortest term)
    price_per_node_month: float = 0.0  # the tier's rate paid, reporting currency
    phase_days: float = 0.0  # days after the start of project month start_month that the contract begins
    committed: bool = False  # signed before the plan (project ``commitments``): owed whatever the plan does
    rate: float | None = None  # a commitment's rate as signed (RentalContract.rate)

    @property
    def start_day(self) -> float:
        """The day the contract begins: its months run from here (costs.RentalContract)."""
        return self.contract.start_day

    @property
    def end_day(self) -> float:
        return self.contract.end_day

    @property
    def contract(self) -> RentalContract:
        """The contract as the cost model prices it, at the term tier it was signed at."""
        return RentalContract(
            self.offer_id,
            self.nodes,
            self.start_month,
            self.months,
            self.term_months,
            self.phase_days,
            self.committed,
            self.rate,
        )


@dataclass(frozen=True)
class Charge:
    """A cost of the plan that is no purchase, rental or job: an offer's fixed charge (``kind`` fixed,
    ``offer_id`` set) or the project's operations staff (``kind`` staff: ``ftes`` for ``months`` months)."""

    kind: str
    offer_id: str | None
    cost: float
    flows: Flows = field(repr=False, default_factory=dict)
    ftes: int = 0
    months: int = 0
    nodes: int = 0  # staff: the peak nodes held


@dataclass
class Plan:
    assignments: list[Assignment]
    purchases: list[Purchase]
    rentals: list[Rental]
    flows: Flows
    total_cost: float
    npv_cost: float
    breakdown: dict[str, float]
    decisions: list[Decision] = field(default_factory=list)
    pnl: list[costs.PnlYear] = field(default_factory=list)
    charges: list[Charge] = field(default_factory=list)
    # what the organisation already has (owned nodes, commitments) on offers no job of this plan runs on:
    # paid whatever the plan does, so no job's cost carries it
    committed_idle: float = 0.0
    # the cash flows owed whatever the plan does: owned servers' running costs (their jobs' busy energy is
    # a decision, not in here) and signed commitments; reports show them apart as "committed"
    committed_flows: Flows = field(default_factory=dict)

    @property
    def committed_cost(self) -> float:
        """The money of the plan that was committed before it (owned servers, commitments)."""
        return costs.total(self.committed_flows)

    def modes(self) -> set[str]:
        return {a.mode for a in self.assignments}


def build_plan(
    project: Project,
    offers: dict[str, Offer],
    decisions: list[Decision],
    purchases: dict[str, int],
    contracts: list[RentalContract],
) -> Plan:
    """Cost a set of decisions with the cost model (nothing here is optimized). The commitments are the
    project's, as signed, whatever ``contracts`` say of them (solver.holdings)."""
    from . import holdings

    signed = [c for c in holdings.committed_contracts(project) if c.offer_id in offers]
    contracts = [c for c in contracts if not c.committed] + signed
    deadline = {w.name: w.deadline_days for w in project.workloads}
    parts: list[Flows] = []
    job_direct: dict[str, float] = {}
    per_offer_flows: dict[str, list[Flows]] = {}
    for d in decisions:
        o = offers[d.offer_id]
        f = costs.job_flows(o, project, d.nodes, d.hours, d.start_day, costs.data_of(project, d.workload))
        job_direct[d.workload] = costs.total(f)
        parts.append(f)
        per_offer_flows.setdefault(o.id, []).append(f)
    purchase_rows = []
    sunk_parts: list[Flows] = []  # committed before the plan (Plan.committed_flows)
    capacity_cost: dict[str, float] = {}  # per offer: what its purchase or rentals cost, shared by its jobs
    for oid, n in sorted(purchases.items()):
        if n <= 0:
            continue
        f = costs.scale(costs.purchase_flows(offers[oid], project, n), n)
        capacity_cost[oid] = costs.total(f)
        parts.append(f)
        owned = costs.add_flows([f, *per_offer_flows.get(oid, [])])
        sunk = costs.owned_terms(offers[oid], project) is not None
        if sunk:
            sunk_parts.append(f)
        purchase_rows.append(
            Purchase(oid, n, costs.total(owned), owned, costs.unit_price(offers[oid], project, n), committed=sunk)
        )
    rental_rows = []
    for c in sorted(contracts, key=lambda c: (c.offer_id, c.start_day, c.months, c.term_months or 0)):
        o = offers[c.offer_id]
        f = costs.rental_flows(o, c, project)
        parts.append(f)
        if c.committed:
            sunk_parts.append(f)
        term = costs.term_of(o, c)
        rental_rows.append(
            Rental(
                c.offer_id,
                c.nodes,
                c.start_month,
                c.months,
                costs.total(f),
                c.term_months,
                costs.rental_month_cost(o, project, term),
                c.phase_days,
                c.committed,
                c.rate,
            )
        )
    charges = plan_charges(project, offers, decisions, purchases, contracts)
    parts += [c.flows for c in charges]
    flows = costs.add_flows(parts)

    # allocate each offer's capacity cost (purchase or rentals, its fixed charge) to its jobs by node-hours,
    # and the staff to the jobs on the staff's modes by node-hours
    for r in rental_rows:
        capacity_cost[r.offer_id] = capacity_cost.get(r.offer_id, 0.0) + r.cost
    for ch in charges:
        if ch.offer_id is not None:
            capacity_cost[ch.offer_id] = capacity_cost.get(ch.offer_id, 0.0) + ch.cost
    staff = sum(ch.cost for ch in charges if ch.kind == "staff")
    node_hours: dict[str, float] = {}
    for d in decisions:
        node_hours[d.offer_id] = node_hours.get(d.offer_id, 0.0) + d.nodes * costs.wall_hours(
            offers[d.offer_id], d.hours
        )
    staffed = sum(h for oid, h in node_hours.items() if offers[oid].mode in costs.staff_modes(project))
    assignments = []
    for d in decisions:
        o = offers[d.offer_id]
        wh = costs.wall_hours(o, d.hours)
        share = capacity_cost.get(o.id, 0.0) * (d.nodes * wh / node_hours[o.id]) if node_hours.get(o.id) else 0.0
        if staff and staffed and o.mode in costs.staff_modes(project):
            share += staff * d.nodes * wh / staffed
        assignments.append(
            Assignment(
                workload=d.workload,
                offer_id=o.id,
                mode=o.mode,
                vendor=o.vendor,
                gpu=o.gpu,
                nodes=d.nodes,
                gpus=d.gpus,
                strategy=d.strategy,
                start_day=d.start_day,
                end_day=costs.job_end_day(o, d.start_day, d.hours),
                deadline_day=deadline[d.workload],
                hours=wh,
                gpu_hours=d.gpus * wh,
                direct_cost=job_direct[d.workload],
                cost=job_direct[d.workload] + share,
                efficiency=d.efficiency,
                per_gpu_memory_gb=d.per_gpu_memory_gb,
                mfu=d.mfu,
            )
        )
    order = {w.name: i for i, w in enumerate(project.workloads)}
    assignments.sort(key=lambda a: order[a.workload])
    idle = sum(capacity_cost.get(oid, 0.0) for oid in capacity_cost if not node_hours.get(oid))
    return Plan(
        assignments=assignments,
        purchases=purchase_rows,
        rentals=rental_rows,
        flows=flows,
        total_cost=costs.total(flows),
        npv_cost=costs.present_value(flows, project),
        breakdown=costs.by_category(flows),
        decisions=list(decisions),
        pnl=costs.pnl_years(project, offers, {p.offer_id: p.nodes for p in purchase_rows}, flows),
        charges=charges,
        committed_idle=idle,
        committed_flows=costs.add_flows(sunk_parts) if sunk_parts else {},
    )


def plan_charges(
    project: Project,
    offers: dict[str, Offer],
    decisions: list[Decision],
    purchases: dict[str, int],
    contracts: list[RentalContract],
) -> list[Charge]:
    """The fixed charge of every offer the plan uses (a job runs on it, or it is bought or contracted)
    and the project's staff (costs.fixed_charge_flows, costs.staff_flows)."""
    used = (
        {d.offer_id for d in decisions}
        | {oid for oid, n in purchases.items() if n > 0}
        | {c.offer_id for c in contracts if not c.committed}  # a commitment's fixed charge was paid when signed
    )
    out = []
    for oid in sorted(used):
        f = costs.fixed_charge_flows(offers[oid], project)
        if f:
            out.append(Charge("fixed", oid, costs.total(f), f))
    bought = {oid: n for oid, n in purchases.items() if n > 0}
    f = costs.staff_flows(project, offers, bought, contracts)
    if f:
        held = costs.held_by_month(project, offers, bought, contracts)
        out.append(
            Charge(
                "staff",
                None,
                costs.total(f),
                f,
                costs.staff_ftes(project, max(held)),
                len(costs.held_span(held)),
                max(held),
            )
        )
    return out


def contracts_from_profile(
    offer_id: str, starts: list[int], ends: list[int], phase_days: float = 0.0
) -> list[RentalContract]:
    """Match contract starts and ends first-in first-out. ``starts[m]`` nodes begin in month m,
    ``ends[m]`` nodes stop before month m (their last month is m − 1); months of the lattice that begins
    ``phase_days`` into the project (costs.RentalContract)."""
    queue: list[list[int]] = []  # [start_month, nodes]
    out: dict[tuple[int, int], int] = {}
    for m in range(max(len(starts), len(ends))):
        n_end = ends[m] if m < len(ends) else 0
        while n_end > 0:
            head = queue[0]
            take = min(n_end, head[1])
            out[(head[0], m - head[0])] = out.get((head[0], m - head[0]), 0) + take
            head[1] -= take
            n_end -= take
            if head[1] == 0:
                queue.pop(0)
        if m < len(starts) and starts[m] > 0:
            queue.append([m, starts[m]])
    if queue:
        raise ValueError("rental contracts left open at the horizon end")
    return [RentalContract(offer_id, n, s, length, None, phase_days) for (s, length), n in sorted(out.items())]
