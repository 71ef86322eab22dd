r"""The mixed-integer program: place every workload on one shape and one start, at least total cost.

Glossary
    w ∈ W          workloads                      i ∈ I_w       options of w, identified by (offer o(i), nodes n_i):
                                                  column x[w,i,s] is named x_<w>_<o(i)>_<n_i>_<s>, the same under any price
    s ∈ S_i        allowed start periods of i     B_i(s)        periods option i occupies if it starts in s
    t ∈ T          periods of ``period_days``     m ∈ 0..M−1    project months (M = horizon_months)
    O_buy, O_rent, O_cloud                        offers by mode; ``cap_o`` = max_nodes of offer o
    k ∈ K_o        term tiers of a rent offer: minimum length L_{o,k} months at p_{o,k} per node-month;
                   f_o setup fee per node (a flat price is one tier of min_term_months)

Variables
    x[w,i,s] ∈ {0,1}     w runs option i starting in period s
    y[w,i]   ∈ {0,1}     w runs option i of a cloud offer whose cap can never bind (no start index:
                         the job starts as early as allowed; with ``npv`` as late as allowed)
    b[o]     ∈ ℤ, 0..cap_o            nodes bought of o ∈ O_buy (ordered day 0, owned to the horizon end)
    S[o,k,φ,m] ∈ ℤ≥0, m = 0..M−1      rental node-contracts of o ∈ O_rent at tier k started in months ≤ m (cumulative)
                                      of the month lattice of phase φ (lattice.py: contracts run whole months from
                                      their own start, on days φ + m·μ at or after delivery; S = 0 before it)
    E[o,k,φ,m] ∈ ℤ≥0, m = 0..M        those ended before month m (cumulative)
    rented in lattice month m of φ:  R[o,φ,m] = Σ_k (S[o,k,φ,m] − E[o,k,φ,m])  (+ reserved cloud terms, below).
    Month m of every phase is paid in project month m (φ < μ), so the cost rows below are the same on every
    phase; the rows written per (o,k,m) hold per phase φ too, and R[o,m] in a capacity row means
    Σ_φ R[o,φ,m_φ] over the lattice months m_φ of the piece of time the row covers.

Objective (``tco``; with ``npv`` every coefficient is the present value of its cash flows, see costs.py)
    min  Σ_o b[o]·C^own_o + Σ_{o,k,m} (S[o,k,m] − E[o,k,m])·p_{o,k} + Σ_{o,k} f_o·S[o,k,M−1] + Σ x[w,i,s]·c_{i,s} + Σ y[w,i]·c_i
    C^own_o: capex − residual + maintenance + colocation + idle energy of one node (costs.purchase_flows)
    c_{i,s}: busy energy of the job on bought nodes, or its cloud bill (costs.job_flows)
    rentals: coefficients on S and E per tier and month (costs.rental_profile_coefficients)

Constraints (one function each; rows named ``<family>[<keys>]`` with slugged ids, see names.py)
    assign[w]:         Σ_i Σ_s x[w,i,s] + Σ_i y[w,i] = 1
    buy_cap[o,t]:      Σ_{(w,i,s): o(i)=o, t∈B_i(s)} n_i·x[w,i,s] ≤ b[o]
    rent_cap[o,t,μ]:   Σ_{(w,i,s): o(i)=o, i runs in piece μ of period t} n_i·x[w,i,s] ≤ Σ_φ R[o,φ,μ_φ]
                       (period t split where a month of any phase ends: μ names each phase's lattice month)
    cloud_cap[o,t]:    Σ_{(w,i,s): o(i)=o, t∈B_i(s)} n_i·x[w,i,s] ≤ cap_o
    rent_order_S[o,k,m], rent_order_E[o,k,m]:  S[o,k,m−1] ≤ S[o,k,m],  E[o,k,m−1] ≤ E[o,k,m],  E[o,k,0] = 0
    rent_term[o,k,m]:  E[o,k,m] ≤ S[o,k,m−L_{o,k}] (m ≥ L_{o,k}), E[o,k,m] = 0 (m < L_{o,k}) — matching
                       contract ends to starts first-in first-out, the n-th contract of tier k to end
                       began ≥ L_{o,k} months earlier: every contract lasts at least its tier's minimum
                       and pays the tier's rate for every month it is held (a tier is a minimum length)
    rent_close[o,k]:   E[o,k,M] = S[o,k,M−1]   (contracts end within the horizon)
    rent_avail[o,m]:   R[o,m] ≤ cap_o
    buy_sym[o]:        b[o] ≤ b[o′] where o′ precedes o among identical buy offers (symmetry)
    quota[q,t,c]:      GPUs in use under quota q in piece c of period t ≤ max_gpus (quotas.py, solver.holdings)
    budget:            total cost (undiscounted TCO) ≤ budget_tco (``budget`` is its deprecated alias)
    budget_cash_m:     cash spent by the end of month m ≤ budget_cash (peak cumulative cash out)
    budget_capex:      Σ_o b[o]·price_o ≤ budget_capex  (volume tiers: Σ_k q[o,k]·price_{o,k}; a loan's principal counts in full)

What the organisation already has (solver.holdings)
    owned servers:     an offer of their own whose b[o] is fixed at the nodes owned, priced without capex
    commitments:       constant nodes of R[o,φ,m] on their own phase (rent_avail bounds the new contracts only);
                       their payments are constants: the objective's offset (Model.offset, read back with the
                       solver's figures), subtracted from the budget_tco and budget_cash caps
    quotas:            quota rows (above); an offer under a quota gets start columns (no y), and the start
                       reduction is off (it merges starts by the offer rows alone)

Fixed charges and staff (costs.py, "Costs beyond the servers")
    u[o] ∈ {0,1}        offer o with a fixed_cost is used; cost fixed_cost_o (costs.fixed_charge_flows)
    fixed_use[o,w]:     Σ_{i∈I_w: o(i)=o} (Σ_s x[w,i,s] + y[w,i]) ≤ u[o]   — any job on o pays the charge once
    fixed_buy[o]:       b[o] ≤ cap_o·u[o];  rent_avail[o,m] becomes R[o,m] ≤ cap_o·u[o]
  with project ``staff`` (ν nodes per FTE, modes Σ;
  N[m] = Σ_{o∈O_buy∩Σ, d_o ≤ m} b[o] + Σ_{o∈O_rent∩Σ} R[o,m]):
    F ∈ ℤ, 0..F̄        FTEs, F̄ = ⌈N̄/ν⌉ (N̄: the most nodes the staffed offers can hold)
    s[m], e[m] ∈ {0,1}  some node held in a month ≤ m / ≥ m;  G[m] ≥ 0 FTEs paid in month m
    staff_fte[m]:       ν·F ≥ N[m]                         (F = ⌈peak / ν⌉ at the optimum)
    staff_s[m]:         N̄·s[m] ≥ N[m], s[m] ≥ s[m−1];      staff_e[m]: N̄·e[m] ≥ N[m], e[m] ≥ e[m+1]
    staff_pay[m]:       G[m] ≥ F − F̄·(2 − s[m] − e[m])    (months from the first to the last held pay F)
    cost Σ_m G[m]·cost_per_fte_year/12 (discounted with ``npv``). With modes [buy] nodes are held to the
    horizon end, so e[m] = 1 and is left out.

Valid inequalities (implied by the rows above for integer x, they cut off fractional solutions that
spread one job over many starts so that no single period or month carries all of it):
    buy_job[o,w]:       Σ_{i∈I_w: o(i)=o} Σ_s n_i·x[w,i,s] ≤ b[o]          — whenever w runs on o, its nodes are bought
    rent_job[o,m,w]:    Σ_{i∈I_w: o(i)=o} Σ_{s: i started in s touches m} n_i·x[w,i,s] ≤ R[o,m]
    rent_whole[o,w]:    Σ_{i∈I_w: o(i)=o} Σ_s n_i·max(L_{o,1}, μ_{i,s})·x[w,i,s] ≤ Σ_m R[o,m]
                        — w alone holds n_i whole node-contracts, each for at least the shortest tier
                        L_{o,1} and at least the μ_{i,s} months the job touches; not written for an offer with commitments, whose
                        signed nodes may be held for fewer months than any term it sells
On the 12-month example the rent-only model solves in 0.05 s instead of 2 s with buy_job and rent_job.
rent_whole keeps the LP from renting a fraction of a node for a short job over part of a minimum term
(docs/performance.md gives the rent-only LP bound with and without it).

Quote schedules (``add_term_tier_vars``, ``add_volume_tiers``; see models.offer and costs.py)
    Term tiers are open-ended (S/E per tier, above): a tier of 12 months at 20,000 prices a 16-month
    contract at 16 × 20,000. A reserved cloud term of commitment_months τ is a fixed-length contract:
        T[o,τ,m] ∈ ℤ≥0, m = 0..M−τ    node-contracts of term τ signed in month m (they end within the horizon)
    and the nodes contracted in month m become
        R[o,m] = Σ_k (S[o,k,m] − E[o,k,m]) + Σ_{m' = m−τ+1 … m} T[o,τ,m']
    with cost Σ T[o,τ,m]·(τ·p_{o,τ} + upfront_o) (discounted: the present value of those flows). Every
    rent_cap, rent_job, rent_whole and rent_avail row uses this R. A reserved cloud offer has no S/E and
    no hourly bill.
    Volume tiers (all-units discount). For a buy offer with tiers k = 1..K (least nodes a_k, price p_k;
    u_k = a_{k+1} − 1, u_K = cap_o):
        z[o,k] ∈ {0,1},  q[o,k] ∈ ℤ≥0
        vol_pick_o:      Σ_k z[o,k] ≤ 1
        vol_lo_o_k:      q[o,k] ≥ a_k·z[o,k]        vol_hi_o_k:  q[o,k] ≤ u_k·z[o,k]
        vol_sum_o:       b[o] = Σ_k q[o,k]
    and b[o]·C^own_o in the objective becomes Σ_k q[o,k]·C^own_{o,k}, C^own_{o,k} the cost of owning
    one node at tier k's price (costs.purchase_flows). The tier is exactly the one the total reaches, so
    every node pays it — the all-units rule; buying 1 … a_1 − 1 nodes is impossible (a minimum order).

Slack tie-break (add_objective): + Σ τ_v·v over x and y, τ = TIE_BREAK_TOTAL/|W| × end day / horizon end — among
plans of equal cost the one whose jobs end earliest; the solver's objective and bound are read back without it.

Start periods already respect earliest_start_days, the offer's lead time and the deadline less the
schedule buffer (options.py: s ∈ S_i only if s·period_days + wall_days_i ≤ deadline_days − min_slack_days),
so release, lead-time, deadline and slack rules need no rows.

Before any variable is made, reduce.py merges starts that enter the same capacity rows and drops the
rows that other rows imply (exactly: same optimum, same LP bound). ``Builder(reduce=False)`` keeps them.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any

import pulp

from procure.models.offer import Offer
from procure.models.project import Project
from procure.models.units import DAYS_PER_MONTH

from .. import costs, holdings, lattice
from ..costs import RentalContract
from ..options import Grid, Option
from ..plan import Decision, contracts_from_profile
from .names import Names, slug
from .quotas import add_quota_rows
from .reduce import Reduction, reduce_model

REDUCE_BELOW_DAYS = 7
# The slack tie-break adds at most this much (project currency) to the objective, over all jobs together:
# among plans of equal cost the one whose jobs end earliest wins, and no plan costing more than the
# optimum by this (a cent) can be preferred to it (add_objective).
TIE_BREAK_TOTAL = 0.01
# What tells otherwise identical offers apart without changing what they are (add_symmetry).
IDENTITY_FIELDS = {"id", "vendor", "source", "quoted_on"}


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
    # the slack tie-break (add_objective): a column's share, and the most all of them can add together
    tie: dict[pulp.LpVariable, float] = field(default_factory=dict)
    tie_max: float = 0.0
    # the committed money (project commitments, solver.holdings) on the minimized objective: no column
    # carries it, the solver's objective and bound are read back with it (backends._info)
    offset: float = 0.0
    columns: list[pulp.LpVariable] = field(
        default_factory=list
    )  # every variable, in the order made (the in-process solver's columns)


class Builder:
    """Builds the model: variables first, then one ``add_<family>`` per constraint family, then the objective."""

    def __init__(
        self,
        project: Project,
        options: dict[str, list[Option]],
        offers: dict[str, Offer],
        objective: str = "tco",
        warm_start=None,
        reduce: bool | None = None,
        phases_of: Project | None = None,
    ):
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
        self.df = costs.discount_factors(project)
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
        self.cost_terms: list[tuple[pulp.LpVariable, float]] = []  # undiscounted
        self.obj_terms: list[tuple[pulp.LpVariable, float]] = []

    # --- helpers -------------------------------------------------------------------------------
    def _var(self, name: str, low=None, up=None, cat=pulp.LpContinuous) -> pulp.LpVariable:
        """A variable of this problem (PuLP ≥ 3.3 creates it through the model, without the per-variable
        deprecation warning that costs ~2 µs each on 200,000 variables)."""
        make = getattr(self.m.prob, "add_variable", None)
        var = make(name, low, up, cat=cat) if make else pulp.LpVariable(name, low, up, cat=cat)
        self.m.columns.append(var)
        return var

    def _tie(self, var: pulp.LpVariable, end_day: float) -> None:
        """The column's share of the slack tie-break: TIE_BREAK_TOTAL / |W| × its end day / the horizon's last day."""
        share = TIE_BREAK_TOTAL / max(1, len(self.options))
        self.m.tie[var] = share * max(0.0, end_day) / max(1.0, costs.horizon_end_day(self.project))
        self.m.tie_max = TIE_BREAK_TOTAL

    def _value(self, flows) -> float:
        return self.objective.measure(flows, self.project)

    def _cost(self, var: pulp.LpVariable, flows) -> None:
        tot = costs.total(flows)
        if tot:
            self.cost_terms.append((var, tot))
        val = self._value(flows)
        if val:
            self.obj_terms.append((var, val))

    def _job(self, opt: Option, start_day: float):
        """The job's own cash flows (costs.job_flows), with its storage and egress."""
        return costs.job_flows(opt.offer, self.project, opt.nodes, opt.hours, start_day, self.data.get(opt.workload))

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
            got = [(lo, months) for lo, _hi, months in lattice.pieces(self.phases[oid], t * P, (t + 1) * P)]
            self._piece_cache[(oid, t)] = got
        return got

    # --- variables -----------------------------------------------------------------------------
    def add_variables(self) -> None:
        """Every column: x or y per job option and start, then b, S/E, T, z/q and u per offer in use."""
        uncapped = self._uncapped_cloud()
        used_offers = {o.offer_id for opts in self.options.values() for o in opts}
        used_offers |= set(self.owned) | set(self.committed)  # held whatever the plan does
        # every start column's capacity rows first, so that reduce.py can merge starts and drop rows
        footprints, pv = self._footprints(uncapped)
        self._footprint = footprints
        red = self.reduction = self._reduce_starts(footprints, pv, uncapped)
        for w, opts in self.options.items():
            for i, opt in enumerate(opts):
                if opt.mode == "cloud" and opt.offer_id in uncapped:
                    self._add_y_var(w, i, opt)
                else:
                    self._add_x_vars(w, i, opt, red, footprints, pv)
        for oid in sorted(used_offers):
            self._add_offer_vars(oid)

    def _footprints(self, uncapped: set[str]):
        """Each start column's capacity rows, rented months and nodes, and (``npv``) its present value."""
        grid = self.grid
        footprints: dict[tuple[str, int, int], tuple[list, tuple, int]] = {}
        pv: dict[tuple[str, int, int], float] = {}
        for w, opts in self.options.items():
            for i, opt in enumerate(opts):
                if opt.mode == "cloud" and opt.offer_id in uncapped:
                    continue
                span = len(grid.busy_periods(opt.starts[0], opt.wall_days))  # starts lie on period boundaries
                for s in opt.starts:
                    day = grid.day_of_period(s)
                    keys = self._usage_keys(opt, s, span)
                    # a rental's pieces by their lattice months: the rent_job rows it enters
                    months = tuple(dict.fromkeys(k[2] for k in keys)) if opt.offer.contracted else ()
                    footprints[(w, i, s)] = (keys, months, opt.nodes)
                    if self.objective.discounted:
                        pv[(w, i, s)] = costs.present_value(self._job(opt, day), self.project)
        return footprints, pv

    def _reduce_starts(self, footprints, pv, uncapped: set[str]) -> Reduction:
        """The starts and capacity rows kept (reduce.py), or all of them with ``reduce=False``."""
        capped = {oid: o.max_nodes for oid, o in self.offers.items() if o.mode == "cloud" and oid not in uncapped}
        if self.reduce:
            return reduce_model(footprints, capped, pv if self.objective.discounted else None)
        red = Reduction(
            starts={},
            representative={c: c[2] for c in footprints},
            rows={k for f in footprints.values() for k in f[0]},
            columns_before=len(footprints),
        )
        for w, i, s in footprints:
            red.starts.setdefault((w, i), []).append(s)
        return red

    def _add_y_var(self, w: str, i: int, opt: Option) -> None:
        """y[w,i] of an option on a cloud offer whose cap never binds, costed at its one start."""
        m = self.m
        var = self._var(f"y_{self.widx[w]}_{self.oidx[opt.offer_id]}_{opt.nodes}", cat=pulp.LpBinary)
        m.y[(w, i)] = var
        # its start moves nothing but its cash flows: earliest for TCO (same cost at any start),
        # latest for NPV (the later a cost, the smaller its present value)
        m.y_start[(w, i)] = opt.starts[-1] if self.objective.discounted else opt.starts[0]
        self._tie(var, self.grid.day_of_period(m.y_start[(w, i)]) + opt.wall_days)
        self._cost(var, self._job(opt, self.grid.day_of_period(m.y_start[(w, i)])))

    def _add_x_vars(self, w: str, i: int, opt: Option, red: Reduction, footprints, pv) -> None:
        """x[w,i,s] for every start the reduction kept, with its costs and its place in the capacity rows."""
        m, wi = self.m, self.widx[w]
        # the undiscounted cost of a job does not depend on its start: cost it once per option
        tco = costs.total(self._job(opt, self.grid.day_of_period(opt.starts[0])))
        usage = m.usage
        for s in red.starts[(w, i)]:
            var = self._var(f"x_{wi}_{self.oidx[opt.offer_id]}_{opt.nodes}_{s}", cat=pulp.LpBinary)
            m.x[(w, i, s)] = var
            self._tie(var, self.grid.day_of_period(s) + opt.wall_days)
            if tco:
                self.cost_terms.append((var, tco))
            if self.objective.discounted and pv[(w, i, s)]:
                self.obj_terms.append((var, pv[(w, i, s)]))
            for key in footprints[(w, i, s)][0]:
                if key not in red.rows:
                    continue
                if key in usage:
                    usage[key].append((var, opt.nodes, wi))
                else:
                    usage[key] = [(var, opt.nodes, wi)]

    def _add_offer_vars(self, oid: str) -> None:
        """b (with volume tiers z, q) of a buy offer, S/E and T of a contracted one, u of one with a fixed cost."""
        m, offer, k = self.m, self.offers[oid], self.oidx[oid]
        if offer.mode == "buy":
            held = self.owned.get(oid)  # owned servers: exactly the nodes owned
            var = self._var(f"b_{k}", held or 0, held or offer.max_nodes, cat=pulp.LpInteger)
            m.b[oid] = var
            if _tiered(offer):
                self.add_volume_tier_vars(oid)
            else:
                self._cost(var, costs.purchase_flows(offer, self.project))
        elif offer.contracted:
            for term in costs.contract_terms(offer):
                if term.open_ended:
                    self._add_open_contract_vars(oid, term)
            self.add_term_tier_vars(oid)
        if offer.fixed:
            m.u[oid] = self._var(f"u_{k}", cat=pulp.LpBinary)
            self._cost(m.u[oid], costs.fixed_charge_flows(offer, self.project))

    def _add_open_contract_vars(self, oid: str, term: costs.Term) -> None:
        """S/E of one open-ended rent term tier (a minimum length) on each of the offer's phases, with their
        costs. No contract begins before delivery: S is 0 in the lattice months that begin before the lead time."""
        m, grid, offer, k = self.m, self.grid, self.offers[oid], self.oidx[oid]
        M, L = grid.n_months, term.months
        if L > M:  # no contract of this tier ends within the horizon
            return
        ub = offer.max_nodes * (M // L + 1)
        undiscounted = costs.rental_profile_coefficients(offer, self.project, False, term)
        valued = costs.rental_profile_coefficients(offer, self.project, self.objective.discounted, term)
        for ph, phase in enumerate(self.phases[oid]):
            for mm in range(M):
                up = ub if lattice.may_start(offer, phase, mm, self._from_day(oid)) else 0
                m.S[(oid, L, ph, mm)] = self._var(f"S_{k}_{L}_{ph}_{mm}", 0, up, cat=pulp.LpInteger)
            for mm in range(M + 1):
                m.E[(oid, L, ph, mm)] = self._var(f"E_{k}_{L}_{ph}_{mm}", 0, (0 if mm < L else ub), cat=pulp.LpInteger)
            for mm in range(M):
                (cs, ce), (vs, ve) = undiscounted[mm], valued[mm]
                S, E = m.S[(oid, L, ph, mm)], m.E[(oid, L, ph, mm)]
                self.cost_terms += [(S, cs), (E, ce)]
                self.obj_terms += [(S, vs), (E, ve)]

    # --- quote schedules: fixed-length terms (reserved cloud) and volume tiers --------------------
    def add_term_tier_vars(self, oid: str) -> None:
        """T[o,τ,φ,m]: node-contracts of every fixed-length term τ of the offer (a reserved cloud term) that
        begin in lattice month m of phase φ, not before delivery, costed per contract by the cost model."""
        m, offer, k, M = self.m, self.offers[oid], self.oidx[oid], self.grid.n_months
        for t in costs.contract_terms(offer):
            if t.open_ended or t.months > M:
                continue
            for ph, phase in enumerate(self.phases[oid]):
                for mm in range(M - t.months + 1):
                    if not lattice.may_start(offer, phase, mm, self._from_day(oid)):
                        continue
                    var = self._var(f"T_{k}_{t.months}_{ph}_{mm}", 0, offer.max_nodes, cat=pulp.LpInteger)
                    m.T[(oid, t.months, ph, mm)] = var
                    contract = RentalContract(oid, 1, mm, t.months, t.months, phase)
                    self._cost(var, costs.rental_flows(offer, contract, self.project))

    def add_volume_tier_vars(self, oid: str) -> None:
        """z, q of the all-units volume tiers, costed per node at each tier's price (module docstring)."""
        m, offer, k = self.m, self.offers[oid], self.oidx[oid]
        tiers = offer.buy_tiers
        for j, (least, _price) in enumerate(tiers):
            if least > offer.max_nodes:
                break
            most = min(offer.max_nodes, tiers[j + 1][0] - 1) if j + 1 < len(tiers) else offer.max_nodes
            m.z[(oid, j)] = self._var(f"z_{k}_{j}", cat=pulp.LpBinary)
            m.q[(oid, j)] = self._var(f"q_{k}_{j}", 0, most, cat=pulp.LpInteger)
            self._cost(m.q[(oid, j)], costs.purchase_flows(offer, self.project, least))

    def add_volume_tiers(self) -> None:
        """vol_pick, vol_lo, vol_hi, vol_sum (module docstring)."""
        m = self.m
        for oid in sorted({o for o, _ in m.q}, key=self.oidx.__getitem__):
            offer = self.offers[oid]
            tiers = [j for o, j in m.q if o == oid]
            o = self.names.offer[oid]
            m.prob += (pulp.lpSum(m.z[(oid, j)] for j in tiers) <= 1, self.names.row("vol_pick", o))
            for j in tiers:
                least = offer.buy_tiers[j][0]
                most = m.q[(oid, j)].upBound
                m.prob += (m.q[(oid, j)] - least * m.z[(oid, j)] >= 0, self.names.row("vol_lo", o, j))
                m.prob += (m.q[(oid, j)] - most * m.z[(oid, j)] <= 0, self.names.row("vol_hi", o, j))
            m.prob += (m.b[oid] - pulp.lpSum(m.q[(oid, j)] for j in tiers) == 0, self.names.row("vol_sum", o))

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

    def committed_on(self, oid: str, ph: int, mm: int) -> int:
        """Nodes of the offer's commitments (signed before the plan) held in lattice month mm of phase φ."""
        phase = self.phases[oid][ph]
        return sum(
            c.nodes
            for c in self.committed.get(oid, ())
            if abs(c.phase_days - phase) <= lattice.TOL and c.start_month <= mm < c.start_month + c.months
        )

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

    def _from_day(self, oid: str) -> float:
        """The first day a new contract of the offer may begin (holdings.contract_from_day)."""
        return holdings.contract_from_day(self.project, self.offers[oid])

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

    # --- constraint families -------------------------------------------------------------------
    def add_assign(self) -> None:
        """assign_w: Σ_i Σ_s x[w,i,s] + Σ_i y[w,i] = 1"""
        terms: dict[str, dict] = {w: {} for w in self.options}
        for (w, _i, _s), v in self.m.x.items():
            terms[w][v] = 1
        for (w, _i), v in self.m.y.items():
            terms[w][v] = 1
        for w, t in terms.items():
            self.m.prob += (pulp.LpAffineExpression(t) == 1, self.names.row("assign", self.names.workload[w]))

    def add_capacity(self) -> None:
        """buy_cap / rent_cap / cloud_cap: nodes in use in period t ≤ bought / rented / available."""
        m, row = self.m, self.names.row
        for (oid, t, mm), terms in sorted(
            m.usage.items(), key=lambda kv: (self.oidx[kv[0][0]], kv[0][1], _months(kv[0][2]))
        ):
            offer = self.offers[oid]
            slug_o = self.names.offer[oid]
            use = pulp.LpAffineExpression({v: n for v, n, _w in terms})
            if offer.mode == "buy":
                m.prob += (use - m.b[oid] <= 0, row("buy_cap", slug_o, t))
            elif offer.contracted:
                m.prob += (use - self.rented(oid, mm) <= 0, row("rent_cap", slug_o, t, _months_name(mm)))
            else:
                if _max_possible(terms) <= offer.max_nodes:
                    continue
                m.prob += (use <= offer.max_nodes, row("cloud_cap", slug_o, t))

    def add_job_cuts(self) -> None:
        """buy_job, rent_job and rent_whole (see the module docstring): one job's nodes against the capacity it needs.

        rent_job[o,μ,w] has one row per class μ of pieces of time (the lattice month of every phase, lattice.py):
        every start of w that runs in such a piece needs its nodes held there. rent_whole: each node of w is
        held for at least the shortest tier L_{o,1} and, on an offer with one phase, for every lattice month
        it touches; with several phases a node may pass from one phase's contract to another's, so for at
        least ⌈wall days / μ⌉ months (contracts are whole months and together cover the job)."""
        m, grid, row = self.m, self.grid, self.names.row
        on, wn = self.names.offer, self.names.workload
        buy_rows: dict[tuple[str, str], dict] = {}
        rent_rows: dict[tuple[str, tuple, str], dict] = {}
        whole_rows: dict[tuple[str, str], dict] = {}
        for (w, i, s), v in m.x.items():
            opt = self.options[w][i]
            if opt.mode == "buy":
                buy_rows.setdefault((opt.offer_id, w), {})[v] = opt.nodes
            elif opt.offer.contracted:
                for months in self._footprint[(w, i, s)][1]:  # the piece classes the start runs in
                    rent_rows.setdefault((opt.offer_id, months, w), {})[v] = opt.nodes
                if opt.offer_id not in self.committed:  # a commitment may hold fewer months than any new term
                    whole_rows.setdefault((opt.offer_id, w), {})[v] = opt.nodes * self._node_months(opt, s)
        for (oid, w), terms in buy_rows.items():
            m.prob += (pulp.LpAffineExpression(terms) - m.b[oid] <= 0, row("buy_job", on[oid], wn[w]))
        lift = self._lifting(rent_rows)
        for (oid, mm, w), terms in rent_rows.items():
            m.prob += (
                pulp.LpAffineExpression(terms | lift.get((oid, mm, w), {})) - self.rented(oid, mm) <= 0,
                row("rent_job", on[oid], _months_name(mm), wn[w]),
            )
        held: dict[str, pulp.LpAffineExpression] = {}
        for (oid, w), terms in whole_rows.items():
            if oid not in held:
                held[oid] = pulp.lpSum(self.rented_in_month(oid, mm) for mm in range(grid.n_months))
            m.prob += (pulp.LpAffineExpression(terms) - held[oid] <= 0, row("rent_whole", on[oid], wn[w]))

    def _lifting(self, rent_rows: dict[tuple[str, tuple, str], dict]) -> dict[tuple[str, tuple, str], dict]:
        """The columns of other jobs that lift rent_job[o,μ,w]: those busy in every cell (period piece of class μ)
        that some start of w in the row runs in.

        Validity, for integer x: at most one column of each job is 1. If a start of w in the row is chosen, it
        runs in some cell c of the row; every lifting column is busy in c too, so the left side is the nodes in
        use in c, at most R(μ) by rent_cap[o,t,μ]. If none is, the chosen lifting columns are all busy in any one
        cell of the row, and the same holds. The lifted row is therefore implied by the capacity rows for integer
        x, and cuts fractional points where a long job fills the offer in the cells a short job could use."""
        m = self.m
        busy: dict[tuple, set] = {}
        cells_of: dict[tuple[str, tuple, str], set] = {}
        for (w, i, s), v in m.x.items():
            opt = self.options[w][i]
            if not opt.offer.contracted:
                continue
            for key in self._footprint[(w, i, s)][0]:
                busy.setdefault(key, set()).add((v, opt.nodes, w))
                cells_of.setdefault((key[0], key[2], w), set()).add(key)
        out: dict[tuple[str, tuple, str], dict] = {}
        for row_key in rent_rows:
            cells = sorted(cells_of.get(row_key, ()), key=lambda k: len(busy[k]))
            if not cells:
                continue
            common = {c for c in busy[cells[0]] if c[2] != row_key[2]}
            for k in cells[1:]:
                if not common:
                    break
                common &= busy[k]
            if common:
                out[row_key] = {v: n for v, n, _w in common}
        return out

    def _node_months(self, opt: Option, s: int) -> int:
        """The fewest contract months each node of ``opt`` started in period s is held (add_job_cuts)."""
        shortest = costs.contract_terms(opt.offer)[0].months  # every contract of the offer lasts at least this
        phases = self.phases[opt.offer_id]
        day = self.grid.day_of_period(s)
        if len(phases) == 1:
            return max(shortest, len(lattice.months_touched(phases[0], day, day + opt.wall_days)))
        return max(shortest, math.ceil(opt.wall_days / DAYS_PER_MONTH - lattice.TOL))

    def add_rentals(self) -> None:
        """rent_order, rent_term (FIFO minimum term), rent_close per tier and phase; rent_avail per piece class."""
        m, M, row = self.m, self.grid.n_months, self.names.row
        for oid in sorted({k[0] for k in m.S} | {k[0] for k in m.T}, key=self.oidx.__getitem__):
            offer, o = self.offers[oid], self.names.offer[oid]

            # fixed-length terms end within the horizon by construction; open-ended tiers need these rows
            for L in self._tiers_of(oid):
                for ph in range(len(self.phases[oid])):
                    S = [m.S[(oid, L, ph, mm)] for mm in range(M)]
                    E = [m.E[(oid, L, ph, mm)] for mm in range(M + 1)]
                    for mm in range(1, M):
                        m.prob += (S[mm - 1] - S[mm] <= 0, row("rent_order_S", o, L, ph, mm))
                    for mm in range(1, M + 1):
                        m.prob += (E[mm - 1] - E[mm] <= 0, row("rent_order_E", o, L, ph, mm))
                    for mm in range(L, M + 1):
                        m.prob += (E[mm] - S[mm - L] <= 0, row("rent_term", o, L, ph, mm))
                    m.prob += (E[M] - S[M - 1] == 0, row("rent_close", o, L, ph))
            for months in self._piece_classes(oid):
                held = self.rented(oid, months, signed=False)  # max_nodes bounds the new contracts
                if oid in m.u:  # no contract without paying the offer's fixed charge
                    m.prob += (held - offer.max_nodes * m.u[oid] <= 0, row("rent_avail", o, _months_name(months)))
                else:
                    m.prob += (held <= offer.max_nodes, row("rent_avail", o, _months_name(months)))

    def _piece_classes(self, oid: str) -> list[tuple[int, ...]]:
        """Every class of pieces of the horizon (the lattice month of each phase of the offer, lattice.pieces)."""
        phases = self.phases[oid]
        return list(dict.fromkeys(k for _a, _b, k in lattice.pieces(phases, 0.0, costs.horizon_end_day(self.project))))

    def add_quotas(self) -> None:
        """quota[q,t,c]: GPUs in use under each quota ≤ its max_gpus (quotas.py)."""
        add_quota_rows(self)

    def add_fixed_charges(self) -> None:
        """fixed_use[o,w] and fixed_buy[o] (module docstring): a job on o, or a node bought of it, sets u[o]."""
        m, row, on, wn = self.m, self.names.row, self.names.offer, self.names.workload
        if not m.u:
            return
        uses: dict[tuple[str, str], dict] = {}
        for (w, i, _s), v in m.x.items():
            oid = self.options[w][i].offer_id
            if oid in m.u:
                uses.setdefault((oid, w), {})[v] = 1
        for (w, i), v in m.y.items():
            oid = self.options[w][i].offer_id
            if oid in m.u:
                uses.setdefault((oid, w), {})[v] = 1
        for (oid, w), terms in sorted(uses.items(), key=lambda kv: (self.oidx[kv[0][0]], self.widx[kv[0][1]])):
            m.prob += (pulp.LpAffineExpression(terms) - m.u[oid] <= 0, row("fixed_use", on[oid], wn[w]))
        for oid, var in m.b.items():
            if oid in m.u:
                m.prob += (var - self.offers[oid].max_nodes * m.u[oid] <= 0, row("fixed_buy", on[oid]))

    def _held(self, mm: int, modes: tuple[str, ...]) -> pulp.LpAffineExpression:
        """N[m]: nodes of the staffed modes held in month m (bought ones from their delivery month)."""
        terms: dict = {}
        if "buy" in modes:
            for oid, var in self.m.b.items():
                if mm in costs.held_months(self.offers[oid], self.project):
                    terms[var] = 1
        expr = pulp.LpAffineExpression(terms)
        if "rent" in modes:
            for oid in sorted({k[0] for k in self.m.S} | {k[0] for k in self.m.T}):
                if self.offers[oid].mode == "rent":
                    expr += self.rented_in_month(oid, mm)
        return expr

    def add_staff(self) -> None:
        """F, s, e, G and the staff_* rows (module docstring): whole FTEs for the peak, paid every month held."""
        m, p, M, row = self.m, self.project, self.grid.n_months, self.names.row
        modes = costs.staff_modes(p)
        staffed = [oid for oid in self.oidx if oid in m.b and "buy" in modes]
        staffed += [
            oid
            for oid in {k[0] for k in m.S} | {k[0] for k in m.T}
            if self.offers[oid].mode == "rent" and "rent" in modes
        ]
        if p.staff is None or not staffed:
            return
        n_max = sum(self.offers[oid].max_nodes for oid in staffed)
        f_max = costs.staff_ftes(p, n_max)
        F = m.staff_F = self._var("staff_F", 0, f_max, cat=pulp.LpInteger)
        pay = costs.staff_month_cost(p)
        both_ends = modes != ("buy",)  # bought nodes are held to the horizon end: the span ends at M−1
        for mm in range(M):
            held = self._held(mm, modes)
            m.prob += (p.staff.nodes_per_fte * F - held >= 0, row("staff_fte", mm))
            s = m.staff_s[mm] = self._var(f"staff_s_{mm}", cat=pulp.LpBinary)
            m.prob += (n_max * s - held >= 0, row("staff_s", mm))
            if mm:
                m.prob += (m.staff_s[mm - 1] - s <= 0, row("staff_s_order", mm))
            G = m.staff_G[mm] = self._var(f"staff_G_{mm}", 0, f_max)
            if both_ends:
                e = m.staff_e[mm] = self._var(f"staff_e_{mm}", cat=pulp.LpBinary)
                m.prob += (n_max * e - held >= 0, row("staff_e", mm))
                m.prob += (G - F - f_max * s - f_max * e >= -2 * f_max, row("staff_pay", mm))
            else:
                m.prob += (G - F - f_max * s >= -f_max, row("staff_pay", mm))
            self.cost_terms.append((G, pay))
            self.obj_terms.append((G, pay * (self.df[mm] if self.objective.discounted else 1.0)))
        for mm in range(M - 1):
            if both_ends:
                m.prob += (m.staff_e[mm + 1] - m.staff_e[mm] <= 0, row("staff_e_order", mm))

    def add_symmetry(self) -> None:
        """buy_sym[o]: b[o] ≤ b[o′] for the offer o′ listed before o among identical buy offers.

        Offers that differ only in id, vendor, source and quote date, and whose options are the same
        for every workload, have the same costs and caps, so any plan can swap their roles: ordering their purchases keeps one of each set of
        mirror-image plans, which the search would otherwise prove suboptimal one by one."""
        # the offers' options must match too: a workload held to one offer (runner-ups) or sized
        # differently on one breaks the symmetry
        shapes: dict[str, list] = {oid: [] for oid in self.m.b}
        for w, opts in self.options.items():
            for opt in opts:
                if opt.offer_id in shapes:
                    shapes[opt.offer_id].append((w, opt.nodes, opt.hours, opt.wall_days, tuple(opt.starts)))
        groups: dict[tuple, list[str]] = {}
        for oid in sorted(self.m.b):
            # the offer's terms as canonical JSON: tiers and financing are lists and mappings
            terms = json.dumps(self.offers[oid].model_dump(mode="json", exclude=IDENTITY_FIELDS), sort_keys=True)
            key = (terms, tuple(sorted(shapes[oid])))
            groups.setdefault(key, []).append(oid)
        for ids in groups.values():
            for before, oid in zip(ids, ids[1:], strict=False):
                self.m.prob += (self.m.b[oid] - self.m.b[before] <= 0, self.names.row("buy_sym", self.names.offer[oid]))

    def committed_flows(self) -> costs.Flows:
        """The cash flows of the commitments (signed contracts): constants of the model, owed in every plan."""
        if not hasattr(self, "_committed_flows"):
            self._committed_flows = costs.add_flows(
                costs.rental_flows(self.offers[c.offer_id], c, self.project)
                for cs in self.committed.values()
                for c in cs
            )
        return self._committed_flows

    def add_budget(self) -> None:
        """budget: undiscounted TCO ≤ budget_tco."""
        if self.project.budget_tco is None:
            return
        if self.m.total_cost is None:  # build() adds the objective first
            raise RuntimeError("add_budget needs the total-cost expression: call add_objective first")
        committed = costs.total(self.committed_flows())
        self.m.prob += (self.m.total_cost <= self.project.budget_tco - committed, "budget")

    def add_cash_budget(self) -> None:
        """budget_cash[m]: cash spent by the end of month m ≤ budget_cash, for every month m.

        Σ_{k≤m} (flows of x, y, b in month k) + Σ_o p_o·Σ_{k≤m}(S[o,k] − E[o,k]) + f_o·S[o,m] ≤ budget_cash
        (the setup fee is paid in the month a contract starts, so by month m it is f_o × contracts started ≤ m).
        Every coefficient comes from the cost model's cash flows (costs.job_flows, costs.purchase_flows)."""
        cap = self.project.budget_cash
        if cap is None:
            return
        m, M = self.m, self.grid.n_months
        rows: list[dict] = [{} for _ in range(M)]
        for var, flows in self._cash_flows():
            _add_cumulative(rows, var, flows)
        self._add_open_contract_cash(rows)
        signed = costs.cumulative_by_month(self.committed_flows(), M)  # owed whatever the plan does
        for k in range(M):
            if rows[k]:
                m.prob += (pulp.LpAffineExpression(rows[k]) <= cap - signed[k], self.names.row("budget_cash", k))

    def _cash_flows(self):
        """(variable, its cash flows per unit) of every column but S/E, each from the cost model."""
        m, grid, p = self.m, self.grid, self.project
        for (w, i, s), var in m.x.items():
            yield var, self._job(self.options[w][i], grid.day_of_period(s))
        for (w, i), var in m.y.items():
            yield var, self._job(self.options[w][i], grid.day_of_period(m.y_start[(w, i)]))
        for oid, var in m.u.items():
            yield var, costs.fixed_charge_flows(self.offers[oid], p)
        for mm, var in m.staff_G.items():
            yield var, {"staff": {mm: costs.staff_month_cost(p)}}
        for oid, var in m.b.items():
            if not _tiered(self.offers[oid]):
                yield var, costs.purchase_flows(self.offers[oid], p)
        for (oid, j), var in m.q.items():  # volume tiers: each tier's nodes at its price
            yield var, costs.purchase_flows(self.offers[oid], p, self.offers[oid].buy_tiers[j][0])
        for (oid, L, ph, start), var in m.T.items():  # fixed-length terms: the contract's own cash flows
            contract = RentalContract(oid, 1, start, L, L, self.phases[oid][ph])
            yield var, costs.rental_flows(self.offers[oid], contract, p)

    def _add_open_contract_cash(self, rows: list[dict]) -> None:
        """The cash of the open-ended rent tiers by month k, on S and E (costs.rental_cash_by_month)."""
        m, M = self.m, self.grid.n_months
        for oid in sorted({k[0] for k in m.S}):
            offer = self.offers[oid]
            for term in costs.contract_terms(offer):
                if (oid, term.months, 0, 0) not in m.S:
                    continue
                for ph in range(len(self.phases[oid])):
                    for k in range(M):
                        for j, cs, ce in costs.rental_cash_by_month(offer, self.project, k, term):
                            S, E = m.S[(oid, term.months, ph, j)], m.E[(oid, term.months, ph, j)]
                            rows[k][S] = rows[k].get(S, 0.0) + cs
                            rows[k][E] = rows[k].get(E, 0.0) + ce

    def add_capex_budget(self) -> None:
        """budget_capex: Σ_o b[o] · purchase price per node ≤ budget_capex (costs.purchase_flows' capex)."""
        cap = self.project.budget_capex
        if cap is None or not self.m.b:
            return
        terms = {
            var: costs.capex(costs.purchase_flows(self.offers[oid], self.project))
            for oid, var in self.m.b.items()
            if not _tiered(self.offers[oid])
        }
        for (oid, j), var in self.m.q.items():  # volume tiers: each tier's nodes at its price
            terms[var] = costs.capex(
                costs.purchase_flows(self.offers[oid], self.project, self.offers[oid].buy_tiers[j][0])
            )
        self.m.prob += (pulp.LpAffineExpression(terms) <= cap, "budget_capex")

    def add_objective(self) -> None:
        """min cost (TCO or NPV) + Σ tie[v]·v: the tie-break prefers, among plans of equal cost, the one whose
        jobs end earliest (the most slack before their deadlines). Each job's tie term lies in
        [0, TIE_BREAK_TOTAL/|W|], so a plan the solver prefers costs at most TIE_BREAK_TOTAL more than the
        optimum; the solver's objective and bound are read back without it (backends._info)."""
        self.m.total_cost = _expr(self.cost_terms)
        self.m.offset = self._value(self.committed_flows())
        cost = _expr(self.obj_terms) if self.objective.discounted else _expr(self.cost_terms)
        self.m.prob += cost + _expr(list(self.m.tie.items()))

    def build(self) -> Model:
        self.add_variables()
        self.add_staff()  # its G[m] carry costs: before the objective is summed
        self.add_objective()
        self.add_assign()
        self.add_capacity()
        self.add_job_cuts()
        self.add_rentals()
        self.add_volume_tiers()
        self.add_fixed_charges()
        self.add_symmetry()
        self.add_quotas()
        self.add_budget()
        self.add_cash_budget()
        self.add_capex_budget()
        self.set_warm_start()
        return self.m

    def _warm_charges(self, plan) -> None:
        """u, F, s, e, G of the warm-start plan: its offers in use and its staff (costs.held_by_month)."""
        m = self.m
        used = (
            {d.offer_id for d in plan.decisions}
            | {p.offer_id for p in plan.purchases}
            | {r.offer_id for r in plan.rentals}
        )
        for oid, var in m.u.items():
            var.setInitialValue(1 if oid in used else 0)
        if m.staff_F is None:
            return
        held = costs.held_by_month(
            self.project, self.offers, {p.offer_id: p.nodes for p in plan.purchases}, [r.contract for r in plan.rentals]
        )
        span = costs.held_span(held)
        ftes = costs.staff_ftes(self.project, max(held, default=0))
        m.staff_F.setInitialValue(ftes)
        months = [mm for mm, n in enumerate(held) if n > 0]
        for mm in range(self.grid.n_months):
            m.staff_G[mm].setInitialValue(ftes if mm in span else 0)
            m.staff_s[mm].setInitialValue(1 if months and mm >= months[0] else 0)
            if mm in m.staff_e:
                m.staff_e[mm].setInitialValue(1 if months and mm <= months[-1] else 0)

    def set_warm_start(self) -> None:
        """Initial values from a feasible plan; CBC starts its search from them (PuLP ``warmStart``)."""
        plan = self.warm_start
        if plan is None:
            return
        m = self.m
        for group in (m.x, m.y, m.b, m.S, m.E, m.T, m.q, m.z):
            for v in group.values():
                v.setInitialValue(v.lowBound or 0)  # owned nodes: b is fixed at the nodes owned
        self._warm_decisions(plan)
        self._warm_purchases(plan)
        starts, ends = self._warm_terms(plan)
        self._warm_charges(plan)
        self._warm_open_contracts(starts, ends)

    def _warm_decisions(self, plan) -> None:
        """x or y of each job of the plan, at its start (or the start the reduction merged it into)."""
        m = self.m
        for d in plan.decisions:
            opts = self.options.get(d.workload, [])
            s0 = int(round(d.start_day / self.grid.period_days))
            for i, opt in enumerate(opts):
                s = self.reduction.representative.get((d.workload, i, s0), s0) if self.reduction else s0
                if opt.offer_id == d.offer_id and opt.nodes == d.nodes:
                    if (d.workload, i) in m.y:
                        m.y[(d.workload, i)].setInitialValue(1)
                    elif (d.workload, i, s) in m.x:
                        m.x[(d.workload, i, s)].setInitialValue(1)
                    break

    def _warm_purchases(self, plan) -> None:
        """b of each purchase of the plan, and q, z of the volume tier its nodes reach."""
        m = self.m
        for p in plan.purchases:
            if p.offer_id in m.b:
                m.b[p.offer_id].setInitialValue(p.nodes)
                tiers = [j for o, j in m.q if o == p.offer_id]
                for j in tiers:
                    lo, hi = self.offers[p.offer_id].buy_tiers[j][0], m.q[(p.offer_id, j)].upBound
                    if lo <= p.nodes <= hi:
                        m.q[(p.offer_id, j)].setInitialValue(p.nodes)
                        m.z[(p.offer_id, j)].setInitialValue(1)

    def _phase_index(self, oid: str, phase_days: float) -> int | None:
        """The index of the offer's phase a contract begins on (None: a day the model has no lattice for)."""
        for ph, phase in enumerate(self.phases.get(oid, ())):
            if abs(phase - phase_days) <= lattice.TOL:
                return ph
        return None

    def _warm_terms(self, plan):
        """T of the plan's fixed-length contracts; the nodes its open-ended ones start and end per key."""
        m = self.m
        starts: dict[tuple[str, int, int, int], int] = {}
        ends: dict[tuple[str, int, int, int], int] = {}
        for r in plan.rentals:
            offer = self.offers[r.offer_id]
            ph = self._phase_index(r.offer_id, r.phase_days)
            if ph is None or r.committed:
                continue
            L = r.term_months if r.term_months is not None else costs.contract_terms(offer)[0].months
            key = (r.offer_id, L, ph, r.start_month)
            if key in m.T:
                m.T[key].setInitialValue((m.T[key].varValue or 0) + r.nodes)
                continue
            starts[key] = starts.get(key, 0) + r.nodes
            end = (r.offer_id, L, ph, r.start_month + r.months)
            ends[end] = ends.get(end, 0) + r.nodes
        return starts, ends

    def _warm_open_contracts(self, starts: dict, ends: dict) -> None:
        """S and E of the open-ended tiers: the plan's contracts started and ended by each month, cumulated."""
        m, M = self.m, self.grid.n_months
        for oid, L, ph, mm0 in m.S:
            if mm0:
                continue
            cs = ce = 0
            for mm in range(M + 1):
                ce += ends.get((oid, L, ph, mm), 0)
                m.E[(oid, L, ph, mm)].setInitialValue(ce)
                if mm < M:
                    cs += starts.get((oid, L, ph, mm), 0)
                    m.S[(oid, L, ph, mm)].setInitialValue(cs)


def _tiered(offer: Offer) -> bool:
    """A buy offer whose unit price depends on the quantity (volume tiers or a minimum order)."""
    tiers = offer.buy_tiers
    return len(tiers) > 1 or tiers[0][0] > 1


def _add_cumulative(rows: list[dict], var: pulp.LpVariable, flows) -> None:
    """rows[k][var] += the cash var spends by the end of month k, for every month k < len(rows)."""
    M = len(rows)
    per_month = [0.0] * M
    for per in flows.values():
        for k, v in per.items():
            if 0 <= k < M:
                per_month[k] += v
    for k, acc in enumerate(costs.running_total(per_month)):
        if acc:
            rows[k][var] = rows[k].get(var, 0.0) + acc


def _expr(terms: list[tuple[pulp.LpVariable, float]]) -> pulp.LpAffineExpression:
    """A linear expression from (variable, coefficient) pairs, summing repeated variables
    (``LpAffineExpression(list)`` would keep only the last coefficient of a repeated variable)."""
    acc: dict[pulp.LpVariable, float] = {}
    for v, c in terms:
        acc[v] = acc[v] + c if v in acc else c
    return pulp.LpAffineExpression(acc)


def _max_possible(terms: list[tuple[pulp.LpVariable, int, int]]) -> int:
    """Upper bound on usage: one option per workload can be active, so sum the largest per workload."""
    per_w: dict[int, int] = {}
    for _v, n, w in terms:
        if n > per_w.get(w, 0):
            per_w[w] = n
    return sum(per_w.values())


def extract(model: Model, project: Project, offers: dict[str, Offer]):
    """Decisions, purchases and rental contracts from the solved model, by key."""
    grid = Grid.of(project)
    decisions = []
    for (w, i, s), v in model.x.items():
        if (v.value() or 0) > 0.5:
            decisions.append(_decision(model.options[w][i], grid.day_of_period(s)))
    for (w, i), v in model.y.items():
        if (v.value() or 0) > 0.5:
            decisions.append(_decision(model.options[w][i], grid.day_of_period(model.y_start[(w, i)])))
    purchases = {oid: int(round(v.value() or 0)) for oid, v in model.b.items() if round(v.value() or 0) > 0}
    contracts = []
    M = grid.n_months
    for oid, L, ph in sorted({(o, L, ph) for o, L, ph, _m in model.S}):
        S = [int(round(model.S[(oid, L, ph, mm)].value() or 0)) for mm in range(M)]
        E = [int(round(model.E[(oid, L, ph, mm)].value() or 0)) for mm in range(M + 1)]
        starts = [S[0]] + [S[mm] - S[mm - 1] for mm in range(1, M)] + [0]
        ends = [E[0]] + [E[mm] - E[mm - 1] for mm in range(1, M + 1)]
        term = next(t for t in costs.contract_terms(offers[oid]) if t.months == L)
        signed = costs.signed_term_months(offers[oid], term)
        phase = model.phases[oid][ph]
        made = contracts_from_profile(oid, starts, ends, phase)
        contracts += [dataclasses.replace(c, term_months=signed) for c in made]
    for (oid, L, ph, start), v in sorted(model.T.items()):
        n = int(round(v.value() or 0))
        if n > 0:
            contracts.append(RentalContract(oid, n, start, L, L, model.phases[oid][ph]))
    contracts += [c for c in holdings.committed_contracts(project) if c.offer_id in offers]
    return decisions, purchases, contracts


def _decision(opt: Option, start_day: float) -> Decision:
    c = opt.candidate
    return Decision(
        workload=opt.workload,
        offer_id=opt.offer_id,
        nodes=opt.nodes,
        gpus=opt.gpus,
        hours=opt.hours,
        start_day=start_day,
        strategy=c.strategy if c else None,
        efficiency=c.efficiency if c else None,
        per_gpu_memory_gb=c.per_gpu_memory_gb if c else None,
        mfu=c.mfu if c else None,
    )


def _months(months) -> tuple[int, ...]:
    """A capacity key's month part as a tuple (−1 for offers without contracts), for sorting."""
    return months if isinstance(months, tuple) else (months,)


def _months_name(months: tuple[int, ...]) -> str:
    """A piece class in a row name: the lattice month of each phase, joined by ``.`` (``n`` before a phase's first)."""
    return ".".join("n" if mm < 0 else str(mm) for mm in months)
