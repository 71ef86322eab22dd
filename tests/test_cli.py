"""The command line through typer's CliRunner: exit codes, the phrases a user reads, the JSON contract."""

from __future__ import annotations

import csv
import json

import openpyxl
import pytest
from typer.testing import CliRunner

from procure import __version__
from procure.cli import EXIT_CODES, app

from helpers import EXAMPLES, ROOT, cli

STRATEGY_KEYS = {"hybrid", "buy", "rent", "cloud"}
BREAKDOWN_KEYS = {
    "capex",
    "network",
    "residual_value",
    "maintenance",
    "colocation",
    "energy",
    "rent",
    "setup",
    "cloud",
    "fixed",
    "storage",
    "egress",
    "staff",
    "carbon",
    "interest",
}
TOP_KEYS = {
    "status",
    "currency",
    "total_cost",
    "npv_cost",
    "cost_breakdown",
    "purchases",
    "rentals",
    "charges",
    "assignments",
    "strategies",
    "rejected",
    "solver",
}
PURCHASE_KEYS = {"offer", "nodes", "cost"}
RENTAL_KEYS = {"offer", "nodes", "start_day", "months", "cost"}
ASSIGNMENT_KEYS = {
    "workload",
    "offer",
    "mode",
    "gpu",
    "nodes",
    "gpus",
    "start_day",
    "end_day",
    "deadline_day",
    "hours",
    "gpu_hours",
    "cost",
}
REJECTED_KEYS = {"workload", "offer", "reason", "rule"}
SOLVER_KEYS = {"name", "status", "seconds", "gap"}


# --- version and help --------------------------------------------------------------------------


def test_version():
    res = cli("--version")
    assert res.exit_code == 0 and res.output.strip() == f"procure {__version__}"


@pytest.mark.parametrize("args", [["--help"], ["solve", "--help"]])
def test_help_lists_every_exit_code(args):
    res = cli(*args)
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    for line in EXIT_CODES.splitlines()[1:]:
        code = line.split(" ", 1)[0]
        assert f" {code} " in text
    for phrase in (
        "Exit codes:",
        "0 ok",
        "1 bad input",
        "2 infeasible",
        "3 no solution within the time limit",
        "4 internal verification failure",
    ):
        assert phrase in text


def test_help_says_highs_comes_with_procure():
    res = cli("solve", "--help")
    flat = " ".join(res.output.replace("│", " ").split())
    assert "highs (HiGHS, installed with procure)" in flat


# --- offers ------------------------------------------------------------------------------------


def test_offers_list_shows_the_bundled_catalog():
    res = cli("offers", "list")
    assert res.exit_code == 0
    assert "offers" in res.output and "catalog:" in res.output and "H100-SXM-80GB" in res.output


def test_offers_list_filters_by_gpu_alias_and_mode():
    res = cli("offers", "list", "--gpu", "h100", "--mode", "cloud")
    assert res.exit_code == 0
    body = [line for line in res.output.splitlines() if line.startswith("│")]
    assert body and all("H100-SXM-80GB" in line and "cloud" in line for line in body if "│ " in line and "×" in line)
    assert "A100" not in res.output and " buy " not in res.output


def test_offers_list_says_when_no_offer_matches():
    # the bundled catalog sells and rents MI300X by the hour but has no monthly MI300X rental
    res = cli("offers", "list", "--gpu", "MI300X", "--mode", "rent")
    assert res.exit_code == 0
    assert "no offer matches the filters: of the catalog's" in res.output
    assert "have GPU MI300X-192GB and" in res.output and "are rent offers" in res.output


def test_offers_list_bad_gpu_and_mode_suggest_the_close_name():
    res = cli("offers", "list", "--gpu", "H1OO")
    assert res.exit_code == 1
    assert "command line: error: --gpu: unknown GPU 'H1OO' (did you mean 'H100-SXM-80GB'?)" in res.output
    res = cli("offers", "list", "--mode", "rnet")
    assert res.exit_code == 1
    assert (
        "command line: error: --mode: unknown mode 'rnet' (did you mean 'rent'?); allowed: buy, cloud, rent"
        in res.output
    )


def test_offers_validate_bundled_catalog():
    from procure.offers.catalog import bundled_catalog_path

    res = cli("offers", "validate", bundled_catalog_path())
    assert res.exit_code == 0
    assert res.output.strip().endswith("in 1 file(s)") and "ok:" in res.output and "(buy, cloud, rent)" in res.output


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "yaml"])
def test_offers_template_writes_each_format(tmp_path, fmt):
    out = tmp_path / f"offers.{fmt}"
    res = cli("offers", "template", "--format", fmt, "--out", out)
    assert res.exit_code == 0
    assert f"wrote {out}: fill one row per offer, then run: procure offers validate {out}" in " ".join(
        res.output.split()
    )
    if fmt == "csv":
        header = next(csv.reader(out.open()))
        assert header[0] == "id" and "price_per_node_month" in header
    elif fmt == "xlsx":
        wb = openpyxl.load_workbook(out)
        assert wb.sheetnames == ["offers", "Example", "columns"] and wb["offers"]["A1"].value == "id"
    else:
        assert "offers: []" in out.read_text()
    # an empty template is a clear error, not a crash
    res = cli("offers", "validate", out)
    assert res.exit_code == 1 and "the catalog has no offers" in res.output


