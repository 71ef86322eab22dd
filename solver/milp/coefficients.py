"""The model's coefficient table: every priced column's cash flows per unit, by cost category and month.

This is the one place where money enters the MILP. Each column that costs anything is entered once, with the
cost model's cash flows of ONE unit of it (solver.costs, where each rule is stated):

    x[w,i,s], y[w,i]   the job run from its start day            costs.job_flows
    b[o], q[o,k]       one node bought (at volume tier k)         costs.purchase_flows
    S[o,k,φ,m], E[…]   one open-ended node-contract count         costs.open_contract_unit_flows
    T[o,τ,φ,m]         one fixed-length node-contract             costs.rental_flows
    u[o]               the offer's fixed charge                   costs.fixed_charge_flows
    G[m]               one FTE paid in month m                    costs.staff_month_flows

and everything that prices the model reads the table, never the rules again:

    objective          Σ value(v)·v: the flows' total (tco), present value (npv) or after-tax present value
                       (after_tax_npv: each column's income tax from its own flows, costs.after_tax_value),
                       costs.Objective.measure
    total_cost         Σ total(v)·v: what budget_tco caps
    cash_rows          Σ flows of v spent by the end of each month: what budget_cash caps
    category(c)        Σ amount of category c per unit · v (budget_capex: category capex)
    priced(values)     a solution priced per category on the objective: what
                       reading.agreed compares with the ledger of the plan extracted, to name the category
                       where the model and the ledger part ways

So the objective equals the ledger's total by construction wherever the ledger prices a plan's columns with
the same rules, and the budget rows see exactly the amounts the objective does.

A job's undiscounted flows do not depend on its start day (costs.job_flows spreads a start-independent
amount), so a start column keeps its option's category totals and builds its month-by-month flows only when
a row needs them (``cash_rows``) or the objective is discounted. The exception is a carbon price that moves by
project year (costs.carbon_varies): then each start column carries its own totals (formulation._add_x_vars).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pulp

from procure.models.project import Project
from procure.solver.enums import Objective

from .. import costs
from ..costs import Flows


@dataclass(slots=True)
class Priced:
    """One column's money per unit: its undiscounted amount per category and in all, its objective coefficient,
    and its cash flows by month (built on demand). Not frozen: a frozen dataclass is slower to make, and a table
    of a daily grid makes one per start column."""

    totals: Mapping[str, float]
    total: float
    value: float
    flows: Callable[[], Flows]


def _totals(flows: Flows) -> dict[str, float]:
    return {c: v for c, v in costs.by_category(flows).items() if v}


class CostTable:
    """The coefficient table of one model (module docstring)."""

    def __init__(self, project: Project, objective: Objective):
        self.project = project
        self.objective = Objective(objective)
        self.rows: dict[pulp.LpVariable, Priced] = {}
        # what every plan owes whatever the columns are (signed commitments): the objective's offset
        self.constant: Flows = {}

    def add(self, var: pulp.LpVariable, flows: Flows) -> None:
        """``var`` costs ``flows`` per unit (nothing is kept for a column that costs nothing)."""
        totals = _totals(flows)
        if totals or any(v for per in flows.values() for v in per.values()):
            value = self.objective.measure(flows, self.project)
            self._put(var, Priced(totals, sum(totals.values()), value, lambda: flows))

    def add_start(
        self,
        var: pulp.LpVariable,
        totals: Mapping[str, float],
        total: float,
        flows: Callable[[], Flows],
        present: float | None = None,
    ) -> None:
        """A job's start column: its option's category ``totals`` and their ``total`` (start-independent, shared
        by the option's starts) and its own cash flows, built when asked for; on the npv objective its coefficient
        is their ``present`` value (computed here when not given)."""
        if not totals:
            return
        if not self.objective.discounted:
            value = total
        else:
            value = self.objective.measure(flows(), self.project) if present is None else present
        self._put(var, Priced(totals, total, value, flows))

    def _put(self, var: pulp.LpVariable, priced: Priced) -> None:
        rows = self.rows
        if var in rows:
            raise ValueError(f"column {var.name} is priced twice")
        rows[var] = priced

    # --- what the model is written from ----------------------------------------------------------
    def objective_expr(self) -> pulp.LpAffineExpression:
        return pulp.LpAffineExpression({v: p.value for v, p in self.rows.items() if p.value})

    def total_expr(self) -> pulp.LpAffineExpression:
        return pulp.LpAffineExpression({v: p.total for v, p in self.rows.items() if p.total})

    def category_expr(self, category: str) -> pulp.LpAffineExpression:
        return pulp.LpAffineExpression({v: p.totals[category] for v, p in self.rows.items() if p.totals.get(category)})

    def cash_rows(self, n_months: int) -> list[dict[pulp.LpVariable, float]]:
        """Per month k, {column: the cash one unit of it has spent by the end of month k}."""
        rows: list[dict[pulp.LpVariable, float]] = [{} for _ in range(n_months)]
        for var, priced in self.rows.items():
            per_month = [0.0] * n_months
            for per in priced.flows().values():
                for k, v in per.items():
                    if 0 <= k < n_months:
                        per_month[k] += v
            for k, acc in enumerate(costs.running_total(per_month)):
                if acc:
                    rows[k][var] = acc
        return rows

    # --- a solution, priced --------------------------------------------------------------------
    def priced(self, value: Callable[[pulp.LpVariable], float]) -> dict[str, float]:
        """A solution (``value`` of each column) priced per category on the objective (undiscounted, present
        values with ``npv``, after-tax present values and the income tax as ``costs.TAX`` with ``after_tax_npv``),
        with the ``constant`` flows every plan owes (commitments) added."""
        out = dict.fromkeys((*costs.CATEGORIES, costs.TAX), 0.0)
        for c, v in self.objective.parts(self.constant, self.project).items():
            out[c] += v
        for var, priced in self.rows.items():
            k = value(var)
            if not k:
                continue
            if self.objective.discounted:
                for c, v in self.objective.parts(priced.flows(), self.project).items():
                    out[c] += k * v
            else:
                for c, v in priced.totals.items():
                    out[c] += k * v
        return out
