"""The budget rows (formulation's docstring, "budgets"): budget_tco, budget_cash on the cumulative cash
out at every month end, and budget_capex on the purchase prices (costs.capex). Every row reads the model's
coefficient table (coefficients.py): the budgets see exactly the amounts the objective does."""

from __future__ import annotations

import pulp

from .. import costs
from .rental_rows import RentalRows


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
        """budget_cash[m]: cash spent by the end of month m ≤ budget_cash, for every month m: Σ over the priced
        columns of the cash one unit has spent by then (coefficients.CostTable.cash_rows), the commitments'
        cash as a constant."""
        cap = self.project.budget_cash
        if cap is None:
            return
        M = self.grid.n_months
        signed = costs.cumulative_by_month(self.committed_flows(), M)  # owed whatever the plan does
        for k, row in enumerate(self.table.cash_rows(M)):
            if row:
                self.m.prob += (pulp.LpAffineExpression(row) <= cap - signed[k], self.names.row("budget_cash", k))

    def add_capex_budget(self) -> None:
        """budget_capex: Σ capex per unit of each column (purchase prices, costs.capex) ≤ budget_capex."""
        cap = self.project.budget_capex
        if cap is None:
            return
        spent = self.table.category_expr("capex")
        if not spent:
            return
        self.m.prob += (spent <= cap, "budget_capex")