@pytest.mark.parametrize("name, fmt", [("t.csv", "csv"), ("t.xlsx", "xlsx"), ("t.yaml", "yaml"), ("t.YML", "yaml")])
def test_offers_template_takes_its_format_from_the_suffix(tmp_path, name, fmt):
    """--out t.csv wrote an XLSX file under a .csv name (issue 24, D6)."""
    out = tmp_path / name
    res = cli("offers", "template", "--out", out)
    assert res.exit_code == 0, res.output
    head = out.read_bytes()[:4]
    assert (head == b"PK\x03\x04") == (fmt == "xlsx")
    if fmt == "csv":
        assert out.read_text().startswith("id,vendor,mode")
    if fmt == "yaml":
        assert "offers: []" in out.read_text()
    # the same format given explicitly is fine; a contradicting one is refused, and nothing is written
    assert cli("offers", "template", "--format", fmt, "--out", out, "--force").exit_code == 0
    other = "yaml" if fmt != "yaml" else "csv"
    res = cli("offers", "template", "--format", other, "--out", tmp_path / f"new-{name}")
    assert res.exit_code == 1 and f"--format: --format {other} contradicts the file name" in " ".join(
        res.output.split()
    )
    assert not (tmp_path / f"new-{name}").exists()


def test_offers_template_refuses_a_suffix_no_catalog_has(tmp_path):
    res = cli("offers", "template", "--out", tmp_path / "offers.txt")
    assert res.exit_code == 1 and "a catalog file ends in .csv, .xlsx, .yaml or .yml (got '.txt')" in " ".join(
        res.output.split()
    )
    assert not (tmp_path / "offers.txt").exists()


def test_offers_template_into_a_missing_folder(tmp_path):
    res = cli("offers", "template", "--format", "csv", "--out", tmp_path / "no" / "t.csv")
    assert res.exit_code == 1 and "does not exist" in res.output


# --- solve ---------------------------------------------------------------------------------------

#: examples whose full solve (every strategy) takes over 5 s on two cores
SLOW_EXAMPLES = {"negotiated-quotes", "programme-12-months"}


@pytest.mark.xdist_group("solved")  # the session's cached solve of each example (tests/solved.py)
@pytest.mark.parametrize(
    "example",
    [pytest.param(p, id=p.stem, marks=[pytest.mark.slow] if p.stem in SLOW_EXAMPLES else []) for p in EXAMPLES],
)
def test_solve_each_example_writes_the_json_contract(solved, example):
    """``procure solve EXAMPLE --json --out --csv --focus`` (every strategy; the runner-ups are tested on their own,
    tests/test_runner_ups.py)."""
    run = solved(example)
    # the small lab's 67B full fine-tune cannot run on its offers: set aside, the rest planned (exit 5)
    assert run.exit_code == (5 if example.stem == "small-lab" else 0), run.output
    assert "Recommendation:" in run.output and "plan verified independently" in run.output
    j = json.loads(run.json_path.read_text())
    assert TOP_KEYS <= set(j)
    assert j["status"] in ("optimal", "feasible") and j["currency"]
    assert set(j["cost_breakdown"]) == BREAKDOWN_KEYS
    assert sum(j["cost_breakdown"].values()) == pytest.approx(j["total_cost"], abs=0.05)
    assert set(j["strategies"]) == STRATEGY_KEYS
    for s in j["strategies"].values():
        assert {"status", "total_cost"} <= set(s)
    assert j["strategies"]["hybrid"]["total_cost"] == j["total_cost"]
    for name in ("buy", "rent", "cloud"):
        s = j["strategies"][name]
        assert s["total_cost"] is None or s["total_cost"] >= j["total_cost"] * (1 - 1e-6)
    for x in j["purchases"]:
        assert set(x) >= PURCHASE_KEYS
    for x in j["rentals"]:
        assert set(x) >= RENTAL_KEYS
    assert j["assignments"]
    for a in j["assignments"]:
        assert set(a) >= ASSIGNMENT_KEYS
        assert a["end_day"] <= a["deadline_day"] + 1e-6 and a["gpus"] >= a["nodes"] >= 1
    for r in j["rejected"]:
        assert set(r) == REJECTED_KEYS and r["reason"]
    assert set(j["solver"]) >= SOLVER_KEYS and j["solver"]["name"] == "cbc"
    assert j["solver"]["status"] == j["status"]


def test_solve_no_compare_solves_only_the_hybrid(tmp_path):
    out = tmp_path / "plan.json"
    res = cli("solve", EXAMPLES[0], "--no-compare", "--json", out)
    assert res.exit_code == 0
    assert set(json.loads(out.read_text())["strategies"]) == {"hybrid"}


