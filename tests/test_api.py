"""The Python API: ``procure.solve`` and ``procure.size`` give what the command line gives."""

from __future__ import annotations

import json

import openpyxl
import pytest

import procure
from procure.common.errors import InputError

from helpers import ROOT, cli, project, workload

SMALL = ROOT / "examples" / "small-lab.yaml"


def _cli_total(path, tmp_path, *extra) -> float:
    js = tmp_path / "plan.json"
    res = cli("solve", path, "--json", js, "--quiet", *extra)
    assert res.exit_code in (0, 5), res.output
    return json.loads(js.read_text())["total_cost"]


def test_solve_matches_the_command_line_and_its_frames_add_up(tmp_path):
    r = procure.solve(str(SMALL), compare=False, runner_ups=0)
    assert r.total_cost == _cli_total(SMALL, tmp_path, "--no-compare", "--runner-ups", "0")
    assert r.status == "optimal" and r.currency == "USD"
    a = r.assignments_frame()
    assert set(a["workload"]) == {w["workload"] for w in r.to_dict()["assignments"]} and len(a) >= 1
    assert {"offer", "nodes", "start_day", "end_day", "cost"} <= set(a.columns)
    # the cash flow and the cost lines are two views of the same money: each adds up to the TCO
    assert r.cash_flow_frame()["total"].sum() == pytest.approx(r.total_cost, abs=0.01)
    assert r.costs_frame()["amount"].sum() == pytest.approx(r.total_cost, abs=0.01)
    out = r.to_excel(tmp_path / "plan.xlsx")
    assert "Summary" in openpyxl.load_workbook(out, read_only=True).sheetnames


def test_solve_takes_a_project_and_checks_like_the_cli(tmp_path):
    p = project([workload(name="tiny", tokens_b=0.01, method="qlora", lora_rank=16, deadline_days=30)])
    r = procure.solve(p, compare=False, runner_ups=0, offers=ROOT / "offers" / "data" / "catalog.yaml")
    assert r.status == "optimal" and r.total_cost is not None and r.total_cost > 0
    with pytest.raises(InputError, match="workloads"):
        procure.solve({"name": "x"})
    with pytest.raises(InputError, match="not found"):
        procure.solve(tmp_path / "missing.yaml")
    with pytest.raises(InputError, match="solver"):
        procure.solve(SMALL, solver="gurobi")
    with pytest.raises(InputError, match=".xlsx"):
        r.to_excel(tmp_path / "plan.csv")


def test_size_is_the_size_command():
    sizings = procure.size(str(SMALL))
    assert [s.workload.name for s in sizings] == [
        w["name"] for w in json.loads(cli("size", SMALL, "--json", "-").output)["workloads"]
    ]


@pytest.mark.slow
def test_programme_total_equals_the_cli(tmp_path):
    path = ROOT / "examples" / "programme-12-months.yaml"
    assert procure.solve(str(path)).total_cost == _cli_total(path, tmp_path, "--no-compare", "--runner-ups", "0")
