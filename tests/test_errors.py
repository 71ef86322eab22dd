"""Every failure is clear and nothing is lost: bad input files, solver trouble and output paths, each
through the command line with its exit code and the sentence a user reads (listed in docs/errors.md).

Cases already covered at the library level live in test_models.py and test_catalog.py; here they are
driven end to end through ``procure`` only where the command line adds something (exit code, order of
checks, nothing written)."""

from __future__ import annotations

import csv
import json
import os
import sys
import textwrap
import time

import pulp
import pytest

from procure.common.errors import InputError
from procure.fileio.outputs import atomic_write, check_writable
from procure.offers.catalog import load_catalog

from helpers import GOOD_ROW, ROOT, cli, write_csv

QLORA = str(ROOT / "examples" / "qlora-7b-week.yaml")
GOOD_WORKLOAD = """\
    name: demo
    horizon_months: 12
    workloads:
      - {name: a, model: llama-2-7b, method: lora, tokens_b: 0.5, deadline_days: 30}
    """


def write(tmp_path, text: str, name: str = "workload.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


# --- bad workload files: exit 1, every problem with its line, nothing written -----------------------

BAD_WORKLOADS = {
    "malformed_yaml": (
        "name: x\nworkloads: [\n  - {name: a\n",
        ["workload.yaml:3: error: malformed YAML: did not find expected node content"],
    ),
    "wrong_types": (
        """\
        name: demo
        horizon_months: twelve
        workloads:
          - {name: a, model: llama-2-7b, method: lora, tokens_b: lots, deadline_days: 30, seq_len: 2.5}
        """,
        [
            "workload.yaml:2: error: horizon_months: Input should be a valid integer, unable to parse string as an integer (got 'twelve')",
            "workload.yaml:4: error: workloads[0].tokens_b: Input should be a valid number, unable to parse string as a number (got 'lots')",
            "workload.yaml:4: error: workloads[0].seq_len: Input should be a valid integer, got a number with a fractional part (got 2.5)",
        ],
    ),
    "unknown_keys": (
        """\
        name: demo
        horizon: 12
        workloads:
          - {name: a, model: llama-2-7b, method: lora, tokens_b: 0.5, deadline_days: 30, epochs: 3}
        """,
        [
            "workload.yaml:2: error: horizon: unknown field (did you mean 'horizon_months'?)",
            "workload.yaml:4: error: workloads[0].epochs: unknown field",
        ],
    ),
    "missing_required": (
        """\
        name: demo
        workloads:
          - {name: a, model: llama-2-7b, tokens_b: 0.5}
        """,
        [
            "workload.yaml:3: error: workloads[0].method: required field is missing",
            "workload.yaml:3: error: workloads[0].deadline_days: required field is missing",
        ],
    ),
    "no_workloads": ("name: demo\n", ["workload.yaml: error: workloads: required field is missing"]),
    "zero_and_negative": (
        """\
        name: demo
        budget: -5
        workloads:
          - {name: a, model: llama-2-7b, method: lora, tokens_b: 0, deadline_days: 30}
          - {name: b, model: llama-2-7b, method: lora, tokens_b: -3, deadline_days: 30, checkpoints_kept: 0}
        """,
        [
            "workload.yaml:2: error: budget: Input should be greater than 0 (got -5)",
            "workload.yaml:4: error: workloads[0].tokens_b: Input should be greater than 0 (got 0)",
            "workload.yaml:5: error: workloads[1].tokens_b: Input should be greater than 0 (got -3)",
            "workload.yaml:5: error: workloads[1].checkpoints_kept: Input should be greater than or equal to 1 (got 0)",
        ],
    ),
    "deadline_before_start": (
        """\
        name: demo
        workloads:
          - {name: a, model: llama-2-7b, method: lora, tokens_b: 1, earliest_start_days: 40, deadline_days: 30}
        """,
        ["workload.yaml:3: error: workloads[0]: deadline_days (30) must be after earliest_start_days (40)"],
    ),
    "deadline_beyond_horizon": (
        """\
        name: demo
        start_date: 2027-01-01
        horizon_months: 1
        workloads:
          - {name: a, model: llama-2-7b, method: lora, tokens_b: 1, deadline_days: 60}
        """,
        ["error: deadline_days of a lies beyond the horizon (1 months = 31 days); raise horizon_months"],
    ),
    "unknown_names_did_you_mean": (
        """\
        name: demo
        allowed_modes: [buy, rnet]
        workloads:
          - {name: a, model: lama-2-7b, method: qlroa, tokens_b: 1, deadline_days: 30, allowed_gpus: [H1OO]}
        """,
        [
            "workload.yaml:2: error: allowed_modes[1]: got 'rnet' (did you mean 'rent'?); allowed: 'buy', 'rent' or 'cloud'",
            "workload.yaml:4: error: workloads[0].model: unknown model preset 'lama-2-7b' (did you mean 'llama-2-7b'?)",
            "workload.yaml:4: error: workloads[0].method: got 'qlroa' (did you mean 'qlora'?); allowed: 'pretrain', 'full', 'lora' or 'qlora'",
            "workload.yaml:4: error: workloads[0].allowed_gpus: unknown GPU 'H1OO' (did you mean 'H100-SXM-80GB'?)",
        ],
    ),
    "duplicate_keys": (
        "name: a\nname: b\nworkloads: []\n",
        ['workload.yaml:2: error: malformed YAML: found duplicate key "name"'],
    ),
    "not_a_mapping": (
        "- a\n- b\n",
        ["workload.yaml: error: expected a mapping with `name` and `workloads` at the top level"],
    ),
    "empty_file": ("", ["workload.yaml: error: expected a mapping with `name` and `workloads` at the top level"]),
}


@pytest.mark.parametrize("case", sorted(BAD_WORKLOADS))
def test_bad_workload_exits_1_with_each_problem(tmp_path, case):
    text, expected = BAD_WORKLOADS[case]
    path = write(tmp_path, text)
    out = tmp_path / "plan.json"
    res = cli("solve", path, "--no-compare", "--json", out)
    assert res.exit_code == 1, res.output
    for line in expected:
        assert line in res.output, res.output
    assert f"{len(expected)} problem" in res.output or case in ("unknown_keys",)
    assert "nothing was written" in res.output and not out.exists()


def test_non_utf8_workload(tmp_path):
    p = tmp_path / "workload.yaml"
    p.write_bytes(b"name: caf\xe9\nworkloads: []\n")
    res = cli("solve", p)
    assert res.exit_code == 1
    assert "workload.yaml:1: error: not UTF-8 text (byte 0xe9 at offset 9); save the file as UTF-8" in res.output


def test_missing_workload_file_and_folder(tmp_path):
    res = cli("solve", tmp_path / "nope.yaml")
    assert res.exit_code == 1 and "nope.yaml: error: workload file not found" in res.output
    res = cli("solve", tmp_path)
    assert res.exit_code == 1 and "error: workload file is a folder, expected a file" in res.output


def test_billion_laughs_is_refused_without_expanding(tmp_path):
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for k in range(1, 9):
        lines.append(f"a{k}: &a{k} [" + ",".join([f"*a{k - 1}"] * 9) + "]")
    path = write(tmp_path, "\n".join(lines) + "\n")  # 9^9 ≈ 387 million strings if expanded
    res = cli("solve", path)
    assert res.exit_code == 1
    assert (
        "error: the document holds more than 200,000 values (counting what YAML aliases repeat); refusing to read it"
        in res.output
    )


def test_file_over_the_size_limit_is_refused_unread(tmp_path):
    for name in ("workload.yaml", "big.csv", "big.xlsx", "big.yaml"):
        with open(tmp_path / name, "wb") as fh:
            fh.truncate(21 * 1024 * 1024)  # sparse: nothing is read
    res = cli("solve", tmp_path / "workload.yaml")
    assert res.exit_code == 1 and "workload.yaml: error: workload file is 21.0 MiB; the limit is 1 MiB" in res.output
    res = cli("offers", "validate", tmp_path / "big.csv", tmp_path / "big.xlsx", tmp_path / "big.yaml")
    assert res.exit_code == 1
    for name in ("big.csv", "big.xlsx", "big.yaml"):
        assert f"{name}: error: catalog is 21.0 MiB; the limit is 20 MiB" in res.output
    assert "3 problems found" in res.output


def test_implausible_workload_units_warn_but_run(tmp_path):
    path = write(
        tmp_path,
        """\
        name: demo
        horizon_months: 12
        workloads:
          - {name: a, model: llama-2-7b, method: lora, tokens_b: 200000, deadline_days: 30, dataset_tb: 50000}
        """,
    )
    res = cli("solve", path, "--no-compare")
    assert (
        "workload.yaml:4: warning: workloads[0].dataset_tb: 50000 TB is implausibly large; is the unit TB?"
        in res.output
    )
    assert (
        "workload.yaml:4: warning: workloads[0].tokens_b: 200000 billion tokens is implausibly large; is the unit billions?"
        in res.output
    )
    assert res.exit_code == 2  # nothing stores 50 PB: infeasible, with the reason
    assert "lack NVMe" in res.output or "TB of NVMe per node" in res.output


# --- bad catalogs through the command line -------------------------------------------------------------


def test_catalog_problems_through_solve_exit_1(tmp_path):
    path = write(tmp_path, GOOD_WORKLOAD)
    bad = write_csv(
        tmp_path / "quotes.csv", [dict(GOOD_ROW, price_per_node_month=0, gpus_per_node=0, ram_gb=-1, gpu="H1OO")]
    )
    res = cli("solve", path, "--offers", bad, "--no-compare")
    assert res.exit_code == 1
    for needle in (
        "quotes.csv row 2: error: gpu: unknown GPU 'H1OO' (did you mean 'H100-SXM-80GB'?)",
        "quotes.csv row 2: error: gpus_per_node: Input should be greater than 0 (got '0')",
        "quotes.csv row 2: error: ram_gb: Input should be greater than 0 (got '-1')",
        "quotes.csv row 2: error: price_per_node_month: Input should be greater than 0 (got '0')",
        "4 problems found; nothing was written.",
    ):
        assert needle in res.output, res.output


def test_catalog_formats_and_shapes(tmp_path):
    (tmp_path / "x.txt").write_text("id\n")
    (tmp_path / "bad.xlsx").write_text("not a zip")
    (tmp_path / "cells.csv").write_text("id,vendor\nx,y,z,w\n")
    (tmp_path / "offers5.yaml").write_text("offers: 5\n")
    (tmp_path / "top.yaml").write_text("foo: 1\noffers: []\n")
    (tmp_path / "noid.csv").write_text("vendor;mode;gpu\nV;rent;H100\n")
    res = cli(
        "offers",
        "validate",
        *(tmp_path / n for n in ("x.txt", "bad.xlsx", "cells.csv", "offers5.yaml", "top.yaml", "noid.csv")),
    )
    assert res.exit_code == 1
    for needle in (
        "x.txt: error: unsupported catalog format '.txt'; use .yaml, .yml, .csv or .xlsx",
        "bad.xlsx: error: not a readable .xlsx workbook (not a zip archive); save it from the spreadsheet as .xlsx",
        "cells.csv row 2: error: cells beyond the header's 2 columns, first in column 3; give each column a header or delete the stray cells",
        "offers5.yaml:1: error: offers: expected a list of offers",
        "top.yaml:1: error: foo: unknown top-level key; allowed: offers, catalog_date, notes",
        "noid.csv row 1: error: id: the header row has no `id` column; expected columns: id, vendor,",
        "6 problems found",
    ):
        assert needle in res.output, res.output


def test_csv_with_bom_only_and_semicolons_only(tmp_path):
    bom = write_csv(tmp_path / "bom.csv", [GOOD_ROW], bom=True)
    semi = write_csv(tmp_path / "semi.csv", [dict(GOOD_ROW, id="semi")], delimiter=";")
    res = cli("offers", "validate", bom, semi)
    assert res.exit_code == 0 and "ok: 2 offers (rent) in 2 file(s)" in res.output


def test_duplicate_ids_across_files_name_both_places(tmp_path):
    a = write_csv(tmp_path / "a.csv", [GOOD_ROW])
    b = write_csv(tmp_path / "b.csv", [dict(GOOD_ROW, vendor="W")])
    res = cli("offers", "validate", a, b)
    assert res.exit_code == 1
    assert "b.csv row 2: error: id: duplicate offer id 'v-8xh100' (first defined at a.csv row 2)" in res.output


def test_empty_catalog_through_the_cli(tmp_path):
    (tmp_path / "empty.yaml").write_text("offers: []\n")
    res = cli("offers", "validate", tmp_path / "empty.yaml")
    assert res.exit_code == 1 and "empty.yaml: error: the catalog has no offers" in res.output


@pytest.mark.slow
def test_hundred_thousand_row_catalog_loads(tmp_path, capsys):
    path = tmp_path / "big.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, list(GOOD_ROW))
        w.writeheader()
        for i in range(100_000):
            w.writerow(dict(GOOD_ROW, id=f"v-{i}", max_nodes=1 + i % 16))
    t0 = time.perf_counter()
    cat = load_catalog([path])
    seconds = time.perf_counter() - t0
    assert len(cat.offers) == 100_000 and cat.offers[-1].id == "v-99999" and cat.offers[-1].gpu == "H100-SXM-80GB"
    with capsys.disabled():  # a figure for people, never an assertion (DESIGN: no wall-time asserts)
        print(f"\n100,000-row CSV catalog loaded and validated in {seconds:.2f} s", file=sys.stderr)


# --- a catalog whose every offer is filtered out: infeasible, each rule with its count -------------


def test_every_offer_filtered_out_says_which_rule_removed_how_many(tmp_path):
    path = write(
        tmp_path,
        """\
        name: demo
        horizon_months: 12
        team_region: cn-east
        workloads:
          - {name: big, model: llama-2-13b, method: full, tokens_b: 200, deadline_days: 10}
        """,
    )
    # one rule removes each: GPU memory (a 13B's bf16 weights alone, 26 GB, overflow a 24 GB card even with
    # the optimizer offloaded to its 512 GB of host RAM), the network line across the border, the deadline
    offers = [
        dict(
            GOOD_ROW,
            id="small-gpu",
            region="cn-east",
            gpu="RTX-4090-24GB",
            gpus_per_node=1,
            intra_node="pcie",
            inter_node="none",
            inter_node_rails=1,
            ram_gb=512,
            cpu_cores=64,
            max_nodes=1,
        ),
        dict(GOOD_ROW, id="far-away", region="us-east", network_line="standard"),
        dict(GOOD_ROW, id="slow", region="cn-east", max_nodes=1),
    ]
    cat = write_csv(tmp_path / "o.csv", offers)
    res = cli("solve", path, "--offers", cat, "--no-compare")
    assert res.exit_code == 2, res.output
    assert "INFEASIBLE" in res.output
    assert "no offer can run it: 1 offer is excluded by region / network line" in res.output
    assert "1 are " not in res.output and "1 lack " not in res.output
    assert "1 offer lacks GPU memory" in res.output
    assert "1 offer cannot finish by the deadline" in res.output
    assert "1 offer is excluded by region / network line" in res.output


# --- output paths: checked before any solving ------------------------------------------------------


def test_output_in_missing_folder_fails_fast_before_solving(monkeypatch):
    import procure.solver.planner

    def must_not_run(*a, **k):  # pragma: no cover - the point is that it is never called
        raise AssertionError("solving started before the output path was checked")

    monkeypatch.setattr(procure.solver.planner, "plan_project", must_not_run)
    res = cli("solve", QLORA, "--json", "/nonexistent/x.json")
    assert res.exit_code == 1
    assert "/nonexistent/x.json: error: --json: folder '/nonexistent' does not exist" in res.output
    res = cli("solve", QLORA, "--out", "/nonexistent/r.xlsx")
    assert res.exit_code == 1 and "--out: folder '/nonexistent' does not exist" in res.output
    res = cli("solve", QLORA, "--out", "report.pdf")
    assert res.exit_code == 1 and "report.pdf: error: --out: the workbook must end in .xlsx" in res.output


def test_output_path_that_is_a_folder(tmp_path):
    res = cli("solve", QLORA, "--json", tmp_path)
    assert res.exit_code == 1 and "error: --json: is a folder; give a file name" in res.output


def test_unwritable_folder(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        if os.access(ro, os.W_OK):
            pytest.skip("running with privileges that ignore folder permissions")
        res = cli("solve", QLORA, "--json", ro / "x.json")
        assert res.exit_code == 1 and "error: --json: no permission to write here" in res.output
    finally:
        ro.chmod(0o755)


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path, monkeypatch):
    target = tmp_path / "plan.json"
    target.write_text("old complete file")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(InputError) as exc:
        atomic_write(target, b'{"new": 1}', "--json")
    assert (
        "could not write the file (No space left on device); nothing was written and any previous file is unchanged"
        in str(exc.value)
    )
    assert target.read_text() == "old complete file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]  # no temporary file left behind


def test_atomic_write_replaces_an_existing_file_whole(tmp_path):
    target = tmp_path / "plan.json"
    target.write_text("x" * 100_000)
    atomic_write(target, b"short")
    assert target.read_bytes() == b"short"
    assert check_writable(target) == target


def test_json_report_replaces_an_existing_file_with_the_complete_plan(tmp_path):
    out = tmp_path / "plan.json"
    out.write_text("stale")
    res = cli("solve", QLORA, "--no-compare", "--json", out)
    assert res.exit_code == 0
    assert json.loads(out.read_text())["status"] == "optimal"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]


