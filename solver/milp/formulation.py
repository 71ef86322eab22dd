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
    rentals: coefficients on S and E per tier and month (costs.open_contract_unit_flows)
    Every coefficient is read from the coefficient table (coefficients.py): each priced column's cash flows per
    unit, entered once from the cost model; the budget rows and the agreement check read the same table.

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
    F ∈ ℤ, 0..F̄        FTEs, F̄ = ⌈N̄/ν⌉ (N̄: the most nodes the staffed offers can hold, their commitments included)
    s[m], e[m] ∈ {0,1}  some node held in a month ≤ m / ≥ m;  G[m] ≥ 0 FTEs paid in month m
    staff_fte[m]:       ν·F ≥ N[m]                         (F = ⌈peak / ν⌉ at the optimum)
    staff_s[m]:         N̄·s[m] ≥ N[m], s[m] ≥ s[m−1];      staff_e[m]: N̄·e[m] ≥ N[m], e[m] ≥ e[m+1]
    staff_pay[m]:       G[m] ≥ F − F̄·(2 − s[m] − e[m])    (months from the first to the last held pay F)
    cost Σ_m G[m]·cost_per_fte_year/12 (discounted with ``npv``). With modes [buy] and no owned servers whose
    window ends inside the horizon, every node is held to the horizon end, so e[m] = 1 and is left out.

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

