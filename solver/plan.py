"""Result objects: what the planner decided, costed by the cost model. Reports read only these.

``build_plan`` turns decisions (each workload's shape and start day, the purchases, the rental
contracts) into a costed ``Plan``. The optimizer, the greedy baseline and the brute-force tests all go
through it, so a plan's figures always come from the one cost model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from procure.models.calendar import Calendar
from procure.models.offer import Offer
from procure.models.project import Project

from . import costs
from .costs import Flows, RentalContract
from .ledger import Ledger, PnlYear, allocate, contract_order, ledger, reporting_unit_price

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
    phase_days: float = 0.0  # days after the 1st of calendar month start_month that the contract begins
    committed: bool = False  # signed before the plan (project ``commitments``): owed whatever the plan does
    rate: float | None = None  # a commitment's rate as signed (RentalContract.rate)
    cal: Calendar | None = field(default=None, compare=False, repr=False)  # the project's (RentalContract.cal)

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
            cal=self.cal,
        )


@dataclass(frozen=True)
class Charge:
    """A cost of the plan that is no purchase, rental or job: an offer's fixed charge (``kind`` fixed,
    ``offer_id`` set), the VAT that is a cost on a rent or cloud offer's charges (``kind`` vat), or the project's
    operations staff (``kind`` staff: ``ftes`` for ``months`` months)."""

    kind: str
    offer_id: str | None
    cost: float
    ftes: int = 0
    months: int = 0
    nodes: int = 0  # staff: the peak nodes held


@dataclass
class Plan:
    """A costed plan. Its money is its ``ledger``; the totals, NPV, breakdown, cash flows and P&L are views
    of it (solver.ledger), so they cannot disagree with it or with each other."""

    assignments: list[Assignment]
    purchases: list[Purchase]
    rentals: list[Rental]
    ledger: Ledger
    decisions: list[Decision] = field(default_factory=list)
    charges: list[Charge] = field(default_factory=list)
    # what the organisation already has (owned nodes, commitments) on offers no job of this plan runs on:
    # paid whatever the plan does, so no job's cost carries it
    committed_idle: float = 0.0

    @cached_property
    def committed_flows(self) -> Flows:
        """The cash flows owed whatever the plan does: owned servers' running costs (their jobs' busy energy
        is a decision, not in here) and signed commitments; reports show them apart as "committed"."""
        return self.ledger.committed_flows()

    @cached_property
    def committed_cost(self) -> float:
        """The money of the plan that was committed before it (owned servers, commitments)."""
        return self.ledger.committed_total()

    def modes(self) -> set[str]:
        return {a.mode for a in self.assignments}

    @cached_property
    def flows(self) -> Flows:
        return self.ledger.flows()

    @cached_property
    def total_cost(self) -> float:
        return self.ledger.total()

    @cached_property
    def npv_cost(self) -> float:
        return self.ledger.present_value()

    @cached_property
    def after_tax_npv(self) -> float | None:
        """The after-tax NPV (solver.costs, "Income tax"); None without the project's tax section."""
        return self.ledger.after_tax_present_value() if self.ledger.taxed else None

    @cached_property
    def after_tax_total(self) -> float | None:
        return self.ledger.after_tax_total() if self.ledger.taxed else None

    @cached_property
    def breakdown(self) -> dict[str, float]:
        return self.ledger.by_category()

    @cached_property
    def pnl(self) -> list[PnlYear]:
        return self.ledger.pnl_years()


def build_plan(
    project: Project,
    offers: dict[str, Offer],
    decisions: list[Decision],
    purchases: dict[str, int],
    contracts: list[RentalContract],
) -> Plan:
    """Cost a set of decisions with the cost model (nothing here is optimized): price them into a ledger,
    and read every figure of the plan from it. The commitments are the project's, as signed, whatever
    ``contracts`` say of them (solver.holdings)."""
    from . import holdings

    contracts = [c.on(project.calendar) for c in contracts]
    signed = [c for c in holdings.committed_contracts(project) if c.offer_id in offers]
    contracts = [c for c in contracts if not c.committed] + signed
    deadline = {w.name: w.deadline_days for w in project.workloads}
    book = ledger(project, offers, decisions, purchases, contracts)
    alloc = allocate(book, decisions, offers, costs.staff_modes(project))
    on_offer: dict[str, float] = {}  # per offer: its jobs' own costs
    for d in decisions:
        on_offer[d.offer_id] = on_offer.get(d.offer_id, 0.0) + alloc.direct[d.workload]
    purchase_rows = []
    for oid, n in sorted(purchases.items()):
        if n <= 0:
            continue
        owned = book.of(f"buy:{oid}:") + book.of(f"own:{oid}:")
        priced = book.get(f"buy:{oid}:capex") or book[f"own:{oid}:maintenance"]  # the tier paid; owned: the quote
        purchase_rows.append(
            Purchase(
                oid,
                n,
                sum(e.amount for e in owned) + on_offer.get(oid, 0.0),
                reporting_unit_price(priced, project.fx_rate),
                committed=costs.owned_terms(offers[oid], project) is not None,
            )
        )
    rental_rows = []
    for j, c in enumerate(contract_order(contracts)):
        entries = book.of(f"rent{j}:")
        rental_rows.append(
            Rental(
                c.offer_id,
                c.nodes,
                c.start_month,
                c.months,
                sum(e.amount for e in entries),
                c.term_months,
                reporting_unit_price(book[f"rent{j}:rent"], project.fx_rate),
                c.phase_days,
                c.committed,
                c.rate,
                cal=project.calendar,
            )
        )
    assignments = []
    for d in decisions:
        o = offers[d.offer_id]
        wh = costs.wall_hours(o, d.hours)
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
                direct_cost=alloc.direct[d.workload],
                cost=alloc.cost[d.workload],
                efficiency=d.efficiency,
                per_gpu_memory_gb=d.per_gpu_memory_gb,
                mfu=d.mfu,
            )
        )
    order = {w.name: i for i, w in enumerate(project.workloads)}
    assignments.sort(key=lambda a: order[a.workload])
    return Plan(
        assignments=assignments,
        purchases=purchase_rows,
        rentals=rental_rows,
        ledger=book,
        decisions=list(decisions),
        charges=plan_charges(book),
        committed_idle=alloc.idle,
    )


def plan_charges(book: Ledger) -> list[Charge]:
    """The plan's fixed charges (one per offer used) and its operations staff, as its ledger prices them."""
    out = []
    for e in book.entries:
        if e.kind == "fixed":
            out.append(Charge("fixed", e.offer, e.amount))
        elif e.kind == "staff":
            out.append(Charge("staff", None, e.amount, int(e.quantity or 0), int(e.rate or 0), int(e.nodes or 0)))
        elif e.kind == "service_vat":
            out.append(Charge("vat", e.offer, e.amount))
    return out


def contracts_from_profile(
    offer_id: str, starts: list[int], ends: list[int], phase_days: float, cal: Calendar
) -> list[RentalContract]:
    """Match contract starts and ends first-in first-out. ``starts[m]`` nodes begin in month m,
    ``ends[m]`` nodes stop before month m (their last month is m − 1); months of the lattice that begins
    ``phase_days`` after the 1st of each calendar month of ``cal`` (costs.RentalContract)."""
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
    return [RentalContract(offer_id, n, s, length, None, phase_days, cal=cal) for (s, length), n in sorted(out.items())]