# --- solver trouble: exit 3 with a sentence, never a traceback --------------------------------------


def test_cbc_missing_exits_3(monkeypatch):
    monkeypatch.setattr(pulp.PULP_CBC_CMD, "available", lambda self: False)
    res = cli("solve", QLORA, "--no-compare")
    assert res.exit_code == 3
    assert (
        "solver problem: the CBC solver that ships with PuLP was not found or cannot run on this machine" in res.output
    )
    assert "--solver highs" in res.output


def test_cbc_crash_exits_3(monkeypatch):
    def crash(self, lp, **kwargs):
        raise pulp.PulpSolverError("Pulp: Error while trying to execute, use msg=True for more details/usr/bin/cbc")

    monkeypatch.setattr(pulp.PULP_CBC_CMD, "actualSolve", crash)
    res = cli("solve", QLORA, "--no-compare")
    assert res.exit_code == 3
    assert "solver problem: the CBC solver stopped with an error" in res.output and "try --solver highs" in res.output


def test_highs_missing_exits_3_and_says_how_to_reinstall_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "highspy", None)  # import highspy -> ImportError
    res = cli("solve", QLORA, "--no-compare", "--solver", "highs")
    assert res.exit_code == 3
    assert (
        "solver problem: HiGHS is not installed; it is a dependency of procure; reinstall it with: pip install highspy"
        in res.output
    )