Contract counts and the integrality gate
    S, E and T are integer in the formulation as written (``Builder(contracts_integer=True)``, the default).
    The planner builds them continuous (``contracts_integer=False``): with every choice integer (x, y, b,
    q, z, u and the staff's F, s, e) the rental rows are interval-structured and the optimum's contract counts
    come out integral, and CBC branches on the choices alone (about half the CPU on the rent re-solves,
    docs/performance.md). gate.py checks every solve before its plan is read and repairs what is not integral
    (the rental LP with the choices fixed, else the model again with S/E/T integer).

Slack tie-break (add_objective): + Σ τ_v·v over x and y, τ = TIE_BREAK_TOTAL/|W| × end day / horizon end — among
plans of equal cost the one whose jobs end earliest; the solver's objective and bound are read back without it.

Start periods already respect earliest_start_days, the offer's lead time and the deadline less the
schedule buffer (options.py: s ∈ S_i only if s·period_days + wall_days_i ≤ deadline_days − min_slack_days),
so release, lead-time, deadline and slack rules need no rows.

Before any variable is made, reduce.py merges starts that enter the same capacity rows and drops the
rows that other rows imply (exactly: same optimum, same LP bound). ``Builder(reduce=False)`` keeps them.
"""

from __future__ import annotations

import functools
import gc
import json

import pulp

from .. import costs
from ..options import Option
from .quotas import add_quota_rows
from .reduce import Reduction, reduce_model
from .state import Model, _max_possible, _months, _months_name, _tiered
from .warm import WarmStart

# What tells otherwise identical offers apart without changing what they are (add_symmetry).
IDENTITY_FIELDS = {"id", "vendor", "source", "quoted_on"}


class Builder(WarmStart):
    """Builds the model: variables first, then one ``add_<family>`` per constraint family, then the objective."""

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
        """Each start column's capacity rows, rented months and nodes, and (``npv``) its present value (which
        reduce.py compares)."""
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
                    if self.objective.discounted or self._start_priced:
                        pv[(w, i, s)] = self._value(self._job(opt, day))
        return footprints, pv

    def _reduce_starts(self, footprints, pv, uncapped: set[str]) -> Reduction:
        """The starts and capacity rows kept (reduce.py), or all of them with ``reduce=False``."""
        capped = {oid: o.max_nodes for oid, o in self.offers.items() if o.mode == "cloud" and oid not in uncapped}
        if self.reduce:
            return reduce_model(footprints, capped, pv if self.objective.discounted or self._start_priced else None)
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
        if self._start_priced:  # a carbon price path: the start whose cost is least on the objective
            m.y_start[(w, i)] = min(opt.starts, key=lambda s: self._value(self._job(opt, self.grid.day_of_period(s))))
        self._tie(var, self.grid.day_of_period(m.y_start[(w, i)]) + opt.wall_days)
        self._cost(var, self._job(opt, self.grid.day_of_period(m.y_start[(w, i)])))

    def _add_x_vars(self, w: str, i: int, opt: Option, red: Reduction, footprints, pv) -> None:
        """x[w,i,s] for every start the reduction kept, with its costs and its place in the capacity rows."""
        m, wi = self.m, self.widx[w]
        # the undiscounted cost of a job does not depend on its start: its category totals once per option
        totals = {
            c: v for c, v in costs.by_category(self._job(opt, self.grid.day_of_period(opt.starts[0]))).items() if v
        }
        total = sum(totals.values())
        usage = m.usage
        for s in red.starts[(w, i)]:
            var = self._var(f"x_{wi}_{self.oidx[opt.offer_id]}_{opt.nodes}_{s}", cat=pulp.LpBinary)
            m.x[(w, i, s)] = var
            day = self.grid.day_of_period(s)
            self._tie(var, day + opt.wall_days)
            if self._start_priced:  # a carbon price path: the start's own totals (the price moves by year)
                totals = {c: v for c, v in costs.by_category(self._job(opt, day)).items() if v}
                total = sum(totals.values())
            self.table.add_start(var, totals, total, functools.partial(self._job, opt, day), pv.get((w, i, s)))
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
            self._cost(
                m.u[oid], costs.with_service_vat(offer, self.project, costs.fixed_charge_flows(offer, self.project))
            )

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
        # the most nodes they can hold at once: new capacity up to max_nodes, and the signed contracts on top of it
        n_max = sum(self.offers[oid].max_nodes for oid in staffed)
        n_max += sum(c.nodes for oid in staffed for c in self.committed.get(oid, ()))
        f_max = costs.staff_ftes(p, n_max)
        F = m.staff_F = self._var("staff_F", 0, f_max, cat=pulp.LpInteger)
        # the months held end where the last node held is let go: a rented node at its contract's end, an owned
        # one where its window ends (costs.held_months). Only new purchases are held to the horizon end, so
        # with them alone the span ends at M−1 and e[m] = 1 is left out.
        both_ends = "rent" in modes or any(
            costs.held_months(self.offers[oid], p).stop < M for oid in staffed if self.offers[oid].mode == "buy"
        )
        for mm in range(M):
            held = self._held(mm, modes)
            m.prob += (p.staff.nodes_per_fte * F - held >= 0, row("staff_fte", mm))
            s = m.staff_s[mm] = self._var(f"staff_s_{mm}", cat=pulp.LpBinary)
            m.prob += (n_max * s - held >= 0, row("staff_s", mm))
            if mm:
                m.prob += (m.staff_s[mm - 1] - s <= 0, row("staff_s_order", mm))
            G = m.staff_G[mm] = self._var(f"staff_G_{mm}", 0, f_max)
            self._cost(G, costs.staff_month_flows(p, mm))
            if both_ends:
                e = m.staff_e[mm] = self._var(f"staff_e_{mm}", cat=pulp.LpBinary)
                m.prob += (n_max * e - held >= 0, row("staff_e", mm))
                m.prob += (G - F - f_max * s - f_max * e >= -2 * f_max, row("staff_pay", mm))
            else:
                m.prob += (G - F - f_max * s >= -f_max, row("staff_pay", mm))
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

    def add_objective(self) -> None:
        """min cost (TCO or NPV) + Σ tie[v]·v: the tie-break prefers, among plans of equal cost, the one whose
        jobs end earliest (the most slack before their deadlines). Each job's tie term lies in
        [0, TIE_BREAK_TOTAL/|W|], so a plan the solver prefers costs at most TIE_BREAK_TOTAL more than the
        optimum; the solver's objective and bound are read back without it (backends._info)."""
        self.m.total_cost = self.table.total_expr()
        self.table.constant = self.committed_flows()
        self.m.offset = self._value(self.table.constant)
        cost = self.table.objective_expr() if self.objective.discounted else self.m.total_cost
        self.m.prob += cost + pulp.LpAffineExpression(self.m.tie)

    def build(self) -> Model:
        """Every family in order. The cyclic garbage collector is paused meanwhile: a daily model makes millions
        of objects that live as long as the model, so its collections would find nothing and cost a quarter of
        the build (bench/build_cost.py, docs/performance.md); it resumes, as it was, when the model is made."""
        paused = gc.isenabled()
        gc.disable()
        try:
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
        finally:
            if paused:
                gc.enable()
        return self.m
