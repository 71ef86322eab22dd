"""The solver's objective and the ledger's cost of its plan must agree: a gap is a modelling bug. In the tests
(tests/conftest.py sets planner.STRICT_AGREEMENT) it raises; in production the plan stands as "feasible" and the
console names the disagreement, so it never reads as a slow solve."""

from __future__ import annotations

import pytest

from procure.solver import planner
from procure.solver.enums import SolveStatus
from procure.solver.milp import SolveInfo
from procure.solver.verify import VerificationError

from helpers import EXAMPLES, cli, offer, project, solve_fixed, workload


def _objective_one_off(monkeypatch):
    """Every solve reports an objective 1 above the one its solution has: the model and the cost model part ways."""
    real = planner.solve

    def off_by_one(*args, **kw):
        info = real(*args, **kw)
        return info if info.objective is None else SolveInfo(**{**info.__dict__, "objective": info.objective + 1.0})

    monkeypatch.setattr(planner, "solve", off_by_one)


def test_a_gap_of_one_raises_in_the_tests():
    info = SolveInfo("cbc", "CBC", SolveStatus.OPTIMAL, 1.0, 0.0, 1_001.0, bound=1_001.0)
    with pytest.raises(VerificationError, match=r"^objective 1,001.00, ledger 1,000.00$"):
        planner.agreed(info, 1_000.0)
    assert planner.agreed(info, 1_001.0 * (1 + 5e-7)) is info  # within AGREE_REL: the solver's word stands


def test_a_solve_whose_objective_is_one_off_its_ledger_raises(monkeypatch):
    _objective_one_off(monkeypatch)
    p = project([workload(name="a", deadline_days=60)])
    with pytest.raises(VerificationError, match=r"objective 3,001.00, ledger 3,000.00"):
        # 1 node × 100 h at 30 per node-hour: 3,000
        solve_fixed(p, [offer(mode="cloud", id="c", price_per_node_hour=30)], {("a", "c", 1): 100}, compare=False)


def test_in_production_the_console_names_the_disagreement(monkeypatch):
    monkeypatch.delenv(planner.STRICT_AGREEMENT)
    _objective_one_off(monkeypatch)
    qlora = next(p for p in EXAMPLES if p.stem == "qlora-7b-week")
    res = cli("solve", qlora, "--no-compare")
    assert res.exit_code == 0, res.output
    assert "status: feasible" in res.output
    assert "the model's objective and the cost model disagree by 1 USD" in res.output