def fake_cbc_stop(monkeypatch, *, with_solution: bool, bound_fraction: float = 0.9):
    """Make CBC behave as if it hit --time-limit: solve for real, then report 'Stopped on time' (with the
    incumbent and a lower bound ``bound_fraction`` × its cost, or with no solution) as PuLP and the log would."""
    real = pulp.PULP_CBC_CMD.actualSolve

    def stopped(self, lp, **kwargs):
        real(self, lp, **kwargs)
        obj = pulp.value(lp.objective)
        text = "Result - Stopped on time limit\n\n"
        if with_solution:
            lp.assignStatus(pulp.LpStatusOptimal, pulp.LpSolutionIntegerFeasible)
            text += (
                f"Objective value:                {obj:.8f}\nLower bound:                    {obj * bound_fraction!r}\n"
            )
        else:
            lp.assignStatus(pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound)
            text += "No feasible solution found\nLower bound:                    1.000\n"
        with open(self.optionsDict["logPath"], "w") as fh:
            fh.write(text)
        return lp.status

    monkeypatch.setattr(pulp.PULP_CBC_CMD, "actualSolve", stopped)


def test_time_limit_with_a_solution_is_feasible_with_its_gap_never_optimal(tmp_path, monkeypatch):
    fake_cbc_stop(monkeypatch, with_solution=True)
    out = tmp_path / "plan.json"
    res = cli("solve", QLORA, "--no-compare", "--time-limit", "30", "--json", out)
    assert res.exit_code == 0
    assert "status: feasible (cbc, proven gap 10.0000%" in res.output
    j = json.loads(out.read_text())
    assert j["status"] == "feasible" and j["solver"]["status"] == "feasible"
    assert j["solver"]["gap"] == pytest.approx(0.1, abs=1e-3)
    assert "optimal" not in res.output


