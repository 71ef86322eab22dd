"""The MIP start: a feasible plan (the greedy one, or the weekly stage's) written into the model's
variables, so the solver begins from it."""

from __future__ import annotations

from .. import costs, lattice
from .budget_rows import BudgetRows


class WarmStart(BudgetRows):
    """The MIP start (a layer of Builder)."""

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
            if (r.offer_id, r.months, ph, r.start_month) in m.T_signed:  # a column per start and length (price paths)
                key = (r.offer_id, r.months, ph, r.start_month)
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
