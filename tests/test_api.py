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


# --- the API as a new user meets it -------------------------------------------------------------------

QLORA = ROOT / "examples" / "qlora-7b-week.yaml"


def test_import_procure_works_in_a_clone_root_without_the_editable_finder():
    """``import procure`` in the repository root finds the source folder ``procure/`` first; its subpackages
    (procure.common, procure.solver, …) live beside it, so they must resolve from there too, as after a
    plain ``pip install .`` (no editable finder) or with no install at all."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "sys.meta_path = [f for f in sys.meta_path if 'Editable' not in getattr(f, '__name__', type(f).__name__)]\n"
        "for k in [k for k in sys.modules if k == 'procure' or k.startswith('procure.')]: del sys.modules[k]\n"
        "import procure, procure.api, procure.solver.plan, procure.reports.focus\n"
        "print(procure.api.__file__, procure.solver.plan.__file__)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr[-2000:]
    assert str(ROOT / "solver" / "plan.py") in res.stdout


def test_result_repr_is_a_short_summary():
    r = procure.solve(QLORA, compare=False, runner_ups=0)
    text = repr(r)
    assert len(text) < 400 and "optimal" in text and f"{r.total_cost:,.0f}" in text, text


def test_committed_cost_is_the_plans_committed_and_unused_money():
    r = procure.solve(QLORA, compare=False, runner_ups=0)
    assert r.committed_cost == r.to_dict()["committed_cost"] == 0.0
    # a plan with owned servers: their running costs are committed, by hand in test_holdings
    owned = procure.solve(ROOT / "examples" / "existing-capacity.yaml", compare=False, runner_ups=0)
    assert owned.committed_cost is not None and owned.committed_cost >= 192_000  # the signed 2 × 6 × 16,000


def test_solve_options_are_typed_keyword_parameters():
    import inspect

    params = inspect.signature(procure.solve).parameters
    for name in ("offers", "solver", "time_limit", "gap", "objective", "compare", "runner_ups", "all_or_nothing"):
        assert name in params and params[name].kind is inspect.Parameter.KEYWORD_ONLY, name
        assert params[name].annotation is not inspect.Parameter.empty, name
    assert "gap" in (procure.solve.__doc__ or "") and "runner_ups" in (procure.solve.__doc__ or "")


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: procure.solve(QLORA, gap="0.1"), "gap"),
        (lambda: procure.solve(QLORA, offers=123), "offers"),
        (lambda: procure.solve(QLORA, compare="yes"), "compare"),
        (lambda: procure.solve(QLORA, time_limit="soon"), "time_limit"),
        (lambda: procure.size(QLORA, gpus="8"), "gpus"),
        (lambda: procure.size(QLORA, gpu="H100", gpus=10**12), "gpus"),
        (lambda: procure.size(QLORA, gpu="H100", gpus=0), "gpus"),
        (lambda: procure.size(QLORA, gpu=8), "gpu"),
    ],
)
def test_wrong_types_raise_input_error_naming_the_argument(call, argument):
    with pytest.raises(InputError) as exc:
        call()
    assert any(p.field == argument for p in exc.value.problems), exc.value.problems


def test_to_excel_of_none_names_the_argument():
    r = procure.solve(QLORA, compare=False, runner_ups=0)
    with pytest.raises(InputError) as exc:
        r.to_excel(None)
    assert any(p.field == "path" for p in exc.value.problems)


def test_size_on_the_command_line_bounds_the_gpus_too():
    from helpers import ROOT, cli

    r = cli("size", str(ROOT / "examples" / "qlora-7b-week.yaml"), "--gpu", "H100-SXM-80GB", "--gpus", str(10**12))
    assert r.exit_code == 1, r.output
    assert "--gpus" in r.output and "1,000,000,000,000 GPUs" in r.output