def test_time_limit_without_a_solution_reports_the_verified_greedy_plan_as_heuristic(tmp_path, monkeypatch):
    # CBC stops without a plan but with a lower bound of 1.000: the greedy plan is reported, verified,
    # labelled heuristic, with its gap to that bound, (cost − 1) / cost
    fake_cbc_stop(monkeypatch, with_solution=False)
    out = tmp_path / "plan.json"
    res = cli("solve", QLORA, "--no-compare", "--time-limit", "30", "--json", out)
    assert res.exit_code == 0
    assert "heuristic plan (greedy, or the weekly stage's): the solver found none in its time share" in res.output
    j = json.loads(out.read_text())
    assert j["status"] == "feasible" and j["solver"]["heuristic"] is True
    cost = j["total_cost"]
    assert j["solver"]["gap"] == pytest.approx((cost - 1.0) / cost, rel=1e-3)  # total_cost is rounded to cents


def test_time_limit_without_any_plan_exits_3(tmp_path, monkeypatch):
    fake_cbc_stop(monkeypatch, with_solution=False)
    import procure.solver.planner as planner

    monkeypatch.setattr(planner, "greedy_plan", lambda *a, **k: None)  # the greedy rule strands a workload
    out = tmp_path / "plan.json"
    res = cli("solve", QLORA, "--no-compare", "--time-limit", "30", "--json", out)
    assert res.exit_code == 3
    assert "NO SOLUTION within the time limit" in res.output
    assert "the solver found no plan before --time-limit; raise --time-limit and run again" in res.output
    j = json.loads(out.read_text())
    assert j["status"] == "no_solution" and j["total_cost"] is None and j["assignments"] == []


