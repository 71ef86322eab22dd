"""--time-limit counts the whole command (issue 24, D3): the clock starts with the process, and each
shape's verdict is worked out once per run, not once per strategy. Work is counted here, never timed;
the wall-clock figures are in docs/performance.md (``python -m bench.time_limit``)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from procure.cli import app
from procure.common import runtime
from procure.models.project import load_project
from procure.offers.catalog import load_catalog
from procure.solver import options as options_mod
from procure.solver.planner import plan_project

#: the command's clock: one at a time, on one worker
pytestmark = pytest.mark.xdist_group("clock")

ROOT = Path(__file__).resolve().parent.parent
QLORA = ROOT / "examples" / "qlora-7b-week.yaml"


def test_the_clock_starts_with_the_process_not_with_the_first_line():
    """The interpreter's start-up and the imports come before any line of procure: process_started()
    lies before the first reading the program itself can take."""
    code = (
        "import time; first = time.monotonic(); from procure.common.runtime import process_started; "
        "print(first - process_started())"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before_first_line = float(res.stdout)
    assert 0 < before_first_line < 60


def test_solve_spends_its_budget_from_the_process_start(tmp_path, monkeypatch):
    """A process that (say) took 100 s to start has no time left: solve answers with the verified
    greedy plan at once instead of giving the solver its full limit."""
    monkeypatch.setattr(runtime, "process_started", lambda: time.monotonic() - 100)
    out = tmp_path / "plan.json"
    res = CliRunner().invoke(
        app, ["solve", str(QLORA), "--no-compare", "--time-limit", "5", "--json", str(out), "--quiet"]
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["status"] == "feasible" and doc["solver"]["heuristic"] is True


def test_each_shape_is_judged_once_per_run(monkeypatch):
    """The hybrid, the comparators, the runner-ups select from one table: every shape's start days are
    worked out at most once (they were worked out again for every strategy)."""
    calls = [0]
    real = options_mod.allowed_starts

    def counting(*a, **k):
        calls[0] += 1
        return real(*a, **k)

    monkeypatch.setattr(options_mod, "allowed_starts", counting)
    project, _ = load_project(QLORA)
    offers = load_catalog().offers
    result = plan_project(project, offers, compare=True, n_runner_ups=2)
    shapes = sum(len(s.candidates) for s in result.sizings)
    assert result.hybrid.plan is not None and len(result.strategies) == 4
    assert 0 < calls[0] <= shapes
