"""The budget rows (formulation's docstring, "budgets"): budget_tco, budget_cash on the cumulative cash
out at every month end, and budget_capex on the purchase prices (costs.capex)."""

from __future__ import annotations

import pulp

from .. import costs
from ..costs import RentalContract
from .rental_rows import RentalRows
from .state import _tiered


class BudgetRows(RentalRows):
    """Budget rows (a layer of Builder)."""

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