def hard_instance(seed: int, n_workloads: int):
    """Jobs with overlapping windows over 7 months, each able to run on 1 or 2 nodes of any of 8
    capped buy / rent / cloud offers: a scheduling-and-sizing MILP of ~15,000 binaries on a daily grid."""
    import random

    from helpers import project, windowed_jobs

    rng = random.Random(seed)
    workloads, offers, hours = windowed_jobs(
        rng, n_workloads, 8, window=(20, 60), max_nodes=[2, 3, 4], base_days=(5, 25)
    )
    return project(workloads, period_days=1), offers, hours


@pytest.mark.xdist_group("clock")  # measures wall-clock limits or waits on a child: one at a time
def test_real_time_limit_on_a_hard_instance_is_reported_honestly():
    """30 jobs sharing bought and rented servers on a daily grid: CBC cannot prove optimality in 0.5 s
    (on the reference machine there is no time to build the model and the greedy plan is reported; on a
    faster one CBC may stop with or without a plan of its own)."""
    from procure.solver.verify import verify_plan

    from helpers import fixed_sizings, solve_fixed

    p, offers, hours = hard_instance(seed=0, n_workloads=30)
    res = solve_fixed(p, offers, hours, compare=False, time_limit=0.5)
    info = res.hybrid.solve
    assert res.status in ("optimal", "feasible", "no_solution")
    assert info is not None and info.status == res.status
    if res.status == "no_solution":
        assert res.plan is None and info.objective is None
    elif res.status == "feasible" and info.heuristic:  # no time to build the model: the verified greedy plan
        assert res.plan is not None and (info.gap is None or info.gap > 1e-6)
    elif res.status == "feasible":
        assert res.plan is not None and info.gap is not None and info.gap > 1e-6
    else:  # proven within the requested gap
        assert info.gap is not None and info.gap <= 1e-6 + 1e-12
    if res.plan is not None:
        _, resize = fixed_sizings(p, offers, hours)
        verify_plan(p, {o.id: o for o in offers}, res.plan, resize)


