"""The model's variables and the builder's state: what every constraint family reads and writes with
(the problem, the options, the offers, the grid, the contract phases, the cost terms), and the helpers they share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pulp

from procure.models.offer import Offer
from procure.models.project import Project
from procure.solver.enums import Objective

from .. import costs, holdings, lattice
from ..costs import RentalContract
from ..options import Grid, Option
from .coefficients import CostTable
from .names import Names, slug
from .reduce import Reduction

REDUCE_BELOW_DAYS = 7


# The slack tie-break adds at most this much (project currency) to the objective, over all jobs together:
# among plans of equal cost the one whose jobs end earliest wins, and no plan costing more than the
# optimum by this (a cent) can be preferred to it (add_objective).
TIE_BREAK_TOTAL = 0.01


@dataclass
class Model:
    prob: pulp.LpProblem
    x: dict[tuple[str, int, int], pulp.LpVariable] = field(default_factory=dict)
    y: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    y_start: dict[tuple[str, int], int] = field(default_factory=dict)  # the start period a y option runs at
    b: dict[str, pulp.LpVariable] = field(default_factory=dict)
    # (offer, tier months, phase index, lattice month): contracts begin on the offer's phases (lattice.py)
    S: dict[tuple[str, int, int, int], pulp.LpVariable] = field(default_factory=dict)
    E: dict[tuple[str, int, int, int], pulp.LpVariable] = field(default_factory=dict)
    # (offer, term months, phase index, start lattice month)
    T: dict[tuple[str, int, int, int], pulp.LpVariable] = field(default_factory=dict)
    # the T columns of open-ended tiers whose rate moves with the start month (price paths): key -> the term
    # months the contract is signed at (RentalContract.term_months); T's second key is then its length
    T_signed: dict[tuple[str, int, int, int], int | None] = field(default_factory=dict)
    q: dict[tuple[str, int], pulp.LpVariable] = field(
        default_factory=dict
    )  # (offer, volume tier) nodes bought at that tier
    z: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)  # (offer, volume tier) the tier reached
    u: dict[str, pulp.LpVariable] = field(default_factory=dict)  # offer -> used (fixed charge)
    staff_F: pulp.LpVariable | None = None
    staff_G: dict[int, pulp.LpVariable] = field(default_factory=dict)  # month -> FTEs paid
    staff_s: dict[int, pulp.LpVariable] = field(default_factory=dict)
    staff_e: dict[int, pulp.LpVariable] = field(default_factory=dict)
    options: dict[str, list[Option]] = field(default_factory=dict)
    phases: dict[str, tuple[float, ...]] = field(default_factory=dict)  # contracted offer -> its phases (days)
    # (offer, period, month or -1) -> [(x, nodes, workload index)]: jobs busy in that period (for rent
    # offers: in the part of the period that lies in that month)
    # (for rent offers the third part is the piece's lattice months, one per phase: lattice.pieces)
    usage: dict[tuple[str, int, Any], list[tuple[pulp.LpVariable, int, int]]] = field(default_factory=dict)
    total_cost: pulp.LpAffineExpression | None = None
    # every priced column's cash flows per unit (coefficients.py): the objective, the budget rows and the
    # agreement check read it
    table: CostTable | None = None
    # the slack tie-break (add_objective): a column's share, and the most all of them can add together
    tie: dict[pulp.LpVariable, float] = field(default_factory=dict)
    tie_max: float = 0.0
    # the committed money (project commitments, solver.holdings) on the minimized objective: no column
    # carries it, the solver's objective and bound are read back with it (backends._info)
    offset: float = 0.0
    columns: list[pulp.LpVariable] = field(
        default_factory=list
    )  # every variable, in the order made (the in-process solver's columns)


class BuilderState:
    """The builder's state and shared helpers (Builder's first layer)."""

    def __init__(
        self,
        project: Project,
        options: dict[str, list[Option]],
        offers: dict[str, Offer],
        objective: Objective = Objective.TCO,
        warm_start=None,
        reduce: bool | None = None,
        phases_of: Project | None = None,
        contracts_integer: bool = True,
    ):
        # S/E/T integer (the landed formulation); False: continuous, with only the choices integer, for a
        # solve that passes gate.integral_contracts before its plan is read
        self.contracts_integer = contracts_integer
        # exact start/row reduction (reduce.py); by default on grids finer than REDUCE_BELOW_DAYS, where
        # most starts are interchangeable (on the weekly XL benchmark it removes 1.5% of the columns
        # and costs more build time than it saves)
        self.reduce = project.period_days < REDUCE_BELOW_DAYS if reduce is None else reduce
        if project.quotas:  # reduce.py merges starts by the offer rows alone; a quota row joins offers
            self.reduce = False
        self.reduction: Reduction | None = None
        self.warm_start = warm_start  # a feasible Plan (e.g. the greedy one) to start the search from
        self.project = project
        self.options = options
        self.offers = offers
        self.objective = costs.Objective(objective)
        self.grid = Grid.of(project)
        self.m = Model(pulp.LpProblem(slug(project.name) or "procure", pulp.LpMinimize), options=options)
        self.names = Names(offers, options)
        self.widx = {w: k for k, w in enumerate(options)}
        self.oidx = {o: k for k, o in enumerate(sorted(offers))}
        self.data = {w.name: costs.job_data(w) for w in project.workloads}  # each job's TB (storage, egress)
        # the days into a project month on which each contracted offer's contracts may begin (lattice.py)
        # (``phases_of``: the project whose contract days to use, e.g. the fine grid's for its weekly first stage)
        days = phases_of or project
        self.phases = {oid: lattice.contract_phases(days, o) for oid, o in offers.items() if o.contracted}
        self.m.phases = self.phases
        # what the organisation already has (solver.holdings): signed contracts per offer, owned nodes
        self.committed: dict[str, list[RentalContract]] = {}
        for c in holdings.committed_contracts(project):
            if c.offer_id in offers:
                self.committed.setdefault(c.offer_id, []).append(c)
        self.owned = {
            oid: e.nodes for oid, e in zip(holdings.owned_ids(project), project.owned, strict=True) if oid in offers
        }
        self._piece_cache: dict[tuple[str, int], list[tuple[float, tuple[int, ...]]]] = {}
        self._footprint: dict[tuple[str, int, int], tuple[list, tuple, int]] = {}  # (w, i, s) -> its capacity keys
        self.table = self.m.table = CostTable(project, self.objective)  # where money enters the model

    # --- helpers -------------------------------------------------------------------------------
    def _var(self, name: str, low=None, up=None, cat=pulp.LpContinuous) -> pulp.LpVariable:
        """A variable of this problem (PuLP ≥ 3.3 creates it through the model, without the per-variable
        deprecation warning that costs ~2 µs each on 200,000 variables)."""
        make = getattr(self.m.prob, "add_variable", None)
        var = make(name, low, up, cat=cat) if make else pulp.LpVariable(name, low, up, cat=cat)
        self.m.columns.append(var)
        return var

    @property
    def _priced_by_start(self) -> bool:
        """Whether a job's undiscounted cost depends on its start: on price or FX paths (costs.has_paths), with a
        carbon price that moves by year (costs.carbon_varies), or with storage priced per calendar month (a month
        held in part is paid by its days, and months have 28 to 31). Each start column is then priced on its own,
        and only starts of equal cost merge (reduce.py)."""
        if not hasattr(self, "_priced_by_start_cache"):
            self._priced_by_start_cache = (
                costs.has_paths(self.project)
                or costs.carbon_varies(self.project)
                or any(o.storage for o in self.offers.values())
            )
        return self._priced_by_start_cache

    def _contract_cat(self) -> str:
        """The category of the contract columns S, E and T (``contracts_integer``)."""
        return pulp.LpInteger if self.contracts_integer else pulp.LpContinuous

    def set_contracts_integer(self, integer: bool) -> None:
        """Make the built model's S/E/T integer (the landed formulation) or continuous (gate.py)."""
        self.contracts_integer = integer
        for group in (self.m.S, self.m.E, self.m.T):
            for v in group.values():
                v.cat = self._contract_cat()

    def _tie(self, var: pulp.LpVariable, end_day: float) -> None:
        """The column's share of the slack tie-break: TIE_BREAK_TOTAL / |W| × its end day / the horizon's last day."""
        share = TIE_BREAK_TOTAL / max(1, len(self.options))
        self.m.tie[var] = share * max(0.0, end_day) / max(1.0, costs.horizon_end_day(self.project))
        self.m.tie_max = TIE_BREAK_TOTAL

    def _value(self, flows) -> float:
        return self.objective.measure(flows, self.project)

    def _cost(self, var: pulp.LpVariable, flows) -> None:
        """``var`` costs ``flows`` per unit: its row of the coefficient table."""
        self.table.add(var, flows)

    def _job(self, opt: Option, start_day: float):
        """The job's own cash flows (costs.job_flows), with its storage and egress."""
        flows = costs.job_flows(opt.offer, self.project, opt.nodes, opt.hours, start_day, self.data.get(opt.workload))
        return costs.with_service_vat(opt.offer, self.project, flows)

    def _uncapped_cloud(self) -> set[str]:
        demand: dict[str, int] = {}
        for opts in self.options.values():
            most: dict[str, int] = {}
            for o in opts:
                if o.mode == "cloud" and not o.offer.committed:
                    most[o.offer_id] = max(most.get(o.offer_id, 0), o.nodes)
            for oid, n in most.items():
                demand[oid] = demand.get(oid, 0) + n
        # an offer under a quota needs its start columns: the quota rows count its jobs per period
        return {
            oid
            for oid, n in demand.items()
            if n <= self.offers[oid].max_nodes and not holdings.quotas_of(self.project, self.offers[oid])
        }

    def _usage_keys(self, opt: Option, s: int, span: int):
        """Where a job started in period s occupies its offer. Starts lie on period boundaries, so all
        jobs busy in a period overlap at its start and per-period sums are exact concurrency. A contracted
        offer's period splits where a contract month of one of its phases ends (lattice.pieces): the key
        names the lattice month of every phase there, and the job counts in a piece only if it still runs
        when the piece begins (up to its actual end, not the end of its last period)."""
        if not opt.offer.contracted:
            return [(opt.offer_id, t, -1) for t in range(s, s + span)]
        end = self.grid.day_of_period(s) + opt.wall_days
        oid = opt.offer_id
        return [
            (oid, t, months)
            for t in range(s, s + span)
            for lo, months in self._pieces(oid, t)
            if lo < end - lattice.TOL
        ]

    def _pieces(self, oid: str, t: int) -> list[tuple[float, tuple[int, ...]]]:
        """(start day, lattice months) of each piece of period t of a contracted offer, worked out once."""
        got = self._piece_cache.get((oid, t))
        if got is None:
            P = self.grid.period_days
            got = [
                (lo, months)
                for lo, _hi, months in lattice.pieces(self.project.calendar, self.phases[oid], t * P, (t + 1) * P)
            ]
            self._piece_cache[(oid, t)] = got
        return got

    def rented_on(self, oid: str, ph: int, mm: int) -> dict:
        """R[o,φ,m] as {variable: coefficient}: node-contracts of phase φ of the offer held in its lattice
        month m (open-ended tiers plus fixed-length terms)."""
        m = self.m
        terms: dict = {}
        for L in self._tiers_of(oid):
            terms[m.S[(oid, L, ph, mm)]] = 1
            terms[m.E[(oid, L, ph, mm)]] = -1
        for (_o, L, p, start), var in self._terms_of(oid):
            if p == ph and start <= mm < start + L:
                terms[var] = 1
        return terms

    def rented(self, oid: str, months: tuple[int, ...], signed: bool = True) -> pulp.LpAffineExpression:
        """Σ_φ R[o,φ,m_φ]: the node-contracts of the offer held in a piece of time that lies in lattice
        month m_φ of each phase φ (lattice.pieces; −1: before the phase's first month), with the nodes of
        its commitments as a constant unless ``signed`` is false (the new contracts alone)."""
        M = self.grid.n_months
        terms: dict = {}
        held = 0
        for ph, mm in enumerate(months):
            if 0 <= mm < M:
                terms.update(self.rented_on(oid, ph, mm))
                held += self.committed_on(oid, ph, mm) if signed else 0
        return pulp.LpAffineExpression(terms, constant=held)

    def rented_in_month(self, oid: str, mm: int) -> pulp.LpAffineExpression:
        """Node-contracts of the offer paid in project month mm: lattice month mm of every phase (its
        commitments included, as a constant)."""
        terms: dict = {}
        held = 0
        for ph in range(len(self.phases[oid])):
            terms.update(self.rented_on(oid, ph, mm))
            held += self.committed_on(oid, ph, mm)
        return pulp.LpAffineExpression(terms, constant=held)

    def _tiers_of(self, oid: str) -> list[int]:
        """The months of the offer's open-ended tiers that have S/E variables, shortest first."""
        if not hasattr(self, "_tiers"):
            self._tiers: dict[str, list[int]] = {}
            for o, L, ph, mm in self.m.S:
                if mm == 0 and ph == 0:
                    self._tiers.setdefault(o, []).append(L)
        return self._tiers.get(oid, [])

    def _terms_of(self, oid: str):
        if not hasattr(self, "_t_by_offer"):
            self._t_by_offer: dict[str, list] = {}
            for key, var in self.m.T.items():
                self._t_by_offer.setdefault(key[0], []).append((key, var))
        return self._t_by_offer.get(oid, [])

    def committed_on(self, oid: str, ph: int, mm: int) -> int:
        """Nodes of the offer's commitments (signed before the plan) held in lattice month mm of phase φ."""
        phase = self.phases[oid][ph]
        return sum(
            c.nodes
            for c in self.committed.get(oid, ())
            if abs(c.phase_days - phase) <= lattice.TOL and c.start_month <= mm < c.start_month + c.months
        )

    def _from_day(self, oid: str) -> float:
        """The first day a new contract of the offer may begin (holdings.contract_from_day)."""
        return holdings.contract_from_day(self.project, self.offers[oid])

    def committed_flows(self) -> costs.Flows:
        """The cash flows of the commitments (signed contracts): constants of the model, owed in every plan."""
        if not hasattr(self, "_committed_flows"):
            self._committed_flows = costs.add_flows(
                costs.with_service_vat(
                    self.offers[c.offer_id], self.project, costs.rental_flows(self.offers[c.offer_id], c, self.project)
                )
                for cs in self.committed.values()
                for c in cs
            )
        return self._committed_flows


def _tiered(offer: Offer) -> bool:
    """A buy offer whose unit price depends on the quantity (volume tiers or a minimum order)."""
    tiers = offer.buy_tiers
    return len(tiers) > 1 or tiers[0][0] > 1


def _max_possible(terms: list[tuple[pulp.LpVariable, int, int]]) -> int:
    """Upper bound on usage: one option per workload can be active, so sum the largest per workload."""
    per_w: dict[int, int] = {}
    for _v, n, w in terms:
        if n > per_w.get(w, 0):
            per_w[w] = n
    return sum(per_w.values())


def _months(months) -> tuple[int, ...]:
    """A capacity key's month part as a tuple (−1 for offers without contracts), for sorting."""
    return months if isinstance(months, tuple) else (months,)


def _months_name(months: tuple[int, ...]) -> str:
    """A piece class in a row name: the lattice month of each phase, joined by ``.`` (``n`` before a phase's first)."""
    return ".".join("n" if mm < 0 else str(mm) for mm in months)
