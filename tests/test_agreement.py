"""The solver's objective and the ledger's cost of its plan must agree (solver.reading.agreed). Where the model's
coefficient table prices the solution otherwise than the ledger, the model optimized other prices, its plan is not
the cheapest one and never a recommendation: the run stops with ``Disagreement`` (exit code 4), naming the strategy
and each cost category with both amounts. Where the table agrees with the ledger and only the solver's reported
objective is off its own solution, the plan stands at its ledger's cost as feasible, never optimal."""

from __future__ import annotations

import pytest

from procure.solver import costs, planner, reading
from procure.solver.enums import SolveStatus
from procure.solver.milp import SolveInfo
from procure.solver.verify import Disagreement, VerificationError

from helpers import EXAMPLES, cli, offer, project, solve_fixed, workload


def _objective_one_off(monkeypatch):
    """Every solve reports an objective 1 above the one its solution has: the solver's word is wrong."""
    real = planner.solve

    def off_by_one(*args, **kw):
        info = real(*args, **kw)
        return info if info.objective is None else SolveInfo(**{**info.__dict__, "objective": info.objective + 1.0})

    monkeypatch.setattr(planner, "solve", off_by_one)


def test_within_the_tolerance_the_solvers_word_stands():
    p = project([workload(name="a", deadline_days=60)])
    res = solve_fixed(p, [offer(mode="cloud", id="c", price_per_node_hour=30)], {("a", "c", 1): 100})
    info = SolveInfo("cbc", "CBC", SolveStatus.OPTIMAL, 1.0, 0.0, 3_000.0 * (1 + 5e-7), bound=3_000.0)
    assert reading.agreed(info, None, res.plan, "tco", "hybrid") is info  # within AGREE_REL


def test_a_solver_whose_objective_is_one_off_its_own_solution_is_feasible_never_optimal(monkeypatch):
    # the model's table prices the solution exactly as the ledger does (3,000: 1 node × 100 h at 30 per node-hour),
    # only the solver's reported objective is 1 off: a solver's slip, not the model's, so the plan stands at its
    # ledger's cost, feasible, with the slip on the record and its gap measured from the bound
    _objective_one_off(monkeypatch)
    p = project([workload(name="a", deadline_days=60)])
    res = solve_fixed(p, [offer(mode="cloud", id="c", price_per_node_hour=30)], {("a", "c", 1): 100})
    info = res.hybrid.solve
    assert res.status == "feasible" and info.objective == pytest.approx(3_000.0)
    assert info.objective_off == pytest.approx(1.0)


def test_a_coefficient_the_ledger_does_not_charge_is_named_with_its_category_and_both_amounts(monkeypatch):
    # the model's staff column G[m] priced at 1.5 FTE-months while the ledger charges one: the model's own
    # price disagrees with the ledger's in category staff alone. One bought node (lead 0) held 12 months, staff
    # 1 FTE at 120,000 a year: the ledger's staff is 12 × 10,000 = 120,000; the model's 12 × 15,000 = 180,000.
    real = costs.staff_month_flows
    monkeypatch.setattr(costs, "staff_month_flows", lambda p, m: costs.scale(real(p, m), 1.5))
    staff = {"nodes_per_fte": 8, "cost_per_fte_year": 120_000, "modes": ["buy"]}
    p = project([workload(name="a", deadline_days=60)], horizon_months=12, staff=staff)
    buy = offer(mode="buy", id="b", lead_time_days=0)
    with pytest.raises(Disagreement) as caught:
        solve_fixed(p, [buy], {("a", "b", 1): 100})
    (category, model, ledger), *others = caught.value.categories
    assert (category, others) == ("staff", [])
    assert model == pytest.approx(180_000) and ledger == pytest.approx(120_000)
    assert "staff: 180,000.00 in the model, 120,000.00 in the ledger" in str(caught.value)


def _model_prices_half_again(monkeypatch):
    """Every column of the model's coefficient table costs 1.5 × what the cost model says; the ledger is unchanged."""
    from procure.solver.milp import coefficients

    real = coefficients.CostTable._put

    def dearer(self, var, priced):
        scaled = coefficients.Priced(
            {c: 1.5 * v for c, v in priced.totals.items()},
            1.5 * priced.total,
            1.5 * priced.value,
            lambda: costs.scale(priced.flows(), 1.5),
        )
        real(self, var, scaled)

    monkeypatch.setattr(coefficients.CostTable, "_put", dearer)


def test_the_command_stops_with_exit_code_4_and_shows_no_plan(monkeypatch, tmp_path):
    _model_prices_half_again(monkeypatch)
    qlora = next(p for p in EXAMPLES if p.stem == "qlora-7b-week")
    out = tmp_path / "report.xlsx"
    res = cli("solve", qlora, "--no-compare", "--out", str(out))
    assert res.exit_code == 4, res.output
    assert "model priced its plan differently from the ledger; no plan is shown" in res.output
    assert "hybrid: the model's objective" in res.output and "in the model," in res.output
    assert "Recommendation" not in res.output and not out.exists()


def test_the_console_names_a_solvers_slip(monkeypatch):
    _objective_one_off(monkeypatch)
    qlora = next(p for p in EXAMPLES if p.stem == "qlora-7b-week")
    res = cli("solve", qlora, "--no-compare")
    assert res.exit_code == 0, res.output
    assert "status: feasible" in res.output
    assert "the solver's objective was 1 USD off its own solution's value at the model's prices" in res.output


def test_a_strategy_is_never_called_infeasible_for_a_budget_its_verified_plan_meets(monkeypatch):
    # the budget_tco row priced at twice the objective's amounts: the 3,000 plan (100 h × 30) meets budget_tco 4,000
    # in the ledger, but the row reads 6,000 and the model is infeasible; the run stops as a bug, not "infeasible"
    from procure.solver.milp import budget_rows

    real = budget_rows.BudgetRows.add_budget

    def doubled(self):  # the budget row alone reads twice the amounts the objective does
        total = self.m.total_cost
        self.m.total_cost = 2 * total
        try:
            real(self)
        finally:
            self.m.total_cost = total

    monkeypatch.setattr(budget_rows.BudgetRows, "add_budget", doubled)
    p = project([workload(name="a", deadline_days=60)], budget_tco=4_000)
    with pytest.raises(
        VerificationError,
        match=r"hybrid: the model with the budgets is infeasible, but a verified "
        r"plan meets every one \(budget_tco 4,000.00: 3,000.00\)",
    ) as caught:
        solve_fixed(p, [offer(mode="cloud", id="c", price_per_node_hour=30)], {("a", "c", 1): 100})
    assert caught.value.exit_code == 4