def test_verification_failure_exits_4_and_hides_the_plan(tmp_path, monkeypatch):
    import procure.solver.reading
    from procure.solver.verify import VerificationError

    def broken(*a, **k):
        raise VerificationError(["capacity: 3 nodes of x in use on days 0.0–7.0 but 2 bought"])

    monkeypatch.setattr(procure.solver.reading, "verify_plan", broken)
    out = tmp_path / "plan.json"
    res = cli("solve", QLORA, "--no-compare", "--json", out)
    assert res.exit_code == 4
    assert "internal error: the optimizer's plan failed independent verification and is not shown." in res.output
    assert "capacity: 3 nodes of x in use" in res.output
    assert "This is a bug in procure; please report it with your input files." in res.output
    assert "Recommendation" not in res.output and not out.exists()


# --- user text is printed as typed, never interpreted as markup -------------------------------------


def test_names_with_brackets_print_as_typed(tmp_path):
    path = write(
        tmp_path,
        """\
        name: "demo [/b] [red]x"
        horizon_months: 12
        workloads:
          - {name: "a[/i] [bold]", model: llama-2-7b, method: lora, tokens_b: 0.5, deadline_days: 30}
        """,
    )
    res = cli("solve", path, "--no-compare")
    assert res.exit_code == 0
    assert "demo [/b] [red]x" in res.output and "a[/i] [bold]" in res.output


