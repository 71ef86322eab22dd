r"""The mixed-integer program: place every workload on one shape and one start, at least total cost.

Glossary
    w ∈ W          workloads                      i ∈ I_w       options of w (offer o(i), nodes n_i)
    s ∈ S_i        allowed start periods of i     B_i(s)        periods option i occupies if it starts in s
    t ∈ T          periods of ``period_days``     m ∈ 0..M−1    project months (M = horizon_months)
    O_buy, O_rent, O_cloud                        offers by mode; ``cap_o`` = max_nodes of offer o
    L_o            minimum rental term (months)   p_o           price per node-month; f_o setup fee per node

Variables
    x[w,i,s] ∈ {0,1}     w runs option i starting in period s
    y[w,i]   ∈ {0,1}     w runs option i of a cloud offer whose cap can never bind (no start index:
                         the job starts as early as allowed; with ``npv`` as late as allowed)
    b[o]     ∈ ℤ, 0..cap_o            nodes bought of o ∈ O_buy (ordered day 0, owned to the horizon end)
    S[o,m]   ∈ ℤ≥0, m = 0..M−1        rental node-contracts of o ∈ O_rent started in months ≤ m (cumulative)
    E[o,m]   ∈ ℤ≥0, m = 0..M          rental node-contracts ended before month m (cumulative)
    rented in month m:  R[o,m] = S[o,m] − E[o,m]

Objective (``tco``; with ``npv`` every coefficient is the present value of its cash flows, see costs.py)
    min  Σ_o b[o]·C^own_o + Σ_o Σ_m R[o,m]·p_o + Σ_o f_o·S[o,M−1] + Σ x[w,i,s]·c_{i,s} + Σ y[w,i]·c_i
    C^own_o: capex − residual + maintenance + colocation + idle energy of one node (costs.purchase_flows)
    c_{i,s}: busy energy of the job on bought nodes, or its cloud bill (costs.job_flows)

Constraints (one function each, named ``<family>[_<keys>]``)
    assign_w:          Σ_i Σ_s x[w,i,s] + Σ_i y[w,i] = 1
    buy_cap_o_t:       Σ_{(w,i,s): o(i)=o, t∈B_i(s)} n_i·x[w,i,s] ≤ b[o]
    rent_cap_o_t_m:    Σ_{(w,i,s): o(i)=o, i runs in month m during period t} n_i·x[w,i,s] ≤ R[o,m]
    cloud_cap_o_t:     Σ_{(w,i,s): o(i)=o, t∈B_i(s)} n_i·x[w,i,s] ≤ cap_o
    rent_order_o_m:    S[o,m−1] ≤ S[o,m],  E[o,m−1] ≤ E[o,m],  E[o,0] = 0
    rent_term_o_m:     E[o,m] ≤ S[o,m−L_o] (m ≥ L_o), E[o,m] = 0 (m < L_o) — matching contract ends to
                       starts first-in first-out, the k-th contract to end began ≥ L_o months earlier
    rent_close_o:      E[o,M] = S[o,M−1]   (contracts end within the horizon)
    rent_avail_o_m:    R[o,m] ≤ cap_o
    budget:            total cost (undiscounted TCO) ≤ budget

Valid inequalities (implied by the rows above for integer x, they cut off fractional solutions that
spread one job over many starts so that no single period or month carries all of it):
    buy_job_o_w:        Σ_{i∈I_w: o(i)=o} Σ_s n_i·x[w,i,s] ≤ b[o]          — whenever w runs on o, its nodes are bought
    rent_job_o_m_w:     Σ_{i∈I_w: o(i)=o} Σ_{s: i started in s touches m} n_i·x[w,i,s] ≤ R[o,m]
On the 12-month example the rent-only model solves in 0.05 s instead of 2 s with them.

Quote schedules (``add_term_tier_vars``, ``add_volume_tiers``; see models.offer and costs.py)
    Term tiers and reserved cloud. An offer's shortest rent term is open-ended and uses S/E above with
    L_o = its months. Every other term τ of the offer (a longer rent tier, or a reserved cloud term of
    commitment_months) is a fixed-length contract:
        T[o,τ,m] ∈ ℤ≥0, m = 0..M−τ    node-contracts of term τ signed in month m (they end within the horizon)
    and the nodes contracted in month m become
        R[o,m] = S[o,m] − E[o,m] + Σ_τ Σ_{m' = m−τ+1 … m} T[o,τ,m']
    with cost Σ T[o,τ,m]·(τ·p_{o,τ} + f_o) (discounted: the present value of those flows). Every rent_cap,
    rent_job and rent_avail row uses this R. A reserved cloud offer has no S/E and no hourly bill.
    Volume tiers (all-units discount). For a buy offer with tiers k = 1..K (least nodes a_k, price p_k;
    u_k = a_{k+1} − 1, u_K = cap_o):
        z[o,k] ∈ {0,1},  q[o,k] ∈ ℤ≥0
        vol_pick_o:      Σ_k z[o,k] ≤ 1
        vol_lo_o_k:      q[o,k] ≥ a_k·z[o,k]        vol_hi_o_k:  q[o,k] ≤ u_k·z[o,k]
        vol_sum_o:       b[o] = Σ_k q[o,k]
    and b[o]·C^own_o in the objective becomes Σ_k q[o,k]·C^own_{o,k}, C^own_{o,k} the cost of owning
    one node at tier k's price (costs.purchase_flows). The tier is exactly the one the total reaches, so
    every node pays it — the all-units rule; buying 1 … a_1 − 1 nodes is impossible (a minimum order).

Start periods already respect earliest_start_days, the offer's lead time and the deadline (options.py),
so release, lead-time and deadline rules need no rows.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import re
import tempfile
import time
from dataclasses import dataclass, field

import pulp

from procure.models.offer import Offer
from procure.models.project import Project

from . import costs
from .costs import RentalContract
from .options import Grid, Option
from .plan import Decision, contracts_from_profile

CBC_OPTIONS = ["preprocess off", "heur off", "cuts off"]
OPTIMAL_GAP = 1e-6  # a proven relative gap at or below this is called optimal


@dataclass
class SolveInfo:
    name: str
    version: str
    status: str  # optimal | feasible | infeasible | no_solution
    seconds: float
    gap: float | None
    objective: float | None
    variables: int = 0
    constraints: int = 0


@dataclass
class Model:
    prob: pulp.LpProblem
    x: dict[tuple[str, int, int], pulp.LpVariable] = field(default_factory=dict)
    y: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    y_start: dict[tuple[str, int], int] = field(default_factory=dict)  # the start period a y option runs at
    b: dict[str, pulp.LpVariable] = field(default_factory=dict)
    S: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    E: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    T: dict[tuple[str, int, int], pulp.LpVariable] = field(default_factory=dict)  # (offer, term months, start month)
    q: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)  # (offer, volume tier) nodes bought at that tier
    z: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)  # (offer, volume tier) the tier reached
    options: dict[str, list[Option]] = field(default_factory=dict)
    # (offer, period, month or -1) -> [(x, nodes, workload index)]: jobs busy in that period (for rent
    # offers: in the part of the period that lies in that month)
    usage: dict[tuple[str, int, int], list[tuple[pulp.LpVariable, int, int]]] = field(default_factory=dict)
    total_cost: pulp.LpAffineExpression | None = None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", text)


class Builder:
    """Builds the model: variables first, then one ``add_<family>`` per constraint family, then the objective."""

    def __init__(self, project: Project, options: dict[str, list[Option]], offers: dict[str, Offer], objective: str = "tco", warm_start=None):
        self.warm_start = warm_start  # a feasible Plan (e.g. the greedy one) to start the search from
        self.project = project
        self.options = options
        self.offers = offers
        self.objective = objective
        self.grid = Grid.of(project)
        self.df = costs.discount_factors(project)
        self.m = Model(pulp.LpProblem(_slug(project.name) or "procure", pulp.LpMinimize), options=options)
        self.widx = {w: k for k, w in enumerate(options)}
        self.oidx = {o: k for k, o in enumerate(sorted(offers))}
        self.cost_terms: list[tuple[pulp.LpVariable, float]] = []  # undiscounted
        self.obj_terms: list[tuple[pulp.LpVariable, float]] = []

    # --- helpers -------------------------------------------------------------------------------
    def _var(self, name: str, low=None, up=None, cat=pulp.LpContinuous) -> pulp.LpVariable:
        """A variable of this problem (PuLP ≥ 3.3 creates it through the model, without the per-variable
        deprecation warning that costs ~2 µs each on 200,000 variables)."""
        make = getattr(self.m.prob, "add_variable", None)
        return make(name, low, up, cat=cat) if make else pulp.LpVariable(name, low, up, cat=cat)

    def _value(self, flows) -> float:
        return costs.present_value(flows, self.project) if self.objective == "npv" else costs.total(flows)

    def _cost(self, var: pulp.LpVariable, flows) -> None:
        tot = costs.total(flows)
        if tot:
            self.cost_terms.append((var, tot))
        val = self._value(flows)
        if val:
            self.obj_terms.append((var, val))

    def _uncapped_cloud(self) -> set[str]:
        demand: dict[str, int] = {}
        for opts in self.options.values():
            most: dict[str, int] = {}
            for o in opts:
                if o.mode == "cloud" and not o.offer.committed:
                    most[o.offer_id] = max(most.get(o.offer_id, 0), o.nodes)
            for oid, n in most.items():
                demand[oid] = demand.get(oid, 0) + n
        return {oid for oid, n in demand.items() if n <= self.offers[oid].max_nodes}

    def _usage_keys(self, opt: Option, s: int, span: int):
        """Where a job started in period s occupies its offer. Starts lie on period boundaries, so all
        jobs busy in a period overlap at its start and per-period sums are exact concurrency. A rental
        is counted in a month only if the job really runs in it: the part of each period inside that
        month, up to the job's actual end (not the end of its last period)."""
        if not opt.offer.contracted:
            return [(opt.offer_id, t, -1) for t in range(s, s + span)]
        grid, P = self.grid, self.grid.period_days
        end = grid.start_day(s) + opt.wall_days
        return [(opt.offer_id, t, mm) for t in range(s, s + span) for mm in grid.months_of_days(t * P, min((t + 1) * P, end))]

    # --- variables -----------------------------------------------------------------------------
    def add_variables(self) -> None:
        m, grid = self.m, self.grid
        uncapped = self._uncapped_cloud()
        used_offers = {o.offer_id for opts in self.options.values() for o in opts}
        for w, opts in self.options.items():
            wi = self.widx[w]
            for i, opt in enumerate(opts):
                if opt.mode == "cloud" and opt.offer_id in uncapped:
                    var = self._var(f"y_{wi}_{i}", cat=pulp.LpBinary)
                    m.y[(w, i)] = var
                    # its start moves nothing but its cash flows: earliest for TCO (same cost at any start),
                    # latest for NPV (the later a cost, the smaller its present value)
                    m.y_start[(w, i)] = opt.starts[-1] if self.objective == "npv" else opt.starts[0]
                    self._cost(var, costs.job_flows(opt.offer, self.project, opt.nodes, opt.hours, grid.start_day(m.y_start[(w, i)])))
                    continue
                # the undiscounted cost of a job does not depend on its start: cost it once per option
                tco = costs.total(costs.job_flows(opt.offer, self.project, opt.nodes, opt.hours, grid.start_day(opt.starts[0])))
                usage = m.usage
                span = len(grid.busy_periods(opt.starts[0], opt.wall_days))  # starts lie on period boundaries
                for s in opt.starts:
                    var = self._var(f"x_{wi}_{i}_{s}", cat=pulp.LpBinary)
                    m.x[(w, i, s)] = var
                    if tco:
                        self.cost_terms.append((var, tco))
                    if self.objective == "npv":
                        pv = costs.present_value(costs.job_flows(opt.offer, self.project, opt.nodes, opt.hours, grid.start_day(s)), self.project)
                        if pv:
                            self.obj_terms.append((var, pv))
                    for key in self._usage_keys(opt, s, span):
                        if key in usage:
                            usage[key].append((var, opt.nodes, wi))
                        else:
                            usage[key] = [(var, opt.nodes, wi)]
        for oid in sorted(used_offers):
            offer = self.offers[oid]
            k = self.oidx[oid]
            if offer.mode == "buy":
                var = self._var(f"b_{k}", 0, offer.max_nodes, cat=pulp.LpInteger)
                m.b[oid] = var
                if _tiered(offer):
                    self.add_volume_tier_vars(oid)
                else:
                    self._cost(var, costs.purchase_flows(offer, self.project))
            elif offer.contracted:
                if costs.contract_terms(offer)[0].open_ended:
                    self._add_open_contract_vars(oid)
                self.add_term_tier_vars(oid)

    def _add_open_contract_vars(self, oid: str) -> None:
        """S/E of the offer's open-ended (shortest) rent term, with their costs."""
        m, grid, offer, k = self.m, self.grid, self.offers[oid], self.oidx[oid]
        M = grid.n_months
        ub = offer.max_nodes * (M // offer.min_term + 1)
        for mm in range(M):
            m.S[(oid, mm)] = self._var(f"S_{k}_{mm}", 0, ub, cat=pulp.LpInteger)
        for mm in range(M + 1):
            m.E[(oid, mm)] = self._var(f"E_{k}_{mm}", 0, (0 if mm < offer.min_term else ub), cat=pulp.LpInteger)
        price, setup = costs.rental_month_cost(offer, self.project), costs.rental_setup_cost(offer, self.project)
        for mm in range(M):
            # R[m]·p = S[m]·p − E[m]·p ; setup on S[M−1] (discounted: setup · Σ_m (S[m] − S[m−1])·df[m])
            self.cost_terms += [(m.S[(oid, mm)], price), (m.E[(oid, mm)], -price)]
            f_now = self.df[mm] if self.objective == "npv" else 1.0
            self.obj_terms += [(m.S[(oid, mm)], price * f_now), (m.E[(oid, mm)], -price * f_now)]
            if setup:
                if self.objective == "npv":
                    nxt = self.df[mm + 1] if mm + 1 < M else 0.0
                    self.obj_terms.append((m.S[(oid, mm)], setup * (self.df[mm] - nxt)))
                elif mm == M - 1:
                    self.obj_terms.append((m.S[(oid, mm)], setup))
                if mm == M - 1:
                    self.cost_terms.append((m.S[(oid, mm)], setup))

    # --- quote schedules: fixed-length terms (rent tiers, reserved cloud) and volume tiers -------
    def add_term_tier_vars(self, oid: str) -> None:
        """T[o,τ,m]: node-contracts of every fixed-length term τ of the offer, costed per contract by the cost model."""
        m, offer, k, M = self.m, self.offers[oid], self.oidx[oid], self.grid.n_months
        for t in costs.contract_terms(offer):
            if t.open_ended or t.months > M:
                continue
            for mm in range(M - t.months + 1):
                var = self._var(f"T_{k}_{t.months}_{mm}", 0, offer.max_nodes, cat=pulp.LpInteger)
                m.T[(oid, t.months, mm)] = var
                self._cost(var, costs.rental_flows(offer, RentalContract(oid, 1, mm, t.months, t.months), self.project))

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
        for oid in sorted({o for o, _ in m.q}, key=self.oidx.get):
            offer, k = self.offers[oid], self.oidx[oid]
            tiers = [j for o, j in m.q if o == oid]
            m.prob += (pulp.lpSum(m.z[(oid, j)] for j in tiers) <= 1, f"vol_pick_{k}")
            for j in tiers:
                least = offer.buy_tiers[j][0]
                most = m.q[(oid, j)].upBound
                m.prob += (m.q[(oid, j)] - least * m.z[(oid, j)] >= 0, f"vol_lo_{k}_{j}")
                m.prob += (m.q[(oid, j)] - most * m.z[(oid, j)] <= 0, f"vol_hi_{k}_{j}")
            m.prob += (m.b[oid] - pulp.lpSum(m.q[(oid, j)] for j in tiers) == 0, f"vol_sum_{k}")

    def rented(self, oid: str, mm: int) -> pulp.LpAffineExpression:
        """R[o,m]: node-contracts of the offer running in month m (open term plus fixed-length terms)."""
        m = self.m
        terms: dict = {}
        if (oid, mm) in m.S:
            terms[m.S[(oid, mm)]] = 1
            terms[m.E[(oid, mm)]] = -1
        for (o, L, start), var in self._terms_of(oid):
            if start <= mm < start + L:
                terms[var] = 1
        return pulp.LpAffineExpression(terms)

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
            self.m.prob += (pulp.LpAffineExpression(t) == 1, f"assign_{self.widx[w]}")

    def add_capacity(self) -> None:
        """buy_cap / rent_cap / cloud_cap: nodes in use in period t ≤ bought / rented / available."""
        m = self.m
        for (oid, t, mm), terms in sorted(m.usage.items(), key=lambda kv: (self.oidx[kv[0][0]], kv[0][1], kv[0][2])):
            offer = self.offers[oid]
            k = self.oidx[oid]
            use = pulp.LpAffineExpression({v: n for v, n, _w in terms})
            if offer.mode == "buy":
                m.prob += (use - m.b[oid] <= 0, f"buy_cap_{k}_{t}")
            elif offer.contracted:
                m.prob += (use - self.rented(oid, mm) <= 0, f"rent_cap_{k}_{t}_{mm}")
            else:
                if _max_possible(terms) <= offer.max_nodes:
                    continue
                m.prob += (use <= offer.max_nodes, f"cloud_cap_{k}_{t}")

    def add_job_cuts(self) -> None:
        """buy_job and rent_job (see the module docstring): one job's nodes against the capacity it needs."""
        m, grid = self.m, self.grid
        buy_rows: dict[tuple[str, str], dict] = {}
        rent_rows: dict[tuple[str, int, str], dict] = {}
        for (w, i, s), v in m.x.items():
            opt = self.options[w][i]
            if opt.mode == "buy":
                buy_rows.setdefault((opt.offer_id, w), {})[v] = opt.nodes
            elif opt.offer.contracted:
                for mm in grid.months_of_days(grid.start_day(s), grid.start_day(s) + opt.wall_days):
                    rent_rows.setdefault((opt.offer_id, mm, w), {})[v] = opt.nodes
        for (oid, w), terms in buy_rows.items():
            m.prob += (pulp.LpAffineExpression(terms) - m.b[oid] <= 0, f"buy_job_{self.oidx[oid]}_{self.widx[w]}")
        for (oid, mm, w), terms in rent_rows.items():
            m.prob += (pulp.LpAffineExpression(terms) - self.rented(oid, mm) <= 0, f"rent_job_{self.oidx[oid]}_{mm}_{self.widx[w]}")

    def add_rentals(self) -> None:
        """rent_order, rent_term (FIFO minimum term), rent_close, rent_avail."""
        m, M = self.m, self.grid.n_months
        for oid in sorted({o for o, _ in m.S} | {o for o, _l, _s in m.T}, key=self.oidx.get):
            if (oid, 0) not in m.S:  # fixed-length terms only: they end within the horizon by construction
                for mm in range(M):
                    m.prob += (self.rented(oid, mm) <= self.offers[oid].max_nodes, f"rent_avail_{self.oidx[oid]}_{mm}")
                continue
            offer, k, L = self.offers[oid], self.oidx[oid], self.offers[oid].min_term
            for mm in range(1, M):
                m.prob += (m.S[(oid, mm - 1)] - m.S[(oid, mm)] <= 0, f"rent_order_S_{k}_{mm}")
            for mm in range(1, M + 1):
                m.prob += (m.E[(oid, mm - 1)] - m.E[(oid, mm)] <= 0, f"rent_order_E_{k}_{mm}")
            for mm in range(L, M + 1):
                m.prob += (m.E[(oid, mm)] - m.S[(oid, mm - L)] <= 0, f"rent_term_{k}_{mm}")
            m.prob += (m.E[(oid, M)] - m.S[(oid, M - 1)] == 0, f"rent_close_{k}")
            for mm in range(M):
                m.prob += (self.rented(oid, mm) <= offer.max_nodes, f"rent_avail_{k}_{mm}")

    def add_budget(self) -> None:
        """budget: undiscounted TCO ≤ budget."""
        if self.project.budget is None:
            return
        self.m.prob += (self.m.total_cost <= self.project.budget, "budget")

    def add_objective(self) -> None:
        self.m.total_cost = _expr(self.cost_terms)
        self.m.prob += self.m.total_cost if self.objective == "tco" else _expr(self.obj_terms)

    def build(self) -> Model:
        self.add_variables()
        self.add_objective()
        self.add_assign()
        self.add_capacity()
        self.add_job_cuts()
        self.add_rentals()
        self.add_volume_tiers()
        self.add_budget()
        self.set_warm_start()
        return self.m

    def set_warm_start(self) -> None:
        """Initial values from a feasible plan; CBC starts its search from them (PuLP ``warmStart``)."""
        plan = self.warm_start
        if plan is None:
            return
        m, grid = self.m, self.grid
        for group in (m.x, m.y, m.b, m.S, m.E, m.T, m.q, m.z):
            for v in group.values():
                v.setInitialValue(0)
        for d in plan.decisions:
            opts = self.options.get(d.workload, [])
            s = int(round(d.start_day / grid.period_days))
            for i, opt in enumerate(opts):
                if opt.offer_id == d.offer_id and opt.nodes == d.nodes:
                    if (d.workload, i) in m.y:
                        m.y[(d.workload, i)].setInitialValue(1)
                    elif (d.workload, i, s) in m.x:
                        m.x[(d.workload, i, s)].setInitialValue(1)
                    break
        for p in plan.purchases:
            if p.offer_id in m.b:
                m.b[p.offer_id].setInitialValue(p.nodes)
                tiers = [j for o, j in m.q if o == p.offer_id]
                for j in tiers:
                    lo, hi = self.offers[p.offer_id].buy_tiers[j][0], m.q[(p.offer_id, j)].upBound
                    if lo <= p.nodes <= hi:
                        m.q[(p.offer_id, j)].setInitialValue(p.nodes)
                        m.z[(p.offer_id, j)].setInitialValue(1)
        starts: dict[tuple[str, int], int] = {}
        ends: dict[tuple[str, int], int] = {}
        for r in plan.rentals:
            if r.term_months is not None:
                key = (r.offer_id, r.term_months, r.start_month)
                if key in m.T:
                    m.T[key].setInitialValue((m.T[key].varValue or 0) + r.nodes)
                continue
            starts[(r.offer_id, r.start_month)] = starts.get((r.offer_id, r.start_month), 0) + r.nodes
            ends[(r.offer_id, r.start_month + r.months)] = ends.get((r.offer_id, r.start_month + r.months), 0) + r.nodes
        for oid in {o for o, _ in m.S}:
            cs = ce = 0
            for mm in range(grid.n_months + 1):
                ce += ends.get((oid, mm), 0)
                m.E[(oid, mm)].setInitialValue(ce)
                if mm < grid.n_months:
                    cs += starts.get((oid, mm), 0)
                    m.S[(oid, mm)].setInitialValue(cs)


def _tiered(offer: Offer) -> bool:
    """A buy offer whose unit price depends on the quantity (volume tiers or a minimum order)."""
    tiers = offer.buy_tiers
    return len(tiers) > 1 or tiers[0][0] > 1


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


def solver_command(name: str, time_limit: float | None, gap: float, log_path: str | None, options: list[str] | None = None):
    if name == "cbc":
        # CBC's presolve and primal heuristics cost ~65 s at the root of the XL benchmark before any
        # branching, while this model's LP relaxation is nearly integral and the greedy plan is a warm
        # start: without them XL solves in ~10 s (docs/performance.md).
        cmd = pulp.PULP_CBC_CMD(msg=False, timeLimit=time_limit, gapRel=gap, logPath=log_path, warmStart=True, options=list(options or []))
        if not cmd.available():
            raise SolverUnavailable("the CBC solver that ships with PuLP was not found or cannot run on this machine; reinstall pulp (pip install --force-reinstall pulp) or use --solver highs")
        return cmd
    if name == "highs":
        try:
            import highspy  # noqa: F401
        except ImportError:
            raise SolverUnavailable("HiGHS is not installed; install it with: pip install 'procure[highs]'") from None
        return pulp.HiGHS(msg=False, timeLimit=time_limit, gapRel=gap, warmStart=True)
    raise SolverUnavailable(f"unknown solver {name!r}; allowed: cbc, highs")


class SolverUnavailable(Exception):
    pass


class SolverFailed(Exception):
    pass


def solver_version(name: str) -> str:
    if name == "highs":
        try:
            import highspy

            h = highspy.Highs()
            return f"HiGHS {h.version()}" if hasattr(h, "version") else "HiGHS"
        except Exception:
            return "HiGHS"
    return f"CBC (PuLP {pulp.__version__})"


@contextlib.contextmanager
def _quiet_stdout(active: bool):
    """Silence what a solver library writes to the process's stdout (file descriptor 1) meanwhile."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def solve(model: Model, solver: str = "cbc", time_limit: float | None = None, gap: float = 1e-6) -> SolveInfo:
    """Solve and map the status honestly: optimal, feasible (limit reached; proven gap), infeasible, no_solution."""
    fd, log_path = tempfile.mkstemp(prefix="procure-cbc-", suffix=".log")
    os.close(fd)
    # CBC 2.10 without presolve can die on a model whose LP relaxation is infeasible (seen with a
    # budget below every plan): then the same model is solved again with CBC's defaults.
    attempts = [CBC_OPTIONS, []] if solver == "cbc" else [None]
    try:
        t0 = time.perf_counter()
        for k, options in enumerate(attempts):
            cmd = solver_command(solver, time_limit, gap, log_path if solver == "cbc" else None, options)
            try:
                with _quiet_stdout(solver == "highs"):  # HiGHS prints a banner even with msg=False
                    model.prob.solve(cmd)
                break
            except pulp.PulpSolverError as exc:
                if k + 1 < len(attempts):
                    continue
                detail = str(exc).split(",")[0]
                raise SolverFailed(f"the {solver.upper()} solver stopped with an error (it may have crashed or run out of memory); "
                                   f"try --solver {'highs' if solver == 'cbc' else 'cbc'} or report it with your input files (detail: {detail})") from None
        seconds = time.perf_counter() - t0
        log = open(log_path, encoding="utf-8", errors="replace").read() if solver == "cbc" else ""
    finally:
        try:
            os.unlink(log_path)
        except OSError:
            pass
    status, sol = model.prob.status, model.prob.sol_status
    objective = pulp.value(model.prob.objective) if sol in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible) else None
    bound = None
    if solver == "cbc":
        stopped = bool(re.search(r"Result - Stopped on (time|iterations|nodes|solutions)", log))
        mb = re.search(r"Lower bound:\s*([-0-9.eE+]+)", log)
        bound = float(mb.group(1)) if mb else None
    else:
        info = model.prob.solverModel.getInfo()
        stopped = str(model.prob.solverModel.getModelStatus()).endswith(("kTimeLimit", "kIterationLimit", "kSolutionLimit"))
        bound = getattr(info, "mip_dual_bound", None)
    if status == pulp.LpStatusInfeasible or sol == pulp.LpSolutionInfeasible:
        mapped = "infeasible"
    elif sol == pulp.LpSolutionOptimal and status == pulp.LpStatusOptimal and not stopped:
        mapped = "optimal"
    elif objective is not None and sol in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        mapped = "feasible"
    elif status == pulp.LpStatusUnbounded:
        raise SolverFailed("the model is unbounded; this is a bug in procure")
    else:
        mapped = "no_solution"
    gap_value: float | None = None
    if objective is not None and bound is not None and math.isfinite(bound):
        gap_value = max(0.0, (objective - bound) / max(abs(objective), 1e-9))
    elif mapped == "optimal":
        # no bound printed: CBC proved optimality outright, unless it stopped at a looser --gap, which
        # then only bounds the true gap
        gap_value = 0.0 if gap <= OPTIMAL_GAP else gap
    # "optimal" means proven optimal: a solver that stopped at a looser --gap reports "feasible" with its gap
    if mapped == "optimal" and gap_value is not None and gap_value > OPTIMAL_GAP and objective is not None and objective - (bound if bound is not None else -math.inf) > 0.01:
        mapped = "feasible"
    return SolveInfo(solver, solver_version(solver), mapped, seconds, gap_value, objective,
                     variables=len(model.prob.variables()), constraints=len(model.prob.constraints))


def extract(model: Model, project: Project, offers: dict[str, Offer]):
    """Decisions, purchases and rental contracts from the solved model, by key."""
    grid = Grid.of(project)
    decisions = []
    for (w, i, s), v in model.x.items():
        if (v.value() or 0) > 0.5:
            decisions.append(_decision(model.options[w][i], grid.start_day(s)))
    for (w, i), v in model.y.items():
        if (v.value() or 0) > 0.5:
            decisions.append(_decision(model.options[w][i], grid.start_day(model.y_start[(w, i)])))
    purchases = {oid: int(round(v.value() or 0)) for oid, v in model.b.items() if round(v.value() or 0) > 0}
    contracts = []
    M = grid.n_months
    for oid in sorted({o for o, _ in model.S}):
        S = [int(round(model.S[(oid, mm)].value() or 0)) for mm in range(M)]
        E = [int(round(model.E[(oid, mm)].value() or 0)) for mm in range(M + 1)]
        starts = [S[0]] + [S[mm] - S[mm - 1] for mm in range(1, M)] + [0]
        ends = [E[0]] + [E[mm] - E[mm - 1] for mm in range(1, M + 1)]
        contracts += contracts_from_profile(oid, starts, ends)
    for (oid, L, start), v in sorted(model.T.items()):
        n = int(round(v.value() or 0))
        if n > 0:
            contracts.append(RentalContract(oid, n, start, L, L))
    return decisions, purchases, contracts


def _decision(opt: Option, start_day: float) -> Decision:
    c = opt.candidate
    return Decision(
        workload=opt.workload, offer_id=opt.offer_id, nodes=opt.nodes, gpus=opt.gpus, hours=opt.hours, start_day=start_day,
        strategy=getattr(c, "strategy", None), efficiency=getattr(c, "efficiency", None), per_gpu_memory_gb=getattr(c, "per_gpu_memory_gb", None),
    )