def test_infeasible_workload_exits_2_with_reasons(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(
        "name: too soon\nhorizon_months: 12\nworkloads:\n"
        "  - {name: huge, model: llama-2-70b, method: pretrain, tokens_b: 2000, deadline_days: 3}\n"
    )
    out = tmp_path / "plan.json"
    res = cli("solve", path, "--no-compare", "--json", out)
    assert res.exit_code == 2
    assert "INFEASIBLE" in res.output and "huge:" in res.output
    assert "cannot finish by the deadline" in res.output and "> deadline day 3" in res.output
    j = json.loads(out.read_text())
    assert j["status"] == "infeasible" and j["total_cost"] is None and j["assignments"] == []
    assert j["infeasible"]["huge"] and j["rejected"]


def test_budget_infeasible_exits_2_with_the_shortfall(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(
        "name: thrifty\nhorizon_months: 12\nbudget: 1\nworkloads:\n"
        "  - {name: a, model: llama-2-7b, method: lora, tokens_b: 0.5, deadline_days: 30}\n"
    )
    res = cli("solve", path, "--no-compare")
    assert res.exit_code == 2
    assert "(budget)" in res.output and "budget_tco 1 is short by" in res.output


def test_solve_npv_objective_with_zero_discount_warns(tmp_path):
    qlora = next(p for p in EXAMPLES if p.stem == "qlora-7b-week")  # discount_rate: 0.0
    res = cli("solve", qlora, "--no-compare", "--objective", "npv")
    assert res.exit_code == 0
    assert "warning: discount_rate: --objective npv with discount_rate 0 is the same as tco" in res.output


def test_solve_rejects_unknown_solver_choice():
    res = cli("solve", EXAMPLES[0], "--solver", "gurobi")
    assert res.exit_code == 2  # click's usage error: the allowed choices are printed
    assert "gurobi" in res.output and "cbc" in res.output


# --- the entry point: usage errors are bad input (exit 1); 2 stays "infeasible" ---------------------


def _entry(*args: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "procure", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", [["--bogus"], ["solve"], ["solve", "x.yaml", "--bogus"], ["size", "--gpus", "many"]])
def test_usage_errors_exit_1_with_the_parsers_message(args):
    res = _entry(*args)
    assert res.returncode == 1, (res.returncode, res.stderr)
    assert "Error:" in res.stderr and "Traceback" not in res.stderr


def test_entry_point_passes_exit_codes_through(tmp_path):
    assert _entry("--version").returncode == 0
    res = _entry("solve", str(tmp_path / "missing.yaml"))
    assert res.returncode == 1 and "workload file not found" in res.stderr


def test_verbose_logs_each_step_on_stderr():
    res = _entry("--verbose", "solve", str(next(p for p in EXAMPLES if p.stem == "qlora-7b-week")), "--no-compare")
    assert res.returncode == 0, res.stderr
    assert "loaded" in res.stderr and "offers from" in res.stderr and "planning with cbc" in res.stderr
    assert "loaded" not in res.stdout


def test_every_deliberate_error_carries_its_documented_exit_code():
    from procure.common.errors import ExitCode, InputError, ProcureError
    from procure.solver.milp import SolverFailed, SolverUnavailable
    from procure.solver.verify import VerificationError

    assert issubclass(InputError, ProcureError) and InputError.exit_code == ExitCode.INPUT == 1
    assert ExitCode.PARTIAL == 5  # a plan with a job set aside (docs/errors.md, README)
    assert SolverUnavailable.exit_code == SolverFailed.exit_code == ExitCode.NO_SOLUTION == 3
    assert issubclass(VerificationError, ProcureError) and VerificationError.exit_code == ExitCode.VERIFY == 4


def test_solve_out_writes_cached_values_readers_without_a_calculation_engine_can_see(tmp_path):
    """The workbook `procure solve --out` writes (not only the library's write_workbook) carries the
    formulas' cached results: openpyxl with data_only=True reads the key figure as the plan's total."""
    import json

    import openpyxl

    out, js = tmp_path / "r.xlsx", tmp_path / "r.json"
    qlora = next(p for p in EXAMPLES if p.stem == "qlora-7b-week")
    res = CliRunner().invoke(app, ["solve", str(qlora), "--no-compare", "--out", str(out), "--json", str(js)])
    assert res.exit_code == 0, res.output
    total = json.loads(js.read_text())["total_cost"]
    wb = openpyxl.load_workbook(out, data_only=True)
    sheet, ref = next(iter(wb.defined_names["total_cost"].destinations))
    value = wb[sheet][ref.replace("$", "")].value
    assert value is not None and abs(value - total) < 0.01


@pytest.mark.parametrize("which", ["workload", "catalog"])
def test_analyze_refuses_to_write_over_its_own_inputs(tmp_path, which):
    import shutil

    work = tmp_path / "w.yaml"
    shutil.copy(ROOT / "examples" / "small-lab.yaml", work)
    shutil.copy(ROOT / "examples" / "small-lab-offers.yaml", tmp_path / "small-lab-offers.yaml")
    target = work if which == "workload" else tmp_path / "small-lab-offers.yaml"
    before = target.read_bytes()
    res = cli("analyze", work, "--json", target, "--break-even")
    assert res.exit_code == 1, res.output
    assert "input" in res.output and target.read_bytes() == before