def test_size_prints_markup_in_names_as_typed(tmp_path):
    # A name like "x[/red]" once crashed `procure size` with rich's MarkupError: the sizing table put the
    # workload name and the rejection reasons into markup unescaped.
    path = write(
        tmp_path,
        """\
        name: demo
        horizon_months: 12
        workloads:
          - {name: "x[/red]", model: llama-2-7b, method: lora, tokens_b: 0.5, deadline_days: 30}
        """,
    )
    res = cli("size", path)
    assert res.exit_code == 0, res.output
    assert "x[/red]" in res.output and "Traceback" not in res.output


def test_no_write_permission_message(monkeypatch, tmp_path):
    """The same check where the test user may write anywhere (root): the OS answer is simulated."""
    import procure.fileio.outputs

    real = os.access
    monkeypatch.setattr(
        procure.fileio.outputs.os, "access", lambda path, mode: False if mode & os.W_OK else real(path, mode)
    )
    res = cli("solve", QLORA, "--json", tmp_path / "x.json")
    assert res.exit_code == 1 and "x.json: error: --json: no permission to write here" in res.output


def test_absurdly_deep_nesting_is_an_input_error(tmp_path):
    path = write(tmp_path, "name: x\nworkloads: " + "[" * 5000 + "]" * 5000 + "\n")
    res = cli("solve", path)
    assert res.exit_code == 1 and "error: malformed YAML: nested too deeply to read" in res.output


def test_reports_get_ordinary_file_permissions(tmp_path):
    # the temporary file behind an atomic write is private; the finished report must not be
    from procure.fileio.outputs import atomic_write

    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "new.json", b"{}")
        assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o644
        kept = tmp_path / "kept.json"
        kept.write_bytes(b"old")
        kept.chmod(0o640)
        atomic_write(kept, b"new")
        assert kept.stat().st_mode & 0o777 == 0o640 and kept.read_bytes() == b"new"
    finally:
        os.umask(old)
